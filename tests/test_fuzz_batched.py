"""The campaign engine's batched paths (issue 36): a chunk's records are built from one batch (its
digests at once, its initial fields stacked at once), each signature's chunk runs as one compiled
program (``runner.launch_chunk``), and the UB bytes of a case come from a counter-based hash of its
seed. Each is checked against the per-case path it replaces, bit for bit.

Default suite vs nightly (session 19 trim): the forced-release campaign runs over Adds<half> only
(three programs, compiled, released and compiled again; the four Adds types, twelve programs, cost
30 s of the default run; cold -n 0 39 -> 14 s wall); 160 cases and one release, as before;
every Adds type runs in test_unary_scalar_differential.py."""

import json
import pathlib

import numpy as np
import pytest

from ascend_jax import fuzz
from ascend_jax.fuzz import runner
from ascend_jax.fuzz.compare import digest, digests
from ascend_jax.fuzz.families import base
from ascend_jax.fuzz.generate import generate_case, make_plan
from ascend_jax.fuzz.resume import JournalError
from ascend_jax.profile import load_profile

P = load_profile("ascend910b")


def _random_fields(rng, n, ub_bytes=64):
    return {
        "ub": rng.integers(0, 256, (n, ub_bytes), dtype=np.uint8),
        "vmask": rng.integers(0, 2**32, (n, 8), dtype=np.uint32),
        "mask_mode": rng.integers(0, 2, n, dtype=np.int32),
        "cmpmask": rng.integers(0, 2**32, (n, 4), dtype=np.uint32),
        "ctrl": rng.integers(0, 2**32, (n, 2), dtype=np.uint32),
        "rsvd_cnt": rng.integers(0, 500, n, dtype=np.int32),
        "fault": rng.integers(0, 2**12, n, dtype=np.uint32),
        "warn": rng.integers(0, 4, n, dtype=np.uint32),
        "warn_at": rng.integers(0, 9, (n, 2), dtype=np.int32),
        # some rows with the special registers zero (left out of the digest), some not
        "deqscale": rng.integers(0, 2**32, (n, 2), dtype=np.uint32) * (rng.random((n, 1)) < 0.5),
        "reduce_spr": rng.integers(0, 2**32, (n, 3), dtype=np.uint32) * (rng.random((n, 1)) < 0.5),
    }


@pytest.mark.parametrize("with_ret", [False, True])
@pytest.mark.parametrize("version", [1, 2])
def test_batch_digests_equal_the_per_case_digest(with_ret, version):
    import types

    rng = np.random.default_rng(7)
    n = 40
    f = _random_fields(rng, n)
    ret = rng.integers(-(2**31), 2**31, n, dtype=np.int64) if with_ret else None
    got = digests(f, ret, version)
    want = [
        digest(
            types.SimpleNamespace(**{k: v[j] for k, v in f.items()}), None if ret is None else ret[j], version
        )
        for j in range(n)
    ]
    assert got == want
    assert len(set(got)) == n  # random states: no collisions


def test_ub_bytes_come_from_the_seed_alone():
    a = base.random_ub(1234, 8192)
    assert a.dtype == np.uint8 and a.shape == (8192,) and a.flags.writeable
    assert np.array_equal(a, base.random_ub(1234, 8192))
    assert np.array_equal(base.random_ub(1234, 100), a[:100])  # a prefix does not depend on n
    b = base.random_ub(1235, 8192)
    assert np.mean(a == b) < 0.01  # another seed: other bytes (1/256 equal by chance)
    # roughly uniform bytes
    counts = np.bincount(np.concatenate([base.random_ub(s, 8192) for s in range(8)]), minlength=256)
    assert counts.min() > 150 and counts.max() < 370


