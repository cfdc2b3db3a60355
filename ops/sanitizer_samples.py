"""The msSanitizer samples (../shared/spec/ascendc-docs/sync-multicore/sanitizer-samples/), ported
line by line with their planted defects, and a fixed twin of each.

``KERNELS[name] = (kernel, fixed_twin, block_dim, gm_bytes, expected)``: ``gm_bytes`` the bytes of
each GM argument (float32 arrays), ``expected`` the ``(tool, kind)`` pairs the sample's README says
the vendor tool reports (the model reports at least these; the fixed twin reports nothing).

* ``ms_sanitizer_add`` (05_sanitizer/ms_sanitizer): the correct Add kernel with its manual
  ``MTE2_V`` / ``V_MTE3`` flags; the defect is the README's "remove MTE2_V": a RAW race.
* ``raw_hazard_demo`` (sample_racecheck): ``gmBuf.SetValue(blockIdx, 100)`` (PIPE_S) then
  ``DataCopy(localBuf, gmBuf, 256)`` (PIPE_MTE2) on 2 blocks: RAW in a block, RAW and WAR across.
  Fixed: each block owns a 64-byte line of its own, ``S_MTE2`` between the write and the read.
* ``pipeline_hazards`` (sample_racecheck_advanced): S/MTE3 WAW, S/MTE2 RAW, MTE2/S WAR in one core
  (and a UB WAR: the copy out of ``local`` against the copy into it). Fixed: ``S_MTE3``,
  ``MTE3_MTE2``, ``S_MTE2``, ``PipeBarrier<PIPE_MTE2>``, ``MTE2_S``.
* ``cross_core_hazards`` (sample_racecheck_advanced): block 0 and block 1 on the same GM regions.
  Fixed: ``SyncAll`` between the two roles' accesses.
* ``copy_demo`` (sample_synccheck): an unpaired ``SetFlag<V_MTE2>``; the copy back to GM also
  reads the UB with no ``MTE2_MTE3`` (a RAW the model reports beside it). Fixed: the stray flag
  removed, ``MTE2_MTE3`` between the copies.
* ``multi_core_stomp`` (sample_memcheck_advanced): 2 blocks ``SetValue(0, ...)`` on one GM address.
  Fixed: each block writes its own cache line.
"""

import ascend_jax as aj

E = aj.HardEvent
F32 = aj.float32


def ms_sanitizer_add(with_mte2_v=True, block_length=2048):
    def add_custom(k, x, y, z):
        i = k.GetBlockIdx()
        xGm, yGm, zGm = x[i * block_length], y[i * block_length], z[i * block_length]
        ub = aj.LocalMemAllocator(k)
        xLocal = ub.Alloc(F32, block_length)
        yLocal = ub.Alloc(F32, block_length)
        zLocal = ub.Alloc(F32, block_length)
        k.DataCopy(xLocal, xGm, block_length)
        k.DataCopy(yLocal, yGm, block_length)
        if with_mte2_v:  # the README: delete these two lines to plant the RAW race
            k.SetFlag(E.MTE2_V, aj.EVENT_ID0)
            k.WaitFlag(E.MTE2_V, aj.EVENT_ID0)
        k.Add(zLocal, xLocal, yLocal, block_length)
        k.SetFlag(E.V_MTE3, aj.EVENT_ID0)
        k.WaitFlag(E.V_MTE3, aj.EVENT_ID0)
        k.DataCopy(zGm, zLocal, block_length)
        k.PipeBarrier(aj.pipe_t.PIPE_ALL)

    return add_custom


def raw_hazard_demo(fixed=False, elem_cnt=256):
    def kernel(k, buf):
        gmBuf = buf
        localBuf = aj.LocalMemAllocator(k).Alloc(F32, elem_cnt)
        blockIdx = k.GetBlockIdx()
        if not fixed:
            k.SetValue(gmBuf, blockIdx, 100.0)  # PIPE_S write
            k.DataCopy(localBuf, gmBuf, elem_cnt)  # PIPE_MTE2 read (no sync)
            return
        own = gmBuf[blockIdx * 16]  # one 64-byte line per block
        k.SetValue(own, 0, 100.0)
        k.SetFlag(E.S_MTE2, aj.EVENT_ID0)
        k.WaitFlag(E.S_MTE2, aj.EVENT_ID0)
        k.DataCopy(localBuf, own, 16)

    return kernel


