"""Element functions of the scalar-arithmetic family on bit patterns, per dtype, with the profile's
numeric choices (subnormal flush, canonical NaN, CTRL-driven saturation, integer wrap/saturate)."""

import jax
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
        if op == "add":
            r = N.zero_sum_sign(x, s, r, U32(0x7FFF))
    return finish_float(r, fmt, dtype, profile, ctrl)


def finish_float(r, fmt, dtype, profile, ctrl):
    """A rounded float result's epilogue, in MODEL.md's order: subnormal flush (flush_to_zero
    profiles), CTRL-driven saturation, canonical NaN."""
    if profile.float_subnormals == "flush_to_zero":
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


def _int_saturating(profile, ctrl):
    sat = jnp.asarray(profile.int_overflow == "saturate")
    if profile.int_saturation_ctrl_bit >= 0:
        sat = sat | (
            ctrl_bit(ctrl, profile.int_saturation_ctrl_bit) == bool(profile.int_saturation_when_bit_is)
        )
    return sat


def _lt64(ah, al, bh, bl, signed):
    """(ah:al) < (bh:bl) for 64-bit values held as uint32 halves."""
    if signed:
        h_lt = ah.astype(I32) < bh.astype(I32)
    else:
        h_lt = ah < bh
    return h_lt | ((ah == bh) & (al < bl))


def _neg64(h, l):
    nl = ~l + np.uint32(1)
    return ~h + (nl == 0).astype(U32), nl


def int64_op(op, x, s, dtype, profile, ctrl):
    """64-bit integer lanes as (low, high) uint32 pairs: x [..., 2], s [2]. Returns [..., 2]."""
    signed = dtype.is_signed_int
    xl, xh = x[..., 0], x[..., 1]
    sl, sh = jnp.broadcast_to(s[0], xl.shape), jnp.broadcast_to(s[1], xl.shape)
    sat = _int_saturating(profile, ctrl)
    smax = (np.uint32(0x7FFFFFFF), np.uint32(0xFFFFFFFF)) if signed else (np.uint32(0xFFFFFFFF),) * 2
    smin = (np.uint32(0x80000000), np.uint32(0)) if signed else (np.uint32(0),) * 2
    if op in ("max", "min"):
        x_lt = _lt64(xh, xl, sh, sl, signed)
        pick_x = ~x_lt if op == "max" else x_lt | ((xh == sh) & (xl == sl))
        return jnp.stack([jnp.where(pick_x, xl, sl), jnp.where(pick_x, xh, sh)], -1)
    if op == "add":
        rl = xl + sl
        rh = xh + sh + (rl < xl).astype(U32)
        if signed:
            xs, ss, rs = xh >> 31, sh >> 31, rh >> 31
            ovf = (xs == ss) & (rs != xs)
            hi_v, lo_v = jnp.where(xs == 1, smin[0], smax[0]), jnp.where(xs == 1, smin[1], smax[1])
        else:
            ovf = _lt64(rh, rl, xh, xl, False)
            hi_v, lo_v = smax[0], smax[1]
        rh = jnp.where(sat & ovf, hi_v, rh)
        rl = jnp.where(sat & ovf, lo_v, rl)
        return jnp.stack([rl, rh], -1)
    # mul: the low 64 bits wrap; saturation needs the magnitude of the full 128-bit product
    h00, l00 = N.mul_u32_wide(xl, sl)
    rl = l00
    rh = h00 + xl * sh + xh * sl
    if signed:
        xn, sn = (xh >> 31) == 1, (sh >> 31) == 1
        axh, axl = _neg64(xh, xl)
        ash, asl = _neg64(sh, sl)
        axh, axl = jnp.where(xn, axh, xh), jnp.where(xn, axl, xl)
        ash, asl = jnp.where(sn, ash, sh), jnp.where(sn, asl, sl)
    else:
        axh, axl, ash, asl = xh, xl, sh, sl
    a0, a1, b0, b1 = axl, axh, asl, ash
    h00, l00 = N.mul_u32_wide(a0, b0)
    h01, l01 = N.mul_u32_wide(a0, b1)
    h10, l10 = N.mul_u32_wide(a1, b0)
    h11, l11 = N.mul_u32_wide(a1, b1)
    m1 = h00 + l01
    c1 = m1 < h00
    m2 = m1 + l10
    c2 = m2 < m1
    upper = (h11 != 0) | (l11 != 0) | (h01 != 0) | (h10 != 0) | c1 | c2  # bits >= 64 of |x|*|s|
    if signed:
        neg = (xn != sn) & ~(((axh | axl) == 0) | ((ash | asl) == 0))
        big_pos = m2 >= np.uint32(0x80000000)
        big_neg = (m2 > np.uint32(0x80000000)) | ((m2 == np.uint32(0x80000000)) & (l00 != 0))
        ovf = upper | jnp.where(neg, big_neg, big_pos)
        hi_v, lo_v = jnp.where(neg, smin[0], smax[0]), jnp.where(neg, smin[1], smax[1])
    else:
        ovf = upper
        hi_v, lo_v = smax[0], smax[1]
    rh = jnp.where(sat & ovf, hi_v, rh)
    rl = jnp.where(sat & ovf, lo_v, rl)
    return jnp.stack([rl, rh], -1)


