"""The call log of a launch and what follows from it: happens-before, races, sync errors, the
multi-core GM checks and the adversarial schedule (docs/MODEL.md "Cores, pipes and sync").

Every kernel call -- an API, a flag, a barrier, a queue operation -- is one ``Call`` in its core's
log: its pipe, the byte ranges it reads and writes (``Access``, static addresses only), the sync
event it sets or waits for, and the source line that made it. This module knows no API names: the
kernel layer builds the log (``ascend_jax.kernel``), this module orders it.

Happens-before (one place, ``order``):
* S and V run their calls in order (S: the hardware; V: the compiler's V->V barrier on 2201, the
  hardware on 3510 -- 核内同步/关键特性说明.md); MTE2 and MTE3 start in order but may finish out of
  order, so two calls there are ordered only by a ``PipeBarrier`` (PipeBarrier(ISASI).md: "多个
  DataCopy的目的地址有重叠时 ... 需要插入PipeBarrier").
* ``SetFlag<SRC_DST>(id)`` runs after every earlier SRC call; the ``WaitFlag`` it releases holds
  every later DST call (SetFlag-WaitFlag(ISASI).md). A flag is binary: the k-th wait is released by
  the latest unconsumed set issued before it.
* ``PipeBarrier<p>`` orders every earlier p call before every later one; ``PIPE_ALL`` all pipes.
* The queue operations are flags of their own (TPipe-TQue框架编程原理.md): ``EnQue`` a set on the
  producer pipe, ``DeQue`` the wait on the consumer pipe, ``FreeTensor`` a set on the consumer pipe,
  the next ``AllocTensor`` of that buffer the wait on the producer pipe.
* Across cores only ``SyncAll`` orders (and a host boundary between launches); GM is shared.

Every check asks the relation one way, ``ordered(a, b)`` (``_unordered_mask``: the same rule over a
bitset of calls). The races come from an index over address ranges (``_conflicts``): only pairs of
calls whose bytes overlap and that ``ordered`` leaves unordered are visited, so a launch of 10^5
calls is checked in seconds (benchmarks/README.md, ``hazards_seconds_100k_calls``).
"""

import dataclasses
import heapq
from typing import NamedTuple

import numpy as np

from .sync import HardEvent, pipe_t

# SPEC: ordered pipes -- the hardware keeps scalar order; V -> V is inserted by the compiler on
# 2201 and kept by the hardware on 3510 (核内同步/关键特性说明.md). MTE2/MTE3 need PipeBarrier.
ORDERED_PIPES = frozenset((pipe_t.PIPE_S, pipe_t.PIPE_V))


@dataclasses.dataclass(frozen=True)
class Access:
    """Bytes ``[start, end)`` of one memory space read or written by a call. ``space``: ``"UB"``
    (the core's own) or ``("GM", buffer)`` (shared by every core). ``atomic``: a DMA atomic write
    (``SetAtomicAdd`` & co.: "add"/"max"/"min"), ``scalar``: a scalar (DCache) GM write."""

    space: object
    start: int
    end: int
    write: bool
    atomic: str = ""
    dtype: str = ""
    scalar: bool = False


@dataclasses.dataclass
class Call:
    """One entry of a core's call log (program order = ``index``)."""

    index: int
    core: int
    api: str
    pipe: object  # pipe_t; PIPE_ALL for a barrier over all pipes
    kind: str = "op"  # "op" | "set" | "wait" | "barrier" | "syncall" | "host"
    event: object = None  # (HardEvent or ("que", ...), id) for set/wait
    accesses: tuple = ()
    source: str = ""
    note: str = ""
    value: bool = False  # the call returned a value to the kernel (a scalar read, rsvdCnt, ...)

    def label(self):
        at = f" at {self.source}" if self.source else ""
        return f"core {self.core} #{self.index} {self.api} ({_pipe_name(self.pipe)}){at}"


def _pipe_name(p):
    return p.name if isinstance(p, pipe_t) else str(p)


