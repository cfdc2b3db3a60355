"""Literal reference of 排序组合（ISASI）: Sort32, MrgSort, GetMrgSortResult, MrgSort4, RpSort16,
ProposalConcat, ProposalExtract (docs/MODEL.md "Sorting and Region Proposals").

Plain loops over repeats, records and bytes, written from the pages. The order rules:

- descending by score; SPEC: "如果存在score[i]==score[j]并且i>j，将优先选取score[j]排在前面" (Sort32,
  MrgSort; RpSort16 and MrgSort4 say the same of proposals): equal scores keep their input order, and
  in a merge the earlier queue goes first (queue 1 before queue 2, ...);
- scores compare by value: -0 == +0 (a tie); NaN is the profile choice ``apis.<API>.nan_order``
  ("largest": above +inf, "smallest": below -inf; NaNs tie with each other);
- a merge is a literal k-way merge: take the record with the greatest score among the queue heads.

Every call runs repeat by repeat in program order (read the repeat's inputs, then write its
outputs). Faults suppress the whole call (MODEL.md).
"""

import math

import numpy as np

from .. import checks as _checks
from ..errors import Fault, UsageError
from ..profile import as_profile
from ..sort_types import (
    MAX_ELEMENT_LENGTH,
    PROPOSAL_ELEMENTS,
    PROPOSAL_SCORE,
    VALID_BITS,
    MrgSort4Info,
    MrgSortSrcList,
)
from ..tensor import LocalTensor
from . import masks as _masks
from . import state as _st

_FLOAT = {"half": np.float16, "float32": np.float32}
_UINT = {2: np.uint16, 4: np.uint32}


def _score_value(bits, dtype):
    return float(_UINT[dtype.itemsize](bits).view(_FLOAT[dtype.name]))


def _before_key(bits, dtype, nan_order):
    """Sort key (ascending = output order) of a score: the greatest value first."""
    v = _score_value(bits, dtype)
    if math.isnan(v):
        return (0, 0.0) if nan_order == "largest" else (2, 0.0)
    return (1, -v)  # -(-0.0) == -(0.0): a tie


def _tensor(api, name, t, profile):
    if not isinstance(t, LocalTensor):
        raise UsageError(api, name, t, "a LocalTensor", profile)
    return _masks.as_int(api, f"{name}.addr", t.addr, profile)


def _dtype(api, dst, profile):
    d = dst.dtype
    profile.require_api(api, d)
    return d


def _same(api, name, t, d, profile):
    if t.dtype != d:
        raise UsageError(api, f"{name}.dtype", t.dtype.name, f"{d.name} (= dst.dtype)", profile)


def _repeat(api, name, value, lo, hi, profile):
    v = _masks.as_int(api, name, value, profile)
    if not lo <= v <= hi:
        raise UsageError(api, name, v, f"[{lo}, {hi}]", profile)
    return v


def _zero_repeat(api, state, profile):
    plan = _masks._zero("repeat", api, profile, True)
    if plan.outcome == "nop":
        return _st.copy_state(state)
    return _st.with_fault(state, plan.fault)


def _range_faults(profile, state, api, ranges, align):
    """OUT_OF_UB / SCRATCH_COLLISION over byte ranges [(lo, hi)], MISALIGNED over (addr, alignment)."""
    limit = min(state.ub.size, profile.ub_usable_bytes)
    fault = 0
    for a, al in align:
        if a % al:
            fault |= Fault.MISALIGNED
    for lo, hi in ranges:
        if hi > lo and (lo < 0 or hi > limit):
            fault |= Fault.OUT_OF_UB
        for region in profile.reserved:
            if api in region.used_by:
                r_lo, r_hi = region.offset_bytes, region.offset_bytes + region.size_bytes
                if hi > lo and lo < r_hi and hi > r_lo:
                    fault |= Fault.SCRATCH_COLLISION
    return int(fault)


def _overlap(a, b):
    return a[1] > a[0] and b[1] > b[0] and a[0] < b[1] and b[0] < a[1]


def _extent_warnings(out, api, operands):
    """EXTENT: an operand's accessed bytes [lo, hi) reach outside its LocalTensor (dst first)."""
    for name, t, lo, hi in operands:
        if hi > lo and (lo < t.addr or hi > t.addr + t.nbytes):
            _st.add_warning(out, _checks.Warn.EXTENT, api, name)


