"""float32 Exp, Ln, Rsqrt on the fast path (``_engine/transcend.py``) and ExpSub's fast path.

* the element functions against the reference's 80-digit results, bit for bit, on a random + edge
  sample (subnormals, huge, tiny, NaN/inf, +-0, the overflow / underflow / x ~ 1 boundaries), one
  program per API; and no sampled lane in the evaluation's ambiguity window;
* ``slow``: >= 10**6 random patterns per API against an exact oracle that is fast enough: the float64
  NumPy result (within 1 float64 ulp of the exact value) decides every lane whose float64 value is
  farther than 2**-40 (relative) from a float32 midpoint, the reference's 80-digit function the others;
* ExpSub: the page's result example (both implementations), and the fast path == the reference
  (UB, registers, fault word) on random cases, vmapped.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from test_elementwise_differential import fast_state, random_case, ref_state

import ascend_jax as aj
from ascend_jax import dtypes as D
from ascend_jax import reference as REF
from ascend_jax._engine import elem_math as EM
from ascend_jax._engine import transcend as TR
from ascend_jax._engine.binary import run_binary
from ascend_jax._engine.pipeline import run_strided
from ascend_jax.api import compare as CPA
from ascend_jax.api import compound as CMP
from ascend_jax.api.compare import CMPMODE
from ascend_jax.api.select import BinaryConfig
from ascend_jax.errors import NotModelledError, UsageError
from ascend_jax.fuzz.compare import message
from ascend_jax.params import UnaryRepeatParams
from ascend_jax.profile import load_profile
from ascend_jax.reference import compound as RC
from ascend_jax.reference import elem as E
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state
from ascend_jax.tensor import LocalTensor

A2 = load_profile("ascend910b")  # subnormals kept
P950 = load_profile("ascend950")  # subnormals flushed; ExpSub's only product
NOSAT = 1 << 48  # CTRL[48] = 1: non-saturating floats on A2
T = LocalTensor


def _ctrl(ctrl):
    return np.array([ctrl & 0xFFFFFFFF, ctrl >> 32], np.uint32)


def _f32(v):
    with np.errstate(over="ignore"):  # beyond float32: +-inf
        return np.asarray(v, np.float32).view(np.uint32)


_SPECIALS = np.array(
    [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 1, 0x80000001, 0x007FFFFF,
     0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x3F800001, 0x3F7FFFFF, 0x33000000,
     0x33000001, 0xB3000000, 0xB3000001, 0x32FFFFFF, 0x33800000, 0x337FFFFF],
    np.uint32,
)  # fmt: skip


def _sample(api, n, seed):
    """Random bit patterns plus values where the function is interesting (uint32)."""
    rng = np.random.default_rng(seed)
    parts = [_SPECIALS, rng.integers(0, 2**32, n // 4, dtype=np.uint64).astype(np.uint32)]
    if api == "Exp":
        parts += [
            _f32(rng.uniform(-104.5, 89.5, n // 4)),
            _f32(rng.uniform(-104.0, -85.0, n // 8)),  # subnormal results and the underflow edge
            _f32(rng.uniform(88.0, 88.8, n // 16)),  # the overflow edge
            _f32(rng.uniform(-1, 1, n // 8) * 2.0 ** rng.integers(-26, -5, n // 8)),  # x ~ 0
            _f32(np.log(2.0) * rng.integers(-150, 128, n // 16) / 64),  # table boundaries
        ]
    else:
        # positive patterns of every binade (subnormals included), and x ~ 1
        parts += [
            rng.integers(0, 0x7F800000, n // 2, dtype=np.uint64).astype(np.uint32),
            (0x3F800000 + rng.integers(-(2**14), 2**14, n // 8)).astype(np.uint32),
        ]
        if api == "Rsqrt":  # exact results: powers of four and squares
            k = rng.integers(-74, 63, n // 16)
            parts.append(_f32(4.0 ** k.astype(np.float64)))
            parts.append(_f32((rng.integers(1, 4096, n // 16).astype(np.float64) ** 2) * 4.0 ** k[: n // 16]))
    return np.concatenate(parts).astype(np.uint32)


_TR = {"Exp": TR.exp_f32_bits, "Ln": TR.ln_f32_bits}


_PROGRAMS = {}


def _fast(api, profile, ctrl, x):
    """One jitted program per (API, profile): the CTRL words are traced data."""
    if (api, profile.name) not in _PROGRAMS:
        f = EM.UNARY[api]

        def run(x, c):
            out = f(x, D.float32, profile, c)
            amb = _TR[api](x)[1] if api in _TR else jnp.zeros(x.shape, bool)
            return out, amb

        _PROGRAMS[(api, profile.name)] = jax.jit(run)
    n = len(x)
    xp = np.zeros(-(-n // 8192) * 8192, np.uint32)  # one shape: one compile
    xp[:n] = x
    out, amb = _PROGRAMS[(api, profile.name)](xp, _ctrl(ctrl))
    return np.asarray(out)[:n].astype(np.uint32), np.asarray(amb)[:n]


def _ref(api, profile, ctrl, x):
    f = E.lane_function(api, D.float32, profile, ctrl)
    return np.array([f(int(v)) for v in x], np.uint32)


def _bad(x, got, want):
    idx = np.nonzero(got != want)[0]
    return [(hex(int(x[i])), hex(int(got[i])), hex(int(want[i]))) for i in idx[:8]]


@pytest.mark.parametrize("api", ["Exp", "Ln", "Rsqrt"])
def test_f32_transcendental_against_reference(api):
    """~7,000 patterns per API (subnormals kept, non-saturating), bit for bit; no lane ambiguous."""
    x = _sample(api, 7000, seed=len(api) * 7)
    got, amb = _fast(api, A2, NOSAT, x)
    want = _ref(api, A2, NOSAT, x)
    assert not _bad(x, got, want), _bad(x, got, want)
    assert not amb.any(), x[amb][:8]


def test_f32_exp_saturation():
    """Exp on A2 with CTRL[48] saturating (inf -> MAX, NaN -> 0): the family's epilogue (the same
    program as the non-saturating run: CTRL is traced)."""
    x = _sample("Exp", 800, seed=3)
    got, _ = _fast("Exp", A2, 0, x)
    want = _ref("Exp", A2, 0, x)
    assert not _bad(x, got, want), _bad(x, got, want)


@pytest.mark.slow
@pytest.mark.parametrize("api", ["Exp", "Ln", "Rsqrt"])
def test_f32_transcendental_flush(api):
    """950: subnormal inputs read as zero, subnormal results flushed."""
    x = _sample(api, 1500, seed=3)
    for prof, ctrl in ((P950, 0),):
        got, _ = _fast(api, prof, ctrl, x)
        want = _ref(api, prof, ctrl, x)
        assert not _bad(x, got, want), (prof.name, _bad(x, got, want))


def test_f32_exp_subnormal_results_and_boundaries():
    """Directed values against NumPy-independent facts: e**0 = 1, the smallest subnormal result,
    the first overflowing input, e**(+-2**-25) = 1, e**-inf = +0."""
    x = _f32([0.0, -103.2789, 88.0, 89.0, 2.0**-25, -(2.0**-25), -np.inf, 1.0])
    got, _ = _fast("Exp", A2, NOSAT, x)
    assert got[0] == 0x3F800000
    assert got[1] == 1  # e**-103.2789 ~ 1.0003 * 2**-149: the smallest subnormal
    assert got[2] == _f32(np.exp(88.0))  # finite, near FLT_MAX
    assert got[3] == 0x7F800000
    assert got[4] == got[5] == 0x3F800000
    assert got[6] == 0
    assert got[7] == _f32(np.e)


def _oracle_f64(api, x):
    """(float32 bits, decided) from float64 NumPy: decided where the float64 value is farther than
    2**-40 relative from a float32 midpoint (float64 libm error is < 2**-51 relative)."""
    with np.errstate(all="ignore"):  # NaN patterns, overflow to inf: as IEEE says
        v = x.view(np.float32).astype(np.float64)
        r = {"Exp": np.exp, "Ln": np.log, "Rsqrt": lambda a: 1.0 / np.sqrt(a)}[api](v)
        want = r.astype(np.float32).view(np.uint32)
    finite = np.isfinite(r) & (r != 0)
    m, e = np.frexp(np.where(finite, r, 1.0))  # r = m * 2**e, 0.5 <= |m| < 1
    # float32 position of the last kept bit: 24 bits for normal results, 2**-149 below
    lsb = np.maximum(e - 24, -149)
    scaled = np.ldexp(np.abs(np.where(finite, r, 1.0)), -lsb)  # exact (power-of-two scaling)
    frac = scaled - np.floor(scaled)
    decided = ~finite | (np.abs(frac - 0.5) > 2.0**-40 * scaled)
    return want, decided


@pytest.mark.slow
@pytest.mark.parametrize("api", ["Exp", "Ln", "Rsqrt"])
def test_f32_transcendental_million(api):
    """>= 10**6 random patterns per API (subnormals kept): float64-decided lanes against NumPy, the
    rest (near a midpoint) against the reference's 80-digit function."""
    for b in range(5):
        x = _sample(api, 250_000, seed=100 + b)
        got, amb = _fast(api, A2, NOSAT, x)
        assert not amb.any(), x[amb][:8]
        want, decided = _oracle_f64(api, x)
        nan = np.isnan(x.view(np.float32)) | np.isnan(want.view(np.float32))
        want = np.where(nan, np.uint32(0x7FC00000), want)
        ok = decided & ~nan
        assert not _bad(x[ok], got[ok], want[ok]), _bad(x[ok], got[ok], want[ok])
        rest = np.nonzero(~ok)[0]
        want_rest = _ref(api, A2, NOSAT, x[rest])
        assert not _bad(x[rest], got[rest], want_rest), _bad(x[rest], got[rest], want_rest)


