"""``run``: a differential campaign. Cases come from ``generate`` (case ``i`` from ``(seed, i)``),
are bucketed by static signature and run batched through the fast path, one compiled program per
signature, dispatched asynchronously from the main thread, which runs the NumPy reference on the
oracle sample meanwhile; results go to the journal as each chunk finishes (records built per
batch); mismatches are shrunk and written as repro capsules."""

import collections
import functools
import json
import os
import pathlib
import sys
import time

import numpy as np

from .. import _compile
from .. import reference as _ref
from ..errors import AscendCError, UsageError
from ..profile import as_profile
from . import compare as CMP
from . import runner as RUN
from .families.base import UB_GENERATOR
from .generate import CASE_GENERATOR, generate_case, generate_cases, make_plan, oracle_fraction
from .report import FuzzResult, Progress
from .resume import Journal

ROUND = 65536  # cases generated and bucketed together (bigger: fuller batches)


class Oracle:
    """The reference with some API functions replaced: ``Oracle(Maxs=my_wrong_maxs)`` stands in
    for ``ascend_jax.reference`` (e.g. a deliberately wrong variant planted by a test)."""

    _is_reference = True

    def __init__(self, base=None, **overrides):
        self.__dict__["_base"] = base or _ref
        self.__dict__["_over"] = dict(overrides)

    def __getattr__(self, name):
        if name in self.__dict__["_over"]:
            return self.__dict__["_over"][name]
        return getattr(self.__dict__["_base"], name)


# the digest version of the campaign being written (``run`` sets it: a resumed campaign keeps the
# version its journal was started with; records are built on the main thread only)
_DIGEST_VERSION = [CMP.DIGEST_VERSION]


def _record(fc, p, status, fast=None, ref=None, diff=None, note=None, row=None):
    """One journal record. ``fast``: the fast path's (state, ret) of the case; or ``row``: its
    (fault, warn, digest) already taken from a batch (``_run_dynamic``)."""
    fam = fc.family
    rec = {
        "i": fc.index,
        "api": fc.api,
        "family": fam.name,
        "dtype": getattr(fc.case, "dtype", "-"),
        "kind": fc.kind,
        "oracle": fc.oracle,
        "status": status,
        "labels": list(fam.labels(fc.case, p)),
    }
    if fc.what:
        rec["what"] = fc.what
    if fast is not None:
        st, ret = fast
        warn = getattr(st, "warn", None)
        row = (int(np.asarray(st.fault)), 0 if warn is None else int(np.asarray(warn)))
        row += (CMP.digest(st, ret, _DIGEST_VERSION[0]),)
    if row is not None:
        rec["fault"] = row[0]
        if row[1]:
            rec["warn"] = row[1]  # checker warnings (docs/MODEL.md)
        rec["digest"] = row[2]
    if ref is not None:
        rec["ref_fault"] = int(ref[0].fault)
        if getattr(ref[0], "warn", 0):
            rec["ref_warn"] = int(ref[0].warn)
    if diff is not None:
        rec["diff"] = str(diff)
    if note:
        rec["note"] = note
    if status in ("mismatch", "error"):
        rec["case"] = fam.to_json(fc.case)
    return rec


def _exc_text(e):
    arg = getattr(e, "argument", None)
    return f"{type(e).__name__}({arg})" if arg is not None else f"{type(e).__name__}: {e}"


def _arg_names(e):
    """The argument names a UsageError gives, exactly as spelled (both implementations use the C++
    spelling: "repeatParams.dstRepStride", "mask[1]"), split only where one error names two
    arguments together ("maskHigh/maskLow", "src0/src1")."""
    return set(str(e.argument).split("/"))


