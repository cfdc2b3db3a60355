"""AnyForm: every call form of an API as one traced value (docs/MODEL.md "Tensors and parameters").

One traced program per API serves the count form and the three high-dim forms, and gives the bits of
the ordinary (static) call of each form; a form code outside 0..3 is BAD_PARAM for that case. The
differential suites run every form this way against the reference; here the traced call is checked
against the static call of the same form, form by form."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax.errors import Fault
from ascend_jax.fuzz.compare import message
from ascend_jax.testing.traces import max_traces

P = "ascend910b"
UB = 8192
A0, A1, AD = 0, 2048, 4096


def _state(dtype, mask_mode=0):
    rng = np.random.default_rng(3)
    ub = rng.integers(0, 256, UB, dtype=np.uint8)
    if np.dtype(dtype).kind == "f":  # finite values (NaN payloads are not the point here)
        ub[: 2 * AD].view(dtype)[:] = rng.normal(size=2 * AD // np.dtype(dtype).itemsize).astype(dtype)
    st = aj.reset_state(P, ub=ub)
    return st.replace(mask_mode=jnp.int32(mask_mode))


# (form code, the static call's arguments, AnyForm fields)
FORMS = [
    (aj.AnyForm.COUNT, lambda rp: (192,), dict(count=192)),
    (aj.AnyForm.CONTINUOUS, lambda rp: (40, 3, rp), dict(mask=40, repeatTime=3)),
    (
        aj.AnyForm.BITWISE,
        lambda rp: ([0x0F0F0F0F0F0F0F0F, 0], 2, rp),
        dict(mask_words=(0x0F0F0F0F0F0F0F0F, 0), repeatTime=2),
    ),
    (aj.AnyForm.PLACEHOLDER, lambda rp: (aj.MASK_PLACEHOLDER, 2, rp), dict(repeatTime=2)),
]


def _words(ws, n32=8):
    v = sum(int(w) << (64 * i) for i, w in enumerate(ws))
    return jnp.asarray([(v >> (32 * i)) & 0xFFFFFFFF for i in range(n32)], jnp.uint32)


def _traced_form(code, fields, params):
    return aj.AnyForm(
        jnp.int32(code),
        jnp.int32(fields.get("count", 0)),
        jnp.uint32(fields.get("mask", 0)),
        _words(fields.get("mask_words", (0,))),
        jnp.int32(fields.get("repeatTime", 1)),
        params,
    )


CASES = {
    "Adds": (np.float32, lambda st, f, **kw: aj.Adds(st, _t(np.float32, AD), _t(np.float32, A0), 1.5, *f, profile=P, **kw)),
    "ShiftLeft": (np.int16, lambda st, f, **kw: aj.ShiftLeft(st, _t(np.int16, AD), _t(np.int16, A0), 3, *f, profile=P, **kw)),
    "Add": (np.float16, lambda st, f, **kw: aj.Add(st, _t(np.float16, AD), _t(np.float16, A0), _t(np.float16, A1), *f, profile=P, **kw)),
    "Compares": (np.float32, lambda st, f, **kw: aj.Compares(st, _t(np.uint8, AD), _t(np.float32, A0), 0.25, aj.CMPMODE.GT, *f, profile=P, **kw)),
}  # fmt: skip


def _t(dtype, addr):
    return aj.LocalTensor(aj.as_dtype(np.dtype(dtype).name.replace("float16", "half")), addr, 1024)


def _params(api, strided):
    if api in ("Add",):
        return (
            aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
            if not strided
            else aj.BinaryRepeatParams(2, 1, 1, 16, 8, 8)
        )
    return aj.UnaryRepeatParams() if not strided else aj.UnaryRepeatParams(2, 1, 16, 8)


@pytest.mark.parametrize("api", sorted(CASES))
def test_any_form_equals_each_static_form(api):
    dtype, call = CASES[api]
    rp_static = _params(api, True)
    rp_traced = jax.tree_util.tree_map(jnp.int32, rp_static)

    @jax.jit
    def traced(st, f):
        return call(st, (f,), max_repeats=4)

    with max_traces("traced", n=1):  # one program for the four forms and both mask modes
        for mode in (0, 1):
            st = _state(dtype, mask_mode=mode)
            for code, args, fields in FORMS:
                if mode == 1 and code == aj.AnyForm.BITWISE:
                    fields = dict(fields, mask_words=(77, 0))  # Counter mode: the low word is the count
                    args = lambda rp: ([77, 0], 2, rp)  # noqa: E731
                static = call(st, args(rp_static), isSetMask=code != aj.AnyForm.PLACEHOLDER, max_repeats=4)
                got = traced(st, _traced_form(code, fields, rp_traced))
                where = f"{api} form {code} mask_mode {mode}"
                assert int(got.fault) == int(static.fault), where
                assert np.array_equal(np.asarray(got.ub), np.asarray(static.ub)), where
                assert np.array_equal(np.asarray(got.vmask), np.asarray(static.vmask)), where
        bad = traced(_state(dtype), _traced_form(7, {}, rp_traced))
        assert int(bad.fault) & int(Fault.BAD_PARAM)


def test_static_any_form_is_the_ordinary_call():
    st = _state(np.float32)
    f = aj.AnyForm(aj.AnyForm.CONTINUOUS, mask=40, repeatTime=3, repeatParams=aj.UnaryRepeatParams())
    a = aj.Adds(st, _t(np.float32, AD), _t(np.float32, A0), 1.5, f, profile=P)
    b = aj.Adds(st, _t(np.float32, AD), _t(np.float32, A0), 1.5, 40, 3, aj.UnaryRepeatParams(), profile=P)
    assert np.array_equal(np.asarray(a.ub), np.asarray(b.ub))
    with pytest.raises(aj.UsageError, match=r"AnyForm.form=9"):
        aj.Adds(st, _t(np.float32, AD), _t(np.float32, A0), 1.5, aj.AnyForm(9), profile=P)


def _select(dtype, mode):
    """Select (selMask tensor) in selMode ``mode`` as a CASES-style call."""
    t = aj.as_dtype(np.dtype(dtype).name.replace("float16", "half"))

    def call(st, f, **kw):
        dst, src0, sel = (
            aj.LocalTensor(t, AD, 1024),
            aj.LocalTensor(t, A0, 1024),
            aj.LocalTensor(aj.uint8, 6144, 256),
        )
        src1 = 0.5 if mode == 1 else aj.LocalTensor(t, A1, 1024)
        return aj.Select(st, dst, sel, src0, src1, mode, *f, profile=P, **kw)

    return call


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_select_any_form_equals_each_static_form(mode):
    """Select's count and mask forms in one program; MASK_PLACEHOLDER is no Select form (isSetMask is
    reserved): statically a UsageError, traced a BAD_PARAM fault."""
    call = _select(np.float16, mode)
    rp_static = aj.BinaryRepeatParams(2, 1, 1, 16, 8, 8)
    rp_traced = jax.tree_util.tree_map(jnp.int32, rp_static)

    @jax.jit
    def traced(st, f):
        return call(st, (f,), max_repeats=4)

    with max_traces("traced", n=1):
        for mask_mode in (0, 1):
            st = _state(np.float16, mask_mode=mask_mode)
            for code, args, fields in FORMS[:3]:
                if mask_mode == 1 and code == aj.AnyForm.BITWISE:
                    fields = dict(fields, mask_words=(77, 0))
                    args = lambda rp: ([77, 0], 2, rp)  # noqa: E731
                static = call(st, args(rp_static), max_repeats=4)
                got = traced(st, _traced_form(code, fields, rp_traced))
                where = f"Select mode {mode} form {code} mask_mode {mask_mode}"
                assert int(got.fault) == int(static.fault), where
                for field in ("ub", "vmask", "cmpmask", "mask_mode"):
                    assert np.array_equal(
                        np.asarray(getattr(got, field)), np.asarray(getattr(static, field))
                    ), where
        for code in (aj.AnyForm.PLACEHOLDER, 7):
            bad = traced(_state(np.float16), _traced_form(code, {"repeatTime": 2}, rp_traced))
            assert int(bad.fault) & int(Fault.BAD_PARAM), code
    with pytest.raises(aj.UsageError, match="isSetMask"):
        call(_state(np.float16), (aj.AnyForm(aj.AnyForm.PLACEHOLDER, repeatTime=2, repeatParams=rp_static),))


def test_bit_moving_apis_compile_once_per_lane_width():
    """Select and GatherMask move bit patterns: half, bfloat16, int16 and uint16 share one program
    (and give the same bytes)."""
    from ascend_jax._engine import binary, compact

    rng = np.random.default_rng(5)
    ub = rng.integers(0, 256, UB, dtype=np.uint8)
    f = (aj.AnyForm(jnp.int32(aj.AnyForm.COUNT), jnp.int32(200)),)
    gm_params = aj.GatherMaskParams(1, 2, 8, 0)
    for api, prof, engine in (
        ("Select", "ascend950", binary.run_binary),
        ("GatherMask", P, compact.run_gather_mask),
    ):
        st = aj.reset_state(prof, ub=ub)
        runs = {}
        for name in ("half", "bfloat16", "int16", "uint16"):
            t = aj.as_dtype(name)
            dst, src0, src1 = (aj.LocalTensor(t, a, 1024) for a in (AD, A0, A1))
            if api == "Select":
                sel = aj.LocalTensor(aj.uint8, 6144, 256)
                runs[name] = aj.Select(st, dst, sel, src0, src1, 2, *f, profile=prof, max_repeats=4)
            else:
                runs[name], _ = aj.GatherMask(st, dst, src0, 1, False, 0, gm_params, profile=prof)
            if name == "half":
                n = engine._cache_size()
        assert engine._cache_size() == n, api
        for name, r in runs.items():
            assert int(r.fault) == 0, (api, name)
            assert np.array_equal(np.asarray(r.ub), np.asarray(runs["half"].ub)), (api, name)


@pytest.mark.parametrize("scalar_first", [False, True])
def test_compares_flexible_any_form_keeps_the_tensor_strides(scalar_first):
    """ComparesFlexible (950) with the scalar before the tensor: the one strided source is src1, on
    the UnaryRepeatParams' src slots, in the traced call form as in the static one."""
    p950 = "ascend950"
    rng = np.random.default_rng(11)
    st = aj.reset_state(p950, ub=rng.integers(0, 256, UB, dtype=np.uint8))
    dst, ten = aj.LocalTensor(aj.uint8, AD, 256), aj.LocalTensor(aj.int16, A1, 1024)
    ops = (0.0, ten) if scalar_first else (ten, 0.0)
    rp = aj.UnaryRepeatParams(1, 2, 8, 16)  # src block stride 2, repeat stride 16
    static = aj.ComparesFlexible(st, dst, *ops, aj.CMPMODE.GT, 40, 3, rp, profile=p950)

    @jax.jit
    def traced(st, f):
        return aj.ComparesFlexible(st, dst, *ops, aj.CMPMODE.GT, f, profile=p950, max_repeats=4)

    f = _traced_form(
        aj.AnyForm.CONTINUOUS, dict(mask=40, repeatTime=3), jax.tree_util.tree_map(jnp.int32, rp)
    )
    got = traced(st, f)
    assert int(static.fault) == 0 and int(got.fault) == 0
    assert np.array_equal(np.asarray(got.ub), np.asarray(static.ub))


