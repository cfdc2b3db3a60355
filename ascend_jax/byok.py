"""Bring your own kernel: GM argument declarations, .bin I/O in the vendor samples' layout, and what
the ``ascend-jax run`` command (``cli.py``: its options, its exit codes, the op-name lookup in the
``ops`` package) runs: resolving ``KERNEL``, checking the folders, the batched run.

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
import importlib.util
import inspect
import pathlib
import sys
import traceback
from typing import NamedTuple

import numpy as np

from . import dtypes as _dt
from ._scalar import host_int
from .errors import AscendCError, UsageError

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
    """The declaration's fields, each bad one a UsageError naming it (``GmArg 'x'.count``)."""
    gm_args = tuple(gm_args)
    if not gm_args:
        raise UsageError("gm_kernel", "gm_args", "()", "at least one aj.GmArg", None)
    names = set()
    for j, a in enumerate(gm_args):
        if not isinstance(a, GmArg):
            raise UsageError(
                "gm_kernel", f"argument {j}", _short(a), "an aj.GmArg(name, dtype, count, ...)", None
            )
        if not isinstance(a.name, str) or not a.name.isidentifier():
            raise UsageError(
                "gm_kernel", f"GmArg {j}.name", a.name, "a Python identifier (the kernel parameter)", None
            )
        where = f"GmArg {a.name!r}"
        try:
            a.dt  # noqa: B018
        except (TypeError, ValueError):
            known = ", ".join(_dt.BY_NAME)
            raise UsageError(
                "gm_kernel", f"{where}.dtype", _short(a.dtype), f"an Ascend element type: {known}", None
            ) from None
        host_int("gm_kernel", f"{where}.count", a.count, 1, None, allowed="a positive int (elements)")
        if not isinstance(a.direction, str) or a.direction not in DIRECTIONS:
            raise UsageError(
                "gm_kernel", f"{where}.direction", a.direction, ", ".join(map(repr, DIRECTIONS)), None
            )
        if a.file is not None and (not isinstance(a.file, str) or not a.file):
            raise UsageError("gm_kernel", f"{where}.file", a.file, "None or a .bin file name", None)
        if a.name in names:
            raise UsageError(
                "gm_kernel", f"{where}.name", a.name, "a name not used before", None, "declared twice"
            )
        names.add(a.name)
    if not any(a.is_output for a in gm_args):
        raise UsageError(
            "gm_kernel",
            "direction",
            "'in' only",
            "at least one 'out' or 'inout' GM argument",
            None,
            "no GM argument is 'out' or 'inout'; nothing would be written",
        )
    return gm_args


def _short(v):
    """``v`` for a message: itself when short and plain (a str, a number), else its shortened repr."""
    if isinstance(v, (str, int, float)) and len(repr(v)) <= 60:
        return v
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


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


class Target(NamedTuple):
    """A resolved ``KERNEL``: the declared kernel function, its label for messages and the folder
    of the user's kernel file (None for an op name): code there is the user's own (``run_folders``
    reports an exception it raises as the kernel's failure, exit 1, not ours)."""

    fn: object
    label: str
    user_dir: pathlib.Path | None = None


def _where(exc, user_dir, innermost=False):
    """``file:line`` of the innermost traceback frame of ``exc`` in the user's code (under
    ``user_dir``, outside the ascend_jax and ops packages; a SyntaxError: its line). Unless
    ``innermost``, only when no frame of ours follows it (the exception is then the user's code's
    own; raised inside ascend_jax it is ours: None)."""
    if user_dir is None:
        return None
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        f = pathlib.Path(exc.filename).resolve()
        if f.is_relative_to(user_dir):
            return f"{f}:{exc.lineno}"
    ours = [_PACKAGE_DIR] + [d for d in (_ops_dir(),) if d is not None]
    last = None
    for fr in traceback.extract_tb(exc.__traceback__):
        f = pathlib.Path(fr.filename)
        if not f.is_absolute() or not f.exists():
            continue  # <frozen importlib...>, <string>
        f = f.resolve()
        if any(f.is_relative_to(d) for d in ours):  # (installed: ours is in site-packages too)
            last = last if innermost else None
        elif _LIBRARY_PARTS & set(f.parts):
            continue  # numpy, jax, ...: neither ours nor the user's
        elif f.is_relative_to(user_dir):
            last = f"{f}:{fr.lineno}"
    return last


_PACKAGE_DIR = pathlib.Path(__file__).resolve().parent
_LIBRARY_PARTS = {"site-packages", "dist-packages"}


