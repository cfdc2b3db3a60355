"""int4b_t (issue 33 item 1): the 4-bit type as Ascend C packs it, ReinterpretCast / GetSize, and the
Cast pairs of each product's table that involve it, fast path vs reference.

Nibble order (CHOICE, docs/MODEL.md "int4b_t"): element 2k is the low nibble of byte k (the vendor
cast sample's golden). Call-level random campaigns reuse the Cast differential harness
(tests/test_cast_differential.py): every call form, Normal / Counter mode, addresses, strides, CTRL
saturation, byte pairs split by the registers (BAD_MASK in both).
"""

import numpy as np
import pytest
import test_cast_differential as CD  # the Cast differential harness (same folder)

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax.errors import NotModelledError, UsageError
from ascend_jax.profile import load_profile
from ascend_jax.reference import cast as RC
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state

P910B = load_profile("ascend910b")
P950 = load_profile("ascend950")

# (profile, src, dst) of every int4b_t pair of the Cast tables (Cast.md 数据类型)
INT4_PAIRS = [
    ("ascend910b", "half", "int4b"),
    ("ascend910b", "int4b", "half"),
    ("ascend910_93", "half", "int4b"),
    ("ascend910_93", "int4b", "half"),
    ("ascend310p", "half", "int4b"),
    ("ascend950", "half", "int4b"),
    ("ascend950", "int16", "int4b"),
    ("ascend950", "int4b", "int16"),
    ("ascend950", "int4b", "half"),
    ("ascend950", "int4b", "bfloat16"),
]


def test_dtype_and_tensor_views():
    d = aj.int4b_t
    assert d is aj.int4b and d.bits == 4 and d.cpp == "int4b_t" and aj.as_dtype("int4b_t") is d
    assert aj.as_dtype(np.int8) is aj.int8  # NumPy lookup never yields the 4-bit type
    with pytest.raises(TypeError):
        d.itemsize  # noqa: B018 -- a byte-counting path that does not handle half a byte
    y = aj.LocalTensor(aj.int8, 64, 256)
    v = y.ReinterpretCast(aj.int4b_t)
    # SPEC: "一个int4b_t只占半个字节，故申请Tensor空间时，只需申请相同数量的int8_t数据空间的一半"
    assert v.GetSize() == 512 and v.nbytes == 256 and v.GetLength() == 256 and v.addr == 64
    back = v.ReinterpretCast(aj.half)
    assert back.GetSize() == 128 and back.nbytes == 256
    assert v[6].addr == 67 and v[6].GetSize() == 506
    with pytest.raises(UsageError):
        v[3]  # an odd element has no byte address
    with pytest.raises(UsageError):
        aj.LocalTensor(aj.int4b_t, 0, 3).ReinterpretCast(aj.int8)  # 12 bits are not whole int8s


def test_profiles_list_the_pairs():
    for name, s, t in INT4_PAIRS:
        assert (s, t) in RC.parse_pairs(load_profile(name)), (name, s, t)
    assert RC.parse_pairs(P910B)[("half", "int4b")][0] == {"RINT", "FLOOR", "CEIL", "ROUND", "TRUNC", "NONE"}
    assert RC.parse_pairs(load_profile("ascend310p"))[("half", "int4b")][0] == {"NONE"}
    for name in ("ascend310b", "ascend910", "kirinx90"):
        assert not any("int4b" in s + t for s, t in RC.parse_pairs(load_profile(name)))


@pytest.mark.parametrize("name,s,t", INT4_PAIRS, ids=[f"{a}-{b}-{c}" for a, b, c in INT4_PAIRS])
def test_element_level_every_mode(name, s, t):
    """Every 4-bit / 16-bit source pattern class, every round mode and both CTRL saturation modes:
    the fast path's element function == the reference's lane function."""
    p = load_profile(name)
    modes = CD._modes_of(p, (s, t))
    CD._element_check(p, 256, 3, pairs=[(s, t, modes)])


