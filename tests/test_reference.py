"""Tests of the literal NumPy reference (ascend_jax/reference).

Expected values come from the vendor pages (result examples), from the seed conformance case, or
are computed by hand in the test; never from the reference's own output. Floats are compared by
bit pattern.
"""

import dataclasses
import json
import math
import pathlib
import random
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.profile import Reserved, available_profiles, load_profile
from ascend_jax.reference import (
    MASK_PLACEHOLDER,
    Adds,
    GetCtrlSpr,
    GetSaturationFlag,
    LocalTensor,
    Maxs,
    Mins,
    Muls,
    ResetCtrlSpr,
    ResetMask,
    SetCtrlSpr,
    SetMaskCount,
    SetMaskNorm,
    SetSaturationFlag,
    SetVectorMask,
    UnaryRepeatParams,
    reset_state,
    ub_read,
    ub_write,
)
from ascend_jax.reference import numerics as N

SHARED = pathlib.Path(__file__).resolve().parents[2] / "shared"
U64 = (1 << 64) - 1
API = {"Adds": Adds, "Muls": Muls, "Maxs": Maxs, "Mins": Mins}


@pytest.fixture(scope="module")
def p():
    return load_profile("ascend910b")


def vmask_int(st):
    return sum(int(w) << (32 * i) for i, w in enumerate(st.vmask))


def bits16(a):
    return np.asarray(a).view(np.uint16)


def half_bits(x):
    return int(np.array([x], dtype=np.float16).view(np.uint16)[0])


def T(dtype, addr, n=0):
    return LocalTensor(dtype, addr, n)


def same_state(a, b):
    return (
        np.array_equal(a.ub, b.ub)
        and np.array_equal(a.vmask, b.vmask)
        and a.mask_mode == b.mask_mode
        and np.array_equal(a.cmpmask, b.cmpmask)
        and np.array_equal(a.ctrl, b.ctrl)
        and a.rsvd_cnt == b.rsvd_cnt
        and a.fault == b.fault
    )


# =============================================================================================
# State


def test_reset_state(p):
    st = reset_state(p)
    assert st.ub.dtype == np.uint8 and st.ub.size == 196608 and not st.ub.any()
    assert st.vmask.dtype == np.uint32 and st.vmask.shape == (8,)
    assert vmask_int(st) == (1 << 128) - 1  # ResetMask state, 128-bit register
    assert st.mask_mode == 0 and st.fault == 0 and st.rsvd_cnt == 0
    assert st.cmpmask.dtype == np.uint32 and st.cmpmask.shape == (4,) and not st.cmpmask.any()
    assert st.ctrl.dtype == np.uint32 and st.ctrl.shape == (2,) and not st.ctrl.any()
    assert reset_state(p, ub_bytes=4096).ub.size == 4096


def test_reset_state_ctrl_reset_value():
    if "ascend950" not in available_profiles():
        pytest.skip("no ascend950 profile")
    p950 = load_profile("ascend950")
    st = reset_state(p950)
    assert GetCtrlSpr(st, 60, 60, profile=p950) == (p950.ctrl_reset_value >> 60) & 1
    assert vmask_int(st) == (1 << p950.vector_mask_bits) - 1


def test_inputs_are_not_mutated(p):
    st = ub_write(reset_state(p), 0, "int16", np.arange(1, 129))
    before = dataclasses.replace(st, ub=st.ub.copy(), vmask=st.vmask.copy(), ctrl=st.ctrl.copy())
    out = Adds(st, T("int16", 512), T("int16", 0), 5, 128, 1, UnaryRepeatParams(), profile=p)
    out = SetCtrlSpr(out, 48, 48, 1, profile=p)
    out = SetMaskCount(out, profile=p)
    assert same_state(st, before)
    assert not same_state(out, st)


def test_reference_does_not_import_jax():
    root = pathlib.Path(__file__).resolve().parents[1] / "ascend_jax" / "reference"
    for f in root.glob("*.py"):
        src = f.read_text(encoding="utf-8")
        assert "import jax" not in src and "from jax" not in src, f.name


# =============================================================================================
# Vendor examples


def _seed_case():
    path = pathlib.Path(__file__).resolve().parent / "data" / "seed_cases" / "Muls_1.json"
    if not path.is_file():
        pytest.skip(f"{path} not present")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("form", ["count", "continuous", "bitwise"])
def test_seed_muls_1(p, form):
    case = _seed_case()
    assert case["api"] == "Muls" and case["dtypes"]["dst"] == "int16_t"
    src = np.array(case["inputs"]["src"], dtype=np.int16)
    n = len(src)
    scalar = case["params"]["scalar"]
    st = ub_write(reset_state(p), 0, "int16", src)
    dst, srct = T("int16", 4096, n), T("int16", 0, n)
    if form == "count":
        assert case["params"]["mode"] == "count" and case["params"]["count"] == n
        out = Muls(st, dst, srct, scalar, case["params"]["count"], profile=p)
    elif form == "continuous":  # the page's alternative: mask = 128, repeat 4, {1, 1, 8, 8}
        out = Muls(st, dst, srct, scalar, 128, 4, UnaryRepeatParams(1, 1, 8, 8), profile=p)
    else:  # mask = {UINT64_MAX, UINT64_MAX}
        out = Muls(st, dst, srct, scalar, [U64, U64], 4, UnaryRepeatParams(1, 1, 8, 8), profile=p)
    assert out.fault == 0
    got = ub_read(out, 4096, "int16", n)
    checked = 0
    for i, e in enumerate(case["expected"]["dst"]):
        if e is not None:
            assert int(got[i]) == e, i
            checked += 1
    assert checked >= 4


# Transcribed from the 结果示例 of 基础算术/{Adds,Muls,Maxs,Mins}.md: input [1 2 3 ... 512], scalar 2.
PAGE_EXAMPLES = {
    "Adds": ({0: 3, 1: 4, 2: 5, 511: 514}, lambda x: x + 2),
    "Muls": ({0: 2, 1: 4, 2: 6, 511: 1024}, lambda x: x * 2),
    "Maxs": ({0: 2, 1: 2, 2: 3, 511: 512}, lambda x: np.maximum(x, 2)),
    "Mins": ({0: 1, 1: 2, 2: 2, 511: 2}, lambda x: np.minimum(x, 2)),
}


@pytest.mark.parametrize("api", sorted(PAGE_EXAMPLES))
@pytest.mark.parametrize("form", ["count", "continuous", "bitwise"])
def test_page_examples(p, api, form):
    printed, formula = PAGE_EXAMPLES[api]
    src = np.arange(1, 513, dtype=np.int16)
    st = ub_write(reset_state(p), 0, "int16", src)
    dst, srct = T("int16", 8192, 512), T("int16", 0, 512)
    fn = API[api]
    if form == "count":
        out = fn(st, dst, srct, 2, 512, profile=p)
    elif form == "continuous":
        out = fn(st, dst, srct, 2, 128, 4, UnaryRepeatParams(1, 1, 8, 8), profile=p)
    else:
        out = fn(st, dst, srct, 2, [U64, U64], 4, UnaryRepeatParams(1, 1, 8, 8), profile=p)
    assert out.fault == 0
    got = ub_read(out, 8192, "int16", 512)
    for i, v in printed.items():
        assert int(got[i]) == v
    # the elided middle follows the page's formula dst_i = f(src_i, 2)
    assert np.array_equal(got, formula(src.astype(np.int32)).astype(np.int16))


# =============================================================================================
# Masks


