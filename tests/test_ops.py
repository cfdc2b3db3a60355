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
import pathlib
import zlib

import numpy as np
import pytest
from conftest import is_twin

import ascend_jax as aj
import ops
from ops import _golden as G
from ops import (
    compact_above_threshold,
    compare_scalar_sample,
    relu,
    select_sample,
)

SEEDS = pathlib.Path(__file__).resolve().parent / "data" / "seed_cases"  # numbers from ../shared/conformance
PROFILES = aj.available_profiles()
DEFAULT = aj.DEFAULT_PROFILE
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


STEP = 64  # cases per loop step: BATCH runs in steps (the default for a large batch on CPU),
# the last one overlapping the one before it (1000 = 15 x 64 + 40)


@functools.cache
def compiled(kernel_key, profile):
    """One jit_kernel per (op configuration, profile), shared by the tests of this module."""
    op, config = kernel_key
    kern = ops.OPS[op].kernel(**dict(config))
    return aj.jit_kernel(kern, profile=profile, ub_bytes=UB, return_state=True, step=STEP)


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
    """A generator seeded from the test's key (stable across processes, unlike hash())."""
    return np.random.default_rng(zlib.crc32(repr(("ops", *key)).encode()))


def seed_case(name):
    path = SEEDS / f"{name}.json"
    if not path.is_file():
        pytest.skip(f"seed case {path} not available")
    return json.loads(path.read_text(encoding="utf-8"))


def checked(expected):
    """Indices of the printed (non-elided) values of a seed's expected list."""
    return [i for i, v in enumerate(expected) if v is not None]


# == the op matrix ===============================================================================


def _matrix():
    """(op, profile, config) params: the op's FAST configs on the default profile; on every other
    profile, not a behaviour twin, of one residue with the op (op index + profile index divisible by
    3: each product runs about a third of the ops, each op about a third of the products) one
    supported config, rotating through the op's
    CONFIGS so the configurations spread over the products; every other supported (config,
    profile) pair runs behind ``slow`` (nightly). One skip per profile without the op's APIs,
    naming what is missing."""
    out = []
    for oi, (name, mod) in enumerate(ops.OPS.items()):
        for pi, prof in enumerate(PROFILES):
            p = aj.load_profile(prof)
            ok = [c for c in mod.CONFIGS if ops.unsupported_reason(p, mod.requirements(**c)) is None]
            if not ok:
                out.append(pytest.param(name, prof, mod.CONFIGS[0], id=f"{name}-{prof}"))
                continue
            if prof == DEFAULT:
                fast = [mod.CONFIGS[i] for i in mod.FAST]
            else:
                fast = [ok[pi % len(ok)]] if (oi + pi) % 3 == 0 and not is_twin(prof) else []
            for c in ok:
                cid = f"{name}-{prof}-" + "-".join(str(v) for v in c.values())
                marks = () if c in fast else (pytest.mark.slow,)
                out.append(pytest.param(name, prof, c, id=cid, marks=marks))
    return out


def check_op(name, profile, config, batch, seed=0):
    mod = ops.OPS[name]
    p = profile_for(profile, mod.requirements(**config))
    gm, params, exp = mod.gen_case(rng_for(name, profile, tuple(config.items()), seed), batch, p, **config)
    res = run_batch(name, config, p, gm, params)
    no_faults(res)
    for i, bits in exp["gm"].items():
        assert_bits(res.gm[i], bits, f"{name} {config} on {profile}: GM buffer {i}")
    if "out" in exp:
        np.testing.assert_array_equal(
            np.asarray(res.out), exp["out"], err_msg=f"{name} {config}: kernel result"
        )
    return gm, params, res


@pytest.mark.parametrize("name, profile, config", _matrix())
def test_op_matches_golden(name, profile, config):
    """>= 1,000 random cases (special values included) in one batched program vs the NumPy golden."""
    check_op(name, profile, config, BATCH)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(ops.OPS))
def test_op_large_batch(name):
    """Nightly: 20,000 more cases per op configuration on the default profile."""
    mod = ops.OPS[name]
    p = aj.load_profile(DEFAULT)
    for config in mod.CONFIGS:
        if ops.unsupported_reason(p, mod.requirements(**config)) is None:
            for seed in range(1, 21):
                check_op(name, DEFAULT, config, BATCH, seed)


def test_every_op_runs_on_the_default_profile_and_lists_its_configs():
    p = aj.load_profile(DEFAULT)
    for name, mod in ops.OPS.items():
        assert mod.CONFIGS, name
        assert ops.unsupported_reason(p, mod.requirements(**mod.CONFIGS[0])) is None, name


