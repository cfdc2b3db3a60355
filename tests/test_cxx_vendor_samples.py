"""The vendor samples run from their own unmodified ``.asc`` through the C++ front end.

For each (sample, scenario) the Python ports run (``tests/test_vendor_samples.py``'s table): the
vendor ``scripts/gen_data.py`` writes the inputs (one folder per NumPy seed), ``ascend-jax run
sample.asc --scenario N`` builds the sample's own C++ against our headers and writes
``output/output.bin`` itself, which must pass the tolerance ``verify_result.py`` applies and equal
the Python port's output bit for bit. add_tpipe_tque and add run in the default suite; every other
scenario (and five seeds each) is ``slow``.
"""

import pathlib
import subprocess
import sys

import numpy as np
import pytest
import test_vendor_samples as V

import ops
from ascend_jax import cli

SAMPLES = V.SAMPLES
DEFAULT = {("vendor_add_tpipe_tque", 1)}
# Findings the model reports in the vendor's own C++ (the results are still exact): the run uses
# --findings report and the finding must be printed.
CXX_FINDINGS = {
    # 8 blocks, no per-block offset: every core writes the same 256 GM bytes (identical values)
    ("vendor_create_vec_index", 1): "memcheck: error: multi-core stomp on GM buffer 0 bytes [0, 256)",
}
# reduce_computation s5 (SetValue, then DataCopy UB -> GM with no S_MTE3 flag of its own) is clean:
# the compiler's auto-sync, on for a <<<>>> build, inserts S_MTE3 (its Python port, a kernel bisheng
# does not compile, still reports the RAW: test_vendor_samples.KNOWN_FINDINGS)


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")
    monkeypatch.setenv("ASCEND_JAX_CACHE", str(tmp_path / "cache"))


def _check(tmp_path, capsys, op, n, flag, dtype, part, seeds):
    mod = ops.VENDOR_OPS[op]
    sample = mod.SAMPLE
    dirs = V.gen_cases(sample, flag, n, tmp_path / "cases", seeds=seeds)
    # the Python port, every seed in one batched program
    py_out = tmp_path / "port"
    port_args = ["run", op, "--scenario", str(n), "--cases", str(tmp_path / "cases"), "--output", str(py_out)]
    port_args += V._findings_flag(op, n)  # the scenarios with KNOWN_FINDINGS
    assert cli.main(port_args) == 0, capsys.readouterr().err
    src = SAMPLES / sample / f"{sample}.asc"
    for d in dirs:
        args = ["run", str(src), "--scenario", str(n), "--profile", mod.PROFILES[n]]
        args += ["--input", str(d / "input"), "--output", str(d / "output")]
        finding = CXX_FINDINGS.get((op, n))
        if finding:
            args += ["--findings", "report"]
        assert cli.main(args) == 0, capsys.readouterr().err
        if finding:
            assert finding in capsys.readouterr().err
        out = np.fromfile(d / "output" / "output.bin", np.uint8)
        golden = np.fromfile(d / "output" / "golden.bin", dtype)
        assert V.verify(out.view(dtype)[part], golden[part]), (
            f"{op} s{n} {d.name}: outside the vendor tolerance"
        )
        port = np.fromfile(py_out / d.name / "output.bin", np.uint8)
        assert np.array_equal(out, port), f"{op} s{n} {d.name}: C++ and Python port differ"
    return dirs


PARAMS = [
    pytest.param(*p, marks=() if (p[0], p[1]) in DEFAULT else pytest.mark.slow, id=f"{p[0]}-s{p[1]}")
    for p in V.PORTED
]


@pytest.mark.parametrize("op,n,flag,dtype,part", PARAMS)
def test_vendor_sample_from_cxx(tmp_path, capsys, op, n, flag, dtype, part):
    seeds = (0,) if (op, n) in DEFAULT else V.SEEDS
    _check(tmp_path, capsys, op, n, flag, dtype, part, seeds)


