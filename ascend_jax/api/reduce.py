"""The reduction family 归约计算/ (docs/MODEL.md "Reductions").

Prototypes (C++ order; ``reduceType`` -- the template argument -- is a keyword here):
  ReduceRepeat(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order)
  ReduceDataBlock(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride)
  ReducePairElem(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride)
  ReduceSum(dst, src, sharedTmpBuffer, count) / (dst, src, sharedTmpBuffer, mask, repeatTime, srcRepStride)
  ReduceMax / ReduceMin(dst, src, sharedTmpBuffer, count[, calIndex])
                      / (dst, src, sharedTmpBuffer, mask, repeatTime, srcRepStride[, calIndex])
``mask`` is an int (continuous), a list of uint64 words (bitwise) or ``MASK_PLACEHOLDER`` with
``isSetMask=False``. One program per (API, dtype, reduceType / order / calIndex, bucket); the call
form, mask, counts, repeats, addresses and strides are traced. ``plan_reduce`` / ``run_planned``: the
group's planner behind ``aj.plan`` / ``aj.run`` (docs/PLAN_RUN.md).
"""

import inspect
import math

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtypes as _dt
from .._engine import lanes as LN
from .._engine.reduce import ReduceStatic, run_per_repeat, run_whole
from ..errors import NotModelledError, UsageError
from ..profile import as_profile
from ..reduce_types import ReduceOrder, ReduceType, as_reduce_order, as_reduce_type
from ..registry import ApiSpec, register
from ..state import register_words
from . import _args as A
from ._forms import count_form as _count_form
from ._forms import default_big_bucket, empty_dyn, highdim_form, state_concrete

I32 = jnp.int32
U32 = jnp.uint32
INT32_MAX = (1 << 31) - 1
STRIDE_MAX = (1 << 16) - 1

__all__ = [
    "ReduceType",
    "ReduceOrder",
    "ReduceRepeat",
    "ReduceDataBlock",
    "ReducePairElem",
    "ReduceSum",
    "ReduceMax",
    "ReduceMin",
    "GetReduceRepeatSumSpr",
    "GetReduceRepeatMaxMinSpr",
]


def _check_tensors(api, p, **tensors):
    for name, t in tensors.items():
        A.check_tensor(api, name, t, p)


def _strides(api, p, dyn, **strides):
    out = []
    for name, v in strides.items():
        # SPEC: "dstRepStride、srcBlkStride、srcRepStride取值范围为[0, 2^16-1]" (ReduceRepeat.md 约束说明)
        A.static_int(api, name, v, 0, STRIDE_MAX, p)
        dyn["bad_param"] = dyn["bad_param"] | A.traced_range_bad(v, 0, STRIDE_MAX)
        out.append(jnp.asarray(v, I32))
    dyn["strides"] = jnp.stack(out)


def _counter_bucket(state, kind, mask, L, p):
    """The repeats a high-dim call may need in Counter mode when the mode is not known at trace time
    (a traced state, e.g. inside jit_kernel): the mask argument's count, or -- the register form
    (SetMaskCount; SetVectorMask(0, n); X<..., false>(..., MASK_PLACEHOLDER, ...)) -- every repeat the
    usable UB holds. 1 when the state is concrete (highdim_form already sized the bucket)."""
    if state_concrete(state):
        return 1
    if kind == "register":
        return default_big_bucket(p)
    m0 = mask[0] if isinstance(mask, (list, tuple)) else mask
    if A.is_static(m0):
        return min(A.bucket(math.ceil(int(m0) / L)), default_big_bucket(p))
    return default_big_bucket(p)


# -- ReduceRepeat / ReduceDataBlock / ReducePairElem ---------------------------------------------


