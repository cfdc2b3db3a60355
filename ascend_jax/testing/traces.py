"""Trace counting for the one-compile-per-signature tests.

Where a test owns the function it jits, it wraps it with ``chex.assert_max_traces(fn, n)`` (before
``jax.jit``). The engine's shared programs (``run_unary``, ``run_binary``, ``run_gather_mask`` ...) are
jitted inside the package, where a test cannot wrap them; ``max_traces(name, n)`` counts the jaxpr
traces of jitted functions of that name inside a ``with`` block, through ``jax.monitoring`` (the event
JAX records each time it traces a jitted function, i.e. on every cache miss), and their lowerings to
new programs (the only event of a jitted function called under an eager ``vmap``). Inside an outer
``jit`` an inner jitted function is inlined and reports nothing: count the outer one.
"""

import contextlib

from jax import monitoring

_TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
_LOWER_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"


@contextlib.contextmanager
def _events(fun_name):
    """{"traced": [...], "lowered": [...]}: the trace and lowering events of the jitted functions
    named ``fun_name`` while the block runs."""
    got = {"traced": [], "lowered": []}
    names = {_TRACE_EVENT: ("traced", fun_name), _LOWER_EVENT: ("lowered", f"jit({fun_name})")}

    def listen(event, _duration, **kw):
        if event in names and kw.get("fun_name") == names[event][1]:
            got[names[event][0]].append(fun_name)

    monitoring.register_event_duration_secs_listener(listen)
    try:
        yield got
    finally:
        monitoring.unregister_event_duration_listener(listen)


@contextlib.contextmanager
def max_traces(fun_name, n=0):
    """Fail unless jitted functions named ``fun_name`` are traced at most ``n`` times in the block.

    Yields the list of traces seen so far (one entry per trace)."""
    with _events(fun_name) as got:
        yield got["traced"]
    for k in ("traced", "lowered"):
        # a jitted function called under an eager ``vmap`` reports no trace event, only its
        # lowering to a new program: count those too (one per cache miss)
        assert len(got[k]) <= n, f"{fun_name} was {k} {len(got[k])} times in the block (at most {n} allowed)"


@contextlib.contextmanager
def programs_built(fun_name):
    """Count the programs built from the jitted function ``fun_name`` inside a ``with`` block: JAX
    lowers a jitted function to a new program on every cache miss of its in-memory cache (a traced
    function called under ``vmap``, or a persistent-cache hit, still lowers once), so the count is
    the number of distinct programs the block needed. Yields the list of lowerings (one entry each);
    assert on its length after the block."""
    with _events(fun_name) as got:
        yield got["lowered"]
