"""Scale-out (issue 19): a campaign split over several devices (``--devices``), over several
processes (``--distributed``, ``jax.distributed``), and a sharded ``jit_kernel`` run give the very
records / GM bits of a one-device run; a killed sharded campaign resumes with no case lost and none
run twice.

Several CPU devices need ``XLA_FLAGS=--xla_force_host_platform_device_count=4`` set before jax is
imported, so these runs happen in subprocesses (this pytest process has jax imported already). One
subprocess does all the cheap checks (the compiled programs are shared between them); the
two-process run is ``slow``."""

import json
import os
import pathlib
import socket
import subprocess
import sys

import pytest
from conftest import CACHE_DIR, CACHE_MAX_BYTES

import ascend_jax as aj
from ascend_jax import fuzz
from ascend_jax.errors import UsageError

ROOT = pathlib.Path(__file__).resolve().parents[1]
PY = sys.executable
# one small, quick-compiling family: GatherMask over float32
CAMPAIGN = {"apis": "GatherMask", "dtypes": "float32", "cases": 24, "seed": 11, "batch": 6}


def _env(devices):
    env = dict(os.environ)
    env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["JAX_PLATFORMS"] = "cpu"
    env.setdefault("ASCEND_JAX_XLA_CACHE", str(CACHE_DIR))  # the suite's cache (conftest.py), locked:
    env.setdefault("JAX_COMPILATION_CACHE_MAX_SIZE", str(CACHE_MAX_BYTES))
    for k in ("JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID"):
        env.pop(k, None)
    return env


