"""CastDequant (复合计算/CastDequant.md), literally, lane by lane.

* int32 -> half ("输入类型为int32_t，输出half数据类型 ... 采用RINT精度舍入模式"): Cast's DEQSCALE conversion
  (``cast.deq_lane_function``); isVecDeq and halfBlock have no effect.
* int16 -> int8 / uint8, ``dst_i = Cast((src_i * scale) + offset)`` with the DEQSCALE scale / offset /
  signMode (isVecDeq false) or group j = (element index in its 32-byte source block) of the 16-entry
  vdeq table at DEQSCALE bits 0~13 x 32 (isVecDeq true; "每个数的计算使用一组独立的量化参数, j ∈ [0,15]").
  Steps (docs/MODEL.md "CastDequant"; the order of the vendor's Ascend 950 emulation of this instruction):
  the scale viewed as (1,8,10) -- the float's low 13 mantissa bits dropped --, ``src * scale`` in float32
  (NumPy, IEEE round-to-nearest-even), RINT to an integer saturated to int16 then to [-256, 255] (signed
  9 bits), plus the signed 9-bit offset, saturated to int8 (signMode 1) or uint8 (signMode 0). A NaN
  product -> 0 (CHOICE). The b8 results of a source block's 16 lanes go to bytes [16, 32) of its dst
  block with halfBlock true ("结果存放在下半DataBlock"), [0, 16) with halfBlock false; the other half is
  untouched. A signMode that does not match T on an active lane: BAD_PARAM.
"""

import numpy as np

from .. import dtypes as _dt
from ..errors import Fault, UnsupportedError, UsageError
from ..profile import as_profile
from ..tensor import LocalTensor
from . import cast as _cast
from . import castcomp as _cc
from . import elementwise as _ew
from . import masks as _masks
from . import state as _st

INT16 = _dt.as_dtype("int16")
INT8 = _dt.as_dtype("int8")


def _pairs(profile):
    return [tuple(x.strip() for x in e.split()[0].split("->")) for e in profile.api("CastDequant").pairs]


def s162b8(src_bits, config):
    """(dst byte, signMode) of one int16 element under the 64-bit quantisation ``config``."""
    v = src_bits - 0x10000 if src_bits & 0x8000 else src_bits
    # SPEC: "scale | 一个float类型数据M（硬件在计算时将其视为(1,8,10)格式）" (SetDeqScale.md 表1)
    scale = np.array([config & 0xFFFFE000], np.uint32).view(np.float32)[0]
    with np.errstate(all="ignore"):
        prod = np.float32(v) * scale
    if np.isnan(prod):
        r = 0  # CHOICE
    else:
        r = int(max(-32768.0, min(32767.0, float(np.rint(prod)))))
    r = max(-256, min(255, r))
    off = (config >> 37) & 0x1FF
    off = off - 512 if off & 0x100 else off  # "offset | 一个有符号的9位整数"
    sign = (config >> 46) & 1
    t = r + off
    t = max(-128, min(127, t)) if sign else max(0, min(255, t))  # "对输出结果的溢出采用饱和处理"
    return t & 0xFF, sign


