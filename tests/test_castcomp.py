"""Helper castcomp: the reduce result registers (GetReduceRepeatSumSpr / GetReduceRepeatMaxMinSpr),
SetDeqScale with the DEQSCALE conversions (Cast int32 -> half, AddDeqRelu) and the cast composites
AddReluCast / SubReluCast / MulCast -- fast path vs the literal reference, bit for bit (UB bytes,
registers, fault word), every result example of the pages (tests/data/castcomp_examples.json), static
misuse naming the same argument in both implementations, static == traced.

Cheap default run: the random cases of the cast composites, AddDeqRelu (after SetDeqScale) and
MulsCast are drawn by the fuzz family ``ascend_jax.fuzz.families.castcomp`` and run by its runner:
the public API vmapped with every parameter traced, one program per (U, T, count or high-dim form)
(the three composites share it: the API is traced in the core); the reduce register groups reuse the
programs of tests/test_reduce_differential.py. ``@pytest.mark.slow``: >= 2,000 cases per group and
the other groups / products.
"""

import dataclasses
import functools
import json
import pathlib

import jax.numpy as jnp
import numpy as np
import pytest
import test_reduce_differential as TRD

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax.dtypes import as_dtype
from ascend_jax.errors import UnsupportedError, UsageError
from ascend_jax.fuzz import runner as RUN
from ascend_jax.fuzz.families import castcomp as CCF
from ascend_jax.params import BinaryRepeatParams
from ascend_jax.profile import available_profiles, load_profile
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state
from ascend_jax.tensor import MASK_PLACEHOLDER, LocalTensor
from ascend_jax.testing.traces import max_traces

DEFAULT = load_profile("ascend910b")
UB = 8192
EXAMPLES = json.loads((pathlib.Path(__file__).parent / "data/castcomp_examples.json").read_text())["examples"]


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
# drawn by the fuzz family (ascend_jax/fuzz/families/castcomp.py) and run by its runner: the public
# API vmapped, one program per (API group, U, T, count or high-dim) -- the three composites of a
# (U, T) share one jitted core (the API is traced inside it)

BATCH = 16  # the padded batch of the default run's random cases


class _Family(CCF.CastCompFamily):
    """The family, its initial UB kept per case (the runner and the "wrote dst" check share it)."""

    @functools.lru_cache(maxsize=2048)  # noqa: B019 (the module-level instances live as long)
    def initial_ub(self, case):
        return super().initial_ub(case)


FAM = _Family()


class _CastDeqFamily(_Family):
    """Cast int32 -> half (DEQSCALE: "roundMode不生效，与SetDeqScale(half scale)接口配合使用") on the
    family's AddDeqRelu-shaped cases (src1 unused; UnaryRepeatParams from the dst / src0 strides),
    after the same SetDeqScale(half scale) pre-step. A test helper, not an adapter of the engine (Cast
    belongs to the cast family)."""

    name = "castcomp-cast-deq"

    def stack_dyn(self, cases, p):
        out = super().stack_dyn(cases, p)
        out["scale"] = np.asarray([c.scale for c in cases], np.float16)  # the SetDeqScale pre-step
        return out

    def call(self, mod, c, state, p, dyn=None):
        a = dyn if dyn is not None else dataclasses.asdict(c)
        state = mod.SetDeqScale(state, a["scale"], profile=p)
        h, i32 = as_dtype("half"), as_dtype("int32")
        dst, src = LocalTensor(h, a["dst"], 64), LocalTensor(i32, a["src0"], 64)
        kw = {"max_repeats": CCF.RB} if mod is aj else {}
        if c.form == "count":
            return mod.Cast(state, dst, src, "CAST_RINT", a["count"], profile=p, **kw), None
        s = a["strides"]
        params = aj.UnaryRepeatParams(s[0], s[1], s[3], s[4])
        if dyn is not None:
            f = aj.AnyForm(dyn["form"], 0, dyn["mask"], dyn["words"], dyn["repeat"], params)
            return mod.Cast(state, dst, src, "CAST_RINT", f, profile=p, **kw), None
        mask = MASK_PLACEHOLDER if c.form == "register" else (list(c.mask) if c.form == "bitwise" else c.mask)
        st = mod.Cast(
            state,
            dst,
            src,
            "CAST_RINT",
            mask,
            c.repeat,
            params,
            profile=p,
            isSetMask=c.form != "register",
            **kw,
        )
        return st, None


CAST_DEQ = _CastDeqFamily()


def _fam(group):
    return CAST_DEQ if group[0] == "Cast" else FAM


def _cases(p, group, n, seed):
    """``n`` cases of a group, cycling over its (API, call form) units."""
    api, s, t = group
    rng = np.random.default_rng(seed)
    apis = CCF.COMPOSITES if api == "*" else ("AddDeqRelu" if api == "Cast" else api,)
    units = [u for a in apis for u in FAM.units(p, a) if (u[2], u[1]) == (s, t)]
    out = [FAM.generate(rng, p, units[i % len(units)], 0.1) for i in range(n)]
    return [dataclasses.replace(c, api="Cast") for c in out] if api == "Cast" else out


def _check(cases, p, group, batch=BATCH):
    """Fast path == reference (UB, registers, DEQSCALE, fault word) on every case, one program
    per signature; enough cases write dst."""
    fam = _fam(group)
    n_prog = len({fam.signature(c, p)[4] for c in cases})  # count / any: the APIs of a (U, T) share
    with max_traces("run_strided", n_prog):
        fast, refs = fam.run_all(cases, p, batch=batch, workers=1)
    bad = [(c.call_repr(), d) for c, f, r in zip(cases, fast, refs, strict=True) if (d := fam.compare(f, r))]
    assert not bad, f"{len(bad)} / {len(cases)} mismatches, first: {bad[:2]}"
    ran = sum(
        int(r[0].fault) == 0 and not np.array_equal(r[0].ub, fam.initial_ub(c))
        for c, r in zip(cases, refs, strict=True)
    )
    assert ran >= len(cases) // 5, f"only {ran} of {len(cases)} cases wrote dst"
    return fast


