"""The differential engine's campaign speed (issue 36): ``ascend-jax fuzz --apis
Adds,Select,GatherMask --profile ascend910b --cases 30000 --oracle-sample 300`` as a function call
(``fuzz.run``). Part of ``make bench`` (``benchmarks/kernels.py``; ``--no-fuzz`` skips it,
``--fuzz-cases N`` sets N); alone: ``python benchmarks/fuzz.py [--cases N] [--json out.json]``.

Keys: ``fuzz_fast_path_cases_per_s`` (the fast path's steady state: cases over the seconds of every
signature's chunks after its first, so compilation is excluded), ``fuzz_campaign_cases_per_s_oracle300``
(the whole campaign: cases over ``fuzz.run``'s wall seconds, compilation, generation, oracle,
digests and records included), ``fuzz_compile_seconds`` (first chunks beyond their steady cost),
``fuzz_oracle_cases_per_s``, ``fuzz_family_dtypes`` ((family, element type) pairs drawn), and
``fuzz_seconds_<phase>``: where the campaign's main thread spent its time (``FuzzResult.time_shares``:
drawing cases, programs of first chunks, chunk inputs and dispatch, waiting, reference, invalid-static
checks, digests and records)."""

import argparse
import json
import os
import time

APIS = "Adds,Select,GatherMask"


def bench_fuzz(log, cases=30000, oracle_sample=300, profile="ascend910b", seed=0):
    from ascend_jax import fuzz

    load = os.getloadavg()[0]
    t = time.perf_counter()
    res = fuzz.run(apis=APIS, profile=profile, cases=cases, seed=seed, oracle_sample=oracle_sample)
    wall = time.perf_counter() - t
    counts = res.counts()
    sigs = {(r["family"], r["dtype"]) for r in res.records}
    out = {
        "fuzz_fast_path_cases_per_s": res.fast_cases_per_s,
        "fuzz_campaign_cases_per_s_oracle300": cases / wall,
        "fuzz_compile_seconds": res.compile_seconds,
        "fuzz_oracle_cases_per_s": res.oracle_cases_per_s,
        "fuzz_campaign_seconds": wall,
        "fuzz_campaign_cases": cases,
        "fuzz_mismatches": counts.get("mismatch", 0) + counts.get("error", 0),
        "fuzz_family_dtypes": len(sigs),
        "fuzz_load_average_at_start": load,
    }
    for phase, sec in res.time_shares.items():  # where the main thread's seconds went
        out["fuzz_seconds_" + "_".join(phase.replace(",", "").replace(":", "").split())] = sec
    log(
        f"fuzz {APIS} {cases} cases (oracle {oracle_sample}): {cases / wall:.0f} cases/s overall, fast path "
        f"{res.fast_cases_per_s or 0:.0f} cases/s steady, compile {res.compile_seconds:.1f} s, "
        f"oracle {res.oracle_cases_per_s or 0:.0f} cases/s, {out['fuzz_mismatches']} mismatches, load {load:.1f}; main thread: "
        + ", ".join(f"{k} {v:.1f} s" for k, v in sorted(res.time_shares.items(), key=lambda kv: -kv[1]))
    )
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=30000)
    ap.add_argument("--oracle-sample", type=float, default=300)
    ap.add_argument("--profile", default="ascend910b")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    out = bench_fuzz(lambda s: print(s, flush=True), args.cases, args.oracle_sample, args.profile)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
    return out


if __name__ == "__main__":
    main()