# -----------------------------------------------------------------------------------------------
# Sort32


def Sort32(state, dst, src0, src1, repeatTime, *, profile):
    """Sort32 (排序组合（ISASI）/Sort32.md): repeat ``r`` sorts the 32 scores at
    ``src0 + r * 32 * sizeof(T)`` with their uint32 indices at ``src1 + 128 r`` in descending score
    order into 32 8-byte (score, index) records at ``dst + 256 r``: score in the low bytes (float:
    bytes 0-3; half: bytes 0-1, bytes 2-3 reserved and written 0 (CHOICE)), index in bytes 4-7.
    SPEC: "下次迭代src0跳过128字节空间" is the float case (32 x 4 bytes); for half the model steps 64
    bytes, the page's "src0要求128B(float)/64B(half)对齐". Faults: the three start addresses aligned
    to 32 bytes, inside UB; dst meeting src0 or src1 (PARTIAL_OVERLAP, CHOICE: the page does not
    allow an in-place sort, the dst records are twice the source size); repeatTime 0 follows
    ``behavior.zero_repeat``."""
    api = "Sort32"
    profile = as_profile(profile)
    d_addr = _tensor(api, "dst", dst, profile)
    s0 = _tensor(api, "src0", src0, profile)
    s1 = _tensor(api, "src1", src1, profile)
    d = _dtype(api, dst, profile)
    _same(api, "src0", src0, d, profile)
    if src1.dtype.name != "uint32":
        raise UsageError(api, "src1.dtype", src1.dtype.name, "uint32", profile)
    rt = _repeat(api, "repeatTime", repeatTime, 0, profile.max_repeat_times, profile)
    if rt == 0:
        return _zero_repeat(api, state, profile)
    size = d.itemsize
    r_dst, r_s0, r_s1 = (d_addr, d_addr + 256 * rt), (s0, s0 + 32 * size * rt), (s1, s1 + 128 * rt)
    fault = _range_faults(profile, state, api, (r_dst, r_s0, r_s1), ((d_addr, 32), (s0, 32), (s1, 32)))
    if _overlap(r_dst, r_s0) or _overlap(r_dst, r_s1):
        fault |= Fault.PARTIAL_OVERLAP
    if fault:
        return _st.with_fault(state, fault)
    nan_order = profile.api(api).nan_order
    out = _st.copy_state(state)
    for r in range(rt):
        scores = [_st.read_bits(out.ub, s0 + (32 * r + i) * size, size) for i in range(32)]
        index = [_st.read_bits(out.ub, s1 + 4 * (32 * r + i), 4) for i in range(32)]
        order = sorted(range(32), key=lambda i: _before_key(scores[i], d, nan_order))  # stable
        for k, i in enumerate(order):
            rec = d_addr + 256 * r + 8 * k
            _st.write_bits(out.ub, rec, 4, scores[i])  # half: the 2 reserved bytes are 0
            _st.write_bits(out.ub, rec + 4, 4, index[i])
    _extent_warnings(out, api, (("dst", dst, *r_dst), ("src0", src0, *r_s0), ("src1", src1, *r_s1)))
    # SPEC: "每次迭代输入src0要求128B(float)/64B(half)对齐，src1要求128B对齐，输出dst要求256B对齐":
    # stricter than the 32 bytes of the tensors' start (MISALIGNED): a SIZE checker warning (CHOICE)
    for name, addr, al in (("dst", d_addr, 256), ("src0", s0, 32 * size), ("src1", s1, 128)):
        if addr % al:
            _st.add_warning(out, _checks.Warn.SIZE, api, name)
    return out


# -----------------------------------------------------------------------------------------------
# MrgSort / MrgSort4 (the 4-way merge) and GetMrgSortResult


