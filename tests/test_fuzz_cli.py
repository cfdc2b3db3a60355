"""``ascend-jax fuzz / replay / export / diff``: exit codes, the results journal, and ``--resume``
after a run killed with SIGKILL (nothing lost, nothing duplicated)."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from ascend_jax.cli import main
from ascend_jax.fuzz.capsule import make_capsule
from ascend_jax.fuzz.families import family_of
from ascend_jax.fuzz.families.registers import RegCase
from ascend_jax.fuzz.families.unary_scalar import Case
from ascend_jax.fuzz.resume import read_results
from ascend_jax.profile import load_profile

P = load_profile("ascend910b")
# register APIs only: eager calls, nothing to compile, so a campaign starts working at once
REG_APIS = "SetVectorMask,GetCtrlSpr,SetMaskCount,ResetMask"


@pytest.fixture(autouse=True)
def _no_cli_cache(monkeypatch):
    # keep the test session's compilation cache (tests/conftest.py): the CLI must not repoint it
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")


def _main(capsys, *args):
    rc = main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_fuzz_cli_exit_codes_and_outputs(tmp_path, capsys):
    rc, out, _ = _main(
        capsys, "fuzz", "--apis", REG_APIS, "--cases", 60, "--seed", 4, "--out", tmp_path / "r"
    )
    assert rc == 0 and "TOTAL" in out and "coverage:" in out and "0 mismatches" in out
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["cases"] == 60 and summary["coverage"] and summary["counts"].get("mismatch", 0) == 0
    assert len(read_results(tmp_path / "r" / "results.jsonl")) == 60
    rc, out, _ = _main(capsys, "fuzz", "--apis", REG_APIS, "--cases", 60, "--seed", 4, "--json")
    assert rc == 0 and json.loads(out)["cases"] == 60
    assert _main(capsys, "fuzz", "--resume", "--cases", 5)[0] == 2  # --resume needs --out
    rc, _, err = _main(capsys, "fuzz", "--apis", "NoSuchApi", "--cases", 5)
    assert rc == 2 and "NoSuchApi" in err


def test_resume_after_sigkill_loses_and_duplicates_nothing(tmp_path, capsys):
    n = 2000
    d = tmp_path / "camp"
    common = ["fuzz", "--apis", REG_APIS, "--cases", str(n), "--seed", "9", "--batch", "40", "--out", str(d)]
    env = dict(os.environ, ASCEND_JAX_XLA_CACHE="off")
    cmd = [sys.executable, "-m", "ascend_jax.cli", *common, "--no-shrink"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    results = d / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if results.exists() and results.read_bytes().count(b"\n") >= 200:
            break
        time.sleep(0.02)
    killed = proc.poll() is None
    if killed:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = results.read_bytes()
    complete = before[: before.rfind(b"\n") + 1]
    k = complete.count(b"\n")
    assert k >= 1
    # a torn last line, as a kill in the middle of a write leaves it
    with open(results, "ab") as f:
        f.write(b'{"i": 123456, "api": "SetMas')
    rc, out, err = _main(capsys, *common, "--resume", "--no-shrink")
    assert rc == 0, out + err
    assert f"{n - k} cases run" in out and f"{k} resumed" in out, out
    after = results.read_bytes()
    assert after.startswith(complete)  # the finished cases are kept as they were
    idx = [json.loads(line)["i"] for line in after.splitlines()]
    assert sorted(idx) == list(range(n))  # nothing lost, nothing duplicated, torn line gone
    assert all(json.loads(line)["status"] in ("ok", "rejected") for line in after.splitlines())
    # a different campaign in the same directory is refused
    other = [a if a != "9" else "10" for a in common]
    assert _main(capsys, *other, "--resume")[0] == 2
    assert killed or k == n


def test_replay_export_diff_cli(tmp_path, capsys):
    # a register-API capsule replays without compiling anything
    rc_case = RegCase(api="SetVectorMask", dtype="half", args=(0, 0xFF), mode=0, ctrl=(0, 0))
    (tmp_path / "reg.json").write_text(json.dumps(make_capsule(family_of(rc_case), rc_case, P)))
    rc, out, _ = _main(capsys, "replay", tmp_path / "reg.json")
    assert rc == 0 and "agree" in out
    # a UB case: export, diff clean (exit 0), diff with a flipped byte (exit 1)
    case = Case(
        api="Maxs",
        dtype="half",
        form="count",
        is_set_mask=True,
        dst=0,
        src=512,
        scalar=0.25,
        count=200,
        ctrl=(0, 0),
        ub_seed=1,
        data="small",
    )
    (tmp_path / "c.json").write_text(json.dumps(make_capsule(family_of(case), case, P, batch=16)))
    assert _main(capsys, "export", tmp_path / "c.json", "--to", tmp_path / "x")[0] == 0
    src = np.fromfile(tmp_path / "x" / "input_src.bin", dtype=np.float16)
    gold = np.fromfile(tmp_path / "x" / "golden_dst.bin", dtype=np.float16)
    want = np.maximum(src[:200], np.float16(0.25))  # "small" data: no NaN, no -0 ties
    np.testing.assert_array_equal(gold[:200].view(np.uint16), want.view(np.uint16))
    rc, out, _ = _main(capsys, "diff", tmp_path / "x")
    assert rc == 0 and "clean" in out
    raw = gold.view(np.uint8).copy()
    raw[2 * 150] ^= 1  # element 150 = repeat 1, block 1, lane 22 (128 lanes, 16 per block)
    raw.tofile(tmp_path / "npu.bin")
    rc, out, _ = _main(capsys, "diff", tmp_path / "x", "--output", tmp_path / "npu.bin")
    assert rc == 1 and "(repeat 1, block 1, lane 22)" in out and "1 of 256 elements differ" in out
