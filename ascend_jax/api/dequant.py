"""CastDequant (复合计算/CastDequant.md): quantise and convert with the DEQSCALE register (SetDeqScale).

Prototypes (C++ argument order; template arguments are keywords):
  CastDequant<T, U, isVecDeq, halfBlock>(dst, src, count)
  CastDequant<T, U, isSetMask, isVecDeq, halfBlock>(dst, src, mask[] | mask, repeatTime, repeatParams)
Pairs (``apis.CastDequant.pairs``): int32 -> half (the s322fp16 scene: Cast's DEQSCALE conversion, RINT;
isVecDeq / halfBlock have no effect), int16 -> int8 / uint8 (s162b8: the DEQSCALE scale, offset, signMode,
or with ``isVecDeq`` the 16-group vdeq table DEQSCALE points to; each 16-lane source block's results in
one half of its dst block, ``halfBlock``). One program per repeat bucket serves int16 -> int8 / uint8 with every isVecDeq /
halfBlock and call form (traced); int32 -> half has its own. docs/MODEL.md "CastDequant".
"""

import jax.numpy as jnp

from .. import dtypes as _dt
from .._engine import dequant as DQ
from .._engine.castcomp import DeqElem
from .._engine.pipeline import StridedStatic, run_strided, set_extents
from ..errors import UnsupportedError, UsageError
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..state import register_words
from . import _args as A
from ._forms import empty_dyn, plan_forms

I32 = jnp.int32
HALF = _dt.as_dtype("half")
INT16 = _dt.as_dtype("int16")

_PROTOS = (
    "CastDequant<T, U, isVecDeq, halfBlock>(dst, src, count)",
    "CastDequant<T, U, isSetMask, isVecDeq, halfBlock>(dst, src, mask[], repeatTime, repeatParams)",
    "CastDequant<T, U, isSetMask, isVecDeq, halfBlock>(dst, src, mask, repeatTime, repeatParams)",
)


def dequant_pairs(profile):
    """The product's (src name, dst name) pairs of ``apis.CastDequant.pairs``."""
    out = []
    for entry in profile.api("CastDequant").pairs:
        src, dst = (x.strip() for x in entry.split()[0].split("->"))
        out.append((src, dst))
    return out


def plan(state, dst, src, args, profile, isSetMask, isVecDeq, halfBlock, max_repeats):
    """(run function, static, dyn) of one CastDequant call."""
    api = "CastDequant"
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    A.check_tensor(api, "src", src, p)
    for name, v in (("isSetMask", isSetMask), ("isVecDeq", isVecDeq), ("halfBlock", halfBlock)):
        if not isinstance(v, bool):
            raise UsageError(api, name, v, "True or False", p)
    if len(args) not in (1, 3):
        raise TypeError(
            "CastDequant() takes (dst, src, count) or (dst, src, mask, repeatTime, repeatParams); "
            f"got {2 + len(args)} arguments"
        )
    p.require_api(api)
    s, t = src.dtype, dst.dtype
    pairs = dequant_pairs(p)
    if (s.name, t.name) not in pairs:
        listed = ", ".join(f"{a}->{b}" for a, b in pairs)
        raise UnsupportedError(api, "src.dtype/dst.dtype", f"{s.name}->{t.name}", listed, p)
    b8 = s == INT16
    # SPEC: "数据类型转换的mask会按照输入和输出类型中sizeof(dtype)较大的来筛选"; for s162b8 every operand
    # keeps the int16 block layout (16 lanes a 32-byte block, results in one half of the dst block)
    wide = s if (b8 or s.itemsize > t.itemsize) else t
    dyn = empty_dyn("dst", "src")
    dyn["dst"], dyn["src"] = A.addr_of(dst), A.addr_of(src)
    set_extents(dyn, dst=dst, src=src)
    # SPEC: "针对源操作数的连续n个数据进行计算并连续写入目的操作数" (连续计算.md); the s162b8 count form
    # keeps the default UnaryRepeatParams strides (a dst block per source block)
    L = p.lanes(wide)
    ns = L * s.itemsize // p.block_bytes
    nd = ns if b8 else L * t.itemsize // p.block_bytes
    form, R, ordered = plan_forms(
        api, state, wide, args, p, isSetMask, max_repeats, dyn, count_strides=[1, 1, nd, ns]
    )
    dyn["deq"] = register_words(state, "deqscale")
    if b8:
        dyn["b8"] = DQ.b8_config(t, halfBlock, isVecDeq)
        st = DQ.B8Static(R=R, ordered=ordered, profile=p)
        return DQ.run_b8, st, dyn
    # SPEC: "输入类型为int32_t，输出half数据类型。使用SetDeqScale接口设置的scale参数，采用RINT精度舍入模式"
    st = StridedStatic(api=api, dtype=t, R=R, ordered=ordered, profile=p, elem=DeqElem(), src_dtype=s)
    return run_strided, st, dyn


@register(ApiSpec("CastDequant", "compound", _PROTOS, "memory-vector/复合计算/CastDequant.md"))
def CastDequant(
    state, dst, src, *args, profile=None, isSetMask=True, isVecDeq=True, halfBlock=True, max_repeats=None
):
    """Quantise ``src`` with the DEQSCALE register and convert, saturating (Ascend C
    ``AscendC::CastDequant``).

    Call forms (C++ order): ``CastDequant(state, dst, src, count)`` or ``CastDequant(state, dst, src,
    mask, repeatTime, repeatParams)`` (``UnaryRepeatParams``; ``mask`` int, uint64 word list, traced
    words, or ``MASK_PLACEHOLDER`` with ``isSetMask=False``), or ``(AnyForm,)``: every form in one
    program. int32 -> half: ``Cast(src_i * scale)``
    (RINT) with SetDeqScale(half scale). int16 -> int8 / uint8: ``Cast(src_i * scale + offset)`` with
    SetDeqScale(scale, offset, signMode) (``isVecDeq=False``) or the 16 groups of SetDeqScale(vdeq,
    vdeqInfo) (``isVecDeq=True``: group j for the j-th element of every 32-byte source block); the 16
    results of a source block go to the upper (``halfBlock=True``) or lower half of its dst block. A
    signMode that does not match T (int8: 1, uint8: 0) on an active lane is a BAD_PARAM fault.

    **Spec:** memory-vector/复合计算/CastDequant.md, 类型转换/寄存器配置说明/SetDeqScale.md. Profile
    keys: ``apis.CastDequant.pairs``. docs/MODEL.md "CastDequant".
    """
    run, st, dyn = plan(state, dst, src, args, profile, isSetMask, isVecDeq, halfBlock, max_repeats)
    return run(st, state, dyn)


__all__ = ["CastDequant"]
