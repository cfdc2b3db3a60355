"""The public planned-call interface: ``aj.plan`` / ``aj.run`` / ``aj.run_batched`` (issue 36).

``plan(api, state, *args, profile=None, max_repeats=None, **kwargs) -> (key, values)`` checks a call
exactly as the public API does (static misuse raises the same ``UsageError`` here) and splits it into
a hashable static ``key`` and ``values``, a pytree of arrays (addresses, counts, masks, strides,
scalar bits, and the API code where one engine core serves a group of APIs). ``run(key, state,
values) -> state`` is pure: it may be jitted and vmapped over ``(state, values)``, and
``run(key, *plan(...)[1:])`` equals the direct call bit for bit. Where a group of APIs shares one core
the key does not name the API: sweeping several APIs of a group over one dtype and call-form bucket
compiles one program. Docs: docs/PLAN_RUN.md.

Groups with a planner so far: the unary-scalar APIs (Adds, Muls, Maxs, Mins); the element-wise groups
"binary" (Add ... Or), "binary_scalar" (Subs, Divs, Ands, Ors, AddsFlexible ...), "unary" (Abs ...
LeakyRelu; float32 Exp / Ln / Rsqrt each a program of its own) and "fill" (Duplicate,
CreateVecIndex); "compound" (AddRelu, SubRelu, AbsSub, FusedMulAdd, MulAddRelu, MulAddDst, Prelu),
"axpy" (Axpy), "exp_sub" (ExpSub); "cast" (Cast; the round mode traced); the reduce APIs
(ReduceRepeat, ReduceDataBlock, ReducePairElem, ReduceSum, ReduceMax, ReduceMin: one core per API
and reduceType / order / calIndex, so their key names the API). Other APIs raise ``UsageError``
naming ``plan``'s argument ``api`` and the allowed values.
"""

import dataclasses
import functools

import jax
import numpy as np

from .. import _compile
from .._engine import lanes as _lanes
from ..errors import UsageError
from . import _args as _A
from . import binary as _bin
from . import binary_scalar as _bs
from . import cast as _cast
from . import compound as _cp
from . import fill as _fill
from . import reduce as _red
from . import unary as _un
from . import unary_scalar as _us


@dataclasses.dataclass(frozen=True)
class PlanKey:
    """The static half of a planned call: the API group and the group's static choices (dtype,
    repeat bucket, ...; hashable). Two calls with equal keys run in one compiled program."""

    group: str
    static: tuple


def _plan_unary_scalar(
    api, state, dst, src, scalarValue, *args, profile=None, isSetMask=True, max_repeats=None
):
    return _us.plan_unary_scalar(api, state, dst, src, scalarValue, args, profile, isSetMask, max_repeats)


# API name -> group; group -> (planner, runner). The planners are the API modules' own.
_GROUPS = {
    "unary_scalar": (_plan_unary_scalar, _us.run_planned),
    "binary": (_bin.plan_binary, _bin.run_planned),
    "binary_scalar": (_bs.plan_binary_scalar, _bs.run_planned),
    "unary": (_un.plan_unary, _un.run_planned),
    "fill": (_fill.plan_fill, _fill.run_planned),
    "compound": (_cp.plan_planned, _cp.run_planned),
    "axpy": (_cp.plan_planned_axpy, _cp.run_planned_axpy),
    "exp_sub": (_cp.plan_planned_exp_sub, _cp.run_planned_exp_sub),
    "cast": (_cast.plan_planned, _cast.run_planned),
    "reduce": (_red.plan_reduce, _red.run_planned),
}
_API_GROUP = {
    name: group
    for group, names in (
        ("unary_scalar", _us.API_CODES),
        ("binary", _bin.API_CODES),
        ("binary_scalar", _bs.API_CODES),
        ("unary", _un.API_CODES),
        ("fill", _fill.API_CODES),
        ("compound", _cp.API_CODES),
        ("axpy", ("Axpy",)),
        ("exp_sub", ("ExpSub",)),
        ("cast", ("Cast",)),
        ("reduce", _red.API_NAMES),
    )
    for name in names
}


