"""Abs, Relu, Exp, Ln, Sqrt, Rsqrt, Reciprocal, Neg(ISASI) (基础算术/), Not (逻辑计算/):
``dst_i = f(src_i)``; and LeakyRelu (基础算术/): ``dst_i = src_i >= 0 ? src_i : scalarValue * src_i``.

Prototypes (C++ argument order; ``isSetMask`` is the template argument):
  X(dst, src, count)                                     -- tensor前n个数据计算
  X(dst, src, mask[] | mask, repeatTime, repeatParams)   -- 高维切分 (UnaryRepeatParams)
  X<T, false>(dst, src, MASK_PLACEHOLDER, repeatTime, repeatParams)
  LeakyRelu(dst, src, scalarValue, ...) the same forms with the scalar after src;
  Neg(dst, src, count) only (the page's single prototype).
Element semantics: ``_engine/elem_math.py``; docs/MODEL.md.

One program per (dtype, repeat bucket) serves all ten APIs and every call form: the API is traced
data (``dyn["op"]``), the call form too (``dyn["kind"]``); the scalar is traced (zero for the
tensor-only APIs). float32 Exp, Ln and Rsqrt (integer fixed-point evaluations, ``_engine/transcend.py``) have
a program each.
"""

import functools

import jax
import jax.numpy as jnp

from .. import dtypes as _dt
from .._engine import elem_math as EM
from .._engine.pipeline import StridedStatic, run_strided
from ..errors import NotModelledError, UsageError
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..tensor import LocalTensor
from . import _args as A
from ._forms import plan_unary_call

I32 = jnp.int32
U32 = jnp.uint32

