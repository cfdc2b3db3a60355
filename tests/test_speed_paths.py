"""Speed paths that must not change a result (issue 14): the per-case UB arena of ``jit_kernel``,
DataCopy's whole-row moves and the batch-wide soft-float gate. Expected values are written from the
doc semantics (plain NumPy), or are the whole-UB / general path run on the same inputs where the
claim is exactly "the fast path equals the general path"."""

import jax
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax._engine import numerics as N

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


# -- batches in steps (jit_kernel ``step``) ----------------------------------------------------------


def test_cases_per_step_policy():
    from ascend_jax.kernel import STEP_BYTES, cases_per_step

    auto = cases_per_step(None, 10**6, 3000)
    if jax.default_backend() == "cpu":  # a power of two, at most STEP_BYTES of GM bytes per step
        assert auto & (auto - 1) == 0 and auto * 3000 <= STEP_BYTES < 2 * auto * 3000
        assert cases_per_step(None, 10**6, 10**9) == 8  # at least 8 cases, however large a case
    assert cases_per_step(None, 4, 3000) is None  # a batch no larger than a step runs at once
    assert cases_per_step(0, 10**6, 3000) is None and cases_per_step(16, 10**6, 3000) == 16
    for bad in (-1, 2.5, True, "8"):
        with pytest.raises(aj.UsageError, match="jit_kernel.*step"):
            aj.jit_kernel(lambda k, g: None, profile=P, step=bad)


def test_steps_give_the_bits_of_one_program_and_of_the_golden():
    """select_sample (count form, per-case traced count) over 37 cases in steps of 8: the last
    step overlaps the one before it. GM, the returned value, the final UB, fault and warning words
    all equal the whole-batch program's, and dst equals the op's NumPy golden."""
    from ops import select_sample as op

    inputs, params = op.gen_data(np.random.default_rng(7), 37, selMode=2)
    gm = [inputs[k] for k in op.GM]

    def kern(k, *g, **prm):
        op.kernel(selMode=2)(k, *g, **prm)
        return k.state.fault

    stepped = aj.jit_kernel(kern, profile=P, return_state=True, step=8)(*gm, **params)
    whole = aj.jit_kernel(kern, profile=P, return_state=True, step=0)(*gm, **params)
    want = op.golden(inputs, params, selMode=2)
    np.testing.assert_array_equal(stepped.gm[3].view(np.uint32), want)
    for a, b in zip(
        jax.tree_util.tree_leaves((stepped.gm, stepped.out, stepped.state)),
        jax.tree_util.tree_leaves((whole.gm, whole.out, whole.state)),
        strict=True,
    ):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    np.testing.assert_array_equal(stepped.warn, whole.warn)
    # src0 / src1 / sel are never written: in steps they are the inputs themselves, read-only
    for i in range(3):
        assert np.shares_memory(stepped.gm[i], gm[i]) and not stepped.gm[i].flags.writeable


def test_steps_fall_back_to_the_whole_ub_like_one_program():
    rng = np.random.default_rng(2)
    src = rng.normal(size=(13, 64)).astype(np.float32)
    run = aj.jit_kernel(_far_kernel, profile=P, return_state=True, step=4)
    res = run(src, np.zeros_like(src))
    assert not np.asarray(res.state.fault).any()
    want = src * np.float32(2.0)
    np.testing.assert_array_equal(res.gm[1].view(np.uint32), want.view(np.uint32))
    assert ("full", next(iter(run.compiled))) in run.compiled


def _double_kernel(k, src, dst):
    x = k.alloc(aj.float32, 64)
    k.DataCopy(x, src, 64)
    k.Muls(x, x, 2.0, 64)
    k.DataCopy(dst, x, 64)


