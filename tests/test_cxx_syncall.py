"""SyncAll from C++ (issue 44 item 1): the blocks of a ``<<<>>>`` launch advance in phases cut by
``SyncAll`` -- in the host program (each block a coroutine: a value read back into C++ after SyncAll
sees the other blocks' writes) and on the model. Our own kernel tests/data/cxx/sync_all.asc; the
expected values are NumPy sums of the inputs. Needs g++ (fails with the front end's message without)."""

import pathlib
import shutil

import numpy as np
import pytest

from ascend_jax import cli

KERNEL = pathlib.Path(__file__).parent / "data" / "cxx" / "sync_all.asc"
SLOT = 8


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_JAX_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")
    shutil.copy(KERNEL, tmp_path / "sync_all.asc")
    (tmp_path / "input").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(work, blocks, *defines):
    x = np.random.default_rng(blocks).integers(-1000, 1000, blocks * SLOT).astype(np.int32)
    x.tofile(work / "input" / "slots.bin")
    args = ["run", str(work / "sync_all.asc"), "-D", f"BLOCKS={blocks}"]
    for d in defines:
        args += ["-D", d]
    rc = cli.main([*args, "--max-calls", "100000"])
    return rc, x


def _check(work, blocks, x):
    after = x + np.repeat(np.arange(blocks, dtype=np.int32), SLOT)
    total = after.reshape(blocks, SLOT).sum(0, dtype=np.int32)
    out = work / "output"
    assert np.fromfile(out / "slots.bin", np.int32).tolist() == after.tolist()
    assert np.fromfile(out / "out.bin", np.int32).tolist() == np.tile(total, blocks).tolist()
    # the value block 0 read back into C++ after SyncAll: the last block's slot
    assert np.fromfile(out / "seen.bin", np.int32).tolist() == [int(after[-SLOT])] * SLOT


def test_sync_all_two_blocks_exact_and_clean(work, capsys):
    rc, x = _run(work, 2)
    err = capsys.readouterr().err
    assert rc == 0, err
    _check(work, 2, x)
    assert "race" not in err.lower(), err


def test_without_sync_all_the_cross_core_race_is_reported(work, capsys):
    rc, _ = _run(work, 2, "NO_SYNC")
    err = capsys.readouterr().err
    assert rc == 1, err
    assert "across cores" in err or "multi-core" in err, err


@pytest.mark.parametrize("blocks", [8, 48])
def test_sync_all_many_blocks_exact(work, capsys, blocks):
    rc, x = _run(work, blocks)
    err = capsys.readouterr().err
    assert rc == 0, err
    _check(work, blocks, x)
