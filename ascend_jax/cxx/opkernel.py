"""``ascend-jax run op_kernel/NAME.cpp --tiling tiling.json``: run an op-framework kernel.

An op project's kernel (``extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y,
GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)`` with ``GET_TILING_DATA(tilingData, tiling)``) has no
host ``main``: the op framework's host side computes the tiling and launches it. Here a host
harness written at run time (``harness``) stands in for it: it includes the op_host tiling header
(when the project has one) and the kernel file, fills the op's own tiling struct from the JSON,
reads each input GM buffer from ``INPUT/<parameter name>.bin``, launches the kernel with
``block_dim`` blocks and writes each output to ``OUTPUT/<parameter name>.bin``.

The JSON (``--tiling FILE``; relative paths are relative to its folder)::

    {
      "block_dim": 8,                     # blocks (default 1; --block-dim overrides)
      "tiling_key": 1,                    # TILING_KEY_IS(k) holds for this key (default 0)
      "tiling": {"totalLength": 16384, "tileNum": 8},   # the struct's fields (nested: {}, arrays: [])
      "inputs": {"x": {"dtype": "float16", "shape": [8, 2048]}, "y": {...}},
      "outputs": {"z": {"dtype": "float16", "shape": [8, 2048]}},
      "workspace": 0,                     # user workspace bytes (GetUserWorkspace)
      "kernel": "add_custom",             # optional: the __global__ function (default: the only one)
      "tiling_header": "../op_host/add_custom_tiling.h",  # optional (default: that path if it exists)
      "tiling_struct": "optiling::TilingData"              # optional (default: found in the sources)
    }

The tiling struct is the op_host header's ``BEGIN_TILING_DATA_DEF(Name)`` class (its namespace
included), or the plain struct the kernel names in ``REGISTER_TILING_DEFAULT(T)`` /
``GET_TILING_DATA_WITH_STRUCT(T, ...)``; fields the JSON leaves out are 0. Each input / output gives
the ``DTYPE_<NAME>`` macro (``DTYPE_X`` is ``half`` for a float16 ``x``).
"""

import hashlib
import json
import math
import pathlib
import re

import ascend_jax as aj

from . import build as B

# the C++ element type of each dtype (the DTYPE_<NAME> macros)
CXX_TYPE = {
    "half": "half",
    "bfloat16": "bfloat16_t",
    "float32": "float",
    "int8": "int8_t",
    "uint8": "uint8_t",
    "int16": "int16_t",
    "uint16": "uint16_t",
    "int32": "int32_t",
    "uint32": "uint32_t",
    "int64": "int64_t",
    "uint64": "uint64_t",
}
KEYS = (
    "block_dim",
    "tiling_key",
    "tiling",
    "inputs",
    "outputs",
    "workspace",
    "kernel",
    "tiling_header",
    "tiling_struct",
)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*$")
_KERNEL = re.compile(
    r"\b__global__\b[^;{}()]*?\bvoid\s+([A-Za-z_][A-Za-z_0-9]*)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*\{"
)
_BEGIN = re.compile(r"\bBEGIN_TILING_DATA_DEF\s*\(\s*([A-Za-z_][A-Za-z_0-9]*)\s*\)")
_REGISTER = re.compile(
    r"\bREGISTER_TILING_DATA_CLASS\s*\(\s*[A-Za-z_][A-Za-z_0-9]*\s*,\s*([A-Za-z_][A-Za-z_0-9]*)"
)
_BRACES = re.compile(r"\bnamespace\s+([A-Za-z_][A-Za-z_0-9:]*)\s*\{|\{|\}")
_KERNEL_STRUCT = re.compile(
    r"\b(?:REGISTER_TILING_DEFAULT\s*\(|GET_TILING_DATA_WITH_STRUCT\s*\(|GET_TILING_DATA_PTR_WITH_STRUCT\s*\()"
    r"\s*([A-Za-z_][A-Za-z_0-9:]*)"
)


class TilingError(Exception):
    """A bad ``--tiling`` file or a kernel the harness cannot drive (exit 2)."""


def _err(path, msg):
    return TilingError(f"--tiling {path}: {msg}")


