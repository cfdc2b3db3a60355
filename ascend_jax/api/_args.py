"""Argument normalisation shared by the API families: static checks on Python values (raising
UsageError at trace time), packing of traced values, repeat buckets."""

import dataclasses
import fractions
import functools
import math

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

from .. import _scalar
from .._engine import static as S
from ..errors import NotModelledError, UsageError
from ..tensor import MASK_PLACEHOLDER, LocalTensor

U32 = jnp.uint32
I32 = jnp.int32
_U64_MAX = 2**64 - 1


@functools.cache
def zeros_const(shape=(), dtype="bool"):
    """``jnp.zeros(shape, dtype)`` built once: concrete even when first asked for inside a trace
    (never a tracer kept), shared by every call. The eager API paid ~0.3 ms for each neutral flag
    or field it built (issue 36: an invalid-static check made a dozen)."""
    with jax.ensure_compile_time_eval():
        return jnp.zeros(shape, dtype)


def is_static(x):
    return isinstance(x, (int, float, bool, np.integer, np.floating)) and not isinstance(x, jax.core.Tracer)


def is_concrete_array(x):
    return not isinstance(x, jax.core.Tracer)


def bucket(n):
    """Static repeat bucket for ``n`` repeats: 1, 4, 16, 64, 256, 1024, ... (powers of four).

    Coarse on purpose: a compilation costs about a second on CPU while padding a few repeats costs
    microseconds, so fewer buckets means fewer compilations across a kernel or a sweep."""
    n = max(int(n), 1)
    return 1 << (2 * math.ceil(math.log2(n) / 2)) if n > 1 else 1


def check_tensor(api, argname, t, profile):
    if not isinstance(t, LocalTensor):
        raise UsageError(api, argname, type(t).__name__, "a LocalTensor", profile)


def check_same_dtype(api, profile, **tensors):
    names = list(tensors)
    d0 = tensors[names[0]].dtype
    for n in names[1:]:
        if tensors[n].dtype != d0:
            raise UsageError(
                api,
                f"{n}.dtype",
                tensors[n].dtype.name,
                d0.name,
                profile,
                f"{names[0]} and {n} must have the same element type",
            )


def check_modelled(api, dtype, profile, int64_lanes=False, wide_lanes=False):
    """``int64_lanes``: the caller's pipeline handles 64-bit integer lanes as uint32 pairs;
    ``wide_lanes``: it handles every 8-byte T (int64/uint64/double/complex64) and complex32 as bit
    patterns (uint32 pairs / uint32)."""
    if int64_lanes and (dtype.kind in ("int", "uint", "complex") and dtype.itemsize in (4, 8)):
        return
    if wide_lanes:
        return
    if dtype.kind == "complex" or dtype.itemsize == 8:
        raise NotModelledError(
            f"{api}: dtype {dtype.name} is documented on profile '{profile.name}' but not modelled yet "
            "(64-bit and complex lanes need a 64-bit integer path)"
        )


def static_int(api, argname, value, lo, hi, profile, detail=""):
    """The integer arguments' one rule (counts, repeat times, strides, ...), static half: a Python
    or NumPy integer in [lo, hi] is returned as an int; a bool, a float (even 8.0), NaN or a value
    out of range is a UsageError naming the argument (``_scalar.host_int``). Traced values pass
    through (``traced_range_bad`` checks them per case), as do jax arrays and NumPy arrays of at
    least one dimension (per-case values); a string, None, a 0-d array of floats... are UsageErrors."""
    if isinstance(value, (jax.Array, jax.core.Tracer)) or (isinstance(value, np.ndarray) and value.ndim):
        return value
    return _scalar.host_int(api, argname, value, lo, hi, profile, f"an integer in [{lo}, {hi}]", detail)


def traced_range_bad(value, lo, hi):
    """The integer arguments' one rule, traced half: per case, True when the value is not an integer
    in [lo, hi] -- out of range, or of a float dtype and not integral (NaN, inf, 100.7), or a bool
    (BAD_PARAM, as a static one is a UsageError). False for host values (``static_int`` checked them)."""
    if is_static(value) or isinstance(value, np.bool_):
        return zeros_const((), "bool")
    v = jnp.asarray(value)
    if v.dtype == jnp.bool_:
        return jnp.ones(v.shape, bool)
    bad = (v < lo) | (v > hi)
    if jnp.issubdtype(v.dtype, jnp.inexact):
        bad = bad | ~(v == jnp.floor(v))  # NaN compares unequal: bad too
    return bad


