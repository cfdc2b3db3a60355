"""vendor_reduce: the vendor sample ``reduce`` (``reduce_custom`` with ``KernelReduce<float>``), ported
line by line.

C++ shape (vendor-samples/reduce/reduce.asc): the host passes the tiling {totalLength = 4096, outLength
= 32}; TPipe with a VECIN queue (x) and a VECOUT queue (z); CopyIn DataCopy; the compute variant the
tiling selects by ``totalLength * sizeof(float)``: <= 256 B ``ReduceRepeat<SUM>`` of one repeat
(Compute1); <= 2 KB Counter mode ``ReduceDataBlock<SUM, isSetMask=false>`` then ``ReduceRepeat<SUM>``
(Compute2); <= 16 KB Counter mode two ``ReduceRepeat<SUM, isSetMask=false>`` passes through a TBuf
(Compute3: the host's 4096 floats); CopyOut DataCopy of 32 floats. Compute4 / Compute5 (totalLength
10000 / 20000, cycle-count comparisons of hand-written loops) are unreachable with the host's
tiling and not ported. The sample's PipeBarrier<PIPE_V> calls are kept (the
queues imply MTE2_V / V_MTE3). The vendor folder has
gen_data.py (2048 ones) but no verify_result.py; the test compares with its golden (the sum).
"""

import ascend_jax as aj

SAMPLE = "reduce"
SCENARIOS = {1: "host tiling {4096, 32}: two Counter-mode ReduceRepeat<SUM> passes (Compute3)"}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
TOTAL_LENGTH = 4096  # ReduceCustomTilingData tiling = {4096, 32}
OUT_LENGTH = 32
DEFAULT_BLK_STRIDE = 1
DEFAULT_REP_STRIDE = 8
REP_LEN = 256
BLK_LEN = 32


class KernelReduce:
    def __init__(self, k, T=aj.float32):
        self.k, self.T = k, T

    def Init(self, x, z, totalLength, outLength, pipe):
        self.pipe = pipe
        self.totalLength, self.outLength = totalLength, outLength
        self.xGm, self.zGm = x, z
        self.inQueueX = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueueZ = aj.TQue(aj.TPosition.VECOUT, 1)
        self.calcBuf = aj.TBuf(aj.TPosition.VECCALC)
        pipe.InitBuffer(self.inQueueX, 1, totalLength * self.T.itemsize)
        pipe.InitBuffer(self.outQueueZ, 1, outLength * self.T.itemsize)

    def Process(self):
        self.CopyIn()
        nbytes = self.totalLength * aj.float32.itemsize
        if nbytes <= 256:
            self.Compute1()
        elif nbytes <= 2048:
            self.Compute2()
        elif nbytes <= 16384:
            self.Compute3()
        else:
            raise aj.NotModelledError("vendor_reduce: Compute4 / Compute5 are not ported")
        self.CopyOut()

    def CopyIn(self):
        xLocal = self.inQueueX.AllocTensor(self.T)
        self.k.DataCopy(xLocal, self.xGm, self.totalLength)
        self.inQueueX.EnQue(xLocal)

    def Compute1(self):
        k, T = self.k, self.T
        xLocal = self.inQueueX.DeQue(T)
        zLocal = self.outQueueZ.AllocTensor(T)
        k.Duplicate(zLocal, 0.0, self.outLength)
        maskLen = REP_LEN // T.itemsize
        k.ReduceRepeat(
            zLocal, xLocal, maskLen, 1, DEFAULT_BLK_STRIDE, DEFAULT_BLK_STRIDE, DEFAULT_REP_STRIDE,
            reduceType=aj.ReduceType.SUM,
        )  # fmt: skip
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)

    def Compute2(self):
        k, T = self.k, self.T
        xLocal = self.inQueueX.DeQue(T)
        zLocal = self.outQueueZ.AllocTensor(T)
        k.Duplicate(zLocal, 0.0, self.outLength)
        self.pipe.InitBuffer(self.calcBuf, self.totalLength * T.itemsize)
        tempTensor1 = self.calcBuf.Get(T)
        c0Count = BLK_LEN // T.itemsize
        blockNum0 = (self.totalLength + c0Count - 1) // c0Count
        k.SetMaskCount()
        k.SetVectorMask(T, 0, self.totalLength)
        k.ReduceDataBlock(
            tempTensor1, xLocal, aj.MASK_PLACEHOLDER, 1, DEFAULT_BLK_STRIDE, DEFAULT_BLK_STRIDE,
            DEFAULT_REP_STRIDE, reduceType=aj.ReduceType.SUM, isSetMask=False,
        )  # fmt: skip
        k.PipeBarrier(aj.pipe_t.PIPE_V)
        k.SetVectorMask(T, 0, blockNum0)
        k.ReduceRepeat(
            zLocal, tempTensor1, aj.MASK_PLACEHOLDER, 1, DEFAULT_BLK_STRIDE, DEFAULT_BLK_STRIDE,
            DEFAULT_REP_STRIDE, reduceType=aj.ReduceType.SUM, isSetMask=False,
        )  # fmt: skip
        k.PipeBarrier(aj.pipe_t.PIPE_V)
        k.SetMaskNorm()
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)

    def Compute3(self):
        k, T = self.k, self.T
        xLocal = self.inQueueX.DeQue(T)
        zLocal = self.outQueueZ.AllocTensor(T)
        k.Duplicate(zLocal, 0.0, self.outLength)
        self.pipe.InitBuffer(self.calcBuf, self.totalLength * T.itemsize)
        tempTensor1 = self.calcBuf.Get(T)
        repeatNum = (self.totalLength * T.itemsize + REP_LEN - 1) // REP_LEN
        k.SetMaskCount()
        k.SetVectorMask(T, 0, self.totalLength)
        k.ReduceRepeat(
            tempTensor1, xLocal, aj.MASK_PLACEHOLDER, 1, DEFAULT_BLK_STRIDE, DEFAULT_BLK_STRIDE,
            DEFAULT_REP_STRIDE, reduceType=aj.ReduceType.SUM, isSetMask=False,
        )  # fmt: skip
        k.PipeBarrier(aj.pipe_t.PIPE_V)
        k.SetVectorMask(T, 0, repeatNum)
        k.ReduceRepeat(
            zLocal, tempTensor1, aj.MASK_PLACEHOLDER, 1, DEFAULT_BLK_STRIDE, DEFAULT_BLK_STRIDE,
            DEFAULT_REP_STRIDE, reduceType=aj.ReduceType.SUM, isSetMask=False,
        )  # fmt: skip
        k.PipeBarrier(aj.pipe_t.PIPE_V)
        k.SetMaskNorm()
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self):
        zLocal = self.outQueueZ.DeQue(self.T)
        self.k.DataCopy(self.zGm, zLocal, self.outLength)
        self.outQueueZ.FreeTensor(zLocal)


def reduce_custom(k, x, z, totalLength=TOTAL_LENGTH, outLength=OUT_LENGTH):
    pipe = aj.TPipe(k)
    op = KernelReduce(k, aj.float32)
    op.Init(x, z, totalLength, outLength, pipe)
    op.Process()


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_reduce``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_reduce: scenario {n}; allowed: {sorted(SCENARIOS)}")
    return aj.byok.declare(
        reduce_custom,
        (
            aj.GmArg("x", aj.float32, TOTAL_LENGTH, "in", file="input_x.bin"),
            aj.GmArg("z", aj.float32, OUT_LENGTH, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
