"""The strided-operand core: N strided tensor sources (each with its block and repeat stride), one
destination, and the rules every vector API shares -- addresses, fault checks (outside UB,
misaligned, partial overlap, repeat dependency, ``dstBlkStride == 0``, scratch collision, the
closing mask / parameter / bucket faults), 64-bit (low, high) pair lanes and program-order writes --
each written once, here. ``run_strided`` applies an element function lane-wise:

  lane plan (lanes.py) -> addresses -> faults -> gather -> element function -> program-order
  merge -> scatter -> register side effects.

Families with a different ending (Compare's bit packing, Select's selMask: binary.py; GatherMask's
compaction: compact.py) call the same helpers.

``run_strided`` is jitted with everything shape-setting static (``StridedStatic``) and everything
else traced (the ``dyn`` dict), so one compilation serves every address, stride, mask, scalar and
repeat count of a bucket. ``dyn``: ``dst``, one address per source (``StridedStatic.srcs``),
``strides`` int32[2 + 2N] = (dstBlkStride, srcBlkStride per source, dstRepStride, srcRepStride per
source) -- UnaryRepeatParams for N = 1, BinaryRepeatParams for N = 2 --, ``scalar``, ``bad_param``,
``bad_mask`` and the lane-plan fields (lanes.py).
"""

import dataclasses
import functools

import jax
import jax.numpy as jnp

from .. import checks as CK
from ..errors import Fault
from ..state import add_warnings
from . import lanes as LN
from . import memory as MEM
from .lanes import KIND_BITWISE, KIND_CONTINUOUS, KIND_COUNT, KIND_COUNT_REGISTER, KIND_REGISTER  # noqa: F401

U32 = jnp.uint32
I32 = jnp.int32


@dataclasses.dataclass(frozen=True)
class StridedStatic:
    """Static (hashable) description of one elementwise call; the compilation key.

    elem: ``elem(*src_lanes, scalar_bits, dtype, profile, ctrl, dyn)`` -> result lane bits
      (uint32 [R, L], or [R, L, 2] for 64-bit T), or ``(bits, bad_lanes)`` where ``bad_lanes``
      (bool [R, L]) marks lanes whose operands are invalid (a BAD_PARAM fault when active).
    srcs: the ``dyn`` keys of the strided tensor sources (0, 1, 2 or more).
    literal: the sources read at their literal (possibly misaligned) byte address, for operands whose
      data decide a fault (a misaligned call is suppressed anyway).
    kind: the call form, a lanes.KIND_* (static) or None (traced ``dyn["kind"]``).
    ordered: dst blocks of two repeats may coincide: write repeat by repeat in program order.
    api: the API (scratch regions it uses), or "*" with ``api_codes``: ``dyn["op"]`` selects it.
    """

    api: str
    dtype: object
    R: int
    ordered: bool
    profile: object
    elem: object
    srcs: tuple = ("src",)
    literal: tuple = ()
    kind: object = None
    api_codes: tuple = ()


# -- the shared pieces (also used by binary.py and compact.py) -----------------------------------


def any_fault(cond, bit):
    return jnp.where(jnp.any(cond), U32(bit), U32(0))


def closing_faults(plan, bad_mask, bad_param):
    """The faults every call closes with: UNDEFINED (zero policy "fault"), BAD_MASK, BAD_PARAM,
    BUCKET_OVERFLOW (not for a NOP)."""
    fault = jnp.where(plan.undef, U32(Fault.UNDEFINED), U32(0))
    fault |= jnp.where(plan.bad_mask | bad_mask, U32(Fault.BAD_MASK), U32(0))
    fault |= jnp.where(bad_param, U32(Fault.BAD_PARAM), U32(0))
    return fault | jnp.where(plan.overflow & ~plan.nop, U32(Fault.BUCKET_OVERFLOW), U32(0))


def regions_used(p, api, dyn=None, api_codes=()):
    """((first byte, end byte, in use), ...) of the reserved UB regions the call uses; ``in use`` is
    a Python bool, or a traced bool when the API is traced data (api == "*")."""
    out = []
    for reg in p.reserved:
        if api != "*":
            use = api in reg.used_by
        else:
            use = jnp.zeros((), bool)
            for code, name in enumerate(api_codes):
                if name in reg.used_by:
                    use = use | (dyn["op"] == code)
        if use is not False:
            out.append((reg.offset_bytes, reg.offset_bytes + reg.size_bytes, use))
    return tuple(out)


