"""Scale-out throughput (issue 19): cases/s on 1, 2 and 4 CPU devices, each in its own subprocess
(``XLA_FLAGS=--xla_force_host_platform_device_count=D`` must be set before jax is imported).

    python benchmarks/sharding.py [--quick] [--devices 1,2,4] [--json out.json]

Per device count D:
- ``kernel``: ``ops/select_sample`` (Select selMode 2, 256 float, DataCopy in/out) through
  ``aj.jit_kernel(..., sharding="all")`` (D = 1: unsharded) on a batch of B cases, host NumPy in and
  out as a user calls it; the median of several rounds after a compile round. Checked bit for bit
  against the unsharded run's GM on the first round.
- ``fuzz``: ``fuzz.run(devices=D)`` over GatherMask float32 cases (batch 256) with a small oracle share:
  the fast path's steady-state cases/s (``FuzzResult.fast_cases_per_s``) and the whole campaign's
  cases/s (fast path, oracle sample and compilation together).

On a machine with C cores, D CPU "devices" are D XLA thread pools over the same C cores: beyond
D = C no speed-up is expected (GPU devices or several hosts are where the scale-out pays).
"""

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_CHILD = r"""
import json, statistics, sys, time
import numpy as np
import jax
import ascend_jax as aj
from ascend_jax import fuzz
from ops import select_sample as S

B, ROUNDS, CASES = {B}, {ROUNDS}, {CASES}
D = len(jax.local_devices())
rng = np.random.default_rng(0)
inputs, params = S.gen_data(rng, B, 2, "count", "float32", 256)
gm = [inputs[k] for k in S.GM]
k = S.kernel(2, "count", "float32", 256)
base = aj.jit_kernel(k)(*gm, **params)
run = aj.jit_kernel(k, sharding="all" if D > 1 else None)
t = time.perf_counter()
res = run(*gm, **params)
compile_s = time.perf_counter() - t
same = all(np.array_equal(np.asarray(a).view(np.uint8), np.asarray(b).view(np.uint8)) for a, b in zip(base.gm, res.gm))
times = []
for _ in range(ROUNDS):
    t = time.perf_counter()
    run(*gm, **params)
    times.append(time.perf_counter() - t)
kernel_cps = B / statistics.median(times)
t = time.perf_counter()
r = fuzz.run(apis="GatherMask", dtypes="float32", cases=CASES, seed=1, batch=256, oracle_sample=0.02,
             invalid_rate=0.0, devices=D if D > 1 else None, progress=False, shrink=False)
wall = time.perf_counter() - t
print(json.dumps({{"devices": D, "kernel_cases_per_s": kernel_cps, "kernel_same_bits": same,
    "kernel_first_call_s": compile_s, "fuzz_fast_cases_per_s": r.fast_cases_per_s,
    "fuzz_cases_per_s": CASES / wall, "fuzz_mismatches": len(r.mismatches), "cores": len(__import__("os").sched_getaffinity(0))}}))
"""


def measure(devices, b, rounds, cases):
    env = dict(os.environ)
    env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    code = _CHILD.format(B=b, ROUNDS=rounds, CASES=cases)
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
    if p.returncode:
        raise SystemExit(f"D={devices}: {p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller batch and campaign")
    ap.add_argument("--devices", default="1,2,4", help="device counts to measure (default 1,2,4)")
    ap.add_argument("--json", default=None, help="write the results here")
    a = ap.parse_args(argv)
    b, rounds, cases = (4096, 3, 4096) if a.quick else (16384, 5, 32768)
    print(
        f"scale-out on CPU devices ({len(os.sched_getaffinity(0))} cores, load average "
        f"{os.getloadavg()[0]:.1f} at start): select_sample kernel batch {b}, fuzz GatherMask {cases} cases"
    )
    print(
        f"{'devices':>7}  {'kernel cases/s':>14}  {'x':>5}  {'fuzz fast cases/s':>17}  {'x':>5}  {'fuzz overall':>12}"
    )
    rows = []
    for d in a.devices.split(","):
        rows.append(measure(int(d), b, rounds, cases))
        r, one = rows[-1], rows[0]
        kx = r["kernel_cases_per_s"] / one["kernel_cases_per_s"]
        f1, fr = one["fuzz_fast_cases_per_s"], r["fuzz_fast_cases_per_s"]
        fx = f"{fr / f1:5.2f}" if f1 and fr else "    -"
        print(
            f"{r['devices']:>7}  {r['kernel_cases_per_s']:>14,.0f}  {kx:5.2f}  {fr or 0:>17,.0f}  {fx}  "
            f"{r['fuzz_cases_per_s']:>12,.0f}" + ("" if r["kernel_same_bits"] else "  GM BITS DIFFER"),
            flush=True,
        )
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"batch": b, "fuzz_cases": cases, "results": rows}, f, indent=1)
    return 0 if all(r["kernel_same_bits"] and not r["fuzz_mismatches"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
