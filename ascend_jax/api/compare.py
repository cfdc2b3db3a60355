"""Compare (tensor vs tensor), Compares / CompareScalar (tensor vs scalar), Compare to CMPMASK
(profile API name "CompareCmpMask"), SetCmpMask and GetCmpMask (比较与选择/).

Prototypes (C++ argument order; ``isSetMask`` is the template argument):
  Compare(dst, src0, src1, cmpMode, count)                                 -- tensor前n个数据计算
  Compare(dst, src0, src1, cmpMode, mask[] | mask, repeatTime, BinaryRepeatParams)
  Compare(src0, src1, cmpMode, mask[] | mask, BinaryRepeatParams)          -- result into CMPMASK
  Compares(dst, src0, src1Scalar, cmpMode, count)
  Compares(dst, src0, src1Scalar, cmpMode, mask[] | mask, repeatTime, UnaryRepeatParams)
  CompareScalar(...)                                                       -- old name of Compares
  SetCmpMask(src) / GetCmpMask(dst)
Each returns the new CoreState. Output bits are packed LSB first: element i of the call is bit
i % 8 of byte i // 8 of dst. Semantics: docs/MODEL.md "Compare and Select".
"""

import enum
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import checks as CK
from .._engine.binary import BinaryStatic, run_binary
from ..errors import Fault, NotModelledError, UnsupportedError, UsageError
from ..params import AnyForm
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..state import add_warnings
from ..tensor import LocalTensor
from . import _args as A
from ._forms import (
    binary_dyn,
    binary_strides,
    count_form,
    flexible_scalar_call,
    highdim_form,
    plan_any_form,
    scratch_regions,
    static_form_args,
    unary_strides,
)

U32 = jnp.uint32
I32 = jnp.int32
_U64_MAX = 2**64 - 1


class CMPMODE(enum.IntEnum):
    """``AscendC::CMPMODE`` (values as in the C++ enum)."""

    LT = 0
    GT = 1
    EQ = 2
    LE = 3
    GE = 4
    NE = 5


_MODES_TEXT = "CMPMODE::LT / GT / EQ / LE / GE / NE"
# SPEC: SetCmpMask/GetCmpMask: "LocalTensor的起始地址需要16字节对齐" (every product).
CMPMASK_ALIGN = 16
CMPMASK_BYTES = 16  # the 128-bit register
# SPEC: GetCmpMask: "dst的空间大小不能少于128字节".
GETCMPMASK_MIN_DST_BYTES = 128


def _cmp_mode(api, mode, dt, p, a):
    """The CMPMODE name this call computes (static: it selects the instruction)."""
    if isinstance(mode, str) and mode in CMPMODE.__members__:
        mode = CMPMODE[mode]
    if isinstance(mode, bool) or not isinstance(mode, (int, np.integer)) or int(mode) not in set(CMPMODE):
        raise UsageError(
            api,
            "cmpMode",
            mode if A.is_static(mode) or isinstance(mode, str) or mode is None else type(mode).__name__,
            f"{_MODES_TEXT} (a CMPMODE, or a traced int32 code)",
            p,
        )
    name = CMPMODE(int(mode)).name
    allowed = tuple(a.modes)
    if name not in allowed:
        raise UnsupportedError(api, "cmpMode", f"CMPMODE::{name}", ", ".join(allowed), p)
    if dt.name == "float64" and a.float64_modes is not None and name not in a.float64_modes:
        raise UnsupportedError(
            api,
            "cmpMode",
            f"CMPMODE::{name}",
            " / ".join(f"CMPMODE::{m}" for m in a.float64_modes),
            p,
            "double supports only these modes on this product",
        )
    if dt.name == "int32" and a.int32_modes is not None and name not in a.int32_modes:
        if a.int32_other_modes == "silent_eq":
            # profile choice: the vendor's release build emits the EQ instruction for int32_t
            return "EQ"
        raise UnsupportedError(
            api,
            "cmpMode",
            f"CMPMODE::{name}",
            " / ".join(f"CMPMODE::{m}" for m in a.int32_modes),
            p,
            f"int32_t supports only {', '.join(a.int32_modes)} on this product",
        )
    return name


