"""The advanced math APIs (高阶API) Sigmoid, Tanh, Log, Log2, Log10: the fast path
(``api/adv_math.py``, ``_engine/adv_math.py``) against the literal reference
(``reference/adv_math.py``), bit for bit on the whole UB, the registers and the fault word; the
accuracy of the named sequences against float64; static misuse; a TPipe/TQue kernel calling them;
and a C++ kernel calling ``AscendC::Sigmoid`` through ``ascend-jax run``.

Random cases draw the API, every call form (sharedTmpBuffer or not, calCount or the whole tensor),
addresses (aligned, misaligned, overlapping: BAD_PARAM when traced), counts (0, partial repeats, out of
range when traced), the registers before the call (Normal / Counter mode, any vmask) and operand bit
patterns (NaN, inf, subnormals, -0, and values where the functions are interesting). All cases of a
dtype run in ONE vmapped program (the API is traced data). Default run: one program per dtype, a few
hundred cases; every profile and more cases under ``-m slow``.
"""

import dataclasses
import math
import shutil
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import SCALE

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax._engine.pipeline import run_strided
from ascend_jax.api import adv_math as AM
from ascend_jax.errors import UnsupportedError, UsageError
from ascend_jax.fuzz.compare import message
from ascend_jax.profile import available_profiles, load_profile
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state

APIS = ("Sigmoid", "Tanh", "Log", "Log2", "Log10", "FasterGeluV2")
UB = 8192
RB = 4  # repeat bucket of every random case
DEFAULT = load_profile("ascend910b")


@dataclasses.dataclass
class Case:
    api: str
    dtype: str
    ub_seed: int
    dst: int
    src: int
    dst_len: int
    src_len: int
    tmp: object  # None or (addr, bytes)
    count: object  # None: the whole-tensor form
    counter: bool
    vmask: tuple
    ub: object = None  # the UB bytes (None: drawn from ub_seed)
    hp: bool = False  # FasterGeluV2's highPrecision


def _values(rng, d, n):
    """T bit patterns: specials, subnormals, and values where the functions vary."""
    pool = {
        "half": [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x0001, 0x83FF, 0x3C00, 0x7BFF, 0xFBFF],
        "float32": [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 1, 0x807FFFFF, 0x3F800000, 0x7F7FFFFF],
    }[d.name]
    kind = rng.integers(0, 4, n)
    wide = np.where(kind == 2, np.exp(rng.uniform(-20, 20, n)), rng.uniform(-1e-3, 1e-3, n))
    vals = np.where(kind == 0, rng.normal(0, 3, n), np.where(kind == 1, rng.normal(0, 12, n), wide))
    with np.errstate(over="ignore"):  # e**20 is inf in half
        bits = vals.astype(d.np_dtype).view(d.bits_dtype).astype(np.uint64)
    spec = rng.random(n) < 0.1
    bits[spec] = np.array(pool, np.uint64)[rng.integers(0, len(pool), n)][spec]
    return bits.astype(d.bits_dtype)