def _merge_call(api, state, dst, src, params, profile, rec_bytes, score_off, align, rt_lo):
    profile = as_profile(profile)
    d_addr = _tensor(api, "dst", dst, profile)
    d = _dtype(api, dst, profile)
    if not isinstance(src, MrgSortSrcList):
        raise UsageError(api, "src", src, "a MrgSortSrcList", profile)
    if not isinstance(params, MrgSort4Info):
        raise UsageError(api, "params", params, "a MrgSort4Info", profile)
    vb = _masks.as_int(api, "params.validBit", params.validBit, profile)
    if vb not in VALID_BITS:
        raise UsageError(api, "params.validBit", vb, "3 | 7 | 15", profile)
    nq = VALID_BITS[vb]
    if not isinstance(params.ifExhaustedSuspension, (bool, np.bool_)):
        raise UsageError(api, "params.ifExhaustedSuspension", params.ifExhaustedSuspension, "a bool", profile)
    susp = bool(params.ifExhaustedSuspension)
    el = list(params.elementLengths)
    if len(el) != 4:
        raise UsageError(api, "params.elementLengths", el, "4 lengths", profile)
    lengths = [
        _repeat(api, f"params.elementLengths[{q}]", el[q], 0, MAX_ELEMENT_LENGTH, profile) for q in range(4)
    ]
    rt = _repeat(api, "params.repeatTimes", params.repeatTimes, rt_lo, profile.max_repeat_times, profile)
    queues = src.queues()
    addrs = []
    for q in range(nq):
        a = _tensor(api, f"src{q + 1}", queues[q], profile)
        _same(api, f"src{q + 1}", queues[q], d, profile)
        addrs.append(a)
    if rt == 0:
        return _zero_repeat(api, state, profile), None
    total = sum(lengths[:nq])  # records a repeat writes ("跳过4个队列总长度")
    fault = 0
    if rt > 1:
        # SPEC: "repeatTimes参数生效需要满足4个条件: src包含4个队列并且长度一致; 4个队列连续存储;
        #       ifExhaustedSuspension = false; validBit = 15" -- otherwise a BAD_PARAM fault (CHOICE)
        contiguous = nq == 4 and all(addrs[q + 1] == addrs[q] + lengths[q] * rec_bytes for q in range(3))
        if nq != 4 or susp or len(set(lengths)) != 1 or not contiguous:
            fault |= Fault.BAD_PARAM
    step = total * rec_bytes
    r_dst = (d_addr, d_addr + rt * step)
    r_src = [(addrs[q], addrs[q] + (rt - 1) * step + lengths[q] * rec_bytes) for q in range(nq)]
    al = [(d_addr, align[0])] + [(a, align[1]) for a in addrs]
    fault |= _range_faults(profile, state, api, [r_dst] + r_src, al)
    # SPEC: "不支持源操作数和目的操作数地址重叠"
    if any(_overlap(r_dst, r) for r in r_src):
        fault |= Fault.PARTIAL_OVERLAP
    if fault:
        return _st.with_fault(state, fault), None
    nan_order = profile.api(api).nan_order
    out = _st.copy_state(state)
    counts = [0, 0, 0, 0]
    for r in range(rt):
        base = [addrs[q] + r * step for q in range(nq)]
        recs = [
            [
                bytes(out.ub[base[q] + j * rec_bytes : base[q] + (j + 1) * rec_bytes])
                for j in range(lengths[q])
            ]
            for q in range(nq)
        ]
        keys = [  # each record's score, as an order key
            [
                _before_key(int.from_bytes(rec[score_off : score_off + d.itemsize], "little"), d, nan_order)
                for rec in rq
            ]
            for rq in recs
        ]
        pos = [0] * nq
        written = 0
        while True:
            if susp and any(pos[q] == lengths[q] for q in range(nq)):
                break  # SPEC: "true：某个队列耗尽时，指令停止"
            best = None
            for q in range(nq):  # the greatest head score; a tie keeps the earlier queue
                if pos[q] < lengths[q] and (best is None or keys[q][pos[q]] < keys[best][pos[best]]):
                    best = q
            if best is None:
                break
            rec = recs[best][pos[best]]
            pos[best] += 1
            at = d_addr + r * step + written * rec_bytes
            out.ub[at : at + rec_bytes] = np.frombuffer(rec, np.uint8)
            written += 1
        counts = pos + [0] * (4 - nq)
    out.mrgsort_cnt = tuple(counts)
    ops = [("dst", dst, *r_dst)] + [(f"src{q + 1}", queues[q], *r_src[q]) for q in range(nq)]
    _extent_warnings(out, api, ops)
    return out, None


