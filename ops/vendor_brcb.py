"""vendor_brcb: the vendor sample ``brcb`` (``brcb_custom``), ported line by line.

C++ shape (vendor-samples/brcb/brcb.asc): GlobalTensors x (uint16, 16 elements), y (uint16, 256);
a LocalMemAllocator for xLocal (16) and yLocal (256); DataCopy GM -> UB;
``Brcb(yLocal, xLocal, repeatTime 2, {dstBlkStride 1, dstRepStride 8})``; DataCopy UB -> GM. The
sample's MTE2_V (EVENT_ID0) / V_MTE3 (EVENT_ID1) flags and final PipeBarrier<PIPE_ALL> are kept. One scenario (gen_data.py takes no scenario flag).
"""

import ascend_jax as aj

SAMPLE = "brcb"
SCENARIOS = {1: "Brcb(y, x, 2, {1, 8}), uint16: 16 elements -> 16 DataBlocks"}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
IN_LENGTH = 16
OUT_LENGTH = 256


def brcb_custom(k, x, y):
    xGm, yGm = x, y
    ubAllocator = aj.LocalMemAllocator(k)
    xLocal = ubAllocator.Alloc(aj.uint16, IN_LENGTH)
    yLocal = ubAllocator.Alloc(aj.uint16, OUT_LENGTH)
    k.DataCopy(xLocal, xGm, IN_LENGTH)
    k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    k.Brcb(yLocal, xLocal, 2, aj.BrcbRepeatParams(1, 8))
    k.SetFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID1)
    k.WaitFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID1)
    k.DataCopy(yGm, yLocal, OUT_LENGTH)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_brcb``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_brcb: scenario {n}; allowed: {sorted(SCENARIOS)}")
    return aj.byok.declare(
        brcb_custom,
        (
            aj.GmArg("x", aj.uint16, IN_LENGTH, "in", file="input_x.bin"),
            aj.GmArg("y", aj.uint16, OUT_LENGTH, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
