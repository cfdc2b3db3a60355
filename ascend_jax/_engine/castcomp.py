"""Fast-path element functions of the DEQSCALE conversions (SetDeqScale with Cast int32 -> half,
AddDeqRelu) and of the cast composites AddReluCast, SubReluCast, MulCast (复合计算/).

Every step is the stand-alone API's element function (``elem_math``: Add, Sub, Mul, Relu rounded and
finished in the source type U) followed by one conversion to the destination type T by the
Cast engine (``convert.py``) -- docs/MODEL.md "Cast composites".

DEQSCALE (``deq_half``): the int32 lane times the register's half scale, exactly (a 31-bit magnitude
times an 11-bit significand fits 64 bits), rounded once to half by RINT, overflow by the conversion
saturation rule of ``convert.py``.
"""

import dataclasses

import jax.numpy as jnp

from .. import dtypes as _dt
from . import convert as CV
from . import elem_math as EM

U32 = jnp.uint32
HALF = _dt.as_dtype("half")
INT32 = _dt.as_dtype("int32")
RINT = CV.MODES["RINT"]

# the composites of one (U, T) program; ``dyn["op"]`` is the index
CAST_OPS = ("AddReluCast", "SubReluCast", "MulCast")


def deq_half(x, deq, profile, ctrl):
    """int32 lanes ``x`` times the half scale in DEQSCALE bits 0~15 (``deq``: uint32[2], low word
    first), rounded once to half (RINT): uint32 lanes holding half bits.
    SPEC: "Deq(x) = Cast(x × scale)"; "采用RINT舍入方式" (AddDeqRelu.md); the page's 2^17 scaling
    ("防溢出保护") cancels exactly. Specials (CHOICE): a NaN scale or 0 × inf gives the canonical NaN,
    x × inf gives inf of the product's sign, a zero product is a zero of the product's sign."""
    sat = CV.saturating(profile, ctrl)
    neg, _, mag, _, _, _ = CV.decode(x, INT32)
    sbits = jnp.broadcast_to(deq[..., 0] & U32(0xFFFF), x.shape)
    sneg, _, sm, se, snan, sinf = CV.decode(sbits, HALF)
    # 64-bit product of a magnitude <= 2**31 and a significand < 2**11
    pa = (mag & U32(0xFFFF)) * sm
    pb = (mag >> U32(16)) * sm
    lo_part = pb << U32(16)
    lo = lo_part + pa
    hi = (pb >> U32(16)) + (lo < lo_part).astype(U32)
    n = neg ^ sneg
    rh, rl = CV.to_float(n, hi, lo, se, RINT, HALF, sat)
    zero_x = mag == 0
    rh, rl = CV._float_specials(rh, rl, n, snan | (sinf & zero_x), sinf & ~zero_x, HALF)
    return rl & U32(0xFFFF)


def cast_chain(op, x, y, src, dst, profile, ctrl):
    """One composite's lanes: ``op`` in CAST_OPS, ``x``/``y`` lanes of type ``src`` -> ``dst`` bits."""
    if op == "AddReluCast":
        v = EM.relu(EM.add(x, y, src, profile, ctrl), src, profile, ctrl)
    elif op == "SubReluCast":
        v = EM.relu(EM.sub(x, y, src, profile, ctrl), src, profile, ctrl)
    else:
        v = EM.mul(x, y, src, profile, ctrl)
    # CHOICE: the pages name no round mode for the Cast step: RINT (CAST_NONE's rule for a lossy
    # conversion; the result examples' 1.5 -> 2 agree)
    return CV.convert(v, src, dst, RINT, profile, ctrl)


@dataclasses.dataclass(frozen=True)
class CastOpsElem:
    """The strided core's element function of AddReluCast / SubReluCast / MulCast for one (U, T):
    ``dyn["op"]`` selects the API among ``ops`` (static: the ones the product has for the pair)."""

    src: object
    ops: tuple

    def __call__(self, x, y, scalar, dtype, profile, ctrl, dyn):
        r = None
        for op in self.ops:
            v = cast_chain(op, x, y, self.src, dtype, profile, ctrl)
            r = v if r is None else jnp.where(dyn["op"] == CAST_OPS.index(op), v, r)
        return r


@dataclasses.dataclass(frozen=True)
class DeqElem:
    """Cast int32 -> half under DEQSCALE (one source), or AddDeqRelu (two sources: the int32 sum
    wraps or saturates as Add does, then Deq, then Relu in half)."""

    add_relu: bool = False

    def __call__(self, *args):
        if self.add_relu:
            x, y, scalar, dtype, profile, ctrl, dyn = args
            # SPEC: "dst_i = Relu(Deq(src0_i + src1_i))" (AddDeqRelu.md)
            s = EM.add(x, y, INT32, profile, ctrl)
            return EM.relu(deq_half(s, dyn["deq"], profile, ctrl), HALF, profile, ctrl)
        x, scalar, dtype, profile, ctrl, dyn = args
        return deq_half(x, dyn["deq"], profile, ctrl)


def pack_deq(scale_bits, offset=None, sign_mode=None):
    """The 64-bit DEQSCALE value as uint32[2] (low word first). SPEC (SetDeqScale.md 表1): scale in
    bits 0~15 (half) or 0~31 (float); offset a 9-bit signed integer in bits 37~45; signMode bit 46."""
    lo = jnp.asarray(scale_bits, U32)
    if offset is None:
        return jnp.stack([lo, jnp.zeros_like(lo)])
    off9 = jnp.asarray(offset, jnp.int32).astype(U32) & U32(0x1FF)
    sg = jnp.asarray(sign_mode, bool).astype(U32)
    return jnp.stack([lo, (off9 << U32(5)) | (sg << U32(14))])


@dataclasses.dataclass(frozen=True)
class MulsCastElem:
    """MulsCast(ISASI): the float32 lane times the float32 scalar (Muls: one rounding), then Cast to
    half by CAST_ROUND. SPEC: "将源操作数按照CAST_ROUND模式取到half所能表示的数 ... 溢出默认按照饱和处理"."""

    def __call__(self, x, scalar, dtype, profile, ctrl, dyn):
        f32 = _dt.as_dtype("float32")
        v = EM.mul(x, jnp.broadcast_to(jnp.asarray(scalar, U32), x.shape), f32, profile, ctrl)
        return CV.convert(v, f32, dtype, CV.MODES["ROUND"], profile, ctrl)
