"""NumPy helpers shared by the ops' golden generators (the ``gen_data.py`` of each op).

Plain vectorised NumPy written from the doc semantics (docs/MODEL.md and the doc pages); nothing
here imports ascend_jax's engine or reference. Profile-dependent rules take the *named* profile
field as an argument (``float_subnormals``, ``nan_result``, ...), never a product name.

Random data: ``random_values`` mixes ordinary values with the special values every op must survive
(NaN with payloads and both signs, +-0, +-inf, subnormals, the extreme finite values, integer
extremes), so a 1,000-case batch always contains them.
"""

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)
_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
# (mantissa bits, exponent bits) of the float formats the ops use
_FMT = {np.dtype(np.float16): (10, 5), BF16: (7, 8), np.dtype(np.float32): (23, 8)}
# default quiet NaN with the sign bit clear (docs/MODEL.md "canonical")
_CANONICAL_NAN = {np.dtype(np.float16): 0x7E00, BF16: 0x7FC0, np.dtype(np.float32): 0x7FC00000}


def bits_dtype(dtype):
    """The unsigned integer dtype of the same width (the bit-pattern view)."""
    return np.dtype(_BITS[np.dtype(dtype).itemsize])


def bits(a):
    """Bit patterns of ``a`` (any dtype) as unsigned integers."""
    a = np.ascontiguousarray(a)
    return a.view(bits_dtype(a.dtype))


def is_float(dtype):
    return np.dtype(dtype) in _FMT


# -- special values ----------------------------------------------------------------------------


def float_specials(dtype):
    """Bit patterns of the special values of a float format."""
    dt = np.dtype(dtype)
    man, exp = _FMT[dt]
    sign = 1 << (man + exp)
    inf = ((1 << exp) - 1) << man
    quiet = 1 << (man - 1)
    maxfin = inf - 1
    minnorm = 1 << man
    pos = [
        0,  # +0
        1,  # smallest subnormal
        (1 << man) - 1,  # largest subnormal
        (1 << (man - 1)) | 1,  # a mid subnormal
        minnorm,  # smallest normal
        maxfin,  # largest finite
        inf,  # +inf
        inf | quiet,  # quiet NaN
        inf | quiet | 0x5,  # quiet NaN with payload
        inf | 1,  # signalling NaN
        (((1 << (exp - 1)) - 1) << man),  # 1.0
    ]
    out = pos + [p | sign for p in pos]
    return np.array(out, dtype=bits_dtype(dt)).view(dt)


