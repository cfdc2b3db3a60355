"""Duplicate and CreateVecIndex (数据填充/): dst-only fills on the strided core (no source).

Prototypes (C++ argument order; ``isSetMask`` is the template argument):
  Duplicate(dst, scalarValue, count)
  Duplicate(dst, scalarValue, mask[] | mask, repeatTime, dstBlockStride, dstRepeatStride)
  CreateVecIndex(dst, firstValue, count)
  CreateVecIndex(dst, firstValue, mask[] | mask, repeatTime, dstBlkStride, dstRepStride)
and the MASK_PLACEHOLDER / isSetMask=false forms. Duplicate: every active lane gets the value's bit
pattern; CreateVecIndex: lane l of repeat r gets ``firstValue + r*L + l`` rounded once to T (floats)
or wrapped (integers). Element semantics: ``_engine/elem_math.py``; docs/MODEL.md.

One program per (dtype, repeat bucket) serves both APIs and every call form (``dyn["op"]``,
``dyn["kind"]``). Duplicate's 950 prototype ``Duplicate(dst, src: LocalTensor, count)`` is not in
the fast path yet (NotModelledError).
"""

import functools

import jax
import jax.numpy as jnp

from .._engine import elem_math as EM
from .._engine import lanes as LN
from .._engine import memory as MEM
from .._engine.brcb import BrcbStatic, run_brcb
from .._engine.pipeline import StridedStatic, run_strided, set_extents
from ..errors import NotModelledError, UsageError
from ..params import BrcbRepeatParams, as_brcb_params
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..tensor import LocalTensor
from . import _args as A
from ._forms import count_form, default_big_bucket, empty_dyn, highdim_form

I32 = jnp.int32
U32 = jnp.uint32

API_CODES = ("Duplicate", "CreateVecIndex")
_STRIDE_NAMES = {
    "Duplicate": ("dstBlockStride", "dstRepeatStride"),
    "CreateVecIndex": ("dstBlkStride", "dstRepStride"),
}


@functools.cache
def _elem_for(R, L):
    """The family's element function for an [R, L] repeat bucket (cached: one per shape, so the
    compile key stays the same)."""

    def elem(s, dtype, profile, ctrl, dyn):
        shape = (R, L, 2) if dtype.itemsize == 8 else (R, L)
        dup = EM.duplicate(s, shape)
        if dtype.itemsize == 8 or dtype.kind == "complex":  # CreateVecIndex has no such T
            return dup
        index = jnp.arange(R, dtype=I32)[:, None] * L + jnp.arange(L, dtype=I32)[None, :]
        idx = EM.create_vec_index(s, index, dtype, profile, ctrl)
        return jnp.where(dyn["op"] == 1, idx, dup)

    return elem


def _split(api, args):
    if len(args) == 1:
        return args
    if len(args) == 4:
        return (args[0], args[1], (args[2], args[3]))
    raise TypeError(
        f"{api}: expected (count,) or (mask, repeatTime, {', '.join(_STRIDE_NAMES[api])}), "
        f"got {len(args)} arguments"
    )


def _first_value_check(api, value, dt, bits, p):
    """CreateVecIndex: a finite float, an in-range integer (the reference's rule)."""
    if not A.is_static(value):
        return
    if dt.is_float:
        if isinstance(bits, jax.core.Tracer):  # a static value converted inside a trace
            with jax.ensure_compile_time_eval():
                bits = A.scalar_bits(api, value, dt, p, "firstValue")
        b = int(bits)
        exp_all_ones = {"half": 0x7C00, "bfloat16": 0x7F80, "float32": 0x7F800000}[dt.name]
        if (b & exp_all_ones) == exp_all_ones:
            raise UsageError(api, "firstValue", value, f"a finite {dt.name} value", p)
    elif isinstance(value, int) and not isinstance(value, bool):
        lo, hi = (
            (-(1 << (dt.bits - 1)), (1 << (dt.bits - 1)) - 1) if dt.is_signed_int else (0, (1 << dt.bits) - 1)
        )
        # SPEC: "firstValue需保证不超出dst中元素数据类型对应的大小范围" (CreateVecIndex 约束说明)
        if not lo <= value <= hi:
            raise UsageError(api, "firstValue", value, f"[{lo}, {hi}] ({dt.name})", p)


