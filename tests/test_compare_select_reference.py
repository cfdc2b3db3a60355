"""The NumPy reference of the compare/select family alone: the seed examples
(../shared/conformance/seed_cases) and hand-computed cases from the 比较与选择 page text. Expected
values come from the seeds or from NumPy written here, never from either implementation."""

import json
from pathlib import Path

import numpy as np
import pytest

from ascend_jax import reference as ref
from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.params import BinaryRepeatParams, UnaryRepeatParams
from ascend_jax.tensor import MASK_PLACEHOLDER, LocalTensor

BRP, URP = BinaryRepeatParams, UnaryRepeatParams
SEEDS = Path(__file__).resolve().parent / "data" / "seed_cases"  # numbers from ../shared/conformance
UB = 16384
A0, A1, ASEL, ADST = 0, 1024, 2048, 4096
LT, GT, EQ, LE, GE, NE = range(6)


def seed(name):
    path = SEEDS / f"{name}.json"
    if not path.is_file():
        pytest.skip(f"seed case {path} not available")
    return json.loads(path.read_text(encoding="utf-8"))


def state_with(placements, profile="ascend910b", fill=0, ub_bytes=UB):
    st = ref.reset_state(profile, ub_bytes=ub_bytes)
    st.ub[:] = fill
    for addr, arr in placements:
        raw = np.ascontiguousarray(arr).view(np.uint8).reshape(-1)
        st.ub[addr : addr + raw.size] = raw
    return st


def read(st, addr, np_dtype, n):
    return st.ub[addr : addr + n * np.dtype(np_dtype).itemsize].copy().view(np_dtype)


def bits_of(values):
    return np.packbits(np.asarray(values, bool), bitorder="little")


def T(dtype, addr, n):
    return LocalTensor(dtype, addr, n)


# ------------------------------------------------------------------------------------------------
# Seeds


def _select_state(d, profile="ascend910b"):
    inp = d["inputs"]
    pl = [(A0, np.array(inp["src0"], np.float32)), (ASEL, np.array(inp["selMask"], np.uint8))]
    if "src1" in inp:
        pl.append((A1, np.array(inp["src1"], np.float32)))
    return state_with(pl, profile)


def _expect_dst(d, out):
    assert out.fault == 0
    exp = np.array(d["expected"]["dst"], np.float32)
    np.testing.assert_array_equal(read(out, ADST, np.uint32, 256), exp.view(np.uint32))


@pytest.mark.parametrize("profile", ["ascend910b", "ascend950", "ascend310b", "ascend310p", "kirinx90"])
def test_seed_select_mode2(profile):
    d = seed("Select_1")
    out = ref.Select(
        _select_state(d, profile),
        T("float32", ADST, 256),
        T("uint8", ASEL, 32),
        T("float32", A0, 256),
        T("float32", A1, 256),
        2,
        64,
        4,
        BRP(),
        profile=profile,
    )
    _expect_dst(d, out)


@pytest.mark.parametrize("profile", ["ascend910b", "ascend950", "kirin9030"])
@pytest.mark.parametrize("form", ["count", "mask"])
def test_seed_select_mode1(profile, form):
    d = seed("Select_2")
    args = (256,) if form == "count" else (64, 4, BRP())
    out = ref.Select(
        _select_state(d, profile),
        T("float32", ADST, 256),
        T("uint8", ASEL, 32),
        T("float32", A0, 256),
        0.0,
        1,
        *args,
        profile=profile,
    )
    _expect_dst(d, out)


@pytest.mark.parametrize("args", [(256,), (64, 4, BRP()), ([2**64 - 1, 0], 4, BRP())])
@pytest.mark.parametrize("profile", ["ascend910b", "ascend910", "ascend310p"])
def test_seed_select_mode0_reuses_first_bits(args, profile):
    d = seed("Select_3")
    out = ref.Select(
        _select_state(d, profile),
        T("float32", ADST, 256),
        T("uint8", ASEL, 128),
        T("float32", A0, 256),
        T("float32", A1, 256),
        0,
        *args,
        profile=profile,
    )
    _expect_dst(d, out)


