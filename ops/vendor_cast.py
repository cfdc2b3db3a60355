"""vendor_cast: the vendor sample ``cast`` (``cast_custom``), ported line by line.

C++ shape (vendor-samples/cast/cast.asc): GlobalTensors x (half, 512) and y; a LocalMemAllocator for
xLocal, yLocal; DataCopy GM -> UB; ``Cast`` with ``RoundMode::CAST_CEIL``; DataCopy UB -> GM, with
the sample's MTE2_V / V_MTE3 flags and final ``PipeBarrier<PIPE_ALL>``; one block (``numBlocks = 1``),
the GM offsets ``blockLength * GetBlockIdx()`` kept. SCENARIO_NUM 1: half -> int32_t, count form
``Cast(yLocal, xLocal, CAST_CEIL, tileLength)``. SCENARIO_NUM 0 (the sample's default): half -> int4b_t,
an int8_t yLocal of tileLength / 2 bytes viewed through ``ReinterpretCast<int4b_t>``, high-dim form
(mask 128, repeatTime 4, {1, 1, 2, 8}); y holds blockLength / 2 bytes (element 2k in the low nibble of
byte k, docs/MODEL.md "int4b_t").
"""

import ascend_jax as aj

SAMPLE = "cast"
SCENARIOS = {
    0: "Cast<int4b_t, half>(y, x, CAST_CEIL, 128, 4, {1, 1, 2, 8}), high-dim form",
    1: "Cast(y, x, CAST_CEIL, 512): half -> int32_t, count form",
}
DEFAULT_SCENARIO = 1
PROFILES = {0: "ascend910b", 1: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
TOTAL_LENGTH = 512
BLOCK_LENGTH = TOTAL_LENGTH
TILE_LENGTH = BLOCK_LENGTH
MASK = 128


def cast_custom_int4b(k, x, y):
    blockIdx = k.GetBlockIdx()
    xGm = x[BLOCK_LENGTH * blockIdx]  # SetGlobalBuffer(x + blockLength * GetBlockIdx(), blockLength)
    yGm = y[BLOCK_LENGTH * blockIdx // 2]  # int8_t y: blockLength / 2 bytes a block
    ubAllocator = aj.LocalMemAllocator(k)
    xLocal = ubAllocator.Alloc(aj.half, TILE_LENGTH)
    yLocal = ubAllocator.Alloc(aj.int8, TILE_LENGTH // 2)
    k.DataCopy(xLocal, xGm, TILE_LENGTH)
    k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    yLocalTmp = yLocal.ReinterpretCast(aj.int4b_t)
    k.Cast(yLocalTmp, xLocal, aj.RoundMode.CAST_CEIL, MASK, 4, aj.UnaryRepeatParams(1, 1, 2, 8))
    k.SetFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.DataCopy(yGm, yLocal, TILE_LENGTH // 2)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)


def cast_custom(k, x, y):
    blockIdx = k.GetBlockIdx()
    xGm = x[BLOCK_LENGTH * blockIdx]  # SetGlobalBuffer(x + blockLength * GetBlockIdx(), blockLength)
    yGm = y[BLOCK_LENGTH * blockIdx]
    ubAllocator = aj.LocalMemAllocator(k)
    xLocal = ubAllocator.Alloc(aj.half, TILE_LENGTH)
    yLocal = ubAllocator.Alloc(aj.int32, TILE_LENGTH)
    k.DataCopy(xLocal, xGm, TILE_LENGTH)
    k.SetFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.MTE2_V, aj.EVENT_ID0)
    k.Cast(yLocal, xLocal, aj.RoundMode.CAST_CEIL, TILE_LENGTH)
    k.SetFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.WaitFlag(aj.HardEvent.V_MTE3, aj.EVENT_ID0)
    k.DataCopy(yGm, yLocal, TILE_LENGTH)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)


def scenario(n=DEFAULT_SCENARIO):
    """The kernel of scenario ``n`` with its GM arguments declared (``ascend-jax run vendor_cast``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_cast: scenario {n}; allowed: {sorted(SCENARIOS)}")
    if n in PENDING:
        raise aj.NotModelledError(f"vendor_cast scenario {n} ({SCENARIOS[n]}) needs {PENDING[n]}")
    if n == 0:
        fn, y = cast_custom_int4b, aj.GmArg("y", aj.int8, TOTAL_LENGTH // 2, "out", file="output.bin")
    else:
        fn, y = cast_custom, aj.GmArg("y", aj.int32, TOTAL_LENGTH, "out", file="output.bin")
    return aj.byok.declare(
        fn, (aj.GmArg("x", aj.half, TOTAL_LENGTH, "in", file="input_x.bin"), y), profile=PROFILES[n]
    )
