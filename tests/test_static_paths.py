"""Static where known: the block moves a kernel's fixed parameters allow (``_engine/static.py``)
give the bits of the generic gather/scatter, and every fuzz family's APIs called with static
arguments inside a kernel trace (``inline_engines``) give the oracle's bits."""

import numpy as np
import pytest

from ascend_jax._engine import static as S

NB, W = 64, 4  # rows of a small test buffer, bytes per row


def _rows(seed):
    return np.random.default_rng(seed).integers(0, 256, (NB, W), dtype=np.uint8)


# (name, index array): every pattern kind of static._pattern, plus rows outside the buffer
PATTERNS = [
    ("one row", np.array([[5]])),
    ("contiguous", np.arange(8, 24).reshape(2, 8)),
    ("uniform stride", (3 + 3 * np.arange(16)).reshape(2, 8)),
    ("grid", 2 + 20 * np.arange(3)[:, None] + np.arange(8)[None, :]),
    ("grid, strided blocks", 1 + 18 * np.arange(3)[:, None] + 2 * np.arange(8)[None, :]),
    ("grid, last repeat at the end", 40 + 8 * np.arange(3)[:, None] + np.arange(8)[None, :] // 1),
    ("broadcast", np.broadcast_to(7 + np.arange(8)[None, :], (3, 8)).copy()),
    ("irregular", np.array([[3, 1, 4, 15, 9, 2, 6, 53]])),
    ("overlapping repeats", 4 * np.arange(4)[:, None] + np.arange(8)[None, :]),
    ("outside", np.array([[60, 61, 62, 63, 64, 65, -1, 0]])),
]


def _expected_take(rows, idx):
    ok = (idx >= 0) & (idx < NB)
    return np.where(ok[..., None], rows[np.where(ok, idx, 0)], 0)


@pytest.mark.parametrize("name,idx", PATTERNS, ids=[p[0] for p in PATTERNS])
def test_take_rows_reads_the_indexed_rows(name, idx):
    rows = _rows(1)
    got = np.asarray(S.take_rows(rows, idx))
    assert np.array_equal(got, _expected_take(rows, idx)), name


@pytest.mark.parametrize("name,idx", PATTERNS, ids=[p[0] for p in PATTERNS])
def test_put_rows_writes_where_asked(name, idx):
    rng = np.random.default_rng(2)
    rows = _rows(3)
    flat = idx.reshape(-1)
    # duplicated rows carry the same data (the contract of the scatter put_rows replaces)
    per_row = rng.integers(0, 256, (NB + 2, W), dtype=np.uint8)
    data = per_row[np.clip(flat, 0, NB + 1)].reshape(idx.shape + (W,))
    write = rng.random(idx.shape) < 0.7
    if name == "broadcast":  # a row written by one repeat is written by all (same data)
        write = np.broadcast_to(write[:1], idx.shape)
    want = rows.copy()
    for i, w, d in zip(flat, write.reshape(-1), data.reshape(-1, W), strict=True):
        if w and 0 <= i < NB:
            want[i] = d
    got = np.asarray(S.put_rows(rows, idx, data, write))
    assert np.array_equal(got, want), name


@pytest.mark.parametrize("name,idx", [p for p in PATTERNS if np.unique(p[1]).size == p[1].size])
def test_update_rows_applies_fn_to_distinct_rows(name, idx):
    rows = _rows(4)
    want = rows.copy()
    flat = idx.reshape(-1)
    ok = (flat >= 0) & (flat < NB)
    want[flat[ok]] = (rows[flat[ok]] ^ np.uint8(0x5A)) + np.uint8(1)
    got = np.asarray(S.update_rows(rows, idx, lambda old: (old ^ np.uint8(0x5A)) + np.uint8(1)))
    assert np.array_equal(got, want), name


def test_static_values_stay_numpy():
    assert S.is_static(3, np.int32(4), np.arange(3))
    assert not S.is_static(True) and not S.is_static(np.float32(1.0))
    assert isinstance(S.i32(7), np.ndarray) and isinstance(S.i32_stack([1, 2, np.int64(3)]), np.ndarray)
    import jax.numpy as jnp

    assert not isinstance(S.i32_stack([1, jnp.int32(2)]), np.ndarray)