def load(path):
    """The ``--tiling`` JSON as a dict (TilingError naming the file and the problem)."""
    path = pathlib.Path(path).expanduser()
    if not path.is_file():
        raise TilingError(f"--tiling {path}: no such file")
    try:
        spec = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise _err(path, f"not valid JSON: line {e.lineno}: {e.msg}") from None
    if not isinstance(spec, dict):
        raise _err(path, "give a JSON object with block_dim, tiling, inputs, outputs")
    unknown = sorted(set(spec) - set(KEYS))
    if unknown:
        raise _err(path, f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(KEYS)}")
    for key in ("block_dim", "tiling_key", "workspace"):
        v = spec.get(key)
        if v is not None and (
            not isinstance(v, int) or isinstance(v, bool) or v < (1 if key == "block_dim" else 0)
        ):
            lo = "a positive" if key == "block_dim" else "a non-negative"
            raise _err(path, f"{key} = {v!r}: give {lo} integer")
    for key in ("inputs", "outputs", "tiling"):
        if not isinstance(spec.get(key, {}), dict):
            raise _err(path, f"{key}: give a JSON object")
    return spec


def _buffers(path, spec):
    """``{name: (role, dtype name, bytes)}`` of the inputs and outputs."""
    out = {}
    for role in ("inputs", "outputs"):
        for name, d in spec.get(role, {}).items():
            where = f"{role}.{name}"
            if not _IDENT.match(name):
                raise _err(path, f"{where}: not a C++ parameter name")
            if name in out:
                raise _err(path, f"{name} is both an input and an output")
            if not isinstance(d, dict) or "dtype" not in d or "shape" not in d:
                raise _err(path, f'{where}: give {{"dtype": "float16", "shape": [8, 2048]}}')
            try:
                dt = aj.as_dtype(d["dtype"])
            except (ValueError, TypeError, KeyError) as e:
                raise _err(path, f"{where}.dtype: {e}") from None
            if dt.name not in CXX_TYPE:
                raise _err(path, f"{where}.dtype {d['dtype']!r}: allowed: {', '.join(sorted(CXX_TYPE))}")
            shape = d["shape"] if isinstance(d["shape"], list) else [d["shape"]]
            if not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape):
                raise _err(path, f"{where}.shape {d['shape']!r}: give a list of non-negative integers")
            out[name] = (role[:-1], dt.name, math.prod(shape) * dt.itemsize)
    return out


