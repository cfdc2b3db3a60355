"""aj.sweep: one trace for the whole grid; results equal a loop of single runs and values computed
independently with NumPy; axis labels and .sel."""

import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax.kernel import run_kernel
from ascend_jax.sweep import SweepResult, sweep

P = "ascend910b"


def muls_kernel(k, scale, n, off):
    x = k.alloc(aj.int16, 512)
    y = k.alloc(aj.int16, 512)
    k.write(x, jnp.arange(512, dtype=jnp.int16) * 97)
    k.Muls(y, x[off], scale, n)  # count form, traced scale / count / address offset
    return k.read(y)


def _expected(scale, n, off):
    x = (np.arange(512, dtype=np.int64) * 97).astype(np.int16).astype(np.int64)
    y = np.zeros(512, np.int64)
    src = np.concatenate([x[off:], np.zeros(off, np.int64)])
    y[:n] = src[:n] * scale  # int16 wraps (two's complement; MODEL.md Numerics)
    return y.astype(np.int16)


def test_sweep_matches_numpy_and_a_loop_of_runs_with_one_trace():
    axes = dict(scale=[1, 3, -2], n=[64, 200], off=[0, 16, 2])
    r = sweep(muls_kernel, profile=P, **axes)
    assert isinstance(r, SweepResult)
    assert r.traces == 1
    assert r.dims == ("scale", "n", "off") and r.shape == (3, 2, 3)
    assert r.out.shape == (3, 2, 3, 512) and r.faults.shape == (3, 2, 3)
    for coords, flat in r.points():
        idx = np.unravel_index(flat, r.shape)
        got = r.out[idx]
        if coords["off"] % 16:  # 2 int16 = 4 bytes: not 32-byte aligned -> suppressed call
            assert r.faults[idx] == aj.Fault.MISALIGNED
            assert (got == 0).all()
        else:
            assert r.faults[idx] == 0
            np.testing.assert_array_equal(got, _expected(**coords))
    # a loop of single eager runs gives the same numbers
    for coords in ({"scale": 3, "n": 200, "off": 16}, {"scale": -2, "n": 64, "off": 2}):
        one = run_kernel(muls_kernel, profile=P, fault_policy="record", return_state=True, **coords)
        np.testing.assert_array_equal(r.sel(**coords).out, one.out)
        assert r.sel(**coords).faults == int(np.asarray(one.state.fault))
    sub = r.sel(scale=3, off=0)
    assert sub.dims == ("n",) and sub.out.shape == (2, 512)
    np.testing.assert_array_equal(sub.out[1], _expected(3, 200, 0))
    with pytest.raises(KeyError, match="not on the grid"):
        r.sel(scale=5)
    with pytest.raises(KeyError, match="no axis"):
        r.sel(width=1)
    assert "traces=1" in repr(r) and "SweepResult" in r._repr_html_()


def gm_kernel(k, g, scale):
    x = k.alloc(aj.float32, 64)
    k.DataCopy(x, g, 64)
    k.Muls(x, x, scale, 64)
    k.DataCopy(g, x, 64)


def test_sweep_with_gm_arrays():
    g0 = np.linspace(-4, 4, 64, dtype=np.float32)
    r = sweep(gm_kernel, profile=P, gm=(g0,), scale=[0.5, 2.0, -3.0])
    assert r.traces == 1 and len(r.gm) == 1 and r.gm[0].shape == (3, 64)
    for i, s in enumerate([0.5, 2.0, -3.0]):
        np.testing.assert_array_equal(r.gm[0][i], g0 * np.float32(s))  # exact: one rounding
        one = run_kernel(gm_kernel, g0, profile=P, scale=s)
        np.testing.assert_array_equal(r.sel(scale=s).gm[0], one.gm[0])
    with pytest.raises(ValueError, match="1-D"):
        sweep(gm_kernel, gm=(g0,), scale=[[1.0]])
