"""Gather, Gatherb(ISASI), Scatter(ISASI) (离散与聚合/).

* every result example of the pages (tests/data/gather_scatter_examples.json) through the reference and
  the fast path, in every call form the page shows;
* differential: fast path == reference, bit for bit (UB, registers, fault word) on random cases drawn
  with NumPy (offsets in and out of range, misaligned, duplicated; addresses; counts, masks, strides,
  repeats; Normal and Counter mode), vmapped: one program per (API, dtype); >= 2,000 cases per API on
  the default run, the other products under ``slow``;
* Python-int and traced parameters give the same bits; out-of-range offsets fault;
* misuse: the same argument named by both implementations.
"""

import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax._engine.gather import run_gather, run_gatherb
from ascend_jax.api import gather as GA
from ascend_jax.dtypes import as_dtype
from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.fuzz.compare import message
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state
from ascend_jax.tensor import LocalTensor

T = LocalTensor
U32 = aj.uint32
DATA = json.loads(
    (pathlib.Path(__file__).parent / "data" / "gather_scatter_examples.json").read_text(encoding="utf-8")
)
UB = 8192
RB = 4  # repeat bucket of the differential programs
N_DIFF = 2000  # cases per API on the default run


def _prog(spec, dtype):
    return (spec["start"] + spec["step"] * np.arange(spec["n"])).astype(dtype)


def _states(prof, ub, mode=0):
    rs = RS.reset_state(prof, ub_bytes=UB)
    rs.ub = ub.copy()
    rs.mask_mode = mode
    st = reset_state(prof, ub_bytes=UB).replace(ub=jnp.asarray(ub), mask_mode=jnp.asarray(mode, jnp.int32))
    return st, rs


def _put(ub, addr, arr):
    raw = np.ascontiguousarray(arr).view(np.uint8)
    ub[addr : addr + raw.size] = raw


# ---------------------------------------------------------------------------------------------
# result examples of the pages


@pytest.mark.parametrize("form", range(3), ids=["count", "continuous", "bitwise"])
def test_gather_doc_example(form):
    ex = DATA["gather"]
    d = as_dtype(ex["dtype"])
    ub = np.zeros(UB, np.uint8)
    _put(ub, 0, _prog(ex["src"], np.float16))
    _put(ub, 1024, _prog(ex["srcOffset"], np.uint32))
    args = ex["forms"][form]["args"]
    st, rs = _states("ascend910b", ub)
    call = (T(d, 4096, 128), T(d, 0, 128), T(U32, 1024, 128), ex["srcBaseAddr"], *args)
    ref = REF.Gather(rs, *call, profile="ascend910b")
    fast = aj.Gather(st, *call, profile="ascend910b")
    assert ref.fault == 0 and message(fast, ref) is None
    want = _prog(ex["dst"], np.float16)
    np.testing.assert_array_equal(ref.ub[4096 : 4096 + 256].view(np.uint16), want.view(np.uint16))


def test_gatherb_doc_example():
    ex = DATA["gatherb"]
    d = as_dtype(ex["dtype"])
    ub = np.zeros(UB, np.uint8)
    _put(ub, 0, _prog(ex["src"], np.uint16))
    _put(ub, 1024, np.array(ex["offset"], np.uint32))
    st, rs = _states("ascend910b", ub)
    call = (T(d, 4096, 128), T(d, 0, 128), T(U32, 1024, 8), ex["repeatTime"], tuple(ex["repeatParams"]))
    ref = REF.Gatherb(rs, *call, profile="ascend910b")
    fast = aj.Gatherb(st, *call, profile="ascend910b")
    assert ref.fault == 0 and message(fast, ref) is None
    got = ref.ub[4096 : 4096 + 256].view(np.uint16).reshape(8, 16)
    for row, vals in ex["dst_rows_printed"].items():
        np.testing.assert_array_equal(got[int(row)], np.array(vals, np.uint16))


