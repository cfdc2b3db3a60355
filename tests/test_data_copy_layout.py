"""DataCopy layout forms (issue 33 item 2): ND2NZ (Nd2NzParams), NZ2ND (Nz2NdParamsFull), slices
(SliceInfo[]), NDDMA (NdDmaParams, NdDmaConfig) and NdDmaDci. The pages' examples with their
numbers on every product each page lists, the fast path against the literal reference over random
parameters (each listed product), and the static errors."""

import jax
import numpy as np
import pytest
from conftest import SCALE

import ascend_jax as aj
from ascend_jax.api.data_copy import copy_footprint
from ascend_jax.errors import Fault, NotModelledError, UnsupportedError, UsageError
from ascend_jax.reference import data_copy as REF
from ascend_jax.reference.state import reset_state as ref_reset

ND_PRODUCTS = ["ascend910b", "ascend910_93", "ascend310p", "ascend950"]  # ND2NZ / NZ2ND / slice pages
NDDMA_PRODUCTS = ["ascend950"]
NOT_ND = ["ascend910", "ascend310b", "ascend310p_vec", "kirinx90", "kirin9030"]


# -- doc examples (numbers from the pages) ----------------------------------------------------------


@pytest.mark.parametrize("profile", ND_PRODUCTS)
def test_doc_nd2nz_result_example(profile):
    """ND2NZ 调用示例: Nd2NzParams{1, 32, 32, 0, 32, 32, 1, 0}, half [1 2 ... 1024] ->
    [1 ... 16 33 ... 48 65 ... 80 97 ... 112 ... 1009 ... 1024]."""
    k = aj.Kernel(profile)
    g = k.gm(np.arange(1, 1025).astype(np.float16))
    x = k.alloc(aj.half, 1024)
    k.DataCopy(x, g, aj.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0))
    got = k.read(x).astype(np.int64)
    assert list(got[:16]) == list(range(1, 17))
    assert list(got[16:32]) == list(range(33, 49))
    assert list(got[32:48]) == list(range(65, 81))
    assert list(got[48:64]) == list(range(97, 113))
    assert list(got[-16:]) == list(range(1009, 1025))
    assert list(got[-32:-16]) == list(range(1009 - 32, 1025 - 32))  # row 30's second half
    assert sorted(got) == list(range(1, 1025))


@pytest.mark.parametrize("profile", ND_PRODUCTS)
def test_doc_nd2nz_figure_parameters(profile):
    """图1 (half): ndNum 2, nValue 2, dValue 24, srcNdMatrixStride 144, srcDValue 48, dstNzC0Stride 11,
    dstNzNStride 2, dstNzMatrixStride 96: A1 at block 0, B1 (next row) at block 2, A2 (the row's
    second C0) at block 11, C1 (next matrix) at element 96; A2's block padded with zeros."""
    k = aj.Kernel(profile)
    src = np.arange(1, 2 * 144 + 1).astype(np.float16)
    g = k.gm(src)
    x = k.alloc(aj.half, 512)
    k.write(x, np.full(512, -1.0))
    k.DataCopy(x, g, aj.Nd2NzParams(2, 2, 24, 144, 48, 11, 2, 96))
    got = k.read(x)
    for m, base_dst in ((0, 0), (1, 96)):
        for r in range(2):
            row = src[m * 144 + r * 48 : m * 144 + r * 48 + 24]
            a1 = base_dst + r * 2 * 16
            a2 = base_dst + 11 * 16 + r * 2 * 16
            assert np.array_equal(got[a1 : a1 + 16], row[:16]), (m, r)
            assert np.array_equal(got[a2 : a2 + 8], row[16:24]), (m, r)
            assert not got[a2 + 8 : a2 + 16].any(), (m, r)  # "补齐为0"


