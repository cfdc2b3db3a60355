"""How the fast path's programs are compiled: for run time (the default: kernels, benchmarks, big
batches) or for compile time (campaigns whose programs each run once, on a few hundred cases).

A fuzz campaign compiles one program per signature and runs it on the few hundred cases drawn for
that signature; XLA's codegen then dominates its wall time. Two codegen settings cut the compile
of one compare/select program from ~2.1-2.9 s to ~0.7 s and make it run ~5-10x slower (30-60 ->
~300 us a case): LLVM's optimisation level 0 and XLA's CPU loop emitters in place of its fusion
emitters. Below ``QUICK_MAX_CASES`` cases per signature the quick build wins. Codegen only: XLA's
HLO passes and float semantics (no fast math) are the same, so both builds give the same bits
(tests/test_compile_modes.py).

``jit(fn, **kw)`` is ``jax.jit(fn, **kw)`` with a second, quick build used inside
``quick_compile()``. XLA compile options may only be given to a top-level program, so the body of
either build runs with the quick mode off: a ``jit`` nested in another traces its plain build.
(A core-level utility: no ascend_jax imports, so every layer may use it.)
"""

import contextlib
import contextvars
import functools

import jax

# Above this many cases of one signature, the optimised build's faster run pays for its compile
# (measured on the compare/select programs: ~1.8 s saved against ~0.3 ms a case lost).
QUICK_MAX_CASES = 4096

QUICK_OPTIONS = {"xla_backend_optimization_level": 0, "xla_cpu_use_fusion_emitters": False}


def quick_options(platform=None):
    """The quick build's XLA options for ``platform`` (default: JAX's default backend): the CPU
    codegen options on CPU, none elsewhere (they name XLA:CPU's LLVM backend and loop emitters; a
    GPU or TPU build keeps its defaults, so the quick build there is the plain build)."""
    platform = jax.default_backend() if platform is None else platform
    return dict(QUICK_OPTIONS) if platform == "cpu" else {}


_QUICK = contextvars.ContextVar("ascend_jax_quick_compile", default=False)


@contextlib.contextmanager
def quick_compile(on=True):
    """Inside the block, ``jit`` functions called at top level build for compile time."""
    tok = _QUICK.set(bool(on))
    try:
        yield
    finally:
        _QUICK.reset(tok)


def quick_for(n_cases):
    """Whether a program that will run on ``n_cases`` cases should be built for compile time."""
    return n_cases <= QUICK_MAX_CASES


def jit(fn, **jit_kw):
    """``jax.jit(fn, **jit_kw)``, built with ``QUICK_OPTIONS`` when called inside
    ``quick_compile()``. ``.full`` / ``.quick``: the two ``jax.jit`` objects; ``lower`` is the full
    build's (the one kernels use), ``_cache_size`` counts both builds' programs."""

    @functools.wraps(fn)
    def body(*args, **kw):
        tok = _QUICK.set(False)  # nested jits trace their plain build
        try:
            return fn(*args, **kw)
        finally:
            _QUICK.reset(tok)

    full = jax.jit(body, **jit_kw)
    opts = quick_options()
    quick = jax.jit(body, compiler_options=opts, **jit_kw) if opts else full

    @functools.wraps(fn)
    def call(*args, **kw):
        return (quick if _QUICK.get() else full)(*args, **kw)

    call.full, call.quick = full, quick
    call.lower = full.lower
    call._cache_size = lambda: full._cache_size() + (quick._cache_size() if quick is not full else 0)
    return call


# -- compiled executables kept across processes ------------------------------------------------
# JAX's persistent cache skips XLA's compilation, not tracing and lowering: a campaign's warm run
# still paid ~0.5 s a signature (the vmapped API traced, lowered, its executable looked up). The
# store below keeps the executable itself (``jax.experimental.serialize_executable``), keyed by
# everything that can change it: the caller's key (family, signature, profile, batch size), the
# argument shapes and types, the build (quick or full), JAX / jaxlib versions, the platform and
# device, XLA_FLAGS, and a hash of this package's sources (an edited engine never loads an old
# program). Loading one takes ~0.1-0.2 s and its first call ~10 ms (measured: a Select program of
# 256 cases, 0.96 MB). Same executable, same bits (tests/test_fuzz_batched.py).

STORE_MAX_BYTES = 512 << 20  # the store's size bound: least recently used files go first
_LOADED = {}  # full key -> Compiled, this process (bounded by the caller's LRU of programs)
_LOADED_KEPT = 128


@functools.cache
def _sources_hash():
    import hashlib
    import pathlib

    h = hashlib.sha256()
    root = pathlib.Path(__file__).resolve().parent
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def _store_dir():
    """``<persistent cache dir>-executables`` beside JAX's persistent cache (whose own eviction
    must not see these files); None when that cache is off."""
    import pathlib

    d = jax.config.jax_compilation_cache_dir
    if not d:
        return None
    p = pathlib.Path(d)
    return p.parent / (p.name + "-executables")


