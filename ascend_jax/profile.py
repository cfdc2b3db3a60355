"""Hardware profiles: one TOML file per product in ``hw_profiles/``, loaded into a frozen,
hashable ``HwProfile`` that every API takes as a static argument.

Code branches on named profile *fields*, never on a product name. The schema below is the single
list of keys a profile may hold; ``hw_profiles/README.md`` documents each key and its source.
Unknown keys, missing APIs and bad values are rejected with file, key and value in the message.
"""

import dataclasses
import functools
import importlib.resources
import os
import pathlib
import tomllib

from . import dtypes as _dt
from .errors import ProfileError, UnsupportedError

DEFAULT_PROFILE = "ascend910b"

# Every API a profile must describe (``supported = false`` where the product lacks it).
KNOWN_APIS = (
    # issue: foundation -- scalar arithmetic, mask and special-register APIs
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
    # compare / select family
    "Compare",
    "Compares",
    "CompareScalar",
    "CompareCmpMask",
    "SetCmpMask",
    "GetCmpMask",
    "Select",
    "SelectFlexible",
    # gather-mask and shifts
    "GatherMask",
    "GetGatherMaskRemainCount",
    "ShiftLeft",
    "ShiftRight",
    "ShiftLeftTensor",
    "ShiftRightTensor",
    # data movement (issue 5)
    "DataCopy",
    "DataCopyPad",
    "SetPadValue",
    "NdDmaDci",  # issue 33 item 2
    "SetLoopModePara",
    "ResetLoopModePara",
    # element-wise family (issue 15): tensor-tensor binary, logic and unary APIs
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Max",
    "Min",
    "And",
    "Or",
    "Abs",
    "Relu",
    "Neg",
    "Not",
    "Exp",
    "Ln",
    "Sqrt",
    "Rsqrt",
    "Reciprocal",
    # element-wise tensor-scalar APIs (issue 15); *Flexible = the 灵活标量位置 pages of Adds/Muls/Maxs/Mins
    "LeakyRelu",
    "Subs",
    "Divs",
    "Ands",
    "Ors",
    "AddsFlexible",
    "MulsFlexible",
    "MaxsFlexible",
    "MinsFlexible",
    # data fill (issue 15)
    "Duplicate",
    "CreateVecIndex",
    # type conversion (issue 15)
    "Cast",
    "Truncate",
    # reduction family 归约计算 (issue 16, helper "reduce")
    "ReduceRepeat",
    "ReduceDataBlock",
    "ReducePairElem",
    "ReduceSum",
    "ReduceMax",
    "ReduceMin",
    # composite ops 复合计算 (issue 16)
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
    # data fill (issue 15, part)
    "Brcb",
    # 离散与聚合 (issue 16, helper "gather")
    "Gather",
    "Gatherb",
    "Scatter",
    # helper "castcomp" (issues 15/16): reduce result registers, SetDeqScale, the cast composites
    "GetReduceRepeatSumSpr",
    "GetReduceRepeatMaxMinSpr",
    "SetDeqScale",
    "AddReluCast",
    "SubReluCast",
    "MulCast",
    "AddDeqRelu",
    "MulsCast",
    # sorting 排序组合（ISASI） (issue 16, helper "sort")
    "Sort32",
    "MrgSort",
    "GetMrgSortResult",
    "MrgSort4",
    "RpSort16",
    "ProposalConcat",
    "ProposalExtract",
    # Compares（灵活标量位置） (issue 15, helper "ewmath")
    "ComparesFlexible",
    # data layout 数据排布转换 and data rearrangement 数据重排 (issue 16, helper "layout")
    "Transpose",
    "TransDataTo5HD",
    "Interleave",
    "DeInterleave",
    # 基础算术/BilinearInterpolation(ISASI) (issue 16, helper "bilinear")
    "BilinearInterpolation",
    # CastDequant (issue 16, helper "deq")
    "CastDequant",
    # data fill (issue 15, helper "vpad")
    "VectorPadding",
    # advanced math 高阶API (issue 45 item 7, helper "math")
    "Sigmoid",
    "Tanh",
    "Log",
    "Log2",
    "Log10",
    "FasterGeluV2",
)

# Allowed keys: name -> (type or tuple of allowed values, True) for a required key, or
# (type or tuple of allowed values, False, default) for an optional one. The default is resolved
# when the profile loads (``_resolve``); code reads named fields and never restates a default.
_STR, _INT, _BOOL, _LIST = str, int, bool, list

