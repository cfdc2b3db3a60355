"""The one scalar rule, shared by the fast path (``api/_args.scalar_bits``) and the reference
(``reference/numerics.scalar_to_bits``).

An Ascend C scalar argument is a ``const T&``: the C++ call site converts whatever the kernel wrote
to T, silently (a double truncated to an integer, 70000 wrapped into int16). The model does not
guess which conversion a kernel author meant. Every host scalar -- a Python ``int``/``float``/
``bool``/``complex``, any NumPy or ml_dtypes scalar, a 0-d NumPy array or a concrete 0-d jax array --
goes through one rule:

* integer T: accepted when its value is an integer inside T's range (``2.0`` is 2; ``2.5``, NaN,
  ``70000`` for int16 are ``UsageError``s naming the API, the argument, the value and T's range);
* floating T: a finite value is rounded to nearest-even once (as a C++ literal ``0.1f`` is) and is
  accepted unless it lies beyond T's largest finite value (it would become an infinity); an
  explicit infinity or NaN is passed through.

An integer *argument* (a length, an element offset, a count, a byte size: a C++ integer type whose
value the kernel means exactly) has a stricter rule, ``host_int``: a Python int, a NumPy integer or a
concrete 0-d jax integer array, never a bool or a float (not even ``8.0``), inside the argument's
range; anything else is a ``UsageError`` naming the argument. A traced (jax tracer) integer stays
traced and is checked per case where it is used.

``cast_scalar(value, dtype)`` gives the C++ conversion on purpose (integers truncated toward zero
and wrapped modulo 2**N; floats rounded, overflowing to infinity) for a kernel that wants it.
This module imports neither jax nor the reference (both implementations import it).
"""

import math
import sys
from fractions import Fraction

import numpy as np

from . import dtypes as _dt
from .errors import IndexUsageError, UsageError


def _is_tracer(v):
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(v, jax.core.Tracer)


def _is_jax_array(v):
    return type(v).__module__.startswith(("jax", "jaxlib"))


def is_host_scalar(v):
    """A value the rule applies to (known on the host): a Python or NumPy/ml_dtypes number, a 0-d
    NumPy array, or a concrete (not traced) 0-d jax array."""
    if _is_tracer(v):
        return False
    if isinstance(v, (bool, int, float, complex, Fraction, np.generic)):
        return True
    if type(v).__module__.startswith("ml_dtypes"):
        return True
    if isinstance(v, np.ndarray) or _is_jax_array(v):
        return getattr(v, "ndim", None) == 0
    return False


def host_value(api, value, profile, argument="scalarValue"):
    """The exact Python value (int, float or complex) of a host scalar; UsageError for anything
    that is not a number (a string, None, a list, a traced value)."""
    v = value
    if isinstance(v, np.ndarray) or _is_jax_array(v):
        if _is_tracer(v) or getattr(v, "ndim", None) != 0:
            raise UsageError(api, argument, _show(value), "a scalar number", profile)
        v = np.asarray(v)[()]
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)) or type(v).__module__.startswith("ml_dtypes"):
        try:
            return float(v)  # exact: every float16/bfloat16/float32 value is a double
        except (TypeError, ValueError):
            pass
    if isinstance(v, Fraction):
        return v
    if isinstance(v, (complex, np.complexfloating)):
        return complex(v)
    raise UsageError(
        api,
        argument,
        _show(value),
        "a number: a Python int/float, a NumPy scalar or a concrete 0-d jax array",
        profile,
    )


def host_int(api, argument, value, lo=None, hi=None, profile=None, allowed=None, detail=""):
    """The one rule for a static integer argument (module docstring): ``value`` as a Python int when
    it is a Python int, a NumPy integer or a concrete 0-d jax integer array inside ``[lo, hi]``
    (either bound None: open); a bool, a float (integral or not, NaN, inf), a string, an array or a
    tracer is a ``UsageError`` naming ``argument``; ``allowed`` replaces the default description,
    ``detail`` is added to the message of a value out of range."""
    if allowed is None:
        if hi is None:
            allowed = "an integer" if lo is None else f"an integer >= {lo}"
        else:
            allowed = f"an integer <= {hi}" if lo is None else f"an integer in [{lo}, {hi}]"
    v = value
    if (isinstance(v, np.ndarray) or _is_jax_array(v)) and not _is_tracer(v) and getattr(v, "ndim", 1) == 0:
        v = np.asarray(v)[()]  # a 0-d array: its element
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        shown = value if isinstance(value, (int, float, str, np.generic)) or value is None else _show(value)
        raise UsageError(api, argument, shown, allowed, profile, _not_int(value))
    n = int(v)
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        raise UsageError(api, argument, n, allowed, profile, detail)
    return n


def _not_int(v):
    if isinstance(v, (bool, np.bool_)):
        return "a bool is not an integer argument"
    if isinstance(v, (float, np.floating)):
        return "a float is not an integer argument (not even an integral one)"
    if _is_tracer(v):
        return "a traced value is not allowed here"
    return ""


