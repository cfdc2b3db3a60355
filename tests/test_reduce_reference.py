"""The reduction family's result examples (``tests/data/reduce_examples.json``, numbers carried from the
pages of memory-vector/归约计算/) on the literal reference, and on the fast path (a sample by
default, every example under ``@pytest.mark.slow``); plus the pages' sharedTmpBuffer size examples,
the index bit representation and the static misuse errors.

Where a page prints "..." the missing inputs are ours (a constant, or values below the printed
result) and only the printed outputs are checked.
"""

import json
import pathlib

import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax.dtypes import as_dtype
from ascend_jax.errors import UsageError
from ascend_jax.profile import load_profile
from ascend_jax.reduce_types import tmp_need_elems
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state
from ascend_jax.tensor import LocalTensor

DATA = json.loads(
    (pathlib.Path(__file__).parent / "data" / "reduce_examples.json").read_text(encoding="utf-8")
)
EXAMPLES = DATA["examples"]
P = load_profile("ascend910b")
UB = 65536
SRC, DST, TMP = 0, 40960, 49152


def _src(ex):
    d = as_dtype(ex["dtype"])
    s = ex["src"]
    v = np.full(s["n"], s.get("fill", 0.0), np.float64)
    for lo, hi, x in s.get("fill_ranges", []):
        v[lo:hi] = x
    vals = s.get("values", [])
    v[: len(vals)] = vals
    for k, x in s.get("set", {}).items():
        v[int(k)] = x
    return v.astype(d.np_dtype)


def _ctrl(ex, value):
    if ex.get("ctrl_saturate"):  # SetCtrlSpr CTRL[48] = 0: saturation mode on A2
        return value & ~(1 << P.float_saturation_ctrl_bit)
    return value


def _ref_state(ex):
    st = RS.ub_write(RS.reset_state(P, ub_bytes=UB), SRC, ex["dtype"], _src(ex))
    RS.set_ctrl(st, _ctrl(ex, RS.get_ctrl(st)))
    return st


def _fast_state(ex):
    ref = _ref_state(ex)
    st = reset_state(P, ub_bytes=UB)
    return st.replace(ub=jnp.asarray(ref.ub), ctrl=jnp.asarray(ref.ctrl))


def _call(mod, ex, state):
    d = as_dtype(ex["dtype"])
    dst = LocalTensor(d, DST, ex["dst_len"])
    src = LocalTensor(d, SRC, ex["src"]["n"])
    args = [list(a) if isinstance(a, list) else a for a in ex["args"]]
    fn = getattr(mod, ex["api"])
    if ex["api"] in ("ReduceSum", "ReduceMax", "ReduceMin"):
        return fn(state, dst, src, LocalTensor(d, TMP, 4096), *args, profile=P, **ex["kw"])
    return fn(state, dst, src, *args, profile=P, **ex["kw"])


def _check(ex, ub):
    d = as_dtype(ex["dtype"])
    out_bits = np.asarray(ub)[DST : DST + ex["dst_len"] * d.itemsize].view(d.bits_dtype)
    for key, want in ex["expect"].items():
        lo, _, hi = key.partition("..")
        idx = range(int(lo), int(hi or lo) + 1)
        for i in idx:
            if isinstance(want, dict):
                exp_bits = want["bits"]
            else:
                exp_bits = int(np.array(want, d.np_dtype).view(d.bits_dtype))
            assert int(out_bits[i]) == exp_bits, (ex["id"], i, hex(int(out_bits[i])), hex(exp_bits))


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_reference_reproduces_example(ex):
    out = _call(REF, ex, _ref_state(ex))
    assert out.fault == 0
    _check(ex, out.ub)


FAST_SAMPLE = ("ReduceRepeat-MAX-VALUE_INDEX",)


def _fast(ex):
    out = _call(aj, ex, _fast_state(ex))
    assert int(out.fault) == 0
    _check(ex, out.ub)


@pytest.mark.parametrize("ex", [e for e in EXAMPLES if e["id"] in FAST_SAMPLE], ids=FAST_SAMPLE)
def test_fast_path_reproduces_example_sample(ex):
    _fast(ex)