# ---------------------------------------------------------------------------------------------
# ExpSub


def _exp_sub_sample(dt, n, seed):
    rng = np.random.default_rng(seed)
    d = D.as_dtype(dt)
    a = rng.uniform(-60, 60, n)
    b = a - np.where(rng.random(n) < 0.5, rng.uniform(-110, 90, n), rng.normal(0, 3, n))
    a, b = a.astype(d.np_dtype), b.astype(d.np_dtype)
    x = a.view(np.uint16 if d.itemsize == 2 else np.uint32).astype(np.uint32)
    y = b.view(np.uint16 if d.itemsize == 2 else np.uint32).astype(np.uint32)
    w = 16 if d.itemsize == 2 else 32
    sp = rng.integers(0, 2**w, (2, n // 8), dtype=np.uint64).astype(np.uint32)
    return np.concatenate([x, sp[0]]), np.concatenate([y, sp[1]])


@pytest.mark.parametrize("dt", ["half", pytest.param("float32", marks=pytest.mark.slow)])
def test_exp_sub_element_against_reference(dt):
    """e**(src0 - src1): the float32 difference, then e**x rounded once to T (950: flush)."""
    d = D.as_dtype(dt)
    x, y = _exp_sub_sample(dt, 1500, seed=11)
    got = np.asarray(jax.jit(lambda a, b: EM.exp_sub(a, b, d, P950, _ctrl(0)))(x, y)).astype(np.uint32)
    f = RC.exp_sub_lane(d, P950, 0)
    want = np.array([f(int(a), int(b)) for a, b in zip(x, y, strict=True)], np.uint32)
    bad = np.nonzero(got != want)[0]
    assert not len(bad), [(hex(x[i]), hex(y[i]), hex(got[i]), hex(want[i])) for i in bad[:8]]


def test_exp_sub_page_example():
    """复合计算/ExpSub(ISASI).md: src0 [1 2 4 ... 510], src1 [1 1 2 ... 510] -> [1 2.71828 7.38905
    ... 1] (float32, count 512): both implementations, the same state."""
    d = D.float32
    src0 = np.zeros(512, np.float32)
    src1 = np.zeros(512, np.float32)
    src0[[0, 1, 2, 511]] = [1, 2, 4, 510]
    src1[[0, 1, 2, 511]] = [1, 1, 2, 510]
    ub = np.zeros(8192, np.uint8)
    ub[0:2048] = src0.view(np.uint8)
    ub[2048:4096] = src1.view(np.uint8)
    args = (T(d, 4096, 512), T(d, 0, 512), T(d, 2048, 512), 512)
    rs = RS.reset_state(P950, ub_bytes=8192)
    rs.ub = ub.copy()
    ref = REF.ExpSub(rs, *args, profile=P950)
    fast = aj.ExpSub(reset_state(P950, ub_bytes=8192).replace(ub=jnp.asarray(ub)), *args, profile=P950)
    assert message(fast, ref) is None
    out = np.asarray(fast.ub)[4096:6144].view(np.float32)
    for i, printed in ((0, 1.0), (1, 2.71828), (2, 7.38905), (511, 1.0)):
        assert abs(float(out[i]) - printed) <= 5e-6 * printed, (i, out[i])
    assert out[1] == np.float32(np.e) and out[2] == np.float32(np.exp(2.0))


def test_exp_sub_misuse():
    """The count prototype only; T != U not modelled; not on A2 -- both implementations."""
    f, h = D.float32, D.half
    for mod, st in ((aj, reset_state(P950)), (REF, RS.reset_state(P950))):
        with pytest.raises(UsageError, match="mask"):
            mod.ExpSub(
                st, T(f, 4096, 64), T(f, 0, 64), T(f, 2048, 64), 64, 1, UnaryRepeatParams(), profile=P950
            )
        with pytest.raises(NotModelledError):
            mod.ExpSub(st, T(f, 4096, 64), T(h, 0, 64), T(h, 2048, 64), 64, profile=P950)
    for mod, st in ((aj, reset_state(A2)), (REF, RS.reset_state(A2))):
        with pytest.raises(UsageError):
            mod.ExpSub(st, T(f, 4096, 64), T(f, 0, 64), T(f, 2048, 64), 64, profile=A2)


def _exp_sub_cases(dt, n, seed):
    rng = np.random.default_rng(seed)
    return [random_case(rng, P950, "binary", "ExpSub", dt, "count") for _ in range(n)]


def _call(mod, c, state):
    d = D.as_dtype(c.dtype)
    return mod.ExpSub(state, T(d, c.dst, 64), *(T(d, a, 64) for a in c.srcs), c.count, profile=P950)


def _check_cases(cases):
    plans = []
    for c in cases:
        d = D.as_dtype(c.dtype)
        s = fast_state(c, P950)
        st, dyn = CMP.plan_exp_sub(s, T(d, c.dst, 64), *(T(d, a, 64) for a in c.srcs), (c.count,), P950, 4)
        plans.append((s, st, dyn))
    key = dataclasses.replace(plans[0][1], R=4, ordered=True)
    assert all(dataclasses.replace(p[1], R=4, ordered=True) == key and p[1].R <= 4 for p in plans)
    sts = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[p[0] for p in plans])
    dyns = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[p[2] for p in plans])
    res = jax.jit(jax.vmap(lambda s, d: run_strided(key, s, d)))(sts, dyns)
    for j, c in enumerate(cases):
        f = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
        r = _call(REF, c, ref_state(c, P950))
        assert message(f, r) is None, (c, message(f, r))