def addr_of(t):
    """A tensor's byte address as int32: static (NumPy) when the kernel fixed it (static slices)."""
    return S.i32(t.addr)


# -- masks ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class MaskArg:
    kind: str  # "continuous" | "bitwise" | "register"
    cont: object = None  # uint32[2] (lo, hi) of the continuous value
    words: object = None  # uint32[8] bitwise words
    static_zero: bool = False  # statically known all-zero
    traced_bad: object = None  # bool: traced words violate the dtype's rules


def parse_mask(api, mask, dtype, profile, is_set_mask):
    """Normalise the C++ ``mask`` / ``mask[]`` argument (see docs/MODEL.md)."""
    n_words64 = profile.vector_mask_bits // 64
    if not is_set_mask:
        if mask is not MASK_PLACEHOLDER and mask is not None:
            raise UsageError(
                api,
                "mask",
                mask,
                "MASK_PLACEHOLDER",
                profile,
                "with isSetMask=False the mask comes from SetVectorMask",
            )
        return MaskArg("register")
    if mask is MASK_PLACEHOLDER or mask is None:
        raise UsageError(
            api, "mask", mask, "an int (continuous) or a list of uint64 words (bitwise)", profile
        )
    if isinstance(mask, (list, tuple)) or (hasattr(mask, "ndim") and getattr(mask, "ndim", 0) == 1):
        return _parse_bitwise(api, mask, dtype, profile, n_words64)
    # continuous
    if is_static(mask):
        if (
            isinstance(mask, bool)
            or not isinstance(mask, (int, np.integer))
            or not 0 <= int(mask) <= _U64_MAX
        ):
            raise UsageError(
                api,
                "mask",
                mask,
                "an integer in [0, 2**64-1] (values above the lane count are clamped)",
                profile,
            )
        m = int(mask)
        cont = jnp.asarray([m & 0xFFFFFFFF, m >> 32], U32)
        return MaskArg("continuous", cont=cont, static_zero=(m == 0))
    v = jnp.asarray(mask)
    if jnp.issubdtype(v.dtype, jnp.signedinteger):
        bad = v < 0
        v = jnp.maximum(v, 0)
    else:
        bad = zeros_const((), "bool")
    cont = jnp.stack([v.astype(U32), jnp.zeros((), U32)])
    return MaskArg("continuous", cont=cont, traced_bad=bad)


def excess_mask_word(words, lanes):
    """Index of the uint64 word holding the lowest set bit at or above ``lanes``, or None."""
    value = sum(int(w) << (64 * i) for i, w in enumerate(words))
    excess = value >> lanes
    if not excess:
        return None
    return (lanes + (excess & -excess).bit_length() - 1) // 64


def word_allowed(i, lanes):
    """The values word ``i`` of a bitwise mask may hold when a repeat has ``lanes`` lanes."""
    k = lanes - 64 * i
    return "0" if k <= 0 else ("[0, 2**64-1]" if k >= 64 else f"[0, 2**{k}-1]")


