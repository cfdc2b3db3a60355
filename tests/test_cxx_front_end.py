"""The C++ front end (ascend_jax/cxx): the generated headers, the launch rewrite, and each error a C++
user can meet -- no compiler, a syntax error, an unmodelled API, a misused API, a host program that
crashes, never launches or finds no input -- plus a value read back into C++ and ``--cases N``.

The tests that build C++ need g++ (or clang++); without one they fail with the front end's own
message naming what to install (they are not skipped).
"""

import os
import pathlib
import shutil

import numpy as np
import pytest

from ascend_jax import cli
from ascend_jax.cxx import build as B
from ascend_jax.cxx import gen_header

KERNEL = pathlib.Path(__file__).parent / "data" / "cxx" / "scale.asc"


@pytest.fixture
def work(tmp_path, monkeypatch):
    """A folder outside the repo with the test kernel and input/x.bin; the build cache inside it."""
    monkeypatch.setenv("ASCEND_JAX_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")
    shutil.copy(KERNEL, tmp_path / "scale.asc")
    (tmp_path / "input").mkdir()
    x = np.random.default_rng(0).uniform(-5, 5, 256).astype(np.float32)
    x.tofile(tmp_path / "input" / "x.bin")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(work, *extra):
    return cli.main(["run", str(work / "scale.asc"), *extra])


def test_generated_headers_are_up_to_date():
    assert gen_header.main(["--check"]) == 0, "run: python -m ascend_jax.cxx.gen_header"


def test_launch_rewrite_keeps_lines():
    src = (
        "int main() {\n"
        "  // k<<<1, 2, 3>>>(no) in a comment\n"
        '  const char* s = "a<<<b>>>(c)";\n'
        "  add_custom<float, sizeof(int)><<<numBlocks, 0,\n"
        "      stream>>>(x, y,\n   z);\n"
        "  other<<<1, nullptr, s>>>();\n"
        "}\n"
    )
    out, launches = B.rewrite_launches(src, "t.asc")
    assert out.count("\n") == src.count("\n")
    assert launches == [("add_custom<float, sizeof(int)>", 4), ("other", 7)]
    assert (
        'ascendjax_launch("add_custom<float, sizeof(int)>", 4, add_custom<float, sizeof(int)>, numBlocks'
        in out
    )
    assert 'ascendjax_launch("other", 7, other, 1, nullptr, s)' in out
    assert "k<<<1, 2, 3>>>(no)" in out and '"a<<<b>>>(c)"' in out


def test_launch_rewrite_errors_name_the_line():
    with pytest.raises(B.CxxError, match=r"t\.asc:2: .*blocks, ubuf, stream"):
        B.rewrite_launches("\nk<<<1>>>(x);\n", "t.asc")


def test_user_kernel_outside_the_repo(work, capsys):
    assert run(work, "-D", "KERNEL_EXTRA=") == 0, capsys.readouterr().err
    x = np.fromfile(work / "input" / "x.bin", np.float32)
    z = np.fromfile(work / "output" / "z.bin", np.float32)
    assert np.array_equal(z.view(np.uint32), (x * np.float32(2) + np.float32(1)).view(np.uint32))
    err = capsys.readouterr().err
    assert "built scale.asc" in err and "launch scale_custom (line 48), 1 blocks, 17 calls" in err


SYNCED_READ = (
    "KERNEL_EXTRA=AscendC::SetFlag<AscendC::HardEvent::MTE2_S>(0); "
    "AscendC::WaitFlag<AscendC::HardEvent::MTE2_S>(0); float v = xl.GetValue(3); "
    "AscendC::SetFlag<AscendC::HardEvent::S_V>(0); AscendC::WaitFlag<AscendC::HardEvent::S_V>(0); "
    "AscendC::Adds(zl, zl, v, N);"
)


def test_value_read_back_into_cxx(work, capsys):
    extra = SYNCED_READ
    assert run(work, "-D", extra) == 0, capsys.readouterr().err
    x = np.fromfile(work / "input" / "x.bin", np.float32)
    z = np.fromfile(work / "output" / "z.bin", np.float32)
    assert np.array_equal(z, x * np.float32(2) + np.float32(1) + x[3])


BRANCH_ON_READ = SYNCED_READ.replace(
    "AscendC::Adds(zl, zl, v, N);",
    "if (v > 0) { AscendC::Adds(zl, zl, v, N); } else { AscendC::Muls(zl, zl, v, N); }",
)


