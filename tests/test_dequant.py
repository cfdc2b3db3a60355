"""Helper deq: CastDequant (复合计算/CastDequant.md) and the vector SetDeqScale(vdeq, vdeqInfo) -- fast path
vs the literal reference, bit for bit (UB bytes, registers, fault word), the page's result example
(tests/data/dequant_examples.json), the element rule against an independent exact model, static misuse
naming the same argument in both implementations, static == traced.

Cheap default run: random cases drawn with NumPy; every case of a group runs in ONE vmapped program with
every parameter traced (int16 -> int8 / uint8 share one program: dst type, isVecDeq, halfBlock traced).
``@pytest.mark.slow``: 2,000 cases per (pair, call form) group on the default profile, every group on
every product that has CastDequant.
"""

import dataclasses
import json
import pathlib
from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax._engine import dequant as DQ
from ascend_jax.api import dequant as API
from ascend_jax.dtypes import as_dtype
from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.fuzz import runner as RUN
from ascend_jax.fuzz.families import dequant as DQF
from ascend_jax.fuzz.families.dequant import config, f32_bits, random_config
from ascend_jax.profile import available_profiles, load_profile
from ascend_jax.reference import dequant as RDQ
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state
from ascend_jax.tensor import LocalTensor

DEFAULT = load_profile("ascend910b")
UB = 8192
RB = 4
EXAMPLES = json.loads((pathlib.Path(__file__).parent / "data/dequant_examples.json").read_text())["examples"]
U64 = as_dtype("uint64")
FAM = DQF.DequantFamily()


# -- the element rule against an independent exact model -----------------------------------------


def exact_s162b8(v, cfg):
    """Exact rationals: the (1,8,10) scale, the float32 rounding of the product (round to 24
    significant bits, nearest even), RINT, the s9 clamp, the offset, the b8 saturation."""
    sbits = cfg & 0xFFFFE000
    e, f, neg = (sbits >> 23) & 0xFF, (sbits >> 13) & 0x3FF, sbits >> 31
    sign = (cfg >> 46) & 1
    off = (cfg >> 37) & 0x1FF
    off = off - 512 if off >= 256 else off
    if e == 255:
        r = 0 if (f or v == 0) else (255 if (v < 0) == bool(neg) else -256)
    else:
        m = (f | 0x400) if e else f
        p = Fraction(v * m * (-1 if neg else 1)) * Fraction(2) ** (max(e, 1) - 137)
        if p:  # float32: 24 significant bits, nearest even (no product here reaches float32's range ends)
            k = p.numerator.bit_length() - p.denominator.bit_length()
            q = abs(p) / Fraction(2) ** (k - 30)
            while q >= 2**24:
                q /= 2
                k += 1
            while q < 2**23:
                q *= 2
                k -= 1
            scale = abs(p) / q
            p = round(q) * scale * (1 if p > 0 else -1)  # round(): nearest even
        r = max(-256, min(255, round(p)))
    t = r + off
    return (max(-128, min(127, t)) if sign else max(0, min(255, t))) & 0xFF


def test_element_rule_matches_an_exact_model():
    """The fast path's integer element function and the reference's NumPy one both equal exact rational
    arithmetic on 6,000 random (int16, configuration) pairs, including ties and specials."""
    rng = np.random.default_rng(7)
    n = 6000
    v = np.where(rng.random(n) < 0.5, rng.integers(-600, 600, n), rng.integers(-32768, 32768, n))
    cfgs = [random_config(rng, bool(rng.integers(0, 2))) for _ in range(n)]
    # ties: x.5 products (scale 0.5 and odd x), k + 0.5 after the float32 rounding
    cfgs[:200] = [config(f32_bits(0.5), int(o), True) for o in rng.integers(-256, 256, 200)]
    lo = jnp.asarray(np.array([c & 0xFFFFFFFF for c in cfgs], np.uint32))
    hi = jnp.asarray(np.array([c >> 32 for c in cfgs], np.uint32))
    fast, _ = jax.jit(DQ.deq_b8)(jnp.asarray((v & 0xFFFF).astype(np.uint32)), lo, hi)
    fast = np.asarray(fast)
    for i in range(n):
        want = exact_s162b8(int(v[i]), cfgs[i])
        ref, _ = RDQ.s162b8(int(v[i]) & 0xFFFF, cfgs[i])
        assert int(fast[i]) == want == ref, (int(v[i]), hex(cfgs[i]), int(fast[i]), want, ref)