_TOP = {
    "name": (_STR, True),
    "product": (_STR, True),
    "doc_tag": (_STR, True),
    "soc": (_STR, True),
    "npu_arch": (_INT, True),
    "core": (("ai_core", "vector_core"), True),
    "description": (_STR, False, ""),
    "memory": (dict, True),
    "registers": (dict, True),
    "numerics": (dict, True),
    "behavior": (dict, True),
    "apis": (dict, True),
    "cores": (dict, False, None),  # None: every [cores] key at its default
}
_MEMORY = {
    "ub_physical_bytes": (_INT, True),
    "ub_usable_bytes": (_INT, True),
    "block_bytes": (_INT, True),
    "repeat_bytes": (_INT, True),
    "max_repeat_times": (_INT, True),
    "operand_alignment_bytes": (_INT, True),
    "reserved": (_LIST, False, ()),
    # UB allocation discipline (TPipe/TQue/TBuf, issue 5)
    "que_alloc_limit": (_INT, False, 8),
    "max_buffers": (_INT, False, 64),
}
# Cores, events and atomics (issue 31; docs/MODEL.md "Cores, pipes and sync")
_CORES = {
    "vector_cores": (_INT, False, 40),  # physical AIVs (CHOICE where the docs give no number)
    "aic_aiv_ratio": (_INT, False, 2),  # 2: split 1:2 (GetSubBlockIdx is 0/1), 0: coupled
    "max_block_dim": (_INT, False, 65535),  # 核函数.md: numBlocks in [1, 65535]
    "event_ids": (_INT, False, 8),  # SetFlag-WaitFlag(ISASI).md: IDs 0-7 (0-3 on Atlas training)
    "reserved_event_ids": (_LIST, False, (6, 7)),  # same page: 6 reserved, 7 TPipe auto-sync
    "atomic_add_dtypes": (_LIST, False, ()),  # SetAtomicAdd.md 支持的数据类型
    "cache_line_bytes": (_INT, False, 64),  # 缓存一致性.md: the DCache writes back 64 B lines
}
_RESERVED = {
    "name": (_STR, True),
    "offset_bytes": (_INT, True),
    "size_bytes": (_INT, True),
    "used_by": (_LIST, True),
    "source": (_STR, False, ""),
}
_REGISTERS = {
    "vector_mask_bits": ((128, 256), True),
    "cmpmask_bits": ((0, 128), True),
    "ctrl_reset_value": (_INT, True),
    "float_saturation_ctrl_bit": (_INT, True),  # -1: no such control
    "float_saturation_when_bit_is": ((0, 1), True),
    "float_saturation_dtypes": (_LIST, True),
    "int_saturation_ctrl_bit": (_INT, True),  # -1: no such control
    "int_saturation_when_bit_is": ((0, 1), True),
    # SaturationMode::CAST (conversion saturation) CTRL bit, 0 = saturate; -1 = none
    "cast_saturation_ctrl_bit": (_INT, False, -1),
}
_NUMERICS = {
    "float_subnormals": (("preserve", "flush_to_zero"), True),
    "nan_result": (("canonical",), True),
    "max_min_nan": (("propagate",), True),
    "max_min_signed_zero": (("negative_zero_is_smaller",), True),
    "int_overflow": (("wrap", "saturate"), True),
}
_BEHAVIOR = {
    "zero_repeat": (("nop", "fault"), True),
    "zero_count": (("nop", "fault"), True),
    "zero_mask": (("nop", "error"), True),
    "level2_lowering": (("counter_mode", "repeat_loop", "vf_loop"), True),
    "level2_is_set_mask": (("honoured", "ignored"), True),
    "level0_writes_mask_register": (_BOOL, True),
    "counter_mode": (("hardware", "software", "unsupported"), True),
}
_API_COMMON = {
    "supported": (_BOOL, True),
    "dtypes": (_LIST, True),
    "count_only_dtypes": (_LIST, False, ()),
    "source": (_STR, False, ""),
    "notes": (_STR, False, ""),
}
# Extra keys per API (added by the issue that models the API).
_API_EXTRA = {
    "Compare": {
        "modes": (_LIST, False, ("LT", "GT", "GE", "EQ", "NE", "LE")),
        "dst_dtypes": (_LIST, False, ("int8", "uint8")),
        "mask_honoured": (_BOOL, False, True),
        "count_tail": (("dropped", "computed"), False, "computed"),
        "count_alignment_bytes": (_INT, False, 0),  # 0: no alignment rule
        "int32_modes": (_LIST, False, None),  # None: every mode in `modes`
        "float64_modes": (_LIST, False, None),  # None: every mode in `modes`
        "int32_other_modes": (("error", "silent_eq"), False, "error"),
        "dst_strides": (("ignored", "honoured"), False, "ignored"),
    },
    "Select": {
        "modes": (_LIST, False, (0, 1, 2)),
        "sel_mask_dtypes": (_LIST, False, ("uint8", "uint16", "uint32", "uint64")),
        # which Select forms use the API scratch ("mode0"/"mode1"/"mode2": count and mask-argument
        # forms of that mode; "nomask": the mask-less forms). Default (model choice): A2/A3/310P
        # Select.md -- modes 1 and 2 "需要预留8KB的Unified Buffer空间"; the mask-less forms use the
        # user's SetCmpMask data instead.
        "scratch_forms": (_LIST, False, ("mode1", "mode2")),
        # Select with a selMask tensor overwrites CMPMASK (and the scratch slot)
        "cmpmask_side_effect": (_BOOL, False, False),
    },
    "GatherMask": {
        "patterns": (_LIST, False, (1, 2, 3, 4, 5, 6, 7)),
        "pattern_dtypes": (_LIST, False, ("uint16", "uint32")),
        "counter_config": ((1, 2), False, 1),
        # register side effects of a GatherMask call (issue 4; docs/MODEL.md "GatherMask and shifts")
        "mode_after": (("normal", "unchanged"), False, "normal"),
        "vmask_after": (("count", "pattern", "unchanged"), False, "unchanged"),
    },
    "ShiftLeft": {
        "shift_range": (("bitwidth_inclusive", "saturating"), False, "bitwidth_inclusive"),
        "signed_left_shift": (("keep_sign", "conventional"), False, "keep_sign"),
    },
    "ShiftRight": {
        "shift_range": (("bitwidth_inclusive", "saturating"), False, "bitwidth_inclusive"),
        "round_en": (_BOOL, False, True),
    },
    "SetCtrlSpr": {"bits": (_LIST, False, None)},  # None: every CTRL bit
    # data movement (issue 5; docs/MODEL.md "GM, DataCopy and UB allocation")
    "DataCopy": {
        "ub_to_ub": (_BOOL, False, True),  # the UB -> UB prototypes exist
        "zero_block": (("nop", "fault"), False, "nop"),  # blockCount or blockLen 0
        "count_unaligned": (("error", "round_down"), False, "error"),  # count*sizeof(T) % 32 != 0
        # issue 33 item 2: the dtypes of each layout prototype; () = the product lacks it
        "nd2nz_dtypes": (_LIST, False, ()),  # DataCopy(LocalTensor, GlobalTensor, Nd2NzParams)
        "nd2nz_small_c0": (_BOOL, False, False),  # the enableSmallC0 template flag (950)
        "nz2nd_dtypes": (_LIST, False, ()),  # DataCopy(GlobalTensor, LocalTensor, Nz2NdParamsFull)
        "slice_dtypes": (_LIST, False, ()),  # DataCopy(dst, src, SliceInfo[], SliceInfo[], dimValue)
        "nddma_dtypes": (_LIST, False, ()),  # DataCopy<T, dim, config>(..., NdDmaParams<T, dim>)
    },
    "DataCopyPad": {
        "zero_block": (("nop", "fault"), False, "nop"),
        "compact_mode": (_BOOL, False, False),  # the PaddingMode template prototype exists
        "negative_src_stride": (_BOOL, False, False),  # GM -> UB srcStride may be in [-blockLen, 0)
        "ub_stride_max": (_INT, False, 2**32 - 1),  # upper bound of the UB-side stride (blocks)
    },
}
for _n in ("Compares", "CompareScalar", "CompareCmpMask"):
    _API_EXTRA[_n] = _API_EXTRA["Compare"]
