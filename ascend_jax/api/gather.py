"""Gather, Gatherb(ISASI), Scatter(ISASI) (memory-vector/离散与聚合/).

Prototypes (C++ argument order):
  Gather<T>(dst, src, LocalTensor<uint32_t> srcOffset, uint32_t srcBaseAddr, uint32_t count)
  Gather<T>(dst, src, srcOffset, srcBaseAddr, uint64_t mask[] | uint64_t mask, uint8_t repeatTime,
            uint16_t dstRepStride)
  Gatherb<T>(dst, src, LocalTensor<uint32_t> offset, uint8_t repeatTime, GatherRepeatParams repeatParams)
  Scatter<T>(dst, src, LocalTensor<uint32_t> dstOffset, uint32_t dstBaseAddr, uint32_t count)
  Scatter<T>(dst, src, dstOffset, dstBaseAddr, mask[] | mask, uint8_t repeatTime, uint8_t srcRepStride)
Semantics and faults: docs/MODEL.md "Gather, Gatherb, Scatter".
"""

import dataclasses

import jax
import jax.numpy as jnp

from .._engine import lanes as LN
from .._engine.gather import GatherbStatic, GatherStatic, plan_dtype, run_gather, run_gatherb
from ..errors import UsageError
from ..params import AnyForm
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..tensor import MASK_PLACEHOLDER
from . import _args as A
from . import _forms as F

U32 = jnp.uint32
I32 = jnp.int32
_U32_MAX = 2**32 - 1


@dataclasses.dataclass(frozen=True)
class GatherRepeatParams:
    """``GatherRepeatParams(dstBlkStride, dstRepStride)`` (C++ constructor order; fields uint8_t
    dstBlkStride, uint16_t dstRepStride, in DataBlocks). The other C++ fields are reserved ("该参数已
    废弃，不对其进行业务处理") and not modelled. Fields may be Python ints or traced integers."""

    dstBlkStride: object = 1
    dstRepStride: object = 8

    _RANGES = {"dstBlkStride": 255, "dstRepStride": 65535}


jax.tree_util.register_pytree_node(
    GatherRepeatParams,
    lambda o: ((o.dstBlkStride, o.dstRepStride), None),
    lambda _, ch: GatherRepeatParams(*ch),
)


def as_gather_repeat_params(api, prm, p):
    if isinstance(prm, GatherRepeatParams):
        return prm
    if isinstance(prm, (tuple, list)) and len(prm) == 2:
        return GatherRepeatParams(*prm)
    raise UsageError(api, "repeatParams", prm, "a GatherRepeatParams or (dstBlkStride, dstRepStride)", p)


def _max_offset(p, api, size):
    a = p.api(api)
    return {1: a["max_offset_8bit"], 2: a["max_offset_16bit"]}.get(size, _U32_MAX)


