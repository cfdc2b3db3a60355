"""The composite ops (复合计算/): AddRelu, SubRelu, MulAddRelu, FusedMulAdd, MulAddDst, AbsSub(ISASI)
and Prelu(ISASI) (基础算术/) on two strided tensor sources (``BinaryRepeatParams``), and Axpy (``dst = scalar * src + dst``,
``UnaryRepeatParams``). FusedMulAdd, MulAddRelu, MulAddDst and Axpy read dst as an operand.

Prototypes (C++ argument order; ``isSetMask`` is the template argument):
  X(dst, src0, src1, count)                                      -- tensor前n个数据计算
  X(dst, src0, src1, mask[] | mask, repeatTime, repeatParams)    -- 高维切分 (BinaryRepeatParams)
  Axpy(dst, src, scalarValue, count | mask, repeatTime, repeatParams)
  AbsSub(dst, src0, src1, count) only (the page's single prototype).
Element semantics: ``_engine/compound.py`` (each step rounded as its stand-alone API: FusedMulAdd is
two roundings); docs/MODEL.md "Composite ops". The mixed-precision row of Axpy / MulAddDst (half
sources, a float32 dst; ``apis.X.pairs``) runs on the strided core with ``src_dtype``; ExpSub(ISASI) has its own
program (float32 Sub, then e^x rounded once to T: ``_engine/elem_math.exp_sub``).

One program per (dtype, repeat bucket) serves the six binary-shaped APIs and every call form: the
API is traced data (``dyn["op"]``), the call form too (``dyn["kind"]``). Axpy has its own program,
and so does Mull(ISASI) (two destinations: ``_engine/mull.py``).
"""

import functools

import jax
import jax.numpy as jnp

from .. import dtypes as _dt
from .._engine import compound as CE
from .._engine import elem_math as EM
from .._engine.mull import MullStatic, run_mull
from .._engine.pipeline import StridedStatic, run_strided, set_extents
from ..errors import NotModelledError, UnsupportedError, UsageError
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..tensor import LocalTensor
from . import _args as A
from ._forms import count_form, default_big_bucket, empty_dyn, plan_forms, plan_unary_call

I32 = jnp.int32
U32 = jnp.uint32
HALF = _dt.as_dtype("half")
F32 = _dt.as_dtype("float32")

API_CODES = (
    "AddRelu",
    "SubRelu",
    "AbsSub",
    "FusedMulAdd",
    "MulAddRelu",
    "MulAddDst",
    "Prelu",
)  # op i <-> name
COUNT_ONLY = ("AbsSub", "Prelu")

_PROTOS = (
    "{name}(dst, src0, src1, count)",
    "{name}(dst, src0, src1, mask[], repeatTime, repeatParams)",
    "{name}(dst, src0, src1, mask, repeatTime, repeatParams)",
    "{name}<T, isSetMask=false>(dst, src0, src1, MASK_PLACEHOLDER, repeatTime, repeatParams)",
)


def _shapes(dtype):
    wide = dtype.itemsize == 8
    x = jax.ShapeDtypeStruct((1, 2, 2) if wide else (1, 2), U32)
    s = jax.ShapeDtypeStruct((2,) if wide else (), U32)
    return x, s, jax.ShapeDtypeStruct((2,), U32)


@functools.cache
def modelled(api, dtype, profile):
    """Whether the fast path has ``api``'s element function for ``dtype`` (an abstract trace)."""
    x, s, ctrl = _shapes(dtype)
    try:
        if api == "Axpy":
            jax.eval_shape(lambda a, b, c, k: CE.axpy(a, b, k, dtype, profile, c), x, x, ctrl, s)
        else:
            jax.eval_shape(lambda a, b, c: CE.BINARY[api](a, b, a, None, dtype, profile, c), x, x, ctrl)
    except NotModelledError:
        return False
    return True


def _codes(dtype, profile):
    out = []
    for i, api in enumerate(API_CODES):
        a = profile.api(api)
        if a.supported and dtype.name in a.all_dtypes() and modelled(api, dtype, profile):
            out.append((i, api))
    return tuple(out)


