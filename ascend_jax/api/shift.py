"""ShiftLeft / ShiftRight (逻辑计算/ShiftLeft.md, ShiftRight.md, seed 003) and the tensor-shift
variants ShiftLeftTensor / ShiftRightTensor (ShiftLeft（左移位数为Tensor）.md, ShiftRight（右移位数为Tensor）.md).

Prototypes (C++ argument order; ``isSetMask`` is the template argument):
  ShiftX(dst, src, scalarValue, count)                                    -- tensor前n个数据计算
  ShiftX(dst, src, scalarValue, mask[], repeatTime, repeatParams)         -- 高维切分, bitwise mask
  ShiftX(dst, src, scalarValue, mask, repeatTime, repeatParams)           -- 高维切分, continuous mask
  ShiftRight(..., mask[] | mask, repeatTime, repeatParams, roundEn)       -- roundEn: ShiftRight only
  ShiftX<T, U>(dst, src0, LocalTensor<U> src1, count)                     -- per-element amounts (950)
Each returns the new CoreState. Semantics: docs/MODEL.md "GatherMask and shifts".
"""

import jax.numpy as jnp
import numpy as np

from .. import dtypes as _dt
from .._engine import lanes as LN
from .._engine import shift as SH
from .._engine.pipeline import StridedStatic, run_strided, set_extents
from ..errors import UsageError
from ..params import AnyForm
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..tensor import LocalTensor
from . import _args as A
from ._forms import count_form, empty_dyn, plan_unary_call

U32 = jnp.uint32
I32 = jnp.int32

_ELEM = {"left": SH.elem_shift_left, "right": SH.elem_shift_right}
_TENSOR_ELEM = {"left": SH.elem_shift_left_tensor, "right": SH.elem_shift_right_tensor}
_SHIFT_DTYPES = ("int8", "int16", "int32", "int64")


def _shift_scalar(api, value, dt, p, rng):
    """(uint32 bits of the amount as T, traced-bad flag). Static values are range-checked here."""
    B = dt.bits
    if isinstance(value, (bool, np.bool_)) or (
        A.is_static(value) and not isinstance(value, (int, np.integer))
    ):
        raise UsageError(api, "scalarValue", value, f"an integer shift amount ({dt.cpp})", p)
    if A.is_static(value):
        v = int(value)
        if rng == "bitwidth_inclusive":
            lo, hi, detail = 0, B, f"the shift amount of a {B}-bit type must be in [0, {B}]"
        else:  # "saturating": any non-negative T value; amounts above B saturate
            lo = 0
            hi = (1 << (B - 1)) - 1 if dt.is_signed_int else (1 << B) - 1
            detail = f"scalarValue must be >= 0 (a shift by more than {B} bits saturates)"
        if not lo <= v <= hi:
            raise UsageError(api, "scalarValue", v, f"an integer in [{lo}, {hi}]", p, detail)
        if B == 64:  # the 64-bit element functions take the amount clipped to [0, 65]
            return jnp.asarray(min(v, 65), U32), jnp.zeros((), bool)
        return jnp.asarray(v & ((1 << B) - 1), U32), jnp.zeros((), bool)
    bits = A.scalar_bits(api, value, dt, p)
    if B == 64:
        n, neg = SH.pair_amount(bits, dt.is_signed_int)
        bad = neg | ((n > B) if rng == "bitwidth_inclusive" else jnp.zeros((), bool))
        return n.astype(U32), bad
    if dt.is_signed_int:
        n = SH.sign_extend(bits, B)
        bad = n < 0
        if rng == "bitwidth_inclusive":
            bad = bad | (n > B)
    else:
        bad = (bits > np.uint32(B)) if rng == "bitwidth_inclusive" else jnp.zeros((), bool)
    return bits, bad


def _round_flag(api, roundEn, form, dt, p):
    """(uint32 flag, traced-bad flag) for ShiftRight's roundEn."""
    allowed = bool(p.api(api).round_en)
    if isinstance(roundEn, (bool, np.bool_)):
        r = bool(roundEn)
        if r and form == "count":
            raise UsageError(
                api,
                "roundEn",
                True,
                "false",
                p,
                "roundEn exists only on the high-dim prototypes (mask, repeatTime, repeatParams, roundEn)",
            )
        if r and not allowed:
            raise UsageError(
                api, "roundEn", True, "false", p, "this product does not support rounding (仅支持传入false)"
            )
        return jnp.asarray(int(r), U32), jnp.zeros((), bool)
    if A.is_static(roundEn):
        raise UsageError(api, "roundEn", roundEn, "a bool", p)
    if form == "count":
        raise UsageError(
            api, "roundEn", "traced", "false", p, "roundEn exists only on the high-dim prototypes"
        )
    f = jnp.asarray(roundEn).astype(bool)
    bad = f if not allowed else jnp.zeros((), bool)
    return f.astype(U32), bad


