"""compact_above_threshold: keep the elements of ``src[0:n]`` that are greater than ``threshold``,
packed in order, and return how many were kept -- CompareScalar -> GatherMask (Counter mode, user
pattern) compaction, as a whole kernel.

Template: Init (TPipe; VECIN src, VECOUT dst, a VECCALC TBuf for the compare bits), CopyIn,
Compute, CopyOut; the kernel returns ``rsvdCnt``. ``dataSize`` (compile-time) is a multiple of 64
elements (8 repeats of 256 bytes for the default 512 float32); ``n`` (traced, 1..dataSize) is any
length, so the compaction spans several repeats and a partial tail; ``threshold`` is traced.

Compute, per the GatherMask page's two Counter-mode configurations (profile field
``apis.GatherMask.counter_config``):
* configuration 1 (mask = elements per repeat): ``CompareScalar(bits, src, threshold, GT,
  dataSize)`` writes the bits contiguously, and one repeat with ``mask = n`` walks the first ``n``
  elements and the first ``n`` pattern bits (``{1, 1, 8, 0}``).
* configuration 2 (mask = total): every repeat reads its pattern bits from a new 32-byte block
  (``src1RepeatStride`` counts 32-byte blocks), so each 64-element chunk is compared into its own
  32-byte slot, then ``mask = n`` elements in total are gathered with ``{1, 1, 8, 1}``.

Deviation, stated: dst is copied in first, so elements after the kept ones keep the caller's values.

Golden: NumPy: ``src[:n][src[:n] > threshold]`` with the CompareScalar rules (subnormals read as
zero where the profile flushes; NaN never kept); the kept values are bit copies.
"""

import functools

import numpy as np

import ascend_jax as aj

from . import _golden as G

APIS = ("CompareScalar", "GatherMask")
DTYPES = ("float32",)
CONFIGS = [{"dtype": "float32"}]
FAST = (0,)


class KernelCompact:
    def __init__(self, k, dtype=aj.float32, dataSize=512):
        self.k = k
        self.T = aj.as_dtype(dtype)
        self.U = aj.uint32 if self.T.itemsize == 4 else aj.uint16
        self.dataSize = dataSize
        self.lanes = 256 // self.T.itemsize
        self.config = k.profile.api("GatherMask").counter_config
        if self.config == 1:
            self.bitBytes = max(32, dataSize // 8)
        else:
            self.bitBytes = dataSize // self.lanes * 32  # one 32-byte slot per repeat

    def Init(self, srcGm, dstGm):
        T = self.T
        self.srcGlobal, self.dstGlobal = srcGm, dstGm
        self.pipe = aj.TPipe(self.k)
        self.inQueueSrc = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
        self.bitsBuf = aj.TBuf(aj.TPosition.VECCALC)
        self.pipe.InitBuffer(self.inQueueSrc, 1, self.dataSize * T.itemsize)
        self.pipe.InitBuffer(self.outQueueDst, 1, self.dataSize * T.itemsize)
        self.pipe.InitBuffer(self.bitsBuf, self.bitBytes)

    def Process(self, threshold, n):
        self.CopyIn()
        rsvdCnt = self.Compute(threshold, n)
        self.CopyOut()
        return rsvdCnt

    def CopyIn(self):
        srcLocal = self.inQueueSrc.AllocTensor(self.T)
        self.k.DataCopy(srcLocal, self.srcGlobal, self.dataSize)
        self.inQueueSrc.EnQue(srcLocal)

    def Compute(self, threshold, n):
        k = self.k
        srcLocal = self.inQueueSrc.DeQue(self.T)
        dstLocal = self.outQueueDst.AllocTensor(self.T)
        k.DataCopy(dstLocal, self.dstGlobal, self.dataSize)  # the caller's tail (module docstring)
        bits = self.bitsBuf.Get(aj.uint8)
        # SPEC: CompareScalar.md: calCount elements must fill whole 256-byte repeats, hence the
        # compare runs over dataSize (or one repeat per chunk) and n only limits the gather.
        if self.config == 1:
            # SPEC: GatherMask.md 配置方式一: one repeat of mask = n elements consumes n pattern bits
            k.CompareScalar(bits, srcLocal, threshold, aj.CMPMODE.GT, self.dataSize)
            params = aj.GatherMaskParams(1, 1, 8, 0)
        else:
            # SPEC: GatherMask.md 配置方式二: repeats of 256 bytes; src1RepeatStride (in 32-byte
            # blocks) moves the pattern start of each repeat, so each chunk's bits get a 32-byte slot
            for i in range(self.dataSize // self.lanes):
                k.CompareScalar(bits[32 * i], srcLocal[self.lanes * i], threshold, aj.CMPMODE.GT, self.lanes)
            params = aj.GatherMaskParams(1, 1, 8, 1)
        rsvdCnt = k.GatherMask(
            dstLocal, srcLocal, bits.ReinterpretCast(self.U), True, n, params, max_mask=self.dataSize
        )
        self.outQueueDst.EnQue(dstLocal)
        self.inQueueSrc.FreeTensor(srcLocal)
        return rsvdCnt

    def CopyOut(self):
        dstLocal = self.outQueueDst.DeQue(self.T)
        self.k.DataCopy(self.dstGlobal, dstLocal, self.dataSize)
        self.outQueueDst.FreeTensor(dstLocal)


def compact_kernel(k, srcGm, dstGm, threshold=0.0, n=None, *, dtype=aj.float32, dataSize=512):
    """Returns rsvdCnt (the number of kept elements, in dst[0:rsvdCnt])."""
    op = KernelCompact(k, dtype, dataSize)
    op.Init(srcGm, dstGm)
    return op.Process(threshold, dataSize if n is None else n)


def kernel(dtype="float32", dataSize=512):
    return functools.partial(compact_kernel, dtype=dtype, dataSize=dataSize)


def requirements(dtype="float32"):
    return [("CompareScalar", dtype, {"cmp_mode": "GT"}), ("GatherMask", dtype, {})]


# -- gen_data / golden -----------------------------------------------------------------------------


def gen_data(rng, batch, dtype="float32", dataSize=512):
    npd = aj.as_dtype(dtype).np_dtype
    inputs = {
        "src": G.random_values(rng, npd, (batch, dataSize)),
        "dst": G.random_values(rng, npd, (batch, dataSize)),
    }
    params = {
        "threshold": G.random_scalars(rng, npd, batch),
        "n": rng.integers(1, dataSize + 1, batch).astype(np.int32),
    }
    return inputs, params


def golden(inputs, params, profile, dtype="float32"):
    x, dst = inputs["src"], G.bits(inputs["dst"]).copy()
    g = np.arange(x.shape[1])
    keep = G.compare(x, params["threshold"][:, None], "GT", profile.float_subnormals)
    keep &= g[None, :] < params["n"][:, None]
    cnt = keep.sum(axis=1)
    xb = G.bits(x)
    for c in range(x.shape[0]):
        dst[c, : cnt[c]] = xb[c, keep[c]]
    return dst, cnt


def gen_case(rng, batch, profile, dtype="float32"):
    inputs, params = gen_data(rng, batch, dtype)
    dst, cnt = golden(inputs, params, profile, dtype)
    return [inputs["src"], inputs["dst"]], params, {"gm": {1: dst}, "out": cnt}
