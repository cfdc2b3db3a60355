"""The one batched runner of the differential engine.

Fast path: cases are grouped by their family's static signature; each group runs in chunks of
``batch`` cases, padded with copies of the chunk's first case (the batch size is a static shape, so
one compilation serves every chunk of a signature), through one vmapped call with every other
parameter traced. With a ``sharding`` (``ascend_jax.kernel.case_sharding``: ``--devices``) the padded
batch is a multiple of the device count and is placed split over its case axis, so each device
runs its share of the chunk; every case still runs whole on one device (the same bits). Reference: the literal NumPy oracle, one case at a time. ``run_all`` overlaps the
two: the fast chunks run in worker threads (XLA releases the GIL while it compiles and runs) while
the main thread computes the reference.

A family adapter (``ascend_jax.fuzz.families``) supplies ``signature``, ``initial_ub``,
``stack_dyn``, ``fast_fn`` (batched) or ``fast_one`` (unbatched, eager) and ``reference``.
"""

import collections
import concurrent.futures
import threading
import types

import jax
import jax.numpy as jnp
import numpy as np

from .. import _compile
from .. import reference as _ref
from ..kernel import padded_cases, place_cases
from ..profile import as_profile
from ..state import CoreState

_FIELDS = (
    "ub",
    "vmask",
    "mask_mode",
    "cmpmask",
    "ctrl",
    "rsvd_cnt",
    "fault",
    "warn",
    "warn_at",
    "deqscale",
    "reduce_spr",
)


def initial_fields(case, ub):
    """The case's initial state as NumPy fields: UB bytes from the family, registers from the case
    (``fuzz.regs`` drew them)."""
    return {
        "ub": np.asarray(ub, np.uint8),
        "vmask": np.array(case.vmask, np.uint32),
        "mask_mode": np.int32(case.mask_mode),
        "cmpmask": np.array(getattr(case, "cmpmask", (0, 0, 0, 0)), np.uint32),
        "ctrl": np.array(case.ctrl, np.uint32),
        "rsvd_cnt": np.int32(getattr(case, "rsvd_init", 0)),
        "fault": np.uint32(0),
        "warn": np.uint32(0),  # checker warnings (never part of the comparison)
        "warn_at": np.zeros(2, np.int32),
        # the special registers SetDeqScale and the reductions write (0 at reset, or the case's)
        "deqscale": np.array(getattr(case, "deqscale_init", (0, 0)), np.uint32),
        "reduce_spr": np.array(getattr(case, "reduce_spr_init", (0, 0, 0)), np.uint32),
    }


def ref_state(fields, p):
    st = _ref.reset_state(p, ub_bytes=len(fields["ub"]))
    st.ub = np.array(fields["ub"], np.uint8)
    st.vmask = np.array(fields["vmask"], np.uint32)
    st.mask_mode = int(fields["mask_mode"])
    st.cmpmask = np.array(fields["cmpmask"], np.uint32)
    st.ctrl = np.array(fields["ctrl"], np.uint32)
    st.rsvd_cnt = int(fields["rsvd_cnt"])
    st.fault = int(fields["fault"])
    deq = np.asarray(fields.get("deqscale", _DEFAULTS["deqscale"])).astype(np.uint64)
    st.deqscale = int(deq[0]) | (int(deq[1]) << 32)
    spr = [int(x) for x in np.asarray(fields.get("reduce_spr", _DEFAULTS["reduce_spr"]))]
    st.reduce_sum, st.reduce_maxmin = spr[0], (spr[1], spr[2])
    return st


# fields a capsule (or a caller's field dict) may lack
_DEFAULTS = {
    "warn": np.uint32(0),
    "warn_at": np.zeros(2, np.int32),
    "deqscale": np.zeros(2, np.uint32),
    "reduce_spr": np.zeros(3, np.uint32),
}


def core_state(fields_list):
    """Stack per-case fields into one batched CoreState (or an unbatched one from a dict)."""
    if isinstance(fields_list, dict):
        return CoreState(**{f: jnp.asarray(fields_list.get(f, _DEFAULTS.get(f))) for f in _FIELDS})
    return CoreState(
        **{f: jnp.asarray(np.stack([d.get(f, _DEFAULTS.get(f)) for d in fields_list])) for f in _FIELDS}
    )


def host_state(fields):
    """One case's CoreState with NumPy leaves (the fast path's programs take them as they are)."""
    return CoreState(**{f: np.asarray(fields.get(f, _DEFAULTS.get(f))) for f in _FIELDS})


