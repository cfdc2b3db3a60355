"""One name per C++ overload (issue 33 item 7): ``Adds`` / ``Muls`` / ``Maxs`` / ``Mins`` /
``Compares`` / ``Select`` called with a scalar in the src0 position, a LocalTensor element
(``src1Local[0]``) where the plain form takes its scalar, or a ``config`` are their 灵活标量位置
overloads (``AddsFlexible`` ... ``SelectFlexible``), in the public functions (``aj.X(state, ...)``),
the kernel layer (``k.X(...)``) and the reference alike; on a product without the overload the
plain form's own checks report the call.
"""

import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax.errors import UsageError
from ascend_jax.profile import load_profile
from ascend_jax.reference import state as RS

P950 = load_profile("ascend950")
A2 = load_profile("ascend910b")
UB = 8192
F32 = aj.float32
DST, SRC, SRC1, SEL, BDST = 0, 1024, 2048, 3072, 4096
N = 200


def _ub(seed):
    rng = np.random.default_rng(seed)
    ub = rng.integers(0, 256, UB, dtype=np.uint8)
    # finite, mixed-sign float operands (random bytes elsewhere)
    for a in (SRC, SRC1):
        ub[a : a + 4 * 256] = rng.normal(0, 100, 256).astype(np.float32).view(np.uint8)
    return ub


def _fast(ub, p):
    return aj.reset_state(p, ub_bytes=UB).replace(ub=jnp.asarray(ub))


def _ref(ub, p):
    st = RS.reset_state(p, ub_bytes=UB)
    st.ub = ub.copy()
    return st


def _same(fast, ref):
    assert np.asarray(fast.ub).tobytes() == np.asarray(ref.ub).tobytes()
    assert int(fast.fault) == int(ref.fault)
    np.testing.assert_array_equal(np.asarray(fast.vmask), ref.vmask)


def _t(addr, n=256):
    return aj.LocalTensor(F32, addr, n)


@pytest.mark.parametrize("api", ["Adds", "Muls", "Maxs", "Mins"])
@pytest.mark.parametrize("seed", [0, 1])
def test_scalar_apis_dispatch_to_their_flexible_form(api, seed):
    ub = _ub(seed)
    dst, src, src1 = _t(DST), _t(SRC), _t(SRC1)
    plain, flex = getattr(aj, api), getattr(aj, f"{api}Flexible")
    rplain, rflex = getattr(REF, api), getattr(REF, f"{api}Flexible")
    st = _fast(ub, P950)
    calls = [
        # (the plain name's arguments, the explicit flexible spelling's, config)
        ((dst, src, src1[0], N), (dst, src, src1[0], N), None),  # src1Local[0], default config {1}
        ((dst, 2.5, src, N), (dst, 2.5, src, N), None),  # the scalar first
        ((dst, src1[0], src, N), (dst, src1[0], src, N), aj.BinaryConfig(0)),  # element first
        ((dst, src, src1[3], 0xFFFF, 2, aj.UnaryRepeatParams()), None, None),  # high-dim form
    ]
    for args, flex_args, cfg in calls:
        kw = {} if cfg is None else {"config": cfg}
        out = plain(st, *args, profile=P950, **kw)
        if flex_args is not None:
            want = flex(st, *flex_args, profile=P950, **kw)
            assert np.asarray(out.ub).tobytes() == np.asarray(want.ub).tobytes()
        ref = rplain(_ref(ub, P950), *args, profile=P950, **kw)
        _same(out, ref)
        _same(out, rflex(_ref(ub, P950), *args, profile=P950, **kw))
        # the kernel layer: k.Adds(...) is the same call
        k = aj.Kernel(P950, state=st)
        getattr(k, api)(*args, **kw)
        assert np.asarray(k.state.ub).tobytes() == np.asarray(out.ub).tobytes()
    # the element's value is what matters: a changed src1[0] changes every active lane
    changed = ub.copy()
    changed[SRC1 : SRC1 + 4] = np.array([7.0], np.float32).view(np.uint8)
    out = plain(_fast(changed, P950), dst, src, src1[0], N, profile=P950)
    want = plain(_fast(changed, P950), dst, src, 7.0, N, profile=P950)
    assert np.asarray(out.ub).tobytes() == np.asarray(want.ub).tobytes()


