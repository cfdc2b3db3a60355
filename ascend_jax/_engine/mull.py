"""Mull(ISASI) (基础算术/Mull(ISASI).md): two destinations -- the low and the high 32 bits of the
full int32/uint32 product -- over the count form, on the strided core's shared pieces (lane plan,
fault helpers, program-order writes). docs/MODEL.md "Mull" has the rules.

``run_mull`` is jitted with the dtype, the repeat bucket and the profile static; the addresses and
the count are traced (``dyn``: ``dst0``, ``dst1``, ``src0``, ``src1`` and the lane-plan fields).
"""

import dataclasses

import jax.numpy as jnp

from ..errors import Fault
from . import lanes as LN
from . import memory as MEM
from . import numerics as N
from . import static as S
from .pipeline import (
    closing_faults,
    finish,
    footprint_faults,
    read_lanes,
    regions_used,
    strided_dst_faults,
    write_lanes,
)

U32 = jnp.uint32


@dataclasses.dataclass(frozen=True)
class MullStatic:
    dtype: object
    R: int
    profile: object


def product_halves(x, y, signed):
    """(low, high) uint32 words of the full 64-bit product of two int32 / uint32 lanes."""
    xi, yi = x.astype(jnp.int32), y.astype(jnp.int32)
    if not signed:
        hi, lo = N.mul_u32_wide(x, y)
        return lo, hi
    neg = (xi < 0) != (yi < 0)
    ax = jnp.where(xi < 0, (-xi).astype(U32), x)  # |INT_MIN| = 2**31 as uint32
    ay = jnp.where(yi < 0, (-yi).astype(U32), y)
    hi, lo = N.mul_u32_wide(ax, ay)
    nlo = ~lo + U32(1)  # two's complement of the 64-bit magnitude
    nhi = ~hi + (nlo == 0).astype(U32)
    return jnp.where(neg, nlo, lo), jnp.where(neg, nhi, hi)


@S.entry
def run_mull(st: MullStatic, state, dyn):
    p, dt, R = st.profile, st.dtype, st.R
    bb = p.block_bytes
    E = bb // dt.itemsize
    plan = LN.plan(p, dt, R, state, dyn, kind=LN.KIND_COUNT)
    act = plan.act
    blk_act = jnp.any(act.reshape(R, 8, E), axis=-1)
    any_act = jnp.any(blk_act)
    addr = {k: MEM.block_addr(dyn[k], 1, 8, R, bb) for k in ("dst0", "dst1", "src0", "src1")}
    limit = min(state.ub.shape[-1], p.ub_usable_bytes)
    fault = footprint_faults([(a, bb, blk_act) for a in addr.values()], limit, regions_used(p, "Mull"))
    fault |= MEM.misaligned_fault(tuple(dyn[k] for k in addr), any_act, p.operand_alignment_bytes)
    srcs = [(addr["src0"], 8), (addr["src1"], 8)]
    fault |= strided_dst_faults(addr["dst0"], srcs, blk_act, any_act, 1)
    fault |= strided_dst_faults(addr["dst1"], srcs, blk_act, any_act, 1)
    # CHOICE: dst0 and dst1 sharing an active block; the count form's active blocks are the first
    # n blocks of each operand, so they share one iff their starts are closer than n blocks
    n_bytes = jnp.sum(blk_act.astype(jnp.int32)) * bb
    share = any_act & (jnp.abs(dyn["dst0"] - dyn["dst1"]) < n_bytes)
    fault |= jnp.where(share, U32(Fault.PARTIAL_OVERLAP), U32(0))
    x = read_lanes(state.ub, addr["src0"], dt)
    y = read_lanes(state.ub, addr["src1"], dt)
    lo, hi = product_halves(x, y, dt.is_signed_int)
    fault |= closing_faults(plan, dyn["bad_mask"], dyn["bad_param"])
    write = blk_act & (fault == 0)
    ub = write_lanes(state.ub, addr["dst0"], lo, act, write, False, dt)
    ub = write_lanes(ub, addr["dst1"], hi, act, write, False, dt)
    return finish(state, plan, fault, ub)
