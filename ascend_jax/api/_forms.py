"""The call-form planner every API family uses: the count form (with its isSetMask=false register
variant), the high-dim forms (continuous / bitwise mask, MASK_PLACEHOLDER register form, a mask the
product ignores) and Counter mode -- static checks (UsageError at trace time), the traced ``dyn``
fields the lane plan reads (``_engine/lanes.py``), the repeat bucket, the repeat-parameter strides.
"""

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from .._engine import lanes as LN
from .._engine import memory as MEM
from .._engine import static as S
from .._engine.pipeline import set_extents
from ..errors import UsageError
from ..params import AnyForm, BinaryRepeatParams, UnaryRepeatParams, as_binary_params, as_unary_params
from ..tensor import MASK_PLACEHOLDER, LocalTensor
from . import _args as A

U32 = jnp.uint32
I32 = jnp.int32
_U64_MAX = 2**64 - 1


def default_big_bucket(p):
    """The bucket of a call whose repeat count is traced: every repeat the usable UB can hold."""
    return A.bucket(math.ceil(p.ub_usable_bytes / p.repeat_bytes))


def state_concrete(state):
    return A.is_concrete_array(state.vmask) and A.is_concrete_array(state.mask_mode) and state.fault.ndim == 0


def reg_count_repeats(state, L):
    w = np.asarray(state.vmask)
    cnt = int(w[0]) | (int(w[1]) << 32)
    return max(1, math.ceil(cnt / L))


def flexible_scalar_call(flex_api, profile, src0, src1, config=None, tensor_src1=False):
    """Whether a call under a plain C++ name (Adds, Muls, Maxs, Mins, Compares, Select) is its
    灵活标量位置 (flexible scalar position) overload ``flex_api``, as C++ overload resolution picks
    it: a ``config`` (BinaryConfig) given, or -- on a product with that overload -- a scalar in the
    src0 position (``Adds(dst, 2.0, src, n)``) or a LocalTensor where the plain form takes a scalar
    (``Compares(dst, src0, src1Local[0], mode, n)``). Without the overload the plain form's own
    checks report the call. ``tensor_src1``: the plain form itself takes a LocalTensor src1 (Select
    modes 0 and 2)."""
    # SPEC: "src0/src1 ... 支持类型为LocalTensor或标量 ... 类型为LocalTensor时，支持当作矢量操作数或标量单点元素"
    #       (Adds（灵活标量位置）.md, Compares（灵活标量位置）.md, Select（灵活标量位置）.md): the same C++ name,
    #       its operand types T2/T3/T4 deduced from the arguments.
    if config is not None:
        return True
    shape = not isinstance(src0, LocalTensor) or (isinstance(src1, LocalTensor) and not tensor_src1)
    return shape and profile.api(flex_api).supported


def _neutral():
    # shared constants (``_args.zeros_const``): an eager call paid ~1 ms building them (issue 36)
    z = A.zeros_const
    with jax.ensure_compile_time_eval():
        return {
            "addr": z((), "int32"),
            "count": z((2,), "uint32"),
            "repeat": _one_i32(),
            "cont": z((2,), "uint32"),
            "words": z((8,), "uint32"),
            "flag": z((), "bool"),
        }


@functools.cache
def _one_i32():
    with jax.ensure_compile_time_eval():
        return jnp.ones((), I32)


def empty_dyn(*addrs):
    """The lane-plan fields and the given address fields, with neutral values (one pytree
    structure for every call form of a family)."""
    n = _neutral()
    dyn = dict.fromkeys(addrs, n["addr"])
    dyn.update(
        count=n["count"],
        repeat=n["repeat"],
        cont=n["cont"],
        words=n["words"],
        bad_param=n["flag"],
        bad_mask=n["flag"],
    )
    return dyn


