"""Synthetic call logs (``ascend_jax.hazards.CallLog``) for the race checker's property tests and
its benchmark: ``random_logs`` draws small logs with every kind of call the kernel layer records
(ops on UB and GM, flags, queue flags, barriers, ``SyncAll``, host boundaries, atomics, scalar GM
writes, traced and empty ranges); ``tile_loop_logs`` builds a realistic multi-core launch (a
double-buffered TQue tile loop, a hand-synced flag loop, ``SyncAll`` phases) of a given size."""

import numpy as np

from ..hazards import Access, CallLog
from ..sync import HardEvent, pipe_t

_P = pipe_t
_PIPES = (_P.PIPE_S, _P.PIPE_V, _P.PIPE_MTE2, _P.PIPE_MTE3)
_EVENTS = tuple(e for e in HardEvent if e.src in _PIPES and e.dst in _PIPES)


def _access(rng, traced_ok):
    """One access: UB or one of two GM buffers, on a small address range so that ranges overlap."""
    space = "UB" if rng.random() < 0.5 else ("GM", int(rng.integers(2)))
    start = int(rng.integers(0, 12)) * 16 + (8 if rng.random() < 0.1 else 0)
    length = int(rng.choice((0, 8, 16, 32, 48, 64, 128, 200))) if rng.random() < 0.95 else 0
    write = bool(rng.random() < 0.5)
    atomic = dtype = ""
    scalar = False
    if space != "UB" and write:
        u = rng.random()
        if u < 0.3:
            atomic = str(rng.choice(("add", "add", "add", "max", "min")))
            dtype = str(rng.choice(("float32", "float32", "half", "bfloat16", "int32")))
        elif u < 0.5:
            scalar = True
    a = Access(space, start, start + length, write, atomic, dtype, scalar)
    u = rng.random()
    if traced_ok and u < 0.06:  # a traced address: not a Python int (checked per case)
        return Access(space, np.int64(start), np.int64(start + length), write, atomic, dtype, scalar)
    if u < 0.08:
        return Access(space, None, None, write)
    return a


def random_logs(seed, cores=None, calls=None, traced=True):
    """A launch's logs (one ``CallLog`` per core) drawn from ``seed``: 1-4 cores, 0-40 calls each.
    The same ``SyncAll`` count is not forced on every core (epochs then differ)."""
    rng = np.random.default_rng(seed)
    ncores = int(rng.integers(1, 5)) if cores is None else cores
    logs = []
    for core in range(ncores):
        log = CallLog(core)
        n = int(rng.integers(0, 41)) if calls is None else calls
        ques = [
            ("que", 1000 + q, b, w, "VECIN") for q in range(2) for b in range(2) for w in ("fwd", "reuse")
        ]
        for _ in range(n):
            u = rng.random()
            if u < 0.55:
                p = _PIPES[int(rng.integers(len(_PIPES)))]
                acc = tuple(_access(rng, traced) for _ in range(int(rng.integers(0, 4))))
                log.add("Op", p, accesses=acc, source=f"gen.py:{len(log)}")
                if rng.random() < 0.1:
                    log.calls[-1].value = True
            elif u < 0.75:
                ev = _EVENTS[int(rng.integers(len(_EVENTS)))]
                key = (ev, int(rng.integers(2)))
                if rng.random() < 0.3:
                    key = (ques[int(rng.integers(len(ques)))], 0)
                    p = _PIPES[int(rng.integers(1, 4))]
                else:
                    p = None
                if rng.random() < 0.5:
                    log.add("SetFlag", p or ev.src, kind="set", event=key)
                else:
                    log.add("WaitFlag", p or ev.dst, kind="wait", event=key)
            elif u < 0.87:
                p = _PIPES[int(rng.integers(len(_PIPES)))] if rng.random() < 0.7 else _P.PIPE_ALL
                log.add("PipeBarrier", p, kind="barrier")
            elif u < 0.95:
                log.add("SyncAll", _P.PIPE_ALL, kind="syncall")
            else:
                log.add("host", _P.PIPE_ALL, kind="host")
        logs.append(log)
    return tuple(logs)


