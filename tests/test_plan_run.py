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


# -- the compound, axpy, exp_sub and cast groups ---------------------------------------------------

P950 = "ascend950"  # every API of the compound group (AbsSub, Prelu, ExpSub: ISASI)


def _compound_calls():
    f32 = aj.float32
    dst, s0, s1 = (aj.LocalTensor(f32, a, 128) for a in (0, 4096, 8192))
    bp = aj.BinaryRepeatParams
    return [
        ("AddRelu", (dst, s0, s1, 100), {}),
        ("SubRelu", (dst, s0, s1, 64, 2, bp()), {}),
        ("FusedMulAdd", (dst, s0, s1, [2**64 - 5, 0], 1, bp(src0BlkStride=2)), {}),
        ("MulAddRelu", (dst, s0, s1, aj.MASK_PLACEHOLDER, 1, bp()), {"isSetMask": False}),
        ("MulAddDst", (dst, s0, s1, 64), {"isSetMask": False}),
        ("AbsSub", (dst, s0, s1, 70), {}),
        ("Prelu", (dst[1], s0, s1, 64), {}),  # misaligned dst: a fault, the same bits
    ]


def _other_calls():
    f32, f16 = aj.float32, aj.half
    dst, src = aj.LocalTensor(f32, 0, 128), aj.LocalTensor(f32, 4096, 128)
    h0, h1 = aj.LocalTensor(f16, 4096, 128), aj.LocalTensor(f16, 8192, 128)
    up = aj.UnaryRepeatParams
    return [
        ("Axpy", (dst, src, 1.5, 64, 1, up(srcBlkStride=2)), {}),
        ("Axpy", (dst, h0, 0.75, 40), {}),  # the mixed row: half sources, a float32 dst
        ("MulAddDst", (dst, h0, h1, 64, 1, aj.BinaryRepeatParams()), {}),
        ("ExpSub", (dst, src, aj.LocalTensor(f32, 8192, 128), 50), {}),
        ("Cast", (aj.LocalTensor(f16, 0, 128), src, "CAST_RINT", 100), {}),
        ("Cast", (aj.LocalTensor(f16, 0, 128), src, aj.RoundMode.CAST_FLOOR, 64, 2, up(dstRepStride=4)), {}),
    ]


@pytest.mark.parametrize("i", range(7))
def test_compound_group_run_of_plan_equals_direct_call(i):
    api, args, kw = _compound_calls()[i]
    st = _state(10 + i)
    key, values = aj.plan(api, st, *args, profile=P950, **kw)
    assert key.group == "compound" and api in aj.GROUP_APIS["compound"]
    out = aj.run(key, st, values)
    _same(out, getattr(aj, api)(st, *args, profile=P950, **kw))
    assert (int(out.fault) != 0) == (i == 6)  # the misaligned dst faults, the others do not


def test_the_compound_group_shares_one_key():
    st = _state(3)
    calls = _compound_calls()
    keys = {aj.plan(api, st, *args, profile=P950, max_repeats=4, **kw)[0] for api, args, kw in calls}
    assert len(keys) == 1, keys  # seven APIs, four call forms: the API and the form are traced data


@pytest.mark.parametrize("i", range(6))
def test_axpy_exp_sub_cast_run_of_plan_equals_direct_call(i):
    api, args, kw = _other_calls()[i]
    st = _state(20 + i)
    key, values = aj.plan(api, st, *args, profile=P950, **kw)
    _same(aj.run(key, st, values), getattr(aj, api)(st, *args, profile=P950, **kw))


def test_round_modes_share_a_cast_key_and_a_vmap_sweep_equals_direct_calls():
    st = _state(8)
    dst, src = aj.LocalTensor(aj.half, 0, 128), aj.LocalTensor(aj.float32, 4096, 128)
    modes = ("CAST_RINT", "CAST_FLOOR", "CAST_CEIL")
    planned = [aj.plan("Cast", st, dst, src, m, 128, max_repeats=4) for m in modes]
    keys = {k for k, _ in planned}
    assert len(keys) == 1, keys  # the round mode is traced data
    # the key a caller stacking values builds: the (src, dst) pair, the bucket, the profile
    key = aj.group_key("cast", (aj.float32, aj.half), 4, keys.pop().static[-1])
    values = jax.tree_util.tree_map(lambda *v: jnp.stack(v), *[v for _, v in planned])
    states = jax.tree_util.tree_map(lambda x: jnp.stack([x] * len(modes)), st)
    out = aj.run_batched(key)(states, values)
    for i, m in enumerate(modes):
        _same(jax.tree_util.tree_map(lambda x, i=i: x[i], out), aj.Cast(st, dst, src, m, 128))


# -- the reduce group: ReduceRepeat, ReduceDataBlock, ReducePairElem, ReduceSum, ReduceMax, ReduceMin


def _reduce_tensors(src_offset=0):
    dst = aj.LocalTensor(aj.float32, 0, 128)
    src = aj.LocalTensor(aj.float32, 4096, 2048)
    tmp = aj.LocalTensor(aj.float32, 16384, 4096)
    return dst, (src[src_offset] if src_offset else src), tmp