def _cmp_code(api, mode, dt, p, a, dyn):
    """``dyn["cmp"]``, the CMPMODE code of the call. A Python/enum mode is checked at trace time (it
    selects the instruction); a traced integer (fuzzing and sweeps: one program for every mode) is
    checked per case: a mode the product does not offer for T is a BAD_PARAM fault, as for any
    traced parameter out of its range; int32 under ``int32_other_modes = "silent_eq"`` computes EQ
    as the static path does."""
    if not isinstance(mode, (jax.Array, np.ndarray)):
        dyn["cmp"] = jnp.asarray(int(CMPMODE[_cmp_mode(api, mode, dt, p, a)]), I32)
        return
    code = jnp.asarray(mode)
    if code.shape != () or not jnp.issubdtype(code.dtype, jnp.integer) or code.dtype == bool:
        raise UsageError(api, "cmpMode", f"a traced {code.dtype}{list(code.shape)}", "a scalar integer", p)
    code = code.astype(I32)
    names = tuple(a.modes)
    if dt.name == "float64" and a.float64_modes is not None:
        names = tuple(m for m in names if m in a.float64_modes)
    eq_instead = ()
    if dt.name == "int32" and a.int32_modes is not None:
        if a.int32_other_modes == "silent_eq":
            eq_instead = tuple(int(CMPMODE[m]) for m in names if m not in a.int32_modes)
        else:
            names = tuple(m for m in names if m in a.int32_modes)
    ok = jnp.isin(code, jnp.asarray([int(CMPMODE[m]) for m in names], I32))
    if eq_instead:
        code = jnp.where(jnp.isin(code, jnp.asarray(eq_instead, I32)), I32(int(CMPMODE.EQ)), code)
    dyn["cmp"] = code
    dyn["bad_param"] = dyn["bad_param"] | ~ok


# -- Compare / Compares / CompareScalar with a UB result ----------------------------------------


def _flexible_operands(api, src0, src1, config, p):
    """(a_kind, b_kind, element tensor or None) of a Compares（灵活标量位置） call."""
    t0, t1 = isinstance(src0, LocalTensor), isinstance(src1, LocalTensor)
    if not t0 and not t1:
        # SPEC: "左操作数及右操作数中，必须有一个为矢量；当前不支持左右操作数同时为标量"
        raise UsageError(api, "src0/src1", "two scalars", "at least one LocalTensor", p)
    if not (t0 and t1):
        return ("scalar", "tensor", None) if not t0 else ("tensor", "scalar", None)
    # SPEC: "config ... 当标量为LocalTensor单点元素类型时生效 ... 默认值DEFAULT_BINARY_CONFIG，表示右操作数为标量"
    idx = 1 if config is None else getattr(config, "scalarTensorIndex", config)
    if isinstance(idx, bool) or not isinstance(idx, (int, np.integer)) or int(idx) not in (0, 1):
        raise UsageError(api, "config.scalarTensorIndex", idx, "0 or 1", p)
    return ("element", "tensor", src0) if int(idx) == 0 else ("tensor", "element", src1)


def _compare_to_ub(
    api, state, dst, src0, src1, cmpMode, args, profile, isSetMask, max_repeats, scalar, config=None
):
    st, dyn = plan_compare_to_ub(
        api, state, dst, src0, src1, cmpMode, args, profile, isSetMask, max_repeats, scalar, config
    )
    return run_binary(st, state, dyn)


