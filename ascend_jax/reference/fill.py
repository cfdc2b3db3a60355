"""Duplicate and CreateVecIndex (数据填充/): dst-only fills.

Prototypes: ``(dst, value, count)`` and ``(dst, value, mask[] | mask, repeatTime, dstBlockStride,
dstRepeatStride)`` (CreateVecIndex spells the strides ``dstBlkStride``, ``dstRepStride``) with
``isSetMask``; Duplicate on 950 also takes ``(dst, src: LocalTensor, count)``: src[0] is the value.

* Duplicate: every active lane gets the value's bit pattern (a move: no rounding, flush, NaN or
  saturation rule applies to a value already in T; a Python number is converted to T first).
* CreateVecIndex: lane ``l`` of repeat ``r`` gets ``firstValue + r*L + l`` (L = lanes per repeat: the
  element's position in the vector the call describes, whatever the strides and the mask), the exact
  sum rounded once to T for floats, wrapped for integers (CHOICE: the page gives the count form's
  ``arange(firstValue, firstValue + count)`` only).

Faults: the dst rules of MODEL.md "Faults" (alignment, dstBlkStride 0, outside UB, scratch); there
is no source operand, so no overlap rule.
"""

from fractions import Fraction

from ..errors import Fault, UsageError
from ..params import UnaryRepeatParams
from ..profile import as_profile
from ..tensor import LocalTensor
from . import elementwise as _ew
from . import faults as _faults
from . import masks as _masks
from . import numerics as _num
from . import state as _st


def _check_strides(api, blk, rep, names, profile):
    out = []
    # SPEC: "const uint16_t dstBlockStride, const uint8_t dstRepeatStride" (数据填充/Duplicate.md)
    for v, name, hi in ((blk, names[0], 65535), (rep, names[1], 255)):
        v = _masks.as_int(api, name, v, profile)
        if not 0 <= v <= hi:
            raise UsageError(api, name, v, f"[0, {hi}]", profile)
        out.append(v)
    return tuple(out)


def _dst_faults(api, plan, dst, blk, rep, itemsize, ub_size, profile):
    bb = profile.block_bytes
    blocks = _faults.active_blocks(plan, bb // itemsize)
    if not blocks:
        return 0
    fault = 0
    if dst.addr % profile.operand_alignment_bytes:
        fault |= Fault.MISALIGNED
    if blk == 0:
        fault |= Fault.DST_BLK_STRIDE_ZERO
    limit = min(ub_size, profile.ub_usable_bytes)
    addrs = [_faults.block_address(dst.addr, r, b, blk, rep, bb) for r, b in blocks]
    if any(a < 0 or a + bb > limit for a in addrs):
        fault |= Fault.OUT_OF_UB
    for region in profile.reserved:
        if api in region.used_by:
            lo, hi = region.offset_bytes, region.offset_bytes + region.size_bytes
            if any(a < hi and a + bb > lo for a in addrs):
                fault |= Fault.SCRATCH_COLLISION
    return int(fault)


def _fill(
    api, state, dst, args, profile, is_set_mask, lane_bits, stride_names, count_only=False, extra_fault=0
):
    """``lane_bits(d, r, l, L) -> bits`` for every active lane; ``extra_fault``: the fault bits of an
    operand outside the lane loop (Duplicate's src element), recorded when the call runs."""
    _ew.check_static(api, dst, (), (), args, profile, is_set_mask, count_only)
    d = dst.dtype
    dst = LocalTensor(d, int(dst.addr), dst.length)
    if len(args) == 1:
        plan = _masks.plan_count_form(api, state, d, args[0], is_set_mask, profile)
        blk, rep = 1, 8
    else:
        mask, repeat_time, blk_rep = args[0], args[1], args[2]
        _masks.check_repeat_time(api, repeat_time, profile)
        blk, rep = _check_strides(api, *blk_rep, stride_names, profile)
        plan = _masks.plan_high_dim(
            api, state, d, mask, repeat_time, UnaryRepeatParams(), is_set_mask, profile
        )
    if plan.outcome == "nop":
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)
    fault = _dst_faults(api, plan, dst, blk, rep, d.itemsize, state.ub.size, profile) | int(extra_fault)
    if fault:
        return _st.with_fault(state, fault)
    size, bb = d.itemsize, profile.block_bytes
    E = bb // size
    out = _st.copy_state(state)
    dst_lanes = []  # the checker's view (lane_warnings)
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            if plan.active[r][l]:
                da = _faults.lane_address(dst.addr, r, l // E, l % E, blk, rep, size, bb)
                _st.write_bits(out.ub, da, size, lane_bits(d, r, l, plan.lanes))
                dst_lanes.append(da)
    _st.lane_warnings(state, out, api, dst, dst_lanes, [], size)
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)
    return out