@pytest.mark.parametrize("dtype", ["half", "float32", "int16", "int32", "uint8"])
def test_make_ub_data_styles(dtype):
    from types import SimpleNamespace

    from ascend_jax import dtypes as dt

    d = dt.as_dtype(dtype)
    raw = base.make_ub(SimpleNamespace(ub_seed=9, ub_bytes=4096, dtype=dtype, data="raw"))
    assert np.array_equal(raw, base.random_ub(9, 4096))
    sp = base.make_ub(SimpleNamespace(ub_seed=9, ub_bytes=4096, dtype=dtype, data="specials"))
    words, raw_words = sp.view(d.bits_dtype), raw.view(d.bits_dtype)
    pool = set(int(x) for x in base._special_pool(d))
    from_pool = np.array([int(w) in pool for w in words])
    # every lane is its raw bits or a special value; about half are specials, every special appears
    assert np.all(from_pool | (words == raw_words))
    assert 0.35 < from_pool.mean() < 0.7
    assert {int(w) for w in words[from_pool]} == pool
    sm = base.make_ub(SimpleNamespace(ub_seed=9, ub_bytes=4096, dtype=dtype, data="small"))
    v = sm.view(d.np_dtype).astype(np.float64)
    if d.is_float:
        assert set(np.unique(v * 4)) <= set(range(-64, 64)) and len(np.unique(v)) > 100
    else:
        if d.is_signed_int:
            assert -100 <= v.min() and v.max() < 100
        assert len(np.unique(v)) > 50


@pytest.mark.parametrize("profile", ["ascend910b", "ascend950"])
def test_batch_fields_equal_the_per_case_fields(profile):
    """Every family's batched initial fields (``initial_ubs`` included: a family with its own
    ``initial_ub`` must not inherit a batched UB generator that ignores it, as Cast briefly did)
    equal the per-case ones, on every API's cases."""
    p = load_profile(profile)
    plan = make_plan(p)
    fcs = [generate_case(plan, 3, i, 0.1, 1.0) for i in range(1200)]
    by_sig = {}
    for fc in fcs:
        if fc.kind != "invalid-static":
            key = (fc.family.name, fc.family.signature(fc.case, p))
            by_sig.setdefault(key, (fc.family, []))[1].append(fc.case)
    assert len({name for name, _ in by_sig}) >= 15
    for fam, cases in by_sig.values():
        got = runner.batch_fields(fam, cases, p)
        for j, c in enumerate(cases):
            want = runner.initial_fields(c, fam.initial_ub(c))
            for k, v in want.items():
                assert np.array_equal(got[k][j], v) and got[k].dtype == np.asarray(v).dtype, (fam.name, k)


def test_chunk_size():
    assert runner.chunk_size(1, 256) == 8
    assert runner.chunk_size(8, 256) == 8
    assert runner.chunk_size(9, 256) == 16
    assert runner.chunk_size(200, 256) == 256
    assert runner.chunk_size(5000, 256) == 256
    assert runner.chunk_size(3, 4) == 4


@pytest.fixture(scope="module")
def picked_chunks():
    """Eleven cases of the largest signature of each family of an Adds + Select + GatherMask
    campaign, with the eager vmap's results (``run_fast_chunk``, padded to 16)."""
    plan = make_plan(P, "Adds,Select,GatherMask")
    fcs = [generate_case(plan, 5, i, 0.1, 1.0) for i in range(400)]
    groups = {}
    for fc in fcs:
        if fc.kind != "invalid-static":
            groups.setdefault((fc.family.name, fc.family.signature(fc.case, P)), []).append(fc)
    picked = {}
    for key, fl in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        picked.setdefault(key[0], fl[:11])
    assert set(picked) == {"unary_scalar", "compare_select", "gather_mask"}
    out = []
    for fl in picked.values():
        fam, cases = fl[0].family, [fc.case for fc in fl]
        out.append((fam, cases, runner.run_fast_chunk(fam, cases, P, 16, quick=True)))
    return out


def _assert_batch_is(batch, eager, name):
    assert batch.n == len(eager)
    for j, (st, ret) in enumerate(eager):
        row, ret_b = batch.row(j)
        for f in runner._FIELDS:
            assert np.array_equal(np.asarray(getattr(st, f)), getattr(row, f)), (name, f, j)
        assert (ret is None) == (ret_b is None)
    assert digests(batch.fields, batch.ret) == [digest(st, ret) for st, ret in eager]