@pytest.mark.parametrize("profile", ND_PRODUCTS)
def test_doc_nz2nd_result_example(profile):
    """NZ2ND 调用示例: Nz2NdParamsFull{1, 32, 32, 1, 32, 32, 1}, half [1 ... 1024] ->
    [1 ... 16 513 ... 528 17 ... 32 529 ... 544 ... 497 ... 512 1009 ... 1024]."""
    k = aj.Kernel(profile)
    x = k.alloc(aj.half, 1024)
    k.write(x, np.arange(1, 1025))
    g = k.gm(np.zeros(1024, np.float16))
    k.DataCopy(g, x, aj.Nz2NdParamsFull(1, 32, 32, 1, 32, 32, 1))
    got = k.read(g).astype(np.int64)
    assert list(got[:16]) == list(range(1, 17)) and list(got[16:32]) == list(range(513, 529))
    assert list(got[32:48]) == list(range(17, 33)) and list(got[48:64]) == list(range(529, 545))
    assert list(got[-32:-16]) == list(range(497, 513)) and list(got[-16:]) == list(range(1009, 1025))


@pytest.mark.parametrize("profile", ND_PRODUCTS)
@pytest.mark.parametrize(
    "dtype, dst_d, dst_nd",
    [("half", 160, 48), ("float32", 144, 40)],  # 图1 (half) and 图2 (float)
)
def test_doc_nz2nd_figures(profile, dtype, dst_d, dst_nd):
    """ndNum 2, nValue 4, dValue 32, srcNdMatrixStride 1 (256 elements), srcNStride 4 (64 elements):
    row r of NZ matrix i is its two 16-column fractal rows, at dst i * dstNdMatrixStride + r * dstDStride."""
    d = aj.as_dtype(dtype)
    k = aj.Kernel(profile)
    x = k.alloc(d, 512)
    src = np.arange(1, 513)
    k.write(x, src)
    g = k.gm(np.zeros(dst_nd + 3 * dst_d + 32, d.np_dtype))
    k.DataCopy(g, x, aj.Nz2NdParamsFull(2, 4, 32, 1, 4, dst_d, dst_nd))
    got = k.read(g)
    for i in range(2):
        for r in range(4):
            at = i * dst_nd + r * dst_d
            a = src[i * 256 + r * 16 : i * 256 + r * 16 + 16]  # A_r: fractal 0
            b = src[i * 256 + 64 + r * 16 : i * 256 + 64 + r * 16 + 16]  # B_r: 64 elements on
            assert np.array_equal(got[at : at + 32], np.concatenate([a, b])), (i, r)


def _nddma(k, x, g, loop, value=0, config=None):
    k.NdDmaDci()
    kw = {} if config is None else {"config": config}
    k.DataCopy(x, g, aj.NdDmaParams(loop, value), **kw)


def test_doc_nddmadci_result_example():
    """NdDmaDci 调用示例: [2, 8] -> [4, 16], left 3, top 1, right 5, bottom 1, padding 0."""
    k = aj.Kernel("ascend950")
    g = k.gm(np.arange(1, 17).astype(np.float32))
    x = k.alloc(aj.float32, 64)
    k.write(x, np.full(64, 7.0))
    _nddma(k, x, g, aj.NdDmaLoopInfo((1, 8), (1, 16), (8, 2), (3, 1), (5, 1)))
    want = np.zeros((4, 16), np.float32)
    want[1, 3:11] = np.arange(1, 9)
    want[2, 3:11] = np.arange(9, 17)
    assert np.array_equal(k.read(x).reshape(4, 16), want)


