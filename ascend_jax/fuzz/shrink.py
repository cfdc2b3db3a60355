"""Shrinking a failing case to a local minimum: repeatedly take the first of the family's simpler
candidates (fewer repeats, smaller counts, simpler masks, default strides, Normal mode, simpler
values) that still fails, until none does. Candidates are evaluated in one batched run per step."""

from . import compare as CMP
from . import runner as RUN


def evaluate(fam, cases, p, batch, oracle=None):
    """[Difference | None | Exception] per case (fast path vs reference)."""
    out = [None] * len(cases)
    refs = {}
    for k, c in enumerate(cases):
        try:
            refs[k] = RUN.run_reference(fam, c, p, oracle)
        except Exception as e:  # noqa: BLE001  (an invalid candidate: not failing the same way)
            out[k] = e
    valid = sorted(refs)
    for _, idx in RUN.chunks(fam, [cases[k] for k in valid], p, batch):
        ks = [valid[j] for j in idx]
        try:
            res = RUN.run_fast_chunk(fam, [cases[k] for k in ks], p, batch)
        except Exception as e:  # noqa: BLE001
            for k in ks:
                out[k] = e
            continue
        for k, (st, ret) in zip(ks, res, strict=True):
            out[k] = CMP.compare(st, refs[k][0], ret, refs[k][1])
    return out


def shrink_case(fam, case, p, batch=256, oracle=None, max_steps=64):
    """(smallest failing case found, steps taken)."""
    cur, steps = case, 0
    seen = {repr(case)}
    while steps < max_steps:
        cands = []
        for c in fam.shrink(cur, p):
            r = repr(c)
            if r not in seen:
                seen.add(r)
                cands.append(c)
        if not cands:
            break
        res = evaluate(fam, cands, p, batch, oracle)
        nxt = next((c for c, r in zip(cands, res, strict=True) if isinstance(r, CMP.Difference)), None)
        if nxt is None:
            break
        cur, steps = nxt, steps + 1
    return cur, steps
