"""GatherMask's call forms in fewer compiled programs (issue 36, "fewer signatures"): the fuzz
family traces the pattern source (``GatherMask(..., AnyPattern(user, pattern, tensor), ...)``), one
program per (lane width, reduceMode); the API also takes a traced reduceMode, which puts all four
forms -- reduceMode (Normal / Counter) x pattern source (built-in number / user tensor) -- of a lane
width in one program (checked here too; the family does not use it: Normal cases would run at
Counter mode's larger shape, 2.5-3x slower).

Checked per case, on every state field (UB, vector mask, mask mode, RSVD_CNT, fault and warning
bits) and the returned rsvdCnt: the merged program == the reference, == the call with static
parameters (``run_static``, a kernel's view) and == the per-form program it replaces (reduceMode and
the pattern source static, everything else traced)."""

import collections
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import dtypes as D
from ascend_jax import fuzz
from ascend_jax.errors import Fault
from ascend_jax.fuzz import runner
from ascend_jax.fuzz.families import gather_shift as C
from ascend_jax.fuzz.generate import generate_case, make_plan, oracle_fraction
from ascend_jax.profile import load_profile

FAM = C.GatherFamily()
FORMS = [(counter, user) for counter in (False, True) for user in (False, True)]


class _PerForm(C.GatherFamily):
    """The per-form programs the merged one replaces: reduceMode and the pattern source static
    (in the signature), everything else traced."""

    def signature(self, case, p):
        return super().signature(case, p) + (case.counter, case.user)

    def stack_dyn(self, cases, p):
        dyn = super().stack_dyn(cases, p)
        dyn.pop("counter", None)  # traced reduceMode: the family keys on it (a static program)
        del dyn["user"]
        return dyn


class _BothModes(C.GatherFamily):
    """reduceMode traced too: all four call forms of a lane width in one program (the API accepts a
    traced reduceMode; the campaign family keys on it instead, see ``GatherFamily.signature``)."""

    def signature(self, case, p):
        return super().signature(case, p)[:3] + (case.big,)

    def stack_dyn(self, cases, p):
        dyn = super().stack_dyn(cases, p)
        dyn["counter"] = np.array([c.counter for c in cases], bool)
        return dyn


BOTH = _BothModes()


def _mixed(p, per_form, seed):
    """``per_form`` cases per (type, reduceMode, pattern source) over every GatherMask type of ``p``
    (both lane widths), a third of them with a data fault drawn, plus the traced-only faults of one
    form next to the same values in the form where they are no fault."""
    rng = np.random.default_rng(seed)
    out = []
    for dt in p.api("GatherMask").dtypes:
        for counter, user in FORMS:
            out += [C.random_gather_case(rng, p, dt, counter, user, fault_rate=0.3) for _ in range(per_form)]
    rep = dataclasses.replace
    base = out[: 4 * per_form : per_form]  # one case of each form, first type
    for c in base:
        out.append(rep(c, pattern=0))  # BAD_PARAM for a built-in pattern, nothing for a tensor
        out.append(rep(c, mask=0))  # BAD_MASK in Counter mode, ignored in Normal mode
        out.append(rep(c, params=c.params[:1] + (1000,) + c.params[2:]))  # BAD_PARAM
    return out


def _same(a, b):
    """None if two fast-path results agree on every state field and the returned value."""
    (sa, ra), (sb, rb) = a, b
    for f in runner._FIELDS:
        if not np.array_equal(np.asarray(getattr(sa, f)), np.asarray(getattr(sb, f))):
            return f
    if not np.array_equal(np.asarray(ra), np.asarray(rb)):
        return "rsvdCnt"
    return None


def _lane_widths(p):
    return {D.as_dtype(d).itemsize for d in p.api("GatherMask").dtypes}


