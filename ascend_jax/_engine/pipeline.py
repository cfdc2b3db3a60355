"""The unary pipeline (one src tensor, one dst tensor, lane-wise function), shared by every
"dst = f(src, scalar)" API: mask -> addresses -> faults -> gather -> compute -> program-order
merge -> scatter -> register side effects.

``run_unary`` is jitted with everything shape-setting static (``UnaryStatic``) and everything else
traced, so one compilation serves every address, stride, mask, scalar and repeat count of a bucket.
"""

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import Fault
from . import mask as M
from . import memory as MEM

U32 = jnp.uint32
I32 = jnp.int32


@dataclasses.dataclass(frozen=True)
class UnaryStatic:
    api: str
    dtype: object  # DType
    form: str  # "count" | "highdim"
    mask_kind: str  # "count" | "count_register" | "continuous" | "bitwise" | "register"
    R: int  # repeat bucket
    merge: str  # "none" | "rep0" | "general" | "traced"
    profile: object  # HwProfile
    elem: object  # callable(x_bits, s_bits, dtype, profile, ctrl) -> bits
    lowering: str  # level-2 register epilogue: "counter_mode" | "repeat_loop" | "vf_loop" | "none"
    static_zero: str  # "" | "nop" | "fault" : statically known zero count/mask/repeat outcome


def _u64_pair_is_zero(pair):
    return (pair[0] == 0) & (pair[1] == 0)


def active_lanes(st, state, dyn):
    """(active bool[R, L], nop bool, undefined bool, bad bool, overflow bool, new_vmask, mode_after)."""
    p = st.profile
    R, L = st.R, p.lanes(st.dtype)
    counter = state.mask_mode == 1
    reg_count = (state.vmask[0], state.vmask[1])
    zero = jnp.zeros((), bool)
    nop, undef, bad = zero, zero, zero
    new_vmask, new_mode = state.vmask, state.mask_mode

    def zpol(policy, cond):
        nonlocal nop, undef, bad
        if policy == "nop":
            nop = nop | cond
        elif policy == "fault":
            undef = undef | cond
        else:  # "error" on a traced/register value
            bad = bad | cond

    def count_active(lo, hi):
        act = M.lanes_below(lo, hi, R, L)
        ovf = (hi != 0) | (lo > R * L)
        return act, ovf

    if st.mask_kind == "count":
        cnt = dyn["count"]
        act, ovf = count_active(cnt[0], cnt[1])
        zpol(p.zero_count, _u64_pair_is_zero(cnt))
        if st.lowering == "counter_mode":
            new_vmask = jnp.asarray(_ones(p.vector_mask_bits))
            new_mode = jnp.zeros((), I32)
        elif st.lowering == "repeat_loop":
            tail = (cnt[0] % np.uint32(L)).astype(U32)
            new_vmask = jnp.where(tail == 0, jnp.asarray(_ones(p.vector_mask_bits)), M.continuous_words(tail, L))
        return act, nop, undef, bad, ovf, new_vmask, new_mode
    if st.mask_kind == "count_register":
        # isSetMask=false count form: one repeat under the current registers
        c_act, c_ovf = count_active(*reg_count)
        n_act = M.bits_of_words(state.vmask, L)[None, :] & (np.arange(R) == 0)[:, None]
        act = jnp.where(counter, c_act, n_act)
        zpol(p.zero_count, counter & (reg_count[0] == 0) & (reg_count[1] == 0))
        zpol(p.zero_mask, ~counter & ~jnp.any(M.bits_of_words(state.vmask, L)))
        return act, nop, undef, bad, counter & c_ovf, new_vmask, new_mode

    rep = dyn["repeat"]
    rep_ok = M.repeat_below(rep, R, L)
    n_ovf = rep > R
    if st.mask_kind == "register":
        lanes = M.bits_of_words(state.vmask, L)
        c_lo, c_hi = reg_count
        m_zero = ~jnp.any(lanes)
    elif st.mask_kind == "continuous":
        n = dyn["cont"]
        lanes = np.arange(L)[None, :] < jnp.where(n[1] != 0, np.uint32(L), jnp.minimum(n[0], np.uint32(L)))
        lanes = lanes[0]
        c_lo, c_hi = n[0], n[1]
        m_zero = _u64_pair_is_zero(n)
        if st.profile.level0_writes_mask_register:
            img_n = M.continuous_words(jnp.where(n[1] != 0, np.uint32(0xFFFFFFFF), n[0]), L)
            img_c = M.counter_words(n[0], n[1])
            new_vmask = _limit_bits(jnp.where(counter, img_c, img_n), p.vector_mask_bits)
    else:  # bitwise
        w = dyn["words"]
        lanes = M.bits_of_words(w, L)
        c_lo, c_hi = w[0], w[1]
        m_zero = ~jnp.any(w != 0)
        if st.profile.level0_writes_mask_register:
            new_vmask = _limit_bits(jnp.where(counter, M.counter_words(w[0], w[1]), w), p.vector_mask_bits)
    n_act = rep_ok & lanes[None, :]
    c_act, c_ovf = count_active(c_lo, c_hi)
    act = jnp.where(counter, c_act, n_act)
    ovf = jnp.where(counter, c_ovf, n_ovf)
    zpol(p.zero_repeat, ~counter & (rep == 0))
    zpol(p.zero_mask, ~counter & m_zero)
    zpol(p.zero_count, counter & (c_lo == 0) & (c_hi == 0))
    return act, nop, undef, bad, ovf, new_vmask, new_mode


