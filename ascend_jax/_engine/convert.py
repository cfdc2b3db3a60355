"""Type conversion element functions (类型转换/Cast.md, Truncate(ISASI).md, precision_conversion.md):
every modelled (src, dst) pair -- 8/16/32/64-bit integers, half, bfloat16, float32, float64 -- by
integer bit manipulation on uint32 words (64-bit lanes are (low, high) word pairs, no
jax_enable_x64).

One rule for all pairs: the source lane is decoded to an exact value ``(-1)**neg * m * 2**e`` (``m``
a 64-bit magnitude as a (hi, lo) uint32 pair), then rounded once by the round mode to the
destination -- an integer (saturated or wrapped) or a float format (normal, subnormal, overflow).
The round mode is traced data (``RoundMode`` codes), so one program serves every mode of a pair.

Rules (docs/MODEL.md "Cast"):
* RINT / NONE: nearest, ties to even; ROUND: nearest, ties away from zero; FLOOR / CEIL: toward
  -inf / +inf; TRUNC: toward zero; ODD: an inexact result gets an odd last bit.
  # SPEC: precision_conversion.md, "CAST_ROUND: 若待舍入部分的首位为0，则不进位；否则，进位",
  # "CAST_ODD: ... 当非舍入部分的末位为1，则不进位；当非舍入部分的末位为0，则进位"
* overflow saturates (integers to their extreme, floats to +-max finite) unless CTRL's cast
  saturation bit (``cast_saturation_ctrl_bit``, 0 = saturating) is set: then integers wrap (two's
  complement of the rounded value) and floats overflow to +-inf.
  # SPEC: "当源值超出目标类型的表示范围时溢出，溢出默认按照饱和模式处理" (precision_conversion.md)
* NaN -> the destination's canonical NaN (float) or 0 (integer); +-inf -> +-inf (float) or the
  integer extreme (in either saturation mode); -0 keeps its sign into a float; subnormals are kept
  (sources and results) on every profile.
* a float -> the same float type (float32 -> float32, Truncate) rounds to an integral value.
"""

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import NotModelledError

U32 = jnp.uint32
I32 = jnp.int32

# AscendC::RoundMode values
MODES = {"NONE": 0, "RINT": 1, "FLOOR": 2, "CEIL": 3, "ROUND": 4, "TRUNC": 5, "ODD": 6, "HYBRID": 7}

# float formats: (bits, exponent bits, mantissa bits)
FLOATS = {"half": (16, 5, 10), "bfloat16": (16, 8, 7), "float32": (32, 8, 23), "float64": (64, 11, 52)}


def modelled(dtype):
    """Every integer (int4b_t included: a 4-bit two's complement lane) and the four float formats."""
    return dtype.modelled and (dtype.name in FLOATS or dtype.kind in ("int", "uint"))


# -- 64-bit magnitudes as (hi, lo) uint32 pairs --------------------------------------------------


def _shl32(x, k):
    ok = (k >= 0) & (k < 32)
    return jnp.where(ok, x << jnp.clip(k, 0, 31).astype(U32), U32(0))


def _shr32(x, k):
    ok = (k >= 0) & (k < 32)
    return jnp.where(ok, x >> jnp.clip(k, 0, 31).astype(U32), U32(0))


def shr64(hi, lo, k):
    """(hi, lo) >> k for int32 k >= 0 (k >= 64: zero)."""
    new_lo = jnp.where(k < 32, _shr32(lo, k) | _shl32(hi, 32 - k), _shr32(hi, k - 32))
    return _shr32(hi, k), new_lo


def shl64(hi, lo, k):
    """(hi, lo) << k mod 2**64 for int32 k >= 0 (k >= 64: zero)."""
    new_hi = jnp.where(k < 32, _shl32(hi, k) | _shr32(lo, 32 - k), _shl32(lo, k - 32))
    return new_hi, _shl32(lo, k)


def add64(hi, lo, inc):
    """(hi, lo) + inc (a uint32) mod 2**64."""
    new_lo = lo + inc
    return hi + (new_lo < lo).astype(U32), new_lo


