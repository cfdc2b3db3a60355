"""Block addressing, fault detection and program-order masked writes over UB bytes.

Operands are read and written as whole 32-byte DataBlocks (aligned by construction once the start
address is aligned), never as bytes, and an API call never touches the whole UB: it gathers the
R*8 blocks it needs and scatters the R*8 blocks it writes.
"""

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import Fault
from . import static as S

I32 = jnp.int32
U32 = jnp.uint32


def block_addr(addr, blk_stride, rep_stride, R, block_bytes=32, n_blocks=8):
    """int32[R, 8]: byte address of block b of repeat r of an operand (fault checks use these)."""
    r = np.arange(R, dtype=np.int32)[:, None]
    b = np.arange(n_blocks, dtype=np.int32)[None, :]
    xp = S.np_or_jnp(addr, blk_stride, rep_stride)  # static: a NumPy array (static slices)
    step = (r * xp.asarray(rep_stride, np.int32) + b * xp.asarray(blk_stride, np.int32)) * block_bytes
    return xp.asarray(addr, np.int32) + step


def block_index(byte_addr, block_bytes=32):
    """DataBlock index of a block byte address (exact once the start address is aligned; a
    misaligned call is a fault and is never written)."""
    return S.np_or_jnp(byte_addr).floor_divide(byte_addr, block_bytes)


def gather_blocks(ub, idx, block_bytes=32):
    """uint8[R, 8, 32] of the blocks at ``idx``; out-of-range rows read as zero (explicitly)."""
    nb = ub.shape[-1] // block_bytes
    blocks = ub.reshape(nb, block_bytes)
    if S.is_static(idx):
        return S.take_rows(blocks, idx)
    ok = (idx >= 0) & (idx < nb)
    safe = jnp.where(ok, idx, 0)
    got = jnp.take(blocks, safe, axis=0, mode="clip")  # indices are in range by construction
    return jnp.where(ok[..., None], got, 0)


