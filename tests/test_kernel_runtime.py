"""Whole kernels: jit_kernel / run_kernel / TPipe-TQue-TBuf. A batch equals the loop over its cases,
a traced-parameter sweep compiles once, allocation misuse raises clear errors."""

import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax.errors import UsageError

P = aj.load_profile("ascend910b")


def select_kernel(k, src0_gm, src1_gm, sel_gm, dst_gm):
    """The seed's KernelSelect (mode 0, count form) in the TPipe/TQue style."""
    pipe = aj.TPipe(k)
    qin = aj.TQue(aj.TPosition.VECIN, 1)
    qsel = aj.TQue(aj.TPosition.VECIN, 1)
    qout = aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(qin, 2, 256 * 4)
    pipe.InitBuffer(qsel, 1, 32)
    pipe.InitBuffer(qout, 1, 256 * 4)
    x, y = qin.AllocTensor(aj.float32), qin.AllocTensor(aj.float32)
    m = qsel.AllocTensor(aj.uint8)
    k.DataCopy(x, src0_gm, 256)
    k.DataCopy(y, src1_gm, 256)
    k.DataCopy(m, sel_gm, 32)
    qin.EnQue(x)
    qsel.EnQue(m)
    x, m = qin.DeQue(aj.float32), qsel.DeQue(aj.uint8)
    z = qout.AllocTensor(aj.float32)
    k.Select(z, m, x, y, aj.SELMODE.VSEL_CMPMASK_SPR, 256)
    qout.EnQue(z)
    qin.FreeTensor(x)
    qin.FreeTensor(y)
    qsel.FreeTensor(m)
    z = qout.DeQue(aj.float32)
    k.DataCopy(dst_gm, z, 256)
    qout.FreeTensor(z)


def _select_golden(s0, s1, sel):
    # mode 0 count form: element i uses selMask bit i mod 64 (64 float lanes per repeat)
    bits = np.unpackbits(sel, axis=-1, bitorder="little")[..., :64].astype(bool)
    return np.where(np.tile(bits, 4), s0, s1)


def test_select_kernel_batch_equals_golden_and_loop():
    rng = np.random.default_rng(0)
    B = 64
    s0 = rng.normal(size=(B, 256)).astype(np.float32)
    s1 = rng.normal(size=(B, 256)).astype(np.float32)
    sel = rng.integers(0, 256, (B, 32), dtype=np.uint8)
    dst = np.zeros((B, 256), np.float32)
    run = aj.jit_kernel(select_kernel, profile=P, return_state=True)
    gm, out, state = run(s0, s1, sel, dst)
    assert out is None and not np.asarray(state.fault).any()
    assert [g.shape for g in gm] == [(B, 256), (B, 256), (B, 32), (B, 256)]
    assert gm[3].dtype == np.float32 and gm[2].dtype == np.uint8
    assert np.array_equal(gm[3], _select_golden(s0, s1, sel))
    for i in range(0, B, 16):  # a batch equals the loop over its cases (eager run_kernel)
        one = aj.run_kernel(select_kernel, s0[i], s1[i], sel[i], dst[i], profile=P)
        for g_b, g_1 in zip(gm, one.gm, strict=True):
            assert np.array_equal(g_b[i], g_1)


def test_traced_parameter_sweep_compiles_once():
    traces = []

    def kern(k, src_gm, dst_gm, scalar, count):
        traces.append(1)
        x, y = k.alloc(aj.half, 512), k.alloc(aj.half, 512)
        k.DataCopy(x, src_gm, count, max_blocks=32)  # traced count within a 32-block bucket
        k.Muls(y, x, scalar, 512)
        k.DataCopy(dst_gm, y, 512)

    run = aj.jit_kernel(kern, profile=P)
    rng = np.random.default_rng(5)
    src = rng.normal(size=(8, 512)).astype(np.float16)
    for sweep in range(3):
        scal = rng.normal(size=8).astype(np.float16)
        cnt = (16 * rng.integers(0, 33, 8)).astype(np.int32)
        res = run(src, np.zeros_like(src), scalar=scal, count=cnt)
        for i in range(8):
            want = np.zeros(512, np.float16)
            want[: cnt[i]] = src[i, : cnt[i]]
            want = (want.astype(np.float32) * np.float32(scal[i])).astype(np.float16)
            assert np.array_equal(res.gm[1][i].view(np.uint16), want.view(np.uint16)), (sweep, i)
    assert len(traces) == 1 and len(run.compiled) == 1