@pytest.mark.parametrize("mode", [0, 2])
def test_seed_select_mask_filter_text(mode):
    """selMask [0,0,0,0,1,1,1,1], mask [1,1,1,1,0,0,0,0], dst [-1..-8] -> [9,10,11,12,-5,-6,-7,-8]."""
    d = seed("Select_4")
    inp = d["inputs"]

    def arr(v, fill, dt):
        return np.array([x if x is not None else fill for x in v], dt)

    st = state_with(
        [
            (A0, arr(inp["src0"], 100.0, np.float32)),
            (A1, arr(inp["src1"], 200.0, np.float32)),
            (ASEL, arr(inp["selMask"], 0, np.uint8)),
            (ADST, arr(inp["dst_init"], -100.0, np.float32)),
        ]
    )
    ops = (T("float32", ADST, 64), T("uint8", ASEL, 8), T("float32", A0, 64), T("float32", A1, 64))
    out = ref.Select(st, *ops, mode, d["params"]["mask"], 1, BRP(), profile="ascend910b")
    np.testing.assert_array_equal(
        read(out, ADST, np.float32, 8), np.array(d["expected"]["dst"][:8], np.float32)
    )
    out = ref.Select(st, *ops, mode, 8, 1, BRP(), profile="ascend910b")
    np.testing.assert_array_equal(
        read(out, ADST, np.float32, 8), np.array(d["expected"]["dst_temp"][:8], np.float32)
    )


@pytest.mark.parametrize("api", ["Compares", "CompareScalar"])
@pytest.mark.parametrize("args", [(256,), (64, 4, URP()), ([2**64 - 1, 0], 4, URP())])
@pytest.mark.parametrize("profile", ["ascend910b", "ascend950", "ascend310p", "ascend310b", "kirinx90"])
def test_seed_compares_lt(api, args, profile):
    d = seed("Compares_1")
    st = state_with([(A0, np.array(d["inputs"]["src0"], np.float32))], profile)
    scalar = float(np.float32(d["inputs"]["src1Scalar"][0]))
    out = getattr(ref, api)(
        st, T("uint8", ADST, 32), T("float32", A0, 256), scalar, LT, *args, profile=profile
    )
    assert out.fault == 0
    assert read(out, ADST, np.uint8, 32).tolist() == d["expected"]["dst"]


# ------------------------------------------------------------------------------------------------
# Page examples (比较与选择/Compare.md, Compare（结果存入寄存器）.md, GetCmpMask(ISASI).md)

CMP_SRC0 = np.repeat(np.array([2, 3, 5, 7, 11, 13, 17, 19], np.float32), 8)
CMP_SRC1 = np.repeat(np.array([2, 4, 6, 8, 10, 12, 14, 16], np.float32), 8)
SHORT0 = np.tile(np.array([2, 3, 5, 7, 11, 13, 17, 19], np.float32), 8)
SHORT1 = np.tile(np.array([2, 4, 6, 8, 10, 12, 14, 16], np.float32), 8)


def _compare(profile, x, y, mode, *args, fill=0):
    st = state_with([(A0, x), (A1, y)], profile, fill=fill)
    return ref.Compare(
        st, T("uint8", ADST, 64), T("float32", A0, 64), T("float32", A1, 64), mode, *args, profile=profile
    )


@pytest.mark.parametrize("mode,byte0", [(GT, 240), (GE, 241), (LE, 15), (EQ, 1)])
@pytest.mark.parametrize("profile", ["ascend910b", "ascend910", "ascend950", "ascend310b"])
def test_compare_page_count_examples(mode, byte0, profile):
    out = _compare(profile, SHORT0, SHORT1, mode, 64)
    assert out.fault == 0
    assert read(out, ADST, np.uint8, 8).tolist() == [byte0] * 8


def test_compare_page_lt_ne_examples_are_doc_errors():
    """Known doc errors: LT prints [0 127 127 127 0 0 0 0], NE prints 126; the inputs give 255 / 254."""
    got = read(_compare("ascend910b", CMP_SRC0, CMP_SRC1, LT, 64), ADST, np.uint8, 8).tolist()
    assert got != [0, 127, 127, 127, 0, 0, 0, 0]
    assert got == [0, 255, 255, 255, 0, 0, 0, 0]
    got = read(_compare("ascend910b", SHORT0, SHORT1, NE, 64), ADST, np.uint8, 1)[0]
    assert got != 126 and got == 254