def plan_per_repeat(api, state, dst, src, args, reduce_type, order, profile, isSetMask, max_repeats):
    """(ReduceStatic, dyn) of one ReduceRepeat / ReduceDataBlock / ReducePairElem call."""
    p = as_profile(profile)
    _check_tensors(api, p, dst=dst, src=src)
    if not isinstance(isSetMask, bool):
        raise UsageError(api, "isSetMask", isSetMask, "True or False", p)
    if len(args) != 5:
        raise TypeError(
            f"{api}() takes (dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride), "
            f"got {2 + len(args)} arguments"
        )
    types = ("SUM",) if api == "ReducePairElem" else ("SUM", "MAX", "MIN")
    rt = as_reduce_type(api, reduce_type, types, p)
    dt = src.dtype
    p.require_api(api, dt)
    if dst.dtype != dt:  # SPEC: "目的操作数与源操作数的数据类型需要保持一致"
        raise UsageError(api, "dst.dtype", dst.dtype.name, f"{dt.name} (= src.dtype)", p)
    if rt == "SUM" and not dt.is_float:
        raise NotModelledError(f"{api}: integer SUM ({dt.name}) is not modelled")
    order = as_reduce_order(api, order, p) if (api == "ReduceRepeat" and rt != "SUM") else ""
    mask, repeat, dst_rep, src_blk, src_rep = args
    dyn = empty_dyn("dst", "src")
    dyn["dst"], dyn["src"] = A.addr_of(dst), A.addr_of(src)
    kind, R = highdim_form(api, mask, repeat, dt, p, isSetMask, state, max_repeats, dyn)
    if max_repeats is None:
        R = max(R, _counter_bucket(state, kind, mask, p.lanes(dt), p))
    _strides(api, p, dyn, dstRepStride=dst_rep, srcBlkStride=src_blk, srcRepStride=src_rep)
    dyn["kind"] = jnp.asarray(LN.KINDS[kind], I32)
    return ReduceStatic(api=api, dtype=dt, R=R, profile=p, reduce_type=rt, order=order), dyn


_PR_PROTOS = (
    "{name}<reduceType, T, U, isSetMask>(dst, src, mask[], repeatTime, dstRepStride, srcBlkStride, srcRepStride{o})",
    "{name}<reduceType, T, U, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride{o})",
)


@register(
    ApiSpec(
        "ReduceRepeat",
        "reduce",
        tuple(x.format(name="ReduceRepeat", o=", order") for x in _PR_PROTOS),
        "memory-vector/归约计算/ReduceRepeat.md",
    )
)
def ReduceRepeat(
    state, dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
    order=ReduceOrder.ORDER_VALUE_INDEX, *, reduceType, profile=None, isSetMask=True, max_repeats=None,
):  # fmt: skip
    """Per repeat: the sum, or the max / min and its in-repeat index (``AscendC::ReduceRepeat``).

    ``reduceType``: ``ReduceType.SUM | MAX | MIN``; ``order``: a ``ReduceOrder`` (MAX/MIN only). Repeat
    ``r``'s result is written at ``dst + r * dstRepStride * unit`` (unit = the bytes one repeat writes,
    ReduceRepeat.md 表3). **Spec:** memory-vector/归约计算/ReduceRepeat.md. Profile keys:
    ``apis.ReduceRepeat``.
    """
    return _call("ReduceRepeat", locals())


@register(
    ApiSpec(
        "ReduceDataBlock",
        "reduce",
        tuple(x.format(name="ReduceDataBlock", o="") for x in _PR_PROTOS),
        "memory-vector/归约计算/ReduceDataBlock.md",
    )
)
def ReduceDataBlock(
    state, dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
    *, reduceType, profile=None, isSetMask=True, max_repeats=None,
):  # fmt: skip
    """Per DataBlock: the sum / max / min (``AscendC::ReduceDataBlock``); 8 results per repeat at
    ``dst + r * dstRepStride * 8 * sizeof(T)``. **Spec:** memory-vector/归约计算/ReduceDataBlock.md.
    Profile keys: ``apis.ReduceDataBlock.empty_block``.
    """
    return _call("ReduceDataBlock", locals())


@register(
    ApiSpec(
        "ReducePairElem",
        "reduce",
        tuple(x.format(name="ReducePairElem", o="") for x in _PR_PROTOS),
        "memory-vector/归约计算/ReducePairElem.md",
    )
)
def ReducePairElem(
    state, dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
    *, reduceType=ReduceType.SUM, profile=None, isSetMask=True, max_repeats=None,
):  # fmt: skip
    """Per pair of adjacent elements: the sum (``AscendC::ReducePairElem``); L/2 results per repeat
    at ``dst + r * dstRepStride * (L/2) * sizeof(T)``. **Spec:** memory-vector/归约计算/ReducePairElem.md.
    Profile keys: ``apis.ReducePairElem.empty_pair``.
    """
    return _call("ReducePairElem", locals())


# -- ReduceSum / ReduceMax / ReduceMin -----------------------------------------------------------


