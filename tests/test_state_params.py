"""``CoreState`` and the parameter structs are chex dataclasses: what the rest of the code relies on."""

import dataclasses
import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax.params import (
    BinaryRepeatParams,
    DataCopyExtParams,
    DataCopyPadExtParams,
    DataCopyPadParams,
    DataCopyParams,
    UnaryRepeatParams,
)

STRUCTS = (
    UnaryRepeatParams,
    BinaryRepeatParams,
    DataCopyParams,
    DataCopyExtParams,
    DataCopyPadExtParams,
    DataCopyPadParams,
)


def test_state_is_a_frozen_pytree_with_named_leaves():
    s = aj.reset_state("ascend910b", ub_bytes=256)
    paths = {jax.tree_util.keystr(k) for k, _ in jax.tree_util.tree_flatten_with_path(s)[0]}
    fields = {".ub", ".vmask", ".mask_mode", ".cmpmask", ".ctrl", ".rsvd_cnt", ".fault"}
    fields |= {".deqscale", ".reduce_spr"}  # DEQSCALE and the reduce result registers (helper castcomp)
    assert paths == fields | {".warn", ".warn_at"}  # checker fields; .written only with check_uninit
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.fault = jnp.uint32(1)
    t = s.replace(fault=jnp.uint32(5))
    assert int(t.fault) == 5 and int(s.fault) == 0 and t.ub is s.ub
    # positional construction in field order still works
    u = aj.CoreState(s.ub, s.vmask, s.mask_mode, s.cmpmask, s.ctrl, s.rsvd_cnt, s.fault, s.warn, s.warn_at)
    u = u.replace(deqscale=s.deqscale, reduce_spr=s.reduce_spr)  # keyword-only in practice (after written)
    assert jax.tree_util.tree_structure(u) == jax.tree_util.tree_structure(s)
    assert not isinstance(s, dict) and "CoreState(" in repr(s)
    b = aj.batch_states(s, 3)
    out = jax.jit(jax.vmap(lambda st: st.replace(fault=st.fault | np.uint32(2))))(b)
    assert type(out) is aj.CoreState and out.fault.shape == (3,)
    np.testing.assert_array_equal(np.asarray(out.fault), np.full(3, 2, np.uint32))
    back = pickle.loads(pickle.dumps(s))
    np.testing.assert_array_equal(np.asarray(back.ub), np.asarray(s.ub))


@pytest.mark.parametrize("cls", STRUCTS, ids=lambda c: c.__name__)
def test_params_keep_cpp_order_equality_and_hash(cls):
    names = [f.name for f in dataclasses.fields(cls)]
    vals = list(range(1, len(names) + 1))
    a, b = cls(*vals), cls(**dict(zip(names, vals, strict=True)))
    assert a == b and hash(a) == hash(b) and {a: 1}[b] == 1
    assert [getattr(a, n) for n in names] == vals
    assert a != cls() and cls() == cls()
    assert repr(a).startswith(f"{cls.__name__}({names[0]}=1")
    assert not isinstance(a, dict)
    assert pickle.loads(pickle.dumps(a)) == a
    # pytree: the fields are the leaves; unflattening rebuilds the struct
    leaves, tree = jax.tree_util.tree_flatten(a)
    assert sorted(leaves) == vals and jax.tree_util.tree_unflatten(tree, leaves) == a


def test_params_accept_traced_fields():
    f = jax.jit(lambda p: p.dstRepStride * 2 + p.srcBlkStride)
    assert int(f(UnaryRepeatParams(1, 3, 7, 8))) == 17
    g = jax.vmap(lambda s: UnaryRepeatParams(1, s, 8, 8).srcBlkStride + 1)
    np.testing.assert_array_equal(np.asarray(g(jnp.arange(3))), [1, 2, 3])


def test_data_copy_gap_aliases():
    p = DataCopyParams(2, 4, srcGap=1, dstGap=3)
    assert (p.srcStride, p.dstStride, p.srcGap, p.dstGap) == (1, 3, 1, 3)
    assert jax.tree_util.tree_map(lambda x: x, p) == p