@pytest.mark.parametrize("profile", ["ascend950", "ascend310b"])
def test_compare_page_bitwise_mask(profile):
    out = _compare(profile, CMP_SRC0, CMP_SRC1, LE, [0x33333333, 0], 1, BRP(1, 1, 1, 1, 8, 8), fill=0xAA)
    if profile == "ascend950":  # 950 bitwise masks have four words
        out = _compare(
            profile, CMP_SRC0, CMP_SRC1, LE, [0x33333333, 0, 0, 0], 1, BRP(1, 1, 1, 1, 8, 8), fill=0xAA
        )
    assert out.fault == 0
    assert read(out, ADST, np.uint8, 16).tolist() == [51] * 4 + [0] * 4 + [0xAA] * 8


@pytest.mark.parametrize("profile", ["ascend910b", "ascend910_93", "ascend310p", "ascend910", "kirinx90"])
def test_compare_mask_ignored(profile):
    out = _compare(profile, CMP_SRC0, CMP_SRC1, LE, [0x33333333, 0], 1, BRP(1, 1, 1, 1, 8, 8))
    assert read(out, ADST, np.uint8, 8).tolist() == [255] * 4 + [0] * 4


def test_compare_continuous_mask_28_is_a_doc_error():
    """Known doc error: mask 28, LE prints [127 127 127 16 ...]; the data give [255 255 255 15 ...]."""
    out = _compare("ascend950", CMP_SRC0, CMP_SRC1, LE, 28, 1, BRP(1, 1, 1, 1, 8, 8))
    got = read(out, ADST, np.uint8, 8).tolist()
    assert got[:4] != [127, 127, 127, 16]
    assert got == [255, 255, 255, 15, 0, 0, 0, 0]


def test_compare_cmpmask_and_getcmpmask():
    rng = np.random.default_rng(1)
    x = rng.normal(size=64).astype(np.float32) * 50
    y = rng.normal(size=64).astype(np.float32) * 50
    st = state_with([(A0, x), (A1, y)], fill=0x55)
    out = ref.Compare(st, T("float32", A0, 64), T("float32", A1, 64), LT, 64, BRP(), profile="ascend910b")
    assert out.fault == 0
    out = ref.GetCmpMask(out, T("uint8", ADST, 128), profile="ascend910b")
    assert read(out, ADST, np.uint8, 16).tolist() == bits_of(x < y).tolist() + [0] * 8
    assert read(out, ADST + 16, np.uint8, 8).tolist() == [0x55] * 8


def test_getcmpmask_page_example_is_a_doc_error():
    """Known doc error: 256 printed in a uint8 dst; 1..64 < 2..65 gives 255 in every byte."""
    x = np.arange(1, 65, dtype=np.float32)
    st = state_with([(A0, x), (A1, x + 1)])
    out = ref.Compare(st, T("float32", A0, 64), T("float32", A1, 64), LT, 64, BRP(), profile="ascend910b")
    out = ref.GetCmpMask(out, T("uint8", ADST, 128), profile="ascend910b")
    assert read(out, ADST, np.uint8, 8).tolist() == [255] * 8


def test_setcmpmask_flows():
    """SetCmpMask.md flows: mode 2 via an address in CMPMASK, mode 0 via CMPMASK bits, mode 1 via the
    scalar in CMPMASK; lanes from SetVectorMask."""
    d1, d2, d3 = seed("Select_1"), seed("Select_2"), seed("Select_3")
    st = _select_state(d1)
    st.ub[3072:3104] = np.full(8, ASEL, np.uint32).view(np.uint8)
    p = "ascend910b"
    dst, s0, s1, sel = (
        T("float32", ADST, 256),
        T("float32", A0, 256),
        T("float32", A1, 256),
        T("uint8", ASEL, 32),
    )
    t = ref.SetVectorMask(ref.SetCmpMask(st, T("int32", 3072, 8), profile=p), "float32", 64, profile=p)
    _expect_dst(d1, ref.Select(t, dst, s0, s1, 4, BRP(), selMode=2, profile=p))
    t = ref.SetVectorMask(ref.SetCmpMask(st, sel, profile=p), "float32", 64, profile=p)
    _expect_dst(d3, ref.Select(t, dst, s0, s1, 4, BRP(), selMode=0, profile=p))
    t = ref.SetVectorMask(ref.SetCmpMask(st, T("float32", 3328, 8), profile=p), "float32", 64, profile=p)
    _expect_dst(d2, ref.Select(t, dst, sel, s0, 4, BRP(), profile=p))


# ------------------------------------------------------------------------------------------------
# Hand-computed rules


