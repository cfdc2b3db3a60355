"""Fuzz adapter of the cast composites of 复合计算/ (AddReluCast, SubReluCast, MulCast, AddDeqRelu,
MulsCast(ISASI)) and SetDeqScale (类型转换/寄存器配置说明/SetDeqScale.md); docs/MODEL.md "Cast
composites", "SetDeqScale and the DEQSCALE conversions".

A case is one call: the (U, T) pair, the addresses of dst, src0, src1, the call form's arguments
(count; or mask, repeatTime and ``BinaryRepeatParams``; or MASK_PLACEHOLDER), the registers on entry
and the UB data (random bits, specials, small values of U). AddDeqRelu cases first write DEQSCALE
with ``SetDeqScale(scale)`` (a half scale); SetDeqScale cases are the two scalar prototypes alone.
Every case starts from a random DEQSCALE (``deqscale_init``) that the comparator sees, so the write
of SetDeqScale and the other APIs leaving it alone are checked.
MulsCast cases: a number in either position, or a LocalTensor element (any byte address) with or
without ``config``.

Fast path: the public API vmapped over traced values -- addresses, count, the high-dim forms as one
``AnyForm`` (form code, count, mask, mask words, repeatTime, strides), DEQSCALE's scale, MulsCast's
scalar and element address -- with the repeat bucket ``RB`` static: one program per (API, U, T) (a
count-only pair: the count form's own); the three composites of a (U, T) share one jitted core (the
API is a traced code inside it). The count form's strides in an ``AnyForm`` are its own contiguous
ones (``plan_forms``' ``count_strides``: found by this family -- they were BinaryRepeatParams'
defaults). Reference: ``ascend_jax.reference`` with Python values.
"""

import dataclasses
import math

import numpy as np

from ... import dtypes as _dt
from ...params import AnyForm, BinaryRepeatParams
from ...tensor import MASK_PLACEHOLDER, LocalTensor
from ..regs import random_ctrl
from . import draw as D
from .base import (
    MASK_FIELDS,
    bucket_kw,
    case_dataclass,
    data_mutations,
    form_codes,
    int32_columns,
    mask_columns,
    mask_label,
    repeat_regime,
    specials,
    stride_regime,
)
from .family import Family

COMPOSITES = ("AddReluCast", "SubReluCast", "MulCast")
APIS = COMPOSITES + ("AddDeqRelu", "MulsCast", "SetDeqScale")
FORMS = ("count", "continuous", "bitwise", "register")
MULS_FORMS = ("num1", "num0", "elem", "elem0", "elem1")  # scalar position; element: config default/0/1
DEQ_FORMS = ("half", "float")  # SetDeqScale(scale) / SetDeqScale(scale, offset, signMode)
UB_BYTES = 8192
RB = 4  # the repeat bucket: counts, Counter-mode masks <= RB repeats, repeatTime <= RB
HALF_SCALES = (0x3C00, 0x2E66, 0xBC00, 0x0001, 0x8000, 0x0000, 0x7C00, 0xFC00, 0x7E00, 0x7BFF, 0x4000, 0x1400)


