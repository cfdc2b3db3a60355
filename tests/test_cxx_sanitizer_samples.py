"""The five msSanitizer samples (../shared/spec/ascendc-docs/sync-multicore/sanitizer-samples/) run
from their own unmodified ``.asc`` through ``ascend-jax run`` (case picked by the host ``main``'s
argument, ``--arg``), and each planted defect is reported in the class the sample's README shows --
the same classes as the Python ports (ops/sanitizer_samples.py, tests/test_sync_checks.py):

* sample_racecheck: RAW in a block, RAW and WAR across the two blocks (racecheck.asc:34 / :35);
* sample_racecheck_advanced: ``pipeline`` WAW / RAW / WAR in one core (and the stable S -> MTE2 RAW
  on 2 blocks), ``cross-core`` the three across blocks 0 and 1 (the WAW as a multi-core stomp);
  ``cross-npu`` needs a second device: NotModelledError;
* sample_synccheck: "unpaired set_flag" from PIPE_V to PIPE_MTE2 at synccheck.asc:36;
* sample_memcheck_advanced: ``multi-core`` stomp, ``misaligned`` UB DMA (a fault), the three L1
  modes (``__cube__`` kernels: NotModelledError naming them), and the host-side ``illegal-free``,
  ``leak`` and ``unused`` (the stubs of aclrtMalloc / aclrtFree keep the call sites);
* 05_sanitizer/ms_sanitizer: correct as shipped (its own check prints "test pass!", no finding);
  the README's edits (applied to a copy) plant a RAW race, a misaligned DMA, an access past GM, an
  uninitialised GlobalTensor and a leak (``slow``: 8 blocks of 2,048 floats).
"""

import pathlib

import pytest

from ascend_jax import cli

ROOT = pathlib.Path(__file__).resolve().parents[2] / "shared" / "spec" / "ascendc-docs" / "sync-multicore"
SAN = ROOT / "sanitizer-samples"


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cxx_cache")  # one build per sample for the whole module


@pytest.fixture(autouse=True)
def _env(cache, monkeypatch, tmp_path):
    monkeypatch.setenv("ASCEND_JAX_CACHE", str(cache))
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")
    monkeypatch.chdir(tmp_path)


