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
from ..errors import Fault, NotModelledError, UnsupportedError
from ..gm import OUT_OF_GM, GlobalTensor
from ..params import (
    Nd2NzParams,
    NdDmaConfig,
    NdDmaParams,
    Nz2NdParamsFull,
    SliceInfo,
    as_data_copy_ext_params,
    as_data_copy_params,
    as_pad_params,
)
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


def DataCopy(
    state,
    gm,
    dst,
    src,
    countOrParams,
    srcSliceInfo=None,
    dimValue=1,
    *,
    profile=None,
    config=None,
    enableSmallC0=False,
):
    p = as_profile(profile)
    a = p.api("DataCopy")
    gm = list(gm or [])
    size = dst.dtype.itemsize
    loop = _loop_of(state, dst, src)
    if loop is not None:
        return _loop(
            state, gm, dst, src, loop, lambda st, g, d, s: DataCopy(st, g, d, s, countOrParams, profile=p)
        )
    if isinstance(countOrParams, Nd2NzParams):
        return _nd2nz(state, gm, dst, src, countOrParams, p, enableSmallC0)
    if isinstance(countOrParams, Nz2NdParamsFull):
        return _nz2nd(state, gm, dst, src, countOrParams, p)
    if isinstance(countOrParams, NdDmaParams):
        return _nddma(state, gm, dst, src, countOrParams, config or NdDmaConfig(), p)
    if isinstance(countOrParams, (list, tuple)) and countOrParams and isinstance(countOrParams[0], SliceInfo):
        return _slice(state, gm, dst, src, countOrParams, srcSliceInfo, dimValue, p)
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
    loop = _loop_of(state, dst, src)
    if loop is not None:
        return _loop(
            state,
            gm,
            dst,
            src,
            loop,
            lambda st, g, d, s: DataCopyPad(st, g, d, s, dataCopyParams, padParams, profile=p),
        )
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
        pad_bytes = np.frombuffer(_value_bytes(pad.paddingValue, dst.dtype), np.uint8)
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


def _value_bytes(value, d):
    """``value`` converted to T, as T's bytes (little endian). complex32 (Complex<half>, real part at
    the lower address, 内置数据类型.md) takes a number: each part becomes a half."""
    if d.name == "complex32":
        c = complex(value)
        return np.array([c.real, c.imag], np.float16).tobytes()
    return np.asarray(value).astype(d.np_dtype).tobytes()


