"""vendor_interleave_pair: the vendor sample ``interleave_pair`` (``interleave_pair_custom``), ported
line by line.

C++ shape (vendor-samples/interleave_pair/interleave_pair.asc): GlobalTensors src0, src1, dst0, dst1
(half, COUNT = 512 each); a LocalMemAllocator for src0Local, src1Local, dst0Local, dst1Local;
DataCopy src0, src1 GM -> UB; ``Duplicate(dst0Local, 0, COUNT)``, ``Duplicate(dst1Local, 0, COUNT)``;
scenario 1 ``Interleave(dst0, dst1, src0, src1, COUNT)``, scenario 2 ``DeInterleave(dst0, dst1,
src0, src1, COUNT)``; DataCopy dst0, dst1 UB -> GM (output_dst0.bin, output_dst1.bin). The sample's
MTE2_V / V_MTE3 flags and final PipeBarrier<PIPE_ALL> are kept. Ascend 950 only (dav-3510).
"""

import ascend_jax as aj

SAMPLE = "interleave_pair"
SCENARIOS = {
    1: "Interleave(dst0, dst1, src0, src1, 512), half",
    2: "DeInterleave(dst0, dst1, src0, src1, 512), half",
}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend950", 2: "ascend950"}
PRODUCTS = ("ascend950",)  # the sample's README: 950 only
PENDING = {}
COUNT = 512


def kernel(scenario_num):
    def interleave_pair_custom(k, src0, src1, dst0, dst1):
        src0Global, src1Global, dst0Global, dst1Global = src0, src1, dst0, dst1
        ubAllocator = aj.LocalMemAllocator(k)
        src0Local = ubAllocator.Alloc(aj.half, COUNT)
        src1Local = ubAllocator.Alloc(aj.half, COUNT)
        dst0Local = ubAllocator.Alloc(aj.half, COUNT)
        dst1Local = ubAllocator.Alloc(aj.half, COUNT)
        k.DataCopy(src0Local, src0Global, COUNT)
        k.DataCopy(src1Local, src1Global, COUNT)
        k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
        k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
        k.Duplicate(dst0Local, 0.0, COUNT)
        k.Duplicate(dst1Local, 0.0, COUNT)
        if scenario_num == 1:
            k.Interleave(dst0Local, dst1Local, src0Local, src1Local, COUNT)
        else:
            k.DeInterleave(dst0Local, dst1Local, src0Local, src1Local, COUNT)
        k.SetFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
        k.WaitFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
        k.DataCopy(dst0Global, dst0Local, COUNT)
        k.DataCopy(dst1Global, dst1Local, COUNT)
        k.PipeBarrier(aj.pipe_t.PIPE_ALL)

    return interleave_pair_custom


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_interleave_pair``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_interleave_pair: scenario {n}; allowed: {sorted(SCENARIOS)}")
    return aj.byok.declare(
        kernel(n),
        (
            aj.GmArg("src0", aj.half, COUNT, "in", file="input_src0.bin"),
            aj.GmArg("src1", aj.half, COUNT, "in", file="input_src1.bin"),
            aj.GmArg("dst0", aj.half, COUNT, "out", file="output_dst0.bin"),
            aj.GmArg("dst1", aj.half, COUNT, "out", file="output_dst1.bin"),
        ),
        profile=PROFILES[n],
    )
