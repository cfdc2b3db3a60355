"""Both implementations name a rejected argument the same way, in the C++ spelling.

Each case is one static misuse. The fast path (``ascend_jax``) and the reference
(``ascend_jax.reference``) must both raise UsageError with the *identical* ``argument`` string, and
that string is the one a kernel author sees in the doc prototype: the parameter name
(``repeatTime``, ``scalarValue``), the struct parameter plus field for struct members
(``repeatParams.dstRepStride``, ``gatherMaskParams.repeatTimes``) and the element index for a word
of a bitwise mask (``mask[1]``). Two names joined by "/" only where one rule binds two arguments
(``maskHigh/maskLow``: "不同时为0"; ``src0/src1``: "both operands cannot be scalars").
"""

import jax.numpy as jnp
import pytest

import ascend_jax as aj
from ascend_jax import reference as R
from ascend_jax.errors import UnsupportedError, UsageError
from ascend_jax.fuzz.engine import _arg_names
from ascend_jax.profile import as_profile

UB = 16384
T = aj.LocalTensor
URP, BRP, GMP = aj.UnaryRepeatParams, aj.BinaryRepeatParams, aj.GatherMaskParams
PH = aj.MASK_PLACEHOLDER
LT, EQ = int(aj.CMPMODE.LT), int(aj.CMPMODE.EQ)
COUNTER = aj.MaskMode.COUNTER


def t(dtype, addr, n=256):
    return T(dtype, addr, n)


F32, F16, I16, I32, I64, U8, U16 = aj.float32, aj.half, aj.int16, aj.int32, aj.int64, aj.uint8, aj.uint16
D, S, S1 = t(F32, 0), t(F32, 2048), t(F32, 4096)  # float32 dst / src / src1
H, HS = t(F16, 0), t(F16, 2048)
B8, SEL = t(U8, 8192), t(U8, 12288)  # Compare bit output, Select selMask
SH, SHS = t(I16, 0), t(I16, 2048)  # int16 shift operands