def SetPadValue(state, T, paddingValue, *, profile=None):
    """SetPadValue(ISASI).md: the padding register of DataCopyPad (isPad = false) := ``paddingValue``
    converted to T, its bytes repeated over 8 bytes (CHOICE; docs/MODEL.md "DataCopyPad")."""
    p = as_profile(profile)
    d = _dt.as_dtype(T)
    p.require_api("SetPadValue", d)  # SPEC: "支持的数据类型为：..." (A2/A3/950 only)
    raw = _value_bytes(paddingValue, d)
    out = copy_state(state)
    out.pad_value = raw * (8 // d.itemsize)
    return out


# -- layout conversion, slices and NDDMA (issue 33 item 2) ------------------------------------------
# Pages: GMToUB随路转换ND2NZ搬运(DataCopy).md, UBToGM随路转换NZ2ND搬运(DataCopy).md,
# GM与UB切片数据搬运(DataCopy).md, GMToUB多维数据搬运NDDMA(DataCopy).md. A value outside its documented
# range, a slice that breaks the page's equations or destinations that overlap: BAD_PARAM.


def _form_dtype(p, key, dst, src, gm2ub):
    """The product has the prototype for T, and the path is the page's (else UnsupportedError)."""
    allowed = getattr(p.api("DataCopy"), key)
    d = dst.dtype
    if d.name not in allowed:
        raise UnsupportedError(
            "DataCopy", "dtype", d.name, ", ".join(allowed) or "none", p, f"apis.DataCopy.{key}"
        )
    if gm2ub is not None and isinstance(src, GlobalTensor) != gm2ub:
        raise UnsupportedError("DataCopy", "dst/src", type(dst).__name__, "the page's path", p)


def _elements(state, gm, dst, src, pairs, fill, p):
    """``pairs``: (src element or None, dst element) in the order the page describes them. A
    destination element written twice makes the call BAD_PARAM; then the bytes move as in
    ``_finish`` (UB addresses 32-byte aligned, every byte inside its memory)."""
    size = dst.dtype.itemsize
    seen = set()
    for _, d in pairs:
        if d in seen:
            return with_fault(state, int(Fault.BAD_PARAM)), gm
        seen.add(d)
    if not pairs:
        return copy_state(state), [np.array(b, copy=True) for b in gm]
    s_side, d_side = _Side(src, state, gm, p), _Side(dst, state, gm, p)
    align = 0
    for side in (s_side, d_side):
        if side.is_ub and side.addr % p.operand_alignment_bytes:
            align = int(Fault.MISALIGNED)
    moves = []
    for s, d in pairs:
        for b in range(size):
            if s is None:
                moves.append((None, d_side.addr + d * size + b, int(fill[b])))
            else:
                moves.append((s_side.addr + s * size + b, d_side.addr + d * size + b, None))
    return _finish(state, gm, moves, (s_side, d_side), align)


def _nd2nz(state, gm, dst, src, prm, p, small_c0):
    _form_dtype(p, "nd2nz_dtypes", dst, src, True)
    if small_c0 and not p.api("DataCopy").nd2nz_small_c0:
        raise UnsupportedError("DataCopy", "enableSmallC0", True, "false", p)
    size = dst.dtype.itemsize
    f = prm
    ok = (
        _in_range(f.ndNum, 0, 4095)
        and _in_range(f.nValue, 0, 16384)
        and _in_range(f.dValue, 0, 65535)
        and _in_range(f.srcNdMatrixStride, 0, 65535)
        and _in_range(f.srcDValue, 1, 65535)
        and _in_range(f.dstNzC0Stride, 1, 16384)
        and _in_range(f.dstNzNStride, 1, 16384)
        and _in_range(f.dstNzMatrixStride, 0, 65535)  # the page's example passes 0 (CHOICE)
    )
    if not ok:
        return with_fault(state, int(Fault.BAD_PARAM)), gm
    # C0: the elements of one 32-byte DataBlock; SPEC: enableSmallC0 and dValue <= 4 -> 4 * sizeof(T) bytes
    c0 = 4 if small_c0 and f.dValue <= 4 else BLOCK // size
    pairs = []
    for i in range(f.ndNum):
        for r in range(f.nValue):
            # a source row of dValue elements becomes ceil(dValue / C0) rows of C0 in the NZ matrix:
            # row group g at g * dstNzC0Stride C0 blocks, source row r at r * dstNzNStride C0 blocks
            cols = -(-f.dValue // c0) * c0
            for c in range(cols):
                d = (
                    i * f.dstNzMatrixStride
                    + (c // c0) * f.dstNzC0Stride * c0
                    + r * f.dstNzNStride * c0
                    + c % c0
                )
                if c < f.dValue:
                    pairs.append((i * f.srcNdMatrixStride + r * f.srcDValue + c, d))
                else:  # SPEC: "不足的部分会被补齐为0"
                    pairs.append((None, d))
    return _elements(state, gm, dst, src, pairs, bytes(size), p)


def _nz2nd(state, gm, dst, src, prm, p):
    _form_dtype(p, "nz2nd_dtypes", dst, src, False)
    f = prm
    ok = (
        _in_range(f.ndNum, 0, 4095)
        and _in_range(f.nValue, 1, 8192)
        and _in_range(f.dValue, 1, 8192)
        and f.dValue % 16 == 0  # SPEC: "dValue必须为16的倍数"
        and _in_range(f.srcNdMatrixStride, 1, 512)
        and _in_range(f.srcNStride, 0, 4096)
        and _in_range(f.dstDStride, 1, 65535)
        and _in_range(f.dstNdMatrixStride, 1, 65535)
    )
    if not ok:
        return with_fault(state, int(Fault.BAD_PARAM)), gm
    pairs = []
    for i in range(f.ndNum):
        base = i * f.srcNdMatrixStride * 256  # SPEC: srcNdMatrixStride in 256 (16 * 16) elements
        for r in range(f.nValue):
            for c in range(f.dValue):
                # the NZ matrix: 16-column fractals srcNStride * 16 elements apart, 16 elements a row
                s = base + (c // 16) * f.srcNStride * 16 + r * 16 + c % 16
                pairs.append((s, i * f.dstNdMatrixStride + r * f.dstDStride + c))
    return _elements(state, gm, dst, src, pairs, b"", p)


def _slice_list(infos, size):
    """The element offsets a SliceInfo list selects, first dimension innermost."""
    per_dim = []
    for k, s in enumerate(infos):
        chunk = s.burstLen * BLOCK // size if k == 0 else 1
        idx = []
        start = s.startIndex
        while start + chunk - 1 <= s.endIndex:
            idx.extend(range(start, start + chunk))
            start += chunk + s.stride
        per_dim.append(idx)
    offsets = [0]
    mult = 1
    for k, idx in enumerate(per_dim):
        offsets = [j * mult + o for j in idx for o in offsets]
        mult *= infos[k].shapeValue
    return offsets


def _slice_ok(infos, dim, size):
    if len(infos) != dim:
        return False
    for k, s in enumerate(infos):
        v = (s.startIndex, s.endIndex, s.stride, s.burstLen, s.shapeValue)
        if not all(_in_range(x, 0, 2**32 - 1) for x in v):
            return False
        if (k > 0 and s.burstLen != 1) or s.burstLen == 0 or not s.startIndex < s.endIndex <= s.shapeValue:
            return False
        chunk = s.burstLen * BLOCK // size if k == 0 else 1
        # SPEC: endIndex - startIndex + 1 = (N - 1) * stride + N * burstLen * 32 / sizeof(T), N >= 1
        if not any(
            (n - 1) * s.stride + n * chunk == s.endIndex - s.startIndex + 1
            for n in range(1, s.endIndex - s.startIndex + 2)
        ):
            return False
    return True


def _slice(state, gm, dst, src, dst_info, src_info, dim, p):
    _form_dtype(p, "slice_dtypes", dst, src, None)
    size = dst.dtype.itemsize
    ok = (
        _in_range(dim, 1, 8)
        and src_info is not None
        and _slice_ok(dst_info, dim, size)
        and _slice_ok(src_info, dim, size)
        and all(a.burstLen == b.burstLen for a, b in zip(dst_info, src_info, strict=True))
    )
    if not ok:
        return with_fault(state, int(Fault.BAD_PARAM)), gm
    d_off, s_off = _slice_list(dst_info, size), _slice_list(src_info, size)
    if len(d_off) != len(s_off):
        return with_fault(state, int(Fault.BAD_PARAM)), gm
    chunk = dst_info[0].burstLen * BLOCK // size
    ub_off = d_off if isinstance(dst, LocalTensor) else s_off
    # SPEC: "位于Unified Buffer的地址必须32字节对齐" (each burst's UB start)
    if any((ub_off[q] * size) % BLOCK for q in range(0, len(ub_off), chunk)):
        return with_fault(state, int(Fault.MISALIGNED)), gm
    return _elements(state, gm, dst, src, list(zip(s_off, d_off, strict=True)), b"", p)


def _nddma(state, gm, dst, src, prm, cfg, p):
    _form_dtype(p, "nddma_dtypes", dst, src, True)
    size = dst.dtype.itemsize
    li = prm.loopInfo
    dim = li.dim
    src_s, dst_s, n, lp, rp = (
        list(li.loopSrcStride),
        list(li.loopDstStride),
        list(li.loopSize),
        list(li.loopLpSize),
        list(li.loopRpSize),
    )
    # SPEC: NdDmaConfig.loopLpSize / loopRpSize other than unsetPad replace every dimension's padding
    if cfg.loopLpSize != 0xFFFF:
        lp = [cfg.loopLpSize] * dim
    if cfg.loopRpSize != 0xFFFF:
        rp = [cfg.loopRpSize] * dim
    ok = (
        _in_range(dim, 1, 5)
        and all(len(v) == dim for v in (src_s, dst_s, n, lp, rp))
        and all(_in_range(v, 0, 2**40 - 1) for v in src_s)
        and all(_in_range(v, 0, 2**20 - 1) for v in dst_s + n)
        and all(_in_range(v, 0, 255) for v in lp + rp)
        and not (size == 8 and (cfg.isNearestValueMode or prm.constantValue != 0))
    )
    if not ok:
        return with_fault(state, int(Fault.BAD_PARAM)), gm
    if 0 in n:
        return copy_state(state), [np.array(b, copy=True) for b in gm]
    fill = np.frombuffer(_value_bytes(prm.constantValue, dst.dtype), np.uint8)
    ext = [lp[k] + n[k] + rp[k] for k in range(dim)]
    pairs = []
    for flat in range(int(np.prod(ext))):
        # j[k]: the position in dimension k of the padded box, dimension 0 innermost
        j, rest = [], flat
        for k in range(dim):
            j.append(rest % ext[k])
            rest //= ext[k]
        d = sum(j[k] * dst_s[k] for k in range(dim))
        inside = all(lp[k] <= j[k] < lp[k] + n[k] for k in range(dim))
        if inside or cfg.isNearestValueMode:
            # SPEC: nearest-value mode "左右Padding值会选取当前维度最左或最右的值进行填充"
            q = [min(max(j[k] - lp[k], 0), n[k] - 1) for k in range(dim)]
            pairs.append((sum(q[k] * src_s[k] for k in range(dim)), d))
        else:  # SPEC: constant mode: "所有Padding值填充为固定值NdDmaParams::constantValue"
            pairs.append((None, d))
    return _elements(state, gm, dst, src, pairs, fill, p)


def NdDmaDci(state, *, profile=None):
    """NdDmaDci.md: refresh the NDDMA DataCache; the model has no cache (CHOICE): nothing changes."""
    p = as_profile(profile)
    if not p.api("NdDmaDci").supported:
        raise UnsupportedError("NdDmaDci", "api", "NdDmaDci", "none", p)
    return copy_state(state)


# -- loop mode (寄存器配置说明/SetLoopModePara.md, ResetLoopModePara.md) ------------------------------

OUT_TO_UB, UB_TO_OUT = 1, 0  # DataCopyMVType


def _loop_of(state, dst, src):
    """The loop-mode registers of the call's path (GM -> UB: OUT_TO_UB, UB -> GM: UB_TO_OUT), or None."""
    regs = state.loop_mode or {}
    if isinstance(src, GlobalTensor) and isinstance(dst, LocalTensor):
        return regs.get(OUT_TO_UB)
    if isinstance(src, LocalTensor) and isinstance(dst, GlobalTensor):
        return regs.get(UB_TO_OUT)
    return None


def _moved(t, nbytes):
    if isinstance(t, GlobalTensor):
        return GlobalTensor(t.dtype, t.buf, int(t.addr) + nbytes, t.length)
    return LocalTensor(t.dtype, int(t.addr) + nbytes, t.length)


def _loop(state, gm, dst, src, loop, one):
    """SetLoopModePara.md: for the outer loop (loop2Size) and the inner loop (loop1Size), the call
    once with the source / destination moved by the loops' strides (bytes). A fault in any iteration:
    the whole call changes nothing (the fault bits ORed)."""
    l1, l2, s1, d1, s2, d2 = loop
    if l1 == 0 or l2 == 0:
        raise NotModelledError("loop mode with a loop size of 0")
    st = copy_state(state)
    st.loop_mode = None
    g = [np.array(b, copy=True) for b in gm]
    for j in range(l2):
        for i in range(l1):
            st, g = one(st, g, _moved(dst, i * d1 + j * d2), _moved(src, i * s1 + j * s2))
    if st.fault != state.fault:
        return with_fault(state, st.fault), [np.array(b, copy=True) for b in gm]
    st.loop_mode = dict(state.loop_mode)
    return st, g


def SetLoopModePara(state, loopParams, type, *, profile=None):
    """SetLoopModePara.md: the path's six registers := the LoopModeParams fields (ranges: sizes
    [0, 2^21), UB-side strides [0, 2^21) and 32-byte aligned, GM-side strides [0, 2^40))."""
    p = as_profile(profile)
    if not p.api("SetLoopModePara").supported:
        raise UnsupportedError("SetLoopModePara", "api", "SetLoopModePara", "none", p)
    t = int(type)
    f = loopParams
    vals = (f.loop1Size, f.loop2Size, f.loop1SrcStride, f.loop1DstStride, f.loop2SrcStride, f.loop2DstStride)
    ub_src = t == UB_TO_OUT  # UB_TO_OUT: the source strides are on UB
    ok = all(0 <= v < 2**21 for v in vals[:2])
    for k, v in enumerate(vals[2:]):
        is_src = k % 2 == 0
        ub_side = is_src == ub_src
        ok = ok and (0 <= v < 2**21 and v % 32 == 0 if ub_side else 0 <= v < 2**40)
    if not ok:
        return with_fault(state, int(Fault.BAD_PARAM))
    out = copy_state(state)
    out.loop_mode = dict(state.loop_mode or {})
    out.loop_mode[t] = tuple(int(v) for v in vals)
    return out


def ResetLoopModePara(state, type, *, profile=None):
    """ResetLoopModePara.md: loop mode off on the path."""
    p = as_profile(profile)
    if not p.api("ResetLoopModePara").supported:
        raise UnsupportedError("ResetLoopModePara", "api", "ResetLoopModePara", "none", p)
    out = copy_state(state)
    regs = dict(state.loop_mode or {})
    regs.pop(int(type), None)
    out.loop_mode = regs or None
    return out
