"""vendor_add_tpipe_tque: the vendor sample ``add_tpipe_tque`` (``add_custom``), ported line by line.

C++ shape (vendor-samples/add_tpipe_tque/add_tpipe_tque.asc): the host launches 8 blocks over
8 x 2048 floats; block ``i`` sets its GlobalTensors at element offset ``2048 * i`` of x, y, z, and
runs TPipe with two VECIN queues and one VECOUT queue: DataCopy x, y -> UB, EnQue / DeQue,
``Add(zLocal, xLocal, yLocal, 2048)``, EnQue / DeQue, DataCopy UB -> z. The blocks touch disjoint GM
ranges and run on separate cores with their own UB, so they are modelled one after another on one
core (``GetBlockIdx()`` = the loop index), the TPipe and its queues set up once (the model has no
TPipe::Destroy to give the UB back between blocks). One scenario.
"""

import ascend_jax as aj

SAMPLE = "add_tpipe_tque"
SCENARIOS = {1: "Add(z, x, y, 2048) per block, 8 blocks (float32)"}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
NUM_BLOCKS = 8
TOTAL_LENGTH = 8 * 2048


class AddCustom:
    """One core's TPipe and queues (the C++ function body before its first DataCopy); ``block`` runs
    the body of block ``blockIdx``."""

    def __init__(self, k, totalLength=TOTAL_LENGTH):
        self.k = k
        self.pipe = aj.TPipe(k)
        self.inQueueX = aj.TQue(aj.TPosition.VECIN, 1)
        self.inQueueY = aj.TQue(aj.TPosition.VECIN, 1)
        self.outQueueZ = aj.TQue(aj.TPosition.VECOUT, 1)
        self.blockLength = totalLength // NUM_BLOCKS  # GetBlockNum()
        self.pipe.InitBuffer(self.inQueueX, 1, self.blockLength * aj.float32.itemsize)
        self.pipe.InitBuffer(self.inQueueY, 1, self.blockLength * aj.float32.itemsize)
        self.pipe.InitBuffer(self.outQueueZ, 1, self.blockLength * aj.float32.itemsize)

    def block(self, x, y, z, blockIdx):
        k, blockLength = self.k, self.blockLength
        inQueueX, inQueueY, outQueueZ = self.inQueueX, self.inQueueY, self.outQueueZ
        xGm = x[blockLength * blockIdx]  # SetGlobalBuffer(x + blockLength * GetBlockIdx(), ...)
        yGm = y[blockLength * blockIdx]
        zGm = z[blockLength * blockIdx]
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


def add_custom(k, x, y, z):
    op = AddCustom(k)
    for blockIdx in range(NUM_BLOCKS):  # <<<8, ...>>>: one block after another on one core
        op.block(x, y, z, blockIdx)


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
    )
