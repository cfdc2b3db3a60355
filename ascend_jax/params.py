"""Ascend C repeat-parameter structs, with the C++ field names, order and defaults.

Fields may hold Python ints (static) or traced JAX integers (so a vmap sweep over strides does not
recompile). Range checks on Python ints happen in the API entry; traced values out of range record
``Fault.BAD_PARAM``.
"""

import dataclasses
import enum

import chex


def _pytree_dataclass(cls):
    # A chex dataclass: frozen, hashable when its fields are Python ints (equal structs hash equal),
    # a registered pytree whose leaves are the fields (Python ints or traced integers). Not a Mapping
    # (``mappable_dataclass=False``): the C++ positional order ``UnaryRepeatParams(dstBlkStride,
    # srcBlkStride, dstRepStride, srcRepStride)`` stays the constructor signature.
    cls = chex.dataclass(frozen=True, mappable_dataclass=False)(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    cls._field_ranges = {n: cls._RANGES[n] for n in names}
    return cls


@_pytree_dataclass
class UnaryRepeatParams:
    """``UnaryRepeatParams{dstBlkStride(u16)=1, srcBlkStride(u16)=1, dstRepStride(u8)=8, srcRepStride(u8)=8}``.

    Units are 32-byte DataBlocks. ``halfBlock`` and the reserved fields are not modelled.
    """

    dstBlkStride: object = 1
    srcBlkStride: object = 1
    dstRepStride: object = 8
    srcRepStride: object = 8

    _RANGES = {
        "dstBlkStride": 65535,
        "srcBlkStride": 65535,
        "dstRepStride": 255,
        "srcRepStride": 255,
    }


@_pytree_dataclass
class BinaryRepeatParams:
    """``BinaryRepeatParams{dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride, src0RepStride,
    src1RepStride}``, all uint8, defaults 1, 1, 1, 8, 8, 8 (DataBlock units)."""

    dstBlkStride: object = 1
    src0BlkStride: object = 1
    src1BlkStride: object = 1
    dstRepStride: object = 8
    src0RepStride: object = 8
    src1RepStride: object = 8

    _RANGES = {
        "dstBlkStride": 255,
        "src0BlkStride": 255,
        "src1BlkStride": 255,
        "dstRepStride": 255,
        "src0RepStride": 255,
        "src1RepStride": 255,
    }


@_pytree_dataclass
class BrcbRepeatParams:
    """``BrcbRepeatParams{dstBlkStride, dstRepStride}`` of Brcb (数据填充/Brcb.md), DataBlock units.
    CHOICE: both uint16 (the page gives no struct definition); the deprecated fields (blockNumber,
    src1BlkStride, ...) are not modelled ("该参数已废弃，不对其进行业务处理")."""

    dstBlkStride: object = 1
    dstRepStride: object = 8

    _RANGES = {"dstBlkStride": 65535, "dstRepStride": 65535}


def as_brcb_params(p):
    if p is None:
        return BrcbRepeatParams()
    if isinstance(p, BrcbRepeatParams):
        return p
    if isinstance(p, (tuple, list)):
        return BrcbRepeatParams(*p)
    if isinstance(p, dict):
        return BrcbRepeatParams(**p)
    raise TypeError(f"expected BrcbRepeatParams (or a 2-tuple), got {p!r}")


def as_unary_params(p):
    if p is None:
        return UnaryRepeatParams()
    if isinstance(p, UnaryRepeatParams):
        return p
    if isinstance(p, (tuple, list)):
        return UnaryRepeatParams(*p)
    if isinstance(p, dict):
        return UnaryRepeatParams(**p)
    raise TypeError(f"expected UnaryRepeatParams (or a 4-tuple), got {p!r}")


def as_binary_params(p):
    if p is None:
        return BinaryRepeatParams()
    if isinstance(p, BinaryRepeatParams):
        return p
    if isinstance(p, (tuple, list)):
        return BinaryRepeatParams(*p)
    if isinstance(p, dict):
        return BinaryRepeatParams(**p)
    raise TypeError(f"expected BinaryRepeatParams (or a 6-tuple), got {p!r}")


# -- data movement (数据搬运) ---------------------------------------------------------------------


def _alias_gap(cls):
    """``srcGap``/``dstGap``: the names the DataCopy pages use for ``srcStride``/``dstStride``."""
    cls.srcGap = property(lambda self: self.srcStride)
    cls.dstGap = property(lambda self: self.dstStride)
    init = cls.__init__

    def init_with_gaps(self, *args, srcGap=None, dstGap=None, **kw):
        if srcGap is not None:
            kw["srcStride"] = srcGap
        if dstGap is not None:
            kw["dstStride"] = dstGap
        init(self, *args, **kw)

    cls.__init__ = init_with_gaps
    return cls


@_alias_gap
@_pytree_dataclass
class DataCopyParams:
    """``DataCopyParams{blockCount(u16)=1, blockLen(u16)=0, srcStride(u16)=0, dstStride(u16)=0}``.

    ``blockLen`` and the gaps are in 32-byte DataBlocks; a gap is the distance from the *end* of
    one block to the start of the next (the pages call the gaps ``srcGap``/``dstGap``; both
    spellings are accepted). Documented ranges: blockCount [0, 4095], the others [0, 65535].
    """

    blockCount: object = 1
    blockLen: object = 0
    srcStride: object = 0
    dstStride: object = 0

    _RANGES = {"blockCount": 4095, "blockLen": 65535, "srcStride": 65535, "dstStride": 65535}


@_pytree_dataclass
class DataCopyExtParams:
    """``DataCopyExtParams{blockCount(u16)=1, blockLen(u32)=0, srcStride(u32)=0, dstStride(u32)=0,
    rsv(u32)=0}`` (DataCopyPad). ``blockLen`` is in bytes; the GM-side stride is in bytes and the
    UB-side stride in 32-byte DataBlocks (GM->UB: srcStride bytes, dstStride blocks; UB->GM:
    srcStride blocks, dstStride bytes). The per-product ranges come from the profile."""

    blockCount: object = 1
    blockLen: object = 0
    srcStride: object = 0
    dstStride: object = 0
    rsv: object = 0

    _RANGES = {
        "blockCount": 4095,
        "blockLen": 2097151,
        "srcStride": 2**32 - 1,
        "dstStride": 2**32 - 1,
        "rsv": 2**32 - 1,
    }


@_pytree_dataclass
class DataCopyPadExtParams:
    """``DataCopyPadExtParams<T>{isPad=false, leftPadding=0, rightPadding=0, paddingValue=0}``.

    ``leftPadding``/``rightPadding`` are element counts (each at most 32 bytes); ``paddingValue``
    is a value of T (a Python number, or a traced scalar). ``isPad`` must be a Python bool."""

    isPad: object = False
    leftPadding: object = 0
    rightPadding: object = 0
    paddingValue: object = 0

    _RANGES = {"isPad": 1, "leftPadding": 255, "rightPadding": 255, "paddingValue": None}


@_pytree_dataclass
class DataCopyPadParams:
    """``DataCopyPadParams{isPad=false, leftPadding(u8)=0, rightPadding(u8)=0, paddingValue(u64)=0}``:
    the older, untyped padding struct; accepted wherever ``DataCopyPadExtParams`` is."""

    isPad: object = False
    leftPadding: object = 0
    rightPadding: object = 0
    paddingValue: object = 0

    _RANGES = {"isPad": 1, "leftPadding": 255, "rightPadding": 255, "paddingValue": None}


def _as_struct(cls, p, n):
    if p is None:
        return cls()
    if isinstance(p, cls):
        return p
    if isinstance(p, (tuple, list)):
        return cls(*p)
    if isinstance(p, dict):
        return cls(**p)
    raise TypeError(f"expected {cls.__name__} (or a {n}-tuple), got {p!r}")


def as_data_copy_params(p):
    if isinstance(p, DataCopyExtParams):  # same leading fields; the units differ (checked by the API)
        raise TypeError("DataCopy takes DataCopyParams (32-byte units); DataCopyExtParams is for DataCopyPad")
    return _as_struct(DataCopyParams, p, 4)


def as_data_copy_ext_params(p):
    if isinstance(p, DataCopyParams):
        # SPEC: the older DataCopyPad prototypes take DataCopyParams with blockLen in bytes
        return DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride)
    return _as_struct(DataCopyExtParams, p, 5)


