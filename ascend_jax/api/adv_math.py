"""Advanced math APIs (高阶API): Sigmoid, FasterGeluV2 (激活函数), Tanh, Log, Log2, Log10 (数学库).

Prototypes (C++ argument order; ``isReuseSource`` is the template argument after T):
  Sigmoid / Tanh / Log2(dstTensor, srcTensor, sharedTmpBuffer, calCount)  -- 通过sharedTmpBuffer传入临时空间
  Sigmoid / Tanh / Log2(dstTensor, srcTensor, sharedTmpBuffer)            -- 源操作数Tensor全部参与计算
  Sigmoid / Tanh / Log2(dstTensor, srcTensor, calCount)                   -- 接口框架申请临时空间
  Sigmoid / Tanh / Log2(dstTensor, srcTensor)
  Log / Log10(dstTensor, srcTensor, calCount) and (dstTensor, srcTensor)   -- no sharedTmpBuffer form
  FasterGeluV2<T, highPrecision, highPerformance>(dstLocal, srcLocal[, sharedTmpBuffer], dataSize)
These are different APIs from the memory-vector ``Exp`` / ``Ln`` (基础算术), which keep their own
names and call forms. Element semantics: ``_engine/adv_math.py`` (a named instruction sequence per
API, the profile's ``apis.<Name>.sequence``); call rules: docs/MODEL.md "Advanced math".

One program per (dtype, repeat bucket) serves the six APIs (the API is traced data, ``dyn["op"]``):
the call runs on the shared strided core as a count-form call (``lanes.KIND_COUNT``), so addresses, faults, program-order writes and the register side effects
of a count-form call are the basic APIs' own.
"""

import dataclasses

import jax.numpy as jnp
import numpy as np

from .._engine import adv_math as AM
from .._engine import lanes as LN
from .._engine import static as S
from .._engine.pipeline import StridedStatic, run_strided, set_extents
from ..errors import NotModelledError, UsageError
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..tensor import LocalTensor
from . import _args as A
from ._forms import count_form, empty_dyn

I32 = jnp.int32
U32 = jnp.uint32

# the APIs with the sharedTmpBuffer prototypes (Log and Log10 have none: the pages list only the
# framework-allocated forms)
WITH_TMP = ("Sigmoid", "Tanh", "Log2", "FasterGeluV2")
# FasterGeluV2 spells its arguments (dstLocal, srcLocal, ..., dataSize) and has no whole-tensor form
_NAMES = {"FasterGeluV2": ("dstLocal", "srcLocal", "dataSize")}
_DEFAULT_NAMES = ("dstTensor", "srcTensor", "calCount")


def arg_names(api):
    """(dst, src, count) argument names of ``api``'s prototypes."""
    return _NAMES.get(api, _DEFAULT_NAMES)


def any_elem(x, s, dtype, profile, ctrl, dyn):
    """The family's element function: ``dyn["op"]`` (the index in ``API_NAMES``) selects the API."""
    return AM.any_elem(x, dtype, profile, ctrl, dyn["op"])


def _split_args(api, args, p):
    """(sharedTmpBuffer or None, calCount or None) from the arguments after srcTensor."""
    tmp, rest = None, list(args)
    if rest and isinstance(rest[0], LocalTensor):
        if api not in WITH_TMP:
            raise UsageError(
                api,
                "sharedTmpBuffer",
                "a LocalTensor",
                "no sharedTmpBuffer argument: (dstTensor, srcTensor[, calCount])",
                p,
                f"the {api} prototypes take no temporary buffer",
            )
        tmp = rest.pop(0)
    dn, sn, cn = arg_names(api)
    if len(rest) > 1:
        head = f"{dn}, {sn}, sharedTmpBuffer" if api in WITH_TMP else f"{dn}, {sn}"
        raise TypeError(f"{api}() takes ({head}[, {cn}]); got {len(args) + 2} arguments")
    if rest and isinstance(rest[0], LocalTensor):
        raise UsageError(api, cn, "a LocalTensor", "an integer", p)
    return tmp, (rest[0] if rest else None)