_API_EXTRA["SelectFlexible"] = _API_EXTRA["Select"]
_API_EXTRA["ComparesFlexible"] = _API_EXTRA["Compare"]  # Compares（灵活标量位置）: the Compares keys
# element-wise family (issue 15; docs/MODEL.md "Element-wise unary math"): the named numerics choice of
# a function whose hardware results are not documented; absent = "correctly_rounded"
for _n in ("Div", "Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal"):
    _API_EXTRA[_n] = {"numerics": (("correctly_rounded",), False, "correctly_rounded")}
# integer Div (950): truncation toward zero; x / 0 (undocumented, CHOICE) = all ones (-1 / MAX), 0, or
# saturated (MAX for x >= 0, MIN for x < 0); absent = "all_ones"
_API_EXTRA["Div"]["int_div_by_zero"] = (("all_ones", "zero", "saturate"), False, "all_ones")
# Abs<T, U>(dst, src, count) with a complex U (950: "complex32->half", "complex64->float32"); () = none.
# Documented, not modelled yet (NotModelledError): the page gives no rounding of |re + im j|
_API_EXTRA["Abs"] = {"complex_pairs": (_LIST, False, ())}
# Duplicate(dst, src: LocalTensor, count) exists (950); absent = false
_API_EXTRA["Duplicate"] = {"tensor_source": (_BOOL, False, False)}
# Cast: the product's (src, dst, roundMode) table, one "src->dst: MODE MODE ... [count]" string a pair
_API_EXTRA["Cast"] = {"pairs": (_LIST, False, ())}  # () where Cast is unsupported
# reduction family (issue 16; docs/MODEL.md "Reductions")
_REDUCE_ORDERS = ("ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE", "ORDER_ONLY_VALUE", "ORDER_ONLY_INDEX")
_API_EXTRA["ReduceRepeat"] = {"orders": (_LIST, False, _REDUCE_ORDERS)}  # the ReduceOrder values
# a DataBlock with no active lane: dst kept (A2/A3), or the reduceType's default written -- 0 / -inf / +inf
# ("fill_inf", 950), half MAX/MIN -65504 / +65504 ("fill_half_max", 310B)
_API_EXTRA["ReduceDataBlock"] = {"empty_block": (("keep", "fill_inf", "fill_half_max"), False, "keep")}
# a pair with both mask bits 0: dst element kept (A2/A3/310P) or set to 0 (950/310B)
_API_EXTRA["ReducePairElem"] = {"empty_pair": (("keep", "zero"), False, "keep")}
# ReduceSum's order of additions across repeats (ReduceSum.md 关键特性说明): "sequential_repeats"
# (方式一), "tree_repeats" (方式二), "vector_add_small" (950: 方式三 for 256..1024 bytes, else 方式二)
_REDUCE_SUM_ORDER = (("sequential_repeats", "tree_repeats", "vector_add_small"), False, "tree_repeats")
_API_EXTRA["ReduceSum"] = {"order_count": _REDUCE_SUM_ORDER, "order_highdim": _REDUCE_SUM_ORDER}
# 离散与聚合 (issue 16; docs/MODEL.md "Gather, Gatherb, Scatter"): the largest offset value (bytes) for
# 8-bit / 16-bit T (950, 310B: 2**16-1 / 2**17-1; elsewhere the uint32_t range); Scatter's duplicate
# offsets ("行为是不可预期的": a fault, or program order); Gatherb's dstBlkStride 0 (treated as 1, or a fault)
_OFFSET_LIMITS = {"max_offset_8bit": (_INT, False, 2**32 - 1), "max_offset_16bit": (_INT, False, 2**32 - 1)}
_API_EXTRA["Gather"] = dict(_OFFSET_LIMITS)
_API_EXTRA["Scatter"] = dict(_OFFSET_LIMITS, duplicate_offsets=(("fault", "program_order"), False, "fault"))
_API_EXTRA["Gatherb"] = {"dst_blk_stride_zero": (("as_one", "fault"), False, "as_one")}
# helper "castcomp": GetReduceRepeatMaxMinSpr(value, index) (A2/A3) or (value) only (310P AI Core)
_API_EXTRA["GetReduceRepeatMaxMinSpr"] = {"with_index": (_BOOL, False, True)}
# the cast composites' (U, T) table: "src->dst" strings, " [count]" for a count-only pair
for _n in ("AddReluCast", "SubReluCast", "MulCast", "CastDequant"):
    _API_EXTRA[_n] = {"pairs": (_LIST, False, ())}
