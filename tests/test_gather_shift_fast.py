"""Fast-path tests for GatherMask, GetGatherMaskRemainCount, ShiftLeft/ShiftRight and the tensor-shift
variants (issue 4): seed conformance, the numeric examples of the doc pages (transcribed from the
pages), per-product errors, faults, register side effects, no-retrace and vmap == loop.

Expected values are written from the pages / docs/MODEL.md, never from the implementation's output.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax._engine.compact import run_gather_mask
from ascend_jax._engine.pipeline import run_unary
from ascend_jax.api import _args as A
from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.profile import Reserved, load_profile
from ascend_jax.testing.traces import max_traces

UB = 16384


# -- helpers -------------------------------------------------------------------------------------


def mkstate(profile="ascend910b", ub_bytes=UB, **writes):
    """A reset state with ``writes = {name: (addr, np.array)}`` stored little endian."""
    st = aj.reset_state(profile, ub_bytes=ub_bytes)
    ub = np.zeros(ub_bytes, np.uint8)
    for addr, arr in writes.values():
        raw = np.ascontiguousarray(arr).view(np.uint8).reshape(-1)
        ub[addr : addr + raw.size] = raw
    return st.replace(ub=jnp.asarray(ub))


def read(st, addr, np_dtype, n):
    size = np.dtype(np_dtype).itemsize
    return np.asarray(st.ub[addr : addr + n * size]).view(np_dtype).copy()


def T(dtype, addr, n=256):
    return aj.LocalTensor(dtype, addr, n)


def variant(profile, api, **kw):
    """The profile with ``apis.<api>`` extra keys replaced (tests both sides of a profile choice)."""
    p = load_profile(profile)
    apis = []
    for a in p.apis:
        if a.name == api:
            extra = dict(a.extra)
            extra.update(kw)
            a = dataclasses.replace(a, extra=tuple(sorted(extra.items())))
        apis.append(a)
    return dataclasses.replace(p, apis=tuple(apis))


def faults(st):
    return int(st.fault)


def gm_expected(src, rep, per, rs_elems, pattern_bits):
    """The documented Counter configuration-1 rule: repeat i takes ``per`` consecutive elements
    starting at element ``i * rs_elems`` and keeps element e where pattern bit e is set."""
    return [src[i * rs_elems + e] for i in range(rep) for e in range(per) if pattern_bits(e)]


# == GatherMask ===================================================================================


def test_seed_gathermask_2_uint16_pattern2():
    # seed 002 / GatherMask_2: uint16 [1..128], pattern 2, Normal, {1, 1, 0, 0} -> [2 4 ... 128], 64
    src = np.arange(1, 129, dtype=np.uint16)
    st = mkstate(src=(0, src))
    st2, cnt = aj.GatherMask(
        st, T(aj.uint16, 1024, 128), T(aj.uint16, 0, 128), 2, False, 0, aj.GatherMaskParams(1, 1, 0, 0)
    )
    assert faults(st2) == 0
    assert int(cnt) == 64
    np.testing.assert_array_equal(read(st2, 1024, np.uint16, 64), np.arange(2, 129, 2))
    # "undefined" tail: the model leaves it untouched
    np.testing.assert_array_equal(read(st2, 1024 + 128, np.uint16, 64), 0)
    assert aj.GetGatherMaskRemainCount(st2) == 64


def test_page_builtin_in_place_uint32():
    # GatherMask.md 内置固定模式示例: src0 [1..256], pattern 2, Normal, {1, 4, 8, 0}, dst = src0
    # -> [2 4 ... 256 undefined ...], rsvdCnt 128 (uint32 as in the linked sample)
    src = np.arange(1, 257, dtype=np.uint32)
    st = mkstate(src=(0, src))
    t = T(aj.uint32, 0, 256)
    st2, cnt = aj.GatherMask(
        st, t, t, 2, False, 0, {"src0BlockStride": 1, "repeatTimes": 4, "src0RepeatStride": 8}
    )
    assert faults(st2) == 0
    assert int(cnt) == 128
    np.testing.assert_array_equal(read(st2, 0, np.uint32, 128), np.arange(2, 257, 2))


@pytest.mark.parametrize("rs", [4, 8])
def test_page_counter_config1_mask70_uint32(rs):
    # GatherMask.md: Counter 配置方式一, mask = 70 elements per repeat, repeatTimes 2, user pattern
    # 0x99999999 (1st and 4th of every four), src1RepeatStride 0; the sample uses src0RepeatStride 4
    # ("第二次repeat从第33个元素开始"), the figure 8.
    src = np.arange(1, 257, dtype=np.uint32)
    pat = np.full(8, 0x99999999, np.uint32)
    st = mkstate(src=(0, src), pat=(2048, pat))
    st = aj.SetMaskCount(st)  # the call leaves Normal mode (mode_after = "normal")
    st2, cnt = aj.GatherMask(
        st,
        T(aj.uint32, 4096),
        T(aj.uint32, 0),
        T(aj.uint32, 2048, 8),
        True,
        70,
        aj.GatherMaskParams(1, 2, rs, 0),
        profile=variant(
            "ascend910b", "GatherMask", counter_config=1, mode_after="normal", vmask_after="count"
        ),
    )
    exp = gm_expected(src, 2, 70, rs * 8, lambda e: e % 4 in (0, 3))
    assert faults(st2) == 0
    assert int(cnt) == len(exp) == 70
    np.testing.assert_array_equal(read(st2, 4096, np.uint32, 70), exp)
    assert int(st2.mask_mode) == 0
    np.testing.assert_array_equal(np.asarray(st2.vmask), [70, 0, 0, 0, 0, 0, 0, 0])


def test_counter_config2_mask70_uint32_310p():
    # 配置方式二 (310P): mask = 70 elements in total, repeats derived (64 + 6), src0RepeatStride 4
    src = np.arange(1, 257, dtype=np.uint32)
    pat = np.full(8, 0x99999999, np.uint32)
    st = mkstate("ascend310p", src=(0, src), pat=(2048, pat))
    st2, cnt = aj.GatherMask(
        st,
        T(aj.uint32, 4096),
        T(aj.uint32, 0),
        T(aj.uint32, 2048, 8),
        True,
        70,
        (1, 2, 4, 0),
        profile="ascend310p",
    )
    exp = [src[e] for e in range(64) if e % 4 in (0, 3)] + [src[32 + e] for e in range(6) if e % 4 in (0, 3)]
    assert faults(st2) == 0
    assert int(cnt) == len(exp) == 35
    np.testing.assert_array_equal(read(st2, 4096, np.uint32, 35), exp)
    assert aj.GetGatherMaskRemainCount(st2, profile="ascend310p") == 35


@pytest.mark.parametrize(
    "pattern,keep",
    [
        (1, lambda e: e % 2 == 0),
        (2, lambda e: e % 2 == 1),
        (3, lambda e: e % 4 == 0),
        (4, lambda e: e % 4 == 1),
        (5, lambda e: e % 4 == 2),
        (6, lambda e: e % 4 == 3),
        (7, lambda e: True),
    ],
)
@pytest.mark.parametrize("dtype", [np.int16, np.float32])
def test_builtin_patterns(pattern, keep, dtype):
    n = 256 // np.dtype(dtype).itemsize * 2
    src = (np.arange(n) * 3 - 100).astype(dtype)
    st = mkstate(src=(0, src))
    d = aj.as_dtype(dtype)
    st2, cnt = aj.GatherMask(st, T(d, 4096), T(d, 0), pattern, False, 0, aj.GatherMaskParams(1, 2, 8, 8))
    L = n // 2
    exp = [src[r * L + e] for r in range(2) for e in range(L) if keep(e)]
    assert faults(st2) == 0 and int(cnt) == len(exp)
    np.testing.assert_array_equal(read(st2, 4096, dtype, len(exp)), exp)


def test_user_pattern_bit_layout_and_repeat_advance():
    # int16: bit e of the pattern bit stream (LSB first, little endian) selects lane e; repeat r
    # reads its pattern at src1 + r * src1RepeatStride * 32 bytes.
    src = np.arange(256, dtype=np.int16)
    p0 = np.zeros(8, np.uint16)
    p0[0] = 0b1000_0000_0000_0101  # lanes 0, 2, 15
    p0[7] = 0x8000  # lane 127
    p1 = np.zeros(8, np.uint16)
    p1[1] = 0x0001  # lane 16
    st = mkstate(src=(0, src), p0=(2048, p0), p1=(2048 + 64, p1))
    st2, cnt = aj.GatherMask(
        st,
        T(aj.int16, 4096),
        T(aj.int16, 0),
        T(aj.uint16, 2048, 64),
        False,
        0,
        aj.GatherMaskParams(1, 2, 8, 2),
    )
    assert faults(st2) == 0 and int(cnt) == 5
    np.testing.assert_array_equal(read(st2, 4096, np.int16, 5), [0, 2, 15, 127, 128 + 16])


def test_user_pattern_all_zero_and_all_one_and_block_stride():
    src = np.arange(512, dtype=np.int32)
    st = mkstate(
        src=(0, src), zero=(4096, np.zeros(8, np.uint32)), ones=(4128, np.full(8, 2**32 - 1, np.uint32))
    )
    st = st.replace(ub=st.ub.at[8192 : 8192 + 32].set(7))
    st2, cnt = aj.GatherMask(
        st, T(aj.int32, 8192), T(aj.int32, 0), T(aj.uint32, 4096, 8), False, 0, (1, 3, 8, 0)
    )
    assert faults(st2) == 0 and int(cnt) == 0
    np.testing.assert_array_equal(np.asarray(st2.ub), np.asarray(st.ub).copy())  # dst untouched
    assert int(st2.rsvd_cnt) == 0
    # all ones, src0BlockStride 2, src0RepeatStride 1: lane l of repeat r = element r*8 + (l//8)*16 + l%8
    st3, cnt = aj.GatherMask(
        st, T(aj.int32, 8192), T(aj.int32, 0), T(aj.uint32, 4128, 8), False, 0, (2, 2, 1, 0)
    )
    exp = [src[r * 8 + (lane // 8) * 16 + lane % 8] for r in range(2) for lane in range(64)]
    assert faults(st3) == 0 and int(cnt) == 128
    np.testing.assert_array_equal(read(st3, 8192, np.int32, 128), exp)


def test_gathermask_950_int8_uint8_pattern():
    src = np.arange(256, dtype=np.uint8).view(np.int8)
    pat = np.zeros(32, np.uint8)
    pat[0] = 0b1001
    pat[31] = 0x80
    st = mkstate("ascend950", src=(0, src), pat=(1024, pat))
    st2, cnt = aj.GatherMask(
        st,
        T(aj.int8, 2048),
        T(aj.int8, 0),
        T(aj.uint8, 1024, 32),
        False,
        0,
        (1, 1, 8, 0),
        profile="ascend950",
    )
    assert faults(st2) == 0 and int(cnt) == 3
    np.testing.assert_array_equal(read(st2, 2048, np.int8, 3), np.array([0, 3, 255], np.uint8).view(np.int8))


def test_gathermask_register_side_effects():
    src = np.arange(128, dtype=np.uint16)
    st = mkstate(src=(0, src))
    st = aj.SetMaskCount(st)
    before = np.asarray(st.vmask)
    args = (T(aj.uint16, 4096), T(aj.uint16, 0), 1, False, 0, (1, 1, 8, 8))
    # A2 as the digest: SetMaskNorm afterwards, vector mask left as {0, mask}
    p = variant("ascend910b", "GatherMask", mode_after="normal", vmask_after="count")
    st2, _ = aj.GatherMask(st, *args, profile=p)
    assert int(st2.mask_mode) == 0
    np.testing.assert_array_equal(np.asarray(st2.vmask), np.zeros(8, np.uint32))
    # registers untouched
    p = variant("ascend910b", "GatherMask", mode_after="unchanged", vmask_after="unchanged")
    st3, _ = aj.GatherMask(st, *args, profile=p)
    assert int(st3.mask_mode) == 1
    np.testing.assert_array_equal(np.asarray(st3.vmask), before)
    # 950-style: built-in patterns 1..6 leave the pattern in the vector mask (lanes of T only)
    p = variant("ascend950", "GatherMask", mode_after="unchanged", vmask_after="pattern")
    st950 = mkstate("ascend950", src=(0, src))
    st4, _ = aj.GatherMask(st950, *args, profile=p)
    np.testing.assert_array_equal(np.asarray(st4.vmask), [0x55555555] * 4 + [0] * 4)
    st5, _ = aj.GatherMask(st950, T(aj.uint16, 4096), T(aj.uint16, 0), 6, False, 0, (1, 1, 8, 8), profile=p)
    np.testing.assert_array_equal(np.asarray(st5.vmask), [0x88888888] * 4 + [0] * 4)
    st6, _ = aj.GatherMask(st950, T(aj.uint16, 4096), T(aj.uint16, 0), 7, False, 0, (1, 1, 8, 8), profile=p)
    np.testing.assert_array_equal(np.asarray(st6.vmask), np.asarray(st950.vmask))


def test_gathermask_zero_repeat_policies():
    src = np.arange(128, dtype=np.uint16)
    st = mkstate(src=(0, src))
    st = st.replace(rsvd_cnt=jnp.asarray(9, jnp.int32))
    # A2: repeatTimes 0 is a NOP (no registers either: rsvdCnt reads the unchanged register)
    st2, cnt = aj.GatherMask(st, T(aj.uint16, 4096), T(aj.uint16, 0), 2, False, 0, (1, 0, 8, 8))
    assert faults(st2) == 0 and int(cnt) == 9
    # 950: zero_repeat = "fault" -> UNDEFINED, suppressed
    st950 = mkstate("ascend950", src=(0, src))
    st3, _ = aj.GatherMask(
        st950, T(aj.uint16, 4096), T(aj.uint16, 0), 2, False, 0, (1, 0, 8, 8), profile="ascend950"
    )
    assert faults(st3) == Fault.UNDEFINED


def test_gathermask_faults_suppress():
    src = np.arange(256, dtype=np.uint16)
    st = mkstate(src=(0, src))
    st = st.replace(rsvd_cnt=jnp.asarray(5, jnp.int32))
    gp = aj.GatherMaskParams(1, 2, 8, 8)

    def run(dst, s0, pat=2, prm=gp, **kw):
        return aj.GatherMask(st, T(aj.uint16, dst), T(aj.uint16, s0), pat, False, 0, prm, **kw)

    st2, cnt = run(4096 + 2, 0)
    assert faults(st2) == Fault.MISALIGNED and int(cnt) == 5
    np.testing.assert_array_equal(np.asarray(st2.ub), np.asarray(st.ub))
    assert faults(run(UB - 32, 0)[0]) == Fault.OUT_OF_UB  # 128 kept elements = 8 blocks past the end
    assert faults(run(0, UB - 256)[0]) == Fault.OUT_OF_UB  # second repeat of src0 outside
    assert faults(run(32, 0)[0]) == Fault.PARTIAL_OVERLAP  # dst inside repeat 0's src, not in place
    assert faults(run(0, 0)[0]) == 0  # in place, contiguous: allowed
    # in place with src0RepeatStride 4: repeat 0 writes 64 elements (blocks 0..3), repeat 1 reads 4..11
    # -> blocks 0..3 are not read later: fine; with pattern 7 repeat 0 writes blocks 0..7 -> dependency
    assert faults(run(0, 0, prm=aj.GatherMaskParams(1, 2, 4, 8))[0]) == 0
    assert faults(run(0, 0, pat=7, prm=aj.GatherMaskParams(1, 2, 4, 8))[0]) == Fault.REPEAT_DEPENDENCY
    # traced bad values record faults instead of raising
    assert faults(run(4096, 0, pat=jnp.asarray(9))[0]) == Fault.BAD_PARAM
    assert faults(run(4096, 0, prm=aj.GatherMaskParams(1, jnp.asarray(300), 8, 8))[0]) & Fault.BAD_PARAM
    st3, _ = aj.GatherMask(st, T(aj.uint16, 4096), T(aj.uint16, 0), 2, True, jnp.asarray(0), gp)
    assert faults(st3) == Fault.BAD_MASK
    # bucket overflow: traced repeat above max_repeats
    over = A.bucket(2) + 1  # one repeat more than the static bucket holds
    st4, _ = run(4096, 0, prm=aj.GatherMaskParams(1, jnp.asarray(over), 8, 8), max_repeats=2)
    assert faults(st4) == Fault.BUCKET_OVERFLOW


def test_gathermask_scratch_collision_builtin_only():
    p = load_profile("ascend910b")
    p = dataclasses.replace(p, reserved=(Reserved("api_tmp", 8192, 4096, ("GatherMask",)),))
    src = np.arange(128, dtype=np.uint16)
    st = mkstate(src=(0, src), pat=(1024, np.full(8, 0xFFFF, np.uint16)))
    st2, _ = aj.GatherMask(st, T(aj.uint16, 8192), T(aj.uint16, 0), 2, False, 0, (1, 1, 8, 8), profile=p)
    assert faults(st2) == Fault.SCRATCH_COLLISION
    st3, _ = aj.GatherMask(
        st, T(aj.uint16, 8192), T(aj.uint16, 0), T(aj.uint16, 1024, 8), False, 0, (1, 1, 8, 8), profile=p
    )
    assert faults(st3) == 0


def test_gathermask_errors_per_product():
    st = mkstate()
    t16, t32 = T(aj.uint16, 0), T(aj.uint32, 1024)
    for prof in ("ascend910", "ascend310p_vec"):
        with pytest.raises(UnsupportedError, match=r"GatherMask: api='GatherMask'"):
            aj.GatherMask(st, t16, t16, 1, False, 0, (1, 1, 8, 8), profile=prof)
    with pytest.raises(UsageError, match=r"src1Pattern=7 .*'ascend310p'.*\[1, 2, 3, 4, 5, 6\]"):
        aj.GatherMask(st, t16, t16, 7, False, 0, (1, 1, 8, 8), profile="ascend310p")
    for prof in ("ascend310p", "ascend310b"):
        with pytest.raises(UnsupportedError, match="dtype='bfloat16'"):
            aj.GatherMask(st, T(aj.bfloat16, 0), T(aj.bfloat16, 0), 1, False, 0, (1, 1, 8, 8), profile=prof)
    with pytest.raises(UsageError, match=r"src1Pattern=0 "):
        aj.GatherMask(st, t16, t16, 0, False, 0, (1, 1, 8, 8))
    with pytest.raises(UsageError, match=r"mask=0 .*\[1, 4294967295\].*Counter"):
        aj.GatherMask(st, t16, t16, 1, True, 0, (1, 1, 8, 8))
    with pytest.raises(UsageError, match=r"src1Pattern.dtype='uint32'.*allowed: uint16"):
        aj.GatherMask(st, t16, t16, t32, False, 0, (1, 1, 8, 8))
    with pytest.raises(UnsupportedError, match=r"dtype='int8'.*'ascend910b'"):
        aj.GatherMask(st, T(aj.int8, 0), T(aj.int8, 0), T(aj.uint8, 0), False, 0, (1, 1, 8, 8))
    with pytest.raises(UsageError, match=r"src1Pattern.dtype='uint8'.*'ascend950'; allowed: uint16"):
        aj.GatherMask(st, t16, t16, T(aj.uint8, 0), False, 0, (1, 1, 8, 8), profile="ascend950")
    with pytest.raises(UsageError, match=r"reduceMode=1 "):
        aj.GatherMask(st, t16, t16, 1, 1, 0, (1, 1, 8, 8))
    with pytest.raises(UsageError, match=r"gatherMaskParams.repeatTimes=256 .*\[0, 255\]"):
        aj.GatherMask(st, t16, t16, 1, False, 0, (1, 256, 8, 8))
    with pytest.raises(UsageError, match=r"gatherMaskParams.src1RepeatStride=256"):
        aj.GatherMask(st, t16, t16, 1, False, 0, (1, 1, 8, 256))
    for prof in ("ascend950", "ascend310b"):
        with pytest.raises(UnsupportedError, match="GetGatherMaskRemainCount"):
            aj.GetGatherMaskRemainCount(st, profile=prof)


def _gm_oracle(ub, dst, s0, s1, pattern, counter, mask, prm, L, np_dtype, config=1):
    """A small independent model of the documented rules (valid, non-faulting calls only)."""
    size = np.dtype(np_dtype).itemsize
    E = 32 // size
    bs, rep, rs0, rs1 = prm
    if not counter:
        lanes = [(r, e) for r in range(rep) for e in range(L)]
    elif config == 1:
        lanes = [(r, e) for r in range(rep) for e in range(mask)]
    else:
        lanes = [(g // L, g % L) for g in range(mask)]
    kept = []
    for r, e in lanes:
        if isinstance(pattern, int):
            bit = {1: e % 2 == 0, 2: e % 2 == 1, 7: True}.get(pattern, e % 4 == pattern - 3)
        else:
            byte = ub[s1 + r * rs1 * 32 + e // 8]
            bit = (byte >> (e % 8)) & 1 == 1
        if bit:
            a = s0 + (r * rs0 + (e // E) * bs) * 32 + (e % E) * size
            kept.append(ub[a : a + size].copy())
    out = ub.copy()
    for j, v in enumerate(kept):
        out[dst + j * size : dst + (j + 1) * size] = v
    return out, len(kept)


def test_gathermask_random_against_small_oracle():
    rng = np.random.default_rng(1)
    for case in range(40):
        np_dtype = [np.uint16, np.int32, np.float16][case % 3]
        d = aj.as_dtype(np_dtype)
        L = 256 // d.itemsize
        ub = rng.integers(0, 256, UB, dtype=np.uint8)
        counter = bool(case % 2)
        rep = int(rng.integers(1, 4))
        mask = int(rng.integers(1, 2 * L)) if counter else 0
        prm = (int(rng.integers(0, 3)), rep, int(rng.integers(0, 12)), int(rng.integers(0, 3)))
        pattern = int(rng.integers(1, 8)) if case % 4 < 2 else "tensor"
        s0, s1, dst = 0, 6144, 8192
        st = aj.reset_state("ascend910b", ub_bytes=UB).replace(ub=jnp.asarray(ub))
        j = jnp.asarray
        pat_arg = T(aj.as_dtype(f"uint{8 * d.itemsize}"), s1, 64) if pattern == "tensor" else j(pattern)
        tprm = aj.GatherMaskParams(*(j(v) for v in prm))
        st2, cnt = aj.GatherMask(
            st, T(d, dst), T(d, s0), pat_arg, counter, j(mask), tprm, max_repeats=4, max_mask=2 * L
        )
        exp, n = _gm_oracle(ub, dst, s0, s1, pattern, counter, mask, prm, L, np_dtype)
        assert faults(st2) == 0, case
        assert int(cnt) == n, case
        np.testing.assert_array_equal(np.asarray(st2.ub), exp, err_msg=str(case))


# == shifts =======================================================================================


def _i16(bits):
    return np.array([bits], np.uint16).view(np.int16)[0]


PAGE_BIN = 0b1010101010101010


@pytest.mark.parametrize(
    "api,np_dtype,n,expected",
    [
        # ShiftLeft.md 功能说明
        ("ShiftLeft", np.uint16, 1, 0b0101010101010100),
        ("ShiftLeft", np.int16, 1, 0b1101010101010100),
        ("ShiftLeft", np.int16, 3, 0b1101010101010000),
        # ShiftRight.md 功能说明 / seed 003
        ("ShiftRight", np.uint16, 1, 0b0101010101010101),
        ("ShiftRight", np.int16, 1, 0b1101010101010101),
        ("ShiftRight", np.int16, 3, 0b1111010101010101),
    ],
)
@pytest.mark.parametrize("profile", ["ascend910b", "ascend950", "ascend310b"])
def test_page_binary_examples(api, np_dtype, n, expected, profile):
    x = np.full(128, PAGE_BIN, np.uint16).view(np_dtype)
    st = mkstate(profile, x=(0, x))
    d = aj.as_dtype(np_dtype)
    st2 = getattr(aj, api)(st, T(d, 1024, 128), T(d, 0, 128), n, 128, profile=profile)
    assert faults(st2) == 0
    np.testing.assert_array_equal(read(st2, 1024, np.uint16, 128), expected)


def test_signed_left_shift_conventional_choice():
    p = variant("ascend910b", "ShiftLeft", signed_left_shift="conventional")
    x = np.full(128, PAGE_BIN, np.uint16).view(np.int16)
    st = mkstate(x=(0, x))
    st2 = aj.ShiftLeft(st, T(aj.int16, 1024, 128), T(aj.int16, 0, 128), 1, 128, profile=p)
    np.testing.assert_array_equal(read(st2, 1024, np.uint16, 128), 0b0101010101010100)


@pytest.mark.parametrize("form", ["count", "continuous", "bitwise"])
def test_page_shift_examples_1_to_512(form):
    # ShiftLeft.md: [1..512] << 2 = [4 8 12 ... 2048]; ShiftRight.md / seed 003 (ShiftRight_1):
    # [1..512] >> 2 = [0 0 0 1 1 1 1 ... 128]; the count and both high-dim samples give the same.
    src = np.arange(1, 513, dtype=np.int16)
    st = mkstate(src=(0, src))
    s, d = T(aj.int16, 0, 512), T(aj.int16, 2048, 512)
    args = {
        "count": (512,),
        "continuous": (128, 4, aj.UnaryRepeatParams(1, 1, 8, 8)),
        "bitwise": ([2**64 - 1, 2**64 - 1], 4, (1, 1, 8, 8)),
    }[form]
    right = aj.ShiftRight(st, d, s, 2, *args, *(() if form == "count" else (False,)))
    left = aj.ShiftLeft(st, d, s, 2, *args)
    assert faults(right) == 0 and faults(left) == 0
    r = read(right, 2048, np.int16, 512)
    np.testing.assert_array_equal(r[:7], [0, 0, 0, 1, 1, 1, 1])
    assert r[-1] == 128
    l_ = read(left, 2048, np.int16, 512)
    np.testing.assert_array_equal(l_[:3], [4, 8, 12])
    assert l_[-1] == 2048


def test_page_round_en_example_and_edges():
    # ShiftRight.md roundEn: int16 17 >> 5 with rounding = 0 + 1 = 1
    vals = np.array([17, -17, -16, 16, 15, -1, 32767, -32768] * 16, np.int16)
    st = mkstate(x=(0, vals))
    s, d = T(aj.int16, 0, 128), T(aj.int16, 1024, 128)

    def sr(n, rnd, dtype=aj.int16):
        st2 = aj.ShiftRight(
            st, T(dtype, 1024, 128), T(dtype, 0, 128), n, 128, 1, aj.UnaryRepeatParams(), roundEn=rnd
        )
        assert faults(st2) == 0
        return read(st2, 1024, dtype.np_dtype, 8)

    np.testing.assert_array_equal(sr(5, True), [1, -1, 0, 1, 0, 0, 1024, -1024])
    np.testing.assert_array_equal(sr(5, False), [0, -1, -1, 0, 0, -1, 1023, -1024])
    np.testing.assert_array_equal(sr(0, True), vals[:8])  # shift 0: nothing shifted out, no rounding
    np.testing.assert_array_equal(sr(16, True), 0)  # bit 15 (the sign) is added: -1 + 1 = 0
    np.testing.assert_array_equal(sr(16, False), [0, -1, -1, 0, 0, -1, 0, -1])
    # unsigned: roundEn has no effect
    np.testing.assert_array_equal(sr(5, True, aj.uint16), vals[:8].view(np.uint16) >> 5)
    # positional roundEn (C++ order) and a traced flag
    st3 = aj.ShiftRight(st, d, s, 5, 128, 1, aj.UnaryRepeatParams(), True)
    np.testing.assert_array_equal(read(st3, 1024, np.int16, 8), [1, -1, 0, 1, 0, 0, 1024, -1024])
    st4 = aj.ShiftRight(st, d, s, 5, 128, 1, aj.UnaryRepeatParams(), roundEn=jnp.asarray(True))
    np.testing.assert_array_equal(read(st4, 1024, np.int16, 8), [1, -1, 0, 1, 0, 0, 1024, -1024])


@pytest.mark.parametrize("np_dtype", [np.int16, np.uint16, np.int32, np.uint32])
def test_shift_full_width_bitwidth_inclusive(np_dtype):
    B = np.dtype(np_dtype).itemsize * 8
    vals = np.array([5, -5, 1, -1, 0, 7, -8, 3] * 16).astype(np_dtype)
    st = mkstate(x=(0, vals))
    d = aj.as_dtype(np_dtype)
    n = 256 // d.itemsize
    left = read(aj.ShiftLeft(st, T(d, 2048, n), T(d, 0, n), B, n), 2048, np_dtype, 8)
    right = read(aj.ShiftRight(st, T(d, 2048, n), T(d, 0, n), B, n), 2048, np_dtype, 8)
    if d.is_signed_int:
        sign_only = np.where(vals[:8] < 0, np.iinfo(np_dtype).min, 0)  # keep_sign: only the sign bit remains
        np.testing.assert_array_equal(left, sign_only)
        np.testing.assert_array_equal(right, np.where(vals[:8] < 0, -1, 0))
    else:
        np.testing.assert_array_equal(left, 0)
        np.testing.assert_array_equal(right, 0)


@pytest.mark.parametrize("np_dtype", [np.int16, np.uint16, np.int32, np.uint32, np.int8, np.uint8])
def test_shift_saturating_950(np_dtype):
    # ShiftLeft.md (950): amount > width -> all 0; ShiftRight.md (950): logical 0, arithmetic 0 / -1
    B = np.dtype(np_dtype).itemsize * 8
    vals = np.array([5, -5, 1, -1, 0, 7, -8, 3] * 32).astype(np_dtype)
    st = mkstate("ascend950", x=(0, vals))
    d = aj.as_dtype(np_dtype)
    n = 256 // d.itemsize
    for amt in (B + 1, B + 20, np.iinfo(np_dtype).max):
        left = aj.ShiftLeft(st, T(d, 2048, n), T(d, 0, n), int(amt), n, profile="ascend950")
        right = aj.ShiftRight(st, T(d, 2048, n), T(d, 0, n), int(amt), n, profile="ascend950")
        assert faults(left) == 0 and faults(right) == 0
        np.testing.assert_array_equal(read(left, 2048, np_dtype, 8), 0)
        exp = np.where(vals[:8] < 0, -1, 0) if d.is_signed_int else 0
        np.testing.assert_array_equal(read(right, 2048, np_dtype, 8), exp)


def test_page_tensor_shift_examples_950():
    # ShiftLeft（左移位数为Tensor）.md: [1..512] << [2 2 ...] = [4 8 12 ... 2048];
    # ShiftRight（右移位数为Tensor）.md: [1..512] >> [2 2 ...] = [0 0 0 1 1 1 1 ... 128]
    src = np.arange(1, 513, dtype=np.int16)
    amt = np.full(512, 2, np.int16)
    st = mkstate("ascend950", src=(0, src), amt=(1024, amt))
    d = aj.int16
    left = aj.ShiftLeft(st, T(d, 4096, 512), T(d, 0, 512), T(aj.int16, 1024, 512), 512, profile="ascend950")
    right = aj.ShiftRightTensor(
        st, T(d, 4096, 512), T(d, 0, 512), T(aj.int16, 1024, 512), 512, profile="ascend950"
    )
    assert faults(left) == 0 and faults(right) == 0
    lv, rv = read(left, 4096, np.int16, 512), read(right, 4096, np.int16, 512)
    np.testing.assert_array_equal(lv[:3], [4, 8, 12])
    assert lv[-1] == 2048
    np.testing.assert_array_equal(rv[:7], [0, 0, 0, 1, 1, 1, 1])
    assert rv[-1] == 128


def test_tensor_shift_overwide_and_negative_950():
    src = np.array([-5, 5, -1, 1] * 32, np.int32)
    amt = np.array([40, 40, 31, 3] * 32, np.int32)
    st = mkstate("ascend950", src=(0, src), amt=(1024, amt))
    args = (T(aj.int32, 4096, 128), T(aj.int32, 0, 128), T(aj.int32, 1024, 128), 128)
    left = aj.ShiftLeftTensor(st, *args, profile="ascend950")
    right = aj.ShiftRightTensor(st, *args, profile="ascend950")
    # tensor pages: over-wide signed: src0 < 0 -> -1, src0 > 0 -> 0 (both directions)
    np.testing.assert_array_equal(read(left, 4096, np.int32, 4), [-1, 0, np.iinfo(np.int32).min, 8])
    np.testing.assert_array_equal(read(right, 4096, np.int32, 4), [-1, 0, -1, 0])
    st_neg = st.replace(ub=st.ub.at[1024:1028].set(jnp.asarray(np.array([-1], np.int32).view(np.uint8))))
    bad = aj.ShiftRightTensor(st_neg, *args, profile="ascend950")
    assert faults(bad) == Fault.BAD_PARAM
    np.testing.assert_array_equal(np.asarray(bad.ub), np.asarray(st_neg.ub))


def test_shift_errors_per_product():
    st = mkstate()
    t = T(aj.int16, 0, 128)
    for prof in ("ascend910", "ascend310p", "ascend310p_vec"):
        for api in ("ShiftLeft", "ShiftRight"):
            with pytest.raises(UnsupportedError, match=f"{api}: api='{api}'"):
                getattr(aj, api)(st, t, t, 1, 128, profile=prof)
    with pytest.raises(
        UsageError, match=r"ShiftLeft: scalarValue=17 .*'ascend910b'; allowed: an integer in \[0, 16\]"
    ):
        aj.ShiftLeft(st, t, t, 17, 128)
    with pytest.raises(UsageError, match=r"scalarValue=33 .*\[0, 32\]"):
        aj.ShiftRight(st, T(aj.uint32, 0), T(aj.uint32, 0), 33, 64, profile="ascend310b")
    with pytest.raises(UsageError, match=r"scalarValue=-1 .*\[0, 16\]"):
        aj.ShiftRight(st, t, t, -1, 128)
    with pytest.raises(UsageError, match=r"scalarValue=-1 .*'ascend950'.*>= 0"):
        aj.ShiftRight(mkstate("ascend950"), t, t, -1, 128, profile="ascend950")
    for prof in ("ascend310b", "ascend950"):
        with pytest.raises(UsageError, match=r"roundEn=True .*" + prof + ".*allowed: false"):
            aj.ShiftRight(mkstate(prof), t, t, 2, 128, 1, (1, 1, 8, 8), roundEn=True, profile=prof)
    with pytest.raises(UsageError, match="roundEn exists only on the high-dim prototypes"):
        aj.ShiftRight(st, t, t, 2, 128, roundEn=True)
    with pytest.raises(UnsupportedError, match="dtype='int8'.*count"):
        aj.ShiftLeft(
            mkstate("ascend950"), T(aj.int8, 0), T(aj.int8, 0), 1, 256, 1, (1, 1, 8, 8), profile="ascend950"
        )
    with pytest.raises(UnsupportedError, match="dtype='half'"):
        aj.ShiftLeft(st, T(aj.half, 0), T(aj.half, 0), 1, 128)
    with pytest.raises(UnsupportedError, match="ShiftLeftTensor: api='ShiftLeftTensor'"):
        aj.ShiftLeft(st, t, t, T(aj.int16, 512), 128)
    with pytest.raises(UsageError, match=r"src1.dtype='uint16'.*int16"):
        aj.ShiftRightTensor(mkstate("ascend950"), t, t, T(aj.uint16, 512), 128, profile="ascend950")
    with pytest.raises(TypeError, match="roundEn"):
        aj.ShiftLeft(st, t, t, 1, 128, 1, (1, 1, 8, 8), False)


def test_shift_traced_faults():
    vals = np.arange(128, dtype=np.int16)
    st = mkstate(x=(0, vals))
    s, d = T(aj.int16, 0, 128), T(aj.int16, 1024, 128)
    st2 = aj.ShiftLeft(st, d, s, jnp.asarray(17), 128)
    assert faults(st2) == Fault.BAD_PARAM
    np.testing.assert_array_equal(np.asarray(st2.ub), np.asarray(st.ub))
    assert faults(aj.ShiftLeft(st, d, s, jnp.asarray(-1), 128)) == Fault.BAD_PARAM
    assert faults(aj.ShiftLeft(st, d, s, jnp.asarray(16), 128)) == 0
    st310 = mkstate("ascend310b", x=(0, vals))
    bad = aj.ShiftRight(st310, d, s, 1, 128, 1, (1, 1, 8, 8), roundEn=jnp.asarray(True), profile="ascend310b")
    assert faults(bad) == Fault.BAD_PARAM
    ok = aj.ShiftRight(st310, d, s, 1, 128, 1, (1, 1, 8, 8), roundEn=jnp.asarray(False), profile="ascend310b")
    assert faults(ok) == 0
    st950 = mkstate("ascend950", x=(0, vals))
    assert faults(aj.ShiftRight(st950, d, s, jnp.asarray(-3), 128, profile="ascend950")) == Fault.BAD_PARAM
    assert faults(aj.ShiftRight(st950, d, s, jnp.asarray(99), 128, profile="ascend950")) == 0


def _shift_oracle(x, n, signed, bits, op, keep_sign=True, rnd=False):
    """Python-int model of MODEL.md's shift rules for 0 <= n <= bits."""
    m = (1 << bits) - 1
    xu = int(x) & m
    xs = xu - (1 << bits) if signed and xu >> (bits - 1) else xu
    if op == "left":
        if signed and keep_sign:
            return (xu & (1 << (bits - 1))) | ((xu << n) & (m >> 1))
        return (xu << n) & m
    q = (xs >> n) if signed else (xu >> n)
    if signed and rnd and n >= 1:
        q += (xs >> (n - 1)) & 1
    return q & m


