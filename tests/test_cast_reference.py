"""Cast reference (reference/cast.py): the per-product (src, dst, roundMode) tables, every example of
precision_conversion.md through the element semantics, the Cast page's result examples through the
call forms, lanes by the wider type, faults, CTRL cast saturation and misuse."""

import json
import pathlib

import numpy as np
import pytest

import ascend_jax.reference as R
from ascend_jax import dtypes as D
from ascend_jax.errors import Fault, UnsupportedError, UsageError
from ascend_jax.params import UnaryRepeatParams
from ascend_jax.profile import available_profiles, load_profile
from ascend_jax.reference import cast as C

T = R.LocalTensor
DATA = json.loads((pathlib.Path(__file__).parent / "data/elementwise_examples.json").read_text())[
    "cast_examples"
]


def _bits(value, dtype):
    d = D.as_dtype(dtype)
    v = float(value) if d.is_float else int(float(value))
    return int(np.array([v]).astype(d.np_dtype).view(f"<u{d.itemsize}")[0])


def _profile_with(src, dst, mode):
    for name in available_profiles():
        p = load_profile(name)
        if p.api("Cast").supported:
            pairs = C.parse_pairs(p)
            if (src, dst) in pairs and (mode in pairs[(src, dst)][0] or mode == "NONE"):
                return p
    return None


@pytest.mark.parametrize("row", DATA["rows"], ids=lambda r: f"{r['src']}-{r['dst']}-{r['mode']}-{r['input']}")
def test_precision_conversion_examples(row):
    p = _profile_with(row["src"], row["dst"], row["mode"])
    assert p is not None, row
    modes = C.parse_pairs(p)[(row["src"], row["dst"])][0]
    mode = row["mode"] if row["mode"] in modes else sorted(modes)[0]  # lossless: every mode agrees
    f = C.lane_function(row["src"], row["dst"], mode, p, 0)
    got = f(_bits(row["input"], row["src"]))
    check = row.get("check", "exact")
    if check == "exact":
        assert got == _bits(row["output"], row["dst"]), (p.name, mode)
    elif check == "digits":  # the page prints the result with fewer digits
        d = D.as_dtype(row["dst"])
        v = float(np.array([got], f"<u{d.itemsize}").view(d.np_dtype)[0])
        k = len(row["output"].split("e")[0].replace("-", "").replace(".", "").lstrip("0"))
        assert float(f"{v:.{k}g}") == float(row["output"]), (v, row)
    else:  # a suspected doc error (see the row's note): the model must not give the printed value
        assert got != _bits(row["output"], row["dst"]), row


def test_cast_page_result_examples():
    ex = DATA["page_example"]
    x = np.array([float(v) for v in ex["input"]] * 86, np.float16)[:512]
    for prof in [n for n in available_profiles() if ("half", "int32") in C.parse_pairs(load_profile(n))]:
        st = R.ub_write(R.reset_state(prof), 0, D.half, x)
        modes = C.parse_pairs(load_profile(prof))[("half", "int32")][0]
        for mode, want in ex["outputs"].items():
            if mode not in modes:  # Kirin: CAST_FLOOR only
                continue
            for args in ((512,), (64, 8, UnaryRepeatParams(1, 1, 8, 4))):
                out = R.Cast(
                    st, T(D.int32, 4096, 512), T(D.half, 0, 512), "CAST_" + mode, *args, profile=prof
                )
                assert out.fault == 0
                got = R.ub_read(out, 4096, D.int32, 512)
                assert list(got[:6]) == want and got[511] == want[511 % 6], (prof, mode)


def test_bitwise_mask_selects_by_the_wider_type():
    p = "ascend910b"
    x = np.arange(128, dtype=np.float16)
    st = R.ub_write(R.reset_state(p), 0, D.half, x)
    st = R.ub_write(st, 4096, D.int32, np.full(128, -1, np.int32))
    # the page's bitwise example: mask {0, UINT64_MAX} with 64 int32 lanes a repeat selects nothing
    # in mask[0] and lanes 64.. do not exist: the upper word must be 0 for a 32-bit wide type
    with pytest.raises(UsageError, match=r"mask\[1\]"):
        R.Cast(
            st,
            T(D.int32, 4096, 128),
            T(D.half, 0, 128),
            "CAST_RINT",
            [0, 2**64 - 1],
            2,
            UnaryRepeatParams(1, 1, 8, 4),
            profile=p,
        )
    out = R.Cast(
        st,
        T(D.int32, 4096, 128),
        T(D.half, 0, 128),
        "CAST_RINT",
        [0b101],
        2,
        UnaryRepeatParams(1, 1, 8, 4),
        profile=p,
    )
    got = R.ub_read(out, 4096, D.int32, 128)
    assert list(got[:3]) == [0, -1, 2] and list(got[64:67]) == [64, -1, 66] and got[3] == -1


