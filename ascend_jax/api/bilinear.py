"""BilinearInterpolation(ISASI) (memory-vector/基础算术/BilinearInterpolation(ISASI).md).

Prototypes (C++ argument order):
  BilinearInterpolation<T>(dst, src0, LocalTensor<uint32_t> src0Offset, src1, uint64_t mask[] | uint64_t mask,
      uint8_t hRepeat, bool repeatMode, uint16_t dstBlkStride, uint16_t vROffset, uint8_t vRepeat,
      LocalTensor<uint8_t> sharedTmpBuffer)
Semantics and faults: docs/MODEL.md "BilinearInterpolation".
"""

import jax.numpy as jnp
import numpy as np

from .._engine.bilinear import LANES, BilinearStatic, run_bilinear
from ..errors import UsageError
from ..profile import as_profile
from ..registry import ApiSpec, register
from . import _args as A
from . import _forms as F

U32 = jnp.uint32
I32 = jnp.int32
API = "BilinearInterpolation"
VRO_ALLOWED = "an integer in [128, 65534] with vROffset * sizeof(T) a multiple of 32"


def tmp_bytes_required(p, src0, src0Offset, src1):
    """The sharedTmpBuffer bytes the product requires (0: it uses none)."""
    rule = p.api(API)["tmp_buffer"]
    # SPEC (sharedTmpBuffer空间说明): A2/A3 "至少分配了src0.GetSize() * 32 + src1.GetSize() * 32字节";
    #       310P AI Core "src0OffsetLocal.GetSize() * sizeof(uint32_t)字节"; 950 "不需要分配临时空间"
    if rule == "src_sizes":
        return src0.length * 32 + src1.length * 32
    if rule == "offset_size":
        return src0Offset.length * 4
    return 0


def _pack128(act):
    """bool[128] -> uint32[4] lane words."""
    w = act.reshape(4, 32).astype(U32) << np.arange(32, dtype=np.uint32)[None, :]
    return jnp.sum(w, axis=1, dtype=U32)


