"""Issue 18, "bad input never passes silently": every defect of the report has a test here. CLI
tests check the exit code (0 clean, 1 mismatch, 2 bad input, 3 internal) and that stderr is one
line without a traceback. Cheap: register APIs only (eager, nothing to compile) wherever a
campaign runs; the scalar-rule tests run the eager API once per value."""

import json
import os
import pathlib
import stat
import subprocess
import sys

import jax.numpy as jnp
import numpy as np
import pytest

import ascend_jax as aj
from ascend_jax.cli import main
from ascend_jax.fuzz import run as fuzz_run
from ascend_jax.fuzz.capsule import make_capsule
from ascend_jax.fuzz.families import family_of
from ascend_jax.fuzz.families.registers import RegCase
from ascend_jax.fuzz.families.unary_scalar import Case
from ascend_jax.fuzz.resume import read_results
from ascend_jax.profile import load_profile

P = load_profile("ascend910b")
REG = "SetVectorMask,GetCtrlSpr,SetMaskCount,ResetMask"


@pytest.fixture(autouse=True)
def _no_cli_cache(monkeypatch):
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")


def _cli(capsys, *args):
    rc = main([str(a) for a in args])
    o = capsys.readouterr()
    return rc, o.out, o.err


def _usage(capsys, *args, want=""):
    rc, out, err = _cli(capsys, *args)
    assert rc == 2, (args, rc, out, err)
    assert "Traceback" not in err and err.strip(), err
    assert want.lower() in err.lower(), (want, err)
    return err


# -- 1. a campaign that checks nothing never exits 0 ------------------------------------------------


@pytest.mark.parametrize(
    "opt",
    [
        ("--batch", "-3"),
        ("--batch", "0"),
        ("--cases", "-5"),
        ("--cases", "0"),
        ("--oracle-sample", "-1"),
        ("--oracle-sample", "nan"),
        ("--invalid-rate", "2"),
        ("--invalid-rate", "-1"),
        ("--invalid-rate", "nan"),
        ("--profile", "nosuch"),
    ],
)
def test_fuzz_options_out_of_range_exit_2(capsys, opt):
    with pytest.raises(SystemExit) as e:  # argparse: usage error, exit 2
        main(["fuzz", "--apis", REG, "--cases", "5", *opt])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert opt[0] in err and "Traceback" not in err


@pytest.mark.parametrize(
    "kw, word",
    [
        (dict(batch=-1), "batch"),
        (dict(batch=0), "batch"),
        (dict(cases=-5), "cases"),
        (dict(cases="10"), "cases"),
        (dict(cases=None), "cases"),
        (dict(cases=2.5), "cases"),
        (dict(oracle_sample=-1), "oracle_sample"),
        (dict(oracle_sample=float("nan")), "oracle_sample"),
        (dict(invalid_rate=2), "invalid_rate"),
        (dict(invalid_rate=float("nan")), "invalid_rate"),
        (dict(invalid_rate="0.1"), "invalid_rate"),
        (dict(oracle_sample=0, invalid_rate=0), "checks no case"),
        (dict(seed="1"), "seed"),
        (dict(dtypes="nosuch"), "nosuch"),
    ],
)
def test_fuzz_run_rejects_bad_arguments(kw, word):
    args = dict(apis=REG, cases=5, profile=P) | kw
    with pytest.raises(ValueError, match=word):
        fuzz_run(**args)


def test_nothing_to_fuzz_says_why():
    # SetCmpMask exists in the registry; with an element type filter that leaves no variant the
    # message names the API and the reason
    with pytest.raises(ValueError, match=r"nothing to fuzz on ascend910b \(.*Maxs: "):
        fuzz_run(apis="Maxs", dtypes="uint64", cases=5, profile=P)


