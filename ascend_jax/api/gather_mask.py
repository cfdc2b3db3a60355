"""GatherMask (比较与选择/GatherMask.md, seed 002) and GetGatherMaskRemainCount.

Prototypes (C++ argument order):
  GatherMask<T, U>(dst, src0, LocalTensor<U> src1Pattern, reduceMode, mask, gatherMaskParams, rsvdCnt&)
  GatherMask<T>(dst, src0, uint8_t src1Pattern, reduceMode, mask, gatherMaskParams, rsvdCnt&)
  GetGatherMaskRemainCount() -> int64_t
The C++ out-parameter ``rsvdCnt`` is returned: ``new_state, rsvdCnt = GatherMask(state, ...)``.
Semantics: docs/MODEL.md "GatherMask and shifts".
"""

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes as _dt
from .._engine.compact import GatherStatic, run_gather_mask
from ..errors import UsageError
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..tensor import LocalTensor
from . import _args as A

U32 = jnp.uint32
I32 = jnp.int32
_U32_MAX = 2**32 - 1


@dataclasses.dataclass(frozen=True)
class GatherMaskParams:
    """``GatherMaskParams{src0BlockStride(u8)=1, repeatTimes(u16)=0, src0RepeatStride(u16)=8,
    src1RepeatStride(u8)=8}`` (C++ field order = constructor order; strides in 32-byte DataBlocks).

    Fields may be Python ints (checked at trace time) or traced integers (out of range: BAD_PARAM).
    ``repeatTimes`` is a uint16 field but, like every repeat count, limited to the profile's
    ``max_repeat_times`` (高维切分: "repeatTime不能超过255").
    """

    src0BlockStride: object = 1
    repeatTimes: object = 0
    src0RepeatStride: object = 8
    src1RepeatStride: object = 8

    _RANGES = {
        "src0BlockStride": 255,
        "repeatTimes": None,
        "src0RepeatStride": 65535,
        "src1RepeatStride": 255,
    }


_FIELDS = ("src0BlockStride", "repeatTimes", "src0RepeatStride", "src1RepeatStride")
jax.tree_util.register_pytree_node(
    GatherMaskParams,
    lambda o: (tuple(getattr(o, n) for n in _FIELDS), None),
    lambda _, ch: GatherMaskParams(*ch),
)


def as_gather_params(prm):
    if prm is None:
        return GatherMaskParams()
    if isinstance(prm, GatherMaskParams):
        return prm
    if isinstance(prm, (tuple, list)):
        return GatherMaskParams(*prm)
    if isinstance(prm, dict):
        return GatherMaskParams(**prm)
    raise TypeError(f"expected GatherMaskParams (or a 4-tuple), got {prm!r}")


def _setting(p, key):
    """A GatherMask profile choice (``apis.GatherMask.<key>``; the schema default is resolved at load)."""
    return p.api("GatherMask")[key]


@dataclasses.dataclass(frozen=True)
class AnyPattern:
    """Both pattern sources of GatherMask in one set of values (not a C++ type: a model tool for
    fuzzers and sweeps, like ``AnyForm``). Passed as ``src1Pattern``: ``user`` true reads the bits
    from the LocalTensor ``tensor`` (the ``GatherMask<T, U>`` prototype), false takes the built-in
    pattern number ``pattern`` (the ``uint8_t src1Pattern`` prototype). With ``user`` traced one
    compiled program serves both prototypes; each case gets its own prototype's checks (``tensor``'s
    type is checked statically; a ``pattern`` outside the list, static or traced, is ``BAD_PARAM``
    for the built-in cases only). A Python-bool ``user`` is the ordinary call of that prototype."""

    user: object
    pattern: object = 1
    tensor: object = None