def _mask_fields(api, mask, dt, p):
    """(lane words uint32[4], vector-mask value uint32[8], bitwise?, static zero, traced bad)."""
    m = A.parse_mask(api, mask, dt, p, True)
    full = jnp.asarray([0xFFFFFFFF] * (p.vector_mask_bits // 32) + [0] * (8 - p.vector_mask_bits // 32), U32)
    if m.kind == "bitwise":
        lanes = m.words[:4]
        reg = m.words
    else:
        lo, hi = m.cont[0], m.cont[1]
        big = (hi > 0) | (lo >= LANES)
        n = jnp.where(big, LANES, lo).astype(I32)
        lanes = _pack128(jnp.arange(LANES, dtype=I32) < n)
        # MODEL.md: a continuous n leaves all ones if n >= L, else the low n bits
        low = jnp.concatenate([lanes, jnp.zeros((4,), U32)])
        reg = jnp.where(big, full, low)
    bad = m.traced_bad if m.traced_bad is not None else jnp.zeros((), bool)
    return lanes, reg, m.kind == "bitwise", m.static_zero, bad


def plan_bilinear(
    state,
    dst,
    src0,
    src0Offset,
    src1,
    mask,
    hRepeat,
    repeatMode,
    dstBlkStride,
    vROffset,
    vRepeat,
    sharedTmpBuffer,
    profile=None,
    max_repeats=None,
):
    """(BilinearStatic, dyn) of one call; static misuse raises UsageError."""
    api = API
    p = as_profile(profile)
    for name, t in (
        ("dst", dst),
        ("src0", src0),
        ("src0Offset", src0Offset),
        ("src1", src1),
        ("sharedTmpBuffer", sharedTmpBuffer),
    ):
        A.check_tensor(api, name, t, p)
    A.check_same_dtype(api, p, dst=dst, src0=src0, src1=src1)
    dt = dst.dtype
    p.require_api(api, dt)
    if src0Offset.dtype.name != "uint32":
        raise UsageError(api, "src0Offset.dtype", src0Offset.dtype.name, "uint32", p)
    if sharedTmpBuffer.dtype.name != "uint8":
        raise UsageError(api, "sharedTmpBuffer.dtype", sharedTmpBuffer.dtype.name, "uint8", p)
    lanes, reg, bitwise, static_zero, bad_mask = _mask_fields(api, mask, dt, p)
    # SPEC: "hRepeat ... 取值范围为[1, 255]", "vRepeat ... 取值范围为[1, 255]"
    A.static_int(api, "hRepeat", hRepeat, 1, 255, p)
    bad = A.traced_range_bad(hRepeat, 1, 255)
    if isinstance(repeatMode, (bool, np.bool_)):
        mode = bool(repeatMode)
    elif A.is_static(repeatMode):
        raise UsageError(api, "repeatMode", repeatMode, "a bool (true / false)", p)
    else:
        mode = jnp.asarray(repeatMode) != 0
    A.static_int(api, "dstBlkStride", dstBlkStride, 0, 65535, p)
    bad = bad | A.traced_range_bad(dstBlkStride, 0, 65535)
    # SPEC: "vROffset ... 取值范围为[128, 65535)，vROffset * sizeof(T)需要保证32字节对齐"
    A.static_int(api, "vROffset", vROffset, 128, 65534, p)
    step = p.block_bytes // dt.itemsize
    if A.is_static(vROffset):
        if int(vROffset) % step:
            raise UsageError(api, "vROffset", vROffset, VRO_ALLOWED, p)
    else:
        vr = jnp.asarray(vROffset)
        bad = bad | A.traced_range_bad(vROffset, 128, 65534) | (vr % step != 0)
    A.static_int(api, "vRepeat", vRepeat, 1, 255, p)
    bad = bad | A.traced_range_bad(vRepeat, 1, 255)
    # SPEC: "当参数repeatMode配置为true时，需确保src1的有效数据长度*16 ≥ src0的数据长度"
    short = src1.length * 16 < src0.length
    if mode is True and short:
        raise UsageError(
            api,
            "src1",
            f"{src1.length} elements",
            f"at least src0.GetSize() / 16 = {-(-src0.length // 16)}",
            p,
        )
    if not isinstance(mode, bool) and short:
        bad = bad | mode
    need = tmp_bytes_required(p, src0, src0Offset, src1)
    if sharedTmpBuffer.length < need:
        raise UsageError(
            api,
            "sharedTmpBuffer",
            f"{sharedTmpBuffer.length} bytes",
            f"at least {need} bytes (apis.{api}.tmp_buffer = {p.api(api)['tmp_buffer']})",
            p,
        )
    if static_zero and p.zero_mask == "error":
        raise UsageError(api, "mask", 0, "a non-zero mask", p, "behavior.zero_mask = error")
    if max_repeats is not None:
        K = A.bucket(max_repeats)
    elif A.is_static(hRepeat) and A.is_static(vRepeat):
        K = A.bucket(int(hRepeat) * int(vRepeat))
    else:
        K = F.default_big_bucket(p)
    after = p.api(api)["registers_after"]
    if after == "normal_reset":
        reg = jnp.asarray(
            [0xFFFFFFFF] * (p.vector_mask_bits // 32) + [0] * (8 - p.vector_mask_bits // 32), U32
        )
    dyn = {
        "dst": A.addr_of(dst),
        "src0": A.addr_of(src0),
        "src1": A.addr_of(src1),
        "off": A.addr_of(src0Offset),
        "tmp": A.addr_of(sharedTmpBuffer),
        "tmp_bytes": jnp.asarray(need, I32),
        "h": jnp.asarray(hRepeat, I32),
        "v": jnp.asarray(vRepeat, I32),
        "blk": jnp.asarray(dstBlkStride, I32),
        "vro": jnp.asarray(vROffset, I32),
        "mode": jnp.asarray(mode, bool),
        "lanes": lanes,
        "vmask_new": reg,
        "vmask_write": jnp.asarray(after != "bitwise_mask" or bitwise, bool),
        "mode_write": jnp.asarray(after != "bitwise_mask", bool),
        "bad_mask": jnp.asarray(bad_mask, bool),
        "bad_param": jnp.asarray(bad, bool),
    }
    return BilinearStatic(K=K, profile=p), dyn


@register(
    ApiSpec(
        API,
        "bilinear",
        (
            "BilinearInterpolation<T>(dst, src0, LocalTensor<uint32_t> src0Offset, src1, uint64_t mask[], "
            "uint8_t hRepeat, bool repeatMode, uint16_t dstBlkStride, uint16_t vROffset, uint8_t vRepeat, "
            "LocalTensor<uint8_t> sharedTmpBuffer)",
            "BilinearInterpolation<T>(dst, src0, LocalTensor<uint32_t> src0Offset, src1, uint64_t mask, "
            "uint8_t hRepeat, bool repeatMode, uint16_t dstBlkStride, uint16_t vROffset, uint8_t vRepeat, "
            "LocalTensor<uint8_t> sharedTmpBuffer)",
        ),
        "memory-vector/基础算术/BilinearInterpolation(ISASI).md",
    )
)
def BilinearInterpolation(
    state,
    dst,
    src0,
    src0Offset,
    src1,
    mask,
    hRepeat,
    repeatMode,
    dstBlkStride,
    vROffset,
    vRepeat,
    sharedTmpBuffer,
    profile=None,
    max_repeats=None,
):
    """BilinearInterpolation (``AscendC::BilinearInterpolation``, half): iteration ``k = vv * hRepeat
    + hh`` gathers the 8 DataBlocks at ``src0 + src0Offset[8k + j]`` (bytes) and multiplies block
    ``j`` by ``src1[k]`` (repeatMode false) or ``src1[8k + j]`` (true); vertical repeat ``vv`` sums
    its hRepeat products and writes the masked lanes to ``dst + vv * vROffset`` elements, block ``j``
    at ``32 * dstBlkStride * j`` bytes. ``mask``: an int (continuous) or a list of uint64 words
    (bitwise). ``max_repeats``: static bucket of hRepeat * vRepeat iterations for traced repeats.
    Returns the new CoreState."""
    st, dyn = plan_bilinear(
        state,
        dst,
        src0,
        src0Offset,
        src1,
        mask,
        hRepeat,
        repeatMode,
        dstBlkStride,
        vROffset,
        vRepeat,
        sharedTmpBuffer,
        profile,
        max_repeats,
    )
    return run_bilinear(st, state, dyn)


__all__ = ["BilinearInterpolation"]