def as_pad_params(p):
    if isinstance(p, DataCopyPadParams):
        return DataCopyPadExtParams(p.isPad, p.leftPadding, p.rightPadding, p.paddingValue)
    return _as_struct(DataCopyPadExtParams, p, 4)


# -- DataCopy with on-the-fly layout conversion, slices and NDDMA (issue 33 item 2) ----------------
# The pages give each field's range but no default: every field defaults to 0 (CHOICE; a 0 that is
# out of range -- srcDValue, the dst strides -- is a UsageError when the struct is used).


@_pytree_dataclass
class Nd2NzParams:
    """``Nd2NzParams{ndNum, nValue, dValue, srcNdMatrixStride, srcDValue, dstNzC0Stride, dstNzNStride,
    dstNzMatrixStride}`` (GMToUB随路转换ND2NZ搬运(DataCopy).md 表3): ``ndNum`` ND matrices of ``nValue``
    rows by ``dValue`` columns; src strides in elements, ``dstNzC0Stride``/``dstNzNStride`` in C0_SIZE
    (32 bytes), ``dstNzMatrixStride`` in elements."""

    ndNum: object = 0
    nValue: object = 0
    dValue: object = 0
    srcNdMatrixStride: object = 0
    srcDValue: object = 0
    dstNzC0Stride: object = 0
    dstNzNStride: object = 0
    dstNzMatrixStride: object = 0

    _RANGES = {
        "ndNum": 4095,
        "nValue": 16384,
        "dValue": 65535,
        "srcNdMatrixStride": 65535,
        "srcDValue": 65535,
        "dstNzC0Stride": 16384,
        "dstNzNStride": 16384,
        "dstNzMatrixStride": 65535,
    }


