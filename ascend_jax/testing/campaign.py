"""A differential campaign: random cases of every modelled scalar-arithmetic API on one profile,
fast path (batched) vs the NumPy reference, with a summary table. What ``make demo`` runs."""

import dataclasses
import time

import numpy as np

from ..errors import describe_faults
from ..profile import as_profile
from .cases import UNARY_SCALAR, compare_states, random_case, run_fast_batch, run_reference


@dataclasses.dataclass
class CampaignResult:
    profile: str
    cases: int
    mismatches: int
    fast_seconds: float
    reference_seconds: float
    per_api: dict  # (api, dtype) -> [cases, faulted, mismatches]
    failures: list  # (call repr, message), at most 20

    def summary(self):
        lines = [
            f"ascend_jax differential campaign on {self.profile}: {self.cases} cases, "
            f"{self.mismatches} mismatches (fast path vs NumPy reference, whole UB + registers + faults)",
            f"fast path {self.fast_seconds:.1f} s ({self.cases / max(self.fast_seconds, 1e-9):,.0f} cases/s incl. "
            f"compilation), reference {self.reference_seconds:.1f} s",
            "",
            f"{'API':6} {'dtype':9} {'cases':>6} {'faulted':>8} {'mismatch':>9}",
        ]
        for (api, dt), (n, f, m) in sorted(self.per_api.items()):
            lines.append(f"{api:6} {dt:9} {n:6d} {f:8d} {m:9d}")
        for call, msg in self.failures:
            lines.append(f"MISMATCH {call}: {msg}")
        return "\n".join(lines)


def run_campaign(profile=None, cases=4000, seed=0, batch=512):
    p = as_profile(profile)
    apis = [a for a in UNARY_SCALAR if p.api(a).supported]
    if not apis:
        raise ValueError(f"profile {p.name} supports none of {', '.join(UNARY_SCALAR)}")
    rng = np.random.default_rng(seed)
    all_cases = [random_case(rng, p) for _ in range(cases)]
    per, failures, mism = {}, [], 0
    t_fast = t_ref = 0.0
    for i in range(0, len(all_cases), batch):
        chunk = all_cases[i : i + batch]
        t0 = time.perf_counter()
        fast = run_fast_batch(chunk, p)
        t1 = time.perf_counter()
        for c, f in zip(chunk, fast, strict=True):
            r = run_reference(c, p)
            msg = compare_states(f, r)
            row = per.setdefault((c.api, c.dtype), [0, 0, 0])
            row[0] += 1
            row[1] += int(r.fault) != 0
            if msg:
                row[2] += 1
                mism += 1
                if len(failures) < 20:
                    failures.append((c.call_repr(), msg + f" [faults ref={describe_faults(int(r.fault))}]"))
        t_ref += time.perf_counter() - t1
        t_fast += t1 - t0
    return CampaignResult(p.name, len(all_cases), mism, t_fast, t_ref, per, failures)
