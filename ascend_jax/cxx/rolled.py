"""The rolled back end: a launch's trace compiled as loops, one body per repeating unit.

A core's trace is mostly a loop: the same calls with the same static parameters, only the GM
offsets moving. ``plan(launch)`` finds that structure and ``kernel_fn`` runs it:

- **Structure key** of a record: the record with its GM offsets (and a GlobalTensor's remaining
  length) left out and every LocalTensor handle named by the buffer it was allocated from (the
  queue and the UB address); everything else -- API, template arguments, dtypes, UB addresses,
  counts, scalars, parameter structs, the source line -- must match.
- **Value** of a record: its GM byte offsets, in argument order.
- **Loop**: a run of ``reps`` equal units of ``P`` records. The first iteration runs straight (it
  makes the queues' first-use bookkeeping); the rest are one ``lax.scan`` whose body replays the
  first rolled iteration with the offsets read from a table, carry = the core's state and the GM
  buffers. A unit boundary must leave the Python side (the TPipe/TQue/TBuf bookkeeping, the
  allocator) in the same state at every iteration; iterations before that state settles run
  straight.
- **Cores** (an SPMD launch: every block's keys equal, no SyncAll): the cores are one more loop,
  a ``lax.scan`` over the blocks whose body is block 0's program with that block's table; each
  core starts from a fresh state, GM is the carry (cores in order, core 0 first).
- **Findings** stay those of the whole trace: a record-only pass replays every record through the
  Kernel layer with the execution skipped, and its call logs (with every concrete address) are
  the launch's logs (``hazards.check`` reads them as before).
- **Falls back** to today's straight line when nothing repeats (or fewer than ``MIN_ROLLED``
  records would roll), for a value read (``upto``/``capture``), an eager run, a schedule other
  than "program", a SyncAll, a GM access outside its buffer, or when the loop's state does not
  keep its shape (``lax.scan`` refuses the carry). ``ASCEND_JAX_ROLLED=0`` turns it off.
"""

import bisect
import copy
import dataclasses
import os

import jax
import numpy as np
from jax import lax

import ascend_jax as aj
from ascend_jax.kernel import Kernel

from . import trace as T

MIN_ROLLED = 16  # records a loop must take off the straight line to be rolled
MAX_PERIOD = 512  # the longest unit (records) looked for
PROGRESS_CALLS = 20000  # a launch this long prints a progress line (cxx/run.py)
_ALLOC_OPS = ("AllocTensor", "Get", "GetWithOffset", "Alloc")


def enabled():
    return os.environ.get("ASCEND_JAX_ROLLED", "1") not in ("0", "off", "false")


# -- keys and values ------------------------------------------------------------------------------
def _canon(x, alloc_of, offs):
    if isinstance(x, dict):
        t = x.get("t")
        if t == "G":
            offs.append(x["off"])
            return ("G", x["dt"], x["buf"])
        if t == "L":
            return ("L", x["dt"], alloc_of.get(x["h"], ("?", x["h"])), x["addr"], x["len"])
        return tuple((k, _canon(v, alloc_of, offs)) for k, v in x.items() if k not in ("b", "h", "file"))
    if isinstance(x, list):
        return tuple(_canon(v, alloc_of, offs) for v in x)
    return x


def _slotted(x, counter):
    """A copy of record ``x`` whose GlobalTensor offsets name value slots (``"slot": j``)."""
    if isinstance(x, dict):
        if x.get("t") == "G":
            y = dict(x)
            del y["off"]
            y["slot"] = counter[0]
            counter[0] += 1
            return y
        return {k: _slotted(v, counter) for k, v in x.items()}
    if isinstance(x, list):
        return [_slotted(v, counter) for v in x]
    return x


class _Block:
    """One block's records with their keys, values and Python-side fingerprints."""

    def __init__(self, events, interned=None):
        """``interned``: the key table shared by the blocks of a launch, so that equal key numbers
        mean equal records across blocks (the SPMD test compares them)."""
        self.events = events  # [(index, record)]
        interned = {} if interned is None else interned
        keys, offs = [], []
        alloc_of = {}
        for _, e in events:
            if e["op"] in _ALLOC_OPS and "h" in e:
                alloc_of[e["h"]] = (e["obj"], e.get("addr"))
            o = []
            key = _canon(e, alloc_of, o)
            keys.append(interned.setdefault(key, len(interned)))
            offs.append(o)
        self.keys = np.asarray(keys, np.int64)
        self.offs = offs
        self.fp = None  # fingerprints before each record and after the last (``_segments``)
        self.segs = None  # set by the record pass


