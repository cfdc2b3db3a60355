"""The fuzz adapters of the reductions (``fuzz/families/reduce.py``), the composite ops
(``compound.py``) and Cast / Truncate (``cast.py``): random cases of every call form through the fast
path (one vmapped program per signature) and the reference, bit for bit; deliberately invalid cases
rejected by both with the same argument; capsules replay.

The default run is small: one campaign per family (<= 200 cases, a few signatures, repeats kept in
one bucket). The campaigns (2,000 cases per family on the default profile, 300+ on ascend950 and
ascend310p, every API, dtype, variant, call form and bucket) are ``@pytest.mark.slow``.
"""

import dataclasses
import json
import pathlib

import numpy as np
import pytest

from ascend_jax import fuzz
from ascend_jax.dtypes import as_dtype
from ascend_jax.fuzz.capsule import make_capsule, replay
from ascend_jax.fuzz.engine import check_static
from ascend_jax.fuzz.export import diff_dir, export_capsule
from ascend_jax.fuzz.families import NOT_FUZZED, family_of, family_of_api
from ascend_jax.fuzz.families import cast as CF
from ascend_jax.fuzz.families import compound as CM
from ascend_jax.fuzz.families import reduce as RF
from ascend_jax.fuzz.families.base import STRIDED_FORMS
from ascend_jax.fuzz.generate import FuzzCase, registered_apis
from ascend_jax.profile import load_profile
from ascend_jax.testing.traces import max_traces

P = load_profile("ascend910b")
P950 = load_profile("ascend950")
BUCKET = 4
BATCH = 64

APIS = {
    "reduce": RF.PER_REPEAT + RF.WHOLE,
    "compound": tuple(CM.API_TABLE),
    "cast": CF.APIS,
}


def test_every_api_has_its_adapter():
    names = set(registered_apis())
    for fam, apis in APIS.items():
        assert set(apis) <= names
        for api in apis:
            assert family_of_api(api).name == fam, api
            assert api not in NOT_FUZZED, api


