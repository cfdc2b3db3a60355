"""Sorting and Region Proposals on the UB (排序组合（ISASI）; docs/MODEL.md "Sorting and Region
Proposals"): Sort32, the 4-way merge of MrgSort / MrgSort4, RpSort16, ProposalConcat /
ProposalExtract.

Order: scores become int32 keys ordered by value (-0 == +0; NaN above or below everything, the
profile's ``nan_order``), and every sort is a stable sort on the key with the input position as the
tie-break (``lax.sort(..., is_stable=True)``), so equal scores keep their input order. A k-way merge
of queues is the stable sort of the queues laid end to end on each record's *running minimum*
key (the least key up to it in its queue): a merge takes a queue's record exactly when it takes the
queue's smaller predecessor, so sorted or not, the queues come out as a literal merge takes them.

Operands are contiguous byte ranges read with one gather and written with one scatter (no pass
over the whole UB). Each ``run_*`` is jitted with a static description (dtype, buckets, profile)
and a traced ``dyn`` (addresses, repeat, lengths, the checker's tensor sizes).
"""

import dataclasses

import jax.numpy as jnp
from jax import lax

from .. import checks as CK
from ..errors import Fault
from ..state import add_warnings
from . import static as S
from .pipeline import any_fault, footprint_faults, regions_used

U32 = jnp.uint32
I32 = jnp.int32
_EXP_ALL_ONES = {2: 0x7C00, 4: 0x7F800000}
_MAG = {2: 0x7FFF, 4: 0x7FFFFFFF}


@dataclasses.dataclass(frozen=True)
class SortStatic:
    api: str
    dtype: object
    R: int  # repeat bucket
    profile: object
    L: int = 0  # merge: records per queue (bucket)
    nq: int = 4  # merge: valid queues
    suspension: bool = False  # merge: ifExhaustedSuspension


# -- bytes ----------------------------------------------------------------------------------------


def read_bytes(ub, start, n):
    """uint8[n] at byte ``start`` (bytes outside the UB read as zero; such a call faults anyway)."""
    idx = jnp.asarray(start, I32) + jnp.arange(n, dtype=I32)
    return jnp.take(ub, idx, mode="fill", fill_value=0)


def write_bytes(ub, idx, data, act):
    """``ub`` with ``data`` at the byte indices ``idx`` where ``act`` (distinct indices)."""
    n = ub.shape[-1]
    tgt = jnp.where(act & (idx >= 0) & (idx < n), idx, n)
    return ub.at[tgt.reshape(-1)].set(data.reshape(-1), mode="drop")


def _u32(b):
    """uint8[..., 4] little endian -> uint32[...]."""
    b = b.astype(U32)
    return b[..., 0] | (b[..., 1] << 8) | (b[..., 2] << 16) | (b[..., 3] << 24)


def _bits(b, size):
    """uint8[..., size] -> uint32 element bits."""
    b = b.astype(U32)
    return b[..., 0] | (b[..., 1] << 8) if size == 2 else _u32(b)


def _to_bytes(w, size):
    """uint32[...] -> uint8[..., size] little endian."""
    return jnp.stack([(w >> U32(8 * i)) & U32(0xFF) for i in range(size)], axis=-1).astype(jnp.uint8)


def score_key(bits, size, nan_order):
    """int32 key, greater = greater score: sign-magnitude to two's complement (so -0 == +0),
    NaN at INT32_MAX ("largest") or INT32_MIN ("smallest")."""
    mag = (bits & U32(_MAG[size])).astype(I32)
    neg = (bits >> U32(8 * size - 1)) & U32(1)
    k = jnp.where(neg == 1, -mag, mag)
    nan = mag > _EXP_ALL_ONES[size]
    return jnp.where(nan, I32(2**31 - 1) if nan_order == "largest" else I32(-(2**31)), k)


def stable_desc_perm(key, invalid=None):
    """Permutation sorting ``key`` descending along the last axis, ties in input order; entries
    flagged ``invalid`` go last."""
    iota = lax.broadcasted_iota(I32, key.shape, key.ndim - 1)
    ops = (~key, iota) if invalid is None else (invalid.astype(I32), ~key, iota)
    return lax.sort(ops, dimension=key.ndim - 1, is_stable=True, num_keys=len(ops) - 1)[-1]


def zero_fault(p, zero):
    """repeatTime 0 under ``behavior.zero_repeat`` ("nop": nothing; "fault": UNDEFINED)."""
    if p.zero_repeat == "fault":
        return jnp.where(zero, U32(Fault.UNDEFINED), U32(0))
    return U32(0)


