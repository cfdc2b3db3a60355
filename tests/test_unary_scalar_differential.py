"""Fast JAX path vs the literal NumPy reference for Adds/Muls/Maxs/Mins: whole UB byte for byte,
registers and fault bits, over thousands of hypothesis-drawn cases run in vmapped batches."""

import pytest
from conftest import SCALE
from hypothesis import given, note, settings
from hypothesis import strategies as st

from ascend_jax.fuzz.families.unary_scalar import UnaryScalarFamily
from ascend_jax.profile import available_profiles, load_profile
from ascend_jax.testing.strategies import unary_scalar_cases

APIS = ("Adds", "Muls", "Maxs", "Mins")
DEFAULT = load_profile("ascend910b")
BATCH = 100


def _check(cases, profile, buckets=(4, 16, 256)):
    fam = UnaryScalarFamily(buckets=buckets)
    fast = fam.run_fast(cases, profile)
    for c, f in zip(cases, fast, strict=True):
        msg = fam.compare(f, fam.run_reference(c, profile))
        if msg:
            note(f"case: {c}")
            raise AssertionError(f"{profile.name}: {c.call_repr()}: {msg}")


def _params_default():
    out = []
    for api in APIS:
        for dt in DEFAULT.api(api).dtypes:
            out.append(pytest.param(api, dt, id=f"{api}-{dt}"))
    return out


@pytest.mark.parametrize("api,dtype", _params_default())
def test_differential_default_profile(api, dtype):
    """>= 2,000 random cases per API x dtype on the default profile (20 batches of 100)."""

    @settings(max_examples=20 * SCALE)
    @given(st.lists(unary_scalar_cases(DEFAULT, api, dtype), min_size=BATCH, max_size=BATCH))
    def run(cases):
        _check(cases, DEFAULT)

    run()


# documented dtypes the fast path does not model (none left)
_NOT_MODELLED = ()


def _params_all_profiles():
    out = []
    for name in available_profiles():
        p = load_profile(name)
        for api in APIS:
            a = p.api(api)
            if a.supported and name != DEFAULT.name:
                for dt in a.all_dtypes():
                    if dt in _NOT_MODELLED:
                        continue
                    if load_profile(name).api(api).supported:
                        out.append(pytest.param(name, api, dt, id=f"{name}-{api}-{dt}"))
    return out


@pytest.mark.parametrize("profile_name,api,dtype", _params_all_profiles())
def test_differential_other_profiles(profile_name, api, dtype):
    """Every other profile: 200 random cases per API x dtype (the profile decides dtypes, numerics,
    zero-repeat/mask rules, level-2 lowering and mask width)."""
    p = load_profile(profile_name)

    @settings(max_examples=2 * SCALE)
    @given(st.lists(unary_scalar_cases(p, api, dtype), min_size=BATCH, max_size=BATCH))
    def run(cases):
        _check(cases, p, buckets=(256,))  # one program per (profile, dtype): fewer compilations

    run()
