"""Fast-path element functions of the element-wise family, on bit patterns.

Binary: ``f(x_bits, y_bits, dtype, profile, ctrl) -> bits``; unary: ``f(x_bits, dtype, profile, ctrl)
-> bits``. Lanes are uint32-held bit patterns for types up to 32 bits, (low, high) uint32 pairs in a
trailing axis of 2 for 64-bit integers and complex64 (as ``elementwise.scalar_op``); ``ctrl`` is the
state's CTRL words. The profile's numerics apply as in ``elementwise``: subnormal flush, CTRL[48]
float saturation, canonical NaN, integer wrap or saturation (profile or CTRL[53]).

Float arithmetic never lets the backend's float unit see a subnormal (XLA on CPU flushes them):
* Add/Mul/Max/Min reuse ``elementwise.scalar_op``; Sub is Add with the sign of y flipped (IEEE
  754 defines x - y as x + (-y), signed zeros and NaN included).
* Div (and Reciprocal on float32) is an integer long division of the 24-bit significands
  (27 quotient bits plus a sticky bit) rounded once, to nearest even, at T's precision and
  subnormal position (``apis.Div.numerics = "correctly_rounded"``).
* Exp, Ln, Sqrt, Rsqrt, Reciprocal on half and bfloat16 are 65,536-entry tables built once per
  process from float64 NumPy results rounded once to T in integer arithmetic (the float64 result is
  within 1 ulp of float64 of the exact value, so a wrong 16-bit rounding would need the exact value
  within 2**-52 of a 16-bit midpoint; the exhaustive tests check every pattern against the
  reference's 80-digit decimal results). float32 Sqrt is a digit-by-digit integer square root of
  the significand (26 result bits plus a sticky bit) rounded once; float32 Exp, Ln and Rsqrt are
  evaluated in 96-bit integer fixed point (Rsqrt: exact midpoint tests) and rounded once
  (``transcend``: method and error bounds). ExpSub is float32 Sub, then that Exp rounded to T.
"""

import functools

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtypes as _dt
from ..errors import NotModelledError
from . import elementwise as EW
from . import numerics as N
from . import transcend as TR

U32 = jnp.uint32
I32 = jnp.int32


def _fmt(dtype):
    return {"half": N.HALF, "bfloat16": N.BF16, "float32": N.F32}[dtype.name]


def _numerics_choice(api, profile):
    choice = profile.api(api).numerics
    if choice != "correctly_rounded":
        raise NotModelledError(f"{api}: numerics choice {choice!r} has no fast-path implementation")


def _flush_in(x, fmt, profile):
    return N.flush_subnormal(x, fmt) if profile.float_subnormals == "flush_to_zero" else x


def _wide(dtype):
    return dtype.itemsize == 8


def _split64(y):
    """A [..., 2] pair array as the ``s`` argument of elementwise's 64-bit routines ([2, ...])."""
    return jnp.moveaxis(y, -1, 0)


# ---------------------------------------------------------------------------------------------
# Integers


def _int_mask(bits):
    return np.uint32((1 << bits) - 1) if bits < 32 else np.uint32(0xFFFFFFFF)


def _to_i32(v, bits, signed):
    v = v & _int_mask(bits)
    if signed and bits < 32:
        sh = np.uint32(32 - bits)
        return lax.shift_right_arithmetic((v << sh).astype(I32), sh.astype(np.int32))
    return v.astype(I32) if signed else v


def _int_sub(x, y, dtype, profile, ctrl):
    bits, signed = dtype.bits, dtype.is_signed_int
    sat = EW._int_saturating(profile, ctrl)
    mask = _int_mask(bits)
    if bits < 32:  # exact in int32
        wide = _to_i32(x, bits, signed).astype(I32) - _to_i32(y, bits, signed).astype(I32)
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        r = jnp.where(sat, jnp.clip(wide, lo, hi), wide)
        return r.astype(U32) & mask
    x, y = x.astype(U32), y.astype(U32)
    w = x - y
    if signed:
        xs, ys, ws = x >> 31, y >> 31, w >> 31
        ovf = (xs != ys) & (ws != xs)
        satv = jnp.where(xs == 1, np.uint32(0x80000000), np.uint32(0x7FFFFFFF))
        return jnp.where(sat & ovf, satv, w)
    return jnp.where(sat & (x < y), np.uint32(0), w)


def _int64_sub(x, y, dtype, profile, ctrl):
    signed = dtype.is_signed_int
    sat = EW._int_saturating(profile, ctrl)
    xl, xh, yl, yh = x[..., 0], x[..., 1], y[..., 0], y[..., 1]
    rl = xl - yl
    rh = xh - yh - (xl < yl).astype(U32)
    if signed:
        xs, ys, rs = xh >> 31, yh >> 31, rh >> 31
        ovf = (xs != ys) & (rs != xs)
        hv = jnp.where(xs == 1, np.uint32(0x80000000), np.uint32(0x7FFFFFFF))
        lv = jnp.where(xs == 1, np.uint32(0), np.uint32(0xFFFFFFFF))
    else:
        ovf = EW._lt64(xh, xl, yh, yl, False)
        hv, lv = np.uint32(0), np.uint32(0)
    return jnp.stack([jnp.where(sat & ovf, lv, rl), jnp.where(sat & ovf, hv, rh)], -1)