def test_cases_n_with_a_value_read_back_run_each_case_on_its_own(work, capsys):
    """A value read back into C++ steers a branch: the trace of one input does not hold for
    another, so --cases reruns the kernel's C++ per case (issue 32 item 3) -- every case exact."""
    assert run(work, "-D", BRANCH_ON_READ, "--cases", "6", "--seed", "5") == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    assert "7 cases" in err and "per case" in err
    cases = sorted((work / "output" / "cases").iterdir())
    assert len(cases) == 6
    signs = set()
    for c in [work, *cases]:
        x = np.fromfile(c / "input" / "x.bin", np.float32)
        z = np.fromfile(c / "output" / "z.bin", np.float32)
        y = x * np.float32(2) + np.float32(1)
        v = x[3]
        want = y + v if v > 0 else y * v
        assert np.array_equal(z.view(np.uint32), want.view(np.uint32)), c
        signs.add(bool(v > 0))
    assert signs == {True, False}  # both branches ran


def test_race_in_cxx_is_reported_with_its_lines(work, capsys):
    """The same read without its MTE2_S flag pair: the compiler's auto-sync inserts it (the
    default, as for a <<<>>> build); built with --cce-auto-sync=off (``--auto-sync off``) the
    model's racecheck names both C++ lines, the loop's four pairs of calls printed as one line."""
    extra = (
        "KERNEL_EXTRA=float v = 0; for (int i = 0; i < 4; i++) { v += xl.GetValue(i); } "
        "AscendC::Adds(zl, zl, v, N);"
    )
    assert run(work, "-D", extra) == 0, capsys.readouterr().err
    assert run(work, "-D", extra, "--auto-sync", "off") == 1
    err = capsys.readouterr().err
    races = [ln for ln in err.splitlines() if "racecheck: error:" in ln]
    assert len(races) == 1, err
    assert "racecheck: error: RAW on UB bytes [0, 4)" in races[0] and races[0].endswith(
        " x4 (4 alike on these source lines; the first shown)"
    )
    assert "DataCopy (PIPE_MTE2) at scale.asc:20" in err and "GetValue (PIPE_S) at scale.asc:26" in err
    assert run(work, "-D", extra, "--auto-sync", "off", "--findings", "report") == 0


def test_cases_n_one_program(work, capsys):
    assert run(work, "-D", "KERNEL_EXTRA=", "--cases", "5", "--seed", "3") == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    assert "6 cases: compile" in err and "cases/s" in err
    cases = sorted((work / "output" / "cases").iterdir())
    assert len(cases) == 5
    assert [c.name for c in cases] == [f"case_{i:05d}" for i in range(1, 6)]
    for c in cases:  # under the names the host's ReadFile / WriteFile use
        x = np.fromfile(c / "input" / "x.bin", np.float32)
        z = np.fromfile(c / "output" / "z.bin", np.float32)
        assert np.array_equal(z, x * np.float32(2) + np.float32(1))
    xs = [np.fromfile(c / "input" / "x.bin", np.float32) for c in cases]
    assert not np.array_equal(xs[0], xs[1])


def test_no_compiler(work, monkeypatch, capsys):
    monkeypatch.setenv("CXX", "no-such-compiler-ascend-jax")
    assert run(work, "-D", "KERNEL_EXTRA=") == 2
    assert "$CXX='no-such-compiler-ascend-jax' is not an executable" in capsys.readouterr().err
    monkeypatch.delenv("CXX")
    monkeypatch.setenv("PATH", str(work / "empty"))
    assert run(work, "-D", "KERNEL_EXTRA=") == 2
    assert "needs g++ (>= 10) or clang++" in capsys.readouterr().err


def test_syntax_error_names_the_users_line(work, capsys):
    assert run(work, "-D", "KERNEL_EXTRA=int oops = ;") == 2
    err = capsys.readouterr().err
    assert "C++ compile error" in err and f"{work / 'scale.asc'}:26:" in err


def test_unmodelled_api(work, capsys):
    assert run(work, "-D", "KERNEL_EXTRA=AscendC::Frobnicate(zl, xl, N);") == 2
    assert "AscendC::Frobnicate: not an API ascend_jax models" in capsys.readouterr().err


def test_misused_api_names_the_cxx_line(work, capsys):
    assert run(work, "-D", "KERNEL_EXTRA=AscendC::Add(zl, xl, 3.0f, N);") == 2
    err = capsys.readouterr().err
    assert (
        "scale.asc:26: AscendC::Add(LocalTensor<float>[256]@UB+1024, LocalTensor<float>[256]@UB+0, (float)3.0"
        in err
    )
    assert "UsageError: Add: src1='float' is not allowed" in err


def test_host_program_crashes(work, capsys):
    assert run(work, "-D", "KERNEL_EXTRA=", "-D", "CRASH") == 2
    assert "the host program of scale.asc crashed (SIGSEGV)" in capsys.readouterr().err


def test_host_program_never_launches(work, capsys):
    assert run(work, "-D", "KERNEL_EXTRA=", "-D", "NO_LAUNCH") == 2
    assert "exited (status 0) without launching a kernel" in capsys.readouterr().err