def MrgSort(state, dst, src, params, *, profile):
    """MrgSort (排序组合（ISASI）/MrgSort.md): merges up to 4 sorted queues of 8-byte (score, index)
    records (Sort32's layout) into one queue, descending by score. ``src``: a MrgSortSrcList;
    ``params``: a MrgSort4Info. Repeat ``r`` reads every queue ``r * total`` records later and
    writes ``r * total`` records later (total = the valid queues' lengths). With
    ifExhaustedSuspension the merge stops as soon as one valid queue is used up (an empty valid
    queue: at once); the records taken from each queue are kept for GetMrgSortResult (the last
    repeat's counts; every MrgSort that runs sets them, CHOICE). Faults: dst aligned to 32 bytes,
    the queues to 8 ("src中LocalTensor的起始地址需要8字节对齐"), inside UB, dst meeting a queue
    (PARTIAL_OVERLAP), repeatTimes > 1 without its four conditions (BAD_PARAM), repeatTimes 0 per
    ``behavior.zero_repeat``."""
    return _merge_call("MrgSort", state, dst, src, params, profile, 8, 0, (32, 8), 0)[0]


def MrgSort4(state, dst, src, params, *, profile):
    """MrgSort4 (排序组合（ISASI）/MrgSort4.md): MrgSort on Region Proposals (8 elements each, score
    element 4) -- the same merge, ties, suspension and register. Alignment: 16 bytes (half) / 32
    bytes (float) for dst and every queue; repeatTimes in [1, 255]."""
    d = getattr(dst, "dtype", None)
    size = getattr(d, "itemsize", 2)
    al = 16 if size == 2 else 32
    return _merge_call(
        "MrgSort4",
        state,
        dst,
        src,
        params,
        profile,
        PROPOSAL_ELEMENTS * size,
        PROPOSAL_SCORE * size,
        (al, al),
        1,
    )[0]


def GetMrgSortResult(state, *, profile):
    """GetMrgSortResult (排序组合（ISASI）/GetMrgSortResult.md): the records the last MrgSort /
    MrgSort4 took from each of its four queues, as (mrgSortList1, .., mrgSortList4); (0, 0, 0, 0)
    before any merge."""
    profile = as_profile(profile)
    profile.require_api("GetMrgSortResult")
    return tuple(int(x) for x in state.mrgsort_cnt)


# -----------------------------------------------------------------------------------------------
# Region Proposals: RpSort16, ProposalConcat, ProposalExtract


def RpSort16(state, dst, src, repeatTime, *, profile):
    """RpSort16 (排序组合（ISASI）/RpSort16.md): repeat ``r`` sorts the 16 Region Proposals at
    ``src + 16 r`` proposals (8 elements each) by their score (element 4), descending, into the 16
    proposals at ``dst + 16 r``; whole proposals move. Faults: 32-byte aligned, inside UB; dst
    meeting src unless dst == src (in place, as the vendor sample calls it: each repeat reads its
    16 proposals before writing them) -- PARTIAL_OVERLAP; repeatTime 0 per ``behavior.zero_repeat``."""
    api = "RpSort16"
    profile = as_profile(profile)
    d_addr = _tensor(api, "dst", dst, profile)
    s_addr = _tensor(api, "src", src, profile)
    d = _dtype(api, dst, profile)
    _same(api, "src", src, d, profile)
    rt = _repeat(api, "repeatTime", repeatTime, 0, profile.max_repeat_times, profile)
    if rt == 0:
        return _zero_repeat(api, state, profile)
    rec = PROPOSAL_ELEMENTS * d.itemsize
    r_dst, r_src = (d_addr, d_addr + 16 * rec * rt), (s_addr, s_addr + 16 * rec * rt)
    fault = _range_faults(profile, state, api, (r_dst, r_src), ((d_addr, 32), (s_addr, 32)))
    if d_addr != s_addr and _overlap(r_dst, r_src):
        fault |= Fault.PARTIAL_OVERLAP
    if fault:
        return _st.with_fault(state, fault)
    nan_order = profile.api(api).nan_order
    off = PROPOSAL_SCORE * d.itemsize
    out = _st.copy_state(state)
    for r in range(rt):
        props = [
            bytes(out.ub[s_addr + (16 * r + i) * rec : s_addr + (16 * r + i + 1) * rec]) for i in range(16)
        ]
        order = sorted(
            range(16),
            key=lambda i: _before_key(
                int.from_bytes(props[i][off : off + d.itemsize], "little"), d, nan_order
            ),
        )
        for k, i in enumerate(order):
            at = d_addr + (16 * r + k) * rec
            out.ub[at : at + rec] = np.frombuffer(props[i], np.uint8)
    _extent_warnings(out, api, (("dst", dst, *r_dst), ("src", src, *r_src)))
    return out


