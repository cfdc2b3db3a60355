"""Bring your own kernel: GM argument declarations, .bin I/O in the vendor samples' layout, and the
``ascend-jax run`` command.

A vendor sample's host code reads ``input/*.bin`` (written by its ``scripts/gen_data.py``), launches
the kernel on GM buffers and writes ``output/output.bin`` (read by ``scripts/verify_result.py``).
A kernel ported to Python declares the same GM arguments, in launch order::

    @aj.gm_kernel(
        aj.GmArg("x", aj.float32, 256, "in", file="input_x.bin"),
        aj.GmArg("z", aj.float32, 256, "out", file="output.bin"),
    )
    def my_kernel(k, x, z):  # x, z: aj.GlobalTensor
        ...

and ``ascend-jax run path/to/file.py:my_kernel --input input --output output`` reads
``input/input_x.bin``, runs the kernel and writes ``output/output.bin``. ``--cases DIR`` runs every
sub-folder of DIR (each an input set) in one compiled, batched program (``aj.jit_kernel``).

The declaration is plain data: ``fn.gm_args`` (a tuple of ``GmArg``) and ``fn.profile`` (the
product the kernel targets, or None). ``gm_arrays(fn, inputs, batch)`` builds the positional GM
arrays ``aj.jit_kernel(fn)`` takes from a ``{name: array}`` dict, so Python code can use the same
declaration without files.

A kernel file may instead declare at module level, for every kernel function in it:
``GM_ARGS = (aj.GmArg(...), ...)`` and optionally ``PROFILE = "ascend950"``.

A target that is not declared either way is a *factory*: ``factory(scenario)`` (or ``factory()``)
returns the declared kernel; the vendor ports in ``ops/`` expose ``scenario(n)`` this way.
"""

import functools
import importlib
import importlib.util
import pathlib
import sys
from typing import NamedTuple

import numpy as np

from . import dtypes as _dt
from .errors import AscendCError, describe_faults

DIRECTIONS = ("in", "out", "inout")


class RunInputError(AscendCError, ValueError):
    """Bad input to ``ascend-jax run``: unknown kernel, missing or wrong-size .bin, bad folder."""


class GmArg(NamedTuple):
    """One GM argument of a kernel, in launch order.

    ``name``: the kernel parameter's name; ``dtype``: element type (an ``aj`` dtype or its name);
    ``count``: elements; ``direction``: "in" (read from the input folder), "out" (starts as zeros,
    written to the output folder) or "inout" (both); ``file``: the .bin name relative to the
    folder (default ``<name>.bin``).
    """

    name: str
    dtype: object
    count: int
    direction: str = "in"
    file: str | None = None

    @property
    def dt(self):
        return _dt.as_dtype(self.dtype)

    @property
    def nbytes(self):
        return int(self.count) * self.dt.itemsize

    @property
    def filename(self):
        return self.file or f"{self.name}.bin"

    @property
    def is_input(self):
        return self.direction in ("in", "inout")

    @property
    def is_output(self):
        return self.direction in ("out", "inout")

    def describe(self):
        return f"GM argument {self.name}: {self.dt.name}[{self.count}] = {self.nbytes} bytes"


def _check_args(gm_args):
    gm_args = tuple(gm_args)
    if not gm_args:
        raise ValueError("gm_kernel: declare at least one GmArg")
    names = set()
    for a in gm_args:
        if not isinstance(a, GmArg):
            raise TypeError(f"gm_kernel: {a!r} is not an aj.GmArg")
        if a.direction not in DIRECTIONS:
            raise ValueError(f"GmArg {a.name}: direction={a.direction!r}; allowed: {', '.join(DIRECTIONS)}")
        if not isinstance(a.count, (int, np.integer)) or a.count <= 0:
            raise ValueError(f"GmArg {a.name}: count={a.count!r}; allowed: a positive int")
        a.dt  # noqa: B018  (raises on an unknown dtype)
        if a.name in names:
            raise ValueError(f"gm_kernel: GM argument {a.name!r} declared twice")
        names.add(a.name)
    if not any(a.is_output for a in gm_args):
        raise ValueError("gm_kernel: no GM argument is 'out' or 'inout'; nothing would be written")
    return gm_args


def gm_kernel(*gm_args, profile=None, block_dim=1):
    """Decorator: declare a kernel's GM arguments (``GmArg``, launch order) and, optionally, the
    profile it targets and its launch's cores (``block_dim``, as ``<<<block_dim, ...>>>``). The
    function is returned unchanged apart from the ``gm_args``, ``profile`` and ``block_dim``
    attributes, so ``aj.jit_kernel`` / ``aj.run_kernel`` take it as before."""
    gm_args = _check_args(gm_args)

    def deco(fn):
        fn.gm_args = gm_args
        fn.profile = profile
        fn.block_dim = block_dim
        return fn

    return deco


