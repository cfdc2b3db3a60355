"""Cast and Truncate fast path (``api/cast.py``, ``_engine/convert.py``) vs the literal reference
(``reference/cast.py``), bit for bit on the whole UB, the registers and the fault word.

Random cases draw every call form (count, isSetMask=false count, high-dim continuous / bitwise /
MASK_PLACEHOLDER register), Normal and Counter mode, addresses (aligned, misaligned, outside UB,
overlapping), strides, repeat counts, counts, the CTRL cast-saturation bit, the round mode and the
source bit patterns (NaN, inf, -0, subnormals, integer extremes, halves between integers). All cases
of a (src, dst) pair run in ONE vmapped program with every parameter traced, the round mode
included. A sample runs eagerly through the public API with Python ints (static == traced); every
example of the pages runs through the public API; misuse names the same argument in both
implementations.

Default run: every (pair, roundMode) of the default profile at the element level (one program), and
a few hundred call-level cases over one representative pair of each kind of layout (widening,
narrowing, same width, 64-bit). ``@pytest.mark.slow``: >= 2,000 call-level cases per pair on every
profile, and every 16-bit source pattern of each half / bfloat16 source pair.
"""

import dataclasses
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax import reference as REF
from ascend_jax._engine import convert as CV
from ascend_jax._engine.pipeline import run_strided
from ascend_jax.api import cast as CAST
from ascend_jax.dtypes import as_dtype
from ascend_jax.errors import UnsupportedError, UsageError
from ascend_jax.params import UnaryRepeatParams
from ascend_jax.profile import available_profiles, load_profile
from ascend_jax.reference import cast as RC
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state
from ascend_jax.tensor import MASK_PLACEHOLDER, LocalTensor

DEFAULT = load_profile("ascend910b")
UB = 8192
RB = 4  # repeat bucket of every random case
FORMS = ("count", "count_register", "continuous", "bitwise", "register")
SAT_OFF = 1 << 59  # CTRL[59] = 1: the non-saturating conversion mode
EXAMPLES = json.loads((pathlib.Path(__file__).parent / "data/elementwise_examples.json").read_text())[
    "cast_examples"
]


def modelled_pairs(p):
    """[(src, dst, sorted modes)] of the product's table the fast path runs (no DEQSCALE, complex)."""
    out = []
    for (s, t), (modes, _count_only) in CAST.cast_pairs(p).items():
        if "DEQSCALE" in modes or not (CV.modelled(as_dtype(s)) and CV.modelled(as_dtype(t))):
            continue
        out.append((s, t, tuple(sorted(modes))))
    return out


# -- source bit patterns --------------------------------------------------------------------------


def _specials(d):
    if d.name == "half":
        return [
            0x0000,
            0x8000,
            0x7C00,
            0xFC00,
            0x7E00,
            0x7C01,
            0x0001,
            0x83FF,
            0x3C00,
            0x7BFF,
            0x3800,
            0xB800,
        ]
    if d.name == "bfloat16":
        return [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x807F, 0x3F80, 0x7F7F, 0x3F00, 0xBFC0]
    if d.name == "float32":
        return [
            0,
            0x80000000,
            0x7F800000,
            0xFF800000,
            0x7FC00000,
            0x7F800001,
            1,
            0x807FFFFF,
            0x3F800000,
            0x7F7FFFFF,
            0x4F000000,
            0xCF000000,
            0x5F000000,
            0x3F000000,
            0x3FC00000,
            0x4B7FFFFF,
        ]
    if d.name == "float64":
        return [0, 1 << 63, 0x7FF << 52, 0xFFF << 52, 0x7FF8 << 48, 1, 0x3FF << 52, 0x43E << 52, 0x3FE8 << 48]
    n = d.bits
    return [0, 1, (1 << n) - 1, 1 << (n - 1), (1 << (n - 1)) - 1, (1 << (n - 1)) + 1, (1 << n) - 2]