def test_numerics_nan_zero_inf_and_flush():
    vals = np.array([np.nan, 0.0, -0.0, np.inf, -np.inf, 1e-45, 1.0, 1.0], np.float32)
    other = np.array([np.nan, -0.0, 0.0, np.inf, np.inf, 0.0, 1.0, np.nan], np.float32)
    x = np.resize(vals, 64)
    y = np.resize(other, 64)
    for profile, ftz in (("ascend910b", False), ("ascend950", True)):
        fx, fy = x.astype(np.float64), y.astype(np.float64)
        if ftz:
            fx = np.where(np.abs(fx) < 2.0**-126, 0.0, fx)
        for mode, op in ((EQ, np.equal), (NE, np.not_equal), (LT, np.less), (GE, np.greater_equal)):
            out = _compare(profile, x, y, mode, 64)
            with np.errstate(invalid="ignore"):
                assert read(out, ADST, np.uint8, 8).tolist() == bits_of(op(fx, fy)).tolist()


def test_count_tail_dropped_vs_computed_without_alignment_rule():
    import dataclasses

    from ascend_jax.profile import load_profile

    for name, tail in (("ascend910b", "dropped"), ("ascend950", "computed")):
        p = load_profile(name)
        apis = []
        for a in p.apis:
            if a.name == "Compares":
                a = dataclasses.replace(
                    a, extra=tuple(kv for kv in a.extra if kv[0] != "count_alignment_bytes")
                )
            apis.append(a)
        p = dataclasses.replace(p, apis=tuple(apis))
        x = np.linspace(-50, 50, 128).astype(np.float32)
        st = state_with([(A0, x)], p, fill=0xAA)
        out = ref.Compares(st, T("uint8", ADST, 32), T("float32", A0, 128), 0.0, GT, 100, profile=p)
        exp = np.full(24, 0xAA, np.uint8)
        exp[:8] = bits_of(x[:64] > 0)
        if tail == "computed":
            exp[8:16] = bits_of((x[64:] > 0) & (np.arange(64, 128) < 100))
        np.testing.assert_array_equal(read(out, ADST, np.uint8, 24), exp)


def test_bit_output_overlap_faults():
    st = state_with([])
    x = T("float32", A0, 256)
    assert (
        ref.Compares(st, T("uint8", A0, 32), x, 1.0, LT, 256, profile="ascend910b").fault
        == Fault.PARTIAL_OVERLAP
    )
    assert ref.Compares(st, T("uint8", 256, 32), x, 1.0, LT, 256, profile="ascend910b").fault == (
        Fault.PARTIAL_OVERLAP | Fault.REPEAT_DEPENDENCY
    )
    h = T("half", A0, 512)
    assert ref.Compares(st, T("uint8", 992, 64), h, 1.0, LT, 512, profile="ascend910b").fault == (
        Fault.REPEAT_DEPENDENCY
    )
    assert ref.Compares(st, T("uint8", A0 + 1024, 32), x, 1.0, LT, 256, profile="ascend910b").fault == 0
    assert ref.Compare(
        st, T("uint8", ADST + 8, 32), x, T("float32", A1, 256), LT, 256, profile="ascend910b"
    ).fault == (Fault.MISALIGNED)


def test_select_scratch_collision_a2():
    p = "ascend910b"
    st = ref.reset_state(p)
    scratch = 188416
    sel, s0, s1 = T("uint8", 0, 32), T("float32", 1024, 64), T("float32", 2048, 64)
    for mode, b in ((1, 2.0), (2, s1)):
        out = ref.Select(st, T("float32", scratch, 64), sel, s0, b, mode, 64, profile=p)
        assert out.fault == Fault.SCRATCH_COLLISION
    assert ref.Select(st, T("float32", scratch, 64), sel, s0, s1, 0, 64, profile=p).fault == 0


