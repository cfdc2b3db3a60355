"""排序组合（ISASI）: Sort32, MrgSort, GetMrgSortResult, MrgSort4, RpSort16, ProposalConcat,
ProposalExtract (docs/MODEL.md "Sorting and Region Proposals").

- every result example of the pages (tests/data/sort_examples.json: the pages' numbers), through the
  fast path and the reference;
- differential, by bit pattern: the fast path (vmapped, addresses / repeats / lengths / modeNumber
  traced, one program per (API, dtype, bucket)) against the literal reference on random cases drawn
  by the fuzz family (ascend_jax/fuzz/families/sort.py, run by its runner and comparator) -- ties,
  -0/+0, NaN (several payloads), +-inf, unsorted merge queues, random addresses (some misaligned,
  overlapping or outside the arena: faults), tensors shorter than the call (EXTENT warnings); UB
  bytes, faults, warnings and the MrgSort result register compared; a short campaign of the family;
- static (Python int) arguments give the same bits as traced ones;
- misuse: the same argument named by both implementations; faults; products.
"""

import functools
import json
import pathlib
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import SCALE

import ascend_jax as aj
import ascend_jax.reference as R
from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.fuzz.families import sort as SF
from ascend_jax.reference import state as RS
from ascend_jax.testing.traces import max_traces

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "sort_examples.json").read_text(encoding="utf-8"))
A2, P310 = "ascend910b", "ascend310p"
UBN = 8192  # the arena of the random cases
BATCH = 100  # the fast path's padded batch of the random cases (the campaign shares the programs)


# -- helpers ----------------------------------------------------------------------------------------


def _ub_with(n, *parts):
    ub = np.zeros(n, np.uint8)
    for addr, arr in parts:
        raw = np.ascontiguousarray(arr).view(np.uint8).reshape(-1)
        ub[addr : addr + raw.size] = raw
    return ub


def _fast_state(p, ub):
    return aj.reset_state(p, ub_bytes=len(ub)).replace(ub=jnp.asarray(ub))


def _ref_state(p, ub):
    st = R.reset_state(p, ub_bytes=len(ub))
    st.ub = np.array(ub, np.uint8)
    return st


class _Fast:
    """``ascend_jax`` with one repeat bucket (16) and one queue-length bucket (64) for the eager
    example calls: the examples share their compiled programs."""

    def __getattr__(self, name):
        fn = getattr(aj, name)
        if name in ("Sort32", "RpSort16", "ProposalConcat", "ProposalExtract"):
            return functools.partial(fn, max_repeats=16)
        if name in ("MrgSort", "MrgSort4"):
            return functools.partial(fn, max_repeats=16, max_length=64)
        return fn


def _both(p, ub, call, fast=_Fast()):
    """Run ``call(api_module, state)`` (returning the new state) on both implementations."""
    f = call(fast, _fast_state(p, ub))
    r = call(R, _ref_state(p, ub))
    return f, r


def _same(f, r, what=""):
    np.testing.assert_array_equal(np.asarray(f.ub), r.ub, err_msg=what)
    assert int(f.fault) == r.fault, what
    assert int(f.warn) == r.warn and tuple(int(x) for x in np.asarray(f.warn_at)) == tuple(r.warn_at), what


def _read(ub, addr, dtype, n):
    return np.asarray(ub)[addr : addr + n * np.dtype(dtype).itemsize].view(dtype)


# -- the pages' result examples -----------------------------------------------------------------------


def test_proposal_concat_example():
    ex = DATA["ProposalConcat"]
    x = np.array(ex["src"], np.float16)
    ub = _ub_with(UBN, (0, x))
    src, dst = aj.LocalTensor(aj.half, 0, 32), aj.LocalTensor(aj.half, 1024, 32 * 8)
    f, r = _both(P310, ub, lambda m, s: m.ProposalConcat(s, dst, src, 2, 4, profile=P310))
    _same(f, r)
    want = np.zeros(256, np.float16)
    want[4::8] = np.array(ex["dst_score_field"], np.float16)
    np.testing.assert_array_equal(_read(f.ub, 1024, np.uint16, 256), want.view(np.uint16))


