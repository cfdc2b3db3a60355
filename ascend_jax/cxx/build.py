"""Build a user's Ascend C source (``.asc`` / ``.cpp``) into a host program that runs on the model.

``rewrite_launches`` turns every ``kernel<<<blocks, ubuf, stream>>>(args)`` into
``ascendjax_launch("kernel", LINE, kernel, blocks, ubuf, stream, args)`` (g++ has no ``<<<>>>``),
keeping every newline so the user's line numbers hold; the rewritten copy starts with
``#line 1 "<the user's file>"`` so compiler errors and the recorded call sites name the user's file
and line. ``build`` compiles it with ``$CXX`` or the first of g++ / clang++ found, against
``ascend_jax/cxx/include`` (our own ``kernel_operator.h``, ``acl/acl.h``, ``data_utils.h``), with
``__NPU_ARCH__`` and the product macros of the profile and the user's ``-D`` macros; builds are
cached by content hash under ``$ASCEND_JAX_CACHE`` (default ``~/.cache/ascend_jax``)/cxx.
"""

import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import time

INCLUDE = pathlib.Path(__file__).parent / "include"
STD = "-std=gnu++20"


class CxxError(Exception):
    """A problem with the user's C++ (compile error, launch syntax): exit code 2."""


class ToolError(Exception):
    """A missing tool (no C++ compiler): exit code 2, with what to install."""


# __NPU_ARCH__ per product (the samples test e.g. __NPU_ARCH__ == 3510 for Ascend 950)
NPU_ARCH = {
    "ascend910b": 2201,
    "ascend910_93": 2201,
    "ascend950": 3510,
    "ascend310p": 2002,
    "ascend910": 1001,
}


def find_compiler():
    """``$CXX`` or the first of g++ / clang++ on PATH; ToolError naming what to install."""
    cxx = os.environ.get("CXX")
    if cxx:
        path = shutil.which(cxx)
        if path is None:
            raise ToolError(f"$CXX={cxx!r} is not an executable on PATH")
        return path
    for name in ("g++", "clang++"):
        path = shutil.which(name)
        if path:
            return path
    raise ToolError(
        "no C++ compiler found: the C++ front end needs g++ (>= 10) or clang++ (>= 12) on PATH "
        "(e.g. `apt install g++`), or $CXX naming one"
    )


_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(?:\s*::\s*[A-Za-z_][A-Za-z_0-9]*)*$")


def _mask_comments_strings(src):
    """``src`` with comments and string/char literals blanked (same length, newlines kept), so the
    launch scanner never matches inside them."""
    out = list(src)
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _match_back(s, i, open_c, close_c):
    """Index of the ``open_c`` matching the ``close_c`` at ``s[i]``."""
    depth = 0
    while i >= 0:
        if s[i] == close_c:
            depth += 1
        elif s[i] == open_c:
            depth -= 1
            if depth == 0:
                return i
        i -= 1
    return -1


def _match_fwd(s, i, open_c, close_c):
    depth = 0
    while i < len(s):
        if s[i] == open_c:
            depth += 1
        elif s[i] == close_c:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


_CUBE = re.compile(r"\b__cube__\b[^;{}()]*?\b([A-Za-z_][A-Za-z_0-9]*)\s*\(")


def cube_kernels(masked):
    """Names of the ``__cube__`` kernels a (comment-masked) source defines."""
    return set(_CUBE.findall(masked))


_LINE_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*line[ \t]+(\d+)[^\n]*\n", re.M)


def _line_at(masked, i, directives):
    """The line number of ``masked[i]`` as the compiler counts it (after a ``#line N`` directive,
    the next line is N)."""
    start, base = 0, 1
    for end, n in directives:
        if end > i:
            break
        start, base = end, n
    return base + masked.count("\n", start, i)


