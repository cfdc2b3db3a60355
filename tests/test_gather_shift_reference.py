"""The NumPy reference alone for GatherMask and the shifts (issue 4): the seed examples and
hand-computed cases from the doc pages (比较与选择/GatherMask.md, 逻辑计算/Shift*.md) and docs/MODEL.md.
Expected values are computed by hand from the page text, never from an implementation."""

import json
from pathlib import Path

import numpy as np
import pytest

from ascend_jax import reference as ref
from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.params import UnaryRepeatParams
from ascend_jax.tensor import LocalTensor


def T(dtype, addr, n=256):
    return LocalTensor(dtype, addr, n)


SEEDS = Path(__file__).resolve().parent / "data" / "seed_cases"  # numbers from ../shared/conformance
P = "ascend910b"


def _seed(name):
    f = SEEDS / name
    if not f.is_file():
        pytest.skip(f"seed case {f} not available")
    return json.loads(f.read_text())


def _st(profile=P, ub=16384, **writes):
    st = ref.reset_state(profile, ub_bytes=ub)
    for addr, dtype, vals in writes.values():
        st = ref.ub_write(st, addr, dtype, vals)
    return st


# == seeds =========================================================================================


def test_seed_gathermask_2():
    case = _seed("GatherMask_2.json")
    src = case["inputs"]["src0"]
    g = case["params"]["gatherMaskParams"]
    st = _st(src=(0, "uint16", src))
    params = (g["src0BlockStride"], g["repeatTimes"], g["src0RepeatStride"], g["src1RepeatStride"])
    out, cnt = ref.GatherMask(
        st,
        T("uint16", 1024, 128),
        T("uint16", 0, 128),
        case["params"]["src1Pattern"],
        False,
        0,
        params,
        profile=P,
    )
    exp = [v for v in case["expected"]["dst"] if v is not None]
    assert out.fault == 0
    assert cnt == 64 == len(exp)
    np.testing.assert_array_equal(ref.ub_read(out, 1024, "uint16", cnt), exp)
    np.testing.assert_array_equal(ref.ub_read(out, 1024 + 128, "uint16", 64), 0)  # tail untouched
    assert ref.GetGatherMaskRemainCount(out, profile=P) == 64


@pytest.mark.parametrize("form", ["count", "continuous", "bitwise"])
def test_seed_shiftright_1(form):
    case = _seed("ShiftRight_1.json")
    src = case["inputs"]["src"]
    st = _st(src=(0, "int16", src))
    d, s = T("int16", 2048, 512), T("int16", 0, 512)
    if form == "count":
        out = ref.ShiftRight(st, d, s, 2, 512, profile=P)
    else:
        m = 128 if form == "continuous" else [2**64 - 1, 2**64 - 1]
        out = ref.ShiftRight(st, d, s, 2, m, 4, UnaryRepeatParams(1, 1, 8, 8), False, profile=P)
    got = ref.ub_read(out, 2048, "int16", 512)
    exp = case["expected"]["dst"]
    for i, v in enumerate(exp):
        if v is not None:
            assert got[i] == v, i
    np.testing.assert_array_equal(got, np.arange(1, 513) >> 2)


# == GatherMask, hand-computed ======================================================================


def test_gathermask_page_builtin_in_place_uint32():
    # 内置固定模式: src0 = dst, [1..256] uint32, pattern 2, {1, 4, 8, 0} -> [2, 4, ..., 256], rsvdCnt 128
    st = _st(src=(0, "uint32", np.arange(1, 257)))
    t = T("uint32", 0, 256)
    out, cnt = ref.GatherMask(st, t, t, 2, False, 0, (1, 4, 8, 0), profile=P)
    assert out.fault == 0 and cnt == 128
    np.testing.assert_array_equal(ref.ub_read(out, 0, "uint32", 128), np.arange(2, 257, 2))
    np.testing.assert_array_equal(ref.ub_read(out, 512, "uint32", 128), np.arange(129, 257))  # untouched


