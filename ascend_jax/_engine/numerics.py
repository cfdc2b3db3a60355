"""Hardware-exact element functions, independent of the backend's float environment.

XLA on CPU runs float32/bfloat16 arithmetic with denormals-are-zero and flush-to-zero set (GPUs
usually do not), so native float ops cannot be trusted near the subnormal range. Every float op
here is built so that the native float unit only ever sees normal operands and normal results, or
is done in integers:

* add: operands whose magnitudes are both below 2**-60 are scaled by 2**64 (exactly, in integer
  arithmetic) first; the sum of two multiples of 2**-149 that lands in the subnormal range is exact,
  so unscaling is exact too. If one operand is >= 2**-60 a subnormal partner is below half an ulp
  and cannot change the rounded sum.
* mul: a soft-float multiply on 24-bit integer significands (48-bit product in two uint32 limbs),
  rounded to nearest-even at the right position for normal and subnormal results alike.
* max/min: integer total-order keys (-0 < +0), NaN handled explicitly.
Half uses float32 arithmetic (every half is a normal float32 and the innocuous-double-rounding bound
24 >= 2*11+2 holds); bfloat16 uses the float32 routines then rounds to bfloat16 in integers.
Values travel as their bit patterns (uint16/uint32) so no op can flush them on the way.

Batch-wide gate: the soft paths are only needed where a lane is subnormal or a result lands near or
below the normal range, which is rare. ``f32_mul_bits`` / ``f32_add_bits`` compute the native result,
decide whether any lane needs the exact path and run it under ``lax.cond`` only then. Inside a vmap
the decision must be one value for the whole batch (a ``cond`` on a per-case predicate becomes a
select that runs both branches): code that vmaps with an axis name announces it with
``batch_axis(name)`` (``jit_kernel`` does), and the predicate is then reduced over that axis
(``lax.psum``), which leaves ``cond`` a real branch. Bits are the same either way.
"""

import contextlib
import contextvars

import jax.numpy as jnp
import numpy as np
from jax import lax

U32 = jnp.uint32
I32 = jnp.int32

# -- batch-wide decisions ----------------------------------------------------------------------

_BATCH_AXIS = contextvars.ContextVar("ascend_jax_batch_axis", default=None)


@contextlib.contextmanager
def batch_axis(name):
    """While tracing a function vmapped with ``axis_name=name``: ``batch_any`` reduces over it."""
    token = _BATCH_AXIS.set(name)
    try:
        yield
    finally:
        _BATCH_AXIS.reset(token)


def batch_any(pred):
    """bool scalar: any element of ``pred`` true, over the whole batch inside ``batch_axis``."""
    p = jnp.any(pred)
    name = _BATCH_AXIS.get()
    if name is not None:
        p = lax.psum(p.astype(I32), name) > 0
    return p


_NEAR_SUBNORMAL = np.uint32(0x01000000)  # magnitudes below 2**-125: the native unit may flush


# -- float32 bit helpers ------------------------------------------------------------------------

SIGN32 = np.uint32(0x80000000)
ABS32 = np.uint32(0x7FFFFFFF)
EXP32 = np.uint32(0x7F800000)
MAN32 = np.uint32(0x007FFFFF)
QNAN32 = np.uint32(0x7FC00000)


def _u32(x):
    return jnp.asarray(x, U32)


def f32_is_nan(b):
    return (b & ABS32) > EXP32


def f32_is_subnormal(b):
    return ((b & EXP32) == 0) & ((b & MAN32) != 0)


def f32_flush(b):
    """Subnormal -> zero of the same sign (bits in, bits out)."""
    return jnp.where(f32_is_subnormal(b), b & SIGN32, b)


def _bits_to_f32(b):
    return lax.bitcast_convert_type(_u32(b), jnp.float32)


def _f32_to_bits(x):
    return lax.bitcast_convert_type(x, U32)


# -- float32 add --------------------------------------------------------------------------------

_TINY_ADD = np.uint32(0x21800000)  # bits of 2**-60


def _scale_up_64(b):
    """x * 2**64 exactly, for |x| < 2**-60 (normal or subnormal or zero); bits in, float32 out."""
    sign = b & SIGN32
    mag = b & ABS32
    normal = _u32(mag + (64 << 23)) | sign
    # subnormal: value = m * 2**-149 = float(m) * 2**-85 (both factors and the product normal)
    m = (mag & MAN32).astype(I32).astype(jnp.float32) * jnp.float32(2.0**-85)
    sub = _f32_to_bits(m) | sign
    out = jnp.where((mag & EXP32) == 0, jnp.where(mag == 0, sign, sub), normal)
    return _bits_to_f32(out)


