"""DataCopy / DataCopyPad: fast path vs the literal reference over random batched cases, the doc
examples, and the static errors."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import SCALE

import ascend_jax as aj
from ascend_jax.errors import Fault, NotModelledError, UnsupportedError, UsageError
from ascend_jax.gm import OUT_OF_GM
from ascend_jax.reference import data_copy as REF
from ascend_jax.reference.state import reset_state as ref_reset

UB_BYTES = 4096
GM_BYTES = 3000  # deliberately not a multiple of 32
NB = 48  # slot bucket (blocks) shared by every case of a campaign
N_CASES = 300 * SCALE


# -- case generation --------------------------------------------------------------------------------


def _addr(rng, limit, align, span):
    """Mostly in range and aligned; sometimes misaligned or out of range."""
    r = rng.random()
    hi = max(limit - span, 0)
    a = int(rng.integers(0, hi // align + 1)) * align
    if r < 0.08:
        a += int(rng.integers(1, align)) if align > 1 else 0
    elif r < 0.14:
        a = limit - align * int(rng.integers(0, 3))
    elif r < 0.17:
        a = -align
    return a


def _datacopy_case(rng, kind, form, size):
    if form == "count":
        blocks = int(rng.integers(0, NB + 1))
        count = blocks * 32 // size
        if rng.random() < 0.08:
            count += 1  # not 32-byte aligned -> BAD_PARAM (traced)
        x = count
        span = blocks * 32
    else:
        bc = int(rng.integers(0, 7))
        bl = int(rng.integers(0, NB // max(bc, 1) + 1))
        sg, dg = (int(v) for v in rng.integers(0, 6, 2))
        if rng.random() < 0.05:
            sg = 70000  # out of range (uint16) -> BAD_PARAM
        x = (bc, bl, sg, dg)
        span = bc * (bl + max(sg, dg)) * 32 if sg < 65536 else 0
    lims = {"ub": UB_BYTES, "gm": GM_BYTES}
    src_side, dst_side = kind[:2], kind[-2:]
    src = _addr(rng, lims[src_side], 32 if src_side == "ub" else size, min(span, lims[src_side]))
    dst = _addr(rng, lims[dst_side], 32 if dst_side == "ub" else size, min(span, lims[dst_side]))
    return src, dst, x


def _tensor(side, dtype, addr, n=1):
    if side == "ub":
        return aj.LocalTensor(dtype, addr, n)
    return aj.GlobalTensor(dtype, 0, addr, n)


@functools.cache
def _fast_datacopy(profile, kind, form, dtype):
    P = aj.load_profile(profile)

    def one(ub, gm0, src, dst, x):
        st = aj.reset_state(P, ub=ub)
        s = _tensor(kind[:2], dtype, src)
        d = _tensor(kind[-2:], dtype, dst)
        arg = x if form == "count" else aj.DataCopyParams(*x)
        st, gm = aj.DataCopy(st, (gm0,), d, s, arg, profile=P, max_blocks=NB)
        return st.ub, gm[0], st.fault

    return jax.jit(jax.vmap(one))


def _random_bytes(rng, n, batch):
    return rng.integers(0, 256, (batch, n), dtype=np.uint8)


def _compare(profile, kind, form, dtype, seed, n=N_CASES):
    P = aj.load_profile(profile)
    d = aj.as_dtype(dtype)
    rng = np.random.default_rng(seed)
    cases = [_datacopy_case(rng, kind, form, d.itemsize) for _ in range(n)]
    ub = _random_bytes(rng, UB_BYTES, n)
    gm = _random_bytes(rng, GM_BYTES, n)
    src = np.array([c[0] for c in cases], np.int32)
    dst = np.array([c[1] for c in cases], np.int32)
    if form == "count":
        x = jnp.asarray(np.array([c[2] for c in cases], np.int32))
    else:
        x = tuple(jnp.asarray(np.array([c[2][i] for c in cases], np.int32)) for i in range(4))
    f_ub, f_gm, f_fault = (np.asarray(v) for v in _fast_datacopy(profile, kind, form, d)(ub, gm, src, dst, x))
    faults = set()
    for i, (s, t, xx) in enumerate(cases):
        st = ref_reset(P, ub_bytes=UB_BYTES)
        st.ub[:] = ub[i]
        arg = xx if form == "count" else aj.DataCopyParams(*xx)
        r_st, r_gm = REF.DataCopy(
            st, [gm[i].copy()], _tensor(kind[-2:], d, t), _tensor(kind[:2], d, s), arg, profile=P
        )
        ctx = (profile, kind, form, dtype, s, t, xx)
        assert int(f_fault[i]) == r_st.fault, (
            ctx,
            aj.describe_faults(int(f_fault[i])),
            aj.describe_faults(r_st.fault),
        )
        assert np.array_equal(f_ub[i], r_st.ub), ctx
        assert np.array_equal(f_gm[i], r_gm[0]), ctx
        faults.add(r_st.fault)
    assert len(faults) >= 3  # the campaign reached clean calls and several fault kinds


@pytest.mark.parametrize("kind", ["gm2ub", "ub2gm", "ub2ub"])
@pytest.mark.parametrize("form", ["count", "params"])
def test_datacopy_matches_reference(kind, form):
    dtype = {"gm2ub": "half", "ub2gm": "float32", "ub2ub": "int8"}[kind]
    _compare("ascend910b", kind, form, dtype, seed=hash((kind, form)) % 2**32)


@pytest.mark.parametrize("kind", ["gm2ub", "ub2gm", "ub2ub"])
def test_static_datacopy_matches_reference(kind):
    """Every value a Python int (a kernel's fixed tiling): faults decided at trace time and whole-row
    moves (``_engine/copy.static_block_copy``); same bits and fault words as the reference.
    Static misuse the reference records as a fault is a UsageError here (skipped)."""
    P = aj.load_profile("ascend910b")
    d = aj.as_dtype({"gm2ub": "float32", "ub2gm": "half", "ub2ub": "int16"}[kind])
    rng = np.random.default_rng({"gm2ub": 11, "ub2gm": 12, "ub2ub": 13}[kind])
    ub0, gm0 = _random_bytes(rng, UB_BYTES, 1)[0], _random_bytes(rng, GM_BYTES, 1)[0]
    done, faults = 0, set()
    for i in range(24):
        s, t, x = _datacopy_case(rng, kind, "count" if i % 4 == 0 else "params", d.itemsize)
        arg = x if isinstance(x, int) else aj.DataCopyParams(*x)
        try:
            f_st, f_gm = aj.DataCopy(
                aj.reset_state(P, ub=ub0),
                (gm0,),
                _tensor(kind[-2:], d, t),
                _tensor(kind[:2], d, s),
                arg,
                profile=P,
            )
        except UsageError:
            continue
        st = ref_reset(P, ub_bytes=UB_BYTES)
        st.ub[:] = ub0
        r_st, r_gm = REF.DataCopy(
            st, [gm0.copy()], _tensor(kind[-2:], d, t), _tensor(kind[:2], d, s), arg, profile=P
        )
        ctx = (kind, s, t, x)
        assert int(f_st.fault) == r_st.fault, (ctx, aj.describe_faults(int(f_st.fault)))
        assert np.array_equal(np.asarray(f_st.ub), r_st.ub), ctx
        assert np.array_equal(np.asarray(f_gm[0]), r_gm[0]), ctx
        done += 1
        faults.add(r_st.fault)
    assert done >= 10 and len(faults) >= 2, (done, faults)


def test_datacopy_matches_reference_other_profile():
    # 910: no DataCopyPad, but every DataCopy path; 64-bit T are bit copies
    _compare("ascend910", "gm2ub", "params", "int64", seed=11)


# -- DataCopyPad ------------------------------------------------------------------------------------

PAD_NB = 64  # UB blocks (GM -> UB) or bytes/32 (UB -> GM)


def _pad_case(rng, gm2ub, size, neg_ok):
    bc = int(rng.integers(0, 6))
    elems = int(rng.integers(0, 40))
    bl = elems * size
    if rng.random() < 0.04:
        bl += 1 if size > 1 else 0  # not a multiple of sizeof(T) -> BAD_PARAM
    lp = int(rng.integers(0, 32 // size + 1)) if rng.random() < 0.5 else 0
    rp = int(rng.integers(0, 32 // size + 1)) if rng.random() < 0.5 else 0
    if rng.random() < 0.03:
        rp = 32 // size + 1  # more than 32 bytes -> BAD_PARAM
    gs = int(rng.integers(0, 40))
    if neg_ok and rng.random() < 0.3:
        gs = -int(rng.integers(0, bl + 1))  # 950: srcStride in [-blockLen, ...)
    us = int(rng.integers(0, 3))
    row = -(-(lp * size + bl + rp * size) // 32) * 32 if gm2ub else -(-bl // 32) * 32
    while bc * (row // 32 + us) > PAD_NB and bc > 0:
        bc -= 1
    if not gm2ub and bc * bl > PAD_NB * 32:
        bc = PAD_NB * 32 // max(bl, 1)
    ub_span = bc * (row + us * 32)
    gm_span = bc * (bl + max(gs, 0))
    if gm2ub:
        src = _addr(rng, GM_BYTES, 1, min(gm_span, GM_BYTES))
        dst = _addr(rng, UB_BYTES, 32, min(ub_span, UB_BYTES))
        return src, dst, (bc, bl, gs, us), (bool(rng.random() < 0.5), lp, rp)
    src = _addr(rng, UB_BYTES, 32, min(ub_span, UB_BYTES))
    dst = _addr(rng, GM_BYTES, 1, min(gm_span, GM_BYTES))
    return src, dst, (bc, bl, us, gs), None


@functools.cache
def _fast_pad(profile, gm2ub, dtype, is_pad):
    P = aj.load_profile(profile)

    def one(ub, gm0, src, dst, prm, lp, rp, pv):
        st = aj.reset_state(P, ub=ub)
        if gm2ub:
            s, d = aj.GlobalTensor(dtype, 0, src, 1), aj.LocalTensor(dtype, dst, 1)
            pad = aj.DataCopyPadExtParams(is_pad, lp, rp, pv)
        else:
            s, d = aj.LocalTensor(dtype, src, 1), aj.GlobalTensor(dtype, 0, dst, 1)
            pad = None
        st, gm = aj.DataCopyPad(
            st, (gm0,), d, s, aj.DataCopyExtParams(*prm), pad, profile=P, max_blocks=PAD_NB
        )
        return st.ub, gm[0], st.fault

    return jax.jit(jax.vmap(one))


@pytest.mark.parametrize(
    "gm2ub,dtype,is_pad", [(True, "half", True), (True, "int32", False), (False, "float32", None)]
)
def test_static_datacopypad_matches_reference(gm2ub, dtype, is_pad):
    """Static parameters: faults at trace time and whole-row moves; same bits as the reference."""
    P = aj.load_profile("ascend910b")
    d = aj.as_dtype(dtype)
    rng = np.random.default_rng(21 + 2 * gm2ub + (is_pad is True))
    ub0, gm0 = _random_bytes(rng, UB_BYTES, 1)[0], _random_bytes(rng, GM_BYTES, 1)[0]
    done, faults = 0, set()
    for _ in range(24):
        src, dst, prm, padp = _pad_case(rng, gm2ub, d.itemsize, False)
        pv = int(rng.integers(-100, 100))
        if gm2ub:
            s, t = aj.GlobalTensor(d, 0, src, 1), aj.LocalTensor(d, dst, 1)
            pad = aj.DataCopyPadExtParams(is_pad, padp[1], padp[2], pv)
        else:
            s, t = aj.LocalTensor(d, src, 1), aj.GlobalTensor(d, 0, dst, 1)
            pad = None
        try:
            f_st, f_gm = aj.DataCopyPad(
                aj.reset_state(P, ub=ub0), (gm0,), t, s, aj.DataCopyExtParams(*prm), pad, profile=P
            )
        except UsageError:
            continue
        st = ref_reset(P, ub_bytes=UB_BYTES)
        st.ub[:] = ub0
        r_st, r_gm = REF.DataCopyPad(st, [gm0.copy()], t, s, aj.DataCopyExtParams(*prm), pad, profile=P)
        ctx = (gm2ub, src, dst, prm, padp)
        assert int(f_st.fault) == r_st.fault, (ctx, aj.describe_faults(int(f_st.fault)))
        assert np.array_equal(np.asarray(f_st.ub), r_st.ub), ctx
        assert np.array_equal(np.asarray(f_gm[0]), r_gm[0]), ctx
        done += 1
        faults.add(r_st.fault)
    assert done >= 10 and len(faults) >= 2, (done, faults)


@pytest.mark.parametrize(
    "profile,gm2ub,dtype,is_pad",
    [
        ("ascend910b", True, "half", True),
        ("ascend910b", True, "int32", False),
        ("ascend910b", False, "float32", None),
        ("ascend950", True, "int8", True),
        ("ascend950", False, "uint16", None),
    ],
)
def test_datacopypad_matches_reference(profile, gm2ub, dtype, is_pad):
    P = aj.load_profile(profile)
    d = aj.as_dtype(dtype)
    rng = np.random.default_rng(hash((profile, gm2ub, dtype)) % 2**32)
    neg = gm2ub and P.api("DataCopyPad").negative_src_stride
    cases = []
    while len(cases) < N_CASES:
        c = _pad_case(rng, gm2ub, d.itemsize, neg)
        if gm2ub:
            c = (c[0], c[1], c[2], (is_pad, c[3][1], c[3][2]))
        cases.append(c)
    n = len(cases)
    ub = _random_bytes(rng, UB_BYTES, n)
    gm = _random_bytes(rng, GM_BYTES, n)
    src = np.array([c[0] for c in cases], np.int32)
    dst = np.array([c[1] for c in cases], np.int32)
    prm = tuple(jnp.asarray(np.array([c[2][i] for c in cases], np.int32)) for i in range(4))
    lp = jnp.asarray(np.array([c[3][1] if c[3] else 0 for c in cases], np.int32))
    rp = jnp.asarray(np.array([c[3][2] if c[3] else 0 for c in cases], np.int32))
    pv_np = rng.integers(-100, 100, n).astype(d.np_dtype)
    out = _fast_pad(profile, gm2ub, d, is_pad)(ub, gm, src, dst, prm, lp, rp, jnp.asarray(pv_np))
    f_ub, f_gm, f_fault = (np.asarray(v) for v in out)
    faults = set()
    for i, (s, t, pr, pd) in enumerate(cases):
        st = ref_reset(P, ub_bytes=UB_BYTES)
        st.ub[:] = ub[i]
        if gm2ub:
            sd = aj.GlobalTensor(d, 0, s, 1), aj.LocalTensor(d, t, 1)
            pad = aj.DataCopyPadExtParams(is_pad, pd[1], pd[2], pv_np[i])
        else:
            sd = aj.LocalTensor(d, s, 1), aj.GlobalTensor(d, 0, t, 1)
            pad = None
        r_st, r_gm = REF.DataCopyPad(
            st, [gm[i].copy()], sd[1], sd[0], aj.DataCopyExtParams(*pr), pad, profile=P
        )
        ctx = (profile, gm2ub, dtype, s, t, pr, pd)
        assert int(f_fault[i]) == r_st.fault, (
            ctx,
            aj.describe_faults(int(f_fault[i])),
            aj.describe_faults(r_st.fault),
        )
        assert np.array_equal(f_ub[i], r_st.ub), ctx
        assert np.array_equal(f_gm[i], r_gm[0]), ctx
        faults.add(r_st.fault)
    assert len(faults) >= 3


# -- doc examples (expected values from the pages, not from our output) ----------------------------


def test_doc_examples_count_and_params():
    """GM与UB连续/高维切分数据搬运: [1 2 3 ... 512] half in, the same out (count, and
    DataCopyParams{1, 512*2/32, 0, 0}); UBToUB 高维切分 示例2: blockCount 2, blockLen 3, gaps 1 / 2."""
    src = np.arange(1, 513).astype(np.float16)
    for arg in (512, aj.DataCopyParams(blockCount=1, blockLen=512 * 2 // 32, srcGap=0, dstGap=0)):
        k = aj.Kernel()
        g_in, g_out = k.gm(src), k.gm(np.zeros(512, np.float16))
        x = k.alloc(aj.half, 512)
        k.DataCopy(x, g_in, arg)
        k.DataCopy(g_out, x, arg)
        assert np.array_equal(k.read(x), src) and np.array_equal(k.read(g_out), src)
    # UB -> UB, non-contiguous: 112 half in, blocks [0..48) and [64..112) land at 0 and 80
    k = aj.Kernel()
    a, b = k.alloc(aj.half, 112), k.alloc(aj.half, 128)
    k.write(a, np.arange(112))
    k.DataCopy(b, a, aj.DataCopyParams(2, 3, 1, 2))
    got = k.read(b)
    assert np.array_equal(got[:48], np.arange(48)) and np.array_equal(got[80:128], np.arange(64, 112))
    assert not got[48:80].any()


def test_doc_example_datacopypad_rows():
    """DataCopyPad 场景2: blockCount rows of 59 float with rightPadding 5 and isPad -> 64-float rows
    ending in zeros; UB -> GM copies the 59 back (the dummy is dropped)."""
    rows, cols = 4, 59
    src = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols) + 1
    k = aj.Kernel()
    g = k.gm(src)
    back = k.gm(np.zeros((rows, cols), np.float32))
    x = k.alloc(aj.float32, rows * 64)
    k.DataCopyPad(x, g, aj.DataCopyExtParams(rows, cols * 4, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 5, 0))
    ub = k.read(x).reshape(rows, 64)
    assert np.array_equal(ub[:, :cols], src) and not ub[:, cols:].any()
    k.DataCopyPad(back, x, aj.DataCopyExtParams(rows, cols * 4, 0, 0, 0))
    assert np.array_equal(k.read(back).reshape(rows, cols), src)


def test_datacopypad_dummy_repeats_first_element():
    """示例2: blockLen 47 bytes without padding -> the dummy bytes repeat the row's first element."""
    k = aj.Kernel()
    g = k.gm(np.arange(1, 48, dtype=np.uint8))
    x = k.alloc(aj.uint8, 64)
    k.write(x, np.full(64, 0xEE))
    k.DataCopyPad(x, g, aj.DataCopyExtParams(1, 47, 0, 0, 0), aj.DataCopyPadExtParams(False, 0, 0, 0))
    got = k.read(x)
    assert np.array_equal(got[:47], np.arange(1, 48)) and (got[47:64] == 1).all()


def test_zero_block_nop_and_fault_policy():
    k = aj.Kernel()
    g = k.gm(np.ones(64, np.float32))
    x = k.alloc(aj.float32, 64)
    k.DataCopy(x, g, aj.DataCopyParams(0, 8, 0, 0))  # NOP on A2 (documented)
    k.DataCopy(x, g, 0)
    assert not k.read(x).any() and int(k.state.fault) == 0


# -- static errors ----------------------------------------------------------------------------------


def test_static_errors():
    k = aj.Kernel()
    g = k.gm(np.zeros(256, np.float32))
    x = k.alloc(aj.float32, 256)
    h = k.alloc(aj.half, 256)
    with pytest.raises(UsageError, match=r"DataCopy: count=7 .*'ascend910b'.*multiple of 8"):
        k.DataCopy(x, g, 7)
    with pytest.raises(UsageError, match=r"DataCopy: src.dtype='float32'.*half"):
        k.DataCopy(h, g, 256)
    with pytest.raises(UsageError, match=r"blockCount=4096.*\[0, 4095\]"):
        k.DataCopy(x, g, aj.DataCopyParams(4096, 1, 0, 0))
    with pytest.raises(UsageError, match=r"srcStride=65536.*\[0, 65535\]"):
        k.DataCopy(x, g, aj.DataCopyParams(2, 1, 65536, 0))
    with pytest.raises(UsageError, match=r"runs past the GM array"):
        k.DataCopy(x, g[128], 256)  # 128 floats left, 256 asked for
    with pytest.raises(UsageError, match=r"runs past the GM array"):
        k.DataCopy(g, x, aj.DataCopyParams(2, 16, 0, 1))
    with pytest.raises(UsageError, match=r"GlobalTensor, GlobalTensor"):
        k.DataCopy(g, g, 8)
    with pytest.raises(UsageError, match=r"blockLen=6 .*multiple of sizeof\(float\) = 4"):
        k.DataCopyPad(x, g, aj.DataCopyExtParams(1, 6, 0, 0, 0), aj.DataCopyPadExtParams())
    with pytest.raises(UsageError, match=r"rightPadding=9 .*\[0, 8\]"):
        k.DataCopyPad(x, g, aj.DataCopyExtParams(1, 8, 0, 0, 0), aj.DataCopyPadExtParams(True, 0, 9, 0))
    with pytest.raises(UnsupportedError, match=r"DataCopyPad: api='DataCopyPad' .*'ascend910'"):
        k9 = aj.Kernel("ascend910")
        k9.DataCopyPad(k9.alloc(aj.float32, 8), k9.gm(np.zeros(8, np.float32)), aj.DataCopyExtParams(1, 32))
    with pytest.raises(UsageError, match=r"UB -> UB DataCopy is not supported"):
        kb = aj.Kernel("ascend310b")
        kb.DataCopy(kb.alloc(aj.half, 16), kb.alloc(aj.half, 16), 16)
    with pytest.raises(NotModelledError, match="Compact"):
        k5 = aj.Kernel("ascend950")
        k5.DataCopyPad(
            k5.alloc(aj.int8, 64),
            k5.gm(np.zeros(64, np.int8)),
            aj.DataCopyExtParams(1, 32),
            aj.DataCopyPadExtParams(),
            mode=1,
        )


def test_runtime_faults_raise_eagerly():
    k = aj.Kernel()
    g = k.gm(np.zeros(64, np.float32))
    x = k.alloc(aj.float32, 64)
    with pytest.raises(aj.AscendFault, match="MISALIGNED"):
        k.DataCopy(aj.LocalTensor(aj.float32, 16, 8), g, 8)
    k = aj.Kernel(fault_policy="record")
    g = k.gm(np.zeros(64, np.float32))
    x = k.alloc(aj.float32, 64)
    # a jax address past the GM array (g[jnp.int32(60)] is an offset checked on the host: only a
    # tracer offset stays traced, tests/test_bad_input_kernel.py)
    k.DataCopy(x, aj.GlobalTensor(aj.float32, g.buf, jnp.int32(60 * 4), 64), 64)
    assert int(k.state.fault) & int(OUT_OF_GM)
    assert int(k.state.fault) & ~int(Fault.OUT_OF_UB | OUT_OF_GM) == 0