def _misaligned(addrs, al, on):
    bad = jnp.zeros((), bool)
    for a in addrs:
        bad = bad | (jnp.asarray(a, I32) % al != 0)
    return jnp.where(bad & on, U32(Fault.MISALIGNED), U32(0))


def _range_faults(p, state, api, ranges, on):
    """OUT_OF_UB / SCRATCH_COLLISION over byte ranges [(lo, hi)] (hi > lo where the call runs)."""
    limit = min(state.ub.shape[-1], p.ub_usable_bytes)
    fp = [(lo, hi - lo, on & (hi > lo)) for lo, hi in ranges]
    return footprint_faults(fp, limit, regions_used(p, api))


def _overlap(a, b):
    return (a[1] > a[0]) & (b[1] > b[0]) & (a[0] < b[1]) & (b[0] < a[1])


def extent_warnings(api, state, dyn, ran, operands, size_hits=()):
    """EXTENT for each operand (key, lo, hi) whose accessed bytes leave its LocalTensor
    (``dyn["ext"][key]`` bytes at ``dyn[key]``); dst first. Then ``size_hits``: (key, bool) SIZE
    warnings (a documented requirement the call does not meet)."""
    if state.warn is None:
        return state
    ext = dyn.get("ext", {})
    hits = []
    for key, lo, hi in operands:
        if key in ext:
            base = jnp.asarray(dyn[key], I32)
            out = (hi > lo) & ((lo < base) | (hi > base + ext[key]))
            hits.append((CK.Warn.EXTENT, CK.api_code(api), CK.arg_code(key), ran & out))
    for key, cond in size_hits:
        hits.append((CK.Warn.SIZE, CK.api_code(api), CK.arg_code(key), ran & cond))
    return add_warnings(state, hits)


def _closing(dyn, rep, R):
    f = jnp.where(dyn["bad_param"], U32(Fault.BAD_PARAM), U32(0))
    return f | jnp.where(rep > R, U32(Fault.BUCKET_OVERFLOW), U32(0))


# -- Sort32 ----------------------------------------------------------------------------------------


@S.entry
def run_sort32(st: SortStatic, state, dyn):
    p, size, R = st.profile, st.dtype.itemsize, st.R
    rep = dyn["repeat"]
    on = rep > 0
    d, s0, s1 = dyn["dst"], dyn["src0"], dyn["src1"]
    r_dst, r_s0, r_s1 = (d, d + 256 * rep), (s0, s0 + 32 * size * rep), (s1, s1 + 128 * rep)
    fault = _range_faults(p, state, st.api, (r_dst, r_s0, r_s1), on)
    fault |= _misaligned((d, s0, s1), 32, on)
    fault |= any_fault(on & (_overlap(r_dst, r_s0) | _overlap(r_dst, r_s1)), Fault.PARTIAL_OVERLAP)
    fault |= zero_fault(p, rep == 0) | _closing(dyn, rep, R)
    scores = _bits(read_bytes(state.ub, s0, R * 32 * size).reshape(R, 32, size), size)
    index = _u32(read_bytes(state.ub, s1, R * 128).reshape(R, 32, 4))
    perm = stable_desc_perm(score_key(scores, size, p.api(st.api).nan_order))
    rec = jnp.stack(
        [jnp.take_along_axis(scores, perm, axis=1), jnp.take_along_axis(index, perm, axis=1)], axis=-1
    )  # [R, 32, 2] words: (score zero-extended, index)
    data = _to_bytes(rec, 4).reshape(R, 256)
    ran = (fault == 0) & on
    act = (jnp.arange(R, dtype=I32) < rep)[:, None] & ran
    idx = d + jnp.arange(R * 256, dtype=I32).reshape(R, 256)
    ub = write_bytes(state.ub, idx, data, jnp.broadcast_to(act, idx.shape))
    new = state.replace(ub=ub, fault=state.fault | fault)
    # SPEC: "每次迭代输入src0要求128B(float)/64B(half)对齐，src1要求128B对齐，输出dst要求256B对齐" --
    # stricter than the tensors' 32 bytes (the MISALIGNED fault): a SIZE checker warning (CHOICE)
    strict = (("dst", d % 256 != 0), ("src0", s0 % (32 * size) != 0), ("src1", s1 % 128 != 0))
    return extent_warnings(st.api, new, dyn, ran, (("dst", *r_dst), ("src0", *r_s0), ("src1", *r_s1)), strict)


