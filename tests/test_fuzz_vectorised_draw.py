"""The vectorised case generators (issue 36: ``Family.generate_many`` of unary_scalar,
compare_select and gather_mask, over ``rng.Slots``; the shared draws in ``fuzz/families/draw.py``).

(a) A fixed layout: a case's values do not depend on the batch it is drawn in (a batch equals the
same cases drawn in another batch and one by one, ``generate_case``). (b) The same distribution as
the scalar generator (``Family.generate``, case by case on ``CaseRng``): every unit and form
reached, and every field's values (categories, or the scalar sample's common values and deciles)
and the address overlaps in the same shares, within a few standard deviations. (c) A short
campaign on the new cases: the fast path and the reference agree."""

import collections
import dataclasses
import math

import numpy as np
import pytest

from ascend_jax import fuzz
from ascend_jax.fuzz.families import draw as D
from ascend_jax.fuzz.families.registers import APIS as REGISTER_APIS
from ascend_jax.fuzz.generate import generate_case, generate_cases, make_plan
from ascend_jax.fuzz.rng import CaseRng, Slots, case_states
from ascend_jax.profile import load_profile

FAMILY_APIS = {
    "unary_scalar": "Adds,Muls,Maxs,Mins",
    "compare_select": (
        "Compare,Compares,CompareScalar,ComparesFlexible,CompareCmpMask,SetCmpMask,GetCmpMask,"
        "Select,SelectFlexible"
    ),
    "gather_mask": "GatherMask",
    "shift": "ShiftLeft,ShiftRight,ShiftLeftTensor,ShiftRightTensor",
    "brcb": "Brcb",
    "mull": "Mull",
    "bilinear": "BilinearInterpolation",
    "sort": "Sort32,MrgSort,GetMrgSortResult,MrgSort4,RpSort16,ProposalConcat,ProposalExtract",
    "registers": ",".join(REGISTER_APIS),
}
PROFILES = ("ascend910b", "ascend950", "ascend310p")
# the fields a unit fixes (``Family.units``)
UNIT_FIELDS = {
    "unary_scalar": ("api", "dtype"),
    "compare_select": ("api", "dtype", "mode", "form", "variant", "dst_dtype", "sel_dtype"),
    "gather_mask": ("dtype", "counter", "user"),
    "shift": ("api", "dtype", "is_set_mask"),
    "brcb": ("api", "dtype"),
    "mull": ("api", "dtype"),
    "bilinear": ("api", "dtype", "form"),
    "sort": ("api", "dtype", "form", "valid_bit", "suspension"),
    "registers": ("api", "dtype"),
}


def _json(fc):
    return (fc.index, fc.api, fc.kind, fc.what, fc.oracle, fc.family.to_json(fc.case))


# the families vectorised first: every profile in the default run; the later ones (issue 36, item 1)
# on one profile with fewer cases by default (the suite's time budget), every profile nightly
FIRST = ("unary_scalar", "compare_select", "gather_mask")
LATER = {
    "shift": "ascend910b",
    "brcb": "ascend910b",
    "mull": "ascend950",
    "bilinear": "ascend910b",
    "sort": "ascend910b",
    "registers": "ascend910b",
}
BATCH_CASES = [(f, pr, 2000) for pr in PROFILES for f in FIRST]
for _f, _pr in LATER.items():
    BATCH_CASES.append((_f, _pr, 400))
    BATCH_CASES += [pytest.param(_f, o, 2000, marks=pytest.mark.slow) for o in PROFILES if o != _pr]


def _plan_or_skip(profile, apis):
    plan = make_plan(profile, apis)
    if not plan.apis:
        pytest.skip(f"{apis} not on {profile}")
    return plan


