"""DataCopy and DataCopyPad (数据搬运): GM <-> UB and UB -> UB, pure functions.

``state, gm = DataCopy(state, gm, dst, src, countOrParams)``: ``gm`` is the tuple of GM byte
buffers (``uint8[n]`` each) that ``GlobalTensor.buf`` indexes; the call returns it with the
written buffer replaced (UB -> UB and GM -> UB return it unchanged). Prototypes (C++ order):

  DataCopy(dst: LocalTensor,  src: GlobalTensor, count)            GM -> UB, 连续搬运
  DataCopy(dst: GlobalTensor, src: LocalTensor,  count)            UB -> GM
  DataCopy(dst: LocalTensor,  src: LocalTensor,  count)            UB -> UB
  DataCopy(dst, src, DataCopyParams)                               the three paths, 高维切分搬运
  DataCopyPad(dst: LocalTensor,  src: GlobalTensor, DataCopyExtParams, DataCopyPadExtParams)
  DataCopyPad(dst: GlobalTensor, src: LocalTensor,  DataCopyExtParams)

Semantics: docs/MODEL.md "GM, DataCopy and UB allocation"; spec pages 数据搬运/GM与UB数据搬运/*,
数据搬运/UB与UB数据搬运/*. Static misuse raises UsageError; traced values out of range record
``BAD_PARAM`` and suppress the call.
"""

import dataclasses
import math

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtypes as _dt
from .._engine import copy as CP
from .._engine import copy_layout as CL
from ..errors import Fault, NotModelledError, UnsupportedError, UsageError
from ..gm import OUT_OF_GM, GlobalTensor
from ..params import (
    DataCopyExtParams,
    DataCopyMVType,
    DataCopyPadExtParams,
    DataCopyPadParams,
    DataCopyParams,
    LoopModeParams,
    Nd2NzParams,
    NdDmaConfig,
    NdDmaParams,
    Nz2NdParamsFull,
    SliceInfo,
    as_data_copy_ext_params,
    as_data_copy_params,
    as_pad_params,
)
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..state import LoopModeRegs
from ..tensor import LocalTensor
from . import _args as A

I32 = jnp.int32
BLK = 32


def _kind(api, dst, src, p):
    d_loc, s_loc = isinstance(dst, LocalTensor), isinstance(src, LocalTensor)
    d_gm, s_gm = isinstance(dst, GlobalTensor), isinstance(src, GlobalTensor)
    if d_loc and s_gm:
        return "gm2ub"
    if d_gm and s_loc:
        return "ub2gm"
    if d_loc and s_loc:
        return "ub2ub"
    raise UsageError(
        api,
        "dst/src",
        f"{type(dst).__name__}, {type(src).__name__}",
        "(LocalTensor, GlobalTensor) | (GlobalTensor, LocalTensor) | (LocalTensor, LocalTensor)",
        p,
    )


def _check_dtypes(api, dst, src, p):
    if dst.dtype != src.dtype:
        raise UsageError(
            api,
            "src.dtype",
            _dtype_name(src),
            _dtype_name(dst),
            p,
            "src and dst must have the same element type",
        )


def _dtype_name(t):
    """A tensor's element type for a message; a bool GM array's is named so (its uint8 bytes)."""
    host = getattr(t, "host", "")
    return f"{host} ({t.dtype.name} bytes)" if host else t.dtype.name


def _gm_buf(api, arg, t, gm, p):
    if not isinstance(t.buf, int) or not 0 <= t.buf < len(gm):
        raise UsageError(api, f"{arg}.buf", t.buf, f"a GM buffer index in [0, {len(gm) - 1}]", p)
    return gm[t.buf]


def _static(*vals):
    return all(A.is_static(v) for v in vals)


def _field(api, name, value, lo, hi, p, bad):
    """Static: range-checked int; traced: int32 clamped into range, ``bad`` ORed."""
    if A.is_static(value):
        return A.static_int(api, name, value, lo, hi, p), bad
    # The range check is exact for the traced dtype; a valid value above 2**30 is then carried as
    # 2**30: only strides/gaps get that large, and a step of 2**30 bytes or blocks already puts a
    # second row outside any UB or GM buffer (the span checks see it as out of range).
    v = jnp.asarray(value)
    if v.dtype == jnp.uint32:
        if lo > 0:
            bad = bad | (v < np.uint32(lo))
        if hi < 2**32 - 1:
            bad = bad | (v > np.uint32(max(hi, 0)))
        v = jnp.minimum(v, np.uint32(2**30)).astype(I32)
    else:
        v = v.astype(I32)
        bad = bad | (v < lo)
        if hi < 2**31 - 1:
            bad = bad | (v > hi)
    return jnp.clip(v, lo, min(hi, 2**30)), bad


def _gm_traced_copy(state, gm, kind, src, dst, prm, checked, ub_limit, dt, p, a):
    """A GM <-> UB DataCopy whose GM address alone is traced (a rolled loop's tile offset;
    docs/MODEL.md "The rolled back end"): the fault word is the static twin's for the UB side and
    the traced span's for GM (``block_copy``'s rules), the data one dynamic slice of GM rows.
    None when another value is traced (``checked``: a traced parameter was range-checked; the
    general path decides)."""
    if kind not in ("gm2ub", "ub2gm") or not _static(*prm) or checked:
        return None
    ub_t, gm_t = (dst, src) if kind == "gm2ub" else (src, dst)
    if not _static(ub_t.addr) or _static(gm_t.addr):
        return None
    bc, bl, sg, dg = (int(v) for v in prm)
    buf = gm[gm_t.buf]
    n = buf.shape[-1]
    ua = int(ub_t.addr)
    gside = kind == "gm2ub"
    fault = CP.static_copy_fault(  # the GM side at address 0: its span alone decides
        kind,
        0 if gside else ua,
        ua if gside else 0,
        bc,
        bl,
        sg,
        dg,
        src_len=n if gside else None,
        dst_len=None if gside else n,
        ub_limit=ub_limit,
        gm_align=dt.itemsize,
        ub_align=p.operand_alignment_bytes,
        zero_policy=a.zero_block,
    )
    gstep, ustep = ((bl + sg) * BLK, (bl + dg) * BLK) if gside else ((bl + dg) * BLK, (bl + sg) * BLK)
    if bc == 0 or bl == 0:  # decided statically (static_copy_fault's zero-count rule)
        return state.replace(fault=state.fault | np.uint32(fault)), gm
    span = (bc - 1) * gstep + bl * BLK
    ga = A.addr_of(gm_t)
    ok = (ga >= 0) & (ga <= n - span)
    dyn = jnp.where(ok, np.uint32(0), np.uint32(int(OUT_OF_GM)))
    dyn = dyn | jnp.where(ga % dt.itemsize != 0, np.uint32(int(Fault.MISALIGNED)), np.uint32(0))
    if fault or span > n:  # a UB-side fault or a span longer than the buffer: no data moves
        return state.replace(fault=state.fault | np.uint32(fault) | dyn), gm
    fault = dyn
    run = fault == 0
    start = jnp.where(ok, ga, 0)
    region = lax.dynamic_slice(buf, (start,), (span,))
    length = bl * BLK
    if gside:
        rows = CP._read_rows(region, 0, gstep, bc, length)
        old = CP._read_rows(state.ub, ua, ustep, bc, length)
        ub = CP._write_rows(state.ub, ua, ustep, jnp.where(run, rows, old))
        return state.replace(ub=ub, fault=state.fault | fault), gm
    rows = CP._read_rows(state.ub, ua, ustep, bc, length)
    new = jnp.where(run, CP._write_rows(region, 0, gstep, rows), region)
    buf = lax.dynamic_update_slice(buf, new, (start,))
    return state.replace(fault=state.fault | fault), gm[: gm_t.buf] + (buf,) + gm[gm_t.buf + 1 :]