@_pytree_dataclass
class Nz2NdParamsFull:
    """``Nz2NdParamsFull{ndNum, nValue, dValue, srcNdMatrixStride, srcNStride, dstDStride,
    dstNdMatrixStride}`` (UBToGM随路转换NZ2ND搬运(DataCopy).md 表3): ``srcNdMatrixStride`` in 256
    elements (16 * 16), ``srcNStride`` in 16 elements, the dst strides in elements."""

    ndNum: object = 0
    nValue: object = 0
    dValue: object = 0
    srcNdMatrixStride: object = 0
    srcNStride: object = 0
    dstDStride: object = 0
    dstNdMatrixStride: object = 0

    _RANGES = {
        "ndNum": 4095,
        "nValue": 8192,
        "dValue": 8192,
        "srcNdMatrixStride": 512,
        "srcNStride": 4096,
        "dstDStride": 65535,
        "dstNdMatrixStride": 65535,
    }


@_pytree_dataclass
class SliceInfo:
    """``SliceInfo{startIndex, endIndex, stride, burstLen, shapeValue}`` (GM与UB切片数据搬运(DataCopy).md
    表3), all uint32: one dimension of a slice. ``burstLen`` is in DataBlocks (32 bytes) for the first
    dimension and must be 1 for the others; the rest are element (or row) counts."""

    startIndex: object = 0
    endIndex: object = 0
    stride: object = 0
    burstLen: object = 0
    shapeValue: object = 0

    _RANGES = {
        "startIndex": 2**32 - 1,
        "endIndex": 2**32 - 1,
        "stride": 2**32 - 1,
        "burstLen": 2**32 - 1,
        "shapeValue": 2**32 - 1,
    }


def as_slice_info(p):
    return _as_struct(SliceInfo, p, 5)


def _tuple_field(v):
    return tuple(int(x) for x in v) if isinstance(v, (tuple, list)) else v


@dataclasses.dataclass(frozen=True)
class NdDmaLoopInfo:
    """``NdDmaLoopInfo<dim>{loopSrcStride[dim], loopDstStride[dim], loopSize[dim], loopLpSize[dim],
    loopRpSize[dim]}`` (GMToUB多维数据搬运NDDMA(DataCopy).md 表5): per dimension (index 0 the first,
    innermost one) the src and dst element strides, the element count and the left / right padding.
    ``dim`` (the C++ template argument) is the arrays' length; an array shorter than ``dim`` is
    zero-filled as a C++ brace initialiser is. Python ints only (static)."""

    loopSrcStride: tuple = ()
    loopDstStride: tuple = ()
    loopSize: tuple = ()
    loopLpSize: tuple = ()
    loopRpSize: tuple = ()
    dim: int = None

    def __post_init__(self):
        names = ("loopSrcStride", "loopDstStride", "loopSize", "loopLpSize", "loopRpSize")
        vals = {n: _tuple_field(getattr(self, n)) for n in names}
        dim = self.dim if self.dim is not None else max(len(v) for v in vals.values())
        for n, v in vals.items():
            if isinstance(v, tuple) and len(v) < dim:
                v = v + (0,) * (dim - len(v))
            object.__setattr__(self, n, v)
        object.__setattr__(self, "dim", dim)