def plan_compare_to_ub(
    api, state, dst, src0, src1, cmpMode, args, profile, isSetMask, max_repeats, scalar, config=None
):
    """(BinaryStatic, dyn) of one Compare / Compares / CompareScalar / ComparesFlexible call with a UB
    result: the compile key and its traced data."""
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    a_kind, b_kind, elem = "tensor", ("scalar" if scalar else "tensor"), None
    if api == "ComparesFlexible":
        a_kind, b_kind, elem = _flexible_operands(api, src0, src1, config, p)
        tensors = {n: t for n, t in (("src0", src0), ("src1", src1)) if isinstance(t, LocalTensor)}
        for n, t in tensors.items():
            A.check_tensor(api, n, t, p)
        A.check_same_dtype(api, p, **tensors)
        dt = next(iter(tensors.values())).dtype
    else:
        A.check_tensor(api, "src0", src0, p)
        if scalar:
            if isinstance(src1, LocalTensor):
                raise UsageError(api, "src1Scalar", repr(src1), f"a scalar of type {src0.dtype.cpp}", p)
        else:
            A.check_tensor(api, "src1", src1, p)
            A.check_same_dtype(api, p, src0=src0, src1=src1)
        dt = src0.dtype
    anyf = len(args) == 1 and isinstance(args[0], AnyForm) and not A.is_static(args[0].form)
    if len(args) == 1 and isinstance(args[0], AnyForm) and not anyf:
        args, isSetMask = static_form_args(api, args[0], as_profile(profile), isSetMask)
    if anyf:
        form = "any"
    elif len(args) == 1:
        form = "count"
    elif len(args) == 3:
        form = "highdim"
    else:
        s1 = "src1Scalar" if scalar else "src1"
        raise TypeError(
            f"{api}() takes (dst, src0, {s1}, cmpMode, count) or "
            f"(dst, src0, {s1}, cmpMode, mask, repeatTime, repeatParams); got {4 + len(args)} arguments"
        )
    a = p.require_api(api, dt, count_form=(form == "count"))
    A.check_modelled(api, dt, p, wide_lanes=True)
    dst_ok = tuple(a.dst_dtypes)
    if dst.dtype.name not in dst_ok:
        raise UnsupportedError(
            api, "dst.dtype", dst.dtype.name, ", ".join(dst_ok), p, "dst holds the packed result bits"
        )
    dyn = binary_dyn()
    _cmp_code(api, cmpMode, dt, p, a, dyn)
    if a.dst_strides != "ignored":
        raise NotModelledError(f"{api}: dst_strides = {a.dst_strides!r} (strided bit output) is not modelled")
    if not isSetMask and (form == "count" or api == "Compare"):
        raise UsageError(
            api,
            "isSetMask",
            False,
            "true",
            p,
            "the count prototype has no isSetMask"
            if form == "count"
            else "isSetMask is a reserved parameter of Compare",
        )
    dyn["dst"] = A.addr_of(dst)
    if a_kind == "tensor":
        dyn["src0"] = A.addr_of(src0)
    if b_kind == "tensor":
        dyn["src1"] = A.addr_of(src1)
    if elem is not None:
        dyn["elem"] = A.addr_of(elem)
    if a_kind == "scalar":
        dyn["scalar"] = A.scalar_bits(api, src0, dt, p, "src0")
    if b_kind == "scalar":
        flex = api == "ComparesFlexible"
        dyn["scalar"] = A.scalar_bits(api, src1, dt, p, "src1") if flex else A.scalar_bits(api, src1, dt, p)
    tail = a.count_tail

    def strides(api, params, p, dyn):
        """The repeat params into the core's six stride slots (every call form)."""
        if a_kind != "tensor":  # the one strided source is src1: UnaryRepeatParams on its slots
            unary_strides(api, params, p, dyn, binary_layout=True)
            dyn["strides"] = dyn["strides"][np.array([0, 2, 1, 3, 5, 4])]
        elif scalar:
            unary_strides(api, params, p, dyn, binary_layout=True)
        else:
            binary_strides(api, params, p, dyn)

    if form == "any":  # every call form in one program (AnyForm traced)
        count_kw = dict(align_bytes=a.count_alignment_bytes, whole_repeats=(tail == "dropped"))
        _, R, _ = plan_any_form(
            api, state, dt, args[0], p, True, max_repeats, dyn, True, strides, count_kw, a.mask_honoured
        )
        kind = "dyn"
    elif form == "count":
        (count,) = args
        R = count_form(
            api,
            count,
            dt,
            p,
            max_repeats,
            dyn,
            align_bytes=a.count_alignment_bytes,
            whole_repeats=(tail == "dropped"),
        )
        kind = "count"
    else:
        mask, repeat, params = args
        strides(api, params, p, dyn)
        kind, R = highdim_form(
            api,
            mask,
            repeat,
            dt,
            p,
            isSetMask,
            state,
            max_repeats,
            dyn,
            honoured=a.mask_honoured,
        )
    st = BinaryStatic(
        api=api,
        dtype=dt,
        R=R,
        mask_kind=kind,
        lowering="none",
        count_tail=tail,
        a_kind=a_kind,
        b_kind=b_kind,
        sel="none",
        sel_addr="dyn",
        cmp="dyn",
        out="bits",
        ordered=False,
        scratch=scratch_regions(p, api),
        side="none",
        side_slot=-1,
        profile=p,
    )
    return st, dyn


