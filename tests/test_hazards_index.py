"""The race checker's index over address ranges (``hazards.races`` / ``hazards.dynamic_races``)
against the pair scan it replaced (``ascend_jax.testing.hazards_reference``, every pair of accesses
of a memory compared): the same findings in the same order on random call logs
(``ascend_jax.testing.calllogs.random_logs``: flags, queue flags, barriers, SyncAll, host
boundaries, several cores, atomics, scalar GM writes, traced and empty ranges). And the one
happens-before query, ``hazards.ordered``, on logs whose order is known by construction."""

import pytest

from ascend_jax import hazards as H
from ascend_jax.sync import HardEvent, pipe_t
from ascend_jax.testing import hazards_reference as R
from ascend_jax.testing.calllogs import random_logs, tile_loop_logs

P = pipe_t


def _same(logs):
    orders = [H.order(lg) for lg in logs]
    got = H.races(logs, orders)
    assert got == R.races_reference(logs, orders)
    dyn, ref = H.dynamic_races(logs, orders), R.dynamic_races_reference(logs, orders)
    assert [f for f, _ in dyn] == [f for f, _ in ref]
    assert [bool(o) for _, o in dyn] == [bool(o) for _, o in ref]
    return got, dyn


def test_index_matches_the_pair_scan_on_random_logs():
    kinds = set()
    for seed in range(400):
        got, dyn = _same(random_logs(seed))
        kinds |= {f.kind for f in got} | {f.kind for f, _ in dyn}
    # the draw reaches every kind of race finding (else the comparison proves little)
    assert {
        "RAW",
        "WAR",
        "WAW",
        "RAW across cores",
        "WAR across cores",
        "multi-core stomp",
        "atomic order",
        "cache line",
    } <= kinds


@pytest.mark.slow
@pytest.mark.parametrize("block", range(4))
def test_index_matches_the_pair_scan_on_random_logs_nightly(block):
    for seed in range(10_000 + 2_500 * block, 10_000 + 2_500 * (block + 1)):
        _same(random_logs(seed))
    for seed in range(50 * block, 50 * (block + 1)):  # longer logs: bitsets past one word, 6 cores
        _same(random_logs(seed, cores=1 + seed % 6, calls=150 + seed % 100))


def test_tile_loop_log_only_the_atomic_adds_race():
    """The benchmark's log, small: race-free by construction except one float atomic add per core
    into one accumulator, unordered across the 8 cores: C(8, 2) = 28 warnings."""
    logs = tile_loop_logs(4000, cores=8)
    got, dyn = _same(logs)
    assert dyn == []
    assert [(f.tool, f.kind, f.severity) for f in got] == [("racecheck", "atomic order", "warning")] * 28
    assert sorted((f.calls[0].core, f.calls[1].core) for f in got) == [
        (a, b) for a in range(8) for b in range(a + 1, 8)
    ]
    orders = [H.order(lg) for lg in logs]
    assert all(o.findings == [] for o in orders)


def _log(core, *calls):
    lg = H.CallLog(core)
    for api, pipe, kind, event in calls:
        lg.add(api, pipe, kind=kind, event=event)
    return lg


def test_ordered_one_core_and_across_cores():
    ev = (HardEvent.MTE2_V, 0)
    a = _log(
        0,
        ("DataCopy", P.PIPE_MTE2, "op", None),  # 0
        ("Add", P.PIPE_V, "op", None),  # 1: no flag yet -> unordered with 0
        ("SetFlag", P.PIPE_MTE2, "set", ev),  # 2
        ("WaitFlag", P.PIPE_V, "wait", ev),  # 3
        ("Mul", P.PIPE_V, "op", None),  # 4: after 0 (the flag), after 1 (V in order)
        ("DataCopy", P.PIPE_MTE2, "op", None),  # 5: MTE2 after MTE2 needs a PipeBarrier
        ("SyncAll", P.PIPE_ALL, "syncall", None),  # 6
        ("Sub", P.PIPE_V, "op", None),  # 7
    )
    b = _log(1, ("DataCopy", P.PIPE_MTE3, "op", None), ("SyncAll", P.PIPE_ALL, "syncall", None))
    b.add("Sub", P.PIPE_V)
    orders = [H.order(a), H.order(b)]
    c, d = a.calls, b.calls
    yes = [(c[0], c[4]), (c[1], c[4]), (c[0], c[7]), (c[5], c[7]), (c[0], d[2]), (d[0], c[7])]
    no = [(c[0], c[1]), (c[0], c[5]), (c[4], c[5]), (c[0], d[0]), (c[7], d[2]), (c[5], d[0])]
    for x, y in yes:
        assert H.ordered(x, y, orders) and H.ordered(y, x, orders), (x.label(), y.label())
    for x, y in no:
        assert not H.ordered(x, y, orders) and not H.ordered(y, x, orders), (x.label(), y.label())