class Finding(NamedTuple):
    """A check's result, named as the vendor's tools name it. ``tool``: racecheck / synccheck /
    memcheck; ``kind``: RAW, WAR, WAW, multi-core stomp, cache line, atomic order, unpaired set_flag,
    redundant set_flag, hang, wait before set, reserved event ID, ...; ``calls``: the calls involved
    (``Call``); ``space``/``span``: the bytes; ``fix``: the sync that would order them."""

    tool: str
    kind: str
    severity: str  # "error" | "warning"
    calls: tuple
    space: object = None
    span: tuple = None
    fix: str = ""
    detail: str = ""

    def __str__(self):
        where = ""
        if self.space is not None and self.span is not None:
            sp = "UB" if self.space == "UB" else f"GM buffer {self.space[1]}"
            where = f" on {sp} bytes [{self.span[0]}, {self.span[1]})"
        calls = "; ".join(c.label() for c in self.calls)
        fix = f"; ordered by: {self.fix}" if self.fix else ""
        det = f"; {self.detail}" if self.detail else ""
        return f"{self.tool}: {self.severity}: {self.kind}{where}: {calls}{fix}{det}"


class CallLog:
    """One core's calls in program order."""

    def __init__(self, core=0):
        self.core = core
        self.calls = []

    def add(self, api, pipe, kind="op", event=None, accesses=(), source="", note=""):
        c = Call(len(self.calls), self.core, api, pipe, kind, event, tuple(accesses), source, note)
        self.calls.append(c)
        return c

    def __len__(self):
        return len(self.calls)


class Order(NamedTuple):
    """Happens-before of one core's log: ``before[i]`` is the bitset (a Python int) of the calls
    that happen before call ``i``; ``epoch[i]`` the number of ``SyncAll`` before it."""

    before: list
    epoch: list
    findings: list
    pairs: list = []  # (set index, wait index) of every released WaitFlag (queue flags included)


def order(log, profile=None):
    """Happens-before of ``log`` and the sync findings (synccheck) it implies."""
    calls = log.calls
    n = len(calls)
    before = [0] * n
    epoch = [0] * n
    gate = {}  # pipe -> calls every later call of the pipe waits for
    done = {}  # pipe -> calls on the pipe so far (and what they waited for)
    last = {}  # ordered pipe -> its last call
    pending = {}  # event key -> [set call index, consumed?]
    waiting = {}  # event key -> wait call indices not released by an earlier set
    findings = []
    pairs = []
    ep = 0
    everything = 0
    for c in calls:
        i, p = c.index, c.pipe
        bit = 1 << i
        if c.kind in ("barrier", "syncall", "host") and p == pipe_t.PIPE_ALL:
            b = everything
            before[i] = b
            for q in pipe_t:
                gate[q] = gate.get(q, 0) | b | bit
            if c.kind == "syncall":
                ep += 1
            epoch[i] = ep
            everything |= bit
            continue
        if c.kind == "barrier":
            b = gate.get(p, 0) | done.get(p, 0)
            before[i] = b
            gate[p] = b | bit
            done[p] = done.get(p, 0) | bit
            epoch[i] = ep
            everything |= bit
            continue
        b = gate.get(p, 0)
        if p in ORDERED_PIPES and p in last:
            j = last[p]
            b |= before[j] | (1 << j)
        if c.kind == "set":
            b |= done.get(p, 0)
            key = c.event
            prev = pending.get(key)
            if prev is not None and not prev[1]:
                # SPEC: "连续调用两次同一pipe和id的SetFlag ... 属于未定义行为" (SetFlag-WaitFlag(ISASI).md)
                findings.append(
                    Finding(
                        "synccheck",
                        "redundant set_flag",
                        "warning",
                        (calls[prev[0]], c),
                        fix=f"a WaitFlag<{_event_name(key)}> between the two SetFlags",
                        detail="the same event and ID set twice with no WaitFlag between (undefined)",
                    )
                )
            else:
                pending[key] = [i, False]
            ws = waiting.get(key)
            if ws:  # a wait issued earlier in program order; released here (no ordering edge)
                w = ws.pop(0)
                pending[key][1] = True
                findings.append(
                    Finding(
                        "synccheck",
                        "wait before set",
                        "warning",
                        (calls[w], c),
                        detail="the WaitFlag was issued before any SetFlag of its event; its pipe "
                        "stalls until this later SetFlag (the model orders nothing by this pair)",
                    )
                )
        elif c.kind == "wait":
            key = c.event
            prev = pending.get(key)
            if prev is not None and not prev[1]:
                prev[1] = True
                s = prev[0]
                b |= before[s] | (1 << s)
                pairs.append((s, i))
            else:
                waiting.setdefault(key, []).append(i)
            gate[p] = gate.get(p, 0) | b | bit
        before[i] = b
        epoch[i] = ep
        done[p] = done.get(p, 0) | b | bit
        if p in ORDERED_PIPES:
            last[p] = i
        everything |= bit
    for key, (s, used) in pending.items():
        if not used and not (isinstance(key[0], tuple) and key[0][0] == "que"):
            ev = key[0]
            findings.append(
                Finding(
                    "synccheck",
                    "unpaired set_flag",
                    "warning",
                    (calls[s],),
                    fix=f"a WaitFlag<{_event_name(key)}>({key[1]})",
                    detail=f"from {_pipe_name(ev.src)} to {_pipe_name(ev.dst)}: the flag stays set "
                    "for the next kernel (NPU架构版本2201.md)",
                )
            )
    for key, ws in waiting.items():
        for w in ws:
            findings.append(
                Finding(
                    "synccheck",
                    "hang",
                    "error",
                    (calls[w],),
                    fix=f"a SetFlag<{_event_name(key)}>({key[1]}) before it",
                    detail="kernel locked up: no SetFlag releases this WaitFlag",
                )
            )
    return Order(before, epoch, findings, pairs)


