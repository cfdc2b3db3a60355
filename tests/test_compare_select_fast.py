"""Fast-path tests of the compare/select family (issue 3): seed conformance, the 比较与选择 pages'
numeric examples (known doc errors documented as wrong), per-product errors, faults, CMPMASK and
register side effects, count tails, numerics, no-retrace and vmap-equals-loop.

Expected values come from the vendor examples (../shared/conformance, ../shared/spec) or from NumPy
written in this file, never from the implementation's own output.
"""

import dataclasses
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax._engine.binary import run_binary
from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.testing.traces import max_traces

SEEDS = pathlib.Path(__file__).resolve().parent / "data" / "seed_cases"  # numbers from ../shared/conformance
F32, F16, U8 = aj.float32, aj.half, aj.uint8
UB = 16384
BRP = aj.BinaryRepeatParams
URP = aj.UnaryRepeatParams


def seed(name):
    path = SEEDS / f"{name}.json"
    if not path.is_file():
        pytest.skip(f"seed case {path} not available")
    return json.loads(path.read_text(encoding="utf-8"))


def state_with(placements, profile="ascend910b", ub_bytes=UB, fill=0):
    """A reset state whose UB holds each (addr, ndarray) of ``placements``."""
    ub = np.full(ub_bytes, fill, np.uint8)
    for addr, arr in placements:
        raw = np.ascontiguousarray(arr).view(np.uint8).reshape(-1)
        ub[addr : addr + raw.size] = raw
    return aj.reset_state(profile, ub=ub)


def read(state, addr, dtype, n):
    d = aj.as_dtype(dtype)
    return np.asarray(state.ub[addr : addr + n * d.itemsize]).view(d.np_dtype)


def bits_of(values):
    """Expected packed bytes, LSB first (NumPy)."""
    return np.packbits(np.asarray(values, bool), bitorder="little")


def patched(name, api, **extra):
    """Profile ``name`` with apis.<api> extra keys replaced (None removes a key)."""
    p = aj.load_profile(name)
    apis = []
    for a in p.apis:
        if a.name == api:
            ex = dict(a.extra)
            for k, v in extra.items():
                if v is None:
                    ex.pop(k, None)
                else:
                    ex[k] = tuple(v) if isinstance(v, list) else v
            a = dataclasses.replace(a, extra=tuple(sorted(ex.items())))
        apis.append(a)
    return dataclasses.replace(p, apis=tuple(apis))


def fault(state):
    return int(state.fault)


# ------------------------------------------------------------------------------------------------
# Seed conformance (../shared/conformance/seed_cases)
# ------------------------------------------------------------------------------------------------

A0, A1, ASEL, ADST = 0, 1024, 2048, 4096


def _select_seed_state(d, profile="ascend910b"):
    inp = d["inputs"]
    pl = [(A0, np.array(inp["src0"], np.float32)), (ASEL, np.array(inp["selMask"], np.uint8))]
    if "src1" in inp:
        pl.append((A1, np.array(inp["src1"], np.float32)))
    return state_with(pl, profile)


def _tensors(n=256, nsel=32):
    return (
        aj.LocalTensor(F32, ADST, n),
        aj.LocalTensor(U8, ASEL, nsel),
        aj.LocalTensor(F32, A0, n),
        aj.LocalTensor(F32, A1, n),
    )


def _check_select(d, out):
    assert fault(out) == 0
    exp = np.array(d["expected"]["dst"], np.float32)
    np.testing.assert_array_equal(read(out, ADST, F32, 256).view(np.uint32), exp.view(np.uint32))


@pytest.mark.parametrize("profile", ["ascend910b", "ascend950", "ascend310b", "ascend310p"])
def test_seed_select_mode2_highdim(profile):
    d = seed("Select_1")
    dst, sel, s0, s1 = _tensors()
    out = aj.Select(
        _select_seed_state(d, profile),
        dst,
        sel,
        s0,
        s1,
        aj.SELMODE.VSEL_TENSOR_TENSOR_MODE,
        64,
        4,
        BRP(),
        profile=profile,
    )
    _check_select(d, out)


@pytest.mark.parametrize("profile", ["ascend910b", "ascend950", "kirinx90"])
def test_seed_select_mode1_count(profile):
    d = seed("Select_2")
    dst, sel, s0, _ = _tensors()
    out = aj.Select(
        _select_seed_state(d, profile),
        dst,
        sel,
        s0,
        0.0,
        aj.SELMODE.VSEL_TENSOR_SCALAR_MODE,
        256,
        profile=profile,
    )
    _check_select(d, out)


@pytest.mark.parametrize(
    "args",
    [
        (256,),  # the count form of the example
        (64, 4, BRP(1, 1, 1, 8, 8, 8)),  # call_alternatives: continuous mask 64
        ([2**64 - 1, 0], 4, BRP(1, 1, 1, 8, 8, 8)),  # call_alternatives: bitwise {UINT64_MAX, 0}
    ],
)
@pytest.mark.parametrize("profile", ["ascend910b", "ascend910"])
def test_seed_select_mode0_reuses_first_bits(args, profile):
    d = seed("Select_3")
    dst, sel, s0, s1 = _tensors(nsel=128)
    out = aj.Select(
        _select_seed_state(d, profile), dst, sel, s0, s1, aj.SELMODE.VSEL_CMPMASK_SPR, *args, profile=profile
    )
    _check_select(d, out)


@pytest.mark.parametrize("mode", [0, 2])
def test_seed_select_mask_filter_text_example(mode):
    """函数功能 text: selMask [0,0,0,0,1,1,1,1], mask [1,1,1,1,0,0,0,0], dst [-1..-8] ->
    [9,10,11,12,-5,-6,-7,-8] (masked-off lanes keep dst); dst_temp without the mask."""
    d = seed("Select_4")
    inp = d["inputs"]
    src0 = np.array([v if v is not None else 100.0 for v in inp["src0"]], np.float32)
    src1 = np.array([v if v is not None else 200.0 for v in inp["src1"]], np.float32)
    dst0 = np.array([v if v is not None else -100.0 for v in inp["dst_init"]], np.float32)
    selb = np.array([v if v is not None else 0 for v in inp["selMask"]], np.uint8)
    s = state_with([(A0, src0), (A1, src1), (ASEL, selb), (ADST, dst0)])
    dst, sel, s0, s1 = (
        aj.LocalTensor(F32, ADST, 64),
        aj.LocalTensor(U8, ASEL, 8),
        aj.LocalTensor(F32, A0, 64),
        aj.LocalTensor(F32, A1, 64),
    )
    out = aj.Select(s, dst, sel, s0, s1, mode, d["params"]["mask"], 1, BRP())
    np.testing.assert_array_equal(read(out, ADST, F32, 8), np.array(d["expected"]["dst"][:8], np.float32))
    out = aj.Select(s, dst, sel, s0, s1, mode, 8, 1, BRP())
    np.testing.assert_array_equal(
        read(out, ADST, F32, 8), np.array(d["expected"]["dst_temp"][:8], np.float32)
    )


