"""The compiler's auto-sync (bisheng ``--cce-auto-sync=on``; 同步控制/核内同步/关键特性说明.md): the
V/MTE2/MTE3 <-> S flags it inserts around GetValue / SetValue, as ``ascend_jax.autosync`` adds them
to the call log; and the printed findings grouped per class and pair of source lines.

Expected values: the findings each placement implies by the doc's table 3 (which pairs the compiler
syncs and which it leaves to the author), and NumPy for the bits; never the model's own output."""

import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import findings as F
from ascend_jax.errors import UsageError
from ops import sanitizer_samples as S

E = aj.HardEvent
N = 64


def scalar_shapes(k, x, y):
    """The shapes real kernels use scalar access in: DataCopy GM -> UB then GetValue of it in a
    loop; SetValue then a vector call reading it; a reduction then GetValue of its result; a
    SetValue of what the vector pipe wrote, then a copy out. The V -> MTE3 flag is the author's
    (the compiler does not insert it)."""
    a = k.alloc(aj.float32, N)
    b = k.alloc(aj.float32, N)
    c = k.alloc(aj.float32, N)
    d = k.alloc(aj.float32, 8)
    work = k.alloc(aj.float32, N)
    k.DataCopy(a, x, N)  # MTE2 writes a
    s = np.float32(0)
    for i in range(4):
        s = s + k.GetValue(a, i)  # S reads a: MTE2 -> S
    for i in range(N):
        k.SetValue(b, i, s)  # S writes b
    k.Add(c, b, a, N)  # V reads b: S -> V
    k.ReduceSum(d, c, work, N)  # V writes d
    total = k.GetValue(d, 0)  # S reads d: V -> S
    k.SetValue(c, 1, total)  # S writes c after V wrote / read it (ordered by the V -> S above)
    k.SetFlag(E.V_MTE3, 0)
    k.WaitFlag(E.V_MTE3, 0)
    k.DataCopy(y, c, N)  # MTE3 reads c: S -> MTE3


def _expected_bits(x):
    a = x[:N].astype(np.float32)
    s = np.float32(0)
    for i in range(4):
        s = np.float32(s + a[i])
    return (np.full(N, s, np.float32) + a).astype(np.float32)


def _pairs(res):
    """{(kind, first API, second API)} of the racecheck findings."""
    return {(f.kind, f.calls[0].api, f.calls[1].api) for f in res.findings if f.tool == "racecheck"}


def test_scalar_access_races_without_auto_sync_and_clean_with_it():
    x = (np.arange(N, dtype=np.float32) - 7) / 4
    y = np.zeros(N, np.float32)
    off = aj.run_kernel(scalar_shapes, x, y)
    # table 3: every one of these pairs is a scalar access against V / MTE2 / MTE3
    want = {
        ("RAW", "DataCopy", "GetValue"),  # MTE2 -> S
        ("RAW", "SetValue", "Add"),  # S -> V
        ("RAW", "ReduceSum", "GetValue"),  # V -> S
        ("WAW", "Add", "SetValue"),  # V -> S
        ("RAW", "SetValue", "DataCopy"),  # S -> MTE3
    }
    assert want <= _pairs(off), sorted(_pairs(off))
    on = aj.run_kernel(scalar_shapes, x, y, auto_sync=True)
    assert on.findings == (), [str(f) for f in on.findings]
    # the inserted flags are in the log, each named by the call they precede, on their own event ID
    auto = [c for c in on.logs[0].calls if c.note.startswith("inserted by the compiler")]
    events = [c.event[0].name for c in auto if c.kind == "set"]
    assert events == ["MTE2_S", "S_V", "V_S", "S_MTE3"], events
    assert {c.event[1] for c in auto} == {"auto"}
    assert all(c.source.startswith("test_autosync.py:") for c in auto)
    # never the bits: the GM of both runs is NumPy's (element 1 is ReduceSum's result, which
    # NumPy does not sum in the vector unit's order: the two runs agree on it bit for bit)
    c = _expected_bits(x)
    keep = np.arange(N) != 1
    for res in (off, on):
        assert res.gm[1][keep].view(np.uint32).tolist() == c[keep].view(np.uint32).tolist()
    assert off.gm[1][1:2].view(np.uint32).tolist() == on.gm[1][1:2].view(np.uint32).tolist()
    # the inserted flags order the adversarial schedule too: race-free, it gives the same bits
    adv = aj.run_kernel(scalar_shapes, x, y, auto_sync=True, schedule="adversarial")
    assert adv.gm[1].view(np.uint32).tolist() == on.gm[1].view(np.uint32).tolist()


