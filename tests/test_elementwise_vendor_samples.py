"""The vendor sample kernels of the element-wise family, run against the reference: each sample's own
scripts/gen_data.py makes the inputs and golden in a temporary directory, the reference runs the call
the sample's kernel makes, and the sample's own scripts/verify_result.py judges the output (and the
bits must equal the golden: every call here is exact)."""

import pathlib
import runpy
import subprocess
import sys

import numpy as np
import pytest

import ascend_jax.reference as R
from ascend_jax import dtypes as D
from ascend_jax.params import UnaryRepeatParams

T = R.LocalTensor
SAMPLES = pathlib.Path(__file__).resolve().parent.parent.parent / "shared/spec/vendor-samples"


def _gen(sample, tmp_path, *args):
    script = SAMPLES / sample / "scripts/gen_data.py"
    if not script.is_file():
        pytest.skip(f"vendor sample {sample} not available")
    subprocess.run([sys.executable, str(script), *args], cwd=tmp_path, check=True, capture_output=True)


def _verify(sample, tmp_path, out):
    out_file = tmp_path / "output/output.bin"
    out.tofile(out_file)
    verify = runpy.run_path(str(SAMPLES / sample / "scripts/verify_result.py"))["verify_result"]
    assert verify(str(out_file), str(tmp_path / "output/golden.bin"))
    golden = np.fromfile(tmp_path / "output/golden.bin", out.dtype)
    assert golden.tobytes() == out.tobytes()


def test_leaky_relu_sample(tmp_path):
    # the kernel: LeakyRelu(dst, src, half(0.01), mask = 128, repeatTime 4, {1, 1, 8, 8}) on 512 halves
    _gen("element_wise_arithmetic", tmp_path)
    x = np.fromfile(tmp_path / "input/input_x.bin", np.float16)
    for prof in ("ascend910b", "ascend950"):
        st = R.ub_write(R.reset_state(prof), 0, D.half, x)
        st = R.LeakyRelu(
            st, T(D.half, 4096, 512), T(D.half, 0, 512), 0.01, 128, 4, UnaryRepeatParams(), profile=prof
        )
        assert st.fault == 0
        _verify("element_wise_arithmetic", tmp_path, R.ub_read(st, 4096, D.half, 512))


def test_and_sample(tmp_path):
    _gen("element_wise_logic", tmp_path, "-scenarioNum", "1")
    a = np.fromfile(tmp_path / "input/input_src0.bin", np.uint16)
    b = np.fromfile(tmp_path / "input/input_src1.bin", np.uint16)
    st = R.ub_write(R.reset_state("ascend910b"), 0, D.uint16, a)
    st = R.ub_write(st, 2048, D.uint16, b)
    st = R.And(
        st, T(D.uint16, 4096, 512), T(D.uint16, 0, 512), T(D.uint16, 2048, 512), 512, profile="ascend910b"
    )
    _verify("element_wise_logic", tmp_path, R.ub_read(st, 4096, D.uint16, 512))


def test_ors_scalar_first_sample(tmp_path):
    # Ors<BinaryDefaultType, true, {0}>(dst, src0[0], src1, 512): 950 only
    _gen("element_wise_logic", tmp_path, "-scenarioNum", "2")
    a = np.fromfile(tmp_path / "input/input_src0.bin", np.uint16)
    b = np.fromfile(tmp_path / "input/input_src1.bin", np.uint16)
    st = R.ub_write(R.reset_state("ascend950"), 0, D.uint16, a)
    st = R.ub_write(st, 2048, D.uint16, b)
    st = R.Ors(
        st,
        T(D.uint16, 4096, 512),
        T(D.uint16, 0, 1),
        T(D.uint16, 2048, 512),
        512,
        profile="ascend950",
        config=0,
    )
    _verify("element_wise_logic", tmp_path, R.ub_read(st, 4096, D.uint16, 512))


def test_duplicate_sample(tmp_path):
    _gen("duplicate", tmp_path)
    st = R.Duplicate(R.reset_state("ascend910b"), T(D.half, 0, 256), 18.0, 256, profile="ascend910b")
    _verify("duplicate", tmp_path, R.ub_read(st, 0, D.half, 256))


def test_create_vec_index_sample(tmp_path):
    _gen("create_vec_index", tmp_path)
    st = R.reset_state("ascend910b")
    st = R.Duplicate(st, T(D.int16, 0, 128), 0, 128, profile="ascend910b")
    st = R.CreateVecIndex(st, T(D.int16, 0, 128), 0, 128, profile="ascend910b")
    _verify("create_vec_index", tmp_path, R.ub_read(st, 0, D.int16, 128))
