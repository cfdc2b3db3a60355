"""Data layout (数据排布转换/: Transpose, TransDataTo5HD) and data rearrangement (数据重排（ISASI）/:
Interleave, DeInterleave).

* every result example of the pages (tests/data/layout_examples.json, numbers extracted from the
  pages) through the reference and the fast path, in every prototype the pages show;
* differential: fast path == reference, bit for bit (UB, registers, fault word), on random cases of
  the fuzz family ``ascend_jax.fuzz.families.layout`` (>= 2,000 per API, ``SCALE`` x nightly) with
  random addresses (aligned, misaligned, overlapping, outside UB), sizes, strides and counts, the
  public API vmapped, at most one program per signature; a traced parameter out of range is BAD_PARAM in the fast path and a UsageError in the
  reference; a short ``fuzz.run`` campaign over the family;
* static and traced parameters give the same bits; misuse names the same argument in both; faults;
* the vendor sample ``interleave_pair`` (two output files) against its gen_data goldens (the
  ``transpose`` sample is in tests/test_vendor_samples.py PORTED).
"""

import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import SCALE

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax.dtypes import as_dtype
from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.fuzz.compare import message
from ascend_jax.fuzz.families import family_of_api
from ascend_jax.fuzz.families import layout as LF
from ascend_jax.profile import load_profile
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state
from ascend_jax.tensor import LocalTensor
from ascend_jax.testing.traces import max_traces

T = LocalTensor
DATA = json.loads(
    (pathlib.Path(__file__).parent / "data" / "layout_examples.json").read_text(encoding="utf-8")
)
TT = aj.TransposeType
P5 = aj.TransDataTo5HDParams


def _states(prof, ub):
    rs = RS.reset_state(prof, ub_bytes=ub.size)
    rs.ub = ub.copy()
    return reset_state(prof, ub_bytes=ub.size).replace(ub=jnp.asarray(ub)), rs


def _put(ub, addr, values):
    raw = np.ascontiguousarray(values).view(np.uint8).reshape(-1)
    ub[addr : addr + raw.size] = raw
    return ub


# ---------------------------------------------------------------------------------------------
# result examples


def test_transpose_16x16_example():
    ex = DATA["transpose_16x16_half"]
    src = np.array(ex["src"], np.float16)
    want = np.array(ex["dst"], np.float16)
    assert np.array_equal(want.reshape(16, 16), src.reshape(16, 16).T)  # the page's own pseudo-code
    ub = _put(np.zeros(4096, np.uint8), 0, src)
    for prof, args in (
        ("ascend910b", ()),  # Transpose<half>(dst, src)
        ("ascend950", (T(aj.uint8, 2048, 64), aj.TransposeParamsExt(0, 0, 16, 16, TT.TRANSPOSE_ND2ND_B16))),
    ):
        st, rs = _states(prof, ub)
        ref = REF.Transpose(rs, T(aj.half, 1024, 256), T(aj.half, 0, 256), *args, profile=prof)
        fast = aj.Transpose(st, T(aj.half, 1024, 256), T(aj.half, 0, 256), *args, profile=prof)
        assert ref.fault == 0 and message(fast, ref) is None
        got = ref.ub[1024 : 1024 + 512].view(np.uint16)
        assert np.array_equal(got, want.view(np.uint16)), prof
    # in place ("普通转置接口支持src和dst复用")
    st, rs = _states("ascend910b", ub)
    ref = REF.Transpose(rs, T(aj.half, 0, 256), T(aj.half, 0, 256), profile="ascend910b")
    fast = aj.Transpose(st, T(aj.half, 0, 256), T(aj.half, 0, 256), profile="ascend910b")
    assert ref.fault == 0 and message(fast, ref) is None
    assert np.array_equal(ref.ub[:512].view(np.uint16), want.view(np.uint16))