def footprint_faults(footprint, limit, regions):
    """OUT_OF_UB and SCRATCH_COLLISION over ``footprint``: (byte start, static length, active) of
    every byte range the call touches."""
    fault = jnp.zeros((), U32)
    for start, n, a in footprint:
        fault |= any_fault(a & ((start < 0) | (start + n > limit)), Fault.OUT_OF_UB)
        for lo, hi, use in regions:
            fault |= any_fault(a & (start < hi) & (start + n > lo) & use, Fault.SCRATCH_COLLISION)
    return fault


def strided_dst_faults(d_addr, sources, blk_act, any_act, db):
    """A strided dst against strided sources ((block addresses, repeat stride), ...): partial
    overlap, repeat dependency, ``dstBlkStride == 0``."""
    fault = jnp.where(any_act & (db == 0), U32(Fault.DST_BLK_STRIDE_ZERO), U32(0))
    for s_addr, s_rep in sources:
        fault |= MEM.partial_overlap_fault(s_addr, d_addr, blk_act)
        fault |= MEM.repeat_dependency_fault(d_addr, s_addr, blk_act, blk_act, s_rep)
    return fault


def read_lanes(ub, baddr, dtype, literal=False):
    """The lanes of a strided operand (block byte addresses [R, 8]) as uint32 bits: [R, L], or
    [R, L, 2] (low, high) word pairs for 64-bit T (no jax_enable_x64 needed)."""
    msize = min(dtype.itemsize, 4)
    blocks = MEM.gather_blocks_at(ub, baddr) if literal else MEM.gather_blocks(ub, MEM.block_index(baddr))
    lanes = MEM.words_to_lanes(MEM.blocks_to_words(blocks), msize)
    return lanes.reshape(lanes.shape[0], -1, 2) if dtype.itemsize == 8 else lanes


def write_lanes(ub, d_addr, new, act, write, ordered, dtype):
    """Write result lanes ``new`` ([R, L] or [R, L, 2] uint32) over the active lanes of the dst
    blocks ``d_addr`` whose ``write`` flag is set; ``ordered``: blocks may coincide, so repeat by
    repeat in program order (docs/MODEL.md "Writes"), else one masked scatter."""
    R = act.shape[0]
    msize = min(dtype.itemsize, 4)
    wide = dtype.itemsize == 8  # both halves of a 64-bit lane share its activity
    act_m = jnp.repeat(act, 2, axis=1) if wide else act
    new_w = MEM.lanes_to_words(new.reshape(R, -1).astype(U32), msize)
    mask = MEM.lane_mask_words(act_m, msize)
    d_idx = MEM.block_index(d_addr)
    if not ordered:  # no two dst blocks of the call can coincide: one masked scatter
        old = MEM.gather_words(ub, d_idx)
        return MEM.scatter_words(ub, d_idx, (new_w & mask) | (old & ~mask), write)
    return MEM.write_program_order(ub, d_idx, new_w, mask, write)


def finish(state, plan, fault, ub, **extra):
    """The new state: UB, registers (a faulting or NOP call leaves them), fault bits."""
    change = (fault == 0) & ~plan.nop
    vmask = jnp.where(change, plan.vmask, state.vmask)
    mode = jnp.where(change, plan.mask_mode, state.mask_mode)
    return state.replace(ub=ub, vmask=vmask, mask_mode=mode, fault=state.fault | fault, **extra)


# -- checker warnings (docs/MODEL.md "Checker warnings"; never change a result bit) -------------


def set_extents(dyn, **tensors):
    """Record the LocalTensor size (bytes, traced) of each operand key of ``dyn`` for the extent
    checker: ``set_extents(dyn, dst=dst, src0=src0, ...)``."""
    dyn["ext"] = {k: jnp.asarray(t.nbytes, I32) for k, t in tensors.items()}


def lane_addrs(baddr, dtype):
    """int32[R, 8E]: byte address of every lane of a strided operand (block addresses [R, 8])."""
    E = 32 // dtype.itemsize
    off = jnp.arange(E, dtype=I32) * dtype.itemsize
    return (baddr[:, :, None] + off[None, None, :]).reshape(baddr.shape[0], -1)


def lane_bytes_written(written, la, dtype):
    """bool[R, L]: every byte of each lane (addresses ``la``) is marked in ``written``."""
    idx = la[..., None] + jnp.arange(dtype.itemsize, dtype=I32)
    n = written.shape[-1]
    w = written[jnp.clip(idx, 0, n - 1)]
    return jnp.all((w != 0) & (idx >= 0) & (idx < n), axis=-1)


