"""Static where known: engine entry points and block moves that use the parameters a kernel fixes.

A kernel fixes addresses, strides and repeat counts as Python ints. The API layer keeps such values
as NumPy ints (``i32``, ``i32_stack``) instead of jax arrays; inside ``inline_engines()`` (public:
``ascend_jax.static_params``, opt-in) the engines' jitted entry points (``entry``) run inline, so
those values reach the engine still static: block addresses are then NumPy arrays, ``take_rows`` /
``update_rows`` / ``put_rows`` move the blocks with static slices and the address-only fault checks
are decided at trace time. Everything else -- traced parameters, data, lane activity -- is
unchanged, and outside the context the entry points are the usual one-program-per-signature
``jax.jit``: the same code computes the same bits either way (tests/test_static_paths.py).

``update_span`` / ``put_span`` (used by every static DataCopy store, inline or not) write a UB
span in place: see ``update_span`` for the XLA behaviour they avoid.
"""

import contextlib
import contextvars
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import custom_batching, lax

from .. import _compile

I32 = jnp.int32

_INLINE = contextvars.ContextVar("ascend_jax_inline_engines", default=False)


@contextlib.contextmanager
def inline_engines(on=True):
    """Inside the block the engines' entry points run inline (the caller is tracing a kernel)."""
    tok = _INLINE.set(on)
    try:
        yield
    finally:
        _INLINE.reset(tok)


def entry(fn=None, **jit_kw):
    """``jax.jit(fn, static_argnums=0, **jit_kw)``, except inside ``inline_engines()``, where ``fn``
    runs inline so that static (NumPy) arguments stay static."""
    if fn is None:
        return functools.partial(entry, **jit_kw)
    jit_kw.setdefault("static_argnums", 0)
    jitted = _compile.jit(fn, **jit_kw)  # quick build inside a campaign's quick_compile()

    @functools.wraps(fn)
    def call(*args, **kw):
        if _INLINE.get():
            return fn(*args, **kw)
        return jitted(*args, **kw)

    call.jitted = jitted
    call._cache_size = jitted._cache_size
    call.lower = jitted.lower
    return call


# -- static values -------------------------------------------------------------------------------


def is_static(*xs):
    """Every x is a Python or NumPy integer (or integer array): known at trace time."""
    for x in xs:
        if isinstance(x, bool | np.bool_):
            return False
        if isinstance(x, int | np.integer):
            continue
        if isinstance(x, np.ndarray) and x.dtype.kind in "iu":
            continue
        return False
    return True


def i32(x):
    """``x`` as int32: a NumPy value when it is static, else a jax array."""
    return np.asarray(x, np.int32) if is_static(x) else jnp.asarray(x, I32)


def i32_stack(values):
    """int32[n] of ``values``: a NumPy array when every value is static, else a jax array."""
    if all(is_static(v) for v in values):
        return np.asarray([int(v) for v in values], np.int32)
    return jnp.stack([jnp.asarray(v, I32) for v in values])


def np_or_jnp(*xs):
    """The array module for arithmetic on ``xs``: NumPy when all are static."""
    return np if is_static(*xs) else jnp


# -- static block moves --------------------------------------------------------------------------


def _pattern(idx, nb):
    """How the rows ``idx`` (a NumPy int array, any shape) of a [nb, W] array can be moved with static
    slices: ("run", start, step, n) -- the flattened rows are start + k * step, step >= 1;
    ("grid", start, rep, blk, R, n) -- idx[r, b] = start + r * rep + b * blk with blk >= 1 and
    rep a multiple of blk, at least n * blk (repeats in order, never sharing a row);
    ("bcast", start, blk, R, n) -- the same n rows in every repeat (rep = 0, blk >= 1);
    or None (rows outside [0, nb), or no such shape: the caller gathers with constant indices)."""
    flat = idx.reshape(-1).astype(np.int64)
    if flat.size == 0 or flat.min() < 0 or flat.max() >= nb:
        return None
    if flat.size == 1:
        return ("run", int(flat[0]), 1, 1)
    d = np.diff(flat)
    if np.all(d == d[0]) and d[0] >= 1:
        return ("run", int(flat[0]), int(d[0]), flat.size)
    if idx.ndim < 2:
        return None
    g = idx.reshape(-1, idx.shape[-1]).astype(np.int64)
    R, n = g.shape
    if n < 2 or R < 2:
        return None
    blk = int(g[0, 1] - g[0, 0])
    rep = int(g[1, 0] - g[0, 0])
    want = g[0, 0] + np.arange(R)[:, None] * rep + np.arange(n)[None, :] * blk
    if blk < 1 or not np.array_equal(g, want):
        return None
    if rep == 0:
        return ("bcast", int(g[0, 0]), blk, R, n)
    if rep >= n * blk and rep % blk == 0:
        return ("grid", int(g[0, 0]), rep, blk, R, n)
    return None