def tile_loop_logs(calls=100_000, cores=8, tile=2048):
    """A ``cores``-core launch of about ``calls`` calls in all, as a vector kernel makes it: per core,
    phase 1 a TQue double-buffered tile loop (CopyIn x and y on MTE2, EnQue / DeQue, Add on V,
    CopyOut on MTE3, FreeTensor; each core's own GM slice), ``SyncAll``, phase 2 a hand-synced
    loop (SetFlag/WaitFlag MTE2_V, V_MTE3, MTE3_MTE2 on ping-pong UB buffers, a scalar read of a
    workspace another core wrote in phase 1, at the end an atomic add into a shared accumulator).
    Race-free except the float atomic adds (a warning per pair of cores)."""
    per_core = max(calls // cores, 40)
    logs = []
    x_gm, y_gm, z_gm, ws_gm, acc_gm = (("GM", b) for b in range(5))
    n1 = per_core // 2 // 16  # tiles of phase 1 (16 calls each)
    n2 = (per_core - 16 * n1 - 3) // 9  # tiles of phase 2 (~9 calls each)
    span = tile * (n1 + n2 + 1)  # one core's GM slice
    for core in range(cores):
        log = CallLog(core)
        add = log.add
        base = core * span
        ub = {"x": (0, 2 * tile), "y": (2 * tile, 4 * tile), "z": (4 * tile, 6 * tile)}
        reused = set()
        src = "kernel.py"

        def que(api, kind, pipe, q, b, which, pos, add=add, src=src):
            add(api, pipe, kind=kind, event=(("que", q, b, which, pos), 0), source=src)

        for t in range(n1):
            b = t % 2
            off = base + t * tile
            ux, uy, uz = (ub[k][0] + b * tile for k in "xyz")
            for q, u, g in ((1, ux, x_gm), (2, uy, y_gm)):
                if (q, b) in reused:
                    que("AllocTensor", "wait", _P.PIPE_MTE2, q, b, "reuse", "VECIN")
                add(
                    "DataCopy",
                    _P.PIPE_MTE2,
                    accesses=(Access(g, off, off + tile, False), Access("UB", u, u + tile, True)),
                    source=src,
                )
                que("EnQue", "set", _P.PIPE_MTE2, q, b, "fwd", "VECIN")
            que("DeQue", "wait", _P.PIPE_V, 1, b, "fwd", "VECIN")
            que("DeQue", "wait", _P.PIPE_V, 2, b, "fwd", "VECIN")
            if (3, b) in reused:
                que("AllocTensor", "wait", _P.PIPE_V, 3, b, "reuse", "VECOUT")
            add(
                "Add",
                _P.PIPE_V,
                accesses=(
                    Access("UB", uz, uz + tile, True),
                    Access("UB", ux, ux + tile, False),
                    Access("UB", uy, uy + tile, False),
                ),
                source=src,
            )
            que("EnQue", "set", _P.PIPE_V, 3, b, "fwd", "VECOUT")
            que("FreeTensor", "set", _P.PIPE_V, 1, b, "reuse", "VECIN")
            que("FreeTensor", "set", _P.PIPE_V, 2, b, "reuse", "VECIN")
            que("DeQue", "wait", _P.PIPE_MTE3, 3, b, "fwd", "VECOUT")
            add(
                "DataCopy",
                _P.PIPE_MTE3,
                accesses=(Access("UB", uz, uz + tile, False), Access(z_gm, off, off + tile, True)),
                source=src,
            )
            que("FreeTensor", "set", _P.PIPE_MTE3, 3, b, "reuse", "VECOUT")
            reused |= {(1, b), (2, b), (3, b)}
        add(
            "DataCopy",
            _P.PIPE_MTE3,
            accesses=(Access("UB", 0, 64, False), Access(ws_gm, core * 64, core * 64 + 64, True)),
            source=src,
        )
        add("SyncAll", _P.PIPE_ALL, kind="syncall", source=src)
        other = (core + 1) % cores * 64
        add("GetValue", _P.PIPE_S, accesses=(Access(ws_gm, other, other + 4, False),), source=src)
        e_in, e_out, e_back = HardEvent.MTE2_V, HardEvent.V_MTE3, HardEvent.MTE3_MTE2
        for t in range(n2):
            b = t % 2
            off = base + (n1 + t) * tile
            ux, uz = ub["x"][0] + b * tile, ub["z"][0] + b * tile
            if t >= 2:
                add("WaitFlag", _P.PIPE_MTE2, kind="wait", event=(e_back, b), source=src)
            add(
                "DataCopy",
                _P.PIPE_MTE2,
                accesses=(Access(x_gm, off, off + tile, False), Access("UB", ux, ux + tile, True)),
                source=src,
            )
            add("SetFlag", _P.PIPE_MTE2, kind="set", event=(e_in, b), source=src)
            add("WaitFlag", _P.PIPE_V, kind="wait", event=(e_in, b), source=src)
            add(
                "Muls",
                _P.PIPE_V,
                accesses=(Access("UB", uz, uz + tile, True), Access("UB", ux, ux + tile, False)),
                source=src,
            )
            add("SetFlag", _P.PIPE_V, kind="set", event=(e_out, b), source=src)
            add("WaitFlag", _P.PIPE_MTE3, kind="wait", event=(e_out, b), source=src)
            add(
                "DataCopy",
                _P.PIPE_MTE3,
                accesses=(Access("UB", uz, uz + tile, False), Access(z_gm, off, off + tile, True)),
                source=src,
            )
            if t == n2 - 1:  # the core's partial sum into the shared accumulator
                add(
                    "DataCopy",
                    _P.PIPE_MTE3,
                    accesses=(
                        Access("UB", uz, uz + 256, False),
                        Access(acc_gm, 0, 256, True, atomic="add", dtype="float32"),
                    ),
                    source=src,
                )
            if t + 2 < n2:
                add("SetFlag", _P.PIPE_MTE3, kind="set", event=(e_back, b), source=src)
            if t % 16 == 15:
                add("PipeBarrier", _P.PIPE_V, kind="barrier", source=src)
        logs.append(log)
    return tuple(logs)
