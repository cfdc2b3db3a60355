"""Gather, Scatter (离散与聚合/, element addresses from an offset tensor) and Gatherb (DataBlock
addresses from an offset tensor) on the UB. docs/MODEL.md "Gather, Gatherb, Scatter" has the rules.

Gather / Scatter: the lane plan is the shared one (``lanes.plan``; 8-bit T plans as 16-bit T: 128
lanes, 4 DataBlocks a repeat). Lane ``g = r * L + l`` reads its uint32 offset word at
``off + 4 g``; the element address is ``far + base + offset`` (Gather: far = src, read; Scatter:
far = dst, written); the other operand (Gather: dst, Scatter: src) is sequential, lane ``l`` of
repeat ``r`` at ``seq + r * rep_bytes + l * sizeof(T)``. Element reads are traced-index gathers of
the UB bytes; Gather writes dst in program order (``memory.write_program_order``); Scatter writes
each element once (a later lane to the same address wins: the earlier ones are dropped, found by a
stable sort), so its scatter is order-free.

Everything shape-setting is static (``GatherStatic`` / ``GatherbStatic``), every address, offset,
count, mask, stride and repeat count traced: one program per (API, dtype, bucket).
"""

import dataclasses

import jax.numpy as jnp
import numpy as np

from .. import dtypes as _dt
from ..errors import Fault
from . import lanes as LN
from . import memory as MEM
from . import static as S
from .pipeline import any_fault, closing_faults, finish, footprint_faults, regions_used

U32 = jnp.uint32
I32 = jnp.int32
_BIG = 1 << 30  # an element address sum above this is outside any UB (and int32-safe below it)


@dataclasses.dataclass(frozen=True)
class GatherStatic:
    api: str  # "Gather" | "Scatter"
    dtype: object
    R: int
    profile: object
    kind: object = None  # a lanes.KIND_* or None (traced dyn["kind"])


@dataclasses.dataclass(frozen=True)
class GatherbStatic:
    dtype: object
    R: int
    profile: object


def plan_dtype(dt):
    """The lane-plan dtype: 8-bit T gathers 4 DataBlocks (128 lanes) a repeat, as 16-bit T."""
    return _dt.as_dtype("uint16") if dt.itemsize == 1 else dt


def read_u32(ub, addr):
    """uint32 little-endian words at the byte addresses ``addr`` (clipped reads: a word outside UB
    is a fault of the caller's)."""
    n = ub.shape[-1]
    idx = jnp.clip(addr[..., None] + np.arange(4, dtype=np.int32), 0, n - 1)
    b = jnp.take(ub, idx).astype(U32)
    return b[..., 0] | (b[..., 1] << 8) | (b[..., 2] << 16) | (b[..., 3] << 24)


def read_elems(ub, addr, size):
    """The raw bytes uint8[..., size] at byte addresses ``addr`` (clipped)."""
    n = ub.shape[-1]
    idx = jnp.clip(addr[..., None] + np.arange(size, dtype=np.int32), 0, n - 1)
    return jnp.take(ub, idx)


def bytes_to_lanes(b, size):
    """uint8[R, L, size] -> uint32[R, L] lane bits, or [R, L, 2] (low, high) for 8-byte T."""
    w = b.astype(U32)
    if size <= 4:
        out = w[..., 0]
        for k in range(1, size):
            out = out | (w[..., k] << (8 * k))
        return out
    lo = w[..., 0] | (w[..., 1] << 8) | (w[..., 2] << 16) | (w[..., 3] << 24)
    hi = w[..., 4] | (w[..., 5] << 8) | (w[..., 6] << 16) | (w[..., 7] << 24)
    return jnp.stack([lo, hi], axis=-1)


def _element_addresses(far, base, o, size):
    """(address int32 (valid where not ``big``), big: the sum is beyond any UB, misaligned)."""
    s = base + o  # uint32, may wrap
    big = (s < base) | (s > U32(_BIG))
    a = jnp.asarray(far, I32) + jnp.where(big, U32(0), s).astype(I32)
    m = np.uint32(size - 1)
    # (far + base + offset) mod sizeof(T), exact even when the uint32 sum wrapped (2**32 % size == 0)
    mis = ((jnp.asarray(far, I32).astype(U32) & m) + (s & m)) & m
    return a, big, mis != 0


def _hull(addr, n, act):
    big = np.int32(2**31 - 1)
    lo = jnp.min(jnp.where(act, addr, big))
    hi = jnp.max(jnp.where(act, addr + n, -big))
    return lo, hi


def _meets(addr, n, act, hull):
    lo, hi = hull
    return jnp.any(act & (addr < hi) & (addr + n > lo))