@pytest.mark.parametrize("api", ["Compares", "CompareScalar"])
@pytest.mark.parametrize(
    "args",
    [(256,), (64, 4, URP(1, 1, 8, 8)), ([2**64 - 1, 0], 4, URP(1, 1, 8, 8))],
)
@pytest.mark.parametrize("profile", ["ascend910b", "ascend950", "ascend310p", "ascend310b"])
def test_seed_compares_lt(api, args, profile):
    d = seed("Compares_1")
    scalar = np.float32(d["inputs"]["src1Scalar"][0])
    s = state_with([(A0, np.array(d["inputs"]["src0"], np.float32))], profile)
    out = getattr(aj, api)(
        s,
        aj.LocalTensor(U8, ADST, 32),
        aj.LocalTensor(F32, A0, 256),
        scalar,
        aj.CMPMODE.LT,
        *args,
        profile=profile,
    )
    assert fault(out) == 0
    assert read(out, ADST, U8, 32).tolist() == d["expected"]["dst"]


# ------------------------------------------------------------------------------------------------
# 比较与选择 pages: numeric examples (spec/ascendc-docs/memory-vector/比较与选择/)
# ------------------------------------------------------------------------------------------------

# Compare.md: 64 floats each
CMP_SRC0 = np.repeat(np.array([2, 3, 5, 7, 11, 13, 17, 19], np.float32), 8)
CMP_SRC1 = np.repeat(np.array([2, 4, 6, 8, 10, 12, 14, 16], np.float32), 8)
# the short examples ("[ 2 3 5 7 11 13 17 19 ... ]"): element-wise, first byte printed
CMP_SHORT0 = np.tile(np.array([2, 3, 5, 7, 11, 13, 17, 19], np.float32), 8)
CMP_SHORT1 = np.tile(np.array([2, 4, 6, 8, 10, 12, 14, 16], np.float32), 8)


def _compare(profile, src0, src1, mode, *args, dst_fill=0):
    s = state_with([(A0, src0), (A1, src1)], profile, fill=dst_fill)
    return aj.Compare(
        s,
        aj.LocalTensor(U8, ADST, 64),
        aj.LocalTensor(F32, A0, 64),
        aj.LocalTensor(F32, A1, 64),
        mode,
        *args,
        profile=profile,
    )


@pytest.mark.parametrize(
    "mode,byte0",
    [(aj.CMPMODE.GT, 240), (aj.CMPMODE.GE, 241), (aj.CMPMODE.LE, 15), (aj.CMPMODE.EQ, 1)],
)
@pytest.mark.parametrize("profile", ["ascend910b", "ascend910", "ascend950", "ascend310b"])
def test_compare_page_count_examples(mode, byte0, profile):
    out = _compare(profile, CMP_SHORT0, CMP_SHORT1, mode, 64)
    assert fault(out) == 0
    assert read(out, ADST, U8, 8).tolist() == [byte0] * 8


def test_compare_page_lt_and_ne_examples_are_doc_errors():
    """Known doc error: the LT example prints [0 127 127 127 0 0 0 0] and NE prints 126; the printed
    inputs imply bit 7 set (255 / 254)."""
    out = _compare("ascend910b", CMP_SRC0, CMP_SRC1, aj.CMPMODE.LT, 64)
    got = read(out, ADST, U8, 8).tolist()
    assert got != [0, 127, 127, 127, 0, 0, 0, 0]  # printed (wrong)
    assert got == bits_of(CMP_SRC0 < CMP_SRC1).tolist() == [0, 255, 255, 255, 0, 0, 0, 0]
    out = _compare("ascend910b", CMP_SHORT0, CMP_SHORT1, aj.CMPMODE.NE, 64)
    assert read(out, ADST, U8, 1)[0] != 126
    assert read(out, ADST, U8, 1)[0] == 254 == bits_of(CMP_SHORT0[:8] != CMP_SHORT1[:8])[0]


@pytest.mark.parametrize("profile", ["ascend950", "ascend310b"])
def test_compare_page_bitwise_mask_example(profile):
    """mask {0x33333333, 0}, LE, repeat 1, {1,1,1,1,8,8} -> [51 51 51 51 0 0 0 0] where the mask is
    honoured; masked-off lanes give 0 bits (the dst was 0xAA before)."""
    out = _compare(
        profile, CMP_SRC0, CMP_SRC1, aj.CMPMODE.LE, [858993459, 0], 1, BRP(1, 1, 1, 1, 8, 8), dst_fill=0xAA
    )
    assert fault(out) == 0
    assert read(out, ADST, U8, 8).tolist() == [51, 51, 51, 51, 0, 0, 0, 0]
    assert read(out, ADST + 8, U8, 8).tolist() == [0xAA] * 8  # beyond the repeat's 8 bytes


@pytest.mark.parametrize("profile", ["ascend910b", "ascend910_93", "ascend310p", "ascend910"])
def test_compare_mask_is_ignored_where_documented(profile):
    out = _compare(profile, CMP_SRC0, CMP_SRC1, aj.CMPMODE.LE, [858993459, 0], 1, BRP(1, 1, 1, 1, 8, 8))
    assert read(out, ADST, U8, 8).tolist() == bits_of(CMP_SRC0 <= CMP_SRC1).tolist() == [255] * 4 + [0] * 4


def test_compare_page_continuous_mask_28_is_a_doc_error():
    """Known doc error: mask 28, LE prints [127 127 127 16 ...]; the data imply [255 255 255 15 ...]."""
    out = _compare("ascend950", CMP_SRC0, CMP_SRC1, aj.CMPMODE.LE, 28, 1, BRP(1, 1, 1, 1, 8, 8))
    got = read(out, ADST, U8, 8).tolist()
    assert got[:4] != [127, 127, 127, 16]
    assert (
        got
        == bits_of((CMP_SRC0 <= CMP_SRC1) & (np.arange(64) < 28)).tolist()
        == [255, 255, 255, 15, 0, 0, 0, 0]
    )


