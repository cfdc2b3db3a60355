"""``ascend-jax`` command line: ``apis``, ``profiles`` (human tables or ``--json``), ``fuzz`` (the
differential-testing engine), ``demo`` (its default campaign), ``replay`` (a repro capsule),
``export`` (a capsule as .bin files for an NPU run), ``diff`` (an NPU output against the model) and
``run`` (a whole kernel on .bin inputs in the vendor samples' layout).

Exit codes (every subcommand, present and future):

  0  clean: the command did what was asked (a campaign checked cases and found no mismatch)
  1  mismatches found (fuzz/demo/replay: fast path and reference differ; diff: output != golden;
     run: a case faulted, --diff found differences, or the user's kernel raised its own exception)
  2  bad input or usage: a bad option value, a missing/corrupt/wrongly typed input file, an output
     path that cannot be written or would overwrite an input, a campaign that would check nothing
  3  internal error: a bug in ascend_jax (please report it with the --debug traceback)
  (130: interrupted with Ctrl-C; a closed stdout pipe is not an error)

Errors are one line on stderr (``ascend-jax <command>: <file>: <field>: <what was expected>``),
never a traceback; ``--debug`` (anywhere on the command line) shows the traceback as well. The
mapping lives in one place, ``_dispatch``: a subcommand is a function ``cmd_x(args) -> int``
registered with ``set_defaults(fn=cmd_x)``; it raises ``InputError`` (or any ``ValueError``,
``UsageError``, ``OSError``) for bad input, ``byok.KernelError`` for the user's kernel's own
exception (exit 1), and lets everything else propagate (exit 3). Output goes
through ``emit`` so that ``ascend-jax fuzz ... | head`` ends quietly with the command's own code.

The fuzzing commands keep compiled XLA programs in a persistent cache: ``$ASCEND_JAX_XLA_CACHE``,
default ``~/.cache/ascend_jax/xla`` (``$XDG_CACHE_HOME`` respected); set it to ``off`` to disable."""

import argparse
import base64
import binascii
import dataclasses
import json
import math
import os
import pathlib
import sys
import textwrap
import traceback

from . import byok
from ._cache import enable_compilation_cache  # noqa: F401  (the commands' cache; re-exported)
from .byok import KernelError, RunInputError
from .errors import AscendCError, describe_faults
from .findings import lines as findings_lines
from .profile import DEFAULT_PROFILE, available_profiles, load_profile
from .registry import REGISTRY

EXIT_CLEAN, EXIT_MISMATCH, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class InputError(ValueError):
    """Bad input to a command (a file, a field of it, an option): exit code 2, one line."""


