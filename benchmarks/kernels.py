"""The main job at speed: every kernel in ``ops/`` batched through ``aj.jit_kernel`` against its NumPy
golden, one case at a time and batched. See benchmarks/README.md.

    python benchmarks/kernels.py [--quick] [--json out.json] [--profile ascend910b] [--no-mix]

Per op (its first configuration), size N (elements per GM buffer: 256 and 4,096 where the op takes a
``dataSize``; ops with a fixed size run at that size once) and batch B (1, 1,024 and 16,384; N = 4,096
stops at ``--large-batch``, default 4,096, to bound memory): interleaved rounds (>= 5) of the
ascend_jax program on the whole batch (host NumPy in, NumPy out, as a user calls it), the golden one
case at a time (on a sample of at most 64 cases) and the golden batched (on at most 4,096 cases of
the batch: its cost is linear in the cases); medians. The
kernel's results are checked against the golden on the first round. Reported: cases/s, ratios, GM
bytes per case (every GM buffer in, the written ones out) against the memcpy bandwidth measured in
the same run (fraction of the streaming limit), compile seconds and traces per signature, peak RSS
growth per case next to the case's UB arena. Then the standard API mix (benchmarks/run.py, arena UB,
batch 1k) for ``api_mix_ratio_vs_numpy``.

JSON keys (stable): kernel_ratio_vs_numpy_per_case (geomean over ops, B = 16k, N = 256),
kernel_ratio_vs_numpy_per_case_large (N = 4,096, largest batch run), kernel_ratio_vs_numpy_batched
(geomean, B = 16k, N = 256), kernel_fraction_of_stream_limit (geomean, B = 16k, N = 256),
kernel_fraction_of_bare_math (the model's per-case time over benchmarks/floor.py's bare JAX program
of the same op, dtype and size, timed in the same interleaved rounds; geomean of relu, muls_sample
and select_sample at N = 256, B = 16k and N = 4,096, B = --large-batch),
api_mix_ratio_vs_numpy, compile_seconds_per_signature_max, traces_per_signature_max,
memcpy_bytes_per_s, results[op][N][B]; kernel_ratio_vs_lean_numpy (select_sample at N = 2,048 against
ops/lean.py, the op written plainly in NumPy one case at a time), kernel_ratio_vs_lean_numpy_geomean
(every op, B = 16k, N = 256), lean_numpy_mismatches; demo_cold_seconds (``ascend-jax demo`` in a
subprocess with an empty XLA cache); hazards_seconds_100k_calls (benchmarks/hazards.py: the race
and sync checks of a 10^5-call 8-core log).
"""

import argparse
import inspect
import json
import math
import os
import resource
import statistics
import sys
import time

import jax
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ascend_jax as aj  # noqa: E402
import ops  # noqa: E402
from ops import _golden as G  # noqa: E402
from ops import lean as L  # noqa: E402

GM_ORDER = ("src0", "src1", "sel", "src", "dst")  # every op's GM argument order
NP_SAMPLE = 64
LEAN_TARGET = ("select_sample", 2048)  # kernel_ratio_vs_lean_numpy: this op at this N
NP_BATCH_MAX = 4096  # the batched golden runs on at most this many cases of a batch per round


def memcpy_bandwidth(nbytes=128 << 20, reps=5):
    """bytes/s of np.copyto between two buffers far larger than the caches (pages touched first)."""
    a = np.ones(nbytes, np.uint8)
    b = np.zeros_like(a)
    best = 0.0
    for _ in range(reps):
        t = time.perf_counter()
        np.copyto(b, a)
        best = max(best, nbytes / (time.perf_counter() - t))
    return best


def peak_rss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _call(fn, **kw):
    names = inspect.signature(fn).parameters
    return fn(**{k: v for k, v in kw.items() if k in names})


def sizable(mod):
    return "dataSize" in inspect.signature(mod.gen_data).parameters


