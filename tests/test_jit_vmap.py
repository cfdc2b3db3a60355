"""One compilation per signature; batches equal loops; eager equals jit.

Default suite vs nightly (session 19 trim): the vmap-vs-loop-vs-reference test runs 20 Adds<half>
cases (40 before, 15.5 -> 12.8 s CPU cold); the family's volume runs in
test_unary_scalar_differential.py (nightly 2,000 x 20 per group)."""

import chex
import jax
import jax.numpy as jnp
import numpy as np

import ascend_jax as aj
from ascend_jax.fuzz.families.unary_scalar import UnaryScalarFamily, random_case
from ascend_jax.testing.traces import max_traces

P = aj.load_profile("ascend910b")


def test_one_trace_serves_500_random_parameter_sets():
    """Addresses, strides, masks (bitwise words), scalars and repeat counts are traced data."""
    chex.clear_trace_counter()

    @chex.assert_max_traces(n=1)
    def call(state, dst, src, scalar, words, repeat, strides):
        params = aj.UnaryRepeatParams(*(strides[i] for i in range(4)))
        d = aj.LocalTensor(aj.half, dst, 1)
        s = aj.LocalTensor(aj.half, src, 1)
        return aj.Muls(state, d, s, scalar, words, repeat, params, profile=P, max_repeats=255)

    f = jax.jit(call)
    rng = np.random.default_rng(0)
    st = aj.reset_state(P, ub_bytes=16384)
    faults = set()
    for _ in range(500):
        out = f(
            st,
            jnp.int32(32 * rng.integers(0, 512)),
            jnp.int32(32 * rng.integers(0, 512)),
            jnp.float16(rng.normal()),
            jnp.asarray(rng.integers(0, 2**32, 4, dtype=np.uint64).astype(np.uint32)),
            jnp.int32(rng.integers(0, 256)),
            jnp.asarray(rng.integers(0, 9, 4).astype(np.int32)),
        )
        faults.add(int(out.fault))
    assert len(faults) > 1  # the parameters really varied (some cases fault, some do not)


def test_eager_calls_share_programs():
    """Eager calls of different APIs, forms, masks and repeat counts in one bucket reuse one program."""
    from ascend_jax._engine.pipeline import run_strided

    k = aj.Kernel(P)
    x, y = k.alloc(aj.float32, 1024), k.alloc(aj.float32, 1024)
    k.Muls(y, x, 1.0, 64, 3, aj.UnaryRepeatParams())
    with max_traces(run_strided.__name__, n=0):
        k.Adds(y, x, 2.0, 64, 4, aj.UnaryRepeatParams())
        k.Maxs(y, x, 2.0, [2**63, 0], 2, aj.UnaryRepeatParams())
        k.Mins(y, x, 2.0, 200)


def test_max_traces_sees_a_retrace():
    """The trace counter used above for the engine's own programs does count a new signature."""

    @jax.jit
    def probe_fn(x):
        return x + 1

    with max_traces("probe_fn", n=1) as seen:
        probe_fn(jnp.zeros(3))
        probe_fn(jnp.ones(3))  # same signature: no trace
    assert len(seen) == 1
    try:
        with max_traces("probe_fn", n=0):
            probe_fn(jnp.zeros(4))  # new shape: traced again
    except AssertionError as e:
        assert "probe_fn was traced 1 times" in str(e)
    else:
        raise AssertionError("max_traces missed a retrace")


def test_vmap_batch_equals_loop_and_reference():
    rng = np.random.default_rng(3)
    cases = [random_case(rng, P, api="Adds", dtype="half") for _ in range(20)]
    fam = UnaryScalarFamily()
    batched = fam.run_fast(cases, P)
    for c, b in zip(cases, batched, strict=True):
        single = fam.run_fast([c], P)[0]
        assert fam.compare(b, single) is None, c
        assert fam.compare(b, fam.run_reference(c, P)) is None, c


def test_jit_kernel_batch_equals_loop():
    """Positional arguments are GM arrays, keyword arguments traced parameters; the result is a
    KernelResult whose gm/out equal the eager Kernel run case by case."""

    def kern(k, a_gm, out_gm, s):
        x = k.alloc(aj.float32, 256)
        y = k.alloc(aj.float32, 256)
        k.DataCopy(x, a_gm, 256)
        k.Muls(y, x, s, 256)
        k.Adds(y, y, 1.0, 64, 4, aj.UnaryRepeatParams())
        k.DataCopy(out_gm, y, 256)
        return k.read(y)

    run = aj.jit_kernel(kern, profile=P)
    rng = np.random.default_rng(1)
    a = rng.normal(size=(16, 256)).astype(np.float32)
    s = rng.normal(size=16).astype(np.float32)
    res = run(a, np.zeros_like(a), s=s)
    assert isinstance(res, aj.KernelResult) and res.state is None
    for i in range(16):
        k = aj.Kernel(P)
        x, y = k.alloc(aj.float32, 256), k.alloc(aj.float32, 256)
        k.write(x, a[i])
        k.Muls(y, x, float(s[i]), 256)
        k.Adds(y, y, 1.0, 64, 4, aj.UnaryRepeatParams())
        want = k.read(y).view(np.uint32)
        assert np.array_equal(np.asarray(res.out[i]).view(np.uint32), want)
        assert np.array_equal(res.gm[1][i].view(np.uint32), want)
        assert np.array_equal(res.gm[0][i], a[i])  # the input buffer is unchanged


def test_max_traces_sees_a_new_program_under_vmap():
    """A jitted function called under an eager ``vmap`` reports no trace event, only a lowering: the
    counter still sees the new program (the fuzz families run the public API that way)."""

    @jax.jit
    def probe_vmapped(x):
        return x * 2

    jax.vmap(probe_vmapped)(jnp.zeros((2, 3)))
    try:
        with max_traces("probe_vmapped", n=0):
            jax.vmap(probe_vmapped)(jnp.zeros((2, 5)))  # new shape: a new program
    except AssertionError as e:
        assert "probe_vmapped was lowered 1 times" in str(e)
    else:
        raise AssertionError("max_traces missed a new program under vmap")