def _scale_down_64(y):
    """Exact y * 2**-64 for a float32 y that is a multiple of 2**-85 (result may be subnormal)."""
    b = _f32_to_bits(y)
    sign = b & SIGN32
    mag = b & ABS32
    normal_out = (mag >= 0x20800000) & (mag < EXP32)  # |y| >= 2**-62 -> result >= 2**-126
    as_normal = _u32(mag - (64 << 23)) | sign
    # subnormal result: m = |y| * 2**85 is an integer < 2**23 (exact float ops on normals)
    m = (_bits_to_f32(mag) * jnp.float32(2.0**85)).astype(I32).astype(U32)
    as_sub = m | sign
    return jnp.where(normal_out | (mag >= EXP32), jnp.where(mag >= EXP32, b, as_normal), as_sub)


def zero_sum_sign(a, b, r, abs_mask):
    """``r`` (the bits of a + b), with the sum of two zeros as IEEE 754 6.3 has it under RNE: -0
    only when both are -0. XLA simplifies ``x + 0.0`` to ``x`` when the 0.0 is a compile-time
    constant (a kernel's ``Adds(dst, src, 0.0)``), which turns -0 + 0 into -0; the sign is decided
    here, in integers. Every float add of the engine ends with it."""
    return jnp.where(((a | b) & abs_mask) == 0, a & b, r)


def f32_add_bits(a, b):
    """Correctly rounded float32 a + b with subnormals preserved (IEEE 754, RNE); bits in and out."""
    a, b = _u32(a), _u32(b)
    both_tiny = ((a & ABS32) < _TINY_ADD) & ((b & ABS32) < _TINY_ADD)
    # native path: exact when at least one operand is >= 2**-60 (a subnormal operand read as 0 by
    # DAZ: the other operand is the exact rounded result; the big operand is never zero here)
    native = _f32_to_bits(_bits_to_f32(a) + _bits_to_f32(b))
    # ... and when both are tiny but normal (or zero) with a result clear of the subnormal range
    both_zero = ((a & ABS32) == 0) & ((b & ABS32) == 0)
    native = zero_sum_sign(a, b, native, ABS32)
    risky = f32_is_subnormal(a) | f32_is_subnormal(b) | ((native & ABS32) < _NEAR_SUBNORMAL)
    need = both_tiny & ~both_zero & risky

    def exact(a, b, native):
        scaled = _scale_down_64(
            _scale_up_64(jnp.where(both_tiny, a, 0)) + _scale_up_64(jnp.where(both_tiny, b, 0))
        )
        return jnp.where(both_tiny, scaled, native)

    return lax.cond(batch_any(need), exact, lambda a, b, native: native, a, b, native)


# -- exact 32x32 -> 64 unsigned multiply in uint32 limbs ------------------------------------------


def mul_u32_wide(a, b):
    """Full 64-bit product of two uint32 arrays as (hi, lo) uint32."""
    a, b = _u32(a), _u32(b)
    a0, a1 = a & 0xFFFF, a >> 16
    b0, b1 = b & 0xFFFF, b >> 16
    p00 = a0 * b0
    p01 = a0 * b1
    p10 = a1 * b0
    p11 = a1 * b1
    mid = (p00 >> 16) + (p01 & 0xFFFF) + (p10 & 0xFFFF)
    lo = (p00 & 0xFFFF) | (mid << 16)
    hi = p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16)
    return hi, lo


def _clz32(x):
    return lax.clz(_u32(x)).astype(I32)