@pytest.mark.parametrize("dtype", ["half", "float32", "int64"])
def test_doc_nddma_scenarios(dtype):
    """NDDMA 场景1-5 with the pages' loopInfo: constant padding, nearest-value padding, transpose,
    broadcast and slice (each expected array from the scenario's description)."""
    d = aj.as_dtype(dtype)
    # 场景1: xGm [16, 32] -> [32, 64], left 15, top 13, right 17, bottom 3, padding 0
    k = aj.Kernel("ascend950")
    src = np.arange(16 * 32).reshape(16, 32)
    g, x = k.gm(src.astype(d.np_dtype)), k.alloc(d, 32 * 64)
    _nddma(k, x, g, aj.NdDmaLoopInfo((1, 32), (1, 64), (32, 16), (15, 13), (17, 3)))
    want = np.zeros((32, 64))
    want[13:29, 15:47] = src
    assert np.array_equal(k.read(x).reshape(32, 64), want)
    # 场景3: transpose [16, 64] -> [64, 16]
    k = aj.Kernel("ascend950")
    src = np.arange(16 * 64).reshape(16, 64) % 1000
    g, x = k.gm(src.astype(d.np_dtype)), k.alloc(d, 64 * 16)
    _nddma(k, x, g, aj.NdDmaLoopInfo((1, 64), (16, 1), (64, 16), (0, 0), (0, 0)))
    assert np.array_equal(k.read(x).reshape(64, 16), src.T)
    # 场景4: broadcast [1, 16] -> [3, 16]
    k = aj.Kernel("ascend950")
    g, x = k.gm(np.arange(1, 17).astype(d.np_dtype)), k.alloc(d, 64)
    _nddma(k, x, g, aj.NdDmaLoopInfo((1, 0), (1, 16), (16, 3), (0, 0), (0, 0)))
    assert np.array_equal(k.read(x)[:48].reshape(3, 16), np.tile(np.arange(1, 17), (3, 1)))
    # 场景5: slice a [16, 16] window of a [32, 64] array
    k = aj.Kernel("ascend950")
    src = np.arange(32 * 64).reshape(32, 64) % 1000
    g, x = k.gm(src.astype(d.np_dtype)), k.alloc(d, 256)
    _nddma(k, x, g, aj.NdDmaLoopInfo((1, 64), (1, 16), (16, 16), (0, 0), (0, 0)))
    assert np.array_equal(k.read(x).reshape(16, 16), src[:16, :16])
    if d.itemsize == 8:
        return  # SPEC: "当数据类型为b64时，参数isNearestValueMode的值应为False"
    # 场景2: nearest value, [28, 15] -> [32, 32], left 11, top 3, right 6, bottom 1
    k = aj.Kernel("ascend950")
    src = np.arange(28 * 15).reshape(28, 15)
    g, x = k.gm(src.astype(d.np_dtype)), k.alloc(d, 32 * 32)
    _nddma(
        k, x, g, aj.NdDmaLoopInfo((1, 15), (1, 32), (15, 28), (11, 3), (6, 1)), config=aj.NdDmaConfig(True)
    )
    assert np.array_equal(k.read(x).reshape(32, 32), np.pad(src, ((3, 1), (11, 6)), mode="edge"))


def test_nddma_config_padding_overrides_loop_info():
    """NdDmaConfig.loopLpSize / loopRpSize (not unsetPad) apply to every dimension."""
    k = aj.Kernel("ascend950")
    g, x = k.gm(np.arange(1, 9).astype(np.float32)), k.alloc(aj.float32, 64)
    _nddma(k, x, g, aj.NdDmaLoopInfo((1, 8), (1, 16), (8, 1), (5, 5), (5, 5)), 9, aj.NdDmaConfig(False, 2, 6))
    want = np.full((3, 16), 9.0)
    want[2, 2:10] = np.arange(1, 9)
    assert np.array_equal(k.read(x)[:48].reshape(3, 16), want)


SLICE_SRC = [aj.SliceInfo(16, 70, 7, 3, 87), aj.SliceInfo(0, 2, 1, 1, 3)]
SLICE_DST = [aj.SliceInfo(0, 47, 0, 3, 48), aj.SliceInfo(0, 1, 0, 1, 2)]


@pytest.mark.parametrize("profile", ND_PRODUCTS)
def test_doc_slice_example(profile):
    """切片 图1 / 调用示例 (float, dimValue 2): from a [3, 87] source, rows 0 and 2, elements
    [16, 40) and [47, 71) of each (3 DataBlocks = 24 floats, 7 apart) -> a [2, 48] destination; then
    UB -> GM with dstSliceInfo on both sides copies it unchanged."""
    k = aj.Kernel(profile)
    src = np.arange(3 * 87).reshape(3, 87).astype(np.float32)
    g = k.gm(src)
    x = k.alloc(aj.float32, 96)
    k.DataCopy(x, g, SLICE_DST, SLICE_SRC, 2)
    want = np.concatenate([src[[0, 2], 16:40], src[[0, 2], 47:71]], axis=1)
    assert np.array_equal(k.read(x).reshape(2, 48), want)
    out = k.gm(np.zeros(96, np.float32))
    k.DataCopy(out, x, SLICE_DST, SLICE_DST, 2)
    assert np.array_equal(k.read(out).reshape(2, 48), want)


