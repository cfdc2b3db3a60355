"""Gather, Gatherb(ISASI) and Scatter(ISASI) (离散与聚合/), literally: one Python loop per lane
(per DataBlock for Gatherb), written from the page text and docs/MODEL.md "Gather, Gatherb, Scatter".

Addresses are data: every offset is read from UB at run time, so an offset outside UB, misaligned,
or beyond the product's offset range is a per-case fault (the call is suppressed), never a clamp.

Lane ``g = r * L + l`` (repeat ``r``, lane ``l`` of ``L`` per repeat; the count form: the first
``count`` lanes) uses the offset word ``offset.addr + 4 * g``. ``L`` is 256 / sizeof(T), except for
8-bit T: 128 ("当操作数为8位时，每次迭代完成4个DataBlock的数据收集"), so the 8-bit lane plan is the
16-bit one.
"""

import numpy as np

from .. import dtypes as _dt
from ..errors import Fault, UsageError
from ..params import UnaryRepeatParams
from ..profile import as_profile
from ..tensor import LocalTensor
from . import masks as _masks
from . import state as _st

U32_MAX = (1 << 32) - 1
OUT_OF_UB, MISALIGNED, BAD_PARAM = int(Fault.OUT_OF_UB), int(Fault.MISALIGNED), int(Fault.BAD_PARAM)


def _rd(ub, a, n):
    """The little-endian unsigned value of the ``n`` bytes at ``a``."""
    return int.from_bytes(ub[a : a + n].tobytes(), "little")


def _plan_dtype(d):
    # SPEC: "针对以下型号，当操作数为8位时，每次迭代完成4个DataBlock的数据收集；其他情况下，每次迭代完成8个
    #       DataBlock的数据收集" (Gather.md 约束说明): 8-bit T has 128 lanes a repeat, as 16-bit T.
    return _dt.as_dtype("uint16") if d.itemsize == 1 else d


def _check_tensors(api, profile, dst, src, off, off_name):
    for t, name in ((dst, "dst"), (src, "src"), (off, off_name)):
        if not isinstance(t, LocalTensor):
            raise UsageError(api, name, t, "a LocalTensor", profile)
    # SPEC: "数据类型和dst保持一致" (Gather.md, src)
    if src.dtype != dst.dtype:
        raise UsageError(api, "src.dtype", src.dtype.name, f"{dst.dtype.name} (= dst.dtype)", profile)


def _check_offset_dtype(api, off, off_name, profile):
    # SPEC: "const LocalTensor<uint32_t>& srcOffset" (函数原型)
    if off.dtype.name != "uint32":
        raise UsageError(api, f"{off_name}.dtype", off.dtype.name, "uint32", profile)


def _u32(api, name, v, profile):
    x = _masks.as_int(api, name, v, profile)
    if not 0 <= x <= U32_MAX:
        raise UsageError(api, name, x, f"[0, {U32_MAX}] (uint32_t)", profile)
    return x


def _max_offset(profile, api, size):
    """The largest offset value the product allows for sizeof(T) = ``size``."""
    # SPEC: "当操作数为8位时，取值范围为[0, 2^16-1]；当操作数为16位时，取值范围为[0, 2^17-1]，当操作数为32位或者
    #       64位时，不能超出uint32_t的范围" (950, 310B; the others: "不能超出uint32_t的范围")
    a = profile.api(api)
    if size == 1:
        return a["max_offset_8bit"]
    if size == 2:
        return a["max_offset_16bit"]
    return U32_MAX


def _regions(profile, api):
    return [(r.offset_bytes, r.offset_bytes + r.size_bytes) for r in profile.reserved if api in r.used_by]


def _meets(a, n, lo, hi):
    return a < hi and a + n > lo


def _hull(ranges):
    """(lo, hi) of the byte ranges [(a, n)], or None."""
    if not ranges:
        return None
    return min(a for a, _ in ranges), max(a + n for a, n in ranges)


