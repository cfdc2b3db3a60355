"""The pages' result examples (tests/data/elementwise_examples.json, ewref's conformance data) through
the FAST path: in every call form the page shows, the fast path's dst equals the reference's bit for
bit (the reference is checked against the printed numbers in test_elementwise_reference.py), and
equals the printed numbers directly where the example is exact. One profile per example (the
default when it lists the dtype, else ascend950): one program per (family, dtype)."""

import jax.numpy as jnp
import numpy as np
import pytest
from test_elementwise_reference import AD, ALL_ONES, DATA, _forms, _inputs, _run

import ascend_jax as aj
from ascend_jax import dtypes as D
from ascend_jax.profile import load_profile
from ascend_jax.state import reset_state

# the pages' flexible-scalar examples take the scalar from a LocalTensor element (config.scalarTensorIndex),
# read from UB at run time by the fast path too
A0, A1 = 0, 2048
T = aj.LocalTensor


def _profile(api, dtype):
    for name in ("ascend910b", "ascend950"):
        if dtype in load_profile(name).api(api).all_dtypes():
            return name
    raise AssertionError((api, dtype))


def _ub_write(st, addr, values):
    b = np.ascontiguousarray(values).view(np.uint8)
    return st.replace(ub=st.ub.at[addr : addr + b.size].set(jnp.asarray(b)))


def _ub_read(st, addr, d, n):
    return np.asarray(st.ub[addr : addr + n * d.itemsize]).view(d.np_dtype)


_EXAMPLES = list(DATA["examples"])


@pytest.mark.parametrize("ex", _EXAMPLES, ids=lambda e: f"{e['api']}-{e['dtype']}")
def test_doc_result_examples_fast_path(ex):
    api, d, n = ex["api"], D.as_dtype(ex["dtype"]), DATA["n"]
    prof = _profile(api, ex["dtype"])
    names = ("src0", "src1") if api in aj.api.binary.API_CODES or "config" in ex else ("src",)
    kw = {"config": ex["config"]} if "config" in ex else {}  # BinaryConfig.scalarTensorIndex
    for form, args in _forms(api, ex).items():
        st = reset_state(prof)
        tensors = []
        for name, addr in zip(names, (A0, A1), strict=False):
            st = _ub_write(st, addr, _inputs(ex["inputs"][name], d))
            tensors.append(T(d, addr, n))
        if "scalar_value" in ex:
            tensors.append(ex["scalar_value"])
        out = getattr(aj, api)(st, T(d, AD, n), *tensors, *args, profile=prof, **kw)
        assert int(out.fault) == 0, (api, form)
        got = _ub_read(out, AD, d, n)
        want = _run(api, ex, prof, args)
        assert got.tobytes() == want.tobytes(), (prof, api, form)
        if ex["check"] == "exact" and "doc_error" not in ex:
            for i, printed in ex["printed"].items():
                w = np.array([float(printed)]).astype(d.np_dtype)[0]
                assert got[int(i)].tobytes() == w.tobytes(), (prof, api, form, i)


_FILL = [e for e in DATA["fill_examples"] if "src" not in e]  # Duplicate(dst, src tensor): no fast path yet


@pytest.mark.parametrize("ex", _FILL, ids=lambda e: e["api"])
def test_fill_doc_result_examples_fast_path(ex):
    d, n = D.as_dtype(ex["dtype"]), ex["n"]
    prof = _profile(ex["api"], ex["dtype"])
    for form, args in ex["forms"].items():
        args = [ALL_ONES if a == "all_ones" else a for a in args]
        value = float(ex["value"]) if d.is_float else int(ex["value"])
        out = getattr(aj, ex["api"])(reset_state(prof), T(d, AD, n), value, *args, profile=prof)
        assert int(out.fault) == 0, form
        got = _ub_read(out, AD, d, n)
        for i, printed in ex["printed"].items():
            w = np.array([float(printed)]).astype(d.np_dtype)[0]
            assert got[int(i)].tobytes() == w.tobytes(), (prof, form, i)