def test_proposal_extract_example():
    ex = DATA["ProposalExtract"]
    props = np.zeros(256, np.float16)
    props[4::8] = np.array(ex["src_score_field"], np.float16)
    ub = _ub_with(UBN, (0, props))
    src, dst = aj.LocalTensor(aj.half, 0, 256), aj.LocalTensor(aj.half, 1024, 32)
    f, r = _both(P310, ub, lambda m, s: m.ProposalExtract(s, dst, src, 2, 4, profile=P310))
    _same(f, r)
    want = np.array(ex["dst"], np.float16)
    np.testing.assert_array_equal(_read(f.ub, 1024, np.uint16, 32), want.view(np.uint16))


def test_rpsort16_example():
    ex = DATA["RpSort16"]
    x = np.array(ex["src"], np.float16)
    ub = _ub_with(UBN, (0, x))
    src, work = aj.LocalTensor(aj.half, 0, 32), aj.LocalTensor(aj.half, 1024, 256)

    def call(m, s):
        s = m.ProposalConcat(s, work, src, 2, 4, profile=P310)
        return m.RpSort16(s, work, work, 2, profile=P310)

    f, r = _both(P310, ub, call)
    _same(f, r)
    want = np.zeros(256, np.float16)
    want[4::8] = np.array(ex["dst_score_field"], np.float16)
    np.testing.assert_array_equal(_read(f.ub, 1024, np.uint16, 256), want.view(np.uint16))


def test_mrgsort4_example():
    """MrgSort4.md: 64 scores -> ProposalConcat + RpSort16 (4 groups) -> MrgSort4; the printed dst
    drifts one element per proposal (a print error): its score sequence is the fact."""
    ex = DATA["MrgSort4"]
    x = np.array(ex["src"], np.float16)
    ub = _ub_with(UBN, (0, x))
    src = aj.LocalTensor(aj.half, 0, 64)
    work = aj.LocalTensor(aj.half, 1024, 512)
    dst = aj.LocalTensor(aj.half, 4096, 512)

    def call(m, s):
        for g in range(4):
            s = m.ProposalConcat(s, work[128 * g], src[16 * g], 1, 4, profile=P310)
            s = m.RpSort16(s, work[128 * g], work[128 * g], 1, profile=P310)
        lst = aj.MrgSortSrcList(work[0], work[128], work[256], work[384])
        return m.MrgSort4(s, dst, lst, aj.MrgSort4Info([16, 16, 16, 16], False, 15, 1), profile=P310)

    f, r = _both(P310, ub, call)
    _same(f, r)
    got = _read(f.ub, 4096, np.float16, 512)[4::8]
    np.testing.assert_array_equal(got.view(np.uint16), np.array(ex["dst_scores"], np.float16).view(np.uint16))
    assert R.GetMrgSortResult(r, profile=P310) == aj.GetMrgSortResult(f, profile=P310) == (16, 16, 16, 16)


def test_get_mrg_sort_result_example():
    """GetMrgSortResult.md: Sort32 of 1..128 (4 queues), MrgSort with ifExhaustedSuspension; the
    first 32 records of the printed dst (128 .. 97, index 0). The page prints 96 more, which a
    suspended merge cannot write (queue 4 runs out first): documented doc inconsistency."""
    ex = DATA["GetMrgSortResult"]
    x = np.array(ex["scores"], np.float32)
    ub = _ub_with(UBN, (0, x), (512, np.zeros(128, np.uint32)))
    s0, s1 = aj.LocalTensor(aj.float32, 0, 128), aj.LocalTensor(aj.uint32, 512, 128)
    work, dst = aj.LocalTensor(aj.float32, 1024, 256), aj.LocalTensor(aj.float32, 2048, 256)

    def call(m, s):
        s = m.Sort32(s, work, s0, s1, 4, profile=A2)
        lst = aj.MrgSortSrcList(work[0], work[64], work[128], work[192])
        return m.MrgSort(s, dst, lst, aj.MrgSort4Info([32, 32, 32, 32], True, 0b1111, 1), profile=A2)

    f, r = _both(A2, ub, call)
    _same(f, r)
    first = np.array(ex["dst_first_records"], np.float32)
    np.testing.assert_array_equal(_read(f.ub, 2048, np.uint32, 64), first.view(np.uint32))
    assert aj.GetMrgSortResult(f, profile=A2) == R.GetMrgSortResult(r, profile=A2) == (0, 0, 0, 32)


