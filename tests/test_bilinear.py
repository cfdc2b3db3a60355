"""BilinearInterpolation(ISASI) (基础算术/BilinearInterpolation(ISASI).md): the page's result example
and worked example (numbers in tests/data/bilinear_examples.json), fast path == reference bit for bit
on NumPy-drawn random cases (offsets in and out of UB, misaligned, overlapping; masks of both forms;
dstBlkStride / vROffset collisions; NaN, inf, -0, subnormal data; the CTRL saturation bit; Normal and
Counter mode on entry), vmapped: one program per (profile, mask form); static (Python-int) calls give
the traced bits; misuse names the same argument in both implementations.
"""

import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.fuzz.compare import message
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state

T = aj.LocalTensor
DATA = json.loads(
    (pathlib.Path(__file__).parent / "data" / "bilinear_examples.json").read_text(encoding="utf-8")
)
PRODUCTS = ("ascend910b", "ascend910_93", "ascend310p", "ascend950")
N_DIFF = 2000  # cases per (dtype, mask form) group on the default profile
K = 16  # iteration bucket of the differential programs (hRepeat * vRepeat <= 16)
U64 = 2**64 - 1


def _prog(spec, dtype):
    return (spec["start"] + spec["step"] * np.arange(spec["n"])).astype(dtype)


def _put(ub, addr, arr):
    raw = np.ascontiguousarray(arr).view(np.uint8)
    ub[addr : addr + raw.size] = raw


# ---------------------------------------------------------------------------------------------
# the page's examples

EX_UB = 32768
EX_SRC0, EX_OFF, EX_SRC1, EX_DST, EX_TMP = 0, 1024, 1152, 1280, 2048


def _example_ub(ex):
    ub = np.zeros(EX_UB, np.uint8)
    _put(ub, EX_SRC0, _prog(ex["src0"], np.float16))
    _put(ub, EX_OFF, _prog(ex["src0Offset"], np.uint32))
    _put(ub, EX_SRC1, _prog(ex["src1"], np.float16))
    return ub


def _example_call(ex, prof, n_src1):
    p = aj.load_profile(prof)
    s0 = T(aj.half, EX_SRC0, ex["src0"]["n"])
    off = T(aj.uint32, EX_OFF, ex["src0Offset"]["n"])
    s1 = T(aj.half, EX_SRC1, n_src1)
    need = {"src_sizes": s0.length * 32 + s1.length * 32, "offset_size": off.length * 4, "none": 0}
    tmp = T(aj.uint8, EX_TMP, max(32, need[p.api("BilinearInterpolation")["tmp_buffer"]]))
    return T(aj.half, EX_DST, 256), s0, off, s1, tmp


def _both(prof, ub, call, mask, h, mode, blk, vro, v, max_repeats=None):
    dst, s0, off, s1, tmp = call
    st = reset_state(prof, ub_bytes=ub.size).replace(ub=jnp.asarray(ub))
    f = aj.BilinearInterpolation(
        st, dst, s0, off, s1, mask, h, mode, blk, vro, v, tmp, profile=prof, max_repeats=max_repeats
    )
    rs = RS.reset_state(prof, ub_bytes=ub.size)
    rs.ub[:] = ub
    r = REF.BilinearInterpolation(rs, dst, s0, off, s1, mask, h, mode, blk, vro, v, tmp, profile=prof)
    return f, r


