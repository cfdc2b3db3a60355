"""The campaign plan (which registered APIs are fuzzed on a profile, and why the others are not)
and the case generator: case ``i`` of seed ``s`` comes from the stream ``rng.CaseRng((s, i))``
alone, so it is the same whatever the batch size, the other cases or an interrupted run.

``generate_cases`` draws many cases at once: the campaign-level draws (oracle, kind, API, unit) as
arrays over the cases' streams (``rng.Slots``), then each family's cases together where the family
has a vectorised generator (``Family.generate_many``: a fixed layout of draws, every case making
every draw), else one by one. One case alone (``generate_case``) goes the same way with n = 1, so
its values are the batch's."""

import dataclasses
import gc

import numpy as np

from ..profile import as_profile
from ..registry import REGISTRY
from .families import NOT_FUZZED, family_of_api
from .rng import Slots, case_states

# how the cases are drawn (campaign journals record it, ``resume.IDENTITY``: a journal written by
# another generator is not resumed). 2: vectorised generators (``Family.generate_many``).
CASE_GENERATOR = 2


@dataclasses.dataclass
class Plan:
    profile: object
    apis: list  # fuzzed API names, registry order
    units: dict  # api -> [unit]
    family: dict  # api -> Family
    not_fuzzed: dict  # api -> reason


def registered_apis():
    import ascend_jax  # noqa: F401  (the public face registers the APIs)

    return list(REGISTRY)


def make_plan(profile=None, apis=None, dtypes=None):
    """Every registered API (or the ``apis`` named) on ``profile``: fuzzed, or not with a reason.
    ``dtypes``: only these element types (APIs without a type template are kept)."""
    p = as_profile(profile)
    names = registered_apis()
    if apis is not None:
        apis = [a.strip() for a in (apis.split(",") if isinstance(apis, str) else apis) if a.strip()]
        unknown = [a for a in apis if a not in names]
        if unknown:
            raise ValueError(f"unknown API(s) {', '.join(unknown)}; registered: {', '.join(names)}")
        names = [n for n in names if n in apis]
    plan = Plan(p, [], {}, {}, {})
    for n in names:
        fam = family_of_api(n)
        if fam is None:
            plan.not_fuzzed[n] = NOT_FUZZED.get(n, "no family adapter")
            continue
        if not p.api(n).supported:
            plan.not_fuzzed[n] = f"not supported on {p.name}"
            continue
        units = fam.units(p, n)
        if dtypes is not None:
            keep = set(dtypes.split(",") if isinstance(dtypes, str) else dtypes)
            units = [u for u in units if fam.unit_dtype(u) in keep or fam.unit_dtype(u) == "-"]
        if not units:
            plan.not_fuzzed[n] = f"no modelled variant to fuzz on {p.name}"
            continue
        plan.apis.append(n)
        plan.units[n] = units
        plan.family[n] = fam
    return plan


@dataclasses.dataclass
class FuzzCase:
    index: int
    api: str
    family: object
    case: object
    kind: str  # "valid" | "invalid-static" | "invalid-data"
    what: str  # invalid cases: the injected misuse (static: the argument expected to be rejected)
    oracle: bool  # checked against the reference


def oracle_fraction(oracle_sample, cases):
    """None: every case up to 20,000 cases, then a random sample of about 20,000; a float in
    (0, 1]: that share; an int > 1: about that many cases."""
    if oracle_sample is None:
        return 1.0 if cases <= 20000 else 20000 / cases
    v = float(oracle_sample)
    if v > 1:
        return min(1.0, v / max(cases, 1))
    return max(0.0, v)


def generate_case(plan, seed, i, invalid_rate=0.1, oracle_frac=1.0):
    """Case ``i`` of the campaign ``seed`` (API, prototype, dtype, form, every parameter)."""
    return generate_cases(plan, seed, [i], invalid_rate, oracle_frac)[0]


def generate_cases(plan, seed, indices, invalid_rate=0.1, oracle_frac=1.0):
    """The cases ``indices`` of the campaign ``seed`` (a list of ``FuzzCase``, in that order)."""
    # the cyclic garbage collector paused while the cases are built: they hold no cycles, and its
    # passes over the process's objects (triggered by every few hundred new tuples) were 60 % of the
    # drawing time of 30,000 cases (1.08 -> 0.41 s)
    was = gc.isenabled()
    gc.disable()
    try:
        return _generate_cases(plan, seed, indices, invalid_rate, oracle_frac)
    finally:
        if was:
            gc.enable()


def _generate_cases(plan, seed, indices, invalid_rate, oracle_frac):
    p = plan.profile
    if not plan.apis:
        raise ValueError(f"nothing to fuzz on {p.name}")
    idx = np.asarray(list(indices), np.int64)
    slots = Slots(case_states(int(seed) & (2**63 - 1), idx))
    u_oracle, u_kind = slots.random(), slots.random()
    api_k = slots.below(len(plan.apis))
    n_units = np.asarray([len(plan.units[a]) for a in plan.apis], np.int64)
    unit_k = slots.below(n_units[api_k])
    out = [None] * len(idx)
    api_l, unit_l, idx_l = api_k.tolist(), unit_k.tolist(), idx.tolist()
    kind_l, oracle_l = u_kind.tolist(), u_oracle.tolist()
    by_family = {}
    for j, a in enumerate(api_l):
        by_family.setdefault(plan.family[plan.apis[a]].name, []).append(j)
    for rows in by_family.values():
        fam = plan.family[plan.apis[api_l[rows[0]]]]
        units = [plan.units[plan.apis[api_l[j]]][unit_l[j]] for j in rows]
        if fam.vectorised:
            sub = slots.take(np.asarray(rows))
            cases = fam.generate_many(sub, p, units, invalid_rate)
            # the invalid draws continue each stream (only an invalid case draws again)
            rngs = [sub.rng(k) if kind_l[j] < invalid_rate else None for k, j in enumerate(rows)]
        else:
            rngs = [slots.rng(j) for j in rows]
            cases = [fam.generate(r, p, u, invalid_rate) for r, u in zip(rngs, units, strict=True)]
        for j, case, rng in zip(rows, cases, rngs, strict=True):
            out[j] = _finish(fam, p, idx_l[j], case, rng, kind_l[j], oracle_l[j], invalid_rate, oracle_frac)
    return out


def _finish(fam, p, i, case, rng, u_kind, u_oracle, invalid_rate, oracle_frac):
    """A drawn case made invalid at ``invalid_rate`` (half static misuse, half data faults)."""
    kind, what = "valid", ""
    if u_kind < invalid_rate / 2:
        r = fam.invalid_static(rng, p, case)
        if r is not None:
            case, what = r
            kind = "invalid-static"
    elif u_kind < invalid_rate:
        r = fam.invalid_data(rng, p, case)
        if r is not None:
            case, what = r
            kind = "invalid-data"
    oracle = kind != "valid" or u_oracle < oracle_frac
    return FuzzCase(int(i), fam.api_of(case), fam, case, kind, what, bool(oracle))
