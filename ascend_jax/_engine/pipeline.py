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


# Mask kinds are traced data (an int32 selector), so one compilation serves every call form of an
# API and dtype: the count form, its isSetMask=false register form, and the high-dim continuous,
# bitwise and register (MASK_PLACEHOLDER) forms.
KIND_COUNT, KIND_COUNT_REGISTER, KIND_CONTINUOUS, KIND_BITWISE, KIND_REGISTER = range(5)


@dataclasses.dataclass(frozen=True)
class UnaryStatic:
    api: str
    dtype: object  # DType
    R: int  # repeat bucket
    merge: str  # "none" | "rep0" | "general" | "traced"
    profile: object  # HwProfile
    elem: object  # callable(x_bits, s_bits, dtype, profile, ctrl, dyn) -> bits
    api_codes: tuple = ()  # with api == "*": the API names the traced dyn["op"] code selects

    def uses_region(self, reg, dyn):
        """Whether this call uses a reserved UB region: a Python bool, or a traced bool when the
        API itself is traced data (api == "*")."""
        if self.api != "*":
            return self.api in reg.used_by
        hit = jnp.zeros((), bool)
        for code, name in enumerate(self.api_codes):
            if name in reg.used_by:
                hit = hit | (dyn["op"] == code)
        return hit


def _u64_pair_is_zero(pair):
    return (pair[0] == 0) & (pair[1] == 0)


