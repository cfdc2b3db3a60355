"""aj.plan / aj.run (the planned-call interface, docs/PLAN_RUN.md): bit-for-bit equal to the direct
call, vmappable, one key per group, errors as the direct call's."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj


def _state(seed=0, profile=None):
    st = aj.reset_state(profile)
    ub = np.random.default_rng(seed).integers(0, 256, st.ub.shape[0], dtype=np.uint8)
    return st.replace(ub=st.ub.at[:].set(ub))


def _same(a, b):
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True):
        assert np.array_equal(np.asarray(x), np.asarray(y))


def _calls():
    dst = aj.LocalTensor(aj.float32, 0, 128)
    src = aj.LocalTensor(aj.float32, 4096, 128)
    return [
        ("Adds", (dst, src, 1.5, 100), {}),
        ("Muls", (dst, src, -3.0, 64, 2, aj.UnaryRepeatParams()), {}),
        ("Maxs", (dst, src, 0.25, [2**64 - 5, 0], 1, aj.UnaryRepeatParams(srcBlkStride=2)), {}),
        ("Mins", (dst, src[1], 7.0, 64), {}),  # misaligned: a fault, the same bits
    ]


@pytest.mark.parametrize("i", range(4))
def test_run_of_plan_equals_direct_call(i):
    api, args, kw = _calls()[i]
    st = _state(i)
    key, values = aj.plan(api, st, *args, profile="ascend910b", **kw)
    _same(aj.run(key, st, values), getattr(aj, api)(st, *args, profile="ascend910b", **kw))


def test_two_apis_of_a_group_share_a_key_and_a_vmap_sweep_equals_direct_calls():
    st = _state(7)
    dst = aj.LocalTensor(aj.float32, 0, 128)
    cases = [("Adds", s, a) for s, a in ((1.0, 4096), (2.5, 8192))] + [("Muls", -1.0, 4096)]
    planned = [aj.plan(api, st, dst, aj.LocalTensor(aj.float32, a, 128), s, 128) for api, s, a in cases]
    keys = {k for k, _ in planned}
    assert len(keys) == 1, keys  # the API is traced data: one program
    values = jax.tree_util.tree_map(lambda *v: jnp.stack(v), *[v for _, v in planned])
    states = jax.tree_util.tree_map(lambda x: jnp.stack([x] * len(cases)), st)
    out = aj.run_batched(keys.pop())(states, values)
    for i, (api, s, a) in enumerate(cases):
        direct = getattr(aj, api)(st, dst, aj.LocalTensor(aj.float32, a, 128), s, 128)
        _same(jax.tree_util.tree_map(lambda x, i=i: x[i], out), direct)


def test_unknown_api_names_plan_and_the_allowed_values():
    with pytest.raises(aj.UsageError, match=r"plan: api='NoSuchApi' is not allowed.*Adds"):
        aj.plan("NoSuchApi", aj.reset_state())


def test_static_misuse_raises_the_direct_calls_error():
    st = aj.reset_state()
    dst = aj.LocalTensor(aj.float32, 0, 128)
    src = aj.LocalTensor(aj.float32, 4096, 128)
    with pytest.raises(aj.UsageError) as direct:
        aj.Adds(st, dst, src, 1.0, 64, 1, aj.UnaryRepeatParams(), isSetMask=1)
    with pytest.raises(aj.UsageError) as planned:
        aj.plan("Adds", st, dst, src, 1.0, 64, 1, aj.UnaryRepeatParams(), isSetMask=1)
    assert str(planned.value) == str(direct.value)


def test_a_traced_value_where_the_key_needs_a_static_one():
    st = aj.reset_state()
    dst = aj.LocalTensor(aj.float32, 0, 128)
    src = aj.LocalTensor(aj.float32, 4096, 128)

    def planned(flag):
        return aj.plan("Adds", st, dst, src, 1.0, 64, 1, aj.UnaryRepeatParams(), isSetMask=flag)[1]

    def direct(flag):
        return aj.Adds(st, dst, src, 1.0, 64, 1, aj.UnaryRepeatParams(), isSetMask=flag)

    with pytest.raises(aj.UsageError) as want:
        jax.jit(direct)(True)  # a template argument: traced, it is not a bool
    with pytest.raises(aj.UsageError) as got:
        jax.jit(planned)(True)
    assert got.value.argument == want.value.argument == "isSetMask"


# -- the element-wise groups (binary, binary_scalar, unary, fill) ------------------------------------

_UNARY_P = aj.UnaryRepeatParams()
_FORMS = {  # form -> (tail arguments of a strided API, isSetMask); "fault": a misaligned dst
    "count": ((100,), True),
    "count_register": ((100,), False),
    "continuous": ((64, 2), True),
    "bitwise": (([2**64 - 5, 0], 1), True),
    "register": ((aj.MASK_PLACEHOLDER, 2), False),
    "fault": ((70,), True),
}
_GROUP_CALLS = {  # group -> [(api, dtype)]
    "binary": [(a, aj.float32) for a in ("Add", "Sub", "Mul", "Div", "Max", "Min")]
    + [("And", aj.int16), ("Or", aj.int16)],
    "binary_scalar": [(a, aj.float32) for a in ("Subs", "Divs", "AddsFlexible", "MulsFlexible")]
    + [(a, aj.float32) for a in ("MaxsFlexible", "MinsFlexible")]
    + [("Ands", aj.int16), ("Ors", aj.int16)],
    "unary": [(a, aj.half) for a in ("Abs", "Relu", "Neg", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal")]
    + [("LeakyRelu", aj.half), ("Not", aj.int16)],
    "fill": [("Duplicate", aj.float32), ("CreateVecIndex", aj.float32)] * 3,
}


def _ew_call(group, api, dt, i):
    """The i-th call of ``api``: a call form (Neg: count only), operands and keywords."""
    form = "count" if api == "Neg" else list(_FORMS)[i % len(_FORMS)]
    tail, is_set = _FORMS[form]
    dst = aj.LocalTensor(dt, 2 if form == "fault" else 0, 512)
    src = aj.LocalTensor(dt, 4096, 512)
    kw = {} if api == "Neg" else {"isSetMask": is_set}
    if len(tail) == 2:  # high-dim: the group's repeat parameters
        tail = tail + (
            (1, 8) if group == "fill" else (aj.BinaryRepeatParams() if group == "binary" else _UNARY_P,)
        )
    if group == "binary":
        ops = (src, aj.LocalTensor(dt, 8192, 512))
    elif group == "binary_scalar":  # the scalar after, before, or a LocalTensor element (src1)
        s = 3 if dt.is_signed_int else 0.75
        ops = [(src, s), (s, src), (src, aj.LocalTensor(dt, 8192 + 6, 1))][i % 3]
    elif group == "unary":
        ops = (src, 0.5) if api == "LeakyRelu" else (src,)
    else:
        ops = (1.25 + i,)
    return (dst, *ops, *tail), {**kw, "max_repeats": 4, "profile": _PROFILE.get(group, "ascend910b")}


_PROFILE = {"binary_scalar": "ascend950", "unary": "ascend950"}  # the flexible-scalar APIs, Neg: 950


@pytest.mark.parametrize("group", sorted(_GROUP_CALLS))
def test_element_wise_group_run_of_plan_equals_direct_call(group):
    """Every API of the group and every call form (a faulting one too): the planned calls of one
    dtype share one key (the API traced; float32 Exp / Ln / Rsqrt aside, half here) and their
    vmapped run equals each direct call bit for bit."""
    st = _state(3, _PROFILE.get(group))
    calls = [(api, *_ew_call(group, api, dt, i)) for i, (api, dt) in enumerate(_GROUP_CALLS[group])]
    planned = [aj.plan(api, st, *args, **kw) for api, args, kw in calls]
    assert {k.group for k, _ in planned} == {group}
    keys = {k for k, _ in planned}
    assert len(keys) == len({dt for _, dt in _GROUP_CALLS[group]}), keys  # one key per dtype
    faults = []
    for key in keys:
        idx = [i for i, (k, _) in enumerate(planned) if k == key]
        values = jax.tree_util.tree_map(lambda *v: jnp.stack(v), *[planned[i][1] for i in idx])
        states = jax.tree_util.tree_map(lambda x, n=len(idx): jnp.stack([x] * n), st)
        out = aj.run_batched(key)(states, values)
        for j, i in enumerate(idx):
            api, args, kw = calls[i]
            direct = getattr(aj, api)(st, *args, **kw)
            _same(jax.tree_util.tree_map(lambda x, j=j: x[j], out), direct)
            faults.append(int(direct.fault))
    assert any(faults) and not all(faults)


@pytest.mark.parametrize(
    "api, args, kw",
    [
        ("Add", (64, 300, aj.BinaryRepeatParams()), {}),  # repeatTime above 255
        ("Subs", (64, 1, _UNARY_P), {"isSetMask": 1, "profile": "ascend950"}),
        ("Neg", (64, 1, _UNARY_P), {"profile": "ascend950"}),  # Neg has no high-dim prototype
        ("Duplicate", (64, 1, 1, 256), {}),  # dstRepeatStride above 255
    ],
)
def test_element_wise_static_misuse_raises_the_direct_calls_error(api, args, kw):
    st = aj.reset_state()
    dst = aj.LocalTensor(aj.float32, 0, 128)
    src = aj.LocalTensor(aj.float32, 4096, 128)
    ops = {"Add": (src, src), "Subs": (src, 1.0), "Neg": (src,), "Duplicate": (1.0,)}[api]
    with pytest.raises(aj.UsageError) as direct:
        getattr(aj, api)(st, dst, *ops, *args, **kw)
    with pytest.raises(aj.UsageError) as planned:
        aj.plan(api, st, dst, *ops, *args, **kw)
    assert str(planned.value) == str(direct.value)