def CastDequant(state, dst, src, *args, profile, isSetMask=True, isVecDeq=True, halfBlock=True):
    api = "CastDequant"
    profile = as_profile(profile)
    for t, name in ((dst, "dst"), (src, "src")):
        if not isinstance(t, LocalTensor):
            raise UsageError(api, name, t, "a LocalTensor", profile)
    for name, v in (("isSetMask", isSetMask), ("isVecDeq", isVecDeq), ("halfBlock", halfBlock)):
        if not isinstance(v, bool):
            raise UsageError(api, name, v, "True or False", profile)
    count_form = _ew.split_args(api, args, 1)
    profile.require_api(api)
    s, t = src.dtype, dst.dtype
    pairs = _pairs(profile)
    if (s.name, t.name) not in pairs:
        listed = ", ".join(f"{a}->{b}" for a, b in pairs)
        raise UnsupportedError(api, "src.dtype/dst.dtype", f"{s.name}->{t.name}", listed, profile)
    b8 = s == INT16
    for tt, name in ((dst, "dst"), (src, "src")):
        _masks.as_int(api, f"{name}.addr", tt.addr, profile)
    dst = LocalTensor(t, int(dst.addr), dst.length)
    src = LocalTensor(s, int(src.addr), src.length)
    big = s if (b8 or s.itemsize >= t.itemsize) else t
    # the dst's block layout: int16's (16 lanes a block) for s162b8, else its own
    dsize = 2 if b8 else t.itemsize
    bb = profile.block_bytes
    if count_form:
        plan = _masks.plan_count_form(api, state, big, args[0], isSetMask, profile)
        L = profile.lanes(big)
        dst_strides, src_strides = (1, L * dsize // bb), (1, L * s.itemsize // bb)
    else:
        mask, repeat_time, params = args
        plan = _masks.plan_high_dim(api, state, big, mask, repeat_time, params, isSetMask, profile)
        dblk, sblk, drep, srep = plan.strides
        dst_strides, src_strides = (dblk, drep), (sblk, srep)
    if plan.outcome == "nop":
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)
    fault = _cc._two_width_faults(
        api, plan, dst, src, dsize, s.itemsize, dst_strides, src_strides, state.ub.size, profile
    )
    active = [(r, l) for r in range(plan.repeats) for l in range(plan.lanes) if plan.active[r][l]]
    Es = bb // s.itemsize
    if not b8:
        if fault:
            return _st.with_fault(state, fault)
        f = _cast.deq_lane_function(profile, state)
        Ed = bb // t.itemsize
        results = []
        for r, l in active:
            sa = _faults_lane(src.addr, r, l, Es, src_strides, s.itemsize, bb)
            da = _faults_lane(dst.addr, r, l, Ed, dst_strides, t.itemsize, bb)
            results.append((da, 2, f(_st.read_bits(state.ub, sa, s.itemsize))))
        return _finish(state, plan, results, profile)
    deq = int(state.deqscale)
    table = None
    if isVecDeq and active:
        addr = (deq & 0x3FFF) * 32  # "0~13 | vdeqAddr | 被硬件视为一个地址" (32-byte units)
        if addr + 128 > min(state.ub.size, profile.ub_usable_bytes):
            fault |= Fault.OUT_OF_UB
        else:
            table = [_st.read_bits(state.ub, addr + 8 * j, 8) for j in range(16)]
    want = 1 if t == INT8 else 0

    def config(l):
        return deq if not isVecDeq else table[l % 16]

    # SPEC: "当signMode=true时输出数据类型int8_t；signMode=false时输出数据类型uint8_t"
    if not (isVecDeq and table is None) and any((config(l) >> 46) & 1 != want for _, l in active):
        fault |= Fault.BAD_PARAM
    if fault:
        return _st.with_fault(state, fault)
    results = []
    for r, l in active:
        sa = _faults_lane(src.addr, r, l, Es, src_strides, 2, bb)
        byte, _ = s162b8(_st.read_bits(state.ub, sa, 2), config(l))
        blk = _faults_block(dst.addr, r, l // 16, dst_strides, bb)
        # SPEC: "halfBlock=true时，结果存放在下半DataBlock；halfBlock=false时，结果存放在上半DataBlock"
        results.append((blk + (16 if halfBlock else 0) + l % 16, 1, byte))
    return _finish(state, plan, results, profile)


def _faults_block(addr, r, b, strides, bb):
    blk, rep = strides
    return addr + (r * rep + b * blk) * bb


def _faults_lane(addr, r, l, E, strides, size, bb):
    return _faults_block(addr, r, l // E, strides, bb) + (l % E) * size


def _finish(state, plan, results, profile):
    out = _st.copy_state(state)
    for da, n, bits in results:  # program order: a later lane wins a byte written twice
        _st.write_bits(out.ub, da, n, bits)
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)
    return out
