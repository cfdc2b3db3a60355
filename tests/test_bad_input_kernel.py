"""Issue 34, "bad input at the kernel level": never a destroyed file, a silent wrong answer, or a
traceback. One test (or a few) per item of the report, then the property tests: every integer
argument (operator[], GetWithOffset, alloc, a count, ub_bytes) given an int, a NumPy int, a float,
NaN, a negative, a bool or a huge value works exactly like the equivalent Python int or raises an
AscendCError naming the argument; every bad `ascend-jax run` input exits 1 or 2 with one line.

Cheap on purpose: the kernels are 16 int16 elements, most checks fire before anything compiles."""

import pathlib
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ascend_jax as aj
from ascend_jax import byok
from ascend_jax.cli import main
from ascend_jax.errors import AscendCError, Fault, IndexUsageError, UsageError

P = "ascend910b"
N = 16


@pytest.fixture(autouse=True)
def _no_cli_cache(monkeypatch):
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")


def _cli(capsys, *args):
    rc = main([str(a) for a in args])
    o = capsys.readouterr()
    return rc, o.out, o.err


def _one_line(err):
    assert "Traceback" not in err, err
    lines = [ln for ln in err.strip().splitlines() if ln.startswith("ascend-jax run:")]
    assert len(lines) == 1 and len(err.strip().splitlines()) == 1, err
    return lines[0]


KERNELS = textwrap.dedent(
    """
    import numpy as np

    import ascend_jax as aj

    N = 16


    @aj.gm_kernel(aj.GmArg("x", aj.int16, N, "in"), aj.GmArg("z", aj.int16, N, "out", file="output.bin"))
    def triple(k, x, z):
        t = k.alloc(aj.int16, N)
        k.DataCopy(t, x, N)
        k.SetFlag(aj.HardEvent.MTE2_V, 0)
        k.WaitFlag(aj.HardEvent.MTE2_V, 0)
        k.Muls(t, t, 3, N)
        k.SetFlag(aj.HardEvent.V_MTE3, 0)
        k.WaitFlag(aj.HardEvent.V_MTE3, 0)
        k.DataCopy(z, t, N)


    @aj.gm_kernel(aj.GmArg("x", aj.int16, N, "in"), aj.GmArg("z", aj.int16, N, "out"))
    def raises_own(k, x, z):
        raise KeyError("the user's own bug")


    @aj.gm_kernel(aj.GmArg("x", aj.int16, N, "in"), aj.GmArg("z", aj.int16, N, "out"))
    def numpy_fails(k, x, z):
        np.zeros(-1)  # raised inside NumPy, called by the user's code: the kernel's failure


    @aj.gm_kernel(aj.GmArg("x", aj.int16, N, "in"), aj.GmArg("z", aj.int16, N, "out"))
    def float_offset(k, x, z):
        t = k.alloc(aj.int16, N)
        k.DataCopy(t[8.0], x, 8)  # a UsageError of ours: bad input (exit 2)


    @aj.gm_kernel(aj.GmArg("x", aj.int16, N, "in"), aj.GmArg("z", aj.int16, N, "out"))
    def too_few(k, x):
        pass


    @aj.gm_kernel(aj.GmArg("x", aj.int16, N, "in"), aj.GmArg("z", aj.int16, N, "out"))
    def too_many(k, x, z, w):
        pass


    def factory(scenario):
        if scenario != 1:
            raise ValueError(f"factory: no scenario {scenario}")
        return triple
    """
)