@pytest.mark.parametrize("prof", PRODUCTS)
@pytest.mark.parametrize("form", ["continuous", "bitwise"])
def test_result_example(prof, form):
    """结果示例: dst = [389, 394, 399, 404, ..., 4096] in both prototypes, on every product."""
    ex = DATA["call_example"]
    mask = ex["mask"] if form == "continuous" else ex["mask_words"]
    call = _example_call(ex, prof, ex["src1"]["n"])
    args = (mask, ex["hRepeat"], ex["repeatMode"], ex["dstBlkStride"], ex["vROffset"], ex["vRepeat"])
    f, r = _both(prof, _example_ub(ex), call, *args, max_repeats=4)
    assert int(f.fault) == 0 and r.fault == 0
    assert message(f, r) is None
    for ub in (np.asarray(f.ub), r.ub):
        out = ub[EX_DST : EX_DST + 2 * ex["dst_n"]].view(np.float16).astype(np.float64)
        assert out[:4].tolist() == ex["printed_first"]
        assert out[-1] == ex["printed_last"]


@pytest.mark.parametrize("mode", [False, True])
def test_walkthrough(mode):
    """功能说明's four steps, both repeatModes: every dst lane whose exact value (and each product)
    is a half is checked against the steps' formula; the iteration-0 products the page prints are
    reproduced (hRepeat 1, vRepeat 1 isolates them)."""
    ex = DATA["walkthrough"]
    prof = "ascend910b"
    ub = _example_ub(ex)
    call = _example_call(ex, prof, ex["src1"]["n"])
    f, r = _both(prof, ub, call, 128, 2, mode, 1, 128, 2, max_repeats=4)
    assert int(f.fault) == 0 and message(f, r) is None
    src0 = _prog(ex["src0"], np.float64)
    src1 = _prog(ex["src1"], np.float64)
    # step 1: iteration k gathers src0[128k : 128k + 128] (the page's first/last values)
    for k, (a, b) in enumerate(ex["gathered_first_last"]):
        assert (src0[128 * k], src0[128 * k + 127]) == (a, b)
    # step 3: the multiplier of block j of iteration k
    if mode:
        mult = np.array([[src1[8 * k + j] for j in range(8)] for k in range(4)])
        assert [[m[0], m[7]] for m in mult] == ex["multiplier_true_first_last"]
    else:
        mult = np.array([[src1[k]] * 8 for k in range(4)])
        assert mult[:, 0].tolist() == ex["multiplier_false"]
    prod = src0.reshape(4, 8, 16) * mult[:, :, None]
    # step 4: dst[0:127] = tmp[0:127] + tmp[128:255]; dst[128:255] = tmp[256:383] + tmp[384:511]
    want = np.concatenate([(prod[0] + prod[1]).ravel(), (prod[2] + prod[3]).ravel()])
    half_ok = [(q == q.astype(np.float16)).ravel() for q in prod]
    exact = (want == want.astype(np.float16)) & np.concatenate(
        [half_ok[0] & half_ok[1], half_ok[2] & half_ok[3]]
    )
    assert exact.sum() >= 64
    out = np.asarray(f.ub)[EX_DST : EX_DST + 512].view(np.float16).astype(np.float64)
    np.testing.assert_array_equal(out[exact], want[exact])
    if mode:
        f1, r1 = _both(prof, ub, call, 128, 1, True, 1, 128, 1, max_repeats=4)
        assert message(f1, r1) is None
        got = np.asarray(f1.ub)[EX_DST : EX_DST + 256].view(np.float16).astype(np.float64)
        printed = ex["printed_products_true"]["iteration0"]  # 1 * 2, 16 * 2, 17 * 3, 128 * 9
        assert [got[0], got[15], got[16], got[127]] == printed


# ---------------------------------------------------------------------------------------------
# differential: NumPy-drawn cases, one vmapped program per (profile, mask form)

UB = 16384
S0_LEN, S1_LEN, OFF_LEN, DST_LEN = 16, 8 * K, 8 * K, 2048
SPECIAL = np.array(
    [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7D01, 0x0001, 0x83FF, 0x7BFF, 0xFBFF], np.uint16
)


def _tmp_len(p):
    rule = p.api("BilinearInterpolation")["tmp_buffer"]
    return {"src_sizes": S0_LEN * 32 + S1_LEN * 32, "offset_size": OFF_LEN * 4, "none": 32}[rule]


