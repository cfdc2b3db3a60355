"""BilinearInterpolation(ISASI) (基础算术/), literally from the page's four steps, one Python loop per
iteration and DataBlock (NumPy over the 16 lanes of a block), written from the page text and
docs/MODEL.md "BilinearInterpolation".

The page's steps: 1. "按DataBlock粒度，收集输入src0张量" -- hRepeat * vRepeat iterations, each reads 8
offsets and gathers the 8 DataBlocks at src0 + offset (Gatherb); 2. src1 broadcast, one element per
DataBlock (Brcb); 3. the gathered blocks times src1 (Mul): repeatMode false -- iteration k's 8 blocks
times src1[k]; true -- block j of iteration k times src1[8k + j]; 4. "水平迭代累加，输出到dst" (Add):
vertical repeat vv sums its hRepeat products, written at dst + vv * vROffset elements.

Offsets are data, so an offset outside UB or misaligned is a per-case fault (the call is
suppressed), never a clamp.
"""

import numpy as np

from .. import dtypes as _dt
from ..errors import Fault, UsageError
from ..profile import as_profile
from ..tensor import LocalTensor
from . import masks as _masks
from . import numerics as _num
from . import state as _st

API = "BilinearInterpolation"
BLOCK_LANES = 16  # half elements of one 32-byte DataBlock
_FMT = _num.float_format("half")


def _rd(ub, a, n):
    return int.from_bytes(ub[a : a + n].tobytes(), "little")


def _int_in(name, v, lo, hi, profile, allowed=None):
    x = _masks.as_int(API, name, v, profile)
    if not lo <= x <= hi:
        raise UsageError(API, name, x, allowed or f"an integer in [{lo}, {hi}]", profile)
    return x


def _tmp_required(profile, src0, src0Offset, src1):
    rule = profile.api(API)["tmp_buffer"]
    # SPEC (sharedTmpBuffer空间说明): A2/A3 "需要保证至少分配了src0.GetSize() * 32 + src1.GetSize() * 32
    #       字节的空间"; 310P AI Core "src0OffsetLocal.GetSize() * sizeof(uint32_t)字节"; 950 "不需要分配临时空间"
    return {
        "src_sizes": src0.length * 32 + src1.length * 32,
        "offset_size": src0Offset.length * 4,
        "none": 0,
    }[rule]


def _lane_bits(mask, profile):
    """(bits of the 128 half lanes, the value a level-0 call writes to the mask register, bitwise?)."""
    d = _dt.as_dtype("half")
    L = profile.lanes(d)
    parsed = _masks.parse_mask(API, mask, d, profile)
    if parsed[0] == "bitwise":
        return parsed[1] & ((1 << L) - 1), parsed[1], True
    n = parsed[1]
    # SPEC: "连续模式下，mask超出范围按照对应数据类型下mask最大值计算" (掩码/通用说明.md)
    return (1 << min(n, L)) - 1, _masks.continuous_mask_register_value(n, L, profile), False


def _flush_in(bits, profile):
    """Operand bits as the arithmetic reads them (flush_to_zero profiles: subnormal -> signed zero)."""
    if profile.float_subnormals != "flush_to_zero":
        return bits
    return np.array([_num.flush_subnormal_bits(int(b), _FMT) for b in bits], np.uint16)


