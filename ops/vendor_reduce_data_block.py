"""vendor_reduce_data_block: the vendor sample ``reduce_data_block`` (``reduce_data_block_custom``),
ported line by line.

C++ shape (vendor-samples/reduce_data_block/reduce_data_block.asc): GlobalTensors src, dst; a
LocalMemAllocator for srcLocal, dstLocal; DataCopy GM -> UB; Duplicate(dst, 0); with the continuous
mask 256 / sizeof(T): scenario 1 ``ReduceDataBlock<MAX, half>(dst, src, 128, 2, 1, 1, 8)`` (256 in,
16 out), 2 ``ReduceDataBlock<MIN, half>(..., 128, 4, 1, 1, 8)`` (512 in, 32 out), 3
``ReduceDataBlock<SUM, float>(..., 64, 2, 1, 1, 8)`` (128 in, 16 out); DataCopy UB -> GM. The sample's
MTE2_V / V_MTE3 flags and final PipeBarrier<PIPE_ALL> are kept.
"""

import ascend_jax as aj

SAMPLE = "reduce_data_block"
SCENARIOS = {
    1: "ReduceDataBlock<MAX, half>, 2 repeats",
    2: "ReduceDataBlock<MIN, half>, 4 repeats",
    3: "ReduceDataBlock<SUM, float>, 2 repeats",
}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b", 2: "ascend910b", 3: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
SRC_TOTAL_LENGTH = {1: 256, 2: 512, 3: 128}
DST_TOTAL_LENGTH = {1: 16, 2: 32, 3: 16}


def kernel_of(scenarioNum):
    T = aj.float32 if scenarioNum == 3 else aj.half
    srcTotalLength, dstTotalLength = SRC_TOTAL_LENGTH[scenarioNum], DST_TOTAL_LENGTH[scenarioNum]

    def reduce_data_block_custom(k, x, y):
        srcGlobal, dstGlobal = x, y
        ubAllocator = aj.LocalMemAllocator(k)
        srcLocal = ubAllocator.Alloc(T, srcTotalLength)
        dstLocal = ubAllocator.Alloc(T, dstTotalLength)
        k.DataCopy(srcLocal, srcGlobal, srcTotalLength)
        k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
        k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
        k.Duplicate(dstLocal, 0.0, dstTotalLength)
        mask = 256 // T.itemsize
        if scenarioNum == 1:
            k.ReduceDataBlock(dstLocal, srcLocal, mask, 2, 1, 1, 8, reduceType=aj.ReduceType.MAX)
        elif scenarioNum == 2:
            k.ReduceDataBlock(dstLocal, srcLocal, mask, 4, 1, 1, 8, reduceType=aj.ReduceType.MIN)
        else:
            k.ReduceDataBlock(dstLocal, srcLocal, mask, 2, 1, 1, 8, reduceType=aj.ReduceType.SUM)
        k.SetFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
        k.WaitFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
        k.DataCopy(dstGlobal, dstLocal, dstTotalLength)
        k.PipeBarrier(aj.pipe_t.PIPE_ALL)

    return reduce_data_block_custom, T


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_reduce_data_block``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_reduce_data_block: scenario {n}; allowed: {sorted(SCENARIOS)}")
    fn, T = kernel_of(n)
    return aj.byok.declare(
        fn,
        (
            aj.GmArg("x", T, SRC_TOTAL_LENGTH[n], "in", file="input_x.bin"),
            aj.GmArg("y", T, DST_TOTAL_LENGTH[n], "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