@pytest.mark.parametrize(
    "prof",
    [
        pytest.param(x, marks=() if x == "ascend950" else pytest.mark.slow)
        for x in DATA["scatter"]["profiles"]
    ],
)
def test_scatter_doc_example(prof):
    ex = DATA["scatter"]
    d = as_dtype(ex["dtype"])
    ub = np.zeros(UB, np.uint8)
    _put(ub, 0, _prog(ex["src"], np.float16))
    _put(ub, 1024, _prog(ex["dstOffset"], np.uint32))
    st, rs = _states(prof, ub)
    call = (T(d, 4096, 128), T(d, 0, 128), T(U32, 1024, 128), ex["dstBaseAddr"], ex["count"])
    ref = REF.Scatter(rs, *call, profile=prof)
    fast = aj.Scatter(st, *call, profile=prof)
    assert ref.fault == 0 and message(fast, ref) is None
    want = _prog(ex["dst"], np.float16)
    np.testing.assert_array_equal(ref.ub[4096 : 4096 + 256].view(np.uint16), want.view(np.uint16))


# ---------------------------------------------------------------------------------------------
# differential: random cases drawn with NumPy, one vmapped program per (API, dtype)


def _stack(xs):
    return jax.tree_util.tree_map(lambda *x: jnp.stack(x), *xs)


def _offsets(rng, n, size, span, scatter):
    """uint32[n] byte offsets: mostly valid element offsets into ``span`` bytes (distinct for a
    Scatter unless a duplicate is planted), some misaligned, beyond UB or huge."""
    slots = span // size
    if scatter:
        o = rng.permutation(slots)[:n] if n <= slots else rng.integers(0, slots, n)
        if rng.random() < 0.15 and n > 1:
            o[rng.integers(0, n)] = o[rng.integers(0, n)]
    else:
        o = rng.integers(0, slots, n)
    o = o.astype(np.int64) * size
    r = rng.random()
    if r < 0.06:
        o[rng.integers(0, n)] += int(rng.integers(1, size)) if size > 1 else UB
    elif r < 0.10:
        o[rng.integers(0, n)] = int(rng.choice([UB, 2**17, 2**31 + 4, 2**32 - size]))
    return o.astype(np.uint32)


def _gs_case(rng, api, d, prof):
    """(ub, call args after the state, mask mode) of one random Gather / Scatter call."""
    p = aj.load_profile(prof)
    size = d.itemsize
    L = 128 if size == 1 else p.lanes(d)
    scatter = api == "Scatter"
    mode = 1 if rng.random() < 0.1 else 0
    highdim = d.name in p.api(api).dtypes and rng.random() < 0.5  # 8-bit on 950: count form only
    if highdim:
        lo = 1 if p.zero_mask == "error" else 0  # a static zero mask is a usage error there
        if mode == 1:
            mask = int(rng.integers(lo, (RB * L if rng.random() < 0.3 else L) + 1))
        elif rng.random() < 0.5:
            mask = int(rng.integers(lo, L + 1))
        else:
            words = [int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2)) for _ in range(2)]
            if L < 128:
                words = [words[0] & ((1 << L) - 1), 0]
            mask = words if any(words) or not lo else [1, 0]
        args = (mask, int(rng.choice([0, 1, 1, 1, 2, RB])), int(rng.integers(0, 17)))
    else:
        hi = RB * L if rng.random() < 0.3 else L  # most calls within one repeat: a fast oracle
        args = (int(rng.integers(0, hi + 1)),)
    ub = rng.integers(0, 256, UB, dtype=np.uint8)
    if rng.random() < 0.1:  # anywhere: overlaps, misalignment, outside UB
        off, seq, far = (int(rng.integers(-2, 256)) * 32 for _ in range(3))
        if rng.random() < 0.3:
            seq += int(rng.choice([2, 4]))
    else:
        off = int(rng.integers(0, 16)) * 32
        far = 2560 + int(rng.integers(0, 16)) * 32
        seq = 4608 + int(rng.integers(0, 8)) * 32
    n = RB * L
    o = _offsets(rng, n, size, 1024, scatter)
    if 0 <= off and off + 4 * n <= UB:
        _put(ub, off, o)
    r = rng.random()
    base = (
        0
        if r < 0.6
        else (int(rng.integers(0, 16)) * size if r < 0.9 else int(rng.choice([1, UB, 2**32 - 64])))
    )
    dst, src = (far, seq) if scatter else (seq, far)
    call = (T(d, dst, L), T(d, src, L), T(U32, off, n), base, *args)
    return ub, call, mode


