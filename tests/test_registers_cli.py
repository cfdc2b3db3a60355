"""Mask and special-register APIs: fast path vs reference over random call sequences on every
profile; the command line's JSON; the Kernel wrappers of every registered API."""

import contextlib
import io
import json
import subprocess
import sys

import numpy as np
import pytest

import ascend_jax as aj
import ascend_jax.reference as ref
from ascend_jax.errors import UsageError

DTYPES = ["half", "float32", "int16", "int32", "uint8"]


def _random_op(rng, p):
    ops = []
    for name in (
        "SetVectorMask",
        "SetMaskCount",
        "SetMaskNorm",
        "ResetMask",
        "SetCtrlSpr",
        "SetSaturationFlag",
    ):
        if p.api(name).supported:
            ops.append(name)
    if not ops:
        return None
    name = ops[rng.integers(len(ops))]
    if name == "SetVectorMask":
        dt = [d for d in DTYPES if d in p.api(name).dtypes]
        d = dt[rng.integers(len(dt))] if dt else None
        if d is None:
            return None
        mode = int(rng.integers(2)) if p.api("SetMaskCount").supported else 0
        size = aj.as_dtype(d).itemsize
        if rng.random() < 0.5:
            n = int(rng.integers(1, 300))
            return name, (d, n), {"mode": mode}
        lo = int(rng.integers(1, 2**63))
        hi = 0 if (mode == 1 or size >= 4) else int(rng.integers(0, 2**63))
        if mode == 1:
            lo = int(rng.integers(1, 2**20))
        return name, (d, hi, lo), {"mode": mode}
    if name == "SetCtrlSpr":
        bits = p.api(name).bits or [48]
        b = int(bits[rng.integers(len(bits))])
        return name, (b, b, int(rng.integers(2))), {}
    if name == "SetSaturationFlag":
        return name, (aj.SaturationMode.FLOAT, bool(rng.integers(2))), {}
    return name, (), {}


@pytest.mark.parametrize("profile", aj.available_profiles())
def test_register_sequences_match_reference(profile):
    p = aj.load_profile(profile)
    rng = np.random.default_rng(11)
    for _ in range(30):
        fs, rs = aj.reset_state(p, ub_bytes=1024), ref.reset_state(p, ub_bytes=1024)
        for _ in range(6):
            op = _random_op(rng, p)
            if op is None:
                continue
            name, args, kw = op
            fs = getattr(aj, name)(fs, *args, profile=p, **kw)
            rs = getattr(ref, name)(rs, *args, profile=p, **kw)
            assert np.array_equal(np.asarray(fs.vmask), rs.vmask), (name, args, kw)
            assert int(fs.mask_mode) == rs.mask_mode
            assert np.array_equal(np.asarray(fs.ctrl), rs.ctrl), (name, args)
        if p.api("GetSaturationFlag").supported:
            mode = aj.SaturationMode.FLOAT
            assert aj.GetSaturationFlag(fs, mode, profile=p) == ref.GetSaturationFlag(rs, mode, profile=p)
        if p.api("GetCtrlSpr").supported:
            assert aj.GetCtrlSpr(fs, 48, 48, profile=p) == ref.GetCtrlSpr(rs, 48, 48, profile=p)


def test_saturation_flag_is_ctrl48_on_a2():
    s = aj.reset_state("ascend910b")
    assert aj.GetSaturationFlag(s, aj.SaturationMode.FLOAT) is True  # CTRL[48] = 0 by default
    s = aj.SetSaturationFlag(s, aj.SaturationMode.FLOAT, False)
    assert aj.GetCtrlSpr(s, 48, 48) == 1 and aj.GetSaturationFlag(s, aj.SaturationMode.FLOAT) is False