# -- MrgSort / MrgSort4 ------------------------------------------------------------------------------


@S.entry
def run_merge(st: SortStatic, state, dyn):
    """dyn: ``dst``, ``src1``..``src<nq>``, ``lengths`` int32[4], ``repeat``, ``bad_param``, ``ext``."""
    p, size, R, L, nq = st.profile, st.dtype.itemsize, st.R, st.L, st.nq
    if st.api == "MrgSort":
        rec, off, al_d, al_s = 8, 0, 32, 8
    else:
        rec, off = 8 * size, 4 * size
        al_d = al_s = 16 if size == 2 else 32
    rep = dyn["repeat"]
    on = rep > 0
    lengths = dyn["lengths"][:nq]
    total = jnp.sum(lengths)
    step = total * rec
    d = dyn["dst"]
    srcs = [dyn[f"src{q + 1}"] for q in range(nq)]
    r_dst = (d, d + rep * step)
    r_src = [(srcs[q], srcs[q] + (rep - 1) * step + lengths[q] * rec) for q in range(nq)]
    fault = _range_faults(p, state, st.api, [r_dst] + r_src, on)
    fault |= _misaligned((d,), al_d, on) | _misaligned(srcs, al_s, on)
    over = jnp.zeros((), bool)
    for r in r_src:
        over = over | _overlap(r_dst, r)
    fault |= any_fault(on & over, Fault.PARTIAL_OVERLAP)
    # repeatTimes > 1 needs 4 equal, contiguous queues and no suspension (else BAD_PARAM, CHOICE)
    if nq == 4 and not st.suspension:
        ok = jnp.all(lengths == lengths[0])
        for q in range(3):
            ok = ok & (srcs[q + 1] == srcs[q] + lengths[q] * rec)
    else:
        ok = jnp.zeros((), bool)
    fault |= any_fault((rep > 1) & ~ok, Fault.BAD_PARAM)
    fault |= any_fault(jnp.any(lengths > L), Fault.BUCKET_OVERFLOW)
    fault |= zero_fault(p, rep == 0) | _closing(dyn, rep, R)
    # gather [R, nq, L, rec] records
    r_off = jnp.arange(R, dtype=I32)[:, None, None] * step
    j = jnp.arange(L * rec, dtype=I32)[None, None, :]
    base = jnp.stack(srcs)[None, :, None]
    recs = jnp.take(state.ub, base + r_off + j, mode="fill", fill_value=0).reshape(R, nq, L, rec)
    key = score_key(_bits(recs[..., off : off + size], size), size, p.api(st.api).nan_order)  # [R, nq, L]
    run_min = lax.cummin(key, axis=2)
    valid = jnp.broadcast_to(jnp.arange(L, dtype=I32)[None, None, :] < lengths[None, :, None], (R, nq, L))
    perm = stable_desc_perm(run_min.reshape(R, nq * L), ~valid.reshape(R, nq * L))  # [R, nq*L]
    flat = recs.reshape(R, nq * L, rec)
    out = jnp.take_along_axis(flat, perm[:, :, None], axis=1)  # [R, nq*L, rec]
    # output rank of every record; with suspension the merge stops after a queue's last record
    rank = (
        jnp.zeros((R, nq * L), I32)
        .at[jnp.arange(R)[:, None], perm]
        .set(jnp.broadcast_to(jnp.arange(nq * L, dtype=I32), (R, nq * L)))
    )
    rank = rank.reshape(R, nq, L)
    if st.suspension:
        pick = jnp.broadcast_to(jnp.clip(lengths - 1, 0, L - 1)[None, :, None], (R, nq, 1))
        last = jnp.take_along_axis(rank, pick, axis=2)[..., 0]
        last = jnp.where(lengths[None, :] == 0, -1, last)  # an empty queue: exhausted at once
        n_out = jnp.min(last, axis=1) + 1  # [R]
    else:
        n_out = jnp.broadcast_to(total, (R,))
    taken = jnp.sum(valid & (rank < n_out[:, None, None]), axis=2).astype(I32)  # [R, nq]
    ran = (fault == 0) & on
    t = jnp.arange(nq * L, dtype=I32)
    act = (jnp.arange(R, dtype=I32) < rep)[:, None] & (t[None, :] < n_out[:, None]) & ran
    idx = d + jnp.arange(R, dtype=I32)[:, None, None] * step + t[None, :, None] * rec
    idx = idx + jnp.arange(rec, dtype=I32)[None, None, :]
    ub = write_bytes(state.ub, idx, out, jnp.broadcast_to(act[:, :, None], idx.shape))
    cnt = jnp.concatenate([taken[jnp.clip(rep - 1, 0, R - 1)], jnp.zeros((4 - nq,), I32)])
    old = jnp.zeros((4,), I32) if state.mrgsort_cnt is None else state.mrgsort_cnt
    new = state.replace(ub=ub, fault=state.fault | fault, mrgsort_cnt=jnp.where(ran, cnt, old))
    ops = [("dst", *r_dst)] + [(f"src{q + 1}", *r_src[q]) for q in range(nq)]
    return extent_warnings(st.api, new, dyn, ran, ops)