def test_add_tpipe_tque_own_verify_script(tmp_path, capsys):
    """The sample's own verify_result.py on the C++ run's output."""
    (d,) = _check(tmp_path, capsys, "vendor_add_tpipe_tque", 1, "-scenarioNum", np.float32, slice(None), (1,))
    script = SAMPLES / "add_tpipe_tque" / "scripts" / "verify_result.py"
    r = subprocess.run(
        [sys.executable, str(script), "output/output.bin", "output/golden.bin"],
        cwd=d,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and "test pass" in r.stdout, r.stdout + r.stderr


def test_add_sample_checks_itself(tmp_path, capsys):
    """add.asc has no scripts: its host code fills x, y, launches 8 blocks and compares with
    x + y exactly (std::equal); exit status 0 means its own check passed."""
    src = pathlib.Path(SAMPLES / "add" / "add.asc")
    (tmp_path / "in").mkdir()  # the output folder apart from the input folder (both refused otherwise)
    assert (
        cli.main(["run", str(src), "--input", str(tmp_path / "in"), "--output", str(tmp_path / "out")]) == 0
    )
    captured = capsys.readouterr()
    assert "test pass!" in captured.out, captured.out + captured.err
    assert "launch add_custom<blockLength> (line 94), 8 blocks, " in captured.err


@pytest.mark.slow
def test_add_tpipe_tque_cases_dir_one_program(tmp_path, capsys):
    """``--cases DIR`` on the sample's own C++: each seed folder's input/input_x.bin and input_y.bin
    feed the GM buffers the host's ReadFile + aclrtMemcpy fed, the whole set runs in one compiled
    program, and each folder's output/output.bin (WriteFile's name) equals the Python port's."""
    op, n = "vendor_add_tpipe_tque", 1
    dirs = V.gen_cases("add_tpipe_tque", "-scenarioNum", n, tmp_path / "cases", seeds=(0, 1, 2))
    port = tmp_path / "port"
    assert (
        cli.main(["run", op, "--scenario", "1", "--cases", str(tmp_path / "cases"), "--output", str(port)])
        == 0
    )
    src = SAMPLES / "add_tpipe_tque" / "add_tpipe_tque.asc"
    assert cli.main(["run", str(src), "--cases", str(tmp_path / "cases")]) == 0, capsys.readouterr().err
    assert "3 cases: compile" in capsys.readouterr().err
    for d in dirs:
        out = np.fromfile(d / "output" / "output.bin", np.uint8)
        assert np.array_equal(out, np.fromfile(port / d.name / "output.bin", np.uint8)), d.name
        golden = np.fromfile(d / "output" / "golden.bin", np.float32)
        assert V.verify(out.view(np.float32), golden)


# The remaining scenarios of the 50: bit-exact against the Python port, the vendor tolerance
# against the golden (reduce_repeat 3/4 are tolerance-only goldens), the 950 interleave_pair
# sample (two output files) on ascend950, and ``reduce`` (its host reads 4096 floats of a
# 2048-float file: padded with zeros as in test_vendor_samples).
OTHER = [
    ("vendor_reduce_repeat", 3, "-scenarioNum", np.float32, ("output.bin",)),
    ("vendor_reduce_repeat", 4, "-scenarioNum", np.float32, ("output.bin",)),
    ("vendor_interleave_pair", 1, "-scenarioNum", np.float16, ("output_dst0.bin", "output_dst1.bin")),
    ("vendor_interleave_pair", 2, "-scenarioNum", np.float16, ("output_dst0.bin", "output_dst1.bin")),
    ("vendor_reduce", 1, "-scenarioNum", np.float32, ("output.bin",)),
]


@pytest.mark.slow
@pytest.mark.parametrize("op,n,flag,dtype,outs", OTHER, ids=[f"{p[0]}-s{p[1]}" for p in OTHER])
def test_other_vendor_scenarios_from_cxx(tmp_path, capsys, op, n, flag, dtype, outs):
    mod = ops.VENDOR_OPS[op]
    sample = mod.SAMPLE
    dirs = V.gen_cases(sample, flag, n, tmp_path / "cases")
    if op == "vendor_reduce":
        for d in dirs:
            x = np.zeros(4096, np.float32)
            x[:2048] = np.fromfile(d / "input" / "input_x.bin", np.float32)
            x.tofile(d / "input" / "input_x.bin")
    py_out = tmp_path / "port"
    port_args = ["run", op, "--scenario", str(n), "--cases", str(tmp_path / "cases"), "--output", str(py_out)]
    assert cli.main(port_args + V._findings_flag(op, n)) == 0, capsys.readouterr().err
    src = SAMPLES / sample / f"{sample}.asc"
    for d in dirs:
        args = ["run", str(src), "--scenario", str(n), "--profile", mod.PROFILES[n]]
        args += ["--input", str(d / "input"), "--output", str(d / "output")]
        assert cli.main(args) == 0, capsys.readouterr().err
        for name in outs:
            out = np.fromfile(d / "output" / name, np.uint8)
            gold = np.fromfile(d / "output" / name.replace("output", "golden"), dtype)
            assert V.verify(out.view(dtype)[: gold.size], gold), f"{op} s{n} {d.name} {name}"
            port = np.fromfile(py_out / d.name / name, np.uint8)
            assert np.array_equal(out, port), f"{op} s{n} {d.name} {name}: C++ and Python port differ"