def binary_dyn():
    """Every key run_binary may read (Compare / Select families), with neutral values."""
    dyn = empty_dyn("dst", "src0", "src1", "sel", "elem")
    dyn.update(
        scalar=A.zeros_const((), "uint32"),
        strides=S.i32_stack([1, 1, 1, 8, 8, 8]),
        cmp=A.zeros_const((), "int32"),
    )
    return dyn


def scratch_regions(p, api, uses=True):
    """((first_byte, end_byte), ...) of the reserved UB regions whose used_by lists ``api``."""
    if not uses:
        return ()
    return tuple((r.offset_bytes, r.offset_bytes + r.size_bytes) for r in p.reserved if api in r.used_by)


def count_form(api, count, dt, p, max_repeats, dyn, align_bytes=0, whole_repeats=False, registers=None):
    """Validate the count argument, fill dyn["count"] / dyn["bad_param"]; returns the repeat bucket.
    ``registers``: the state, for the isSetMask=false register form (the count is range-checked but
    ignored; the vector-mask registers decide the lanes and the bucket)."""
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
    dyn["bad_param"] = dyn["bad_param"] | bad
    if max_repeats is not None:
        R = A.bucket(max_repeats)
    elif registers is not None:
        if not state_concrete(registers):
            R = default_big_bucket(p)
        else:
            R = A.bucket(reg_count_repeats(registers, L)) if int(registers.mask_mode) == 1 else 1
    elif isinstance(count, int):
        R = A.bucket(count // L if whole_repeats else math.ceil(count / L))
    else:
        R = default_big_bucket(p)
    if registers is None:
        c = jnp.asarray(count)
        dyn["count"] = jnp.stack([jnp.maximum(c, 0).astype(U32), jnp.zeros((), U32)])
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


def highdim_form(
    api, mask, repeat, dt, p, is_set_mask, state, max_repeats, dyn, honoured=True, fixed_repeat=None
):
    """Validate mask/repeatTime of a high-dim call, fill dyn; returns (mask kind, R) with the kind
    "continuous" | "bitwise" | "register" | "all" (a mask the product ignores)."""
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
    static_counter = state_concrete(state) and int(state.mask_mode) == 1
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


_BINARY_FIELDS = (
    "dstBlkStride",
    "src0BlkStride",
    "src1BlkStride",
    "dstRepStride",
    "src0RepStride",
    "src1RepStride",
)


def binary_strides(api, params, p, dyn):
    """BinaryRepeatParams -> dyn["strides"] (dst, src0, src1 block strides, then repeat strides)."""
    params = as_binary_params(params)
    for f in _BINARY_FIELDS:
        v = getattr(params, f)
        A.static_int(api, f"repeatParams.{f}", v, 0, BinaryRepeatParams._RANGES[f], p)
        dyn["bad_param"] = dyn["bad_param"] | A.traced_range_bad(v, 0, BinaryRepeatParams._RANGES[f])
    dyn["strides"] = S.i32_stack([getattr(params, f) for f in _BINARY_FIELDS])
    return params


def unary_strides(api, params, p, dyn, binary_layout=False):
    """UnaryRepeatParams -> dyn["strides"] (dstBlk, srcBlk, dstRep, srcRep); ``binary_layout``: in
    the six-slot BinaryRepeatParams layout (src1 slots unused)."""
    params = as_unary_params(params)
    for f, hi in UnaryRepeatParams._RANGES.items():
        v = getattr(params, f)
        A.static_int(api, f"repeatParams.{f}", v, 0, hi, p)
        dyn["bad_param"] = dyn["bad_param"] | A.traced_range_bad(v, 0, hi)
    g = [params.dstBlkStride, params.srcBlkStride, params.dstRepStride, params.srcRepStride]
    if binary_layout:
        g = [g[0], g[1], 1, g[2], g[3], 8]
    dyn["strides"] = S.i32_stack(g)
    return params


def plan_forms(api, state, dt, args, p, isSetMask, max_repeats, dyn, binary=False, count_strides=None):
    """The count form (``args = (count,)``) or a high-dim form (``args = (mask, repeatTime,
    repeatParams)``) of an elementwise call, for the strided core with a traced call form: checks
    the arguments, fills ``dyn`` (kind, count / mask / repeat fields, strides -- UnaryRepeatParams,
    or BinaryRepeatParams with ``binary``). Returns ``(form, R, ordered)``; ``args = (AnyForm,)``:
    every form at once, the traced form code choosing (form "any"). ``count_strides``: the count
    form's own strides (in the repeat-parameter layout) where its operands differ in width (a
    conversion: a repeat of L lanes spans L * sizeof / 32 blocks of each operand), in every form
    that has a count form."""
    plain = binary_strides if binary else unary_strides
    if len(args) == 1 and isinstance(args[0], AnyForm):
        f = args[0]
        if not A.is_static(f.form):
            strides_of = None
            if count_strides is not None:

                def strides_of(api_, params, p_, d):
                    if params is None:  # the count form
                        d["strides"] = S.i32_stack(count_strides)
                    else:
                        plain(api_, params, p_, d)

            return plan_any_form(api, state, dt, f, p, isSetMask, max_repeats, dyn, binary, strides_of)
        args, isSetMask = static_form_args(api, f, p, isSetMask)
    if len(args) == 1:
        form = "count"
        use_reg = (not isSetMask) and p.level2_is_set_mask == "honoured"
        R = count_form(api, args[0], dt, p, max_repeats, dyn, registers=state if use_reg else None)
        kind = "count_register" if use_reg else "count"
        params = BinaryRepeatParams() if binary else UnaryRepeatParams()
    else:
        form = "highdim"
        mask, repeat, params = args
        params = as_binary_params(params) if binary else as_unary_params(params)
        kind, R = highdim_form(api, mask, repeat, dt, p, isSetMask, state, max_repeats, dyn)
    plain(api, params, p, dyn)
    if form == "count" and count_strides is not None:
        dyn["strides"] = S.i32_stack(count_strides)
    dyn["kind"] = jnp.asarray(LN.KINDS[kind], I32)
    # a count beyond the UB is a fault (out of UB, or a bad mask above 2**32-1), never a reason to
    # build a bigger program
    R = min(R, default_big_bucket(p))
    ordered = form == "highdim" and MEM.collisions_possible(params.dstRepStride, params.dstBlkStride, R)
    return form, R, ordered


def static_form_args(api, f, p, isSetMask):
    """An AnyForm with a Python-int form: the ordinary arguments of that form."""
    params = f.repeatParams
    if f.form == AnyForm.COUNT:
        return (f.count,), isSetMask
    if f.form == AnyForm.CONTINUOUS:
        return (f.mask, f.repeatTime, params), True
    if f.form == AnyForm.BITWISE:
        return (list(f.mask_words), f.repeatTime, params), True
    if f.form == AnyForm.PLACEHOLDER:
        return (MASK_PLACEHOLDER, f.repeatTime, params), False
    raise UsageError(
        api, "AnyForm.form", f.form, "COUNT (0), CONTINUOUS (1), BITWISE (2), PLACEHOLDER (3)", p
    )


def _traced(v, dtype):
    """A static field of a traced AnyForm as an array (checked per case, like its traced peers)."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= int(v) < 2**31:
        return v
    return jnp.asarray(int(v), dtype)


def plan_any_form(
    api, state, dt, f, p, isSetMask, max_repeats, dyn, binary, strides_of=None, count_kw=None, honoured=True
):
    """Every call form at once: each form's checks fill its own copy of ``dyn``; the traced form
    code picks the lane plan's kind, the form's fields and its validity flags (a code outside 0..3
    is BAD_PARAM). One program: R is the ``max_repeats`` bucket (else the big bucket) and writes go
    in program order (a high-dim form may collide)."""
    code = jnp.asarray(f.form, I32)
    nw32 = p.vector_mask_bits // 32
    words = f.mask_words
    if isinstance(words, (list, tuple)) and all(A.is_static(w) for w in words):
        # a static (unused) bitwise mask: its uint32 words, so its checks stay per case
        v = sum(int(w) << (64 * i) for i, w in enumerate(words))
        words = jnp.asarray([(v >> (32 * i)) & 0xFFFFFFFF for i in range(nw32)], U32)
    f = dataclasses.replace(
        f,
        count=_traced(f.count, I32),
        mask=_traced(f.mask, U32),
        mask_words=words,
        repeatTime=_traced(f.repeatTime, I32),
    )
    strides_of = strides_of or (binary_strides if binary else unary_strides)
    use_reg = (not isSetMask) and p.level2_is_set_mask == "honoured"
    sub = [dict(dyn) for _ in range(4)]
    kinds = ["count_register" if use_reg else "count"]
    count_form(
        api, f.count, dt, p, max_repeats, sub[0], registers=state if use_reg else None, **(count_kw or {})
    )
    strides_of(api, None, p, sub[0])  # the count form's contiguous defaults
    for d, mask, set_mask in (
        (sub[1], f.mask, True),
        (sub[2], f.mask_words, True),
        (sub[3], MASK_PLACEHOLDER, False),
    ):
        hd = highdim_form(api, mask, f.repeatTime, dt, p, set_mask, state, max_repeats, d, honoured=honoured)
        kinds.append(hd[0])
        strides_of(api, f.repeatParams, p, d)

    def pick(key):
        v = sub[0][key]
        for k in (1, 2, 3):
            v = jnp.where(code == k, sub[k][key], v)
        return v

    dyn.update(count=sub[0]["count"], cont=sub[1]["cont"], words=sub[2]["words"], repeat=sub[1]["repeat"])
    dyn["strides"] = pick("strides")
    dyn["bad_mask"] = pick("bad_mask")
    dyn["bad_param"] = pick("bad_param") | (code < 0) | (code > 3)
    dyn["kind"] = jnp.asarray([LN.KINDS[k] for k in kinds], I32)[jnp.clip(code, 0, 3)]
    R = A.bucket(max_repeats) if max_repeats is not None else default_big_bucket(p)
    return "any", min(R, default_big_bucket(p)), True


def plan_unary_call(api, state, dst, src, args, p, isSetMask, max_repeats, int64_lanes=False):
    """The three call forms of a ``dst = f(src, ...)`` API (count; high-dim with a mask; high-dim
    with MASK_PLACEHOLDER) as the strided core's traced ``dyn`` (the call form is traced too:
    dyn["kind"]) and static choices. Returns ``(form, R, ordered, dyn)``; the caller adds its own
    ``scalar`` (and ``op``) entries."""
    A.check_tensor(api, "dst", dst, p)
    A.check_tensor(api, "src", src, p)
    if not isinstance(isSetMask, bool):  # a C++ bool template argument (1 is not converted)
        raise UsageError(api, "isSetMask", isSetMask, "True or False", p)
    A.check_same_dtype(api, p, dst=dst, src=src)
    dt = dst.dtype
    if len(args) not in (1, 3):
        raise TypeError(
            f"{api}() takes (dst, src, scalarValue, count) or "
            f"(dst, src, scalarValue, mask, repeatTime, repeatParams); got {3 + len(args)} arguments"
        )
    p.require_api(api, dt, count_form=len(args) == 1 and not isinstance(args[0], AnyForm))
    A.check_modelled(api, dt, p, int64_lanes=int64_lanes)
    dyn = empty_dyn("dst", "src")
    dyn["dst"], dyn["src"] = A.addr_of(dst), A.addr_of(src)
    set_extents(dyn, dst=dst, src=src)  # checker warnings
    form, R, ordered = plan_forms(api, state, dt, args, p, isSetMask, max_repeats, dyn)
    return form, R, ordered, dyn