# (id, api, profile, args after the state, keyword arguments, expected argument)
# The expected spellings come from the doc prototypes (parameter names, struct field names).
CASES = [
    # -- scalar arithmetic: Adds(dst, src, scalarValue, count | mask, repeatTime, repeatParams)
    ("adds-count", "Adds", "ascend910b", (D, S, 1.0, 49089), {}, "count"),
    ("muls-repeatTime", "Muls", "ascend910b", (D, S, 1.0, 64, 256, URP()), {}, "repeatTime"),
    (
        "maxs-dstRepStride",
        "Maxs",
        "ascend910b",
        (D, S, 1.0, 64, 1, URP(dstRepStride=256)),
        {},
        "repeatParams.dstRepStride",
    ),
    (
        "mins-srcBlkStride",
        "Mins",
        "ascend910b",
        (D, S, 1.0, 64, 1, URP(srcBlkStride=65536)),
        {},
        "repeatParams.srcBlkStride",
    ),
    (
        "adds-dstBlkStride-neg",
        "Adds",
        "ascend910b",
        (D, S, 1.0, 64, 1, URP(dstBlkStride=-1)),
        {},
        "repeatParams.dstBlkStride",
    ),
    # SPEC: 32-bit T: "maskHigh 必须为0" -> the second word of mask[]
    ("muls-mask1-f32", "Muls", "ascend910b", (D, S, 1.0, [1, 1], 1, URP()), {}, "mask[1]"),
    # 950 (256-bit mask register): a half repeat has 128 lanes, so mask[2] must be 0
    ("adds-mask2-half-950", "Adds", "ascend950", (H, HS, 1.0, [1, 0, 1, 0], 1, URP()), {}, "mask[2]"),
    ("adds-mask0-range", "Adds", "ascend910b", (D, S, 1.0, [2**64, 0], 1, URP()), {}, "mask[0]"),
    ("muls-mask-words", "Muls", "ascend910b", (D, S, 1.0, [1, 0, 0], 1, URP()), {}, "mask"),
    ("maxs-mask-neg", "Maxs", "ascend910b", (D, S, 1.0, -1, 1, URP()), {}, "mask"),
    ("mins-placeholder", "Mins", "ascend910b", (D, S, 1.0, PH, 1, URP()), {}, "mask"),
    (
        "adds-mask-not-placeholder",
        "Adds",
        "ascend910b",
        (D, S, 1.0, 64, 1, URP()),
        {"isSetMask": False},
        "mask",
    ),
    ("muls-zero-mask-310p", "Muls", "ascend310p", (H, HS, 1.0, 0, 1, URP()), {}, "mask"),
    ("adds-src-dtype", "Adds", "ascend910b", (D, HS, 1.0, 64), {}, "src.dtype"),
    ("muls-scalar-int32", "Muls", "ascend910b", (t(I32, 0), t(I32, 2048), 2.5, 64), {}, "scalarValue"),
    ("adds-dst-not-tensor", "Adds", "ascend910b", (5, S, 1.0, 64), {}, "dst"),
    ("adds-src-not-tensor", "Adds", "ascend910b", (D, 5, 1.0, 64), {}, "src"),
    # -- Compare / Compares / Compare into CMPMASK / Select
    ("compare-cmpMode", "Compare", "ascend910b", (B8, S, S1, 7, 64), {}, "cmpMode"),
    ("compare-count-align", "Compare", "ascend910b", (B8, S, S1, LT, 10), {}, "count"),
    (
        "compare-src1RepStride",
        "Compare",
        "ascend910b",
        (B8, S, S1, LT, 64, 1, BRP(src1RepStride=256)),
        {},
        "repeatParams.src1RepStride",
    ),
    (
        "compare-isSetMask",
        "Compare",
        "ascend910b",
        (B8, S, S1, LT, 64, 1, BRP()),
        {"isSetMask": False},
        "isSetMask",
    ),
    ("compare-src1-dtype", "Compare", "ascend910b", (B8, S, t(F16, 4096), LT, 64), {}, "src1.dtype"),
    # the mask is a reserved parameter on A2 ("保留参数，设置无效"); its C++ type is still checked
    ("compare-ignored-mask0", "Compare", "ascend910b", (B8, S, S1, LT, [2**64, 0], 1, BRP()), {}, "mask[0]"),
    ("compare-ignored-mask-words", "Compare", "ascend910b", (B8, S, S1, LT, [1, 0, 0], 1, BRP()), {}, "mask"),
    ("compare-mask1-950", "Compare", "ascend950", (B8, S, S1, LT, [1, 1, 0, 0], 1, BRP()), {}, "mask[1]"),
    (
        "compares-dstRepStride",
        "Compares",
        "ascend910b",
        (B8, S, 1.0, LT, 64, 1, URP(dstRepStride=256)),
        {},
        "repeatParams.dstRepStride",
    ),
    ("compares-src1Scalar", "Compares", "ascend910b", (B8, S, S1, LT, 64), {}, "src1Scalar"),
    ("compares-int32-LT", "Compares", "ascend910_93", (B8, t(I32, 2048), 3, LT, 64), {}, "cmpMode"),
    (
        "cmpmask-src0BlkStride",
        "CompareCmpMask",
        "ascend910b",
        (S, S1, LT, 64, BRP(src0BlkStride=256)),
        {},
        "repeatParams.src0BlkStride",
    ),
    ("cmpmask-mask1", "CompareCmpMask", "ascend910b", (S, S1, LT, [1, 1], BRP()), {}, "mask[1]"),
    # a dst below the page's 128 bytes is a SIZE checker warning since issue 18 (the hardware runs it)
    ("getcmpmask-dst", "GetCmpMask", "ascend910b", (5,), {}, "dst"),
    ("select-selMode", "Select", "ascend910b", (D, SEL, S, S1, 3, 64), {}, "selMode"),
    ("select-mode1-src1", "Select", "ascend910b", (D, SEL, S, S1, 1, 64), {}, "src1"),
    (
        "select-isSetMask",
        "Select",
        "ascend910b",
        (D, SEL, S, S1, 0, 64, 1, BRP()),
        {"isSetMask": False},
        "isSetMask",
    ),
    (
        "select-dstBlkStride",
        "Select",
        "ascend910b",
        (D, SEL, S, S1, 0, 64, 1, BRP(dstBlkStride=256)),
        {},
        "repeatParams.dstBlkStride",
    ),
    ("select-mask1", "Select", "ascend910b", (D, SEL, S, S1, 2, [1, 1], 1, BRP()), {}, "mask[1]"),
    # SPEC: the mask-less prototypes read SetCmpMask data; 910 has no CMPMASK
    ("select-nomask-910", "Select", "ascend910", (H, SEL, HS, 1, BRP()), {}, "prototype"),
    (
        "select-nomask-src1RepStride",
        "Select",
        "ascend910b",
        (D, SEL, S, 1, BRP(src1RepStride=256)),
        {},
        "repeatParams.src1RepStride",
    ),
    ("selectflex-two-scalars", "SelectFlexible", "ascend950", (D, SEL, 1.0, 2.0, 1, 64), {}, "src0/src1"),
    (
        "selectflex-config-index",
        "SelectFlexible",
        "ascend950",
        (D, SEL, S, S1, 1, 64),
        {"config": aj.BinaryConfig(2)},
        "config.scalarTensorIndex",
    ),
    # -- GatherMask(dst, src0, src1Pattern, reduceMode, mask, gatherMaskParams)
    (
        "gather-repeatTimes",
        "GatherMask",
        "ascend910b",
        (D, S, 1, False, 0, GMP(1, 256, 8, 8)),
        {},
        "gatherMaskParams.repeatTimes",
    ),
    (
        "gather-src0BlockStride",
        "GatherMask",
        "ascend910b",
        (D, S, 1, False, 0, GMP(256, 1, 8, 8)),
        {},
        "gatherMaskParams.src0BlockStride",
    ),
    (
        "gather-src0RepeatStride",
        "GatherMask",
        "ascend910b",
        (D, S, 1, False, 0, GMP(1, 1, 65536, 8)),
        {},
        "gatherMaskParams.src0RepeatStride",
    ),
    (
        "gather-src1RepeatStride",
        "GatherMask",
        "ascend910b",
        (D, S, 1, False, 0, GMP(1, 1, 8, 256)),
        {},
        "gatherMaskParams.src1RepeatStride",
    ),
    ("gather-pattern", "GatherMask", "ascend910b", (D, S, 0, False, 0, GMP(1, 1, 8, 8)), {}, "src1Pattern"),
    (
        "gather-pattern-dtype",
        "GatherMask",
        "ascend910b",
        (D, S, t(U16, 8192), False, 0, GMP(1, 1, 8, 8)),
        {},
        "src1Pattern.dtype",
    ),
    ("gather-reduceMode", "GatherMask", "ascend910b", (D, S, 1, 1, 0, GMP(1, 1, 8, 8)), {}, "reduceMode"),
    ("gather-mask-counter", "GatherMask", "ascend910b", (D, S, 1, True, 0, GMP(1, 1, 8, 8)), {}, "mask"),
    ("gather-mask-u32", "GatherMask", "ascend910b", (D, S, 1, False, 2**32, GMP(1, 1, 8, 8)), {}, "mask"),
    # -- ShiftLeft / ShiftRight(dst, src, scalarValue, count | mask, repeatTime, repeatParams[, roundEn])
    ("shl-amount", "ShiftLeft", "ascend910b", (SH, SHS, 17, 64), {}, "scalarValue"),
    ("shr-amount-neg", "ShiftRight", "ascend910b", (SH, SHS, -1, 64), {}, "scalarValue"),
    ("shr-roundEn-count", "ShiftRight", "ascend910b", (SH, SHS, 1, 64), {"roundEn": True}, "roundEn"),
    ("shr-roundEn-950", "ShiftRight", "ascend950", (SH, SHS, 1, 64, 1, URP(), True), {}, "roundEn"),
    (
        "shl-dstRepStride",
        "ShiftLeft",
        "ascend910b",
        (SH, SHS, 1, 64, 1, URP(dstRepStride=256)),
        {},
        "repeatParams.dstRepStride",
    ),
    (
        "shr-mask1-int32",
        "ShiftRight",
        "ascend910b",
        (t(I32, 0), t(I32, 2048), 1, [1, 1], 1, URP()),
        {},
        "mask[1]",
    ),
    ("shl-tensor-src1-dtype", "ShiftLeftTensor", "ascend950", (SH, SHS, t(U16, 4096), 64), {}, "src1.dtype"),
    # -- mask registers: SetVectorMask<T, mode>(maskHigh, maskLow) / (len)
    ("svm-maskHigh-f32", "SetVectorMask", "ascend910b", (F32, 1, 1), {}, "maskHigh"),
    # once rejected by one implementation only
    ("setctrlspr-bool-startBit", "SetCtrlSpr", "ascend910b", (True, 48, 1), {}, "startBit"),
    ("getctrlspr-bool-endBit", "GetCtrlSpr", "ascend910b", (48, True), {}, "endBit"),
    ("adds-float-mask-word", "Adds", "ascend910b", (D, S, 1.0, [1.0, 0], 1, URP()), {}, "mask[0]"),
    (
        "compares-ignored-mask-no-set",
        "Compares",
        "ascend910b",
        (B8, D, 1.0, LT, 64, 1, URP()),
        {"isSetMask": False},
        "mask",
    ),
    ("svm-counter-on-910", "SetVectorMask", "ascend910", (F32, 0, 64), {"mode": COUNTER}, "mode"),
    ("adds-isSetMask-int", "Adds", "ascend910b", (D, S, 1.0, 64, 1, URP()), {"isSetMask": 1}, "isSetMask"),
    ("adds-one-mask-word-half", "Adds", "ascend910b", (H, HS, 1.0, [1], 1, URP()), {}, "mask"),
    ("svm-maskLow-int64", "SetVectorMask", "ascend950", (I64, 0, 2**33), {}, "maskLow"),
    ("svm-counter-maskLow", "SetVectorMask", "ascend910b", (F16, 0, 2**32), {"mode": COUNTER}, "maskLow"),
    ("svm-counter-maskHigh", "SetVectorMask", "ascend910b", (F16, 1, 5), {"mode": COUNTER}, "maskHigh"),
    ("svm-zero-310p", "SetVectorMask", "ascend310p", (F16, 0, 0), {}, "maskHigh/maskLow"),
    ("svm-len-neg", "SetVectorMask", "ascend910b", (F16, -1), {}, "len"),
    ("svm-len-zero-310p", "SetVectorMask", "ascend310p", (F16, 0), {}, "len"),
    ("svm-mode", "SetVectorMask", "ascend910b", (F16, 3), {"mode": 5}, "mode"),
    # -- CTRL: SetCtrlSpr<startBit, endBit>(value), GetCtrlSpr<startBit, endBit>()
    ("setctrl-start-after-end", "SetCtrlSpr", "ascend910b", (5, 3, 0), {}, "startBit"),
    ("setctrl-endBit", "SetCtrlSpr", "ascend950", (60, 64, 0), {}, "endBit"),
    ("setctrl-value", "SetCtrlSpr", "ascend910b", (48, 48, 2), {}, "value"),
    ("getctrl-startBit", "GetCtrlSpr", "ascend910b", (64, 64), {}, "startBit"),
    ("setctrl-unsupported-bit", "SetCtrlSpr", "ascend910b", (3, 3, 1), {}, "bit"),
    # -- element-wise family: Add(dst, src0, src1, count | mask, repeatTime, repeatParams), ...
    ("add-count", "Add", "ascend910b", (D, S, S1, 49089), {}, "count"),
    ("sub-repeatTime", "Sub", "ascend910b", (D, S, S1, 64, 256, BRP()), {}, "repeatTime"),
    (
        "mul-src1RepStride",
        "Mul",
        "ascend910b",
        (D, S, S1, 64, 1, BRP(src1RepStride=256)),
        {},
        "repeatParams.src1RepStride",
    ),
    (
        "div-src0BlkStride",
        "Div",
        "ascend910b",
        (D, S, S1, 64, 1, BRP(src0BlkStride=-1)),
        {},
        "repeatParams.src0BlkStride",
    ),
    ("max-mask", "Max", "ascend910b", (D, S, S1, -1, 1, BRP()), {}, "mask"),
    ("min-src1-dtype", "Min", "ascend910b", (D, S, t(F16, 4096), 64), {}, "src1.dtype"),
    ("and-mask-word", "And", "ascend910b", (SH, SHS, t(I16, 4096), [1, -1], 1, BRP()), {}, "mask[1]"),
    ("or-isSetMask", "Or", "ascend910b", (SH, SHS, t(I16, 4096), 128), {"isSetMask": 1}, "isSetMask"),
    ("abs-count", "Abs", "ascend910b", (D, S, 49089), {}, "count"),
    (
        "relu-srcRepStride",
        "Relu",
        "ascend910b",
        (D, S, 64, 1, URP(srcRepStride=256)),
        {},
        "repeatParams.srcRepStride",
    ),
    ("exp-repeatTime", "Exp", "ascend910b", (H, HS, 128, 256, URP()), {}, "repeatTime"),
    ("not-src-dtype", "Not", "ascend910b", (SH, HS, 128), {}, "src.dtype"),
    ("leakyrelu-mask", "LeakyRelu", "ascend910b", (D, S, 0.5, -1, 1, URP()), {}, "mask"),
    ("dup-dstBlockStride", "Duplicate", "ascend910b", (D, 1.0, 64, 1, 65536, 8), {}, "dstBlockStride"),
    ("dup-count", "Duplicate", "ascend910b", (D, 1.0, 49089), {}, "count"),
    ("cvi-dstRepStride", "CreateVecIndex", "ascend910b", (D, 0.0, 64, 1, 1, 256), {}, "dstRepStride"),
    ("subs-two-scalars", "Subs", "ascend950", (H, 1.0, 2.0, 128), {}, "src0/src1"),
    ("divs-src1-dtype", "Divs", "ascend950", (H, 2.0, t(F32, 4096), 64), {}, "src1.dtype"),
    ("ands-repeatTime", "Ands", "ascend950", (SH, SHS, 3, 128, 256, URP()), {}, "repeatTime"),
    (
        "ors-scalarTensorIndex",
        "Ors",
        "ascend950",
        (SH, SHS, t(I16, 4096), 128),
        {"config": 2},
        "config.scalarTensorIndex",
    ),
    ("cvi-firstValue", "CreateVecIndex", "ascend910b", (SH, 40000, 128), {}, "firstValue"),
    # -- reduction family (issue 16)
    (
        "rr-order",
        "ReduceRepeat",
        "ascend910",
        (H, HS, 128, 1, 1, 1, 8, "ORDER_INDEX_VALUE"),
        {"reduceType": "MAX"},
        "order",
    ),
    (
        "rr-srcRepStride",
        "ReduceRepeat",
        "ascend910b",
        (H, HS, 128, 1, 1, 1, 65536),
        {"reduceType": "SUM"},
        "srcRepStride",
    ),
    (
        "rdb-reduceType",
        "ReduceDataBlock",
        "ascend910b",
        (H, HS, 128, 1, 1, 1, 8),
        {"reduceType": "AVG"},
        "reduceType",
    ),
    ("rpe-mask", "ReducePairElem", "ascend910b", (H, HS, -1, 1, 1, 1, 8), {}, "mask"),
    ("rsum-count", "ReduceSum", "ascend910b", (H, HS, t(F16, 8192), 98305), {}, "count"),
    ("rsum-dst-dtype", "ReduceSum", "ascend910b", (D, HS, t(F16, 8192), 128), {}, "dst.dtype"),
    (
        "rmax-tmp",
        "ReduceMax",
        "ascend910b",
        (H, HS, t(F16, 8192, 175), 128, 65, 8, True),
        {},
        "sharedTmpBuffer",
    ),
    ("rmax-calIndex", "ReduceMax", "ascend910b", (H, HS, t(F16, 8192), 128, 1, 8, 1), {}, "calIndex"),
    ("rmin-repeatTime", "ReduceMin", "ascend910b", (H, HS, t(F16, 8192), 128, -1, 8), {}, "repeatTime"),
]


