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
from ascend_jax.errors import Fault
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
