"""gather_mask_builtin: the GatherMask page's built-in-pattern ``KernelGatherMask`` (seed 002).

C++ shape: Init (queues: src0 and dst, 128 x uint16 in the seed), CopyIn (DataCopy src0), Compute
(``GatherMask(dst, src0, src1Pattern, false, 0, {1, 1, 0, 0}, rsvdCnt)`` with the uint8 built-in
pattern 2), CopyOut; the kernel returns rsvdCnt. Here the buffers hold 1 KB (room for strides),
``reduceMode`` and T are compile-time, and the pattern number, ``mask`` and the GatherMaskParams
fields are traced keywords.

Deviation, stated: dst is copied in from GM first (the elements after the kept ones keep the
caller's values).

Golden: the page's patterns (1: even elements, 2: odd, 3..6: the 1st..4th of every four, 7: all;
the same bits for every repeat) and the processed-element rule of gather_mask_user.
"""

import functools

import numpy as np

import ascend_jax as aj

from . import _golden as G
from .gather_mask_user import processed

APIS = ("GatherMask",)
CONFIGS = [
    {"reduceMode": False, "dtype": "uint16"},
    {"reduceMode": True, "dtype": "uint16"},
    {"reduceMode": False, "dtype": "float32"},
    {"reduceMode": True, "dtype": "int32"},
]
FAST = (0, 1)


class KernelGatherMask:
    def __init__(self, k, dtype, reduceMode, maxMask=96, maxRepeat=2):
        self.k = k
        self.T = aj.as_dtype(dtype)
        self.reduceMode = reduceMode
        self.dataSize = 1024 // self.T.itemsize
        self.maxMask, self.maxRepeat = maxMask, maxRepeat

    def Init(self, src0Gm, dstGm):
        self.src0Global, self.dstGlobal = src0Gm, dstGm
        self.pipe = aj.TPipe(self.k)
        self.inQueueSrc0 = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
        self.pipe.InitBuffer(self.inQueueSrc0, 1, self.dataSize * self.T.itemsize)
        self.pipe.InitBuffer(self.outQueueDst, 1, self.dataSize * self.T.itemsize)

    def Process(self, src1Pattern, mask, params):
        self.CopyIn()
        rsvdCnt = self.Compute(src1Pattern, mask, params)
        self.CopyOut()
        return rsvdCnt

    def CopyIn(self):
        src0Local = self.inQueueSrc0.AllocTensor(self.T)
        self.k.DataCopy(src0Local, self.src0Global, self.dataSize)
        self.inQueueSrc0.EnQue(src0Local)

    def Compute(self, src1Pattern, mask, params):
        k = self.k
        src0Local = self.inQueueSrc0.DeQue(self.T)
        dstLocal = self.outQueueDst.AllocTensor(self.T)
        k.DataCopy(dstLocal, self.dstGlobal, self.dataSize)  # the caller's tail (module docstring)
        rsvdCnt = k.GatherMask(
            dstLocal,
            src0Local,
            src1Pattern,
            self.reduceMode,
            mask,
            aj.GatherMaskParams(*params),
            max_repeats=self.maxRepeat,
            max_mask=self.maxMask,
        )
        self.outQueueDst.EnQue(dstLocal)
        self.inQueueSrc0.FreeTensor(src0Local)
        return rsvdCnt

    def CopyOut(self):
        dstLocal = self.outQueueDst.DeQue(self.T)
        self.k.DataCopy(self.dstGlobal, dstLocal, self.dataSize)
        self.outQueueDst.FreeTensor(dstLocal)


def gather_mask_builtin_kernel(
    k,
    src0Gm,
    dstGm,
    src1Pattern=2,
    mask=0,
    src0BlockStride=1,
    repeatTimes=1,
    src0RepeatStride=0,
    src1RepeatStride=0,
    *,
    dtype=aj.uint16,
    reduceMode=False,
):
    """``gather_mask_simple_kernel`` (built-in pattern); returns rsvdCnt. Defaults: the seed's call."""
    op = KernelGatherMask(k, dtype, reduceMode)
    op.Init(src0Gm, dstGm)
    return op.Process(src1Pattern, mask, (src0BlockStride, repeatTimes, src0RepeatStride, src1RepeatStride))


def kernel(reduceMode=False, dtype="uint16"):
    return functools.partial(gather_mask_builtin_kernel, dtype=dtype, reduceMode=reduceMode)


def requirements(reduceMode=False, dtype="uint16"):
    return [("GatherMask", dtype, {})]


# -- gen_data / golden -----------------------------------------------------------------------------


def pattern_bit(p, e):
    """Built-in pattern ``p`` (GatherMask page): is element ``e`` of a repeat selected?"""
    e = np.asarray(e)
    if p == 1:
        return e % 2 == 0
    if p == 2:
        return e % 2 == 1
    if 3 <= p <= 6:
        return e % 4 == p - 3
    if p == 7:
        return np.ones(e.shape, bool)
    raise ValueError(p)


def gen_data(rng, batch, reduceMode, profile, dtype="uint16"):
    npd = aj.as_dtype(dtype).np_dtype
    n = 1024 // np.dtype(npd).itemsize
    pats = np.array(profile.api("GatherMask").patterns, np.int32)
    inputs = {"src0": G.random_values(rng, npd, (batch, n)), "dst": G.random_values(rng, npd, (batch, n))}
    params = {
        "src1Pattern": pats[rng.integers(0, len(pats), batch)],
        "mask": (rng.integers(1, 97, batch) if reduceMode else np.zeros(batch, np.int64)).astype(np.int32),
        "src0BlockStride": rng.integers(1, 3, batch).astype(np.int32),
        "repeatTimes": rng.integers(1, 3, batch).astype(np.int32),
        "src0RepeatStride": rng.integers(0, 9, batch).astype(np.int32),
        # SPEC: GatherMask.md: built-in patterns "不支持配置src1RepeatStride" -- any value, ignored
        "src1RepeatStride": rng.integers(0, 3, batch).astype(np.int32),
    }
    return inputs, params


def golden(inputs, params, profile, reduceMode, dtype="uint16"):
    src0, dst = G.bits(inputs["src0"]), G.bits(inputs["dst"]).copy()
    size = src0.dtype.itemsize
    lanes, E = 256 // size, 32 // size
    cnt = np.zeros(src0.shape[0], np.int64)
    for c in range(src0.shape[0]):
        rs0, bs0 = int(params["src0RepeatStride"][c]), int(params["src0BlockStride"][c])
        pe = processed(params, profile, reduceMode, lanes, c)
        if not pe:
            continue
        r, e = np.array(pe).T
        idx = r * rs0 * E + (e // E) * bs0 * E + e % E
        keep = pattern_bit(int(params["src1Pattern"][c]), e)
        kept = src0[c, idx[keep]]
        dst[c, : kept.size] = kept
        cnt[c] = kept.size
    return dst, cnt


def gen_case(rng, batch, profile, reduceMode=False, dtype="uint16"):
    inputs, params = gen_data(rng, batch, reduceMode, profile, dtype)
    dst, cnt = golden(inputs, params, profile, reduceMode, dtype)
    return [inputs["src0"], inputs["dst"]], params, {"gm": {1: dst}, "out": cnt}