def _reduce_calls():
    dst, src, tmp = _reduce_tensors()
    _, bad_src, _ = _reduce_tensors(1)  # misaligned: a fault, the same bits
    words = [2**64 - 5, 0]
    return [
        ("ReduceRepeat", (dst, src, 64, 2, 1, 1, 8, aj.ReduceOrder.ORDER_INDEX_VALUE), {"reduceType": "MAX"}),
        ("ReduceRepeat", (dst, src, 64, 2, 1, 1, 8), {"reduceType": "SUM"}),
        ("ReduceDataBlock", (dst, src, words, 2, 1, 2, 16), {"reduceType": "MIN"}),
        ("ReducePairElem", (dst, src, aj.MASK_PLACEHOLDER, 1, 1, 1, 8), {"isSetMask": False}),
        ("ReduceSum", (dst, src, tmp, 100), {}),
        ("ReduceSum", (dst, src, tmp, words, 3, 8), {}),
        ("ReduceMax", (dst, src, tmp, 200, True), {}),
        ("ReduceMin", (dst, src, tmp, 64, 2, 8), {"calIndex": True}),
        ("ReduceSum", (dst, bad_src, tmp, 64), {}),
    ]


@pytest.mark.parametrize("i", range(9))
def test_reduce_run_of_plan_equals_direct_call(i):
    api, args, kw = _reduce_calls()[i]
    st = _state(10 + i)
    key, values = aj.plan(api, st, *args, profile="ascend910b", **kw)
    assert key.group == "reduce"
    direct = getattr(aj, api)(st, *args, profile="ascend910b", **kw)
    _same(aj.run(key, st, values), direct)
    if api == "ReduceSum" and args[1].addr % 32:
        assert int(direct.fault) != 0  # the faulting case faults


def test_reduce_call_forms_of_an_api_share_a_key_and_a_vmap_sweep_equals_direct_calls():
    st = _state(21)
    dst, src, tmp = _reduce_tensors()
    calls = [
        (dst, src, tmp, 100, True),
        (dst, src, tmp, 64, 2, 8, True),
        (dst, src, tmp, [5, 0], 1, 8, True),
    ]
    planned = [aj.plan("ReduceMax", st, *a, max_repeats=4) for a in calls]
    keys = {k for k, _ in planned}
    assert len(keys) == 1, keys  # the call form, mask and counts are traced data: one program
    values = jax.tree_util.tree_map(lambda *v: jnp.stack(v), *[v for _, v in planned])
    states = jax.tree_util.tree_map(lambda x: jnp.stack([x] * len(calls)), st)
    out = aj.run_batched(keys.pop())(states, values)
    for i, a in enumerate(calls):
        _same(jax.tree_util.tree_map(lambda x, i=i: x[i], out), aj.ReduceMax(st, *a, max_repeats=4))


@pytest.mark.parametrize(
    "api, args, kw",
    [
        ("AbsSub", (64, 1, "bp"), {}),  # the count prototype only
        ("AddRelu", (64, 1, "bp"), {"isSetMask": 1}),  # a bool template argument
        ("Cast", ("CAST_ODD", 64), {}),  # not a round mode of float32 -> int32
    ],
)
def test_static_misuse_of_the_new_groups_raises_the_direct_calls_error(api, args, kw):
    st = aj.reset_state(P950)
    f32 = aj.float32
    ops = (aj.LocalTensor(f32, 0, 128), aj.LocalTensor(f32, 4096, 128))
    if api == "Cast":
        ops = (aj.LocalTensor(aj.int32, 0, 128), ops[1])
    else:
        ops += (aj.LocalTensor(f32, 8192, 128),)
    args = tuple(aj.BinaryRepeatParams() if a == "bp" else a for a in args)
    with pytest.raises(aj.UsageError) as direct:
        getattr(aj, api)(st, *ops, *args, profile=P950, **kw)
    with pytest.raises(aj.UsageError) as planned:
        aj.plan(api, st, *ops, *args, profile=P950, **kw)
    assert str(planned.value) == str(direct.value)


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
        ("ReduceRepeat", (1, 1, 1, 1, 1 << 16), {"reduceType": "MAX"}),  # srcRepStride out of range
        ("ReducePairElem", (64, 1, 1, 1, 8), {"reduceType": "MAX"}),  # SUM only
        ("ReduceMax", (100,), {"calIndex": 1}),  # calIndex not a bool
    ],
)
def test_reduce_static_misuse_raises_the_direct_calls_error(api, args, kw):
    st = aj.reset_state()
    dst, src, tmp = _reduce_tensors()
    head = (dst, src) if api != "ReduceMax" else (dst, src, tmp)
    with pytest.raises(aj.UsageError) as direct:
        getattr(aj, api)(st, *head, *args, **kw)
    with pytest.raises(aj.UsageError) as planned:
        aj.plan(api, st, *head, *args, **kw)
    assert str(planned.value) == str(direct.value)


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