def test_bitwise_mask_8_2_enables_elements_3_and_65(p):
    # 掩码/通用说明.md: mask=[8, 2] -> only the 4th element (index 3) and the 66th (index 65)
    st = ub_write(reset_state(p), 0, "half", np.ones(128))
    st = ub_write(st, 1024, "half", np.full(128, 7.0))
    out = Adds(st, T("half", 1024), T("half", 0), 1.0, [8, 2], 1, UnaryRepeatParams(), profile=p)
    got = bits16(ub_read(out, 1024, "half", 128))
    want = np.full(128, half_bits(7.0), dtype=np.uint16)
    want[3] = want[65] = half_bits(2.0)
    assert np.array_equal(got, want)
    # level0_writes_mask_register: the register now holds the words as given
    assert vmask_int(out) == (2 << 64) | 8


def test_bitwise_mask_32bit_uses_low_word_only(p):
    st = ub_write(reset_state(p), 0, "float32", np.ones(64))
    out = Muls(
        st, T("float32", 512), T("float32", 0), 3.0, [(1 << 63) | 1, 0], 1, UnaryRepeatParams(), profile=p
    )
    got = ub_read(out, 512, "float32", 64).view(np.uint32)
    want = np.zeros(64, dtype=np.uint32)
    want[0] = want[63] = np.array([3.0], np.float32).view(np.uint32)[0]
    assert np.array_equal(got, want)
    with pytest.raises(UsageError):  # maskHigh must be 0 for 32-bit T
        Muls(st, T("float32", 512), T("float32", 0), 3.0, [1, 1], 1, UnaryRepeatParams(), profile=p)


@pytest.mark.parametrize(
    "dtype,mask,lanes_active,reg",
    [
        ("half", 200, 128, (1 << 128) - 1),  # > 128 runs as 128; register all ones
        ("half", 128, 128, (1 << 128) - 1),
        ("half", 100, 100, (1 << 100) - 1),  # register: low 100 bits
        ("float32", 100, 64, (1 << 128) - 1),  # > 64 runs as 64; n >= L -> all ones
        ("float32", 64, 64, (1 << 128) - 1),
        ("float32", 5, 5, 0b11111),
    ],
)
def test_continuous_mask_clamping(p, dtype, mask, lanes_active, reg):
    L = 256 // np.dtype(np.float16 if dtype == "half" else np.float32).itemsize
    st = ub_write(reset_state(p), 0, dtype, np.ones(2 * L))
    out = Adds(st, T(dtype, 4096), T(dtype, 0), 1.0, mask, 2, UnaryRepeatParams(), profile=p)
    got = ub_read(out, 4096, dtype, 2 * L).astype(np.float64)
    for r in range(2):  # the same mask applies to every repeat
        row = got[r * L : (r + 1) * L]
        assert (row[:lanes_active] == 2.0).all() and (row[lanes_active:] == 0.0).all()
    assert vmask_int(out) == reg


def test_normal_mode_mask_from_register(p):
    st = ub_write(reset_state(p), 0, "half", np.full(256, 3.0))
    st = SetMaskNorm(st, profile=p)
    st = SetVectorMask(st, "half", 1 << 1, (1 << 63) | 0b101, profile=p, mode="NORMAL")
    out = Muls(
        st,
        T("half", 4096),
        T("half", 0),
        2.0,
        MASK_PLACEHOLDER,
        2,
        UnaryRepeatParams(),
        profile=p,
        isSetMask=False,
    )
    got = ub_read(out, 4096, "half", 256).astype(np.float64)
    on = {0, 2, 63, 65, 128, 130, 191, 193}  # lanes 0, 2, 63, 65 of repeats 0 and 1
    for i in range(256):
        assert got[i] == (6.0 if i in on else 0.0), i
    assert np.array_equal(out.vmask, st.vmask)  # untouched


def test_count_form_normal_mode_isSetMask_false_uses_repeat0_and_vmask(p):
    st = ub_write(reset_state(p), 0, "half", np.full(256, 3.0))
    st = SetVectorMask(st, "half", 0, 0b1011, profile=p)
    out = Adds(st, T("half", 4096), T("half", 0), 1.0, 256, profile=p, isSetMask=False)
    got = ub_read(out, 4096, "half", 256).astype(np.float64)
    assert list(np.nonzero(got)[0]) == [0, 1, 3] and (got[[0, 1, 3]] == 4.0).all()
    assert np.array_equal(out.vmask, st.vmask) and out.mask_mode == 0


# =============================================================================================
# Strides


def _arange_half(st, addr, n):
    return ub_write(st, addr, "half", np.arange(n, dtype=np.float16))  # value = element index


def test_src_blk_stride_zero_reuses_first_block(p):
    st = _arange_half(reset_state(p), 0, 256)
    out = Adds(st, T("half", 8192), T("half", 0), 0.0, 128, 1, UnaryRepeatParams(1, 0, 8, 8), profile=p)
    got = ub_read(out, 8192, "half", 128).astype(np.int64)
    # every block of the repeat reads src block 0: elements 0..15 again and again
    assert np.array_equal(got, np.tile(np.arange(16), 8))


def test_src_rep_stride_zero_rereads_first_repeat(p):
    st = _arange_half(reset_state(p), 0, 512)
    out = Adds(st, T("half", 8192), T("half", 0), 1.0, 128, 3, UnaryRepeatParams(1, 1, 8, 0), profile=p)
    got = ub_read(out, 8192, "half", 384).astype(np.int64)
    assert np.array_equal(got, np.tile(np.arange(1, 129), 3))


def test_dst_block_and_repeat_strides(p):
    # src blk 2 rep 20, dst blk 2 rep 18; 2 repeats, 32 lanes per repeat (float32 mask 32)
    st = ub_write(reset_state(p), 0, "float32", np.arange(1024, dtype=np.float32))
    st = ub_write(st, 16384, "float32", np.full(1024, -1.0, dtype=np.float32))
    out = Adds(
        st, T("float32", 16384), T("float32", 0), 0.0, 32, 2, UnaryRepeatParams(2, 2, 18, 20), profile=p
    )
    got = ub_read(out, 16384, "float32", 1024)
    want = np.full(1024, -1.0, dtype=np.float32)
    # 8 float32 per block: repeat r, block b, element e -> src elem (r*20 + b*2)*8 + e,
    # dst elem (r*18 + b*2)*8 + e; 32 lanes = blocks 0..3
    for r in range(2):
        for b in range(4):
            for e in range(8):
                want[(r * 18 + b * 2) * 8 + e] = (r * 20 + b * 2) * 8 + e
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_dst_rep_stride_zero_last_writer_wins_with_partial_later_repeat(p):
    # Counter mode, count 133 half: repeat 0 has 128 active lanes, repeat 1 only lanes 0..4.
    # dstRepStride 0: both repeats write the same 128 elements; repeat 1 wins on lanes 0..4 only.
    st = ub_write(reset_state(p), 0, "half", np.concatenate([np.full(128, 1.0), np.full(128, 2.0)]))
    st = ub_write(st, 8192, "half", np.full(128, 9.0))
    st = SetMaskCount(st, profile=p)
    out = Muls(st, T("half", 8192), T("half", 0), 10.0, 133, 1, UnaryRepeatParams(1, 1, 0, 8), profile=p)
    assert out.fault == 0
    got = ub_read(out, 8192, "half", 128).astype(np.float64)
    assert (got[:5] == 20.0).all() and (got[5:] == 10.0).all()
    assert vmask_int(out) == 133 and out.mask_mode == 1  # Counter: low 64 bits = count


