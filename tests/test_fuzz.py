"""The differential-testing engine (ascend_jax.fuzz): the registry is covered, case i is
reproducible alone, results do not depend on the batch size, a planted oracle bug is found and
shrunk to a minimal case, capsules replay, export + diff round trip."""

import dataclasses
import json
import math
import pathlib

import numpy as np
import pytest

import ascend_jax.reference as ref
from ascend_jax import fuzz
from ascend_jax.fuzz import runner
from ascend_jax.fuzz.capsule import make_capsule, replay
from ascend_jax.fuzz.compare import digest
from ascend_jax.fuzz.export import diff_dir, export_capsule
from ascend_jax.fuzz.families import FAMILIES, NOT_FUZZED, family_of, family_of_api
from ascend_jax.fuzz.families.unary_scalar import Case
from ascend_jax.fuzz.generate import generate_case, make_plan, registered_apis
from ascend_jax.fuzz.shrink import evaluate
from ascend_jax.profile import load_profile

P = load_profile("ascend910b")

# Registered APIs the engine does not fuzz, on purpose (each with its reason in NOT_FUZZED); the
# element-wise family has its adapter (fuzz/families/elementwise.py)
# SetPadValue: drawn by the data_copy family as CopyCase.reg_bits; NdDmaDci: a no-op; the loop-mode
# registers: static writes (tests/test_data_copy_loop_mode.py)
EXPECTED_NOT_FUZZED = {"SetPadValue", "NdDmaDci", "SetLoopModePara", "ResetLoopModePara"}
# the advanced math APIs: their own differential campaign (tests/test_adv_math.py), no fuzz family yet
EXPECTED_NOT_FUZZED |= {"Sigmoid", "Tanh", "Log", "Log2", "Log10", "FasterGeluV2"}


def test_every_registered_api_is_fuzzed_or_listed():
    names = set(registered_apis())
    covered = {a for f in FAMILIES for a in f.apis}
    assert covered <= names, covered - names  # adapters only for registered APIs
    uncovered = {n for n in names if family_of_api(n) is None}
    assert uncovered == EXPECTED_NOT_FUZZED & names
    assert set(NOT_FUZZED) == EXPECTED_NOT_FUZZED and all(NOT_FUZZED.values())
    plan = make_plan(P)
    assert set(plan.apis) | set(plan.not_fuzzed) == names
    # on the default profile every API it supports is fuzzed
    for n in names - EXPECTED_NOT_FUZZED:
        assert (n in plan.apis) == P.api(n).supported, n


# Cheap campaigns: Maxs<half> (3 repeat buckets = 3 programs per batch size) plus register APIs
# (eager, nothing to compile).
SMALL = dict(apis=["Maxs", "SetVectorMask", "GetCtrlSpr", "SetMaskCount"], dtypes=["half"], profile=P)


@pytest.fixture(scope="module")
def run16():
    return fuzz.run(cases=120, seed=11, batch=16, **SMALL)


def _key(r):
    return (
        r["i"],
        r["api"],
        r["dtype"],
        r["kind"],
        r["status"],
        r.get("digest"),
        r.get("fault"),
        r.get("note"),
    )


def test_same_seed_same_results_whatever_the_batch(run16):
    other = fuzz.run(cases=120, seed=11, batch=48, **SMALL)
    assert [_key(r) for r in run16.records] == [_key(r) for r in other.records]
    assert run16.ok and len(run16.records) == 120
    kinds = {r["kind"] for r in run16.records}
    assert kinds == {"valid", "invalid-static", "invalid-data"}
    assert {r["status"] for r in run16.records} <= {"ok", "rejected"}
    # a different seed gives different cases
    assert [_key(r) for r in fuzz.run(cases=20, seed=12, batch=16, **SMALL).records] != [
        _key(r) for r in run16.records[:20]
    ]


def test_case_regenerated_alone_equals_case_of_the_run(run16):
    plan = make_plan(P, SMALL["apis"], SMALL["dtypes"])
    for r in run16.records[::7]:
        fc = generate_case(plan, 11, r["i"], 0.1, 1.0)
        assert (fc.api, fc.kind, getattr(fc.case, "dtype", "-")) == (r["api"], r["kind"], r["dtype"])
        if fc.kind == "invalid-static":
            continue
        ((st, ret),) = runner.run_fast_chunk(fc.family, [fc.case], P, 16)
        assert digest(st, ret) == r["digest"], r


