"""The element-wise family's fuzz adapter (``ascend_jax.fuzz.families.elementwise``): random cases of
every call form, scalar position and sub-family (binary, unary, flexible scalar, fill) through the
fast path (one vmapped program per signature) and the reference, bit for bit; deliberately invalid
cases rejected by both with the same argument; capsules replay.

The default run is small: ~50 cases per sub-family, one dtype each, repeats kept in one bucket (four
compiled programs). The campaigns (>= 2,000 cases per sub-family, every dtype and bucket) are
``@pytest.mark.slow``.
"""

import json

import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax.reference as ref
from ascend_jax import fuzz
from ascend_jax.fuzz.capsule import make_capsule
from ascend_jax.fuzz.families import NOT_FUZZED, family_of_api
from ascend_jax.fuzz.families.elementwise import API_TABLE, ElementwiseFamily, reps_needed
from ascend_jax.fuzz.generate import registered_apis
from ascend_jax.profile import load_profile
from ascend_jax.testing.traces import max_traces

P = load_profile("ascend910b")
P950 = load_profile("ascend950")

# (sub-family, profile, dtype) of the default run; the flexible-scalar APIs exist on 950 only
SMALL = {
    "binary": (P, "float32"),
    "unary": (P, "half"),
    "flex": (P950, "int16"),
    "fill": (P, "int32"),
}
ONE_BUCKET = 16


def test_every_elementwise_api_has_the_adapter():
    names = set(registered_apis())
    assert set(API_TABLE) <= names
    for api in API_TABLE:
        assert family_of_api(api).name == "elementwise", api
        assert api not in NOT_FUZZED


def _cases(kind, n, seed):
    """``n`` cases of the sub-family on its profile and dtype, valid and deliberately invalid, with
    at most ONE_BUCKET repeats (one compiled program)."""
    p, dt = SMALL[kind]
    fam = ElementwiseFamily(buckets=(ONE_BUCKET,))
    rng = np.random.default_rng(seed)
    apis = [a for a, row in API_TABLE.items() if row.kind == kind]
    units = [u for a in apis for u in fam.units(p, a) if u[1] == dt]
    assert units, (kind, dt)
    out = []
    while len(out) < n:
        unit = units[int(rng.integers(len(units)))]
        c = fam.generate(rng, p, unit, 0.1)
        u = rng.random()
        if u < 0.1:
            c = fam.invalid_data(rng, p, c)[0]
        if reps_needed(c, p.lanes(dt)) <= ONE_BUCKET:
            out.append(c)
    return fam, p, out


@pytest.mark.parametrize("kind", sorted(SMALL))
def test_small_campaign(kind):
    fam, p, cases = _cases(kind, 50, seed=sum(map(ord, kind)))
    with max_traces("batched", 1):
        fast, refs = fam.run_all(cases, p, batch=64, workers=1)
    for c, f, r in zip(cases, fast, refs, strict=True):
        assert fam.compare(f, r) is None, (c.call_repr(), fam.compare(f, r))
    forms = {c.form for c in cases}
    assert {"count", "continuous", "bitwise", "register"} <= forms, forms
    assert any(int(f[0].fault) for f in fast) and any(not int(f[0].fault) for f in fast)
    if kind == "flex":  # both scalar kinds in both positions
        assert {c.position for c in cases} == {"after", "before", "elem_after", "elem_before"}


def test_invalid_static_rejected_by_both():
    """Deliberately invalid static calls of every sub-family (count / repeatTime / strides / T out
    of range): both implementations reject each with a UsageError naming the same argument (the
    engine's ``check_static``; nothing is compiled)."""
    from ascend_jax.fuzz.engine import check_static
    from ascend_jax.fuzz.generate import FuzzCase

    n = 0
    for kind in sorted(SMALL):
        fam, p, cases = _cases(kind, 12, seed=7)
        rng = np.random.default_rng(8)
        for i, c in enumerate(cases):
            bad, what = fam.invalid_static(rng, p, c)
            rec = check_static(FuzzCase(i, c.api, fam, bad, "invalid-static", what, True), p)
            assert rec["status"] == "rejected", rec
            n += 1
    assert n == 48


def test_capsule_and_json_round_trip():
    fam, p, cases = _cases("binary", 4, seed=1)
    for c in cases:
        assert fam.from_json(json.loads(json.dumps(fam.to_json(c)))) == c
    cap = make_capsule(fam, cases[0], p, batch=64)
    assert cap["difference"] is None and cap["call"].startswith(cases[0].api)