# MulAddDst / Axpy: the mixed-precision rows of the page's table ("half->float32": half sources, a float32
# dst, PAR 64); () = U = T only
for _n in ("MulAddDst", "Axpy"):
    _API_EXTRA[_n] = {"pairs": (_LIST, False, ())}
# sorting (issue 16; docs/MODEL.md "Sorting and Region Proposals"): where a NaN score sorts -- above +inf
# ("largest") or below -inf ("smallest"); the pages do not say (CHOICE)
for _n in ("Sort32", "MrgSort", "MrgSort4", "RpSort16"):
    _API_EXTRA[_n] = {"nan_order": (("largest", "smallest"), False, "largest")}
# data layout (issue 16, helper "layout"; docs/MODEL.md "Data layout"): the enhanced Transpose types per
# TransposeType (empty: the product lacks that type) and whether sharedTmpBuffer is used ("none": 310P AI Core)
_API_EXTRA["Transpose"] = {
    "nd2nd_dtypes": (_LIST, False, ()),
    "nchw_dtypes": (_LIST, False, ()),
    "tmp_buffer": (("formula", "none"), False, "formula"),
}

# BilinearInterpolation (issue 16, helper "bilinear"; docs/MODEL.md "BilinearInterpolation"): the
# sharedTmpBuffer size rule ("src_sizes": src0.GetSize()*32 + src1.GetSize()*32 bytes, A2/A3;
# "offset_size": src0Offset.GetSize()*4, 310P AI Core; "none": 950), the registers the call leaves
# ("normal_mask": Normal mode, vmask = the mask given; "normal_reset": Normal mode, vmask all ones;
# "bitwise_mask": a bitwise mask is written to vmask, the mode kept) and the order of the horizontal sum
_API_EXTRA["BilinearInterpolation"] = {
    "tmp_buffer": (("src_sizes", "offset_size", "none"), False, "none"),
    "registers_after": (("normal_mask", "normal_reset", "bitwise_mask"), False, "normal_mask"),
    "sum_order": (("sequential",), False, "sequential"),
}
# VectorPadding(ISASI) (helper "vpad"; docs/MODEL.md "VectorPadding"): what a dst DataBlock holds (CHOICE,
# the page leaves the padding width open): "outside_block" = the E values just outside the src block on
# the padSide side
_API_EXTRA["VectorPadding"] = {"layout": (("outside_block",), False, "outside_block")}
# advanced math (issue 45 item 7; docs/MODEL.md "Advanced math: Sigmoid, Tanh, Log, Log2, Log10"): the
# pages give the formula, not the instruction sequence; the named sequence of basic operations the model
# computes (CHOICE; one value each today, _engine/adv_math.py)
for _n, _seq in (
    ("Sigmoid", "muls_exp_adds_div"),
    ("Tanh", "float32_clamp_exp_ratio"),
    ("Log", "ln"),
    ("Log2", "float32_ln_muls"),
    ("Log10", "ln_muls"),
    ("FasterGeluV2", "formula_steps"),
):
    _API_EXTRA[_n] = {"sequence": ((_seq,), False, _seq)}


