"""Advanced math APIs (高阶API): Sigmoid (激活函数/Sigmoid), Tanh, Log, Log2, Log10 (数学库/Tanh, Log),
written from the pages and docs/MODEL.md "Advanced math: Sigmoid, Tanh, Log, Log2, Log10".

Call forms (after the state): ``(dstTensor, srcTensor[, sharedTmpBuffer][, calCount])`` -- the
sharedTmpBuffer prototypes exist for Sigmoid, Tanh and Log2 only. Without calCount every element
of srcTensor is computed.

Each lane is the profile's named sequence (``apis.<Name>.sequence``) of basic operations, each one
the reference's own lane function (elem.py, cast.py) rounded once to its type:
* Sigmoid ``muls_exp_adds_div``:     Div(1, Adds(Exp(Muls(x, -1)), 1))                          in T
* Tanh ``float32_clamp_exp_ratio``:  x' = Cast<float>(x); c = Maxs(Mins(x', 10), -10);
                                     e = Exp(Muls(c, 2)); r = Div(Adds(e, -1), Adds(e, 1));
                                     Cast<T>(r, CAST_RINT)                                      in float32
* Log ``ln``:                        Ln(x)                                                      in T
* Log2 ``float32_ln_muls``:          Cast<T>(Muls(Ln(Cast<float>(x)), 1/ln 2), CAST_RINT)         in float32
* Log10 ``ln_muls``:                 Muls(Ln(x), 1/ln 10)                                       in T
The constants are the exact values rounded once to their type (80-digit decimal logarithms).

Order of work, literally: static checks -> run-time parameter checks -> lane plan of a count-form
call (masks.py; calCount = 0 is a NOP on every product) -> faults (faults.py, plus BAD_PARAM for a
traced calCount out of range or traced overlapping operands) -> compute -> write -> registers.
"""

import dataclasses
import decimal
from fractions import Fraction

import numpy as np

from .. import dtypes as _dt
from ..errors import Fault, NotModelledError, UsageError
from ..profile import as_profile
from ..tensor import LocalTensor
from . import cast as _cast
from . import elem as _elem
from . import elementwise as _ew
from . import numerics as _num

SEQUENCES = {
    "Sigmoid": "muls_exp_adds_div",
    "Tanh": "float32_clamp_exp_ratio",
    "Log": "ln",
    "Log2": "float32_ln_muls",
    "Log10": "ln_muls",
    "FasterGeluV2": "formula_steps",
}
WITH_TMP = ("Sigmoid", "Tanh", "Log2", "FasterGeluV2")
# (dst, src, count) argument names
NAMES = {"FasterGeluV2": ("dstLocal", "srcLocal", "dataSize")}
DEFAULT_NAMES = ("dstTensor", "srcTensor", "calCount")
_CTX = decimal.Context(prec=80)


def _const(v, d):
    """The exact value ``v`` (Fraction / int) rounded once to T: its bits."""
    return _num.round_to_bits(Fraction(v), _num.float_format(d))


def _inv_ln(base):
    return 1 / Fraction(_CTX.ln(decimal.Decimal(base)))


def _gelu_v2(d, profile, ctrl):
    """FasterGeluV2's formula operation by operation in T: x * (sgn(x) * [-0.1444 * (clip(|0.7071 x|,
    max = 1.769) - 1.769)**2 + 0.5] + 0.5), sgn(x) = (x + 1e-12) / |x + 1e-12| read as the sign of
    x + T(1e-12) (+1 for +-0: the division itself would be 0 / 0 where 1e-12 rounds to 0 in half)."""

    def op(name):
        return _elem.lane_function(name, d, profile, ctrl)

    mul, add, mn, ab = op("Mul"), op("Add"), op("Min"), op("Abs")
    c = {
        v: _const(Fraction(v), d) for v in ("0.7071", "1.769", "-1.769", "-0.1444", "0.5", "1e-12", "1", "-1")
    }
    top = 1 << (d.bits - 1)

    def f(x):
        a = ab(mul(x, c["0.7071"]))
        a = add(mn(a, c["1.769"]), c["-1.769"])
        a = add(mul(mul(a, a), c["-0.1444"]), c["0.5"])
        sgn = c["-1"] if add(x, c["1e-12"]) & top else c["1"]
        return mul(x, add(mul(a, sgn), c["0.5"]))

    return f