def _event_name(key):
    ev = key[0]
    if isinstance(ev, HardEvent):
        return ev.name
    return str(ev)


_RANK = {"RAW": 0, "WAR": 1, "WAW": 2}


def _hazard(w0, w1):
    return "WAW" if w0 and w1 else "RAW" if w0 else "WAR"


def _fix(a, b):
    """The sync that would order call ``a`` before call ``b`` (same core)."""
    if a.pipe == b.pipe:
        return f"PipeBarrier<{_pipe_name(a.pipe)}>"
    name = f"{_pipe_name(a.pipe)[5:]}_{_pipe_name(b.pipe)[5:]}"
    if name in HardEvent.__members__:
        return f"SetFlag/WaitFlag<HardEvent::{name}>"
    return "PipeBarrier<PIPE_ALL>"


def _static(a):
    return isinstance(a.start, int) and isinstance(a.end, int)


def _access_table(logs, traced=False):
    """(call, access) rows with static byte ranges (``traced``: those with a traced start)."""
    rows = []
    for log in logs:
        for c in log.calls:
            for a in c.accesses:
                if a.start is None:
                    continue
                if _static(a) != traced and (traced or a.end > a.start):
                    rows.append((c, a))
    return rows


def ordered(a, b, orders):
    """Whether happens-before orders calls ``a`` and ``b`` of one launch, either way (``orders``: each
    core's ``Order``). On one core: the earlier call is in the later one's ``before``. Across cores:
    only ``SyncAll`` (and a host boundary) orders, so two calls are ordered when their epochs differ.
    ``_unordered_mask`` is the same rule over a set of earlier calls at once."""
    if a.core == b.core:
        first, second = (a, b) if a.index < b.index else (b, a)
        return bool((orders[a.core].before[second.index] >> first.index) & 1)
    return orders[a.core].epoch[a.index] != orders[b.core].epoch[b.index]


def _unordered_mask(orders, c, mask):
    """The calls of bitset ``mask`` (earlier calls of ``c``'s core, by index) that ``ordered`` does
    not order with ``c``."""
    return mask & ~orders[c.core].before[c.index]


def _pair(a, b):
    """The pair in report order: on one core program order, across cores core order."""
    if a.core == b.core:
        return (a, b) if a.index < b.index else (b, a)
    return (a, b) if a.core < b.core else (b, a)


def _space_key(c, a):
    """The memory a row's bytes are in: a core's own UB, or one GM buffer (shared by every core)."""
    return ("UB", c.core) if a.space == "UB" else a.space