def any_elem(x, y, d, s, dtype, profile, ctrl, dyn):
    """The element function of the family: ``dyn["op"]`` selects the API; ``d`` is dst's old lanes."""
    r = None
    for i, api in _codes(dtype, profile):
        v = CE.BINARY[api](x, y, d, s, dtype, profile, ctrl)
        r = v if r is None else jnp.where(dyn["op"] == i, v, r)
    return r


def mixed_pair(api, dst, src, p):
    """Whether ``src.dtype -> dst.dtype`` (U != T) is a mixed-precision row of the product's table
    (``apis.<api>.pairs``, "half->float32"); a half src with a float32 dst the product does not list
    is an UnsupportedError; any other U != T is left to the same-dtype check."""
    if not (isinstance(dst, LocalTensor) and isinstance(src, LocalTensor)) or dst.dtype == src.dtype:
        return False
    pair = f"{src.dtype.name}->{dst.dtype.name}"
    listed = tuple(p.api(api).pairs)
    if pair in listed:
        return True
    if (src.dtype, dst.dtype) == (HALF, F32):
        raise UnsupportedError(api, "src.dtype/dst.dtype", pair, ", ".join(listed) or "U = T only", p)
    return False


def plan_mixed(api, state, dst, srcs, args, profile, isSetMask, max_repeats):
    """(StridedStatic, dyn) of a MulAddDst / Axpy call with half sources and a float32 dst (the
    tables' "half | half | float" row, PAR 64): lanes counted by float32 (64 a repeat), each source
    spanning 4 blocks a repeat, dst 8; the count form contiguous in both."""
    p = as_profile(profile)
    if not isinstance(isSetMask, bool):
        raise UsageError(api, "isSetMask", isSetMask, "True or False", p)
    binary = len(srcs) == 2
    names = ("src0", "src1") if binary else ("src",)
    if len(args) not in (1, 3):
        what = "src0, src1" if binary else "src, scalarValue"
        raise TypeError(
            f"{api}() takes (dst, {what}, count) or (dst, {what}, mask, repeatTime, repeatParams); "
            f"got {2 + len(srcs) + len(args)} arguments"
        )
    p.require_api(api)
    if binary:
        A.check_same_dtype(api, p, src0=srcs[0], src1=srcs[1])
    s, t = srcs[0].dtype, dst.dtype
    dyn = empty_dyn("dst", *names)
    dyn["dst"] = A.addr_of(dst)
    for k, x in zip(names, srcs, strict=True):
        dyn[k] = A.addr_of(x)
    set_extents(dyn, dst=dst, **dict(zip(names, srcs, strict=True)))
    # SPEC: "src和scalar的数据类型为half、dst的数据类型为float的情况下，一个迭代处理内最多处理64个输入数据"
    #       (MulAddDst.md, Axpy.md 约束说明): a repeat is 64 float32 lanes, 4 source blocks
    L = p.lanes(t)
    nd, ns = L * t.itemsize // p.block_bytes, L * s.itemsize // p.block_bytes
    count_strides = [1, 1, 1, nd, ns, ns] if binary else [1, 1, nd, ns]
    _, R, ordered = plan_forms(
        api, state, t, args, p, isSetMask, max_repeats, dyn, binary=binary, count_strides=count_strides
    )
    return _mixed_static(api, (s, t), R, ordered, p), dyn


def _mixed_static(api, pair, R, ordered, p):
    """The strided core of a mixed-precision row (``pair`` = (src dtype, dst dtype))."""
    binary = api == "MulAddDst"
    elem = CE.mul_add_dst_mixed if binary else CE.axpy_mixed
    names = ("src0", "src1") if binary else ("src",)
    # SPEC: "源操作数的数据类型为half、目的操作数的数据类型为float的情况下，不支持地址重叠": the
    #       two-width (conversion) overlap rules of the strided core (src_dtype)
    return StridedStatic(
        api=api,
        dtype=pair[1],
        R=R,
        ordered=ordered,
        profile=p,
        elem=elem,
        srcs=names,
        src_dtype=pair[0],
        read_dst=True,
    )