def test_dst_rep_stride_zero_normal_mode_last_repeat_wins(p):
    st = ub_write(reset_state(p), 0, "int32", np.arange(64 * 3, dtype=np.int32))
    out = Adds(st, T("int32", 8192), T("int32", 0), 0, 64, 3, UnaryRepeatParams(1, 1, 0, 8), profile=p)
    assert np.array_equal(ub_read(out, 8192, "int32", 64), np.arange(128, 192))


# =============================================================================================
# Counter mode


def test_counter_mode_external_high_dim(p):
    # 掩码/接口外设置Mask.md: SetMaskCount; SetVectorMask<half, COUNTER>(130);
    # Adds<half, false>(dst, src, v, MASK_PLACEHOLDER, 1, {2, 2, 16, 16})
    st = _arange_half(reset_state(p), 0, 2048)
    st = SetMaskCount(st, profile=p)
    st = SetVectorMask(st, "half", 130, profile=p, mode="COUNTER")
    assert vmask_int(st) == 130 and st.mask_mode == 1
    st = ub_write(st, 16384, "half", np.full(1024, -1.0))
    out = Adds(
        st,
        T("half", 16384),
        T("half", 0),
        1.0,
        MASK_PLACEHOLDER,
        1,
        UnaryRepeatParams(2, 2, 16, 16),
        profile=p,
        isSetMask=False,
    )
    assert out.fault == 0
    got = ub_read(out, 16384, "half", 1024).astype(np.float64)
    # 16 half per block, every other block (blk stride 2); elements 0..127 -> blocks 0,2,..,14;
    # elements 128, 129 -> repeat 1, which starts 16 blocks (= 256 elements) later
    active = [i for b in range(0, 16, 2) for i in range(b * 16, b * 16 + 16)] + [256, 257]
    want = np.full(1024, -1.0)
    for off in active:
        want[off] = off + 1.0  # src value = element offset (same strides), + 1
    assert np.array_equal(got, want)
    assert vmask_int(out) == 130 and out.mask_mode == 1  # registers untouched
    out2 = SetMaskNorm(out, profile=p)
    out2 = ResetMask(out2, profile=p)
    assert vmask_int(out2) == (1 << 128) - 1 and out2.mask_mode == 0


def test_counter_mode_count_form_isSetMask_false(p):
    # SetVectorMask.md: SetMaskCount; SetVectorMask<half, COUNTER>(128); Adds<half, false>(dst, src, num, 1)
    st = ub_write(reset_state(p), 0, "half", np.full(512, 5.0))
    st = SetMaskCount(st, profile=p)
    st = SetVectorMask(st, "half", 0, 130, profile=p, mode="COUNTER")
    out = Adds(st, T("half", 4096), T("half", 0), 2.0, 1, profile=p, isSetMask=False)
    got = ub_read(out, 4096, "half", 512).astype(np.float64)
    assert (got[:130] == 7.0).all() and (got[130:] == 0.0).all()
    assert vmask_int(out) == 130 and out.mask_mode == 1


def test_count_form_register_side_effects_counter_lowering(p):
    # count form: SetMaskCount ... ResetMask, SetMaskNorm -> all ones, Normal
    st = SetMaskCount(reset_state(p), profile=p)
    st = SetVectorMask(st, "half", 7, profile=p, mode="COUNTER")
    st = ub_write(st, 0, "half", np.ones(200))
    out = Adds(st, T("half", 4096), T("half", 0), 1.0, 200, profile=p)
    assert (ub_read(out, 4096, "half", 201).astype(np.float64) == [2.0] * 200 + [0.0]).all()
    assert vmask_int(out) == (1 << 128) - 1 and out.mask_mode == 0


def test_count_form_register_side_effects_repeat_loop():
    if "ascend910" not in available_profiles():
        pytest.skip("no ascend910 profile")
    p910 = load_profile("ascend910")
    if p910.level2_lowering != "repeat_loop":
        pytest.skip("ascend910 is not a repeat_loop profile")
    st = ub_write(reset_state(p910), 0, "half", np.ones(300))
    st = SetVectorMask(st, "half", 0, 1, profile=p910)
    out = Adds(st, T("half", 4096), T("half", 0), 1.0, 300, profile=p910)
    assert (ub_read(out, 4096, "half", 301).astype(np.float64) == [2.0] * 300 + [0.0]).all()
    assert vmask_int(out) == (1 << (300 - 256)) - 1  # tail 44 as a continuous mask
    out = Adds(st, T("half", 4096), T("half", 0), 1.0, 256, profile=p910)
    assert vmask_int(out) == (1 << 128) - 1  # no tail: last mask issued was the full one


# =============================================================================================
# Zero mask / count / repeat


def test_zero_count_repeat_mask_are_nops_on_910b(p):
    st = ub_write(reset_state(p), 0, "half", np.ones(128))
    st = SetVectorMask(st, "half", 0, 0b111, profile=p)
    for args in [
        (0,),
        (128, 0, UnaryRepeatParams()),
        (0, 1, UnaryRepeatParams()),
        ([0, 0], 1, UnaryRepeatParams()),
    ]:
        out = Adds(st, T("half", 4096), T("half", 0), 1.0, *args, profile=p)
        assert same_state(out, st), args  # nothing, not even the register side effects


def test_zero_repeat_and_count_fault_on_950():
    if "ascend950" not in available_profiles():
        pytest.skip("no ascend950 profile")
    p950 = load_profile("ascend950")
    if p950.zero_repeat != "fault" or p950.zero_count != "fault":
        pytest.skip("ascend950 does not fault on zero repeat/count")
    st = ub_write(reset_state(p950), 0, "half", np.ones(128))
    out = Adds(st, T("half", 4096), T("half", 0), 1.0, 0, profile=p950)
    assert out.fault == Fault.UNDEFINED and np.array_equal(out.ub, st.ub)
    out = Adds(out, T("half", 4096), T("half", 0), 1.0, 128, 0, UnaryRepeatParams(), profile=p950)
    assert out.fault == Fault.UNDEFINED


def test_zero_mask_error_profile(p):
    pe = dataclasses.replace(p, zero_mask="error")
    st = reset_state(pe)
    with pytest.raises(UsageError):
        Adds(st, T("half", 4096), T("half", 0), 1.0, 0, 1, UnaryRepeatParams(), profile=pe)
    with pytest.raises(UsageError):
        Adds(st, T("half", 4096), T("half", 0), 1.0, [0, 0], 1, UnaryRepeatParams(), profile=pe)
    # a zero that only the register holds is a run-time value: recorded as BAD_MASK
    st0 = SetVectorMask(st, "half", 0, 1, profile=pe)
    st0.vmask[:] = 0
    out = Adds(
        st0,
        T("half", 4096),
        T("half", 0),
        1.0,
        MASK_PLACEHOLDER,
        1,
        UnaryRepeatParams(),
        profile=pe,
        isSetMask=False,
    )
    assert out.fault == Fault.BAD_MASK and np.array_equal(out.ub, st0.ub)


# =============================================================================================
# Faults (each kind, and suppression)