@pytest.fixture
def work(tmp_path, monkeypatch):
    """A folder with the kernel file, input/x.bin and an "NPU" output folder npu/output.bin."""
    (tmp_path / "mk.py").write_text(KERNELS)
    (tmp_path / "input").mkdir()
    np.arange(N, dtype=np.int16).tofile(tmp_path / "input" / "x.bin")
    (tmp_path / "npu").mkdir()
    (np.arange(N, dtype=np.int16) * 3).tofile(tmp_path / "npu" / "output.bin")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- 1. no command overwrites an input ----------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [
        ["--output", "npu", "--diff", "npu"],  # the probe: the output folder is the NPU folder
        ["--output", "npu/model", "--diff", "npu"],  # inside it
        ["--output", ".", "--diff", "npu"],  # holding it (and the input folder)
        ["--output", "input"],
        ["--output", "input/out"],
        ["--input", "output"],  # the default output folder is the input folder
        ["--diff", "output"],  # ... or the --diff folder
    ],
)
def test_output_overlapping_an_input_exits_2_before_writing(work, capsys, extra):
    if "output" in extra:  # an input (or NPU) folder named like the default output folder
        (work / "output").mkdir()
        np.arange(N, dtype=np.int16).tofile(work / "output" / "x.bin")
        np.arange(N, dtype=np.int16).tofile(work / "output" / "output.bin")
    before = {f: f.read_bytes() for f in work.rglob("*.bin")}
    rc, out, err = _cli(capsys, "run", "mk.py:triple", *extra)
    assert rc == 2, (rc, out, err)
    assert "would write over its files" in _one_line(err)
    assert {f: f.read_bytes() for f in work.rglob("*.bin")} == before  # the NPU's bytes unchanged


def test_output_overlapping_the_cases_folder_exits_2(work, capsys):
    (work / "cases" / "c0").mkdir(parents=True)
    np.arange(N, dtype=np.int16).tofile(work / "cases" / "c0" / "x.bin")
    for out in ("cases", "cases/c0", "."):
        rc, _, err = _cli(capsys, "run", "mk.py:triple", "--cases", "cases", "--output", out)
        assert rc == 2 and "--cases folder" in _one_line(err), err
    # --diff with --cases is refused before anything runs (it was checked after writing)
    rc, _, err = _cli(capsys, "run", "mk.py:triple", "--cases", "cases", "--diff", "npu")
    assert rc == 2 and "does not combine with --cases" in _one_line(err)
    assert not (work / "cases" / "c0" / "output").exists()
    # the default layout (CASE/output beside the inputs) runs
    rc, _, err = _cli(capsys, "run", "mk.py:triple", "--cases", "cases")
    assert rc == 0, err
    out = np.fromfile(work / "cases" / "c0" / "output" / "output.bin", np.int16)
    np.testing.assert_array_equal(out, np.arange(N, dtype=np.int16) * 3)


def test_an_output_file_that_is_an_input_file_is_refused(tmp_path):
    args = (
        aj.GmArg("x", aj.int16, N, "in", file="data.bin"),
        aj.GmArg("z", aj.int16, N, "out", file="data.bin"),
    )
    with pytest.raises(byok.RunInputError, match="overwrite its input"):
        byok.check_no_overwrite(args, tmp_path, tmp_path)
    byok.check_no_overwrite(args, tmp_path / "in", tmp_path / "out")


# -- 2. operator[]: a NumPy integer is an int, a float is a UsageError, only a tracer is traced -------


def test_operator_index_numpy_int_is_an_int():
    k = aj.Kernel(P)
    x = k.alloc(aj.float32, 256)
    y = x[np.int64(200)]
    assert y == x[200] and y.GetSize() == 56 and y.addr == 800
    k.write(x, np.ones(256, np.float32))
    k.Muls(y, y, 2.0, 256)  # 200 elements past y: now an EXTENT warning, as with x[200]
    assert any(
        w.api == "Muls" and w.argument == "dst" and "writes 200 elements" in w.detail for w in k.warnings
    )
    with pytest.raises(IndexUsageError, match="offset=300"):
        x[np.int64(300)]
    for bad in (8.0, 8.5, np.float32(8.0), np.nan, True, np.bool_(False), "8", None):
        with pytest.raises(UsageError) as e:
            x[bad]
        assert e.value.argument == "offset"
    g = k.gm(np.zeros(64, np.float32))
    assert g[np.uint16(8)] == g[8] and g[np.uint16(8)].GetSize() == 56
    with pytest.raises(UsageError) as e:
        g[8.5]
    assert e.value.argument == "offset" and "GlobalTensor" in e.value.api


