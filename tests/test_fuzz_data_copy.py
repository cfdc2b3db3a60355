"""The differential engine on DataCopy / DataCopyPad (``fuzz.families.data_copy``): random
campaigns on every profile that has the APIs (GM bytes compared with UB, registers and faults), a
planted reference bug found and shrunk to one block, the case JSON and capsule round trips, and
clean cases checked against NumPy slicing as well."""

import dataclasses
import json
import re

import numpy as np
import pytest
from conftest import SCALE, twins_nightly

import ascend_jax.reference as ref
from ascend_jax import fuzz
from ascend_jax.cli import main
from ascend_jax.fuzz import runner
from ascend_jax.fuzz.capsule import make_capsule, replay
from ascend_jax.fuzz.compare import Difference
from ascend_jax.fuzz.export import export_capsule
from ascend_jax.fuzz.families import NOT_FUZZED, family_of, family_of_api
from ascend_jax.fuzz.families import data_copy as CC
from ascend_jax.fuzz.generate import make_plan
from ascend_jax.fuzz.shrink import evaluate
from ascend_jax.profile import available_profiles, load_profile
from ascend_jax.tensor import LocalTensor

P = load_profile("ascend910b")
APIS = ["DataCopy", "DataCopyPad"]
BATCH = 32  # one batch size for every campaign here: the compiled programs are shared
FAM = family_of("data_copy")
OTHER_PROFILES = twins_nightly([n for n in available_profiles() if n != "ascend910b"])
ALL_FORMS = {
    "gm2ub/count",
    "gm2ub/params",
    "ub2gm/count",
    "ub2gm/params",
    "ub2ub/count",
    "ub2ub/params",
    "gm2ub/ext",
    "gm2ub/legacy",
    "ub2gm/ext",
    "ub2gm/legacy",
    # the layout forms (issue 33 item 2; fuzz/families/data_copy_layout.py)
    "gm2ub/nd2nz",
    "ub2gm/nz2nd",
    "gm2ub/slice",
    "ub2gm/slice",
}


def _faults(res):
    return {r["fault"] for r in res.records if "fault" in r}


@pytest.fixture(scope="module")
def campaign():
    # every case checked (the default samples ~20,000 of the nightly's 40,000)
    return fuzz.run(
        apis=APIS, profile=P, cases=2000 * SCALE, seed=21, batch=BATCH, shrink=False, oracle_sample=1.0
    )


def test_data_copy_is_fuzzed():
    assert family_of_api("DataCopy") is FAM and family_of_api("DataCopyPad") is FAM
    assert "DataCopy" not in NOT_FUZZED and "DataCopyPad" not in NOT_FUZZED
    plan = make_plan(P, APIS)
    assert plan.apis == APIS and not plan.not_fuzzed


def test_campaign_910b_no_mismatch(campaign):
    res = campaign
    st = res.counts()
    assert res.ok and len(res.records) == 2000 * SCALE, st
    assert set(st) <= {"ok", "rejected"} and st["rejected"] > 30
    assert {r["kind"] for r in res.records} == {"valid", "invalid-static", "invalid-data"}
    assert {r["api"] for r in res.records} == set(APIS)
    # every direction and call form, every element type, every slot regime ran
    ran = [r for r in res.records if r["kind"] != "invalid-static"]
    assert {r["labels"][0] for r in ran} == ALL_FORMS
    assert {r["dtype"] for r in ran} == set(P.api("DataCopy").dtypes)
    assert {r["labels"][1] for r in ran} >= {"0", "1", "mid", "bucket"}
    assert {r["labels"][2].split("/")[0] for r in ran} >= {"contiguous", "gap"}
    # clean calls and every fault kind the APIs can record, agreed on by both implementations
    from ascend_jax.errors import Fault
    from ascend_jax.gm import OUT_OF_GM

    seen = 0
    for f in _faults(res):
        seen |= f
    assert 0 in _faults(res)
    for bit in (Fault.OUT_OF_UB, OUT_OF_GM, Fault.MISALIGNED, Fault.BAD_PARAM):
        assert seen & int(bit), bit
    # the static misuse rejected by both, naming the same argument
    names = {
        re.search(r"fast \w+\((.*)\)", r["note"]).group(1) for r in res.records if r["status"] == "rejected"
    }
    assert {"count", "src.dtype", "dst/src", "dataCopyParams.blockLen"} <= names, names
    assert any(n.startswith("repeatParams.") for n in names)
    assert any(n.startswith("dataCopyParams.") for n in names)
    assert names & {"src", "dst"}  # a static GM access past the buffer