def plan_gather(api, state, dst, src, off, base, args, profile=None, max_repeats=None):
    """(GatherStatic, dyn) of one Gather / Scatter call; static misuse raises UsageError. The call
    form is traced (``dyn["kind"]``): one program serves both forms of a (dtype, bucket)."""
    scatter = api == "Scatter"
    off_name, base_name = ("dstOffset", "dstBaseAddr") if scatter else ("srcOffset", "srcBaseAddr")
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    A.check_tensor(api, "src", src, p)
    A.check_tensor(api, off_name, off, p)
    A.check_same_dtype(api, p, dst=dst, src=src)
    if len(args) not in (1, 3):
        raise TypeError(
            f"{api}: expected (count,), (mask, repeatTime, repStride) or (AnyForm,), got {len(args)} arguments"
        )
    if len(args) == 1 and isinstance(args[0], AnyForm) and A.is_static(args[0].form):
        args, _ = F.static_form_args(api, args[0], p, True)
        if args[0] is MASK_PLACEHOLDER:  # no isSetMask=false prototype: no mask from the register
            raise UsageError(
                api, "AnyForm.form", AnyForm.PLACEHOLDER, "COUNT (0), CONTINUOUS (1), BITWISE (2)", p
            )
    any_form = len(args) == 1 and isinstance(args[0], AnyForm)
    dt = dst.dtype
    p.require_api(api, dt, count_form=len(args) == 1 and not any_form)
    if off.dtype.name != "uint32":
        raise UsageError(api, f"{off_name}.dtype", off.dtype.name, "uint32", p)
    base = A.static_int(api, base_name, base, 0, _U32_MAX, p)
    pdt = plan_dtype(dt)
    L = p.lanes(pdt)
    dyn = F.empty_dyn("dst", "src", "off")
    dyn["dst"], dyn["src"], dyn["off"] = A.addr_of(dst), A.addr_of(src), A.addr_of(off)
    if A.is_static(base):
        dyn["base"] = jnp.asarray(base, U32)
    else:
        bv = jnp.asarray(base)
        if jnp.issubdtype(bv.dtype, jnp.signedinteger):
            dyn["bad_param"] = dyn["bad_param"] | (bv < 0)
        dyn["base"] = bv.astype(U32)
    sname, hi = ("srcRepStride", 255) if scatter else ("dstRepStride", 65535)

    def rep_stride(_api, stride, _p, d):
        """The repeat stride in DataBlocks as d["strides"] (the count form: contiguous repeats)."""
        if stride is None:
            stride = L * dt.itemsize // p.block_bytes
        stride = A.static_int(api, sname, stride, 0, hi, p)
        d["bad_param"] = d["bad_param"] | A.traced_range_bad(stride, 0, hi)
        d["strides"] = jnp.asarray(stride, I32).reshape(1)

    if any_form:
        # every call form in one program (a fuzzer's or a sweep's): the traced form code picks
        # the lane plan, the count or mask, and the repeat stride
        _, R, _ = F.plan_any_form(api, state, pdt, args[0], p, True, max_repeats, dyn, False, rep_stride)
        # SPEC: Gather/Scatter have no isSetMask=false prototype: that form code is BAD_PARAM
        dyn["bad_param"] = dyn["bad_param"] | (jnp.asarray(args[0].form) == AnyForm.PLACEHOLDER)
    else:
        if len(args) == 1:
            R = F.count_form(api, args[0], pdt, p, max_repeats, dyn)
            rep_stride(api, None, p, dyn)
            kind = "count"
        else:
            mask, repeat, stride = args
            kind, R = F.highdim_form(api, mask, repeat, pdt, p, True, state, max_repeats, dyn)
            rep_stride(api, stride, p, dyn)
        dyn["kind"] = jnp.asarray(LN.KINDS[kind], I32)
    dyn["rep_bytes"] = dyn.pop("strides")[0] * p.block_bytes
    dyn["max_off"] = jnp.asarray(_max_offset(p, api, dt.itemsize), U32)
    R = min(R, F.default_big_bucket(p))
    return GatherStatic(api=api, dtype=dt, R=R, profile=p), dyn


@register(
    ApiSpec(
        "Gather",
        "gather",
        (
            "Gather<T>(dst, src, LocalTensor<uint32_t> srcOffset, uint32_t srcBaseAddr, uint32_t count)",
            "Gather<T>(dst, src, srcOffset, srcBaseAddr, uint64_t mask[2], uint8_t repeatTime, uint16_t dstRepStride)",
            "Gather<T>(dst, src, srcOffset, srcBaseAddr, uint64_t mask, uint8_t repeatTime, uint16_t dstRepStride)",
        ),
        "memory-vector/离散与聚合/Gather.md",
    )
)
def Gather(state, dst, src, srcOffset, srcBaseAddr, *args, profile=None, max_repeats=None):
    """Gather (``AscendC::Gather``): ``dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)]``;
    offsets and ``srcBaseAddr`` are bytes. ``args``: ``(count,)`` (the first count elements) or
    ``(mask, repeatTime, dstRepStride)`` (lane l of repeat r -> dst + 32 r dstRepStride + l
    sizeof(T), its offset srcOffset[r L + l]). An offset outside UB, misaligned or beyond the
    product's range is a per-case fault. ``args = (AnyForm,)``: every call form in one program (its
    ``repeatParams`` is the repeat stride). ``max_repeats``: static bucket for traced counts/repeats.
    Returns the new CoreState."""
    st, dyn = plan_gather("Gather", state, dst, src, srcOffset, srcBaseAddr, args, profile, max_repeats)
    return run_gather(st, state, dyn)


