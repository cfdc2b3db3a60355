"""select_sample: the Select page's ``KernelSelect`` (seed 000) ported line by line.

C++ shape: Init (GlobalTensors, TPipe, one TQue per operand), Process = CopyIn (DataCopy GM -> UB),
Compute (``AscendC::Select``), CopyOut (DataCopy UB -> GM). ``selMode`` is a compile-time choice
(``SELMODE`` 0, 1, 2), as is the call form: ``"count"`` (tensor前n个数据计算, the seed's call) or
``"highdim"`` (高维切分: mask, repeatTimes, BinaryRepeatParams{1, 1, 1, 8, 8, 8}).

Kernel parameters that vary per case are traced keywords (one compile serves a batch):
``scalar`` (mode 1: the T scalar), ``count`` (count form; default ``dataSize``), ``mask`` (high-dim
form: an int = continuous, or a uint32[2] word array = bitwise mask[0]) and ``repeatTimes``.

One deviation from the seed, stated: dst is copied in from GM before the Select, so the lanes a
call does not write (masked off, past ``count`` or past ``repeatTimes``) hold the caller's values,
as the page's example with "dst原始值" describes; the seed never reads them.

Golden (``golden``): plain NumPy from the Select page: bit 1 picks src0, 0 picks src1 (or the
scalar); mode 0 uses the first 256/sizeof(T) selMask bits in every repeat, modes 1/2 consume the
bits continuously; masked-off lanes keep dst; a bit copy (no flushing, NaN payloads kept).
"""

import functools

import numpy as np

import ascend_jax as aj

from . import _golden as G

APIS = ("Select",)
# compile-time configurations the tests run (the first ones are the seed's)
CONFIGS = [{"selMode": m, "form": f, "dtype": "float32"} for m in (0, 1, 2) for f in ("count", "highdim")] + [
    {"selMode": m, "form": "highdim", "dtype": "half"} for m in (0, 1, 2)
]
GM = ("src0", "src1", "sel", "dst")
FAST = (0, 1, 2, 3, 4, 5)  # CONFIGS the fast tests run on the default profile (the rest: nightly)


