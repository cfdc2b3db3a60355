"""VectorPadding(ISASI), literally from 数据填充/VectorPadding(ISASI).md.

SPEC (功能说明): "根据padMode（pad模式）与padSide（pad方向）对源操作数按照datablock进行填充操作。
假设源操作数的一个datablock有16个数，datablock[0:15]=a~p：
  padSide==false：从datablock的左边开始填充，即datablock的起始值方向(a->p)
  padSide==true：从datablock的右边开始填充，即datablock的结束值方向(p->a)
  padMode==0：用邻近数作为填充值，例：aaa|abc(padSide=false)、nop|ppp(padSide=true)
  padMode==1：用邻近datablock值对称填充，例：cba|abc(padSide=false)、nop|pon(padSide=true)
  padMode==2：用邻近datablock值填充，偏移一个数，做对称填充，例：
    padSide=false：xcb|abc，xcb被填充，填充过程描述：a被丢弃，对称填充，x处填充0
    padSide=true：nop|onx，onx被填充，填充过程描述：p被丢弃，对称填充，x处填充0"

CHOICE (profile ``apis.VectorPadding.layout = "outside_block"``, docs/MODEL.md "VectorPadding"): the
page gives no padding width; the dst DataBlock holds the E = 32 / sizeof(T) values that the padding
puts just outside the src DataBlock (at the same block position) on ``padSide``, in address order --
the result example (a whole block of 6.938 = src[0] for padMode 0, padSide false) shows a full block.

Constraints (约束说明): "mask仅控制目的操作数中的哪些元素要写入，源操作数的读取与mask无关" and
"count表示写入目的操作数中的元素总数，源操作数的读取与count无关": every active dst lane is written;
its value comes from the whole src block (read at src's block / repeat strides).

Call forms, lane plan, faults, writes and register side effects: the one-source element-wise rules
(reference/elementwise.py's order of work, written out here because a lane reads its whole block).
"""

import dataclasses

import numpy as np

from ..errors import NotModelledError, UsageError
from ..profile import as_profile
from ..tensor import LocalTensor
from . import elementwise as _ew
from . import faults as _faults
from . import masks as _masks
from . import state as _st

API = "VectorPadding"


def _check_pad_mode(pad_mode, profile):
    # SPEC: "padding模式，类型为uint8_t，取值范围：[0,2]。"
    if isinstance(pad_mode, (bool, np.bool_)) or not isinstance(pad_mode, (int, np.integer)):
        raise UsageError(API, "padMode", pad_mode, "0, 1 or 2 (uint8_t in [0, 2])", profile)
    if int(pad_mode) not in (0, 1, 2):
        raise UsageError(API, "padMode", pad_mode, "0, 1 or 2 (uint8_t in [0, 2])", profile)
    return int(pad_mode)


def _check_pad_side(pad_side, profile):
    # SPEC: "padding的方向，类型为bool。false：左边。true：右边。" (0 / 1 accepted as C++ converts them)
    if isinstance(pad_side, (bool, np.bool_)):
        return bool(pad_side)
    if isinstance(pad_side, (int, np.integer)) and int(pad_side) in (0, 1):
        return bool(pad_side)
    raise UsageError(API, "padSide", pad_side, "False or True", profile)


def padding_outward(block, pad_mode, pad_side):
    """The padding values in the order they are laid out going away from the block (first = the
    one touching the block), as many as the block has elements."""
    n = len(block)
    if not pad_side:
        # left side: the block read from its start, a -> p
        near = list(block)
    else:
        # right side: the block read from its end, p -> a
        near = list(reversed(block))
    if pad_mode == 0:
        # "用邻近数作为填充值": aaa|abc -- the nearest number, repeated
        return [near[0]] * n
    if pad_mode == 1:
        # "用邻近datablock值对称填充": cba|abc -- the mirror image, the nearest first
        return near[:n]
    # pad_mode == 2: "a被丢弃，对称填充，x处填充0": xcb|abc -- the nearest dropped, mirrored, 0 last
    return near[1:] + [0]


def padded_block(block, pad_mode, pad_side, layout):
    """The dst DataBlock for one src DataBlock (lists of bit patterns)."""
    if layout != "outside_block":
        raise NotModelledError(f"VectorPadding: apis.VectorPadding.layout = {layout!r} is not modelled")
    out = padding_outward(block, pad_mode, pad_side)
    # left: the padding lies before the block, so its address order is the outward order reversed
    return list(reversed(out)) if not pad_side else out


def VectorPadding(state, dst, src, padMode, padSide, *args, profile=None, isSetMask=True):
    """Reference VectorPadding (see the module docstring)."""
    profile = as_profile(profile)
    count_form = _ew.check_static(API, dst, [src], ["src"], args, profile, isSetMask)
    d = dst.dtype
    dst = LocalTensor(d, int(dst.addr), dst.length)
    src = LocalTensor(d, int(src.addr), src.length)

    if count_form:
        plan = _masks.plan_count_form(API, state, d, args[0], isSetMask, profile)
    else:
        mask, repeat_time, repeat_params = args
        plan = _masks.plan_high_dim(API, state, d, mask, repeat_time, repeat_params, isSetMask, profile)
    pad_mode = _check_pad_mode(padMode, profile)
    pad_side = _check_pad_side(padSide, profile)
    layout = profile.api(API).layout
    if plan.outcome == "nop":
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)
    # the count forms: contiguous, default strides (SIMD计算说明/连续计算.md)
    dblk, sblk, drep, srep = (1, 1, 8, 8) if count_form else plan.strides
    p = dataclasses.replace(plan, strides=(dblk, sblk, drep, srep))
    fault = _faults.check_faults(API, p, dst, src, d.itemsize, state.ub.size, profile)
    if fault:
        return _st.with_fault(state, fault)

    size = d.itemsize
    bb = profile.block_bytes
    E = bb // size
    # read every src block an active lane needs, whole (all reads before any write)
    blocks = {}
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            if plan.active[r][l]:
                b = l // E
                if (r, b) not in blocks:
                    base = _faults.block_address(src.addr, r, b, sblk, srep, bb)
                    raw = [_st.read_bits(state.ub, base + e * size, size) for e in range(E)]
                    blocks[(r, b)] = padded_block(raw, pad_mode, pad_side, layout)
    results = []
    src_lanes = []
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            if not plan.active[r][l]:
                continue  # SPEC: "mask仅控制目的操作数中的哪些元素要写入"
            b, e = l // E, l % E
            da = _faults.lane_address(dst.addr, r, b, e, dblk, drep, size, bb)
            results.append((da, blocks[(r, b)][e]))
            # the checker's view of the source: the lane at the same position (docs/MODEL.md)
            src_lanes.append(_faults.lane_address(src.addr, r, b, e, sblk, srep, size, bb))

    out = _st.copy_state(state)
    for da, bits in results:
        _st.write_bits(out.ub, da, size, bits)
    _st.lane_warnings(state, out, API, dst, [da for da, _ in results], [("src", src, src_lanes)], size)
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)
    return out


__all__ = ["VectorPadding"]