def test_float_rules_and_saturation():
    p = load_profile("ascend910b")
    f2h = C.lane_function("float32", "half", "RINT", p, 0)
    assert f2h(_bits(70000.0, "float32")) == 0x7BFF  # overflow saturates to MAX
    assert f2h(_bits(float("inf"), "float32")) == 0x7C00 and f2h(0x7FC00001) == 0x7E00
    assert f2h(_bits(2.0**-25, "float32")) == 0 and f2h(_bits(2.0**-24, "float32")) == 1  # subnormal half
    f2h_nonsat = C.lane_function("float32", "half", "RINT", p, 1 << 59)  # CTRL[59] = 1: non-saturating
    assert f2h_nonsat(_bits(70000.0, "float32")) == 0x7C00
    odd = C.lane_function("float32", "half", "ODD", p, 0)
    assert odd(_bits(1 + 2**-11, "float32")) == 0x3C01 and odd(_bits(1.0, "float32")) == 0x3C00
    f2i = C.lane_function("float32", "int32", "TRUNC", p, 0)
    assert f2i(0x7FC00000) == 0 and f2i(_bits(float("-inf"), "float32")) == 0x80000000
    assert f2i(_bits(3e9, "float32")) == 0x7FFFFFFF
    f2i_wrap = C.lane_function("float32", "int32", "TRUNC", p, 1 << 59)
    assert f2i_wrap(_bits(3e9, "float32")) == (3000000000 & 0xFFFFFFFF)
    rint = C.lane_function("float32", "float32", "CEIL", p, 0)
    assert rint(_bits(-0.4, "float32")) == 0x80000000 and rint(_bits(2.1, "float32")) == _bits(3.0, "float32")
    i2f = C.lane_function("int32", "float32", "FLOOR", p, 0)
    assert i2f(_bits(2**24 + 1, "int32")) == _bits(2.0**24, "float32")
    assert C.lane_function("int32", "int16", "NONE", p, 0)(_bits(-70000, "int32")) == 0x8000


def test_cast_faults_and_misuse():
    p = "ascend910b"
    st = R.reset_state(p)
    dst, src = T(D.int32, 4096, 64), T(D.half, 0, 64)
    # widening in place: the src block and the dst blocks overlap with different widths
    out = R.Cast(st, T(D.float32, 0, 64), T(D.half, 0, 64), "CAST_NONE", 64, profile=p)
    assert out.fault & Fault.PARTIAL_OVERLAP
    out = R.Cast(st, dst, T(D.half, 2, 64), "CAST_RINT", 64, profile=p)
    assert out.fault & Fault.MISALIGNED
    with pytest.raises(UnsupportedError, match="int16->int8"):
        R.Cast(st, T(D.int8, 4096, 64), T(D.int16, 0, 64), "CAST_NONE", 64, profile=p)
    with pytest.raises(UsageError, match="roundMode"):
        R.Cast(st, dst, src, "CAST_NONE", 64, profile=p)  # half -> int32 lists no CAST_NONE
    with pytest.raises(UsageError, match="roundMode"):
        R.Cast(st, dst, src, "CAST_SIDEWAYS", 64, profile=p)
    # int32 -> half reads DEQSCALE (tests/test_castcomp.py); its roundMode has no effect, not even a bad one
    with pytest.raises(UsageError, match="roundMode"):
        R.Cast(st, T(D.half, 4096, 64), T(D.int32, 0, 64), "CAST_SIDEWAYS", 64, profile=p)
    with pytest.raises(UnsupportedError):
        R.Cast(R.reset_state("ascend310p_vec"), dst, src, "CAST_RINT", 64, profile="ascend310p_vec")
    # RoundMode members, ints and names are the same argument
    a = R.Cast(st, dst, src, R.RoundMode.CAST_CEIL, 64, profile=p)
    b = R.Cast(st, dst, src, 3, 64, profile=p)
    assert (a.ub == b.ub).all()


def test_truncate_page_example_and_misuse():
    ex = DATA["truncate_example"]
    d = D.as_dtype(ex["dtype"])
    p = "ascend950"
    st = R.ub_write(R.reset_state(p), 0, d, np.array([float(v) for v in ex["input"]], d.np_dtype))
    out = R.Truncate(st, T(d, 4096, 8), T(d, 0, 8), 3, roundMode="CAST_" + ex["roundMode"], profile=p)
    assert list(R.ub_read(out, 4096, d, 3)) == [float(v) for v in ex["output"]]
    for other in ("TRUNC", "RINT", "CEIL"):  # the page's values are FLOOR's only
        out = R.Truncate(st, T(d, 4096, 8), T(d, 0, 8), 3, roundMode="CAST_" + other, profile=p)
        assert list(R.ub_read(out, 4096, d, 3)) != [float(v) for v in ex["output"]]
    with pytest.raises(UsageError, match="roundMode"):
        R.Truncate(st, T(d, 4096, 8), T(d, 0, 8), 3, roundMode="CAST_ODD", profile=p)
    with pytest.raises(UnsupportedError, match="Truncate"):
        R.Truncate(
            R.reset_state("ascend910b"),
            T(d, 4096, 8),
            T(d, 0, 8),
            3,
            roundMode="CAST_FLOOR",
            profile="ascend910b",
        )
