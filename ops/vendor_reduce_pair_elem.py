"""vendor_reduce_pair_elem: the vendor sample ``reduce_pair_elem`` (``reduce_pair_elem_custom``), ported
line by line.

C++ shape (vendor-samples/reduce_pair_elem/reduce_pair_elem.asc): GlobalTensors src, dst (half, 128
in, 64 out); a LocalMemAllocator for srcLocal (128), dstLocal (64); DataCopy GM -> UB; Duplicate(dst,
0, 64); ``ReducePairElem<SUM, half>(dst, src, mask = {UINT64_MAX, UINT64_MAX}, 1, 1, 1, 8)``;
DataCopy UB -> GM. The sample's MTE2_V / V_MTE3 flags
and final PipeBarrier<PIPE_ALL> are kept. One scenario.
"""

import ascend_jax as aj

SAMPLE = "reduce_pair_elem"
SCENARIOS = {1: "ReducePairElem<SUM, half>, bitwise mask of 128 lanes, 1 repeat"}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
SRC_DATA_SIZE = 128
DST_DATA_SIZE = 64
UINT64_MAX = 2**64 - 1


def reduce_pair_elem_custom(k, x, z):
    srcGlobal, dstGlobal = x, z
    ubAllocator = aj.LocalMemAllocator(k)
    srcLocal = ubAllocator.Alloc(aj.half, SRC_DATA_SIZE)
    dstLocal = ubAllocator.Alloc(aj.half, DST_DATA_SIZE)
    k.DataCopy(srcLocal, srcGlobal, SRC_DATA_SIZE)
    k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    k.Duplicate(dstLocal, 0.0, DST_DATA_SIZE)
    mask = [UINT64_MAX, UINT64_MAX]
    repeat = 1
    k.ReducePairElem(dstLocal, srcLocal, mask, repeat, 1, 1, 8, reduceType=aj.ReduceType.SUM)
    k.SetFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.DataCopy(dstGlobal, dstLocal, DST_DATA_SIZE)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_reduce_pair_elem``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_reduce_pair_elem: scenario {n}; allowed: {sorted(SCENARIOS)}")
    return aj.byok.declare(
        reduce_pair_elem_custom,
        (
            aj.GmArg("x", aj.half, SRC_DATA_SIZE, "in", file="input_x.bin"),
            aj.GmArg("z", aj.half, DST_DATA_SIZE, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
