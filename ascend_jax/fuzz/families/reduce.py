"""Random cases for the reduction family 归约计算/ (issue 16): ReduceRepeat, ReduceDataBlock,
ReducePairElem (per repeat / DataBlock / pair, ``reduceType``, ReduceRepeat's ``order``) and ReduceSum,
ReduceMax, ReduceMin (the whole input to one value, ``calIndex``, ``sharedTmpBuffer``), run through
the fast path and the NumPy reference and compared on the whole UB, the registers and the fault word.

Call forms: per-repeat APIs -- high-dim continuous / bitwise mask and the MASK_PLACEHOLDER register
form (isSetMask=false); ReduceSum -- the count form (and its isSetMask=false register variant where
the product honours it) and the three high-dim forms; ReduceMax / ReduceMin -- the count form and
the continuous / bitwise high-dim forms (their pages have no isSetMask). Normal and Counter mode.

Fast path: each case is planned by ``aj.plan`` (the public API's static checks, the call form as
traced data) with static Python values; the cases of one signature (API, dtype, reduceType, order,
calIndex, ReduceSum's summation order, repeat bucket: the plan key) run in ONE program,
``aj.run_batched(key)``, with the call form, mask, counts, repeats, addresses and strides traced.
Reference: the public reference functions.

Data: random bits, the dtype's specials (NaN, inf, -0, subnormals, integer extremes) or small
multiples of 1/4 (exact, finite sums; ties in MAX / MIN, where the lowest index wins).

SRC_INSIDE_UB: a valid case keeps every source block inside UB (a repeat count that would leave it
is cut to the repeats that fit); the out-of-UB data faults move src, dst or sharedTmpBuffer past the
end (the reference once raised IndexError on such a source: fixed, see
``tests/test_fuzz_families_new.py::test_reference_reads_src_outside_ub``).
"""

import dataclasses
import functools

import numpy as np

import ascend_jax as aj

from ... import dtypes as _dt
from ...errors import NotModelledError, UsageError
from ...tensor import MASK_PLACEHOLDER, LocalTensor
from . import draw as D
from .base import (
    MASK_FIELDS,
    UB_FIELDS,
    Operand,
    case_dataclass,
    generic_shrinks,
    mask_text,
    mode_shrinks,
    mode_text,
    profile_forms,
    reps_needed,
    size_misuse,
    state_for,
    strided_labels,
    strided_operand,
    unlisted_dtype,
)
from .compound import draw_layout
from .family import PlannedFamily

PER_REPEAT = ("ReduceRepeat", "ReduceDataBlock", "ReducePairElem")
WHOLE = ("ReduceSum", "ReduceMax", "ReduceMin")
ORDERS = ("ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE", "ORDER_ONLY_VALUE", "ORDER_ONLY_INDEX")
DEFAULT_STRIDES = (1, 1, 8)  # dstRepStride, srcBlkStride, srcRepStride
COUNT_FORMS = ("count", "count_register")
TMP_LEN = 1 << 14  # sharedTmpBuffer's length (elements): always enough (the static formula check)


@case_dataclass
class ReduceCase:
    api: str
    dtype: str
    rtype: str  # reduceType of the per-repeat APIs: SUM | MAX | MIN; "" for the whole APIs
    order: str  # ReduceRepeat's ReduceOrder (MAX / MIN) or ""
    cal_index: bool  # ReduceMax / ReduceMin: calIndex
    form: str  # count | count_register | continuous | bitwise | register
    dst: int
    src: int
    tmp: int = 0  # sharedTmpBuffer's address (the whole APIs)
    count: int = 0
    mask: object = None  # int (continuous) or tuple of uint64 words (bitwise)
    repeat: int = 0
    strides: tuple = DEFAULT_STRIDES  # (dstRepStride, srcBlkStride, srcRepStride)
    tmp_len: int = TMP_LEN
    registers: MASK_FIELDS
    ub: UB_FIELDS

    def call_repr(self):
        d = _dt.as_dtype(self.dtype)
        reg = ", false" if self.form in ("count_register", "register") else ""
        m, mode = mask_text(self), mode_text(self)
        if self.api in PER_REPEAT:
            o = f", {self.order}" if self.order else ""
            return (
                f"{self.api}<ReduceType::{self.rtype}, {d.cpp}{reg}>(dst@{self.dst}, src@{self.src}, {m}, "
                f"{self.repeat}, {', '.join(map(str, self.strides))}{o}){mode}"
            )
        head = f"{self.api}<{d.cpp}{reg}>(dst@{self.dst}, src@{self.src}, tmp@{self.tmp}[{self.tmp_len}]"
        ci = f", {str(self.cal_index).lower()}" if self.api != "ReduceSum" else ""
        if self.form in COUNT_FORMS:
            return f"{head}, {self.count}{ci}){mode}"
        return f"{head}, {m}, {self.repeat}, {self.strides[2]}{ci}){mode}"