def plan(api, state, dst, value, args, profile, isSetMask, max_repeats):
    """(StridedStatic, dyn) of one call: the compile key and its traced data."""
    p = as_profile(profile)
    args = _split(api, args)
    A.check_tensor(api, "dst", dst, p)
    dt = dst.dtype
    element = None
    if isinstance(value, LocalTensor):
        # SPEC: "该函数原型，仅支持Ascend 950PR/Ascend 950DT" (Duplicate(dst, src, count)) ->
        #       apis.Duplicate.tensor_source; src's element 0 is the value, read when the call runs
        if not (api == "Duplicate" and p.api(api).tensor_source):
            raise UsageError(api, "src", value, "a scalar value on this product", p)
        if len(args) != 1:
            raise UsageError(api, "src", value, "a scalar value in the high-dim prototypes", p)
        if value.dtype != dt:
            raise UsageError(api, "src.dtype", value.dtype.name, f"{dt.name} (= dst.dtype)", p)
        element, value = value, 0
    p.require_api(api, dt, count_form=len(args) == 1)
    A.check_modelled(api, dt, p, wide_lanes=(api == "Duplicate"))
    if api == "CreateVecIndex" and dt.itemsize == 8:
        raise NotModelledError(f"CreateVecIndex: {dt.name} has no fast-path element function yet")
    bits = A.scalar_bits(api, value, dt, p, "firstValue" if api == "CreateVecIndex" else "scalarValue")
    if api == "CreateVecIndex":
        _first_value_check(api, value, dt, bits, p)
    if not isinstance(isSetMask, bool):
        raise UsageError(api, "isSetMask", isSetMask, "True or False", p)
    dyn = empty_dyn("dst")
    dyn["dst"] = A.addr_of(dst)
    set_extents(dyn, dst=dst)  # checker warnings
    if len(args) == 1:
        use_reg = (not isSetMask) and p.level2_is_set_mask == "honoured"
        R = count_form(api, args[0], dt, p, max_repeats, dyn, registers=state if use_reg else None)
        kind = "count_register" if use_reg else "count"
        blk, rep = 1, 8
    else:
        mask, repeat, (blk, rep) = args
        repeat = A.static_int(api, "repeatTime", repeat, 0, p.max_repeat_times, p)
        # SPEC: "const uint16_t dstBlockStride, const uint8_t dstRepeatStride" (数据填充/Duplicate.md)
        for v, name, hi in ((blk, _STRIDE_NAMES[api][0], 65535), (rep, _STRIDE_NAMES[api][1], 255)):
            A.static_int(api, name, v, 0, hi, p)
            dyn["bad_param"] = dyn["bad_param"] | A.traced_range_bad(v, 0, hi)
        kind, R = highdim_form(api, mask, repeat, dt, p, isSetMask, state, max_repeats, dyn)
    dyn["strides"] = jnp.stack([jnp.asarray(blk, I32), jnp.asarray(rep, I32)])
    dyn["kind"] = jnp.asarray(LN.KINDS[kind], I32)
    dyn["scalar"] = bits
    if element is not None:
        dyn["elem"] = A.addr_of(element)
        dyn["elem_on"] = jnp.asarray(True)
    dyn["op"] = jnp.asarray(API_CODES.index(api), I32)
    R = min(R, default_big_bucket(p))
    ordered = len(args) != 1 and MEM.collisions_possible(rep, blk, R)
    return _strided((dt, R, ordered, p, element is not None)), dyn


def _strided(static):
    dtype, R, ordered, p, element = static
    return StridedStatic(
        api="*",
        dtype=dtype,
        R=R,
        ordered=ordered,
        profile=p,
        elem=_elem_for(R, p.lanes(dtype)),
        srcs=(),
        api_codes=API_CODES,
        element_scalar=element,
        element_overlap=False,
    )


def plan_fill(api, state, dst, value, *args, profile=None, isSetMask=True, max_repeats=None):
    """The planner behind ``aj.plan`` for this group: ``(static, dyn)`` with ``static`` = (dtype,
    repeat bucket R, ordered, profile, value read from a tensor), the API traced (dyn["op"])."""
    st, dyn = plan(api, state, dst, value, args, profile, isSetMask, max_repeats)
    return (st.dtype, st.R, st.ordered, st.profile, st.element_scalar), dyn


def run_planned(static, state, dyn):
    """Runs a call planned by :func:`plan_fill` (pure, jit- and vmap-compatible)."""
    return run_strided(_strided(static), state, dyn)


def fill_call(api, state, dst, value, args, profile, isSetMask, max_repeats):
    st, dyn = plan(api, state, dst, value, args, profile, isSetMask, max_repeats)
    return run_strided(st, state, dyn)


@register(
    ApiSpec(
        "Duplicate",
        "fill",
        (
            "Duplicate(dst, scalarValue, count)",
            "Duplicate(dst, scalarValue, mask[], repeatTime, dstBlockStride, dstRepeatStride)",
            "Duplicate(dst, scalarValue, mask, repeatTime, dstBlockStride, dstRepeatStride)",
            "Duplicate<T, isSetMask=false>(dst, scalarValue, MASK_PLACEHOLDER, repeatTime, "
            "dstBlockStride, dstRepeatStride)",
        ),
        "memory-vector/数据填充/Duplicate.md",
    )
)
def Duplicate(state, dst, scalarValue, *args, profile=None, isSetMask=True, max_repeats=None):
    """``dst_i = scalarValue`` over the active lanes (Ascend C ``AscendC::Duplicate``).

    Call forms (C++ order): ``Duplicate(state, dst, scalarValue, count)`` or
    ``Duplicate(state, dst, scalarValue, mask, repeatTime, dstBlockStride, dstRepeatStride)``
    (mask: int, list of uint64 words, traced uint32 words, or MASK_PLACEHOLDER with
    ``isSetMask=False``). Returns the new CoreState.

    **Spec:** memory-vector/数据填充/Duplicate.md. Profile keys: ``apis.Duplicate``.
    """
    return fill_call("Duplicate", state, dst, scalarValue, args, profile, isSetMask, max_repeats)


