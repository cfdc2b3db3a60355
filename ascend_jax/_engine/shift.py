"""Shift element functions (ShiftLeft / ShiftRight, scalar and tensor shift amounts) (the tensor-shift
variants run on the two-source strided core). See docs/MODEL.md
"GatherMask and shifts".

Values travel as uint32 containers holding T's bit pattern in the low ``B = 8*sizeof(T)`` bits.
Every native shift here is by an amount in [0, 31] (explicitly clipped); amounts >= B are handled
with explicit selects, never by the backend's out-of-range shift rules.
"""

import jax.numpy as jnp
import numpy as np
from jax import lax

U32 = jnp.uint32
I32 = jnp.int32


def _mask(bits):
    return np.uint32((1 << bits) - 1) if bits < 32 else np.uint32(0xFFFFFFFF)


def sign_extend(x, bits):
    """uint32 holding a ``bits``-bit two's-complement pattern -> int32 value."""
    x = jnp.asarray(x, U32)
    if bits == 32:
        return lax.bitcast_convert_type(x, I32)
    sh = np.int32(32 - bits)
    return lax.shift_right_arithmetic(lax.bitcast_convert_type(x << np.uint32(32 - bits), I32), sh)


def shift_amount(n_bits, bits, signed):
    """(n, negative): the shift amount held in a ``bits``-bit pattern (uint32), read as a signed or
    unsigned integer, clipped to [0, bits + 1] (every amount > bits behaves alike), and whether it
    was negative."""
    B = bits
    n_bits = jnp.asarray(n_bits, U32) & _mask(B)
    if signed:
        v = sign_extend(n_bits, B)
        return jnp.clip(v, 0, B + 1), v < 0
    big = n_bits > np.uint32(B + 1)
    return jnp.where(big, np.int32(B + 1), n_bits.astype(I32)), jnp.zeros(n_bits.shape, bool)


def _shl(x, n):
    """x << n for n in [0, 31] (int32, clipped by the caller); uint32 in and out."""
    return x << jnp.clip(n, 0, 31).astype(U32)


def shift_left(x, n, dtype, keep_sign, overwide):
    """T-bits result of ``x << n``. ``n``: int32 in [0, B + 1] (B + 1 stands for any amount > B).

    Unsigned T, or signed T with ``keep_sign`` False: logical shift, 0 for n >= B.
    Signed T with ``keep_sign`` (SPEC: "算术左移 ... 次高位被丢弃"): the sign bit stays, bits
    B-2..0 shift left (the second-highest bit drops out): ``(x & SIGN) | ((x << n) & ~SIGN)``;
    n = B gives the sign bit alone. Amounts > B: ``overwide`` "zero" -> 0, "sign_fill" -> -1 for a
    negative signed x, else 0.
    """
    B = dtype.bits
    m = _mask(B)
    x = jnp.asarray(x, U32) & m
    n = jnp.asarray(n, I32)
    plain = jnp.where(n >= B, np.uint32(0), _shl(x, n) & m)
    if dtype.is_signed_int and keep_sign:
        sign = np.uint32(1 << (B - 1))
        r = (x & sign) | (plain & (m & ~sign))
    else:
        r = plain
    if overwide == "sign_fill" and dtype.is_signed_int:
        wide = jnp.where((x >> np.uint32(B - 1)) & 1 == 1, m, np.uint32(0))
    else:
        wide = np.uint32(0)
    return jnp.where(n > B, wide, r)


def shift_right(x, n, dtype, round_en):
    """T-bits result of ``x >> n``. ``n``: int32 in [0, B + 1]; ``round_en``: bool (array).

    Unsigned T: logical, 0 for n >= B. Signed T: arithmetic, 0 or -1 for n >= B. With
    ``round_en`` (signed T only; ignored for unsigned) and n >= 1, bit n-1 of x (the last bit
    shifted out; for n > B the sign bit) is added: round half up of x / 2**n. n = 0: x unchanged.
    """
    B = dtype.bits
    m = _mask(B)
    x = jnp.asarray(x, U32) & m
    n = jnp.asarray(n, I32)
    if not dtype.is_signed_int:
        return jnp.where(n >= B, np.uint32(0), x >> jnp.clip(n, 0, 31).astype(U32))
    xs = sign_extend(x, B)
    q = lax.shift_right_arithmetic(xs, jnp.clip(n, 0, B - 1))
    last = lax.shift_right_arithmetic(xs, jnp.clip(n - 1, 0, B - 1)) & 1
    q = q + jnp.where(jnp.asarray(round_en, bool) & (n >= 1), last, 0)
    return lax.bitcast_convert_type(q, U32) & m


# -- 64-bit T: (low, high) uint32 pairs [..., 2] ------------------------------------------------

_HI_SIGN = np.uint32(0x80000000)


def pair_amount(pair, signed):
    """(n, negative) for a 64-bit shift amount held as a (low, high) uint32 pair: n in [0, 65]
    (65 stands for any amount > 64), as ``shift_amount`` does for narrower T."""
    lo, hi = pair[..., 0].astype(U32), pair[..., 1].astype(U32)
    neg = ((hi & _HI_SIGN) != 0) if signed else jnp.zeros(lo.shape, bool)
    big = (hi != 0) | (lo > np.uint32(65))
    n = jnp.where(big, np.int32(65), jnp.minimum(lo, np.uint32(65)).astype(I32))
    return jnp.where(neg, np.int32(0), n), neg


def _u(x, k):
    """uint32 shift amount clipped to [0, 31] (no backend out-of-range shift rules)."""
    return jnp.clip(k, 0, 31).astype(U32)


