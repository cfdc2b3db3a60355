"""The engine's fault helpers against brute force: ``repeat_dependency_fault`` (an active dst block
of repeat r is an active src block of a later repeat) over random strides, including repeat stride
0, overlapping and disjoint operands, and every prefix-shaped activity the pipelines build."""

import jax
import jax.numpy as jnp
import numpy as np

from ascend_jax._engine import memory as MEM
from ascend_jax.errors import Fault


def _brute(d, s, act):
    """O(R^2 * 64) literal check on block byte addresses d[R, 8], s[R, 8]."""
    R = d.shape[0]
    for r in range(R):
        for b in range(8):
            if not act[r, b]:
                continue
            for r2 in range(r + 1, R):
                for b2 in range(8):
                    if act[r2, b2] and s[r2, b2] == d[r, b]:
                        return True
    return False


def test_repeat_dependency_matches_brute_force():
    rng = np.random.default_rng(5)
    R, n = 12, 600
    cases = []
    for _ in range(n):
        d0, s0 = (int(x) for x in rng.integers(0, 40, 2))
        db, sb = (int(x) for x in rng.integers(1, 4, 2))
        dr, sr = (int(x) for x in rng.choice([0, 1, 2, 3, 8, 9], 2))
        rr, bb = np.arange(R)[:, None], np.arange(8)[None, :]
        d = (d0 + rr * dr + bb * db) * 32
        s = (s0 + rr * sr + bb * sb) * 32
        kind = rng.integers(3)
        if kind == 0:  # Normal mode: repeats below repeatTime, a fixed block mask
            act = (rr < rng.integers(0, R + 1)) & (rng.random(8) < 0.7)[None, :]
        elif kind == 1:  # Counter mode / count form: the first N lanes (blocks in program order)
            act = (rr * 8 + bb) < rng.integers(0, 8 * R + 1)
        else:  # a suppressed call
            act = np.zeros((R, 8), bool)
        cases.append((d, s, act, sr))
    D, S, A, SR = (np.stack([c[i] for c in cases]) for i in range(4))
    f = jax.jit(jax.vmap(lambda d, s, a, sr: MEM.repeat_dependency_fault(d, s, a, a, sr)))
    got = np.asarray(f(jnp.asarray(D, jnp.int32), jnp.asarray(S, jnp.int32), jnp.asarray(A), jnp.asarray(SR)))
    want = np.array([_brute(d, s, a) for d, s, a, _ in cases])
    assert want.sum() > 50 and (~want).sum() > 50  # both outcomes are exercised
    assert np.array_equal(got != 0, want)
    assert set(np.unique(got)) <= {0, int(Fault.REPEAT_DEPENDENCY)}


def test_materialize_keeps_values_and_a_fusion_boundary():
    """``materialize`` returns its input bits and stays a conditional in the compiled program (JAX
    elides a cond whose branches are identical, XLA one whose predicate is a known constant)."""
    x = jnp.asarray(np.random.default_rng(0).integers(0, 2**32, (4, 64), dtype=np.uint64).astype(np.uint32))
    fn = jax.jit(lambda v: MEM.materialize(v * np.uint32(3)) >> np.uint32(2))
    np.testing.assert_array_equal(np.asarray(fn(x)), (np.asarray(x) * np.uint32(3)) >> np.uint32(2))
    assert "conditional" in fn.lower(x).compile().as_text()
    vm = jax.jit(jax.vmap(MEM.materialize))  # batched (the kernels' case axis): still one branch
    np.testing.assert_array_equal(np.asarray(vm(x)), np.asarray(x))
    assert "conditional" in vm.lower(x).compile().as_text()