def neg64(hi, lo):
    """Two's complement negation mod 2**64."""
    new_lo = ~lo + U32(1)
    return ~hi + (new_lo == 0).astype(U32), new_lo


def bitlen64(hi, lo):
    """Bit length of (hi, lo) (0 for zero)."""
    return jnp.where(hi != 0, 64 - lax.clz(hi).astype(I32), 32 - lax.clz(lo).astype(I32))


def gt64(hi, lo, c):
    """(hi, lo) > the Python int constant c (0 <= c < 2**64)."""
    chi, clo = np.uint32(c >> 32), np.uint32(c & 0xFFFFFFFF)
    return (hi > chi) | ((hi == chi) & (lo > clo))


def _pick_mode(mode, options):
    """``options[name]`` for the round mode: a Python int (static) or a traced int32."""
    if isinstance(mode, (int, np.integer)):
        code = int(mode)
        name = "RINT" if code == MODES["NONE"] else next(k for k, v in MODES.items() if v == code)
        if name not in options:
            raise NotModelledError(f"Cast: round mode CAST_{name} has no fast-path element function")
        return options[name]
    out = options["RINT"]  # NONE: RINT where the conversion loses precision
    for name, v in options.items():
        if name != "RINT":
            out = jnp.where(mode == MODES[name], v, out)
    return out


def round_shift(neg, hi, lo, k, mode):
    """The magnitude ``m * 2**-k`` rounded to an integer by ``mode`` (exact for k <= 0, mod 2**64)."""
    kp = jnp.maximum(k, 0)
    qh, ql = shr64(hi, lo, kp)
    g = jnp.maximum(kp - 1, 0)
    gh, gl = shr64(hi, lo, g)
    guard = (kp >= 1) & ((gl & 1) == 1)
    bh, bl = shl64(gh, gl, g)
    sticky = (kp >= 2) & ((bh != hi) | (bl != lo))
    inexact = guard | sticky
    odd = (ql & 1) == 1
    up = _pick_mode(
        mode,
        {
            "RINT": guard & (sticky | odd),
            "FLOOR": neg & inexact,
            "CEIL": ~neg & inexact,
            "ROUND": guard,  # ties away from zero
            "TRUNC": jnp.zeros_like(guard),
            "ODD": inexact & ~odd,
        },
    )
    qh, ql = add64(qh, ql, up.astype(U32))
    lh, ll = shl64(hi, lo, jnp.maximum(-k, 0))
    return jnp.where(k <= 0, lh, qh), jnp.where(k <= 0, ll, ql)


# -- decoding a source lane ----------------------------------------------------------------------


def _words(x, dtype):
    """(hi, lo) uint32 words of lanes x ([..] or [.., 2] for 64-bit types)."""
    if dtype.bits == 64:
        return x[..., 1].astype(U32), x[..., 0].astype(U32)
    return jnp.zeros(x.shape, U32), x.astype(U32)


def decode(x, dtype):
    """(neg, hi, lo, e, nan, inf) with value = (-1)**neg * (hi, lo) * 2**e."""
    hi, lo = _words(x, dtype)
    false = jnp.zeros(lo.shape, bool)
    if dtype.name in FLOATS:
        n, eb, mb = FLOATS[dtype.name]
        bias = (1 << (eb - 1)) - 1
        if n == 64:
            neg = (hi >> 31) == 1
            ef = ((hi >> 20) & 0x7FF).astype(I32)
            mh, ml = hi & np.uint32(0xFFFFF), lo
            implicit_h, implicit_l = np.uint32(1 << 20), np.uint32(0)
            man_zero = (mh == 0) & (ml == 0)
        else:
            neg = ((lo >> np.uint32(n - 1)) & 1) == 1
            ef = ((lo >> np.uint32(mb)) & np.uint32((1 << eb) - 1)).astype(I32)
            mh, ml = hi, lo & np.uint32((1 << mb) - 1)
            implicit_h, implicit_l = np.uint32(0), np.uint32(1 << mb)
            man_zero = ml == 0
        sub = ef == 0
        special = ef == (1 << eb) - 1
        mh = jnp.where(sub, mh, mh | implicit_h)
        ml = jnp.where(sub, ml, ml | implicit_l)
        # subnormal sources keep their value (MODEL.md: conversions keep subnormals)
        e = jnp.where(sub, 1 - bias - mb, ef - bias - mb)
        return neg, mh, ml, e, special & ~man_zero, special & man_zero
    if dtype.kind not in ("int", "uint"):
        raise NotModelledError(f"Cast: {dtype.name} has no fast-path element function")
    n = dtype.bits
    e = jnp.zeros(lo.shape, I32)
    if dtype.kind == "uint":
        return false, hi, lo, e, false, false
    if n == 64:
        neg = (hi >> 31) == 1
        nh, nl = neg64(hi, lo)
        return neg, jnp.where(neg, nh, hi), jnp.where(neg, nl, lo), e, false, false
    neg = ((lo >> np.uint32(n - 1)) & 1) == 1
    mag = jnp.where(neg, (U32(0) - lo) & np.uint32((1 << n) - 1), lo)
    return neg, hi, mag, e, false, false