def _freeze(v):
    return tuple(v) if isinstance(v, list) else v


def api_schema(name) -> dict:
    """The keys ``[apis.<name>]`` may hold: the common keys plus the API's extra keys."""
    return dict(_API_COMMON, **_API_EXTRA.get(name, {}))


def api_default(name, key):
    """The schema default of ``apis.<name>.<key>`` (what a profile without the key gets)."""
    return _default(api_schema(name)[key])


def _default(spec):
    """The default of an optional key (lists are returned as tuples: profiles are hashable)."""
    return _freeze(spec[2])


def _resolve(table, schema):
    """``table`` with every absent optional key set to its schema default."""
    out = {k: _freeze(v) for k, v in table.items()}
    for key, spec in schema.items():
        if not spec[1] and key not in out:
            out[key] = _default(spec)
    return out


def _fmt_allowed(spec):
    t = spec[0]
    if isinstance(t, tuple):
        return " | ".join(repr(v) for v in t)
    return t.__name__


def _check_table(where, table, schema):
    """Validate one TOML table against a schema; returns it with defaults resolved (lists as tuples)."""
    if not isinstance(table, dict):
        raise ProfileError(f"{where}: expected a table, got {table!r}")
    for key, value in table.items():
        if key not in schema:
            raise ProfileError(
                f"{where}: unknown key '{key}' (value {value!r}); allowed keys: {', '.join(schema)}"
            )
        t = schema[key][0]
        ok = (
            (value in t and type(value) is type(t[0]))
            if isinstance(t, tuple)
            else (isinstance(value, t) and not (t is int and isinstance(value, bool)))
        )
        if not ok:
            raise ProfileError(f"{where}.{key}: bad value {value!r}; allowed: {_fmt_allowed(schema[key])}")
    for key, spec in schema.items():
        if spec[1] and key not in table:
            raise ProfileError(f"{where}: missing required key '{key}'")
    return _resolve(table, schema)


def _check_dtype_list(where, names):
    out = []
    for n in names:
        if not isinstance(n, str) or n not in _dt.BY_NAME:
            raise ProfileError(f"{where}: bad dtype {n!r}; allowed: {', '.join(_dt.BY_NAME)}")
        out.append(n)
    return tuple(out)


class NoProfileKey(KeyError, AttributeError):
    """An API-specific profile key the API's schema does not have (``a.key`` or ``a["key"]``)."""

    def __str__(self):
        return str(self.args[0])


