"""vendor_select: the vendor sample ``select`` (``select_custom``), ported line by line.

C++ shape (vendor-samples/select/select.asc): GlobalTensors x, y, sel, z; a LocalMemAllocator
hands out src0, src1, selMask and dst; DataCopy GM -> UB (scenario 1: DataCopyPad of the 8-byte
selMask with 24 bytes of right padding); one Select; DataCopy UB -> GM. The sample's
MTE2_V / V_MTE3 flags, scenario 2's MTE2_S / S_V flags and the final PipeBarrier<PIPE_ALL> are kept.

Scenarios (``SCENARIO_NUM``, the sample's README table; T = float, selMask uint8):

| n | call | y (src1) | selMask | profile |
|---|---|---|---|---|
| 1 | Select, VSEL_CMPMASK_SPR (mode 0: bit i mod 64 every repeat) | [256] | [8], DataCopyPad | 910B (A2/A3, 950) |
| 2 | Select, VSEL_TENSOR_SCALAR_MODE, scalar = ``src1Local.GetValue(0)`` | [8] | [32] | 910B |
| 3 | Select, VSEL_TENSOR_TENSOR_MODE (bits consumed continuously) | [256] | [32] | 910B |
| 4 | Select (flexible scalar position), ``BinaryConfig{1}``: scalar = src1Local[0] | [8] | [32] | 950 only |

Scenario 1 calls ``SetPadValue((uint8_t)0)`` before a DataCopyPad with ``isPad = false``: the 24
padding bytes are the register's 0 (docs/MODEL.md "DataCopyPad"), whatever the UB held. Mode 0 reads
only selMask bits [0, 64) (the 8 copied bytes), so the result does not depend on the padding.
"""

import ascend_jax as aj

SAMPLE = "select"  # vendor-samples/<SAMPLE>
SCENARIOS = {
    1: "Select, VSEL_CMPMASK_SPR (the first 64 selMask bits every repeat)",
    2: "Select, tensor vs scalar (src1Local.GetValue(0))",
    3: "Select, VSEL_TENSOR_TENSOR_MODE (no limit on the selMask bits)",
    4: "Select with a flexible scalar position (BinaryConfig{1}); Ascend 950 only",
}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b", 2: "ascend910b", 3: "ascend910b", 4: "ascend950"}
# the products the sample's README lists (A2, A3, 950); a scenario for one product runs only there
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")
PENDING = {}  # scenario -> the unmodelled API it needs

INPUT_SIZE = 256


def _sizes(n):
    input_y_size = 256 if n in (1, 3) else 8
    input_sel_size = 8 if n == 1 else 32
    return input_y_size, input_sel_size


def select_custom(k, x, y, sel, z, *, scenario, input_y_size, input_sel_size):
    T, U = aj.float32, aj.uint8
    src0Global, src1Global, selMaskGlobal, dstGlobal = x, y, sel, z

    ubAllocator = aj.LocalMemAllocator(k)
    src0Local = ubAllocator.Alloc(T, INPUT_SIZE)
    src1Local = ubAllocator.Alloc(T, input_y_size)
    # scenario 1's selMask holds 8 valid bytes but DataCopyPad pads it to 32: allocate 32
    sel_alloc_num = 32 if scenario == 1 else input_sel_size
    selMaskLocal = ubAllocator.Alloc(U, sel_alloc_num)
    dstLocal = ubAllocator.Alloc(T, INPUT_SIZE)

    k.DataCopy(src0Local, src0Global, INPUT_SIZE)
    k.DataCopy(src1Local, src1Global, input_y_size)
    if scenario == 1:
        copyParams = aj.DataCopyExtParams(1, input_sel_size * U.itemsize, 0, 0, 0)
        padParams = aj.DataCopyPadExtParams(isPad=False, leftPadding=0, rightPadding=24)
        k.SetPadValue(U, 0)  # SetPadValue((uint8_t)0)
        k.DataCopyPad(selMaskLocal, selMaskGlobal, copyParams, padParams)
    else:
        k.DataCopy(selMaskLocal, selMaskGlobal, input_sel_size)
    k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)

    if scenario in (1, 3):
        selMode = aj.SELMODE.VSEL_CMPMASK_SPR if scenario == 1 else aj.SELMODE.VSEL_TENSOR_TENSOR_MODE
        k.Select(dstLocal, selMaskLocal, src0Local, src1Local, selMode, INPUT_SIZE)
    elif scenario == 2:
        k.SetFlag(aj.HardEvent.MTE2_S, aj.EVENT_ID0)
        k.WaitFlag(aj.HardEvent.MTE2_S, aj.EVENT_ID0)
        src1Scalar = k.GetValue(src1Local, 0)

        k.SetFlag(aj.HardEvent.S_V, aj.EVENT_ID0)
        k.WaitFlag(aj.HardEvent.S_V, aj.EVENT_ID0)

        k.Select(
            dstLocal, selMaskLocal, src0Local, src1Scalar, aj.SELMODE.VSEL_TENSOR_SCALAR_MODE, INPUT_SIZE
        )
    elif scenario == 4:
        config = aj.BinaryConfig(1)  # 1: the scalar is src1 (the default); 0: src0
        k.SelectFlexible(
            dstLocal,
            selMaskLocal,
            src0Local,
            src1Local[0],
            aj.SELMODE.VSEL_TENSOR_SCALAR_MODE,
            INPUT_SIZE,
            config=config,
        )

    k.SetFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)

    k.DataCopy(dstGlobal, dstLocal, INPUT_SIZE)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)


def scenario(n=DEFAULT_SCENARIO):
    """The kernel of scenario ``n`` with its GM arguments declared (``ascend-jax run vendor_select``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_select: scenario {n}; allowed: {sorted(SCENARIOS)}")
    y_size, sel_size = _sizes(n)

    def kernel(k, x, y, sel, z):
        return select_custom(k, x, y, sel, z, scenario=n, input_y_size=y_size, input_sel_size=sel_size)

    kernel.__name__ = f"select_custom_scenario{n}"
    return aj.byok.declare(
        kernel,
        (
            aj.GmArg("x", aj.float32, INPUT_SIZE, "in", file="input_x.bin"),
            aj.GmArg("y", aj.float32, y_size, "in", file="input_y.bin"),
            aj.GmArg("sel", aj.uint8, sel_size, "in", file="input_sel.bin"),
            aj.GmArg("z", aj.float32, INPUT_SIZE, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
