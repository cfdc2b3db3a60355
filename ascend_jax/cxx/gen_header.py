"""Generate the C++ front end's recorder headers from the Python model.

``include/ascendjax/types.gen.h``: the enums (from the model's enum classes: the same member names
and values) and the parameter structs (the model's dataclass fields, in C++ order, with their C++
field types from the API pages) plus a JSON writer for each.
``include/ascendjax/writers.gen.h``: their JSON writers.
``include/ascendjax/apis.gen.h``: one recorder per API in ``ascend_jax.REGISTRY`` whose name is an
Ascend C name: a function template taking any arguments (one recorder serves every overload) that
appends ``{"op": "call", "api": NAME, "tmpl": [...], "args": [...]}`` to the block's trace. The
template head (the template parameters a kernel may give explicitly, ``Add<float, false>``) comes
from ``TEMPLATE_HEADS``; the arguments are written as the kernel passes them, in C++ order, and the
Python side parses them with the API's own call-form parser.

Both files are checked in; ``python -m ascend_jax.cxx.gen_header`` rewrites them and
``tests/test_cxx_front_end.py`` checks they are up to date.
"""

import dataclasses
import enum
import pathlib
import sys

import ascend_jax as aj

INCLUDE = pathlib.Path(__file__).parent / "include"

# Registry names that are Python spellings of a C++ overload (issue 33 item 7 merges them): no
# C++ recorder of their own; the replay picks them from the C++ name and the argument kinds.
PYTHON_ONLY = {
    "AddsFlexible",
    "ComparesFlexible",
    "MaxsFlexible",
    "MinsFlexible",
    "MulsFlexible",
    "SelectFlexible",
    "CompareCmpMask",
    "ShiftLeftTensor",
    "ShiftRightTensor",
}

# Template heads: (kind, name, default). kind: "type" (typename), a C++ type for a value
# parameter, or "auto" (a bool or a BinaryConfig, C++20 class-type parameter).
_T = ("type", "T", "void")
_U = ("type", "U", "void")
_SET = ("bool", "isSetMask", "true")
# (a config the kernel does not give is recorded as scalarTensorIndex -1: the replay leaves it out)
_CFG = ("auto", "config", "ascendjax::UNSET_BINARY_CONFIG")
DEFAULT_HEAD = (_T, _SET)
_TU_SET = (_T, _U, _SET)
_REDUCE = (("AscendC::ReduceType", "reduceType", "AscendC::ReduceType::SUM"), _T, _U, _SET)
TEMPLATE_HEADS = {
    "Cast": _TU_SET,
    "Axpy": _TU_SET,
    "AddReluCast": _TU_SET,
    "SubReluCast": _TU_SET,
    "MulCast": _TU_SET,
    "AddDeqRelu": _TU_SET,
    "CastDequant": _TU_SET,
    "ShiftLeft": _TU_SET,
    "ShiftRight": _TU_SET,
    "Compare": (_T, _U, ("auto", "isSetMask", "true")),
    "Compares": (_T, _U, ("auto", "isSetMask", "true")),
    "CompareScalar": (_T, _U, ("auto", "isSetMask", "true")),
    # Select<T, U, isSetMask> and the 950's Select<T, U, config>: one "auto" slot takes either
    "Select": (("type", "T", "AscendC::BinaryDefaultType"), _U, ("auto", "isSetMask", "true")),
    "Adds": (_T, _SET, _CFG),
    "Muls": (_T, _SET, _CFG),
    "Maxs": (_T, _SET, _CFG),
    "Mins": (_T, _SET, _CFG),
    "Subs": (_T, _SET, _CFG),
    "Divs": (_T, _SET, _CFG),
    "Ands": (_T, _SET, _CFG),
    "Ors": (_T, _SET, _CFG),
    "MulsCast": (_T, _U, _CFG),
    "ReduceRepeat": _REDUCE,
    "ReduceDataBlock": _REDUCE,
    "ReducePairElem": _REDUCE,
    "SetVectorMask": (_T, ("AscendC::MaskMode", "mode", "AscendC::MaskMode::NORMAL")),
    "Truncate": (_T, ("AscendC::RoundMode", "roundMode", "AscendC::RoundMode::CAST_NONE")),
    # SetCtrlSpr<startBit, endBit>(value) / GetCtrlSpr<startBit, endBit>() (SetCtrlSpr(ISASI).md)
    "SetCtrlSpr": (("int", "startBit", "0"), ("int", "endBit", "0")),
    "GetCtrlSpr": (("int", "startBit", "0"), ("int", "endBit", "0")),
    "GetReduceRepeatSumSpr": (_T,),
    "GetReduceRepeatMaxMinSpr": (_T,),
    "TransDataTo5HD": (_T,),
    # the advanced math APIs: template <typename T, bool isReuseSource = false>
    **{n: (_T, ("bool", "isReuseSource", "false")) for n in ("Sigmoid", "Tanh", "Log", "Log2", "Log10")},
    "FasterGeluV2": (_T, ("bool", "highPrecision", "false"), ("bool", "highPerformance", "false")),
}
# The repeat-parameter struct a high-dim call ends with, by family (or API): a kernel often writes
# it as a braced list (``LeakyRelu(dst, src, s, mask, 4, {1, 1, 8, 8})``), which a variadic
# recorder cannot deduce, so these APIs also get fixed-arity recorders whose last parameter is
# typed (a real struct argument still goes to the variadic one: it binds without a const).
TRAILING_STRUCT_FAMILY = {
    "unary": "UnaryRepeatParams",
    "unary_scalar": "UnaryRepeatParams",
    "cast": "UnaryRepeatParams",
    "shift": "UnaryRepeatParams",
    "binary": "BinaryRepeatParams",
    "binary_scalar": "BinaryRepeatParams",
    "compound": "BinaryRepeatParams",
    "compare_select": "BinaryRepeatParams",
}
TRAILING_STRUCT_API = {
    "Axpy": "UnaryRepeatParams",
    "Brcb": "BrcbRepeatParams",
    "Gatherb": "GatherRepeatParams",
    "Duplicate": None,
    "CreateVecIndex": None,
    "GetCmpMask": None,
    "SetCmpMask": None,
    "SetDeqScale": None,
}
TRAILING_ARITIES = range(4, 9)  # total arguments, the struct last