def _int_binary(op, x, y, dtype, profile, ctrl):
    if _wide(dtype):
        if op == "sub":
            return _int64_sub(x, y, dtype, profile, ctrl)
        return EW.int64_op(op, x, _split64(y), dtype, profile, ctrl)
    if op == "sub":
        return _int_sub(x, y, dtype, profile, ctrl)
    return EW.int_op(op, x, y, dtype, profile, ctrl)


# ---------------------------------------------------------------------------------------------
# Soft division (correctly rounded, subnormals in and out)

_F32_EXP = np.uint32(0x7F800000)
_F32_MAN = np.uint32(0x007FFFFF)
_F32_ABS = np.uint32(0x7FFFFFFF)
_F32_SIGN = np.uint32(0x80000000)


def _to_f32_bits(x, dtype):
    """T bits -> float32 bits of the same value (exact)."""
    if dtype.name == "float32":
        return x.astype(U32)
    if dtype.name == "bfloat16":
        return N.bf16_bits_to_f32_bits(x)
    return lax.bitcast_convert_type(N.half_bits_to_f32(x), U32)


def _norm(b):
    """float32 bits of a finite non-zero value -> (24-bit significand with its MSB at bit 23,
    unbiased exponent of that MSB)."""
    e = ((b >> 23) & 0xFF).astype(I32)
    m = b & _F32_MAN
    sub = e == 0
    sh = jnp.where(sub, N._clz32(jnp.where(m == 0, 1, m)) - 8, 0)
    sig = jnp.where(sub, m << sh.astype(U32), m | 0x800000)
    ex = jnp.where(sub, -126 - sh, e - 127)
    return sig, ex


def _long_div(a, b):
    """floor(a * 2**26 / b) and whether a remainder is left, for 24-bit a, b (b > 0)."""
    q = (a >= b).astype(U32)
    rem = a - jnp.where(a >= b, b, 0)
    for _ in range(26):  # restoring division: rem < b < 2**24, so rem << 1 fits in uint32
        rem = rem << 1
        ge = rem >= b
        q = (q << 1) | ge.astype(U32)
        rem = rem - jnp.where(ge, b, 0)
    return q, rem != 0


def _assemble(sign, q_sticky, lsb_exp_in, msb_exp, fmt):
    """Round ``q_sticky * 2**lsb_exp_in`` (whose MSB has exponent ``msb_exp``; at least 2 bits
    are dropped) once to ``fmt`` (RNE, subnormals, overflow to inf). Returns T bits (uint32)."""
    m = fmt.man_bits
    bias = (1 << (fmt.nbits - m - 2)) - 1
    emin = 1 - bias
    lsb_exp = jnp.maximum(msb_exp - m, emin - m)
    d = lsb_exp - lsb_exp_in
    q = N._shr64_rne(jnp.zeros_like(q_sticky), q_sticky, jnp.minimum(d, 63))
    q = jnp.where(d > 63, 0, q)
    normal = msb_exp >= emin
    carry = q >= np.uint32(1 << (m + 1))
    q_n = jnp.where(carry, q >> 1, q)
    e_n = msb_exp + carry.astype(I32)
    normal_bits = ((e_n + bias).astype(U32) << m) | (q_n & fmt.man)
    mag = jnp.where(normal, normal_bits, q)  # q == 2**m is the smallest normal's encoding
    mag = jnp.where(normal & (e_n > bias), fmt.exp, mag)
    return (sign << np.uint32(fmt.nbits - 1)) | mag


def _float_div(x, y, dtype, profile, ctrl):
    fmt = _fmt(dtype)
    x, y = _flush_in(x, fmt, profile), _flush_in(y, fmt, profile)
    a, b = _to_f32_bits(x, dtype), _to_f32_bits(y, dtype)
    sign = ((a ^ b) >> 31) & 1
    a_zero, b_zero = (a & _F32_ABS) == 0, (b & _F32_ABS) == 0
    a_inf, b_inf = (a & _F32_ABS) == _F32_EXP, (b & _F32_ABS) == _F32_EXP
    nan = N.f32_is_nan(a) | N.f32_is_nan(b) | (a_zero & b_zero) | (a_inf & b_inf)
    inf = (a_inf | b_zero) & ~nan
    zero = (a_zero | b_inf) & ~nan & ~inf
    sa, xa = _norm(jnp.where(a_zero | a_inf, np.uint32(0x3F800000), a))
    sb, xb = _norm(jnp.where(b_zero | b_inf, np.uint32(0x3F800000), b))
    q, sticky = _long_div(sa, sb)  # q in [2**25, 2**27): value = q * 2**(xa - xb - 26)
    q2 = (q << 1) | sticky.astype(U32)  # sticky below the last quotient bit: q2 * 2**(xa-xb-27)
    msb = jnp.where(q >= np.uint32(1 << 26), 27, 26)
    msb_exp = xa - xb + (msb - 27)
    r = _assemble(sign, q2, xa - xb - 27, msb_exp, fmt)
    r = jnp.where(zero, sign << np.uint32(fmt.nbits - 1), r)
    r = jnp.where(inf, (sign << np.uint32(fmt.nbits - 1)) | fmt.exp, r)
    r = jnp.where(nan, U32(fmt.qnan), r)
    return EW.finish_float(r, fmt, dtype, profile, ctrl)