def test_operator_index_traced_offset_still_traced():
    def kern(k, src, dst, off):
        x = k.alloc(aj.float32, 64)
        k.DataCopy(x, src, 64)
        k.DataCopy(dst[off], x[off], 8)

    src = np.arange(2 * 64, dtype=np.float32).reshape(2, 64)
    res = aj.jit_kernel(kern, P)(src, np.zeros_like(src), off=np.array([0, 8], np.int32))
    np.testing.assert_array_equal(res.gm[1][1, 8:16], src[1, 8:16])
    with pytest.raises(UsageError, match="traced float32"):  # a traced float offset: a UsageError

        def fkern(k, src, dst, off):
            k.DataCopy(dst, src[off], 8)

        aj.jit_kernel(fkern, P)(src, np.zeros_like(src), off=np.array([0.0, 8.0], np.float32))


# -- 3. GetWithOffset is validated as Get -------------------------------------------------------------


def _tbuf(nbytes=1024):
    k = aj.Kernel(P)
    b = aj.TBuf(aj.TPosition.VECCALC)
    aj.TPipe(k).InitBuffer(b, nbytes)
    return b


def test_get_with_offset_validates_like_get():
    b = _tbuf()
    for size, off, arg in [(-5, 0, "size"), (2.7, 32, "size"), (8, 32.0, "bufOffset"), (True, 0, "size")]:
        with pytest.raises(UsageError) as e:
            b.GetWithOffset(aj.float32, size, off)
        assert e.value.argument == arg, (size, off)
    t = b.GetWithOffset(aj.float32, np.int32(8), np.int64(64))
    assert t == b.GetWithOffset(aj.float32, 8, 64) and type(t.addr) is int and t.length == 8
    assert b.Get(aj.float32, np.int16(4)).length == 4  # Get takes a NumPy int too
    with pytest.raises(UsageError):
        b.Get(aj.float32, 4.0)


# -- 4. a count is an integer ------------------------------------------------------------------------


def _count_kernel(k, a, d, count):
    x = k.alloc(aj.float32, 256)
    k.DataCopy(x, a, 256)
    k.Muls(x, x, 2.0, count)
    k.DataCopy(d, x, 256)


def test_count_static_non_integer_is_a_usage_error_traced_is_bad_param():
    a = np.ones(256, np.float32)
    for c in (np.nan, 100.7):  # run_kernel's parameters are jax values: checked per case
        with pytest.raises(aj.AscendFault, match="BAD_PARAM"):
            aj.run_kernel(_count_kernel, a, np.zeros_like(a), profile=P, count=c)
        res = aj.run_kernel(
            _count_kernel, a, np.zeros_like(a), profile=P, count=c, fault_policy="record", return_state=True
        )
        assert int(res.state.fault) & int(Fault.BAD_PARAM)
    k = aj.Kernel(P)
    x = k.alloc(aj.float32, 256)
    for c in (np.nan, 100.7, np.float32(np.nan), np.float32(8.0), 8.0, True):
        with pytest.raises(UsageError) as e:
            k.Muls(x, x, 2.0, c)
        assert e.value.argument == "count"
    with pytest.raises(aj.AscendFault, match="BAD_PARAM"):  # eager jax NaN: as traced
        k.Muls(x, x, 2.0, jnp.float32(np.nan))
    k.Muls(x, x, 2.0, np.int64(64))  # a NumPy int is a count


def test_count_through_sweep_non_integral_points_fault():
    a = np.ones(256, np.float32)
    r = aj.sweep(_count_kernel, profile=P, gm=(a, np.zeros_like(a)), count=[64, 100.7, np.nan, 256.0])
    assert [aj.describe_faults(f) for f in r.faults] == ["none", "BAD_PARAM", "BAD_PARAM", "none"]
    assert np.count_nonzero(r.gm[1][0] == 2.0) == 64 and np.count_nonzero(r.gm[1][3] == 2.0) == 256


# -- 5, 6. ascend-jax run: the user's file, never exit 3 --------------------------------------------


GMARG_FILE = """
import ascend_jax as aj


@aj.gm_kernel({args})
def kern(k, x, z):
    pass
"""