def _compare_ub_public(
    state, dst, src0, src1, cmpMode, *args, profile=None, isSetMask=True, max_repeats=None
):
    return _compare_to_ub(
        "Compare", state, dst, src0, src1, cmpMode, args, profile, isSetMask, max_repeats, False
    )


@register(
    ApiSpec(
        "CompareCmpMask",
        "compare_select",
        (
            "Compare<T, isSetMask=true>(src0, src1, cmpMode, mask[], repeatParams)",
            "Compare<T, isSetMask=true>(src0, src1, cmpMode, mask, repeatParams)",
            "Compare<T, isSetMask=false>(src0, src1, cmpMode, MASK_PLACEHOLDER, repeatParams)",
        ),
        "memory-vector/比较与选择/Compare（结果存入寄存器）.md",
    )
)
def CompareCmpMask(state, src0, src1, cmpMode, mask, repeatParams, profile=None, isSetMask=True):
    """``Compare(src0, src1, cmpMode, mask, repeatParams)``: one 256-byte repeat compared into CMPMASK.

    CMPMASK bit l (l < 256/sizeof(T)) = ``src0[l] cmpMode src1[l]`` for active lanes, 0 for lanes the
    mask switches off; bits from 256/sizeof(T) to 127 become 0. The mask follows the high-dim rules
    (continuous int, bitwise list, ``MASK_PLACEHOLDER`` with ``isSetMask=False``); in Counter mode the
    count enables lanes l < count of this single repeat. ``repeatParams``: BinaryRepeatParams (the
    block strides of src0/src1 apply; repeat strides and dst fields are unused). Returns the new state.
    """
    api = "CompareCmpMask"
    p = as_profile(profile)
    A.check_tensor(api, "src0", src0, p)
    A.check_tensor(api, "src1", src1, p)
    A.check_same_dtype(api, p, src0=src0, src1=src1)
    dt = src0.dtype
    a = p.require_api(api, dt)
    A.check_modelled(api, dt, p, wide_lanes=True)
    L = p.lanes(dt)
    if p.cmpmask_bits <= 0 or L > p.cmpmask_bits:
        raise NotModelledError(f"{api}: {L} lanes do not fit the {p.cmpmask_bits}-bit CMPMASK of '{p.name}'")
    dyn = binary_dyn()
    _cmp_code(api, cmpMode, dt, p, a, dyn)
    dyn["src0"] = A.addr_of(src0)
    dyn["src1"] = A.addr_of(src1)
    binary_strides(api, repeatParams, p, dyn)
    kind, R = highdim_form(
        api,
        mask,
        1,
        dt,
        p,
        isSetMask,
        state,
        None,
        dyn,
        honoured=a.mask_honoured,
        fixed_repeat=1,
    )
    st = BinaryStatic(
        api=api,
        dtype=dt,
        R=1,
        mask_kind=kind,
        lowering="none",
        count_tail="computed",
        a_kind="tensor",
        b_kind="tensor",
        sel="none",
        sel_addr="dyn",
        cmp="dyn",
        out="cmpmask",
        ordered=False,
        scratch=scratch_regions(p, api),
        side="none",
        side_slot=-1,
        profile=p,
    )
    return run_binary(st, state, dyn)


_COMPARE_PROTOS = (
    "Compare<T, U>(dst, src0, src1, cmpMode, count)",
    "Compare<T, U, isSetMask=true>(dst, src0, src1, cmpMode, mask[], repeatTime, repeatParams)",
    "Compare<T, U, isSetMask=true>(dst, src0, src1, cmpMode, mask, repeatTime, repeatParams)",
)