def _ub(c):
    if c.ub is not None:
        return c.ub.copy()
    d = aj.as_dtype(c.dtype)
    rng = np.random.default_rng(c.ub_seed)
    ub = rng.integers(0, 256, UB, dtype=np.uint8)
    words = _values(rng, d, UB // d.itemsize)
    return words.view(np.uint8).copy() if rng.random() < 0.9 else ub


def random_case(rng, api, dtype):
    d = aj.as_dtype(dtype)
    L = DEFAULT.lanes(d)
    n_max = RB * L
    counter = bool(rng.random() < 0.3)
    vmask = tuple(int(v) for v in rng.integers(0, 2**32, 8, dtype=np.uint64))
    src_len = int(rng.integers(1, n_max + 1))
    dst_len = int(rng.integers(src_len // 2, n_max + 1)) if rng.random() < 0.3 else src_len
    r = rng.random()
    hi = min(src_len, dst_len)
    if r < 0.7 or (r < 0.8 and hi == n_max):
        count = int(rng.integers(0, hi + 1))
    elif r < 0.8:
        count = int(rng.integers(hi + 1, n_max + 1))  # out of range (within the bucket): BAD_PARAM
    else:
        count = None
        dst_len = max(dst_len, src_len)
    if rng.random() < 0.1:
        count = 0
    blocks = UB // 32
    src = int(rng.integers(0, blocks // 2)) * 32
    dst = int(rng.integers(blocks // 2, blocks)) * 32
    if rng.random() < 0.1:  # overlapping src and dst
        dst = src + int(rng.integers(0, 4)) * 32
    if rng.random() < 0.05:  # misaligned
        dst += d.itemsize
    if rng.random() < 0.05:  # past the end of the UB
        dst = UB - 64
    tmp = None
    if api in AM.WITH_TMP and rng.random() < 0.6:
        t_addr = int(rng.integers(0, blocks)) * 32
        tmp = (t_addr, int(rng.integers(1, 8)) * 32)
    if api == "FasterGeluV2" and count is None:  # no whole-tensor prototype
        count = int(rng.integers(0, min(src_len, dst_len) + 1))
    hp = api == "FasterGeluV2" and bool(rng.random() < 0.5)
    seed = int(rng.integers(0, 2**31))
    return Case(api, dtype, seed, dst, src, dst_len, src_len, tmp, count, counter, vmask, None, hp)


def _args(c, tensor, scalar):
    """(dstTensor, srcTensor, *args) with addresses and count as ``scalar`` makes them."""
    d = aj.as_dtype(c.dtype)
    out = [tensor(d, scalar(c.dst), c.dst_len), tensor(d, scalar(c.src), c.src_len)]
    if c.tmp is not None:
        out.append(tensor(aj.uint8, scalar(c.tmp[0]), c.tmp[1]))
    if c.count is not None:
        out.append(scalar(c.count))
    return out


def fast_state(c, p):
    st = reset_state(p, ub_bytes=UB)
    return st.replace(
        ub=jnp.asarray(_ub(c)),
        vmask=jnp.asarray(np.array(c.vmask, np.uint32)),
        mask_mode=jnp.asarray(1 if c.counter else 0, st.mask_mode.dtype),
    )


def ref_state(c, p):
    st = RS.reset_state(p, ub_bytes=UB)
    st.ub = _ub(c)
    st.vmask = np.array(c.vmask, np.uint32)
    st.mask_mode = 1 if c.counter else 0
    return st


def run_reference(c, p):
    """The reference with every address and the count traced (NumPy scalars: faults, not errors)."""
    args = _args(c, aj.LocalTensor, np.int32)
    kw = {"highPrecision": c.hp} if c.api == "FasterGeluV2" else {}
    return getattr(REF, c.api)(ref_state(c, p), *args, profile=p, **kw)


_FN = {}
BATCH = 64  # cases a program call (a fixed shape: one compilation per dtype serves every test)


def run_fast_batch(cases, p):
    """Every case of a dtype in one vmapped program (the API, addresses and count traced), BATCH cases
    a call (the last call padded with copies of the last case)."""
    out = []
    for i in range(0, len(cases), BATCH):
        part = cases[i : i + BATCH]
        out += _run_batch(part + [part[-1]] * (BATCH - len(part)), p)[: len(part)]
    return out


def _run_batch(cases, p):
    states = [fast_state(c, p) for c in cases]
    plans = [
        AM.plan(
            c.api,
            s,
            *_args(c, aj.LocalTensor, jnp.int32)[:2],
            _args(c, aj.LocalTensor, jnp.int32)[2:],
            p,
            False,
            RB,
            c.hp,
        )
        for c, s in zip(cases, states, strict=True)
    ]
    keys = {st for st, _ in plans}
    assert len(keys) == 1, keys
    key = keys.pop()
    if key not in _FN:
        _FN[key] = jax.jit(jax.vmap(lambda s, d, k=key: run_strided(k, s, d)))
    sts = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *states)
    dyns = jax.tree_util.tree_map(lambda *x: jnp.stack([jnp.asarray(v) for v in x]), *[d for _, d in plans])
    res = _FN[key](sts, dyns)
    return [jax.tree_util.tree_map(lambda x, j=j: x[j], res) for j in range(len(cases))]


def _check(p, dtype, n, seed):
    rng = np.random.default_rng(seed)
    apis = [a for a in APIS if p.api(a).supported and dtype in p.api(a).dtypes]
    cases = [random_case(rng, apis[i % len(apis)], dtype) for i in range(n)]
    fast = run_fast_batch(cases, p)
    faults = 0
    for c, f in zip(cases, fast, strict=True):
        r = run_reference(c, p)
        msg = message(f, r)
        assert msg is None, f"{p.name}: {c}: {msg}"
        faults += r.fault != 0
    assert 0 < faults < n  # the draw reaches both the computing and the faulting paths


@pytest.mark.parametrize("dtype", ["half", "float32"])
def test_fast_equals_reference_random_cases(dtype):
    _check(DEFAULT, dtype, int(BATCH * SCALE), seed=7 if dtype == "half" else 8)


@pytest.mark.slow
@pytest.mark.parametrize("profile", available_profiles())
@pytest.mark.parametrize("dtype", ["half", "float32"])
def test_fast_equals_reference_every_profile(profile, dtype):
    p = load_profile(profile)
    if not any(p.api(a).supported for a in APIS):
        pytest.skip(f"{profile}: no advanced math API")
    _check(p, dtype, 600, seed=zlib.crc32(f"{profile}-{dtype}".encode()))


# ---------------------------------------------------------------------------------------------
# Accuracy of the named sequences against float64 (the bounds docs/MODEL.md states)

_TRUTH = {
    "Sigmoid": lambda v: 1.0 / (1.0 + np.exp(-v)),
    "Tanh": np.tanh,
    "Log": np.log,
    "Log2": np.log2,
    "Log10": np.log10,
    # FasterGeluV2's own formula (the page's approximation of GELU), in float64
    "FasterGeluV2": lambda v: (
        v
        * (
            np.where(v + 1e-12 >= 0, 1.0, -1.0)
            * (-0.1444 * (np.minimum(np.abs(0.7071 * v), 1.769) - 1.769) ** 2 + 0.5)
            + 0.5
        )
    ),
}


def _err_x_ulps(got_bits, truth, x, d):
    """|got - truth| in units of the ulp of T at x: FasterGeluV2's result crosses zero near x = -2.5
    (-0.5 + 0.5 cancels), where the result's own ulp says nothing of the formula's accuracy."""
    got = got_bits.view(d.np_dtype).astype(np.float64)
    fi = np.finfo(d.np_dtype)
    e = np.floor(np.log2(np.maximum(np.abs(x), float(fi.smallest_normal))))
    return np.abs(got - truth) / np.exp2(e - fi.nmant)


def _ulp_error(got_bits, truth, d):
    """|got - truth| in units of the ulp of T at the truth (T's subnormal ulp below its normals)."""
    got = got_bits.view(d.np_dtype).astype(np.float64)
    fi = np.finfo(d.np_dtype)
    e = np.floor(np.log2(np.maximum(np.abs(truth), float(fi.smallest_normal))))
    ulp = np.exp2(e - fi.nmant)
    return np.abs(got - truth) / ulp


# (api, dtype) -> (domain, max ulp error the model's sequence shows there); the measured maxima are
# in docs/MODEL.md "Advanced math" (a half table over all 65,536 inputs runs in the nightly)
BOUNDS = {
    ("Sigmoid", "float32"): ((-80.0, 80.0), 2.0),
    ("Sigmoid", "half"): ((-11.0, 11.0), 2.0),
    ("Tanh", "float32"): ((0.5, 10.0), 3.0),
    ("Tanh", "half"): ((-10.0, 10.0), 0.502),
    ("Log", "float32"): ((1e-30, 1e30), 0.5),
    ("Log", "half"): ((1e-4, 6e4), 0.5),
    ("Log2", "float32"): ((1e-30, 1e30), 1.5),
    ("Log2", "half"): ((1e-4, 6e4), 0.502),
    ("Log10", "float32"): ((1e-30, 1e30), 2.0),
    ("Log10", "half"): ((1e-4, 6e4), 1.5),
    # FasterGeluV2: in ulps of x (see _err_x_ulps); half with highPrecision: 0.502
    ("FasterGeluV2", "float32"): ((-8.0, 8.0), 2.5),
    ("FasterGeluV2", "half"): ((-8.0, 8.0), 1.75),
}


def _grid(api, d, n):
    lo, hi = BOUNDS[(api, d.name)][0]
    v = np.geomspace(lo, hi, n) if api.startswith("Log") else np.linspace(lo, hi, n)
    if api == "Tanh" and d.name == "float32":
        v = np.concatenate([v, -v])
    return v.astype(d.np_dtype)


@pytest.mark.slow
def test_accuracy_every_half_input():
    """All 65,536 half inputs through the element function (the differential ties it to the
    reference): the maxima docs/MODEL.md states."""
    from ascend_jax._engine import adv_math as E

    ctrl = reset_state(DEFAULT, ub_bytes=1024).ctrl
    f = jax.jit(lambda x, op: E.any_elem(x, aj.half, DEFAULT, ctrl, op))
    bits = np.arange(1 << 16, dtype=np.uint32)
    x = bits.astype(np.uint16).view(np.float16).astype(np.float64)
    want = {"Sigmoid": 1.94, "Tanh": 0.502, "Log": 0.5, "Log2": 0.502, "Log10": 1.5, "FasterGeluV2": 1.73}
    for i, api in enumerate(APIS + ("FasterGeluV2",)):  # the last: op 6, highPrecision
        got = np.asarray(f(jnp.asarray(bits), jnp.int32(i))).astype(np.uint16)
        with np.errstate(all="ignore"):
            truth = _TRUTH[api](x)
        if api == "FasterGeluV2":
            ok = np.isfinite(x) & (np.abs(x) <= 1000)
            err = _err_x_ulps(got[ok], truth[ok], x[ok], aj.half)
            assert np.max(err) <= (0.502 if i == 6 else want[api]), (api, i, float(np.max(err)))
            continue
        ok = np.isfinite(x) & np.isfinite(truth) & ((x > 0) if api.startswith("Log") else (np.abs(x) <= 11))
        err = _ulp_error(got[ok], truth[ok], aj.half)
        assert np.max(err) <= want[api], (api, float(np.max(err)))


def _value_cases(api, d, vals, hp=False):
    """Cases computing ``vals`` (calCount form, src at 0, dst at UB / 2), RB * L values a case."""
    n = RB * DEFAULT.lanes(d)
    out = []
    for i in range(0, len(vals), n):
        part = np.asarray(vals[i : i + n], d.np_dtype)
        ub = np.zeros(UB, np.uint8)
        ub[: part.nbytes] = part.view(np.uint8)
        out.append(Case(api, d.name, 0, UB // 2, 0, n, n, None, len(part), False, (0,) * 8, ub, hp))
    return out


def _run_values(api, d, vals):
    """The fast path (the differential's program) on ``vals``: the results' bits."""
    cases = _value_cases(api, d, vals)
    res = run_fast_batch(cases, DEFAULT)
    assert not any(int(r.fault) for r in res)
    half = UB // 2
    got = [np.asarray(r.ub)[half : half + c.count * d.itemsize] for c, r in zip(cases, res, strict=True)]
    return np.concatenate(got).view(d.bits_dtype)


@pytest.mark.parametrize("dtype", ["half", "float32"])
def test_accuracy_against_float64(dtype):
    d = aj.as_dtype(dtype)
    cases, spans = [], []
    for api in APIS:  # every API's grid in one batch
        vals = _grid(api, d, 1024)
        first = len(cases)
        cases += _value_cases(api, d, vals)
        spans.append((api, vals, first, len(cases)))
    res = run_fast_batch(cases, DEFAULT)
    half = UB // 2
    for api, vals, a, b in spans:
        got = np.concatenate(
            [np.asarray(res[i].ub)[half : half + cases[i].count * d.itemsize] for i in range(a, b)]
        ).view(d.bits_dtype)
        v64 = vals.astype(np.float64)
        if api == "FasterGeluV2":
            err = _err_x_ulps(got, _TRUTH[api](v64), v64, d)
        else:
            err = _ulp_error(got, _TRUTH[api](v64), d)
        bound = BOUNDS[(api, dtype)][1]
        assert np.max(err) <= bound, (api, dtype, float(np.max(err)), vals[np.argmax(err)])
    if dtype == "half":  # FasterGeluV2<half, highPrecision=true>: float32 steps, one rounding to half
        vals = _grid("FasterGeluV2", d, 1024)
        res = run_fast_batch(_value_cases("FasterGeluV2", d, vals, hp=True), DEFAULT)
        got = np.concatenate([np.asarray(r.ub)[half : half + 512 * 2] for r in res])[: vals.nbytes].view(
            np.uint16
        )
        v64 = vals.astype(np.float64)
        assert np.max(_err_x_ulps(got, _TRUTH["FasterGeluV2"](v64), v64, d)) <= 0.502


def _one_batch(jobs, d):
    """{name: result bits} of several (name, api, values) jobs of one dtype, in one program call."""
    cases, spans = [], []
    for name, api, vals in jobs:
        first = len(cases)
        cases += _value_cases(api, d, vals)
        spans.append((name, first, len(cases)))
    res = run_fast_batch(cases, DEFAULT)
    assert not any(int(r.fault) for r in res)
    half = UB // 2
    return {
        name: np.concatenate(
            [np.asarray(res[i].ub)[half : half + cases[i].count * d.itemsize] for i in range(a, b)]
        ).view(d.np_dtype)
        for name, a, b in spans
    }


def test_special_values_float32():
    inf, nan = np.inf, np.nan
    x = np.array([0.0, -0.0, inf, -inf, nan, 1.0, -100.0, 100.0], np.float32)
    r = _one_batch(
        [
            ("sig", "Sigmoid", x),
            ("tanh", "Tanh", x),
            ("log", "Log", np.array([0.0, -1.0, inf, 1.0], np.float32)),
            ("small", "Tanh", np.array([1e-3, 1e-9, -1e-9], np.float32)),
        ],
        aj.float32,
    )
    sig, th, lg, small = r["sig"], r["tanh"], r["log"], r["small"]
    assert sig[0] == 0.5 and sig[1] == 0.5 and sig[2] == 1 and sig[3] == 0 and np.isnan(sig[4])
    assert sig[6] == 0 and sig[7] == 1  # exp(100) overflows to inf: 1 / inf = 0
    assert th[2] == 1 and th[3] == -1 and np.isnan(th[4]) and th[6] == -1 and th[7] == 1
    assert th[1] == 0 and not np.signbit(th[1])  # tanh(-0): e = 1, (1 - 1) / 2 = +0
    assert lg[0] == -inf and np.isnan(lg[1]) and lg[2] == inf and lg[3] == 0
    # the CHOICE's known weakness (docs/MODEL.md): e**(2x) - 1 cancels for small |x|; tanh(1e-3)
    # comes out right to about 4 digits only, and a tiny x gives exactly 0 (e**(2x) rounds to 1)
    assert abs(small[0] / math.tanh(1e-3) - 1) < 1e-4 and small[0] != np.float32(math.tanh(1e-3))
    assert small[1] == 0 and small[2] == 0


def test_special_values_half():
    r = _one_batch(
        [
            ("l2", "Log2", np.array([1024.0, 0.5, 0.0, 3.0], np.float16)),
            ("tanh", "Tanh", np.array([1e-4, 20.0, -20.0], np.float16)),
            ("sig", "Sigmoid", np.array([-12.0, 0.0, 12.0], np.float16)),
        ],
        aj.half,
    )
    assert r["l2"].tolist()[:2] == [10.0, -1.0] and r["l2"][2] == -np.inf
    assert r["l2"][3] == np.float16(math.log2(3.0))
    # Tanh in float32: no cancellation at half's precision; the clamp gives +-1
    assert r["tanh"][0] == np.float16(math.tanh(float(np.float16(1e-4)))) and r["tanh"].tolist()[1:] == [
        1,
        -1,
    ]
    # Sigmoid in half: e**12 overflows half; with CTRL at reset (910b: half saturation on) Exp gives
    # 65504, Adds 65504 (65505 rounds back), Div 1 / 65504 = 2**-16, where sigmoid(-12) = 6.1e-06
    assert r["sig"].tolist() == [2.0**-16, 0.5, 1.0]


# ---------------------------------------------------------------------------------------------
# Static misuse: both implementations name the same argument


T = aj.LocalTensor
F32, F16, U8 = aj.float32, aj.half, aj.uint8
D, S, TMP = T(F32, 0, 256), T(F32, 2048, 256), T(U8, 4096, 1024)
MISUSE = [
    ("overlap", "Sigmoid", (T(F32, 0, 256), T(F32, 512, 256), 256), {}, "dstTensor"),
    ("tmp-over-src", "Tanh", (D, S, T(U8, 2048, 64), 256), {}, "sharedTmpBuffer"),
    ("tmp-over-dst", "Log2", (D, S, T(U8, 32, 64), 16), {}, "sharedTmpBuffer"),
    ("tmp-dtype", "Sigmoid", (D, S, T(F32, 4096, 64), 16), {}, "sharedTmpBuffer.dtype"),
    ("tmp-empty", "Sigmoid", (D, S, T(U8, 4096, 0)), {}, "sharedTmpBuffer"),
    ("count-range", "Tanh", (D, S, TMP, 257), {}, "calCount"),
    ("count-float", "Log", (D, S, 8.0), {}, "calCount"),
    ("log-no-tmp", "Log", (D, S, TMP, 16), {}, "sharedTmpBuffer"),
    ("log10-no-tmp", "Log10", (D, S, TMP), {}, "sharedTmpBuffer"),
    ("dtype-mix", "Log", (D, T(F16, 2048, 256), 16), {}, "srcTensor.dtype"),
    ("whole-dst-short", "Sigmoid", (T(F32, 0, 64), S), {}, "dstTensor"),
    ("reuse-flag", "Tanh", (D, S, 16), {"isReuseSource": 1}, "isReuseSource"),
    ("not-a-tensor", "Log2", (D, 5, 16), {}, "srcTensor"),
    ("gelu-no-size", "FasterGeluV2", (D, S, TMP), {}, "dataSize"),
    ("gelu-size-range", "FasterGeluV2", (D, S, 300), {}, "dataSize"),
    ("gelu-dtype-mix", "FasterGeluV2", (D, T(F16, 2048, 256), 16), {}, "srcLocal.dtype"),
    ("gelu-tmp-over-dst", "FasterGeluV2", (D, S, T(U8, 0, 64), 16), {}, "sharedTmpBuffer"),
    ("gelu-flag", "FasterGeluV2", (D, S, 16), {"highPrecision": "yes"}, "highPrecision"),
]


@pytest.mark.parametrize("case", MISUSE, ids=[m[0] for m in MISUSE])
def test_misuse_names_the_argument_in_both_implementations(case):
    _, api, args, kw, argument = case
    with pytest.raises(UsageError) as fast:
        getattr(aj, api)(reset_state(DEFAULT, ub_bytes=UB), *args, profile=DEFAULT, **kw)
    with pytest.raises(UsageError) as ref:
        getattr(REF, api)(RS.reset_state(DEFAULT, ub_bytes=UB), *args, profile=DEFAULT, **kw)
    assert fast.value.argument == argument == ref.value.argument, (fast.value, ref.value)


@pytest.mark.parametrize(
    ("api", "profile", "dtype"),
    [("Tanh", "ascend910", "float32"), ("Sigmoid", "ascend310b", "half"), ("Log", "ascend910b", "bfloat16")],
)
def test_unsupported_product_or_dtype(api, profile, dtype):
    p = load_profile(profile)
    d = aj.as_dtype(dtype)
    for impl, st in ((aj, reset_state(p, ub_bytes=UB)), (REF, RS.reset_state(p, ub_bytes=UB))):
        with pytest.raises(UnsupportedError):
            getattr(impl, api)(st, T(d, 0, 64), T(d, 1024, 64), 64, profile=p)


def test_faster_gelu_v2_in_place_and_high_performance():
    # no overlap rule on the page: dst == src runs (every lane is read before it is written)
    vals = _grid("FasterGeluV2", aj.float32, 256)
    (c,) = _value_cases("FasterGeluV2", aj.float32, vals)
    c = dataclasses.replace(c, dst=0)
    (f,) = run_fast_batch([c], DEFAULT)
    r = run_reference(c, DEFAULT)
    assert message(f, r) is None and int(f.fault) == 0
    assert not np.array_equal(np.asarray(f.ub)[:1024], c.ub[:1024])
    for impl, s in ((aj, reset_state(DEFAULT, ub_bytes=UB)), (REF, RS.reset_state(DEFAULT, ub_bytes=UB))):
        with pytest.raises(aj.NotModelledError):
            impl.FasterGeluV2(s, D, S, 16, profile=DEFAULT, highPerformance=True)


def test_log_and_ln_are_different_apis():
    # the memory-vector Ln (基础算术) keeps its call forms; the advanced Log has no mask form
    assert aj.REGISTRY["Ln"].family == "unary" and aj.REGISTRY["Log"].family == "adv_math"
    st = reset_state(DEFAULT, ub_bytes=UB)
    with pytest.raises(TypeError, match=r"Log\(\) takes"):
        aj.Log(st, D, S, 64, 1, aj.UnaryRepeatParams())


# ---------------------------------------------------------------------------------------------
# The shape real kernels use: TPipe / TQue / TBuf, DataCopy in, the API with a TBuf scratch, out


def _act_kernel(api, dtype, n):
    def kernel(k, x_gm, y_gm):
        pipe = aj.TPipe(k)
        qin = aj.TQue(aj.TPosition.VECIN, 1)
        qout = aj.TQue(aj.TPosition.VECOUT, 1)
        tbuf = aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(qin, 1, n * dtype.itemsize)
        pipe.InitBuffer(qout, 1, n * dtype.itemsize)
        pipe.InitBuffer(tbuf, 4 * n * dtype.itemsize)
        x = qin.AllocTensor(dtype)
        k.DataCopy(x, x_gm, n)
        qin.EnQue(x)
        x = qin.DeQue(dtype)
        y = qout.AllocTensor(dtype)
        if api in AM.WITH_TMP:
            getattr(k, api)(y, x, tbuf.Get(aj.uint8), n)
        else:
            getattr(k, api)(y, x, n)
        qout.EnQue(y)
        qin.FreeTensor(x)
        y = qout.DeQue(dtype)
        k.DataCopy(y_gm, y, n)
        qout.FreeTensor(y)

    return kernel


@pytest.mark.slow
@pytest.mark.parametrize("api", APIS)
def test_kernel_shape_batch_equals_reference(api):
    d, n, B = aj.float32, 256, 4
    rng = np.random.default_rng(3)
    x = (rng.uniform(0.01, 50, (B, n)) if api.startswith("Log") else rng.normal(0, 4, (B, n))).astype(
        np.float32
    )
    run = aj.jit_kernel(_act_kernel(api, d, n), profile=DEFAULT, return_state=True)
    gm, _, state = run(x, np.zeros((B, n), np.float32))
    assert not np.asarray(state.fault).any()
    for b in range(B):  # the reference, lane by lane, on the same bits
        st = RS.reset_state(DEFAULT, ub_bytes=2 * n * 4)
        st.ub[: n * 4] = x[b].view(np.uint8)
        r = getattr(REF, api)(st, T(d, n * 4, n), T(d, 0, n), n, profile=DEFAULT)
        want = r.ub[n * 4 :].view(np.uint32)
        assert np.array_equal(gm[1][b].view(np.uint32), want), (api, b)


# ---------------------------------------------------------------------------------------------
# C++: AscendC::Sigmoid through ascend-jax run (the test kernel of test_cxx_front_end, its compute
# replaced by a Sigmoid with a TBuf scratch)

SIGMOID_EXTRA = (
    "KERNEL_EXTRA=AscendC::TBuf<AscendC::TPosition::VECCALC> tb; pipe.InitBuffer(tb, 1024); "
    "AscendC::LocalTensor<uint8_t> tmp = tb.Get<uint8_t>(); AscendC::Sigmoid<float, false>(zl, xl, tmp, N);"
)


def test_cxx_kernel_calls_sigmoid(tmp_path, monkeypatch, capsys):
    import pathlib

    from ascend_jax import cli

    kernel = pathlib.Path(__file__).parent / "data" / "cxx" / "scale.asc"
    monkeypatch.setenv("ASCEND_JAX_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")
    shutil.copy(kernel, tmp_path / "scale.asc")
    (tmp_path / "input").mkdir()
    x = np.random.default_rng(0).uniform(-5, 5, 256).astype(np.float32)
    x.tofile(tmp_path / "input" / "x.bin")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", str(tmp_path / "scale.asc"), "-D", SIGMOID_EXTRA]) == 0, capsys.readouterr().err
    z = np.fromfile(tmp_path / "output" / "z.bin", np.float32)
    st = RS.reset_state(DEFAULT, ub_bytes=2048)
    st.ub[:1024] = x.view(np.uint8)
    r = REF.Sigmoid(st, T(aj.float32, 1024, 256), T(aj.float32, 0, 256), 256, profile=DEFAULT)
    assert np.array_equal(z.view(np.uint32), r.ub[1024:].view(np.uint32))
    assert np.max(np.abs(z - 1 / (1 + np.exp(-x.astype(np.float64))))) < 1e-6
