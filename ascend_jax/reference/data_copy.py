"""Reference DataCopy / DataCopyPad: literal byte loops written from the doc pages.

Same call shape as the fast path (``state, gm = DataCopy(state, gm, dst, src, countOrParams)``,
``gm`` a list of ``uint8`` NumPy arrays indexed by ``GlobalTensor.buf``) but every value is a
Python int: a value outside its documented range plays the part of a traced one and records
``BAD_PARAM``. Order of the checks (docs/MODEL.md "GM, DataCopy and UB allocation"): BAD_PARAM,
then a zero blockCount/blockLen (``zero_block``), then MISALIGNED / OUT_OF_UB / OUT_OF_GM over
every byte the call would touch. A faulting call changes nothing.

Pages: 数据搬运/GM与UB数据搬运/GM与UB连续数据搬运(DataCopy).md, GM与UB高维切分数据搬运(DataCopy).md,
GMToUB非对齐数据搬运(DataCopyPad).md, UBToGM非对齐数据搬运(DataCopyPad).md,
UB与UB数据搬运/UBToUB连续数据搬运(DataCopy).md, UBToUB高维切分数据搬运(DataCopy).md.
"""

import numpy as np

from .. import dtypes as _dt
from ..errors import Fault
from ..gm import OUT_OF_GM, GlobalTensor
from ..params import as_data_copy_ext_params, as_data_copy_params, as_pad_params
from ..profile import as_profile
from ..tensor import LocalTensor
from .state import copy_state, with_fault

BLOCK = 32  # bytes in a DataBlock


class _Side:
    """One operand: where its bytes live (UB or a GM buffer) and how far they may go."""

    def __init__(self, t, state, gm, profile):
        self.t = t
        self.is_ub = isinstance(t, LocalTensor)
        if self.is_ub:
            self.mem = state.ub
            self.limit = min(len(state.ub), profile.ub_usable_bytes)
            self.oob = int(Fault.OUT_OF_UB)
        else:
            self.mem = gm[t.buf]
            self.limit = len(self.mem)
            self.oob = int(OUT_OF_GM)
        self.addr = int(t.addr)


def _check_bytes(side, addrs):
    for a in addrs:
        if a < 0 or a >= side.limit:
            return side.oob
    return 0


def _finish(state, gm, moves, sides, align_bits):
    """``moves``: list of (src byte address, dst byte address or None, value or None). Checks every
    touched byte, then performs all reads before any write."""
    src, dst = sides
    fault = align_bits
    fault |= _check_bytes(src, [m[0] for m in moves if m[0] is not None])
    fault |= _check_bytes(dst, [m[1] for m in moves])
    if fault:
        return with_fault(state, fault), gm
    values = [src.mem[m[0]] if m[0] is not None else m[2] for m in moves]
    out = copy_state(state)
    gm = [np.array(b, copy=True) for b in gm]
    target = out.ub if dst.is_ub else gm[dst.t.buf]
    for (_, d, _), v in zip(moves, values, strict=True):
        if v is not None:
            target[d] = v
    return out, gm


def _in_range(v, lo, hi):
    return isinstance(v, (int, np.integer)) and lo <= int(v) <= hi


def _zero(state, gm, policy):
    if policy == "fault":
        return with_fault(state, int(Fault.UNDEFINED)), gm
    return copy_state(state), [np.array(b, copy=True) for b in gm]


def DataCopy(state, gm, dst, src, countOrParams, *, profile=None):
    p = as_profile(profile)
    a = p.api("DataCopy")
    gm = list(gm or [])
    size = dst.dtype.itemsize
    if isinstance(countOrParams, (int, np.integer)):
        count = int(countOrParams)
        nbytes = count * size
        # SPEC: 连续搬运 -- count*sizeof(T) must be 32-byte aligned, else the amount is rounded down
        if count < 0 or (nbytes % BLOCK and a.count_unaligned == "error"):
            return with_fault(state, int(Fault.BAD_PARAM)), gm
        block_count, block_len, src_gap, dst_gap = 1, nbytes // BLOCK, 0, 0
    else:
        prm = as_data_copy_params(countOrParams)
        block_count, block_len, src_gap, dst_gap = prm.blockCount, prm.blockLen, prm.srcStride, prm.dstStride
        ok = _in_range(block_count, 0, 4095) and all(
            _in_range(v, 0, 65535) for v in (block_len, src_gap, dst_gap)
        )
        if not ok:
            return with_fault(state, int(Fault.BAD_PARAM)), gm
    # SPEC: blockCount or blockLen 0 -> NOP (A2/A3/950; the profile's zero_block elsewhere)
    if block_count == 0 or block_len == 0:
        return _zero(state, gm, a.zero_block)
    s_side, d_side = _Side(src, state, gm, p), _Side(dst, state, gm, p)
    align = 0
    for side in (s_side, d_side):
        # SPEC: UB addresses 32-byte aligned; GM addresses aligned to sizeof(T)
        need = p.operand_alignment_bytes if side.is_ub else size
        if side.addr % need:
            align = int(Fault.MISALIGNED)
    moves = []
    for i in range(block_count):
        for j in range(block_len * BLOCK):
            # a gap is measured from the end of one block to the start of the next
            s = s_side.addr + i * (block_len + src_gap) * BLOCK + j
            d = d_side.addr + i * (block_len + dst_gap) * BLOCK + j
            moves.append((s, d, None))
    return _finish(state, gm, moves, (s_side, d_side), align)