def patterns(d, n, rng):
    """uint64[n] bit patterns of ``d``: random, specials and small multiples of 1/8."""
    raw = rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n, dtype=np.uint64)
    if d.bits < 64:
        raw &= np.uint64((1 << d.bits) - 1)
    pool = np.array(_specials(d), dtype=np.uint64)
    pick = rng.random(n)
    raw = np.where(pick < 0.25, pool[rng.integers(0, len(pool), n)], raw)
    if d.is_float:
        vals = rng.integers(-4096, 4096, n) / 8.0
        if d.name == "bfloat16":
            small = (vals.astype(np.float32).view(np.uint32) >> 16).astype(np.uint64)
        else:
            small = vals.astype(d.np_dtype).view(d.bits_dtype).astype(np.uint64)
        raw = np.where(pick > 0.6, small, raw)
    else:
        small = rng.integers(-300, 300, n).astype(np.int64).view(np.uint64)
        if d.bits < 64:
            small &= np.uint64((1 << d.bits) - 1)
        raw = np.where(pick > 0.7, small, raw)
    return raw


def _lanes(bits, d):
    if d.bits == 64:
        return np.stack(
            [(bits & np.uint64(0xFFFFFFFF)).astype(np.uint32), (bits >> np.uint64(32)).astype(np.uint32)], -1
        )
    return bits.astype(np.uint32)


def _from_lanes(x, d):
    x = np.asarray(x)
    if d.bits == 64:
        return x[..., 0].astype(np.uint64) | (x[..., 1].astype(np.uint64) << np.uint64(32))
    return x.astype(np.uint64)


def _ctrl_words(ctrl):
    return jnp.asarray([ctrl & 0xFFFFFFFF, ctrl >> 32], jnp.uint32)


# -- element level: every (pair, roundMode, CTRL saturation) in one program ---------------------------


def _example_rows(p, s, t):
    """precision_conversion.md rows of pair (s, t) that profile ``p`` lists (the pair, and the row's
    round mode or a lossless row), as (mode, input bits, row)."""
    out = []
    modes = CAST.cast_pairs(p)[(s, t)][0]
    for row in EXAMPLES["rows"]:
        if (row["src"], row["dst"]) != (s, t) or not (row["mode"] in modes or row["mode"] == "NONE"):
            continue
        mode = row["mode"] if row["mode"] in modes else sorted(modes)[0]  # lossless: every mode agrees
        out.append((mode, _bits(row["input"], s), row))
    return out


def _example_ok(got, row):
    T = as_dtype(row["dst"])
    check = row.get("check", "exact")
    if check == "exact":
        return got == _bits(row["output"], T)
    if check == "digits":  # the page prints the result with fewer digits
        v = float(np.array([got], T.bits_dtype).view(T.np_dtype)[0])
        k = len(row["output"].split("e")[0].replace("-", "").replace(".", "").lstrip("0"))
        return float(f"{v:.{k}g}") == float(row["output"])
    return got != _bits(row["output"], T)  # a documented doc error: not the printed value


def _element_check(p, n, seed, pairs=None):
    """Each pair: one program over every (roundMode, CTRL saturation) row of ``n`` random patterns
    followed by the pair's precision_conversion.md examples (checked against the printed values)."""
    rng = np.random.default_rng(seed)
    pairs = modelled_pairs(p) if pairs is None else pairs
    total = examples = 0
    bad = []
    for s, t, modes in pairs:
        S, T = as_dtype(s), as_dtype(t)
        rows = [(m, c) for m in modes for c in (0, SAT_OFF)]
        ex = _example_rows(p, s, t)
        rows += [(m, 0) for m, _, _ in ex]
        bits = patterns(S, n, rng)
        x = np.stack([_lanes(bits, S)] * len(rows))
        for k, (_, b, _) in enumerate(ex):
            x[len(rows) - len(ex) + k, 0] = _lanes(np.array([b], np.uint64), S)[0]
        f = jax.jit(lambda x, m, c, S=S, T=T: CV.convert(x, S, T, m, p, c))
        ctrls = np.array([[[c & 0xFFFFFFFF, c >> 32]] for _, c in rows], np.uint32)
        got = f(x, np.array([[CV.MODES[m]] for m, _ in rows], np.int32), ctrls)
        got = _from_lanes(got, T)
        for k, (mode, ctrl) in enumerate(rows[: len(rows) - len(ex)]):
            lf = RC.lane_function(s, t, mode, p, ctrl)
            want = np.array([lf(int(v)) for v in bits], np.uint64)
            for i in np.nonzero(got[k] != want)[0][:3]:
                bad.append((s, t, mode, hex(ctrl), hex(int(bits[i])), hex(int(got[k][i])), hex(int(want[i]))))
            total += n
        for k, (mode, _, row) in enumerate(ex):
            if not _example_ok(int(got[len(rows) - len(ex) + k, 0]), row):
                bad.append(("example", row, mode))
            examples += 1
    assert not bad, bad
    return total, examples