def _reduce_mode(api, v, p):
    """reduceMode: a Python bool, or a traced bool (one program for both modes)."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (jax.Array, jax.core.Tracer)) and v.dtype == jnp.bool_ and v.ndim == 0:
        return v
    raise UsageError(api, "reduceMode", v, "a Python bool (true: Counter mode, false: Normal mode)", p)


def _check_pattern_tensor(api, t, dt, p):
    if not isinstance(t, LocalTensor):
        raise UsageError(api, "src1Pattern", t, "a built-in pattern number or a LocalTensor pattern", p)
    u = t.dtype
    allowed = tuple(_setting(p, "pattern_dtypes"))
    if u.name not in allowed or u.itemsize != dt.itemsize:
        ok = [n for n in allowed if _dt.as_dtype(n).itemsize == dt.itemsize]
        raise UsageError(
            api,
            "src1Pattern.dtype",
            u.name,
            " / ".join(ok) or "none",
            p,
            f"a {dt.name} src0 takes a pattern tensor of the same element width",
        )


def _builtin_pattern(api, v, p, any_prototype=False):
    """(int32 pattern number, BAD_PARAM) of a built-in pattern: a static one outside the profile's
    list is a UsageError, a traced one is BAD_PARAM (``any_prototype``: a static integer too)."""
    pats = tuple(int(x) for x in _setting(p, "patterns"))
    if isinstance(v, bool):
        raise UsageError(api, "src1Pattern", v, f"one of {list(pats)} or a LocalTensor", p)
    if any_prototype and isinstance(v, (int, np.integer)):
        ok = int(v) in pats
        return jnp.asarray(int(v) if ok else 0, I32), jnp.asarray(not ok)
    if A.is_static(v):
        if not isinstance(v, (int, np.integer)) or int(v) not in pats:
            raise UsageError(
                api, "src1Pattern", v, f"a built-in pattern in {list(pats)} or a LocalTensor pattern", p
            )
        return jnp.asarray(int(v), I32), jnp.zeros((), bool)
    pv = jnp.asarray(v).astype(I32)
    return pv, ~jnp.any(pv == np.asarray(pats, np.int32))


@register(
    ApiSpec(
        "GatherMask",
        "gather_mask",
        (
            "GatherMask<T, U>(dst, src0, LocalTensor<U> src1Pattern, reduceMode, mask, gatherMaskParams, rsvdCnt&)",
            "GatherMask<T>(dst, src0, uint8_t src1Pattern, reduceMode, mask, gatherMaskParams, rsvdCnt&)",
        ),
        "memory-vector/比较与选择/GatherMask.md, seed 002",
    )
)
def GatherMask(
    state,
    dst,
    src0,
    src1Pattern,
    reduceMode,
    mask,
    gatherMaskParams,
    profile=None,
    max_repeats=None,
    max_mask=None,
):
    """Pack the src0 elements whose gather-mask bit is 1 contiguously into dst (Ascend C
    ``AscendC::GatherMask``). Returns ``(new_state, rsvdCnt)``; ``rsvdCnt`` (int32 array) is the
    number of kept elements, i.e. the RSVD_CNT register after the call.

    ``src1Pattern``: a built-in pattern number (1 even, 2 odd, 3..6 the 1st..4th of every four,
    7 all; a Python int or a traced int) or a LocalTensor of uint16 (16-bit T) / uint32 (32-bit T) /
    uint8 (8-bit T, where the profile lists it) holding the bits. ``reduceMode``: False = Normal
    (repeatTimes x 256 bytes; mask ignored), True = Counter (``apis.GatherMask.counter_config``
    1: mask elements per repeat, repeatTimes repeats; 2: mask elements in total, repeats derived).
    ``gatherMaskParams``: ``GatherMaskParams`` or a 4-tuple (src0BlockStride, repeatTimes,
    src0RepeatStride, src1RepeatStride).

    Static buckets for traced values: ``max_repeats`` (repeat count), ``max_mask`` (Counter mask:
    per repeat for configuration 1, in total for configuration 2). Overflow records BUCKET_OVERFLOW.

    One program for every call form (fuzzers, sweeps): ``reduceMode`` may be a traced bool (a
    Counter case with mask 0 is BAD_MASK) and ``src1Pattern`` an ``AnyPattern`` with a traced
    ``user`` flag; each case gets its own mode's and prototype's lanes, faults and registers.
    """
    api = "GatherMask"
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    A.check_tensor(api, "src0", src0, p)
    A.check_same_dtype(api, p, dst=dst, src0=src0)
    dt = dst.dtype
    p.require_api(api, dt)
    A.check_modelled(api, dt, p)
    L = p.lanes(dt)
    counter = _reduce_mode(api, reduceMode, p)
    c_cfg = "counter1" if _setting(p, "counter_config") == 1 else "counter2"
    if isinstance(counter, bool):
        config = c_cfg if counter else "normal"
    else:  # traced: both modes in one program, each case its own (docs/MODEL.md "Traced values")
        config = "normal|" + c_cfg
    bad = jnp.zeros((), bool)
    bad_mask = jnp.zeros((), bool)

    # -- GatherMaskParams ---------------------------------------------------------------------------
    prm = as_gather_params(gatherMaskParams)
    vals = {}
    for f in _FIELDS:
        hi = p.max_repeat_times if f == "repeatTimes" else GatherMaskParams._RANGES[f]
        v = A.static_int(api, f"gatherMaskParams.{f}", getattr(prm, f), 0, hi, p)
        bad = bad | A.traced_range_bad(v, 0, hi)
        vals[f] = v
    repeat = vals["repeatTimes"]

    # -- mask ---------------------------------------------------------------------------------------
    if isinstance(mask, bool) or (A.is_static(mask) and not isinstance(mask, (int, np.integer))):
        raise UsageError(api, "mask", mask, "an integer in [0, 2**32-1] (uint32_t)", p)
    if A.is_static(mask):
        m = int(mask)
        lo = 1 if counter is True else 0
        if not lo <= m <= _U32_MAX:
            detail = "reduceMode = true (Counter mode) needs at least one element" if counter is True else ""
            raise UsageError(api, "mask", m, f"an integer in [{lo}, {_U32_MAX}]", p, detail)
        mask_v = jnp.asarray(m, U32)
        if m == 0 and counter is not False:  # traced reduceMode: a Counter case with mask 0
            bad_mask = bad_mask | counter
    else:
        mv = jnp.asarray(mask)
        if jnp.issubdtype(mv.dtype, jnp.signedinteger):
            bad_mask = bad_mask | (mv < 0)
        mask_v = mv.astype(U32)
        if counter is not False:
            bad_mask = bad_mask | (counter & (mask_v == 0))
        m = None

    # -- pattern ------------------------------------------------------------------------------------
    dyn = {"dst": A.addr_of(dst), "src0": A.addr_of(src0)}
    user = None  # traced: AnyPattern, both prototypes in one program
    if isinstance(src1Pattern, AnyPattern):
        if isinstance(src1Pattern.user, (bool, np.bool_)):  # the ordinary call of that prototype
            src1Pattern = src1Pattern.tensor if src1Pattern.user else src1Pattern.pattern
        else:
            user = jnp.asarray(src1Pattern.user, bool)
    if user is not None:
        pkind = "any"
        _check_pattern_tensor(api, src1Pattern.tensor, dt, p)
        dyn["src1"] = A.addr_of(src1Pattern.tensor)
        # the prototype is traced: even a static number outside the list is BAD_PARAM (for the
        # built-in cases only), not a usage error
        dyn["pattern"], bad_pat = _builtin_pattern(api, src1Pattern.pattern, p, any_prototype=True)
        bad = bad | (~user & bad_pat)
        dyn["user"] = user
    elif isinstance(src1Pattern, LocalTensor):
        pkind = "tensor"
        _check_pattern_tensor(api, src1Pattern, dt, p)
        dyn["src1"] = A.addr_of(src1Pattern)
        dyn["pattern"] = jnp.zeros((), I32)
    else:
        pkind = "builtin"
        dyn["pattern"], bad_pat = _builtin_pattern(api, src1Pattern, p)
        bad = bad | bad_pat
        dyn["src1"] = jnp.zeros((), I32)

    # -- static buckets -----------------------------------------------------------------------------
    def rep_bucket():
        if max_repeats is not None:
            return A.bucket(max_repeats)
        return A.bucket(repeat) if isinstance(repeat, int) else A.bucket(p.max_repeat_times)

    def counter2_bucket():
        if max_repeats is not None:
            return A.bucket(max_repeats)
        if m is not None:
            return A.bucket(math.ceil(m / L))
        if max_mask is not None:
            return A.bucket(math.ceil(max_mask / L))
        return A.bucket(math.ceil(p.ub_usable_bytes / p.repeat_bytes))

    # a traced reduceMode: the larger of the two modes' buckets (the same bits: lanes and blocks
    # past a case's own extent are inactive)
    R, KB = 1, 8
    if config.startswith("normal"):
        R = rep_bucket()
    if config.endswith("counter1"):
        per = m if m is not None else (max_mask if max_mask is not None else L)
        R, KB = rep_bucket(), 8 * A.bucket(math.ceil(max(per, 1) / L))
    elif config.endswith("counter2"):
        R = max(R, counter2_bucket())

    dyn["mask"] = mask_v
    dyn["repeat"] = jnp.asarray(repeat, I32)
    dyn["strides"] = jnp.stack(
        [jnp.asarray(vals[f], I32) for f in ("src0BlockStride", "src0RepeatStride", "src1RepeatStride")]
    )
    dyn["bad_param"] = bad
    dyn["bad_mask"] = bad_mask
    if "|" in config:
        dyn["counter"] = counter
    st = GatherStatic(
        api=api,
        dtype=_dt.lane_twin(dt),  # a compaction moves bit patterns: one program per lane width
        profile=p,
        config=config,
        pattern=pkind,
        R=R,
        KB=KB,
        mode_after=_setting(p, "mode_after"),
        vmask_after=_setting(p, "vmask_after"),
    )
    new = run_gather_mask(st, state, dyn)
    return new, new.rsvd_cnt


@register(
    ApiSpec(
        "GetGatherMaskRemainCount",
        "gather_mask",
        ("GetGatherMaskRemainCount() -> int64_t",),
        "no doc page (catalogue §3.3: returns the RSVD_CNT register)",
    )
)
def GetGatherMaskRemainCount(state, profile=None):
    """The RSVD_CNT register: the number of elements the last GatherMask kept (a Python int when the
    state is concrete and unbatched, else an int32 array). Exists where the profile supports it."""
    p = as_profile(profile)
    p.require_api("GetGatherMaskRemainCount")
    v = state.rsvd_cnt
    if A.is_concrete_array(v) and v.ndim == 0:
        return int(v)
    return v


__all__ = ["AnyPattern", "GatherMask", "GatherMaskParams", "GetGatherMaskRemainCount"]
