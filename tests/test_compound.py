"""The composite ops (复合计算/): AddRelu, SubRelu, FusedMulAdd, MulAddRelu, MulAddDst, Axpy, AbsSub, ExpSub.

* every result example of the pages (tests/data/compound_examples.json, numbers carried from the docs)
  through the reference and the fast path, in every call form the page shows;
* the two-rounding CHOICE of FusedMulAdd / MulAddRelu: the printed half results are the chain's and
  not a single fused rounding's;
* differential: fast path == reference, bit for bit (UB, registers, fault word) on random cases of
  every call form, vmapped (one program per (family, dtype)); the default run is small, the
  campaign (>= 2,000 per group) and the other profiles are ``slow``;
* misuse: the same argument named by both implementations; mixed precision is NotModelledError.
"""

import dataclasses
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import SCALE, nightly_params
from test_elementwise_differential import FORMS, RB, fast_state, random_case, ref_state

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax._engine.pipeline import run_strided
from ascend_jax.api import compound as CMP
from ascend_jax.dtypes import as_dtype
from ascend_jax.errors import Fault, UsageError
from ascend_jax.fuzz.compare import message
from ascend_jax.fuzz.families.brcb import BrcbFamily
from ascend_jax.fuzz.families.mull import MullFamily
from ascend_jax.params import BinaryRepeatParams, UnaryRepeatParams
from ascend_jax.profile import available_profiles, load_profile
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state
from ascend_jax.tensor import MASK_PLACEHOLDER, LocalTensor
from ascend_jax.testing.traces import max_traces

T = LocalTensor
DATA = json.loads(
    (pathlib.Path(__file__).parent / "data" / "compound_examples.json").read_text(encoding="utf-8")
)
EXAMPLES = DATA["examples"]
DEFAULT = load_profile("ascend910b")
ADDR = {"src0": 0, "src1": 2048, "src": 0, "dst": 4096}
ALL_ONES = [2**64 - 1, 2**64 - 1]


def _profile(api, dtype):
    for name in ("ascend910b", "ascend950"):
        if dtype in load_profile(name).api(api).all_dtypes():
            return name
    raise AssertionError((api, dtype))


def _vals(d, printed):
    return np.array([float(v) for v in printed]).astype(d.np_dtype)


def _src_dtype(ex, d):
    return as_dtype(ex["src_dtype"]) if "src_dtype" in ex else d


def _inputs(ex, d):
    """name -> (address, values[n]) with the printed positions set, the others zero (sources of
    ``src_dtype`` where the example has one: the mixed-precision rows)."""
    out = {}
    for name, pos in ex["inputs"].items():
        t = d if name == "dst" else _src_dtype(ex, d)
        v = np.zeros(ex["n"], t.np_dtype)
        idx = [int(i) for i in pos]
        v[idx] = _vals(t, pos.values())
        out[name] = (ADDR[name], v)
    return out


def _args(ex, form):
    f = ex["forms"][form]
    if form == "count":
        return tuple(f)
    mask = ALL_ONES if f["mask"] == "all_ones" else f["mask"]  # an int, or the page's uint64 words
    rp = f["repeatParams"]
    params = BinaryRepeatParams(*rp) if len(rp) == 6 else UnaryRepeatParams(*rp)
    return (mask, f["repeatTime"], params)


def _call(mod, ex, state, prof, form, d, **kw):
    n = ex["n"]
    api = ex["api"]
    args = _args(ex, form)
    dst = T(d, ADDR["dst"], n)
    s = _src_dtype(ex, d)
    if api == "Axpy":
        return mod.Axpy(state, dst, T(s, ADDR["src"], n), float(ex["scalar"]), *args, profile=prof, **kw)
    return getattr(mod, api)(
        state, dst, T(s, ADDR["src0"], n), T(s, ADDR["src1"], n), *args, profile=prof, **kw
    )


def _write(ub, addr, v):
    b = np.ascontiguousarray(v).view(np.uint8)
    ub[addr : addr + b.size] = b


