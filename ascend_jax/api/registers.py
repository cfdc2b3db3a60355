"""Mask-register and special-register APIs: SetVectorMask, SetMaskCount, SetMaskNorm, ResetMask
(掩码操作/) and SetCtrlSpr, GetCtrlSpr, ResetCtrlSpr, SetSaturationFlag, GetSaturationFlag
(特殊寄存器访问/). Each exists only where the profile lists it as supported."""

import enum

import jax.numpy as jnp
import numpy as np

from .. import dtypes as _dt
from .._engine import mask as M
from ..errors import UnsupportedError, UsageError
from ..profile import as_profile
from ..registry import ApiSpec, register
from . import _args as A

U32 = jnp.uint32
I32 = jnp.int32


class MaskMode(enum.IntEnum):
    NORMAL = 0
    COUNTER = 1


class SaturationMode(enum.IntEnum):
    FLOAT = 0
    CAST = 1


def _ones(bits):
    w = np.zeros(8, np.uint32)
    w[: bits // 32] = 0xFFFFFFFF
    return jnp.asarray(w)


@register(
    ApiSpec(
        "SetVectorMask",
        "mask",
        ("SetVectorMask<T, mode>(maskHigh, maskLow)", "SetVectorMask<T, mode>(len)"),
        "memory-vector/掩码操作/SetVectorMask.md",
    )
)
def SetVectorMask(state, dtype, *args, mode=None, profile=None):
    """Write the vector-mask register. ``SetVectorMask(state, T, maskHigh, maskLow)`` (bitwise /
    Counter count in maskLow) or ``SetVectorMask(state, T, len)`` (continuous / Counter count).
    ``mode``: the C++ ``MaskMode`` template argument (default NORMAL, as in C++); it selects how the
    value is encoded, it does not switch the hardware mode (SetMaskCount does)."""
    p = as_profile(profile)
    api = "SetVectorMask"
    d = _dt.as_dtype(dtype)
    p.require_api(api, d)
    try:
        mode = MaskMode.NORMAL if mode is None else MaskMode(mode)
    except ValueError:
        raise UsageError(api, "mode", mode, "MaskMode::NORMAL or MaskMode::COUNTER", p) from None
    if mode == MaskMode.COUNTER and p.counter_mode == "unsupported":
        raise UnsupportedError(api, "mode", "COUNTER", "NORMAL", p, "behavior.counter_mode = unsupported")
    L = p.lanes(d)
    if len(args) == 2:
        hi, lo = args
        hi = A.static_int(api, "maskHigh", hi, 0, 2**64 - 1, p)
        lo = A.static_int(api, "maskLow", lo, 0, 2**64 - 1, p)
        if mode == MaskMode.COUNTER:
            if isinstance(hi, int) and hi != 0:
                raise UsageError(api, "maskHigh", hi, "0", p, "Counter mode: maskHigh must be 0")
            if isinstance(lo, int) and lo > 0xFFFFFFFF:
                raise UsageError(api, "maskLow", lo, "[0, 2**32-1] (Counter-mode count)", p)
        else:
            # SPEC: 掩码/通用说明: 32-bit T "maskHigh = 0"; 64-bit T "maskLow∈[0, 2^32-1]，maskHigh = 0"
            if d.itemsize >= 4 and isinstance(hi, int) and hi != 0:
                raise UsageError(api, "maskHigh", hi, "0", p, f"{d.name} has {L} lanes per repeat")
            if d.itemsize == 8 and isinstance(lo, int) and lo > 0xFFFFFFFF:
                raise UsageError(api, "maskLow", lo, "[0, 2**32-1]", p, "64-bit types use 32 mask bits")
        if p.zero_mask == "error" and isinstance(hi, int) and isinstance(lo, int) and hi == 0 and lo == 0:
            # "不同时为0": a rule on the two arguments together
            raise UsageError(
                api, "maskHigh/maskLow", (0, 0), "a non-zero mask", p, "this product rejects a zero mask"
            )
        if all(isinstance(v, int) for v in (hi, lo)):
            words = jnp.asarray([lo & 0xFFFFFFFF, lo >> 32, hi & 0xFFFFFFFF, hi >> 32, 0, 0, 0, 0], U32)
        else:
            lo_a, hi_a = jnp.asarray(lo, U32), jnp.asarray(hi, U32)
            z = jnp.zeros((), U32)
            words = jnp.stack([lo_a, z, hi_a, z, z, z, z, z])
    elif len(args) == 1:
        (n,) = args
        n = A.static_int(api, "len", n, 0, 2**31 - 1, p)
        if p.zero_mask == "error" and isinstance(n, int) and n == 0:
            raise UsageError(api, "len", 0, "a non-zero mask", p, "this product rejects a zero mask")
        nn = jnp.asarray(n, I32).astype(U32)
        if mode == MaskMode.COUNTER:
            words = M.counter_words(nn, jnp.zeros((), U32))
        else:
            words = M.continuous_words(nn, L, p.vector_mask_bits)
    else:
        raise TypeError("SetVectorMask(state, T, maskHigh, maskLow) or SetVectorMask(state, T, len)")
    keep = _ones(p.vector_mask_bits)
    return state.replace(vmask=words & keep)


def _simple(name, doc, fn):
    def api(state, profile=None):
        p = as_profile(profile)
        p.require_api(name)
        return fn(state, p)

    api.__name__ = api.__qualname__ = name
    api.__doc__ = doc
    return register(ApiSpec(name, "mask", (f"{name}()",), f"memory-vector/掩码操作/{name}.md"))(api)


SetMaskCount = _simple(
    "SetMaskCount",
    "Switch the mask to Counter mode (the mask value is a total element count).",
    lambda s, p: s.replace(mask_mode=jnp.ones_like(s.mask_mode)),
)
SetMaskNorm = _simple(
    "SetMaskNorm",
    "Switch the mask back to Normal mode (the default).",
    lambda s, p: s.replace(mask_mode=jnp.zeros_like(s.mask_mode)),
)
ResetMask = _simple(
    "ResetMask",
    "Set the vector mask to all ones (its default value).",
    lambda s, p: s.replace(vmask=jnp.broadcast_to(_ones(p.vector_mask_bits), s.vmask.shape)),
)


def _check_bits(api, p, startBit, endBit, restrict=True):
    # SPEC: "startBit和endBit的取值范围为[0, 63]。startBit小于等于endBit" (GetCtrlSpr(ISASI).md);
    #       each template argument is named on its own, startBit first.
    for name, v in (("startBit", startBit), ("endBit", endBit)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise UsageError(api, name, v, "a compile-time int", p)
    for name, v in (("startBit", startBit), ("endBit", endBit)):
        if not 0 <= v <= 63:
            raise UsageError(api, name, v, "[0, 63]", p)
    if startBit > endBit:
        raise UsageError(api, "startBit", startBit, f"<= endBit ({endBit})", p)
    allowed = p.api("SetCtrlSpr").bits
    if restrict and allowed is not None:
        for b in range(startBit, endBit + 1):
            if b not in allowed:
                raise UnsupportedError(api, "bit", b, f"CTRL bits {list(allowed)}", p)


def _field_mask_words(start, end):
    m = ((1 << (end - start + 1)) - 1) << start
    return np.array([m & 0xFFFFFFFF, m >> 32], np.uint32)


@register(
    ApiSpec(
        "SetCtrlSpr",
        "special_register",
        ("SetCtrlSpr<startBit, endBit>(value)",),
        "special-registers/SetCtrlSpr(ISASI).md",
    )
)
def SetCtrlSpr(state, startBit, endBit, value, profile=None):
    """CTRL[endBit:startBit] = value."""
    p = as_profile(profile)
    p.require_api("SetCtrlSpr")
    _check_bits("SetCtrlSpr", p, startBit, endBit)
    width = endBit - startBit + 1
    value = A.static_int("SetCtrlSpr", "value", value, 0, (1 << width) - 1, p)
    if isinstance(value, int):
        v = value << startBit
        vw = jnp.asarray([v & 0xFFFFFFFF, v >> 32], U32)
    else:  # traced: only fields inside one 32-bit word
        if startBit // 32 != endBit // 32:
            raise UsageError("SetCtrlSpr", "value", "traced", "a Python int for fields crossing bit 32", p)
        sh = np.uint32(startBit % 32)
        word = (jnp.asarray(value).astype(U32) << sh) & np.uint32(
            _field_mask_words(startBit, endBit)[startBit // 32]
        )
        vw = jnp.zeros((2,), U32).at[startBit // 32].set(word)
    fm = jnp.asarray(_field_mask_words(startBit, endBit))
    return state.replace(ctrl=(state.ctrl & ~fm) | (vw & fm))


@register(
    ApiSpec(
        "GetCtrlSpr",
        "special_register",
        ("GetCtrlSpr<startBit, endBit>() -> int64_t",),
        "special-registers/GetCtrlSpr(ISASI).md",
    )
)
def GetCtrlSpr(state, startBit, endBit, profile=None):
    """CTRL[endBit:startBit] (a Python int when the state is concrete, else a uint32 [lo, hi] pair)."""
    p = as_profile(profile)
    p.require_api("GetCtrlSpr")
    _check_bits("GetCtrlSpr", p, startBit, endBit, restrict=False)  # its page restricts no bit
    if A.is_concrete_array(state.ctrl) and state.ctrl.ndim == 1:
        w = np.asarray(state.ctrl)
        full = int(w[0]) | (int(w[1]) << 32)
        return (full >> startBit) & ((1 << (endBit - startBit + 1)) - 1)
    fm = jnp.asarray(_field_mask_words(startBit, endBit))
    return state.ctrl & fm


@register(
    ApiSpec(
        "ResetCtrlSpr",
        "special_register",
        ("ResetCtrlSpr<startBit, endBit>()",),
        "special-registers/ResetCtrlSpr(ISASI).md",
    )
)
def ResetCtrlSpr(state, startBit, endBit, profile=None):
    """CTRL[endBit:startBit] back to the profile's reset value."""
    p = as_profile(profile)
    p.require_api("ResetCtrlSpr")
    _check_bits("ResetCtrlSpr", p, startBit, endBit)
    rv = p.ctrl_reset_value
    rw = jnp.asarray([rv & 0xFFFFFFFF, (rv >> 32) & 0xFFFFFFFF], U32)
    fm = jnp.asarray(_field_mask_words(startBit, endBit))
    return state.replace(ctrl=(state.ctrl & ~fm) | (rw & fm))


# SPEC: SetSaturationFlag: FLOAT -- "开启饱和模式，inf输出会被饱和为±MAX，NaN输出会被饱和为0"; the
# recommended way to set CTRL[48] on A2/A3 (SetCtrlSpr page note). CAST -- "溢出值会被饱和为±MAX"
# (conversion saturation) does not affect any modelled API; it is kept in the profile's
# cast_saturation_ctrl_bit (CTRL[59], "1'b0：饱和模式", a documented choice on A2/A3).


def _sat_bit(p, mode, api):
    if SaturationMode(mode) == SaturationMode.FLOAT:
        return p.float_saturation_ctrl_bit, p.float_saturation_when_bit_is
    if p.cast_saturation_ctrl_bit < 0:
        raise UsageError(api, "mode", "CAST", "FLOAT (no conversion-saturation control)", p)
    return p.cast_saturation_ctrl_bit, 0


@register(
    ApiSpec(
        "SetSaturationFlag",
        "special_register",
        ("SetSaturationFlag<SaturationMode mode>(bool enableSat)",),
        "special-registers/SetSaturationFlag(ISASI).md",
    )
)
def SetSaturationFlag(state, mode, enableSat, profile=None):
    p = as_profile(profile)
    p.require_api("SetSaturationFlag")
    bit, when = _sat_bit(p, mode, "SetSaturationFlag")
    on = jnp.asarray(enableSat, bool)
    val = jnp.where(on, np.uint32(when), np.uint32(1 - when)).astype(U32)
    word = (val << np.uint32(bit % 32)).astype(U32)
    fm = jnp.asarray(_field_mask_words(bit, bit))
    vw = jnp.zeros((2,), U32).at[bit // 32].set(word)
    return state.replace(ctrl=(state.ctrl & ~fm) | (vw & fm))


@register(
    ApiSpec(
        "GetSaturationFlag",
        "special_register",
        ("GetSaturationFlag<SaturationMode mode>() -> bool",),
        "special-registers/GetSaturationFlag(ISASI).md",
    )
)
def GetSaturationFlag(state, mode, profile=None):
    p = as_profile(profile)
    p.require_api("GetSaturationFlag")
    bit, when = _sat_bit(p, mode, "GetSaturationFlag")
    v = (state.ctrl[..., bit // 32] >> np.uint32(bit % 32)) & 1
    res = v == when
    return bool(res) if A.is_concrete_array(res) and res.ndim == 0 else res
