"""Fast-path element functions of the advanced math APIs (高阶API 数学库 / 激活函数): Sigmoid, Tanh,
Log, Log2, Log10, FasterGeluV2, on bit patterns.

The pages give each function's formula, not the instruction sequence behind it. The model's CHOICE
(``apis.<Name>.sequence``, docs/MODEL.md "Advanced math: Sigmoid, Tanh, Log, Log2, Log10") is a
sequence of the model's own basic element functions (``elem_math``), each rounded once to its type
with the profile's numerics (subnormal flush, canonical NaN, CTRL saturation), as a kernel calling
those basic APIs one after the other would compute:

* Sigmoid ``muls_exp_adds_div`` (T): ``Muls(x, -1)``, ``Exp``, ``Adds(., 1)``, ``Div(1, .)``.
* Tanh ``float32_clamp_exp_ratio``: half widened exactly to float32 (``Cast``), ``Mins(., 10)``,
  ``Maxs(., -10)``, ``Muls(., 2)``, ``Exp`` = e, ``Div(Adds(e, -1), Adds(e, 1))``, float32 rounded
  back to half (``CAST_RINT``).
* Log ``ln`` (T): ``Ln``.
* Log2 ``float32_ln_muls``: half widened to float32, ``Ln``, ``Muls(., float32(1 / ln 2))``, back
  to half (``CAST_RINT``).
* Log10 ``ln_muls`` (T): ``Ln``, ``Muls(., T(1 / ln 10))``.
* FasterGeluV2 ``formula_steps`` (T; half with highPrecision in float32): the page's formula operation by
  operation (``_gelu_v2``).

The constants are the exact values rounded once to their type (NumPy's float64 -> float32 / float16
conversions round to nearest even; 1 / ln 2 and 1 / ln 10 in float64 are far from a float32 or half
midpoint). No ``import`` of ``ascend_jax.reference``.
"""

import jax.numpy as jnp
import numpy as np

from .. import dtypes as _dt
from ..errors import NotModelledError
from . import elem_math as EM

U32 = jnp.uint32

# the op codes of the shared program; FasterGeluV2 twice: in T, and with highPrecision (half in float32)
API_NAMES = ("Sigmoid", "Tanh", "Log", "Log2", "Log10", "FasterGeluV2", "FasterGeluV2")
OP_GELU_HP = 6
# the one modelled sequence of each API (the profile key apis.<Name>.sequence)
SEQUENCES = {
    "Sigmoid": "muls_exp_adds_div",
    "Tanh": "float32_clamp_exp_ratio",
    "Log": "ln",
    "Log2": "float32_ln_muls",
    "Log10": "ln_muls",
    "FasterGeluV2": "formula_steps",
}
TANH_CLAMP = 10.0  # |x| above it: tanh rounds to +-1 in float32 (1 - tanh(10) < 2**-27)

_F32 = _dt.float32


def const_bits(value, dtype):
    """``value`` (a float64) rounded once to ``dtype`` (half / float32): its bit pattern."""
    if dtype.name == "half":
        return int(np.float16(value).view(np.uint16))
    if dtype.name == "float32":
        return int(np.float32(value).view(np.uint32))
    raise NotModelledError(f"advanced math: {dtype.name} constants are not modelled")


def _k(value, dtype, like):
    return jnp.full(like.shape, np.uint32(const_bits(value, dtype)), U32)


def _gelu_v2(x, t, profile, ctrl):
    """FasterGeluV2's formula, step by step in ``t``: x * (sgn(x) * [-0.1444 * (clip(|0.7071 x|, max =
    1.769) - 1.769)**2 + 0.5] + 0.5), sgn(x) the sign of x + 1e-12 (+1 at +-0)."""
    a = EM.abs_(EM.mul(x, _k(0.7071, t, x), t, profile, ctrl), t, profile, ctrl)
    a = EM.add(EM.min_(a, _k(1.769, t, x), t, profile, ctrl), _k(-1.769, t, x), t, profile, ctrl)
    a = EM.add(
        EM.mul(EM.mul(a, a, t, profile, ctrl), _k(-0.1444, t, x), t, profile, ctrl),
        _k(0.5, t, x),
        t,
        profile,
        ctrl,
    )
    shifted = EM.add(x, _k(1e-12, t, x), t, profile, ctrl)
    neg = ((shifted >> np.uint32(t.bits - 1)) & 1) == 1
    sgn = jnp.where(neg, _k(-1.0, t, x), _k(1.0, t, x))
    r = EM.add(EM.mul(a, sgn, t, profile, ctrl), _k(0.5, t, x), t, profile, ctrl)
    return EM.mul(x, r, t, profile, ctrl)


