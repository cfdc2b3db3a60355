"""Throughput of ascend_jax's batched fast path on the standard mix, against a vectorised NumPy
baseline (benchmarks/numpy_baseline.py) and the literal loop oracle (ascend_jax/reference), all on
the same inputs. See benchmarks/README.md.

    python benchmarks/run.py [--quick] [--json out.json] [--profile ascend910b]

For each UB mode (``arena``: each case's UB sized to the buffers it uses, 8 KiB / 64 KiB;
``full``: the profile's usable UB) and batch size (1, 1k, 16k; ``--quick``: 1 and 1k), the mix is
split over its signatures by weight (a signature's sub-batch is ``max(1, round(batch*weight))``
cases, one program each). Reported: cases/s of ascend_jax, of the NumPy baseline and of the oracle
(a small sample), the ratio ascend_jax / NumPy measured interleaved (median of >= 5 rounds), compile
seconds and trace count per signature, peak RSS per case, the machine's memcpy bandwidth and the
bytes each case must touch, giving the fraction of the bandwidth limit reached.
"""

import argparse
import json
import os
import resource
import statistics
import sys
import time

import jax
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mix  # noqa: E402
import numpy_baseline as NB  # noqa: E402

from ascend_jax.profile import load_profile  # noqa: E402


def memcpy_bandwidth(nbytes=256 << 20, reps=5):
    """bytes/s of np.copyto on a buffer far larger than the caches (best of ``reps``)."""
    a = np.ones(nbytes, np.uint8)
    b = np.empty_like(a)
    best = 0.0
    for _ in range(reps):
        t = time.perf_counter()
        np.copyto(b, a)
        best = max(best, nbytes / (time.perf_counter() - t))
    return best


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak_rss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


NP_SAMPLE = 1024  # cases per signature and round the NumPy baseline runs (its cost is per case)
_PROGRAMS = {}


def program(sig, c0, p, n, size):
    """The jitted program of a signature for ``n`` cases of ``size`` UB bytes (one per shape)."""
    key = (sig.name, n, size)
    if key not in _PROGRAMS:
        _PROGRAMS[key] = mix.FastProgram(sig, c0, p)
    return _PROGRAMS[key]


def sub_batch(sig, batch):
    return max(1, round(batch * sig.weight))


class Pool:
    """Fault-free cases of one signature with their initial UBs (arena-sized)."""

    def __init__(self, sig, kw, p, n, rng):
        self.sig, self.kw, self.p = sig, kw, p
        self.cases, self.ubs = [], []
        self.filtered = 0
        # the mix is fault-free: drop the cases the model flags, probing with the program of the
        # arena / batch-1k configuration (so the probe costs no extra compilation)
        m = sub_batch(sig, 1024)
        prog = None
        while len(self.cases) < n:
            cand = mix.draw_cases(sig, kw, max(m, n - len(self.cases)), rng, p)
            ubs = [mix.initial_ub(sig, c) for c in cand]
            if prog is None:
                prog = program(sig, cand[0], p, m, sig.arena)
            for k in range(0, len(cand), m):
                cs, us = cand[k : k + m], ubs[k : k + m]
                pad = m - len(cs)
                st, dyn = prog.inputs(cs + [cs[0]] * pad, us + [us[0]] * pad, sig.arena)
                t = time.perf_counter()
                out, _ = prog(st, dyn)
                if k == 0 and not hasattr(self, "compile_s"):
                    jax.block_until_ready(out.ub)
                    self.compile_s = time.perf_counter() - t
                fault = np.asarray(out.fault)[: len(cs)]
                for c, u, f in zip(cs, us, fault, strict=True):
                    if f == 0 and len(self.cases) < n:
                        self.cases.append(c)
                        self.ubs.append(u)
                    elif f:
                        self.filtered += 1

    def take(self, n):
        """``n`` cases (cycling through the pool) and their arena-sized initial UBs."""
        idx = [i % len(self.cases) for i in range(n)]
        return [self.cases[i] for i in idx], [self.ubs[i] for i in idx]