def _parse_bitwise(api, mask, dtype, profile, n_words64):
    size = dtype.itemsize
    if isinstance(mask, (list, tuple)) and all(is_static(w) for w in mask):
        # SPEC (MODEL.md): the C++ mask[] has vector_mask_bits/64 words (2, or 4 on 950); a shorter
        # list is accepted down to the words the type's lanes need, as the reference does.
        lanes = min(profile.repeat_bytes // size, profile.vector_mask_bits)
        need = min(n_words64, max(1, -(-lanes // 64)))
        if not need <= len(mask) <= n_words64:
            raise UsageError(
                api,
                "mask",
                list(mask),
                (
                    f"a list of {need} uint64 words (low word first)"
                    if need == n_words64
                    else f"a list of {need} to {n_words64} uint64 words (low word first)"
                ),
                profile,
            )
        for i, w in enumerate(mask):  # uint64_t words: no floats or bools (as the reference)
            if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or not 0 <= int(w) <= _U64_MAX:
                raise UsageError(api, f"mask[{i}]", w, "[0, 2**64-1]", profile)
        words = [int(w) for w in mask] + [0] * (n_words64 - len(mask))
        # SPEC: 掩码/通用说明: 32-bit T "maskHigh 必须为0"; 64-bit T maskLow in [0, 2^32-1], maskHigh 0.
        #       Written generally: no bit at or above the lane count; the word named is the one
        #       holding the lowest such bit (the reference names the same word).
        i = excess_mask_word(words, lanes)
        if i is not None:
            raise UsageError(
                api,
                f"mask[{i}]",
                hex(words[i]),
                word_allowed(i, lanes),
                profile,
                f"a {dtype.name} repeat has {lanes} lanes, so only mask bits 0..{lanes - 1} exist",
            )
        w32 = []
        for w in words:
            w32 += [w & 0xFFFFFFFF, w >> 32]
        w32 += [0] * (8 - len(w32))
        return MaskArg("bitwise", words=jnp.asarray(w32, U32), static_zero=not any(words))
    # traced: uint32 words (2 per uint64), low word first, padded to 8
    if isinstance(mask, (list, tuple)):
        raise UsageError(
            api,
            "mask",
            "a list with traced items",
            "Python ints, or one uint32 array (2 words per uint64, low first)",
            profile,
        )
    v = jnp.asarray(mask)
    if v.dtype != jnp.uint32:
        raise UsageError(api, "mask", f"array of {v.dtype}", "a uint32 array (2 words per uint64)", profile)
    if v.shape[-1] > 8:
        raise UsageError(api, "mask", f"{v.shape[-1]} uint32 words", "at most 8", profile)
    v = jnp.concatenate([v, jnp.zeros((8 - v.shape[-1],), U32)])
    lanes = profile.repeat_bytes // size
    limit = min(lanes, profile.vector_mask_bits)
    bad = jnp.any(v[(limit + 31) // 32 :] != 0) if limit < 256 else zeros_const((), "bool")
    return MaskArg("bitwise", words=v, traced_bad=bad)


# -- scalars --------------------------------------------------------------------------------------


_FLOAT_FORMATS = {"half": (10, -14, 15), "bfloat16": (7, -126, 127), "float32": (23, -126, 127)}


def round_to_float_bits(value, dtype):
    """Round a Python int or float to ``dtype`` exactly once (round to nearest, ties to even), as
    its bit pattern. No intermediate float32 or float64 rounding (ml_dtypes and NumPy conversions
    of Python ints and of doubles to bfloat16 round twice)."""
    if dtype.name == "float64":
        # a Python float is a double already; int -> float rounds once (to nearest, ties to even)
        try:
            return int(np.asarray(float(value), np.float64).view(np.uint64))
        except OverflowError:
            return 0xFFF0000000000000 if value < 0 else 0x7FF0000000000000
    man, emin, emax = _FLOAT_FORMATS[dtype.name]
    v = float(value) if isinstance(value, (float, np.floating)) else value
    if isinstance(v, float) and dtype.name != "bfloat16":
        # IEEE conversion of a double to binary16 / binary32 is one rounding to nearest, ties to
        # even (NumPy's double -> half is its own correctly rounded routine, not via float32):
        # the exact path below gives the same bits (tests/test_numerics.py), ~20x slower
        with np.errstate(over="ignore"):
            return int(np.asarray(dtype.np_dtype.type(v)).view(dtype.bits_dtype))
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return (
            int(np.asarray(np.float32(v)).view(np.uint32)) >> (32 - dtype.bits)
            if dtype.name != "half"
            else int(np.asarray(np.float16(v)).view(np.uint16))
        )
    q = fractions.Fraction(v)
    neg = q < 0 or (q == 0 and math.copysign(1.0, float(v)) < 0)
    q = abs(q)
    if q == 0:
        r = fractions.Fraction(0)
    else:
        e = q.numerator.bit_length() - q.denominator.bit_length()
        if fractions.Fraction(2) ** e > q:
            e -= 1
        k = max(e, emin) - man  # exponent of the last kept bit
        r = round(q / fractions.Fraction(2) ** k) * fractions.Fraction(2) ** k
    if r >= fractions.Fraction(2) ** (emax + 1):
        mag = ((1 << (dtype.bits - 1 - man)) - 1) << man  # infinity
    else:
        x = float(r)  # exact: r has at most man+1 significant bits within the format's range
        if dtype.name == "bfloat16":
            mag = int(np.asarray(ml_dtypes.bfloat16(x)).view(np.uint16))
        else:
            mag = int(np.asarray(dtype.np_dtype.type(x)).view(dtype.bits_dtype))
    return mag | ((1 << (dtype.bits - 1)) if neg else 0)


def host_scalar_bits(api, value, dtype, profile, argument="scalarValue"):
    """``scalar_bits`` of a host scalar (not complex) as NumPy uint32 (no device array: the fuzz
    families stack thousands of them per batch)."""
    value = _scalar.check_scalar(api, value, dtype, profile, argument)  # the one scalar rule (_scalar.py)
    if dtype.is_float:
        b = round_to_float_bits(value, dtype)
    else:
        b = int(value) & ((1 << dtype.bits) - 1)
    if dtype.itemsize == 8:  # 64-bit lanes travel as (low, high) uint32 words
        return np.array([b & 0xFFFFFFFF, b >> 32], np.uint32)
    return np.uint32(b)


def scalar_bits(api, value, dtype, profile, argument="scalarValue"):
    """The scalar converted to T (C++ ``const T&``), as its bit pattern in a uint32 (64-bit types:
    a (low, high) uint32 pair; complex32: real half | imag half << 16; complex64: (real, imag))."""
    if dtype.kind == "complex" and isinstance(value, (jax.Array, jax.core.Tracer)):
        # traced: the bit pattern itself (complex32: uint32; complex64: uint32[2] (real, imag))
        v = jnp.asarray(value)
        want = (2,) if dtype.itemsize == 8 else ()
        if v.dtype != jnp.uint32 or v.shape[v.ndim - len(want) :] != want:
            raise UsageError(
                api,
                argument,
                f"traced {v.dtype}{list(v.shape)}",
                "a Python number, or its bit pattern as uint32" + ("[2]" if want else ""),
                profile,
            )
        return v
    if dtype.kind == "complex":
        from .. import dtypes as _dt

        if not isinstance(value, (int, float, complex, np.number)) or isinstance(value, jax.core.Tracer):
            raise UsageError(api, argument, type(value).__name__, "a Python number (complex)", profile)
        c = complex(value)
        comp = _dt.half if dtype.name == "complex32" else _dt.float32
        re, im = round_to_float_bits(c.real, comp), round_to_float_bits(c.imag, comp)
        if dtype.name == "complex32":
            return jnp.asarray(re | (im << 16), U32)
        return jnp.asarray([re, im], U32)
    if _scalar.is_host_scalar(value):
        return jnp.asarray(host_scalar_bits(api, value, dtype, profile, argument))
    if not isinstance(value, (jax.Array, jax.core.Tracer, np.ndarray)):
        _scalar.host_value(api, value, profile, argument)  # a string, None, a list...: UsageError
    v = jnp.asarray(value)
    if v.ndim != (1 if dtype.itemsize == 8 else 0):
        # one scalar per call (per case under jit_kernel's vmap): an array here is not a scalar
        want = "a uint32[2] (low, high) bit pattern" if dtype.itemsize == 8 else "a scalar (0-d)"
        raise UsageError(api, argument, f"an array of shape {tuple(v.shape)}", want, profile)
    if dtype.is_int and not (jnp.issubdtype(v.dtype, jnp.integer) or v.dtype == jnp.bool_):
        # a traced float for an integer T would be truncated silently: the rule wants an integer
        raise UsageError(api, argument, f"traced {v.dtype}", f"a traced integer ({dtype.cpp})", profile)
    if dtype.itemsize == 8:
        if v.dtype != jnp.uint32 or v.shape[-1:] != (2,):
            raise UsageError(
                api,
                argument,
                f"traced {v.dtype}{list(v.shape)}",
                "a Python int, or uint32[2] (low, high)",
                profile,
            )
        return v
    if dtype.is_float:
        if v.dtype == dtype.np_dtype:
            return jax.lax.bitcast_convert_type(v, jnp.dtype(dtype.bits_dtype)).astype(U32)
        x = v.astype(dtype.np_dtype)
        return jax.lax.bitcast_convert_type(x, jnp.dtype(dtype.bits_dtype)).astype(U32)
    x = v.astype(jnp.int32).astype(U32)
    return x & np.uint32((1 << dtype.bits) - 1) if dtype.bits < 32 else x
