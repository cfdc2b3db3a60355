"""Every vendor port in ops/ is faithful to its sample's sync (issue 31 item 6).

For every port and scenario (``ops.VENDOR_OPS``, the scenarios not PENDING), run with the sample's
block count (the declared ``fn.block_dim``) on random inputs of the declared GmArg dtypes/counts:

(a) the findings are empty, or -- a sample that is itself racy per the model's rules, kept
    faithful -- every finding starts with the head its module's ``KNOWN_FINDINGS[scenario]`` names
    ("<head> -- <why>");
(b) ``schedule="program"`` and ``"adversarial"`` give the same GM bits for ``CASES`` (>= 1,000)
    random cases, one ``aj.jit_kernel`` per schedule (the heaviest scenarios are ``slow``);
(c) mutation: each WaitFlag (with its SetFlag), each PipeBarrier and each EnQue/DeQue pair's flag
    (the data still flows through the queue) is removed in turn (``test_sync_mutations._drop``);
    every mutant that leaves a conflicting access unordered must add a finding. The mutants that
    add none are listed in ``STILL_SAFE`` with the reason, and must match it exactly.
"""

import numpy as np
import pytest
from test_sync_mutations import _drop

import ascend_jax as aj
import ops

CASES = 1000


def _scenarios():
    out = []
    for name, mod in ops.VENDOR_OPS.items():
        for n in mod.SCENARIOS:
            if n not in getattr(mod, "PENDING", {}):
                out.append((name, n))
    return out


SCENARIOS = _scenarios()
IDS = [f"{op}-s{n}" for op, n in SCENARIOS]

# the scenarios whose jit takes the longest (large UB buffers / 8 cores x 1,000 cases)
SLOW = {
    ("vendor_add", 1),
    ("vendor_add_tpipe_tque", 1),
    ("vendor_mrg_sort", 3),
    ("vendor_transpose", 3),
    ("vendor_reduce_computation", 6),
}


# inputs a random draw would make fault (not this test's subject): drawn in the sample's range
def _offsets(step):
    return lambda rng, shape, d: (rng.integers(0, 256 // step, shape) * step).astype(d)


IN_RANGE = {
    ("vendor_gather", 3, "y"): _offsets(2),  # byte offsets of uint16 elements in a 256-byte src0
    ("vendor_gather", 4, "y"): _offsets(32),  # byte offsets of DataBlocks in a 256-byte src0
    ("vendor_element_wise_logic", 3, "src1"): lambda rng, shape, d: rng.integers(0, 16, shape).astype(d),
}


def _random(fn, rng, batch=None, op=None, n=None):
    """GM arrays of the declared dtypes/counts (``batch``: a leading batch axis); outputs zero."""
    lead = () if batch is None else (batch,)
    arrays = []
    for a in fn.gm_args:
        d = np.dtype(a.dt.np_dtype)
        shape = lead + (a.count,)
        if not a.is_input:
            arrays.append(np.zeros(shape, d))
        elif (op, n, a.name) in IN_RANGE:
            arrays.append(IN_RANGE[op, n, a.name](rng, shape, d))
        elif d.kind == "f":
            arrays.append(rng.standard_normal(shape).astype(d))
        else:
            info = np.iinfo(d)
            arrays.append(rng.integers(info.min, info.max, shape, dtype=d, endpoint=True))
    return arrays


def _known(op, n):
    """The finding head a KNOWN_FINDINGS scenario must report (None: must be clean)."""
    why = getattr(ops.VENDOR_OPS[op], "KNOWN_FINDINGS", {}).get(n)
    return None if why is None else why.split(" -- ")[0]


def _run(fn, arrays, **kw):
    return aj.run_kernel(fn, *arrays, block_dim=fn.block_dim, profile=fn.profile, **kw)


@pytest.mark.parametrize("op,n", SCENARIOS, ids=IDS)
def test_findings(op, n):
    fn = ops.VENDOR_OPS[op].scenario(n)
    arrays = _random(fn, np.random.default_rng(n), op=op, n=n)
    res = _run(fn, arrays)
    head = _known(op, n)
    texts = [str(f) for f in res.findings]
    if head is None:
        assert texts == [], texts
    else:
        assert texts and all(t.startswith(head) for t in texts), texts


def _schedules(op, n):
    fn = ops.VENDOR_OPS[op].scenario(n)
    arrays = _random(fn, np.random.default_rng(1000 + n), CASES, op=op, n=n)
    outs = {}
    for sched in ("program", "adversarial"):
        run = aj.jit_kernel(fn, profile=fn.profile, block_dim=fn.block_dim, schedule=sched)
        res = run(*arrays)
        assert res.schedule == sched
        outs[sched] = [np.asarray(g) for g in res.gm]
    for a, p, v in zip(fn.gm_args, outs["program"], outs["adversarial"], strict=True):
        assert p.shape[0] == CASES
        bits = np.dtype(f"u{p.dtype.itemsize}")
        np.testing.assert_array_equal(p.view(bits), v.view(bits), err_msg=f"{op} s{n} {a.name}")


FAST = [s for s in SCENARIOS if s not in SLOW]
SLOW_LIST = [s for s in SCENARIOS if s in SLOW]


@pytest.mark.parametrize("op,n", FAST, ids=[f"{op}-s{n}" for op, n in FAST])
def test_schedules_same_bits(op, n):
    _schedules(op, n)


@pytest.mark.slow
@pytest.mark.parametrize("op,n", SLOW_LIST, ids=[f"{op}-s{n}" for op, n in SLOW_LIST])
def test_schedules_same_bits_slow(op, n):
    _schedules(op, n)


# -- mutation ------------------------------------------------------------------------------------

KINDS = (("flag", "wait"), ("barrier", "barrier"), ("queue", "DeQue"))


def _mutants(fn, arrays):
    """(kind, n) of every sync the launch makes (counted over all cores, core 0 first)."""
    out = []
    for kind, key in KINDS:
        with _drop(kind, -1) as c:
            _run(fn, arrays)
        out += [(kind, i) for i in range(c.get(key, 0))]
    return out


def mutation_report(op, n):
    """{(kind, i): new finding texts} for every mutant of (op, n) (empty: nothing reported)."""
    fn = ops.VENDOR_OPS[op].scenario(n)
    arrays = _random(fn, np.random.default_rng(n), op=op, n=n)
    base = {str(f) for f in _run(fn, arrays).findings}
    out = {}
    for kind, i in _mutants(fn, arrays):
        with _drop(kind, i):
            res = _run(fn, arrays)
        out[(kind, i)] = sorted({str(f) for f in res.findings} - base)
    return out