def plan(api, state, dst, src0, src1, args, profile, isSetMask, max_repeats):
    """(StridedStatic, dyn) of one call of a binary-shaped composite: the compile key and its traced data."""
    p = as_profile(profile)
    for name, t in (("dst", dst), ("src0", src0), ("src1", src1)):
        A.check_tensor(api, name, t, p)
    if not isinstance(isSetMask, bool):  # a C++ bool template argument (1 is not converted)
        raise UsageError(api, "isSetMask", isSetMask, "True or False", p)
    if len(args) not in (1, 3):
        raise TypeError(
            f"{api}() takes (dst, src0, src1, count) or (dst, src0, src1, mask, repeatTime, repeatParams); "
            f"got {3 + len(args)} arguments"
        )
    if api in COUNT_ONLY and len(args) == 3:
        # SPEC: AbsSub(ISASI).md and Prelu(ISASI).md list one prototype, X(dst, src0, src1, count)
        raise UsageError(api, "mask", args[0], "no high-dim prototype: call (count,)", p)
    if api == "MulAddDst" and mixed_pair(api, dst, src0, p):
        return plan_mixed(api, state, dst, (src0, src1), args, p, isSetMask, max_repeats)
    dt = dst.dtype
    p.require_api(api, dt, count_form=len(args) == 1)
    A.check_same_dtype(api, p, dst=dst, src0=src0, src1=src1)
    A.check_modelled(api, dt, p, wide_lanes=True)
    if not modelled(api, dt, p):
        raise NotModelledError(f"{api}: {dt.name} has no fast-path element function yet")
    dyn = empty_dyn("dst", "src0", "src1")
    dyn["dst"], dyn["src0"], dyn["src1"] = A.addr_of(dst), A.addr_of(src0), A.addr_of(src1)
    _, R, ordered = plan_forms(api, state, dt, args, p, isSetMask, max_repeats, dyn, binary=True)
    dyn["op"] = jnp.asarray(API_CODES.index(api), I32)
    return _binary_static(dt, R, ordered, p), dyn


def _binary_static(dt, R, ordered, p):
    """The strided core of the binary-shaped APIs of ``dt`` (the API traced, ``dyn["op"]``)."""
    return StridedStatic(
        api="*",
        dtype=dt,
        R=R,
        ordered=ordered,
        profile=p,
        elem=any_elem,
        srcs=("src0", "src1"),
        api_codes=API_CODES,
        read_dst=True,
    )


def compound_call(api, state, dst, src0, src1, args, profile, isSetMask, max_repeats):
    st, dyn = plan(api, state, dst, src0, src1, args, profile, isSetMask, max_repeats)
    return run_strided(st, state, dyn)


def _axpy_elem(x, d, s, dtype, profile, ctrl, dyn):
    return CE.axpy(x, d, s, dtype, profile, ctrl)


def plan_axpy(state, dst, src, scalarValue, args, profile, isSetMask, max_repeats):
    """(StridedStatic, dyn) of one Axpy call."""
    api = "Axpy"
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    A.check_tensor(api, "src", src, p)
    if mixed_pair(api, dst, src, p):
        st, dyn = plan_mixed(api, state, dst, (src,), args, p, isSetMask, max_repeats)
        # SPEC: "const U& scalarValue": the scalar converted to U (half)
        dyn["scalar"] = A.scalar_bits(api, scalarValue, src.dtype, p)
        return st, dyn
    if len(args) not in (1, 3):
        raise TypeError(
            "Axpy() takes (dst, src, scalarValue, count) or "
            f"(dst, src, scalarValue, mask, repeatTime, repeatParams); got {3 + len(args)} arguments"
        )
    _, R, ordered, dyn = plan_unary_call(
        api, state, dst, src, args, p, isSetMask, max_repeats, int64_lanes=True
    )
    dt = dst.dtype
    if not modelled(api, dt, p):
        raise NotModelledError(f"Axpy: {dt.name} has no fast-path element function yet")
    # SPEC: "scalarValue的数据类型需要和src保持一致" -- converted to U (= T) first
    dyn["scalar"] = A.scalar_bits(api, scalarValue, dt, p)
    return _axpy_static(dt, R, ordered, p), dyn


def _axpy_static(dt, R, ordered, p):
    return StridedStatic(
        api="Axpy", dtype=dt, R=R, ordered=ordered, profile=p, elem=_axpy_elem, read_dst=True
    )