def _shr64_rne(hi, lo, d):
    """Round the 64-bit value (hi, lo) >> d to nearest even; d in [1, 63] (int32). Returns uint32
    (the caller guarantees the rounded value fits in 32 bits)."""
    d = jnp.clip(d, 1, 63).astype(U32)
    # q = (hi:lo) >> d, computed as uint32 (fits by contract)
    q_small = jnp.where(d < 32, (lo >> jnp.minimum(d, 31)) | (hi << jnp.where(d < 32, 32 - d, 0) % 32), 0)
    q_small = jnp.where(d == 0, lo, q_small)
    q_big = jnp.where(d >= 32, hi >> jnp.where(d >= 32, d - 32, 0), 0)
    q = jnp.where(d < 32, q_small, q_big)
    # the bit just below the kept part (half) and the sticky bits under it
    hb = d - 1  # position of the half bit, 0..62
    half_bit = jnp.where(
        hb < 32, (lo >> jnp.minimum(hb, 31)) & 1, (hi >> jnp.where(hb >= 32, hb - 32, 0)) & 1
    )
    # sticky: any bit below hb
    lo_mask = jnp.where(hb >= 32, _u32(np.uint32(0xFFFFFFFF)), (_u32(1) << jnp.minimum(hb, 31)) - 1)
    hi_mask = jnp.where(hb > 32, (_u32(1) << jnp.where(hb > 32, hb - 32, 0)) - 1, _u32(0))
    sticky = ((lo & lo_mask) != 0) | ((hi & hi_mask) != 0)
    up = (half_bit == 1) & (sticky | ((q & 1) == 1))
    return q + up.astype(U32)


def f32_mul_bits(a, b):
    """Correctly rounded float32 a * b with subnormals preserved (RNE); bits in and out.

    NaN results are returned as the default quiet NaN (callers canonicalise anyway). The native
    product is exact unless an operand is subnormal or the result is below 2**-125 (the native unit
    may flush it); only then (for any lane of the batch) does the soft-float run.
    """
    a, b = jnp.broadcast_arrays(_u32(a), _u32(b))
    native = _f32_to_bits(_bits_to_f32(a) * _bits_to_f32(b))
    native = jnp.where(f32_is_nan(native), _u32(QNAN32), native)
    zero_op = ((a & ABS32) == 0) | ((b & ABS32) == 0)
    tiny = ((native & ABS32) < _NEAR_SUBNORMAL) & ~zero_op
    need = f32_is_subnormal(a) | f32_is_subnormal(b) | tiny
    return lax.cond(batch_any(need), _f32_mul_soft, lambda a, b: native, a, b)


def _f32_mul_soft(a, b):
    """The soft-float multiply of ``f32_mul_bits`` (every lane, any operands)."""
    sign = (a ^ b) & SIGN32
    ea = ((a >> 23) & 0xFF).astype(I32)
    eb = ((b >> 23) & 0xFF).astype(I32)
    ma = a & MAN32
    mb = b & MAN32
    a_zero = (a & ABS32) == 0
    b_zero = (b & ABS32) == 0
    a_inf = (a & ABS32) == EXP32
    b_inf = (b & ABS32) == EXP32
    nan = f32_is_nan(a) | f32_is_nan(b) | (a_inf & b_zero) | (b_inf & a_zero)
    inf = (a_inf | b_inf) & ~nan
    zero = (a_zero | b_zero) & ~nan & ~inf

    # normalised 24-bit significands and unbiased exponents of their MSB (value = sig * 2**(e-23))
    def norm(e, m):
        sub = e == 0
        sh = jnp.where(sub, _clz32(m) - 8, 0)  # bring the top set bit to position 23
        sig = jnp.where(sub, m << sh.astype(U32), m | 0x800000)
        ex = jnp.where(sub, -126 - sh, e - 127)
        return sig, ex

    sa, xa = norm(ea, jnp.where(a_zero, 1, ma))
    sb, xb = norm(eb, jnp.where(b_zero, 1, mb))
    hi, lo = mul_u32_wide(sa, sb)  # in [2**46, 2**48)
    top = jnp.where((hi >> 15) & 1 == 1, 47, 46)  # MSB position of the product
    # value = P * 2**(xa + xb - 46); the MSB sits at exponent E = xa + xb + (top - 46)
    E = xa + xb + (top - 46)
    # keep 24 bits for a normal result; for a subnormal result the LSB must land on 2**-149
    keep_lsb_exp = jnp.maximum(E - 23, -149)  # exponent of the result's LSB
    d = keep_lsb_exp - (xa + xb - 46)  # bits to drop, >= 23
    big_d = d > 63
    q = _shr64_rne(hi, lo, jnp.minimum(d, 63))
    q = jnp.where(big_d, 0, q)
    # assemble: for the normal case q is in [2**23, 2**24] (2**24 after rounding up)
    normal = E >= -126
    carry = q >= 0x1000000
    q_n = jnp.where(carry, q >> 1, q)
    E_n = E + carry.astype(I32)
    normal_bits = ((E_n + 127).astype(U32) << 23) | (q_n & MAN32)
    overflow = normal & (E_n > 127)
    sub_bits = q  # q <= 2**23; q == 2**23 is exactly the smallest normal's encoding
    mag = jnp.where(normal, normal_bits, sub_bits)
    mag = jnp.where(overflow, EXP32, mag)
    out = sign | mag
    out = jnp.where(zero, sign, out)
    out = jnp.where(inf, sign | EXP32, out)
    return jnp.where(nan, _u32(QNAN32), out)