def emit(text=""):
    """print() to stdout; a closed pipe (``ascend-jax fuzz | head``) is not an error: the rest of
    the output is dropped and the command still ends with its own exit code."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        _drop_stdout()


def _drop_stdout():
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _apis_json():
    import ascend_jax  # noqa: F401  (the public face registers the APIs)

    profiles = [load_profile(n) for n in available_profiles()]
    out = []
    for name, spec in REGISTRY.items():
        per = {}
        for p in profiles:
            a = p.api(name)
            # APIs without a dtype template (SetMaskCount, SetCtrlSpr, ...): ["untyped"] where supported
            per[p.name] = (list(a.all_dtypes()) or ["untyped"]) if a.supported else []
        supported_on = [p.name for p in profiles if p.api(name).supported]
        out.append(
            {
                "name": name,
                "family": spec.family,
                "prototypes": list(spec.prototypes),
                "doc": spec.doc,
                "profiles": per,
                "count_only": {
                    p.name: list(p.api(name).count_only_dtypes)
                    for p in profiles
                    if p.api(name).count_only_dtypes
                },
                "supported_on": supported_on,
            }
        )
    return out


def _profiles_json():
    out = []
    for n in available_profiles():
        p = load_profile(n)
        out.append(
            {
                "name": p.name,
                "product": p.product,
                "doc_tag": p.doc_tag,
                "soc": p.soc,
                "npu_arch": p.npu_arch,
                "core": p.core,
                "default": p.name == DEFAULT_PROFILE,
                "ub_physical_bytes": p.ub_physical_bytes,
                "ub_usable_bytes": p.ub_usable_bytes,
                "reserved": [
                    {
                        "name": r.name,
                        "offset_bytes": r.offset_bytes,
                        "size_bytes": r.size_bytes,
                        "used_by": list(r.used_by),
                    }
                    for r in p.reserved
                ],
                "vector_mask_bits": p.vector_mask_bits,
                "cmpmask_bits": p.cmpmask_bits,
                "max_repeat_times": p.max_repeat_times,
                "block_bytes": p.block_bytes,
                "repeat_bytes": p.repeat_bytes,
                "counter_mode": p.counter_mode,
                "numerics": {
                    "float_subnormals": p.float_subnormals,
                    "int_overflow": p.int_overflow,
                    "nan_result": p.nan_result,
                },
                "behavior": {
                    "zero_repeat": p.zero_repeat,
                    "zero_count": p.zero_count,
                    "zero_mask": p.zero_mask,
                    "level2_lowering": p.level2_lowering,
                    "level2_is_set_mask": p.level2_is_set_mask,
                },
                "apis": {a.name: list(a.all_dtypes()) for a in p.apis if a.supported},
            }
        )
    return out


def _table(rows, headers):
    widths = [max(len(str(r[i])) for r in rows + [headers]) for i in range(len(headers))]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    body = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join([line, "-" * len(line)] + body)


def cmd_apis(args):
    data = _apis_json()
    if args.json:
        emit(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    names = available_profiles()
    if getattr(args, "wide", False):
        rows = [
            [a["name"], a["family"]] + [",".join(_short(d) for d in a["profiles"][n]) or "-" for n in names]
            for a in data
        ]
        emit(_table(rows, ["API", "family"] + list(names)))
        return 0
    # fits 100 columns: one column per profile (numbered, legend below) with the number of
    # element types supported ("yes": an API without a type template; "-": not supported)
    rows = []
    for a in data:
        cells = []
        for n in names:
            ds = a["profiles"][n]
            cells.append("-" if not ds else "yes" if ds == ["untyped"] else str(len(ds)))
        rows.append([a["name"], a["family"]] + cells)
    emit(_table(rows, ["API", "family"] + [f"P{j + 1}" for j in range(len(names))]))
    emit("element types per profile ('-': not supported; 'yes': no type template); --wide lists them:")
    legend = "  ".join(f"P{j + 1}={n}" for j, n in enumerate(names))
    emit(textwrap.fill(legend, 98, initial_indent="  ", subsequent_indent="  "))
    return 0


def _short(d):
    if d == "untyped":
        return "yes"
    return {"half": "f16", "bfloat16": "bf16", "float32": "f32"}.get(
        d, d.replace("int", "i").replace("ui", "u")
    )


def cmd_profiles(args):
    data = _profiles_json()
    if args.json:
        emit(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    rows = [
        [
            d["name"] + (" *" if d["default"] else ""),
            d["npu_arch"],
            d["soc"],
            d["ub_usable_bytes"],
            d["vector_mask_bits"],
            d["counter_mode"],
            d["product"],
        ]
        for d in data
    ]
    emit(_table(rows, ["profile", "arch", "SoC", "UB usable", "mask bits", "counter", "product"]))
    emit("* default profile")
    return 0


def _run_campaign(args, cases):
    from .fuzz import run, run_distributed

    enable_compilation_cache()
    # progress: a bar on a TTY, a line every few seconds otherwise; --quiet: none
    progress = False if getattr(args, "quiet", False) else True
    scale = {}
    if getattr(args, "devices", None) is not None:
        scale["devices"] = args.devices
    campaign = run
    if getattr(args, "distributed", False):  # one process of a multi-process campaign
        campaign = run_distributed
        scale.update(
            coordinator=args.coordinator, num_processes=args.num_processes, process_id=args.process_id
        )
    res = campaign(
        apis=args.apis,
        profile=args.profile,
        cases=cases,
        seed=args.seed,
        out=getattr(args, "out", None),
        batch=args.batch,
        oracle_sample=args.oracle_sample,
        invalid_rate=args.invalid_rate,
        progress=progress,
        resume=getattr(args, "resume", False),
        shrink=not getattr(args, "no_shrink", False),
        dtypes=args.dtypes,
        force=getattr(args, "force", False),
        **scale,
    )
    if getattr(args, "json", False):
        emit(res.to_json(indent=1))
    else:
        emit(res.summary_table())
        emit()
        emit(res.coverage_table())
    if res.mismatches:
        return EXIT_MISMATCH
    if not res.ok:  # no mismatch, but nothing was compared with the reference
        raise InputError(
            f"the campaign checked no case against the reference ({len(res.records)} cases, "
            "all unchecked): raise --oracle-sample or --invalid-rate"
        )
    return EXIT_CLEAN


def cmd_fuzz(args):
    if args.resume and not args.out:
        raise InputError("--resume needs --out DIR")
    if args.distributed and not args.out:
        raise InputError("--distributed needs --out DIR (one shard folder per process, merged by process 0)")
    if not args.distributed and (
        args.coordinator or args.num_processes is not None or args.process_id is not None
    ):
        raise InputError("--coordinator/--num-processes/--process-id need --distributed")
    if args.out and pathlib.Path(args.out).exists() and not pathlib.Path(args.out).is_dir():
        raise InputError(f"--out {args.out}: is a file; expected a directory for the campaign")
    return _run_campaign(args, args.cases)


# ``ascend-jax demo``: a representative sample of the registered APIs, one or more per fuzz family
# (the element-wise and scalar-arithmetic APIs of a family share their compiled programs), in every
# call form, on two element types. Every (family, signature) costs a trace, a lowering and (cold) an
# XLA compile, cached or not: the sample keeps that to about 30 programs (every API in every type:
# ~775); ``--apis all --dtypes all`` fuzzes everything.
DEMO_APIS = (
    "Adds,Muls,Maxs,Mins,Add,Sub,Mul,Max,Compare,Select,ShiftRight,ReduceSum,Sort32,SetVectorMask,SetCtrlSpr"
)
DEMO_DTYPES = "float32,int16"
DEMO_COVERAGE = "ascend-jax-demo-coverage.txt"


def _kernel_demo(args):
    """An ``ops/`` kernel (select_sample, selMode 2, N = 256 float) over ``args.kernel_cases`` random
    inputs in batches of ``args.kernel_batch`` (one compiled program), checked bit for bit against its
    NumPy golden. Returns (number of mismatching cases, one-line summary): cases/s of the model
    (compile time apart), of the lean per-case NumPy (``ops/lean.py``, as a user writes the kernel)
    and of the batched golden."""
    import time

    import numpy as np

    from ops import lean as L
    from ops import select_sample as S

    from . import jit_kernel, load_profile

    p = load_profile(args.profile)
    total, batch = int(args.kernel_cases), int(args.kernel_batch)
    if total <= 0:
        return 0, None
    batch = min(batch, total)
    cfg = dict(selMode=2, form="count", dtype="float32", dataSize=256)
    run = jit_kernel(S.kernel(**cfg), profile=p)
    rng = np.random.default_rng(args.seed)
    t_model = t_golden = compile_s = 0.0
    bad = done = 0
    lean_rate = None
    for start in range(0, total, batch):
        n = min(batch, total - start)
        inputs, params = S.gen_data(rng, batch, **cfg)
        gm = [inputs[k] for k in S.GM]
        t = time.perf_counter()
        res = run(*gm, **params)
        dt = time.perf_counter() - t
        if start == 0:  # the first batch pays the compilation: time it again for the model's rate
            t = time.perf_counter()
            res = run(*gm, **params)
            compile_s, dt = max(0.0, dt - (time.perf_counter() - t)), time.perf_counter() - t
            k = min(batch, 1024)  # the lean NumPy, one case at a time, on a slice of the batch
            sub_in, sub_prm = ({a: v[:k] for a, v in d.items()} for d in (inputs, params))
            t = time.perf_counter()
            lean_bits, _ = L.select_sample(sub_in, sub_prm, p, **cfg)
            lean_rate = k / (time.perf_counter() - t)
        t_model += dt * n / batch
        t = time.perf_counter()
        want = S.golden(inputs, params, **cfg)
        t_golden += (time.perf_counter() - t) * n / batch
        got = np.asarray(res.gm[3]).view(np.uint32)
        bad += int((got[:n] != want[:n]).any(axis=1).sum())
        if start == 0:
            bad += int((lean_bits != want[:k]).any(axis=1).sum())  # the baseline is checked too
        done += n
    model_rate, golden_rate = done / t_model, done / t_golden
    line = (
        f"kernel ops/select_sample (Select selMode 2, 256 float, DataCopy in/out) on {p.name}: "
        f"{done:,} random cases in batches of {batch:,}, {bad} mismatches vs the NumPy golden\n"
        f"  model {model_rate:,.0f} cases/s (compile {compile_s:.1f} s apart); lean NumPy, one case at "
        f"a time {lean_rate:,.0f} cases/s (model x{model_rate / lean_rate:.1f}); golden batched "
        f"{golden_rate:,.0f} cases/s (model x{model_rate / golden_rate:.2f})"
    )
    return bad, line


def _demo_summary(res, wall):
    """The campaign on a few lines: what ran, what was checked, mismatches, rates, compilation."""
    from .registry import REGISTRY

    m = res.meta
    c = res.counts()
    apis = m["apis"]
    head = (
        f"ascend-jax demo on {m['profile']}: {len(res.records):,} random cases (seed {m['seed']}) over "
        f"{len(apis)} of the {len(REGISTRY)} registered APIs"
        + (" (a sample; --apis all for every one)" if len(apis) < len(REGISTRY) else "")
        + ", element types "
        + (",".join(m["dtypes"]) if m.get("dtypes") else "all")
        + (" (--dtypes all for every one)" if m.get("dtypes") else "")
    )
    lines = [
        textwrap.fill(head, 100),
        f"  fast JAX path vs the NumPy reference (UB bytes, registers, fault bits): {res.checked:,} cases "
        f"checked ({c['ok']:,} equal, {c['rejected']:,} rejected by both), {c['unchecked']:,} run unchecked; "
        f"{len(res.mismatches)} mismatches",
        "  fast path "
        + (f"{res.fast_cases_per_s:,.0f} cases/s" if res.fast_cases_per_s else "-")
        + ", reference "
        + (f"{res.oracle_cases_per_s:,.0f} cases/s" if res.oracle_cases_per_s else "-")
        + f", XLA compilation {res.compile_seconds:.1f} s; campaign wall {res.seconds:.1f} s "
        f"(demo so far {wall:.1f} s)",
    ]
    lines = [textwrap.fill(x, 100, subsequent_indent="    ") for x in lines]
    per = res.per_api()
    lines.append(
        textwrap.fill(
            "  APIs: " + ", ".join(f"{a} {per[a]['cases']}" for a in sorted(per)),
            100,
            subsequent_indent="    ",
        )
    )
    for r in res.mismatches[:10]:
        lines.append(f"MISMATCH case {r['i']} {r['api']}<{r['dtype']}> [{r['kind']}]: {r.get('diff')}")
    for cap in res.capsules:
        lines.append(f"capsule: {cap.get('path', '(in memory)')}  {cap['call']}")
    return "\n".join(lines)


def cmd_demo(args):
    import time

    from .fuzz import run

    t0 = time.perf_counter()
    enable_compilation_cache()
    apis = None if args.apis.strip().lower() == "all" else args.apis
    dtypes = None if args.dtypes is None or args.dtypes.strip().lower() == "all" else args.dtypes
    res = run(
        apis=apis,
        profile=args.profile,
        cases=args.cases,
        seed=args.seed,
        batch=args.batch,
        oracle_sample=args.oracle_sample,
        invalid_rate=args.invalid_rate,
        progress=not args.quiet,
        dtypes=dtypes,
    )
    if args.json:
        emit(res.to_json(indent=1))
    else:
        emit(_demo_summary(res, time.perf_counter() - t0))
    cov = res.coverage_table()
    if args.coverage:
        emit()
        emit(cov)
    elif args.coverage_out:
        path = pathlib.Path(args.coverage_out)
        try:
            path.write_text(cov + "\n", encoding="utf-8")
        except OSError as e:
            raise InputError(f"--coverage-out {path}: cannot write ({e.strerror or e})") from None
        if not args.json:
            emit(
                f"  coverage: {len(res.coverage())} API x dtype x mask x repeat x stride combinations -> {path}"
            )
    bad, line = _kernel_demo(args)
    if line and not args.json:
        for part in line.split("\n"):
            emit(textwrap.fill(part, 100, subsequent_indent="    "))
    if not args.json:
        emit(
            f"demo: {time.perf_counter() - t0:.1f} s"
            + (", MISMATCHES" if res.mismatches or bad else ", clean")
        )
    if res.mismatches or bad:
        return EXIT_MISMATCH
    if not res.ok:
        raise InputError(
            f"the demo checked no case against the reference ({len(res.records)} cases, all unchecked): "
            "raise --oracle-sample or --invalid-rate"
        )
    return EXIT_CLEAN


# -- input files ----------------------------------------------------------------------------------


def _read_json(path, what):
    """The JSON value in ``path``, or InputError naming the file and what was expected."""
    p = pathlib.Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file; expected {what}")
    if p.is_dir():
        raise InputError(f"{p}: is a directory; expected {what}")
    try:
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{p}: not UTF-8 text; expected {what}") from None
    if not text.strip():
        raise InputError(f"{p}: empty file; expected {what}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(
            f"{p}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); expected {what}"
        ) from None


def _need(d, key, types, where, what):
    """d[key] checked against ``types``; InputError '<where>: field <key>: expected <what>'."""
    if not isinstance(d, dict) or key not in d:
        raise InputError(f"{where}: field '{key}' is missing; expected {what}")
    v = d[key]
    ok = isinstance(v, types) and not (isinstance(v, bool) and bool not in _as_tuple(types))
    if not ok:
        raise InputError(f"{where}: field '{key}' is {_show(v)}; expected {what}")
    return v


def _as_tuple(t):
    return t if isinstance(t, tuple) else (t,)


def _show(v):
    r = json.dumps(v) if not isinstance(v, str) else repr(v)
    return (r[:60] + "...") if len(r) > 63 else r


def _b64_field(d, key, where, size=None):
    s = _need(d, key, str, where, "base64 text of the UB bytes")
    try:
        raw = base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        raise InputError(f"{where}: field '{key}' is not valid base64") from None
    if size is not None and len(raw) != size:
        raise InputError(f"{where}: field '{key}' holds {len(raw)} bytes; expected {size} (the inputs' UB)")
    return raw


def _uint_list(d, key, where, bits=32):
    v = _need(d, key, list, where, f"a list of uint{bits} words")
    for j, x in enumerate(v):
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < 1 << bits:
            raise InputError(f"{where}: field '{key}[{j}]' is {_show(x)}; expected a uint{bits} word")
    return v


def _check_state(d, where, size=None):
    """A capsule's ``inputs`` / ``expected`` / ``got`` block (see capsule.fields_json)."""
    if not isinstance(d, dict):
        raise InputError(f"{where}: is {_show(d)}; expected a JSON object (a UB + register state)")
    raw = _b64_field(d, "ub", where, size)
    for k in ("vmask", "cmpmask", "ctrl"):
        _uint_list(d, k, where)
    for k in ("mask_mode", "rsvd_cnt"):
        _need(d, k, int, where, "an int")
    if "fault" in d and (isinstance(d["fault"], bool) or not isinstance(d["fault"], int) or d["fault"] < 0):
        raise InputError(f"{where}: field 'fault' is {_show(d['fault'])}; expected a fault word >= 0")
    return len(raw)