def test_int32_compare_scalar_other_modes_unsupported_on_default():
    # SPEC: CompareScalar.md (A2): int32_t "只支持CMPMODE::EQ" (the profile's apis.CompareScalar.int32_modes)
    p = aj.load_profile(DEFAULT)
    assert "only EQ" in ops.unsupported_reason(p, compare_scalar_sample.requirements("LT", "int32"))
    gm, _, _ = compare_scalar_sample.gen_case(rng_for("i32"), 1, p, "LT", "int32")
    with pytest.raises(aj.UnsupportedError, match="int32"):
        aj.run_kernel(
            compare_scalar_sample.kernel("LT", "int32"), *(a[0] for a in gm), profile=p, ub_bytes=UB
        )


# == relu: the two variants agree (except where the docs make them differ) ======================


@pytest.mark.parametrize("profile", [DEFAULT, "ascend950"])
def test_relu_variants_agree(profile):
    """CompareScalar+Select and Maxs agree bit for bit except on NaN inputs, where the documented
    semantics differ: GT with a NaN operand is false (Select writes +0), Maxs propagates NaN
    (canonical NaN). -0, subnormals (flushed on 950) and infinities agree."""
    p = profile_for(profile, relu.requirements("select") + relu.requirements("maxs"))
    gm, _, _ = relu.gen_case(rng_for("agree", profile), BATCH, p)
    sel = run_batch("relu", {"variant": "select", "dtype": "float32"}, p, gm, {})
    mx = run_batch("relu", {"variant": "maxs", "dtype": "float32"}, p, gm, {})
    no_faults(sel)
    no_faults(mx)
    x = gm[0]
    a, b = G.bits(sel.gm[1]), G.bits(mx.gm[1])
    agree = relu.agree_mask(x)
    assert np.isnan(x).any() and (x == 0).any() and np.signbit(x[x == 0]).any() and G.is_subnormal(x).any()
    np.testing.assert_array_equal(a[agree], b[agree])
    nan = ~agree
    assert np.all(a[nan] == 0), "select-relu of NaN is +0 (CompareScalar GT is false for NaN)"
    assert np.all(np.isnan(mx.gm[1][nan])), "Maxs-relu of NaN is NaN"
    if p.nan_result == "canonical":
        assert np.all(b[nan] == 0x7FC00000)


# == the seed pages' numeric examples through the op kernels ====================================
# Case 0 of a random batch is replaced by the seed's example (same shapes: the compiled program of
# the matrix test is reused); case 0 must equal the printed result, the rest their golden.


def _with_seed(name, config, place):
    p = aj.load_profile(DEFAULT)
    mod = ops.OPS[name]
    gm, params, _ = mod.gen_case(rng_for("seed", name, tuple(config.items())), BATCH, p, **config)
    gm = [np.array(a) for a in gm]
    params = {k: np.array(v) for k, v in params.items()}
    place(gm, params)
    res = run_batch(name, config, p, gm, params)
    no_faults(res)
    return gm, params, res


def _pad(values, n, dtype):
    """The seed's values (unprinted entries, None, as 0) padded with zeros to ``n``."""
    out = np.zeros(n, dtype)
    out[: len(values)] = np.asarray([0 if v is None else v for v in values], dtype)
    return out


@pytest.mark.parametrize("seed_id", ["Select_1", "Select_2", "Select_3", "Select_4"])
def test_seed_select_examples(seed_id):
    d = seed_case(seed_id)
    prm, inp = d["params"], d["inputs"]
    config = {
        "selMode": prm["selMode"],
        "form": "count" if prm["mode"] == "count" else "highdim",
        "dtype": "float32",
    }

    def place(gm, params):
        gm[0][0] = _pad(inp["src0"], 256, np.float32)
        gm[1][0] = _pad(inp.get("src1", []), 256, np.float32)
        gm[2][0] = _pad(inp["selMask"], gm[2].shape[1], np.uint8)
        gm[3][0] = _pad(inp.get("dst_init", []), 256, np.float32)
        if "scalar" in params:
            params["scalar"][0] = prm["scalar"]
        if config["form"] == "count":
            params["count"][0] = prm["count"]
        else:
            m = prm["mask"]
            word = (1 << m) - 1 if isinstance(m, int) else m[0]  # continuous n == the low n bits
            params["mask"][0] = [word & 0xFFFFFFFF, word >> 32]
            params["repeatTimes"][0] = prm["repeatTimes"]

    gm, params, res = _with_seed("select_sample", config, place)
    exp = d["expected"]["dst"]
    ok = checked(exp)[: prm.get("n_checked", len(exp))]
    assert_bits(res.gm[3][0:1, ok], np.array([[exp[i] for i in ok]], np.float32), seed_id)
    golden = select_sample.golden({n: gm[i] for i, n in enumerate(select_sample.GM)}, params, **config)
    assert_bits(res.gm[3][1:], golden[1:], f"{seed_id} batch")