def dynamic_races(logs, orders):
    """The unordered pairs of conflicting calls where an address is traced (its bytes known per
    case only): each ``(Finding, overlap)`` with ``overlap`` a traced bool -- the pair's bytes
    overlap in this case. The caller ORs them into a per-case flag. A traced row is paired with the
    static rows, then the later traced rows, of its memory (``_space_key``)."""
    dyn = _access_table(logs, traced=True)
    if not dyn:
        return []
    static, later = {}, {}
    for r in _access_table(logs):
        static.setdefault(_space_key(*r), []).append(r)
    for n, r in enumerate(dyn):
        later.setdefault(_space_key(*r), []).append((n, r))
    out = []
    for n, (ci, ai) in enumerate(dyn):
        key = _space_key(ci, ai)
        rest = [r for m, r in later[key] if m > n]
        for cj, aj_ in static.get(key, []) + rest:
            if (ci.core, ci.index) == (cj.core, cj.index) or not (ai.write or aj_.write):
                continue
            if ai.atomic and ai.atomic == aj_.atomic:
                continue
            if ordered(ci, cj, orders):
                continue
            first, second = _pair(ci, cj)
            wf, ws = (ai.write, aj_.write) if first is ci else (aj_.write, ai.write)
            kind = _hazard(wf, ws) + ("" if first.core == second.core else " across cores")
            f = Finding(
                "racecheck",
                kind,
                "error",
                (first, second),
                ai.space if ai.space != "UB" else "UB",
                None,
                _fix(first, second) if first.core == second.core else "SyncAll or disjoint GM ranges",
                "traced address: reported per case (KernelResult.race_cases)",
            )
            out.append((f, (ai.start < aj_.end) & (aj_.start < ai.end)))
    return out


def _set_bits(mask):
    """The numbers of the set bits of ``mask`` (a non-negative Python int), ascending."""
    s = bin(mask)[:1:-1]
    i = s.find("1")
    while i >= 0:
        yield i
        i = s.find("1", i + 1)


def _sweep(rs, ns, bit_of, keep):
    """The row pairs ``(j, i)`` of ``rs`` (``ns``: row numbers in program order, a call's rows
    together) where row ``i`` of an earlier call and row ``j`` overlap and one writes, and
    ``keep(call, mask)`` keeps row i's call (``mask``: a bitset of earlier calls, numbered by
    ``bit_of``). The address range is cut at every row's ends; each piece holds the bitset of the
    calls that touched it and of those that wrote it, so a row finds its overlapping earlier calls
    by ORing the pieces it covers -- no pair of rows is visited unless ``keep`` keeps it."""
    cuts = sorted({rs[n][1].start for n in ns} | {rs[n][1].end for n in ns})
    at = {x: k for k, x in enumerate(cuts)}
    touched = [0] * len(cuts)
    written = [0] * len(cuts)
    rows_of = {}
    out = []
    k = 0
    while k < len(ns):
        c = rs[ns[k]][0]
        group = []
        while k < len(ns) and rs[ns[k]][0] is c:
            group.append(ns[k])
            k += 1
        mask = 0
        pieces = []
        for n in group:
            a = rs[n][1]
            lo, hi = at[a.start], at[a.end]
            pieces.append((lo, hi, a.write))
            seen = touched if a.write else written
            for p in range(lo, hi):
                mask |= seen[p]
        if mask:
            mask = keep(c, mask)
        if mask:
            for b in _set_bits(mask):
                for i in rows_of[b]:
                    ai = rs[i][1]
                    for j in group:
                        aj_ = rs[j][1]
                        if (ai.write or aj_.write) and ai.start < aj_.end and aj_.start < ai.end:
                            out.append((j, i))
        bit = 1 << bit_of(c)
        for lo, hi, w in pieces:
            for p in range(lo, hi):
                touched[p] |= bit
                if w:
                    written[p] |= bit
        rows_of[bit_of(c)] = group
    return out


