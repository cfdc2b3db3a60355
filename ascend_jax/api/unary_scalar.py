"""Adds, Muls, Maxs, Mins: ``dst_i = f(src_i, scalarValue)`` (基础算术, "双目标量" APIs).

Prototypes (C++ argument order; ``isSetMask`` is the template argument):
  X(dst, src, scalarValue, count)                              -- tensor前n个数据计算 (level 2)
  X(dst, src, scalarValue, mask[], repeatTime, repeatParams)   -- 高维切分, bitwise mask
  X(dst, src, scalarValue, mask, repeatTime, repeatParams)     -- 高维切分, continuous mask
Each returns the new CoreState. Semantics: docs/MODEL.md; spec pages 基础算术/Adds.md, Muls.md,
Maxs.md, Mins.md and seed 004 (Muls).
"""

import math

import jax
import jax.numpy as jnp
import numpy as np

from .._engine import elementwise as EW
from .._engine import memory as MEM
from .._engine import pipeline as PL
from .._engine.pipeline import UnaryStatic, run_unary
from ..errors import UsageError
from ..params import UnaryRepeatParams, as_unary_params
from ..profile import as_profile
from ..registry import ApiSpec, register
from . import _args as A

U32 = jnp.uint32
I32 = jnp.int32

_PROTOS = (
    "{name}(dst, src, scalarValue, count)",
    "{name}(dst, src, scalarValue, mask[], repeatTime, repeatParams)",
    "{name}(dst, src, scalarValue, mask, repeatTime, repeatParams)",
    "{name}<T, isSetMask=false>(dst, src, scalarValue, MASK_PLACEHOLDER, repeatTime, repeatParams)",
)


def _default_big_bucket(p):
    return A.bucket(math.ceil(p.ub_usable_bytes / p.repeat_bytes))


def _state_concrete(state):
    return A.is_concrete_array(state.vmask) and A.is_concrete_array(state.mask_mode) and state.fault.ndim == 0


def _reg_count_repeats(state, L):
    w = np.asarray(state.vmask)
    cnt = int(w[0]) | (int(w[1]) << 32)
    return max(1, math.ceil(cnt / L))


def plan_unary_call(api, state, dst, src, args, p, isSetMask, max_repeats, int64_lanes=False):
    """Parse the three call forms of a ``dst = f(src, ...)`` API (count; high-dim with a mask;
    high-dim with MASK_PLACEHOLDER) into the pipeline's traced ``dyn`` fields and static choices.

    Shared by every family that runs on ``run_unary`` (scalar arithmetic, shifts). Static misuse
    raises here; traced values out of range become ``bad_param`` / ``bad_mask``. Returns
    ``(form, R, merge, dyn)``; the caller adds its own ``scalar`` (and ``op``) entries.
    """
    A.check_tensor(api, "dst", dst, p)
    A.check_tensor(api, "src", src, p)
    if not isinstance(isSetMask, bool):  # a C++ bool template argument (1 is not converted)
        raise UsageError(api, "isSetMask", isSetMask, "True or False", p)
    A.check_same_dtype(api, p, dst=dst, src=src)
    dt = dst.dtype
    if len(args) == 1:
        form = "count"
    elif len(args) == 3:
        form = "highdim"
    else:
        raise TypeError(
            f"{api}() takes (dst, src, scalarValue, count) or "
            f"(dst, src, scalarValue, mask, repeatTime, repeatParams); got {3 + len(args)} arguments"
        )
    p.require_api(api, dt, count_form=(form == "count"))
    A.check_modelled(api, dt, p, int64_lanes=int64_lanes)
    L = p.lanes(dt)
    bad = jnp.zeros((), bool)
    bad_mask = jnp.zeros((), bool)
    dyn = {"dst": A.addr_of(dst), "src": A.addr_of(src)}
    concrete = _state_concrete(state)
    static_counter = concrete and int(state.mask_mode) == 1
    if form == "count":
        (count,) = args
        max_count = p.ub_usable_bytes // dt.itemsize
        count = A.static_int(api, "count", count, 0, max_count, p, "count must fit in the usable UB")
        bad = bad | A.traced_range_bad(count, 0, max_count)
        use_reg = (not isSetMask) and p.level2_is_set_mask == "honoured"
        if use_reg:
            kind = PL.KIND_COUNT_REGISTER
            if max_repeats is not None:
                R = A.bucket(max_repeats)
            elif concrete:
                R = A.bucket(_reg_count_repeats(state, L)) if static_counter else 1
            else:
                R = _default_big_bucket(p)
        else:
            kind = PL.KIND_COUNT
            if isinstance(count, int):
                R = A.bucket(max_repeats if max_repeats is not None else math.ceil(count / L))
            else:
                R = A.bucket(max_repeats) if max_repeats is not None else _default_big_bucket(p)
            c = jnp.asarray(count)
            dyn["count"] = jnp.stack([jnp.maximum(c, 0).astype(U32), jnp.zeros((), U32)])
        params = UnaryRepeatParams()
        dyn["repeat"] = jnp.ones((), I32)
    else:
        mask, repeat, params = args
        params = as_unary_params(params)
        repeat = A.static_int(api, "repeatTime", repeat, 0, p.max_repeat_times, p)
        bad = bad | A.traced_range_bad(repeat, 0, p.max_repeat_times)
        m = A.parse_mask(api, mask, dt, p, isSetMask)
        if m.kind != "register" and m.static_zero and p.zero_mask == "error":
            raise UsageError(
                api, "mask", mask, "a non-zero mask", p, "this product rejects a zero mask in Normal mode"
            )
        if m.traced_bad is not None:
            bad_mask = bad_mask | m.traced_bad
        kinds = {"continuous": PL.KIND_CONTINUOUS, "bitwise": PL.KIND_BITWISE, "register": PL.KIND_REGISTER}
        kind = kinds[m.kind]
        dyn["repeat"] = jnp.asarray(repeat, I32)
        if m.cont is not None:
            dyn["cont"] = m.cont
        if m.words is not None:
            dyn["words"] = m.words
        if max_repeats is not None:
            R = A.bucket(max_repeats)
        elif static_counter:
            if kind == PL.KIND_REGISTER:
                R = A.bucket(_reg_count_repeats(state, L))
            elif isinstance(mask, (list, tuple)) and all(A.is_static(x) for x in mask):
                R = A.bucket(math.ceil(int(mask[0]) / L))
            elif A.is_static(mask):
                R = A.bucket(math.ceil(int(mask) / L))
            else:
                R = _default_big_bucket(p)
        else:
            R = A.bucket(repeat) if isinstance(repeat, int) else A.bucket(p.max_repeat_times)
    for f, hi in UnaryRepeatParams._RANGES.items():
        v = getattr(params, f)
        A.static_int(api, f"repeatParams.{f}", v, 0, hi, p)
        bad = bad | A.traced_range_bad(v, 0, hi)
    names = ("dstBlkStride", "srcBlkStride", "dstRepStride", "srcRepStride")
    dyn["strides"] = jnp.stack([jnp.asarray(getattr(params, f), I32) for f in names])
    dyn["kind"] = jnp.asarray(kind, I32)
    dyn.setdefault("count", jnp.zeros((2,), U32))
    dyn.setdefault("cont", jnp.zeros((2,), U32))
    dyn.setdefault("words", jnp.zeros((8,), U32))
    dyn["bad_param"] = bad
    dyn["bad_mask"] = bad_mask
    # a count beyond the UB is a fault (out of UB, or a bad mask above 2**32-1), never a reason to
    # build a bigger program
    R = min(R, _default_big_bucket(p))
    merge = (
        MEM.collisions_possible(params.dstRepStride, params.dstBlkStride, R) if form == "highdim" else "none"
    )
    return form, R, merge, dyn