@pytest.mark.parametrize("seed", [0, 1])
def test_compares_dispatches_to_compares_flexible(seed):
    ub = _ub(seed)
    bdst, src, src1 = aj.LocalTensor(aj.uint8, BDST, 256), _t(SRC), _t(SRC1)
    st = _fast(ub, P950)
    GT = aj.CMPMODE.GT
    for args, cfg in (
        ((bdst, src, src1[0], GT, 256), None),  # the page's Compares(dst, src0, src1Local[0], ...)
        ((bdst, 1.5, src, GT, 256), None),
        ((bdst, src1[5], src, GT, 256), aj.BinaryConfig(0)),
        ((bdst, src, src1[0], GT, 0xFFFF, 2, aj.UnaryRepeatParams()), None),
    ):
        kw = {} if cfg is None else {"config": cfg}
        out = aj.Compares(st, *args, profile=P950, **kw)
        want = aj.ComparesFlexible(st, *args, profile=P950, **kw)
        assert np.asarray(out.ub).tobytes() == np.asarray(want.ub).tobytes()
        _same(out, REF.Compares(_ref(ub, P950), *args, profile=P950, **kw))
        k = aj.Kernel(P950, state=st)
        k.Compares(*args, **kw)
        assert np.asarray(k.state.ub).tobytes() == np.asarray(out.ub).tobytes()


@pytest.mark.parametrize("seed", [0, 1])
def test_select_dispatches_to_select_flexible(seed):
    ub = _ub(seed)
    dst, sel, src0, src1 = _t(DST), aj.LocalTensor(aj.uint8, SEL, 32), _t(SRC), _t(SRC1)
    st = _fast(ub, P950)
    M1 = aj.SELMODE.VSEL_TENSOR_SCALAR_MODE
    for args, cfg in (
        # the page's call: Select<BinaryDefaultType, uint8_t, config>(dst, mask, src0, src1Local[0], mode 1, n)
        ((dst, sel, src0, src1[0], M1, N), aj.BinaryConfig(1)),
        ((dst, sel, src1[0], src0, M1, N), aj.BinaryConfig(0)),
        ((dst, sel, 0.5, src0, M1, N), None),  # the scalar first
        (
            (dst, sel, src0, src1[2], M1, [0xF0F0_FFFF_0000_FFFF, 0], 3, aj.BinaryRepeatParams()),
            aj.BinaryConfig(1),
        ),
    ):
        kw = {} if cfg is None else {"config": cfg}
        out = aj.Select(st, *args, profile=P950, **kw)
        want = aj.SelectFlexible(st, *args, profile=P950, **kw)
        assert np.asarray(out.ub).tobytes() == np.asarray(want.ub).tobytes()
        _same(out, REF.Select(_ref(ub, P950), *args, profile=P950, **kw))
        k = aj.Kernel(P950, state=st)
        k.Select(*args, **kw)
        assert np.asarray(k.state.ub).tobytes() == np.asarray(out.ub).tobytes()
    # mode 1 with two tensors and no config: the page requires config ("需要填写模板参数config")
    with pytest.raises(UsageError, match="config"):
        aj.Select(st, dst, sel, src0, src1[0], M1, N, profile=P950)
    with pytest.raises(UsageError, match="config"):
        REF.Select(_ref(ub, P950), dst, sel, src0, src1[0], M1, N, profile=P950)
    # modes 0 and 2 take two tensors in the plain form: no dispatch
    out = aj.Select(st, dst, sel, src0, src1, aj.SELMODE.VSEL_TENSOR_TENSOR_MODE, N, profile=P950)
    _same(out, REF.Select(_ref(ub, P950), dst, sel, src0, src1, 2, N, profile=P950))


def test_without_the_overload_the_plain_checks_report_the_call():
    """ascend910b has no 灵活标量位置 pages: a LocalTensor scalar is the plain form's misuse."""
    st = _fast(_ub(0), A2)
    dst, sel, src0, src1 = _t(DST), aj.LocalTensor(aj.uint8, SEL, 32), _t(SRC), _t(SRC1)
    with pytest.raises(UsageError, match="mode 1 takes a scalar src1"):
        aj.Select(st, dst, sel, src0, src1[0], 1, N, profile=A2)
    with pytest.raises(UsageError, match="src1Scalar"):
        REF.Compares(_ref(_ub(0), A2), aj.LocalTensor(aj.uint8, BDST, 256), src0, src1[0], 1, 256, profile=A2)
    # a config names the overload whatever the product: its own "not on this product" error
    with pytest.raises(aj.UnsupportedError, match="AddsFlexible"):
        aj.Adds(st, dst, src0, src1[0], N, config=aj.BinaryConfig(1), profile=A2)


def test_kernel_element_scalar_is_no_extent_warning():
    """``k.Adds(dst, src, e[0], 200)`` reads one element of ``e`` (a short tensor): no EXTENT
    warning for it (the plain form's count check applies to the vector operands only)."""
    k = aj.Kernel(P950, ub_bytes=UB)
    e = aj.LocalTensor(F32, SRC1, 8)
    k.Adds(_t(DST), _t(SRC), e[0], N)
    k.Compares(aj.LocalTensor(aj.uint8, BDST, 256), _t(SRC), e[0], aj.CMPMODE.GT, 256)
    assert not [w for w in k.warnings if w.argument in ("scalarValue", "src1")]
