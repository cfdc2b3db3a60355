"""The exact element functions against an independent float64 computation, by bit pattern:
every half pattern, every bfloat16 pattern, and a million subnormal-heavy float32 pairs.
(XLA on CPU flushes float32 subnormals; these tests fail if the engine ever relies on that.)"""

import jax
import ml_dtypes
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax._engine import elementwise as EW
from ascend_jax._engine import numerics as N

P = aj.load_profile("ascend910b")
P_NOSAT = None


def _exact(op, a, b, np_t):
    with np.errstate(all="ignore"):
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        r = {"add": a64 + b64, "mul": a64 * b64, "max": np.maximum(a64, b64), "min": np.minimum(a64, b64)}[op]
        return r.astype(np.float32).astype(np_t) if np_t == ml_dtypes.bfloat16 else r.astype(np_t)


def _ctrl_nosat():
    return np.array([0, 1 << 16], np.uint32)  # CTRL[48] = 1: keep inf/NaN


def _check(op, x_bits, s_bits, dtype, np_t, bits_t):
    got = np.asarray(
        jax.jit(lambda x, s: EW.scalar_op(op, x, s, dtype, P, _ctrl_nosat()))(
            x_bits.astype(np.uint32), np.uint32(s_bits)
        )
    ).astype(bits_t)
    a = x_bits.astype(bits_t).view(np_t)
    b = np.full(a.shape, s_bits, bits_t).view(np_t)
    want = _exact(op, a, b, np_t)
    if op in ("max", "min"):  # -0 < +0 (numpy's maximum does not order zeros)
        with np.errstate(all="ignore"):
            both_zero = (a.astype(np.float64) == 0) & (b.astype(np.float64) == 0)
            neg_a = np.signbit(a.astype(np.float32))
        pick_a = neg_a if op == "min" else ~neg_a
        want = np.where(both_zero, np.where(pick_a, a, b), want)
    want_bits = want.view(bits_t)
    with np.errstate(all="ignore"):
        nan = np.isnan(want.astype(np.float32))
    qnan = {np.uint16: 0x7E00 if np_t == np.float16 else 0x7FC0, np.uint32: 0x7FC00000}[bits_t]
    want_bits = np.where(nan, qnan, want_bits)
    bad = np.nonzero(got != want_bits)[0]
    assert bad.size == 0, [
        (hex(int(x_bits[i])), hex(int(s_bits)), hex(int(got[i])), hex(int(want_bits[i]))) for i in bad[:5]
    ]


SCALARS16 = [
    0x0000,
    0x8000,
    0x0001,
    0x8001,
    0x03FF,
    0x0400,
    0x3C00,
    0xBC00,
    0x3555,
    0x7BFF,
    0x7C00,
    0x7E00,
    0x4000,
]


@pytest.mark.parametrize("op", ["add", "mul", "max", "min"])
def test_half_every_pattern(op):
    x = np.arange(65536, dtype=np.uint32)
    for s in SCALARS16:
        _check(op, x, s, aj.half, np.float16, np.uint16)


@pytest.mark.parametrize("op", ["add", "mul", "max", "min"])
def test_bfloat16_every_pattern(op):
    x = np.arange(65536, dtype=np.uint32)
    for s in [0x0000, 0x8000, 0x0001, 0x807F, 0x0080, 0x3F80, 0xBFC0, 0x3F81, 0x7F7F, 0x7F80, 0x0100]:
        _check(op, x, s, aj.bfloat16, ml_dtypes.bfloat16, np.uint16)


def _f32_bits(rng, n):
    b = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    k = rng.integers(0, 4, n)
    b = np.where(k == 0, b & 0x80FFFFFF, b)  # tiny exponents
    b = np.where(k == 1, b & 0x807FFFFF, b)  # subnormals
    return b.astype(np.uint32)


@pytest.mark.parametrize("op", ["add", "mul"])
def test_float32_soft_ops_million_pairs(op):
    rng = np.random.default_rng(7)
    a, b = _f32_bits(rng, 1 << 20), _f32_bits(rng, 1 << 20)
    fn = N.f32_add_bits if op == "add" else N.f32_mul_bits
    got = np.asarray(jax.jit(fn)(a, b))
    with np.errstate(all="ignore"):
        fa, fb = a.view(np.float32).astype(np.float64), b.view(np.float32).astype(np.float64)
        want = (fa + fb if op == "add" else fa * fb).astype(np.float32).view(np.uint32)
    nan = (want & 0x7FFFFFFF) > 0x7F800000
    assert np.all(nan | (got == want))
    assert np.all(~nan | ((got & 0x7FFFFFFF) > 0x7F800000))


def test_float32_max_min_order_and_nan():
    a = np.array([0x80000000, 0x00000000, 0x00000001, 0x80000001, 0x7FC00001, 0x3F800000], np.uint32)
    s = np.uint32(0x00000000)
    mx = np.asarray(EW.scalar_op("max", a, s, aj.float32, P, _ctrl_nosat()))
    mn = np.asarray(EW.scalar_op("min", a, s, aj.float32, P, _ctrl_nosat()))
    assert mx.tolist() == [0x00000000, 0x00000000, 0x00000001, 0x00000000, 0x7FC00000, 0x3F800000]
    assert mn.tolist() == [0x80000000, 0x00000000, 0x00000000, 0x80000001, 0x7FC00000, 0x00000000]