def test_seed_compare_scalar_example():
    d = seed_case("Compares_1")

    def place(gm, params):
        gm[0][0] = np.asarray(d["inputs"]["src0"], np.float32)
        gm[1][0] = np.asarray(d["inputs"]["src1Scalar"], np.float32)

    _, _, res = _with_seed("compare_scalar_sample", {"mode": "LT", "dtype": "float32"}, place)
    np.testing.assert_array_equal(res.gm[2][0], np.asarray(d["expected"]["dst"], np.uint8))


def test_seed_gather_mask_builtin_example():
    d = seed_case("GatherMask_2")

    def place(gm, params):
        gm[0][0] = _pad(d["inputs"]["src0"], gm[0].shape[1], np.uint16)
        g = d["params"]["gatherMaskParams"]
        params["src1Pattern"][0] = d["params"]["src1Pattern"]
        params["mask"][0] = d["params"]["mask"]
        for f in ("src0BlockStride", "repeatTimes", "src0RepeatStride", "src1RepeatStride"):
            params[f][0] = g[f]

    _, _, res = _with_seed("gather_mask_builtin", {"reduceMode": False, "dtype": "uint16"}, place)
    exp = d["expected"]["dst"]
    ok = checked(exp)
    np.testing.assert_array_equal(res.gm[1][0][ok], np.asarray([exp[i] for i in ok], np.uint16))
    assert [int(np.asarray(res.out)[0])] == d["expected"]["rsvdCnt"] == [64]


@pytest.mark.parametrize("seed_id, name", [("Muls_1", "muls_sample"), ("ShiftRight_1", "shift_right_sample")])
def test_seed_int16_count_examples(seed_id, name):
    d = seed_case(seed_id)
    config = ops.OPS[name].CONFIGS[0]
    assert config["dtype"] == "int16"

    def place(gm, params):
        gm[0][0] = np.asarray(d["inputs"]["src"], np.int16)
        params["scalarValue"][0] = d["params"]["scalar"]
        params["count"][0] = d["params"]["count"]

    _, _, res = _with_seed(name, config, place)
    exp = d["expected"]["dst"]
    ok = checked(exp)
    np.testing.assert_array_equal(res.gm[1][0][ok], np.asarray([exp[i] for i in ok], np.int16))


# == kernel == composition of the pure API calls ================================================


def _ub_with(profile, placements):
    ub = np.zeros(UB, np.uint8)
    for addr, arr in placements:
        raw = np.ascontiguousarray(arr).view(np.uint8).reshape(-1)
        ub[addr : addr + raw.size] = raw
    return aj.reset_state(profile, ub=ub)


def _read(state, t):
    return np.asarray(state.ub[t.addr : t.addr + t.nbytes]).view(t.dtype.np_dtype)


def test_select_kernel_equals_pure_calls():
    """KernelSelect mode 1 (count form) == aj.Select on a CoreState holding the same data."""
    p = aj.load_profile(DEFAULT)
    config = {"selMode": 1, "form": "count", "dtype": "float32"}
    gm, params, res = check_op("select_sample", DEFAULT, config, BATCH)
    F32 = aj.float32
    src0, sel, dst = (
        aj.LocalTensor(F32, 0, 256),
        aj.LocalTensor(aj.uint8, 1024, 32),
        aj.LocalTensor(F32, 2048, 256),
    )
    for c in (0, 1, 2):
        st = _ub_with(p, [(0, gm[0][c]), (1024, gm[2][c]), (2048, gm[3][c])])
        st = aj.Select(
            st,
            dst,
            sel,
            src0,
            params["scalar"][c],
            aj.SELMODE.VSEL_TENSOR_SCALAR_MODE,
            int(params["count"][c]),
            profile=p,
        )
        assert int(st.fault) == 0
        assert_bits(res.gm[3][c : c + 1], _read(st, dst)[None], f"case {c}")