REG_SRC0 = np.array(
    [86.72287, 9.413112, 17.033222, -64.10005, -66.2691, -65.57659, 15.898049, 94.61241, -68.920685, -36.16883,
     15.62852, 68.078514, -59.724575, -9.4302225, -64.770935, 66.55523, -84.60122, 57.331, 60.42026, -86.78856,
     37.25265, 8.356797, -48.544407, 16.73616, 15.28083, -21.889254, -67.93181, -41.01825, -68.79465, 20.169441,
     44.11346, -27.419518, 30.452742, -89.30283, -18.590672, 32.45831, 8.392082, -57.198048, 98.76846, -81.73067,
     -38.274437, -83.84363, 64.30617, 6.028703, -20.77164, 93.71867, 54.190437, 94.98172, -47.447758, -65.77461,
     82.21715, 59.953922, 23.599781, -77.29708, 26.963976, -63.468987, 79.97712, -70.47842, 39.00433, 52.36555,
     -63.94925, -65.77033, 26.17237, -71.904884],
    np.float32,
)  # fmt: skip
REG_SRC1 = np.array(
    [2.2989323, 51.8879, -81.49718, 41.189415, 6.4081917, 92.566666, 53.205498, -94.47063, -75.38387, 36.464787,
     85.60772, -28.70681, 42.58504, -76.15293, 38.723816, 10.006577, 74.53035, -78.38537, 71.945404, -4.060528,
     -14.501523, 28.229202, 96.87876, 41.558033, -92.623215, 43.318684, 35.387154, -16.029816, 61.544827, 3.3527017,
     55.806778, -93.242096, 22.86275, -87.506584, 35.29523, 8.405956, 91.03445, -85.29485, 34.30078, -3.8019252,
     93.40503, 15.459968, -57.99712, -74.39948, -59.900818, -43.132637, -13.123036, 41.246174, -93.01083, 75.476875,
     -45.437893, -99.19293, 13.543604, 76.23386, 46.192528, -39.23934, 75.9787, -38.38979, 9.807722, -60.610104,
     -23.062874, 48.1669, 89.913376, 73.78631],
    np.float32,
)  # fmt: skip
REG_EXPECTED = [122, 86, 237, 94, 150, 3, 226, 242]


@pytest.mark.parametrize("mask", [64, [2**64 - 1, 0]])
@pytest.mark.parametrize("profile", ["ascend910b", "ascend910_93", "ascend310p", "ascend950"])
def test_compare_to_cmpmask_page_example(mask, profile):
    """Compare（结果存入寄存器）: 64 floats, LT -> CMPMASK bytes [122 86 237 94 150 3 226 242]; read
    back with GetCmpMask (bits 64..127 are 0 for float)."""
    s = state_with([(A0, REG_SRC0), (A1, REG_SRC1)], profile, fill=0x55)
    s0, s1 = aj.LocalTensor(F32, A0, 64), aj.LocalTensor(F32, A1, 64)
    out = aj.Compare(s, s0, s1, aj.CMPMODE.LT, mask, BRP(1, 1, 1, 8, 8, 8), profile=profile)
    assert fault(out) == 0
    assert bits_of(REG_SRC0 < REG_SRC1).tolist() == REG_EXPECTED
    out = aj.GetCmpMask(out, aj.LocalTensor(U8, ADST, 128), profile=profile)
    assert read(out, ADST, U8, 16).tolist() == REG_EXPECTED + [0] * 8
    assert read(out, ADST + 16, U8, 8).tolist() == [0x55] * 8  # only 16 bytes are stored
    same = aj.CompareCmpMask(s, s0, s1, aj.CMPMODE.LT, mask, BRP(), profile=profile)
    np.testing.assert_array_equal(np.asarray(same.cmpmask), np.asarray(out.cmpmask))


def test_getcmpmask_page_example_is_a_doc_error():
    """Known doc error: GetCmpMask prints 256 in a uint8 dst. The example (src0 = 1..256,
    src1 = 2..257, LT, mask 64) compares all-true, so the first 8 bytes are 255."""
    x = np.arange(1, 65, dtype=np.float32)
    s = state_with([(A0, x), (A1, x + 1)])
    out = aj.Compare(s, aj.LocalTensor(F32, A0, 64), aj.LocalTensor(F32, A1, 64), aj.CMPMODE.LT, 64, BRP())
    out = aj.GetCmpMask(out, aj.LocalTensor(U8, ADST, 128))
    assert 256 > np.iinfo(np.uint8).max  # the printed value cannot be a uint8
    assert read(out, ADST, U8, 8).tolist() == [255] * 8


def test_setcmpmask_page_flows_reproduce_the_select_seeds():
    """SetCmpMask.md call sequences (mode 0: selMask; mode 2: a tensor holding selMask's address;
    mode 1: a tensor holding the scalar) + SetVectorMask(64) + the mask-less Select, on the seed data."""
    d1, d2, d3 = seed("Select_1"), seed("Select_2"), seed("Select_3")
    dst, sel, s0, s1 = _tensors()
    tmp = aj.LocalTensor(aj.int32, 3072, 8)
    scal = aj.LocalTensor(F32, 3328, 8)
    s = _select_seed_state(d1)
    s = s.replace(ub=s.ub.at[3072:3104].set(jnp.asarray(np.full(8, ASEL, np.uint32).view(np.uint8))))
    # mode 2
    t = aj.SetCmpMask(s, tmp.ReinterpretCast(aj.int64))
    assert np.asarray(t.cmpmask).tolist() == [ASEL] * 4
    t = aj.SetVectorMask(t, F32, 64)
    out = aj.Select(t, dst, s0, s1, 4, BRP(), selMode=aj.SELMODE.VSEL_TENSOR_TENSOR_MODE)
    _check_select(d1, out)
    # mode 0 (the example's selMask has 64 valid bits: the Select_1 bytes 0..7 equal Select_3's)
    t = aj.SetVectorMask(aj.SetCmpMask(s, sel), F32, 64)
    out = aj.Select(t, dst, s0, s1, 4, BRP(), selMode=aj.SELMODE.VSEL_CMPMASK_SPR)
    _check_select(d3, out)
    # mode 1 (scalar 0.0 from the zero-filled tensor)
    t = aj.SetVectorMask(aj.SetCmpMask(s, scal), F32, 64)
    out = aj.Select(t, dst, sel, s0, 4, BRP())
    _check_select(d2, out)


@pytest.mark.parametrize("position", [0, 1])
def test_select_flexible_scalar_position(position):
    """Select（灵活标量位置） on 950: the mode-1 seed with the scalar on either side (a Python scalar,
    or element 0 of a LocalTensor named by config.scalarTensorIndex)."""
    d = seed("Select_2")
    dst, sel, s0, _ = _tensors()
    s = _select_seed_state(d, "ascend950")
    zero = aj.LocalTensor(F32, 3072, 8)  # element 0 is 0.0
    if position == 1:
        out = aj.SelectFlexible(s, dst, sel, s0, 0.0, 1, 256, profile="ascend950")
        out2 = aj.SelectFlexible(
            s, dst, sel, s0, zero, 1, 256, config=aj.BinaryConfig(1), profile="ascend950"
        )
    else:  # bit 1 picks src0 = the scalar: invert selMask
        inv = np.array(d["inputs"]["selMask"], np.uint8) ^ 0xFF
        s = s.replace(ub=s.ub.at[ASEL : ASEL + 32].set(jnp.asarray(inv)))
        out = aj.SelectFlexible(s, dst, sel, 0.0, s0, 1, 256, profile="ascend950")
        out2 = aj.SelectFlexible(
            s, dst, sel, zero, s0, 1, 256, config=aj.BinaryConfig(0), profile="ascend950"
        )
    _check_select(d, out)
    _check_select(d, out2)