@dataclasses.dataclass(frozen=True)
class NdDmaParams:
    """``NdDmaParams<T, dim>{loopInfo, constantValue}``: the loops and the constant padding value
    (a value of T; used when a dimension has padding and ``isNearestValueMode`` is false)."""

    loopInfo: NdDmaLoopInfo = None
    constantValue: object = 0


@dataclasses.dataclass(frozen=True)
class NdDmaConfig:
    """``NdDmaConfig{isNearestValueMode=false, loopLpSize=unsetPad, loopRpSize=unsetPad,
    ascOptimize=false}`` (表3), the DataCopy NDDMA template argument; ``unsetPad = 0xFFFF``. A padding
    size other than ``unsetPad`` applies to every dimension and overrides ``NdDmaLoopInfo``'s."""

    isNearestValueMode: bool = False
    loopLpSize: int = 0xFFFF
    loopRpSize: int = 0xFFFF
    ascOptimize: bool = False

    unsetPad = 0xFFFF


kDefaultNdDmaConfig = NdDmaConfig()


class DataCopyMVType(enum.IntEnum):
    """``DataCopyMVType`` (寄存器配置说明/SetLoopModePara.md 表3): the data path a loop mode applies to."""

    UB_TO_OUT = 0
    OUT_TO_UB = 1


@dataclasses.dataclass(frozen=True)
class LoopModeParams:
    """``LoopModeParams{loop1Size=0, loop2Size=0, loop1SrcStride=0, loop1DstStride=0, loop2SrcStride=0,
    loop2DstStride=0}`` (SetLoopModePara.md 表2): the inner (1) and outer (2) loop counts and the byte
    distances between their iterations' source and destination blocks. Python ints only (static)."""

    loop1Size: int = 0
    loop2Size: int = 0
    loop1SrcStride: int = 0
    loop1DstStride: int = 0
    loop2SrcStride: int = 0
    loop2DstStride: int = 0


@chex.dataclass(frozen=True, mappable_dataclass=False)  # a pytree: jit / vmap take it as traced data
class AnyForm:
    """Every call form of a strided vector API in one set of values (not a C++ type: a model tool
    for fuzzers, sweeps and compilers). With its fields traced, one compiled program serves the
    count form and the three high-dim forms: pass it as the only argument after the operands,
    ``ShiftLeft(state, dst, src, scalar, AnyForm(form, count, mask, words, repeat, params),
    max_repeats=R)``. ``form``: ``COUNT`` (``count``; isSetMask as the call's keyword),
    ``CONTINUOUS`` (``mask``), ``BITWISE`` (``mask_words``: uint64 words low first, or the traced
    uint32 words), ``PLACEHOLDER`` (MASK_PLACEHOLDER, isSetMask=false); the high-dim forms read
    ``repeatTime`` and ``repeatParams``. A Python-int ``form`` is the ordinary call of that form."""

    COUNT = 0
    CONTINUOUS = 1
    BITWISE = 2
    PLACEHOLDER = 3

    form: object
    count: object = 0
    mask: object = 0
    mask_words: object = (0,)
    repeatTime: object = 1
    repeatParams: object = None


@chex.dataclass(frozen=True, mappable_dataclass=False)  # a pytree: the 16 groups may be traced arrays
class VdeqInfo:
    """``AscendC::VdeqInfo`` (类型转换/寄存器配置说明/SetDeqScale.md 表4): the 16 quantisation groups
    ``SetDeqScale(vdeq, vdeqInfo)`` writes into the vdeq tensor -- ``vdeqScale`` (16 floats),
    ``vdeqOffset`` (16 int16, 9 bits used), ``vdeqSignMode`` (16 bools). Each field is a sequence of
    16 Python values or an array of shape [16] (``vdeqScale`` as float32 values, or its uint32 bit
    patterns)."""

    vdeqScale: object
    vdeqOffset: object
    vdeqSignMode: object
