"""``ascend-jax run``: a user's kernel file outside the repo, the vendor .bin layout, --cases
batching, --diff, and the exit codes (0 ok, 1 fault / diff, 2 bad input, 3 internal error)."""

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import byok, cli

REPO = pathlib.Path(__file__).resolve().parents[1]

USER_KERNEL = textwrap.dedent(
    """
    import ascend_jax as aj

    N = 256


    @aj.gm_kernel(
        aj.GmArg("x", aj.int16, N, "in", file="input_x.bin"),
        aj.GmArg("z", aj.int16, N, "out", file="output.bin"),
    )
    def scale_add(k, x, z):
        ub = aj.LocalMemAllocator(k)
        xl = ub.Alloc(aj.int16, N)
        zl = ub.Alloc(aj.int16, N)
        k.DataCopy(xl, x, N)
        k.SetFlag(aj.HardEvent.MTE2_V, 0)
        k.WaitFlag(aj.HardEvent.MTE2_V, 0)
        k.Muls(zl, xl, 3, N)
        k.Adds(zl, zl, -7, N)
        k.SetFlag(aj.HardEvent.V_MTE3, 0)
        k.WaitFlag(aj.HardEvent.V_MTE3, 0)
        k.DataCopy(z, zl, N)


    def undeclared(k, x, z):
        pass


    @aj.gm_kernel(aj.GmArg("x", aj.int16, N), aj.GmArg("z", aj.int16, N, "out"))
    def broken(k, x, z):
        raise RuntimeError("a bug in the user's kernel")


    @aj.gm_kernel(aj.GmArg("x", aj.int16, N), aj.GmArg("z", aj.int16, N, "out"))
    def misaligned(k, x, z):
        ub = aj.LocalMemAllocator(k)
        xl = ub.Alloc(aj.int16, N)
        k.DataCopy(xl, x, N)
        k.Muls(xl[1], xl, 2, 128)  # dst 2 bytes past a 32-byte boundary: a MISALIGNED fault
        k.DataCopy(z, xl, N)
    """
)


def expected(x):
    # Muls then Adds on int16: exact products and sums, wrapped to int16 (values kept small here)
    return ((x.astype(np.int32) * 3) - 7).astype(np.int16)


@pytest.fixture(autouse=True)
def _no_xla_cache(monkeypatch):
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")


@pytest.fixture
def user_file(tmp_path):
    f = tmp_path / "elsewhere" / "my_kernels.py"
    f.parent.mkdir()
    f.write_text(USER_KERNEL)
    return f


def _inputs(folder, seed, n=256):
    folder.mkdir(parents=True, exist_ok=True)
    x = np.random.default_rng(seed).integers(-1000, 1000, n).astype(np.int16)
    x.tofile(folder / "input_x.bin")
    return x