@dataclasses.dataclass(frozen=True)
class ApiSupport:
    """What one product supports of one API."""

    name: str
    supported: bool
    dtypes: tuple  # canonical dtype names, every prototype
    count_only_dtypes: tuple  # extra dtypes accepted only by the count (level-2) prototype
    extra: tuple  # sorted (key, value) pairs of API-specific choices
    source: str = ""

    # Named fields: ``p.api("ShiftRight").round_en`` (or ``p.api("ShiftRight")["round_en"]``) is the
    # API-specific key with its schema default resolved at load. An ApiSupport built by hand (tests use
    # ``dataclasses.replace(a, extra=...)`` to drop or change a key) falls back to the schema default.
    def __getattr__(self, key):
        if key.startswith("__") or key in ("name", "extra"):
            raise AttributeError(key)
        return self[key]

    def __getitem__(self, key):
        for k, v in self.extra:
            if k == key:
                return v
        schema = api_schema(self.name)
        if key in schema and key not in _API_COMMON:
            return _default(schema[key])
        if key == "get":
            raise NoProfileKey(
                "ApiSupport.get was removed: profile defaults are resolved when the profile loads; "
                f"read the named field, e.g. p.api({self.name!r}).<key>"
            )
        keys = ", ".join(k for k in schema if k not in _API_COMMON) or "(none)"
        raise NoProfileKey(f"apis.{self.name} has no profile key {key!r}; its keys: {keys}")

    def all_dtypes(self):
        return self.dtypes + self.count_only_dtypes


@dataclasses.dataclass(frozen=True)
class Reserved:
    name: str
    offset_bytes: int
    size_bytes: int
    used_by: tuple


@dataclasses.dataclass(frozen=True)
class HwProfile:
    """A product as the model sees it. Frozen and hashable: pass it as a static argument."""

    name: str
    product: str
    doc_tag: str
    soc: str
    npu_arch: int
    core: str
    # memory
    ub_physical_bytes: int
    ub_usable_bytes: int
    block_bytes: int
    repeat_bytes: int
    max_repeat_times: int
    operand_alignment_bytes: int
    reserved: tuple
    que_alloc_limit: int
    max_buffers: int
    # registers
    vector_mask_bits: int
    cmpmask_bits: int
    ctrl_reset_value: int
    float_saturation_ctrl_bit: int
    float_saturation_when_bit_is: int
    float_saturation_dtypes: tuple
    int_saturation_ctrl_bit: int
    int_saturation_when_bit_is: int
    cast_saturation_ctrl_bit: int
    # numerics
    float_subnormals: str
    nan_result: str
    max_min_nan: str
    max_min_signed_zero: str
    int_overflow: str
    # behaviour choices
    zero_repeat: str
    zero_count: str
    zero_mask: str
    level2_lowering: str
    level2_is_set_mask: str
    level0_writes_mask_register: bool
    counter_mode: str
    apis: tuple  # of ApiSupport, in KNOWN_APIS order
    # cores, events, atomics (the [cores] table)
    vector_cores: int = 40
    aic_aiv_ratio: int = 2
    max_block_dim: int = 65535
    event_ids: int = 8
    reserved_event_ids: tuple = (6, 7)
    atomic_add_dtypes: tuple = ()
    cache_line_bytes: int = 64
    path: str = dataclasses.field(default="", compare=False)

    # -- queries -------------------------------------------------------------------------
    def api(self, name) -> ApiSupport:
        for a in self.apis:
            if a.name == name:
                return a
        raise KeyError(name)

    @property
    def mask_words32(self) -> int:
        """Width of the vector-mask register in 32-bit words."""
        return self.vector_mask_bits // 32

    def lanes(self, dtype) -> int:
        """Elements per repeat for ``dtype`` (256 B / sizeof(T))."""
        return self.repeat_bytes // _dt.as_dtype(dtype).itemsize

    def require_api(self, api, dtype=None, *, count_form=False):
        """Raise ``UnsupportedError`` unless ``api`` (with ``dtype``) exists on this product."""
        a = self.api(api)
        if not a.supported:
            supported_on = "see `ascend-jax apis`"
            raise UnsupportedError(
                api,
                "api",
                api,
                "none (the product does not have this API)",
                self,
                supported_on,
            )
        if dtype is not None:
            d = _dt.as_dtype(dtype)
            allowed = a.all_dtypes() if count_form else a.dtypes
            if d.name not in allowed:
                detail = ""
                if d.name in a.count_only_dtypes:
                    detail = f"{d.name} is accepted only by the count (tensor前n个数据) prototype"
                raise UnsupportedError(api, "dtype", d.name, ", ".join(allowed), self, detail)
        return a

    def __repr__(self):
        return f"HwProfile({self.name!r}, arch={self.npu_arch})"

    # the fields that name a product rather than decide what the model computes
    IDENTITY_FIELDS = ("name", "product", "doc_tag", "soc", "npu_arch", "path")

    def behaviour_key(self):
        """Everything the model reads of this profile, without the product's identity (name, SoC,
        arch number, doc tag, file) or the per-API page citations: two profiles with equal keys
        give the same bits for every call (nothing in the fast path or the reference branches on
        an identity field). Dtype lists compare as sets."""
        apis = tuple(
            sorted(
                (a.name, a.supported, frozenset(a.dtypes), frozenset(a.count_only_dtypes), a.extra)
                for a in self.apis
            )
        )
        skip = set(self.IDENTITY_FIELDS) | {"apis"}
        return tuple(
            (f.name, getattr(self, f.name)) for f in dataclasses.fields(self) if f.name not in skip
        ) + (("apis", apis),)


