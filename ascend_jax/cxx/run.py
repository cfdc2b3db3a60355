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
the launch runs N + 1 cases in one compiled program -- case 0 is the host's own inputs (the host
continues with its results), cases 1..N are written to ``OUTPUT/cases/case_XXXXX/{input,output}/
arg<k>.bin`` (k: the kernel argument's position). It prints the C++ build time, the model's
compile time and cases/s.

Exit codes: 0 clean, 1 the model recorded faults or the host program's own check failed (a
non-zero exit), 2 bad input (no compiler, a compile error, an unmodelled API, a usage error, a
missing input file, a host program that crashes or never launches a kernel), 3 internal error.
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

from . import build as B
from . import rolled as R
from . import trace as T

PROG = "ascend-jax run"


class RunError(Exception):
    """Bad input or a failed host program (exit 2)."""


def _random_bytes(rng, dt_name, nbytes, batch):
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
    ):
        self.exchange = pathlib.Path(exchange)
        self.profile = profile
        self.cases, self.seed, self.output, self.schedule = cases, seed, output, schedule
        # --cases DIR: [(name, input folder, output folder)]; case 0 is the host's own (the first)
        self.case_dirs = case_dirs or []
        if self.case_dirs:
            self.cases = len(self.case_dirs) - 1
        self.write_cases = write_cases
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

    # -- VALUE ---------------------------------------------------------------------------------------
    def value(self, index, event):
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
        )
        if "value" not in capture:
            raise RuntimeError(f"{T.where(e)}: internal: the replay did not reach the value read")
        ty = e.get("ret")
        if ty is None:
            ty = next(a["ty"] for a in e["args"] if isinstance(a, dict) and a.get("t") == "out")
        dt = np.bool_ if ty == "bool" else aj.as_dtype(ty).np_dtype
        v = np.asarray(capture["value"]).astype(dt).reshape(())
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
        arrays = [g[None] for g in gms]
        rand = {}
        if self.case_dirs and self.cases:
            for pos, cid in enumerate(launch.buffers):
                if cid in self.infile:
                    r = self._case_files(cid, gms[pos])
                    rand[cid] = r
                    arrays[pos] = np.concatenate([gms[pos][None], r])
                else:
                    arrays[pos] = np.repeat(gms[pos][None], batch, axis=0)
        elif self.cases:
            rng = np.random.default_rng(self.seed)
            read = launch.read_buffers()
            for pos, cid in enumerate(launch.buffers):
                if cid in read:
                    r = _random_bytes(rng, read[cid], gms[pos].size, self.cases)
                    rand[cid] = r
                    arrays[pos] = np.concatenate([gms[pos][None], r])
                else:
                    arrays[pos] = np.repeat(gms[pos][None], batch, axis=0)
        if per_case:
            # SPEC (issue 32 item 3): a value read back into C++ may steer the kernel's control flow
            # or addresses, so the trace of case 0 holds for case 0 only. Each other case reruns the
            # kernel's C++ on its own inputs (``CASE`` requests: the header's launch loop), each
            # trace on the model with batch 1 -- exact, at per-case speed.
            return self._per_case_start(index, launch, arrays, rand)
        res, stat = self._execute(launch, arrays, timed=bool(self.cases))
        self.stats.append(stat)
        self._collect(launch, res, batch)
        self._answer(index, launch, res)
        if self.cases and self.write_cases:
            written = launch.written_buffers()
            outs = {
                cid: np.asarray(res.gm[pos])[1:] for pos, cid in enumerate(launch.buffers) if cid in written
            }
            self.pending.append((launch, index, rand, outs))
        self.launches.append(launch)
        return 0

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
        self._collect(launch, res, 1)
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
        res, _ = self._execute(launch, [g[None] for g in launch.gm_inputs()], timed=False)
        self._collect(launch, res, 1, case=c)
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
        if run is None:
            run = aj.jit_kernel(
                fn, profile=self.profile, return_state=True, block_dim=launch.blocks, schedule=self.schedule
            )
            self._compiled[key] = run
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

    def _collect(self, launch, res, batch, case=0):
        """Faults per case, findings and warnings of one run (``case``: the first case's index)."""
        states = res.state if isinstance(res.state, tuple) else (res.state,)  # one per core
        faults = np.concatenate([np.asarray(st.fault).reshape(batch, -1) for st in states], axis=1)
        for b in range(batch):
            f = int(np.bitwise_or.reduce(faults[b]))
            if f:
                self.faults.append((launch, case + b, f))

        def key(la, f):
            return (la.line, f.tool, f.kind, tuple((c.core, c.index, c.api) for c in f.calls))

        seen = {key(la, f) for la, f in self.findings} if case else ()
        for f in res.findings:  # a per-case rerun reports a finding of its launch once
            if key(launch, f) not in seen:
                self.findings.append((launch, f))
        for w in getattr(res, "warnings", None) or []:
            if w and w not in self.warnings:
                self.warnings.append(w)

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
        file fed or took); ``--cases DIR``: each case folder's output folder."""
        several = len({idx for _, idx, _, _ in self.pending}) > 1
        for _launch, index, rand, outs in self.pending:
            for c in range(1, 1 + self.cases):
                if self.case_dirs:
                    _name, ind, outd = self.case_dirs[c]
                    ind, outd = None, pathlib.Path(outd)
                else:
                    d = pathlib.Path(self.output or "output") / "cases"
                    d = d / (f"launch{index}_case_{c:05d}" if several else f"case_{c:05d}")
                    ind, outd = d / "input", d / "output"
                outd.mkdir(parents=True, exist_ok=True)
                for cid, r in rand.items():
                    if ind is None:
                        break
                    ind.mkdir(parents=True, exist_ok=True)
                    name = (
                        self._relative(self.infile[cid][0], "input") if cid in self.infile else f"gm{cid}.bin"
                    )
                    (ind / name).parent.mkdir(parents=True, exist_ok=True)
                    r[c - 1].tofile(ind / name)
                for cid, o in outs.items():
                    if cid in self.outfile:
                        path, n = self.outfile[cid]
                        name, data = self._relative(path, "output"), o[c - 1][:n]
                    else:
                        name, data = pathlib.Path(f"gm{cid}.bin"), o[c - 1]
                    (outd / name).parent.mkdir(parents=True, exist_ok=True)
                    data.astype(np.uint8, copy=False).tofile(outd / name)