def _fingerprint(r):
    """The Python-side bookkeeping of replayer ``r``'s kernel that a loop must leave unchanged."""
    k = r.k
    parts = [k._next_addr, k._n_buffers, k._atomic]
    for oid in sorted(r.objs):
        o = r.objs[oid]
        if isinstance(o, aj.TPipe):
            parts.append((oid, tuple(sorted((p.name, n) for p, n in o._alloc_count.items()))))
            parts.append(tuple(sorted((e.name, tuple(sorted(s))) for e, s in o._event_ids.items())))
        elif hasattr(o, "_buffers"):
            bufs = tuple((b.index, b.addr, b.in_use, b.freed) for b in o._buffers)
            q = tuple(t.handle.index for t in getattr(o, "_queue", ()))
            parts.append((oid, bufs, q, tuple(sorted(getattr(o, "_reused", ())))))
        else:
            parts.append((oid, repr(sorted((n, repr(v)) for n, v in vars(o).items() if n != "k"))))
    return hash(tuple(parts))


class _RecordKernel(Kernel):
    """A Kernel that logs every call (footprints, flags, checks) and executes none."""

    def _run(self, call, thunk, value=False):
        return None

    def _flush(self, upto=None):
        return None


def _record_pass(launch, per_block, template, gts):
    """Replay every block's records on record-only kernels: the call logs (every call, concrete
    addresses) and each block's segments. ``template``: the jit_kernel's core-0 Kernel."""
    ks, gm_ok = {}, True
    sizes = [int(raw.shape[-1]) for raw in template._gm]
    for b, blk in per_block.items():
        k = _RecordKernel(template.profile, block_idx=b, block_num=template.block_num)
        k.state = template.state  # (shapes only: nothing executes)
        k._arena_full = template._arena_full
        _same_setup(k, template)
        blk.segs = _record_block(T.Replayer(k, launch, gts), blk)
        ks[b] = k
    for k in ks.values():
        for c in k.log.calls:
            for a in c.accesses or ():
                if isinstance(a.space, tuple) and a.space[0] == "GM":
                    n = sizes[a.space[1]]
                    ints = isinstance(a.start, (int, np.integer)) and isinstance(a.end, (int, np.integer))
                    if not (ints and 0 <= a.start <= a.end <= n):
                        gm_ok = False
    return ks, gm_ok


def _same_setup(k, template):
    """Record-only kernel ``k`` sees ``template``'s GM and its auto-sync setting (a fresh tracker)."""
    if hasattr(template, "share_gm"):  # GM in a store shared by a launch's cores (never written here)
        k.share_gm(template)
    else:
        k._gm, k._gm_meta = list(template._gm), list(template._gm_meta)
    auto = getattr(template, "_autosync", None)
    if auto is not None:
        k._autosync = type(auto)()


def _record_block(r, blk):
    """Record block ``blk``'s calls on replayer ``r``; returns its segments. A loop of equal keys
    runs record by record until an iteration leaves the bookkeeping as it found it (its
    fingerprint); that iteration is the loop body, and the later iterations' calls are its calls
    with the GM ranges moved by their offsets (the bookkeeping repeats: the same calls, flags and
    checks). Straight records run one by one."""
    evs, segs, pos = blk.events, [], 0
    for start, p, reps in _key_loops(blk.keys):
        if start > pos:
            r.run(evs[pos:start])
            segs.append(_Seg("straight", pos, start - pos, 1))
        t, body = 0, None
        while t < reps:
            a = start + t * p
            before = _fingerprint(r) if t else None
            mark = len(r.k.log.calls)
            per = []
            for j in range(p):
                n0 = len(r.k.log.calls)
                r.run([evs[a + j]])
                per.append((n0, len(r.k.log.calls)))
            t += 1
            left = reps - t + 1  # this iteration and the later ones
            if before is not None and left >= 2 and left * p >= MIN_ROLLED and _fingerprint(r) == before:
                body = (t - 1, mark, per)
                break
        if body is None or not _synthesise(r, blk, start, p, reps, body):
            r.run(evs[start + t * p : start + reps * p])
            segs.append(_Seg("straight", start, p * reps, 1))
        else:
            m = body[0]
            if m:
                segs.append(_Seg("straight", start, m * p, 1))
            segs.append(_Seg("loop", start + m * p, p, reps - m))
        pos = start + p * reps
    if pos < len(evs):
        r.run(evs[pos:])
        segs.append(_Seg("straight", pos, len(evs) - pos, 1))
    return _merge_straight(segs)


