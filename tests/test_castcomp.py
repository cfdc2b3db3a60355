"""Helper castcomp: the reduce result registers (GetReduceRepeatSumSpr / GetReduceRepeatMaxMinSpr),
SetDeqScale with the DEQSCALE conversions (Cast int32 -> half, AddDeqRelu) and the cast composites
AddReluCast / SubReluCast / MulCast -- fast path vs the literal reference, bit for bit (UB bytes,
registers, fault word), every result example of the pages (tests/data/castcomp_examples.json), static
misuse naming the same argument in both implementations, static == traced.

Cheap default run: the random cases are drawn with NumPy and every case of a group runs in ONE
vmapped program with every parameter traced (the API among the cast composites too); the reduce
register groups reuse the programs of tests/test_reduce_differential.py. ``@pytest.mark.slow``:
>= 2,000 cases per group and the other groups / products.
"""

import dataclasses
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import test_cast_differential as TCD
import test_reduce_differential as TRD

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax._engine.pipeline import run_strided
from ascend_jax.api import cast as CAST
from ascend_jax.api import castcomp as CC
from ascend_jax.dtypes import as_dtype
from ascend_jax.errors import UnsupportedError, UsageError
from ascend_jax.params import BinaryRepeatParams
from ascend_jax.profile import available_profiles, load_profile
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state
from ascend_jax.tensor import MASK_PLACEHOLDER, LocalTensor

DEFAULT = load_profile("ascend910b")
UB = 8192
RB = 4
EXAMPLES = json.loads((pathlib.Path(__file__).parent / "data/castcomp_examples.json").read_text())["examples"]
HALF_SCALES = [0x3C00, 0x2E66, 0xBC00, 0x0001, 0x8000, 0x0000, 0x7C00, 0xFC00, 0x7E00, 0x7BFF, 0x4000, 0x1400]


# -- reduce result registers -----------------------------------------------------------------------


def _spr_same(ref, fast):
    f = [int(x) for x in np.asarray(fast.reduce_spr)]
    return f[0] == int(ref.reduce_sum) and (f[1], f[2]) == tuple(int(x) for x in ref.reduce_maxmin)


SPR_GROUPS = [  # the first, third and fourth are programs of tests/test_reduce_differential.py
    ("ReduceRepeat", "half", "MAX", "ORDER_VALUE_INDEX"),
    ("ReduceRepeat", "float32", "SUM", ""),
    ("ReduceSum", "half", "SUM", ""),
    ("ReduceMin", "half", "", "index"),
]


def _spr_check(p, group, n, seed, n_static=0):
    """``n`` random cases of a reduction group in one vmapped program: UB, registers and faults equal
    the reference's; the first ``n_static`` also run eagerly with Python ints (static == traced)."""
    cases = TRD._cases(p, group, n, seed)
    fast = TRD.run_fast_batch(cases, p)
    written = 0
    for c, f in zip(cases, fast, strict=True):
        r = TRD.call(REF, c, TRD.ref_state(c, p), p)
        assert not TRD._diff(c, r, f), TRD._diff(c, r, f)
        assert _spr_same(r, f), (c, np.asarray(f.reduce_spr), r.reduce_sum, r.reduce_maxmin)
        written += bool(np.any(np.asarray(f.reduce_spr)))
    assert written >= n // 10, f"only {written} of {n} cases wrote the registers"
    for c, f in list(zip(cases, fast, strict=True))[:n_static]:
        eager = TRD.call(aj, c, TRD.fast_state(c, p), p, max_repeats=TRD.RB)
        assert np.array_equal(np.asarray(eager.reduce_spr), np.asarray(f.reduce_spr)), c
        assert not TRD._diff(c, eager, f), c


@pytest.mark.parametrize("group", SPR_GROUPS, ids=lambda g: "-".join(x for x in g if x))
def test_reduce_registers_match_the_reference(group):
    """Default run: few cases; the static == traced sample on the first group."""
    n_static = 3 if SPR_GROUPS.index(group) == 0 else 0
    _spr_check(DEFAULT, group, 40, 900 + SPR_GROUPS.index(group), n_static)