def _op(op, a_bits, b_bits, profile, saturate):
    """One rounded half Mul / Add over a block's lanes (uint16 arrays), finished as every float
    result is (MODEL.md "Numerics": round once, flush, canonical NaN, CTRL saturation).

    NumPy's half arithmetic computes in float32 and rounds once to half: a product of two halves
    is exact in float32, and for a sum the float32 rounding before the half one is innocuous
    (24 >= 2 * 11 + 2 bits), so ``r`` is the correctly rounded result."""
    a = _flush_in(a_bits, profile).view(np.float16)
    b = _flush_in(b_bits, profile).view(np.float16)
    with np.errstate(all="ignore"):  # overflow to inf and inf - inf are results, not errors
        r = a * b if op == "mul" else a + b
    out = r.view(np.uint16).copy()
    # the special results (NaN, inf, subnormal: exponent field all ones or zero with a fraction) go
    # through the one finishing rule, which rounds the already rounded value to itself; a normal
    # finite result or a zero is final as it is
    e = (out >> 10) & 0x1F
    special = (e == 0x1F) | ((e == 0) & ((out & 0x3FF) != 0))
    for i in np.flatnonzero(special):
        out[i] = _num.finish_float(float(r[i]), _FMT, profile, saturate)
    return out


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
):
    """Reference BilinearInterpolation (half): see the module doc and docs/MODEL.md."""
    profile = as_profile(profile)
    named = (
        ("dst", dst),
        ("src0", src0),
        ("src0Offset", src0Offset),
        ("src1", src1),
        ("sharedTmpBuffer", sharedTmpBuffer),
    )
    for name, t in named:
        if not isinstance(t, LocalTensor):
            raise UsageError(API, name, type(t).__name__, "a LocalTensor", profile)
    # SPEC: "两个源操作数的数据类型需要与目的操作数保持一致"
    for name, t in (("src0", src0), ("src1", src1)):
        if t.dtype != dst.dtype:
            raise UsageError(API, f"{name}.dtype", t.dtype.name, dst.dtype.name, profile)
    d = dst.dtype
    profile.require_api(API, d)  # SPEC: "支持的数据类型为：half"
    # SPEC: "const LocalTensor<uint32_t> &src0Offset", "const LocalTensor<uint8_t> &sharedTmpBuffer"
    if src0Offset.dtype.name != "uint32":
        raise UsageError(API, "src0Offset.dtype", src0Offset.dtype.name, "uint32", profile)
    if sharedTmpBuffer.dtype.name != "uint8":
        raise UsageError(API, "sharedTmpBuffer.dtype", sharedTmpBuffer.dtype.name, "uint8", profile)
    lane_bits, reg_value, bitwise = _lane_bits(mask, profile)
    # SPEC: "水平方向迭代次数，取值范围为[1, 255]"
    h = _int_in("hRepeat", hRepeat, 1, 255, profile)
    if not isinstance(repeatMode, (bool, np.bool_)):
        raise UsageError(API, "repeatMode", repeatMode, "a bool (true / false)", profile)
    mode = bool(repeatMode)
    blk = _int_in("dstBlkStride", dstBlkStride, 0, 65535, profile)  # uint16_t
    # SPEC: "vROffset ... 取值范围为[128, 65535)，vROffset * sizeof(T)需要保证32字节对齐"
    allowed = "an integer in [128, 65534] with vROffset * sizeof(T) a multiple of 32"
    vro = _int_in("vROffset", vROffset, 128, 65534, profile)
    if (vro * d.itemsize) % 32:
        raise UsageError(API, "vROffset", vro, allowed, profile)
    # SPEC: "垂直方向迭代次数，取值范围为[1, 255]"
    v = _int_in("vRepeat", vRepeat, 1, 255, profile)
    # SPEC: "当参数repeatMode配置为true时，需确保src1的有效数据长度*16 ≥ src0的数据长度"
    if mode and src1.length * 16 < src0.length:
        raise UsageError(
            API,
            "src1",
            f"{src1.length} elements",
            f"at least src0.GetSize() / 16 = {-(-src0.length // 16)}",
            profile,
        )
    need = _tmp_required(profile, src0, src0Offset, src1)
    if sharedTmpBuffer.length < need:
        rule = profile.api(API)["tmp_buffer"]
        raise UsageError(
            API,
            "sharedTmpBuffer",
            f"{sharedTmpBuffer.length} bytes",
            f"at least {need} bytes (apis.{API}.tmp_buffer = {rule})",
            profile,
        )
    for name, t in named:
        _masks.as_int(API, f"{name}.addr", t.addr, profile)
    if lane_bits == 0:
        # SPEC: "mask = 0 ... 该接口将被视为NOP" (掩码/通用说明.md); MODEL.md behavior.zero_mask
        plan = _masks._zero("mask", API, profile, static=True)
        return _st.copy_state(state) if plan.outcome == "nop" else _st.with_fault(state, plan.fault)

    ub = state.ub
    bb = profile.block_bytes
    limit = min(ub.size, profile.ub_usable_bytes)
    fault = 0
    # the DataBlocks of dst the mask touches (lane l is in block l // 16)
    dst_blocks = [j for j in range(8) if (lane_bits >> (BLOCK_LANES * j)) & 0xFFFF]

    # -- step 1: the offsets and the gathered DataBlocks; the src1 elements each block uses
    gathered = {}  # (k, j) -> src0 block address
    off_ranges, s0_ranges, s1_ranges = [], [], []
    s1_index = {}
    for vv in range(v):
        for hh in range(h):
            k = vv * h + hh
            for j in range(8):
                oa = src0Offset.addr + 4 * (8 * k + j)
                off_ranges.append((oa, 4))
                s1_index[(k, j)] = 8 * k + j if mode else k
                s1_ranges.append((src1.addr + 2 * s1_index[(k, j)], 2))
                if oa < 0 or oa + 4 > limit:
                    fault |= Fault.OUT_OF_UB
                    continue
                sa = src0.addr + _rd(ub, oa, 4)
                # SPEC: "取值应保证src0元素类型位宽对齐。偏移地址后需要32字节对齐。"
                if sa % bb:
                    fault |= Fault.MISALIGNED
                # SPEC: "偏移地址后不能超出UB大小数据的范围"
                if sa < 0 or sa + bb > limit:
                    fault |= Fault.OUT_OF_UB
                gathered[(k, j)] = sa
                s0_ranges.append((sa, bb))
    # the dst blocks: vertical repeat vv at dst + vv * vROffset elements, block j dstBlkStride apart
    d_addr = {}
    for vv in range(v):
        for j in dst_blocks:
            d_addr[(vv, j)] = dst.addr + vv * vro * d.itemsize + j * blk * bb
    d_ranges = [(a, bb) for a in d_addr.values()]

    used = d_ranges + off_ranges + s0_ranges + s1_ranges
    for a, n in used:
        if a < 0 or a + n > limit:
            fault |= Fault.OUT_OF_UB
    for reg in profile.reserved:
        if API in reg.used_by:
            lo, hi = reg.offset_bytes, reg.offset_bytes + reg.size_bytes
            if any(a < hi and a + n > lo for a, n in used) or (
                need and tmp_meets(sharedTmpBuffer, need, lo, hi)
            ):
                fault |= Fault.SCRATCH_COLLISION
    # SPEC: "LocalTensor的起始地址需要32字节对齐" (every tensor; sharedTmpBuffer where the product uses it)
    tensors = [dst, src0, src0Offset, src1] + ([sharedTmpBuffer] if need else [])
    if any(t.addr % profile.operand_alignment_bytes for t in tensors):
        fault |= Fault.MISALIGNED
    if need and (sharedTmpBuffer.addr < 0 or sharedTmpBuffer.addr + need > limit):
        fault |= Fault.OUT_OF_UB
    # MODEL.md: dstBlkStride 0 puts a repeat's 8 dst blocks on one address: DST_BLK_STRIDE_ZERO
    if blk == 0 and dst_blocks:
        fault |= Fault.DST_BLK_STRIDE_ZERO

    def hull(ranges):
        return min(a for a, _ in ranges), max(a + n for a, n in ranges)

    def meets(ranges, lo_hi):
        lo, hi = lo_hi
        return any(a < hi and a + n > lo for a, n in ranges)

    # SPEC: "src0、src1、src0Offset之间不允许地址重叠" (MODEL.md: a gathered block meeting the hull of
    #       the src1 elements or of the offset words read; src1's hull meeting the offsets' hull)
    over = meets(s0_ranges, hull(s1_ranges)) or meets(s0_ranges, hull(off_ranges))
    over = over or meets([hull(s1_ranges)], hull(off_ranges))
    # MODEL.md (CHOICE): any byte read meeting the hull of the active dst blocks
    over = over or meets(s0_ranges + s1_ranges + off_ranges, hull(d_ranges))
    # SPEC: "两个垂直repeat的目的地址之间不允许地址重叠"
    owner = {}
    for (vv, _), a in d_addr.items():
        if owner.setdefault(a, vv) != vv:
            over = True
    if over:
        fault |= Fault.PARTIAL_OVERLAP
    # MODEL.md: the sharedTmpBuffer bytes the product uses meeting an operand byte
    if need and any(tmp_meets(sharedTmpBuffer, need, a, a + n) for a, n in used):
        fault |= Fault.SCRATCH_COLLISION
    if fault:
        return _st.with_fault(state, fault)

    saturate = _num.float_saturating(profile, d, _st.get_ctrl(state))
    lanes = np.array([(lane_bits >> i) & 1 for i in range(8 * BLOCK_LANES)], bool).reshape(8, BLOCK_LANES)
    # -- steps 1-3: every read first (gather, src1), then iteration k's 128 products (Mul, rounded)
    prod = []
    for k in range(h * v):
        blocks = [
            np.frombuffer(ub[gathered[(k, j)] : gathered[(k, j)] + bb].tobytes(), np.uint16) for j in range(8)
        ]
        mult = [_rd(ub, src1.addr + 2 * s1_index[(k, j)], 2) for j in range(8)]
        prod.append(
            _op(
                "mul",
                np.concatenate(blocks),
                np.repeat(np.array(mult, np.uint16), BLOCK_LANES),
                profile,
                saturate,
            )
        )
    # -- step 4: the horizontal sum of each vertical repeat, left to right (Add), then + 0
    # (apis.BilinearInterpolation.sum_order = "sequential", the one order the schema allows)
    assert profile.api(API)["sum_order"] == "sequential"
    out = _st.copy_state(state)
    zero = np.zeros(8 * BLOCK_LANES, np.uint16)
    for vv in range(v):
        acc = prod[vv * h]
        for hh in range(1, h):
            acc = _op("add", prod[vv * h + hh], acc, profile, saturate)
        # MODEL.md (CHOICE): the sum is copied out as sum + 0 (-0 becomes +0)
        res = _op("add", acc, zero, profile, saturate).reshape(8, BLOCK_LANES)
        for j in dst_blocks:
            base = d_addr[(vv, j)]
            cur = out.ub[base : base + bb].view(np.uint16).copy()
            cur[lanes[j]] = res[j][lanes[j]]  # only the lanes the mask enables are written
            out.ub[base : base + bb] = cur.view(np.uint8)
    # the registers the call leaves (MODEL.md; apis.BilinearInterpolation.registers_after)
    after = profile.api(API)["registers_after"]
    if after == "normal_mask":
        _st.set_vmask(out, reg_value, profile)
        out.mask_mode = 0
    elif after == "normal_reset":
        _st.set_vmask(out, _st.all_ones_mask(profile), profile)
        out.mask_mode = 0
    elif bitwise:  # "bitwise_mask"
        _st.set_vmask(out, reg_value, profile)
    return out


def tmp_meets(tmp, need, lo, hi):
    """The sharedTmpBuffer bytes the product uses, [tmp.addr, tmp.addr + need), meet [lo, hi)."""
    return tmp.addr < hi and tmp.addr + need > lo


__all__ = ["BilinearInterpolation"]