class OpBench:
    """One op configuration at one size: data generation, golden, compiled kernel."""

    def __init__(self, name, mod, config, n, profile):
        self.name, self.mod, self.config, self.p = name, mod, config, profile
        self.kw = dict(config, dataSize=n) if n is not None else dict(config)
        self.traces = 0
        kern = _call(mod.kernel, **self.kw)

        def counted(k, *gm, **params):
            self.traces += 1
            return kern(k, *gm, **params)

        self.run = aj.jit_kernel(counted, profile=profile)

    def data(self, rng, batch):
        inputs, params = _call(self.mod.gen_data, rng=rng, batch=batch, profile=self.p, **self.kw)
        gm = [inputs[k] for k in GM_ORDER if k in inputs]
        return inputs, params, gm

    def golden(self, inputs, params):
        res = _call(self.mod.golden, inputs=inputs, params=params, profile=self.p, **self.kw)
        return res if isinstance(res, tuple) else (res, None)

    def lean(self, inputs, params):
        """ops/lean.py: the op as a user writes it in NumPy, one case at a time (None: not modelled
        on this profile)."""
        try:
            return _call(L.LEAN[self.name], inputs=inputs, params=params, profile=self.p, **self.kw)
        except NotImplementedError:
            return None


def _slice(d, i, j):
    return {k: v[i:j] for k, v in d.items()}


def bench_one(ob, batch, rounds, rng, log):
    inputs, params, gm = ob.data(rng, batch)
    n_elems = gm[-1].shape[1]
    gm_bytes = sum(a[0].nbytes for a in gm) + gm[-1][0].nbytes  # all in, dst out
    peak0 = peak_rss_bytes()
    traces0 = ob.traces
    t = time.perf_counter()
    res = ob.run(*gm, **params)
    first = time.perf_counter() - t
    ob.run(*gm, **params)  # same shapes: must not trace again
    traces = ob.traces - traces0
    want, cnt = ob.golden(inputs, params)
    ok = np.array_equal(G.bits(np.asarray(res.gm[-1])), np.asarray(want).astype(G.bits(res.gm[-1]).dtype))
    if cnt is not None:
        ok = ok and np.array_equal(np.asarray(res.out), cnt)
    k = min(batch, NP_SAMPLE)
    one_at_a_time = [(_slice(inputs, i, i + 1), _slice(params, i, i + 1)) for i in range(k)]
    kb = min(batch, NP_BATCH_MAX)  # the batched golden's cost is linear in the cases: time a slice
    batched_in, batched_prm = _slice(inputs, 0, kb), _slice(params, 0, kb)
    lean_in, lean_prm = _slice(inputs, 0, k), _slice(params, 0, k)  # the lean loop runs per case
    lean_res = ob.lean(lean_in, lean_prm)
    lean_ok = None
    if lean_res is not None:
        lw, lc = ob.golden(lean_in, lean_prm)
        lean_ok = np.array_equal(lean_res[0], G.bits(np.asarray(lw))) and (
            lc is None or np.array_equal(lean_res[1], lc)
        )
    bare = _bare_program(ob.name, n_elems, batch, gm[-1].dtype)
    fast_t, np1_t, npb_t, lean_t, bare_t = [], [], [], [], []
    for _ in range(rounds):
        t = time.perf_counter()
        ob.run(*gm, **params)
        fast_t.append((time.perf_counter() - t) / batch)
        if bare is not None:  # floor.py's bare math of the same op and size, interleaved
            f, fargs = bare
            t = time.perf_counter()
            np.asarray(f(*fargs))
            bare_t.append((time.perf_counter() - t) / batch)
        t = time.perf_counter()
        for inp, prm in one_at_a_time:
            ob.golden(inp, prm)
        np1_t.append((time.perf_counter() - t) / k)
        t = time.perf_counter()
        ob.golden(batched_in, batched_prm)
        npb_t.append((time.perf_counter() - t) / kb)
        if lean_res is not None:
            t = time.perf_counter()
            ob.lean(lean_in, lean_prm)
            lean_t.append((time.perf_counter() - t) / k)
    peak = peak_rss_bytes()
    fast = statistics.median(fast_t)
    r = {
        "n": n_elems,
        "batch": batch,
        "correct": bool(ok),
        "ascend_jax_cases_per_s": 1 / fast,
        "numpy_per_case_cases_per_s": 1 / statistics.median(np1_t),
        "numpy_batched_cases_per_s": 1 / statistics.median(npb_t),
        "ratio_vs_numpy_per_case": statistics.median([a / b for a, b in zip(np1_t, fast_t, strict=True)]),
        "ratio_vs_numpy_batched": statistics.median([a / b for a, b in zip(npb_t, fast_t, strict=True)]),
        "numpy_lean_cases_per_s": 1 / statistics.median(lean_t) if lean_t else None,
        "ratio_vs_lean_numpy": statistics.median([a / b for a, b in zip(lean_t, fast_t, strict=True)])
        if lean_t
        else None,
        "lean_correct": lean_ok,
        "compile_seconds": max(0.0, first - fast * batch),
        "traces": traces,
        "gm_bytes_per_case": gm_bytes,
        "peak_rss_growth_per_case_bytes": max(0, peak - peak0) / batch,
    }
    if bare_t:
        r["bare_math_us_per_case"] = statistics.median(bare_t) * 1e6
        r["fraction_of_bare_math"] = statistics.median([a / b for a, b in zip(fast_t, bare_t, strict=True)])
    log(
        f"{ob.name:24} N={n_elems:5} B={batch:6}: {r['ascend_jax_cases_per_s']:11,.0f}/s  numpy 1-by-1 "
        f"{r['numpy_per_case_cases_per_s']:9,.0f}/s  batched {r['numpy_batched_cases_per_s']:10,.0f}/s  "
        f"ratio {r['ratio_vs_numpy_per_case']:6.2f} / {r['ratio_vs_numpy_batched']:5.2f}  lean "
        f"{_fmt(r['numpy_lean_cases_per_s'], '9,.0f')}/s ratio {_fmt(r['ratio_vs_lean_numpy'], '6.2f')}  "
        f"compile {r['compile_seconds']:.1f}s  traces {traces}  {'ok' if ok else 'MISMATCH'}"
        + ("" if lean_ok is not False else "  LEAN MISMATCH")
        + (f"  x{r['fraction_of_bare_math']:.1f} bare math" if bare_t else "")
    )
    return r


