"""``ascend-jax run FILE.asc|FILE.cpp``: build the user's C++ and run its kernel launches on the model.

The host program (the sample's ``main``) runs natively, in the current folder when ``--input`` /
``--output`` are the defaults ``input`` / ``output`` (the layout the vendor samples' scripts write),
else in a temporary folder whose ``input`` and ``output`` link to them. It reads its inputs and
writes its outputs itself. At each kernel launch it stops: the C++ runtime writes the launch's
trace and GM bytes to an exchange folder and asks over a pipe; this process replays the trace on
the model (``aj.jit_kernel``, one program over all blocks) and answers with the GM results, which
the host copies back before it continues (``aclrtMemcpy`` device-to-host, ``WriteFile``).

A value the kernel reads back into C++ (``GetValue``, ``GetReduceRepeatSumSpr``, GatherMask's
``rsvdCnt``) is answered the same way: the model runs the trace up to that call and sends the value,
so whatever the C++ then does with it (a branch, an address) is exact. Such a launch's trace holds
for its own inputs only: with ``--cases N`` the header's launch loop reruns the kernel's C++ on each
other case's inputs (``CASE`` requests) and each trace runs on the model on its own -- exact, at
per-case speed (never a silently wrong batch).

``--cases N`` (N random input sets for the GM buffers the kernel reads, by dtype, ``--seed``):
the launch runs N + 1 cases in chunks of one compiled program -- case 0 is the host's own inputs
(the host continues with its results), cases 1..N are written chunk by chunk (memory independent
of N) to ``OUTPUT/cases/case_XXXXX/{input,output}/`` under the host's file names, each folder
written whole and renamed into place. It prints the C++ build time, the model's compile time and
cases/s. The host program runs in its own process group, killed on any exit; ``--timeout`` bounds
its own running time.

The kernel is taken as built the way ``<<<>>>`` builds are, with the compiler's auto-sync
(``--cce-auto-sync=on``: its S <-> V/MTE2/MTE3 flags around GetValue / SetValue, ``ascend_jax.autosync``);
``--auto-sync off`` for a kernel built without it. Findings print one line per class and pair of
source lines, with a count (``ascend_jax.findings``).

Exit codes (docs/BRING_YOUR_OWN_KERNEL.md "Exit codes"): 0 clean, 1 an error finding (a warning
only with ``--strict``), a fault, ``--diff`` differences or the host program's own check failed (a
non-zero exit), 2 bad input (an option refused up front, no compiler, a compile error, an
unmodelled API, a usage error, a missing or wrong-size input file, a host program that crashes,
never launches a kernel, runs past ``--timeout`` or fails a WriteFile), 3 internal error, 130
interrupted.
"""

import contextlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

import ascend_jax as aj

from .. import findings as F
from . import build as B
from . import rolled as R
from . import trace as T

PROG = "ascend-jax run"
# the memory one chunk of a streamed ``--cases N`` launch may hold (its cases' GM bytes and UB);
# $ASCEND_JAX_CHUNK_BYTES overrides it
CHUNK_BYTES = int(os.environ.get("ASCEND_JAX_CHUNK_BYTES") or (256 << 20))


# the compiled programs of the latest runs in this process (a few; keyed by trace, source files,
# profile and options), reused by a later run of the same launch
_PROGRAMS = {}


class RunError(Exception):
    """Bad input or a failed host program (exit 2)."""


def _random_cases(seed, cid, first, batch, dt_name, nbytes):
    """GM buffer ``cid``'s random bytes of cases ``first .. first + batch - 1``: each case's own
    generator (seed, case, buffer), so a case's inputs do not depend on the chunk it ran in."""
    rows = [
        _random_bytes(np.random.default_rng([seed, c, cid]), dt_name, nbytes, 1)
        for c in range(first, first + batch)
    ]
    return np.concatenate(rows) if rows else np.zeros((0, nbytes), np.uint8)


def _random_bytes(rng, dt_name, nbytes, batch):
    if batch == 0:
        return np.zeros((0, nbytes), np.uint8)
    dt = aj.as_dtype(dt_name)
    n = nbytes // dt.itemsize
    if dt.kind == "float":
        v = rng.uniform(-10.0, 10.0, (batch, n)).astype(dt.np_dtype)
    else:
        v = rng.integers(0, 256, (batch, n * dt.itemsize), dtype=np.uint8).view(dt.np_dtype)
    raw = np.ascontiguousarray(v).view(np.uint8).reshape(batch, -1)
    if raw.shape[1] < nbytes:  # a tail shorter than one element
        raw = np.concatenate([raw, np.zeros((batch, nbytes - raw.shape[1]), np.uint8)], axis=1)
    return raw