def _out(hi, lo, dtype):
    if dtype.bits == 64:
        return jnp.stack([lo, hi], axis=-1)
    return lo & np.uint32((1 << dtype.bits) - 1)


# -- encoding the destination --------------------------------------------------------------------


def _float_parts(dtype):
    n, eb, mb = FLOATS[dtype.name]
    bias = (1 << (eb - 1)) - 1
    return n, eb, mb, bias


def _const64(c):
    return np.uint32(c >> 32), np.uint32(c & 0xFFFFFFFF)


def to_float(neg, hi, lo, e, mode, dtype, sat):
    """The exact nonzero value (-1)**neg * (hi, lo) * 2**e rounded by ``mode`` to float ``dtype``
    (a zero magnitude gives a signed zero); (hi, lo) bits."""
    n, eb, mb, bias = _float_parts(dtype)
    emin = 1 - bias
    zero = (hi == 0) & (lo == 0)
    lead = bitlen64(hi, lo) - 1 + e  # exponent of the leading bit
    qe = jnp.maximum(lead, emin) - mb  # exponent of the last kept bit
    sh, sl = round_shift(neg, hi, lo, qe - e, mode)
    carry = bitlen64(sh, sl) > mb + 1  # rounded up into the next binade: sig == 2**(mb+1)
    sh, sl = shr64(sh, sl, carry.astype(I32))
    qe = qe + carry.astype(I32)
    normal = bitlen64(sh, sl) > mb
    biased = qe + mb + bias
    over = normal & (biased >= (1 << eb) - 1)
    mh, ml = _const64((1 << mb) - 1)
    bh, bl = shl64(jnp.zeros_like(sh), jnp.maximum(biased, 0).astype(U32), jnp.asarray(mb, I32))
    rh = jnp.where(normal, bh | (sh & mh), sh)
    rl = jnp.where(normal, bl | (sl & ml), sl)
    inf_h, inf_l = _const64(((1 << eb) - 1) << mb)
    max_h, max_l = _const64((((1 << eb) - 1) << mb) - 1)
    # SPEC: overflow "默认按照饱和模式处理": +-max finite; the non-saturating mode gives +-inf (CHOICE)
    rh = jnp.where(over, jnp.where(sat, max_h, inf_h), rh)
    rl = jnp.where(over, jnp.where(sat, max_l, inf_l), rl)
    rh = jnp.where(zero, U32(0), rh)
    rl = jnp.where(zero, U32(0), rl)
    sign_h, sign_l = _const64(1 << (n - 1))
    return jnp.where(neg, rh | sign_h, rh), jnp.where(neg, rl | sign_l, rl)


def _float_specials(hi, lo, neg, nan, inf, dtype):
    n, eb, mb, _ = _float_parts(dtype)
    inf_h, inf_l = _const64(((1 << eb) - 1) << mb)
    nan_h, nan_l = _const64((((1 << eb) - 1) << mb) | (1 << (mb - 1)))
    sign_h, sign_l = _const64(1 << (n - 1))
    hi = jnp.where(inf, jnp.where(neg, inf_h | sign_h, inf_h), hi)
    lo = jnp.where(inf, jnp.where(neg, inf_l | sign_l, inf_l), lo)
    return jnp.where(nan, nan_h, hi), jnp.where(nan, nan_l, lo)