@register(ApiSpec("Compare", "compare_select", _COMPARE_PROTOS, "memory-vector/比较与选择/Compare.md"))
def Compare(state, *args, profile=None, isSetMask=True, max_repeats=None):
    """Element-wise ``src0 cmpMode src1`` into packed bits (Ascend C ``AscendC::Compare``).

    Call forms (C++ order):
      ``Compare(state, dst, src0, src1, cmpMode, count)``
      ``Compare(state, dst, src0, src1, cmpMode, mask, repeatTime, repeatParams)`` (BinaryRepeatParams)
      ``Compare(state, src0, src1, cmpMode, mask, repeatParams)`` -- the CMPMASK overload, same as
      :func:`CompareCmpMask`.
    ``dst`` (uint8/int8 per ``apis.Compare.dst_dtypes``) receives bit i (LSB first) for element i of
    the call; repeat r's bits start at bit r*256/sizeof(T) (dst strides are ignored). Where
    ``apis.Compare.mask_honoured`` is false the mask is not applied (every lane of repeats <
    repeatTime is compared, Counter mode does not apply); where true, masked-off lanes give 0 bits.
    The count form needs count*sizeof(T) to be a multiple of ``count_alignment_bytes``; with
    ``count_tail = "dropped"`` only whole repeats are computed. ``isSetMask`` is reserved (must stay
    True). ``cmpMode``: a :class:`CMPMODE`. Returns the new CoreState.
    """
    if len(args) >= 3 and isinstance(args[2], LocalTensor):
        dst, src0, src1, cmpMode, *rest = args
        return _compare_ub_public(
            state,
            dst,
            src0,
            src1,
            cmpMode,
            *rest,
            profile=profile,
            isSetMask=isSetMask,
            max_repeats=max_repeats,
        )
    if len(args) != 5:
        raise TypeError(
            "Compare() takes (dst, src0, src1, cmpMode, count), (dst, src0, src1, cmpMode, mask, repeatTime, "
            f"repeatParams) or (src0, src1, cmpMode, mask, repeatParams); got {len(args)} arguments"
        )
    return CompareCmpMask(state, *args, profile=profile, isSetMask=isSetMask)


_COMPARES_PROTOS = (
    "{name}<T, U>(dst, src0, src1Scalar, cmpMode, count)",
    "{name}<T, U, isSetMask=true>(dst, src0, src1Scalar, cmpMode, mask[], repeatTime, repeatParams)",
    "{name}<T, U, isSetMask=true>(dst, src0, src1Scalar, cmpMode, mask, repeatTime, repeatParams)",
    "{name}<T, U, isSetMask=false>(dst, src0, src1Scalar, cmpMode, MASK_PLACEHOLDER, repeatTime, repeatParams)",
)


def _make_compares(name, doc, flexible=False):
    def api(
        state,
        dst,
        src0,
        src1Scalar,
        cmpMode,
        *args,
        profile=None,
        isSetMask=True,
        max_repeats=None,
        config=None,
    ):
        if flexible and flexible_scalar_call(
            "ComparesFlexible", as_profile(profile), src0, src1Scalar, config
        ):
            # the same C++ name with a scalar first, a LocalTensor element as the scalar, or a config
            return ComparesFlexible(
                state,
                dst,
                src0,
                src1Scalar,
                cmpMode,
                *args,
                profile=profile,
                isSetMask=isSetMask,
                max_repeats=max_repeats,
                config=config,
            )
        return _compare_to_ub(
            name, state, dst, src0, src1Scalar, cmpMode, args, profile, isSetMask, max_repeats, True
        )

    api.__name__ = api.__qualname__ = name
    flex_text = (
        " A scalar in the ``src0`` position, a LocalTensor as ``src1Scalar`` (``src1Local[0]``) or a"
        " ``config`` make this the 灵活标量位置 overload: :func:`ComparesFlexible`."
        if flexible
        else ""
    )
    api.__doc__ = f"""Element-wise ``src0 cmpMode src1Scalar`` into packed bits (``AscendC::{name}``).

    Call forms (C++ order): ``{name}(state, dst, src0, src1Scalar, cmpMode, count)`` or
    ``{name}(state, dst, src0, src1Scalar, cmpMode, mask, repeatTime, repeatParams)`` with
    UnaryRepeatParams; ``mask`` is an int, a list of uint64 words, a traced uint32 word array, or
    ``MASK_PLACEHOLDER`` with ``isSetMask=False``. The scalar is converted to T first. Output layout,
    mask and count rules as :func:`Compare` (profile keys ``apis.{name}.*``).{flex_text} Returns the new
    CoreState.

    **Spec:** {doc}.
    """
    protos = tuple(pr.format(name=name) for pr in _COMPARES_PROTOS)
    if flexible:
        protos += ("Compares<T0, T1, isSetMask, config>(dst, src0, src1, cmpMode, ...)  -- ComparesFlexible",)
    return register(ApiSpec(name, "compare_select", protos, doc))(api)