def test_select_flexible_element_overlapping_dst_faults():
    s = state_with([], "ascend950")
    dst, sel, s0, _ = _tensors()
    out = aj.SelectFlexible(s, dst, sel, s0, dst[3], 1, 256, config=aj.BinaryConfig(1), profile="ascend950")
    assert fault(out) == Fault.PARTIAL_OVERLAP
    np.testing.assert_array_equal(np.asarray(out.ub), np.asarray(s.ub))


# ------------------------------------------------------------------------------------------------
# Per-product errors (messages)
# ------------------------------------------------------------------------------------------------


def test_errors_per_product():
    s = aj.reset_state("ascend910b", ub_bytes=UB)
    d8 = aj.LocalTensor(U8, ADST, 256)
    x, y = aj.LocalTensor(F32, A0, 256), aj.LocalTensor(F32, A1, 256)
    xi, yi = aj.LocalTensor(aj.int32, A0, 256), aj.LocalTensor(aj.int32, A1, 256)
    sel = aj.LocalTensor(U8, ASEL, 32)
    dst = aj.LocalTensor(F32, ADST, 256)
    raises = pytest.raises
    LT = aj.CMPMODE.LT
    # Compares (and its old name) does not exist on 910
    with raises(UnsupportedError, match="Compares.*does not have this API"):
        aj.Compares(s, d8, x, 1.0, LT, 256, profile="ascend910")
    with raises(UnsupportedError, match="CompareScalar.*does not have this API"):
        aj.CompareScalar(s, d8, x, 1.0, LT, 256, profile="ascend910")
    # 910: Select mode 0 only
    with raises(
        UnsupportedError, match=r"selMode.*VSEL_TENSOR_SCALAR_MODE.*allowed: SELMODE::VSEL_CMPMASK_SPR"
    ):
        aj.Select(s, dst, sel, x, 0.0, 1, 256, profile="ascend910")
    with raises(UnsupportedError, match=r"VSEL_TENSOR_TENSOR_MODE"):
        aj.Select(s, dst, sel, x, y, 2, 256, profile="ascend910")
    # int32 compare: EQ only on A2/A3/Kirin; no int32 at all on 310P/910
    with raises(UnsupportedError, match=r"CMPMODE::LT.*int32_t supports only EQ"):
        aj.Compare(s, d8, xi, yi, LT, 64)
    with raises(UnsupportedError, match=r"int32_t supports only EQ"):
        aj.Compares(s, d8, xi, 3, aj.CMPMODE.GE, 64, profile="ascend910_93")
    assert fault(aj.Compare(s, d8, xi, yi, aj.CMPMODE.EQ, 64)) == 0
    assert fault(aj.Compares(s, d8, xi, 3, LT, 64, profile="ascend310b")) == 0
    with raises(UnsupportedError, match=r"dtype=.int32.*allowed: half, float32"):
        aj.Compare(s, d8, xi, yi, aj.CMPMODE.EQ, 64, profile="ascend310p")
    # a named profile choice mimics the vendor's release build (int32 computes EQ)
    silent = patched("ascend910b", "Compare", int32_other_modes="silent_eq")
    a = np.arange(64, dtype=np.int32)
    b = np.where(np.arange(64) % 3 == 0, a, a + 1).astype(np.int32)
    out = aj.Compare(state_with([(A0, a), (A1, b)]), d8, xi, yi, LT, 64, profile=silent)
    assert read(out, ADST, U8, 8).tolist() == bits_of(a == b).tolist()
    # bad CMPMODE / SELMODE
    with raises(UsageError, match=r"cmpMode=7.*CMPMODE::LT / GT / EQ / LE / GE / NE"):
        aj.Compare(s, d8, x, y, 7, 64)
    with raises(UsageError, match=r"cmpMode=.a traced float32.*a scalar integer"):
        aj.Compares(s, d8, x, 1.0, jnp.asarray(0.0), 64)
    with raises(UsageError, match=r"cmpMode=None"):
        aj.Compares(s, d8, x, 1.0, None, 64)
    with raises(UsageError, match=r"selMode=3.*VSEL_CMPMASK_SPR / VSEL_TENSOR_SCALAR_MODE"):
        aj.Select(s, dst, sel, x, y, 3, 64)
    # misaligned count (count * sizeof(T) must fill whole 256-byte blocks)
    with raises(UsageError, match=r"count=10.*multiple of 64 for float.*256 bytes"):
        aj.Compare(s, d8, x, y, LT, 10)
    with raises(UsageError, match=r"count=100.*multiple of 128 for half"):
        aj.Compares(s, d8, aj.LocalTensor(F16, A0, 256), 1.0, LT, 100, profile="ascend950")
    # dst / selMask dtypes
    with raises(UnsupportedError, match=r"dst.dtype=.float32"):
        aj.Compare(s, dst, x, y, LT, 64)
    i8 = aj.LocalTensor(aj.int8, 0, 32)
    with raises(UnsupportedError, match=r"dst.dtype=.int8.*allowed: uint8"):
        aj.Compares(s, i8, x, 1.0, LT, 64)
    with raises(UnsupportedError, match=r"dst.dtype=.int8.*allowed: uint8"):
        aj.Compare(s, i8, x, y, LT, 64, profile="kirinx90")
    with raises(UnsupportedError, match=r"selMask.dtype=.int8"):
        aj.Select(s, dst, aj.LocalTensor(aj.int8, ASEL, 32), x, y, 2, 64)
    # the CMPMASK APIs where the product lacks them
    for prof in ("ascend310b", "ascend910", "kirinx90", "ascend310p_vec"):
        with raises(UnsupportedError, match="CompareCmpMask.*does not have this API"):
            aj.Compare(s, x, y, LT, 64, BRP(), profile=prof)
        with raises(UnsupportedError, match="SetCmpMask.*does not have this API"):
            aj.SetCmpMask(s, sel, profile=prof)
        with raises(UnsupportedError, match="GetCmpMask.*does not have this API"):
            aj.GetCmpMask(s, aj.LocalTensor(U8, 0, 128), profile=prof)
    with raises(UnsupportedError, match=r"Select without a mask argument.*SetCmpMask"):
        aj.Select(s, dst, sel, x, 4, BRP(), profile="ascend310b")
    # a dst under the documented 128 bytes runs (vendor sample compare): a SIZE checker warning
    assert int(aj.GetCmpMask(s, aj.LocalTensor(U8, 0, 16)).warn) == 2  # checks.Warn.SIZE
    h16 = aj.LocalTensor(aj.int16, A0, 64)
    with raises(UnsupportedError, match=r"Select.*dtype=.int16"):
        aj.Select(s, h16, sel, h16, 0, 1, 64)
    # 950 count-only dtypes
    with raises(UnsupportedError, match=r"int8 is accepted only by the count"):
        aj.Compares(s, d8, aj.LocalTensor(aj.int8, A0, 256), 1, LT, 256, 1, URP(), profile="ascend950")
    # SelectFlexible: 950 only, mode 1 only, not two scalars, config for two tensors
    with raises(UnsupportedError, match="SelectFlexible.*does not have this API"):
        aj.SelectFlexible(s, dst, sel, x, 0.0, 1, 64)
    with raises(UnsupportedError, match=r"selMode.*VSEL_TENSOR_TENSOR_MODE"):
        aj.SelectFlexible(s, dst, sel, x, y, 2, 64, profile="ascend950")
    with raises(UsageError, match=r"two scalars"):
        aj.SelectFlexible(s, dst, sel, 1.0, 0.0, 1, 64, profile="ascend950")
    with raises(UsageError, match=r"config=None"):
        aj.SelectFlexible(s, dst, sel, x, y, 1, 64, profile="ascend950")
    # reserved isSetMask, wrong operand kinds
    with raises(UsageError, match=r"isSetMask.*reserved"):
        aj.Select(s, dst, sel, x, y, 2, 64, 1, BRP(), isSetMask=False)
    with raises(UsageError, match=r"isSetMask.*reserved parameter of Compare"):
        aj.Compare(s, d8, x, y, LT, aj.MASK_PLACEHOLDER, 1, BRP(), isSetMask=False)
    with raises(UsageError, match=r"count prototype has no isSetMask"):
        aj.Compares(s, d8, x, 1.0, LT, 64, isSetMask=False)
    with raises(UsageError, match=r"mode 1 takes a scalar src1"):
        aj.Select(s, dst, sel, x, y, 1, 64)
    with raises(UsageError, match=r"mode 2 selects between two tensors"):
        aj.Select(s, dst, sel, x, 1.0, 2, 64)
    # a zero mask is rejected where the product says so
    with raises(UsageError, match=r"non-zero mask"):
        aj.Select(s, dst, sel, x, y, 2, 0, 1, BRP(), profile="ascend310p")