def _merge_straight(segs):
    out = []
    for s in segs:
        if out and s.kind == out[-1].kind == "straight":
            out[-1] = _Seg("straight", out[-1].start, out[-1].period + s.period, 1)
        else:
            out.append(s)
    return out


def _synthesise(r, blk, start, p, reps, body):
    """The calls of iterations ``m + 1 .. reps - 1`` from body iteration ``m``'s (GM ranges moved
    by each record's offset change); False when a record's GM tensors move by different amounts
    (then the caller records those iterations one by one)."""
    m, _mark, per = body
    k, offs, evs = r.k, blk.offs, blk.events
    a0 = start + m * p
    calls = k.log.calls
    reserved = {id(c) for c in k._reserved}
    deltas = []
    for t in range(m + 1, reps):
        a = start + t * p
        row = []
        for j in range(p):
            o, o0 = offs[a + j], offs[a0 + j]
            d = {x - y for x, y in zip(o, o0, strict=True)}
            if len(d) > 1:
                return False
            row.append(d.pop() if d else 0)
        deltas.append(row)
    for t, row in zip(range(m + 1, reps), deltas, strict=True):
        for j, (lo, hi) in enumerate(per):
            d = row[j]
            for c in calls[lo:hi]:
                acc = c.accesses
                if d and acc:
                    acc = tuple(
                        dataclasses.replace(x, start=x.start + d, end=x.end + d)
                        if isinstance(x.space, tuple) and x.space[0] == "GM"
                        else x
                        for x in acc
                    )
                nc = dataclasses.replace(c, index=len(calls), accesses=acc)
                calls.append(nc)
                if id(c) in reserved:
                    k._reserved.append(nc)
        for j in range(p):  # later records name the handles of the later iterations
            e, e0 = evs[start + t * p + j][1], evs[a0 + j][1]
            if e["op"] in _ALLOC_OPS and "h" in e and e0.get("h") in r.handles:
                r.handles[e["h"]] = r.handles[e0["h"]]
    return True


def _key_loops(keys):
    """Candidate loops of equal keys: [(start, period, reps)] (the first iteration included)."""
    out = []
    for s in _segments_of(keys, None):
        if s.kind == "loop":
            out.append((s.start - s.period, s.period, s.reps + 1))
    return out


# -- segments ------------------------------------------------------------------------------------
class _Seg:
    def __init__(self, kind, start, period, reps):
        self.kind, self.start, self.period, self.reps = kind, start, period, reps

    def sig(self):
        return (self.kind, self.start, self.period, self.reps)