def _draw(fam, p, units, n, seed, reps):
    """``n`` cases of ``units`` (valid, and a share with a data-dependent fault) with at most
    BUCKET repeats (one program per signature)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        c = fam.generate(rng, p, units[int(rng.integers(len(units)))], 0.1)
        if rng.random() < 0.1:
            c = fam.invalid_data(rng, p, c)[0]
        if reps(c) <= BUCKET:
            out.append(c)
    return out


def _run(fam, p, cases, programs):
    with max_traces("batched", programs):
        fast, refs = fam.run_all(cases, p, batch=BATCH, workers=1)
    for c, f, r in zip(cases, fast, refs, strict=True):
        assert fam.compare(f, r) is None, (c.call_repr(), fam.compare(f, r))
    faults = [int(f[0].fault) for f in fast]
    assert any(faults) and not all(faults), faults
    return fast


# the default run's variants: (api, dtype, reduceType, order, calIndex) -- two programs, a per-repeat
# API and a whole-input one (every variant: the slow campaigns)
REDUCE_SMALL = (
    ("ReduceRepeat", "half", "MAX", "ORDER_VALUE_INDEX", False),
    ("ReduceMin", "half", "", "", True),
)


def reduce_cases(n, seed, variants=REDUCE_SMALL):
    fam = RF.ReduceFamily(buckets=(BUCKET,))
    units = [u for v in variants for u in fam.units(P, v[0]) if u[:5] == v]
    return fam, _draw(fam, P, units, n, seed, lambda c: RF.reps_needed(c, P.lanes(as_dtype(c.dtype))))


def test_reduce_small_campaign():
    fam, cases = reduce_cases(150, seed=16)
    fast = _run(fam, P, cases, len(REDUCE_SMALL))
    assert {c.form for c in cases} == {"count", "continuous", "bitwise", "register"}
    assert {c.mask_mode for c in cases} == {0, 1}
    assert any(c.cal_index for c in cases)
    # some results were written (not every case is a NOP or a fault)
    ub0 = [fam.initial_ub(c) for c in cases]
    assert sum(not np.array_equal(u, f[0].ub) for u, f in zip(ub0, fast, strict=True)) > len(cases) // 3


def compound_cases(n, seed):
    fam = CM.CompoundFamily(buckets=(BUCKET,))
    units = [u for a in CM.API_TABLE for u in fam.units(P, a) if u[1] == "half"]
    assert {u[0] for u in units} == set(CM.API_TABLE) - {"AbsSub", "Prelu", "ExpSub"}  # ISASI: 950 only
    return fam, _draw(fam, P, units, n, seed, lambda c: CM.reps_needed(c, P.lanes(as_dtype("half"))))


def test_compound_small_campaign():
    """Every composite API of ascend910b on half: two programs (the six binary-shaped APIs share one,
    the API traced; Axpy has its own)."""
    fam, cases = compound_cases(120, seed=17)
    _run(fam, P, cases, 2)
    assert {c.form for c in cases} == set(STRIDED_FORMS)
    assert {c.api for c in cases} == set(CM.API_TABLE) - {"AbsSub", "Prelu", "ExpSub"}


def test_compound_mixed_precision_campaign():
    """MulAddDst and Axpy with half sources and a float32 dst (the ``pairs`` row "half->float32"):
    units on every product listing it, every call form, fast == reference bit for bit (two programs:
    the two shapes), invalid static calls rejected by both with the same argument."""
    fam = CM.CompoundFamily(buckets=(BUCKET,))
    units = [u for a in ("MulAddDst", "Axpy") for u in fam.units(P, a) if u[1] == "half->float32"]
    assert {(u[0], u[2]) for u in units} == {(a, f) for a in ("MulAddDst", "Axpy") for f in STRIDED_FORMS}
    cases = _draw(fam, P, units, 100, 21, lambda c: CM.reps_needed(c, P.lanes(as_dtype("float32"))))
    assert all(c.src_dtype == "half" and c.dtype == "float32" for c in cases)
    _run(fam, P, cases, 2)
    rng = np.random.default_rng(9)
    for i, c in enumerate(cases[:20]):
        bad, what = fam.invalid_static(rng, P, c)
        rec = check_static(FuzzCase(i, c.api, fam, bad, "invalid-static", what, True), P)
        assert rec["status"] == "rejected", rec
    for name, apis in (("ascend310b", {"Axpy"}), ("ascend950", {"MulAddDst", "Axpy"})):
        q = load_profile(name)
        got = {a for a in CM.API_TABLE for u in fam.units(q, a) if u[1] == "half->float32"}
        assert got == apis, name


@pytest.mark.slow
@pytest.mark.parametrize("api", ["AbsSub", "Prelu", "ExpSub"])
def test_count_only_isasi_composites_on_950(api):
    """AbsSub, Prelu, ExpSub (ISASI): the count prototype only (ascend950), half: one program each
    (AbsSub and Prelu share the binary shape's program, the API traced)."""
    fam = CM.CompoundFamily(buckets=(BUCKET,))
    units = [u for u in fam.units(P950, api) if u[1] == "half"]
    assert units and {u[2] for u in units} == {"count"}
    cases = _draw(fam, P950, units, 60, 18, lambda c: CM.reps_needed(c, P950.lanes(as_dtype("half"))))
    _run(fam, P950, cases, 1)


CAST_PAIRS = (("float32", "half"),)  # narrowing: two blocks of src, one of dst a repeat; 7 round modes


def cast_cases(n, seed):
    fam = CF.CastFamily(buckets=(BUCKET,))
    units = [u for u in fam.units(P, "Cast") if (u[1], u[2]) in CAST_PAIRS]
    return fam, _draw(fam, P, units, n, seed, lambda c: CM.reps_needed(c, P.lanes(CF.wide_dtype(c))))


def test_cast_small_campaign():
    """A (src, dst) pair of ascend910b, every call form, every round mode and both CTRL[59] values:
    one program per pair (the round mode traced)."""
    fam, cases = cast_cases(120, seed=19)
    _run(fam, P, cases, len(CAST_PAIRS))
    assert {c.form for c in cases} == set(STRIDED_FORMS)
    assert {c.mode for c in cases} == set(CF.pairs(P)[CAST_PAIRS[0]][0])
    bit = P.cast_saturation_ctrl_bit
    assert {(c.ctrl[bit // 32] >> (bit % 32)) & 1 for c in cases} == {0, 1}


def test_truncate_small_campaign():
    """Truncate(ISASI) on ascend950, float32, CAST_FLOOR: the public API vmapped (the round mode is a
    template argument: one program per mode)."""
    fam = CF.CastFamily(buckets=(BUCKET,))
    units = [u for u in fam.units(P950, "Truncate") if u[1] == "float32" and u[3] == "FLOOR"]
    assert len(units) == 1
    cases = _draw(fam, P950, units, 40, 20, lambda c: CM.reps_needed(c, P950.lanes(as_dtype("float32"))))
    with max_traces("run_strided", 1):
        fast, refs = fam.run_all(cases, P950, batch=BATCH, workers=1)
    for c, f, r in zip(cases, fast, refs, strict=True):
        assert fam.compare(f, r) is None, (c.call_repr(), fam.compare(f, r))


# -- int4b_t pairs (two lanes a byte: even counts, masks in byte pairs) ----------------------------


def int4b_cases(p, n, seed, split=0.15):
    """``n`` drawn cases of ``p``'s int4b_t pairs (a share ``split`` with a data fault: a split byte
    pair or an address fault) with at most BUCKET repeats; (family, cases, data-fault kinds)."""
    fam = CF.CastFamily(buckets=(BUCKET,))
    units = [u for u in fam.units(p, "Cast") if "int4b" in (u[1], u[2])]
    rng = np.random.default_rng(seed)
    cases, kinds = [], []
    while len(cases) < n:
        c = fam.generate(rng, p, units[int(rng.integers(len(units)))], 0.1)
        k = None
        if rng.random() < split:
            c, k = fam.invalid_data(rng, p, c)
        if CM.reps_needed(c, p.lanes(CF.wide_dtype(c))) <= BUCKET:
            cases.append(c)
            kinds.append(k)
    return fam, cases, kinds


def _check_int4b(p, fam, cases, kinds):
    from ascend_jax.errors import Fault

    fast, refs = fam.run_all(cases, p, batch=BATCH, workers=1)
    for c, f, r in zip(cases, fast, refs, strict=True):
        assert fam.compare(f, r) is None, (c.call_repr(), fam.compare(f, r))
    bad = [int(f[0].fault) & int(Fault.BAD_MASK) for f in fast]
    # valid draws keep the pair rule: no BAD_MASK; a split pair with an active lane faults BAD_MASK
    assert not any(b for b, k in zip(bad, kinds, strict=True) if k is None)
    assert any(b for b, k in zip(bad, kinds, strict=True) if k == "split-pair")
    written = sum(
        1 for c, f, k in zip(cases, fast, kinds, strict=True) if k is None and not int(f[0].fault) and c.count
    )
    assert written, "no clean int4b_t case with lanes"
    return fast


def test_cast_int4b_small_campaign():
    """ascend910b's int4b_t pairs (half <-> int4b_t, every round mode of the table) drawn by the
    family in every call form: 0 mismatches vs the reference; valid draws obey the pair rule (no
    BAD_MASK), a split bitwise pair faults BAD_MASK in both; even counts and continuous masks. One
    program per pair."""
    fam, cases, kinds = int4b_cases(P, 90, seed=38)  # a seed whose draw holds split pairs (3)
    with max_traces("batched", 2):
        _check_int4b(P, fam, cases, kinds)
    assert {(c.src_dtype, c.dtype) for c in cases} == {("half", "int4b"), ("int4b", "half")}
    assert {c.mode for c in cases if c.dtype == "int4b"} == set(CF.pairs(P)[("half", "int4b")][0])
    assert {c.form for c in cases} == set(STRIDED_FORMS)
    assert all(c.count % 2 == 0 for c in cases)
    assert all(c.mask % 2 == 0 for c in cases if c.form == "continuous")
    # coverage labels count lanes by the wider type (half: 128 a repeat, Cast.md): the same labels as
    # the case with int16 in place of int4b_t (128 lanes too); a full continuous mask is labelled so
    swap = {"int4b": "int16"}
    for c in cases:
        twin = dataclasses.replace(
            c, src_dtype=swap.get(c.src_dtype, c.src_dtype), dtype=swap.get(c.dtype, c.dtype)
        )
        assert fam.labels(c, P) == fam.labels(twin, P), c
    assert len({fam.labels(c, P)[0] for c in cases}) >= 4


def test_cast_int4b_units_and_static_misuse():
    """Every int4b_t pair and round mode of ascend910b and ascend950 is a unit (count, and the mask
    forms: the pairs have no count-only flag); an odd count / odd continuous mask is rejected by both
    implementations naming ``count`` / ``mask``; shrink candidates keep the pair rule; JSON round
    trip. Nothing is compiled."""
    for p in (P, P950):
        fam = CF.CastFamily(buckets=(BUCKET,))
        got = {(u[1], u[2], u[3]) for u in fam.units(p, "Cast") if "int4b" in (u[1], u[2])}
        want = {(s, t, m) for (s, t), (modes, _) in CF.pairs(p).items() if "int4b" in (s, t) for m in modes}
        assert want and got == want, (p.name, sorted(want ^ got))
        _, cases, _ = int4b_cases(p, 60, seed=34, split=0)
        rng = np.random.default_rng(35)
        whats = set()
        for i, c in enumerate(cases):
            assert fam.from_json(json.loads(json.dumps(fam.to_json(c)))) == c
            for s in fam.shrink(c, p):
                assert s.count % 2 == 0 and (s.form != "continuous" or s.mask % 2 == 0), s
            for _ in range(12):  # until the odd count / mask is drawn (one option among several)
                bad, what = fam.invalid_static(rng, p, c)
                if what in ("count", "mask") and (
                    bad.count % 2 or (bad.form == "continuous" and bad.mask % 2)
                ):
                    break
            rec = check_static(FuzzCase(i, c.api, fam, bad, "invalid-static", what, True), p)
            assert rec["status"] == "rejected", rec
            whats.add(what)
        assert {"count", "mask", "roundMode"} <= whats, (p.name, whats)


def _flip_int4b(state, dst, *a, **k):
    """A wrong Cast oracle: the right result with the low nibble of dst's first byte flipped for an
    int4b_t dst."""
    from ascend_jax import reference as REF

    out = REF.Cast(state, dst, *a, **k)
    if dst.dtype.sub_byte and 0 <= dst.addr < out.ub.size:
        out.ub[dst.addr] ^= 0x1
    return out


def test_cast_int4b_planted_oracle_is_caught_and_capsule_replays(tmp_path):
    """``fuzz.run(apis="Cast", dtypes="int4b")`` with an oracle that flips one nibble of an int4b_t
    output reports mismatches (and only on int4b_t cases); a clean capsule of an int4b_t case replays
    and exports."""
    from ascend_jax.fuzz.engine import Oracle

    res = fuzz.run(
        apis="Cast",
        profile=P,
        cases=24,
        seed=3,
        batch=BATCH,
        dtypes="int4b",
        oracle=Oracle(Cast=_flip_int4b),
        shrink=False,
        workers=1,
        invalid_rate=0,
    )
    recs = [r for r in res.records if r["status"] == "mismatch"]
    assert recs and not res.ok
    fam, cases, _ = int4b_cases(P, 4, seed=36, split=0)
    c = next(c for c in cases if c.dtype == "int4b")
    cap = make_capsule(fam, c, P, batch=BATCH)
    assert cap["difference"] is None and "int4b_t" in cap["call"], cap["call"]
    diff, text = replay(json.loads(json.dumps(cap)), batch=BATCH)
    assert diff is None and "agree" in text, text
    export_capsule(cap, tmp_path / "int4b")
    assert diff_dir(tmp_path / "int4b").clean


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["ascend910b", "ascend950"])
def test_cast_int4b_campaign_slow(profile):
    """``fuzz.run(apis="Cast")`` restricted to the int4b_t pairs (dtypes int4b: the pairs into
    int4b_t; the pairs out of it: the family's run_all on drawn cases): 0 mismatches, the int4b_t
    cases counted in the records, invalid ones rejected."""
    p = load_profile(profile)
    res = fuzz.run(apis="Cast", profile=p, cases=600, seed=33, batch=128, dtypes="int4b", workers=1)
    assert res.ok, res.summary_table()
    assert len(res.records) == 600
    n4 = sum(r["dtype"] == "int4b" for r in res.records)  # an invalid-static case may change the dtype
    assert all(r["dtype"] == "int4b" for r in res.records if r["kind"] != "invalid-static")
    assert n4 >= 540, n4
    assert any(r["status"] == "rejected" for r in res.records)
    fam, cases, kinds = int4b_cases(p, 400, seed=37)
    _check_int4b(p, fam, [c for c in cases], kinds)


def test_units_cover_every_pair_and_mode():
    """On ascend950 (the largest Cast table, and Truncate): every (src, dst, roundMode) of the table
    but DEQSCALE and the complex pairs is a unit, in every call form the pair has; Truncate has every
    (dtype, roundMode). On three products, every reduction and composite API the product supports
    has units (no modelled API is silently left out)."""
    p = P950
    fam = CF.CastFamily()
    units = fam.units(p, "Cast")
    got = {(u[1], u[2], u[3]) for u in units}
    want = {
        (s, t, m)
        for (s, t), (modes, _) in CF.pairs(p).items()
        for m in modes
        if "DEQSCALE" not in modes
        and "complex" not in s + t
        # int4b_t pairs are drawn; fp8 / fp4 / hifloat8: NotModelledError
        and all(as_dtype(d).modelled for d in (s, t))
    }
    assert want <= got, sorted(want - got)
    assert {u[4] for u in units} == {"count", "continuous", "bitwise", "register"}  # 950: no count_register
    trunc = {(u[1], u[3]) for u in fam.units(p, "Truncate")}
    assert trunc == {(d, m) for d in p.api("Truncate").dtypes for m in CF.TRUNCATE_MODES}
    for name in ("ascend910b", "ascend950", "ascend310p"):
        q = load_profile(name)
        for f in (RF.ReduceFamily(), CM.CompoundFamily()):
            for api in f.apis:
                assert bool(f.units(q, api)) == q.api(api).supported, (name, api)


def test_invalid_static_rejected_by_both():
    """Deliberately invalid static calls (count / repeatTime / strides / sharedTmpBuffer /
    reduceType / order / roundMode / dtype pair / dtype out of range): both implementations reject
    each with a UsageError naming the same argument (nothing is compiled)."""
    rng = np.random.default_rng(8)
    n = 0
    whats = set()
    for fam, cases in (reduce_cases(40, 1), compound_cases(25, 2), cast_cases(25, 3)):
        for i, c in enumerate(cases):
            bad, what = fam.invalid_static(rng, P, c)
            rec = check_static(FuzzCase(i, c.api, fam, bad, "invalid-static", what, True), P)
            assert rec["status"] == "rejected", rec
            whats.add(what)
            n += 1
    assert n == 90
    want = {"sharedTmpBuffer", "roundMode", "src.dtype/dst.dtype", "count", "repeatTime"}
    assert want <= whats, sorted(want - whats)


def test_json_round_trip_capsule_replay_and_export(tmp_path):
    """Cases survive JSON (exact floats); a capsule of each family replays (the same batch size as
    the campaigns above: no new program) and exports as .bin files whose golden diffs clean."""
    for fam, cases in (reduce_cases(4, 5), compound_cases(4, 6), cast_cases(4, 7)):
        for c in cases:
            assert fam.from_json(json.loads(json.dumps(fam.to_json(c)))) == c
        c = cases[0]
        cap = make_capsule(fam, c, P, batch=BATCH)
        assert cap["difference"] is None and cap["call"].startswith(c.api), cap["call"]
        assert family_of(cap["family"]) is family_of(c)
        diff, text = replay(json.loads(json.dumps(cap)), batch=BATCH)
        assert diff is None and "agree" in text, text
        out = tmp_path / fam.name
        names = {f.name for f in map(pathlib.Path, export_capsule(cap, out))}
        assert {"golden_dst.bin", "params.json"} <= names and any(n.startswith("input_src") for n in names)
        assert diff_dir(out).clean


@pytest.mark.parametrize("api", ["ReduceMax", "ReduceRepeat"])
def test_reference_reads_src_outside_ub(api):
    """A source past the end of UB is an OUT_OF_UB fault (docs/MODEL.md "Faults"), not an IndexError
    of the reference (found by the campaign: it read the source lanes before its fault check).
    Reference only: nothing is compiled."""
    import ascend_jax.reference as ref
    from ascend_jax.errors import Fault
    from ascend_jax.tensor import LocalTensor

    h = as_dtype("half")
    st = ref.reset_state(P, ub_bytes=8192)
    dst, src, tmp = LocalTensor(h, 0, 16), LocalTensor(h, 8192 - 64, 128), LocalTensor(h, 1024, 512)
    if api == "ReduceMax":
        out = ref.ReduceMax(st, dst, src, tmp, 128, False, profile=P)
    else:
        out = ref.ReduceRepeat(st, dst, src, 128, 1, 1, 1, 8, reduceType="MAX", profile=P)
    assert out.fault & Fault.OUT_OF_UB


@pytest.mark.slow
def test_pair_elem_repeat_dependency_agrees():
    """Found by the 910b campaign (seed 16): ReducePairElem<half> with one active lane whose repeat's
    output span -- but not its one written result -- meets a later repeat's source block. The fast
    path (``_engine/reduce.py``: the whole span ``[dst + r*dstRepStride*unit, +unit)``, as MODEL.md
    "Reductions" words it) faulted REPEAT_DEPENDENCY; the reference checked only the bytes written.
    The reference now follows MODEL.md."""
    fam = RF.ReduceFamily(buckets=(BUCKET, 16, 256))
    c = RF.ReduceCase(
        "ReducePairElem", "half", "SUM", "", False, "register", dst=5696, src=2464, repeat=17,
        vmask=(0, 0, 0, 1, 0, 0, 0, 0), ub_seed=1434786121, data="small",
    )  # fmt: skip
    fast, refs = fam.run_all([c], P, batch=1, workers=1)
    assert fam.compare(fast[0], refs[0]) is None


# -- campaigns (nightly) ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(APIS))
@pytest.mark.parametrize("profile,cases", [("ascend910b", 2000), ("ascend950", 300), ("ascend310p", 300)])
def test_campaign(family, profile, cases):
    """``ascend-jax fuzz --apis <the family's APIs>``: 2,000 cases on the default profile, 300 on
    ascend950 and ascend310p (valid and invalid cases, every API, dtype, variant, form, bucket)."""
    p = load_profile(profile)
    apis = [a for a in APIS[family] if p.api(a).supported]
    res = fuzz.run(apis=apis, profile=p, cases=cases, seed=16, batch=128)
    assert res.ok, res.summary_table()
    assert len(res.records) == cases