_CASE_TYPES = {"int": int, "str": str, "bool": bool, "tuple": list, "float": (int, float, dict)}


def _check_case(fam, d, where):
    """The capsule's ``case`` against its family's case dataclass: every field without a default
    present, every value of its declared JSON type, the element type a known one."""
    from . import dtypes as _dt

    if not isinstance(d, dict):
        raise InputError(f"{where}: field 'case' is {_show(d)}; expected a JSON object (the case's fields)")
    fields = {f.name: f for f in dataclasses.fields(fam.case_type)}
    unknown = sorted(set(d) - set(fields))
    if unknown:
        raise InputError(f"{where}: case field(s) {', '.join(unknown)} unknown to family {fam.name!r}")
    for name, f in fields.items():
        if name not in d:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InputError(f"{where}: case field '{name}' is missing")
            continue
        ann = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
        want = _CASE_TYPES.get(ann)
        v = d[name]
        if want is not None and (not isinstance(v, want) or (isinstance(v, bool) and want is int)):
            raise InputError(f"{where}: case field '{name}' is {_show(v)}; expected {ann} (JSON)")
        if want is int and name in ("count", "repeat", "ub_bytes", "ub_seed") and v < 0:
            raise InputError(f"{where}: case field '{name}' is {v}; expected an int >= 0")
    dt = d.get("dtype", "-")
    if dt not in ("-", None):
        try:
            _dt.as_dtype(dt)
        except (KeyError, ValueError, TypeError):
            known = ", ".join(x.name for x in _dt.ALL)
            raise InputError(f"{where}: case field 'dtype' is {_show(dt)}; expected one of {known}") from None


