"""Gather, Gatherb(ISASI), Scatter(ISASI) (离散与聚合/).

* every result example of the pages (tests/data/gather_scatter_examples.json) through the reference and
  the fast path, in every call form the page shows;
* differential: fast path == reference, bit for bit (UB, registers, fault word) on random cases drawn
  with NumPy (offsets in and out of range, misaligned, duplicated; addresses; counts, masks, strides,
  repeats; Normal and Counter mode), vmapped: one program per (API, dtype); >= 2,000 cases per API on
  the default run, the other products under ``slow``;
* Python-int and traced parameters give the same bits; out-of-range offsets fault;
* misuse: the same argument named by both implementations.
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
from ascend_jax.api import gather as GA
from ascend_jax.dtypes import as_dtype
from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.fuzz.compare import message
from ascend_jax.fuzz.families import gather_scatter as GS
from ascend_jax.reference import state as RS
from ascend_jax.state import reset_state
from ascend_jax.tensor import LocalTensor
from ascend_jax.testing.traces import programs_built

T = LocalTensor
U32 = aj.uint32
DATA = json.loads(
    (pathlib.Path(__file__).parent / "data" / "gather_scatter_examples.json").read_text(encoding="utf-8")
)
UB = 8192
N_DIFF = 2000  # cases per API on the default run


def _prog(spec, dtype):
    return (spec["start"] + spec["step"] * np.arange(spec["n"])).astype(dtype)


def _states(prof, ub, mode=0):
    rs = RS.reset_state(prof, ub_bytes=UB)
    rs.ub = ub.copy()
    rs.mask_mode = mode
    st = reset_state(prof, ub_bytes=UB).replace(ub=jnp.asarray(ub), mask_mode=jnp.asarray(mode, jnp.int32))
    return st, rs


def _put(ub, addr, arr):
    raw = np.ascontiguousarray(arr).view(np.uint8)
    ub[addr : addr + raw.size] = raw


# ---------------------------------------------------------------------------------------------
# result examples of the pages


@pytest.mark.parametrize("form", range(3), ids=["count", "continuous", "bitwise"])
def test_gather_doc_example(form):
    ex = DATA["gather"]
    d = as_dtype(ex["dtype"])
    ub = np.zeros(UB, np.uint8)
    _put(ub, 0, _prog(ex["src"], np.float16))
    _put(ub, 1024, _prog(ex["srcOffset"], np.uint32))
    args = ex["forms"][form]["args"]
    st, rs = _states("ascend910b", ub)
    call = (T(d, 4096, 128), T(d, 0, 128), T(U32, 1024, 128), ex["srcBaseAddr"], *args)
    ref = REF.Gather(rs, *call, profile="ascend910b")
    fast = aj.Gather(st, *call, profile="ascend910b")
    assert ref.fault == 0 and message(fast, ref) is None
    want = _prog(ex["dst"], np.float16)
    np.testing.assert_array_equal(ref.ub[4096 : 4096 + 256].view(np.uint16), want.view(np.uint16))


def test_gatherb_doc_example():
    ex = DATA["gatherb"]
    d = as_dtype(ex["dtype"])
    ub = np.zeros(UB, np.uint8)
    _put(ub, 0, _prog(ex["src"], np.uint16))
    _put(ub, 1024, np.array(ex["offset"], np.uint32))
    st, rs = _states("ascend910b", ub)
    call = (T(d, 4096, 128), T(d, 0, 128), T(U32, 1024, 8), ex["repeatTime"], tuple(ex["repeatParams"]))
    ref = REF.Gatherb(rs, *call, profile="ascend910b")
    fast = aj.Gatherb(st, *call, profile="ascend910b")
    assert ref.fault == 0 and message(fast, ref) is None
    got = ref.ub[4096 : 4096 + 256].view(np.uint16).reshape(8, 16)
    for row, vals in ex["dst_rows_printed"].items():
        np.testing.assert_array_equal(got[int(row)], np.array(vals, np.uint16))


@pytest.mark.parametrize(
    "prof",
    [
        pytest.param(x, marks=() if x == "ascend950" else pytest.mark.slow)
        for x in DATA["scatter"]["profiles"]
    ],
)
def test_scatter_doc_example(prof):
    ex = DATA["scatter"]
    d = as_dtype(ex["dtype"])
    ub = np.zeros(UB, np.uint8)
    _put(ub, 0, _prog(ex["src"], np.float16))
    _put(ub, 1024, _prog(ex["dstOffset"], np.uint32))
    st, rs = _states(prof, ub)
    call = (T(d, 4096, 128), T(d, 0, 128), T(U32, 1024, 128), ex["dstBaseAddr"], ex["count"])
    ref = REF.Scatter(rs, *call, profile=prof)
    fast = aj.Scatter(st, *call, profile=prof)
    assert ref.fault == 0 and message(fast, ref) is None
    want = _prog(ex["dst"], np.float16)
    np.testing.assert_array_equal(ref.ub[4096 : 4096 + 256].view(np.uint16), want.view(np.uint16))


# ---------------------------------------------------------------------------------------------
# differential: random cases of the fuzz family (ascend_jax/fuzz/families/gather_scatter.py: offsets
# in and out of range, misaligned, duplicated; addresses; counts, masks, strides, repeats; Normal and
# Counter mode), run through the public API vmapped: one program per (API, dtype)


def _differential(api, prof, dt, n, seed=7):
    p = aj.load_profile(prof)
    fam = GS.GatherScatterFamily()
    units = [u for u in fam.units(p, api) if u[1] == dt]
    assert units, (api, prof, dt)
    rng = np.random.default_rng(seed)
    cases = [fam.generate(rng, p, units[i % len(units)], 0.1) for i in range(n)]
    with programs_built("run_gatherb" if api == "Gatherb" else "run_gather") as built:
        fast, refs = fam.run_all(cases, p, batch=512, workers=1)
    assert len(built) == 1, built  # every call form of the (API, dtype) in one program
    n_ok = 0
    for c, f, r in zip(cases, fast, refs, strict=True):
        assert fam.compare(f, r) is None, (c.call_repr(), fam.compare(f, r))
        n_ok += int(r[0].fault) == 0
    # the draw exercises the data path, not only the faults
    assert n_ok > n // 3, n_ok
    assert {c.form for c in cases} == {u[2] for u in units}
    # Python-int (static) parameters through the public API give the traced (vmapped) bits: cases
    # within one repeat run eagerly in the one-repeat program the doc examples compile
    fn = getattr(aj, api)
    shown = 0
    for c, f in zip(cases, fast, strict=True):
        if shown == 6 or not _one_repeat(c, p):
            continue
        st = reset_state(prof, ub_bytes=UB).replace(
            ub=jnp.asarray(GS.make_ub(c)), mask_mode=jnp.asarray(c.mask_mode, jnp.int32)
        )
        st = st.replace(vmask=jnp.asarray(c.vmask, jnp.uint32), ctrl=jnp.asarray(c.ctrl, jnp.uint32))
        got = fn(st, *_static_args(c, p), profile=prof, max_repeats=1)
        assert message(got, f[0]) is None, c.call_repr()
        shown += 1
    assert shown == 6
    return n_ok


def _static_args(c, p):
    d = as_dtype(c.dtype)
    table = T(U32, c.off, len(c.offsets))
    if c.api == "Gatherb":
        return (T(d, c.dst, 128), T(d, c.src, 128), table, c.repeat, GA.GatherRepeatParams(c.blk, c.stride))
    L = GS.lanes_of(p, c.dtype)
    head = (T(d, c.dst, L), T(d, c.src, L), table, c.base)
    if c.form == "count":
        return (*head, c.count)
    mask = list(c.mask) if c.form == "bitwise" else c.mask
    return (*head, mask, c.repeat, c.stride)


def _one_repeat(c, p):
    if c.api == "Gatherb":
        return c.repeat <= 1
    L = GS.lanes_of(p, c.dtype)
    if c.form == "count":
        return c.count <= L
    if c.mask_mode == 1:
        return c.form == "continuous" and c.mask <= L
    return c.repeat <= 1


@pytest.mark.parametrize(
    "api,prof,dt",
    [
        ("Gather", "ascend910b", "half"),
        ("Gatherb", "ascend910b", "uint16"),
        ("Scatter", "ascend950", "half"),
    ],
)
def test_differential_default(api, prof, dt):
    _differential(api, prof, dt, N_DIFF)


@pytest.mark.slow
@pytest.mark.parametrize(
    "api,prof,dt",
    [
        ("Gather", "ascend910b", "float32"),
        ("Gather", "ascend950", "int64"),
        ("Gather", "ascend950", "int8"),
        ("Gather", "ascend310b", "int8"),
        ("Gather", "ascend310p", "int32"),
        ("Gather", "ascend910_93", "bfloat16"),
        ("Gatherb", "ascend910b", "uint32"),
        ("Gatherb", "ascend950", "int8"),
        ("Gatherb", "ascend950", "uint64"),
        ("Gatherb", "ascend310b", "half"),
        ("Scatter", "ascend950", "int8"),
        ("Scatter", "ascend950", "uint64"),
        ("Scatter", "ascend310b", "int16"),
        ("Scatter", "ascend310p", "float32"),
    ],
)
def test_differential_other_products(api, prof, dt):
    _differential(api, prof, dt, N_DIFF, seed=11)


def test_fuzz_campaign_covers_the_family():
    """``ascend-jax fuzz --apis Gather,Gatherb,Scatter``: valid, data-fault and invalid-static cases
    of every API, dtype and form of the product, 0 mismatches. The differential tests' batch size:
    their programs (from the persistent cache in another worker) serve it."""
    from ascend_jax import fuzz

    res = fuzz.run(
        apis=list(GS.APIS),
        profile="ascend910b",
        cases=150,
        seed=16,
        batch=512,
        invalid_rate=0.3,
        dtypes=["half", "uint16"],
    )
    assert res.ok, res.summary_table()
    assert len(res.records) == 150


def test_any_form_one_program_static_equals_plain_and_placeholder_rejected():
    """``AnyForm`` for Gather: a Python-int form is that form's ordinary call (same bits); a traced
    form code picks the form in one program; PLACEHOLDER (no isSetMask=false prototype) is a
    UsageError static and BAD_PARAM traced (nothing written)."""
    prof = "ascend910b"
    rng = np.random.default_rng(3)
    ub = rng.integers(0, 256, UB, dtype=np.uint8)
    _put(ub, 1024, (rng.integers(0, 512, 256) * 2).astype(np.uint32))
    st, _ = _states(prof, ub)
    head = (T(H, 4096, 128), T(H, 0, 128), T(U32, 1024, 256), 0)
    forms = [
        (aj.AnyForm(aj.AnyForm.COUNT, count=200), (200,)),
        (aj.AnyForm(aj.AnyForm.CONTINUOUS, mask=100, repeatTime=2, repeatParams=9), (100, 2, 9)),
        (
            aj.AnyForm(aj.AnyForm.BITWISE, mask_words=(0xF0F0, 3), repeatTime=2, repeatParams=8),
            ([0xF0F0, 3], 2, 8),
        ),
    ]

    @jax.jit
    def run_any(s, f):
        return aj.Gather(s, *head, f, profile=prof, max_repeats=2)

    with programs_built("run_any") as built:
        for f, plain in forms:
            want = aj.Gather(st, *head, *plain, profile=prof, max_repeats=2)
            assert message(aj.Gather(st, *head, f, profile=prof, max_repeats=2), want) is None
            traced = dataclasses.replace(
                f,
                form=jnp.asarray(f.form, jnp.int32),
                mask=jnp.asarray(f.mask, jnp.uint32),
                mask_words=jnp.asarray(_words32(f.mask_words)),
                repeatTime=jnp.asarray(f.repeatTime, jnp.int32),
                repeatParams=jnp.asarray(f.repeatParams or 0, jnp.int32),
                count=jnp.asarray(f.count, jnp.int32),
            )
            assert message(run_any(st, traced), want) is None, f
            assert int(want.fault) == 0 and not np.array_equal(np.asarray(want.ub), ub)
        got = run_any(st, dataclasses.replace(traced, form=jnp.asarray(aj.AnyForm.PLACEHOLDER, jnp.int32)))
    assert len(built) == 1  # the traced forms (and the bad code) share one program
    assert int(got.fault) == Fault.BAD_PARAM and np.array_equal(np.asarray(got.ub), ub)
    with pytest.raises(UsageError) as e:
        aj.Gather(st, *head, aj.AnyForm(aj.AnyForm.PLACEHOLDER), profile=prof)
    assert e.value.argument == "AnyForm.form"


def _words32(mask):
    w = np.zeros(8, np.uint32)
    for i, x in enumerate(mask):
        w[2 * i], w[2 * i + 1] = x & 0xFFFFFFFF, x >> 32
    return w


def test_scatter_program_order_choice():
    """``duplicate_offsets = "program_order"``: two lanes to one address, the later lane wins, in
    both implementations (the default profiles fault: UNDEFINED)."""
    p = aj.load_profile("ascend950")
    a = p.api("Scatter")
    po = dataclasses.replace(a, extra=tuple(sorted(dict(a.extra, duplicate_offsets="program_order").items())))
    prof = dataclasses.replace(p, apis=tuple(po if x.name == "Scatter" else x for x in p.apis))
    d = aj.half
    ub = np.zeros(UB, np.uint8)
    _put(ub, 0, np.arange(16, dtype=np.float16) + 1)
    _put(ub, 1024, np.array([6, 2, 6, 0], np.uint32))
    call = (T(d, 4096, 16), T(d, 0, 16), T(U32, 1024, 4), 0, 4)
    for profile, fault in ((p, Fault.UNDEFINED), (prof, 0)):
        st, rs = _states(profile, ub)
        ref = REF.Scatter(rs, *call, profile=profile)
        fast = aj.Scatter(st, *call, profile=profile)
        assert ref.fault == fault and message(fast, ref) is None
    got = ref.ub[4096:4104].view(np.float16)
    np.testing.assert_array_equal(got, np.array([4, 2, 0, 3], np.float16))  # lane 2 (value 3) wins at byte 6


# ---------------------------------------------------------------------------------------------
# out-of-range offsets fault (static vs traced: in _differential)


@pytest.mark.parametrize(
    "api,prof,dt,offset,fault",
    [
        ("Gather", "ascend910b", "half", UB, Fault.OUT_OF_UB),
        ("Gather", "ascend910b", "half", 2**32 - 2, Fault.OUT_OF_UB),
        ("Gather", "ascend910b", "half", 3, Fault.MISALIGNED),
        ("Scatter", "ascend950", "half", 2**17, Fault.BAD_PARAM | Fault.OUT_OF_UB),
        ("Scatter", "ascend950", "half", UB - 1, Fault.MISALIGNED | Fault.OUT_OF_UB),
        ("Gatherb", "ascend910b", "uint16", UB, Fault.OUT_OF_UB),
        ("Gatherb", "ascend910b", "uint16", 16, Fault.MISALIGNED),
        pytest.param("Gather", "ascend910b", "float32", 6, Fault.MISALIGNED, marks=pytest.mark.slow),
        pytest.param(
            "Gather", "ascend950", "half", 2**17, Fault.BAD_PARAM | Fault.OUT_OF_UB, marks=pytest.mark.slow
        ),
        pytest.param(
            "Scatter",
            "ascend310p",
            "half",
            UB - 1,
            Fault.MISALIGNED | Fault.OUT_OF_UB,
            marks=pytest.mark.slow,
        ),
        pytest.param(
            "Scatter", "ascend950", "int8", 2**16, Fault.BAD_PARAM | Fault.OUT_OF_UB, marks=pytest.mark.slow
        ),
    ],
)
def test_out_of_range_offsets_fault(api, prof, dt, offset, fault):
    d = as_dtype(dt)
    ub = np.zeros(UB, np.uint8)
    offs = np.zeros(8, np.uint32)
    offs[3] = offset
    _put(ub, 1024, offs)
    st, rs = _states(prof, ub)
    if api == "Gatherb":
        call = (T(d, 4096, 128), T(d, 0, 128), T(U32, 1024, 8), 1, (1, 8))
    else:
        call = (T(d, 4096, 8), T(d, 0, 8), T(U32, 1024, 8), 0, 8)
    ref = getattr(REF, api)(rs, *call, profile=prof)
    fast = getattr(aj, api)(st, *call, profile=prof)
    assert ref.fault == fault, Fault(ref.fault)
    assert message(fast, ref) is None
    assert (ref.ub == ub).all()  # suppressed: nothing written


# ---------------------------------------------------------------------------------------------
# misuse: the same argument named by both implementations

H, F32 = aj.half, aj.float32


def _misuse():
    o = T(U32, 1024, 128)
    return [
        ("src.dtype", "Gather", (T(H, 4096, 128), T(F32, 0, 128), o, 0, 128), "ascend910b"),
        ("srcOffset.dtype", "Gather", (T(H, 4096, 128), T(H, 0, 128), T(aj.int32, 1024, 128), 0, 128), "ascend910b"),
        ("srcBaseAddr", "Gather", (T(H, 4096, 128), T(H, 0, 128), o, -1, 128), "ascend910b"),
        ("count", "Gather", (T(H, 4096, 128), T(H, 0, 128), o, 0, -1), "ascend910b"),
        ("repeatTime", "Gather", (T(H, 4096, 128), T(H, 0, 128), o, 0, 128, 256, 8), "ascend910b"),
        ("dstRepStride", "Gather", (T(H, 4096, 128), T(H, 0, 128), o, 0, 128, 1, 70000), "ascend910b"),
        ("dtype", "Gather", (T(aj.int8, 4096, 128), T(aj.int8, 0, 128), o, 0, 128), "ascend910b"),
        ("dtype", "Gather", (T(aj.int8, 4096, 128), T(aj.int8, 0, 128), o, 0, 128, 1, 8), "ascend950"),
        ("api", "Scatter", (T(H, 4096, 128), T(H, 0, 128), o, 0, 128), "ascend910b"),
        ("srcRepStride", "Scatter", (T(H, 4096, 128), T(H, 0, 128), o, 0, 128, 1, 256), "ascend950"),
        ("dstOffset.dtype", "Scatter", (T(H, 4096, 128), T(H, 0, 128), T(H, 1024, 128), 0, 128), "ascend950"),
        ("repeatParams.dstBlkStride", "Gatherb",
         (T(aj.uint16, 4096, 128), T(aj.uint16, 0, 128), o, 1, (256, 8)), "ascend910b"),
        ("repeatParams.dstRepStride", "Gatherb",
         (T(aj.uint16, 4096, 128), T(aj.uint16, 0, 128), o, 1, (1, 65536)), "ascend910b"),
        ("repeatTime", "Gatherb", (T(aj.uint16, 4096, 128), T(aj.uint16, 0, 128), o, 256, (1, 8)), "ascend910b"),
        ("dtype", "Gatherb", (T(H, 4096, 128), T(H, 0, 128), o, 1, (1, 8)), "ascend910b"),
        ("offset.dtype", "Gatherb",
         (T(aj.uint16, 4096, 128), T(aj.uint16, 0, 128), T(aj.uint16, 1024, 16), 1, (1, 8)), "ascend910b"),
    ]  # fmt: skip


@pytest.mark.parametrize("arg,api,call,prof", _misuse(), ids=lambda x: x if isinstance(x, str) else "")
def test_misuse_names_the_same_argument(arg, api, call, prof):
    for mod, st in ((aj, reset_state(prof)), (REF, RS.reset_state(prof))):
        with pytest.raises(UsageError) as e:
            getattr(mod, api)(st, *call, profile=prof)
        assert e.value.argument == arg, (mod.__name__, e.value)
        assert api in str(e.value) and prof in str(e.value)
        if arg in ("dtype", "api"):
            assert isinstance(e.value, UnsupportedError)