def _serve(build, cwd, server, block_dim=None, max_calls=None, argv=()):
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
        rc, error = _talk(build, cwd, env, server, req_r, req_w, rep_r, rep_w, out_f, err_f, argv)
        out_f.seek(0)
        err_f.seek(0)
        stdout = out_f.read().decode(errors="replace")
        stderr = err_f.read().decode(errors="replace")
    if error is not None:
        raise error
    return rc, stdout, stderr


def _talk(build, cwd, env, server, req_r, req_w, rep_r, rep_w, out_f, err_f, argv=()):
    proc = subprocess.Popen(
        [str(build.exe), *argv],
        cwd=cwd,
        env=env,
        pass_fds=(req_w, rep_r),
        stdout=out_f,
        stderr=err_f,
        stdin=subprocess.DEVNULL,
    )
    os.close(req_w)
    os.close(rep_r)
    error = None
    with os.fdopen(req_r, "r") as reader, os.fdopen(rep_w, "w") as writer:
        for line in reader:
            parts = line.split()
            if not parts:
                continue
            try:
                if parts[0] == "READFAIL":
                    server.readfail.append(line.split(" ", 1)[1].strip())
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
                    writer.write(f"V {server.value(int(parts[1]), int(parts[2]))}\n")
                else:
                    raise RuntimeError(f"internal: unknown request {line!r}")
            except Exception as e:  # noqa: BLE001  (reported after the host stops)
                error = error or e
                with contextlib.suppress(BrokenPipeError):
                    writer.write("ERR\n")
            with contextlib.suppress(BrokenPipeError):
                writer.flush()
    return proc.wait(), error


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
):
    """Build and run ``source``; returns a dict (returncode, stdout, stderr, build, stats, faults,
    warnings). Raises B.CxxError / B.ToolError / RunError / the model's errors."""
    source = pathlib.Path(source).expanduser().resolve()
    if not source.is_file():
        raise RunError(f"{source}: no such file")
    prof = aj.load_profile(profile or "ascend910b")
    defs = scenario_defines(source, scenario, defines)
    bld = B.build(source, prof, defs)
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
    outp.mkdir(parents=True, exist_ok=True)
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
        )
        server.cwd = cwd
        rc, stdout, stderr = _serve(bld, cwd, server, block_dim, max_calls, argv)
        server.finish()
    if rc < 0:
        try:
            sig = signal.Signals(-rc).name
        except ValueError:
            sig = str(-rc)
        raise RunError(f"the host program of {source.name} crashed ({sig}){_tail(stderr)}")
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
    }


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


def cmd_run_cxx(args):
    """The C++ path of ``ascend-jax run`` (see the module docstring for the exit codes)."""
    from .._cache import enable_compilation_cache

    debug = getattr(args, "debug", False)
    try:
        enable_compilation_cache()
        cases = _parse_cases(getattr(args, "cases", None))
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
        )
    except (B.ToolError, B.CxxError, RunError) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except (aj.AscendCError, TypeError, ValueError, IndexError) as e:
        where = getattr(e, "cxx_where", None)
        if where is None and isinstance(e, aj.NotModelledError):
            print(f"{PROG}: NotModelledError: {e}", file=sys.stderr)
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
                f"run {s['run_s']:.3f} s = {s['cases_per_s']:.0f} cases/s per case"
            )
        elif "cases" in s:
            msg += (
                f"; {s['cases']} cases: compile {s['compile_s']:.2f} s, run {s['run_s']:.3f} s "
                f"= {s['cases_per_s']:.0f} cases/s"
            )
        print(msg, file=sys.stderr)
    for w in r["warnings"]:
        print(f"{PROG}: checker warning: {w}", file=sys.stderr)
    rc = 0
    for launch, f in r["findings"]:
        print(f"{PROG}: launch {launch.name} (line {launch.line}): {f}", file=sys.stderr)
        if getattr(args, "findings", "fail") == "fail":
            rc = 1
    for f in r["host_findings"]:
        f = f.replace(f"{b.source.parent}/", "")  # the user's file by name, as the kernel findings
        print(f"{PROG}: host: {f}", file=sys.stderr)
        if ": error: " in f and getattr(args, "findings", "fail") == "fail":
            rc = 1
    for launch, case, f in r["faults"]:
        print(f"{PROG}: launch {launch.name} case {case}: FAULT {aj.describe_faults(f)}", file=sys.stderr)
        rc = 1
    if r["returncode"] != 0:
        print(
            f"{PROG}: the host program exited with status {r['returncode']} (its own check failed?)",
            file=sys.stderr,
        )
        rc = 1
    return rc


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
        "--arg",
        dest="host_arg",
        action="append",
        default=[],
        metavar="ARG",
        help="C++: a command-line argument for the host program's main (repeat for several)",
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