def declare(fn, gm_args, profile=None, block_dim=1):
    """``gm_kernel`` as a call: a new function wrapping ``fn`` with the declaration attached (for
    kernels built by a factory, e.g. ``functools.partial`` of a configured kernel)."""

    @functools.wraps(fn)
    def kernel(k, *gm, **params):
        return fn(k, *gm, **params)

    return gm_kernel(*gm_args, profile=profile, block_dim=block_dim)(kernel)


def gm_arrays(fn, inputs, batch=None):
    """The positional GM arrays for ``aj.jit_kernel(fn)`` (``batch`` given: a leading batch axis;
    None: one case, for ``aj.run_kernel``). ``inputs`` maps an input argument's name to its values;
    outputs start as zeros."""
    out = []
    lead = () if batch is None else (int(batch),)
    for a in fn.gm_args:
        npd = a.dt.np_dtype
        if a.is_input:
            if a.name not in inputs:
                raise RunInputError(f"no values for input {a.describe()}")
            v = np.asarray(inputs[a.name])
            if v.dtype != npd:
                v = v.astype(npd)
            out.append(np.ascontiguousarray(v.reshape(lead + (a.count,))))
        else:
            out.append(np.zeros(lead + (a.count,), npd))
    return out


# -- resolving KERNEL ----------------------------------------------------------------------------


def _load_file(path, attr):
    path = pathlib.Path(path).expanduser().resolve()
    if not path.is_file():
        raise RunInputError(f"kernel file {path} does not exist")
    name = f"_ascend_jax_user_{abs(hash(str(path)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))  # the user's sibling modules
    try:
        sys.modules[name] = module
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    if not hasattr(module, attr):
        public = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_"))
        raise RunInputError(f"{path} has no function {attr!r}; it defines: {', '.join(public) or 'nothing'}")
    obj = getattr(module, attr)
    gm = getattr(module, "GM_ARGS", None)
    if gm is not None and callable(obj) and not hasattr(obj, "gm_args"):
        # module-level declaration: GM_ARGS = (aj.GmArg(...), ...) [and PROFILE = "..."]
        obj = declare(obj, gm, profile=getattr(module, "PROFILE", None))
    return obj, path.name + ":" + attr


def runnable_ops():
    """Op names (``ops.VENDOR_OPS`` and ``ops.OPS``) whose module declares GM arguments (a
    ``scenario`` factory)."""
    try:
        ops = importlib.import_module("ops")
    except ImportError:
        return {}
    mods = {**getattr(ops, "OPS", {}), **getattr(ops, "VENDOR_OPS", {})}
    return {n: m for n, m in mods.items() if hasattr(m, "scenario")}


def load_kernel(target, scenario=None):
    """``target`` (an op name or ``path/to/file.py:function``) -> the declared kernel function.

    Raises ``RunInputError`` for an unknown op, a missing file or function, a kernel without a GM
    declaration, or a scenario the op does not define."""
    if ":" in target and target.rsplit(":", 1)[0].endswith(".py"):
        path, attr = target.rsplit(":", 1)
        obj, label = _load_file(path, attr)
        scenarios = getattr(obj, "SCENARIOS", None)
    else:
        ops = runnable_ops()
        if target not in ops:
            known = ", ".join(sorted(ops)) or "none (the ops/ package is not importable)"
            raise RunInputError(
                f"unknown kernel {target!r}: give an op name ({known}) or path/to/file.py:function"
            )
        module = ops[target]
        obj, label = module.scenario, target
        scenarios = getattr(module, "SCENARIOS", None)
        if scenario is None:
            scenario = getattr(module, "DEFAULT_SCENARIO", None)
    if hasattr(obj, "gm_args"):
        if scenario is not None and scenarios is None:
            raise RunInputError(f"{label} is a single kernel; it takes no --scenario")
        return obj
    if not callable(obj):
        raise RunInputError(f"{label} is not a function")
    if scenarios is not None and scenario is not None and scenario not in scenarios:
        raise RunInputError(
            f"{label}: scenario {scenario} is not defined; allowed: {', '.join(map(str, sorted(scenarios)))}"
        )
    try:
        fn = obj(scenario) if scenario is not None else obj()
    except TypeError as e:
        raise RunInputError(
            f"{label} declares no GM arguments (decorate it with @aj.gm_kernel(aj.GmArg(...), ...)) and is "
            f"not a factory returning such a kernel: {e}"
        ) from e
    if not hasattr(fn, "gm_args"):
        raise RunInputError(
            f"{label} declares no GM arguments: decorate it with @aj.gm_kernel(aj.GmArg(...), ...)"
        )
    return fn


