"""The reduction family 归约计算/: ReduceRepeat, ReduceDataBlock, ReducePairElem (one instruction per
repeat) and ReduceSum, ReduceMax, ReduceMin (the whole input to one value; ``sharedTmpBuffer``).

Literal loops from the page text; docs/MODEL.md "Reductions" states every model choice.

Prototypes (C++ order; ``reduceType`` is the template argument, a keyword here):
  ReduceRepeat(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order)
  ReduceDataBlock / ReducePairElem(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride)
  ReduceSum(dst, src, sharedTmpBuffer, count)  /  (..., mask, repeatTime, srcRepStride)
  ReduceMax / ReduceMin(dst, src, sharedTmpBuffer, count[, calIndex])  /  (..., mask, repeatTime,
    srcRepStride[, calIndex])

Arithmetic: every addition is one float add of two T values rounded to T (numerics.finish_float:
flush, canonical NaN, CTRL saturation), in the order the pages give: a binary tree of adjacent
pairs inside a DataBlock / repeat ("data1和data2相加得到data01 ..."), then the product's order
across repeats (ReduceSum 方式一/二/三, ``apis.ReduceSum.order_*``). A masked-off lane inside a
tree is +0. MAX/MIN pick the extremum of the active lanes (-0 < +0; a NaN wins; ties: the lowest
index), whatever the tree, so the value and the index do not depend on the order.
"""

import math

import numpy as np

from .. import dtypes as _dtypes
from ..errors import Fault, NotModelledError, UsageError
from ..params import UnaryRepeatParams
from ..profile import as_profile
from ..reduce_types import as_reduce_order, as_reduce_type, dst_unit_bytes, tmp_need_elems
from ..tensor import LocalTensor
from . import masks as _masks
from . import numerics as _num
from . import state as _st

INT32_MAX = (1 << 31) - 1
STRIDE_MAX = (1 << 16) - 1


# ---------------------------------------------------------------------------------------------
# Element arithmetic on bit patterns