def _fmt(x, spec):
    return "-" if x is None else format(x, spec)


def _bare_program(name, n, batch, dtype):
    """floor.py's bare JAX program of op ``name`` at ``n`` elements of ``dtype`` (compiled, run once),
    with its arguments; None for an op without one (floor.BARE_OF_OP) or at B = 1."""
    import floor

    if name not in floor.BARE_OF_OP or batch < 2:
        return None
    f, fargs, _ = floor.bare_case(floor.BARE_OF_OP[name], n, batch, dtype)
    np.asarray(f(*fargs))
    return f, fargs


def bench_multicore(log, batch=256, rounds=5):
    """vendor_add as the sample launches it: 8 cores (block_dim=8) x 2,048 floats, ``batch`` cases
    in one program, against NumPy per case and batched (x + y). The call-log analysis runs at
    trace time, so it is inside the compile time, not the per-case time."""
    from ops import vendor_add

    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, vendor_add.TOTAL_LENGTH)).astype(np.float32)
    y = rng.standard_normal((batch, vendor_add.TOTAL_LENGTH)).astype(np.float32)
    z = np.zeros_like(x)
    run = aj.jit_kernel(vendor_add.add_custom, block_dim=vendor_add.NUM_BLOCKS)
    t = time.perf_counter()
    res = run(x, y, z)
    compile_s = time.perf_counter() - t
    correct = np.array_equal(res.gm[2].view(np.uint32), (x + y).view(np.uint32)) and not res.findings
    fast, np1, npb = [], [], []
    for _ in range(rounds):
        t = time.perf_counter()
        jax.block_until_ready(run(x, y, z).gm[2])
        fast.append(time.perf_counter() - t)
        t = time.perf_counter()
        for b in range(batch):
            _ = x[b] + y[b]
        np1.append(time.perf_counter() - t)
        t = time.perf_counter()
        _ = x + y
        npb.append(time.perf_counter() - t)
    f, a, b = statistics.median(fast), statistics.median(np1), statistics.median(npb)
    r = {
        "multicore_vendor_add_cases_per_s": batch / f,
        "multicore_vendor_add_ratio_vs_numpy_per_case": a / f,
        "multicore_vendor_add_ratio_vs_numpy_batched": b / f,
        "multicore_vendor_add_compile_seconds": compile_s,
        "multicore_vendor_add_correct": bool(correct),
    }
    log(
        f"vendor_add 8 cores B={batch}: {r['multicore_vendor_add_cases_per_s']:,.0f} cases/s, ratio "
        f"{a / f:.2f} per case / {b / f:.2f} batched, compile {compile_s:.2f} s, correct {correct}"
    )
    return r