def _doc(name, formula, doc):
    return f"""``{formula}`` over the active lanes (Ascend C ``AscendC::{name}``).

    Call forms (C++ order): ``{name}(state, dst, src0, src1, count)`` or
    ``{name}(state, dst, src0, src1, mask, repeatTime, repeatParams)`` with ``mask`` an int
    (continuous), a list of uint64 words low first (bitwise), a traced uint32 word array, or
    ``MASK_PLACEHOLDER`` with ``isSetMask=False``; ``repeatParams`` a ``BinaryRepeatParams``.
    MulAddDst also takes half sources with a float32 dst where ``apis.MulAddDst.pairs`` lists
    "half->float32" (64 lanes a repeat; the float32 product of the widened sources, exact, plus dst
    rounded once). Each step of the formula is rounded as its stand-alone API (docs/MODEL.md "Composite ops").
    ``profile``: product (default ascend910b). ``max_repeats``: static repeat bucket for traced
    counts/repeats. Returns the new CoreState.

    **Spec:** {doc}. Profile keys: ``apis.{name}``, ``numerics.*``, ``behavior.*``.
    """


def _make(name, formula, doc):
    def api(state, dst, src0, src1, *args, profile=None, isSetMask=True, max_repeats=None):
        return compound_call(name, state, dst, src0, src1, args, profile, isSetMask, max_repeats)

    api.__name__ = api.__qualname__ = name
    api.__doc__ = _doc(name, formula, doc)
    spec = ApiSpec(name, "compound", tuple(pr.format(name=name) for pr in _PROTOS), doc)
    return register(spec)(api)


_D = "memory-vector/复合计算/"
AddRelu = _make("AddRelu", "dst_i = Relu(src0_i + src1_i)", _D + "AddRelu.md")
SubRelu = _make("SubRelu", "dst_i = Relu(src0_i - src1_i)", _D + "SubRelu.md")
FusedMulAdd = _make("FusedMulAdd", "dst_i = (src0_i * dst_i) + src1_i", _D + "FusedMulAdd.md")
MulAddRelu = _make("MulAddRelu", "dst_i = Relu((src0_i * dst_i) + src1_i)", _D + "MulAddRelu.md")
MulAddDst = _make("MulAddDst", "dst_i = src0_i * src1_i + dst_i", _D + "MulAddDst.md")


@register(ApiSpec("AbsSub", "compound", ("AbsSub(dst, src0, src1, count)",), _D + "AbsSub(ISASI).md"))
def AbsSub(state, dst, src0, src1, *args, profile=None, max_repeats=None):
    """``dst_i = |src0_i - src1_i|`` over the first ``count`` elements (Ascend C ``AscendC::AbsSub``,
    ISASI). The page lists one prototype, ``AbsSub(dst, src0, src1, count)`` (no mask, no isSetMask).

    **Spec:** memory-vector/复合计算/AbsSub(ISASI).md. Profile keys: ``apis.AbsSub``.
    """
    return compound_call("AbsSub", state, dst, src0, src1, args, profile, True, max_repeats)


@register(
    ApiSpec("Prelu", "compound", ("Prelu(dst, src0, src1, count)",), "memory-vector/基础算术/Prelu(ISASI).md")
)
def Prelu(state, dst, src0, src1, *args, profile=None, max_repeats=None):
    """``dst_i = src0_i if src0_i >= 0 else src0_i * src1_i`` over the first ``count`` elements
    (Ascend C ``AscendC::Prelu``, ISASI; the count prototype only). -0 passes unchanged; NaN goes
    through the product (canonical NaN), as LeakyRelu.

    **Spec:** memory-vector/基础算术/Prelu(ISASI).md. Profile keys: ``apis.Prelu``.
    """
    return compound_call("Prelu", state, dst, src0, src1, args, profile, True, max_repeats)


_AXPY_PROTOS = (
    "Axpy(dst, src, scalarValue, count)",
    "Axpy(dst, src, scalarValue, mask[], repeatTime, repeatParams)",
    "Axpy(dst, src, scalarValue, mask, repeatTime, repeatParams)",
    "Axpy<T, U, isSetMask=false>(dst, src, scalarValue, MASK_PLACEHOLDER, repeatTime, repeatParams)",
)


