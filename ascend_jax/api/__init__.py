"""Pure functional API: ``new_state = X(state, ...)``, one module per API family."""

from .adv_math import FasterGeluV2, Log, Log2, Log10, Sigmoid, Tanh  # 高阶API (issue 45 item 7, helper math)
from .bilinear import BilinearInterpolation  # 基础算术 (issue 16, helper bilinear)
from .binary import Add, And, Div, Max, Min, Mul, Or, Sub
from .binary_scalar import AddsFlexible, Ands, Divs, MaxsFlexible, MinsFlexible, MulsFlexible, Ors, Subs
from .cast import Cast, RoundMode, Truncate
from .castcomp import AddDeqRelu, AddReluCast, MulCast, MulsCast, SetDeqScale, SubReluCast
from .compare import (
    CMPMODE,
    Compare,
    CompareCmpMask,
    Compares,
    CompareScalar,
    ComparesFlexible,
    GetCmpMask,
    SetCmpMask,
)
from .compound import AbsSub, AddRelu, Axpy, ExpSub, FusedMulAdd, MulAddDst, MulAddRelu, Mull, Prelu, SubRelu
from .data_copy import DataCopy, DataCopyPad, NdDmaDci, ResetLoopModePara, SetLoopModePara, SetPadValue
from .dequant import CastDequant  # helper deq
from .fill import Brcb, CreateVecIndex, Duplicate
from .gather import Gather, Gatherb, GatherRepeatParams, Scatter  # 离散与聚合 (issue 16)
from .gather_mask import AnyPattern, GatherMask, GatherMaskParams, GetGatherMaskRemainCount
from .layout import (  # data layout 数据排布转换 / 数据重排 (issue 16)
    DeInterleave,
    Interleave,
    TransDataTo5HD,
    TransDataTo5HDParams,
    Transpose,
    TransposeParamsExt,
    TransposeType,
)
from .padding import VectorPadding  # 数据填充 VectorPadding(ISASI) (helper "vpad")
from .reduce import (
    GetReduceRepeatMaxMinSpr,
    GetReduceRepeatSumSpr,
    ReduceDataBlock,
    ReduceMax,
    ReduceMin,
    ReduceOrder,
    ReducePairElem,
    ReduceRepeat,
    ReduceSum,
    ReduceType,
)
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
from .select import DEFAULT_BINARY_CONFIG, SELMODE, BinaryConfig, Select, SelectFlexible
from .shift import ShiftLeft, ShiftLeftTensor, ShiftRight, ShiftRightTensor
from .sort import GetMrgSortResult, MrgSort, MrgSort4, ProposalConcat, ProposalExtract, RpSort16, Sort32
from .unary import Abs, Exp, LeakyRelu, Ln, Neg, Not, Reciprocal, Relu, Rsqrt, Sqrt
from .unary_scalar import Adds, Maxs, Mins, Muls