def test_what_auto_sync_does_not_insert_stays_a_race():
    """V <-> MTE2 / MTE3 and MTE2 <-> MTE3 are not the compiler's (table 3: "-"); a GlobalTensor
    SetValue is not in its list of scalar APIs."""

    def kern(k, x, y):
        a = k.alloc(aj.float32, N)
        c = k.alloc(aj.float32, N)
        k.DataCopy(a, x, N)  # MTE2 writes a
        k.Adds(c, a, 1.0, N)  # V reads a: MTE2 -> V, no flag
        k.SetValue(y, 0, 2.0)  # GlobalTensor::SetValue (not listed)
        k.DataCopy(a, y, N)  # MTE2 reads y[0]: S -> MTE2 on GM, no flag; WAR with Adds on a

    x = np.ones(N, np.float32)
    y = np.zeros(N, np.float32)
    res = aj.run_kernel(kern, x, y, auto_sync=True)
    assert {
        ("RAW", "DataCopy", "Adds"),
        ("RAW", "SetValue", "DataCopy"),
        ("WAR", "Adds", "DataCopy"),
    } <= _pairs(res), sorted(_pairs(res))


def test_auto_sync_orders_only_what_overlaps():
    """A GetValue of other bytes than a copy wrote gets no flag: the copy stays unordered with
    a later vector call (the compiler's V <- MTE2 is not there either)."""

    def kern(k, x):
        a = k.alloc(aj.float32, N)
        b = k.alloc(aj.float32, N)
        k.Duplicate(b, 1.0, N)
        k.DataCopy(a, x, N)
        k.GetValue(b, 0)  # V -> S (Duplicate wrote b); nothing from MTE2: a is not read
        k.Adds(b, a, 1.0, N)  # MTE2 -> V: a race; and S -> V (WAR on b[0]): inserted

    res = aj.run_kernel(kern, np.ones(N, np.float32), auto_sync=True)
    assert _pairs(res) == {("RAW", "DataCopy", "Adds")}, sorted(_pairs(res))
    auto = [c.event[0].name for c in res.logs[0].calls if c.kind == "set" and c.event[1] == "auto"]
    assert auto == ["V_S", "S_V"]