def gather_blocks_at(ub, byte_addr, block_bytes=32):
    """uint8[..., 32]: the 32 bytes starting at each (possibly misaligned) byte address. An aligned
    address reads one block; a misaligned one is a MISALIGNED fault and the call is suppressed,
    but data-dependent checks on the operand (pattern bits, shift amounts) still see the bytes at
    the literal address, as the reference does."""
    if S.is_static(byte_addr) and np.all(np.asarray(byte_addr) % block_bytes == 0):
        return gather_blocks(ub, np.asarray(byte_addr) // block_bytes, block_bytes)
    idx = jnp.floor_divide(byte_addr, block_bytes)
    off = byte_addr - idx * block_bytes
    two = jnp.concatenate(
        [gather_blocks(ub, idx, block_bytes), gather_blocks(ub, idx + 1, block_bytes)], axis=-1
    )
    pos = off[..., None] + np.arange(block_bytes, dtype=np.int32)
    return jnp.take_along_axis(two, pos, axis=-1)


def scatter_blocks(ub, idx, data, write, block_bytes=32):
    """Write ``data[R, 8, 32]`` to the blocks ``idx`` where ``write``; every written duplicate must
    carry identical data (the caller resolves program order first)."""
    nb = ub.shape[-1] // block_bytes
    blocks = ub.reshape(nb, block_bytes)
    if S.is_static(idx):
        return S.put_rows(blocks, idx, data.reshape(idx.shape + (block_bytes,)), write).reshape(ub.shape)
    tgt = jnp.where(write, idx, nb)  # nb = one past the end: deliberately dropped
    out = blocks.at[tgt.reshape(-1)].set(data.reshape(-1, block_bytes), mode="drop")
    return out.reshape(ub.shape)


# -- word views of gathered blocks -------------------------------------------------------------
# The UB stays uint8 and is only ever viewed as rows of 32-byte blocks (a free reshape); the blocks
# an operand gathers are reinterpreted as 8 uint32 words each, and the words a call writes are
# turned back into bytes before the scatter. Selects and lane arithmetic then run on words (a
# quarter of the byte work), and no pass over the whole UB is made: reinterpreting the whole
# uint8 UB as uint32 is not a free bitcast in XLA (it is an elementwise pass: measured 0.47 s per
# call for 1,024 cases of 192 KB).


def blocks_to_words(rows):
    """uint8[..., 32] -> uint32[..., 8] (little endian)."""
    return lax.bitcast_convert_type(rows.reshape(rows.shape[:-1] + (rows.shape[-1] // 4, 4)), U32)


def _to_bytes(words):
    """uint32[..., 8] -> uint8[..., 32]."""
    b = lax.bitcast_convert_type(words, jnp.uint8)
    return b.reshape(words.shape[:-1] + (words.shape[-1] * 4,))


def materialize(x):
    """``x`` computed once, into a buffer of its own, before its consumers run.

    XLA on CPU fuses a cheap producer into each consumer, evaluated per output element. Split into
    bytes (``_to_bytes``: the word -> byte bitcast becomes per-byte shifts), a merged lane result
    is then computed 4 times per word: shift_right_sample N = 4,096 spent 43 of its 64 us per case
    in that one fusion. A conditional is a fusion boundary (an ``optimization_barrier`` is not: XLA
    removes it before fusion); its predicate is hidden from constant folding and both branches
    return ``x``. It costs a pass over ``x``: worth it only where the words are dear to compute
    (``fence=True`` of the writers below, the elementwise core's source lanes in
    ``pipeline.run_strided``, Compare's bits; each measured in benchmarks/README.md)."""
    keep = lax.optimization_barrier(jnp.asarray(True))
    # (identical branches would be elided by JAX; "| 0" differs in the jaxpr and is the same value)
    return lax.cond(keep, lambda v: v, lambda v: v | np.zeros((), v.dtype), x)


def gather_words(ub, idx, block_bytes=32):
    """uint32[..., 8]: the blocks at ``idx`` as words; out-of-range rows read as zero."""
    return blocks_to_words(gather_blocks(ub, idx, block_bytes))


def words_to_lanes(w, itemsize):
    """uint32[R, 8, 8] block words -> uint32[R, L]: lane bits (L = 256 / itemsize; 8-byte lanes are
    (low, high) word pairs, i.e. itemsize 4; itemsize 0.5 is int4b_t: lane 2k is the low nibble of
    byte k, docs/MODEL.md "int4b_t")."""
    R = w.shape[0]
    if itemsize >= 4:
        return w.reshape(R, -1)
    bits = round(8 * itemsize)
    parts = [(w >> np.uint32(bits * k)) & np.uint32((1 << bits) - 1) for k in range(32 // bits)]
    return jnp.stack(parts, axis=-1).reshape(R, -1)


def lanes_to_words(lanes, itemsize):
    """uint32[R, L] lane bits (only the low 8*itemsize bits are used) -> uint32[R, 8, 8]."""
    R = lanes.shape[0]
    x = lanes.astype(U32)
    if itemsize >= 4:
        return x.reshape(R, -1, 8)
    bits = round(8 * itemsize)
    k = 32 // bits
    x = (x & np.uint32((1 << bits) - 1)).reshape(R, -1, 8, k)
    sh = (np.arange(k, dtype=np.uint32) * np.uint32(bits))[None, None, None, :]
    return _or_reduce(x << sh)


def _or_reduce(x):
    out = x[..., 0]
    for i in range(1, x.shape[-1]):
        out = out | x[..., i]
    return out


def lane_mask_words(act, itemsize):
    """bool[R, L] lane activity -> uint32[R, 8, 8] bit masks (all ones over the active lanes' bits)."""
    full = jnp.where(act, U32(0xFFFFFFFF), U32(0))
    return lanes_to_words(full, itemsize)


def scatter_words(ub, idx, data, write, block_bytes=32, fence=False):
    """Write the block words ``data[..., 8]`` to the blocks ``idx`` where ``write``; duplicates must
    carry identical data. ``fence``: ``data`` is materialized first (``materialize``)."""
    return scatter_blocks(ub, idx, _to_bytes(materialize(data) if fence else data), write, block_bytes)


def static_distinct(idx):
    """The block indices are known at trace time and pairwise distinct (no write order to keep)."""
    return S.is_static(idx) and np.unique(idx).size == idx.size


def _merge_words(ub, idx, data, mask, write, block_bytes=32, fence=False):
    """Static distinct ``idx``: the blocks get ``(data & mask) | (old & ~mask)`` where ``write``,
    updated in place (``static.update_rows``)."""
    nb = ub.shape[-1] // block_bytes
    wr = jnp.broadcast_to(write, idx.shape)[..., None]

    def merge(old):
        cur = blocks_to_words(old)
        merged = jnp.where(wr, (data & mask) | (cur & ~mask), cur)
        return _to_bytes(materialize(merged) if fence else merged)

    return S.update_rows(ub.reshape(nb, block_bytes), idx, merge).reshape(ub.shape)


def write_program_order(ub, idx, data, mask, write, block_bytes=32, fence=False):
    """Write ``data[R, 8, 8]`` (block words) to the blocks ``idx[R, 8]`` repeat by repeat, in program
    order: repeat ``r`` reads the blocks it writes *as left by the repeats before it* and replaces
    only the bits in ``mask[R, 8, 8]`` (its active lanes), so the last active writer of a lane wins
    and an inactive lane of a later repeat keeps an earlier write (docs/MODEL.md "Writes"). Blocks
    where ``write`` is False are not written. The 8 blocks of one repeat are distinct whenever the
    call is not suppressed (``dstBlkStride == 0`` is a fault), so each step is an order-free scatter.

    Cost: R steps of an 8-block gather/scatter, linear in R and independent of the UB size (the
    former all-pairs resolution of colliding writers gathered 8 candidates per lane). ``fence``
    (``materialize``) applies to the one masked write of distinct static blocks only; a step of
    the loop converts one repeat's words, too few to be worth a fusion boundary.
    """
    R = idx.shape[0]
    nb = ub.shape[-1] // block_bytes
    if static_distinct(idx):  # no two writes meet: one masked write
        return _merge_words(ub, idx, data, mask, write, block_bytes, fence)
    tgt = jnp.where(write, idx, nb)  # nb = one past the end: dropped
    src = jnp.clip(idx, 0, nb - 1)

    def step(r, blocks):
        cur = blocks_to_words(jnp.take(blocks, src[r], axis=0, mode="clip"))
        val = (data[r] & mask[r]) | (cur & ~mask[r])
        return blocks.at[tgt[r]].set(_to_bytes(val), mode="drop")

    blocks = lax.fori_loop(0, R, step, ub.reshape(nb, block_bytes), unroll=min(R, 4))
    return blocks.reshape(ub.shape)


# -- faults --------------------------------------------------------------------------------------


def misaligned_fault(addrs, any_active, align):
    bad = jnp.zeros((), bool)
    for a in addrs:
        if S.is_static(a):
            if int(a) % align != 0:
                bad = jnp.ones((), bool)
            continue
        bad = bad | (jnp.asarray(a, I32) % align != 0)
    return jnp.where(bad & any_active, U32(Fault.MISALIGNED), U32(0))


def partial_overlap_fault(src_idx, dst_idx, blk_active):
    """Within one repeat: src block b == dst block b' with b != b' (both active)."""
    eq = src_idx[:, :, None] == dst_idx[:, None, :]  # [R, b, b']
    off_diag = ~np.eye(8, dtype=bool)[None]
    if S.is_static(src_idx, dst_idx):  # only the (r, b, b') that meet can fault: decided now
        r, b, b2 = np.nonzero(eq & off_diag)
        if r.size == 0:
            return U32(0)
        bad = jnp.any(blk_active[r, b] & blk_active[r, b2])
    else:
        both = blk_active[:, :, None] & blk_active[:, None, :]
        bad = jnp.any(eq & both & off_diag)
    return jnp.where(bad, U32(Fault.PARTIAL_OVERLAP), U32(0))


def repeat_dependency_fault(dst_idx, src_idx, dst_active, src_active, src_rep_stride, block_bytes=32):
    """An active dst block of repeat r equals an active src block of a later repeat r' > r.

    Solved per (r, b, b') for the unique r' (src repeat stride != 0) or via a suffix-OR over
    repeats (stride 0), so the cost is O(64 R), not O(R^2).

    ``src_active[:, b']`` must be a prefix over repeats for every b' (active repeats 0..n-1 of
    each block column): true of every mask the pipelines build (Normal mode: repeats below
    repeatTime with a fixed lane mask; Counter mode and count forms: the first N lanes; a
    suppressed call: none). Then "src block (r', b') active" is ``r' < n[b']``, an elementwise
    test instead of a gather of R*64 flags (the gather was a quarter of a 255-repeat Adds call).
    """
    R = dst_idx.shape[0]
    if S.is_static(dst_idx, src_idx, src_rep_stride):
        return _repeat_dependency_static(
            dst_idx, src_idx, dst_active, src_active, int(src_rep_stride) * block_bytes
        )
    sr = jnp.asarray(src_rep_stride, I32) * block_bytes  # byte step between repeats
    # src block (r', b') address = src_idx[0, b'] + r' * sr
    src0 = src_idx[0]  # [8] (b')
    diff = dst_idx[:, :, None] - src0[None, None, :]  # [R, b, b'] = r' * sr
    r = np.arange(R, dtype=np.int32)[:, None, None]
    # sr != 0: r' = diff / sr
    safe_sr = jnp.where(sr == 0, 1, sr)
    # the nearest integer quotient by a float32 reciprocal, then an exact integer check: |diff| and
    # |sr| are UB byte distances (< 2**24), so an exact quotient is recovered exactly, and a
    # non-multiple fails the check whatever it rounds to (integer division, R*64 per call, cost
    # a fifth of a 255-repeat Adds call on CPU)
    rp = jnp.round(diff.astype(jnp.float32) * (1.0 / safe_sr.astype(jnp.float32))).astype(I32)
    exact = (rp * safe_sr == diff) & (rp > r) & (rp < R)
    n_active = jnp.sum(src_active.astype(I32), axis=0)  # [8]: active repeats of block column b'
    hit_nz = exact & (rp < n_active[None, None, :])
    # sr == 0: src block independent of r'; need diff == 0 and some active src (r' > r, b')
    later_any = jnp.flip(jnp.cumsum(jnp.flip(src_active, 0), 0), 0) > 0  # [R, b']: any r'' >= r
    later_strict = jnp.concatenate([later_any[1:], jnp.zeros((1, later_any.shape[1]), bool)], 0)  # r'' > r
    hit_z = (diff == 0) & later_strict[:, None, :]
    hit = jnp.where(sr == 0, hit_z, hit_nz) & dst_active[:, :, None]
    return jnp.where(jnp.any(hit), U32(Fault.REPEAT_DEPENDENCY), U32(0))


def _repeat_dependency_static(dst_idx, src_idx, dst_active, src_active, sr):
    """``repeat_dependency_fault`` with every address known at trace time: the (r, b, b') whose
    blocks meet a later repeat are found now; only their activity is traced."""
    R = dst_idx.shape[0]
    diff = (dst_idx[:, :, None] - src_idx[0][None, None, :]).astype(np.int64)  # [R, b, b']
    r = np.arange(R)[:, None, None]
    if sr != 0:
        rp = diff // sr
        cand = (rp * sr == diff) & (rp > r) & (rp < R)
        rr, b, b2 = np.nonzero(cand)
        if rr.size == 0:
            return U32(0)
        n_active = jnp.sum(src_active.astype(I32), axis=0)  # [8]: active repeats of column b'
        hit = dst_active[rr, b] & (rp[rr, b, b2] < n_active[b2])
    else:
        rr, b, b2 = np.nonzero((diff == 0) & (r < R - 1))
        if rr.size == 0:
            return U32(0)
        later_any = jnp.flip(jnp.cumsum(jnp.flip(src_active, 0), 0), 0) > 0  # [R, b']: any r'' >= r
        hit = dst_active[rr, b] & later_any[rr + 1, b2]
    return jnp.where(jnp.any(hit), U32(Fault.REPEAT_DEPENDENCY), U32(0))


# -- static collision check of dst writes (chooses the single-scatter write path) --------------


def collisions_possible(dst_rep_stride, dst_blk_stride, R):
    """Whether two dst blocks of different (r, b) may coincide (the program-order write path is
    needed): False only when the Python-int strides rule it out; traced strides: True."""
    if not isinstance(dst_rep_stride, (int, np.integer)) or not isinstance(dst_blk_stride, (int, np.integer)):
        return True
    dr, db = int(dst_rep_stride), int(dst_blk_stride)
    if db == 0:
        return False  # a fault: the write is suppressed anyway
    if dr == 0:
        return R > 1
    return any((k * db) % dr == 0 and 1 <= (k * db) // dr <= R - 1 for k in range(1, 8))