# APIs that return a value to the kernel: C++ return type (or "T": the first template argument).
RETURNS = {
    "GetReduceRepeatSumSpr": "T",
    "GetGatherMaskRemainCount": "int64_t",
    "GetCtrlSpr": "int64_t",
    "GetSaturationFlag": "bool",
}
# APIs whose last argument is an out-parameter (a reference the model's value is written to).
OUT_LAST = {"GatherMask"}

ENUMS = (
    "TPosition",
    "CMPMODE",
    "SELMODE",
    "RoundMode",
    "ReduceType",
    "ReduceOrder",
    "MaskMode",
    "TransposeType",
    "SaturationMode",
    "DataCopyMVType",
)

# Parameter structs: name -> ((C++ type, field), ...) in C++ order; defaults from the Python model.
# A struct whose C++ shape differs from an aggregate of its fields is written by hand in
# kernel_operator.h (MrgSort4Info, MrgSortSrcList, DataCopyPadExtParams).
STRUCTS = {
    "UnaryRepeatParams": (
        ("uint16_t", "dstBlkStride"),
        ("uint16_t", "srcBlkStride"),
        ("uint8_t", "dstRepStride"),
        ("uint8_t", "srcRepStride"),
    ),
    "BinaryRepeatParams": tuple(
        ("uint8_t", f)
        for f in (
            "dstBlkStride",
            "src0BlkStride",
            "src1BlkStride",
            "dstRepStride",
            "src0RepStride",
            "src1RepStride",
        )
    ),
    "BrcbRepeatParams": (("uint16_t", "dstBlkStride"), ("uint16_t", "dstRepStride")),
    "DataCopyParams": (
        ("uint16_t", "blockCount"),
        ("uint16_t", "blockLen"),
        ("uint16_t", "srcStride"),
        ("uint16_t", "dstStride"),
    ),
    "DataCopyExtParams": (
        ("uint16_t", "blockCount"),
        ("uint32_t", "blockLen"),
        ("uint32_t", "srcStride"),
        ("uint32_t", "dstStride"),
        ("uint32_t", "rsv"),
    ),
    "DataCopyPadParams": (
        ("bool", "isPad"),
        ("uint8_t", "leftPadding"),
        ("uint8_t", "rightPadding"),
        ("uint64_t", "paddingValue"),
    ),
    # issue 33 item 2: the layout-conversion DataCopy structs (SliceInfo[] and the templated NDDMA
    # structs are not passed through the C++ front end)
    "Nd2NzParams": tuple(
        ("uint16_t", f)
        for f in (
            "ndNum",
            "nValue",
            "dValue",
            "srcNdMatrixStride",
            "srcDValue",
            "dstNzC0Stride",
            "dstNzNStride",
            "dstNzMatrixStride",
        )
    ),
    "Nz2NdParamsFull": tuple(
        ("uint16_t", f)
        for f in (
            "ndNum",
            "nValue",
            "dValue",
            "srcNdMatrixStride",
            "srcNStride",
            "dstDStride",
            "dstNdMatrixStride",
        )
    ),
    "LoopModeParams": (
        ("uint32_t", "loop1Size"),
        ("uint32_t", "loop2Size"),
        ("uint64_t", "loop1SrcStride"),
        ("uint64_t", "loop1DstStride"),
        ("uint64_t", "loop2SrcStride"),
        ("uint64_t", "loop2DstStride"),
    ),
    "GatherMaskParams": (
        ("uint8_t", "src0BlockStride"),
        ("uint16_t", "repeatTimes"),
        ("uint16_t", "src0RepeatStride"),
        ("uint8_t", "src1RepeatStride"),
    ),
    "GatherRepeatParams": (("uint16_t", "dstBlkStride"), ("uint16_t", "dstRepStride")),
    "TransposeParamsExt": (
        ("uint16_t", "nSize"),
        ("uint16_t", "cSize"),
        ("uint16_t", "hSize"),
        ("uint16_t", "wSize"),
        ("TransposeType", "transposeType"),
    ),
    "TransDataTo5HDParams": (
        ("bool", "dstHighHalf"),
        ("bool", "srcHighHalf"),
        ("uint8_t", "repeatTimes"),
        ("uint16_t", "dstRepStride"),
        ("uint16_t", "srcRepStride"),
    ),
    "BinaryConfig": (("int8_t", "scalarTensorIndex"),),
}

