"""Random cases for the compare/select family, run through the fast path (vmapped batches, every
address / mask / count / repeat / stride / scalar traced, one compilation per engine signature) and
through the NumPy reference, compared on the whole UB, vmask, cmpmask, mask_mode and fault bits.

A ``CmpSelCase`` is fully concrete (Python ints), so it can be replayed and printed
(``call_repr``). ``random_cases`` draws every structural parameter; the adapter's ``run_fast``
(``Family``) groups cases by static signature and pads each batch to ``batch`` cases, so a
(signature, repeat bucket) compiles once; ``run_all`` overlaps the fast path (worker threads: XLA
compiles release the GIL) with the reference (main thread).

The family of Compare, Compares, CompareScalar, CompareCmpMask, SetCmpMask, GetCmpMask,
Select, SelectFlexible: case type, generator, calls and the engine's adapter (at the end).

Traced in one program (the signature holds the rest): cmpMode and the call form of the compare
APIs; for Select, selMode, the call form (count, continuous, bitwise and the mask-less prototypes:
``aj.select_traced_mode``), the selMask type and the element types of one lane width (run as the
width's first type, ``lane_dtype``): one Select program per (lane width, count-only or not, repeat
bucket); SelectFlexible (mode 1 only) likewise per (lane width, operand variant, bucket).
"""

import dataclasses
import math

import numpy as np

from ... import dtypes as _dt
from ...params import AnyForm, BinaryRepeatParams, UnaryRepeatParams
from ...profile import api_default, as_profile
from ...tensor import MASK_PLACEHOLDER, LocalTensor
from ..regs import draw as draw_registers
from ..regs import lane_bits
from . import draw as D
from .base import (
    REG_FIELDS,
    UB_FIELDS,
    Operand,
    case_dataclass,
    data_mutations,
    form_codes,
    int32_columns,
    make_ub,
    make_ubs,
    mask_columns,
    mask_words32,
    reps_needed,
    specials,
    strided_operand,
    unlisted_dtype,
)
from .family import BIG_R, SMALL_R, TwoBucketFamily

CMP_APIS = ("Compare", "Compares", "CompareScalar", "ComparesFlexible")
FLEX_APIS = ("SelectFlexible", "ComparesFlexible")  # the scalar in either position, or a UB element
ALL_APIS = CMP_APIS + ("CompareCmpMask", "SetCmpMask", "GetCmpMask", "Select", "SelectFlexible")
CMP_CODE = {"LT": 0, "GT": 1, "EQ": 2, "LE": 3, "GE": 4, "NE": 5}


@case_dataclass
class CmpSelCase:
    api: str
    dtype: str
    mode: int = 0  # CMPMODE (compare family) or SELMODE (select); 0 for Set/GetCmpMask
    form: str = "count"  # count | continuous | bitwise | register (isSetMask=False) | nomask
    variant: int = 0  # FLEX_APIS: 0 scalar src1, 1 scalar src0, 2 element src1, 3 element src0
    dst: int = 0
    src0: int = 0
    src1: int = 0
    sel: int = 0
    scalar_bits: int = 0  # the scalar as T's bit pattern
    count: int = 0
    mask: object = 0  # int (continuous) or tuple of uint64 words
    repeat: int = 1
    strides: tuple = (1, 1, 1, 8, 8, 8)  # BinaryRepeatParams; Compares uses (s0, s1, s3, s4)
    dst_dtype: str = "uint8"
    sel_dtype: str = "uint8"
    registers: REG_FIELDS
    ub_seed: int = 0
    ub: UB_FIELDS
    big: bool = False  # needs the large repeat bucket

    def key(self):
        """Static part for the fast runner (everything else is traced)."""
        return (
            self.api,
            self.dtype,
            None if self.api in CMP_APIS + ("CompareCmpMask",) else self.mode,  # cmpMode is traced
            self.form,
            self.variant,
            self.dst_dtype,
            self.sel_dtype,
            self.big,
        )

    def scalar_value(self):
        d = _dt.as_dtype(self.dtype)
        if d.kind == "complex":
            part = np.float16 if d.name == "complex32" else np.float32
            w = d.bits // 2
            re, im = (
                np.array([self.scalar_bits & ((1 << w) - 1), self.scalar_bits >> w], np.uint64)
                .astype(f"u{w // 8}")
                .view(part)
            )
            return complex(float(re), float(im))
        v = np.array(self.scalar_bits, dtype=np.uint64).astype(d.bits_dtype).view(d.np_dtype)
        return float(v) if d.is_float else int(v)

    def call_repr(self):
        m = "MASK_PLACEHOLDER" if self.form in ("register",) else self.mask
        if isinstance(m, tuple):
            m = [hex(w) for w in m]
        tail = (
            f"count={self.count}"
            if self.form == "count"
            else f"mask={m}, repeat={self.repeat}, {self.strides}"
        )
        return (
            f"{self.api}<{self.dtype}> mode={self.mode} form={self.form} var={self.variant} dst@{self.dst} "
            f"src0@{self.src0} src1@{self.src1} sel@{self.sel} scalar={self.scalar_value()!r} {tail} "
            f"[mask_mode={self.mask_mode} vmask={[hex(w) for w in self.vmask]} cmpmask={[hex(w) for w in self.cmpmask]}"
            f" ub_seed={self.ub_seed} data={self.data}]"
        )


# ---------------------------------------------------------------------------------------------
# Generation


def groups(profile):
    """[(api, dtype, mode)] the profile supports (the unit the case counts are per)."""
    p = as_profile(profile)
    out = []
    for api in ALL_APIS:
        a = p.api(api)
        if not a.supported:
            continue
        for dt in a.all_dtypes():
            if api in CMP_APIS + ("CompareCmpMask",):
                modes = a.modes
                if dt == "int32" and a.int32_modes is not None:
                    modes = [m for m in modes if m in a.int32_modes]
                if dt == "float64" and a.float64_modes is not None:
                    modes = [m for m in modes if m in a.float64_modes]
                for m in modes:
                    out.append((api, dt, CMP_CODE[m]))
            elif api in ("Select", "SelectFlexible"):
                for m in a.modes:
                    out.append((api, dt, int(m)))
            else:
                out.append((api, dt, 0))
    return out