def _check_printed(ex, d, got):
    for i, printed in ex["printed"].items():
        g = got[int(i)]
        if i in ex.get("doc_error", {}):  # a known doc error: the printed number is wrong
            assert g.tobytes() != _vals(d, [printed])[0].tobytes(), (ex["api"], i, g, printed)
        elif ex["check"] == "exact":
            assert g.tobytes() == _vals(d, [printed])[0].tobytes(), (ex["api"], i, g, printed)
        else:  # printed to 6 significant digits
            assert abs(float(g) - float(printed)) <= 5e-6 * max(1.0, abs(float(printed))), (ex["api"], i, g)


_MODELLED = [e for e in EXAMPLES if e["check"] != "not_modelled"]
# the fast path's run of the examples: the half binary family in the default run (one program), the
# others (one program each) under -m slow; the differential tests cover every group
_FAST_CHEAP = ("FusedMulAdd", "MulAddRelu", "MulAddDst")


def _ex_id(e):
    return e["api"] + ("-" + e["src_dtype"] + "-" + e["dtype"] if "src_dtype" in e else "")


def _example_ub(ex, d):
    ub = np.zeros(8192, np.uint8)
    for addr, v in _inputs(ex, d).values():
        _write(ub, addr, v)
    return ub


def _reference_run(ex, prof, form, d, ub):
    rs = RS.reset_state(prof, ub_bytes=8192)
    rs.ub = ub.copy()
    ref = _call(REF, ex, rs, prof, form, d)
    assert ref.fault == 0, (ex["api"], form)
    return ref


@pytest.mark.parametrize("ex", _MODELLED, ids=_ex_id)
def test_doc_result_examples_reference(ex):
    """The reference reproduces the printed numbers in every call form the page shows (known doc
    errors asserted wrong)."""
    d = as_dtype(ex["dtype"])
    prof = _profile(ex["api"], ex["dtype"])
    ub = _example_ub(ex, d)
    for form in ex["forms"]:
        ref = _reference_run(ex, prof, form, d, ub)
        _check_printed(ex, d, ref.ub[ADDR["dst"] : ADDR["dst"] + ex["n"] * d.itemsize].view(d.np_dtype))


@pytest.mark.parametrize(
    "ex",
    [e if e["api"] in _FAST_CHEAP else pytest.param(e, marks=pytest.mark.slow) for e in _MODELLED],
    ids=_ex_id,
)
def test_doc_result_examples_fast(ex):
    """The fast path, in every form the page shows: the printed numbers, and the whole state equal
    to the reference's."""
    d = as_dtype(ex["dtype"])
    prof = _profile(ex["api"], ex["dtype"])
    ub = _example_ub(ex, d)
    for form in ex["forms"]:
        ref = _reference_run(ex, prof, form, d, ub)
        st = reset_state(prof, ub_bytes=8192).replace(ub=jnp.asarray(ub))
        fast = _call(aj, ex, st, prof, form, d)
        _check_printed(
            ex, d, np.asarray(fast.ub)[ADDR["dst"] : ADDR["dst"] + ex["n"] * d.itemsize].view(d.np_dtype)
        )
        assert message(fast, ref) is None, (ex["api"], form)


def test_two_roundings_decided_by_the_examples():
    """SPEC/CHOICE: FusedMulAdd and MulAddRelu round the product to half, then the sum (two
    roundings). The pages' printed half results agree with that chain at all 256 positions and
    disagree with one fused rounding at many (NumPy, independent of both implementations)."""
    for ex in EXAMPLES:
        if ex["api"] not in ("FusedMulAdd", "MulAddRelu"):
            continue
        h = {k: _vals(aj.dtypes.half, v.values()).astype(np.float64) for k, v in ex["inputs"].items()}
        out = _vals(aj.dtypes.half, ex["printed"].values())
        two = ((h["src0"] * h["dst"]).astype(np.float16).astype(np.float64) + h["src1"]).astype(np.float16)
        fused = (h["src0"] * h["dst"] + h["src1"]).astype(np.float16)
        if ex["api"] == "MulAddRelu":
            two, fused = np.maximum(two, 0), np.maximum(fused, 0)
        assert np.array_equal(two.view(np.uint16), out.view(np.uint16)), ex["api"]
        assert np.sum(fused != out) > 30, ex["api"]


