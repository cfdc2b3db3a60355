"""The campaign plan (which registered APIs are fuzzed on a profile, and why the others are not)
and the per-case generator: case ``i`` of seed ``s`` comes from ``rng.CaseRng((s, i))``
alone, so it is the same whatever the batch size, the other cases or an interrupted run."""

import dataclasses

from ..profile import as_profile
from ..registry import REGISTRY
from .families import NOT_FUZZED, family_of_api
from .rng import CaseRng


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
    p = plan.profile
    if not plan.apis:
        raise ValueError(f"nothing to fuzz on {p.name}")
    rng = CaseRng((int(seed) & (2**63 - 1), int(i)))
    u_oracle, u_kind = rng.random(), rng.random()
    api = plan.apis[int(rng.integers(len(plan.apis)))]
    units = plan.units[api]
    unit = units[int(rng.integers(len(units)))]
    fam = plan.family[api]
    case = fam.generate(rng, p, unit, invalid_rate)
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