def DataCopyPad(state, gm, dst, src, dataCopyParams, padParams=None, *, profile=None):
    p = as_profile(profile)
    a = p.api("DataCopyPad")
    gm = list(gm or [])
    size = dst.dtype.itemsize
    prm = as_data_copy_ext_params(dataCopyParams)
    gm2ub = isinstance(src, GlobalTensor)
    bc, bl, ss, ds = prm.blockCount, prm.blockLen, prm.srcStride, prm.dstStride
    gm_stride, ub_stride = (ss, ds) if gm2ub else (ds, ss)
    ub_hi = a.ub_stride_max
    gm_lo = -bl if (gm2ub and a.negative_src_stride) else 0
    ok = (
        _in_range(bc, 0, 4095)
        and _in_range(bl, 0, 2097151)
        and bl % size == 0
        and _in_range(gm_stride, gm_lo, 2**32 - 1)
        and _in_range(ub_stride, 0, ub_hi)
    )
    pad = as_pad_params(padParams) if gm2ub else None
    if pad is not None:
        ok = (
            ok
            and _in_range(pad.leftPadding, 0, BLOCK // size)
            and _in_range(pad.rightPadding, 0, BLOCK // size)
        )
    if not ok:
        return with_fault(state, int(Fault.BAD_PARAM)), gm
    if bc == 0 or bl == 0:
        return _zero(state, gm, a.zero_block)
    s_side, d_side = _Side(src, state, gm, p), _Side(dst, state, gm, p)
    ub_side = d_side if gm2ub else s_side
    align = int(Fault.MISALIGNED) if ub_side.addr % p.operand_alignment_bytes else 0
    moves = []
    if gm2ub:
        left, right = pad.leftPadding * size, pad.rightPadding * size
        pad_bytes = np.frombuffer(np.asarray(pad.paddingValue).astype(dst.dtype.np_dtype).tobytes(), np.uint8)
        filled = pad.isPad
        if not pad.isPad and state.pad_value is not None:
            # SPEC: isPad false "调用SetPadValue时，在接口外部配置需要填充的数据" (DataCopyPad.md): the
            #       register's bytes (its value repeated; the low sizeof(T) of them) fill like paddingValue
            pad_bytes = np.frombuffer(bytes(state.pad_value)[:size], np.uint8)
            filled = True
        # SPEC: each row is padded to a 32-byte boundary: [left pad][blockLen data][right pad][dummy]
        row = -(-(left + bl + right) // BLOCK) * BLOCK
        for i in range(bc):
            g = s_side.addr + i * (bl + ss)  # srcStride: bytes from the end of one row to the next
            u = d_side.addr + i * (row + ds * BLOCK)  # dstStride: DataBlocks
            for q in range(row):
                if left <= q < left + bl:
                    moves.append((g + q - left, u + q, None))
                elif q < left + bl + right:  # left or right padding
                    moves.append((None, u + q, int(pad_bytes[q % size]) if filled else None))
                elif left == 0 and right == 0:
                    # SPEC: without padding the dummy repeats the row's first element
                    moves.append((g + (q - bl) % size, u + q, None))
                else:
                    # SPEC: with padding the dummy is paddingValue when isPad, else undefined (kept)
                    moves.append((None, u + q, int(pad_bytes[q % size]) if filled else None))
    else:
        row = -(-bl // BLOCK) * BLOCK  # the UB row occupies whole DataBlocks
        for i in range(bc):
            u = s_side.addr + i * (row + ss * BLOCK)
            g = d_side.addr + i * (bl + ds)
            for q in range(bl):
                moves.append((u + q, g + q, None))
    return _finish(state, gm, moves, (s_side, d_side), align)


def SetPadValue(state, T, paddingValue, *, profile=None):
    """SetPadValue(ISASI).md: the padding register of DataCopyPad (isPad = false) := ``paddingValue``
    converted to T, its bytes repeated over 8 bytes (CHOICE; docs/MODEL.md "DataCopyPad")."""
    p = as_profile(profile)
    d = _dt.as_dtype(T)
    p.require_api("SetPadValue", d)  # SPEC: "支持的数据类型为：..." (A2/A3/950 only)
    raw = np.asarray(paddingValue).astype(d.np_dtype).tobytes()
    out = copy_state(state)
    out.pad_value = raw * (8 // d.itemsize)
    return out