def _fault_of(p, *args, api=Adds, st=None, **kw):
    st = reset_state(p) if st is None else st
    st = ub_write(st, 0, "half", np.ones(min(4096, st.ub.size // 2)))
    out = api(st, *args, profile=p, **kw)
    if out.fault:  # a faulting call is suppressed: only the fault word changes
        assert np.array_equal(out.ub, st.ub) and np.array_equal(out.vmask, st.vmask)
        assert out.mask_mode == st.mask_mode and np.array_equal(out.ctrl, st.ctrl)
    return out.fault


def test_fault_misaligned(p):
    assert _fault_of(p, T("half", 8192 + 16), T("half", 0), 1.0, 64) == Fault.MISALIGNED
    assert _fault_of(p, T("half", 8192), T("half", 2), 1.0, 128, 1, UnaryRepeatParams()) == Fault.MISALIGNED
    assert _fault_of(p, T("half", 8192), T("half", 0), 1.0, 64) == 0


def test_fault_out_of_ub(p):
    usable = p.ub_usable_bytes
    # last block of the usable UB is fine, one more block is not
    assert _fault_of(p, T("half", usable - 32), T("half", 0), 1.0, 16) == 0
    assert _fault_of(p, T("half", usable - 32), T("half", 0), 1.0, 17) == Fault.OUT_OF_UB
    assert _fault_of(p, T("half", 8192), T("half", -32), 1.0, 16) == Fault.OUT_OF_UB
    # the arena may be smaller than the UB
    small = reset_state(p, ub_bytes=4096)
    assert _fault_of(p, T("half", 0), T("half", 2048), 1.0, 1024, st=small) == 0
    assert _fault_of(p, T("half", 0), T("half", 2048), 1.0, 1025, st=small) == Fault.OUT_OF_UB
    # (src at 0, dst at 2048 would also be a REPEAT_DEPENDENCY: repeat 8 reads what repeat 0 wrote)
    assert (
        _fault_of(p, T("half", 2048), T("half", 0), 1.0, 1025, st=small)
        == Fault.OUT_OF_UB | Fault.REPEAT_DEPENDENCY
    )
    # inactive blocks do not count: mask 16 lanes = block 0 only, blocks 1..7 beyond the end
    assert _fault_of(p, T("half", usable - 32), T("half", 0), 1.0, 16, 1, UnaryRepeatParams()) == 0


def test_fault_dst_blk_stride_zero(p):
    assert (
        _fault_of(p, T("half", 8192), T("half", 0), 1.0, 128, 1, UnaryRepeatParams(0, 1, 8, 8))
        == Fault.DST_BLK_STRIDE_ZERO
    )


def test_fault_partial_overlap(p):
    # dst one block after src: src block 1 == dst block 0 inside repeat 0
    assert (
        _fault_of(p, T("half", 32), T("half", 0), 1.0, 128, 1, UnaryRepeatParams()) == Fault.PARTIAL_OVERLAP
    )
    # 100 % overlap in place is allowed
    assert _fault_of(p, T("half", 0), T("half", 0), 1.0, 128, 4, UnaryRepeatParams()) == 0
    # srcBlkStride 0 in place: src block 1 (= addr 0) is dst block 0
    assert (
        _fault_of(p, T("half", 0), T("half", 0), 1.0, 128, 1, UnaryRepeatParams(1, 0, 8, 8))
        == Fault.PARTIAL_OVERLAP
    )


def test_fault_repeat_dependency(p):
    # dst of repeat 0 is the src of repeat 1
    assert (
        _fault_of(p, T("half", 256), T("half", 0), 1.0, 128, 2, UnaryRepeatParams())
        == Fault.REPEAT_DEPENDENCY
    )
    # the other way round (dst behind src) is harmless
    assert _fault_of(p, T("half", 0), T("half", 256), 1.0, 128, 2, UnaryRepeatParams()) == 0
    # in place with repeat strides 0 re-reads what repeat 0 wrote
    assert (
        _fault_of(p, T("half", 0), T("half", 0), 1.0, 128, 2, UnaryRepeatParams(1, 1, 0, 0))
        == Fault.REPEAT_DEPENDENCY
    )
    # count form: same rule (dst one repeat ahead of src)
    assert _fault_of(p, T("half", 256), T("half", 0), 1.0, 256) == Fault.REPEAT_DEPENDENCY


def test_fault_scratch_collision(p):
    ps = dataclasses.replace(p, reserved=(Reserved("tmp", 16384, 8192, ("Adds",)),))
    assert _fault_of(ps, T("half", 16384 - 32), T("half", 0), 1.0, 16) == 0
    assert _fault_of(ps, T("half", 16384 - 32), T("half", 0), 1.0, 17) == Fault.SCRATCH_COLLISION
    assert _fault_of(ps, T("half", 8192), T("half", 16384 + 8192 - 32), 1.0, 16) == Fault.SCRATCH_COLLISION
    assert _fault_of(ps, T("half", 16384 - 32), T("half", 0), 1.0, 17, api=Muls) == 0  # not used by Muls


def test_fault_bad_mask_from_register(p):
    # ResetMask leaves all ones; in Counter mode its low 64 bits are a count > 2**32-1
    st = SetMaskCount(reset_state(p), profile=p)
    assert (
        _fault_of(
            p,
            T("half", 8192),
            T("half", 0),
            1.0,
            MASK_PLACEHOLDER,
            1,
            UnaryRepeatParams(),
            st=st,
            isSetMask=False,
        )
        == Fault.BAD_MASK
    )
    assert _fault_of(p, T("half", 8192), T("half", 0), 1.0, 1, st=st, isSetMask=False) == Fault.BAD_MASK
    # a mask argument in Counter mode is a count: the upper word must be 0
    assert (
        _fault_of(p, T("half", 8192), T("half", 0), 1.0, [5, 1], 1, UnaryRepeatParams(), st=st)
        == Fault.BAD_MASK
    )
    assert (
        _fault_of(p, T("half", 8192), T("half", 0), 1.0, 1 << 40, 1, UnaryRepeatParams(), st=st)
        == Fault.BAD_MASK
    )


def test_faults_accumulate_and_later_calls_run(p):
    st = ub_write(reset_state(p), 0, "half", np.ones(128))
    st = Adds(st, T("half", 8192 + 16), T("half", 0), 1.0, 128, profile=p)
    st = Adds(st, T("half", 8192), T("half", 0), 1.0, 128, 1, UnaryRepeatParams(0, 1, 8, 8), profile=p)
    assert st.fault == Fault.MISALIGNED | Fault.DST_BLK_STRIDE_ZERO
    st = Adds(st, T("half", 8192), T("half", 0), 1.0, 128, profile=p)
    assert st.fault == Fault.MISALIGNED | Fault.DST_BLK_STRIDE_ZERO
    assert (ub_read(st, 8192, "half", 128).astype(np.float64) == 2.0).all()


def test_several_fault_bits_in_one_call(p):
    f = _fault_of(p, T("half", 16), T("half", 0), 1.0, 128, 1, UnaryRepeatParams(0, 1, 8, 8))
    assert f == Fault.MISALIGNED | Fault.DST_BLK_STRIDE_ZERO


# =============================================================================================
# Numerics


def test_int16_wrap(p):
    st = ub_write(reset_state(p), 0, "int16", [32767, -32768, 300, -300, 1])
    out = Adds(st, T("int16", 512), T("int16", 0), 1, 5, profile=p)
    assert list(ub_read(out, 512, "int16", 5)) == [-32768, -32767, 301, -299, 2]
    out = Muls(st, T("int16", 512), T("int16", 0), 300, 5, profile=p)
    # 32767*300 = 9830100 = 150*65536 - 300 -> -300; -32768*300 = -150*65536 -> 0;
    # 300*300 = 90000 = 65536 + 24464 -> 24464; -90000 -> -24464; 1*300 -> 300
    assert list(ub_read(out, 512, "int16", 5)) == [-300, 0, 24464, -24464, 300]


def test_int32_wrap_and_scalar_wrap(p):
    st = ub_write(reset_state(p), 0, "int32", [2**31 - 1, -(2**31), 7])
    # the one scalar rule (issue 18): an int outside T's range is a usage error; aj.cast_scalar gives
    # the C++ conversion (2**32 + 1 -> 1)
    with pytest.raises(UsageError, match="scalarValue"):
        Adds(st, T("int32", 512), T("int32", 0), 2**32 + 1, 3, profile=p)
    from ascend_jax import cast_scalar

    assert cast_scalar(2**32 + 1, "int32") == 1
    out = Adds(st, T("int32", 512), T("int32", 0), cast_scalar(2**32 + 1, "int32"), 3, profile=p)
    assert list(ub_read(out, 512, "int32", 3)) == [-(2**31), -(2**31) + 1, 8]
    out = Maxs(st, T("int32", 512), T("int32", 0), -1, 3, profile=p)
    assert list(ub_read(out, 512, "int32", 3)) == [2**31 - 1, -1, 7]


def test_int_saturation_ctrl_bit_950():
    if "ascend950" not in available_profiles():
        pytest.skip("no ascend950 profile")
    p950 = load_profile("ascend950")
    if p950.int_saturation_ctrl_bit < 0:
        pytest.skip("no integer saturation bit")
    bit, sat = p950.int_saturation_ctrl_bit, p950.int_saturation_when_bit_is
    st = ub_write(reset_state(p950), 0, "int16", [32767, -32768, 5])
    st_wrap = SetCtrlSpr(st, bit, bit, 1 - sat, profile=p950)
    st_sat = SetCtrlSpr(st, bit, bit, sat, profile=p950)
    out = Adds(st_wrap, T("int16", 512), T("int16", 0), 1, 3, profile=p950)
    assert list(ub_read(out, 512, "int16", 3)) == [-32768, -32767, 6]
    out = Adds(st_sat, T("int16", 512), T("int16", 0), 1, 3, profile=p950)
    assert list(ub_read(out, 512, "int16", 3)) == [32767, -32767, 6]
    out = Muls(st_sat, T("int16", 512), T("int16", 0), -2, 3, profile=p950)
    assert list(ub_read(out, 512, "int16", 3)) == [-32768, 32767, -10]


def test_half_saturation_on_off(p):
    # CTRL[48] = 0 (reset) is the saturation mode on A2; SetCtrlSpr<48, 48>(1) turns it off
    vals = np.array([60000.0, -60000.0, np.inf, 0.0, 1.0], dtype=np.float16)
    st = ub_write(reset_state(p), 0, "half", vals)
    assert GetSaturationFlag(st, profile=p) is True
    out = Adds(st, T("half", 512), T("half", 0), 60000.0, 5, profile=p)
    # 60000+60000 -> inf -> +MAX; -60000+60000 -> 0; inf -> +MAX; 0 + 60000 -> 60000 (rounded)
    assert list(bits16(ub_read(out, 512, "half", 5))) == [0x7BFF, 0x0000, 0x7BFF, 0x7B53, 0x7B53]
    out = Muls(st, T("half", 512), T("half", 0), 0.0, 5, profile=p)  # inf*0 = NaN -> +0
    assert list(bits16(ub_read(out, 512, "half", 5))) == [0x0000, 0x8000, 0x0000, 0x0000, 0x0000]
    out = Muls(st, T("half", 512), T("half", 0), -60000.0, 5, profile=p)
    assert list(bits16(ub_read(out, 512, "half", 5)))[:3] == [0xFBFF, 0x7BFF, 0xFBFF]

    off = SetCtrlSpr(st, 48, 48, 1, profile=p)
    assert GetCtrlSpr(off, 48, 48, profile=p) == 1 and GetSaturationFlag(off, profile=p) is False
    out = Adds(off, T("half", 512), T("half", 0), 60000.0, 5, profile=p)
    assert list(bits16(ub_read(out, 512, "half", 5))) == [0x7C00, 0x0000, 0x7C00, 0x7B53, 0x7B53]
    out = Muls(off, T("half", 512), T("half", 0), 0.0, 5, profile=p)  # canonical NaN
    assert list(bits16(ub_read(out, 512, "half", 5))) == [0x0000, 0x8000, 0x7E00, 0x0000, 0x0000]

    # SetSaturationFlag(false) is the same as SetCtrlSpr<48, 48>(1); ResetCtrlSpr restores
    assert np.array_equal(SetSaturationFlag(st, False, profile=p).ctrl, off.ctrl)
    assert np.array_equal(SetSaturationFlag(off, True, profile=p).ctrl, st.ctrl)
    assert np.array_equal(SetCtrlSpr(off, 48, 48, 0, profile=p).ctrl, st.ctrl)


def test_float32_never_saturates(p):
    st = ub_write(reset_state(p), 0, "float32", np.array([3e38, np.inf], dtype=np.float32))
    out = Adds(st, T("float32", 512), T("float32", 0), 3e38, 2, profile=p)
    assert list(ub_read(out, 512, "float32", 2).view(np.uint32)) == [0x7F800000, 0x7F800000]
    out = Muls(st, T("float32", 512), T("float32", 0), 0.0, 2, profile=p)
    assert list(ub_read(out, 512, "float32", 2).view(np.uint32)) == [0, 0x7FC00000]


def test_nan_canonical_and_max_min_rules(p):
    st = SetCtrlSpr(reset_state(p), 48, 48, 1, profile=p)  # no saturation: NaN stays visible
    src = np.array([0xFD01, 0x7C01, 0x8000, 0x0000, 0x3C00], dtype=np.uint16)  # -NaN, sNaN, -0, +0, 1
    st = ub_write(st, 0, "uint16", src)
    out = Adds(st, T("half", 512), T("half", 0), 1.0, 5, profile=p)
    assert list(bits16(ub_read(out, 512, "half", 5))) == [0x7E00, 0x7E00, 0x3C00, 0x3C00, 0x4000]
    out = Maxs(st, T("half", 512), T("half", 0), 0.0, 5, profile=p)  # max(x, +0)
    assert list(bits16(ub_read(out, 512, "half", 5))) == [0x7E00, 0x7E00, 0x0000, 0x0000, 0x3C00]
    out = Mins(st, T("half", 512), T("half", 0), -0.0, 5, profile=p)  # min(x, -0)
    assert list(bits16(ub_read(out, 512, "half", 5))) == [0x7E00, 0x7E00, 0x8000, 0x8000, 0x8000]
    out = Maxs(st, T("half", 512), T("half", 0), -0.0, 5, profile=p)  # max(-0, -0) = -0, max(+0, -0) = +0
    assert list(bits16(ub_read(out, 512, "half", 5)))[2:] == [0x8000, 0x0000, 0x3C00]
    out = Adds(st, T("half", 512), T("half", 0), -0.0, 5, profile=p)  # -0 + -0 = -0; +0 + -0 = +0
    assert list(bits16(ub_read(out, 512, "half", 5)))[2:] == [0x8000, 0x0000, 0x3C00]
    # float32 canonical NaN and inf - inf
    st = ub_write(st, 0, "uint32", np.array([0xFFC12345, 0x7F800000], dtype=np.uint32))
    out = Adds(st, T("float32", 512), T("float32", 0), -math.inf, 2, profile=p)
    assert list(ub_read(out, 512, "float32", 2).view(np.uint32)) == [0x7FC00000, 0x7FC00000]


def test_half_rounding_ties_to_even(p):
    # 2048 + 1 = 2049 is a tie between 2048 and 2050 (ulp 2): even -> 2048; 2051 -> 2052
    st = ub_write(reset_state(p), 0, "half", np.array([2048.0, 2050.0], dtype=np.float16))
    out = Adds(st, T("half", 512), T("half", 0), 1.0, 2, profile=p)
    assert list(bits16(ub_read(out, 512, "half", 2))) == [0x6800, 0x6802]  # 2048, 2052
    # the scalar is rounded to half first: 0.1 -> 0x2E66
    st = ub_write(reset_state(p), 0, "half", np.zeros(1))
    out = Adds(st, T("half", 512), T("half", 0), 0.1, 1, profile=p)
    assert list(bits16(ub_read(out, 512, "half", 1))) == [0x2E66]


def test_subnormals_preserved_on_910b(p):
    st = ub_write(reset_state(p), 0, "uint16", np.array([0x0001, 0x8001, 0x0400], dtype=np.uint16))
    out = Muls(st, T("half", 512), T("half", 0), 0.5, 3, profile=p)
    # 2^-24 * 0.5 is a tie between 0 and 2^-24 -> even (0); -2^-24*0.5 -> -0; 2^-14 * 0.5 = 2^-15 (subnormal)
    assert list(bits16(ub_read(out, 512, "half", 3))) == [0x0000, 0x8000, 0x0200]
    out = Adds(st, T("half", 512), T("half", 0), 0.0, 3, profile=p)
    assert list(bits16(ub_read(out, 512, "half", 3))) == [0x0001, 0x8001, 0x0400]


def _ftz_profiles():
    out = []
    if "ascend950" in available_profiles() and load_profile("ascend950").float_subnormals == "flush_to_zero":
        out.append("ascend950")
    return out


@pytest.mark.parametrize(
    "name", _ftz_profiles() or [pytest.param("ascend950", marks=pytest.mark.skip("no FTZ ascend950"))]
)
def test_subnormal_flush_on_ftz_profile(name):
    pf = load_profile(name)
    src = np.array([0x0001, 0x8001, 0x0400, 0x83FF, 0x3C00], dtype=np.uint16)
    st = ub_write(reset_state(pf), 0, "uint16", src)
    out = Adds(st, T("half", 512), T("half", 0), 0.0, 5, profile=pf)
    # subnormal inputs read as signed zero: +0 + +0 = +0, -0 + +0 = +0
    assert list(bits16(ub_read(out, 512, "half", 5))) == [0x0000, 0x0000, 0x0400, 0x0000, 0x3C00]
    out = Muls(st, T("half", 512), T("half", 0), 0.5, 5, profile=pf)
    # 2^-14 * 0.5 = 2^-15 is subnormal -> flushed to +0; -0 * 0.5 = -0
    assert list(bits16(ub_read(out, 512, "half", 5))) == [0x0000, 0x8000, 0x0000, 0x8000, 0x3800]
    out = Maxs(st, T("half", 512), T("half", 0), -1.0, 5, profile=pf)
    assert list(bits16(ub_read(out, 512, "half", 5))) == [0x0000, 0x8000, 0x0400, 0x8000, 0x3C00]
    # a subnormal scalar is an input too
    out = Adds(st, T("half", 512), T("half", 0), 2.0**-20, 5, profile=pf)
    assert list(bits16(ub_read(out, 512, "half", 5))) == [0x0000, 0x0000, 0x0400, 0x0000, 0x3C00]
    # rounded first, then flushed: 2^-14 * 1.5 * 0.66650390625 (2/3 rounded to half) is
    # 1023.75 * 2^-24, subnormal before rounding, but rounds up to 1024 * 2^-24 = 2^-14, the
    # smallest normal, which is not flushed
    st2 = ub_write(reset_state(pf), 0, "half", np.array([2.0**-14 * 1.5], dtype=np.float16))
    out = Muls(st2, T("half", 512), T("half", 0), 2.0 / 3.0, 1, profile=pf)  # 2^-14 * (1.5 * 0.66650390625)
    assert list(bits16(ub_read(out, 512, "half", 1))) == [0x0400]


def test_subnormal_flush_synthetic_profile(p):
    pf = dataclasses.replace(p, float_subnormals="flush_to_zero")
    st = ub_write(
        reset_state(pf), 0, "uint32", np.array([0x00000001, 0x80400000, 0x00800000], dtype=np.uint32)
    )
    out = Muls(st, T("float32", 512), T("float32", 0), 0.5, 3, profile=pf)
    assert list(ub_read(out, 512, "float32", 3).view(np.uint32)) == [0, 0x80000000, 0]
    out = Muls(st, T("float32", 512), T("float32", 0), 0.5, 3, profile=p)  # preserve
    assert list(ub_read(out, 512, "float32", 3).view(np.uint32)) == [0, 0x80200000, 0x00400000]


def test_bfloat16_on_950_and_exact_scalar_conversion():
    if "ascend950" not in available_profiles():
        pytest.skip("no ascend950 profile")
    p950 = load_profile("ascend950")
    if "bfloat16" not in p950.api("Adds").dtypes:
        pytest.skip("no bfloat16 Adds")
    st = ub_write(reset_state(p950), 0, "bfloat16", np.zeros(2, dtype=ml_dtypes.bfloat16))
    # 2^60 + 2^52 + 1: via float64 it would become the tie 2^60 + 2^52 and round to even (2^60);
    # the exact value is above the tie -> 2^60 + 2^53 (fraction 0000001)
    out = Adds(st, T("bfloat16", 512), T("bfloat16", 0), 2**60 + 2**52 + 1, 2, profile=p950)
    assert list(ub_read(out, 512, "bfloat16", 2).view(np.uint16)) == [0x5D81, 0x5D81]
    out = Adds(st, T("bfloat16", 512), T("bfloat16", 0), 2**60 + 2**52, 2, profile=p950)
    assert list(ub_read(out, 512, "bfloat16", 2).view(np.uint16)) == [0x5D80, 0x5D80]


# -- the rounding primitive against NumPy / ml_dtypes, and the double-rounding claim ------------


@pytest.mark.parametrize(
    "name,np_t,u_t",
    [
        ("half", np.float16, np.uint16),
        ("float32", np.float32, np.uint32),
        ("bfloat16", ml_dtypes.bfloat16, np.uint16),
    ],
)
def test_round_to_bits_matches_numpy_on_representable_and_ties(name, np_t, u_t):
    fmt = N.FORMATS[name]
    rng = np.random.default_rng(1)
    # every representable value decodes and re-encodes to itself
    pats = rng.integers(0, 1 << fmt.width, size=3000, dtype=np.uint64)
    for b in [int(x) for x in pats]:
        v = N.decode(b, fmt)
        if math.isnan(v):
            assert N.round_to_bits(v, fmt) == fmt.canonical_nan_bits
        else:
            assert N.round_to_bits(v, fmt) == b
            assert np.array([b], dtype=u_t).view(np_t)[0].astype(np.float64) == v or v != v
    # midpoints between neighbours (ties) and random float64 values: direct float64 -> T casts
    if name == "bfloat16":
        return  # ml_dtypes may convert float64 through float32; checked via Fractions below
    for b in [int(x) for x in pats]:
        v = N.decode(b, fmt)
        if not math.isfinite(v):
            continue
        nxt = N.decode(b + 1, fmt) if (b + 1) < (1 << fmt.width) else math.inf
        if math.isfinite(nxt) and (v >= 0) == (nxt >= 0):
            mid = (v + nxt) / 2  # exact in float64
            assert N.round_to_bits(mid, fmt) == int(np.array([mid]).astype(np_t).view(u_t)[0])
    for x in rng.standard_normal(3000) * np.exp2(rng.integers(-160, 130, 3000)):
        with np.errstate(over="ignore"):
            want = int(np.array([x]).astype(np_t).view(u_t)[0])
        assert N.round_to_bits(float(x), fmt) == want


@pytest.mark.parametrize("name", ["half", "bfloat16", "float32"])
def test_float64_intermediate_equals_exact_rounding(name):
    fmt = N.FORMATS[name]
    rnd = random.Random(7)
    for _ in range(4000):
        a = N.decode(rnd.getrandbits(fmt.width), fmt)
        b = N.decode(rnd.getrandbits(fmt.width), fmt)
        if not (math.isfinite(a) and math.isfinite(b)):
            continue
        for op, exact in ((N.f_add, Fraction(a) + Fraction(b)), (N.f_mul, Fraction(a) * Fraction(b))):
            got = N.round_to_bits(op(a, b), fmt)
            want = N.round_to_bits(exact, fmt)
            if exact == 0:
                continue  # the sign of an exact zero is IEEE's business, not the Fraction's
            assert got == want, (name, a, b, op.__name__)


# =============================================================================================
# Static misuse


def test_static_errors(p):
    st = reset_state(p)
    d, s = T("half", 4096), T("half", 0)
    rp = UnaryRepeatParams()
    with pytest.raises(UnsupportedError):  # int8 is not an A2 Adds dtype
        Adds(st, T("int8", 4096), T("int8", 0), 1, 32, profile=p)
    with pytest.raises(UsageError):  # dtype mismatch
        Adds(st, d, T("float32", 0), 1.0, 32, profile=p)
    with pytest.raises(UsageError):
        Adds(st, d, s, 1.0, 128, 256, rp, profile=p)  # repeatTime > 255
    with pytest.raises(UsageError):
        Adds(st, d, s, 1.0, 128, -1, rp, profile=p)
    with pytest.raises(UsageError):
        Adds(st, d, s, 1.0, 128, 1, UnaryRepeatParams(65536, 1, 8, 8), profile=p)
    with pytest.raises(UsageError):
        Adds(st, d, s, 1.0, 128, 1, UnaryRepeatParams(1, 1, 256, 8), profile=p)
    with pytest.raises(UsageError):
        Adds(st, d, s, 1.0, -1, profile=p)  # negative count
    with pytest.raises(UsageError):
        Adds(st, d, s, 1.0, p.ub_usable_bytes // 2 + 1, profile=p)
    Adds(st, T("half", 0), T("half", 0), 1.0, p.ub_usable_bytes // 2, profile=p)  # the maximum is fine
    with pytest.raises(UsageError):
        Adds(st, d, s, 1.0, -5, 1, rp, profile=p)  # negative continuous mask
    with pytest.raises(UsageError):
        Adds(st, d, s, 1.0, 1 << 64, 1, rp, profile=p)
    with pytest.raises(UsageError):
        Adds(st, d, s, 1.0, [1, 2, 3], 1, rp, profile=p)  # 3 words on a 128-bit register
    with pytest.raises(UsageError):
        Adds(st, d, s, 1.0, [1 << 64, 0], 1, rp, profile=p)
    with pytest.raises(UsageError):
        Adds(st, T("int32", 4096), T("int32", 0), 1, [1, 1], 1, rp, profile=p)  # 32-bit: mask[1] == 0
    with pytest.raises(UsageError):
        Adds(st, d, s, 1.0, MASK_PLACEHOLDER, 1, rp, profile=p)  # placeholder needs isSetMask=False
    with pytest.raises(UsageError):
        Adds(st, d, s, 1.0, 128, 1, rp, profile=p, isSetMask=False)  # must be the placeholder
    with pytest.raises(TypeError):
        Adds(st, d, s, 1.0, 128, 1, profile=p)
    with pytest.raises(UsageError):  # the ignored level-2 count is still range-checked
        Adds(st, d, s, 1.0, -5, profile=p, isSetMask=False)
    with pytest.raises(UsageError):  # no conversion of a fractional value into an integer T
        Adds(st, T("int16", 4096), T("int16", 0), 2.5, 16, profile=p)
    out = Adds(st, T("int16", 4096), T("int16", 0), 2.0, 16, profile=p)  # integral float is fine
    assert list(ub_read(out, 4096, "int16", 16)) == [2] * 16


def test_count_only_and_not_modelled_dtypes_950():
    if "ascend950" not in available_profiles():
        pytest.skip("no ascend950 profile")
    p950 = load_profile("ascend950")
    st = ub_write(reset_state(p950), 0, "int8", np.array([127, -128, 3], dtype=np.int8))
    if "int8" in p950.api("Adds").count_only_dtypes:
        with pytest.raises(UnsupportedError):
            Adds(st, T("int8", 4096), T("int8", 0), 1, 3, 1, UnaryRepeatParams(), profile=p950)
        out = Adds(st, T("int8", 4096), T("int8", 0), 1, 3, profile=p950)
        assert list(ub_read(out, 4096, "int8", 3)) == [-128, -127, 4]
    if "int64" in p950.api("Muls").all_dtypes():
        st = ub_write(reset_state(p950), 0, "int64", np.array([2**62, -3], dtype=np.int64))
        out = Muls(st, T("int64", 4096), T("int64", 0), 4, 2, profile=p950)
        assert list(ub_read(out, 4096, "int64", 2)) == [0, -12]
    if "complex64" in p950.api("Muls").all_dtypes():
        # Complex<float>, real part first: (1+2i)(3+0.5i) = 2+6.5i, hand-computed
        st = ub_write(reset_state(p950), 0, "float32", np.array([1, 2], dtype=np.float32))
        out = Muls(st, T("complex64", 4096), T("complex64", 0), complex(3, 0.5), 1, profile=p950)
        assert list(ub_read(out, 4096, "float32", 2)) == [2.0, 6.5]


def test_unsupported_api_raises():
    for name in available_profiles():
        pr = load_profile(name)
        st = reset_state(pr)
        for api, fn in API.items():
            if not pr.api(api).supported:
                with pytest.raises(UnsupportedError):
                    fn(st, T("half", 4096), T("half", 0), 1.0, 16, profile=pr)
        if not pr.api("SetCtrlSpr").supported:
            with pytest.raises(UnsupportedError):
                SetCtrlSpr(st, 48, 48, 1, profile=pr)
        if not pr.api("SetSaturationFlag").supported:
            with pytest.raises(UnsupportedError):
                SetSaturationFlag(st, True, profile=pr)
        if not pr.api("ResetCtrlSpr").supported:
            with pytest.raises(UnsupportedError):
                ResetCtrlSpr(st, 48, 48, profile=pr)
        if not pr.api("SetMaskCount").supported:
            with pytest.raises(UnsupportedError):
                SetMaskCount(st, profile=pr)


# =============================================================================================
# Mask and special-register APIs


def test_set_vector_mask_forms(p):
    st = reset_state(p)
    assert vmask_int(SetVectorMask(st, "half", 5, 9, profile=p)) == (5 << 64) | 9
    assert vmask_int(SetVectorMask(st, "half", 100, profile=p)) == (1 << 100) - 1
    assert vmask_int(SetVectorMask(st, "half", 128, profile=p)) == (1 << 128) - 1
    assert vmask_int(SetVectorMask(st, "float32", 64, profile=p)) == (1 << 128) - 1
    assert vmask_int(SetVectorMask(st, "float32", 63, profile=p)) == (1 << 63) - 1
    c = SetVectorMask(st, "half", 1000, profile=p, mode="COUNTER")
    assert vmask_int(c) == 1000 and c.mask_mode == 0  # the template arg does not switch modes
    with pytest.raises(UsageError):
        SetVectorMask(st, "float32", 1, 0, profile=p)  # maskHigh must be 0 for 32-bit T
    with pytest.raises(UsageError):
        SetVectorMask(st, "int64", 0, 1 << 32, profile=p)  # maskLow < 2**32 for 64-bit T
    with pytest.raises(UsageError):
        SetVectorMask(st, "half", 1, 5, profile=p, mode="COUNTER")  # maskHigh must be 0
    with pytest.raises(UsageError):
        SetVectorMask(st, "half", -1, profile=p)
    with pytest.raises(UsageError):
        SetVectorMask(st, "half", 1, profile=p, mode="SIDEWAYS")
    # mode=None is the C++ default template argument MaskMode::NORMAL, whatever the state's mode:
    # len 300 >= 128 encodes as all ones even in Counter mode (C++ needs MaskMode::COUNTER there)
    cm = SetMaskCount(st, profile=p)
    assert vmask_int(SetVectorMask(cm, "half", 300, profile=p)) == (1 << 128) - 1
    assert vmask_int(SetVectorMask(cm, "half", 300, profile=p, mode="COUNTER")) == 300


def test_mask_mode_apis(p):
    st = SetMaskCount(reset_state(p), profile=p)
    assert st.mask_mode == 1
    st = SetVectorMask(st, "half", 77, profile=p, mode="COUNTER")
    st = SetMaskNorm(st, profile=p)
    assert st.mask_mode == 0 and vmask_int(st) == 77  # SetMaskNorm does not touch the value
    st = ResetMask(st, profile=p)
    assert vmask_int(st) == (1 << 128) - 1 and st.mask_mode == 0


def test_ctrl_spr_apis(p):
    st = reset_state(p)
    assert GetCtrlSpr(st, 48, 48, profile=p) == 0
    st1 = SetCtrlSpr(st, 48, 48, 1, profile=p)
    assert GetCtrlSpr(st1, 48, 48, profile=p) == 1
    assert GetCtrlSpr(st1, 0, 63, profile=p) == 1 << 48
    assert GetCtrlSpr(st1, 47, 49, profile=p) == 0b010
    assert list(st1.ctrl) == [0, 1 << 16]
    with pytest.raises(UnsupportedError):  # A2 supports CTRL[48] only
        SetCtrlSpr(st, 47, 48, 1, profile=p)
    with pytest.raises(UsageError):  # value wider than the field
        SetCtrlSpr(st, 48, 48, 2, profile=p)
    with pytest.raises(UsageError):
        GetCtrlSpr(st, 49, 48, profile=p)
    with pytest.raises(UsageError):
        GetCtrlSpr(st, 0, 64, profile=p)
    if p.api("ResetCtrlSpr").supported:
        assert GetCtrlSpr(ResetCtrlSpr(st1, 48, 48, profile=p), 48, 48, profile=p) == 0
    else:  # ResetCtrlSpr(ISASI).md: A2 不支持
        with pytest.raises(UnsupportedError):
            ResetCtrlSpr(st1, 48, 48, profile=p)


def test_ctrl_spr_multi_bit_field_950():
    if "ascend950" not in available_profiles():
        pytest.skip("no ascend950 profile")
    p950 = load_profile("ascend950")
    bits = p950.api("SetCtrlSpr").bits or ()
    if not {6, 7, 8, 60}.issubset(bits):
        pytest.skip("profile lacks CTRL[8:6] / CTRL[60]")
    st = reset_state(p950)
    st = SetCtrlSpr(st, 6, 8, 0b101, profile=p950)
    assert GetCtrlSpr(st, 6, 8, profile=p950) == 0b101
    assert GetCtrlSpr(st, 60, 60, profile=p950) == (p950.ctrl_reset_value >> 60) & 1
    st = SetCtrlSpr(st, 60, 60, 0, profile=p950)
    assert GetCtrlSpr(st, 60, 60, profile=p950) == 0
    st = ResetCtrlSpr(st, 60, 60, profile=p950)
    assert GetCtrlSpr(st, 60, 60, profile=p950) == (p950.ctrl_reset_value >> 60) & 1
    assert GetCtrlSpr(st, 6, 8, profile=p950) == 0b101
    with pytest.raises(UnsupportedError):
        SetCtrlSpr(st, 11, 11, 1, profile=p950)


def test_saturation_flag_mode_first_spelling(p):
    st = reset_state(p)
    off = SetSaturationFlag(st, "FLOAT", False, profile=p)
    assert GetCtrlSpr(off, 48, 48, profile=p) == 1
    assert GetSaturationFlag(off, "FLOAT", profile=p) is False
    assert GetSaturationFlag(off, 0, profile=p) is False  # SaturationMode::FLOAT == 0
    assert np.array_equal(SetSaturationFlag(off, 0, True, profile=p).ctrl, st.ctrl)


def test_saturation_flag_cast_mode_keeps_ctrl59(p):
    # SetCtrlSpr(ISASI).md: CTRL[59] "1'b0：饱和模式" / "1'b1：截断模式"; only that bit changes
    st = reset_state(p)
    off = SetSaturationFlag(st, True, profile=p, mode="CAST")
    assert GetCtrlSpr(off, 59, 59, profile=p) == 0
    trunc = SetSaturationFlag(off, "CAST", False, profile=p)
    assert GetCtrlSpr(trunc, 59, 59, profile=p) == 1
    assert int(trunc.ctrl[1]) ^ int(off.ctrl[1]) == 1 << (59 - 32) and np.array_equal(
        trunc.ctrl[0], off.ctrl[0]
    )
    assert GetSaturationFlag(trunc, profile=p, mode="CAST") is False
    assert GetSaturationFlag(off, 1, profile=p) is True  # SaturationMode::CAST == 1
    assert GetSaturationFlag(trunc, "FLOAT", profile=p) == GetSaturationFlag(st, "FLOAT", profile=p)


def test_saturation_flag_cast_mode_fast_path_agrees(p):
    import ascend_jax as aj

    for flag in (True, False):
        ref = SetSaturationFlag(reset_state(p), flag, profile=p, mode="CAST")
        fast = aj.SetSaturationFlag(aj.reset_state(p), aj.SaturationMode.CAST, flag, profile=p)
        assert np.array_equal(np.asarray(fast.ctrl), np.asarray(ref.ctrl, np.uint32))
        assert bool(aj.GetSaturationFlag(fast, aj.SaturationMode.CAST, profile=p)) is flag


# =============================================================================================
# A full-size call (255 repeats x 128 lanes); its run time is reported by the benchmarks, never
# asserted here (tests must not depend on timing)


def test_255_repeat_half_muls_matches_numpy(p):
    n = 255 * 128
    src = (np.random.default_rng(3).standard_normal(n) * 100).astype(np.float16)
    st = ub_write(reset_state(p), 0, "half", src)
    out = Muls(st, T("half", 81920), T("half", 0), 1.7, 128, 255, UnaryRepeatParams(), profile=p)
    assert out.fault == 0
    # sanity (not an oracle): half*half is exact in float64, so NumPy's float64 -> half cast is
    # a single rounding here
    want = (src.astype(np.float64) * np.float64(np.float16(1.7))).astype(np.float16)
    assert np.array_equal(bits16(ub_read(out, 81920, "half", n)), bits16(want))