@case_dataclass
class CastCompCase:
    api: str
    dtype: str  # T (dst); SetDeqScale: the scale's type (half / float32)
    src: str  # U (src0, src1)
    form: str  # count | continuous | bitwise | register; MulsCast: MULS_FORMS; SetDeqScale: DEQ_FORMS
    dst: int = 0
    src0: int = 0
    src1: int = 0
    count: int = 0
    mask: object = 0  # int (continuous) or tuple of uint64 words (bitwise)
    repeat: int = 1
    strides: tuple = (1, 1, 1, 8, 8, 8)  # BinaryRepeatParams
    registers: MASK_FIELDS
    ub_bytes: int = UB_BYTES
    scale: float = 1.0  # DEQSCALE's scale (AddDeqRelu's pre-step, SetDeqScale)
    offset: int = 0  # SetDeqScale(scale, offset, signMode)
    sign: bool = False
    scalar: float = 0.0  # MulsCast's number
    elem: int = 0  # MulsCast's element address (forms elem*)
    config: int = -1  # MulsCast: BinaryConfig(scalarTensorIndex), -1 = none
    deqscale_init: tuple = (0, 0)  # DEQSCALE on entry (low, high uint32 words)

    def call_repr(self):
        if self.api == "SetDeqScale":
            if self.form == "half":
                return f"SetDeqScale((half){self.scale!r})"
            return f"SetDeqScale((float){self.scale!r}, {self.offset}, {str(self.sign).lower()})"
        t, u = _dt.as_dtype(self.dtype).cpp, _dt.as_dtype(self.src).cpp
        if self.api == "MulsCast":
            s = f"src@{self.src0}"
            if self.form.startswith("elem"):
                e = f"elem@{self.elem}"
                first = self.form == "elem0"
                a, b = (e, s) if first else (s, e)
                cfg = "" if self.config < 0 else f", config={{{self.config}}}"
                return f"MulsCast<{t}, {u}{cfg}>(dst@{self.dst}, {a}, {b}, {self.count})"
            a, b = (repr(self.scalar), s) if self.form == "num0" else (s, repr(self.scalar))
            return f"MulsCast<{t}, {u}>(dst@{self.dst}, {a}, {b}, {self.count})"
        pre = f"SetDeqScale((half){self.scale!r}); " if self.api == "AddDeqRelu" else ""
        tmpl = f"<{t}, {u}{', false' if self.form == 'register' else ''}>"
        head = f"{pre}{self.api}{tmpl}(dst@{self.dst}, src0@{self.src0}, src1@{self.src1}"
        if self.form == "count":
            return f"{head}, {self.count})"
        m = self.mask
        if self.form != "continuous":
            m = "MASK_PLACEHOLDER" if self.form == "register" else [hex(w) for w in self.mask]
        mode = "counter" if self.mask_mode else "normal"
        return f"{head}, {m}, {self.repeat}, {self.strides})  [mode={mode}]"


# -- generation ------------------------------------------------------------------------------------


def pairs(p, api):
    """{(U, T): count_only} of ``api`` on ``p`` (the product's ``apis.<api>.pairs``; AddDeqRelu: the
    one pair of its page; MulsCast: float -> half, the count prototype)."""
    a = p.api(api)
    if not a.supported:
        return {}
    if api == "AddDeqRelu":
        return {("int32", "half"): False}  # SPEC: AddDeqRelu.md 表3 "src0、src1 int32_t, dst half"
    if api == "MulsCast":
        return {("float32", "half"): True}
    out = {}
    for entry in a.pairs:
        words = entry.split()
        s, t = (x.strip() for x in words[0].split("->"))
        out[(s, t)] = "[count]" in words[1:]
    return out


def wide_of(c):
    s, t = _dt.as_dtype(c.src), _dt.as_dtype(c.dtype)
    return s if s.itemsize > t.itemsize else t


def patterns(d, n, rng):
    """n bit patterns of ``d`` (as uint64): random bits, the dtype's specials, small values."""
    raw = rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n, dtype=np.uint64)
    if d.bits < 64:
        raw &= np.uint64((1 << d.bits) - 1)
    pick = rng.random(n)
    sp = specials(d) if d.is_float else None
    if sp:
        pool = np.array(sp, dtype=np.uint64)
        raw = np.where(pick < 0.25, pool[rng.integers(0, len(pool), n)], raw)
    if d.is_float:
        small = (rng.integers(-4096, 4096, n) / 8.0).astype(d.np_dtype).view(d.bits_dtype).astype(np.uint64)
        raw = np.where(pick > 0.6, small, raw)
    else:
        lim = 1 << (d.bits - 1)
        ext = np.array([0, 1, lim - 1, (1 << d.bits) - lim, (1 << d.bits) - 1], np.uint64)
        raw = np.where(pick < 0.15, ext[rng.integers(0, len(ext), n)], raw)
        small = rng.integers(-300, 300, n).astype(np.int64).view(np.uint64)
        if d.bits < 64:
            small &= np.uint64((1 << d.bits) - 1)
        raw = np.where(pick > 0.7, small, raw)
    return raw


