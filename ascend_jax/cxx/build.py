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


def rewrite_launches(src, filename="<source>"):
    """``(new_source, launches)``: every ``k<<<...>>>(...)`` rewritten (newlines kept); launches is
    a list of ``(kernel expression, line)``. A ``<<<`` the scanner cannot read raises CxxError. A
    launch of a ``__cube__`` kernel becomes ``ascendjax_cube_launch(...)``: the run stops there
    with NotModelledError (the AI Cube core, L1/L0 and Mmad are outside the model)."""
    masked = _mask_comments_strings(src)
    cubes = cube_kernels(masked)
    edits = []  # (start, end, replacement)
    launches = []
    pos = 0
    while True:
        i = masked.find("<<<", pos)
        if i < 0:
            break
        line = masked.count("\n", 0, i) + 1
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


def build(source, profile, defines=(), cxx=None):
    """Compile ``source`` (a path) for ``profile`` with ``defines`` (``NAME`` or ``NAME=VALUE``).
    Returns a ``Build``; CxxError with the compiler's messages on a compile error."""
    source = pathlib.Path(source).expanduser().resolve()
    if not source.is_file():
        raise CxxError(f"{source}: no such file")
    text = source.read_text(errors="replace")
    rewritten, launches = rewrite_launches(text, str(source))
    compiler = cxx or find_compiler()
    flags = [STD, "-O1", "-w", "-fno-strict-aliasing", f"-I{INCLUDE}", f"-I{source.parent}"]
    flags += profile_macros(profile)
    for d in defines:
        flags.append(f"-D{d}")
    key = hashlib.sha256()
    for part in (rewritten, str(source), compiler, " ".join(flags), _headers_digest()):
        key.update(part.encode())
        key.update(b"\0")
    digest = key.hexdigest()[:24]
    d = cache_dir()
    exe = d / f"{source.stem}-{digest}"
    if exe.is_file():
        return Build(exe, 0.0, True, launches, source)
    tmp_src = d / f"{source.stem}-{digest}.cpp"
    quoted = str(source).replace("\\", "\\\\").replace('"', '\\"')  # a string literal of the path
    tmp_src.write_text(f'#line 1 "{quoted}"\n' + rewritten)
    tmp_exe = d / f".{exe.name}.{os.getpid()}.tmp"
    t0 = time.perf_counter()
    proc = subprocess.run(
        [compiler, "-x", "c++", *flags, str(tmp_src), "-o", str(tmp_exe)],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        tmp_exe.unlink(missing_ok=True)
        raise CxxError(_compile_message(proc.stderr, source))
    os.replace(tmp_exe, exe)
    return Build(exe, seconds, False, launches, source)


_NOT_MEMBER = re.compile(r"['‘`]([A-Za-z_][A-Za-z_0-9]*)['’] is not a member of ['‘`]AscendC['’]")


def _compile_message(stderr, source):
    """The compiler's errors, the user's own file's lines first (header internals trimmed)."""
    lines = stderr.splitlines()
    missing = sorted(set(_NOT_MEMBER.findall(stderr)))
    if missing:
        names = ", ".join(f"AscendC::{n}" for n in missing)
        lines = [
            f"{names}: not an API ascend_jax models (`ascend-jax apis` lists the modelled ones)",
            *lines,
        ]
    user = [
        ln
        for ln in lines
        if (ln.startswith(str(source)) and (": error" in ln or ": fatal error" in ln)) or "not an API" in ln
    ]
    head = "\n".join(user[:10]) if user else ""
    body = "\n".join(lines[:60])
    more = f"\n... ({len(lines) - 60} more lines)" if len(lines) > 60 else ""
    return f"C++ compile error in {source}:\n{head or body}" + (
        f"\n\ncompiler output:\n{body}{more}" if head else ""
    )