# ------------------------------------------------------------------------------------------------
# Faults, scratch, CMPMASK side effects
# ------------------------------------------------------------------------------------------------

SCRATCH_A2 = 188416  # memory.reserved api_tmp of ascend910b (used_by Select)


def test_select_scratch_collision_modes_1_2_on_a2():
    p = "ascend910b"
    s = aj.reset_state(p)  # the full 192 KB UB
    dst = aj.LocalTensor(F32, SCRATCH_A2, 64)
    sel = aj.LocalTensor(U8, 0, 32)
    src0, src1 = aj.LocalTensor(F32, 1024, 64), aj.LocalTensor(F32, 2048, 64)
    for mode, s1 in ((1, 2.0), (2, src1)):
        out = aj.Select(s, dst, sel, src0, s1, mode, 64, profile=p)
        assert fault(out) == Fault.SCRATCH_COLLISION
        np.testing.assert_array_equal(np.asarray(out.ub), np.asarray(s.ub))
        assert np.asarray(out.vmask).tolist() == np.asarray(s.vmask).tolist()
    # the selMask inside the scratch collides too; mode 0 uses no scratch
    out = aj.Select(
        s, aj.LocalTensor(F32, 4096, 64), aj.LocalTensor(U8, SCRATCH_A2 + 64, 32), src0, src1, 2, 64
    )
    assert fault(out) == Fault.SCRATCH_COLLISION
    assert fault(aj.Select(s, dst, sel, src0, src1, 0, 64, profile=p)) == 0


def test_compare_faults():
    s = state_with([])
    x, y = aj.LocalTensor(F32, A0, 256), aj.LocalTensor(F32, A1, 256)
    # misaligned dst / src
    assert fault(aj.Compare(s, aj.LocalTensor(U8, ADST + 8, 32), x, y, 0, 256)) == Fault.MISALIGNED
    assert fault(aj.Compares(s, aj.LocalTensor(U8, ADST, 32), x[1], 1.0, 0, 256)) & Fault.MISALIGNED
    # output written over a source inside one repeat: partial overlap; over a later repeat's source
    assert fault(aj.Compare(s, aj.LocalTensor(U8, A0, 32), x, y, 0, 256)) & Fault.PARTIAL_OVERLAP
    # out of UB (8 repeats of float = 64 result bytes from UB - 32)
    x512 = aj.LocalTensor(F32, A0, 512)
    assert fault(aj.Compares(s, aj.LocalTensor(U8, UB - 32, 64), x512, 1.0, 0, 512)) == Fault.OUT_OF_UB
    # traced misaligned count -> BAD_PARAM; traced zero-count follows zero_count ("nop" on A2)
    out = aj.Compares(s, aj.LocalTensor(U8, ADST, 32), x, 1.0, 0, jnp.asarray(10), max_repeats=4)
    assert fault(out) == Fault.BAD_PARAM
    out = aj.Compares(s, aj.LocalTensor(U8, ADST, 32), x, 1.0, 0, 0)
    assert fault(out) == 0
    s950 = state_with([], "ascend950")
    out = aj.Compares(s950, aj.LocalTensor(U8, ADST, 32), x, 1.0, 0, 0, profile="ascend950")
    assert fault(out) == Fault.UNDEFINED  # 950: count 0 "不保证…NOP"


def test_bit_output_overlap_rules():
    """Repeat r writes result bytes [dst + r*W, dst + (r+1)*W) (W = 256/sizeof(T)/8). Meeting a
    source block of the same repeat: PARTIAL_OVERLAP; of a later repeat: REPEAT_DEPENDENCY; of an
    earlier repeat (already read): allowed."""
    s = state_with([])
    x = aj.LocalTensor(F32, A0, 256)
    # float, W = 8: repeats 0..3 all write block 0, which repeat 0 reads
    assert fault(aj.Compares(s, aj.LocalTensor(U8, A0, 32), x, 1.0, 0, 256)) == Fault.PARTIAL_OVERLAP
    assert fault(aj.Compares(s, aj.LocalTensor(U8, A0 + 32, 32), x, 1.0, 0, 256)) == Fault.PARTIAL_OVERLAP
    # block 0 of repeat 1 (byte 256): repeat 0 writes it before repeat 1 reads it, and repeat 1 too
    assert fault(aj.Compares(s, aj.LocalTensor(U8, 256, 32), x, 1.0, 0, 256)) == (
        Fault.PARTIAL_OVERLAP | Fault.REPEAT_DEPENDENCY
    )
    # half, W = 16: repeats 0 and 1 write block 992, which only repeat 3 reads (its last block);
    # repeats 2 and 3 write block 1024, past the source
    h = aj.LocalTensor(F16, A0, 512)
    assert fault(aj.Compares(s, aj.LocalTensor(U8, 992, 64), h, 1.0, 0, 512)) == Fault.REPEAT_DEPENDENCY
    # after the last source block: no hazard
    assert fault(aj.Compares(s, aj.LocalTensor(U8, A0 + 1024, 32), x, 1.0, 0, 256)) == 0


