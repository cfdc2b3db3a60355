"""vendor_create_vec_index: the vendor sample ``create_vec_index`` (``testCreateVecIndex<int16_t,
128>``), ported line by line.

C++ shape (vendor-samples/create_vec_index/create_vec_index.asc): a GlobalTensor dst (int16, 128
elements); TPipe with one VECOUT queue; ``Duplicate(dstLocal, 0, 128)``; ``PipeBarrier<PIPE_V>``;
``CreateVecIndex(dstLocal, 0, 128)``; EnQue / DeQue; DataCopy UB -> GM; ``PipeBarrier<PIPE_ALL>``.
The host launches 8 blocks (``numBlocks = 8``) and the kernel has no ``GetBlockIdx()`` offset: all 8
cores write the same 128 elements with the same values. The port runs the 8 cores (``block_dim=8``);
the model reports the overlap as multi-core stomping (``KNOWN_FINDINGS``; the bytes are exact since
every core writes the same values). One scenario.
"""

import ascend_jax as aj

SAMPLE = "create_vec_index"
SCENARIOS = {1: "Duplicate(dst, 0, 128); CreateVecIndex(dst, 0, 128) (int16)"}
DEFAULT_SCENARIO = 1
PROFILES = {1: "ascend910b"}
PRODUCTS = ("ascend910b", "ascend910_93", "ascend950")  # the sample's README: A2, A3, 950
PENDING = {}
NUM_BLOCKS = 8  # main(): numBlocks = 8
COUNT = 128
# The sample's own defect, kept (issue 31 item 6): {scenario: "<the findings' common head> -- why"}.
# 8 blocks and no GetBlockIdx() offset: every core's DataCopy UB -> GM writes dst bytes [0, 256)
# (identical values, so the bytes are still exact). The C++ front end reports it alike.
KNOWN_FINDINGS = {
    1: "memcheck: error: multi-core stomp on GM buffer 0 bytes [0, 256) -- the host launches 8 "
    "blocks and dstGlobal has no per-block offset: all 8 cores write the same 128 int16 elements",
}


def testCreateVecIndex(k, dstGm):
    T = aj.int16
    pipe = aj.TPipe(k)
    dstGlobal = dstGm
    queOut = aj.TQue(aj.TPosition.VECOUT, 1)
    pipe.InitBuffer(queOut, 1, COUNT * T.itemsize)
    dstLocal = queOut.AllocTensor(T)
    k.Duplicate(dstLocal, 0, COUNT)
    k.PipeBarrier(aj.pipe_t.PIPE_V)
    k.CreateVecIndex(dstLocal, 0, COUNT)
    queOut.EnQue(dstLocal)
    dstLocalOut = queOut.DeQue(T)
    k.DataCopy(dstGlobal, dstLocalOut, COUNT)
    queOut.FreeTensor(dstLocalOut)
    k.PipeBarrier(aj.pipe_t.PIPE_ALL)


def scenario(n=DEFAULT_SCENARIO):
    """The kernel with its GM arguments declared (``ascend-jax run vendor_create_vec_index``)."""
    if n not in SCENARIOS:
        raise ValueError(f"vendor_create_vec_index: scenario {n}; allowed: {sorted(SCENARIOS)}")
    return aj.byok.declare(
        testCreateVecIndex,
        (aj.GmArg("dstGm", aj.int16, COUNT, "out", file="output.bin"),),
        profile=PROFILES[n],
        block_dim=NUM_BLOCKS,
    )