@pytest.mark.parametrize("dt", ["float32"])
def test_exp_sub_differential(dt):
    """Random ExpSub calls (addresses, counts, overlaps, Counter mode) on 950, vmapped: one program."""
    _check_cases(_exp_sub_cases(dt, 40, seed=5))


@pytest.mark.slow
@pytest.mark.parametrize("dt", ["float32", "half"])
def test_exp_sub_differential_campaign(dt):
    for b in range(10):
        _check_cases(_exp_sub_cases(dt, 200, seed=50 + b))


# ---------------------------------------------------------------------------------------------
# Integer Div (950)


def _patched(p, api, **extra):
    apis = []
    for a in p.apis:
        if a.name == api:
            ex = dict(a.extra)
            ex.update(extra)
            a = dataclasses.replace(a, extra=tuple(sorted(ex.items())))
        apis.append(a)
    return dataclasses.replace(p, apis=tuple(apis))


def _int_div_operands(d, n, seed):
    rng = np.random.default_rng(seed)
    w = d.bits
    x = rng.integers(0, 2**w, n, dtype=np.uint64)
    y = rng.integers(0, 2**w, n, dtype=np.uint64)
    small = rng.random(n) < 0.4  # small divisors (and zero, +-1)
    y[small] = (rng.integers(-3, 4, int(small.sum())) % (2**w)).astype(np.uint64)
    edge = np.array([0, 1, 2**w - 1, 2 ** (w - 1), 2 ** (w - 1) - 1], np.uint64)
    xs = np.repeat(edge, len(edge))
    ys = np.tile(edge, len(edge))
    return np.concatenate([x, xs]).astype(np.uint32), np.concatenate([y, ys]).astype(np.uint32)


