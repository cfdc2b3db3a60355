"""The reduction family's fast path (docs/MODEL.md "Reductions"): one jitted program per (API, dtype,
reduceType / order / calIndex, bucket) with the call form, mask, repeat count, count, addresses and
strides traced.

``run_per_repeat``: ReduceRepeat, ReduceDataBlock, ReducePairElem -- the shared lane plan
(lanes.py), strided source blocks (srcBlkStride, srcRepStride), per-repeat results written at
``dst + r * dstRepStride * unit`` (unit = the bytes one repeat writes).
``run_whole``: ReduceSum, ReduceMax, ReduceMin -- every active lane to one value (and its index).

Arithmetic: every addition is ``elementwise.float_op("add")`` (one rounded T add with the profile's
flush / NaN / saturation epilogue) in the pages' order: a binary tree of adjacent pairs inside a
DataBlock / repeat, then the product's order across repeats. MAX/MIN: the extremum of the active
lanes by ``numerics.order_key`` (-0 < +0), a NaN wins, ties go to the lowest index.
"""

import dataclasses

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import Fault
from . import elementwise as EW
from . import lanes as LN
from . import memory as MEM
from . import numerics as N
from . import static as S
from .pipeline import closing_faults, finish, footprint_faults, read_lanes, regions_used

U32 = jnp.uint32
I32 = jnp.int32


@dataclasses.dataclass(frozen=True)
class ReduceStatic:
    """Static description of one reduction call (the compilation key)."""

    api: str
    dtype: object
    R: int
    profile: object
    reduce_type: str  # "SUM" | "MAX" | "MIN"
    order: str = ""  # ReduceRepeat's ReduceOrder; "" otherwise
    cal_index: bool = False  # ReduceMax / ReduceMin
    sum_order: str = ""  # ReduceSum: "sequential_repeats" | "tree_repeats" | "vector_add_small"
    kind: object = None  # lanes.KIND_* or None (traced dyn["kind"])


# -- element arithmetic -------------------------------------------------------------------------


def _add(a, b, st, ctrl):
    return EW.float_op("add", a, b, st.dtype, st.profile, ctrl)


def tree_sum(x, st, ctrl):
    """Binary tree of adjacent pairs along the last axis (a power-of-two length n): level k adds
    pairs (2i, 2i+1) of level k-1. One add in a loop of log2(n) steps (a smaller program)."""
    n = x.shape[-1]
    if n == 1:
        return x[..., 0]
    half = n // 2

    def level(_, y):
        s = _add(y[..., 0::2], y[..., 1::2], st, ctrl)
        return jnp.concatenate([s, jnp.zeros_like(s)], axis=-1)

    return lax.fori_loop(0, int(np.log2(n)), level, x)[..., 0] if half else x[..., 0]


def _key(x, dt, fmt):
    """int32 key with T's order (floats: -0 < +0; NaN handled by the caller)."""
    if fmt is not None:
        return N.order_key(x, fmt.nbits)
    if dt.is_signed_int:
        if dt.bits == 16:
            return ((x & U32(0xFFFF)) ^ U32(0x8000)).astype(I32) - 0x8000
        return lax.bitcast_convert_type(x, I32)
    if dt.bits == 16:
        return (x & U32(0xFFFF)).astype(I32)
    return lax.bitcast_convert_type(x ^ U32(0x80000000), I32)  # uint32: biased


def extreme(x, act, st, ctrl, axis_size):
    """(value bits, index) of the MAX/MIN over the last axis of ``x`` restricted to ``act``;
    the index is the position along that axis."""
    dt, p = st.dtype, st.profile
    fmt = EW._fmt(dt) if dt.is_float else None
    if fmt is not None and p.float_subnormals == "flush_to_zero":
        x = N.flush_subnormal(x, fmt)
    k = _key(x, dt, fmt)
    big = jnp.iinfo(jnp.int32).max
    if st.reduce_type == "MAX":
        best = jnp.max(jnp.where(act, k, -big - 1), axis=-1, keepdims=True)
    else:
        best = jnp.min(jnp.where(act, k, big), axis=-1, keepdims=True)
    cand = act & (k == best)
    if fmt is not None:
        nan = act & N.is_nan(x, fmt)
        any_nan = jnp.any(nan, axis=-1, keepdims=True)
        cand = jnp.where(any_nan, nan, cand)
    pos = jnp.arange(axis_size, dtype=I32)
    idx = jnp.min(jnp.where(cand, pos, axis_size), axis=-1)
    v = jnp.take_along_axis(x, jnp.minimum(idx, axis_size - 1)[..., None], axis=-1)[..., 0]
    if fmt is not None:
        v = jnp.where(any_nan[..., 0], U32(fmt.qnan), v)
        v = EW.finish_float(v, fmt, dt, p, ctrl)
    return v, idx


