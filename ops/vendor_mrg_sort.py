"""vendor_mrg_sort: the vendor sample ``mrg_sort`` (``vec_mrgsort_kernel``), ported line by line.

C++ shape (vendor-samples/mrg_sort/mrg_sort.asc): GlobalTensors src0 (float scores), src1 (uint32
indices), dst (float, (score, index) records); a LocalMemAllocator for srcLocal0, srcLocal1, workLocal
and dstLocal; DataCopy GM -> UB; ``Sort32`` (32 scores a repeat) into workLocal; then
scenario 1: one MrgSort of 4 queues of 32; scenario 2: 3 queues (validBit 0b0111, the 4th length 0);
scenario 3: 32 queues merged in three rounds (repeatTimes 8, then 2, then a 2-queue MrgSort);
DataCopy UB -> GM. The sample's MTE2_V / V_MTE3 flags,
its PipeBarrier<PIPE_V> between the sort rounds and the final PipeBarrier<PIPE_ALL> are kept.
"""

import ascend_jax as aj

SAMPLE = "mrg_sort"
SCENARIOS = {
    1: "Sort32 x4 + MrgSort of 4 queues of 32 (float, 128 scores)",
    2: "Sort32 x3 + MrgSort of 3 queues (validBit 0b0111, 96 scores)",
    3: "Sort32 x32 + MrgSort rounds: 32 -> 8 (repeatTimes 8) -> 2 (repeatTimes 2) -> 1 (1024 scores)",
}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b", 2: "ascend910b", 3: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
SORT_SIZE = 32


def _sizes(scenarioNum):
    src = {1: 128, 2: 96, 3: 1024}[scenarioNum]
    work = (src // SORT_SIZE) * SORT_SIZE * 6 if scenarioNum == 3 else 4 * SORT_SIZE * 2
    return src, work


def kernel_of(scenarioNum):
    srcDataSize, workSize = _sizes(scenarioNum)

    def vec_mrgsort_kernel(k, src0Gm, src1Gm, dstGm):
        dstDataSize = srcDataSize * 2  # (score, index) records
        repeat = srcDataSize // SORT_SIZE
        ubAllocator = aj.LocalMemAllocator(k)
        srcLocal0 = ubAllocator.Alloc(aj.float32, srcDataSize)
        srcLocal1 = ubAllocator.Alloc(aj.uint32, srcDataSize)
        workLocal = ubAllocator.Alloc(aj.float32, workSize)
        dstLocal = ubAllocator.Alloc(aj.float32, srcDataSize * 2)
        k.DataCopy(srcLocal0, src0Gm, srcDataSize)
        k.DataCopy(srcLocal1, src1Gm, srcDataSize)
        k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
        k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
        k.Sort32(workLocal, srcLocal0, srcLocal1, repeat)
        k.PipeBarrier(aj.pipe_t.PIPE_V)
        if scenarioNum == 3:
            srcLocal, tempLocal1, tempLocal2 = workLocal[0], workLocal[2048], workLocal[4096]
            # round 1: 32 queues -> 8 (each 128 records), repeatTimes 8
            params = aj.MrgSort4Info([SORT_SIZE] * 4, False, 0b1111, 8)
            srcList = aj.MrgSortSrcList(
                srcLocal[0],
                srcLocal[SORT_SIZE * 1 * 2],
                srcLocal[SORT_SIZE * 2 * 2],
                srcLocal[SORT_SIZE * 3 * 2],
            )
            k.MrgSort(tempLocal1, srcList, params)
            k.PipeBarrier(aj.pipe_t.PIPE_V)
            # round 2: 8 queues -> 2 (each 512 records), repeatTimes 2
            params = aj.MrgSort4Info([128] * 4, False, 0b1111, 2)
            srcList = aj.MrgSortSrcList(
                tempLocal1[0], tempLocal1[128 * 1 * 2], tempLocal1[128 * 2 * 2], tempLocal1[128 * 3 * 2]
            )
            k.MrgSort(tempLocal2, srcList, params)
            k.PipeBarrier(aj.pipe_t.PIPE_V)
            # round 3: 2 queues -> 1
            srcList = aj.MrgSortSrcList(tempLocal2[0], tempLocal2[512 * 1 * 2], srcList.src3, srcList.src4)
            params = aj.MrgSort4Info([512, 512, 0, 0], False, 0b11, 1)
            k.MrgSort(dstLocal, srcList, params)
        else:
            validBit = 0b1111 if scenarioNum == 1 else 0b0111
            params = aj.MrgSort4Info(
                [SORT_SIZE, SORT_SIZE, SORT_SIZE, SORT_SIZE if validBit == 0b1111 else 0], False, validBit, 1
            )
            srcList = aj.MrgSortSrcList(
                workLocal[0],
                workLocal[SORT_SIZE * 1 * 2],
                workLocal[SORT_SIZE * 2 * 2],
                workLocal[SORT_SIZE * 3 * 2],
            )
            k.MrgSort(dstLocal, srcList, params)
        k.SetFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
        k.WaitFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
        k.DataCopy(dstGm, dstLocal, dstDataSize)
        k.PipeBarrier(aj.pipe_t.PIPE_ALL)

    return vec_mrgsort_kernel


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_mrg_sort``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_mrg_sort: scenario {n}; allowed: {sorted(SCENARIOS)}")
    src, _ = _sizes(n)
    return aj.byok.declare(
        kernel_of(n),
        (
            aj.GmArg("src0Gm", aj.float32, src, "in", file="input_x.bin"),
            aj.GmArg("src1Gm", aj.uint32, src, "in", file="input_y.bin"),
            aj.GmArg("dstGm", aj.float32, 2 * src, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