def _unaligned(a):
    """A copy of ``a`` whose data starts 16 bytes past a 64-byte boundary (JAX copies such arrays)."""
    raw = np.empty(a.nbytes + 128, np.uint8)
    off = (-raw.ctypes.data) % 64 + 16
    out = raw[off : off + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def test_staged_inputs_are_reused_safely():
    """In steps, NumPy inputs go through host buffers kept between calls: successive calls with
    other data, aligned and unaligned inputs, and concurrent calls all give their own results;
    earlier results and the caller's arrays are never changed by a later call."""
    import threading

    run = aj.jit_kernel(_double_kernel, profile=P, step=8)
    rng = np.random.default_rng(5)
    srcs = [rng.normal(size=(21, 64)).astype(np.float32) for _ in range(4)]
    keep = [s.copy() for s in srcs]
    results = [run(_unaligned(s) if i % 2 else s, np.zeros_like(s)) for i, s in enumerate(srcs)]
    for s, k, r in zip(srcs, keep, results, strict=True):
        np.testing.assert_array_equal(s, k)
        np.testing.assert_array_equal(r.gm[1].view(np.uint32), (k * np.float32(2)).view(np.uint32))
        np.testing.assert_array_equal(r.gm[0], k)
    run.release()  # the kept buffers go; the next call stages again
    again = run(_unaligned(srcs[0]), np.zeros_like(srcs[0]))
    np.testing.assert_array_equal(again.gm[1].view(np.uint32), (keep[0] * np.float32(2)).view(np.uint32))
    got = {}

    def call(i):
        got[i] = run(_unaligned(srcs[i]), np.zeros_like(srcs[i])).gm[1]

    threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, k in enumerate(keep):
        np.testing.assert_array_equal(got[i].view(np.uint32), (k * np.float32(2)).view(np.uint32))


# -- the batch-wide soft-float gate ----------------------------------------------------------------


def _normal_f32(rng, shape):
    """float32 bits with exponents in [2**-40, 2**40]: sums and products are far from subnormal."""
    e = rng.integers(127 - 40, 127 + 40, shape, dtype=np.uint32)
    m = rng.integers(0, 1 << 23, shape, dtype=np.uint32)
    s = rng.integers(0, 2, shape, dtype=np.uint32)
    return (s << 31) | (e << 23) | m


def _want(op, a, b):
    """float64 is exact for one float32 sum or product; NumPy rounds it to float32 with subnormals."""
    with np.errstate(all="ignore"):
        fa, fb = a.view(np.float32).astype(np.float64), b.view(np.float32).astype(np.float64)
        return (fa + fb if op == "add" else fa * fb).astype(np.float32).view(np.uint32)


@pytest.mark.parametrize("op", ["add", "mul"])
def test_soft_float_gate_is_bit_exact_both_ways(op):
    fn = N.f32_add_bits if op == "add" else N.f32_mul_bits

    def one(a, b):
        with N.batch_axis("case"):
            return fn(a, b)

    run = jax.jit(jax.vmap(one, axis_name="case"))
    rng = np.random.default_rng(3)
    a, b = _normal_f32(rng, (6, 256)), _normal_f32(rng, (6, 256))
    # batch 1: no lane needs the exact path (the native branch runs)
    np.testing.assert_array_equal(np.asarray(run(a, b)), _want(op, a, b))
    # batch 2: one case has subnormal operands and results that underflow (the exact branch runs
    # for the whole batch)
    a2, b2 = a.copy(), b.copy()
    a2[4, :64] = rng.integers(1, 1 << 23, 64, dtype=np.uint32) | (
        rng.integers(0, 2, 64, dtype=np.uint32) << 31
    )
    a2[4, 64:128] = np.uint32(0x0C000000) | (a2[4, 64:128] & 0x807FFFFF)  # 2**-103 * m
    b2[4, 64:128] = np.uint32(0x0C000000) | (b2[4, 64:128] & 0x807FFFFF)
    if op == "add":  # tiny normals whose sum is subnormal or cancels to the edge of the range
        a2[4, 128:192] = np.uint32(0x00800000) | (a2[4, 128:192] & 0x007FFFFF)
        b2[4, 128:192] = np.uint32(0x80800000) | (b2[4, 128:192] & 0x007FFFFF)
    want = _want(op, a2, b2)
    assert (((want & 0x7F800000) == 0) & ((want & 0x007FFFFF) != 0)).any()  # subnormal results occur
    np.testing.assert_array_equal(np.asarray(run(a2, b2)), want)
    # un-vmapped (one case): the same bits; the predicate is a scalar
    np.testing.assert_array_equal(np.asarray(jax.jit(fn)(a2[4], b2[4])), want[4])
    # the decision is one value for the batch: psum over the case axis feeding a real cond
    text = str(jax.make_jaxpr(jax.vmap(one, axis_name="case"))(a, b))
    assert "psum" in text and "cond[" in text and "select_n" not in text.split("cond[")[0][-200:]


@pytest.mark.parametrize("step", [0, 2])
def test_soft_float_gate_inside_jit_kernel(step):
    """Muls float32 through jit_kernel: a batch without subnormals, then the same batch with one
    case full of subnormal inputs and underflowing products; both equal the float64-rounded product.
    In steps of 2 cases the gate decides per step: one step takes the exact branch, the others not."""

    def kern(k, src, dst, s):
        x, y = k.alloc(aj.float32, 128), k.alloc(aj.float32, 128)
        k.DataCopy(x, src, 128)
        k.Muls(y, x, s, 128)
        k.DataCopy(dst, y, 128)

    run = aj.jit_kernel(kern, profile=P, step=step)
    rng = np.random.default_rng(4)
    x = _normal_f32(rng, (5, 128))
    s = _normal_f32(rng, (5,))
    for sub in (False, True):
        xx, ss = x.copy(), s.copy()
        if sub:
            xx[2, :40] = rng.integers(1, 1 << 23, 40, dtype=np.uint32)  # subnormal inputs
            xx[2, 40:] = np.uint32(0x0A000000) | (xx[2, 40:] & 0x807FFFFF)
            ss[2] = np.uint32(0x0C800000)  # tiny scalar: the products underflow
        res = run(xx.view(np.float32), np.zeros((5, 128), np.float32), s=ss.view(np.float32))
        want = _want("mul", xx, ss[:, None])
        np.testing.assert_array_equal(res.gm[1].view(np.uint32), want)