@pytest.mark.slow
@pytest.mark.parametrize("ex", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_fast_path_reproduces_example(ex):
    _fast(ex)


def test_printed_index_is_the_index_bits():
    """The pages: "6.8e-06使用reinterpret_cast方法转换后为索引值114" -- the half printed for an index is the index's
    bit pattern (every index the pages print)."""
    for ex in EXAMPLES:
        for want in ex["expect"].values():
            if isinstance(want, dict) and "printed_half" in want:
                assert int(np.float16(want["printed_half"]).view(np.uint16)) == want["bits"]


@pytest.mark.parametrize("row", DATA["tmp_buffer"], ids=lambda r: f"{r['firstMaxRepeat']}-{r['calIndex']}")
def test_shared_tmp_buffer_size_examples(row):
    """ReduceMax.md sharedTmpBuffer计算示例一..六."""
    got = tmp_need_elems(
        row["api"], row["firstMaxRepeat"], row["elementsPerRepeat"], row["elementsPerBlock"], row["calIndex"]
    )
    assert got == row["elements"]


def test_too_small_shared_tmp_buffer_is_a_usage_error_in_both():
    """示例一: ReduceMax<half>(..., 128, 65, 8, true) needs 176 elements."""
    d = as_dtype("half")
    args = (LocalTensor(d, DST, 16), LocalTensor(d, SRC, 8320), LocalTensor(d, TMP, 175), 128, 65, 8, True)
    for mod, st in ((REF, RS.reset_state(P, ub_bytes=UB)), (aj, reset_state(P, ub_bytes=UB))):
        with pytest.raises(UsageError, match="sharedTmpBuffer"):
            mod.ReduceMax(st, *args, profile=P)


@pytest.mark.parametrize(
    "name,call,arg",
    [
        ("order", lambda m, s, d: m.ReduceRepeat(s, d, d, 128, 1, 1, 1, 8, "ORDER_X", reduceType="MAX", profile=P), "order"),
        ("reduceType", lambda m, s, d: m.ReduceDataBlock(s, d, d, 128, 1, 1, 1, 8, reduceType="AVG", profile=P), "reduceType"),
        ("pair-max", lambda m, s, d: m.ReducePairElem(s, d, d, 128, 1, 1, 1, 8, reduceType="MAX", profile=P), "reduceType"),
        ("stride", lambda m, s, d: m.ReduceRepeat(s, d, d, 128, 1, 70000, 1, 8, reduceType="SUM", profile=P), "dstRepStride"),
        ("repeat", lambda m, s, d: m.ReduceRepeat(s, d, d, 128, 256, 1, 1, 8, reduceType="SUM", profile=P), "repeatTime"),
        ("calIndex", lambda m, s, d: m.ReduceMax(s, d, d, d, 128, 1, 8, 1, profile=P), "calIndex"),
        ("sum-repeat", lambda m, s, d: m.ReduceSum(s, d, d, d, 128, -1, 8, profile=P), "repeatTime"),
    ],
)  # fmt: skip
def test_static_misuse_names_the_argument_in_both(name, call, arg):
    d = LocalTensor(as_dtype("half"), 0, 512)
    for mod, st in ((REF, RS.reset_state(P, ub_bytes=UB)), (aj, reset_state(P, ub_bytes=UB))):
        with pytest.raises(UsageError) as e:
            call(mod, st, d)
        assert e.value.argument == arg, (name, mod.__name__, e.value.argument)


def test_order_not_on_the_product_is_a_usage_error():
    """ReduceRepeat.md: "Atlas 训练系列产品，支持ORDER_VALUE_INDEX"."""
    p = load_profile("ascend910")
    d = LocalTensor(as_dtype("half"), 0, 512)
    for mod, st in ((REF, RS.reset_state(p, ub_bytes=UB)), (aj, reset_state(p, ub_bytes=UB))):
        with pytest.raises(UsageError) as e:
            mod.ReduceRepeat(st, d, d, 128, 1, 1, 1, 8, "ORDER_INDEX_VALUE", reduceType="MAX", profile=p)
        assert e.value.argument == "order"