def make_ub(c):
    """The case's initial UB: bit patterns of U (float32 for MulsCast, random bytes for SetDeqScale)."""
    rng = np.random.default_rng(c.ub_seed)
    if c.api == "SetDeqScale":
        return rng.integers(0, 256, c.ub_bytes, dtype=np.uint8)
    d = _dt.as_dtype(c.src)
    bits = patterns(d, c.ub_bytes // d.itemsize, rng)
    return bits.astype(d.bits_dtype).view(np.uint8).copy()


def _half(bits):
    return float(np.array(bits, np.uint16).view(np.float16))


def random_scale(rng):
    """A half DEQSCALE scale: the pages' and special values, a small multiple of 1/16, random bits."""
    r = rng.random()
    if r < 0.5:
        b = int(rng.choice(HALF_SCALES))
    elif r < 0.75:
        b = int(np.float16(rng.integers(-64, 64) / 16).view(np.uint16))
    else:
        b = int(rng.integers(0, 1 << 16))
    v = _half(b)
    return float("nan") if v != v else v  # a NaN scale's payload is not a Python float's


def _addr(rng, d, fault_rate):
    a = int(rng.integers(0, UB_BYTES // 32)) * 32
    if rng.random() < 0.4 * fault_rate and d.itemsize < 32:
        a += d.itemsize * int(rng.integers(1, max(2, 32 // d.itemsize)))  # misaligned
    if rng.random() < 0.3 * fault_rate:
        a = UB_BYTES + 32 * int(rng.integers(0, 8))  # outside UB
    return a


def random_binary(rng, p, api, s, t, form, fault_rate=0.1):
    """A composite / AddDeqRelu call of (U, T) = (s, t) in call form ``form``."""
    S, T = _dt.as_dtype(s), _dt.as_dtype(t)
    wide = S if S.itemsize > T.itemsize else T
    L = p.lanes(wide)
    counter = form != "count" and p.counter_mode != "unsupported" and bool(rng.random() < 0.25)
    vm = np.zeros(8, np.uint32)
    if counter:
        vm[0] = int(rng.integers(0, RB * L + 1))
    else:
        nbits = min(L, p.vector_mask_bits)
        bits = rng.integers(0, 2, nbits) if rng.random() < 0.6 else np.ones(nbits, np.int64)
        for i, b in enumerate(bits):
            if b:
                vm[i // 32] |= np.uint32(1 << (i % 32))
    blk = [int(rng.choice([0, 1, 1, 2, 3])) if rng.random() < 0.3 else 1 for _ in range(3)]
    if blk[0] == 0 and rng.random() > fault_rate:
        blk[0] = 1
    rep = [
        int(rng.integers(0, 17)) if rng.random() < 0.5 else 8 * d.itemsize // wide.itemsize for d in (T, S, S)
    ]
    if form == "count":
        blk, rep = [1, 1, 1], [8 * d.itemsize // wide.itemsize for d in (T, S, S)]
    dst = _addr(rng, T, fault_rate)
    src0, src1 = (_addr(rng, S, fault_rate) if rng.random() < 0.92 else dst for _ in range(2))
    low = 1 if p.zero_mask == "error" else 0  # a static zero mask is a UsageError there
    mask = 0
    if form == "continuous":
        mask = int(rng.integers(low, (RB * L if counter else L) + 1))
    elif form == "bitwise":
        n64 = max(1, min(L, p.vector_mask_bits) // 64)
        if counter:
            mask = (int(rng.integers(low, RB * L + 1)),) + (0,) * (n64 - 1)
        else:
            m = [int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2)) for _ in range(n64)]
            if min(L, p.vector_mask_bits) < 64:
                m = [m[0] & ((1 << L) - 1)]
            m[0] |= low
            mask = tuple(m)
    return CastCompCase(
        api=api,
        dtype=t,
        src=s,
        form=form,
        dst=dst,
        src0=src0,
        src1=src1,
        count=int(rng.integers(0, RB * L + 1)) if form == "count" else 0,
        mask=mask,
        repeat=int(rng.integers(0, RB + 1)) if form != "count" else 1,
        strides=(*blk, *rep),
        vmask=tuple(int(x) for x in vm),
        mask_mode=int(counter),
        ctrl=random_ctrl(rng, p),
        ub_seed=int(rng.integers(0, 2**31)),
        scale=random_scale(rng) if api == "AddDeqRelu" else 1.0,
    )


def random_muls_cast(rng, p, form, fault_rate=0.1):
    """MulsCast(ISASI): random count, addresses, float32 data and scalar (a number in either position,
    or a LocalTensor element at any byte address, some meeting dst)."""
    L = p.lanes(_dt.float32)
    d_addr = int(rng.integers(0, UB_BYTES // 32)) * 32
    if rng.random() < 0.5 * fault_rate:
        d_addr += 2 * int(rng.integers(1, 16))
    s_addr = int(rng.integers(0, UB_BYTES // 32)) * 32
    bits = patterns(_dt.float32, 1, rng)[0]
    scalar = float(np.array([bits], np.uint64).astype(np.uint32).view(np.float32)[0])
    if not np.isfinite(scalar) or abs(scalar) > 1e30:
        scalar = float(rng.integers(-8, 8)) / 4
    elem, config = 0, -1
    if form.startswith("elem"):
        r = rng.random()
        elem = int(rng.integers(0, UB_BYTES - 3)) if r > fault_rate else UB_BYTES - int(rng.integers(0, 4))
        if rng.random() < 0.1:
            elem = d_addr + int(rng.integers(0, 64))
        config = {"elem": -1, "elem0": 0, "elem1": 1}[form]
    return CastCompCase(
        api="MulsCast",
        dtype="half",
        src="float32",
        form=form,
        dst=d_addr,
        src0=s_addr,
        count=int(rng.integers(0, RB * L + 1)),
        ub_seed=int(rng.integers(0, 2**31)),
        scalar=scalar,
        elem=elem,
        config=config,
        ctrl=random_ctrl(rng, p),
    )


def random_set_deq_scale(rng, p, form):
    if form == "half":
        return CastCompCase(
            api="SetDeqScale", dtype="half", src="half", form=form, scale=random_scale(rng), ub_bytes=256
        )
    bits = int(patterns(_dt.float32, 1, rng)[0])
    v = float(np.array(bits, np.uint32).view(np.float32))
    return CastCompCase(
        api="SetDeqScale",
        dtype="float32",
        src="float32",
        form=form,
        scale=float("nan") if v != v else v,
        offset=int(rng.integers(-(1 << 15), 1 << 15)) if rng.random() < 0.5 else int(rng.integers(-256, 256)),
        sign=bool(rng.random() < 0.5),
        ub_bytes=256,
    )


def random_case(rng, p, api, s, t, form, fault_rate=0.1):
    if api == "MulsCast":
        c = random_muls_cast(rng, p, form, fault_rate)
    elif api == "SetDeqScale":
        c = random_set_deq_scale(rng, p, form)
    else:
        c = random_binary(rng, p, api, s, t, form, fault_rate)
    if rng.random() < 0.5:  # a register left by an earlier SetDeqScale
        c = dataclasses.replace(
            c, deqscale_init=tuple(int(x) for x in rng.integers(0, 2**32, 2, dtype=np.uint64))
        )
    return c


def _half_values(b):
    """Half bit patterns as Python floats (a NaN as ``float("nan")``), a list."""
    v = np.asarray(b, np.uint64).astype(np.uint16).view(np.float16).astype(np.float64)
    return [float("nan") if x != x else x for x in v.tolist()]


def _random_scales_many(slots):
    """``random_scale`` for every case (four draws): half bit patterns (uint64)."""
    r = slots.random()
    listed = np.asarray(HALF_SCALES, np.uint64)[slots.below(len(HALF_SCALES))]
    small = (D.ints(slots, -64, 64) / 16).astype(np.float16).view(np.uint16).astype(np.uint64)
    raw = slots.below(1 << 16).astype(np.uint64)
    return np.where(r < 0.5, listed, np.where(r < 0.75, small, raw))


def _f32_patterns_many(slots):
    """``patterns(float32, 1, rng)[0]`` for every case (four draws; uint64)."""
    raw = slots.word() & np.uint64(0xFFFFFFFF)
    pick = slots.random()
    pool = np.asarray(specials(_dt.float32), np.uint64)
    sp = pool[slots.below(len(pool))]
    small = (D.ints(slots, -4096, 4096) / 8.0).astype(np.float32).view(np.uint32).astype(np.uint64)
    return np.where(pick > 0.6, small, np.where(pick < 0.25, sp, raw))


def _addr_many(slots, isz, fault_rate):
    """``_addr`` for every case (five draws)."""
    a = slots.below(UB_BYTES // 32) * 32
    mis = (slots.random() < 0.4 * fault_rate) & (isz < 32)
    a = np.where(mis, a + isz * D.ints(slots, 1, np.maximum(2, 32 // isz)), a)
    return np.where(slots.random() < 0.3 * fault_rate, UB_BYTES + 32 * slots.below(8), a)


def random_cases_many(slots, p, units, fault_rate=0.1):
    """``random_case`` for many cases at once, one a unit ``(api, dst, src, form)`` of ``units``,
    drawn from ``slots`` (``rng.Slots``) in a fixed layout: the draws of the three generators
    (``random_binary``, ``random_muls_cast``, ``random_set_deq_scale``) made for every case (a draw
    of one generator's field may serve another's: a case keeps one generator's), then the DEQSCALE
    left on entry. The same distribution as ``random_case``."""
    n = len(units)
    uniq, ui = D.unit_index(units)
    kind = D.per_unit(uniq, ui, lambda u: {"MulsCast": 1, "SetDeqScale": 2}.get(u[0], 0))
    binary, muls, sds = kind == 0, kind == 1, kind == 2

    def geometry(u):
        S, T = _dt.as_dtype(u[2]), _dt.as_dtype(u[1])
        wide = S if S.itemsize > T.itemsize else T
        return p.lanes(_dt.float32 if u[0] == "MulsCast" else wide), S.itemsize, T.itemsize, wide.itemsize

    geo = np.asarray([geometry(u) for u in uniq], np.int64)[ui]
    L, s_isz, t_isz, w_isz = geo[:, 0], geo[:, 1], geo[:, 2], geo[:, 3]
    form_names = [u[3] for u in units]
    fcode = D.per_unit(uniq, ui, lambda u: FORMS.index(u[3]) if u[3] in FORMS else -1)
    count_form = fcode == 0
    # -- random_binary
    counter = ~count_form & (p.counter_mode != "unsupported") & (slots.random() < 0.25)
    cnt = D.ints(slots, 0, RB * L + 1)
    nbits = np.minimum(L, p.vector_mask_bits)
    rnd_lanes = slots.random() < 0.6
    lanes = np.where(rnd_lanes[:, None], D.random_words(slots), np.uint32(0xFFFFFFFF)) & D.prefix_words(nbits)
    vm = np.where(counter[:, None], D.u64_to_words(cnt), lanes)
    blk = [np.where(slots.random() < 0.3, D.choose(slots, [0, 1, 1, 2, 3]), 1) for _ in range(3)]
    blk[0] = np.where((blk[0] == 0) & (slots.random() > fault_rate), 1, blk[0])
    rep = [
        np.where(slots.random() < 0.5, D.ints(slots, 0, 17), 8 * d // w_isz) for d in (t_isz, s_isz, s_isz)
    ]
    strides = np.stack(blk + rep, 1)
    defaults = np.stack([np.ones(n, np.int64)] * 3 + [8 * d // w_isz for d in (t_isz, s_isz, s_isz)], 1)
    strides = np.where(count_form[:, None], defaults, strides)
    dst = _addr_many(slots, t_isz, fault_rate)
    src0 = np.where(slots.random() < 0.92, _addr_many(slots, s_isz, fault_rate), dst)
    src1 = np.where(slots.random() < 0.92, _addr_many(slots, s_isz, fault_rate), dst)
    low = 1 if p.zero_mask == "error" else 0
    cont = D.ints(slots, low, np.where(counter, RB * L, L) + 1)
    n64 = np.maximum(1, nbits // 64)
    nw = max(1, p.vector_mask_bits // 64)
    words = np.stack([slots.word() for _ in range(nw)], 1)
    words[:, 0] = np.where(
        nbits < 64, words[:, 0] & ((np.uint64(1) << nbits.astype(np.uint64)) - np.uint64(1)), words[:, 0]
    )
    words[:, 0] |= np.uint64(low)
    words[:, 0] = np.where(counter, D.ints(slots, low, RB * L + 1).astype(np.uint64), words[:, 0])
    words[:, 1:] = np.where(counter[:, None], np.uint64(0), words[:, 1:])
    count = D.ints(slots, 0, RB * L + 1)
    repeat = D.ints(slots, 0, RB + 1)
    ctrl = D.random_ctrl_many(slots, p)
    ub_seed = slots.below(2**31)
    scale_bits = _random_scales_many(slots)
    # -- random_muls_cast (its count, ctrl and ub_seed: the draws above)
    m_dst = slots.below(UB_BYTES // 32) * 32
    m_dst = np.where(slots.random() < 0.5 * fault_rate, m_dst + 2 * D.ints(slots, 1, 16), m_dst)
    m_src = slots.below(UB_BYTES // 32) * 32
    f32 = _f32_patterns_many(slots)
    with np.errstate(invalid="ignore"):
        scalar = f32.astype(np.uint32).view(np.float32).astype(np.float64)
    bad = ~np.isfinite(scalar) | (np.abs(np.nan_to_num(scalar)) > 1e30)
    scalar = np.where(bad, D.ints(slots, -8, 8) / 4, scalar)
    r = slots.random()
    elem = np.where(r > fault_rate, D.ints(slots, 0, UB_BYTES - 3), UB_BYTES - D.ints(slots, 0, 4))
    elem = np.where(slots.random() < 0.1, m_dst + D.ints(slots, 0, 64), elem)
    # -- random_set_deq_scale (its scale: the pattern above, or the half scale)
    big = slots.random() < 0.5
    offset = np.where(big, D.ints(slots, -(1 << 15), 1 << 15), D.ints(slots, -256, 256))
    sign = slots.random() < 0.5
    # -- a DEQSCALE left by an earlier SetDeqScale
    left = slots.random() < 0.5
    deq = np.where(left[:, None], D.random_words(slots, 2), np.uint32(0))

    f_mask = [
        c if f == 1 else (tuple(w[:k]) if f == 2 else 0)
        for f, c, w, k in zip(fcode.tolist(), cont.tolist(), D.tuples(words), n64.tolist(), strict=True)
    ]
    kl, half_scale = kind.tolist(), _half_values(scale_bits)
    with np.errstate(invalid="ignore"):
        f32_vals = f32.astype(np.uint32).view(np.float32).astype(np.float64).tolist()
    scales = [
        (h if u[0] == "AddDeqRelu" else 1.0) if k == 0 else (1.0 if k == 1 else (h if u[3] == "half" else v))
        for k, u, h, v in zip(kl, units, half_scale, f32_vals, strict=True)
    ]
    scales = [float("nan") if x != x else x for x in scales]
    elem_forms = np.asarray([f.startswith("elem") for f in form_names]) & muls
    config = [
        {"elem": -1, "elem0": 0, "elem1": 1}.get(f, -1) if k == 1 else -1
        for f, k in zip(form_names, kl, strict=True)
    ]
    default_vm = CastCompCase.__dataclass_fields__["vmask"].default

    def pick(b_val, m_val, q_val):
        return np.where(binary, b_val, np.where(muls, m_val, q_val))

    is_float = np.asarray([u[3] == "float" for u in units]) & sds
    return D.build(
        CastCompCase,
        n,
        dict(
            api=[u[0] for u in units],
            dtype=[u[1] for u in units],
            src=[u[2] for u in units],
            form=form_names,
            dst=pick(dst, m_dst, 0).tolist(),
            src0=pick(src0, m_src, 0).tolist(),
            src1=np.where(binary, src1, 0).tolist(),
            count=pick(np.where(count_form, count, 0), count, 0).tolist(),
            mask=[m if k == 0 else 0 for m, k in zip(f_mask, kl, strict=True)],
            repeat=np.where(binary & ~count_form, repeat, 1).tolist(),
            strides=[s if k == 0 else (1, 1, 1, 8, 8, 8) for s, k in zip(D.tuples(strides), kl, strict=True)],
            vmask=[v if k == 0 else default_vm for v, k in zip(D.tuples(vm), kl, strict=True)],
            mask_mode=(binary & counter).astype(np.int64).tolist(),
            ctrl=[c if k != 2 else (0, 0) for c, k in zip(D.tuples(ctrl), kl, strict=True)],
            ub_seed=np.where(sds, 0, ub_seed).tolist(),
            ub_bytes=np.where(sds, 256, UB_BYTES).tolist(),
            scale=scales,
            offset=np.where(is_float, offset, 0).tolist(),
            sign=(is_float & sign).tolist(),
            scalar=np.where(muls, scalar, 0.0).tolist(),
            elem=np.where(elem_forms, elem, 0).tolist(),
            config=config,
            deqscale_init=D.tuples(deq),
        ),
    )


# -- calls -----------------------------------------------------------------------------------------


def call(mod, c, state, p, dyn=None):
    """``mod``'s API (ascend_jax or the oracle) on case ``c``: (state, returned value or None);
    ``dyn``: the case's traced values (a row of ``stack_dyn``) in place of its Python ones."""
    a = dyn if dyn is not None else dataclasses.asdict(c)
    if c.api == "SetDeqScale":
        args = (a["scale"],) if c.form == "half" else (a["scale"], a["offset"], a["sign"])
        return mod.SetDeqScale(state, *args, profile=p), None
    S, T = _dt.as_dtype(c.src), _dt.as_dtype(c.dtype)
    fn = getattr(mod, c.api)
    extra = bucket_kw(fn, RB)
    if c.api == "MulsCast":
        dst, src = LocalTensor(T, a["dst"], 256), LocalTensor(S, a["src0"], 256)
        kw = {}
        if c.form.startswith("elem"):
            el = LocalTensor(S, a["elem"], 1)
            ops = (el, src) if c.form == "elem0" else (src, el)
            if c.config >= 0:
                import ascend_jax as aj

                kw["config"] = aj.BinaryConfig(c.config)
        else:
            ops = (a["scalar"], src) if c.form == "num0" else (src, a["scalar"])
        return fn(state, dst, *ops, a["count"], profile=p, **kw, **extra), None
    if c.api == "AddDeqRelu":  # the DEQSCALE pre-step: SetDeqScale(half scale)
        state = mod.SetDeqScale(state, a["scale"], profile=p)
    dst = LocalTensor(T, a["dst"], 64)
    s0, s1 = LocalTensor(S, a["src0"], 64), LocalTensor(S, a["src1"], 64)
    if dyn is not None and "form" in dyn:  # every call form in one program
        s = a["strides"]
        params = BinaryRepeatParams(*(s[i] for i in range(6)))
        f = AnyForm(dyn["form"], dyn["count"], dyn["mask"], dyn["words"], dyn["repeat"], params)
        return fn(state, dst, s0, s1, f, profile=p, **extra), None
    if c.form == "count":
        return fn(state, dst, s0, s1, a["count"], profile=p, **extra), None
    s = a["strides"]
    params = BinaryRepeatParams(*(s[i] for i in range(6)))
    mask = MASK_PLACEHOLDER if c.form == "register" else (list(c.mask) if c.form == "bitwise" else c.mask)
    st = fn(state, dst, s0, s1, mask, c.repeat, params, profile=p, isSetMask=c.form != "register", **extra)
    return st, None


def reps_needed(c, p):
    L = p.lanes(wide_of(c))
    if c.form == "count" or c.api == "MulsCast":
        return math.ceil(c.count / L)
    r = c.repeat
    if c.mask_mode == 1:
        r = max(r, math.ceil((c.vmask[0] | (c.vmask[1] << 32)) / L))
    return r


class CastCompFamily(Family):
    name = "castcomp"
    apis = APIS
    case_type = CastCompCase
    run_batch = 128

    def api_units(self, p, api):
        if api == "SetDeqScale":
            return [(api, "half", "half", "half"), (api, "float32", "float32", "float")]
        if api == "MulsCast":
            return [(api, "half", "float32", f) for f in MULS_FORMS]
        out = []
        for (s, t), count_only in pairs(p, api).items():
            out += [(api, t, s, f) for f in (("count",) if count_only else FORMS)]
        return out

    def unit_dtype(self, unit):
        return unit[1]  # T, dst's type (``--dtypes`` keeps the conversions to these types)

    def generate(self, rng, p, unit, fault_rate):
        api, t, s, form = unit
        return random_case(rng, p, api, s, t, form, fault_rate)

    draw_many = staticmethod(random_cases_many)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        if case.api == "SetDeqScale":
            # SPEC: "offset量化参数，int16_t类型" -- outside int16 is a misuse
            big = int(rng.choice([1 << 15, 1 << 16, -(1 << 15) - 1]))
            return rep(case, form="float", dtype="float32", offset=big), "offset"
        if case.api == "MulsCast":
            opts = [(rep(case, count=-1), "count")]
            if case.form.startswith("elem"):
                opts.append((rep(case, form="elem1", config=2), "config.scalarTensorIndex"))
            return opts[int(rng.integers(len(opts)))]
        if case.form == "count":
            return rep(case, count=-1), "count"
        s = list(case.strides)
        k = int(rng.integers(0, 3))
        opts = [
            (rep(case, repeat=p.max_repeat_times + 1), "repeatTime"),
            (rep(case, strides=(256,) + tuple(s[1:])), "repeatParams.dstBlkStride"),
            (rep(case, strides=tuple(s[:3]) + (256,) + tuple(s[4:])), "repeatParams.dstRepStride"),
        ]
        return opts[k]

    def invalid_data(self, rng, p, case):
        if case.api == "SetDeqScale":
            return None
        if case.api == "MulsCast" and case.form.startswith("elem") and rng.random() < 0.3:
            return dataclasses.replace(case, elem=UB_BYTES - 2), "element outside UB"
        # MulsCast has no repeat parameters (its strides field is unused): no stride-0 fault there
        return data_mutations(rng, p, case, dst="dst", src="src0", dst_blk_stride=case.api != "MulsCast")

    def signature(self, case, p):
        if case.api == "SetDeqScale":
            return ("castcomp", case.api, case.form)
        # every form of a pair in one program (an AnyForm), except MulsCast's forms and a pair the
        # page gives the count prototype only
        own = case.api == "MulsCast" or pairs(p, case.api)[(case.src, case.dtype)]
        return ("castcomp", case.api, case.src, case.dtype, case.form if own else "any", RB)

    def initial_ub(self, case):
        return make_ub(case)

    def stack_dyn(self, cases, p):
        c0 = cases[0]
        if c0.api == "SetDeqScale":
            ft = np.float16 if c0.form == "half" else np.float32
            out = {"scale": np.asarray([c.scale for c in cases], ft)}
            if c0.form == "float":
                out.update(int32_columns(cases, "offset"))
                out["sign"] = np.asarray([c.sign for c in cases], bool)
            return out
        out = int32_columns(cases, "dst", "src0", "src1", "count")
        if c0.api == "MulsCast":
            out.update(int32_columns(cases, "elem"))
            out["scalar"] = np.asarray([c.scalar for c in cases], np.float32)
            return out
        if c0.api == "AddDeqRelu":
            out["scale"] = np.asarray([c.scale for c in cases], np.float16)
        if self.signature(c0, p)[4] != "any":
            return out
        nw = p.vector_mask_bits // 32
        out["form"] = form_codes(cases)
        out.update(int32_columns(cases, "repeat"))
        out["strides"] = np.asarray([c.strides for c in cases], np.int32)
        out.update(mask_columns(cases, nw))
        return out

    def call(self, mod, case, state, p, dyn=None):
        return call(mod, case, state, p, dyn)

    def labels(self, case, p):
        if case.api == "SetDeqScale":
            return ("none", "n/a", case.form)
        L = p.lanes(wide_of(case))
        if case.api == "MulsCast":
            return ("count", repeat_regime(reps_needed(case, p), p), case.form)
        s = case.strides
        return (
            mask_label(case.form, case.mask_mode, case.mask, L),
            repeat_regime(reps_needed(case, p), p),
            "default" if case.form == "count" else stride_regime(s[:3], s[3:], 8),
        )

    def shrink(self, case, p):
        rep = dataclasses.replace
        out = []
        if case.api == "SetDeqScale":
            if case.offset:
                out.append(rep(case, offset=0))
            if case.sign:
                out.append(rep(case, sign=False))
            return out
        if case.count > 1:
            out += [rep(case, count=1), rep(case, count=case.count // 2)]
        if case.form in FORMS and case.repeat > 1:
            out += [rep(case, repeat=1), rep(case, repeat=case.repeat - 1)]
        if case.form in FORMS and case.mask_mode == 0 and case.form == "continuous" and case.mask > 1:
            out.append(rep(case, mask=case.mask // 2))
        if case.form in FORMS:
            S, T = _dt.as_dtype(case.src), _dt.as_dtype(case.dtype)
            W = wide_of(case).itemsize
            natural = (1, 1, 1) + tuple(8 * d.itemsize // W for d in (T, S, S))
            if tuple(case.strides) != natural:
                out.append(rep(case, strides=natural))
        if case.mask_mode:
            out.append(rep(case, mask_mode=0))
        return out


__all__ = ["CastCompCase", "CastCompFamily", "random_case", "make_ub", "call", "pairs"]