def _proposal_move(api, state, dst, src, repeatTime, modeNumber, profile, concat):
    profile = as_profile(profile)
    d_addr = _tensor(api, "dst", dst, profile)
    s_addr = _tensor(api, "src", src, profile)
    d = _dtype(api, dst, profile)
    _same(api, "src", src, d, profile)
    rt = _repeat(api, "repeatTime", repeatTime, 0, profile.max_repeat_times, profile)
    mode = _repeat(api, "modeNumber", modeNumber, 0, 5, profile)
    if rt == 0:
        return _zero_repeat(api, state, profile)
    size = d.itemsize
    rec = PROPOSAL_ELEMENTS * size
    n = 16 * rt
    # proposal side: the field bytes of n proposals; element side: n contiguous elements
    prop_t, elem_t = (dst, src) if concat else (src, dst)
    p_addr, e_addr = (d_addr, s_addr) if concat else (s_addr, d_addr)
    r_prop = (p_addr + mode * size, p_addr + (n - 1) * rec + (mode + 1) * size)
    r_elem = (e_addr, e_addr + n * size)
    fault = _range_faults(profile, state, api, (r_prop, r_elem), ((d_addr, 32), (s_addr, 32)))
    if fault:
        return _st.with_fault(state, fault)
    out = _st.copy_state(state)
    for r in range(rt):  # program order: each repeat reads its 16 values, then writes them
        if concat:
            vals = [_st.read_bits(out.ub, e_addr + (16 * r + i) * size, size) for i in range(16)]
            for i in range(16):
                _st.write_bits(out.ub, p_addr + (16 * r + i) * rec + mode * size, size, vals[i])
        else:
            vals = [_st.read_bits(out.ub, p_addr + (16 * r + i) * rec + mode * size, size) for i in range(16)]
            for i in range(16):
                _st.write_bits(out.ub, e_addr + (16 * r + i) * size, size, vals[i])
    if concat:
        ops = (("dst", prop_t, *r_prop), ("src", elem_t, *r_elem))
    else:
        ops = (("dst", elem_t, *r_elem), ("src", prop_t, *r_prop))
    _extent_warnings(out, api, ops)
    return out


def ProposalConcat(state, dst, src, repeatTime, modeNumber, *, profile):
    """ProposalConcat (排序组合（ISASI）/ProposalConcat.md): repeat ``r`` writes the 16 elements at
    ``src + 16 r`` elements into field ``modeNumber`` (0 x1, 1 y1, 2 x2, 3 y2, 4 score, 5 label) of
    the 16 proposals at ``dst + 16 r`` proposals; the other fields are unchanged. Faults: 32-byte
    aligned, inside UB; repeatTime 0 per ``behavior.zero_repeat``. Overlapping operands run in
    program order (no fault: the page does not forbid it)."""
    return _proposal_move("ProposalConcat", state, dst, src, repeatTime, modeNumber, profile, True)


def ProposalExtract(state, dst, src, repeatTime, modeNumber, *, profile):
    """ProposalExtract (排序组合（ISASI）/ProposalExtract.md): the reverse of ProposalConcat: repeat
    ``r`` reads field ``modeNumber`` of the 16 proposals at ``src + 16 r`` proposals and writes them
    as 16 contiguous elements at ``dst + 16 r`` elements. Operands reaching past their LocalTensor
    run as on hardware (the vendor region_proposal_sort does) with an EXTENT checker warning."""
    return _proposal_move("ProposalExtract", state, dst, src, repeatTime, modeNumber, profile, False)


__all__ = [
    "Sort32",
    "MrgSort",
    "MrgSort4",
    "GetMrgSortResult",
    "RpSort16",
    "ProposalConcat",
    "ProposalExtract",
]