def _halves(rng, n):
    """Random half bits: mostly moderate normals (products and sums stay finite), some specials,
    some huge values (overflow to inf / saturation)."""
    e = rng.integers(9, 21, n)  # |x| in [2**-6, 2**6)
    bits = (rng.integers(0, 2, n) << 15) | (e << 10) | rng.integers(0, 1024, n)
    pick = rng.random(n)
    bits = np.where(pick < 0.03, SPECIAL[rng.integers(0, SPECIAL.size, n)], bits)
    bits = np.where(
        (pick > 0.97), (rng.integers(0, 2, n) << 15) | (29 << 10) | rng.integers(0, 1024, n), bits
    )
    return bits.astype(np.uint16)


def _case(rng, p, form):
    """(ub, args, mask_mode, ctrl bit 48) of one case. args: dst, src0, off, src1, tmp addresses,
    mask (int, or 2 uint64 words), h, repeatMode, dstBlkStride, vROffset, v."""
    ub = np.zeros(UB, np.uint8)
    _put(ub, 0, _halves(rng, UB // 2))  # everything starts as data
    h = int(rng.integers(1, 5))
    v = int(rng.integers(1, K // h + 1))
    v = min(v, 4)
    n_it = h * v
    # layout: src0 region [0, 4096), offsets [4096, 4608), src1 [4608, 4864), dst [4864, 11008),
    # tmp [11008, ...) -- each address jittered, occasionally moved onto another operand
    s0 = 32 * int(rng.integers(0, 4))
    off = 4096 + 32 * int(rng.integers(0, 4)) * (rng.random() < 0.5)
    s1 = 4608 + 32 * int(rng.integers(0, 3))
    dst = 4864 + 32 * int(rng.integers(0, 8))
    tmp = 11008 + 32 * int(rng.integers(0, 4))
    o = 32 * rng.integers(0, 120, 8 * n_it)
    r = rng.random()
    if r < 0.04:  # a misaligned offset
        o[rng.integers(0, o.size)] += 2 * int(rng.integers(1, 16))
    elif r < 0.08:  # an offset past the UB
        o[rng.integers(0, o.size)] = rng.choice([UB, 2**20, 2**31 + 64, 2**32 - 32])
    elif r < 0.12:  # a gathered block on src1, the offsets, dst or tmp
        o[rng.integers(0, o.size)] = rng.choice([s1, off, dst, tmp]) - s0
    o = np.concatenate([o, 32 * rng.integers(0, 120, OFF_LEN - o.size)])
    _put(ub, off, o.astype(np.uint32))
    r = rng.random()
    if r < 0.03:
        dst = dst + 16  # misaligned dst
    elif r < 0.05:
        tmp = dst  # tmp on dst (SCRATCH_COLLISION where the product uses tmp)
    elif r < 0.07:
        s1 = off  # src1 on the offsets
    elif r < 0.09:
        dst = s1  # dst on src1
    elif r < 0.10:
        dst = UB - 64  # dst runs past the UB
    mode = bool(rng.random() < 0.5)
    blk = int(rng.choice([1, 1, 1, 2, 3, 0] if rng.random() < 0.1 else [1, 2]))
    vro = int(rng.choice([128, 128, 256, 384, 512, 144]))
    vro = 16 * (vro // 16)
    if rng.random() < 0.1:  # vertical repeats that may collide (block j of vv on block j' of vv + 1)
        blk, vro = int(rng.choice([2, 4])), 128
    if form == "continuous":
        mask = (
            int(rng.choice([0, 1, 15, 16, 17, 64, 100, 127, 128, 200, 2**40])) if rng.random() < 0.5 else 128
        )
        if rng.random() < 0.02:
            mask = 0
    else:
        dens = rng.random()
        w = [int(x) for x in (rng.random((2, 64)) < dens) @ (1 << np.arange(64, dtype=object))]
        mask = [w[0], w[1]] if rng.random() < 0.97 else [0, 0]
    mmode = int(rng.random() < 0.2)
    sat = int(rng.random() < 0.5)
    return ub, (dst, s0, off, s1, tmp, mask, h, mode, blk, vro, v), mmode, sat


def _tensors(p, a):
    dst, s0, off, s1, tmp = a[:5]
    return (
        T(aj.half, dst, DST_LEN),
        T(aj.half, s0, S0_LEN),
        T(aj.uint32, off, OFF_LEN),
        T(aj.half, s1, S1_LEN),
        T(aj.uint8, tmp, _tmp_len(p)),
    )


def _mask_arg(mask, traced):
    if isinstance(mask, list) and traced:
        w = []
        for x in mask:
            w += [x & 0xFFFFFFFF, x >> 32]
        return np.asarray(w, np.uint32)
    return mask


def _ctrl(st0, sat, prof):
    bit = aj.load_profile(prof).float_saturation_ctrl_bit
    c = np.asarray(st0.ctrl).copy()
    if sat and bit >= 0:
        c[bit // 32] ^= np.uint32(1 << (bit % 32))
    return c


def _differential(prof, form, n, seed=11):
    p = aj.load_profile(prof)
    rng = np.random.default_rng(seed)
    cases = [_case(rng, p, form) for _ in range(n)]
    st0 = reset_state(prof, ub_bytes=UB)
    # Counter mode and a random mask register on entry (the call's register effects are compared)
    vm0 = rng.integers(0, 2**32, (n, 8), dtype=np.uint64).astype(np.uint32)
    vm0[:, p.vector_mask_bits // 32 :] = 0
    S = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (n,) + x.shape), st0)
    S = S.replace(
        ub=jnp.asarray(np.stack([c[0] for c in cases])),
        mask_mode=jnp.asarray([c[2] for c in cases], jnp.int32),
        vmask=jnp.asarray(vm0),
        ctrl=jnp.asarray(np.stack([_ctrl(st0, c[3], prof) for c in cases])),
    )
    cols = list(zip(*[c[1] for c in cases], strict=True))
    A = [jnp.asarray(np.asarray(col, np.int32)) for col in cols[:5]]
    if form == "continuous":  # a traced continuous mask is an int32 (any value >= 128: the same lanes)
        M = jnp.asarray(np.asarray([min(m, 2**31 - 1) for m in cols[5]], np.int32))
    else:
        M = jnp.asarray(np.stack([_mask_arg(m, True) for m in cols[5]]))
    H, MODE, BLK, VRO, V = (
        jnp.asarray(np.asarray(c, np.int32)) for c in (cols[6], cols[7], cols[8], cols[9], cols[10])
    )

    def one(st, dst, s0, off, s1, tmp, m, h, mode, blk, vro, v):
        ts = _tensors(p, (dst, s0, off, s1, tmp))
        return aj.BilinearInterpolation(
            st, *ts[:4], m, h, mode, blk, vro, v, ts[4], profile=prof, max_repeats=K
        )

    res = jax.jit(jax.vmap(one))(S, *A, M, H, MODE, BLK, VRO, V)
    res = jax.tree_util.tree_map(np.asarray, res)
    rs0 = RS.reset_state(prof, ub_bytes=UB)
    n_ok = 0
    faults = 0
    for j, (ub, a, mmode, sat) in enumerate(cases):
        f = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
        rs = RS.copy_state(rs0)
        rs.ub[:] = ub
        rs.mask_mode = mmode
        rs.vmask = vm0[j].copy()
        rs.ctrl = _ctrl(st0, sat, prof)
        mask = a[5]
        if form == "continuous":
            mask = min(mask, 2**31 - 1)  # the traced continuous mask is an int32 (same lanes: >= 128)
        ts = _tensors(p, a)
        try:
            r = REF.BilinearInterpolation(rs, *ts[:4], mask, *a[6:], ts[4], profile=prof)
        except UsageError:
            # a static zero mask under behavior.zero_mask = "error": the traced call records BAD_MASK
            assert p.zero_mask == "error" and int(f.fault) == Fault.BAD_MASK, (j, a)
            continue
        assert message(f, r) is None, (prof, form, j, a, mmode, message(f, r))
        n_ok += r.fault == 0
        faults |= r.fault
    # the draw exercises the data path and the fault rules
    assert n_ok > n // 3, n_ok
    if n >= 1000:
        for bit in (Fault.OUT_OF_UB, Fault.MISALIGNED, Fault.PARTIAL_OVERLAP, Fault.DST_BLK_STRIDE_ZERO):
            assert faults & bit, (bit, faults)
    return cases, res, vm0


def _static_matches_traced(prof, cases, res, vm0, shown=4):
    """Python-int calls through the public API give the vmapped (traced) bits."""
    p = aj.load_profile(prof)
    st0 = reset_state(prof, ub_bytes=UB)
    done = 0
    for j, (ub, a, mmode, sat) in enumerate(cases):
        if done == shown:
            break
        if int(res.fault[j]) != 0:
            continue
        st = st0.replace(
            ub=jnp.asarray(ub),
            mask_mode=jnp.asarray(mmode, jnp.int32),
            vmask=jnp.asarray(vm0[j]),
            ctrl=jnp.asarray(_ctrl(st0, sat, prof)),
        )
        ts = _tensors(p, a)
        mask = a[5] if not isinstance(a[5], int) else min(a[5], 2**31 - 1)
        got = aj.BilinearInterpolation(st, *ts[:4], mask, *a[6:], ts[4], profile=prof, max_repeats=K)
        np.testing.assert_array_equal(np.asarray(got.ub), res.ub[j], err_msg=str(j))
        np.testing.assert_array_equal(np.asarray(got.vmask), res.vmask[j], err_msg=str(j))
        assert int(got.fault) == 0 and int(got.mask_mode) == int(res.mask_mode[j])
        done += 1
    assert done == shown


@pytest.mark.parametrize("form", ["continuous", "bitwise"])
def test_differential_default(form):
    cases, res, vm0 = _differential("ascend910b", form, N_DIFF)
    _static_matches_traced("ascend910b", cases, res, vm0)


@pytest.mark.parametrize("prof", ["ascend950", "ascend310p"])
def test_differential_other_products_small(prof):
    _differential(prof, "bitwise", 150, seed=5)


@pytest.mark.slow
@pytest.mark.parametrize("prof", PRODUCTS)
@pytest.mark.parametrize("form", ["continuous", "bitwise"])
def test_differential_nightly(prof, form):
    _differential(prof, form, N_DIFF, seed=23)


# ---------------------------------------------------------------------------------------------
# registers, faults, misuse


def test_register_effects_per_product():
    """A2/A3: Normal mode and the mask given; 310P: Normal mode, mask reset; 950: a bitwise mask is
    written, the mode kept (MODEL.md; apis.BilinearInterpolation.registers_after)."""
    ex = DATA["call_example"]
    for prof, mode_after, vm_after in (
        ("ascend910b", 0, [0x0000FFFF, 0, 0, 0]),
        ("ascend310p", 0, [0xFFFFFFFF] * 4),
        ("ascend950", 1, [0x0000FFFF, 0, 0, 0]),
    ):
        call = _example_call(ex, prof, 16)
        ub = _example_ub(ex)
        for impl in ("fast", "ref"):
            if impl == "fast":
                st = reset_state(prof, ub_bytes=EX_UB).replace(
                    ub=jnp.asarray(ub), mask_mode=jnp.asarray(1, jnp.int32)
                )
                out = aj.BilinearInterpolation(
                    st, *call[:4], [0xFFFF, 0], 2, False, 1, 128, 2, call[4], profile=prof
                )
                mm, vm = int(out.mask_mode), np.asarray(out.vmask)
            else:
                rs = RS.reset_state(prof, ub_bytes=EX_UB)
                rs.ub[:] = ub
                rs.mask_mode = 1
                out = REF.BilinearInterpolation(
                    rs, *call[:4], [0xFFFF, 0], 2, False, 1, 128, 2, call[4], profile=prof
                )
                mm, vm = out.mask_mode, out.vmask
            assert int(out.fault) == 0
            assert mm == mode_after and list(vm[:4]) == vm_after, (prof, impl, mm, vm)


@pytest.mark.parametrize(
    "offset, fault",
    [
        (8, Fault.MISALIGNED),
        (2**31, Fault.OUT_OF_UB),
        (EX_UB, Fault.OUT_OF_UB),
        (EX_SRC1, Fault.PARTIAL_OVERLAP),
    ],
)
def test_offset_faults(offset, fault):
    """An offset misaligned, past the UB, or onto src1 is a per-case fault in both, never a clamp;
    the suppressed call leaves UB and registers as they were."""
    ex = DATA["call_example"]
    prof = "ascend910b"
    ub = _example_ub(ex)
    _put(ub, EX_OFF + 4 * 5, np.asarray([offset], np.uint32))
    call = _example_call(ex, prof, 16)
    f, r = _both(prof, ub, call, 128, 2, False, 1, 128, 2, max_repeats=4)
    assert message(f, r) is None
    assert int(f.fault) & fault and r.fault & fault
    np.testing.assert_array_equal(np.asarray(f.ub), ub)


MISUSE = [
    # (argument, call changes)
    ("hRepeat", {"h": 0}),
    ("hRepeat", {"h": 256}),
    ("vRepeat", {"v": 0}),
    ("vROffset", {"vro": 127}),
    ("vROffset", {"vro": 65535}),
    ("vROffset", {"vro": 136}),
    ("dstBlkStride", {"blk": 65536}),
    ("repeatMode", {"mode": 1}),
    ("mask", {"mask": -1}),
    ("mask[1]", {"mask": [1, 2**64]}),
    ("mask", {"mask": [1]}),
    ("src1", {"mode": True, "s1": 16, "s0": 512}),
    ("sharedTmpBuffer", {"tmp": 100}),
    ("src0Offset.dtype", {"off_dtype": aj.int32}),
    ("sharedTmpBuffer.dtype", {"tmp_dtype": aj.half}),
    ("src1.dtype", {"s1_dtype": aj.float32}),
]


@pytest.mark.parametrize("argument, change", MISUSE, ids=[f"{a}-{i}" for i, (a, _) in enumerate(MISUSE)])
def test_misuse_names_the_same_argument(argument, change):
    prof = "ascend910b"
    c = dict(h=2, v=2, vro=128, blk=1, mode=False, mask=128, s1=32, s0=512, tmp=17408)
    c.update(change)
    dst = T(aj.half, EX_DST, 256)
    s0 = T(aj.half, EX_SRC0, c["s0"])
    off = T(change.get("off_dtype", aj.uint32), EX_OFF, 32)
    s1 = T(change.get("s1_dtype", aj.half), EX_SRC1, c["s1"])
    tmp = T(change.get("tmp_dtype", aj.uint8), EX_TMP, c["tmp"])
    args = (dst, s0, off, s1, c["mask"], c["h"], c["mode"], c["blk"], c["vro"], c["v"], tmp)
    for mod, st in ((aj, reset_state(prof, ub_bytes=EX_UB)), (REF, RS.reset_state(prof, ub_bytes=EX_UB))):
        with pytest.raises(UsageError) as e:
            mod.BilinearInterpolation(st, *args, profile=prof)
        assert e.value.argument == argument, (mod.__name__, str(e.value))


@pytest.mark.parametrize("prof", ["ascend310b", "ascend910", "ascend310p_vec", "kirin9030"])
def test_unsupported_products(prof):
    args = (T(aj.half, 0, 256), T(aj.half, 512, 512), T(aj.uint32, 2048, 32), T(aj.half, 4096, 16))
    for mod, st in ((aj, reset_state(prof)), (REF, RS.reset_state(prof))):
        with pytest.raises(UnsupportedError) as e:
            mod.BilinearInterpolation(
                st, *args, 128, 2, False, 1, 128, 2, T(aj.uint8, 8192, 32), profile=prof
            )
        assert e.value.argument == "api"


def test_float_dtype_unsupported():
    prof = "ascend910b"
    args = (T(aj.float32, 0, 256), T(aj.float32, 1024, 256), T(aj.uint32, 2048, 32), T(aj.float32, 4096, 16))
    for mod, st in ((aj, reset_state(prof)), (REF, RS.reset_state(prof))):
        with pytest.raises(UnsupportedError) as e:
            mod.BilinearInterpolation(
                st, *args, 64, 2, False, 1, 128, 2, T(aj.uint8, 8192, 20000), profile=prof
            )
        assert e.value.argument == "dtype"


def test_zero_mask_follows_the_profile():
    """mask 0: a NOP on A2 ("视为NOP": UB and registers untouched), a UsageError naming mask on the
    310P (behavior.zero_mask = error), in both implementations."""
    ex = DATA["call_example"]
    call = _example_call(ex, "ascend910b", 16)
    ub = _example_ub(ex)
    for mask in (0, [0, 0]):
        f, r = _both("ascend910b", ub, call, mask, 2, False, 1, 128, 2, max_repeats=4)
        assert message(f, r) is None and int(f.fault) == 0
        np.testing.assert_array_equal(np.asarray(f.ub), ub)
        assert int(f.mask_mode) == 0 and np.asarray(f.vmask)[0] == 0xFFFFFFFF
    call = _example_call(ex, "ascend310p", 16)
    for mod, st in (
        (aj, reset_state("ascend310p", ub_bytes=EX_UB)),
        (REF, RS.reset_state("ascend310p", ub_bytes=EX_UB)),
    ):
        with pytest.raises(UsageError) as e:
            mod.BilinearInterpolation(st, *call[:4], 0, 2, False, 1, 128, 2, call[4], profile="ascend310p")
        assert e.value.argument == "mask"


def test_fuzz_adapter():
    """The fuzz family: valid and deliberately invalid cases, fast == reference, misuse named alike,
    JSON round trip (one program per mask form)."""
    from ascend_jax.fuzz.families import family_of_api

    fam = family_of_api("BilinearInterpolation")
    assert fam.name == "bilinear"
    prof = "ascend910b"
    p = aj.load_profile(prof)
    rng = np.random.default_rng(3)
    units = fam.units(p, "BilinearInterpolation")
    assert {u[2] for u in units} == {"continuous", "bitwise"}
    assert fam.units(aj.load_profile("ascend310b"), "BilinearInterpolation") == []
    cases = []
    for i in range(96):
        c = fam.generate(rng, p, units[i % 2], 0.1)
        if i % 4 == 0:
            c = fam.invalid_data(rng, p, c)[0]
        cases.append(c)
    fast, ref = fam.run_all(cases, prof, batch=48)
    assert all(fam.compare(f, r) is None for f, r in zip(fast, ref, strict=True))
    assert 0 < sum(int(r[0].fault) != 0 for r in ref) < len(cases)
    for c in cases[:6]:
        bad, what = fam.invalid_static(rng, p, c)
        for mod, st in ((aj, reset_state(prof)), (REF, RS.reset_state(prof))):
            with pytest.raises(UsageError) as e:
                fam.call_static(mod, bad, st, p)
            assert e.value.argument == what
        assert fam.from_json(fam.to_json(c)) == c
        assert "BilinearInterpolation<half>" in c.call_repr()