@pytest.mark.parametrize("profile", OTHER_PROFILES)
def test_campaign_other_profiles(profile):
    p = load_profile(profile)
    res = fuzz.run(apis=APIS, profile=p, cases=200 * SCALE, seed=22, batch=BATCH, shrink=False)
    assert res.ok, res.counts()
    assert set(res.counts()) <= {"ok", "rejected"}
    assert ("DataCopyPad" in res.meta["apis"]) == p.api("DataCopyPad").supported
    forms = {r["labels"][0] for r in res.records if r["kind"] != "invalid-static"}
    assert ("ub2ub/count" in forms) == bool(p.api("DataCopy").ub_to_ub)
    assert 0 in _faults(res) and len(_faults(res)) >= 3


def test_clean_count_cases_match_numpy_slices():
    """Independent of the reference: a clean count-form copy moves count*sizeof(T) bytes from the
    src address to the dst address of the image (UB, then GM at ub_bytes), nothing else."""
    rng = np.random.default_rng(5)
    cases = []
    while len(cases) < 24:
        kind = ("gm2ub", "ub2gm", "ub2ub")[len(cases) % 3]
        c = CC.random_copy_case(rng, P, "DataCopy", kind, "count", "half", fault_rate=0.0)
        if c.count > 0:
            cases.append(c)
    out = runner.run_fast(FAM, cases, P, batch=BATCH)
    for c, (st, _) in zip(cases, out, strict=True):
        img = CC.initial_image(c)
        n = c.count * 2
        s = c.src + (c.ub_bytes if c.kind[:2] == "gm" else 0)
        d = c.dst + (c.ub_bytes if c.kind[-2:] == "gm" else 0)
        want = img.copy()
        want[d : d + n] = img[s : s + n]
        assert int(st.fault) == 0, c.call_repr()
        np.testing.assert_array_equal(np.asarray(st.ub), want, err_msg=c.call_repr())


# -- a planted bug: the reference's DataCopy does not write the last block -------------------------


def drops_last_block(state, gm, dst, src, countOrParams, **kw):
    """Planted bug: the last 32-byte block a DataCopy writes keeps its old bytes."""
    out, out_gm = ref.DataCopy(state, gm, dst, src, countOrParams, **kw)
    if isinstance(countOrParams, (int, np.integer)):
        bc, bl, gap = 1, int(countOrParams) * dst.dtype.itemsize // 32, 0
    elif hasattr(countOrParams, "blockCount"):
        bc, bl, gap = countOrParams.blockCount, countOrParams.blockLen, countOrParams.dstStride
    else:  # the layout-converting forms (data_copy_layout family) keep the right answer
        return out, out_gm
    if out.fault or bc * bl == 0:
        return out, out_gm
    a = int(dst.addr) + ((bc - 1) * (bl + gap) + bl - 1) * 32
    if isinstance(dst, LocalTensor):
        out.ub[a : a + 32] = state.ub[a : a + 32]
    else:
        out_gm[dst.buf][a : a + 32] = gm[dst.buf][a : a + 32]
    return out, out_gm


ORACLE = fuzz.Oracle(DataCopy=drops_last_block)


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    out = tmp_path_factory.mktemp("planted_copy")
    res = fuzz.run(
        apis=["DataCopy"], profile=P, cases=120, seed=23, batch=BATCH, out=out, oracle=ORACLE, max_capsules=2
    )
    return res, out


def test_planted_bug_is_found_and_shrunk(planted):
    res, _ = planted
    assert not res.ok and len(res.capsules) == 2
    bad = [r for r in res.records if r["status"] == "mismatch"]
    assert {r["labels"][0].split("/")[0] for r in bad} == {"gm2ub", "ub2gm", "ub2ub"}
    for cap in res.capsules:
        case = FAM.from_json(cap["case"])
        orig = FAM.from_json(cap["original_case"])
        assert cap["difference"] and cap["difference"]["fields"] == ["ub"]
        # one block, no gaps, registers at their reset value: a minimal case
        assert CC.slots(case) == 1 and cap["labels"][1] == "1", cap["call"]
        assert case.params[2:] == (0, 0) and case.mask_mode == 0 and case.ctrl == (0, 0), cap["call"]
        assert CC.slots(orig) >= 1 and orig != case
        # exactly the one block differs, at the dst address of the image
        first = cap["difference"]["first_bytes"]
        base = case.dst + (case.ub_bytes if case.kind[-2:] == "gm" else 0)
        assert cap["difference"]["n_bytes"] <= 32 and base <= first[0][0] < base + 32
        # a local minimum: no simpler candidate still fails (the copy of nothing does not)
        simpler = FAM.shrink(case, P)
        assert not any(isinstance(d, Difference) for d in evaluate(FAM, simpler, P, BATCH, ORACLE))
        empty = (
            dataclasses.replace(case, count=0)
            if case.form == "count"
            else dataclasses.replace(case, params=(0,) + case.params[1:])
        )
        assert evaluate(FAM, [empty], P, BATCH, ORACLE) == [None]


