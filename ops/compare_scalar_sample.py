"""compare_scalar_sample: the CompareScalar page's ``KernelCmp<T>`` (seed 001) ported line by line.

C++ shape: Init (GlobalTensors; queues for src0 (dataSize elements), src1 (16 elements) and the bit
result (dataSize / 8 bytes)), CopyIn (DataCopy both sources), Compute (the scalar is
``src1Local.GetValue(0)``, then ``CompareScalar(dst, src0, scalar, cmpMode, dataSize)``), CopyOut.
``cmpMode`` is a compile-time ``CMPMODE`` (the C++ template instantiates one kernel per mode:
``kernel_vec_compare_scalar_256_LT_float``); ``T`` and ``dataSize`` are compile-time too.

Golden: NumPy from the page: bit i of the result (LSB first) = ``src0[i] cmpMode scalar``; floats
compare as IEEE values (-0 == +0, NaN false except NE) after the profile's subnormal rule.
"""

import functools

import numpy as np

import ascend_jax as aj

from . import _golden as G

APIS = ("CompareScalar",)
MODES = ("LT", "GT", "EQ", "LE", "GE", "NE")
CONFIGS = [{"mode": m, "dtype": d} for d in ("float32", "half", "int32") for m in MODES]
FAST = (0, 1, 2, 3, 4, 5, 14)  # float32 x all modes, int32 EQ (the A2 int32 rule)


class KernelCmp:
    def __init__(self, k, dtype, dataSize, mode):
        self.k = k
        self.T = aj.as_dtype(dtype)
        self.srcDataSize = dataSize
        # SPEC: seed 001: dstDataSize = srcDataSize / GetBitSize(sizeof(uint8_t)) -- one bit per element
        self.dstDataSize = dataSize // 8
        self.cmpMode = mode

    def Init(self, src0Gm, src1Gm, dstGm):
        T = self.T
        self.src0Global, self.src1Global, self.dstGlobal = src0Gm, src1Gm, dstGm
        self.pipe = aj.TPipe(self.k)
        self.inQueueSrc0 = aj.TQue(aj.TPosition.VECIN, 1)
        self.inQueueSrc1 = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
        self.pipe.InitBuffer(self.inQueueSrc0, 1, self.srcDataSize * T.itemsize)
        self.pipe.InitBuffer(self.inQueueSrc1, 1, 16 * T.itemsize)
        self.pipe.InitBuffer(self.outQueueDst, 1, self.dstDataSize)

    def Process(self):
        self.CopyIn()
        self.Compute()
        self.CopyOut()

    def CopyIn(self):
        k, T = self.k, self.T
        src0Local = self.inQueueSrc0.AllocTensor(T)
        src1Local = self.inQueueSrc1.AllocTensor(T)
        k.DataCopy(src0Local, self.src0Global, self.srcDataSize)
        k.DataCopy(src1Local, self.src1Global, 16)
        self.inQueueSrc0.EnQue(src0Local)
        self.inQueueSrc1.EnQue(src1Local)

    def Compute(self):
        k, T = self.k, self.T
        src0Local = self.inQueueSrc0.DeQue(T)
        src1Local = self.inQueueSrc1.DeQue(T)
        dstLocal = self.outQueueDst.AllocTensor(aj.uint8)
        src1Scalar = get_value(k, src1Local, 0)  # PipeBarrier<PIPE_ALL>() around it: no-ops here
        k.CompareScalar(dstLocal, src0Local, src1Scalar, self.cmpMode, self.srcDataSize)
        self.outQueueDst.EnQue(dstLocal)
        self.inQueueSrc0.FreeTensor(src0Local)
        self.inQueueSrc1.FreeTensor(src1Local)

    def CopyOut(self):
        dstLocal = self.outQueueDst.DeQue(aj.uint8)
        self.k.DataCopy(self.dstGlobal, dstLocal, self.dstDataSize)
        self.outQueueDst.FreeTensor(dstLocal)


def get_value(k, t, i):
    """``LocalTensor::GetValue(i)``: element ``i`` read from UB (a traced scalar inside jit_kernel)."""
    return k.GetValue(t, i)


def compare_scalar_kernel(k, src0Gm, src1Gm, dstGm, *, dtype=aj.float32, dataSize=256, mode="LT"):
    """``main_cpu_cmp_sel_demo<T>``: one KernelCmp."""
    op = KernelCmp(k, dtype, dataSize, getattr(aj.CMPMODE, mode))
    op.Init(src0Gm, src1Gm, dstGm)
    op.Process()


def kernel(mode="LT", dtype="float32", dataSize=256):
    return functools.partial(compare_scalar_kernel, dtype=dtype, dataSize=dataSize, mode=mode)


def requirements(mode="LT", dtype="float32"):
    return [("CompareScalar", dtype, {"cmp_mode": mode})]


# -- gen_data / golden -----------------------------------------------------------------------------


def gen_data(rng, batch, dtype="float32", dataSize=256):
    npd = aj.as_dtype(dtype).np_dtype
    src0 = G.random_values(rng, npd, (batch, dataSize))
    src1 = G.random_values(rng, npd, (batch, 16))
    src1[:, 0] = G.random_scalars(rng, npd, batch)
    # equal elements, so EQ / LE / GE / NE see both outcomes (and -0 against +0 for floats)
    eq = rng.random((batch, dataSize)) < 0.15
    src0 = np.where(eq, src1[:, :1], src0).astype(npd)
    if G.is_float(npd):
        zero = (src1[:, :1] == 0) & (rng.random((batch, dataSize)) < 0.3)
        src0 = np.where(zero, -src1[:, :1], src0).astype(npd)
    return {"src0": src0, "src1": src1, "dst": np.zeros((batch, dataSize // 8), np.uint8)}, {}


def golden(inputs, profile, mode, dtype="float32"):
    """Expected result bytes (batch, dataSize / 8)."""
    src0, src1 = inputs["src0"], inputs["src1"]
    res = G.compare(src0, src1[:, :1], mode, profile.float_subnormals)
    return G.pack_bits(res)


def gen_case(rng, batch, profile, mode="LT", dtype="float32"):
    inputs, params = gen_data(rng, batch, dtype)
    gm = [inputs["src0"], inputs["src1"], inputs["dst"]]
    return gm, params, {"gm": {2: golden(inputs, profile, mode, dtype)}}
