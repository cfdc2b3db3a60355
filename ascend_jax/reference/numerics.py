"""Numerics of the reference model, written out bit by bit.

Floats are decoded from their bit pattern into an exact Python value, the operation is done in
Python (exactly, or in float64 where a second rounding is provably harmless), and the result is
rounded ONCE to the element type by ``round_to_bits`` below: a from-scratch round-to-nearest-even
on the exact rational value. No NumPy / ml_dtypes cast is used on the result path, so the oracle
does not inherit any conversion quirk of the libraries the fast path uses.

Why float64 intermediates are exact enough (MODEL.md "the exact result rounded once"):
* Muls: the product of two p-bit significands has at most 2p <= 48 bits, and its exponent lies
  well inside float64's normal range for every modelled type, so ``a * b`` in float64 is exact.
* Adds: ``a + b`` in float64 is the exact sum rounded to 53 bits; rounding that again to p bits
  equals rounding the exact sum once whenever 53 >= 2p + 2 (Figueroa, "When is double rounding
  innocuous?", 1995), true for half (p=11), bfloat16 (p=8) and float32 (p=24). When the result
  falls in T's subnormal range the float64 sum is exact (it is a multiple of T's smallest
  subnormal with at most p significant bits), so there is no second rounding at all.
* Maxs/Mins return one operand unchanged (no rounding).
* float64 T (not used by any profile today): Python's own ``+``/``*`` is the single rounding.
"""

import dataclasses
import functools
import math
from fractions import Fraction

import numpy as np

from .. import dtypes as _dt
from .._scalar import check_scalar
from ..errors import NotModelledError, UsageError

# ---------------------------------------------------------------------------------------------
# Binary floating-point formats


@dataclasses.dataclass(frozen=True)
class FloatFormat:
    name: str
    exp_bits: int
    man_bits: int  # stored fraction bits (precision p = man_bits + 1)

    @functools.cached_property
    def width(self):
        return 1 + self.exp_bits + self.man_bits

    @functools.cached_property
    def bias(self):
        return (1 << (self.exp_bits - 1)) - 1

    @functools.cached_property
    def emin(self):  # exponent of the smallest normal
        return 1 - self.bias

    @functools.cached_property
    def exp_all_ones(self):
        return (1 << self.exp_bits) - 1

    @functools.cached_property
    def sign_bit(self):
        return 1 << (self.width - 1)

    @functools.cached_property
    def inf_bits(self):
        return self.exp_all_ones << self.man_bits

    @functools.cached_property
    def max_bits(self):  # largest finite: exponent all-ones minus one, fraction all ones
        return ((self.exp_all_ones - 1) << self.man_bits) | ((1 << self.man_bits) - 1)

    @functools.cached_property
    def canonical_nan_bits(self):
        # SPEC (MODEL.md): default quiet NaN, sign clear: half 0x7E00, bfloat16 0x7FC0,
        # float32 0x7FC00000 = exponent all ones + top fraction bit.
        return self.inf_bits | (1 << (self.man_bits - 1))


FORMATS = {
    "half": FloatFormat("half", 5, 10),
    "bfloat16": FloatFormat("bfloat16", 8, 7),
    "float32": FloatFormat("float32", 8, 23),
    "float64": FloatFormat("float64", 11, 52),
}


def float_format(dtype) -> FloatFormat:
    d = _dt.as_dtype(dtype)
    if d.name not in FORMATS:
        raise NotModelledError(f"no float format for {d.name}")
    return FORMATS[d.name]


# -- classification on bit patterns -------------------------------------------------------------


def _fields(bits, fmt):
    sign = (bits >> (fmt.width - 1)) & 1
    exp = (bits >> fmt.man_bits) & fmt.exp_all_ones
    frac = bits & ((1 << fmt.man_bits) - 1)
    return sign, exp, frac


def is_nan_bits(bits, fmt):
    _, e, f = _fields(bits, fmt)
    return e == fmt.exp_all_ones and f != 0


def is_inf_bits(bits, fmt):
    _, e, f = _fields(bits, fmt)
    return e == fmt.exp_all_ones and f == 0


def is_subnormal_bits(bits, fmt):
    _, e, f = _fields(bits, fmt)
    return e == 0 and f != 0


def flush_subnormal_bits(bits, fmt):
    """A subnormal becomes the zero of the same sign; anything else is returned unchanged."""
    if is_subnormal_bits(bits, fmt):
        return bits & fmt.sign_bit
    return bits


# -- decode ------------------------------------------------------------------------------------