def shift_call(api, op, state, dst, src, scalar, args, profile, isSetMask, roundEn, max_repeats):
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    A.check_tensor(api, "src", src, p)
    A.check_same_dtype(api, p, dst=dst, src=src)
    dt = dst.dtype
    anyf = len(args) == 1 and isinstance(args[0], AnyForm) and not A.is_static(args[0].form)
    if anyf:
        form = "highdim"  # every form at once (roundEn below applies to the high-dim ones)
    elif len(args) == 1:
        form = "count"
    elif len(args) == 3 or (len(args) == 4 and op == "right"):
        form = "highdim"
        if len(args) == 4:
            if roundEn is not False:
                raise TypeError(f"{api}(): roundEn given both positionally and as a keyword")
            roundEn = args[3]
            args = args[:3]
    else:
        extra = ", roundEn" if op == "right" else ""
        note = " (ShiftLeft has no roundEn argument)" if op == "left" and len(args) == 4 else ""
        raise TypeError(
            f"{api}() takes (dst, src, scalarValue, count) or "
            f"(dst, src, scalarValue, mask, repeatTime, repeatParams{extra}); got {3 + len(args)} arguments{note}"
        )
    p.require_api(api, dt, count_form=(form == "count"))
    A.check_modelled(api, dt, p, int64_lanes=True)
    if not dt.is_int:
        raise UsageError(api, "dtype", dt.name, "an integer type", p)
    rng = p.api(api).shift_range
    sbits, bad = _shift_scalar(api, scalar, dt, p, rng)
    if op == "right":
        rflag, rbad = _round_flag(api, roundEn, form, dt, p)
        if anyf:  # SPEC: roundEn exists only on the high-dim prototypes
            hd = jnp.asarray(args[0].form) != AnyForm.COUNT
            rflag, rbad = jnp.where(hd, rflag, U32(0)), rbad & hd
        bad = bad | rbad
    else:
        rflag = jnp.zeros((), U32)
    form, R, ordered, dyn = plan_unary_call(
        api, state, dst, src, args, p, isSetMask, max_repeats, int64_lanes=True
    )
    dyn["scalar"] = jnp.stack([sbits, rflag])
    dyn["bad_param"] = dyn["bad_param"] | bad
    st = StridedStatic(api=api, dtype=dt, R=R, ordered=ordered, profile=p, elem=_ELEM[op])
    return run_strided(st, state, dyn)


def shift_tensor_call(api, op, state, dst, src0, src1, count, profile, max_repeats):
    p = as_profile(profile)
    for n, t in (("dst", dst), ("src0", src0), ("src1", src1)):
        A.check_tensor(api, n, t, p)
    A.check_same_dtype(api, p, dst=dst, src0=src0)
    dt = dst.dtype
    p.require_api(api, dt, count_form=True)
    A.check_modelled(api, dt, p, int64_lanes=True)
    u = src1.dtype
    if u.name not in _SHIFT_DTYPES or u.itemsize != dt.itemsize:
        ok = [n for n in _SHIFT_DTYPES if _dt.as_dtype(n).itemsize == dt.itemsize]
        raise UsageError(
            api, "src1.dtype", u.name, " / ".join(ok), p, "the shift amounts are a signed type of T's width"
        )
    dyn = empty_dyn("dst", "src0", "src1")
    R = count_form(api, count, dt, p, max_repeats, dyn)
    dyn.update(dst=A.addr_of(dst), src0=A.addr_of(src0), src1=A.addr_of(src1))
    set_extents(dyn, dst=dst, src0=src0, src1=src1)  # checker warnings
    dyn["strides"] = jnp.asarray([1, 1, 1, 8, 8, 8], I32)  # contiguous operands
    st = StridedStatic(
        api=api,
        dtype=dt,
        R=R,
        ordered=False,
        profile=p,
        elem=_TENSOR_ELEM[op],
        srcs=("src0", "src1"),
        literal=("src1",),  # the amounts decide BAD_PARAM: read at the literal address
        kind=LN.KIND_COUNT,
    )
    return run_strided(st, state, dyn)


_SCALAR_PROTOS = (
    "{name}(dst, src, scalarValue, count)",
    "{name}(dst, src, scalarValue, mask[], repeatTime, repeatParams{rnd})",
    "{name}(dst, src, scalarValue, mask, repeatTime, repeatParams{rnd})",
    "{name}<T, isSetMask=false>(dst, src, scalarValue, MASK_PLACEHOLDER, repeatTime, repeatParams{rnd})",
    "{name}<T, U>(dst, src0, LocalTensor<U> src1, count)  -- {name}Tensor",
)