# -- fast path vs reference over random parameters -----------------------------------------------

UB_BYTES = 4096
GM_BYTES = 3000


def _rand_nd2nz(rng, size, small):
    c0 = 32 // size
    nd, n, d = int(rng.integers(0, 3)), int(rng.integers(0, 4)), int(rng.integers(0, 3 * c0 + 1))
    if small and rng.random() < 0.5:
        d = int(rng.integers(1, 5))
    src_d = max(d + int(rng.integers(0, 9)), 1)
    groups = max(-(-d // c0), 1)
    ns = int(rng.integers(1, 3))
    c0s = n * ns + int(rng.integers(0, 2)) if rng.random() < 0.9 else 1  # sometimes overlapping
    dst_nd = (groups * max(c0s, 1) + n * ns) * c0 + int(rng.integers(0, 2)) * c0
    return aj.Nd2NzParams(nd, n, d, n * src_d + int(rng.integers(0, 20)), src_d, max(c0s, 1), ns, dst_nd)


def _rand_nz2nd(rng, size):
    nd, n, d = int(rng.integers(0, 3)), int(rng.integers(1, 5)), 16 * int(rng.integers(1, 3))
    sns = n + int(rng.integers(0, 2))
    snd = max(-(-(d // 16) * sns * 16 // 256), 1) + int(rng.integers(0, 2))
    dst_d = d + int(rng.integers(0, 8)) if rng.random() < 0.9 else 3
    return aj.Nz2NdParamsFull(nd, n, d, snd, sns, dst_d, n * dst_d + int(rng.integers(0, 8)))


def _rand_slice(rng, size, ub_side):
    chunk_blocks = int(rng.integers(1, 3))
    chunk = chunk_blocks * 32 // size
    dims = int(rng.integers(1, 3))

    def one(k, n, aligned):
        if k == 0:
            stride = int(rng.integers(0, 3)) * (32 // size if aligned else 1)
            start = int(rng.integers(0, 3)) * (32 // size if aligned else 1)
            end = start + n * chunk + (n - 1) * stride - 1
            shape = end + 1 + int(rng.integers(0, 3)) * (32 // size if aligned else 1)
            return aj.SliceInfo(start, end, stride, chunk_blocks, shape)
        stride, start = int(rng.integers(0, 2)), int(rng.integers(0, 2))
        end = start + n + (n - 1) * stride - 1
        return aj.SliceInfo(start, end, stride, 1, end + 1 + int(rng.integers(0, 2)))

    counts = [int(rng.integers(1, 3)) for _ in range(dims)]
    dst = [one(k, counts[k], ub_side == "dst") for k in range(dims)]
    src = [one(k, counts[k], ub_side == "src") for k in range(dims)]
    return dst, src, dims


def _rand_nddma(rng, size, complex_=False):
    dims = int(rng.integers(1, 4))
    n = [int(rng.integers(1, 5)) for _ in range(dims)]
    lp = [int(rng.integers(0, 3)) for _ in range(dims)]
    rp = [int(rng.integers(0, 3)) for _ in range(dims)]
    ext = [lp[k] + n[k] + rp[k] for k in range(dims)]
    dst_s, acc = [], 1
    for k in range(dims):
        dst_s.append(acc)
        acc *= ext[k] + (int(rng.integers(0, 2)) if k == 0 else 0)
    if rng.random() < 0.3:  # transposed source
        src_s = [int(v) for v in rng.permutation([int(np.prod(n[:k])) for k in range(dims)])]
    else:
        src_s = [int(rng.integers(0, 3)) * int(np.prod(n[:k])) + (1 if k == 0 else 0) for k in range(dims)]
    nearest = size < 8 and rng.random() < 0.4
    value = 0 if size == 8 or complex_ else int(rng.integers(-5, 100))  # complex32: bits of T, not a number
    return aj.NdDmaLoopInfo(tuple(src_s), tuple(dst_s), tuple(n), tuple(lp), tuple(rp)), value, nearest


def _tensor(side, dtype, addr):
    return aj.LocalTensor(dtype, addr, 1) if side == "ub" else aj.GlobalTensor(dtype, 0, addr, 1)


def _addrs(rng, side, size, batch):
    if side == "ub":
        a = rng.integers(0, UB_BYTES // 32 // 2, batch) * 32
        a[rng.random(batch) < 0.1] += 4  # misaligned
        a[rng.random(batch) < 0.1] = UB_BYTES - 64  # likely past the end
    else:
        a = rng.integers(0, GM_BYTES // size // 3, batch) * size
        a[rng.random(batch) < 0.1] = GM_BYTES - 8 * size
    return a.astype(np.int32)


def _compare(profile, form, n_params, seed, batch=6):
    """Per random parameter set: the fast path under vmap (traced addresses) vs the reference per
    case: fault word, UB and GM bytes. Fast UsageError for static misuse <-> reference BAD_PARAM."""
    P = aj.load_profile(profile)
    a = P.api("DataCopy")
    rng = np.random.default_rng(seed)
    key = {"nd2nz": "nd2nz_dtypes", "nz2nd": "nz2nd_dtypes", "nddma": "nddma_dtypes"}.get(
        form, "slice_dtypes"
    )
    dtypes = getattr(a, key)
    faults, clean = set(), 0
    for _ in range(n_params):
        d = aj.as_dtype(str(rng.choice(dtypes)))
        size = d.itemsize
        kw, extra = {}, ()
        kind = "gm2ub"
        if form == "nd2nz":
            small = a.nd2nz_small_c0 and rng.random() < 0.3
            prm = _rand_nd2nz(rng, size, small)
            kw["enableSmallC0"] = small
        elif form == "nz2nd":
            prm, kind = _rand_nz2nd(rng, size), "ub2gm"
        elif form == "nddma":
            loop, value, nearest = _rand_nddma(rng, size, d.kind == "complex")
            prm = aj.NdDmaParams(loop, value)
            kw["config"] = aj.NdDmaConfig(nearest)
        else:
            kind = "gm2ub" if rng.random() < 0.5 else "ub2gm"
            dst_i, src_i, dims = _rand_slice(rng, size, "dst" if kind == "gm2ub" else "src")
            prm, extra = dst_i, (src_i, dims)
        s_side, d_side = kind[:2], kind[-2:]
        ub = rng.integers(0, 256, (batch, UB_BYTES), dtype=np.uint8)
        gm = rng.integers(0, 256, (batch, GM_BYTES), dtype=np.uint8)
        sa, da = _addrs(rng, s_side, size, batch), _addrs(rng, d_side, size, batch)

        def one(ub_i, gm_i, s_i, d_i, d=d, prm=prm, extra=extra, kw=kw, s_side=s_side, d_side=d_side):
            st = aj.reset_state(P, ub=ub_i)
            st, g = aj.DataCopy(
                st, (gm_i,), _tensor(d_side, d, d_i), _tensor(s_side, d, s_i), prm, *extra, profile=P, **kw
            )
            return st.ub, g[0], st.fault

        try:
            f_ub, f_gm, f_fault = (np.asarray(v) for v in jax.vmap(one)(ub, gm, sa, da))
        except UsageError:
            st = ref_reset(P, ub_bytes=UB_BYTES)
            r_st, _ = REF.DataCopy(
                st,
                [gm[0].copy()],
                _tensor(d_side, d, int(da[0])),
                _tensor(s_side, d, int(sa[0])),
                prm,
                *extra,
                profile=P,
                **kw,
            )
            assert r_st.fault & (int(Fault.BAD_PARAM) | int(Fault.MISALIGNED)), (profile, form, prm, extra)
            faults.add("usage")
            continue
        for i in range(batch):
            st = ref_reset(P, ub_bytes=UB_BYTES)
            st.ub[:] = ub[i]
            r_st, r_gm = REF.DataCopy(
                st,
                [gm[i].copy()],
                _tensor(d_side, d, int(da[i])),
                _tensor(s_side, d, int(sa[i])),
                prm,
                *extra,
                profile=P,
                **kw,
            )
            ctx = (profile, form, d.name, prm, extra, kw, int(sa[i]), int(da[i]))
            assert int(f_fault[i]) == r_st.fault, (
                ctx,
                aj.describe_faults(int(f_fault[i])),
                aj.describe_faults(r_st.fault),
            )
            assert np.array_equal(f_ub[i], r_st.ub), ctx
            assert np.array_equal(f_gm[i], r_gm[0]), ctx
            faults.add(r_st.fault)
            clean += r_st.fault == 0
    assert clean >= 1 and len(faults) >= 2, (faults, clean)


CHEAP = {"nd2nz": 8, "nz2nd": 6, "slice": 8, "nddma": 6}


@pytest.mark.parametrize("profile", ND_PRODUCTS)
@pytest.mark.parametrize("form", ["nd2nz", "nz2nd", "slice"])
def test_layout_matches_reference(profile, form):
    _compare(profile, form, CHEAP[form] * SCALE, seed=hash((profile, form)) % 2**32)


def test_nddma_matches_reference():
    _compare("ascend950", "nddma", CHEAP["nddma"] * SCALE, seed=33)


@pytest.mark.slow
@pytest.mark.parametrize("profile", ND_PRODUCTS)
@pytest.mark.parametrize("form", ["nd2nz", "nz2nd", "slice", "nddma"])
def test_layout_matches_reference_campaign(profile, form):
    if form == "nddma" and profile not in NDDMA_PRODUCTS:
        pytest.skip("NDDMA: 950 only")
    _compare(profile, form, 150, seed=hash((profile, form, "slow")) % 2**32, batch=8)


# -- static errors, unsupported products, not modelled ---------------------------------------------


def test_static_errors():
    k = aj.Kernel("ascend910b")
    g = k.gm(np.zeros(1024, np.float16))
    x = k.alloc(aj.half, 1024)
    with pytest.raises(UsageError, match=r"DataCopy: intriParams.srcDValue=0 .*'ascend910b'.*\[1, 65535\]"):
        k.DataCopy(x, g, aj.Nd2NzParams(1, 2, 16, 0, 0, 2, 1, 0))
    with pytest.raises(UsageError, match=r"intriParams.ndNum=4096 .*\[0, 4095\]"):
        k.DataCopy(x, g, aj.Nd2NzParams(4096, 2, 16, 0, 16, 2, 1, 0))
    with pytest.raises(UsageError, match=r"dst/src='UB -> GM'.*GM -> UB"):
        k.DataCopy(g, x, aj.Nd2NzParams(1, 2, 16, 0, 16, 2, 1, 0))
    with pytest.raises(UsageError, match=r"intriParams.dValue=24 .*multiple of 16"):
        k.DataCopy(g, x, aj.Nz2NdParamsFull(1, 2, 24, 1, 2, 32, 1))
    with pytest.raises(UsageError, match=r"do not overlap"):
        k.DataCopy(x, g, aj.Nd2NzParams(1, 2, 32, 0, 32, 1, 1, 0))  # C0 groups and rows collide
    with pytest.raises(UsageError, match=r"intriParams.nValue='a traced value'.*Python int"):
        k.DataCopy(x, g, aj.Nd2NzParams(1, jax.numpy.int32(2), 16, 0, 16, 2, 1, 0))
    with pytest.raises(UsageError, match=r"enableSmallC0=True"):
        k.DataCopy(x, g, aj.Nd2NzParams(1, 2, 4, 0, 16, 2, 1, 0), enableSmallC0=True)
    with pytest.raises(UsageError, match=r"runs past the GM array"):
        k.DataCopy(x, g, aj.Nd2NzParams(1, 2, 16, 0, 1020, 2, 1, 0))
    gf, xf = k.gm(np.zeros(300, np.float32)), k.alloc(aj.float32, 96)
    bad_end = [aj.SliceInfo(16, 71, 7, 3, 87), aj.SliceInfo(0, 2, 1, 1, 3)]
    with pytest.raises(UsageError, match=r"srcSliceInfo\[0\].endIndex=71 .*whole N"):
        k.DataCopy(xf, gf, SLICE_DST, bad_end, 2)
    with pytest.raises(UsageError, match=r"dimValue=9 .*\[1, 8\]"):
        k.DataCopy(xf, gf, SLICE_DST, SLICE_SRC, 9)
    with pytest.raises(UsageError, match=r"srcSliceInfo='3 SliceInfo'.*dimValue = 2"):
        k.DataCopy(xf, gf, SLICE_DST, SLICE_SRC + [aj.SliceInfo(0, 1, 0, 1, 2)], 2)
    with pytest.raises(
        UsageError, match=r"dstSliceInfo\[1\].burstLen=2 .*1 \(every dimension after the first\)"
    ):
        k.DataCopy(xf, gf, [SLICE_DST[0], aj.SliceInfo(0, 1, 0, 2, 2)], SLICE_SRC, 2)
    with pytest.raises(UsageError, match=r"dstSliceInfo='a burst at UB byte offset 4'.*32-byte aligned"):
        k.DataCopy(xf, gf, [aj.SliceInfo(1, 8, 0, 1, 9)], [aj.SliceInfo(0, 7, 0, 1, 8)], 1)


def test_nddma_static_errors_and_not_modelled():
    k = aj.Kernel("ascend950")
    g, x = k.gm(np.zeros(256, np.float32)), k.alloc(aj.float32, 256)
    g8, x8 = k.gm(np.zeros(64, np.int64)), k.alloc(aj.int64, 64)
    loop = aj.NdDmaLoopInfo((1, 8), (1, 16), (8, 2), (3, 1), (5, 1))
    with pytest.raises(UsageError, match=r"params.loopInfo.loopLpSize\[0\]=256 .*\[0, 255\]"):
        k.DataCopy(x, g, aj.NdDmaParams(aj.NdDmaLoopInfo((1, 8), (1, 16), (8, 2), (256, 1), (5, 1))))
    with pytest.raises(UsageError, match=r"dim=6 .*\[1, 5\]"):
        k.DataCopy(x, g, aj.NdDmaParams(aj.NdDmaLoopInfo((1,) * 6, (1,) * 6, (1,) * 6)))
    with pytest.raises(UsageError, match=r"config.isNearestValueMode=True .*64-bit T"):
        k.DataCopy(x8, g8, aj.NdDmaParams(loop), config=aj.NdDmaConfig(True))
    with pytest.raises(UsageError, match=r"params.constantValue=3 .*0 \(64-bit T\)"):
        k.DataCopy(x8, g8, aj.NdDmaParams(loop, 3))
    with pytest.raises(UsageError, match=r"config.ascOptimize=True"):
        k.DataCopy(x, g, aj.NdDmaParams(loop), config=aj.NdDmaConfig(ascOptimize=True))
    with pytest.raises(UsageError, match=r"do not overlap"):
        k.DataCopy(x, g, aj.NdDmaParams(aj.NdDmaLoopInfo((1, 8), (1, 4), (8, 2))))
    with pytest.raises(NotModelledError, match=r"loopSize of 0 with padding"):
        k.DataCopy(x, g, aj.NdDmaParams(aj.NdDmaLoopInfo((1, 8), (1, 16), (0, 2), (3, 1), (5, 1))))
    st = k.state
    k.DataCopy(x, g, aj.NdDmaParams(aj.NdDmaLoopInfo((1, 8), (1, 16), (0, 2))))  # nothing to move: NOP
    assert np.array_equal(np.asarray(k.state.ub), np.asarray(st.ub))


@pytest.mark.parametrize("profile", NOT_ND)
def test_unsupported_products(profile):
    k = aj.Kernel(profile)
    g, x = k.gm(np.zeros(256, np.float16)), k.alloc(aj.half, 256)
    with pytest.raises(
        UnsupportedError, match=rf"intriParams='Nd2NzParams'.*'{profile}'.*nd2nz_dtypes is empty"
    ):
        k.DataCopy(x, g, aj.Nd2NzParams(1, 2, 16, 0, 16, 2, 1, 0))
    with pytest.raises(UnsupportedError, match=r"Nz2NdParamsFull"):
        k.DataCopy(g, x, aj.Nz2NdParamsFull(1, 2, 16, 1, 2, 16, 1))
    with pytest.raises(UnsupportedError, match=r"SliceInfo"):
        k.DataCopy(x, g, [aj.SliceInfo(0, 15, 0, 1, 16)], [aj.SliceInfo(0, 15, 0, 1, 16)])
    with pytest.raises(UnsupportedError, match=r"NdDmaDci: api='NdDmaDci'"):
        k.NdDmaDci()


@pytest.mark.parametrize("profile", ["ascend910b", "ascend310p"])
def test_nddma_not_on_a2_310p_and_dtype_rules(profile):
    k = aj.Kernel(profile)
    g, x = k.gm(np.zeros(64, np.float32)), k.alloc(aj.float32, 64)
    with pytest.raises(UnsupportedError, match=r"params='NdDmaParams<T, dim>'.*nddma_dtypes is empty"):
        k.DataCopy(x, g, aj.NdDmaParams(aj.NdDmaLoopInfo((1,), (1,), (8,))))
    with pytest.raises(UnsupportedError, match=r"NdDmaDci"):
        k.NdDmaDci()
    # NZ2ND has no 8-bit T on A2/A3/310P ("int16_t、uint16_t、half、...")
    g8, x8 = k.gm(np.zeros(512, np.int8)), k.alloc(aj.int8, 512)
    with pytest.raises(UnsupportedError, match=r"dtype='int8'.*nz2nd_dtypes"):
        k.DataCopy(g8, x8, aj.Nz2NdParamsFull(1, 2, 16, 1, 2, 16, 1))


def test_footprints_for_hazards():
    """copy_footprint (the hazard checker's view) covers exactly the bytes each form touches."""
    x = aj.LocalTensor(aj.half, 64, 1024)
    g = aj.GlobalTensor(aj.half, 0, 0, 1024)
    d, s = copy_footprint("DataCopy", x, g, aj.Nd2NzParams(1, 32, 32, 0, 32, 32, 1, 0), profile="ascend910b")
    assert d == (64, 64 + 2048) and s == (0, 2048)
    d, s = copy_footprint("DataCopy", g, x, aj.Nz2NdParamsFull(1, 4, 32, 1, 4, 160, 48), profile="ascend910b")
    assert d == (0, (3 * 160 + 32) * 2) and s == (64, 64 + 128 * 2)
    xf, gf = aj.LocalTensor(aj.float32, 0, 96), aj.GlobalTensor(aj.float32, 0, 0, 261)
    d, s = copy_footprint("DataCopy", xf, gf, SLICE_DST, (SLICE_SRC, 2), profile="ascend950")
    assert d == (0, 96 * 4) and s == (16 * 4, (2 * 87 + 71) * 4)


def test_race_check_sees_nd2nz():
    """An ND2NZ copy then a vector read of its bytes without MTE2 -> V sync is a reported race (the
    footprint is the element map's span); with SetFlag/WaitFlag<MTE2_V> it is clean."""

    def kernel(k, x, synced):
        a, b = k.alloc(aj.half, 512), k.alloc(aj.half, 512)
        k.DataCopy(a, x, aj.Nd2NzParams(1, 16, 32, 0, 32, 16, 1, 0))
        if synced:
            k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
            k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
        k.Adds(b, a, 1.0, 512)

    x = np.arange(512).astype(np.float16)
    racy = aj.run_kernel(lambda k, x: kernel(k, x, False), x)
    assert racy.findings, "no finding for the unsynchronised ND2NZ -> Adds"
    clean = aj.run_kernel(lambda k, x: kernel(k, x, True), x)
    assert clean.findings == (), [str(f) for f in clean.findings]