@register(ApiSpec("Axpy", "compound", _AXPY_PROTOS, _D + "Axpy.md"))
def Axpy(state, dst, src, scalarValue, *args, profile=None, isSetMask=True, max_repeats=None):
    """``dst_i = scalarValue * src_i + dst_i`` over the active lanes (Ascend C ``AscendC::Axpy``),
    the product rounded to T, then the sum (two roundings).

    Call forms: ``Axpy(state, dst, src, scalarValue, count)`` or
    ``Axpy(state, dst, src, scalarValue, mask, repeatTime, repeatParams)`` (``UnaryRepeatParams``).
    Half src / scalarValue with a float32 dst where ``apis.Axpy.pairs`` lists "half->float32": 64
    lanes a repeat (src 4 blocks, dst 8), the float32 product of the widened operands (exact) plus dst
    rounded once.

    **Spec:** memory-vector/复合计算/Axpy.md. Profile keys: ``apis.Axpy``.
    """
    st, dyn = plan_axpy(state, dst, src, scalarValue, args, profile, isSetMask, max_repeats)
    return run_strided(st, state, dyn)


def plan_mull(state, dst0, dst1, src0, src1, args, profile, max_repeats=None):
    """(MullStatic, dyn) of one Mull call; static misuse raises UsageError."""
    api = "Mull"
    p = as_profile(profile)
    for name, t in (("dst0", dst0), ("dst1", dst1), ("src0", src0), ("src1", src1)):
        A.check_tensor(api, name, t, p)
    if len(args) != 1:
        # SPEC: Mull(ISASI).md lists one prototype, Mull(dst0, dst1, src0, src1, count)
        if len(args) == 3:
            raise UsageError(api, "mask", args[0], "no high-dim prototype: call (count,)", p)
        raise TypeError(f"Mull() takes (dst0, dst1, src0, src1, count); got {4 + len(args)} arguments")
    dt = dst0.dtype
    p.require_api(api, dt, count_form=True)
    A.check_same_dtype(api, p, dst0=dst0, dst1=dst1, src0=src0, src1=src1)
    dyn = empty_dyn("dst0", "dst1", "src0", "src1")
    for k, t in (("dst0", dst0), ("dst1", dst1), ("src0", src0), ("src1", src1)):
        dyn[k] = A.addr_of(t)
    R = min(count_form(api, args[0], dt, p, max_repeats, dyn), default_big_bucket(p))
    return MullStatic(dtype=dt, R=R, profile=p), dyn


@register(
    ApiSpec(
        "Mull", "compound", ("Mull(dst0, dst1, src0, src1, count)",), "memory-vector/基础算术/Mull(ISASI).md"
    )
)
def Mull(state, dst0, dst1, src0, src1, *args, profile=None, max_repeats=None):
    """Full int32/uint32 product over the first ``count`` elements (Ascend C ``AscendC::Mull``,
    ISASI): the low 32 bits to ``dst0_i``, the high 32 bits to ``dst1_i``. The count prototype only.

    **Spec:** memory-vector/基础算术/Mull(ISASI).md. Profile keys: ``apis.Mull``.
    """
    st, dyn = plan_mull(state, dst0, dst1, src0, src1, args, profile, max_repeats)
    return run_mull(st, state, dyn)


__all__ = [*API_CODES, "Axpy", "Mull"]


# -- ExpSub(ISASI): its own program (float32 e**x is the costly part of the family) -------------


def _exp_sub_elem(x, y, s, dtype, profile, ctrl, dyn):
    return EM.exp_sub(x, y, dtype, profile, ctrl)


def plan_exp_sub(state, dst, src0, src1, args, profile, max_repeats=None):
    """(StridedStatic, dyn) of one ExpSub call; static misuse raises UsageError."""
    api = "ExpSub"
    p = as_profile(profile)
    for name, t in (("dst", dst), ("src0", src0), ("src1", src1)):
        A.check_tensor(api, name, t, p)
    if len(args) != 1:
        # SPEC: ExpSub(ISASI).md lists one prototype, ExpSub(dst, src0, src1, count)
        if len(args) == 3:
            raise UsageError(api, "mask", args[0], "no high-dim prototype: call (count,)", p)
        raise TypeError(f"ExpSub() takes (dst, src0, src1, count); got {3 + len(args)} arguments")
    dt = dst.dtype
    p.require_api(api, dt, count_form=True)
    for t in (src0, src1):
        if t.dtype != dt:  # template <typename T, typename U>: U != T is documented, not modelled
            raise NotModelledError(f"ExpSub: U = {t.dtype.name} with T = {dt.name} is not modelled yet")
    dyn = empty_dyn("dst", "src0", "src1")
    dyn["dst"], dyn["src0"], dyn["src1"] = A.addr_of(dst), A.addr_of(src0), A.addr_of(src1)
    _, R, ordered = plan_forms(api, state, dt, args, p, True, max_repeats, dyn, binary=True)
    return _exp_sub_static(dt, R, ordered, p), dyn


