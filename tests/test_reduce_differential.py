"""Reduction family fast path (``api/reduce.py`` + ``_engine/reduce.py``) vs the literal reference
(``reference/reduce.py``), bit for bit on the whole UB, the registers and the fault word.

Random cases draw the call forms (count, isSetMask=false count for ReduceSum, high-dim continuous /
bitwise / MASK_PLACEHOLDER register), Normal and Counter mode, addresses (aligned, misaligned,
outside UB), strides (incl. 0 and overlaps), repeat counts, counts and operand bit patterns (NaN,
inf, subnormals, -0, small exact values). All cases of a group run in ONE vmapped program with every
parameter traced; a sample also runs eagerly through the public API with Python ints (static ==
traced). Default run: a few groups on ascend910b (few programs); every group and the other profiles
under ``@pytest.mark.slow``.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax._engine.reduce import run_per_repeat, run_whole
from ascend_jax.api import reduce as RD
from ascend_jax.dtypes import as_dtype
from ascend_jax.profile import available_profiles, load_profile
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state
from ascend_jax.tensor import MASK_PLACEHOLDER, LocalTensor

DEFAULT = load_profile("ascend910b")
UB = 8192
RB = 4  # repeat bucket of every random case
PER_REPEAT = ("ReduceRepeat", "ReduceDataBlock", "ReducePairElem")
ORDERS = ("ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE", "ORDER_ONLY_VALUE", "ORDER_ONLY_INDEX")


@dataclasses.dataclass
class Case:
    api: str
    dtype: str
    rtype: str  # reduceType (per-repeat APIs)
    order: str  # ReduceRepeat order / "" ; ReduceMax/Min: "index" when calIndex
    form: str
    counter: bool
    vmask: tuple
    ub_seed: int
    dst: int
    src: int
    tmp: int
    strides: tuple  # dstRepStride, srcBlkStride, srcRepStride
    count: int
    mask: object
    repeat: int


def _specials(d):
    if d.name == "half":
        return [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x0001, 0x83FF, 0x3C00, 0x7BFF]
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
    keep = rng.random(n) < 0.1
    words[keep] = pool[rng.integers(0, len(pool), n)][keep]
    if d.is_float and rng.random() < 0.7:  # small values: finite sums, ties in max/min
        vals = (rng.integers(-64, 64, n) / 4).astype(np.float32)
        small = vals.astype(d.np_dtype).view(d.bits_dtype)
        pick = rng.random(n) < 0.85
        words[pick] = small[pick]
    return words.view(np.uint8).copy()


def random_case(rng, p, api, dtype, rtype="SUM", order=""):
    d = as_dtype(dtype)
    L = p.lanes(d)
    counter = bool(rng.random() < 0.25)
    if api in PER_REPEAT:
        forms = ("continuous", "bitwise", "register")
    elif api == "ReduceSum":
        forms = ("count", "count_register", "continuous", "bitwise", "register")
    else:
        forms = ("count", "continuous", "bitwise")
    form = str(rng.choice(forms))
    if form == "count_register" and p.level2_is_set_mask != "honoured":
        form = "count"
    vm = np.zeros(8, np.uint32)
    if counter:
        vm[0] = int(rng.integers(0, RB * L + 1))
    else:
        nbits = min(L, p.vector_mask_bits)
        bits = rng.integers(0, 2, nbits) if rng.random() < 0.6 else np.ones(nbits, np.int64)
        if rng.random() < 0.3:  # whole DataBlocks / pairs off
            bits = np.repeat(rng.integers(0, 2, nbits // 8), 8)
        for i, b in enumerate(bits):
            if b:
                vm[i // 32] |= np.uint32(1 << (i % 32))

    def addr():
        a = int(rng.integers(0, UB // 32)) * 32
        if rng.random() < 0.05:
            a += d.itemsize * int(rng.integers(1, 32 // d.itemsize))
        if rng.random() < 0.03:
            a = UB + 32 * int(rng.integers(0, 8))
        return a

    src = int(rng.integers(0, UB // 64)) * 32  # mostly inside the lower half
    dst = addr() if rng.random() < 0.9 else src
    tmp = addr()
    strides = (
        int(rng.choice([0, 1, 1, 2, 5])),
        int(rng.choice([0, 1, 1, 1, 2])),
        int(rng.choice([0, 4, 8, 8, 8, 9, 16])),
    )
    count = int(rng.integers(0, RB * L + 1))
    repeat = int(rng.integers(0, RB + 1))
    mask = None
    if form == "continuous":
        mask = int(rng.integers(0, (RB * L if counter else L) + 1))
        if not counter and rng.random() < 0.5:
            mask = L
    elif form == "bitwise":
        n64 = max(1, min(L, p.vector_mask_bits) // 64)
        if counter:
            mask = [int(rng.integers(0, RB * L + 1))] + [0] * (n64 - 1)
        else:
            mask = [int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2)) for _ in range(n64)]
            if rng.random() < 0.4:
                mask = [2**64 - 1] * n64
            if L < 64:
                mask = [mask[0] & ((1 << L) - 1)]
    return Case(
        api, dtype, rtype, order, form, counter, tuple(int(x) for x in vm), int(rng.integers(0, 2**31)),
        dst, src, tmp, strides, count, mask, repeat,
    )  # fmt: skip


def _tensors(c):
    d = as_dtype(c.dtype)
    return LocalTensor(d, c.dst, 64), LocalTensor(d, c.src, 64), LocalTensor(d, c.tmp, 64)


def call(mod, c, state, p, max_repeats=None):
    """The public call (reference or fast path) of case ``c``."""
    dst, src, tmp = _tensors(c)
    kw = {"profile": p}
    if max_repeats is not None:
        kw["max_repeats"] = max_repeats
    mask = MASK_PLACEHOLDER if c.form == "register" else c.mask
    is_set = c.form not in ("register", "count_register")
    if c.api in PER_REPEAT:
        extra = (c.order,) if c.api == "ReduceRepeat" else ()
        return getattr(mod, c.api)(
            state, dst, src, mask, c.repeat, *c.strides, *extra, reduceType=c.rtype, isSetMask=is_set, **kw
        )
    args = (c.count,) if c.form.startswith("count") else (mask, c.repeat, c.strides[2])
    if c.api == "ReduceSum":
        return mod.ReduceSum(state, dst, src, tmp, *args, isSetMask=is_set, **kw)
    if not is_set:
        args = (MASK_PLACEHOLDER, c.repeat, c.strides[2])
    return getattr(mod, c.api)(state, dst, src, tmp, *args, c.order == "index", **kw)


def plan(c, state, p):
    dst, src, tmp = _tensors(c)
    mask = MASK_PLACEHOLDER if c.form == "register" else c.mask
    is_set = c.form not in ("register", "count_register")
    if c.api in PER_REPEAT:
        args = (mask, c.repeat, *c.strides)
        return RD.plan_per_repeat(c.api, state, dst, src, args, c.rtype, c.order or None, p, is_set, RB)
    args = (c.count,) if c.form.startswith("count") else (mask, c.repeat, c.strides[2])
    return RD.plan_whole(c.api, state, dst, src, tmp, args, p, is_set, c.order == "index", RB)


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


_FN = {}


def run_fast_batch(cases, p):
    states = [fast_state(c, p) for c in cases]
    plans = [plan(c, s, p) for c, s in zip(cases, states, strict=True)]
    out = [None] * len(cases)
    groups = {}
    for i, (st, _dyn) in enumerate(plans):
        assert st.R <= RB, (cases[i], st.R)
        groups.setdefault(dataclasses.replace(st, R=RB), []).append(i)
    for key, idx in groups.items():
        run = run_per_repeat if key.api in PER_REPEAT else run_whole
        if key not in _FN:
            _FN[key] = jax.jit(jax.vmap(lambda s, d, k=key, f=run: f(k, s, d)))
        st = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[states[i] for i in idx])
        dy = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[plans[i][1] for i in idx])
        res = _FN[key](st, dy)
        for j, i in enumerate(idx):
            out[i] = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
    return out


def _diff(c, ref, fast):
    bad = []
    if not np.array_equal(np.asarray(ref.ub), np.asarray(fast.ub)):
        where = np.nonzero(np.asarray(ref.ub) != np.asarray(fast.ub))[0]
        bad.append(f"ub bytes {where[:8].tolist()}")
    if not np.array_equal(np.asarray(ref.vmask, np.uint32), np.asarray(fast.vmask)):
        bad.append("vmask")
    if int(ref.mask_mode) != int(fast.mask_mode):
        bad.append("mask_mode")
    if int(ref.fault) != int(fast.fault):
        bad.append(f"fault ref={int(ref.fault):#x} fast={int(fast.fault):#x}")
    return f"{c}: " + ", ".join(bad) if bad else ""


def check(cases, p):
    fast = run_fast_batch(cases, p)
    msgs = []
    for c, f in zip(cases, fast, strict=True):
        r = call(REF, c, ref_state(c, p), p)
        m = _diff(c, r, f)
        if m:
            msgs.append(m)
    assert not msgs, f"{len(msgs)} / {len(cases)} mismatches; first: " + "\n".join(msgs[:3])


def groups(p):
    """(api, dtype, reduceType, order) of every static program the product has."""
    out = []
    for api in PER_REPEAT + ("ReduceSum", "ReduceMax", "ReduceMin"):
        a = p.api(api)
        if not a.supported:
            continue
        for dt in a.dtypes:
            d = as_dtype(dt)
            if api == "ReducePairElem":
                out.append((api, dt, "SUM", ""))
            elif api in PER_REPEAT:
                types = ("SUM", "MAX", "MIN") if d.is_float else ("MAX", "MIN")
                for t in types:
                    orders = a.orders if (api == "ReduceRepeat" and t != "SUM") else ("",)
                    out.extend((api, dt, t, o) for o in orders)
            elif api == "ReduceSum":
                if d.is_float:
                    out.append((api, dt, "SUM", ""))
            else:
                out.extend((api, dt, "", o) for o in ("", "index"))
    return out


def _cases(p, group, n, seed):
    rng = np.random.default_rng(seed)
    api, dt, t, o = group
    return [random_case(rng, p, api, dt, t, o) for _ in range(n)]


DEFAULT_GROUPS = [  # few programs in the default run (every group: the slow campaign)
    ("ReduceRepeat", "half", "MAX", "ORDER_VALUE_INDEX"),
    ("ReduceDataBlock", "float32", "SUM", ""),
    ("ReducePairElem", "half", "SUM", ""),
    ("ReduceSum", "half", "SUM", ""),
    ("ReduceMin", "half", "", "index"),
]


@pytest.mark.parametrize("group", DEFAULT_GROUPS, ids=lambda g: "-".join(x for x in g if x))
def test_differential_default(group):
    check(_cases(DEFAULT, group, 100, DEFAULT_GROUPS.index(group)), DEFAULT)


def test_static_equals_traced_sample():
    """Eager public calls with Python ints give the same state as the vmapped traced program."""
    p = DEFAULT
    rng = np.random.default_rng(7)
    cases = [random_case(rng, p, "ReduceRepeat", "half", "MAX", "ORDER_VALUE_INDEX") for _ in range(3)]
    cases += [random_case(rng, p, "ReduceMin", "half", "", "index") for _ in range(3)]
    fast = run_fast_batch(cases, p)
    for c, f in zip(cases, fast, strict=True):
        eager = call(aj, c, fast_state(c, p), p)
        assert not _diff(c, eager, f), _diff(c, eager, f)


def test_groups_cover_every_profile_api():
    """Every supported reduction API of every profile has at least one differential group."""
    for name in available_profiles():
        p = load_profile(name)
        apis = {g[0] for g in groups(p)}
        for api in PER_REPEAT + ("ReduceSum", "ReduceMax", "ReduceMin"):
            assert (api in apis) == p.api(api).supported, (name, api)


@pytest.mark.slow
@pytest.mark.parametrize("name", available_profiles())
def test_differential_campaign(name):
    p = load_profile(name)
    for i, g in enumerate(groups(p)):
        check(_cases(p, g, 2000 if name == "ascend910b" else 300, 1000 + i), p)


def test_public_api_under_vmap_with_traced_counts_and_addresses():
    """``jax.vmap`` over the public ReduceMax with traced count and src address (the traced
    sharedTmpBuffer formula, one program) == the reference per case."""
    p = DEFAULT
    h = as_dtype("half")
    rng = np.random.default_rng(3)
    ub = (rng.integers(-64, 64, UB // 2) / 4).astype(np.float16).view(np.uint8)
    dst, tmp = LocalTensor(h, 6144, 16), LocalTensor(h, 7168, 256)

    def fast(count, src):
        st = reset_state(p, ub_bytes=UB).replace(ub=jnp.asarray(ub))
        out = aj.ReduceMax(
            st, dst, LocalTensor(h, src, 1024), tmp, count, True, profile=p, max_repeats=RB * 2
        )
        return out.ub, out.fault

    counts, srcs = [1, 100, 300, 1000, 0], [0, 32, 64, 0, 0]
    u, f = jax.jit(jax.vmap(fast))(jnp.asarray(counts), jnp.asarray(srcs))
    for i, (c, s) in enumerate(zip(counts, srcs, strict=True)):
        st = RS.reset_state(p, ub_bytes=UB)
        st.ub = ub.copy()
        r = REF.ReduceMax(st, dst, LocalTensor(h, s, 1024), tmp, c, True, profile=p)
        assert np.array_equal(r.ub, np.asarray(u[i])) and r.fault == int(f[i]), c