@pytest.mark.parametrize("dt", ["int16", "uint16", "int32", "uint32"])
def test_integer_div_against_reference(dt):
    """Truncation toward zero, MIN / -1 (wrap; saturate under CTRL[53]), x / 0 per each choice."""
    d = D.as_dtype(dt)
    x, y = _int_div_operands(d, 600, seed=d.bits)
    fn = jax.jit(lambda a, b, c, p: EM.div(a, b, d, p, c), static_argnums=3)
    for choice in ("all_ones", "zero", "saturate"):
        p = _patched(P950, "Div", int_div_by_zero=choice)
        for ctrl in (0, 1 << 53):
            got = np.asarray(fn(x, y, _ctrl(ctrl), p)).astype(np.uint32)
            f = E.lane_function("Div", d, p, ctrl)
            want = np.array([f(int(a), int(b)) for a, b in zip(x, y, strict=True)], np.uint32)
            bad = np.nonzero(got != want)[0]
            assert not len(bad), (
                choice,
                ctrl,
                [(hex(x[i]), hex(y[i]), hex(got[i]), hex(want[i])) for i in bad[:8]],
            )


def test_integer_div_facts():
    """Independent of both implementations: C++ truncation (-7 / 2 = -3), MIN / -1 wraps to MIN,
    7 / 0 = -1 under the default choice (950 int32)."""
    d = D.int32
    f = E.lane_function("Div", d, P950, 0)
    g = jax.jit(lambda a, b: EM.div(a, b, d, P950, _ctrl(0)))
    cases = [(-7, 2, -3), (7, -2, -3), (-7, -2, 3), (-(2**31), -1, -(2**31)), (7, 0, -1), (0, 5, 0)]
    x = np.array([a & 0xFFFFFFFF for a, _, _ in cases], np.uint32)
    y = np.array([b & 0xFFFFFFFF for _, b, _ in cases], np.uint32)
    got = np.asarray(g(x, y)).astype(np.uint32)
    for i, (a, b, q) in enumerate(cases):
        assert f(a & 0xFFFFFFFF, b & 0xFFFFFFFF) == q & 0xFFFFFFFF == int(got[i]), (a, b, q)