# ---------------------------------------------------------------------------------------------
# Soft square root (float32; correctly rounded, subnormal inputs)


def _isqrt52(hi, lo):
    """floor(sqrt(M)) and whether a remainder is left, for M = hi:lo < 2**52 (26 result bits):
    the digit-by-digit method, two radicand bits per step; the remainder stays below 2**28."""
    root = jnp.zeros_like(lo)
    rem = jnp.zeros_like(lo)
    for p in range(50, -2, -2):  # the 2-bit chunk at bits p+1..p (p even: never split across limbs)
        chunk = (hi >> np.uint32(p - 32)) & 3 if p >= 32 else (lo >> np.uint32(p)) & 3
        rem = (rem << 2) | chunk
        trial = (root << 2) | 1
        ge = rem >= trial
        rem = jnp.where(ge, rem - trial, rem)
        root = (root << 1) | ge.astype(U32)
    return root, rem != 0


def _f32_sqrt(x, dtype, profile, ctrl):
    fmt = N.F32
    x = _flush_in(x.astype(U32), fmt, profile)
    nan = N.f32_is_nan(x) | (((x & _F32_SIGN) != 0) & ((x & _F32_ABS) != 0))
    special = ((x & _F32_ABS) == 0) | (x == _F32_EXP)  # +-0 and +inf are their own roots
    sig, e = _norm(jnp.where(special | nan, np.uint32(0x3F800000), x))
    # value = sig * 2**(e - 23) = (sig << s) * 2**(e - 23 - s) with e - 23 - s even, s in {27, 28}
    s = jnp.where(((e - 23 - 27) & 1) == 0, 27, 28).astype(U32)
    hi = sig >> (np.uint32(32) - s)
    lo = sig << s
    k = (e - 23 - s.astype(I32)) // 2
    root, sticky = _isqrt52(hi, lo)  # root in [2**25, 2**26)
    r2 = (root << 1) | sticky.astype(U32)  # value = r2 * 2**(k - 1), MSB at bit 26
    r = _assemble(jnp.zeros_like(r2), r2, k - 1, k - 1 + 26, fmt)
    r = jnp.where(special, x, r)
    r = jnp.where(nan, U32(fmt.qnan), r)
    return EW.finish_float(r, fmt, dtype, profile, ctrl)


# ---------------------------------------------------------------------------------------------
# 16-bit tables (Exp, Ln, Sqrt, Rsqrt, Reciprocal)

_MAN_BITS = {"half": 10, "bfloat16": 7}
_EXP_BITS = {"half": 5, "bfloat16": 8}