def _ops_dir():
    mod = sys.modules.get("ops")
    f = getattr(mod, "__file__", None)
    return pathlib.Path(f).resolve().parent if f else None


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
    except Exception as e:  # noqa: BLE001  (the user's file is broken: bad input, with its line)
        sys.modules.pop(name, None)
        at = _where(e, path.parent, innermost=True) or str(path)
        raise RunInputError(f"kernel file {at}: {type(e).__name__}: {e}") from e
    finally:
        sys.path.remove(str(path.parent))
    if not hasattr(module, attr):
        public = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_"))
        raise RunInputError(f"{path} has no function {attr!r}; it defines: {', '.join(public) or 'nothing'}")
    obj = getattr(module, attr)
    gm = getattr(module, "GM_ARGS", None)
    if gm is not None and callable(obj) and not hasattr(obj, "gm_args"):
        # module-level declaration: GM_ARGS = (aj.GmArg(...), ...) [and PROFILE = "..."]
        try:
            obj = declare(obj, gm, profile=getattr(module, "PROFILE", None))
        except UsageError as e:
            raise RunInputError(f"{path}: GM_ARGS: {e}") from e
    return obj, path.name + ":" + attr


def resolve_kernel(target, scenario=None, ops=None):
    """``target`` -> ``Target``: ``path/to/file.py:function``, or an op name looked up in ``ops``
    (a mapping name -> module with a ``scenario`` factory; the library never imports its examples:
    the CLI passes the ``ops`` package's).

    Raises ``RunInputError`` (bad input, exit 2) for an unknown op, a missing or broken file or
    function, a kernel without a GM declaration or whose parameters differ from it, a scenario the
    op does not define or its factory rejects."""
    user_dir = None
    if ":" in target and target.rsplit(":", 1)[0].endswith(".py"):
        path, attr = target.rsplit(":", 1)
        obj, label = _load_file(path, attr)
        user_dir = pathlib.Path(path).expanduser().resolve().parent
        scenarios = getattr(obj, "SCENARIOS", None)
    else:
        ops = ops or {}
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
        return Target(_check_arity(obj, label), label, user_dir)
    if not callable(obj):
        raise RunInputError(f"{label} is not a function")
    if scenarios is not None and scenario is not None and scenario not in scenarios:
        raise RunInputError(
            f"{label}: scenario {scenario} is not defined; allowed: {', '.join(map(str, sorted(scenarios)))}"
        )
    if scenario is None and _takes_no_args(obj, None) and not _takes_no_args(obj, 1):
        raise RunInputError(f"{label} is a factory {label.rsplit(':', 1)[-1]}(scenario): give --scenario N")
    if _takes_no_args(obj, scenario):
        raise RunInputError(
            f"{label} declares no GM arguments (decorate it with @aj.gm_kernel(aj.GmArg(...), ...)) and is "
            f"not a factory {label.rsplit(':', 1)[-1]}({'scenario' if scenario is not None else ''}) "
            "returning such a kernel"
        )
    try:
        fn = obj(scenario) if scenario is not None else obj()
    except Exception as e:  # noqa: BLE001  (the factory rejected the scenario, or failed: bad input)
        at = _where(e, user_dir, innermost=True)
        what = f"scenario {scenario}" if scenario is not None else "a call without --scenario"
        raise RunInputError(
            f"{label}: the factory rejected {what}: {type(e).__name__}: {e}" + (f" ({at})" if at else "")
        ) from e
    if not hasattr(fn, "gm_args"):
        raise RunInputError(
            f"{label} declares no GM arguments: decorate it with @aj.gm_kernel(aj.GmArg(...), ...)"
        )
    return Target(_check_arity(fn, label), label, user_dir)


def _takes_no_args(obj, scenario):
    """``obj`` cannot be called as ``obj(scenario)`` (or ``obj()``): it is no factory."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    try:
        sig.bind(scenario) if scenario is not None else sig.bind()
    except TypeError:
        return True
    return False


def _check_arity(fn, label):
    """The kernel takes ``k`` and one positional GM argument per ``GmArg`` (RunInputError naming
    both otherwise: the kernel would fail at its first call)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn
    try:
        sig.bind(None, *fn.gm_args)
    except TypeError as e:
        names = ", ".join(a.name for a in fn.gm_args)
        raise RunInputError(
            f"{label}: the kernel's parameters {sig} do not match its {len(fn.gm_args)} declared GM "
            f"arguments (k, {names}): {e}"
        ) from None
    return fn