def rewrite_launches(src, filename="<source>"):
    """``(new_source, launches)``: every ``k<<<...>>>(...)`` rewritten (newlines kept); launches is
    a list of ``(kernel expression, line)``. A ``<<<`` the scanner cannot read raises CxxError. A
    launch of a ``__cube__`` kernel becomes ``ascendjax_cube_launch(...)``: the run stops there
    with NotModelledError (the AI Cube core, L1/L0 and Mmad are outside the model)."""
    masked = _mask_comments_strings(src)
    cubes = cube_kernels(masked)
    edits = []  # (start, end, replacement)
    launches = []
    directives = [(m.end(), int(m.group(1))) for m in _LINE_DIRECTIVE.finditer(masked)]
    pos = 0
    while True:
        i = masked.find("<<<", pos)
        if i < 0:
            break
        line = _line_at(masked, i, directives)
        # the callee: an identifier, optionally qualified, optionally with template arguments
        j = i - 1
        while j >= 0 and masked[j].isspace():
            j -= 1
        end_callee = j + 1
        if j >= 0 and masked[j] == ">":
            j = _match_back(masked, j, "<", ">") - 1
            if j < -1:
                raise CxxError(f"{filename}:{line}: cannot read the kernel launch before '<<<'")
        while j >= 0 and (masked[j].isalnum() or masked[j] in "_:"):
            j -= 1
        start = j + 1
        callee = src[start:end_callee]
        name_part = re.sub(r"<.*", "", callee, flags=re.S).strip()
        if not name_part or not _IDENT.match(name_part):
            raise CxxError(f"{filename}:{line}: cannot read the kernel name before '<<<'")
        k = masked.find(">>>", i + 3)
        if k < 0:
            raise CxxError(f"{filename}:{line}: '<<<' without '>>>'")
        config = src[i + 3 : k]
        if config.count(",") < 1:
            raise CxxError(
                f"{filename}:{line}: a launch takes <<<blocks, ubuf, stream>>>; got <<<{config.strip()}>>>"
            )
        m = k + 3
        while m < len(masked) and masked[m].isspace():
            m += 1
        if m >= len(masked) or masked[m] != "(":
            raise CxxError(f"{filename}:{line}: expected '(' with the kernel arguments after '>>>'")
        close = _match_fwd(masked, m, "(", ")")
        if close < 0:
            raise CxxError(f"{filename}:{line}: unbalanced parentheses in the kernel launch")
        args = src[m + 1 : close]
        nl = "\n" * (
            src.count("\n", start, close + 1) - config.count("\n") - args.count("\n") - callee.count("\n")
        )
        name_lit = " ".join(callee.split()).replace("\\", "\\\\").replace('"', '\\"')
        # ascendjax_launch(name, line, kernel, blocks, ubuf, stream, args...)
        if name_part.split("::")[-1].strip() in cubes:
            rep = f'ascendjax_cube_launch("{name_lit}", {line}, __FILE__, {config}'
        else:
            rep = f'ascendjax_launch("{name_lit}", {line}, {callee}, {config}'
        rep += (", " + args if args.strip() else "") + ")" + nl
        edits.append((start, close + 1, rep))
        launches.append((name_lit, line))
        pos = close + 1
    out, last = [], 0
    for s, e, r in edits:
        out.append(src[last:s])
        out.append(r)
        last = e
    out.append(src[last:])
    return "".join(out), launches


