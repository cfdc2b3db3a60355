"""vendor_reduce_repeat: the vendor sample ``reduce_repeat`` (``reduce_repeat_custom``), ported line by
line.

C++ shape (vendor-samples/reduce_repeat/reduce_repeat.asc): T = float for scenarios 3, 4, else half;
MASK = 256 / sizeof(T); TPipe with one VECIN and one VECOUT queue; DataCopyPad GM -> UB of srcRow rows
of srcCol elements (rows padded to 32 bytes); then scenario 1 ``ReduceRepeat<MAX>(dst, src, MASK,
repeat, 1, 1, 8, ORDER_ONLY_VALUE)`` (half 1024 -> 8), 2 ``ReduceRepeat<MIN>(..., MASK, repeat, 1, 1,
8)`` (half 1024 -> 16: value, index), 3 ``ReduceRepeat<SUM>(..., MASK, repeat, 1, 1, 8)`` (float 2048
-> 32), 4 ``ReduceRepeat<SUM>(dst, src, srcCol, srcRow, 1, 1, srcStride)`` (float 13 x 57 -> 13, one
repeat per padded row); DataCopyPad UB -> GM. The final PipeBarrier<PIPE_ALL> is kept
(the queues imply MTE2_V / V_MTE3).
"""

import ascend_jax as aj

SAMPLE = "reduce_repeat"
SCENARIOS = {
    1: "ReduceRepeat<MAX, half>, ORDER_ONLY_VALUE, 8 repeats",
    2: "ReduceRepeat<MIN, half>, value and index, 8 repeats",
    3: "ReduceRepeat<SUM, float>, 32 repeats",
    4: "ReduceRepeat<SUM, float>, 13 rows of 57 (continuous mask 57, srcRepStride 8)",
}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b", 2: "ascend910b", 3: "ascend910b", 4: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
BYTE_ALIGN = 32


def _config(scenarioNum):
    isFloat = scenarioNum in (3, 4)
    srcTotalLength = 2048 if scenarioNum == 3 else (13 * 57 if scenarioNum == 4 else 1024)
    srcRow = 13 if scenarioNum == 4 else 1
    srcCol = 57 if scenarioNum == 4 else srcTotalLength
    dstTotalLength = {1: 8, 2: 16, 3: 2048 // 64, 4: srcRow}[scenarioNum]
    return isFloat, srcTotalLength, srcRow, srcCol, dstTotalLength


def kernel_of(scenarioNum):
    isFloat, srcTotalLength, srcRow, srcCol, dstTotalLength = _config(scenarioNum)
    T = aj.float32 if isFloat else aj.half
    MASK = 64 if isFloat else 128
    COL_ALIGN_BYTES = ((srcCol * T.itemsize + BYTE_ALIGN - 1) // BYTE_ALIGN) * BYTE_ALIGN
    SRC_BUFFER_LENGTH = srcRow * (COL_ALIGN_BYTES // T.itemsize)

    def reduce_repeat_custom(k, x, z):
        repeat = srcTotalLength // MASK
        pipe = aj.TPipe(k)
        inQueueSrc = aj.TQue(aj.TPosition.VECIN, 1)
        outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
        srcGlobal, dstGlobal = x, z
        pipe.InitBuffer(inQueueSrc, 1, SRC_BUFFER_LENGTH * T.itemsize)
        pipe.InitBuffer(outQueueDst, 1, dstTotalLength * T.itemsize)

        srcLocalIn = inQueueSrc.AllocTensor(T)
        colBytes = srcCol * T.itemsize
        copyParamsIn = aj.DataCopyExtParams(srcRow, colBytes, 0, 0, 0)
        rpad = (COL_ALIGN_BYTES - colBytes) // T.itemsize
        padParams = aj.DataCopyPadExtParams(False, 0, rpad, 0)
        k.DataCopyPad(srcLocalIn, srcGlobal, copyParamsIn, padParams)
        inQueueSrc.EnQue(srcLocalIn)

        srcLocal = inQueueSrc.DeQue(T)
        dstLocal = outQueueDst.AllocTensor(T)
        if scenarioNum == 1:
            k.ReduceRepeat(
                dstLocal, srcLocal, MASK, repeat, 1, 1, 8, aj.ReduceOrder.ORDER_ONLY_VALUE,
                reduceType=aj.ReduceType.MAX,
            )  # fmt: skip
        elif scenarioNum == 2:
            k.ReduceRepeat(dstLocal, srcLocal, MASK, repeat, 1, 1, 8, reduceType=aj.ReduceType.MIN)
        elif scenarioNum == 3:
            k.ReduceRepeat(dstLocal, srcLocal, MASK, repeat, 1, 1, 8, reduceType=aj.ReduceType.SUM)
        else:
            srcStride = COL_ALIGN_BYTES // BYTE_ALIGN
            k.ReduceRepeat(dstLocal, srcLocal, srcCol, srcRow, 1, 1, srcStride, reduceType=aj.ReduceType.SUM)
        outQueueDst.EnQue(dstLocal)
        inQueueSrc.FreeTensor(srcLocal)

        dstLocalOut = outQueueDst.DeQue(T)
        outBytes = dstTotalLength * T.itemsize
        copyParamsOut = aj.DataCopyExtParams(1, outBytes, 0, 0, 0)
        k.DataCopyPad(dstGlobal, dstLocalOut, copyParamsOut)
        outQueueDst.FreeTensor(dstLocalOut)
        k.PipeBarrier(aj.pipe_t.PIPE_ALL)

    return reduce_repeat_custom, T


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_reduce_repeat``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_reduce_repeat: scenario {n}; allowed: {sorted(SCENARIOS)}")
    fn, T = kernel_of(n)
    _, srcTotalLength, _, _, dstTotalLength = _config(n)
    return aj.byok.declare(
        fn,
        (
            aj.GmArg("x", T, srcTotalLength, "in", file="input_x.bin"),
            aj.GmArg("z", T, dstTotalLength, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