# -- byte writes in program order ----------------------------------------------------------------


def write_items(ub, addrs, nbytes, bits, write):
    """Write items (flattened, in program order): ``nbytes``-byte little-endian ``bits`` at byte
    ``addrs`` where ``write``; a later item wins a byte written twice."""
    n = ub.shape[-1]
    j = np.arange(nbytes, dtype=np.int32)
    a = (addrs.reshape(-1, 1) + j).reshape(-1)
    v = (
        ((bits.reshape(-1, 1).astype(U32) >> (8 * j).astype(np.uint32)) & U32(0xFF))
        .astype(jnp.uint8)
        .reshape(-1)
    )
    w = jnp.repeat(write.reshape(-1), nbytes) & (a >= 0) & (a < n)
    seq = jnp.arange(a.shape[0], dtype=I32)
    idx = jnp.where(w, a, n)
    last = jnp.full((n,), -1, I32).at[idx].max(seq, mode="drop")
    win = w & (jnp.take(last, jnp.clip(idx, 0, n - 1)) == seq)
    return ub.at[jnp.where(win, a, n)].set(v, mode="drop")


def _limit(state, p):
    return min(state.ub.shape[-1], p.ub_usable_bytes)


# -- ReduceRepeat / ReduceDataBlock / ReducePairElem ---------------------------------------------


