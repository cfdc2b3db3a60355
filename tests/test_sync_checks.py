"""Cores, pipes and sync (issue 31): the call log's findings, named as msSanitizer / npucheck name
them, on the sanitizer samples (planted defects and fixed twins), multi-core GM, atomics and the
adversarial schedule. Expected values come from the samples' READMEs and NumPy, never the model."""

import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax.errors import UsageError
from ops import sanitizer_samples as S
from ops import vendor_add

E = aj.HardEvent


def _arrays(sizes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.random(s // 4).astype(np.float32) for s in sizes]


def _kinds(res):
    return {(f.tool, f.kind) for f in res.findings}


@pytest.mark.parametrize("name", sorted(S.KERNELS))
def test_sanitizer_sample_defect_reported_and_twin_clean(name):
    bad, good, block_dim, sizes, expected = S.KERNELS[name]
    res = aj.run_kernel(bad, *_arrays(sizes), block_dim=block_dim)
    assert expected <= _kinds(res), (name, _kinds(res))
    for f in res.findings:  # every finding names its calls with a source line
        assert all(c.source.startswith("sanitizer_samples.py:") for c in f.calls), str(f)
    clean = aj.run_kernel(good, *_arrays(sizes), block_dim=block_dim)
    assert clean.findings == (), [str(f) for f in clean.findings]


def test_missing_mte2_v_changes_bits_only_under_the_adversarial_schedule():
    bad, good, block_dim, sizes, _ = S.KERNELS["ms_sanitizer_add"]
    x, y, z = _arrays(sizes)
    gold = x + y
    prog = aj.run_kernel(bad, x, y, z, block_dim=block_dim)
    adv = aj.run_kernel(bad, x, y, z, block_dim=block_dim, schedule="adversarial")
    assert prog.schedule == "program" and adv.schedule == "adversarial"
    assert prog.gm[2].view(np.uint32).tolist() == gold.view(np.uint32).tolist()
    assert adv.gm[2].view(np.uint32).tolist() != gold.view(np.uint32).tolist()
    fixed = aj.run_kernel(good, x, y, z, block_dim=block_dim, schedule="adversarial")
    assert fixed.gm[2].view(np.uint32).tolist() == gold.view(np.uint32).tolist()


def test_racecheck_sample_adversarial_changes_the_ub_bits():
    bad, _, block_dim, sizes, _ = S.KERNELS["raw_hazard_demo"]
    (buf,) = _arrays(sizes)
    prog = aj.run_kernel(bad, buf, block_dim=block_dim, return_state=True)
    adv = aj.run_kernel(bad, buf, block_dim=block_dim, return_state=True, schedule="adversarial")
    ub_p = np.asarray(prog.state[0].ub)[:1024].view(np.float32)
    ub_a = np.asarray(adv.state[0].ub)[:1024].view(np.float32)
    assert ub_p[0] == np.float32(100.0)  # program order: the copy reads the scalar write
    assert ub_a[0] != np.float32(100.0)  # the copy runs first: the old GM value


def test_vendor_add_eight_cores_and_a_planted_tail_overlap():
    x, y = vendor_add.host_inputs()
    z = np.zeros_like(x)
    res = aj.run_kernel(vendor_add.add_custom, x, y, z, block_dim=8)
    assert res.findings == ()
    gold = vendor_add.host_golden(x, y)
    assert res.gm[2].view(np.uint32).tolist() == gold.view(np.uint32).tolist()

    n = vendor_add.BLOCK_LENGTH

    def tail_overlap(k, x, y, z):
        i = k.GetBlockIdx()
        count = n + (64 if i == 3 else 0)  # block 3's tail runs 64 floats into block 4's slice
        a = k.alloc(aj.float32, n + 64)
        k.DataCopy(a, x[i * n], count)
        k.PipeBarrier(aj.pipe_t.PIPE_ALL)
        k.DataCopy(z[i * n], a, count)

    res = aj.run_kernel(tail_overlap, x, y, z, block_dim=8)
    stomps = [f for f in res.findings if f.kind == "multi-core stomp"]
    assert len(stomps) == 1
    f = stomps[0]
    assert (f.tool, f.severity) == ("memcheck", "error")
    assert {c.core for c in f.calls} == {3, 4}
    assert all(c.api == "DataCopy" for c in f.calls)
    assert f.space == ("GM", 2) and f.span == (4 * n * 4, 4 * n * 4 + 64 * 4)
    assert "core 3" in str(f) and "core 4" in str(f)


def _atomic_kernel(n):
    def kernel(k, x, out):
        i = k.GetBlockIdx()
        a = k.alloc(aj.float32, n)
        k.DataCopy(a, x[i * n], n)
        k.SetFlag(E.MTE2_MTE3, 0)
        k.WaitFlag(E.MTE2_MTE3, 0)
        k.SetAtomicAdd(aj.float32)
        k.DataCopy(out, a, n)
        k.DisableDmaAtomic()

    return kernel


def test_atomic_add_partial_sums_in_core_order():
    n, cores = 64, 4
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(n * cores) * 1e3).astype(np.float32)
    out0 = rng.standard_normal(n).astype(np.float32)
    res = aj.run_kernel(_atomic_kernel(n), x, out0, block_dim=cores)
    gold = out0.copy()
    for c in range(cores):  # SPEC (model): core order, each core's add rounded to float32
        gold = (gold + x[c * n : (c + 1) * n]).astype(np.float32)
    assert res.gm[1].view(np.uint32).tolist() == gold.view(np.uint32).tolist()
    kinds = _kinds(res)
    assert ("racecheck", "atomic order") in kinds
    assert ("memcheck", "multi-core stomp") not in kinds  # atomic adds are exempt
    # batched: the same bits for every case
    run = aj.jit_kernel(_atomic_kernel(n), block_dim=cores)
    xs = np.stack([x, x[::-1].copy()])
    outs = np.stack([out0, out0])
    r = run(xs, outs)
    assert r.gm[1][0].view(np.uint32).tolist() == gold.view(np.uint32).tolist()


def test_atomic_dtype_per_product():
    with pytest.raises(UsageError, match="SetAtomicAdd"):
        aj.Kernel(profile="ascend910").SetAtomicAdd(aj.half)  # Atlas training: float only
    aj.Kernel(profile="ascend910b").SetAtomicAdd(aj.half)


def test_synccheck_hang_redundant_and_bad_events():
    def hang(k, x):
        k.WaitFlag(E.MTE2_V, 1)

    res = aj.run_kernel(hang, np.zeros(8, np.float32))
    assert ("synccheck", "hang") in _kinds(res)

    def redundant(k, x):
        k.SetFlag(E.V_MTE3, 2)
        k.SetFlag(E.V_MTE3, 2)
        k.WaitFlag(E.V_MTE3, 2)

    assert ("synccheck", "redundant set_flag") in _kinds(aj.run_kernel(redundant, np.zeros(8, np.float32)))

    def reserved(k, x):
        k.SetFlag(E.V_MTE3, 7)
        k.WaitFlag(E.V_MTE3, 7)

    assert _kinds(aj.run_kernel(reserved, np.zeros(8, np.float32))) == {("synccheck", "reserved event ID")}
    k = aj.Kernel()
    with pytest.raises(UsageError, match="eventID"):
        k.SetFlag(E.MTE2_V, 8)
    with pytest.raises(UsageError, match="event"):
        k.SetFlag(E.MTE2_MTE1, 0)  # a cube pair: not on a vector core
    with pytest.raises(UsageError, match="PipeBarrier"):
        k.PipeBarrier(aj.pipe_t.PIPE_S)
    with pytest.raises(UsageError, match="eventID"):
        aj.Kernel(profile="ascend910").SetFlag(E.MTE2_V, 4)  # IDs 0-3 on Atlas training


def test_block_dim_and_syncall_limits():
    def kern(k, x):
        k.SyncAll()

    with pytest.raises(UsageError, match="block_dim"):
        aj.run_kernel(kern, np.zeros(8, np.float32), block_dim=0)
    with pytest.raises(UsageError, match="block_dim"):
        aj.jit_kernel(kern, block_dim=65536)
    with pytest.raises(UsageError, match="schedule"):
        aj.jit_kernel(kern, schedule="random")
    p = aj.load_profile("ascend910b")
    with pytest.raises(UsageError, match="SyncAll"):
        aj.run_kernel(kern, np.zeros(8, np.float32), block_dim=p.vector_cores + 1)


def test_cores_have_their_own_ub_and_see_shared_gm():
    def kern(k, x, out):
        i = k.GetBlockIdx()
        assert k.GetBlockNum() == 4
        assert k.GetSubBlockIdx() == i % 2
        a = k.alloc(aj.float32, 8)  # the same UB address on every core
        k.DataCopy(a, x[8 * i], 8)
        k.SetFlag(E.MTE2_V, 0)
        k.WaitFlag(E.MTE2_V, 0)
        k.Adds(a, a, float(i), 8)
        k.SetFlag(E.V_MTE3, 0)
        k.WaitFlag(E.V_MTE3, 0)
        k.DataCopy(out[8 * i], a, 8)

    x = np.arange(32, dtype=np.float32)
    res = aj.run_kernel(kern, x, np.zeros(32, np.float32), block_dim=4)
    assert res.findings == ()
    assert res.gm[1].tolist() == (x + np.repeat(np.arange(4), 8)).tolist()
    run = aj.jit_kernel(kern, block_dim=4)
    xs = np.random.default_rng(2).random((16, 32)).astype(np.float32)
    r = run(xs, np.zeros_like(xs))
    assert len(run.compiled) == 1 and r.findings == ()
    want = (xs + np.repeat(np.arange(4), 8)[None].astype(np.float32)).astype(np.float32)
    assert r.gm[1].view(np.uint32).tolist() == want.view(np.uint32).tolist()


def test_cli_exits_1_on_findings(tmp_path, capsys):
    from ascend_jax import cli

    src = tmp_path / "racy.py"
    src.write_text(
        "import ascend_jax as aj\n"
        "GM_ARGS = (aj.GmArg('x', aj.float32, 64, 'in'), aj.GmArg('z', aj.float32, 64, 'out'))\n"
        "def racy(k, x, z):\n"
        "    a = k.alloc(aj.float32, 64)\n"
        "    k.DataCopy(a, x, 64)\n"
        "    k.Muls(a, a, 2.0, 64)\n"
        "    k.DataCopy(z, a, 64)\n"
    )
    (tmp_path / "input").mkdir()
    np.arange(64, dtype=np.float32).tofile(tmp_path / "input" / "x.bin")
    rc = cli.main(["run", f"{src}:racy", "--input", str(tmp_path / "input"), "--output", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 1
    assert "racecheck: error: RAW" in err and "racy.py:5" in err and "racy.py:6" in err


def test_seeded_schedules_are_legal_orders():
    bad, good, block_dim, sizes, _ = S.KERNELS["ms_sanitizer_add"]
    x, y, z = _arrays(sizes)
    gold = (x + y).view(np.uint32).tolist()
    differ = 0
    for seed in range(6):
        ok = aj.run_kernel(good, x, y, z, block_dim=block_dim, schedule=seed)
        assert ok.gm[2].view(np.uint32).tolist() == gold  # every legal order of a race-free kernel
        racy = aj.run_kernel(bad, x, y, z, block_dim=block_dim, schedule=seed)
        differ += racy.gm[2].view(np.uint32).tolist() != gold
    assert differ >= 1  # some seeded order exposes the missing MTE2_V


def test_traced_addresses_are_checked_per_case():
    """A sweep over a UB address: the pair the happens-before leaves unordered is a candidate; each
    case says whether its bytes did overlap."""

    def kern(k, x, z, off):
        a = k.alloc(aj.float32, 64)
        b = k.alloc(aj.float32, 128)
        k.DataCopy(a, x, 64)  # MTE2 writes a = UB [0, 256)
        t = aj.LocalTensor(aj.float32, off, 64)  # V reads UB [off, off + 256): traced
        k.Muls(b, t, 2.0, 64)
        k.SetFlag(E.V_MTE3, 0)
        k.WaitFlag(E.V_MTE3, 0)
        k.DataCopy(z, b, 64)

    run = aj.jit_kernel(kern)
    x = np.ones((3, 64), np.float32)
    offs = np.array([0, 256, 192], np.int32)  # overlaps a, clear of it, overlaps its tail
    res = run(x, np.zeros((3, 64), np.float32), off=offs)
    assert res.case_findings and all(f.kind == "RAW" for f in res.case_findings)
    assert res.race_cases.tolist() == [True, False, True]


def test_trans_data_to_5hd_address_lists_are_in_the_footprint():
    """The 16-address forms of TransDataTo5HD (ints and LocalTensor lists) log the blocks each
    repeat touches: every byte the call changes lies in a logged dst range (random UB, so
    virtually every written byte changes), and a DataCopy out of a written block with no V_MTE3
    pair is a RAW race, the same copy after the flag pair is clean."""
    from ascend_jax.api.layout import footprint_5hd

    rng = np.random.default_rng(7)
    prm = aj.TransDataTo5HDParams(repeatTimes=3, dstRepStride=16, srcRepStride=1)
    src = [4096 + 32 * i for i in range(16)]  # a 16 x 16 half matrix per repeat (srcRepStride 1)
    dst = [32 * j for j in range(16)]  # dst blocks 0..15, then 16..31, 32..47 (dstRepStride 16)
    spans = footprint_5hd(dst, src, prm)
    assert [s for s in spans if s[2]] == [(0, 48 * 32, True)]
    assert [s for s in spans if not s[2]] == [(4096, 4096 + 18 * 32, False)]
    for form in ("ints", "tensors"):
        k = aj.Kernel(profile="ascend910b")
        whole = k.alloc(aj.uint8, 8192)
        k.write(whole, rng.integers(0, 256, 8192))
        before = np.asarray(k.state.ub)[:8192].copy()
        if form == "ints":
            k.TransDataTo5HD(dst, src, prm, T=aj.half)
        else:
            k.TransDataTo5HD(
                [aj.LocalTensor(aj.half, a, 16) for a in dst],
                [aj.LocalTensor(aj.half, a, 16) for a in src],
                prm,
            )
        changed = np.flatnonzero(np.asarray(k.state.ub)[:8192] != before)
        assert changed.size > 1400 and changed.max() < 48 * 32, form
        (acc,) = [a for a in k.log.calls[-1].accesses if a.write]
        assert (acc.start, acc.end) == (0, 48 * 32)

    def kernel(k, out, synced):
        k.TransDataTo5HD(dst, src, prm, T=aj.half)
        if synced:
            k.SetFlag(E.V_MTE3, 0)
            k.WaitFlag(E.V_MTE3, 0)
        k.DataCopy(out, aj.LocalTensor(aj.half, 40 * 32, 16), 16)

    out = np.zeros(16, np.float16)
    bad = aj.run_kernel(lambda k, o: kernel(k, o, False), out)
    assert ("racecheck", "RAW") in _kinds(bad), [str(f) for f in bad.findings]
    good = aj.run_kernel(lambda k, o: kernel(k, o, True), out)
    assert good.findings == (), [str(f) for f in good.findings]