@register(
    ApiSpec(
        "CreateVecIndex",
        "fill",
        (
            "CreateVecIndex(dst, firstValue, count)",
            "CreateVecIndex(dst, firstValue, mask[], repeatTime, dstBlkStride, dstRepStride)",
            "CreateVecIndex(dst, firstValue, mask, repeatTime, dstBlkStride, dstRepStride)",
            "CreateVecIndex<T, isSetMask=false>(dst, firstValue, MASK_PLACEHOLDER, repeatTime, "
            "dstBlkStride, dstRepStride)",
        ),
        "memory-vector/数据填充/CreateVecIndex.md",
    )
)
def CreateVecIndex(state, dst, firstValue, *args, profile=None, isSetMask=True, max_repeats=None):
    """``dst_i = firstValue + i`` (i = r*L + l) over the active lanes (``AscendC::CreateVecIndex``).

    Call forms as Duplicate, strides spelled ``dstBlkStride``, ``dstRepStride``. Floats: the exact
    sum rounded once to T; integers wrap. **Spec:** memory-vector/数据填充/CreateVecIndex.md.
    """
    return fill_call("CreateVecIndex", state, dst, firstValue, args, profile, isSetMask, max_repeats)


__all__ = list(API_CODES)


# ---------------------------------------------------------------------------------------------
# Brcb: one src element per dst DataBlock (its own small core: no mask, no lane plan)


def plan_brcb(state, dst, src, repeatTime, repeatParams, profile, max_repeats=None):
    """(BrcbStatic, dyn) of one Brcb call; static misuse raises UsageError."""
    api = "Brcb"
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    A.check_tensor(api, "src", src, p)
    dt = dst.dtype
    p.require_api(api, dt)
    A.check_same_dtype(api, p, dst=dst, src=src)
    A.check_modelled(api, dt, p, wide_lanes=True)
    hi = p.max_repeat_times
    A.static_int(api, "repeatTime", repeatTime, 0, hi, p)
    if A.is_static(repeatTime) and repeatTime == 0 and p.zero_repeat == "error":
        raise UsageError(api, "repeatTime", 0, "a non-zero repeat", p, "behavior.zero_repeat = error")
    params = as_brcb_params(repeatParams)
    bad = A.traced_range_bad(repeatTime, 0, hi)
    for f, lim in BrcbRepeatParams._RANGES.items():
        v = getattr(params, f)
        A.static_int(api, f"repeatParams.{f}", v, 0, lim, p)
        bad = bad | A.traced_range_bad(v, 0, lim)
    if A.is_static(repeatTime):
        R = A.bucket(max(1, repeatTime)) if max_repeats is None else A.bucket(max_repeats)
    else:
        R = A.bucket(max_repeats if max_repeats is not None else hi)
    dyn = {
        "dst": A.addr_of(dst),
        "src": A.addr_of(src),
        "blk": jnp.asarray(params.dstBlkStride, I32),
        "rep": jnp.asarray(params.dstRepStride, I32),
        "repeat": jnp.asarray(repeatTime, I32),
        "bad_param": jnp.asarray(bad, bool),
    }
    return BrcbStatic(dtype=dt, R=R, profile=p), dyn


@register(
    ApiSpec(
        "Brcb",
        "fill",
        ("Brcb(dst, src, repeatTime, repeatParams)",),
        "memory-vector/数据填充/Brcb.md",
    )
)
def Brcb(state, dst, src, repeatTime, repeatParams, profile=None, max_repeats=None):
    """Brcb (Ascend C ``AscendC::Brcb``): repeat ``i`` fills its 8 dst DataBlocks (at
    ``dst + 32 * (i * dstRepStride + j * dstBlkStride)``) with src element ``8i + j`` each; src is
    read contiguously. No mask (the registers are unchanged). ``repeatParams``: a
    ``BrcbRepeatParams(dstBlkStride, dstRepStride)`` or a 2-tuple. ``max_repeats``: static repeat
    bucket for a traced ``repeatTime``. Returns the new CoreState.

    **Spec:** memory-vector/数据填充/Brcb.md. Profile keys: ``apis.Brcb``, ``behavior.zero_repeat``.
    """
    st, dyn = plan_brcb(state, dst, src, repeatTime, repeatParams, profile, max_repeats)
    return run_brcb(st, state, dyn)
