"""排序组合（ISASI）: Sort32, MrgSort, GetMrgSortResult, MrgSort4, RpSort16, ProposalConcat,
ProposalExtract (docs/MODEL.md "Sorting and Region Proposals").

- every result example of the pages (tests/data/sort_examples.json: the pages' numbers), through the
  fast path and the reference;
- differential, by bit pattern: the fast path (vmapped, addresses / repeats / lengths / modeNumber
  traced, one program per (API, dtype, bucket)) against the literal reference on random cases drawn
  with NumPy -- ties, -0/+0, NaN (several payloads), +-inf, unsorted merge queues, random addresses
  (some misaligned, overlapping or outside the arena: faults), tensors shorter than the call
  (EXTENT warnings); UB bytes, faults, warnings and the MrgSort result register compared;
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
from ascend_jax.reference import state as RS

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "sort_examples.json").read_text(encoding="utf-8"))
A2, P310 = "ascend910b", "ascend310p"
UBN = 8192  # the arena of the random cases
NP = {"half": np.float16, "float32": np.float32}
UI = {"half": np.uint16, "float32": np.uint32}


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


# -- random cases -------------------------------------------------------------------------------------

_SPECIAL = {
    "half": [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE00, 0x3C00, 0xBC00, 0x0001, 0x8001],
    "float32": [
        0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC00000,
        0x3F800000, 0xBF800000, 0x00000001, 0x80000001,
    ],
}  # fmt: skip


def _scores(rng, dt, n):
    """Score bits: a third specials (±0, ±inf, NaNs, ±1, denormals), a third from a pool of 3
    values (ties), a third random bit patterns."""
    u = UI[dt]
    bits = 16 if dt == "half" else 32
    pool = rng.integers(0, 1 << bits, 3, dtype=np.uint64)
    kind = rng.integers(0, 3, n)
    special = np.array(_SPECIAL[dt], np.uint64)[rng.integers(0, len(_SPECIAL[dt]), n)]
    tie = pool[rng.integers(0, 3, n)]
    rnd = rng.integers(0, 1 << bits, n, dtype=np.uint64)
    return np.where(kind == 0, special, np.where(kind == 1, tie, rnd)).astype(u)


def _addr(rng, lo, hi, align=32):
    """A random aligned address in [lo, hi); now and then a wild one (misaligned / anywhere)."""
    roll = rng.random()
    if roll < 0.03:
        return int(rng.integers(0, UBN)) & ~1
    if roll < 0.06:
        return int(rng.integers(0, UBN // align)) * align
    return lo + int(rng.integers(0, max(1, (hi - lo) // align))) * align


def _run_batch(fn, ubs, *args):
    """jit(vmap(fn)) over the cases: ``fn(ub, *args)`` -> new CoreState."""
    return jax.jit(jax.vmap(fn))(
        jnp.asarray(np.stack(ubs)), *(jnp.asarray(np.array(a, np.int32)) for a in args)
    )


def _cmp_batch(out, refs, cnt=False):
    ub, fault = np.asarray(out.ub), np.asarray(out.fault)
    warn, warn_at = np.asarray(out.warn), np.asarray(out.warn_at)
    mc = None if out.mrgsort_cnt is None else np.asarray(out.mrgsort_cnt)
    bad = []
    for i, r in enumerate(refs):
        ok = np.array_equal(ub[i], r.ub) and int(fault[i]) == r.fault
        ok = ok and int(warn[i]) == r.warn and tuple(int(x) for x in warn_at[i]) == tuple(r.warn_at)
        if cnt:
            ok = ok and tuple(int(x) for x in mc[i]) == tuple(r.mrgsort_cnt)
        if not ok:
            bad.append(i)
    return bad


def _fill_random(rng, n):
    return rng.integers(0, 256, n, dtype=np.uint8)


@pytest.mark.parametrize("dt", ["half", "float32"])
def test_sort32_differential(dt):
    rng = np.random.default_rng(32 if dt == "half" else 33)
    n_cases = 1000 * SCALE
    p = A2
    size = np.dtype(NP[dt]).itemsize
    L0, L1, LD = 2 * 32, 2 * 32, 3 * 64  # tensors shorter than 4 repeats: EXTENT warnings
    ubs, args, refs = [], [], []
    for _ in range(n_cases):
        ub = _fill_random(rng, UBN)
        rep = int(rng.integers(0, 5))
        a0, a1, ad = _addr(rng, 0, 1024), _addr(rng, 1024, 2048), _addr(rng, 2048, UBN - 1024)
        sc = _scores(rng, dt, 128)
        ub[a0 : a0 + 128 * size] = sc.view(np.uint8)[: max(0, min(128 * size, UBN - a0))]
        ubs.append(ub)
        args.append((a0, a1, ad, rep))
    base = aj.reset_state(p, ub_bytes=UBN)
    T = aj.as_dtype(dt)

    def fn(ub, a0, a1, ad, rep):
        st = base.replace(ub=ub)
        dst = aj.LocalTensor(T, ad, LD)
        return aj.Sort32(
            st,
            dst,
            aj.LocalTensor(T, a0, L0),
            aj.LocalTensor(aj.uint32, a1, L1),
            rep,
            profile=p,
            max_repeats=4,
        )

    out = _run_batch(fn, ubs, *zip(*args, strict=True))
    for ub, (a0, a1, ad, rep) in zip(ubs, args, strict=True):
        refs.append(
            R.Sort32(
                _ref_state(p, ub),
                aj.LocalTensor(T, ad, LD),
                aj.LocalTensor(T, a0, L0),
                aj.LocalTensor(aj.uint32, a1, L1),
                rep,
                profile=p,
            )
        )
    bad = _cmp_batch(out, refs)
    assert not bad, f"{len(bad)} mismatches, first case {bad[0]}: {args[bad[0]]}"
    faults = np.asarray(out.fault)
    assert np.count_nonzero(faults == 0) > n_cases // 2 and np.count_nonzero(faults) > 0
    assert np.count_nonzero(np.asarray(out.warn)) > 0  # the EXTENT path ran


def _queues(rng, dt, nq, lengths, rec, score_off, sorted_share=0.5):
    """Random records of each queue: bytes random, score bits from ``_scores``; half the queues
    sorted (descending, by the reference's order), half not."""
    size = np.dtype(NP[dt]).itemsize
    allsc = _scores(rng, dt, int(sum(lengths[:nq])))
    cut = np.cumsum([0] + list(lengths[:nq]))
    out = []
    for q in range(nq):
        n = lengths[q]
        recs = rng.integers(0, 256, (n, rec), dtype=np.uint8)
        sc = allsc[cut[q] : cut[q + 1]]
        if rng.random() < sorted_share:
            with np.errstate(invalid="ignore"):  # signalling NaN payloads
                v = sc.view(NP[dt]).astype(np.float64)
            key = np.where(np.isnan(v), -np.inf, -v)
            sc = sc[np.argsort(key, kind="stable")]
        recs[:, score_off : score_off + size] = sc.view(np.uint8).reshape(n, size)
        out.append(recs)
    return out


def _merge_cases(rng, api, dt, p, nq, susp, n_cases, L, max_rep):
    size = np.dtype(NP[dt]).itemsize
    rec, off = (8, 0) if api == "MrgSort" else (8 * size, 4 * size)
    ubs, args = [], []
    for _ in range(n_cases):
        ub = _fill_random(rng, UBN)
        contiguous = (not susp) and nq == 4 and rng.random() < 0.5
        if contiguous:
            rep = int(rng.integers(1, max_rep + 1))
            ln = int(rng.integers(0, L + 1)) if rng.random() < 0.9 else int(rng.integers(0, L + 1))
            lengths = [ln] * 4
            if rng.random() < 0.1:
                lengths[3] = int(rng.integers(0, L + 1))  # unequal with repeat > 1: BAD_PARAM
            a = _addr(rng, 0, 1024)
            srcs = [a + q * ln * rec for q in range(4)]
            # repeats: the queues of repeat r follow
            body = np.concatenate(
                [np.concatenate(_queues(rng, dt, 4, [ln] * 4, rec, off)).reshape(-1) for _ in range(rep)]
                or [np.zeros(0, np.uint8)]
            )
            end = min(UBN, a + body.size)
            ub[a:end] = body[: end - a]
        else:
            lo = 1 if api == "MrgSort4" else 0  # MrgSort4: repeatTimes in [1, 255]
            rep = 1 if rng.random() < 0.9 else int(rng.integers(lo, max_rep + 1))
            lengths = [int(rng.integers(0, L + 1)) for _ in range(4)]
            srcs = [
                _addr(rng, 1024 * q, 1024 * q + 1024 - L * rec, align=8 if api == "MrgSort" else 32)
                for q in range(4)
            ]
            for q, recs in enumerate(_queues(rng, dt, 4, lengths, rec, off)):
                raw = recs.reshape(-1)
                end = min(UBN, srcs[q] + raw.size)
                ub[srcs[q] : end] = raw[: end - srcs[q]]
        d = _addr(rng, 4096, UBN - 4 * L * rec)
        ubs.append(ub)
        args.append((d, *srcs, *lengths, rep))
    return ubs, args


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
    rng = np.random.default_rng(zlib.crc32(f"{api}{dt}".encode()))
    n_cases = (1000 if p == A2 else 300) * SCALE  # >= 2,000 a group on the default profile (A2)
    L, max_rep = 8 if api == "MrgSort4" else 16, 2
    nq = {3: 2, 7: 3, 15: 4}[vb]
    ubs, args = _merge_cases(rng, api, dt, p, nq, susp, n_cases, L, max_rep)
    T = aj.as_dtype(dt)
    rec = 8 if api == "MrgSort" else 8 * T.itemsize
    LQ = L * rec // T.itemsize  # each queue tensor holds L records
    LD = 3 * L * rec // T.itemsize  # dst shorter than the longest call: EXTENT warnings
    base = aj.reset_state(p, ub_bytes=UBN)

    def tensors(d, s, ls):
        qs = [aj.LocalTensor(T, s[q], LQ) for q in range(4)]
        return aj.LocalTensor(T, d, LD), aj.MrgSortSrcList(*qs)

    def fn(ub, d, s1, s2, s3, s4, l1, l2, l3, l4, rep):
        dst, lst = tensors(d, (s1, s2, s3, s4), None)
        info = aj.MrgSort4Info([l1, l2, l3, l4], susp, vb, rep)
        return getattr(aj, api)(
            base.replace(ub=ub), dst, lst, info, profile=p, max_repeats=max_rep, max_length=L
        )

    out = _run_batch(fn, ubs, *zip(*args, strict=True))
    refs = []
    for ub, a in zip(ubs, args, strict=True):
        d, srcs, lengths, rep = a[0], a[1:5], list(a[5:9]), a[9]
        dst, lst = tensors(d, srcs, lengths)
        info = aj.MrgSort4Info(lengths, susp, vb, rep)
        refs.append(getattr(R, api)(_ref_state(p, ub), dst, lst, info, profile=p))
    bad = _cmp_batch(out, refs, cnt=True)
    assert not bad, f"{len(bad)} mismatches, first case {bad[0]}: {args[bad[0]]}"
    faults = np.asarray(out.fault)
    assert np.count_nonzero(faults == 0) > n_cases // 2 and np.count_nonzero(faults) > 0
    got = aj.GetMrgSortResult(out, profile=p)
    assert len(got) == 4 and np.asarray(got[0]).shape == (n_cases,)


@pytest.mark.parametrize("dt", ["half", "float32"])
def test_rpsort16_differential(dt):
    rng = np.random.default_rng(16 if dt == "half" else 17)
    n_cases = 300 * SCALE  # 310P / 910 only: not on the default profile
    p = P310
    T = aj.as_dtype(dt)
    rec = 8 * T.itemsize
    LT = 3 * 16 * 8  # 3 repeats of proposals: EXTENT beyond
    ubs, args = [], []
    for _ in range(n_cases):
        ub = _fill_random(rng, UBN)
        rep = int(rng.integers(0, 5))
        s = _addr(rng, 0, 2048)
        d = s if rng.random() < 0.3 else _addr(rng, 4096, UBN - 4 * 16 * rec)
        sc = _scores(rng, dt, 64)
        for i in range(64):
            a = s + i * rec + 4 * T.itemsize
            if a + T.itemsize <= UBN:
                ub[a : a + T.itemsize] = sc[i : i + 1].view(np.uint8)
        ubs.append(ub)
        args.append((d, s, rep))
    base = aj.reset_state(p, ub_bytes=UBN)

    def fn(ub, d, s, rep):
        return aj.RpSort16(
            base.replace(ub=ub),
            aj.LocalTensor(T, d, LT),
            aj.LocalTensor(T, s, LT),
            rep,
            profile=p,
            max_repeats=4,
        )

    out = _run_batch(fn, ubs, *zip(*args, strict=True))
    refs = [
        R.RpSort16(_ref_state(p, ub), aj.LocalTensor(T, d, LT), aj.LocalTensor(T, s, LT), rep, profile=p)
        for ub, (d, s, rep) in zip(ubs, args, strict=True)
    ]
    bad = _cmp_batch(out, refs)
    assert not bad, f"{len(bad)} mismatches, first case {bad[0]}: {args[bad[0]]}"
    assert np.count_nonzero(np.asarray(out.fault) == 0) > n_cases // 2


@pytest.mark.parametrize("api", ["ProposalConcat", "ProposalExtract"])
@pytest.mark.parametrize("dt", ["half", "float32"])
def test_proposal_move_differential(api, dt):
    rng = np.random.default_rng(zlib.crc32(f"{api}{dt}".encode()))
    n_cases = 200 * SCALE  # 310P / 910 only: not on the default profile
    p = P310
    T = aj.as_dtype(dt)
    LP, LE = 3 * 16 * 8, 3 * 16  # 3 repeats: EXTENT beyond
    ubs, args = [], []
    for _ in range(n_cases):
        ub = _fill_random(rng, UBN)
        rep = int(rng.integers(0, 5))
        mode = int(rng.integers(0, 6))
        # overlapping operands now and then (program order)
        if rng.random() < 0.2:
            d, s = _addr(rng, 0, 4096), _addr(rng, 0, 4096)
        else:
            d, s = _addr(rng, 0, 2048), _addr(rng, 4096, UBN - 2048)
        ubs.append(ub)
        args.append((d, s, rep, mode))
    base = aj.reset_state(p, ub_bytes=UBN)
    concat = api == "ProposalConcat"
    ld, ls = (LP, LE) if concat else (LE, LP)

    def fn(ub, d, s, rep, mode):
        f = getattr(aj, api)
        return f(
            base.replace(ub=ub),
            aj.LocalTensor(T, d, ld),
            aj.LocalTensor(T, s, ls),
            rep,
            mode,
            profile=p,
            max_repeats=4,
        )

    out = _run_batch(fn, ubs, *zip(*args, strict=True))
    refs = [
        getattr(R, api)(
            _ref_state(p, ub), aj.LocalTensor(T, d, ld), aj.LocalTensor(T, s, ls), rep, mode, profile=p
        )
        for ub, (d, s, rep, mode) in zip(ubs, args, strict=True)
    ]
    bad = _cmp_batch(out, refs)
    assert not bad, f"{len(bad)} mismatches, first case {bad[0]}: {args[bad[0]]}"
    assert np.count_nonzero(np.asarray(out.fault) == 0) > n_cases // 2


# -- static == traced ---------------------------------------------------------------------------------


def test_static_arguments_give_the_traced_bits():
    rng = np.random.default_rng(5)
    ub = _fill_random(rng, UBN)
    ub[0:512] = _scores(rng, "float32", 128).view(np.uint8)
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
