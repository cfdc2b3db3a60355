"""Static where known: the block moves a kernel's fixed parameters allow (``_engine/static.py``)
give the bits of the generic gather/scatter, and every fuzz family's APIs called with static
arguments inside a kernel trace (``inline_engines``) give the oracle's bits."""

import dataclasses

import numpy as np
import pytest
from conftest import SCALE

import ascend_jax as aj
from ascend_jax._engine import static as S
from ascend_jax.errors import Fault
from ascend_jax.fuzz.families import FAMILIES
from ascend_jax.profile import as_profile

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


# -- every family, parameters static, against the oracle ------------------------------------------
# ``aj.static_params()`` (opt-in; ``jit_kernel`` does not turn it on, see benchmarks/README.md): the
# engines run inline, so arguments given as Python ints stay static -- the data move with static
# slices and the address-only fault checks are decided at trace time. The element functions are the
# traced path's, so the default run takes one case of one API per engine core (strided, binary,
# bit output, compaction, copy, gather; one program per case) and the nightly run every API of
# every family on three profiles.
# Counter mode is left out (mask_mode 0): a static call without ``max_repeats`` sizes its bucket from
# its own arguments, as ``Kernel`` does from the SetVectorMask it saw (the fuzz cases leave that to
# the traced bucket), so a Counter-mode case would only show BUCKET_OVERFLOW.

_FAMILY = {f.name: f for f in FAMILIES}
DEFAULT_APIS = [
    ("unary_scalar", "Adds"),
    ("compare_select", "Select"),
    ("compare_select", "Compare"),
    ("gather_mask", "GatherMask"),
    ("data_copy", "DataCopy"),
    ("gather_scatter", "Gather"),
]
# the register family runs eagerly by design (no engine program)
ALL_APIS = [(f.name, a) for f in FAMILIES if f.batched for a in f.apis]
CASES = SCALE


def _static_vs_reference(fam, api, profile, n, seed):
    """Draw cases until ``n`` ran with static parameters and matched the oracle (at most 4n drawn)."""
    p = as_profile(profile)
    units = fam.units(p, api)
    if not units:
        pytest.skip(f"{api} is not on {profile}")
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(4 * n):
        case = fam.generate(rng, p, units[rng.integers(len(units))], 0.3)
        if hasattr(case, "mask_mode"):
            case = dataclasses.replace(case, mask_mode=0)
        ref = fam.run_reference(case, p)
        try:
            fast = fam.run_static(case, p)
        except aj.UsageError:
            # a value the traced path flags as a data fault (a parameter out of range, a GM access
            # past its array) is a trace-time error when static
            assert int(ref[0].fault) & int(Fault.BAD_PARAM | Fault.OUT_OF_GM), fam.call_text(case)
            continue
        msg = fam.compare(fast, ref)
        assert msg is None, f"{fam.call_text(case)}: {msg}"
        checked += 1
        if checked == n:
            break
    assert checked == n, f"only {checked} of {n} cases ran with static parameters"


@pytest.mark.parametrize("family,api", DEFAULT_APIS, ids=[f"{f}-{a}" for f, a in DEFAULT_APIS])
def test_static_parameters_give_the_oracle_bits(family, api):
    _static_vs_reference(_FAMILY[family], api, "ascend910b", CASES, seed=sum(map(ord, api)))


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["ascend910b", "ascend950", "ascend310p"])
@pytest.mark.parametrize("family,api", ALL_APIS, ids=[f"{f}-{a}" for f, a in ALL_APIS])
def test_static_parameters_every_api_nightly(family, api, profile):
    _static_vs_reference(_FAMILY[family], api, profile, 5, seed=7)


def test_span_moves_under_vmap_equal_per_case():
    """``update_span`` / ``put_span`` batch as one slice of the batched buffer (``custom_vmap``):
    the same rows as the unbatched op case by case, for a batched or shared ``data``, and with a
    row per case (JAX's own rule)."""
    import jax
    import jax.numpy as jnp

    buf = jnp.arange(40, dtype=jnp.uint8).reshape(20, 2)
    rows = jnp.stack([buf, buf + 100])

    def upd(b):
        return S.update_span(b, 3, 4, lambda w: w + 1)

    want = np.stack([np.asarray(upd(rows[i])) for i in range(2)])
    np.testing.assert_array_equal(np.asarray(jax.jit(jax.vmap(upd))(rows)), want)
    assert not np.array_equal(want[0], np.asarray(buf))  # the span did change

    data = jnp.ones((2, 3, 2), jnp.uint8) * jnp.array([7, 9], jnp.uint8)[:, None, None]

    def put(b, d):
        return S.put_span(b, 5, d)

    want = np.stack([np.asarray(put(rows[i], data[i])) for i in range(2)])
    np.testing.assert_array_equal(np.asarray(jax.vmap(put)(rows, data)), want)
    want = np.stack([np.asarray(put(rows[i], data[0])) for i in range(2)])
    np.testing.assert_array_equal(np.asarray(jax.vmap(put, in_axes=(0, None))(rows, data[0])), want)

    r = jnp.array([1, 6])

    def store(b, row):
        return S._row_store(b, jnp.zeros((2, 2), jnp.uint8), row)

    def take(b, row):
        return S._row_slice(3)(b, row)

    for f in (store, take):
        want = np.stack([np.asarray(f(rows[i], r[i])) for i in range(2)])
        np.testing.assert_array_equal(np.asarray(jax.vmap(f)(rows, r)), want)