@pytest.mark.parametrize("np_dtype", [np.int16, np.uint16, np.int32, np.uint32])
def test_shift_all_amounts_against_small_oracle(np_dtype):
    rng = np.random.default_rng(7)
    d = aj.as_dtype(np_dtype)
    B = d.bits
    n_el = 256 // d.itemsize
    info = np.iinfo(np_dtype)
    x = rng.integers(info.min, info.max, n_el, dtype=np.int64, endpoint=True).astype(np_dtype)
    x[:4] = [info.min, info.max, 0, -1 if d.is_signed_int else 1]
    st = mkstate(x=(0, x))
    bits_view = x.view(f"uint{B}")
    for n in range(B + 1):
        for op, rnd in (("left", False), ("right", False), ("right", True)):
            kw = {"roundEn": rnd} if op == "right" else {}
            fn = aj.ShiftLeft if op == "left" else aj.ShiftRight
            st2 = fn(st, T(d, 1024, n_el), T(d, 0, n_el), n, n_el, 1, (1, 1, 8, 8), **kw)
            got = read(st2, 1024, f"uint{B}", n_el)
            exp = [_shift_oracle(v, n, d.is_signed_int, B, op, rnd=rnd) for v in bits_view]
            np.testing.assert_array_equal(got, np.array(exp, dtype=f"uint{B}"), err_msg=f"{op} {n} {rnd}")


