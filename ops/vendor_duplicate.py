"""vendor_duplicate: the vendor sample ``duplicate`` (``duplicate_custom``), ported line by line.

C++ shape (vendor-samples/duplicate/duplicate.asc): GlobalTensors src, dst (half, 256 elements); a
LocalMemAllocator for srcLocal, dstLocal; DataCopy GM -> UB (src is copied but not used by the
computation); ``Duplicate<half>(dstLocal, half(18.0), 256)``; DataCopy UB -> GM. The
sample's MTE2_V / V_MTE3 flags and final PipeBarrier<PIPE_ALL> are kept. One scenario.
"""

import ascend_jax as aj

SAMPLE = "duplicate"
SCENARIOS = {1: "Duplicate(dst, 18.0, 256), count form"}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
TOTAL_LENGTH = 256
INPUT_VAL = 18.0


def duplicate_custom(k, x, y):
    srcGlobal, dstGlobal = x, y
    ubAllocator = aj.LocalMemAllocator(k)
    srcLocal = ubAllocator.Alloc(aj.half, TOTAL_LENGTH)
    dstLocal = ubAllocator.Alloc(aj.half, TOTAL_LENGTH)
    k.DataCopy(srcLocal, srcGlobal, TOTAL_LENGTH)
    k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    inputVal = INPUT_VAL
    k.Duplicate(dstLocal, inputVal, TOTAL_LENGTH)
    k.SetFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.DataCopy(dstGlobal, dstLocal, TOTAL_LENGTH)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_duplicate``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_duplicate: scenario {n}; allowed: {sorted(SCENARIOS)}")
    return aj.byok.declare(
        duplicate_custom,
        (
            aj.GmArg("x", aj.half, TOTAL_LENGTH, "in", file="input_x.bin"),
            aj.GmArg("y", aj.half, TOTAL_LENGTH, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