# -- .bin I/O ------------------------------------------------------------------------------------


def read_inputs(gm_args, folder):
    """``{name: array}`` for every input GM argument, read from ``folder/<file>``; a missing file
    or one whose size is not ``count * sizeof(T)`` raises ``RunInputError``."""
    folder = pathlib.Path(folder)
    out = {}
    for a in gm_args:
        if not a.is_input:
            continue
        f = folder / a.filename
        if not f.is_file():
            raise RunInputError(f"missing input file {f} ({a.describe()})")
        size = f.stat().st_size
        if size != a.nbytes:
            raise RunInputError(
                f"wrong size: {f} has {size} bytes; {a.describe()} "
                f"({a.count} x sizeof({a.dt.cpp}) = {a.count} x {a.dt.itemsize})"
            )
        out[a.name] = np.fromfile(f, dtype=np.uint8).view(a.dt.np_dtype)
    return out


def write_outputs(gm_args, arrays, folder):
    """Write every output GM argument's final contents to ``folder/<file>``; returns the paths."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for a, v in zip(gm_args, arrays, strict=True):
        if a.is_output:
            f = folder / a.filename
            f.parent.mkdir(parents=True, exist_ok=True)
            np.ascontiguousarray(np.asarray(v).astype(a.dt.np_dtype, copy=False)).tofile(f)
            paths.append(f)
    return paths


def diff_outputs(gm_args, ours, theirs):
    """Bit-for-bit comparison of the output files in folder ``ours`` with those in ``theirs`` (an
    NPU or CPU-debug run). Returns ``(clean, lines)``."""
    lines, clean = [], True
    for a in gm_args:
        if not a.is_output:
            continue
        fo, ft = pathlib.Path(ours) / a.filename, pathlib.Path(theirs) / a.filename
        if not ft.is_file():
            raise RunInputError(f"--diff: missing {ft} ({a.describe()})")
        o, t = np.fromfile(fo, np.uint8), np.fromfile(ft, np.uint8)
        if o.size != t.size:
            clean = False
            lines.append(f"{a.filename}: SIZE MISMATCH: model {o.size} bytes, {ft} {t.size} bytes")
            continue
        w = a.dt.itemsize
        n = o.size // w
        bad = np.nonzero(np.any(o.reshape(n, w) != t.reshape(n, w), axis=1))[0]
        lines.append(f"{a.filename}: {bad.size} of {n} {a.dt.name} elements differ")
        if bad.size:
            clean = False
            ov, tv = o.view(a.dt.np_dtype), t.view(a.dt.np_dtype)
            for j in bad[:8]:
                ob, tb = o[j * w : (j + 1) * w], t[j * w : (j + 1) * w]
                lines.append(
                    f"  element {int(j)}: model {ov[j]!r} ({ob.tobytes().hex()}) "
                    f"other {tv[j]!r} ({tb.tobytes().hex()})"
                )
    return clean, lines


# -- running -------------------------------------------------------------------------------------


class CaseResult(NamedTuple):
    name: str
    output_dir: pathlib.Path
    files: tuple
    fault: int
    out: object
    findings: tuple = ()
    race: bool = False  # a race of a traced address happened in this case (KernelResult.race_cases)


def run_folders(fn, input_dirs, output_dirs, profile=None, names=None, block_dim=None, schedule="program"):
    """Run declared kernel ``fn`` on every input folder in one compiled, batched program; write
    each case's outputs to the matching output folder. Returns a list of ``CaseResult``.
    ``block_dim``: the launch's cores (default: the declaration's); ``schedule``: as jit_kernel."""
    from .kernel import jit_kernel
    from .profile import DEFAULT_PROFILE

    input_dirs = [pathlib.Path(d) for d in input_dirs]
    output_dirs = [pathlib.Path(d) for d in output_dirs]
    names = names or [str(d) for d in input_dirs]
    cases = [read_inputs(fn.gm_args, d) for d in input_dirs]
    batch = len(cases)
    stacked = {a.name: np.stack([c[a.name] for c in cases]) for a in fn.gm_args if a.is_input}
    arrays = gm_arrays(fn, stacked, batch=batch)
    prof = profile or getattr(fn, "profile", None) or DEFAULT_PROFILE
    bd = block_dim or getattr(fn, "block_dim", 1) or 1
    res = jit_kernel(fn, profile=prof, return_state=True, block_dim=bd, schedule=schedule)(*arrays)
    states = res.state if isinstance(res.state, tuple) else (res.state,)
    faults = np.concatenate([np.asarray(s.fault).reshape(batch, -1) for s in states], axis=1)
    results = []
    for b in range(batch):
        files = write_outputs(fn.gm_args, [np.asarray(g)[b] for g in res.gm], output_dirs[b])
        out = None
        if res.out is not None:
            import jax

            out = jax.tree_util.tree_map(lambda v, b=b: np.asarray(v)[b], res.out)
        fw = int(np.bitwise_or.reduce(faults[b]))
        race = bool(np.ravel(res.race_cases)[b]) if np.size(res.race_cases) == batch else False
        results.append(CaseResult(names[b], output_dirs[b], tuple(files), fw, out, tuple(res.findings), race))
    return results


def _case_folders(cases_dir, output):
    root = pathlib.Path(cases_dir)
    if not root.is_dir():
        raise RunInputError(f"--cases {root}: not a folder")
    subs = sorted(p for p in root.iterdir() if p.is_dir())
    if not subs:
        raise RunInputError(f"--cases {root}: no sub-folders (one per input set expected)")
    ins, outs = [], []
    for s in subs:
        ins.append(s / "input" if (s / "input").is_dir() else s)
        outs.append(pathlib.Path(output) / s.name if output else s / "output")
    return [s.name for s in subs], ins, outs


def cmd_run(args):
    """``ascend-jax run``: exit 0 ok, 1 a case faulted or --diff found differences, 2 bad input
    (unknown kernel, missing / wrong-size .bin, a usage error in the kernel), 3 internal error."""
    from ._cache import enable_compilation_cache
    from .errors import UsageError

    prog = "ascend-jax run"
    try:
        enable_compilation_cache()
        fn = load_kernel(args.kernel, args.scenario)
        if args.cases:
            names, ins, outs = _case_folders(args.cases, args.output)
        else:
            names, ins, outs = [args.input], [args.input], [args.output or "output"]
        results = run_folders(
            fn,
            ins,
            outs,
            profile=args.profile,
            names=names,
            block_dim=getattr(args, "block_dim", None),
            schedule=getattr(args, "schedule", "program"),
        )
        rc = 0
        found = results[0].findings if results else ()
        for f in found:  # races, sync errors, multi-core overlaps: beside the results
            print(f"{prog}: {f}", file=sys.stderr)
        if found:
            if getattr(args, "findings", "fail") == "fail":
                rc = 1
            print(f"{prog}: {len(found)} finding(s) (schedule {getattr(args, 'schedule', 'program')})")
        for r in results:
            files = ", ".join(str(f) for f in r.files)
            msg = f"{r.name}: wrote {files}"
            if r.out is not None:
                msg += f"; kernel returned {r.out!r}"
            if r.race:
                rc = 1
                msg += "; RACE (a traced address made an unordered pair overlap)"
            if r.fault:
                rc = 1
                msg += f"; FAULT {describe_faults(r.fault)}"
                print(f"{prog}: case {r.name} recorded faults: {describe_faults(r.fault)}", file=sys.stderr)
            print(msg)
        if args.diff:
            if len(results) != 1:
                raise RunInputError("--diff compares one run; it does not combine with --cases")
            clean, lines = diff_outputs(fn.gm_args, results[0].output_dir, args.diff)
            print("\n".join(lines))
            if not clean:
                rc = 1
        return rc
    except (RunInputError, UsageError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except AscendCError as e:  # NotModelledError, ProfileError
        print(f"{prog}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001  (an internal error: say so, with the type)
        import traceback

        traceback.print_exc(file=sys.stderr)
        print(f"{prog}: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        return 3


def _schedule(v):
    if v in ("program", "adversarial"):
        return v
    try:
        return int(v)
    except ValueError:
        import argparse

        raise argparse.ArgumentTypeError(f"{v!r}: program, adversarial or an int seed") from None


def add_parser(sub):
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
        "--findings",
        choices=("fail", "report"),
        default="fail",
        help="a race or sync error: exit 1 (fail, default) or only print it (report)",
    )
    r.add_argument(
        "--diff", default=None, help="folder with another run's outputs (an NPU's): bit-for-bit diff"
    )
    r.set_defaults(fn=cmd_run)
    return r