def check_static(fc, p, oracle=None):
    """A deliberately invalid static call: both implementations must reject it with a UsageError
    naming the same argument (or the same other error); if neither rejects it, their results are
    compared as usual."""
    import ascend_jax as aj

    fam, case = fc.family, fc.case
    fields = RUN.initial_fields(case, fam.initial_ub(case))
    out = {}
    for side, mod, st in (
        ("ref", oracle or _ref, lambda: RUN.ref_state(fields, p)),
        # NumPy leaves: most of these calls raise while their program is traced, before any
        # transfer (device arrays cost ~1.5 ms a state here)
        ("fast", aj, lambda: RUN.host_state(fields)),
    ):
        try:
            out[side] = (None, fam.call_static(mod, case, st(), p))
        except (AscendCError, ValueError, TypeError) as e:
            out[side] = (e, None)
    (re_, rres), (fe, fres) = out["ref"], out["fast"]
    if re_ is not None and fe is not None:
        if isinstance(re_, UsageError) and isinstance(fe, UsageError):
            # the same argument (one spelling in both implementations; see _arg_names)
            same = bool(_arg_names(re_) & _arg_names(fe))
        else:
            same = type(re_) is type(fe)
        note = f"ref {_exc_text(re_)}, fast {_exc_text(fe)}"
        if same and isinstance(re_, UsageError) and fc.what and re_.argument != fc.what:
            note += f" (injected: {fc.what})"
        return _record(fc, p, "rejected" if same else "mismatch", diff=None if same else note, note=note)
    if re_ is not None or fe is not None:
        who = "reference" if re_ is not None else "fast path"
        e = re_ if re_ is not None else fe
        return _record(fc, p, "mismatch", diff=f"only the {who} rejects it: {_exc_text(e)}")
    import jax

    fres = (jax.tree_util.tree_map(np.asarray, fres[0]), None if fres[1] is None else np.asarray(fres[1]))
    d = CMP.compare(fres[0], rres[0], fres[1], rres[1])
    return _record(fc, p, "mismatch" if d else "ok", fast=fres, ref=rres, diff=d, note="accepted by both")