@pytest.mark.parametrize("api", ["AddReluCast", "Cast"])  # the binary and the unary stride layouts
def test_any_form_count_keeps_the_conversions_contiguous_strides(api):
    """A traced ``AnyForm(COUNT)`` of a conversion (operands of different widths) over more than one
    repeat gives the plain count call's bits: the count form's own strides (L * sizeof / 32 blocks
    of each operand a repeat), not the repeat parameters' defaults (found by the castcomp fuzz
    family: 133 UB bytes differed for AddReluCast half -> int8, count 200)."""
    p = "ascend910b"
    rng = np.random.default_rng(0)
    ub = (rng.integers(-64, 64, 4096) / 4).astype(np.float16).view(np.uint8)
    st = aj.reset_state(p, ub_bytes=8192).replace(ub=jnp.asarray(ub))
    n = 200  # > 128 half lanes
    i8, h = aj.int8, aj.half
    if api == "AddReluCast":
        ops = (aj.LocalTensor(i8, 4096, 256), aj.LocalTensor(h, 0, 256), aj.LocalTensor(h, 1024, 256))
        params = aj.BinaryRepeatParams()
    else:
        ops = (aj.LocalTensor(i8, 4096, 256), aj.LocalTensor(h, 0, 256), "CAST_RINT")
        params = aj.UnaryRepeatParams()
    rs = REF.reset_state(p, ub_bytes=8192)
    rs.ub = ub.copy()
    want = getattr(REF, api)(rs, *ops, n, profile=p)  # the plain count call, literally
    f = aj.AnyForm(
        jnp.int32(aj.AnyForm.COUNT),
        jnp.int32(n),
        jnp.uint32(0),
        jnp.zeros(4, jnp.uint32),
        jnp.int32(1),
        params,
    )
    anyf = getattr(aj, api)(st, *ops, f, profile=p, max_repeats=2)
    assert int(want.fault) == 0 and not np.array_equal(want.ub, ub)
    assert message(anyf, want) is None
