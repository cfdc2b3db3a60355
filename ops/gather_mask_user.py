"""gather_mask_user: the GatherMask page's user-pattern ``KernelGatherMask`` (seed 002) ported.

C++ shape: Init (queues: src0 256 x T, the pattern 32 x U, dst 256 x T), CopyIn (DataCopy src0 and
the pattern), Compute (``GatherMask(dst, src0, src1Pattern, reduceMode, mask, {src0BlockStride,
repeatTimes, src0RepeatStride, src1RepeatStride}, rsvdCnt)``), CopyOut; the kernel returns rsvdCnt.
The seed's call is ``(true, 70, {1, 2, 4, 0})`` on uint32; here ``reduceMode`` is compile-time and
``mask`` and the four GatherMaskParams fields are traced keywords (bounded by ``max_mask`` /
``max_repeats`` so one compile serves a batch).

Deviation, stated: dst is copied in from GM first, so the elements after the kept ones hold the
caller's values (the page calls them undefined; the model leaves them untouched).

Golden: NumPy from the page and docs/MODEL.md "GatherMask": repeats ``r``, elements ``e`` (Normal:
``e < 256/sizeof(T)``; Counter configuration 1: ``e < mask`` per repeat; configuration 2: ``mask``
elements in total), element ``(r, e)`` at ``r*src0RepeatStride*E + (e//E)*src0BlockStride*E + e%E``
(``E`` elements per 32-byte block), pattern bit ``e`` of the bytes starting at
``r*src1RepeatStride*32``; kept elements packed in order into dst[0:rsvdCnt].
"""

import functools

import numpy as np

import ascend_jax as aj

from . import _golden as G

APIS = ("GatherMask",)
CONFIGS = [
    {"reduceMode": True, "dtype": "uint32"},
    {"reduceMode": False, "dtype": "uint32"},
    {"reduceMode": True, "dtype": "half"},
    {"reduceMode": False, "dtype": "float32"},
]
FAST = (0, 1)
PATTERN_OF = {
    "uint32": "uint32",
    "int32": "uint32",
    "float32": "uint32",
    "uint16": "uint16",
    "int16": "uint16",
    "half": "uint16",
}


class KernelGatherMask:
    def __init__(self, k, dtype, reduceMode, maxMask=96, maxRepeat=2):
        self.k = k
        self.T = aj.as_dtype(dtype)
        self.U = aj.as_dtype(PATTERN_OF[self.T.name])
        self.reduceMode = reduceMode
        # the seed's 256 x uint32 and 32 x uint32: 1 KB of data and 128 bytes of pattern for any T
        self.dataSize, self.patternSize = sizes(self.T.name)
        self.maxMask, self.maxRepeat = maxMask, maxRepeat

    def Init(self, src0Gm, src1Gm, dstGm):
        T, U = self.T, self.U
        self.src0Global, self.src1Global, self.dstGlobal = src0Gm, src1Gm, dstGm
        self.pipe = aj.TPipe(self.k)
        self.inQueueSrc0 = aj.TQue(aj.TPosition.VECIN, 1)
        self.inQueueSrc1 = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
        self.pipe.InitBuffer(self.inQueueSrc0, 1, self.dataSize * T.itemsize)
        self.pipe.InitBuffer(self.inQueueSrc1, 1, self.patternSize * U.itemsize)
        self.pipe.InitBuffer(self.outQueueDst, 1, self.dataSize * T.itemsize)

    def Process(self, mask, params):
        self.CopyIn()
        rsvdCnt = self.Compute(mask, params)
        self.CopyOut()
        return rsvdCnt

    def CopyIn(self):
        k = self.k
        src0Local = self.inQueueSrc0.AllocTensor(self.T)
        src1Local = self.inQueueSrc1.AllocTensor(self.U)
        k.DataCopy(src0Local, self.src0Global, self.dataSize)
        k.DataCopy(src1Local, self.src1Global, self.patternSize)
        self.inQueueSrc0.EnQue(src0Local)
        self.inQueueSrc1.EnQue(src1Local)

    def Compute(self, mask, params):
        k = self.k
        src0Local = self.inQueueSrc0.DeQue(self.T)
        src1Local = self.inQueueSrc1.DeQue(self.U)
        dstLocal = self.outQueueDst.AllocTensor(self.T)
        k.DataCopy(dstLocal, self.dstGlobal, self.dataSize)  # the caller's tail (module docstring)
        rsvdCnt = k.GatherMask(
            dstLocal,
            src0Local,
            src1Local,
            self.reduceMode,
            mask,
            aj.GatherMaskParams(*params),
            max_repeats=self.maxRepeat,
            max_mask=self.maxMask,
        )
        self.outQueueDst.EnQue(dstLocal)
        self.inQueueSrc0.FreeTensor(src0Local)
        self.inQueueSrc1.FreeTensor(src1Local)
        return rsvdCnt

    def CopyOut(self):
        dstLocal = self.outQueueDst.DeQue(self.T)
        self.k.DataCopy(self.dstGlobal, dstLocal, self.dataSize)
        self.outQueueDst.FreeTensor(dstLocal)


