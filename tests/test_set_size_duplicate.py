"""LocalTensor.SetSize (every product) and Duplicate(dst, src: LocalTensor, count) (950) through the
fast path and Kernel (issue 33 item 6): the fast path == the reference bit for bit on random cases
(the element anywhere in UB, before / inside / after dst, out of UB, count 0), the page's rule that
src's element 0 is the value, and the kernel layer.
"""

import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax.errors import UsageError
from ascend_jax.fuzz.compare import message
from ascend_jax.reference import state as RS

P950 = "ascend950"
UB = 4096


def test_set_size_in_place():
    t = aj.LocalTensor(aj.half, 64, 256)
    assert t.SetSize(128) is None and t.GetSize() == 128 and t.addr == 64 and t.nbytes == 256
    t.SetSize(np.uint32(300))
    assert t.GetSize() == 300
    for bad in (-1, 2**32, 1.5, True):
        with pytest.raises(UsageError, match="SetSize"):
            t.SetSize(bad)


def _states(seed):
    rng = np.random.default_rng(seed)
    ub = rng.integers(0, 256, UB, dtype=np.uint8)
    st = aj.reset_state(P950, ub_bytes=UB).replace(ub=jnp.asarray(ub))
    rs = RS.reset_state(P950, ub_bytes=UB)
    rs.ub = ub.copy()
    return st, rs


@pytest.mark.parametrize("dtype", ["half", "float32", "int8", "uint64"])
def test_duplicate_from_tensor_fast_equals_reference(dtype):
    d = aj.dtypes.as_dtype(dtype)
    rng = np.random.default_rng(5)
    for i in range(12):
        st, rs = _states(i)
        dst = aj.LocalTensor(d, 1024, 512 // d.itemsize)
        e = int(rng.choice([0, 256, 1024, 1024 + 8 * d.itemsize, 2048, UB - d.itemsize, UB, -32, 4000]))
        src = aj.LocalTensor(d, e, 1)
        count = int(rng.choice([0, 1, 7, 512 // d.itemsize]))
        fast = aj.Duplicate(st, dst, src, count, profile=P950)
        ref = REF.Duplicate(rs, dst, src, count, profile=P950)
        assert message(fast, ref) is None, (dtype, e, count, message(fast, ref))


def test_duplicate_from_tensor_value_and_kernel():
    st, rs = _states(0)
    val = np.array([3.25], np.float32)
    ub = np.asarray(st.ub).copy()
    ub[256:260] = val.view(np.uint8)
    st = st.replace(ub=jnp.asarray(ub))
    dst, src = aj.LocalTensor(aj.float32, 1024, 64), aj.LocalTensor(aj.float32, 256, 8)
    out = aj.Duplicate(st, dst, src, 64, profile=P950)
    assert (np.asarray(out.ub)[1024 : 1024 + 256].view(np.float32) == 3.25).all()
    k = aj.Kernel(P950, state=st)
    k.Duplicate(dst, src, 64)
    assert np.asarray(k.state.ub).tobytes() == np.asarray(out.ub).tobytes()
    # not on A2; not in the high-dim prototypes
    with pytest.raises(UsageError, match="src"):
        aj.Duplicate(aj.reset_state("ascend910b", ub_bytes=UB), dst, src, 64)
    with pytest.raises(UsageError, match="src"):
        aj.Duplicate(st, dst, src, 64, 1, 1, 8, profile=P950)


@pytest.mark.parametrize("pair", [("complex64", "float32"), ("complex32", "half")])
def test_complex_abs_is_not_modelled_not_misuse(pair):
    """Abs<T, U> with a complex U (Abs.md "tensor前n个复数计算", 950 only; the page's own call
    Abs(dstLocal<float>, srcLocal<complex64>, 512)): NotModelledError in both implementations, never a
    UsageError; elsewhere (no ``apis.Abs.complex_pairs``) a U != T is the usual UsageError."""
    from ascend_jax.errors import NotModelledError

    u, t = (aj.dtypes.as_dtype(x) for x in pair)
    dst, src = aj.LocalTensor(t, 0, 512), aj.LocalTensor(u, 2048, 512)
    for mod, st in ((aj, aj.reset_state(P950, ub_bytes=8192)), (REF, RS.reset_state(P950, ub_bytes=8192))):
        with pytest.raises(NotModelledError, match="complex"):
            mod.Abs(st, dst, src, 512, profile=P950)
    with pytest.raises(UsageError):
        aj.Abs(aj.reset_state("ascend910b", ub_bytes=8192), dst, src, 512, profile="ascend910b")
