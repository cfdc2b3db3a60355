"""VectorPadding(ISASI) (数据填充/VectorPadding(ISASI).md; 310P AI Core only).

* conformance: the page's result example (tests/data/vector_padding_examples.json) in the three call
  forms the page shows, and its 功能说明 illustrations (aaa|abc ... nop|onx), through the reference and
  the fast path;
* differential: fast path == reference, bit for bit (UB, registers, fault word) on random NumPy-drawn
  cases of every call form (count, isSetMask=false count, high-dim continuous / bitwise /
  MASK_PLACEHOLDER), Normal and Counter mode, every padMode / padSide, addresses (misaligned, outside
  UB, overlapping), strides and repeat counts; all cases of a dtype in ONE vmapped program with every
  parameter traced. Default run: a small sample per (dtype, form); the >= 2,000 per (dtype, form)
  campaign is ``slow``;
* static (Python ints, eager public API) == traced (the batched program; the public API under
  ``jax.vmap`` with traced padMode / padSide / addresses) -- same bits;
* misuse: the same argument named by both implementations; a traced bad padMode is BAD_PARAM.
"""

import dataclasses
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import SCALE
from test_elementwise_differential import FORMS, RB, fast_state, random_case, ref_state

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax._engine.pipeline import run_strided
from ascend_jax.api import padding as PAD
from ascend_jax.dtypes import as_dtype
from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.fuzz.compare import message
from ascend_jax.profile import available_profiles, load_profile
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state
from ascend_jax.tensor import MASK_PLACEHOLDER, LocalTensor

T = LocalTensor
URP = aj.UnaryRepeatParams
DATA = json.loads(
    (pathlib.Path(__file__).parent / "data" / "vector_padding_examples.json").read_text(encoding="utf-8")
)
PROFILES = [n for n in available_profiles() if load_profile(n).api("VectorPadding").supported]
P = load_profile(PROFILES[0])  # ascend310p (the default profile ascend910b lacks the API)
ALL_ONES = [2**64 - 1, 2**64 - 1]
SRC, DST = 0, 4096


def test_only_the_310p_ai_core_has_it():
    """SPEC 产品支持情况: only "Atlas 推理系列产品AI Core：支持"; dtypes from the T table."""
    assert PROFILES == ["ascend310p"]
    assert P.api("VectorPadding").dtypes == ("int16", "uint16", "half", "int32", "uint32", "float32")
    assert P.api("VectorPadding").layout == "outside_block"
    for mod, st in ((aj, reset_state("ascend910b")), (REF, RS.reset_state("ascend910b"))):
        with pytest.raises(UnsupportedError):
            mod.VectorPadding(
                st, T(aj.half, DST, 256), T(aj.half, SRC, 256), 0, False, 256, profile="ascend910b"
            )


# ---------------------------------------------------------------------------------------------
# conformance


def _half(printed):
    return np.array([float(v) for v in printed], np.float64).astype(np.float16)


