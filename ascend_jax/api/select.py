"""Select (SELMODE 0/1/2, count form, high-dim bitwise / continuous mask forms, the mask-less forms
that read SetVectorMask / SetCmpMask state) and Select with a flexible scalar position (950;
profile API name "SelectFlexible"). 比较与选择/Select.md, Select（灵活标量位置）.md, seed 000.

``dst_i = selbit_i ? src0_i : src1_i`` (src1 a scalar in mode 1). Mode 0 uses the first
256/sizeof(T) selMask bits in every repeat; modes 1 and 2 consume selMask contiguously,
256/sizeof(T) bits per repeat. Semantics: docs/MODEL.md "Compare and Select".
"""

import dataclasses
import enum

import jax.numpy as jnp
import numpy as np

from .. import dtypes as _dt
from .._engine import memory as MEM
from .._engine.binary import BinaryStatic, run_binary
from ..errors import NotModelledError, UnsupportedError, UsageError
from ..params import AnyForm
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..tensor import MASK_PLACEHOLDER, LocalTensor
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
)

U32 = jnp.uint32
I32 = jnp.int32


class SELMODE(enum.IntEnum):
    """``AscendC::SELMODE``."""

    VSEL_CMPMASK_SPR = 0
    VSEL_TENSOR_SCALAR_MODE = 1
    VSEL_TENSOR_TENSOR_MODE = 2


@dataclasses.dataclass(frozen=True)
class BinaryConfig:
    """``AscendC::BinaryConfig``: which operand is the scalar when it is a LocalTensor element
    (0 = src0, 1 = src1; DEFAULT_BINARY_CONFIG = {1})."""

    scalarTensorIndex: int = 1


DEFAULT_BINARY_CONFIG = BinaryConfig(1)
_SELMODE_TEXT = "SELMODE::VSEL_CMPMASK_SPR / VSEL_TENSOR_SCALAR_MODE / VSEL_TENSOR_TENSOR_MODE"


def _sel_mode(api, mode, p, a):
    if isinstance(mode, bool) or not isinstance(mode, (int, np.integer)) or int(mode) not in set(SELMODE):
        raise UsageError(
            api,
            "selMode",
            mode if A.is_static(mode) else "a traced value",
            f"{_SELMODE_TEXT} (a compile-time SELMODE)",
            p,
        )
    m = SELMODE(int(mode))
    allowed = tuple(a.modes)
    if int(m) not in allowed:
        raise UnsupportedError(
            api,
            "selMode",
            f"SELMODE::{m.name} ({int(m)})",
            ", ".join(f"SELMODE::{SELMODE(x).name} ({x})" for x in allowed),
            p,
        )
    return int(m)


def _is_mode(mode, m):
    return not isinstance(mode, bool) and isinstance(mode, (int, np.integer)) and int(mode) == m


