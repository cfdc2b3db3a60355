"""The vendor samples ported into ops/ against the vendor's own goldens.

For each ported (sample, scenario): the vendor ``scripts/gen_data.py`` runs in a temporary folder
once per NumPy seed (one sub-folder each, the vendor layout ``input/*.bin`` + ``output/golden.bin``),
``ascend-jax run OP --scenario N --cases DIR`` runs every seed in one batched program and writes
``output/output.bin`` next to each golden, and the output is compared with the golden with the
tolerance the vendor ``verify_result.py`` applies (re-implemented here; the script is not
imported) -- and bit for bit, since these goldens are exact.
"""

import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

from ascend_jax import cli

REPO = pathlib.Path(__file__).resolve().parents[1]
SAMPLES = REPO.parent / "shared" / "spec" / "vendor-samples"
SEEDS = (0, 1, 2, 3, 4)

# verify_result.py of every ported sample: np.isclose(rtol=1e-6, atol=1e-9, equal_nan=True) per
# element, pass when the share of differing elements is <= 1e-4.
RTOL, ATOL, ERROR_TOL = 1e-6, 1e-9, 1e-4

# (op, scenario, gen_data.py's scenario flag, output dtype, elements verify_result.py compares)
PORTED = [
    ("vendor_select", 1, "-scenario_num", np.float32, slice(None)),
    ("vendor_select", 2, "-scenario_num", np.float32, slice(None)),
    ("vendor_select", 3, "-scenario_num", np.float32, slice(None)),
    ("vendor_select", 4, "-scenario_num", np.float32, slice(None)),
    ("vendor_compare", 1, "-scenario_num", np.uint8, slice(None)),
    ("vendor_compare", 2, "-scenario_num", np.uint8, slice(0, 8)),
    ("vendor_compare", 3, "-scenario_num", np.uint8, slice(None)),
    ("vendor_compare", 4, "-scenario_num", np.uint8, slice(None)),
    ("vendor_gather", 1, "-scenario_num", np.uint32, slice(0, 128)),
    ("vendor_gather", 2, "-scenario_num", np.uint32, slice(None)),
    ("vendor_gather", 3, "-scenario_num", np.uint16, slice(None)),
    ("vendor_gather", 4, "-scenario_num", np.uint16, slice(None)),
    ("vendor_element_wise_logic", 1, "-scenarioNum", np.uint16, slice(None)),
    ("vendor_element_wise_logic", 2, "-scenarioNum", np.uint16, slice(None)),
    ("vendor_element_wise_logic", 3, "-scenarioNum", np.uint16, slice(None)),
    ("vendor_element_wise_logic", 4, "-scenarioNum", np.uint16, slice(None)),
    ("vendor_duplicate", 1, "-scenarioNum", np.float16, slice(None)),
    ("vendor_element_wise_arithmetic", 1, "-scenarioNum", np.float16, slice(None)),
    ("vendor_create_vec_index", 1, "-scenarioNum", np.int16, slice(None)),
    ("vendor_add_tpipe_tque", 1, "-scenarioNum", np.float32, slice(None)),
    ("vendor_reduce_pair_elem", 1, "-scenarioNum", np.float16, slice(None)),  # gen_data.py takes no flag
    ("vendor_reduce_data_block", 1, "-scenarioNum", np.float16, slice(None)),
    ("vendor_reduce_data_block", 2, "-scenarioNum", np.float16, slice(None)),
    ("vendor_reduce_data_block", 3, "-scenarioNum", np.float32, slice(None)),
    ("vendor_reduce_repeat", 1, "-scenarioNum", np.float16, slice(None)),
    ("vendor_reduce_repeat", 2, "-scenarioNum", np.float16, slice(None)),
    ("vendor_reduce_computation", 1, "-scenarioNum", np.float16, slice(None)),
    ("vendor_reduce_computation", 2, "-scenarioNum", np.float16, slice(None)),
    ("vendor_reduce_computation", 3, "-scenarioNum", np.float16, slice(None)),
    ("vendor_reduce_computation", 4, "-scenarioNum", np.float16, slice(None)),
    ("vendor_reduce_computation", 5, "-scenarioNum", np.float16, slice(None)),
    ("vendor_reduce_computation", 6, "-scenarioNum", np.float16, slice(None)),
    ("vendor_cast", 0, "-scenarioNum", np.int32, slice(None)),  # int4b_t; verify_result.py reads int32
    ("vendor_cast", 1, "-scenarioNum", np.int32, slice(None)),
    ("vendor_brcb", 1, "-scenarioNum", np.uint16, slice(None)),  # gen_data.py ignores its arguments
    ("vendor_element_wise_compound_compute", 1, "-scenarioNum", np.float16, slice(None)),
    ("vendor_element_wise_compound_compute", 2, "-scenarioNum", np.float16, slice(None)),
    ("vendor_mrg_sort", 1, "-scenarioNum", np.float32, slice(None)),
    ("vendor_mrg_sort", 2, "-scenarioNum", np.float32, slice(None)),
    ("vendor_mrg_sort", 3, "-scenarioNum", np.float32, slice(None)),
    ("vendor_region_proposal_sort", 1, "-scenarioNum", np.float16, slice(None)),  # gen_data.py takes no flag
    ("vendor_transpose", 1, "-scenario_num", np.float16, slice(None)),
    ("vendor_transpose", 2, "-scenario_num", np.float16, slice(None)),
    ("vendor_transpose", 3, "-scenario_num", np.float16, slice(None)),
]

