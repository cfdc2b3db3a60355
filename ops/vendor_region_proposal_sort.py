"""vendor_region_proposal_sort: the vendor sample ``region_proposal_sort``
(``region_proposal_sort_custom``), ported line by line.

C++ shape (vendor-samples/region_proposal_sort/region_proposal_sort.asc): GlobalTensors x, y (half,
64 scores); a LocalMemAllocator for srcLocal (64), workLocal (512), mrgOutLocal (512) and
extractLocal (64); DataCopy GM -> UB; four times ProposalConcat (16 scores into the score field,
mode 4) + RpSort16 in place; MrgSort4 of the 4 groups of 16; ProposalExtract(extractLocal,
mrgOutLocal, 512 / 16 = 32 repeats, 4); DataCopy UB -> GM (64 elements).

The ProposalExtract reads 512 proposals from a 64-proposal tensor and writes 512 elements into a
64-element tensor: past both tensors, as the hardware runs it (the first 4 repeats give the 64
scores the sample checks). The model runs it the same way and records EXTENT checker warnings
(docs/MODEL.md "Checker warnings"); the result bits are unchanged. The sample's MTE2_V /
V_MTE3 flags, PipeBarrier<PIPE_V> calls and final PipeBarrier<PIPE_ALL> are kept.
"""

import ascend_jax as aj

SAMPLE = "region_proposal_sort"
SCENARIOS = {1: "ProposalConcat + RpSort16 (x4), MrgSort4, ProposalExtract: 64 half scores sorted"}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend310p"}
PRODUCTS = ("ascend310p",)  # the sample's README: Atlas 推理系列产品AI Core
PENDING = {}
SCORE_COUNT = 64
RP_ELEMENT_SIZE = 8
WORK_SIZE = SCORE_COUNT * RP_ELEMENT_SIZE
DST_SIZE = SCORE_COUNT


def region_proposal_sort_custom(k, x, y):
    srcGlobal, dstGlobal = x, y
    ubAllocator = aj.LocalMemAllocator(k)
    srcLocal = ubAllocator.Alloc(aj.half, SCORE_COUNT)
    workLocal = ubAllocator.Alloc(aj.half, WORK_SIZE)
    mrgOutLocal = ubAllocator.Alloc(aj.half, WORK_SIZE)
    extractLocal = ubAllocator.Alloc(aj.half, DST_SIZE)
    k.DataCopy(srcLocal, srcGlobal, SCORE_COUNT)
    k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    singleDataSize = SCORE_COUNT // 4
    workDataSize = WORK_SIZE // 4
    repeat = SCORE_COUNT // 4 // 16
    mode = 4
    for g in range(4):
        k.ProposalConcat(workLocal[workDataSize * g], srcLocal[singleDataSize * g], repeat, mode)
        k.PipeBarrier(aj.pipe_t.PIPE_V)
        k.RpSort16(workLocal[workDataSize * g], workLocal[workDataSize * g], repeat)
    srcList = aj.MrgSortSrcList(
        workLocal[0], workLocal[workDataSize], workLocal[workDataSize * 2], workLocal[workDataSize * 3]
    )
    srcInfo = aj.MrgSort4Info([singleDataSize] * 4, False, 15, 1)
    k.MrgSort4(mrgOutLocal, srcList, srcInfo)
    k.PipeBarrier(aj.pipe_t.PIPE_V)
    extractRepeat = WORK_SIZE // 16
    k.ProposalExtract(extractLocal, mrgOutLocal, extractRepeat, mode)
    k.SetFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.DataCopy(dstGlobal, extractLocal, DST_SIZE)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_region_proposal_sort``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_region_proposal_sort: scenario {n}; allowed: {sorted(SCENARIOS)}")
    return aj.byok.declare(
        region_proposal_sort_custom,
        (
            aj.GmArg("x", aj.half, SCORE_COUNT, "in", file="input_x.bin"),
            aj.GmArg("y", aj.half, DST_SIZE, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
