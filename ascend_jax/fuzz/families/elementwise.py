"""Random cases for the element-wise family (issue 15): two-source arithmetic and logic (Add ... Or),
unary math (Abs ... LeakyRelu), the flexible-scalar APIs (Subs, Divs, Ands, Ors, AddsFlexible ...)
and the fills (Duplicate, CreateVecIndex), run through the fast path and the NumPy reference and
compared on the whole UB, the registers and the fault word.

Table-driven: ``API_TABLE`` gives each API's row (its sub-family ``kind`` and its scalar, if any);
``KINDS`` gives each sub-family's API group, its number of tensor sources and its repeat
parameters. Adding an API of an existing sub-family is one row of ``API_TABLE``.

Fast path: every case is planned by the public planned-call interface (``aj.plan``: the public
API's static checks, the call form as traced data) with static Python values; the cases of one
signature (sub-family = the API group, dtype, repeat bucket) then run in ONE program of the group's
key (``aj.run_batched(aj.group_key(...))``) with everything traced -- API code, call form,
addresses, count, mask words, repeat count, strides, scalar bits. Reference: the public reference
function, one case at a time.
"""

import dataclasses
import math

import numpy as np

import ascend_jax as aj

from ... import dtypes as _dt
from ...params import BinaryRepeatParams, UnaryRepeatParams
from ...tensor import MASK_PLACEHOLDER, LocalTensor
from ..regs import draw as draw_registers
from ..regs import draw_mask
from . import draw as D
from .base import (
    MASK_FIELDS,
    SRC_NAMES,
    UB_FIELDS,
    Operand,
    case_dataclass,
    draw_addr,
    draw_repeat_strides,
    footprint,
    form_text,
    layout_operands,
    plain_case,
    reps_needed,
)
from .family import StridedFamily
from .unary_scalar import _random_scalar, _random_scalars_many


@dataclasses.dataclass(frozen=True)
class Kind:
    """A sub-family: its API group (``aj.GROUP_APIS``, ``aj.group_key``), tensor sources, the
    default strides of its repeat parameters (dst block strides, source block strides, dst repeat
    stride, source repeat strides -- in the C++ parameter order), and the names of the fill
    strides."""

    group: str
    nsrc: int
    default_strides: tuple


KINDS = {
    "binary": Kind("binary", 2, (1, 1, 1, 8, 8, 8)),  # BinaryRepeatParams
    "unary": Kind("unary", 1, (1, 1, 8, 8)),  # UnaryRepeatParams
    "flex": Kind("binary_scalar", 1, (1, 1, 8, 8)),  # UnaryRepeatParams
    "fill": Kind("fill", 0, (1, 8)),  # dstBlockStride, dstRepeatStride
}


@dataclasses.dataclass(frozen=True)
class Row:
    """One API: its sub-family; ``scalar``: None, "value" (any T value: LeakyRelu, Duplicate,
    the flexible scalar), "index" (CreateVecIndex's firstValue: finite, in T's range); ``positions``:
    the scalar positions (flexible APIs: a number after / before src, or a LocalTensor element as
    src1 / src0 -- ``BinaryConfig.scalarTensorIndex`` 1 / 0)."""

    kind: str
    scalar: object = None
    positions: tuple = ("after",)


FLEX_POSITIONS = ("after", "before", "elem_after", "elem_before")