def test_shift_highdim_masks_and_strides_keep_old_dst():
    src = np.arange(256, dtype=np.uint16)
    st = mkstate(x=(0, src), old=(4096, np.full(256, 0xBEEF, np.uint16)))
    # continuous mask 3, 2 repeats, dst repeat stride 16 blocks: lanes 0..2 of each repeat written
    st2 = aj.ShiftRight(st, T(aj.uint16, 4096), T(aj.uint16, 0), 1, 3, 2, (1, 1, 16, 8))
    out = read(st2, 4096, np.uint16, 256)
    np.testing.assert_array_equal(out[:4], [0, 0, 1, 0xBEEF])
    np.testing.assert_array_equal(out[256 // 2 : 256 // 2 + 4], [0xBEEF] * 4)
    # the count form leaves ResetMask + Normal on A2 (level2_lowering = counter_mode)
    st3 = aj.ShiftLeft(aj.SetMaskCount(st), T(aj.uint16, 4096), T(aj.uint16, 0), 1, 10)
    assert int(st3.mask_mode) == 0
    np.testing.assert_array_equal(read(st3, 4096, np.uint16, 11), list(np.arange(10) * 2) + [0xBEEF])


# == compilation and batching ======================================================================


def test_gathermask_no_retrace_200_parameter_sets():
    rng = np.random.default_rng(3)
    st = mkstate(src=(0, rng.integers(0, 2**16, 2048, dtype=np.int64).astype(np.uint16)))
    j = jnp.asarray

    def call(i):
        prm = aj.GatherMaskParams(
            j(int(rng.integers(0, 3))), j(int(rng.integers(0, 5))), j(int(rng.integers(0, 9))), 8
        )
        return aj.GatherMask(
            st,
            T(aj.uint16, j(8192 + 32 * int(rng.integers(0, 8)))),
            T(aj.uint16, j(32 * int(rng.integers(0, 8)))),
            j(int(rng.integers(1, 8))),
            False,
            j(int(rng.integers(0, 100))),
            prm,
            max_repeats=4,
        )

    jax.block_until_ready(call(0))
    with max_traces(run_gather_mask.__name__, n=0):
        for i in range(200):
            out = call(i)
        jax.block_until_ready(out)


def test_shift_no_retrace_200_parameter_sets():
    rng = np.random.default_rng(4)
    st = mkstate(x=(0, np.arange(4096, dtype=np.int16)))
    j = jnp.asarray

    def call():
        return aj.ShiftRight(
            st,
            T(aj.int16, j(8192 + 32 * int(rng.integers(0, 8)))),
            T(aj.int16, j(32 * int(rng.integers(0, 8)))),
            j(int(rng.integers(0, 17))),
            j(int(rng.integers(0, 129))),
            j(int(rng.integers(0, 5))),
            aj.UnaryRepeatParams(j(1), j(int(rng.integers(1, 3))), j(8), j(int(rng.integers(0, 9)))),
            roundEn=j(bool(rng.integers(0, 2))),
            max_repeats=4,
        )

    jax.block_until_ready(call())
    with max_traces(run_unary.__name__, n=0):
        for _ in range(200):
            out = call()
        jax.block_until_ready(out)


def _batch(xs):
    return jax.tree_util.tree_map(lambda *a: jnp.stack(a), *xs)


def test_gathermask_vmap_equals_loop():
    rng = np.random.default_rng(5)
    n = 12
    states = [aj.reset_state(ub=rng.integers(0, 256, UB, dtype=np.uint8)) for _ in range(n)]
    cols = {
        "dst": [8192 + 32 * int(rng.integers(0, 4)) + (2 if rng.random() < 0.15 else 0) for _ in range(n)],
        "s0": [32 * int(rng.integers(0, 8)) for _ in range(n)],
        "pat": [int(rng.integers(0, 9)) for _ in range(n)],  # 0 and 8 are bad built-in patterns
        "mask": [int(rng.integers(0, 150)) for _ in range(n)],  # 0 is a bad Counter mask
        "rep": [int(rng.integers(0, 4)) for _ in range(n)],
        "bs": [int(rng.integers(0, 3)) for _ in range(n)],
        "rs": [int(rng.integers(0, 9)) for _ in range(n)],
    }

    def one(st, dst, s0, pat, mask, rep, bs, rs, counter, tensor):
        pattern = T(aj.uint32, 256) if tensor else pat
        prm = aj.GatherMaskParams(bs, rep, rs, 1)
        return aj.GatherMask(
            st, T(aj.int32, dst), T(aj.int32, s0), pattern, counter, mask, prm, max_repeats=4, max_mask=128
        )

    bst = _batch(states)
    for counter in (False, True):
        for tensor in (False, True):
            args = [jnp.asarray(v, jnp.int32) for v in cols.values()]
            vst, vcnt = jax.vmap(lambda st, *a, c=counter, t=tensor: one(st, *a, c, t))(bst, *args)
            for i in range(n):
                lst, lcnt = one(
                    states[i], *(jnp.asarray(v[i], jnp.int32) for v in cols.values()), counter, tensor
                )
                for a, b in zip(jax.tree_util.tree_leaves(lst), jax.tree_util.tree_leaves(vst), strict=True):
                    np.testing.assert_array_equal(
                        np.asarray(a), np.asarray(b)[i], err_msg=f"{counter} {tensor} {i}"
                    )
                assert int(lcnt) == int(vcnt[i])


def test_shift_vmap_equals_loop():
    rng = np.random.default_rng(6)
    n = 12
    states = [aj.reset_state(ub=rng.integers(0, 256, UB, dtype=np.uint8)) for _ in range(n)]
    amts = [int(a) for a in rng.integers(-1, 18, n)]
    reps = [int(a) for a in rng.integers(0, 4, n)]
    masks = [int(a) for a in rng.integers(0, 70, n)]
    rnds = [bool(a) for a in rng.integers(0, 2, n)]
    srs = [int(a) for a in rng.integers(0, 9, n)]

    def one(st, amt, rep, mask, rnd, sr):
        return aj.ShiftRight(
            st,
            T(aj.int32, 8192),
            T(aj.int32, 0),
            amt,
            mask,
            rep,
            aj.UnaryRepeatParams(1, 1, 8, sr),
            roundEn=rnd,
            max_repeats=4,
        )

    vst = jax.vmap(one)(_batch(states), *(jnp.asarray(a) for a in (amts, reps, masks, rnds, srs)))
    for i in range(n):
        lst = one(
            states[i],
            jnp.asarray(amts[i]),
            jnp.asarray(reps[i]),
            jnp.asarray(masks[i]),
            jnp.asarray(rnds[i]),
            jnp.asarray(srs[i]),
        )
        for a, b in zip(jax.tree_util.tree_leaves(lst), jax.tree_util.tree_leaves(vst), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b)[i], err_msg=str(i))


def test_registry_lists_new_apis():
    for name in (
        "GatherMask",
        "GetGatherMaskRemainCount",
        "ShiftLeft",
        "ShiftRight",
        "ShiftLeftTensor",
        "ShiftRightTensor",
    ):
        assert name in aj.REGISTRY