def test_select_cmpmask_side_effects_as_placed_on_a2():
    """With apis.Select.cmpmask_side_effect (A2/A3/310P), Select with a selMask tensor leaves CMPMASK
    holding the selMask head (mode 0), the scalar splat (mode 1) or selMask's address (mode 2), and
    modes 1/2 write the same 32-byte splat at the start of the scratch."""
    p = patched("ascend910b", "Select", cmpmask_side_effect=True)
    selb = np.arange(1, 33, dtype=np.uint8)
    s = aj.reset_state(p)
    s = s.replace(ub=s.ub.at[ASEL : ASEL + 32].set(jnp.asarray(selb)))
    dst, sel, s0, s1 = _tensors()
    out = aj.Select(s, dst, sel, s0, s1, 0, 256, profile=p)
    assert bytes(np.asarray(out.cmpmask).view(np.uint8)) == bytes(selb[:16])
    out = aj.Select(s, dst, sel, s0, 1.5, 1, 256, profile=p)
    assert np.asarray(out.cmpmask).view(np.float32).tolist() == [1.5] * 4
    assert read(out, SCRATCH_A2, F32, 8).tolist() == [1.5] * 8
    out = aj.Select(s, dst, sel, s0, s1, 2, 256, profile=p)
    assert np.asarray(out.cmpmask).tolist() == [ASEL] * 4
    assert read(out, SCRATCH_A2, aj.uint32, 8).tolist() == [ASEL] * 8
    hf = aj.Select(
        s, aj.LocalTensor(F16, ADST, 128), sel, aj.LocalTensor(F16, A0, 128), -2.0, 1, 128, profile=p
    )
    assert np.asarray(hf.cmpmask).view(np.float16).tolist() == [-2.0] * 8
    # with the side effect switched off: CMPMASK untouched
    off = patched("ascend910b", "Select", cmpmask_side_effect=False)
    out = aj.Select(s, dst, sel, s0, s1, 2, 256, profile=off)
    assert np.asarray(out.cmpmask).tolist() == [0] * 4
    # a faulting call has no side effect either
    bad = aj.Select(s, dst[1], sel, s0, 1.5, 1, 256, profile=p)
    assert fault(bad) == Fault.MISALIGNED and np.asarray(bad.cmpmask).tolist() == [0] * 4


def test_setcmpmask_getcmpmask_faults_and_roundtrip():
    s = state_with([(64, np.arange(16, dtype=np.uint8))])
    t = aj.SetCmpMask(s, aj.LocalTensor(U8, 64, 16))
    assert np.asarray(t.cmpmask).view(np.uint8).tolist() == list(range(16))
    t2 = aj.GetCmpMask(t, aj.LocalTensor(aj.int16, 1024 + 16, 64))  # 16-byte alignment suffices
    assert fault(t2) == 0 and read(t2, 1024 + 16, U8, 16).tolist() == list(range(16))
    bad = aj.SetCmpMask(s, aj.LocalTensor(U8, 8, 16))
    assert fault(bad) == Fault.MISALIGNED and np.asarray(bad.cmpmask).tolist() == [0] * 4
    assert fault(aj.GetCmpMask(t, aj.LocalTensor(U8, UB - 8, 128))) == Fault.MISALIGNED | Fault.OUT_OF_UB


# ------------------------------------------------------------------------------------------------
# Count tails, register side effects, Counter mode
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("profile,tail", [("ascend910b", "dropped"), ("ascend950", "computed")])
def test_count_tail_per_product(profile, tail):
    """Without the alignment rule (profile key removed), 100 floats: "dropped" computes the one
    whole repeat (bits 0..63) and leaves the rest; "computed" also writes bits 64..99 and zeros
    the rest of repeat 1 (bits 100..127)."""
    p = patched(profile, "Compares", count_alignment_bytes=None)
    assert p.api("Compares").count_tail == tail
    x = np.linspace(-50, 50, 128).astype(np.float32)
    s = state_with([(A0, x)], p, fill=0xAA)
    out = aj.Compares(
        s, aj.LocalTensor(U8, ADST, 32), aj.LocalTensor(F32, A0, 128), 0.0, aj.CMPMODE.GT, 100, profile=p
    )
    got = read(out, ADST, U8, 24)
    exp = np.full(24, 0xAA, np.uint8)
    exp[:8] = bits_of(x[:64] > 0)
    if tail == "computed":
        exp[8:16] = bits_of((x[64:128] > 0) & (np.arange(64, 128) < 100))
    np.testing.assert_array_equal(got, exp)


def test_register_side_effects():
    x = np.arange(256, dtype=np.float32)
    dst, sel, s0, s1 = _tensors()
    # Select count form: A2 SetMaskCount ... ResetMask/SetMaskNorm; 910 leaves the tail mask; 950 none
    for prof, vmask in (
        ("ascend910b", [0xFFFFFFFF] * 4 + [0] * 4),
        ("ascend910", [0xFFFFFFFF, 0xF, 0, 0, 0, 0, 0, 0]),  # 100 % 64 = 36 lanes
        ("ascend950", [0x0000000F, 0, 0, 0, 0, 0, 0, 0]),
    ):
        s = aj.SetVectorMask(state_with([(A0, x)], prof), F32, 4, profile=prof)
        out = aj.Select(s, dst, sel, s0, s1, 0, 100, profile=prof)
        assert fault(out) == 0
        assert np.asarray(out.vmask).tolist() == vmask, prof
    # Compare with a UB result never sets the vector mask (A2: the mask argument is discarded)
    s = aj.SetVectorMask(state_with([(A0, x)]), F32, 4)
    out = aj.Compare(s, aj.LocalTensor(U8, ADST, 32), s0, s1, 0, [2**64 - 1, 0], 4, BRP())
    assert np.asarray(out.vmask).tolist() == np.asarray(s.vmask).tolist()
    out = aj.Compare(s, aj.LocalTensor(U8, ADST, 32), s0, s1, 0, 256)
    assert np.asarray(out.vmask).tolist() == np.asarray(s.vmask).tolist()