def test_mrgsort_page_call_example_repeat_two():
    """MrgSort.md's call: 8 sorted queues of 32, repeatTimes 2 -> two sorted runs of 128."""
    rng = np.random.default_rng(7)
    x = rng.uniform(1, 100, 256).astype(np.float32)
    ub = _ub_with(UBN, (0, x), (1024, np.arange(256, dtype=np.uint32)))
    s0, s1 = aj.LocalTensor(aj.float32, 0, 256), aj.LocalTensor(aj.uint32, 1024, 256)
    work, dst = aj.LocalTensor(aj.float32, 2048, 512), aj.LocalTensor(aj.float32, 4096, 512)

    def call(m, s):
        s = m.Sort32(s, work, s0, s1, 8, profile=A2)
        lst = aj.MrgSortSrcList(work[0], work[64], work[128], work[192])
        return m.MrgSort(s, dst, lst, aj.MrgSort4Info([32, 32, 32, 32], False, 0b1111, 2), profile=A2)

    f, r = _both(A2, ub, call)
    _same(f, r)
    out = _read(f.ub, 4096, np.float32, 512).reshape(2, 128, 2)
    for h in range(2):
        np.testing.assert_array_equal(out[h, :, 0], np.sort(x[128 * h : 128 * h + 128])[::-1])
        idx = out[h, :, 1].view(np.uint32)
        np.testing.assert_array_equal(x[idx], out[h, :, 0])


# -- random cases (the fuzz family's generator and runner: ascend_jax/fuzz/families/sort.py) ---------

FAM = SF.SortFamily()
_PROGRAM = {  # the engine's jitted program of each API (one trace per signature)
    "Sort32": "run_sort32",
    "MrgSort": "run_merge",
    "MrgSort4": "run_merge",
    "RpSort16": "run_rpsort16",
    "ProposalConcat": "run_proposal_move",
    "ProposalExtract": "run_proposal_move",
}


def _draw(p, unit, n, seed):
    rng = np.random.default_rng(seed)
    prof = aj.load_profile(p)
    return [FAM.generate(rng, prof, unit, 0.1) for _ in range(n)]


def _diff(f, r):
    """The engine's comparator (UB bytes, registers, faults, the merge result register), plus the
    checker's warnings (which the engine leaves out)."""
    d = FAM.compare(f, r)
    wf = (int(f[0].warn), tuple(int(x) for x in np.asarray(f[0].warn_at)))
    wr = (int(r[0].warn), tuple(int(x) for x in r[0].warn_at))
    if d is None and wf != wr:
        d = f"warnings fast {wf} ref {wr}"
    return d


def _differential(p, cases):
    """Every case through the fast path (one vmapped program, batches of BATCH) and the reference,
    bit for bit; returns the fast results and their fault words."""
    with max_traces(_PROGRAM[cases[0].api], 1):
        fast, refs = FAM.run_all(cases, p, batch=BATCH, workers=1)
    bad = [(c.call_repr(), d) for c, f, r in zip(cases, fast, refs, strict=True) if (d := _diff(f, r))]
    assert not bad, f"{len(bad)} mismatches, first: {bad[0]}"
    faults = np.array([int(f[0].fault) for f in fast])
    assert np.count_nonzero(faults == 0) > len(cases) // 2
    return fast, faults


