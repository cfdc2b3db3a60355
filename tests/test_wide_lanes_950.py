"""64-bit and complex lanes on ascend950 (count prototypes only): Compare / Compares on int64, uint64
and double, Select on int64 / uint64 / complex32 / complex64, ShiftLeft / ShiftRight on int64 / uint64.

Expected values: NumPy's own comparisons and ``np.where`` (independent of both the engine and the
reference), and a differential sample against the reference for every (API, dtype)."""

import numpy as np
import pytest
from conftest import SCALE

import ascend_jax as aj
from ascend_jax.fuzz.families import compare, run_all
from ascend_jax.fuzz.families import compare_select as C
from ascend_jax.fuzz.families import gather_shift as G

P = "ascend950"
N = 64  # two 256-byte repeats of 64-bit T (count must keep 256-byte alignment)

_NP_CMP = {
    aj.CMPMODE.LT: np.less,
    aj.CMPMODE.GT: np.greater,
    aj.CMPMODE.EQ: np.equal,
    aj.CMPMODE.LE: np.less_equal,
    aj.CMPMODE.GE: np.greater_equal,
    aj.CMPMODE.NE: np.not_equal,
}


def _int64_pairs(rng):
    """Values that differ only in the low or only in the high word, and the extremes."""
    base = np.array([0, 1, -1, 2**32, 2**32 - 1, -(2**32), 2**63 - 1, -(2**63), 5, -5], np.int64)
    a = rng.choice(base, N) + rng.integers(-2, 3, N)
    b = np.where(rng.random(N) < 0.3, a, rng.choice(base, N) + rng.integers(-2, 3, N))
    return a.astype(np.int64), b.astype(np.int64)


def _double_pairs(rng):
    sp = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e300]
    )
    a = rng.choice(sp, N)
    b = np.where(rng.random(N) < 0.4, a, rng.choice(sp, N))
    return a, b


def _flush(x):
    """950 reads subnormal inputs as zero of the same sign (profile float_subnormals)."""
    sub = (x != 0) & (np.abs(x) < np.finfo(np.float64).tiny)
    return np.where(sub, np.copysign(0.0, x), x)


def _bits(dst_bytes):
    return np.unpackbits(np.asarray(dst_bytes, np.uint8), bitorder="little").astype(bool)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "float64"])