def test_select_counter_mode_and_register_mask():
    """Counter mode: the mask value is the element count, repeatTime ignored; the mask-less form
    takes lanes from the registers."""
    a = np.arange(256, dtype=np.float32)
    b = -a
    selb = np.full(32, 0xFF, np.uint8)
    dst, sel, s0, s1 = _tensors()
    s = aj.SetMaskCount(state_with([(A0, a), (A1, b), (ASEL, selb)], fill=0))
    out = aj.Select(s, dst, sel, s0, s1, 2, 100, 1, BRP())
    got = read(out, ADST, F32, 256)
    np.testing.assert_array_equal(got, np.where(np.arange(256) < 100, a, 0))
    assert np.asarray(out.vmask)[:2].tolist() == [100, 0] and int(out.mask_mode) == 1
    # Normal mode, mask-less mode 1: lanes from SetVectorMask, scalar from SetCmpMask
    s = state_with([(A0, a), (ASEL, np.zeros(32, np.uint8)), (3072, np.full(8, 7.0, np.float32))])
    s = aj.SetVectorMask(aj.SetCmpMask(s, aj.LocalTensor(F32, 3072, 8)), F32, 0, 0xF0)
    out = aj.Select(s, dst, sel, s0, 2, BRP())
    got = read(out, ADST, F32, 256)
    lane = np.arange(256) % 64
    np.testing.assert_array_equal(got, np.where((lane >= 4) & (lane < 8) & (np.arange(256) < 128), 7.0, 0))


def test_select_strides_and_program_order():
    """dstRepStride 0: every repeat writes the same 8 blocks, the last active repeat wins."""
    a = np.arange(256, dtype=np.float32)
    selb = np.full(32, 0xFF, np.uint8)
    s = state_with([(A0, a), (ASEL, selb)])
    dst, sel, s0, s1 = _tensors()
    out = aj.Select(s, dst, sel, s0, s1, 2, 64, 4, BRP(1, 1, 1, 0, 8, 8))
    assert fault(out) == 0
    np.testing.assert_array_equal(read(out, ADST, F32, 64), a[192:256])
    assert read(out, ADST + 256, F32, 4).tolist() == [0.0] * 4
    # src block stride 2 (every other block), mode 0 reuse
    out = aj.Select(s, dst, sel, s0, s1, 0, 64, 2, BRP(1, 2, 1, 8, 16, 8))
    exp = np.concatenate(
        [a[(2 * b) * 8 : (2 * b) * 8 + 8] for r in range(2) for b in range(8 * r, 8 * r + 8)]
    )
    np.testing.assert_array_equal(read(out, ADST, F32, 128), exp)


# ------------------------------------------------------------------------------------------------
# Numerics: NaN, +-0, +-inf, subnormals, equal values; integer types
# ------------------------------------------------------------------------------------------------

SPECIAL32 = np.array(
    [
        np.nan,
        -np.nan,
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        1e-45,
        -1e-45,
        1e-40,
        3.0,
        -3.0,
        1.0,
        2.0,
        65504.0,
        -1.0,
        1.5,
    ],
    np.float32,
)