@register(
    ApiSpec(
        "ShiftLeft",
        "shift",
        tuple(pr.format(name="ShiftLeft", rnd="") for pr in _SCALAR_PROTOS),
        "memory-vector/逻辑计算/ShiftLeft.md",
    )
)
def ShiftLeft(state, dst, src, scalarValue, *args, profile=None, isSetMask=True, max_repeats=None):
    """``dst_i = src_i << scalarValue`` over the active lanes (Ascend C ``AscendC::ShiftLeft``).

    Unsigned T: logical shift. Signed T: ``apis.ShiftLeft.signed_left_shift`` -- "keep_sign" (the
    documented arithmetic left shift: the sign bit stays, the second-highest bit drops out) or
    "conventional" (two's-complement shift). Shift range per ``apis.ShiftLeft.shift_range``.
    Call forms as ``Adds``; with a LocalTensor as the third argument this is ``ShiftLeftTensor``
    (``(state, dst, src0, src1, count)``). Returns the new CoreState.
    """
    if isinstance(scalarValue, LocalTensor):
        if len(args) != 1:
            raise TypeError("ShiftLeft(state, dst, src0, src1: LocalTensor, count)")
        return ShiftLeftTensor(
            state, dst, src, scalarValue, args[0], profile=profile, max_repeats=max_repeats
        )
    return shift_call(
        "ShiftLeft", "left", state, dst, src, scalarValue, args, profile, isSetMask, False, max_repeats
    )


@register(
    ApiSpec(
        "ShiftRight",
        "shift",
        tuple(pr.format(name="ShiftRight", rnd=", roundEn") for pr in _SCALAR_PROTOS),
        "memory-vector/逻辑计算/ShiftRight.md, seed 003",
    )
)
def ShiftRight(
    state, dst, src, scalarValue, *args, profile=None, isSetMask=True, roundEn=False, max_repeats=None
):
    """``dst_i = src_i >> scalarValue`` over the active lanes (Ascend C ``AscendC::ShiftRight``).

    Unsigned T: logical; signed T: arithmetic. ``roundEn`` (high-dim forms only, keyword or the
    7th C++ argument; effective for signed T): add the last bit shifted out. Products with
    ``apis.ShiftRight.round_en = false`` reject ``roundEn=True``. With a LocalTensor as the third
    argument this is ``ShiftRightTensor``. Returns the new CoreState.
    """
    if isinstance(scalarValue, LocalTensor):
        if len(args) != 1:
            raise TypeError("ShiftRight(state, dst, src0, src1: LocalTensor, count)")
        return ShiftRightTensor(
            state, dst, src, scalarValue, args[0], profile=profile, max_repeats=max_repeats
        )
    return shift_call(
        "ShiftRight", "right", state, dst, src, scalarValue, args, profile, isSetMask, roundEn, max_repeats
    )


@register(
    ApiSpec(
        "ShiftLeftTensor",
        "shift",
        ("ShiftLeft<T, U>(dst, src0, LocalTensor<U> src1, count)",),
        "memory-vector/逻辑计算/ShiftLeft（左移位数为Tensor）.md",
    )
)
def ShiftLeftTensor(state, dst, src0, src1, count, profile=None, max_repeats=None):
    """``dst_i = src0_i << src1_i`` for the first ``count`` elements (C++ ``ShiftLeft<T, U>`` with a
    shift-amount tensor). ``src1``: a signed integer tensor of T's width; a negative amount records
    BAD_PARAM; an amount above the bit width gives 0 (signed T, negative src0: -1)."""
    return shift_tensor_call("ShiftLeftTensor", "left", state, dst, src0, src1, count, profile, max_repeats)


@register(
    ApiSpec(
        "ShiftRightTensor",
        "shift",
        ("ShiftRight<T, U>(dst, src0, LocalTensor<U> src1, count)",),
        "memory-vector/逻辑计算/ShiftRight（右移位数为Tensor）.md",
    )
)
def ShiftRightTensor(state, dst, src0, src1, count, profile=None, max_repeats=None):
    """``dst_i = src0_i >> src1_i`` for the first ``count`` elements (C++ ``ShiftRight<T, U>`` with a
    shift-amount tensor). A negative amount records BAD_PARAM; an amount above the bit width gives
    0 (logical) or 0 / -1 by sign (arithmetic)."""
    return shift_tensor_call("ShiftRightTensor", "right", state, dst, src0, src1, count, profile, max_repeats)


__all__ = ["ShiftLeft", "ShiftRight", "ShiftLeftTensor", "ShiftRightTensor"]
