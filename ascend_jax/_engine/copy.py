"""Fast path of the data-movement APIs (DataCopy, DataCopyPad): block gathers and scatters.

A call moves at most a static number of slots (a *bucket*: 32-byte blocks for DataCopy, blocks of
the padded UB rows for DataCopyPad GM->UB, bytes for DataCopyPad UB->GM); slot ``k`` belongs to
row ``i = k // rowLen`` at position ``k % rowLen``. Addresses are checked with divisions
(``span_ok``) before any product is formed, so traced strides never overflow int32. A call never
touches the whole UB or a whole GM buffer: it gathers and scatters only its slots.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import Fault
from ..gm import OUT_OF_GM
from . import memory as MEM
from . import static as S

I32 = jnp.int32
U32 = jnp.uint32
BLK = 32


def span_ok(base, step, count, last_len, limit):
    """True iff ``[base + i*step, base + i*step + last_len)`` lies in ``[0, limit)`` for every row
    ``i < count`` (``step >= 0``, ``count >= 1``), computed without forming ``i*step``."""
    rem = limit - base - last_len
    den = jnp.maximum(count - 1, 1)
    return (base >= 0) & (rem >= 0) & ((count <= 1) | (step <= rem // den))


def _bit(cond, bit):
    return jnp.where(cond, U32(bit), U32(0))


def _rows(k, row_len):
    safe = jnp.maximum(row_len, 1)
    i = k // safe
    return i, k - i * safe


def _gather_bytes(buf, idx):
    return buf[jnp.clip(idx, 0, buf.shape[-1] - 1)]


def _scatter_bytes(buf, idx, data, write):
    tgt = jnp.where(write, idx, buf.shape[-1])  # one past the end: dropped
    return buf.at[tgt.reshape(-1)].set(data.reshape(-1), mode="drop")


def _zero_bits(zero, zero_policy):
    return _bit(zero, Fault.UNDEFINED) if zero_policy == "fault" else U32(0)


# -- DataCopy: count and DataCopyParams forms ----------------------------------------------------


@functools.partial(jax.jit, static_argnames=("kind", "nb", "ub_limit", "gm_align", "ub_align", "zero_policy"))
def block_copy(ub, src_buf, dst_buf, dyn, *, kind, nb, ub_limit, gm_align, ub_align, zero_policy):
    """DataCopy of ``blockCount`` rows of ``blockLen`` 32-byte blocks, gaps in blocks.

    kind: "gm2ub" | "ub2gm" | "ub2ub". ``src_buf``/``dst_buf``: the GM byte buffer of that side
    (ignored, may be None, for a UB side). dyn: int32 ``src``, ``dst`` (byte addresses),
    ``bc``, ``bl``, ``src_gap``, ``dst_gap``; bool ``bad``. Returns (ub, dst_buf, fault bits).
    """
    bc, bl = dyn["bc"], dyn["bl"]
    total = bc * bl
    zero = (bc == 0) | (bl == 0)
    over = total > nb
    sides = {"src": kind[:2], "dst": kind[-2:]}
    bufs = {"src": src_buf, "dst": dst_buf}
    bad = dyn["bad"]
    live = ~bad & ~zero & ~over
    fault = _bit(bad, Fault.BAD_PARAM) | _bit(~bad & over, Fault.BUCKET_OVERFLOW)
    fault = fault | _zero_bits(~bad & zero, zero_policy)
    steps = {}
    for s in ("src", "dst"):
        addr = dyn[s]
        step = (bl + dyn[f"{s}_gap"]) * BLK  # <= 131070 * 32: fits int32
        if sides[s] == "ub":
            lim, align, oob_bit = ub_limit, ub_align, Fault.OUT_OF_UB
        else:
            lim, align, oob_bit = bufs[s].shape[-1], gm_align, OUT_OF_GM
        ok = span_ok(addr, step, bc, bl * BLK, lim)
        fault = fault | _bit(live & ~ok, oob_bit) | _bit(live & (addr % align != 0), Fault.MISALIGNED)
        steps[s] = jnp.where(ok, step, 0)
    run = (fault == 0) & live
    k = jnp.arange(nb, dtype=I32)
    i, j = _rows(k, bl)
    write = run & (k < total)
    off = {s: dyn[s] + i * steps[s] + j * BLK for s in ("src", "dst")}  # byte address of each block
    if sides["src"] == "ub":
        data = MEM.gather_blocks(ub, MEM.block_index(off["src"]))  # [nb, 32]
    else:
        data = _gather_bytes(src_buf, off["src"][:, None] + np.arange(BLK, dtype=np.int32))
    if sides["dst"] == "ub":
        ub = MEM.scatter_blocks(ub, MEM.block_index(off["dst"]), data, write)
    else:
        idx = off["dst"][:, None] + np.arange(BLK, dtype=np.int32)
        dst_buf = _scatter_bytes(dst_buf, idx, data, write[:, None])
    return ub, dst_buf, fault


# -- DataCopyPad GM -> UB --------------------------------------------------------------------------


@functools.partial(jax.jit, static_argnames=("nb", "ub_limit", "ub_align", "is_pad", "size", "zero_policy"))
def pad_gm2ub(ub, src_buf, dyn, pad_bytes, *, nb, ub_limit, ub_align, is_pad, size, zero_policy):
    """DataCopyPad GM -> UB (Normal mode). Row ``i`` of the UB side is ``rowBytes =
    ceil32(left + blockLen + right)`` bytes: left padding, ``blockLen`` GM bytes from
    ``src + i*(blockLen + srcStride)``, right padding, then dummy bytes up to the 32-byte boundary.
    Rows are ``rowBytes + dstStride*32`` bytes apart. dyn (int32): ``src``, ``dst``, ``bc``,
    ``bl`` (bytes), ``src_stride`` (bytes), ``dst_stride`` (blocks), ``lb``/``rb`` (padding bytes);
    bool ``bad``. ``pad_bytes``: uint8[size], the padding value. Slots: UB blocks (bucket ``nb``).
    """
    bc, bl, lb, rb = dyn["bc"], dyn["bl"], dyn["lb"], dyn["rb"]
    row_bytes = (lb + bl + rb + BLK - 1) // BLK * BLK
    row_blocks = row_bytes // BLK
    total = bc * row_blocks
    zero = (bc == 0) | (bl == 0)
    over = total > nb
    bad = dyn["bad"]
    live = ~bad & ~zero & ~over
    fault = _bit(bad, Fault.BAD_PARAM) | _bit(~bad & over, Fault.BUCKET_OVERFLOW)
    fault = fault | _zero_bits(~bad & zero, zero_policy)
    gstep = bl + dyn["src_stride"]  # >= 0 (a negative stride is at least -blockLen)
    g_ok = span_ok(dyn["src"], gstep, bc, bl, src_buf.shape[-1])
    # a step beyond the UB is out of range anyway: clamp before the product (no int32 wrap)
    ustep = jnp.minimum(row_blocks + dyn["dst_stride"], ub_limit // BLK + 1) * BLK
    u_ok = span_ok(dyn["dst"], ustep, bc, row_bytes, ub_limit)
    fault = fault | _bit(live & ~g_ok, OUT_OF_GM) | _bit(live & ~u_ok, Fault.OUT_OF_UB)
    fault = fault | _bit(live & (dyn["dst"] % ub_align != 0), Fault.MISALIGNED)
    gstep = jnp.where(g_ok, gstep, 0)
    ustep = jnp.where(u_ok, ustep, 0)
    run = (fault == 0) & live
    k = jnp.arange(nb, dtype=I32)
    i, j = _rows(k, row_blocks)
    write = run & (k < total)
    ub_addr = dyn["dst"] + i * ustep + j * BLK  # [nb]
    p = (j * BLK)[:, None] + np.arange(BLK, dtype=np.int32)  # byte position in the row [nb, 32]
    row_src = (dyn["src"] + i * gstep)[:, None]
    in_data = (p >= lb) & (p < lb + bl)
    in_pad = ((p < lb) | (p >= lb + bl)) & (p < lb + bl + rb)
    gm_idx = jnp.where(in_data, row_src + p - lb, row_src + (p - lb - bl) % size)
    got = _gather_bytes(src_buf, gm_idx)
    old = MEM.gather_blocks(ub, MEM.block_index(ub_addr))
    padv = pad_bytes[p % size]
    no_pad = (lb == 0) & (rb == 0)
    # SPEC: GMToUB DataCopyPad -- dummy bytes repeat the row's first element when there is no
    # padding; with padding they (and the padding) are paddingValue when isPad, else undefined
    # (model: the old UB bytes are kept).
    pad_val = padv if is_pad else old
    out = jnp.where(in_data, got, jnp.where(in_pad, pad_val, jnp.where(no_pad, got, pad_val)))
    ub = MEM.scatter_blocks(ub, MEM.block_index(ub_addr), out, write)
    return ub, fault


# -- DataCopyPad UB -> GM --------------------------------------------------------------------------


@functools.partial(jax.jit, static_argnames=("nb", "ub_limit", "ub_align", "zero_policy"))
def pad_ub2gm(ub, dst_buf, dyn, *, nb, ub_limit, ub_align, zero_policy):
    """DataCopyPad UB -> GM: row ``i`` = ``blockLen`` bytes from UB ``src + i*(ceil32(blockLen) +
    srcStride*32)`` to GM ``dst + i*(blockLen + dstStride)``. Slots: bytes (bucket ``nb``)."""
    bc, bl = dyn["bc"], dyn["bl"]
    total = bc * bl
    zero = (bc == 0) | (bl == 0)
    over = total > nb
    bad = dyn["bad"]
    live = ~bad & ~zero & ~over
    fault = _bit(bad, Fault.BAD_PARAM) | _bit(~bad & over, Fault.BUCKET_OVERFLOW)
    fault = fault | _zero_bits(~bad & zero, zero_policy)
    ceil_bl = (bl + BLK - 1) // BLK * BLK
    ustep = ceil_bl + jnp.minimum(dyn["src_stride"], ub_limit // BLK + 1) * BLK
    u_ok = span_ok(dyn["src"], ustep, bc, bl, ub_limit)  # the bytes read
    gstep = bl + dyn["dst_stride"]
    g_ok = span_ok(dyn["dst"], gstep, bc, bl, dst_buf.shape[-1])
    fault = fault | _bit(live & ~g_ok, OUT_OF_GM) | _bit(live & ~u_ok, Fault.OUT_OF_UB)
    fault = fault | _bit(live & (dyn["src"] % ub_align != 0), Fault.MISALIGNED)
    ustep = jnp.where(u_ok, ustep, 0)
    gstep = jnp.where(g_ok, gstep, 0)
    run = (fault == 0) & live
    k = jnp.arange(nb, dtype=I32)
    i, p = _rows(k, bl)
    write = run & (k < total)
    data = _gather_bytes(ub, dyn["src"] + i * ustep + p)
    dst_buf = _scatter_bytes(dst_buf, dyn["dst"] + i * gstep + p, data, write)
    return dst_buf, fault


# -- static whole-row moves --------------------------------------------------------------------------
# When every address, count, length and gap of a call is a Python int (what a kernel with fixed
# tiling passes), the fault checks are evaluated here in Python and the data moves as whole rows:
# static slices of the byte buffers (a reshape for strided rows), no per-block or per-byte gather.
# Same bits as the traced path (tests/test_data_copy.py, tests/test_speed_paths.py).


def _static_span_ok(base, step, count, last_len, limit):
    return base >= 0 and base + (count - 1) * step + last_len <= limit


def _read_rows(buf, base, step, count, length):
    """uint8[count, length]: rows ``buf[base + i*step : ... + length]`` (all in range)."""
    if count == 1 or step == length:
        return buf[base : base + count * length].reshape(count, length)
    head = buf[base : base + (count - 1) * step].reshape(count - 1, step)[:, :length]
    last = base + (count - 1) * step
    return jnp.concatenate([head, buf[last : last + length][None]], axis=0)


def _write_rows(buf, base, step, rows):
    """``buf`` with ``rows[i]`` stored at ``base + i*step`` (rows do not overlap: step >= length)."""
    count, length = rows.shape
    if count == 1 or step == length:
        return S.put_span(buf, base, rows.reshape(-1))

    def merge(region):  # the gaps between the rows keep their bytes
        head = region[: (count - 1) * step].reshape(count - 1, step).at[:, :length].set(rows[:-1])
        return jnp.concatenate([head.reshape(-1), rows[-1]])

    return S.update_span(buf, base, (count - 1) * step + length, merge)


def static_copy_fault(
    kind, src, dst, bc, bl, src_gap, dst_gap, *, src_len, dst_len, ub_limit, gm_align, ub_align, zero_policy
):
    """Python twin of ``block_copy``'s fault word for static parameters (``bad`` false, no bucket
    overflow: the bucket is the static size). ``*_len``: byte length of a GM side (None: UB)."""
    if bc == 0 or bl == 0:
        return int(Fault.UNDEFINED) if zero_policy == "fault" else 0
    fault = 0
    for addr, gap, side, n in ((src, src_gap, kind[:2], src_len), (dst, dst_gap, kind[-2:], dst_len)):
        step = (bl + gap) * BLK
        if side == "ub":
            lim, align, oob = ub_limit, ub_align, int(Fault.OUT_OF_UB)
        else:
            lim, align, oob = n, gm_align, int(OUT_OF_GM)
        if not _static_span_ok(addr, step, bc, bl * BLK, lim):
            fault |= oob
        if addr % align:
            fault |= int(Fault.MISALIGNED)
    return fault


def static_block_copy(ub, src_buf, dst_buf, *, kind, src, dst, bc, bl, src_gap, dst_gap):
    """The data movement of a fault-free static DataCopy: ``bc`` rows of ``bl`` blocks. Returns
    (ub, dst_buf)."""
    ub, src_buf, dst_buf = (None if b is None else jnp.asarray(b) for b in (ub, src_buf, dst_buf))
    length = bl * BLK
    data = _read_rows(ub if kind[:2] == "ub" else src_buf, src, (bl + src_gap) * BLK, bc, length)
    if kind[-2:] == "ub":
        return _write_rows(ub, dst, (bl + dst_gap) * BLK, data), dst_buf
    return ub, _write_rows(dst_buf, dst, (bl + dst_gap) * BLK, data)


def static_pad_fault(
    gm2ub, src, dst, bc, bl, src_stride, dst_stride, lb, rb, *, gm_len, ub_limit, ub_align, zero_policy
):
    """Python twin of ``pad_gm2ub`` / ``pad_ub2gm``'s fault word for static parameters (bytes:
    ``bl``, ``lb``, ``rb`` and the GM-side stride; blocks: the UB-side stride)."""
    if bc == 0 or bl == 0:
        return int(Fault.UNDEFINED) if zero_policy == "fault" else 0
    if gm2ub:
        row = -(-(lb + bl + rb) // BLK) * BLK
        g_ok = _static_span_ok(src, bl + src_stride, bc, bl, gm_len)
        u_ok = _static_span_ok(dst, row + dst_stride * BLK, bc, row, ub_limit)
        ub_addr = dst
    else:
        g_ok = _static_span_ok(dst, bl + dst_stride, bc, bl, gm_len)
        u_ok = _static_span_ok(src, -(-bl // BLK) * BLK + src_stride * BLK, bc, bl, ub_limit)
        ub_addr = src
    fault = 0 if g_ok else int(OUT_OF_GM)
    fault |= 0 if u_ok else int(Fault.OUT_OF_UB)
    return fault | (int(Fault.MISALIGNED) if ub_addr % ub_align else 0)


def static_pad_gm2ub(
    ub, src_buf, pad_bytes, *, src, dst, bc, bl, src_stride, dst_stride, lb, rb, is_pad, size
):
    """The data movement of a fault-free static DataCopyPad GM -> UB (rows of ``ceil32(lb+bl+rb)``
    bytes; same padding and dummy-byte rules as ``pad_gm2ub``). ``src_stride >= 0``."""
    ub, src_buf = jnp.asarray(ub), jnp.asarray(src_buf)
    row = -(-(lb + bl + rb) // BLK) * BLK
    ustep = row + dst_stride * BLK
    data = _read_rows(src_buf, src, bl + src_stride, bc, bl)  # [bc, bl]
    if lb == 0 and rb == 0:
        # SPEC: GMToUB DataCopyPad -- without padding the dummy bytes repeat the row's first element
        tail = data[:, np.arange(row - bl) % size]
        out = jnp.concatenate([data, tail], axis=1)
    else:
        pos = np.arange(row)
        if is_pad:
            fill = jnp.broadcast_to(jnp.asarray(pad_bytes)[pos % size], (bc, row))
        else:  # undefined on hardware; the model keeps the old UB bytes
            fill = _read_rows(ub, dst, ustep, bc, row)
        out = jnp.concatenate([fill[:, :lb], data, fill[:, lb + bl :]], axis=1)
    return _write_rows(ub, dst, ustep, out)


def static_pad_ub2gm(ub, dst_buf, *, src, dst, bc, bl, src_stride, dst_stride):
    """The data movement of a fault-free static DataCopyPad UB -> GM."""
    ub, dst_buf = jnp.asarray(ub), jnp.asarray(dst_buf)
    data = _read_rows(ub, src, -(-bl // BLK) * BLK + src_stride * BLK, bc, bl)
    return _write_rows(dst_buf, dst, bl + dst_stride, data)