def _select(
    api,
    state,
    dst,
    selMask,
    src0,
    src1,
    mode,
    form,
    args,
    profile,
    isSetMask,
    max_repeats,
    flexible=False,
    config=None,
):
    """form: "count" | "highdim" | "nomask" (the mask-less prototypes); "count" with an
    ``AnyForm`` argument: its form (a Python int: that form's ordinary call; traced: "any", every
    form in one program)."""
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    dt = dst.dtype
    if form == "count" and isinstance(args[0], AnyForm):
        if A.is_static(args[0].form):
            args, isSetMask = static_form_args(api, args[0], p, isSetMask)
            form = "count" if len(args) == 1 else "highdim"
        else:
            form = "any"
    if not isSetMask:
        raise UsageError(
            api,
            "isSetMask",
            False,
            "true",
            p,
            "isSetMask is reserved for Select; use the mask-less prototype to take the mask from SetVectorMask",
        )
    a = p.require_api(api, dt, count_form=(form == "count"))
    A.check_modelled(api, dt, p, wide_lanes=True)
    if form == "nomask" and p.cmpmask_bits <= 0:
        # checked before selMode (as the reference does): the prototype itself does not exist here
        raise UnsupportedError(
            api,
            "prototype",
            "Select without a mask argument",
            "the forms with a mask argument",
            p,
            "the mask-less forms take their selection data from SetCmpMask, which this product lacks",
        )
    mode = _sel_mode(api, mode, p, a)
    L = p.lanes(dt)

    # ---- operands ----
    a_kind, b_kind = "tensor", "tensor"
    elem = None
    if form == "nomask":
        if mode == 0 and L > p.cmpmask_bits:
            raise NotModelledError(f"{api}: {L} lanes need more than the {p.cmpmask_bits}-bit CMPMASK")
        if mode == 1:
            b_kind = "cmpmask"
    elif flexible:
        t0, t1 = isinstance(src0, LocalTensor), isinstance(src1, LocalTensor)
        if not t0 and not t1:
            raise UsageError(
                api,
                "src0/src1",
                "two scalars",
                "at least one LocalTensor",
                p,
                "both operands cannot be scalars",
            )
        if mode == 1:
            if t0 and t1:
                if config is None:
                    raise UsageError(
                        api,
                        "config",
                        None,
                        "BinaryConfig(scalarTensorIndex=0 or 1)",
                        p,
                        "mode 1 with two LocalTensors needs config to name the element operand",
                    )
                idx = config.scalarTensorIndex if isinstance(config, BinaryConfig) else int(config)
                if idx not in (0, 1):
                    raise UsageError(api, "config.scalarTensorIndex", idx, "0 or 1", p)
                elem = src0 if idx == 0 else src1
                if idx == 0:
                    a_kind = "element"
                else:
                    b_kind = "element"
            elif not t0:
                a_kind = "scalar"
            else:
                b_kind = "scalar"
        elif not (t0 and t1):
            raise UsageError(
                api, "src0/src1", "a scalar", "two LocalTensors", p, f"mode {mode} selects between tensors"
            )
    else:
        if mode == 1:
            if isinstance(src1, LocalTensor):
                raise UsageError(
                    api, "src1", repr(src1), f"a scalar of type {dt.cpp}", p, "mode 1 takes a scalar src1"
                )
            b_kind = "scalar"
        elif not isinstance(src1, LocalTensor):
            raise UsageError(
                api, "src1", src1, "a LocalTensor", p, f"mode {mode} selects between two tensors"
            )
    tensors = {"dst": dst}
    if a_kind in ("tensor", "element"):
        A.check_tensor(api, "src0", src0, p)
        tensors["src0"] = src0
    if b_kind in ("tensor", "element"):
        A.check_tensor(api, "src1", src1, p)
        tensors["src1"] = src1
    A.check_same_dtype(api, p, **tensors)
    uses_sel_tensor = not (form == "nomask" and mode in (0, 2))
    if uses_sel_tensor:
        A.check_tensor(api, "selMask", selMask, p)
        sel_ok = tuple(a.sel_mask_dtypes)
        if selMask.dtype.name not in sel_ok:
            raise UnsupportedError(api, "selMask.dtype", selMask.dtype.name, ", ".join(sel_ok), p)

    # ---- dyn values ----
    dyn = binary_dyn()
    dyn["dst"] = A.addr_of(dst)
    if a_kind == "tensor":
        dyn["src0"] = A.addr_of(src0)
    if b_kind == "tensor":
        dyn["src1"] = A.addr_of(src1)
    if elem is not None:
        dyn["elem"] = A.addr_of(elem)
    if a_kind == "scalar":
        dyn["scalar"] = A.scalar_bits(api, src0, dt, p)
    if b_kind == "scalar":
        dyn["scalar"] = A.scalar_bits(api, src1, dt, p)
    if uses_sel_tensor:
        dyn["sel"] = A.addr_of(selMask)

    if form == "any":
        # every call form in one program: the traced form code picks the lane plan (the count
        # form's register epilogue applies to count lanes only); writes in program order
        _, R, ordered = plan_any_form(api, state, dt, args[0], p, True, max_repeats, dyn, True)
        # SPEC: isSetMask "保留参数，保持默认值即可" (Select.md): no MASK_PLACEHOLDER form with a
        #       selMask tensor exists, so that form code is BAD_PARAM, as an unknown code is
        dyn["bad_param"] = dyn["bad_param"] | (jnp.asarray(args[0].form) == AnyForm.PLACEHOLDER)
        kind, lowering = "dyn", p.level2_lowering
    elif form == "count":
        (count,) = args
        R = count_form(api, count, dt, p, max_repeats, dyn)
        kind, lowering, ordered = "count", p.level2_lowering, False
    else:
        if form == "highdim":
            mask, repeat, params = args
            set_mask = True
        else:
            repeat, params = args
            mask, set_mask = MASK_PLACEHOLDER, False
        params = binary_strides(api, params, p, dyn)
        kind, R = highdim_form(api, mask, repeat, dt, p, set_mask, state, max_repeats, dyn, honoured=True)
        lowering = "none"
        ordered = MEM.collisions_possible(params.dstRepStride, params.dstBlkStride, R)

    # ---- scratch and CMPMASK side effects ----
    tag = "nomask" if form == "nomask" else f"mode{mode}"
    uses = tag in tuple(a.scratch_forms)
    scratch = scratch_regions(p, api, uses)
    side, slot = "none", -1
    if form != "nomask" and p.cmpmask_bits > 0 and a.cmpmask_side_effect:
        side = ("sel_head", "scalar_splat", "addr_splat")[mode]
        if uses and side != "sel_head":
            slot = next((r.offset_bytes for r in p.reserved if api in r.used_by), -1)

    if form == "nomask":
        sel_addr = "register" if mode == 0 else ("cmpmask" if mode == 2 else "dyn")
    else:
        sel_addr = "dyn"
    st = BinaryStatic(
        api=api,
        # a selection moves bit patterns: one program per lane width (half, bfloat16, int16 and
        # uint16 share one); dt's own checks are done above
        dtype=_dt.lane_twin(dt),
        R=R,
        mask_kind=kind,
        lowering=lowering,
        count_tail="computed",
        a_kind=a_kind,
        b_kind=b_kind,
        sel="fixed" if mode == 0 else "stream",
        sel_addr=sel_addr,
        cmp="",
        out="vec",
        ordered=ordered,
        scratch=scratch,
        side=side,
        side_slot=slot,
        profile=p,
    )
    return run_binary(st, state, dyn)