Compares = _make_compares("Compares", "memory-vector/比较与选择/Compares.md", flexible=True)
CompareScalar = _make_compares(
    "CompareScalar", "seed 001 (the older name of Compares; memory-vector/比较与选择/Compares.md)"
)


_COMPARES_FLEX_PROTOS = (
    "Compares<T0, T1, isSetMask=true, config>(dst, src0, src1, cmpMode, count)",
    "Compares<T0, T1, isSetMask=true, config>(dst, src0, src1, cmpMode, mask[], repeatTime, repeatParams)",
    "Compares<T0, T1, isSetMask=true, config>(dst, src0, src1, cmpMode, mask, repeatTime, repeatParams)",
)


@register(
    ApiSpec(
        "ComparesFlexible",
        "compare_select",
        _COMPARES_FLEX_PROTOS,
        "memory-vector/比较与选择/Compares（灵活标量位置）.md",
    )
)
def ComparesFlexible(
    state, dst, src0, src1, cmpMode, *args, profile=None, isSetMask=True, max_repeats=None, config=None
):
    """Compares（灵活标量位置） (Ascend C ``AscendC::Compares`` with a flexible scalar, 950):
    ``dst bit i = src0_i cmpMode src1_i`` where exactly one of src0 / src1 is the scalar -- a Python
    number in that position (scalar first or after), or, when both are LocalTensors, element 0 of the
    one ``config`` names (``BinaryConfig(scalarTensorIndex)``; default 1: src1, "src1Local[0]").
    The element is read from UB before the call writes; an element meeting an active dst byte is
    PARTIAL_OVERLAP ("不支持源操作数和目的操作数地址重叠"). Call forms, output layout, mask and count
    rules as :func:`Compares` (``UnaryRepeatParams`` strides apply to the tensor operand). Returns
    the new CoreState.

    **Spec:** memory-vector/比较与选择/Compares（灵活标量位置）.md. Profile keys: ``apis.ComparesFlexible``.
    """
    return _compare_to_ub(
        "ComparesFlexible",
        state,
        dst,
        src0,
        src1,
        cmpMode,
        args,
        profile,
        isSetMask,
        max_repeats,
        True,
        config,
    )


# -- SetCmpMask / GetCmpMask --------------------------------------------------------------------


def _cmpmask_faults(state, addr, p):
    a = jnp.asarray(addr, I32)
    limit = min(state.ub.shape[-1], p.ub_usable_bytes)
    fault = jnp.where(a % CMPMASK_ALIGN != 0, U32(Fault.MISALIGNED), U32(0))
    fault |= jnp.where((a < 0) | (a + CMPMASK_BYTES > limit), U32(Fault.OUT_OF_UB), U32(0))
    return a, fault


def _cmpmask_warnings(api, state, arg, nbytes, ok, start, write):
    """Checker warnings of SetCmpMask / GetCmpMask (docs/MODEL.md "Checker warnings"): EXTENT when
    the 16 register bytes reach past the tensor (``nbytes``, traced), SIZE when GetCmpMask's dst is
    under the documented 128 bytes; with the written map, UNINIT (SetCmpMask reads a never-written
    byte) or the 16 bytes marked written (GetCmpMask)."""
    code, argc = CK.api_code(api), CK.arg_code(arg)
    hits = [(CK.Warn.EXTENT, code, argc, ok & (nbytes < CMPMASK_BYTES))]
    if write:
        hits.append((CK.Warn.SIZE, code, argc, ok & (nbytes < GETCMPMASK_MIN_DST_BYTES)))
    w = state.written
    if w is not None and not write:
        unw = jnp.any(lax.dynamic_slice(w, (start,), (CMPMASK_BYTES,)) == 0)
        hits.append((CK.Warn.UNINIT, code, argc, ok & unw))
    state = add_warnings(state, hits)
    if w is not None and write:
        cur = lax.dynamic_slice(w, (start,), (CMPMASK_BYTES,))
        new = jnp.where(ok, jnp.ones_like(cur), cur)
        state = state.replace(written=lax.dynamic_update_slice(w, new, (start,)))
    return state