def batch_fields(adapter, cases, p, fields=None):
    """The initial fields of ``cases`` stacked over a leading case axis (NumPy), as
    ``initial_fields`` gives them one by one; ``fields``: per-case field dicts to stack instead."""
    if fields is not None:
        return {f: np.stack([np.asarray(d.get(f, _DEFAULTS.get(f))) for d in fields]) for f in _FIELDS}
    n = len(cases)
    return {
        "ub": np.asarray(adapter.initial_ubs(cases), np.uint8),
        "vmask": np.array([c.vmask for c in cases], np.uint32),
        "mask_mode": np.array([c.mask_mode for c in cases], np.int32),
        "cmpmask": np.array([getattr(c, "cmpmask", (0, 0, 0, 0)) for c in cases], np.uint32),
        "ctrl": np.array([c.ctrl for c in cases], np.uint32),
        "rsvd_cnt": np.array([getattr(c, "rsvd_init", 0) for c in cases], np.int32),
        "fault": np.zeros(n, np.uint32),
        "warn": np.zeros(n, np.uint32),
        "warn_at": np.zeros((n, 2), np.int32),
        "deqscale": np.array([getattr(c, "deqscale_init", (0, 0)) for c in cases], np.uint32),
        "reduce_spr": np.array([getattr(c, "reduce_spr_init", (0, 0, 0)) for c in cases], np.uint32),
    }


def _pad_rows(tree, total):
    """Every leaf's leading axis padded to ``total`` rows with copies of row 0."""

    def pad(x):
        x = np.asarray(x)
        k = total - x.shape[0]
        return x if k <= 0 else np.concatenate([x, np.repeat(x[:1], k, axis=0)])

    return jax.tree_util.tree_map(pad, tree)


def _chunk_inputs(adapter, cases, p, batch, fields, sharding):
    """(padded cases, padded size, CoreState with NumPy leaves, stacked traced values) of a chunk
    padded to ``batch`` (a multiple of the sharding's device count) with copies of its first case."""
    total = padded_cases(batch, sharding)
    padded = list(cases) + [cases[0]] * (total - len(cases))
    fb = _pad_rows(batch_fields(adapter, cases, p, fields), total)
    state = place_cases(CoreState(**{f: fb[f] for f in _FIELDS}), sharding, total)
    return padded, total, state, place_cases(adapter.stack_dyn(padded, p), sharding, total)


def fields_of(adapter, case, p, fields=None):
    return fields if fields is not None else initial_fields(case, adapter.initial_ub(case))


_COMPILE_LOCK = threading.Lock()
_COMPILED = set()


def _first_call_locked(key, fn, state, dyn):
    """``fn(state, dyn)``; the first call of a program in this process (its compilation, or its load
    from the persistent cache) holds a process-wide lock, so ``run_all``'s worker threads never
    compile or load executables at the same time. Added while chasing XLA segfaults that turned out
    to come from jitting the whole public API per signature (reverted, see family.py); it is a
    precaution, not a proven fix. Later calls run unlocked, in parallel."""
    if key in _COMPILED:
        return fn(state, dyn)
    with _COMPILE_LOCK:
        out = fn(state, dyn)
        _COMPILED.add(key)
    return out


def _split(res, n):
    res = jax.tree_util.tree_map(np.asarray, res)
    return [jax.tree_util.tree_map(lambda x, j=j: x[j], res) for j in range(n)]


def run_fast_chunk(adapter, cases, p, batch, fields=None, sharding=None, quick=None):
    """At most ``batch`` cases of one signature -> [(state, ret)] (NumPy leaves). ``sharding``:
    split the padded batch over devices (see the module docstring). ``quick``: build the program
    for compile time (``ascend_jax._compile``; the same bits); default: when the chunk is all the
    program will run (``quick_for(len(cases))``) -- callers that know the signature's whole case
    count pass it."""
    n = len(cases)
    if quick is None:
        quick = quick_for(adapter, n)
    with _compile.quick_compile(quick):
        return _run_fast_chunk(adapter, cases, p, batch, fields, sharding, quick)


def _run_fast_chunk(adapter, cases, p, batch, fields, sharding, quick):
    n = len(cases)
    if not adapter.batched:
        out = []
        for k, c in enumerate(cases):
            f = fields_of(adapter, c, p, None if fields is None else fields[k])
            st, ret = adapter.fast_one(c, core_state(f), p)
            out.append((jax.tree_util.tree_map(np.asarray, st), None if ret is None else np.asarray(ret)))
        return out
    padded, total, state, dyn = _chunk_inputs(adapter, cases, p, batch, fields, sharding)
    state = jax.tree_util.tree_map(jnp.asarray, state)
    st, ret = _first_call_locked(
        (type(adapter).__name__, adapter.signature(padded[0], p), id(p), total, sharding is not None, quick),
        adapter.fast_fn(padded[0], p),
        state,
        dyn,
    )
    sts = _split(st, n)
    rets = [None] * n if ret is None else [np.asarray(r) for r in _split(ret, n)]
    return list(zip(sts, rets, strict=True))