def test_int_wrap_and_saturate():
    x = np.array([32767, -32768, 100], np.int16).view(np.uint16).astype(np.uint32)
    wrap = np.asarray(EW.scalar_op("add", x, np.uint32(1), aj.int16, P, np.zeros(2, np.uint32))).astype(
        np.uint16
    )
    assert wrap.view(np.int16).tolist() == [-32768, -32767, 101]
    p950 = aj.load_profile("ascend950")
    ctrl = np.array([0, 1 << (53 - 32)], np.uint32)  # CTRL[53] = 1: saturate
    sat = np.asarray(EW.scalar_op("mul", x, np.uint32(2), aj.int16, p950, ctrl)).astype(np.uint16)
    assert sat.view(np.int16).tolist() == [32767, -32768, 200]
    x32 = np.array([2**31 - 1, -(2**31), 46341, -46341], np.int32).view(np.uint32)
    w = np.asarray(EW.scalar_op("mul", x32, np.uint32(46341), aj.int32, P, np.zeros(2, np.uint32)))
    assert (
        w.view(np.int32).tolist() == (x32.view(np.int32).astype(np.int64) * 46341).astype(np.int32).tolist()
    )
    s = np.asarray(EW.scalar_op("mul", x32, np.uint32(46341), aj.int32, p950, ctrl)).view(np.int32)
    assert s.tolist() == [2**31 - 1, -(2**31), 2**31 - 1, -(2**31)]


def test_add_of_a_constant_zero_keeps_ieee_zero_signs():
    # XLA simplifies x + 0.0 to x when 0.0 is a compile-time constant, so -0 + (+0) came out -0
    # (IEEE RNE: +0). Found by the static-parameter nightly (AddsFlexible complex32 on ascend950).
    zeros = np.array([0x80000000, 0x00000000, 0x80000000], np.uint32)
    for const, want in ((0x00000000, [0, 0, 0]), (0x80000000, [0x80000000, 0, 0x80000000])):
        got = jax.jit(lambda x, c=np.uint32(const): N.f32_add_bits(x, c))(zeros)
        assert np.asarray(got).tolist() == want
    with np.errstate(all="ignore"):  # the same sums by NumPy: an independent statement of the rule
        assert (np.float32(-0.0) + np.float32(0.0)).view(np.uint32) == 0


@pytest.mark.parametrize("dtype", ["float32", "half"])
def test_kernel_adds_zero_constant_on_negative_zero(dtype):
    np_t = np.float32 if dtype == "float32" else np.float16
    n = 256 // np.dtype(np_t).itemsize

    def kern(k, srcGm, dstGm):
        buf = aj.TBuf(aj.TPosition.VECCALC)
        aj.TPipe(k).InitBuffer(buf, 1024)
        t = buf.Get(aj.as_dtype(dtype))
        k.DataCopy(t, srcGm, n)
        k.Adds(t, t, 0.0, n)
        k.DataCopy(dstGm, t, n)

    src = np.tile(np.array([-0.0, 0.0, -1.5, 2.0], np_t), (3, n // 4))
    res = aj.jit_kernel(kern, profile=P)(src, np.ones_like(src))
    with np.errstate(all="ignore"):
        want = src + np_t(0.0)  # IEEE: -0 + 0 = +0
    assert np.array_equal(np.asarray(res.gm[1]).view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("name", ["half", "float32"])
def test_scalar_rounding_of_a_double_equals_the_exact_rounding(name):
    """A Python float scalar converts to half / float32 through NumPy's one IEEE rounding
    (``_args.round_to_float_bits``); the same value given exactly (a Fraction) takes the exact
    rational path: equal bits on random doubles of every magnitude, and on the doubles next to
    every tie of the target format (where a double -> float32 -> half route would round twice)."""
    import fractions

    from ascend_jax import dtypes as _dt
    from ascend_jax.api._args import round_to_float_bits

    d = _dt.as_dtype(name)
    rng = np.random.default_rng(7)
    bits = d.bits_dtype
    # random doubles spread over the target's range, overflow and subnormals included
    mant = rng.random(3000) + 1.0
    exps = rng.integers(-160 if name == "float32" else -30, 140 if name == "float32" else 20, 3000)
    xs = list(mant * np.exp2(exps.astype(np.float64)) * rng.choice([-1.0, 1.0], 3000))
    # ties: the midpoint of two neighbouring values of the format, and the doubles just around it
    vals = rng.integers(1, (1 << (d.bits - 1)) - (1 << (d.bits - 1 - (5 if name == "half" else 8))), 600)
    lo = np.asarray(vals.astype(bits).view(d.np_dtype), np.float64)
    hi = np.asarray((vals + 1).astype(bits).view(d.np_dtype), np.float64)
    mid = (lo + hi) / 2  # exact in a double
    for k in (-2, -1, 0, 1, 2):
        xs += list(mid + k * np.spacing(mid))
    xs += [65519.99, 65520.0, 65504.0, 2.0**-25, 2.0**-24 * 1.5, 3.4028235677973366e38, 1e-46]
    for x in xs:
        x = float(x)
        want = round_to_float_bits(fractions.Fraction(x), d)
        got = round_to_float_bits(x, d)
        assert got == want, f"{name}: {x!r} -> {got:#x}, exact {want:#x}"