def _ones(bits):
    w = np.zeros(8, np.uint32)
    w[: bits // 32] = 0xFFFFFFFF
    return w


def _limit_bits(words, bits):
    keep = jnp.asarray(_ones(bits))
    return words & keep


@functools.partial(jax.jit, static_argnums=0)
def run_unary(st: UnaryStatic, state, dyn):
    p = st.profile
    dt = st.dtype
    R, L = st.R, p.lanes(dt)
    E = p.block_bytes // dt.itemsize
    act, nop, undef, bad, ovf, new_vmask, new_mode = active_lanes(st, state, dyn)
    bad = bad | dyn["bad"]
    act = act & ~nop
    act3 = act.reshape(R, 8, E)
    blk_act = jnp.any(act3, axis=-1)
    any_act = jnp.any(blk_act)
    s_db, s_sb, s_dr, s_sr = (dyn["strides"][i] for i in range(4))
    d_idx = MEM.block_index(dyn["dst"], s_db, s_dr, R)
    s_idx = MEM.block_index(dyn["src"], s_sb, s_sr, R)
    limit = min(state.ub.shape[-1], p.ub_usable_bytes) // p.block_bytes
    fault = jnp.zeros((), U32)
    fault |= MEM.oob_fault(d_idx, blk_act, limit) | MEM.oob_fault(s_idx, blk_act, limit)
    fault |= MEM.misaligned_fault((dyn["dst"], dyn["src"]), any_act, p.operand_alignment_bytes)
    fault |= jnp.where(any_act & (s_db == 0), U32(Fault.DST_BLK_STRIDE_ZERO), U32(0))
    fault |= MEM.partial_overlap_fault(s_idx, d_idx, blk_act)
    fault |= MEM.repeat_dependency_fault(d_idx, s_idx, blk_act, blk_act, s_sr, s_sb)
    for reg in p.reserved:
        if st.api in reg.used_by:
            lo = reg.offset_bytes // p.block_bytes
            hi = (reg.offset_bytes + reg.size_bytes) // p.block_bytes
            hit = blk_act & (((d_idx >= lo) & (d_idx < hi)) | ((s_idx >= lo) & (s_idx < hi)))
            fault |= jnp.where(jnp.any(hit), U32(Fault.SCRATCH_COLLISION), U32(0))
    fault |= jnp.where(undef, U32(Fault.UNDEFINED), U32(0))
    fault |= jnp.where(bad, U32(Fault.BAD_PARAM), U32(0))
    fault |= jnp.where(ovf & ~nop, U32(Fault.BUCKET_OVERFLOW), U32(0))
    ok = fault == 0
    # gather, compute, merge, scatter
    np_dt = dt.np_dtype
    bits_dt = jnp.dtype(dt.bits_dtype)
    src_lanes = MEM.to_lanes(MEM.gather_blocks(state.ub, s_idx), bits_dt).astype(U32)
    old_lanes = MEM.to_lanes(MEM.gather_blocks(state.ub, d_idx), bits_dt)
    new_lanes = st.elem(src_lanes, dyn["scalar"], dt, p, state.ctrl).astype(bits_dt)
    merged = MEM.merge_program_order(
        new_lanes.reshape(R, 8, E), old_lanes.reshape(R, 8, E), act3, s_dr, s_db, st.merge
    )
    del np_dt
    blocks = MEM.from_lanes(merged.reshape(R, L))
    ub = MEM.scatter_blocks(state.ub, d_idx, blocks, blk_act & ok)
    change_regs = ok & ~nop
    vmask = jnp.where(change_regs, new_vmask, state.vmask)
    mode = jnp.where(change_regs, new_mode, state.mask_mode)
    return state.replace(ub=ub, vmask=vmask, mask_mode=mode, fault=state.fault | fault)