class KernelSelect:
    def __init__(self, k, selMode, form="count", dtype=aj.float32, dataSize=256):
        self.k = k
        self.selMode = int(selMode)
        self.form = form
        self.T = aj.as_dtype(dtype)
        self.dataSize = dataSize
        self.maxRepeat = -(-dataSize * self.T.itemsize // 256)  # static bound for traced counts
        self.oneSelectDataSize = 256 // self.T.itemsize
        # SPEC: seed 000 KernelSelect: mode 0 keeps 32 selMask bytes per repeat (only the first
        # 256/sizeof(T) bits are used); modes 1 and 2 consume dataSize bits (dataSize / 8 bytes).
        if self.selMode == aj.SELMODE.VSEL_CMPMASK_SPR:
            self.selDataSize = dataSize // self.oneSelectDataSize * 32
        else:
            self.selDataSize = dataSize // 8

    def Init(self, src0Gm, src1Gm, selGm, dstGm):
        k, T = self.k, self.T
        self.src0Global, self.src1Global, self.selMaskGlobal, self.dstGlobal = src0Gm, src1Gm, selGm, dstGm
        self.pipe = aj.TPipe(k)
        self.inQueueSrc0 = aj.TQue(aj.TPosition.VECIN, 1)
        self.inQueueSrc1 = aj.TQue(aj.TPosition.VECIN, 1)
        self.inQueueSelMask = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
        self.pipe.InitBuffer(self.inQueueSrc0, 1, self.dataSize * T.itemsize)
        self.pipe.InitBuffer(self.inQueueSrc1, 1, self.dataSize * T.itemsize)
        self.pipe.InitBuffer(self.inQueueSelMask, 1, self.selDataSize)
        self.pipe.InitBuffer(self.outQueueDst, 1, self.dataSize * T.itemsize)

    def Process(self, scalar=None, count=None, mask=None, repeatTimes=None):
        self.CopyIn()
        self.Compute(scalar, count, mask, repeatTimes)
        self.CopyOut()

    def CopyIn(self):
        k, T = self.k, self.T
        src0Local = self.inQueueSrc0.AllocTensor(T)
        src1Local = self.inQueueSrc1.AllocTensor(T)
        selMaskLocal = self.inQueueSelMask.AllocTensor(aj.uint8)
        k.DataCopy(src0Local, self.src0Global, self.dataSize)
        k.DataCopy(src1Local, self.src1Global, self.dataSize)
        k.DataCopy(selMaskLocal, self.selMaskGlobal, self.selDataSize)
        self.inQueueSrc0.EnQue(src0Local)
        self.inQueueSrc1.EnQue(src1Local)
        self.inQueueSelMask.EnQue(selMaskLocal)

    def Compute(self, scalar, count, mask, repeatTimes):
        k, T = self.k, self.T
        src0Local = self.inQueueSrc0.DeQue(T)
        src1Local = self.inQueueSrc1.DeQue(T)
        maskLocal = self.inQueueSelMask.DeQue(aj.uint8)
        dstLocal = self.outQueueDst.AllocTensor(T)
        k.DataCopy(dstLocal, self.dstGlobal, self.dataSize)  # dst原始值 (see the module docstring)
        if self.selMode == aj.SELMODE.VSEL_TENSOR_SCALAR_MODE:
            src1 = 0.0 if scalar is None else scalar  # the page's mode-1 sample: static_cast<float>(0)
        else:
            src1 = src1Local
        if self.form == "count":
            n = self.dataSize if count is None else count
            k.Select(dstLocal, maskLocal, src0Local, src1, self.selMode, n, max_repeats=self.maxRepeat)
        else:
            m = self.oneSelectDataSize if mask is None else mask
            rep = self.dataSize // self.oneSelectDataSize if repeatTimes is None else repeatTimes
            params = aj.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
            k.Select(
                dstLocal, maskLocal, src0Local, src1, self.selMode, m, rep, params, max_repeats=self.maxRepeat
            )
        self.outQueueDst.EnQue(dstLocal)
        self.inQueueSrc0.FreeTensor(src0Local)
        self.inQueueSrc1.FreeTensor(src1Local)
        self.inQueueSelMask.FreeTensor(maskLocal)

    def CopyOut(self):
        dstLocal = self.outQueueDst.DeQue(self.T)
        self.k.DataCopy(self.dstGlobal, dstLocal, self.dataSize)
        self.outQueueDst.FreeTensor(dstLocal)


def select_kernel(
    k,
    src0Gm,
    src1Gm,
    selGm,
    dstGm,
    scalar=None,
    count=None,
    mask=None,
    repeatTimes=None,
    *,
    selMode=0,
    form="count",
    dtype=aj.float32,
    dataSize=256,
):
    """``main_sel_demo``: one KernelSelect over the four GM buffers."""
    op = KernelSelect(k, selMode, form, dtype, dataSize)
    op.Init(src0Gm, src1Gm, selGm, dstGm)
    op.Process(scalar, count, mask, repeatTimes)


def kernel(selMode=0, form="count", dtype="float32", dataSize=256):
    """The kernel with its compile-time configuration bound (pass it to ``aj.jit_kernel``)."""
    return functools.partial(select_kernel, selMode=int(selMode), form=form, dtype=dtype, dataSize=dataSize)


def requirements(selMode=0, form="count", dtype="float32"):
    """(api, dtype, extra) the op needs; extra: the Select mode (``apis.Select.modes``)."""
    return [("Select", dtype, {"modes": int(selMode)})]


# -- gen_data / golden -----------------------------------------------------------------------------


def sel_bytes(selMode, dtype="float32", dataSize=256):
    lanes = 256 // aj.as_dtype(dtype).itemsize
    return dataSize // lanes * 32 if int(selMode) == 0 else dataSize // 8


def gen_data(rng, batch, selMode, form="count", dtype="float32", dataSize=256):
    """Random inputs (batch leading) and per-case kernel parameters."""
    npd = aj.as_dtype(dtype).np_dtype
    lanes = 256 // np.dtype(npd).itemsize
    inputs = {
        "src0": G.random_values(rng, npd, (batch, dataSize)),
        "src1": G.random_values(rng, npd, (batch, dataSize)),
        "sel": rng.integers(0, 256, (batch, sel_bytes(selMode, dtype, dataSize)), dtype=np.uint8),
        "dst": G.random_values(rng, npd, (batch, dataSize)),
    }
    params = {}
    if int(selMode) == 1:
        params["scalar"] = G.random_scalars(rng, npd, batch)
    if form == "count":
        params["count"] = rng.integers(1, dataSize + 1, batch).astype(np.int32)
    else:
        # bitwise mask[0] as two uint32 words (low first); never all zero; 16-bit T also uses mask[1]
        words = lanes // 32
        w = rng.integers(0, 1 << 32, (batch, words), dtype=np.uint64).astype(np.uint32)
        full = rng.random(batch) < 0.25
        w[full] = 0xFFFFFFFF
        w[:, 0] |= (w.sum(axis=1) == 0).astype(np.uint32)
        params["mask"] = w
        params["repeatTimes"] = rng.integers(1, dataSize // lanes + 1, batch).astype(np.int32)
    return inputs, params


def golden(inputs, params, selMode, form="count", dtype="float32", dataSize=256):
    """Expected dst bit patterns (batch, dataSize)."""
    npd = np.dtype(aj.as_dtype(dtype).np_dtype)
    lanes = 256 // npd.itemsize
    src0, src1, dst = (G.bits(inputs[n]) for n in ("src0", "src1", "dst"))
    batch = src0.shape[0]
    g = np.arange(dataSize)
    if int(selMode) == 0:
        selbit = G.unpack_bits(inputs["sel"], lanes)[:, g % lanes]
    else:
        selbit = G.unpack_bits(inputs["sel"], dataSize)
    if int(selMode) == 1:
        other = np.broadcast_to(G.bits(params["scalar"].astype(npd))[:, None], src0.shape)
    else:
        other = src1
    picked = np.where(selbit, src0, other)
    if form == "count":
        active = g[None, :] < params["count"][:, None]
    else:
        w = params["mask"].astype(np.uint64)
        lane_bits = np.zeros((batch, lanes), bool)
        for j in range(w.shape[1]):
            lane_bits[:, 32 * j : 32 * (j + 1)] = (
                (w[:, j : j + 1] >> np.arange(32, dtype=np.uint64)) & 1
            ) == 1
        active = lane_bits[:, g % lanes] & (g[None, :] // lanes < params["repeatTimes"][:, None])
    return np.where(active, picked, dst).astype(src0.dtype)


def gen_case(rng, batch, profile, selMode=0, form="count", dtype="float32"):
    """(GM arrays in kernel order, traced parameters, expected {"gm": {index: bits}})."""
    inputs, params = gen_data(rng, batch, selMode, form, dtype)
    exp = {"gm": {0: G.bits(inputs["src0"]), 3: golden(inputs, params, selMode, form, dtype)}}
    return [inputs[n] for n in GM], params, exp