def test_element_scalar_is_read_from_ub():
    """Ors<int16, config{0}> with src0 a LocalTensor element (any byte address): every lane of dst
    is ``elem | src1``; the element inside an active dst block is a PARTIAL_OVERLAP fault, past the
    end of UB an OUT_OF_UB fault -- in both implementations."""
    import ascend_jax as aj
    from ascend_jax.errors import Fault
    from ascend_jax.tensor import LocalTensor

    p, n = P950, 128
    rng = np.random.default_rng(3)
    ub = rng.integers(0, 256, 8192, dtype=np.uint8)
    src1, dst = LocalTensor(aj.int16, 1024, n), LocalTensor(aj.int16, 4096, n)
    cfg = aj.BinaryConfig(0)
    for e_addr, fault in ((2001, 0), (4096 + 6, Fault.PARTIAL_OVERLAP), (8191, Fault.OUT_OF_UB)):
        elem = LocalTensor(aj.int16, e_addr, 1)
        st = aj.reset_state(p, ub_bytes=8192).replace(ub=jnp.asarray(ub))
        out = aj.Ors(st, dst, elem, src1, n, profile=p, config=cfg)
        rs = ref.reset_state(p, ub_bytes=8192)
        rs.ub = ub.copy()
        rout = ref.Ors(rs, dst, elem, src1, n, profile=p, config=cfg)
        assert int(out.fault) == int(rout.fault) == int(fault), e_addr
        got = np.asarray(out.ub)
        np.testing.assert_array_equal(got, rout.ub)
        if not fault:
            s = int(ub[e_addr]) | (int(ub[e_addr + 1]) << 8)
            want = ub[1024 : 1024 + 2 * n].view(np.uint16) | np.uint16(s)
            np.testing.assert_array_equal(got[4096 : 4096 + 2 * n].view(np.uint16), want)
        else:
            np.testing.assert_array_equal(got, ub)


def test_element_scalar_misuse_named_by_both():
    """An element scalar of another type than dst, and a scalarTensorIndex outside {0, 1}: both
    implementations raise a UsageError naming the same argument."""
    import ascend_jax as aj
    from ascend_jax.errors import UsageError
    from ascend_jax.tensor import LocalTensor

    p = P950
    dst, src1 = LocalTensor(aj.int16, 4096, 128), LocalTensor(aj.int16, 1024, 128)
    for elem, cfg, arg in (
        (LocalTensor(aj.half, 0, 1), aj.BinaryConfig(0), "src0.dtype"),
        (LocalTensor(aj.int16, 0, 1), 2, "config.scalarTensorIndex"),
    ):
        for mod in (aj, ref):
            with pytest.raises(UsageError) as e:
                mod.Ors(mod.reset_state(p, ub_bytes=8192), dst, elem, src1, 128, profile=p, config=cfg)
            assert e.value.argument == arg, (mod.__name__, e.value)


# -- campaigns (nightly) ---------------------------------------------------------------------------

_APIS = {kind: [a for a, row in API_TABLE.items() if row.kind == kind] for kind in SMALL}


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(SMALL))
@pytest.mark.parametrize("profile", ["ascend910b", "ascend950"])
def test_campaign(kind, profile):
    """>= 2,000 cases per sub-family (every API, dtype, call form, bucket) on the default profile
    and on 950."""
    p = load_profile(profile)
    apis = [a for a in _APIS[kind] if p.api(a).supported]
    if not apis:
        pytest.skip(f"no {kind} API on {profile}")
    res = fuzz.run(apis=apis, profile=p, cases=2000, seed=15, batch=128)
    assert res.ok, res.summary_table()


def test_programs_of_their_own_never_share_a_chunk():
    """float32 Exp / Ln / Rsqrt compile programs of their own (api/unary.py): the adapter's signature
    keeps them apart from the unary family's shared program, and a chunk mixing two compile keys is
    refused instead of running one API's cases in the other's program (kirin9030 campaign, seed 18:
    171 mismatches before the fix)."""
    fam = ElementwiseFamily(buckets=(ONE_BUCKET,))
    rng = np.random.default_rng(5)
    cases = []
    for api in ("Exp", "Abs", "Ln", "Sqrt", "Rsqrt"):
        unit = next(u for u in fam.units(P, api) if u[1] == "float32")
        while sum(c.api == api for c in cases) < 2:
            c = fam.generate(rng, P, unit, 0.0)
            if reps_needed(c, P.lanes("float32")) <= ONE_BUCKET:
                cases.append(c)
    sigs = {c.api: fam.signature(c, P) for c in cases}
    assert sigs["Abs"] == sigs["Sqrt"]
    assert len({sigs[a] for a in ("Exp", "Ln", "Rsqrt", "Abs")}) == 4, sigs
    with pytest.raises(AssertionError, match="mixes compile keys"):
        fam.stack_dyn([cases[0], cases[2]], P)  # Exp with Abs
    mixed = [c for c in cases if c.api in ("Exp", "Abs", "Sqrt")]
    fast, refs = fam.run_all(mixed, P, batch=8, workers=1)
    for c, f, r in zip(mixed, fast, refs, strict=True):
        assert fam.compare(f, r) is None, (c.call_repr(), fam.compare(f, r))