@pytest.mark.parametrize(
    "args, words",
    [
        ('aj.GmArg("x", aj.int8, -1), aj.GmArg("z", aj.int8, 32, "out")', "'x'.count=-1"),
        ('aj.GmArg("x", aj.int8, 0), aj.GmArg("z", aj.int8, 32, "out")', "'x'.count=0"),
        ('aj.GmArg("x", aj.int8, 2.5), aj.GmArg("z", aj.int8, 32, "out")', "'x'.count=2.5"),
        ('aj.GmArg("x", aj.int8, True), aj.GmArg("z", aj.int8, 32, "out")', "'x'.count=True"),
        ('aj.GmArg("x", aj.int8, "32"), aj.GmArg("z", aj.int8, 32, "out")', "'x'.count='32'"),
        ('aj.GmArg("x", "int17", 32), aj.GmArg("z", aj.int8, 32, "out")', "'x'.dtype='int17'"),
        ('aj.GmArg("x", None, 32), aj.GmArg("z", aj.int8, 32, "out")', "'x'.dtype"),
        ('aj.GmArg("x", aj.int8, 32, "sideways"), aj.GmArg("z", aj.int8, 32, "out")', "direction='sideways'"),
        ('aj.GmArg("x", aj.int8, 32, 3), aj.GmArg("z", aj.int8, 32, "out")', "direction=3"),
        ('aj.GmArg("1x", aj.int8, 32), aj.GmArg("z", aj.int8, 32, "out")', "name='1x'"),
        ('aj.GmArg("x", aj.int8, 32), aj.GmArg("x", aj.int8, 32, "out")', "declared twice"),
        ('aj.GmArg("x", aj.int8, 32), aj.GmArg("z", aj.int8, 32)', "nothing would be written"),
        ('aj.GmArg("x", aj.int8, 32, file=""), aj.GmArg("z", aj.int8, 32, "out")', "file=''"),
        ('("x", aj.int8, 32), aj.GmArg("z", aj.int8, 32, "out")', "an aj.GmArg"),
    ],
)
def test_bad_gm_arg_fields_exit_2_one_line(tmp_path, capsys, args, words):
    f = tmp_path / "decl.py"
    f.write_text(GMARG_FILE.format(args=args))
    rc, _, err = _cli(capsys, "run", f"{f}:kern", "--input", tmp_path / "in", "--output", tmp_path / "o")
    line = _one_line(err)
    assert rc == 2 and words in line and "decl.py:5" in line, err
    with pytest.raises(UsageError):  # the same declaration from Python: a UsageError
        exec(compile(GMARG_FILE.format(args=args), "decl", "exec"), {})


def test_module_level_gm_args_bad_field_exit_2(tmp_path, capsys):
    f = tmp_path / "mod.py"
    f.write_text('import ascend_jax as aj\nGM_ARGS = (aj.GmArg("x", "int17", 4),)\ndef f(k, x): pass\n')
    rc, _, err = _cli(capsys, "run", f"{f}:f", "--input", tmp_path / "in", "--output", tmp_path / "o")
    assert rc == 2 and "GM_ARGS" in _one_line(err) and "int17" in err


@pytest.mark.parametrize(
    "source, words",
    [
        ("def f(:\n", ["SyntaxError", "bad.py:1"]),
        ("import no_such_module_anywhere\n", ["ModuleNotFoundError", "bad.py:1"]),
        ("x = 1\ny = undefined_name\n", ["NameError", "bad.py:2"]),
        ("raise RuntimeError('at import')\n", ["RuntimeError: at import", "bad.py:1"]),
    ],
)
def test_broken_kernel_file_exit_2(tmp_path, capsys, source, words):
    f = tmp_path / "bad.py"
    f.write_text(source)
    rc, _, err = _cli(capsys, "run", f"{f}:f", "--input", tmp_path / "in", "--output", tmp_path / "o")
    line = _one_line(err)
    assert rc == 2 and all(w in line for w in words), err