def active_lanes(st, state, dyn):
    """Active lanes and register effects of one call (docs/MODEL.md "Which lanes are active").

    Returns (active bool[R, L], nop, undefined, bad_mask, bucket_overflow, new_vmask, new_mode).
    """
    p = st.profile
    R, L = st.R, p.lanes(st.dtype)
    kind = dyn["kind"]
    is_count, is_count_reg = kind == KIND_COUNT, kind == KIND_COUNT_REGISTER
    is_cont, is_bits, is_reg = kind == KIND_CONTINUOUS, kind == KIND_BITWISE, kind == KIND_REGISTER
    counter = state.mask_mode == 1
    reg_lo, reg_hi = state.vmask[0], state.vmask[1]
    reg_lanes = M.bits_of_words(state.vmask, L)
    ones = jnp.asarray(_ones(p.vector_mask_bits))

    # -- count form (level 2, isSetMask effective): first `count` elements
    cnt = dyn["count"]
    count_act = M.lanes_below(cnt[0], cnt[1], R, L)
    count_ovf = (cnt[1] != 0) | (cnt[0] > R * L)
    if p.level2_lowering == "counter_mode":
        count_vmask, count_mode = ones, jnp.zeros((), I32)
    elif p.level2_lowering == "repeat_loop":
        tail = cnt[0] % np.uint32(L)
        count_vmask = jnp.where(tail == 0, ones, M.continuous_words(tail, L, p.vector_mask_bits))
        count_mode = state.mask_mode
    else:
        count_vmask, count_mode = state.vmask, state.mask_mode

    # -- count form with isSetMask=false: one repeat under the registers
    rc_act = jnp.where(
        counter, M.lanes_below(reg_lo, reg_hi, R, L), reg_lanes[None, :] & (np.arange(R) == 0)[:, None]
    )
    rc_ovf = counter & ((reg_hi != 0) | (reg_lo > R * L))

    # -- high-dim forms: the mask value (or the register) per repeat, or a count in Counter mode
    rep = dyn["repeat"]
    n = dyn["cont"]
    w = dyn["words"]
    n_clamped = jnp.where(n[1] != 0, np.uint32(L), jnp.minimum(n[0], np.uint32(L)))
    cont_lanes = np.arange(L) < n_clamped
    bit_lanes = M.bits_of_words(w, L)
    lanes = jnp.where(is_cont, cont_lanes, jnp.where(is_bits, bit_lanes, reg_lanes))
    c_lo = jnp.where(is_cont, n[0], jnp.where(is_bits, w[0], reg_lo))
    c_hi = jnp.where(is_cont, n[1], jnp.where(is_bits, w[1], reg_hi))
    hd_act = jnp.where(counter, M.lanes_below(c_lo, c_hi, R, L), M.repeat_below(rep, R, L) & lanes[None, :])
    hd_ovf = jnp.where(counter, (c_hi != 0) | (c_lo > R * L), rep > R)
    hd_vmask = state.vmask
    if p.level0_writes_mask_register:
        img_n = M.continuous_words(jnp.where(n[1] != 0, np.uint32(0xFFFFFFFF), n[0]), L, p.vector_mask_bits)
        img = jnp.where(counter, M.counter_words(c_lo, c_hi), jnp.where(is_cont, img_n, w))
        hd_vmask = jnp.where(is_reg, state.vmask, _limit_bits(img, p.vector_mask_bits))

    is_hd = is_cont | is_bits | is_reg
    act = jnp.where(is_count, count_act, jnp.where(is_count_reg, rc_act, hd_act))
    ovf = jnp.where(is_count, count_ovf, jnp.where(is_count_reg, rc_ovf, hd_ovf))
    new_vmask = jnp.where(is_count, count_vmask, jnp.where(is_hd, hd_vmask, state.vmask))
    new_mode = jnp.where(is_count, count_mode, state.mask_mode)

    # zero count / mask / repeat follow the profile's choice ("nop" | "fault" | "error"); checked in
    # the order repeatTime, then mask (Normal mode); Counter mode: count > 2**32-1 is a bad mask.
    hd_bad = counter & ((c_hi != 0) | (is_bits & jnp.any(w[2:] != 0)))
    hd_zero_count = counter & ~hd_bad & (c_lo == 0)
    hd_zero_rep = ~counter & (rep == 0)
    hd_zero_mask = ~counter & (rep != 0) & ~jnp.any(lanes)
    rc_bad = counter & (reg_hi != 0)
    rc_zero_count = counter & ~rc_bad & (reg_lo == 0)
    rc_zero_mask = ~counter & ~jnp.any(reg_lanes)
    zero_count = jnp.where(
        is_count, _u64_pair_is_zero(cnt), jnp.where(is_count_reg, rc_zero_count, hd_zero_count)
    )
    zero_mask = jnp.where(is_count, False, jnp.where(is_count_reg, rc_zero_mask, hd_zero_mask))
    zero_rep = is_hd & hd_zero_rep
    zero = jnp.zeros((), bool)
    nop, undef = zero, zero
    bad = jnp.where(is_count, False, jnp.where(is_count_reg, rc_bad, hd_bad))
    for policy, cond in ((p.zero_count, zero_count), (p.zero_mask, zero_mask), (p.zero_repeat, zero_rep)):
        if policy == "nop":
            nop = nop | cond
        elif policy == "fault":
            undef = undef | cond
        else:  # "error" on a traced or register value: a bad mask
            bad = bad | cond
    ovf = ovf & ~bad
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
    bad = bad | dyn["bad_mask"]
    act = act & ~nop
    act3 = act.reshape(R, 8, E)
    blk_act = jnp.any(act3, axis=-1)
    any_act = jnp.any(blk_act)
    s_db, s_sb, s_dr, s_sr = (dyn["strides"][i] for i in range(4))
    d_addr = MEM.block_addr(dyn["dst"], s_db, s_dr, R)
    s_addr = MEM.block_addr(dyn["src"], s_sb, s_sr, R)
    d_idx, s_idx = MEM.block_index(d_addr), MEM.block_index(s_addr)
    limit = min(state.ub.shape[-1], p.ub_usable_bytes)
    fault = jnp.zeros((), U32)
    fault |= MEM.oob_fault(d_addr, blk_act, limit) | MEM.oob_fault(s_addr, blk_act, limit)
    fault |= MEM.misaligned_fault((dyn["dst"], dyn["src"]), any_act, p.operand_alignment_bytes)
    fault |= jnp.where(any_act & (s_db == 0), U32(Fault.DST_BLK_STRIDE_ZERO), U32(0))
    fault |= MEM.partial_overlap_fault(s_addr, d_addr, blk_act)
    fault |= MEM.repeat_dependency_fault(d_addr, s_addr, blk_act, blk_act, s_sr)
    for reg in p.reserved:
        in_use = st.uses_region(reg, dyn)
        if in_use is not False:
            lo, hi = reg.offset_bytes, reg.offset_bytes + reg.size_bytes
            bb = p.block_bytes

            def touches(a, lo=lo, hi=hi, bb=bb):
                return (a < hi) & (a + bb > lo)

            hit = blk_act & (touches(d_addr) | touches(s_addr)) & in_use
            fault |= jnp.where(jnp.any(hit), U32(Fault.SCRATCH_COLLISION), U32(0))
    fault |= jnp.where(undef, U32(Fault.UNDEFINED), U32(0))
    fault |= jnp.where(bad, U32(Fault.BAD_MASK), U32(0))
    fault |= jnp.where(dyn["bad_param"], U32(Fault.BAD_PARAM), U32(0))
    fault |= jnp.where(ovf & ~nop, U32(Fault.BUCKET_OVERFLOW), U32(0))
    ok = fault == 0
    # gather, compute, merge, scatter. 64-bit integer lanes travel as (low, high) uint32 pairs:
    # memory sees 2L uint32 "half lanes" (both halves share their lane's activity), the element
    # function sees [R, L, 2] (no jax_enable_x64 needed).
    wide = dt.itemsize == 8
    bits_dt = jnp.dtype(np.uint32) if wide else jnp.dtype(dt.bits_dtype)
    LM = 2 * L if wide else L
    act_m = jnp.repeat(act, 2, axis=1) if wide else act
    # operand blocks as uint32 words: selects and lane arithmetic work on words
    msize = min(dt.itemsize, 4)
    src_lanes = MEM.words_to_lanes(MEM.gather_words(state.ub, s_idx), msize)
    if wide:
        src_lanes = src_lanes.reshape(R, L, 2)
    new_lanes = st.elem(src_lanes, dyn["scalar"], dt, p, state.ctrl, dyn).reshape(R, LM).astype(bits_dt)
    new_words = MEM.lanes_to_words(new_lanes.astype(U32), msize)
    mask = MEM.lane_mask_words(act_m, msize)
    write = blk_act & ok
    if st.merge == "none":
        # no two dst blocks of the call can coincide: one masked scatter
        old = MEM.gather_words(state.ub, d_idx)
        ub = MEM.scatter_words(state.ub, d_idx, (new_words & mask) | (old & ~mask), write)
    else:
        # dst blocks may coincide (dstRepStride 0 or small): write repeat by repeat in program order
        ub = MEM.write_program_order(state.ub, d_idx, new_words, mask, write)
    change_regs = ok & ~nop
    vmask = jnp.where(change_regs, new_vmask, state.vmask)
    mode = jnp.where(change_regs, new_mode, state.mask_mode)
    return state.replace(ub=ub, vmask=vmask, mask_mode=mode, fault=state.fault | fault)