API_TABLE = {
    **{a: Row("binary") for a in ("Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or")},
    **{a: Row("unary") for a in ("Abs", "Relu", "Neg", "Not", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal")},
    "LeakyRelu": Row("unary", "value"),
    **{
        a: Row("flex", "value", FLEX_POSITIONS)
        for a in (
            "Subs",
            "Divs",
            "Ands",
            "Ors",
            "AddsFlexible",
            "MulsFlexible",
            "MaxsFlexible",
            "MinsFlexible",
        )
    },
    "Duplicate": Row("fill", "value"),
    "CreateVecIndex": Row("fill", "index"),
}


@case_dataclass
class EwCase:
    api: str
    dtype: str
    form: str  # count | count_register | continuous | bitwise | register
    dst: int
    srcs: tuple = ()  # source addresses (src0, src1 | src | none)
    scalar: object = None  # a Python number (the API's scalar argument) or None
    position: str = "after"  # flexible APIs: after | before | elem_after | elem_before (FLEX_POSITIONS)
    elem: int = 0  # elem_*: the byte address of the LocalTensor element that is the scalar
    count: int = 0
    mask: object = None  # int (continuous) or tuple of uint64 words (bitwise)
    repeat: int = 0
    strides: tuple = ()  # the sub-family's repeat parameters (``Kind.default_strides`` layout)
    registers: MASK_FIELDS
    ub: UB_FIELDS

    @property
    def kind(self):
        return API_TABLE[self.api].kind

    def call_repr(self):
        d = _dt.as_dtype(self.dtype)
        t = f"<{d.cpp}{', false' if self.form in ('count_register', 'register') else ''}>"
        ops = [f"dst@{self.dst}"] + [
            f"{n}@{a}" for n, a in zip(SRC_NAMES[len(self.srcs)], self.srcs, strict=True)
        ]
        if self.kind == "flex":
            sc = f"elem@{self.elem}" if self.position.startswith("elem") else repr(self.scalar)
            ops = [ops[0], sc, ops[1]] if self.position.endswith("before") else ops + [sc]
        elif self.scalar is not None:
            ops.append(repr(self.scalar))
        return f"{self.api}{t}({', '.join(ops)}" + form_text(self)


# -- generation ---------------------------------------------------------------------------------


def _index_scalar(rng, d):
    """CreateVecIndex's firstValue: finite, in T's range (its page's rule), mostly small."""
    if d.is_float:
        if rng.random() < 0.5:
            return float(rng.integers(-1000, 1000)) / 8
        v = _random_scalar(rng, d)
        return v if math.isfinite(v) else 0.0
    lo = -(1 << (d.bits - 1)) if d.is_signed_int else 0
    hi = lo + (1 << d.bits) - 1
    if rng.random() < 0.5:
        return int(np.clip(int(rng.integers(-100, 100)), lo, hi))
    return int(rng.integers(lo, hi + 1))


def random_case(rng, p, api, dtype, form, ub_bytes=8192, fault_rate=0.1):
    row = API_TABLE[api]
    kind = KINDS[row.kind]
    d = _dt.as_dtype(dtype)
    L = p.lanes(d)
    E = p.block_bytes // d.itemsize
    nblocks = ub_bytes // 32
    data = ["raw", "specials", "small"][int(rng.integers(3))]
    regs = draw_registers(rng, p, L, counter_ok=form not in ("count",))
    repeat, strides = draw_repeat_strides(rng, kind.default_strides, fault_rate)
    ns = len(kind.default_strides) // 2  # strides per group (dst + sources)

    def fp_all(reps):
        return max(footprint(strides[i], strides[ns + i], reps) for i in range(ns))

    count = 0
    if form in ("count", "count_register"):
        count = int(rng.integers(0, min(3 * L, nblocks * E // 2) + 1))
        if rng.random() < 0.1:
            count = 0
        fp = footprint(1, 8, math.ceil(count / L))
    else:
        fp = fp_all(repeat)
    mask, vmask_words, count_reg = draw_mask(rng, p, L, form, regs, min(4 * L, nblocks * E // 3))
    if count_reg is not None:
        fp = max(fp, fp_all(math.ceil(count_reg / L)))
    dst = draw_addr(rng, nblocks, fp, fault_rate)
    srcs = tuple(
        dst if rng.random() < 0.15 else draw_addr(rng, nblocks, fp, fault_rate) for _ in range(kind.nsrc)
    )
    scalar = None
    if row.scalar == "value":
        scalar = _random_scalar(rng, d)
        if isinstance(scalar, float) and math.isnan(scalar):
            # a NaN scalar only canonical: a payload NaN as a C++ scalar argument is outside the
            # model's scalar conversion rule (the reference canonicalises, the fast path keeps the
            # payload -- visible in Duplicate, which copies the bits)
            scalar = float("nan")
    elif row.scalar == "index":
        scalar = _index_scalar(rng, d)
    position = row.positions[int(rng.integers(len(row.positions)))]
    elem = 0
    if position.startswith("elem"):
        # no alignment rule: any element, sometimes an odd byte, inside dst or outside UB
        u = rng.random()
        elem = int(rng.integers(0, ub_bytes // d.itemsize)) * d.itemsize
        if u < 0.15:
            elem = dst + d.itemsize * int(rng.integers(0, 3 * L))
        elif u < 0.15 + fault_rate / 2:
            elem = ub_bytes - int(rng.integers(0, d.itemsize + 1))
        elif u < 0.15 + fault_rate:
            elem += int(rng.integers(1, 4))
    return EwCase(
        api=api,
        dtype=d.name,
        form=form,
        dst=dst,
        srcs=srcs,
        scalar=scalar,
        position=position,
        elem=elem,
        count=count,
        mask=mask,
        repeat=repeat,
        strides=strides if form not in ("count", "count_register") else kind.default_strides,
        **regs.mask_fields(vmask_words),
        ub_seed=int(rng.integers(0, 2**31)),
        ub_bytes=ub_bytes,
        data=data,
    )


_DATA = ("raw", "specials", "small")
_SCALAR_KINDS = (None, "value", "index")


def _max_over_groups(strides, ns, reps):
    """``fp_all`` of ``random_case`` for every case: the largest footprint of the ``ns`` (per case)
    operand groups, block stride ``strides[i]`` and repeat stride ``strides[ns + i]``."""
    fp = np.zeros(len(ns), np.int64)
    for i in range(int(ns.max())):
        rep = np.take_along_axis(strides, np.minimum(ns + i, strides.shape[1] - 1)[:, None], 1)[:, 0]
        fp = np.where(i < ns, np.maximum(fp, D.footprint_many(strides[:, i], rep, reps)), fp)
    return fp


def _index_scalars_many(slots, dts, dk, values):
    """``_index_scalar`` for every case (``values``: each case's ``_random_scalar`` draw, for the
    float types' other half). Four draws."""
    ds = [_dt.as_dtype(x) for x in dts]
    # CreateVecIndex's types are 32 bits at most; wider types (no index scalar, values unused) are
    # kept in int64 range
    bits = [min(d.bits, 32) for d in ds]
    lo = np.asarray(
        [
            0 if d.is_float else (-(1 << (b - 1)) if d.is_signed_int else 0)
            for d, b in zip(ds, bits, strict=True)
        ]
    )[dk]
    hi = lo + np.asarray([1 if d.is_float else (1 << b) - 1 for d, b in zip(ds, bits, strict=True)])[dk]
    u = slots.random()
    small_f = D.ints(slots, -1000, 1000) / 8
    small_i = np.clip(D.ints(slots, -100, 100), lo, hi)
    big_i = D.ints(slots, lo, hi + 1)
    is_float = np.asarray([d.is_float for d in ds])[dk]
    out = []
    for f, uu, sf, si, bi, v in zip(
        is_float.tolist(),
        u.tolist(),
        small_f.tolist(),
        small_i.tolist(),
        big_i.tolist(),
        values,
        strict=True,
    ):
        if f:
            out.append(sf if uu < 0.5 else (v if math.isfinite(v) else 0.0))
        else:
            out.append(si if uu < 0.5 else bi)
    return out


def random_columns_many(slots, p, units, fault_rate=0.1, ub_bytes=8192):
    """``random_case``'s fields for many cases at once (one a unit ``(api, dtype, form)``), drawn
    from ``slots`` in a fixed layout (``families.draw``): a dict of columns for ``draw.build``."""
    uniq, ui = D.unit_index(units)
    dts = list(dict.fromkeys(u[1] for u in uniq))
    dk = D.per_unit(uniq, ui, lambda u: dts.index(u[1]))
    isz = D.per_unit(uniq, ui, lambda u: _dt.as_dtype(u[1]).itemsize)
    L = D.per_unit(uniq, ui, lambda u: p.lanes(_dt.as_dtype(u[1])))
    E = p.block_bytes // isz
    form = D.per_unit(uniq, ui, lambda u: D.STRIDED_FORM_NAMES.index(u[2]))
    rows_ = [API_TABLE[u[0]] for u in uniq]
    ns = D.per_unit(uniq, ui, lambda u: len(KINDS[API_TABLE[u[0]].kind].default_strides) // 2)
    nsrc = D.per_unit(uniq, ui, lambda u: KINDS[API_TABLE[u[0]].kind].nsrc)
    sk = D.per_unit(uniq, ui, lambda u: _SCALAR_KINDS.index(API_TABLE[u[0]].scalar))
    npos = D.per_unit(uniq, ui, lambda u: len(API_TABLE[u[0]].positions))
    defaults = np.asarray([(KINDS[r.kind].default_strides + (0,) * 6)[:6] for r in rows_], np.int64)[ui]
    nblocks = ub_bytes // 32
    count_form = form <= 1

    data = slots.below(3)
    regs = D.draw_many(slots, p, L, counter_ok=form != 0)
    repeat, strides = D.repeat_strides_rows(slots, defaults, fault_rate)
    count = D.ints(slots, 0, np.minimum(3 * L, nblocks * E // 2) + 1)
    count = np.where(count_form & (slots.random() >= 0.1), count, 0)
    masks, vmask, counter, count_reg = D.draw_mask_many(
        slots, p, L, form, regs, np.minimum(4 * L, nblocks * E // 3)
    )
    fp = np.where(count_form, D.footprint_many(1, 8, -(-count // L)), _max_over_groups(strides, ns, repeat))
    fp = np.where(counter, np.maximum(fp, _max_over_groups(strides, ns, -(-count_reg // L))), fp)
    dst = D.draw_addr_many(slots, nblocks, fp, fault_rate)
    src = []
    for _ in range(2):
        same = slots.random() < 0.15
        src.append(np.where(same, dst, D.draw_addr_many(slots, nblocks, fp, fault_rate)))
    values = _random_scalars_many(slots, dts, dk)
    # a NaN scalar only canonical (``random_case``)
    values = [float("nan") if isinstance(v, float) and v != v else v for v in values]
    index = _index_scalars_many(slots, dts, dk, values)
    pos = slots.below(npos)
    u = slots.random()
    e0 = D.ints(slots, 0, ub_bytes // isz) * isz
    e_dst = dst + isz * D.ints(slots, 0, 3 * L)
    e_end = ub_bytes - D.ints(slots, 0, isz + 1)
    e_odd = e0 + D.ints(slots, 1, 4)
    elem = np.where(
        u < 0.15,
        e_dst,
        np.where(u < 0.15 + fault_rate / 2, e_end, np.where(u < 0.15 + fault_rate, e_odd, e0)),
    )
    ub_seed = slots.below(2**31)

    apis = [u_[0] for u_ in units]
    positions = [API_TABLE[a].positions[k] for a, k in zip(apis, pos.tolist(), strict=True)]
    elem = np.where(np.asarray([q.startswith("elem") for q in positions], bool), elem, 0)
    scal = [
        None if k == 0 else (v if k == 1 else x) for k, v, x in zip(sk.tolist(), values, index, strict=True)
    ]
    src_t = list(zip(src[0].tolist(), src[1].tolist(), strict=True))
    st = D.tuples(strides)
    k2 = (2 * ns).tolist()
    return dict(
        api=apis,
        dtype=[_dt.as_dtype(dts[j]).name for j in dk.tolist()],
        form=[D.STRIDED_FORM_NAMES[f] for f in form.tolist()],
        dst=dst.tolist(),
        srcs=[s[:m] for s, m in zip(src_t, nsrc.tolist(), strict=True)],
        scalar=scal,
        position=positions,
        elem=elem.tolist(),
        count=count.tolist(),
        mask=masks,
        repeat=repeat.tolist(),
        strides=[
            KINDS[API_TABLE[a].kind].default_strides if c else s[:m]
            for a, c, s, m in zip(apis, count_form.tolist(), st, k2, strict=True)
        ],
        **D.mask_fields(vmask, regs.mask_mode, regs.ctrl),
        ub_seed=ub_seed.tolist(),
        ub_bytes=ub_bytes,
        data=[_DATA[k] for k in data.tolist()],
    )


# -- calls ----------------------------------------------------------------------------------------


def _tail(c):
    """(positional arguments after the tensors / scalar, isSetMask) in C++ order."""
    if c.form in ("count", "count_register"):
        return (c.count,), c.form == "count"
    mask = MASK_PLACEHOLDER if c.form == "register" else (list(c.mask) if c.form == "bitwise" else c.mask)
    s = c.strides
    if c.kind == "binary":
        return (mask, c.repeat, BinaryRepeatParams(*s)), c.form != "register"
    if c.kind in ("unary", "flex"):
        return (mask, c.repeat, UnaryRepeatParams(*s)), c.form != "register"
    return (mask, c.repeat, s[0], s[1]), c.form != "register"


def _operands(c):
    """(dst, [positional operands after dst]) as the API takes them."""
    d = _dt.as_dtype(c.dtype)
    n = 4096
    dst = LocalTensor(d, c.dst, n)
    srcs = [LocalTensor(d, a, n) for a in c.srcs]
    if c.kind == "fill":
        return dst, [c.scalar]
    if c.kind == "flex":
        sc = LocalTensor(d, c.elem, 1) if c.position.startswith("elem") else c.scalar
        return dst, ([sc, srcs[0]] if c.position.endswith("before") else [srcs[0], sc])
    if c.scalar is not None:  # LeakyRelu
        return dst, srcs + [c.scalar]
    return dst, srcs


def _call_args(c):
    """(positional arguments after the state, keyword arguments) of the case's call."""
    dst, ops = _operands(c)
    args, is_set = _tail(c)
    kw = {} if c.api == "Neg" else {"isSetMask": is_set}  # Neg: the page's one prototype, no isSetMask
    if c.kind == "flex" and c.position.startswith("elem"):
        kw["config"] = _config(c)
    return (dst, *ops, *args), kw


def call(mod, c, state, p):
    """``c.api`` of ``mod`` (the reference, or ``ascend_jax``) with static Python values."""
    args, kw = _call_args(c)
    return getattr(mod, c.api)(state, *args, profile=p, **kw)


def _config(c):
    """The BinaryConfig of an element-scalar case (scalarTensorIndex 0: src0, 1: src1)."""
    from ... import BinaryConfig

    return BinaryConfig(0 if c.position == "elem_before" else 1)


def plan(c, state, p, R):
    """``aj.plan`` of the case, ``(key, values)`` (the public API's static checks included)."""
    args, kw = _call_args(c)
    return aj.plan(c.api, state, *args, profile=p, max_repeats=R, **kw)


# -- the engine's adapter ----------------------------------------------------------------------


class ElementwiseFamily(StridedFamily):
    name = "elementwise"
    apis = tuple(API_TABLE)
    case_type = EwCase
    call_case, plan_case = staticmethod(call), staticmethod(plan)
    count_only_apis = ("Neg",)  # SPEC: Neg(ISASI) lists one prototype, (dst, src, count)

    def trial_case(self, api, dtype):
        row = API_TABLE[api]
        return plain_case(EwCase, api, dtype, KINDS[row.kind].nsrc, row.scalar is not None)

    def generate(self, rng, p, unit, fault_rate):
        api, dt, form = unit
        return random_case(rng, p, api, dt, form, fault_rate=fault_rate)

    def generate_many(self, slots, p, units, fault_rate):
        return D.build(EwCase, len(units), random_columns_many(slots, p, units, fault_rate))

    def stride_misuse(self, case):
        if case.kind != "fill":
            return super().stride_misuse(case)
        s = list(case.strides)
        s[1] = 256
        name = "dstRepeatStride" if case.api == "Duplicate" else "dstRepStride"
        return dataclasses.replace(case, strides=tuple(s)), name

    def signature(self, case, p):
        R = self.bucket(reps_needed(case, p.lanes(_dt.as_dtype(case.dtype))))
        # the key's static choices after (dtype, R, ordered, profile): float32 Exp / Ln / Rsqrt
        # (programs of their own) apart; not the key itself (hashing a profile costs ~80 us a case)
        return ("elementwise", case.kind, case.dtype, R, *_key(case, p, R).static[4:])

    def stack_dyn(self, cases, p):
        key = _key(cases[0], p, self.signature(cases[0], p)[3])
        plans = self.plans(cases, p)
        # one program for the whole chunk: every case's key must be the chunk's, ordered or not (a
        # signature that misses a static difference would run the other cases in its program)
        odd = [c for c, (k, _) in zip(cases, plans, strict=True) if _ordered(k) != key]
        if odd:
            raise AssertionError(
                f"elementwise chunk {self.signature(cases[0], p)} mixes compile keys: "
                f"{cases[0].api} and {odd[0].api} ({odd[0].dtype})"
            )
        return self.stack_values([d for _, d in plans])

    def fast_fn(self, case0, p):
        return self.batched(_key(case0, p, self.signature(case0, p)[3]))

    def shrink_strides(self, case, p):
        return KINDS[case.kind].default_strides

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        L = p.lanes(d)
        s = KINDS[case.kind].default_strides if case.form in ("count", "count_register") else case.strides
        srcs = zip(SRC_NAMES[len(case.srcs)], case.srcs, strict=True)
        ops = layout_operands(srcs, case.dst, s, reps_needed(case, L), d.name, L * d.itemsize // 32)
        if case.kind == "flex" and case.position.startswith("elem"):
            name = "src0" if case.position == "elem_before" else "src1"
            elem = Operand(f"{name}_element", case.elem, d.itemsize, d.name, "in", ("packed", case.elem))
            ops.insert(-1, elem)  # before dst
        return ops


def _key(case, p, R):
    """The chunk's key: ``aj.group_key`` of the case's group (repeats in program order)."""
    return aj.group_key(KINDS[case.kind].group, _dt.as_dtype(case.dtype), R, p, case.api)


def _ordered(key):
    """``key`` with its repeats written in program order (static part: (dtype, R, ordered, profile,
    ...), ``aj.group_key``): the order is exact for every call, one program serves the chunk."""
    return dataclasses.replace(key, static=(*key.static[:2], True, *key.static[3:]))


__all__ = ["API_TABLE", "KINDS", "ElementwiseFamily", "EwCase", "Row"]
