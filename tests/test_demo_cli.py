"""``ascend-jax demo``: one screen (the campaign's counts and rates, the coverage table in a file or
printed with --coverage, the kernel line against the lean NumPy and the batched golden), exit 1 on
any mismatch of the campaign or of the kernel. Register APIs only (eager, nothing to compile) and a
small kernel batch keep it cheap; the cold timing is `make bench`'s demo_cold_seconds."""

import numpy as np
import pytest

import ascend_jax.fuzz
from ascend_jax.cli import DEMO_APIS, main
from ascend_jax.fuzz.report import FuzzResult
from ascend_jax.registry import REGISTRY

REG = ["--apis", "SetVectorMask,GetCtrlSpr", "--cases", "30", "--quiet"]


@pytest.fixture(autouse=True)
def _no_cli_cache(monkeypatch):
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")  # keep the session's cache (tests/conftest.py)


def _main(capsys, *args):
    rc = main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out


def test_demo_sample_names_registered_apis_of_several_families():
    import ascend_jax  # noqa: F401  (registers the APIs)

    names = DEMO_APIS.split(",")
    assert all(n in REGISTRY for n in names)
    assert len({REGISTRY[n].family for n in names}) >= 6


def test_demo_one_screen_and_coverage_file(tmp_path, capsys):
    cov = tmp_path / "cov.txt"
    rc, out = _main(capsys, "demo", *REG, "--kernel-cases", 0, "--coverage-out", cov)
    assert rc == 0
    assert "30 random cases" in out and "0 mismatches" in out and "2 of the" in out
    assert "reference" in out and "cases/s" in out and "XLA compilation" in out
    assert cov.read_text().startswith("coverage: API x dtype")  # the table went to the file
    assert "mask kind" not in out and str(cov) in out
    assert len(out.splitlines()) <= 12

    rc, out = _main(
        capsys, "demo", *REG, "--kernel-cases", 0, "--coverage", "--coverage-out", tmp_path / "no"
    )
    assert rc == 0 and "mask kind" in out and not (tmp_path / "no").exists()


def test_demo_kernel_line_and_kernel_mismatch_exit_1(tmp_path, capsys, monkeypatch):
    args = ("demo", *REG, "--kernel-cases", 128, "--kernel-batch", 64, "--coverage-out", tmp_path / "c")
    rc, out = _main(capsys, *args)
    assert rc == 0
    assert max(len(x) for x in out.splitlines() if str(tmp_path) not in x) <= 100  # paths apart
    out = " ".join(out.split())  # the lines are wrapped at 100 columns
    assert "128 random cases" in out and "0 mismatches vs the NumPy golden" in out
    assert "lean NumPy" in out and "golden batched" in out

    from ops import select_sample

    good = select_sample.golden

    def wrong(*a, **kw):  # a golden that disagrees on one lane of every case
        want = good(*a, **kw).copy()
        want[:, 0] ^= np.uint32(1)
        return want

    monkeypatch.setattr(select_sample, "golden", wrong)
    rc, out = _main(capsys, *args)
    assert rc == 1 and "MISMATCHES" in out


def test_demo_campaign_mismatch_exit_1(tmp_path, capsys, monkeypatch):
    rec = {"i": 0, "api": "Adds", "dtype": "int16", "kind": "valid", "status": "mismatch"}
    rec.update(labels=["count", "1", "default"], diff="UB byte 0: 1 != 2")
    ok = dict(rec, i=1, status="ok", diff=None)
    meta = {"profile": "ascend910b", "seed": 0, "apis": ["Adds"], "oracle_frac": 1.0, "invalid_rate": 0.1}

    def fake_run(**kw):
        return FuzzResult(meta=meta, records=[rec, ok], not_fuzzed={}, capsules=[])

    monkeypatch.setattr(ascend_jax.fuzz, "run", fake_run)
    rc, out = _main(capsys, "demo", "--kernel-cases", 0, "--coverage-out", tmp_path / "c", "--quiet")
    assert rc == 1
    assert "1 mismatches" in out and "MISMATCH case 0 Adds<int16>" in out
