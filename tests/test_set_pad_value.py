"""SetPadValue(ISASI) and DataCopyPad GM -> UB with ``isPad = false`` (issue 33 item 5): the padding
(and dummy) bytes are the register's value, not the old UB bytes; without SetPadValue they keep the
old bytes; ``isPad = true`` uses paddingValue whatever the register holds. Both implementations, the
page's example (SetPadValue((T)1), 20 halves + rightPadding 12), the kernel layer, the products.
"""

import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax.fuzz.compare import message
from ascend_jax.reference import state as RS

UB = 4096
H = aj.half


def _states(p, fill=0xAB):
    ub = np.full(UB, fill, np.uint8)
    st = aj.reset_state(p, ub_bytes=UB).replace(ub=jnp.asarray(ub))
    rs = RS.reset_state(p, ub_bytes=UB)
    rs.ub = ub.copy()
    return st, rs


def _copy(mod, st, p, gm, is_pad, pv=0, dtype=H, n_src=20, right=12, rows=1):
    size = dtype.itemsize
    src = aj.GlobalTensor(dtype, 0, 0, n_src * rows)
    dst = aj.LocalTensor(dtype, 256, 64 * rows)
    prm = aj.DataCopyExtParams(rows, n_src * size, 0, 0, 0)
    pad = aj.DataCopyPadExtParams(isPad=is_pad, leftPadding=0, rightPadding=right, paddingValue=pv)
    return mod.DataCopyPad(st, gm, dst, src, prm, pad, profile=p)


@pytest.mark.parametrize("profile", ["ascend910b", "ascend910_93", "ascend950"])
def test_page_example_set_pad_value_one(profile):
    """SetPadValue.md / DataCopyPad.md 场景1: blockLen = 20 halves, rightPadding = 12,
    SetPadValue((T)1), isPad = false: 20 data halves then 12 halves of 1.0 (64 bytes, aligned)."""
    data = (np.arange(20) + 0.5).astype(np.float16)
    gm = [np.frombuffer(data.tobytes(), np.uint8).copy()]
    st, rs = _states(profile)
    outs = []
    for mod, s in ((aj, st), (REF, rs)):
        s = mod.SetPadValue(s, H, 1.0, profile=profile)
        out, _ = _copy(mod, s, profile, gm, is_pad=False)
        row = np.asarray(out.ub)[256 : 256 + 64].view(np.float16)
        assert row[:20].tobytes() == data.tobytes()
        assert row[20:32].tobytes() == np.ones(12, np.float16).tobytes()
        assert not np.asarray(out.ub)[256 + 64 :].ravel().tolist().count(1)  # nothing past the row
        outs.append(out)
    assert message(*outs) is None


def test_without_set_pad_value_old_bytes_kept_and_is_pad_wins():
    p = "ascend910b"
    data = np.arange(20).astype(np.float16)
    gm = [np.frombuffer(data.tobytes(), np.uint8).copy()]
    st, rs = _states(p)
    for mod, s in ((aj, st), (REF, rs)):
        out, _ = _copy(mod, s, p, gm, is_pad=False)
        assert (np.asarray(out.ub)[256 + 40 : 256 + 64] == 0xAB).all()  # never set: the old bytes
        s2 = mod.SetPadValue(s, H, -2.0, profile=p)
        out, _ = _copy(mod, s2, p, gm, is_pad=True, pv=3.0)  # isPad: paddingValue, not the register
        assert (np.asarray(out.ub)[256 + 40 : 256 + 64].view(np.float16) == 3.0).all()
        # the dummy bytes after the padding (20 + 5 halves -> 32) are the register's value too
        out, _ = _copy(mod, s2, p, gm, is_pad=False, right=5)
        assert (np.asarray(out.ub)[256 + 40 : 256 + 64].view(np.float16) == -2.0).all()