def test_select_program_order_and_register_effects():
    a = np.arange(256, dtype=np.float32)
    st = state_with([(A0, a), (ASEL, np.full(32, 0xFF, np.uint8))])
    ops = (T("float32", ADST, 256), T("uint8", ASEL, 32), T("float32", A0, 256), T("float32", A1, 256))
    out = ref.Select(st, *ops, 2, 64, 4, BRP(1, 1, 1, 0, 8, 8), profile="ascend910b")
    np.testing.assert_array_equal(read(out, ADST, np.float32, 64), a[192:])
    for prof, vmask in (
        ("ascend910b", [0xFFFFFFFF] * 4 + [0] * 4),
        ("ascend910", [0xFFFFFFFF, 0xF, 0, 0, 0, 0, 0, 0]),
        ("ascend950", [0xF, 0, 0, 0, 0, 0, 0, 0]),
    ):
        s = ref.SetVectorMask(state_with([(A0, a)], prof), "float32", 4, profile=prof)
        out = ref.Select(s, *ops, 0, 100, profile=prof)
        assert out.fault == 0 and out.vmask.tolist() == vmask, prof


def test_select_flexible_positions():
    d = seed("Select_2")
    p = "ascend950"
    st = _select_state(d, p)
    dst, sel, s0 = T("float32", ADST, 256), T("uint8", ASEL, 32), T("float32", A0, 256)
    zero = T("float32", 3072, 8)

    class Cfg:
        def __init__(self, i):
            self.scalarTensorIndex = i

    _expect_dst(d, ref.SelectFlexible(st, dst, sel, s0, 0.0, 1, 256, profile=p))
    _expect_dst(d, ref.SelectFlexible(st, dst, sel, s0, zero, 1, 256, config=Cfg(1), profile=p))
    st.ub[ASEL : ASEL + 32] ^= 0xFF
    _expect_dst(d, ref.SelectFlexible(st, dst, sel, 0.0, s0, 1, 256, profile=p))
    _expect_dst(d, ref.SelectFlexible(st, dst, sel, zero, s0, 1, 256, config=Cfg(0), profile=p))
    bad = ref.SelectFlexible(st, dst, sel, s0, dst[3], 1, 256, config=Cfg(1), profile=p)
    assert bad.fault == Fault.PARTIAL_OVERLAP


def test_cmpmask_faults_and_roundtrip():
    st = state_with([(64, np.arange(16, dtype=np.uint8))])
    p = "ascend910b"
    t = ref.SetCmpMask(st, T("uint8", 64, 16), profile=p)
    assert t.cmpmask.view(np.uint8).tolist() == list(range(16))
    t2 = ref.GetCmpMask(t, T("int16", 1040, 64), profile=p)
    assert t2.fault == 0 and read(t2, 1040, np.uint8, 16).tolist() == list(range(16))
    assert ref.SetCmpMask(st, T("uint8", 8, 16), profile=p).fault == Fault.MISALIGNED
    assert ref.GetCmpMask(t, T("uint8", UB - 8, 128), profile=p).fault == Fault.MISALIGNED | Fault.OUT_OF_UB


def test_errors():
    st = state_with([])
    d8, x, y = T("uint8", ADST, 256), T("float32", A0, 256), T("float32", A1, 256)
    xi, yi = T("int32", A0, 256), T("int32", A1, 256)
    with pytest.raises(UnsupportedError, match="does not have this API"):
        ref.Compares(st, d8, x, 1.0, LT, 256, profile="ascend910")
    with pytest.raises(UnsupportedError, match="int32_t supports only EQ"):
        ref.Compare(st, d8, xi, yi, LT, 64, profile="ascend910b")
    assert ref.Compare(st, d8, xi, yi, EQ, 64, profile="ascend910b").fault == 0
    with pytest.raises(UsageError, match="cmpMode=7"):
        ref.Compare(st, d8, x, y, 7, 64, profile="ascend910b")
    with pytest.raises(UsageError, match="count=10"):
        ref.Compare(st, d8, x, y, LT, 10, profile="ascend910b")
    with pytest.raises(UnsupportedError, match="selMode"):
        ref.Select(st, T("float32", ADST, 64), T("uint8", ASEL, 32), x, 0.0, 1, 64, profile="ascend910")
    with pytest.raises(UsageError, match="reserved"):
        ref.Compare(st, d8, x, y, LT, MASK_PLACEHOLDER, 1, BRP(), isSetMask=False, profile="ascend910b")
    # a dst under the documented 128 bytes runs (vendor sample compare): a SIZE checker warning
    assert ref.GetCmpMask(st, T("uint8", 0, 16), profile="ascend910b").warn == 2  # checks.Warn.SIZE
    with pytest.raises(UnsupportedError, match="Select without a mask"):
        ref.Select(st, T("float32", ADST, 64), T("uint8", ASEL, 32), x, 4, BRP(), profile="ascend310b")