def _launch(fam, cases):
    return runner.launch_chunk(fam, cases, P, runner.chunk_size(len(cases), 256), quick=True).result()


def test_compiled_chunk_equals_the_eager_chunk(picked_chunks):
    """The campaign's chunk (the family's public-API call jitted whole per signature, padded to
    ``chunk_size``) gives the eager vmap's bits (``run_fast_chunk``, padded to 16), for families on
    ``Family.fast_fn`` (Select, GatherMask) and one with its own program (Adds)."""
    for fam, cases, eager in picked_chunks:
        _assert_batch_is(_launch(fam, cases), eager, fam.name)


def test_stored_executable_gives_the_same_bits(picked_chunks, tmp_path, monkeypatch):
    """A chunk program written to the executable store (``_compile.executable``) and loaded back in
    place of a compilation (a later run: the process memo emptied) gives the eager bits; a damaged
    store file is rebuilt, not used; the store key changes with the package's sources."""
    from ascend_jax import _compile

    monkeypatch.setattr(_compile, "_store_dir", lambda: tmp_path)
    monkeypatch.setattr(_compile, "_LOADED", {})
    fresh = []
    real_fresh = _compile._fresh_compile

    def counting():
        fresh.append(1)
        return real_fresh()

    monkeypatch.setattr(_compile, "_fresh_compile", counting)
    for fam, cases, eager in picked_chunks:
        _assert_batch_is(_launch(fam, cases), eager, fam.name)  # compiled, written
    assert len(fresh) == 3 and len(list(tmp_path.glob("*.exe"))) == 3
    _compile._LOADED.clear()
    for fam, cases, eager in picked_chunks:
        _assert_batch_is(_launch(fam, cases), eager, fam.name)  # loaded, not compiled
    assert len(fresh) == 3
    for f in tmp_path.glob("*.exe"):
        f.write_bytes(b"not an executable")
    _compile._LOADED.clear()
    fam, cases, eager = picked_chunks[0]
    _assert_batch_is(_launch(fam, cases), eager, fam.name)  # rebuilt
    assert len(fresh) == 4
    args = ({"x": np.zeros(3, np.int32)},)
    k1 = _compile._full_key("k", args, False)
    assert _compile._full_key("k", args, True) != k1
    assert _compile._full_key("k", ({"x": np.zeros(4, np.int32)},), False) != k1
    monkeypatch.setattr(_compile, "_sources_hash", lambda: "an edited engine")
    assert _compile._full_key("k", args, False) != k1


def test_a_journal_of_an_old_generator_is_not_resumed(tmp_path):
    from ascend_jax.fuzz.generate import CASE_GENERATOR

    out = tmp_path / "c"
    # register APIs: eager, nothing to compile (the journal's keys are the test's subject)
    small = dict(apis="SetVectorMask,GetCtrlSpr,SetMaskCount", profile=P, shrink=False)
    fuzz.run(cases=10, seed=1, batch=16, out=out, **small)
    meta = json.loads((out / "meta.json").read_text())
    assert (meta["ub_generator"], meta["case_generator"]) == (base.UB_GENERATOR, CASE_GENERATOR)
    # as journals written before the counter-based UB bytes / the vectorised case generators
    for key in ("ub_generator", "case_generator"):
        (out / "meta.json").write_text(json.dumps({k: v for k, v in meta.items() if k != key}))
        with pytest.raises(JournalError, match=key):
            fuzz.run(cases=10, seed=1, batch=16, out=out, resume=True, **small)