def test_mixed_precision_product_decided_by_the_example():
    """SPEC/CHOICE: MulAddDst with half sources and a float32 dst multiplies the widened sources in
    float32 (exact: 11 x 11 significand bits) and rounds the sum once. The page's printed float32
    results agree with that at all 256 positions and not with a product rounded to half first
    (NumPy, independent of both implementations)."""
    ex = next(e for e in EXAMPLES if e["api"] == "MulAddDst")
    h, f = aj.dtypes.half, aj.dtypes.float32
    a, b = (_vals(h, ex["inputs"][k].values()).astype(np.float64) for k in ("src0", "src1"))
    c = _vals(f, ex["inputs"]["dst"].values()).astype(np.float64)
    want = (a * b + c).astype(np.float32)  # a*b is exact in float64 and float32: one rounding of the sum
    printed = _vals(f, ex["printed"].values())
    assert want.tobytes() == printed.tobytes()
    half_product = ((a * b).astype(np.float16).astype(np.float64) + c).astype(np.float32)
    assert np.sum(half_product != printed) > 200


def test_mixed_precision_pairs_per_product():
    """The "half | half | float" row where the page lists it (``apis.X.pairs``); ascend310b's
    MulAddDst table has no such row: UnsupportedError in both implementations."""
    h, f = aj.dtypes.half, aj.dtypes.float32
    assert load_profile("ascend310b").api("MulAddDst").pairs == ()
    for mod, st in (
        (aj, reset_state("ascend310b", ub_bytes=8192)),
        (REF, RS.reset_state("ascend310b", 8192)),
    ):
        with pytest.raises(aj.UnsupportedError, match="half->float32"):
            mod.MulAddDst(st, T(f, 4096, 256), T(h, 0, 256), T(h, 2048, 256), 256, profile="ascend310b")
    for name in ("ascend910b", "ascend910_93", "ascend950", "ascend310p", "kirinx90", "kirin9030"):
        assert load_profile(name).api("MulAddDst").pairs == ("half->float32",), name
    for name in (
        "ascend910b",
        "ascend910_93",
        "ascend950",
        "ascend310p",
        "ascend310b",
        "ascend910",
        "kirinx90",
    ):
        assert load_profile(name).api("Axpy").pairs == ("half->float32",), name


# ---------------------------------------------------------------------------------------------
# differential


def _case(rng, p, api, dt, form):
    fam = "unary" if api == "Axpy" else "binary"
    if api in CMP.COUNT_ONLY or (dt in p.api(api).count_only_dtypes):
        form = "count"
    c = random_case(rng, p, fam, api, dt, form)
    if api == "Axpy":
        d = as_dtype(dt)
        if d.is_float:
            c.scalar = float(rng.choice([0.5, -1.25, 3.0, 0.0, -0.0, 1e-3, 100.0, float("inf")]))
        else:
            lo = -(2**40) if d.is_signed_int else 0
            c.scalar = int(rng.integers(lo, 2**40))
    return c


def _tensors(c):
    d = as_dtype(c.dtype)
    return T(d, c.dst, 64), [T(d, a, 64) for a in c.srcs]


def _form_args(c):
    if c.form in ("count", "count_register"):
        return (c.count,), c.form == "count"
    mask = MASK_PLACEHOLDER if c.form == "register" else c.mask
    if c.api == "Axpy":
        return (
            mask,
            c.repeat,
            UnaryRepeatParams(c.blk[0], c.blk[1], c.rep[0], c.rep[1]),
        ), c.form != "register"
    params = BinaryRepeatParams(c.blk[0], c.blk[1], c.blk[2], c.rep[0], c.rep[1], c.rep[2])
    return (mask, c.repeat, params), c.form != "register"


