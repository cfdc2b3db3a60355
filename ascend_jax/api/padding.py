"""VectorPadding(ISASI) (数据填充/VectorPadding(ISASI).md): pad per DataBlock by ``padMode`` and
``padSide``; Atlas 推理系列产品 AI Core (ascend310p) only.

Prototypes (C++ argument order; ``isSetMask`` is the template argument):
  VectorPadding(dst, src, padMode, padSide, count)                                  -- tensor前n个数据计算
  VectorPadding(dst, src, padMode, padSide, mask[] | mask, repeatTime, repeatParams) -- 高维切分
  VectorPadding<T, false>(dst, src, padMode, padSide, MASK_PLACEHOLDER, repeatTime, repeatParams)

The call runs on the strided core (``_engine/pipeline.run_strided``) with the element function
``_engine/padding.pad_elem``: lanes, Counter mode, faults and writes are the one-source rules of
docs/MODEL.md; ``padMode`` / ``padSide`` are traced data (``dyn["pad"]``), so one program per (dtype,
repeat bucket) serves every padding choice and every call form.
"""

import jax
import jax.numpy as jnp
import numpy as np

from .._engine.padding import pad_elem
from .._engine.pipeline import StridedStatic, run_strided
from ..errors import UsageError
from ..profile import as_profile
from ..registry import ApiSpec, register
from ._forms import plan_unary_call

I32 = jnp.int32
U32 = jnp.uint32

API = "VectorPadding"
PROTOTYPES = (
    "VectorPadding(dst, src, padMode, padSide, count)",
    "VectorPadding(dst, src, padMode, padSide, mask[], repeatTime, repeatParams)",
    "VectorPadding(dst, src, padMode, padSide, mask, repeatTime, repeatParams)",
    "VectorPadding<T, isSetMask=false>(dst, src, padMode, padSide, MASK_PLACEHOLDER, repeatTime, repeatParams)",
)
PAD_MODES = (0, 1, 2)


def _traced(v):
    """A JAX / NumPy integer or bool array (traced data); anything else is a static C++ value."""
    return isinstance(v, (jax.Array, np.ndarray)) and (
        jnp.issubdtype(v.dtype, jnp.integer) or jnp.issubdtype(v.dtype, jnp.bool_)
    )


def _pad_mode(v, p):
    """(traced int32 padMode, bad flag). SPEC: "padding模式，类型为uint8_t，取值范围：[0,2]"."""
    if not _traced(v):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or int(v) not in PAD_MODES:
            raise UsageError(API, "padMode", v, "0, 1 or 2 (uint8_t in [0, 2])", p)
        return jnp.asarray(int(v), I32), jnp.zeros((), bool)
    m = jnp.asarray(v).astype(I32)
    return m, (m < 0) | (m > 2)


def _pad_side(v, p):
    """traced int32 padSide (0 = left, 1 = right). SPEC: "padding的方向，类型为bool。false：左边。
    true：右边。" A traced value: non-zero is true (C++ bool conversion)."""
    if not _traced(v):
        if isinstance(v, (bool, np.bool_)) or (isinstance(v, (int, np.integer)) and int(v) in (0, 1)):
            return jnp.asarray(int(bool(v)), I32)
        raise UsageError(API, "padSide", v, "False or True", p)
    return (jnp.asarray(v) != 0).astype(I32)


def plan(state, dst, src, padMode, padSide, args, profile, isSetMask, max_repeats):
    """(StridedStatic, dyn) of one call: the compile key and its traced data."""
    p = as_profile(profile)
    if len(args) not in (1, 3):
        raise TypeError(
            "VectorPadding() takes (dst, src, padMode, padSide, count) or "
            f"(dst, src, padMode, padSide, mask, repeatTime, repeatParams); got {4 + len(args)} arguments"
        )
    _, R, ordered, dyn = plan_unary_call(API, state, dst, src, args, p, isSetMask, max_repeats)
    mode, bad = _pad_mode(padMode, p)
    side = _pad_side(padSide, p)
    dyn["pad"] = 2 * jnp.clip(mode, 0, 2) + side
    dyn["bad_param"] = dyn["bad_param"] | bad
    dyn["scalar"] = jnp.zeros((), U32)
    st = StridedStatic(api=API, dtype=dst.dtype, R=R, ordered=ordered, profile=p, elem=pad_elem)
    return st, dyn


@register(ApiSpec(API, "padding", PROTOTYPES, "memory-vector/数据填充/VectorPadding(ISASI).md"))
def VectorPadding(state, dst, src, padMode, padSide, *args, profile=None, isSetMask=True, max_repeats=None):
    """Pad per DataBlock (Ascend C ``AscendC::VectorPadding``, ISASI): every active dst lane takes the
    value its block position gets when the src DataBlock at the same block position is padded on
    ``padSide`` (False: left, True: right) by ``padMode`` (0: the nearest element; 1: symmetric;
    2: symmetric shifted by one, the far end 0). Whole src blocks are read whatever the mask.

    Call forms (C++ order): ``VectorPadding(state, dst, src, padMode, padSide, count)`` or
    ``VectorPadding(state, dst, src, padMode, padSide, mask, repeatTime, repeatParams)`` with ``mask``
    an int (continuous), a list of uint64 words low first (bitwise), or ``MASK_PLACEHOLDER`` with
    ``isSetMask=False``; ``repeatParams`` a ``UnaryRepeatParams``; ``AnyForm`` as everywhere.
    ``padMode`` / ``padSide`` may be traced (an out-of-range traced padMode records ``BAD_PARAM``).
    ``profile``: product (the API exists on ascend310p only). Returns the new CoreState.

    **Spec:** memory-vector/数据填充/VectorPadding(ISASI).md. Profile keys: ``apis.VectorPadding``
    (``layout``), ``behavior.*``; docs/MODEL.md "VectorPadding".
    """
    st, dyn = plan(state, dst, src, padMode, padSide, args, profile, isSetMask, max_repeats)
    return run_strided(st, state, dyn)


__all__ = ["VectorPadding"]
