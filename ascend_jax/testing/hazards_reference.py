"""The race scan of ``ascend_jax.hazards`` as it was written first: every pair of accesses of one
memory space compared (quadratic in the accesses of a space). Kept as the reference the indexed
scan (``hazards.races`` / ``hazards.dynamic_races``) is property-tested against
(tests/test_hazards_index.py): the same findings, in the same order, on every log.
"""

import numpy as np

from ..hazards import _RANK, Finding, _access_table, _fix, _hazard


def _unordered(ci, cj, orders):
    if ci.core == cj.core:
        first, second = (ci, cj) if ci.index < cj.index else (cj, ci)
        return not (orders[first.core].before[second.index] >> first.index) & 1, first, second
    if orders[ci.core].epoch[ci.index] != orders[cj.core].epoch[cj.index]:
        return False, ci, cj
    return True, *((ci, cj) if ci.core < cj.core else (cj, ci))


def dynamic_races_reference(logs, orders):
    """The unordered pairs of conflicting calls where an address is traced (a sweep over
    addresses): each ``(Finding, overlap)`` with ``overlap`` a traced bool -- the pair's bytes
    overlap in this case. The caller ORs them into a per-case flag."""
    dyn = _access_table(logs, traced=True)
    if not dyn:
        return []
    static = _access_table(logs)
    out = []
    for n, (ci, ai) in enumerate(dyn):
        for cj, aj_ in static + dyn[n + 1 :]:
            if (ci.core, ci.index) == (cj.core, cj.index) or not (ai.write or aj_.write):
                continue
            if ai.space != aj_.space or (ai.space == "UB" and ci.core != cj.core):
                continue
            if ai.atomic and ai.atomic == aj_.atomic:
                continue
            un, first, second = _unordered(ci, cj, orders)
            if not un:
                continue
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


def races_reference(logs, orders):
    """racecheck: conflicting accesses (overlapping bytes, one a write) with no happens-before
    between them -- within a core (any two pipes, or one unordered pipe) and across cores on GM
    (npucheck's GM overlap check; msSanitizer's multi-core stomp). Atomic writes of one kind do not
    conflict with each other; a float atomic add by more than one unordered call is a warning (the
    order changes the bits, 原子操作/关键特性说明.md)."""
    rows = _access_table(logs)
    findings = []
    if not rows:
        return findings
    spaces = {}
    for r in rows:
        c, a = r
        key = ("UB", c.core) if a.space == "UB" else a.space
        spaces.setdefault(key, []).append(r)
    seen = {}
    for key, rs in spaces.items():
        starts = np.array([a.start for _, a in rs], np.int64)
        ends = np.array([a.end for _, a in rs], np.int64)
        writes = np.array([a.write for _, a in rs], bool)
        idx = np.array([(c.core, c.index) for c, _ in rs], np.int64)
        for j in range(len(rs)):
            cj, aj_ = rs[j]
            lo = np.arange(j)
            ov = (starts[:j] < ends[j]) & (ends[:j] > starts[j]) & (writes[:j] | writes[j])
            for i in lo[ov]:
                ci, ai = rs[int(i)]
                if ci.core == cj.core and ci.index == cj.index:
                    continue
                if ci.core == cj.core:
                    first, second = (ci, cj) if ci.index < cj.index else (cj, ci)
                    if (orders[first.core].before[second.index] >> first.index) & 1:
                        continue
                else:
                    oi, oj = orders[ci.core], orders[cj.core]
                    if oi.epoch[ci.index] != oj.epoch[cj.index]:
                        continue
                    first, second = (ci, cj) if idx[int(i)][0] < idx[j][0] else (cj, ci)
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
    findings.extend(_cache_lines_reference(rows, orders))
    return findings


def _cache_lines_reference(rows, orders, line=64):
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
        if orders[c0.core].epoch[c0.index] != orders[c1.core].epoch[c1.index]:
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