class _Arith:
    def __init__(self, d, profile, state):
        self.d, self.p = d, profile
        self.fmt = _num.float_format(d) if d.is_float else None
        self.sat = _num.float_saturating(profile, d, _st.get_ctrl(state)) if d.is_float else False

    def zero(self):
        return 0

    def add(self, a, b):
        # SPEC: "data1和data2相加得到data01" (ReduceDataBlock.md 关键特性说明): one rounded T add
        x = _num.read_float_input(a, self.fmt, self.p)
        y = _num.read_float_input(b, self.fmt, self.p)
        return _num.finish_float(_num.f_add(x, y), self.fmt, self.p, self.sat)

    def tree(self, items):
        """Binary tree of adjacent pairs over ``items`` (a power-of-two count of bit patterns)."""
        while len(items) > 1:
            items = [self.add(items[2 * i], items[2 * i + 1]) for i in range(len(items) // 2)]
        return items[0]

    def _key(self, bits):
        if self.d.is_float:
            v = _num.read_float_input(bits, self.fmt, self.p)
            return (v, math.copysign(1.0, v))  # -0 < +0
        return _num.bits_to_int(bits, self.d)

    def extreme(self, lanes, op):
        """(result bits, index) over ``lanes`` = [(index, bits)] in index order."""
        if self.d.is_float:
            nans = [i for i, b in lanes if _num.is_nan_bits(b, self.fmt)]
            if nans:  # MODEL.md: a NaN operand wins; the lowest NaN index
                return _num.finish_float(math.nan, self.fmt, self.p, self.sat), nans[0]
        best_i, best_b = lanes[0]
        for i, b in lanes[1:]:
            k, kb = self._key(b), self._key(best_b)
            # SPEC: "如果存在多个最大值，该指令会将最小索引写入目的操作数" (ReduceRepeat.md): strict
            if (k > kb) if op == "MAX" else (k < kb):
                best_i, best_b = i, b
        if self.d.is_float:
            v = _num.read_float_input(best_b, self.fmt, self.p)
            return _num.finish_float(v, self.fmt, self.p, self.sat), best_i
        return best_b, best_i


# ---------------------------------------------------------------------------------------------
# Static checks and the lane plan


def _check_tensors(api, profile, **tensors):
    for name, t in tensors.items():
        if not isinstance(t, LocalTensor):
            raise UsageError(api, name, t, "a LocalTensor", profile)
        _masks.as_int(api, f"{name}.addr", t.addr, profile)


def _stride(api, name, v, profile, hi=STRIDE_MAX):
    v = _masks.as_int(api, name, v, profile)
    # SPEC: "dstRepStride、srcBlkStride、srcRepStride取值范围为[0, 2^16-1]" (ReduceRepeat.md 约束说明)
    if not 0 <= v <= hi:
        raise UsageError(api, name, v, f"[0, {hi}]", profile)
    return v


def _lane_src_addr(src, r, l, E, size, blk, rep, bb):
    return src + r * rep * bb + (l // E) * blk * bb + (l % E) * size


def _read(ub, addr, nbytes):
    """A source element's bits; a lane past the end of the UB array reads 0 (its block is outside
    the UB, so the call faults OUT_OF_UB below and the value is never used)."""
    if addr < 0 or addr + nbytes > ub.size:
        return 0
    return _st.read_bits(ub, addr, nbytes)


def _common_faults(api, profile, ub_size, aligned, ranges, ub_limit=None):
    """MISALIGNED over ``aligned`` [(addr, alignment)], OUT_OF_UB and SCRATCH_COLLISION over
    ``ranges`` [(start, nbytes)] (every byte range the call touches)."""
    fault = 0
    for a, al in aligned:
        if a % al:
            fault |= Fault.MISALIGNED
    limit = min(ub_size, profile.ub_usable_bytes)
    for s, n in ranges:
        if s < 0 or s + n > limit:
            fault |= Fault.OUT_OF_UB
    for reg in profile.reserved:
        if api in reg.used_by:
            lo, hi = reg.offset_bytes, reg.offset_bytes + reg.size_bytes
            if any(s < hi and s + n > lo for s, n in ranges):
                fault |= Fault.SCRATCH_COLLISION
    return int(fault)


def _finish(state, plan, writes, profile):
    out = _st.copy_state(state)
    for addr, nbytes, bits in writes:
        _st.write_bits(out.ub, addr, nbytes, bits)
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)
    return out


# ---------------------------------------------------------------------------------------------
# ReduceRepeat / ReduceDataBlock / ReducePairElem: one instruction, per-repeat results


def _per_repeat(api, state, dst, src, args, reduce_type, order, profile, is_set_mask, types):
    profile = as_profile(profile)
    _check_tensors(api, profile, dst=dst, src=src)
    if not isinstance(is_set_mask, bool):
        raise UsageError(api, "isSetMask", is_set_mask, "True or False", profile)
    if len(args) != 5:
        raise TypeError(
            f"{api}() takes (dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride), "
            f"got {2 + len(args)} arguments"
        )
    rt = as_reduce_type(api, reduce_type, types, profile)
    d = src.dtype
    profile.require_api(api, d)
    # SPEC: "目的操作数与源操作数的数据类型需要保持一致" (ReduceDataBlock.md, ReduceRepeat.md 数据类型)
    if dst.dtype != d:
        raise UsageError(api, "dst.dtype", dst.dtype.name, f"{d.name} (= src.dtype)", profile)
    if rt == "SUM" and not d.is_float:
        raise NotModelledError(f"{api}: integer SUM ({d.name}) is not modelled")
    if api == "ReduceRepeat" and rt != "SUM":
        order = as_reduce_order(api, order, profile)
    mask, repeat_time, dst_rep, src_blk, src_rep = args
    plan = _masks.plan_high_dim(api, state, d, mask, repeat_time, UnaryRepeatParams(), is_set_mask, profile)
    dst_rep = _stride(api, "dstRepStride", dst_rep, profile)
    src_blk = _stride(api, "srcBlkStride", src_blk, profile)
    src_rep = _stride(api, "srcRepStride", src_rep, profile)
    if plan.outcome == "nop":
        # SPEC: "当参数mask或repeatTime取值为0时 ... 该接口将被视为NOP" (ReduceRepeat.md, A2/A3)
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)

    size, bb = d.itemsize, profile.block_bytes
    E, L = bb // size, plan.lanes
    ar = _Arith(d, profile, state)
    src_a, dst_a = int(src.addr), int(dst.addr)
    if api == "ReduceRepeat":
        unit = dst_unit_bytes(rt, order, size)
        dst_align = unit  # SPEC: ReduceRepeat.md 表3 目的操作数地址对齐约束 = dstRepStride单位
    elif api == "ReduceDataBlock":
        # SPEC: "在half数据类型时需要保证16字节对齐，在float数据类型时需要保证32字节对齐" -- one
        # repeat's 8 results; MODEL.md: dstRepStride counts whole repeat outputs
        unit = 8 * size
        dst_align = unit
    else:
        unit = (L // 2) * size  # MODEL.md: one repeat's L/2 results ("dstRepStride = 1 ... 没有空隙")
        dst_align = profile.operand_alignment_bytes

    # -- read and compute (all reads before any write) -------------------------------------
    writes, src_blocks, spans = [], [], []
    for r in range(plan.repeats):
        row = plan.active[r]
        if not any(row):
            continue  # a Counter-mode repeat past the count does not run
        spans.append((r, dst_a + r * dst_rep * unit))
        for b in range(L // E):
            if any(row[b * E : (b + 1) * E]):
                src_blocks.append((r, src_a + r * src_rep * bb + b * src_blk * bb))
        bits = [
            _read(state.ub, _lane_src_addr(src_a, r, l, E, size, src_blk, src_rep, bb), size)
            if row[l]
            else None
            for l in range(L)
        ]
        base = dst_a + r * dst_rep * unit
        if api == "ReduceRepeat":
            if rt == "SUM":
                # SPEC: "归约操作类型取SUM时接口以二叉树累加的方式完成每个repeat内的求和"
                v = ar.tree([x if x is not None else ar.zero() for x in bits])
                writes.append((r, base, size, v))
                continue
            v, idx = ar.extreme([(l, x) for l, x in enumerate(bits) if x is not None], rt)
            # SPEC: "index的值为int数值的二进制在half中的表达" (ReduceRepeat.md 示例)
            if order == "ORDER_VALUE_INDEX":
                writes += [(r, base, size, v), (r, base + size, size, idx)]
            elif order == "ORDER_INDEX_VALUE":
                writes += [(r, base, size, idx), (r, base + size, size, v)]
            elif order == "ORDER_ONLY_VALUE":
                writes.append((r, base, size, v))
            else:  # SPEC: ORDER_ONLY_INDEX "读取索引值index时都需要使用reinterpret_cast<uint32_t*>"
                writes.append((r, base, 4, idx))
        elif api == "ReduceDataBlock":
            for b in range(L // E):
                blk = bits[b * E : (b + 1) * E]
                a = base + b * size
                if all(x is None for x in blk):
                    v = _empty_block(rt, d, profile)
                    if v is not None:
                        writes.append((r, a, size, v))
                    continue
                if rt == "SUM":
                    v = ar.tree([x if x is not None else ar.zero() for x in blk])
                else:
                    v, _ = ar.extreme([(e, x) for e, x in enumerate(blk) if x is not None], rt)
                writes.append((r, a, size, v))
        else:  # ReducePairElem
            for i in range(L // 2):
                x, y = bits[2 * i], bits[2 * i + 1]
                a = base + i * size
                if x is None and y is None:
                    # SPEC: "当一对相邻元素的掩码均为0时 ... 跳过写入，保持不变 / 置为0" (约束说明)
                    if profile.api(api).empty_pair == "zero":
                        writes.append((r, a, size, 0))
                    continue
                # SPEC: "[a1, a2, a3, a4, ...]的求和结果为[a1+a2, a3+a4, ...]"
                writes.append((r, a, size, ar.add(x if x is not None else 0, y if y is not None else 0)))

    # -- faults ----------------------------------------------------------------------------
    ranges = [(a, bb) for _, a in src_blocks] + [(a, n) for _, a, n, _ in writes]
    fault = _common_faults(api, profile, state.ub.size, [(src_a, 32), (dst_a, dst_align)], ranges)
    # REPEAT_DEPENDENCY. SPEC: "多次迭代间：不支持前序迭代的目的操作数与后序迭代的源操作数重叠"
    # (通用地址重叠约束); MODEL.md: the output span [base_r, base_r + unit) of a repeat that runs meets
    # an active src block of a later repeat (the span, written or not: a skipped empty pair too)
    for r, a in spans:
        if any(r2 > r and a < s + bb and s < a + unit for r2, s in src_blocks):
            fault |= Fault.REPEAT_DEPENDENCY
            break
    if fault:
        return _st.with_fault(state, fault)
    out = _finish(state, plan, [(a, n, v) for _, a, n, v in writes], profile)
    if api == "ReduceRepeat" and src_blocks:
        _write_spr(out, ar, rt, plan, state.ub, src_a, src_blk, src_rep, L, E, size, bb)
    return out


def _write_spr(out, ar, rt, plan, ub, src_a, src_blk, src_rep, L, E, size, bb):
    """ReduceRepeat's result registers (MODEL.md "Reduce result registers"), on ``out`` in place.
    SUM: the repeat sums added in repeat order (ReduceSum 方式一's order). MAX/MIN: the extremum of
    every active lane of every repeat and its position ``r * L + l`` (continuous layout)."""
    # SPEC: "获取调用ReduceRepeat<MAX/MIN>时所有repeat内的最值及其索引" (GetReduceRepeatMaxMinSpr.md)
    rows = []
    for r in range(plan.repeats):
        row = plan.active[r]
        if any(row):
            rows.append(
                (r, [_st.read_bits(ub, _lane_src_addr(src_a, r, l, E, size, src_blk, src_rep, bb), size)
                     if row[l] else None for l in range(L)])
            )  # fmt: skip
    if rt == "SUM":
        acc = None
        for _, row in rows:
            s = ar.tree([x if x is not None else ar.zero() for x in row])
            acc = s if acc is None else ar.add(acc, s)
        out.reduce_sum = acc
        return
    lanes = [(r * L + l, x) for r, row in rows for l, x in enumerate(row) if x is not None]
    v, idx = ar.extreme(lanes, rt)
    # SPEC: "索引maxMinIndex按操作数数据类型存储" -- T-width integer bits
    out.reduce_maxmin = (v, idx & ((1 << (8 * size)) - 1))


def _empty_block(rt, d, profile):
    """ReduceDataBlock: what a DataBlock with no active element writes (None: nothing)."""
    # SPEC: "存在某个DataBlock里的任何一个元素都不参与计算，不会有值写入对应目的操作数" (A2/A3) /
    #       "则会以默认值填充 ... SUM时填充0；MAX ... float时填充-inf，half时填充-65504" (310B, 950)
    policy = profile.api("ReduceDataBlock").empty_block
    if policy == "keep":
        return None
    fmt = _num.float_format(d)
    if rt == "SUM":
        return 0
    big = fmt.max_bits if (policy == "fill_half_max" and d.name == "half") else fmt.inf_bits
    return big | (fmt.sign_bit if rt == "MAX" else 0)


def ReduceRepeat(
    state, dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
    order="ORDER_VALUE_INDEX", *, reduceType, profile, isSetMask=True,
):  # fmt: skip
    """Per repeat: the sum, or the max/min and its in-repeat index (归约计算/ReduceRepeat.md)."""
    args = (mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride)
    return _per_repeat(
        "ReduceRepeat", state, dst, src, args, reduceType, order, profile, isSetMask, ("SUM", "MAX", "MIN")
    )


def ReduceDataBlock(
    state, dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
    *, reduceType, profile, isSetMask=True,
):  # fmt: skip
    """Per DataBlock: the sum / max / min (归约计算/ReduceDataBlock.md)."""
    args = (mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride)
    return _per_repeat(
        "ReduceDataBlock", state, dst, src, args, reduceType, None, profile, isSetMask, ("SUM", "MAX", "MIN")
    )


def ReducePairElem(
    state, dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
    *, reduceType="SUM", profile, isSetMask=True,
):  # fmt: skip
    """Per pair of adjacent elements: the sum (归约计算/ReducePairElem.md; "当前仅支持求和操作")."""
    args = (mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride)
    return _per_repeat(
        "ReducePairElem", state, dst, src, args, reduceType, None, profile, isSetMask, ("SUM",)
    )


# ---------------------------------------------------------------------------------------------
# ReduceSum / ReduceMax / ReduceMin: the whole input to one value


def _whole_plan(api, state, d, args, profile, is_set_mask):
    """(plan, count form?, srcRepStride, calIndex-free args) of the count or high-dim form."""
    L = profile.lanes(d)
    if len(args) == 1:
        return _masks.plan_count_form(api, state, d, args[0], is_set_mask, profile), True, 8
    mask, repeat_time, src_rep = args
    rt = _masks.as_int(api, "repeatTime", repeat_time, profile)
    # SPEC: "repeatTime可以支持更大的取值范围，保证不超过int32_t的最大值即可" (ReduceMax.md 参数说明)
    if not 0 <= rt <= INT32_MAX:
        raise UsageError(api, "repeatTime", rt, f"[0, {INT32_MAX}]", profile)
    src_rep = _stride(api, "srcRepStride", src_rep, profile)
    plan = _masks.plan_high_dim(api, state, d, mask, min(rt, 1), UnaryRepeatParams(), is_set_mask, profile)
    if plan.outcome == "run" and state.mask_mode == 0 and rt > 1:
        # Normal mode: the per-repeat mask for each of the repeatTime repeats
        _masks._guard(rt * L, f"{api} with repeatTime={rt}")
        plan.active = [list(plan.active[0]) for _ in range(rt)]
        plan.repeats = rt
    return plan, False, src_rep


def _whole(api, state, dst, src, tmp, args, profile, is_set_mask=True, cal_index=False):
    profile = as_profile(profile)
    _check_tensors(api, profile, dst=dst, src=src, sharedTmpBuffer=tmp)
    if not isinstance(cal_index, bool):
        raise UsageError(api, "calIndex", cal_index, "True or False", profile)
    if len(args) not in (1, 3):
        raise TypeError(
            f"{api}() takes (dst, src, sharedTmpBuffer, count) or "
            f"(dst, src, sharedTmpBuffer, mask, repeatTime, srcRepStride); got {3 + len(args)} arguments"
        )
    d = src.dtype
    profile.require_api(api, d, count_form=len(args) == 1)
    for t, name in ((dst, "dst"), (tmp, "sharedTmpBuffer")):
        if t.dtype != d:  # SPEC: LocalTensor<T> for dst, src and sharedTmpBuffer (函数原型)
            raise UsageError(api, f"{name}.dtype", t.dtype.name, f"{d.name} (= src.dtype)", profile)
    if d.itemsize == 8:
        raise NotModelledError(f"{api}: {d.name} is not modelled")
    size, bb = d.itemsize, profile.block_bytes
    L, E = profile.lanes(d), bb // size
    plan, count_form, src_rep = _whole_plan(api, state, d, args, profile, is_set_mask)
    a = profile.api(api)
    sum_order = None
    if api == "ReduceSum":
        sum_order = a.order_count if count_form else a.order_highdim
    # sharedTmpBuffer size (ReduceMax.md / ReduceSum.md 关键特性说明). SPEC: "对于tensor前n个数据计算
    # 接口，firstMaxRepeat为count/elementsPerRepeat"; ReduceSum: "count小于elementsPerRepeat的场景，
    # firstMaxRepeat为1"
    first = max(1, _masks.as_int(api, "count", args[0], profile) // L) if count_form else int(args[1])
    if sum_order == "vector_add_small":
        sum_order = "tree_repeats"
        if count_form and 256 <= int(args[0]) * size <= 1024:
            sum_order = "vector_add"  # SPEC (950): "Counter模式且数据量在256~1024字节之间采用方式三"
    need = tmp_need_elems(api, first, L, E, cal_index, sum_order)
    if tmp.length < need:
        raise UsageError(
            api, "sharedTmpBuffer", f"{tmp.length} elements", f">= {need} elements", profile,
            "the page's sharedTmpBuffer formula (关键特性说明)",
        )  # fmt: skip
    if plan.outcome == "nop":
        # SPEC: "当参数count或repeatTime取值为0时 ... 该接口将被视为NOP" (A2/A3)
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)

    ar = _Arith(d, profile, state)
    src_a, dst_a, tmp_a = int(src.addr), int(dst.addr), int(tmp.addr)
    rows, src_blocks = [], []  # rows: (r, [bits or None] * L) of the repeats that run
    for r in range(plan.repeats):
        row = plan.active[r]
        if not any(row):
            continue
        for b in range(L // E):
            if any(row[b * E : (b + 1) * E]):
                src_blocks.append(src_a + r * src_rep * bb + b * bb)
        rows.append(
            (
                r,
                [
                    _read(state.ub, _lane_src_addr(src_a, r, l, E, size, 1, src_rep, bb), size)
                    if row[l]
                    else None
                    for l in range(L)
                ],
            )
        )
    fault = 0
    if api == "ReduceSum":
        out = [(dst_a, size, _sum(ar, rows, L, sum_order))]
    else:
        op = "MAX" if api == "ReduceMax" else "MIN"
        # SPEC: "返回最终结果时，需要根据迭代位置和repeat内部索引推导全量数据的最大值索引"
        lanes = [(r * L + l, x) for r, row in rows for l, x in enumerate(row) if x is not None]
        v, idx = ar.extreme(lanes, op)
        out = [(dst_a, size, v)]
        if cal_index:
            # SPEC: "dst结果存储顺序为最大值，最大值索引"; "当输入类型是half的时候，只支持获取最大不超过
            #       65535（uint16_t能表示的最大值）的索引值" -- MODEL.md: a larger index is BAD_PARAM
            if idx >= 1 << (8 * size):
                fault |= Fault.BAD_PARAM
            out.append((dst_a + size, size, idx & ((1 << (8 * size)) - 1)))
    dst_bytes = sum(n for _, n, _ in out)
    ranges = [(s, bb) for s in src_blocks] + [(dst_a, dst_bytes)]
    if need:
        ranges.append((tmp_a, need * size))
    aligned = [(src_a, 32), (tmp_a, 32), (dst_a, dst_bytes)]
    fault |= _common_faults(api, profile, state.ub.size, aligned, ranges)
    if fault:
        return _st.with_fault(state, fault)
    new = _finish(state, plan, out, profile)
    if rows:
        # MODEL.md "Reduce result registers": the result (ReduceSum) or the value and its index
        # (ReduceMax / ReduceMin; SPEC: "仅可获取准确最值，不能获取对应的准确索引" -- a model choice)
        if api == "ReduceSum":
            new.reduce_sum = out[0][2]
        else:
            new.reduce_maxmin = (v, idx & ((1 << (8 * size)) - 1))
    return new


def _sum(ar, rows, L, order):
    """ReduceSum across the repeats that run: a tree inside each repeat, then ``order``."""
    zero = ar.zero()
    if order == "vector_add":
        # SPEC (950): "方式三：不同repeat间通过向量加法将数据合并为一个repeat，repeat内采用二叉树累加"
        acc = [x if x is not None else zero for x in rows[0][1]]
        for _, row in rows[1:]:
            acc = [ar.add(a, x if x is not None else zero) for a, x in zip(acc, row, strict=True)]
        return ar.tree(acc)
    # SPEC: "同一repeat内采用二叉树累加" (方式一, 方式二)
    sums = [ar.tree([x if x is not None else zero for x in row]) for _, row in rows]
    if order == "sequential_repeats":
        # SPEC: "方式一：... 不同repeat的结果按顺序累加"
        acc = sums[0]
        for s in sums[1:]:
            acc = ar.add(acc, s)
        return acc
    # SPEC: "方式二：... 不同repeat的结果也按二叉树累加" -- the repeat results reduced again, L at a
    # time (a ReduceRepeat<SUM> pass over them; the last chunk's missing lanes are +0), until one
    while len(sums) > 1:
        sums = [
            ar.tree(sums[i : i + L] + [zero] * (L - len(sums[i : i + L]))) for i in range(0, len(sums), L)
        ]
    return sums[0]


def ReduceSum(state, dst, src, sharedTmpBuffer, *args, profile, isSetMask=True):
    """The sum of every active element (归约计算/ReduceSum.md)."""
    return _whole("ReduceSum", state, dst, src, sharedTmpBuffer, args, profile, isSetMask)


def _split_cal_index(api, args):
    if len(args) in (2, 4):
        return args[:-1], args[-1]
    return args, False


def ReduceMax(state, dst, src, sharedTmpBuffer, *args, profile, calIndex=None):
    """The maximum (and its index with ``calIndex``) of every active element (归约计算/ReduceMax.md)."""
    args, ci = _split_cal_index("ReduceMax", args)
    ci = ci if calIndex is None else calIndex
    return _whole("ReduceMax", state, dst, src, sharedTmpBuffer, args, profile, True, ci)


def ReduceMin(state, dst, src, sharedTmpBuffer, *args, profile, calIndex=None):
    """The minimum (and its index with ``calIndex``) of every active element (归约计算/ReduceMin.md)."""
    args, ci = _split_cal_index("ReduceMin", args)
    ci = ci if calIndex is None else calIndex
    return _whole("ReduceMin", state, dst, src, sharedTmpBuffer, args, profile, True, ci)


# ---------------------------------------------------------------------------------------------
# The reduce result registers (寄存器辅助接口/)


def _as_t(bits, d):
    """The T value whose bit pattern is the low sizeof(T) bytes of ``bits`` (a NumPy scalar)."""
    raw = int(bits) & ((1 << (8 * d.itemsize)) - 1)
    return np.array([raw], dtype=f"<u{d.itemsize}").view(d.np_dtype)[0]


def GetReduceRepeatSumSpr(state, T, *, profile):
    """The ReduceSum result register read as T (GetReduceRepeatSumSpr(ISASI).md: "获取ReduceSum接口的
    计算结果 ... 计算结果以全局变量形式存储，可以随时调用获取")."""
    profile = as_profile(profile)
    d = _dtypes.as_dtype(T)
    profile.require_api("GetReduceRepeatSumSpr", d)
    return _as_t(state.reduce_sum, d)


def GetReduceRepeatMaxMinSpr(state, T, *, profile):
    """(maxMinValue, maxMinIndex) -- or maxMinValue alone on a product with the one-output
    prototype -- of the max/min register (GetReduceRepeatMaxMinSpr(ISASI).md). SPEC: "索引maxMinIndex
    按操作数数据类型存储": the index comes back as T holding the index's integer bits."""
    profile = as_profile(profile)
    d = _dtypes.as_dtype(T)
    a = profile.require_api("GetReduceRepeatMaxMinSpr", d)
    value, index = state.reduce_maxmin
    if not a.with_index:
        return _as_t(value, d)
    return _as_t(value, d), _as_t(index, d)