def test_resume_keeps_the_journal_digest_version(tmp_path, run16):
    """A campaign journaled before digest version 2 (its meta.json has no "digest_version") is
    resumed with version-1 digests, so its records stay comparable; a new campaign writes version 2,
    and the two versions differ."""
    out = tmp_path / "c"
    fuzz.run(cases=40, seed=11, batch=16, out=out, shrink=False, **SMALL)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["digest_version"] == 2
    del meta["digest_version"]  # as a journal written before version 2
    (out / "meta.json").write_text(json.dumps(meta))
    lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(lines[:10]))
    kept = {json.loads(x)["i"] for x in lines[:10]}
    res = fuzz.run(cases=40, seed=11, batch=16, out=out, resume=True, shrink=False, **SMALL)
    assert json.loads((out / "meta.json").read_text())["digest_version"] == 1
    plan = make_plan(P, SMALL["apis"], SMALL["dtypes"])
    checked = 0
    for r in res.records:
        if r["i"] in kept or "digest" not in r:
            continue
        fc = generate_case(plan, 11, r["i"], 0.1, 1.0)
        ((st, ret),) = runner.run_fast_chunk(fc.family, [fc.case], P, 16)
        assert digest(st, ret, version=1) == r["digest"] != digest(st, ret), r
        assert digest(st, ret) == run16.records[r["i"]]["digest"]  # version 2, as the fresh run
        checked += 1
    assert checked >= 5


def test_summary_and_coverage(run16):
    text = run16.summary_table()
    assert "Maxs" in text and "TOTAL" in text
    cov = run16.coverage()
    assert sum(cov.values()) == sum(r["kind"] != "invalid-static" for r in run16.records)
    assert {k[3] for k in cov if k[0] == "Maxs"} >= {"1", "mid"}  # repeat regimes seen
    d = json.loads(run16.to_json())
    assert d["cases"] == 120 and d["coverage"] and d["not_fuzzed"] == {}
    assert "<table>" in run16._repr_html_()
    assert "mask kind" in run16.coverage_table()
    # where the main thread's time went: every phase a campaign has, within its wall time
    sh = d["time_shares"]
    assert {"drawing cases", "reference", "fast path: programs (first chunks)"} <= set(sh)
    assert all(v >= 0 for v in sh.values()) and sum(sh.values()) <= run16.run_seconds
    assert "main thread:" in " ".join(text.split())


# -- a planted bug ------------------------------------------------------------------------------


def _flip_zero(s):
    return (-0.0 if math.copysign(1.0, s) > 0 else 0.0) if s == 0 else s


def wrong_maxs(state, dst, src, scalarValue, *args, **kw):
    """Planted bug: Maxs compares against the other zero when the scalar is +-0 (so a -0 lane
    returns the wrong operand)."""
    return ref.Maxs(state, dst, src, _flip_zero(scalarValue), *args, **kw)


ORACLE = fuzz.Oracle(Maxs=wrong_maxs)


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    out = tmp_path_factory.mktemp("planted")
    res = fuzz.run(
        apis=["Maxs"],
        dtypes=["half"],
        profile=P,
        cases=300,
        seed=5,
        batch=16,
        out=out,
        oracle=ORACLE,
        max_capsules=2,
    )
    return res, out


def test_planted_bug_is_found_and_shrunk(planted):
    res, out = planted
    assert not res.ok and res.capsules
    fam = family_of("unary_scalar")
    L = P.lanes("half")
    for cap in res.capsules:
        case = fam.from_json(cap["case"])
        assert cap["difference"] and "ub" in cap["difference"]["fields"]
        # minimal: one repeat, default strides, Normal mode, a one-lane (or shortest) mask
        assert cap["labels"][1] == "1", cap["call"]
        assert case.mask_mode == 0
        if case.form != "count":
            assert case.strides == (1, 1, 8, 8), cap["call"]
        if case.form == "bitwise":
            assert sum(bin(w).count("1") for w in case.mask) == 1, cap["call"]
        else:
            # continuous mask / count: one lane fewer no longer fails (a local minimum)
            n = case.count if case.form == "count" else min(case.mask, L)
            fewer = dataclasses.replace(
                case, **({"count": n - 1} if case.form == "count" else {"mask": n - 1})
            )
            assert evaluate(fam, [fewer], P, 16, ORACLE) == [None], cap["call"]
        orig = fam.from_json(cap["original_case"])
        assert orig != case
        assert json.loads(pathlib.Path(cap["path"]).read_text())["call"] == cap["call"]


def test_capsule_replay_reproduces(planted):
    res, _ = planted
    path = res.capsules[0]["path"]
    diff, text = replay(path, oracle=ORACLE, batch=16)
    assert diff is not None and "identical to the recorded results" in text
    diff, text = replay(path, batch=16)  # the real reference: fast path and oracle agree
    assert diff is None and "agree" in text


