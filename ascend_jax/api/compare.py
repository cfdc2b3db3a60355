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
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._engine.binary import BinaryStatic, run_binary
from ..errors import Fault, NotModelledError, UnsupportedError, UsageError
from ..params import BinaryRepeatParams, UnaryRepeatParams, as_binary_params, as_unary_params
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..tensor import MASK_PLACEHOLDER, LocalTensor
from . import _args as A

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


# -- shared argument handling (also used by select.py) -------------------------------------------


def default_big_bucket(p):
    return A.bucket(math.ceil(p.ub_usable_bytes / p.repeat_bytes))


def state_concrete(state):
    return A.is_concrete_array(state.vmask) and A.is_concrete_array(state.mask_mode) and state.fault.ndim == 0


def reg_count_repeats(state, L):
    w = np.asarray(state.vmask)
    cnt = int(w[0]) | (int(w[1]) << 32)
    return max(1, math.ceil(cnt / L))


def empty_dyn():
    """Every key run_binary may read, with neutral values (one pytree structure for all calls)."""
    z = jnp.zeros((), I32)
    return {
        "dst": z,
        "src0": z,
        "src1": z,
        "sel": z,
        "elem": z,
        "scalar": jnp.zeros((), U32),
        "count": jnp.zeros((2,), U32),
        "repeat": jnp.ones((), I32),
        "cont": jnp.zeros((2,), U32),
        "words": jnp.zeros((8,), U32),
        "strides": jnp.asarray([1, 1, 1, 8, 8, 8], I32),
        "bad_param": jnp.zeros((), bool),
        "bad_mask": jnp.zeros((), bool),
        "cmp": jnp.zeros((), I32),
    }


def scratch_regions(p, api, uses=True):
    """((first_byte, end_byte), ...) of the reserved UB regions whose used_by lists ``api``."""
    if not uses:
        return ()
    return tuple((r.offset_bytes, r.offset_bytes + r.size_bytes) for r in p.reserved if api in r.used_by)