@pytest.mark.slow
@pytest.mark.parametrize("group", SPR_GROUPS, ids=lambda g: "-".join(x for x in g if x))
def test_reduce_registers_match_the_reference_slow(group):
    _spr_check(DEFAULT, group, 2000, 1900 + SPR_GROUPS.index(group))


def _reduce_inputs(p, impl, values, dt):
    """A state with ``values`` (of ``dt``) at UB address 0, in implementation ``impl``."""
    raw = np.asarray(values, as_dtype(dt).np_dtype).view(np.uint8)
    if impl is REF:
        st = RS.reset_state(p, ub_bytes=UB)
        st.ub[: raw.size] = raw
        return st
    st = reset_state(p, ub_bytes=UB)
    return st.replace(ub=st.ub.at[: raw.size].set(jnp.asarray(raw)))


@pytest.mark.parametrize("impl", [aj, REF], ids=["fast", "reference"])
def test_get_reduce_repeat_spr_pages(impl):
    """The pages' calls: ReduceSum(dst, src, work, 128) then GetReduceRepeatSumSpr = the sum of the first
    128; ReduceRepeat<MAX>(dst, src, 64, 1, 1, 1, 8) then GetReduceRepeatMaxMinSpr = the max of the 64
    floats and its position (NumPy as the oracle; the inputs are small integers, every sum exact)."""
    p = DEFAULT
    rng = np.random.default_rng(5)
    vals = rng.integers(-8, 8, 128).astype(np.float32)  # every partial sum exact in half
    h = as_dtype("half")
    st = _reduce_inputs(p, impl, vals.astype(np.float16), "half")
    src, dst, work = LocalTensor(h, 0, 128), LocalTensor(h, 4096, 16), LocalTensor(h, 6144, 64)
    st = impl.ReduceSum(st, dst, src, work, 128, profile=p)
    got = impl.GetReduceRepeatSumSpr(st, "half", profile=p)
    assert np.asarray(got).view(np.uint16) == np.float16(vals.sum()).view(np.uint16)
    f = as_dtype("float32")
    vals = rng.permutation(np.arange(-32, 32)).astype(np.float32)
    st = _reduce_inputs(p, impl, vals, "float32")
    st = impl.ReduceRepeat(
        st, LocalTensor(f, 4096, 16), LocalTensor(f, 0, 64), 64, 1, 1, 1, 8, reduceType="MAX", profile=p
    )
    val, idx = impl.GetReduceRepeatMaxMinSpr(st, "float32", profile=p)
    assert float(val) == 31.0 and int(np.asarray(idx).view(np.uint32)) == int(np.argmax(vals))
    # 310P AI Core: the one-output prototype (the getter only reads the register)
    assert float(impl.GetReduceRepeatMaxMinSpr(st, "float32", profile="ascend310p")) == 31.0


# -- misuse names the same argument in both implementations ---------------------------------------


def _both(fast, ref, exc, match):
    with pytest.raises(exc, match=match):
        fast()
    with pytest.raises(exc, match=match):
        ref()