def _gb_case(rng, d):
    ub = rng.integers(0, 256, UB, dtype=np.uint8)
    if rng.random() < 0.1:
        off, src, dst = (int(rng.integers(-2, 256)) * 32 for _ in range(3))
        if rng.random() < 0.3:
            dst += 4
    else:
        off = int(rng.integers(0, 16)) * 32
        src = 1024 + int(rng.integers(0, 16)) * 32
        dst = 4096 + int(rng.integers(0, 8)) * 32
    o = rng.integers(0, 64, RB * 8).astype(np.int64) * 32
    r = rng.random()
    if r < 0.06:
        o[rng.integers(0, o.size)] += int(rng.choice([d.itemsize, 16]))
    elif r < 0.1:
        o[rng.integers(0, o.size)] = int(rng.choice([UB, 2**31, 2**32 - 32]))
    if 0 <= off and off + 4 * o.size <= UB:
        _put(ub, off, o.astype(np.uint32))
    params = GA.GatherRepeatParams(int(rng.choice([0, 1, 1, 2, 3])), int(rng.integers(0, 17)))
    call = (T(d, dst, 128), T(d, src, 128), T(U32, off, RB * 8), int(rng.integers(0, RB + 1)), params)
    return ub, call


def _words32(mask):
    w = np.zeros(8, np.uint32)
    for i, x in enumerate(mask):
        w[2 * i], w[2 * i + 1] = x & 0xFFFFFFFF, x >> 32
    return w


def _np_dyn(api, call, p):
    """The traced values of one call as NumPy (what ``plan_gather`` / ``plan_gatherb`` fill in; checked
    against them on a sample of the cases): no per-case JAX dispatch."""
    from ascend_jax._engine import lanes as LN

    if api == "Gatherb":
        dst, src, off, rep, prm = call
        return {
            "dst": np.int32(dst.addr),
            "src": np.int32(src.addr),
            "off": np.int32(off.addr),
            "blk": np.int32(prm.dstBlkStride),
            "rep": np.int32(prm.dstRepStride),
            "repeat": np.int32(rep),
            "bad_param": np.bool_(False),
        }
    dst, src, off, base, *args = call
    size = dst.dtype.itemsize
    L = p.lanes(GA.plan_dtype(dst.dtype))
    a = p.api(api)
    dyn = {
        "dst": np.int32(dst.addr),
        "src": np.int32(src.addr),
        "off": np.int32(off.addr),
        "count": np.zeros(2, np.uint32),
        "repeat": np.int32(1),
        "cont": np.zeros(2, np.uint32),
        "words": np.zeros(8, np.uint32),
        "bad_param": np.bool_(False),
        "bad_mask": np.bool_(False),
        "base": np.uint32(base),
        "max_off": np.uint32({1: a.max_offset_8bit, 2: a.max_offset_16bit}.get(size, 2**32 - 1)),
    }
    if len(args) == 1:
        dyn["count"][0] = args[0]
        dyn["rep_bytes"] = np.int32(L * size)
        dyn["kind"] = np.int32(LN.KIND_COUNT)
    else:
        mask, rep, stride = args
        dyn["repeat"] = np.int32(rep)
        dyn["rep_bytes"] = np.int32(stride * 32)
        if isinstance(mask, list):
            dyn["words"] = _words32(mask)
            dyn["kind"] = np.int32(LN.KIND_BITWISE)
        else:
            dyn["cont"] = np.array([mask & 0xFFFFFFFF, mask >> 32], np.uint32)
            dyn["kind"] = np.int32(LN.KIND_CONTINUOUS)
    return dyn