# -- the page's result example ----------------------------------------------------------------------


def _state(impl, p, ub):
    if impl is REF:
        st = RS.reset_state(p, ub_bytes=UB)
        st.ub = ub.copy()
        return st
    return reset_state(p, ub_bytes=UB).replace(ub=jnp.asarray(ub))


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e["name"])
@pytest.mark.parametrize("impl", [aj, REF], ids=["fast", "reference"])
def test_page_example(impl, ex):
    """CastDequant.md 调用示例: CastDequant<uint8_t, int16_t, true, true>(dst, src, 256) after a vector
    SetDeqScale of 16 groups (scale 1, offset 0, signMode false: the printed output is the input), and
    the high-dim forms of the page (mask 128 / two all-ones words, repeatTime 2, {1, 1, 8, 8})."""
    p = load_profile(ex.get("profile", "ascend910b"))
    S, T = as_dtype(ex["src_dtype"]), as_dtype(ex["dst_dtype"])
    src = np.asarray(ex["src"], S.np_dtype)
    ub = np.zeros(UB, np.uint8)
    ub[: src.nbytes] = src.view(np.uint8)
    st = _state(impl, p, ub)
    t = ex["table"]
    info = aj.VdeqInfo(vdeqScale=t["scale"], vdeqOffset=t["offset"], vdeqSignMode=t["signMode"])
    st = impl.SetDeqScale(st, LocalTensor(U64, 6144, 16), info, profile=p)
    dst = LocalTensor(T, 2048, len(ex["dst"]))
    kw = dict(profile=p, isVecDeq=ex["isVecDeq"], halfBlock=ex["halfBlock"])
    s = LocalTensor(S, 0, len(src))
    if ex["form"] == "count":
        st = impl.CastDequant(st, dst, s, len(src), **kw)
    elif ex["form"] == "continuous":
        st = impl.CastDequant(st, dst, s, 128, 2, aj.UnaryRepeatParams(1, 1, 8, 8), **kw)
    else:
        st = impl.CastDequant(st, dst, s, [2**64 - 1, 2**64 - 1], 2, aj.UnaryRepeatParams(1, 1, 8, 8), **kw)
    assert int(st.fault) == 0
    got = np.asarray(st.ub)[2048 : 2048 + len(ex["dst"]) * T.itemsize].view(T.np_dtype)
    assert got.tolist() == ex["dst"], got


# -- random cases: the fuzz family's (ascend_jax/fuzz/families/dequant.py) ------------------------------


def _check(cases, p):
    """The cases through the public API vmapped (one program per static key) and the reference."""
    fast, refs = FAM.run_all(cases, p, batch=64, workers=1)
    bad = [
        (c.call_repr(), str(FAM.compare(f, r)))
        for c, f, r in zip(cases, fast, refs, strict=True)
        if FAM.compare(f, r)
    ]
    assert not bad, f"{len(bad)} / {len(cases)} mismatches, first: {bad[:2]}"
    ran = sum(
        int(r[0].fault) == 0 and not np.array_equal(r[0].ub, DQF.make_ub(c))
        for c, r in zip(cases, refs, strict=True)
    )
    assert ran >= len(cases) // 5, f"only {ran} of {len(cases)} cases wrote dst"
    return [f[0] for f in fast]


FORMS = ("count", "continuous", "bitwise", "register")


def groups(p):
    """(src, dst) of every pair the product has."""
    return [tuple(x) for x in API.dequant_pairs(p)] if p.api("CastDequant").supported else []