def select_traced_mode(
    state, dst, selMask, src0, src1, scalar, selMode, form, profile=None, max_repeats=None
):
    """Select with ``selMode`` traced (a model tool for batched runs, not a C++ prototype: the
    C++ selMode is a compile-time constant, and ``Select`` keeps it static): every SELMODE in one
    program. ``src1`` is the LocalTensor modes 0 and 2 read, ``scalar`` the value mode 1 reads.
    ``form``: a count (the count form), or an ``AnyForm`` with a traced form code, where the code
    ``PLACEHOLDER`` is the mask-less prototype of the traced mode (``Select(dst, selMask, src0,
    repeatTime, repeatParams)`` in mode 1, ``Select<T, selMode>(dst, src0, src1, repeatTime,
    repeatParams)`` in modes 0 and 2) on a product with CMPMASK, else BAD_PARAM. A traced mode
    outside ``apis.Select.modes`` is BAD_PARAM. Each case gives the bits of its static call."""
    api = "Select"
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    dt = dst.dtype
    any_form = isinstance(form, AnyForm)
    if any_form and A.is_static(form.form):
        raise UsageError(api, "form", form.form, "an AnyForm with a traced form code, or a count", p)
    a = p.require_api(api, dt, count_form=not any_form)
    A.check_modelled(api, dt, p, wide_lanes=True)
    for name, t in (("src0", src0), ("src1", src1), ("selMask", selMask)):
        A.check_tensor(api, name, t, p)
    A.check_same_dtype(api, p, dst=dst, src0=src0, src1=src1)
    sel_ok = tuple(a.sel_mask_dtypes)
    if selMask.dtype.name not in sel_ok:
        raise UnsupportedError(api, "selMask.dtype", selMask.dtype.name, ", ".join(sel_ok), p)
    L = p.lanes(dt)
    mode = jnp.asarray(selMode, I32)
    dyn = binary_dyn()
    dyn["dst"], dyn["src0"], dyn["src1"], dyn["sel"] = (A.addr_of(t) for t in (dst, src0, src1, selMask))
    dyn["scalar"] = A.scalar_bits(api, scalar, dt, p)
    dyn["sel_mode"] = mode
    bad = jnp.ones((), bool)
    for m in a.modes:
        bad = bad & (mode != int(m))
    if any_form:
        _, R, ordered = plan_any_form(api, state, dt, form, p, True, max_repeats, dyn, True)
        placeholder = jnp.asarray(form.form) == AnyForm.PLACEHOLDER
        # SPEC: "Select<T, selMode>(dst, src0, src1, repeatTime, repeatParams)" and "Select<T, U>(dst,
        #       selMask, src0, repeatTime, repeatParams)" (Select.md): the mask-less prototypes,
        #       their selection data from SetCmpMask -- only where the product has CMPMASK
        nomask = placeholder if p.cmpmask_bits > 0 else jnp.zeros((), bool)
        if L > p.cmpmask_bits:  # mode 0 without a mask: more lanes than CMPMASK bits (not modelled)
            nomask = nomask & (mode != 0)
        bad = bad | (placeholder & ~nomask)
        kind = "dyn"
    else:
        R = count_form(api, form, dt, p, max_repeats, dyn)
        nomask, kind, ordered = jnp.zeros((), bool), "count", False
    dyn["nomask"] = nomask
    dyn["bad_param"] = dyn["bad_param"] | bad
    # the reserved scratch each traced (mode, form) uses: apis.Select.scratch_forms
    forms = tuple(a.scratch_forms)
    by_mode = jnp.asarray([f"mode{m}" in forms for m in range(3)], bool)[jnp.clip(mode, 0, 2)]
    dyn["scratch_on"] = jnp.where(nomask, "nomask" in forms, by_mode)
    side = "dyn" if p.cmpmask_bits > 0 and a.cmpmask_side_effect and dt.itemsize < 8 else "none"
    st = BinaryStatic(
        api=api,
        dtype=_dt.lane_twin(dt),
        R=R,
        mask_kind=kind,
        lowering=p.level2_lowering,
        count_tail="computed",
        a_kind="tensor",
        b_kind="dyn",
        sel="dyn",
        sel_addr="dyn",
        cmp="",
        out="vec",
        ordered=ordered,
        scratch=scratch_regions(p, api, True),
        side=side,
        side_slot=next((r.offset_bytes for r in p.reserved if api in r.used_by), -1),
        profile=p,
    )
    return run_binary(st, state, dyn)


