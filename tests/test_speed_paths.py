"""Speed paths that must not change a result (issue 14): the per-case UB arena of ``jit_kernel``,
DataCopy's whole-row moves and the batch-wide soft-float gate. Expected values are written from the
doc semantics (plain NumPy), or are the whole-UB / general path run on the same inputs where the
claim is exactly "the fast path equals the general path"."""

import numpy as np

import ascend_jax as aj

P = aj.load_profile(aj.DEFAULT_PROFILE)


# -- jit_kernel's UB arena -----------------------------------------------------------------------


def _far_kernel(k, src, dst, far=4096):
    """Allocates 256 bytes, but stages its data through UB+far (past the arena, inside the UB)."""
    x = k.alloc(aj.float32, 64)
    y = aj.LocalTensor(aj.float32, far, 64)
    k.DataCopy(y, src, 64)
    k.Muls(x, y, 2.0, 64)
    k.DataCopy(dst, x, 64)


def test_arena_is_the_high_water_mark():
    def kern(k, g):
        pipe = aj.TPipe(k)
        q, b = aj.TQue(aj.TPosition.VECIN, 1), aj.TBuf()
        pipe.InitBuffer(q, 2, 100)  # 2 x 128 bytes
        pipe.InitBuffer(b, 40)  # 64 bytes
        t = q.AllocTensor(aj.float32)
        k.DataCopy(t, g, 32)
        q.FreeTensor(t)

    res = aj.jit_kernel(kern, profile=P, return_state=True)(np.zeros((2, 32), np.float32))
    assert res.state.ub.shape == (2, 320)
    full = aj.jit_kernel(kern, profile=P, ub_bytes="full", return_state=True)(np.zeros((2, 32), np.float32))
    assert full.state.ub.shape == (2, P.ub_physical_bytes)


def test_access_past_the_arena_behaves_as_with_the_whole_ub():
    rng = np.random.default_rng(1)
    src = rng.normal(size=(5, 64)).astype(np.float32)
    run = aj.jit_kernel(_far_kernel, profile=P, return_state=True)
    res = run(src, np.zeros_like(src))
    assert not np.asarray(res.state.fault).any()
    want = src * np.float32(2.0)  # Muls: exact float32 product, round to nearest even
    np.testing.assert_array_equal(res.gm[1].view(np.uint32), want.view(np.uint32))
    assert ("full", next(iter(run.compiled))) in run.compiled  # the batch fell back


def test_real_out_of_ub_fault_is_kept():
    far = P.ub_usable_bytes  # past the usable UB: a fault with the whole UB too
    run = aj.jit_kernel(lambda k, s, d: _far_kernel(k, s, d, far), profile=P, return_state=True)
    res = run(np.ones((3, 64), np.float32), np.zeros((3, 64), np.float32))
    assert (np.asarray(res.state.fault) & int(aj.Fault.OUT_OF_UB)).all()
    assert not res.gm[1].any()


def test_write_read_past_the_arena_grow_it():
    def kern(k, g):
        k.alloc(aj.int32, 8)
        far = aj.LocalTensor(aj.int32, 8192, 8)
        k.write(far, np.arange(8, dtype=np.int32) + 7)
        k.DataCopy(g, far, 8)
        return k.read(far)

    res = aj.jit_kernel(kern, profile=P, return_state=True)(np.zeros((2, 8), np.int32))
    assert res.state.ub.shape == (2, 8192 + 32)
    np.testing.assert_array_equal(res.gm[0], np.tile(np.arange(8, dtype=np.int32) + 7, (2, 1)))
    np.testing.assert_array_equal(np.asarray(res.out), res.gm[0])