def _strided(rows, start, step, n):
    """rows[start : start + (n - 1) * step + 1 : step] as a static strided slice."""
    W = rows.shape[1:]
    return lax.slice(
        rows, (start,) + (0,) * len(W), (start + (n - 1) * step + 1,) + W, (step,) + (1,) * len(W)
    )


def take_rows(rows, idx):
    """rows[idx] for a static index array (rows outside the array read as zero), as static slices
    where the indices allow it."""
    nb = rows.shape[0]
    pat = _pattern(idx, nb)
    out_shape = idx.shape + rows.shape[1:]
    if pat is None:
        ok = (idx >= 0) & (idx < nb)
        got = jnp.take(rows, np.where(ok, idx, 0), axis=0)
        return jnp.where(ok.reshape(ok.shape + (1,) * (rows.ndim - 1)), got, 0)
    kind = pat[0]
    if kind == "run":
        _, start, step, n = pat
        return _strided(rows, start, step, n).reshape(out_shape)
    if kind == "bcast":
        _, start, blk, R, n = pat
        one = _strided(rows, start, blk, n)
        return jnp.broadcast_to(one[None], (R,) + one.shape).reshape(out_shape)
    _, start, rep, blk, R, n = pat
    q = rep // blk  # rows of the step-blk view per repeat
    parts = []
    if R > 1:  # repeats 0..R-2 as one [R-1, q] view of the step-blk rows, their first n kept
        view = _strided(rows, start, blk, (R - 1) * q)
        parts.append(view.reshape((R - 1, q) + rows.shape[1:])[:, :n])
    last = _strided(rows, start + (R - 1) * rep, blk, n)
    parts.append(last[None])
    return jnp.concatenate(parts, axis=0).reshape(out_shape)


def _grid(pat):
    """A "run" or "grid" pattern as (start, rep, blk, R, n): rows start + r * rep + b * blk."""
    if pat[0] == "run":
        _, start, step, n = pat
        return start, n * step, step, 1, n
    return pat[1:]


def _opaque_start(start, ndim):
    """The start index tuple of a row span, its row hidden from constant folding."""
    return (lax.optimization_barrier(jnp.asarray(start, I32)),) + (0,) * (ndim - 1)


def _to_front(x, axis, size):
    """``x`` with its batch axis (``axis``, or None: not batched, broadcast) first."""
    if axis is None:
        return jnp.broadcast_to(x, (size,) + x.shape)
    return jnp.moveaxis(x, axis, 0)


@functools.cache
def _row_slice(length):
    """``f(buf, row)`` = ``buf[row : row + length]`` (``row`` a traced int32 scalar)."""

    def plain(buf, row):
        return lax.dynamic_slice(buf, (row,) + (0,) * (buf.ndim - 1), (length,) + buf.shape[1:])

    take = custom_batching.custom_vmap(plain)

    @take.def_vmap
    def _batched(axis_size, in_batched, buf, row):
        # Under vmap a dynamic slice becomes a gather (JAX's batching rule), a per-element loop in
        # XLA; with the row unbatched it stays one dynamic slice of the batched buffer.
        buf_b, row_b = in_batched
        if row_b:  # (a row per case: JAX's own rule)
            return jax.vmap(plain, in_axes=(0 if buf_b else None, 0))(buf, row), True
        buf = _to_front(buf, 0 if buf_b else None, axis_size)
        start = (0, row) + (0,) * (buf.ndim - 2)
        return lax.dynamic_slice(buf, start, (axis_size, length) + buf.shape[2:]), True

    return take


def _plain_store(buf, data, row):
    return lax.dynamic_update_slice(buf, data, (row,) + (0,) * (buf.ndim - 1))


# ``buf`` with ``data`` stored from row ``row`` (a traced int32 scalar): an update slice
_row_store = custom_batching.custom_vmap(_plain_store)


@_row_store.def_vmap
def _row_store_vmap(axis_size, in_batched, buf, data, row):
    # Under vmap an update slice becomes a scatter (JAX's batching rule), which XLA runs as a
    # per-element loop (and with a constant start, after a copy of the whole buffer); with the row
    # unbatched it stays one in-place update slice of the batched buffer.
    buf_b, data_b, row_b = in_batched
    if row_b:  # (a row per case: JAX's own rule)
        f = jax.vmap(_plain_store, in_axes=(0 if buf_b else None, 0 if data_b else None, 0))
        return f(buf, data, row), True
    buf = _to_front(buf, 0 if buf_b else None, axis_size)
    data = _to_front(data, 0 if data_b else None, axis_size)
    return lax.dynamic_update_slice(buf, data, (0, row) + (0,) * (buf.ndim - 2)), True