@pytest.mark.parametrize(
    "target, rc_want, words",
    [
        ("mk.py:too_few", 2, ["do not match its 2 declared GM arguments"]),
        ("mk.py:too_many", 2, ["do not match its 2 declared GM arguments"]),
        ("mk.py:factory --scenario 999", 2, ["the factory rejected scenario 999", "ValueError", "mk.py:"]),
        ("mk.py:factory", 2, ["is a factory", "--scenario"]),
        ("mk.py:raises_own", 1, ["the kernel raised KeyError", "the user's own bug", "mk.py:"]),
        ("mk.py:numpy_fails", 1, ["the kernel raised ValueError", "mk.py:"]),
        ("mk.py:float_offset", 2, ["LocalTensor::operator[]: offset=8.0"]),
    ],
)
def test_kernel_file_errors_exit_1_or_2_one_line(work, capsys, target, rc_want, words):
    rc, _, err = _cli(capsys, "run", *target.split(), "--output", "o")
    line = _one_line(err)
    assert rc == rc_want and all(w in line for w in words), err


def test_debug_shows_the_traceback(work, capsys):
    rc, _, err = _cli(capsys, "run", "mk.py:raises_own", "--output", "o", "--debug")
    assert rc == 1 and "Traceback" in err and "KeyError" in err


def test_output_is_a_file_exit_2(work, capsys):
    (work / "afile").write_text("precious")
    rc, _, err = _cli(capsys, "run", "mk.py:triple", "--output", "afile")
    assert rc == 2 and "not a folder" in _one_line(err)
    assert (work / "afile").read_text() == "precious"
    rc, _, err = _cli(capsys, "run", "mk.py:triple", "--output", "o", "--diff", "afile")
    assert rc == 2 and "--diff afile: not a folder" in _one_line(err)


def test_bare_op_name_resolved_by_the_cli_not_the_library():
    """byok (the library) never imports ops (the examples); the CLI looks op names up."""
    src = pathlib.Path(byok.__file__).read_text()
    assert "import_module" not in src and "import ops" not in src
    from ascend_jax import cli

    ops = cli.runnable_ops()
    assert "vendor_add" in ops
    assert byok.resolve_kernel("vendor_add", None, ops).fn.gm_args
    with pytest.raises(byok.RunInputError, match="unknown kernel"):
        byok.load_kernel("vendor_add")  # no lookup given: the library knows no op names


# -- 7. UsageErrors naming the argument --------------------------------------------------------------


def _copy_kernel(k, a, d, scalar=1.0):
    x = k.alloc(aj.float32, 256)
    k.DataCopy(x, a, 256)
    k.Muls(x, x, scalar, 256)
    k.DataCopy(d, x, 256)


def test_complex_gm_array_is_a_usage_error():
    with pytest.raises(UsageError) as e:
        aj.run_kernel(lambda k, a: None, np.zeros(4, np.complex64), profile=P)
    assert e.value.argument == "GM array 0.dtype" and "complex64" in str(e.value)
    with pytest.raises(UsageError) as e:
        aj.jit_kernel(lambda k, a: None, P)(np.zeros((2, 4), np.complex128))
    assert e.value.argument == "GM array 0.dtype"
    with pytest.raises(TypeError) as t:  # the dtype table's own message no longer contradicts itself
        aj.dtypes.as_dtype(np.complex64)
    assert "complex64" in str(t.value) and "by name" in str(t.value)


def test_zero_case_batch_is_refused():
    a = np.ones((0, 256), np.float32)
    with pytest.raises(UsageError) as e:
        aj.jit_kernel(_copy_kernel, P)(a, np.zeros_like(a))
    assert e.value.argument == "batch size"


@pytest.mark.parametrize("ub", [-1, 100, 1025, True, -32, 0, 32.0, "half", 2**40])
def test_ub_bytes_validated_when_built(ub):
    for make in (
        lambda: aj.jit_kernel(_copy_kernel, P, ub_bytes=ub),
        lambda: aj.Kernel(P, ub_bytes=ub),
        lambda: aj.run_kernel(_copy_kernel, np.ones(256, np.float32), np.ones(256, np.float32), ub_bytes=ub),
        lambda: aj.reset_state(P, ub_bytes=ub),
    ):
        with pytest.raises(UsageError) as e:
            make()
        assert e.value.argument == "ub_bytes"
    for ok in (None, "full", 1024, np.int64(2048)):
        aj.jit_kernel(_copy_kernel, P, ub_bytes=ok)
        aj.Kernel(P, ub_bytes=ok)


