"""Fuzz adapter of Mull(ISASI) (基础算术/Mull(ISASI).md; docs/MODEL.md "Mull").

A case is one count-form call ``Mull(dst0, dst1, src0, src1, count)`` (the page's only prototype):
the four addresses (aligned, misaligned, dst0/dst1 overlapping, a source on a destination, outside
UB), the count (0 included) and the registers (Normal or Counter mode). Fast path: the public
``ascend_jax.Mull`` vmapped over traced addresses and count with the repeat bucket ``RB`` static:
one program per dtype. Reference: ``ascend_jax.reference.Mull`` with Python values.
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
    mask_label,
    repeat_regime,
)
from .family import OneApiFamily

API = "Mull"
UB_BYTES = 8192
RB = 4  # count <= RB repeats
NAMES = ("dst0", "dst1", "src0", "src1")


@case_dataclass
class MullCase:
    dtype: str
    dst0: int
    dst1: int
    src0: int
    src1: int
    count: int
    registers: MASK_FIELDS
    api: str = API

    def call_repr(self):
        t = _dt.as_dtype(self.dtype).cpp
        ops = ", ".join(f"{n}@{getattr(self, n)}" for n in NAMES)
        return f"Mull<{t}>({ops}, count={self.count})"


def random_case(rng, p, dtype, fault_rate=0.1):
    d = _dt.as_dtype(dtype)
    L = p.lanes(d)
    a = [int(rng.integers(0, 250)) * 32 for _ in NAMES]
    if rng.random() < fault_rate / 3:
        a[int(rng.integers(4))] += 4  # misaligned
    if rng.random() < 2 * fault_rate:
        a[1] = a[0] + 32 * int(rng.integers(0, 4))  # dst1 on or near dst0
    if rng.random() < fault_rate:
        a[2] = a[0]  # src0 on dst0
    r = _regs.draw(rng, p, L, counter_share=0.3)
    return MullCase(
        d.name,
        *a,
        count=int(rng.integers(0, RB * L + 1)),
        ub_seed=int(rng.integers(0, 2**31)),
        **r.mask_fields(),
    )


def random_cases_many(slots, p, units, fault_rate=0.1):
    """``random_case`` for many cases at once, one a unit ``(api, dtype)`` of ``units``, drawn
    from ``slots`` (``rng.Slots``) in a fixed layout (``families.draw``): the same distribution."""
    n, names, _, L = D.dtype_columns(p, units)
    a = np.stack([D.ints(slots, 0, 250) * 32 for _ in NAMES], 1)
    mis = slots.random() < fault_rate / 3
    k = slots.below(4)
    a[np.arange(n), k] += np.where(mis, 4, 0)  # misaligned
    near = slots.random() < 2 * fault_rate
    a[:, 1] = np.where(near, a[:, 0] + 32 * D.ints(slots, 0, 4), a[:, 1])  # dst1 on or near dst0
    a[:, 2] = np.where(slots.random() < fault_rate, a[:, 0], a[:, 2])  # src0 on dst0
    r = D.draw_many(slots, p, L, counter_share=0.3)
    count = D.ints(slots, 0, RB * L + 1)
    cols = {nm: a[:, j].tolist() for j, nm in enumerate(NAMES)}
    return D.build(
        MullCase,
        n,
        dict(
            dtype=names.tolist(),
            **cols,
            count=count.tolist(),
            ub_seed=slots.below(2**31).tolist(),
            **D.mask_fields(r.vmask, r.mask_mode, r.ctrl),
            api=API,
        ),
    )


def call(mod, c, state, p, dyn=None):
    import ascend_jax as aj

    d = _dt.as_dtype(c.dtype)
    fn, a, extra = call_values(mod, API, c, dyn, RB)
    ts = [aj.LocalTensor(d, a[n], 64) for n in NAMES]
    return fn(state, *ts, a["count"], profile=p, **extra)


class MullFamily(OneApiFamily):
    name = "mull"
    apis = (API,)
    case_type = MullCase
    RB, ub_bytes, traced = RB, UB_BYTES, (*NAMES, "count")
    draw, call_case = staticmethod(random_case), staticmethod(call)
    draw_many = staticmethod(random_cases_many)

    def api_units(self, p, api):
        return [(API, dt) for dt in p.api(API).all_dtypes()]

    def invalid_static(self, rng, p, case):
        return dataclasses.replace(case, count=-1), "count"

    def invalid_data(self, rng, p, case):
        rep = dataclasses.replace
        c = max(1, case.count)
        opts = [
            (rep(case, dst1=case.dst1 + 2, count=c), "misaligned dst1"),
            (rep(case, src1=UB_BYTES - 32, count=max(c, 64)), "src1 outside UB"),
            (rep(case, src0=case.dst0 + 32, count=max(c, 64)), "src0 partly on dst0"),
        ]
        return opts[int(rng.integers(len(opts)))]

    def labels(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        return (
            mask_label("count", case.mask_mode, None, L),
            repeat_regime(-(-case.count // L), p),
            "default",
        )

    def shrink(self, case, p):
        return [dataclasses.replace(case, count=case.count // 2)] if case.count > 1 else []