def _lane_plan(api, state, d, args, profile, stride_name, stride_max):
    """(plan, repeat stride in DataBlocks or None for the count form) of a Gather / Scatter call."""
    pd = _plan_dtype(d)
    if len(args) == 1:
        # SPEC: "tensor前n个数据计算" -- the first count elements; no isSetMask parameter
        plan = _masks.plan_count_form(api, state, pd, args[0], True, profile)
        return plan, None
    mask, repeat_time, stride = args
    s = _masks.as_int(api, stride_name, stride, profile)
    plan = _masks.plan_high_dim(api, state, pd, mask, repeat_time, UnaryRepeatParams(), True, profile)
    if not 0 <= s <= stride_max:
        raise UsageError(api, stride_name, s, f"[0, {stride_max}]", profile)
    return plan, s


def _split(api, args):
    if len(args) in (1, 3):
        return len(args) == 1
    raise TypeError(f"{api}: expected (count,) or (mask, repeatTime, repStride), got {len(args)} arguments")


def _registers(out, plan, profile):
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)


def _lanes_of(plan):
    """[(r, l, g)] of the active lanes in program order (g = r * L + l)."""
    L = plan.lanes
    return [(r, l, r * L + l) for r in range(plan.repeats) for l in range(L) if plan.active[r][l]]


def _offset_lane_faults(api, ub, lanes, off, base, elem_addr, size, limit, profile):
    """Faults of the per-lane offsets: (fault bits, [(lane, offset word address, element address)]).
    An offset word outside UB cannot be read: that lane only records OUT_OF_UB."""
    fault = 0
    out = []
    max_off = _max_offset(profile, api, size)
    for r, l, g in lanes:
        oa = off.addr + 4 * g
        if oa < 0 or oa + 4 > limit:
            fault |= OUT_OF_UB
            out.append((r, l, oa, None))
            continue
        o = _rd(ub, oa, 4)
        if o > max_off:
            fault |= BAD_PARAM
        a = elem_addr + base + o
        # SPEC: "取值应保证src元素类型位宽对齐" (srcOffset, srcBaseAddr); MODEL.md: a misaligned
        #       element address is a MISALIGNED fault (the page: "数据发生错位", no defined result)
        if a % size:
            fault |= MISALIGNED
        # SPEC: "偏移地址后不能超出UB大小数据的范围"
        if a < 0 or a + size > limit:
            fault |= OUT_OF_UB
        out.append((r, l, oa, a))
    return fault, out


def _common_faults(tensors, ranges, profile, api, limit):
    fault = 0
    # SPEC: "LocalTensor的起始地址需要按照32字节对齐" (dst, src, srcOffset)
    if any(t.addr % profile.operand_alignment_bytes for t in tensors):
        fault |= MISALIGNED
    for a, n in ranges:
        if a < 0 or a + n > limit:
            fault |= OUT_OF_UB
            break
    for lo, hi in _regions(profile, api):
        if any(_meets(a, n, lo, hi) for a, n in ranges):
            fault |= Fault.SCRATCH_COLLISION
            break
    return fault