@pytest.mark.parametrize(
    "profile,dtype",
    [
        ("ascend910b", "float32"),
        ("ascend910b", "half"),
        ("ascend950", "float32"),
        ("ascend950", "half"),
        ("ascend950", "bfloat16"),  # bfloat16 Compare is 950-only
    ],
)
def test_compare_float_specials(profile, dtype):
    d = aj.as_dtype(dtype)
    L = 256 // d.itemsize
    rng = np.random.default_rng(7)
    pool = SPECIAL32.astype(d.np_dtype)
    x = rng.choice(pool, L)
    y = rng.choice(pool, L)
    y[:16] = x[:16]  # equal values
    ftz = profile == "ascend950"

    def val(v):
        f = v.astype(np.float64)
        if ftz:
            tiny = np.finfo(d.np_dtype).tiny if d.name != "bfloat16" else 2.0**-126
            f = np.where(np.abs(f) < float(tiny), 0.0, f)
        return f

    fx, fy = val(x), val(y)
    s = state_with([(A0, x), (A1, y)], profile)
    for mode, op in (
        ("LT", np.less),
        ("GT", np.greater),
        ("EQ", np.equal),
        ("NE", np.not_equal),
        ("LE", np.less_equal),
        ("GE", np.greater_equal),
    ):
        out = aj.Compare(
            s,
            aj.LocalTensor(U8, ADST, 32),
            aj.LocalTensor(d, A0, L),
            aj.LocalTensor(d, A1, L),
            aj.CMPMODE[mode],
            L,
            profile=profile,
        )
        assert fault(out) == 0
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(read(out, ADST, U8, L // 8), bits_of(op(fx, fy)), err_msg=mode)


def test_compares_subnormal_vs_zero_per_profile():
    x = np.full(64, 1e-45, np.float32)
    for prof, eq in (("ascend910b", 0), ("ascend950", 255)):
        s = state_with([(A0, x)], prof)
        out = aj.Compares(
            s, aj.LocalTensor(U8, ADST, 8), aj.LocalTensor(F32, A0, 64), 0.0, aj.CMPMODE.EQ, 64, profile=prof
        )
        assert read(out, ADST, U8, 8).tolist() == [eq] * 8


@pytest.mark.parametrize("dtype", ["int16", "uint16", "int32", "uint32"])
def test_compares_integers_310b(dtype):
    d = aj.as_dtype(dtype)
    info = np.iinfo(d.np_dtype)
    L = 256 // d.itemsize
    rng = np.random.default_rng(3)
    x = rng.integers(info.min, info.max, L, endpoint=True, dtype=d.np_dtype)
    x[:4] = [info.min, info.max, 0, 1]
    sc = int(x[5])
    s = state_with([(A0, x)], "ascend310b")
    for mode, op in (("LT", np.less), ("GE", np.greater_equal), ("NE", np.not_equal)):
        out = aj.Compares(
            s,
            aj.LocalTensor(U8, ADST, 32),
            aj.LocalTensor(d, A0, L),
            sc,
            aj.CMPMODE[mode],
            L,
            profile="ascend310b",
        )
        np.testing.assert_array_equal(read(out, ADST, U8, L // 8), bits_of(op(x, d.np_dtype.type(sc))))


# ------------------------------------------------------------------------------------------------
# Two-API pipeline, no retrace, vmap == loop
# ------------------------------------------------------------------------------------------------


def _relu_kernel(state, x_addr, n, profile="ascend910b"):
    """CompareScalar(GT 0) writes a selMask that Select mode 1 consumes: y = x > 0 ? x : 0."""
    x = aj.LocalTensor(F32, x_addr, n)
    mask = aj.LocalTensor(U8, 8192, n // 8)
    y = aj.LocalTensor(F32, 4096, n)
    state = aj.CompareScalar(state, mask, x, 0.0, aj.CMPMODE.GT, n, profile=profile, max_repeats=4)
    return aj.Select(
        state, y, mask, x, 0.0, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, n, profile=profile, max_repeats=4
    )


def test_compare_then_select_relu_batched():
    rng = np.random.default_rng(11)
    B, n = 16, 256
    xs = rng.normal(size=(B, n)).astype(np.float32) * 10
    xs[:, :4] = [0.0, -0.0, np.inf, -np.inf]
    ub = np.zeros((B, UB), np.uint8)
    ub[:, :1024] = xs.view(np.uint8)
    states = jax.vmap(lambda u: aj.reset_state("ascend910b", ub=u))(jnp.asarray(ub))
    out = jax.jit(jax.vmap(lambda st: _relu_kernel(st, 0, n)))(states)
    got = np.asarray(out.ub[:, 4096 : 4096 + 4 * n]).view(np.float32)
    exp = np.where(xs > 0, xs, np.float32(0.0))
    np.testing.assert_array_equal(got.view(np.uint32), exp.view(np.uint32))
    assert np.all(np.asarray(out.fault) == 0)


def test_no_retrace_200_parameter_sets():
    rng = np.random.default_rng(5)
    p = "ascend310p"
    s = state_with([(0, rng.normal(size=2048).astype(np.float32))], p)
    with max_traces(run_binary.__name__, n=1):  # one program serves every parameter set
        for _ in range(200):
            mask = [int(rng.integers(1, 2**63)), 0]
            rep = int(rng.integers(1, 9))
            src = 32 * int(rng.integers(0, 64))
            dst = 8192 + 32 * int(rng.integers(0, 32))
            params = URP(1, int(rng.integers(1, 3)), int(rng.integers(0, 9)), int(rng.integers(0, 9)))
            out = aj.Compares(
                s,
                aj.LocalTensor(U8, dst, 64),
                aj.LocalTensor(F32, src, 512),
                float(rng.normal()),
                aj.CMPMODE(int(rng.integers(0, 6))),
                mask,
                rep,
                params,
                profile=p,
                max_repeats=8,
            )
            assert out.fault.shape == ()
    with max_traces(run_binary.__name__, n=1):  # one program serves every parameter set
        for _ in range(200):
            mode_args = (int(rng.integers(1, 129)), int(rng.integers(1, 5)), BRP(1, 1, 1, 8, 8, 8))
            out = aj.Select(
                s,
                aj.LocalTensor(F16, 8192, 512),
                aj.LocalTensor(U8, 32 * int(rng.integers(0, 8)), 64),
                aj.LocalTensor(F16, 1024, 512),
                float(rng.normal()),
                1,
                *mode_args,
                profile=p,
                max_repeats=4,
            )


def test_vmap_equals_loop():
    rng = np.random.default_rng(9)
    p = "ascend950"
    B = 8
    ubs = rng.integers(0, 256, (B, UB), dtype=np.uint8)
    ubs[:, :4096] = rng.normal(size=(B, 1024)).astype(np.float32).view(np.uint8)
    dst_addr = rng.integers(128, 160, B) * 32
    src_addr = rng.integers(0, 16, B) * 32
    dst_addr[0] += 4  # one misaligned case
    scal = rng.normal(size=B).astype(np.float32)
    masks = rng.integers(0, 2**32, (B, 2), dtype=np.uint64).astype(np.uint32)
    reps = rng.integers(0, 5, B).astype(np.int32)
    counts = (rng.integers(0, 5, B) * 64).astype(np.int32)

    def one(ub, d, a, sc, m, r, c):
        st = aj.reset_state(p, ub=ub)
        st = aj.Compares(
            st,
            aj.LocalTensor(U8, d, 64),
            aj.LocalTensor(F32, a, 256),
            sc,
            aj.CMPMODE.LT,
            m,
            r,
            URP(),
            profile=p,
            max_repeats=4,
        )
        st = aj.Select(
            st,
            aj.LocalTensor(F32, d + 1024, 256),
            aj.LocalTensor(U8, d, 32),
            aj.LocalTensor(F32, a, 256),
            sc,
            1,
            c,
            profile=p,
            max_repeats=4,
        )
        return st

    batched = jax.jit(jax.vmap(one))(
        jnp.asarray(ubs),
        jnp.asarray(dst_addr, jnp.int32),
        jnp.asarray(src_addr, jnp.int32),
        jnp.asarray(scal),
        jnp.asarray(masks),
        jnp.asarray(reps),
        jnp.asarray(counts),
    )
    for i in range(B):
        st = aj.reset_state(p, ub=ubs[i])
        m = masks[i].astype(np.uint64)
        st = aj.Compares(
            st,
            aj.LocalTensor(U8, int(dst_addr[i]), 64),
            aj.LocalTensor(F32, int(src_addr[i]), 256),
            float(scal[i]),
            aj.CMPMODE.LT,
            [int(m[0]) | (int(m[1]) << 32)],
            int(reps[i]),
            URP(),
            profile=p,
        )
        st = aj.Select(
            st,
            aj.LocalTensor(F32, int(dst_addr[i]) + 1024, 256),
            aj.LocalTensor(U8, int(dst_addr[i]), 32),
            aj.LocalTensor(F32, int(src_addr[i]), 256),
            float(scal[i]),
            1,
            int(counts[i]),
            profile=p,
        )
        for f in ("ub", "vmask", "mask_mode", "cmpmask", "fault"):
            np.testing.assert_array_equal(
                np.asarray(getattr(batched, f)[i]), np.asarray(getattr(st, f)), err_msg=f
            )


def test_registry_lists_the_family():
    for name in (
        "Compare",
        "Compares",
        "CompareScalar",
        "CompareCmpMask",
        "SetCmpMask",
        "GetCmpMask",
        "Select",
        "SelectFlexible",
    ):
        assert aj.REGISTRY[name].fn is not None
        assert aj.REGISTRY[name].prototypes


def test_traced_cmp_mode_is_one_program_and_checked_per_case():
    # fuzzing traces cmpMode (one program for the six modes); an invalid traced mode is a
    # BAD_PARAM fault of that case, a static one a UsageError
    p = "ascend910b"
    a = np.array([1.0, 2.0, 3.0, -0.0] * 16, np.float32)
    b = np.array([2.0, 2.0, 1.0, 0.0] * 16, np.float32)
    st = state_with([(A0, a), (A1, b)], p)
    d8 = aj.LocalTensor(U8, ADST, 256)
    x, y = aj.LocalTensor(F32, A0, 64), aj.LocalTensor(F32, A1, 64)

    @jax.jit
    def run(code):
        return aj.Compare(st, d8, x, y, code, 64, profile=p)

    with max_traces("run", n=1):
        for m in aj.CMPMODE:
            traced = run(jnp.int32(int(m)))
            static = aj.Compare(st, d8, x, y, m, 64, profile=p)
            assert fault(traced) == fault(static) == 0
            assert read(traced, ADST, U8, 8).tolist() == read(static, ADST, U8, 8).tolist()
    assert fault(run(jnp.int32(7))) & int(Fault.BAD_PARAM)
    # int32 on 910b: LT..NE other than EQ/NE are not offered (per case: BAD_PARAM)
    xi, yi = aj.LocalTensor(aj.int32, A0, 64), aj.LocalTensor(aj.int32, A1, 64)
    bad = jax.jit(lambda c: aj.Compare(st, d8, xi, yi, c, 64, profile=p))(jnp.int32(int(aj.CMPMODE.LT)))
    assert fault(bad) & int(Fault.BAD_PARAM)
