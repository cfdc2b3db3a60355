"""Add, Sub, Mul, Div, Max, Min (基础算术/) and And, Or (逻辑计算/): ``dst_i = f(src0_i, src1_i)``
on two strided tensor sources (``BinaryRepeatParams``).

Prototypes (C++ argument order; ``isSetMask`` is the template argument):
  X(dst, src0, src1, count)                              -- tensor前n个数据计算
  X(dst, src0, src1, mask[], repeatTime, repeatParams)   -- 高维切分, bitwise mask
  X(dst, src0, src1, mask, repeatTime, repeatParams)     -- 高维切分, continuous mask
  X<T, false>(dst, src0, src1, MASK_PLACEHOLDER, repeatTime, repeatParams) and the count form with
  isSetMask=false (the vector-mask registers decide the lanes)
Each returns the new CoreState. Element semantics: ``_engine/elem_math.py``; docs/MODEL.md.

One program per (dtype, repeat bucket) serves all eight APIs and every call form: the API is traced
data (``dyn["op"]``), the call form too (``dyn["kind"]``).
"""

import functools

import jax
import jax.numpy as jnp

from .._engine import elem_math as EM
from .._engine.pipeline import StridedStatic, run_strided, set_extents
from ..errors import NotModelledError, UsageError
from ..params import AnyForm
from ..profile import as_profile
from ..registry import ApiSpec, register
from . import _args as A
from ._forms import empty_dyn, plan_forms

I32 = jnp.int32
U32 = jnp.uint32

API_CODES = ("Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or")  # op code i <-> API_CODES[i]

_PROTOS = (
    "{name}(dst, src0, src1, count)",
    "{name}(dst, src0, src1, mask[], repeatTime, repeatParams)",
    "{name}(dst, src0, src1, mask, repeatTime, repeatParams)",
    "{name}<T, isSetMask=false>(dst, src0, src1, MASK_PLACEHOLDER, repeatTime, repeatParams)",
)


def _lane_shape(dtype):
    return (1, 2, 2) if dtype.itemsize == 8 else (1, 2)


@functools.cache
def modelled(api, dtype, profile):
    """Whether the fast path has ``api``'s element function for ``dtype`` (an abstract trace)."""
    x = jax.ShapeDtypeStruct(_lane_shape(dtype), U32)
    ctrl = jax.ShapeDtypeStruct((2,), U32)
    try:
        jax.eval_shape(lambda a, b, c: EM.BINARY[api](a, b, dtype, profile, c), x, x, ctrl)
    except NotModelledError:
        return False
    return True


def _codes(dtype, profile):
    """The APIs of this family the product documents for ``dtype`` and the fast path models."""
    out = []
    for i, api in enumerate(API_CODES):
        a = profile.api(api)
        if a.supported and dtype.name in a.all_dtypes() and modelled(api, dtype, profile):
            out.append((i, api))
    return tuple(out)


def any_elem(x, y, s, dtype, profile, ctrl, dyn):
    """The element function of the family: ``dyn["op"]`` selects the API."""
    r = None
    for i, api in _codes(dtype, profile):
        v = EM.BINARY[api](x, y, dtype, profile, ctrl)
        r = v if r is None else jnp.where(dyn["op"] == i, v, r)
    return r


def plan_binary_call(api, state, dst, src0, src1, args, p, isSetMask, max_repeats):
    """The call forms of a two-source API as (R, ordered, dyn); static misuse raises UsageError."""
    for name, t in (("dst", dst), ("src0", src0), ("src1", src1)):
        A.check_tensor(api, name, t, p)
    if not isinstance(isSetMask, bool):  # a C++ bool template argument (1 is not converted)
        raise UsageError(api, "isSetMask", isSetMask, "True or False", p)
    if len(args) not in (1, 3):
        raise TypeError(
            f"{api}() takes (dst, src0, src1, count) or (dst, src0, src1, mask, repeatTime, repeatParams); "
            f"got {3 + len(args)} arguments"
        )
    dt = dst.dtype
    p.require_api(api, dt, count_form=len(args) == 1 and not isinstance(args[0], AnyForm))
    A.check_same_dtype(api, p, dst=dst, src0=src0, src1=src1)
    A.check_modelled(api, dt, p, wide_lanes=True)
    if not modelled(api, dt, p):
        raise NotModelledError(f"{api}: {dt.name} has no fast-path element function yet")
    dyn = empty_dyn("dst", "src0", "src1")
    dyn["dst"], dyn["src0"], dyn["src1"] = A.addr_of(dst), A.addr_of(src0), A.addr_of(src1)
    set_extents(dyn, dst=dst, src0=src0, src1=src1)  # checker warnings
    _, R, ordered = plan_forms(api, state, dt, args, p, isSetMask, max_repeats, dyn, binary=True)
    return R, ordered, dyn


