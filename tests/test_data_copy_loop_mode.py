"""Loop mode (寄存器配置说明/SetLoopModePara.md, ResetLoopModePara.md; 950): DataCopy / DataCopyPad
repeated over two loops with byte strides. The page's 5-D example (场景6) with its shapes, the fast
path against the reference over random loops and addresses, and the static errors."""

import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax.errors import NotModelledError, UnsupportedError, UsageError
from ascend_jax.reference import data_copy as REF
from ascend_jax.reference.state import reset_state as ref_reset

OUT_TO_UB, UB_TO_OUT = aj.DataCopyMVType.OUT_TO_UB, aj.DataCopyMVType.UB_TO_OUT


def test_doc_five_dim_example():
    """场景6: GM int8 [2, 4, 3, 128, 126] -> UB [512, 128]: loop1 (2 x, src 128*126 B, dst 64*128 B),
    loop2 (2 x, src 3*128*126 B, dst 2*64*128 B), DataCopyPad 64 rows of 126 bytes padded to 128, and
    a host loop over dim 0 (src 4*3*128*126 B, dst 2*2*64*128 B): UB holds x[:2, :2, :2, :64, :]."""
    rng = np.random.default_rng(6)
    x = rng.integers(-128, 128, (2, 4, 3, 128, 126)).astype(np.int8)
    k = aj.Kernel("ascend950")
    g = k.gm(x.reshape(-1))
    ub = k.alloc(aj.int8, 512 * 128)
    loop = aj.LoopModeParams(2, 2, 128 * 126, 64 * 128, 3 * 128 * 126, 2 * 64 * 128)
    k.SetLoopModePara(loop, OUT_TO_UB)
    copy = aj.DataCopyExtParams(64, 126, 0, 0, 0)
    pad = aj.DataCopyPadExtParams(True, 0, 0, 0)
    for dim0 in range(2):
        k.DataCopyPad(ub[dim0 * 2 * 2 * 64 * 128], g[dim0 * 4 * 3 * 128 * 126], copy, pad)
    k.ResetLoopModePara(OUT_TO_UB)
    got = k.read(ub).reshape(2, 2, 2, 64, 128)
    assert np.array_equal(got[..., :126], x[:2, :2, :2, :64, :])
    # reset: the next call on the path is a single copy again
    k.DataCopyPad(ub, g, aj.DataCopyExtParams(1, 32, 0, 0, 0), pad)
    assert np.array_equal(k.read(ub)[:32], x.reshape(-1)[:32])
    assert np.array_equal(k.read(ub).reshape(2, 2, 2, 64, 128)[0, 0, 1, :, :126], x[0, 0, 1, :64, :])


def _case(rng, out_to_ub):
    l1, l2 = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    gm_s1, gm_s2 = int(rng.integers(0, 200)), int(rng.integers(0, 600))
    ub_s1 = 32 * int(rng.integers(0, 6))
    ub_s2 = ub_s1 * l1 + 32 * int(rng.integers(0, 3))
    if out_to_ub:
        return aj.LoopModeParams(l1, l2, gm_s1, ub_s1, gm_s2, ub_s2)
    return aj.LoopModeParams(l1, l2, ub_s1, gm_s1, ub_s2, gm_s2)