def run(capsys, src, *args):
    rc = cli.main(["run", str(src), *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_racecheck(capsys):
    rc, _, err = run(capsys, SAN / "sample_racecheck" / "racecheck.asc")
    assert rc == 1, err
    a, b = "SetValue (PIPE_S) at racecheck.asc:34", "DataCopy (PIPE_MTE2) at racecheck.asc:35"
    assert f"racecheck: error: RAW on GM buffer 0 bytes [0, 4): core 0 #0 {a}; core 0 #1 {b}" in err
    assert (
        f"racecheck: error: RAW across cores on GM buffer 0 bytes [0, 4): core 0 #0 {a}; core 1 #1 {b}" in err
    )
    assert (
        f"racecheck: error: WAR across cores on GM buffer 0 bytes [4, 8): core 0 #1 {b}; core 1 #0 {a}" in err
    )


def test_racecheck_advanced(capsys):
    src = SAN / "sample_racecheck_advanced" / "racecheck_advanced.asc"
    rc, _, err = run(capsys, src, "--arg", "pipeline")
    assert rc == 1, err
    f = "racecheck_advanced.asc"
    assert (
        f"WAW on GM buffer 0 bytes [0, 4): core 0 #0 SetValue (PIPE_S) at {f}:100; core 0 #1 DataCopy (PIPE_MTE3)"
        in err
    )
    assert f"RAW on GM buffer 0 bytes [1024, 1028): core 0 #2 SetValue (PIPE_S) at {f}:104" in err
    assert f"WAR on GM buffer 0 bytes [2048, 2052): core 0 #4 DataCopy (PIPE_MTE2) at {f}:108" in err
    assert "launch pipeline_raw_hazard (line 198): racecheck: error: RAW across cores" in err
    rc, _, err = run(capsys, src, "--arg", "cross-core")
    assert rc == 1, err
    assert (
        "launch cross_core_hazards (line 200): memcheck: error: multi-core stomp on GM buffer 0 bytes [0, 4)"
        in err
    )
    assert (
        f"RAW across cores on GM buffer 0 bytes [1024, 1028): core 0 #1 SetValue (PIPE_S) at {f}:119" in err
    )
    assert (
        f"WAR across cores on GM buffer 0 bytes [2048, 2052): core 0 #2 DataCopy (PIPE_MTE2) at {f}:120"
        in err
    )
    rc, _, err = run(capsys, src, "--arg", "cross-npu")
    assert rc == 2
    assert f"NotModelledError: {src}:222: aclrtDeviceCanAccessPeer(0, 1): a second device" in err
    rc, _, err = run(capsys, src)  # no argument: the sample's own usage message, its exit status
    assert rc == 2 and "Usage: " in err and "pipeline|cross-core|cross-npu" in err


def test_synccheck(capsys):
    rc, _, err = run(capsys, SAN / "sample_synccheck" / "synccheck.asc")
    assert rc == 1, err
    assert (
        "synccheck: warning: unpaired set_flag: core 0 #1 SetFlag (PIPE_V) at synccheck.asc:36; "
        "ordered by: a WaitFlag<V_MTE2>(0); from PIPE_V to PIPE_MTE2" in err
    )


MEMCHECK = SAN / "sample_memcheck_advanced" / "memcheck_advanced.asc"


def test_memcheck_kernel_modes(capsys):
    rc, _, err = run(capsys, MEMCHECK, "--arg", "multi-core")
    assert rc == 1, err
    assert (
        "memcheck: error: multi-core stomp on GM buffer 0 bytes [0, 4): core 0 #0 SetValue (PIPE_S) at "
        "memcheck_advanced.asc:86; core 1 #0 SetValue (PIPE_S) at memcheck_advanced.asc:86" in err
    )
    rc, _, err = run(capsys, MEMCHECK, "--arg", "misaligned")
    assert rc == 1 and "launch misaligned_access case 0: FAULT MISALIGNED" in err, err
    for mode, kernel, line in (
        ("l1-oob", "l1_out_of_bounds", 157),
        ("l1-oob-read", "l1_read_out_of_bounds", 159),
        ("l1-misaligned", "l1_misaligned_access", 161),
    ):
        rc, _, err = run(capsys, MEMCHECK, "--arg", mode)
        assert rc == 2
        assert f"NotModelledError: {MEMCHECK}:{line}: {kernel} is a __cube__ kernel: the AI Cube core" in err


def test_memcheck_host_modes(capsys):
    rc, _, err = run(capsys, MEMCHECK, "--arg", "illegal-free")
    assert rc == 1, err
    assert (
        "host: memcheck: error: illegal free(): aclrtFree at memcheck_advanced.asc:195 of GM buffer 0 "
        "(1024 bytes, aclrtMalloc at memcheck_advanced.asc:51), already freed at memcheck_advanced.asc:189"
    ) in err
    rc, _, err = run(capsys, MEMCHECK, "--arg", "leak")
    assert rc == 1, err
    assert (
        "host: memcheck: error: LeakCheck: detected memory leaks: 1024 byte(s) leaked in 1 allocation(s)"
        in err
    )
    rc, _, err = run(capsys, MEMCHECK, "--arg", "unused")
    assert rc == 0, err  # a warning, as the vendor tool's
    assert (
        "host: memcheck: warning: Unused memory of 1024 byte(s): GM buffer 0 (aclrtMalloc at memcheck_advanced.asc:51)"
        in err
    )


MS = SAN / "05_sanitizer" / "ms_sanitizer" / "ms_sanitizer.asc"
# the README's edits, each on a copy of the sample
MS_EDITS = {
    "race": (
        "    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);\n"
        "    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);\n",
        "",
    ),
    "oob": (
        "    AscendC::DataCopy(xLocal, xGm, blockLength);\n",
        "    AscendC::DataCopy(xLocal, xGm, blockLength * 2);\n",
    ),
    "misaligned": (
        "    AscendC::DataCopy(xLocal, xGm, blockLength);\n",
        "    AscendC::DataCopy(xLocal[5], xGm, blockLength);\n",
    ),
    "init": ("    zGm.SetGlobalBuffer(z + block_idx * blockLength, blockLength);\n", ""),
    "leak": ("    aclrtFree(zDevice);\n", ""),
}
MS_EXPECT = {
    "race": (
        1,
        "racecheck: error: RAW on UB bytes [0, 8192): core 0 #0 DataCopy (PIPE_MTE2) at ms_race.asc:43; core 0 #2 Add (PIPE_V) at ms_race.asc:53",
    ),
    "oob": (
        2,
        "ms_oob.asc:43: AscendC::DataCopy(LocalTensor<float>[2048]@UB+0, GlobalTensor<float>[2048]@GM0+57344, (uint32_t)4096):\n  UsageError: DataCopy: src='bytes [57344, 73728) of GM buffer 0' is not allowed",
    ),
    "misaligned": (1, "case 0: FAULT MISALIGNED"),
    "init": (2, "ms_init.asc:59: a GlobalTensor used before SetGlobalBuffer gave it GM"),
    "leak": (
        1,
        "host: memcheck: error: LeakCheck: detected memory leaks: 65536 byte(s) leaked in 1 allocation(s) never given to aclrtFree (aclrtMalloc at ms_leak.asc:87)",
    ),
}


@pytest.mark.slow
def test_ms_sanitizer_as_shipped(capsys):
    rc, out, err = run(capsys, MS)
    assert rc == 0, err
    assert "test pass!" in out and "error" not in err and "warning" not in err


@pytest.mark.slow
@pytest.mark.parametrize("edit", sorted(MS_EDITS))
def test_ms_sanitizer_readme_defects(capsys, tmp_path, edit):
    old, new = MS_EDITS[edit]
    text = MS.read_text()
    assert old in text
    src = tmp_path / f"ms_{edit}.asc"
    src.write_text(text.replace(old, new, 1))
    rc, _, err = run(capsys, src)
    code, expect = MS_EXPECT[edit]
    assert rc == code and expect in err, err
