"""vendor_element_wise_arithmetic: the vendor sample ``element_wise_arithmetic``
(``element_wise_arithmetic_kernel``), ported line by line.

C++ shape (vendor-samples/element_wise_arithmetic/element_wise_arithmetic.asc): GlobalTensors src,
dst (half, 512 elements); a LocalMemAllocator for srcLocal, dstLocal; DataCopy GM -> UB;
``LeakyRelu(dstLocal, srcLocal, half(0.01), mask = 128, repeatTime 4, {1, 1, 8, 8})``; DataCopy
UB -> GM. The sample's MTE2_V / V_MTE3 flags
and final PipeBarrier<PIPE_ALL> are kept. One scenario.
"""

import ascend_jax as aj

SAMPLE = "element_wise_arithmetic"
SCENARIOS = {1: "LeakyRelu(dst, src, 0.01, mask 128, repeatTime 4, {1, 1, 8, 8})"}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
COUNT = 512
MASK = 128


def element_wise_arithmetic_kernel(k, src, dstGm):
    srcGlobal, dstGlobal = src, dstGm
    ubAllocator = aj.LocalMemAllocator(k)
    srcLocal = ubAllocator.Alloc(aj.half, COUNT)
    dstLocal = ubAllocator.Alloc(aj.half, COUNT)
    k.DataCopy(srcLocal, srcGlobal, COUNT)
    k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    scalar = 0.01  # half scalar = 0.01: converted to half by the API (scalarValue is T)
    k.LeakyRelu(dstLocal, srcLocal, scalar, MASK, 4, aj.UnaryRepeatParams(1, 1, 8, 8))
    k.SetFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.DataCopy(dstGlobal, dstLocal, COUNT)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_element_wise_arithmetic``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_element_wise_arithmetic: scenario {n}; allowed: {sorted(SCENARIOS)}")
    return aj.byok.declare(
        element_wise_arithmetic_kernel,
        (
            aj.GmArg("src", aj.half, COUNT, "in", file="input_x.bin"),
            aj.GmArg("dstGm", aj.half, COUNT, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