def test_export_diff_round_trip(tmp_path):
    # Maxs<half> over 3 repeats, default strides: dst is 3 x 256 contiguous bytes
    L = P.lanes("half")
    case = Case(
        api="Maxs",
        dtype="half",
        form="continuous",
        is_set_mask=True,
        dst=1024,
        src=4096,
        scalar=0.5,
        mask=L,
        repeat=3,
        ctrl=(0, 0),
        ub_seed=3,
        data="small",
    )
    fam = family_of(case)
    cap = make_capsule(fam, case, P, batch=16)
    assert cap["difference"] is None
    (tmp_path / "c.json").write_text(json.dumps(cap))
    files = export_capsule(tmp_path / "c.json", tmp_path / "x")
    names = {f.rsplit("/", 1)[-1] for f in files}
    assert {"input_src.bin", "input_dst.bin", "golden_dst.bin", "params.json"} <= names
    src = np.fromfile(tmp_path / "x" / "input_src.bin", dtype=np.float16)
    assert src.size == 3 * L
    gold = np.fromfile(tmp_path / "x" / "golden_dst.bin", dtype=np.float16)
    np.testing.assert_array_equal(gold.view(np.uint16), np.maximum(src, np.float16(0.5)).view(np.uint16))
    assert diff_dir(tmp_path / "x").clean
    # flip one byte of repeat 2, block 5, element 7 (lane 5*16+7)
    raw = np.fromfile(tmp_path / "x" / "golden_dst.bin", dtype=np.uint8)
    off = (2 * 8 + 5) * 32 + 7 * 2 + 1
    raw[off] ^= 0x10
    raw.tofile(tmp_path / "npu_out.bin")
    rep = diff_dir(tmp_path / "x", tmp_path / "npu_out.bin")
    assert not rep.clean
    text = rep.text()
    assert "1 of 384 elements differ, 1 of 768 bytes differ" in text
    assert "(repeat 2, block 5, lane 87)" in text


def test_oracle_sample_and_invalid_cases():
    apis = ["SetVectorMask", "SetCtrlSpr", "GetCtrlSpr"]
    res = fuzz.run(apis=apis, profile=P, cases=200, seed=3, oracle_sample=0.25, invalid_rate=0.4)
    st = res.counts()
    assert st["unchecked"] > 0 and st["ok"] > 0 and st["rejected"] > 0 and res.ok
    # deliberately invalid cases are always checked by both implementations
    assert all(r["oracle"] for r in res.records if r["kind"] != "valid")
    # the sample is a property of (seed, i): the same cases are checked with any batch size
    again = fuzz.run(apis=apis, profile=P, cases=200, seed=3, oracle_sample=0.25, invalid_rate=0.4, batch=7)
    assert [r["oracle"] for r in res.records] == [r["oracle"] for r in again.records]
    assert fuzz.run(apis=apis, profile=P, cases=50, seed=3, oracle_sample=10).counts()["unchecked"] > 25


def test_comparator_sees_the_special_registers():
    """DEQSCALE and the reduce result register are compared (a CoreState's words against the
    reference's ints); a state built without them (None) is not compared on them."""
    from ascend_jax.fuzz.compare import compare, digest
    from ascend_jax.reference import state as RS
    from ascend_jax.state import reset_state

    fast, ref = reset_state(P, ub_bytes=64), RS.reset_state(P, ub_bytes=64)
    assert compare(fast, ref) is None
    ref.reduce_maxmin = (0x3C00, 7)
    assert compare(fast, ref).fields == ["reduce_spr"]
    ref.reduce_maxmin = (0, 0)
    ref.deqscale = 1 << 40
    assert compare(fast, ref).fields == ["deqscale"]
    assert compare(fast.replace(deqscale=None), ref) is None
    assert digest(fast) != digest(fast.replace(reduce_spr=fast.reduce_spr.at[0].set(1)))


def test_capsule_carries_the_special_registers():
    """A capsule records DEQSCALE / the reduce results on entry, so a replay starts from them (a
    GetReduceRepeatSumSpr case reads a random register: its value must survive the JSON)."""
    from ascend_jax.fuzz.capsule import make_capsule, replay
    from ascend_jax.fuzz.families.registers import RegisterFamily

    fam = RegisterFamily()
    case = fam.generate(np.random.default_rng(2), P, ("GetReduceRepeatSumSpr", "float32"), 0)
    assert any(case.reduce_spr_init)
    cap = json.loads(json.dumps(make_capsule(fam, case, P)))
    assert cap["difference"] is None and cap["inputs"]["reduce_spr"] == list(case.reduce_spr_init)
    assert cap["expected"]["ret"] == [case.reduce_spr_init[0]]
    diff, text = replay(cap)
    assert diff is None and "agree" in text, text


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["ascend910b", "ascend950", "ascend310p"])
def test_all_api_campaign(profile):
    """Every fuzzed API of a product in one campaign (nightly): the mix no family test runs. The first
    such campaigns found CreateVecIndex's double rounding, a Cast UB-generator merge bug and a
    process running out of memory maps (fixed in session 18)."""
    from conftest import SCALE

    res = fuzz.run(apis=None, profile=profile, cases=100 * SCALE, seed=18, invalid_rate=0.3, shrink=False)
    bad = [r for r in res.records if r["status"] in ("mismatch", "error")]
    assert not bad, [(r["api"], r["kind"], str(r.get("diff"))[:160]) for r in bad[:5]]
    assert {"ok", "rejected"} <= set(res.counts())
    assert len({r["api"] for r in res.records}) >= min(0.8 * len(res.meta["apis"]), SCALE * 40)