def lean_target(results, large_b):
    """``ratio_vs_lean_numpy`` of LEAN_TARGET's op at its N, the largest batch run there."""
    per = results.get(LEAN_TARGET[0], {}).get(str(LEAN_TARGET[1]), {})
    r = per.get(large_b) or (per[max(per, key=int)] if per else None)
    return r["ratio_vs_lean_numpy"] if r else None


def bench_demo_cold(log):
    """``ascend-jax demo`` as a new user first runs it (``make demo`` after the install): a fresh
    process with an empty XLA compilation cache (a temporary ``$ASCEND_JAX_XLA_CACHE``); wall
    seconds, and whether it exited 0."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench_demo_") as tmp:
        env = dict(os.environ, ASCEND_JAX_XLA_CACHE=os.path.join(tmp, "xla"))
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        cmd = [
            sys.executable,
            "-m",
            "ascend_jax.cli",
            "demo",
            "--quiet",
            "--coverage-out",
            os.path.join(tmp, "c.txt"),
        ]
        t = time.perf_counter()
        proc = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True)
        wall = time.perf_counter() - t
    out = {"demo_cold_seconds": wall, "demo_cold_exit_code": proc.returncode}
    log(f"ascend-jax demo, cold (empty XLA cache): {wall:.1f} s, exit {proc.returncode}")
    if proc.returncode:
        log(proc.stdout[-2000:] + proc.stderr[-2000:])
    return out


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def bench_cxx(log, cases=10000):
    """``ascend-jax run add_tpipe_tque.asc --cases N`` (the vendor sample's own C++, 8 cores x 2,048
    floats): the C++ build time (cold: a fresh build cache), the model's compile time and the
    steady run's cases/s of the N + 1 cases in one program (the case files are not written here).
    The host's own case (random inputs of our own) is checked against x + y."""
    import tempfile

    from ascend_jax.cxx import run as cxx_run

    src = os.path.join(os.path.dirname(ROOT), "shared", "spec", "vendor-samples", "add_tpipe_tque")
    src = os.path.join(src, "add_tpipe_tque.asc")
    if not os.path.isfile(src):
        log(f"cxx: {src} not found; skipped")
        return {}
    with tempfile.TemporaryDirectory(prefix="bench_cxx_") as tmp:
        old = os.environ.get("ASCEND_JAX_CACHE")
        os.environ["ASCEND_JAX_CACHE"] = os.path.join(tmp, "cache")
        try:
            os.makedirs(os.path.join(tmp, "input"))
            rng = np.random.default_rng(0)
            x = rng.uniform(1, 100, 8 * 2048).astype(np.float32)
            y = rng.uniform(1, 100, 8 * 2048).astype(np.float32)
            x.tofile(os.path.join(tmp, "input", "input_x.bin"))
            y.tofile(os.path.join(tmp, "input", "input_y.bin"))
            t = time.perf_counter()
            r = cxx_run.run_cxx(
                src,
                input_dir=os.path.join(tmp, "input"),
                output_dir=os.path.join(tmp, "output"),
                cases=cases,
                write_cases=False,
            )
            wall = time.perf_counter() - t
            z = np.fromfile(os.path.join(tmp, "output", "output.bin"), np.float32)
        finally:
            if old is None:
                del os.environ["ASCEND_JAX_CACHE"]
            else:
                os.environ["ASCEND_JAX_CACHE"] = old
    (s,) = r["stats"]
    out = {
        "cxx_add_tpipe_tque_cases": s["cases"],
        "cxx_add_tpipe_tque_cases_per_s": s["cases_per_s"],
        "cxx_add_tpipe_tque_build_seconds": r["build"].seconds,
        "cxx_add_tpipe_tque_compile_seconds": s["compile_s"],
        "cxx_add_tpipe_tque_run_seconds": s["run_s"],
        "cxx_add_tpipe_tque_wall_seconds": wall,
        "cxx_add_tpipe_tque_correct": bool(np.array_equal(z.view(np.uint32), (x + y).view(np.uint32))),
    }
    log(
        f"cxx add_tpipe_tque.asc --cases {cases}: {out['cxx_add_tpipe_tque_cases_per_s']:,.0f} cases/s, "
        f"C++ build {out['cxx_add_tpipe_tque_build_seconds']:.2f} s, model compile "
        f"{out['cxx_add_tpipe_tque_compile_seconds']:.2f} s, wall {wall:.1f} s, correct "
        f"{out['cxx_add_tpipe_tque_correct']}"
    )
    return out


