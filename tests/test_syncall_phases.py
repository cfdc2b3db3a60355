"""SyncAll orders the cores (issue 44 item 1): the cores of a launch advance in phases cut by
``SyncAll`` -- every call before a core's k-th SyncAll runs before any core's call after it
(SyncAll.md). Expected values are NumPy sums of the inputs, never the model's own output."""

import numpy as np
import pytest

import ascend_jax as aj

E = aj.HardEvent
SLOT = 8  # one 32-byte slot of int32 per core


def _add_then_sum(k, slots, out, sync=True):
    """Each core adds its index into its slot of GM, ``SyncAll``, then sums every core's slot
    (the shape of the vendor's sync_all example, written for these tests)."""
    i, n = k.GetBlockIdx(), k.GetBlockNum()
    mine = k.alloc(aj.int32, SLOT)
    every = k.alloc(aj.int32, n * SLOT)
    acc = k.alloc(aj.int32, SLOT)
    k.DataCopy(mine, slots[SLOT * i], SLOT)
    k.SetFlag(E.MTE2_V, 0)
    k.WaitFlag(E.MTE2_V, 0)
    k.Adds(mine, mine, i, SLOT)
    k.SetFlag(E.V_MTE3, 0)
    k.WaitFlag(E.V_MTE3, 0)
    k.DataCopy(slots[SLOT * i], mine, SLOT)
    if sync:
        k.SyncAll()
    k.DataCopy(every, slots, n * SLOT)
    k.SetFlag(E.MTE2_V, 1)
    k.WaitFlag(E.MTE2_V, 1)
    k.Adds(acc, every, 0, SLOT)
    for j in range(1, n):
        k.Add(acc, acc, every[SLOT * j], SLOT)
    k.SetFlag(E.V_MTE3, 1)
    k.WaitFlag(E.V_MTE3, 1)
    k.DataCopy(out[SLOT * i], acc, SLOT)


def _inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(-1000, 1000, n * SLOT).astype(np.int32), np.zeros(n * SLOT, np.int32)


def _want(slots, n):
    after = slots + np.repeat(np.arange(n, dtype=np.int32), SLOT)
    total = after.reshape(n, SLOT).sum(0, dtype=np.int32)
    return after, np.tile(total, n)


@pytest.mark.parametrize("n", [2, 8, 48])
def test_sync_all_pattern_eager_exact(n):
    slots, out = _inputs(n)
    res = aj.run_kernel(_add_then_sum, slots, out, block_dim=n)
    after, total = _want(slots, n)
    assert res.gm[0].tolist() == after.tolist()
    assert res.gm[1].tolist() == total.tolist()
    assert res.findings == (), [str(f) for f in res.findings]


@pytest.mark.parametrize("n", [2, 8])
def test_sync_all_pattern_batched_exact(n):
    run = aj.jit_kernel(_add_then_sum, block_dim=n)
    cases = [_inputs(n, seed) for seed in range(6)]
    slots = np.stack([c[0] for c in cases])
    res = run(slots, np.zeros_like(slots))
    for b in range(len(cases)):
        after, total = _want(slots[b], n)
        assert res.gm[0][b].tolist() == after.tolist()
        assert res.gm[1][b].tolist() == total.tolist()
    assert res.findings == ()


@pytest.mark.parametrize("schedule", ["adversarial", 7])
def test_sync_all_orders_every_schedule(schedule):
    n = 4
    slots, out = _inputs(n, 3)
    res = aj.run_kernel(_add_then_sum, slots, out, block_dim=n, schedule=schedule)
    assert res.gm[1].tolist() == _want(slots, n)[1].tolist()


def test_without_sync_all_the_cross_core_race_is_reported():
    n = 2

    def twin(k, slots, out):
        _add_then_sum(k, slots, out, sync=False)

    slots, out = _inputs(n)
    res = aj.run_kernel(twin, slots, out, block_dim=n)
    across = [f for f in res.findings if f.calls[0].core != f.calls[-1].core]
    assert across, [str(f) for f in res.findings]
    assert any("RAW" in f.kind or "WAR" in f.kind for f in across), [str(f) for f in across]
    # program order runs core 0 to its end first: it summed before core 1 added (the bug SyncAll fixes)
    assert res.gm[1][:SLOT].tolist() != _want(slots, n)[1][:SLOT].tolist()


def test_a_value_read_after_sync_all_sees_the_other_core():
    def kern(k, g, out):
        i = k.GetBlockIdx()
        u = k.alloc(aj.float32, 8)
        if i == 1:
            k.Duplicate(u, 2.5, 8)
            k.SetFlag(E.V_MTE3, 0)
            k.WaitFlag(E.V_MTE3, 0)
            k.DataCopy(g, u, 8)
        k.SyncAll()
        if i == 0:
            v = k.GetValue(g, 3)
            k.Duplicate(u, v, 8)
            k.SetFlag(E.V_MTE3, 0)
            k.WaitFlag(E.V_MTE3, 0)
            k.DataCopy(out, u, 8)

    g, out = np.zeros(8, np.float32), np.zeros(8, np.float32)
    res = aj.run_kernel(kern, g, out, block_dim=2)
    assert res.gm[1].tolist() == [2.5] * 8
    run = aj.jit_kernel(kern, block_dim=2)
    r = run(np.zeros((3, 8), np.float32), np.zeros((3, 8), np.float32))
    assert r.gm[1].tolist() == [[2.5] * 8] * 3


def test_atomic_add_then_sync_all_each_core_reads_the_total():
    n = 4

    def kern(k, x, acc, out):
        i = k.GetBlockIdx()
        u = k.alloc(aj.float32, 8)
        k.DataCopy(u, x[8 * i], 8)
        k.SetFlag(E.MTE2_MTE3, 0)
        k.WaitFlag(E.MTE2_MTE3, 0)
        k.SetAtomicAdd(aj.float32)
        k.DataCopy(acc, u, 8)
        k.DisableDmaAtomic()
        k.SyncAll()
        k.DataCopy(u, acc, 8)
        k.SetFlag(E.MTE2_MTE3, 1)
        k.WaitFlag(E.MTE2_MTE3, 1)
        k.DataCopy(out[8 * i], u, 8)

    x = np.random.default_rng(5).standard_normal(n * 8).astype(np.float32)
    res = aj.run_kernel(kern, x, np.zeros(8, np.float32), np.zeros(n * 8, np.float32), block_dim=n)
    # SPEC (model): the atomic adds accumulate in blockIdx order (core 0 first), one rounding each
    want = np.zeros(8, np.float32)
    for i in range(n):
        want = (want + x[8 * i : 8 * i + 8]).astype(np.float32)
    assert res.gm[1].view(np.uint32).tolist() == want.view(np.uint32).tolist()
    assert res.gm[2].view(np.uint32).tolist() == np.tile(want, n).view(np.uint32).tolist()


def test_unequal_sync_all_counts_hang():
    def kern(k, x):
        if k.GetBlockIdx() == 0:
            k.SyncAll()

    res = aj.run_kernel(kern, np.zeros(8, np.float32), block_dim=2)
    hangs = [f for f in res.findings if f.kind == "hang"]
    assert len(hangs) == 1 and hangs[0].severity == "error"
    assert hangs[0].calls[0].core == 0 and hangs[0].calls[0].api == "SyncAll"