def per_repeat_unit(st):
    """(bytes one repeat writes = dstRepStride unit, dst alignment)."""
    size, L = st.dtype.itemsize, st.profile.lanes(st.dtype)
    if st.api == "ReduceRepeat":
        if st.reduce_type == "SUM" or st.order == "ORDER_ONLY_VALUE":
            u = size
        elif st.order == "ORDER_ONLY_INDEX":
            u = 4
        else:
            u = 2 * size
        return u, u
    if st.api == "ReduceDataBlock":
        return 8 * size, 8 * size
    return (L // 2) * size, st.profile.operand_alignment_bytes


def _empty_block_bits(st):
    policy = st.profile.api("ReduceDataBlock").empty_block
    if policy == "keep":
        return None
    fmt = EW._fmt(st.dtype)
    if st.reduce_type == "SUM":
        return U32(0)
    big = fmt.max_finite if (policy == "fill_half_max" and st.dtype.name == "half") else fmt.exp
    return U32(int(big) | (int(fmt.sign) if st.reduce_type == "MAX" else 0))


@S.entry
def run_per_repeat(st: ReduceStatic, state, dyn):
    p, dt, R = st.profile, st.dtype, st.R
    size, bb = dt.itemsize, p.block_bytes
    E, L = bb // size, p.lanes(dt)
    ctrl = state.ctrl
    plan = LN.plan(p, dt, R, state, dyn, kind=st.kind)
    act = plan.act
    blk_act = jnp.any(act.reshape(R, 8, E), axis=-1)
    ran = jnp.any(act, axis=-1)  # [R]: repeats that run
    any_act = jnp.any(ran)
    dst_rep, src_blk, src_rep = dyn["strides"][0], dyn["strides"][1], dyn["strides"][2]
    s_addr = MEM.block_addr(dyn["src"], src_blk, src_rep, R)
    x = read_lanes(state.ub, s_addr, dt)  # [R, L]
    unit, dst_align = per_repeat_unit(st)
    base = dyn["dst"] + jnp.arange(R, dtype=I32) * dst_rep * unit  # [R]
    xz = jnp.where(act, x, U32(0))  # SPEC (MODEL.md): a masked-off lane inside a tree is +0

    if st.api == "ReduceRepeat":
        if st.reduce_type == "SUM":
            items = [(base, size, tree_sum(xz, st, ctrl), ran)]
        else:
            v, idx = extreme(x, act, st, ctrl, L)
            idx = idx.astype(U32)
            if st.order == "ORDER_VALUE_INDEX":
                items = [(jnp.stack([base, base + size], -1), size, jnp.stack([v, idx], -1), ran[:, None])]
            elif st.order == "ORDER_INDEX_VALUE":
                items = [(jnp.stack([base, base + size], -1), size, jnp.stack([idx, v], -1), ran[:, None])]
            elif st.order == "ORDER_ONLY_VALUE":
                items = [(base, size, v, ran)]
            else:
                items = [(base, 4, idx, ran)]
    elif st.api == "ReduceDataBlock":
        xb, ab = x.reshape(R, 8, E), act.reshape(R, 8, E)
        if st.reduce_type == "SUM":
            v = tree_sum(xz.reshape(R, 8, E), st, ctrl)
        else:
            v, _ = extreme(xb, ab, st, ctrl, E)
        write = blk_act
        fill = _empty_block_bits(st)
        if fill is not None:
            v = jnp.where(blk_act, v, fill)
            write = ran[:, None] & jnp.ones((R, 8), bool)
        addrs = base[:, None] + jnp.arange(8, dtype=I32) * size
        items = [(addrs, size, v, write)]
    else:  # ReducePairElem
        v = _add(xz[:, 0::2], xz[:, 1::2], st, ctrl)
        pair_act = act[:, 0::2] | act[:, 1::2]
        write = pair_act
        if p.api("ReducePairElem").empty_pair == "zero":
            v = jnp.where(pair_act, v, U32(0))
            write = ran[:, None] & jnp.ones_like(pair_act)
        addrs = base[:, None] + jnp.arange(L // 2, dtype=I32) * size
        items = [(addrs, size, v, write)]

    # faults
    limit = _limit(state, p)
    footprint = [(s_addr, bb, blk_act)] + [(a, n, w) for a, n, _, w in items]
    fault = footprint_faults(footprint, limit, regions_used(p, st.api))
    fault |= MEM.misaligned_fault((dyn["src"],), any_act, 32)
    fault |= MEM.misaligned_fault((dyn["dst"],), any_act, dst_align)
    # REPEAT_DEPENDENCY (MODEL.md): repeat r's output span [base_r, base_r + unit) overlaps an active
    # src block of a later repeat
    r_ix = jnp.arange(R, dtype=I32)
    later = r_ix[None, :] > r_ix[:, None]  # [r, r2]
    ov = (base[:, None, None] < s_addr[None, :, :] + bb) & (s_addr[None, :, :] < base[:, None, None] + unit)
    dep = ov & later[:, :, None] & blk_act[None, :, :] & ran[:, None, None]
    fault |= jnp.where(jnp.any(dep), U32(Fault.REPEAT_DEPENDENCY), U32(0))
    fault |= closing_faults(plan, dyn["bad_mask"], dyn["bad_param"])
    ok = fault == 0
    ub = state.ub
    for a, n, v, w in items:
        ub = write_items(ub, jnp.broadcast_to(a, v.shape), n, v, jnp.broadcast_to(w, v.shape) & ok)
    new = finish(state, plan, fault, ub)
    if st.api != "ReduceRepeat":
        return new
    # the result registers (MODEL.md "Reduce result registers"): SUM -- the repeat sums in repeat
    # order; MAX/MIN -- the extremum of every active lane and its position r * L + l
    if st.reduce_type == "SUM":
        seq = dataclasses.replace(st, sum_order="sequential_repeats")
        total = _sum_across(seq, tree_sum(xz, st, ctrl), ran, ctrl, L)
        return set_spr(new, state, ok & any_act, sum_bits=total)
    v, idx = extreme(x.reshape(-1), act.reshape(-1), st, ctrl, R * L)
    # SPEC: "索引maxMinIndex按操作数数据类型存储" (GetReduceRepeatMaxMinSpr.md): T-width bits
    idx = idx.astype(U32) & U32((1 << (8 * size)) - 1 if size < 4 else 0xFFFFFFFF)
    return set_spr(new, state, ok & any_act, maxmin=(v, idx))


def set_spr(new, old, write, sum_bits=None, maxmin=None):
    """``new`` with the reduce result registers (``reduce_spr``: [sum, max/min value, max/min index])
    written where ``write``; a state without the field (None) is returned as is."""
    if old.reduce_spr is None:
        return new
    spr = old.reduce_spr
    if sum_bits is not None:
        spr = spr.at[..., 0].set(jnp.where(write, sum_bits, spr[..., 0]))
    if maxmin is not None:
        v, idx = maxmin
        spr = spr.at[..., 1].set(jnp.where(write, v, spr[..., 1]))
        spr = spr.at[..., 2].set(jnp.where(write, idx, spr[..., 2]))
    return new.replace(reduce_spr=spr)


# -- ReduceSum / ReduceMax / ReduceMin -----------------------------------------------------------


def _sum_across(st, sums, ran, ctrl, L):
    """The repeat results ``sums`` [R] (the first n_run = sum(ran) run) to one value."""
    if st.sum_order == "sequential_repeats":
        # SPEC: "方式一：同一repeat内采用二叉树累加，不同repeat的结果按顺序累加"
        def body(acc, xs):
            s, r = xs
            return jnp.where(r, _add(acc, s, st, ctrl), acc), None

        acc, _ = lax.scan(body, sums[0], (sums[1:], ran[1:]))
        return acc
    # SPEC: "方式二：... 不同repeat的结果也按二叉树累加": passes of L until one value remains
    n = jnp.sum(ran.astype(I32))
    cur = jnp.where(ran, sums, U32(0))
    while cur.shape[0] > 1:
        m = -(-cur.shape[0] // L)
        pos = jnp.arange(cur.shape[0], dtype=I32)
        padded = jnp.zeros((m * L,), U32).at[: cur.shape[0]].set(jnp.where(pos < n, cur, U32(0)))
        nxt = tree_sum(padded.reshape(m, L), st, ctrl)
        first = jnp.where(n > 1, nxt[0], cur[0])
        nxt = nxt.at[0].set(first)
        cur, n = nxt, jnp.where(n > 1, (n + L - 1) // L, n)
    return cur[0]


def _vector_add(st, xz, ran, ctrl):
    """950 方式三: lane-wise accumulation of the repeats into one, then the in-repeat tree."""

    def body(acc, xs):
        row, r = xs
        return jnp.where(r, _add(acc, row, st, ctrl), acc), None

    acc, _ = lax.scan(body, xz[0], (xz[1:], ran[1:]))
    return tree_sum(acc, st, ctrl)


@S.entry
def run_whole(st: ReduceStatic, state, dyn):
    p, dt, R = st.profile, st.dtype, st.R
    size, bb = dt.itemsize, p.block_bytes
    E, L = bb // size, p.lanes(dt)
    ctrl = state.ctrl
    plan = LN.plan(p, dt, R, state, dyn, kind=st.kind)
    act = plan.act
    blk_act = jnp.any(act.reshape(R, 8, E), axis=-1)
    ran = jnp.any(act, axis=-1)
    any_act = jnp.any(ran)
    s_addr = MEM.block_addr(dyn["src"], 1, dyn["strides"][0], R)
    x = read_lanes(state.ub, s_addr, dt)
    bad = dyn["bad_param"]
    if st.api == "ReduceSum":
        xz = jnp.where(act, x, U32(0))
        sums = tree_sum(xz, st, ctrl)  # [R]
        v = _sum_across(st, sums, ran, ctrl, L)
        if st.sum_order == "vector_add_small":
            v = jnp.where(dyn["vadd"], _vector_add(st, xz, ran, ctrl), v)
        vals = v[None]
    else:
        v, idx = extreme(x.reshape(-1), act.reshape(-1), st, ctrl, R * L)
        vals = v[None]
        if st.cal_index:
            # SPEC: "当输入类型是half的时候，只支持获取最大不超过65535的索引值" -> BAD_PARAM (MODEL.md)
            if size < 4:
                bad = bad | (any_act & (idx >= (1 << (8 * size))))
            vals = jnp.stack([v, idx.astype(U32) & U32((1 << (8 * size)) - 1 if size < 4 else 0xFFFFFFFF)])
    n_out = vals.shape[0]
    d_addrs = dyn["dst"] + jnp.arange(n_out, dtype=I32) * size
    limit = _limit(state, p)
    dst_bytes = n_out * size
    footprint = [
        (s_addr, bb, blk_act),
        (dyn["dst"], dst_bytes, any_act),
    ]
    fault = footprint_faults(footprint, limit, regions_used(p, st.api))
    tmp_end = dyn["tmp"] + dyn["tmp_bytes"]
    tmp_used = any_act & (dyn["tmp_bytes"] > 0)
    fault |= jnp.where(tmp_used & ((dyn["tmp"] < 0) | (tmp_end > limit)), U32(Fault.OUT_OF_UB), U32(0))
    for lo, hi, use in regions_used(p, st.api):
        hit = tmp_used & (dyn["tmp"] < hi) & (tmp_end > lo) & use
        fault |= jnp.where(hit, U32(Fault.SCRATCH_COLLISION), U32(0))
    fault |= MEM.misaligned_fault((dyn["src"], dyn["tmp"]), any_act, 32)
    fault |= MEM.misaligned_fault((dyn["dst"],), any_act, dst_bytes)
    fault |= closing_faults(plan, dyn["bad_mask"], bad)
    w = jnp.broadcast_to(any_act & (fault == 0), (n_out,))
    ub = write_items(state.ub, d_addrs, size, vals, w)
    new = finish(state, plan, fault, ub)
    # MODEL.md "Reduce result registers": the result / the value and its index (T-width bits)
    if st.api == "ReduceSum":
        return set_spr(new, state, any_act & (fault == 0), sum_bits=v)
    idx_bits = idx.astype(U32) & U32((1 << (8 * size)) - 1 if size < 4 else 0xFFFFFFFF)
    return set_spr(new, state, any_act & (fault == 0), maxmin=(v, idx_bits))
