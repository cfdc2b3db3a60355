"""Select's merged fuzz program (issue 36, "fewer signatures"): selMode, the mask-less prototypes
(the traced form code PLACEHOLDER), the selMask element type and the element types of one lane width
are traced, so a campaign runs one Select program per (lane width, repeat bucket).

A mixed chunk -- every selMode, the count / mask / mask-less forms, several types of one width,
faulting cases -- run through the merged compiled program gives, case by case, the bits of the
direct static call (``call`` without traced values: the public ``Select`` with its static selMode)
and of the NumPy reference: whole UB, vmask, mask_mode, cmpmask, fault and warn."""

import collections

import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax.fuzz import runner as RUN
from ascend_jax.fuzz.compare import compare
from ascend_jax.fuzz.families import compare_select as C
from ascend_jax.fuzz.families import family_of_api
from ascend_jax.fuzz.families.base import data_mutations
from ascend_jax.profile import load_profile

FAM = family_of_api("Select")


def _mixed_chunk(p, dtypes, seed, per):
    """Cases of one signature: each (selMode, form) ``per`` times, the dtypes in turn, every other
    case with a data-dependent fault injected."""
    rng = np.random.default_rng(seed)
    out = []
    a = p.api("Select")
    for mode in a.modes:
        for form in C.forms_for(p, "Select", dtypes[0], mode):
            for _ in range(per):
                dt = dtypes[len(out) % len(dtypes)]
                c = C.random_case(rng, p, "Select", dt, mode, form, fault_rate=0.3, pick=len(out))
                if len(out) % 2:
                    mut = data_mutations(rng, p, c, dst="dst", src="src0", dst_blk_stride=True)
                    if mut is not None:
                        c = mut[0]
                out.append(FAM.normalize(c, p))
    return out


def _fields(st):
    return {f: np.asarray(getattr(st, f)) for f in ("ub", "vmask", "mask_mode", "cmpmask", "fault", "warn")}


_W2_950 = ["int16", "uint16", "half", "bfloat16"]


def test_merged_chunk_equals_static_calls_and_reference():
    """The default suite's chunk: 950, four types of width 2 (the 910b Select program is checked
    against the reference in volume by test_compare_select_differential)."""
    _check_mixed("ascend950", _W2_950, per=1, seed=3)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, dtypes",
    [
        ("ascend910b", ["half"]),
        ("ascend910b", ["float32"]),
        ("ascend950", _W2_950),
        ("ascend910_93", ["float32"]),
    ],
)
def test_merged_chunk_equals_static_calls_and_reference_more(name, dtypes):
    _check_mixed(name, dtypes, per=8, seed=4)


def _check_mixed(name, dtypes, per, seed):
    p = load_profile(name)
    cases = _mixed_chunk(p, dtypes, seed, per)
    assert {c.form for c in cases} == {"count", "continuous", "bitwise", "nomask"}
    assert {c.mode for c in cases} == {0, 1, 2}
    (sig,) = {FAM.signature(c, p) for c in cases}  # one program for all of them
    res = RUN.launch_chunk(FAM, cases, p, RUN.chunk_size(len(cases), 256), compiled=True).result()
    faults = collections.Counter()
    for j, c in enumerate(cases):
        fast, _ = res.row(j)
        fields = RUN.initial_fields(c, FAM.initial_ub(c))
        # the public Select, selMode static (max_repeats: the chunk's bucket, few programs)
        static = C.call(aj, c, RUN.core_state(fields), p, R=C.BIG_R if c.big else C.SMALL_R)
        got, want = _fields(fast), _fields(static)
        for f in got:
            assert np.array_equal(got[f], want[f]), (
                f"{name} {sig}: {f} differs from the static call\n{c.call_repr()}"
            )
        ref, ref_ret = RUN.run_reference(FAM, c, p, fields=fields)
        assert compare(fast, ref) is None, f"{name}: {compare(fast, ref)}\n{c.call_repr()}"
        faults[int(got["fault"]) != 0] += 1
    assert faults[True] >= 3 and faults[False] >= 3, faults


def test_traced_mode_checks():
    """A traced selMode outside the profile's modes, and the mask-less form code on a product
    without CMPMASK, are BAD_PARAM per case; the static Select keeps its UsageError."""
    p = load_profile("ascend910")  # modes [0], no CMPMASK
    st = aj.reset_state(p)
    t = [aj.LocalTensor(aj.half, a, 128) for a in (0, 256, 512)]
    sel = aj.LocalTensor(aj.uint8, 1024, 64)
    params = aj.BinaryRepeatParams()

    def run(mode, form):
        i32 = jnp.int32
        f = aj.AnyForm(i32(form), i32(128), jnp.uint32(128), jnp.zeros(4, jnp.uint32), i32(1), params)
        return aj.select_traced_mode(st, t[0], sel, t[1], t[2], jnp.float16(1), i32(mode), f, profile=p)

    assert int(run(0, aj.AnyForm.COUNT).fault) == 0
    assert int(run(1, aj.AnyForm.COUNT).fault) & int(aj.Fault.BAD_PARAM)
    assert int(run(0, aj.AnyForm.PLACEHOLDER).fault) & int(aj.Fault.BAD_PARAM)
    with pytest.raises(aj.UsageError) as e:
        aj.Select(st, t[0], sel, t[1], t[2], jnp.int32(0), 128, profile=p)
    assert e.value.argument == "selMode"


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, apis, n_sigs",
    [
        ("ascend910b", "Select", 3),  # half, float32, half in the large bucket
        # Select: widths 2 and 4 (traced forms), 1, 4 and 8 (count-only types); SelectFlexible
        # (mode 1 only): its four operand variants stay programs of their own
        ("ascend950", "Select,SelectFlexible", 27),
    ],
)
def test_campaign(name, apis, n_sigs):
    from ascend_jax import fuzz
    from ascend_jax.fuzz.generate import generate_case, make_plan

    res = fuzz.run(apis=apis, profile=name, cases=600, invalid_rate=0.3, seed=7, shrink=False)
    assert res.ok, res.mismatches[:3]
    p = load_profile(name)
    plan = make_plan(p, apis)
    sigs = {
        fc.family.signature(fc.case, p)
        for fc in (generate_case(plan, 7, i, 0.3, 1.0) for i in range(600))
        if fc.kind != "invalid-static"
    }
    # one Select program per (lane width, bucket); SelectFlexible one per (width, variant, bucket)
    by_api = collections.Counter(s[1] for s in sigs)
    widths = {aj.as_dtype(s[2]).itemsize for s in sigs if s[1] == "Select"}
    assert by_api["Select"] <= 2 * len(widths) + 1, sorted(sigs)
    assert len(sigs) == n_sigs, sorted(sigs)