@S.entry
def run_gather(st: GatherStatic, state, dyn):
    """One Gather or Scatter call. ``dyn``: the lane-plan fields, ``dst``, ``src``, ``off`` (tensor
    addresses), ``base`` uint32, ``rep_bytes`` (the sequential operand's repeat step in bytes),
    ``max_off`` uint32 (the product's offset limit for T), ``bad_param``, ``bad_mask``, ``kind``."""
    p, dt, R = st.profile, st.dtype, st.R
    scatter = st.api == "Scatter"
    size = dt.itemsize
    pdt = plan_dtype(dt)
    L = p.lanes(pdt)
    plan = LN.plan(p, pdt, R, state, dyn, kind=st.kind)
    # a call the lane plan already faults (bad mask, a zero the profile leaves undefined) reads nothing
    act = plan.act & ~(plan.bad_mask | plan.undef)
    ub = state.ub
    limit = min(ub.shape[-1], p.ub_usable_bytes)
    seq, far = (dyn["src"], dyn["dst"]) if scatter else (dyn["dst"], dyn["src"])
    r = np.arange(R, dtype=np.int32)[:, None]
    lane = np.arange(L, dtype=np.int32)[None, :]
    g = r * L + lane
    seq_a = jnp.asarray(seq, I32) + r * jnp.asarray(dyn["rep_bytes"], I32) + lane * size  # [R, L]
    oa = jnp.asarray(dyn["off"], I32) + 4 * g
    o_in = (oa >= 0) & (oa + 4 <= limit)
    o = read_u32(ub, oa)
    a, big, mis = _element_addresses(far, jnp.asarray(dyn["base"], U32), o, size)
    ok_lane = act & o_in  # lanes whose offset word could be read
    near = ok_lane & ~big
    any_act = jnp.any(act)

    # -- faults ----------------------------------------------------------------------------------
    fault = footprint_faults(
        [(seq_a, size, act), (oa, 4, act), (a, size, near)], limit, regions_used(p, st.api)
    )
    fault |= any_fault(ok_lane & big, Fault.OUT_OF_UB)
    fault |= MEM.misaligned_fault((dyn["dst"], dyn["src"], dyn["off"]), any_act, p.operand_alignment_bytes)
    # SPEC: "取值应保证src元素类型位宽对齐"; "srcBaseAddr ... 否则会导致非预期行为" -> MISALIGNED
    fault |= any_fault(ok_lane & mis, Fault.MISALIGNED)
    # SPEC (950, 310B): "当操作数为8位时，取值范围为[0, 2^16-1]；当操作数为16位时，取值范围为[0, 2^17-1]"
    bad_off = jnp.any(ok_lane & (o > jnp.asarray(dyn["max_off"], U32)))
    seq_hull = _hull(seq_a, size, act)
    if scatter:
        off_hull = _hull(oa, 4, act)
        overlap = _meets(a, size, near, seq_hull) | _meets(a, size, near, off_hull)
    else:
        # SPEC: "不支持源操作数与目的操作数使用同一块内存地址" (Gather.md 约束说明)
        overlap = _meets(a, size, near, seq_hull) | _meets(oa, 4, act, seq_hull)
    fault |= jnp.where(overlap, U32(Fault.PARTIAL_OVERLAP), U32(0))
    fault |= closing_faults(plan, dyn["bad_mask"], dyn["bad_param"] | bad_off)

    if scatter:
        # program order: the last lane writing an address wins (a stable sort by address keeps lane
        # order within equal addresses); the others are dropped, so the scatter is order-free
        n = R * L
        key = jnp.where(act, a, -1 - jnp.asarray(g, I32)).reshape(n)
        order = jnp.argsort(key, stable=True)
        ks = key[order]
        same_next = jnp.concatenate([ks[:-1] == ks[1:], jnp.zeros((1,), bool)])
        dup = jnp.any(same_next)  # inactive keys are distinct negatives
        last = jnp.zeros((n,), bool).at[order].set(~same_next).reshape(R, L)
        # SPEC: "偏移地址不能有相同值，如果存在2个或者多个偏移重复的情况，行为是不可预期的" (Scatter.md)
        if p.api("Scatter")["duplicate_offsets"] == "fault":
            fault |= jnp.where((fault == 0) & dup, U32(Fault.UNDEFINED), U32(0))
        ok = fault == 0
        vals = read_elems(ub, seq_a, size)  # [R, L, size]
        win = act & last & ok
        idx = jnp.where(win[..., None], a[..., None] + np.arange(size, dtype=np.int32), ub.shape[-1])
        new_ub = ub.at[idx.reshape(-1)].set(vals.reshape(-1), mode="drop")
        return finish(state, plan, fault, new_ub)

    ok = fault == 0
    new = bytes_to_lanes(read_elems(ub, a, size), size)  # [R, L] or [R, L, 2]
    msize = min(size, 4)
    act_m = jnp.repeat(act, 2, axis=1) if size == 8 else act
    words = MEM.lanes_to_words(new.reshape(R, -1), msize)  # [R, nb, 8]
    mask = MEM.lane_mask_words(act_m, msize)
    nb = words.shape[1]
    blk_act = jnp.any(act.reshape(R, nb, -1), axis=-1)
    d_blocks = seq_a[:, :: L // nb]  # the first lane of each block: its address
    new_ub = MEM.write_program_order(ub, MEM.block_index(d_blocks), words, mask, blk_act & ok)
    return finish(state, plan, fault, new_ub)


@S.entry
def run_gatherb(st: GatherbStatic, state, dyn):
    """One Gatherb call. ``dyn``: ``dst``, ``src``, ``off``, ``blk`` (dstBlkStride), ``rep``
    (dstRepStride), ``repeat``, ``bad_param``."""
    p, R = st.profile, st.R
    bb = p.block_bytes
    ub = state.ub
    limit = min(ub.shape[-1], p.ub_usable_bytes)
    rep = jnp.asarray(dyn["repeat"], I32)
    r_act = jnp.arange(R, dtype=I32) < rep
    blk_act = jnp.broadcast_to(r_act[:, None], (R, 8))
    any_act = jnp.any(r_act)
    blk = jnp.asarray(dyn["blk"], I32)
    fault = jnp.zeros((), U32)
    if p.api("Gatherb")["dst_blk_stride_zero"] == "as_one":
        # SPEC: "当dstBlkStride值为0时，默认按照1来处理" (GatherRepeatParams)
        blk = jnp.where(blk == 0, 1, blk)
    else:
        fault |= any_fault(any_act & (blk == 0), Fault.DST_BLK_STRIDE_ZERO)
    d_addr = MEM.block_addr(dyn["dst"], blk, dyn["rep"], R, bb)  # [R, 8]
    k = np.arange(R * 8, dtype=np.int32).reshape(R, 8)
    oa = jnp.asarray(dyn["off"], I32) + 4 * k
    o_in = (oa >= 0) & (oa + 4 <= limit)
    o = read_u32(ub, oa)
    big = o > U32(_BIG)
    src = jnp.asarray(dyn["src"], I32)
    sa = src + jnp.where(big, U32(0), o).astype(I32)
    ok_blk = blk_act & o_in
    near = ok_blk & ~big
    fault |= footprint_faults(
        [(d_addr, bb, blk_act), (oa, 4, blk_act), (sa, bb, near)], limit, regions_used(p, "Gatherb")
    )
    fault |= any_fault(ok_blk & big, Fault.OUT_OF_UB)
    fault |= MEM.misaligned_fault((dyn["dst"], dyn["src"], dyn["off"]), any_act, p.operand_alignment_bytes)
    # SPEC: "偏移地址后需要32字节对齐" (offset 约束说明): src + offset on a DataBlock boundary
    m = np.uint32(bb - 1)
    fault |= any_fault(ok_blk & ((((src.astype(U32) & m) + (o & m)) & m) != 0), Fault.MISALIGNED)
    hull = _hull(d_addr, bb, blk_act)
    # SPEC: "不支持源操作数与目的操作数使用同一块内存地址"
    overlap = _meets(sa, bb, near, hull) | _meets(oa, 4, blk_act, hull)
    fault |= jnp.where(overlap, U32(Fault.PARTIAL_OVERLAP), U32(0))
    zero = rep == 0
    if p.zero_repeat == "fault":
        fault |= jnp.where(zero, U32(Fault.UNDEFINED), U32(0))
    elif p.zero_repeat == "error":
        fault |= jnp.where(zero, U32(Fault.BAD_MASK), U32(0))
    fault |= jnp.where(dyn["bad_param"], U32(Fault.BAD_PARAM), U32(0))
    fault |= jnp.where(rep > R, U32(Fault.BUCKET_OVERFLOW), U32(0))
    words = MEM.blocks_to_words(MEM.gather_blocks_at(ub, sa, bb))  # [R, 8, 8]
    full = jnp.full(words.shape, U32(0xFFFFFFFF))
    new_ub = MEM.write_program_order(ub, MEM.block_index(d_addr, bb), words, full, blk_act & (fault == 0), bb)
    return state.replace(ub=new_ub, fault=state.fault | fault)