def bench_cxx_rolled(log, tiles=(4, 128, 4096), block_dims=(8, 48)):
    """The rolled back end (ascend_jax/cxx/rolled.py): ``cxx_tile_loop_compile_seconds_<T>`` --
    the model's first run of our own LeakyRelu tile loop (tests/data/cxx/tile_loop.asc, one core,
    T tiles of 8,192 floats; trace replay + compile + one run, the launch's ``first_s``) -- and
    ``cxx_tile_loop_compile_seconds_block_dim_<B>``: the same at 4 tiles on B cores (an SPMD
    launch). ``ASCEND_JAX_ROLLED=0`` gives the straight line."""
    import tempfile

    from ascend_jax.cxx import run as cxx_run

    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(os.path.dirname(here), "tests", "data", "cxx", "tile_loop.asc")
    out = {}
    with tempfile.TemporaryDirectory(prefix="bench_rolled_") as tmp:
        old = os.environ.get("ASCEND_JAX_CACHE")
        os.environ["ASCEND_JAX_CACHE"] = os.path.join(tmp, "cache")
        try:
            for t in tiles:
                r = cxx_run.run_cxx(
                    src,
                    defines=[f"TILES={t}"],
                    input_dir=os.path.join(tmp, "input"),
                    output_dir=os.path.join(tmp, "output"),
                )
                (s,) = r["stats"]
                out[f"cxx_tile_loop_compile_seconds_{t}"] = s["first_s"]
                out[f"cxx_tile_loop_calls_{t}"] = s["calls"]
                out[f"cxx_tile_loop_correct_{t}"] = r["returncode"] == 0 and " 0 of " in r["stdout"]
                log(
                    f"cxx tile_loop.asc TILES={t}: {s['calls']:,} calls, model {s['first_s']:.2f} s, "
                    f"rolled {s.get('rolled')}, host check {r['stdout'].strip()}"
                )
            for b in block_dims:
                r = cxx_run.run_cxx(
                    src,
                    defines=["TILES=4", f"BLOCKS={b}"],
                    input_dir=os.path.join(tmp, "input"),
                    output_dir=os.path.join(tmp, "output"),
                )
                (s,) = r["stats"]
                out[f"cxx_tile_loop_compile_seconds_block_dim_{b}"] = s["first_s"]
                log(
                    f"cxx tile_loop.asc TILES=4 BLOCKS={b}: {s['calls']:,} calls, model {s['first_s']:.2f} s, "
                    f"rolled {s.get('rolled')}, host check {r['stdout'].strip()}"
                )
        finally:
            if old is None:
                del os.environ["ASCEND_JAX_CACHE"]
            else:
                os.environ["ASCEND_JAX_CACHE"] = old
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default="ascend910b")
    ap.add_argument("--quick", action="store_true", help="fewer rounds' setup; same keys")
    ap.add_argument("--json")
    ap.add_argument("--batches", default="1,1024,16384")
    ap.add_argument("--large-batch", type=int, default=4096, help="largest batch at N = 4,096")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--ops", help="comma-separated op names (default: all)")
    ap.add_argument("--no-mix", action="store_true", help="skip the API mix (benchmarks/run.py)")
    ap.add_argument(
        "--no-demo", action="store_true", help="skip demo_cold_seconds (a cold `ascend-jax demo`)"
    )
    ap.add_argument("--no-cxx", action="store_true", help="skip the C++ front end (add_tpipe_tque.asc)")
    ap.add_argument("--cxx-cases", type=int, default=10000, help="--cases N of the C++ benchmark")
    ap.add_argument("--no-fuzz", action="store_true", help="skip the fuzz campaign (benchmarks/fuzz.py)")
    ap.add_argument("--no-hazards", action="store_true", help="skip the race checker at 10^5 calls")
    ap.add_argument("--fuzz-cases", type=int, default=30000, help="--cases N of the fuzz campaign")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    log = lambda s: print(s, flush=True)  # noqa: E731
    p = aj.load_profile(args.profile)
    bw = memcpy_bandwidth()
    load = os.getloadavg()[0]
    log(f"profile {p.name}; memcpy {bw / 1e9:.2f} GB/s; load average {load:.1f}; jax {jax.__version__}")
    batches = [int(b) for b in args.batches.split(",")]
    rounds = max(5, args.rounds)
    rng = np.random.default_rng(0)
    names = args.ops.split(",") if args.ops else list(ops.OPS)
    results = {}
    for name in names:
        mod = ops.OPS[name]
        config = mod.CONFIGS[0]
        sizes = (256, 4096) if sizable(mod) else (None,)
        if name == LEAN_TARGET[0]:
            sizes = (256, LEAN_TARGET[1], 4096)
        results[name] = {}
        for n in sizes:
            ob = OpBench(name, mod, config, n, p)
            per = {}
            for b in batches:
                if n is not None and n >= LEAN_TARGET[1] and b > args.large_batch:
                    b = args.large_batch
                    if str(b) in per:
                        continue
                per[str(b)] = bench_one(ob, b, rounds, rng, log)
            results[name][str(n if n is not None else per[str(batches[0])]["n"])] = per
    big = str(max(batches))

    def pick(n, b, key):
        out = []
        for per_n in results.values():
            r = per_n.get(str(n), {}).get(b) if n is not None else None
            if r is None and n == 256:  # fixed-size ops count at their own size
                r = next(iter(per_n.values())).get(b) if len(per_n) == 1 else None
            if r is not None:
                out.append(r[key])
        return out

    large_b = str(min(args.large_batch, max(batches)))
    for per_n in results.values():
        for per in per_n.values():
            for r in per.values():
                r["fraction_of_stream_limit"] = r["ascend_jax_cases_per_s"] * r["gm_bytes_per_case"] / bw
    every = [r for per_n in results.values() for per in per_n.values() for r in per.values()]
    out = {
        "profile": p.name,
        "backend": jax.default_backend(),
        "cpu_count": os.cpu_count(),
        "load_average_at_start": load,
        "memcpy_bytes_per_s": bw,
        "results": results,
        "kernel_ratio_vs_numpy_per_case": geomean(pick(256, big, "ratio_vs_numpy_per_case")),
        "kernel_ratio_vs_numpy_per_case_large": geomean(pick(4096, large_b, "ratio_vs_numpy_per_case")),
        "kernel_ratio_vs_numpy_batched": geomean(pick(256, big, "ratio_vs_numpy_batched")),
        "kernel_fraction_of_stream_limit": geomean(pick(256, big, "fraction_of_stream_limit")),
        # the model's per-case time over floor.py's bare JAX program of the same op and size (relu,
        # muls_sample, select_sample at N = 256, B = 16k and N = 4,096, B = --large-batch)
        "kernel_fraction_of_bare_math": geomean(
            [
                r["fraction_of_bare_math"]
                for n, b in ((256, big), (4096, large_b))
                for r in (
                    results.get(op, {}).get(str(n), {}).get(b)
                    for op in ("relu", "muls_sample", "select_sample")
                )
                if r is not None and "fraction_of_bare_math" in r
            ]
        ),
        "compile_seconds_per_signature_max": max(r["compile_seconds"] for r in every),
        "traces_per_signature_max": max(r["traces"] for r in every),
        "kernel_mismatches": sum(not r["correct"] for r in every),
        "kernel_ratio_vs_lean_numpy": lean_target(results, large_b),
        "kernel_ratio_vs_lean_numpy_geomean": geomean(
            [x for x in pick(256, big, "ratio_vs_lean_numpy") if x is not None]
        ),
        "lean_numpy_mismatches": sum(r.get("lean_correct") is False for r in every),
        "api_mix_ratio_vs_numpy": None,
    }
    out.update(bench_multicore(log))
    if not args.no_hazards:
        from hazards import bench_hazards

        out.update(bench_hazards(log))
    if not args.no_demo:
        out.update(bench_demo_cold(log))
    if not args.no_cxx:
        out.update(bench_cxx(log, args.cxx_cases))
        out.update(bench_cxx_rolled(log))
    if not args.no_fuzz:
        from fuzz import bench_fuzz

        out.update(bench_fuzz(log, args.fuzz_cases, profile=p.name))
    if not args.no_mix:
        import run as mixrun

        mix = mixrun.main(["--quick", "--modes", "arena"])
        out["api_mix_ratio_vs_numpy"] = mix["ratio_vs_numpy_standard_mix"]
    out["wall_seconds"] = time.perf_counter() - t0
    for key in (
        "kernel_ratio_vs_numpy_per_case",
        "kernel_ratio_vs_numpy_per_case_large",
        "kernel_ratio_vs_numpy_batched",
        "kernel_fraction_of_stream_limit",
        "kernel_fraction_of_bare_math",
        "api_mix_ratio_vs_numpy",
        "compile_seconds_per_signature_max",
        "traces_per_signature_max",
        "kernel_mismatches",
        "kernel_ratio_vs_lean_numpy",
        "kernel_ratio_vs_lean_numpy_geomean",
        "lean_numpy_mismatches",
        "demo_cold_seconds",
        "multicore_vendor_add_cases_per_s",
        "hazards_seconds_100k_calls",
        "cxx_add_tpipe_tque_cases_per_s",
        "cxx_add_tpipe_tque_build_seconds",
        "cxx_add_tpipe_tque_compile_seconds",
        "cxx_tile_loop_compile_seconds_4",
        "cxx_tile_loop_compile_seconds_128",
        "cxx_tile_loop_compile_seconds_4096",
        "cxx_tile_loop_compile_seconds_block_dim_8",
        "cxx_tile_loop_compile_seconds_block_dim_48",
        "fuzz_fast_path_cases_per_s",
        "fuzz_campaign_cases_per_s_oracle300",
    ):
        log(f"{key} = {out.get(key)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
    return out


if __name__ == "__main__":
    main()
