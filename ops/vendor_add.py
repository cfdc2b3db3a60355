"""vendor_add: the vendor sample ``add`` (``add_custom``), ported line by line.

C++ shape (vendor-samples/add/add.asc): the host launches 8 blocks over 8 x 2048 floats; block ``i``
sets its GlobalTensors at element offset ``2048 * i`` of x, y, z and takes three 2048-float tensors
from a ``LocalMemAllocator`` (no TPipe): DataCopy x, y -> UB, ``PipeBarrier<PIPE_ALL>``,
``Add(zLocal, xLocal, yLocal, 2048)``, ``PipeBarrier<PIPE_ALL>``, DataCopy UB -> z,
``PipeBarrier<PIPE_ALL>``. The port runs as the sample does: ``block_dim=8`` cores in one program,
each with its own UB (``k.GetBlockIdx()`` picks the GM slice), the barriers kept. One scenario.

The sample has no ``gen_data.py`` / ``verify_result.py``: its host code fills ``x[i] = i * 0.1f``,
``y[i] = i * 0.2f`` and compares with ``golden[i] = x[i] + y[i]`` by exact equality
(``std::equal``); ``host_inputs`` / ``host_golden`` restate that, and the tests compare bit for bit.
The same kernel with TPipe/TQue and the vendor scripts is ``vendor_add_tpipe_tque``.
"""

import numpy as np

import ascend_jax as aj

SAMPLE = "add"
SCENARIOS = {1: "Add(z, x, y, 2048) per block, 8 blocks (float32), LocalMemAllocator"}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # as add_tpipe_tque's README
PENDING = {}
NUM_BLOCKS = 8
BLOCK_LENGTH = 2048
TOTAL_LENGTH = NUM_BLOCKS * BLOCK_LENGTH


def add_custom(k, x, y, z):
    blockLength = BLOCK_LENGTH
    block_idx = k.GetBlockIdx()
    xGm = x[block_idx * blockLength]  # SetGlobalBuffer(x + block_idx * blockLength, blockLength)
    yGm = y[block_idx * blockLength]
    zGm = z[block_idx * blockLength]
    ubAllocator = aj.LocalMemAllocator(k)
    xLocal = ubAllocator.Alloc(aj.float32, blockLength)
    yLocal = ubAllocator.Alloc(aj.float32, blockLength)
    zLocal = ubAllocator.Alloc(aj.float32, blockLength)
    k.DataCopy(xLocal, xGm, blockLength)
    k.DataCopy(yLocal, yGm, blockLength)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)
    k.Add(zLocal, xLocal, yLocal, blockLength)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)
    k.DataCopy(zGm, zLocal, blockLength)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)


def host_inputs():
    """The sample's host data: ``x[i] = i * 0.1f``, ``y[i] = i * 0.2f`` (float arithmetic)."""
    i = np.arange(TOTAL_LENGTH, dtype=np.uint32).astype(np.float32)
    return i * np.float32(0.1), i * np.float32(0.2)


def host_golden(x, y):
    """The sample's golden: ``golden[i] = x[i] + y[i]`` in float."""
    return (x + y).astype(np.float32)


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_add``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_add: scenario {n}; allowed: {sorted(SCENARIOS)}")
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
