"""muls_sample: the Muls page's sample (seed 004) as a whole kernel.

The page shows ``Muls(dst, src, scalar, 512)`` on int16 (and the high-dim forms); this is the usual
template around it: Init (TPipe, VECIN/VECOUT queues), CopyIn, Compute (Muls, count form), CopyOut.
Compile-time: T and ``dataSize``; traced keywords: ``scalarValue`` and ``count`` (<= dataSize).

Deviation, stated: dst is copied in first, so the elements past ``count`` keep the caller's values.

Golden: NumPy from the page and docs/MODEL.md "Numerics": integers wrap (or saturate where the
profile says so); floats are the exact product rounded once to T (NumPy's float32 / float16
multiply: a float16 product is exact in float32), then the profile's subnormal flush, saturation
(CTRL bit) and canonical NaN.
"""

import functools

import numpy as np

import ascend_jax as aj

from . import _golden as G

APIS = ("Muls",)
DTYPES = ("int16", "float32", "half", "int32")
CONFIGS = [{"dtype": d} for d in DTYPES]
FAST = (0, 1, 2, 3)


class KernelMuls:
    def __init__(self, k, dtype, dataSize=512):
        self.k = k
        self.T = aj.as_dtype(dtype)
        self.dataSize = dataSize
        self.maxRepeat = -(-dataSize * self.T.itemsize // 256)  # static bound for traced counts

    def Init(self, srcGm, dstGm):
        self.srcGlobal, self.dstGlobal = srcGm, dstGm
        self.pipe = aj.TPipe(self.k)
        self.inQueueSrc = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
        self.pipe.InitBuffer(self.inQueueSrc, 1, self.dataSize * self.T.itemsize)
        self.pipe.InitBuffer(self.outQueueDst, 1, self.dataSize * self.T.itemsize)

    def Process(self, scalarValue, count):
        self.CopyIn()
        self.Compute(scalarValue, count)
        self.CopyOut()

    def CopyIn(self):
        srcLocal = self.inQueueSrc.AllocTensor(self.T)
        self.k.DataCopy(srcLocal, self.srcGlobal, self.dataSize)
        self.inQueueSrc.EnQue(srcLocal)

    def Compute(self, scalarValue, count):
        k = self.k
        srcLocal = self.inQueueSrc.DeQue(self.T)
        dstLocal = self.outQueueDst.AllocTensor(self.T)
        k.DataCopy(dstLocal, self.dstGlobal, self.dataSize)  # the caller's values (module docstring)
        n = self.dataSize if count is None else count
        k.Muls(dstLocal, srcLocal, scalarValue, n, max_repeats=self.maxRepeat)
        self.outQueueDst.EnQue(dstLocal)
        self.inQueueSrc.FreeTensor(srcLocal)

    def CopyOut(self):
        dstLocal = self.outQueueDst.DeQue(self.T)
        self.k.DataCopy(self.dstGlobal, dstLocal, self.dataSize)
        self.outQueueDst.FreeTensor(dstLocal)


def muls_kernel(k, srcGm, dstGm, scalarValue=2, count=None, *, dtype=aj.int16, dataSize=512):
    op = KernelMuls(k, dtype, dataSize)
    op.Init(srcGm, dstGm)
    op.Process(scalarValue, count)


def kernel(dtype="int16", dataSize=512):
    return functools.partial(muls_kernel, dtype=dtype, dataSize=dataSize)


def requirements(dtype="int16"):
    return [("Muls", dtype, {})]


# -- gen_data / golden -----------------------------------------------------------------------------


def gen_data(rng, batch, dtype="int16", dataSize=512):
    npd = aj.as_dtype(dtype).np_dtype
    inputs = {
        "src": G.random_values(rng, npd, (batch, dataSize)),
        "dst": G.random_values(rng, npd, (batch, dataSize)),
    }
    params = {
        "scalarValue": G.random_scalars(rng, npd, batch),
        "count": rng.integers(1, dataSize + 1, batch).astype(np.int32),
    }
    return inputs, params


def muls_values(x, s, profile):
    """Elementwise ``x * s`` per docs/MODEL.md, as bit patterns."""
    dt = x.dtype
    if G.is_float(dt):
        xf = G.flush(x, profile.float_subnormals)
        sf = G.flush(np.asarray(s, dt), profile.float_subnormals)
        with np.errstate(all="ignore"):
            prod = (xf * sf).astype(dt)
        return G.float_epilogue(prod, profile)
    exact = x.astype(object) * np.asarray(s).astype(object)
    return G.bits(G.int_result(exact, dt, profile))


def golden(inputs, params, profile, dtype="int16"):
    x = inputs["src"]
    s = params["scalarValue"][:, None]
    res = muls_values(x, s, profile)
    g = np.arange(x.shape[1])
    active = g[None, :] < params["count"][:, None]
    return np.where(active, res, G.bits(inputs["dst"]))


def gen_case(rng, batch, profile, dtype="int16"):
    inputs, params = gen_data(rng, batch, dtype)
    return [inputs["src"], inputs["dst"]], params, {"gm": {1: golden(inputs, params, profile, dtype)}}