def test_error_names():
    p = "ascend910b"
    fs, rs = reset_state(p), REF.reset_state(p)
    h, i8, u8, i16 = (as_dtype(x) for x in ("half", "int8", "uint8", "int16"))
    d8, s0, s1 = LocalTensor(i8, 4096, 128), LocalTensor(h, 0, 128), LocalTensor(h, 1024, 128)
    rows = [
        ("AddReluCast", (LocalTensor(u8, 4096, 128), s0, s1, 128), {}, UnsupportedError, "half->uint8"),
        ("AddReluCast", (d8, s0, LocalTensor(i16, 1024, 128), 128), {}, UsageError, "src1.dtype"),
        ("SubReluCast", (d8, s0, s1, 128), {"isSetMask": 1}, UsageError, "isSetMask"),
        ("MulCast", (d8, np.zeros(4), s1, 128), {}, UsageError, "src0"),
        ("SetDeqScale", (1.0, 1 << 16, True), {}, UsageError, "offset"),
        ("SetDeqScale", (1.0, 0, 1), {}, UsageError, "signMode"),
        ("GetReduceRepeatSumSpr", ("int32",), {}, UnsupportedError, "dtype"),
    ]
    f32 = as_dtype("float32")
    q = "ascend950"
    for args, exc, match in (
        ((LocalTensor(h, 4096, 64), 1.0, 2.0, 64), UsageError, "src0/src1"),
        ((LocalTensor(f32, 4096, 64), LocalTensor(f32, 0, 64), 2.0, 64), UsageError, "dst.dtype"),
        ((LocalTensor(h, 4096, 64), LocalTensor(f32, 0, 64), LocalTensor(h, 512, 1), 64), UsageError, "src1.dtype"),
        ((LocalTensor(h, 4096, 64), LocalTensor(f32, 0, 64), LocalTensor(f32, 512, 1), 64, {"config": 2}),
         UsageError, "config.scalarTensorIndex"),
    ):  # fmt: skip
        kw = args[-1] if isinstance(args[-1], dict) else {}
        args = args[:-1] if kw else args
        _both(
            lambda a=args, k=kw: aj.MulsCast(reset_state(q), *a, profile=q, **k),
            lambda a=args, k=kw: REF.MulsCast(REF.reset_state(q), *a, profile=q, **k),
            exc,
            match,
        )
    for api, args, kw, exc, match in rows:
        _both(
            lambda a=args, k=kw, n=api: getattr(aj, n)(fs, *a, profile=p, **k),
            lambda a=args, k=kw, n=api: getattr(REF, n)(rs, *a, profile=p, **k),
            exc,
            match,
        )
    for prof, api, args in (
        ("ascend910", "MulCast", (d8, s0, s1, 128)),  # 不支持 on the training series
        ("ascend950", "GetReduceRepeatMaxMinSpr", ("half",)),
        ("ascend310p", "GetReduceRepeatSumSpr", ("half",)),
        ("ascend310b", "SetDeqScale", (1.0,)),
    ):
        _both(
            lambda a=args, n=api, q=prof: getattr(aj, n)(reset_state(q), *a, profile=q),
            lambda a=args, n=api, q=prof: getattr(REF, n)(REF.reset_state(q), *a, profile=q),
            UnsupportedError,
            api,
        )
    # 950: the int64 -> int32 pair has the count prototype only
    i64, i32 = as_dtype("int64"), as_dtype("int32")
    q = "ascend950"
    args = (LocalTensor(i32, 4096, 64), LocalTensor(i64, 0, 64), LocalTensor(i64, 1024, 64), 32, 1,
            BinaryRepeatParams())  # fmt: skip
    _both(
        lambda: aj.AddReluCast(reset_state(q), *args, profile=q),
        lambda: REF.AddReluCast(REF.reset_state(q), *args, profile=q),
        UnsupportedError,
        "count prototype only",
    )


# -- the pages' result examples -------------------------------------------------------------------