def _overlap(a0, n0, a1, n1):
    """Whether the byte ranges [a0, a0 + n0) and [a1, a1 + n1) share a byte (n0, n1 > 0)."""
    return (n0 > 0) & (n1 > 0) & (a0 < a1 + n1) & (a1 < a0 + n0)


def _flag(api, name, v, p):
    if not isinstance(v, (bool, np.bool_)):
        raise UsageError(api, name, v, "true / false", p)
    return bool(v)


def plan(
    api,
    state,
    dstTensor,
    srcTensor,
    args,
    profile,
    isReuseSource,
    max_repeats,
    highPrecision=False,
    highPerformance=False,
):
    """(StridedStatic, dyn) of one call; static misuse raises UsageError. ``highPrecision`` /
    ``highPerformance``: FasterGeluV2's template flags."""
    p = as_profile(profile)
    dn, sn, cn = arg_names(api)
    A.check_tensor(api, dn, dstTensor, p)
    A.check_tensor(api, sn, srcTensor, p)
    A.check_same_dtype(api, p, **{dn: dstTensor, sn: srcTensor})
    dt = dstTensor.dtype
    # SPEC: "源操作数的数据类型需要与目的操作数保持一致"; "支持的数据类型为：half/float" (per product)
    p.require_api(api, dt)
    _flag(api, "isReuseSource", isReuseSource, p)
    hp = _flag(api, "highPrecision", highPrecision, p)
    if _flag(api, "highPerformance", highPerformance, p):
        # SPEC: "开启高性能模式相比于默认不开启高精度和高性能模式会有精度下降" -- by how much, the page does not say
        raise NotModelledError(
            f"{api}<T, highPrecision, highPerformance=true>: the high-performance mode is not modelled"
        )
    tmp, calCount = _split_args(api, args, p)
    if calCount is None and api in _NAMES:
        raise UsageError(api, cn, "missing", f"an integer in [0, min({sn}.GetSize(), {dn}.GetSize())]", p)
    if tmp is not None:
        # SPEC: "sharedTmpBuffer ... 类型为LocalTensor" of uint8_t (the prototypes: LocalTensor<uint8_t>)
        if tmp.dtype.name != "uint8":
            raise UsageError(api, "sharedTmpBuffer.dtype", tmp.dtype.name, "uint8", p)
        if tmp.length == 0:
            raise UsageError(
                api, "sharedTmpBuffer", "0 bytes", "a non-empty buffer (GetXxxMaxMinTmpSize's minimum)", p
            )
    isz = dt.itemsize
    hi = min(srcTensor.length, dstTensor.length)
    bad = jnp.zeros((), bool)
    if calCount is None:
        # SPEC: "源操作数Tensor全部参与计算": every element of srcTensor
        if dstTensor.length < srcTensor.length:
            raise UsageError(
                api,
                dn,
                f"{dstTensor.length} elements",
                f"at least {sn}.GetSize() = {srcTensor.length}",
                p,
                "the whole-tensor form computes every element of srcTensor",
            )
        count = srcTensor.length
    else:
        # SPEC: "calCount∈[0, min(srcTensor.GetSize(), dstTensor.GetSize())]" (FasterGeluV2:
        #       "dataSize∈[0, min(srcLocal.GetSize(), dstLocal.GetSize())]")
        count = A.static_int(api, cn, calCount, 0, hi, p)
        bad = bad | A.traced_range_bad(count, 0, hi)
    dyn = empty_dyn("dst", "src")
    # SPEC: calCount = 0 is in the documented range: a NOP on every product (the basic APIs'
    # zero_count policy is theirs; here 0 is a valid count)
    pz = dataclasses.replace(p, zero_count="nop")
    R = count_form(api, count, dt, pz, max_repeats, dyn)
    d_addr, s_addr = A.addr_of(dstTensor), A.addr_of(srcTensor)
    dyn.update(dst=d_addr, src=s_addr)
    set_extents(dyn, dst=dstTensor, src=srcTensor)
    dyn["strides"] = np.asarray([1, 1, 8, 8], np.int32)  # contiguous operands
    nbytes = count * isz if S.is_static(count) else jnp.asarray(count, I32) * isz
    # FasterGeluV2's page states no overlap rule for dst and src (CHOICE: the basic APIs' rules, in
    # place allowed); its scratch follows the family's rule
    pairs = [] if api in _NAMES else [(dn, sn, d_addr, nbytes, s_addr, nbytes)]
    if tmp is not None:
        t_addr = A.addr_of(tmp)
        pairs += [
            ("sharedTmpBuffer", sn, t_addr, tmp.length, s_addr, nbytes),
            ("sharedTmpBuffer", dn, t_addr, tmp.length, d_addr, nbytes),
        ]
    for a_name, b_name, a0, n0, a1, n1 in pairs:
        # SPEC: "不支持源操作数与目的操作数地址重叠"; "不支持sharedTmpBuffer与源操作数和目的操作数地址重叠"
        if S.is_static(a0, n0, a1, n1):
            if _overlap(int(a0), int(n0), int(a1), int(n1)):
                raise UsageError(
                    api,
                    a_name,
                    f"bytes [{int(a0)}, {int(a0) + int(n0)})",
                    f"no byte shared with {b_name} [{int(a1)}, {int(a1) + int(n1)})",
                    p,
                    "the page does not support overlapping operands",
                )
        else:
            bad = bad | _overlap(jnp.asarray(a0, I32), n0, jnp.asarray(a1, I32), n1)
    dyn["bad_param"] = dyn["bad_param"] | bad
    dyn["scalar"] = np.zeros((), np.uint32)
    op = AM.OP_GELU_HP if (api == "FasterGeluV2" and hp) else AM.API_NAMES.index(api)
    dyn["op"] = np.asarray(op, np.int32)
    return static(dt, R, pz), dyn


