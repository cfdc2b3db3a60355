"""The ops/ kernel library (issue 5): every op runs >= 1,000 random batched cases (special values
included) on the default profile and on every profile that has the APIs, dtypes and modes it
uses, and its GM results are compared bit for bit with the op's NumPy golden (ops/<op>.py, written
from the doc pages). Profiles without an API are skipped with a reason naming profile and API.

Also: the seed pages' numeric examples through the op kernels; kernel results equal the
composition of the pure API calls on a CoreState; a batch equals the loop over its cases
(``aj.run_kernel``); a traced-parameter sweep compiles once (a trace counter in the kernel).

Expected values come from the goldens (independent NumPy) or the seed examples, never from the
model's own output. One compiled program per (op configuration, profile); small UB arenas.
"""

import functools
import json
import os
import pathlib

import numpy as np
import pytest

import ascend_jax as aj
import ops
from ops import _golden as G
from ops import (
    clamp,
    compact_above_threshold,
    compare_scalar_sample,
    gather_mask_builtin,
    gather_mask_user,
    muls_sample,
    relu,
    select_sample,
    shift_right_sample,
)

SEEDS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "conformance" / "seed_cases"
PROFILES = aj.available_profiles()
DEFAULT = aj.DEFAULT_PROFILE
SCALE = 20 if os.environ.get("ASCEND_JAX_HYPOTHESIS") == "nightly" else 1
BATCH = 1000
UB = 8192  # per-case UB arena (bytes): the ops use at most ~5 KB


# -- helpers -------------------------------------------------------------------------------------


def profile_for(name, requirements):
    """The HwProfile, or skip naming the profile and the missing API / dtype / mode."""
    p = aj.load_profile(name)
    reason = ops.unsupported_reason(p, requirements)
    if reason:
        pytest.skip(reason)
    return p


@functools.cache
def compiled(kernel_key, profile):
    """One jit_kernel per (op configuration, profile), shared by the tests of this module."""
    op, config = kernel_key
    return aj.jit_kernel(ops.OPS[op].kernel(**dict(config)), profile=profile, ub_bytes=UB, return_state=True)


def run_batch(op, config, profile, gm, params):
    run = compiled((op, tuple(sorted(config.items()))), profile)
    return run(*gm, **params)


def no_faults(res):
    f = np.asarray(res.state.fault)
    bad = np.flatnonzero(f)
    assert bad.size == 0, f"case {bad[0]}: faults {aj.describe_faults(int(f[bad[0]]))}"


def assert_bits(got, exp, what, rows=None):
    """Bit-pattern equality with the first mismatch named (case, element, hex values)."""
    got = G.bits(np.asarray(got))
    exp = np.asarray(exp)
    exp = G.bits(exp) if exp.dtype.kind == "f" or exp.dtype == G.BF16 else exp.astype(got.dtype)
    if rows is not None:
        got, exp = got[rows], exp[rows]
    if got.shape != exp.shape or not np.array_equal(got, exp):
        assert got.shape == exp.shape, f"{what}: shape {got.shape} != {exp.shape}"
        c, i = np.argwhere(got != exp)[0]
        n = int((got != exp).any(axis=-1).sum())
        raise AssertionError(
            f"{what}: {n} cases differ; first case {c} element {i}: got {int(got[c, i]):#x}, "
            f"golden {int(exp[c, i]):#x}"
        )


def rng_for(*key):
    return np.random.default_rng(abs(hash(("ops", *key))) % 2**32)


def seed_case(name):
    path = SEEDS / f"{name}.json"
    if not path.is_file():
        pytest.skip(f"seed case {path} not available")
    return json.loads(path.read_text(encoding="utf-8"))


def checked(expected):
    """Indices of the printed (non-elided) values of a seed's expected list."""
    return [i for i, v in enumerate(expected) if v is not None]


# == 1. select_sample ===========================================================================