class Batch:
    """The fast path's results of one chunk, batched: ``fields`` (NumPy arrays with a leading axis
    of ``n`` cases, the CoreState field names) and ``ret`` (the returned values, or None)."""

    def __init__(self, fields, ret, n):
        self.fields, self.ret, self.n = fields, ret, n

    def row(self, j):
        """(state, returned value) of case ``j``: a state with the CoreState field names."""
        st = types.SimpleNamespace(**{f: v[j] for f, v in self.fields.items()})
        return st, None if self.ret is None else self.ret[j]


class Launched:
    """A chunk dispatched to the fast path (``launch_chunk``): ``result()`` waits for it and reads
    it back as a ``Batch``."""

    def __init__(self, out, n):
        self._out, self._n = out, n

    def wait(self):
        jax.block_until_ready(self._out)

    def ready(self):
        """Whether the chunk's results are computed (never waits)."""
        return all(getattr(x, "is_ready", lambda: True)() for x in jax.tree_util.tree_leaves(self._out))

    def result(self):
        st, ret = self._out
        n = self._n
        fields = {f: np.asarray(getattr(st, f))[:n] for f in _FIELDS}
        return Batch(fields, None if ret is None else np.asarray(ret)[:n], n)


_PROGRAMS = collections.OrderedDict()
PROGRAMS_KEPT = 128  # compiled chunk programs kept (least recently used dropped: a campaign over
# thousands of signatures, e.g. DataCopy's static layouts, would otherwise keep every executable)


WHOLE_MIN_CASES = 16


def release_programs():
    """Drop every program this process holds (``_compile.release_programs``) and the whole-program
    LRU: a long campaign's bound on live executables (engine)."""
    _PROGRAMS.clear()
    _compile.release_programs()


def compiled_chunks(n_cases, batch):
    """Run a signature's chunks as one compiled program (``fast_program``, its executable stored
    across runs) when it has at least ``min(batch, WHOLE_MIN_CASES)`` cases in the run; fewer run
    the family's eager call (its jitted core is shared, its small ops come from JAX's op cache).
    The threshold keeps campaigns over thousands of rare signatures (DataCopy's static layouts:
    ~11,800 signatures in 40,000 cases, 72 of them with 16 cases or more) from compiling a whole
    program for each, while the few dozen rare signatures of an API mix load theirs from the store
    in ~0.15 s instead of ~1 s of eager tracing on every run (issue 36)."""
    return n_cases >= min(batch, WHOLE_MIN_CASES)


def fast_program(adapter, case0, p):
    """The batched fast call of ``case0``'s signature as one compiled program, cached per
    (family, signature, profile): the family's ``fast_fn`` (the public API vmapped, or the
    family's own program, ``PlannedFamily``) jitted whole, so a chunk costs one dispatch, not
    the eager vmap's ~0.2 s of Python, and its executable can be stored (``_compile.executable``)."""
    key = (type(adapter).__name__, adapter.signature(case0, p), id(p))
    hit = _PROGRAMS.get(key)
    if hit is None or hit[1] is not p:
        hit = (_compile.jit(adapter.fast_fn(case0, p)), p)  # ``p`` kept alive: its id stays its own
        _PROGRAMS[key] = hit
        while len(_PROGRAMS) > PROGRAMS_KEPT:
            _PROGRAMS.popitem(last=False)
    _PROGRAMS.move_to_end(key)
    return hit[0]


def launch_chunk(adapter, cases, p, batch, sharding=None, quick=None, compiled=True):
    """Dispatch at most ``batch`` cases of one signature to the fast path without waiting (JAX
    dispatches asynchronously): the caller's thread builds the inputs, compiles the signature's
    program on its first chunk, and may do other work (the oracle) while it runs. Called from one
    thread only (the campaign engine's main thread): no program compiles concurrently."""
    n = len(cases)
    if quick is None:
        quick = quick_for(adapter, n)
    if not adapter.batched:
        res = _run_fast_chunk(adapter, cases, p, batch, None, sharding, quick)
        st = {f: np.stack([np.asarray(getattr(s, f)) for s, _ in res]) for f in _FIELDS}
        ret = None if res[0][1] is None else np.stack([np.asarray(r) for _, r in res])
        return Launched((types.SimpleNamespace(**st), ret), n)
    # NumPy leaves: the program transfers them itself (a ``jnp.asarray`` here would queue behind
    # the chunk still running and wait for it)
    padded, _, state, dyn = _chunk_inputs(adapter, cases, p, batch, None, sharding)
    fn = fast_program(adapter, padded[0], p) if compiled else adapter.fast_fn(padded[0], p)
    if compiled and sharding is None and hasattr(fn, "full"):
        # the compiled program itself, kept across runs (``_compile.executable``)
        key = ("fuzz", type(adapter).__name__, adapter.signature(padded[0], p), p)
        return Launched(_compile.executable(fn, key, (state, dyn), quick)(state, dyn), n)
    with _compile.quick_compile(quick):
        out = fn(state, dyn)
    return Launched(out, n)


