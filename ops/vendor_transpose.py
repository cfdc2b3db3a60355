"""vendor_transpose: the vendor sample ``transpose`` (``transpose_custom``), ported line by line.

C++ shape (vendor-samples/transpose/transpose.asc): GlobalTensors x, z (half, INPUT_SIZE elements);
a TPipe with a VECIN queue (src), a VECOUT queue (dst) and, in scenario 2, a VECIN queue for the
2560-byte stack buffer; DataCopy GM -> UB, EnQue / DeQue, then per SCENARIO_NUM:

1. ``Transpose<half>(dst, src)``: one 16x16 matrix;
2. ``Transpose(dst, src, stackBuffer, {N=3, C=3, H=2, W=8, TRANSPOSE_NCHW2NHWC})``;
3. NCHW [2, 32, 16, 16] -> NC1HWC0: four ``TransDataTo5HD<half>`` calls (uint64 address lists from
   ``GetPhyAddr``), repeatTimes 16, dstRepStride 16, srcRepStride 1;

then DataCopy UB -> GM. The final PipeBarrier<PIPE_ALL> is kept (the
queues imply MTE2_V / V_MTE3).
"""

import ascend_jax as aj

SAMPLE = "transpose"
SCENARIOS = {
    1: "Transpose<half>(dst, src): 16x16",
    2: "Transpose(dst, src, tmp, {3, 3, 2, 8, TRANSPOSE_NCHW2NHWC}), half",
    3: "TransDataTo5HD<half> x4: NCHW [2,32,16,16] -> NC1HWC0",
}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b", 2: "ascend910b", 3: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
C0_SIZE = 16
# <INPUT_SIZE, N, C, H, W> of each scenario's launch
CONFIG = {1: (256, 1, 1, 16, 16), 2: (144, 3, 3, 2, 8), 3: (16384, 2, 32, 16, 16)}


def kernel(scenario_num):
    INPUT_SIZE, N, C, H, W = CONFIG[scenario_num]

    def transpose_custom(k, x, z):
        pipe = aj.TPipe(k)
        inQueueSrc = aj.TQue(aj.TPosition.VECIN, 1)
        outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
        tmpQueue = aj.TQue(aj.TPosition.VECIN, 1)
        srcGlobal, dstGlobal = x, z
        pipe.InitBuffer(inQueueSrc, 1, INPUT_SIZE * aj.half.itemsize)
        pipe.InitBuffer(outQueueDst, 1, INPUT_SIZE * aj.half.itemsize)
        if scenario_num == 2:
            tmpBufferSize = 1280
            pipe.InitBuffer(tmpQueue, 1, tmpBufferSize * aj.half.itemsize)

        srcLocalIn = inQueueSrc.AllocTensor(aj.half)
        k.DataCopy(srcLocalIn, srcGlobal, INPUT_SIZE)
        inQueueSrc.EnQue(srcLocalIn)

        srcLocal = inQueueSrc.DeQue(aj.half)
        dstLocal = outQueueDst.AllocTensor(aj.half)
        if scenario_num == 1:
            k.Transpose(dstLocal, srcLocal)
        elif scenario_num == 2:
            stackBuffer = tmpQueue.AllocTensor(aj.uint8)
            transposeParams = aj.TransposeParamsExt(
                nSize=N, cSize=C, hSize=H, wSize=W, transposeType=aj.TransposeType.TRANSPOSE_NCHW2NHWC
            )
            k.Transpose(dstLocal, srcLocal, stackBuffer, transposeParams)
            tmpQueue.FreeTensor(stackBuffer)
        else:
            transDataParams = aj.TransDataTo5HDParams(
                dstHighHalf=False, srcHighHalf=False, repeatTimes=16, dstRepStride=16, srcRepStride=1
            )
            for j in range(4):
                dstLocalList = [dstLocal[j * C0_SIZE * H * W + W * i].GetPhyAddr() for i in range(16)]
                srcLocalList = [srcLocal[j * C0_SIZE * H * W + H * W * i].GetPhyAddr() for i in range(16)]
                k.TransDataTo5HD(dstLocalList, srcLocalList, transDataParams, T=aj.half)
        outQueueDst.EnQue(dstLocal)
        inQueueSrc.FreeTensor(srcLocal)

        dstLocalOut = outQueueDst.DeQue(aj.half)
        k.DataCopy(dstGlobal, dstLocalOut, INPUT_SIZE)
        outQueueDst.FreeTensor(dstLocalOut)
        k.PipeBarrier(aj.pipe_t.PIPE_ALL)

    return transpose_custom


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_transpose --scenario N``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_transpose: scenario {n}; allowed: {sorted(SCENARIOS)}")
    size = CONFIG[n][0]
    return aj.byok.declare(
        kernel(n),
        (
            aj.GmArg("x", aj.half, size, "in", file="input_x.bin"),
            aj.GmArg("z", aj.half, size, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