def _round_f64(v, man_bits, exp_bits):
    """float64 array -> bit patterns of the (1, exp_bits, man_bits) format, rounded once to
    nearest even in integer arithmetic (subnormals, overflow to inf, NaN -> canonical quiet NaN)."""
    v = np.asarray(v, np.float64)
    u = v.view(np.uint64)
    sign = ((u >> np.uint64(63)) & np.uint64(1)).astype(np.uint64)
    e64 = ((u >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    f64 = u & np.uint64((1 << 52) - 1)
    bias = (1 << (exp_bits - 1)) - 1
    emin = 1 - bias
    width = 1 + exp_bits + man_bits
    # float64 value = sig * 2**(E - 52), sig with the hidden bit (float64 subnormals -> 0 below)
    sig = np.where(e64 == 0, f64, f64 | np.uint64(1 << 52))
    E = np.where(e64 == 0, -1022, e64 - 1023)
    lsb = np.maximum(E, emin) - man_bits  # exponent of the kept LSB
    d = np.clip(lsb - (E - 52), 0, 63).astype(np.uint64)
    q = sig >> d
    rem = sig - (q << d)
    half = np.where(d > 0, np.uint64(1) << (d - np.uint64(1)), np.uint64(0))
    up = (d > 0) & ((rem > half) | ((rem == half) & ((q & np.uint64(1)) == 1)))
    q = q + up.astype(np.uint64)
    big = (lsb - (E - 52)) > 63
    q = np.where(big, np.uint64(0), q)
    carry = q >= np.uint64(1 << (man_bits + 1))
    q = np.where(carry, q >> np.uint64(1), q)
    lsb = lsb + carry
    normal = q >= np.uint64(1 << man_bits)
    biased = (lsb + man_bits + bias).astype(np.int64)
    man_mask = np.uint64((1 << man_bits) - 1)
    normal_bits = (np.maximum(biased, 0).astype(np.uint64) << np.uint64(man_bits)) | (q & man_mask)
    inf_bits = np.uint64(((1 << exp_bits) - 1) << man_bits)
    mag = np.where(normal, normal_bits, q)
    mag = np.where(normal & (biased >= (1 << exp_bits) - 1), inf_bits, mag)
    mag = np.where(np.isinf(v), inf_bits, mag)
    mag = np.where(v == 0, np.uint64(0), mag)
    out = (sign << np.uint64(width - 1)) | mag
    out = np.where(np.isnan(v), inf_bits | np.uint64(1 << (man_bits - 1)), out)
    return out.astype(np.uint32)


def _decode16(name):
    """Every 16-bit pattern of ``name`` as an exact float64."""
    b = np.arange(1 << 16, dtype=np.uint32)
    if name == "bfloat16":
        with np.errstate(invalid="ignore"):  # NaN patterns: NaN in, NaN out
            return (b << np.uint32(16)).view(np.float32).astype(np.float64)
    return b.astype(np.uint16).view(np.float16).astype(np.float64)


def _f64_function(api, v):
    with np.errstate(all="ignore"):
        if api == "Exp":
            return np.exp(v)
        if api == "Ln":
            # IEEE log: log(-0) = -inf like log(+0); NumPy agrees, NaN for negatives
            return np.log(v)
        if api == "Sqrt":
            return np.sqrt(v)  # sqrt(-0) = -0
        if api == "Rsqrt":
            r = 1.0 / np.sqrt(v)  # 1/sqrt rounds twice in float64: see _table
            return r
        if api == "Reciprocal":
            return 1.0 / v
    raise AssertionError(api)


@functools.cache
def _table(api, name):
    v = _decode16(name)
    if api == "Rsqrt":
        # 1/sqrt(v) in float64 is two roundings (sqrt, then divide): still within 2 ulps of
        # float64, far below a 16-bit half-ulp except within 2**-51 of a midpoint (checked by the
        # exhaustive tests); special values follow IEEE: rsqrt(+-0) = +-inf
        r = _f64_function(api, v)
    else:
        r = _f64_function(api, v)
    return _round_f64(r, _MAN_BITS[name], _EXP_BITS[name])


def _table_unary(api, x, dtype, profile, ctrl):
    fmt = _fmt(dtype)
    x = _flush_in(x, fmt, profile)
    t = jnp.asarray(_table(api, dtype.name))
    r = t[(x & np.uint32(0xFFFF)).astype(I32)]
    return EW.finish_float(r, fmt, dtype, profile, ctrl)


# ---------------------------------------------------------------------------------------------
# Public element functions


def add(x, y, dtype, profile, ctrl):
    """``Add``: ``x + y`` (基础算术/Add.md)."""
    if dtype.kind == "complex":
        return EW.complex_op("add", x, y if dtype.name == "complex32" else _split64(y), dtype, profile, ctrl)
    if dtype.is_float:
        return EW.float_op("add", x, y, dtype, profile, ctrl)
    return _int_binary("add", x, y, dtype, profile, ctrl)


def sub(x, y, dtype, profile, ctrl):
    """``Sub``: ``x - y`` = ``x + (-y)`` for floats (IEEE 754), exact integer difference for ints."""
    if dtype.kind == "complex":
        flip = np.uint32(0x80008000) if dtype.name == "complex32" else np.uint32(0x80000000)
        return add(x, y ^ flip, dtype, profile, ctrl)
    if dtype.is_float:
        return EW.float_op("add", x, y ^ _fmt(dtype).sign, dtype, profile, ctrl)
    return _int_binary("sub", x, y, dtype, profile, ctrl)


def mul(x, y, dtype, profile, ctrl):
    """``Mul``: ``x * y`` rounded once."""
    if dtype.kind == "complex":
        return EW.complex_op("mul", x, y if dtype.name == "complex32" else _split64(y), dtype, profile, ctrl)
    if dtype.is_float:
        return EW.float_op("mul", x, y, dtype, profile, ctrl)
    return _int_binary("mul", x, y, dtype, profile, ctrl)


def max_(x, y, dtype, profile, ctrl):
    """``Max``: NaN propagates, -0 < +0."""
    if dtype.is_float:
        return EW.float_op("max", x, y, dtype, profile, ctrl)
    return _int_binary("max", x, y, dtype, profile, ctrl)


def min_(x, y, dtype, profile, ctrl):
    """``Min``: NaN propagates, -0 < +0."""
    if dtype.is_float:
        return EW.float_op("min", x, y, dtype, profile, ctrl)
    return _int_binary("min", x, y, dtype, profile, ctrl)


def _int_div(x, y, dtype, profile, ctrl):
    """Integer ``Div`` (950 int16/uint16/int32/uint32): the quotient truncated toward zero (C++ ``/``),
    the one overflow (MIN / -1) wrapping or saturating as every integer op; ``x / 0`` per
    ``apis.Div.int_div_by_zero`` (CHOICE: the page gives no rule)."""
    bits, signed = dtype.bits, dtype.is_signed_int
    mask = _int_mask(bits)
    choice = profile.api("Div").int_div_by_zero
    if signed:
        xv, yv = _to_i32(x, bits, True).astype(I32), _to_i32(y, bits, True).astype(I32)
        xneg, yneg = xv < 0, yv < 0
        ax = jnp.where(xneg, -xv, xv).astype(U32)  # -MIN wraps to MIN: 2**31 as uint32
        ay = jnp.where(yneg, -yv, yv).astype(U32)
    else:
        ax, ay = x.astype(U32) & mask, y.astype(U32) & mask
    zero = ay == 0
    q = lax.div(ax, jnp.where(zero, np.uint32(1), ay))  # magnitudes: truncation toward zero
    if signed:
        hi = np.uint32((1 << (bits - 1)) - 1)
        neg = xneg != yneg
        r = jnp.where(neg, ~q + np.uint32(1), q) & mask
        r = jnp.where(EW._int_saturating(profile, ctrl) & ~neg & (q > hi), hi, r)
        sat_dz = jnp.where(xneg, np.uint32(1 << (bits - 1)), hi)
    else:
        r = q
        sat_dz = jnp.full(q.shape, mask)
    dz = {"all_ones": jnp.full(q.shape, mask), "zero": jnp.zeros(q.shape, U32), "saturate": sat_dz}[choice]
    return jnp.where(zero, dz, r)


def div(x, y, dtype, profile, ctrl):
    """``Div``: per ``apis.Div.numerics`` (``correctly_rounded``: soft long division); integers
    truncate toward zero (``_int_div``)."""
    _numerics_choice("Div", profile)
    if dtype.kind in ("int", "uint") and dtype.itemsize <= 4:
        return _int_div(x, y, dtype, profile, ctrl)
    if not dtype.is_float or dtype.kind == "complex":
        raise NotModelledError(f"Div: {dtype.name} has no fast-path element function")
    return _float_div(x, y, dtype, profile, ctrl)


def and_(x, y, dtype, profile, ctrl):
    """``And``: bit by bit on the stored patterns."""
    return x & y


def or_(x, y, dtype, profile, ctrl):
    """``Or``: bit by bit on the stored patterns."""
    return x | y


def not_(x, dtype, profile, ctrl):
    """``Not``: every bit of the stored pattern complemented (floats included, no float rule)."""
    if _wide(dtype) or dtype.bits == 32:
        return ~x.astype(U32)
    return ~x.astype(U32) & _int_mask(dtype.bits)


def abs_(x, dtype, profile, ctrl):
    """``Abs``: floats clear the sign (NaN canonical, subnormals per profile); integers |x| with
    |MIN| wrapping to MIN or saturating to MAX."""
    if dtype.is_float:
        fmt = _fmt(dtype)
        return EW.finish_float(_flush_in(x, fmt, profile) & fmt.abs, fmt, dtype, profile, ctrl)
    neg = neg_(x, dtype, profile, ctrl)
    if _wide(dtype):
        is_neg = (x[..., 1] >> 31) == 1
        return jnp.where(is_neg[..., None], neg, x)
    is_neg = _to_i32(x, dtype.bits, True) < 0 if dtype.is_signed_int else jnp.zeros(x.shape, bool)
    return jnp.where(is_neg, neg, x & _int_mask(dtype.bits))


def neg_(x, dtype, profile, ctrl):
    """``Neg``: floats flip the sign (NaN canonical); integers 0 - x (wrap or saturate)."""
    if dtype.is_float:
        fmt = _fmt(dtype)
        return EW.finish_float(_flush_in(x, fmt, profile) ^ fmt.sign, fmt, dtype, profile, ctrl)
    zero = jnp.zeros_like(x)
    return _int_binary("sub", zero, x, dtype, profile, ctrl)


def relu(x, dtype, profile, ctrl):
    """``Relu``: max(x, 0) with Max's NaN and signed-zero rules."""
    zero = jnp.zeros_like(x)
    return max_(x, zero, dtype, profile, ctrl)


_F32_TRANSCENDENTAL = ("Exp", "Ln", "Rsqrt")


def _f32_transcendental(api, x, dtype, profile, ctrl):
    """float32 Exp / Ln / Rsqrt: correctly rounded in integer arithmetic (``transcend``)."""
    x = _flush_in(x.astype(U32), N.F32, profile)
    if api == "Exp":
        r, _ = TR.exp_f32_bits(x)
    elif api == "Ln":
        r, _ = TR.ln_f32_bits(x)
    else:
        r = TR.rsqrt_f32_bits(x)
    return EW.finish_float(r, N.F32, dtype, profile, ctrl)


def exp_sub(x, y, dtype, profile, ctrl):
    """``ExpSub`` (复合计算/ExpSub(ISASI).md): ``e**(x - y)`` with the difference taken in float32
    (half sources widened exactly first) and rounded as float32 ``Sub`` does, then ``e**d`` rounded
    once to T (``apis.Exp.numerics``)."""
    # SPEC: "源操作数数据类型为half类型时 ... dst_i = e^{(cast_f16_to_f32(src0_i) - cast_f16_to_f32(src1_i))}"
    _numerics_choice("Exp", profile)
    if dtype.name not in ("half", "float32"):
        raise NotModelledError(f"ExpSub: {dtype.name} has no fast-path element function")
    fmt = _fmt(dtype)
    a = _to_f32_bits(_flush_in(x.astype(U32), fmt, profile), dtype)
    b = _to_f32_bits(_flush_in(y.astype(U32), fmt, profile), dtype)
    d = _flush_in(sub(a, b, _dt.float32, profile, ctrl), N.F32, profile)
    r, _ = TR.exp_f32_bits(d, fmt)
    return EW.finish_float(r, fmt, dtype, profile, ctrl)


def _unary_math(api):
    def f(x, dtype, profile, ctrl):
        _numerics_choice(api, profile)
        if dtype.name in _MAN_BITS:
            return _table_unary(api, x, dtype, profile, ctrl)
        if dtype.name == "float32" and api == "Reciprocal":
            one = jnp.full(x.shape, np.uint32(0x3F800000))
            return _float_div(one, x, dtype, profile, ctrl)
        if dtype.name == "float32" and api == "Sqrt":
            return _f32_sqrt(x, dtype, profile, ctrl)
        if dtype.name == "float32" and api in _F32_TRANSCENDENTAL:
            return _f32_transcendental(api, x, dtype, profile, ctrl)
        raise NotModelledError(f"{api}: {dtype.name} has no fast-path element function yet")

    f.__name__ = api.lower()
    f.__doc__ = f"``{api}`` per ``apis.{api}.numerics`` (16-bit T: exact tables)."
    return f


exp = _unary_math("Exp")
ln = _unary_math("Ln")
sqrt = _unary_math("Sqrt")
rsqrt = _unary_math("Rsqrt")
reciprocal = _unary_math("Reciprocal")

BINARY = {"Add": add, "Sub": sub, "Mul": mul, "Div": div, "Max": max_, "Min": min_, "And": and_, "Or": or_}
UNARY = {
    "Abs": abs_,
    "Relu": relu,
    "Neg": neg_,
    "Not": not_,
    "Exp": exp,
    "Ln": ln,
    "Sqrt": sqrt,
    "Rsqrt": rsqrt,
    "Reciprocal": reciprocal,
}


# ---------------------------------------------------------------------------------------------
# Tensor-scalar APIs: LeakyRelu and the flexible-scalar family


def leaky_relu(x, s, dtype, profile, ctrl):
    """``LeakyRelu``: ``x`` if ``x >= 0`` (-0 included) else ``s * x`` rounded once; ``s`` is the
    scalar's bit pattern (already T). NaN is not ``>= 0``: it goes through the product (canonical)."""
    fmt = _fmt(dtype)
    xf = _flush_in(x, fmt, profile)
    keep = (((xf & fmt.sign) == 0) & ~N.is_nan(xf, fmt)) | (xf == fmt.sign)
    prod = EW.float_op("mul", x, jnp.broadcast_to(jnp.asarray(s, U32), x.shape), dtype, profile, ctrl)
    return jnp.where(keep, EW.finish_float(xf, fmt, dtype, profile, ctrl), prod)


# Subs, Divs, Ands, Ors and Adds/Muls/Maxs/Mins（灵活标量位置）: the binary element function with the
# scalar's bits broadcast into the left (scalar first) or right (scalar after) operand.
FLEX_OPS = {
    "Subs": "Sub",
    "Divs": "Div",
    "Ands": "And",
    "Ors": "Or",
    "AddsFlexible": "Add",
    "MulsFlexible": "Mul",
    "MaxsFlexible": "Max",
    "MinsFlexible": "Min",
}


def flexible(api, x, s, scalar_first, dtype, profile, ctrl):
    """One flexible-scalar API on the vector lanes ``x`` with the scalar bits ``s``."""
    f = BINARY[FLEX_OPS[api]]
    s = jnp.broadcast_to(jnp.asarray(s, U32), x.shape)
    return f(s, x, dtype, profile, ctrl) if scalar_first else f(x, s, dtype, profile, ctrl)


# ---------------------------------------------------------------------------------------------
# Data fill


def duplicate(value_bits, shape):
    """``Duplicate``: every lane holds the value's bit pattern (a move: no float rule applies)."""
    return jnp.broadcast_to(jnp.asarray(value_bits, U32), shape)


def _f32_add_round_to_odd(a, b):
    """float32 ``a + b`` rounded to odd (bits in and out; ``b`` a whole number below 2**24,
    ``a`` any finite float32): a later rounding to nearest of this value at 22 bits or fewer is the
    exact sum rounded once. The sum rounded to nearest (``N.f32_add_bits``) is made odd, towards the
    exact sum, when it is inexact; the error's sign comes from TwoSum (the native adds are exact
    here: the operands are normal whenever ``a`` is not absorbed), or is ``a``'s own when ``a``
    vanished into ``b``."""
    s = N.f32_add_bits(a, b)
    fa, fb, fs = N._bits_to_f32(a), N._bits_to_f32(b), N._bits_to_f32(s)
    bb = fs - fa
    err = (fa - (fs - bb)) + (fb - bb)
    absorbed = (s == b) & ((a & 0x7FFFFFFF) != 0)
    err_neg = jnp.where(absorbed, (a >> 31) == 1, err < 0)
    inexact = absorbed | (err != 0)
    away = err_neg == ((s >> 31) == 1)  # the exact sum lies further from zero than s
    step = jnp.where(away, jnp.uint32(1), jnp.uint32(0xFFFFFFFF))  # +1 or -1 on the magnitude
    return jnp.where(inexact & ((s & 1) == 0), s + step, s)


def create_vec_index(first_bits, index, dtype, profile, ctrl):
    """``CreateVecIndex``: ``firstValue + index`` (``index`` = r*L + l, int32 < 2**24) rounded once to
    T for floats (float32: soft add; half/bfloat16: the float32 sum rounded to odd, then to T: a
    float32 sum rounded to nearest first is not innocuous here, the index has more bits than T, e.g.
    half -6.1e-05 + 2051 -> 2051.0 -> 2052 where the sum rounds to 2050), wrapped for integers."""
    index = jnp.asarray(index, I32)
    first = jnp.broadcast_to(jnp.asarray(first_bits, U32), index.shape)
    if dtype.is_float:
        f32_first = _to_f32_bits(first, dtype)
        f32_index = lax.bitcast_convert_type(index.astype(jnp.float32), U32)  # exact below 2**24
        if dtype.name == "float32":
            return N.f32_add_bits(f32_first, f32_index)
        s = _f32_add_round_to_odd(f32_first, f32_index)
        if dtype.name == "bfloat16":
            return N.f32_bits_to_bf16_bits(s).astype(U32)
        return N.f32_bits_to_half_bits_exact(s)
    if _wide(dtype):
        raise NotModelledError(f"CreateVecIndex: {dtype.name} has no fast-path element function yet")
    return (first + index.astype(U32)) & _int_mask(dtype.bits)


# ---------------------------------------------------------------------------------------------
# Cast: float <-> int and float <-> float by round mode (bit rules of precision_conversion.md)

_FMT_OF = {"half": (N.HALF, 15), "bfloat16": (N.BF16, 127), "float32": (N.F32, 127)}


def _decode_float(x, name):
    """(sign, significand with the hidden bit, exponent of its LSB, nan, inf, zero) of T bits."""
    fmt, bias = _FMT_OF[name]
    m = fmt.man_bits
    x = x.astype(U32)
    sign = (x >> np.uint32(fmt.nbits - 1)) & 1
    e = ((x & fmt.exp) >> np.uint32(m)).astype(I32)
    man = x & fmt.man
    sub = e == 0
    sig = jnp.where(sub, man, man | np.uint32(1 << m))
    exp2 = jnp.where(sub, 1 - bias - m, e - bias - m)
    return sign, sig, exp2, N.is_nan(x, fmt), N.is_inf(x, fmt), (x & fmt.abs) == 0


def _shr_mode(v, d, sign, mode):
    """``v >> d`` (uint32 v, int32 d >= 0) rounded by the RoundMode ``mode`` (a str)."""
    d = jnp.maximum(d, 0)
    big = d >= 32
    dc = jnp.minimum(d, 31).astype(U32)
    q = jnp.where(big, 0, v >> dc)
    hb = jnp.minimum(jnp.maximum(d - 1, 0), 31).astype(U32)
    half = jnp.where((d == 0) | (d > 32), 0, (v >> hb) & 1) == 1
    below = jnp.where(d <= 1, U32(0), jnp.where(d >= 33, U32(0xFFFFFFFF), (U32(1) << hb) - 1))
    sticky = (v & below) != 0
    inexact = half | sticky
    neg = sign == 1
    if mode in ("RINT", "NONE"):
        up = half & (sticky | ((q & 1) == 1))
    elif mode == "ROUND":
        up = half
    elif mode == "TRUNC":
        up = jnp.zeros_like(half)
    elif mode == "FLOOR":
        up = neg & inexact
    elif mode == "CEIL":
        up = ~neg & inexact
    elif mode == "ODD":
        up = inexact & ((q & 1) == 0)
    else:
        raise NotModelledError(f"Cast: round mode {mode} has no fast-path element function")
    return q + up.astype(U32)


def _cast_saturating(profile, ctrl):
    bit = profile.cast_saturation_ctrl_bit
    if bit < 0:
        return jnp.ones((), bool)
    return ~EW.ctrl_bit(ctrl, bit)  # SetSaturationFlag<CAST>: 0 = saturating


def _round_to_float(sign, sig, exp2, name, mode, sat):
    """sig * 2**exp2 (sig < 2**32, not zero) rounded by ``mode`` to float ``name``; T bits."""
    fmt, bias = _FMT_OF[name]
    m = fmt.man_bits
    emin = 1 - bias
    msb = 31 - N._clz32(sig)
    E = exp2 + msb
    lsb = jnp.maximum(E - m, emin - m)
    d = lsb - exp2
    # d may be negative (an exact value with fewer bits than T keeps): shift left then
    left = jnp.minimum(jnp.maximum(-d, 0), 31).astype(U32)
    q = jnp.where(d < 0, sig << left, _shr_mode(sig, d, sign, mode))
    carry = q >= np.uint32(1 << (m + 1))
    q = jnp.where(carry, q >> 1, q)
    lsb = lsb + carry.astype(I32)
    normal = q >= np.uint32(1 << m)
    biased = lsb + m + bias
    nb = (jnp.maximum(biased, 0).astype(U32) << np.uint32(m)) | (q & fmt.man)
    mag = jnp.where(normal, nb, q)
    over = normal & (biased >= (2 * bias + 1))
    mag = jnp.where(over, jnp.where(sat, fmt.max_finite, fmt.exp), mag)
    return (sign << np.uint32(fmt.nbits - 1)) | mag


def cast(x, src, dst, mode, profile, ctrl):
    """``Cast`` of one lane ``src -> dst`` by ``mode`` (a RoundMode name without ``CAST_``) for the
    float (half, bfloat16, float32) and 8/16/32-bit integer types; subnormals kept (MODEL.md)."""
    sat = _cast_saturating(profile, ctrl)
    x = x.astype(U32)
    if dst.is_float and dst.name not in _FMT_OF or src.is_float and src.name not in _FMT_OF:
        raise NotModelledError(f"Cast: {src.name} -> {dst.name} has no fast-path element function")
    if src.itemsize == 8 or dst.itemsize == 8 or src.kind == "complex" or dst.kind == "complex":
        raise NotModelledError(f"Cast: {src.name} -> {dst.name} has no fast-path element function")
    if src.is_float:
        sign, sig, exp2, nan, inf, zero = _decode_float(x, src.name)
    else:
        v = _to_i32(x, src.bits, src.is_signed_int)
        if src.is_signed_int:
            sign = (v < 0).astype(U32)
            sig = jnp.where(v < 0, (-(v.astype(I32))).astype(U32), v.astype(U32))
            sig = jnp.where(v.astype(I32) == np.int32(-(2**31)), np.uint32(2**31), sig)
        else:
            sign, sig = jnp.zeros_like(x), v.astype(U32)
        exp2 = jnp.zeros(x.shape, I32)
        nan = inf = jnp.zeros(x.shape, bool)
        zero = sig == 0
    if dst.is_float:
        fmt, _ = _FMT_OF[dst.name]
        if src.name == dst.name:  # rounding to an integral value
            intpart = _shr_mode(sig, -exp2, sign, mode)
            exact = exp2 >= 0
            r = _round_to_float(
                sign, jnp.where(intpart == 0, 1, intpart), jnp.zeros_like(exp2), dst.name, "RINT", sat
            )
            r = jnp.where(intpart == 0, sign << np.uint32(fmt.nbits - 1), r)
            r = jnp.where(exact, x, r)
        else:
            r = _round_to_float(sign, jnp.where(zero, 1, sig), exp2, dst.name, mode, sat)
            r = jnp.where(zero, sign << np.uint32(fmt.nbits - 1), r)
        r = jnp.where(inf, (sign << np.uint32(fmt.nbits - 1)) | fmt.exp, r)
        return jnp.where(nan, U32(fmt.qnan), r)
    # integer dst: round to an integer magnitude, then saturate or wrap
    bits, signed = dst.bits, dst.is_signed_int
    left = jnp.minimum(jnp.maximum(exp2, 0), 31).astype(U32)
    too_big = (exp2 > 0) & ((31 - N._clz32(jnp.where(sig == 0, 1, sig))) + exp2 >= 32)
    mag = jnp.where(exp2 >= 32, U32(0), jnp.where(exp2 >= 0, sig << left, _shr_mode(sig, -exp2, sign, mode)))
    neg = (sign == 1) & (mag != 0)
    hi_pos = np.uint32((1 << (bits - 1)) - 1 if signed else (1 << bits) - 1)
    hi_neg = np.uint32(1 << (bits - 1)) if signed else np.uint32(0)
    over = too_big | inf | jnp.where(neg, mag > hi_neg, mag > hi_pos)
    wrapped = jnp.where(neg, (~mag) + np.uint32(1), mag) & _int_mask(bits)
    below_zero = (sign == 1) & ~zero  # the direction of a saturation (-inf and huge negatives included)
    sat_val = jnp.where(below_zero, hi_neg, hi_pos)
    sat_bits = jnp.where(below_zero, (~sat_val + np.uint32(1)) & _int_mask(bits), sat_val)
    r = jnp.where(over & (sat | inf), sat_bits, wrapped)
    return jnp.where(nan, U32(0), r)