def update_span(buf, start, length, fn):
    """``buf`` with rows [start, start + length) (all in range) replaced by ``fn(old rows)``, in place:
    a dynamic slice and a dynamic update slice at the *same* start, hidden from constant folding
    (``optimization_barrier``). With a constant start the read becomes a static slice, and XLA then
    copies the whole buffer before the update (measured ~40 us per case of a 50 KB UB); a plain
    ``.at[a:b].set`` lowers to a bounds-checked scatter that reads the old rows the same way. Under
    ``vmap`` both stay slices of the batched buffer (``_row_slice``, ``_row_store``)."""
    row = _opaque_start(start, 1)[0]
    win = _row_slice(length)(buf, row)
    return _row_store(buf, fn(win).astype(buf.dtype), row)


def put_span(buf, start, data):
    """``buf`` with ``data`` stored from row ``start`` (a Python int, in range), in place: an update
    slice at a start hidden from constant folding (``optimization_barrier``), as ``update_span``.

    With a constant start, XLA either batches the store into a bounds-checked scatter that reads
    the old rows (and copies the whole buffer first: ~40 us per case of a 50 KB UB) or, into a
    freshly zeroed arena, fuses fill and store into one ``pad`` -- a per-byte loop: 16 KB into a
    33 KB arena took 5.4 us per case against 1.2 us for the fill and store apart (a memset and an
    in-place copy; 256 cases, benchmarks/README.md)."""
    return _row_store(buf, jnp.asarray(data).astype(buf.dtype), _opaque_start(start, 1)[0])


def update_rows(rows, idx, fn):
    """``rows`` with the static rows ``idx`` replaced by ``fn(old)`` (``old`` = rows[idx], idx-shaped;
    rows outside the array: old reads zero and the write is dropped). The indices must be distinct
    (``fn`` sees each row once).

    The rows are read and written back as one window: a dynamic slice and a dynamic update slice at
    the *same* start, hidden from constant folding (``optimization_barrier``), so XLA updates the
    UB in place. (With a constant start the slice becomes a static slice, and XLA then copies the
    whole UB before every masked write: measured ~40 us per case of a 50 KB UB.)"""
    nb = rows.shape[0]
    tail = rows.shape[1:]
    pat = _pattern(idx, nb)
    if pat is None or pat[0] == "bcast":  # a scatter with constant indices (rows outside dropped)
        new = fn(take_rows(rows, idx))
        tgt = np.where((idx >= 0) & (idx < nb), idx, nb)
        return (
            jnp.asarray(rows)
            .at[tgt.reshape(-1)]
            .set(new.reshape((-1,) + tail).astype(rows.dtype), mode="drop")
        )
    start, rep, blk, R, n = _grid(pat)
    span = (R - 1) * rep + (n - 1) * blk + 1
    if span == R * n:  # contiguous
        return update_span(
            rows, start, span, lambda win: fn(win.reshape(idx.shape + tail)).reshape(win.shape)
        )
    q = rep // blk

    def merge(win):
        full = jnp.concatenate([win, jnp.zeros((R * rep - span,) + tail, rows.dtype)], axis=0)
        view = full.reshape((R, q, blk) + tail)
        new = fn(view[:, :n, 0].reshape(idx.shape + tail)).reshape((R, n) + tail)
        view = view.at[:, :n, 0].set(new.astype(rows.dtype))
        return view.reshape((R * rep,) + tail)[:span]

    return update_span(rows, start, span, merge)


def put_rows(rows, idx, data, write):
    """``rows`` with ``data`` (idx-shaped rows) written at the static rows ``idx`` where ``write``
    (bool, idx-shaped, may be traced); see ``update_rows``."""
    nb = rows.shape[0]
    pat = _pattern(idx, nb)
    if pat is None or pat[0] == "bcast":  # constant-index scatter; unwritten rows dropped
        tgt = jnp.where(jnp.broadcast_to(write, idx.shape), np.where((idx >= 0) & (idx < nb), idx, nb), nb)
        return (
            jnp.asarray(rows)
            .at[tgt.reshape(-1)]
            .set(data.reshape((-1,) + rows.shape[1:]).astype(rows.dtype), mode="drop")
        )
    wr = jnp.broadcast_to(write, idx.shape).reshape(idx.shape + (1,) * (rows.ndim - 1))
    return update_rows(rows, idx, lambda old: jnp.where(wr, data, old))