def _shared(rs, ns):
    """Whether some core writes bytes another core of rows ``ns`` touches (a sweep over the
    rows' ends counting, per piece of the address range, the cores that touch it and those that
    write it)."""
    per_core = {}
    for n in ns:
        c, a = rs[n]
        per_core.setdefault(c.core, []).append(a)
    events = []
    for accs in per_core.values():
        for w in (False, True):
            merged = []
            for s, e in sorted((a.start, a.end) for a in accs if a.write or not w):
                if merged and s <= merged[-1][1]:  # the core's bytes as disjoint ranges: one count
                    merged[-1][1] = max(merged[-1][1], e)
                else:
                    merged.append([s, e])
            for s, e in merged:
                events += [(s, w, 1), (e, w, -1)]
    events.sort(key=lambda ev: ev[0])
    count = {False: 0, True: 0}
    k = 0
    while k < len(events):
        x = events[k][0]
        while k < len(events) and events[k][0] == x:
            count[events[k][1]] += events[k][2]
            k += 1
        if count[True] and count[False] >= 2:
            return True
    return False


def _conflicts(rs, orders):
    """The row pairs ``(j, i)`` (``i < j``, sorted) of one memory's rows ``rs`` -- rows in core
    order, then program order -- whose bytes overlap, one of them written, by two calls that
    happens-before does not order (``ordered``)."""
    by_core, by_epoch = {}, {}
    for n, (c, _) in enumerate(rs):
        by_core.setdefault(c.core, []).append(n)
        by_epoch.setdefault(orders[c.core].epoch[c.index], []).append(n)
    out = []
    for ns in by_core.values():  # one core: the calls not before the later one
        if any(rs[n][1].write for n in ns):
            out += _sweep(rs, ns, lambda c: c.index, lambda c, m: _unordered_mask(orders, c, m))
    if len(by_core) > 1:  # across cores: every pair of one epoch (ordered's rule)
        for ns in by_epoch.values():
            if len({rs[n][0].core for n in ns}) < 2 or not _shared(rs, ns):
                continue
            number = {}  # (core, index) -> the call's bit in this epoch's sweep
            for n in ns:
                c = rs[n][0]
                number.setdefault((c.core, c.index), len(number))
            mine = {}  # core -> the bitset of its calls
            for core in {c for c, _ in number}:
                bits = ["0"] * len(number)
                for (cc, _), b in number.items():
                    if cc == core:
                        bits[b] = "1"
                mine[core] = int("".join(reversed(bits)), 2)

            def bit_of(c, number=number):
                return number[(c.core, c.index)]

            def keep(c, mask, mine=mine):
                return mask & ~mine[c.core]

            out += _sweep(rs, ns, bit_of, keep)
    out.sort()
    return out


def races(logs, orders):
    """racecheck: conflicting accesses (overlapping bytes, one a write) with no happens-before
    between them -- within a core (any two pipes, or one unordered pipe) and across cores on GM
    (npucheck's GM overlap check; msSanitizer's multi-core stomp). Atomic writes of one kind do not
    conflict with each other; a float atomic add by more than one unordered call is a warning (the
    order changes the bits, 原子操作/关键特性说明.md). The pairs come from an index over address
    ranges (``_conflicts``), in the order of the rows of each memory: a pair of calls is reported
    once, by its most telling hazard (RAW, then WAR, then WAW)."""
    rows = _access_table(logs)
    findings = []
    if not rows:
        return findings
    spaces = {}
    for r in rows:
        spaces.setdefault(_space_key(*r), []).append(r)
    seen = {}
    for key, rs in spaces.items():
        for j, i in _conflicts(rs, orders):
            ci, ai = rs[i]
            cj, aj_ = rs[j]
            first, second = _pair(ci, cj)
            span = (max(ai.start, aj_.start), min(ai.end, aj_.end))
            pair = (first.core, first.index, second.core, second.index)
            if ai.atomic and aj_.atomic and ai.atomic == aj_.atomic:
                if ai.dtype in ("float32", "half", "bfloat16") and ai.atomic == "add":
                    k = ("atomic",) + pair
                    if k not in seen:
                        seen[k] = None
                        findings.append(
                            Finding(
                                "racecheck",
                                "atomic order",
                                "warning",
                                (first, second),
                                key if key[0] == "GM" else "UB",
                                span,
                                "a sync between the atomic copies (or IBSet/IBWait across cores)",
                                f"unordered {ai.dtype} atomic adds: their order can change the "
                                "sum's bits; the model adds in core order, then program order",
                            )
                        )
                continue
            wf, ws = (ai.write, aj_.write) if first is ci else (aj_.write, ai.write)
            rank = _RANK[_hazard(wf, ws)]
            if pair in seen:
                k = seen[pair]
                if rank >= k[0]:
                    continue
                findings[k[1]] = None  # a more telling hazard of the same pair replaces it
            seen[pair] = (rank, len(findings))
            space = "UB" if key[0] == "UB" else key
            if first.core != second.core:
                scalar = ai.scalar and aj_.scalar
                kind = "multi-core stomp" if wf and ws else _hazard(wf, ws) + " across cores"
                findings.append(
                    Finding(
                        "memcheck" if wf and ws else "racecheck",
                        kind,
                        "error",
                        (first, second),
                        space,
                        span,
                        "disjoint GM ranges per core, SyncAll, or atomic add",
                        "both scalar writes" if scalar else "",
                    )
                )
            else:
                findings.append(
                    Finding(
                        "racecheck",
                        _hazard(wf, ws),
                        "error",
                        (first, second),
                        space,
                        span,
                        _fix(first, second),
                    )
                )
    findings = [f for f in findings if f is not None]
    findings.extend(_cache_lines(rows, orders))
    return findings


