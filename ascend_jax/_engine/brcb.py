"""Brcb (数据填充/Brcb.md) on the UB: repeat ``i`` fills its 8 dst DataBlocks with src elements
``8i .. 8i+7`` (src read contiguously, one element per block). No lane plan: Brcb has no mask
(every block of every active repeat is written; the registers are unchanged). The fault checks and
the program-order write are the shared helpers of ``pipeline.py`` / ``memory.py``; docs/MODEL.md
"Brcb" has the rules.

``run_brcb`` is jitted with the dtype, the repeat bucket ``R`` and the profile static, everything
else traced (``dyn``: ``dst``, ``src``, ``blk``, ``rep``, ``repeat``, ``bad_param``), so one
program serves every address, stride and repeat count of a bucket.
"""

import dataclasses

import jax.numpy as jnp
import numpy as np

from ..errors import Fault
from . import memory as MEM
from . import static as S
from .pipeline import any_fault, footprint_faults, regions_used

U32 = jnp.uint32
I32 = jnp.int32


@dataclasses.dataclass(frozen=True)
class BrcbStatic:
    dtype: object
    R: int
    profile: object


def _zero_fault(p, zero):
    """A traced repeatTime 0 under ``behavior.zero_repeat`` (a static 0 with "error" was raised)."""
    if p.zero_repeat == "fault":
        return jnp.where(zero, U32(Fault.UNDEFINED), U32(0))
    if p.zero_repeat == "error":
        return jnp.where(zero, U32(Fault.BAD_MASK), U32(0))
    return U32(0)


@S.entry
def run_brcb(st: BrcbStatic, state, dyn):
    p, dt, R = st.profile, st.dtype, st.R
    size, bb = dt.itemsize, p.block_bytes
    rep = dyn["repeat"]
    r_act = jnp.arange(R, dtype=I32) < rep  # [R]
    blk_act = jnp.broadcast_to(r_act[:, None], (R, 8))
    any_act = jnp.any(r_act)
    d_addr = MEM.block_addr(dyn["dst"], dyn["blk"], dyn["rep"], R, bb)  # [R, 8]
    src_lo = dyn["src"] + jnp.arange(R, dtype=I32) * (8 * size)  # [R] start of repeat i's 8 elements
    limit = min(state.ub.shape[-1], p.ub_usable_bytes)
    footprint = [(d_addr, bb, blk_act), (src_lo, 8 * size, r_act)]
    fault = footprint_faults(footprint, limit, regions_used(p, "Brcb"))
    fault |= MEM.misaligned_fault((dyn["dst"], dyn["src"]), any_act, p.operand_alignment_bytes)
    fault |= any_fault(any_act & (dyn["blk"] == 0), Fault.DST_BLK_STRIDE_ZERO)
    # SPEC: "不支持源操作数与目的操作数使用同一块内存地址": any active src byte in an active dst block
    s_end = dyn["src"] + rep * (8 * size)
    overlap = blk_act & (d_addr < s_end) & (d_addr + bb > dyn["src"])
    fault |= any_fault(overlap, Fault.PARTIAL_OVERLAP)
    fault |= _zero_fault(p, rep == 0)
    fault |= jnp.where(dyn["bad_param"], U32(Fault.BAD_PARAM), U32(0))
    fault |= jnp.where(rep > R, U32(Fault.BUCKET_OVERFLOW), U32(0))
    # read: element k = 8i + j at src + k * size (bytes, little endian)
    n = ub_n = state.ub.shape[-1]
    idx = dyn["src"] + np.arange(R * 8 * size, dtype=np.int32)
    ok = (idx >= 0) & (idx < ub_n)
    raw = jnp.where(ok, jnp.take(state.ub, jnp.clip(idx, 0, n - 1)), jnp.uint8(0))
    elems = raw.reshape(R, 8, 1, size)
    blocks = jnp.broadcast_to(elems, (R, 8, bb // size, size)).reshape(R, 8, bb)
    words = MEM.blocks_to_words(blocks)
    write = blk_act & (fault == 0)
    ub = MEM.write_program_order(
        state.ub, MEM.block_index(d_addr, bb), words, jnp.full(words.shape, U32(0xFFFFFFFF)), write, bb
    )
    return state.replace(ub=ub, fault=state.fault | fault)
