"""Static misuse raises at trace time with API, argument, value, allowed values and profile."""

import re

import numpy as np
import pytest

import ascend_jax as aj

P = aj.UnaryRepeatParams()


def _k(profile="ascend910b"):
    k = aj.Kernel(profile=profile)
    return k, k.alloc(aj.float32, 256), k.alloc(aj.float32, 256)


def _raises(exc, pattern, fn, *a, **kw):
    with pytest.raises(exc, match=pattern):
        fn(*a, **kw)


def test_unsupported_dtype_names_everything():
    k = aj.Kernel(profile="ascend910")
    x, y = k.alloc(aj.int16, 128), k.alloc(aj.int16, 128)
    msg = "Muls: dtype='int16' is not allowed on profile 'ascend910'; allowed: half, float32"
    _raises(aj.UnsupportedError, re.escape(msg), k.Muls, y, x, 2, 128)


def test_unsupported_api_on_product():
    k = aj.Kernel(profile="ascend910")  # Maxs/Mins: 不支持 on Atlas 训练系列产品
    x, y = k.alloc(aj.half, 128), k.alloc(aj.half, 128)
    _raises(
        aj.UnsupportedError, r"Maxs: api='Maxs' is not allowed on profile 'ascend910'", k.Maxs, y, x, 1.0, 128
    )
    k = aj.Kernel(profile="ascend310p_vec")
    x, y = k.alloc(aj.half, 128), k.alloc(aj.half, 128)
    _raises(aj.UnsupportedError, r"Adds: api='Adds' .* 'ascend310p_vec'", k.Adds, y, x, 1.0, 128)


def test_count_only_dtype_on_950():
    k = aj.Kernel(profile="ascend950")
    x, y = k.alloc(aj.int8, 256), k.alloc(aj.int8, 256)
    k.Adds(y, x, 1, 256)  # count form accepts int8 on 950
    _raises(
        aj.UnsupportedError,
        r"Adds: dtype='int8' .*'ascend950'.*accepted only by the count",
        k.Adds,
        y,
        x,
        1,
        128,
        1,
        P,
    )


def test_64bit_shifts_on_950_follow_the_doc_rules():
    """int64/uint64 ShiftLeft/ShiftRight (950, count form) as (low, high) uint32 pairs. Expected
    values are the doc rules evaluated with Python ints: arithmetic right shift for signed T,
    logical for unsigned; the signed left shift keeps the sign bit and drops the second-highest
    bit; an amount above 64 saturates (ShiftLeft.md: "dst的全部元素被赋值为0")."""
    k = aj.Kernel(profile="ascend950")
    n = 32
    xs = [-(2**40) - 5, 2**62 + 1, -1, 2**63 - 1, -(2**63), 12345678901234, 0, 7] * 4
    us = [2**64 - 1, 2**63, 1, 2**40 + 3, 0, 0xDEADBEEFCAFEBABE, 2**32, 2**32 - 1] * 4
    x, y = k.alloc(aj.int64, n), k.alloc(aj.int64, n)
    ux, uy = k.alloc(aj.uint64, n), k.alloc(aj.uint64, n)
    k.write(x, np.array(xs, np.int64))
    k.write(ux, np.array(us, np.uint64))
    m64 = (1 << 64) - 1
    for amount in (0, 1, 3, 31, 32, 33, 63, 64, 70):
        k.ShiftRight(y, x, amount, n)
        want = [v >> min(amount, 64) if v >= 0 else -((-v - 1) >> min(amount, 64)) - 1 for v in xs]
        assert k.read(y).tolist() == want, amount
        k.ShiftRight(uy, ux, amount, n)
        assert k.read(uy).tolist() == [v >> amount if amount < 64 else 0 for v in us], amount
        k.ShiftLeft(uy, ux, amount, n)
        assert k.read(uy).tolist() == [(v << amount) & m64 if amount < 64 else 0 for v in us], amount
        k.ShiftLeft(y, x, amount, n)
        got = k.read(y).astype(np.uint64).tolist()
        want = []
        for v in xs:
            b = v & m64
            if amount > 64:
                want.append(0)
            else:
                want.append((b & (1 << 63)) | (((b << amount) & m64) & ~(1 << 63)))
        assert got == want, amount


def test_complex_count_form_on_950():
    """complex32/complex64 Adds/Muls (950, count form; 内置数据类型: Complex<half>/Complex<float>,
    real part first). Muls rounds each product, then each sum (MODEL.md choice)."""
    k = aj.Kernel(profile="ascend950")
    x, y = k.alloc(aj.float32, 64), k.alloc(aj.float32, 64)
    k.write(x, np.array([1, 2, 3, -4] * 16, np.float32))
    xc, yc = x.ReinterpretCast(aj.complex64), y.ReinterpretCast(aj.complex64)
    k.Muls(yc, xc, complex(2, 1), 32)  # (1+2i)(2+i) = 5i, (3-4i)(2+i) = 10-5i
    assert k.read(y)[:4].tolist() == [0.0, 5.0, 10.0, -5.0]
    k.Adds(yc, xc, complex(0.5, -1), 32)
    assert k.read(y)[:4].tolist() == [1.5, 1.0, 3.5, -5.0]