def _up(a, b):
    return -(-a // b)


def tmp_need(api, first, L, E, cal_index, sum_order):
    """Elements of sharedTmpBuffer the page requires (Python int, or traced when ``first`` is)."""
    traced = not A.is_static(first)

    def pick(c, a, b):
        return jnp.where(c, a, b) if traced else (a if c else b)

    if api == "ReduceSum":
        # SPEC: "方式一：传入任意大小的sharedTmpBuffer，sharedTmpBuffer不会被使用"; 方式二 formula
        return 0 if sum_order == "sequential_repeats" else _up(first, E) * E
    out1 = first * 2
    if not cal_index:
        return _up(out1, E) * E  # SPEC: "finalWorkLocalNeedSize = iter1AlignEnd"
    start2 = _up(out1, E) * E
    out2 = _up(out1, L) * 2
    out3 = _up(out2, L) * 2
    return pick(out2 > 2, start2 + _up(out2, E) * E + _up(out3, E) * E, start2 + _up(out2, E) * E)


def plan_whole(api, state, dst, src, tmp, args, profile, isSetMask, cal_index, max_repeats):
    """(ReduceStatic, dyn) of one ReduceSum / ReduceMax / ReduceMin call."""
    p = as_profile(profile)
    _check_tensors(api, p, dst=dst, src=src, sharedTmpBuffer=tmp)
    if not isinstance(cal_index, bool):
        raise UsageError(api, "calIndex", cal_index, "True or False", p)
    if not isinstance(isSetMask, bool):
        raise UsageError(api, "isSetMask", isSetMask, "True or False", p)
    if len(args) not in (1, 3):
        raise TypeError(
            f"{api}() takes (dst, src, sharedTmpBuffer, count) or "
            f"(dst, src, sharedTmpBuffer, mask, repeatTime, srcRepStride); got {3 + len(args)} arguments"
        )
    dt = src.dtype
    count_form = len(args) == 1
    p.require_api(api, dt, count_form=count_form)
    for t, name in ((dst, "dst"), (tmp, "sharedTmpBuffer")):
        if t.dtype != dt:
            raise UsageError(api, f"{name}.dtype", t.dtype.name, f"{dt.name} (= src.dtype)", p)
    if dt.itemsize == 8:
        raise NotModelledError(f"{api}: {dt.name} is not modelled")
    L, E = p.lanes(dt), p.block_bytes // dt.itemsize
    dyn = empty_dyn("dst", "src", "tmp")
    dyn["dst"], dyn["src"], dyn["tmp"] = A.addr_of(dst), A.addr_of(src), A.addr_of(tmp)
    a = p.api(api)
    sum_order = (a.order_count if count_form else a.order_highdim) if api == "ReduceSum" else ""
    if count_form:
        use_reg = (not isSetMask) and p.level2_is_set_mask == "honoured"
        count = args[0]
        R = _count_form(api, count, dt, p, max_repeats, dyn, registers=state if use_reg else None)
        kind = "count_register" if use_reg else "count"
        c = count if A.is_static(count) else jnp.asarray(count, I32)
        first = max(1, count // L) if A.is_static(count) else jnp.maximum(1, c // L)
        src_rep = 8
        nbytes = c * dt.itemsize
        vadd = (nbytes >= 256) & (nbytes <= 1024)
    else:
        mask, repeat, src_rep = args
        # SPEC: "repeatTime可以支持更大的取值范围，保证不超过int32_t的最大值即可" (ReduceMax.md 参数说明)
        A.static_int(api, "repeatTime", repeat, 0, INT32_MAX, p)
        dyn["bad_param"] = dyn["bad_param"] | A.traced_range_bad(repeat, 0, INT32_MAX)
        kind, _ = highdim_form(
            api, mask, repeat, dt, p, isSetMask, state, max_repeats, dyn, fixed_repeat=repeat
        )
        if max_repeats is not None:
            R = A.bucket(max_repeats)
        elif state_concrete(state) and int(state.mask_mode) == 1:
            R = default_big_bucket(p)
            m0 = mask[0] if isinstance(mask, (list, tuple)) else mask
            if A.is_static(m0):
                R = A.bucket(math.ceil(int(m0) / L))
        else:
            R = A.bucket(repeat) if A.is_static(repeat) else default_big_bucket(p)
            R = max(R, _counter_bucket(state, kind, mask, L, p))
        first = repeat
        vadd = False
    R = min(R, default_big_bucket(p))
    _strides(api, p, dyn, srcRepStride=src_rep)
    # SPEC (950): "Counter模式且数据量在256~1024字节之间采用方式三；否则采用方式二" (方式三 is given the
    # 方式二 sharedTmpBuffer space: the page states none for it)
    need = tmp_need(api, first, L, E, cal_index, sum_order)
    if A.is_static(need) and A.is_static(first) and tmp.length < need:
        raise UsageError(
            api, "sharedTmpBuffer", f"{tmp.length} elements", f">= {need} elements", p,
            "the page's sharedTmpBuffer formula (关键特性说明)",
        )  # fmt: skip
    dyn["tmp_bytes"] = jnp.asarray(need, I32) * dt.itemsize
    dyn["vadd"] = jnp.asarray(vadd, bool)
    dyn["kind"] = jnp.asarray(LN.KINDS[kind], I32)
    rt = {"ReduceSum": "SUM", "ReduceMax": "MAX", "ReduceMin": "MIN"}[api]
    st = ReduceStatic(
        api=api, dtype=dt, R=R, profile=p, reduce_type=rt, cal_index=cal_index, sum_order=sum_order
    )
    return st, dyn


def _split_cal_index(args, calIndex):
    """(form args, calIndex): calIndex is the last positional argument (C++ order) or the keyword."""
    if len(args) in (2, 4):
        return args[:-1], (args[-1] if calIndex is None else calIndex)
    return args, (False if calIndex is None else calIndex)


@register(
    ApiSpec(
        "ReduceSum",
        "reduce",
        (
            "ReduceSum<T, isSetMask>(dst, src, sharedTmpBuffer, count)",
            "ReduceSum<T>(dst, src, sharedTmpBuffer, mask[], repeatTime, srcRepStride)",
            "ReduceSum<T>(dst, src, sharedTmpBuffer, mask, repeatTime, srcRepStride)",
        ),
        "memory-vector/归约计算/ReduceSum.md",
    )
)
def ReduceSum(state, dst, src, sharedTmpBuffer, *args, profile=None, isSetMask=True, max_repeats=None):
    """The sum of every active element into ``dst[0]`` (``AscendC::ReduceSum``), in the product's
    order (``apis.ReduceSum.order_count`` / ``order_highdim``). **Spec:** memory-vector/归约计算/ReduceSum.md.
    """
    return _call("ReduceSum", locals())


def _make_extreme(name):
    def fn(state, dst, src, sharedTmpBuffer, *args, profile=None, calIndex=None, max_repeats=None):
        return _call(name, locals())

    fn.__name__ = fn.__qualname__ = name
    word = "maximum" if name == "ReduceMax" else "minimum"
    fn.__doc__ = f"""The {word} of every active element into ``dst[0]`` and, with ``calIndex``, its index
    (the lowest on ties) as T-width integer bits into ``dst[1]`` (``AscendC::{name}``).

    Call forms: ``(dst, src, sharedTmpBuffer, count[, calIndex])`` or ``(dst, src, sharedTmpBuffer, mask,
    repeatTime, srcRepStride[, calIndex])``. **Spec:** memory-vector/归约计算/{name}.md.
    """
    protos = (
        f"{name}<T>(dst, src, sharedTmpBuffer, count, calIndex)",
        f"{name}<T>(dst, src, sharedTmpBuffer, mask[], repeatTime, srcRepStride, calIndex)",
        f"{name}<T>(dst, src, sharedTmpBuffer, mask, repeatTime, srcRepStride, calIndex)",
    )
    return register(ApiSpec(name, "reduce", protos, f"memory-vector/归约计算/{name}.md"))(fn)


ReduceMax = _make_extreme("ReduceMax")
ReduceMin = _make_extreme("ReduceMin")


# -- the planned call (aj.plan / aj.run, api/planned.py) ---------------------------------------------

PER_REPEAT = ("ReduceRepeat", "ReduceDataBlock", "ReducePairElem")
API_NAMES = PER_REPEAT + ("ReduceSum", "ReduceMax", "ReduceMin")


def _plan_args(api, a):
    """(ReduceStatic, dyn) of a call of ``api`` given its arguments by name (the public signature's:
    the public function passes ``locals()``, ``plan_reduce`` the bound arguments)."""
    if api in PER_REPEAT:
        args = (a["mask"], a["repeatTime"], a["dstRepStride"], a["srcBlkStride"], a["srcRepStride"])
        return plan_per_repeat(
            api, a["state"], a["dst"], a["src"], args, a["reduceType"], a.get("order"),
            a["profile"], a["isSetMask"], a["max_repeats"],
        )  # fmt: skip
    args, ci = (a["args"], False) if api == "ReduceSum" else _split_cal_index(a["args"], a["calIndex"])
    return plan_whole(
        api, a["state"], a["dst"], a["src"], a["sharedTmpBuffer"], args, a["profile"],
        a.get("isSetMask", True), ci, a["max_repeats"],
    )  # fmt: skip


def _run(st, state, dyn):
    return (run_per_repeat if st.api in PER_REPEAT else run_whole)(st, state, dyn)


def _call(api, a):
    st, dyn = _plan_args(api, a)
    return _run(st, a["state"], dyn)


def plan_reduce(api, state, *args, profile=None, max_repeats=None, **kwargs):
    """The planner behind ``aj.plan`` for the reduce group: binds the arguments to ``api``'s public
    signature, checks the call as the direct call does and returns ``(static, dyn)``: ``static`` the
    fields of the engine's ``ReduceStatic`` (API, dtype, repeat bucket R, profile, reduceType, order,
    calIndex, ReduceSum's summation order: each API has its own core, so the key names it), ``dyn``
    the call form, mask, counts, repeats, addresses and strides as traced data."""
    bound = _SIGNATURES[api].bind(state, *args, profile=profile, max_repeats=max_repeats, **kwargs)
    bound.apply_defaults()
    st, dyn = _plan_args(api, bound.arguments)
    return tuple(getattr(st, f) for f in ReduceStatic.__dataclass_fields__), dyn


def run_planned(static, state, dyn):
    """Runs a call planned by :func:`plan_reduce` (pure, jit- and vmap-compatible)."""
    return _run(ReduceStatic(*static), state, dyn)


_SIGNATURES = {name: inspect.signature(globals()[name]) for name in API_NAMES}


# -- the reduce result registers (寄存器辅助接口/) -------------------------------------------------


def _spr_value(bits, dt):
    """T's value of the low ``sizeof(T)`` bytes of register word(s) ``bits``: a NumPy scalar when
    concrete and unbatched, else a jnp array of T."""
    nb = dt.itemsize * 8
    if A.is_concrete_array(bits):
        arr = np.asarray(bits, np.uint32)
        if nb < 32:
            arr = (arr & np.uint32((1 << nb) - 1)).astype(np.uint16)
        v = arr.view(dt.np_dtype)
        return v[()] if v.ndim == 0 else jnp.asarray(v)
    if nb < 32:
        return lax.bitcast_convert_type((bits & U32((1 << nb) - 1)).astype(jnp.uint16), dt.np_dtype)
    return lax.bitcast_convert_type(bits, dt.np_dtype)


@register(
    ApiSpec(
        "GetReduceRepeatSumSpr",
        "reduce",
        ("GetReduceRepeatSumSpr<T>() -> T",),
        "memory-vector/归约计算/寄存器辅助接口/GetReduceRepeatSumSpr(ISASI).md",
    )
)
def GetReduceRepeatSumSpr(state, T, profile=None):
    """The ReduceSum result register as a T value (``AscendC::GetReduceRepeatSumSpr<T>()``): what the
    last ReduceSum (or ReduceRepeat<SUM>: its repeat sums added in order) wrote; 0 after reset. T
    must be the reduction's type ("否则会导致精度错误": the model reinterprets the low sizeof(T)
    bytes). **Spec:** memory-vector/归约计算/寄存器辅助接口/GetReduceRepeatSumSpr(ISASI).md."""
    p = as_profile(profile)
    dt = _dt.as_dtype(T)
    p.require_api("GetReduceRepeatSumSpr", dt)
    return _spr_value(register_words(state, "reduce_spr")[..., 0], dt)


@register(
    ApiSpec(
        "GetReduceRepeatMaxMinSpr",
        "reduce",
        (
            "GetReduceRepeatMaxMinSpr<T>(T &maxMinValue, T &maxMinIndex)",
            "GetReduceRepeatMaxMinSpr<T>(T &maxMinValue)",
        ),
        "memory-vector/归约计算/寄存器辅助接口/GetReduceRepeatMaxMinSpr(ISASI).md",
    )
)
def GetReduceRepeatMaxMinSpr(state, T, profile=None):
    """The max/min result register (``AscendC::GetReduceRepeatMaxMinSpr<T>``): ``(maxMinValue,
    maxMinIndex)`` where the product has the two-output prototype (``apis.GetReduceRepeatMaxMinSpr.
    with_index``), else ``maxMinValue`` alone. The index is T-typed bits, as on the NPU ("需要使用
    reinterpret_cast方法转换到整数类型": view it as uint16 / uint32). **Spec:**
    memory-vector/归约计算/寄存器辅助接口/GetReduceRepeatMaxMinSpr(ISASI).md."""
    p = as_profile(profile)
    dt = _dt.as_dtype(T)
    a = p.require_api("GetReduceRepeatMaxMinSpr", dt)
    spr = register_words(state, "reduce_spr")
    value = _spr_value(spr[..., 1], dt)
    if not a.with_index:
        return value
    return value, _spr_value(spr[..., 2], dt)