class Server:
    """Answers the host program's requests: LAUNCH (run a launch), VALUE (a value read back)."""

    def __init__(
        self,
        exchange,
        profile,
        cases=0,
        seed=0,
        output=None,
        schedule="program",
        verbose=True,
        case_dirs=None,
        write_cases=True,
        auto_sync=True,
        check_uninit=False,
    ):
        self.exchange = pathlib.Path(exchange)
        self.auto_sync = auto_sync  # the compiler's --cce-auto-sync (on for <<<>>> builds)
        self.profile = profile
        self.cases, self.seed, self.output, self.schedule = cases, seed, output, schedule
        # --cases DIR: [(name, input folder, output folder)]; case 0 is the host's own (the first)
        self.case_dirs = case_dirs or []
        if self.case_dirs:
            self.cases = len(self.case_dirs) - 1
        self.write_cases = write_cases
        self.check_uninit = check_uninit
        self.infile = {}  # C++ buffer id -> (ReadFile path, offset in the file, bytes)
        self.outfile = {}  # C++ buffer id -> (WriteFile path, bytes)
        self.pending = []  # (launch, index, {cid: case inputs}, {cid: case outputs}) for finish()
        self.cwd = pathlib.Path.cwd()  # the host program's folder (its relative paths)
        self.launches = []  # (Launch, seconds, faults)
        self.readfail = []
        self.warnings = []
        self.faults = []
        self.findings = []  # (Launch, hazards finding): races, sync errors, multi-core overlaps
        self.host_findings = []  # the host code's aclrtMalloc / aclrtFree: illegal free, leak, unused
        self.stats = []
        self.verbose = verbose
        self._compiled = {}
        self._live = None  # the value reads' replay of the current trace (trace.LiveReplay)
        self.streams = {}  # pending index -> the random stream of its other chunks (finish)
        self.written = []  # case folders complete so far (``--cases N``), in order
        self.writefail = []  # the host's WriteFile calls that failed (path: reason)

    # -- VALUE ---------------------------------------------------------------------------------------
    def value(self, index, event, generation=None):
        if self.schedule == "program" and generation is not None:
            live = self._live
            if live is None or (live.index, live.generation) != (index, generation) or event < live.pos:
                live = self._live = T.LiveReplay(self.exchange, index, generation, self.profile)
            value = live.value(event)
            e = live.launch.events[event]
        else:  # another schedule decides the order: the trace so far replayed from the start
            launch = T.read_launch(self.exchange, index)
            e = launch.events[event]
            capture = {"event": event}
            fn = T.kernel_fn(launch, capture=capture, upto=event)
            aj.run_kernel(
                fn,
                *launch.gm_inputs(),
                profile=self.profile,
                fault_policy="record",
                block_dim=launch.blocks,
                schedule=self.schedule,
                auto_sync=self.auto_sync,
            )
            if "value" not in capture:
                raise RuntimeError(f"{T.where(e)}: internal: the replay did not reach the value read")
            value = capture["value"]
        ty = e.get("ret")
        if ty is None:
            ty = next(a["ty"] for a in e["args"] if isinstance(a, dict) and a.get("t") == "out")
        dt = np.bool_ if ty == "bool" else aj.as_dtype(ty).np_dtype
        v = np.asarray(value).astype(dt).reshape(())
        return v.tobytes().hex()

    # -- LAUNCH --------------------------------------------------------------------------------------
    def launch(self, index):
        launch = T.read_launch(self.exchange, index)
        if self.readfail:
            raise RunError(
                f"the host program could not read {', '.join(self.readfail)} before launching "
                f"{launch.name} (line {launch.line}): run the sample's scripts/gen_data.py first, or give "
                "--input DIR"
            )
        gms = launch.gm_inputs()
        per_case = bool(self.cases and launch.value_reads())
        batch = 1 + self.cases
        stream = None
        arrays = [g[None] for g in gms]
        rand = {}
        if self.case_dirs and self.cases:
            if not any(cid in self.infile for cid in launch.buffers):
                raise RunError(
                    f"--cases DIR: launch {launch.name} (line {launch.line}): no GM buffer was filled through "
                    "ascend_jax's ReadFile (a project's own data_utils.h reads its files itself), so the case "
                    "folders' files cannot be matched to the kernel's buffers: use --cases N"
                )
            for pos, cid in enumerate(launch.buffers):
                if cid in self.infile:
                    r = self._case_files(cid, gms[pos])
                    rand[cid] = r
                    arrays[pos] = np.concatenate([gms[pos][None], r])
                else:
                    arrays[pos] = np.repeat(gms[pos][None], batch, axis=0)
        elif self.cases:
            read = launch.read_buffers()
            self._check_room(launch, read, per_case)
            # --cases N streams (issue 44 item 5): the launch runs the host's case and the first
            # chunk of random cases here; finish() runs the other chunks, each of the same size (one
            # compiled program), writing each chunk's case folders before the next chunk is drawn.
            first = self.cases if per_case else self._chunk(launch) - 1
            if not per_case and first < self.cases:
                stream = {"read": read, "gms": gms, "size": first + 1}
            for pos, cid in enumerate(launch.buffers):
                if cid in read:
                    r = _random_cases(self.seed, cid, 1, first, read[cid], gms[pos].size)
                    rand[cid] = r
                    arrays[pos] = np.concatenate([gms[pos][None], r])
                else:
                    arrays[pos] = np.repeat(gms[pos][None], first + 1, axis=0)
            batch = first + 1
        if per_case:
            # SPEC (issue 32 item 3): a value read back into C++ may steer the kernel's control flow
            # or addresses, so the trace of case 0 holds for case 0 only. Each other case reruns the
            # kernel's C++ on its own inputs (``CASE`` requests: the header's launch loop), each
            # trace on the model with batch 1 -- exact, at per-case speed.
            return self._per_case_start(index, launch, arrays, rand)
        res, stat = self._execute(launch, arrays, timed=bool(self.cases))
        self.stats.append(stat)
        if self.cases and not self.case_dirs and stream is not None:
            stream["stat"] = stat
        self._collect(launch, res, batch, arrays=arrays)
        self._answer(index, launch, res)
        if self.cases:  # (write_cases=False: the chunks still run, their folders are not written)
            written = launch.written_buffers()
            outs = {
                cid: np.asarray(res.gm[pos])[1:] for pos, cid in enumerate(launch.buffers) if cid in written
            }
            self.pending.append((launch, index, rand, outs))
            if not self.case_dirs and stream is not None:
                self.streams[len(self.pending) - 1] = stream
        self.launches.append(launch)
        return 0

    def _case_bytes(self, launch):
        """Bytes one case holds while its chunk runs: its GM buffers (inputs, results, the random
        draw) and each block's UB."""
        gm = sum(launch.gm_bytes[cid] for cid in launch.buffers)
        return 4 * gm + launch.blocks * self.profile.ub_physical_bytes

    def _chunk(self, launch):
        """Cases in one chunk of a streamed --cases N run (the host's case included): as many as
        ``CHUNK_BYTES`` holds, at least 1, at most all."""
        return int(max(1, min(1 + self.cases, CHUNK_BYTES // max(self._case_bytes(launch), 1))))

    def _check_room(self, launch, read, per_case):
        """--cases N refused up front (RunError, exit 2) when its case folders would not fit on the
        output's disk, or (a launch with value reads, whose cases run one by one and are kept until
        the host exits) its cases would not fit in ``CHUNK_BYTES * 8`` of memory."""
        if not self.write_cases:
            return
        per = sum(launch.gm_bytes[cid] for cid in read) + sum(
            launch.gm_bytes[cid] for cid in launch.written_buffers()
        )
        need = per * self.cases
        root = pathlib.Path(self.output or "output")
        probe = next((q for q in (root, *root.parents) if q.exists()), pathlib.Path.cwd())
        free = shutil.disk_usage(probe).free
        if need > free:
            raise RunError(
                f"--cases {self.cases}: the case folders would take {need:,} bytes ({per:,} a case) and "
                f"{probe} has {free:,} bytes free; run fewer cases"
            )
        if per_case:
            mem = (per + sum(launch.gm_bytes[cid] for cid in launch.buffers)) * self.cases
            if mem > CHUNK_BYTES * 8:
                raise RunError(
                    f"--cases {self.cases}: the kernel reads a value back into C++, so its cases run one "
                    f"by one and are kept until the host program exits: {mem:,} bytes, over the "
                    f"{CHUNK_BYTES * 8:,} allowed; run fewer cases"
                )

    def _answer(self, index, launch, res):
        """Case 0's GM bytes back to the host (``launch_<i>_gm<k>.out``; "" for a zero-byte buffer)."""
        for pos, cid in enumerate(launch.buffers):
            out = np.asarray(res.gm[pos])
            out[0].astype(np.uint8, copy=False).tofile(self.exchange / f"launch_{index}_gm{cid}.out")
        for cid, (_n, live) in enumerate(zip(launch.gm_bytes, launch.live, strict=True)):
            if live and cid not in launch.buffers:
                (self.exchange / f"launch_{index}_gm{cid}.out").write_bytes(b"")

    def _per_case_start(self, index, launch, arrays, rand):
        """Case 0 of a launch with value reads: run it, write each other case's inputs for the
        header's launch loop (``launch_<i>_case<c>_gm<k>.bin``) and return the number of cases."""
        res, stat = self._execute(launch, [a[:1] for a in arrays], timed=False)
        self._collect(launch, res, 1, arrays=[a[:1] for a in arrays])
        self._answer(index, launch, res)
        for c in range(1, 1 + self.cases):
            for pos, cid in enumerate(launch.buffers):
                a = arrays[pos]
                row = a[c] if a.shape[0] > 1 else a[0]
                row.astype(np.uint8, copy=False).tofile(self.exchange / f"launch_{index}_case{c}_gm{cid}.bin")
        written = launch.written_buffers()
        outs = {cid: [None] * self.cases for cid in launch.buffers if cid in written}
        stat.update(cases=1 + self.cases, per_case=True, run_s=stat["first_s"], compile_s=0.0)
        stat["cases_per_s"] = stat["cases"] / max(stat["run_s"], 1e-9)
        self.stats.append(stat)
        self._per_case = {"index": index, "outs": outs, "t0": time.perf_counter()}
        if self.write_cases:
            self.pending.append((launch, index, rand, outs))
        self.launches.append(launch)
        return self.cases

    def case(self, index, c):
        """One other case of a launch with value reads: the header reran the kernel on case c's
        inputs; run its trace (batch 1) and keep its outputs as case c."""
        launch = T.read_launch(self.exchange, index)
        st = self._per_case
        gms = [g[None] for g in launch.gm_inputs()]
        res, _ = self._execute(launch, gms, timed=False)
        self._collect(launch, res, 1, case=c, arrays=gms)
        for pos, cid in enumerate(launch.buffers):
            if cid in st["outs"]:
                st["outs"][cid][c - 1] = np.asarray(res.gm[pos])[0]
        stat = self.stats[-1]
        stat["run_s"] = stat["first_s"] + time.perf_counter() - st["t0"]
        stat["cases_per_s"] = stat["cases"] / stat["run_s"]

    def _execute(self, launch, arrays, timed):
        """One compiled program per distinct trace (its key: the trace's events), run on the
        batch; with ``timed`` a second run gives the model's compile time and cases/s."""
        batch = arrays[0].shape[0] if arrays else 1
        fn = R.kernel_fn(launch)  # one compile per loop body; straight when nothing repeats
        n = len(launch.events)
        if self.verbose and n >= R.PROGRESS_CALLS and getattr(self, "_progress_n", None) != n:
            self._progress_n = n  # (once per trace length: not again for each --cases rerun)
            print(
                f"{PROG}: launch {launch.name} (line {launch.line}): {n:,} calls traced; checking and "
                "compiling them (a loop's body once) ...",
                file=sys.stderr,
                flush=True,
            )
        key = "\n".join(json.dumps({k: v for k, v in e.items() if k not in ("file",)}) for e in launch.events)
        run = self._compiled.get(key)
        # across runs in one process (the same source, profile and options): the compiled program again
        files = tuple(sorted({e.get("file", "") for e in launch.events}))
        try:
            pkey = (
                key,
                files,
                self.profile,
                str(self.schedule),
                self.check_uninit,
                self.auto_sync,
                launch.blocks,
            )
            hash(pkey)
        except TypeError:
            pkey = None
        if run is None and pkey is not None:
            run = _PROGRAMS.get(pkey)
            if run is not None:
                self._compiled[key] = run
        if run is None:
            run = aj.jit_kernel(
                fn,
                profile=self.profile,
                return_state=True,
                block_dim=launch.blocks,
                schedule=self.schedule,
                auto_sync=self.auto_sync,
                check_uninit=self.check_uninit,
            )
            self._compiled[key] = run
            if pkey is not None:
                _PROGRAMS[pkey] = run
                while len(_PROGRAMS) > 8:
                    _PROGRAMS.pop(next(iter(_PROGRAMS)))
        t0 = time.perf_counter()
        res = run(*arrays)
        first = time.perf_counter() - t0
        calls = sum(1 for e in launch.events if e["op"] != "block")
        stat = {
            "launch": launch.name,
            "line": launch.line,
            "blocks": launch.blocks,
            "calls": calls,
            "first_s": first,
            "rolled": getattr(fn, "mode", {}).get("mode") == "rolled",
        }
        if timed:
            t1 = time.perf_counter()
            res = run(*arrays)
            again = time.perf_counter() - t1
            stat.update(
                cases=batch, run_s=again, compile_s=max(first - again, 0.0), cases_per_s=batch / again
            )
        return res, stat

    def _collect(self, launch, res, batch, case=0, rows=None, arrays=None):
        """Faults per case, findings and warnings of one run (``case``: the first case's index;
        ``rows``: the first rows that are cases, the rest padding; ``arrays``: the run's GM inputs,
        to locate a launch's first fault)."""
        states = res.state if isinstance(res.state, tuple) else (res.state,)  # one per core
        faults = np.concatenate([np.asarray(st.fault).reshape(batch, -1) for st in states], axis=1)
        for b in range(batch if rows is None else rows):
            f = int(np.bitwise_or.reduce(faults[b]))
            if f:
                at = ""
                if arrays is not None and not any(la is launch for la, _c, _f, _a in self.faults):
                    at = self._locate_fault(launch, [a[b] for a in arrays])
                self.faults.append((launch, case + b, f, at))

        def key(la, f):
            return (la.line, f.tool, f.kind, tuple((c.core, c.index, c.api) for c in f.calls))

        seen = {key(la, f) for la, f in self.findings} if case else ()
        for f in res.findings:  # a per-case rerun reports a finding of its launch once
            if key(launch, f) not in seen:
                self.findings.append((launch, f))
        for w in getattr(res, "warnings", None) or []:
            if w and w not in self.warnings:
                self.warnings.append(w)

    def _locate_fault(self, launch, gms):
        """The call that faulted first on inputs ``gms`` (one case): the trace rerun eagerly, stopping
        at the first call whose fault bits are new -- its C++ line, the call with its operands (UB
        and GM addresses) and the fault; "" when the rerun does not fault."""
        try:
            aj.run_kernel(
                T.kernel_fn(launch),
                *gms,
                profile=self.profile,
                fault_policy="raise",
                block_dim=launch.blocks,
                schedule=self.schedule,
            )
        except aj.AscendFault as e:
            where, call = getattr(e, "cxx_where", None), getattr(e, "cxx_call", None)
            if where is not None:
                return f"{where}: {call}: {e}"
        except Exception:  # noqa: BLE001  (the batched run's fault word stands on its own)
            return ""
        return ""

    def _case_files(self, cid, host_bytes):
        """``--cases DIR``: the bytes of GM buffer ``cid`` for cases 1.. (each case folder's copy of
        the file the host's ReadFile read into it)."""
        path, off, n = self.infile[cid]
        rel = self._relative(path, "input")
        out = np.repeat(host_bytes[None], self.cases, axis=0)
        for c, (name, ind, _outd) in enumerate(self.case_dirs[1:]):
            f = pathlib.Path(ind) / rel
            if not f.is_file():
                raise RunError(
                    f"--cases: case {name}: no {f} (the host program reads {path} into GM buffer {cid})"
                )
            data = np.fromfile(f, np.uint8)
            if data.size < off + n:
                raise RunError(
                    f"--cases: case {name}: {f} has {data.size} bytes; the host program reads {off + n} from {path}"
                )
            out[c, :n] = data[off : off + n]
        return out

    def _relative(self, path, folder):
        """A host path (``./input/input_x.bin``) relative to the host's ``folder`` (``input_x.bin``);
        outside it, the file's name."""
        p = pathlib.Path(path)
        p = (self.cwd / p) if not p.is_absolute() else p
        base = self.cwd / folder
        try:
            return pathlib.Path(os.path.normpath(p)).relative_to(base)
        except ValueError:
            return pathlib.Path(p.name)

    def finish(self):
        """Write the cases (after the host exits: WriteFile names the outputs). ``--cases N``:
        ``OUTPUT/cases/case_XXXXX/{input,output}/`` (``launch<i>_case_XXXXX`` with several launches),
        files under the names the host's ReadFile / WriteFile used (``gm<id>.bin`` for a buffer no
        file fed or took), each case folder written whole beside its place and renamed into it (a
        case folder is complete or absent, also after Ctrl-C); the chunks of a streamed launch run
        here, one at a time. ``--cases DIR``: each case folder's output folder, file by file."""
        several = len({idx for _, idx, _, _ in self.pending}) > 1
        for k, (launch, index, rand, outs) in enumerate(self.pending):
            first = 1 + min(len(r) for r in (*rand.values(), *outs.values())) if (rand or outs) else 1
            if not self.case_dirs and k not in self.streams:
                first = 1 + self.cases
            self._write_cases(launch, index, rand, outs, range(1, first), several)
            st = self.streams.get(k)
            c = first
            while st is not None and c <= self.cases:
                n = min(st["size"], 1 + self.cases - c)
                rand, outs = self._run_chunk(launch, st, c, n)
                self._write_cases(launch, index, rand, outs, range(c, c + n), several)
                c += n

    def _run_chunk(self, launch, st, c, n):
        """Cases c .. c+n-1 of a streamed launch (a batch of the first chunk's size: the same
        compiled program; padding rows repeat the last case and are dropped)."""
        size = st["size"]
        arrays, rand = [], {}
        for pos, cid in enumerate(launch.buffers):
            g = st["gms"][pos]
            if cid in st["read"]:
                r = _random_cases(self.seed, cid, c, n, st["read"][cid], g.size)
                rand[cid] = r
                a = np.concatenate([r, np.repeat(r[-1:], size - n, axis=0)])
            else:
                a = np.repeat(g[None], size, axis=0)
            arrays.append(a)
        t0 = time.perf_counter()
        res, _ = self._execute(launch, arrays, timed=False)
        stat = st.get("stat")
        if stat is not None and "run_s" in stat:
            stat["run_s"] += time.perf_counter() - t0
            stat["cases"] = 1 + self.cases
            stat["cases_per_s"] = stat["cases"] / max(stat["run_s"], 1e-9)
        self._collect(launch, res, size, case=c, rows=n, arrays=arrays)
        written = launch.written_buffers()
        outs = {cid: np.asarray(res.gm[pos])[:n] for pos, cid in enumerate(launch.buffers) if cid in written}
        return rand, outs

    def _write_cases(self, launch, index, rand, outs, cases, several):
        """Write cases ``cases`` (numbers from 1; row c - cases.start of ``rand`` / ``outs``)."""
        if not self.write_cases:
            return
        for row, c in enumerate(cases):
            files = []
            for cid, r in rand.items():
                name = self._relative(self.infile[cid][0], "input") if cid in self.infile else f"gm{cid}.bin"
                files.append(("input", name, r[row]))
            for cid, o in outs.items():
                if cid in self.outfile:
                    path, n = self.outfile[cid]
                    name, data = self._relative(path, "output"), o[row][:n]
                else:
                    name, data = pathlib.Path(f"gm{cid}.bin"), o[row]
                files.append(("output", name, data))
            if self.case_dirs:
                _name, _ind, outd = self.case_dirs[c]
                for kind, name, data in files:
                    if kind == "output":
                        _write_file(pathlib.Path(outd) / name, data)
                continue
            d = pathlib.Path(self.output or "output") / "cases"
            d = d / (f"launch{index}_case_{c:05d}" if several else f"case_{c:05d}")
            _write_case_folder(d, files)
            self.written.append(d)

    def progress(self):
        """One line: the case folders complete so far."""
        if not self.written:
            return "no case folder written"
        first, last = self.written[0], self.written[-1]
        return (
            f"{len(self.written)} case folder(s) complete in {first.parent} ({first.name} .. {last.name}); "
            "every other case folder is absent or from an earlier run, none half-written"
        )


def _write_file(path, data):
    """``data`` to ``path`` whole: a temporary file beside it, renamed over it."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        data.astype(np.uint8, copy=False).tofile(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _write_case_folder(d, files):
    """A case folder ``d`` with ``files`` ((``input`` | ``output``, relative name, bytes)) written
    whole: into a temporary folder beside it, then renamed into place (an earlier run's folder of
    the same name moved aside first and removed after)."""
    d.parent.mkdir(parents=True, exist_ok=True)
    tmp = d.with_name(f".{d.name}.partial-{os.getpid()}")
    old = d.with_name(f".{d.name}.old-{os.getpid()}")
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        for kind, name, data in files:
            f = tmp / kind / name
            f.parent.mkdir(parents=True, exist_ok=True)
            data.astype(np.uint8, copy=False).tofile(f)
        (tmp / "input").mkdir(exist_ok=True)
        (tmp / "output").mkdir(exist_ok=True)
        if d.exists():
            os.rename(d, old)
        os.rename(tmp, d)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)


def _serve(build, cwd, server, block_dim=None, max_calls=None, argv=(), timeout=None):
    """Run the host program, answering its requests; returns (returncode, stdout, stderr)."""
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    env = dict(os.environ)
    env.update(ASCENDJAX_DIR=str(server.exchange), ASCENDJAX_FD_REQ=str(req_w), ASCENDJAX_FD_REP=str(rep_r))
    if block_dim is not None:
        env["ASCENDJAX_BLOCK_DIM"] = str(block_dim)
    if max_calls is not None:
        env["ASCENDJAX_MAX_CALLS"] = str(int(max_calls))
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        rc, error = _talk(build, cwd, env, server, req_r, req_w, rep_r, rep_w, out_f, err_f, argv, timeout)
        out_f.seek(0)
        err_f.seek(0)
        stdout = out_f.read().decode(errors="replace")
        stderr = err_f.read().decode(errors="replace")
    if error is not None:
        raise error
    return rc, stdout, stderr


# the default of --timeout: seconds the host program (its main and the kernels' C++) may run,
# not counting the time the model answers its requests
DEFAULT_TIMEOUT = 600.0


class _Watchdog:
    """Stops the host program (its whole process group) once its own running time -- the time
    not spent waiting for the model's answers -- passes ``timeout`` seconds."""

    def __init__(self, proc, timeout):
        import threading

        self.proc, self.timeout = proc, timeout
        self.own, self.since, self.busy = 0.0, time.monotonic(), False
        self.fired = False
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def pause(self):
        with self.lock:
            self.own += time.monotonic() - self.since
            self.busy = True

    def resume(self):
        with self.lock:
            self.since, self.busy = time.monotonic(), False

    def _watch(self):
        while not self.done.wait(0.1):
            with self.lock:
                own = self.own + (0.0 if self.busy else time.monotonic() - self.since)
            if own > self.timeout:
                self.fired = True
                _kill_group(self.proc)
                return

    def stop(self):
        self.done.set()


def _kill_group(proc):
    """SIGKILL the host program's process group (it runs in a session of its own)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _talk(build, cwd, env, server, req_r, req_w, rep_r, rep_w, out_f, err_f, argv=(), timeout=None):
    proc = subprocess.Popen(
        [str(build.exe), *argv],
        cwd=cwd,
        env=env,
        pass_fds=(req_w, rep_r),
        stdout=out_f,
        stderr=err_f,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: killed whole on any exit of ours
    )
    os.close(req_w)
    os.close(rep_r)
    dog = _Watchdog(proc, DEFAULT_TIMEOUT if timeout is None else timeout)
    try:
        error = _answer_requests(server, req_r, rep_w, dog)
        rc = proc.wait()
    finally:
        dog.stop()
        if proc.poll() is None:
            _kill_group(proc)
            proc.wait()
    if dog.fired:
        last = server.launches[-1] if server.launches else None
        after = f" (after launch {last.name}, line {last.line})" if last is not None else ""
        error = RunError(
            f"the host program of {build.source.name} ran for more than {dog.timeout:g} s of its own time "
            f"(--timeout){after} and was stopped: an endless loop in the kernel or the host code? "
            "Give a larger --timeout for a long run"
        )
    return rc, error


def _answer_requests(server, req_r, rep_w, dog):
    error = None
    with os.fdopen(req_r, "r") as reader, os.fdopen(rep_w, "w") as writer:
        for line in reader:
            parts = line.split()
            if not parts:
                continue
            dog.pause()
            try:
                if parts[0] == "READFAIL":
                    server.readfail.append(line.split(" ", 1)[1].strip())
                    continue
                if parts[0] == "WRITEFAIL":
                    server.writefail.append(line.split(" ", 1)[1].strip())
                    continue
                if parts[0] == "HOSTERROR":
                    error = error or RunError(line.split(" ", 1)[1].strip())
                    continue
                if parts[0] == "INFILE":
                    _, cid, off, n, path = line.rstrip("\n").split(" ", 4)
                    server.infile[int(cid)] = (path, int(off), int(n))
                    continue
                if parts[0] == "OUTFILE":
                    _, cid, n, path = line.rstrip("\n").split(" ", 3)
                    server.outfile[int(cid)] = (path, int(n))
                    continue
                if parts[0] == "HOST":
                    server.host_findings.append(line.split(" ", 1)[1].strip())
                    continue
                if parts[0] == "NOTMODELLED":
                    error = error or aj.NotModelledError(line.split(" ", 1)[1].strip())
                    continue
                if parts[0] == "TOOLONG":
                    error = error or _too_long(line)
                    continue
                if error is not None:
                    raise error
                if parts[0] == "LAUNCH":
                    n = server.launch(int(parts[1]))
                    writer.write(f"OK {n}\n" if n else "OK\n")
                elif parts[0] == "CASE":
                    server.case(int(parts[1]), int(parts[2]))
                    writer.write("OK\n")
                elif parts[0] == "VALUE":
                    gen = int(parts[3]) if len(parts) > 3 else None
                    writer.write(f"V {server.value(int(parts[1]), int(parts[2]), gen)}\n")
                else:
                    raise RuntimeError(f"internal: unknown request {line!r}")
            except Exception as e:  # noqa: BLE001  (reported after the host stops)
                error = error or e
                with contextlib.suppress(BrokenPipeError):
                    writer.write("ERR\n")
            finally:
                dog.resume()
            with contextlib.suppress(BrokenPipeError):
                writer.flush()
    return error


def _too_long(line):
    """The recorder's report of a launch past its call budget (``rt.h`` ``too_long``)."""
    head, name, launch_line, site, api = line.rstrip("\n").split("\t")
    _, _index, budget, block, count = head.split()
    budget, count = int(budget), int(count)
    file, _, site_line = site.rpartition(":")
    where = f"{pathlib.Path(file).name}:{site_line}"
    what = f"AscendC::{api}" if api and api[0].isupper() else (api or "a call")
    return RunError(
        f"launch {name} (line {launch_line}): the kernel made more than {budget:,} calls (the call "
        f"budget of one launch, --max-calls); {where} ({what}) alone made {count:,} of them (block "
        f"{block}). Raise --max-calls or leave it out (no budget by default)"
    )


def scenario_defines(source, scenario, defines):
    """The -D list: the user's, plus SCENARIO_NUM (``--scenario``, default 1 when the source uses it)."""
    defines = list(defines or ())
    has = any(d.split("=")[0] == "SCENARIO_NUM" for d in defines)
    if scenario is not None:
        if has:
            raise RunError("give the scenario once: --scenario or -D SCENARIO_NUM=...")
        defines.append(f"SCENARIO_NUM={int(scenario)}")
    elif not has and "SCENARIO_NUM" in pathlib.Path(source).read_text(errors="replace"):
        defines.append("SCENARIO_NUM=1")
    return defines


def run_cxx(
    source,
    profile=None,
    scenario=None,
    defines=(),
    input_dir="input",
    output_dir="output",
    cases=0,
    seed=0,
    block_dim=None,
    schedule="program",
    echo=True,
    max_calls=None,
    argv=(),
    write_cases=True,
    tiling=None,
    include_dirs=(),
    auto_sync=True,
    timeout=None,
    check_uninit=False,
):
    """Build and run ``source``; returns a dict (returncode, stdout, stderr, build, stats, faults,
    warnings, outputs, writefail). Raises B.CxxError / B.ToolError / RunError / the model's errors;
    Ctrl-C raises ``CasesInterrupted`` (a KeyboardInterrupt naming the case folders complete).
    ``timeout``: seconds of the host program's own time (default ``DEFAULT_TIMEOUT``)."""
    source = pathlib.Path(source).expanduser().resolve()
    if not source.is_file():
        raise RunError(f"{source}: no such file")
    prof = aj.load_profile(profile or "ascend910b")
    defs = scenario_defines(source, scenario, defines)
    if tiling is not None:  # an op-framework kernel: a generated host harness (opkernel.py)
        from . import opkernel

        try:
            harness, dirs, _name = opkernel.harness(source, tiling)
        except opkernel.TilingError as e:
            raise RunError(str(e)) from None
        label = f"{source} (--tiling {tiling})"
        bld = B.build(
            harness,
            prof,
            defs,
            include_dirs=[*dirs, *include_dirs],
            sources=[harness],
            label=label,
            user_files=[pathlib.Path(tiling).resolve()],
        )
        bld.source = source
    else:
        bld = B.build(source, prof, defs, include_dirs=[source.parent, *include_dirs])
    case_dirs = None
    if cases is not None and not isinstance(cases, int):  # --cases DIR: case 0 is the first folder
        from ..byok import RunInputError, case_folders

        try:
            names, ins, outs = case_folders(cases, output_dir)
        except RunInputError as e:
            raise RunError(str(e)) from None
        case_dirs = list(zip(names, ins, outs, strict=True))
        input_dir, output_dir, cases = ins[0], outs[0], 0
    inp = pathlib.Path(input_dir).expanduser().resolve()
    outp = pathlib.Path(output_dir).expanduser().resolve()
    made = [q for q in (outp, *outp.parents) if not q.exists()]  # removed again if left empty
    outp.mkdir(parents=True, exist_ok=True)
    try:
        return _run_built(
            source,
            bld,
            prof,
            inp,
            outp,
            cases,
            seed,
            case_dirs,
            schedule,
            write_cases,
            block_dim,
            max_calls,
            argv,
            timeout,
            check_uninit,
            auto_sync,
        )
    finally:
        for q in made:  # a failed run leaves no empty output folder behind
            with contextlib.suppress(OSError):
                q.rmdir()


def _run_built(
    source,
    bld,
    prof,
    inp,
    outp,
    cases,
    seed,
    case_dirs,
    schedule,
    write_cases,
    block_dim,
    max_calls,
    argv,
    timeout,
    check_uninit,
    auto_sync,
):
    with tempfile.TemporaryDirectory(prefix="ascend_jax_cxx_") as tmp:
        tmp = pathlib.Path(tmp)
        exchange = tmp / "exchange"
        exchange.mkdir()
        cwd = pathlib.Path.cwd()
        if inp != cwd / "input" or outp != cwd / "output":
            cwd = tmp / "work"
            cwd.mkdir()
            (cwd / "input").symlink_to(inp, target_is_directory=True)
            (cwd / "output").symlink_to(outp, target_is_directory=True)
        server = Server(
            exchange,
            prof,
            cases=cases or 0,
            seed=seed,
            output=outp,
            schedule=schedule,
            case_dirs=case_dirs,
            write_cases=write_cases,
            auto_sync=auto_sync,
            check_uninit=check_uninit,
        )
        server.cwd = cwd
        try:
            rc, stdout, stderr = _serve(bld, cwd, server, block_dim, max_calls, argv, timeout)
            server.finish()
        except KeyboardInterrupt:
            raise CasesInterrupted(server.progress() if server.cases else "") from None
    if rc < 0:
        try:
            sig = signal.Signals(-rc).name
        except ValueError:
            sig = str(-rc)
        raise RunError(f"the host program of {source.name} crashed ({sig}){_tail(stderr)}")
    died = [
        ln[len("ascend-jax: ") :]
        for ln in stderr.splitlines()
        if ln.startswith("ascend-jax: ")
        and not ln.startswith(("ascend-jax: ReadFile", "ascend-jax: WriteFile"))
    ]
    if died and not server.launches and rc != 0:
        # the runtime's own stop (a call outside a launch, a misused API): its message, not a guess
        raise RunError(f"the host program of {source.name} stopped: {died[-1]}")
    if not server.launches and not server.host_findings:
        if server.readfail:
            raise RunError(
                f"the host program could not read {', '.join(server.readfail)}: run the sample's "
                "scripts/gen_data.py first, or give --input DIR"
            )
        raise RunError(
            f"the host program of {source.name} exited (status {rc}) without launching a kernel "
            f"(no kernel<<<blocks, ubuf, stream>>>(...) ran){_tail(stderr)}"
        )
    return {
        "returncode": rc,
        "stdout": stdout,
        "stderr": stderr,
        "build": bld,
        "stats": server.stats,
        "faults": server.faults,
        "findings": server.findings,
        "host_findings": server.host_findings,
        "warnings": server.warnings,
        "writefail": server.writefail,
        "outputs": _output_files(server, outp),
    }


def _output_files(server, outp):
    """[(name relative to the output folder, dtype name, written bytes)] of the files the host's
    WriteFile wrote from a GM buffer a kernel wrote (the --diff files)."""
    dts = {}
    for launch in server.launches:
        dts.update(launch.written_buffers())
    out = []
    for cid, (path, _n) in sorted(server.outfile.items()):
        if cid in dts:
            rel = server._relative(path, "output")
            out.append((rel, dts[cid], outp / rel))
    return out


class CasesInterrupted(KeyboardInterrupt):
    """Ctrl-C during a C++ run; its text names the case folders complete so far."""


def _tail(text, n=15):
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return ("\n" + "\n".join(lines[-n:])) if lines else ""


def _parse_cases(v):
    """``--cases N`` (random input sets) or ``--cases DIR`` (a folder of input sets)."""
    if v is None:
        return 0
    if str(v).isdigit():
        return int(v)
    if pathlib.Path(v).is_dir():
        return pathlib.Path(v)
    raise RunError(
        f"--cases {v}: give a number of random input sets (e.g. --cases 1000) or a folder of input sets"
    )


def check_options(args, cases):
    """Every option of a C++ run checked before anything is built or written (RunError, exit 2):
    the profile, --block-dim within [1, max_block_dim] of the profile, --max-calls and --timeout
    positive, --scenario only for a source that uses SCENARIO_NUM, --diff a folder (and not with
    --cases), --output a folder apart from --input and --diff, not under a file. Returns the
    loaded profile."""
    from ..byok import RunInputError, check_block_dim, check_output_folder

    try:
        prof = aj.load_profile(args.profile or "ascend910b")
    except aj.AscendCError as e:
        raise RunError(
            f"--profile {args.profile}: not a profile ({e}); `ascend-jax profiles` lists them"
        ) from None
    bd = getattr(args, "block_dim", None)
    if bd is not None:
        try:
            check_block_dim(bd, prof)
        except RunInputError as e:
            raise RunError(str(e)) from None
    mc = getattr(args, "max_calls", None)
    if mc is not None and mc < 1:
        raise RunError(f"--max-calls {mc}: give a positive number of calls (the call budget of one launch)")
    to = getattr(args, "timeout", None)
    if to is not None and not to > 0:
        raise RunError(f"--timeout {to}: give a positive number of seconds")
    if args.scenario is not None and args.scenario != 1:  # a source without scenarios has one: 1
        src = pathlib.Path(args.kernel).expanduser()
        if src.is_file() and "SCENARIO_NUM" not in src.read_text(errors="replace"):
            raise RunError(
                f"--scenario {args.scenario}: {src.name} does not use SCENARIO_NUM (the vendor samples' "
                "scenario macro), so it has one scenario, 1; drop --scenario"
            )
    diff = getattr(args, "diff", None)
    if diff is not None:
        if cases:
            raise RunError("--diff compares one run; it does not combine with --cases")
        if not pathlib.Path(diff).is_dir():
            raise RunError(f"--diff {diff}: not a folder")
    if isinstance(cases, pathlib.Path):
        out = args.output
        protected = {"--cases": cases}
    else:
        out = args.output or "output"
        protected = {"--input": args.input, "--diff": diff}
    if out is not None:
        try:
            check_output_folder(out, protected)
        except RunInputError as e:
            raise RunError(str(e)) from None
    return prof


def cmd_run_cxx(args):
    """The C++ path of ``ascend-jax run`` (see the module docstring for the exit codes)."""
    from .._cache import enable_compilation_cache

    debug = getattr(args, "debug", False)
    _quiet_xla(debug)
    try:
        enable_compilation_cache()
        cases = _parse_cases(getattr(args, "cases", None))
        check_options(args, cases)
        r = run_cxx(
            args.kernel,
            profile=args.profile,
            scenario=args.scenario,
            defines=getattr(args, "define", None) or (),
            input_dir=args.input,
            output_dir=args.output or ("output" if isinstance(cases, int) else None),
            cases=cases,
            seed=getattr(args, "seed", 0) or 0,
            block_dim=getattr(args, "block_dim", None),
            schedule=getattr(args, "schedule", None) or "program",
            max_calls=getattr(args, "max_calls", None),
            argv=getattr(args, "host_arg", None) or (),
            tiling=getattr(args, "tiling", None),
            include_dirs=getattr(args, "include_dir", None) or (),
            auto_sync=getattr(args, "auto_sync", None) != "off",  # on unless --auto-sync off
            timeout=getattr(args, "timeout", None),
            check_uninit=getattr(args, "check_uninit", False),
        )
    except KeyboardInterrupt as e:
        more = f": {e}" if str(e) else ""
        print(f"{PROG}: interrupted{more}", file=sys.stderr)
        return 130
    except (B.ToolError, B.CxxError, RunError) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except (aj.AscendCError, TypeError, ValueError, IndexError) as e:
        where = getattr(e, "cxx_where", None)
        if where is None and isinstance(e, aj.NotModelledError):
            print(f"{PROG}: NotModelledError: {e}", file=sys.stderr)
            return 2
        if where is None and isinstance(e, aj.AscendCError):  # a bad option value (profile, block_dim)
            print(f"{PROG}: {type(e).__name__}: {e}", file=sys.stderr)
            return 2
        if where is None:
            return _internal(e, debug)
        print(f"{PROG}: {where}: {e.cxx_call}:\n  {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001
        return _internal(e, debug)
    sys.stdout.write(r["stdout"])
    if r["stderr"]:
        sys.stderr.write(r["stderr"])
    b = r["build"]
    info = f"built {b.source.name} in {b.seconds:.2f} s" if not b.cached else f"{b.source.name}: cached build"
    print(f"{PROG}: {info}", file=sys.stderr)
    for s in r["stats"]:
        msg = (
            f"{PROG}: launch {s['launch']} (line {s['line']}), {s['blocks']} blocks, {s['calls']} calls: "
            f"model {s['first_s']:.2f} s"
        )
        if s.get("per_case"):
            msg += (
                f"; {s['cases']} cases, each on its own (the kernel reads a value back into C++): "
                f"run {s['run_s']:.3f} s = {_rate(s['cases_per_s'])} cases/s per case"
            )
        elif "cases" in s:
            msg += (
                f"; {s['cases']} cases: compile {s['compile_s']:.2f} s, run {s['run_s']:.3f} s "
                f"= {_rate(s['cases_per_s'])} cases/s"
            )
        print(msg, file=sys.stderr)
    rc = 0
    fail = getattr(args, "findings", "fail") == "fail"
    strict = getattr(args, "strict", False)
    from ..byok import uninit_text

    for w in r["warnings"]:
        uninit = "UNINIT" in w and getattr(args, "check_uninit", False)
        print(
            f"{PROG}: {'initcheck: error' if uninit else 'checker warning'}: {uninit_text(w)}",
            file=sys.stderr,
        )
        if uninit or strict:
            rc = 1
    by_launch = {}  # one line per class and pair of source lines (findings.lines), per launch
    for launch, f in r["findings"]:
        by_launch.setdefault((launch.name, launch.line), []).append(f)
        if fail and (strict or getattr(f, "severity", "error") == "error"):
            rc = 1  # SPEC (issue 47 item 7): a warning is printed; only errors fail, unless --strict
    for (name, line), fs in by_launch.items():
        for text in F.lines(fs):
            print(f"{PROG}: launch {name} (line {line}): {text}", file=sys.stderr)
    for f in r["host_findings"]:
        f = f.replace(f"{b.source.parent}/", "")  # the user's file by name, as the kernel findings
        print(f"{PROG}: host: {f}", file=sys.stderr)
        if fail and (": error: " in f or (strict and ": warning: " in f)):
            rc = 1
    for launch, case, f, at in r["faults"]:
        at = at.replace(f"{b.source.parent}/", "")
        at = f"\n  first fault: {at}" if at else ""
        print(f"{PROG}: launch {launch.name} case {case}: FAULT {aj.describe_faults(f)}{at}", file=sys.stderr)
        rc = 1
    if r["returncode"] != 0:
        print(
            f"{PROG}: the host program exited with status {r['returncode']} (its own check failed?)",
            file=sys.stderr,
        )
        rc = 1
    if getattr(args, "diff", None):
        rc = max(rc, _diff(r, args.diff))
    for w in r["writefail"]:
        print(f"{PROG}: the host program's WriteFile could not write {w}", file=sys.stderr)
        rc = 2  # the results are not where the user expects them: an output location problem
    return rc


def _rate(v):
    """A cases/s figure with 3 significant digits (a per-case run makes well under 1 a second)."""
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def _quiet_xla(debug):
    """XLA's own C++ log lines (e.g. the algebraic simplifier's) are not the user's business: below
    FATAL they stay off the terminal unless --debug, TF_CPP_MIN_LOG_LEVEL or JAX_LOGGING_LEVEL asks."""
    if debug or "TF_CPP_MIN_LOG_LEVEL" in os.environ or "JAX_LOGGING_LEVEL" in os.environ:
        return
    with contextlib.suppress(Exception):  # an older jaxlib without the switch: leave it
        from jax._src.lib import utils

        utils.absl_set_min_log_level(3)


def _diff(r, theirs):
    """``--diff DIR`` for a C++ run: each output file the host's WriteFile wrote from a kernel's
    GM buffer against the file of the same name under DIR, the Python path's report (byok.diff_files)."""
    from ..byok import RunInputError, diff_files

    files = r["outputs"]
    if not files:
        print(
            f"{PROG}: --diff {theirs}: the host program wrote no output file from a kernel's GM buffer "
            "(WriteFile after aclrtMemcpy device-to-host); nothing to compare",
            file=sys.stderr,
        )
        return 2
    entries = [
        (
            str(rel),
            ours,
            pathlib.Path(theirs) / rel,
            aj.as_dtype(dt),
            f"the host's output {rel}, {aj.as_dtype(dt).name}",
        )
        for rel, dt, ours in files
    ]
    try:
        clean, lines = diff_files(entries)
    except RunInputError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0 if clean else 1


def _internal(e, debug):
    import traceback

    if debug:
        traceback.print_exc(file=sys.stderr)
    print(f"{PROG}: internal error: {type(e).__name__}: {e}", file=sys.stderr)
    return 3


def is_cxx_target(target):
    return str(target).lower().endswith((".asc", ".cpp", ".cc", ".cxx"))


def add_options(parser):
    """The C++ options of ``ascend-jax run`` (added to byok's parser by the CLI; ``--block-dim``
    overrides every launch's block count, ``--schedule`` / ``--findings`` as for a Python kernel)."""
    parser.add_argument(
        "-D",
        dest="define",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="C++: a macro for the build",
    )
    # --block-dim and --schedule are the run command's own options (cli._add_run_parser): a C++
    # launch's block count is overridden by --block-dim, its schedule is --schedule.
    parser.add_argument("--seed", type=int, default=0, help="C++ --cases N: the seed of the random inputs")
    parser.add_argument(
        "--max-calls",
        type=int,
        default=None,
        help="C++: a call budget for one kernel launch's trace (default: none; a loop's calls compile once, "
        "as one loop body); past it the run stops naming the most repeated call site",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help=f"C++: seconds the host program (its main and the kernels' C++) may run, not counting the "
        f"model's time (default {DEFAULT_TIMEOUT:g}); past it the program is stopped",
    )
    parser.add_argument(
        "--arg",
        dest="host_arg",
        action="append",
        default=[],
        metavar="ARG",
        help="C++: a command-line argument for the host program's main (repeat for several)",
    )
    parser.add_argument(
        "-I",
        dest="include_dir",
        action="append",
        default=[],
        metavar="DIR",
        help="C++: an include folder of the project (its CMake include_directories), searched after the "
        "including file's folder and the main file's, before ascend_jax's headers",
    )
    parser.add_argument(
        "--tiling",
        default=None,
        metavar="FILE.json",
        help="C++: run an op-framework kernel (op_kernel/*.cpp) with this tiling, block count, inputs and "
        "outputs (docs/BRING_YOUR_OWN_KERNEL.md)",
    )
    python_fn = parser.get_default("fn")

    def dispatch(args):
        if is_cxx_target(args.kernel):
            return cmd_run_cxx(args)
        return python_fn(args)

    parser.set_defaults(fn=dispatch)
    return parser


def _copy_tree(src, dst):
    shutil.copytree(src, dst, dirs_exist_ok=True)