def _f32_part(w, op, profile, ctrl):
    """The float32 steps of Tanh (all T), Log2 (all T) and of Sigmoid, Log, Log10 on float32 T; ``w``
    float32 lanes, ``op`` the API's index in API_NAMES (traced). One Exp and one Ln serve every API."""
    sig, tnh, lg, lg2 = (op == API_NAMES.index(n) for n in ("Sigmoid", "Tanh", "Log", "Log2"))
    # Sigmoid: Muls(x, -1); Tanh: Mins(x, 10), Maxs(., -10), Muls(., 2)
    c = EM.max_(
        EM.min_(w, _k(TANH_CLAMP, _F32, w), _F32, profile, ctrl),
        _k(-TANH_CLAMP, _F32, w),
        _F32,
        profile,
        ctrl,
    )
    e_in = EM.mul(jnp.where(tnh, c, w), _k_sel(tnh, 2.0, -1.0, _F32, w), _F32, profile, ctrl)
    e = EM.exp(e_in, _F32, profile, ctrl)
    # Sigmoid: Div(1, Adds(e, 1)); Tanh: Div(Adds(e, -1), Adds(e, 1))
    den = EM.add(e, _k(1.0, _F32, w), _F32, profile, ctrl)
    num = jnp.where(tnh, EM.add(e, _k(-1.0, _F32, w), _F32, profile, ctrl), _k(1.0, _F32, w))
    q = EM.div(num, den, _F32, profile, ctrl)
    # Log: Ln; Log2: Muls(Ln, 1/ln2); Log10: Muls(Ln, 1/ln10)
    ln = EM.ln(w, _F32, profile, ctrl)
    scaled = EM.mul(ln, _k_sel(lg2, 1.0 / np.log(2.0), 1.0 / np.log(10.0), _F32, w), _F32, profile, ctrl)
    gelu = op >= API_NAMES.index("FasterGeluV2")
    out = jnp.where(sig | tnh, q, jnp.where(lg, ln, scaled))
    return jnp.where(gelu, _gelu_v2(w, _F32, profile, ctrl), out)


def _k_sel(cond, a, b, dtype, like):
    return jnp.where(cond, _k(a, dtype, like), _k(b, dtype, like))


def _half_part(x, op, profile, ctrl):
    """The half steps of Sigmoid, Log and Log10 (half T)."""
    h = _dt.half
    sig, lg = op == API_NAMES.index("Sigmoid"), op == API_NAMES.index("Log")
    # Sigmoid: Muls(x, -1), Exp, Adds(., 1), Div(1, .)
    e = EM.exp(EM.mul(x, _k(-1.0, h, x), h, profile, ctrl), h, profile, ctrl)
    s = EM.div(_k(1.0, h, x), EM.add(e, _k(1.0, h, x), h, profile, ctrl), h, profile, ctrl)
    # Log: Ln; Log10: Ln, Muls(., 1/ln10)
    ln = EM.ln(x, h, profile, ctrl)
    l10 = EM.mul(ln, _k(1.0 / np.log(10.0), h, x), h, profile, ctrl)
    out = jnp.where(sig, s, jnp.where(lg, ln, l10))
    return jnp.where(op == API_NAMES.index("FasterGeluV2"), _gelu_v2(x, h, profile, ctrl), out)


def check_sequences(dtype, profile):
    """NotModelledError unless every API's ``apis.<Name>.sequence`` is the modelled one and T is."""
    for api in SEQUENCES:
        choice = profile.api(api).sequence
        if choice != SEQUENCES[api]:
            raise NotModelledError(f"{api}: sequence {choice!r} has no fast-path implementation")
    if dtype.name not in ("half", "float32"):
        raise NotModelledError(f"advanced math: {dtype.name} has no fast-path element function")


def any_elem(x, dtype, profile, ctrl, op):
    """The result bits of API ``API_NAMES[op]`` (``op`` traced: one program serves the six APIs of a
    dtype) on T lanes ``x``."""
    check_sequences(dtype, profile)
    x = x.astype(U32)
    if dtype.name == "float32":
        return _f32_part(x, op, profile, ctrl)
    # half: Tanh, Log2 and FasterGeluV2<highPrecision> in float32 (widened exactly, rounded back with
    # CAST_RINT); the others in half
    w = EM.cast(x, dtype, _F32, "NONE", profile, ctrl)
    wide = EM.cast(_f32_part(w, op, profile, ctrl), _F32, dtype, "RINT", profile, ctrl)
    in_f32 = (op == API_NAMES.index("Tanh")) | (op == API_NAMES.index("Log2")) | (op == OP_GELU_HP)
    return jnp.where(in_f32, wide, _half_part(x, op, profile, ctrl))
