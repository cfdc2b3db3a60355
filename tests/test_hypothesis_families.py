"""Hypothesis-driven differential tests for the Compare/Select and GatherMask/shift families on the
default profile: the same case generators as the big seeded campaigns, but every choice drawn by
hypothesis (ascend_jax.testing.draw_rng), so a failure shrinks to a minimal call. Three (compare /
select) or six (gather / shift, nightly only) examples of six cases each in `make test` (the seeded
campaigns carry the volume); nightly 120."""

from conftest import SCALE
from hypothesis import given, note, settings
from hypothesis import strategies as st

from ascend_jax.fuzz.families import compare, run_all
from ascend_jax.fuzz.families import compare_select as CS
from ascend_jax.fuzz.families import gather_shift as GS
from ascend_jax.profile import load_profile
from ascend_jax.testing.draw_rng import DrawRng

P = load_profile("ascend910b")
N = 6  # cases per example (one batched fast-path call per signature)


def _compare_all(cases, fast, refs, compare):
    for c, f, r in zip(cases, fast, refs, strict=True):
        msg = compare(f, r)
        if msg:
            note(repr(c))
            raise AssertionError(f"{c.call_repr()}: {msg}")


# three examples in `make test` (six until session 19: each example compiles a program per drawn
# signature, ~2 s each), 120 nightly
@settings(max_examples=3 if SCALE == 1 else 6 * SCALE)
@given(st.data())
def test_compare_select_hypothesis(data):
    rng = DrawRng(data)
    groups = CS.groups(P)
    cases = []
    for _ in range(N):
        api, dt, mode = groups[data.draw(st.integers(0, len(groups) - 1))]
        forms = CS.forms_for(P, api, dt, mode)
        form = forms[data.draw(st.integers(0, len(forms) - 1))]
        cases.append(CS.random_case(rng, P, api, dt, mode, form, variant=data.draw(st.integers(0, 3))))
    fast, refs = run_all(cases, P)
    _compare_all(cases, fast, refs, compare)


@settings(max_examples=6 * SCALE)
@given(st.data())
def test_gather_shift_hypothesis(data):
    rng = DrawRng(data)
    cases = []
    sgroups = GS.shift_groups(P)
    ggroups = GS.gather_groups(P)
    for _ in range(N):
        if data.draw(st.booleans()):
            api, dt = sgroups[data.draw(st.integers(0, len(sgroups) - 1))][:2]
            forms = GS.shift_forms(P, api, dt)
            form = forms[data.draw(st.integers(0, len(forms) - 1))]
            cases.append(GS.random_shift_case(rng, P, api, dt, form))
        else:
            dt, counter, user = ggroups[data.draw(st.integers(0, len(ggroups) - 1))][:3]
            cases.append(GS.random_gather_case(rng, P, dt, counter, user))
    fast, refs = run_all(cases, P)
    _compare_all(cases, fast, refs, compare)
