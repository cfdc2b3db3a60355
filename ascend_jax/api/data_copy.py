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

import math

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtypes as _dt
from .._engine import copy as CP
from ..errors import NotModelledError, UsageError
from ..gm import GlobalTensor
from ..params import (
    DataCopyExtParams,
    DataCopyPadExtParams,
    DataCopyPadParams,
    DataCopyParams,
    as_data_copy_ext_params,
    as_data_copy_params,
    as_pad_params,
)
from ..profile import as_profile
from ..registry import ApiSpec, register
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
        ),
        "memory-vector/数据搬运/GM与UB数据搬运/GM与UB连续数据搬运(DataCopy).md",
    )
)
def DataCopy(state, gm, dst, src, countOrParams, *, profile=None, max_blocks=None):
    """Copy between GM and UB (or UB and UB) in 32-byte DataBlocks. Returns ``(state, gm)``.

    ``countOrParams``: an element count (int or traced; ``count*sizeof(T)`` must be a multiple of
    32 bytes unless ``apis.DataCopy.count_unaligned = "round_down"``) or a ``DataCopyParams``.
    ``max_blocks`` (static): the slot bucket when the count/params are traced (default: what
    the UB-side tensor holds).
    """
    p = as_profile(profile)
    api = "DataCopy"
    kind = _kind(api, dst, src, p)
    _check_dtypes(api, dst, src, p)
    dt = dst.dtype
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
    bad = jnp.zeros((), bool)
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


def copy_footprint(api, dst, src, params):
    """The byte spans ``(dst_span, src_span)`` a DataCopy / DataCopyPad call writes and reads, each
    ``(start, end)`` relative to its tensor's memory, or None where a value is traced. The same
    block rule the engine executes: ``blockCount`` blocks of ``blockLen``, each ``blockLen + gap``
    after the previous one (DataCopy: 32-byte units; DataCopyPad: bytes on the GM side, 32-byte
    blocks on the UB side, a UB block rounded up to 32 bytes)."""
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
