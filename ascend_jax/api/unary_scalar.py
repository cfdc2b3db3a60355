"""Adds, Muls, Maxs, Mins: ``dst_i = f(src_i, scalarValue)`` (基础算术, "双目标量" APIs).

Prototypes (C++ argument order; ``isSetMask`` is the template argument):
  X(dst, src, scalarValue, count)                              -- tensor前n个数据计算 (level 2)
  X(dst, src, scalarValue, mask[], repeatTime, repeatParams)   -- 高维切分, bitwise mask
  X(dst, src, scalarValue, mask, repeatTime, repeatParams)     -- 高维切分, continuous mask
Each returns the new CoreState. Semantics: docs/MODEL.md; spec pages 基础算术/Adds.md, Muls.md,
Maxs.md, Mins.md and seed 004 (Muls).
"""

import jax.numpy as jnp

from .._engine import elementwise as EW
from .._engine.pipeline import StridedStatic, run_strided
from ..profile import as_profile
from ..registry import ApiSpec, register
from . import _args as A
from . import binary_scalar as _flex
from ._forms import flexible_scalar_call, plan_unary_call

U32 = jnp.uint32
I32 = jnp.int32

_PROTOS = (
    "{name}(dst, src, scalarValue, count)",
    "{name}(dst, src, scalarValue, mask[], repeatTime, repeatParams)",
    "{name}(dst, src, scalarValue, mask, repeatTime, repeatParams)",
    "{name}<T, isSetMask=false>(dst, src, scalarValue, MASK_PLACEHOLDER, repeatTime, repeatParams)",
    "{name}<T0, T1, isSetMask, config>(dst, src0, src1, ...)  -- the 灵活标量位置 overload: {name}Flexible",
)


def plan_unary_scalar(api, state, dst, src, scalar, args, profile, isSetMask, max_repeats):
    """The planner behind ``aj.plan`` for this group: checks the call (static misuse raises here)
    and returns ``(static, dyn)``: ``static`` = (dtype, repeat bucket R, ordered, profile), the API
    name not among them; ``dyn`` every other parameter as traced data, the API code in dyn["op"]."""
    p = as_profile(profile)
    form, R, ordered, dyn = plan_unary_call(
        api, state, dst, src, args, p, isSetMask, max_repeats, int64_lanes=True
    )
    dyn["scalar"] = A.scalar_bits(api, scalar, dst.dtype, p)
    # One program serves all four APIs of a dtype (the API is traced data, dyn["op"]): a compile
    # costs ~1 s on CPU, computing the three unused element functions a few microseconds.
    dyn["op"] = jnp.asarray(API_CODES.index(api), I32)
    return (dst.dtype, R, ordered, p), dyn


def run_planned(static, state, dyn):
    """Runs a call planned by :func:`plan_unary_scalar` (pure, jit- and vmap-compatible)."""
    dtype, R, ordered, p = static
    st = StridedStatic(
        api="*", dtype=dtype, R=R, ordered=ordered, profile=p, elem=_any_elem, api_codes=API_CODES
    )
    return run_strided(st, state, dyn)


def unary_scalar_call(api, op, state, dst, src, scalar, args, profile, isSetMask, max_repeats):
    static, dyn = plan_unary_scalar(api, state, dst, src, scalar, args, profile, isSetMask, max_repeats)
    return run_planned(static, state, dyn)


def run_traced(api, state, dyn, dtype, profile, R):
    """The batched/fuzzing entry: ``dyn`` already holds every parameter as traced data in the
    pipeline's format (kind, dst, src, scalar bits, count, cont, words, repeat, strides,
    bad_param, bad_mask); one compilation per (api, dtype, R)."""
    p = as_profile(profile)
    elem = _any_elem if api == "*" else _ELEM[_OPS[api]]  # "*": dyn["op"] indexes API_CODES
    codes = API_CODES if api == "*" else ()
    st = StridedStatic(api=api, dtype=dtype, R=R, ordered=True, profile=p, elem=elem, api_codes=codes)
    return run_strided(st, state, dyn)


_OPS = {"Adds": "add", "Muls": "mul", "Maxs": "max", "Mins": "min"}
API_CODES = tuple(_OPS)  # op code i <-> API_CODES[i]


def _any_elem(x, s, dtype, profile, ctrl, dyn):
    outs = [EW.scalar_op(_OPS[a], x, s, dtype, profile, ctrl) for a in API_CODES]
    op = dyn["op"]
    r = outs[-1]
    for i in range(len(outs) - 2, -1, -1):
        r = jnp.where(op == i, outs[i], r)
    return r


def _elem(op):
    def f(x, s, dtype, profile, ctrl, dyn=None):
        return EW.scalar_op(op, x, s, dtype, profile, ctrl)

    f.__name__ = f"elem_{op}"
    return f


_ELEM = {op: _elem(op) for op in ("add", "mul", "max", "min")}


def _make(name, op, formula, doc):
    def api(state, dst, src, scalarValue, *args, profile=None, isSetMask=True, max_repeats=None, config=None):
        if flexible_scalar_call(f"{name}Flexible", as_profile(profile), src, scalarValue, config):
            # the same C++ name with a scalar first, a LocalTensor element as the scalar, or a config
            return getattr(_flex, f"{name}Flexible")(
                state,
                dst,
                src,
                scalarValue,
                *args,
                profile=profile,
                isSetMask=isSetMask,
                config=config,
                max_repeats=max_repeats,
            )
        return unary_scalar_call(
            name, op, state, dst, src, scalarValue, args, profile, isSetMask, max_repeats
        )

    api.__name__ = api.__qualname__ = name
    api.__doc__ = f"""``{formula}`` over the active lanes (Ascend C ``AscendC::{name}``).

    Call forms (C++ order): ``{name}(state, dst, src, scalarValue, count)`` or
    ``{name}(state, dst, src, scalarValue, mask, repeatTime, repeatParams)`` with ``mask`` an int
    (continuous), a list of uint64 words low first (bitwise), a traced uint32 word array, or
    ``MASK_PLACEHOLDER`` with ``isSetMask=False``. ``profile``: product (default ascend910b).
    ``max_repeats``: static repeat bucket for traced counts/repeats. A scalar in the ``src``
    position, a LocalTensor as ``scalarValue`` (``src1Local[0]``) or a ``config`` make this the
    灵活标量位置 overload of the same C++ name: :func:`{name}Flexible`. Returns the new CoreState.

    **Spec:** {doc}. Profile keys: ``apis.{name}``, ``numerics.*``, ``behavior.*``.
    """
    spec = ApiSpec(name, "unary_scalar", tuple(pr.format(name=name) for pr in _PROTOS), doc)
    return register(spec)(api)


Adds = _make("Adds", "add", "dst_i = src_i + scalarValue", "memory-vector/基础算术/Adds.md")
Muls = _make("Muls", "mul", "dst_i = src_i * scalarValue", "memory-vector/基础算术/Muls.md, seed 004")
Maxs = _make("Maxs", "max", "dst_i = max(src_i, scalarValue)", "memory-vector/基础算术/Maxs.md")
Mins = _make("Mins", "min", "dst_i = min(src_i, scalarValue)", "memory-vector/基础算术/Mins.md")

__all__ = ["Adds", "Muls", "Maxs", "Mins"]