def static(dtype, R, profile):
    """The compile key of a call: one program per (dtype, repeat bucket, profile) serves the six APIs."""
    return StridedStatic(
        api="*",
        dtype=dtype,
        R=R,
        ordered=False,
        profile=profile,
        elem=any_elem,
        kind=LN.KIND_COUNT,
        api_codes=AM.API_NAMES,
    )


def call(api, state, dstTensor, srcTensor, args, profile, isReuseSource, max_repeats):
    st, dyn = plan(api, state, dstTensor, srcTensor, args, profile, isReuseSource, max_repeats)
    return run_strided(st, state, dyn)


_TMP_PROTOS = (
    "{name}<T, isReuseSource=false>(dstTensor, srcTensor, LocalTensor<uint8_t> sharedTmpBuffer, calCount)",
    "{name}<T, isReuseSource=false>(dstTensor, srcTensor, LocalTensor<uint8_t> sharedTmpBuffer)",
    "{name}<T, isReuseSource=false>(dstTensor, srcTensor, calCount)",
    "{name}<T, isReuseSource=false>(dstTensor, srcTensor)",
)
_PLAIN_PROTOS = _TMP_PROTOS[2:]

_DOC_PAGES = {
    "Sigmoid": "高阶API/激活函数/Sigmoid.md",
    "Tanh": "高阶API/数学库/Tanh.md",
    "Log": "高阶API/数学库/Log.md",
    "Log2": "高阶API/数学库/Log.md",
    "Log10": "高阶API/数学库/Log.md",
}
_FORMULAS = {
    "Sigmoid": "dst_i = 1 / (1 + e^(-src_i))",
    "Tanh": "dst_i = (e^(2 src_i) - 1) / (e^(2 src_i) + 1)",
    "Log": "dst_i = ln(src_i)",
    "Log2": "dst_i = log2(src_i)",
    "Log10": "dst_i = log10(src_i)",
}