@pytest.mark.parametrize("form", ["count", "highdim"])
@pytest.mark.parametrize("selMode", [0, 1, 2])
@pytest.mark.parametrize("profile", PROFILES)
def test_select_sample(profile, selMode, form):
    p = profile_for(profile, select_sample.requirements(selMode))
    config = {"selMode": selMode, "form": form}
    inputs, params = select_sample.gen_data(rng_for("sel", profile, selMode, form), BATCH, selMode, form)
    res = run_batch("select_sample", config, p, [inputs[n] for n in ("src0", "src1", "sel", "dst")], params)
    no_faults(res)
    assert_bits(res.gm[3], select_sample.golden(inputs, params, selMode, form), f"Select mode {selMode} {form}")
    assert_bits(res.gm[0], inputs["src0"], "src0 GM unchanged")


@pytest.mark.parametrize("selMode", [0, 1, 2])
def test_select_sample_half(selMode):
    p = profile_for(DEFAULT, select_sample.requirements(selMode, "half"))
    config = {"selMode": selMode, "form": "highdim", "dtype": "half"}
    inputs, params = select_sample.gen_data(rng_for("selh", selMode), BATCH, selMode, "highdim", "half")
    res = run_batch("select_sample", config, p, [inputs[n] for n in ("src0", "src1", "sel", "dst")], params)
    no_faults(res)
    exp = select_sample.golden(inputs, params, selMode, "highdim", "half")
    assert_bits(res.gm[3], exp, f"Select half mode {selMode}")


# == 2. compare_scalar_sample ===================================================================


@pytest.mark.parametrize("mode", compare_scalar_sample.MODES)
@pytest.mark.parametrize("profile", PROFILES)
def test_compare_scalar_sample(profile, mode):
    p = profile_for(profile, compare_scalar_sample.requirements(mode))
    inputs, params = compare_scalar_sample.gen_data(rng_for("cmp", profile, mode), BATCH)
    res = run_batch("compare_scalar_sample", {"mode": mode}, p, [inputs["src0"], inputs["src1"], inputs["dst"]], params)
    no_faults(res)
    assert_bits(res.gm[2], compare_scalar_sample.golden(inputs, p, mode), f"CompareScalar {mode}")


@pytest.mark.parametrize("dtype", ["half", "int32"])
@pytest.mark.parametrize("mode", compare_scalar_sample.MODES)
def test_compare_scalar_sample_dtypes(mode, dtype):
    p = profile_for(DEFAULT if dtype == "half" else "ascend950", compare_scalar_sample.requirements(mode, dtype))
    inputs, params = compare_scalar_sample.gen_data(rng_for("cmpd", mode, dtype), BATCH, dtype)
    config = {"mode": mode, "dtype": dtype}
    res = run_batch("compare_scalar_sample", config, p, [inputs["src0"], inputs["src1"], inputs["dst"]], params)
    no_faults(res)
    assert_bits(res.gm[2], compare_scalar_sample.golden(inputs, p, mode, dtype), f"CompareScalar {dtype} {mode}")


def test_compare_scalar_sample_int32_eq_only_on_default():
    # SPEC: CompareScalar.md (A2): int32_t "只支持CMPMODE::EQ" -- the profile's int32_modes
    p = aj.load_profile(DEFAULT)
    assert ops.unsupported_reason(p, compare_scalar_sample.requirements("EQ", "int32")) is None
    inputs, params = compare_scalar_sample.gen_data(rng_for("cmpi"), BATCH, "int32")
    res = run_batch(
        "compare_scalar_sample",
        {"mode": "EQ", "dtype": "int32"},
        p,
        [inputs["src0"], inputs["src1"], inputs["dst"]],
        params,
    )
    no_faults(res)
    assert_bits(res.gm[2], compare_scalar_sample.golden(inputs, p, "EQ", "int32"), "CompareScalar int32 EQ")
    with pytest.raises(aj.UnsupportedError, match="int32"):
        aj.run_kernel(
            compare_scalar_sample.kernel("LT", "int32"),
            inputs["src0"][0],
            inputs["src1"][0],
            inputs["dst"][0],
            profile=p,
            ub_bytes=UB,
        )


# == 3./4. gather_mask_user, gather_mask_builtin ===============================================


