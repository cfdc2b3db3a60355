"""vendor_compare: the vendor sample ``compare`` (``compare_custom``), ported line by line.

C++ shape (vendor-samples/compare/compare.asc): GlobalTensors x, y (float) and z (uint8); a TPipe
with TQue inQueueSrc0 / inQueueSrc1 (VECIN) and outQueueDst (VECOUT); DataCopy GM -> UB, EnQue /
DeQue; one compare call with ``CMPMODE::LT``; DataCopy of the 32 result bytes UB -> GM. The sample's
syncs are kept (scenario 2's PipeBarrier<PIPE_V>, scenario 3's FetchEventID MTE2_S / S_V flags, the
final PipeBarrier<PIPE_ALL>; the queues imply MTE2_V / V_MTE3); one block.

Scenarios (``SCENARIO_NUM``, the sample's README):

| n | call | x / y | status |
|---|---|---|---|
| 1 | ``Compare(dst, src0, src1, LT, 256)`` | [256] / [256] | ported (910B) |
| 2 | ``Duplicate`` dst, ``Compare(src0, src1, LT, 64, repeatParams)`` to CMPMASK, ``GetCmpMask(dst)`` | [64] / [64] | ported (910B); a SIZE checker warning |
| 3 | ``Compares(dst, src0, src1Local.GetValue(0), LT, 256)`` | [256] / [16] | ported (910B) |
| 4 | ``Compares(dst, src0, src1Local[0], LT, 256)`` (flexible scalar position: ``ComparesFlexible``) | [256] / [16] | ported (950) |

Golden notes: the vendor golden is ``x < y`` packed LSB first, exact for every float input, so
scenarios 1, 3 and 4 match it bit for bit. Scenario 2 passes GetCmpMask a 32-byte dst where the page
asks for at least 128 bytes; it runs on hardware, so the model runs it too and records a checker
warning (``Warn.SIZE`` on GetCmpMask dst, docs/MODEL.md "Checker warnings"): the 16 CMPMASK bytes
land in dst (bits 64..127 are 0: a float compare has 64 lanes), bytes 16..31 keep Duplicate's
zeros. The vendor verify script compares only the first 8 bytes (the golden's other bytes are 1).
"""

import ascend_jax as aj

SAMPLE = "compare"
SCENARIOS = {
    1: "Compare, tensor vs tensor, CMPMODE::LT",
    2: "Compare into CMPMASK, GetCmpMask",
    3: "Compares, tensor vs scalar (src1Local.GetValue(0))",
    4: "Compares with a flexible scalar position (src1Local[0]); Ascend 950 only",
}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b", 2: "ascend910b", 3: "ascend910b", 4: "ascend950"}
# the products the sample's README lists (A2, A3, 950); a scenario for one product runs only there
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")
PENDING = {}
OUTPUT_SIZE = 32


def _sizes(n):
    input_size = 64 if n == 2 else 256
    input_y_size = {1: 256, 2: 64}.get(n, 16)
    return input_size, input_y_size


def compare_custom(k, x, y, z, *, scenario, input_size, input_y_size):
    T = aj.float32
    pipe = aj.TPipe(k)
    inQueueSrc0 = aj.TQue(aj.TPosition.VECIN, 1)
    inQueueSrc1 = aj.TQue(aj.TPosition.VECIN, 1)
    outQueueDst = aj.TQue(aj.TPosition.VECOUT, 1)
    cmpMode = aj.CMPMODE.LT
    src0Global, src1Global, dstGlobal = x, y, z
    pipe.InitBuffer(inQueueSrc0, 1, input_size * T.itemsize)
    pipe.InitBuffer(inQueueSrc1, 1, input_y_size * T.itemsize)
    pipe.InitBuffer(outQueueDst, 1, OUTPUT_SIZE * aj.uint8.itemsize)

    src0LocalIn = inQueueSrc0.AllocTensor(T)
    src1LocalIn = inQueueSrc1.AllocTensor(T)
    k.DataCopy(src0LocalIn, src0Global, input_size)
    k.DataCopy(src1LocalIn, src1Global, input_y_size)
    inQueueSrc0.EnQue(src0LocalIn)
    inQueueSrc1.EnQue(src1LocalIn)

    src0Local = inQueueSrc0.DeQue(T)
    src1Local = inQueueSrc1.DeQue(T)
    dstLocal = outQueueDst.AllocTensor(aj.uint8)

    if scenario == 1:
        k.Compare(dstLocal, src0Local, src1Local, cmpMode, input_size)
    elif scenario == 2:
        k.Duplicate(dstLocal.ReinterpretCast(aj.float32), 0.0, 8)
        repeatParams = aj.BinaryRepeatParams()
        mask = 256 // T.itemsize  # the bytes of one repeat / sizeof(T)
        k.Compare(src0Local, src1Local, cmpMode, mask, repeatParams)
        k.PipeBarrier(aj.pipe_t.PIPE_V)
        k.GetCmpMask(dstLocal)  # a 32-byte dst: a checker warning (Warn.SIZE), the hardware runs it
    elif scenario == 3:
        eventID = pipe.FetchEventID(aj.HardEvent.MTE2_S)  # GetTPipePtr()->FetchEventID(...)
        k.SetFlag(aj.HardEvent.MTE2_S, eventID)
        k.WaitFlag(aj.HardEvent.MTE2_S, eventID)
        src1Scalar = k.GetValue(src1Local, 0)

        eventID = pipe.FetchEventID(aj.HardEvent.S_V)
        k.SetFlag(aj.HardEvent.S_V, eventID)
        k.WaitFlag(aj.HardEvent.S_V, eventID)

        k.Compares(dstLocal, src0Local, src1Scalar, cmpMode, input_size)
    elif scenario == 4:
        # Ascend 950 only; src0Local and src1Local[0] may swap places (config = BinaryConfig(0))
        k.ComparesFlexible(dstLocal, src0Local, src1Local[0], cmpMode, input_size)

    outQueueDst.EnQue(dstLocal)
    inQueueSrc0.FreeTensor(src0Local)
    inQueueSrc1.FreeTensor(src1Local)

    dstLocalOut = outQueueDst.DeQue(aj.uint8)
    k.DataCopy(dstGlobal, dstLocalOut, OUTPUT_SIZE)
    outQueueDst.FreeTensor(dstLocalOut)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)


def scenario(n=DEFAULT_SCENARIO):
    """The kernel of scenario ``n`` with its GM arguments declared (``ascend-jax run vendor_compare``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_compare: scenario {n}; allowed: {sorted(SCENARIOS)}")
    if n in PENDING:
        raise aj.NotModelledError(f"vendor_compare scenario {n} ({SCENARIOS[n]}) needs {PENDING[n]}")
    input_size, input_y_size = _sizes(n)

    def kernel(k, x, y, z):
        compare_custom(k, x, y, z, scenario=n, input_size=input_size, input_y_size=input_y_size)

    kernel.__name__ = f"compare_custom_scenario{n}"
    return aj.byok.declare(
        kernel,
        (
            aj.GmArg("x", aj.float32, input_size, "in", file="input_x.bin"),
            aj.GmArg("y", aj.float32, input_y_size, "in", file="input_y.bin"),
            aj.GmArg("z", aj.uint8, OUTPUT_SIZE, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
    )