def load_capsule_checked(path):
    """A capsule file checked field by field (InputError naming file and field on any defect)."""
    from .fuzz.capsule import FORMAT
    from .fuzz.families import FAMILIES, family_of

    cap = _read_json(path, "an ascend_jax capsule (JSON)")
    where = str(path)
    if not isinstance(cap, dict):
        raise InputError(f"{where}: holds {_show(cap)}; expected a capsule (a JSON object)")
    if cap.get("format") != FORMAT:
        raise InputError(f"{where}: field 'format' is {_show(cap.get('format'))}; expected {FORMAT!r}")
    prof = _need(cap, "profile", str, where, "a profile name")
    if prof not in available_profiles():
        raise InputError(
            f"{where}: field 'profile' is {prof!r}; expected one of {', '.join(available_profiles())}"
        )
    fam_name = _need(cap, "family", str, where, "a family name")
    try:
        fam = family_of(fam_name)
    except KeyError:
        names = ", ".join(f.name for f in FAMILIES)
        raise InputError(f"{where}: field 'family' is {fam_name!r}; expected one of {names}") from None
    _need(cap, "api", str, where, "an API name")
    _need(cap, "call", str, where, "the call as text")
    _check_case(fam, cap.get("case"), where)
    size = _check_state(cap.get("inputs"), f"{where}: inputs")
    for k in ("expected", "got"):
        if k in cap:
            _check_state(cap[k], f"{where}: {k}", size)
    try:
        fam.from_json(cap["case"])
    except (TypeError, ValueError, KeyError) as e:
        raise InputError(f"{where}: field 'case' does not make a {fam.name} case ({e})") from None
    return cap