def load_kernel(target, scenario=None, ops=None):
    """``resolve_kernel(...).fn``: the declared kernel function."""
    return resolve_kernel(target, scenario, ops).fn


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
    entries = [
        (a.filename, pathlib.Path(ours) / a.filename, pathlib.Path(theirs) / a.filename, a.dt, a.describe())
        for a in gm_args
        if a.is_output
    ]
    return diff_files(entries)


def diff_files(entries):
    """The ``--diff`` report (both front ends): ``entries`` are (name, our file, their file, dtype,
    what the file is); each pair compared bit for bit, element by element of the dtype. A missing
    file of theirs raises ``RunInputError``. Returns ``(clean, lines)``."""
    lines, clean = [], True
    for name, fo, ft, dt, what in entries:
        fo, ft = pathlib.Path(fo), pathlib.Path(ft)
        if not ft.is_file():
            raise RunInputError(f"--diff: missing {ft} ({what})")
        o, t = np.fromfile(fo, np.uint8), np.fromfile(ft, np.uint8)
        if o.size != t.size:
            clean = False
            lines.append(f"{name}: SIZE MISMATCH: model {o.size} bytes, {ft} {t.size} bytes")
            continue
        w = dt.itemsize
        n = o.size // w
        bad = np.nonzero(np.any(o[: n * w].reshape(n, w) != t[: n * w].reshape(n, w), axis=1))[0]
        lines.append(f"{name}: {bad.size} of {n} {dt.name} elements differ")
        if o.size % w and not np.array_equal(o[n * w :], t[n * w :]):
            clean = False
            lines.append(f"  the last {o.size % w} byte(s), short of an element, differ")
        if bad.size:
            clean = False
            ov, tv = o[: n * w].view(dt.np_dtype), t[: n * w].view(dt.np_dtype)
            for j in bad[:8]:
                ob, tb = o[j * w : (j + 1) * w], t[j * w : (j + 1) * w]
                lines.append(
                    f"  element {int(j)}: model {ov[j]!r} ({ob.tobytes().hex()}) "
                    f"other {tv[j]!r} ({tb.tobytes().hex()})"
                )
    return clean, lines


def uninit_text(warning):
    """A checker warning line (checks.describe), with what UNINIT means spelled out."""
    if "UNINIT" not in warning:
        return warning
    return f"{warning}: an active source lane reads UB bytes never written since the launch began"


# -- running -------------------------------------------------------------------------------------


class CaseResult(NamedTuple):
    name: str
    output_dir: pathlib.Path
    files: tuple
    fault: int
    out: object
    findings: tuple = ()
    race: bool = False  # a race of a traced address happened in this case (KernelResult.race_cases)
    warning: str = ""  # the case's checker warnings (checks.describe; UNINIT with check_uninit)


class KernelError(RuntimeError):
    """The user's kernel raised an exception of its own while it ran (``ascend-jax run``: exit 1,
    one line naming the exception and the file:line that raised it; the traceback with --debug)."""


def run_folders(
    fn,
    input_dirs,
    output_dirs,
    profile=None,
    names=None,
    user_dir=None,
    block_dim=None,
    schedule="program",
    auto_sync=False,
    check_uninit=False,
):
    """Run declared kernel ``fn`` on every input folder in one compiled, batched program; write
    each case's outputs to the matching output folder. Returns a list of ``CaseResult``.
    ``user_dir``: the folder of the user's kernel file (``Target.user_dir``): an exception raised
    by code there is the kernel's own (``KernelError``); any other propagates unchanged.
    ``block_dim``: the launch's cores (default: the declaration's); ``schedule``, ``auto_sync``,
    ``check_uninit``: as jit_kernel."""
    from .kernel import jit_kernel
    from .profile import DEFAULT_PROFILE

    input_dirs = [pathlib.Path(d) for d in input_dirs]
    output_dirs = [pathlib.Path(d) for d in output_dirs]
    names = names or [str(d) for d in input_dirs]
    for i, o in zip(input_dirs, output_dirs, strict=True):
        check_no_overwrite(fn.gm_args, i, o)
    cases = [read_inputs(fn.gm_args, d) for d in input_dirs]
    batch = len(cases)
    stacked = {a.name: np.stack([c[a.name] for c in cases]) for a in fn.gm_args if a.is_input}
    arrays = gm_arrays(fn, stacked, batch=batch)
    prof = profile or getattr(fn, "profile", None) or DEFAULT_PROFILE
    if block_dim is not None:
        check_block_dim(block_dim, prof)
    bd = block_dim or getattr(fn, "block_dim", 1) or 1
    try:
        res = jit_kernel(
            fn,
            profile=prof,
            return_state=True,
            block_dim=bd,
            schedule=schedule,
            auto_sync=auto_sync,
            check_uninit=check_uninit,
        )(*arrays)
    except AscendCError:
        raise
    except Exception as e:
        at = _where(e, None if user_dir is None else pathlib.Path(user_dir).resolve())
        if at is None:
            raise
        raise KernelError(f"the kernel raised {type(e).__name__}: {e} ({at})") from e
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
        ws = list(res.warnings or ())
        warning = ws[b] if len(ws) == batch else ""
        results.append(
            CaseResult(names[b], output_dirs[b], tuple(files), fw, out, tuple(res.findings), race, warning)
        )
    return results