def _profiles_dir() -> pathlib.Path:
    env = os.environ.get("ASCEND_JAX_PROFILES")
    if env:
        return pathlib.Path(env)
    # installed wheel: hw_profiles is shipped inside the package as ascend_jax/hw_profiles
    try:
        p = importlib.resources.files("ascend_jax") / "hw_profiles"
        if p.is_dir():
            return pathlib.Path(str(p))
    except (ModuleNotFoundError, TypeError):
        pass
    # source checkout: <repo>/hw_profiles next to the package
    return pathlib.Path(__file__).resolve().parent.parent / "hw_profiles"


def available_profiles() -> tuple:
    d = _profiles_dir()
    return tuple(sorted(p.stem for p in d.glob("*.toml") if not p.stem.startswith("_")))


def behaviour_twins() -> dict:
    """{profile: the profile it behaves as} for every available profile whose ``behaviour_key``
    equals that of the default profile or of a profile before it in name order (A3 behaves as A2,
    for instance: "the same vector core")."""
    first, out = {}, {}
    for name in (DEFAULT_PROFILE, *(n for n in available_profiles() if n != DEFAULT_PROFILE)):
        key = load_profile(name).behaviour_key()
        if key in first:
            out[name] = first[key]
        else:
            first[key] = name
    return out