def _shl64(lo, hi, k):
    """(lo, hi) << k for k in [0, 63] (int32)."""
    ks = k & 31
    carry = jnp.where(ks == 0, np.uint32(0), lo >> _u(lo, 32 - ks))
    small_lo, small_hi = lo << _u(lo, ks), (hi << _u(hi, ks)) | carry
    big = k >= 32
    return jnp.where(big, np.uint32(0), small_lo), jnp.where(big, lo << _u(lo, ks), small_hi)


def _shr64(lo, hi, k, arith):
    """(lo, hi) >> k for k in [0, 63]; ``arith``: the high word shifts in copies of the sign."""
    ks = k & 31
    his = lax.bitcast_convert_type(hi, I32)

    def hshift(amount):
        if arith:
            return lax.bitcast_convert_type(lax.shift_right_arithmetic(his, _u(hi, amount).astype(I32)), U32)
        return hi >> _u(hi, amount)

    carry = jnp.where(ks == 0, np.uint32(0), hi << _u(hi, 32 - ks))
    small_lo, small_hi = (lo >> _u(lo, ks)) | carry, hshift(ks)
    fill = hshift(jnp.full_like(k, 31)) if arith else jnp.zeros_like(hi)
    big = k >= 32
    return jnp.where(big, hshift(ks), small_lo), jnp.where(big, fill, small_hi)


def shift_left_pairs(x, n, dtype, keep_sign, overwide):
    """``shift_left`` for 64-bit T: x uint32[..., 2], n int32 in [0, 65]."""
    lo, hi = x[..., 0].astype(U32), x[..., 1].astype(U32)
    plo, phi = _shl64(lo, hi, jnp.clip(n, 0, 63))
    over = n >= 64
    plo, phi = jnp.where(over, np.uint32(0), plo), jnp.where(over, np.uint32(0), phi)
    if dtype.is_signed_int and keep_sign:
        phi = (hi & _HI_SIGN) | (phi & ~_HI_SIGN)
    if overwide == "sign_fill" and dtype.is_signed_int:
        w = jnp.where((hi & _HI_SIGN) != 0, np.uint32(0xFFFFFFFF), np.uint32(0))
    else:
        w = jnp.zeros_like(lo)
    wide = n > 64
    return jnp.stack([jnp.where(wide, w, plo), jnp.where(wide, w, phi)], axis=-1)


def shift_right_pairs(x, n, dtype, round_en):
    """``shift_right`` for 64-bit T: x uint32[..., 2], n int32 in [0, 65]."""
    lo, hi = x[..., 0].astype(U32), x[..., 1].astype(U32)
    if not dtype.is_signed_int:
        qlo, qhi = _shr64(lo, hi, jnp.clip(n, 0, 63), False)
        over = n >= 64
        return jnp.stack([jnp.where(over, np.uint32(0), qlo), jnp.where(over, np.uint32(0), qhi)], axis=-1)
    qlo, qhi = _shr64(lo, hi, jnp.clip(n, 0, 63), True)
    llo, _ = _shr64(lo, hi, jnp.clip(n - 1, 0, 63), True)
    add = jnp.where(jnp.asarray(round_en, bool) & (n >= 1), llo & 1, np.uint32(0))
    rlo = qlo + add
    rhi = qhi + (rlo < qlo).astype(U32)  # carry
    return jnp.stack([rlo, rhi], axis=-1)


def _api_choice(profile, api, key, default):
    return profile.api(api).get(key, default)


def elem_shift_left(x, s, dtype, profile, ctrl, *_):
    """run_unary element function: ``s`` = uint32[2] (shift bits as T, unused)."""
    del ctrl
    keep = _api_choice(profile, "ShiftLeft", "signed_left_shift", "keep_sign") == "keep_sign"
    if dtype.itemsize == 8:  # s[0] is the amount already clipped to [0, 65] (api/shift.py)
        return shift_left_pairs(x, s[0].astype(I32), dtype, keep, "zero")
    n, _ = shift_amount(s[0], dtype.bits, dtype.is_signed_int)
    return shift_left(x, n, dtype, keep, "zero")


def elem_shift_right(x, s, dtype, profile, ctrl, *_):
    """run_unary element function: ``s`` = uint32[2] (shift bits as T, roundEn flag)."""
    del ctrl
    if dtype.itemsize == 8:
        return shift_right_pairs(x, s[0].astype(I32), dtype, s[1] != 0)
    n, _ = shift_amount(s[0], dtype.bits, dtype.is_signed_int)
    return shift_right(x, n, dtype, s[1] != 0)


# -- tensor shift amounts (count form only): two-source element functions of run_strided -------


def _shift_by_tensor(x, amt, dtype, left, keep):
    """``x <</>> amt`` per lane; returns (bits, negative amount) -- the second marks lanes whose
    amount is invalid (SPEC: src1 "不支持设置为负数": a BAD_PARAM fault where active). U is a signed
    type of T's width."""
    if dtype.itemsize == 8:
        n, neg = pair_amount(amt, True)
        r = (
            shift_left_pairs(x, n, dtype, keep, "sign_fill")
            if left
            else shift_right_pairs(x, n, dtype, False)
        )
        return r, neg
    n, neg = shift_amount(amt, dtype.bits, True)
    r = shift_left(x, n, dtype, keep, "sign_fill") if left else shift_right(x, n, dtype, False)
    return r, neg


def elem_shift_left_tensor(x, amt, s, dtype, profile, ctrl, dyn):
    keep = _api_choice(profile, "ShiftLeft", "signed_left_shift", "keep_sign") == "keep_sign"
    return _shift_by_tensor(x, amt, dtype, True, keep)


def elem_shift_right_tensor(x, amt, s, dtype, profile, ctrl, dyn):
    return _shift_by_tensor(x, amt, dtype, False, False)