def _gm_static_span(api, arg, t, buf, start_off, step, count, last_len, p):
    """Static GM bounds check (every value a Python int)."""
    if count == 0 or last_len == 0 or not _static(t.addr):
        return
    base = int(t.addr) + start_off
    end = base + (count - 1) * step + last_len
    n = buf.shape[-1]
    if base < 0 or end > n:
        raise UsageError(
            api,
            arg,
            f"bytes [{base}, {end}) of GM buffer {t.buf}",
            f"inside [0, {n})",
            p,
            "the access runs past the GM array",
        )


@register(
    ApiSpec(
        "DataCopy",
        "data_copy",
        (
            "DataCopy(dst: LocalTensor, src: GlobalTensor, count)",
            "DataCopy(dst: GlobalTensor, src: LocalTensor, count)",
            "DataCopy(dst: LocalTensor, src: LocalTensor, count)",
            "DataCopy(dst, src, DataCopyParams{blockCount, blockLen, srcStride, dstStride})",
            "DataCopy<T, enableSmallC0=false>(dst: LocalTensor, src: GlobalTensor, Nd2NzParams)",
            "DataCopy(dst: GlobalTensor, src: LocalTensor, Nz2NdParamsFull)",
            "DataCopy(dst, src, SliceInfo dstSliceInfo[], SliceInfo srcSliceInfo[], dimValue=1)",
            "DataCopy<T, dim, config=kDefaultNdDmaConfig>(dst: LocalTensor, src: GlobalTensor, NdDmaParams<T, dim>)",
        ),
        "memory-vector/数据搬运/GM与UB数据搬运/GM与UB连续数据搬运(DataCopy).md",
    )
)
def DataCopy(
    state,
    gm,
    dst,
    src,
    countOrParams,
    srcSliceInfo=None,
    dimValue=1,
    *,
    profile=None,
    max_blocks=None,
    config=None,
    enableSmallC0=False,
):
    """Copy between GM and UB (or UB and UB) in 32-byte DataBlocks. Returns ``(state, gm)``.

    ``countOrParams``: an element count (int or traced; ``count*sizeof(T)`` must be a multiple of
    32 bytes unless ``apis.DataCopy.count_unaligned = "round_down"``) or a ``DataCopyParams``.
    ``max_blocks`` (static): the slot bucket when the count/params are traced (default: what
    the UB-side tensor holds).

    The overload is chosen by the params type, as in C++ (every field a Python int; the addresses
    may be traced): ``Nd2NzParams`` (GM -> UB with ND -> NZ conversion; ``enableSmallC0`` the 950
    template flag), ``Nz2NdParamsFull`` (UB -> GM with NZ -> ND conversion), a sequence of
    ``SliceInfo`` (``countOrParams`` is ``dstSliceInfo``; then ``srcSliceInfo`` and ``dimValue``),
    ``NdDmaParams`` (GM -> UB NDDMA; ``config`` the ``NdDmaConfig`` template argument). See
    docs/MODEL.md "DataCopy layout conversion, slices and NDDMA".
    """
    p = as_profile(profile)
    api = "DataCopy"
    kind = _kind(api, dst, src, p)
    _check_dtypes(api, dst, src, p)
    dt = dst.dtype
    form = _layout_form(countOrParams)
    lm = _active_loop(state, kind)
    if lm is not None:
        if form is not None:
            raise NotModelledError("DataCopy: a layout form (ND2NZ / NZ2ND / slice / NDDMA) under loop mode")
        return _looped(
            state,
            gm,
            dst,
            src,
            lm,
            lambda st, g, d, s: DataCopy(st, g, d, s, countOrParams, profile=p, max_blocks=max_blocks),
        )
    if form is not None:
        return _layout_copy(
            state, gm, dst, src, kind, form, countOrParams, srcSliceInfo, dimValue, p, config, enableSmallC0
        )
    if srcSliceInfo is not None or dimValue != 1:
        raise UsageError(api, "srcSliceInfo", srcSliceInfo, "only with a SliceInfo dstSliceInfo[]", p)
    a = p.require_api(api, dt)
    if kind == "ub2ub" and not a.ub_to_ub:
        raise UsageError(
            api,
            "dst/src",
            "LocalTensor, LocalTensor",
            "GM <-> UB only",
            p,
            "UB -> UB DataCopy is not supported",
        )
    gm = tuple(gm or ())
    bad = bad0 = jnp.zeros((), bool)
    if isinstance(countOrParams, (DataCopyExtParams, DataCopyPadExtParams, DataCopyPadParams)):
        raise UsageError(api, "repeatParams", type(countOrParams).__name__, "a count or DataCopyParams", p)
    if isinstance(countOrParams, (DataCopyParams, tuple, list, dict)):
        prm = as_data_copy_params(countOrParams)
        # "const DataCopyParams& repeatParams" (GM与UB高维切分数据搬运(DataCopy).md)
        bc, bad = _field(api, "repeatParams.blockCount", prm.blockCount, 0, 4095, p, bad)
        bl, bad = _field(api, "repeatParams.blockLen", prm.blockLen, 0, 65535, p, bad)
        sg, bad = _field(api, "repeatParams.srcStride", prm.srcStride, 0, 65535, p, bad)
        dg, bad = _field(api, "repeatParams.dstStride", prm.dstStride, 0, 65535, p, bad)
    else:
        count = countOrParams
        size = dt.itemsize
        policy = a.count_unaligned
        if A.is_static(count):
            count = A.static_int(api, "count", count, 0, 2**32 - 1, p)
            if (count * size) % BLK and policy == "error":
                raise UsageError(
                    api,
                    "count",
                    count,
                    f"a multiple of {BLK // math.gcd(BLK, size)} ({BLK} bytes of {dt.name})",
                    p,
                    "count*sizeof(T) must be 32-byte aligned (GM与UB连续数据搬运: 搬运量需要32字节对齐)",
                )
            cap = p.ub_usable_bytes // size
            if count > cap:
                raise UsageError(api, "count", count, f"[0, {cap}] (ub_usable_bytes / sizeof(T))", p)
            bc, bl = 1, count * size // BLK
        else:
            c = jnp.asarray(count)
            c = c.astype(jnp.uint32).astype(I32) if c.dtype == jnp.uint32 else c.astype(I32)
            bad = bad | (c < 0)
            c = jnp.maximum(c, 0)
            c = jnp.minimum(c, (2**30) // size)
            nbytes = c * size
            if policy == "error":
                bad = bad | (nbytes % BLK != 0)
            bc, bl = jnp.int32(1), nbytes // BLK
        sg = dg = 0
    local = dst if kind != "ub2gm" else src
    if _static(bc, bl):
        nb = int(bc) * int(bl)
    elif max_blocks is not None:
        nb = int(max_blocks)
    else:
        nb = max(1, -(-local.nbytes // BLK))
    # static GM bounds
    for side, t, gap in (("dst", dst, dg), ("src", src, sg)):
        if isinstance(t, GlobalTensor):
            buf = _gm_buf(api, side, t, gm, p)
            if _static(bc, bl, gap):
                _gm_static_span(api, side, t, buf, 0, (int(bl) + int(gap)) * BLK, int(bc), int(bl) * BLK, p)
    src_buf = gm[src.buf] if isinstance(src, GlobalTensor) else None
    dst_buf = gm[dst.buf] if isinstance(dst, GlobalTensor) else None
    ub_limit = min(state.ub.shape[-1], p.ub_usable_bytes)
    if _static(src.addr, dst.addr, bc, bl, sg, dg):
        # every value known at trace time: faults decided here, data moved as whole rows
        sv = {n: int(v) for n, v in (("src", src.addr), ("dst", dst.addr), ("bc", bc), ("bl", bl))}
        fault = CP.static_copy_fault(
            kind,
            sv["src"],
            sv["dst"],
            sv["bc"],
            sv["bl"],
            int(sg),
            int(dg),
            src_len=None if src_buf is None else src_buf.shape[-1],
            dst_len=None if dst_buf is None else dst_buf.shape[-1],
            ub_limit=ub_limit,
            gm_align=dt.itemsize,
            ub_align=p.operand_alignment_bytes,
            zero_policy=a.zero_block,
        )
        ub, new_dst = state.ub, dst_buf
        if fault == 0 and sv["bc"] and sv["bl"]:
            ub, new_dst = CP.static_block_copy(
                ub, src_buf, dst_buf, kind=kind, **sv, src_gap=int(sg), dst_gap=int(dg)
            )
        if fault:
            state = state.replace(fault=state.fault | np.uint32(fault))
        state = state.replace(ub=ub)
        if isinstance(dst, GlobalTensor):
            gm = gm[: dst.buf] + (new_dst,) + gm[dst.buf + 1 :]
        return state, gm
    semi = _gm_traced_copy(state, gm, kind, src, dst, (bc, bl, sg, dg), bad is not bad0, ub_limit, dt, p, a)
    if semi is not None:
        return semi
    dyn = {
        "src": A.addr_of(src),
        "dst": A.addr_of(dst),
        "bc": jnp.asarray(bc, I32),
        "bl": jnp.asarray(bl, I32),
        "src_gap": jnp.asarray(sg, I32),
        "dst_gap": jnp.asarray(dg, I32),
        "bad": bad,
    }
    ub, new_dst, fault = CP.block_copy(
        state.ub,
        src_buf,
        dst_buf,
        dyn,
        kind=kind,
        nb=max(nb, 1),
        ub_limit=ub_limit,
        gm_align=dt.itemsize,
        ub_align=p.operand_alignment_bytes,
        zero_policy=a.zero_block,
    )
    state = state.replace(ub=ub, fault=state.fault | fault)
    if isinstance(dst, GlobalTensor):
        gm = gm[: dst.buf] + (new_dst,) + gm[dst.buf + 1 :]
    return state, gm


@register(
    ApiSpec(
        "DataCopyPad",
        "data_copy",
        (
            "DataCopyPad(dst: LocalTensor, src: GlobalTensor, DataCopyExtParams, DataCopyPadExtParams<T>)",
            "DataCopyPad(dst: GlobalTensor, src: LocalTensor, DataCopyExtParams)",
        ),
        "memory-vector/数据搬运/GM与UB数据搬运/GMToUB非对齐数据搬运(DataCopyPad).md",
    )
)
def DataCopyPad(
    state, gm, dst, src, dataCopyParams, padParams=None, *, profile=None, max_blocks=None, mode=0
):
    """Unaligned copy GM -> UB (with padding) or UB -> GM. Returns ``(state, gm)``.

    ``dataCopyParams``: ``DataCopyExtParams`` (blockLen and the GM-side stride in bytes, the
    UB-side stride in 32-byte blocks); a ``DataCopyParams`` is read with the same units (the
    older prototype). ``padParams`` (GM -> UB only): ``DataCopyPadExtParams``. ``mode``:
    ``PaddingMode`` (0 Normal; 1 Compact is not modelled). ``max_blocks`` (static): slot bucket
    for traced parameters (GM -> UB: UB blocks; UB -> GM: bytes / 32).
    """
    p = as_profile(profile)
    api = "DataCopyPad"
    kind = _kind(api, dst, src, p)
    if kind == "ub2ub":
        raise UsageError(api, "dst/src", "LocalTensor, LocalTensor", "GM -> UB or UB -> GM", p)
    lm = _active_loop(state, kind)
    if lm is not None:
        return _looped(
            state,
            gm,
            dst,
            src,
            lm,
            lambda st, g, d, s: DataCopyPad(
                st, g, d, s, dataCopyParams, padParams, profile=p, max_blocks=max_blocks, mode=mode
            ),
        )
    _check_dtypes(api, dst, src, p)
    dt = dst.dtype
    size = dt.itemsize
    a = p.require_api(api, dt)
    if int(mode) != 0:
        if not a.compact_mode:
            raise UsageError(api, "mode", mode, "PaddingMode::Normal (0)", p)
        raise NotModelledError(
            "DataCopyPad: PaddingMode::Compact is documented on this profile but not modelled"
        )
    gm = tuple(gm or ())
    prm = as_data_copy_ext_params(dataCopyParams)
    bad = jnp.zeros((), bool)
    # "const DataCopyExtParams& dataCopyParams", "const DataCopyPadExtParams<T>& padParams"
    # (GMToUB / UBToGM非对齐数据搬运(DataCopyPad).md)
    bc, bad = _field(api, "dataCopyParams.blockCount", prm.blockCount, 0, 4095, p, bad)
    bl, bad = _field(api, "dataCopyParams.blockLen", prm.blockLen, 0, 2097151, p, bad)
    if A.is_static(bl):
        if bl % size:
            raise UsageError(
                api, "dataCopyParams.blockLen", bl, f"a multiple of sizeof({dt.cpp}) = {size}", p
            )
    else:
        bad = bad | (bl % size != 0)
    gm_side = "src" if kind == "gm2ub" else "dst"
    # SPEC: DataCopyPad 约束说明 -- strides uint32 [0, 2^32-1]; 950: GM->UB srcStride int64 in
    # [-blockLen, 2^40-1], dstStride [0, 65535]; UB->GM srcStride [0, 65535], dstStride [0, 2^40-1].
    lo_gm = -(2**31) if a.negative_src_stride and kind == "gm2ub" else 0
    ub_hi = a.ub_stride_max
    gm_hi = 2**32 - 1
    strides = {}
    for name in ("srcStride", "dstStride"):
        side = "src" if name == "srcStride" else "dst"
        v = getattr(prm, name)
        if side == gm_side:
            s, bad = _field(api, f"dataCopyParams.{name}", v, lo_gm, gm_hi, p, bad)
            if lo_gm < 0:
                if A.is_static(s) and A.is_static(bl) and s < -bl:
                    raise UsageError(
                        api, f"dataCopyParams.{name}", s, f"[-blockLen, 2^40-1] = [{-bl}, {2**40 - 1}]", p
                    )
                if not (A.is_static(s) and A.is_static(bl)):
                    bad = bad | (jnp.asarray(s) < -jnp.asarray(bl))
                    s = jnp.maximum(s, -jnp.asarray(bl))
        else:
            s, bad = _field(api, f"dataCopyParams.{name}", v, 0, ub_hi, p, bad)
        strides[side] = s
    if kind == "gm2ub":
        pad = as_pad_params(padParams)
        if not isinstance(pad.isPad, (bool, np.bool_)):
            raise UsageError(api, "padParams.isPad", pad.isPad, "a Python bool (compile-time)", p)
        lp, bad = _field(api, "padParams.leftPadding", pad.leftPadding, 0, BLK // size, p, bad)
        rp, bad = _field(api, "padParams.rightPadding", pad.rightPadding, 0, BLK // size, p, bad)
        pv = pad.paddingValue
        if size == 8 and A.is_static(pv) and pv != 0:
            raise UsageError(api, "padParams.paddingValue", pv, "0 (64-bit T)", p)
        pad_bytes = _scalar_bytes(pv, dt)
        is_pad = bool(pad.isPad)
        if not is_pad and state.pad_value is not None:
            # SPEC: "isPad ... false：不使用paddingValue字段，根据是否调用寄存器配置接口SetPadValue分为两种
            #       情况。调用SetPadValue时，在接口外部配置需要填充的数据" (DataCopyPad.md): the register's
            #       value fills the padding (and the dummy bytes, as paddingValue does with isPad)
            pad_bytes = jnp.asarray(state.pad_value, jnp.uint8)[..., :size]
            is_pad = True
        row = None
        if _static(bc, bl, lp, rp):
            row = -(-(int(lp) * size + int(bl) + int(rp) * size) // BLK)
        if row is not None and _static(bc):
            nb = int(bc) * row
        elif max_blocks is not None:
            nb = int(max_blocks)
        else:
            nb = max(1, -(-dst.nbytes // BLK))
        buf = _gm_buf(api, "src", src, gm, p)
        if _static(bc, bl, strides["src"]):
            _gm_static_span(api, "src", src, buf, 0, int(bl) + int(strides["src"]), int(bc), int(bl), p)
        ub_limit = min(state.ub.shape[-1], p.ub_usable_bytes)
        if (
            _static(src.addr, dst.addr, bc, bl, strides["src"], strides["dst"], lp, rp)
            and int(strides["src"]) >= 0
        ):
            # every value known at trace time: faults decided here, whole rows moved
            sv = {
                "src": int(src.addr),
                "dst": int(dst.addr),
                "bc": int(bc),
                "bl": int(bl),
                "src_stride": int(strides["src"]),
                "dst_stride": int(strides["dst"]),
            }
            fault = CP.static_pad_fault(
                True,
                **sv,
                lb=int(lp) * size,
                rb=int(rp) * size,
                gm_len=buf.shape[-1],
                ub_limit=ub_limit,
                ub_align=p.operand_alignment_bytes,
                zero_policy=a.zero_block,
            )
            ub = state.ub
            if fault == 0 and sv["bc"] and sv["bl"]:
                ub = CP.static_pad_gm2ub(
                    ub,
                    buf,
                    pad_bytes,
                    **sv,
                    lb=int(lp) * size,
                    rb=int(rp) * size,
                    is_pad=is_pad,
                    size=size,
                )
            if fault:
                state = state.replace(fault=state.fault | np.uint32(fault))
            return state.replace(ub=ub), gm
        dyn = {
            "src": A.addr_of(src),
            "dst": A.addr_of(dst),
            "bc": jnp.asarray(bc, I32),
            "bl": jnp.asarray(bl, I32),
            "src_stride": jnp.asarray(strides["src"], I32),
            "dst_stride": jnp.asarray(strides["dst"], I32),
            "lb": jnp.asarray(lp, I32) * size,
            "rb": jnp.asarray(rp, I32) * size,
            "bad": bad,
        }
        ub, fault = CP.pad_gm2ub(
            state.ub,
            buf,
            dyn,
            pad_bytes,
            nb=max(nb, 1),
            ub_limit=min(state.ub.shape[-1], p.ub_usable_bytes),
            ub_align=p.operand_alignment_bytes,
            is_pad=is_pad,
            size=size,
            zero_policy=a.zero_block,
        )
        return state.replace(ub=ub, fault=state.fault | fault), gm
    # UB -> GM
    if padParams is not None:
        raise TypeError("DataCopyPad UB -> GM takes no padParams")
    buf = _gm_buf(api, "dst", dst, gm, p)
    if _static(bc, bl):
        nbytes = int(bc) * int(bl)
    elif max_blocks is not None:
        nbytes = int(max_blocks) * BLK
    else:
        nbytes = max(1, src.nbytes)
    if _static(bc, bl, strides["dst"]):
        _gm_static_span(api, "dst", dst, buf, 0, int(bl) + int(strides["dst"]), int(bc), int(bl), p)
    if _static(src.addr, dst.addr, bc, bl, strides["src"], strides["dst"]):
        sv = {
            "src": int(src.addr),
            "dst": int(dst.addr),
            "bc": int(bc),
            "bl": int(bl),
            "src_stride": int(strides["src"]),
            "dst_stride": int(strides["dst"]),
        }
        fault = CP.static_pad_fault(
            False,
            **sv,
            lb=0,
            rb=0,
            gm_len=buf.shape[-1],
            ub_limit=min(state.ub.shape[-1], p.ub_usable_bytes),
            ub_align=p.operand_alignment_bytes,
            zero_policy=a.zero_block,
        )
        new = buf
        if fault == 0 and sv["bc"] and sv["bl"]:
            new = CP.static_pad_ub2gm(state.ub, buf, **sv)
        if fault:
            state = state.replace(fault=state.fault | np.uint32(fault))
        return state, gm[: dst.buf] + (new,) + gm[dst.buf + 1 :]
    dyn = {
        "src": A.addr_of(src),
        "dst": A.addr_of(dst),
        "bc": jnp.asarray(bc, I32),
        "bl": jnp.asarray(bl, I32),
        "src_stride": jnp.asarray(strides["src"], I32),
        "dst_stride": jnp.asarray(strides["dst"], I32),
        "bad": bad,
    }
    new, fault = CP.pad_ub2gm(
        state.ub,
        buf,
        dyn,
        nb=max(nbytes, 1),
        ub_limit=min(state.ub.shape[-1], p.ub_usable_bytes),
        ub_align=p.operand_alignment_bytes,
        zero_policy=a.zero_block,
    )
    gm = gm[: dst.buf] + (new,) + gm[dst.buf + 1 :]
    return state.replace(fault=state.fault | fault), gm


def _scalar_bytes(value, dt):
    """uint8[sizeof(T)]: ``value`` converted to T (little endian); traced values allowed."""
    if dt.name == "complex32" and isinstance(value, (int, float, complex, np.number)):
        # a complex value is a number (docs/MODEL.md: "A complex scalar is given as a Python
        # number"), each part converted to half (Complex<half>, real part at the lower address,
        # 内置数据类型.md); not the raw uint32 the element is stored as (-1 overflowed it)
        c = complex(value)
        bits = A.round_to_float_bits(c.real, _dt.half) | (A.round_to_float_bits(c.imag, _dt.half) << 16)
        return jnp.asarray(np.frombuffer(np.uint32(bits).tobytes(), np.uint8).copy())
    if A.is_static(value):
        arr = (
            np.asarray(value).astype(dt.np_dtype) if dt.kind != "complex" else np.asarray(value, dt.np_dtype)
        )
        return jnp.asarray(np.frombuffer(arr.tobytes(), np.uint8).copy())
    v = jnp.asarray(value).astype(dt.np_dtype)
    raw = lax.bitcast_convert_type(v, jnp.uint8)
    return raw.reshape(-1)


def _int_or_none(*vals):
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in vals):
        return None
    return tuple(int(v) for v in vals)


def copy_footprint(api, dst, src, params, extra=(), **kw):
    """The byte spans ``(dst_span, src_span)`` a DataCopy / DataCopyPad call writes and reads, each
    ``(start, end)`` relative to its tensor's memory, or None where a value is traced. The same
    block rule the engine executes: ``blockCount`` blocks of ``blockLen``, each ``blockLen + gap``
    after the previous one (DataCopy: 32-byte units; DataCopyPad: bytes on the GM side, 32-byte
    blocks on the UB side, a UB block rounded up to 32 bytes)."""
    if api == "DataCopy" and _layout_form(params) is not None:
        return layout_footprint(dst, src, params, extra, **kw)
    size = _dt.as_dtype(dst.dtype).itemsize
    if api == "DataCopyPad":
        f = _int_or_none(params.blockCount, params.blockLen, params.srcStride, params.dstStride)
        if f is None:
            return None, None
        bc, bl, sg, dg = f
        ub_bl = -(-bl // BLK) * BLK
        if isinstance(src, GlobalTensor):  # GM -> UB: srcStride bytes, dstStride blocks
            s_step, s_len, d_step, d_len = bl + sg, bl, ub_bl + dg * BLK, ub_bl
        else:  # UB -> GM: srcStride blocks, dstStride bytes
            s_step, s_len, d_step, d_len = ub_bl + sg * BLK, ub_bl, bl + dg, bl
    elif isinstance(params, (int, np.integer)) and not isinstance(params, (bool, np.bool_)):
        bc, s_step = 1, 0
        s_len = d_len = int(params) * size
        d_step = 0
    elif isinstance(params, (DataCopyParams, tuple, list, dict)):
        prm = as_data_copy_params(params)
        f = _int_or_none(prm.blockCount, prm.blockLen, prm.srcStride, prm.dstStride)
        if f is None:
            return None, None
        bc, bl, sg, dg = f
        s_step, s_len, d_step, d_len = (bl + sg) * BLK, bl * BLK, (bl + dg) * BLK, bl * BLK
    else:
        return None, None

    def span(t, step, length):
        if not _static(t.addr) or bc == 0 or length == 0:
            return None
        a = int(t.addr)
        return a, a + (bc - 1) * step + length

    return span(dst, d_step, d_len), span(src, s_step, s_len)


@register(
    ApiSpec(
        "SetPadValue",
        "data_copy",
        ("SetPadValue<T, pos=TPosition::MAX>(T paddingValue)",),
        "memory-vector/数据搬运/GM与UB数据搬运/寄存器配置说明/SetPadValue(ISASI).md",
    )
)
def SetPadValue(state, T, paddingValue, *, profile=None):
    """Set the padding register a later ``DataCopyPad`` GM -> UB with ``isPad = false`` fills its
    padding (and dummy) bytes with (Ascend C ``AscendC::SetPadValue<T>(paddingValue)``; ``T``, the C++
    template argument, is a dtype here). ``paddingValue`` is converted to T as DataCopyPad's
    ``paddingValue`` is; the register holds T's bytes repeated over 8 bytes (CHOICE: a DataCopyPad of
    another element size reads its ``sizeof`` low bytes). Returns the new state.

    **Spec:** memory-vector/数据搬运/GM与UB数据搬运/寄存器配置说明/SetPadValue(ISASI).md. Profile keys:
    ``apis.SetPadValue`` (A2, A3, 950).
    """
    p = as_profile(profile)
    api = "SetPadValue"
    dt = _dt.as_dtype(T)
    p.require_api(api, dt)
    raw = _scalar_bytes(paddingValue, dt)
    pattern = jnp.tile(raw, 8 // dt.itemsize).astype(jnp.uint8)
    return state.replace(pad_value=jnp.broadcast_to(pattern, tuple(state.fault.shape) + (8,)))


# -- layout conversion, slices and NDDMA (issue 33 item 2) ------------------------------------------
# Pages: GMToUB随路转换ND2NZ搬运(DataCopy).md, UBToGM随路转换NZ2ND搬运(DataCopy).md,
# GM与UB切片数据搬运(DataCopy).md, GMToUB多维数据搬运NDDMA(DataCopy).md. Every parameter is a Python
# int (static); the element map is built at trace time (_engine/copy_layout.py).

_FORMS = {
    # form: (profile key of the dtypes, the argument's C++ name, the struct, the allowed paths)
    "nd2nz": ("nd2nz_dtypes", "intriParams", "Nd2NzParams", ("gm2ub",)),
    "nz2nd": ("nz2nd_dtypes", "intriParams", "Nz2NdParamsFull", ("ub2gm",)),
    "slice": ("slice_dtypes", "dstSliceInfo", "SliceInfo[]", ("gm2ub", "ub2gm")),
    "nddma": ("nddma_dtypes", "params", "NdDmaParams<T, dim>", ("gm2ub",)),
}
_PATH_NAMES = {"gm2ub": "GM -> UB (LocalTensor dst, GlobalTensor src)", "ub2gm": "UB -> GM"}


def _layout_form(x):
    if isinstance(x, Nd2NzParams):
        return "nd2nz"
    if isinstance(x, Nz2NdParamsFull):
        return "nz2nd"
    if isinstance(x, NdDmaParams):
        return "nddma"
    if isinstance(x, (tuple, list)) and x and all(isinstance(v, SliceInfo) for v in x):
        return "slice"
    return None


def _sint(api, name, value, lo, hi, p, detail=""):
    """A layout form's field: a Python int in [lo, hi] (a traced value is a UsageError)."""
    if not A.is_static(value):
        raise UsageError(
            api, name, "a traced value", "a Python int (these prototypes are modelled static)", p
        )
    return A.static_int(api, name, value, lo, hi, p, detail)


def _nd2nz_map(api, prm, size, small_c0, p):
    f = {}
    lows = {"srcDValue": 1, "dstNzC0Stride": 1, "dstNzNStride": 1}
    for name, hi in Nd2NzParams._field_ranges.items():
        # SPEC: 表4 gives dstNzMatrixStride ∈ [1, 65535] but the page's own example passes 0 (ndNum 1):
        #       CHOICE: 0 accepted (it is never used when ndNum <= 1)
        f[name] = _sint(api, f"intriParams.{name}", getattr(prm, name), lows.get(name, 0), hi, p)
    # SPEC: "enableSmallC0 ... 当dValue小于等于4的时候，C0_SIZE会补齐到4 * sizeof(T)字节"
    c0 = 4 if small_c0 and f["dValue"] <= 4 else BLK // size
    return CL.nd2nz_map(
        f["ndNum"],
        f["nValue"],
        f["dValue"],
        f["srcNdMatrixStride"],
        f["srcDValue"],
        f["dstNzC0Stride"],
        f["dstNzNStride"],
        f["dstNzMatrixStride"],
        c0,
    )


def _nz2nd_map(api, prm, p):
    f = {}
    lows = {"nValue": 1, "dValue": 1, "srcNdMatrixStride": 1, "dstDStride": 1, "dstNdMatrixStride": 1}
    for name, hi in Nz2NdParamsFull._field_ranges.items():
        f[name] = _sint(api, f"intriParams.{name}", getattr(prm, name), lows.get(name, 0), hi, p)
    if f["dValue"] % 16:
        raise UsageError(api, "intriParams.dValue", f["dValue"], "a multiple of 16 in [16, 8192]", p)
    return CL.nz2nd_map(
        f["ndNum"],
        f["nValue"],
        f["dValue"],
        f["srcNdMatrixStride"],
        f["srcNStride"],
        f["dstDStride"],
        f["dstNdMatrixStride"],
    )


def _slice_map(api, kind, dst_info, src_info, dim_value, size, p):
    # SPEC: "切片数据搬运中的SliceInfo结构体数组大小和dimValue需要保持一致，并且不超过8"
    dim = _sint(api, "dimValue", dim_value, 1, 8, p)
    if not isinstance(src_info, (tuple, list)) or not all(isinstance(v, SliceInfo) for v in src_info):
        raise UsageError(api, "srcSliceInfo", src_info, "a sequence of SliceInfo", p)
    for name, info in (("dstSliceInfo", dst_info), ("srcSliceInfo", src_info)):
        if len(info) != dim:
            raise UsageError(api, name, f"{len(info)} SliceInfo", f"dimValue = {dim} of them", p)
    sides = {}
    for name, infos in (("dstSliceInfo", dst_info), ("srcSliceInfo", src_info)):
        rows = []
        for k, s in enumerate(infos):
            v = [
                _sint(api, f"{name}[{k}].{fld}", getattr(s, fld), 0, 2**32 - 1, p)
                for fld in ("startIndex", "endIndex", "stride", "burstLen", "shapeValue")
            ]
            start, end, stride, burst, shape = v
            if k > 0 and burst != 1:
                # SPEC: "burstLen，仅在dimValue = 1时生效，超出1维的情况下，必须配置为1"
                raise UsageError(
                    api, f"{name}[{k}].burstLen", burst, "1 (every dimension after the first)", p
                )
            if k == 0 and burst == 0:
                raise UsageError(api, f"{name}[0].burstLen", 0, "a DataBlock count >= 1", p)
            if not start < end <= shape:
                # SPEC: "startIndex < endIndex <= shapeValue"
                raise UsageError(
                    api,
                    f"{name}[{k}].endIndex",
                    end,
                    f"startIndex < endIndex <= shapeValue ({start}, {shape})",
                    p,
                )
            chunk = burst * BLK // size if k == 0 else 1
            if (end - start + 1 + stride) % (chunk + stride):
                # SPEC: "endIndex - startIndex + 1 = (N - 1) * stride + N * burstLen * 32 / sizeof(T)"
                raise UsageError(
                    api,
                    f"{name}[{k}].endIndex",
                    end,
                    f"startIndex - 1 + N * {chunk} + (N - 1) * stride for a whole N",
                    p,
                    "the slice must end on the last element of a burst",
                )
            rows.append(v)
        sides[name] = rows
    for k in range(dim):
        if sides["dstSliceInfo"][k][3] != sides["srcSliceInfo"][k][3]:
            # SPEC: "srcSliceInfo[i].burstLen = dstSliceInfo[i].burstLen"
            raise UsageError(
                api,
                f"srcSliceInfo[{k}].burstLen",
                sides["srcSliceInfo"][k][3],
                sides["dstSliceInfo"][k][3],
                p,
            )
    d_off = CL.slice_offsets(sides["dstSliceInfo"], size)
    s_off = CL.slice_offsets(sides["srcSliceInfo"], size)
    if d_off.size != s_off.size:
        raise UsageError(
            api,
            "srcSliceInfo",
            f"{s_off.size} elements",
            f"as many as dstSliceInfo selects ({d_off.size})",
            p,
        )
    # SPEC: "位于Unified Buffer的地址必须32字节对齐": every burst on the UB side starts on a DataBlock
    chunk = sides["dstSliceInfo"][0][3] * BLK // size
    ub_off = d_off if kind == "gm2ub" else s_off
    bad = (ub_off[::chunk] * size) % BLK
    if bad.any():
        name = "dstSliceInfo" if kind == "gm2ub" else "srcSliceInfo"
        raise UsageError(
            api,
            name,
            f"a burst at UB byte offset {int(ub_off[::chunk][bad.argmax()] * size)}",
            "32-byte aligned",
            p,
        )
    return s_off, d_off


def _nddma_map(api, prm, config, dt, p):
    cfg = config if config is not None else NdDmaConfig()
    if not isinstance(cfg, NdDmaConfig):
        raise UsageError(api, "config", cfg, "an NdDmaConfig", p)
    if cfg.ascOptimize:
        raise UsageError(api, "config.ascOptimize", True, "false (预留参数，暂不支持)", p)
    if not isinstance(cfg.isNearestValueMode, (bool, np.bool_)):
        raise UsageError(api, "config.isNearestValueMode", cfg.isNearestValueMode, "a Python bool", p)
    li = prm.loopInfo
    dim = _sint(api, "dim", li.dim, 1, 5, p)
    # SPEC: 表5 ranges -- loopSrcStride [0, 2^40), loopDstStride [0, 2^20), loopSize [0, 2^20),
    #       loopLpSize / loopRpSize [0, 255]
    hi = {
        "loopSrcStride": 2**40 - 1,
        "loopDstStride": 2**20 - 1,
        "loopSize": 2**20 - 1,
        "loopLpSize": 255,
        "loopRpSize": 255,
    }
    f = {}
    for name, top in hi.items():
        vals = getattr(li, name)
        if not isinstance(vals, tuple) or len(vals) != dim:
            raise UsageError(api, f"params.loopInfo.{name}", vals, f"{dim} values (dim = {dim})", p)
        f[name] = [_sint(api, f"params.loopInfo.{name}[{k}]", v, 0, top, p) for k, v in enumerate(vals)]
    for name in ("loopLpSize", "loopRpSize"):
        v = getattr(cfg, name)
        if v != NdDmaConfig.unsetPad:
            # SPEC: "当该值不为unsetPad时，则表示所有循环里的左PaddingSize为该值，且会使NdDmaLoopInfo::loopLpSize不生效"
            v = _sint(api, f"config.{name}", v, 0, 255, p, "or unsetPad (0xFFFF)")
            f[name] = [v] * dim
    size = dt.itemsize
    if size == 8:
        # SPEC: "当数据类型为b64时，参数isNearestValueMode的值应为False" / "constantValue的值应为0"
        if cfg.isNearestValueMode:
            raise UsageError(api, "config.isNearestValueMode", True, "false (64-bit T)", p)
        if A.is_static(prm.constantValue) and prm.constantValue != 0:
            raise UsageError(api, "params.constantValue", prm.constantValue, "0 (64-bit T)", p)
    padded = any(f["loopLpSize"]) or any(f["loopRpSize"])
    if 0 in f["loopSize"]:
        if padded:
            raise NotModelledError(
                "DataCopy NDDMA: a loopSize of 0 with padding (the page does not say whether the padding "
                "is written when a dimension has no element)"
            )
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    ext = [f["loopLpSize"][k] + f["loopSize"][k] + f["loopRpSize"][k] for k in range(dim)]
    total = math.prod(ext)
    if total * size > p.ub_usable_bytes:
        raise UsageError(
            api, "params.loopInfo", f"{total} destination elements", f"at most {p.ub_usable_bytes // size}", p
        )
    span = sum((f["loopSize"][k] - 1) * f["loopSrcStride"][k] for k in range(dim)) * size
    if span >= 2**40:
        # SPEC: "一条指令所能获取的所有数据的地址范围宽度不能超过40位（1TB）"
        raise UsageError(
            api, "params.loopInfo.loopSrcStride", f["loopSrcStride"], "a source span under 2^40 bytes", p
        )
    return CL.nddma_map(
        f["loopSrcStride"],
        f["loopDstStride"],
        f["loopSize"],
        f["loopLpSize"],
        f["loopRpSize"],
        cfg.isNearestValueMode,
    )


def _layout_maps(api, kind, form, prm, src_info, dim_value, dt, p, config, small_c0):
    """Validate a layout form and return its element map ``(src, dst)`` (src -1: padding)."""
    key, arg, struct, paths = _FORMS[form]
    if kind not in paths:
        raise UsageError(
            api, "dst/src", _PATH_NAMES.get(kind, kind), " or ".join(_PATH_NAMES[k] for k in paths), p
        )
    a = p.require_api(api)
    allowed = getattr(a, key)
    if not allowed:
        raise UnsupportedError(
            api,
            arg,
            struct,
            "none (the product does not have this prototype)",
            p,
            f"apis.DataCopy.{key} is empty",
        )
    if dt.name not in allowed:
        raise UnsupportedError(api, "dtype", dt.name, ", ".join(allowed), p, f"apis.DataCopy.{key}")
    if form != "slice" and (src_info is not None or dim_value != 1):
        raise UsageError(api, "srcSliceInfo", src_info, f"none with {struct}", p)
    if small_c0 and (form != "nd2nz" or not a.nd2nz_small_c0):
        raise UsageError(api, "enableSmallC0", True, "false (the template flag exists on 950 ND2NZ only)", p)
    if config is not None and form != "nddma":
        raise UsageError(api, "config", config, f"none with {struct}", p)
    size = dt.itemsize
    if form == "nd2nz":
        src, dst = _nd2nz_map(api, prm, size, small_c0, p)
    elif form == "nz2nd":
        src, dst = _nz2nd_map(api, prm, p)
    elif form == "slice":
        src, dst = _slice_map(api, kind, prm, src_info, dim_value, size, p)
    else:
        src, dst = _nddma_map(api, prm, config, dt, p)
    if np.unique(dst).size != dst.size:
        # CHOICE: overlapping destination elements are undefined (NDDMA: "不同循环间的地址空间不能交织或者重叠";
        #         the other pages give no order): a UsageError
        raise UsageError(api, arg, struct, "parameters whose destination elements do not overlap", p)
    return src, dst


def _layout_copy(state, gm, dst, src, kind, form, prm, src_info, dim_value, p, config, small_c0):
    api = "DataCopy"
    dt = dst.dtype
    s_el, d_el = _layout_maps(api, kind, form, prm, src_info, dim_value, dt, p, config, small_c0)
    gm = tuple(gm or ())
    size = dt.itemsize
    if d_el.size == 0:  # CHOICE: nothing to move (ndNum 0, ...) is a NOP
        return state, gm
    sb, db = CL.byte_map(s_el, d_el, size)
    for side, t, offs in (("dst", dst, db), ("src", src, sb[sb >= 0])):
        if isinstance(t, GlobalTensor):
            buf = _gm_buf(api, side, t, gm, p)
            if offs.size and _static(t.addr):
                lo, hi = int(t.addr) + int(offs.min()), int(t.addr) + int(offs.max()) + 1
                if lo < 0 or hi > buf.shape[-1]:
                    raise UsageError(
                        api,
                        side,
                        f"bytes [{lo}, {hi}) of GM buffer {t.buf}",
                        f"inside [0, {buf.shape[-1]})",
                        p,
                        "the access runs past the GM array",
                    )
    if form == "nddma":
        fill = _scalar_bytes(prm.constantValue, dt)
    else:  # SPEC: ND2NZ "当dValue不满足32字节对齐时，在目的操作数中不足的部分会被补齐为0"
        fill = np.zeros(size, np.uint8)
    ub, new_dst, fault = CL.indexed_copy(
        state.ub,
        gm[src.buf] if isinstance(src, GlobalTensor) else None,
        gm[dst.buf] if isinstance(dst, GlobalTensor) else None,
        kind=kind,
        s_addr=src.addr,
        d_addr=dst.addr,
        sb=sb,
        db=db,
        fill=fill,
        ub_limit=min(state.ub.shape[-1], p.ub_usable_bytes),
        ub_align=p.operand_alignment_bytes,
    )
    state = state.replace(ub=ub, fault=state.fault | fault)
    if isinstance(dst, GlobalTensor):
        gm = gm[: dst.buf] + (new_dst,) + gm[dst.buf + 1 :]
    return state, gm


def layout_footprint(dst, src, params, extra=(), profile=None, config=None, enableSmallC0=False):
    """``(dst_span, src_span)`` of a layout-form DataCopy, each ``(start, end)`` in bytes (None where an
    address is traced or the call is invalid: the call itself then raises)."""
    form = _layout_form(params)
    if form is None:
        return None, None
    try:
        p = as_profile(profile)
        kind = _kind("DataCopy", dst, src, p)
        src_info = extra[0] if extra else None
        dim_value = extra[1] if len(extra) > 1 else 1
        s_el, d_el = _layout_maps(
            "DataCopy", kind, form, params, src_info, dim_value, dst.dtype, p, config, enableSmallC0
        )
    except (UsageError, NotModelledError):
        return None, None
    size = dst.dtype.itemsize

    def span(t, el):
        el = el[el >= 0]
        if not _static(t.addr) or el.size == 0:
            return None
        a = int(t.addr)
        return a + int(el.min()) * size, a + (int(el.max()) + 1) * size

    return span(dst, d_el), span(src, s_el)


@register(
    ApiSpec(
        "NdDmaDci",
        "data_copy",
        ("NdDmaDci()",),
        "memory-vector/数据搬运/GM与UB数据搬运/寄存器配置说明/NdDmaDci.md",
    )
)
def NdDmaDci(state, *, profile=None):
    """Refresh the NDDMA DataCache before a DataCopy NDDMA (Ascend C ``AscendC::NdDmaDci()``).
    CHOICE: the model has no NDDMA cache (a DataCopy NDDMA always reads GM as it is), so the call
    changes nothing; it exists where the profile has it (950) and is a UsageError elsewhere.
    Returns the state.

    **Spec:** memory-vector/数据搬运/GM与UB数据搬运/寄存器配置说明/NdDmaDci.md. Profile keys:
    ``apis.NdDmaDci``.
    """
    p = as_profile(profile)
    p.require_api("NdDmaDci")
    return state


# -- loop mode (寄存器配置说明/SetLoopModePara.md, ResetLoopModePara.md; 950) -------------------------

MAX_LOOP_ITERATIONS = 4096  # model limit: loop1Size * loop2Size (each call is unrolled at trace time)


def _active_loop(state, kind):
    regs = getattr(state, "loop_mode", None)
    if regs is None or kind not in ("gm2ub", "ub2gm"):
        return None
    return regs.get(kind == "gm2ub")


def _shifted(t, nbytes):
    return dataclasses.replace(t, addr=t.addr + nbytes) if nbytes else t


def _looped(state, gm, dst, src, lm, one):
    """The call ``one`` repeated loop2Size x loop1Size times, the source and destination moved by the
    loop strides (bytes) each iteration (SPEC: "loop1SrcStride 用于设置内层循环中相邻迭代源操作数的数据块间
    的间隔，单位为字节"). CHOICE: a fault in any iteration suppresses the whole call (its fault bits are
    recorded, nothing is written), as for every other call."""
    l1, l2, s1, d1, s2, d2 = lm
    if l1 == 0 or l2 == 0:
        raise NotModelledError(
            "DataCopy/DataCopyPad under loop mode with a loop size of 0 (the page does not say what moves)"
        )
    if l1 * l2 > MAX_LOOP_ITERATIONS:
        raise NotModelledError(
            f"loop mode with loop1Size * loop2Size = {l1 * l2} iterations (model limit {MAX_LOOP_ITERATIONS})"
        )
    regs = state.loop_mode
    st0, gm0 = state, tuple(gm or ())
    st, g = state.replace(loop_mode=None), gm0
    for j in range(l2):
        for i in range(l1):
            st, g = one(st, g, _shifted(dst, i * d1 + j * d2), _shifted(src, i * s1 + j * s2))
    new = st.fault != st0.fault
    ub = jnp.where(new, st0.ub, st.ub)
    g = tuple(b if b is a else jnp.where(new, a, b) for a, b in zip(gm0, g, strict=True))
    return st.replace(ub=ub, loop_mode=regs), g


def _loop_regs(api, loopParams, type, p):
    p.require_api(api)
    if not isinstance(type, DataCopyMVType):
        try:
            type = DataCopyMVType(type)
        except ValueError:
            raise UsageError(
                api, "type", type, "DataCopyMVType.UB_TO_OUT | DataCopyMVType.OUT_TO_UB", p
            ) from None
    return type


@register(
    ApiSpec(
        "SetLoopModePara",
        "data_copy",
        ("SetLoopModePara(LoopModeParams loopParams, DataCopyMVType type)",),
        "memory-vector/数据搬运/GM与UB数据搬运/寄存器配置说明/SetLoopModePara.md",
    )
)
def SetLoopModePara(state, loopParams, type, *, profile=None):
    """Enable loop mode on one data path (``DataCopyMVType.OUT_TO_UB``: GM -> UB, ``UB_TO_OUT``: UB ->
    GM): a later DataCopy (count / DataCopyParams) or DataCopyPad on that path runs ``loop2Size`` x
    ``loop1Size`` times, each iteration's source and destination ``loop1*Stride`` / ``loop2*Stride``
    bytes on. Every field a Python int. Returns the state.

    **Spec:** memory-vector/数据搬运/GM与UB数据搬运/寄存器配置说明/SetLoopModePara.md. Profile keys:
    ``apis.SetLoopModePara`` (950).
    """
    p = as_profile(profile)
    api = "SetLoopModePara"
    type = _loop_regs(api, loopParams, type, p)
    if not isinstance(loopParams, LoopModeParams):
        raise UsageError(api, "loopParams", loopParams, "a LoopModeParams", p)
    out_to_ub = type == DataCopyMVType.OUT_TO_UB
    vals = []
    for f in dataclasses.fields(LoopModeParams):
        name = f.name
        v = getattr(loopParams, name)
        if name.endswith("Size"):
            # SPEC: loop1Size / loop2Size "取值范围为[0, 2^21)"
            vals.append(_sint(api, f"loopParams.{name}", v, 0, 2**21 - 1, p))
            continue
        ub_side = ("Src" in name) != out_to_ub  # UB_TO_OUT: the source is UB; OUT_TO_UB: the destination
        hi = 2**21 - 1 if ub_side else 2**40 - 1
        v = _sint(api, f"loopParams.{name}", v, 0, hi, p)
        if ub_side and v % BLK:
            # SPEC: the UB-side strides "取值范围为[0, 2^21)，并且...必须32字节对齐"
            raise UsageError(api, f"loopParams.{name}", v, "a multiple of 32 in [0, 2^21)", p)
        vals.append(v)
    regs = state.loop_mode if state.loop_mode is not None else LoopModeRegs()
    return state.replace(loop_mode=regs.set(out_to_ub, tuple(vals)))


@register(
    ApiSpec(
        "ResetLoopModePara",
        "data_copy",
        ("ResetLoopModePara(DataCopyMVType type)",),
        "memory-vector/数据搬运/GM与UB数据搬运/寄存器配置说明/ResetLoopModePara.md",
    )
)
def ResetLoopModePara(state, type, *, profile=None):
    """Reset one data path's loop-mode registers (loop mode off on that path). Returns the state.

    **Spec:** memory-vector/数据搬运/GM与UB数据搬运/寄存器配置说明/ResetLoopModePara.md. Profile keys:
    ``apis.ResetLoopModePara`` (950).
    """
    p = as_profile(profile)
    type = _loop_regs("ResetLoopModePara", None, type, p)
    if state.loop_mode is None:
        return state
    regs = state.loop_mode.set(type == DataCopyMVType.OUT_TO_UB, None)
    return state.replace(loop_mode=None if regs == LoopModeRegs() else regs)
