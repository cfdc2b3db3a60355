"""vendor_add_tpipe_tque: the vendor sample ``add_tpipe_tque`` (``add_custom``), ported line by line.

C++ shape (vendor-samples/add_tpipe_tque/add_tpipe_tque.asc): the host launches 8 blocks over
8 x 2048 floats; block ``i`` sets its GlobalTensors at element offset ``2048 * GetBlockIdx()`` of
x, y, z (``blockLength = totalLength / GetBlockNum()``), and runs its own TPipe with two VECIN
queues and one VECOUT queue: DataCopy x, y -> UB, EnQue / DeQue, ``Add(zLocal, xLocal, yLocal,
2048)``, EnQue / DeQue, DataCopy UB -> z. The port runs as the sample does: ``block_dim=8`` cores in
one program, each with its own UB, TPipe and queues (the queues' implied MTE2_V / V_MTE3 flags are
the only sync, as in the sample). One scenario.
"""

import ascend_jax as aj

SAMPLE = "add_tpipe_tque"
SCENARIOS = {1: "Add(z, x, y, 2048) per block, 8 blocks (float32)"}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
NUM_BLOCKS = 8  # main(): numBlocks = 8
TOTAL_LENGTH = 8 * 2048


def add_custom(k, x, y, z):
    totalLength = TOTAL_LENGTH  # the launch argument (main(): 8 * 2048)
    pipe = aj.TPipe(k)
    inQueueX = aj.TQue(aj.TPosition.VECIN, 1)
    inQueueY = aj.TQue(aj.TPosition.VECIN, 1)
    outQueueZ = aj.TQue(aj.TPosition.VECOUT, 1)

    blockLength = totalLength // k.GetBlockNum()
    xGm = x[blockLength * k.GetBlockIdx()]  # SetGlobalBuffer(x + blockLength * GetBlockIdx(), ...)
    yGm = y[blockLength * k.GetBlockIdx()]
    zGm = z[blockLength * k.GetBlockIdx()]
    pipe.InitBuffer(inQueueX, 1, blockLength * aj.float32.itemsize)
    pipe.InitBuffer(inQueueY, 1, blockLength * aj.float32.itemsize)
    pipe.InitBuffer(outQueueZ, 1, blockLength * aj.float32.itemsize)

    xLocal = inQueueX.AllocTensor(aj.float32)
    yLocal = inQueueY.AllocTensor(aj.float32)
    k.DataCopy(xLocal, xGm, blockLength)
    k.DataCopy(yLocal, yGm, blockLength)
    inQueueX.EnQue(xLocal)
    inQueueY.EnQue(yLocal)

    xLocal = inQueueX.DeQue(aj.float32)
    yLocal = inQueueY.DeQue(aj.float32)
    zLocal = outQueueZ.AllocTensor(aj.float32)
    k.Add(zLocal, xLocal, yLocal, blockLength)
    outQueueZ.EnQue(zLocal)
    inQueueX.FreeTensor(xLocal)
    inQueueY.FreeTensor(yLocal)

    zLocal = outQueueZ.DeQue(aj.float32)
    k.DataCopy(zGm, zLocal, blockLength)
    outQueueZ.FreeTensor(zLocal)


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_add_tpipe_tque``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_add_tpipe_tque: scenario {n}; allowed: {sorted(SCENARIOS)}")
    return aj.byok.declare(
        add_custom,
        (
            aj.GmArg("x", aj.float32, TOTAL_LENGTH, "in", file="input_x.bin"),
            aj.GmArg("y", aj.float32, TOTAL_LENGTH, "in", file="input_y.bin"),
            aj.GmArg("z", aj.float32, TOTAL_LENGTH, "out", file="output.bin"),
        ),
        profile=PROFILES[n],
        block_dim=NUM_BLOCKS,
    )