def test_user_file_outside_the_repo_subprocess(tmp_path, user_file):
    """The installed entry point, run from a folder outside the repo on a kernel file there."""
    assert not user_file.resolve().is_relative_to(REPO)
    work = tmp_path / "work"
    x = _inputs(work / "input", 0)
    env = dict(os.environ, ASCEND_JAX_XLA_CACHE="off", PYTHONPATH=str(REPO))
    p = subprocess.run(
        [sys.executable, "-m", "ascend_jax.cli", "run", f"{user_file}:scale_add"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    out = np.fromfile(work / "output" / "output.bin", np.int16)
    np.testing.assert_array_equal(out.view(np.uint16), expected(x).view(np.uint16))


def test_module_level_gm_args(tmp_path, capsys):
    """GM_ARGS / PROFILE at module level declare every kernel function of the file."""
    f = tmp_path / "mod_decl.py"
    f.write_text(
        textwrap.dedent(
            """
            import ascend_jax as aj

            GM_ARGS = (aj.GmArg("a", aj.uint16, 128, "in"), aj.GmArg("b", aj.uint16, 128, "out"))
            PROFILE = "ascend950"


            def shr(k, a, b):
                t = k.alloc(aj.uint16, 128)
                k.DataCopy(t, a, 128)
                k.SetFlag(aj.HardEvent.MTE2_V, 0)
                k.WaitFlag(aj.HardEvent.MTE2_V, 0)
                k.ShiftRight(t, t, 3, 128)
                k.SetFlag(aj.HardEvent.V_MTE3, 0)
                k.WaitFlag(aj.HardEvent.V_MTE3, 0)
                k.DataCopy(b, t, 128)
            """
        )
    )
    inp = tmp_path / "in"
    inp.mkdir()
    a = np.random.default_rng(5).integers(0, 2**16, 128).astype(np.uint16)
    a.tofile(inp / "a.bin")
    assert cli.main(["run", f"{f}:shr", "--input", str(inp), "--output", str(tmp_path / "out")]) == 0
    np.testing.assert_array_equal(np.fromfile(tmp_path / "out" / "b.bin", np.uint16), a >> 3)


def test_cases_batched_and_diff(tmp_path, user_file, capsys):
    cases = tmp_path / "cases"
    xs = [_inputs(cases / f"c{i}" / "input", i) for i in range(3)]
    rc = cli.main(["run", f"{user_file}:scale_add", "--cases", str(cases)])
    assert rc == 0, capsys.readouterr().err
    for i, x in enumerate(xs):
        out = np.fromfile(cases / f"c{i}" / "output" / "output.bin", np.int16)
        np.testing.assert_array_equal(out, expected(x))
    # --output with --cases: one sub-folder per case
    assert (
        cli.main(["run", f"{user_file}:scale_add", "--cases", str(cases), "--output", str(tmp_path / "o")])
        == 0
    )
    assert (tmp_path / "o" / "c2" / "output.bin").is_file()
    # --diff against an "NPU" output folder: clean, then one element off
    npu = tmp_path / "npu"
    npu.mkdir()
    bad = expected(xs[0]).copy()
    bad.tofile(npu / "output.bin")
    args = [
        "run",
        f"{user_file}:scale_add",
        "--input",
        str(cases / "c0" / "input"),
        "--output",
        str(tmp_path / "m"),
    ]
    capsys.readouterr()
    assert cli.main(args + ["--diff", str(npu)]) == 0
    assert "0 of 256 int16 elements differ" in capsys.readouterr().out
    bad[17] ^= 1
    bad.tofile(npu / "output.bin")
    assert cli.main(args + ["--diff", str(npu)]) == 1
    out = capsys.readouterr().out
    assert "1 of 256 int16 elements differ" in out and "element 17" in out


def test_bad_inputs_exit_2(tmp_path, user_file, capsys):
    inp = tmp_path / "input"
    inp.mkdir()
    k = f"{user_file}:scale_add"
    # missing .bin
    assert cli.main(["run", k, "--input", str(inp), "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "missing input file" in err and "input_x.bin" in err and "int16[256] = 512 bytes" in err
    # wrong size
    np.zeros(100, np.int16).tofile(inp / "input_x.bin")
    assert cli.main(["run", k, "--input", str(inp), "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "wrong size" in err and "has 200 bytes" in err and "512 bytes" in err
    assert not (tmp_path / "o" / "output.bin").exists()
    # unknown op, missing function, undeclared kernel, missing file
    for target, words in [
        ("no_such_op", ["unknown kernel", "vendor_select"]),
        (f"{user_file}:nope", ["has no function 'nope'", "scale_add"]),
        (f"{user_file}:undeclared", ["declares no GM arguments", "aj.gm_kernel"]),
        (f"{tmp_path}/absent.py:f", ["does not exist"]),
    ]:
        assert cli.main(["run", target, "--input", str(inp)]) == 2, target
        err = capsys.readouterr().err
        assert all(w in err for w in words), (target, err)
    # a scenario the op does not define; --cases on an empty folder
    assert cli.main(["run", "vendor_select", "--scenario", "9", "--input", str(inp)]) == 2
    assert "allowed: 1, 2, 3, 4" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert cli.main(["run", k, "--cases", str(tmp_path / "empty")]) == 2
    assert "no sub-folders" in capsys.readouterr().err


def test_usage_error_exit_2_kernel_error_1_internal_error_exit_3(tmp_path, user_file, capsys, monkeypatch):
    inp = tmp_path / "input"
    _inputs(inp, 1)
    # a 950-only scenario forced onto 910B: the profile lacks ShiftLeft with a shift tensor
    np.zeros(512, np.uint16).tofile(inp / "input_src0.bin")
    np.zeros(512, np.uint16).tofile(inp / "input_src1.bin")
    rc = cli.main(
        [
            "run",
            "vendor_element_wise_logic",
            "--scenario",
            "3",
            "--profile",
            "ascend910b",
            "--input",
            str(inp),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2 and "ascend910b" in err, err
    (inp / "x.bin").write_bytes(np.zeros(256, np.int16).tobytes())
    # the user's kernel raising its own exception: the kernel's failure (exit 1), with its file:line
    assert cli.main(["run", f"{user_file}:broken", "--input", str(inp), "--output", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert "the kernel raised RuntimeError: a bug in the user's kernel" in err and f"{user_file.name}:" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    # an exception raised inside ascend_jax (a planted bug: Kernel.Muls calls None) is ours: exit 3
    monkeypatch.setattr(aj.api, "Muls", None)
    args = ["run", f"{user_file}:scale_add", "--input", str(inp), "--output", str(tmp_path / "o")]
    assert cli.main(args) == 3
    err = capsys.readouterr().err
    assert "internal error: TypeError" in err and "Traceback" not in err
    assert cli.main(args + ["--debug"]) == 3
    assert "Traceback" in capsys.readouterr().err


def test_fault_exit_1_outputs_still_written(tmp_path, user_file, capsys):
    inp = tmp_path / "input"
    inp.mkdir()
    x = np.arange(256, dtype=np.int16)
    x.tofile(inp / "x.bin")
    rc = cli.main(["run", f"{user_file}:misaligned", "--input", str(inp), "--output", str(tmp_path / "o")])
    cap = capsys.readouterr()
    assert rc == 1 and "recorded faults: MISALIGNED" in cap.err
    # the first faulting call named with the user's line (issue 47 item 9)
    assert (
        f"first fault: {user_file.resolve()}:" in cap.err and "hardware fault in Muls: MISALIGNED" in cap.err
    )
    # the faulting call is suppressed (docs/MODEL.md): z is x as copied in
    np.testing.assert_array_equal(np.fromfile(tmp_path / "o" / "z.bin", np.int16), x)


def test_declaration_is_usable_from_python():
    """The same declaration drives aj.jit_kernel directly (no files)."""
    from ops import vendor_select

    fn = vendor_select.scenario(2)
    assert [a.filename for a in fn.gm_args] == ["input_x.bin", "input_y.bin", "input_sel.bin", "output.bin"]
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 256)).astype(np.float32)
    y = rng.standard_normal((2, 8)).astype(np.float32)
    sel = rng.integers(0, 256, (2, 32)).astype(np.uint8)
    arrays = byok.gm_arrays(fn, {"x": x, "y": y, "sel": sel}, batch=2)
    res = aj.jit_kernel(fn, profile=fn.profile)(*arrays)
    bits = np.unpackbits(sel, axis=1, bitorder="little").astype(bool)
    want = np.where(bits, x, y[:, :1])
    np.testing.assert_array_equal(res.gm[3].view(np.uint32), want.view(np.uint32))
    with pytest.raises(ValueError, match="declared twice"):
        aj.gm_kernel(aj.GmArg("a", aj.int8, 1), aj.GmArg("a", aj.int8, 1, "out"))
    with pytest.raises(ValueError, match="nothing would be written"):
        aj.gm_kernel(aj.GmArg("a", aj.int8, 1))