def _gather_scatter(api, state, dst, src, off, off_name, base, base_name, args, profile, scatter):
    profile = as_profile(profile)
    _check_tensors(api, profile, dst, src, off, off_name)
    count_form = _split(api, args)
    d = dst.dtype
    profile.require_api(api, d, count_form=count_form)
    _check_offset_dtype(api, off, off_name, profile)
    base = _u32(api, base_name, base, profile)
    for t, name in ((dst, "dst"), (src, "src"), (off, off_name)):
        _masks.as_int(api, f"{name}.addr", t.addr, profile)
    stride_name = "srcRepStride" if scatter else "dstRepStride"
    # SPEC: "const uint16_t dstRepStride" (Gather), "const uint8_t srcRepStride" (Scatter)
    plan, rs = _lane_plan(api, state, d, args, profile, stride_name, 255 if scatter else 65535)
    if plan.outcome == "nop":
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)
    size = d.itemsize
    bb = profile.block_bytes
    L = plan.lanes
    lanes = _lanes_of(plan)
    if not lanes:
        return _st.copy_state(state)
    limit = min(state.ub.size, profile.ub_usable_bytes)

    # the contiguous / strided operand (Gather: dst, Scatter: src): lane l of repeat r at
    # addr + r * repStride * 32 + l * sizeof(T); the count form is contiguous (L lanes a repeat)
    seq = src if scatter else dst
    rep_bytes = L * size if rs is None else rs * bb
    seq_addr = {(r, l): seq.addr + r * rep_bytes + l * size for r, l, _ in lanes}
    # the data-addressed operand (Gather: src, Scatter: dst)
    far = dst if scatter else src
    fault, per_lane = _offset_lane_faults(api, state.ub, lanes, off, base, far.addr, size, limit, profile)
    seq_ranges = [(seq_addr[(r, l)], size) for r, l, _ in lanes]
    off_ranges = [(oa, 4) for _, _, oa, _ in per_lane]
    far_ranges = [(a, size) for _, _, _, a in per_lane if a is not None]
    fault |= _common_faults((dst, src, off), seq_ranges + off_ranges + far_ranges, profile, api, limit)

    # SPEC: "不支持源操作数与目的操作数使用同一块内存地址" (Gather.md); Scatter: 通用地址重叠约束.
    # MODEL.md: a lane's read (Gather: the src element and the offset word) meeting the byte hull of
    # the active dst lanes, or (Scatter) a written element meeting the hull of the active src lanes
    # or of the offset words read, is PARTIAL_OVERLAP.
    hulls = [_hull(seq_ranges), _hull(off_ranges)] if scatter else [_hull(seq_ranges)]
    reads = far_ranges if scatter else far_ranges + off_ranges
    for lo, hi in hulls:
        for a, n in reads:
            if a < hi and a + n > lo:
                fault |= Fault.PARTIAL_OVERLAP
                break

    if scatter and not fault:
        # SPEC: "偏移地址不能有相同值，如果存在2个或者多个偏移重复的情况，行为是不可预期的" (Scatter.md)
        targets = [a for _, _, _, a in per_lane]
        if len(set(targets)) != len(targets) and profile.api(api)["duplicate_offsets"] == "fault":
            fault |= Fault.UNDEFINED
    if fault:
        return _st.with_fault(state, fault)

    # read every lane first, then write in program order (lane order; a later lane wins)
    writes = []
    for r, l, _, a in per_lane:
        if scatter:
            writes.append((a, _rd(state.ub, seq_addr[(r, l)], size)))
        else:
            writes.append((seq_addr[(r, l)], _rd(state.ub, a, size)))
    out = _st.copy_state(state)
    for a, bits in writes:
        out.ub[a : a + size] = np.frombuffer(bits.to_bytes(size, "little"), np.uint8)
    _registers(out, plan, profile)
    return out


def Gather(state, dst, src, srcOffset, srcBaseAddr, *args, profile=None):
    """Reference Gather: ``dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)]`` for the first
    ``count`` elements (``args = (count,)``) or the active lanes of a high-dim call
    (``args = (mask, repeatTime, dstRepStride)``; dst repeat r at dst + r * dstRepStride * 32).
    Offsets and srcBaseAddr are bytes."""
    # SPEC: "dst[i] = src[(srcBaseAddr + srcOffset[i]) // inputType.itemsize]" (Gather.md 伪代码)
    return _gather_scatter(
        "Gather", state, dst, src, srcOffset, "srcOffset", srcBaseAddr, "srcBaseAddr", args, profile, False
    )


def Scatter(state, dst, src, dstOffset, dstBaseAddr, *args, profile=None):
    """Reference Scatter: ``dst[(dstBaseAddr + dstOffset[i]) / sizeof(T)] = src[i]`` for the first
    ``count`` elements or the active lanes of a high-dim call (``args = (mask, repeatTime,
    srcRepStride)``; src repeat r at src + r * srcRepStride * 32)."""
    # SPEC: "将源操作数src中的元素按照指定的位置（由dstOffset和dstBaseAddr共同作用）分散到目的操作数dst中"
    return _gather_scatter(
        "Scatter", state, dst, src, dstOffset, "dstOffset", dstBaseAddr, "dstBaseAddr", args, profile, True
    )


_GB_FIELDS = (("dstBlkStride", 255), ("dstRepStride", 65535))


