"""The element-wise reference (reference/binary.py, unary.py, elem.py): every numeric result example
of the pages (tests/data/elementwise_examples.json) in each call form the pages show, on every
profile that lists the example's dtype; call forms, faults, register effects, misuse errors and the
element rules (IEEE special values, integer wrap / saturation, CTRL saturation)."""

import json
import math
import pathlib

import numpy as np
import pytest

import ascend_jax.reference as R
from ascend_jax import dtypes as D
from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.params import BinaryRepeatParams, UnaryRepeatParams
from ascend_jax.profile import available_profiles, load_profile
from ascend_jax.reference import binary_scalar as BS
from ascend_jax.reference import elem as E
from ascend_jax.reference import numerics as RN

T = R.LocalTensor
DATA = json.loads((pathlib.Path(__file__).parent / "data/elementwise_examples.json").read_text())
N = DATA["n"]
ALL_ONES = [2**64 - 1, 2**64 - 1]
BINARY = set(E.BINARY_APIS)
A0, A1, AD = 0, 2048, 4096  # src0 / src, src1, dst byte addresses


def _forms(api, ex):
    lanes = 128  # every example is 16-bit: 128 lanes per repeat, 512 elements = 4 repeats
    params = BinaryRepeatParams() if api in BINARY and "config" not in ex else UnaryRepeatParams()
    forms = {
        "count": (N,),
        "continuous": (lanes, N // lanes, params),
        "bitwise": (ALL_ONES, N // lanes, params),
    }
    return {k: v for k, v in forms.items() if k in ex.get("forms", forms)}


def _inputs(spec, d):
    if "arange" in spec:
        start, step = spec["arange"]
        vals = [start + i * step for i in range(N)]
    else:
        vals = [float(spec["fill"])] * N
        for i, v in spec["printed"].items():
            vals[int(i)] = float(v)
    return np.array(vals).astype(d.np_dtype)


def _run(api, ex, prof, form_args):
    d = D.as_dtype(ex["dtype"])
    st = R.reset_state(prof)
    names = ("src0", "src1") if api in BINARY or "config" in ex else ("src",)
    tensors = []
    for name, addr in zip(names, (A0, A1), strict=False):
        st = R.ub_write(st, addr, d, _inputs(ex["inputs"][name], d))
        tensors.append(T(d, addr, N))
    kw = {"config": ex["config"]} if "config" in ex else {}  # BinaryConfig.scalarTensorIndex
    if "scalar_value" in ex:
        tensors.append(ex["scalar_value"])
    out = getattr(R, api)(st, T(d, AD, N), *tensors, *form_args, profile=prof, **kw)
    assert out.fault == 0
    return R.ub_read(out, AD, d, N)


def _ulp(v, d):
    fmt = RN.float_format(d)
    e = max(math.frexp(abs(v))[1] - 1, fmt.emin) if v else fmt.emin
    return 2.0 ** (e - fmt.man_bits)


def _sig_digits(s):
    digits = s.lstrip("-").replace(".", "").lstrip("0")
    return max(1, len(digits))


def _profiles_for(ex):
    return [p for p in available_profiles() if ex["dtype"] in load_profile(p).api(ex["api"]).all_dtypes()]


@pytest.mark.parametrize("ex", DATA["examples"], ids=lambda e: f"{e['api']}-{e['dtype']}")
def test_doc_result_examples(ex):
    api = ex["api"]
    d = D.as_dtype(ex["dtype"])
    profiles = _profiles_for(ex)
    assert profiles, ex
    for prof in profiles:
        worst = 0.0
        forms = _forms(api, ex)
        if prof != profiles[0]:  # every form on the first profile, the count form on the others (cost)
            forms = {k: v for k, v in forms.items() if k == "count"}
        for form, args in forms.items():
            out = _run(api, ex, prof, args)
            if "doc_error" in ex:  # the page's printed values are wrong (see the note): they must differ
                want = np.array([float(v) for v in ex["printed"].values()]).astype(d.np_dtype)
                got = out[[int(i) for i in ex["printed"]]]
                assert got.tobytes() != want.tobytes(), (prof, api, form, ex["doc_error"])
                continue
            for i, printed in ex["printed"].items():
                got = out[int(i)]
                where = (prof, api, form, i, got, printed)
                if ex["check"] == "exact":
                    want = np.array([float(printed)]).astype(d.np_dtype)[0]
                    assert got.tobytes() == want.tobytes(), where
                elif ex["check"] == "decimals":
                    k = len(printed.split(".")[1]) if "." in printed else 0
                    assert round(float(got), k) == float(printed), where
                elif ex["check"] == "digits":
                    k = _sig_digits(printed)
                    assert float(f"{float(got):.{k}g}") == float(printed), where
                elif ex["check"] == "ulp":
                    assert abs(float(got) - float(printed)) <= ex["ulps"] * _ulp(float(got), d), where
                else:  # approx: the page states the hardware misses 0.1 % (see the note)
                    rel = abs(float(got) - float(printed)) / abs(float(got))
                    assert rel <= ex["rel"], where
                    worst = max(worst, rel)
        if ex["check"] == "approx":
            assert worst > ex["worse_than"], (prof, api, worst)


# -- call forms, masks, strides, registers ----------------------------------------------------


def _state(prof, d, vals0, vals1=None):
    st = R.reset_state(prof)
    st = R.ub_write(st, A0, d, np.asarray(vals0).astype(d.np_dtype))
    if vals1 is not None:
        st = R.ub_write(st, A1, d, np.asarray(vals1).astype(d.np_dtype))
    return st


def test_bitwise_mask_strides_and_untouched_lanes():
    d = D.half
    x = np.arange(256) * 0.5
    y = np.full(256, 2.0)
    st = _state("ascend910b", d, x, y)
    st = R.ub_write(st, AD, d, np.full(256, -7.0, np.float16))
    # lanes 0..3 and 64 of each repeat; src1 read with repeat stride 0 (the same block every repeat)
    mask = [0b1111, 1]  # bit 64 = lane 64 (second word, bit 0)
    params = BinaryRepeatParams(1, 1, 1, 8, 8, 0)
    out = R.Mul(st, T(d, AD, 256), T(d, A0, 256), T(d, A1, 256), mask, 2, params, profile="ascend910b")
    got = R.ub_read(out, AD, d, 256).astype(float)
    want = np.full(256, -7.0)
    for r in range(2):
        for lane in (0, 1, 2, 3, 64):
            want[r * 128 + lane] = x[r * 128 + lane] * 2.0
    np.testing.assert_array_equal(got, want)
    # level 0 with a mask argument leaves the mask in the register (level0_writes_mask_register)
    assert R.state.get_vmask(out) == 0b1111 | (1 << 64)


def test_count_form_matches_high_dim_and_resets_registers():
    d = D.float32
    x = np.linspace(-3, 3, 200).astype(np.float32)
    y = np.linspace(5, -1, 200).astype(np.float32)
    st = _state("ascend910b", d, x, y)
    a = R.Sub(st, T(d, AD, 200), T(d, A0, 200), T(d, A1, 200), 200, profile="ascend910b")
    np.testing.assert_array_equal(R.ub_read(a, AD, d, 200), x - y)
    assert a.mask_mode == 0 and R.state.get_vmask(a) == 2**128 - 1  # ResetMask + SetMaskNorm


def test_is_set_mask_false_uses_registers():
    d = D.int16
    st = _state("ascend910b", d, np.arange(128), np.arange(128))
    st = R.SetVectorMask(st, d, 0, 0b101, profile="ascend910b")
    st = R.ub_write(st, AD, d, np.full(128, 99, np.int16))
    out = R.Add(
        st,
        T(d, AD, 128),
        T(d, A0, 128),
        T(d, A1, 128),
        R.MASK_PLACEHOLDER,
        1,
        BinaryRepeatParams(),
        profile="ascend910b",
        isSetMask=False,
    )
    got = R.ub_read(out, AD, d, 128)
    assert list(got[:3]) == [0, 99, 4] and (got[3:] == 99).all()


def test_zero_repeat_is_a_nop():
    d = D.half
    st = _state("ascend910b", d, np.ones(128), np.ones(128))
    out = R.Add(
        st, T(d, AD, 128), T(d, A0, 128), T(d, A1, 128), 128, 0, BinaryRepeatParams(), profile="ascend910b"
    )
    assert out.fault == 0 and (out.ub == st.ub).all()


# -- faults --------------------------------------------------------------------------------------


def test_faults_per_source():
    d = D.half
    st = _state("ascend910b", d, np.ones(128), np.ones(128))
    # src1 misaligned (src0 fine): the call is suppressed, MISALIGNED recorded
    out = R.Add(st, T(d, AD, 128), T(d, A0, 128), T(d, A1 + 2, 128), 128, profile="ascend910b")
    assert out.fault & Fault.MISALIGNED and (out.ub == st.ub).all()
    # src1 partially overlapping dst inside one repeat
    out = R.Add(st, T(d, AD, 128), T(d, A0, 128), T(d, AD + 32, 128), 128, profile="ascend910b")
    assert out.fault & Fault.PARTIAL_OVERLAP
    # src1 past the end of UB
    p = load_profile("ascend910b")
    out = R.Add(st, T(d, AD, 128), T(d, A0, 128), T(d, p.ub_usable_bytes - 32, 128), 128, profile=p)
    assert out.fault & Fault.OUT_OF_UB
    # in place (dst == src0 == src1, 100 % overlap) is allowed
    out = R.Add(st, T(d, A0, 128), T(d, A0, 128), T(d, A0, 128), 128, profile="ascend910b")
    assert out.fault == 0 and (R.ub_read(out, A0, d, 128) == 2).all()


# -- misuse ---------------------------------------------------------------------------------------


def test_misuse_errors_name_the_argument():
    d = D.half
    st = _state("ascend910b", d, np.ones(128), np.ones(128))
    dst, s0, s1 = T(d, AD, 128), T(d, A0, 128), T(d, A1, 128)
    with pytest.raises(UsageError, match=r"repeatParams\.src1RepStride"):
        R.Add(st, dst, s0, s1, 128, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 256), profile="ascend910b")
    with pytest.raises(UsageError, match="repeatParams"):
        R.Add(st, dst, s0, s1, 128, 1, UnaryRepeatParams(), profile="ascend910b")
    with pytest.raises(UsageError, match=r"src1\.dtype"):
        R.Add(st, dst, s0, T(D.float32, A1, 64), 128, profile="ascend910b")
    with pytest.raises(UsageError, match=r"mask\[1\]"):
        R.Max(
            st,
            T(D.float32, AD, 64),
            T(D.float32, A0, 64),
            T(D.float32, A1, 64),
            [1, 1],
            1,
            BinaryRepeatParams(),
            profile="ascend910b",
        )
    with pytest.raises(UsageError, match="repeatTime"):
        R.Exp(st, dst, s0, 128, 256, UnaryRepeatParams(), profile="ascend910b")
    with pytest.raises(UsageError, match="MASK_PLACEHOLDER"):
        R.Sqrt(st, dst, s0, 128, 1, UnaryRepeatParams(), profile="ascend910b", isSetMask=False)
    with pytest.raises(UsageError, match="count"):
        R.Ln(st, dst, s0, -1, profile="ascend910b")
    # dtypes per product: Div has no int16 on A2; And has no half anywhere; Neg only on 950
    with pytest.raises(UnsupportedError, match="ascend910b"):
        R.Div(st, T(D.int16, AD, 128), T(D.int16, A0, 128), T(D.int16, A1, 128), 128, profile="ascend910b")
    with pytest.raises(UnsupportedError, match="dtype"):
        R.And(st, dst, s0, s1, 128, profile="ascend910b")
    with pytest.raises(UnsupportedError, match="Neg"):
        R.Neg(st, dst, s0, 128, profile="ascend910b")
    # 950: int64 Max only through the count prototype
    with pytest.raises(UnsupportedError, match="count"):
        R.Max(
            R.reset_state("ascend950"),
            T(D.int64, AD, 32),
            T(D.int64, A0, 32),
            T(D.int64, A1, 32),
            32,
            1,
            BinaryRepeatParams(),
            profile="ascend950",
        )


# -- element rules ---------------------------------------------------------------------------------


def _lane(api, dtype, prof="ascend910b", ctrl=None):
    p = load_profile(prof)
    return E.lane_function(api, D.as_dtype(dtype), p, p.ctrl_reset_value if ctrl is None else ctrl)


def _h(v):
    return int(np.array([v], np.float16).view(np.uint16)[0])


def test_ieee_special_values_half():
    nan, inf, ninf, z, nz = 0x7E00, 0x7C00, 0xFC00, 0x0000, 0x8000
    ctrl_nonsat = 1 << 48  # CTRL[48] = 1: non-saturating (the reset value saturates on A2)
    div = _lane("Div", "half", ctrl=ctrl_nonsat)
    assert div(_h(1.0), z) == inf and div(_h(-1.0), z) == ninf and div(z, z) == nan
    assert div(_h(1.0), ninf) == nz and div(0x7C01, _h(1.0)) == nan  # NaN payload -> canonical
    assert div(_h(1.0), _h(3.0)) == _h(1 / 3)
    # the same overflow with CTRL[48] saturating: inf -> +-MAX, NaN -> 0
    div_sat = _lane("Div", "half", ctrl=0)
    assert div_sat(_h(1.0), z) == 0x7BFF and div_sat(z, z) == 0
    ln = _lane("Ln", "half", ctrl=ctrl_nonsat)
    assert ln(z) == ninf and ln(nz) == ninf and ln(_h(-1.0)) == nan and ln(_h(1.0)) == z
    sq = _lane("Sqrt", "half", ctrl=ctrl_nonsat)
    assert sq(nz) == nz and sq(_h(-4.0)) == nan and sq(_h(4.0)) == _h(2.0) and sq(1) == _h(2.0**-12)
    rs = _lane("Rsqrt", "half", ctrl=ctrl_nonsat)
    assert rs(z) == inf and rs(nz) == ninf and rs(inf) == z and rs(_h(4.0)) == _h(0.5)
    ex = _lane("Exp", "half", ctrl=ctrl_nonsat)
    assert ex(ninf) == z and ex(inf) == inf and ex(z) == _h(1.0) and ex(_h(12.0)) == inf
    rc = _lane("Reciprocal", "half", ctrl=ctrl_nonsat)
    assert rc(nz) == ninf and rc(_h(4.0)) == _h(0.25)
    assert _lane("Abs", "half")(nz) == z and _lane("Relu", "half")(nz) == z
    assert _lane("Relu", "half")(_h(-3.0)) == z and _lane("Abs", "half", ctrl=ctrl_nonsat)(0xFE01) == nan
    assert _lane("Max", "half")(nz, z) == z and _lane("Min", "half")(z, nz) == nz
    assert _lane("Sub", "half")(z, z) == z and _lane("Sub", "half")(nz, z) == nz
    # half subnormals kept on A2, flushed on 950 (input read as zero, result flushed)
    assert _lane("Add", "half")(1, 1) == 2
    assert _lane("Add", "half", "ascend950")(1, 1) == 0


def test_integer_wrap_and_ctrl_saturation_950():
    i16 = D.int16
    add = _lane("Add", "int16", "ascend950", ctrl=0)  # CTRL[53] = 0: truncation (wrap)
    assert add(0x7FFF, 1) == 0x8000
    add_sat = _lane("Add", "int16", "ascend950", ctrl=1 << 53)
    assert add_sat(0x7FFF, 1) == 0x7FFF and add_sat(0x8000, 0xFFFF) == 0x8000
    assert _lane("Abs", "int16", "ascend950", ctrl=0)(0x8000) == 0x8000
    assert _lane("Abs", "int16", "ascend950", ctrl=1 << 53)(0x8000) == 0x7FFF
    assert _lane("Neg", "int32", "ascend950", ctrl=0)(0x80000000) == 0x80000000
    assert _lane("Mul", "uint16", "ascend950", ctrl=0)(0x100, 0x100) == 0
    assert _lane("Sub", "uint32", "ascend950", ctrl=1 << 53)(1, 2) == 0
    assert _lane("Not", "half", "ascend950")(0x3C00) == 0xC3FF  # bit pattern, no float rule
    assert _lane("And", "uint16")(0xF0F0, 0x3C3C) == 0x3030 and _lane("Or", "int16")(0x8000, 1) == 0x8001
    assert i16.bits == 16


def test_float32_rounds_once():
    mul = _lane("Mul", "float32")
    a = int(np.array([1 + 2**-23], np.float32).view(np.uint32)[0])
    want = np.float32(1 + 2**-23) * np.float32(1 + 2**-23)
    assert mul(a, a) == int(np.array([want]).view(np.uint32)[0])
    # a float32 subnormal result of Div is kept on A2 (preserve)
    div = _lane("Div", "float32")
    assert div(int(np.array([2.0**-140], np.float32).view(np.uint32)[0]), 0x41800000) == 1 << 5


def test_numerics_choice_is_a_profile_key():
    for name in available_profiles():
        p = load_profile(name)
        for api in E.CHOSEN_NUMERICS:
            if p.api(api).supported:
                assert p.api(api).numerics == "correctly_rounded", (name, api)


# -- tensor-scalar APIs (flexible scalar position, LeakyRelu) -----------------------------------


def test_flexible_scalar_positions_and_faults():
    d = D.int16
    p = "ascend950"
    st = _state(p, d, np.arange(1, 129), np.full(128, 5))
    dst, s0, s1 = T(d, AD, 128), T(d, A0, 128), T(d, A1, 128)
    # a number in either position
    out = R.Subs(st, dst, 10, s0, 128, profile=p)
    assert list(R.ub_read(out, AD, d, 3)) == [9, 8, 7]
    out = R.Subs(st, dst, s0, 10, 128, profile=p)
    assert list(R.ub_read(out, AD, d, 3)) == [-9, -8, -7]
    # two tensors: config.scalarTensorIndex picks the element (default 1 = right)
    out = R.Subs(st, dst, s0, s1, 128, profile=p)
    assert list(R.ub_read(out, AD, d, 3)) == [-4, -3, -2]
    # the element scalar may sit anywhere (no alignment rule), read before the call writes
    out = R.Subs(st, dst, s0, T(d, A0 + 2, 1), 128, profile=p)
    assert list(R.ub_read(out, AD, d, 3)) == [-1, 0, 1] and out.fault == 0
    # ... but not inside an active dst block, nor past UB
    out = R.Subs(st, dst, s0, T(d, AD + 6, 1), 128, profile=p)
    assert out.fault & Fault.PARTIAL_OVERLAP and (out.ub == st.ub).all()
    out = R.Subs(st, dst, s0, T(d, st.ub.size - 1, 1), 128, profile=p)
    assert out.fault & Fault.OUT_OF_UB
    with pytest.raises(UsageError, match="src0/src1"):
        R.Subs(st, dst, 1, 2, 128, profile=p)
    with pytest.raises(UsageError, match=r"config\.scalarTensorIndex"):
        R.Subs(st, dst, s0, s1, 128, profile=p, config=2)
    with pytest.raises(UsageError, match=r"src1\.dtype"):
        R.Subs(st, dst, s0, T(D.half, A1, 1), 128, profile=p)
    with pytest.raises(UnsupportedError, match="Subs"):
        R.Subs(R.reset_state("ascend910b"), dst, s0, 3, 128, profile="ascend910b")
    with pytest.raises(UnsupportedError, match="count"):  # int64 Ands: count prototype only
        R.Ands(st, T(D.int64, AD, 32), T(D.int64, A0, 32), 3, 32, 1, UnaryRepeatParams(), profile=p)


def test_leaky_relu_lanes():
    p = load_profile("ascend910b")
    f = BS.leaky_relu_lane(D.half, p, 1 << 48, _h(0.5))
    assert f(0x8000) == 0x8000  # -0 >= 0: passes through
    assert f(_h(-3.0)) == _h(-1.5) and f(_h(3.0)) == _h(3.0) and f(0xFC00) == 0xFC00
    assert f(0x7C01) == 0x7E00  # NaN: canonical
    with pytest.raises(UnsupportedError):
        R.LeakyRelu(
            R.reset_state("ascend910"), T(D.half, AD, 128), T(D.half, A0, 128), 0.1, 128, profile="ascend910"
        )


# -- data fill: Duplicate, CreateVecIndex ---------------------------------------------------------


@pytest.mark.parametrize("ex", DATA["fill_examples"], ids=lambda e: e["api"])
def test_fill_doc_result_examples(ex):
    d = D.as_dtype(ex["dtype"])
    n = ex["n"]
    tensor_src = "src" in ex
    profiles = [
        p
        for p in available_profiles()
        if d.name in load_profile(p).api(ex["api"]).all_dtypes()
        and (not tensor_src or load_profile(p).api(ex["api"]).tensor_source)
    ]
    assert profiles
    for prof in profiles:
        for form, args in ex["forms"].items():
            args = [ALL_ONES if a == "all_ones" else a for a in args]
            st = R.reset_state(prof)
            if tensor_src:
                vals = np.zeros(n)
                for i, v in ex["src"]["printed"].items():
                    vals[int(i)] = float(v)
                st = R.ub_write(st, A1, d, vals.astype(d.np_dtype))
                value = T(d, A1, n)
            else:
                value = float(ex["value"]) if d.is_float else int(ex["value"])
            out = getattr(R, ex["api"])(st, T(d, AD, n), value, *args, profile=prof)
            assert out.fault == 0
            got = R.ub_read(out, AD, d, n)
            for i, printed in ex["printed"].items():
                want = np.array([float(printed)]).astype(d.np_dtype)[0]
                assert got[int(i)].tobytes() == want.tobytes(), (prof, form, i)


def test_fill_strides_masks_and_errors():
    p = "ascend910b"
    d = D.float32
    st = R.reset_state(p)
    st = R.ub_write(st, AD, d, np.full(128, -1.0, np.float32))
    # every other block (dstBlockStride 2), lanes 0..2 and 9 of each repeat
    out = R.CreateVecIndex(st, T(d, AD, 128), 10.0, [0b1000000111], 1, 2, 8, profile=p)
    got = R.ub_read(out, AD, d, 128)
    assert list(got[:3]) == [10.0, 11.0, 12.0] and got[3] == -1.0
    assert got[16 + 1] == 19.0 and got[8] == -1.0  # lane 9 = block 1 element 1, at block 2
    out = R.Duplicate(st, T(d, AD, 128), float("nan"), 8, profile=p)
    assert (R.ub_read(out, AD, d, 8).view(np.uint32) == 0x7FC00000).all()  # a Python NaN converts canonically
    out = R.Duplicate(st, T(d, AD + 4, 128), 1.0, 8, profile=p)
    assert out.fault & Fault.MISALIGNED
    with pytest.raises(UsageError, match="dstRepeatStride"):
        R.Duplicate(st, T(d, AD, 128), 1.0, 64, 1, 1, 256, profile=p)
    with pytest.raises(UsageError, match="dstBlkStride"):
        R.CreateVecIndex(st, T(d, AD, 128), 1.0, 64, 1, -1, 8, profile=p)
    with pytest.raises(UsageError, match="firstValue"):
        R.CreateVecIndex(st, T(D.int16, AD, 128), 40000, 64, profile=p)
    with pytest.raises(UsageError, match="src"):  # the tensor source exists on 950 only
        R.Duplicate(st, T(d, AD, 128), T(d, A0, 1), 64, profile=p)
    with pytest.raises(UnsupportedError, match="CreateVecIndex"):
        R.CreateVecIndex(R.reset_state("ascend910"), T(D.half, AD, 128), 0.0, 64, profile="ascend910")
