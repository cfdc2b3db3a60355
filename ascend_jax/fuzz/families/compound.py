"""Random cases for the composite ops 复合计算/ (issue 16): AddRelu, SubRelu, FusedMulAdd, MulAddRelu,
MulAddDst, AbsSub (two strided sources, ``BinaryRepeatParams``) and Axpy (one source and a scalar,
``UnaryRepeatParams``), run through the fast path and the NumPy reference and compared on the whole
UB, the registers and the fault word.

Table-driven: ``API_TABLE`` gives each API's row (its ``shape`` -- how it is called and planned --
and whether the page lists the count prototype only); ``SHAPES`` gives each shape's sources, scalar,
default strides and planner. A new API of an existing shape is one row of ``API_TABLE`` (a composite
with another dst type, say ``AddReluCast``, adds ``dst_dtype`` to its row); a new shape is one
``SHAPES`` entry.

Fast path: each case is planned by ``aj.plan`` (the public API's static checks, the call form as
traced data) with static Python values; the cases of one signature (shape, dtype, repeat bucket) then
run in ONE program, ``aj.run_batched`` of the shape's group key (``aj.group_key``), with everything
traced -- the API (``values["op"]``: one program serves the binary-shaped APIs), the call form,
addresses, count, mask words, repeat count, strides and the scalar. Reference: the public reference
function.

``draw_layout`` (the call form, registers, addresses, strides of a strided call with operands of
any block counts) is shared with the Cast family (``cast.py``).
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
    case_dataclass,
    draw_addr,
    form_text,
    layout_operands,
    plain_case,
    reps_needed,
)
from .family import StridedFamily
from .unary_scalar import _random_scalar, _random_scalars_many

COUNT_FORMS = ("count", "count_register")


@dataclasses.dataclass(frozen=True)
class Shape:
    """How the APIs of a row are called: tensor sources, a scalar argument, the repeat parameters'
    default strides (block strides of dst and the sources, then their repeat strides -- the C++
    parameter order) and the planned-call group (``aj.GROUP_APIS``) of its APIs."""

    nsrc: int
    scalar: bool
    default_strides: tuple
    group: str


SHAPES = {
    "binary": Shape(2, False, (1, 1, 1, 8, 8, 8), "compound"),  # X(dst, src0, src1, ...), BinaryRepeatParams
    "axpy": Shape(1, True, (1, 1, 8, 8), "axpy"),  # Axpy(dst, src, scalarValue, ...), UnaryRepeatParams
    # ExpSub(dst, src0, src1, count): its own program (float32 e**x)
    "expsub": Shape(2, False, (1, 1, 1, 8, 8, 8), "exp_sub"),
}


@dataclasses.dataclass(frozen=True)
class Row:
    shape: str
    count_only: bool = False  # the page lists X(dst, src0, src1, count) only (no isSetMask)


API_TABLE = {
    **{a: Row("binary") for a in ("AddRelu", "SubRelu", "FusedMulAdd", "MulAddRelu", "MulAddDst")},
    "AbsSub": Row("binary", count_only=True),  # SPEC: AbsSub(ISASI).md lists one prototype (count)
    "Prelu": Row("binary", count_only=True),  # SPEC: Prelu(ISASI).md lists one prototype (count)
    "Axpy": Row("axpy"),
    "ExpSub": Row("expsub", count_only=True),  # SPEC: ExpSub(ISASI).md lists one prototype (count)
}


@case_dataclass
class CompoundCase:
    api: str
    dtype: str
    form: str  # count | count_register | continuous | bitwise | register
    dst: int
    srcs: tuple = ()
    scalar: object = None  # Axpy's scalarValue (a Python number)
    count: int = 0
    mask: object = None  # int (continuous) or tuple of uint64 words (bitwise)
    repeat: int = 0
    strides: tuple = ()  # the shape's repeat parameters (``Shape.default_strides`` layout)
    registers: MASK_FIELDS
    ub: UB_FIELDS
    src_dtype: str = ""  # the sources' type where it is not ``dtype`` (a ``pairs`` row: half -> float32)

    @property
    def shape(self):
        return API_TABLE[self.api].shape

    @property
    def source_dtype(self):
        return self.src_dtype or self.dtype

    def call_repr(self):
        d = _dt.as_dtype(self.dtype)
        u = f", {_dt.as_dtype(self.src_dtype).cpp}" if self.src_dtype else ""
        t = f"<{d.cpp}{u}{', false' if self.form in ('count_register', 'register') else ''}>"
        ops = [f"dst@{self.dst}"] + [
            f"{n}@{a}" for n, a in zip(SRC_NAMES[len(self.srcs)], self.srcs, strict=True)
        ]
        if self.scalar is not None:
            ops.append(repr(self.scalar))
        head = f"{self.api}{t}({', '.join(ops)}"
        return head + form_text(self)


# -- generation (shared with cast.py) ---------------------------------------------------------------


def draw_layout(rng, p, L, blocks, default_strides, form, fault_rate, ub_bytes):
    """The layout fields of a random strided call: ``L`` lanes a repeat, operand ``i`` (dst first)
    spanning ``blocks[i]`` 32-byte blocks a repeat; ``default_strides``: block strides of the
    operands, then their repeat strides. Returns a dict (form, dst, srcs, count, mask, repeat,
    strides, vmask, mask_mode, ctrl); a share ``fault_rate`` of addresses / strides is bad."""
    n = len(blocks)
    nblocks = ub_bytes // 32
    regs = draw_registers(rng, p, L, counter_ok=form != "count")
    rep_choices = [0, 1, 1, 2, 3, 4, 8, 17, 255]
    repeat = (
        int(rep_choices[rng.integers(len(rep_choices))]) if rng.random() < 0.8 else int(rng.integers(0, 256))
    )
    if rng.random() < 0.5 or form in COUNT_FORMS:
        strides = tuple(default_strides)
    else:
        pick = [0, 1, 1, 2, 3, 4, 7, 8, 9, 16]
        strides = tuple(int(pick[rng.integers(len(pick))]) for _ in default_strides)
        if strides[0] == 0 and rng.random() > fault_rate:
            strides = (1,) + strides[1:]

    def footprint(i, reps):
        return (max(reps, 1) - 1) * strides[n + i] + (blocks[i] - 1) * strides[i] + 1

    count = 0
    E = p.block_bytes // 4  # count bound: at most a third of the arena of 4-byte elements
    if form in COUNT_FORMS:
        count = int(rng.integers(0, min(3 * L, nblocks * E // 3) + 1))
        if rng.random() < 0.1:
            count = 0
        reps = math.ceil(count / L)
    else:
        reps = repeat
    mask, vmask_words, count_reg = draw_mask(rng, p, L, form, regs, min(4 * L, nblocks * E // 3))
    if count_reg is not None:
        reps = max(reps, math.ceil(count_reg / L))

    def addr(i):
        return draw_addr(rng, nblocks, footprint(i, reps), fault_rate)

    dst = addr(0)
    srcs = tuple(dst if rng.random() < 0.15 else addr(1 + k) for k in range(n - 1))
    return dict(
        form=form,
        dst=dst,
        srcs=srcs,
        count=count,
        mask=mask,
        repeat=repeat,
        strides=strides,
        **regs.mask_fields(vmask_words),
    )


def mixed_strides(shape, src_blocks):
    """The default repeat parameters of a mixed row: dst 8 blocks a repeat, each source ``src_blocks``."""
    n = SHAPES[shape].nsrc
    return (1,) * (1 + n) + (8,) + (src_blocks,) * n


def random_case(rng, p, api, dtype, form, ub_bytes=8192, fault_rate=0.1, src_dtype=""):
    """``src_dtype``: a ``pairs`` row's source type (lanes by the wider type, the operands' blocks by
    their own)."""
    sh = SHAPES[API_TABLE[api].shape]
    d = _dt.as_dtype(dtype)
    sd = _dt.as_dtype(src_dtype or dtype)
    L = p.lanes(d if d.itemsize >= sd.itemsize else sd)
    nblk = max(1, L * d.itemsize // p.block_bytes)
    sblk = max(1, L * sd.itemsize // p.block_bytes)
    defaults = sh.default_strides if not src_dtype else mixed_strides(API_TABLE[api].shape, sblk)
    lay = draw_layout(rng, p, L, (nblk,) + (sblk,) * sh.nsrc, defaults, form, fault_rate, ub_bytes)
    scalar = None
    if sh.scalar:
        scalar = _random_scalar(rng, sd)
        if isinstance(scalar, float) and math.isnan(scalar):
            scalar = float("nan")  # a canonical NaN scalar only (as the element-wise family)
    return CompoundCase(
        api=api,
        dtype=d.name,
        scalar=scalar,
        ub_seed=int(rng.integers(0, 2**31)),
        ub_bytes=ub_bytes,
        data=["raw", "specials", "small"][int(rng.integers(3))],
        src_dtype=src_dtype,
        **lay,
    )


_DATA = ("raw", "specials", "small")


def _unit_shape(p, unit):
    """(dst dtype, source dtype or "", lanes, dst blocks, source blocks, default strides) of a unit."""
    api, dt, _ = unit
    src_dtype, dtype = dt.split("->") if "->" in dt else ("", dt)
    d, sd = _dt.as_dtype(dtype), _dt.as_dtype(src_dtype or dtype)
    L = p.lanes(d if d.itemsize >= sd.itemsize else sd)
    nblk = max(1, L * d.itemsize // p.block_bytes)
    sblk = max(1, L * sd.itemsize // p.block_bytes)
    shape = API_TABLE[api].shape
    defaults = SHAPES[shape].default_strides if not src_dtype else mixed_strides(shape, sblk)
    return d.name, src_dtype, L, nblk, sblk, defaults


def random_cases_many(slots, p, units, fault_rate=0.1, ub_bytes=8192):
    """``random_case`` for many cases at once (one a unit ``(api, dtype or "src->dst", form)``),
    drawn from ``slots`` in a fixed layout (``families.draw``): ``draw_layout``'s registers, repeat,
    strides, count, mask and addresses, then the scalar, the UB seed and the data style."""
    n = len(units)
    uniq, ui = D.unit_index(units)
    info = [_unit_shape(p, u) for u in uniq]
    sdts = list(dict.fromkeys(i[1] or i[0] for i in info))
    sk = np.asarray([sdts.index(i[1] or i[0]) for i in info], np.int64)[ui]
    L = np.asarray([i[2] for i in info], np.int64)[ui]
    nblk = np.asarray([i[3] for i in info], np.int64)[ui]
    sblk = np.asarray([i[4] for i in info], np.int64)[ui]
    nsrc = D.per_unit(uniq, ui, lambda u: SHAPES[API_TABLE[u[0]].shape].nsrc)
    has_scalar = D.per_unit(uniq, ui, lambda u: SHAPES[API_TABLE[u[0]].shape].scalar, bool)
    form = D.per_unit(uniq, ui, lambda u: D.STRIDED_FORM_NAMES.index(u[2]))
    defaults = np.asarray([(i[5] + (0,) * 6)[:6] for i in info], np.int64)[ui]
    nops = 1 + nsrc
    nblocks = ub_bytes // 32
    E = p.block_bytes // 4  # count bound: at most a third of the arena of 4-byte elements
    count_form = form <= 1

    regs = D.draw_many(slots, p, L, counter_ok=form != 0)
    repeat, strides = D.repeat_strides_rows(slots, defaults, fault_rate, use_default=count_form)
    count = D.ints(slots, 0, np.minimum(3 * L, nblocks * E // 3) + 1)
    count = np.where(count_form & (slots.random() >= 0.1), count, 0)
    masks, vmask, counter, count_reg = D.draw_mask_many(
        slots, p, L, form, regs, np.minimum(4 * L, nblocks * E // 3)
    )
    reps = np.where(count_form, -(-count // L), repeat)
    reps = np.where(counter, np.maximum(reps, -(-count_reg // L)), reps)

    def footprint(i, blocks):
        rep = np.take_along_axis(strides, np.minimum(nops + i, 5)[:, None], 1)[:, 0]
        return (np.maximum(reps, 1) - 1) * rep + (blocks - 1) * strides[:, i] + 1

    dst = D.draw_addr_many(slots, nblocks, footprint(0, nblk), fault_rate)
    src = []
    for k in range(2):
        same = slots.random() < 0.15
        a = D.draw_addr_many(slots, nblocks, footprint(1 + k, sblk), fault_rate)
        src.append(np.where(same, dst, a))
    values = _random_scalars_many(slots, sdts, sk)
    ub_seed = slots.below(2**31)
    data = slots.below(3)

    src_t = list(zip(src[0].tolist(), src[1].tolist(), strict=True))
    nd = [len(i[5]) for i in info]
    return D.build(
        CompoundCase,
        n,
        dict(
            api=[u[0] for u in units],
            dtype=[info[j][0] for j in ui.tolist()],
            form=[D.STRIDED_FORM_NAMES[f] for f in form.tolist()],
            dst=dst.tolist(),
            srcs=[s[:m] for s, m in zip(src_t, nsrc.tolist(), strict=True)],
            # a canonical NaN scalar only (as the element-wise family)
            scalar=[
                (float("nan") if isinstance(v, float) and v != v else v) if h else None
                for h, v in zip(has_scalar.tolist(), values, strict=True)
            ],
            count=count.tolist(),
            mask=masks,
            repeat=repeat.tolist(),
            strides=[s[: nd[j]] for s, j in zip(D.tuples(strides), ui.tolist(), strict=True)],
            **D.mask_fields(vmask, regs.mask_mode, regs.ctrl),
            ub_seed=ub_seed.tolist(),
            ub_bytes=ub_bytes,
            data=[_DATA[k] for k in data.tolist()],
            src_dtype=[info[j][1] for j in ui.tolist()],
        ),
    )


# -- calls ----------------------------------------------------------------------------------------


def call_tail(c, params_type):
    """(positional arguments after the operands, isSetMask) in C++ order (shared with cast.py)."""
    if c.form in COUNT_FORMS:
        return (c.count,), c.form == "count"
    mask = MASK_PLACEHOLDER if c.form == "register" else (list(c.mask) if c.form == "bitwise" else c.mask)
    return (mask, c.repeat, params_type(*c.strides)), c.form != "register"


def _tail(c):
    """(positional arguments after the operands, keyword arguments) in C++ order."""
    args, is_set = call_tail(c, BinaryRepeatParams if SHAPES[c.shape].nsrc == 2 else UnaryRepeatParams)
    # the count-only pages' one prototype: no isSetMask
    return args, {} if API_TABLE[c.api].count_only else {"isSetMask": is_set}


def _operands(c):
    d = _dt.as_dtype(c.dtype)
    ops = [LocalTensor(_dt.as_dtype(c.source_dtype), a, 4096) for a in c.srcs]
    if c.scalar is not None:
        ops.append(c.scalar)
    return LocalTensor(d, c.dst, 4096), ops


def call(mod, c, state, p):
    """``c.api`` of ``mod`` (the reference, or ``ascend_jax``) with static Python values."""
    dst, ops = _operands(c)
    args, kw = _tail(c)
    return getattr(mod, c.api)(state, dst, *ops, *args, profile=p, **kw)


def plan(c, state, p, R):
    """The case's ``values`` by ``aj.plan`` (the public API's static checks included)."""
    dst, ops = _operands(c)
    args, kw = _tail(c)
    return aj.plan(c.api, state, dst, *ops, *args, profile=p, max_repeats=R, **kw)[1]


def group_key(c, p, R):
    """The ``aj.run_batched`` key of the case's signature (dtype, or the (src, dst) pair of a mixed row)."""
    d = _dt.as_dtype(c.dtype)
    t = (_dt.as_dtype(c.src_dtype), d) if c.src_dtype else d
    return aj.group_key(SHAPES[c.shape].group, t, R, p)