@pytest.mark.parametrize("family, profile, n", BATCH_CASES)
def test_a_batch_equals_other_batches_and_single_cases(family, profile, n):
    plan = _plan_or_skip(profile, FAMILY_APIS[family])
    assert plan.apis and all(plan.family[a].vectorised for a in plan.apis)
    idx = list(range(n))
    batch = generate_cases(plan, 21, idx, 0.1, 0.5)
    assert [fc.index for fc in batch] == idx
    assert {fc.family.name for fc in batch} == {family}
    # another batch: every third case, in reverse order
    other = generate_cases(plan, 21, idx[::-3], 0.1, 0.5)
    assert [_json(fc) for fc in other] == [_json(batch[i]) for i in idx[::-3]]
    # one case at a time (n = 1): a sample (49 cases of 2,000; 12 of the smaller default batches,
    # a single case costs a whole batch's draws)
    for i in idx[:: 41 if n >= 2000 else max(1, n // 12)]:
        assert _json(generate_case(plan, 21, i, 0.1, 0.5)) == _json(batch[i])


def test_a_mixed_plan_single_cases():
    plan = make_plan("ascend910b", ",".join(FAMILY_APIS[f] for f in FIRST))
    batch = generate_cases(plan, 4, range(300), 0.1, 1.0)
    assert {fc.family.name for fc in batch} == set(FIRST)
    for fc in batch[::7]:
        assert _json(generate_case(plan, 4, fc.index, 0.1, 1.0)) == _json(fc)


# -- (b) the distribution of the scalar generator -------------------------------------------------


def _flat(out, k, v):
    if isinstance(v, tuple):
        out[k + ".len"] = len(v)
        if len(v) > 16 and all(_finite(x) for x in v):  # long (Bilinear's 128 offsets): 8 and the mean
            out[k + ".mean"] = sum(v) / len(v)
            v = v[:8]
        for i, x in enumerate(v):
            _flat(out, f"{k}[{i}]", x)
    elif isinstance(v, complex):
        _flat(out, k + ".re", v.real)
        _flat(out, k + ".im", v.imag)
    else:
        out[k] = v


def _features(case):
    out = {}
    for f in dataclasses.fields(case):
        _flat(out, f.name, getattr(case, f.name))
    addrs = [a for a in ("dst", "dst0", "dst1", "src", "src0", "src1", "sel", "pat") if hasattr(case, a)]
    ub = getattr(case, "ub_bytes", 8192)  # the one-API families: 8192 bytes
    for i, a in enumerate(addrs):  # overlaps and in-place calls
        for b in addrs[i + 1 :]:
            out[f"{a}=={b}"] = getattr(case, a) == getattr(case, b)
            out[f"{a}~{b}"] = abs(getattr(case, a) - getattr(case, b)) < 128  # near: partly overlapping
        out[f"{a}%32"] = getattr(case, a) % 32 == 0
        out[f"{a}>=ub"] = getattr(case, a) >= ub - 64
    return out


def _finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _categories(vals, ref):
    """The category of each value: itself where the values are few (or not numbers), else the
    reference sample's common value it equals, or its decile of the reference sample."""
    num = [v for v in ref if _finite(v)]
    if len(num) < len(ref) // 2 or len(set(num)) + len(ref) - len(num) <= 24:
        return [repr(v) for v in vals]
    common = {v for v, c in collections.Counter(num).most_common(8) if c > len(ref) // 50}
    rare = np.asarray([v for v in num if v not in common], float)
    edges = np.unique(np.quantile(rare, np.linspace(0, 1, 11))) if len(rare) else np.zeros(1)
    out = [
        ("nan" if v != v else repr(v)) if not _finite(v) else (f"={v!r}" if v in common else None)
        for v in vals
    ]
    rest = [j for j, c in enumerate(out) if c is None]
    b = np.searchsorted(edges, np.asarray([float(vals[j]) for j in rest]), side="right")
    for j, k in zip(rest, b.tolist(), strict=True):
        out[j] = f"bin{k}"
    return out


def _compare(scalar_cases, vector_cases, what):
    fs, fv = [_features(c) for c in scalar_cases], [_features(c) for c in vector_cases]
    n, m = len(fs), len(fv)
    keys = set().union(*fs) | set().union(*fv)
    checked = 0
    for k in sorted(keys):
        a = [f.get(k, "absent") for f in fs]
        b = [f.get(k, "absent") for f in fv]
        ca, cb = collections.Counter(_categories(a, a)), collections.Counter(_categories(b, a))
        for c in set(ca) | set(cb):
            pa, pb = ca[c] / n, cb[c] / m
            p = (ca[c] + cb[c]) / (n + m)
            sd = math.sqrt(max(p * (1 - p), 1 / (n + m)) * (1 / n + 1 / m))
            assert abs(pa - pb) <= 4.5 * sd + 0.004, (what, k, c, pa, pb)
            checked += 1
    return checked


# ascend950: 256-bit masks, complex and 64-bit types; ascend310p: a zero mask an error, Compare's
# mask a reserved parameter
DIST = [
    ("unary_scalar", "ascend910b"),
    ("unary_scalar", "ascend950"),
    ("unary_scalar", "ascend310p"),
    ("compare_select", "ascend910b"),
    ("compare_select", "ascend950"),
    ("compare_select", "ascend310p"),
    ("gather_mask", "ascend910b"),
]
DIST = [(f, pr, 2000) for f, pr in DIST]
# the default run's samples (the suite's time budget: the costlier generators, fewer cases)
LATER_DIST_CASES = {"brcb": 1000, "mull": 1000, "shift": 600, "sort": 600, "registers": 600, "bilinear": 400}
for _f, _pr in LATER.items():
    DIST.append((_f, _pr, LATER_DIST_CASES[_f]))
    DIST += [pytest.param(_f, o, 3000, marks=pytest.mark.slow) for o in PROFILES if o != _pr]


@pytest.mark.parametrize("family, profile, n", DIST)
def test_b_same_distribution_as_the_scalar_generator(family, profile, n):
    """The same units drawn by the scalar generator (``generate``, one ``CaseRng`` a case) and by
    ``generate_many``: every field's shares agree, every unit and form is reached."""
    p = load_profile(profile)
    plan = _plan_or_skip(p, FAMILY_APIS[family])
    fam = plan.family[plan.apis[0]]
    units = [u for a in plan.apis for u in plan.units[a]]
    drawn = [units[j % len(units)] for j in range(n)]
    fr = 0.1
    scalar = [fam.generate(CaseRng((99, j)), p, u, fr) for j, u in enumerate(drawn)]
    vector = fam.generate_many(Slots(case_states(77, np.arange(n))), p, drawn, fr)
    assert [type(c) for c in vector] == [type(c) for c in scalar]
    # the field types of today's cases (JSON, signatures, capsules): each a type the scalar
    # generator gives that field
    for f in dataclasses.fields(scalar[0]):
        want = {type(getattr(c, f.name)) for c in scalar}
        assert {type(getattr(c, f.name)) for c in vector} <= want, f.name
    for c in vector[:100]:
        assert fam.to_json(fam.from_json(fam.to_json(c))) == fam.to_json(c)
    assert _compare(scalar, vector, (family, profile)) > 100
    # every unit's API, dtype and form reached (n covers every unit)
    for sc, vc in zip(scalar, vector, strict=True):
        for k in UNIT_FIELDS[family]:
            assert getattr(sc, k) == getattr(vc, k), k
    forms = {getattr(c, "form", None) for c in scalar}
    assert {getattr(c, "form", None) for c in vector} == forms


def test_b_invalid_cases_still_drawn():
    plan = make_plan("ascend910b", ",".join(FAMILY_APIS[f] for f in FIRST))
    fcs = generate_cases(plan, 8, range(3000), 0.2, 0.01)
    kinds = collections.Counter((fc.family.name, fc.kind) for fc in fcs)
    for fam in FIRST:
        n = sum(v for (f, _), v in kinds.items() if f == fam)
        for kind, share in (("invalid-static", 0.1), ("invalid-data", 0.1)):
            assert abs(kinds[fam, kind] / n - share) < 0.04, (fam, kind, kinds)
    whats = {fc.what for fc in fcs if fc.kind != "valid"}
    assert {"misaligned", "out-of-ub", "overlap", "repeatTime", "gatherMaskParams.repeatTimes"} <= whats


# -- the helpers ----------------------------------------------------------------------------------


def test_lane_bits_many_kinds():
    n = 4000
    s = Slots(case_states(5, np.arange(n)))
    L = np.where(np.arange(n) % 2, 64, 128)
    v = D.lane_bits_many(s, L, 128)
    assert v.shape == (n, 8) and v.dtype == np.uint32
    bits = np.unpackbits(v.view(np.uint8), axis=1, bitorder="little").astype(bool)
    width = np.minimum(L, 128)
    assert not bits[np.arange(256)[None, :] >= width[:, None]].any()  # nothing past L or the register
    pop = bits.sum(1)
    assert 0.18 < np.mean(pop == 0) < 0.23  # "zero", and a prefix of 0 lanes (1 / (L + 1))
    assert 0.18 < np.mean(pop == width) < 0.23  # "all", and a prefix of all lanes
    assert 0.18 < np.mean(pop == 1) < 0.23  # "single", and a prefix of one lane
    # "random" (about half the lanes) and the other prefixes
    assert 0.35 < np.mean((pop > 1) & (pop < width)) < 0.42
    rnd = (pop > width // 4) & (pop < 3 * width // 4)
    assert 0.2 < np.mean(rnd) < 0.3
    # a 256-bit register (ascend950): lanes up to 256
    w = D.lane_bits_many(Slots(case_states(6, np.arange(400))), 256, 256)
    assert w[:, 4:].any()


@dataclasses.dataclass(frozen=True)
class _Draws:
    """The shared draws of one case (a dataclass, for ``_compare``)."""

    vmask: tuple
    mask_mode: int
    cmpmask: tuple
    ctrl: tuple
    rsvd_cnt: int
    repeat: int
    strides: tuple
    dst: int
    ub_bytes: int = 8192


@pytest.mark.parametrize("profile", ["ascend950"])
def test_shared_draws_same_distribution_as_the_scalar_helpers(profile):
    """``draw_many`` / ``draw_repeat_strides_many`` / ``draw_addr_many`` against ``regs.draw`` /
    ``base.draw_repeat_strides`` / ``base.draw_addr`` (the scalar helpers the other families
    use), lanes of 16, 64 and 256."""
    from ascend_jax.fuzz import regs
    from ascend_jax.fuzz.families import base

    p = load_profile(profile)
    n = 3000
    L = np.asarray([16, 64, 256])[np.arange(n) % 3]
    fp = np.asarray([1, 9, 300])[np.arange(n) % 3]
    scalar = []
    for j in range(n):
        r = CaseRng((5, j))
        g = regs.draw(r, p, int(L[j]), counter_ok=j % 2 == 0)
        rep, st = base.draw_repeat_strides(r, (1, 1, 8, 8), 0.1)
        scalar.append(
            _Draws(
                g.vmask,
                g.mask_mode,
                g.cmpmask,
                g.ctrl,
                g.rsvd_cnt,
                rep,
                st,
                base.draw_addr(r, 256, int(fp[j]), 0.1),
            )
        )
    s = Slots(case_states(6, np.arange(n)))
    g = D.draw_many(s, p, L, counter_ok=np.arange(n) % 2 == 0)
    rep, st = D.draw_repeat_strides_many(s, (1, 1, 8, 8), 0.1)
    dst = D.draw_addr_many(s, 256, fp, 0.1)
    vector = D.build(
        _Draws,
        n,
        dict(
            vmask=D.tuples(g.vmask),
            mask_mode=g.mask_mode.tolist(),
            cmpmask=D.tuples(g.cmpmask),
            ctrl=D.tuples(g.ctrl),
            rsvd_cnt=g.rsvd_cnt.tolist(),
            repeat=rep.tolist(),
            strides=D.tuples(st),
            dst=dst.tolist(),
            ub_bytes=8192,
        ),
    )
    assert _compare(scalar, vector, profile) > 50
    wide = L == 256
    assert (
        _compare([scalar[j] for j in np.flatnonzero(wide)], [vector[j] for j in np.flatnonzero(wide)], 256)
        > 50
    )


def test_build_equals_the_constructor():
    @dataclasses.dataclass(frozen=True)
    class C:
        a: int
        b: tuple = (1, 2)
        c: str = "x"

    got = D.build(C, 3, dict(a=[1, 2, 3], b=[(1,), (2,), ()], c="y"))
    assert got == [C(1, (1,), "y"), C(2, (2,), "y"), C(3, (), "y")]
    assert [hash(x) for x in got] == [hash(C(1, (1,), "y")), hash(C(2, (2,), "y")), hash(C(3, (), "y"))]
    with pytest.raises(dataclasses.FrozenInstanceError):
        got[0].a = 5
    with pytest.raises(ValueError, match="missing"):
        D.build(C, 3, dict(a=[1, 2, 3]))
    with pytest.raises(ValueError, match="rows"):
        D.build(C, 3, dict(a=[1, 2], b=(), c=""))


# -- (c) the reference agrees on the new cases ----------------------------------------------------


def test_c_short_campaign_has_no_mismatch():
    """Half only (few programs: ~5 s warm, ~16 s with no compilation cache); every type in the
    nightly test below."""
    res = fuzz.run(
        apis="Adds,Select,GatherMask", profile="ascend910b", cases=120, seed=5, shrink=False, dtypes="half"
    )
    counts = res.counts()
    assert counts["mismatch"] == 0 and counts.get("error", 0) == 0, counts
    assert counts["ok"] > 90
    assert {r["api"] for r in res.records} == {"Adds", "Select", "GatherMask"}


@pytest.mark.slow
def test_c_campaign_every_dtype_has_no_mismatch():
    res = fuzz.run(apis="Adds,Select,GatherMask", profile="ascend910b", cases=400, seed=6, shrink=False)
    counts = res.counts()
    assert counts["mismatch"] == 0 and counts.get("error", 0) == 0, counts