def test_register_bytes_and_other_element_size():
    """CHOICE: the register holds the value's bytes repeated over 8 bytes; a DataCopyPad of another
    element size reads its low sizeof(T) bytes."""
    p = "ascend950"
    st, rs = _states(p)
    a = aj.SetPadValue(st, aj.uint8, 0x5A, profile=p)
    b = REF.SetPadValue(rs, aj.uint8, 0x5A, profile=p)
    assert np.asarray(a.pad_value).tobytes() == bytes(b.pad_value) == b"\x5a" * 8
    a = aj.SetPadValue(st, H, 1.0, profile=p)
    assert np.asarray(a.pad_value).tobytes() == b"\x00\x3c" * 4
    gm = [np.arange(64, dtype=np.uint8)]
    for mod, s in ((aj, st), (REF, rs)):
        s = mod.SetPadValue(s, aj.uint8, 0x5A, profile=p)
        out, _ = _copy(mod, s, p, gm, is_pad=False, dtype=aj.int16, n_src=3, right=4)
        assert (np.asarray(out.ub)[256 + 6 : 256 + 32] == 0x5A).all()


def test_traced_and_batched_equal_eager():
    p = "ascend910b"
    data = np.arange(20).astype(np.float16)
    gm = [np.frombuffer(data.tobytes(), np.uint8).copy()]
    st, _ = _states(p)
    import jax

    def f(v):
        s = aj.SetPadValue(st, H, v, profile=p)
        return _copy(aj, s, p, gm, is_pad=False)[0].ub

    vals = jnp.asarray(np.array([1.0, -0.0, 65504.0], np.float16))
    got = jax.jit(jax.vmap(f))(vals)
    for v, row in zip(np.asarray(vals), np.asarray(got), strict=True):
        want = np.asarray(f(v))
        assert row.tobytes() == want.tobytes()


def test_kernel_and_products():
    k = aj.Kernel("ascend910b", ub_bytes=UB)
    k.SetPadValue(aj.uint8, 7)
    assert np.asarray(k.state.pad_value).tolist() == [7] * 8
    for p in ("ascend310b", "ascend310p", "ascend910", "kirin9030"):
        with pytest.raises(aj.UnsupportedError, match="SetPadValue"):
            aj.SetPadValue(aj.reset_state(p, ub_bytes=64), aj.uint8, 0, profile=p)
        with pytest.raises(aj.UnsupportedError, match="SetPadValue"):
            REF.SetPadValue(RS.reset_state(p, ub_bytes=64), aj.uint8, 0, profile=p)


@pytest.mark.parametrize("pv", [-1, 1.5 + 2j])
def test_complex32_pad_value_is_a_number(pv):
    """A complex32 paddingValue / SetPadValue value is a number converted to Complex<half> (each part
    a half, real part at the lower address: 内置数据类型.md; docs/MODEL.md "A complex scalar is given
    as a Python number"), not the raw uint32 the element is stored as: -1 overflowed it in the fast
    path (OverflowError) and became 0xFFFFFFFF in the reference."""
    p = "ascend950"
    c32 = aj.as_dtype("complex32")
    want = np.array([complex(pv).real, complex(pv).imag], np.float16).tobytes() * 4
    data = np.arange(8, dtype=np.float16)
    gm = [np.frombuffer(data.tobytes(), np.uint8).copy()]
    st, rs = _states(p)
    outs = []
    for mod, s in ((aj, st), (REF, rs)):
        out, _ = _copy(mod, s, p, gm, is_pad=True, pv=pv, dtype=c32, n_src=4, right=4)
        assert np.asarray(out.ub)[256:272].tobytes() == data.tobytes()
        assert np.asarray(out.ub)[272:288].tobytes() == want, mod
        outs.append(out)
        if "complex32" in aj.load_profile(p).api("SetPadValue").dtypes:
            s2 = mod.SetPadValue(s, c32, pv, profile=p)
            reg = (
                s2.pad_value
                if isinstance(s2.pad_value, bytes)
                else np.asarray(s2.pad_value, np.uint8).tobytes()
            )
            assert reg[-8:] == want[:8]
    assert message(*outs) is None
