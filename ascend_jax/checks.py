"""Checker warnings: the per-case warning word of ``CoreState`` / ``RefState`` (docs/MODEL.md
"Checker warnings").

A checker warning marks what the hardware runs without complaint but a kernel author probably did
not mean. Warnings never change a result bit (hardware faults, ``errors.Fault``, do). Plain Python
tables, shared by the fast path and the reference like ``errors.Fault``: each implementation
computes the word on its own.

State fields: ``warn`` (uint32, OR of ``Warn`` bits over the calls so far) and ``warn_at``
(int32[2]: (API code, argument code) of the first warning, (0, 0) while there is none). Codes are
1 + the index in ``WARN_APIS`` / ``WARN_ARGS`` (0 = unknown); both tables are append-only.
"""

import enum


class Warn(enum.IntFlag):
    # an active lane of an operand lies outside the operand's LocalTensor [addr, addr + length)
    EXTENT = 1
    # a documented size / alignment requirement not met that the hardware nevertheless runs
    SIZE = 2
    # an active source lane reads a UB byte never written since reset (check_uninit=True only)
    UNINIT = 4


WARN_APIS = (
    "Abs", "Add", "Adds", "AddsFlexible", "And", "Ands", "Compare", "CompareCmpMask", "CompareScalar",
    "Compares", "CreateVecIndex", "DataCopy", "DataCopyPad", "Div", "Divs", "Duplicate", "Exp", "GatherMask",
    "GetCmpMask", "GetCtrlSpr", "GetGatherMaskRemainCount", "GetSaturationFlag", "LeakyRelu", "Ln", "Max",
    "Maxs", "MaxsFlexible", "Min", "Mins", "MinsFlexible", "Mul", "Muls", "MulsFlexible", "Neg", "Not", "Or",
    "Ors", "Reciprocal", "Relu", "ResetCtrlSpr", "ResetMask", "Rsqrt", "Select", "SelectFlexible",
    "SetCmpMask", "SetCtrlSpr", "SetMaskCount", "SetMaskNorm", "SetSaturationFlag", "SetVectorMask",
    "ShiftLeft", "ShiftLeftTensor", "ShiftRight", "ShiftRightTensor", "Sqrt", "Sub", "Subs",
    # appended at the session-5 integration (Cast, reductions, composites, Brcb, Mull, Prelu)
    "AbsSub", "AddRelu", "Axpy", "Brcb", "Cast", "FusedMulAdd", "MulAddDst", "MulAddRelu", "Mull", "Prelu",
    "ReduceDataBlock", "ReduceMax", "ReduceMin", "ReducePairElem", "ReduceRepeat", "ReduceSum", "SubRelu",
    "Truncate",
    # appended by issue 16 "gather" (离散与聚合)
    "Gather", "Gatherb", "Scatter",
    # appended by helper castcomp (the cast composites)
    "AddReluCast", "SubReluCast", "MulCast", "AddDeqRelu", "SetDeqScale", "GetReduceRepeatSumSpr",
    "GetReduceRepeatMaxMinSpr", "MulsCast",
    # appended by the sort helper (排序组合（ISASI）)
    "Sort32", "MrgSort", "MrgSort4", "RpSort16", "ProposalConcat", "ProposalExtract", "GetMrgSortResult",
    # appended by the ewmath helper (ExpSub fast path, Compares（灵活标量位置）)
    "ExpSub", "ComparesFlexible",
    # appended by issue 16 "layout" (数据排布转换 / 数据重排)
    "Transpose", "TransDataTo5HD", "Interleave", "DeInterleave",
    # appended by helper bilinear (基础算术/BilinearInterpolation(ISASI))
    "BilinearInterpolation",
    # appended by helper deq
    "CastDequant",
    # appended by helper vpad (数据填充 VectorPadding(ISASI))
    "VectorPadding",
    # appended in issue 33 (SetPadValue(ISASI))
    "SetPadValue",
    # appended in issue 33 item 2 (寄存器配置说明/NdDmaDci)
    "NdDmaDci",
    "SetLoopModePara",
    "ResetLoopModePara",
    # appended in issue 45 item 7 (高阶API: the advanced math APIs)
    "Sigmoid", "Tanh", "Log", "Log2", "Log10", "FasterGeluV2",
)  # fmt: skip
WARN_ARGS = ("dst", "src", "src0", "src1")
WARN_ARGS += ("src2", "src3", "src4")  # appended by the sort helper: MrgSortSrcList queues


def api_code(name) -> int:
    return WARN_APIS.index(name) + 1 if name in WARN_APIS else 0


def arg_code(name) -> int:
    return WARN_ARGS.index(name) + 1 if name in WARN_ARGS else 0


def describe(warn, warn_at) -> str:
    """One line for a warning word and its first (API, argument) pair, e.g.
    ``"EXTENT|UNINIT (first: Muls dst)"``; ``""`` when ``warn`` is 0."""
    warn = int(warn)
    if not warn:
        return ""
    kinds = "|".join(k.name for k in Warn if warn & k)
    a, g = (int(x) for x in warn_at)
    api = WARN_APIS[a - 1] if 0 < a <= len(WARN_APIS) else "?"
    arg = WARN_ARGS[g - 1] if 0 < g <= len(WARN_ARGS) else "?"
    return f"{kinds} (first: {api} {arg})"