def check_block_dim(block_dim, profile):
    """``--block-dim`` within [1, max_block_dim] of ``profile`` (both front ends; RunInputError)."""
    from .profile import load_profile

    prof = load_profile(profile)
    if not 1 <= int(block_dim) <= prof.max_block_dim:
        raise RunInputError(
            f"--block-dim {block_dim}: outside [1, {prof.max_block_dim}], the block counts of a launch on "
            f"profile {prof.name} (<<<blocks, ubuf, stream>>>)"
        )


def locate_fault(fn, input_dir, profile=None, user_dir=None, block_dim=None, schedule="program"):
    """The first call that faulted on one case (``input_dir``'s inputs): the kernel rerun eagerly,
    stopping at the first call whose fault bits are new -- "file:line: hardware fault in API: KIND"
    (the user's line when the kernel file is under ``user_dir``); "" when the rerun does not fault."""
    from .errors import AscendFault
    from .kernel import run_kernel
    from .profile import DEFAULT_PROFILE

    arrays = gm_arrays(fn, read_inputs(fn.gm_args, input_dir))
    prof = profile or getattr(fn, "profile", None) or DEFAULT_PROFILE
    bd = block_dim or getattr(fn, "block_dim", 1) or 1
    try:
        run_kernel(fn, *arrays, profile=prof, fault_policy="raise", block_dim=bd, schedule=schedule)
    except AscendFault as e:
        at = _where(e, None if user_dir is None else pathlib.Path(user_dir).resolve(), innermost=True)
        return f"{at}: {e}" if at else str(e)
    except Exception:  # noqa: BLE001  (the batched run's fault word stands on its own)
        return ""
    return ""


def _overlap(a, b):
    """Folders ``a`` and ``b`` (resolved) are the same, or one holds the other."""
    a, b = pathlib.Path(a).resolve(), pathlib.Path(b).resolve()
    return a == b or a.is_relative_to(b) or b.is_relative_to(a)


def check_output_folder(output, protected):
    """``output`` may be written: not a file, and apart from every folder of ``protected`` (a
    ``{option: folder}`` dict: the inputs, the --diff folder; neither the same, nor inside, nor
    holding it). RunInputError (exit 2) otherwise, before anything is written."""
    out = pathlib.Path(output)
    if out.exists() and not out.is_dir():
        raise RunInputError(f"--output {out}: not a folder (a file is there)")
    for parent in out.absolute().parents:  # the first existing folder above it: not a file
        if parent.exists():
            if not parent.is_dir():
                raise RunInputError(f"--output {out}: {parent} is a file, not a folder")
            break
    for opt, folder in protected.items():
        if folder is not None and _overlap(out, folder):
            how = "is" if out.resolve() == pathlib.Path(folder).resolve() else "overlaps"
            raise RunInputError(
                f"--output {out} {how} the {opt} folder {folder}: the run would write over its files; "
                "give an output folder apart from it"
            )


def check_no_overwrite(gm_args, input_dir, output_dir):
    """No output file of a case is one of its input files (the same path once resolved)."""
    out = pathlib.Path(output_dir)
    if out.exists() and not out.is_dir():
        raise RunInputError(f"output folder {out}: not a folder (a file is there)")
    ins = {(pathlib.Path(input_dir) / a.filename).resolve() for a in gm_args if a.is_input}
    for a in gm_args:
        if a.is_output and (out / a.filename).resolve() in ins:
            raise RunInputError(
                f"output file {out / a.filename} is the input file of {a.describe()}: the run would "
                "overwrite its input; give an output folder apart from the inputs"
            )


def case_folders(cases_dir, output):
    """(names, input folders, output folders) of every sub-folder of ``--cases`` (inputs directly in
    it or in its ``input/``; outputs in its ``output/`` or ``OUTPUT/<name>``)."""
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