def test_planted_bug_in_gm_is_seen():
    """UB -> GM: the difference is in the GM part of the image."""
    c = CC.CopyCase("DataCopy", "ub2gm", "params", "float32", src=64, dst=96, params=(2, 3, 1, 2), ub_seed=1)
    (d,) = evaluate(FAM, [c], P, BATCH, ORACLE)
    assert d is not None and d.n_bytes > 0
    gm_at = c.ub_bytes + c.dst + ((2 - 1) * (3 + 2) + 3 - 1) * 32
    assert gm_at <= d.first_bytes[0][0] < gm_at + 32 and d.n_bytes <= 32
    assert evaluate(FAM, [c], P, BATCH) == [None]


def test_capsule_replays(planted):
    res, _ = planted
    path = res.capsules[0]["path"]
    diff, text = replay(path, oracle=ORACLE, batch=BATCH)
    assert diff is not None and "identical to the recorded results" in text
    diff, text = replay(path, batch=BATCH)
    assert diff is None and "agree" in text


# -- JSON -------------------------------------------------------------------------------------------


def test_case_json_round_trip():
    p5 = load_profile("ascend950")
    rng = np.random.default_rng(8)
    n = 0
    for p in (P, p5):
        for api in APIS:
            for unit in FAM.units(p, api):
                c = FAM.generate(rng, p, unit, 0.3)
                inv = FAM.invalid_static(rng, p, c)[0]
                for x in (c, inv, FAM.invalid_data(rng, p, c)[0]):
                    back = FAM.from_json(json.loads(json.dumps(FAM.to_json(x))))
                    assert back == x and FAM.signature(back, p) == FAM.signature(x, p)
                    n += 1
    assert n > 500
    # a case with every field away from its default survives too
    c = CC.CopyCase(
        "DataCopyPad",
        "gm2ub",
        "legacy",
        "bfloat16",
        src=7,
        dst=64,
        params=(3, 38, -6, 1),
        is_pad=True,
        pad=(2, 5),
        pad_bits=0xFFC1,
        src_dtype="half",
        mask_mode=1,
        ctrl=(1, 2),
        ub_seed=9,
        gm_seed=10,
    )
    assert FAM.from_json(json.loads(json.dumps(FAM.to_json(c)))) == c


def test_capsule_json_and_export(tmp_path):
    """A clean GM -> UB case: the capsule round-trips through JSON and exports; the golden dst
    bytes are the input src bytes (a copy), derived without the model."""
    c = CC.CopyCase(
        "DataCopyPad", "gm2ub", "ext", "half", src=10, dst=256, params=(1, 62, 0, 0), ub_seed=4, gm_seed=5
    )
    cap = make_capsule(FAM, c, P, batch=BATCH)
    assert cap["difference"] is None and cap["expected"]["faults"] == "none"
    (tmp_path / "c.json").write_text(json.dumps(cap))
    diff, _ = replay(tmp_path / "c.json", batch=BATCH)
    assert diff is None
    export_capsule(tmp_path / "c.json", tmp_path / "x")
    src = np.fromfile(tmp_path / "x" / "input_src.bin", np.uint8)
    gold = np.fromfile(tmp_path / "x" / "golden_dst.bin", np.uint8)
    gm = CC.initial_image(c)[c.ub_bytes :]
    assert src.size == 62 and gold.size == 64
    np.testing.assert_array_equal(src, gm[10:72])
    np.testing.assert_array_equal(gold[:62], gm[10:72])
    # no padding: the dummy bytes up to the 32-byte boundary repeat the row's first element (示例2)
    np.testing.assert_array_equal(gold[62:], gm[10:12])


def test_cli_fuzz_datacopy(capsys, monkeypatch):
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")
    rc = main(
        ["fuzz", "--apis", "DataCopy,DataCopyPad", "--cases", "60", "--seed", "2", "--batch", str(BATCH)]
    )
    out = capsys.readouterr().out
    assert rc == 0 and "DataCopyPad" in out and "gm2ub/" in out


# -- disagreements the adapter found (fast path vs reference), fixed in the fast path -------------


# the traced UB-side stride times 32 wrapped in int32 from 2^26 blocks (no OUT_OF_UB, a row written)
@pytest.mark.parametrize("kind", ["gm2ub", "ub2gm"])
def test_known_mismatch_ub_stride_overflow(kind):
    prm = (2, 64, 0, 2**26) if kind == "gm2ub" else (2, 64, 2**26, 0)
    c = CC.CopyCase("DataCopyPad", kind, "ext", "half", params=prm)
    assert evaluate(FAM, [c], P, BATCH) == [None]