def call(mod, c, state, p, **kw):
    dst, srcs = _tensors(c)
    args, is_set = _form_args(c)
    if c.api in CMP.COUNT_ONLY:
        return getattr(mod, c.api)(state, dst, *srcs, *args, profile=p, **kw)
    if c.api == "Axpy":
        return mod.Axpy(state, dst, srcs[0], c.scalar, *args, profile=p, isSetMask=is_set, **kw)
    return getattr(mod, c.api)(state, dst, *srcs, *args, profile=p, isSetMask=is_set, **kw)


def plan(c, state, p):
    dst, srcs = _tensors(c)
    args, is_set = _form_args(c)
    if c.api == "Axpy":
        return CMP.plan_axpy(state, dst, srcs[0], c.scalar, args, p, is_set, RB)
    return CMP.plan(c.api, state, dst, srcs[0], srcs[1], args, p, is_set, RB)


_FN = {}


def run_fast_batch(cases, p):
    """All cases in one vmapped program per static key (one per (family, dtype))."""
    states = [fast_state(c, p) for c in cases]
    plans = [plan(c, s, p) for c, s in zip(cases, states, strict=True)]
    out = [None] * len(cases)
    groups_ = {}
    for i, (st, _dyn) in enumerate(plans):
        assert st.R <= RB, (cases[i], st.R)
        groups_.setdefault(dataclasses.replace(st, R=RB, ordered=True), []).append(i)
    for key, idx in groups_.items():
        if key not in _FN:
            _FN[key] = jax.jit(jax.vmap(lambda s, d, k=key: run_strided(k, s, d)))
        sts = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[states[i] for i in idx])
        dyns = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[plans[i][1] for i in idx])
        res = _FN[key](sts, dyns)
        for j, i in enumerate(idx):
            out[i] = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
    return out


def groups(p):
    """(family, dtype, apis): "binary" = the six binary-shaped APIs (one program), "axpy"."""
    out = {}
    for api in (*CMP.API_CODES, "Axpy"):
        a = p.api(api)
        if not a.supported:
            continue
        for dt in a.all_dtypes():
            if CMP.modelled(api, as_dtype(dt), p):
                out.setdefault(("axpy" if api == "Axpy" else "binary", dt), []).append(api)
    return [(f, dt, tuple(apis)) for (f, dt), apis in out.items()]