def int_specials(dtype):
    info = np.iinfo(dtype)
    vals = {info.min, info.min + 1, -1, 0, 1, 2, info.max - 1, info.max, info.max // 2, info.min // 2}
    return np.array(sorted(v for v in vals if info.min <= v <= info.max), dtype=dtype)


def random_values(rng, dtype, shape, special_frac=0.25):
    """Random ``dtype`` values of ``shape``: ordinary values, raw random bit patterns and (with
    probability ``special_frac`` per element) the format's special values."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if is_float(dt):
        scale = rng.choice([1e-3, 1.0, 100.0, 1e4], size=n)
        ordinary = (rng.standard_normal(n) * scale).astype(np.float32).astype(dt)
        raw = rng.integers(0, 1 << (8 * dt.itemsize), size=n, dtype=np.uint64).astype(bits_dtype(dt)).view(dt)
        specials = float_specials(dt)
    else:
        info = np.iinfo(dt)
        ordinary = rng.integers(-100 if info.min < 0 else 0, 100, size=n).astype(dt)
        raw = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=np.int64).astype(dt)
        specials = int_specials(dt)
    pick = rng.random(n)
    out = np.where(pick < 0.5, ordinary, raw)
    sp = specials[rng.integers(0, len(specials), size=n)]
    out = np.where(pick > 1.0 - special_frac, sp, out)
    return np.ascontiguousarray(out.astype(dt)).reshape(shape)


def random_scalars(rng, dtype, n, specials=True):
    """``n`` scalar kernel parameters of ``dtype`` (ordinary values, some special values)."""
    dt = np.dtype(dtype)
    if is_float(dt):
        v = (rng.standard_normal(n) * rng.choice([0.01, 1.0, 10.0, 1000.0], size=n)).astype(dt)
        if specials:
            sp = float_specials(dt)
            take = rng.random(n) < 0.15
            v = np.where(take, sp[rng.integers(0, len(sp), n)], v)
        return np.ascontiguousarray(v.astype(dt))
    info = np.iinfo(dt)
    v = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=np.int64).astype(dt)
    small = rng.integers(-5 if info.min < 0 else 0, 6, size=n).astype(dt)
    return np.where(rng.random(n) < 0.5, small, v).astype(dt)


# -- float rules (docs/MODEL.md "Numerics") ------------------------------------------------------


def is_subnormal(x):
    dt = x.dtype
    man, exp = _FMT[dt]
    b = bits(x).astype(np.uint64)
    e = (b >> man) & ((1 << exp) - 1)
    m = b & ((1 << man) - 1)
    return (e == 0) & (m != 0)


def flush(x, float_subnormals):
    """``float_subnormals == "flush_to_zero"``: subnormals become zero of the same sign."""
    if float_subnormals != "flush_to_zero" or not is_float(x.dtype):
        return x
    man, exp = _FMT[x.dtype]
    b = bits(x)
    sign = b & bits_dtype(x.dtype).type(1 << (man + exp))
    return np.where(is_subnormal(x), sign, b).astype(bits_dtype(x.dtype)).view(x.dtype)


def float_epilogue(res, profile, ctrl=None):
    """The result rules of Adds/Muls/Maxs/Mins for a float ``res`` (already rounded once):
    subnormal flush, saturation (CTRL bit), canonical NaN. Returns the bit patterns."""
    dt = res.dtype
    res = flush(res, profile.float_subnormals)
    b = bits(res).copy()
    man, exp = _FMT[dt]
    if _saturating(profile, dt, ctrl):
        # SPEC: SetCtrlSpr.md / hw_profiles/README.md: saturation mode turns +-inf into +-MAX and a
        # NaN result into 0.
        inf = ((1 << exp) - 1) << man
        mag = b & bits_dtype(dt).type(inf | ((1 << man) - 1))
        isinf = mag == inf
        b = np.where(isinf, b - 1, b)  # +-inf -> +-MAX (same sign)
        b = np.where(np.isnan(res), 0, b)
    elif profile.nan_result == "canonical":
        b = np.where(np.isnan(res), _CANONICAL_NAN[dt], b)
    return b.astype(bits_dtype(dt))


def _saturating(profile, dt, ctrl):
    if profile.float_saturation_ctrl_bit < 0:
        return False
    names = {np.dtype(np.float16): "half", BF16: "bfloat16", np.dtype(np.float32): "float32"}
    if names[dt] not in profile.float_saturation_dtypes:
        return False
    c = profile.ctrl_reset_value if ctrl is None else ctrl
    return ((c >> profile.float_saturation_ctrl_bit) & 1) == profile.float_saturation_when_bit_is


def float_max(a, b):
    """Max with NaN propagation and -0 < +0 (docs/MODEL.md "Max/min")."""
    nan = np.isnan(a) | np.isnan(b)
    both_zero = (a == 0) & (b == 0)
    pick_a = (a > b) | (both_zero & ~np.signbit(a))
    out = np.where(pick_a, a, b)
    return np.where(nan, np.array(np.nan, a.dtype), out).astype(a.dtype)


def float_min(a, b):
    nan = np.isnan(a) | np.isnan(b)
    both_zero = (a == 0) & (b == 0)
    pick_a = (a < b) | (both_zero & np.signbit(a))
    out = np.where(pick_a, a, b)
    return np.where(nan, np.array(np.nan, a.dtype), out).astype(a.dtype)


# -- integers ------------------------------------------------------------------------------------


def int_result(exact, dtype, profile, ctrl=None):
    """An exact integer result (int64 / Python-int object array) wrapped or saturated into T."""
    dt = np.dtype(dtype)
    info = np.iinfo(dt)
    c = profile.ctrl_reset_value if ctrl is None else ctrl
    sat = profile.int_overflow == "saturate" or (
        profile.int_saturation_ctrl_bit >= 0
        and ((c >> profile.int_saturation_ctrl_bit) & 1) == profile.int_saturation_when_bit_is
    )
    exact = np.asarray(exact, dtype=object)
    if sat:
        out = np.minimum(np.maximum(exact, info.min), info.max)
    else:
        width = 1 << (8 * dt.itemsize)
        out = exact % width
        out = np.where(out > info.max, out - width, out)
    return np.asarray(out.astype(np.int64)).astype(dt)


# -- comparison and bit packing -----------------------------------------------------------------

CMP = {
    "LT": np.less,
    "GT": np.greater,
    "EQ": np.equal,
    "LE": np.less_equal,
    "GE": np.greater_equal,
    "NE": np.not_equal,
}


def compare(a, b, mode, float_subnormals):
    """``a mode b`` elementwise: integers exactly; floats with subnormals read as zero where the
    profile flushes, -0 == +0, every comparison with NaN false except NE (docs/MODEL.md)."""
    if is_float(np.asarray(a).dtype):
        a = flush(np.asarray(a), float_subnormals)
        b = flush(np.asarray(b), float_subnormals)
    with np.errstate(invalid="ignore"):
        return CMP[mode](a, b)


def pack_bits(mask_bool):
    """Bit ``i`` = element ``i``, LSB first within each byte (last axis)."""
    return np.packbits(np.asarray(mask_bool, bool), axis=-1, bitorder="little")


def unpack_bits(u8, n):
    """The first ``n`` bits of the byte array (last axis), LSB first."""
    return np.unpackbits(np.asarray(u8, np.uint8), axis=-1, bitorder="little")[..., :n].astype(bool)