@pytest.mark.parametrize("dt", ["half", "float32"])
def test_sort32_differential(dt):
    n_cases = 1000 * SCALE
    cases = _draw(A2, ("Sort32", dt), n_cases, 32 if dt == "half" else 33)
    fast, faults = _differential(A2, cases)
    assert np.count_nonzero(faults) > 0
    assert any(int(f[0].warn) for f in fast)  # the EXTENT path ran


@pytest.mark.parametrize(
    "api,p,dt,vb,susp",
    [
        ("MrgSort", A2, "float32", 15, False),
        ("MrgSort", A2, "half", 7, True),
        ("MrgSort4", P310, "half", 15, False),
        ("MrgSort4", P310, "float32", 3, True),
    ],
)
def test_merge_differential(api, p, dt, vb, susp):
    n_cases = (1000 if p == A2 else 300) * SCALE  # >= 2,000 a group on the default profile (A2)
    cases = _draw(p, (api, dt, vb, susp), n_cases, zlib.crc32(f"{api}{dt}".encode()))
    fast, faults = _differential(p, cases)
    assert np.count_nonzero(faults) > 0
    # GetMrgSortResult on the batched states: the compared register, as arrays over the cases
    batched = jax.tree_util.tree_map(lambda *x: np.stack(x), *[f[0] for f in fast])
    got = aj.GetMrgSortResult(batched, profile=p)
    assert len(got) == 4 and np.asarray(got[0]).shape == (n_cases,)
    np.testing.assert_array_equal(np.stack(got, -1), np.stack([f[1] for f in fast]))


@pytest.mark.parametrize("dt", ["half", "float32"])
def test_rpsort16_differential(dt):
    n_cases = 300 * SCALE  # 310P / 910 only: not on the default profile
    _differential(P310, _draw(P310, ("RpSort16", dt), n_cases, 16 if dt == "half" else 17))


@pytest.mark.parametrize("api", ["ProposalConcat", "ProposalExtract"])
@pytest.mark.parametrize("dt", ["half", "float32"])
def test_proposal_move_differential(api, dt):
    n_cases = 200 * SCALE  # 310P / 910 only: not on the default profile
    _differential(P310, _draw(P310, (api, dt), n_cases, zlib.crc32(f"{api}{dt}".encode())))


def test_campaign():
    """``ascend-jax fuzz --apis RpSort16,ProposalConcat,ProposalExtract --profile ascend310p``: a
    short campaign of the family (valid cases, static misuse, data-dependent faults), every case
    checked against the reference. These APIs' programs (batch BATCH) are the differential tests';
    the merges' 12 forms per dtype are left to the CLI's campaigns (one program each)."""
    from ascend_jax import fuzz
    from ascend_jax.fuzz.families import family_of_api

    assert family_of_api("RpSort16").name == "sort"
    apis = ["RpSort16", "ProposalConcat", "ProposalExtract"]
    res = fuzz.run(apis=apis, profile=P310, cases=200, seed=18, batch=BATCH, workers=1)
    assert res.ok, res.summary_table()
    assert len(res.records) == 200
    kinds = {r["kind"] for r in res.records}
    assert kinds == {"valid", "invalid-static", "invalid-data"}, kinds


# -- static == traced ---------------------------------------------------------------------------------


