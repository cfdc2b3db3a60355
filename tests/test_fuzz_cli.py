"""``ascend-jax fuzz / replay / export / diff``: exit codes, the results journal, and ``--resume``
after a run killed with SIGKILL (nothing lost, nothing duplicated)."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np

from ascend_jax.fuzz.capsule import make_capsule
from ascend_jax.fuzz.families import family_of
from ascend_jax.fuzz.families.registers import RegCase
from ascend_jax.fuzz.resume import read_results
from ascend_jax.profile import load_profile
from ascend_jax.testing.cases import Case

P = load_profile("ascend910b")
# register APIs only: eager calls, nothing to compile, so the subprocesses start working at once
REG_APIS = "SetVectorMask,GetCtrlSpr,SetMaskCount,ResetMask"


def _env():
    return dict(os.environ, ASCEND_JAX_XLA_CACHE="off")


def _cli(*args, check_rc=None):
    out = subprocess.run(
        [sys.executable, "-m", "ascend_jax.cli", *map(str, args)], capture_output=True, text=True, env=_env()
    )
    if check_rc is not None:
        assert out.returncode == check_rc, out.stdout + out.stderr
    return out


def test_fuzz_cli_exit_codes_and_outputs(tmp_path):
    out = _cli("fuzz", "--apis", REG_APIS, "--cases", 60, "--seed", 4, "--out", tmp_path / "r", check_rc=0)
    assert "TOTAL" in out.stdout and "coverage:" in out.stdout and "0 mismatches" in out.stdout
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["cases"] == 60 and summary["coverage"] and summary["counts"].get("mismatch", 0) == 0
    assert len(read_results(tmp_path / "r" / "results.jsonl")) == 60
    assert _cli("fuzz", "--resume", "--cases", 5).returncode == 2  # --resume needs --out
    bad = _cli("fuzz", "--apis", "NoSuchApi", "--cases", 5)
    assert bad.returncode != 0 and "NoSuchApi" in bad.stderr


def test_resume_after_sigkill_loses_and_duplicates_nothing(tmp_path):
    n = 2000
    d = tmp_path / "camp"
    args = [sys.executable, "-m", "ascend_jax.cli", "fuzz", "--apis", REG_APIS, "--cases", str(n)]
    args += ["--seed", "9", "--batch", "40", "--out", str(d), "--no-shrink"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
    results = d / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if results.exists() and results.stat().st_size > 0 and results.read_bytes().count(b"\n") >= 200:
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
    out = _cli(
        "fuzz",
        "--apis",
        REG_APIS,
        "--cases",
        n,
        "--seed",
        9,
        "--batch",
        40,
        "--out",
        d,
        "--resume",
        "--no-shrink",
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert (f"{n - k} cases run" in out.stdout) and (f"{k} resumed" in out.stdout), out.stdout
    after = results.read_bytes()
    assert after.startswith(complete)  # finished cases kept as they were
    idx = [json.loads(line)["i"] for line in after.splitlines()]
    assert sorted(idx) == list(range(n))  # nothing lost, nothing duplicated, torn line gone
    # a different campaign in the same directory is refused
    assert (
        _cli("fuzz", "--apis", REG_APIS, "--cases", n, "--seed", 10, "--out", d, "--resume").returncode != 0
    )
    assert killed or k == n


def test_replay_export_diff_cli(tmp_path):
    # a register-API capsule replays without compiling anything
    fam = family_of("registers")
    rc = RegCase(api="SetVectorMask", dtype="half", args=(0, 0xFF), mode=0, ctrl=(0, 0))
    cap = make_capsule(fam, rc, P)
    (tmp_path / "reg.json").write_text(json.dumps(cap))
    out = _cli("replay", tmp_path / "reg.json", check_rc=0)
    assert "agree" in out.stdout
    # a UB case: export, diff clean (exit 0), diff with a flipped byte (exit 1)
    case = Case(
        api="Adds",
        dtype="int16",
        form="count",
        is_set_mask=True,
        dst=0,
        src=512,
        scalar=3,
        count=200,
        ctrl=(0, 0),
        ub_seed=1,
    )
    cap = make_capsule(family_of(case), case, P, batch=16)
    (tmp_path / "adds.json").write_text(json.dumps(cap))
    _cli("export", tmp_path / "adds.json", "--to", tmp_path / "x", check_rc=0)
    src = np.fromfile(tmp_path / "x" / "input_src.bin", dtype=np.int16)
    gold = np.fromfile(tmp_path / "x" / "golden_dst.bin", dtype=np.int16)
    np.testing.assert_array_equal(gold[:200], (src[:200] + 3).astype(np.int16))  # count form: 200 lanes
    assert "clean" in _cli("diff", tmp_path / "x", check_rc=0).stdout
    raw = gold.view(np.uint8).copy()
    raw[2 * 150] ^= 1  # element 150 = repeat 1, block 1, lane 22 (128 lanes, 16 per block)
    raw.tofile(tmp_path / "npu.bin")
    out = _cli("diff", tmp_path / "x", "--output", tmp_path / "npu.bin", check_rc=1)
    assert "(repeat 1, block 1, lane 22)" in out.stdout and "1 of 256 elements differ" in out.stdout
