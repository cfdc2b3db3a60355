"""ops/lean.py (the lean per-case NumPy baseline of `make bench` and `ascend-jax demo`) gives the
ops' golden bits on random inputs (special values included), every configuration, on the default
profile and on every profile that keeps float subnormals. NumPy only: nothing is compiled."""

import inspect

import numpy as np
import pytest

import ascend_jax as aj
import ops
from ops import _golden as G
from ops import lean

PROFILES = [n for n in aj.available_profiles() if aj.load_profile(n).float_subnormals != "flush_to_zero"]


def _call(fn, **kw):
    names = inspect.signature(fn).parameters
    return fn(**{k: v for k, v in kw.items() if k in names})


def test_every_benched_op_has_a_lean_baseline():
    assert set(lean.LEAN) == set(ops.OPS)


@pytest.mark.parametrize("name", sorted(ops.OPS))
def test_lean_matches_golden_bits(name):
    mod, fn = ops.OPS[name], lean.LEAN[name]
    checked = 0
    for pname in PROFILES:
        p = aj.load_profile(pname)
        for k, config in enumerate(mod.CONFIGS):
            if ops.unsupported_reason(p, _call(mod.requirements, profile=p, **config)):
                continue
            rng = np.random.default_rng(k)
            inputs, params = _call(mod.gen_data, rng=rng, batch=64, profile=p, **config)
            kw = dict(inputs=inputs, params=params, profile=p, **config)
            want = _call(mod.golden, **kw)
            want, want_cnt = want if isinstance(want, tuple) else (want, None)
            got, cnt = _call(fn, **kw)
            where = f"{name} {config} on {pname}"
            assert got.dtype == G.bits(np.asarray(want)).dtype, where
            np.testing.assert_array_equal(got, G.bits(np.asarray(want)), err_msg=where)
            if want_cnt is not None:
                np.testing.assert_array_equal(cnt, want_cnt, err_msg=where)
            checked += 1
    assert checked >= len(mod.CONFIGS) // 2  # most configurations run somewhere


def test_flushing_profile_is_refused_not_wrong():
    flush = [n for n in aj.available_profiles() if aj.load_profile(n).float_subnormals == "flush_to_zero"]
    if not flush:
        pytest.skip("no profile flushes float subnormals")
    p = aj.load_profile(flush[0])
    inputs, params = ops.relu.gen_data(np.random.default_rng(0), 4)
    with pytest.raises(NotImplementedError, match="flushes"):
        lean.relu(inputs, params, p, "select")