@pytest.mark.parametrize("name", sorted(S.KERNELS))
def test_sanitizer_ports_keep_their_planted_defects_with_auto_sync(name):
    """The planted defects are pairs the compiler does not sync (or GlobalTensor::SetValue)."""
    bad, good, block_dim, sizes, expected = S.KERNELS[name]
    rng = np.random.default_rng(0)
    arrays = [rng.random(s // 4).astype(np.float32) for s in sizes]
    res = aj.run_kernel(bad, *arrays, block_dim=block_dim, auto_sync=True)
    assert expected <= {(f.tool, f.kind) for f in res.findings}, name
    clean = aj.run_kernel(good, *arrays, block_dim=block_dim, auto_sync=True)
    assert clean.findings == (), [str(f) for f in clean.findings]


def test_jit_kernel_auto_sync_and_bad_value():
    x = (np.arange(N, dtype=np.float32) - 7) / 4
    y = np.zeros(N, np.float32)
    run = aj.jit_kernel(scalar_shapes, batched=False, auto_sync=True)
    assert run(x, y).findings == ()
    assert aj.jit_kernel(scalar_shapes, batched=False)(x, y).findings != ()
    with pytest.raises(UsageError, match="jit_kernel: auto_sync='on' is not allowed.*True or False"):
        aj.jit_kernel(scalar_shapes, auto_sync="on")
    with pytest.raises(UsageError, match="run_kernel: auto_sync=1 is not allowed"):
        aj.run_kernel(scalar_shapes, x, y, auto_sync=1)


def test_findings_grouped_per_pair_of_source_lines():
    """A loop of 16 SetValues against one vector call: 16 findings, one printed line "x16"; the
    result keeps all 16."""

    def kern(k):
        b = k.alloc(aj.float32, N)
        c = k.alloc(aj.float32, N)
        k.Duplicate(c, 0.0, N)
        for i in range(16):
            k.SetValue(b, i, 1.0)
        k.Adds(c, b, 1.0, N)

    res = aj.run_kernel(kern)
    raw = [f for f in res.findings if f.kind == "RAW"]
    assert len(raw) == 16
    lines = F.lines(res.findings)
    grouped = [ln for ln in lines if " RAW " in ln]
    assert len(grouped) == 1 and " x16 (" in grouped[0], lines
    assert [n for _, n in F.grouped(res.findings)].count(16) == 1
    assert sum(n for _, n in F.grouped(res.findings)) == len(res.findings)


PY_KERNEL = """
import ascend_jax as aj

GM_ARGS = (aj.GmArg("a", aj.float32, 64, "in"), aj.GmArg("b", aj.float32, 64, "out"))


def first_four(k, a, b):
    t = k.alloc(aj.float32, 64)
    k.DataCopy(t, a, 64)
    k.SetFlag(aj.HardEvent.MTE2_MTE3, 0)
    k.WaitFlag(aj.HardEvent.MTE2_MTE3, 0)
    s = 0.0
    for i in range(4):
        s = s + k.GetValue(t, i)
    k.SetValue(t, 0, s)
    k.DataCopy(b, t, 64)
"""


def test_python_cli_auto_sync_off_by_default_on_when_asked(tmp_path, capsys, monkeypatch):
    """``ascend-jax run file.py:fn``: a Python kernel is off by default (its four MTE2 -> S reads
    print as one line x4, the MTE2 -> S write and the S -> MTE3 copy one line each); ``--auto-sync
    on`` runs it clean."""
    from ascend_jax import cli

    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(PY_KERNEL)
    (tmp_path / "input").mkdir()
    np.arange(64, dtype=np.float32).tofile(tmp_path / "input" / "a.bin")
    assert cli.main(["run", "k.py:first_four"]) == 1
    err = capsys.readouterr().err
    races = [ln for ln in err.splitlines() if "racecheck: error:" in ln]
    assert len(races) == 3, err
    assert (
        "RAW" in races[0]
        and "GetValue (PIPE_S)" in races[0]
        and races[0].endswith(" x4 (4 alike on these source lines; the first shown)")
    )
    assert "WAW" in races[1] and "SetValue (PIPE_S)" in races[1] and not races[1].endswith("the first shown)")
    assert "RAW" in races[2] and "SetValue (PIPE_S)" in races[2] and "DataCopy (PIPE_MTE3)" in races[2]
    assert cli.main(["run", "k.py:first_four", "--auto-sync", "on"]) == 0, capsys.readouterr().err
    out = np.fromfile(tmp_path / "output" / "b.bin", np.float32)
    want = np.arange(64, dtype=np.float32)
    want[0] = np.float32(0 + 1 + 2 + 3)
    assert out.view(np.uint32).tolist() == want.view(np.uint32).tolist()


@pytest.mark.slow
def test_layernorm_shaped_cxx_kernel(tmp_path, monkeypatch, capsys):
    """A C++ kernel in the shape of the community LayerNorms (a reduction then GetValue, a SetValue
    loop then the copy out), with no scalar flags of its own: clean as built (auto-sync on); with
    ``--auto-sync off`` its ~1,000 unordered pairs print as a handful of lines with counts. Needs
    g++ (the run exits 2 naming what to install; the test then fails)."""
    import pathlib
    import re
    import shutil

    from ascend_jax import cli

    src = pathlib.Path(__file__).parent / "data" / "cxx" / "layernorm_rows.asc"
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")
    monkeypatch.setenv("ASCEND_JAX_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    shutil.copy(src, tmp_path / src.name)
    (tmp_path / "input").mkdir()
    np.random.default_rng(0).standard_normal(128).astype(np.float32).tofile(tmp_path / "input" / "x.bin")
    assert cli.main(["run", src.name]) == 0, capsys.readouterr().err
    assert cli.main(["run", src.name, "--auto-sync", "off", "--findings", "report"]) == 0
    err = capsys.readouterr().err
    races = [ln for ln in err.splitlines() if "racecheck: error:" in ln]
    f = src.name
    head = f"ReduceSum (PIPE_V) at {f}:34; core 0 #4 GetValue (PIPE_S) at {f}:35"
    assert any("RAW" in ln and head in ln for ln in races), err
    copy_out = [ln for ln in races if f"SetValue (PIPE_S) at {f}:42" in ln and f"(PIPE_MTE3) at {f}:47" in ln]
    assert copy_out and all(re.search(r" x\d+ \(", ln) for ln in copy_out), err
    counts = [int(m) for ln in races for m in re.findall(r" x(\d+) \(", ln)]
    assert len(races) <= 20 and sum(counts) > 500, (len(races), sum(counts))