def _example_run(impl, ex, p):
    S, T = as_dtype(ex["src"]), as_dtype(ex["dst_dtype"])
    n = len(ex["src0"])
    a0 = np.asarray(ex["src0"], S.np_dtype).view(np.uint8)
    a1 = np.asarray(ex.get("src1", ex["src0"]), S.np_dtype).view(np.uint8)
    if impl is REF:
        st = RS.reset_state(p, ub_bytes=UB)
        st.ub[: a0.size] = a0
        st.ub[1024 : 1024 + a1.size] = a1
    else:
        st = reset_state(p, ub_bytes=UB)
        st = st.replace(
            ub=st.ub.at[: a0.size].set(jnp.asarray(a0)).at[1024 : 1024 + a1.size].set(jnp.asarray(a1))
        )
    if "scale" in ex:
        st = impl.SetDeqScale(st, ex["scale"], profile=p)
    dst, s0, s1 = LocalTensor(T, 4096, n), LocalTensor(S, 0, n), LocalTensor(S, 1024, n)
    if ex["api"] == "Cast":
        st = impl.Cast(st, dst, s0, "CAST_NONE", n, profile=p)
    elif ex["api"] == "MulsCast":
        st = impl.MulsCast(st, dst, s0, ex["scalar"], n, profile=p)
    else:
        st = getattr(impl, ex["api"])(st, dst, s0, s1, n, profile=p)
    assert int(st.fault) == 0
    return np.asarray(st.ub)[4096 : 4096 + n * T.itemsize].view(T.np_dtype)


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e["api"])
@pytest.mark.parametrize("impl", [aj, REF], ids=["fast", "reference"])
def test_page_examples(impl, ex):
    got = _example_run(impl, ex, load_profile(ex.get("profile", "ascend910b")))
    if "printed_decimals" in ex:
        k = ex["printed_decimals"]
        assert [f"{float(v):.{k}f}" for v in got] == [f"{v:.{k}f}" for v in ex["dst"]], got
    else:
        assert got.tolist() == ex["dst"], got


# -- random two-width cases (AddReluCast / SubReluCast / MulCast / AddDeqRelu, Cast DEQSCALE) --------


@dataclasses.dataclass
class Case:
    api: str
    src: str
    dst: str
    form: str
    counter: bool
    ctrl: int
    vmask: tuple
    ub_seed: int
    addrs: tuple  # dst, src0, src1
    params: tuple  # BinaryRepeatParams (or UnaryRepeatParams for Cast) fields
    count: int
    mask: object
    repeat: int
    deq: int  # DEQSCALE (the half scale in bits 0~15)