def test_relu_kernel_equals_pure_calls():
    """relu (CompareScalar GT 0 -> Select mode 1) == the two pure calls in sequence."""
    p = aj.load_profile(DEFAULT)
    gm, _, res = check_op("relu", DEFAULT, {"variant": "select", "dtype": "float32"}, BATCH)
    F32 = aj.float32
    src, bits, dst = (
        aj.LocalTensor(F32, 0, 256),
        aj.LocalTensor(aj.uint8, 1024, 32),
        aj.LocalTensor(F32, 2048, 256),
    )
    for c in (0, 1, 2):
        st = _ub_with(p, [(0, gm[0][c])])
        st = aj.CompareScalar(st, bits, src, 0.0, aj.CMPMODE.GT, 256, profile=p)
        st = aj.Select(st, dst, bits, src, 0.0, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, 256, profile=p)
        assert int(st.fault) == 0
        assert_bits(res.gm[1][c : c + 1], _read(st, dst)[None], f"case {c}")


def test_compact_kernel_equals_pure_calls():
    """compact_above_threshold (configuration 1) == CompareScalar then GatherMask on a CoreState."""
    p = aj.load_profile(DEFAULT)
    assert p.api("GatherMask").counter_config == 1
    gm, params, res = check_op("compact_above_threshold", DEFAULT, {"dtype": "float32"}, BATCH)
    F32 = aj.float32
    src, bits, dst = (
        aj.LocalTensor(F32, 0, 512),
        aj.LocalTensor(aj.uint8, 2048, 64),
        aj.LocalTensor(F32, 4096, 512),
    )
    for c in (0, 1, 2):
        st = _ub_with(p, [(0, gm[0][c]), (4096, gm[1][c])])
        st = aj.CompareScalar(st, bits, src, params["threshold"][c], aj.CMPMODE.GT, 512, profile=p)
        st, cnt = aj.GatherMask(
            st,
            dst,
            src,
            bits.ReinterpretCast(aj.uint32),
            True,
            int(params["n"][c]),
            aj.GatherMaskParams(1, 1, 8, 0),
            profile=p,
        )
        assert int(st.fault) == 0
        assert int(cnt) == int(np.asarray(res.out)[c])
        assert_bits(res.gm[1][c : c + 1], _read(st, dst)[None], f"case {c}")


# == a batch equals the loop over its cases ======================================================


@pytest.mark.parametrize(
    "name, config",
    [
        ("gather_mask_user", {"reduceMode": True, "dtype": "uint32"}),
        ("clamp", {"dtype": "half"}),
        ("shift_right_sample", {"dtype": "int16", "form": "highdim", "roundEn": True}),
    ],
)
def test_batch_equals_loop_of_run_kernel(name, config):
    p = aj.load_profile(DEFAULT)
    mod = ops.OPS[name]
    gm, params, res = check_op(name, DEFAULT, config, BATCH)
    for c in (0, 7, 999):
        one = aj.run_kernel(
            mod.kernel(**config),
            *(a[c] for a in gm),
            profile=p,
            ub_bytes=UB,
            **{k: v[c] for k, v in params.items()},
        )
        for i, a in enumerate(one.gm):
            assert_bits(np.asarray(res.gm[i][c : c + 1]), G.bits(a)[None], f"{name} case {c} GM {i}")
        if res.out is not None:
            assert int(np.asarray(one.out)) == int(np.asarray(res.out)[c])


# == a traced-parameter sweep compiles once ======================================================


def test_traced_parameter_sweep_compiles_once():
    """compact_above_threshold over a grid of thresholds x lengths (and new data): one trace."""
    p = aj.load_profile(DEFAULT)
    traces = []

    def counted(k, *gm, **kw):
        traces.append(1)
        return compact_above_threshold.compact_kernel(k, *gm, **kw)

    run = aj.jit_kernel(counted, profile=p, ub_bytes=UB)
    rng = rng_for("sweep")
    thr = np.repeat(np.linspace(-3, 3, 25, dtype=np.float32), 40)
    n = np.tile(np.arange(1, 513, 13, dtype=np.int32)[:40], 25)
    for round_ in range(2):
        gm, _, _ = compact_above_threshold.gen_case(rng, BATCH, p)
        params = {"threshold": np.roll(thr, round_), "n": np.roll(n, 3 * round_)}
        res = run(*gm, **params)
        dst, cnt = compact_above_threshold.golden({"src": gm[0], "dst": gm[1]}, params, p)
        np.testing.assert_array_equal(np.asarray(res.out), cnt)
        assert_bits(res.gm[1], dst, f"sweep round {round_}")
    assert len(traces) == 1
    assert len(run.compiled) == 1