_SELECT_PROTOS = (
    "Select<T, U>(dst, selMask, src0, T src1, VSEL_TENSOR_SCALAR_MODE, count)",
    "Select<T, U>(dst, selMask, src0, src1, selMode (0 or 2), count)",
    "Select<T, U, isSetMask=true>(dst, selMask, src0, T src1, VSEL_TENSOR_SCALAR_MODE, mask[] | mask, repeatTime, repeatParams)",
    "Select<T, U, isSetMask=true>(dst, selMask, src0, src1, selMode (0 or 2), mask[] | mask, repeatTime, repeatParams)",
    "Select<T, U>(dst, selMask, src0, repeatTime, repeatParams)  -- mode 1, scalar from SetCmpMask",
    "Select<T, selMode (0 or 2)>(dst, src0, src1, repeatTime, repeatParams)  -- CMPMASK bits / selMask address",
    "Select<T0, T1, isSetMask, config>(dst, selMask, src0, src1, selMode, ...)  -- SelectFlexible",
)


@register(ApiSpec("Select", "compare_select", _SELECT_PROTOS, "memory-vector/比较与选择/Select.md, seed 000"))
def Select(state, dst, *args, selMode=None, profile=None, isSetMask=True, max_repeats=None, config=None):
    """``dst_i = selMask bit_i ? src0_i : src1_i`` (Ascend C ``AscendC::Select``).

    Call forms (C++ order; ``selMode`` a :class:`SELMODE`):
      ``Select(state, dst, selMask, src0, src1, selMode, count)`` -- src1 a scalar in mode 1
      ``Select(state, dst, selMask, src0, src1, selMode, mask, repeatTime, repeatParams)``
      ``Select(state, dst, selMask, src0, repeatTime, repeatParams)`` -- mode 1, no mask argument:
        the vector mask registers (SetVectorMask) select lanes and the scalar is the low sizeof(T)
        bytes of CMPMASK (SetCmpMask)
      ``Select(state, dst, src0, src1, repeatTime, repeatParams, selMode=0 or 2)`` -- the
        ``Select<T, selMode>`` template form: mode 0 selects with the CMPMASK bits, mode 2 reads
        selMask from the UB byte address held in CMPMASK bits 0..31.
    ``mask``: an int (continuous), a list of uint64 words, a traced uint32 word array. Masked-off
    lanes keep dst. selMask (uint8/16/32/64) is a bit array: mode 0 uses bits [0, 256/sizeof(T)) in
    every repeat (count form: element i uses bit i mod 256/sizeof(T)); modes 1/2 use bit
    r*256/sizeof(T) + l for lane l of repeat r. ``isSetMask`` is reserved (must stay True).
    ``max_repeats``: static repeat bucket for traced counts/repeats. A scalar src0, a LocalTensor
    src1 in mode 1 (``src1Local[0]``) or a ``config`` make this the 灵活标量位置 overload of the same
    C++ name: :func:`SelectFlexible`. Returns the new CoreState.
    Profile keys: ``apis.Select.{modes, sel_mask_dtypes, scratch_forms, cmpmask_side_effect}``.
    """
    n = len(args)
    if n in (5, 7):
        if selMode is not None:
            raise TypeError("Select(): selMode given both positionally and as the template keyword")
        selMask, src0, src1, mode, *rest = args
        if flexible_scalar_call(
            "SelectFlexible", as_profile(profile), src0, src1, config, tensor_src1=not _is_mode(mode, 1)
        ):
            # the same C++ name with a scalar src0, a LocalTensor element as mode 1's scalar, or a config
            return SelectFlexible(
                state,
                dst,
                selMask,
                src0,
                src1,
                mode,
                *rest,
                config=config,
                profile=profile,
                isSetMask=isSetMask,
                max_repeats=max_repeats,
            )
        form = "count" if n == 5 else "highdim"
        return _select(
            "Select", state, dst, selMask, src0, src1, mode, form, rest, profile, isSetMask, max_repeats
        )
    if n == 4:
        x, y, repeat, params = args
        if selMode is None or int(selMode) == SELMODE.VSEL_TENSOR_SCALAR_MODE:
            return _select(
                "Select",
                state,
                dst,
                x,
                y,
                None,
                1,
                "nomask",
                (repeat, params),
                profile,
                isSetMask,
                max_repeats,
            )
        return _select(
            "Select",
            state,
            dst,
            None,
            x,
            y,
            selMode,
            "nomask",
            (repeat, params),
            profile,
            isSetMask,
            max_repeats,
        )
    raise TypeError(
        "Select() takes (dst, selMask, src0, src1, selMode, count), (dst, selMask, src0, src1, selMode, mask, "
        "repeatTime, repeatParams), (dst, selMask, src0, repeatTime, repeatParams) or (dst, src0, src1, "
        f"repeatTime, repeatParams, selMode=...); got {n + 1} arguments"
    )