# -- the engine's adapter ----------------------------------------------------------------------


class CompoundFamily(StridedFamily):
    name = "compound"
    apis = tuple(API_TABLE)
    case_type = CompoundCase
    call_case, plan_case = staticmethod(call), staticmethod(plan)
    count_only_apis = tuple(a for a, row in API_TABLE.items() if row.count_only)

    def trial_case(self, api, dtype):
        sh = SHAPES[API_TABLE[api].shape]
        return plain_case(CompoundCase, api, dtype, sh.nsrc, sh.scalar, strides=sh.default_strides)

    def api_units(self, p, api):
        a = p.api(api)
        out = super().api_units(p, api)
        # the mixed-precision rows (MulAddDst / Axpy: "half->float32"), one unit per form
        for pair in getattr(a, "pairs", ()) if api in ("MulAddDst", "Axpy") else ():
            out += [(api, pair, f) for f in self.forms(p, api, pair.split("->")[1])]
        return out

    def generate(self, rng, p, unit, fault_rate):
        api, dt, form = unit
        if "->" in dt:
            src, dst = dt.split("->")
            return random_case(rng, p, api, dst, form, fault_rate=fault_rate, src_dtype=src)
        return random_case(rng, p, api, dt, form, fault_rate=fault_rate)

    draw_many = staticmethod(random_cases_many)

    dtype_arg, dtype_misuse_fields = "dtype", {"src_dtype": ""}

    def more_misuse(self, case):
        if not API_TABLE[case.api].count_only:
            return []
        # SPEC: AbsSub(ISASI).md has no high-dim prototype: a mask argument is misuse
        sh = SHAPES[case.shape]
        return [
            (
                dataclasses.replace(case, form="continuous", mask=1, repeat=1, strides=sh.default_strides),
                "mask",
            )
        ]

    def signature(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        dt = case.dtype if not case.src_dtype else f"{case.src_dtype}->{case.dtype}"
        return ("compound", case.shape, dt, self.bucket(reps_needed(case, L)))

    def stack_dyn(self, cases, p):
        return self.stack_values(self.plans(cases, p))

    def fast_fn(self, case0, p):
        return self.batched(group_key(case0, p, self.signature(case0, p)[3]))

    def shrink_strides(self, case, p):
        if case.src_dtype:
            L = p.lanes(_dt.as_dtype(case.dtype))
            return mixed_strides(case.shape, max(1, L * _dt.as_dtype(case.src_dtype).itemsize // 32))
        return SHAPES[case.shape].default_strides

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        sd = _dt.as_dtype(case.source_dtype)
        L = p.lanes(d if d.itemsize >= sd.itemsize else sd)
        reps = reps_needed(case, L)
        nblk = max(1, L * d.itemsize // 32)
        sblk = max(1, L * sd.itemsize // 32)
        s = SHAPES[case.shape].default_strides if case.form in COUNT_FORMS else case.strides
        if case.src_dtype and case.form in COUNT_FORMS:
            s = mixed_strides(case.shape, sblk)
        srcs = zip(SRC_NAMES[len(case.srcs)], case.srcs, strict=True)
        return layout_operands(srcs, case.dst, s, reps, d.name, nblk, sd.name, sblk)


__all__ = ["API_TABLE", "SHAPES", "CompoundCase", "CompoundFamily", "Row", "Shape"]
