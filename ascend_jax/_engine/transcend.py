"""float32 Exp, Ln and Rsqrt on bit patterns, correctly rounded, in integer arithmetic.

The backend's float unit is used only for estimates on normal values (XLA on CPU flushes
subnormals; no x64 is needed). Every result is decided in uint32 limb arithmetic:

* Exp and Ln evaluate the function in 96-bit fixed point (three uint32 limbs), then round once.
  Exp: ``x = n*ln2/64 + r`` with ``n`` from a float32 estimate corrected in integers so that
  ``0 <= r < ln2/64``; ``x`` is exact in fixed point (LSB 2**-88), ``n*ln2/64`` uses a 120-bit
  constant; ``e**r`` is its Taylor polynomial to ``r**11/11!`` (truncation < 2**-96) by Horner on
  pure fractions; ``e**x = 2**(k+1) * (2**(j/64)/2) * e**r`` (``n = 64k + j``, a 64-entry table).
  Error of the 96-bit significand ``Y`` (in [2**95, 2**96)): ``|r|`` is known to 2**-87, the
  table to 2**-97, each of the 13 truncating products to 2**-96: below 2**10 units of ``Y``'s LSB,
  i.e. < 2**-85 relative.
  Ln: ``x = 2**E * (1 + j/128) * (1 + t)`` with ``t = u * 2**-23 / (1 + j/128)`` (``u`` the low 16
  significand bits; a 128-entry table of ``1/(2 + j/64)``), ``ln(1+t) = t - t*t*(1/2 - t*(1/3 -
  ...))`` to ``t**13/13`` (``t < 2**-7``: truncation < 2**-98), and ``E*ln2 + ln(1 + j/128) +
  ln(1+t)`` summed in signed 96-bit fixed point with LSB 2**-88 (``|ln x| < 2**7``). Error: below
  16 units of 2**-88 absolute; the smallest non-zero ``|ln x|`` of a float32 is ~2**-24, so the
  relative error is below 2**-60 everywhere (2**-80 away from x ~ 1).
  Rounding (``_round_fixed``): the result is rounded to nearest at the output format's position
  (normal or subnormal); a lane whose computed value lies within the error bound of a midpoint is
  flagged *ambiguous* (the rounding direction could then be wrong). With a 2**-60 (Ln) / 2**-85
  (Exp) bound that is a window of 2**-36 / 2**-61 ulp around each midpoint: the tests check every
  sampled pattern against the reference's 80-digit results and that no sampled lane was ambiguous
  (``exp_f32_bits`` / ``ln_f32_bits`` return the flag; none in > 10**6 random patterns per function,
  tests/test_ewmath.py -m slow). An ambiguous lane keeps the rounding of the computed value.
  Exact midpoints do not occur (e**x and ln x are transcendental for x != 0, x != 1, both handled
  as special cases), so ties-to-even never applies.
* Rsqrt is decided exactly: a float32 estimate ``q0`` of the 24-bit significand of
  ``1/sqrt(M)`` (``M`` in [1, 4), a normal float32; one Newton step) is corrected by six exact
  midpoint tests ``(2q + 1)**2 * M * 2**23 < 2**73`` in 77-bit integers (``q0-3 .. q0+2``): the
  result is the correctly rounded one whenever the estimate is within 3 ulps (float32 rsqrt plus a
  Newton step is within 2). No midpoint is ever exact (an odd square times a power of two is not a
  power of two), and the result is always a normal float32.
"""

import decimal
import functools

import jax.numpy as jnp
import numpy as np
from jax import lax

from . import numerics as N

U32 = jnp.uint32
I32 = jnp.int32
NL = 3  # limbs of the fixed-point values
F = 88  # fraction bits of the signed fixed-point sums (|value| < 2**7)
_ONES = np.uint32(0xFFFFFFFF)
_ABS = np.uint32(0x7FFFFFFF)
_EXP = np.uint32(0x7F800000)
_MAN = np.uint32(0x007FFFFF)
EXP_ERR = 1 << 10  # error bound of exp's Y, in units of its LSB (module docstring)
LN_ERR = 16  # error bound of ln's fixed-point sum, in units of 2**-88

