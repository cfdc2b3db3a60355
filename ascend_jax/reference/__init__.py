"""The literal NumPy reference of ascend_jax: the slow, independent oracle the fast JAX path is
tested against.

Written from the vendor doc text and docs/MODEL.md with plain loops (repeat, block, lane). It
shares nothing with the fast path except ``dtypes``, ``profile``, ``errors``, ``tensor`` and
``params``, and never imports jax itself.

Modules: ``state`` (RefState), ``masks`` (active lanes of the three call forms), ``faults``
(addressing and fault rules), ``numerics`` (rounding, flush, NaN, saturation, wrap),
``unary_scalar`` (Adds/Muls/Maxs/Mins), ``registers`` (mask and CTRL APIs).
"""

from ..params import UnaryRepeatParams
from ..tensor import MASK_PLACEHOLDER, LocalTensor
from .masks import MAX_REFERENCE_LANES
from .registers import (
    GetCtrlSpr,
    GetSaturationFlag,
    ResetCtrlSpr,
    ResetMask,
    SetCtrlSpr,
    SetMaskCount,
    SetMaskNorm,
    SetSaturationFlag,
    SetVectorMask,
)
from .state import RefState, copy_state, reset_state, ub_read, ub_write
from .unary_scalar import Adds, Maxs, Mins, Muls

__all__ = [
    "RefState",
    "reset_state",
    "copy_state",
    "ub_read",
    "ub_write",
    "Adds",
    "Muls",
    "Maxs",
    "Mins",
    "SetVectorMask",
    "SetMaskCount",
    "SetMaskNorm",
    "ResetMask",
    "SetCtrlSpr",
    "GetCtrlSpr",
    "ResetCtrlSpr",
    "SetSaturationFlag",
    "GetSaturationFlag",
    "LocalTensor",
    "UnaryRepeatParams",
    "MASK_PLACEHOLDER",
    "MAX_REFERENCE_LANES",
]

# Compare and Select family (issue 3)
from .compare import (  # noqa: E402
    Compare,
    CompareCmpMask,
    Compares,
    CompareScalar,
    GetCmpMask,
    SetCmpMask,
)
from .select import Select, SelectFlexible  # noqa: E402

__all__ += [
    "Compare",
    "CompareCmpMask",
    "Compares",
    "CompareScalar",
    "SetCmpMask",
    "GetCmpMask",
    "Select",
    "SelectFlexible",
]

# GatherMask and the shifts (issue 4)
from .shift import ShiftLeft, ShiftLeftTensor, ShiftRight, ShiftRightTensor  # noqa: E402

__all__ += ["ShiftLeft", "ShiftRight", "ShiftLeftTensor", "ShiftRightTensor"]
from .gather_mask import GatherMask, GetGatherMaskRemainCount  # noqa: E402

__all__ += ["GatherMask", "GetGatherMaskRemainCount"]

# GM <-> UB data movement (issue 5)
from .data_copy import DataCopy, DataCopyPad, NdDmaDci, ResetLoopModePara, SetLoopModePara, SetPadValue  # noqa: E402

__all__ += ["DataCopy", "DataCopyPad", "NdDmaDci", "ResetLoopModePara", "SetLoopModePara", "SetPadValue"]

# Element-wise family (issue 15): tensor-tensor binary and unary APIs
from .binary import Add, And, Div, Max, Min, Mul, Or, Sub  # noqa: E402
from .unary import Abs, Exp, Ln, Neg, Not, Reciprocal, Relu, Rsqrt, Sqrt  # noqa: E402

