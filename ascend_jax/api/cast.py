"""Cast (类型转换/Cast.md) and Truncate(ISASI) (类型转换/Truncate(ISASI).md) on the strided core.

Prototypes (C++ argument order; ``isSetMask`` is the template argument):
  Cast(dst, src, roundMode, count)
  Cast(dst, src, roundMode, mask[] | mask, repeatTime, repeatParams)   -- UnaryRepeatParams
  Cast<T, U, isSetMask=false>(dst, src, roundMode, MASK_PLACEHOLDER, repeatTime, repeatParams)
  Truncate<T, roundMode>(dst, src, count)
The (src, dst, roundMode) triples are the product's table (``apis.Cast.pairs``); lanes are counted
by the wider of the two types and each operand spans ``L * sizeof / 32`` blocks of a repeat at its
own strides. Element rules: ``_engine/convert.py``; docs/MODEL.md "Cast".

One program per (src dtype, dst dtype, repeat bucket) serves every call form, address, stride,
mask and round mode (the round mode is traced data, ``dyn["rmode"]``).
"""

import dataclasses
import enum

import jax.numpy as jnp
import numpy as np

from .._engine import convert as CV
from .._engine.castcomp import DeqElem
from .._engine.pipeline import StridedStatic, run_strided
from ..errors import NotModelledError, UnsupportedError, UsageError
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..state import register_words
from . import _args as A
from ._forms import empty_dyn, plan_forms, plan_unary_call

I32 = jnp.int32


class RoundMode(enum.IntEnum):
    """``AscendC::RoundMode`` (values as the C++ enum)."""

    CAST_NONE = 0
    CAST_RINT = 1
    CAST_FLOOR = 2
    CAST_CEIL = 3
    CAST_ROUND = 4
    CAST_TRUNC = 5
    CAST_ODD = 6
    CAST_HYBRID = 7


_ALL_MODE_NAMES = tuple(RoundMode.__members__)


def cast_pairs(profile):
    """{(src name, dst name): (frozenset of mode names without CAST_, count_only)} of the product."""
    out = {}
    for entry in profile.api("Cast").pairs:
        head, modes = entry.split(":")
        src, dst = (x.strip() for x in head.split("->"))
        words = modes.split()
        out[(src, dst)] = (frozenset(w for w in words if w != "[count]"), "[count]" in words)
    return out


def mode_name(api, mode, profile):
    """``roundMode`` (an ``AscendC::RoundMode`` member, its name or value) -> the name without CAST_."""
    if isinstance(mode, str):
        name = mode.upper()
    elif hasattr(mode, "name") and not isinstance(mode, int):
        name = str(mode.name)
    elif isinstance(mode, int) and not isinstance(mode, bool) and 0 <= mode < len(_ALL_MODE_NAMES):
        name = _ALL_MODE_NAMES[mode]
    else:
        name = None
    if name is not None and not name.startswith("CAST_"):
        name = "CAST_" + name
    if name not in _ALL_MODE_NAMES:
        raise UsageError(api, "roundMode", mode, ", ".join(_ALL_MODE_NAMES), profile)
    return name[5:]


@dataclasses.dataclass(frozen=True)
class _ConvertElem:
    """The strided core's element function for one (src, dst) pair; the round mode is traced."""

    src: object

    def __call__(self, x, scalar, dtype, profile, ctrl, dyn):
        return CV.convert(x, self.src, dtype, dyn["rmode"], profile, ctrl)


def check_nibble_pairs(api, args, p):
    """Static int4b_t rule of Cast.md 约束说明 on Python values: "tensor高维切分计算接口的连续模式的mask与
    tensor前n个数据计算接口的count必须为偶数" (an odd one: UsageError; a continuous mask is a count in
    Counter mode, even too). The bitwise rule ("逐bit模式，对应同一字节的相邻两个比特位的数值必须一致") and
    everything traced or left in the registers are checked at run time on the active lanes (a byte whose
    two lanes differ in activity: BAD_MASK, ``pipeline.run_strided``): whether a bitwise mask is lane
    bits or a Counter-mode count is run-time state."""
    first = args[0]
    if isinstance(first, (list, tuple)) or isinstance(first, bool) or not A.is_static(first):
        return
    if isinstance(first, (int, np.integer)) and int(first) % 2:
        arg, what = ("count", "an even count") if len(args) == 1 else ("mask", "an even continuous mask")
        raise UsageError(api, arg, first, what, p, "int4b_t: two elements share a byte")