def forms_for(p, api, dt, mode):
    a = p.api(api)
    count_only = dt in a.count_only_dtypes
    if api in ("SetCmpMask", "GetCmpMask"):
        return ["-"]
    if count_only:
        return ["count"]
    if api == "CompareCmpMask":
        return ["continuous", "bitwise", "register"]
    if api in CMP_APIS:
        f = ["count", "continuous", "bitwise"]
        if api != "Compare":
            f.append("register")
        return f
    f = ["count", "continuous", "bitwise"]
    if api == "Select" and p.cmpmask_bits > 0 and not (mode == 0 and p.lanes(dt) > p.cmpmask_bits):
        f.append("nomask")
    return f


def _specials_ok(dt):
    """Special bit patterns; NaN scalars only canonical (a payload NaN as a C++ scalar argument is
    outside the model's scalar conversion rule)."""
    return specials(dt)


def random_case(rng, p, api, dt, mode, form, big=False, variant=0, ub_bytes=8192, fault_rate=0.08, pick=0):
    """One case; ``pick`` chooses the dst / selMask element types (static, so one per group)."""
    d = _dt.as_dtype(dt)
    a = p.api(api)
    L = p.lanes(d)
    W = L // 8
    nblocks = ub_bytes // 32
    honoured = (
        a.mask_honoured if hasattr(a, "mask_honoured") else True
    )  # Select, Set/GetCmpMask: no reserved mask
    data = ["raw", "specials", "small"][int(rng.integers(3))]
    nw = p.vector_mask_bits // 64

    # registers (the engine's one register randomisation)
    regs = draw_registers(rng, p, L, counter_ok=form not in ("count", "-"))
    mask_mode = regs.mask_mode
    vm = sum(w << (32 * i) for i, w in enumerate(regs.vmask))
    cm_words = regs.cmpmask
    # repeats / counts
    if big:
        repeat = int(rng.choice([255, 255, 200, 128, 64, 17]))
    else:
        repeat = (
            int(rng.choice([0, 1, 1, 1, 2, 2, 3, 4, 8, 16]))
            if rng.random() < 0.9
            else int(rng.integers(0, 17))
        )
    max_reps = BIG_R if big else SMALL_R
    count = 0
    if form == "count":
        align = a.count_alignment_bytes if api in CMP_APIS else 0
        unit = max(1, align // d.itemsize) if align else 1
        hi = min(max_reps * L, (ub_bytes // 2) // d.itemsize)
        if big:
            count = int(rng.integers(L * 8, hi + 1))
        else:
            count = int(rng.choice([0, 1, L - 1, L, L + 1, 2 * L, int(rng.integers(0, 4 * L + 1))]))
        count = min(count, hi) // unit * unit
    count_reg = None
    if mask_mode == 1:
        hi = max_reps * L if big else 4 * L
        count_reg = (
            int(rng.choice([0, 1, L - 1, L, L + 3, int(rng.integers(0, hi + 1))]))
            if not big
            else int(rng.integers(L * 8, max_reps * L + 1))
        )
        if api == "CompareCmpMask":
            count_reg = min(count_reg, 4 * L)
        if p.zero_mask == "error" and count_reg == 0:
            count_reg = 1
        vm = count_reg
    # strides
    if rng.random() < 0.5:
        strides = (1, 1, 1, 8, 8, 8)
    else:
        stride_pool = [0, 1, 1, 2, 3, 8, 8, 9, 16]
        strides = tuple(int(rng.choice(stride_pool)) for _ in range(6))
        if strides[0] == 0 and rng.random() > fault_rate:
            strides = (1,) + strides[1:]
    if big:
        strides = strides[:3] + tuple(int(rng.choice([0, 1])) for _ in range(3))
    # mask argument
    mask = 0
    if form == "continuous":
        choices = [0, 1, L // 2, L - 1, L, L + 5, 2**64 - 1, int(rng.integers(0, L + 1))]
        mask = choices[int(rng.integers(len(choices)))]
        if mask_mode == 1:
            mask = count_reg
        if honoured and p.zero_mask == "error" and mask == 0:
            mask = 1
    elif form == "bitwise":
        v = lane_bits(rng, L, p.vector_mask_bits)
        if mask_mode == 1:
            v = count_reg
        if honoured and p.zero_mask == "error" and v == 0:
            v = 1
        n = nw if honoured else int(rng.integers(1, nw + 1))
        if not honoured and rng.random() < 0.3:
            v = int(rng.integers(0, 2**63))  # a reserved parameter: any value
            n = max(n, 1)
        mask = tuple((v >> (64 * i)) & (2**64 - 1) for i in range(n))
        if n * 64 < v.bit_length():
            mask = (v & (2**64 - 1),) + tuple(0 for _ in range(n - 1))
    if mask_mode == 1 and form in ("register", "nomask") and count_reg is not None:
        vm = count_reg
    vmask = tuple(int((vm >> (32 * i)) & 0xFFFFFFFF) for i in range(8))

    # addresses: most in bounds, some misaligned, some past the arena, some overlapping
    def fp(blk, rep):
        reps = max(1, repeat if form != "count" else math.ceil(max(count, 1) / L))
        if mask_mode == 1 and count_reg:
            reps = max(reps, math.ceil(count_reg / L))
        return (reps - 1) * rep + 7 * blk + 1

    def addr(fpb, align=32):
        hi = max(0, nblocks - min(fpb, nblocks))
        x = int(rng.integers(0, hi + 1)) * 32
        u = rng.random()
        if u < fault_rate / 2:
            return x + int(rng.choice([2, 4, 8, 16]))
        if u < fault_rate:
            return int(rng.integers(nblocks - 2, nblocks + 3)) * 32
        return x

    dst = addr(fp(strides[0], strides[3]))
    src0 = addr(fp(strides[1], strides[4]))
    src1 = addr(fp(strides[2], strides[5]))
    if api == "ComparesFlexible" and variant in (1, 3):  # the one strided tensor is src1, on src0's strides
        src1 = addr(fp(strides[1], strides[4]))
    sel = addr(max(1, repeat) * W // 32 + 1)
    u = rng.random()
    if u < 0.08:
        src0 = dst
    elif u < 0.12:
        sel = dst
    elif u < 0.16:
        src1 = src0
    if api in CMP_APIS and rng.random() < 0.1:
        dst = src0 + int(rng.choice([0, 32, 256]))  # the bit output over the source
    if api in ("SetCmpMask", "GetCmpMask"):
        dst = src0 = int(rng.integers(0, nblocks * 2 + 2)) * 16 + (8 if rng.random() < 0.05 else 0)
    if api in FLEX_APIS and variant >= 2 and rng.random() < 0.5:
        # element scalar anywhere (no alignment rule), sometimes inside dst
        e = int(rng.integers(0, ub_bytes // d.itemsize)) * d.itemsize
        if variant == 2:
            src1 = e
        else:
            src0 = e
    # the scalar: a special, a UB-like small value, or random bits (equal values come from "small")
    sp = _specials_ok(dt)
    u = rng.random()
    if u < 0.35:
        sb = int(sp[int(rng.integers(len(sp)))])
    elif u < 0.7:
        v = int(rng.integers(-8, 8))
        if d.is_float:
            sb = int(np.array(float(v) / 4, dtype=d.np_dtype).view(d.bits_dtype))
        else:
            sb = v & ((1 << d.bits) - 1)
    else:
        sb = int(rng.integers(0, 2**d.bits, dtype=np.uint64))
    if d.kind == "complex":  # NaN parts canonical (a C++ Complex argument's parts are converted)
        w = d.bits // 2
        nan = 0x7E00 if w == 16 else 0x7FC00000
        parts = [(sb >> (w * i)) & ((1 << w) - 1) for i in (0, 1)]
        exp = 0x7C00 if w == 16 else 0x7F800000
        parts = [nan if (x & ~(1 << (w - 1))) > exp else x for x in parts]
        sb = parts[0] | (parts[1] << w)
    if d.is_float:
        fmt_nan = (sb >> (_frac_bits(d))) & ((1 << (d.bits - 1 - _frac_bits(d))) - 1)
        if fmt_nan == (1 << (d.bits - 1 - _frac_bits(d))) - 1 and sb & ((1 << _frac_bits(d)) - 1):
            sb = {16: 0x7E00 if d.name == "half" else 0x7FC0, 32: 0x7FC00000, 64: 0x7FF8000000000000}[
                d.bits
            ]  # canonical NaN
    # a Select case has no dst dtype and a Compare case no selMask dtype: that field keeps the schema default
    dst_dtypes = a.dst_dtypes if hasattr(a, "dst_dtypes") else api_default("Compare", "dst_dtypes")
    sel_dtypes = (
        a.sel_mask_dtypes if hasattr(a, "sel_mask_dtypes") else api_default("Select", "sel_mask_dtypes")
    )
    ctrl = regs.ctrl
    return CmpSelCase(
        api=api,
        dtype=d.name,
        mode=mode,
        form=form,
        variant=variant,
        dst=dst,
        src0=src0,
        src1=src1,
        sel=sel,
        scalar_bits=sb,
        count=count,
        mask=mask,
        repeat=repeat,
        strides=strides,
        dst_dtype=str(dst_dtypes[pick % len(dst_dtypes)]),
        sel_dtype=str(sel_dtypes[pick % len(sel_dtypes)]),
        vmask=vmask,
        mask_mode=mask_mode,
        cmpmask=cm_words,
        ctrl=ctrl,
        ub_seed=int(rng.integers(0, 2**31)),
        ub_bytes=ub_bytes,
        data=data,
        big=big,
    )


_FORM_CODES = ("count", "continuous", "bitwise", "register", "nomask", "-")
_DATA = ("raw", "specials", "small")
_CANONICAL_NAN = {"half": 0x7E00, "bfloat16": 0x7FC0, "float32": 0x7FC00000, "float64": 0x7FF8000000000000}


def _unit_facts(p, u, ub_bytes):
    """The per-unit parameters ``random_case`` reads, as a dict of numbers (one row of columns)."""
    api, dt, mode, form, variant, pick, big_ok = u
    d = _dt.as_dtype(dt)
    a = p.api(api)
    align = a.count_alignment_bytes if api in CMP_APIS else 0
    fb = _frac_bits(d) if d.is_float else 0
    small = [0] * 16
    if d.is_float:  # the scalar's small values v / 4, v in [-8, 8), as T's bits
        small = [int(np.array(v / 4, dtype=d.np_dtype).view(d.bits_dtype)) for v in range(-8, 8)]
    return dict(
        L=p.lanes(d),
        size=d.itemsize,
        bits=d.bits,
        form=_FORM_CODES.index(form),
        honoured=a.mask_honoured if hasattr(a, "mask_honoured") else True,
        unit=max(1, align // d.itemsize) if align else 1,
        big_ok=big_ok,
        cmp=api in CMP_APIS,
        cmpmask_api=api == "CompareCmpMask",
        set_get=api in ("SetCmpMask", "GetCmpMask"),
        flex=api in FLEX_APIS,
        flex_src1=api == "ComparesFlexible" and variant in (1, 3),
        variant=variant,
        is_float=d.is_float,
        complex_w=d.bits // 2 if d.kind == "complex" else 0,
        frac=fb,
        nan=_CANONICAL_NAN.get(d.name, 0),
        small=small,
    )


def random_cases_many(slots, p, units, ub_bytes=8192, fault_rate=0.08):
    """``random_case`` (with the adapter's large-repeat-bucket draw) for many cases at once, one
    a unit ``(api, dtype, mode, form, variant, pick, big_ok)`` of ``units``, drawn from ``slots``
    in a fixed layout (``families.draw``): the same distribution of data styles, registers,
    repeats, counts, Counter-mode counts, strides, masks, addresses, overlaps and scalars."""
    n = len(units)
    uniq, ui = D.unit_index(units)
    facts = [_unit_facts(p, u, ub_bytes) for u in uniq]

    def col(k, dtype=np.int64):
        return np.asarray([f[k] for f in facts], dtype)[ui]

    L, size, bits, form = col("L"), col("size"), col("bits"), col("form")
    honoured, cmp_api = col("honoured", bool), col("cmp", bool)
    nblocks = ub_bytes // 32
    nw = p.vector_mask_bits // 64
    error0 = p.zero_mask == "error"
    is_count = form == 0

    big = col("big_ok", bool) & (slots.random() < 0.05)
    data = slots.below(3)
    regs = D.draw_many(slots, p, L, counter_ok=(form != 0) & (form != 5))
    counter = regs.mask_mode == 1
    # repeats / counts
    rep_big = D.choose(slots, [255, 255, 200, 128, 64, 17])
    rep_edge = slots.random() < 0.9
    rep_pick = D.choose(slots, [0, 1, 1, 1, 2, 2, 3, 4, 8, 16])
    repeat = np.where(big, rep_big, np.where(rep_edge, rep_pick, D.ints(slots, 0, 17)))
    max_reps = np.where(big, BIG_R, SMALL_R)
    hi = np.minimum(max_reps * L, (ub_bytes // 2) // size)
    c_big = D.ints(slots, L * 8, hi + 1)
    c_small = D.choose(slots, [0, 1, L - 1, L, L + 1, 2 * L, D.ints(slots, 0, 4 * L + 1)])
    unit = col("unit")
    count = np.where(is_count, np.minimum(np.where(big, c_big, c_small), hi) // unit * unit, 0)
    # the Counter-mode count (the register's value)
    r_small = D.choose(slots, [0, 1, L - 1, L, L + 3, D.ints(slots, 0, 4 * L + 1)])
    count_reg = np.where(big, D.ints(slots, L * 8, BIG_R * L + 1), r_small)
    count_reg = np.where(col("cmpmask_api", bool), np.minimum(count_reg, 4 * L), count_reg)
    if error0:
        count_reg = np.maximum(count_reg, 1)
    count_reg = np.where(counter, count_reg, 0)
    # strides
    default = slots.random() < 0.5
    picks = np.stack([D.choose(slots, [0, 1, 1, 2, 3, 8, 8, 9, 16]) for _ in range(6)], 1)
    keep0 = slots.random() <= fault_rate
    picks[:, 0] = np.where((picks[:, 0] == 0) & ~keep0, 1, picks[:, 0])
    strides = np.where(default[:, None], np.asarray(_DEFAULT, np.int64), picks)
    big_rep = np.stack([D.choose(slots, [0, 1]) for _ in range(3)], 1)
    strides[:, 3:] = np.where(big[:, None], big_rep, strides[:, 3:])
    # the mask argument: a continuous count (up to 2**64 - 1) or the bitwise words
    cont = D.choose(
        slots, [0, 1, L // 2, L - 1, L, L + 5, 2**64 - 1, D.ints(slots, 0, L + 1)], dtype=np.uint64
    )
    cont = np.where(counter, count_reg.astype(np.uint64), cont)
    if error0:
        cont = np.where(honoured & (cont == 0), np.uint64(1), cont)
    v = D.words_to_u64(D.lane_bits_many(slots, L, p.vector_mask_bits), nw)
    v[:, 0] = np.where(counter, count_reg.astype(np.uint64), v[:, 0])
    v[:, 1:] = np.where(counter[:, None], np.uint64(0), v[:, 1:])
    if error0:
        v[:, 0] = np.where(honoured & ~v.any(axis=1), np.uint64(1), v[:, 0])
    n_words = np.where(honoured, nw, D.ints(slots, 1, nw + 1))
    reserved = ~honoured & (slots.random() < 0.3)  # a reserved parameter: any value
    v = np.where(reserved[:, None], np.uint64(0), v)
    v[:, 0] = np.where(reserved, slots.below(2**63).astype(np.uint64), v[:, 0])
    beyond = (v * (np.arange(nw)[None, :] >= n_words[:, None])).any(axis=1)
    v[:, 1:] = np.where(beyond[:, None], np.uint64(0), v[:, 1:])  # only the low word kept
    vmask = np.where(counter[:, None], D.u64_to_words(count_reg), regs.vmask)

    # addresses: most in bounds, some misaligned, some past the arena, some overlapping
    reps = np.maximum(1, np.where(is_count, -(-np.maximum(count, 1) // L), repeat))
    reps = np.maximum(reps, -(-count_reg // L))  # count_reg is 0 outside Counter mode

    def fp(k):
        return (reps - 1) * strides[:, k + 3] + 7 * strides[:, k] + 1

    def addr(fpb):
        return D.addr_many(slots, nblocks, fpb, fault_rate)

    dst, src0, src1 = addr(fp(0)), addr(fp(1)), addr(fp(2))
    src1 = np.where(col("flex_src1", bool), addr(fp(1)), src1)  # the one tensor, on src0's strides
    sel = addr(np.maximum(1, repeat) * (L // 8) // 32 + 1)
    u = slots.random()
    src0 = np.where(u < 0.08, dst, src0)
    sel = np.where((u >= 0.08) & (u < 0.12), dst, sel)
    src1 = np.where((u >= 0.12) & (u < 0.16), src0, src1)
    over = cmp_api & (slots.random() < 0.1)  # the bit output over the source
    dst = np.where(over, src0 + D.choose(slots, [0, 32, 256]), dst)
    cm = D.ints(slots, 0, nblocks * 2 + 2) * 16 + np.where(slots.random() < 0.05, 8, 0)
    set_get = col("set_get", bool)
    dst, src0 = np.where(set_get, cm, dst), np.where(set_get, cm, src0)
    variant = col("variant")
    elem = col("flex", bool) & (variant >= 2) & (slots.random() < 0.5)
    e = D.ints(slots, 0, ub_bytes // size) * size  # element scalar anywhere, sometimes inside dst
    src1 = np.where(elem & (variant == 2), e, src1)
    src0 = np.where(elem & (variant == 3), e, src0)
    # the scalar: a special, a UB-like small value, or random bits
    dts = list(dict.fromkeys(u[1] for u in uniq))
    dk = D.per_unit(uniq, ui, lambda u: dts.index(u[1]))
    table, lengths = D.specials_table(dts)
    u = slots.random()
    sp = D.draw_special(slots, table, lengths, dk)
    small_v = D.ints(slots, -8, 8)
    rnd = D.low_bits(slots.word(), bits)
    is_float = col("is_float", bool)
    small_tbl = np.asarray([f["small"] for f in facts], np.uint64)
    small = np.where(is_float, small_tbl[ui, small_v + 8], D.low_bits(small_v.astype(np.uint64), bits))
    sb = np.where(u < 0.35, sp, np.where(u < 0.7, small, rnd))
    cw = col("complex_w")
    if cw.any():  # NaN parts canonical (a C++ Complex argument's parts are converted)
        w = cw.astype(np.uint64)
        half = cw == 16
        nan = np.where(half, np.uint64(0x7E00), np.uint64(0x7FC00000))
        exp = np.where(half, np.uint64(0x7C00), np.uint64(0x7F800000))
        pm = (np.uint64(1) << w) - np.uint64(1)
        sign = np.uint64(1) << (w - np.uint64(1))
        parts = [sb & pm, (sb >> w) & pm]
        parts = [np.where((x & ~sign) > exp, nan, x) for x in parts]
        sb = np.where(cw > 0, parts[0] | (parts[1] << w), sb)
    frac = col("frac").astype(np.uint64)
    ew = np.maximum(bits - 1 - col("frac"), 1).astype(np.uint64)  # exponent width (floats)
    exp_all = ((sb >> frac) & ((np.uint64(1) << ew) - np.uint64(1))) == (np.uint64(1) << ew) - np.uint64(1)
    frac_set = (sb & ((np.uint64(1) << frac) - np.uint64(1))) != 0
    sb = np.where(is_float & exp_all & frac_set, col("nan", np.uint64), sb)  # canonical NaN
    ub_seed = slots.below(2**31)

    ufl = [(u[0], _dt.as_dtype(u[1]).name, u[2], u[3], u[4]) for u in uniq]
    # a Select case has no dst dtype and a Compare case no selMask dtype: the schema default
    dd, sd = api_default("Compare", "dst_dtypes"), api_default("Select", "sel_mask_dtypes")
    dst_dt, sel_dt = [], []
    for api, _, _, _, _, pick, _ in uniq:
        a = p.api(api)
        ds = a.dst_dtypes if hasattr(a, "dst_dtypes") else dd
        ss = a.sel_mask_dtypes if hasattr(a, "sel_mask_dtypes") else sd
        dst_dt.append(str(ds[pick % len(ds)]))
        sel_dt.append(str(ss[pick % len(ss)]))
    uil = ui.tolist()
    fl = form.tolist()
    nl = n_words.tolist()
    masks = [
        m_cont if f == 1 else (m_words[:k] if f == 2 else 0)
        for f, m_cont, m_words, k in zip(fl, cont.tolist(), D.tuples(v), nl, strict=True)
    ]
    return D.build(
        CmpSelCase,
        n,
        dict(
            api=[ufl[j][0] for j in uil],
            dtype=[ufl[j][1] for j in uil],
            mode=[ufl[j][2] for j in uil],
            form=[ufl[j][3] for j in uil],
            variant=[ufl[j][4] for j in uil],
            dst=dst.tolist(),
            src0=src0.tolist(),
            src1=src1.tolist(),
            sel=sel.tolist(),
            scalar_bits=sb.tolist(),
            count=count.tolist(),
            mask=masks,
            repeat=repeat.tolist(),
            strides=D.tuples(strides),
            dst_dtype=[dst_dt[j] for j in uil],
            sel_dtype=[sel_dt[j] for j in uil],
            **D.mask_fields(vmask, regs.mask_mode, regs.ctrl),
            cmpmask=D.tuples(regs.cmpmask),
            ub_seed=ub_seed.tolist(),
            ub_bytes=ub_bytes,
            data=[_DATA[k] for k in data.tolist()],
            big=big.tolist(),
        ),
    )


def _frac_bits(d):
    return {"half": 10, "bfloat16": 7, "float32": 23, "float64": 52}[d.name]


def _width(dt):
    return _dt.as_dtype(dt).itemsize


def _pick(api, dt, k, mode, gs=None):
    """The dst / selMask element-type choice of a group: one per (API, dtype) for the compare APIs
    (cmpMode is traced: their six modes share one program), else per group."""
    if api in CMP_APIS + ("CompareCmpMask",):
        return sum(map(ord, api + dt))
    return k + mode if gs is None else k


def random_cases(
    profile,
    per_group,
    seed=0,
    all_forms=True,
    big_share=0.03,
    dtypes_per_api=None,
    apis=None,
    one_sel_mode=False,
):
    """``per_group`` cases for every (API, dtype, mode) of the profile (``apis``: of these APIs
    only). ``all_forms``: every call form
    in every group (many signatures); else one form per (API, dtype[, selMode]), rotating, so that
    every form still appears on the profile (few compilations). A ``big_share`` of the cases of the
    first dtype of each API use the large repeat bucket (repeat 255 and long counts)."""
    p = as_profile(profile)
    rng = np.random.default_rng(seed)
    out = []
    rot = 0
    first_dtype = {}
    chosen = {}
    todo = [g for g in groups(p) if apis is None or g[0] in apis]
    if dtypes_per_api is not None:
        # a rotating subset of each API's dtypes (by seed): fewer compilations per run, every dtype
        # still covered across profiles/seeds (and all of them in the nightly setting)
        keep = {}
        for api in dict.fromkeys(a for a, _, _ in todo):
            dts = list(dict.fromkeys(d for a, d, _ in todo if a == api))
            start = seed % len(dts)
            keep[api] = set((dts[start:] + dts[:start])[:dtypes_per_api])
        todo = [(a, d, m) for a, d, m in todo if d in keep[a]]
    if one_sel_mode:
        # Select / SelectFlexible: one selMode per lane width, rotating over the widths (every mode and
        # every dtype still run; each selMode is its own program, and the types of one width share
        # it: a selection moves bit patterns, so half, bfloat16, int16 and uint16 compile once)
        sel_ws = {}
        for a, _d, _ in todo:
            if a.startswith("Select"):
                sel_ws.setdefault(a, list(dict.fromkeys(_width(x) for b, x, _ in todo if b == a)))
        kept, seen = [], set()
        for a, d, m in todo:
            if a.startswith("Select"):
                ms = [x for b, e, x in todo if b == a and e == d]
                if m != ms[(sel_ws[a].index(_width(d)) + seed) % len(ms)]:
                    continue
                seen.add((a, m))
            kept.append((a, d, m))
        # a selMode no dtype drew (fewer dtypes than modes): on the first dtype that has it
        for a, d, m in todo:
            if a.startswith("Select") and (a, m) not in seen:
                seen.add((a, m))
                kept.append((a, d, m))
        todo = kept
    for api, dt, mode in todo:
        first_dtype.setdefault(api, dt)
        rot += 1
        forms = forms_for(p, api, dt, mode)
        # the selects: one form and variant per (API, lane width, selMode), shared by the width's types
        k = (api, _width(dt), mode) if api.startswith("Select") else (api, dt, None)
        if not all_forms:
            if k not in chosen or chosen[k][0] not in forms:
                v = rot % 4
                if api == "ComparesFlexible":  # its dtypes take the four variants in turn
                    v = list(dict.fromkeys(d for a, d, _ in todo if a == api)).index(dt) % 4
                chosen[k] = (forms[rot % len(forms)], v)
            forms = [chosen[k][0]]
        for i in range(per_group):
            form = forms[i % len(forms)]
            variant = 0
            if api in FLEX_APIS:
                variant = chosen[k][1] if not all_forms else i % 4
            big = (
                api in CMP_APIS + ("Select", "SelectFlexible")
                and dt == first_dtype[api]
                and form == forms[0]
                and form not in ("-",)
                and rng.random() < big_share
            )
            out.append(
                random_case(
                    rng, p, api, dt, mode, form, big=big, variant=variant, pick=_pick(api, dt, rot, mode)
                )
            )
    return out


# ---------------------------------------------------------------------------------------------
# Running


def initial_ub(c):
    return make_ub(c)


def _mask_arg(c, p, traced):
    if c.form == "continuous":
        return c.mask
    if c.form == "bitwise":
        return list(c.mask)
    return MASK_PLACEHOLDER


def lane_dtype(p, api, dt):
    """The element type a merged select program runs a ``dt`` case as: the profile's first type of
    ``dt``'s width among the API's dtypes (or its count-only dtypes, when ``dt`` is one). A
    selection moves bit patterns, so every type of one width gives the same bits (the engine keys
    its program by the width already, ``dtypes.lane_twin``)."""
    a = p.api(api)
    pool = a.dtypes if dt in a.dtypes else a.count_only_dtypes
    w = _width(dt)
    return next(x for x in pool if _width(x) == w)


def call(mod, c, st, p, dyn=None, R=None):
    """Call API ``c.api`` of ``mod`` (the reference, or ascend_jax with ``dyn`` traced values)."""
    T = dyn or {}
    d = _dt.as_dtype(c.dtype)
    sel_dtype = c.sel_dtype
    if dyn is not None and c.api.startswith("Select"):
        # one program per lane width: the width's first type, the first selMask type (the engine
        # reads selMask as bytes; its type is a static check only)
        d = _dt.as_dtype(lane_dtype(p, c.api, c.dtype))
        sel_dtype = p.api(c.api).sel_mask_dtypes[0]

    def g(name, default):
        return T[name] if name in T else default

    kw = {"profile": p}
    if R is not None and c.api not in ("CompareCmpMask", "SetCmpMask", "GetCmpMask"):
        kw["max_repeats"] = R
    dst_a, s0_a, s1_a, sel_a = g("dst", c.dst), g("src0", c.src0), g("src1", c.src1), g("sel", c.sel)
    scalar = g("scalar", c.scalar_value())
    if c.form == "count":
        tail = (g("count", c.count),)
    elif c.form in ("continuous", "bitwise"):
        tail = (g("mask", _mask_arg(c, p, False)), g("repeat", c.repeat))
    else:
        tail = (MASK_PLACEHOLDER, g("repeat", c.repeat))
    s = g("strides", c.strides)
    n = 4096
    if c.api == "SetCmpMask":
        return mod.SetCmpMask(st, LocalTensor(d, s0_a, 16), **kw)
    if c.api == "GetCmpMask":
        return mod.GetCmpMask(st, LocalTensor(d, dst_a, 128 // d.itemsize), **kw)
    src0 = LocalTensor(d, s0_a, n)
    src1 = LocalTensor(d, s1_a, n)
    if c.api in CMP_APIS:
        dst = LocalTensor(c.dst_dtype, dst_a, n)
        isset = c.form != "register"
        if c.api == "Compare":
            args = (dst, src0, src1, g("cmp", c.mode))
            params = BinaryRepeatParams(*s)
        else:
            a_op, b_op = src0, scalar
            if c.api == "ComparesFlexible" and c.variant == 1:
                a_op, b_op = scalar, src1
            elif c.api == "ComparesFlexible" and c.variant >= 2:
                a_op, b_op = src0, src1
                kw["config"] = _binary_config(mod, 1 if c.variant == 2 else 0)
            args = (dst, a_op, b_op, g("cmp", c.mode))
            params = UnaryRepeatParams(s[0], s[1], s[3], s[4])
        if "form" in T:  # the fast path: every call form in one program
            f = AnyForm(T["form"], T["count"], T["cmask"], T["words"], T["repeat"], params)
            return getattr(mod, c.api)(st, *args, f, **kw)
        if c.form != "count":
            tail = tail + (params,)
        return getattr(mod, c.api)(st, *args, *tail, isSetMask=isset, **kw)
    if c.api == "CompareCmpMask":
        return mod.CompareCmpMask(
            st,
            src0,
            src1,
            g("cmp", c.mode),
            tail[0],
            BinaryRepeatParams(*s),
            isSetMask=c.form != "register",
            **kw,
        )
    dst = LocalTensor(d, dst_a, n)
    sel = LocalTensor(sel_dtype, sel_a, 256)
    params = BinaryRepeatParams(*s)
    if "form" in T:  # the fast path: the count and mask forms in one program
        tail = (AnyForm(T["form"], T["count"], T["cmask"], T["words"], T["repeat"], params),)
    if c.api == "Select" and "mode" in T:
        # the fast path: every selMode (and, with the form traced, the mask-less prototypes) in
        # one program
        f = tail[0] if "form" in T else T["count"]
        return mod.select_traced_mode(st, dst, sel, src0, src1, scalar, T["mode"], f, **kw)
    if c.api == "Select":
        if c.form == "nomask":
            if c.mode == 1:
                return mod.Select(st, dst, sel, src0, tail[1], params, **kw)
            return mod.Select(st, dst, src0, src1, tail[1], params, selMode=c.mode, **kw)
        b = scalar if c.mode == 1 else src1
        extra = tail if c.form == "count" or "form" in T else tail + (params,)
        return mod.Select(st, dst, sel, src0, b, c.mode, *extra, **kw)
    # SelectFlexible
    extra = tail if c.form == "count" or "form" in T else tail + (params,)
    cfg = None
    a_op, b_op = src0, src1
    if c.mode == 1:
        if c.variant == 0:
            b_op = scalar
        elif c.variant == 1:
            a_op = scalar
        else:
            idx = 1 if c.variant == 2 else 0
            cfg = _binary_config(mod, idx)
    return mod.SelectFlexible(st, dst, sel, a_op, b_op, c.mode, *extra, config=cfg, **kw)


def _binary_config(mod, idx):
    if hasattr(mod, "BinaryConfig"):
        return mod.BinaryConfig(idx)

    class _Cfg:  # the reference reads the field by name
        scalarTensorIndex = idx

    return _Cfg()


def _any_form(c, p):
    """Whether the fast path takes the case's call form traced (``AnyForm``): the compare APIs with a
    UB result and the selects (Select's mask-less prototypes too: the form code PLACEHOLDER), for
    the types their high-dim forms take."""
    if c.api == "SelectFlexible" and c.form not in ("count", "continuous", "bitwise"):
        return False
    return c.api in CMP_APIS + ("Select", "SelectFlexible") and c.dtype in p.api(c.api).dtypes


def stack_dyn(cs, p):
    """The traced values of a batch of cases of one signature (everything but the static key)."""
    c0 = cs[0]
    # the selects: a signature holds every type of one lane width, run as lane_dtype's type
    d = _dt.as_dtype(lane_dtype(p, c0.api, c0.dtype) if c0.api.startswith("Select") else c0.dtype)
    nw32 = p.vector_mask_bits // 32
    dyn = int32_columns(cs, "dst", "src0", "src1", "sel", "repeat", "count")
    dyn["strides"] = tuple(np.array([c.strides[i] for c in cs], np.int32) for i in range(6))
    if c0.api in CMP_APIS + ("CompareCmpMask",):
        dyn["cmp"] = np.array([c.mode for c in cs], np.int32)
    if c0.api == "Select":  # selMode is traced
        dyn["mode"] = np.array([c.mode for c in cs], np.int32)
    if d.itemsize == 8:  # 64-bit T: (low, high) uint32 words
        dyn["scalar"] = np.array([[c.scalar_bits & 0xFFFFFFFF, c.scalar_bits >> 32] for c in cs], np.uint32)
    elif d.kind == "complex":  # complex32: the bit pattern
        dyn["scalar"] = np.array([c.scalar_bits for c in cs], np.uint32)
    else:
        dyn["scalar"] = np.array([c.scalar_bits for c in cs], np.uint64).astype(d.bits_dtype).view(d.np_dtype)
    if _any_form(c0, p):
        # every call form in one program: the form code and each form's fields
        dyn["form"] = form_codes(cs)
        masks = mask_columns(cs, nw32)
        dyn["cmask"], dyn["words"] = masks["mask"], masks["words"]
        return dyn
    if c0.form == "continuous":
        # traced as uint32: a Normal-mode continuous mask above 2**32-1 (only 2**64-1 is drawn, never
        # in Counter mode) acts exactly as 2**32-1 (>= L lanes, register all ones)
        dyn["mask"] = np.array([min(c.mask, 2**32 - 1) for c in cs], np.uint32)
    elif c0.form == "bitwise":
        dyn["mask"] = np.stack([mask_words32(c.mask, nw32) for c in cs])
    return dyn


# -- the engine's adapter ----------------------------------------------------------------------

_DEFAULT = (1, 1, 1, 8, 8, 8)


class CompareSelectFamily(TwoBucketFamily):
    name = "compare_select"
    apis = ALL_APIS
    case_type = CmpSelCase
    call_case = staticmethod(call)
    default_strides = _DEFAULT

    def units(self, p, api):
        out = []
        gs = groups(p)
        first = {}
        for k, (a, dt, mode) in enumerate(gs):
            first.setdefault(a, dt)
            if a != api:
                continue
            forms = forms_for(p, a, dt, mode)
            for form in forms:
                variants = (
                    range(4) if (a == "ComparesFlexible" or (a == "SelectFlexible" and mode == 1)) else (0,)
                )
                for v in variants:
                    # the large repeat bucket only for the first dtype and form of an API: one
                    # extra compilation per API, not per group
                    big_ok = dt == first[a] and form == forms[0] and form != "-"
                    out.append((a, dt, mode, form, v, _pick(a, dt, k, mode, gs), big_ok))
        return out

    def generate(self, rng, p, unit, fault_rate):
        api, dt, mode, form, variant, pick, big_ok = unit
        big = bool(big_ok and rng.random() < 0.05)
        return random_case(
            rng, p, api, dt, mode, form, big=big, variant=variant, fault_rate=fault_rate, pick=pick
        )

    draw_many = staticmethod(random_cases_many)

    @staticmethod
    def _reps(c, L):
        return 1 if c.form == "-" else reps_needed(c, L)  # "-": Set/GetCmpMask, no repeat

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        opts = []
        if case.api in CMP_APIS + ("CompareCmpMask",):
            opts.append((rep(case, mode=9), "cmpMode"))
        if case.form == "count":
            opts.append((rep(case, count=p.ub_usable_bytes + 64), "count"))
        elif case.form in ("continuous", "bitwise", "register") and case.api != "CompareCmpMask":
            opts.append((rep(case, repeat=p.max_repeat_times + 1), "repeatTime"))
        if case.form not in ("count", "-") and case.api in (
            "Compare",
            "Select",
            "SelectFlexible",
            "CompareCmpMask",
        ):
            opts.append((rep(case, strides=(1, 1, 1, 256, 8, 8)), "repeatParams.dstRepStride"))
        if case.api == "GetCmpMask":
            return None
        bad = None if case.api in ("SetCmpMask", "GetCmpMask") else unlisted_dtype(rng, p, case.api)
        if bad:
            opts.append((rep(case, dtype=bad), "T"))
        if not opts:
            return None
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        if case.api in ("SetCmpMask", "GetCmpMask"):
            k = "misaligned" if rng.random() < 0.5 else "out-of-ub"
            a = case.src0 + 8 if k == "misaligned" else case.ub_bytes - 8
            return dataclasses.replace(case, dst=a, src0=a), k
        return data_mutations(
            rng, p, case, dst="dst", src="src0", dst_blk_stride=case.api.startswith("Select")
        )

    def signature(self, case, p):
        k = case.key()
        if _any_form(case, p):
            k = k[:3] + ("any",) + k[4:]
        if case.api.startswith("Select"):
            # one program per (API, lane width, traced form or count form, variant, bucket): the
            # types of a width, the selMask types and (Select) selMode and the mask-less
            # prototypes are traced
            k = (k[0], lane_dtype(p, case.api, case.dtype), None, k[3], k[4], None, None, k[7])
        return ("compare_select",) + k

    def initial_ub(self, case):
        return initial_ub(case)

    def initial_ubs(self, cases):
        return make_ubs(cases)

    def stack_dyn(self, cases, p):
        return stack_dyn(cases, p)

    def call_static(self, mod, case, state, p):
        return call(mod, case, state, p), None

    def labels(self, case, p):
        if case.api in ("SetCmpMask", "GetCmpMask"):
            return ("n/a", "n/a", "n/a")
        return super().labels(case, p)

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        L = p.lanes(d)
        if case.api in ("SetCmpMask", "GetCmpMask"):
            role = "in" if case.api == "SetCmpMask" else "out"
            name = "src" if case.api == "SetCmpMask" else "dst"
            return [
                Operand(
                    name, case.src0 if role == "in" else case.dst, 16, "uint32", role, ("packed", case.dst)
                )
            ]
        reps = self._reps(case, L)
        s = _DEFAULT if case.form == "count" else case.strides
        nblk = L * d.itemsize // 32
        t_name, t_addr = ("src0", case.src0)
        if case.api == "ComparesFlexible" and case.variant in (1, 3):
            t_name, t_addr = ("src1", case.src1)  # the tensor operand, on src0's strides
        ops = [strided_operand(t_name, t_addr, d.name, s[1], s[4], nblk, reps, "in")]
        if case.api in ("Compare", "CompareCmpMask") or (case.api.startswith("Select") and case.mode != 1):
            ops.append(strided_operand("src1", case.src1, d.name, s[2], s[5], nblk, reps, "in"))
        if case.api.startswith("Select") and case.form != "nomask":
            W = L // 8
            ops.append(
                Operand("selMask", case.sel, max(1, reps) * W, "uint8", "in", ("bits", case.sel, W, L))
            )
        if case.api in CMP_APIS:
            W = L // 8
            ops.append(Operand("dst", case.dst, max(1, reps) * W, "uint8", "inout", ("bits", case.dst, W, L)))
        elif case.api.startswith("Select"):
            ops.append(strided_operand("dst", case.dst, d.name, s[0], s[3], nblk, reps, "inout"))
        return ops
