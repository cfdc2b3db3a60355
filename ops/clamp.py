"""clamp: ``dst = Mins(Maxs(src, lo), hi)`` as a whole kernel.

Template: Init (TPipe, VECIN/VECOUT queues), CopyIn (DataCopy), Compute (``Maxs(dst, src, lo,
count)`` then ``Mins(dst, dst, hi, count)`` in place -- source and destination overlap 100 %, which
the pages allow), CopyOut. Compile-time: T, ``dataSize``; traced keywords: ``lo``, ``hi`` (T scalars)
and ``count``.

Deviation, stated: dst is copied in first, so elements past ``count`` keep the caller's values.

Golden: NumPy from the Maxs/Mins pages and docs/MODEL.md: NaN-propagating max/min with -0 < +0 on
subnormal-flushed inputs, each result then flushed, saturated (half, CTRL bit) or made the
canonical NaN; integers exactly. ``lo > hi`` is allowed (the result is ``hi``).
"""

import functools

import numpy as np

import ascend_jax as aj

from . import _golden as G

APIS = ("Maxs", "Mins")
DTYPES = ("float32", "half", "int16", "int32")
CONFIGS = [{"dtype": d} for d in DTYPES]
FAST = (0, 1, 2, 3)


class KernelClamp:
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

    def Process(self, lo, hi, count):
        self.CopyIn()
        self.Compute(lo, hi, count)
        self.CopyOut()

    def CopyIn(self):
        srcLocal = self.inQueueSrc.AllocTensor(self.T)
        self.k.DataCopy(srcLocal, self.srcGlobal, self.dataSize)
        self.inQueueSrc.EnQue(srcLocal)

    def Compute(self, lo, hi, count):
        k = self.k
        srcLocal = self.inQueueSrc.DeQue(self.T)
        dstLocal = self.outQueueDst.AllocTensor(self.T)
        k.DataCopy(dstLocal, self.dstGlobal, self.dataSize)  # the caller's values (module docstring)
        n = self.dataSize if count is None else count
        # SPEC: 通用说明和约束.md: src and dst may overlap 100 % (the in-place Mins below)
        k.Maxs(dstLocal, srcLocal, lo, n, max_repeats=self.maxRepeat)
        k.Mins(dstLocal, dstLocal, hi, n, max_repeats=self.maxRepeat)
        self.outQueueDst.EnQue(dstLocal)
        self.inQueueSrc.FreeTensor(srcLocal)

    def CopyOut(self):
        dstLocal = self.outQueueDst.DeQue(self.T)
        self.k.DataCopy(self.dstGlobal, dstLocal, self.dataSize)
        self.outQueueDst.FreeTensor(dstLocal)


def clamp_kernel(k, srcGm, dstGm, lo=0, hi=1, count=None, *, dtype=aj.float32, dataSize=512):
    op = KernelClamp(k, dtype, dataSize)
    op.Init(srcGm, dstGm)
    op.Process(lo, hi, count)


def kernel(dtype="float32", dataSize=512):
    return functools.partial(clamp_kernel, dtype=dtype, dataSize=dataSize)


def requirements(dtype="float32"):
    return [("Maxs", dtype, {}), ("Mins", dtype, {})]


# -- gen_data / golden -----------------------------------------------------------------------------


def gen_data(rng, batch, dtype="float32", dataSize=512):
    npd = aj.as_dtype(dtype).np_dtype
    inputs = {
        "src": G.random_values(rng, npd, (batch, dataSize)),
        "dst": G.random_values(rng, npd, (batch, dataSize)),
    }
    a = G.random_scalars(rng, npd, batch)
    b = G.random_scalars(rng, npd, batch)
    with np.errstate(invalid="ignore"):
        swap = (rng.random(batch) < 0.9) & (a > b)  # mostly lo <= hi, a few lo > hi
    lo, hi = np.where(swap, b, a).astype(npd), np.where(swap, a, b).astype(npd)
    params = {"lo": lo, "hi": hi, "count": rng.integers(1, dataSize + 1, batch).astype(np.int32)}
    return inputs, params


def clamp_values(x, lo, hi, profile):
    """Elementwise ``Mins(Maxs(x, lo), hi)`` per docs/MODEL.md, as bit patterns."""
    dt = x.dtype
    if G.is_float(dt):
        fs = profile.float_subnormals
        m = G.float_epilogue(G.float_max(G.flush(x, fs), G.flush(np.asarray(lo, dt), fs)), profile).view(dt)
        return G.float_epilogue(G.float_min(G.flush(m, fs), G.flush(np.asarray(hi, dt), fs)), profile)
    return G.bits(np.minimum(np.maximum(x, lo), hi).astype(dt))


def golden(inputs, params, profile, dtype="float32"):
    x = inputs["src"]
    res = clamp_values(x, params["lo"][:, None], params["hi"][:, None], profile)
    g = np.arange(x.shape[1])
    active = g[None, :] < params["count"][:, None]
    return np.where(active, res, G.bits(inputs["dst"]))


def gen_case(rng, batch, profile, dtype="float32"):
    inputs, params = gen_data(rng, batch, dtype)
    return [inputs["src"], inputs["dst"]], params, {"gm": {1: golden(inputs, params, profile, dtype)}}