# samples / scenarios waiting for an unmodelled API (op, scenario, API named in the error)
PENDING = []


# Every port carries its sample's SetFlag/WaitFlag/PipeBarrier calls (issue 31 item 6). A scenario
# whose sample is itself racy per the model's rules lists the finding in its module's
# KNOWN_FINDINGS (kept faithful, not fixed): `ascend-jax run --findings report` prints it without
# failing, so those goldens stay checked; every other scenario must run clean (exit 0).
def _findings_flag(op, n):
    import ops

    return ["--findings", "report"] if n in getattr(ops.VENDOR_OPS[op], "KNOWN_FINDINGS", {}) else []


def _sample_of(op):
    import ops

    return ops.VENDOR_OPS[op].SAMPLE


def gen_cases(sample, flag, n, root, seeds=SEEDS):
    """Run the vendor gen_data.py once per seed in ``root/seed<S>`` (one Python process)."""
    script = SAMPLES / sample / "scripts" / "gen_data.py"
    dirs = [root / f"seed{s}" for s in seeds]
    for d in dirs:
        d.mkdir(parents=True)
    code = (
        "import os, runpy, sys\nimport numpy as np\n"
        f"for s, d in {[(s, str(d)) for s, d in zip(seeds, dirs, strict=True)]!r}:\n"
        "    os.chdir(d)\n    np.random.seed(s)\n"
        f"    sys.argv = [{str(script)!r}, '{flag}={n}']\n"
        f"    runpy.run_path({str(script)!r}, run_name='__main__')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=300)
    return dirs


def verify(output, golden):
    """verify_result.py's rule: the share of not-isclose elements is at most ERROR_TOL."""
    close = np.isclose(output, golden, rtol=RTOL, atol=ATOL, equal_nan=True)
    return np.count_nonzero(~close) / golden.size <= ERROR_TOL


@pytest.fixture(autouse=True)
def _no_xla_cache(monkeypatch):
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")


@pytest.mark.parametrize("op,n,flag,dtype,part", PORTED, ids=[f"{p[0]}-s{p[1]}" for p in PORTED])
def test_vendor_golden(shared_dir, tmp_path, capsys, op, n, flag, dtype, part):
    sample = _sample_of(op)
    dirs = gen_cases(sample, flag, n, tmp_path)
    args = ["run", op, "--scenario", str(n), "--cases", str(tmp_path)] + _findings_flag(op, n)
    assert cli.main(args) == 0, capsys.readouterr().err
    inputs = []
    for d in dirs:
        out = np.fromfile(d / "output" / "output.bin", dtype)
        gold = np.fromfile(d / "output" / "golden.bin", dtype)
        assert out.size == gold.size, d
        assert verify(out[part], gold[part]), f"{op} scenario {n} {d.name}: fails the vendor tolerance"
        bits = np.dtype(f"u{np.dtype(dtype).itemsize}")
        np.testing.assert_array_equal(out[part].view(bits), gold[part].view(bits), err_msg=f"{d.name}")
        ins = sorted((d / "input").glob("*.bin"))  # create_vec_index has no input
        inputs.append(np.fromfile(ins[0], np.uint8) if ins else None)
    if op in ("vendor_select", "vendor_compare"):  # random inputs: the seeds gave distinct cases
        assert len({x.tobytes() for x in inputs}) == len(SEEDS)


# Ported scenarios whose golden is not bit-exact: the vendor gen_data.py sums with np.sum (NumPy's
# 8-accumulator pairwise order), the pages' ReduceRepeat<SUM> adds adjacent pairs in a tree; the
# vendor tolerance holds, the bits differ in a few elements (docs/MODEL.md "Reductions").
TOLERANCE_ONLY = [
    ("vendor_reduce_repeat", 3, "-scenarioNum", np.float32, slice(None)),
    ("vendor_reduce_repeat", 4, "-scenarioNum", np.float32, slice(None)),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "op,n,flag,dtype,part", TOLERANCE_ONLY, ids=[f"{p[0]}-s{p[1]}" for p in TOLERANCE_ONLY]
)
def test_vendor_golden_tolerance_only(shared_dir, tmp_path, capsys, op, n, flag, dtype, part):
    dirs = gen_cases(_sample_of(op), flag, n, tmp_path)
    args = ["run", op, "--scenario", str(n), "--cases", str(tmp_path)] + _findings_flag(op, n)
    assert cli.main(args) == 0, capsys.readouterr().err
    for d in dirs:
        out = np.fromfile(d / "output" / "output.bin", dtype)
        gold = np.fromfile(d / "output" / "golden.bin", dtype)
        assert verify(out[part], gold[part]), f"{op} scenario {n} {d.name}: fails the vendor tolerance"


def test_reduce_sample_host_reads_4096_floats(shared_dir, tmp_path, capsys):
    """vendor ``reduce``: gen_data.py writes 2048 ones and golden[0] = 2048, the host reads 4096 floats
    (tiling {4096, 32}) into a buffer the file fills half of; with the other half zero the port's two
    Counter-mode ReduceRepeat<SUM> passes give the golden bit for bit."""
    (d,) = gen_cases("reduce", "-scenarioNum", 1, tmp_path, seeds=(0,))
    x = np.zeros(4096, np.float32)
    x[:2048] = np.fromfile(d / "input" / "input_x.bin", np.float32)
    x.tofile(d / "input" / "input_x.bin")
    assert cli.main(["run", "vendor_reduce", "--cases", str(tmp_path)]) == 0, capsys.readouterr().err
    out = np.fromfile(d / "output" / "output.bin", np.float32)
    gold = np.fromfile(d / "output" / "golden.bin", np.float32)
    np.testing.assert_array_equal(out.view(np.uint32), gold.view(np.uint32))


def _other_products():
    """(op, scenario, ..., profile) for every product the sample's README lists besides the
    scenario's default one; 950-only scenarios (default profile ascend950) run only there."""
    import ops

    out = []
    for row in PORTED:
        mod = ops.VENDOR_OPS[row[0]]
        if mod.PROFILES[row[1]] == "ascend950":
            continue
        out += [row + (p,) for p in mod.PRODUCTS if p != mod.PROFILES[row[1]]]
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    "op,n,flag,dtype,part,profile",
    _other_products(),
    ids=[f"{p[0]}-s{p[1]}-{p[5]}" for p in _other_products()],
)
def test_vendor_golden_other_products(shared_dir, tmp_path, capsys, op, n, flag, dtype, part, profile):
    dirs = gen_cases(_sample_of(op), flag, n, tmp_path)
    args = ["run", op, "--scenario", str(n), "--cases", str(tmp_path), "--profile", profile] + _findings_flag(
        op, n
    )
    assert cli.main(args) == 0, capsys.readouterr().err
    bits = np.dtype(f"u{np.dtype(dtype).itemsize}")
    for d in dirs:
        out = np.fromfile(d / "output" / "output.bin", dtype)
        gold = np.fromfile(d / "output" / "golden.bin", dtype)
        assert verify(out[part], gold[part])
        np.testing.assert_array_equal(out[part].view(bits), gold[part].view(bits), err_msg=f"{d.name}")


