"""BilinearInterpolation(ISASI) (基础算术/) on the UB: a gather of DataBlocks through an offset
tensor, a multiply by broadcast src1 values, a horizontal sum, a strided store.
docs/MODEL.md "BilinearInterpolation" has the rules; this module is the fast path's one home for them.

Iteration ``k = vv * hRepeat + hh`` (``hh`` the horizontal, ``vv`` the vertical index) gathers the
8 DataBlocks at ``src0 + src0Offset[8k + j]`` (byte offsets) and multiplies block ``j`` by src1
element ``k`` (repeatMode false) or ``8k + j`` (repeatMode true). Vertical repeat ``vv`` sums its
``hRepeat`` products left to right, adds +0 and writes lane ``l`` (block ``j = l // 16``) to
``dst + 2 vROffset vv + 32 dstBlkStride j + 2 (l % 16)`` where the mask enables lane ``l``.

Everything shape-setting is static (``BilinearStatic``: the iteration bucket ``K`` >= hRepeat *
vRepeat); addresses, offsets, repeats, strides, repeatMode and the mask are traced: one program per
(profile, bucket).
"""

import dataclasses

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtypes as _dt
from ..errors import Fault
from . import elementwise as EW
from . import memory as MEM
from . import static as S
from .gather import read_u32
from .pipeline import any_fault, footprint_faults, regions_used

U32 = jnp.uint32
I32 = jnp.int32
API = "BilinearInterpolation"
HALF = _dt.as_dtype("half")
_BIG = 1 << 30  # an offset above this puts the block outside any UB (and keeps int32 sums safe)
LANES = 128  # half lanes of one iteration (8 DataBlocks of 16)


@dataclasses.dataclass(frozen=True)
class BilinearStatic:
    K: int  # iteration slots (hRepeat * vRepeat <= K, else BUCKET_OVERFLOW)
    profile: object