def _lane_sequence(api, d, profile, ctrl, high_precision=False):
    """``f(x_bits) -> dst_bits`` of one lane."""
    if profile.api(api).sequence != SEQUENCES[api]:
        raise NotModelledError(f"{api}: sequence {profile.api(api).sequence!r} is not modelled")
    if d.name not in ("half", "float32"):
        raise NotModelledError(f"{api}: {d.name} is not modelled by the reference")

    def op(name, t):
        return _elem.lane_function(name, t, profile, ctrl)

    f32 = _dt.float32
    if api == "FasterGeluV2":
        if not (high_precision and d.name == "half"):
            return _gelu_v2(d, profile, ctrl)
        # SPEC: "高精度模式只在half数据类型下使能后生效": the steps in float32, the result cast to half
        widen = _cast.lane_function(d, f32, "NONE", profile, ctrl)
        narrow = _cast.lane_function(f32, d, "RINT", profile, ctrl)
        g = _gelu_v2(f32, profile, ctrl)
        return lambda x: narrow(g(widen(x)))
    if api == "Sigmoid":
        muls, exp, adds, div = op("Mul", d), op("Exp", d), op("Add", d), op("Div", d)
        m1, one = _const(-1, d), _const(1, d)
        return lambda x: div(one, adds(exp(muls(x, m1)), one))
    if api == "Log":
        return op("Ln", d)
    if api == "Log10":
        ln, muls = op("Ln", d), op("Mul", d)
        k = _const(_inv_ln(10), d)
        return lambda x: muls(ln(x), k)
    # Tanh and Log2: in float32 (half widened exactly, the result cast back with CAST_RINT)
    if d.name == "half":
        widen = _cast.lane_function(d, f32, "NONE", profile, ctrl)
        narrow = _cast.lane_function(f32, d, "RINT", profile, ctrl)
    else:

        def widen(b):
            return b

        narrow = widen
    if api == "Log2":
        ln, muls = op("Ln", f32), op("Mul", f32)
        k = _const(_inv_ln(2), f32)
        return lambda x: narrow(muls(ln(widen(x)), k))
    mins, maxs, muls, exp = op("Min", f32), op("Max", f32), op("Mul", f32), op("Exp", f32)
    adds, div = op("Add", f32), op("Div", f32)
    hi, lo, two, one, m1 = (_const(v, f32) for v in (10, -10, 2, 1, -1))

    def tanh(x):
        c = maxs(mins(widen(x), hi), lo)
        e = exp(muls(c, two))
        return narrow(div(adds(e, m1), adds(e, one)))

    return tanh


def _traced(v):
    return isinstance(v, np.generic)


def _int(api, name, v, p):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise UsageError(api, name, v, "an integer", p)
    return int(v)


def _overlaps(a0, n0, a1, n1):
    return n0 > 0 and n1 > 0 and a0 < a1 + n1 and a1 < a0 + n0