def _call(mod, api, profile, args, kwargs):
    p = as_profile(profile)
    state = aj.reset_state(p, ub_bytes=UB) if mod is aj else R.reset_state(p, ub_bytes=UB)
    with pytest.raises(UsageError) as info:
        getattr(mod, api)(state, *args, profile=p, **kwargs)
    return info.value


def _check_message(e, api, profile):
    """The message names api, argument, value, allowed values and profile."""
    msg = str(e)
    assert e.api == api
    assert msg.startswith(f"{api}: {e.argument}={e.value!r} ")
    assert f"profile '{as_profile(profile).name}'" in msg
    assert str(e.allowed) and f"allowed: {e.allowed}" in msg


@pytest.mark.parametrize(
    ("api", "profile", "args", "kwargs", "argument"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_same_argument_in_fast_path_and_reference(api, profile, args, kwargs, argument):
    fast = _call(aj, api, profile, args, kwargs)
    ref = _call(R, api, profile, args, kwargs)
    assert fast.argument == ref.argument == argument
    assert type(fast) is type(ref)
    for e in (fast, ref):
        _check_message(e, api, profile)


def test_enough_distinct_cases():
    keys = {(c[1], c[5]) for c in CASES}
    assert len(CASES) == len({c[0] for c in CASES})
    assert len(keys) >= 25
    families = {c[1] for c in CASES}
    for api in ("Adds", "Muls", "Maxs", "Mins", "Compare", "Compares", "Select", "GatherMask"):
        assert api in families
    assert {"ShiftLeft", "ShiftRight", "SetVectorMask", "SetCtrlSpr"} <= families


def test_unsupported_cases_are_unsupported_errors():
    """The product-support rejections stay UnsupportedError on both sides."""
    for c in CASES:
        if c[0] in ("compares-int32-LT", "select-nomask-910", "setctrl-unsupported-bit"):
            assert isinstance(_call(aj, *c[1:5]), UnsupportedError)
            assert isinstance(_call(R, *c[1:5]), UnsupportedError)


def test_engine_compares_argument_names_exactly():
    def err(arg):
        return UsageError("Adds", arg, 0, "x", "ascend910b")

    assert _arg_names(err("repeatParams.dstRepStride")) == {"repeatParams.dstRepStride"}
    assert not _arg_names(err("repeatParams.dstRepStride")) & _arg_names(err("dstRepStride"))
    assert not _arg_names(err("mask[1]")) & _arg_names(err("mask"))
    assert _arg_names(err("maskHigh/maskLow")) == {"maskHigh", "maskLow"}


def test_traced_mask_array_is_named_mask():
    """A malformed traced bitwise mask (fast path only) is the parameter ``mask`` as a whole."""
    p = as_profile("ascend910b")
    st = aj.reset_state(p, ub_bytes=UB)
    with pytest.raises(UsageError) as info:
        aj.Adds(st, D, S, 1.0, jnp.zeros((4,), jnp.int32), 1, URP(), profile=p)
    assert info.value.argument == "mask"