def test_static_arguments_give_the_traced_bits():
    rng = np.random.default_rng(5)
    ub = rng.integers(0, 256, UBN, dtype=np.uint8)
    ub[0:512] = SF.scores(rng, "float32", 128).view(np.uint8)
    T = aj.float32
    args = (aj.LocalTensor(T, 2048, 256), aj.LocalTensor(T, 0, 128), aj.LocalTensor(aj.uint32, 1024, 128))
    static = aj.Sort32(_fast_state(A2, ub), *args, 4, profile=A2)

    @jax.jit
    def traced(ub, rep, d):
        a = (aj.LocalTensor(T, d, 256),) + args[1:]
        return aj.Sort32(_fast_state(A2, ub).replace(ub=ub), *a, rep, profile=A2, max_repeats=4)

    t = traced(jnp.asarray(ub), jnp.int32(4), jnp.int32(2048))
    np.testing.assert_array_equal(np.asarray(static.ub), np.asarray(t.ub))
    lst = aj.MrgSortSrcList(aj.LocalTensor(T, 2048, 64), aj.LocalTensor(T, 2304, 64))
    s2 = aj.MrgSort(
        static, aj.LocalTensor(T, 4096, 128), lst, aj.MrgSort4Info([32, 32, 0, 0], False, 3, 1), profile=A2
    )

    @jax.jit
    def traced_merge(st, l1):
        return aj.MrgSort(
            st,
            aj.LocalTensor(T, 4096, 128),
            lst,
            aj.MrgSort4Info([l1, 32, 0, 0], False, 3, 1),
            profile=A2,
            max_length=32,
        )

    t2 = traced_merge(static, jnp.int32(32))
    np.testing.assert_array_equal(np.asarray(s2.ub), np.asarray(t2.ub))
    assert aj.GetMrgSortResult(s2, profile=A2) == (32, 32, 0, 0)


# -- misuse, faults, products -------------------------------------------------------------------------


def _misuse_cases():
    h, f = aj.half, aj.float32
    d, s0, s1 = aj.LocalTensor(f, 2048, 256), aj.LocalTensor(f, 0, 128), aj.LocalTensor(aj.uint32, 1024, 128)
    lst = aj.MrgSortSrcList(aj.LocalTensor(f, 0, 64), aj.LocalTensor(f, 256, 64))
    pd, ps = aj.LocalTensor(h, 2048, 256), aj.LocalTensor(h, 0, 32)
    return [
        (A2, "Sort32", (d, s0, aj.LocalTensor(f, 1024, 128), 1), "src1.dtype"),
        (A2, "Sort32", (d, aj.LocalTensor(h, 0, 128), s1, 1), "src0.dtype"),
        (A2, "Sort32", (d, s0, s1, 256), "repeatTime"),
        (A2, "Sort32", (aj.LocalTensor(aj.int32, 2048, 256), s0, s1, 1), "dtype"),
        (A2, "MrgSort", (d, lst, aj.MrgSort4Info([32, 32, 0, 0], False, 5, 1)), "params.validBit"),
        (A2, "MrgSort", (d, lst, aj.MrgSort4Info([4096, 32, 0, 0], False, 3, 1)), "params.elementLengths[0]"),
        (A2, "MrgSort", (d, lst, aj.MrgSort4Info([32, 32, 0, 0], False, 3, 256)), "params.repeatTimes"),
        (A2, "MrgSort", (d, lst, aj.MrgSort4Info([32, 32, 0, 0], False, 7, 1)), "src3"),
        (A2, "MrgSort", (d, (s0, s0), aj.MrgSort4Info([32, 32, 0, 0], False, 3, 1)), "src"),
        (P310, "MrgSort4", (pd, lst, aj.MrgSort4Info([4, 4, 0, 0], False, 3, 1)), "src1.dtype"),
        (P310, "MrgSort4", (d, lst, aj.MrgSort4Info([4, 4, 0, 0], False, 3, 0)), "params.repeatTimes"),
        (P310, "ProposalConcat", (pd, ps, 1, 6), "modeNumber"),
        (P310, "ProposalExtract", (ps, pd, 1, -1), "modeNumber"),
        (P310, "RpSort16", (pd, aj.LocalTensor(f, 0, 128), 1), "src.dtype"),
        (A2, "RpSort16", (pd, pd, 1), "api"),
        (
            "ascend910",
            "ProposalConcat",
            (aj.LocalTensor(f, 0, 128), aj.LocalTensor(f, 1024, 16), 1, 4),
            "dtype",
        ),
        ("ascend910", "Sort32", (d, s0, s1, 1), "api"),
    ]


