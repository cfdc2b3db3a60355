"""Values read back into C++ without replay (issue 44 item 3): a kernel that reads k values
(a scalar reduction: 64 ``GetValue`` calls) costs one replay of its trace, not k -- each read
continues the launch from the previous one. The sum is checked against NumPy's float32
accumulation in the same order. Needs g++ (fails with the front end's message without)."""

import pathlib
import shutil

import numpy as np
import pytest

from ascend_jax import cli
from ascend_jax.cxx import trace as T

KERNEL = pathlib.Path(__file__).parent / "data" / "cxx" / "scale.asc"

SCALAR_SUM = (
    "KERNEL_EXTRA=AscendC::SetFlag<AscendC::HardEvent::MTE2_S>(0); "
    "AscendC::WaitFlag<AscendC::HardEvent::MTE2_S>(0); float s = 0; "
    "for (int i = 0; i < 64; ++i) s += xl.GetValue(i); "
    "AscendC::SetFlag<AscendC::HardEvent::S_V>(0); AscendC::WaitFlag<AscendC::HardEvent::S_V>(0); "
    "AscendC::Adds(zl, zl, s, N);"
)


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_JAX_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")
    shutil.copy(KERNEL, tmp_path / "scale.asc")
    (tmp_path / "input").mkdir()
    x = np.random.default_rng(4).uniform(-5, 5, 256).astype(np.float32)
    x.tofile(tmp_path / "input" / "x.bin")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_k_value_reads_replay_the_trace_once(work, capsys, monkeypatch):
    replayed = []
    one = T.Replayer.one

    def counting(self, e):
        replayed.append(e["op"])
        return one(self, e)

    monkeypatch.setattr(T.Replayer, "one", counting)
    assert cli.main(["run", str(work / "scale.asc"), "-D", SCALAR_SUM]) == 0, capsys.readouterr().err
    x = np.fromfile(work / "input" / "x.bin", np.float32)
    s = np.float32(0)
    for v in x[:64]:
        s = np.float32(s + v)
    want = x * np.float32(2) + np.float32(1) + s
    z = np.fromfile(work / "output" / "z.bin", np.float32)
    assert z.view(np.uint32).tolist() == want.view(np.uint32).tolist()
    reads = replayed.count("GetValue")
    # the value session replays each record once (64 reads); the launch's compiled program traces
    # the whole trace once more (64) -- a replay per read from the start would make 64 * 65 / 2 + 64
    assert reads == 2 * 64, reads