def test_every_example_row_has_a_profile_that_checks_it():
    """Each precision_conversion.md row runs in the element check of some profile (the default one
    in the default run, the others in the slow tier)."""
    for row in EXAMPLES["rows"]:
        p = _profile_with(row["src"], row["dst"], row["mode"])
        assert p is not None and any((s, t) == (row["src"], row["dst"]) for s, t, _ in modelled_pairs(p)), row


def test_every_pair_and_round_mode_of_the_default_profile():
    """Every (pair, roundMode, CTRL saturation) of ascend910b vs the reference, and every example
    of precision_conversion.md whose pair the default profile lists (the others: slow tier)."""
    n, examples = _element_check(DEFAULT, 128, 1)
    assert n >= 128 * 2 * 60 and examples >= 20


# -- call level --------------------------------------------------------------------------------------


@dataclasses.dataclass
class Case:
    src: str
    dst: str
    mode: str
    form: str
    counter: bool
    ctrl: int
    vmask: tuple
    ub_seed: int
    d_addr: int
    s_addr: int
    blk: tuple  # dst, src
    rep: tuple  # dst, src
    count: int
    mask: object
    repeat: int


def random_case(rng, p, s, t, modes, form):
    S, T = as_dtype(s), as_dtype(t)
    wide = S if S.bits > T.bits else T
    L = p.lanes(wide)
    nib = min(S.bits, T.bits) < 8  # int4b_t: counts / masks in byte pairs (Cast.md 约束说明)
    counter = bool(rng.random() < 0.3)
    if form == "count_register" and p.level2_is_set_mask != "honoured":
        form = "count"
    vm = np.zeros(8, np.uint32)
    if counter:
        vm[0] = int(rng.integers(0, RB * L + 1))
    else:
        nbits = min(L, p.vector_mask_bits)
        bits = rng.integers(0, 2, nbits) if rng.random() < 0.7 else np.ones(nbits, np.int64)
        if nib and rng.random() < 0.7:  # else some byte's two lanes differ: BAD_MASK
            bits[1::2] = bits[0::2]
        for i, b in enumerate(bits):
            if b:
                vm[i // 32] |= np.uint32(1 << (i % 32))
    blk = tuple(int(rng.choice([0, 1, 1, 1, 2, 3])) if rng.random() < 0.4 else 1 for _ in range(2))
    if blk[0] == 0 and rng.random() < 0.7:
        blk = (1, blk[1])
    rep = tuple(int(rng.integers(0, 17)) if rng.random() < 0.6 else 8 * d.bits // wide.bits for d in (T, S))

    def addr(d):
        a = int(rng.integers(0, UB // 32)) * 32
        if rng.random() < 0.05:
            size = max(1, d.bits // 8)
            a += size * int(rng.integers(1, 32 // size))
        if rng.random() < 0.03:
            a = UB + 32 * int(rng.integers(0, 8))
        return a

    d_addr = addr(T)
    s_addr = addr(S) if rng.random() < 0.9 else d_addr
    mask = None
    low = 1 if p.zero_mask == "error" else 0  # a static zero mask is a UsageError there
    if form == "continuous":
        mask = int(rng.integers(low, (RB * L if counter else L) + 1))
    elif form == "bitwise":
        n64 = max(1, min(L, p.vector_mask_bits) // 64)
        if counter:
            mask = [int(rng.integers(low, RB * L + 1))] + [0] * (n64 - 1)
        else:
            mask = [int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2)) for _ in range(n64)]
            if min(L, p.vector_mask_bits) < 64:
                mask = [mask[0] & ((1 << L) - 1)]
            mask[0] |= low
            if nib and rng.random() < 0.8:  # else a byte's two lanes differ: BAD_MASK at run time
                mask = [(w & 0x5555555555555555) * 3 for w in mask]
                mask[0] |= 3 * low
    if nib and form == "continuous":
        mask += mask % 2
    count = int(rng.integers(0, RB * L + 1))
    if nib:
        count -= count % 2
    return Case(
        s, t, str(rng.choice(modes)), form, counter, int(rng.choice([0, SAT_OFF])),
        tuple(int(x) for x in vm), int(rng.integers(0, 2**31)), d_addr, s_addr, blk, rep,
        count, mask, int(rng.integers(0, RB + 1)),
    )  # fmt: skip


def _ub(c):
    S = as_dtype(c.src)
    rng = np.random.default_rng(c.ub_seed)
    n = UB * 8 // S.bits
    bits = patterns(S, n, rng)
    if S.bits < 8:  # int4b_t: element 2k in the low nibble of byte k
        return (bits[0::2] | (bits[1::2] << np.uint64(4))).astype(np.uint8)
    return bits.astype(S.bits_dtype).view(np.uint8).copy()


def _args(c):
    if c.form in ("count", "count_register"):
        return (c.count,), c.form == "count"
    mask = MASK_PLACEHOLDER if c.form == "register" else c.mask
    return (mask, c.repeat, UnaryRepeatParams(c.blk[0], c.blk[1], c.rep[0], c.rep[1])), c.form != "register"


def _tensors(c):
    return LocalTensor(as_dtype(c.dst), c.d_addr, 64), LocalTensor(as_dtype(c.src), c.s_addr, 64)


def fast_state(c, p):
    st = reset_state(p, ub_bytes=UB)
    return st.replace(
        ub=jnp.asarray(_ub(c)),
        vmask=jnp.asarray(np.array(c.vmask, np.uint32)),
        mask_mode=jnp.asarray(1 if c.counter else 0, st.mask_mode.dtype),
        ctrl=_ctrl_words(c.ctrl),
    )


def run_reference(c, p):
    st = RS.reset_state(p, ub_bytes=UB)
    st.ub = _ub(c)
    st.vmask = np.array(c.vmask, np.uint32)
    st.mask_mode = 1 if c.counter else 0
    RS.set_ctrl(st, c.ctrl)
    dst, src = _tensors(c)
    args, is_set = _args(c)
    return REF.Cast(st, dst, src, "CAST_" + c.mode, *args, profile=p, isSetMask=is_set)


_FN = {}


def run_fast_batch(cases, p):
    """All cases of a pair in one vmapped program (every parameter traced, the round mode too)."""
    states = [fast_state(c, p) for c in cases]
    plans = []
    for c, s in zip(cases, states, strict=True):
        dst, src = _tensors(c)
        args, is_set = _args(c)
        plans.append(CAST.plan_cast(s, dst, src, "CAST_" + c.mode, args, p, is_set, RB))
    out = [None] * len(cases)
    groups = {}
    for i, (st, _dyn) in enumerate(plans):
        assert st.R <= RB, (cases[i], st.R)
        groups.setdefault(dataclasses.replace(st, R=RB, ordered=True), []).append(i)
    for key, idx in groups.items():
        if key not in _FN:
            _FN[key] = jax.jit(jax.vmap(lambda s, d, k=key: run_strided(k, s, d)))
        st = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[states[i] for i in idx])
        dyn = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[plans[i][1] for i in idx])
        res = _FN[key](st, dyn)
        for j, i in enumerate(idx):
            out[i] = jax.tree_util.tree_map(lambda x, j=j: x[j], res)
    return out


def _same(fast, ref):
    return (
        np.array_equal(np.asarray(fast.ub), ref.ub)
        and np.array_equal(np.asarray(fast.vmask), ref.vmask)
        and int(fast.mask_mode) == int(ref.mask_mode)
        and int(fast.fault) == int(ref.fault)
    )


def _check(cases, p):
    fast = run_fast_batch(cases, p)
    bad = []
    for c, f in zip(cases, fast, strict=True):
        r = run_reference(c, p)
        if not _same(f, r):
            bad.append((c, int(f.fault), int(r.fault)))
    assert not bad, f"{len(bad)} mismatches, first: {bad[:2]}"
    return fast


def _pair_cases(p, s, t, modes, n, seed, forms=FORMS):
    rng = np.random.default_rng(seed)
    return [random_case(rng, p, s, t, modes, forms[i % len(forms)]) for i in range(n)]


# one pair of each layout: widening (default run), narrowing, same width, 64-bit dst, 64-bit src (slow
# tier, with every other pair of every profile)
LAYOUT_PAIRS = (
    ("half", "float32"),
    ("float32", "half"),
    ("int32", "float32"),
    ("int32", "int64"),
    ("int64", "float32"),
)


def _modes_of(p, pair):
    return dict(((s, t), m) for s, t, m in modelled_pairs(p))[pair]


def test_call_forms_match_the_reference_and_static_equals_traced():
    """half -> float32 (a widening layout: the src spans 4 blocks a repeat, the dst 8), every call
    form, vs the reference; one case again through the public API with Python ints (static ==
    traced)."""
    p, pair = DEFAULT, LAYOUT_PAIRS[0]
    cases = _pair_cases(p, *pair, _modes_of(p, pair), 40, 21)
    fast = _check(cases, p)
    c = next(c for c in cases if c.form == "bitwise" and not c.counter)
    dst, src = _tensors(c)
    args, is_set = _args(c)
    g = aj.Cast(fast_state(c, p), dst, src, getattr(aj.RoundMode, "CAST_" + c.mode), *args, profile=p,
                isSetMask=is_set, max_repeats=RB)  # fmt: skip
    f = fast[cases.index(c)]
    assert np.array_equal(np.asarray(g.ub), np.asarray(f.ub)) and int(g.fault) == int(f.fault), c


@pytest.mark.slow
@pytest.mark.parametrize("pair", LAYOUT_PAIRS[1:], ids=lambda x: f"{x[0]}-{x[1]}")
def test_call_forms_match_the_reference_slow(pair):
    _check(_pair_cases(DEFAULT, *pair, _modes_of(DEFAULT, pair), 300, 17 + len(pair[0])), DEFAULT)


# -- the pages' examples through the public API ------------------------------------------------------


def _bits(value, dtype):
    d = as_dtype(dtype)
    v = float(value) if d.is_float else int(float(value))
    return int(np.array([v]).astype(d.np_dtype).view(f"<u{d.itemsize}")[0])


def _profile_with(src, dst, mode):
    for name in available_profiles():
        p = load_profile(name)
        if p.api("Cast").supported:
            pairs = CAST.cast_pairs(p)
            if (src, dst) in pairs and (mode in pairs[(src, dst)][0] or mode == "NONE"):
                return p
    return None


def _fast_with(p, writes):
    ub = np.zeros(p.ub_usable_bytes if p.ub_usable_bytes <= 262144 else 262144, np.uint8)
    for addr, arr in writes:
        b = np.asarray(arr).view(np.uint8)
        ub[addr : addr + b.size] = b
    return reset_state(p).replace(ub=jnp.asarray(ub[: reset_state(p).ub.shape[-1]]))


def _read(state, addr, d, n):
    return np.asarray(state.ub)[addr : addr + n * d.itemsize].view(d.bits_dtype)


def _page_example(forms):
    ex = EXAMPLES["page_example"]
    x = np.array([float(v) for v in ex["input"]] * 86, np.float16)[:512]
    p = DEFAULT
    st = _fast_with(p, [(0, x)])
    dst, src = LocalTensor(aj.int32, 4096, 512), LocalTensor(aj.half, 0, 512)
    for mode, want in ex["outputs"].items():
        for args in forms:
            out = aj.Cast(st, dst, src, "CAST_" + mode, *args, profile=p)
            assert int(out.fault) == 0
            got = _read(out, 4096, aj.int32, 512).view(np.int32)
            assert list(got[:6]) == want and got[511] == want[511 % 6], (mode, args)
    # RoundMode members, ints and names are the same argument
    outs = [aj.Cast(st, dst, src, m, *forms[0], profile=p) for m in (aj.RoundMode.CAST_CEIL, 3, "ceil")]
    for o in outs[1:]:
        assert np.array_equal(np.asarray(o.ub), np.asarray(outs[0].ub))


def test_cast_page_example():
    """Cast.md's example (half -> int32, every printed round mode) in the page's high-dim form."""
    _page_example(((64, 8, UnaryRepeatParams(1, 1, 8, 4)),))


@pytest.mark.slow
def test_cast_page_example_count_form_slow():
    _page_example(((512,),))


def test_truncate_page_example():
    ex = EXAMPLES["truncate_example"]
    d = as_dtype(ex["dtype"])
    p = load_profile("ascend950")
    st = _fast_with(p, [(0, np.array([float(v) for v in ex["input"]], d.np_dtype))])
    out = aj.Truncate(st, LocalTensor(d, 4096, 8), LocalTensor(d, 0, 8), 3, roundMode="CAST_" + ex["roundMode"],
                      profile=p)  # fmt: skip
    assert int(out.fault) == 0
    got = _read(out, 4096, d, 3).view(d.np_dtype)
    assert list(got) == [float(v) for v in ex["output"]]


def _truncate_check(dtypes, n):
    p = load_profile("ascend950")
    rng = np.random.default_rng(5)
    for dt in dtypes:
        d = as_dtype(dt)
        bits = patterns(d, n, rng).astype(d.bits_dtype)
        for mode in ("RINT", "ROUND", "FLOOR", "CEIL", "TRUNC"):
            st = _fast_with(p, [(0, bits)])
            out = aj.Truncate(st, LocalTensor(d, 16384, n), LocalTensor(d, 0, n), n, roundMode="CAST_" + mode,
                              profile=p)  # fmt: skip
            r = REF.Truncate(REF.ub_write(REF.reset_state(p), 0, d, bits.view(d.np_dtype)), LocalTensor(d, 16384, n),
                             LocalTensor(d, 0, n), n, roundMode="CAST_" + mode, profile=p)  # fmt: skip
            assert int(out.fault) == int(r.fault) == 0
            assert np.array_equal(_read(out, 16384, d, n), REF.ub_read(r, 16384, d, n).view(d.bits_dtype)), (
                dt,
                mode,
            )


def test_truncate_matches_the_reference():
    _truncate_check(("float32",), 64)


@pytest.mark.slow
def test_truncate_matches_the_reference_slow():
    _truncate_check(("half", "bfloat16", "float32"), 2000)


# -- misuse: the same error, naming the same argument, in both implementations ------------------------


def _both(fn_fast, fn_ref, exc, match):
    with pytest.raises(exc, match=match):
        fn_fast()
    with pytest.raises(exc, match=match):
        fn_ref()


def test_error_names():
    p = "ascend910b"
    fs, rs = reset_state(p), REF.reset_state(p)
    dst, src = LocalTensor(aj.int32, 4096, 64), LocalTensor(aj.half, 0, 64)
    for impl_args, exc, match in (
        (((LocalTensor(aj.int8, 4096, 64), LocalTensor(aj.int16, 0, 64), "CAST_NONE", 64)), UnsupportedError,
         "int16->int8"),
        ((dst, src, "CAST_NONE", 64), UsageError, "roundMode"),  # half -> int32 lists no CAST_NONE
        ((dst, src, "CAST_SIDEWAYS", 64), UsageError, "roundMode"),
        ((LocalTensor(aj.half, 4096, 64), LocalTensor(aj.int32, 0, 64), "CAST_SIDEWAYS", 64), UsageError,
         "roundMode"),  # the DEQSCALE pair (tests/test_castcomp.py) still names a bad roundMode
        ((dst, np.zeros(4), "CAST_RINT", 64), UsageError, "src"),
        # 64 lanes by the wider type (int32): the upper mask word must be 0
        ((dst, src, "CAST_RINT", [0, 2**64 - 1], 1, UnaryRepeatParams(1, 1, 8, 4)), UsageError, r"mask\[1\]"),
    ):  # fmt: skip
        _both(
            lambda a=impl_args: aj.Cast(fs, *a, profile=p),
            lambda a=impl_args: REF.Cast(rs, *a, profile=p),
            exc,
            match,
        )
    _both(
        lambda: aj.Cast(reset_state("ascend310p_vec"), dst, src, "CAST_RINT", 64, profile="ascend310p_vec"),
        lambda: REF.Cast(
            REF.reset_state("ascend310p_vec"), dst, src, "CAST_RINT", 64, profile="ascend310p_vec"
        ),
        UnsupportedError,
        "Cast",
    )
    f32 = LocalTensor(aj.float32, 0, 8)
    _both(
        lambda: aj.Truncate(reset_state("ascend950"), f32, f32, 8, roundMode="CAST_ODD", profile="ascend950"),
        lambda: REF.Truncate(
            REF.reset_state("ascend950"), f32, f32, 8, roundMode="CAST_ODD", profile="ascend950"
        ),
        UsageError,
        "roundMode",
    )
    _both(
        lambda: aj.Truncate(fs, f32, f32, 8, roundMode="CAST_FLOOR", profile=p),
        lambda: REF.Truncate(rs, f32, f32, 8, roundMode="CAST_FLOOR", profile=p),
        UnsupportedError,
        "Truncate",
    )


# -- nightly campaigns -------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "profile", [n for n in available_profiles() if load_profile(n).api("Cast").supported]
)
def test_every_pair_every_profile_slow(profile):
    p = load_profile(profile)
    _element_check(p, 2000, 11)
    for i, (s, t, modes) in enumerate(modelled_pairs(p)):
        count_only = CAST.cast_pairs(p)[(s, t)][1]
        _check(_pair_cases(p, s, t, modes, 2000, 100 + i, ("count",) if count_only else FORMS), p)


@pytest.mark.slow
@pytest.mark.parametrize(
    "profile", [n for n in available_profiles() if load_profile(n).api("Cast").supported]
)
def test_exhaustive_16_bit_float_sources_slow(profile):
    p = load_profile(profile)
    allx = np.arange(65536, dtype=np.uint32)
    for s, t, modes in modelled_pairs(p):
        if s not in ("half", "bfloat16"):
            continue
        S, T = as_dtype(s), as_dtype(t)
        f = jax.jit(lambda x, m, c, S=S, T=T: CV.convert(x, S, T, m, p, c))
        for mode in modes:
            for ctrl in (0, SAT_OFF):
                got = _from_lanes(
                    f(jnp.asarray(allx), jnp.asarray(CV.MODES[mode], jnp.int32), _ctrl_words(ctrl)), T
                )
                lf = RC.lane_function(s, t, mode, p, ctrl)
                want = np.array([lf(int(v)) for v in allx], np.uint64)
                bad = np.nonzero(got != want)[0]
                assert bad.size == 0, (s, t, mode, ctrl, [hex(int(v)) for v in bad[:5]])