def _check_mixed(name, per_form, seed, n_static, per_width=True):
    p = load_profile(name)
    cases = _mixed(p, per_form, seed)
    sigs = collections.Counter(FAM.signature(c, p) for c in cases)
    # one program per (lane width, reduceMode) (no case of the large repeat bucket here), both
    # pattern sources in it
    assert len(sigs) == 2 * len(_lane_widths(p)), sigs
    fast = FAM.run_fast(cases, p)
    # and with reduceMode traced as well: one program per lane width, the same bits
    assert len({BOTH.signature(c, p) for c in cases}) == len(_lane_widths(p))
    for c, f, b in zip(cases, fast, BOTH.run_fast(cases, p), strict=True):
        assert _same(f, b) is None, f"{c.call_repr()}: {_same(f, b)} differs with reduceMode traced"
    faults = collections.Counter()
    for c, f in zip(cases, fast, strict=True):
        ref = FAM.run_reference(c, p)
        assert FAM.compare(f, ref) is None, f"{c.call_repr()}: {FAM.compare(f, ref)}"
        bits = int(f[0].fault)
        for k in (Fault.BAD_PARAM, Fault.BAD_MASK, Fault.MISALIGNED, Fault.OUT_OF_UB):
            faults[k.name] += bool(bits & k)
        faults["none"] += bits == 0
    assert min(faults.values()) > 0, faults
    # the pattern number of a tensor-pattern case and the mask of a Normal case are not checked
    k = len(cases) - 12
    assert not int(fast[k + 3][0].fault) & Fault.BAD_PARAM  # (Normal, tensor), pattern 0
    assert int(fast[k][0].fault) & Fault.BAD_PARAM  # (Normal, built-in), pattern 0
    assert not int(fast[k + 1][0].fault) & Fault.BAD_MASK  # Normal, mask 0
    assert int(fast[k + 7][0].fault) & Fault.BAD_MASK  # Counter, mask 0
    # the call with static parameters (a kernel's view): one program per case, so a few per form
    # and lane width; the traced-only faults (a static value out of range is a UsageError) are
    # covered by the reference and the per-form comparison
    widths = sorted(_lane_widths(p))
    seen = collections.Counter()
    for c, f in zip(cases, fast, strict=True):
        w, form = D.as_dtype(c.dtype).itemsize, FORMS.index((c.counter, c.user))
        if not per_width and widths.index(w) != form % len(widths):  # forms alternate widths
            continue
        key = (w, form)
        if seen[key] >= n_static:
            continue
        try:
            st = FAM.run_static(c, p)
        except aj.UsageError:
            continue
        assert _same(f, st) is None, f"{c.call_repr()}: {_same(f, st)} differs from the static call"
        seen[key] += 1
    assert len(seen) == 4 * (len(widths) if per_width else 1), seen
    return p, cases, fast


def test_gathermask_mixed_chunk_one_program_per_lane_width():
    # static calls: one per call form (a program each), the forms alternating the lane widths
    _check_mixed("ascend910b", per_form=2, seed=36, n_static=1, per_width=False)


def test_gathermask_traced_form_with_static_values():
    # a static mask 0 / pattern number 0 with the call form traced: BAD_MASK for the Counter case
    # only, BAD_PARAM for the built-in case only (with a static form: usage errors), as the
    # reference finds them; one vmapped call over the four forms
    p = load_profile("ascend910b")
    cases = [
        C.GatherCase(
            "half", counter, user, dst=0, src0=1024, pat=2048, pattern=0, mask=0, params=(1, 2, 8, 8)
        )
        for counter, user in FORMS
    ]
    state = runner.core_state([runner.fields_of(FAM, c, p) for c in cases])

    def one(st, counter, user):
        pat = aj.AnyPattern(user, 0, aj.LocalTensor(aj.uint16, 2048, 512))
        dst, src0 = aj.LocalTensor(aj.half, 0, 512), aj.LocalTensor(aj.half, 1024, 512)
        return aj.GatherMask(st, dst, src0, pat, counter, 0, (1, 2, 8, 8), profile=p, max_repeats=4)

    flags = [np.array([f[i] for f in FORMS]) for i in (0, 1)]
    st, ret = jax.vmap(one)(state, *(jnp.asarray(x) for x in flags))
    for j, c in enumerate(cases):
        fast = (jax.tree_util.tree_map(lambda x, j=j: np.asarray(x[j]), st), np.asarray(ret[j]))
        ref = FAM.run_reference(c, p)
        assert FAM.compare(fast, ref) is None, f"{c.call_repr()}: {FAM.compare(fast, ref)}"
        f = int(fast[0].fault)
        assert bool(f & Fault.BAD_MASK) == c.counter and bool(f & Fault.BAD_PARAM) == (not c.user), c


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ascend910b", "ascend950", "ascend310p", "ascend310b"])
def test_gathermask_merged_program_equals_per_form_programs(name):
    p, cases, fast = _check_mixed(name, per_form=6, seed=37, n_static=3)
    old = _PerForm().run_fast(cases, p)
    for c, f, o in zip(cases, fast, old, strict=True):
        assert _same(f, o) is None, f"{c.call_repr()}: {_same(f, o)} differs from the per-form program"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ascend910b", "ascend950", "ascend310p", "ascend310b"])
def test_gathermask_campaign_signatures(name):
    n, seed, rate = 600, 36, 0.3
    res = fuzz.run(apis="GatherMask", profile=name, cases=n, seed=seed, invalid_rate=rate, shrink=False)
    assert res.counts()["mismatch"] == 0, res.mismatches()[:3]
    p = load_profile(name)
    plan = make_plan(p, "GatherMask")
    forms = collections.defaultdict(set)
    for i in range(n):
        fc = generate_case(plan, seed, i, rate, oracle_fraction(None, n))
        if fc.kind != "invalid-static":
            forms[fc.family.signature(fc.case, p)].add((fc.case.counter, fc.case.user))
    widths = _lane_widths(p)
    small = [s for s in forms if not s[-1]]
    assert len(small) == 2 * len(widths) and len(forms) <= 4 * len(widths), sorted(forms)
    assert all(len(forms[s]) == 2 for s in small), forms  # both pattern sources in each program