def run_config(pools, p, batch, ub_mode, rounds, check, oracle_sample, log):
    """One (UB mode, batch size) configuration over every signature; returns its result dict."""
    full = p.ub_usable_bytes
    per_sig = {}
    rss0 = rss_bytes()
    peak0 = peak_rss_bytes()
    jobs = []
    for pool in pools:
        sig = pool.sig
        n = sub_batch(sig, batch)
        size = full if ub_mode == "full" else sig.arena
        cs, ubs = pool.take(n)
        prog = program(sig, cs[0], p, n, size)
        cached = prog.traces > 0
        t = time.perf_counter()
        st, dyn = prog.inputs(cs, ubs, size)
        jax.block_until_ready(st.ub)
        t_in = time.perf_counter() - t
        t = time.perf_counter()
        out, rs = prog(st, dyn)
        jax.block_until_ready(out.ub)
        compile_s = time.perf_counter() - t
        st = out  # the input state was donated: the rounds chain the states
        # correctness on the benchmark cases: fast path == NumPy baseline, UB bytes and rsvdCnt
        mism = 0
        if check:
            ub_f = np.asarray(out.ub)
            fault = np.asarray(out.fault)
            rs_f = None if rs is None else np.asarray(rs)
            for i, c in enumerate(cs):
                u = mix.pad_ub(ubs[i], size).copy()
                r = NB.run_case(c, u, p)
                same = fault[i] == 0 and np.array_equal(u, ub_f[i])
                if rs_f is not None and r is not None:
                    same = same and r == int(rs_f[i])
                mism += not same
        # a second call with other cases of the same shape must not retrace
        cs2, ubs2 = pool.take(n)
        cs2, ubs2 = cs2[::-1], ubs2[::-1]
        st2, dyn2 = prog.inputs(cs2, ubs2, size)
        jax.block_until_ready(prog(st2, dyn2)[0].ub)
        touched = float(np.mean([mix.touched_bytes(sig, c, p) for c in cs]))
        jobs.append((sig, prog, st, dyn, cs, ubs, n))
        per_sig[sig.name] = {
            "cases_per_call": n,
            "ub_bytes_per_case": size,
            "compile_seconds": pool.compile_s if cached else compile_s,
            "input_build_seconds": t_in,
            "traces": prog.traces,
            "baseline_mismatches": mism,
            "bytes_touched_per_case": touched,
        }
    # interleaved rounds: all signatures on the fast path, then the same cases on NumPy (NumPy runs
    # one case at a time, so its per-case time is measured on at most NP_SAMPLE cases of the batch)
    work = []
    for sig, _, _, _, _, ubs, _ in jobs:
        size = per_sig[sig.name]["ub_bytes_per_case"]
        work.append([mix.pad_ub(u, size).copy() for u in ubs[:NP_SAMPLE]])
    fast_t = {s.name: [] for s, *_ in jobs}
    np_t = {s.name: [] for s, *_ in jobs}
    ratios = []
    states = [j[2] for j in jobs]
    for _ in range(rounds):
        tf = tn = 0.0
        for k, ((sig, prog, _, dyn, cs, _, n), w) in enumerate(zip(jobs, work, strict=True)):
            t = time.perf_counter()
            states[k] = prog(states[k], dyn)[0]
            jax.block_until_ready(states[k].ub)
            dt = (time.perf_counter() - t) / n
            fast_t[sig.name].append(dt)
            tf += sig.weight * dt
            t = time.perf_counter()
            for c, u in zip(cs, w, strict=False):
                NB.run_case(c, u, p)
            dt = (time.perf_counter() - t) / len(w)
            np_t[sig.name].append(dt)
            tn += sig.weight * dt
        ratios.append(tn / tf)
    peak = peak_rss_bytes()
    # the oracle on a small sample of the same cases
    t_or = 0.0
    for sig, _, _, _, cs, ubs, _ in jobs:
        k = min(oracle_sample, len(cs))
        t = time.perf_counter()
        for c, u in zip(cs[:k], ubs[:k], strict=True):
            mix.run_oracle(sig, c, u, p)
        t_or += sig.weight * (time.perf_counter() - t) / k
    wsum = sum(s.weight for s, *_ in jobs)
    fast_case = sum(s.weight * statistics.median(fast_t[s.name]) for s, *_ in jobs) / wsum
    np_case = sum(s.weight * statistics.median(np_t[s.name]) for s, *_ in jobs) / wsum
    for s, *_ in jobs:
        per_sig[s.name]["ascend_jax_cases_per_s"] = 1 / statistics.median(fast_t[s.name])
        per_sig[s.name]["numpy_cases_per_s"] = 1 / statistics.median(np_t[s.name])
    touched = sum(s.weight * per_sig[s.name]["bytes_touched_per_case"] for s, *_ in jobs) / wsum
    n_total = sum(j[-1] for j in jobs)
    res = {
        "batch": batch,
        "ub_mode": ub_mode,
        "cases_per_round": n_total,
        "ascend_jax_cases_per_s": 1 / fast_case,
        "numpy_cases_per_s": 1 / np_case,
        "oracle_cases_per_s": wsum / t_or,
        "ratio_vs_numpy_median": statistics.median(ratios),
        "ratio_vs_numpy_rounds": ratios,
        "ratio_vs_oracle": (wsum / t_or and (1 / fast_case) / (wsum / t_or)),
        "compile_seconds_max": max(v["compile_seconds"] for v in per_sig.values()),
        "compile_seconds_total": sum(v["compile_seconds"] for v in per_sig.values()),
        "traces_max_per_signature": max(v["traces"] for v in per_sig.values()),
        "baseline_mismatches": sum(v["baseline_mismatches"] for v in per_sig.values()),
        "bytes_touched_per_case": touched,
        "ub_bytes_per_case_mean": sum(s.weight * per_sig[s.name]["ub_bytes_per_case"] for s, *_ in jobs)
        / wsum,
        "peak_rss_growth_per_case_bytes": max(0, peak - max(peak0, rss0)) / n_total,
        "signatures": per_sig,
    }
    log(
        f"{ub_mode:5} batch {batch:6}: ascend_jax {res['ascend_jax_cases_per_s']:10,.0f}/s  numpy "
        f"{res['numpy_cases_per_s']:8,.0f}/s  oracle {res['oracle_cases_per_s']:6,.0f}/s  ratio "
        f"{res['ratio_vs_numpy_median']:6.2f} (rounds {', '.join(f'{r:.2f}' for r in ratios)})  compile max "
        f"{res['compile_seconds_max']:.1f}s  traces {res['traces_max_per_signature']}  mismatches "
        f"{res['baseline_mismatches']}  peak RSS/case {res['peak_rss_growth_per_case_bytes'] / 1024:,.0f} KiB"
    )
    return res


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default="ascend910b")
    ap.add_argument("--quick", action="store_true", help="batch 1k only, smaller pools, < 60 s")
    ap.add_argument(
        "--cache",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="persistent XLA compilation cache in .jax_cache (default: on with --quick, off otherwise, "
        "so that the full run reports true compile times)",
    )
    ap.add_argument("--json")
    ap.add_argument("--batches", help="comma-separated batch sizes (overrides the default)")
    ap.add_argument("--modes", default="arena,full", help="UB modes to run (arena, full)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    t_start = time.perf_counter()
    p = load_profile(args.profile)
    log = lambda s: print(s, flush=True)  # noqa: E731
    batches = [1024] if args.quick else [1, 1024, 16384]
    cache = args.quick if args.cache is None else args.cache
    if cache:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        jax.config.update("jax_compilation_cache_dir", os.path.join(root, ".jax_cache"))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    if args.batches:
        batches = [int(x) for x in args.batches.split(",")]
    modes = args.modes.split(",")
    rounds = max(5, args.rounds)
    bw = memcpy_bandwidth()
    log(
        f"profile {p.name}; memcpy bandwidth {bw / 1e9:.2f} GB/s; jax {jax.__version__} on {jax.default_backend()}"
    )
    rng = np.random.default_rng(args.seed)
    pool_n = 128 if args.quick else 512
    pools = [Pool(sig, kw, p, pool_n, rng) for sig, kw in mix.signatures()]
    log(
        f"mix: {len(pools)} signatures, {pool_n} fault-free cases each "
        f"({sum(pl.filtered for pl in pools)} faulting candidates dropped); setup "
        f"{time.perf_counter() - t_start:.1f}s"
    )
    results = {m: {} for m in modes}
    for m in modes:
        for b in batches:
            check = b <= 1024
            results[m][str(b)] = run_config(pools, p, b, m, rounds, check, 2 if args.quick else 8, log)
    big = str(max(batches))
    out = {
        "profile": p.name,
        "quick": args.quick,
        "compilation_cache": bool(cache),
        "backend": jax.default_backend(),
        "cpu_count": os.cpu_count(),
        "memcpy_bytes_per_s": bw,
        "mix": {pl.sig.name: {"weight": pl.sig.weight, "arena_bytes": pl.sig.arena} for pl in pools},
        "results": results,
        "ratio_vs_numpy_standard_mix": results.get("arena", {}).get(big, {}).get("ratio_vs_numpy_median"),
        "ratio_vs_numpy_full_ub": results.get("full", {}).get(big, {}).get("ratio_vs_numpy_median"),
        "ratio_batch": int(big),
        "compile_seconds_per_signature_max": max(
            r["compile_seconds_max"] for m in modes for r in results[m].values()
        ),
        "traces_per_signature_max": max(
            r["traces_max_per_signature"] for m in modes for r in results[m].values()
        ),
        "baseline_mismatches": sum(r["baseline_mismatches"] for m in modes for r in results[m].values()),
        "wall_seconds": time.perf_counter() - t_start,
    }
    for m in modes:
        r = results[m][big]
        limit = bw / r["bytes_touched_per_case"]
        r["bandwidth_limit_cases_per_s"] = limit
        r["fraction_of_bandwidth_limit"] = r["ascend_jax_cases_per_s"] / limit
        log(
            f"{m:5} batch {big}: {r['bytes_touched_per_case'] / 1024:.1f} KiB touched per case -> bandwidth "
            f"limit {limit:,.0f} cases/s; ascend_jax reaches {100 * r['fraction_of_bandwidth_limit']:.2f} %"
        )
    log(
        f"ratio_vs_numpy_standard_mix (batch {big}, arena UB) = {out['ratio_vs_numpy_standard_mix']}; "
        f"full UB {out['ratio_vs_numpy_full_ub']}; wall {out['wall_seconds']:.0f}s"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
    return out


if __name__ == "__main__":
    main()
