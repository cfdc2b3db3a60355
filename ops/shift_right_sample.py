"""shift_right_sample: the ShiftRight page's sample (seed 003) as a whole kernel.

The page shows the Compute lines only (``ShiftRight(dst, src, scalar, 512)`` on int16, and the
high-dim forms with ``mask``, ``repeatTimes``, ``{1, 1, 8, 8}`` and ``roundEn``) and refers to the
usual template; this is that template: Init (TPipe, VECIN/VECOUT queues), CopyIn (DataCopy),
Compute (ShiftRight), CopyOut. Compile-time: T, the form (``"count"`` / ``"highdim"``) and
``roundEn``; traced keywords: ``scalarValue``, ``count`` (count form), ``mask`` (continuous) and
``repeatTimes`` (high-dim form).

Deviation, stated: dst is copied in first so lanes the call does not write keep the caller's values.

Golden: NumPy from the page: unsigned T logical shift (0 once n >= bits), signed T arithmetic
(floor division by 2**n; 0 / -1 once n >= bits); roundEn adds bit n-1 of the source (signed T only).
"""

import functools

import numpy as np

import ascend_jax as aj

from . import _golden as G

APIS = ("ShiftRight",)
DTYPES = ("int16", "uint16", "int32", "uint32")
CONFIGS = [{"dtype": d, "form": "count", "roundEn": False} for d in DTYPES] + [
    {"dtype": d, "form": "highdim", "roundEn": r} for r in (True, False) for d in ("int16", "int32", "uint16")
]
FAST = (0, 3, 4, 5, 9)


class KernelShiftRight:
    def __init__(self, k, dtype, form, roundEn, dataSize=512):
        self.k = k
        self.T = aj.as_dtype(dtype)
        self.form, self.roundEn = form, roundEn
        self.dataSize = dataSize
        self.maxRepeat = -(-dataSize * self.T.itemsize // 256)  # static bound for traced counts

    def Init(self, srcGm, dstGm):
        self.srcGlobal, self.dstGlobal = srcGm, dstGm
        self.pipe = aj.TPipe(self.k)
        self.inQueueSrc = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
        self.pipe.InitBuffer(self.inQueueSrc, 1, self.dataSize * self.T.itemsize)
        self.pipe.InitBuffer(self.outQueueDst, 1, self.dataSize * self.T.itemsize)

    def Process(self, scalarValue, count, mask, repeatTimes):
        self.CopyIn()
        self.Compute(scalarValue, count, mask, repeatTimes)
        self.CopyOut()

    def CopyIn(self):
        srcLocal = self.inQueueSrc.AllocTensor(self.T)
        self.k.DataCopy(srcLocal, self.srcGlobal, self.dataSize)
        self.inQueueSrc.EnQue(srcLocal)

    def Compute(self, scalarValue, count, mask, repeatTimes):
        k = self.k
        srcLocal = self.inQueueSrc.DeQue(self.T)
        dstLocal = self.outQueueDst.AllocTensor(self.T)
        k.DataCopy(dstLocal, self.dstGlobal, self.dataSize)  # the caller's values (module docstring)
        if self.form == "count":
            n = self.dataSize if count is None else count
            k.ShiftRight(dstLocal, srcLocal, scalarValue, n, max_repeats=self.maxRepeat)
        else:
            lanes = 256 // self.T.itemsize
            m = lanes if mask is None else mask
            rep = self.dataSize // lanes if repeatTimes is None else repeatTimes
            params = aj.UnaryRepeatParams(1, 1, 8, 8)
            k.ShiftRight(
                dstLocal, srcLocal, scalarValue, m, rep, params, self.roundEn, max_repeats=self.maxRepeat
            )
        self.outQueueDst.EnQue(dstLocal)
        self.inQueueSrc.FreeTensor(srcLocal)

    def CopyOut(self):
        dstLocal = self.outQueueDst.DeQue(self.T)
        self.k.DataCopy(self.dstGlobal, dstLocal, self.dataSize)
        self.outQueueDst.FreeTensor(dstLocal)


def shift_right_kernel(
    k,
    srcGm,
    dstGm,
    scalarValue=2,
    count=None,
    mask=None,
    repeatTimes=None,
    *,
    dtype=aj.int16,
    form="count",
    roundEn=False,
    dataSize=512,
):
    op = KernelShiftRight(k, dtype, form, roundEn, dataSize)
    op.Init(srcGm, dstGm)
    op.Process(scalarValue, count, mask, repeatTimes)


def kernel(dtype="int16", form="count", roundEn=False, dataSize=512):
    return functools.partial(shift_right_kernel, dtype=dtype, form=form, roundEn=roundEn, dataSize=dataSize)


def requirements(dtype="int16", form="count", roundEn=False):
    extra = {"round_en": True} if roundEn else {}
    return [("ShiftRight", dtype, extra)]


# -- gen_data / golden -----------------------------------------------------------------------------


def max_shift(profile, dtype):
    """The largest amount the tests use: ``bits`` where the page's range [0, bits] applies; a few
    more where amounts above the width saturate (``apis.ShiftRight.shift_range``)."""
    b = 8 * aj.as_dtype(dtype).itemsize
    return b + 8 if profile.api("ShiftRight").shift_range == "saturating" else b


def gen_data(rng, batch, profile, dtype="int16", form="count", dataSize=512):
    npd = aj.as_dtype(dtype).np_dtype
    lanes = 256 // np.dtype(npd).itemsize
    inputs = {
        "src": G.random_values(rng, npd, (batch, dataSize)),
        "dst": G.random_values(rng, npd, (batch, dataSize)),
    }
    params = {"scalarValue": rng.integers(0, max_shift(profile, dtype) + 1, batch).astype(npd)}
    if form == "count":
        params["count"] = rng.integers(1, dataSize + 1, batch).astype(np.int32)
    else:
        params["mask"] = rng.integers(1, lanes + 1, batch).astype(np.int32)
        params["repeatTimes"] = rng.integers(1, dataSize // lanes + 1, batch).astype(np.int32)
    return inputs, params


def golden(inputs, params, dtype="int16", form="count", roundEn=False):
    npd = np.dtype(aj.as_dtype(dtype).np_dtype)
    B = 8 * npd.itemsize
    x = inputs["src"].astype(np.int64)
    n = params["scalarValue"].astype(np.int64)[:, None]
    sh = np.minimum(n, 63)
    res = x >> sh  # int64: arithmetic for signed T; unsigned values are non-negative (logical)
    if roundEn and np.issubdtype(npd, np.signedinteger):
        # SPEC: ShiftRight.md roundEn: add bit n-1 of the source ("第5位为1 ... 加1"); nothing for n = 0
        bit = (x >> np.maximum(np.minimum(n, B) - 1, 0)) & 1
        res = np.where(n >= 1, res + bit, x)
        res = np.where(n >= B, 0, res)
    res = res.astype(npd)
    g = np.arange(x.shape[1])
    if form == "count":
        active = g[None, :] < params["count"][:, None]
    else:
        lanes = 256 // npd.itemsize
        active = (g[None, :] % lanes < params["mask"][:, None]) & (
            g[None, :] // lanes < params["repeatTimes"][:, None]
        )
    return np.where(active, G.bits(res), G.bits(inputs["dst"]))


def gen_case(rng, batch, profile, dtype="int16", form="count", roundEn=False):
    inputs, params = gen_data(rng, batch, profile, dtype, form)
    return [inputs["src"], inputs["dst"]], params, {"gm": {1: golden(inputs, params, dtype, form, roundEn)}}