def timing_summary(timing):
    """(fast cases/s after each signature's first chunk, seconds of first chunks beyond their
    steady-state cost = compilation, oracle cases/s) from ``_run_dynamic``'s ``timing``."""
    first, steady_n, steady_t, per_key = {}, 0, 0.0, {}
    for key, n, dt in timing.get("fast", []):
        if key not in first:
            first[key] = (n, dt)
        else:
            steady_n, steady_t = steady_n + n, steady_t + dt
            per_key.setdefault(key, []).append(dt / n)
    per_case = steady_t / steady_n if steady_n else None
    compile_s = 0.0
    for key, (n, dt) in first.items():
        c = per_key.get(key)
        compile_s += max(0.0, dt - n * (sorted(c)[len(c) // 2] if c else (per_case or 0.0)))
    fast_cps = steady_n / steady_t if steady_t else None
    on, ot = timing.get("oracle_cases", 0), timing.get("oracle_seconds", 0.0)
    return fast_cps, compile_s, (on / ot if ot else None)


# A signature drawn few times is built for compile time (``ascend_jax._compile``: quick build,
# ~5-10x slower to run); once its first chunk has run, the rest of its cases switch to the optimised
# build when their projected extra run time exceeds what that build costs to compile (~1 s of XLA
# codegen a signature, measured on the Adds/Select/GatherMask campaign programs). Same bits either way.
QUICK_SWITCH_SECONDS = 1.0
QUICK_SWITCH_SLOWDOWN = 5.0


class _FullBuilds:
    """The signatures whose optimised build a campaign compiled into the persistent XLA cache
    (``ascend_jax._cache``), listed in ``fuzz-full-builds.json`` beside it: a later campaign starts
    them on that build (a cache load, as the quick build's would be) instead of running a first
    chunk on the quick build. Nothing is listed without a persistent cache. The key names the
    package version and JAX's, so an upgrade starts afresh; a listed build that is not in the cache
    after all is compiled again (slower, the same bits)."""

    FILE = "fuzz-full-builds.json"

    def __init__(self, p, sharding):
        import jax

        d = jax.config.jax_compilation_cache_dir
        self.path = pathlib.Path(d) / self.FILE if d else None
        self.tag = f"{_version()}|jax {jax.__version__}|{p.name}|{'sharded' if sharding is not None else '1'}"
        self.keys, self.new = set(), False
        if self.path is not None and self.path.is_file():
            try:
                self.keys = set(json.loads(self.path.read_text()))
            except (OSError, ValueError, TypeError):
                self.keys = set()

    def _key(self, key, size):
        return f"{self.tag}|{key!r}|{size}"

    def known(self, key, size):
        return self._key(key, size) in self.keys

    def add(self, key, size):
        if self.path is not None and self._key(key, size) not in self.keys:
            self.keys.add(self._key(key, size))
            self.new = True

    def save(self):
        if not self.new:
            return
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(sorted(self.keys)))
            os.replace(tmp, self.path)
        except OSError:
            pass  # a read-only cache directory: nothing is remembered


def _version():
    try:
        from importlib.metadata import version

        return version("ascend_jax")
    except Exception:  # noqa: BLE001  (not installed: a source checkout)
        return "source"


def _run_dynamic(fcs, p, batch, workers, oracle, emit, timing=None, sharding=None, idle=None):
    """Bucket ``fcs`` by (family, signature) and run them chunk by chunk on this thread: each chunk
    is dispatched to the fast path (``runner.launch_chunk``: one compiled program per signature,
    JAX runs it asynchronously) up to ``workers`` chunks ahead, and while it runs this thread
    computes the reference on the chunk's oracle sample, then reads the results back as one batch,
    compares, and emits the records (digests built per batch). ``timing`` (a dict) collects the
    fast path's seconds per chunk (building its inputs, dispatching, waiting for and reading back
    its results) and the oracle's; ``sharding`` splits each chunk over devices. ``idle``: a deque
    of zero-argument callables returning one record each (the invalid-static checks), run while a
    chunk is still running instead of waiting for it, the rest at the end."""
    timing = {} if timing is None else timing
    idle = collections.deque() if idle is None else idle

    def spent(phase, t0):
        sh = timing.setdefault("shares", {})
        sh[phase] = sh.get(phase, 0.0) + time.perf_counter() - t0

    def run_idle(out=None):
        recs, t0 = [], time.perf_counter()
        while idle and (out is None or not out.ready()):
            recs.append(idle.popleft()())
        if recs:
            spent("invalid-static checks", t0)
            emit(recs)

    groups = {}
    for k, fc in enumerate(fcs):
        groups.setdefault((fc.family.name, fc.family.signature(fc.case, p)), []).append(k)
    inflight = collections.deque()
    built = _FullBuilds(p, sharding)
    quick = {
        key: RUN.quick_for(fcs[idx[0]].family, len(idx))
        and not built.known(key, RUN.chunk_size(len(idx), batch))
        for key, idx in groups.items()
    }
    launched = dict.fromkeys(groups, 0)
    builds = set()

    def launch(key, ch):
        fam = fcs[ch[0]].family
        size = RUN.chunk_size(len(groups[key]), batch)
        q, first = quick[key], launched[key] == 0
        launched[key] += len(ch)
        new_build = (key, q) not in builds  # its first chunk, or its first on the optimised build
        builds.add((key, q))
        t = time.perf_counter()
        try:
            whole = RUN.compiled_chunks(len(groups[key]), batch)
            out = RUN.launch_chunk(fam, [fcs[k].case for k in ch], p, size, sharding, q, whole)
            if not q:
                built.add(key, size)
            left = len(groups[key]) - launched[key]
            if q and first and left:
                # the quick build's run time decides whether the rest of the signature's cases
                # pay for the optimised build (QUICK_SWITCH_*)
                t_run = time.perf_counter()
                out.wait()
                slow = left * (time.perf_counter() - t_run) / size * (1 - 1 / QUICK_SWITCH_SLOWDOWN)
                quick[key] = slow <= QUICK_SWITCH_SECONDS
                if not quick[key]:
                    timing["switched"] = timing.get("switched", 0) + 1
        except Exception as e:  # noqa: BLE001  (the whole bucket failed: reported per case)
            out = e
        # a signature's first chunk on a build loads (or compiles) its program
        spent("fast path: programs (first chunks)" if new_build else "fast path: inputs, dispatch", t)
        inflight.append(((key, q), ch, out, time.perf_counter() - t))

    def finish(key, ch, out, t_launch):
        refs = {}
        t_or = time.perf_counter()
        for k in ch:
            fc = fcs[k]
            if fc.oracle:
                try:
                    refs[k] = RUN.run_reference(fc.family, fc.case, p, oracle)
                except Exception as e:  # noqa: BLE001  (reported per case)
                    refs[k] = e
        timing["oracle_seconds"] = timing.get("oracle_seconds", 0.0) + time.perf_counter() - t_or
        spent("reference", t_or)
        timing["oracle_cases"] = timing.get("oracle_cases", 0) + len(refs)
        if not isinstance(out, Exception):
            run_idle(out)
        t = time.perf_counter()
        try:
            if isinstance(out, Exception):
                raise out
            res = out.result()
        except Exception as e:  # noqa: BLE001
            emit([_record(fcs[k], p, "error", diff=f"fast path raised {_exc_text(e)}") for k in ch])
            return
        timing.setdefault("fast", []).append((key, len(ch), t_launch + time.perf_counter() - t))
        spent("fast path: waiting, reading back", t)
        t = time.perf_counter()
        dig = CMP.digests(res.fields, res.ret, _DIGEST_VERSION[0])
        faults = res.fields["fault"].astype(np.int64).tolist()
        warns = res.fields["warn"].astype(np.int64).tolist()
        recs = []
        for j, k in enumerate(ch):
            fc = fcs[k]
            row = (faults[j], warns[j], dig[j])
            r = refs.get(k)
            if r is None:
                recs.append(_record(fc, p, "unchecked", row=row))
            elif isinstance(r, Exception):
                recs.append(_record(fc, p, "error", row=row, diff=f"reference raised {_exc_text(r)}"))
            else:
                st, ret = res.row(j)
                d = CMP.compare(st, r[0], ret, r[1])
                recs.append(_record(fc, p, "mismatch" if d else "ok", row=row, ref=r, diff=d))
        spent("digests, comparison, records", t)
        emit(recs)

    depth = max(1, int(workers))
    finished = [0]

    def bound_programs():
        # a campaign over thousands of signatures must not keep every program it compiled
        # (``_compile.too_many_programs``); checked every 8 chunks (~5-10 ms a check)
        finished[0] += 1
        if finished[0] % 8 == 0 and _compile.too_many_programs():
            for _, _, out, _ in inflight:
                if not isinstance(out, Exception):
                    out.wait()
            RUN.release_programs()
            timing["released"] = timing.get("released", 0) + 1

    for key, idx in groups.items():
        for s in range(0, len(idx), batch):
            launch(key, idx[s : s + batch])
            if len(inflight) > depth:
                finish(*inflight.popleft())
                bound_programs()
    while inflight:
        finish(*inflight.popleft())
    run_idle()
    built.save()


def _int_arg(name, v, lo=None):
    """``v`` as an int >= lo (an int or a NumPy integer; never a bool, str or float)."""
    what = "an int" if lo is None else f"an int >= {lo}"
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise ValueError(f"fuzz.run: {name}={v!r} must be {what} (got {type(v).__name__})")
    if lo is not None and int(v) < lo:
        raise ValueError(f"fuzz.run: {name}={v!r} must be an int >= {lo}")
    return int(v)


def _real_arg(name, v, lo, hi, what):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ValueError(f"fuzz.run: {name}={v!r} must be {what} (got {type(v).__name__})")
    x = float(v)
    if not (lo <= x <= hi):  # NaN fails too
        raise ValueError(f"fuzz.run: {name}={v!r} must be {what}")
    return x


def _check_dtypes(dtypes):
    from .. import dtypes as _dt

    names = [d.strip() for d in (dtypes.split(",") if isinstance(dtypes, str) else dtypes)]
    known = {d.name for d in _dt.ALL} | {d.name for d in _dt.SPECIAL if d.modelled}  # + int4b (int4b_t)
    bad = [d for d in names if d not in known]
    if bad or not names:
        raise ValueError(
            f"fuzz.run: dtypes={dtypes!r}: unknown element type(s) {', '.join(bad) or '(none given)'}; "
            f"known: {', '.join(sorted(known))}"
        )


def _check_shard(shard):
    """``shard``: None, or (process id, number of processes) with 0 <= id < number."""
    if shard is None:
        return None
    ok = isinstance(shard, (tuple, list)) and len(shard) == 2
    if ok:
        pid = _int_arg("shard[0] (process id)", shard[0], 0)
        n = _int_arg("shard[1] (number of processes)", shard[1], 1)
        ok = pid < n
    if not ok:
        raise ValueError(
            f"fuzz.run: shard={shard!r} must be (process id, number of processes), 0 <= id < number"
        )
    return (pid, n)


def _check_devices(devices):
    """``devices``: None or 1 (one device), "all", a device count, or a list of devices -> the
    sharding of the fast path's case axis (None: unsharded)."""
    from ..kernel import case_sharding

    if devices is None or (isinstance(devices, int) and not isinstance(devices, bool) and devices == 1):
        return None
    try:
        return case_sharding(devices, "fuzz.run")
    except UsageError as e:
        raise ValueError(f"fuzz.run: devices={devices!r} must be {e.allowed}") from None


def _check_run_args(cases, seed, batch, invalid_rate, oracle_sample, workers, max_capsules):
    """Validate ``run``'s numeric arguments: a campaign with nothing to run or nothing to check is
    refused here (it would otherwise report 0 mismatches having checked nothing)."""
    cases = _int_arg("cases", cases, 1)
    seed = _int_arg("seed", seed)
    batch = _int_arg("batch", batch, 1)
    workers = _int_arg("workers", workers, 1)
    max_capsules = _int_arg("max_capsules", max_capsules, 0)
    invalid_rate = _real_arg("invalid_rate", invalid_rate, 0.0, 1.0, "a share in [0, 1]")
    if oracle_sample is not None:
        oracle_sample = _real_arg(
            "oracle_sample",
            oracle_sample,
            0.0,
            float("inf"),
            "a share in (0, 1] or a number of cases > 1 (None: the default sample)",
        )
        if oracle_sample == 0.0 and invalid_rate == 0.0:
            raise ValueError(
                "fuzz.run: oracle_sample=0 with invalid_rate=0 checks no case against the reference"
            )
    return cases, seed, batch, invalid_rate, oracle_sample, workers, max_capsules


def run(
    apis=None,
    profile=None,
    cases=1000,
    seed=0,
    out=None,
    batch=256,
    oracle_sample=None,
    invalid_rate=0.1,
    progress=False,
    resume=False,
    workers=2,
    shrink=True,
    oracle=None,
    max_capsules=20,
    dtypes=None,
    force=False,
    devices=None,
    shard=None,
):
    """Run a differential campaign and return a ``FuzzResult``.

    ``apis``: API names (list or comma-separated; default every registered API); ``profile``:
    hardware profile (default ascend910b); ``cases``: number of cases, ``seed``: campaign seed
    (case ``i`` depends on ``(seed, i)`` only); ``out``: directory for meta.json, results.jsonl,
    capsules/ and summary.json (None: nothing written); ``batch``: padded batch size of the fast
    path (a signature with fewer cases runs them in the smallest power of two >= 8 that holds
    them); ``workers``: chunks dispatched ahead of the one being checked; ``oracle_sample``: share (<= 1) or number (> 1) of cases checked by the reference (None:
    all up to 20,000 cases, then about 20,000); ``invalid_rate``: share of deliberately invalid
    cases (half static misuse, half data-dependent faults); ``resume``: continue the campaign in
    ``out``; ``oracle``: a stand-in for the reference (``Oracle``); ``shrink``: shrink mismatches
    and write capsules (at most ``max_capsules``); ``dtypes``: only these element types;
    ``force``: start afresh in an ``out`` that already holds a campaign (else ValueError);
    ``devices``: split every batched fast-path run over local devices (``"all"``, a count, or a
    list of devices; None: one device); ``shard``: ``(process id, number of processes)``: run only
    the cases ``i`` with ``i % number == id`` (one process of a ``--distributed`` campaign, see
    ``fuzz.shard``). Neither changes a record: case ``i`` comes from ``(seed, i)`` alone.

    Bad arguments raise ``ValueError`` naming the argument before anything runs (a campaign
    that would check nothing is refused, see ``_check_run_args``)."""
    t0 = time.perf_counter()
    cases, seed, batch, invalid_rate, oracle_sample, workers, max_capsules = _check_run_args(
        cases, seed, batch, invalid_rate, oracle_sample, workers, max_capsules
    )
    shard = _check_shard(shard)
    sharding = _check_devices(devices)
    p = as_profile(profile)
    if dtypes is not None:
        _check_dtypes(dtypes)
    from .._cache import enable_compilation_cache

    enable_compilation_cache(override=False)  # the CLI's persistent XLA cache, from Python too
    plan = make_plan(p, apis, dtypes)
    if not plan.apis:
        why = "; ".join(f"{a}: {r}" for a, r in plan.not_fuzzed.items()) or "no API selected"
        raise ValueError(f"nothing to fuzz on {p.name} ({why})")
    frac = oracle_fraction(oracle_sample, cases)
    meta = {
        "seed": int(seed),
        "profile": p.name,
        "apis": list(plan.apis),
        "dtypes": None
        if dtypes is None
        else sorted(set(dtypes.split(",") if isinstance(dtypes, str) else dtypes)),
        "invalid_rate": float(invalid_rate),
        "oracle_frac": frac,
        "cases": int(cases),
        "batch": int(batch),
    }
    if shard is not None:
        meta["shard"] = list(shard)
    meta["digest_version"] = CMP.DIGEST_VERSION
    meta["ub_generator"] = UB_GENERATOR
    meta["case_generator"] = CASE_GENERATOR
    journal = Journal(out, meta, resume, force) if out is not None else None
    _DIGEST_VERSION[0] = meta["digest_version"]  # a resumed journal's own (resume.Journal)
    records = dict(journal.done) if journal else {}
    resumed = len(records)
    mine = range(int(cases)) if shard is None else range(shard[0], int(cases), shard[1])
    todo = [i for i in mine if i not in records]
    enabled = progress if progress is not None else sys.stderr.isatty()
    bar = Progress(len(todo), enabled=bool(enabled))

    def emit(recs):
        for r in recs:
            records[r["i"]] = r
        if journal:
            journal.append(recs)
        bar.update(len(recs))

    timing = {}
    try:
        for r0 in range(0, len(todo), ROUND):
            t_draw = time.perf_counter()
            fcs = generate_cases(plan, seed, todo[r0 : r0 + ROUND], invalid_rate, frac)
            sh = timing.setdefault("shares", {})
            sh["drawing cases"] = sh.get("drawing cases", 0.0) + time.perf_counter() - t_draw
            static = collections.deque(
                functools.partial(check_static, fc, p, oracle) for fc in fcs if fc.kind == "invalid-static"
            )
            _run_dynamic(
                [fc for fc in fcs if fc.kind != "invalid-static"],
                p,
                batch,
                workers,
                oracle,
                emit,
                timing,
                sharding,
                idle=static,
            )
    finally:
        bar.close()
        if journal:
            journal.close()
    t_run = time.perf_counter() - t0
    capsules = []
    if shrink:
        from .capsule import shrink_and_capsule

        bad = sorted(
            i for i, r in records.items() if r["status"] == "mismatch" and r["kind"] != "invalid-static"
        )
        for i in bad[:max_capsules]:
            fc = generate_case(plan, seed, i, invalid_rate, frac)
            capsules.append(shrink_and_capsule(fc, p, seed, batch, oracle, out))
    res = FuzzResult(
        meta=meta,
        records=[records[i] for i in sorted(records)],
        not_fuzzed=dict(plan.not_fuzzed),
        capsules=capsules,
        seconds=time.perf_counter() - t0,
        run_seconds=t_run,
        resumed=resumed,
        new_cases=len(todo),
    )
    res.fast_cases_per_s, res.compile_seconds, res.oracle_cases_per_s = timing_summary(timing)
    res.time_shares = dict(timing.get("shares", {}))
    if out is not None:
        import pathlib

        (pathlib.Path(out) / "summary.json").write_text(res.to_json(indent=1))
    return res