def test_gm_write_order_last_wins_and_offsets():
    def kern(k, g):
        x = k.alloc(aj.int32, 16)
        k.write(x, np.arange(16, dtype=np.int32) + 100)
        k.DataCopy(g, x, 8)  # elements 0..7
        k.write(x, np.arange(16, dtype=np.int32) + 200)
        k.DataCopy(g[4], x, 8)  # elements 4..11: later write wins on 4..7
        return k.read(g[10])

    g0 = np.zeros((2, 24), np.int32)
    res = aj.jit_kernel(kern)(g0)
    want = np.zeros(24, np.int32)
    want[:8] = np.arange(8) + 100
    want[4:12] = np.arange(8) + 200
    assert np.array_equal(res.gm[0][1], want) and np.array_equal(np.asarray(res.out[0]), want[10:])
    assert np.array_equal(aj.run_kernel(kern, g0[0]).gm[0], want)


def test_int64_and_bool_gm_survive_without_x64():
    def kern(k, a, b):
        x = k.alloc(aj.int64, 4)
        k.DataCopy(x, a, 4)
        k.DataCopy(a[4], x, 4)

    a = np.arange(8, dtype=np.int64).reshape(1, 8) + 2**40
    res = aj.jit_kernel(kern)(a, np.ones((1, 3), bool))
    assert res.gm[0].dtype == np.int64 and np.array_equal(res.gm[0][0], np.r_[a[0, :4], a[0, :4]])
    assert res.gm[1].dtype == np.bool_ and res.gm[1].all()


def test_run_kernel_raises_fault_and_records():
    def kern(k, g):
        x = k.alloc(aj.float32, 64)
        k.DataCopy(aj.LocalTensor(aj.float32, x.addr + 8, 8), g, 8)

    with pytest.raises(aj.AscendFault, match="MISALIGNED"):
        aj.run_kernel(kern, np.zeros(64, np.float32))
    res = aj.run_kernel(kern, np.zeros(64, np.float32), fault_policy="record", return_state=True)
    assert int(res.state.fault) == int(aj.Fault.MISALIGNED)
    res = aj.jit_kernel(kern, return_state=True)(np.zeros((3, 64), np.float32))
    assert (np.asarray(res.state.fault) == int(aj.Fault.MISALIGNED)).all()


# -- TPipe / TQue / TBuf discipline ----------------------------------------------------------------


def test_tpipe_layout_and_tbuf():
    k = aj.Kernel(P)
    pipe = aj.TPipe(k)
    q = aj.TQue(aj.TPosition.VECIN, 2)
    assert pipe.InitBuffer(q, 2, 1000)  # rounded up to 1024
    b = aj.TBuf(aj.TPosition.VECCALC)
    pipe.InitBuffer(b, 2048)
    x1, x2 = q.AllocTensor(aj.float32), q.AllocTensor(aj.half)
    assert (x1.addr, x1.length, x2.addr, x2.length) == (0, 256, 1024, 512)
    t = b.Get(aj.float32)
    assert (t.addr, t.length, b.Get(aj.int16, 128).length) == (2048, 512, 128)
    assert k.alloc(aj.uint8, 1).addr == 4096  # the bump allocator is shared
    assert q.EnQue(x1) and q.EnQue(x2) and not q.EnQue(x1)  # depth 2: full
    assert q.DeQue(aj.float32) is x1 or q.GetTensorCountInQue() == 1