def decode(bits, fmt) -> float:
    """Bit pattern -> exact Python float (every modelled format is a subset of float64)."""
    sign, e, f = _fields(bits, fmt)
    if e == fmt.exp_all_ones:
        value = math.inf if f == 0 else math.nan
    elif e == 0:
        value = math.ldexp(f, fmt.emin - fmt.man_bits)
    else:
        value = math.ldexp(f | (1 << fmt.man_bits), e - fmt.bias - fmt.man_bits)
    return -value if sign else value


# -- round once --------------------------------------------------------------------------------


def _exact_ratio(x):
    """(sign, numerator, denominator) of a finite non-NaN int / float / Fraction, exactly."""
    if isinstance(x, float):
        sign = 1 if math.copysign(1.0, x) < 0 else 0
        n, d = abs(x).as_integer_ratio()
    else:
        q = Fraction(x)
        sign = 1 if q < 0 else 0
        n, d = abs(q).numerator, abs(q).denominator
    return sign, n, d


def round_to_bits(x, fmt) -> int:
    """Round the exact value of ``x`` (int, float or Fraction) to ``fmt`` with round-to-nearest,
    ties-to-even (overflow to infinity), and return the bit pattern. NaN -> canonical NaN."""
    if isinstance(x, float) and math.isnan(x):
        return fmt.canonical_nan_bits
    if isinstance(x, float) and math.isinf(x):
        return (fmt.sign_bit if x < 0 else 0) | fmt.inf_bits
    sign, n, d = _exact_ratio(x)
    sbit = fmt.sign_bit if sign else 0
    if n == 0:
        return sbit  # signed zero (a float -0.0 keeps its sign)
    # e = floor(log2(n/d))
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    # quantum (weight of the last kept bit): normal numbers keep p bits; below emin the
    # quantum is fixed at the smallest subnormal
    q = max(e, fmt.emin) - fmt.man_bits
    if q >= 0:
        num, den = n, d << q
    else:
        num, den = n << (-q), d
    sig, rem = divmod(num, den)
    # SPEC (MODEL.md "Numerics"): round-to-nearest-even
    if 2 * rem > den or (2 * rem == den and (sig & 1)):
        sig += 1
    if sig >= (1 << (fmt.man_bits + 1)):  # carried into the next binade (sig == 2**p exactly)
        sig >>= 1
        q += 1
    if sig >= (1 << fmt.man_bits):  # normal
        biased = q + fmt.man_bits + fmt.bias
        if biased >= fmt.exp_all_ones:
            return sbit | fmt.inf_bits  # overflow rounds to infinity under round-to-nearest
        return sbit | (biased << fmt.man_bits) | (sig - (1 << fmt.man_bits))
    return sbit | sig  # subnormal (or zero after underflow)


# ---------------------------------------------------------------------------------------------
# Result post-processing for floats


def float_saturating(profile, dtype, ctrl_value: int) -> bool:
    """True when the CTRL saturation bit puts ``dtype`` float results in saturation mode."""
    # SPEC: "CTRL[48] ... 1'b0：饱和模式，inf输出会被饱和为±MAX， NaN输出会被饱和为0；1'b1：非饱和模式"
    #       (special-registers/SetCtrlSpr(ISASI).md, table for A2); which bit, which polarity and
    #       which dtypes come from the profile (registers.float_saturation_*).
    d = _dt.as_dtype(dtype)
    bit = profile.float_saturation_ctrl_bit
    if bit < 0 or d.name not in profile.float_saturation_dtypes:
        return False
    return ((ctrl_value >> bit) & 1) == profile.float_saturation_when_bit_is


def finish_float(value, fmt, profile, saturate: bool) -> int:
    """Round the exact (or innocuously double-rounded) result once, then flush, canonicalise
    NaN and saturate, in the order MODEL.md gives."""
    bits = round_to_bits(value, fmt)  # NaN comes out canonical here
    if profile.float_subnormals == "flush_to_zero":
        # SPEC (MODEL.md): "the result is first rounded, then flushed" (zero of the same sign)
        bits = flush_subnormal_bits(bits, fmt)
    if is_nan_bits(bits, fmt):
        # SPEC (MODEL.md, numerics.nan_result == "canonical"): every NaN result is the default
        # quiet NaN with the sign bit clear
        assert profile.nan_result == "canonical"
        bits = fmt.canonical_nan_bits
    if saturate:
        # SPEC: "inf输出会被饱和为±MAX，NaN输出会被饱和为0" (SetCtrlSpr(ISASI).md, CTRL[48])
        if is_inf_bits(bits, fmt):
            bits = (bits & fmt.sign_bit) | fmt.max_bits
        elif is_nan_bits(bits, fmt):
            bits = 0  # +0
    return bits


def read_float_input(bits, fmt, profile) -> float:
    """Decode an operand; under flush_to_zero a subnormal input reads as zero of the same sign."""
    if profile.float_subnormals == "flush_to_zero":
        # SPEC (MODEL.md): "subnormal inputs are read as zero of the same sign"
        bits = flush_subnormal_bits(bits, fmt)
    return decode(bits, fmt)