def _cases(p, pairs, forms, n, seed):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        s, t = pairs[i % len(pairs)]
        out.append(FAM.generate(rng, p, ("CastDequant", t, s, forms[(i // len(pairs)) % len(forms)]), 0.1))
    return out


def test_differential_default():
    """Every pair and call form of the default profile (two programs), static == traced on a sample."""
    cases = _cases(DEFAULT, groups(DEFAULT), FORMS, 192, 1)
    fast = _check(cases, DEFAULT)
    sample = [(c, f) for c, f in zip(cases, fast, strict=True) if c.form == "count"][:4]
    for c, f in sample:
        st = RUN.core_state(RUN.initial_fields(c, DQF.make_ub(c)))
        eager, _ = FAM.call(aj, c, st, DEFAULT)  # Python values: the static call
        assert np.array_equal(np.asarray(eager.ub), np.asarray(f.ub)) and int(eager.fault) == int(f.fault), c


def test_differential_other_products():
    """Every other product with CastDequant, a few cases each: A3, 310P AI Core (int16 only), 950 (the
    8 KB scratch region)."""
    for name in ("ascend910_93", "ascend310p", "ascend950"):
        p = load_profile(name)
        _check(_cases(p, groups(p), FORMS, 48, 2), p)


@pytest.mark.slow
@pytest.mark.parametrize("form", FORMS)
def test_differential_slow(form):
    """2,000 cases per (pair, call form) on the default profile."""
    pairs = groups(DEFAULT)
    _check(_cases(DEFAULT, pairs, (form,), 2000 * len(pairs), 10 + FORMS.index(form)), DEFAULT)


@pytest.mark.slow
@pytest.mark.parametrize("name", available_profiles())
def test_differential_campaign(name):
    p = load_profile(name)
    if groups(p):
        _check(_cases(p, groups(p), FORMS, 300 * len(groups(p)), 30), p)


def test_fuzz_campaign_over_the_dequant_family():
    """``ascend-jax fuzz --apis CastDequant --dtypes half``: the fuzz family's int32 -> half cases
    (DEQSCALE drawn on entry), every call form, valid, data-fault and invalid-static, 0 mismatches."""
    from ascend_jax import fuzz
    from ascend_jax.fuzz.families import family_of_api

    assert family_of_api("CastDequant").name == "dequant"
    res = fuzz.run(
        apis=["CastDequant"], profile=DEFAULT, cases=150, seed=4, invalid_rate=0.3, dtypes=["half"], batch=32
    )
    assert res.ok, res.summary_table()
    assert {r["status"] for r in res.records} == {"ok", "rejected"}


# -- SetDeqScale(vdeq, vdeqInfo) ---------------------------------------------------------------------


def _table_values(rng):
    scales = [float(np.float32(x)) for x in rng.integers(-64, 65, 16) / 8]
    offsets = [int(x) for x in rng.integers(-300, 300, 16)]
    signs = [bool(x) for x in rng.integers(0, 2, 16)]
    return scales, offsets, signs


def test_set_deq_scale_vector_form():
    """Both implementations: the 16 groups packed as 表1 at vdeq (little-endian uint64s), DEQSCALE = the
    address >> 5; a misaligned or outside-UB vdeq faults and writes nothing; traced fields give the same
    bits as Python values."""
    p = DEFAULT
    rng = np.random.default_rng(3)
    for addr in (0, 4096, 8192 - 128, 8192 - 96, 4100, 8192):
        scales, offsets, signs = _table_values(rng)
        info = aj.VdeqInfo(vdeqScale=scales, vdeqOffset=offsets, vdeqSignMode=signs)
        vdeq = LocalTensor(U64, addr, 16)
        f = aj.SetDeqScale(reset_state(p, ub_bytes=UB), vdeq, info, profile=p)
        r = REF.SetDeqScale(RS.reset_state(p, ub_bytes=UB), vdeq, info, profile=p)
        fw = np.asarray(f.deqscale)
        assert np.array_equal(np.asarray(f.ub), r.ub) and int(f.fault) == int(r.fault), addr
        assert int(fw[0]) | (int(fw[1]) << 32) == r.deqscale, addr
        if addr % 32 or addr + 128 > UB:
            assert int(r.fault) & (Fault.MISALIGNED | Fault.OUT_OF_UB) and not r.ub.any()
            continue
        want = [config(f32_bits(s), o, g) for s, o, g in zip(scales, offsets, signs, strict=True)]
        assert r.ub[addr : addr + 128].view(np.uint64).tolist() == want
        assert r.deqscale == addr >> 5
        traced = aj.VdeqInfo(
            vdeqScale=jnp.asarray(scales, jnp.float32),
            vdeqOffset=jnp.asarray(offsets, jnp.int32),
            vdeqSignMode=jnp.asarray(signs),
        )
        g = jax.jit(lambda s, i, v=vdeq: aj.SetDeqScale(s, v, i, profile=p))(
            reset_state(p, ub_bytes=UB), traced
        )
        assert np.array_equal(np.asarray(g.ub), r.ub) and np.array_equal(np.asarray(g.deqscale), fw)


# -- misuse names the same argument in both implementations -----------------------------------------


def _both(fast, ref, exc, match):
    with pytest.raises(exc, match=match):
        fast()
    with pytest.raises(exc, match=match):
        ref()


def test_error_names():
    h, i8, u8, i16, i32, u32 = (as_dtype(x) for x in ("half", "int8", "uint8", "int16", "int32", "uint32"))
    d8, s16 = LocalTensor(i8, 4096, 256), LocalTensor(i16, 0, 256)
    info = aj.VdeqInfo(vdeqScale=[1.0] * 16, vdeqOffset=[0] * 16, vdeqSignMode=[True] * 16)
    rows = [
        ("ascend910b", "CastDequant", (LocalTensor(h, 4096, 256), s16, 256), {}, UnsupportedError, "int16->half"),
        ("ascend910b", "CastDequant", (d8, s16, 256), {"isVecDeq": 1}, UsageError, "isVecDeq"),
        ("ascend910b", "CastDequant", (d8, s16, 256), {"halfBlock": "yes"}, UsageError, "halfBlock"),
        ("ascend910b", "CastDequant", (d8, s16, 256), {"isSetMask": 0}, UsageError, "isSetMask"),
        ("ascend910b", "CastDequant", (np.zeros(4), s16, 256), {}, UsageError, "dst"),
        ("ascend310p", "CastDequant", (LocalTensor(h, 4096, 64), LocalTensor(i32, 0, 64), 64), {},
         UnsupportedError, "int32->half"),
        ("ascend910", "CastDequant", (d8, s16, 256), {}, UnsupportedError, "CastDequant"),
        ("ascend310b", "CastDequant", (LocalTensor(u8, 4096, 256), s16, 256), {}, UnsupportedError, "CastDequant"),
        ("ascend910b", "SetDeqScale", (LocalTensor(u32, 0, 32), info), {}, UnsupportedError, "dtype"),
        ("ascend910b", "SetDeqScale", (LocalTensor(U64, 0, 8), info), {}, UsageError, "vdeq"),
        ("ascend910b", "SetDeqScale", (LocalTensor(U64, 0, 16), (1.0,) * 16), {}, UsageError, "vdeqInfo"),
        ("ascend910b", "SetDeqScale", (LocalTensor(U64, 0, 16), dataclasses.replace(info, vdeqScale=[1.0] * 15)),
         {}, UsageError, "vdeqInfo.vdeqScale"),
        ("ascend910b", "SetDeqScale", (LocalTensor(U64, 0, 16), dataclasses.replace(info, vdeqOffset=[1 << 16] * 16)),
         {}, UsageError, "vdeqInfo.vdeqOffset"),
        ("ascend910b", "SetDeqScale", (LocalTensor(U64, 0, 16), dataclasses.replace(info, vdeqSignMode=[1] * 16)),
         {}, UsageError, "vdeqInfo.vdeqSignMode"),
    ]  # fmt: skip
    for prof, api, args, kw, exc, match in rows:
        _both(
            lambda a=args, k=kw, n=api, q=prof: getattr(aj, n)(reset_state(q), *a, profile=q, **k),
            lambda a=args, k=kw, n=api, q=prof: getattr(REF, n)(RS.reset_state(q), *a, profile=q, **k),
            exc,
            match,
        )


def test_sign_mode_mismatch_is_a_fault():
    """T int8 with signMode 0 (or uint8 with 1) on an active lane: BAD_PARAM in both, nothing written."""
    p = DEFAULT
    i8, i16 = as_dtype("int8"), as_dtype("int16")
    for impl in (aj, REF):
        st = impl.reset_state(p) if impl is REF else reset_state(p)
        st = impl.SetDeqScale(st, 1.0, 0, False, profile=p)
        out = impl.CastDequant(st, LocalTensor(i8, 4096, 256), LocalTensor(i16, 0, 128), 128, profile=p,
                               isVecDeq=False)  # fmt: skip
        assert int(out.fault) & Fault.BAD_PARAM and not np.asarray(out.ub).any()


def test_checker_marks_the_bytes_written():
    """With the uninitialised-read checker on: SetDeqScale(vdeq, ...) marks its 128 bytes, CastDequant
    int16 -> uint8 marks exactly the dst half-block bytes of its active lanes (not the other half); a
    source never written is an UNINIT warning naming CastDequant."""
    p = DEFAULT
    u8, i16 = as_dtype("uint8"), as_dtype("int16")
    st = reset_state(p, ub_bytes=UB, check_uninit=True)
    info = aj.VdeqInfo(vdeqScale=[1.0] * 16, vdeqOffset=[0] * 16, vdeqSignMode=[False] * 16)
    st = aj.SetDeqScale(st, LocalTensor(U64, 6144, 16), info, profile=p)
    assert np.asarray(st.written)[6144:6272].all() and np.asarray(st.written).sum() == 128
    st = aj.CastDequant(
        st, LocalTensor(u8, 2048, 64), LocalTensor(i16, 0, 32), 20, profile=p, halfBlock=False
    )
    w = np.asarray(st.written)[2048:2112]
    assert w[:16].all() and not w[16:32].any() and w[32:36].all() and not w[36:].any()
    assert (
        int(st.fault) == 0 and int(st.warn) != 0 and "CastDequant" in aj.checks.describe(st.warn, st.warn_at)
    )


@pytest.mark.parametrize("impl", [aj, REF], ids=["fast", "reference"])
def test_set_deq_scale_page_examples(impl):
    """SetDeqScale.md 调用示例, each "// dst = src" with its 256 int16 inputs inside int8's range: the scalar
    form + CastDequant<int8_t, int16_t, false, false> (results in the lower half of each dst block), the
    vector form (16 groups: scale 1, offset 0, signMode true) + CastDequant<int8_t, int16_t, true, true>
    (upper half); and SetDeqScale(half 1.0) + Cast int32 -> half (CAST_NONE)."""
    p = DEFAULT
    i8, i16, i32, h = (as_dtype(x) for x in ("int8", "int16", "int32", "half"))
    src = np.random.default_rng(4).integers(-128, 128, 256)
    ub = np.zeros(UB, np.uint8)
    ub[:512] = src.astype(np.int16).view(np.uint8)
    ub[1024:2048] = src.astype(np.int32).view(np.uint8)
    dst = LocalTensor(i8, 2048, 512)
    for vec, lower in ((False, True), (True, False)):
        st = _state(impl, p, ub)
        if vec:
            info = aj.VdeqInfo(vdeqScale=[1.0] * 16, vdeqOffset=[0] * 16, vdeqSignMode=[True] * 16)
            st = impl.SetDeqScale(st, LocalTensor(U64, 6144, 16), info, profile=p)
        else:
            st = impl.SetDeqScale(st, 1.0, 0, True, profile=p)
        st = impl.CastDequant(
            st, dst, LocalTensor(i16, 0, 256), 256, profile=p, isVecDeq=vec, halfBlock=not lower
        )
        blocks = np.asarray(st.ub)[2048:2560].view(np.int8).reshape(16, 32)
        half, other = (blocks[:, :16], blocks[:, 16:]) if lower else (blocks[:, 16:], blocks[:, :16])
        assert int(st.fault) == 0 and half.reshape(-1).tolist() == src.tolist() and not other.any()
    st = impl.SetDeqScale(_state(impl, p, ub), 1.0, profile=p)
    st = impl.Cast(st, LocalTensor(h, 4096, 256), LocalTensor(i32, 1024, 256), "CAST_NONE", 256, profile=p)
    assert np.asarray(st.ub)[4096:4608].view(np.float16).tolist() == src.astype(np.float16).tolist()
