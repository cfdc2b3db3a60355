"""relu: ``dst = src > 0 ? src : 0`` as a whole kernel, two ways.

* ``relu_select``: CompareScalar(GT, 0) writes one bit per element, then Select mode 1
  (VSEL_TENSOR_SCALAR_MODE) keeps src where the bit is 1 and the scalar 0 elsewhere -- the
  CompareScalar/Select pattern of the seed pages (KernelCmp, KernelSelect) in one kernel.
* ``relu_maxs``: ``Maxs(dst, src, 0)``.

Both are ``dataSize`` elements (a multiple of 256 bytes: CompareScalar's count must be 256-byte
aligned), count form, T compile-time. The two agree bit for bit except where the documented
semantics differ:
* NaN: CompareScalar's GT with a NaN operand is false, so relu_select writes +0; Maxs propagates
  NaN, so relu_maxs writes a NaN (the canonical 0x7FC00000 for float32 where
  ``numerics.nan_result = "canonical"``). ``agree_mask`` names these lanes.
* -0, subnormals (also where the profile flushes them), +-inf: the same result.

Golden: NumPy from the pages (CompareScalar: IEEE comparison after the subnormal rule; Select: a
bit copy; Maxs: NaN-propagating max with -0 < +0, then flush / canonical NaN).
"""

import functools

import numpy as np

import ascend_jax as aj

from . import _golden as G

APIS_SELECT = ("CompareScalar", "Select")
APIS_MAXS = ("Maxs",)
DTYPES = ("float32",)
CONFIGS = [{"variant": "select", "dtype": "float32"}, {"variant": "maxs", "dtype": "float32"}]
FAST = (0, 1)


class KernelRelu:
    def __init__(self, k, dtype, variant, dataSize=256):
        self.k = k
        self.T = aj.as_dtype(dtype)
        self.variant = variant
        self.dataSize = dataSize

    def Init(self, srcGm, dstGm):
        T = self.T
        self.srcGlobal, self.dstGlobal = srcGm, dstGm
        self.pipe = aj.TPipe(self.k)
        self.inQueueSrc = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
        self.pipe.InitBuffer(self.inQueueSrc, 1, self.dataSize * T.itemsize)
        self.pipe.InitBuffer(self.outQueueDst, 1, self.dataSize * T.itemsize)
        if self.variant == "select":
            self.selBuf = aj.TBuf(aj.TPosition.VECCALC)
            self.pipe.InitBuffer(self.selBuf, max(32, self.dataSize // 8))

    def Process(self):
        self.CopyIn()
        self.Compute()
        self.CopyOut()

    def CopyIn(self):
        srcLocal = self.inQueueSrc.AllocTensor(self.T)
        self.k.DataCopy(srcLocal, self.srcGlobal, self.dataSize)
        self.inQueueSrc.EnQue(srcLocal)

    def Compute(self):
        k, T = self.k, self.T
        srcLocal = self.inQueueSrc.DeQue(T)
        dstLocal = self.outQueueDst.AllocTensor(T)
        zero = np.array(0, T.np_dtype)  # static T(0)
        if self.variant == "select":
            # SPEC: CompareScalar.md: bit i of dst (LSB first) = src0[i] GT 0; Select.md mode 1:
            # bit 1 keeps src0[i], bit 0 takes the scalar
            selMask = self.selBuf.Get(aj.uint8)
            k.CompareScalar(selMask, srcLocal, zero.item(), aj.CMPMODE.GT, self.dataSize)
            k.Select(
                dstLocal, selMask, srcLocal, zero.item(), aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, self.dataSize
            )
        else:
            k.Maxs(dstLocal, srcLocal, zero.item(), self.dataSize)
        self.outQueueDst.EnQue(dstLocal)
        self.inQueueSrc.FreeTensor(srcLocal)

    def CopyOut(self):
        dstLocal = self.outQueueDst.DeQue(self.T)
        self.k.DataCopy(self.dstGlobal, dstLocal, self.dataSize)
        self.outQueueDst.FreeTensor(dstLocal)


def relu_kernel(k, srcGm, dstGm, *, dtype=aj.float32, variant="select", dataSize=256):
    op = KernelRelu(k, dtype, variant, dataSize)
    op.Init(srcGm, dstGm)
    op.Process()


def kernel(variant="select", dtype="float32", dataSize=256):
    return functools.partial(relu_kernel, dtype=dtype, variant=variant, dataSize=dataSize)


def requirements(variant="select", dtype="float32"):
    if variant == "select":
        return [("CompareScalar", dtype, {"cmp_mode": "GT"}), ("Select", dtype, {"modes": 1})]
    return [("Maxs", dtype, {})]


# -- gen_data / golden -----------------------------------------------------------------------------


def gen_data(rng, batch, dtype="float32", dataSize=256):
    npd = aj.as_dtype(dtype).np_dtype
    return {"src": G.random_values(rng, npd, (batch, dataSize)), "dst": np.zeros((batch, dataSize), npd)}, {}


def golden(inputs, profile, variant):
    x = inputs["src"]
    dt = x.dtype
    if variant == "select":
        keep = G.compare(x, np.zeros((), dt), "GT", profile.float_subnormals)
        return np.where(keep, G.bits(x), G.bits(np.zeros((), dt)))
    return G.float_epilogue(G.float_max(G.flush(x, profile.float_subnormals), np.zeros((), dt)), profile)


def agree_mask(x):
    """Lanes where the two variants must agree bit for bit (all but NaN inputs)."""
    return ~np.isnan(x)


def gen_case(rng, batch, profile, variant="select", dtype="float32"):
    inputs, params = gen_data(rng, batch, dtype)
    return [inputs["src"], inputs["dst"]], params, {"gm": {1: golden(inputs, profile, variant)}}
