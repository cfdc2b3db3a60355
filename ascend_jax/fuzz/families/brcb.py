"""Fuzz adapter of Brcb (数据填充/Brcb.md; docs/MODEL.md "Brcb").

A case is one call: dst and src addresses (aligned, misaligned, overlapping, outside UB), repeatTime
(0 included) and ``BrcbRepeatParams(dstBlkStride, dstRepStride)`` (0 included), registers on entry
(Brcb has no mask: they must come out unchanged). Fast path: the public ``ascend_jax.Brcb`` vmapped
over traced addresses, repeatTime and strides with the repeat bucket ``RB`` static: one program per
dtype. Reference: ``ascend_jax.reference.Brcb`` with Python values.
"""

import dataclasses

import numpy as np

from ... import dtypes as _dt
from .. import regs as _regs
from . import draw as D
from .base import (
    MASK_FIELDS,
    call_values,
    case_dataclass,
    repeat_regime,
    strided_operand,
)
from .family import OneApiFamily

API = "Brcb"
UB_BYTES = 8192
RB = 4  # repeatTime <= RB


@case_dataclass
class BrcbCase:
    dtype: str
    dst: int
    src: int
    repeat: int
    blk: int
    rep: int
    registers: MASK_FIELDS
    api: str = API

    def call_repr(self):
        t = _dt.as_dtype(self.dtype).cpp
        return (
            f"Brcb<{t}>(dst@{self.dst}, src@{self.src}, repeatTime={self.repeat}, "
            f"{{dstBlkStride={self.blk}, dstRepStride={self.rep}}})"
        )


def random_case(rng, p, dtype, fault_rate=0.1):
    d = _dt.as_dtype(dtype)
    dst = int(rng.integers(0, 256)) * 32
    if rng.random() < fault_rate and d.itemsize < 32:
        dst += d.itemsize  # misaligned
    src = dst if rng.random() < fault_rate / 2 else int(rng.integers(0, 256)) * 32
    r = _regs.draw(rng, p, p.lanes(d))
    return BrcbCase(
        dtype=d.name,
        dst=dst,
        src=src,
        repeat=int(rng.integers(0, RB + 1)),
        blk=int(rng.choice([0, 1, 1, 2, 3])),
        rep=int(rng.integers(0, 20)),
        ub_seed=int(rng.integers(0, 2**31)),
        **r.mask_fields(),
    )


def random_cases_many(slots, p, units, fault_rate=0.1):
    """``random_case`` for many cases at once, one a unit ``(api, dtype)`` of ``units``, drawn
    from ``slots`` (``rng.Slots``) in a fixed layout (``families.draw``): the same distribution."""
    n, names, size, L = D.dtype_columns(p, units)
    dst = D.ints(slots, 0, 256) * 32
    dst = np.where((slots.random() < fault_rate) & (size < 32), dst + size, dst)  # misaligned
    same = slots.random() < fault_rate / 2
    src = np.where(same, dst, D.ints(slots, 0, 256) * 32)
    r = D.draw_many(slots, p, L)
    return D.build(
        BrcbCase,
        n,
        dict(
            dtype=names.tolist(),
            dst=dst.tolist(),
            src=src.tolist(),
            repeat=D.ints(slots, 0, RB + 1).tolist(),
            blk=D.choose(slots, [0, 1, 1, 2, 3]).tolist(),
            rep=D.ints(slots, 0, 20).tolist(),
            ub_seed=slots.below(2**31).tolist(),
            **D.mask_fields(r.vmask, r.mask_mode, r.ctrl),
            api=API,
        ),
    )


def call(mod, c, state, p, dyn=None):
    import ascend_jax as aj

    d = _dt.as_dtype(c.dtype)
    fn, a, extra = call_values(mod, API, c, dyn, RB)
    dst, src = aj.LocalTensor(d, a["dst"], 64), aj.LocalTensor(d, a["src"], 64)
    return fn(state, dst, src, a["repeat"], (a["blk"], a["rep"]), profile=p, **extra)


class BrcbFamily(OneApiFamily):
    name = "brcb"
    apis = (API,)
    case_type = BrcbCase
    RB, ub_bytes, traced = RB, UB_BYTES, ("dst", "src", "repeat", "blk", "rep")
    draw, call_case = staticmethod(random_case), staticmethod(call)
    draw_many = staticmethod(random_cases_many)

    def api_units(self, p, api):
        return [(API, dt) for dt in p.api(API).dtypes]

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        opts = [
            (rep(case, repeat=256), "repeatTime"),
            (rep(case, blk=-1), "repeatParams.dstBlkStride"),
        ]
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        rep = dataclasses.replace
        opts = [
            (rep(case, dst=case.dst + 16, repeat=max(1, case.repeat)), "misaligned dst"),
            (rep(case, src=UB_BYTES - 8, repeat=RB), "src outside UB"),
            (rep(case, blk=0, repeat=max(1, case.repeat)), "dstBlkStride 0"),
            (rep(case, src=case.dst + 32, blk=1, rep=8, repeat=max(1, case.repeat)), "src inside dst"),
        ]
        return opts[int(rng.integers(len(opts)))]

    def labels(self, case, p):
        return (
            "none",
            repeat_regime(case.repeat, p),
            "zero" if case.blk == 0 or case.rep == 0 else "default",
        )

    def shrink(self, case, p):
        return [dataclasses.replace(case, repeat=1)] if case.repeat > 1 else []

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        n = max(1, case.repeat)
        return [
            strided_operand("src", case.src, d.name, 1, 1, 1, -(-8 * n * d.itemsize // 32), "in"),
            strided_operand("dst", case.dst, d.name, case.blk, case.rep, 8, n, "inout"),
        ]