@pytest.mark.parametrize("api", ["DataCopy", "DataCopyPad"])
@pytest.mark.parametrize("out_to_ub", [True, False])
def test_loop_mode_matches_reference(api, out_to_ub):
    """Random loops, row shapes and addresses (some past the UB or GM end): same bytes and faults."""
    P = aj.load_profile("ascend950")
    rng = np.random.default_rng(int(out_to_ub) * 2 + (api == "DataCopy"))
    faults = set()
    for _ in range(12):
        loop = _case(rng, out_to_ub)
        d = aj.as_dtype(str(rng.choice(["int8", "half", "float32"])))
        ub0 = rng.integers(0, 256, 2048, dtype=np.uint8)
        gm0 = rng.integers(0, 256, 1500, dtype=np.uint8)
        ub_addr = 32 * int(rng.integers(0, 60))
        gm_addr = d.itemsize * int(rng.integers(0, 1400 // d.itemsize))
        ub_t, gm_t = aj.LocalTensor(d, ub_addr, 1), aj.GlobalTensor(d, 0, gm_addr, 1)
        dst, src = (ub_t, gm_t) if out_to_ub else (gm_t, ub_t)
        if api == "DataCopy":
            args = (aj.DataCopyParams(int(rng.integers(1, 3)), int(rng.integers(1, 3)), 0, 0),)
        else:
            bl = d.itemsize * int(rng.integers(1, 40))
            args = (aj.DataCopyExtParams(int(rng.integers(1, 3)), bl, 0, 0, 0),)
            if out_to_ub:
                args += (aj.DataCopyPadExtParams(True, 0, 0, 3),)
        typ = OUT_TO_UB if out_to_ub else UB_TO_OUT
        st = aj.SetLoopModePara(aj.reset_state(P, ub=ub0), loop, typ, profile=P)
        try:
            f_st, f_gm = getattr(aj, api)(
                st, (gm0,), dst, src, *args, profile=P, **({"max_blocks": 64} if api == "DataCopy" else {})
            )
        except UsageError:
            continue  # a static GM access past the buffer (the reference's OUT_OF_GM)
        r = ref_reset(P, ub_bytes=2048)
        r.ub[:] = ub0
        r = REF.SetLoopModePara(r, loop, typ, profile=P)
        r_st, r_gm = getattr(REF, api)(r, [gm0.copy()], dst, src, *args, profile=P)
        ctx = (api, loop, d.name, ub_addr, gm_addr, args)
        assert int(f_st.fault) == r_st.fault, (ctx, aj.describe_faults(int(f_st.fault)))
        assert np.array_equal(np.asarray(f_st.ub), r_st.ub), ctx
        assert np.array_equal(np.asarray(f_gm[0]), r_gm[0]), ctx
        assert f_st.loop_mode is not None and r_st.loop_mode  # the registers stay set
        faults.add(r_st.fault)
    assert 0 in faults


def test_static_errors_and_products():
    k = aj.Kernel("ascend950")
    with pytest.raises(UsageError, match=r"loopParams.loop1DstStride=40 .*multiple of 32"):
        k.SetLoopModePara(aj.LoopModeParams(2, 1, 0, 40, 0, 0), OUT_TO_UB)  # UB-side stride
    with pytest.raises(UsageError, match=r"loopParams.loop1Size=2097152 .*\[0, 2097151\]"):
        k.SetLoopModePara(aj.LoopModeParams(2**21, 1), OUT_TO_UB)
    with pytest.raises(UsageError, match=r"loopParams.loop2SrcStride=2097152 .*\[0, 2097151\]"):
        k.SetLoopModePara(aj.LoopModeParams(1, 1, 0, 0, 2**21, 0), UB_TO_OUT)
    with pytest.raises(UsageError, match=r"type=7"):
        k.SetLoopModePara(aj.LoopModeParams(1, 1), 7)
    g, x = k.gm(np.zeros(64, np.float32)), k.alloc(aj.float32, 64)
    k.SetLoopModePara(aj.LoopModeParams(0, 1), OUT_TO_UB)
    with pytest.raises(NotModelledError, match="loop size of 0"):
        k.DataCopy(x, g, 8)
    k.DataCopy(g, x, 8)  # the other path has no loop mode
    k.ResetLoopModePara(OUT_TO_UB)
    k.DataCopy(x, g, 8)
    for prof in ("ascend910b", "ascend310p"):
        kb = aj.Kernel(prof)
        with pytest.raises(UnsupportedError, match=r"SetLoopModePara: api='SetLoopModePara'"):
            kb.SetLoopModePara(aj.LoopModeParams(1, 1), OUT_TO_UB)
        with pytest.raises(UnsupportedError, match=r"ResetLoopModePara"):
            kb.ResetLoopModePara(OUT_TO_UB)


def test_race_check_sees_every_iteration():
    """The hazard footprint of a looped copy covers every iteration: a vector read of the last
    iteration's bytes without MTE2 -> V sync is reported."""

    def kernel(k, x):
        a, b = k.alloc(aj.float32, 256), k.alloc(aj.float32, 64)
        k.SetLoopModePara(aj.LoopModeParams(4, 1, 256, 256, 0, 0), OUT_TO_UB)
        k.DataCopy(a, x, 64)  # 4 x 64 floats, 256 bytes apart: all of a
        k.ResetLoopModePara(OUT_TO_UB)
        k.Adds(b, a[192], 1.0, 64)  # reads the last iteration's bytes only

    res = aj.run_kernel(kernel, np.arange(256, dtype=np.float32), profile="ascend950")
    assert res.findings, "the last iteration's write was not seen"