def _call(api, state, dstTensor, srcTensor, args, profile, isReuseSource, hp=False, hperf=False):
    p = as_profile(profile)
    dn, sn, cn = NAMES.get(api, DEFAULT_NAMES)
    for t, name in ((dstTensor, dn), (srcTensor, sn)):
        if not isinstance(t, LocalTensor):
            raise UsageError(api, name, type(t).__name__, "a LocalTensor", p)
    if srcTensor.dtype != dstTensor.dtype:
        raise UsageError(
            api,
            f"{sn}.dtype",
            srcTensor.dtype.name,
            dstTensor.dtype.name,
            p,
            f"{dn} and {sn} must have the same element type",
        )
    d = dstTensor.dtype
    # SPEC: "支持的数据类型为：half/float" (数据类型 per product; 产品支持情况)
    p.require_api(api, d)
    for flag, v in (("isReuseSource", isReuseSource), ("highPrecision", hp), ("highPerformance", hperf)):
        if not isinstance(v, (bool, np.bool_)):
            raise UsageError(api, flag, v, "true / false", p)
    if hperf:
        raise NotModelledError(f"{api}: highPerformance = true is not modelled")
    rest = list(args)
    tmp = None
    if rest and isinstance(rest[0], LocalTensor):
        if api not in WITH_TMP:
            # SPEC: the Log page lists no sharedTmpBuffer prototype for base e and base 10
            raise UsageError(
                api,
                "sharedTmpBuffer",
                "a LocalTensor",
                "no sharedTmpBuffer argument: (dstTensor, srcTensor[, calCount])",
                p,
            )
        tmp = rest.pop(0)
    if len(rest) > 1:
        raise TypeError(f"{api}() takes at most one {cn}; got {len(args) + 2} arguments")
    if rest and isinstance(rest[0], LocalTensor):
        raise UsageError(api, cn, "a LocalTensor", "an integer", p)
    if not rest and api in NAMES:
        raise UsageError(api, cn, "missing", "an integer (the page has no whole-tensor prototype)", p)
    if tmp is not None:
        if tmp.dtype.name != "uint8":
            raise UsageError(api, "sharedTmpBuffer.dtype", tmp.dtype.name, "uint8", p)
        if tmp.length == 0:
            raise UsageError(api, "sharedTmpBuffer", "0 bytes", "a non-empty buffer", p)
    hi = min(srcTensor.length, dstTensor.length)
    traced_bad = False
    if not rest:
        # SPEC: "源操作数Tensor全部参与计算"
        if dstTensor.length < srcTensor.length:
            raise UsageError(api, dn, f"{dstTensor.length} elements", f">= {srcTensor.length}", p)
        count = srcTensor.length
    else:
        # SPEC: "calCount∈[0, min(srcTensor.GetSize(), dstTensor.GetSize())]"
        raw = rest[0]
        count = _int(api, cn, raw, p)
        if not (0 <= count <= hi):
            if not _traced(raw):
                raise UsageError(api, cn, count, f"an integer in [0, {hi}]", p)
            traced_bad = True
    nbytes = count * d.itemsize
    c_traced = bool(rest) and _traced(rest[0])
    ops = [(dn, dstTensor, nbytes, c_traced), (sn, srcTensor, nbytes, c_traced)]
    if tmp is not None:
        ops.append(("sharedTmpBuffer", tmp, tmp.length, False))
    # FasterGeluV2: no overlap rule for dst and src on its page (the basic APIs' rules apply)
    pairs = [] if api in NAMES else [(ops[0], ops[1])]
    pairs += [(ops[2], ops[1]), (ops[2], ops[0])] if tmp is not None else []
    for (a_name, a, n0, a_tr), (b_name, b, n1, b_tr) in pairs:
        # SPEC: "不支持源操作数与目的操作数地址重叠"; "不支持sharedTmpBuffer与源操作数和目的操作数地址重叠"
        a0, a1 = int(a.addr), int(b.addr)
        traced = a_tr or b_tr or _traced(a.addr) or _traced(b.addr)
        if _overlaps(a0, n0, a1, n1):
            if not traced:
                raise UsageError(api, a_name, f"bytes [{a0}, {a0 + n0})", f"no byte shared with {b_name}", p)
            traced_bad = True

    def extra(plan, dst, dst_strides):
        return int(Fault.BAD_PARAM) if traced_bad else 0

    def factory(dd, pp, ctrl):
        return _lane_sequence(api, dd, pp, ctrl, bool(hp))

    # calCount = 0 is a documented value: a NOP whatever the product's zero-count policy
    pz = dataclasses.replace(p, zero_count="nop")
    c_arg = rest[0] if c_traced else count
    return _ew.run(
        api, state, dstTensor, (srcTensor,), ("srcTensor",), (c_arg,), pz, True, factory, True, extra
    )


def Sigmoid(state, dstTensor, srcTensor, *args, profile, isReuseSource=False):
    """``dst_i = 1 / (1 + e^(-src_i))`` (高阶API/激活函数/Sigmoid)."""
    return _call("Sigmoid", state, dstTensor, srcTensor, args, profile, isReuseSource)


def Tanh(state, dstTensor, srcTensor, *args, profile, isReuseSource=False):
    """``dst_i = (e^(2 src_i) - 1) / (e^(2 src_i) + 1)`` (高阶API/数学库/Tanh)."""
    return _call("Tanh", state, dstTensor, srcTensor, args, profile, isReuseSource)


def Log(state, dstTensor, srcTensor, *args, profile, isReuseSource=False):
    """``dst_i = ln(src_i)`` (高阶API/数学库/Log, base e)."""
    return _call("Log", state, dstTensor, srcTensor, args, profile, isReuseSource)


def Log2(state, dstTensor, srcTensor, *args, profile, isReuseSource=False):
    """``dst_i = log2(src_i)`` (高阶API/数学库/Log, base 2)."""
    return _call("Log2", state, dstTensor, srcTensor, args, profile, isReuseSource)


def Log10(state, dstTensor, srcTensor, *args, profile, isReuseSource=False):
    """``dst_i = log10(src_i)`` (高阶API/数学库/Log, base 10)."""
    return _call("Log10", state, dstTensor, srcTensor, args, profile, isReuseSource)


def FasterGeluV2(state, dstLocal, srcLocal, *args, profile, highPrecision=False, highPerformance=False):
    """``x * (sgn(x) * [-0.1444 * (clip(|0.7071 x|, max = 1.769) - 1.769)**2 + 0.5] + 0.5)``
    (高阶API/激活函数/FasterGeluV2); ``(dstLocal, srcLocal, [sharedTmpBuffer,] dataSize)``."""
    return _call(
        "FasterGeluV2", state, dstLocal, srcLocal, args, profile, False, highPrecision, highPerformance
    )