def _python(code, devices=4, timeout=600):
    """Run ``code`` in a fresh Python with ``devices`` CPU devices; its last stdout line is JSON."""
    p = subprocess.run(
        [PY, "-c", code], env=_env(devices), capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


_SUBPROCESS = r"""
import json, pathlib, sys
import numpy as np
import jax
import ascend_jax as aj
from ascend_jax import fuzz
from ascend_jax.fuzz.resume import read_results
from ops import select_sample as S

out = {"devices": len(jax.local_devices())}
kw = dict(json.loads(sys.argv[1]) if len(sys.argv) > 1 else CAMPAIGN, progress=False, shrink=False)
out["one"] = fuzz.run(**kw).records
out["four"] = fuzz.run(devices="all", **kw).records
import time
if TWO:
    out["two"] = fuzz.run(devices=2, **kw).records

# the case axis really is split: one shard per device
sh = aj.kernel.case_sharding("all")
x = aj.kernel.place_cases({"a": np.zeros((8, 3), np.uint8)}, sh, 8)["a"]
out["placed_on"] = len(x.sharding.device_set)
out["shard_rows"] = [int(s.data.shape[0]) for s in x.addressable_shards]

# a killed sharded campaign: two shards (as two processes would write them), shard 1 cut after
# 5 records plus a torn half line, then resumed
root = pathlib.Path(TMP)
for k in (0, 1):
    fuzz.run(out=root / f"p{k}", shard=(k, 2), devices="all", **kw)
res1 = root / "p1" / "results.jsonl"
lines = res1.read_bytes().splitlines(keepends=True)
res1.write_bytes(b"".join(lines[:5]) + lines[5][: len(lines[5]) // 2])
r = fuzz.run(out=root / "p1", shard=(1, 2), devices="all", resume=True, **kw)
out["resumed"], out["new_cases"] = r.resumed, r.new_cases
out["shard_lines"] = [len((root / f"p{k}" / "results.jsonl").read_bytes().splitlines()) for k in (0, 1)]
out["merged"] = fuzz.merge_shards(root).records
out["summary_cases"] = json.loads((root / "summary.json").read_text())["cases"]

# a sharded jit_kernel run: 10 cases over 4 devices (padded to 12) == unsharded, bit for bit
rng = np.random.default_rng(3)
inputs, params = S.gen_data(rng, 10, 2, "count", "float32", 256)
gm = [inputs[k] for k in S.GM]
a = aj.jit_kernel(S.kernel(2, "count", "float32", 256))(*gm, **params)
b = aj.jit_kernel(S.kernel(2, "count", "float32", 256), sharding="all")(*gm, **params)
out["gm_shapes"] = [list(np.shape(g)) for g in b.gm]
out["gm_equal"] = [
    bool(np.array_equal(np.asarray(x).view(np.uint8), np.asarray(y).view(np.uint8))) for x, y in zip(a.gm, b.gm)
]
out["cpu_s"] = time.process_time()
print(json.dumps(out))
"""


def test_sharded_campaign_resume_and_kernel_match_one_device(tmp_path):
    code = f"CAMPAIGN = {CAMPAIGN!r}\nTMP = {str(tmp_path)!r}\nTWO = False\n" + _SUBPROCESS
    out = _python(code, devices=4)
    n = CAMPAIGN["cases"]
    assert out["devices"] == 4
    one = out["one"]
    assert [r["i"] for r in one] == list(range(n))
    assert any(r["status"] == "ok" for r in one)  # the reference checked cases
    # 4 devices: per-case records identical to one device (2 devices: the slow test below)
    assert out["four"] == one
    assert out["placed_on"] == 4 and out["shard_rows"] == [2, 2, 2, 2]
    # the killed shard resumed: 5 records kept, the torn line and the rest run again, 0 lost and 0
    # duplicated (each journal holds each of its cases once), merged == the one-process run
    assert out["resumed"] == 5 and out["new_cases"] == n // 2 - 5
    assert out["shard_lines"] == [n // 2, n // 2]
    assert out["merged"] == one
    assert out["summary_cases"] == n
    # sharded jit_kernel: the unpadded batch comes back, every GM array bit-identical
    assert out["gm_shapes"][0] == [10, 256]
    assert out["gm_equal"] == [True] * 4


def test_sharding_arguments_are_checked():
    from ops import select_sample as S

    k = S.kernel(2, "count", "float32", 256)
    with pytest.raises(UsageError) as e:
        aj.jit_kernel(k, sharding="most")
    assert e.value.argument == "sharding"
    with pytest.raises(UsageError) as e:
        aj.jit_kernel(k, sharding=10_000)
    assert e.value.argument == "sharding"
    with pytest.raises(UsageError) as e:
        aj.jit_kernel(k, batched=False, sharding="all")
    assert e.value.argument == "sharding"
    with pytest.raises(ValueError, match="devices"):
        fuzz.run(apis="GatherMask", cases=4, devices=10_000)
    with pytest.raises(ValueError, match="shard"):
        fuzz.run(apis="GatherMask", cases=4, shard=(2, 2))


def test_cli_scale_out_options_are_checked(capsys):
    from ascend_jax.cli import main

    assert main(["fuzz", "--apis", "GatherMask", "--distributed"]) == 2  # no --out
    assert "--distributed needs --out" in capsys.readouterr().err
    assert main(["fuzz", "--apis", "GatherMask", "--process-id", "1"]) == 2
    assert "need --distributed" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["fuzz", "--devices", "some"])
    assert e.value.code == 2
    assert "'all' or a device count" in capsys.readouterr().err


def test_merge_refuses_an_incomplete_campaign(tmp_path):
    for k in (0, 1):
        d = tmp_path / f"p{k}"
        d.mkdir()
        meta = {"seed": 1, "profile": "ascend910b", "apis": ["GatherMask"], "cases": 4, "shard": [k, 2]}
        (d / "meta.json").write_text(json.dumps(meta))
        recs = [{"i": i, "api": "GatherMask", "status": "ok", "kind": "valid"} for i in range(k, 4, 2)]
        (d / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs[:1]))
    with pytest.raises(ValueError, match="2 case\\(s\\) missing"):
        fuzz.merge_shards(tmp_path)
    # a case in the wrong shard (or twice) is refused too
    (tmp_path / "p1" / "results.jsonl").write_text(
        json.dumps({"i": 0, "api": "GatherMask", "status": "ok", "kind": "valid"}) + "\n"
    )
    with pytest.raises(ValueError, match="does not belong"):
        fuzz.merge_shards(tmp_path)