_HEADER = "// GENERATED by ascend_jax/cxx/gen_header.py from the Python model -- do not edit.\n#pragma once\n"


def _cxx_default(v, ctype):
    if isinstance(v, enum.Enum):
        return f"{ctype}::{v.name}"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(int(v))


def types_header():
    out = [_HEADER, "namespace AscendC {\n"]
    for name in ENUMS:
        e = getattr(aj, name)
        members = list(e)
        ints = all(isinstance(m.value, int) for m in members)
        body = ", ".join(f"{m.name} = {m.value}" if ints else m.name for m in members)
        out.append(f"enum class {name} : int32_t {{ {body} }};\n")
    out.append("using QuePosition = TPosition;\n\n")
    for name, fields in STRUCTS.items():
        cls = getattr(aj, name)
        defaults = {f.name: f.default for f in dataclasses.fields(cls)}
        missing = [f for _, f in fields if f not in defaults]
        if missing:
            raise ValueError(f"{name}: fields {missing} are not in ascend_jax.{name}")
        body = "".join(f"    {t} {f} = {_cxx_default(defaults[f], t)};\n" for t, f in fields)
        out.append(f"struct {name} {{\n{body}}};\n")
    out.append("inline constexpr BinaryConfig DEFAULT_BINARY_CONFIG{1};\n")
    out.append("}  // namespace AscendC\n")
    out.append("namespace ascendjax {\ninline constexpr AscendC::BinaryConfig UNSET_BINARY_CONFIG{-1};\n}\n")
    return "".join(out)


def writers_header():
    out = [_HEADER, "namespace ascendjax {\n"]
    for name in ENUMS:
        e = getattr(aj, name)
        cases = "".join(f'        case AscendC::{name}::{m.name}: n = "{m.name}"; break;\n' for m in e)
        out.append(
            f'inline void w(Json& j, AscendC::{name} v) {{\n    const char* n = "?";\n'
            f'    switch (v) {{\n{cases}    }}\n    enum_value(j, "{name}", n);\n}}\n'
        )
    for name, fields in STRUCTS.items():
        body = "".join(f'    j.key("{f}");\n    w(j, p.{f});\n' for _, f in fields)
        out.append(
            f'inline void w(Json& j, const AscendC::{name}& p) {{\n    struct_begin(j, "{name}");\n'
            f"{body}    struct_end(j);\n}}\n"
        )
    out.append("}  // namespace ascendjax\n")
    return "".join(out)


def _head(spec):
    parts, rec = [], []
    for kind, name, default in spec:
        if kind == "type":
            parts.append(f"typename {name} = {default}")
            rec.append(f'    ascendjax::tmpl_type<{name}>(j, "{name}");\n')
        else:
            ctype = "auto" if kind == "auto" else ("bool" if kind == "bool" else kind)
            parts.append(f"{ctype} {name} = {default}")
            rec.append(f'    ascendjax::tmpl_val(j, "{name}", {name});\n')
    return parts, "".join(rec)