def test_a_campaign_that_checked_nothing_is_not_ok(capsys):
    res = fuzz_run(apis=REG, cases=20, profile=P, oracle_sample=0.0, invalid_rate=0.0001)
    assert res.checked == 0 and not res.mismatches and not res.ok
    _usage(
        capsys,
        "fuzz",
        "--apis",
        REG,
        "--cases",
        20,
        "--oracle-sample",
        1e-9,
        "--invalid-rate",
        0.0001,
        want="checked no case",
    )


# -- 2. host-side UB access ------------------------------------------------------------------------


def test_host_write_read_alloc_are_checked():
    k = aj.Kernel(P)
    x = k.alloc(aj.int16, 64)
    for addr in (10**6, -64, 2**31 + 5, k.ub_limit - 6):
        t = aj.LocalTensor(aj.int16, addr, 4)
        with pytest.raises(aj.UsageError, match=r"write: tensor.addr=.*outside the usable UB"):
            k.write(t, [1, 2, 3, 4])
        with pytest.raises(aj.UsageError, match=r"read: tensor.addr=.*outside the usable UB"):
            k.read(t)
    for n in (-64, 0, 2.7, "8", None, True):
        with pytest.raises(aj.UsageError, match="alloc: length="):
            k.alloc(aj.int16, n)
    y = k.alloc(aj.int16, 64)
    assert y.addr >= x.addr + x.nbytes  # the refused allocations left nothing behind
    last = aj.LocalTensor(aj.int16, k.ub_limit - 8, 4)  # the last bytes of UB are fine
    k.write(last, [1, 2, 3, 4])
    np.testing.assert_array_equal(k.read(last), [1, 2, 3, 4])


def test_traced_host_write_out_of_ub_records_a_fault():
    def kern(k, g, addr):
        t = aj.LocalTensor(aj.int16, addr, 4)
        k.write(t, jnp.arange(4, dtype=jnp.int16))
        return k.read(aj.LocalTensor(aj.int16, 0, 4))

    run = aj.jit_kernel(kern, P, ub_bytes=1024, return_state=True)
    res = run(np.zeros((3, 4), np.int16), addr=np.array([0, 1024, -8], np.int32))
    faults = np.asarray(res.state.fault)
    assert faults.tolist() == [0, int(aj.Fault.OUT_OF_UB), int(aj.Fault.OUT_OF_UB)]
    out = np.asarray(res.out)
    assert out[0].tolist() == [0, 1, 2, 3] and out[1].tolist() == [0, 0, 0, 0] == out[2].tolist()


# -- 3. files and exit codes ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def reg_capsule():
    c = RegCase(api="SetVectorMask", dtype="half", args=(0, 0xFF), mode=0, ctrl=(0, 0))
    return make_capsule(family_of(c), c, P)


def _write(path, obj):
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return path


def _mutate(cap, *path_value):
    cap = json.loads(json.dumps(cap))
    *keys, value = path_value
    d = cap
    for k in keys[:-1]:
        d = d[k]
    if value is _DEL:
        del d[keys[-1]]
    else:
        d[keys[-1]] = value
    return cap


_DEL = object()


def test_replay_good_capsule_exit_0(tmp_path, capsys, reg_capsule):
    rc, out, _ = _cli(capsys, "replay", _write(tmp_path / "c.json", reg_capsule))
    assert rc == 0 and "agree" in out