def _cases(p, dt, apis, n, seed):
    rng = np.random.default_rng(seed)
    per = max(1, n // (len(apis) * len(FORMS)))
    return [_case(rng, p, api, dt, form) for api in apis for form in FORMS for _ in range(per)]


def _check(cases, p):
    for c, f in zip(cases, run_fast_batch(cases, p), strict=True):
        r = call(REF, c, ref_state(c, p), p)
        msg = message(f, r)
        assert msg is None, f"{p.name}: {c}: {msg}"


def _gid(g):
    return f"{g[0]}-{g[1]}"


_CHEAP = {("binary", "half")}


@pytest.mark.parametrize("group", [g for g in groups(DEFAULT) if g[:2] in _CHEAP], ids=_gid)
def test_differential_default(group):
    """The default profile: ~100 cases of the half group (every API, every form)."""
    fam, dt, apis = group
    _check(_cases(DEFAULT, dt, apis, 100 * SCALE, seed=sum(map(ord, fam + dt))), DEFAULT)


@pytest.mark.slow
@pytest.mark.parametrize("group", [g for g in groups(DEFAULT) if g[:2] not in _CHEAP], ids=_gid)
def test_differential_default_other_groups(group):
    fam, dt, apis = group
    _check(_cases(DEFAULT, dt, apis, 100 * SCALE, seed=sum(map(ord, fam + dt))), DEFAULT)


@pytest.mark.slow
@pytest.mark.parametrize("group", groups(DEFAULT), ids=_gid)
def test_differential_default_campaign(group):
    """>= 2,000 cases per (API, dtype, form) on the default profile."""
    fam, dt, apis = group
    for b in range(10):
        _check(_cases(DEFAULT, dt, apis, 200 * len(apis) * len(FORMS), seed=1000 + b), DEFAULT)


def _other_groups():
    out = []
    for name in available_profiles():
        if name != DEFAULT.name:
            out += [pytest.param(name, g, id=f"{name}-{_gid(g)}") for g in groups(load_profile(name))]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("profile_name,group", nightly_params(_other_groups, 2))
def test_differential_other_profiles(profile_name, group):
    p = load_profile(profile_name)
    fam, dt, apis = group
    _check(_cases(p, dt, apis, 20 * SCALE * len(apis) * len(FORMS), seed=7), p)


@pytest.mark.slow
def test_static_equals_traced():
    """A sample through the public API eagerly with Python ints equals the traced batch."""
    cases = _cases(DEFAULT, "half", CMP.API_CODES[:1] + ("FusedMulAdd",), 2 * len(FORMS), seed=11)
    cases = [c for c in cases if DEFAULT.api(c.api).supported]
    for c, f in zip(cases, run_fast_batch(cases, DEFAULT), strict=True):
        assert message(call(aj, c, fast_state(c, DEFAULT), DEFAULT, max_repeats=RB), f) is None, c


# ---------------------------------------------------------------------------------------------
# misuse: both implementations name the same argument


def _misuse():
    h, f = aj.dtypes.half, aj.dtypes.float32
    return [
        (
            "AbsSub high-dim",
            "ascend950",
            "mask",
            lambda m, s, p: m.AbsSub(
                s, T(h, 0, 128), T(h, 256, 128), T(h, 512, 128), 128, 1, BinaryRepeatParams(), profile=p
            ),
        ),  # noqa: E501
        (
            "src1 dtype",
            "ascend910b",
            "src1.dtype",
            lambda m, s, p: m.AddRelu(s, T(h, 0, 128), T(h, 256, 128), T(f, 512, 128), 128, profile=p),
        ),  # noqa: E501
        (
            "isSetMask",
            "ascend910b",
            "isSetMask",
            lambda m, s, p: m.FusedMulAdd(
                s, T(h, 0, 128), T(h, 256, 128), T(h, 512, 128), 128, profile=p, isSetMask=1
            ),
        ),  # noqa: E501
        (
            "repeat stride",
            "ascend910b",
            "repeatParams.src1RepStride",
            lambda m, s, p: m.MulAddDst(
                s,
                T(h, 0, 128),
                T(h, 256, 128),
                T(h, 512, 128),
                128,
                1,
                BinaryRepeatParams(1, 1, 1, 8, 8, 256),
                profile=p,
            ),
        ),  # noqa: E501
        (
            "Axpy repeatTime",
            "ascend910b",
            "repeatTime",
            lambda m, s, p: m.Axpy(
                s, T(h, 0, 128), T(h, 256, 128), 2.0, 128, 256, UnaryRepeatParams(), profile=p
            ),
        ),  # noqa: E501
    ]


@pytest.mark.parametrize("case", _misuse(), ids=lambda c: c[0])
def test_misuse_names_the_same_argument(case):
    _, prof, arg, fn = case
    for mod, st in ((aj, reset_state(prof)), (REF, RS.reset_state(prof))):
        with pytest.raises(UsageError) as e:
            fn(mod, st, prof)
        assert e.value.argument == arg, (mod.__name__, e.value)


def test_unsupported_dtype_and_product():
    """int16 FusedMulAdd is not on the A2 page; AbsSub is 950-only: both implementations refuse."""
    i16, h = aj.dtypes.int16, aj.dtypes.half
    for mod, mk in ((aj, reset_state), (REF, RS.reset_state)):
        with pytest.raises(aj.errors.UnsupportedError):
            mod.FusedMulAdd(
                mk("ascend910b"),
                T(i16, 0, 128),
                T(i16, 256, 128),
                T(i16, 512, 128),
                128,
                profile="ascend910b",
            )  # noqa: E501
        with pytest.raises(aj.errors.UnsupportedError):
            mod.AbsSub(
                mk("ascend910b"), T(h, 0, 128), T(h, 256, 128), T(h, 512, 128), 128, profile="ascend910b"
            )


# ---------------------------------------------------------------------------------------------
# Brcb (数据填充/Brcb.md)


def _brcb_run(prof, d, ub, dst, src, rep, params, max_repeats=None):
    rs = RS.reset_state(prof, ub_bytes=8192)
    rs.ub = ub.copy()
    ref = REF.Brcb(rs, T(d, dst, 64), T(d, src, 64), rep, params, profile=prof)
    st = reset_state(prof, ub_bytes=8192).replace(ub=jnp.asarray(ub))
    fast = aj.Brcb(st, T(d, dst, 64), T(d, src, 64), rep, params, profile=prof, max_repeats=max_repeats)
    return fast, ref


def test_brcb_doc_example():
    """src [1 2 3 ... 16] (half), repeatTime 2, {1, 8}: block j of the 16 holds 16 copies of src[j]."""
    ex = DATA["brcb_examples"][0]
    d = as_dtype(ex["dtype"])
    ub = np.zeros(8192, np.uint8)
    src = np.zeros(16, np.float16)
    src[ex["src_index"]] = _vals(d, ex["src"])
    src[3:15] = np.arange(4, 16)  # the '...' of the page: the dst it prints shows 1..16 in order
    _write(ub, 0, src)
    fast, ref = _brcb_run(
        "ascend910b", d, ub, 4096, 0, ex["repeatTime"], aj.BrcbRepeatParams(*ex["repeatParams"])
    )
    assert ref.fault == 0 and message(fast, ref) is None
    got = ref.ub[4096 : 4096 + ex["n_dst"] * 2].view(np.float16)
    for i, printed in ex["printed"].items():
        assert got[int(i)].tobytes() == _vals(d, [printed])[0].tobytes(), i


@pytest.mark.parametrize(
    "prof,dt,n",
    [
        ("ascend910b", "half", 40 * SCALE),
        pytest.param("ascend950", "int8", 40 * SCALE, marks=pytest.mark.slow),
        pytest.param("ascend950", "int64", 40 * SCALE, marks=pytest.mark.slow),
        pytest.param("ascend310p", "float32", 40 * SCALE, marks=pytest.mark.slow),  # 8 KB scratch
    ],
)
def test_brcb_differential(prof, dt, n):
    """Random addresses (aligned, misaligned, overlapping, outside UB), strides (0 included) and
    repeat counts (0 included), drawn by the Brcb fuzz family, vmapped in one program (everything
    traced) == the reference."""
    p = aj.load_profile(prof)
    fam = BrcbFamily()
    rng = np.random.default_rng(17)
    cases = [fam.generate(rng, p, ("Brcb", dt), 0.1) for _ in range(n)]
    with max_traces("run_brcb", 1):
        fast, refs = fam.run_all(cases, p, batch=64, workers=1)
    faults = [int(r[0].fault) for r in refs]
    assert any(faults) and not all(faults), faults
    for c, f, r in zip(cases, fast, refs, strict=True):
        assert fam.compare(f, r) is None, (c.call_repr(), fam.compare(f, r))


@pytest.mark.parametrize(
    "arg,call",
    [
        (
            "src.dtype",
            lambda m, s: m.Brcb(
                s, T(aj.dtypes.half, 0, 64), T(aj.dtypes.float32, 256, 64), 1, (1, 8), profile="ascend910b"
            ),
        ),  # noqa: E501
        (
            "repeatTime",
            lambda m, s: m.Brcb(
                s, T(aj.dtypes.half, 0, 64), T(aj.dtypes.half, 256, 64), 256, (1, 8), profile="ascend910b"
            ),
        ),  # noqa: E501
        (
            "repeatParams.dstBlkStride",
            lambda m, s: m.Brcb(
                s, T(aj.dtypes.half, 0, 64), T(aj.dtypes.half, 256, 64), 1, (-1, 8), profile="ascend910b"
            ),
        ),  # noqa: E501
    ],
    ids=lambda x: x if isinstance(x, str) else "",
)
def test_brcb_misuse_names_the_same_argument(arg, call):
    for mod, st in ((aj, reset_state("ascend910b")), (REF, RS.reset_state("ascend910b"))):
        with pytest.raises(UsageError) as e:
            call(mod, st)
        assert e.value.argument == arg, (mod.__name__, e.value)


# ---------------------------------------------------------------------------------------------
# Mull(ISASI): low and high words of the full 32-bit product


def test_mull_doc_example():
    ex = DATA["mull_examples"][0]
    i32 = aj.dtypes.int32
    ub = np.zeros(8192, np.uint8)
    _write(ub, 0, np.array([int(v) for v in ex["src0"]], np.int32))
    _write(ub, 2048, np.array([int(v) for v in ex["src1"]], np.int32))
    args = [T(i32, a, 64) for a in (4096, 6144, 0, 2048)]
    rs = RS.reset_state("ascend950", ub_bytes=8192)
    rs.ub = ub.copy()
    ref = REF.Mull(rs, *args, 3, profile="ascend950")
    fast = aj.Mull(
        reset_state("ascend950", ub_bytes=8192).replace(ub=jnp.asarray(ub)), *args, 3, profile="ascend950"
    )
    assert ref.fault == 0 and message(fast, ref) is None
    assert ref.ub[4096:4108].view(np.int32).tolist() == [int(v) for v in ex["dst0"]]
    assert ref.ub[6144:6156].view(np.int32).tolist() == [int(v) for v in ex["dst1"]]


@pytest.mark.parametrize("dt", ["int32", pytest.param("uint32", marks=pytest.mark.slow)])
def test_mull_differential(dt):
    """Random addresses (overlapping dst0/dst1/sources, misaligned, outside UB), counts (0
    included) and Counter mode, drawn by the Mull fuzz family: the public API vmapped (one program:
    traced count via max_repeats) == the reference."""
    p = aj.load_profile("ascend950")
    fam = MullFamily()
    rng = np.random.default_rng(23)
    cases = [fam.generate(rng, p, ("Mull", dt), 0.1) for _ in range(30 * SCALE)]
    with max_traces("run_mull", 1):
        fast, refs = fam.run_all(cases, p, batch=32, workers=1)
    for c, f, r in zip(cases, fast, refs, strict=True):
        assert fam.compare(f, r) is None, (c.call_repr(), fam.compare(f, r))


def test_mull_misaligned_results_meeting_fault_as_overlap():
    """dst1 two bytes past dst0: the results' active blocks meet without starting at one address.
    Both implementations report the overlap beside the misalignment (found by the Mull family's
    first campaign: the reference compared block starts)."""
    i32 = aj.dtypes.int32
    for dst1, want in ((4096 + 2, Fault.MISALIGNED | Fault.PARTIAL_OVERLAP), (4096 + 256, 0)):
        args = [T(i32, a, 64) for a in (4096, dst1, 0, 2048)]
        rs = RS.reset_state("ascend950", ub_bytes=8192)
        ref = REF.Mull(rs, *args, 64, profile="ascend950")
        fast = aj.Mull(reset_state("ascend950", ub_bytes=8192), *args, 64, profile="ascend950")
        assert int(ref.fault) == want and message(fast, ref) is None, (dst1, Fault(int(ref.fault)))


def test_mull_misuse():
    i32, u32 = aj.dtypes.int32, aj.dtypes.uint32
    for mod, st in ((aj, reset_state("ascend950")), (REF, RS.reset_state("ascend950"))):
        with pytest.raises(UsageError) as e:
            mod.Mull(
                st, T(i32, 0, 64), T(u32, 256, 64), T(i32, 512, 64), T(i32, 768, 64), 64, profile="ascend950"
            )
        assert e.value.argument == "dst1.dtype"
        with pytest.raises(UsageError) as e:
            mod.Mull(
                st,
                *(T(i32, a, 64) for a in (0, 256, 512, 768)),
                64,
                1,
                UnaryRepeatParams(),
                profile="ascend950",
            )
        assert e.value.argument == "mask"
        with pytest.raises(aj.errors.UnsupportedError):
            mod.Mull(
                RS.reset_state("ascend910b") if mod is REF else reset_state("ascend910b"),
                *(T(i32, a, 64) for a in (0, 256, 512, 768)),
                64,
                profile="ascend910b",
            )  # noqa: E501
