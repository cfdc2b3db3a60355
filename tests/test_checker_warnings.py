"""Checker warnings (issue 18 defect 7; docs/MODEL.md "Checker warnings"): an operand beyond its
LocalTensor (EXTENT), a documented size requirement the hardware runs anyway (SIZE: GetCmpMask's
128-byte dst), a read of never-written UB bytes (UNINIT, ``check_uninit=True``). Recorded per case
in the state (``warn``, ``warn_at``), computed independently by the fast path and the reference,
shown by ``Kernel.warnings`` / ``run_kernel`` / ``jit_kernel``; they never change a result bit."""

import numpy as np
import pytest

import ascend_jax as aj
import ascend_jax.reference as ref
from ascend_jax.checks import WARN_APIS, WARN_ARGS, Warn, api_code, arg_code, describe

P = "ascend910b"
F32, I16, U8 = aj.float32, aj.int16, aj.uint8


def _at(api, arg):
    return (api_code(api), arg_code(arg))


def test_tables_name_every_registered_api():
    from ascend_jax.registry import REGISTRY

    assert set(REGISTRY) <= set(WARN_APIS)  # a new API is appended to WARN_APIS (codes stay)
    assert WARN_ARGS[:4] == ("dst", "src", "src0", "src1")
    assert describe(0, (0, 0)) == ""
    assert describe(5, _at("Add", "src1")) == "EXTENT|UNINIT (first: Add src1)"


def _uninit_kernel(k, x, y):
    a = k.alloc(F32, 32)
    b = k.alloc(F32, 64)  # never fully written
    u = k.alloc(F32, 64)
    k.DataCopy(u, x, 64)
    k.Muls(a, u, 2.0, 64)  # EXTENT: dst a holds 32 elements; writes b[0:32]
    k.Add(u, u, b, 64)  # UNINIT: b[32:64] never written
    k.DataCopy(y, u, 64)


@pytest.mark.slow
def test_warnings_never_change_bits_and_are_per_case():
    x = np.random.default_rng(0).standard_normal((3, 64)).astype(np.float32)
    y = np.zeros((3, 64), np.float32)
    plain = aj.jit_kernel(_uninit_kernel, P)(x, y)
    checked = aj.jit_kernel(_uninit_kernel, P, check_uninit=True, return_state=True)(x, y)
    np.testing.assert_array_equal(plain.gm[1].view(np.uint32), checked.gm[1].view(np.uint32))
    # the bits: Muls wrote 2*x[32:64] into b[0:32] (its lanes 32..63); b[32:64] stays 0 (reset UB)
    b = np.concatenate([2 * x[:, 32:], np.zeros((3, 32), np.float32)], axis=1)
    np.testing.assert_array_equal(checked.gm[1].view(np.uint32), (x + b).view(np.uint32))
    np.testing.assert_array_equal(plain.warn, np.full(3, Warn.EXTENT, np.uint32))
    np.testing.assert_array_equal(checked.warn, np.full(3, Warn.EXTENT | Warn.UNINIT, np.uint32))
    np.testing.assert_array_equal(checked.warn_at, np.tile(_at("Muls", "dst"), (3, 1)))
    assert checked.warnings == ("EXTENT|UNINIT (first: Muls dst)",) * 3
    assert checked.state.written is not None and plain.state is None


def test_eager_kernel_names_each_warning_and_run_kernel_shows_them():
    k = aj.Kernel(P, ub_bytes=1024, check_uninit=True)
    a, b, c = k.alloc(F32, 64), k.alloc(F32, 64), k.alloc(F32, 64)
    k.write(a, np.ones(64, np.float32))
    before = np.asarray(k.state.ub).copy()
    k.Add(c, a, b, 64)  # b never written
    assert [(w.api, w.argument) for w in k.warnings] == [("Add", "src1")]
    assert "UNINIT" in str(k.warnings[0])
    assert int(k.state.warn) == Warn.UNINIT and tuple(np.asarray(k.state.warn_at)) == _at("Add", "src1")
    expect = before.copy()
    expect[512:768] = np.ones(64, np.float32).view(np.uint8)  # c = a + b = 1 + 0: the bits as ever
    np.testing.assert_array_equal(np.asarray(k.state.ub)[: expect.size], expect)
    # a failing call leaves the word as it was
    with pytest.raises(aj.UsageError):
        k.Add(c, a, b, -1)
    assert int(k.state.warn) == Warn.UNINIT


@pytest.mark.slow
def test_run_kernel_shows_the_warnings():
    res = aj.run_kernel(_uninit_kernel, np.ones(64, np.float32), np.zeros(64, np.float32), profile=P)
    assert int(res.warn) == Warn.EXTENT and [(w.api, w.argument) for w in res.warnings] == [("Muls", "dst")]


def test_getcmpmask_small_dst_is_a_size_warning_in_both_implementations():
    st, rs = aj.reset_state(P, ub_bytes=1024), ref.reset_state(P, ub_bytes=1024)
    words = np.array([0x12345678, 0x9ABCDEF0, 0, 0], np.uint32)
    st, rs.cmpmask = st.replace(cmpmask=words), words.copy()
    dst = aj.LocalTensor(U8, 64, 32)
    out, rout = aj.GetCmpMask(st, dst, profile=P), ref.GetCmpMask(rs, dst, profile=P)
    expect = np.zeros(1024, np.uint8)
    expect[64:80] = words.view(np.uint8)  # the 16 register bytes; the rest of dst untouched
    np.testing.assert_array_equal(np.asarray(out.ub), expect)
    np.testing.assert_array_equal(rout.ub, expect)
    assert int(out.warn) == rout.warn == Warn.SIZE
    assert tuple(np.asarray(out.warn_at)) == rout.warn_at == _at("GetCmpMask", "dst")
    # 128 bytes: no warning; 8 bytes: EXTENT too (the 16 bytes reach past dst)
    assert int(aj.GetCmpMask(st, aj.LocalTensor(U8, 64, 128), profile=P).warn) == 0
    small = aj.LocalTensor(U8, 64, 8)
    assert int(aj.GetCmpMask(st, small, profile=P).warn) == ref.GetCmpMask(rs, small, profile=P).warn == 3
    assert int(aj.SetCmpMask(st, small, profile=P).warn) == ref.SetCmpMask(rs, small, profile=P).warn == 1


