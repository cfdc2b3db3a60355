"""Every numeric result example for Adds/Muls/Maxs/Mins in the seeds and doc pages, through the
fast path, in each call form the pages show, on every profile that supports int16."""

import json
import pathlib

import numpy as np
import pytest

import ascend_jax as aj

# Transcribed from the doc pages (基础算术/Adds.md, Maxs.md, Mins.md, Muls.md 结果示例): input
# int16 [1 2 3 ... 512], scalar 2; the pages print the first three and the last output values.
PRINTED = {
    "Adds": {0: 3, 1: 4, 2: 5, 511: 514},
    "Muls": {0: 2, 1: 4, 2: 6, 511: 1024},
    "Maxs": {0: 2, 1: 2, 2: 3, 511: 512},
    "Mins": {0: 1, 1: 2, 2: 2, 511: 2},
}
# The call forms the pages show (all with 512 elements, half-word lanes: 128 per repeat).
FORMS = {
    "count": (512,),
    "continuous": (128, 4, aj.UnaryRepeatParams(1, 1, 8, 8)),
    "bitwise": ([2**64 - 1, 2**64 - 1], 4, aj.UnaryRepeatParams(1, 1, 8, 8)),
}


def _profiles(api):
    return [n for n in aj.available_profiles() if "int16" in aj.load_profile(n).api(api).dtypes]


def _run(api, profile, form):
    k = aj.Kernel(profile=profile)
    src = k.alloc(aj.int16, 512)
    dst = k.alloc(aj.int16, 512)
    k.write(src, np.arange(1, 513, dtype=np.int16))
    getattr(k, api)(dst, src, 2, *FORMS[form])
    return k.read(dst)


@pytest.mark.parametrize("api", list(PRINTED))
@pytest.mark.parametrize("form", list(FORMS))
def test_doc_result_example(api, form):
    profiles = _profiles(api)
    assert profiles, api
    for prof in profiles:
        out = _run(api, prof, form)
        for i, v in PRINTED[api].items():
            assert int(out[i]) == v, (prof, api, form, i, int(out[i]), v)


def test_seed_muls_example():
    """seed_cases/Muls_1.json (hardware result of Muls.md / seed 004), count form and the
    high-dim alternatives its notes list, compared element by element where printed."""
    case = json.loads((pathlib.Path(__file__).resolve().parent / "data/seed_cases/Muls_1.json").read_text())
    assert case["api"] == "Muls" and case["dtypes"]["dst"] == "int16_t"
    src = np.array(case["inputs"]["src"], np.int16)
    expected = case["expected"]["dst"]
    scalar = case["params"]["scalar"]
    for form in FORMS:
        k = aj.Kernel()
        s = k.alloc(aj.int16, src.size)
        d = k.alloc(aj.int16, src.size)
        k.write(s, src)
        args = (case["params"]["count"],) if form == "count" else FORMS[form]
        k.Muls(d, s, scalar, *args)
        out = k.read(d)
        checked = 0
        for i, v in enumerate(expected):
            if v is not None:
                assert int(out[i]) == v, (form, i)
                checked += 1
        assert checked >= 4


def test_masked_lanes_keep_dst():
    """Masked-off lanes keep the old dst value (掩码/通用说明: "mask为0时，目的操作数保持原值")."""
    k = aj.Kernel()
    s = k.alloc(aj.half, 128)
    d = k.alloc(aj.half, 128)
    k.write(s, np.ones(128, np.float16))
    k.write(d, np.full(128, 7, np.float16))
    k.Muls(d, s, 3.0, [8, 2], 1, aj.UnaryRepeatParams())  # bits 3 and 65 (掩码 example mask=[8, 2])
    out = k.read(d)
    assert np.nonzero(out == 3)[0].tolist() == [3, 65]
    assert np.all(out[[i for i in range(128) if i not in (3, 65)]] == 7)


def test_half_saturation_both_settings():
    """CTRL[48] = 0 (default, saturation): inf -> +-65504, NaN -> 0; CTRL[48] = 1 keeps inf/NaN
    (special-registers/SetCtrlSpr: 饱和模式 / 非饱和模式)."""
    src = np.array([60000, -60000, np.inf, np.nan] + [1] * 124, np.float16)
    for sat, exp in ((0, [0x7BFF, 0xFBFF, 0x7BFF, 0x0000]), (1, [0x7C00, 0xFC00, 0x7C00, 0x7E00])):
        k = aj.Kernel(profile="ascend910b")
        s = k.alloc(aj.half, 128)
        d = k.alloc(aj.half, 128)
        k.write(s, src)
        if sat:
            k.SetCtrlSpr(48, 48, 1)
        k.Muls(d, s, 2.0, 128)
        bits = k.read(d).view(np.uint16)[:4].tolist()
        assert bits == exp, (sat, [hex(b) for b in bits])


def test_float32_subnormals_per_profile():
    """float32: subnormals preserved (named choice on A2) and flushed on 950 (documented FTZ)."""
    tiny = np.array([1e-40, -3e-39] + [0] * 62, np.float32)
    for prof, expect_zero in (("ascend910b", False), ("ascend950", True)):
        k = aj.Kernel(profile=prof)
        s = k.alloc(aj.float32, 64)
        d = k.alloc(aj.float32, 64)
        k.write(s, tiny)
        k.Muls(d, s, 2.0, 64)
        got = k.read(d).view(np.uint32)[:2]
        want = (tiny[:2].astype(np.float64) * 2).astype(np.float32).view(np.uint32)
        if expect_zero:
            want = want & np.uint32(0x80000000)
        assert got.tolist() == want.tolist(), prof