# -- generation ---------------------------------------------------------------------------------


def forms_of(api, p, dt):
    if api in PER_REPEAT:
        return ("continuous", "bitwise", "register")
    if dt in p.api(api).count_only_dtypes:
        return ("count",)
    if api == "ReduceSum":
        return profile_forms(p, ("count", "count_register", "continuous", "bitwise", "register"))
    return ("count", "continuous", "bitwise")  # ReduceMax / ReduceMin: no isSetMask


def random_case(rng, p, api, dtype, rtype, order, cal_index, form, ub_bytes=8192, fault_rate=0.1):
    # its twin for many cases: ``random_cases_many`` (a rule changed here is changed there;
    # tests/test_fuzz_vectorised_draw.py compares their distributions)
    d = _dt.as_dtype(dtype)
    L = p.lanes(d)
    nblk = L * d.itemsize // p.block_bytes
    # the call form, mask, counts and registers (a two-operand strided layout whose addresses are
    # not used: the reductions' operands are placed below)
    lay = draw_layout(rng, p, L, (nblk, nblk), (1, 1, 8, 8), form, fault_rate, ub_bytes)
    strides = DEFAULT_STRIDES
    if form not in COUNT_FORMS and rng.random() < 0.5:
        strides = (
            int(rng.choice([0, 1, 1, 2, 5])),
            int(rng.choice([0, 1, 1, 1, 2])) if api in PER_REPEAT else 1,
            int(rng.choice([0, 4, 8, 8, 8, 9, 16])),
        )
    nblocks = ub_bytes // 32
    case = ReduceCase(
        api, d.name, rtype, order, cal_index, form, 0, 0,
        count=lay["count"], mask=lay["mask"], repeat=lay["repeat"], strides=strides,
        vmask=lay["vmask"], mask_mode=lay["mask_mode"], ctrl=lay["ctrl"],
        ub_seed=int(rng.integers(0, 2**31)), ub_bytes=ub_bytes,
        data=["raw", "specials", "small", "small"][int(rng.integers(4))],
    )  # fmt: skip
    # SRC_INSIDE_UB: the source blocks stay inside UB with a block to spare (see the module docstring)
    blk, srep = (1, 8) if form in COUNT_FORMS else strides[1:]
    fixed = (nblk - 1) * blk + 2
    if form not in COUNT_FORMS and srep and (case.repeat - 1) * srep + fixed > nblocks:
        case = dataclasses.replace(case, repeat=(nblocks - fixed) // srep + 1)
    span = (max(reps_needed(case, L), 1) - 1) * srep + fixed

    def addr(lo_block, hi_block, outside=True):
        b = int(rng.integers(lo_block, max(lo_block, hi_block) + 1))
        if rng.random() < fault_rate / 2:
            return b * 32 + d.itemsize * int(rng.integers(1, 32 // d.itemsize))  # misaligned
        if outside and rng.random() < fault_rate / 2:
            return (nblocks + int(rng.integers(-1, 4))) * 32  # likely out of the arena
        return b * 32

    src = addr(0, min(nblocks // 2, nblocks - span), outside=False)
    dst = src if rng.random() < 0.05 else addr(nblocks // 2, nblocks - 2)
    tmp = addr(nblocks // 2, 3 * nblocks // 4) if api in WHOLE else 0
    return dataclasses.replace(case, src=src, dst=dst, tmp=tmp)


def _addr_many(slots, lo_block, hi_block, isz, nblocks, fault_rate, outside):
    """``random_case``'s ``addr`` for every case (four draws; ``outside``: per case)."""
    b = D.ints(slots, lo_block, np.maximum(lo_block, hi_block) + 1)
    misaligned = slots.random() < fault_rate / 2
    off = isz * D.ints(slots, 1, 32 // isz)
    far = slots.random() < fault_rate / 2
    far_block = D.ints(slots, nblocks - 1, nblocks + 4)
    return np.where(misaligned, b * 32 + off, np.where(outside & far, far_block * 32, b * 32))


def random_cases_many(slots, p, units, fault_rate=0.1, ub_bytes=8192):
    """``random_case`` for many cases at once, one a unit ``(api, dtype, rtype, order, cal_index,
    form)`` of ``units``, drawn from ``slots`` (``rng.Slots``) in a fixed layout
    (``draw.draw_layout_many``, the reductions' strides, the data style, then src, dst and tmp):
    the same distribution as ``random_case``."""
    n, names, isz, L = D.dtype_columns(p, units)
    uniq, ui = D.unit_index(units)
    nblk = L * isz // p.block_bytes
    form = D.per_unit(uniq, ui, lambda u: D.LAYOUT_FORMS.index(u[5]))
    per_repeat = D.per_unit(uniq, ui, lambda u: u[0] in PER_REPEAT, bool)
    whole = D.per_unit(uniq, ui, lambda u: u[0] in WHOLE, bool)
    lay = D.draw_layout_many(slots, p, L, (nblk, nblk), (1, 1, 8, 8), form, fault_rate, ub_bytes)
    count_form = form <= 1
    own = ~count_form & (slots.random() < 0.5)
    s0 = D.choose(slots, [0, 1, 1, 2, 5])
    s1 = np.where(per_repeat, D.choose(slots, [0, 1, 1, 1, 2]), 1)
    s2 = D.choose(slots, [0, 4, 8, 8, 8, 9, 16])
    strides = np.where(own[:, None], np.stack([s0, s1, s2], 1), np.asarray(DEFAULT_STRIDES, np.int64))
    ub_seed = slots.below(2**31)
    data = slots.below(4)
    # SRC_INSIDE_UB: the source blocks stay inside UB with a block to spare (the module docstring)
    nblocks = ub_bytes // 32
    blk = np.where(count_form, 1, strides[:, 1])
    srep = np.where(count_form, 8, strides[:, 2])
    fixed = (nblk - 1) * blk + 2
    repeat = lay.repeat
    cut = ~count_form & (srep != 0) & ((repeat - 1) * srep + fixed > nblocks)
    repeat = np.where(cut, (nblocks - fixed) // np.maximum(srep, 1) + 1, repeat)
    # ``base.reps_needed``
    reps = np.where(form == 0, -(-lay.count // L), np.where(form == 1, 1, repeat))
    vm = lay.vmask[:, 0].astype(np.int64) | (lay.vmask[:, 1].astype(np.int64) << 32)
    reps = np.where((lay.mask_mode == 1) & (form != 0), np.maximum(reps, -(-vm // L)), reps)
    span = (np.maximum(reps, 1) - 1) * srep + fixed
    src = _addr_many(slots, 0, np.minimum(nblocks // 2, nblocks - span), isz, nblocks, fault_rate, False)
    same = slots.random() < 0.05
    dst = np.where(same, src, _addr_many(slots, nblocks // 2, nblocks - 2, isz, nblocks, fault_rate, True))
    tmp = _addr_many(slots, nblocks // 2, 3 * nblocks // 4, isz, nblocks, fault_rate, True)
    tmp = np.where(whole, tmp, 0)
    return D.build(
        ReduceCase,
        n,
        dict(
            api=[u[0] for u in units],
            dtype=names.tolist(),
            rtype=[u[2] for u in units],
            order=[u[3] for u in units],
            cal_index=[u[4] for u in units],
            form=[u[5] for u in units],
            dst=dst.tolist(),
            src=src.tolist(),
            tmp=tmp.tolist(),
            count=lay.count.tolist(),
            mask=D.layout_masks(lay),
            repeat=repeat.tolist(),
            strides=D.tuples(strides),
            tmp_len=TMP_LEN,
            **D.mask_fields(lay.vmask, lay.mask_mode, lay.ctrl),
            ub_seed=ub_seed.tolist(),
            ub_bytes=ub_bytes,
            data=[("raw", "specials", "small", "small")[k] for k in data.tolist()],
        ),
    )


# -- calls ----------------------------------------------------------------------------------------


def _tensors(c):
    d = _dt.as_dtype(c.dtype)
    return LocalTensor(d, c.dst, 64), LocalTensor(d, c.src, 4096), LocalTensor(d, c.tmp, c.tmp_len)


def _mask(c):
    if c.form == "register":
        return MASK_PLACEHOLDER
    return list(c.mask) if c.form == "bitwise" else c.mask


def _is_set(c):
    return c.form not in ("register", "count_register")


def _whole_args(c):
    return (c.count,) if c.form in COUNT_FORMS else (_mask(c), c.repeat, c.strides[2])


def call_args(c, p):
    """(args, kwargs) of ``c.api`` after the state, with static Python values, as a kernel calls it
    (C++ argument order)."""
    dst, src, tmp = _tensors(c)
    if c.api in PER_REPEAT:
        extra = (c.order,) if c.order else ()
        args = (dst, src, _mask(c), c.repeat, *c.strides, *extra)
        return args, {"reduceType": c.rtype, "profile": p, "isSetMask": _is_set(c)}
    if c.api == "ReduceSum":
        return (dst, src, tmp, *_whole_args(c)), {"profile": p, "isSetMask": _is_set(c)}
    return (dst, src, tmp, *_whole_args(c), c.cal_index), {"profile": p}


def call(mod, c, state, p):
    """``c.api`` of ``mod`` (the reference, or ``ascend_jax``)."""
    args, kw = call_args(c, p)
    return getattr(mod, c.api)(state, *args, **kw)


def plan(c, state, p, R):
    """``aj.plan`` of the case (the public API's static checks included): (key, values)."""
    args, kw = call_args(c, p)
    return aj.plan(c.api, state, *args, max_repeats=R, **kw)


def variants(p, api, dt):
    """(reduceType, order, calIndex) of every static program of ``api`` on ``dt``."""
    d = _dt.as_dtype(dt)
    if api == "ReducePairElem":
        return [("SUM", "", False)]
    if api in PER_REPEAT:
        out = []
        for t in ("SUM", "MAX", "MIN"):
            if api == "ReduceRepeat" and t != "SUM":
                out += [(t, o, False) for o in p.api(api).orders]
            else:
                out.append((t, "", False))
        return [v for v in out if v[0] != "SUM" or d.is_float]
    if api == "ReduceSum":
        return [("", "", False)]
    return [("", "", False), ("", "", True)]


@functools.cache
def is_modelled(api, dt, rtype, order, cal_index, form, p):
    """Whether the fast path models the variant (a trial plan of a plain case)."""
    mask = {"continuous": 1, "bitwise": (1,) + (0,) * (p.vector_mask_bits // 64 - 1)}.get(form)
    c = ReduceCase(api, dt, rtype, order, cal_index, form, 0, 0, count=1, mask=mask, repeat=1)
    try:
        plan(c, state_for(c, p), p, 1)
    except (NotModelledError, UsageError):
        return False
    return True


# -- the engine's adapter ----------------------------------------------------------------------


class ReduceFamily(PlannedFamily):
    name = "reduce"
    apis = PER_REPEAT + WHOLE
    case_type = ReduceCase
    call_case = staticmethod(call)

    def api_units(self, p, api):
        a = p.api(api)
        return [
            (api, dt, *v, f)
            for dt in a.all_dtypes()
            for v in variants(p, api, dt)
            for f in forms_of(api, p, dt)
            if is_modelled(api, dt, *v, f, p)
        ]

    def generate(self, rng, p, unit, fault_rate):
        api, dt, rtype, order, ci, form = unit
        return random_case(rng, p, api, dt, rtype, order, ci, form, fault_rate=fault_rate)

    draw_many = staticmethod(random_cases_many)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        if case.form in COUNT_FORMS:
            opts = [size_misuse(case, p, True)]
        elif case.api in PER_REPEAT:
            opts = [size_misuse(case, p, False)]
            k = int(rng.integers(3))
            s = list(case.strides)
            s[k] = 1 << 16  # SPEC: "取值范围为[0, 2^16-1]" (ReduceRepeat.md 约束说明)
            opts.append((rep(case, strides=tuple(s)), ("dstRepStride", "srcBlkStride", "srcRepStride")[k]))
        else:
            opts = [(rep(case, repeat=-1), "repeatTime")]
            opts.append((rep(case, strides=case.strides[:2] + (1 << 16,)), "srcRepStride"))
        if case.api in WHOLE and case.api != "ReduceSum":
            # SPEC: the page's sharedTmpBuffer size formula (关键特性说明): one element too few
            opts.append(
                (
                    rep(case, tmp_len=0, count=max(case.count, 1), repeat=max(case.repeat, 1)),
                    "sharedTmpBuffer",
                )
            )
        if case.api == "ReducePairElem":
            opts.append((rep(case, rtype="MAX"), "reduceType"))  # SPEC: "当前仅支持求和操作"
        if case.api == "ReduceRepeat" and case.rtype != "SUM":
            opts.append((rep(case, order="ORDER_SOMETHING"), "order"))
        bd = unlisted_dtype(rng, p, case.api)
        if bd:
            rt = "MAX" if case.api in PER_REPEAT and case.api != "ReducePairElem" else case.rtype
            order = p.api("ReduceRepeat").orders[0] if case.api == "ReduceRepeat" else case.order
            opts.append((rep(case, dtype=bd, rtype=rt, order=order), "dtype"))
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        rep = dataclasses.replace
        names = ["dst", "src"] + (["tmp"] if case.api in WHOLE else [])
        k = ["misaligned", "out-of-ub", "overlap"][int(rng.integers(3))]
        name = names[int(rng.integers(len(names)))]
        if k == "misaligned":
            return rep(case, **{name: getattr(case, name) + _dt.as_dtype(case.dtype).itemsize}), f"{k} {name}"
        if k == "out-of-ub":
            return rep(case, **{name: case.ub_bytes - 32 * int(rng.integers(0, 3))}), f"{k} {name}"
        other = "tmp" if name == "src" and case.api in WHOLE and rng.random() < 0.5 else "dst"
        return rep(case, **{other: case.src + 32 * int(rng.choice([0, 1, 2, 8]))}), f"{k} {other} on src"

    def signature(self, case, p):
        R = self.bucket(reps_needed(case, p.lanes(_dt.as_dtype(case.dtype))))
        order = ""
        if case.api == "ReduceSum":  # the summation order of the form (a static choice)
            a = p.api("ReduceSum")
            order = a.order_count if case.form in COUNT_FORMS else a.order_highdim
        return ("reduce", case.api, case.dtype, case.rtype, case.order, case.cal_index, order, R)

    def stack_dyn(self, cases, p):
        R = self.signature(cases[0], p)[-1]
        return self.stack_values([plan(c, state_for(c, p), p, R)[1] for c in cases])

    def fast_fn(self, case0, p):
        R = self.signature(case0, p)[-1]
        return self.batched(plan(case0, state_for(case0, p), p, R)[0])

    def labels(self, case, p):
        s = case.strides  # the source's (block stride, repeat stride): s[1], s[2]
        return strided_labels(case, p, p.lanes(_dt.as_dtype(case.dtype)), ((s[1],), (s[2],)))

    def shrink(self, case, p):
        rep = dataclasses.replace
        out = generic_shrinks(case, p, DEFAULT_STRIDES) + mode_shrinks(case)
        if case.cal_index:
            out.append(rep(case, cal_index=False))
        return out

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        L = p.lanes(d)
        reps = reps_needed(case, L)
        nblk = L * d.itemsize // 32
        blk, srep = (1, 8) if case.form in COUNT_FORMS else (case.strides[1], case.strides[2])
        ops = [strided_operand("src", case.src, d.name, blk, srep, nblk, reps, "in")]
        if case.api in WHOLE:
            n_out = 2 if case.cal_index else 1
            ops.append(Operand("dst", case.dst, n_out * d.itemsize, d.name, "inout", ("packed", case.dst)))
        else:
            # per repeat: results at dst + r * dstRepStride * unit (unit = the bytes a repeat writes)
            unit = {"ReduceDataBlock": 8 * d.itemsize, "ReducePairElem": (L // 2) * d.itemsize}.get(
                case.api, 2 * d.itemsize
            )
            span = (max(reps, 1) - 1) * case.strides[0] * unit + unit
            ops.append(Operand("dst", case.dst, span, d.name, "inout", ("packed", case.dst)))
        return ops


__all__ = ["ORDERS", "PER_REPEAT", "WHOLE", "ReduceCase", "ReduceFamily"]
