"""GatherMask's compaction pipeline: processed lanes -> pattern bits -> kept lanes -> packed,
contiguous dst -> faults -> register side effects. See docs/MODEL.md "GatherMask and shifts".

Shapes are static (``GatherStatic``): ``R`` repeats of ``K = KB * E`` lanes (``KB`` src0 blocks per
repeat, ``E`` elements per block); everything else (addresses, strides, mask, repeatTimes, the
built-in pattern number) is traced, so one compilation serves a whole bucket. The mixed
configurations trace the call form too: ``config = "normal|counter1"`` / ``"normal|counter2"`` take
reduceMode as ``dyn["counter"]`` and ``pattern = "any"`` takes the pattern source as ``dyn["user"]``
(true: the tensor at ``dyn["src1"]``, false: the built-in number ``dyn["pattern"]``); each case's
lanes, faults and register effects are those of its own form (both forms computed, one selected).

Determinism: every kept lane has a slot of its own -- the kept lanes before it: those of the
earlier repeats (an exclusive prefix over the R repeat counts) plus those before it in its repeat (a
prefix sum within the repeat, ``kept_before``) -- so the compaction is an order-free scatter at
distinct slots, and no two writers ever target the same slot; every index used is in range by
construction (no implicit clamping is relied on). dst is then written as whole 32-byte blocks at
distinct block indices.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import Fault
from . import lanes as LN
from . import mask as M
from . import memory as MEM
from . import pipeline as PL
from . import static as S

U32 = jnp.uint32
I32 = jnp.int32


@dataclasses.dataclass(frozen=True)
class GatherStatic:
    api: str
    dtype: object  # DType of dst/src0
    profile: object  # HwProfile
    config: str  # "normal" | "counter1" | "counter2" | "normal|counter1" | "normal|counter2" (traced)
    pattern: str  # "builtin" | "tensor" | "any" (traced: dyn["user"])
    R: int  # repeat bucket
    KB: int  # src0 blocks per repeat (a multiple of 8); lanes per repeat K = KB * E
    mode_after: str  # "normal" | "unchanged"
    vmask_after: str  # "count" | "pattern" | "unchanged"


def builtin_pattern_bits(pv, n):
    """bool[n]: bit e of built-in pattern ``pv`` (1 even, 2 odd, 3..6 the 1st..4th of every four,
    7 all; any other value selects nothing). ``pv`` may be traced."""
    e = np.arange(n, dtype=np.int32)
    pv = jnp.asarray(pv, I32)  # a scalar (vmap traces one case at a time)
    sel = jnp.where(pv == 7, True, jnp.where(pv <= 2, (e % 2) == (pv - 1), (e % 4) == (pv - 3)))
    return sel & (pv >= 1) & (pv <= 7)


def pattern_register_image(pv, n_lanes, vector_mask_bits):
    """uint32[8]: the vector-mask image a built-in pattern leaves behind (``vmask_after = "pattern"``):
    bit l = pattern bit of lane l for l < min(L, vector_mask_bits), all other bits 0."""
    on = builtin_pattern_bits(pv, 256) & (np.arange(256) < min(n_lanes, vector_mask_bits))
    return M.pack_bits(on)


def kept_before(keep):
    """int32[R, K]: the kept lanes before each lane of its repeat (``keep`` bool[R, K]): a prefix
    sum within each repeat. (A prefix sum over all R * K lanes runs as a reduce-window cascade
    in XLA on CPU: about a third of a GatherMask call at R = 255.)"""
    k = keep.astype(I32)
    return jnp.cumsum(k, axis=1) - k


def _lanes(config, rep, mask, R, K, L):
    """(processed lanes bool[R, K], bucket overflow, repeatTimes == 0) of one static configuration."""
    r_col = np.arange(R, dtype=np.int32)[:, None]
    e_row = np.arange(K, dtype=np.uint32)[None, :]
    if config == "normal":
        return (r_col < rep) & (e_row < L), rep > R, rep == 0
    if config == "counter1":  # mask = elements per repeat, repeatTimes repeats
        return (r_col < rep) & (e_row < mask), (rep > R) | (mask > np.uint32(K)), rep == 0
    # "counter2": mask = total elements, repeats derived, L lanes per repeat
    g = (r_col * L).astype(np.uint32) + e_row
    return (e_row < L) & (g < mask), mask > np.uint32(R * L), jnp.zeros((), bool)


@S.entry
def run_gather_mask(st: GatherStatic, state, dyn):
    p = st.profile
    dt = st.dtype
    bb = p.block_bytes
    size = dt.itemsize
    E = bb // size
    L = p.lanes(dt)
    R, KB = st.R, st.KB
    K = KB * E
    N = R * K

    rep = jnp.asarray(dyn["repeat"], I32)
    mask = jnp.asarray(dyn["mask"], U32)
    zero = jnp.zeros((), bool)

    # -- which lanes are processed ---------------------------------------------------------------
    if "|" in st.config:  # reduceMode traced: each case takes its own mode's lanes
        c_cfg = st.config.split("|")[1]
        counter = jnp.asarray(dyn["counter"], bool)
        act_n, ovf_n, zr_n = _lanes("normal", rep, mask, R, K, L)
        act_c, ovf_c, zr_c = _lanes(c_cfg, rep, mask, R, K, L)
        act = jnp.where(counter, act_c, act_n)
        ovf = jnp.where(counter, ovf_c, ovf_n)
        zero_rep = jnp.where(counter, zr_c, zr_n)
    else:
        act, ovf, zero_rep = _lanes(st.config, rep, mask, R, K, L)
    nop = zero_rep if p.zero_repeat == "nop" else zero
    undef = zero_rep if p.zero_repeat == "fault" else zero
    act = act & ~nop

    # -- src0 blocks (fault checks on block byte addresses, data moved by block index) ----------------
    s_bs, s_rs, p_rs = (jnp.asarray(dyn["strides"][i], I32) for i in range(3))
    s_addr = MEM.block_addr(dyn["src0"], s_bs, s_rs, R, bb, KB)  # [R, KB]
    s_idx = MEM.block_index(s_addr, bb)
    s_blk = jnp.any(act.reshape(R, KB, E), axis=-1)
    any_act = jnp.any(act)

    # -- pattern bits ----------------------------------------------------------------------------
    # user: the case reads a pattern tensor (Python bool, or traced with pattern "any")
    user = {"builtin": False, "tensor": True}.get(st.pattern)
    if user is None:
        user = jnp.asarray(dyn["user"], bool)
    if user is not True:
        pat_b = jnp.broadcast_to(builtin_pattern_bits(dyn["pattern"], K)[None, :], (R, K))
    if user is not False:
        bits_per_block = 8 * bb
        PB = -(-K // bits_per_block)
        p_addr = MEM.block_addr(dyn["src1"], 1, p_rs, R, bb, PB)  # [R, PB]
        # materialized: else XLA recomputes the block address arithmetic for each of the K lanes
        pbytes = MEM.materialize(MEM.gather_blocks_at(state.ub, p_addr, bb).reshape(R, PB * bb))
        e = np.arange(K)
        byte = pbytes[:, e // 8].astype(U32)
        pat_t = ((byte >> (e % 8).astype(np.uint32)) & 1) == 1
        act_pad = jnp.concatenate([act, jnp.zeros((R, PB * bits_per_block - K), bool)], axis=1)
        p_blk = jnp.any(act_pad.reshape(R, PB, bits_per_block), axis=-1) & user  # read blocks
    pat = pat_b if user is False else (pat_t if user is True else jnp.where(user, pat_t, pat_b))
    keep = act & pat

    # -- counts ----------------------------------------------------------------------------------
    k_r = jnp.sum(keep, axis=1, dtype=I32)  # kept per repeat
    c_r = jnp.cumsum(k_r) - k_r  # kept before repeat r (exclusive prefix)
    cnt = jnp.sum(k_r)

    # -- compaction: kept lane i goes to slot (kept lanes before it) (distinct slots: an order-free
    # scatter) ---------------------------------------------------------------------------------------
    msize = min(size, 4)
    vals = MEM.words_to_lanes(MEM.gather_words(state.ub, s_idx, bb)[None], msize).reshape(N)
    j = np.arange(N, dtype=np.int32)
    valid = j < cnt
    slot = jnp.where(keep, c_r[:, None] + kept_before(keep), N).reshape(N)  # N: dropped
    packed = jnp.zeros((N,), U32).at[slot].set(vals, mode="drop")

    # -- dst: DB contiguous blocks from dst.addr; block t holds slots [t*E, (t+1)*E) -------------
    DB = R * KB
    dst = jnp.asarray(dyn["dst"], I32)
    t = np.arange(DB, dtype=np.int32)
    d_addr = dst + t * bb
    d_idx = MEM.block_index(d_addr, bb)
    old = MEM.words_to_lanes(MEM.gather_words(state.ub, d_idx, bb)[None], msize).reshape(N)
    new = jnp.where(valid, packed, old)
    d_write = (t * E) < cnt  # the block holds a slot j < cnt

    # -- faults ----------------------------------------------------------------------------------
    limit = min(state.ub.shape[-1], p.ub_usable_bytes)
    fault = jnp.zeros((), U32)
    footprint = [(s_addr, bb, s_blk), (d_addr, bb, d_write)]
    addrs = (dyn["dst"], dyn["src0"])
    if user is not False:
        footprint.append((p_addr, bb, p_blk))
    # SPEC: 950 "内置固定模式占用8KB ... 用户自定义模式不涉及": the scratch only for built-in patterns
    regions = () if user is True else PL.regions_used(p, st.api)
    if user is not False:  # traced pattern source: the scratch for the built-in cases only
        regions = tuple((lo, hi, use & ~user) for lo, hi, use in regions)
    fault |= PL.footprint_faults(footprint, limit, regions)
    fault |= MEM.misaligned_fault(addrs, any_act, p.operand_alignment_bytes)
    if user is not False:
        fault |= MEM.misaligned_fault((dyn["src1"],), any_act & user, p.operand_alignment_bytes)
    # dst blocks written by repeat r: t in [c_r // E, (c_r + k_r - 1) // E] (k_r > 0);
    # by all repeats before r: t in [0, (c_r - 1) // E] (c_r > 0). A src/pattern block at byte
    # address a "is" dst block t iff a == dst + 32 t.
    has = (k_r > 0)[:, None]
    t_lo = (c_r // E)[:, None]
    t_hi = ((c_r + k_r - 1) // E)[:, None]
    before = (c_r > 0)[:, None]
    t_prev = ((c_r - 1) // E)[:, None]

    def dst_block_of(a):
        off = a - dst
        # address-only (constants inside a kernel): kept from XLA's constant folding, which would
        # fold them into batch-shaped reductions (seconds of compile at B = 4,096)
        return jax.lax.optimization_barrier((jnp.floor_divide(off, bb), (off % bb) == 0))

    def same_repeat(a, blk_act):
        tb, on_grid = dst_block_of(a)
        return jnp.any(has & blk_act & on_grid & (tb >= t_lo) & (tb <= t_hi))

    def earlier_repeat(a, blk_act):
        tb, on_grid = dst_block_of(a)
        return jnp.any(before & blk_act & on_grid & (tb >= 0) & (tb <= t_prev))

    in_place = dst == jnp.asarray(dyn["src0"], I32)
    partial = same_repeat(s_addr, s_blk) & ~in_place
    dep = earlier_repeat(s_addr, s_blk)
    if user is not False:
        partial = partial | same_repeat(p_addr, p_blk)
        dep = dep | earlier_repeat(p_addr, p_blk)
    fault |= jnp.where(partial, U32(Fault.PARTIAL_OVERLAP), U32(0))
    fault |= jnp.where(dep, U32(Fault.REPEAT_DEPENDENCY), U32(0))
    plan = LN.LanePlan(act, nop, undef, jnp.zeros((), bool), ovf, state.vmask, state.mask_mode)
    fault |= PL.closing_faults(plan, dyn["bad_mask"], dyn["bad_param"])
    ok = fault == 0

    # -- write and registers ---------------------------------------------------------------------
    blocks = MEM.lanes_to_words(new.reshape(DB // 8, 8 * E), msize).reshape(DB, bb // 4)
    ub = MEM.scatter_words(state.ub, d_idx, blocks, d_write & ok, bb)
    change = ok & ~nop
    rsvd = jnp.where(change, cnt, state.rsvd_cnt).astype(state.rsvd_cnt.dtype)
    mode = state.mask_mode
    if st.mode_after == "normal":
        mode = jnp.where(change, jnp.zeros_like(mode), mode)
    vmask = state.vmask
    if st.vmask_after == "count":
        img = LN.limit_bits(M.counter_words(mask, jnp.zeros((), U32)), p.vector_mask_bits)
        vmask = jnp.where(change, img, vmask)
    elif st.vmask_after == "pattern" and user is not True:
        pv = jnp.asarray(dyn["pattern"], I32)
        img = pattern_register_image(pv, L, p.vector_mask_bits)
        on = change & (pv >= 1) & (pv <= 6)
        vmask = jnp.where(on if user is False else on & ~user, img, vmask)
    return state.replace(ub=ub, vmask=vmask, mask_mode=mode, rsvd_cnt=rsvd, fault=state.fault | fault)