@functools.partial(jax.jit, static_argnums=0)
def _set_cmpmask(p, state, addr, nbytes):
    a, fault = _cmpmask_faults(state, addr, p)
    start = jnp.clip(a, 0, state.ub.shape[-1] - CMPMASK_BYTES)
    raw = lax.dynamic_slice(state.ub, (start,), (CMPMASK_BYTES,))
    words = lax.bitcast_convert_type(raw.reshape(4, 4), U32)
    ok = fault == 0
    state = _cmpmask_warnings("SetCmpMask", state, "src", nbytes, ok, start, write=False)
    return state.replace(cmpmask=jnp.where(ok, words, state.cmpmask), fault=state.fault | fault)


@functools.partial(jax.jit, static_argnums=0)
def _get_cmpmask(p, state, addr, nbytes):
    a, fault = _cmpmask_faults(state, addr, p)
    raw = lax.bitcast_convert_type(state.cmpmask, jnp.uint8).reshape(CMPMASK_BYTES)
    start = jnp.clip(a, 0, state.ub.shape[-1] - CMPMASK_BYTES)
    cur = lax.dynamic_slice(state.ub, (start,), (CMPMASK_BYTES,))
    ok = fault == 0
    ub = lax.dynamic_update_slice(state.ub, jnp.where(ok, raw, cur), (start,))
    state = _cmpmask_warnings("GetCmpMask", state, "dst", nbytes, ok, start, write=True)
    return state.replace(ub=ub, fault=state.fault | fault)


@register(
    ApiSpec(
        "SetCmpMask",
        "compare_select",
        ("SetCmpMask<T>(src)",),
        "memory-vector/比较与选择/SetCmpMask(ISASI).md",
    )
)
def SetCmpMask(state, src, profile=None):
    """CMPMASK := the 16 bytes at ``src`` (little-endian words). ``src`` must be 16-byte aligned
    (else MISALIGNED) and the 16 bytes inside the usable UB (else OUT_OF_UB); T only selects the
    prototype (``apis.SetCmpMask.dtypes``). Returns the new state."""
    p = as_profile(profile)
    A.check_tensor("SetCmpMask", "src", src, p)
    p.require_api("SetCmpMask", src.dtype)
    return _set_cmpmask(p, state, A.addr_of(src), jnp.asarray(src.nbytes, I32))


@register(
    ApiSpec(
        "GetCmpMask",
        "compare_select",
        ("GetCmpMask<T>(dst)",),
        "memory-vector/比较与选择/GetCmpMask(ISASI).md",
    )
)
def GetCmpMask(state, dst, profile=None):
    """Store CMPMASK (16 bytes, little-endian words) at ``dst``, as the C++ API does; the rest of
    dst is untouched. ``dst`` must be 16-byte aligned (else MISALIGNED). A dst under the documented
    128 bytes is a checker warning (``Warn.SIZE``), not an error. Returns the new state."""
    p = as_profile(profile)
    A.check_tensor("GetCmpMask", "dst", dst, p)
    p.require_api("GetCmpMask", dst.dtype)
    # SPEC: "dst的空间大小不能少于128字节" (GetCmpMask(ISASI).md). The vendor sample ``compare``
    #       (scenario 2) passes a 32-byte dst and runs on hardware, so a smaller dst is a checker
    #       warning (Warn.SIZE), not a UsageError. What the hardware writes: the model writes the
    #       16 bytes of the 128-bit CMPMASK register, the rest of dst untouched, whatever dst's size
    #       (the page gives no reason for 128; the sample checks only the bytes the compare wrote).
    return _get_cmpmask(p, state, A.addr_of(dst), jnp.asarray(dst.nbytes, I32))


__all__ = [
    "CMPMODE",
    "Compare",
    "CompareCmpMask",
    "CompareScalar",
    "Compares",
    "ComparesFlexible",
    "GetCmpMask",
    "SetCmpMask",
]