@pytest.mark.slow
def test_two_device_campaign_equals_one_device(tmp_path):
    code = f"CAMPAIGN = {CAMPAIGN!r}\nTMP = {str(tmp_path)!r}\nTWO = True\n" + _SUBPROCESS
    out = _python(code, devices=4)
    assert out["two"] == out["one"] == out["four"] == out["merged"]
    assert out["gm_equal"] == [True] * 4


def _free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_two_process_distributed_campaign_equals_one_process(tmp_path):
    """Two processes on localhost (``jax.distributed`` with a free coordinator port), each with
    two CPU devices: process 0's merged result == a one-process one-device run, case for case."""
    c = CAMPAIGN
    args = [
        "-m",
        "ascend_jax.cli",
        "fuzz",
        "--apis",
        c["apis"],
        "--dtypes",
        c["dtypes"],
        "--cases",
        str(c["cases"]),
        "--seed",
        str(c["seed"]),
        "--batch",
        str(c["batch"]),
        "--quiet",
        "--no-shrink",
        "--json",
    ]
    port = _free_port()
    dist = tmp_path / "dist"
    procs = [
        subprocess.Popen(
            [PY, *args, "--out", str(dist), "--distributed", "--devices", "all"]
            + ["--coordinator", f"localhost:{port}", "--num-processes", "2", "--process-id", str(k)],
            env=_env(2),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in (0, 1)
    ]
    outs = [p.communicate(timeout=900) for p in procs]
    for p, (_, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err[-3000:]
    single = tmp_path / "single"
    p = subprocess.run(
        [PY, *args, "--out", str(single)], env=_env(1), cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert p.returncode == 0, p.stderr[-3000:]
    from ascend_jax.fuzz.resume import read_results

    one = read_results(single / "results.jsonl")
    shards = [read_results(dist / f"p{k}" / "results.jsonl") for k in (0, 1)]
    assert sorted(shards[0]) == list(range(0, c["cases"], 2))  # each process ran only its slice
    assert sorted(shards[1]) == list(range(1, c["cases"], 2))
    assert {**shards[0], **shards[1]} == one
    merged, ref = json.loads(outs[0][0]), json.loads(p.stdout)
    for key in ("cases", "counts", "per_api", "coverage", "mismatches"):
        assert merged[key] == ref[key], key
    assert merged["meta"]["processes"] == 2
    assert json.loads((dist / "summary.json").read_text())["coverage"] == ref["coverage"]


@pytest.mark.slow
def test_sigkilled_four_device_campaign_resumes_exactly(tmp_path):
    """A real kill -9 of a ``--devices all`` campaign (4 CPU devices) in the middle of its run, then
    ``--resume`` on 4 devices: every case once, and the journal equals a one-device run's."""
    import signal
    import time

    from ascend_jax.fuzz.resume import read_results

    n = 400
    args = ["--apis", "GatherMask", "--dtypes", "float32", "--cases", str(n), "--seed", "5", "--batch", "8"]
    cli = [PY, "-m", "ascend_jax.cli", "fuzz", *args, "--no-shrink", "--quiet"]
    killed_dir, one_dir = tmp_path / "killed", tmp_path / "one"
    proc = subprocess.Popen(
        [*cli, "--devices", "all", "--out", str(killed_dir)],
        env=_env(4),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    journal = killed_dir / "results.jsonl"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None:
        if journal.exists() and journal.read_bytes().count(b"\n") >= 60:
            break
        time.sleep(0.02)
    killed = proc.poll() is None
    if killed:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    k = len(read_results(journal))
    assert killed and 1 <= k < n, (killed, k)
    for extra, d in ((["--devices", "all", "--resume"], killed_dir), ([], one_dir)):
        p = subprocess.run([*cli, *extra, "--out", str(d)], env=_env(4 if extra else 1), cwd=ROOT,
                           capture_output=True, text=True, timeout=900)  # fmt: skip
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    after = [json.loads(line)["i"] for line in journal.read_bytes().splitlines()]
    assert sorted(after) == list(range(n))  # nothing lost, nothing run twice
    assert read_results(journal) == read_results(one_dir / "results.jsonl")