def test_set_vector_mask_checks():
    s = aj.reset_state()
    with pytest.raises(UsageError, match=r"SetVectorMask: maskHigh=1 .*allowed: 0"):
        aj.SetVectorMask(s, aj.float32, 1, 0)
    with pytest.raises(UsageError, match=r"maskLow=4294967296 .*Counter-mode count"):
        aj.SetVectorMask(s, aj.half, 0, 2**32, mode=aj.MaskMode.COUNTER)
    with pytest.raises(UsageError, match=r"'ascend310p'"):
        aj.SetVectorMask(aj.reset_state("ascend310p"), aj.half, 0, 0, profile="ascend310p")


def _cli(*args):
    out = subprocess.run(
        [sys.executable, "-m", "ascend_jax.cli", *args], capture_output=True, text=True, check=True
    )
    return out.stdout


def _cli_here(*args):
    """``ascend_jax.cli.main(args)`` in this process (its stdout, exit code 0): the listings of the
    same CLI without a Python start and jax import per call (~2.5 s each; `_cli` keeps one)."""
    from ascend_jax import cli

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert cli.main(list(args)) == 0, args
    return buf.getvalue()


# Documented dtypes of the four scalar-arithmetic APIs, transcribed from the 数据类型 sections of
# 基础算术/Adds.md, Muls.md, Maxs.md, Mins.md (950: all prototypes + count-only ones).
_A2 = ["int16", "half", "int32", "float32"]
EXPECTED = {
    "Adds": {
        "ascend910": ["half", "float32"],
        "ascend950": [
            "int8",
            "uint8",
            "int16",
            "half",
            "bfloat16",
            "int32",
            "float32",
            "complex32",
            "int64",
            "uint64",
            "complex64",
        ],
    },
    "Muls": {
        "ascend910": ["half", "float32"],
        "ascend950": [
            "int16",
            "half",
            "bfloat16",
            "int32",
            "float32",
            "complex32",
            "int64",
            "uint64",
            "complex64",
        ],
    },
    "Maxs": {
        "ascend910": [],
        "ascend950": ["int8", "uint8", "int16", "half", "bfloat16", "int32", "float32", "int64", "uint64"],
    },
    "Mins": {
        "ascend910": [],
        "ascend950": ["int8", "uint8", "int16", "half", "bfloat16", "int32", "float32", "int64", "uint64"],
    },
}


def test_apis_json_lists_four_apis_for_nine_profiles():
    data = {a["name"]: a for a in json.loads(_cli("apis", "--json"))}
    for api, special in EXPECTED.items():
        entry = data[api]
        assert entry["family"] == "unary_scalar" and len(entry["prototypes"]) >= 3
        assert len(entry["profiles"]) == 9
        for prof, dts in entry["profiles"].items():
            want = special.get(prof, [] if prof == "ascend310p_vec" else _A2)
            assert sorted(dts) == sorted(want), (api, prof, dts)
    assert data["SetMaskCount"]["profiles"]["ascend910"] == []
    assert data["SetMaskCount"]["profiles"]["ascend910b"] == ["untyped"]
    profiles = json.loads(_cli_here("profiles", "--json"))
    assert len(profiles) == 9 and [p["name"] for p in profiles if p["default"]] == ["ascend910b"]
    assert "Adds" in _cli_here("apis") and "ascend910b *" in _cli_here("profiles")


def test_kernel_wraps_every_registered_api():
    for name in aj.REGISTRY:
        assert callable(getattr(aj.Kernel, name)), name
    k = aj.Kernel()
    x, y = k.alloc(aj.uint16, 128), k.alloc(aj.uint16, 128)
    k.write(x, np.arange(1, 129))
    kept = k.GatherMask(y, x, 2, False, 0, aj.GatherMaskParams(1, 1, 8, 0))
    assert int(kept) == 64 and k.read(y)[:3].tolist() == [2, 4, 6]


def test_alloc_overflow_message():
    k = aj.Kernel()
    with pytest.raises(UsageError, match=r"alloc: length=100000 .*'ascend910b'.*196352 usable bytes"):
        k.alloc(aj.float32, 100000)
