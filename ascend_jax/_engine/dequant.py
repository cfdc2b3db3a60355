"""Fast path of CastDequant (复合计算/CastDequant.md) for int16 -> int8 / uint8 (the s162b8 scenes), with
the DEQSCALE register (SetDeqScale) or the 16-entry vdeq table it points to (isVecDeq).

Element rule (docs/MODEL.md "CastDequant"), on integers only (no float hardware needed):

  scale'  = the float32 scale with its low 13 mantissa bits dropped ((1,8,10) format, SetDeqScale.md 表1)
  p       = float32(src × scale')            (one IEEE round-to-nearest-even to 24 significant bits)
  r       = RINT(p) saturated to int16, then to the signed 9-bit range [-256, 255]
  t       = r + offset (the signed 9-bit offset)
  dst     = t saturated to int8 (signMode 1) or uint8 (signMode 0)

A NaN product (a NaN scale, or 0 × inf) gives r = 0 (CHOICE). The b8 result of the 16 int16 lanes of a
source block lands in one half of the dst block (``halfBlock``: true the upper 16 bytes, false the lower
16); the other half is not written.

``run_b8`` is ``pipeline.run_strided`` with that ending: the operands' blocks are laid out as int16
(8 blocks a repeat each), the results written byte by byte.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtypes as _dt
from ..errors import Fault
from . import lanes as LN
from . import memory as MEM
from . import pipeline as PL
from . import static as S

U32 = jnp.uint32
I32 = jnp.int32
INT16 = _dt.as_dtype("int16")
INT8 = _dt.as_dtype("int8")
VDEQ_ENTRIES = 16  # SPEC: "该空间大小为128B。空间被切分为16个64bit"
VDEQ_BYTES = 8 * VDEQ_ENTRIES


def _rne_shift(q, k):
    """round-to-nearest-even of ``q / 2**k`` (q uint32 >= 0, 0 <= k <= 30, traced)."""
    k = k.astype(U32)
    i = q >> k
    frac = q - (i << k)
    half = jnp.where(k > 0, U32(1) << jnp.maximum(k, U32(1)) - U32(1), U32(0))
    up = (k > 0) & ((frac > half) | ((frac == half) & ((i & U32(1)) == 1)))
    return i + up.astype(U32)


def deq_s9(x, lo):
    """int16 lanes ``x`` (uint32 holding the 16 bits) times the (1,8,10) float scale in ``lo`` (uint32
    DEQSCALE bits 0~31, broadcastable): the product rounded to float32, then RINT, saturated to [-256,
    255]; int32 lanes."""
    v = jnp.where(x & U32(0x8000), x.astype(I32) - 65536, x.astype(I32))
    sbits = lo & U32(0xFFFFE000)  # SPEC: "硬件在计算时将其视为(1,8,10)格式"
    sneg = (sbits >> U32(31)) == 1
    e = ((sbits >> U32(23)) & U32(0xFF)).astype(I32)
    f = (sbits >> U32(13)) & U32(0x3FF)
    m = f | jnp.where(e != 0, U32(0x400), U32(0))
    E2 = jnp.maximum(e, 1) - 127 - 10
    mag = jnp.abs(v).astype(U32)
    neg = (v < 0) ^ sneg
    P = mag * m  # < 2**26: exact
    # float32 rounding of P * 2**E2: at most 24 significant bits (P has at most 26)
    n_bits = 32 - jax.lax.clz(P).astype(I32)
    drop = jnp.clip(n_bits - 24, 0, 2)
    Q = _rne_shift(P, drop) << drop.astype(U32)
    # RINT of Q * 2**E2, magnitude capped (any magnitude >= 512 saturates the same way)
    up = jnp.minimum(Q, U32(1024)) << jnp.clip(E2, 0, 10).astype(U32)
    down = _rne_shift(Q, jnp.clip(-E2, 0, 30))
    r = jnp.minimum(jnp.where(E2 >= 0, up, down), U32(1024)).astype(I32)
    r = jnp.where(neg, -r, r)
    # specials: inf scale -> +-inf (saturates), NaN or 0 * inf -> NaN -> 0 (CHOICE)
    inf = (e == 255) & (f == 0)
    nan = ((e == 255) & (f != 0)) | (inf & (v == 0))
    r = jnp.where(inf, jnp.where(neg, -1024, 1024), r)
    r = jnp.where(nan, 0, r)
    # SPEC (the s9 step of the vendor's emulation): clamp to the signed 9-bit range
    return jnp.clip(r, -256, 255)


def deq_b8(x, lo, hi):
    """(b8 lanes as uint32 bytes, signMode lanes) of ``x`` under the 64-bit configuration (lo, hi)."""
    r = deq_s9(x, lo)
    off9 = ((hi >> U32(5)) & U32(0x1FF)).astype(I32)
    # SPEC: "offset | 一个有符号的9位整数" (SetDeqScale.md 表1)
    off = jnp.where(off9 >= 256, off9 - 512, off9)
    sign = ((hi >> U32(14)) & U32(1)) == 1
    t = r + off
    # SPEC: "对输出结果的溢出采用饱和处理"; signMode 1 int8, 0 uint8
    t = jnp.where(sign, jnp.clip(t, -128, 127), jnp.clip(t, 0, 255))
    return t.astype(U32) & U32(0xFF), sign


def read_table(ub, lo, limit):
    """(uint32[16] low words, uint32[16] high words, fault) of the vdeq table at DEQSCALE bits 0~13 x
    32 bytes (the register holds a 32-byte-aligned address >> 5); outside UB -> OUT_OF_UB."""
    addr = ((lo & U32(0x3FFF)) * U32(32)).astype(I32)
    bad = addr + VDEQ_BYTES > limit
    a = jnp.clip(addr, 0, ub.shape[-1] - VDEQ_BYTES)
    raw = jax.lax.dynamic_slice(ub, (a,), (VDEQ_BYTES,)).astype(U32).reshape(2 * VDEQ_ENTRIES, 4)
    words = raw[:, 0] | (raw[:, 1] << 8) | (raw[:, 2] << 16) | (raw[:, 3] << 24)
    return words[0::2], words[1::2], bad


@dataclasses.dataclass(frozen=True)
class B8Static:
    """Static part of an int16 -> b8 CastDequant program: repeat bucket, ordered writes, profile. The
    dst type (int8 / uint8), halfBlock and isVecDeq are traced (``dyn["b8"]`` = int32[3]): one program
    serves both pairs and every template choice."""

    R: int
    ordered: bool
    profile: object
    api: str = "CastDequant"
    api_codes: tuple = ()
    dtype: object = INT16  # the block layout every operand keeps (the checker's view)


def b8_config(dtype, half_block, vec):
    """``dyn["b8"]`` of a call: (dst is int8, halfBlock, isVecDeq)."""
    return jnp.asarray([dtype == INT8, bool(half_block), bool(vec)], I32)


@S.entry
def run_b8(st: B8Static, state, dyn):
    """One int16 -> int8/uint8 CastDequant call (``dyn`` as run_strided's for one source, plus ``deq``
    and ``b8``)."""
    p, R = st.profile, st.R
    L = p.lanes(INT16)
    E = p.block_bytes // INT16.itemsize  # 16 lanes a block, in src and in dst
    nb = L // E
    want, half_block, vec = (dyn["b8"][i] != 0 for i in range(3))
    plan = LN.plan(p, INT16, R, state, dyn)
    act = plan.act
    blk_act = jnp.any(act.reshape(R, nb, E), axis=-1)
    any_act = jnp.any(blk_act)
    s = [dyn["strides"][i] for i in range(4)]
    d_addr = MEM.block_addr(dyn["dst"], s[0], s[2], R, n_blocks=nb)
    s_addr = MEM.block_addr(dyn["src"], s[1], s[3], R, n_blocks=nb)
    limit = min(state.ub.shape[-1], p.ub_usable_bytes)
    footprint = [(d_addr, p.block_bytes, blk_act), (s_addr, p.block_bytes, blk_act)]
    fault = PL.footprint_faults(footprint, limit, PL.regions_used(p, st.api))
    fault |= MEM.misaligned_fault((dyn["dst"], dyn["src"]), any_act, p.operand_alignment_bytes)
    fault |= PL.conversion_dst_faults(d_addr, s_addr, blk_act, blk_act, any_act, s[0], s[3], True)
    x = PL.read_lanes(state.ub, s_addr, INT16)
    deq = dyn["deq"]
    # SPEC: "对每个DataBlock上的16个输入数据 ... 每个数的计算使用一组独立的量化参数" (j in [0,15])
    tlo, thi, bad_table = read_table(state.ub, deq[0], limit)
    bad_table = vec & bad_table
    fault |= jnp.where(any_act & bad_table, U32(Fault.OUT_OF_UB), U32(0))
    j = np.arange(L) % VDEQ_ENTRIES
    lo = jnp.where(vec, tlo[j][None, :], deq[0])
    hi = jnp.where(vec, thi[j][None, :], deq[1])
    b8, sign = deq_b8(x, lo, hi)
    # SPEC: "当signMode=true时输出数据类型int8_t；signMode=false时输出数据类型uint8_t"
    bad_param = dyn["bad_param"] | (jnp.any(act & (sign != want)) & ~bad_table)
    fault |= PL.closing_faults(plan, dyn["bad_mask"], bad_param)
    # the 16 results of a source block -> bytes [16, 32) (halfBlock) or [0, 16) of its dst block
    b8 = b8.reshape(R, nb, E)
    a16 = act.reshape(R, nb, E)
    z, f = jnp.zeros_like(b8), jnp.zeros_like(a16)
    new = jnp.where(half_block, jnp.concatenate([z, b8], -1), jnp.concatenate([b8, z], -1)).reshape(R, -1)
    act8 = jnp.where(half_block, jnp.concatenate([f, a16], -1), jnp.concatenate([a16, f], -1)).reshape(R, -1)
    ub = PL.write_lanes(state.ub, d_addr, new, act8, blk_act & (fault == 0), st.ordered, INT8)
    ran = (fault == 0) & ~plan.nop
    new_state = PL.finish(state, plan, fault, ub)
    if new_state.warn is None:
        return new_state
    # checker: extents / uninitialised reads on the int16 view; then the dst bytes written, exactly
    operands = (("dst", d_addr, INT16), ("src", s_addr, INT16))
    out = PL.strided_warnings(st, state, new_state, dyn, act, ran, operands)
    if state.written is not None:
        la = PL.lane_addrs(d_addr, INT8)
        out = out.replace(written=PL.mark_lanes_written(state.written, la, act8 & ran, INT8))
    return out
