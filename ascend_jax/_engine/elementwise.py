"""Element functions of the scalar-arithmetic family on bit patterns, per dtype, with the profile's
numeric choices (subnormal flush, canonical NaN, CTRL-driven saturation, integer wrap/saturate)."""

import jax.numpy as jnp
import numpy as np
from jax import lax

from . import numerics as N

U32 = jnp.uint32
I32 = jnp.int32


def ctrl_bit(ctrl, bit):
    """bool: CTRL[bit] of the state's CTRL words (bit < 0: False)."""
    if bit < 0:
        return jnp.zeros((), bool)
    return ((ctrl[..., bit // 32] >> np.uint32(bit % 32)) & 1) == 1


def _fmt(dtype):
    return {"half": N.HALF, "bfloat16": N.BF16, "float32": N.F32}[dtype.name]


def float_op(op, x, s, dtype, profile, ctrl):
    """x: uint32 bits [R, L] (low bits hold T), s: uint32 scalar bits. Returns result bits (uint32)."""
    fmt = _fmt(dtype)
    ftz = profile.float_subnormals == "flush_to_zero"
    if ftz:
        x, s = N.flush_subnormal(x, fmt), N.flush_subnormal(s, fmt)
    s = jnp.broadcast_to(s, x.shape)
    if op in ("max", "min"):
        kx, ks = N.order_key(x, fmt.nbits), N.order_key(s, fmt.nbits)
        pick_x = (kx >= ks) if op == "max" else (kx <= ks)
        r = jnp.where(pick_x, x, s)
        r = jnp.where(N.is_nan(x, fmt) | N.is_nan(s, fmt), U32(fmt.qnan), r)
    elif dtype.name == "float32":
        r = N.f32_add_bits(x, s) if op == "add" else N.f32_mul_bits(x, s)
    elif dtype.name == "bfloat16":
        xf, sf = N.bf16_bits_to_f32_bits(x), N.bf16_bits_to_f32_bits(s)
        rf = N.f32_add_bits(xf, sf) if op == "add" else N.f32_mul_bits(xf, sf)
        r = N.f32_bits_to_bf16_bits(rf).astype(U32)
    else:  # half: every half value and every exact sum/product of two is a normal float32
        xf, sf = N.half_bits_to_f32(x), N.half_bits_to_f32(s)
        rf = xf + sf if op == "add" else xf * sf
        r = N.f32_to_half_bits(rf).astype(U32)
    if ftz:
        r = N.flush_subnormal(r, fmt)
    nan = N.is_nan(r, fmt)
    if dtype.name in profile.float_saturation_dtypes and profile.float_saturation_ctrl_bit >= 0:
        # SPEC: SetCtrlSpr CTRL[48]: 饱和模式 -- inf output saturates to +-MAX, NaN output to 0.
        sat = ctrl_bit(ctrl, profile.float_saturation_ctrl_bit) == bool(profile.float_saturation_when_bit_is)
        inf = N.is_inf(r, fmt)
        sat_val = jnp.where(inf, (r & U32(fmt.sign)) | U32(fmt.max_finite), U32(0))
        r = jnp.where(sat & (inf | nan), sat_val, r)
        nan = nan & ~sat
    return jnp.where(nan, U32(fmt.qnan), r)


def int_op(op, x, s, dtype, profile, ctrl):
    """x: uint32 holding T's bits [R, L]; s: uint32 scalar bits. Returns uint32 result bits."""
    bits = dtype.bits
    signed = dtype.is_signed_int
    sat = jnp.asarray(profile.int_overflow == "saturate")
    if profile.int_saturation_ctrl_bit >= 0:
        sat = sat | (
            ctrl_bit(ctrl, profile.int_saturation_ctrl_bit) == bool(profile.int_saturation_when_bit_is)
        )
    mask = np.uint32((1 << bits) - 1) if bits < 32 else np.uint32(0xFFFFFFFF)

    def to_i32(v):
        v = v & mask
        if signed and bits < 32:
            sh = np.uint32(32 - bits)
            return lax.shift_right_arithmetic((v << sh).astype(I32), sh.astype(np.int32))
        return v.astype(I32) if signed else v

    xi, si = to_i32(x), to_i32(jnp.broadcast_to(s, x.shape))
    if op in ("max", "min"):
        r = jnp.maximum(xi, si) if op == "max" else jnp.minimum(xi, si)
        return r.astype(U32) & mask
    if bits < 32:  # exact in int32
        wide = (xi + si) if op == "add" else (xi * si)
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        r = jnp.where(sat, jnp.clip(wide, lo, hi), wide)
        return r.astype(U32) & mask
    # 32-bit
    if op == "add":
        w = (xi.astype(U32) + si.astype(U32)).astype(I32) if signed else (xi + si)
        if signed:
            ovf = ((xi >= 0) == (si >= 0)) & ((w >= 0) != (xi >= 0))
            satv = jnp.where(xi >= 0, np.int32(2**31 - 1), np.int32(-(2**31)))
            r = jnp.where(sat & ovf, satv, w)
        else:
            ovf = w < xi
            r = jnp.where(sat & ovf, np.uint32(0xFFFFFFFF), w)
        return r.astype(U32)
    # mul 32-bit: the low word wraps; saturation needs the full product
    w = (xi.astype(U32) * si.astype(U32)).astype(U32)
    if signed:
        neg = (xi < 0) != (si < 0)
        ax = jnp.where(xi < 0, (-xi).astype(U32), xi.astype(U32))
        ax = jnp.where(xi == np.int32(-(2**31)), np.uint32(2**31), ax)
        as_ = jnp.where(si < 0, (-si).astype(U32), si.astype(U32))
        as_ = jnp.where(si == np.int32(-(2**31)), np.uint32(2**31), as_)
        hi, lo = N.mul_u32_wide(ax, as_)
        limit = jnp.where(neg, np.uint32(2**31), np.uint32(2**31 - 1))
        zero = (ax == 0) | (as_ == 0)
        ovf = ~zero & ((hi != 0) | (lo > limit))
        satv = jnp.where(neg, np.uint32(2**31), np.uint32(2**31 - 1))
        return jnp.where(sat & ovf, satv, w)
    hi, lo = N.mul_u32_wide(xi, si)
    return jnp.where(sat & (hi != 0), np.uint32(0xFFFFFFFF), w)


def scalar_op(op, x, s, dtype, profile, ctrl):
    if dtype.is_float:
        return float_op(op, x, s, dtype, profile, ctrl)
    return int_op(op, x, s, dtype, profile, ctrl)