def test_compare_64bit_matches_numpy(dtype):
    rng = np.random.default_rng(sum(map(ord, dtype)))
    k = aj.Kernel(profile=P)
    d = aj.as_dtype(dtype)
    x, y = k.alloc(d, N), k.alloc(d, N)
    out = k.alloc(aj.uint8, N // 8)
    a, b = _double_pairs(rng) if dtype == "float64" else _int64_pairs(rng)
    if dtype == "uint64":
        a, b = a.view(np.uint64), b.view(np.uint64)
    k.write(x, a)
    k.write(y, b)
    fa, fb = (_flush(a), _flush(b)) if dtype == "float64" else (a, b)
    for mode, fn in _NP_CMP.items():
        k.Compare(out, x, y, mode, N)
        with np.errstate(invalid="ignore"):
            want = fn(fa, fb)
        assert np.array_equal(_bits(k.read(out)), want), (dtype, mode)


def test_compares_double_only_eq():
    k = aj.Kernel(profile=P)
    x, out = k.alloc(aj.float64, N), k.alloc(aj.uint8, N // 8)
    vals = np.array([0.0, -0.0, np.nan, 1.5, -1.5, np.inf, 5e-324, 1.5] * (N // 8))
    k.write(x, vals)
    k.Compares(out, x, 0.0, aj.CMPMODE.EQ, N)  # -0 == +0; the subnormal reads as +0 on 950
    assert np.array_equal(_bits(k.read(out)), (_flush(vals) == 0.0))
    with pytest.raises(aj.UnsupportedError, match=r"Compares: cmpMode='CMPMODE::LT' .*allowed: CMPMODE::EQ"):
        k.Compares(out, x, 0.0, aj.CMPMODE.LT, N)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "complex32", "complex64"])
def test_select_wide_matches_where(dtype):
    rng = np.random.default_rng(len(dtype))
    k = aj.Kernel(profile=P)
    d = aj.as_dtype(dtype)
    n = 256 // d.itemsize * 3  # three repeats
    x, y, z = k.alloc(d, n), k.alloc(d, n), k.alloc(d, n)
    sel = k.alloc(aj.uint8, 64)
    bits_dt = np.dtype(d.bits_dtype)
    a = rng.integers(0, 2**63, n, dtype=np.uint64).astype(bits_dt)
    b = rng.integers(0, 2**63, n, dtype=np.uint64).astype(bits_dt)
    s = rng.integers(0, 256, 64, dtype=np.uint8)
    k.write(x, a.view(d.np_dtype))
    k.write(y, b.view(d.np_dtype))
    k.write(sel, s)
    L = 256 // d.itemsize
    stream = _bits(s)[:n]
    # mode 2: selMask consumed contiguously; mode 0: the first L bits reused every repeat
    k.Select(z, sel, x, y, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, n)
    assert np.array_equal(k.read(z).view(bits_dt), np.where(stream, a, b))
    k.Select(z, sel, x, y, aj.SELMODE.VSEL_CMPMASK_SPR, n)
    assert np.array_equal(k.read(z).view(bits_dt), np.where(np.resize(stream[:L], n), a, b))
    # mode 1: a scalar; complex scalars are Python complex numbers (each part rounded once)
    if d.kind == "complex":
        scalar, part = 1.5 - 2.25j, (np.float16 if dtype == "complex32" else np.float32)
        sb = np.array([scalar.real, scalar.imag], part).view(bits_dt)[0]
    else:
        scalar = -7 if dtype == "int64" else 2**64 - 7
        sb = np.array(scalar % 2**64, np.uint64)
    k.Select(z, sel, x, scalar, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, n)
    assert np.array_equal(k.read(z).view(bits_dt), np.where(stream, a, sb))


@pytest.mark.slow
def test_wide_lanes_differential_sample():
    """Every 64-bit / complex (API, dtype) of the compare/select and shift families on 950 against
    the reference: one mode and one form per (API, dtype) so the sample stays one compile each.
    Nightly only: the default run covers the same groups in the other-profile differentials of
    test_compare_select_differential.py and test_gather_shift_differential.py (ascend950), whose
    batch shape it would compile a second time."""
    p = aj.load_profile(P)
    rng = np.random.default_rng(950)
    wide = {"int64", "uint64", "float64", "complex32", "complex64"}
    seen, cases = set(), []
    for api, dt, mode in C.groups(p):
        if dt in wide and (api, dt) not in seen and api not in ("SetCmpMask", "GetCmpMask"):
            seen.add((api, dt))
            form = C.forms_for(p, api, dt, mode)[0]
            cases += [C.random_case(rng, p, api, dt, mode, form, pick=i) for i in range(60 * SCALE)]
    assert {a for a, _ in seen} >= {"Compare", "Compares", "Select", "SelectFlexible"}
    fast, refs = run_all(cases, p, batch=64)
    bad = [(c.call_repr(), m) for c, f, r in zip(cases, fast, refs, strict=True) if (m := compare(f, r))]
    assert not bad, bad[:3]
    assert sum(int(r.fault) == 0 for r, _ in refs) > len(cases) // 4  # most cases really compute

    shifts = [g for g in G.shift_groups(p) if aj.as_dtype(g[1]).itemsize == 8]
    assert len(shifts) == 8
    scases = [G.random_shift_case(rng, p, api, dt, "count") for api, dt in shifts for _ in range(60 * SCALE)]
    fast, refs = run_all(scases, p, batch=64)
    bad = [(c.call_repr(), m) for c, f, r in zip(scases, fast, refs, strict=True) if (m := compare(f, r))]
    assert not bad, bad[:3]
