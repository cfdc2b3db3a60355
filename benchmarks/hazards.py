"""The race / sync checker at scale: ``hazards.check`` and ``hazards.dynamic_races`` (what a launch
runs on its call logs) on a synthetic 8-core log of 10^5 calls (``ascend_jax.testing.calllogs.
tile_loop_logs``: a double-buffered TQue tile loop, SyncAll, a hand-synced flag loop, an atomic
add per core). See benchmarks/README.md.

    python benchmarks/hazards.py [--calls N] [--cores C] [--reference] [--json out.json]

Keys: hazards_seconds_100k_calls (wall seconds of check + dynamic_races, the best of ``--rounds``;
at ``--calls`` other than 100,000 the key is named after the count), hazards_calls,
hazards_accesses, hazards_findings (the launch's findings: 28 float atomic-add warnings, one per
pair of the 8 cores), hazards_order_seconds (the happens-before part of check). ``--reference``
also times the pair scan the index replaced (ascend_jax.testing.hazards_reference) on the same
log: hazards_reference_seconds, and checks the findings are the same.
"""

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ascend_jax import hazards  # noqa: E402
from ascend_jax.testing import calllogs  # noqa: E402


def bench_hazards(log, calls=100_000, cores=8, rounds=3, reference=False):
    logs = calllogs.tile_loop_logs(calls, cores)
    n = sum(len(lg) for lg in logs)
    best, best_order = float("inf"), float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        orders, findings = hazards.check(logs)
        hazards.dynamic_races(logs, orders)
        best = min(best, time.perf_counter() - t)
        t = time.perf_counter()
        [hazards.order(lg) for lg in logs]
        best_order = min(best_order, time.perf_counter() - t)
    key = "hazards_seconds_100k_calls" if calls == 100_000 else f"hazards_seconds_{calls}_calls"
    out = {
        key: best,
        "hazards_calls": n,
        "hazards_accesses": sum(len(c.accesses) for lg in logs for c in lg.calls),
        "hazards_findings": len(findings),
        "hazards_order_seconds": best_order,
    }
    log(
        f"hazards: {n:,} calls on {cores} cores: check + dynamic_races {best:.2f} s (happens-before "
        f"{best_order:.2f} s), {len(findings)} findings"
    )
    if reference:
        from ascend_jax.testing import hazards_reference

        t = time.perf_counter()
        orders = [hazards.order(lg) for lg in logs]
        ref = [f for o in orders for f in o.findings] + hazards_reference.races_reference(logs, orders)
        hazards_reference.dynamic_races_reference(logs, orders)
        out["hazards_reference_seconds"] = time.perf_counter() - t
        out["hazards_reference_same_findings"] = ref == list(findings)
        log(
            f"hazards: the pair scan (reference) {out['hazards_reference_seconds']:.2f} s, same findings "
            f"{out['hazards_reference_same_findings']}"
        )
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=100_000)
    ap.add_argument("--cores", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reference", action="store_true", help="also time the pair scan it replaced")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    load = os.getloadavg()[0]
    out = bench_hazards(lambda s: print(s, flush=True), args.calls, args.cores, args.rounds, args.reference)
    out["load_average_at_start"] = load
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
    return out


if __name__ == "__main__":
    main()