def test_int64_count_form_only_on_950():
    """int64/uint64 are count-only on 950 (Adds.md 数据类型); lanes are modelled as uint32 pairs."""
    k = aj.Kernel(profile="ascend950")
    x, y = k.alloc(aj.int64, 32), k.alloc(aj.int64, 32)
    k.write(x, np.arange(32, dtype=np.int64) - 2**40)
    k.Adds(y, x, 2**40 + 5, 32)
    assert k.read(y).tolist() == list(range(5, 37))
    _raises(
        aj.UnsupportedError, r"Adds: dtype='int64' .*accepted only by the count", k.Adds, y, x, 1, 32, 1, P
    )


def test_float32_mask_high_word_must_be_zero():
    k, x, y = _k()
    _raises(
        aj.UsageError,
        r"Muls: mask\[1\]='0x1' is not allowed on profile 'ascend910b'; allowed: 0",
        k.Muls,
        y,
        x,
        2.0,
        [1, 1],
        1,
        P,
    )


def test_repeat_out_of_range():
    k, x, y = _k()
    _raises(
        aj.UsageError,
        r"Muls: repeatTime=256 .* allowed: an integer in \[0, 255\]",
        k.Muls,
        y,
        x,
        2.0,
        64,
        256,
        P,
    )


def test_negative_continuous_mask():
    k, x, y = _k()
    _raises(
        aj.UsageError,
        r"Adds: mask=-1 .* allowed: an integer in \[0, 2\*\*64-1\]",
        k.Adds,
        y,
        x,
        2.0,
        -1,
        1,
        P,
    )


def test_stride_out_of_range():
    k, x, y = _k()
    bad = aj.UnaryRepeatParams(dstRepStride=256)
    _raises(aj.UsageError, r"repeatParams.dstRepStride=256 .* \[0, 255\]", k.Adds, y, x, 2.0, 64, 1, bad)


def test_count_beyond_ub():
    k, x, y = _k()
    _raises(aj.UsageError, r"Adds: count=49089 .*\[0, 49088\]", k.Adds, y, x, 2.0, 49089)


def test_dtype_mismatch():
    k = aj.Kernel()
    x, y = k.alloc(aj.half, 128), k.alloc(aj.float32, 64)
    _raises(aj.UsageError, r"Adds: src.dtype='half' .* allowed: float32", k.Adds, y, x, 2.0, 64)


def test_placeholder_rules():
    k, x, y = _k()
    _raises(aj.UsageError, r"mask=MASK_PLACEHOLDER", k.Adds, y, x, 2.0, aj.MASK_PLACEHOLDER, 1, P)
    _raises(aj.UsageError, r"allowed: MASK_PLACEHOLDER", k.Adds, y, x, 2.0, 64, 1, P, isSetMask=False)


def test_zero_mask_error_on_310p():
    k = aj.Kernel(profile="ascend310p")
    x, y = k.alloc(aj.half, 128), k.alloc(aj.half, 128)
    _raises(aj.UsageError, r"Adds: mask=0 .*'ascend310p'", k.Adds, y, x, 2.0, 0, 1, P)


def test_mask_apis_absent_on_910():
    k = aj.Kernel(profile="ascend910")
    _raises(aj.UnsupportedError, r"SetMaskCount: api='SetMaskCount' .*'ascend910'", k.SetMaskCount)


def test_integer_scalar_must_be_integral():
    k = aj.Kernel()
    x, y = k.alloc(aj.int32, 64), k.alloc(aj.int32, 64)
    _raises(aj.UsageError, r"Muls: scalarValue=2.5 .* an integer \(int32_t\)", k.Muls, y, x, 2.5, 64)


@pytest.mark.parametrize(
    "kw,bit",
    [
        ({"dst_addr": 2}, aj.Fault.MISALIGNED),
        ({"dst_addr": 196608 - 32}, aj.Fault.OUT_OF_UB),
        ({"params": aj.UnaryRepeatParams(dstBlkStride=0)}, aj.Fault.DST_BLK_STRIDE_ZERO),
        ({"src_addr": 32}, aj.Fault.PARTIAL_OVERLAP),
        ({"dst_addr": 256, "src_addr": 0, "repeat": 2}, aj.Fault.REPEAT_DEPENDENCY),
    ],
)
def test_faults_are_flagged_and_suppress_the_call(kw, bit):
    """Data-dependent faults set their bit per case; the call writes nothing."""
    st = aj.reset_state()
    ub = np.arange(st.ub.shape[0], dtype=np.uint32).astype(np.uint8)
    st = st.replace(ub=aj.reset_state().ub.at[:].set(ub))
    dst = aj.LocalTensor(aj.float32, kw.get("dst_addr", 0), 128)
    src = aj.LocalTensor(aj.float32, kw.get("src_addr", 4096), 128)
    params = kw.get("params", aj.UnaryRepeatParams())
    out = aj.Muls(st, dst, src, 2.0, 64, kw.get("repeat", 1), params)
    assert int(out.fault) & int(bit), aj.describe_faults(int(out.fault))
    assert np.array_equal(np.asarray(out.ub), ub)


def test_eager_kernel_raises_fault():
    k, x, y = _k()
    with pytest.raises(aj.AscendFault, match="hardware fault in Muls: MISALIGNED"):
        k.Muls(y, x[1], 2.0, 64)
    rec = aj.Kernel(fault_policy="record")
    a, b = rec.alloc(aj.float32, 64), rec.alloc(aj.float32, 64)
    rec.Muls(b, a[1], 2.0, 64)
    assert int(rec.state.fault) == int(aj.Fault.MISALIGNED)