@pytest.mark.parametrize("p,api,args,arg", _misuse_cases(), ids=lambda x: x if isinstance(x, str) else "")
def test_misuse_names_the_argument_in_both(p, api, args, arg):
    with pytest.raises(UsageError) as ef:
        getattr(aj, api)(aj.reset_state(p, ub_bytes=UBN), *args, profile=p)
    with pytest.raises(UsageError) as er:
        getattr(R, api)(R.reset_state(p, ub_bytes=UBN), *args, profile=p)
    assert ef.value.argument == er.value.argument == arg, (ef.value, er.value)
    for e in (ef.value, er.value):  # the message names API, argument, value, allowed values, profile
        assert str(e).startswith(
            f"{api}: {e.argument}={e.value!r} "
        ) and f"'{aj.load_profile(p).name}'" in str(e)
    if arg in ("api", "dtype"):
        assert isinstance(ef.value, UnsupportedError) and isinstance(er.value, UnsupportedError)


def test_get_mrg_sort_result_products():
    assert aj.GetMrgSortResult(aj.reset_state(P310, ub_bytes=1024), profile=P310) == (0, 0, 0, 0)
    assert R.GetMrgSortResult(R.reset_state(P310, ub_bytes=1024), profile=P310) == (0, 0, 0, 0)
    for p in ("ascend910", "ascend310p_vec"):
        with pytest.raises(UnsupportedError):
            aj.GetMrgSortResult(aj.reset_state(p, ub_bytes=1024), profile=p)
        with pytest.raises(UnsupportedError):
            R.GetMrgSortResult(R.reset_state(p, ub_bytes=1024), profile=p)


def _fault_of(p, api, *args, ub=None):
    ub = np.zeros(UBN, np.uint8) if ub is None else ub
    f, r = _both(p, ub, lambda m, s: getattr(m, api)(s, *args, profile=p))
    _same(f, r, api)
    return r.fault


def test_faults():
    f, u = aj.float32, aj.uint32
    s0, s1 = aj.LocalTensor(f, 0, 128), aj.LocalTensor(u, 1024, 128)
    assert _fault_of(A2, "Sort32", aj.LocalTensor(f, 2056, 256), s0, s1, 1) == Fault.MISALIGNED
    assert _fault_of(A2, "Sort32", aj.LocalTensor(f, UBN - 256, 256), s0, s1, 2) == Fault.OUT_OF_UB
    assert _fault_of(A2, "Sort32", aj.LocalTensor(f, 0, 256), s0, s1, 1) == Fault.PARTIAL_OVERLAP
    # 950: repeatTime 0 is not guaranteed a NOP (behavior.zero_repeat = fault); A2: a NOP
    assert _fault_of("ascend950", "Sort32", aj.LocalTensor(f, 2048, 256), s0, s1, 0) == Fault.UNDEFINED
    assert _fault_of(A2, "Sort32", aj.LocalTensor(f, 2048, 256), s0, s1, 0) == 0
    q = [aj.LocalTensor(f, 64 * i * 4, 64) for i in range(4)]
    lst = aj.MrgSortSrcList(*q)
    info = aj.MrgSort4Info([32, 32, 32, 32], False, 15, 2)
    assert _fault_of(A2, "MrgSort", aj.LocalTensor(f, 4096, 512), lst, info) == 0  # contiguous
    info = aj.MrgSort4Info([32, 32, 32, 16], False, 15, 2)
    assert _fault_of(A2, "MrgSort", aj.LocalTensor(f, 4096, 512), lst, info) == Fault.BAD_PARAM
    info = aj.MrgSort4Info([32, 32, 32, 32], False, 15, 1)
    assert _fault_of(A2, "MrgSort", aj.LocalTensor(f, 512, 512), lst, info) == Fault.PARTIAL_OVERLAP
    lst8 = aj.MrgSortSrcList(aj.LocalTensor(f, 4, 64), *q[1:])
    assert _fault_of(A2, "MrgSort", aj.LocalTensor(f, 4096, 512), lst8, info) == Fault.MISALIGNED


