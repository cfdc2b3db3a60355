"""Fast JAX path vs the literal NumPy reference for Adds/Muls/Maxs/Mins: whole UB byte for byte,
registers and fault bits, over thousands of random cases run in vmapped batches.

The bulk cases come from the fuzz engine's NumPy generator (``UnaryScalarFamily.generate``: every
call form, Counter mode, special values, deliberately bad addresses); the hypothesis strategy of the
same family (``testing.strategies.unary_scalar_cases``, with shrinking) runs in
``test_hypothesis_families.py``. Drawing 2,000 cases through hypothesis cost more than running them."""

import numpy as np
import pytest
from conftest import SCALE, is_twin

from ascend_jax.fuzz.families.unary_scalar import UnaryScalarFamily
from ascend_jax.profile import available_profiles, load_profile

APIS = ("Adds", "Muls", "Maxs", "Mins")
DEFAULT = load_profile("ascend910b")
# repeat buckets of the default run: a third program per dtype (16) is not worth its compile here;
# nightly (SCALE > 1) runs all three
BUCKETS = (4, 16, 256) if SCALE > 1 else (4, 256)


def _check(profile, api, dtype, n, seed, buckets):
    fam = UnaryScalarFamily(buckets=buckets)
    rng = np.random.default_rng(seed)
    cases = [fam.generate(rng, profile, (api, dtype), 0.1) for _ in range(n)]
    assert {c.form for c in cases} >= (
        {"count"}
        if dtype in profile.api(api).count_only_dtypes
        else {"count", "continuous", "bitwise", "register"}
    )
    fast = fam.run_fast(cases, profile)
    bad = []
    for c, f in zip(cases, fast, strict=True):
        msg = fam.compare(f, fam.run_reference(c, profile))
        if msg:
            bad.append(f"{c.call_repr()}: {msg}")
    assert not bad, f"{profile.name}: {len(bad)} of {n} cases differ:\n" + "\n".join(bad[:10])


# documented dtypes the fast path does not model (none left)
_NOT_MODELLED = ()


def _by_dtype(p, dtypes_of):
    """(dtype, APIs) pairs of profile ``p``: the four APIs share one program per dtype (the op is
    traced), so one test per dtype compiles it once, whichever xdist worker runs the test."""
    out = {}
    for api in APIS:
        a = p.api(api)
        if a.supported:
            for dt in dtypes_of(a):
                if dt not in _NOT_MODELLED:
                    out.setdefault(dt, []).append(api)
    return out


@pytest.mark.parametrize("dtype", list(_by_dtype(DEFAULT, lambda a: a.dtypes)))
def test_differential_default_profile(dtype):
    """100 random cases per API x dtype on the default profile (2,000 x 20 nightly): the first-wave
    APIs have no per-group volume target of their own, and the default run's cost here is the
    reference per case, not compiling (session 21: 200 -> 100 for `make test`'s budget; every call
    form is still drawn, asserted below)."""
    n = 100 if SCALE == 1 else 2000 * SCALE
    for api in _by_dtype(DEFAULT, lambda a: a.dtypes)[dtype]:
        _check(DEFAULT, api, dtype, n, seed=sum(map(ord, api + dtype)), buckets=BUCKETS)


# the product whose types and numerics differ most: every group of it in the default run
ALL_GROUPS_DEFAULT = ("ascend950",)


def _params_all_profiles():
    """(profile, dtype, APIs) groups of every other profile. Default run: every group of
    ALL_GROUPS_DEFAULT, and half the groups of each other product (dtype index + profile index
    even; every product and, across products, every shared type still runs); a twin's groups
    (``behaviour_twins``) and the other half: nightly."""
    out = []
    for pi, name in enumerate(n for n in available_profiles() if n != DEFAULT.name):
        for di, (dt, apis) in enumerate(_by_dtype(load_profile(name), lambda a: a.all_dtypes()).items()):
            nightly = is_twin(name) or (name not in ALL_GROUPS_DEFAULT and (pi + di) % 2)
            slow = (pytest.mark.slow,) if nightly else ()
            out.append(pytest.param(name, dt, apis, id=f"{name}-{dt}", marks=slow))
    return out


@pytest.mark.parametrize("profile_name,dtype,apis", _params_all_profiles())
def test_differential_other_profiles(profile_name, dtype, apis):
    """Every other profile: 30 random cases per API x dtype, 2,000 nightly (the profile decides
    dtypes, numerics, zero-repeat/mask rules, level-2 lowering and mask width)."""
    p = load_profile(profile_name)
    for api in apis:
        _check(
            p,
            api,
            dtype,
            2000 if SCALE > 1 else 30,
            seed=sum(map(ord, profile_name + api + dtype)),
            buckets=(256,),
        )