def _split(api, args):
    """(count,) or (mask, repeatTime, (blk, rep)) from the positional arguments."""
    if len(args) == 1:
        return args
    if len(args) == 4:
        return (args[0], args[1], (args[2], args[3]))
    raise TypeError(
        f"{api}: expected (count,) or (mask, repeatTime, dstBlkStride, dstRepStride), got {len(args)} arguments"
    )


def Duplicate(state, dst, scalarValue, *args, profile, isSetMask=True):
    """``dst_i = scalarValue`` (数据填充/Duplicate.md); ``scalarValue`` may be a LocalTensor on the
    count prototype (950: its element 0 is copied)."""
    api = "Duplicate"
    profile = as_profile(profile)
    args = _split(api, args)
    if not isinstance(dst, LocalTensor):
        raise UsageError(api, "dst", dst, "a LocalTensor", profile)
    d = dst.dtype
    if isinstance(scalarValue, LocalTensor):
        # SPEC: "该函数原型，仅支持Ascend 950PR/Ascend 950DT" -> apis.Duplicate.tensor_source
        if not profile.api(api).tensor_source:
            raise UsageError(api, "src", scalarValue, "a scalar value on this product", profile)
        if len(args) != 1:
            raise UsageError(api, "src", scalarValue, "a scalar value in the high-dim prototypes", profile)
        if scalarValue.dtype != d:
            raise UsageError(api, "src.dtype", scalarValue.dtype.name, f"{d.name} (= dst.dtype)", profile)
        src_addr = _masks.as_int(api, "src.addr", scalarValue.addr, profile)
        profile.require_api(api, d, count_form=True)
        # the element is read before the call writes (an element inside dst gives its old value);
        # outside UB it is OUT_OF_UB, recorded as the dst faults are (a NOP / zero-count call has none)
        if src_addr < 0 or src_addr + d.itemsize > min(state.ub.size, profile.ub_usable_bytes):
            elem_fault, bits = int(Fault.OUT_OF_UB), 0
        else:
            elem_fault, bits = 0, _st.read_bits(state.ub, src_addr, d.itemsize)
        names = ("dstBlockStride", "dstRepeatStride")
        return _fill(
            api, state, dst, args, profile, isSetMask, lambda dd, r, l, L: bits, names, extra_fault=elem_fault
        )
    else:
        profile.require_api(api, d, count_form=len(args) == 1)
        bits = _num.scalar_to_bits(api, scalarValue, d, profile)
    names = ("dstBlockStride", "dstRepeatStride")
    return _fill(api, state, dst, args, profile, isSetMask, lambda dd, r, l, L: bits, names)


def CreateVecIndex(state, dst, firstValue, *args, profile, isSetMask=True):
    """``dst_i = firstValue + i`` (数据填充/CreateVecIndex.md)."""
    api = "CreateVecIndex"
    profile = as_profile(profile)
    args = _split(api, args)
    if not isinstance(dst, LocalTensor):
        raise UsageError(api, "dst", dst, "a LocalTensor", profile)
    d = dst.dtype
    profile.require_api(api, d, count_form=len(args) == 1)
    first_bits = _num.scalar_to_bits(api, firstValue, d, profile, "firstValue")
    if d.is_float:
        fmt = _num.float_format(d)
        first = _num.decode(first_bits, fmt)
        if first != first or first in (float("inf"), float("-inf")):
            raise UsageError(api, "firstValue", firstValue, f"a finite {d.name} value", profile)
        first = Fraction(first)
    else:
        # SPEC: "firstValue需保证不超出dst中元素数据类型对应的大小范围" (约束说明)
        lo, hi = _num.int_range(d)
        if isinstance(firstValue, int) and not lo <= firstValue <= hi:
            raise UsageError(api, "firstValue", firstValue, f"[{lo}, {hi}] ({d.name})", profile)
        first = _num.bits_to_int(first_bits, d)

    def lane_bits(dd, r, l, L):
        i = r * L + l
        if dd.is_float:
            return _num.round_to_bits(first + i, _num.float_format(dd))
        return _num.int_to_bits(_num.wrap_int(first + i, dd), dd)

    return _fill(api, state, dst, args, profile, isSetMask, lane_bits, ("dstBlkStride", "dstRepStride"))