def count_form(api, count, dt, p, max_repeats, dyn, align_bytes=0, whole_repeats=False):
    """Validate the count argument, fill dyn["count"]/dyn["bad_param"]; returns the repeat bucket."""
    max_count = p.ub_usable_bytes // dt.itemsize
    count = A.static_int(api, "count", count, 0, max_count, p, "count must fit in the usable UB")
    bad = A.traced_range_bad(count, 0, max_count)
    L = p.lanes(dt)
    if align_bytes:
        unit = align_bytes // math.gcd(align_bytes, dt.itemsize)
        if isinstance(count, int):
            if count % unit:
                raise UsageError(
                    api,
                    "count",
                    count,
                    f"a multiple of {unit} for {dt.cpp}",
                    p,
                    f"count * sizeof(T) must be a multiple of {align_bytes} bytes "
                    f"(current size {count * dt.itemsize} bytes)",
                )
        else:
            bad = bad | (jnp.asarray(count) % unit != 0)
    if max_repeats is not None:
        R = A.bucket(max_repeats)
    elif isinstance(count, int):
        R = A.bucket(count // L if whole_repeats else math.ceil(count / L))
    else:
        R = default_big_bucket(p)
    c = jnp.asarray(count)
    dyn["count"] = jnp.stack([jnp.maximum(c, 0).astype(U32), jnp.zeros((), U32)])
    dyn["bad_param"] = dyn["bad_param"] | bad
    return R


def _check_ignored_mask(api, mask, p, is_set_mask):
    """A mask the product ignores ("保留参数，设置无效"): only its C++ type/range is checked."""
    n_words = p.vector_mask_bits // 64
    if mask is MASK_PLACEHOLDER or mask is None:
        if is_set_mask:
            raise UsageError(api, "mask", mask, "an int (continuous) or a list of uint64 words (bitwise)", p)
        return
    if not is_set_mask:  # the isSetMask=false prototype takes MASK_PLACEHOLDER (as the reference)
        raise UsageError(api, "mask", mask, "MASK_PLACEHOLDER when isSetMask=false", p)
    if isinstance(mask, (list, tuple)):
        if not 1 <= len(mask) <= n_words:
            raise UsageError(api, "mask", list(mask), f"1 to {n_words} uint64 words (low word first)", p)
        for i, w in enumerate(mask):
            if A.is_static(w) and not (isinstance(w, (int, np.integer)) and 0 <= int(w) <= _U64_MAX):
                raise UsageError(api, f"mask[{i}]", w, "[0, 2**64-1]", p)
        return
    if A.is_static(mask) and (
        isinstance(mask, bool) or not isinstance(mask, (int, np.integer)) or not 0 <= int(mask) <= _U64_MAX
    ):
        raise UsageError(api, "mask", mask, "an integer in [0, 2**64-1]", p)


def highdim_form(api, mask, repeat, dt, p, is_set_mask, state, max_repeats, dyn, honoured, fixed_repeat=None):
    """Validate mask/repeatTime of a high-dim call, fill dyn; returns (mask_kind, R)."""
    L = p.lanes(dt)
    if fixed_repeat is None:
        repeat = A.static_int(api, "repeatTime", repeat, 0, p.max_repeat_times, p)
        dyn["bad_param"] = dyn["bad_param"] | A.traced_range_bad(repeat, 0, p.max_repeat_times)
    else:
        repeat = fixed_repeat
    dyn["repeat"] = jnp.asarray(repeat, I32)
    if not honoured:
        _check_ignored_mask(api, mask, p, is_set_mask)
        if fixed_repeat is not None:
            return "all", 1
        if max_repeats is not None:
            return "all", A.bucket(max_repeats)
        return "all", A.bucket(repeat) if isinstance(repeat, int) else A.bucket(p.max_repeat_times)
    m = A.parse_mask(api, mask, dt, p, is_set_mask)
    if m.kind != "register" and m.static_zero and p.zero_mask == "error":
        raise UsageError(
            api, "mask", mask, "a non-zero mask", p, "this product rejects a zero mask in Normal mode"
        )
    if m.traced_bad is not None:
        dyn["bad_mask"] = dyn["bad_mask"] | m.traced_bad
    if m.cont is not None:
        dyn["cont"] = m.cont
    if m.words is not None:
        dyn["words"] = m.words
    if fixed_repeat is not None:
        return m.kind, 1
    concrete = state_concrete(state)
    static_counter = concrete and int(state.mask_mode) == 1
    if max_repeats is not None:
        R = A.bucket(max_repeats)
    elif static_counter:
        if m.kind == "register":
            R = A.bucket(reg_count_repeats(state, L))
        elif isinstance(mask, (list, tuple)) and all(A.is_static(x) for x in mask):
            R = A.bucket(math.ceil(int(mask[0]) / L))
        elif A.is_static(mask):
            R = A.bucket(math.ceil(int(mask) / L))
        else:
            R = default_big_bucket(p)
    else:
        R = A.bucket(repeat) if isinstance(repeat, int) else A.bucket(p.max_repeat_times)
    return m.kind, R


def binary_strides(api, params, p, dyn):
    params = as_binary_params(params)
    fields = (
        "dstBlkStride",
        "src0BlkStride",
        "src1BlkStride",
        "dstRepStride",
        "src0RepStride",
        "src1RepStride",
    )
    for f in fields:
        v = getattr(params, f)
        A.static_int(api, f"repeatParams.{f}", v, 0, BinaryRepeatParams._RANGES[f], p)
        dyn["bad_param"] = dyn["bad_param"] | A.traced_range_bad(v, 0, BinaryRepeatParams._RANGES[f])
    dyn["strides"] = jnp.stack([jnp.asarray(getattr(params, f), I32) for f in fields])
    return params


def unary_strides(api, params, p, dyn):
    """UnaryRepeatParams mapped onto the binary stride vector (src1 slots unused)."""
    params = as_unary_params(params)
    for f, hi in UnaryRepeatParams._RANGES.items():
        v = getattr(params, f)
        A.static_int(api, f"repeatParams.{f}", v, 0, hi, p)
        dyn["bad_param"] = dyn["bad_param"] | A.traced_range_bad(v, 0, hi)
    g = [params.dstBlkStride, params.srcBlkStride, 1, params.dstRepStride, params.srcRepStride, 8]
    dyn["strides"] = jnp.stack([jnp.asarray(v, I32) for v in g])
    return params


def _cmp_mode(api, mode, dt, p, a):
    """The CMPMODE name this call computes (static: it selects the instruction)."""
    if isinstance(mode, str) and mode in CMPMODE.__members__:
        mode = CMPMODE[mode]
    if isinstance(mode, bool) or not isinstance(mode, (int, np.integer)) or int(mode) not in set(CMPMODE):
        raise UsageError(
            api,
            "cmpMode",
            mode if A.is_static(mode) or isinstance(mode, str) else "a traced value",
            f"{_MODES_TEXT} (a compile-time CMPMODE)",
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


# -- Compare / Compares / CompareScalar with a UB result ----------------------------------------


def _compare_to_ub(api, state, dst, src0, src1, cmpMode, args, profile, isSetMask, max_repeats, scalar):
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    A.check_tensor(api, "src0", src0, p)
    if scalar:
        if isinstance(src1, LocalTensor):
            raise UsageError(api, "src1Scalar", repr(src1), f"a scalar of type {src0.dtype.cpp}", p)
    else:
        A.check_tensor(api, "src1", src1, p)
        A.check_same_dtype(api, p, src0=src0, src1=src1)
    dt = src0.dtype
    if len(args) == 1:
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
    mode = _cmp_mode(api, cmpMode, dt, p, a)
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
    dyn = empty_dyn()
    dyn["cmp"] = jnp.asarray(int(CMPMODE[mode]), I32)
    dyn["dst"] = A.addr_of(dst)
    dyn["src0"] = A.addr_of(src0)
    if scalar:
        dyn["scalar"] = A.scalar_bits(api, src1, dt, p)
    else:
        dyn["src1"] = A.addr_of(src1)
    tail = a.count_tail
    if form == "count":
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
        if scalar:
            unary_strides(api, params, p, dyn)
        else:
            binary_strides(api, params, p, dyn)
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
        a_kind="tensor",
        b_kind="scalar" if scalar else "tensor",
        sel="none",
        sel_addr="dyn",
        cmp="dyn",
        out="bits",
        merge="none",
        scratch=scratch_regions(p, api),
        side="none",
        side_slot=-1,
        profile=p,
    )
    return run_binary(st, state, dyn)


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
    mode = _cmp_mode(api, cmpMode, dt, p, a)
    dyn = empty_dyn()
    dyn["cmp"] = jnp.asarray(int(CMPMODE[mode]), I32)
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
        merge="none",
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


def _make_compares(name, doc):
    def api(state, dst, src0, src1Scalar, cmpMode, *args, profile=None, isSetMask=True, max_repeats=None):
        return _compare_to_ub(
            name, state, dst, src0, src1Scalar, cmpMode, args, profile, isSetMask, max_repeats, True
        )

    api.__name__ = api.__qualname__ = name
    api.__doc__ = f"""Element-wise ``src0 cmpMode src1Scalar`` into packed bits (``AscendC::{name}``).

    Call forms (C++ order): ``{name}(state, dst, src0, src1Scalar, cmpMode, count)`` or
    ``{name}(state, dst, src0, src1Scalar, cmpMode, mask, repeatTime, repeatParams)`` with
    UnaryRepeatParams; ``mask`` is an int, a list of uint64 words, a traced uint32 word array, or
    ``MASK_PLACEHOLDER`` with ``isSetMask=False``. The scalar is converted to T first. Output layout,
    mask and count rules as :func:`Compare` (profile keys ``apis.{name}.*``). Returns the new CoreState.

    **Spec:** {doc}.
    """
    protos = tuple(pr.format(name=name) for pr in _COMPARES_PROTOS)
    return register(ApiSpec(name, "compare_select", protos, doc))(api)


Compares = _make_compares("Compares", "memory-vector/比较与选择/Compares.md")
CompareScalar = _make_compares(
    "CompareScalar", "seed 001 (the older name of Compares; memory-vector/比较与选择/Compares.md)"
)


# -- SetCmpMask / GetCmpMask --------------------------------------------------------------------


def _cmpmask_faults(state, addr, p):
    a = jnp.asarray(addr, I32)
    limit = min(state.ub.shape[-1], p.ub_usable_bytes)
    fault = jnp.where(a % CMPMASK_ALIGN != 0, U32(Fault.MISALIGNED), U32(0))
    fault |= jnp.where((a < 0) | (a + CMPMASK_BYTES > limit), U32(Fault.OUT_OF_UB), U32(0))
    return a, fault


@functools.partial(jax.jit, static_argnums=0)
def _set_cmpmask(p, state, addr):
    a, fault = _cmpmask_faults(state, addr, p)
    raw = lax.dynamic_slice(state.ub, (jnp.clip(a, 0, state.ub.shape[-1] - CMPMASK_BYTES),), (CMPMASK_BYTES,))
    words = lax.bitcast_convert_type(raw.reshape(4, 4), U32)
    ok = fault == 0
    return state.replace(cmpmask=jnp.where(ok, words, state.cmpmask), fault=state.fault | fault)


@functools.partial(jax.jit, static_argnums=0)
def _get_cmpmask(p, state, addr):
    a, fault = _cmpmask_faults(state, addr, p)
    raw = lax.bitcast_convert_type(state.cmpmask, jnp.uint8).reshape(CMPMASK_BYTES)
    start = jnp.clip(a, 0, state.ub.shape[-1] - CMPMASK_BYTES)
    cur = lax.dynamic_slice(state.ub, (start,), (CMPMASK_BYTES,))
    ok = fault == 0
    ub = lax.dynamic_update_slice(state.ub, jnp.where(ok, raw, cur), (start,))
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
    return _set_cmpmask(p, state, A.addr_of(src))


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
    dst is untouched. ``dst`` must be 16-byte aligned (else MISALIGNED) and hold at least 128 bytes
    (the documented minimum; a static usage error). Returns the new state."""
    p = as_profile(profile)
    A.check_tensor("GetCmpMask", "dst", dst, p)
    p.require_api("GetCmpMask", dst.dtype)
    if dst.nbytes < GETCMPMASK_MIN_DST_BYTES:
        raise UsageError(
            "GetCmpMask",
            "dst",
            f"{dst.nbytes} bytes",
            f">= {GETCMPMASK_MIN_DST_BYTES} bytes",
            p,
            "the documented minimum size of GetCmpMask's dst",
        )
    return _get_cmpmask(p, state, A.addr_of(dst))


__all__ = ["CMPMODE", "Compare", "CompareCmpMask", "CompareScalar", "Compares", "GetCmpMask", "SetCmpMask"]