# ---------------------------------------------------------------------------------------------
# Compares（灵活标量位置） (ComparesFlexible, 950)

UBF = 8192
_POOL = np.array([-1.0, 0.0, -0.0, 1.0, 2.5, -2.5, np.inf, -np.inf, np.nan, 1e-40, 3.0, 7.0], np.float32)
VARIANTS = ("scalar_after", "scalar_first", "element_src1", "element_src0")


@dataclasses.dataclass
class FlexCase:
    variant: str
    form: str
    cmp: int
    dst: int
    vec: int
    elem: int
    scalar: float
    count: int
    mask: object
    repeat: int
    params: tuple
    counter: bool
    seed: int


def _flex_case(rng, variants=VARIANTS, forms=("count", "continuous", "bitwise")):
    variant = str(rng.choice(variants))
    form = str(rng.choice(forms))
    addr = lambda: int(rng.integers(0, UBF // 32)) * 32  # noqa: E731
    dst, vec = addr(), addr()
    elem = addr() + 4 * int(rng.integers(0, 8))
    if rng.random() < 0.1:
        elem = dst + 4 * int(rng.integers(0, 8))  # the element inside dst: PARTIAL_OVERLAP if active
    if rng.random() < 0.03:
        elem = UBF - 2  # out of UB
    mask = None
    counter = bool(rng.random() < 0.25)
    if form == "continuous":
        mask = int(rng.integers(0, 257 if counter else 65))
    elif form == "bitwise":
        mask = [int(rng.integers(0, 2**63)) * 2 + 1, 0] if not counter else [int(rng.integers(0, 257)), 0]
    params = tuple(int(rng.choice([1, 1, 2, 0])) for _ in range(2)) + tuple(
        int(rng.choice([8, 8, 4, 16, 0])) for _ in range(2)
    )
    return FlexCase(
        variant,
        form,
        int(rng.integers(0, 6)),
        dst,
        vec,
        elem,
        float(rng.choice(_POOL)),
        64 * int(rng.integers(0, 5)),
        mask,
        int(rng.integers(0, 5)),
        params,
        counter,
        int(rng.integers(0, 2**31)),
    )


def _flex_ub(c):
    rng = np.random.default_rng(c.seed)
    return rng.choice(_POOL, UBF // 4).astype(np.float32).view(np.uint8).copy()


def _flex_args(c):
    f = D.float32
    vec, el = T(f, c.vec, 64), T(f, c.elem, 1)
    a, b = {
        "scalar_after": (vec, c.scalar),
        "scalar_first": (c.scalar, vec),
        "element_src1": (vec, el),
        "element_src0": (el, vec),
    }[c.variant]
    cfg = BinaryConfig(0) if c.variant == "element_src0" else None
    tail = (c.count,) if c.form == "count" else (c.mask, c.repeat, UnaryRepeatParams(*c.params))
    return (T(D.uint8, c.dst, 32), a, b, CMPMODE(c.cmp), *tail), cfg


def _flex_states(c):
    vm = np.array([0xFFFFFFFF, 0xFFFFFFFF, 0, 0, 0, 0, 0, 0], np.uint32)
    if c.counter:
        vm = np.array([100, 0, 0, 0, 0, 0, 0, 0], np.uint32)
    fs = reset_state(P950, ub_bytes=UBF)
    fs = fs.replace(
        ub=jnp.asarray(_flex_ub(c)),
        vmask=jnp.asarray(vm),
        mask_mode=jnp.asarray(int(c.counter), fs.mask_mode.dtype),
    )
    rs = RS.reset_state(P950, ub_bytes=UBF)
    rs.ub, rs.vmask, rs.mask_mode = _flex_ub(c), vm.copy(), int(c.counter)
    return fs, rs


def _check_flex(cases):
    groups, plans = {}, []
    for i, c in enumerate(cases):
        fs, rs = _flex_states(c)
        args, cfg = _flex_args(c)
        st, dyn = CPA.plan_compare_to_ub(
            "ComparesFlexible", fs, *args[:4], args[4:], P950, True, 4, True, cfg
        )
        plans.append((fs, rs, st, dyn, args, cfg))
        groups.setdefault(dataclasses.replace(st, R=4), []).append(i)
    for key, idx in groups.items():
        sts = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[plans[i][0] for i in idx])
        dyns = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[plans[i][3] for i in idx])
        res = jax.jit(jax.vmap(lambda s, d, k=key: run_binary(k, s, d)))(sts, dyns)
        for j, i in enumerate(idx):
            f = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
            _, rs, _, _, args, cfg = plans[i]
            r = REF.ComparesFlexible(rs, *args, profile=P950, config=cfg)
            assert message(f, r) is None, (cases[i], message(f, r))
    return groups


def test_compares_flexible_differential():
    """The vendor's operand kinds (element of src1; a number first), count form, element-in-dst
    overlaps, out-of-UB elements: fast path == reference (UB, registers, fault word). The campaign
    (slow) covers every kind, the high-dim forms and Counter mode."""
    rng = np.random.default_rng(21)
    cases = [_flex_case(rng, ("element_src1", "scalar_first"), ("count",)) for _ in range(48)]
    groups = _check_flex(cases)
    assert len(groups) == 2  # (tensor, element) and (scalar, tensor): one program each


@pytest.mark.slow
def test_compares_flexible_campaign():
    rng = np.random.default_rng(2100)
    for _ in range(10):
        _check_flex([_flex_case(rng) for _ in range(400)])


def test_compares_flexible_facts_and_misuse():
    """The reference against NumPy: x < s and s < x on known values, the element scalar of src1 by
    default (the differential ties the fast path to it); two numbers and a bad
    config.scalarTensorIndex are UsageErrors in both implementations; not on A2."""
    f = D.float32
    vals = np.arange(64, dtype=np.float32) - 10  # -10 .. 53
    ub = np.zeros(UBF, np.uint8)
    ub[0:256] = vals.view(np.uint8)
    ub[1024:1028] = np.array([5.0], np.float32).view(np.uint8)
    want_after = np.packbits(vals < 5, bitorder="little")
    want_first = np.packbits(5 < vals, bitorder="little")
    for args, cfg, want in (
        ((T(f, 0, 64), 5.0), None, want_after),
        ((5.0, T(f, 0, 64)), None, want_first),
        ((T(f, 0, 64), T(f, 1024, 1)), None, want_after),
        ((T(f, 1024, 1), T(f, 0, 64)), BinaryConfig(0), want_first),
    ):
        rs = RS.reset_state(P950, ub_bytes=UBF)
        rs.ub = ub.copy()
        r = REF.ComparesFlexible(rs, T(D.uint8, 2048, 32), *args, CMPMODE.LT, 64, profile=P950, config=cfg)
        assert np.array_equal(r.ub[2048:2056], want), (args, r.ub[2048:2056])
    for mod, st in ((aj, reset_state(P950)), (REF, RS.reset_state(P950))):
        with pytest.raises(UsageError, match="src0/src1"):
            mod.ComparesFlexible(st, T(D.uint8, 2048, 32), 1.0, 2.0, CMPMODE.LT, 64, profile=P950)
        with pytest.raises(UsageError, match="scalarTensorIndex"):
            mod.ComparesFlexible(
                st, T(D.uint8, 2048, 32), T(f, 0, 64), T(f, 256, 64), CMPMODE.LT, 64, profile=P950, config=2
            )
    for mod, st in ((aj, reset_state(A2)), (REF, RS.reset_state(A2))):
        with pytest.raises(UsageError):
            mod.ComparesFlexible(st, T(D.uint8, 2048, 32), T(f, 0, 64), 1.0, CMPMODE.LT, 64, profile=A2)