def Brcb(state, dst, src, repeatTime, repeatParams, *, profile):
    """Brcb (数据填充/Brcb.md): repeat ``i`` takes src elements ``8i .. 8i+7`` (read contiguously) and
    fills DataBlock ``j`` of the repeat with element ``8i + j``:

      dst block (i, j) at ``dst + 32 * (i * dstRepStride + j * dstBlkStride)`` bytes = src[8i + j]

    (the page's pseudo-code). No mask: every block of every repeat is written, whatever the
    vector-mask registers and the mask mode hold (CHOICE: the prototype has no mask; the registers
    are left unchanged). Faults: src and dst aligned to 32 bytes, inside UB, ``dstBlkStride == 0``
    (DST_BLK_STRIDE_ZERO: "不支持设置为0，若设置成0可能产生未定义行为"), any byte of an active src range
    inside an active dst block (PARTIAL_OVERLAP: "不支持源操作数与目的操作数使用同一块内存地址"), the
    scratch region where the product reserves one (310P AI Core: "需要预留8KB"). repeatTime 0 follows
    ``behavior.zero_repeat``. Blocks written twice: the later write wins (program order)."""
    from ..params import as_brcb_params

    api = "Brcb"
    profile = as_profile(profile)
    for t, name in ((dst, "dst"), (src, "src")):
        if not isinstance(t, LocalTensor):
            raise UsageError(api, name, t, "a LocalTensor", profile)
    d = dst.dtype
    profile.require_api(api, d)
    if src.dtype != d:
        raise UsageError(api, "src.dtype", src.dtype.name, f"{d.name} (= dst.dtype)", profile)
    rt = _masks.check_repeat_time(api, repeatTime, profile)
    params = as_brcb_params(repeatParams)
    blk = _masks.as_int(api, "repeatParams.dstBlkStride", params.dstBlkStride, profile)
    rep = _masks.as_int(api, "repeatParams.dstRepStride", params.dstRepStride, profile)
    for v, name in ((blk, "dstBlkStride"), (rep, "dstRepStride")):
        if not 0 <= v <= 65535:
            raise UsageError(api, f"repeatParams.{name}", v, "[0, 65535]", profile)
    d_addr = _masks.as_int(api, "dst.addr", dst.addr, profile)
    s_addr = _masks.as_int(api, "src.addr", src.addr, profile)
    if rt == 0:
        plan = _masks._zero("repeat", api, profile, True)
        if plan.outcome == "nop":
            return _st.copy_state(state)
        return _st.with_fault(state, plan.fault)
    size, bb = d.itemsize, profile.block_bytes
    limit = min(state.ub.size, profile.ub_usable_bytes)
    fault = 0
    if d_addr % profile.operand_alignment_bytes or s_addr % profile.operand_alignment_bytes:
        fault |= Fault.MISALIGNED
    if blk == 0:
        fault |= Fault.DST_BLK_STRIDE_ZERO
    dst_blocks = [d_addr + bb * (i * rep + j * blk) for i in range(rt) for j in range(8)]
    src_lo, src_hi = s_addr, s_addr + 8 * rt * size  # SPEC: "源操作数 ... 始终采用连续读"
    if src_lo < 0 or src_hi > limit or any(a < 0 or a + bb > limit for a in dst_blocks):
        fault |= Fault.OUT_OF_UB
    if any(a < src_hi and a + bb > src_lo for a in dst_blocks):
        fault |= Fault.PARTIAL_OVERLAP
    for region in profile.reserved:
        if api in region.used_by:
            lo, hi = region.offset_bytes, region.offset_bytes + region.size_bytes
            if (src_lo < hi and src_hi > lo) or any(a < hi and a + bb > lo for a in dst_blocks):
                fault |= Fault.SCRATCH_COLLISION
    if fault:
        return _st.with_fault(state, int(fault))
    values = [_st.read_bits(state.ub, s_addr + k * size, size) for k in range(8 * rt)]  # all reads first
    out = _st.copy_state(state)
    for i in range(rt):
        for j in range(8):
            start = d_addr + bb * (i * rep + j * blk)
            for e in range(bb // size):
                _st.write_bits(out.ub, start + e * size, size, values[i * 8 + j])
    return out
