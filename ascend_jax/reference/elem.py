"""Element semantics of the element-wise families: one lane's result bits from its source bits.

``lane_function(api, dtype, profile, ctrl)`` returns ``f(*src_bits) -> dst_bits`` (Python ints
holding T's bit pattern). The lane loops of binary.py / unary.py call it, and the fast path's
element functions (``_engine/elem_math.py``) are tested against it directly.

Floats follow numerics.py: decode (subnormal inputs read as signed zero under flush_to_zero), the
exact (or innocuously double-rounded) result, ONE rounding, then flush / canonical NaN / CTRL
saturation (``finish_float``). Functions whose hardware results are not documented (Div, Exp, Ln,
Sqrt, Rsqrt, Reciprocal) follow the profile's named choice ``apis.<Name>.numerics``; the only
choice today is ``"correctly_rounded"``: the exact value rounded once to T (computed here in 200+
bit decimal arithmetic or exact rationals, then ``round_to_bits``).
"""

import decimal
import math
from fractions import Fraction

from .. import dtypes as _dt
from ..errors import NotModelledError, ProfileError
from . import numerics as _num

_CTX = decimal.Context(prec=80, Emin=-(10**6), Emax=10**6)

BINARY_APIS = ("Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or")
UNARY_APIS = ("Abs", "Relu", "Neg", "Not", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal")
# the functions whose results follow apis.<Name>.numerics
CHOSEN_NUMERICS = ("Div", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal")
NUMERICS_CHOICES = ("correctly_rounded",)


def numerics_choice(api, profile):
    """The profile's named numerics choice for ``api`` (absent: "correctly_rounded")."""
    choice = profile.api(api).numerics
    if choice not in NUMERICS_CHOICES:
        raise ProfileError(f"{profile.name}: apis.{api}.numerics = {choice!r}; modelled: {NUMERICS_CHOICES}")
    return choice


# ---------------------------------------------------------------------------------------------
# Exact float functions on decoded values (Python float in, exact value out: float / Fraction)


def _dec(x):
    return decimal.Decimal(x)  # exact: every modelled float is a float64


def _frac(d):
    return Fraction(d)  # exact conversion of a Decimal


def f_div(a, b):
    # SPEC: "dst_i = src0_i / src1_i" (基础算术/Div.md); IEEE 754 special cases: x/±0 = ±inf
    # (x != 0), 0/0 = inf/inf = NaN, x/±inf = ±0; the sign is the XOR of the operand signs.
    if math.isnan(a) or math.isnan(b):
        return math.nan
    neg = (math.copysign(1.0, a) < 0) != (math.copysign(1.0, b) < 0)
    if math.isinf(a):
        return math.nan if math.isinf(b) else (-math.inf if neg else math.inf)
    if math.isinf(b):
        return -0.0 if neg else 0.0
    if b == 0.0:
        return math.nan if a == 0.0 else (-math.inf if neg else math.inf)
    if a == 0.0:
        return -0.0 if neg else 0.0
    return Fraction(a) / Fraction(b)  # exact quotient, rounded once by the caller


def f_exp(a):
    # SPEC: "dst_i = e^{src_i}" (基础算术/Exp.md); exp(-inf) = +0, exp(+inf) = +inf
    if math.isnan(a):
        return math.nan
    if a == math.inf:
        return math.inf
    if a == -math.inf or a < -1000.0:
        return 0.0  # far below every modelled format's smallest subnormal (rounds to +0)
    if a > 1000.0:
        return math.inf
    if a == 0.0:
        return 1  # exact
    return _frac(_CTX.exp(_dec(a)))


def f_ln(a):
    # SPEC: "dst_i = ln(src_i)" (基础算术/Ln.md); IEEE log: ln(±0) = -inf, ln(x<0) = NaN,
    # ln(+inf) = +inf, ln(1) = +0
    if math.isnan(a) or a < 0.0:
        return math.nan
    if a == 0.0:
        return -math.inf
    if a == math.inf:
        return math.inf
    if a == 1.0:
        return 0  # exact +0
    return _frac(_CTX.ln(_dec(a)))


def f_sqrt(a):
    # SPEC: "dst_i = sqrt(src_i)" (基础算术/Sqrt.md); IEEE: sqrt(-0) = -0, sqrt(x<0) = NaN
    if math.isnan(a) or a < 0.0:
        return math.nan
    if a == 0.0 or a == math.inf:
        return a
    return _frac(_CTX.sqrt(_dec(a)))  # 80 digits: an exact square root stays exact


def f_rsqrt(a):
    # SPEC: "dst_i = 1/sqrt(src_i)" (基础算术/Rsqrt.md); rsqrt(±0) = ±inf, rsqrt(+inf) = +0,
    # rsqrt(x<0) = NaN
    if math.isnan(a) or a < 0.0:
        return math.nan
    if a == 0.0:
        return math.copysign(math.inf, a)
    if a == math.inf:
        return 0.0
    return _frac(_CTX.divide(1, _CTX.sqrt(_dec(a))))


def f_reciprocal(a):
    # SPEC: "dst_i = 1/src_i" (基础算术/Reciprocal.md); 1/±0 = ±inf, 1/±inf = ±0
    return f_div(1.0, a)


def f_abs(a):
    # SPEC: "dst_i = |src_i|" (基础算术/Abs.md)
    return math.nan if math.isnan(a) else abs(a)


def f_neg(a):
    # SPEC: "dst_i = -src_i" (基础算术/Neg(ISASI).md)
    return math.nan if math.isnan(a) else -a


def f_relu(a):
    # SPEC: "dst_i = max(src_i, 0)" (基础算术/Relu.md); Maxs' NaN and signed-zero rules:
    # Relu(NaN) = NaN, Relu(-0) = +0
    return _num.f_max(a, 0.0)


def f_sub(a, b):
    # SPEC: "dst_i = src0_i - src1_i" (基础算术/Sub.md); a - b in float64 is the exact
    # difference rounded once to 53 bits, innocuous before the single rounding to T (as Adds)
    return a - b


_FLOAT_BINARY = {
    "Add": _num.f_add,
    "Sub": f_sub,
    "Mul": _num.f_mul,
    "Div": f_div,
    "Max": _num.f_max,
    "Min": _num.f_min,
}
_FLOAT_UNARY = {
    "Abs": f_abs,
    "Relu": f_relu,
    "Neg": f_neg,
    "Exp": f_exp,
    "Ln": f_ln,
    "Sqrt": f_sqrt,
    "Rsqrt": f_rsqrt,
    "Reciprocal": f_reciprocal,
}

# -- integers (exact Python ints, then wrap or saturate) ----------------------------------------

_INT_BINARY = {
    "Add": lambda a, b: a + b,
    "Sub": lambda a, b: a - b,
    "Mul": lambda a, b: a * b,
    "Max": max,
    "Min": min,
}
_INT_UNARY = {
    "Abs": abs,  # |INT_MIN| overflows: wraps to INT_MIN or saturates to INT_MAX
    "Relu": lambda a: max(a, 0),
    "Neg": lambda a: -a,
}


def _bitwise(api, d):
    width = d.bits
    full = (1 << width) - 1
    # SPEC: "dst_i = src0_i & src1_i" (逻辑计算/And.md), "src0_i | src1_i" (Or.md), "~src_i"
    #       (Not.md): bit operations on the stored patterns, whatever T is (Not on 950 lists
    #       half/float: the pattern is complemented, no float rule applies)
    return {
        "And": lambda a, b: a & b,
        "Or": lambda a, b: a | b,
        "Not": lambda a: ~a & full,
    }[api]


def lane_function(api, dtype, profile, ctrl):
    """``f(*src_bits) -> dst_bits`` for one lane of ``api`` on ``dtype``."""
    d = _dt.as_dtype(dtype)
    if api in ("And", "Or", "Not"):
        return _bitwise(api, d)
    if api in CHOSEN_NUMERICS:
        numerics_choice(api, profile)  # "correctly_rounded": the functions above, rounded once
    if d.kind == "complex":
        return _complex_function(api, d, profile, ctrl)
    if d.is_float:
        fmt = _num.float_format(d)
        saturate = _num.float_saturating(profile, d, ctrl)
        if api in _FLOAT_BINARY:
            op = _FLOAT_BINARY[api]

            def f2(x, y):
                a = _num.read_float_input(x, fmt, profile)
                b = _num.read_float_input(y, fmt, profile)
                return _num.finish_float(op(a, b), fmt, profile, saturate)

            return f2
        op = _FLOAT_UNARY[api]

        def f1(x):
            return _num.finish_float(op(_num.read_float_input(x, fmt, profile)), fmt, profile, saturate)

        return f1
    # integers
    if api == "Div" and d.bits <= 32:
        return _int_div(d, profile, ctrl)
    table = _INT_BINARY if api in BINARY_APIS else _INT_UNARY
    if api not in table:
        # Reciprocal on 950's integer types and 64-bit Div: the docs give no integer rule (rounding
        # direction, division by zero); not modelled
        raise NotModelledError(f"{api}: integer {d.name} is not modelled by the reference")
    op = table[api]
    saturate = _num.int_saturating(profile, ctrl)

    def fi(*bits):
        v = op(*(_num.bits_to_int(b, d) for b in bits))
        v = _num.saturate_int(v, d) if saturate else _num.wrap_int(v, d)
        return _num.int_to_bits(v, d)

    return fi


def _int_div(d, profile, ctrl):
    """Integer Div (950 int16/uint16/int32/uint32). The page gives no integer rule: CHOICE (docs/MODEL.md)
    C++ integer division (the quotient truncated toward zero), the overflow MIN / -1 wrapping or
    saturating as every integer op, and ``x / 0`` per ``apis.Div.int_div_by_zero``."""
    choice = profile.api("Div").int_div_by_zero
    saturate = _num.int_saturating(profile, ctrl)
    lo, hi = _num.int_range(d)

    def f(xb, yb):
        a, b = _num.bits_to_int(xb, d), _num.bits_to_int(yb, d)
        if b == 0:
            v = {"all_ones": -1 if d.is_signed_int else hi, "zero": 0, "saturate": lo if a < 0 else hi}[
                choice
            ]
            return _num.int_to_bits(v, d)
        q = abs(a) // abs(b)  # SPEC: "dst_i = src0_i / src1_i" -- C++ / on integers truncates toward zero
        if (a < 0) != (b < 0):
            q = -q
        v = _num.saturate_int(q, d) if saturate else _num.wrap_int(q, d)
        return _num.int_to_bits(v, d)

    return f


def _complex_function(api, d, profile, ctrl):
    """complex32 / complex64 (950 count forms of Add/Sub/Mul): real part at the lower address.
    Add/Sub: per part. Mul: (a+bi)(c+di) = (ac-bd) + (ad+bc)i, every product rounded to the part
    type first, then each sum rounded once (the CHOICE of Muls, MODEL.md)."""
    if api not in ("Add", "Sub", "Mul"):
        raise NotModelledError(f"{api}: {d.name} is not modelled by the reference")
    part = _dt.half if d.name == "complex32" else _dt.float32
    fmt = _num.float_format(part)
    w = 8 * part.itemsize
    mask = (1 << w) - 1
    saturate = _num.float_saturating(profile, part, ctrl)

    def rounded(x):
        return _num.decode(_num.round_to_bits(x, fmt), fmt)

    def f(x, y):
        a = _num.read_float_input(x & mask, fmt, profile)
        b = _num.read_float_input(x >> w, fmt, profile)
        c = _num.read_float_input(y & mask, fmt, profile)
        e = _num.read_float_input(y >> w, fmt, profile)
        if api == "Add":
            re, im = a + c, b + e
        elif api == "Sub":
            re, im = a - c, b - e
        else:
            re = rounded(a * c) - rounded(b * e)
            im = rounded(a * e) + rounded(b * c)
        return _num.finish_float(re, fmt, profile, saturate) | (
            _num.finish_float(im, fmt, profile, saturate) << w
        )

    return f