# -- the four operations on decoded floats ------------------------------------------------------


def f_add(a: float, b: float) -> float:
    # SPEC: "dst_i = src_i + scalarValue" (基础算术/Adds.md). IEEE: +0 + -0 = +0, x + -x = +0,
    # inf + -inf = NaN; Python floats follow IEEE round-to-nearest-even.
    return a + b


def f_mul(a: float, b: float) -> float:
    # SPEC: "dst_i = src_i × scalarValue" (基础算术/Muls.md); exact in float64 (see module doc).
    return a * b


def f_max(a: float, b: float) -> float:
    # SPEC: "dst_i = max(src_i, scalarValue)" (基础算术/Maxs.md). MODEL.md: a NaN operand gives
    # NaN; -0 < +0; otherwise the larger value.
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0.0:
        return a if math.copysign(1.0, a) > 0 else b  # +0 if either is +0
    return a if a > b else b


def f_min(a: float, b: float) -> float:
    # SPEC: "dst_i = min(src_i, scalarValue)" (基础算术/Mins.md). MODEL.md: NaN propagates;
    # -0 < +0.
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0.0:
        return a if math.copysign(1.0, a) < 0 else b  # -0 if either is -0
    return a if a < b else b


# ---------------------------------------------------------------------------------------------
# Integers


def int_range(dtype):
    d = _dt.as_dtype(dtype)
    if d.is_signed_int:
        return -(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1
    return 0, (1 << d.bits) - 1


def int_saturating(profile, ctrl_value: int) -> bool:
    """MODEL.md: saturate when numerics.int_overflow == "saturate", or when the integer
    saturation CTRL bit has the saturating value."""
    # SPEC: "CTRL[53] 用于控制整数计算指令的饱和模式。1'b0：截断模式 ... 1'b1：饱和模式"
    #       (SetCtrlSpr(ISASI).md, 950 table); bit and polarity from the profile.
    if profile.int_overflow == "saturate":
        return True
    bit = profile.int_saturation_ctrl_bit
    if bit < 0:
        return False
    return ((ctrl_value >> bit) & 1) == profile.int_saturation_when_bit_is


def wrap_int(v: int, dtype) -> int:
    """Two's-complement wrap of an exact integer into ``dtype``."""
    lo, hi = int_range(dtype)
    span = hi - lo + 1
    return (v - lo) % span + lo


def saturate_int(v: int, dtype) -> int:
    lo, hi = int_range(dtype)
    return lo if v < lo else hi if v > hi else v


def int_to_bits(v: int, dtype) -> int:
    d = _dt.as_dtype(dtype)
    return v & ((1 << d.bits) - 1)


def bits_to_int(bits: int, dtype) -> int:
    d = _dt.as_dtype(dtype)
    if d.is_signed_int and bits >> (d.bits - 1):
        return bits - (1 << d.bits)
    return bits


def i_add(a, b):
    return a + b


def i_mul(a, b):
    return a * b


def i_max(a, b):
    return a if a > b else b


def i_min(a, b):
    return a if a < b else b


# ---------------------------------------------------------------------------------------------
# The scalar argument


def scalar_to_bits(api, scalar, dtype, profile, argument="scalarValue") -> int:
    """Convert the Python scalar to T's bit pattern (MODEL.md: "The scalar is converted to T
    first (round-to-nearest-even for floats; integers wrap into T)")."""
    # SPEC: "scalarValue ... 数据类型需要与目的操作数中的元素类型保持一致" (基础算术/Muls.md):
    #       the C++ argument is a const T&, so the conversion happens at the call site.
    d = _dt.as_dtype(dtype)
    if d.kind == "complex":
        # 内置数据类型.md: Complex<half> / Complex<float>, real part at the lower address; each part
        # is converted separately (round-to-nearest-even).
        if isinstance(scalar, (bool, np.bool_)) or not isinstance(scalar, (int, float, complex, np.number)):
            raise UsageError(api, argument, scalar, "a Python number (complex)", profile)
        part = _dt.half if d.name == "complex32" else _dt.float32
        fmt, w = float_format(part), 8 * part.itemsize
        c = complex(scalar)
        return round_to_bits(c.real, fmt) | (round_to_bits(c.imag, fmt) << w)
    # the one scalar rule (ascend_jax/_scalar.py): an integer T takes an integer in its range, a
    # floating T any value that does not overflow it; anything else is a UsageError
    scalar = check_scalar(api, scalar, d, profile, argument)
    if d.is_float:
        fmt = float_format(d)
        return round_to_bits(scalar, fmt)
    return int_to_bits(wrap_int(int(scalar), d), d)