_CAST_PROTOS = (
    "Cast(dst, src, roundMode, count)",
    "Cast(dst, src, roundMode, mask[], repeatTime, repeatParams)",
    "Cast(dst, src, roundMode, mask, repeatTime, repeatParams)",
    "Cast<T, U, isSetMask=false>(dst, src, roundMode, MASK_PLACEHOLDER, repeatTime, repeatParams)",
)


def plan_cast(state, dst, src, roundMode, args, profile, isSetMask, max_repeats):
    """(StridedStatic, dyn) of one Cast call."""
    api = "Cast"
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    A.check_tensor(api, "src", src, p)
    if not isinstance(isSetMask, bool):
        raise UsageError(api, "isSetMask", isSetMask, "True or False", p)
    if len(args) not in (1, 3):
        raise TypeError(
            "Cast() takes (dst, src, roundMode, count) or (dst, src, roundMode, mask, repeatTime, "
            f"repeatParams); got {3 + len(args)} arguments"
        )
    count_form = len(args) == 1
    p.require_api(api)
    s, t = src.dtype, dst.dtype
    pairs = cast_pairs(p)
    mode = mode_name(api, roundMode, p)
    if (s.name, t.name) not in pairs:
        listed = ", ".join(f"{a}->{b}" for a, b in pairs)
        raise UnsupportedError(api, "src.dtype/dst.dtype", f"{s.name}->{t.name}", listed, p)
    modes, count_only = pairs[(s.name, t.name)]
    if count_only and not count_form:
        raise UnsupportedError(
            api, "src.dtype/dst.dtype", f"{s.name}->{t.name}", "the count prototype only", p
        )
    # SPEC: int32 -> half "roundMode不生效，与SetDeqScale(half scale)接口配合使用" (Cast.md): any mode
    deq = "DEQSCALE" in modes
    if not deq and mode not in modes:
        allowed = ", ".join("CAST_" + m for m in sorted(modes))
        raise UsageError(api, "roundMode", "CAST_" + mode, allowed, p, f"{s.name} -> {t.name}")
    if not (CV.modelled(s) and CV.modelled(t)):
        raise NotModelledError(
            f"Cast: {s.cpp} -> {t.cpp} is in the product's table but not modelled "
            f"(no element function for {', '.join(d.cpp for d in (s, t) if not CV.modelled(d))})"
        )
    if min(s.bits, t.bits) < 8:
        check_nibble_pairs(api, args, p)
    wide = s if s.bits > t.bits else t
    dyn = empty_dyn("dst", "src")
    dyn["dst"], dyn["src"] = A.addr_of(dst), A.addr_of(src)
    # SPEC: "针对源操作数的连续n个数据进行计算并连续写入目的操作数" (连续计算.md): each operand is
    # contiguous, a repeat of L lanes spans L * sizeof / 32 blocks of that operand (int4b_t: bits)
    L = p.lanes(wide)
    nd, ns = (L * d.bits // (8 * p.block_bytes) for d in (t, s))
    form, R, ordered = plan_forms(
        api, state, wide, args, p, isSetMask, max_repeats, dyn, count_strides=[1, 1, nd, ns]
    )
    dyn["rmode"] = jnp.asarray(CV.MODES[mode], I32)
    if deq:  # docs/MODEL.md "SetDeqScale and the DEQSCALE conversions"
        dyn["deq"] = register_words(state, "deqscale")
    return _cast_static((s, t), R, ordered, p), dyn


def _cast_static(pair, R, ordered, p):
    """The strided core of the Cast calls of ``pair`` = (src dtype, dst dtype): the round mode is
    traced (dyn["rmode"]); a DEQSCALE pair converts by the DEQSCALE register (dyn["deq"])."""
    s, t = pair
    deq = "DEQSCALE" in cast_pairs(p)[(s.name, t.name)][0]
    elem = DeqElem() if deq else _ConvertElem(s)
    return StridedStatic(api="Cast", dtype=t, R=R, ordered=ordered, profile=p, elem=elem, src_dtype=s)


# The planned-call interface (``aj.plan`` / ``aj.run``, api/planned.py): the "cast" group, a key's
# static part (the (src dtype, dst dtype) pair, R, ordered, profile); the round mode is traced.


def plan_planned(api, state, dst, src, roundMode, *args, profile=None, isSetMask=True, max_repeats=None):
    """``aj.plan``'s planner of the "cast" group: ``(static, dyn)``, the direct call's checks."""
    st, dyn = plan_cast(state, dst, src, roundMode, args, profile, isSetMask, max_repeats)
    return ((st.src_dtype, st.dtype), st.R, st.ordered, st.profile), dyn


def run_planned(static, state, dyn):
    """Runs a call planned by :func:`plan_planned` (pure, jit- and vmap-compatible)."""
    return run_strided(_cast_static(*static), state, dyn)


@register(ApiSpec("Cast", "cast", _CAST_PROTOS, "memory-vector/类型转换/Cast.md"))
def Cast(state, dst, src, roundMode, *args, profile=None, isSetMask=True, max_repeats=None):
    """``dst_i = convert(src_i)`` by ``roundMode`` over the active lanes (Ascend C ``AscendC::Cast``).

    Call forms (C++ order): ``Cast(state, dst, src, roundMode, count)`` or
    ``Cast(state, dst, src, roundMode, mask, repeatTime, repeatParams)`` with ``mask`` an int
    (continuous), a list of uint64 words low first (bitwise), a traced uint32 word array, or
    ``MASK_PLACEHOLDER`` with ``isSetMask=False``; ``repeatParams`` a ``UnaryRepeatParams`` (block
    strides in each operand's own 32-byte blocks). ``roundMode``: ``RoundMode.CAST_*`` (or its name);
    the (src, dst, roundMode) triples are the product's table. Lanes are counted by the wider type.
    ``profile``: product (default ascend910b). ``max_repeats``: static repeat bucket for traced
    counts/repeats. Returns the new CoreState.

    **Spec:** memory-vector/类型转换/Cast.md, precision_conversion.md. Profile keys: ``apis.Cast.pairs``,
    ``registers.cast_saturation_ctrl_bit`` (CTRL: 0 = saturating).
    """
    st, dyn = plan_cast(state, dst, src, roundMode, args, profile, isSetMask, max_repeats)
    return run_strided(st, state, dyn)


_TRUNCATE_MODES = ("RINT", "ROUND", "FLOOR", "CEIL", "TRUNC")


@register(
    ApiSpec(
        "Truncate",
        "cast",
        ("Truncate<T, roundMode>(dst, src, count)",),
        "memory-vector/类型转换/Truncate(ISASI).md",
    )
)
def Truncate(state, dst, src, count, *, roundMode, profile=None, max_repeats=None):
    """Each float rounded to an integral value by ``roundMode`` (a template argument in C++), T
    unchanged, over the first ``count`` elements (Ascend C ``AscendC::Truncate``, ISASI).

    **Spec:** memory-vector/类型转换/Truncate(ISASI).md. Profile keys: ``apis.Truncate``.
    """
    api = "Truncate"
    p = as_profile(profile)
    # SPEC: "roundMode ... CAST_RINT / CAST_ROUND / CAST_FLOOR / CAST_CEIL / CAST_TRUNC"
    mode = mode_name(api, roundMode, p)
    if mode not in _TRUNCATE_MODES:
        allowed = ", ".join("CAST_" + m for m in _TRUNCATE_MODES)
        raise UsageError(api, "roundMode", "CAST_" + mode, allowed, p)
    _, R, ordered, dyn = plan_unary_call(api, state, dst, src, (count,), p, True, max_repeats)
    dt = dst.dtype
    if not CV.modelled(dt) or not dt.is_float:
        raise NotModelledError(f"Truncate: {dt.name} has no fast-path element function")
    dyn["rmode"] = jnp.asarray(CV.MODES[mode], I32)
    st = StridedStatic(api=api, dtype=dt, R=R, ordered=ordered, profile=p, elem=_ConvertElem(dt))
    return run_strided(st, state, dyn)


__all__ = ["Cast", "RoundMode", "Truncate"]