def apis_header():
    out = [_HEADER, "namespace AscendC {\n"]
    for name in sorted(aj.REGISTRY):
        if name in PYTHON_ONLY:
            continue
        spec = TEMPLATE_HEADS.get(name, DEFAULT_HEAD)
        parts, rec = _head(spec)
        ret = RETURNS.get(name)
        rtype = "void" if ret is None else ret
        # the zero-argument form's location parameters: F is deduced, so a call whose first
        # argument is a literal 0 (``SetVectorMask<T>(0, n)``: 0 would convert to a null
        # ``const char*``) leaves this overload to the any-arguments form
        tail_loc = "F file = __builtin_FILE(), int line = __builtin_LINE()"
        loc_parts = ["typename F = const char*", "std::enable_if_t<std::is_same_v<F, const char*>, int> = 0"]
        open_call = f'    auto j = ascendjax::begin_call("{name}");\n    j.key("tmpl");\n    j.open(\'[\');\n'
        mid = "    j.close(']');\n    j.key(\"args\");\n    j.open('[');\n"
        end = "    j.close(']');\n"
        if ret is not None:
            end += f'    j.key("ret");\n    j.str(ascendjax::type_name<{rtype}>());\n'
        ret_stmt = "" if ret is None else f"    return ascendjax::read_value<{rtype}>();\n"
        # zero-argument form
        head0 = "template <" + ", ".join(parts + loc_parts) + ">\n"
        out.append(
            f"{head0}inline {rtype} {name}({tail_loc}) {{\n{open_call}{rec}{mid}{end}"
            f"    rt().record(j, file, line);\n{ret_stmt}}}\n"
        )
        # any arguments: the first one carries the caller's line
        head = "template <" + ", ".join(parts + ["typename... Args"]) + ">\n"
        if name in OUT_LAST:
            body_args = (
                "    a0.write(j);\n    auto all = std::forward_as_tuple(args...);\n"
                "    constexpr size_t n = sizeof...(Args);\n"
                "    [&]<size_t... I>(std::index_sequence<I...>) { (ascendjax::w(j, std::get<I>(all)), ...); }"
                "(std::make_index_sequence<n - 1>{});\n"
                "    auto& out = std::get<n - 1>(all);\n"
                "    ascendjax::w(j, ascendjax::Out<std::remove_reference_t<decltype(out)>>{});\n"
            )
            after = (
                "    rt().record(j, a0.file, a0.line);\n"
                "    out = ascendjax::read_value<std::remove_reference_t<decltype(out)>>();\n"
            )
        else:
            body_args = "    a0.write(j);\n    (ascendjax::w(j, args), ...);\n"
            after = "    rt().record(j, a0.file, a0.line);\n"
        out.append(
            f"{head}inline {rtype} {name}(ascendjax::Arg0 a0, Args&&... args) {{\n{open_call}{rec}{mid}"
            f"{body_args}{end}{after}{ret_stmt}}}\n"
        )
        family = aj.REGISTRY[name].family
        struct = TRAILING_STRUCT_API.get(name, TRAILING_STRUCT_FAMILY.get(family))
        if struct is None or name in OUT_LAST:
            continue
        for n in TRAILING_ARITIES:
            mids = [f"A{i}" for i in range(1, n - 1)]
            head_n = "template <" + ", ".join(parts + [f"typename {m}" for m in mids]) + ">\n"
            params = ", ".join(["ascendjax::Arg0 a0"] + [f"{m}&& a{i}" for i, m in enumerate(mids, 1)])
            writes = "".join(f"    ascendjax::w(j, a{i});\n" for i in range(1, n - 1))
            out.append(
                f"{head_n}inline {rtype} {name}({params}, const {struct}& params) {{\n{open_call}{rec}{mid}"
                f"    a0.write(j);\n{writes}    ascendjax::w(j, params);\n{end}"
                f"    rt().record(j, a0.file, a0.line);\n{ret_stmt}}}\n"
            )
    out.append("}  // namespace AscendC\n")
    return "".join(out)


def generated():
    return {
        INCLUDE / "ascendjax" / "types.gen.h": types_header(),
        INCLUDE / "ascendjax" / "writers.gen.h": writers_header(),
        INCLUDE / "ascendjax" / "apis.gen.h": apis_header(),
    }


def main(argv=None):
    check = "--check" in (argv or sys.argv[1:])
    stale = []
    for path, text in generated().items():
        if not path.is_file() or path.read_text() != text:
            stale.append(path)
            if not check:
                path.write_text(text)
    if check and stale:
        print("stale:", ", ".join(map(str, stale)))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