def complex_op(op, x, s, dtype, profile, ctrl):
    """complex32 (x: uint32 = real half | imag half << 16) and complex64 (x: [..., 2] uint32 =
    real, imag float32 bits). Adds: component-wise. Muls: (a+bi)(c+di) with every product rounded
    to the component type, then ac - bd and ad + bc rounded (CHOICE: the docs give no complex
    rounding rule; no fused multiply-add)."""
    from .. import dtypes as _dt

    half = dtype.name == "complex32"
    comp = _dt.half if half else _dt.float32
    fmt = N.HALF if half else N.F32
    if half:
        xr, xi = x & np.uint32(0xFFFF), x >> np.uint32(16)
        sr, si = s & np.uint32(0xFFFF), s >> np.uint32(16)
    else:
        xr, xi, sr, si = x[..., 0], x[..., 1], s[0], s[1]
    sr, si = jnp.broadcast_to(sr, xr.shape), jnp.broadcast_to(si, xr.shape)
    if profile.float_subnormals == "flush_to_zero":
        xr, xi, sr, si = (N.flush_subnormal(v, fmt) for v in (xr, xi, sr, si))

    # half parts: exact in float32, rounded to half in integers (an f32 -> f16 -> f32 convert pair
    # may be dropped by XLA as "excess precision", which would skip the intermediate rounding)
    def to_f32(h):
        return jax.lax.bitcast_convert_type(N.half_bits_to_f32(h), U32)

    def add(a, b):
        if half:
            return N.f32_bits_to_half_bits_exact(N.f32_add_bits(to_f32(a), to_f32(b)))
        return N.f32_add_bits(a, b)

    def mul(a, b):
        if half:
            return N.f32_bits_to_half_bits_exact(N.f32_mul_bits(to_f32(a), to_f32(b)))
        return N.f32_mul_bits(a, b)

    if op == "add":
        rr, ri = add(xr, sr), add(xi, si)
    elif op == "mul":
        neg_bd = mul(xi, si) ^ U32(fmt.sign)
        rr = add(mul(xr, sr), neg_bd)
        ri = add(mul(xr, si), mul(xi, sr))
    else:  # max/min are not defined for complex (no product lists them); never dispatched
        rr, ri = xr, xi
    rr = finish_float(rr, fmt, comp, profile, ctrl)
    ri = finish_float(ri, fmt, comp, profile, ctrl)
    if half:
        return rr | (ri << np.uint32(16))
    return jnp.stack([rr, ri], -1)


def scalar_op(op, x, s, dtype, profile, ctrl):
    if dtype.kind == "complex":
        return complex_op(op, x, s, dtype, profile, ctrl)
    if dtype.is_float:
        return float_op(op, x, s, dtype, profile, ctrl)
    if dtype.itemsize == 8:
        return int64_op(op, x, s, dtype, profile, ctrl)
    return int_op(op, x, s, dtype, profile, ctrl)
