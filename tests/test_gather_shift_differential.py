"""Fast JAX path vs the literal NumPy reference for GatherMask and the shift APIs (issue 4): whole
UB bytes, vmask, mask_mode, rsvd_cnt, the returned rsvdCnt and fault bits over random cases.

Default profile (ascend910b): >= 200 cases per shift API x dtype (every call form in every group;
default run: int16 and uint32, every dtype nightly) and >= 100 per GatherMask dtype x reduce mode x
pattern kind (200 until session 19; 2,000 x 20 nightly; the first-wave APIs have no per-group volume
target of their own, and these keep `make test` within its 15 minutes). Every other
profile that has the API: >= 50 per API x dtype (2,000 nightly); shifts: four dtypes per API (every
dtype nightly), one call form per group, rotating; GatherMask: the (reduce mode, pattern kind) pair
rotating over the dtypes; to keep the number of compilations small.
ASCEND_JAX_HYPOTHESIS=nightly scales the counts 20x."""

import collections

import pytest
from conftest import SCALE, twins_nightly

from ascend_jax.fuzz.families import compare, run_all
from ascend_jax.fuzz.families import gather_shift as C
from ascend_jax.profile import available_profiles, load_profile

DEFAULT = "ascend910b"


def _check(name, cases, group_of, per_group):
    p = load_profile(name)
    if not cases:
        pytest.skip(f"{name} has none of these APIs")
    counts = collections.Counter(group_of(c) for c in cases)
    assert min(counts.values()) >= per_group
    fast, refs = run_all(cases, p)
    bad = []
    for c, f, r in zip(cases, fast, refs, strict=True):
        msg = compare(f, r)
        if msg:
            bad.append(f"{c.call_repr()}\n    {msg}")
    assert not bad, f"{name}: {len(bad)} of {len(cases)} cases differ:\n" + "\n".join(bad[:10])


def _shift_group(c):
    return (c.api, c.dtype)


def _gather_group(c):
    return (c.dtype, c.counter, c.user)


# the default run's shift types on the default profile: for each API one 16-bit and one 32-bit type,
# one signed and one unsigned (ShiftRight: arithmetic and logical), every call form and the large
# bucket (drawn on int16); uint16 and int32 (one program each per API) run nightly
DEFAULT_SHIFT_DTYPES = ("int16", "uint32")


def test_shift_differential_default_profile():
    n = 200 if SCALE == 1 else 2000 * SCALE
    cases = C.shift_cases(DEFAULT, n, seed=404, all_forms=True)
    if SCALE == 1:
        cases = [c for c in cases if c.dtype in DEFAULT_SHIFT_DTYPES]
        assert {(c.api, c.dtype) for c in cases} == {
            (a, d) for a in ("ShiftLeft", "ShiftRight") for d in DEFAULT_SHIFT_DTYPES
        }
        assert any(c.big for c in cases)
    _check(DEFAULT, cases, _shift_group, n)


@pytest.mark.parametrize("counter", [False, True], ids=["normal", "counter"])
def test_gathermask_differential_default_profile(counter):
    # one test per reduceMode: the same volume, spread over the xdist workers
    n = 100 if SCALE == 1 else 2000 * SCALE
    cases = C.gather_cases(DEFAULT, n, seed=405 + counter, all_groups=True, counter=counter)
    _check(DEFAULT, cases, _gather_group, n)


def _others(api):
    return [n for n in available_profiles() if n != DEFAULT and load_profile(n).api(api).supported]


@pytest.mark.parametrize(
    "name",
    twins_nightly(
        _others("ShiftLeft") + [n for n in _others("ShiftLeftTensor") if n not in _others("ShiftLeft")]
    ),
)
def test_shift_differential_other_profiles(name):
    n = 2000 if SCALE > 1 else 50
    # three dtypes per API by default, rotating by profile (the 950 has eight: 32 programs for all);
    # every dtype nightly
    cases = C.shift_cases(
        name, n, seed=11 + sum(map(ord, name)), all_forms=False, dtypes_per_api=None if SCALE > 1 else 3
    )
    _check(name, cases, _shift_group, n)


@pytest.mark.parametrize("name", twins_nightly(_others("GatherMask")))
def test_gathermask_differential_other_profiles(name):
    n = 2000 if SCALE > 1 else 50
    cases = C.gather_cases(name, n, seed=13 + sum(map(ord, name)), all_groups=False)
    _check(name, cases, lambda c: c.dtype, n)