def test_missing_input(work, capsys):
    os.remove(work / "input" / "x.bin")
    assert run(work, "-D", "KERNEL_EXTRA=") == 2
    assert (
        "could not read ./input/x.bin before launching scale_custom (line 48): run the sample's scripts/gen_data.py"
        in capsys.readouterr().err
    )


LONG_LOOP = KERNEL.parent / "long_loop.asc"


def test_trace_too_long_stops_at_the_call_budget(work, capsys):
    """A loop of 10^6 Adds under ``--max-calls 2000`` (a user's limit; none by default): the
    recorder stops at the budget and the run names the loop's line and its count, in seconds and
    without a huge trace."""
    import time

    t0 = time.perf_counter()
    assert cli.main(["run", str(LONG_LOOP), "--max-calls", "2000"]) == 2
    err = capsys.readouterr().err
    assert (
        "launch long_loop (line 37): the kernel made more than 2,000 calls (the call budget of one launch, "
        "--max-calls); long_loop.asc:23 (AscendC::Adds) alone made 1,994 of them (block 0)" in err
    ), err
    assert time.perf_counter() - t0 < 60
    assert cli.main(["run", str(LONG_LOOP), "--max-calls", "100"]) == 2
    assert "more than 100 calls" in capsys.readouterr().err
    # under the budget the same loop runs: x = 0 + 20 * 1
    assert cli.main(["run", str(LONG_LOOP), "-D", "LOOP_N=20"]) == 0, capsys.readouterr().err
    out = capsys.readouterr()
    assert "x[0] = 20" in out.out and "28 calls" in out.err


def test_cases_dir_reads_each_folders_files(work, capsys):
    """--cases DIR: each sub-folder's input/x.bin feeds the GM buffer the host's ReadFile +
    aclrtMemcpy fed; each case's output/z.bin is written under WriteFile's name; one program."""
    root = work / "sets"
    xs = {}
    for i, name in enumerate(("a", "b", "c")):
        (root / name / "input").mkdir(parents=True)
        xs[name] = np.random.default_rng(10 + i).uniform(-5, 5, 256).astype(np.float32)
        xs[name].tofile(root / name / "input" / "x.bin")
    assert run(work, "-D", "KERNEL_EXTRA=", "--cases", str(root)) == 0, capsys.readouterr().err
    assert "3 cases: compile" in capsys.readouterr().err
    for name, x in xs.items():
        z = np.fromfile(root / name / "output" / "z.bin", np.float32)
        assert np.array_equal(z, x * np.float32(2) + np.float32(1)), name
    os.remove(root / "b" / "input" / "x.bin")
    assert run(work, "-D", "KERNEL_EXTRA=", "--cases", str(root)) == 2
    assert "--cases: case b: no " in capsys.readouterr().err


ND2NZ = (
    "KERNEL_EXTRA=AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(0); "
    "AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(0); "
    "AscendC::Nd2NzParams p; p.ndNum = 1; p.nValue = 16; p.dValue = 16; p.srcNdMatrixStride = 0; "
    "p.srcDValue = 16; p.dstNzC0Stride = 16; p.dstNzNStride = 1; p.dstNzMatrixStride = 0; "
    "AscendC::DataCopy(zl, xGm, p); "
    "AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(0); AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(0);"
)


def test_nd2nz_struct_from_cxx(work, capsys):
    """A C++ kernel filling an Nd2NzParams field by field (issue 33 item 2): z is x (16 x 16 floats)
    in NZ: C0 = 8 floats, the two column groups 16 blocks apart, a row a block."""
    assert run(work, "-D", ND2NZ) == 0, capsys.readouterr().err
    x = np.fromfile(work / "input" / "x.bin", np.float32).reshape(16, 16)
    z = np.fromfile(work / "output" / "z.bin", np.float32).reshape(2, 16, 8)
    for g in range(2):
        assert np.array_equal(z[g].view(np.uint32), x[:, g * 8 : g * 8 + 8].view(np.uint32)), g


LOOP = (
    "KERNEL_EXTRA=AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(0); "
    "AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(0); "
    "AscendC::LoopModeParams lp{2, 1, 512, 512, 0, 0}; "
    "AscendC::SetLoopModePara(lp, AscendC::DataCopyMVType::OUT_TO_UB); "
    "AscendC::DataCopy(zl, xGm, 128); "
    "AscendC::ResetLoopModePara(AscendC::DataCopyMVType::OUT_TO_UB); "
    "AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(0); AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(0);"
)


def test_loop_mode_from_cxx(work, capsys):
    """SetLoopModePara from C++ (950): a 128-float DataCopy run twice, 512 bytes on, copies all of x."""
    assert run(work, "-D", LOOP, "--profile", "ascend950") == 0, capsys.readouterr().err
    x = np.fromfile(work / "input" / "x.bin", np.float32)
    z = np.fromfile(work / "output" / "z.bin", np.float32)
    assert np.array_equal(z.view(np.uint32), x.view(np.uint32))