# The traced values' codes, for callers that build stacked ``values`` of many cases themselves (the
# fuzz families): the APIs of a group in API-code order (values["op"] indexes it) and the call forms
# (values["kind"]).
GROUP_APIS = {
    "unary_scalar": tuple(_us.API_CODES),
    "compound": tuple(_cp.API_CODES),
    "axpy": ("Axpy",),
    "exp_sub": ("ExpSub",),
    "cast": ("Cast",),
    "binary": tuple(_bin.API_CODES),
    "binary_scalar": tuple(_bs.API_CODES),
    "unary": tuple(_un.API_CODES),
    "fill": tuple(_fill.API_CODES),
}
# group -> f(api, dtype): the key's static choices after (dtype, R, ordered, profile), for groups
# that have more (group_key's ``api``)
_KEY_EXTRA = {
    "unary": lambda api, dtype: (_un.program_key(api, dtype),),  # "*" or an API of its own program
    "fill": lambda api, dtype: (False,),  # the value a host scalar (not read from a tensor)
}
FORM_CODES = {
    "count": _lanes.KIND_COUNT,  # count form, isSetMask=True
    "count_register": _lanes.KIND_COUNT_REGISTER,  # count form, isSetMask=False
    "continuous": _lanes.KIND_CONTINUOUS,
    "bitwise": _lanes.KIND_BITWISE,
    "register": _lanes.KIND_REGISTER,  # MASK_PLACEHOLDER
}
repeat_bucket = _A.bucket  # the static repeat bucket of a key for n repeats


def scalar_value_bits(api, value, dtype, profile):
    """values["scalar"] of a host scalar: its bit pattern after the API's conversion to T, as NumPy
    uint32 (64-bit lanes: a (low, high) pair); checked as the direct call checks it."""
    if dtype.kind == "complex":
        return np.asarray(_A.scalar_bits(api, value, dtype, profile))
    return _A.host_scalar_bits(api, value, dtype, profile)


def group_key(group, dtype, R, profile, api=None):
    """The key ``plan`` returns for a call of ``group`` with ``dtype`` and repeat bucket ``R`` (values
    built by the caller, in ``plan``'s format, with the call forms' lanes in order). ``dtype``: the
    (src dtype, dst dtype) pair where the group converts (cast; compound's and axpy's half->float32
    rows). ``api``: an API of the call, for a group where some APIs compile a program of their own
    (unary: float32 Exp, Ln, Rsqrt); the key names no API otherwise. A key's static part is (dtype,
    R, ordered, profile, ...)."""
    if group not in GROUP_APIS:
        raise UsageError("group_key", "group", group, ", ".join(GROUP_APIS), None)
    extra = _KEY_EXTRA[group](api, dtype) if group in _KEY_EXTRA else ()
    return PlanKey(group, (dtype, R, True, profile, *extra))


def _api_name(api):
    name = api if isinstance(api, str) else getattr(api, "__name__", api)
    if name not in _API_GROUP:
        raise UsageError("plan", "api", api, ", ".join(sorted(_API_GROUP)), None, "no planner for this API")
    return name


def plan(api, state, *args, profile=None, max_repeats=None, **kwargs):
    """Plans ``api(state, *args, ...)``: returns ``(key, values)`` (see the module docstring)."""
    name = _api_name(api)
    group = _API_GROUP[name]
    planner = _GROUPS[group][0]
    static, values = planner(name, state, *args, profile=profile, max_repeats=max_repeats, **kwargs)
    return PlanKey(group, tuple(static)), values


def run(key, state, values):
    """Runs a planned call: returns the new CoreState (pure; jit- and vmap-compatible)."""
    if not isinstance(key, PlanKey):
        raise UsageError("run", "key", key, "a PlanKey returned by aj.plan", None)
    return _GROUPS[key.group][1](key.static, state, values)


_BATCHED = {}


def run_batched(key):
    """One compiled program per key: ``run`` vmapped over stacked ``(states, values)``."""
    if key not in _BATCHED:
        _BATCHED[key] = _compile.jit(jax.vmap(functools.partial(run, key)))
    return _BATCHED[key]
