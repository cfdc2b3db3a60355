"""The floor under ``kernel_fraction_of_stream_limit``: the bare math of three ``ops/`` kernels in
JAX (no UB, no masks, no fault checks), called as ``make bench`` calls a kernel (NumPy in, NumPy
out, the whole batch one program), against the memcpy bandwidth measured in the same run.

    python benchmarks/floor.py [--json out.json]

Inputs are 64-byte aligned (JAX on CPU reads them in place, as ``jit_kernel``'s staged inputs);
the fraction is (GM bytes in + out per case) x cases/s / memcpy bytes/s. See benchmarks/README.md
"The floor".
"""

import argparse
import json
import os
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernels import memcpy_bandwidth  # noqa: E402  (the same measurement as make bench)


def aligned(x):
    """A copy of ``x`` whose data start on a 64-byte boundary."""
    buf = np.empty(x.nbytes + 64, np.uint8)
    off = (-buf.ctypes.data) % 64
    out = buf[off : off + x.nbytes].view(x.dtype).reshape(x.shape)
    out[...] = x
    return out


def _select(a, b, sel):
    bits = jnp.unpackbits(sel, axis=-1, bitorder="little").astype(bool)
    return jnp.where(bits, a, b)


BARE_OF_OP = {"relu": "relu", "muls_sample": "muls", "select_sample": "select"}  # ops/ kernel -> bare program


def bare_case(name, n, batch, dtype=np.float32, seed=0):
    """(jitted bare program, its 64-byte aligned NumPy arguments, GM bytes in + out per case) of
    ``name`` ("relu", "muls", "select") on ``batch`` cases of ``n`` elements of ``dtype``."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)

    def values():
        if dt.kind == "f":
            return aligned(rng.standard_normal((batch, n)).astype(dt))
        info = np.iinfo(dt)
        return aligned(rng.integers(info.min, info.max, (batch, n), dtype=dt, endpoint=True))

    x = values()
    three = np.asarray(3, dt)
    if name == "relu":
        return jax.jit(lambda a: jnp.where(a > 0, a, jnp.zeros((), dt))), (x,), 2 * n * dt.itemsize
    if name == "muls":
        return jax.jit(lambda a: a * three), (x,), 2 * n * dt.itemsize
    if name == "select":
        y = values()
        m = aligned(rng.integers(0, 256, (batch, n // 8), dtype=np.uint8))
        return jax.jit(_select), (x, y, m), 3 * n * dt.itemsize + n // 8
    raise ValueError(name)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    bw = memcpy_bandwidth()
    out = {"memcpy_bytes_per_s": bw, "results": {}}
    print(f"memcpy {bw / 1e9:.1f} GB/s; jax {jax.__version__} on {jax.default_backend()}")
    for n, batch in ((256, 16384), (4096, 4096)):
        for name in ("relu", "muls", "select"):
            f, fargs, gm_bytes = bare_case(name, n, batch)
            np.asarray(f(*fargs))
            ts = []
            for _ in range(args.rounds):
                t = time.perf_counter()
                np.asarray(f(*fargs))
                ts.append(time.perf_counter() - t)
            us = statistics.median(ts) / batch * 1e6
            frac = gm_bytes / (us * 1e-6) / bw
            out["results"].setdefault(name, {})[str(n)] = {
                "batch": batch,
                "us_per_case": us,
                "fraction": frac,
            }
            print(
                f"N = {n:5}, B = {batch:6}: bare JAX {name:7} {us:8.3f} us per case, fraction of stream {frac:.2f}"
            )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