def cache_dir():
    root = os.environ.get("ASCEND_JAX_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "ascend_jax")
    d = pathlib.Path(root) / "cxx"
    d.mkdir(parents=True, exist_ok=True)
    return d


def profile_macros(profile):
    """-D flags of a profile: __NPU_ARCH__ and a product macro (ASCENDJAX_PRODUCT_<NAME>)."""
    name = profile.name
    arch = NPU_ARCH.get(name)
    flags = [
        f"-DASCENDJAX_PRODUCT_{name.upper()}=1",
        f"-DASCENDJAX_UB_ALIGN={profile.operand_alignment_bytes}",
        f"-DASCENDJAX_AIC_AIV_RATIO={profile.aic_aiv_ratio}",
        f"-DASCENDJAX_UB_BYTES={profile.ub_usable_bytes}",  # GetUBSizeInBytes()
    ]
    if arch is not None:
        flags.append(f"-D__NPU_ARCH__={arch}")
    return flags


def _headers_digest():
    h = hashlib.sha256()
    for p in sorted(INCLUDE.rglob("*.h")):
        h.update(str(p.relative_to(INCLUDE)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()


class Build:
    """A compiled host program: ``exe`` path, ``seconds`` spent compiling (0 when cached), the
    launches found in the source."""

    def __init__(self, exe, seconds, cached, launches, source):
        self.exe, self.seconds, self.cached, self.launches, self.source = (
            exe,
            seconds,
            cached,
            launches,
            source,
        )


_QUOTED_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"', re.M)
_MAIN = re.compile(r"\b(?:int|int32_t|auto)\s+main\s*\(")
_KERNEL_DEF = re.compile(r"\b__global__\b[^;{}]*?\b([A-Za-z_][A-Za-z_0-9]*)\s*\([^;{}]*\)\s*\{")
SOURCE_SUFFIXES = (".asc", ".cpp", ".cc", ".cxx")
_ACLRTLAUNCH = re.compile(r"aclrtlaunch_([A-Za-z_][A-Za-z_0-9]*)\.h")
# a kernel definition: (extern "C" as masked text), name, parameters
_KERNEL_SIG = re.compile(
    r'(\bextern\s+"\s*"\s*)?\b__global__\b[^;{}()]*?\bvoid\s+([A-Za-z_][A-Za-z_0-9]*)\s*\(([^()]*)\)\s*\{'
)


def _c_string(path):
    """A C string literal of ``path`` (for ``#line`` and ``#include``)."""
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


class _Project:
    """The user's files a build reads: each ``#include "name"`` resolved as the user's compiler would
    (the including file's folder, then the user's include folders) before ours, so a project's own
    ``data_utils.h`` wins over ascend_jax's; a file with a ``<<<>>>`` launch -- or one including such a
    file -- is compiled from a rewritten copy (``#line`` keeps the user's file:line), its
    includes pointing at the user's files (or their copies) by absolute path."""

    def __init__(self, dirs, out_dir):
        self.dirs = [pathlib.Path(d) for d in dirs]
        self.out_dir = out_dir
        self.texts = {}  # resolved path -> text (every user file the build reads: the cache key)
        self.copies = {}  # resolved path -> (rewritten text or None when no copy is needed)
        self.launches = []
        self.kernel_files = set()  # the sources aclrtlaunch_<kernel>.h headers were made from

    def read(self, path):
        if path not in self.texts:
            self.texts[path] = path.read_text(errors="replace")
        return self.texts[path]

    def resolve(self, name, here):
        for d in (here, *self.dirs):
            p = d / name
            if p.is_file():
                return p.resolve()
        m = _ACLRTLAUNCH.fullmatch(pathlib.PurePath(name).name)
        if m:  # the header ascendc_library generates: made here from the kernel's own definition
            return self.aclrtlaunch(m.group(1))
        return None

    def aclrtlaunch(self, kernel):
        """``aclrtlaunch_<kernel>.h`` (the header the vendor's ``ascendc_library`` CMake function
        generates): ``ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...)`` calls
        ``aclrtlaunch_<kernel>(uint32_t blockDim, aclrtStream stream, void* ...)``, a ``<<<>>>``
        launch of the kernel, declared from its definition in a source of the project's folder."""
        path = self.out_dir / f"aclrtlaunch_{kernel}.h"
        if path in self.texts:
            return path
        found = None
        for d in self.dirs[:1]:
            for p in sorted([*d.glob("*"), *d.glob("*/*")]):
                if p.suffix.lower() not in SOURCE_SUFFIXES or not p.is_file():
                    continue
                text = p.read_text(errors="replace")
                for m in _KERNEL_SIG.finditer(_mask_comments_strings(text)):
                    if m.group(2) == kernel:
                        found = (m, text)
                        break
                if found:
                    break
        if found is None:
            return None
        m, text = found
        self.kernel_files.add(p.resolve())
        params = [q.strip() for q in text[m.start(3) : m.end(3)].split(",") if q.strip()]
        names, types = [], []
        for q in params:
            n = re.search(r"([A-Za-z_][A-Za-z_0-9]*)\s*$", q)
            if n is None:
                return None
            names.append(n.group(1))
            types.append(q[: n.start()].strip() or "int")
        extern_c = 'extern "C" ' if m.group(1) else ""
        decl = ", ".join(params)
        args = ", ".join(
            f"void* {n}" if "*" in t or "GM_ADDR" in t else f"{t} {n}"
            for t, n in zip(types, names, strict=True)
        )
        call = ", ".join(f"({t})({n})" for t, n in zip(types, names, strict=True))
        self.texts[path] = (
            f"// ascend_jax: the launch function of kernel {kernel} (as ascendc_library generates it).\n"
            "#pragma once\n"
            '#include "acl/acl.h"\n'
            '#include "kernel_operator.h"\n'
            "#ifndef ACLRT_LAUNCH_KERNEL\n"
            "#define ACLRT_LAUNCH_KERNEL(kernel_func) aclrtlaunch_##kernel_func\n"
            "#endif\n"
            f"{extern_c}__global__ __aicore__ void {kernel}({decl});\n"
            f"inline uint32_t aclrtlaunch_{kernel}(uint32_t blockDim, aclrtStream stream"
            + (f", {args}" if args else "")
            + ") {\n"
            f"    {kernel}<<<blockDim, nullptr, stream>>>({call});\n"
            "    return 0;\n"
            "}\n"
        )
        return path

    def includes(self, path):
        """``[(start, end, resolved path)]``: the span of each quoted include's name found in the
        user's tree (comments and disabled text are not told apart: an unresolved name is left)."""
        text = self.read(path)
        masked = _mask_comments_strings(text)
        out = []
        for m in _QUOTED_INCLUDE.finditer(masked):
            start = m.end()
            end = text.find('"', start)
            if end < 0 or "\n" in text[start:end]:
                continue
            found = self.resolve(text[start:end], path.parent)
            if found is not None:
                out.append((start, end, found))
        return out

    def process(self, path, stack=()):
        """The rewritten text of ``path`` when it (or a file it includes) has a launch, else None."""
        if path in self.copies:
            return self.copies[path]
        if path in stack:  # an include cycle (files guarded by #pragma once): no copy on this path
            return None
        self.copies[path] = None
        text = self.read(path)
        incs = self.includes(path)
        subs = {p: self.process(p, (*stack, path)) for _s, _e, p in incs}
        has_launch = "<<<" in _mask_comments_strings(text)
        if not has_launch and not any(v is not None for v in subs.values()):
            return None
        # the includes by absolute path (a copy lives elsewhere than its original folder)
        out, last = [], 0
        for s, e, p in incs:
            target = self.copy_path(p) if subs[p] is not None else p
            out.append(text[last:s])
            out.append(str(target))  # an #include name is not escape-processed
            last = e
        out.append(text[last:])
        rewritten, launches = rewrite_launches("".join(out), str(path))
        self.launches += launches
        self.copies[path] = f"#line 1 {_c_string(path)}\n" + rewritten
        return self.copies[path]

    def copy_path(self, path):
        h = hashlib.sha256(str(path).encode()).hexdigest()[:10]
        return self.out_dir / f"{h}-{path.name}"

    def top(self, path):
        """The text g++ compiles for a top-level source (always a copy: it may hold a launch)."""
        text = self.process(path)
        if text is None:
            self.copies[path] = None
            text = f"#line 1 {_c_string(path)}\n" + self._absolute_includes(path)
        return text

    def _absolute_includes(self, path):
        text = self.read(path)
        out, last = [], 0
        for s, e, p in self.includes(path):
            target = self.copy_path(p) if self.copies.get(p) is not None else p
            out.append(text[last:s])
            out.append(str(target))  # an #include name is not escape-processed
            last = e
        out.append(text[last:])
        return "".join(out)

    def closure(self, path, seen=None):
        """Every user file ``path`` includes, transitively."""
        seen = set() if seen is None else seen
        for _s, _e, p in self.includes(path):
            if p not in seen:
                seen.add(p)
                self.closure(p, seen)
        return seen


def project_sources(source):
    """The translation units of a kernel-launch project: ``source`` and, beside it, the other sources
    the vendor's CMake builds with it -- kernel files (a ``__global__`` function, no ``main``) when
    ``source`` has ``main``, or the one file with ``main`` when ``source`` is a kernel file -- minus
    the files one of them already ``#include``s. A source with ``main`` launching kernels it defines
    itself (a vendor sample), or a folder with several ``main`` files, builds alone; a ``main`` that
    launches a kernel defined elsewhere takes the sources beside it that define one."""
    source = pathlib.Path(source)
    raw = source.read_text(errors="replace")
    text = _mask_comments_strings(raw)
    has_main = bool(_MAIN.search(text))
    missing = None  # the kernels main launches with <<<>>> but does not define
    if has_main and "<<<" in text:
        launched = {
            re.sub(r"<.*", "", n, flags=re.S).split("::")[-1].strip() for n, _ in rewrite_launches(raw)[1]
        }
        missing = launched - set(_KERNEL_DEF.findall(text))
        if not missing:
            return [source]
    mains, kernels = [], []
    for p in sorted(source.parent.iterdir()):
        if p == source or p.suffix.lower() not in SOURCE_SUFFIXES or not p.is_file():
            continue
        t = _mask_comments_strings(p.read_text(errors="replace"))
        if _MAIN.search(t):
            mains.append(p)
        elif (missing is None and _KERNEL_DEF.search(t)) or (
            missing and missing & set(_KERNEL_DEF.findall(t))
        ):
            kernels.append(p)
    if has_main:
        units = [source, *kernels]
    elif len(mains) == 1:  # the same build as from the main file
        units = [mains[0], *sorted([source, *kernels])]
    else:
        return [source]
    proj = _Project([source.parent], source.parent)
    included = set()
    for u in units:
        included |= proj.closure(u.resolve())
    return [u for u in units if u == units[0] or u.resolve() not in included]


def build(source, profile, defines=(), cxx=None, include_dirs=(), sources=None, label=None, user_files=()):
    """Compile ``source`` (a path) for ``profile`` with ``defines`` (``NAME`` or ``NAME=VALUE``):
    the project's translation units (``project_sources``, or ``sources``) in one g++ call, with the
    user's ``include_dirs`` (default: ``source``'s folder). Returns a ``Build``; CxxError with the
    compiler's messages on a compile error (``label``: what they name as built, default ``source``)."""
    source = pathlib.Path(source).expanduser().resolve()
    if not source.is_file():
        raise CxxError(f"{source}: no such file")
    units = [pathlib.Path(u).resolve() for u in (sources or project_sources(source))]
    if sources is None and not any(
        _MAIN.search(_mask_comments_strings(u.read_text(errors="replace"))) for u in units
    ):
        raise CxxError(
            f"{source}: no main() in it or in a source beside it: a kernel-launch project runs from its "
            "host main.cpp; an op-framework kernel (op_kernel/*.cpp) runs with --tiling FILE "
            "(docs/BRING_YOUR_OWN_KERNEL.md)"
        )
    dirs = [pathlib.Path(d).expanduser().resolve() for d in include_dirs] or [source.parent]
    compiler = cxx or find_compiler()
    # (-g1: a line table, so that a store through a raw __gm__ pointer is refused at its line; rt.h)
    flags = [STD, "-O1", "-g1", "-w", "-fno-strict-aliasing"]
    flags += [f"-iquote{d}" for d in dirs] + [f"-I{INCLUDE}"] + [f"-I{d}" for d in dirs]
    flags += profile_macros(profile)
    for d in defines:
        flags.append(f"-D{d}")
    d = cache_dir()
    proj = _Project(dirs, d)
    tops = [proj.top(u) for u in units]
    included = set()
    for u in units:
        included |= proj.closure(u)
    # a kernel an ACLRT_LAUNCH_KERNEL launches, defined in a source not built yet (e.g. kernel/x.cpp)
    for k in sorted(proj.kernel_files - set(units) - included):
        units.append(k)
        tops.append(proj.top(k))
        proj.closure(k)
    launches = proj.launches
    key = hashlib.sha256()
    for part in (*tops, *map(str, units), compiler, " ".join(flags), _headers_digest()):
        key.update(part.encode())
        key.update(b"\0")
    for p in sorted(proj.texts):
        key.update(str(p).encode() + b"\0" + proj.texts[p].encode() + b"\0")
    digest = key.hexdigest()[:24]
    exe = d / f"{units[0].stem}-{digest}"
    if exe.is_file():
        return Build(exe, 0.0, True, launches, source)
    for p, text in proj.copies.items():
        if text is not None:
            proj.copy_path(p).write_text(text)
    srcs = []
    for i, (u, text) in enumerate(zip(units, tops, strict=True)):
        tmp_src = d / f"{source.stem}-{digest}-{i}-{u.stem}.cpp"
        tmp_src.write_text(text)
        srcs += ["-x", "c++", str(tmp_src)]
    tmp_exe = d / f".{exe.name}.{os.getpid()}.tmp"
    t0 = time.perf_counter()
    proc = subprocess.run(
        [compiler, *flags, *srcs, "-o", str(tmp_exe)],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        tmp_exe.unlink(missing_ok=True)
        raise CxxError(
            _compile_message(proc.stderr, label or source, [source, *units, *proj.texts, *user_files])
        )
    os.replace(tmp_exe, exe)
    return Build(exe, seconds, False, launches, source)


_NOT_MEMBER = re.compile(r"['‘`]([A-Za-z_][A-Za-z_0-9]*)['’] is not a member of ['‘`]AscendC['’]")
_NOT_DECLARED = re.compile(r"['‘`]([A-Z][A-Za-z_0-9]*)['’] was not declared in this scope")
_DIAG = re.compile(r"^(\S.*?):(?:(\d+):)?(?:(\d+):)?\s(.*)$")


def _compile_message(stderr, source, user_files=()):
    """The compiler's errors, each at the user's own file and line (``source`` and ``user_files``): an
    error inside ascend_jax's headers (a template instantiated with arguments it does not take) is
    reported at the user's line that instantiated it ("required from here"), an error in a -D macro's
    text at the line it expands at; the headers' own lines, notes and code never show. The note naming
    an unmodelled ``AscendC::`` API once, at the top."""
    src = str(source)
    users = {src, *(str(u) for u in user_files)}
    lines = stderr.splitlines()
    out, seen = [], set()
    missing = sorted(set(_NOT_MEMBER.findall(stderr)))
    if missing:
        names = ", ".join(f"AscendC::{n}" for n in missing)
        out.append(f"{names}: not an API ascend_jax models (`ascend-jax apis` lists the modelled ones)")
    undeclared = sorted(set(_NOT_DECLARED.findall(stderr)) - set(missing))
    if undeclared:
        out.append(
            f"{', '.join(undeclared)}: not declared -- if an Ascend C API, not one ascend_jax models "
            "(`ascend-jax apis` lists the modelled ones)"
        )
    ours = str(INCLUDE)
    diags = []  # (file, line, col, text, the user's line of the chain that led here)
    user_at = None  # the user's line that instantiated the header code of the current diagnostic
    for ln in lines:
        m = _DIAG.match(ln)
        if not m:
            continue
        file, line, col, rest = m.groups()
        rest = rest.strip()
        if line is None and rest.startswith("In "):  # "file: In instantiation of ...": a new chain
            user_at = None
            continue
        if rest.startswith("required from") or rest.startswith("in "):
            if file in users:
                user_at = (file, line, col)
            continue
        diags.append((file, line, col, rest, user_at))
    for i, (file, line, col, rest, chain) in enumerate(diags):
        if not rest.startswith(("error:", "fatal error:")):
            continue
        where = (file, line, col) if file in users else chain
        if where is None:  # a -D macro's text: the user's line it expands at
            for f2, l2, c2, r2, _ in diags[i + 1 :]:
                if r2.startswith(("error:", "fatal error:")):
                    break
                if f2 in users:
                    where = (f2, l2, c2)
                    break
        if where is not None:
            inside = file.startswith(ours)
            msg = f"{where[0]}:{where[1]}:{where[2] or 1}: {rest}" + (
                " (inside ascend_jax's kernel_operator.h -- the call's arguments do not fit the API as its "
                "page declares it)"
                if inside
                else ""
            )
        elif file.startswith(ours):
            msg = f"{src}: {rest} (inside ascend_jax's kernel_operator.h)"
        elif file == "<command-line>":
            msg = f"{src}: {rest} (in the text of a -D macro)"
        else:  # another file of the user's
            msg = f"{file}:{line}:{col or 1}: {rest}" if line else f"{file}: {rest}"
        if msg not in seen:
            seen.add(msg)
            out.append(msg)
    if not any(m.startswith(tuple(users)) for m in out):  # nothing mapped: the compiler's text
        out += [ln for ln in lines if ours not in ln][:40]
    more = f"\n... ({len(out) - 12} more)" if len(out) > 12 else ""
    return f"C++ compile error in {source}:\n" + "\n".join(out[:12]) + more