def _example_ub(ex, seed=0):
    """src: every DataBlock holds the printed values at the printed positions, random halves at the
    elided ones; the rest of UB random."""
    rng = np.random.default_rng(seed)
    ub = rng.integers(0, 256, 8192, dtype=np.uint8)
    src = (rng.standard_normal(ex["n"]) * 4).astype(np.float16)
    pos = [int(i) for i in ex["src_block"]]
    vals = _half(ex["src_block"].values())
    for b in range(ex["n"] // 16):
        src[[16 * b + i for i in pos]] = vals
    ub[SRC : SRC + 2 * ex["n"]] = src.view(np.uint8)
    return ub


def _form_args(f, form):
    if form == "count":
        return tuple(f)
    mask = ALL_ONES if f["mask"] == "all_ones" else f["mask"]
    return (mask, f["repeatTime"], URP(*f["repeatParams"]))


@pytest.mark.parametrize("ex", DATA["result_examples"], ids=lambda e: e["api"])
def test_doc_result_example(ex):
    """The printed dst DataBlock (every element = src[0] = 6.938) in every DataBlock, every call form
    of the page, reference and fast path; the whole states equal."""
    d, p = as_dtype(ex["dtype"]), ex["profile"]
    ub = _example_ub(ex)
    want = _half(ex["dst_block"].values()).view(np.uint16)
    pos = [int(i) for i in ex["dst_block"]]
    for form, f in ex["forms"].items():
        args = _form_args(f, form)
        rs = RS.reset_state(p, ub_bytes=8192)
        rs.ub = ub.copy()
        ref = REF.VectorPadding(
            rs, T(d, DST, ex["n"]), T(d, SRC, ex["n"]), ex["padMode"], ex["padSide"], *args, profile=p
        )
        st = reset_state(p, ub_bytes=8192).replace(ub=jnp.asarray(ub))
        fast = aj.VectorPadding(
            st, T(d, DST, ex["n"]), T(d, SRC, ex["n"]), ex["padMode"], ex["padSide"], *args, profile=p
        )
        assert ref.fault == 0 and int(fast.fault) == 0, form
        for got in (ref.ub, np.asarray(fast.ub)):
            out = got[DST : DST + 2 * ex["n"]].view(np.uint16).reshape(-1, 16)
            assert (out[:, pos] == want[None, :]).all(), form
        assert message(fast, ref) is None, form


@pytest.mark.parametrize("il", DATA["illustrations"], ids=lambda i: i["shown"])
def test_doc_illustrations(il):
    """The 功能说明 patterns: a DataBlock a~p (int16 1..16); the letters next to the boundary as
    shown, padMode 2's zero at the far end of the padded block (layout CHOICE)."""
    d, p = aj.int16, P.name
    letters = "abcdefghijklmnop"
    ub = np.zeros(8192, np.uint8)
    ub[SRC : SRC + 32] = np.arange(1, 17, dtype=np.int16).view(np.uint8)
    code = {c: i + 1 for i, c in enumerate(letters)}
    near = [code[c] for c in il["near"]]
    rs = RS.reset_state(p, ub_bytes=8192)
    rs.ub = ub.copy()
    ref = REF.VectorPadding(rs, T(d, DST, 16), T(d, SRC, 16), il["padMode"], il["padSide"], 16, profile=p)
    st = reset_state(p, ub_bytes=8192).replace(ub=jnp.asarray(ub))
    fast = aj.VectorPadding(st, T(d, DST, 16), T(d, SRC, 16), il["padMode"], il["padSide"], 16, profile=p)
    assert message(fast, ref) is None
    out = ref.ub[DST : DST + 32].view(np.int16).tolist()
    if il["padSide"]:  # nop|ppp: the padding follows the block, its first letters touch it
        assert out[: len(near)] == near, (il, out)
        if "zero" in il:
            assert out[-1] == 0 and 0 not in out[:-1], out
    else:  # aaa|abc: the padding precedes the block, its last letters touch it
        assert out[-len(near) :] == near, (il, out)
        if "zero" in il:
            assert out[0] == 0 and 0 not in out[1:], out


def test_outside_block_layout_in_full():
    """The whole padded block of every (padMode, padSide), for 8-element (32-bit) blocks too, from
    the page's words (NumPy here, independent of both implementations)."""
    for d in (aj.half, aj.float32):
        E = 32 // d.itemsize
        blk = np.arange(1, E + 1).astype(d.np_dtype)
        expect = {
            (0, False): np.full(E, blk[0]),
            (0, True): np.full(E, blk[-1]),
            (1, False): blk[::-1],  # ...cba|abc...
            (1, True): blk[::-1],  # ...nop|pon...
            (2, False): np.concatenate([[0], blk[1:][::-1]]),  # x p ... c b | a b c
            (2, True): np.concatenate([blk[:-1][::-1], [0]]),  # n o p | o n ... a x
        }
        ub = np.zeros(8192, np.uint8)
        ub[SRC : SRC + 32] = blk.view(np.uint8)
        for (mode, side), want in expect.items():
            rs = RS.reset_state(P, ub_bytes=8192)
            rs.ub = ub.copy()
            ref = REF.VectorPadding(rs, T(d, DST, E), T(d, SRC, E), mode, side, E, profile=P)
            got = ref.ub[DST : DST + 32].view(d.np_dtype)
            assert got.tobytes() == want.astype(d.np_dtype).tobytes(), (d, mode, side, got)


# ---------------------------------------------------------------------------------------------
# differential


@dataclasses.dataclass
class PadCase:
    base: object  # test_elementwise_differential.Case (api VectorPadding, family unary)
    mode: int
    side: bool
    fast: object = dataclasses.field(default=None, repr=False)  # (CoreState, (StridedStatic, dyn))


def _case(rng, p, dt, form):
    """A random case the product accepts statically. A draw it rejects (e.g. a zero mask on a
    profile with ``zero_mask = "error"``) must be rejected by both implementations naming the same
    argument; then another is drawn."""
    while True:
        c = PadCase(random_case(rng, p, "unary", "VectorPadding", dt, form), int(rng.integers(0, 3)), False)
        c.side = bool(rng.random() < 0.5)
        st = fast_state(c.base, p)
        try:
            c.fast = (st, _plan(c, st, p))
            return c
        except UsageError as e:
            with pytest.raises(UsageError) as ref_e:
                call(REF, c, ref_state(c.base, p), p)
            assert ref_e.value.argument == e.argument, (c, e, ref_e.value)


def _tensors(c):
    d = as_dtype(c.base.dtype)
    return T(d, c.base.dst, 64), T(d, c.base.srcs[0], 64)


def _args(c):
    b = c.base
    if b.form in ("count", "count_register"):
        return (b.count,), b.form == "count"
    mask = MASK_PLACEHOLDER if b.form == "register" else b.mask
    return (mask, b.repeat, URP(b.blk[0], b.blk[1], b.rep[0], b.rep[1])), b.form != "register"


def call(mod, c, state, p):
    dst, src = _tensors(c)
    args, is_set = _args(c)
    return mod.VectorPadding(state, dst, src, c.mode, c.side, *args, profile=p, isSetMask=is_set)


_FN = {}


def _plan(c, state, p):
    dst, src = _tensors(c)
    args, is_set = _args(c)
    return PAD.plan(state, dst, src, c.mode, c.side, args, p, is_set, RB)


def _stack(*xs):
    return np.stack([np.asarray(x) for x in xs])


def run_fast_batch(cases, p):
    """All cases of a dtype in one vmapped program (the key: dtype, bucket RB, ordered writes).
    Each case is planned once, with static Python values, by the API module's own planner."""
    pairs = [
        c.fast if c.fast is not None else (lambda s, c=c: (s, _plan(c, s, p)))(fast_state(c.base, p))
        for c in cases
    ]
    states = [s for s, _ in pairs]
    plans = [pl for _, pl in pairs]
    out = [None] * len(cases)
    groups = {}
    for i, (st, _dyn) in enumerate(plans):
        assert st.R <= RB, (cases[i], st.R)
        groups.setdefault(dataclasses.replace(st, R=RB, ordered=True), []).append(i)
    for key, idx in groups.items():
        if key not in _FN:
            _FN[key] = jax.jit(jax.vmap(lambda s, d, k=key: run_strided(k, s, d)))
        sts = jax.tree_util.tree_map(_stack, *[states[i] for i in idx])
        dyns = jax.tree_util.tree_map(_stack, *[plans[i][1] for i in idx])
        res = jax.tree_util.tree_map(np.asarray, _FN[key](sts, dyns))
        for j, i in enumerate(idx):
            out[i] = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
    return out


def _cases(p, dt, per_form, seed):
    rng = np.random.default_rng(seed)
    return [_case(rng, p, dt, form) for form in FORMS for _ in range(per_form)]


def _check(cases, p):
    fast = run_fast_batch(cases, p)
    n_ran = 0
    for c, f in zip(cases, fast, strict=True):
        r = call(REF, c, ref_state(c.base, p), p)
        msg = message(f, r)
        assert msg is None, f"{p.name}: {c}: {msg}"
        n_ran += int(r.fault == 0)
    assert n_ran > len(cases) // 4, "too few cases ran (most faulted)"
    return fast


DTYPES = list(P.api("VectorPadding").dtypes)
_CHEAP = ("half", "float32")  # the default run: one program each; the 16/32-bit integer types under -m slow


@pytest.mark.parametrize(
    "dt", [d if d in _CHEAP else pytest.param(d, marks=pytest.mark.slow) for d in DTYPES]
)
def test_differential(dt):
    """Every call form and padding choice, a small sample per (dtype, form)."""
    _check(_cases(P, dt, 12 * SCALE, seed=sum(map(ord, dt))), P)


@pytest.mark.slow
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("prof", PROFILES)
def test_differential_campaign(prof, dt):
    """>= 2,000 random cases per (dtype, form) on every profile that has the API."""
    p = load_profile(prof)
    for b in range(4):
        _check(_cases(p, dt, 500, seed=7000 + b), p)


def test_static_equals_traced():
    """The eager public API with Python ints (static) gives the bits of the batched program, where
    every address, stride, count, mask and padding choice is traced."""
    rng = np.random.default_rng(11)
    cases = [_case(rng, P, "half", form) for form in FORMS for _ in range(2)]
    fast = run_fast_batch(cases, P)
    for c, f in zip(cases, fast, strict=True):
        s = call(aj, c, fast_state(c.base, P), P)
        assert message(s, f) is None, c


def test_public_api_under_vmap():
    """padMode, padSide, addresses and count traced through ``jax.vmap`` of the public API (one
    program, max_repeats bucket) == the reference with Python values."""
    d = aj.half
    rng = np.random.default_rng(5)
    n = 12
    modes = rng.integers(0, 3, n).astype(np.int32)
    sides = rng.integers(0, 2, n).astype(np.int32)
    srcs = (rng.integers(0, 64, n) * 32).astype(np.int32)
    dsts = (4096 + rng.integers(0, 64, n) * 32).astype(np.int32)
    counts = rng.integers(1, 400, n).astype(np.int32)
    ub = rng.integers(0, 256, 8192, dtype=np.uint8)
    st = reset_state(P, ub_bytes=8192).replace(ub=jnp.asarray(ub))

    def one(m, s, sa, da, cnt):
        return aj.VectorPadding(st, T(d, da, 512), T(d, sa, 512), m, s, cnt, profile=P, max_repeats=4)

    res = jax.vmap(one)(modes, sides, srcs, dsts, counts)
    for i in range(n):
        rs = RS.reset_state(P, ub_bytes=8192)
        rs.ub = ub.copy()
        ref = REF.VectorPadding(
            rs, T(d, int(dsts[i]), 512), T(d, int(srcs[i]), 512), int(modes[i]), bool(sides[i]),
            int(counts[i]), profile=P,
        )  # fmt: skip
        got = jax.tree_util.tree_map(lambda x, i=i: x[i], res)
        assert message(got, ref) is None, i


def test_traced_bad_pad_mode_is_bad_param():
    """A traced padMode outside [0, 2] suppresses the call with BAD_PARAM (static: UsageError)."""
    d = aj.half
    ub = np.random.default_rng(1).integers(0, 256, 8192, dtype=np.uint8)
    st = reset_state(P, ub_bytes=8192).replace(ub=jnp.asarray(ub))

    def one(m):
        return aj.VectorPadding(st, T(d, DST, 128), T(d, SRC, 128), m, False, 128, profile=P)

    res = jax.vmap(one)(jnp.asarray([1, 3, 255], jnp.int32))
    assert [int(f) for f in res.fault] == [0, int(Fault.BAD_PARAM), int(Fault.BAD_PARAM)]
    assert np.array_equal(np.asarray(res.ub[1]), ub) and np.array_equal(np.asarray(res.ub[2]), ub)


@pytest.mark.parametrize(
    "name, dst, src, want",
    [
        ("misaligned-src", (aj.half, DST), (aj.half, SRC + 2), Fault.MISALIGNED),
        ("misaligned-dst", (aj.half, DST + 16), (aj.half, SRC), Fault.MISALIGNED),
        ("out-of-ub", (aj.float32, 8192 - 64), (aj.float32, SRC), Fault.OUT_OF_UB),
        ("partial-overlap", (aj.half, 32), (aj.half, 0), Fault.PARTIAL_OVERLAP),
    ],
)
def test_faults(name, dst, src, want):
    """The one-source fault rules (docs/MODEL.md "Faults"), in both implementations."""
    ub = np.random.default_rng(2).integers(0, 256, 8192, dtype=np.uint8)
    rs = RS.reset_state(P, ub_bytes=8192)
    rs.ub = ub.copy()
    args = (1, True, 128)
    ref = REF.VectorPadding(rs, T(dst[0], dst[1], 128), T(src[0], src[1], 128), *args, profile=P)
    st = reset_state(P, ub_bytes=8192).replace(ub=jnp.asarray(ub))
    fast = aj.VectorPadding(st, T(dst[0], dst[1], 128), T(src[0], src[1], 128), *args, profile=P)
    assert ref.fault & want, (name, ref.fault)
    assert message(fast, ref) is None, name
    assert np.array_equal(ref.ub, ub), name


def test_whole_overlap_reads_before_writing():
    """dst == src (100 % overlap, allowed): every src block is read before any write."""
    d = aj.half
    blk = np.arange(1, 257).astype(np.float16)
    ub = np.zeros(8192, np.uint8)
    ub[0:512] = blk.view(np.uint8)
    rs = RS.reset_state(P, ub_bytes=8192)
    rs.ub = ub.copy()
    ref = REF.VectorPadding(rs, T(d, 0, 256), T(d, 0, 256), 1, False, 256, profile=P)
    st = reset_state(P, ub_bytes=8192).replace(ub=jnp.asarray(ub))
    fast = aj.VectorPadding(st, T(d, 0, 256), T(d, 0, 256), 1, False, 256, profile=P)
    assert ref.fault == 0 and message(fast, ref) is None
    assert ref.ub[0:512].view(np.float16).reshape(16, 16).tolist() == blk.reshape(16, 16)[:, ::-1].tolist()


# ---------------------------------------------------------------------------------------------
# misuse: both implementations name the same argument

H, HS, F, FS = T(aj.half, DST, 256), T(aj.half, SRC, 256), T(aj.float32, DST, 128), T(aj.float32, SRC, 128)
MISUSE = [
    ("padMode-3", (H, HS, 3, False, 256), {}, "padMode"),
    ("padMode-neg", (H, HS, -1, False, 256), {}, "padMode"),
    ("padMode-bool", (H, HS, True, False, 256), {}, "padMode"),
    ("padMode-float", (H, HS, 1.0, False, 256), {}, "padMode"),
    ("padSide-2", (H, HS, 0, 2, 256), {}, "padSide"),
    ("padSide-str", (H, HS, 0, "right", 256), {}, "padSide"),
    ("count-range", (H, HS, 0, False, 10**6), {}, "count"),
    ("repeatTime", (H, HS, 0, False, 128, 256, URP()), {}, "repeatTime"),
    ("mask1-f32", (F, FS, 0, False, [1, 1], 1, URP()), {}, "mask[1]"),
    ("dstRepStride", (H, HS, 0, False, 128, 1, URP(dstRepStride=256)), {}, "repeatParams.dstRepStride"),
    ("placeholder", (H, HS, 0, False, 128, 1, URP()), {"isSetMask": False}, "mask"),
    ("isSetMask", (H, HS, 0, False, 256), {"isSetMask": 1}, "isSetMask"),
    ("src-dtype", (H, FS, 0, False, 128), {}, "src.dtype"),
    ("src-not-tensor", (H, 5, 0, False, 128), {}, "src"),
]


@pytest.mark.parametrize("case", MISUSE, ids=lambda c: c[0])
def test_error_names(case):
    _, args, kw, want = case
    names = []
    for mod, st in ((aj, reset_state(P, ub_bytes=8192)), (REF, RS.reset_state(P, ub_bytes=8192))):
        with pytest.raises(UsageError) as ei:
            mod.VectorPadding(st, *args, profile=P, **kw)
        e = ei.value
        assert "VectorPadding" in str(e) and P.name in str(e), str(e)
        names.append(e.argument)
    assert names == [want, want], names


def test_unsupported_dtype_names_the_dtype():
    for mod, st in ((aj, reset_state(P, ub_bytes=8192)), (REF, RS.reset_state(P, ub_bytes=8192))):
        with pytest.raises(UnsupportedError) as ei:
            mod.VectorPadding(st, T(aj.int8, DST, 256), T(aj.int8, SRC, 256), 0, False, 256, profile=P)
        assert ei.value.argument == "dtype" and "int16" in str(ei.value)


def test_kernel_method():
    """``Kernel.VectorPadding`` (automatic for a registered API) runs the page's count example."""
    k = aj.Kernel("ascend310p")
    src, dst = k.alloc(aj.half, 512), k.alloc(aj.half, 512)
    vals = (np.arange(512) % 37 - 18).astype(np.float16)
    k.write(src, vals)
    k.VectorPadding(dst, src, 0, False, 512)
    out = np.asarray(k.read(dst)).reshape(32, 16)
    assert out.tobytes() == np.repeat(vals.reshape(32, 16)[:, :1], 16, axis=1).tobytes()


def test_any_form_traced():
    """``AnyForm`` with traced fields: one program serves the count and the high-dim forms, each
    equal to the reference's ordinary call of that form."""
    d = aj.float32
    rng = np.random.default_rng(9)
    ub = rng.integers(0, 256, 8192, dtype=np.uint8)
    st = reset_state(P, ub_bytes=8192).replace(ub=jnp.asarray(ub))
    rows = [  # (form, count, mask, mask word, repeatTime, padMode, padSide)
        (aj.AnyForm.COUNT, 100, 0, 0, 1, 2, 1),
        (aj.AnyForm.CONTINUOUS, 0, 37, 0, 3, 1, 0),
        (aj.AnyForm.BITWISE, 0, 0, 0x00F0_0F0F_0000_FFFF, 2, 2, 0),
        (aj.AnyForm.COUNT, 7, 0, 0, 1, 0, 1),
    ]
    cols = [jnp.asarray(np.array(c, np.int32)) for k, c in enumerate(zip(*rows, strict=True)) if k != 3]
    words = np.zeros((len(rows), 8), np.uint32)
    for i, r in enumerate(rows):
        words[i, :2] = (r[3] & 0xFFFFFFFF, r[3] >> 32)  # the uint64 word, low 32 bits first
    cols.insert(3, jnp.asarray(words))
    params = URP(1, 2, 8, 9)

    def one(form, count, mask, wds, rt, mode, side):
        af = aj.AnyForm(form, count, mask, wds, rt, params)
        return aj.VectorPadding(st, T(d, DST, 256), T(d, SRC, 256), mode, side, af, profile=P, max_repeats=4)

    res = jax.vmap(one)(*cols)
    for i, (form, count, mask, word, rt, mode, side) in enumerate(rows):
        args = {
            aj.AnyForm.COUNT: (count,),
            aj.AnyForm.CONTINUOUS: (mask, rt, params),
            aj.AnyForm.BITWISE: ([word, 0], rt, params),
        }[form]
        rs = RS.reset_state(P, ub_bytes=8192)
        rs.ub = ub.copy()
        ref = REF.VectorPadding(rs, T(d, DST, 256), T(d, SRC, 256), mode, bool(side), *args, profile=P)
        assert ref.fault == 0
        assert message(jax.tree_util.tree_map(lambda x, i=i: x[i], res), ref) is None, rows[i]


# ---------------------------------------------------------------------------------------------
# the fuzz adapter (ascend_jax/fuzz/families/padding.py)


def test_fuzz_adapter_small_campaign():
    """The adapter's cases (every form, Normal / Counter mode, injected data faults) through the fast
    path (the public API vmapped, one program) and the reference: equal bit for bit; its invalid
    static cases are rejected by both implementations naming the same argument."""
    from ascend_jax.fuzz.families import family_of_api
    from ascend_jax.fuzz.families import padding as FP
    from ascend_jax.fuzz.families.elementwise import reps_needed

    fam = FP.VectorPaddingFamily(buckets=(4,))
    assert family_of_api("VectorPadding").name == "padding"
    units = [u for u in fam.units(P, "VectorPadding") if u[1] == "half"]
    assert {u[2] for u in units} == set(FORMS) - (
        set() if P.level2_is_set_mask == "honoured" else {"count_register"}
    )
    rng = np.random.default_rng(23)
    cases = []
    while len(cases) < 60:
        c = fam.generate(rng, P, units[int(rng.integers(len(units)))], 0.1)
        if rng.random() < 0.15:
            c = fam.invalid_data(rng, P, c)[0]
        if reps_needed(c, P.lanes(aj.half)) <= 4:
            cases.append(c)
    fast, refs = fam.run_all(cases, P, batch=64, workers=1)
    for c, f, r in zip(cases, fast, refs, strict=True):
        assert fam.compare(f, r) is None, (c.call_repr(), fam.compare(f, r))
    faults = [int(f[0].fault) for f in fast]
    assert any(faults) and not all(faults)
    assert fam.from_json(fam.to_json(cases[0])) == cases[0]
    for c in cases[:12]:
        bad, what = fam.invalid_static(rng, P, c)
        names = []
        for mod, st in ((aj, fast_state_of(bad)), (REF, ref_state_of(bad))):
            with pytest.raises(UsageError) as e:
                fam.call_static(mod, bad, st, P)
            names.append(e.value.argument)
        assert names[0] == names[1], (bad.call_repr(), what, names)


def fast_state_of(c):
    return reset_state(P, ub_bytes=c.ub_bytes)


def ref_state_of(c):
    return RS.reset_state(P, ub_bytes=c.ub_bytes)