def plan(api, state, dst, src0, src1, args, profile, isSetMask, max_repeats):
    """(StridedStatic, dyn) of one call: the compile key and its traced data."""
    p = as_profile(profile)
    R, ordered, dyn = plan_binary_call(api, state, dst, src0, src1, args, p, isSetMask, max_repeats)
    dyn["op"] = jnp.asarray(API_CODES.index(api), I32)
    return _strided((dst.dtype, R, ordered, p)), dyn


def _strided(static):
    dtype, R, ordered, p = static
    return StridedStatic(
        api="*",
        dtype=dtype,
        R=R,
        ordered=ordered,
        profile=p,
        elem=any_elem,
        srcs=("src0", "src1"),
        api_codes=API_CODES,
    )


def plan_binary(api, state, dst, src0, src1, *args, profile=None, isSetMask=True, max_repeats=None):
    """The planner behind ``aj.plan`` for this group: ``(static, dyn)`` with ``static`` = (dtype,
    repeat bucket R, ordered, profile), the API not among them (traced, dyn["op"])."""
    st, dyn = plan(api, state, dst, src0, src1, args, profile, isSetMask, max_repeats)
    return (st.dtype, st.R, st.ordered, st.profile), dyn


def run_planned(static, state, dyn):
    """Runs a call planned by :func:`plan_binary` (pure, jit- and vmap-compatible)."""
    return run_strided(_strided(static), state, dyn)


def binary_call(api, state, dst, src0, src1, args, profile, isSetMask, max_repeats):
    st, dyn = plan(api, state, dst, src0, src1, args, profile, isSetMask, max_repeats)
    return run_strided(st, state, dyn)


def _make(name, formula, doc):
    def api(state, dst, src0, src1, *args, profile=None, isSetMask=True, max_repeats=None):
        return binary_call(name, state, dst, src0, src1, args, profile, isSetMask, max_repeats)

    api.__name__ = api.__qualname__ = name
    api.__doc__ = f"""``{formula}`` over the active lanes (Ascend C ``AscendC::{name}``).

    Call forms (C++ order): ``{name}(state, dst, src0, src1, count)`` or
    ``{name}(state, dst, src0, src1, mask, repeatTime, repeatParams)`` with ``mask`` an int
    (continuous), a list of uint64 words low first (bitwise), a traced uint32 word array, or
    ``MASK_PLACEHOLDER`` with ``isSetMask=False``; ``repeatParams`` a ``BinaryRepeatParams``.
    ``profile``: product (default ascend910b). ``max_repeats``: static repeat bucket for traced
    counts/repeats. Returns the new CoreState.

    **Spec:** {doc}. Profile keys: ``apis.{name}``, ``numerics.*``, ``behavior.*``.
    """
    spec = ApiSpec(name, "binary", tuple(pr.format(name=name) for pr in _PROTOS), doc)
    return register(spec)(api)


Add = _make("Add", "dst_i = src0_i + src1_i", "memory-vector/基础算术/Add.md")
Sub = _make("Sub", "dst_i = src0_i - src1_i", "memory-vector/基础算术/Sub.md")
Mul = _make("Mul", "dst_i = src0_i * src1_i", "memory-vector/基础算术/Mul.md")
Div = _make("Div", "dst_i = src0_i / src1_i", "memory-vector/基础算术/Div.md")
Max = _make("Max", "dst_i = max(src0_i, src1_i)", "memory-vector/基础算术/Max.md")
Min = _make("Min", "dst_i = min(src0_i, src1_i)", "memory-vector/基础算术/Min.md")
And = _make("And", "dst_i = src0_i & src1_i", "memory-vector/逻辑计算/And.md")
Or = _make("Or", "dst_i = src0_i | src1_i", "memory-vector/逻辑计算/Or.md")

__all__ = list(API_CODES)