def _cxx_value(path, where, v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"{v}ULL" if v >= 2**63 else (f"{v}LL" if abs(v) >= 2**31 else str(v))
    if isinstance(v, float):
        if not math.isfinite(v):
            raise _err(path, f"tiling.{where} = {v!r}: give a finite number")
        return v.hex()  # a hex float literal: the exact double
    raise _err(path, f"tiling.{where} = {v!r}: give a number, a list or an object")


def _fills(path, obj, prefix, where, out):
    """C++ assignments ``t.field = value;`` for each JSON tiling field (nested objects and lists)."""
    for k, v in obj.items():
        if not _IDENT.match(k):
            raise _err(path, f"tiling.{where}{k}: not a C++ field name")
        lhs, w = f"{prefix}.{k}", f"{where}{k}"
        if isinstance(v, dict):
            _fills(path, v, lhs, w + ".", out)
        elif isinstance(v, list):
            for i, e in enumerate(v):
                out.append((k, f"{lhs}[{i}] = {_cxx_value(path, f'{w}[{i}]', e)};"))
        else:
            out.append((k, f"{lhs} = {_cxx_value(path, w, v)};"))
    return out


def _json_line(text, key):
    m = re.search(r'"' + re.escape(key) + r'"\s*:', text)
    return text.count("\n", 0, m.start()) + 1 if m else 1


def _open_namespaces(text):
    """The namespaces still open at the end of ``text`` (comment-masked C++), outermost first."""
    stack = []
    for m in _BRACES.finditer(text):
        if m.group(1):
            stack.append(m.group(1))
        elif m.group(0) == "{":
            stack.append(None)
        elif stack:
            stack.pop()
    return [n for n in stack if n]


def _quote(p):
    """A C string literal of ``p`` (``#line``; an ``#include`` name is not escape-processed)."""
    return '"' + str(p).replace("\\", "\\\\").replace('"', '\\"') + '"'


def harness(kernel, tiling_path):
    """``(harness path, include dirs, launch name)``: the generated host program for ``kernel``."""
    kernel = pathlib.Path(kernel).expanduser().resolve()
    tiling_path = pathlib.Path(tiling_path).expanduser().resolve()
    spec = load(tiling_path)
    base = tiling_path.parent
    ktext = kernel.read_text(errors="replace")
    masked = B._mask_comments_strings(ktext)
    kernels = {m.group(1): m.group(2) for m in _KERNEL.finditer(masked)}
    def_line = {m.group(1): masked.count("\n", 0, m.start(1)) + 1 for m in _KERNEL.finditer(masked)}
    name = spec.get("kernel")
    if name is None:
        if len(kernels) == 1:
            name = next(iter(kernels))
        elif kernel.stem in kernels:
            name = kernel.stem
        else:
            raise _err(
                tiling_path,
                f"{kernel.name} defines {len(kernels)} __global__ kernels ({', '.join(kernels) or 'none'}): "
                'name one with "kernel"',
            )
    elif name not in kernels:
        raise _err(
            tiling_path,
            f"kernel {name!r}: {kernel.name} defines {', '.join(kernels) or 'no __global__ kernel'}",
        )
    params = [p.strip() for p in kernels[name].split(",") if p.strip()]
    pnames = []
    for p in params:
        m = re.search(r"([A-Za-z_][A-Za-z_0-9]*)\s*$", p)
        if m is None or "*" not in p and "GM_ADDR" not in p:
            raise _err(
                tiling_path,
                f"{kernel.name}: kernel {name} parameter {p!r}: the harness passes GM addresses only",
            )
        pnames.append(m.group(1))
    bufs = _buffers(tiling_path, spec)
    extra = sorted(set(bufs) - set(pnames))
    if extra:
        raise _err(tiling_path, f"{', '.join(extra)}: not a parameter of {name}({', '.join(pnames)})")
    roles = []
    for p in pnames:
        if p in bufs:
            roles.append(bufs[p][0])
        elif "workspace" in p.lower():
            roles.append("workspace")
        elif "tiling" in p.lower():
            roles.append("tiling")
        else:
            raise _err(
                tiling_path,
                f'parameter {p} of {name}: give it under "inputs" or "outputs" (dtype and shape); '
                "the parameters named *workspace* / *tiling* get the workspace and the tiling",
            )

    # the tiling struct: the op_host header's class, or the kernel's plain struct
    header = spec.get("tiling_header")
    if header is not None:
        header = (base / header).resolve()
        if not header.is_file():
            raise _err(tiling_path, f"tiling_header {spec['tiling_header']}: no such file ({header})")
    else:
        guess = kernel.parent.parent / "op_host" / f"{kernel.stem}_tiling.h"
        header = guess.resolve() if guess.is_file() else None
    struct = spec.get("tiling_struct")
    if struct is None and header is not None:
        htext = B._mask_comments_strings(header.read_text(errors="replace"))
        reg = _REGISTER.findall(htext)
        begins = _BEGIN.findall(htext)
        cls = reg[0] if reg else (begins[-1] if begins else None)
        if cls is not None:
            m = re.search(r"\bBEGIN_TILING_DATA_DEF\s*\(\s*" + cls + r"\s*\)", htext)
            struct = "::".join([*_open_namespaces(htext[: m.start() if m else 0]), cls])
    if struct is None:
        found = _KERNEL_STRUCT.findall(masked)
        struct = found[0] if found else None
    fills = _fills(tiling_path, spec.get("tiling", {}), "t", "", []) if spec.get("tiling") else []
    if (fills or re.search(r"\bGET_TILING_DATA\s*\(", masked)) and struct is None:
        raise _err(
            tiling_path,
            f"cannot tell the tiling struct: no {kernel.parent.parent.name}/op_host/{kernel.stem}_tiling.h with "
            "BEGIN_TILING_DATA_DEF, no REGISTER_TILING_DEFAULT(T) in the kernel: name the header with "
            '"tiling_header" or the struct with "tiling_struct"',
        )
    if struct is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*(::[A-Za-z_][A-Za-z_0-9]*)*", struct):
        raise _err(tiling_path, f"tiling_struct {struct!r}: not a C++ type name")

    jtext = tiling_path.read_text()
    blocks = spec.get("block_dim", 1)
    lines = [
        f"// ascend-jax run --tiling: the host harness of {kernel.name}'s kernel {name} (generated).",
        "#include <cstdint>",
        "#include <type_traits>",
        "#include <vector>",
        _INC("ascendjax/op_kernel.h"),
        _INC("acl/acl.h"),
        _INC("data_utils.h"),
    ]
    if header is not None:
        lines.append(f'#include "{header}"')
    if struct is not None and (header is not None or spec.get("tiling_struct") is not None):
        lines.append(f"#undef ASCENDJAX_TILING_TYPE\n#define ASCENDJAX_TILING_TYPE {struct}")
    lines.append(f"#undef ASCENDJAX_TILING_KEY\n#define ASCENDJAX_TILING_KEY {spec.get('tiling_key', 0)}")
    for p, (_role, dt, _n) in bufs.items():
        lines.append(f"#define DTYPE_{p.upper()} {CXX_TYPE[dt]}")
    lines.append(f'#include "{kernel}"')
    lines += [
        "",
        "int main() {",
        "    aclrtStream stream = nullptr;",
        "    aclInit(nullptr);",
        "    aclrtSetDevice(0);",
        "    aclrtCreateStream(&stream);",
    ]
    if struct is not None:
        lines.insert(lines.index("int main() {"), f"static void ascendjax_fill_tiling({struct}& t);")
        lines.append(f"    {struct} t{{}};")
        lines.append("    ascendjax_fill_tiling(t);")
        tiling_size = f"sizeof({struct})"
    else:
        lines.append("    uint8_t t[32] = {};")
        tiling_size = "sizeof(t)"
    args = []
    for i, (p, role) in enumerate(zip(pnames, roles, strict=True)):
        v = f"gm{i}"
        args.append(v)
        lines.append(f"    uint8_t* {v} = nullptr;")
        if role in ("input", "output"):
            n = bufs[p][2]
            lines.append(f"    aclrtMalloc((void**)&{v}, {n}, ACL_MEM_MALLOC_HUGE_FIRST);")
            if role == "input":
                lines += [
                    f"    std::vector<uint8_t> h{i}({n} ? {n} : 1);",
                    f"    size_t n{i} = {n};",
                    f'    ReadFile("./input/{p}.bin", n{i}, h{i}.data(), {n});',
                    f"    aclrtMemcpy({v}, {n}, h{i}.data(), {n}, ACL_MEMCPY_HOST_TO_DEVICE);",
                ]
        elif role == "workspace":
            n = max(spec.get("workspace", 0), 32)  # at least one block: a real run has the system part too
            lines.append(f"    aclrtMalloc((void**)&{v}, {n}, ACL_MEM_MALLOC_HUGE_FIRST);")
            lines.append(f"    aclrtMemset({v}, {n}, 0, {n});")
        else:
            lines += [
                f"    aclrtMalloc((void**)&{v}, {tiling_size}, ACL_MEM_MALLOC_HUGE_FIRST);",
                f"    aclrtMemcpy({v}, {tiling_size}, &t, {tiling_size}, ACL_MEMCPY_HOST_TO_DEVICE);",
            ]
    # the launch names the kernel's definition line (messages: "launch add_custom (line N)")
    lines.append(f"#line {def_line[name]} {_quote(kernel)}")
    lines.append(f"    {name}<<<{blocks}, nullptr, stream>>>({', '.join(args)});")
    lines.append(f'#line {chr(10).join(lines).count(chr(10)) + 3} "<the --tiling harness of {kernel.name}>"')
    lines.append("    aclrtSynchronizeStream(stream);")
    for i, (p, role) in enumerate(zip(pnames, roles, strict=True)):
        if role == "output":
            n = bufs[p][2]
            lines += [
                f"    std::vector<uint8_t> o{i}({n} ? {n} : 1);",
                f"    aclrtMemcpy(o{i}.data(), {n}, gm{i}, {n}, ACL_MEMCPY_DEVICE_TO_HOST);",
                f'    WriteFile("./output/{p}.bin", o{i}.data(), {n});',
            ]
    lines += [f"    aclrtFree(gm{i});" for i in range(len(pnames))]
    lines += ["    aclrtDestroyStream(stream);", "    aclFinalize();", "    return 0;", "}", ""]
    if struct is not None:  # last, so that a field the struct lacks is reported at the JSON's line
        lines.append(f"static void ascendjax_fill_tiling({struct}& t) {{")
        for key, code in fills:
            lines.append(f"#line {_json_line(jtext, key)} {_quote(tiling_path)}")
            lines.append("    " + code)
        lines += ["    (void)t;", "}", ""]
    text = "\n".join(lines)
    d = B.cache_dir() / "harness"
    d.mkdir(parents=True, exist_ok=True)
    out = d / f"{kernel.stem}-{hashlib.sha256(text.encode()).hexdigest()[:16]}.cpp"
    if not out.is_file():
        out.write_text(text)
    dirs = [kernel.parent] + ([header.parent] if header is not None else [])
    return out, dirs, name


def _INC(name):
    """Our own header by absolute path (a project's own data_utils.h must not replace it here)."""
    return f'#include "{B.INCLUDE / name}"'