@pytest.mark.parametrize("name,s,t", INT4_PAIRS, ids=[f"{a}-{b}-{c}" for a, b, c in INT4_PAIRS])
def test_call_level_random_cases(name, s, t):
    """Random calls of every form, one vmapped program per pair, vs the reference (UB, registers,
    fault word). Some cases split a byte's two lanes through the registers: BAD_MASK in both."""
    p = load_profile(name)
    cases = CD._pair_cases(p, s, t, CD._modes_of(p, (s, t)), 48, 7 + len(name + s))
    fast = CD._check(cases, p)
    assert sum(int(f.fault) == 0 for f in fast) >= 10


@pytest.mark.slow
@pytest.mark.parametrize("name,s,t", INT4_PAIRS, ids=[f"{a}-{b}-{c}" for a, b, c in INT4_PAIRS])
def test_call_level_random_cases_slow(name, s, t):
    p = load_profile(name)
    CD._check(CD._pair_cases(p, s, t, CD._modes_of(p, (s, t)), 2000, 99 + len(name + t)), p)


def _run_both(p, x_half, mode, args, dst_len=256):
    """half -> int4b_t of ``x_half`` (at UB 0) into an int8 tensor at 1024 viewed as int4b_t."""
    st = reset_state(p, ub_bytes=8192)
    ub = np.zeros(8192, np.uint8)
    ub[: 2 * x_half.size] = x_half.view(np.uint8)
    import jax.numpy as jnp

    st = st.replace(ub=jnp.asarray(ub))
    src = aj.LocalTensor(aj.half, 0, x_half.size)
    dst = aj.LocalTensor(aj.int8, 1024, dst_len).ReinterpretCast(aj.int4b_t)
    f = aj.Cast(st, dst, src, mode, *args, profile=p)
    r0 = RS.reset_state(p, ub_bytes=8192)
    r0.ub = ub.copy()
    r = REF.Cast(r0, dst, src, mode, *args, profile=p)
    return f, r


def test_precision_conversion_example_and_nibble_order():
    """precision_conversion.md "half → int4b_t": 1.5 gives RINT 2, FLOOR 1, CEIL 2, ROUND 2, TRUNC 1;
    element 2k is the low nibble of byte k (the vendor golden's packing)."""
    x = np.array([1.5, -3.0] + [0.0] * 126, np.float16)
    want = {"CAST_RINT": 2, "CAST_FLOOR": 1, "CAST_CEIL": 2, "CAST_ROUND": 2, "CAST_TRUNC": 1}
    for mode, v in want.items():
        f, r = _run_both(P910B, x, mode, (128,))
        assert int(f.fault) == 0 and r.fault == 0
        assert np.array_equal(np.asarray(f.ub), r.ub)
        assert int(r.ub[1024]) == (v & 0xF) | (0xD << 4), mode  # -3 = 0xD in the high nibble
        assert not r.ub[1025 : 1024 + 64].any()


def test_vendor_sample_shape_saturates_and_matches_the_golden_rule():
    """Cast.md's int4b_t call example shape ({1, 1, 2, 8}, mask 128) on values outside [-8, 7]:
    saturated ("溢出默认按照饱和模式处理"), as the vendor gen_data.py clips."""
    rng = np.random.default_rng(4)
    x = rng.uniform(-40, 40, 512).astype(np.float16)
    x[:6] = [np.inf, -np.inf, np.nan, 7.5, -8.5, 65504]
    f, r = _run_both(P910B, x, "CAST_CEIL", (128, 4, aj.UnaryRepeatParams(1, 1, 2, 8)))
    assert int(f.fault) == 0 and np.array_equal(np.asarray(f.ub), r.ub)
    o = 0xF & np.clip(np.ceil(np.nan_to_num(x, nan=0.0, posinf=7, neginf=-8)), -8, 7).astype(np.int8)
    gold = (o[::2] | (o[1::2] << 4)).astype(np.uint8)
    assert np.array_equal(r.ub[1024:1280], gold)