def _exp_sub_static(dt, R, ordered, p):
    return StridedStatic(
        api="ExpSub", dtype=dt, R=R, ordered=ordered, profile=p, elem=_exp_sub_elem, srcs=("src0", "src1")
    )


@register(ApiSpec("ExpSub", "compound", ("ExpSub(dst, src0, src1, count)",), _D + "ExpSub(ISASI).md"))
def ExpSub(state, dst, src0, src1, *args, profile=None, max_repeats=None):
    """``dst_i = e^(src0_i - src1_i)`` over the first ``count`` elements (Ascend C
    ``AscendC::ExpSub``, ISASI; the count prototype only). The difference is a float32 Sub (half
    sources widened exactly first), then e^x is rounded once to T (``apis.Exp.numerics``). T = U
    only (the T != U combinations are not modelled: ``NotModelledError``).

    **Spec:** memory-vector/复合计算/ExpSub(ISASI).md. Profile keys: ``apis.ExpSub``, ``apis.Exp``.
    """
    st, dyn = plan_exp_sub(state, dst, src0, src1, args, profile, max_repeats)
    return run_strided(st, state, dyn)


__all__ += ["ExpSub"]


# -- the planned-call interface (``aj.plan`` / ``aj.run``, api/planned.py) -------------------------
# Three groups, one strided core each: "compound" (the binary-shaped APIs of API_CODES: the API is
# traced data, dyn["op"]), "axpy" and "exp_sub". A key's static part is (T, R, ordered, profile),
# T the dtype, or the (src dtype, dst dtype) pair of a mixed-precision row (MulAddDst, Axpy:
# half sources, a float32 dst; their own core). The planners are the direct calls' own.

_UNSET = object()


def _static_of(st):
    t = st.dtype if st.src_dtype is None else (st.src_dtype, st.dtype)
    return (t, st.R, st.ordered, st.profile)


def plan_planned(api, state, dst, src0, src1, *args, profile=None, isSetMask=_UNSET, max_repeats=None):
    """``aj.plan``'s planner of the "compound" group: ``(static, dyn)``, the direct call's checks."""
    if isSetMask is _UNSET:
        isSetMask = True
    elif api in COUNT_ONLY:  # their one prototype has no isSetMask (as the direct call's signature)
        raise TypeError(f"{api}() got an unexpected keyword argument 'isSetMask'")
    st, dyn = plan(api, state, dst, src0, src1, args, profile, isSetMask, max_repeats)
    return _static_of(st), dyn


def run_planned(static, state, dyn):
    """Runs a call planned by :func:`plan_planned` (pure, jit- and vmap-compatible)."""
    t, R, ordered, p = static
    st = _mixed_static("MulAddDst", t, R, ordered, p) if isinstance(t, tuple) else _binary_static(*static)
    return run_strided(st, state, dyn)


def plan_planned_axpy(
    api, state, dst, src, scalarValue, *args, profile=None, isSetMask=True, max_repeats=None
):
    """``aj.plan``'s planner of the "axpy" group."""
    st, dyn = plan_axpy(state, dst, src, scalarValue, args, profile, isSetMask, max_repeats)
    return _static_of(st), dyn


def run_planned_axpy(static, state, dyn):
    t, R, ordered, p = static
    st = _mixed_static("Axpy", t, R, ordered, p) if isinstance(t, tuple) else _axpy_static(*static)
    return run_strided(st, state, dyn)


def plan_planned_exp_sub(api, state, dst, src0, src1, *args, profile=None, max_repeats=None):
    """``aj.plan``'s planner of the "exp_sub" group."""
    st, dyn = plan_exp_sub(state, dst, src0, src1, args, profile, max_repeats)
    return _static_of(st), dyn


def run_planned_exp_sub(static, state, dyn):
    return run_strided(_exp_sub_static(*static), state, dyn)
