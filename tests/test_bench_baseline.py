"""The benchmark's NumPy baseline (benchmarks/numpy_baseline.py) agrees with the model on the
benchmark's standard mix, and with the literal reference on a few cases of every signature, so a
throughput ratio always compares two implementations of the same semantics."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))

import mix  # noqa: E402
import numpy_baseline as NB  # noqa: E402
from conftest import SCALE  # noqa: E402

from ascend_jax.profile import load_profile  # noqa: E402

P = load_profile("ascend910b")
N = 24  # cases per signature: one small batch (one compilation) per signature


@pytest.fixture(scope="module")
def runs():
    """Per signature: the fault-free cases, their initial UBs and the fast path's results."""
    rng = np.random.default_rng(7)
    out = []
    for sig, kw in mix.signatures():
        if SCALE == 1 and not sig.name.endswith("R16"):
            continue  # make test: the small-bucket signature of every API (the large ones nightly)
        cs = mix.draw_cases(sig, kw, N, rng, P)
        ubs = [mix.initial_ub(sig, c) for c in cs]
        prog = mix.FastProgram(sig, cs[0], P)
        st, dyn = prog.inputs(cs, ubs)
        res, rs = prog(st, dyn)
        assert prog.traces == 1
        rs = None if rs is None else np.asarray(rs)
        out.append((sig, cs, ubs, np.asarray(res.ub), np.asarray(res.fault), rs))
    return out


def test_baseline_equals_model_on_the_mix(runs):
    checked = 0
    for sig, cs, ubs, ub_f, fault, rs in runs:
        for i, c in enumerate(cs):
            if fault[i]:
                continue  # the mix is fault-free; the baseline does not model faults
            u = ubs[i].copy()
            r = NB.run_case(c, u, P)
            diff = np.nonzero(u != ub_f[i])[0]
            assert diff.size == 0, f"{sig.name}: {c} differs at bytes {diff[:8]}"
            if rs is not None and r is not None:
                assert r == int(rs[i]), f"{sig.name}: rsvdCnt {r} != {int(rs[i])}"
            checked += 1
    assert checked >= len(runs) * N // 2


def test_baseline_equals_reference_sample(runs):
    """A few cases per signature against the literal oracle (independent of the engine)."""
    for sig, cs, ubs, _, fault, _ in runs:
        done = 0
        for i, c in enumerate(cs):
            if fault[i] or done >= 2:
                continue
            u = ubs[i].copy()
            r = NB.run_case(c, u, P)
            st, rr = mix.run_oracle(sig, c, ubs[i], P)
            assert int(st.fault) == 0, f"{sig.name}: the oracle faults on {c}"
            assert np.array_equal(u, np.asarray(st.ub)), f"{sig.name}: {c}"
            if rr is not None and r is not None:
                assert r == int(rr)
            done += 1


def test_baseline_detects_a_wrong_write():
    """The comparison can fail: a baseline Muls with the wrong scalar differs from Adds."""
    ub = np.zeros(1024, np.uint8)
    ub.view(np.float32)[:64] = np.arange(64, dtype=np.float32)
    a, b = ub.copy(), ub.copy()
    act = NB.active_lanes(64, "count", count=64)
    NB.unary("add", a, "float32", 256, 0, 0x3F800000, act, (1, 1, 8, 8), P, (0, 0))
    NB.unary("mul", b, "float32", 256, 0, 0x3F800000, act, (1, 1, 8, 8), P, (0, 0))
    assert np.array_equal(a.view(np.float32)[64:128], np.arange(64) + 1.0)
    assert np.array_equal(b.view(np.float32)[64:128], np.arange(64, dtype=np.float32))
    assert not np.array_equal(a, b)


def test_program_order_last_writer_wins():
    """dstRepStride 0: every repeat writes the same block; the last active repeat wins per lane."""
    ub = np.zeros(4096, np.uint8)
    ub.view(np.int16)[:256] = np.arange(256)
    act = NB.active_lanes(128, "continuous", mask=128, repeat=2)
    NB.unary("add", ub, "int16", 2048, 0, 1, act, (1, 1, 0, 8), P, (0, 0))
    # repeat 1 (src elements 128..255) wins: dst = src[128 + l] + 1
    assert np.array_equal(ub.view(np.int16)[1024:1152], np.arange(128, 256) + 1)
