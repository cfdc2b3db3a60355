"""The 灵活标量位置 (flexible scalar position) APIs: Subs, Divs, Ands, Ors and the flexible variants
of Adds/Muls/Maxs/Mins (``AddsFlexible`` ...): ``dst_i = f(src_i, scalar)`` or ``f(scalar, src_i)``.

Prototypes (C++ argument order; ``isSetMask`` and ``config`` (BinaryConfig) are template arguments):
  X(dst, src0, src1, count)
  X(dst, src0, src1, mask[] | mask, repeatTime, repeatParams)     (UnaryRepeatParams)
Exactly one of src0 / src1 is the scalar: a Python number in that position, or -- when both are
LocalTensors -- element 0 of the tensor ``config.scalarTensorIndex`` names (0 = src0, 1 = src1,
default 1), read from UB at run time at its (traced) address: no alignment rule, inside UB
(OUT_OF_UB), not meeting an active dst block (PARTIAL_OVERLAP). Element semantics:
``_engine/elem_math.flexible``.

One program per (dtype, repeat bucket) serves all eight APIs, both scalar positions, a number or a
LocalTensor element as the scalar, and every call form (``dyn["op"]``, ``dyn["first"]``,
``dyn["elem_on"]``, ``dyn["kind"]``).
"""

import functools

import jax
import jax.numpy as jnp

from .._engine import elem_math as EM
from .._engine import lanes as LN
from .._engine import memory as MEM
from .._engine.pipeline import StridedStatic, run_strided, set_extents
from ..errors import NotModelledError, UsageError
from ..params import UnaryRepeatParams, as_unary_params
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..tensor import LocalTensor
from . import _args as A
from ._forms import count_form, default_big_bucket, empty_dyn, highdim_form, unary_strides

I32 = jnp.int32
U32 = jnp.uint32

API_CODES = ("Subs", "Divs", "Ands", "Ors", "AddsFlexible", "MulsFlexible", "MaxsFlexible", "MinsFlexible")

_PROTOS = (
    "{name}(dst, src0, src1, count)",
    "{name}(dst, src0, src1, mask[], repeatTime, repeatParams)",
    "{name}(dst, src0, src1, mask, repeatTime, repeatParams)",
    "{name}<T, isSetMask=false>(dst, src0, src1, MASK_PLACEHOLDER, repeatTime, repeatParams)",
)


@functools.cache
def modelled(api, dtype, profile):
    """Whether the fast path has ``api``'s element function for ``dtype`` (an abstract trace)."""
    x = jax.ShapeDtypeStruct((1, 2, 2) if dtype.itemsize == 8 else (1, 2), U32)
    s = jax.ShapeDtypeStruct((2,) if dtype.itemsize == 8 else (), U32)
    ctrl = jax.ShapeDtypeStruct((2,), U32)
    try:
        for first in (False, True):
            jax.eval_shape(lambda a, b, c, f=first: EM.flexible(api, a, b, f, dtype, profile, c), x, s, ctrl)
    except (NotModelledError, KeyError):
        return False
    return True


def _codes(dtype, profile):
    out = []
    for i, api in enumerate(API_CODES):
        a = profile.api(api)
        if a.supported and dtype.name in a.all_dtypes() and modelled(api, dtype, profile):
            out.append((i, api))
    return tuple(out)


def any_elem(x, s, dtype, profile, ctrl, dyn):
    """The family's element function: ``dyn["op"]`` selects the API, ``dyn["first"]`` the scalar's
    position (True: ``f(scalar, src_i)``)."""
    r = None
    for i, api in _codes(dtype, profile):
        after = EM.flexible(api, x, s, False, dtype, profile, ctrl)
        before = EM.flexible(api, x, s, True, dtype, profile, ctrl)
        v = jnp.where(dyn["first"], before, after)
        r = v if r is None else jnp.where(dyn["op"] == i, v, r)
    return r


