"""vendor_element_wise_compound_compute: the vendor sample ``element_wise_compound_compute``
(``element_wise_compound_compute_custom<512>``), ported line by line.

C++ shape (vendor-samples/element_wise_compound_compute/element_wise_compound_compute.asc):
GlobalTensors src0, src1, dst (half, 512 elements); a LocalMemAllocator for src0Local, src1Local,
dstLocal; DataCopy GM -> UB of both sources, then
* scenario 1: ``AddRelu<half>(dstLocal, src0Local, src1Local, 512)``;
* scenario 2: ``DataCopy(dstLocal, src1Local, 512)`` (UB -> UB), then
  ``Axpy<half, half>(dstLocal, src0Local, half(2.0), 512)``;
DataCopy UB -> GM. The sample's MTE2_V / V_MTE3
flags, scenario 2's PipeBarrier<PIPE_V> and the final PipeBarrier<PIPE_ALL> are kept.
"""

import ascend_jax as aj

SAMPLE = "element_wise_compound_compute"
SCENARIOS = {1: "AddRelu(dst, src0, src1, 512), half", 2: "dst = src1; Axpy(dst, src0, 2.0, 512), half"}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b", 2: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
TOTAL_LENGTH = 512


def element_wise_compound_compute_custom(k, src0Gm, src1Gm, dstGm, *, scenarioNum):
    src0Global, src1Global, dstGlobal = src0Gm, src1Gm, dstGm
    ubAllocator = aj.LocalMemAllocator(k)
    src0Local = ubAllocator.Alloc(aj.half, TOTAL_LENGTH)
    src1Local = ubAllocator.Alloc(aj.half, TOTAL_LENGTH)
    dstLocal = ubAllocator.Alloc(aj.half, TOTAL_LENGTH)
    k.DataCopy(src0Local, src0Global, TOTAL_LENGTH)
    k.DataCopy(src1Local, src1Global, TOTAL_LENGTH)
    k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    if scenarioNum == 1:
        k.AddRelu(dstLocal, src0Local, src1Local, TOTAL_LENGTH)
    else:
        k.DataCopy(dstLocal, src1Local, TOTAL_LENGTH)
        k.PipeBarrier(aj.pipe_t.PIPE_V)
        scalar = 2.0  # static_cast<half>(2.0): converted to half by the API (scalarValue is U)
        k.Axpy(dstLocal, src0Local, scalar, TOTAL_LENGTH)
    k.SetFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.DataCopy(dstGlobal, dstLocal, TOTAL_LENGTH)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_element_wise_compound_compute``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_element_wise_compound_compute: scenario {n}; allowed: {sorted(SCENARIOS)}")

    def kernel(k, src0Gm, src1Gm, dstGm):
        element_wise_compound_compute_custom(k, src0Gm, src1Gm, dstGm, scenarioNum=n)

    kernel.__name__ = f"element_wise_compound_compute_custom_s{n}"
    return aj.byok.declare(
        kernel,
        (
            aj.GmArg("src0Gm", aj.half, TOTAL_LENGTH, "in", file="input0.bin"),
            aj.GmArg("src1Gm", aj.half, TOTAL_LENGTH, "in", file="input1.bin"),
            aj.GmArg("dstGm", aj.half, TOTAL_LENGTH, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