_FLEX_PROTOS = (
    "Select<T0, T1, config>(dst, selMask, src0, src1, selMode, count)",
    "Select<T0, T1, isSetMask=true, config>(dst, selMask, src0, src1, selMode, mask[], repeatTime, repeatParams)",
    "Select<T0, T1, isSetMask=true, config>(dst, selMask, src0, src1, selMode, mask, repeatTime, repeatParams)",
)


@register(
    ApiSpec(
        "SelectFlexible", "compare_select", _FLEX_PROTOS, "memory-vector/比较与选择/Select（灵活标量位置）.md"
    )
)
def SelectFlexible(
    state,
    dst,
    selMask,
    src0,
    src1,
    selMode,
    *args,
    config=None,
    profile=None,
    isSetMask=True,
    max_repeats=None,
):
    """Select with a flexible scalar position (Select（灵活标量位置）, 950).

    ``SelectFlexible(state, dst, selMask, src0, src1, selMode, count)`` or
    ``(..., selMode, mask, repeatTime, repeatParams)``. Either src0 or src1 may be the scalar: a
    Python/JAX number, or -- when both are LocalTensors -- element 0 of the tensor that
    ``config.scalarTensorIndex`` names (0 = src0, 1 = src1; required then), read from UB when the
    call runs. A selMask bit of 1 picks src0 and 0 picks src1, whichever of them is the scalar. An
    element scalar whose 32-byte block is an active dst block is a PARTIAL_OVERLAP fault. Modes
    from ``apis.SelectFlexible.modes``. Returns the new CoreState.
    """
    n = len(args)
    if n not in (1, 3):
        raise TypeError(
            "SelectFlexible() takes (dst, selMask, src0, src1, selMode, count) or "
            f"(dst, selMask, src0, src1, selMode, mask, repeatTime, repeatParams); got {6 + n} arguments"
        )
    form = "count" if n == 1 else "highdim"
    return _select(
        "SelectFlexible",
        state,
        dst,
        selMask,
        src0,
        src1,
        selMode,
        form,
        args,
        profile,
        isSetMask,
        max_repeats,
        flexible=True,
        config=config,
    )


__all__ = ["BinaryConfig", "DEFAULT_BINARY_CONFIG", "SELMODE", "Select", "SelectFlexible"]