def _differential(api, prof, dt, n, seed=7):
    p = aj.load_profile(prof)
    d = as_dtype(dt)
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n):
        if api == "Gatherb":
            ub, call = _gb_case(rng, d)
            cases.append((ub, call, 0))
        else:
            cases.append(_gs_case(rng, api, d, prof))
    # the static key, and the NumPy dyn checked against the API's own planning on a sample
    st0 = reset_state(prof, ub_bytes=UB)
    key = None
    for _, call, mode in cases[:: max(1, n // 40)]:
        st = st0.replace(mask_mode=jnp.asarray(mode, jnp.int32))
        if api == "Gatherb":
            k, dyn = GA.plan_gatherb(st, *call, profile=prof, max_repeats=RB)
        else:
            k, dyn = GA.plan_gather(api, st, *call[:4], call[4:], prof, RB)
        assert key is None or k == key
        key = k
        mine = _np_dyn(api, call, p)
        assert set(mine) == set(dyn), set(mine) ^ set(dyn)
        for f, v in dyn.items():
            np.testing.assert_array_equal(np.asarray(v), mine[f], err_msg=f)
            assert np.asarray(v).dtype == mine[f].dtype, f
    dyns = [_np_dyn(api, call, p) for _, call, _ in cases]
    D = {f: jnp.asarray(np.stack([x[f] for x in dyns])) for f in dyns[0]}
    S = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (n,) + x.shape), st0)
    S = S.replace(
        ub=jnp.asarray(np.stack([c[0] for c in cases])),
        mask_mode=jnp.asarray([c[2] for c in cases], jnp.int32),
    )
    run = run_gatherb if api == "Gatherb" else run_gather
    res = jax.tree_util.tree_map(np.asarray, jax.jit(jax.vmap(lambda s, dy: run(key, s, dy)))(S, D))
    ref_fn = getattr(REF, api)
    rs0 = RS.reset_state(prof, ub_bytes=UB)
    n_ok = 0
    for j, (ub, call, mode) in enumerate(cases):
        f = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
        rs = RS.copy_state(rs0)
        rs.ub[:] = ub
        rs.mask_mode = mode
        r = ref_fn(rs, *call, profile=prof)
        assert message(f, r) is None, (api, prof, dt, j, call, mode, message(f, r))
        n_ok += r.fault == 0
    # the draw exercises the data path, not only the faults
    assert n_ok > n // 3, n_ok
    # Python-int (static) parameters through the public API give the traced (vmapped) bits: cases
    # within one repeat run eagerly in the one-repeat program the doc examples compile
    fn = getattr(aj, api)
    shown = 0
    for j, (ub, call, mode) in enumerate(cases):
        if shown == 6 or not _one_repeat(api, call, mode, p):
            continue
        st = st0.replace(ub=jnp.asarray(ub), mask_mode=jnp.asarray(mode, jnp.int32))
        got = fn(st, *call, profile=prof, max_repeats=1)
        want = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
        assert message(got, want) is None, (j, call)
        shown += 1
    assert shown == 6
    return n_ok


def _one_repeat(api, call, mode, p):
    if api == "Gatherb":
        return call[3] <= 1
    L = p.lanes(GA.plan_dtype(call[0].dtype))
    args = call[4:]
    if len(args) == 1:
        return args[0] <= L
    if mode == 1:
        return not isinstance(args[0], list) and args[0] <= L
    return args[1] <= 1


@pytest.mark.parametrize(
    "api,prof,dt",
    [
        ("Gather", "ascend910b", "half"),
        ("Gatherb", "ascend910b", "uint16"),
        ("Scatter", "ascend950", "half"),
    ],
)
def test_differential_default(api, prof, dt):
    _differential(api, prof, dt, N_DIFF)