def _gatherb_params(api, params, profile):
    # SPEC: GatherRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t dstRepStrideIn); fields
    #       uint16_t dstRepStride, uint8_t dstBlkStride (kernel_struct_gather.h); a 2-tuple is accepted
    if isinstance(params, (tuple, list)):
        if len(params) != 2:
            raise UsageError(api, "repeatParams", params, "(dstBlkStride, dstRepStride)", profile)
        raw = list(params)
    else:
        try:
            raw = [getattr(params, n) for n, _ in _GB_FIELDS]
        except AttributeError:
            raise UsageError(api, "repeatParams", params, "a GatherRepeatParams", profile) from None
    out = []
    for (name, hi), v in zip(_GB_FIELDS, raw, strict=True):
        x = _masks.as_int(api, f"repeatParams.{name}", v, profile)
        if not 0 <= x <= hi:
            raise UsageError(api, f"repeatParams.{name}", x, f"[0, {hi}]", profile)
        out.append(x)
    return out


def Gatherb(state, dst, src, offset, repeatTime, repeatParams, profile=None):
    """Reference Gatherb: repeat i copies 8 DataBlocks; block j is the 32 bytes at
    ``src + offset[8i + j]`` (bytes) to ``dst + 32 * (i * dstRepStride + j * dstBlkStride)``."""
    api = "Gatherb"
    profile = as_profile(profile)
    _check_tensors(api, profile, dst, src, offset, "offset")
    d = dst.dtype
    profile.require_api(api, d)
    _check_offset_dtype(api, offset, "offset", profile)
    rt = _masks.check_repeat_time(api, repeatTime, profile)
    dbs, drs = _gatherb_params(api, repeatParams, profile)
    for t, name in ((dst, "dst"), (src, "src"), (offset, "offset")):
        _masks.as_int(api, f"{name}.addr", t.addr, profile)
    if rt == 0:
        # SPEC: "当参数repeatTime取值为0时，不会执行计算操作 ... 该接口将被视为NOP" (A2/A3); 950: "不保证"
        plan = _masks._zero("repeat", api, profile, static=True)
        return _st.copy_state(state) if plan.outcome == "nop" else _st.with_fault(state, plan.fault)
    bb = profile.block_bytes
    limit = min(state.ub.size, profile.ub_usable_bytes)
    fault = 0
    if dbs == 0:
        # SPEC: "当dstBlkStride值为0时，默认按照1来处理" (GatherRepeatParams, A2/A3)
        if profile.api(api)["dst_blk_stride_zero"] == "as_one":
            dbs = 1
        else:
            fault |= Fault.DST_BLK_STRIDE_ZERO
    blocks = []  # (dst block address, offset word address, src block address or None)
    for i in range(rt):
        for j in range(8):
            da = dst.addr + (i * drs + j * dbs) * bb
            oa = offset.addr + 4 * (8 * i + j)
            if oa < 0 or oa + 4 > limit:
                fault |= Fault.OUT_OF_UB
                blocks.append((da, oa, None))
                continue
            sa = src.addr + _rd(state.ub, oa, 4)
            # SPEC: "取值应保证src元素类型位宽对齐。偏移地址后需要32字节对齐。" (offset 约束说明)
            if sa % bb:
                fault |= Fault.MISALIGNED
            # SPEC: "偏移地址后不能超出UB大小数据的范围"
            if sa < 0 or sa + bb > limit:
                fault |= Fault.OUT_OF_UB
            blocks.append((da, oa, sa))
    d_ranges = [(da, bb) for da, _, _ in blocks]
    o_ranges = [(oa, 4) for _, oa, _ in blocks]
    s_ranges = [(sa, bb) for _, _, sa in blocks if sa is not None]
    fault |= _common_faults((dst, src, offset), d_ranges + o_ranges + s_ranges, profile, api, limit)
    # SPEC: "不支持源操作数与目的操作数使用同一块内存地址"; MODEL.md: a src block or offset word
    #       meeting the hull of the dst blocks is PARTIAL_OVERLAP
    h = _hull(d_ranges)
    if any(_meets(a, n, *h) for a, n in s_ranges + o_ranges):
        fault |= Fault.PARTIAL_OVERLAP
    if fault:
        return _st.with_fault(state, fault)
    data = [(da, bytes(state.ub[sa : sa + bb])) for da, _, sa in blocks]  # all reads first
    out = _st.copy_state(state)
    for da, raw in data:  # program order
        out.ub[da : da + bb] = list(raw)
    return out


__all__ = ["Gather", "Gatherb", "Scatter"]