__all__ += ["Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or"]
__all__ += ["Abs", "Relu", "Neg", "Not", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal"]
from .binary_scalar import (  # noqa: E402
    AddsFlexible,
    Ands,
    Divs,
    LeakyRelu,
    MaxsFlexible,
    MinsFlexible,
    MulsFlexible,
    Ors,
    Subs,
)

__all__ += [
    "LeakyRelu",
    "Subs",
    "Divs",
    "Ands",
    "Ors",
    "AddsFlexible",
    "MulsFlexible",
    "MaxsFlexible",
    "MinsFlexible",
]
from .fill import Brcb, CreateVecIndex, Duplicate  # noqa: E402

__all__ += ["Duplicate", "CreateVecIndex", "Brcb"]
from .cast import Cast, RoundMode, Truncate  # noqa: E402

__all__ += ["Cast", "RoundMode", "Truncate"]

from .reduce import ReduceDataBlock, ReduceMax, ReduceMin, ReducePairElem, ReduceRepeat, ReduceSum  # noqa: E402

__all__ += ["ReduceRepeat", "ReduceDataBlock", "ReducePairElem", "ReduceSum", "ReduceMax", "ReduceMin"]
# composite ops 复合计算 (issue 16)
from .compound import AbsSub, AddRelu, Axpy, ExpSub, FusedMulAdd, MulAddDst, MulAddRelu, Mull, Prelu, SubRelu  # noqa: E402

__all__ += [
    "AddRelu",
    "SubRelu",
    "FusedMulAdd",
    "MulAddRelu",
    "MulAddDst",
    "Axpy",
    "AbsSub",
    "ExpSub",
    "Prelu",
    "Mull",
]
# 离散与聚合 (issue 16): Gather, Gatherb(ISASI), Scatter(ISASI)
from .gather import Gather, Gatherb, Scatter  # noqa: E402

__all__ += ["Gather", "Gatherb", "Scatter"]

# helper castcomp (issues 15/16): reduce result registers, SetDeqScale, the cast composites
from .castcomp import AddDeqRelu, AddReluCast, MulCast, MulsCast, SetDeqScale, SubReluCast  # noqa: E402
from .reduce import GetReduceRepeatMaxMinSpr, GetReduceRepeatSumSpr  # noqa: E402

__all__ += ["GetReduceRepeatSumSpr", "GetReduceRepeatMaxMinSpr"]
__all__ += ["SetDeqScale", "AddReluCast", "SubReluCast", "MulCast", "AddDeqRelu", "MulsCast"]
# 排序组合（ISASI） (issue 16, helper "sort")
from .sort import GetMrgSortResult, MrgSort, MrgSort4, ProposalConcat, ProposalExtract, RpSort16, Sort32  # noqa: E402

__all__ += [
    "Sort32",
    "MrgSort",
    "GetMrgSortResult",
    "MrgSort4",
    "RpSort16",
    "ProposalConcat",
    "ProposalExtract",
]

# Compares（灵活标量位置） (helper "ewmath")
from .compare import ComparesFlexible  # noqa: E402

__all__ += ["ComparesFlexible"]
# data layout 数据排布转换 and data rearrangement 数据重排 (issue 16)
from .layout import DeInterleave, Interleave, TransDataTo5HD, Transpose  # noqa: E402

__all__ += ["Transpose", "TransDataTo5HD", "Interleave", "DeInterleave"]
# 基础算术/BilinearInterpolation(ISASI) (issue 16, helper "bilinear")
from .bilinear import BilinearInterpolation  # noqa: E402

__all__ += ["BilinearInterpolation"]
# CastDequant (helper "deq")
from ..params import VdeqInfo  # noqa: E402
from .dequant import CastDequant  # noqa: E402

__all__ += ["CastDequant", "VdeqInfo"]
# 数据填充 VectorPadding(ISASI) (helper "vpad")
from .padding import VectorPadding  # noqa: E402

__all__ += ["VectorPadding"]

# advanced math 高阶API (issue 45 item 7, helper "math")
from .adv_math import FasterGeluV2, Log, Log2, Log10, Sigmoid, Tanh  # noqa: E402

__all__ += ["Sigmoid", "Tanh", "Log", "Log2", "Log10", "FasterGeluV2"]
