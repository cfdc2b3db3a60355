"""Hypothesis strategies for the scalar-arithmetic family: every structural parameter is drawn by
hypothesis (so failures shrink to fewer repeats, simpler masks and strides); UB contents come from
a drawn seed and data style (raw random bytes, special values, small numbers)."""

import math

import numpy as np
from hypothesis import strategies as st

from .. import dtypes as _dt
from ..fuzz.families.base import specials
from ..fuzz.families.unary_scalar import Case
from ..profile import as_profile


def _words_from_bits(bits):
    words = []
    for w in range(8):
        v = 0
        for i in range(32):
            if bits[w * 32 + i]:
                v |= 1 << i
        words.append(v)
    return words


@st.composite
def lane_bits(draw, L, reg_bits):
    kind = draw(st.sampled_from(["all", "zero", "one", "prefix", "random"]))
    bits = [False] * 256
    if kind == "all":
        bits[:L] = [True] * L
    elif kind == "one":
        bits[draw(st.integers(0, L - 1))] = True
    elif kind == "prefix":
        n = draw(st.integers(0, L))
        bits[:n] = [True] * n
    elif kind == "random":
        bits[:L] = draw(st.lists(st.booleans(), min_size=L, max_size=L))
    for i in range(min(L, reg_bits), 256):
        bits[i] = False
    return bits


@st.composite
def unary_scalar_cases(draw, profile, api, dtype, ub_bytes=8192, fault_rate=0.1):
    p = as_profile(profile)
    d = _dt.as_dtype(dtype)
    L = p.lanes(d)
    E = p.block_bytes // d.itemsize
    nblocks = ub_bytes // 32
    forms = ["count", "continuous", "bitwise", "register"]
    if d.name in p.api(api).count_only_dtypes:
        forms = ["count"]  # "仅支持tensor前n个数据计算接口": the count prototype only
    form = draw(st.sampled_from(forms))
    is_set_mask = form != "register"
    if form == "count" and p.level2_is_set_mask == "honoured":
        is_set_mask = draw(st.sampled_from([True, True, True, False]))
    data = draw(st.sampled_from(["raw", "specials", "small"]))
    sp = specials(d)
    if d.kind == "complex":
        part = _dt.half if d.name == "complex32" else _dt.float32
        psp = [
            b
            for b in specials(part)
            if not ((b & ~(1 << (part.bits - 1))) > (0x7C00 if part.bits == 16 else 0x7F800000))
        ]

        def comp():
            b = draw(st.one_of(st.sampled_from(psp), st.integers(0, 2**part.bits - 1)))
            v = float(np.array(b, part.bits_dtype).view(part.np_dtype))
            return 0.0 if v != v else v  # a NaN scalar's payload/sign is not modelled: use 0

        scalar = complex(comp(), comp())
    elif d.is_float:
        bits = draw(st.one_of(st.sampled_from(sp), st.integers(0, 2**d.bits - 1)))
        scalar = float(np.array(bits, d.bits_dtype).view(d.np_dtype))
    else:
        bits = draw(st.one_of(st.sampled_from(sp), st.integers(0, 2**d.bits - 1)))
        scalar = int(np.array(bits, dtype=np.uint64).astype(d.bits_dtype).view(d.np_dtype))
    counter_ok = p.counter_mode != "unsupported" and form != "count"
    mask_mode = draw(st.sampled_from([0, 0, 0, 1])) if counter_ok else 0
    vbits = draw(lane_bits(L, p.vector_mask_bits))
    vmask_words = _words_from_bits(vbits)
    repeat = draw(st.one_of(st.sampled_from([0, 1, 2, 8, 255]), st.integers(0, 255)))
    default_strides = draw(st.booleans())
    if default_strides:
        strides = (1, 1, 8, 8)
    else:
        small = st.sampled_from([0, 1, 2, 3, 4, 8, 9, 16])
        strides = (draw(small), draw(small), draw(small), draw(small))
    count = 0
    count_reg = 0
    max_elems = nblocks * E // 2
    if form == "count":
        count = draw(
            st.one_of(st.sampled_from([0, 1, L - 1, L, L + 1]), st.integers(0, min(3 * L, max_elems)))
        )
        reps = math.ceil(count / L)
        blk_d = blk_s = 1
        rep_d = rep_s = 8
    else:
        reps = repeat
        blk_d, blk_s, rep_d, rep_s = strides
    if mask_mode == 1:
        # a static zero mask argument is a usage error on zero_mask = "error" profiles, whatever the mode
        lo = 1 if (p.zero_mask == "error" and form in ("continuous", "bitwise")) else 0
        count_reg = draw(st.integers(lo, min(4 * L, max_elems)))
        reps = math.ceil(count_reg / L)
        vmask_words = [count_reg & 0xFFFFFFFF, count_reg >> 32, 0, 0, 0, 0, 0, 0]
    mask = None
    nw = p.vector_mask_bits // 64
    if form == "continuous":
        mask = (
            count_reg if mask_mode == 1 else draw(st.sampled_from([0, 1, L // 2, L - 1, L, L + 5, 2**64 - 1]))
        )
        if p.zero_mask == "error" and mask_mode == 0 and mask == 0:
            mask = 1
    elif form == "bitwise":
        if mask_mode == 1:
            mask = tuple([count_reg] + [0] * (nw - 1))
        else:
            mbits = draw(lane_bits(L, p.vector_mask_bits))
            w = _words_from_bits(mbits)
            mask = tuple(w[2 * i] | (w[2 * i + 1] << 32) for i in range(nw))
            if p.zero_mask == "error" and not any(mask):
                mask = (1,) + mask[1:]

    def footprint(blk, rep):
        return (max(reps, 1) - 1) * rep + 7 * blk + 1

    fp = max(footprint(blk_d, rep_d), footprint(blk_s, rep_s))
    hi = max(0, nblocks - min(fp, nblocks))

    def addr():
        kind = draw(st.sampled_from(["ok"] * 18 + ["misaligned", "outside"]))
        b = draw(st.integers(0, hi))
        if kind == "misaligned" and draw(st.floats(0, 1)) < fault_rate * 10:
            return b * 32 + draw(st.sampled_from([2, 4, 16]))
        if kind == "outside" and draw(st.floats(0, 1)) < fault_rate * 10:
            return draw(st.integers(nblocks - 2, nblocks + 4)) * 32
        return b * 32

    dst = addr()
    src = dst if draw(st.integers(0, 6)) == 0 else addr()
    ctrl = [p.ctrl_reset_value & 0xFFFFFFFF, (p.ctrl_reset_value >> 32) & 0xFFFFFFFF]
    for bit in (p.float_saturation_ctrl_bit, p.int_saturation_ctrl_bit):
        if bit >= 0 and draw(st.booleans()):
            ctrl[bit // 32] ^= 1 << (bit % 32)
    return Case(
        api=api,
        dtype=d.name,
        form=form,
        is_set_mask=is_set_mask,
        dst=dst,
        src=src,
        scalar=scalar,
        count=count,
        mask=mask,
        repeat=repeat,
        strides=strides,
        vmask=tuple(vmask_words),
        mask_mode=mask_mode,
        ctrl=tuple(ctrl),
        ub_seed=draw(st.integers(0, 2**31 - 1)),
        ub_bytes=ub_bytes,
        data=data,
    )