# ---------------------------------------------------------------------------------------------
# Multi-limb unsigned integers: tuples of uint32 arrays, least significant limb first. Arithmetic
# wraps modulo 2**(32 * len); signed values are two's complement.


def _const(v, n):
    return tuple(jnp.asarray(np.uint32((v >> (32 * i)) & 0xFFFFFFFF)) for i in range(n))


def _table(values, n):
    """Python ints -> a list of n uint32 arrays of shape [len(values)] (limb i of each)."""
    return [np.array([(v >> (32 * i)) & 0xFFFFFFFF for v in values], np.uint32) for i in range(n)]


def _take(table, idx):
    return tuple(jnp.asarray(t)[idx] for t in table)


def _sel(c, a, b):
    return tuple(jnp.where(c, x, y) for x, y in zip(a, b, strict=True))


def _add(a, b):
    """(a + b mod 2**(32n), carry out)."""
    out, carry = [], None
    for x, y in zip(a, b, strict=True):
        s = x + y
        c = s < x
        if carry is not None:
            s2 = s + carry.astype(U32)
            c = c | (s2 < s)
            s = s2
        out.append(s)
        carry = c
    return tuple(out), carry


def _neg(a):
    one = (jnp.ones_like(a[0]),) + tuple(jnp.zeros_like(x) for x in a[1:])
    return _add(tuple(~x for x in a), one)[0]


def _sub(a, b):
    return _add(a, _neg(b))[0]


def _mul(a, b):
    """The full product (len(a) + len(b) limbs)."""
    res = [None] * (len(a) + len(b))
    for i, x in enumerate(a):
        carry = None
        for j, y in enumerate(b):
            hi, lo = N.mul_u32_wide(x, y)
            k = i + j
            if res[k] is None:
                s, c1 = lo, jnp.zeros(lo.shape, bool)
            else:
                s = res[k] + lo
                c1 = s < lo
            if carry is not None:
                s2 = s + carry
                c1_2 = s2 < carry
                s = s2
            else:
                c1_2 = jnp.zeros(s.shape, bool)
            res[k] = s
            carry = hi + c1.astype(U32) + c1_2.astype(U32)  # the 64-bit column sum fits
        res[i + len(b)] = carry
    return tuple(res)


def _mulhi(a, b):
    """Product of two pure fractions (value = limbs / 2**(32n)), truncated."""
    return _mul(a, b)[len(a) :]


def _lt(a, b):
    res, eq = None, None
    for x, y in zip(reversed(a), reversed(b), strict=True):
        lt = x < y
        res = lt if res is None else res | (eq & lt)
        eq = (x == y) if eq is None else eq & (x == y)
    return res


def _shift_limbs(a, q, left):
    """Whole-limb shift by the traced count q (int32, 0 <= q < n)."""
    n = len(a)
    z = jnp.zeros_like(a[0])
    out = []
    for i in range(n):
        v = z
        for k in range(n):
            src = i - k if left else i + k
            v = jnp.where(q == k, a[src] if 0 <= src < n else z, v)
        out.append(v)
    return out