def test_vendor_compare_scenario2_runs_with_its_warning():
    import ops.vendor_compare as vc

    rng = np.random.default_rng(7)
    x = rng.uniform(-1e3, 1e3, (2, 64)).astype(np.float32)
    y = rng.uniform(-1e3, 1e3, (2, 64)).astype(np.float32)
    z = np.zeros((2, 32), np.uint8)

    def kern(k, x, y, z):
        vc.compare_custom(k, x, y, z, scenario=2, input_size=64, input_y_size=64)

    res = aj.jit_kernel(kern, P)(x, y, z)
    gold = np.packbits(x < y, axis=1, bitorder="little")  # the vendor golden's first 8 bytes
    np.testing.assert_array_equal(res.gm[2][:, :8], gold)
    np.testing.assert_array_equal(res.gm[2][:, 8:], 0)  # CMPMASK bits 64..127 and Duplicate's zeros
    assert res.warnings == ("SIZE (first: GetCmpMask dst)",) * 2


def _case(rng, api):
    """One random element-wise call around a few small tensors (some overlapping neighbours)."""
    d = F32 if api in ("Add", "Muls") else I16
    n = int(rng.integers(1, 5)) * 32 // d.itemsize  # 1..4 blocks
    lens = [int(rng.integers(1, 9)) * 8 for _ in range(3)]
    addrs = [0, 512, 1024]
    ts = [aj.LocalTensor(d, a, m) for a, m in zip(addrs, lens, strict=True)]
    count = int(rng.integers(1, n + 1))
    written = (rng.random(2048) < 0.7).astype(np.uint8)
    return d, ts, count, written


@pytest.mark.parametrize("api", ["Muls", "Add", "Duplicate"])
def test_fast_path_and_reference_agree_on_the_warning_word(api):
    rng = np.random.default_rng({"Muls": 1, "Add": 2, "Duplicate": 3}[api])
    for i in range(8):
        d, (t0, t1, t2), count, written = _case(rng, api)
        st = aj.reset_state(P, ub_bytes=2048, check_uninit=True).replace(written=written)
        rs = ref.reset_state(P, ub_bytes=2048, check_uninit=True)
        rs.written = written.copy()
        if api == "Muls":
            out, rout = (
                aj.Muls(st, t0, t1, 3.0, count, profile=P),
                ref.Muls(rs, t0, t1, 3.0, count, profile=P),
            )
        elif api == "Add":
            out, rout = aj.Add(st, t0, t1, t2, count, profile=P), ref.Add(rs, t0, t1, t2, count, profile=P)
        else:
            out, rout = aj.Duplicate(st, t0, 7, count, profile=P), ref.Duplicate(rs, t0, 7, count, profile=P)
        case = f"{api} {t0!r} {t1!r} {t2!r} count={count}"
        assert int(out.fault) == rout.fault == 0, case
        assert int(out.warn) == rout.warn, case
        assert tuple(int(v) for v in np.asarray(out.warn_at)) == rout.warn_at, case
        np.testing.assert_array_equal(np.asarray(out.written), rout.written, err_msg=case)
        np.testing.assert_array_equal(np.asarray(out.ub), rout.ub, err_msg=case)
        if api == "Muls" and i == 0:  # the checker never changes a result bit
            plain = aj.Muls(aj.reset_state(P, ub_bytes=2048), t0, t1, 3.0, count, profile=P)
            np.testing.assert_array_equal(np.asarray(plain.ub), np.asarray(out.ub), err_msg=case)


@pytest.mark.slow
def test_fuzz_campaign_fast_and_reference_warning_words_agree():
    """A valid-only campaign over the fuzzed APIs: every oracle-checked case has the same warning
    word in both implementations (records keep ``warn`` / ``ref_warn`` when non-zero)."""
    rep = aj.fuzz.run(
        apis="Adds,Muls,Maxs,Mins,ShiftLeft,ShiftRight,SetCmpMask,GetCmpMask",
        cases=600,
        invalid_rate=0.0,
        workers=1,
    )
    ok = [r for r in rep.records if r["status"] == "ok"]
    assert len(ok) > 300
    bad = [r for r in ok if r.get("warn", 0) != r.get("ref_warn", 0)]
    assert not bad, bad[:5]


def test_batch_warning_lines_equal_one_describe_per_case():
    """jit_kernel describes each distinct warning once; the lines equal ``describe`` case by case."""
    from ascend_jax import checks
    from ascend_jax.kernel import _describe_cases

    rng = np.random.default_rng(11)
    warn = np.where(rng.random(500) < 0.3, rng.integers(1, 8, 500), 0).astype(np.uint32)
    at = rng.integers(0, 4, (500, 2)).astype(np.int32)
    want = tuple(checks.describe(w, a) for w, a in zip(warn, at, strict=True))
    assert _describe_cases(warn, at) == want and want.count("") < 500 and "" in want
    assert _describe_cases(np.uint32(0), np.zeros(2, np.int32)) == ("",)
