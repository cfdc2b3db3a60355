"""Fast path of the DataCopy forms that move single elements: ND2NZ, NZ2ND, slices and NDDMA.

Every parameter of these forms is a Python int (the pages' kernels fix them at compile time), so
the element map is built once at trace time with NumPy broadcasting: ``src`` element offsets (-1:
a padding element, filled with ``fill``) and ``dst`` element offsets, both relative to the
operand's address. ``indexed_copy`` then checks the touched bytes and moves them with one gather
and one scatter; the addresses may be traced.
"""

import jax.numpy as jnp
import numpy as np

from ..errors import Fault
from ..gm import OUT_OF_GM
from . import static as S

U32 = jnp.uint32
BLK = 32


def _grid(*sizes):
    """Open index grids of ``sizes`` (the first the outermost)."""
    return np.ix_(*(np.arange(n, dtype=np.int64) for n in sizes))


def nd2nz_map(nd, n, d, src_nd, src_d, c0_stride, n_stride, dst_nd, c0):
    """ND2NZ: element (i, r, c) of ND matrix i -> NZ. Columns ``[d, ceil(d / c0) * c0)`` are the
    zero padding of the last C0 group (src -1)."""
    dp = -(-d // c0) * c0
    i, r, c = _grid(nd, n, dp)
    src = i * src_nd + r * src_d + c
    src = np.where(c < d, src, -1)
    dst = i * dst_nd + (c // c0) * c0_stride * c0 + r * n_stride * c0 + c % c0
    src, dst = np.broadcast_arrays(src, dst)
    return src.reshape(-1), dst.reshape(-1)


def nz2nd_map(nd, n, d, src_nd, src_n, dst_d, dst_nd):
    """NZ2ND: the 16-column fractals of NZ matrix i -> rows of ND matrix i."""
    i, r, c = _grid(nd, n, d)
    src = i * src_nd * 256 + (c // 16) * src_n * 16 + r * 16 + c % 16
    dst = i * dst_nd + r * dst_d + c
    src, dst = np.broadcast_arrays(src, dst)
    return src.reshape(-1), dst.reshape(-1)


def slice_indices(start, end, stride, chunk):
    """The element indices one SliceInfo dimension selects: chunks of ``chunk`` from ``start``,
    ``stride`` apart, through ``end``."""
    n = (end - start + 1 + stride) // (chunk + stride)
    return (np.arange(n, dtype=np.int64)[:, None] * (chunk + stride) + start + np.arange(chunk)).reshape(-1)


def slice_offsets(infos, size):
    """Element offsets of a slice (dimension 0 innermost and contiguous), in enumeration order."""
    off = np.zeros(1, np.int64)
    mult = 1
    for k, (start, end, stride, burst, shape) in enumerate(infos):
        chunk = burst * BLK // size if k == 0 else 1
        idx = slice_indices(start, end, stride, chunk) * mult
        off = (idx[:, None] + off[None, :]).reshape(-1)
        mult *= shape
    return off


def nddma_map(src_stride, dst_stride, size, lp, rp, nearest):
    """NDDMA: every destination element of the padded box (dimension 0 innermost); src -1 where a
    constant fills the padding, else the element read (nearest-value mode: the clamped index)."""
    dims = len(size)
    ext = [lp[k] + size[k] + rp[k] for k in range(dims)]
    grids = _grid(*reversed(ext))  # outermost first
    src = np.zeros((), np.int64)
    dst = np.zeros((), np.int64)
    inside = np.ones((), bool)
    for k in range(dims):
        j = grids[dims - 1 - k]
        q = j - lp[k]
        inside = inside & (q >= 0) & (q < size[k])
        src = src + np.clip(q, 0, max(size[k] - 1, 0)) * src_stride[k]
        dst = dst + j * dst_stride[k]
    if not nearest:
        src = np.where(inside, src, -1)
    src, dst = np.broadcast_arrays(src, dst)
    return src.reshape(-1), dst.reshape(-1)


def byte_map(src, dst, size):
    """Element offsets -> byte offsets (``sizeof(T)`` consecutive bytes each); src -1 stays -1."""
    k = np.arange(size, dtype=np.int64)
    sb = np.where(src[:, None] >= 0, src[:, None] * size + k, -1).reshape(-1)
    db = (dst[:, None] * size + k).reshape(-1)
    return sb, db


def indexed_copy(ub, src_buf, dst_buf, *, kind, s_addr, d_addr, sb, db, fill, ub_limit, ub_align):
    """Move byte ``sb[k]`` of the source (``fill[k % len(fill)]`` where ``sb[k] < 0``) to byte
    ``db[k]`` of the destination. Returns ``(ub, dst_buf, fault)``; a faulting call changes nothing.
    ``sb``/``db``: NumPy byte offsets relative to the (possibly traced) addresses; ``db`` distinct."""
    ub = jnp.asarray(ub)
    src_mem = ub if kind[:2] == "ub" else jnp.asarray(src_buf)
    dst_mem = ub if kind[-2:] == "ub" else jnp.asarray(dst_buf)
    s_addr, d_addr = S.i32(s_addr), S.i32(d_addr)
    data_at = sb >= 0
    fault = U32(0)
    for mem, addr, offs, is_ub in (
        (src_mem, s_addr, sb[data_at], kind[:2] == "ub"),
        (dst_mem, d_addr, db, kind[-2:] == "ub"),
    ):
        if offs.size == 0:
            continue
        limit = min(mem.shape[-1], ub_limit) if is_ub else mem.shape[-1]
        lo, hi = int(offs.min()), int(offs.max())
        oob = (addr + lo < 0) | (addr + hi >= limit)
        bit = Fault.OUT_OF_UB if is_ub else OUT_OF_GM
        fault = fault | jnp.where(oob, U32(int(bit)), U32(0))
        if is_ub:
            fault = fault | jnp.where(addr % ub_align != 0, U32(int(Fault.MISALIGNED)), U32(0))
    n_src = src_mem.shape[-1]
    gathered = src_mem[..., jnp.clip(s_addr + jnp.asarray(np.maximum(sb, 0), jnp.int32), 0, n_src - 1)]
    fill = jnp.asarray(fill, jnp.uint8).reshape(-1)
    fill_k = fill[jnp.asarray(np.arange(sb.size) % fill.shape[-1])]
    values = jnp.where(jnp.asarray(data_at), gathered, fill_k)
    ok = fault == 0
    tgt = jnp.where(ok, d_addr + jnp.asarray(db, jnp.int32), dst_mem.shape[-1])  # faulting: dropped
    new = dst_mem.at[..., tgt].set(values, mode="drop")
    if kind[-2:] == "ub":
        return new, dst_buf, fault
    return ub, new, fault
