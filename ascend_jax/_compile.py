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