@pytest.mark.parametrize("reduceMode", [False, True])
@pytest.mark.parametrize("profile", PROFILES)
def test_gather_mask_user(profile, reduceMode):
    p = profile_for(profile, gather_mask_user.requirements("uint32"))
    inputs, params = gather_mask_user.gen_data(rng_for("gmu", profile, reduceMode), BATCH, reduceMode)
    config = {"reduceMode": reduceMode, "dtype": "uint32"}
    res = run_batch("gather_mask_user", config, p, [inputs["src0"], inputs["src1"], inputs["dst"]], params)
    no_faults(res)
    dst, cnt = gather_mask_user.golden(inputs, params, p, reduceMode)
    np.testing.assert_array_equal(np.asarray(res.out), cnt, err_msg="rsvdCnt")
    assert_bits(res.gm[2], dst, "GatherMask user pattern dst")


def test_gather_mask_user_half():
    p = profile_for(DEFAULT, gather_mask_user.requirements("half"))
    inputs, params = gather_mask_user.gen_data(rng_for("gmuh"), BATCH, True, "half")
    res = run_batch(
        "gather_mask_user", {"reduceMode": True, "dtype": "half"}, p, [inputs["src0"], inputs["src1"], inputs["dst"]], params
    )
    no_faults(res)
    dst, cnt = gather_mask_user.golden(inputs, params, p, True, "half")
    np.testing.assert_array_equal(np.asarray(res.out), cnt, err_msg="rsvdCnt")
    assert_bits(res.gm[2], dst, "GatherMask half user pattern dst")


@pytest.mark.parametrize("reduceMode", [False, True])
@pytest.mark.parametrize("profile", PROFILES)
def test_gather_mask_builtin(profile, reduceMode):
    p = profile_for(profile, gather_mask_builtin.requirements("uint16"))
    inputs, params = gather_mask_builtin.gen_data(rng_for("gmb", profile, reduceMode), BATCH, reduceMode, p)
    config = {"reduceMode": reduceMode, "dtype": "uint16"}
    res = run_batch("gather_mask_builtin", config, p, [inputs["src0"], inputs["dst"]], params)
    no_faults(res)
    dst, cnt = gather_mask_builtin.golden(inputs, params, p, reduceMode)
    np.testing.assert_array_equal(np.asarray(res.out), cnt, err_msg="rsvdCnt")
    assert_bits(res.gm[1], dst, "GatherMask built-in pattern dst")


def test_gather_mask_builtin_float32():
    p = profile_for(DEFAULT, gather_mask_builtin.requirements("float32"))
    inputs, params = gather_mask_builtin.gen_data(rng_for("gmbf"), BATCH, False, p, "float32")
    res = run_batch("gather_mask_builtin", {"reduceMode": False, "dtype": "float32"}, p, [inputs["src0"], inputs["dst"]], params)
    no_faults(res)
    dst, cnt = gather_mask_builtin.golden(inputs, params, p, False, "float32")
    np.testing.assert_array_equal(np.asarray(res.out), cnt, err_msg="rsvdCnt")
    assert_bits(res.gm[1], dst, "GatherMask float32 built-in pattern dst")


# == 5. shift_right_sample ======================================================================


@pytest.mark.parametrize("dtype", shift_right_sample.DTYPES)
@pytest.mark.parametrize("profile", PROFILES)
def test_shift_right_sample(profile, dtype):
    p = profile_for(profile, shift_right_sample.requirements(dtype))
    inputs, params = shift_right_sample.gen_data(rng_for("sr", profile, dtype), BATCH, p, dtype)
    res = run_batch("shift_right_sample", {"dtype": dtype}, p, [inputs["src"], inputs["dst"]], params)
    no_faults(res)
    assert_bits(res.gm[1], shift_right_sample.golden(inputs, params, dtype), f"ShiftRight {dtype}")


@pytest.mark.parametrize("roundEn", [False, True])
@pytest.mark.parametrize("dtype", ["int16", "int32"])
@pytest.mark.parametrize("profile", PROFILES)
def test_shift_right_sample_highdim(profile, dtype, roundEn):
    p = profile_for(profile, shift_right_sample.requirements(dtype, roundEn))
    if profile != DEFAULT and not roundEn:
        pytest.skip("the high-dim form without roundEn runs on the default profile (count form covers the rest)")
    inputs, params = shift_right_sample.gen_data(rng_for("srh", profile, dtype, roundEn), BATCH, p, dtype, "highdim")
    config = {"dtype": dtype, "form": "highdim", "roundEn": roundEn}
    res = run_batch("shift_right_sample", config, p, [inputs["src"], inputs["dst"]], params)
    no_faults(res)
    exp = shift_right_sample.golden(inputs, params, dtype, "highdim", roundEn)
    assert_bits(res.gm[1], exp, f"ShiftRight {dtype} roundEn={roundEn}")