def cmd_replay(args):
    from .fuzz.capsule import replay

    cap = load_capsule_checked(args.capsule)
    enable_compilation_cache()
    try:
        diff, text = replay(cap)
    except AscendCError as e:  # the capsule's call is rejected by the model: bad capsule
        raise InputError(f"{args.capsule}: the capsule's case is not a valid call: {e}") from None
    emit(text)
    return EXIT_MISMATCH if diff is not None else EXIT_CLEAN


def _out_dir(path, opt):
    p = pathlib.Path(path)
    if p.exists() and not p.is_dir():
        raise InputError(f"{opt} {p}: is a file; expected a directory (it is created if missing)")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"{opt} {p}: cannot create the directory ({e.strerror})") from None
    if not os.access(p, os.W_OK | os.X_OK):
        raise InputError(f"{opt} {p}: the directory is not writable")
    return p


def cmd_export(args):
    from .fuzz.export import export_capsule

    cap = load_capsule_checked(args.capsule)
    if "expected" not in cap:
        raise InputError(f"{args.capsule}: field 'expected' is missing; expected the reference's state")
    _out_dir(args.to, "--to")
    try:
        files = export_capsule(cap, args.to)
    except AscendCError as e:
        raise InputError(f"{args.capsule}: the capsule's case is not a valid call: {e}") from None
    for f in files:
        emit(f)
    return EXIT_CLEAN


def _check_export_dir(directory):
    d = pathlib.Path(directory)
    if not d.is_dir():
        raise InputError(
            f"{d}: {'is a file' if d.exists() else 'no such directory'}; expected a directory "
            "written by 'ascend-jax export'"
        )
    prm = _read_json(d / "params.json", "the params.json 'ascend-jax export' writes")
    where = str(d / "params.json")
    if not isinstance(prm, dict):
        raise InputError(f"{where}: holds {_show(prm)}; expected a JSON object")
    for k in ("api", "profile", "call"):
        _need(prm, k, str, where, "text")
    _need(prm, "t_itemsize", int, where, "an int (bytes per element of T)")
    ops = _need(prm, "operands", list, where, "a list of operands")
    out = prm.get("output")
    if out is None:
        return
    if not isinstance(out, str):
        raise InputError(f"{where}: field 'output' is {_show(out)}; expected an operand name or null")
    match = [o for o in ops if isinstance(o, dict) and o.get("name") == out]
    if not match:
        raise InputError(f"{where}: field 'output' names {out!r}, which is not in 'operands'")
    o = match[0]
    w = f"{where}: operand {out!r}"
    _need(o, "dtype", str, w, "an element type name")
    _need(o, "addr", int, w, "a UB byte address")
    _need(o, "layout", list, w, "a layout list")
    g = _need(o, "golden_file", str, w, "the golden .bin file name")
    if not (d / g).is_file():
        raise InputError(f"{d / g}: missing; the golden output named by {where}")


