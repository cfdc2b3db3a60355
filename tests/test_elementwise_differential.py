"""Element-wise family fast path (``api/binary.py``, ``api/unary.py``, ``api/fill.py``) vs the literal
reference, bit for bit on the whole UB, the registers and the fault word.

Random cases draw every call form (count, isSetMask=false count, high-dim continuous / bitwise /
MASK_PLACEHOLDER register), Normal and Counter mode, addresses (aligned, misaligned, outside UB),
strides (incl. 0 and overlaps), repeat counts, counts, register contents and operand bit patterns
(incl. NaN, inf, subnormals, -0). Each case is planned with static Python parameters by the API
module's own planner (``plan``: the static checks of the public API) and all cases of a group run
in ONE vmapped program with every parameter traced (``run_strided`` with the family's static key:
one program per (family, dtype)). A sample also runs through the public API eagerly with Python
ints (static == traced), and through the public API under ``jax.vmap`` with traced addresses,
counts and masks.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import SCALE, nightly_params

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax._engine.pipeline import run_strided
from ascend_jax.api import binary as BIN
from ascend_jax.api import binary_scalar as FLEX
from ascend_jax.api import fill as FILL
from ascend_jax.api import unary as UN
from ascend_jax.dtypes import as_dtype
from ascend_jax.fuzz.compare import message
from ascend_jax.params import BinaryRepeatParams, UnaryRepeatParams
from ascend_jax.profile import available_profiles, load_profile
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state
from ascend_jax.tensor import MASK_PLACEHOLDER, LocalTensor

DEFAULT = load_profile("ascend910b")
UB = 8192
RB = 4  # repeat bucket of every random case
FORMS = ("count", "count_register", "continuous", "bitwise", "register")
FAMILIES = {"binary": (BIN, 2), "unary": (UN, 1), "fill": (FILL, 0), "flex": (FLEX, 1)}


@dataclasses.dataclass
class Case:
    api: str
    family: str
    dtype: str
    form: str
    counter: bool
    vmask: tuple  # uint32[8] register image
    ub_seed: int
    dst: int
    srcs: tuple
    blk: tuple  # dst, src...
    rep: tuple
    count: int
    mask: object
    repeat: int
    scalar: object


def _specials(d):
    if d.name == "half":
        return [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x0001, 0x83FF, 0x3C00, 0x7BFF]
    if d.name == "bfloat16":
        return [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x807F, 0x3F80, 0x7F7F]
    if d.name == "float32":
        return [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 1, 0x807FFFFF, 0x3F800000]
    return [0, 1, (1 << d.bits) - 1, 1 << (d.bits - 1), (1 << (d.bits - 1)) - 1]


def _ub(c):
    d = as_dtype(c.dtype)
    rng = np.random.default_rng(c.ub_seed)
    ub = rng.integers(0, 256, UB, dtype=np.uint8)
    n = UB // d.itemsize
    words = ub.view(d.bits_dtype).copy()
    pool = np.array(_specials(d), dtype=np.uint64).astype(d.bits_dtype)
    keep = rng.random(n) < 0.3
    words[keep] = pool[rng.integers(0, len(pool), n)][keep]
    if d.is_float and rng.random() < 0.5:  # small values: exact sums, non-trivial math
        vals = (rng.integers(-64, 64, n) / 4).astype(np.float32)
        if d.name == "bfloat16":
            small = (vals.view(np.uint32) >> 16).astype(np.uint16)
        else:
            small = vals.astype(d.np_dtype).view(d.bits_dtype)
        pick = rng.random(n) < 0.5
        words[pick] = small[pick]
    return words.view(np.uint8).copy()


def _scalar(rng, c_api, d):
    if c_api in FLEX.API_CODES:  # (value, scalar first?)
        first = bool(rng.random() < 0.5) and c_api in ("Subs", "Divs")
        if d.kind == "complex":
            v = complex(float(rng.integers(-8, 8)) / 4, float(rng.integers(-8, 8)) / 4)
        elif d.is_float:
            v = float(rng.choice([0.5, -1.25, 3.0, 0.0, -0.0, 1e-3, 100.0, float("inf")]))
        else:
            lo = -(1 << (d.bits - 1)) if d.is_signed_int else 0
            v = int(rng.integers(lo, lo + (1 << d.bits) - 1))
        return (v, first)
    if c_api == "LeakyRelu":
        return float(rng.choice([0.5, -0.25, 2.0, 0.0, -0.0, 1e-3, 100.0]))
    if c_api in ("Duplicate", "CreateVecIndex"):
        if d.is_float:
            return float(rng.integers(-1000, 1000)) / 8
        lo = -(1 << (d.bits - 1)) if d.is_signed_int else 0
        return int(rng.integers(lo, lo + (1 << d.bits) - 1))
    return None


def random_case(rng, p, family, api, dtype, form=None):
    d = as_dtype(dtype)
    L = p.lanes(d)
    nsrc = FAMILIES[family][1]
    counter = bool(rng.random() < 0.3)
    if api == "Neg":
        form = "count"
    form = form or str(rng.choice(FORMS))
    if form == "count_register" and p.level2_is_set_mask != "honoured":
        form = "count"
    vm = np.zeros(8, np.uint32)
    if counter:
        cnt = int(rng.integers(0, RB * L + 1))
        vm[0] = cnt
    else:
        nbits = min(L, p.vector_mask_bits)
        bits = rng.integers(0, 2, nbits) if rng.random() < 0.7 else np.ones(nbits, np.int64)
        for i, b in enumerate(bits):
            if b:
                vm[i // 32] |= np.uint32(1 << (i % 32))
    blk = tuple(int(rng.choice([0, 1, 1, 1, 2, 3])) if rng.random() < 0.5 else 1 for _ in range(nsrc + 1))
    if blk[0] == 0 and rng.random() < 0.7:
        blk = (1,) + blk[1:]
    rep = tuple(int(rng.integers(0, 17)) if rng.random() < 0.6 else 8 for _ in range(nsrc + 1))

    def addr():
        a = int(rng.integers(0, UB // 32)) * 32
        if rng.random() < 0.05:
            a += d.itemsize * int(rng.integers(1, 32 // d.itemsize))
        if rng.random() < 0.03:
            a = UB + 32 * int(rng.integers(0, 8))
        return a

    dst = addr()
    srcs = tuple(addr() if rng.random() < 0.8 else dst for _ in range(nsrc))
    count = int(rng.integers(0, RB * L + 1))
    repeat = int(rng.integers(0, RB + 1))
    mask = None
    if form == "continuous":
        mask = int(rng.integers(0, (RB * L if counter else L) + 1))
    elif form == "bitwise":
        n64 = max(1, min(L, p.vector_mask_bits) // 64)
        if counter:
            mask = [int(rng.integers(0, RB * L + 1))] + [0] * (n64 - 1)
        else:
            mask = [int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2)) for _ in range(n64)]
            if min(L, p.vector_mask_bits) < 64:
                mask = [mask[0] & ((1 << L) - 1)]
    return Case(
        api,
        family,
        dtype,
        form,
        counter,
        tuple(int(x) for x in vm),
        int(rng.integers(0, 2**31)),
        dst,
        srcs,
        blk,
        rep,
        count,
        mask,
        repeat,
        _scalar(rng, api, d),
    )


def _tensors(c):
    d = as_dtype(c.dtype)
    n = 64
    return LocalTensor(d, c.dst, n), [LocalTensor(d, a, n) for a in c.srcs]


def _args(c):
    """(positional args after the tensors/scalar, isSetMask) in C++ order."""
    if c.form in ("count", "count_register"):
        return (c.count,), c.form == "count"
    mask = MASK_PLACEHOLDER if c.form == "register" else c.mask
    if c.family == "binary":
        params = BinaryRepeatParams(c.blk[0], c.blk[1], c.blk[2], c.rep[0], c.rep[1], c.rep[2])
        return (mask, c.repeat, params), c.form != "register"
    if c.family in ("unary", "flex"):
        return (
            mask,
            c.repeat,
            UnaryRepeatParams(c.blk[0], c.blk[1], c.rep[0], c.rep[1]),
        ), c.form != "register"
    return (mask, c.repeat, c.blk[0], c.rep[0]), c.form != "register"


def call(mod, c, state, p, max_repeats=None):
    dst, srcs = _tensors(c)
    args, is_set = _args(c)
    fn = getattr(mod, c.api)
    kw = {"profile": p}
    if max_repeats is not None:
        kw["max_repeats"] = max_repeats
    if c.api == "Neg":
        return fn(state, dst, srcs[0], *args, **kw)
    kw["isSetMask"] = is_set
    if c.family == "fill":
        return fn(state, dst, c.scalar, *args, **kw)
    if c.api == "LeakyRelu":
        return fn(state, dst, srcs[0], c.scalar, *args, **kw)
    if c.family == "flex":
        v, first = c.scalar
        return fn(state, dst, *((v, srcs[0]) if first else (srcs[0], v)), *args, **kw)
    return fn(state, dst, *srcs, *args, **kw)


def plan(c, state, p):
    dst, srcs = _tensors(c)
    args, is_set = _args(c)
    if c.family == "binary":
        return BIN.plan(c.api, state, dst, srcs[0], srcs[1], args, p, is_set, RB)
    if c.family == "unary":
        return UN.plan(c.api, state, dst, srcs[0], c.scalar, args, p, is_set, RB)
    if c.family == "flex":
        v, first = c.scalar
        s0, s1 = (v, srcs[0]) if first else (srcs[0], v)
        return FLEX.plan(c.api, state, dst, s0, s1, args, p, is_set, None, RB)
    return FILL.plan(c.api, state, dst, c.scalar, args, p, is_set, RB)


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
    return call(REF, c, ref_state(c, p), p)


_FN = {}


def run_fast_batch(cases, p):
    """All cases in one vmapped program per static key (one per (family, dtype) here)."""
    states = [fast_state(c, p) for c in cases]
    plans = [plan(c, s, p) for c, s in zip(cases, states, strict=True)]
    out = [None] * len(cases)
    groups = {}
    for i, (st, _dyn) in enumerate(plans):
        assert st.R <= RB, (cases[i], st.R)
        key = dataclasses.replace(st, R=RB, ordered=True)
        groups.setdefault(key, []).append(i)
    for key, idx in groups.items():
        if key not in _FN:
            _FN[key] = jax.jit(jax.vmap(lambda s, d, k=key: run_strided(k, s, d)))
        sts = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[states[i] for i in idx])
        dyns = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[plans[i][1] for i in idx])
        res = _FN[key](sts, dyns)
        for j, i in enumerate(idx):
            out[i] = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
    return out


def _family_of(api):
    for fam, (mod, _) in FAMILIES.items():
        if api in mod.API_CODES:
            return fam
    raise KeyError(api)


def groups(p):
    """(family, dtype, [apis]) the product documents and the fast path models."""
    out = []
    for fam, (mod, _) in FAMILIES.items():
        by_dt = {}
        for api in mod.API_CODES:
            a = p.api(api)
            if not a.supported:
                continue
            for dt in a.all_dtypes():
                d = as_dtype(dt)
                if (
                    not mod.modelled(api, d, p)
                    if hasattr(mod, "modelled")
                    else d.itemsize == 8 or d.kind == "complex"
                ):
                    continue
                if fam == "fill" and (d.itemsize == 8 or d.kind == "complex") and api == "CreateVecIndex":
                    continue
                if dt in a.count_only_dtypes:
                    continue
                by_dt.setdefault(dt, []).append(api)
        for dt, apis in by_dt.items():
            out.append((fam, dt, tuple(apis)))
    return out


def _cases(p, fam, dt, apis, n, seed):
    rng = np.random.default_rng(seed)
    out = []
    per = max(1, n // (len(apis) * len(FORMS)))
    for api in apis:
        for form in FORMS:
            for _ in range(per):
                out.append(random_case(rng, p, fam, api, dt, form))
    return out


def _check(cases, p):
    fast = run_fast_batch(cases, p)
    for c, f in zip(cases, fast, strict=True):
        r = run_reference(c, p)
        msg = message(f, r)
        assert msg is None, f"{p.name}: {c}: {msg}"


def _gid(g):
    return f"{g[0]}-{g[1]}"


# the default run: one group per family and element kind (a compile costs ~10 s on the loaded
# 2-core machine); every group of every profile runs under -m slow
_CHEAP = {("binary", "float32"), ("unary", "half"), ("fill", "int32")}


@pytest.mark.parametrize("group", [g for g in groups(DEFAULT) if g[:2] in _CHEAP], ids=_gid)
def test_differential_default(group):
    """The default profile: ~100 cases per (family, dtype) group (every API, every form)."""
    fam, dt, apis = group
    _check(_cases(DEFAULT, fam, dt, apis, 100 * SCALE, seed=sum(map(ord, fam + dt))), DEFAULT)


@pytest.mark.slow
@pytest.mark.parametrize("group", [g for g in groups(DEFAULT) if g[:2] not in _CHEAP], ids=_gid)
def test_differential_default_other_dtypes(group):
    fam, dt, apis = group
    _check(_cases(DEFAULT, fam, dt, apis, 100 * SCALE, seed=sum(map(ord, fam + dt))), DEFAULT)


@pytest.mark.slow
@pytest.mark.parametrize("group", groups(DEFAULT), ids=_gid)
def test_differential_default_campaign(group):
    """>= 2,000 cases per (API, dtype, form) on the default profile."""
    fam, dt, apis = group
    for b in range(10):
        _check(_cases(DEFAULT, fam, dt, apis, 200 * len(apis) * len(FORMS), seed=1000 + b), DEFAULT)


def _other_groups():
    out = []
    for name in available_profiles():
        if name == DEFAULT.name:
            continue
        p = load_profile(name)
        for g in groups(p):
            out.append(pytest.param(name, g, id=f"{name}-{_gid(g)}"))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("profile_name,group", nightly_params(_other_groups, 2))
def test_differential_other_profiles(profile_name, group):
    """Every other profile, every (API, dtype): a small count (slow: one compile per (profile,
    family, dtype), ~130 programs)."""
    p = load_profile(profile_name)
    fam, dt, apis = group
    _check(_cases(p, fam, dt, apis, 5 * len(apis) * len(FORMS), seed=7), p)


@pytest.mark.parametrize(
    "fam", [f if f == "binary" else pytest.param(f, marks=pytest.mark.slow) for f in sorted(FAMILIES)]
)
def test_static_equals_traced(fam):
    """A sample through the public API eagerly with Python ints equals the traced batch."""
    p = load_profile("ascend950") if fam == "flex" else DEFAULT  # the flexible APIs are 950-only
    g = [x for x in groups(p) if x[0] == fam and (x[:2] in _CHEAP or x[:2] == ("flex", "int16"))][0]
    cases = _cases(p, fam, g[1], g[2][:1], 2 * len(FORMS), seed=11)
    fast = run_fast_batch(cases, p)
    for c, f in zip(cases, fast, strict=True):
        s = call(aj, c, fast_state(c, p), p, max_repeats=RB)
        assert message(s, f) is None, c


def test_public_api_vmapped_with_traced_parameters():
    """The public API itself under ``jax.vmap``: traced addresses, counts, bitwise mask words,
    repeat counts and strides (``max_repeats`` sets the bucket) == the reference, case by case."""
    p, d = DEFAULT, as_dtype("float32")
    rng = np.random.default_rng(5)
    apis = ("Add", "Div", "Max")
    cases = []
    for form in ("count", "bitwise"):
        for i in range(24):
            cases.append(random_case(rng, p, "binary", apis[i % 3], "float32", form))
    for c in cases:
        c.counter = False  # Normal mode: the mask words are plain bit images
        c.vmask = tuple([0xFFFFFFFF] * 2 + [0] * 6)

    def run(form):
        cs = [c for c in cases if c.form == form]
        states = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[fast_state(c, p) for c in cs])
        op = jnp.asarray([apis.index(c.api) for c in cs])
        addrs = jnp.asarray([[c.dst, *c.srcs] for c in cs], jnp.int32)
        count = jnp.asarray([c.count for c in cs], jnp.int32)
        words = jnp.asarray(
            [[c.mask[0] & 0xFFFFFFFF, c.mask[0] >> 32] if c.mask else [0, 0] for c in cs], jnp.uint32
        )
        rep = jnp.asarray([c.repeat for c in cs], jnp.int32)
        strides = jnp.asarray([list(c.blk) + list(c.rep) for c in cs], jnp.int32)

        def one(st, op, a, n, w, r, s):
            dst, s0, s1 = (LocalTensor(d, a[i], 64) for i in range(3))
            outs = []
            for api in apis:
                fn = getattr(aj, api)
                if form == "count":
                    outs.append(fn(st, dst, s0, s1, n, profile=p, max_repeats=RB))
                else:
                    params = BinaryRepeatParams(*[s[i] for i in range(6)])
                    outs.append(fn(st, dst, s0, s1, w, r, params, profile=p, max_repeats=RB))
            return jax.tree_util.tree_map(lambda *x: jnp.stack(x)[op], *outs)

        res = jax.jit(jax.vmap(one))(states, op, addrs, count, words, rep, strides)
        for j, c in enumerate(cs):
            f = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
            assert message(f, run_reference(c, p)) is None, c

    run("count")
    run("bitwise")


@pytest.mark.slow
def test_differential_flexible_scalar_950():
    """The flexible-scalar family (950 only): the int16 group, ~100 cases (its other groups:
    test_differential_other_profiles)."""
    p = load_profile("ascend950")
    g = [x for x in groups(p) if x[:2] == ("flex", "int16")][0]
    _check(_cases(p, "flex", "int16", g[2], 100 * SCALE, seed=3), p)