def groups(p):
    """(api or "*" for the shared composite program, U, T) of every program the product has."""
    out = []
    pairs = set()
    for api in CCF.COMPOSITES:
        pairs |= set(CCF.pairs(p, api))
    out += [("*", s, t) for s, t in sorted(pairs)]
    if p.api("AddDeqRelu").supported:
        out.append(("AddDeqRelu", "int32", "half"))
    cast = p.api("Cast")  # the table's "int32->half: DEQSCALE" entry
    if cast.supported and any(e.split(":")[0] == "int32->half" and "DEQSCALE" in e for e in cast.pairs):
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
    fast = _check(cases, DEFAULT, group)
    if group != DEFAULT_GROUPS[0]:
        return
    # static == traced: eager public calls with Python ints give the same state as the vmapped
    # traced program; count-form cases within one repeat run in the one-repeat program the page
    # examples compile (a state built as theirs)
    L = DEFAULT.lanes(as_dtype("half"))
    sample = [(c, f) for c, f in zip(cases, fast, strict=True) if c.form == "count" and c.count <= L][:3]
    assert sample
    for c, f in sample:
        st = reset_state(DEFAULT, ub_bytes=UB).replace(
            ub=jnp.asarray(FAM.initial_ub(c)),
            vmask=jnp.asarray(np.array(c.vmask, np.uint32)),
            ctrl=jnp.asarray(np.array(c.ctrl, np.uint32)),
            deqscale=jnp.asarray(np.array(c.deqscale_init, np.uint32)),
        )
        S, T = as_dtype(c.src), as_dtype(c.dtype)
        ops = (LocalTensor(T, c.dst, 64), LocalTensor(S, c.src0, 64), LocalTensor(S, c.src1, 64))
        eager = getattr(aj, c.api)(st, *ops, c.count, profile=DEFAULT)
        assert FAM.compare((eager, None), f) is None, (c.call_repr(), FAM.compare((eager, None), f))


def test_default_groups_are_groups_of_the_default_profile():
    assert set(DEFAULT_GROUPS + SLOW_GROUPS) == set(groups(DEFAULT))


@pytest.mark.slow
@pytest.mark.parametrize("name", available_profiles())
def test_differential_campaign(name):
    p = load_profile(name)
    for i, g in enumerate(groups(p)):
        _check(_cases(p, g, 2000 if name == "ascend910b" else 300, 3000 + i), p, g, batch=256)


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


def _muls_cast_check(n, seed, vmapped=True):
    """MulsCast(ISASI) on 950: random counts, addresses, float32 patterns and scalars (either
    position; a number or a LocalTensor element, ``config``), drawn by the fuzz family; the fast path
    == the reference, UB, registers and fault word. ``vmapped``: the family's runner (every value
    traced; one core, which a number scalar and an element address batch differently: two
    programs); else eager public calls with Python values (max_repeats: one program)."""
    p = load_profile("ascend950")
    rng = np.random.default_rng(seed)
    units = FAM.units(p, "MulsCast")
    cases = [FAM.generate(rng, p, units[i % len(units)], 0.1) for i in range(n)]
    with max_traces("run_strided", 2 if vmapped else 1):
        if vmapped:
            fast, refs = FAM.run_all(cases, p, batch=256, workers=1)
        else:
            fast = [
                FAM.call_static(aj, c, RUN.core_state(RUN.initial_fields(c, FAM.initial_ub(c))), p)
                for c in cases
            ]
            refs = [FAM.run_reference(c, p) for c in cases]
    bad = [(c.call_repr(), d) for c, f, r in zip(cases, fast, refs, strict=True) if (d := FAM.compare(f, r))]
    assert not bad, f"{len(bad)} / {n} mismatches, first: {bad[:2]}"
    ran = sum(int(r[0].fault) == 0 and c.count > 0 for c, r in zip(cases, refs, strict=True))
    assert ran >= n // 4


def test_muls_cast_matches_the_reference():
    """Default run: the static path (the traced one: the slow run and the CLI campaigns)."""
    _muls_cast_check(30, 21, vmapped=False)


@pytest.mark.slow
def test_muls_cast_matches_the_reference_slow():
    _muls_cast_check(2000, 22)


def test_campaign():
    """``ascend-jax fuzz --apis MulCast,AddDeqRelu,SetDeqScale --dtypes int8,half``: a short campaign
    of the family (valid cases, static misuse, data-dependent faults), every case checked against
    the reference. The APIs and types reuse the differential tests' programs (batch BATCH); the other
    pairs are left to the CLI's campaigns."""
    from ascend_jax import fuzz
    from ascend_jax.fuzz.families import family_of_api

    assert family_of_api("AddReluCast").name == "castcomp"
    apis = ["MulCast", "AddDeqRelu", "SetDeqScale"]
    res = fuzz.run(
        apis=apis, profile="ascend910b", cases=150, seed=15, invalid_rate=0.3, dtypes=["int8", "half"],
        batch=BATCH, workers=1,
    )  # fmt: skip
    assert res.ok, res.summary_table()
    assert len(res.records) == 150
    kinds = {r["kind"] for r in res.records}
    assert kinds == {"valid", "invalid-static", "invalid-data"}, kinds