def element_offset(api, offset, length, profile=None):
    """``operator[]`` of a tensor of ``length`` elements: ``(offset, length - offset)`` for a host
    integer ``offset`` in ``[0, length]`` (``host_int``; past the end: ``IndexUsageError``, a
    UsageError that is also an IndexError), ``(offset, length)`` for a traced integer (checked per
    case where the tensor is used). A float, a bool or a traced float is a ``UsageError``."""
    if _is_tracer(offset):
        dt = np.dtype(offset.dtype)
        if dt.kind not in "iu" or offset.ndim != 0:
            raise UsageError(
                api,
                "offset",
                f"traced {dt}{list(offset.shape)}",
                "an integer (a traced int32 scalar)",
                profile,
            )
        return offset, length
    n = host_int(api, "offset", offset, profile=profile, allowed=f"an integer in [0, {length}]")
    if not 0 <= n <= length:
        raise IndexUsageError(
            api,
            "offset",
            n,
            f"an integer in [0, {length}]",
            profile,
            f"the tensor has {length} elements: offset {n} is outside it",
        )
    return n, length - n


def _show(v):
    return v if isinstance(v, (int, float, complex, str)) or v is None else f"{type(v).__name__}({v!r})"


def int_range(d):
    if d.kind == "uint":
        return 0, (1 << d.bits) - 1
    return -(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1


_FLOAT_LIMITS = {  # (mantissa bits, largest exponent)
    "half": (10, 15),
    "bfloat16": (7, 127),
    "float32": (23, 127),
    "float64": (52, 1023),
}


def float_overflow_bound(d):
    """The smallest magnitude that rounds to infinity in T (round to nearest-even): the largest
    finite value plus half an ulp."""
    man, emax = _FLOAT_LIMITS[d.name]
    return Fraction(2) ** (emax + 1) - Fraction(2) ** (emax - man - 1)


def check_scalar(api, value, dtype, profile, argument="scalarValue"):
    """Apply the scalar rule (module docstring) to a host scalar for element type ``dtype``.
    Returns the value the conversion to T starts from: an int in T's range for integer T; an int,
    float or Fraction (finite and not overflowing, or an explicit inf/NaN float) for floating T;
    a complex for complex T."""
    d = _dt.as_dtype(dtype)
    v = host_value(api, value, profile, argument)
    if d.kind == "complex":
        return complex(v)
    if isinstance(v, complex):
        if v.imag != 0:
            raise UsageError(api, argument, value, f"a real number ({d.cpp})", profile)
        v = v.real
    if d.is_int:
        lo, hi = int_range(d)
        allowed = f"an integer ({d.cpp}) in [{lo}, {hi}]"
        hint = "use aj.cast_scalar(value, T) for the C++ conversion (truncate, wrap)"
        if isinstance(v, float) and not math.isfinite(v):
            raise UsageError(api, argument, value, allowed, profile, f"{v} has no integer value; {hint}")
        if isinstance(v, (float, Fraction)):
            if v != math.trunc(v):
                raise UsageError(api, argument, value, allowed, profile, f"not an integer; {hint}")
            v = int(v)
        if not lo <= v <= hi:
            raise UsageError(api, argument, value, allowed, profile, f"outside {d.name}'s range; {hint}")
        return v
    # floating T
    if isinstance(v, float) and not math.isfinite(v):
        return v
    if abs(Fraction(v)) >= float_overflow_bound(d):
        man, emax = _FLOAT_LIMITS[d.name]
        big = float((Fraction(2) - Fraction(2) ** -man) * Fraction(2) ** emax)
        raise UsageError(
            api,
            argument,
            value,
            f"a number of magnitude <= {big:g} ({d.cpp}), inf or NaN",
            profile,
            "a finite value this large would round to infinity; pass inf explicitly, or use "
            "aj.cast_scalar(value, T) for the C++ conversion",
        )
    return v


def cast_scalar(value, dtype):
    """The C++ conversion of ``value`` to T as a NumPy scalar of T (which the scalar rule then
    accepts as is): integer T -- truncate toward zero, wrap modulo 2**N (NaN/inf: 0); floating T --
    round to nearest-even, overflow to infinity. ``aj.cast_scalar(70000, aj.int16)`` is 4464."""
    d = _dt.as_dtype(dtype)
    v = host_value("cast_scalar", value, None, "value")
    if d.kind == "complex":
        raise UsageError("cast_scalar", "dtype", d.name, "a real element type", None)
    if isinstance(v, complex):
        v = v.real
    if d.is_int:
        if isinstance(v, float) and not math.isfinite(v):
            n = 0
        else:
            n = math.trunc(v)
        n &= (1 << d.bits) - 1
        return np.array(n, dtype=np.uint64).astype(d.bits_dtype).view(d.np_dtype)[()]
    with np.errstate(over="ignore"):
        return d.np_dtype.type(float(v))