@register(
    ApiSpec(
        "Scatter",
        "gather",
        (
            "Scatter<T>(dst, src, LocalTensor<uint32_t> dstOffset, uint32_t dstBaseAddr, uint32_t count)",
            "Scatter<T>(dst, src, dstOffset, dstBaseAddr, uint64_t mask[2], uint8_t repeatTime, uint8_t srcRepStride)",
            "Scatter<T>(dst, src, dstOffset, dstBaseAddr, uint64_t mask, uint8_t repeatTime, uint8_t srcRepStride)",
        ),
        "memory-vector/离散与聚合/Scatter(ISASI).md",
    )
)
def Scatter(state, dst, src, dstOffset, dstBaseAddr, *args, profile=None, max_repeats=None):
    """Scatter (``AscendC::Scatter``): ``dst[(dstBaseAddr + dstOffset[i]) / sizeof(T)] = src[i]``;
    ``args`` as Gather's with ``srcRepStride`` (src repeat r at src + 32 r srcRepStride). Two lanes
    to one address: ``apis.Scatter.duplicate_offsets`` ("fault": UNDEFINED; "program_order": the
    later lane wins). Returns the new CoreState."""
    st, dyn = plan_gather("Scatter", state, dst, src, dstOffset, dstBaseAddr, args, profile, max_repeats)
    return run_gather(st, state, dyn)


def plan_gatherb(state, dst, src, offset, repeatTime, repeatParams, profile=None, max_repeats=None):
    """(GatherbStatic, dyn) of one Gatherb call; static misuse raises UsageError."""
    api = "Gatherb"
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    A.check_tensor(api, "src", src, p)
    A.check_tensor(api, "offset", offset, p)
    A.check_same_dtype(api, p, dst=dst, src=src)
    dt = dst.dtype
    p.require_api(api, dt)
    if offset.dtype.name != "uint32":
        raise UsageError(api, "offset.dtype", offset.dtype.name, "uint32", p)
    hi = p.max_repeat_times
    A.static_int(api, "repeatTime", repeatTime, 0, hi, p)
    bad = A.traced_range_bad(repeatTime, 0, hi)
    prm = as_gather_repeat_params(api, repeatParams, p)
    for f, lim in GatherRepeatParams._RANGES.items():
        v = getattr(prm, f)
        A.static_int(api, f"repeatParams.{f}", v, 0, lim, p)
        bad = bad | A.traced_range_bad(v, 0, lim)
    if A.is_static(repeatTime) and repeatTime == 0 and p.zero_repeat == "error":
        raise UsageError(api, "repeatTime", 0, "a non-zero repeat", p, "behavior.zero_repeat = error")
    if max_repeats is not None:
        R = A.bucket(max_repeats)
    elif A.is_static(repeatTime):
        R = A.bucket(max(1, repeatTime))
    else:
        R = A.bucket(hi)
    dyn = {
        "dst": A.addr_of(dst),
        "src": A.addr_of(src),
        "off": A.addr_of(offset),
        "blk": jnp.asarray(prm.dstBlkStride, I32),
        "rep": jnp.asarray(prm.dstRepStride, I32),
        "repeat": jnp.asarray(repeatTime, I32),
        "bad_param": jnp.asarray(bad, bool),
    }
    return GatherbStatic(dtype=dt, R=R, profile=p), dyn


@register(
    ApiSpec(
        "Gatherb",
        "gather",
        (
            "Gatherb<T>(dst, src, LocalTensor<uint32_t> offset, uint8_t repeatTime, GatherRepeatParams repeatParams)",
        ),
        "memory-vector/离散与聚合/Gatherb(ISASI).md",
    )
)
def Gatherb(state, dst, src, offset, repeatTime, repeatParams, profile=None, max_repeats=None):
    """Gatherb (``AscendC::Gatherb``): repeat i copies 8 DataBlocks; block j is the 32 bytes at
    ``src + offset[8i + j]`` (a byte offset, DataBlock aligned) written to
    ``dst + 32 (i dstRepStride + j dstBlkStride)``. ``repeatParams``: ``GatherRepeatParams`` or
    (dstBlkStride, dstRepStride). No mask; the registers are unchanged. Returns the new CoreState."""
    st, dyn = plan_gatherb(state, dst, src, offset, repeatTime, repeatParams, profile, max_repeats)
    return run_gatherb(st, state, dyn)


__all__ = ["Gather", "Gatherb", "GatherRepeatParams", "Scatter"]