@pytest.mark.parametrize(
    "args,argument",
    [((127,), "count"), ((127, 1, aj.UnaryRepeatParams(1, 1, 2, 8)), "mask")],
    ids=["odd-count", "odd-continuous-mask"],
)
def test_odd_count_or_mask_is_a_usage_error_in_both(args, argument):
    """SPEC: "当dst或src为int4b_t时，...连续模式的mask与...count必须为偶数" (Cast.md 约束说明)."""
    x = np.zeros(256, np.float16)
    names = []
    for run in (aj.Cast, REF.Cast):
        st = reset_state(P910B) if run is aj.Cast else RS.reset_state(P910B)
        src = aj.LocalTensor(aj.half, 0, 256)
        dst = aj.LocalTensor(aj.int8, 1024, 128).ReinterpretCast(aj.int4b_t)
        with pytest.raises(UsageError) as e:
            run(st, dst, src, "CAST_RINT", *args, profile=P910B)
        names.append(e.value.argument)
    assert names == [argument, argument]
    del x


def test_split_byte_pair_in_a_bitwise_mask_is_bad_mask_in_both():
    """The bitwise rule ("对应同一字节的相邻两个比特位的数值必须一致") is checked on the active lanes at
    run time (the words may be a Counter-mode count): BAD_MASK, nothing written."""
    x = np.arange(128, dtype=np.float16)
    f, r = _run_both(P910B, x, "CAST_RINT", ([0b01, 0], 1, aj.UnaryRepeatParams(1, 1, 2, 8)))
    assert int(f.fault) == int(aj.Fault.BAD_MASK) == r.fault
    f, r = _run_both(P910B, x, "CAST_RINT", ([0b11, 0], 1, aj.UnaryRepeatParams(1, 1, 2, 8)))
    assert int(f.fault) == 0 == r.fault and r.ub[1024] == 0x10 and np.array_equal(np.asarray(f.ub), r.ub)


# 950's other sub-byte / 8-bit float pairs (Cast.md 950 table): listed, NotModelledError in both
NOT_MODELLED_950 = [
    ("fp4x2_e2m1", "bfloat16", "CAST_NONE"),
    ("fp4x2_e1m2", "bfloat16", "CAST_NONE"),
    ("hifloat8", "half", "CAST_NONE"),
    ("hifloat8", "float32", "CAST_NONE"),
    ("fp8_e5m2", "float32", "CAST_NONE"),
    ("fp8_e4m3fn", "float32", "CAST_NONE"),
    ("half", "hifloat8", "CAST_ROUND"),
    ("half", "hifloat8", "CAST_HYBRID"),
    ("bfloat16", "fp4x2_e2m1", "CAST_RINT"),
    ("bfloat16", "fp4x2_e1m2", "CAST_TRUNC"),
    ("float32", "hifloat8", "CAST_HYBRID"),
    ("float32", "fp8_e5m2", "CAST_RINT"),
    ("float32", "fp8_e4m3fn", "CAST_RINT"),
]


@pytest.mark.parametrize("s,t,mode", NOT_MODELLED_950, ids=[f"{a}-{b}-{m}" for a, b, m in NOT_MODELLED_950])
def test_other_950_pairs_raise_not_modelled_in_both(s, t, mode):
    S, T = aj.as_dtype(s), aj.as_dtype(t)
    assert (s, t) in RC.parse_pairs(P950)
    for run in (aj.Cast, REF.Cast):
        st = reset_state(P950) if run is aj.Cast else RS.reset_state(P950)
        with pytest.raises(NotModelledError, match=f"{S.cpp} -> {T.cpp}"):
            run(st, aj.LocalTensor(T, 4096, 256), aj.LocalTensor(S, 0, 256), mode, 64, profile=P950)
    # a mode the table does not list stays a UsageError naming roundMode
    with pytest.raises(UsageError):
        aj.Cast(reset_state(P950), aj.LocalTensor(T, 4096, 256), aj.LocalTensor(S, 0, 256), "CAST_ODD", 64,
                profile=P950)  # fmt: skip