def unary_scalar_call(api, op, state, dst, src, scalar, args, profile, isSetMask, max_repeats):
    p = as_profile(profile)
    form, R, merge, dyn = plan_unary_call(
        api, state, dst, src, args, p, isSetMask, max_repeats, int64_lanes=True
    )
    dyn["scalar"] = A.scalar_bits(api, scalar, dst.dtype, p)
    # One program serves all four APIs of a dtype (the API is traced data, dyn["op"]): a compile
    # costs ~1 s on CPU, computing the three unused element functions a few microseconds.
    dyn["op"] = jnp.asarray(API_CODES.index(api), I32)
    st = UnaryStatic(
        api="*", dtype=dst.dtype, R=R, merge=merge, profile=p, elem=_any_elem, api_codes=API_CODES
    )
    return run_unary(st, state, dyn)


def run_traced(api, state, dyn, dtype, profile, R):
    """The batched/fuzzing entry: ``dyn`` already holds every parameter as traced data in the
    pipeline's format (kind, dst, src, scalar bits, count, cont, words, repeat, strides,
    bad_param, bad_mask); one compilation per (api, dtype, R)."""
    p = as_profile(profile)
    if api == "*":  # the API itself is traced: dyn["op"] indexes API_CODES
        st = UnaryStatic(
            api="*", dtype=dtype, R=R, merge="traced", profile=p, elem=_any_elem, api_codes=API_CODES
        )
    else:
        st = UnaryStatic(api=api, dtype=dtype, R=R, merge="traced", profile=p, elem=_ELEM[_OPS[api]])
    return run_unary(st, state, dyn)


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
    def api(state, dst, src, scalarValue, *args, profile=None, isSetMask=True, max_repeats=None):
        return unary_scalar_call(
            name, op, state, dst, src, scalarValue, args, profile, isSetMask, max_repeats
        )

    api.__name__ = api.__qualname__ = name
    api.__doc__ = f"""``{formula}`` over the active lanes (Ascend C ``AscendC::{name}``).

    Call forms (C++ order): ``{name}(state, dst, src, scalarValue, count)`` or
    ``{name}(state, dst, src, scalarValue, mask, repeatTime, repeatParams)`` with ``mask`` an int
    (continuous), a list of uint64 words low first (bitwise), a traced uint32 word array, or
    ``MASK_PLACEHOLDER`` with ``isSetMask=False``. ``profile``: product (default ascend910b).
    ``max_repeats``: static repeat bucket for traced counts/repeats. Returns the new CoreState.

    **Spec:** {doc}. Profile keys: ``apis.{name}``, ``numerics.*``, ``behavior.*``.
    """
    spec = ApiSpec(name, "unary_scalar", tuple(pr.format(name=name) for pr in _PROTOS), doc)
    return register(spec)(api)


Adds = _make("Adds", "add", "dst_i = src_i + scalarValue", "memory-vector/基础算术/Adds.md")
Muls = _make("Muls", "mul", "dst_i = src_i * scalarValue", "memory-vector/基础算术/Muls.md, seed 004")
Maxs = _make("Maxs", "max", "dst_i = max(src_i, scalarValue)", "memory-vector/基础算术/Maxs.md")
Mins = _make("Mins", "min", "dst_i = min(src_i, scalarValue)", "memory-vector/基础算术/Mins.md")

__all__ = ["Adds", "Muls", "Maxs", "Mins"]
del jax
