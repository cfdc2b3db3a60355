"""MulAddDst and Axpy with half sources and a float32 dst (the tables' "half | half | float" row,
PAR 64; issue 33 item 3): fast path == reference, bit for bit (UB, registers, fault word), on random
cases of every call form (count, its isSetMask=false register variant, continuous, bitwise,
MASK_PLACEHOLDER; Normal and Counter mode; random strides, overlapping and misaligned operands),
vmapped: one program per (API, profile). The pages' result examples: tests/test_compound.py.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import SCALE

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax._engine.pipeline import run_strided
from ascend_jax.api import compound as CMP
from ascend_jax.fuzz.compare import message
from ascend_jax.params import BinaryRepeatParams, UnaryRepeatParams
from ascend_jax.profile import load_profile
from ascend_jax.reference import state as RS
from ascend_jax.tensor import MASK_PLACEHOLDER, LocalTensor

UB = 8192
RB = 4
H, F = aj.dtypes.half, aj.dtypes.float32
FORMS = ("count", "count_register", "continuous", "bitwise", "register")


@dataclasses.dataclass
class Case:
    api: str
    form: str
    counter: bool
    vmask: tuple
    dst: int
    srcs: tuple
    count: int
    mask: object
    repeat: int
    blk: tuple
    rep: tuple
    scalar: float
    ub: bytes


def _random_case(rng, p, api):
    nsrc = 2 if api == "MulAddDst" else 1
    form = str(rng.choice(FORMS))
    if form == "count_register" and p.level2_is_set_mask != "honoured":
        form = "count"
    counter = bool(rng.random() < 0.3)
    vm = np.zeros(8, np.uint32)
    if counter:
        vm[0] = int(rng.integers(0, RB * 64 + 1))
    else:
        bits = rng.integers(0, 2, 64) if rng.random() < 0.7 else np.ones(64, np.int64)
        for i, b in enumerate(bits):
            if b:
                vm[i // 32] |= np.uint32(1 << (i % 32))
    blk = tuple(int(rng.choice([0, 1, 1, 1, 2])) if rng.random() < 0.4 else 1 for _ in range(nsrc + 1))
    if blk[0] == 0 and rng.random() < 0.8:
        blk = (1,) + blk[1:]
    rep = (int(rng.choice([8, 8, 8, 0, 4, 9, 16])),) + tuple(
        int(rng.choice([4, 4, 4, 0, 8, 5])) for _ in range(nsrc)
    )
    # operands apart (mostly), or meeting (overlap faults), sometimes misaligned
    if rng.random() < 0.8:
        slots = rng.permutation(6)[: nsrc + 1] * 1024
    else:
        slots = rng.integers(0, 5 * 32, nsrc + 1) * 32
    addrs = [int(a) for a in slots]
    if rng.random() < 0.05:
        addrs[int(rng.integers(0, nsrc + 1))] += 2
    ub = rng.integers(0, 256, UB, dtype=np.uint8)
    if rng.random() < 0.7:  # finite operands (random bytes elsewhere: NaN, inf, subnormals)
        for a in addrs[1:]:
            ub[a : a + 1024] = rng.normal(0, 30, 512).astype(np.float16).view(np.uint8)
        ub[addrs[0] : addrs[0] + 1024] = rng.normal(0, 300, 256).astype(np.float32).view(np.uint8)
    if form == "continuous":  # in Counter mode the mask is the count (within the bucket)
        mask = int(rng.integers(0 if counter else 1, (RB * 64 if counter else 64) + 1))
    elif counter:
        mask = [int(rng.integers(0, RB * 64 + 1)), 0]
    else:  # a non-zero mask (some products reject a zero one in Normal mode)
        word = (int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2))) >> int(rng.integers(0, 64))
        mask = [word | (1 << int(rng.integers(0, 64))), 0]
    return Case(
        api=api,
        form=form,
        counter=counter,
        vmask=tuple(int(v) for v in vm),
        dst=addrs[0],
        srcs=tuple(addrs[1:]),
        count=int(rng.integers(0, RB * 64 + 1)),
        mask=mask,
        repeat=int(rng.integers(0, RB + 1)),
        blk=blk,
        rep=rep,
        scalar=float(rng.choice([0.5, -1.25, 3.0, 0.0, -0.0, 1e-3, 100.0, 60000.0, float("inf")])),
        ub=ub.tobytes(),
    )


def _args(c):
    if c.form in ("count", "count_register"):
        return (c.count,), c.form == "count"
    mask = MASK_PLACEHOLDER if c.form == "register" else c.mask
    if c.api == "Axpy":
        params = UnaryRepeatParams(c.blk[0], c.blk[1], c.rep[0], c.rep[1])
    else:
        params = BinaryRepeatParams(c.blk[0], c.blk[1], c.blk[2], c.rep[0], c.rep[1], c.rep[2])
    return (mask, c.repeat, params), c.form != "register"


def _tensors(c):
    return LocalTensor(F, c.dst, 256), [LocalTensor(H, a, 512) for a in c.srcs]


def _call(mod, c, state, p):
    dst, srcs = _tensors(c)
    args, is_set = _args(c)
    if c.api == "Axpy":
        return mod.Axpy(state, dst, srcs[0], c.scalar, *args, profile=p, isSetMask=is_set)
    return mod.MulAddDst(state, dst, *srcs, *args, profile=p, isSetMask=is_set)


def _fast_state(c, p):
    st = aj.reset_state(p, ub_bytes=UB)
    return st.replace(
        ub=jnp.asarray(np.frombuffer(c.ub, np.uint8)),
        vmask=jnp.asarray(np.array(c.vmask, np.uint32)),
        mask_mode=jnp.asarray(1 if c.counter else 0, st.mask_mode.dtype),
    )


def _ref_state(c, p):
    st = RS.reset_state(p, ub_bytes=UB)
    st.ub = np.frombuffer(c.ub, np.uint8).copy()
    st.vmask = np.array(c.vmask, np.uint32)
    st.mask_mode = 1 if c.counter else 0
    return st


def _plan(c, state, p):
    dst, srcs = _tensors(c)
    args, is_set = _args(c)
    if c.api == "Axpy":
        return CMP.plan_axpy(state, dst, srcs[0], c.scalar, args, p, is_set, RB)
    return CMP.plan(c.api, state, dst, srcs[0], srcs[1], args, p, is_set, RB)


_FN = {}


def _run_batch(cases, p):
    states = [_fast_state(c, p) for c in cases]
    plans = [_plan(c, s, p) for c, s in zip(cases, states, strict=True)]
    groups = {}
    for i, (st, _) in enumerate(plans):
        assert st.src_dtype == H and st.R <= RB, (cases[i], st)
        groups.setdefault(dataclasses.replace(st, R=RB, ordered=True), []).append(i)
    out = [None] * len(cases)
    for key, idx in groups.items():
        if key not in _FN:
            _FN[key] = jax.jit(jax.vmap(lambda s, d, k=key: run_strided(k, s, d)))
        sts = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[states[i] for i in idx])
        dyns = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[plans[i][1] for i in idx])
        res = _FN[key](sts, dyns)
        for j, i in enumerate(idx):
            out[i] = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
    return out


def _differential(api, profile, n, seed):
    p = load_profile(profile)
    rng = np.random.default_rng(seed)
    cases = [_random_case(rng, p, api) for _ in range(n)]
    fast = _run_batch(cases, p)
    faults = 0
    for c, f in zip(cases, fast, strict=True):
        ref = _call(REF, c, _ref_state(c, p), p)
        msg = message(f, ref)
        assert msg is None, (c, msg)
        faults += int(ref.fault) != 0
    assert 0 < faults < n  # both outcomes occur


@pytest.mark.parametrize("api", ["MulAddDst", "Axpy"])
def test_mixed_differential(api):
    _differential(api, "ascend910b", 60, 1)


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["ascend910b", "ascend950", "ascend310p", "kirin9030"])
@pytest.mark.parametrize("api", ["MulAddDst", "Axpy"])
def test_mixed_differential_campaign(api, profile):
    _differential(api, profile, 2000, 7)


def test_mixed_eager_equals_batched_and_static_call():
    """The eager public call (static addresses) and the batched plan give the same bits."""
    p = load_profile("ascend910b")
    rng = np.random.default_rng(3)
    for api in ("MulAddDst", "Axpy"):
        # every case is an eager call of its own static addresses (a compile each): 2 cases an API
        cases = [_random_case(rng, p, api) for _ in range(2 if SCALE == 1 else 8)]
        batched = _run_batch(cases, p)
        for c, b in zip(cases, batched, strict=True):
            assert message(_call(aj, c, _fast_state(c, p), p), b) is None, c


def test_mixed_overlap_is_a_fault():
    """SPEC: "源操作数的数据类型为half、目的操作数的数据类型为float的情况下，不支持地址重叠": a source
    meeting dst is PARTIAL_OVERLAP (with REPEAT_DEPENDENCY where a later repeat's source meets an
    earlier repeat's dst) in both implementations, even at dst's own address."""
    p = load_profile("ascend910b")
    st, rs = aj.reset_state(p, ub_bytes=UB), RS.reset_state(p, ub_bytes=UB)
    d = LocalTensor(F, 0, 256)
    got = []
    for mod, s in ((aj, st), (REF, rs)):
        a = mod.MulAddDst(s, d, LocalTensor(H, 0, 512), LocalTensor(H, 2048, 512), 256, profile=p)
        b = mod.Axpy(s, d, LocalTensor(H, 512, 512), 2.0, 256, profile=p)
        got.append((int(a.fault), int(b.fault)))
        for out in (a, b):
            assert int(out.fault) & aj.Fault.PARTIAL_OVERLAP
            assert not np.asarray(out.ub).any()  # a faulting call writes nothing
    assert got[0] == got[1]