@pytest.mark.slow
@pytest.mark.parametrize(
    "api,prof,dt",
    [
        ("Gather", "ascend910b", "float32"),
        ("Gather", "ascend950", "int64"),
        ("Gather", "ascend950", "int8"),
        ("Gather", "ascend310b", "int8"),
        ("Gather", "ascend310p", "int32"),
        ("Gather", "ascend910_93", "bfloat16"),
        ("Gatherb", "ascend910b", "uint32"),
        ("Gatherb", "ascend950", "int8"),
        ("Gatherb", "ascend950", "uint64"),
        ("Gatherb", "ascend310b", "half"),
        ("Scatter", "ascend950", "int8"),
        ("Scatter", "ascend950", "uint64"),
        ("Scatter", "ascend310b", "int16"),
        ("Scatter", "ascend310p", "float32"),
    ],
)
def test_differential_other_products(api, prof, dt):
    _differential(api, prof, dt, N_DIFF, seed=11)


def test_scatter_program_order_choice():
    """``duplicate_offsets = "program_order"``: two lanes to one address, the later lane wins, in
    both implementations (the default profiles fault: UNDEFINED)."""
    import dataclasses

    p = aj.load_profile("ascend950")
    a = p.api("Scatter")
    po = dataclasses.replace(a, extra=tuple(sorted(dict(a.extra, duplicate_offsets="program_order").items())))
    prof = dataclasses.replace(p, apis=tuple(po if x.name == "Scatter" else x for x in p.apis))
    d = aj.half
    ub = np.zeros(UB, np.uint8)
    _put(ub, 0, np.arange(16, dtype=np.float16) + 1)
    _put(ub, 1024, np.array([6, 2, 6, 0], np.uint32))
    call = (T(d, 4096, 16), T(d, 0, 16), T(U32, 1024, 4), 0, 4)
    for profile, fault in ((p, Fault.UNDEFINED), (prof, 0)):
        st, rs = _states(profile, ub)
        ref = REF.Scatter(rs, *call, profile=profile)
        fast = aj.Scatter(st, *call, profile=profile)
        assert ref.fault == fault and message(fast, ref) is None
    got = ref.ub[4096:4104].view(np.float16)
    np.testing.assert_array_equal(got, np.array([4, 2, 0, 3], np.float16))  # lane 2 (value 3) wins at byte 6


# ---------------------------------------------------------------------------------------------
# out-of-range offsets fault (static vs traced: in _differential)


@pytest.mark.parametrize(
    "api,prof,dt,offset,fault",
    [
        ("Gather", "ascend910b", "half", UB, Fault.OUT_OF_UB),
        ("Gather", "ascend910b", "half", 2**32 - 2, Fault.OUT_OF_UB),
        ("Gather", "ascend910b", "half", 3, Fault.MISALIGNED),
        ("Scatter", "ascend950", "half", 2**17, Fault.BAD_PARAM | Fault.OUT_OF_UB),
        ("Scatter", "ascend950", "half", UB - 1, Fault.MISALIGNED | Fault.OUT_OF_UB),
        ("Gatherb", "ascend910b", "uint16", UB, Fault.OUT_OF_UB),
        ("Gatherb", "ascend910b", "uint16", 16, Fault.MISALIGNED),
        pytest.param("Gather", "ascend910b", "float32", 6, Fault.MISALIGNED, marks=pytest.mark.slow),
        pytest.param(
            "Gather", "ascend950", "half", 2**17, Fault.BAD_PARAM | Fault.OUT_OF_UB, marks=pytest.mark.slow
        ),
        pytest.param(
            "Scatter",
            "ascend310p",
            "half",
            UB - 1,
            Fault.MISALIGNED | Fault.OUT_OF_UB,
            marks=pytest.mark.slow,
        ),
        pytest.param(
            "Scatter", "ascend950", "int8", 2**16, Fault.BAD_PARAM | Fault.OUT_OF_UB, marks=pytest.mark.slow
        ),
    ],
)
def test_out_of_range_offsets_fault(api, prof, dt, offset, fault):
    d = as_dtype(dt)
    ub = np.zeros(UB, np.uint8)
    offs = np.zeros(8, np.uint32)
    offs[3] = offset
    _put(ub, 1024, offs)
    st, rs = _states(prof, ub)
    if api == "Gatherb":
        call = (T(d, 4096, 128), T(d, 0, 128), T(U32, 1024, 8), 1, (1, 8))
    else:
        call = (T(d, 4096, 8), T(d, 0, 8), T(U32, 1024, 8), 0, 8)
    ref = getattr(REF, api)(rs, *call, profile=prof)
    fast = getattr(aj, api)(st, *call, profile=prof)
    assert ref.fault == fault, Fault(ref.fault)
    assert message(fast, ref) is None
    assert (ref.ub == ub).all()  # suppressed: nothing written