def chunks(adapter, cases, p, batch):
    """[(signature, [case indices])]: each signature's cases in chunks of at most ``batch``, in
    order of first appearance."""
    groups = {}
    for i, c in enumerate(cases):
        groups.setdefault(adapter.signature(c, p), []).append(i)
    out = []
    for sig, idx in groups.items():
        for k in range(0, len(idx), batch):
            out.append((sig, idx[k : k + batch]))
    return out


def chunk_size(n_cases, batch):
    """The padded batch of a signature with ``n_cases`` cases in the run: ``batch``, or the power
    of two (at least 8) that holds them all when they are fewer (a signature drawn 4 times runs 8
    padded cases, not 256: its program compiles for that size once)."""
    if n_cases >= batch:
        return batch
    return min(batch, max(8, 1 << max(0, int(n_cases) - 1).bit_length()))


def quick_for(adapter, n_cases):
    """Build the family's program for compile time (``ascend_jax._compile``)? Up to the family's
    ``quick_max_cases`` cases of a signature in the run (default ``_compile.QUICK_MAX_CASES``)."""
    return n_cases <= getattr(adapter, "quick_max_cases", _compile.QUICK_MAX_CASES)


def quick_by_signature(chunk_list, adapter=None):
    """{signature: build its program for compile time?} from ``chunks``' output: by the number of
    cases the signature has in this run (``ascend_jax._compile.quick_for``)."""
    n = {}
    for sig, idx in chunk_list:
        n[sig] = n.get(sig, 0) + len(idx)
    return {sig: quick_for(adapter, k) for sig, k in n.items()}


def run_fast(adapter, cases, p, batch=256, fields=None, sharding=None):
    """[(state, ret)] for every case through the fast path (batched by signature)."""
    p = as_profile(p)
    out = [None] * len(cases)
    ch = chunks(adapter, cases, p, batch)
    quick = quick_by_signature(ch, adapter)
    for sig, idx in ch:
        fl = None if fields is None else [fields[i] for i in idx]
        res = run_fast_chunk(adapter, [cases[i] for i in idx], p, batch, fl, sharding, quick[sig])
        for i, r in zip(idx, res, strict=True):
            out[i] = r
    return out


def run_reference(adapter, case, p, oracle=None, fields=None):
    """(RefState, ret) of the NumPy reference (``oracle``: a module-like object with the reference
    API functions; default ``ascend_jax.reference``)."""
    p = as_profile(p)
    st = ref_state(fields_of(adapter, case, p, fields), p)
    return adapter.reference(case, p, oracle or _ref, st)


def run_static(adapter, case, p, fields=None):
    """(state, ret) of the fast path with the case's parameters static, as a kernel trace sees them
    (``ascend_jax.static_params``): one program per case. Tests use it to show the static path
    gives the traced path's bits."""
    import ascend_jax as aj

    p = as_profile(p)
    state = core_state(fields_of(adapter, case, p, fields))

    def one(st):
        with aj.static_params():
            return adapter.call_static(aj, case, st, p)

    st, ret = jax.jit(one)(state)
    return jax.tree_util.tree_map(np.asarray, st), None if ret is None else np.asarray(ret)


def run_all(adapter, cases, p, batch=256, workers=2, oracle=None, sharding=None):
    """(fast results, reference results) for every case: the fast chunks run in ``workers``
    threads while the main thread computes the reference. Each case's initial fields are drawn
    once, for both implementations."""
    p = as_profile(p)
    fast, refs = [None] * len(cases), [None] * len(cases)
    with concurrent.futures.ThreadPoolExecutor(max(1, workers)) as ex:
        futs = {}
        ch = chunks(adapter, cases, p, batch)
        quick = quick_by_signature(ch, adapter)
        for sig, idx in ch:
            fl = [fields_of(adapter, cases[i], p) for i in idx]
            sub = [cases[i] for i in idx]
            futs[ex.submit(run_fast_chunk, adapter, sub, p, batch, fl, sharding, quick[sig])] = idx
            for i, f in zip(idx, fl, strict=True):
                refs[i] = run_reference(adapter, cases[i], p, oracle, fields=f)
        for f, idx in futs.items():
            for i, r in zip(idx, f.result(), strict=True):
                fast[i] = r
    return fast, refs
