"""ascend_jax.viz and ascend_jax.display: access sets checked against addresses computed by hand
from the doc's addressing formula, mask grids against the bit pattern, figures rendered to PNG
(Agg), and the HTML reprs against the facts they must show."""

import io

import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import display, viz
from ascend_jax import reference as ref
from ascend_jax.reference import state as rst

pytest.importorskip("matplotlib")

P = "ascend910b"
UB = 8192
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=40)
    return buf.getvalue()


def _expected_strided(n_bytes, addr, itemsize, lanes_per_repeat, repeats, blk, rep, active):
    """-1 / repeat per byte: lane l of repeat r at addr + r*rep*32 + (l//E)*blk*32 + (l%E)*size
    (SIMD计算说明/高维切分.md: block and repeat strides in 32-byte DataBlocks)."""
    E = 32 // itemsize
    out = np.full(n_bytes, -1, np.int32)
    for r in range(repeats):
        for lane in range(lanes_per_repeat):
            if not active(r, lane):
                continue
            a = addr + r * rep * 32 + (lane // E) * blk * 32 + (lane % E) * itemsize
            out[a : a + itemsize] = r
    return out


def test_muls_strided_access_sets_match_the_addressing_formula():
    # half: L = 128 lanes, E = 16; continuous mask 40 -> lanes 0..39 (blocks 0, 1 and half of 2)
    src, dst = aj.LocalTensor(aj.half, 0, 1024), aj.LocalTensor(aj.half, 2048, 1024)
    params = aj.UnaryRepeatParams(dstBlkStride=2, srcBlkStride=1, dstRepStride=12, srcRepStride=4)
    read, write = viz.accesses("Muls", dst, src, 2.0, 40, 3, params, profile=P, ub_bytes=UB)
    assert read.shape == write.shape == (UB,)
    exp_r = _expected_strided(UB, 0, 2, 128, 3, 1, 4, lambda r, lane: lane < 40)
    exp_w = _expected_strided(UB, 2048, 2, 128, 3, 2, 12, lambda r, lane: lane < 40)
    np.testing.assert_array_equal(read, exp_r)
    np.testing.assert_array_equal(write, exp_w)
    assert (read >= 0).sum() == (write >= 0).sum() == 3 * 40 * 2


def test_bitwise_mask_and_last_writer_colouring():
    # float32: L = 64, E = 8; bitwise mask: lanes 0, 9, 63. dstRepStride 0: every repeat writes the
    # same bytes, the last repeat's value stays (MODEL.md "Writes") -> written bytes coloured 3
    src, dst = aj.LocalTensor(aj.float32, 0, 1024), aj.LocalTensor(aj.float32, 4096, 64)
    lanes = (0, 9, 63)
    mask = [sum(1 << lane for lane in lanes), 0]
    params = aj.UnaryRepeatParams(1, 1, 0, 8)
    acc = viz.trace("Adds", dst, src, 1.0, mask, 4, params, profile=P, ub_bytes=UB)
    assert acc.repeats == 4 and acc.fault == 0
    exp_r = _expected_strided(UB, 0, 4, 64, 4, 1, 8, lambda r, lane: lane in lanes)
    np.testing.assert_array_equal(acc.read, exp_r)
    exp_w = _expected_strided(UB, 4096, 4, 64, 1, 1, 0, lambda r, lane: lane in lanes)
    exp_w[exp_w >= 0] = 3
    np.testing.assert_array_equal(acc.write, exp_w)


def test_counter_mode_count_form_and_faults():
    k = aj.Kernel(P, ub_bytes=UB, fault_policy="record")
    src, dst = k.alloc(aj.float32, 256), k.alloc(aj.float32, 256)
    k.SetMaskCount()
    # Counter mode: mask 100 = element count, repeatTime ignored -> repeats 0 (64 lanes), 1 (36)
    read, write = viz.accesses("Muls", dst, src, 3.0, 100, 7, aj.UnaryRepeatParams(), state=k)
    exp = _expected_strided(UB, src.addr, 4, 64, 2, 1, 8, lambda r, lane: r * 64 + lane < 100)
    np.testing.assert_array_equal(read, exp)
    exp_w = _expected_strided(UB, dst.addr, 4, 64, 2, 1, 8, lambda r, lane: r * 64 + lane < 100)
    np.testing.assert_array_equal(write, exp_w)
    assert write[dst.addr + 99 * 4] == 1 and write[dst.addr + 100 * 4] == -1
    # count form, Normal mode: first 200 elements, contiguous, repeats of 64
    k.SetMaskNorm()
    read, write = viz.accesses("Muls", dst, src, 3.0, 200, state=k)
    assert (read >= 0).sum() == 800 and read[src.addr + 4 * 199] == 3 and read[src.addr + 4 * 200] == -1
    # a faulting call (misaligned src) is suppressed: nothing touched, fault bits reported
    acc = viz.trace("Muls", dst, src[1], 3.0, 64, state=k)
    assert acc.fault & aj.Fault.MISALIGNED
    assert (acc.read < 0).all() and (acc.write < 0).all()


def test_compare_gathermask_select_access_sets():
    k = aj.Kernel(P, ub_bytes=UB, fault_policy="record")
    a, b = k.alloc(aj.float32, 256), k.alloc(aj.float32, 256)
    bits, d = k.alloc(aj.uint8, 64), k.alloc(aj.float32, 256)
    k.write(a, np.arange(256) - 100.0)
    # Compares count form: reads 192 elements, writes W = 8 bytes per issued repeat (3 repeats)
    read, write = viz.accesses("Compares", bits, a, 0.0, aj.CMPMODE.GT, 192, state=k)
    np.testing.assert_array_equal(np.nonzero(read >= 0)[0], np.arange(a.addr, a.addr + 768))
    np.testing.assert_array_equal(np.nonzero(write >= 0)[0], np.arange(bits.addr, bits.addr + 24))
    np.testing.assert_array_equal(write[bits.addr : bits.addr + 24], np.repeat([0, 1, 2], 8))
    # GatherMask pattern 1 (even elements), 2 repeats: reads even lanes, packs into dst
    read, write = viz.accesses("GatherMask", d, a, 1, False, 0, aj.GatherMaskParams(1, 2, 8, 0), state=k)
    exp = _expected_strided(UB, a.addr, 4, 64, 2, 1, 8, lambda r, lane: lane % 2 == 0)
    np.testing.assert_array_equal(read, exp)
    np.testing.assert_array_equal(write[d.addr : d.addr + 256], np.repeat([0, 1], 128))
    assert (write >= 0).sum() == 256
    # Select mode 2: selMask bits from UB (0x0F per byte: lanes 0-3 of every 8 from src0)
    k.write(bits, np.full(64, 0x0F))
    read, write = viz.accesses(
        "Select", d, bits, a, b, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, 64, 2, aj.BinaryRepeatParams(), state=k
    )
    src0_lane = [g for g in range(128) if g % 8 < 4]
    src1_lane = [g for g in range(128) if g % 8 >= 4]
    for g in src0_lane[:5] + src0_lane[-3:]:
        assert read[a.addr + 4 * g] == g // 64 and read[b.addr + 4 * g] == -1
    for g in src1_lane[:5] + src1_lane[-3:]:
        assert read[b.addr + 4 * g] == g // 64 and read[a.addr + 4 * g] == -1
    assert (read[bits.addr : bits.addr + 16] == np.repeat([0, 1], 8)).all()  # 8 sel bytes per repeat
    np.testing.assert_array_equal(write[d.addr : d.addr + 512], np.repeat([0, 1], 256))


@pytest.mark.parametrize(
    "api",
    [
        "Maxs",
        "Mins",
        "CompareScalar",
        "Compare",
        "CompareCmpMask",
        "SelectS",
        "ShiftLeft",
        "ShiftRightTensor",
    ],
)
def test_every_family_records_accesses(api):
    k = aj.Kernel("ascend950" if api == "ShiftRightTensor" else P, ub_bytes=UB, fault_policy="record")
    x, y, z = k.alloc(aj.int32, 128), k.alloc(aj.int32, 128), k.alloc(aj.int32, 128)
    sel = k.alloc(aj.uint8, 32)
    k.write(x, np.arange(128))
    k.write(sel, np.full(32, 0xFF))
    f = x.ReinterpretCast(aj.float32)
    call = {
        "Maxs": ("Maxs", y, x, 3, 128),
        "Mins": ("Mins", y, x, 3, 64, 2, aj.UnaryRepeatParams()),
        "CompareScalar": ("CompareScalar", sel, f, 0.5, aj.CMPMODE.LT, 128),
        "Compare": ("Compare", sel, f, y.ReinterpretCast(aj.float32), aj.CMPMODE.EQ, 128),
        "CompareCmpMask": (
            "Compare",
            f,
            y.ReinterpretCast(aj.float32),
            aj.CMPMODE.EQ,
            64,
            aj.BinaryRepeatParams(),
        ),
        "SelectS": (
            "Select",
            z.ReinterpretCast(aj.float32),
            sel,
            f,
            1.0,
            aj.SELMODE.VSEL_TENSOR_SCALAR_MODE,
            128,
        ),
        "ShiftLeft": ("ShiftLeft", y, x, 2, 128),
        "ShiftRightTensor": ("ShiftRightTensor", y, x, z, 128),
    }[api]
    acc = viz.trace(*call, state=k)
    assert acc.fault == 0
    n_read = {"Maxs": 512, "Mins": 512, "CompareScalar": 512, "Compare": 1024, "CompareCmpMask": 512}
    n_read.update({"SelectS": 16 + 512, "ShiftLeft": 512, "ShiftRightTensor": 1024})
    assert (acc.read >= 0).sum() == n_read[api]
    assert acc.repeats == (1 if api == "CompareCmpMask" else 2)
    if api != "CompareCmpMask":
        assert acc.read.max() == 1 and acc.write.max() == 1


def test_recording_does_not_change_the_reference_result():
    st = ref.reset_state(P, UB)
    st = ref.ub_write(st, 0, aj.half, np.linspace(-3, 3, 512))
    src, dst = ref.LocalTensor(aj.half, 0, 512), ref.LocalTensor(aj.half, 1024, 512)
    args = (dst, src, 1.5, 100, 3, ref.UnaryRepeatParams(1, 2, 8, 8))
    plain = ref.Muls(st, *args, profile=P)
    log = []
    logged = ref.Muls(rst.recording_state(st, log), *args, profile=P)
    np.testing.assert_array_equal(np.asarray(logged.ub), plain.ub)
    assert (logged.fault, logged.mask_mode) == (plain.fault, plain.mask_mode)
    np.testing.assert_array_equal(logged.vmask, plain.vmask)
    assert len([e for e in log if e[0] == "w"]) == 3 * 100 * 2


def test_access_map_renders_and_shows_the_data():
    src, dst = aj.LocalTensor(aj.half, 0, 1024), aj.LocalTensor(aj.half, 2048, 1024)
    fig = viz.access_map(
        "Muls", dst, src, 2.0, 64, 4, aj.UnaryRepeatParams(1, 2, 8, 16), profile=P, ub_bytes=UB
    )
    assert _png(fig).startswith(PNG_MAGIC)
    read_ax, write_ax = fig.axes[:2]
    grid_r = read_ax.images[0].get_array()
    # rows: the touched 256-byte rows; read row 0 = repeat 0 in blocks 0, 2, 4, 6 (srcBlkStride 2)
    row0 = np.ma.filled(grid_r[0], -1)
    assert (row0[0:32] == 0).all() and (row0[32:64] == -1).all() and (row0[64:96] == 0).all()
    assert "Muls" in fig._suptitle.get_text()


def test_mask_lanes_equal_the_bit_pattern_and_render():
    w0, w1 = 0x8000_0000_0000_0005, 0x1
    grid = viz.mask_lanes([w0, w1], aj.half, repeat=3, profile=P)
    expected = np.array([(((w1 << 64) | w0) >> lane) & 1 for lane in range(128)], bool)
    assert grid.shape == (3, 128)
    assert (grid == expected).all()
    np.testing.assert_array_equal(viz.mask_lanes(40, aj.float32, 2, P)[1], np.arange(64) < 40)
    counter = viz.mask_lanes(100, aj.float32, 1, P, mode="counter")
    np.testing.assert_array_equal(counter.reshape(-1), np.arange(128) < 100)
    count = viz.mask_lanes(300, aj.int16, profile=P, mode="count")
    assert count.shape == (3, 128) and count.sum() == 300
    with pytest.raises(aj.UsageError):
        viz.mask_lanes([1, 1], aj.float32, profile=P)  # 32-bit T requires mask[1] == 0
    fig = viz.mask_grid([w0, w1], aj.half, repeat=3, profile=P)
    img = fig.axes[0].images[0].get_array()
    assert (np.asarray(img) == expected.astype(np.int8)).all()
    assert _png(fig).startswith(PNG_MAGIC)


def test_diff_ranges_and_figure():
    a = np.zeros(1024, np.uint8)
    b = a.copy()
    b[10:14] = 1
    b[300] = 7
    b[512:600] = 9
    assert viz.diff_ranges(a, b) == [(10, 14), (300, 301), (512, 600)]
    s1 = aj.reset_state(P, ub_bytes=1024)
    s2 = s1.replace(ub=b)
    assert viz.diff_ranges(s1, s2) == viz.diff_ranges(ref.reset_state(P, 1024), b)
    fig = viz.diff(s1, s2)
    assert _png(fig).startswith(PNG_MAGIC)
    assert "93 bytes differ in 3 ranges" in fig.axes[0].get_title()
    assert viz.diff_ranges(a, a) == []


def test_state_and_tensor_html():
    k = aj.Kernel(P, ub_bytes=UB, fault_policy="record")
    x = k.alloc(aj.half, 40, name="x")
    k.write(x, np.arange(1, 41))
    k.SetVectorMask(aj.half, 0, 0xFF)
    html = k.state._repr_html_()
    assert "8 lanes enabled" in html and "0xff" in html and "Normal" in html
    assert "[0x1, 0x50)" in html and "000000: 00 3c 00 40" in html  # half 1.0 = 0x3c00, 2.0 = 0x4000
    k.Muls(x, x[1], 2.0, 16)  # misaligned src: a recorded fault
    html = display.state_html(k.state, profile="ascend950")
    assert "MISALIGNED" in html and "CTRL[53] = 0: integer saturation when 1" in html
    k.SetMaskCount()
    assert "Counter" in k.state._repr_html_()
    batch = aj.batch_states(k.state, 3)._repr_html_()
    assert batch.count("<tr>") == 4 and "3 cases" in batch
    t = display.tensor_html(x, k.state)
    assert "half (2 B)" in t and "[0, 80) = 80 B" in t and "3 blocks, #0..#2 (aligned)" in t
    assert "40." in t  # the contents
    t = display.tensor_html(x[3])
    assert "UB+6" in t and "NOT 32-byte aligned" in t

    class G:  # any object with dtype/length (GlobalTensor-like)
        dtype, length, name = aj.float32, 4, "g"

    g = display.tensor_html(G(), np.array([1.5, 2, 3, 4], np.float32))
    assert "float" in g and "1.5" in g and "length" in g


def test_missing_matplotlib_gives_a_clear_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"ascend_jax\[viz\]"):
        viz.mask_grid(8, aj.half, profile=P)