def test_slots_draw_the_case_streams_side_by_side():
    """``rng.Slots`` (the vectorised generators' source) gives every case the words, ints and
    floats its scalar ``CaseRng`` stream gives, for bounds up to 2**64, and continues each stream."""
    from ascend_jax.fuzz.rng import CaseRng, Slots, case_states

    idx = np.arange(400) * 7919 + 3
    slots = Slots(case_states(12345, idx))
    rngs = [CaseRng((12345, int(i))) for i in idx]
    for n in (1, 3, 100, 2**31 - 1, 2**32 + 5, 2**40 + 3, 2**63, 2**64 - 1, 2**64):
        got = [int(v) for v in slots.below(n)]
        assert got == [int(r._below(n)) for r in rngs], n
        assert 0 <= min(got) and max(got) < n
    assert slots.random().tolist() == [r.random() for r in rngs]
    bounds = np.arange(1, 401)
    assert slots.below(bounds).tolist() == [
        int(r.integers(int(b))) for r, b in zip(rngs, bounds, strict=True)
    ]
    assert slots.integers(-8, 9).tolist() == [int(r.integers(-8, 9)) for r in rngs]
    sub = slots.take(np.arange(5, 9)).random().tolist()  # drawn from a copy: ``slots`` stays
    assert sub == [slots.rng(j).random() for j in range(5, 9)]
    assert [slots.rng(j).random() for j in range(len(idx))] == [r.random() for r in rngs]


def test_case_rng_draws():
    from ascend_jax.fuzz.rng import CaseRng

    a, b = CaseRng((5, 17)), CaseRng((5, 17))
    seq = [a.integers(0, 1000) for _ in range(50)]
    assert seq == [b.integers(0, 1000) for _ in range(50)]
    assert seq != [CaseRng((5, 18)).integers(0, 1000) for _ in range(50)]
    r = CaseRng((1, 2))
    xs = [int(r.integers(3, 9)) for _ in range(3000)]
    assert set(xs) == set(range(3, 9))
    assert set(int(r.integers(2, 4, endpoint=True)) for _ in range(300)) == {2, 3, 4}
    assert set(int(r.integers(5)) for _ in range(300)) == set(range(5))
    assert isinstance(r.integers(0, 2**32, dtype=np.uint32), np.uint32)
    full = [int(r.integers(0, 2**64, dtype=np.uint64)) for _ in range(200)]  # the whole 64-bit range
    assert max(full) >= 1 << 62 and min(full) >= 0
    u = [r.random() for _ in range(4000)]
    assert 0 <= min(u) and max(u) < 1 and 0.45 < np.mean(u) < 0.55
    c = [r.choice([2, 4, 16]) for _ in range(300)]
    assert set(map(int, c)) == {2, 4, 16} and isinstance(c[0], np.integer)
    assert isinstance(r.choice(["raw", "small"]), str)
    assert r.integers(0, 10, 4).shape == (4,) and r.random(3).shape == (3,)
    assert sorted(r.permutation(6).tolist()) == list(range(6))
    with pytest.raises(ValueError):
        r.integers(4, 4)


def test_a_campaign_releases_its_programs_when_it_holds_too_many(monkeypatch):
    """A campaign near the OS limit of memory maps (``_compile.too_many_programs``; an all-API
    campaign held 32,570 maps after 1,500 cases, the default limit is 65,530) waits for its running
    chunks and drops every compiled program (``runner.release_programs``), then compiles or loads
    them again: the records are the same as without the release."""
    from ascend_jax import _compile

    # Adds<half> only (its three repeat buckets: three programs, compiled again after the release;
    # session 19: the four types of Adds, 12 programs, were 30 s of the default run)
    kw = dict(apis="Adds", dtypes=["half"], profile=P, cases=160, seed=3, batch=16, oracle_sample=1.0)
    want = fuzz.run(**kw).records
    released, checks = [], []
    real = runner.release_programs
    # one release (after the 8th chunk): each release recompiles what follows, the suite's cost
    monkeypatch.setattr(_compile, "too_many_programs", lambda: (checks.append(1), len(checks) == 1)[1])
    monkeypatch.setattr(runner, "release_programs", lambda: (released.append(1), real())[1])
    got = fuzz.run(**kw).records
    assert len(released) == 1
    assert [(r["i"], r["status"], r.get("digest")) for r in got] == [
        (r["i"], r["status"], r.get("digest")) for r in want
    ]
    assert all(r["status"] in ("ok", "rejected") for r in got)
    assert 0 < _compile._map_count() or not pathlib.Path("/proc/self/maps").exists()