# ---------------------------------------------------------------------------------------------
# misuse: the same argument named by both implementations

H, F32 = aj.half, aj.float32


def _misuse():
    o = T(U32, 1024, 128)
    return [
        ("src.dtype", "Gather", (T(H, 4096, 128), T(F32, 0, 128), o, 0, 128), "ascend910b"),
        ("srcOffset.dtype", "Gather", (T(H, 4096, 128), T(H, 0, 128), T(aj.int32, 1024, 128), 0, 128), "ascend910b"),
        ("srcBaseAddr", "Gather", (T(H, 4096, 128), T(H, 0, 128), o, -1, 128), "ascend910b"),
        ("count", "Gather", (T(H, 4096, 128), T(H, 0, 128), o, 0, -1), "ascend910b"),
        ("repeatTime", "Gather", (T(H, 4096, 128), T(H, 0, 128), o, 0, 128, 256, 8), "ascend910b"),
        ("dstRepStride", "Gather", (T(H, 4096, 128), T(H, 0, 128), o, 0, 128, 1, 70000), "ascend910b"),
        ("dtype", "Gather", (T(aj.int8, 4096, 128), T(aj.int8, 0, 128), o, 0, 128), "ascend910b"),
        ("dtype", "Gather", (T(aj.int8, 4096, 128), T(aj.int8, 0, 128), o, 0, 128, 1, 8), "ascend950"),
        ("api", "Scatter", (T(H, 4096, 128), T(H, 0, 128), o, 0, 128), "ascend910b"),
        ("srcRepStride", "Scatter", (T(H, 4096, 128), T(H, 0, 128), o, 0, 128, 1, 256), "ascend950"),
        ("dstOffset.dtype", "Scatter", (T(H, 4096, 128), T(H, 0, 128), T(H, 1024, 128), 0, 128), "ascend950"),
        ("repeatParams.dstBlkStride", "Gatherb",
         (T(aj.uint16, 4096, 128), T(aj.uint16, 0, 128), o, 1, (256, 8)), "ascend910b"),
        ("repeatParams.dstRepStride", "Gatherb",
         (T(aj.uint16, 4096, 128), T(aj.uint16, 0, 128), o, 1, (1, 65536)), "ascend910b"),
        ("repeatTime", "Gatherb", (T(aj.uint16, 4096, 128), T(aj.uint16, 0, 128), o, 256, (1, 8)), "ascend910b"),
        ("dtype", "Gatherb", (T(H, 4096, 128), T(H, 0, 128), o, 1, (1, 8)), "ascend910b"),
        ("offset.dtype", "Gatherb",
         (T(aj.uint16, 4096, 128), T(aj.uint16, 0, 128), T(aj.uint16, 1024, 16), 1, (1, 8)), "ascend910b"),
    ]  # fmt: skip


@pytest.mark.parametrize("arg,api,call,prof", _misuse(), ids=lambda x: x if isinstance(x, str) else "")
def test_misuse_names_the_same_argument(arg, api, call, prof):
    for mod, st in ((aj, reset_state(prof)), (REF, RS.reset_state(prof))):
        with pytest.raises(UsageError) as e:
            getattr(mod, api)(st, *call, profile=prof)
        assert e.value.argument == arg, (mod.__name__, e.value)
        assert api in str(e.value) and prof in str(e.value)
        if arg in ("dtype", "api"):
            assert isinstance(e.value, UnsupportedError)
