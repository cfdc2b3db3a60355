"""The strided-operand core (``_engine/pipeline.run_strided``) with TWO strided tensor sources: a
private test element function ``a + b`` (wrapping) for int16 / int32 with BinaryRepeatParams-style
strides, vmapped over random cases (one compiled program per dtype), against a literal NumPy model
written here. Also: the lane plan built for a static call form equals the one a traced form selects."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from ascend_jax import dtypes as _dt
from ascend_jax._engine import lanes as LN
from ascend_jax._engine.pipeline import StridedStatic, run_strided
from ascend_jax.api import _args as A
from ascend_jax.api._forms import empty_dyn, plan_forms
from ascend_jax.errors import Fault
from ascend_jax.params import BinaryRepeatParams
from ascend_jax.profile import as_profile
from ascend_jax.state import batch_states, reset_state
from ascend_jax.tensor import LocalTensor

P = as_profile("ascend910b")
UB = 12288  # a small UB keeps the test cheap; addresses stay inside it or fault OUT_OF_UB
R = 4  # repeat bucket


def _add(a, b, s, dtype, profile, ctrl, dyn):
    """Test element function: a + b modulo 2**bits (bits held in uint32 lanes)."""
    width = np.uint32(0xFFFFFFFF >> (32 - dtype.bits))
    return (a + b) & width


def _model(ub, dtype, dst, src0, src1, strides, mask, repeat):
    """Literal NumPy model: for r < repeat, block b, element e: lane l = b*E + e active iff l < mask;
    dst element = src0 element + src1 element (wrapping). Returns (ub, fault bits)."""
    size = dtype.itemsize
    E = 32 // size
    L = 8 * E
    db, s0b, s1b, dr, s0r, s1r = strides
    npdt = np.dtype(f"int{8 * size}")
    out = ub.copy()
    n = min(mask, L)
    fault = 0
    for base in (dst, src0, src1):
        if base % 32:
            fault |= Fault.MISALIGNED
    if repeat == 0 or n == 0:
        return ub, 0
    for addr, blk, rep in ((dst, db, dr), (src0, s0b, s0r), (src1, s1b, s1r)):
        for r in range(repeat):
            for b in range(8):
                if b * E < n:
                    a = addr + (r * rep + b * blk) * 32
                    if a < 0 or a + 32 > UB:
                        fault |= Fault.OUT_OF_UB
    if db == 0:
        fault |= Fault.DST_BLK_STRIDE_ZERO
    if fault:
        return ub, fault
    for r in range(repeat):
        for lane in range(n):
            b, e = divmod(lane, E)
            a0 = src0 + (r * s0r + b * s0b) * 32 + e * size
            a1 = src1 + (r * s1r + b * s1b) * 32 + e * size
            ad = dst + (r * dr + b * db) * 32 + e * size
            x = ub[a0 : a0 + size].view(npdt)[0].astype(np.int64)
            y = ub[a1 : a1 + size].view(npdt)[0].astype(np.int64)
            v = np.array([(x + y) & ((1 << (8 * size)) - 1)], np.uint64).astype(f"uint{8 * size}")
            out[ad : ad + size] = v.view(np.uint8)
    return out, fault


def _cases(rng, n):
    """Disjoint operand windows (dst in [0, 4K), src0 in [4K, 8K), src1 from 8K), so no overlap
    rule fires; dstRepStride >= 8 * dstBlkStride, so no two dst blocks coincide; a few misaligned,
    out-of-UB and dstBlkStride == 0 cases."""
    out = []
    for i in range(n):
        db = int(rng.integers(0, 3))
        strides = (
            db,
            int(rng.integers(0, 3)),
            int(rng.integers(1, 3)),
            int(rng.integers(max(8 * db, 1), 18)),
            int(rng.integers(0, 17)),
            int(rng.integers(0, 17)),
        )
        dst = 32 * int(rng.integers(0, 8))
        src0 = 4096 + 32 * int(rng.integers(0, 8))
        src1 = 8192 + 32 * int(rng.integers(0, 8)) + (16 if i % 17 == 5 else 0)
        if i % 13 == 7:
            src1 = UB - 96  # runs past the end of the UB
        out.append((dst, src0, src1, strides, int(rng.integers(0, 300)), int(rng.integers(0, R + 1))))
    return out


def _run(dtype, cases, kind):
    st = StridedStatic(
        api="TestAdd",
        dtype=dtype,
        R=R,
        ordered=False,
        profile=P,
        elem=_add,
        srcs=("src0", "src1"),
        kind=kind,
    )
    rng = np.random.default_rng(11)
    ub = rng.integers(0, 256, UB, dtype=np.uint8)
    n = len(cases)
    state = batch_states(reset_state(P, ub=jnp.asarray(ub)), n)
    dyn = {
        "dst": jnp.asarray([c[0] for c in cases], jnp.int32),
        "src0": jnp.asarray([c[1] for c in cases], jnp.int32),
        "src1": jnp.asarray([c[2] for c in cases], jnp.int32),
        "strides": jnp.asarray([c[3] for c in cases], jnp.int32),
        "cont": jnp.asarray([[c[4], 0] for c in cases], jnp.uint32),
        "repeat": jnp.asarray([c[5] for c in cases], jnp.int32),
        "count": jnp.zeros((n, 2), jnp.uint32),
        "words": jnp.zeros((n, 8), jnp.uint32),
        "kind": jnp.full((n,), LN.KIND_CONTINUOUS, jnp.int32),
        "bad_param": jnp.zeros((n,), bool),
        "bad_mask": jnp.zeros((n,), bool),
    }
    out = jax.jit(jax.vmap(lambda s, d: run_strided(st, s, d)))(state, dyn)
    return ub, np.asarray(out.ub), np.asarray(out.fault)


def test_two_strided_sources_match_numpy_model():
    rng = np.random.default_rng(7)
    for name in ("int16", "int32"):
        dt = _dt.as_dtype(name)
        cases = _cases(rng, 48)
        ub, got_ub, got_fault = _run(dt, cases, LN.KIND_CONTINUOUS)
        faults, written = set(), 0
        for i, (dst, s0, s1, strides, mask, rep) in enumerate(cases):
            want_ub, want_fault = _model(ub, dt, dst, s0, s1, strides, mask, rep)
            assert int(got_fault[i]) == int(want_fault), (name, cases[i])
            np.testing.assert_array_equal(got_ub[i], want_ub, err_msg=f"{name} {cases[i]}")
            faults.add(int(want_fault))
            written += int(np.any(want_ub != ub))
        assert len(faults) > 1 and written > len(cases) // 4  # some cases fault, many write


def _fields(plan):
    return tuple(getattr(plan, f.name) for f in dataclasses.fields(plan))


def test_lane_plan_static_kind_equals_traced_kind():
    """Every call form: the plan built for a static kind equals the plan selected by a traced kind
    (random registers, Normal and Counter mode, random counts / masks / repeats)."""
    rng = np.random.default_rng(9)
    dt = _dt.as_dtype("half")
    n, L = 64, P.lanes(dt)
    state = batch_states(reset_state(P, ub_bytes=64), n)
    vm = rng.integers(0, 2**32, (n, 8), dtype=np.uint64).astype(np.uint32)
    vm[::3, 1] = 0
    vm[::5, 0] = 0
    vm[:, 4:] = 0
    state = state.replace(vmask=jnp.asarray(vm), mask_mode=jnp.asarray(rng.integers(0, 2, n), jnp.int32))
    words = rng.integers(0, 2**32, (n, 8), dtype=np.uint64).astype(np.uint32)
    words[:, 4:] = 0
    words[::4, 2:] = 0
    words[::7, :] = 0
    dyn = {
        "count": jnp.asarray(np.stack([rng.integers(0, 3 * R * L, n), np.zeros(n)], 1), jnp.uint32),
        "cont": jnp.asarray(np.stack([rng.integers(0, 2 * L, n), (np.arange(n) % 11 == 3)], 1), jnp.uint32),
        "words": jnp.asarray(words),
        "repeat": jnp.asarray(rng.integers(0, R + 2, n), jnp.int32),
    }
    for kind in range(len(LN.KINDS)):
        d = dict(dyn, kind=jnp.full((n,), kind, jnp.int32))
        got = [
            jax.jit(jax.vmap(lambda s, x, k=k: _fields(LN.plan(P, dt, R, s, x, kind=k))))(state, d)
            for k in (kind, None)
        ]
        for a, b in zip(*got, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=f"kind {kind}")


def _test_add_api(state, dst, src0, src1, *args, profile=None, isSetMask=True, max_repeats=None):
    """What a two-source elementwise API module amounts to: the shared call-form planner, the
    strided core and an element function (a private stand-in for a later public ``Add``)."""
    p = as_profile(profile)
    dt = dst.dtype
    dyn = empty_dyn("dst", "src0", "src1")
    dyn.update(dst=A.addr_of(dst), src0=A.addr_of(src0), src1=A.addr_of(src1))
    _, R, ordered = plan_forms("TestAdd", state, dt, args, p, isSetMask, max_repeats, dyn, binary=True)
    st = StridedStatic(
        api="TestAdd", dtype=dt, R=R, ordered=ordered, profile=p, elem=_add, srcs=("src0", "src1")
    )
    return run_strided(st, state, dyn)


def test_two_source_api_call_forms_share_one_program():
    dt = _dt.as_dtype("int16")
    rng = np.random.default_rng(12)
    ub = rng.integers(0, 256, UB, dtype=np.uint8)
    state = reset_state(P, ub=jnp.asarray(ub))
    dst, s0, s1 = (LocalTensor(dt, addr, 1024) for addr in (0, 4096, 8192))
    calls = [
        ((300,), (1, 1, 1, 8, 8, 8), 300, 3),  # count form: 300 elements = 2 full repeats + 44
        ((100, 3, BinaryRepeatParams(1, 2, 1, 8, 16, 8)), (1, 2, 1, 8, 16, 8), 100, 3),
        ((128, 2, BinaryRepeatParams(1, 1, 2, 9, 0, 16)), (1, 1, 2, 9, 0, 16), 128, 2),
    ]
    sizes = []
    for args, strides, n, rep in calls:
        out = _test_add_api(state, dst, s0, s1, *args, profile=P)
        sizes.append(run_strided._cache_size())
        if len(args) == 1:  # the count form: the first n elements, contiguous
            want = ub.copy()
            a = ub[4096 : 4096 + 2 * n].view(np.int16).astype(np.int32)
            b = ub[8192 : 8192 + 2 * n].view(np.int16).astype(np.int32)
            want[: 2 * n] = ((a + b) & 0xFFFF).astype(np.uint16).view(np.uint8)
        else:
            want, _ = _model(ub, dt, 0, 4096, 8192, strides, n, rep)
        assert int(out.fault) == 0
        np.testing.assert_array_equal(np.asarray(out.ub), want, err_msg=str(args))
    assert sizes[0] == sizes[1] == sizes[2]  # one program for every call form