def _full_key(key, args, quick):
    import hashlib
    import os

    import jaxlib

    leaves, tree = jax.tree_util.tree_flatten(args)
    avals = [(type(x).__name__, getattr(x, "shape", ()), str(getattr(x, "dtype", ""))) for x in leaves]
    dev = jax.devices()[0]
    parts = (
        repr(key),
        str(tree),
        repr(avals),
        bool(quick),
        jax.__version__,
        jaxlib.__version__,
        dev.platform,
        getattr(dev, "device_kind", ""),
        os.environ.get("XLA_FLAGS", ""),
        bool(jax.config.jax_enable_x64),
        _sources_hash(),
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def _prune(d):
    files = sorted(d.glob("*.exe"), key=lambda f: f.stat().st_mtime)
    total = sum(f.stat().st_size for f in files)
    for f in files:
        if total <= STORE_MAX_BYTES:
            break
        total -= f.stat().st_size
        f.unlink(missing_ok=True)


@contextlib.contextmanager
def _fresh_compile():
    """JAX's persistent cache off for one compilation: an executable XLA:CPU loads from that cache
    serialises without its object code (measured: the stored copy then fails with "Function ...
    not found" at its first call), so a program bound for the store is compiled afresh."""
    from jax.experimental.compilation_cache import compilation_cache as _cc

    was = jax.config.jax_enable_compilation_cache
    jax.config.update("jax_enable_compilation_cache", False)
    _cc.reset_cache()
    try:
        yield
    finally:
        jax.config.update("jax_enable_compilation_cache", was)
        _cc.reset_cache()


def executable(fn, key, args, quick=False):
    """The compiled program of ``fn`` (a ``jit`` of this module) for ``args``, as a callable: from
    this process's memo, else from the store (``_store_dir``), else lowered and compiled (through
    JAX's persistent cache) and written to the store. ``key``: what the caller knows identifies the
    program (a repr-able value). Any failure of the store (unwritable, a damaged file, an
    executable this backend cannot serialise) falls back to compiling; the result is the same
    program either way."""
    import os
    import pickle

    full = _full_key(key, args, quick)
    hit = _LOADED.get(full)
    if hit is not None:
        return hit
    build = fn.quick if quick else fn.full
    d = _store_dir()
    path = None if d is None else d / f"{full}.exe"
    compiled = None
    if path is not None and path.is_file():
        try:
            from jax.experimental import serialize_executable as _ser

            payload, in_tree, out_tree = pickle.loads(path.read_bytes())
            compiled = _ser.deserialize_and_load(payload, in_tree, out_tree)
            os.utime(path)
        except Exception:  # noqa: BLE001  (a damaged or foreign file: rebuild it)
            compiled = None
            path.unlink(missing_ok=True)
    if compiled is None:
        lowered = build.lower(*args)
        if path is None:
            compiled = lowered.compile()
        else:
            with _fresh_compile():
                compiled = lowered.compile()
            try:
                from jax.experimental import serialize_executable as _ser

                d.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_bytes(pickle.dumps(_ser.serialize(compiled)))
                os.replace(tmp, path)
                _prune(d)
            except Exception:  # noqa: BLE001  (the store is an optimisation only)
                pass
    _LOADED[full] = compiled
    while len(_LOADED) > _LOADED_KEPT:
        _LOADED.pop(next(iter(_LOADED)))
    return compiled


# -- how many programs a process may hold ----------------------------------------------------------
# Every XLA:CPU executable keeps ~3 memory maps (code, read-only data, data) until its last
# reference goes; a campaign over every API compiles thousands of small programs (the eager path's
# ops and jitted cores, one per static signature) that JAX's caches keep: measured, 1,500 cases of
# an all-API campaign held 32,570 maps, and at Linux's default vm.max_map_count (65,530) the
# process then fails with "LLVM compilation error: Cannot allocate memory" (RSS ~6 GB by then).
MAPS_HIGH = 20000  # or half of vm.max_map_count, whichever is lower


def _map_count():
    try:
        with open("/proc/self/maps", "rb") as f:
            return sum(1 for _ in f)
    except OSError:  # not Linux: no such limit to watch
        return 0


@functools.cache
def _maps_high():
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            return min(MAPS_HIGH, int(f.read()) // 2)
    except (OSError, ValueError):
        return MAPS_HIGH


def too_many_programs():
    """Whether this process holds so many compiled programs that it nears the OS limit on memory
    maps (Linux; elsewhere never): the caller should wait for its running programs and call
    ``release_programs``."""
    return _map_count() > _maps_high()


def release_programs():
    """Drop every compiled program this process holds (JAX's caches and the store's memo): they are
    compiled or loaded again (persistent cache, store) when next called."""
    _LOADED.clear()
    jax.clear_caches()