def test_replay_bad_files_exit_2(tmp_path, capsys, reg_capsule):
    good = json.dumps(reg_capsule)
    _usage(capsys, "replay", tmp_path / "missing.json", want="no such file")
    _usage(capsys, "replay", tmp_path, want="is a directory")
    _usage(capsys, "replay", _write(tmp_path / "empty.json", ""), want="empty file")
    _usage(capsys, "replay", _write(tmp_path / "trunc.json", good[: len(good) // 2]), want="not valid JSON")
    _usage(capsys, "replay", _write(tmp_path / "garbage.json", "\x00\x01garbage"), want="not valid JSON")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    _usage(capsys, "replay", tmp_path / "bin.json", want="not UTF-8")
    _usage(capsys, "replay", _write(tmp_path / "list.json", [1, 2]), want="expected a capsule")
    cases = [
        (("format", "other/1"), "format"),
        (("profile", "nosuch"), "profile"),
        (("profile", 3), "profile"),
        (("family", "nosuch"), "family"),
        (("case", "SetVectorMask(0, 255)"), "case"),
        (("case", "dtype", "float99"), "dtype"),
        (("case", "args", "0,255"), "args"),
        (("case", "bogus", 1), "bogus"),
        (("case", "api", _DEL), "api"),
        (("case", "ub_bytes", -64), "ub_bytes"),
        (("inputs", "ub", "!!!not base64"), "base64"),
        (("inputs", "vmask", "ff"), "vmask"),
        (("inputs", "vmask", [1, -1]), "vmask[1]"),
        (("inputs", "mask_mode", "0"), "mask_mode"),
        (("inputs", _DEL), "ub"),
        (("expected", "ub", "AAAA"), "bytes"),
        (("api", None), "api"),
    ]
    for j, (mut, word) in enumerate(cases):
        f = _write(tmp_path / f"m{j}.json", _mutate(reg_capsule, *mut))
        err = _usage(capsys, "replay", f, want=word)
        assert str(f) in err


def test_replay_unified_case_with_negative_count_exit_2(tmp_path, capsys, reg_capsule):
    case = Case(
        api="Maxs", dtype="half", form="count", is_set_mask=True, dst=0, src=512, scalar=0.25, count=-5
    )
    cap = _mutate(reg_capsule, "family", "unary_scalar")
    cap["case"] = family_of(case).to_json(case)
    _usage(capsys, "replay", _write(tmp_path / "neg.json", cap), want="count")


def test_export_and_diff_bad_paths_exit_2(tmp_path, capsys, reg_capsule):
    cap = _write(tmp_path / "c.json", reg_capsule)
    _usage(capsys, "export", tmp_path / "nope.json", "--to", tmp_path / "x", want="no such file")
    (tmp_path / "afile").write_text("x")
    _usage(capsys, "export", cap, "--to", tmp_path / "afile", want="is a file")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        if not os.access(ro, os.W_OK):  # (root may write anywhere)
            _usage(capsys, "export", cap, "--to", ro / "sub", want="cannot create")
    finally:
        ro.chmod(stat.S_IRWXU)
    _usage(capsys, "diff", tmp_path / "nodir", want="no such directory")
    _usage(capsys, "diff", tmp_path / "afile", want="is a file")
    (tmp_path / "d").mkdir()
    _usage(capsys, "diff", tmp_path / "d", want="params.json")
    _write(tmp_path / "d" / "params.json", "{ broken")
    _usage(capsys, "diff", tmp_path / "d", want="not valid JSON")
    _write(tmp_path / "d" / "params.json", {"api": "Maxs", "profile": "ascend910b", "call": "x"})
    _usage(capsys, "diff", tmp_path / "d", want="t_itemsize")
    prm = {
        "api": "Maxs",
        "profile": "ascend910b",
        "call": "x",
        "t_itemsize": 2,
        "output": "dst",
        "operands": [{"name": "dst", "dtype": "half", "addr": 0, "layout": [], "golden_file": "g.bin"}],
    }
    _write(tmp_path / "d" / "params.json", prm)
    _usage(capsys, "diff", tmp_path / "d", want="g.bin")
    np.zeros(4, np.float16).tofile(tmp_path / "d" / "g.bin")
    assert _cli(capsys, "diff", tmp_path / "d")[0] == 0
    _usage(capsys, "diff", tmp_path / "d", "--output", tmp_path / "none.bin", want="no such file")
    _usage(capsys, "diff", tmp_path / "d", "--output", tmp_path / "d", want="is a directory")


def test_fuzz_and_demo_bad_input_exit_2(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    _usage(capsys, "fuzz", "--apis", REG, "--cases", 5, "--out", tmp_path / "afile", want="is a file")
    _usage(capsys, "demo", "--apis", "NoSuch", "--cases", 5, want="NoSuch")
    _usage(capsys, "fuzz", "--apis", REG, "--cases", 5, "--dtypes", "float99", want="float99")


def test_internal_error_exit_3_and_debug_traceback(capsys, monkeypatch):
    import ascend_jax.cli as cli

    def boom(args):
        raise RuntimeError("planted")

    monkeypatch.setattr(cli, "cmd_profiles", boom)
    rc, _, err = _cli(capsys, "profiles")
    assert rc == 3 and "internal error" in err and "planted" in err and "Traceback" not in err
    rc, _, err = _cli(capsys, "--debug", "profiles")
    assert rc == 3 and "Traceback" in err


def test_broken_pipe_is_quiet():
    env = dict(os.environ, ASCEND_JAX_XLA_CACHE="off", PYTHONPATH=str(pathlib.Path(__file__).parents[1]))
    p = subprocess.run(
        f"{sys.executable} -m ascend_jax.cli apis --wide | head -1",
        shell=True,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.stdout.startswith("API") and "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr


# -- 4. one scalar rule ---------------------------------------------------------------------------

_BAD_INT16 = [
    np.float32(2.5),
    np.float16(2.5),
    jnp.float32(2.5),
    2.5,
    np.float64(2.5),
    np.float32("nan"),
    float("inf"),
    70000,
    -32769,
    np.int64(2**40),
    "2",
    None,
    [2],
    1 + 1j,
]
_GOOD_INT16 = [(2, 2), (np.float32(3.0), 3), (jnp.int16(-3), -3), (np.int64(32767), 32767), (True, 1)]


def _ref_scalar(value, dtype):
    from ascend_jax.reference.numerics import scalar_to_bits

    return scalar_to_bits("Muls", value, dtype, P)


@pytest.mark.parametrize("value", _BAD_INT16, ids=repr)
def test_inexact_scalar_is_a_usage_error_in_both(value):
    k = aj.Kernel(P)
    x, y = k.alloc(aj.int16, 16), k.alloc(aj.int16, 16)
    with pytest.raises(aj.UsageError, match=r"Muls: scalarValue=.*(int16_t|a number|real)"):
        k.Muls(y, x, value, 16)
    with pytest.raises(aj.UsageError, match=r"Muls: scalarValue="):
        _ref_scalar(value, aj.int16)


@pytest.mark.parametrize("value, want", _GOOD_INT16, ids=repr)
def test_exact_scalar_is_accepted_by_both(value, want):
    k = aj.Kernel(P)
    x, y = k.alloc(aj.int16, 16), k.alloc(aj.int16, 16)
    k.write(x, np.ones(16, np.int16))
    k.Muls(y, x, value, 16)
    assert k.read(y).tolist() == [want] * 16
    assert _ref_scalar(value, aj.int16) == want & 0xFFFF


def test_float_scalar_rule():
    from ascend_jax.api._args import scalar_bits

    for d, big in ((aj.half, 65520), (aj.bfloat16, 2.0**128), (aj.float32, 2.0**128)):
        for v in (big, -big, np.float64(big)):
            with pytest.raises(aj.UsageError, match="round to infinity"):
                scalar_bits("Muls", v, d, P)
            with pytest.raises(aj.UsageError, match="round to infinity"):
                _ref_scalar(v, d)
    # 65519 rounds down to 65504 (the largest half); inf and NaN stay explicit; 0.1 rounds once
    assert _ref_scalar(65519, aj.half) == 0x7BFF
    assert _ref_scalar(float("inf"), aj.half) == 0x7C00
    assert _ref_scalar(jnp.float16(0.1), aj.half) == int(np.float16(0.1).view(np.uint16))
    assert _ref_scalar(0.1, aj.float32) == int(np.float32(0.1).view(np.uint32))


def test_cast_scalar_gives_the_cpp_conversion():
    assert aj.cast_scalar(70000, aj.int16) == 4464 and aj.cast_scalar(70000, aj.int16).dtype == np.int16
    assert aj.cast_scalar(np.int64(2**40), aj.int16) == 0
    assert aj.cast_scalar(-2.7, aj.int16) == -2 and aj.cast_scalar(2.7, aj.uint8) == 2
    assert aj.cast_scalar(1e6, aj.half) == np.inf
    assert _ref_scalar(aj.cast_scalar(70000, aj.int16), aj.int16) == 4464


# -- 5. wrong types reach the project's checks, not JAX's -------------------------------------------


def test_wrong_types_are_usage_errors():
    def kern(k, g, scale):
        return scale

    run = aj.jit_kernel(kern, P, ub_bytes=256)
    a = np.zeros((2, 4), np.int16)
    with pytest.raises(aj.UsageError, match="jit_kernel: bogus="):
        run(a, scale=np.ones(2), bogus=np.ones(2))
    with pytest.raises(aj.UsageError, match="jit_kernel: scale=None"):
        run(a, scale=None)
    with pytest.raises(aj.UsageError, match="jit_kernel: scale=.*leading batch axis"):
        run(a, scale=1.0)
    with pytest.raises(aj.UsageError, match="jit_kernel: batch size=.*GM array 0: 2, scale: 3"):
        run(a, scale=np.ones(3))
    with pytest.raises(aj.UsageError, match="jit_kernel: GM array 1="):
        run(a, "text", scale=np.ones(2))
    with pytest.raises(aj.UsageError, match="run_kernel: bogus="):
        aj.run_kernel(kern, a[0], scale=1.0, bogus=2)
    k = aj.Kernel(P)
    x, y = k.alloc(aj.half, 16), k.alloc(aj.half, 16)
    for v in ("2", None):
        with pytest.raises(aj.UsageError, match="scalarValue"):
            k.Muls(y, x, v, 16)


# -- 6. resume never loses or misreports data ------------------------------------------------------


def test_out_dir_is_not_overwritten_and_damage_is_reported(tmp_path, capsys):
    d = tmp_path / "camp"
    base = ["fuzz", "--apis", REG, "--seed", 3, "--out", d, "--no-shrink", "--quiet"]
    assert _cli(capsys, *base, "--cases", 40)[0] == 0
    before = (d / "results.jsonl").read_bytes()
    _usage(capsys, *base, "--cases", 40, want="--force")
    assert (d / "results.jsonl").read_bytes() == before  # nothing deleted
    # --resume with fewer cases keeps all 40 and says so in meta.json and the report
    rc, out, _ = _cli(capsys, *base, "--cases", 30, "--resume")
    assert rc == 0 and "40 cases" in out
    assert json.loads((d / "meta.json").read_text())["cases"] == 40
    lines = before.splitlines(keepends=True)
    for bad, word in ((b"{not json}\n", ":3: not a JSON record"), (b"{}\n", ":3: record lacks field")):
        (d / "results.jsonl").write_bytes(b"".join(lines[:2]) + bad + b"".join(lines[2:]))
        _usage(capsys, *base, "--cases", 40, "--resume", want=word)
    with pytest.raises(ValueError, match="not a JSON record"):
        (d / "results.jsonl").write_bytes(b"".join(lines[:2]) + b"{not json}\n" + b"".join(lines[2:]))
        read_results(d / "results.jsonl")
    # --force starts afresh
    assert _cli(capsys, *base, "--cases", 20, "--force")[0] == 0
    assert len(read_results(d / "results.jsonl")) == 20


# -- 8. smaller ------------------------------------------------------------------------------------


def test_reinterpret_cast_needs_a_whole_number_of_elements():
    t = aj.LocalTensor(aj.int16, 0, 3)
    with pytest.raises(
        aj.UsageError, match="ReinterpretCast: dtype='int32'.*48 bits.*sizeof\\(int32_t\\) = 32 bits"
    ):
        t.ReinterpretCast(aj.int32)
    assert t.ReinterpretCast(aj.uint8).length == 6
    assert aj.LocalTensor(aj.int16, 0, 4).ReinterpretCast(aj.int32).length == 2


# -- usability -------------------------------------------------------------------------------------


def test_tables_fit_100_columns(capsys):
    rc, out, _ = _cli(capsys, "apis")
    assert rc == 0 and max(map(len, out.splitlines())) <= 100
    rc, out, _ = _cli(capsys, "fuzz", "--apis", REG, "--cases", 60, "--quiet")
    assert rc == 0 and max(map(len, out.splitlines())) <= 100, max(map(len, out.splitlines()))
    rc, out, _ = _cli(capsys, "apis", "--wide")
    assert rc == 0 and max(map(len, out.splitlines())) > 100  # the full lists, on request


def test_help_texts(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "``" not in out and "2  bad input" in out
    with pytest.raises(SystemExit):
        main(["fuzz", "--help"])
    out = capsys.readouterr().out
    for opt in ("--profile", "--cases", "--seed", "--force"):
        assert opt in out
    assert "default: ascend910b" in out and "default: 10000" in out


def test_progress_lines_off_a_tty():
    import io

    from ascend_jax.fuzz.report import Progress

    s = io.StringIO()
    bar = Progress(100, enabled=True, stream=s, every=0.0)
    for _ in range(3):
        bar.update(10)
    bar.close()
    assert s.getvalue().count("\n") == 3 and "\r" not in s.getvalue() and "30/100" in s.getvalue()


# -- 7. checker warnings (hardware-legal, bits unchanged) -----------------------------------------


def test_count_beyond_tensor_is_a_checker_warning_not_a_change():
    def kern(k, g, scale):
        x, y = k.alloc(aj.int16, 64), k.alloc(aj.int16, 32)  # y at byte 128
        k.DataCopy(x, g, 32)
        k.Muls(y, x, 3, 48)  # 48 > 32: overwrites 16 elements past y (as the NPU does)
        return k.read(aj.LocalTensor(aj.int16, 0, 128))

    k = aj.Kernel(P)
    ub = kern(k, k.gm(np.arange(32, dtype=np.int16)), None)
    assert [(w.api, w.argument) for w in k.warnings] == [("Muls", "dst")]
    assert "48 elements reach beyond" in str(k.warnings[0])
    k2 = aj.Kernel(P)  # the same call on tensors declared long enough: identical bits, no warning
    x, y = aj.LocalTensor(aj.int16, 0, 64), aj.LocalTensor(aj.int16, 128, 48)
    k2.DataCopy(x, k2.gm(np.arange(32, dtype=np.int16)), 32)
    k2.Muls(y, x, 3, 48)
    assert k2.warnings == [] and np.array_equal(k2.read(aj.LocalTensor(aj.int16, 0, 128)), ub)
    run = aj.jit_kernel(kern, P, ub_bytes=1024)
    run(np.arange(64, dtype=np.int16).reshape(2, 32), scale=np.ones(2))
    (ws,) = run.warnings.values()
    assert [(w.api, w.argument) for w in ws] == [("Muls", "dst")]


def test_wrong_length_bitwise_mask_names_the_exact_word_count():
    """Defect 8: a 16-bit T needs exactly 2 mask words; the message says "2", not "2 to 2", on both sides."""
    import ascend_jax.reference as R
    from ascend_jax.reference.state import reset_state as ref_reset

    src, dst = aj.LocalTensor(aj.int16, 0, 128), aj.LocalTensor(aj.int16, 256, 128)
    bad = [1, 2, 3]
    with pytest.raises(aj.UsageError) as fast:
        aj.Adds(aj.reset_state(P), dst, src, 1, bad, 1, aj.UnaryRepeatParams(), profile=P)
    with pytest.raises(aj.UsageError) as ref:
        R.Adds(ref_reset(P), dst, src, 1, bad, 1, aj.UnaryRepeatParams(), profile=P)
    for e in (fast.value, ref.value):
        assert "a list of 2 uint64 words" in str(e) and "2 to 2" not in str(e), str(e)