def _make(name):
    tmp_form = name in WITH_TMP

    if tmp_form:

        def api(
            state,
            dstTensor,
            srcTensor,
            sharedTmpBuffer=None,
            calCount=None,
            *,
            profile=None,
            isReuseSource=False,
            max_repeats=None,
        ):
            # (dstTensor, srcTensor, calCount): the third argument is the count
            args = tuple(a for a in (sharedTmpBuffer, calCount) if a is not None)
            return call(name, state, dstTensor, srcTensor, args, profile, isReuseSource, max_repeats)

    else:

        def api(
            state,
            dstTensor,
            srcTensor,
            calCount=None,
            *args,
            profile=None,
            isReuseSource=False,
            max_repeats=None,
        ):
            full = ((calCount,) if calCount is not None else ()) + args
            return call(name, state, dstTensor, srcTensor, full, profile, isReuseSource, max_repeats)

    head = (
        "dstTensor, srcTensor[, sharedTmpBuffer][, calCount]"
        if tmp_form
        else "dstTensor, srcTensor[, calCount]"
    )
    api.__name__ = api.__qualname__ = name
    api.__doc__ = f"""``{_FORMULAS[name]}`` for the first ``calCount`` elements (Ascend C ``AscendC::{name}``,
    an advanced API).

    Call forms (C++ order): ``{name}(state, {head})``; without ``calCount`` every element of
    ``srcTensor``. ``sharedTmpBuffer``: a ``LocalTensor`` of uint8 (its contents are not modelled;
    it must not overlap the operands). ``isReuseSource``: the reserved template flag (ignored).
    Results follow the profile's named sequence ``apis.{name}.sequence`` (docs/MODEL.md). Returns
    the new CoreState.
    """
    protos = tuple(pr.format(name=name) for pr in (_TMP_PROTOS if tmp_form else _PLAIN_PROTOS))
    return register(ApiSpec(name, "adv_math", protos, _DOC_PAGES[name]))(api)


@register(
    ApiSpec(
        "FasterGeluV2",
        "adv_math",
        (
            "FasterGeluV2<T, highPrecision=false, highPerformance=false>(dstLocal, srcLocal, "
            "LocalTensor<uint8_t> sharedTmpBuffer, dataSize)",
            "FasterGeluV2<T, highPrecision=false, highPerformance=false>(dstLocal, srcLocal, dataSize)",
        ),
        "高阶API/激活函数/FasterGeluV2.md",
    )
)
def FasterGeluV2(
    state,
    dstLocal,
    srcLocal,
    sharedTmpBuffer=None,
    dataSize=None,
    *,
    profile=None,
    highPrecision=False,
    highPerformance=False,
    max_repeats=None,
):
    """``dst_i = x * (sgn(x) * [-0.1444 * (clip(|0.7071 x|, max = 1.769) - 1.769)**2 + 0.5] + 0.5)`` with
    ``x = src_i`` and ``sgn(x) = (x + 1e-12) / |x + 1e-12|``, for the first ``dataSize`` elements (Ascend C
    ``AscendC::FasterGeluV2``, an advanced API). Call forms (C++ order): ``(dstLocal, srcLocal,
    [sharedTmpBuffer,] dataSize)``. ``highPrecision``: half computed in float32; ``highPerformance=True``
    is not modelled. Results per ``apis.FasterGeluV2.sequence`` (docs/MODEL.md). Returns the new
    CoreState."""
    args = tuple(a for a in (sharedTmpBuffer, dataSize) if a is not None)
    st, dyn = plan(
        "FasterGeluV2",
        state,
        dstLocal,
        srcLocal,
        args,
        profile,
        False,
        max_repeats,
        highPrecision,
        highPerformance,
    )
    return run_strided(st, state, dyn)


Sigmoid = _make("Sigmoid")
Tanh = _make("Tanh")
Log = _make("Log")
Log2 = _make("Log2")
Log10 = _make("Log10")

__all__ = ["Sigmoid", "Tanh", "Log", "Log2", "Log10", "FasterGeluV2"]