def mark_lanes_written(written, la, act, dtype):
    """``written`` with every byte of the ``act`` lanes at addresses ``la`` set."""
    n = written.shape[-1]
    idx = (la[..., None] + jnp.arange(dtype.itemsize, dtype=I32)).reshape(-1)
    val = jnp.broadcast_to(act[..., None], la.shape + (dtype.itemsize,)).reshape(-1)
    idx = jnp.where(val & (idx >= 0) & (idx < n), idx, n)  # n: out of bounds, dropped
    return written.at[idx].max(val.astype(jnp.uint8), mode="drop")


def strided_warnings(st, state, new_state, dyn, act, ran, operands):
    """The warnings of one strided call that ran (``ran``): EXTENT for every operand (dst first, then
    the sources) with an active lane outside its LocalTensor, UNINIT for every source with an
    active lane holding a byte never written; then the dst's active lanes are marked written.
    ``operands``: ((key, block addresses [R, 8]), ...), dst first."""
    if new_state.warn is None:
        return new_state
    dt = st.dtype
    if st.api == "*":
        api = jnp.asarray([CK.api_code(n) for n in st.api_codes], I32)[dyn["op"]]
    else:
        api = CK.api_code(st.api)
    ext = dyn.get("ext", {})
    las = {k: lane_addrs(b, dt) for k, b in operands}
    hits = []
    for k, _ in operands:
        if k in ext:
            base = jnp.asarray(dyn[k], I32)
            out = (las[k] < base) | (las[k] + dt.itemsize > base + ext[k])
            hits.append((CK.Warn.EXTENT, api, CK.arg_code(k), ran & jnp.any(act & out)))
    written = state.written
    if written is not None:
        for k, _ in operands[1:]:
            unw = ~lane_bytes_written(written, las[k], dt)
            hits.append((CK.Warn.UNINIT, api, CK.arg_code(k), ran & jnp.any(act & unw)))
    new_state = add_warnings(new_state, hits)
    if written is not None:
        dkey = operands[0][0]
        new_state = new_state.replace(written=mark_lanes_written(written, las[dkey], act & ran, dt))
    return new_state


# -- the elementwise core ------------------------------------------------------------------------


@functools.partial(jax.jit, static_argnums=0)
def run_strided(st: StridedStatic, state, dyn):
    p, dt, R = st.profile, st.dtype, st.R
    N = len(st.srcs)
    E = p.block_bytes // dt.itemsize
    plan = LN.plan(p, dt, R, state, dyn, kind=st.kind)
    act = plan.act
    blk_act = jnp.any(act.reshape(R, 8, E), axis=-1)
    any_act = jnp.any(blk_act)
    s = [dyn["strides"][i] for i in range(2 + 2 * N)]
    d_addr = MEM.block_addr(dyn["dst"], s[0], s[N + 1], R)
    srcs = [(MEM.block_addr(dyn[k], s[1 + i], s[N + 2 + i], R), s[N + 2 + i]) for i, k in enumerate(st.srcs)]
    limit = min(state.ub.shape[-1], p.ub_usable_bytes)
    footprint = [(a, p.block_bytes, blk_act) for a in [d_addr] + [a for a, _ in srcs]]
    fault = footprint_faults(footprint, limit, regions_used(p, st.api, dyn, st.api_codes))
    starts = (dyn["dst"],) + tuple(dyn[k] for k in st.srcs)
    fault |= MEM.misaligned_fault(starts, any_act, p.operand_alignment_bytes)
    fault |= strided_dst_faults(d_addr, srcs, blk_act, any_act, s[0])
    xs = [read_lanes(state.ub, a, dt, k in st.literal) for (a, _), k in zip(srcs, st.srcs, strict=True)]
    out = st.elem(*xs, dyn.get("scalar"), dt, p, state.ctrl, dyn)
    bad_param = dyn["bad_param"]
    if isinstance(out, tuple):
        out, bad_lanes = out
        bad_param = bad_param | jnp.any(bad_lanes & act)
    fault |= closing_faults(plan, dyn["bad_mask"], bad_param)
    ub = write_lanes(state.ub, d_addr, out, act, blk_act & (fault == 0), st.ordered, dt)
    operands = (("dst", d_addr),) + tuple((k, a) for k, (a, _) in zip(st.srcs, srcs, strict=True))
    ran = (fault == 0) & ~plan.nop
    return strided_warnings(st, state, finish(state, plan, fault, ub), dyn, act, ran, operands)


run_unary = run_strided  # the former name (tests count its compiled programs)