def test_vector_where_a_scalar_parameter_is_expected():
    a = np.ones(256, np.float32)
    with pytest.raises(UsageError) as e:
        aj.run_kernel(_copy_kernel, a, np.zeros_like(a), profile=P, scalar=np.ones(4))
    assert e.value.argument == "scalarValue" and "(4,)" in str(e.value)


def test_sweep_gm_must_be_a_tuple_and_values_not_ragged():
    a = np.ones(256, np.float32)
    with pytest.raises(UsageError) as e:
        aj.sweep(_count_kernel, profile=P, gm=a, count=[1, 2])
    assert e.value.argument == "gm"
    with pytest.raises(UsageError) as e:
        aj.sweep(_count_kernel, profile=P, gm=(a, a), count=[[1, 2], [3]])
    assert e.value.argument == "count" and "ragged" in str(e.value)
    with pytest.raises(UsageError) as e:
        aj.sweep(_count_kernel, profile=P, gm=(a, a), count=["a", "b"])
    assert e.value.argument == "count"


# -- 8. smaller -------------------------------------------------------------------------------------


def test_past_the_end_is_a_usage_error_and_an_index_error():
    k = aj.Kernel(P)
    x = k.alloc(aj.float32, 256)
    g = k.gm(np.zeros(64, np.float32))
    for t, off in ((x, 300), (g, -8), (x, -1), (g, 65)):
        with pytest.raises(IndexError) as e:
            t[off]
        assert isinstance(e.value, UsageError) and e.value.argument == "offset"


def test_uninitialised_queue_names_no_profile():
    for call in (
        lambda: aj.TQue(aj.TPosition.VECIN, 1).AllocTensor(aj.float32),
        lambda: aj.TBuf().Get(aj.int8),
    ):
        with pytest.raises(UsageError) as e:
            call()
        assert "profile" not in str(e.value) and "InitBuffer" in str(e.value)


def test_enque_twice_is_a_usage_error():
    k = aj.Kernel(P)
    q = aj.TQue(aj.TPosition.VECIN, 2)
    aj.TPipe(k).InitBuffer(q, 2, 256)
    t = q.AllocTensor(aj.float32)
    assert q.EnQue(t)
    with pytest.raises(UsageError, match="already in the queue"):
        q.EnQue(t)
    with pytest.raises(UsageError, match="already in the queue"):
        q.EnQue(t[8])  # a view of the same buffer
    assert q.GetTensorCountInQue() == 1


def test_bool_gm_array_named_bool_in_data_copy_errors():
    k = aj.Kernel(P)
    x = k.alloc(aj.float32, 64)
    g = k.gm(np.zeros(64, bool))
    with pytest.raises(UsageError, match=r"src.dtype='bool \(uint8 bytes\)'"):
        k.DataCopy(x, g, 64)
    y = k.alloc(aj.uint8, 64)
    k.DataCopy(y, g, 64)  # bool bytes into uint8: fine

    def kern(k, b):
        k.DataCopy(k.alloc(aj.float32, 64), b, 64)

    with pytest.raises(UsageError, match="bool"):
        aj.jit_kernel(kern, P)(np.zeros((1, 64), bool))


def test_global_tensor_reinterpret_cast_raises_like_local():
    k = aj.Kernel(P)
    g = k.gm(np.zeros(6, np.int8))
    with pytest.raises(UsageError, match="not a multiple of sizeof"):
        g.ReinterpretCast(aj.int32)
    with pytest.raises(UsageError, match="not a multiple of sizeof"):
        k.alloc(aj.int8, 6).ReinterpretCast(aj.int32)
    assert g.ReinterpretCast(aj.int16).GetSize() == 3


# -- properties: every integer argument ---------------------------------------------------------------

_NP_INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
_HUGE = (2**31, 2**32 + 32, 2**63, 2**64 + 1, 10**30, -(2**63))