def test_allocation_errors():
    k = aj.Kernel(P)
    pipe = aj.TPipe(k)
    q = aj.TQue(aj.TPosition.VECIN, 1)
    pipe.InitBuffer(q, 1, 256)
    with pytest.raises(UsageError, match=r"InitBuffer: que=.*already called"):
        pipe.InitBuffer(q, 1, 256)
    x = q.AllocTensor(aj.float32)
    with pytest.raises(UsageError, match=r"AllocTensor: .*at most 1 tensors allocated at once"):
        q.AllocTensor(aj.float32)
    with pytest.raises(UsageError, match=r"DeQue: .*empty queue"):
        q.DeQue()
    q.FreeTensor(x)
    with pytest.raises(UsageError, match=r"FreeTensor: .*double free"):
        q.FreeTensor(x)
    y = k.alloc(aj.float32, 64)
    with pytest.raises(UsageError, match=r"Adds: tensor=.*use after free"):
        k.Adds(y, x, 1.0, 64)
    with pytest.raises(UsageError, match=r"DataCopy: tensor=.*use after free"):
        k.DataCopy(y, x[8], 8)  # a view of a freed tensor is freed too
    x2 = q.AllocTensor(aj.float32)  # the buffer is reusable; the old tensor stays invalid
    k.Adds(y, x2, 1.0, 64)
    big = aj.TBuf()
    with pytest.raises(UsageError, match=r"InitBuffer: len=200000 .*196352 usable bytes"):
        pipe.InitBuffer(big, 200000)  # more than the usable UB
    b = aj.TBuf()
    pipe.InitBuffer(b, 64)
    with pytest.raises(UsageError, match=r"Get: len=17 .*at most 16 elements"):
        b.Get(aj.float32, 17)
    with pytest.raises(UsageError, match=r"alloc: length=100000 .*'ascend910b'.*196352 usable bytes"):
        k.alloc(aj.float32, 100000)


def test_que_alloc_limit_per_position():
    k = aj.Kernel("ascend910")  # Atlas 训练系列产品: at most 4 tensors per TPosition
    pipe = aj.TPipe(k)
    qs = [aj.TQue(aj.TPosition.VECIN, 1) for _ in range(3)]
    for q in qs:
        pipe.InitBuffer(q, 2, 64)
    ts = [qs[0].AllocTensor(aj.half), qs[0].AllocTensor(aj.half), qs[1].AllocTensor(aj.half)]
    ts.append(qs[1].AllocTensor(aj.half))
    with pytest.raises(UsageError, match=r"at most 4 tensors allocated per TPosition"):
        qs[2].AllocTensor(aj.half)
    qs[0].FreeTensor(ts[0])
    qs[2].AllocTensor(aj.half)


def test_pipe_inside_jit_kernel_traced_offsets():
    """TPipe works under tracing; a traced GM offset reads the right elements per case."""

    def kern(k, g, out, off):
        pipe = aj.TPipe(k)
        q = aj.TQue(aj.TPosition.VECIN, 1)
        pipe.InitBuffer(q, 1, 64 * 4)
        x = q.AllocTensor(aj.float32)
        k.DataCopy(x, g[off], 64)
        k.DataCopy(out, x, 64)
        q.FreeTensor(x)

    g = np.arange(4 * 256, dtype=np.float32).reshape(4, 256)
    off = jnp.asarray([0, 8, 64, 192], jnp.int32)
    res = aj.jit_kernel(kern)(g, np.zeros((4, 64), np.float32), off=off)
    for i, o in enumerate([0, 8, 64, 192]):
        assert np.array_equal(res.gm[1][i], g[i, o : o + 64])


def test_get_value_set_value_eager_and_traced():
    """LocalTensor::GetValue / SetValue: one element of UB, eager and inside jit_kernel."""
    k = aj.Kernel()
    t = k.alloc(aj.float32, 8)
    k.write(t, np.arange(8, dtype=np.float32))
    assert k.GetValue(t, 3) == 3.0
    k.SetValue(t, 5, 42.5)
    assert k.read(t).tolist() == [0, 1, 2, 3, 4, 42.5, 6, 7]
    with pytest.raises(aj.UsageError, match=r"GetValue: index=8 .*allowed: an int in \[0, 8\)"):
        k.GetValue(t, 8)

    def kern(k, src, dst):
        x = k.alloc(aj.int32, 8)
        k.DataCopy(x, src, 8)
        k.SetValue(x, 0, k.GetValue(x, 7))
        k.DataCopy(dst, x, 8)

    src = np.arange(16, dtype=np.int32).reshape(2, 8)
    res = aj.jit_kernel(kern)(src, np.zeros_like(src))
    want = src.copy()
    want[:, 0] = src[:, 7]
    assert np.array_equal(np.asarray(res.gm[1]), want)