@pytest.mark.parametrize("rs", [4, 8])
def test_gathermask_mask70_config1(rs):
    # Counter 配置方式一: 70 elements per repeat, 2 repeats, pattern 0x99999999 (e % 4 in {0, 3}),
    # src1RepeatStride 0; repeat 1 starts rs*8 elements later; 35 kept per repeat.
    src = np.arange(1, 257)
    st = _st(src=(0, "uint32", src), pat=(2048, "uint32", [0x99999999] * 8))
    st.mask_mode = 1
    out, cnt = ref.GatherMask(
        st, T("uint32", 4096), T("uint32", 0), T("uint32", 2048, 8), True, 70, (1, 2, rs, 0), profile=P
    )
    exp = [src[r * rs * 8 + e] for r in range(2) for e in range(70) if e % 4 in (0, 3)]
    assert out.fault == 0 and cnt == 70 == len(exp)
    np.testing.assert_array_equal(ref.ub_read(out, 4096, "uint32", 70), exp)
    assert out.mask_mode == 0 and out.rsvd_cnt == 70
    np.testing.assert_array_equal(out.vmask, [70, 0, 0, 0, 0, 0, 0, 0])  # 910b vmask_after = count


def test_gathermask_mask70_config2_310p():
    src = np.arange(1, 257)
    st = _st("ascend310p", src=(0, "uint32", src), pat=(2048, "uint32", [0x99999999] * 8))
    out, cnt = ref.GatherMask(
        st,
        T("uint32", 4096),
        T("uint32", 0),
        T("uint32", 2048, 8),
        True,
        70,
        (1, 2, 4, 0),
        profile="ascend310p",
    )
    exp = [src[e] for e in range(64) if e % 4 in (0, 3)] + [src[32 + e] for e in range(6) if e % 4 in (0, 3)]
    assert out.fault == 0 and cnt == 35 == len(exp)
    np.testing.assert_array_equal(ref.ub_read(out, 4096, "uint32", 35), exp)


@pytest.mark.parametrize(
    "p,keep", [(1, [0, 2]), (2, [1, 3]), (3, [0]), (4, [1]), (5, [2]), (6, [3]), (7, [0, 1, 2, 3])]
)
def test_gathermask_builtin_patterns_int16(p, keep):
    src = np.arange(256) - 100
    st = _st(src=(0, "int16", src))
    out, cnt = ref.GatherMask(st, T("int16", 4096), T("int16", 0), p, False, 0, (1, 2, 8, 8), profile=P)
    exp = [src[r * 128 + e] for r in range(2) for e in range(128) if e % 4 in keep]
    assert cnt == len(exp)
    np.testing.assert_array_equal(ref.ub_read(out, 4096, "int16", cnt), exp)


def test_gathermask_user_pattern_bits_and_block_stride():
    # bit e of the pattern (LSB first) keeps element e; src0BlockStride 2 skips every other block
    src = np.arange(512)
    pat = np.zeros(8, np.uint16)
    pat[0] = 0b1000_0000_0000_0101  # e = 0, 2, 15
    pat[1] = 0x0001  # e = 16 (block 1 -> UB block 2)
    st = _st(src=(0, "uint16", src), pat=(2048, "uint16", pat))
    out, cnt = ref.GatherMask(
        st, T("uint16", 4096), T("uint16", 0), T("uint16", 2048), False, 0, (2, 1, 8, 8), profile=P
    )
    assert out.fault == 0 and cnt == 4
    np.testing.assert_array_equal(ref.ub_read(out, 4096, "uint16", 4), [0, 2, 15, 32])


