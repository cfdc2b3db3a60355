"""Mutation tests (issue 31): remove each WaitFlag (with its SetFlag), each PipeBarrier and each
EnQue/DeQue pair's flag in turn from a race-free kernel; every mutant that leaves a conflicting
access unordered must be reported. The mutants that stay safe are listed with the reason."""

import contextlib

import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import pipe as _pipe
from ops import sanitizer_samples as S
from ops import vendor_add, vendor_add_tpipe_tque, vendor_interleave_pair


@contextlib.contextmanager
def _drop(kind, n):
    """Skip the n-th (0-based, counted over the whole launch) sync of ``kind``: "flag" (a SetFlag and
    the n-th WaitFlag), "barrier" (a PipeBarrier) or "queue" (an EnQue's set and the n-th DeQue's
    wait; the tensor still moves through the queue)."""
    counts = {}
    orig = {
        "SetFlag": aj.Kernel.SetFlag,
        "WaitFlag": aj.Kernel.WaitFlag,
        "PipeBarrier": aj.Kernel.PipeBarrier,
        "_sync": _pipe.TQue._sync,
    }

    def skip(name):
        i = counts.get(name, 0)
        counts[name] = i + 1
        return i == n

    def set_flag(self, *a, **kw):
        if kind == "flag" and skip("set"):
            return None
        return orig["SetFlag"](self, *a, **kw)

    def wait_flag(self, *a, **kw):
        if kind == "flag" and skip("wait"):
            return None
        return orig["WaitFlag"](self, *a, **kw)

    def barrier(self, *a, **kw):
        if kind == "barrier" and skip("barrier"):
            return None
        return orig["PipeBarrier"](self, *a, **kw)

    def sync(self, api, *a, **kw):
        if kind == "queue" and api in ("EnQue", "DeQue") and skip(api):
            return None
        return orig["_sync"](self, api, *a, **kw)

    aj.Kernel.SetFlag, aj.Kernel.WaitFlag, aj.Kernel.PipeBarrier = set_flag, wait_flag, barrier
    _pipe.TQue._sync = sync
    try:
        yield counts
    finally:
        aj.Kernel.SetFlag, aj.Kernel.WaitFlag = orig["SetFlag"], orig["WaitFlag"]
        aj.Kernel.PipeBarrier, _pipe.TQue._sync = orig["PipeBarrier"], orig["_sync"]


def _run(fn, arrays, block_dim):
    return aj.run_kernel(fn, *arrays, block_dim=block_dim, profile=getattr(fn, "profile", None))


def _count(fn, arrays, block_dim):
    k_counts = {}
    for kind, key in (("flag", "wait"), ("barrier", "barrier"), ("queue", "DeQue")):
        with _drop(kind, -1) as c:
            _run(fn, arrays, block_dim)
        k_counts[kind] = c.get(key, 0)
    return k_counts


def _f32(*sizes):
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype(np.float32) for s in sizes]


# (name, kernel, GM arrays, block_dim, mutants expected safe: {(kind, n): reason})
_BARRIER_LAST = "the PipeBarrier<PIPE_ALL> after the last copy out orders nothing that follows it"
CASES = [
    (
        "ms_sanitizer_add",
        S.ms_sanitizer_add(True, 256),
        _f32(512, 512, 512),
        2,
        {("barrier", n): _BARRIER_LAST for n in range(2)},
    ),
    (
        "vendor_add",
        vendor_add.add_custom,
        list(vendor_add.host_inputs()) + [np.zeros(vendor_add.TOTAL_LENGTH, np.float32)],
        8,
        {("barrier", 3 * c + 2): _BARRIER_LAST for c in range(8)},
    ),
    (
        "vendor_add_tpipe_tque",
        vendor_add_tpipe_tque.add_custom,
        _f32(*(vendor_add_tpipe_tque.TOTAL_LENGTH,) * 3),
        vendor_add_tpipe_tque.NUM_BLOCKS,
        {
            ("queue", 3 * b + q): "the other VECIN queue's EnQue is issued after both copies in: its "
            "MTE2_V flag orders both before the Add"
            for b in range(8)  # one TPipe per core: 3 DeQue per core, core 0 first
            for q in (0, 1)
        },
    ),
    (
        "vendor_interleave_pair",
        vendor_interleave_pair.scenario(1),
        [np.ones(vendor_interleave_pair.COUNT, np.float16)] * 4,
        1,
        {("barrier", 0): _BARRIER_LAST},
    ),
    (
        "pipeline_hazards (fixed)",
        S.pipeline_hazards(True),
        _f32(768),
        1,
        {},
    ),
    ("copy_demo (fixed)", S.copy_demo(True), _f32(64, 64), 1, {}),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_unsafe_mutant_is_reported(case):
    name, fn, arrays, block_dim, safe = case
    assert _run(fn, arrays, block_dim).findings == ()
    counts = _count(fn, arrays, block_dim)
    assert sum(counts.values()) > 0, name
    missed = []
    for kind, total in counts.items():
        for n in range(total):
            with _drop(kind, n):
                res = _run(fn, arrays, block_dim)
            reported = bool(res.findings)
            if (kind, n) in safe:
                assert not reported, (name, kind, n, [str(f) for f in res.findings])
            elif not reported:
                missed.append((kind, n))
    assert not missed, f"{name}: mutants with no finding: {missed} (counts {counts})"
