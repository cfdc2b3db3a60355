"""Throughput of the batched fast path for the scalar-arithmetic family, measured in one run
against the literal NumPy reference on the same random cases (the reference is the oracle, not the
vectorized NumPy baseline issue 7 asks for; that comparison is still to be written).

    python benchmarks/run.py [--quick] [--json out.json]
"""

import argparse
import json
import statistics
import time

import jax
import numpy as np

from ascend_jax.profile import load_profile
from ascend_jax.testing.cases import random_case, run_fast_batch, run_reference


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default="ascend910b")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    p = load_profile(args.profile)
    rng = np.random.default_rng(0)
    n = 1024 if args.quick else 8192
    cases = [random_case(rng, p, fault_rate=0.0) for _ in range(n)]
    t0 = time.perf_counter()
    run_fast_batch(cases[:512], p, chunk=512)  # compile (one program per dtype)
    compile_s = time.perf_counter() - t0
    rounds = []
    for _ in range(3 if args.quick else 5):
        t = time.perf_counter()
        out = run_fast_batch(cases, p, chunk=512)
        jax.block_until_ready(out[-1].ub)
        rounds.append(n / (time.perf_counter() - t))
    m = min(n, 256)
    t = time.perf_counter()
    for c in cases[:m]:
        run_reference(c, p)
    ref_rate = m / (time.perf_counter() - t)
    res = {
        "profile": p.name,
        "cases": n,
        "fast_cases_per_s_median": statistics.median(rounds),
        "reference_cases_per_s": ref_rate,
        "ratio_fast_vs_reference": statistics.median(rounds) / ref_rate,
        "compile_seconds_first_batch": compile_s,
    }
    for k, v in res.items():
        print(f"{k:32} {v:,.1f}" if isinstance(v, float) else f"{k:32} {v}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