def test_gathermask_zero_pattern_is_not_a_nop():
    st = _st(src=(0, "uint32", np.arange(64)), pat=(2048, "uint32", [0] * 8))
    st.rsvd_cnt = 7
    out, cnt = ref.GatherMask(
        st, T("uint32", 4096), T("uint32", 0), T("uint32", 2048), False, 5, (1, 1, 8, 8), profile=P
    )
    assert cnt == 0 and out.rsvd_cnt == 0 and out.fault == 0
    np.testing.assert_array_equal(out.vmask, [5, 0, 0, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(out.ub, st.ub)


def test_gathermask_zero_repeat_and_faults():
    st = _st(src=(0, "uint32", np.arange(64)))
    st.rsvd_cnt = 9
    out, cnt = ref.GatherMask(st, T("uint32", 4096), T("uint32", 0), 1, False, 0, (1, 0, 8, 8), profile=P)
    assert cnt == 9 and out.fault == 0  # NOP on 910b
    out, cnt = ref.GatherMask(
        st, T("uint32", 4096), T("uint32", 0), 1, False, 0, (1, 0, 8, 8), profile="ascend950"
    )
    assert out.fault == Fault.UNDEFINED and cnt == 9
    out, _ = ref.GatherMask(st, T("uint32", 4100), T("uint32", 0), 1, False, 0, (1, 1, 8, 8), profile=P)
    assert out.fault == Fault.MISALIGNED
    # dst overlapping the next repeat's src0 (repeat 0 keeps 32 elements = 4 blocks at 256..383)
    out, _ = ref.GatherMask(st, T("uint32", 256), T("uint32", 0), 2, False, 0, (1, 2, 8, 8), profile=P)
    assert out.fault & Fault.REPEAT_DEPENDENCY
    out, _ = ref.GatherMask(st, T("uint32", 0), T("uint32", 0), 7, False, 0, (1, 2, 8, 8), profile=P)
    assert out.fault == 0  # in place: the allowed 100 % overlap
    out, _ = ref.GatherMask(
        st, T("uint32", 0), T("uint32", 0), 2, False, np.int32(0), (1, np.int32(300), 8, 8), profile=P
    )
    assert out.fault == Fault.BAD_PARAM


def test_gathermask_errors():
    st = _st()
    with pytest.raises(UsageError):
        ref.GatherMask(st, T("uint16", 0), T("uint16", 0), 8, False, 0, (1, 1, 8, 8), profile=P)
    with pytest.raises(UsageError):
        ref.GatherMask(st, T("uint16", 0), T("uint16", 0), 7, False, 0, (1, 1, 8, 8), profile="ascend310p")
    with pytest.raises(UsageError):
        ref.GatherMask(st, T("uint16", 0), T("uint16", 0), 1, True, 0, (1, 1, 8, 8), profile=P)
    with pytest.raises(UsageError):
        ref.GatherMask(st, T("uint16", 0), T("uint16", 0), T("uint32", 64), False, 0, (1, 1, 8, 8), profile=P)
    with pytest.raises(UnsupportedError):
        ref.GatherMask(st, T("uint16", 0), T("uint16", 0), 1, False, 0, (1, 1, 8, 8), profile="ascend910")
    with pytest.raises(UnsupportedError):
        ref.GetGatherMaskRemainCount(st, profile="ascend950")


def test_gathermask_950_pattern_vmask_and_mode():
    st = _st("ascend950", src=(0, "int16", np.arange(128)))
    st.mask_mode = 1
    out, cnt = ref.GatherMask(
        st, T("int16", 4096), T("int16", 0), 1, False, 0, (1, 1, 8, 8), profile="ascend950"
    )
    assert cnt == 64 and out.mask_mode == 1  # mode_after = unchanged
    np.testing.assert_array_equal(out.vmask, [0x55555555] * 4 + [0] * 4)


# == shifts, hand-computed ============================================================================

B16 = 0b1010101010101010


def _one(api, dtype, vals, n, profile=P, **kw):
    st = _st(profile, src=(0, dtype, vals))
    k = len(vals)
    out = getattr(ref, api)(st, T(dtype, 4096, k), T(dtype, 0, k), n, k, profile=profile, **kw)
    assert out.fault == 0
    return ref.ub_read(out, 4096, dtype, k)


def test_shift_page_binary_examples():
    assert _one("ShiftRight", "uint16", [B16], 1)[0] == 0b0101010101010101
    assert _one("ShiftRight", "int16", [B16 - 65536], 1).view(np.uint16)[0] == 0b1101010101010101
    assert _one("ShiftRight", "int16", [B16 - 65536], 3).view(np.uint16)[0] == 0b1111010101010101
    assert _one("ShiftLeft", "uint16", [B16], 1)[0] == 0b0101010101010100
    assert _one("ShiftLeft", "int16", [B16 - 65536], 1).view(np.uint16)[0] == 0b1101010101010100
    assert _one("ShiftLeft", "int16", [B16 - 65536], 3).view(np.uint16)[0] == 0b1101010101010000


def test_shift_edges_bitwidth_inclusive():
    np.testing.assert_array_equal(_one("ShiftRight", "int16", [-5, 5, -32768], 16), [-1, 0, -1])
    np.testing.assert_array_equal(_one("ShiftRight", "uint32", [2**32 - 1], 32), [0])
    np.testing.assert_array_equal(_one("ShiftLeft", "int16", [-5, 5], 16), [-32768, 0])
    np.testing.assert_array_equal(_one("ShiftLeft", "int16", [-5, 5], 0), [-5, 5])
    np.testing.assert_array_equal(_one("ShiftLeft", "uint16", [3], 16), [0])
    with pytest.raises(UsageError):
        _one("ShiftLeft", "int16", [1], 17)
    with pytest.raises(UsageError):
        _one("ShiftRight", "uint16", [1], -1)


def test_shift_saturating_950():
    p = "ascend950"
    np.testing.assert_array_equal(_one("ShiftRight", "int32", [-5, 5], 40, profile=p), [-1, 0])
    np.testing.assert_array_equal(_one("ShiftLeft", "int32", [-5, 5], 40, profile=p), [0, 0])
    np.testing.assert_array_equal(_one("ShiftRight", "uint8", [255], 9, profile=p), [0])


def test_shift_round_en():
    st = _st(src=(0, "int16", [17, -17, -16, 16, 15, -1]))
    d, s = T("int16", 4096, 6), T("int16", 0, 6)
    out = ref.ShiftRight(st, d, s, 5, 128, 1, UnaryRepeatParams(), roundEn=True, profile=P)
    np.testing.assert_array_equal(ref.ub_read(out, 4096, "int16", 6), [1, -1, 0, 1, 0, 0])
    out = ref.ShiftRight(st, d, s, 0, 128, 1, UnaryRepeatParams(), True, profile=P)
    np.testing.assert_array_equal(ref.ub_read(out, 4096, "int16", 6), [17, -17, -16, 16, 15, -1])
    out = ref.ShiftRight(st, d, s, 16, 128, 1, UnaryRepeatParams(), True, profile=P)
    np.testing.assert_array_equal(ref.ub_read(out, 4096, "int16", 6), 0)
    with pytest.raises(UsageError):
        ref.ShiftRight(st, d, s, 5, 6, roundEn=True, profile=P)
    with pytest.raises(UsageError):
        ref.ShiftRight(_st("ascend310b"), d, s, 5, 128, 1, UnaryRepeatParams(), True, profile="ascend310b")
    out = ref.ShiftRight(
        _st("ascend310b"), d, s, 5, 128, 1, UnaryRepeatParams(), np.bool_(True), profile="ascend310b"
    )
    assert out.fault == Fault.BAD_PARAM


def test_shift_traced_amount_out_of_range_and_unsupported():
    st = _st(src=(0, "int16", [1]))
    out = ref.ShiftLeft(st, T("int16", 4096), T("int16", 0), np.int16(17), 16, profile=P)
    assert out.fault == Fault.BAD_PARAM
    np.testing.assert_array_equal(out.ub, st.ub)
    for prof in ("ascend910", "ascend310p"):
        with pytest.raises(UnsupportedError):
            ref.ShiftLeft(_st(prof), T("int16", 4096), T("int16", 0), 1, 16, profile=prof)


def test_tensor_shift_pages_950():
    p = "ascend950"
    st = _st(p, src=(0, "int16", np.arange(1, 513)), amt=(2048, "int16", [2] * 512))
    args = (T("int16", 4096, 512), T("int16", 0, 512), T("int16", 2048, 512), 512)
    left = ref.ShiftLeft(st, *args, profile=p)
    right = ref.ShiftRightTensor(st, *args, profile=p)
    np.testing.assert_array_equal(ref.ub_read(left, 4096, "int16", 512), np.arange(1, 513) * 4)
    np.testing.assert_array_equal(ref.ub_read(right, 4096, "int16", 512), np.arange(1, 513) >> 2)
    st = _st(p, src=(0, "int32", [-5, 5, -1, 1]), amt=(2048, "int32", [40, 40, 31, 3]))
    args = (T("int32", 4096, 4), T("int32", 0, 4), T("int32", 2048, 4), 4)
    np.testing.assert_array_equal(
        ref.ub_read(ref.ShiftLeftTensor(st, *args, profile=p), 4096, "int32", 4), [-1, 0, -(2**31), 8]
    )
    np.testing.assert_array_equal(
        ref.ub_read(ref.ShiftRightTensor(st, *args, profile=p), 4096, "int32", 4), [-1, 0, -1, 0]
    )
    st2 = ref.ub_write(st, 2048, "int32", [-1])
    assert ref.ShiftRightTensor(st2, *args, profile=p).fault == Fault.BAD_PARAM
