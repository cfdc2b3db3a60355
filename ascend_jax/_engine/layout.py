"""The data-layout APIs on UB bytes: Transpose and TransDataTo5HD (数据排布转换/), Interleave and
DeInterleave (数据重排（ISASI）/). docs/MODEL.md "Data layout" has the rules.

Every API of this family only moves elements (each output element is one input element, bit for
bit), so each program is a gather of source elements followed by one masked scatter:

* ``run_transpose``: ``Transpose`` (16x16 two-byte transpose, the enhanced TransposeParamsExt forms
  ND2ND_B16 / NCHW2NHWC / NHWC2NCHW). The transpose type and the sizes are traced data; the 16x16
  map is a static table. One program per (dtype, element bucket).
* ``run_5hd``: ``TransDataTo5HD``: 16 source and 16 destination DataBlock addresses per repeat (a
  traced list, or read from two LocalTensor<uint64_t> address tables in UB), repeats with the
  page's repeat-stride rule; the per-repeat byte permutation of each element width is a static
  table. One program per (dtype, repeat bucket, address-table form).
* ``run_pair``: ``Interleave`` and both ``DeInterleave`` prototypes: the API (``dyn["op"]``) and the
  count are traced. One program per (dtype, element bucket) serves the three.

Faults are decided before any write and suppress the whole call (shared helpers of
``pipeline.py`` / ``memory.py``); a traced parameter outside its range records only ``BAD_PARAM``;
``BUCKET_OVERFLOW`` (model limit) is recorded only when the slots the bucket covers show no fault.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import Fault
from . import memory as MEM
from . import static as S
from .pipeline import any_fault, footprint_faults, regions_used

U32 = jnp.uint32
I32 = jnp.int32
F32 = jnp.float32

# transpose kinds (engine codes of TransposeType)
TT_NONE, TT_B16, TT_NCHW2NHWC, TT_NHWC2NCHW = 0, 1, 2, 3
# Interleave / DeInterleave (two sources) / DeInterleave (one source)
OP_INTERLEAVE, OP_DEINTERLEAVE2, OP_DEINTERLEAVE1 = 0, 1, 2
_BIG = 1 << 24  # a clamp for element totals far beyond any UB (keeps int32 byte arithmetic exact)


def _meet(a0, n0, a1, n1):
    """Byte ranges [a0, a0+n0) and [a1, a1+n1) intersect (both non-empty)."""
    return (n0 > 0) & (n1 > 0) & (a0 < a1 + n1) & (a1 < a0 + n0)


def _gather_elements(ub, byte_addr, size):
    """uint8[..., size]: the element at each byte address; bytes outside the UB read as 0 (such a
    call is an OUT_OF_UB fault and writes nothing)."""
    n = ub.shape[-1]
    idx = byte_addr[..., None] + np.arange(size, dtype=np.int32)
    ok = (idx >= 0) & (idx < n)
    return jnp.where(ok, jnp.take(ub, jnp.clip(idx, 0, n - 1)), jnp.uint8(0))


def _scatter_elements(state, byte_addr, data, write, size):
    """Write ``data[..., size]`` at ``byte_addr`` where ``write`` (the written bytes are distinct:
    one scatter); the ``written`` map (check_uninit) marks them."""
    n = state.ub.shape[-1]
    idx = byte_addr[..., None] + np.arange(size, dtype=np.int32)
    tgt = jnp.where(write[..., None], idx, n).reshape(-1)  # n = one past the end: dropped
    ub = state.ub.at[tgt].set(data.reshape(-1), mode="drop")
    if state.written is None:
        return state.replace(ub=ub)
    written = state.written.at[tgt].set(jnp.uint8(1), mode="drop")
    return state.replace(ub=ub, written=written)


def _limit(state, p):
    return min(state.ub.shape[-1], p.ub_usable_bytes)


def _misaligned(addrs, use, align):
    bad = jnp.zeros((), bool)
    for a, u in zip(addrs, use, strict=True):
        bad = bad | (u & (jnp.asarray(a, I32) % align != 0))
    return jnp.where(bad, U32(Fault.MISALIGNED), U32(0))


def _close(fault, bad_param, run, overflow):
    """The closing order of every call: BAD_PARAM alone; nothing for a NOP; the range faults; then
    BUCKET_OVERFLOW when the call would otherwise run."""
    fault = jnp.where(run, fault, U32(0))
    fault = fault | jnp.where(run & (fault == 0) & overflow, U32(Fault.BUCKET_OVERFLOW), U32(0))
    return jnp.where(bad_param, U32(Fault.BAD_PARAM), fault)


# ---------------------------------------------------------------------------------------------
# Transpose


@dataclasses.dataclass(frozen=True)
class TransposeStatic:
    dtype: object
    B: int  # element slots (static bucket)
    profile: object


_B16_MAP = (np.arange(256) % 16) * 16 + np.arange(256) // 16  # dst element k <- src element


@S.entry
def run_transpose(st: TransposeStatic, state, dyn):
    p, dt, B = st.profile, st.dtype, st.B
    size = dt.itemsize
    tt = dyn["type"]
    n, c, hw = (jnp.asarray(dyn[k], I32) for k in ("n", "c", "hw"))
    b16 = tt == TT_B16
    nchw = (tt == TT_NCHW2NHWC) | (tt == TT_NHWC2NCHW)
    big = n.astype(F32) * c.astype(F32) * hw.astype(F32) > _BIG
    total = jnp.where(b16, 256, jnp.where(nchw, jnp.where(big, _BIG, n * c * hw), 0))
    run = total > 0
    nbytes = total * size
    need = jnp.where(nchw, jnp.asarray(dyn["need"], I32), 0)
    d, s, t = (jnp.asarray(dyn[k], I32) for k in ("dst", "src", "tmp"))
    use_tmp = run & (need > 0)
    align = p.operand_alignment_bytes
    fault = _misaligned((d, s, t), (run, run, use_tmp), align)
    footprint = [(d, nbytes, run), (s, nbytes, run), (t, need, use_tmp)]
    fault |= footprint_faults(footprint, _limit(state, p), regions_used(p, "Transpose"))
    # SPEC: "普通转置接口支持src和dst复用" / "transposeType为TRANSPOSE_NCHW2NHWC、TRANSPOSE_NHWC2NCHW时
    #       不支持src和dst复用": the 16x16 form allows dst == src exactly, the NCHW forms no overlap
    same = b16 & (d == s)
    overlap = _meet(d, nbytes, s, nbytes) & ~same
    overlap |= use_tmp & (_meet(t, need, s, nbytes) | _meet(t, need, d, nbytes))
    fault |= any_fault(run & overlap, Fault.PARTIAL_OVERLAP)
    fault = _close(fault, dyn["bad_param"], run, total > B)
    # element map: dst element k <- src element src_of[k]
    k = jnp.arange(B, dtype=I32)
    cs, hws = jnp.maximum(c, 1), jnp.maximum(hw, 1)
    # NCHW2NHWC: dst [n, hw, c] <- src [n, c, hw]
    ci, t1 = k % cs, k // cs
    a = (t1 // hws * cs + ci) * hws + t1 % hws
    # NHWC2NCHW: dst [n, c, hw] <- src [n, hw, c]
    pi, t2 = k % hws, k // hws
    b = (t2 // cs * hws + pi) * cs + t2 % cs
    b16_map = np.zeros(B, np.int32)
    b16_map[: min(B, 256)] = _B16_MAP[: min(B, 256)]
    src_of = jnp.where(b16, jnp.asarray(b16_map), jnp.where(tt == TT_NCHW2NHWC, a, b))
    act = k < total
    data = _gather_elements(state.ub, s + jnp.where(act, src_of, 0) * size, size)
    out = _scatter_elements(state, d + k * size, data, act & (fault == 0), size)
    return out.replace(fault=state.fault | fault)


# ---------------------------------------------------------------------------------------------
# TransDataTo5HD


@dataclasses.dataclass(frozen=True)
class Nchw5hdStatic:
    dtype: object
    R: int  # repeat slots (static bucket)
    profile: object
    table: bool  # the addresses are read from two LocalTensor<uint64_t> tables in UB


def _perm_tables(size):
    """(perm[V, 512], mask[V, 512]): dst byte q of a repeat's 16 DataBlocks (block q // 32) comes
    from src byte perm[q] of the 16 source blocks; only bytes with mask[q] are written. V = 4
    variants (srcHighHalf, dstHighHalf) for 8-bit T, else 1."""
    perm = np.zeros((4 if size == 1 else 1, 512), np.int32)
    mask = np.zeros_like(perm, dtype=bool)
    if size == 2:
        # SPEC: b16 "从指定的16个DataBlock中的对应位置取值，组成1个新的DataBlock": dst block j,
        #       element i = src block i, element j
        for j in range(16):
            for i in range(16):
                for byte in range(2):
                    perm[0, j * 32 + 2 * i + byte] = i * 32 + 2 * j + byte
        mask[0] = True
    elif size == 4:
        # SPEC: b32 "组成2个新的DataBlock": dst blocks 2j, 2j+1 = element j of src blocks 0..7, 8..15
        for j in range(8):
            for h in range(2):
                for e in range(8):
                    for byte in range(4):
                        perm[0, (2 * j + h) * 32 + 4 * e + byte] = (8 * h + e) * 32 + 4 * j + byte
        mask[0] = True
    else:
        # SPEC: b8 "组成半个DataBlock放入目的地址中 ... 高半部分还是低半部分由参数srcHighHalf和
        #       dstHighHalf决定": dst block j, byte 16*dh + i = src block i, byte 16*sh + j
        for sh in range(2):
            for dh in range(2):
                v = 2 * sh + dh
                for j in range(16):
                    for i in range(16):
                        perm[v, j * 32 + 16 * dh + i] = i * 32 + 16 * sh + j
                        mask[v, j * 32 + 16 * dh + i] = True
    return perm, mask


def read_address_table(ub, addr):
    """int32[16]: 16 little-endian uint64 addresses at ``addr``; a value that cannot be a UB
    address (>= 2**30) becomes 2**30 + (value mod 32): outside every UB, same alignment."""
    raw = _gather_elements(ub, jnp.asarray(addr, I32) + 8 * jnp.arange(16, dtype=I32), 8)
    words = jax.lax.bitcast_convert_type(raw.reshape(16, 2, 4), U32)  # [16, 2] (low, high)
    lo, hi = words[:, 0], words[:, 1]
    far = (hi != 0) | (lo >= U32(1 << 30))
    return jnp.where(far, (1 << 30) + (lo & U32(31)).astype(I32), lo.astype(I32))


@S.entry
def run_5hd(st: Nchw5hdStatic, state, dyn):
    p, dt, R = st.profile, st.dtype, st.R
    size, bb = dt.itemsize, p.block_bytes
    limit = _limit(state, p)
    align = p.operand_alignment_bytes
    rep = jnp.asarray(dyn["repeat"], I32)
    run = rep > 0  # SPEC: "repeatTimes=0表示不会执行转换操作 ... 该接口将被视为NOP"
    if st.table:
        tabs = (jnp.asarray(dyn["dst_tab"], I32), jnp.asarray(dyn["src_tab"], I32))
        tab_fault = _misaligned(tabs, (run, run), align)
        tab_fault |= footprint_faults([(a, 128, run) for a in tabs], limit, regions_used(p, "TransDataTo5HD"))
        d_list, s_list = read_address_table(state.ub, tabs[0]), read_address_table(state.ub, tabs[1])
    else:
        tab_fault = U32(0)
        d_list, s_list = jnp.asarray(dyn["dst_list"], I32), jnp.asarray(dyn["src_list"], I32)
    r = jnp.arange(R, dtype=I32)
    # SPEC: "当repeatTimes为1时，目的操作数/源操作数的有效起始位置为dstList/srcList序列输入的起始位置
    #       加上dstRepStride/srcRepStride ... 当repeatTimes大于1时，第一次repeat中 ... 为dstList/srcList
    #       序列输入的起始位置，第二次需要加上dstRepStride/srcRepStride"
    d_step = jnp.where(rep == 1, 1, r) * jnp.asarray(dyn["dst_rep"], I32) * bb
    s_step = jnp.where(rep == 1, 1, r) * jnp.asarray(dyn["src_rep"], I32) * bb
    d_addr = d_list[None, :] + d_step[:, None]  # [R, 16]
    s_addr = s_list[None, :] + s_step[:, None]
    act = jnp.broadcast_to((r < rep)[:, None], (R, 16))
    # SPEC: "LocalTensor的起始地址需要按照32字节对齐" (every address of both lists)
    fault = any_fault(run & ((d_list % align != 0) | (s_list % align != 0)), Fault.MISALIGNED)
    fault |= footprint_faults(
        [(d_addr, bb, act), (s_addr, bb, act)], limit, regions_used(p, "TransDataTo5HD")
    )
    # overlap rules (通用地址重叠约束): within a repeat, src block i at the address of dst block j != i;
    # a dst block of repeat r read as a src block by a later repeat
    eq = (s_addr[:, :, None] == d_addr[:, None, :]) & ~np.eye(16, dtype=bool)[None]
    fault |= any_fault(eq & act[:, :, None], Fault.PARTIAL_OVERLAP)
    src_rep_eff = jnp.where(rep == 1, 0, jnp.asarray(dyn["src_rep"], I32))
    fault |= MEM.repeat_dependency_fault(d_addr, s_addr, act, act, src_rep_eff, bb)
    fault = jnp.where(tab_fault != 0, tab_fault, fault)
    fault = _close(fault, dyn["bad_param"], run, rep > R)
    # data: the 16 source blocks of every repeat, then the static byte permutation
    src = MEM.gather_blocks(state.ub, MEM.block_index(s_addr, bb), bb).reshape(R, 16 * bb)
    perm, mask = _perm_tables(size)
    if size == 1:
        v = 2 * jnp.asarray(dyn["src_high"], I32) + jnp.asarray(dyn["dst_high"], I32)
        perm_v, mask_v = jnp.asarray(perm)[v], jnp.asarray(mask)[v]
    else:
        perm_v, mask_v = jnp.asarray(perm[0]), jnp.asarray(mask[0])
    out = jnp.take(src, perm_v, axis=1).reshape(R, 16, bb)
    words = MEM.blocks_to_words(out)
    mbytes = jnp.broadcast_to(jnp.where(mask_v, jnp.uint8(255), jnp.uint8(0)), (R, 16 * bb))
    mwords = MEM.blocks_to_words(mbytes.reshape(R, 16, bb))
    # CHOICE: two dst list entries naming one DataBlock in a repeat: the later entry wins
    later = jnp.triu(jnp.ones((16, 16), bool), 1)  # [j, j']: j' > j
    superseded = jnp.any((d_addr[:, :, None] == d_addr[:, None, :]) & later[None] & act[:, None, :], axis=2)
    write = act & ~superseded & (fault == 0)
    ub = MEM.write_program_order(state.ub, MEM.block_index(d_addr, bb), words, mwords, write, bb)
    new = state.replace(ub=ub, fault=state.fault | fault)
    if state.written is not None:
        n = state.written.shape[-1]
        idx = d_addr[..., None] + np.arange(bb, dtype=np.int32)
        wrote = write[..., None] & mask_v.reshape(1, 16, bb)  # b8: only the half written
        tgt = jnp.where(wrote, idx, n).reshape(-1)
        new = new.replace(written=state.written.at[tgt].set(jnp.uint8(1), mode="drop"))
    return new


# ---------------------------------------------------------------------------------------------
# Interleave / DeInterleave


@dataclasses.dataclass(frozen=True)
class PairStatic:
    dtype: object
    B: int  # element slots per dst (static bucket)
    profile: object


def _zero_count_fault(p):
    return U32(Fault.UNDEFINED) if p.zero_count == "fault" else U32(0)


@S.entry
def run_pair(st: PairStatic, state, dyn):
    p, dt, B = st.profile, st.dtype, st.B
    size = dt.itemsize
    op = jnp.asarray(dyn["op"], I32)
    count = jnp.asarray(dyn["count"], I32)
    one_src = op == OP_DEINTERLEAVE1
    n_out = jnp.where(one_src, count // 2, count)  # elements written to each dst
    n_in = count  # elements read from each source
    d0, d1, s0, s1 = (jnp.asarray(dyn[k], I32) for k in ("dst0", "dst1", "src0", "src1"))
    run = count != 0
    use1 = run & ~one_src
    out_b, in_b = n_out * size, n_in * size
    fault = _misaligned((d0, d1, s0, s1), (run, run, run, use1), p.operand_alignment_bytes)
    footprint = [(d0, out_b, run), (d1, out_b, run), (s0, in_b, run), (s1, in_b, use1)]
    fault |= footprint_faults(footprint, _limit(state, p), regions_used(p, "Interleave"))
    # SPEC: "不支持源操作数与目的操作数地址重叠"; CHOICE: dst0 and dst1 sharing a byte too
    in1 = jnp.where(one_src, 0, in_b)
    overlap = _meet(d0, out_b, d1, out_b)
    for dd in (d0, d1):
        overlap |= _meet(dd, out_b, s0, in_b) | _meet(dd, out_b, s1, in1)
    fault |= any_fault(run & overlap, Fault.PARTIAL_OVERLAP)
    # a zero count follows behavior.zero_count (nop, or the UNDEFINED fault)
    zero = jnp.where(count == 0, _zero_count_fault(p), U32(0))
    fault = _close(fault, dyn["bad_param"], run, n_out > B) | jnp.where(dyn["bad_param"], U32(0), zero)
    # element map: dst d, element k <- (source, element)
    k = jnp.arange(B, dtype=I32)[None, :]
    dsel = jnp.arange(2, dtype=I32)[:, None]
    cnt = jnp.maximum(count, 1)
    # Interleave: the sequence src0[0], src1[0], src0[1], src1[1], ... split into dst0 then dst1
    g = dsel * count + k
    which_i, elem_i = g % 2, g // 2
    # DeInterleave: dst d takes the elements 2k + d of src0 followed by src1 (or of src)
    x = 2 * k + dsel
    which_d = jnp.where(one_src, 0, x // cnt)
    elem_d = jnp.where(one_src, x, x % cnt)
    which = jnp.where(op == OP_INTERLEAVE, which_i, which_d)
    elem = jnp.where(op == OP_INTERLEAVE, elem_i, elem_d)
    act = jnp.broadcast_to(k < n_out, (2, B))
    s_byte = jnp.where(which == 0, s0, s1) + jnp.where(act, elem, 0) * size
    data = _gather_elements(state.ub, s_byte, size)
    d_byte = jnp.where(dsel == 0, d0, d1) + k * size
    out = _scatter_elements(state, d_byte, data, act & (fault == 0), size)
    return out.replace(fault=state.fault | fault)