def _5hd_lists(dt, form, dst=4096, src=0, ub=None):
    """The page's address lists: 16 consecutive DataBlocks each (width = 32 / sizeof(T) elements)."""
    width = 32 // dt.itemsize
    d = [T(dt, dst, 512 // dt.itemsize)[width * i] for i in range(16)]
    s = [T(dt, src, 512 // dt.itemsize)[width * i] for i in range(16)]
    if form == "tensors":
        return d, s, {}
    if form == "uint64":
        return [t.GetPhyAddr() for t in d], [t.GetPhyAddr() for t in s], {"T": dt}
    # LocalTensor<uint64_t> tables at 8192 / 8320, written with SetValue
    _put(ub, 8192, np.array([t.GetPhyAddr() for t in d], np.uint64))
    _put(ub, 8320, np.array([t.GetPhyAddr() for t in s], np.uint64))
    return T(aj.uint64, 8192, 16), T(aj.uint64, 8320, 16), {"T": dt}


@pytest.mark.parametrize("form", ["uint64", "tensors", "table"])
@pytest.mark.parametrize("idx", [0, 1, 2], ids=["int8", "half", "int32"])
def test_trans_data_to_5hd_examples(idx, form):
    """The page's three result examples (int8 high halves, half, int32), each through the three
    prototypes; dst starts as zeros (the int8 example prints zero low halves)."""
    ex = DATA["trans5hd"][idx]
    dt = as_dtype(ex["dtype"])
    src = np.array(ex["src"]).astype(dt.np_dtype)
    want = np.array(ex["dst"]).astype(dt.np_dtype)
    ub = _put(np.zeros(16384, np.uint8), 0, src)
    dl, sl, kw = _5hd_lists(dt, form, ub=ub)
    params = P5(
        ex["dstHighHalf"], ex["srcHighHalf"], ex["repeatTimes"], ex["dstRepStride"], ex["srcRepStride"]
    )
    st, rs = _states("ascend910b", ub)
    ref = REF.TransDataTo5HD(rs, dl, sl, params, profile="ascend910b", **kw)
    fast = aj.TransDataTo5HD(st, dl, sl, params, profile="ascend910b", **kw)
    assert ref.fault == 0 and message(fast, ref) is None
    got = ref.ub[4096 : 4096 + want.nbytes].view(dt.bits_dtype)
    assert np.array_equal(got, want.view(dt.bits_dtype))


def _seq(spec, n, dt):
    lo, hi = (int(x) for x in spec.split(".."))
    assert hi - lo + 1 == n
    return np.arange(lo, hi + 1).astype(dt.np_dtype)


@pytest.mark.parametrize("name", ["interleave", "deinterleave2", "deinterleave1"])
def test_interleave_examples(name):
    ex = DATA[name]
    h = aj.half
    n = ex.get("count", ex.get("srcCount"))
    ub = np.zeros(8192, np.uint8)
    if name == "deinterleave1":
        _put(ub, 0, _seq(ex["src"], n, h))
        srcs, n_out = (T(h, 0, n),), n // 2
    else:
        _put(ub, 0, _seq(ex["src0"], n, h))
        _put(ub, 1024, _seq(ex["src1"], n, h))
        srcs, n_out = (T(h, 0, n), T(h, 1024, n)), n
    dsts = (T(h, 4096, n), T(h, 6144, n))
    api = "Interleave" if name == "interleave" else "DeInterleave"
    st, rs = _states("ascend950", ub)
    ref = getattr(REF, api)(rs, *dsts, *srcs, n, profile="ascend950")
    fast = getattr(aj, api)(st, *dsts, *srcs, n, profile="ascend950")
    assert ref.fault == 0 and message(fast, ref) is None
    for key, addr in (("dst0_printed", 4096), ("dst1_printed", 6144)):
        got = ref.ub[addr : addr + 2 * n_out].view(np.float16)
        for i, v in ex[key].items():
            assert got[int(i)] == v, (name, key, i)


# ---------------------------------------------------------------------------------------------
# differential campaigns (>= 2,000 cases per API on a profile that has it)
#
# Cases come from the fuzz family (``ascend_jax.fuzz.families.layout``: the generator the CLI uses,
# random addresses aligned / misaligned / overlapping / outside UB, sizes, strides, counts, every
# prototype and transpose type); ``LayoutFamily.run_all`` runs them through the public API vmapped,
# at most one program per signature (Transpose's five prototypes / types build three, the three
# Interleave / DeInterleave prototypes one), and through the reference; ``compare`` checks UB bytes, registers and fault word. A traced parameter out of range
# is BAD_PARAM in the fast path and a UsageError in the reference ("bad" below).

FAM = LF.LayoutFamily()
BATCH = 256
UB_T = LF.UB_BYTES["Transpose"]
UB_I = LF.UB_BYTES["Interleave"]


def _run(cases, prof, core):
    """Run and compare every case (at most one program of the jitted engine ``core`` per signature:
    API x dtype x prototype); {fault word or "bad": n}."""
    n_sig = len({FAM.signature(c, load_profile(prof)) for c in cases})
    with max_traces(core, n_sig):
        fast, refs = FAM.run_all(cases, prof, batch=BATCH, workers=1)
    seen = {}
    for c, f, r in zip(cases, fast, refs, strict=True):
        d = FAM.compare(f, r)
        assert d is None, (c.call_repr(), str(d))
        fault = int(r[0].fault)
        key = "bad" if fault & Fault.BAD_PARAM else fault
        seen[key] = seen.get(key, 0) + 1
    return seen


def _fault_bits(seen):
    bits = 0
    for v in seen:
        bits |= v if isinstance(v, int) else 0
    return bits


def _units(prof, api, dt):
    return [u for u in FAM.units(load_profile(prof), api) if u[1] == dt]


# plain 16x16, ND2ND_B16, NCHW2NHWC, NHWC2NCHW, NONE
T_WEIGHTS = {"plain": 0.2, "b16": 0.1, "nchw": 0.36, "nhwc": 0.3, "none": 0.04}


@pytest.mark.parametrize("prof,dt,n", [("ascend910b", "uint16", 2000 * SCALE)])
def test_transpose_differential(prof, dt, n):
    """Every prototype and transposeType (plain 16x16, ND2ND_B16, NCHW2NHWC, NHWC2NCHW, NONE); sizes,
    addresses and the sharedTmpBuffer address traced; three programs for the five signatures."""
    units = _units(prof, "Transpose", dt)
    assert [u[2] for u in units] == list(T_WEIGHTS)
    cases = LF.draw_cases(load_profile(prof), units, n, 16, weights=list(T_WEIGHTS.values()))
    seen = _run(cases, prof, "run_transpose")
    # the campaign reached clean runs, BAD_PARAM and every fault kind this API has
    assert seen.get(0, 0) > n // 3 and seen.get("bad", 0) > 0, seen
    bits = _fault_bits(seen)
    assert bits & Fault.MISALIGNED and bits & Fault.OUT_OF_UB and bits & Fault.PARTIAL_OVERLAP, seen


@pytest.mark.parametrize(
    "prof,dt,n",
    [
        ("ascend910b", "half", 1000 * SCALE),
        ("ascend910b", "int8", 500 * SCALE),
        ("ascend910b", "float32", 500 * SCALE),
    ],
)
def test_trans_data_to_5hd_differential(prof, dt, n):
    """2,000 cases over the three element widths (the byte permutation differs per width), the
    uint64 address-list prototype: repeatTimes, strides, the half flags and the 32 addresses traced."""
    cases = LF.draw_cases(load_profile(prof), [("TransDataTo5HD", dt, "list")], n, 5)
    seen = _run(cases, prof, "run_5hd")
    assert seen.get(0, 0) > n // 4, seen
    bits = _fault_bits(seen)
    assert bits & Fault.MISALIGNED and bits & Fault.OUT_OF_UB, seen
    if dt == "half":
        assert bits & Fault.PARTIAL_OVERLAP and bits & Fault.REPEAT_DEPENDENCY and seen.get("bad"), seen


def test_trans_data_to_5hd_table_form_differential():
    """The LocalTensor<uint64_t> prototype: the 16 + 16 addresses are read from UB at run time
    (random tables, some misaligned), one program."""
    n = 200 * SCALE
    cases = LF.draw_cases(load_profile("ascend910b"), [("TransDataTo5HD", "half", "table")], n, 55)
    seen = _run(cases, "ascend910b", "run_5hd")
    assert seen.get(0, 0) > 20 and _fault_bits(seen) & Fault.MISALIGNED, seen


@pytest.mark.parametrize("prof,dt,n", [("ascend950", "half", 2000 * SCALE)])
def test_interleave_differential(prof, dt, n):
    """Interleave and both DeInterleave prototypes, n cases of each API; addresses and counts
    traced; one program for the two APIs and three prototypes."""
    p = load_profile(prof)
    cases = LF.draw_cases(p, _units(prof, "Interleave", dt), n, 1)
    cases += LF.draw_cases(p, _units(prof, "DeInterleave", dt), n, 2)
    seen = _run(cases, prof, "run_pair")
    assert seen.get(0, 0) > n // 2 and seen.get("bad"), seen
    bits = _fault_bits(seen)
    assert bits & Fault.MISALIGNED and bits & Fault.OUT_OF_UB and bits & Fault.PARTIAL_OVERLAP, seen


def test_fuzz_campaign_over_the_layout_family():
    """A short ``fuzz.run`` campaign (the CLI's engine) over the four APIs on ascend950, half:
    valid cases, static misuse (both implementations name the same argument) and data faults."""
    from ascend_jax import fuzz

    assert family_of_api("Transpose").name == "layout"
    res = fuzz.run(
        apis=list(LF.APIS), profile="ascend950", cases=200, seed=7, invalid_rate=0.3, dtypes=["half"],
        batch=32, workers=1, progress=False,
    )  # fmt: skip
    status = {}
    for r in res.records:
        status[r["status"]] = status.get(r["status"], 0) + 1
    assert set(status) <= {"ok", "rejected"}, [
        r for r in res.records if r["status"] not in ("ok", "rejected")
    ][:3]
    assert status.get("rejected", 0) > 10 and status.get("ok", 0) > 100, status
    assert {r["api"] for r in res.records} == set(LF.APIS)


# ---------------------------------------------------------------------------------------------
# static and traced parameters: the same bits


def test_static_and_traced_parameters_give_the_same_bits():
    rng = np.random.default_rng(3)
    ub = rng.integers(0, 256, UB_T, dtype=np.uint8)
    h = aj.half

    def both(fn_static, fn_traced, prof, *traced_args):
        st = reset_state(prof, ub_bytes=UB_T).replace(ub=jnp.asarray(ub))
        a = fn_static(st)
        b = jax.jit(fn_traced)(st, *(jnp.asarray(x) for x in traced_args))
        assert np.array_equal(np.asarray(a.ub), np.asarray(b.ub)) and int(a.fault) == int(b.fault) == 0
        assert not np.array_equal(np.asarray(a.ub), ub)  # the call wrote something

    # Transpose NCHW2NHWC: sizes and addresses static vs traced
    sizes = (2, 3, 2, 16)
    tp = lambda n, c, hh, w: aj.TransposeParamsExt(n, c, hh, w, TT.TRANSPOSE_NCHW2NHWC)  # noqa: E731
    both(
        lambda st: aj.Transpose(
            st, T(h, 4096, 192), T(h, 0, 192), T(aj.uint8, 5120, 2560), tp(*sizes), profile="ascend910b"
        ),
        lambda st, a, *s: aj.Transpose(
            st,
            T(h, a, 192),
            T(h, 0, 192),
            T(aj.uint8, 5120, 2560),
            tp(*s),
            profile="ascend910b",
            max_repeats=4,
        ),
        "ascend910b",
        4096,
        *sizes,
    )
    # TransDataTo5HD: repeatTimes 3, strides and lists traced
    dl = [4096 + 32 * i for i in range(16)]
    sl = [64 * i for i in range(16)]
    both(
        lambda st: aj.TransDataTo5HD(st, dl, sl, P5(False, False, 3, 16, 1), T=h, profile="ascend910b"),
        lambda st, d_, s_, r: aj.TransDataTo5HD(
            st, d_, s_, P5(False, False, r, 16, 1), T=h, profile="ascend910b", max_repeats=4
        ),
        "ascend910b",
        np.array(dl, np.int32),
        np.array(sl, np.int32),
        3,
    )
    # Interleave / DeInterleave: count traced
    for api in ("Interleave", "DeInterleave"):
        args = (T(h, 4096, 256), T(h, 6144, 256), T(h, 0, 256), T(h, 1024, 256))
        both(
            lambda st, api=api, args=args: getattr(aj, api)(st, *args, 200, profile="ascend950"),
            lambda st, c, api=api, args=args: getattr(aj, api)(
                st, *args, c, profile="ascend950", max_repeats=2
            ),
            "ascend950",
            200,
        )


def test_bucket_overflow_only_when_the_call_would_run():
    h = aj.half
    st = reset_state("ascend950", ub_bytes=UB_I)
    args = (T(h, 4096, 256), T(h, 6144, 256), T(h, 0, 256), T(h, 1024, 256))
    f = jax.jit(lambda s, c: aj.Interleave(s, *args, c, profile="ascend950", max_repeats=1))
    assert int(f(st, jnp.asarray(256)).fault) == Fault.BUCKET_OVERFLOW  # 256 > 128 slots
    assert int(f(st, jnp.asarray(128)).fault) == 0
    g = jax.jit(
        lambda s, c: aj.Interleave(s, T(h, 4008, 256), *args[1:], c, profile="ascend950", max_repeats=1)
    )
    assert int(g(st, jnp.asarray(256)).fault) == Fault.MISALIGNED  # a real fault, no model-limit bit


# ---------------------------------------------------------------------------------------------
# faults and NOPs, both implementations


def _both(api, prof, ub_size, *args, **kw):
    st = reset_state(prof, ub_bytes=ub_size)
    rs = RS.reset_state(prof, ub_bytes=ub_size)
    fast = getattr(aj, api)(st, *args, profile=prof, **kw)
    ref = getattr(REF, api)(rs, *args, profile=prof, **kw)
    assert message(fast, ref) is None
    return int(ref.fault)


def test_faults_and_nops():
    h, F = aj.half, Fault
    tmp = T(aj.uint8, 8192, 4096)
    nchw = aj.TransposeParamsExt(1, 2, 1, 16, TT.TRANSPOSE_NCHW2NHWC)
    # Transpose: dst == src fine for 16x16, any overlap a fault for NCHW; tmp overlapping src
    assert _both("Transpose", "ascend910b", 16384, T(h, 0, 256), T(h, 0, 256)) == 0
    assert _both("Transpose", "ascend910b", 16384, T(h, 64, 256), T(h, 0, 256)) == F.PARTIAL_OVERLAP
    assert _both("Transpose", "ascend910b", 16384, T(h, 0, 32), T(h, 0, 32), tmp, nchw) == F.PARTIAL_OVERLAP
    assert _both(
        "Transpose", "ascend910b", 16384, T(h, 0, 32), T(h, 64, 32), T(aj.uint8, 64, 2048), nchw
    ) == (F.PARTIAL_OVERLAP)
    assert _both("Transpose", "ascend910b", 16384, T(h, 16, 256), T(h, 4096, 256)) == F.MISALIGNED
    assert _both("Transpose", "ascend910b", 16384, T(h, 16384 - 256, 256), T(h, 4096, 256)) == F.OUT_OF_UB
    # a traced cSize whose tmpBufferSize exceeds sharedTmpBuffer: BAD_PARAM (static: a UsageError)
    small = jax.jit(
        lambda s, c: aj.Transpose(
            s,
            T(h, 0, 32),
            T(h, 4096, 32),
            T(aj.uint8, 8192, 1536),
            aj.TransposeParamsExt(1, c, 1, 16, TT.TRANSPOSE_NCHW2NHWC),
            profile="ascend910b",
            max_repeats=1,
        )
    )
    st = reset_state("ascend910b", ub_bytes=16384)
    assert int(small(st, 2).fault) == F.BAD_PARAM and int(small(st, 1).fault) == 0  # 2048 > 1536 >= 1536
    zero = aj.TransposeParamsExt(0, 2, 1, 16, TT.TRANSPOSE_NHWC2NCHW)
    assert _both("Transpose", "ascend910b", 16384, T(h, 16, 32), T(h, 16, 32), tmp, zero) == 0  # NOP
    none = aj.TransposeParamsExt(1, 1, 16, 16, TT.TRANSPOSE_TYPE_NONE)
    assert _both("Transpose", "ascend950", 16384, T(h, 16, 32), T(h, 16, 32), tmp, none) == 0  # NOP
    # TransDataTo5HD: repeatTimes 0 is a NOP; overlap rules; repeat dependency
    dl = [4096 + 32 * i for i in range(16)]
    sl = [32 * i for i in range(16)]
    assert _both("TransDataTo5HD", "ascend910b", 16384, [1] * 16, sl, P5(False, False, 0, 0, 0), T=h) == 0
    assert _both("TransDataTo5HD", "ascend910b", 16384, sl, sl, P5(), T=h) == 0  # in place, same index
    assert _both("TransDataTo5HD", "ascend910b", 16384, sl[1:] + sl[:1], sl, P5(), T=h) == F.PARTIAL_OVERLAP
    # repeat 0 writes dst blocks repeat 1 reads (dstRepStride 0, srcRepStride 16 -> dst = src of r 1)
    assert _both(
        "TransDataTo5HD", "ascend910b", 16384, [x + 512 for x in sl], sl, P5(False, False, 2, 0, 16), T=h
    ) == (F.REPEAT_DEPENDENCY)
    assert _both("TransDataTo5HD", "ascend910b", 16384, dl, [x + 2 for x in sl], P5(), T=h) == F.MISALIGNED
    # Interleave: overlap, misaligned
    args = (T(h, 4096, 256), T(h, 6144, 256), T(h, 0, 256), T(h, 1024, 256))
    assert _both("Interleave", "ascend950", 16384, *args, 256) == 0
    assert _both("Interleave", "ascend950", 16384, args[0], args[0][128], *args[2:], 256) == F.PARTIAL_OVERLAP
    assert _both("DeInterleave", "ascend950", 16384, args[0], args[1], args[0], 256) == F.PARTIAL_OVERLAP
    assert _both("DeInterleave", "ascend950", 16384, args[0], args[1], args[2][1], 256) == F.MISALIGNED
    assert _both("Interleave", "ascend950", 16384, *args, 0) == F.UNDEFINED  # 950: zero_count = fault


def test_b8_half_flags_and_b32_order():
    """The b8 half selection (all four flag combinations) and the other dst half kept; b32 dst block
    2j+h = element j of src blocks 8h..8h+7."""
    rng = np.random.default_rng(8)
    ub = rng.integers(0, 256, 16384, dtype=np.uint8)
    sl = [32 * i for i in range(16)]
    dl = [4096 + 32 * i for i in range(16)]
    for dh in (False, True):
        for sh in (False, True):
            st, rs = _states("ascend910b", ub)
            fast = aj.TransDataTo5HD(st, dl, sl, P5(dh, sh, 1, 0, 0), T=aj.int8, profile="ascend910b")
            ref = REF.TransDataTo5HD(rs, dl, sl, P5(dh, sh, 1, 0, 0), T=aj.int8, profile="ascend910b")
            assert message(fast, ref) is None
            out = ref.ub[4096:4608].reshape(16, 32)
            src = ub[:512].reshape(16, 32)
            assert np.array_equal(out[:, 16 * dh : 16 * dh + 16], src[:, 16 * sh : 16 * sh + 16].T)
            other = 16 * (1 - dh)
            assert np.array_equal(
                out[:, other : other + 16], ub[4096:4608].reshape(16, 32)[:, other : other + 16]
            )
    st, rs = _states("ascend910b", ub)
    ref = REF.TransDataTo5HD(rs, dl, sl, P5(), T=aj.float32, profile="ascend910b")
    assert message(aj.TransDataTo5HD(st, dl, sl, P5(), T=aj.float32, profile="ascend910b"), ref) is None
    src = ub[:512].view(np.uint32).reshape(16, 8)
    assert np.array_equal(ref.ub[4096:4608].view(np.uint32).reshape(8, 16), src.T)


# ---------------------------------------------------------------------------------------------
# misuse: the same argument in both implementations

H0, H1 = T(aj.half, 0, 256), T(aj.half, 4096, 256)
TMP = T(aj.uint8, 8192, 4096)
SL = [32 * i for i in range(16)]
MISUSE = [
    ("tp-dtype", "Transpose", "ascend910b", (T(aj.float32, 0, 64), T(aj.float32, 4096, 64)), {}, "dtype"),
    ("tp-src-dtype", "Transpose", "ascend910b", (H0, T(aj.int16, 4096, 256)), {}, "src.dtype"),
    ("tp-params-missing", "Transpose", "ascend910b", (H0, H1, TMP), {}, "transposeParams"),
    (
        "tp-tmp-dtype",
        "Transpose",
        "ascend910b",
        (H0, H1, T(aj.half, 8192, 64), aj.TransposeParamsExt(1, 1, 1, 16, TT.TRANSPOSE_NCHW2NHWC)),
        {},
        "sharedTmpBuffer.dtype",
    ),
    (
        "tp-type-unsupported-yet",
        "Transpose",
        "ascend910b",
        (H0, H1, TMP, aj.TransposeParamsExt(1, 1, 16, 16, TT.TRANSPOSE_NZ2ND_0213)),
        {},
        "transposeParams.transposeType",
    ),
    (
        "tp-type-310b",
        "Transpose",
        "ascend310b",
        (H0, H1, TMP, aj.TransposeParamsExt(1, 1, 1, 16, TT.TRANSPOSE_NCHW2NHWC)),
        {},
        "transposeParams.transposeType",
    ),
    (
        "tp-b16-dtype-910b",
        "Transpose",
        "ascend910b",
        (H0, H1, TMP, aj.TransposeParamsExt(0, 0, 16, 16, TT.TRANSPOSE_ND2ND_B16)),
        {},
        "dtype",
    ),
    (
        "tp-b16-hSize",
        "Transpose",
        "ascend950",
        (H0, H1, TMP, aj.TransposeParamsExt(0, 0, 8, 16, TT.TRANSPOSE_ND2ND_B16)),
        {},
        "transposeParams.hSize",
    ),
    (
        "tp-cSize",
        "Transpose",
        "ascend910b",
        (H0, H1, TMP, aj.TransposeParamsExt(1, 4096, 1, 16, TT.TRANSPOSE_NCHW2NHWC)),
        {},
        "transposeParams.cSize",
    ),
    (
        "tp-nSize",
        "Transpose",
        "ascend910b",
        (H0, H1, TMP, aj.TransposeParamsExt(65536, 1, 1, 16, TT.TRANSPOSE_NCHW2NHWC)),
        {},
        "transposeParams.nSize",
    ),
    (
        "tp-hw-align",
        "Transpose",
        "ascend910b",
        (H0, H1, TMP, aj.TransposeParamsExt(1, 1, 1, 15, TT.TRANSPOSE_NCHW2NHWC)),
        {},
        "transposeParams.hSize/transposeParams.wSize",
    ),
    (
        "tp-tmp-small",
        "Transpose",
        "ascend910b",
        (H0, H1, T(aj.uint8, 8192, 2559), aj.TransposeParamsExt(3, 3, 2, 8, TT.TRANSPOSE_NCHW2NHWC)),
        {},
        "sharedTmpBuffer",
    ),
    ("5hd-T", "TransDataTo5HD", "ascend910b", (SL, SL, P5()), {}, "T"),
    ("5hd-len", "TransDataTo5HD", "ascend910b", (SL[:15], SL, P5()), {"T": aj.half}, "dstList"),
    (
        "5hd-repeat",
        "TransDataTo5HD",
        "ascend910b",
        (SL, SL, P5(False, False, 256, 0, 0)),
        {"T": aj.half},
        "nchwconvParams.repeatTimes",
    ),
    (
        "5hd-stride",
        "TransDataTo5HD",
        "ascend910b",
        (SL, SL, P5(False, False, 1, -1, 0)),
        {"T": aj.half},
        "nchwconvParams.dstRepStride",
    ),
    (
        "5hd-half",
        "TransDataTo5HD",
        "ascend910b",
        (SL, SL, P5(2, False, 1, 0, 0)),
        {"T": aj.int8},
        "nchwconvParams.dstHighHalf",
    ),
    ("5hd-addr", "TransDataTo5HD", "ascend910b", ([-32] + SL[1:], SL, P5()), {"T": aj.half}, "dstList[0]"),
    ("5hd-table-dtype", "TransDataTo5HD", "ascend910b", (H0, H1, P5()), {"T": aj.half}, "dst.dtype"),
    ("5hd-dtype-910", "TransDataTo5HD", "ascend910", (SL, SL, P5()), {"T": aj.float32}, "dtype"),
    (
        "il-odd",
        "Interleave",
        "ascend950",
        (H0, H1, T(aj.half, 8192, 256), T(aj.half, 9216, 256), 255),
        {},
        "count",
    ),
    (
        "il-910b",
        "Interleave",
        "ascend910b",
        (H0, H1, T(aj.half, 8192, 256), T(aj.half, 9216, 256), 256),
        {},
        "api",
    ),
    ("dil-srcCount", "DeInterleave", "ascend950", (H0, H1, T(aj.half, 8192, 256), 3), {}, "srcCount"),
    ("dil-count-neg", "DeInterleave", "ascend950", (H0, H1, H0, H1, -2), {}, "count"),
    ("dil-dtype", "DeInterleave", "ascend950", (H0, T(aj.int16, 4096, 256), H0, H1, 2), {}, "dst1.dtype"),
]


@pytest.mark.parametrize(
    ("api", "prof", "args", "kw", "argument"), [c[1:] for c in MISUSE], ids=[c[0] for c in MISUSE]
)
def test_misuse_names_the_same_argument(api, prof, args, kw, argument):
    errs = []
    for mod, st in ((aj, reset_state(prof, ub_bytes=16384)), (REF, RS.reset_state(prof, ub_bytes=16384))):
        with pytest.raises(UsageError) as e:
            getattr(mod, api)(st, *args, profile=prof, **kw)
        errs.append(e.value)
    assert errs[0].argument == errs[1].argument == argument, errs
    assert type(errs[0]) is type(errs[1])
    assert f"profile '{prof}'" in str(errs[0]) and "allowed:" in str(errs[0])


def test_unsupported_products():
    for api, prof in (
        ("Transpose", "ascend310p_vec"),
        ("TransDataTo5HD", "ascend310p_vec"),
        ("DeInterleave", "kirinx90"),
    ):
        for mod in (aj, REF):
            st = (aj.reset_state if mod is aj else RS.reset_state)(prof, ub_bytes=16384)
            args = (
                (H0, H1)
                if api == "Transpose"
                else ((SL, SL, P5()) if api == "TransDataTo5HD" else (H0, H1, H0, 2))
            )
            kw = {"T": aj.half} if api == "TransDataTo5HD" else {}
            with pytest.raises(UnsupportedError):
                getattr(mod, api)(st, *args, profile=prof, **kw)
    # the enhanced prototype where no enhanced type is listed (910 training series)
    nchw = aj.TransposeParamsExt(1, 1, 1, 16, TT.TRANSPOSE_NCHW2NHWC)
    for mod in (aj, REF):
        st = (aj.reset_state if mod is aj else RS.reset_state)("ascend910", ub_bytes=16384)
        with pytest.raises(UnsupportedError) as e:
            mod.Transpose(st, H0, H1, TMP, nchw, profile="ascend910")
        assert e.value.argument == "sharedTmpBuffer"


def test_profile_tables_are_the_pages():
    from ascend_jax.profile import load_profile

    b = load_profile("ascend910b").api("Transpose")
    assert (
        b.dtypes == ("int16", "uint16", "half")
        and b.nd2nd_dtypes == ("uint16",)
        and b.tmp_buffer == "formula"
    )
    assert load_profile("ascend310p").api("Transpose").tmp_buffer == "none"
    assert load_profile("ascend310b").api("Transpose").nchw_dtypes == ()
    assert "bfloat16" in load_profile("ascend950").api("TransDataTo5HD").dtypes
    assert load_profile("ascend910").api("TransDataTo5HD").dtypes == (
        "int8",
        "uint8",
        "int16",
        "uint16",
        "half",
    )
    for prof in aj.available_profiles():
        p = load_profile(prof)
        for api in ("Interleave", "DeInterleave"):
            assert p.api(api).supported == (prof == "ascend950")
        for k in ("nd2nd_dtypes", "nchw_dtypes"):
            assert set(p.api("Transpose")[k]) <= set(aj.dtypes.BY_NAME)


# ---------------------------------------------------------------------------------------------
# Kernel / jit_kernel and the interleave_pair vendor sample


def test_kernel_method_and_check_uninit():
    """``k.Transpose`` etc. through the Kernel; with check_uninit, a read of the written dst is not
    an uninitialised read (the engine marks the bytes it writes, dst1 included)."""
    k = aj.Kernel(profile="ascend950", check_uninit=True)
    a, b = k.alloc(aj.half, 256), k.alloc(aj.half, 256)
    c, d = k.alloc(aj.half, 256), k.alloc(aj.half, 256)
    k.write(a, np.arange(256))
    k.write(b, np.arange(256, 512))
    k.Interleave(c, d, a, b, 256)
    assert np.array_equal(k.read(d)[:4], [128, 384, 129, 385])
    k.Adds(a, d, 1.0, 256)  # reads dst1: written by Interleave
    assert not k.warnings, k.warnings
    k.Transpose(b, a)
    assert k.read(b)[1] == k.read(a)[16]


@pytest.mark.parametrize("n", [1, 2])
def test_vendor_interleave_pair(shared_dir, tmp_path, capsys, n):
    """The vendor gen_data.py goldens (golden_dst0.bin, golden_dst1.bin), 5 seeds, bit for bit and
    within verify_result.py's tolerance."""
    from test_vendor_samples import gen_cases, verify

    from ascend_jax import cli

    dirs = gen_cases("interleave_pair", "-scenarioNum", n, tmp_path)
    assert cli.main(["run", "vendor_interleave_pair", "--scenario", str(n), "--cases", str(tmp_path)]) == 0, (
        capsys.readouterr().err
    )
    for d in dirs:
        for i in (0, 1):
            out = np.fromfile(d / "output" / f"output_dst{i}.bin", np.float16)
            gold = np.fromfile(d / "output" / f"golden_dst{i}.bin", np.float16)
            assert out.size == gold.size == 512
            assert verify(out, gold)
            np.testing.assert_array_equal(out.view(np.uint16), gold.view(np.uint16))