# -- RpSort16 ---------------------------------------------------------------------------------------


@S.entry
def run_rpsort16(st: SortStatic, state, dyn):
    p, size, R = st.profile, st.dtype.itemsize, st.R
    rec = 8 * size
    rep = dyn["repeat"]
    on = rep > 0
    d, s = dyn["dst"], dyn["src"]
    r_dst, r_src = (d, d + 16 * rec * rep), (s, s + 16 * rec * rep)
    fault = _range_faults(p, state, st.api, (r_dst, r_src), on)
    fault |= _misaligned((d, s), 32, on)
    fault |= any_fault(on & (d != s) & _overlap(r_dst, r_src), Fault.PARTIAL_OVERLAP)
    fault |= zero_fault(p, rep == 0) | _closing(dyn, rep, R)
    props = read_bytes(state.ub, s, R * 16 * rec).reshape(R, 16, rec)
    key = score_key(_bits(props[..., 4 * size : 5 * size], size), size, p.api(st.api).nan_order)
    perm = stable_desc_perm(key)
    out = jnp.take_along_axis(props, perm[:, :, None], axis=1).reshape(R, 16 * rec)
    ran = (fault == 0) & on
    act = (jnp.arange(R, dtype=I32) < rep)[:, None] & ran
    idx = d + jnp.arange(R * 16 * rec, dtype=I32).reshape(R, 16 * rec)
    ub = write_bytes(state.ub, idx, out, jnp.broadcast_to(act, idx.shape))
    new = state.replace(ub=ub, fault=state.fault | fault)
    return extent_warnings(st.api, new, dyn, ran, (("dst", *r_dst), ("src", *r_src)))


# -- ProposalConcat / ProposalExtract --------------------------------------------------------------


@S.entry
def run_proposal_move(st: SortStatic, state, dyn):
    """Program order, repeat by repeat: each repeat reads its 16 values before writing them (the
    operands may overlap: the vendor region_proposal_sort's ProposalExtract reads past its src)."""
    p, size, R = st.profile, st.dtype.itemsize, st.R
    concat = st.api == "ProposalConcat"
    rec = 8 * size
    rep, mode = dyn["repeat"], dyn["mode"]
    on = rep > 0
    d, s = dyn["dst"], dyn["src"]
    n = 16 * rep
    p_addr, e_addr = (d, s) if concat else (s, d)
    r_prop = (p_addr + mode * size, p_addr + (n - 1) * rec + (mode + 1) * size)
    r_elem = (e_addr, e_addr + n * size)
    fault = _range_faults(p, state, st.api, (r_prop, r_elem), on)
    fault |= _misaligned((d, s), 32, on)
    fault |= zero_fault(p, rep == 0) | _closing(dyn, rep, R)
    ran = (fault == 0) & on
    i16 = jnp.arange(16, dtype=I32)
    b = jnp.arange(size, dtype=I32)

    def step(r, ub):
        prop = (p_addr + (16 * r + i16) * rec + mode * size)[:, None] + b  # [16, size]
        elem = (e_addr + (16 * r + i16) * size)[:, None] + b
        src_idx, dst_idx = (elem, prop) if concat else (prop, elem)
        vals = jnp.take(ub, src_idx, mode="fill", fill_value=0)
        return write_bytes(ub, dst_idx, vals, jnp.broadcast_to(ran & (r < rep), dst_idx.shape))

    ub = lax.fori_loop(0, R, step, state.ub)
    new = state.replace(ub=ub, fault=state.fault | fault)
    if concat:
        ops = (("dst", *r_prop), ("src", *r_elem))
    else:
        ops = (("dst", *r_elem), ("src", *r_prop))
    return extent_warnings(st.api, new, dyn, ran, ops)


__all__ = ["SortStatic", "run_sort32", "run_merge", "run_rpsort16", "run_proposal_move", "score_key"]