# -- ordering ------------------------------------------------------------------------------------


def order_key(bits, nbits):
    """Integer key with the float total order of non-NaN values (-0 < +0), as int32."""
    b = _u32(bits)
    sign_bit = np.uint32(1 << (nbits - 1))
    mag = (b & (sign_bit - np.uint32(1))).astype(I32)
    neg = (b & sign_bit) != 0
    return jnp.where(neg, -mag - 1, mag)


# -- generic float formats -----------------------------------------------------------------------


class Fmt:
    def __init__(self, nbits, man_bits, qnan, max_finite):
        u = np.uint32
        self.nbits, self.man_bits = nbits, man_bits
        self.qnan, self.max_finite = u(qnan), u(max_finite)
        sign = 1 << (nbits - 1)
        self.sign = u(sign)
        self.abs = u(sign - 1)
        self.exp = u((sign - 1) & ~((1 << man_bits) - 1))
        self.man = u((1 << man_bits) - 1)


HALF = Fmt(16, 10, 0x7E00, 0x7BFF)
BF16 = Fmt(16, 7, 0x7FC0, 0x7F7F)
F32 = Fmt(32, 23, 0x7FC00000, 0x7F7FFFFF)


def is_nan(bits, fmt):
    return (bits & fmt.abs) > fmt.exp


def is_inf(bits, fmt):
    return (bits & fmt.abs) == fmt.exp


def flush_subnormal(bits, fmt):
    sub = ((bits & fmt.exp) == 0) & ((bits & fmt.man) != 0)
    return jnp.where(sub, bits & fmt.sign, bits)


def f32_bits_to_bf16_bits(b):
    """float32 bits -> bfloat16 bits, round to nearest even (NaN -> quiet NaN)."""
    b = _u32(b)
    lsb = (b >> 16) & 1
    r = (b + 0x7FFF + lsb) >> 16
    return jnp.where(f32_is_nan(b), _u32(BF16.qnan), r).astype(jnp.uint16)


def bf16_bits_to_f32_bits(h):
    return _u32(h) << 16


def half_bits_to_f32(h):
    return lax.bitcast_convert_type(h.astype(jnp.uint16), jnp.float16).astype(jnp.float32)


def f32_to_half_bits(x):
    return lax.bitcast_convert_type(x.astype(jnp.float16), jnp.uint16)


def f32_bits_to_half_bits_exact(b):
    """float32 bits -> half bits, round to nearest even, in integer arithmetic.

    Needed where a half rounding is followed by more float32 arithmetic: XLA may drop an
    f32 -> f16 -> f32 convert pair (excess precision), which would skip the rounding."""
    b = _u32(b)
    sign = (b >> 16) & np.uint32(0x8000)
    mag = b & ABS32
    e = ((mag >> 23) & 0xFF).astype(I32) - 127
    sig = (mag & MAN32) | np.uint32(0x800000)
    # drop 13 bits for a normal half; more below 2**-14 (the half subnormal LSB is 2**-24)
    d = jnp.where(e >= -14, 13, 13 + (-14 - e))
    q = _shr64_rne(jnp.zeros_like(sig), sig, jnp.minimum(d, 40))
    q = jnp.where(d > 40, 0, q)
    normal = e >= -14
    carry = q >= 0x800
    q_n = jnp.where(carry, q >> 1, q)
    e_n = e + carry.astype(I32)
    normal_bits = ((e_n + 15).astype(U32) << 10) | (q_n & np.uint32(0x3FF))
    out = jnp.where(normal, normal_bits, q)
    out = jnp.where(normal & (e_n > 15), np.uint32(0x7C00), out)
    out = jnp.where((mag & EXP32) == 0, np.uint32(0), out)  # f32 zero/subnormal -> +-0 (below half range)
    out = jnp.where(mag == EXP32, np.uint32(0x7C00), out)
    out = jnp.where(mag > EXP32, np.uint32(0x7E00), out)
    return (sign | out).astype(U32)