@st.composite
def _np_int(draw, lo, hi):
    t = draw(st.sampled_from(_NP_INTS))
    info = np.iinfo(t)
    v = draw(
        st.one_of(st.integers(max(info.min, lo), min(info.max, hi)), st.sampled_from([info.min, info.max]))
    )
    return t(v)


def _values(lo, hi, extra=()):
    """Ints (and NumPy ints of every width) around [lo, hi], huge ones, integral and other floats
    (Python, NumPy), NaN, infinities and bools."""
    ints = st.one_of(st.integers(lo, hi), st.sampled_from(_HUGE + tuple(extra)))
    floats = st.one_of(
        st.integers(lo, hi).map(float),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(lo, hi).map(np.float32),
        st.sampled_from([np.nan, np.inf, -np.inf, np.float64(np.nan)]),
    )
    bools = st.one_of(st.booleans(), st.booleans().map(np.bool_))
    return st.one_of(ints, _np_int(lo, hi), floats, bools)


def _int_like(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _outcome(call, v):
    """("ok", result), ("fault", word) or ("error", class, argument); any other exception fails
    the test."""
    try:
        return ("ok", call(v))
    except aj.AscendFault as e:
        return ("fault", e.word)
    except AscendCError as e:
        assert isinstance(e, UsageError), e
        return ("error", type(e), e.argument)


def _check(call, v, argument):
    got = _outcome(call, v)
    if _int_like(v):
        assert got == _outcome(call, int(v)), (v, got)
    else:
        assert got[0] == "error" and got[2] == argument, (v, got)


_SETTINGS = settings(max_examples=60)


@_SETTINGS
@given(_values(-3, 260))
def test_property_operator_index(v):
    k = aj.Kernel(P)
    x = k.alloc(aj.float32, 256)
    g = k.gm(np.zeros(256, np.float32))
    _check(lambda o: x[o], v, "offset")
    _check(lambda o: g[o], v, "offset")
    if _int_like(v) and 0 <= int(v) <= 256:
        assert type(x[v].addr) is int and x[v].GetSize() == 256 - int(v)


@_SETTINGS
@given(_values(-3, 300), _values(-64, 1100, extra=(32, 64, 992)))
def test_property_get_with_offset(size, offset):
    b = _tbuf(1024)
    _check(lambda s: b.GetWithOffset(aj.float32, s, 32), size, "size")
    _check(lambda o: b.GetWithOffset(aj.float32, 8, o), offset, "bufOffset")


@_SETTINGS
@given(_values(-3, 300, extra=(49088, 49089)))
def test_property_alloc(v):
    _check(lambda n: aj.Kernel(P).alloc(aj.float32, n), v, "length")


@_SETTINGS
@given(_values(-64, 4096, extra=(32, 1024, 196608, 196640)))
def test_property_ub_bytes(v):
    def build(n):
        aj.jit_kernel(_copy_kernel, P, ub_bytes=n)
        return int(aj.Kernel(P, ub_bytes=n).state.ub.shape[0])

    _check(build, v, "ub_bytes")


_UB = aj.reset_state(P, ub_bytes=4096)


@settings(max_examples=40)
@given(_values(-3, 300, extra=(49089,)))
def test_property_count(v):
    """A static count: the same bits as the Python int, or a UsageError naming count."""

    def run(c):
        k = aj.Kernel(P, state=_UB)
        x = k.alloc(aj.float32, 320)
        k.Muls(x, x, 2.0, c)
        return bytes(np.asarray(k.state.ub)), int(k.state.fault)

    _check(run, v, "count")


@pytest.mark.parametrize(
    "c, bad", [(64, False), (64.0, False), (64.5, True), (np.nan, True), (-1, True), (np.inf, True)]
)
def test_traced_count_non_integer_is_bad_param(c, bad):
    """Traced (inside jit): a non-integral or out-of-range count records BAD_PARAM for its case."""
    st0 = aj.reset_state(P, ub_bytes=2048)
    dst = aj.LocalTensor(aj.float32, 0, 256)
    f = jax.jit(lambda s, n: aj.Muls(s, dst, dst, 2.0, n, profile=P).fault)
    assert bool(int(f(st0, jnp.float32(c))) & int(Fault.BAD_PARAM)) == bad