def parse_profile(path, data=None) -> HwProfile:
    """Validate one profile file (or already-parsed ``data``) and build the HwProfile."""
    path = pathlib.Path(path)
    where = path.name
    if data is None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as e:
            raise ProfileError(f"{where}: not valid TOML: {e}") from None
    _check_table(where, data, _TOP)
    if data["name"] != path.stem:
        raise ProfileError(f"{where}: name={data['name']!r} must equal the file stem {path.stem!r}")
    mem = _check_table(f"{where}: memory", data["memory"], _MEMORY)
    reg = _check_table(f"{where}: registers", data["registers"], _REGISTERS)
    num = _check_table(f"{where}: numerics", data["numerics"], _NUMERICS)
    beh = _check_table(f"{where}: behavior", data["behavior"], _BEHAVIOR)
    cores = _check_table(f"{where}: cores", data.get("cores") or {}, _CORES)
    reserved = []
    for i, r in enumerate(mem["reserved"]):
        r = _check_table(f"{where}: memory.reserved[{i}]", r, _RESERVED)
        if r["offset_bytes"] < 0 or r["offset_bytes"] + r["size_bytes"] > mem["ub_physical_bytes"]:
            raise ProfileError(
                f"{where}: memory.reserved[{i}] ({r['name']}) offset_bytes={r['offset_bytes']} "
                f"size_bytes={r['size_bytes']} does not fit in ub_physical_bytes={mem['ub_physical_bytes']}"
            )
        reserved.append(Reserved(r["name"], r["offset_bytes"], r["size_bytes"], tuple(r["used_by"])))
    if mem["ub_usable_bytes"] > mem["ub_physical_bytes"]:
        raise ProfileError(
            f"{where}: memory.ub_usable_bytes={mem['ub_usable_bytes']} exceeds "
            f"ub_physical_bytes={mem['ub_physical_bytes']}"
        )
    for k in ("ub_usable_bytes", "ub_physical_bytes"):
        if mem[k] % mem["block_bytes"]:
            raise ProfileError(f"{where}: memory.{k}={mem[k]} is not a multiple of block_bytes")
    if mem["repeat_bytes"] % mem["block_bytes"]:
        raise ProfileError(
            f"{where}: memory.repeat_bytes={mem['repeat_bytes']} is not a multiple of "
            f"block_bytes={mem['block_bytes']}"
        )
    if not 1 <= mem["max_repeat_times"] <= 255:
        raise ProfileError(f"{where}: memory.max_repeat_times={mem['max_repeat_times']} not in [1, 255]")
    fsd = _check_dtype_list(f"{where}: registers.float_saturation_dtypes", reg["float_saturation_dtypes"])
    apis_tbl = data["apis"]
    for name in apis_tbl:
        if name not in KNOWN_APIS:
            raise ProfileError(f"{where}: unknown API '{name}' in [apis]; known: {', '.join(KNOWN_APIS)}")
    apis = []
    for name in KNOWN_APIS:
        if name not in apis_tbl:
            raise ProfileError(
                f"{where}: missing API '{name}' in [apis] (every profile lists every API; "
                "write supported = false, dtypes = [] where the product lacks it)"
            )
        schema = api_schema(name)
        t = _check_table(f"{where}: apis.{name}", apis_tbl[name], schema)
        dts = _check_dtype_list(f"{where}: apis.{name}.dtypes", t["dtypes"])
        cod = _check_dtype_list(f"{where}: apis.{name}.count_only_dtypes", t["count_only_dtypes"])
        if not t["supported"] and (dts or cod):
            raise ProfileError(f"{where}: apis.{name}: supported = false but dtypes are listed")
        for k in ("dst_dtypes", "sel_mask_dtypes", "pattern_dtypes"):
            if t.get(k) is not None:
                _check_dtype_list(f"{where}: apis.{name}.{k}", t[k])
        extra = tuple(sorted((k, v) for k, v in t.items() if k not in _API_COMMON))
        apis.append(ApiSupport(name, t["supported"], dts, cod, extra, t["source"]))
    return HwProfile(
        name=data["name"],
        product=data["product"],
        doc_tag=data["doc_tag"],
        soc=data["soc"],
        npu_arch=data["npu_arch"],
        core=data["core"],
        ub_physical_bytes=mem["ub_physical_bytes"],
        ub_usable_bytes=mem["ub_usable_bytes"],
        block_bytes=mem["block_bytes"],
        repeat_bytes=mem["repeat_bytes"],
        max_repeat_times=mem["max_repeat_times"],
        operand_alignment_bytes=mem["operand_alignment_bytes"],
        reserved=tuple(reserved),
        que_alloc_limit=mem["que_alloc_limit"],
        max_buffers=mem["max_buffers"],
        vector_mask_bits=reg["vector_mask_bits"],
        cmpmask_bits=reg["cmpmask_bits"],
        ctrl_reset_value=reg["ctrl_reset_value"],
        float_saturation_ctrl_bit=reg["float_saturation_ctrl_bit"],
        float_saturation_when_bit_is=reg["float_saturation_when_bit_is"],
        float_saturation_dtypes=fsd,
        int_saturation_ctrl_bit=reg["int_saturation_ctrl_bit"],
        int_saturation_when_bit_is=reg["int_saturation_when_bit_is"],
        cast_saturation_ctrl_bit=reg["cast_saturation_ctrl_bit"],
        float_subnormals=num["float_subnormals"],
        nan_result=num["nan_result"],
        max_min_nan=num["max_min_nan"],
        max_min_signed_zero=num["max_min_signed_zero"],
        int_overflow=num["int_overflow"],
        zero_repeat=beh["zero_repeat"],
        zero_count=beh["zero_count"],
        zero_mask=beh["zero_mask"],
        level2_lowering=beh["level2_lowering"],
        level2_is_set_mask=beh["level2_is_set_mask"],
        level0_writes_mask_register=beh["level0_writes_mask_register"],
        counter_mode=beh["counter_mode"],
        apis=tuple(apis),
        vector_cores=cores["vector_cores"],
        aic_aiv_ratio=cores["aic_aiv_ratio"],
        max_block_dim=cores["max_block_dim"],
        event_ids=cores["event_ids"],
        reserved_event_ids=tuple(int(x) for x in cores["reserved_event_ids"]),
        atomic_add_dtypes=tuple(_dt.as_dtype(x).name for x in cores["atomic_add_dtypes"]),
        cache_line_bytes=cores["cache_line_bytes"],
        path=str(path),
    )


@functools.cache
def load_profile(name=DEFAULT_PROFILE) -> HwProfile:
    """Load ``hw_profiles/<name>.toml``; ``name`` may also be an HwProfile (returned as is)."""
    if isinstance(name, HwProfile):
        return name
    d = _profiles_dir()
    path = d / f"{name}.toml"
    if not path.is_file():
        raise ProfileError(
            f"unknown profile {name!r}; available: {', '.join(available_profiles()) or '(none found in ' + str(d) + ')'}"
        )
    return parse_profile(path)


def as_profile(p) -> HwProfile:
    if p is None:
        return load_profile(DEFAULT_PROFILE)
    return p if isinstance(p, HwProfile) else load_profile(p)
