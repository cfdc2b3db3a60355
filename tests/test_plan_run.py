"""aj.plan / aj.run (the planned-call interface, docs/PLAN_RUN.md): bit-for-bit equal to the direct
call, vmappable, one key per group, errors as the direct call's."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj


def _state(seed=0):
    st = aj.reset_state()
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