def cmd_diff(args):
    from .fuzz.export import diff_dir

    _check_export_dir(args.dir)
    if args.output is not None:
        o = pathlib.Path(args.output)
        if not o.is_file():
            raise InputError(
                f"--output {o}: {'is a directory' if o.exists() else 'no such file'}; "
                "expected the output .bin of the run"
            )
    try:
        report = diff_dir(args.dir, args.output)
    except (KeyError, TypeError, IndexError) as e:
        raise InputError(f"{args.dir}/params.json: malformed ({type(e).__name__}: {e})") from None
    emit(report.text())
    return EXIT_CLEAN if report.clean else EXIT_MISMATCH


# -- option types (argparse turns their ValueError/ArgumentTypeError into exit code 2) -----------


def _positive_int(v):
    try:
        n = int(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{v!r} is not an int") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{v} must be >= 1")
    return n


def _devices(v):
    if v == "all":
        return v
    try:
        n = int(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{v!r} is not 'all' or a device count") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{v} must be 'all' or a device count >= 1")
    return n


def _share(v):
    try:
        x = float(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{v!r} is not a number") from None
    if not 0.0 <= x <= 1.0:  # NaN too
        raise argparse.ArgumentTypeError(f"{v} must be a share in [0, 1]")
    return x


def _oracle_sample(v):
    try:
        x = float(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{v!r} is not a number") from None
    if not (x > 0 and math.isfinite(x)):
        raise argparse.ArgumentTypeError(f"{v} must be a share in (0, 1] or a number of cases > 1")
    return x


def _profile_name(v):
    names = available_profiles()
    if v not in names:
        raise argparse.ArgumentTypeError(f"unknown profile {v!r}; available: {', '.join(names)}")
    return v


def _help(sp, option, text):
    for a in sp._actions:
        if option in a.option_strings:
            a.help = text


def _campaign_args(sp, cases):
    sp.add_argument("--apis", default=None, help="comma-separated API names (default: every registered API)")
    sp.add_argument("--dtypes", default=None, help="comma-separated element types (default: all)")
    sp.add_argument(
        "--profile",
        type=_profile_name,
        default=DEFAULT_PROFILE,
        help=f"hardware profile (default: {DEFAULT_PROFILE}; see 'ascend-jax profiles')",
    )
    sp.add_argument("--cases", type=_positive_int, default=cases, help=f"number of cases (default: {cases})")
    sp.add_argument(
        "--seed", type=int, default=0, help="campaign seed; case i depends on (seed, i) only (default: 0)"
    )
    sp.add_argument(
        "--batch", type=_positive_int, default=256, help="padded batch size of the fast path (default: 256)"
    )
    sp.add_argument(
        "--oracle-sample",
        type=_oracle_sample,
        default=None,
        help="share (<= 1) or number (> 1) of cases checked by the reference (default: all up to 20000)",
    )
    sp.add_argument(
        "--invalid-rate", type=_share, default=0.1, help="share of deliberately invalid cases (default: 0.1)"
    )
    sp.add_argument(
        "--progress",
        action="store_true",
        help="(the default) progress on stderr: a bar on a TTY, else a line every 5 s",
    )
    sp.add_argument("--quiet", action="store_true", help="no progress output")
    sp.add_argument("--json", action="store_true", help="print the result as JSON instead of tables")


# -- run: a whole kernel on .bin files (the library part is ascend_jax/byok.py) -----------------------


def runnable_ops():
    """Op names (``ops.VENDOR_OPS`` and ``ops.OPS``) whose module declares GM arguments (a
    ``scenario`` factory). The CLI resolves a bare op name by importing the ``ops`` package (beside
    ``ascend_jax`` in a source checkout and in the wheel); the library never imports its examples."""
    import importlib

    try:
        ops = importlib.import_module("ops")
    except ImportError:
        return {}
    mods = {**getattr(ops, "OPS", {}), **getattr(ops, "VENDOR_OPS", {})}
    return {n: m for n, m in mods.items() if hasattr(m, "scenario")}


def _run_folders_checked(args):
    """(names, input folders, output folders) of a ``run``, checked before anything is written:
    no output folder is a file, or the same as / inside / holding an input folder, the --cases
    folder or the --diff folder (RunInputError, exit 2)."""
    if args.cases:
        if args.diff:
            raise RunInputError("--diff compares one run; it does not combine with --cases")
        if args.output:
            byok.check_output_folder(args.output, {"--cases": args.cases})
        return byok.case_folders(args.cases, args.output)
    out = args.output or "output"
    if args.diff and not pathlib.Path(args.diff).is_dir():
        raise RunInputError(f"--diff {args.diff}: not a folder")
    byok.check_output_folder(out, {"--input": args.input, "--diff": args.diff})
    return [args.input], [args.input], [out]


def cmd_run(args):
    """``ascend-jax run``: exit 0 ok; 1 a case faulted, --diff found differences, or the kernel
    raised an exception of its own (named with its file:line); 2 bad input (unknown kernel, a
    broken kernel file or GM declaration, missing / wrong-size .bin, an output folder that would
    overwrite an input, a usage error in the kernel); 3 internal error."""
    prog = "ascend-jax run"
    enable_compilation_cache()
    target = byok.resolve_kernel(args.kernel, args.scenario, runnable_ops())
    names, ins, outs = _run_folders_checked(args)
    schedule = getattr(args, "schedule", "program")
    results = byok.run_folders(
        target.fn,
        ins,
        outs,
        profile=args.profile,
        names=names,
        user_dir=target.user_dir,
        block_dim=getattr(args, "block_dim", None),
        schedule=schedule,
        auto_sync=getattr(args, "auto_sync", None) == "on",  # a Python kernel: off unless asked
        check_uninit=getattr(args, "check_uninit", False),
    )
    rc = EXIT_CLEAN
    found = results[0].findings if results else ()
    for line in findings_lines(found):  # races, sync errors, multi-core overlaps: beside the results
        print(f"{prog}: {line}", file=sys.stderr)
    if found:
        strict = getattr(args, "strict", False)
        if getattr(args, "findings", "fail") == "fail" and any(
            strict or getattr(f, "severity", "error") == "error" for f in found
        ):
            rc = EXIT_MISMATCH  # SPEC (issue 47 item 7): a warning is printed; only errors fail
        emit(f"{prog}: {len(found)} finding(s) (schedule {schedule})")
    warned, located = {}, False
    for r in results:
        files = ", ".join(str(f) for f in r.files)
        msg = f"{r.name}: wrote {files}"
        if r.out is not None:
            msg += f"; kernel returned {r.out!r}"
        if r.race:
            rc = EXIT_MISMATCH
            msg += "; RACE (a traced address made an unordered pair overlap)"
        if r.warning:
            warned.setdefault(r.warning, []).append(r.name)
        if r.fault:
            rc = EXIT_MISMATCH
            msg += f"; FAULT {describe_faults(r.fault)}"
            at = ""
            if not located:  # the first faulting case: its first faulting call, named
                located = True
                first = byok.locate_fault(
                    target.fn,
                    ins[results.index(r)],
                    profile=args.profile,
                    user_dir=target.user_dir,
                    block_dim=getattr(args, "block_dim", None),
                    schedule=schedule,
                )
                at = f"\n  first fault: {first}" if first else ""
            print(f"{prog}: case {r.name} recorded faults: {describe_faults(r.fault)}{at}", file=sys.stderr)
        emit(msg)
    for w, where in warned.items():  # each checker warning once, with the cases that met it
        uninit = "UNINIT" in w and getattr(args, "check_uninit", False)
        kind = "initcheck: error" if uninit else "checker warning"
        cases = ", ".join(where[:5]) + (f" and {len(where) - 5} more" if len(where) > 5 else "")
        print(f"{prog}: {kind}: {byok.uninit_text(w)} (case {cases})", file=sys.stderr)
        if uninit or getattr(args, "strict", False):
            rc = EXIT_MISMATCH
    if args.diff:
        clean, lines = byok.diff_outputs(target.fn.gm_args, results[0].output_dir, args.diff)
        emit("\n".join(lines))
        if not clean:
            rc = EXIT_MISMATCH
    return rc


def _add_run_parser(sub):
    """Register the ``run`` subcommand on an argparse sub-parser set."""
    r = sub.add_parser(
        "run",
        help="run a kernel on .bin inputs in the vendor samples' layout (input/*.bin -> output/output.bin)",
    )
    r.add_argument("kernel", help="an op name (see ops/README.md) or path/to/file.py:function")
    r.add_argument("--input", default="input", help="folder holding the input .bin files (default: input)")
    r.add_argument(
        "--output",
        default=None,
        help="folder for the output .bin files (default: output; with --cases: CASE/output)",
    )
    r.add_argument("--cases", default=None, help="folder of input sets (one sub-folder each), run batched")
    r.add_argument("--scenario", type=int, default=None, help="the vendor sample's SCENARIO_NUM")
    r.add_argument("--profile", default=None, help="product profile (default: the kernel's, else ascend910b)")
    r.add_argument(
        "--block-dim",
        type=int,
        default=None,
        help="the launch's cores, as <<<block_dim, ...>>> (default: the kernel's declaration, else 1)",
    )
    r.add_argument(
        "--schedule",
        type=_schedule,
        default="program",
        help="program (default), adversarial (every call as late as its syncs allow: a missing sync "
        "shows in the bits), or an int seed (a random legal order)",
    )
    r.add_argument(
        "--auto-sync",
        choices=("on", "off"),
        default=None,
        help="the syncs bisheng's --cce-auto-sync=on inserts between the scalar pipe and V/MTE2/MTE3 "
        "around GetValue/SetValue: on (default for a C++ kernel, as <<<>>> builds are) or off (default "
        "for a Python kernel; a kernel built with --cce-auto-sync=off)",
    )
    r.add_argument(
        "--findings",
        choices=("fail", "report"),
        default="fail",
        help="a race or sync error: exit 1 (fail, default) or only print it (report)",
    )
    r.add_argument(
        "--check-uninit",
        action="store_true",
        help="initcheck: a read of UB bytes never written is an error (exit 1); off by default",
    )
    r.add_argument(
        "--strict",
        action="store_true",
        help="a checker warning (e.g. atomic order) also sets exit 1; without it only errors do",
    )
    r.add_argument(
        "--diff", default=None, help="folder with another run's outputs (an NPU's): bit-for-bit diff"
    )
    r.set_defaults(fn=cmd_run)
    return r


def _schedule(v):
    if v in ("program", "adversarial"):
        return v
    try:
        return int(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{v!r}: program, adversarial or an int seed") from None


def _dispatch(args, debug=False):
    """Run one subcommand and map what it raises to an exit code (see the module docstring)."""
    prog = f"ascend-jax {args.cmd}"
    try:
        return int(args.fn(args))
    except BrokenPipeError:  # stdout closed early (| head): not an error of the command
        _drop_stdout()
        return EXIT_CLEAN
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except KernelError as e:  # `run`: the user's kernel raised an exception of its own
        if debug:
            traceback.print_exc()
        print(f"{prog}: {e}", file=sys.stderr)
        return EXIT_MISMATCH
    except (InputError, AscendCError, ValueError) as e:
        if debug:
            traceback.print_exc()
        print(f"{prog}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:  # a file or directory that cannot be read or written
        if debug:
            traceback.print_exc()
        what = f"{e.filename}: {e.strerror}" if e.filename and e.strerror else str(e)
        print(f"{prog}: {what}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as e:  # noqa: BLE001  (the one place internal errors become exit code 3)
        if debug:
            traceback.print_exc()
        print(
            f"{prog}: internal error: {type(e).__name__}: {e} (a bug in ascend_jax; rerun with --debug "
            "for the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    ap = argparse.ArgumentParser(
        prog="ascend-jax",
        description=__doc__.replace("``", "'"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("apis", help="the modelled APIs and their dtypes per profile")
    a.add_argument("--json", action="store_true")
    a.add_argument("--wide", action="store_true", help="list every dtype (wider than 100 columns)")
    a.set_defaults(fn=cmd_apis)
    p = sub.add_parser("profiles", help="the hardware profiles")
    p.add_argument("--json", action="store_true")
    p.set_defaults(fn=cmd_profiles)
    f = sub.add_parser("fuzz", help="differential campaign: fast JAX path vs the NumPy reference")
    _campaign_args(f, 10000)
    f.add_argument("--out", default=None, help="directory for results.jsonl, capsules/ and summary.json")
    f.add_argument("--resume", action="store_true", help="continue the campaign in --out")
    f.add_argument("--force", action="store_true", help="replace a campaign already in --out")
    f.add_argument("--no-shrink", action="store_true", help="do not shrink mismatches into capsules")
    f.add_argument(
        "--devices",
        type=_devices,
        default=None,
        help="split every batched fast-path run over local devices: 'all' or a count (default: one)",
    )
    f.add_argument(
        "--distributed",
        action="store_true",
        help="join a multi-process campaign (jax.distributed): this process runs cases i with "
        "i %% N == ID into OUT/pID/, process 0 merges OUT/summary.json",
    )
    f.add_argument(
        "--coordinator", default=None, help="HOST:PORT of process 0 (default: $JAX_COORDINATOR_ADDRESS)"
    )
    f.add_argument(
        "--num-processes", type=_positive_int, default=None, help="N (default: $JAX_NUM_PROCESSES)"
    )
    f.add_argument("--process-id", type=int, default=None, help="ID in 0..N-1 (default: $JAX_PROCESS_ID)")
    f.set_defaults(fn=cmd_fuzz)
    d = sub.add_parser(
        "demo",
        help="a first result: a differential campaign over a sample of the APIs, then a kernel at speed",
    )
    _campaign_args(d, 5000)
    d.set_defaults(apis=DEMO_APIS, dtypes=DEMO_DTYPES, oracle_sample=1000.0)
    _help(d, "--apis", f"comma-separated API names, or 'all' (default: a sample, {DEMO_APIS})")
    _help(d, "--dtypes", f"comma-separated element types, or 'all' (default: {DEMO_DTYPES})")
    _help(d, "--oracle-sample", "share (<= 1) or number (> 1) of cases the reference checks (default: 1000)")
    d.add_argument(
        "--coverage-out",
        default=DEMO_COVERAGE,
        help=f"file for the coverage table (default: {DEMO_COVERAGE}; '' : not written)",
    )
    d.add_argument("--coverage", action="store_true", help="print the coverage table instead of writing it")
    d.add_argument("--kernel-cases", type=int, default=102400, help="cases of the ops/ kernel demo (0: skip)")
    d.add_argument("--kernel-batch", type=int, default=25600, help="batch size of the ops/ kernel demo")
    d.set_defaults(fn=cmd_demo)
    r = sub.add_parser("replay", help="re-run a repro capsule")
    r.add_argument("capsule")
    r.set_defaults(fn=cmd_replay)
    e = sub.add_parser("export", help="write a capsule's case as .bin files + params.json for an NPU run")
    e.add_argument("capsule")
    e.add_argument("--to", required=True, help="output directory")
    e.set_defaults(fn=cmd_export)
    g = sub.add_parser("diff", help="compare an NPU (or CPU-debug) output .bin with an exported case")
    g.add_argument("dir")
    g.add_argument("--output", default=None, help="the output .bin to check (default: the golden itself)")
    g.set_defaults(fn=cmd_diff)
    from .cxx.run import add_options as _add_cxx_options

    # run: a kernel on the vendor samples' .bin layout (ascend_jax/byok.py); a .asc/.cpp file is
    # built and run by the C++ front end (ascend_jax/cxx/run.py)
    _add_cxx_options(_add_run_parser(sub))
    args = ap.parse_args(argv)  # a usage error exits with 2 (argparse)
    return _dispatch(args, debug)


if __name__ == "__main__":
    sys.exit(main())