def lane_activity(words):
    """bool[128] from the mask's 4 low uint32 words (lane l = bit l)."""
    lane = np.arange(LANES)
    return ((jnp.asarray(words, U32)[lane // 32] >> (lane % 32).astype(np.uint32)) & 1) == 1


def _read_u16(ub, addr):
    n = ub.shape[-1]
    idx = jnp.clip(addr[..., None] + np.arange(2, dtype=np.int32), 0, n - 1)
    b = jnp.take(ub, idx).astype(U32)
    return b[..., 0] | (b[..., 1] << 8)


def _meets(a, n, act, lo, hi):
    """Any active byte range [a, a + n) meeting [lo, hi)."""
    return jnp.any(act & (a < hi) & (a + n > lo))


def _hull(a, n, act):
    big = np.int32(2**31 - 1)
    return jnp.min(jnp.where(act, a, big)), jnp.max(jnp.where(act, a + n, -big))


@S.entry
def run_bilinear(st: BilinearStatic, state, dyn):
    """One BilinearInterpolation call. ``dyn`` (all traced): ``dst``, ``src0``, ``src1``, ``off``,
    ``tmp`` (addresses), ``tmp_bytes`` (the sharedTmpBuffer bytes the product uses; 0: none), ``h``,
    ``v``, ``blk`` (dstBlkStride), ``vro`` (vROffset), ``mode`` (repeatMode), ``lanes`` (uint32[4]
    lane bits), ``vmask_new`` (uint32[8]), ``vmask_write``, ``mode_write`` (register effects),
    ``bad_mask``, ``bad_param``."""
    p, K = st.profile, st.K
    bb = p.block_bytes
    ub = state.ub
    limit = min(ub.shape[-1], p.ub_usable_bytes)
    h = jnp.asarray(dyn["h"], I32)
    v = jnp.asarray(dyn["v"], I32)
    blk = jnp.asarray(dyn["blk"], I32)
    vro = jnp.asarray(dyn["vro"], I32)
    mode = jnp.asarray(dyn["mode"], bool)
    act_l = lane_activity(dyn["lanes"])  # [128]
    zero = ~jnp.any(act_l)
    rule = p.zero_mask
    # SPEC: "mask = 0 ... 该接口将被视为NOP" (掩码/通用说明.md); MODEL.md behavior.zero_mask
    nop = zero if rule == "nop" else jnp.zeros((), bool)
    run = ~zero
    n_it = h * v
    overflow = n_it > K
    it_act = (jnp.arange(K, dtype=I32) < n_it) & run  # [K]
    blk_act = jnp.any(act_l.reshape(8, 16), axis=-1)  # [8]

    k = np.arange(K, dtype=np.int32)[:, None]
    j = np.arange(8, dtype=np.int32)[None, :]
    g = 8 * k + j  # [K, 8] offset word / repeatMode-true src1 index
    oa = jnp.asarray(dyn["off"], I32) + 4 * g
    o_act = jnp.broadcast_to(it_act[:, None], (K, 8))
    o_in = (oa >= 0) & (oa + 4 <= limit)
    o = read_u32(ub, oa)
    big = o > U32(_BIG)
    src0 = jnp.asarray(dyn["src0"], I32)
    sa = src0 + jnp.where(big, U32(0), o).astype(I32)
    ok_blk = o_act & o_in
    near = ok_blk & ~big
    s1_idx = jnp.where(mode, g, k + 0 * j)
    s1a = jnp.asarray(dyn["src1"], I32) + 2 * s1_idx
    vv = np.arange(K, dtype=np.int32)[:, None]
    da = jnp.asarray(dyn["dst"], I32) + 2 * vro * vv + bb * blk * j  # [K, 8]
    d_act = (jnp.arange(K, dtype=I32)[:, None] < v) & blk_act[None, :] & run & ~overflow
    any_act = jnp.any(it_act)
    tmp_n = jnp.asarray(dyn["tmp_bytes"], I32)
    tmp = jnp.asarray(dyn["tmp"], I32)
    tmp_used = (tmp_n > 0) & any_act

    # -- faults --------------------------------------------------------------------------------
    regions = regions_used(p, API)
    fault = footprint_faults(
        [(da, bb, d_act), (oa, 4, o_act), (sa, bb, near), (s1a, 2, o_act)], limit, regions
    )
    # SPEC: "偏移地址后不能超出UB大小数据的范围" (src0Offset 约束说明)
    fault |= any_fault(ok_blk & big, Fault.OUT_OF_UB)
    fault |= any_fault(tmp_used & ((tmp < 0) | (tmp + tmp_n > limit)), Fault.OUT_OF_UB)
    for lo, hi, use in regions:
        fault |= any_fault(tmp_used & (tmp < hi) & (tmp + tmp_n > lo) & use, Fault.SCRATCH_COLLISION)
    # SPEC: "LocalTensor的起始地址需要32字节对齐" (dst, src0, src1, src0Offset)
    addrs = [dyn["dst"], dyn["src0"], dyn["src1"], dyn["off"], jnp.where(tmp_n > 0, tmp, 0)]
    fault |= MEM.misaligned_fault(tuple(addrs), any_act, p.operand_alignment_bytes)
    # SPEC: "取值应保证src0元素类型位宽对齐。偏移地址后需要32字节对齐。" (src0Offset 约束说明)
    m = np.uint32(bb - 1)
    fault |= any_fault(ok_blk & ((((src0.astype(U32) & m) + (o & m)) & m) != 0), Fault.MISALIGNED)
    # MODEL.md: dstBlkStride 0 is DST_BLK_STRIDE_ZERO (the 8 blocks of a repeat would coincide)
    fault |= any_fault(jnp.any(d_act) & (blk == 0), Fault.DST_BLK_STRIDE_ZERO)
    # SPEC: "src0、src1、src0Offset之间不允许地址重叠": a gathered block against the src1 and offset
    #       hulls, src1 against the offsets
    s1_lo, s1_hi = _hull(s1a, 2, o_act)
    of_lo, of_hi = _hull(oa, 4, o_act)
    over = _meets(sa, bb, near, s1_lo, s1_hi) | _meets(sa, bb, near, of_lo, of_hi)
    over |= any_act & (s1_lo < of_hi) & (s1_hi > of_lo)
    # MODEL.md (CHOICE): an active dst block meeting any byte the call reads (hull of the dst blocks)
    d_lo, d_hi = _hull(da, bb, d_act)
    over |= (
        _meets(sa, bb, near, d_lo, d_hi)
        | _meets(s1a, 2, o_act, d_lo, d_hi)
        | _meets(oa, 4, o_act, d_lo, d_hi)
    )
    # SPEC: "两个垂直repeat的目的地址之间不允许地址重叠": block j of repeat vv and block j - dj of repeat
    #       vv + dv coincide iff 2 vROffset dv == 32 dstBlkStride dj (every dst block is 32-aligned
    #       relative to dst)
    pair = [jnp.any(blk_act[dj:] & blk_act[: 8 - dj]) for dj in range(1, 8)]
    dv = np.arange(1, max(K, 2), dtype=np.int32)[:, None]
    djs = np.arange(1, 8, dtype=np.int32)[None, :]
    hit = (dv < v) & (2 * vro * dv == bb * blk * djs) & jnp.stack(pair)[None, :]
    over |= run & ~overflow & jnp.any(hit)
    fault |= jnp.where(over, U32(Fault.PARTIAL_OVERLAP), U32(0))
    # MODEL.md: the sharedTmpBuffer bytes the product uses meeting an operand is SCRATCH_COLLISION
    clash = (
        _meets(sa, bb, near, tmp, tmp + tmp_n)
        | _meets(da, bb, d_act, tmp, tmp + tmp_n)
        | _meets(s1a, 2, o_act, tmp, tmp + tmp_n)
        | _meets(oa, 4, o_act, tmp, tmp + tmp_n)
    )
    fault |= jnp.where(tmp_used & clash, U32(Fault.SCRATCH_COLLISION), U32(0))
    if rule == "fault":
        fault |= jnp.where(zero, U32(Fault.UNDEFINED), U32(0))
    elif rule == "error":
        fault |= jnp.where(zero, U32(Fault.BAD_MASK), U32(0))
    # a NOP call records only the run-time argument faults
    fault = jnp.where(nop, U32(0), fault)
    fault |= jnp.where(dyn["bad_mask"], U32(Fault.BAD_MASK), U32(0))
    fault |= jnp.where(dyn["bad_param"], U32(Fault.BAD_PARAM), U32(0))
    fault |= jnp.where(overflow & ~nop, U32(Fault.BUCKET_OVERFLOW), U32(0))
    ok = fault == 0

    # -- data --------------------------------------------------------------------------------------
    ctrl = state.ctrl
    words = MEM.blocks_to_words(MEM.gather_blocks_at(ub, sa, bb))  # [K, 8, 8]
    x = MEM.words_to_lanes(words, 2)  # [K, 128] half bits
    s1 = jnp.repeat(_read_u16(ub, s1a), 16, axis=1)  # [K, 128]
    # SPEC: step 3 "调用Mul执行逐元素乘法": each product rounded to half as Mul rounds it
    prod = EW.float_op("mul", x, s1, HALF, p, ctrl)
    hs = jnp.maximum(h, 1)
    # apis.BilinearInterpolation.sum_order: "sequential" is the one order modelled (the schema's only value)
    assert p.api(API)["sum_order"] == "sequential"

    def step(acc, kk):
        # SPEC: step 4 "水平迭代累加 ... 调用Add": the running sum of a vertical repeat, left to right
        first = (kk % hs) == 0
        nxt = jnp.where(first, prod[kk], EW.float_op("add", prod[kk], acc, HALF, p, ctrl))
        return nxt, nxt

    _, run_sum = lax.scan(step, jnp.zeros((LANES,), U32), jnp.arange(K, dtype=I32))
    last = jnp.clip(np.arange(K, dtype=np.int32) * hs + hs - 1, 0, K - 1)
    res = run_sum[last]  # [K(vv), 128]
    # MODEL.md (CHOICE): the result is the sum + 0 (the emulation's final Adds copy). The sum is
    # already a finished half (flushed, saturated, canonical NaN), so + 0 changes only -0 (to +0).
    # Written out, not as a float add of a constant zero: XLA folds x + 0.0 to x.
    res = jnp.where(res == U32(0x8000), U32(0), res)
    out_words = MEM.lanes_to_words(res, 2)
    lane_mask = MEM.lane_mask_words(jnp.broadcast_to(act_l[None, :], (K, LANES)), 2)
    new_ub = MEM.write_program_order(ub, MEM.block_index(da, bb), out_words, lane_mask, d_act & ok, bb)
    change = ok & ~nop & any_act
    vmask = jnp.where(change & dyn["vmask_write"], jnp.asarray(dyn["vmask_new"], U32), state.vmask)
    mmode = jnp.where(change & dyn["mode_write"], jnp.zeros_like(state.mask_mode), state.mask_mode)
    return state.replace(ub=new_ub, vmask=vmask, mask_mode=mmode, fault=state.fault | fault)