def test_gather_scenario1_tail_keeps_src0(shared_dir, tmp_path, capsys):
    """vendor_gather scenario 1 writes 128 kept elements in place over src0; elements 128..255 of
    the copied-out tensor are src0's own (the vendor golden has zeros there, unchecked by its
    verify_result.py); the kernel returns rsvdCnt = 128."""
    (d,) = gen_cases("gather", "-scenario_num", 1, tmp_path, seeds=(0,))
    assert (
        cli.main(
            ["run", "vendor_gather", "--scenario", "1", "--cases", str(tmp_path), "--findings", "report"]
        )
        == 0
    )
    assert "kernel returned np.int32(128)" in capsys.readouterr().out
    out = np.fromfile(d / "output" / "output.bin", np.uint32)
    x = np.fromfile(d / "input" / "input_x.bin", np.uint32)
    np.testing.assert_array_equal(out[:128], x[1::2])
    np.testing.assert_array_equal(out[128:], x[128:])


@pytest.mark.parametrize("op,n,api", PENDING, ids=[f"{p[0]}-s{p[1]}" for p in PENDING])
def test_pending_scenarios_say_what_is_missing(tmp_path, capsys, op, n, api):
    assert cli.main(["run", op, "--scenario", str(n), "--input", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"scenario {n}" in err and api in err


def test_every_vendor_sample_is_ported_or_listed_pending(shared_dir):
    """ops/README.md names every vendor sample, either as a port or in the pending table."""
    text = (REPO / "ops" / "README.md").read_text()
    section = text[text.index("## Vendor samples") :]
    names = sorted(p.name for p in SAMPLES.iterdir() if p.is_dir())
    assert len(names) >= 20  # the issue says 20; the folder holds 21 (19 memory-vector samples)
    for name in names:
        assert re.search(rf"`{re.escape(name)}`", section), f"vendor sample {name} not in ops/README.md"


def test_add_sample_host_golden(tmp_path, capsys):
    """vendor ``add`` (no gen_data.py / verify_result.py): its host code's inputs and exact golden,
    through ``ascend-jax run`` in the vendor file layout; bit for bit, as ``std::equal`` checks."""
    from ops import vendor_add

    x, y = vendor_add.host_inputs()
    (tmp_path / "input").mkdir()
    x.tofile(tmp_path / "input" / "input_x.bin")
    y.tofile(tmp_path / "input" / "input_y.bin")
    out_dir = tmp_path / "output"
    rc = cli.main(["run", "vendor_add", "--input", str(tmp_path / "input"), "--output", str(out_dir)])
    assert rc == 0, capsys.readouterr().err
    out = np.fromfile(out_dir / "output.bin", np.float32)
    gold = vendor_add.host_golden(x, y)
    np.testing.assert_array_equal(out.view(np.uint32), gold.view(np.uint32))
    assert x[1] == np.float32(0.1) and gold[-1] == np.float32(x[-1] + y[-1])
