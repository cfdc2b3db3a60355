"""vendor_element_wise_logic: the vendor sample ``element_wise_logic`` (``logic_custom``), ported
line by line.

C++ shape (vendor-samples/element_wise_logic/element_wise_logic.asc): GlobalTensors src0, src1,
dst (uint16, 512 elements); a LocalMemAllocator for src0Local, src1Local, dstLocal; DataCopy
GM -> UB; one logic call; DataCopy UB -> GM. The sample's
MTE2_V / V_MTE3 flags and final PipeBarrier<PIPE_ALL> are kept.

Scenarios (``SCENARIO_NUM``; the vendor gen_data.py takes ``-scenarioNum``):

| n | call | status |
|---|---|---|
| 1 | ``And(dst, src0, src1, 512)`` | ported (910B) |
| 2 | ``Ors<..., config{0}>(dst, src0Local[0], src1, 512)`` (950 only) | ported (ascend950) |
| 3 | ``ShiftLeft(dst, src0, src1.ReinterpretCast<int16_t>(), 512)`` (950 only) | ported (ascend950) |
| 4 | ``ShiftRight(dst, src0, 2, 512)`` | ported (910B) |
"""

import ascend_jax as aj

SAMPLE = "element_wise_logic"
SCENARIOS = {
    1: "And, tensor & tensor",
    2: "Ors, scalar (src0Local[0]) | tensor; Ascend 950 only",
    3: "ShiftLeft by a shift tensor; Ascend 950 only",
    4: "ShiftRight by a scalar (2)",
}
DEFAULT_SCENARIO = 1  # the vendor's default
PROFILES = {1: "ascend910b", 2: "ascend950", 3: "ascend950", 4: "ascend910b"}
# the products the sample's README lists (A2, A3, 950); a scenario for one product runs only there
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")
PENDING = {}
COUNT = 512
SHIFT_BITS = 2


def logic_custom(k, src0, src1, dst, *, scenario):
    T = aj.uint16
    src0Global, src1Global, dstGlobal = src0, src1, dst
    ubAllocator = aj.LocalMemAllocator(k)
    src0Local = ubAllocator.Alloc(T, COUNT)
    src1Local = ubAllocator.Alloc(T, COUNT)
    dstLocal = ubAllocator.Alloc(T, COUNT)

    k.DataCopy(src0Local, src0Global, COUNT)
    k.DataCopy(src1Local, src1Global, COUNT)

    k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)

    if scenario == 1:
        k.And(dstLocal, src0Local, src1Local, COUNT)
    elif scenario == 2:
        # the scalar is element 0 of src0Local (a LocalTensor element, read at run time);
        # BinaryConfig{0}: the left operand is the scalar
        config = aj.BinaryConfig(0)
        k.Ors(dstLocal, src0Local[0], src1Local, COUNT, config=config)
    elif scenario == 3:
        src1S16 = src1Local.ReinterpretCast(aj.int16)
        k.ShiftLeft(dstLocal, src0Local, src1S16, COUNT)
    elif scenario == 4:
        k.ShiftRight(dstLocal, src0Local, SHIFT_BITS, COUNT)

    k.SetFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)

    k.DataCopy(dstGlobal, dstLocal, COUNT)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)


def scenario(n=DEFAULT_SCENARIO):
    """The kernel of scenario ``n`` with its GM arguments declared."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_element_wise_logic: scenario {n}; allowed: {sorted(SCENARIOS)}")
    if n in PENDING:
        raise aj.NotModelledError(
            f"vendor_element_wise_logic scenario {n} ({SCENARIOS[n]}) needs {PENDING[n]}"
        )

    def kernel(k, src0, src1, dst):
        logic_custom(k, src0, src1, dst, scenario=n)

    kernel.__name__ = f"logic_custom_scenario{n}"
    return aj.byok.declare(
        kernel,
        (
            aj.GmArg("src0", aj.uint16, COUNT, "in", file="input_src0.bin"),
            aj.GmArg("src1", aj.uint16, COUNT, "in", file="input_src1.bin"),
            aj.GmArg("dst", aj.uint16, COUNT, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
