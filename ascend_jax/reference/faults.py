"""Addressing and the per-call fault rules of MODEL.md "Faults", for one dst and one src operand.

Lane ``l`` of repeat ``r`` is block ``b = l // E``, element ``e = l % E`` at byte address
``addr + r*repStride*BB + b*blkStride*BB + e*sizeof(T)`` (BB = block_bytes = 32).
An *active block* is an operand block ``(r, b)`` holding at least one active lane.
"""

from ..errors import Fault


def lane_address(addr, r, b, e, blk_stride, rep_stride, itemsize, block_bytes):
    # SPEC: "dataBlockStride是指单次迭代内不同DataBlock间地址步长" and "repeatStride是指相邻迭代间
    #       相同DataBlock的地址步长" (SIMD计算说明/高维切分.md); both in DataBlocks of 32 bytes.
    return addr + r * rep_stride * block_bytes + b * blk_stride * block_bytes + e * itemsize


def block_address(addr, r, b, blk_stride, rep_stride, block_bytes):
    return addr + r * rep_stride * block_bytes + b * blk_stride * block_bytes


def active_blocks(plan, elems_per_block):
    """[(r, b)] of the blocks holding at least one active lane, in program order."""
    out = []
    blocks_per_repeat = plan.lanes // elems_per_block
    for r in range(plan.repeats):
        row = plan.active[r]
        for b in range(blocks_per_repeat):
            if any(row[b * elems_per_block : (b + 1) * elems_per_block]):
                out.append((r, b))
    return out


def check_faults(api, plan, dst, src, itemsize, ub_size, profile) -> int:
    """OR of the Fault bits of this call (0 when it may run)."""
    bb = profile.block_bytes
    E = bb // itemsize
    dst_blk, src_blk, dst_rep, src_rep = plan.strides
    blocks = active_blocks(plan, E)
    fault = 0
    if not blocks:
        return 0

    # MISALIGNED. SPEC: "Unified Buffer | 32Byte对齐" (通用说明和约束.md, 通用地址对齐约束);
    # the alignment is memory.operand_alignment_bytes.
    align = profile.operand_alignment_bytes
    if dst.addr % align != 0 or src.addr % align != 0:
        fault |= Fault.MISALIGNED

    # DST_BLK_STRIDE_ZERO. SPEC: "dstBlkStride不支持设置为0，若设置成0可能产生未定义行为"
    # (SIMD计算说明/高维切分.md)
    if dst_blk == 0:
        fault |= Fault.DST_BLK_STRIDE_ZERO

    dst_addrs = [(r, b, block_address(dst.addr, r, b, dst_blk, dst_rep, bb)) for r, b in blocks]
    src_addrs = [(r, b, block_address(src.addr, r, b, src_blk, src_rep, bb)) for r, b in blocks]

    # OUT_OF_UB: an active block's bytes [a, a+32) must lie in [0, min(len(ub), ub_usable_bytes)).
    limit = min(ub_size, profile.ub_usable_bytes)
    for _, _, a in dst_addrs + src_addrs:
        if a < 0 or a + bb > limit:
            fault |= Fault.OUT_OF_UB
            break

    # PARTIAL_OVERLAP. SPEC: "单次迭代内：源操作数与目的操作数必须100%完全重叠，不支持部分重叠"
    # (通用说明和约束.md, 通用地址重叠约束). MODEL.md: within repeat r, an active src block (r, b)
    # at the same address as an active dst block (r, b') with b != b'.
    dst_by_repeat = {}
    for r, b, a in dst_addrs:
        dst_by_repeat.setdefault(r, []).append((b, a))
    for r, b, a in src_addrs:
        for b2, a2 in dst_by_repeat.get(r, []):
            if a2 == a and b2 != b:
                fault |= Fault.PARTIAL_OVERLAP
                break

    # REPEAT_DEPENDENCY. SPEC: "多次迭代间：不支持前序迭代的目的操作数与后序迭代的源操作数重叠"
    # (通用说明和约束.md). MODEL.md: an active dst block of repeat r at the same address as an
    # active src block of a later repeat r' > r.
    last_src_repeat = {}
    for r, _, a in src_addrs:
        last_src_repeat[a] = max(r, last_src_repeat.get(a, -1))
    for r, _, a in dst_addrs:
        if last_src_repeat.get(a, -1) > r:
            fault |= Fault.REPEAT_DEPENDENCY
            break

    # SCRATCH_COLLISION: an active block overlapping a memory.reserved region used by this API.
    # SPEC (950): "tensor高维切分计算占用8KB Unified Buffer" (基础算术/Adds.md 约束说明)
    for region in profile.reserved:
        if api not in region.used_by:
            continue
        lo, hi = region.offset_bytes, region.offset_bytes + region.size_bytes
        for _, _, a in dst_addrs + src_addrs:
            if a < hi and a + bb > lo:
                fault |= Fault.SCRATCH_COLLISION
                break

    return int(fault)