def test_proposal_extract_past_its_tensors_runs_with_an_extent_warning():
    """The vendor region_proposal_sort's ProposalExtract: 32 repeats over a 64-proposal src into a
    64-element dst -- runs as on hardware (no fault), the first 64 elements are the scores, and both
    operands carry an EXTENT warning (dst first)."""
    h = aj.half
    props = np.zeros(512, np.float16)
    props[4::8] = np.arange(64, dtype=np.float16)
    ub = _ub_with(UBN, (0, props))
    src, dst = aj.LocalTensor(h, 0, 512), aj.LocalTensor(h, 1024, 64)
    f, r = _both(P310, ub, lambda m, s: m.ProposalExtract(s, dst, src, 32, 4, profile=P310), fast=aj)
    _same(f, r)
    assert r.fault == 0 and r.warn == aj.checks.Warn.EXTENT
    assert aj.checks.describe(r.warn, r.warn_at) == "EXTENT (first: ProposalExtract dst)"
    np.testing.assert_array_equal(_read(f.ub, 1024, np.float16, 64), np.arange(64, dtype=np.float16))


def test_nan_order_profile_choice():
    """NaN sorts above +inf ("largest", the default) or below -inf ("smallest")."""
    import dataclasses

    p = aj.load_profile(A2)
    a = p.api("Sort32")
    small = dataclasses.replace(
        p,
        apis=tuple(
            dataclasses.replace(x, extra=(("nan_order", "smallest"),)) if x is a else x for x in p.apis
        ),
    )
    x = np.full(32, 1.0, np.float32)
    x[5], x[9], x[20] = np.nan, np.inf, -np.inf
    ub = _ub_with(UBN, (0, x), (128, np.arange(32, dtype=np.uint32)))
    args = (
        aj.LocalTensor(aj.float32, 1024, 64),
        aj.LocalTensor(aj.float32, 0, 32),
        aj.LocalTensor(aj.uint32, 128, 32),
        1,
    )
    for prof, first, last in ((p, 5, 20), (small, 9, 5)):
        f, r = _both(prof, ub, lambda m, s, prof=prof: m.Sort32(s, *args, profile=prof))
        _same(f, r)
        idx = _read(f.ub, 1024, np.uint32, 64)[1::2]
        assert idx[0] == first and idx[-1] == last
        ones = [i for i in idx if i not in (5, 9, 20)]
        assert ones == sorted(ones)  # ties keep their input order


def test_ref_state_copies_the_register():
    st = R.reset_state(A2, ub_bytes=64)
    st.mrgsort_cnt = (1, 2, 3, 4)
    assert RS.copy_state(st).mrgsort_cnt == (1, 2, 3, 4)


def test_vendor_region_proposal_sort_runs_with_checker_warnings():
    """issue 18 defect 7: the vendor sample's ProposalExtract reads and writes past its tensors; the
    kernel runs as on hardware (the 64 scores come out sorted, bit for bit) and every case records
    the EXTENT warning, first on ProposalExtract's dst."""
    import ops.vendor_region_proposal_sort as rps

    x = np.random.default_rng(9).uniform(-1000, 1000, (2, 64)).astype(np.float16)
    y = np.zeros((2, 64), np.float16)
    res = aj.jit_kernel(rps.region_proposal_sort_custom, P310, ub_bytes="full")(x, y)  # one program
    np.testing.assert_array_equal(res.gm[1].view(np.uint16), np.sort(x, axis=1)[:, ::-1].view(np.uint16))
    assert res.warnings == ("EXTENT (first: ProposalExtract dst)",) * 2


def test_sort32_per_iteration_alignment_is_a_size_warning():
    """dst 32-byte aligned (no fault) but not 256: the call runs, with a SIZE warning on dst."""
    f, u = aj.float32, aj.uint32
    args = (aj.LocalTensor(f, 2048 + 32, 64), aj.LocalTensor(f, 0, 32), aj.LocalTensor(u, 1024, 32), 1)
    fa, r = _both(A2, np.zeros(UBN, np.uint8), lambda m, s: m.Sort32(s, *args, profile=A2))
    _same(fa, r)
    assert r.fault == 0 and aj.checks.describe(r.warn, r.warn_at) == "SIZE (first: Sort32 dst)"