def gather_mask_user_kernel(
    k,
    src0Gm,
    src1Gm,
    dstGm,
    mask=70,
    src0BlockStride=1,
    repeatTimes=2,
    src0RepeatStride=4,
    src1RepeatStride=0,
    *,
    dtype=aj.uint32,
    reduceMode=True,
):
    """``gather_mask_simple_kernel`` (user pattern); returns rsvdCnt. Defaults: the seed's call."""
    op = KernelGatherMask(k, dtype, reduceMode)
    op.Init(src0Gm, src1Gm, dstGm)
    return op.Process(mask, (src0BlockStride, repeatTimes, src0RepeatStride, src1RepeatStride))


def kernel(reduceMode=True, dtype="uint32"):
    return functools.partial(gather_mask_user_kernel, dtype=dtype, reduceMode=reduceMode)


def requirements(reduceMode=True, dtype="uint32"):
    return [("GatherMask", dtype, {"pattern_dtypes": PATTERN_OF[dtype]})]


# -- gen_data / golden -----------------------------------------------------------------------------


def sizes(dtype):
    """(dataSize, patternSize) in elements: 1 KB of T, 128 bytes of the pattern type."""
    return 1024 // aj.as_dtype(dtype).itemsize, 128 // aj.as_dtype(
        PATTERN_OF[aj.as_dtype(dtype).name]
    ).itemsize


def gen_data(rng, batch, reduceMode, dtype="uint32"):
    """Random data, patterns and parameters inside the buffers: Normal: repeatTimes 1..2, block
    stride 1..2, repeat stride 0..8; Counter: mask 1..96 (per repeat or in total)."""
    npd = aj.as_dtype(dtype).np_dtype
    upd = aj.as_dtype(PATTERN_OF[dtype]).np_dtype
    dataSize, patternSize = sizes(dtype)
    inputs = {
        "src0": G.random_values(rng, npd, (batch, dataSize)),
        "src1": rng.integers(
            0, 1 << (8 * np.dtype(upd).itemsize), (batch, patternSize), dtype=np.uint64
        ).astype(upd),
        "dst": G.random_values(rng, npd, (batch, dataSize)),
    }
    dense = rng.random(batch) < 0.1  # some all-ones and all-zero patterns
    inputs["src1"][dense] = np.where(rng.random((int(dense.sum()), 1)) < 0.5, 0, np.iinfo(upd).max)
    params = {
        "mask": (rng.integers(1, 97, batch) if reduceMode else np.zeros(batch, np.int64)).astype(np.int32),
        "src0BlockStride": rng.integers(1, 3, batch).astype(np.int32),
        "repeatTimes": rng.integers(1, 3, batch).astype(np.int32),
        "src0RepeatStride": rng.integers(0, 9, batch).astype(np.int32),
        "src1RepeatStride": rng.integers(0, 3, batch).astype(np.int32),
    }
    return inputs, params


def processed(params, profile, reduceMode, lanes, case):
    """(r, e) pairs processed by one case, in program order (docs/MODEL.md "Processed elements")."""
    rep = int(params["repeatTimes"][case])
    mask = int(params["mask"][case])
    if not reduceMode:
        return [(r, e) for r in range(rep) for e in range(lanes)]
    if profile.api("GatherMask").counter_config == 1:
        # SPEC: GatherMask.md 配置方式一: every repeat processes mask elements, repeatTimes repeats.
        return [(r, e) for r in range(rep) for e in range(mask)]
    # SPEC: GatherMask.md 配置方式二: mask elements in total; repeatTimes does not apply.
    return [(r, e) for r in range(-(-mask // lanes)) for e in range(lanes) if r * lanes + e < mask]


def golden(inputs, params, profile, reduceMode, dtype="uint32"):
    """Expected (dst bit patterns (batch, dataSize), rsvdCnt (batch,))."""
    src0, dst = G.bits(inputs["src0"]), G.bits(inputs["dst"]).copy()
    pat = inputs["src1"].view(np.uint8)
    size = src0.dtype.itemsize
    lanes, E = 256 // size, 32 // size
    cnt = np.zeros(src0.shape[0], np.int64)
    for c in range(src0.shape[0]):
        rs0, bs0 = int(params["src0RepeatStride"][c]), int(params["src0BlockStride"][c])
        rs1 = int(params["src1RepeatStride"][c])
        pe = processed(params, profile, reduceMode, lanes, c)
        if not pe:
            continue
        r, e = np.array(pe).T
        idx = r * rs0 * E + (e // E) * bs0 * E + e % E
        byte = r * rs1 * 32 + e // 8
        keep = ((pat[c, byte] >> (e % 8)) & 1) == 1
        kept = src0[c, idx[keep]]
        dst[c, : kept.size] = kept
        cnt[c] = kept.size
    return dst, cnt


def gen_case(rng, batch, profile, reduceMode=True, dtype="uint32"):
    inputs, params = gen_data(rng, batch, reduceMode, dtype)
    dst, cnt = golden(inputs, params, profile, reduceMode, dtype)
    return [inputs["src0"], inputs["src1"], inputs["dst"]], params, {"gm": {2: dst}, "out": cnt}