# a traced stride in (2^30, 2^32-1] (documented range) was BAD_PARAM instead of the address fault
@pytest.mark.parametrize("prm", [(2, 64, 2**30 + 6, 0), (2, 64, 0, 2**30 + 3), (2, 64, 2**32 - 1, 2**32 - 1)])
def test_known_mismatch_stride_above_2_30(prm):
    c = CC.CopyCase("DataCopyPad", "gm2ub", "ext", "half", params=prm)
    assert evaluate(FAM, [c], P, BATCH) == [None]


@pytest.mark.parametrize("profile", ["ascend910b", "ascend910_93", "ascend310p", "ascend950"])
def test_layout_forms_fuzzed(profile):
    """The layout forms of the data_copy family (ND2NZ, NZ2ND, slices, NDDMA on 950): random valid
    cases (addresses sometimes misaligned or past the end) and planted static misuse, fast vs
    reference through the engine's runner and the invalid-static check."""
    from ascend_jax.fuzz.engine import check_static
    from ascend_jax.fuzz.families import data_copy_layout as LAY
    from ascend_jax.fuzz.generate import FuzzCase

    p = load_profile(profile)
    units = LAY.units(p)
    forms = {u[2] for u in units}
    assert forms == (
        {"nd2nz", "nz2nd", "slice", "nddma"} if profile == "ascend950" else {"nd2nz", "nz2nd", "slice"}
    )
    rng = np.random.default_rng(abs(hash(profile)) % 2**32)
    cases = [FAM.generate(rng, p, units[int(rng.integers(len(units)))], 0.15) for _ in range(24 * SCALE)]
    planted = [FAM.invalid_data(rng, p, c) for c in cases[:8]]
    cases += [r[0] for r in planted if r is not None]  # misaligned / past the UB or GM end
    fast, refs = FAM.run_all(cases, p)
    faults = set()
    for c, f, r in zip(cases, fast, refs, strict=True):
        assert FAM.compare(f, r) is None, (c.call_repr(), FAM.compare(f, r))
        faults.add(int(r[0].fault))
    assert 0 in faults and len(faults) >= 2, faults
    assert {c.form for c in cases} == forms
    for i, c in enumerate(cases[:8]):
        bad, what = FAM.invalid_static(rng, p, c)
        rec = check_static(FuzzCase(i, "DataCopy", FAM, bad, "invalid-static", what, True), p)
        assert rec["status"] == "rejected", rec
        assert what in rec["note"], rec["note"]


def test_complex32_pad_value_drawn_as_a_number():
    """A complex32 paddingValue / SetPadValue value is drawn as a number (its halves from the
    drawn bits, a NaN part 0.0): both implementations convert it to Complex<half> the same way on
    the traced path (the row holds the number's bits) and the static one. Before, the family passed
    the raw uint32 (0xAE21BBAC = 2.9e9 overflowed to inf in the reference; the traced fast path
    took the bits: seen in the 950 nightly campaign)."""
    p = load_profile("ascend950")
    fam = family_of_api("DataCopyPad")
    bits = 0xAE21BBAC  # halves: 0xBBAC (-0.958984375), 0xAE21 (-0.09576416015625)
    nan_imag = 0x7E00BBAC  # imaginary half a NaN: passed as 0.0
    base = CC.CopyCase(
        api="DataCopyPad", kind="gm2ub", form="legacy", dtype="complex32", src=0, dst=2560,
        params=(5, 64, 1, 3), is_pad=True, pad=(0, 7), pad_bits=bits, reg_bits=-1, vmask=(0,) * 8,
        ctrl=(0, 0), ub_seed=1, gm_seed=2, ub_bytes=4096, gm_bytes=3000, nb=64,
    )  # fmt: skip
    cases = [base, dataclasses.replace(base, pad_bits=nan_imag), dataclasses.replace(base, reg_bits=bits)]
    assert CC.pad_value(base) == complex(-0.958984375, -0.09576416015625)
    assert CC.pad_value(cases[1]) == complex(-0.958984375, 0.0)
    fast = fam.run_fast(cases, p, batch=8)
    for c, f in zip(cases, fast, strict=True):
        r = fam.run_reference(c, p)
        assert fam.compare(f, r) is None
        assert fam.compare(fam.run_static(c, p), r) is None
    # the pad the implementations wrote: Complex<half> of the number (real part first), 7 right
    # padding elements in each of the 5 blocks
    for c, pattern in ((base, "acbb21ae"), (cases[1], "acbb0000")):
        words = np.asarray(fam.run_reference(c, p)[0].ub)[2560:].view(np.uint32)
        assert np.count_nonzero(words == int.from_bytes(bytes.fromhex(pattern), "little")) >= 35