API_CODES = ("Abs", "Relu", "Neg", "Not", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal", "LeakyRelu")

_PROTOS = (
    "{name}(dst, src, count)",
    "{name}(dst, src, mask[], repeatTime, repeatParams)",
    "{name}(dst, src, mask, repeatTime, repeatParams)",
    "{name}<T, isSetMask=false>(dst, src, MASK_PLACEHOLDER, repeatTime, repeatParams)",
)
_LEAKY_PROTOS = tuple(p.replace("src,", "src, scalarValue,") for p in _PROTOS)


def _fn(api):
    if api == "LeakyRelu":
        return EM.leaky_relu
    f = EM.UNARY[api]
    return lambda x, s, dtype, profile, ctrl: f(x, dtype, profile, ctrl)


@functools.cache
def modelled(api, dtype, profile):
    """Whether the fast path has ``api``'s element function for ``dtype`` (an abstract trace)."""
    x = jax.ShapeDtypeStruct((1, 2, 2) if dtype.itemsize == 8 else (1, 2), U32)
    s = jax.ShapeDtypeStruct((2,) if dtype.itemsize == 8 else (), U32)
    ctrl = jax.ShapeDtypeStruct((2,), U32)
    try:
        jax.eval_shape(lambda a, b, c: _fn(api)(a, b, dtype, profile, c), x, s, ctrl)
    except (NotModelledError, KeyError):
        return False
    return True


# float32 Exp / Ln / Rsqrt are integer fixed-point evaluations (``_engine/transcend.py``), far bigger than
# the other element functions: each has its own program instead of joining the family's shared one
_OWN_PROGRAM = ("Exp", "Ln", "Rsqrt")


def _own_program(api, dtype):
    return dtype.name == "float32" and api in _OWN_PROGRAM


def program_key(api, dtype):
    """The API name if ``api`` on ``dtype`` compiles a program of its own, else ``"*"`` (the
    family's shared program, the API traced): callers batching calls by program group by it."""
    return api if _own_program(api, _dt.as_dtype(dtype)) else "*"


@functools.cache
def _single_elem(api):
    f = _fn(api)

    def elem(x, s, dtype, profile, ctrl, dyn):
        return f(x, s, dtype, profile, ctrl)

    elem.__name__ = f"{api.lower()}_elem"
    return elem


def _codes(dtype, profile):
    out = []
    for i, api in enumerate(API_CODES):
        a = profile.api(api)
        if _own_program(api, dtype):
            continue
        if a.supported and dtype.name in a.all_dtypes() and modelled(api, dtype, profile):
            out.append((i, api))
    return tuple(out)


def any_elem(x, s, dtype, profile, ctrl, dyn):
    """The element function of the family: ``dyn["op"]`` selects the API."""
    r = None
    for i, api in _codes(dtype, profile):
        v = _fn(api)(x, s, dtype, profile, ctrl)
        r = v if r is None else jnp.where(dyn["op"] == i, v, r)
    return r


def plan(api, state, dst, src, scalar, args, profile, isSetMask, max_repeats):
    """(StridedStatic, dyn) of one call: the compile key and its traced data."""
    p = as_profile(profile)
    if api == "Abs" and isinstance(dst, LocalTensor) and isinstance(src, LocalTensor) and len(args) == 1:
        pair = f"{src.dtype.name}->{dst.dtype.name}"
        if pair in p.api("Abs").complex_pairs:
            # SPEC: "tensor前n个复数计算 ... template <typename T, typename U> Abs(dst, src, count)"; "当U为
            #       complex32类型时，T必须是half类型；当U为complex64类型时，T必须是float类型" (Abs.md, 950)
            raise NotModelledError(
                f"Abs<T, U>: the complex modulus {pair} is documented but not modelled yet"
            )
    if len(args) not in (1, 3):
        head = "dst, src, scalarValue" if api == "LeakyRelu" else "dst, src"
        raise TypeError(
            f"{api}() takes ({head}, count) or ({head}, mask, repeatTime, repeatParams); "
            f"got {len(args)} arguments after {head}"
        )
    _, R, ordered, dyn = plan_unary_call(
        api, state, dst, src, args, p, isSetMask, max_repeats, int64_lanes=True
    )
    dt = dst.dtype
    if not modelled(api, dt, p):
        raise NotModelledError(f"{api}: {dt.name} has no fast-path element function yet")
    if scalar is None:
        dyn["scalar"] = jnp.zeros((2,) if dt.itemsize == 8 else (), U32)
    else:
        dyn["scalar"] = A.scalar_bits(api, scalar, dt, p)
    dyn["op"] = jnp.asarray(API_CODES.index(api), I32)
    return _strided((dt, R, ordered, p, program_key(api, dt))), dyn


def _strided(static):
    dtype, R, ordered, p, prog = static
    if prog != "*":
        return StridedStatic(api=prog, dtype=dtype, R=R, ordered=ordered, profile=p, elem=_single_elem(prog))
    return StridedStatic(
        api="*", dtype=dtype, R=R, ordered=ordered, profile=p, elem=any_elem, api_codes=API_CODES
    )


def plan_unary(api, state, dst, src, *args, profile=None, isSetMask=None, max_repeats=None):
    """The planner behind ``aj.plan`` for this group (arguments as the API takes them, LeakyRelu's
    scalarValue first among ``args``): ``(static, dyn)`` with ``static`` = (dtype, repeat bucket R,
    ordered, profile, :func:`program_key`): the API is traced (dyn["op"]) except where it compiles
    a program of its own (float32 Exp / Ln / Rsqrt)."""
    scalar = None
    if api == "Neg":
        if isSetMask is not None:  # as the direct call: Neg has no isSetMask
            raise TypeError("Neg() got an unexpected keyword argument 'isSetMask'")
        _neg_check(dst, src, args, profile)
    elif api == "LeakyRelu":
        if not args:
            raise TypeError("LeakyRelu() missing 1 required positional argument: 'scalarValue'")
        scalar, args = args[0], args[1:]
    is_set = True if isSetMask is None else isSetMask
    st, dyn = plan(api, state, dst, src, scalar, args, profile, is_set, max_repeats)
    return (st.dtype, st.R, st.ordered, st.profile, st.api), dyn


def run_planned(static, state, dyn):
    """Runs a call planned by :func:`plan_unary` (pure, jit- and vmap-compatible)."""
    return run_strided(_strided(static), state, dyn)


def unary_call(api, state, dst, src, scalar, args, profile, isSetMask, max_repeats):
    st, dyn = plan(api, state, dst, src, scalar, args, profile, isSetMask, max_repeats)
    return run_strided(st, state, dyn)


def _doc(name, formula, doc, head):
    return f"""``{formula}`` over the active lanes (Ascend C ``AscendC::{name}``).

    Call forms (C++ order): ``{name}(state, {head}, count)`` or
    ``{name}(state, {head}, mask, repeatTime, repeatParams)`` with ``mask`` an int (continuous), a
    list of uint64 words low first (bitwise), a traced uint32 word array, or ``MASK_PLACEHOLDER``
    with ``isSetMask=False``; ``repeatParams`` a ``UnaryRepeatParams``. ``profile``: product
    (default ascend910b). ``max_repeats``: static repeat bucket for traced counts/repeats. Returns
    the new CoreState.

    **Spec:** {doc}. Profile keys: ``apis.{name}``, ``numerics.*``, ``behavior.*``.
    """


def _make(name, formula, doc):
    def api(state, dst, src, *args, profile=None, isSetMask=True, max_repeats=None):
        return unary_call(name, state, dst, src, None, args, profile, isSetMask, max_repeats)

    api.__name__ = api.__qualname__ = name
    api.__doc__ = _doc(name, formula, doc, "dst, src")
    spec = ApiSpec(name, "unary", tuple(pr.format(name=name) for pr in _PROTOS), doc)
    return register(spec)(api)


Abs = _make("Abs", "dst_i = |src_i|", "memory-vector/基础算术/Abs.md")
Relu = _make("Relu", "dst_i = max(src_i, 0)", "memory-vector/基础算术/Relu.md")
Not = _make("Not", "dst_i = ~src_i", "memory-vector/逻辑计算/Not.md")
Exp = _make("Exp", "dst_i = e^src_i", "memory-vector/基础算术/Exp.md")
Ln = _make("Ln", "dst_i = ln(src_i)", "memory-vector/基础算术/Ln.md")
Sqrt = _make("Sqrt", "dst_i = sqrt(src_i)", "memory-vector/基础算术/Sqrt.md")
Rsqrt = _make("Rsqrt", "dst_i = 1 / sqrt(src_i)", "memory-vector/基础算术/Rsqrt.md")
Reciprocal = _make("Reciprocal", "dst_i = 1 / src_i", "memory-vector/基础算术/Reciprocal.md")


@register(ApiSpec("Neg", "unary", ("Neg(dst, src, count)",), "memory-vector/基础算术/Neg(ISASI).md"))
def Neg(state, dst, src, *args, profile=None, max_repeats=None):
    """``dst_i = -src_i`` over the first ``count`` elements (Ascend C ``AscendC::Neg``, ISASI).

    The page lists one prototype, ``Neg(dst, src, count)`` (no mask, no isSetMask).
    **Spec:** memory-vector/基础算术/Neg(ISASI).md. Profile keys: ``apis.Neg``.
    """
    _neg_check(dst, src, args, profile)
    return unary_call("Neg", state, dst, src, None, args, profile, True, max_repeats)


def _neg_check(dst, src, args, profile):
    # SPEC: "__aicore__ inline void Neg(const LocalTensor& dst, const LocalTensor& src,
    #       const uint32_t count)" -- the page's only prototype
    if len(args) == 3:
        p = as_profile(profile)
        A.check_tensor("Neg", "dst", dst, p)
        A.check_tensor("Neg", "src", src, p)
        raise UsageError("Neg", "mask", args[0], "no high-dim prototype: call (count,)", p)


@register(ApiSpec("LeakyRelu", "unary", _LEAKY_PROTOS, "memory-vector/基础算术/LeakyRelu.md"))
def LeakyRelu(state, dst, src, scalarValue, *args, profile=None, isSetMask=True, max_repeats=None):
    return unary_call("LeakyRelu", state, dst, src, scalarValue, args, profile, isSetMask, max_repeats)


LeakyRelu.__doc__ = _doc(
    "LeakyRelu",
    "dst_i = src_i if src_i >= 0 else scalarValue * src_i",
    "memory-vector/基础算术/LeakyRelu.md",
    "dst, src, scalarValue",
)

__all__ = list(API_CODES)