def plan(api, state, dst, src0, src1, args, profile, isSetMask, config, max_repeats):
    """(StridedStatic, dyn) of one call: the compile key and its traced data."""
    p = as_profile(profile)
    t0, t1 = isinstance(src0, LocalTensor), isinstance(src1, LocalTensor)
    if not t0 and not t1:
        # SPEC: "当前不支持左右操作数同时为标量" (基础算术/Subs（灵活标量位置）.md 约束说明)
        raise UsageError(api, "src0/src1", (src0, src1), "one LocalTensor operand", p, "two scalars")
    element = t0 and t1
    if element:
        # SPEC: "BinaryConfig ... 默认值DEFAULT_BINARY_CONFIG，表示右操作数为标量" (Subs（灵活标量位置）.md)
        idx = 1 if config is None else getattr(config, "scalarTensorIndex", config)
        if not isinstance(idx, int) or isinstance(idx, bool) or idx not in (0, 1):
            raise UsageError(api, "config.scalarTensorIndex", idx, "0 or 1", p)
        first = idx == 0
    else:
        first = not t0  # the scalar is src0
    vec, vec_name, scalar = (src1, "src1", src0) if first else (src0, "src0", src1)
    A.check_tensor(api, "dst", dst, p)
    if element and scalar.dtype != dst.dtype:
        s_name = "src0" if first else "src1"
        raise UsageError(api, f"{s_name}.dtype", scalar.dtype.name, f"{dst.dtype.name} (= dst.dtype)", p)
    if not isinstance(isSetMask, bool):
        raise UsageError(api, "isSetMask", isSetMask, "True or False", p)
    if len(args) not in (1, 3):
        raise TypeError(
            f"{api}() takes (dst, src0, src1, count) or (dst, src0, src1, mask, repeatTime, repeatParams); "
            f"got {3 + len(args)} arguments"
        )
    form = "count" if len(args) == 1 else "highdim"
    dt = dst.dtype
    p.require_api(api, dt, count_form=(form == "count"))
    A.check_same_dtype(api, p, dst=dst, **{vec_name: vec})
    A.check_modelled(api, dt, p, wide_lanes=True)
    if not modelled(api, dt, p):
        raise NotModelledError(f"{api}: {dt.name} has no fast-path element function yet")
    dyn = empty_dyn("dst", "src")
    dyn["dst"], dyn["src"] = A.addr_of(dst), A.addr_of(vec)
    set_extents(dyn, dst=dst, src=vec)  # checker warnings
    if form == "count":
        use_reg = (not isSetMask) and p.level2_is_set_mask == "honoured"
        R = count_form(api, args[0], dt, p, max_repeats, dyn, registers=state if use_reg else None)
        kind = "count_register" if use_reg else "count"
        params = UnaryRepeatParams()
    else:
        mask, repeat, params = args
        params = as_unary_params(params)
        kind, R = highdim_form(api, mask, repeat, dt, p, isSetMask, state, max_repeats, dyn)
    unary_strides(api, params, p, dyn)
    dyn["kind"] = jnp.asarray(LN.KINDS[kind], I32)
    if element:
        # the scalar is the T element at the tensor's address, read from UB at run time (traced)
        dyn["scalar"] = jnp.zeros((2,) if dt.itemsize == 8 else (), U32)
        dyn["elem"] = A.addr_of(scalar)
    else:
        dyn["scalar"] = A.scalar_bits(api, scalar, dt, p)
        dyn["elem"] = jnp.zeros((), I32)
    dyn["elem_on"] = jnp.asarray(element)
    dyn["op"] = jnp.asarray(API_CODES.index(api), I32)
    dyn["first"] = jnp.asarray(first)
    R = min(R, default_big_bucket(p))
    ordered = form == "highdim" and MEM.collisions_possible(params.dstRepStride, params.dstBlkStride, R)
    return _strided((dt, R, ordered, p)), dyn


def _strided(static):
    dtype, R, ordered, p = static
    return StridedStatic(
        api="*",
        dtype=dtype,
        R=R,
        ordered=ordered,
        profile=p,
        elem=any_elem,
        api_codes=API_CODES,
        element_scalar=True,
    )


def plan_binary_scalar(
    api, state, dst, src0, src1, *args, profile=None, isSetMask=True, config=None, max_repeats=None
):
    """The planner behind ``aj.plan`` for this group: ``(static, dyn)`` with ``static`` = (dtype,
    repeat bucket R, ordered, profile), the API and the scalar's position traced (dyn["op"],
    dyn["first"], dyn["elem_on"])."""
    st, dyn = plan(api, state, dst, src0, src1, args, profile, isSetMask, config, max_repeats)
    return (st.dtype, st.R, st.ordered, st.profile), dyn


def run_planned(static, state, dyn):
    """Runs a call planned by :func:`plan_binary_scalar` (pure, jit- and vmap-compatible)."""
    return run_strided(_strided(static), state, dyn)


def _make(name, formula, doc):
    def api(state, dst, src0, src1, *args, profile=None, isSetMask=True, config=None, max_repeats=None):
        st, dyn = plan(name, state, dst, src0, src1, args, profile, isSetMask, config, max_repeats)
        return run_strided(st, state, dyn)

    api.__name__ = api.__qualname__ = name
    api.__doc__ = f"""``{formula}`` over the active lanes (Ascend C ``AscendC::{name}``, 灵活标量位置).

    Call forms (C++ order): ``{name}(state, dst, src0, src1, count)`` or
    ``{name}(state, dst, src0, src1, mask, repeatTime, repeatParams)``; exactly one of src0 / src1 is
    a Python number (the scalar, in that position), or both are LocalTensors and the scalar is
    element 0 of the one ``config`` (``BinaryConfig(scalarTensorIndex)``, default 1 = src1) names,
    read from UB at run time. ``repeatParams``: a ``UnaryRepeatParams``.

    **Spec:** {doc}. Profile keys: ``apis.{name}``.
    """
    spec = ApiSpec(name, "binary_scalar", tuple(pr.format(name=name) for pr in _PROTOS), doc)
    return register(spec)(api)


Subs = _make(
    "Subs", "dst_i = src_i - scalar or scalar - src_i", "memory-vector/基础算术/Subs（灵活标量位置）.md"
)
Divs = _make(
    "Divs", "dst_i = src_i / scalar or scalar / src_i", "memory-vector/基础算术/Divs（灵活标量位置）.md"
)
Ands = _make("Ands", "dst_i = src_i & scalar", "memory-vector/逻辑计算/Ands.md")
Ors = _make("Ors", "dst_i = src_i | scalar", "memory-vector/逻辑计算/Ors.md")
AddsFlexible = _make(
    "AddsFlexible", "dst_i = src_i + scalar", "memory-vector/基础算术/Adds（灵活标量位置）.md"
)
MulsFlexible = _make(
    "MulsFlexible", "dst_i = src_i * scalar", "memory-vector/基础算术/Muls（灵活标量位置）.md"
)
MaxsFlexible = _make(
    "MaxsFlexible", "dst_i = max(src_i, scalar)", "memory-vector/基础算术/Maxs（灵活标量位置）.md"
)
MinsFlexible = _make(
    "MinsFlexible", "dst_i = min(src_i, scalar)", "memory-vector/基础算术/Mins（灵活标量位置）.md"
)

__all__ = list(API_CODES)