def to_int(neg, hi, lo, e, mode, dtype, sat):
    """(-1)**neg * (hi, lo) * 2**e rounded by ``mode`` to integer ``dtype``, saturated (``sat``) or
    wrapped; (hi, lo) bits."""
    n, signed = dtype.bits, dtype.kind == "int"
    qh, ql = round_shift(neg, hi, lo, -e, mode)
    beyond = (e > 0) & ~((hi == 0) & (lo == 0)) & (bitlen64(hi, lo) + e > 64)  # |v| >= 2**64
    nz = (qh != 0) | (ql != 0)
    vneg = neg & nz
    hi_pos = (1 << (n - 1)) - 1 if signed else (1 << n) - 1
    hi_neg = (1 << (n - 1)) if signed else 0
    over = beyond | jnp.where(vneg, gt64(qh, ql, hi_neg), gt64(qh, ql, hi_pos))
    wh, wl = neg64(qh, ql)
    wh, wl = jnp.where(vneg, wh, qh), jnp.where(vneg, wl, ql)
    below = neg & (nz | beyond)
    ph, pl = _const64(hi_pos)
    nh, nl = _const64((-hi_neg) % (1 << 64))
    sh, sl = jnp.where(below, nh, ph), jnp.where(below, nl, pl)
    return jnp.where(over & sat, sh, wh), jnp.where(over & sat, sl, wl)


def _int_specials(hi, lo, neg, nan, inf, dtype):
    n, signed = dtype.bits, dtype.kind == "int"
    ph, pl = _const64((1 << (n - 1)) - 1 if signed else (1 << n) - 1)
    nh, nl = _const64((-(1 << (n - 1))) % (1 << 64) if signed else 0)
    hi = jnp.where(inf, jnp.where(neg, nh, ph), hi)
    lo = jnp.where(inf, jnp.where(neg, nl, pl), lo)
    return jnp.where(nan, U32(0), hi), jnp.where(nan, U32(0), lo)


def saturating(profile, ctrl):
    """bool: conversions saturate. SPEC: SetSaturationFlag<SaturationMode::CAST> / CTRL[59]:
    1'b0 = saturating (SetCtrlSpr(ISASI).md 表3)."""
    bit = profile.cast_saturation_ctrl_bit
    if bit < 0:
        return jnp.ones((), bool)
    return ((ctrl[..., bit // 32] >> np.uint32(bit % 32)) & 1) == 0


def convert(x, src, dst, mode, profile, ctrl):
    """Lanes ``x`` of type ``src`` converted to ``dst`` by ``mode`` (a RoundMode code, Python int or
    traced int32): uint32 lanes ([...], or [..., 2] (low, high) for 64-bit ``dst``)."""
    if not (modelled(src) and modelled(dst)):
        raise NotModelledError(f"Cast: {src.name} -> {dst.name} has no fast-path element function")
    sat = saturating(profile, ctrl)
    neg, hi, lo, e, nan, inf = decode(x, src)
    if dst.name in FLOATS:
        if src.name == dst.name:
            # SPEC: float -> the same float type with a round mode: rounding to an integral value
            qh, ql = round_shift(neg, hi, lo, -e, mode)
            rh, rl = to_float(neg, qh, ql, jnp.zeros_like(e), MODES["RINT"], dst, sat)  # exact
            ih, il = _words(x, src)
            rh, rl = jnp.where(e >= 0, ih, rh), jnp.where(e >= 0, il, rl)
        else:
            rh, rl = to_float(neg, hi, lo, e, mode, dst, sat)
        rh, rl = _float_specials(rh, rl, neg, nan, inf, dst)
    else:
        rh, rl = to_int(neg, hi, lo, e, mode, dst, sat)
        rh, rl = _int_specials(rh, rl, neg, nan, inf, dst)
    return _out(rh, rl, dst)