def pipeline_hazards(fixed=False, n=256):
    def kernel(k, buf):
        waw, raw, war = buf, buf[n], buf[2 * n]
        local = aj.LocalMemAllocator(k).Alloc(F32, n)
        k.SetValue(waw, 0, 1.0)
        if fixed:
            k.SetFlag(E.S_MTE3, 0)
            k.WaitFlag(E.S_MTE3, 0)
        k.DataCopy(waw, local, n)  # S / MTE3 WAW
        if fixed:  # (the copy out still reads local when the next copy refills it: a UB WAR)
            k.SetFlag(E.MTE3_MTE2, 0)
            k.WaitFlag(E.MTE3_MTE2, 0)
        k.SetValue(raw, 0, 2.0)
        if fixed:
            k.SetFlag(E.S_MTE2, 0)
            k.WaitFlag(E.S_MTE2, 0)
        k.DataCopy(local, raw, n)  # S / MTE2 RAW
        if fixed:
            k.PipeBarrier(aj.pipe_t.PIPE_MTE2)  # the two copies into local overlap
        k.DataCopy(local, war, n)
        if fixed:
            k.SetFlag(E.MTE2_S, 0)
            k.WaitFlag(E.MTE2_S, 0)
        k.SetValue(war, 0, 3.0)  # MTE2 / S WAR

    return kernel


def cross_core_hazards(fixed=False, n=256):
    def kernel(k, buf):
        waw, raw, war = buf, buf[n], buf[2 * n]
        ub = aj.LocalMemAllocator(k)
        local0, local1 = ub.Alloc(F32, n), ub.Alloc(F32, n)
        role = k.GetBlockIdx()
        if role == 0:
            k.SetValue(waw, 0, 10.0)
            k.SetValue(raw, 0, 20.0)
            k.DataCopy(local0, war, n)
            if fixed:
                k.SyncAll()
        else:
            if fixed:
                k.SyncAll()
            k.DataCopy(waw, local0, n)
            k.DataCopy(local1, raw, n)
            k.SetValue(war, 0, 30.0)

    return kernel


def copy_demo(fixed=False, n=256):
    def kernel(k, src, dst):
        localBuf = aj.LocalMemAllocator(k).Alloc(aj.uint8, n)
        k.DataCopy(localBuf, src.ReinterpretCast(aj.uint8), n)
        if fixed:
            k.SetFlag(E.MTE2_MTE3, aj.EVENT_ID0)
            k.WaitFlag(E.MTE2_MTE3, aj.EVENT_ID0)
        else:
            k.SetFlag(E.V_MTE2, aj.EVENT_ID0)  # the stray SetFlag (no WaitFlag)
        k.DataCopy(dst.ReinterpretCast(aj.uint8), localBuf, n)

    return kernel


def multi_core_stomp(fixed=False):
    def kernel(k, buf):
        out = buf[k.GetBlockIdx() * 16] if fixed else buf
        k.SetValue(out, 0, float(k.GetBlockIdx() + 1))

    return kernel


KERNELS = {
    "ms_sanitizer_add": (
        ms_sanitizer_add(False),
        ms_sanitizer_add(True),
        8,
        (8 * 2048 * 4,) * 3,
        {("racecheck", "RAW")},
    ),
    "raw_hazard_demo": (
        raw_hazard_demo(),
        raw_hazard_demo(True),
        2,
        (256 * 4,),
        {("racecheck", "RAW"), ("racecheck", "RAW across cores"), ("racecheck", "WAR across cores")},
    ),
    "pipeline_hazards": (
        pipeline_hazards(),
        pipeline_hazards(True),
        1,
        (3 * 256 * 4,),
        {("racecheck", "WAW"), ("racecheck", "RAW"), ("racecheck", "WAR")},
    ),
    "cross_core_hazards": (
        cross_core_hazards(),
        cross_core_hazards(True),
        2,
        (3 * 256 * 4,),
        {
            ("memcheck", "multi-core stomp"),
            ("racecheck", "RAW across cores"),
            ("racecheck", "WAR across cores"),
        },
    ),
    "copy_demo": (copy_demo(), copy_demo(True), 1, (256, 256), {("synccheck", "unpaired set_flag")}),
    "multi_core_stomp": (
        multi_core_stomp(),
        multi_core_stomp(True),
        2,
        (256 * 4,),
        {("memcheck", "multi-core stomp")},
    ),
}