def _shl(a, c):
    """a << c for a traced int32 c in [0, 32n)."""
    c = jnp.asarray(c, I32)
    limbs = _shift_limbs(a, c // 32, True)
    r = (c % 32).astype(U32)
    back = jnp.minimum(32 - r, np.uint32(31))
    out = []
    for i in range(len(a)):
        lower = limbs[i - 1] >> back if i > 0 else jnp.zeros_like(r)
        out.append((limbs[i] << r) | jnp.where(r == 0, np.uint32(0), lower))
    return tuple(out)


def _shr_const(a, s):
    """a >> s for a static s (0 < s < 32)."""
    s = np.uint32(s)
    t = np.uint32(32) - s
    return tuple((a[i] >> s) | ((a[i + 1] << t) if i + 1 < len(a) else np.uint32(0)) for i in range(len(a)))


def _clz(a):
    n = len(a)
    res = jnp.full(a[0].shape, 32 * n, I32)
    found = jnp.zeros(a[0].shape, bool)
    for i in reversed(range(n)):
        nz = a[i] != 0
        res = jnp.where(~found & nz, (n - 1 - i) * 32 + lax.clz(a[i]).astype(I32), res)
        found = found | nz
    return res


# ---------------------------------------------------------------------------------------------
# Constants (exact to 200 bits, rounded once to the fixed-point grid; computed at first use)

_CTX = decimal.Context(prec=70)


def _fix(d, bits):
    with decimal.localcontext(_CTX):
        return int((d * (decimal.Decimal(2) ** bits)).to_integral_value(decimal.ROUND_HALF_EVEN))


@functools.cache
def _consts():
    with decimal.localcontext(_CTX):
        return _make_consts()


def _make_consts():
    ln2 = decimal.Decimal(2).ln()
    one = decimal.Decimal(1)
    kmax_exp, kmax_ln = 11, 13
    return {
        "C120": _fix(ln2 / 64, 120),  # ln2/64, 2**-120 grid (4 limbs)
        "C88": _fix(ln2 / 64, 88),
        "TH": _table([_fix((ln2 * j / 64).exp() / 2, 96) for j in range(64)], NL),
        "IFACT": {k: _fix(one / _factorial(k), 96) for k in range(2, kmax_exp + 1)},
        "KEXP": kmax_exp,
        "LN2_120": _fix(ln2, 120),
        "LNC": _table([_fix((one + decimal.Decimal(j) / 128).ln(), F) for j in range(128)], NL),
        "INVH": _table([_fix(one / (2 + decimal.Decimal(j) / 64), 96) for j in range(128)], NL),
        "RECIP": {k: _fix(one / k, 96) for k in range(2, kmax_ln + 1)},
        "KLN": kmax_ln,
    }


def _factorial(k):
    f = 1
    for i in range(2, k + 1):
        f *= i
    return f


def _horner(x, coefs, subtract):
    """``h = c0; h = c_i + x*h`` (or ``c_i - x*h``) for the pure-fraction coefficients ``coefs`` (highest
    degree first), each product truncated: one loop body in the program (``fori_loop``)."""
    table = [jnp.asarray(t) for t in _table(coefs, NL)]
    h0 = tuple(jnp.broadcast_to(t[0], x[0].shape) for t in table)

    def body(i, h):
        c = tuple(t[i] for t in table)
        xh = _mulhi(x, h)
        return _sub(c, xh) if subtract else _add(c, xh)[0]

    return lax.fori_loop(1, len(coefs), body, h0)


# ---------------------------------------------------------------------------------------------
# Rounding a normalised fixed-point significand once


def _round_fixed(z, e, sign, tol, fmt):
    """Round ``z * 2**(e - (32n - 1))`` (``z`` normalised: its top bit set) to nearest in ``fmt``
    (normal, subnormal, overflow to infinity). ``tol``: the error bound of ``z`` in its units.
    Returns (bits with ``sign``, ambiguous: a midpoint lies within ``tol`` of ``z``)."""
    m = fmt.man_bits
    bias = (1 << (fmt.nbits - m - 2)) - 1
    emin = 1 - bias
    kb = jnp.where(e >= emin, m + 1, m + 1 - (emin - e))  # significant bits kept (<= 0: none)
    zero_out = kb < 0
    kbc = jnp.clip(kb, 0, m + 1).astype(U32)
    top = len(z) - 1
    zeros = tuple(jnp.zeros_like(kbc) for _ in range(top))
    half = (*zeros, jnp.left_shift(U32(1), 31 - kbc))  # 2**(s - 1), s = 32n - kb dropped bits
    z1, carry = _add(z, half)
    low_mask = jnp.where(kbc == 0, _ONES, jnp.left_shift(U32(1), 32 - jnp.maximum(kbc, 1)) - 1)
    z2, _ = _add(z1, tol)
    low = (*z2[:top], z2[top] & low_mask)  # (z + half + tol) mod 2**s
    amb = ~_lt(_add(tol, tol)[0], low) & ~zero_out
    q = jnp.where(kbc == 0, np.uint32(0), z1[top] >> (32 - jnp.maximum(kbc, 1)))
    q = q + (carry.astype(U32) << kbc)
    normal = e >= emin
    eb = jnp.maximum(e + bias, 0).astype(U32)
    nbits = (eb << np.uint32(m)) + q - np.uint32(1 << m)
    mag = jnp.where(normal, nbits, q)
    mag = jnp.where(normal & ((e + bias >= (1 << (fmt.nbits - m - 1)) - 1) | (mag >= fmt.exp)), fmt.exp, mag)
    mag = jnp.where(zero_out, np.uint32(0), mag)
    return (sign.astype(U32) << np.uint32(fmt.nbits - 1)) | mag, amb


def _normal_fields(b):
    """(24-bit significand, unbiased exponent) of normal float32 bits."""
    return (b & _MAN) | np.uint32(0x800000), ((b >> 23) & 0xFF).astype(I32) - 127


# ---------------------------------------------------------------------------------------------
# e**x


def exp_f32_bits(x, fmt=N.F32):
    """e**x of float32 bits ``x`` (subnormal inputs as given: flush first if the profile says so),
    rounded once to ``fmt`` (float32, or half for ExpSub). Returns (bits, ambiguous)."""
    K = _consts()
    x = jnp.asarray(x, U32)
    a = x & _ABS
    neg = (x >> 31) == 1
    nan = a > _EXP
    tiny = a <= np.uint32(0x33000000)  # |x| <= 2**-25: e**x rounds to 1 in every format
    big = a >= np.uint32(0x42D00000)  # |x| >= 104: overflow, or below half the smallest subnormal
    general = ~(nan | tiny | big)
    xs = jnp.where(general, x, np.uint32(0x3F800000))
    sig, E = _normal_fields(xs)
    X = _shl((sig, jnp.zeros_like(sig), jnp.zeros_like(sig)), E + 65)  # |x| * 2**88, exact
    X = _sel(neg & general, _neg(X), X)
    # n = floor(x * 64 / ln2): a float32 estimate (normal operands), corrected below
    xf = lax.bitcast_convert_type(xs, jnp.float32)
    n = jnp.floor(xf * jnp.float32(64.0 / np.log(2.0))).astype(I32)
    P = _mul(_const(K["C120"], 4), (jnp.abs(n).astype(U32),))[1:4]  # |n| * ln2/64 at 2**-88
    r = _sub(X, _sel(n < 0, _neg(P), P))
    c88 = _const(K["C88"], NL)
    rneg = (r[2] >> 31) == 1
    r = _sel(rneg, _add(r, c88)[0], r)
    n = n - rneg.astype(I32)
    rbig = ~_lt(r, c88)
    r = _sel(rbig, _sub(r, c88), r)
    n = n + rbig.astype(I32)
    R = _shl(r, jnp.full(n.shape, 8, I32))  # pure fraction, < 2**-6.4
    h = _horner(R, [K["IFACT"][k] for k in range(K["KEXP"], 1, -1)], subtract=False)
    p = _add(R, _mulhi(R, _mulhi(R, h)))[0]  # e**r - 1
    j = n & 63
    k = n >> 6
    th = _take(K["TH"], j)  # 2**(j/64) / 2
    Y, c = _add(th, _mulhi(th, p))
    Y = _sel(c, tuple(jnp.full(n.shape, _ONES) for _ in range(NL)), Y)
    bits, amb = _round_fixed(Y, k, jnp.zeros_like(x), _const(EXP_ERR, NL), fmt)
    one = np.uint32(((1 << (fmt.nbits - fmt.man_bits - 2)) - 1) << fmt.man_bits)
    bits = jnp.where(tiny, one, bits)
    bits = jnp.where(big, jnp.where(neg, np.uint32(0), fmt.exp), bits)
    bits = jnp.where(nan, fmt.qnan, bits)
    return bits, amb & general


# ---------------------------------------------------------------------------------------------
# ln x


def ln_f32_bits(x):
    """ln x of float32 bits ``x`` (subnormal inputs as given), rounded once to float32.
    Returns (bits, ambiguous)."""
    K = _consts()
    x = jnp.asarray(x, U32)
    a = x & _ABS
    nan = (a > _EXP) | (((x >> 31) == 1) & (a != 0))
    zero = a == 0
    inf = x == _EXP
    one = x == np.uint32(0x3F800000)
    general = ~(nan | zero | inf | one)
    xs = jnp.where(general, x, np.uint32(0x40000000))
    e8 = ((xs >> 23) & 0xFF).astype(I32)
    man = xs & _MAN
    sh = jnp.where(e8 == 0, lax.clz(jnp.where(man == 0, np.uint32(1), man)).astype(I32) - 8, 0)
    sig = jnp.where(e8 == 0, man << sh.astype(U32), man | np.uint32(0x800000))
    E = jnp.where(e8 == 0, -126 - sh, e8 - 127)
    j = ((sig >> 16) & 127).astype(I32)
    u = sig & np.uint32(0xFFFF)
    t = _shr_const(_mul(_take(K["INVH"], j), (u,)), 22)[:NL]  # u * 2**-23 / (1 + j/128)
    h = _horner(t, [K["RECIP"][k] for k in range(K["KLN"], 1, -1)], subtract=True)
    lnp = _sub(t, _mulhi(t, _mulhi(t, h)))  # ln(1 + t), pure fraction
    EL = _mul(_const(K["LN2_120"], 4), (jnp.abs(E).astype(U32),))[1:4]
    EL = _sel(E < 0, _neg(EL), EL)
    V = _add(_add(EL, _take(K["LNC"], j))[0], _shr_const(lnp, 96 - F))[0]
    sign = V[NL - 1] >> 31
    mag = _sel(sign == 1, _neg(V), V)
    c = jnp.minimum(_clz(mag), 32 * NL - 1)
    Z = _shl(mag, c)
    tol = _shl(_const(LN_ERR, NL), c)
    bits, amb = _round_fixed(Z, (32 * NL - 1 - F) - c, sign, tol, N.F32)
    bits = jnp.where(one, np.uint32(0), bits)
    bits = jnp.where(zero, np.uint32(0xFF800000), bits)
    bits = jnp.where(inf, _EXP, bits)
    bits = jnp.where(nan, N.F32.qnan, bits)
    return bits, amb & general


# ---------------------------------------------------------------------------------------------
# 1 / sqrt(x)


def rsqrt_f32_bits(x):
    """1/sqrt(x) of float32 bits ``x`` (subnormal inputs as given), correctly rounded (exact
    midpoint tests). Returns bits."""
    x = jnp.asarray(x, U32)
    a = x & _ABS
    nan = (a > _EXP) | (((x >> 31) == 1) & (a != 0))
    zero = a == 0
    inf = x == _EXP
    general = ~(nan | zero | inf)
    xs = jnp.where(general, x, np.uint32(0x3F800000))
    e8 = ((xs >> 23) & 0xFF).astype(I32)
    man = xs & _MAN
    sh = jnp.where(e8 == 0, lax.clz(jnp.where(man == 0, np.uint32(1), man)).astype(I32) - 8, 0)
    sig = jnp.where(e8 == 0, man << sh.astype(U32), man | np.uint32(0x800000))
    E = jnp.where(e8 == 0, -126 - sh, e8 - 127)  # x = sig * 2**(E - 23)
    odd = (E & 1) == 1
    mint = jnp.where(odd, sig << 1, sig)  # M = mint * 2**-23 in [1, 4), x = M * 4**k
    k = E >> 1
    mf = mint.astype(I32).astype(jnp.float32) * jnp.float32(2.0**-23)  # exact, normal
    g = lax.rsqrt(mf)
    g = g * (jnp.float32(1.5) - jnp.float32(0.5) * mf * g * g)  # one Newton step
    q0 = jnp.round(g * jnp.float32(2.0**24)).astype(I32)
    count = jnp.zeros(q0.shape, I32)
    for d in range(-3, 3):
        t = (2 * (q0 + d) + 1).astype(U32)
        hi, lo = N.mul_u32_wide(t, t)
        prod = _mul((lo, hi), (mint,))
        # SPEC (correctly rounded): 1/sqrt(M) > (2q+1)/2**25  <=>  (2q+1)**2 * mint < 2**73
        count = count + (prod[2] < np.uint32(1 << 9)).astype(I32)
    q = (q0 - 3 + count).astype(U32)  # the rounded significand: value = q * 2**(-24 - k)
    bits = ((126 - k).astype(U32) << np.uint32(23)) + q - np.uint32(1 << 23)
    bits = jnp.where(zero, (x & np.uint32(0x80000000)) | _EXP, bits)
    bits = jnp.where(inf, np.uint32(0), bits)
    return jnp.where(nan, N.F32.qnan, bits)
