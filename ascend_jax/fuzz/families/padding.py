"""Random cases for VectorPadding(ISASI) (数据填充/VectorPadding(ISASI).md; 310P AI Core only), run
through the fast path and the NumPy reference and compared on the whole UB, the registers and the
fault word.

A case is an element-wise unary case (``elementwise.random_case``'s generator: registers, Normal /
Counter mode, call form, addresses, strides, repeat counts, UB data) plus ``padMode`` / ``padSide``.
Fast path: the public ``ascend_jax.VectorPadding`` vmapped over traced values -- addresses, the call
form as an ``AnyForm`` (count / continuous / bitwise / MASK_PLACEHOLDER, mask words, repeatTime,
strides) and padMode / padSide -- so one program per (dtype, repeat bucket, isSetMask of the count
form) serves every case (no api-internal import). Reference: ``ascend_jax.reference.VectorPadding``
with static Python values.
"""

import dataclasses

import numpy as np

from ... import dtypes as _dt
from ...params import AnyForm, UnaryRepeatParams
from ...tensor import LocalTensor
from . import draw as D
from . import elementwise as EW
from .base import (
    MASK_FIELDS,
    STRIDED_FORMS,
    UB_FIELDS,
    case_dataclass,
    form_code,
    profile_forms,
)
from .family import Family

API = "VectorPadding"


@case_dataclass
class PadCase:
    """``elementwise.EwCase``'s fields (one source, no scalar) plus the padding choice."""

    api: str
    dtype: str
    form: str
    dst: int
    srcs: tuple = ()
    scalar: object = None
    position: str = "after"
    elem: int = 0
    count: int = 0
    mask: object = None
    repeat: int = 0
    strides: tuple = ()
    registers: MASK_FIELDS
    ub: UB_FIELDS
    padMode: int = 0
    padSide: bool = False

    @property
    def kind(self):
        return "unary"  # the strided one-source shape (UnaryRepeatParams)

    def call_repr(self):
        head = EW.EwCase.call_repr(self)
        src = f"src@{self.srcs[0]}"
        return head.replace(src, f"{src}, padMode={self.padMode}, padSide={str(self.padSide).lower()}", 1)


def random_case(rng, p, dtype, form, fault_rate=0.1):
    # the element-wise generator's unary shape (Abs: one source, no scalar), renamed
    c = EW.random_case(rng, p, "Abs", dtype, form, fault_rate=fault_rate)
    fields = {f.name: getattr(c, f.name) for f in dataclasses.fields(c)}
    fields["api"] = API
    return PadCase(**fields, padMode=int(rng.integers(0, 3)), padSide=bool(rng.random() < 0.5))


def random_cases_many(slots, p, units, fault_rate=0.1):
    """``random_case`` for many cases at once (units ``(api, dtype, form)``): the element-wise
    generator's columns for Abs, then padMode and padSide (a fixed layout)."""
    cols = EW.random_columns_many(slots, p, [("Abs", dt, f) for _, dt, f in units], fault_rate)
    cols["api"] = API
    cols["padMode"] = slots.below(3).tolist()
    cols["padSide"] = (slots.random() < 0.5).tolist()
    return D.build(PadCase, len(units), cols)


def call(mod, c, state, p, dyn=None, R=None):
    """``mod.VectorPadding`` on the case: static Python values, or (``dyn``) one case's traced row."""
    d = _dt.as_dtype(c.dtype)
    if dyn is None:
        args, is_set = EW._tail(c)
        dst, src = LocalTensor(d, c.dst, 4096), LocalTensor(d, c.srcs[0], 4096)
        return mod.VectorPadding(state, dst, src, c.padMode, c.padSide, *args, profile=p, isSetMask=is_set)
    dst, src = LocalTensor(d, dyn["dst"], 4096), LocalTensor(d, dyn["src"], 4096)
    s = dyn["strides"]
    form = AnyForm(
        dyn["form"],
        dyn["count"],
        dyn["mask"],
        dyn["words"],
        dyn["repeat"],
        UnaryRepeatParams(s[0], s[1], s[2], s[3]),
    )
    return mod.VectorPadding(
        state,
        dst,
        src,
        dyn["padMode"],
        dyn["padSide"],
        form,
        profile=p,
        isSetMask=c.form != "count_register",
        max_repeats=R,
    )


class VectorPaddingFamily(EW.ElementwiseFamily):
    name = "padding"
    apis = (API,)
    case_type = PadCase
    run_batch = 128

    def forms(self, p, api, dt):
        return profile_forms(p, STRIDED_FORMS)

    def api_units(self, p, api):
        a = p.api(api)
        return [(api, dt, f) for dt in a.all_dtypes() for f in self.forms(p, api, dt)]

    def generate(self, rng, p, unit, fault_rate):
        _, dt, form = unit
        return random_case(rng, p, dt, form, fault_rate=fault_rate)

    def generate_many(self, slots, p, units, fault_rate):
        return random_cases_many(slots, p, units, fault_rate)

    def invalid_static(self, rng, p, case):
        if rng.random() < 0.3:
            return dataclasses.replace(case, padMode=int(rng.choice([3, 4, 255]))), "padMode"
        return super().invalid_static(rng, p, case)

    def signature(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        return ("padding", case.dtype, self.bucket(EW.reps_needed(case, L)), case.form == "count_register")

    def stack_dyn(self, cases, p):
        rows = []
        for c in cases:
            words = np.zeros(8, np.uint32)
            if c.form == "bitwise":
                for i, w in enumerate(c.mask):
                    words[2 * i], words[2 * i + 1] = w & 0xFFFFFFFF, w >> 32
            count_form = c.form in ("count", "count_register")
            rows.append(
                {
                    "dst": np.int32(c.dst),
                    "src": np.int32(c.srcs[0]),
                    "form": np.int32(form_code(c.form)),
                    "count": np.int32(c.count),
                    "mask": np.int32(c.mask if c.form == "continuous" else 0),
                    "words": words,
                    "repeat": np.int32(1 if count_form else c.repeat),
                    "strides": np.array((1, 1, 8, 8) if count_form else c.strides, np.int32),
                    "padMode": np.int32(c.padMode),
                    "padSide": np.int32(c.padSide),
                }
            )
        return {k: np.stack([r[k] for r in rows]) for k in rows[0]}

    def fast_fn(self, case0, p):
        return Family.fast_fn(self, case0, p)  # the public API vmapped (not the elementwise planner)

    def call(self, mod, case, state, p, dyn=None):
        R = None if dyn is None else self.signature(case, p)[2]
        return call(mod, case, state, p, dyn, R), None

    def reference(self, case, p, mod, state):
        return call(mod, case, state, p), None

    def call_static(self, mod, case, state, p):
        return call(mod, case, state, p), None


__all__ = ["PadCase", "VectorPaddingFamily"]