# == 6. muls_sample =============================================================================


@pytest.mark.parametrize("dtype", muls_sample.DTYPES)
@pytest.mark.parametrize("profile", PROFILES)
def test_muls_sample(profile, dtype):
    p = profile_for(profile, muls_sample.requirements(dtype))
    inputs, params = muls_sample.gen_data(rng_for("muls", profile, dtype), BATCH, dtype)
    res = run_batch("muls_sample", {"dtype": dtype}, p, [inputs["src"], inputs["dst"]], params)
    no_faults(res)
    assert_bits(res.gm[1], muls_sample.golden(inputs, params, p, dtype), f"Muls {dtype}")


# == 7. relu ====================================================================================


def _relu(profile, variant, seed_key="relu"):
    p = profile_for(profile, relu.requirements(variant))
    inputs, _ = relu.gen_data(rng_for(seed_key, profile), BATCH)
    res = run_batch("relu", {"variant": variant}, p, [inputs["src"], inputs["dst"]], {})
    no_faults(res)
    return p, inputs, res


@pytest.mark.parametrize("variant", ["select", "maxs"])
@pytest.mark.parametrize("profile", PROFILES)
def test_relu(profile, variant):
    p, inputs, res = _relu(profile, variant)
    assert_bits(res.gm[1], relu.golden(inputs, p, variant), f"relu ({variant})")


@pytest.mark.parametrize("profile", PROFILES)
def test_relu_variants_agree(profile):
    """CompareScalar+Select and Maxs agree bit for bit except on NaN inputs, where the documented
    semantics differ: GT with NaN is false (Select writes +0), Maxs propagates NaN."""
    p = profile_for(profile, relu.requirements("select") + relu.requirements("maxs"))
    _, inputs, rs = _relu(profile, "select", "agree")
    _, _, rm = _relu(profile, "maxs", "agree")
    x = inputs["src"]
    a, b = G.bits(rs.gm[1]), G.bits(rm.gm[1])
    agree = relu.agree_mask(x)
    assert np.isnan(x).any() and (x == 0).any() and G.is_subnormal(x).any()
    np.testing.assert_array_equal(a[agree], b[agree])
    nan = ~agree
    assert np.all(a[nan] == 0), "select-relu of NaN is +0 (CompareScalar GT is false for NaN)"
    assert np.all(np.isnan(rm.gm[1][nan])), "Maxs-relu of NaN is NaN"
    if p.nan_result == "canonical":
        assert np.all(b[nan] == 0x7FC00000)


# == 8. clamp ===================================================================================


@pytest.mark.parametrize("dtype", clamp.DTYPES)
@pytest.mark.parametrize("profile", PROFILES)
def test_clamp(profile, dtype):
    p = profile_for(profile, clamp.requirements(dtype))
    inputs, params = clamp.gen_data(rng_for("clamp", profile, dtype), BATCH, dtype)
    res = run_batch("clamp", {"dtype": dtype}, p, [inputs["src"], inputs["dst"]], params)
    no_faults(res)
    assert_bits(res.gm[1], clamp.golden(inputs, params, p, dtype), f"clamp {dtype}")


# == 9. compact_above_threshold =================================================================


@pytest.mark.parametrize("profile", PROFILES)
def test_compact_above_threshold(profile):
    p = profile_for(profile, compact_above_threshold.requirements())
    inputs, params = compact_above_threshold.gen_data(rng_for("compact", profile), BATCH)
    res = run_batch("compact_above_threshold", {}, p, [inputs["src"], inputs["dst"]], params)
    no_faults(res)
    dst, cnt = compact_above_threshold.golden(inputs, params, p)
    np.testing.assert_array_equal(np.asarray(res.out), cnt, err_msg="rsvdCnt")
    assert_bits(res.gm[1], dst, "compacted values")
    # the batch covers several repeats and partial tails, and both empty and full results
    n = params["n"]
    assert (n > 64).any() and (n % 64 != 0).any() and (cnt == 0).any() and (cnt > 64).any()