def random_case(rng, p, api, s, t, form):
    S, T = as_dtype(s), as_dtype(t)
    wide = S if S.itemsize > T.itemsize else T
    L = p.lanes(wide)
    counter = bool(rng.random() < 0.25)
    vm = np.zeros(8, np.uint32)
    if counter:
        vm[0] = int(rng.integers(0, RB * L + 1))
    else:
        nbits = min(L, p.vector_mask_bits)
        bits = rng.integers(0, 2, nbits) if rng.random() < 0.6 else np.ones(nbits, np.int64)
        for i, b in enumerate(bits):
            if b:
                vm[i // 32] |= np.uint32(1 << (i % 32))

    def addr(d):
        a = int(rng.integers(0, UB // 32)) * 32
        if rng.random() < 0.04:
            a += d.itemsize * int(rng.integers(1, 32 // d.itemsize))
        if rng.random() < 0.03:
            a = UB + 32 * int(rng.integers(0, 8))
        return a

    n_src = 1 if api == "Cast" else 2
    blk = [int(rng.choice([0, 1, 1, 2, 3])) if rng.random() < 0.3 else 1 for _ in range(1 + n_src)]
    if blk[0] == 0 and rng.random() < 0.7:
        blk[0] = 1
    rep = [
        int(rng.integers(0, 17)) if rng.random() < 0.5 else 8 * d.itemsize // wide.itemsize
        for d in (T,) + (S,) * n_src
    ]
    d_addr = addr(T)
    srcs = [addr(S) if rng.random() < 0.92 else d_addr for _ in range(n_src)]
    mask = None
    low = 1 if p.zero_mask == "error" else 0  # a static zero mask is a UsageError there
    if form == "continuous":
        mask = int(rng.integers(low, (RB * L if counter else L) + 1))
    elif form == "bitwise":
        n64 = max(1, min(L, p.vector_mask_bits) // 64)
        if counter:
            mask = [int(rng.integers(low, RB * L + 1))] + [0] * (n64 - 1)
        else:
            mask = [int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2)) for _ in range(n64)]
            if min(L, p.vector_mask_bits) < 64:
                mask = [mask[0] & ((1 << L) - 1)]
            mask[0] |= low
    if rng.random() < 0.5:
        deq = int(rng.choice(HALF_SCALES))
    else:
        deq = (
            int(np.float16(rng.integers(-64, 64) / 16).view(np.uint16))
            if rng.random() < 0.5
            else int(rng.integers(0, 1 << 16))
        )
    return Case(
        api, s, t, form, counter, int(rng.choice([0, TCD.SAT_OFF])), tuple(int(x) for x in vm),
        int(rng.integers(0, 2**31)), (d_addr, *srcs), (*blk, *rep), int(rng.integers(0, RB * L + 1)), mask,
        int(rng.integers(0, RB + 1)), deq,
    )  # fmt: skip


def _ub(c):
    S = as_dtype(c.src)
    rng = np.random.default_rng(c.ub_seed)
    bits = TCD.patterns(S, UB // S.itemsize, rng)
    return bits.astype(S.bits_dtype).view(np.uint8).copy()


def _call_args(c):
    """(tensors, args, isSetMask) of case ``c`` in C++ order."""
    S, T = as_dtype(c.src), as_dtype(c.dst)
    tensors = (LocalTensor(T, c.addrs[0], 64),) + tuple(LocalTensor(S, a, 64) for a in c.addrs[1:])
    if c.form == "count":
        return tensors, (c.count,), True
    mask = MASK_PLACEHOLDER if c.form == "register" else c.mask
    if c.api == "Cast":
        b0, b1, r0, r1 = c.params
        params = aj.UnaryRepeatParams(b0, b1, r0, r1)
    else:
        params = BinaryRepeatParams(*c.params)
    return tensors, (mask, c.repeat, params), c.form != "register"


def _deq_words(deq):
    return jnp.asarray([deq & 0xFFFFFFFF, deq >> 32], jnp.uint32)


def fast_state(c, p):
    st = reset_state(p, ub_bytes=UB)
    return st.replace(
        ub=jnp.asarray(_ub(c)),
        vmask=jnp.asarray(np.array(c.vmask, np.uint32)),
        mask_mode=jnp.asarray(1 if c.counter else 0, st.mask_mode.dtype),
        ctrl=TCD._ctrl_words(c.ctrl),
        deqscale=_deq_words(c.deq),
    )


def run_reference(c, p):
    st = RS.reset_state(p, ub_bytes=UB)
    st.ub = _ub(c)
    st.vmask = np.array(c.vmask, np.uint32)
    st.mask_mode = 1 if c.counter else 0
    RS.set_ctrl(st, c.ctrl)
    st.deqscale = c.deq
    tensors, args, is_set = _call_args(c)
    if c.api == "Cast":
        return REF.Cast(st, *tensors, "CAST_RINT", *args, profile=p, isSetMask=is_set)
    return getattr(REF, c.api)(st, *tensors, *args, profile=p, isSetMask=is_set)


def _plan(c, state, p):
    tensors, args, is_set = _call_args(c)
    if c.api == "Cast":
        return CAST.plan_cast(state, *tensors, "CAST_FLOOR", args, p, is_set, RB)  # roundMode: no effect
    return CC.plan(c.api, state, *tensors, args, p, is_set, RB)


_FN = {}


def run_fast_batch(cases, p):
    """Every case of a (U, T) program in ONE vmapped call (API, form, addresses, mask... traced)."""
    states = [fast_state(c, p) for c in cases]
    plans = [_plan(c, s, p) for c, s in zip(cases, states, strict=True)]
    out = [None] * len(cases)
    groups = {}
    for i, (st, _dyn) in enumerate(plans):
        assert st.R <= RB, (cases[i], st.R)
        groups.setdefault(dataclasses.replace(st, R=RB, ordered=True), []).append(i)
    for key, idx in groups.items():
        if key not in _FN:
            _FN[key] = jax.jit(jax.vmap(lambda s, d, k=key: run_strided(k, s, d)))
        st = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[states[i] for i in idx])
        dyn = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[plans[i][1] for i in idx])
        res = _FN[key](st, dyn)
        for j, i in enumerate(idx):
            out[i] = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
    return out


def _check(cases, p):
    fast = run_fast_batch(cases, p)
    bad, ran = [], 0
    for c, f in zip(cases, fast, strict=True):
        r = run_reference(c, p)
        if not TCD._same(f, r):
            bad.append((c, int(f.fault), int(r.fault)))
        ran += int(r.fault) == 0 and not np.array_equal(r.ub, _ub(c))
    assert not bad, f"{len(bad)} / {len(cases)} mismatches, first: {bad[:2]}"
    assert ran >= len(cases) // 5, f"only {ran} of {len(cases)} cases wrote dst"
    return fast


FORMS = ("count", "continuous", "bitwise", "register")


def _cases(p, group, n, seed):
    api, s, t = group
    rng = np.random.default_rng(seed)
    apis = [a for a in CC._pair_ops(p, as_dtype(s), as_dtype(t))] if api == "*" else [api]
    out = []
    for i in range(n):
        a = apis[i % len(apis)]
        forms = ("count",) if (a != "Cast" and _count_only(p, a, s, t)) else FORMS
        out.append(random_case(rng, p, a, s, t, forms[i % len(forms)]))
    return out


def _count_only(p, api, s, t):
    return api != "AddDeqRelu" and CC.cast_pairs(p, api).get((s, t), False)


def groups(p):
    """(api or "*" for the shared composite program, U, T) of every program the product has."""
    out = []
    pairs = set()
    for api in ("AddReluCast", "SubReluCast", "MulCast"):
        if p.api(api).supported:
            pairs |= set(CC.cast_pairs(p, api))
    out += [("*", s, t) for s, t in sorted(pairs)]
    if p.api("AddDeqRelu").supported:
        out.append(("AddDeqRelu", "int32", "half"))
    if p.api("Cast").supported and "DEQSCALE" in CAST.cast_pairs(p).get(("int32", "half"), ((), False))[0]:
        out.append(("Cast", "int32", "half"))
    return out


# the default run: the shared program of the three composites (half -> int8) and AddDeqRelu (the
# DEQSCALE element function of Cast int32 -> half too); every group of every product (SLOW_GROUPS on
# the default one): test_differential_campaign
DEFAULT_GROUPS = [("*", "half", "int8"), ("AddDeqRelu", "int32", "half")]
SLOW_GROUPS = [
    ("*", "float32", "half"),
    ("*", "int16", "int8"),
    ("*", "half", "uint8"),
    ("Cast", "int32", "half"),
]


@pytest.mark.parametrize("group", DEFAULT_GROUPS, ids=lambda g: "-".join(g))
def test_differential_default(group):
    cases = _cases(DEFAULT, group, 48, DEFAULT_GROUPS.index(group))
    fast = _check(cases, DEFAULT)
    if group != DEFAULT_GROUPS[0]:
        return
    # static == traced: eager public calls with Python ints (count form: one program, max_repeats)
    # give the same state as the vmapped traced program
    sample = [(c, f) for c, f in zip(cases, fast, strict=True) if c.form == "count"][:3]
    for c, f in sample:
        tensors, args, is_set = _call_args(c)
        eager = getattr(aj, c.api)(fast_state(c, DEFAULT), *tensors, *args, profile=DEFAULT, max_repeats=RB)
        assert np.array_equal(np.asarray(eager.ub), np.asarray(f.ub)) and int(eager.fault) == int(f.fault), c


def test_default_groups_are_groups_of_the_default_profile():
    assert set(DEFAULT_GROUPS + SLOW_GROUPS) == set(groups(DEFAULT))


@pytest.mark.slow
@pytest.mark.parametrize("name", available_profiles())
def test_differential_campaign(name):
    p = load_profile(name)
    for i, g in enumerate(groups(p)):
        _check(_cases(p, g, 2000 if name == "ascend910b" else 300, 3000 + i), p)


def test_set_deq_scale_register_layout():
    """SetDeqScale.md 表1: half scale in bits 0~15; float scale bits 0~31, offset (9 bits) 37~45,
    signMode bit 46 -- both implementations."""
    p = DEFAULT
    for impl in (aj, REF):
        st = impl.SetDeqScale(impl.reset_state(p), 0.1, profile=p)
        words = np.asarray(st.deqscale) if impl is aj else [st.deqscale & 0xFFFFFFFF, st.deqscale >> 32]
        assert [int(x) for x in words] == [int(np.float16(0.1).view(np.uint16)), 0]
        st = impl.SetDeqScale(st, 0.5, -3, True, profile=p)
        value = (
            int(np.asarray(st.deqscale)[0]) | (int(np.asarray(st.deqscale)[1]) << 32)
            if impl is aj
            else st.deqscale
        )
        assert value == int(np.float32(0.5).view(np.uint32)) | ((-3 & 0x1FF) << 37) | (1 << 46)


def _muls_cast_check(n, seed):
    """MulsCast(ISASI) on 950: random counts, addresses, float32 patterns and scalars (either
    position; a number or a LocalTensor element, ``config``); the fast path (one program: max_repeats) == the reference, UB and fault word."""
    p = load_profile("ascend950")
    rng = np.random.default_rng(seed)
    f32, h = as_dtype("float32"), as_dtype("half")
    ran = 0
    for _ in range(n):
        ub = TCD.patterns(f32, UB // 4, rng).astype(np.uint32).view(np.uint8).copy()
        count = int(rng.integers(0, RB * 64 + 1))
        d_addr = int(rng.integers(0, UB // 32)) * 32 + (
            2 * int(rng.integers(1, 16)) if rng.random() < 0.05 else 0
        )
        s_addr = int(rng.integers(0, UB // 32)) * 32
        scalar = float(
            np.array([TCD.patterns(f32, 1, rng)[0]], np.uint64).astype(np.uint32).view(np.float32)[0]
        )
        if not np.isfinite(scalar) or abs(scalar) > 1e30:
            scalar = float(rng.integers(-8, 8)) / 4
        dst, src = LocalTensor(h, d_addr, 256), LocalTensor(f32, s_addr, 256)
        args = (scalar, src) if rng.random() < 0.5 else (src, scalar)
        kw = {}
        if rng.random() < 0.4:  # a LocalTensor element as the scalar (any byte address; some meet dst)
            e_addr = int(rng.integers(0, UB - 3)) if rng.random() < 0.9 else UB - int(rng.integers(0, 4))
            if rng.random() < 0.1:
                e_addr = d_addr + int(rng.integers(0, 64))
            idx = int(rng.integers(0, 2))
            el = LocalTensor(f32, e_addr, 1)
            args = (el, src) if idx == 0 else (src, el)
            kw = {"config": aj.BinaryConfig(idx)} if (idx == 0 or rng.random() < 0.5) else {}
        fs = reset_state(p, ub_bytes=UB).replace(ub=jnp.asarray(ub))
        f = aj.MulsCast(fs, dst, *args, count, profile=p, max_repeats=RB, **kw)
        rs = RS.reset_state(p, ub_bytes=UB)
        rs.ub = ub.copy()
        r = REF.MulsCast(rs, dst, *args, count, profile=p, **kw)
        assert np.array_equal(np.asarray(f.ub), r.ub) and int(f.fault) == int(r.fault), (
            count,
            d_addr,
            s_addr,
            scalar,
        )
        ran += int(r.fault) == 0 and count > 0
    assert ran >= n // 4


def test_muls_cast_matches_the_reference():
    _muls_cast_check(30, 21)


@pytest.mark.slow
def test_muls_cast_matches_the_reference_slow():
    _muls_cast_check(2000, 22)