def _find_loop(keys, fp, i, where):
    """The best loop starting at record ``i`` (or after its first, unsettled iterations):
    (start, period, reps) with every rolled boundary's fingerprint equal, or None. ``where``:
    each key's record indices (sorted)."""
    n = len(keys)
    best = None
    occ = where[keys[i]]
    j0 = bisect.bisect_right(occ, i)
    for q in occ[j0:]:
        p = q - i
        if p > min(MAX_PERIOD, (n - i) // 2):
            break
        if not np.array_equal(keys[i : i + p], keys[i + p : i + 2 * p]):
            continue
        diff = np.flatnonzero(keys[i + p :] != keys[i : n - p])
        run = int(diff[0] if diff.size else n - i - p) + p  # records in the repeating stretch
        reps = run // p
        # the first iteration runs straight; then skip iterations until the bookkeeping settles
        s = 1
        if fp is not None:
            while s < reps - 1 and fp[i + s * p] != fp[i + (s + 1) * p]:
                s += 1
            bounds = [fp[i + j * p] for j in range(s, reps + 1)]
            if len(bounds) < 3 or any(b != bounds[0] for b in bounds):
                continue
        elif reps < 3:
            continue
        rolled = (reps - s) * p
        if rolled >= MIN_ROLLED and (best is None or rolled > best[3]):
            best = (i + s * p, p, reps - s, rolled)
        if best is not None and run >= n - i - p:
            break
    return None if best is None else best[:3]


def _segments(blk):
    """Segments from keys and fingerprints (``blk.fp``: before each record and after the last)."""
    return _segments_of(blk.keys, blk.fp)


def _segments_of(keys, fp):
    segs, i, straight = [], 0, 0
    n = len(keys)
    where = {}
    for j, key in enumerate(keys.tolist()):
        where.setdefault(key, []).append(j)
    while i < n:
        found = _find_loop(keys, fp, i, where) if n - i >= 2 else None
        if found is None:
            i += 1
            continue
        start, p, reps = found
        if start > straight:
            segs.append(_Seg("straight", straight, start - straight, 1))
        segs.append(_Seg("loop", start, p, reps))
        i = straight = start + p * reps
    if straight < n:
        segs.append(_Seg("straight", straight, n - straight, 1))
    return segs


# -- the plan ------------------------------------------------------------------------------------
class Plan:
    """How a launch runs rolled: per block its segments; ``spmd`` when the cores are a loop."""

    def __init__(self, launch, per_block):
        self.launch = launch
        self.per_block = per_block
        self.blocks = None  # {block: _Block}, built at the first trace (``prepare``)
        self.ready = False
        self.segs = {}
        self.spmd = False
        self.rec = {}
        self.stash = None

    def prepare(self, k0, gm):
        """The record pass and the segmentation (at core 0, inside the trace); False: straight."""
        if self.blocks is None:
            interned = {}
            self.blocks = {b: _Block(ev, interned) for b, ev in self.per_block.items()}
        nb = self.launch.blocks
        same_keys = (
            nb > 1
            and len(self.blocks) == nb
            and all(np.array_equal(self.blocks[b].keys, self.blocks[0].keys) for b in range(nb))
        )
        if not same_keys and not any(_key_loops(blk.keys) for blk in self.blocks.values()):
            return False  # nothing repeats: the straight line, without a record pass
        self.rec, gm_ok = _record_pass(self.launch, self.blocks, k0, gm)
        if not gm_ok:
            return False
        for b, blk in self.blocks.items():
            self.segs[b] = blk.segs
        rolled = any(s.kind == "loop" for ss in self.segs.values() for s in ss)
        sigs = [[s.sig() for s in self.segs[b]] for b in range(nb)] if same_keys else []
        self.spmd = bool(same_keys and all(x == sigs[0] for x in sigs))
        return rolled or self.spmd

    # -- tables ---------------------------------------------------------------------------------
    def _tables(self, b):
        """Per segment of block ``b``: its slot values (straight: (slots,), loop: (reps, slots))."""
        blk, out = self.blocks[b], []
        for s in self.segs[b]:
            rows = []
            for t in range(s.reps):
                a = s.start + t * s.period
                rows.append([v for o in blk.offs[a : a + s.period] for v in o])
            arr = np.asarray(rows, np.int32).reshape(s.reps, -1)
            out.append(arr[0] if s.kind == "straight" else arr)
        return out

    def _template(self, b, s):
        evs = self.blocks[b].events[s.start : s.start + s.period]
        counter = [0]
        return [(i, _slotted(e, counter)) for i, e in evs]

    # -- running ----------------------------------------------------------------------------------
    def _run_block(self, r, b, tables, traced):
        """Block ``b``'s program on replayer ``r``: straight segments (concrete offsets unless
        ``traced``), loops as scans over their tables."""
        blk = self.blocks[b]
        for s, tab in zip(self.segs[b], tables, strict=True):
            if s.kind == "straight":
                if traced:
                    r.slots = tab
                    r.run(self._template(b, s))
                else:
                    r.slots = None
                    r.run(blk.events[s.start : s.start + s.period])
                continue
            self._loop(r, b, s, tab)
        r.slots = None

    def _loop(self, r, b, s, tab):
        k = r.k
        templ = self._template(b, s)
        saved = (k.state, list(k._gm))

        def body(carry, row):
            k.state, gm = carry
            k._gm = list(gm)
            r.slots = row
            r.run(templ)
            return (k.state, tuple(k._gm)), None

        try:
            (st, gm), _ = lax.scan(body, (saved[0], tuple(saved[1])), tab)
        except TypeError:  # the carry changed its shape or type: these iterations run straight
            k.state, k._gm, r.slots = saved[0], saved[1], None
            r.run(self.blocks[b].events[s.start : s.start + s.period * s.reps])
            return
        k.state, k._gm = st, list(gm)
        self._map_handles(r, b, s)

    def _map_handles(self, r, b, s):
        """Later records name the handles of the loop's later iterations: the template's."""
        evs = self.blocks[b].events
        for t in range(1, s.reps):
            for j in range(s.period):
                e, e0 = evs[s.start + t * s.period + j][1], evs[s.start + j][1]
                if e["op"] in _ALLOC_OPS and "h" in e and e0.get("h") in r.handles:
                    r.handles[e["h"]] = r.handles[e0["h"]]

    def run(self, k, gm):
        """``fn(k, *gm)`` of the rolled launch (called per core by ``_launch``, core 0 first)."""
        b = int(k.GetBlockIdx())
        if b == 0:
            self.stash = None
        if self.spmd:
            if b == 0:
                self._run_cores(k, gm)
            else:
                k.state = self.stash[b]
        elif b in self.blocks:
            r = T.Replayer(k, self.launch, gm)
            self._run_block(r, b, self._tables(b), traced=False)
        self._adopt(k, b)

    def _run_cores(self, k, gm):
        nb = self.launch.blocks
        tables = [self._tables(b) for b in range(nb)]
        stacked = [np.stack([tables[b][j] for b in range(nb)]) for j in range(len(tables[0]))]
        init = k.state
        shell = dict(vars(k))

        def body(gm_carry, tabs):
            kk = Kernel.__new__(Kernel)
            kk.__dict__.update(shell)
            if "_gm_store" in shell:  # this core's own GM store (the scan's carry)
                kk._gm_store = copy.copy(shell["_gm_store"])
            if shell.get("_autosync") is not None:
                kk._autosync = type(shell["_autosync"])()
            kk.log = aj.hazards.CallLog(0)
            kk.warnings, kk._reserved = [], []
            kk.state, kk._gm = init, list(gm_carry)
            r = T.Replayer(kk, self.launch, gm)
            self._run_block(r, 0, list(tabs), traced=True)
            body.warnings = kk.warnings
            st = kk.state
            return tuple(kk._gm), (st.fault, st.warn, st.warn_at)

        # CHOICE: each core's fault and warning words are kept, not its final UB and registers (the
        # C++ front end reads the words only; the cores' stacked UBs cost a copy per core and case)
        gm_out, words = lax.scan(body, tuple(k._gm), stacked)
        k._gm = list(gm_out)
        self.stash = [
            init.replace(fault=words[0][c], warn=_pick(words[1], c), warn_at=_pick(words[2], c))
            for c in range(nb)
        ]
        k.state = self.stash[0]
        for w in getattr(body, "warnings", ()):
            if w not in k.warnings:
                k.warnings.append(w)

    def _adopt(self, k, b):
        """The core's call log and kernel-end bookkeeping are the record pass's (every call)."""
        rec = self.rec.get(b)
        if rec is None:
            return
        k.log = rec.log
        k._reserved = rec._reserved
        k._has_queues = rec._has_queues
        if hasattr(rec, "_queues"):
            k._queues = rec._queues


def _pick(x, c):
    return None if x is None else x[c]


def kernel_fn(launch):
    """``trace.kernel_fn(launch)`` run rolled when the launch's structure repeats (else straight)."""
    straight = T.kernel_fn(launch)
    per_block = {}
    for i, e in enumerate(launch.events):
        if e["op"] != "block":
            per_block.setdefault(e["b"], []).append((i, e))
    plan = Plan(launch, per_block)
    state = {"mode": None}

    syncall = any(e.get("api") == "SyncAll" for ev in per_block.values() for _, e in ev)

    def fn(k, *gm):
        b = int(k.GetBlockIdx())
        if k._defer is not None:  # the adversarial schedule's replay: call by call
            return straight(k, *gm)
        if b == 0:
            eager = not isinstance(k.state.ub, jax.core.Tracer)
            if eager or syncall or not enabled():
                state["mode"] = "straight"
            else:
                state["mode"] = "rolled" if plan.prepare(k, gm) else "straight"
        if state["mode"] == "rolled":
            return plan.run(k, gm)
        return straight(k, *gm)

    fn.plan = plan
    fn.mode = state
    fn.__name__ = straight.__name__
    return fn