def _cache_lines(rows, orders, line=64):
    """Scalar GM writes of different cores to different bytes of one 64-byte line (缓存一致性.md:
    the DCache writes whole lines back, so one core's write-back can undo the other's)."""
    out = []
    by_line = {}
    for c, a in rows:
        if a.scalar and a.write and a.space != "UB":
            for ln in range(a.start // line, (a.end - 1) // line + 1):
                by_line.setdefault((a.space, ln), []).append((c, a))
    for (space, ln), rs in by_line.items():
        cores = {}
        for c, a in rs:
            cores.setdefault(c.core, (c, a))
        if len(cores) < 2:
            continue
        (c0, a0), (c1, a1) = [cores[k] for k in sorted(cores)[:2]]
        if ordered(c0, c1, orders):
            continue
        if a0.start < a1.end and a1.start < a0.end:
            continue  # the same bytes: reported as multi-core stomp
        out.append(
            Finding(
                "memcheck",
                "cache line",
                "warning",
                (c0, c1),
                space,
                (ln * line, ln * line + line),
                "at least a cache line (64 B) between the cores' scalar writes, or DataCacheCleanAndInvalid",
                "scalar GM writes of different cores share one 64-byte DCache line",
            )
        )
    return out


def check(logs, profile=None):
    """Every finding of a launch's logs (one per core): synccheck, racecheck, memcheck."""
    orders = [order(log, profile) for log in logs]
    findings = []
    for o in orders:
        findings.extend(o.findings)
    findings.extend(races(logs, orders))
    return orders, findings


def adversarial(log, before, seed=None):
    """A legal execution order of ``log`` (a topological order of happens-before) that runs every
    call as late as the relation allows relative to later-issued calls: among the calls whose
    predecessors have all run, the one issued last runs first. An unordered pair therefore runs
    in the order opposite to program order -- the order that exposes a missing sync.

    ``seed`` (an int): instead, among the ready calls one drawn at random (a seeded legal order)."""
    rng = None if seed is None else np.random.default_rng(seed)
    n = len(log.calls)
    indeg = [bin(before[i]).count("1") for i in range(n)]
    succ = [[] for _ in range(n)]
    for i in range(n):
        b = before[i]
        while b:
            low = b & -b
            succ[low.bit_length() - 1].append(i)
            b ^= low
    heap = [-i for i in range(n) if indeg[i] == 0]
    heapq.heapify(heap)
    out = []
    while heap:
        if rng is None:
            i = -heapq.heappop(heap)
        else:
            k = int(rng.integers(len(heap)))
            heap[k], heap[-1] = heap[-1], heap[k]
            i = -heap.pop()
            heapq.heapify(heap)
        out.append(i)
        for j in succ[i]:
            indeg[j] -= 1
            if indeg[j] == 0:
                heapq.heappush(heap, -j)
    return out
