"""A kernel's scalar arguments are Python numbers: inside ``jit_kernel`` they are compile-time
constants, and XLA simplifies float arithmetic with constants (``x + 0.0`` became ``x``, so
-0 + 0 gave -0: fixed in numerics). Every scalar API, over special scalars and special lanes, must
give the bits of the same call with the scalar traced (a kernel parameter) -- the path the
differential suites check against the oracle -- and, for the plain arithmetic, NumPy's IEEE bits."""

import numpy as np
import pytest

import ascend_jax as aj

P = aj.load_profile("ascend910b")
APIS = ("Adds", "Muls", "Maxs", "Mins", "LeakyRelu", "Axpy")
SCALARS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, float("inf"), -float("inf"), float("nan"), "max", 1.0e-40, 6.0e-5]
# "max": the element type's largest finite value (a larger finite scalar is a UsageError for half)


def _lanes(np_t, n):
    """Special values first (both zeros, +-1, infinities, NaN, the smallest normal and subnormal,
    the largest finite), then random normals."""
    fi = np.finfo(np_t)
    special = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, fi.tiny, -fi.tiny, fi.max, -fi.max]
    special += [fi.smallest_subnormal, -fi.smallest_subnormal]
    rest = np.random.default_rng(3).standard_normal(n - len(special)) * 100
    return np.concatenate([np.array(special, np_t), rest.astype(np_t)])


def _kernel(dtype, n, api, scalar, in_place):
    """One call of ``api``: dst apart from src, or in place (dst is src). ``scalar`` None: the
    kernel parameter ``s`` (traced)."""
    T = aj.as_dtype(dtype)

    def kern(k, srcGm, dstGm, **params):
        buf = aj.TBuf(aj.TPosition.VECCALC)
        aj.TPipe(k).InitBuffer(buf, 2 * n * T.itemsize)
        src = buf.Get(T)
        out = src if in_place else src[n]
        k.DataCopy(src, srcGm, n)
        if api == "Axpy" and not in_place:
            k.DataCopy(out, srcGm, n)  # dst_i = scalar * src_i + dst_i
        getattr(k, api)(out, src, params["s"] if scalar is None else scalar, n)
        k.DataCopy(dstGm, out, n)

    return kern


# one small program per (API, scalar, dtype): XLA's simplifications depend on the program's shape
# (the -0 bug did not show when 72 calls shared one program); ~150 compiles: nightly
@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float32", "half"])
@pytest.mark.parametrize("scalar", SCALARS, ids=[repr(s) for s in SCALARS])
@pytest.mark.parametrize("api", APIS)
def test_constant_scalar_gives_the_traced_bits(api, scalar, dtype):
    np_t = np.float32 if dtype == "float32" else np.float16
    n = 256 // np.dtype(np_t).itemsize
    scalar = float(np.finfo(np_t).max) if scalar == "max" else scalar
    src = np.tile(_lanes(np_t, n), (2, 1))
    x, tiny = src[0], np.finfo(np_t).tiny
    for in_place in (False, True):
        with np.errstate(all="ignore"):
            const = aj.jit_kernel(_kernel(dtype, n, api, scalar, in_place), profile=P)(src, 0 * src)
            traced = aj.jit_kernel(_kernel(dtype, n, api, None, in_place), profile=P)(
                src, 0 * src, s=np.full(2, scalar, np_t)
            )
        got = np.asarray(const.gm[1])
        assert np.array_equal(got.view(np.uint8), np.asarray(traced.gm[1]).view(np.uint8)), in_place
        if api in ("Adds", "Muls") and np.isfinite(scalar):
            # NumPy's IEEE bits on normal or zero lanes with normal or zero results (NaN payloads
            # and the profile's subnormal flush aside)
            with np.errstate(all="ignore"):
                want = x + np_t(scalar) if api == "Adds" else x * np_t(scalar)
            ok = np.isfinite(x) & np.isfinite(want)
            ok &= ((np.abs(x) >= tiny) | (x == 0)) & ((np.abs(want) >= tiny) | (want == 0))
            assert np.array_equal(got[0][ok].view(np.uint8), want[ok].view(np.uint8)), in_place
