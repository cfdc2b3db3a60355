"""GatherMask and GetGatherMaskRemainCount, written from 比较与选择/GatherMask.md and docs/MODEL.md
"GatherMask and shifts".

``GatherMask(state, dst, src0, src1Pattern, reduceMode, mask, gatherMaskParams, *, profile)``
returns ``(new_state, rsvdCnt)`` (rsvdCnt a Python int: the RSVD_CNT register after the call).

Static vs run-time values. Python ints are static: out of range raises ``UsageError``. A NumPy
scalar (``np.integer``) stands for a *traced* value of the fast path: out of range records
``Fault.BAD_PARAM`` (parameters, built-in pattern) or ``Fault.BAD_MASK`` (the Counter-mode mask)
and the call is suppressed.

Order of work, literally: static checks -> run-time parameter checks -> the processed elements
(repeat, element) in program order -> the pattern bit of each -> kept elements -> faults (a
faulting call is suppressed) -> pack the kept elements into dst -> registers.
"""

import operator

import numpy as np

from ..errors import Fault, NotModelledError, UnsupportedError, UsageError
from ..profile import as_profile
from ..tensor import LocalTensor
from . import masks as _masks
from . import state as _st

API = "GatherMask"
U32_MAX = (1 << 32) - 1
# GatherMaskParams fields in C++ order with defaults and ranges (MODEL.md; the repeat count's upper
# bound is the profile's max_repeat_times)
_FIELDS = (
    ("src0BlockStride", 1, 255),
    ("repeatTimes", 0, None),
    ("src0RepeatStride", 8, 65535),
    ("src1RepeatStride", 8, 255),
)


def _is_traced(v):
    return isinstance(v, np.generic)


def _int_value(name, v, profile):
    if isinstance(v, (bool, np.bool_)):
        raise UsageError(API, name, v, "an integer", profile)
    if _is_traced(v):
        if not isinstance(v, np.integer):
            raise UsageError(API, name, v, "an integer", profile)
        return int(v), True
    try:
        return operator.index(v), False
    except TypeError:
        raise UsageError(
            API, name, v, "a Python int", profile, "the reference takes concrete values"
        ) from None


def _params(gmp, profile):
    """``(values, bad)``: the four GatherMaskParams fields and whether a traced one is out of range."""
    # SPEC: GatherMaskParams{src0BlockStride, repeatTimes, src0RepeatStride, src1RepeatStride}
    #       (GatherMask.md, 表 GatherMaskParams结构体参数说明); a 4-tuple or a dict is accepted.
    if isinstance(gmp, dict):
        unknown = set(gmp) - {f[0] for f in _FIELDS}
        if unknown:
            raise UsageError(API, "gatherMaskParams", gmp, "the GatherMaskParams field names", profile)
        raw = [gmp.get(n, d) for n, d, _ in _FIELDS]
    elif isinstance(gmp, (tuple, list)):
        if len(gmp) != 4:
            raise UsageError(API, "gatherMaskParams", gmp, "4 fields", profile)
        raw = list(gmp)
    else:
        try:
            raw = [getattr(gmp, n) for n, _, _ in _FIELDS]
        except AttributeError:
            raise UsageError(API, "gatherMaskParams", gmp, "a GatherMaskParams", profile) from None
    out, bad = [], False
    for (name, _, hi), v in zip(_FIELDS, raw, strict=True):
        hi = profile.max_repeat_times if hi is None else hi
        arg = f"gatherMaskParams.{name}"  # "const GatherMaskParams& gatherMaskParams" (GatherMask.md)
        x, traced = _int_value(arg, v, profile)
        if not 0 <= x <= hi:
            if not traced:
                raise UsageError(API, arg, x, f"[0, {hi}]", profile)
            bad = True
        out.append(x)
    return out, bad


def _builtin_bit(p, e):
    """MODEL.md: 1 even, 2 odd, 3..6 the 1st..4th of every four, 7 every element."""
    # SPEC: "1：01010101…0101 # 每个repeat取偶数索引元素; 2：10101010…1010 # 每个repeat取奇数索引元素;
    #       3：00010001…0001 # 每个repeat内每四个元素取第一个元素 ... 7：11111111...1111 # 每个repeat内取全部元素"
    #       (GatherMask.md, src1Pattern 内置固定模式)
    if p == 1:
        return e % 2 == 0
    if p == 2:
        return e % 2 == 1
    if 3 <= p <= 6:
        return e % 4 == p - 3
    if p == 7:
        return True
    raise AssertionError(p)


def _ub_byte(ub, a):
    """A pattern byte; bytes outside the arena read as 0 (such a call faults OUT_OF_UB anyway)."""
    return int(ub[a]) if 0 <= a < ub.size else 0


def GatherMask(state, dst, src0, src1Pattern, reduceMode, mask, gatherMaskParams, *, profile):
    """Pack the src0 elements whose pattern bit is 1 contiguously into dst (比较与选择/GatherMask.md)."""
    profile = as_profile(profile)
    for t, name in ((dst, "dst"), (src0, "src0")):
        if not isinstance(t, LocalTensor):
            raise UsageError(API, name, t, "a LocalTensor", profile)
        _masks.as_int(API, f"{name}.addr", t.addr, profile)
    a = profile.require_api(API, dst.dtype)
    d = dst.dtype
    if src0.dtype != d:
        raise UsageError(API, "src0.dtype", src0.dtype.name, f"{d.name} (= dst.dtype)", profile)
    if d.kind == "complex" or d.itemsize == 8:
        raise NotModelledError(f"{API}: {d.name} is not modelled")
    if not isinstance(reduceMode, (bool, np.bool_)) or _is_traced(reduceMode):
        raise UsageError(API, "reduceMode", reduceMode, "True or False (a compile-time value)", profile)
    counter = bool(reduceMode)
    size = d.itemsize
    L = profile.lanes(d)
    E = profile.block_bytes // size
    bb = profile.block_bytes

    # -- arguments ----------------------------------------------------------------------------
    (bs, rep, rs0, rs1), bad_param = _params(gatherMaskParams, profile)
    bad_mask = False
    m, m_traced = _int_value("mask", mask, profile)
    if counter:
        # SPEC: "reduceMode为true时 ... mask参数 ... 表示每次repeat操作mask个元素" (配置方式一) /
        #       "... 参与计算的元素总数" (配置方式二); MODEL.md: [1, 2**32-1], 0 is a usage error.
        if not 1 <= m <= U32_MAX:
            if not m_traced:
                raise UsageError(API, "mask", m, "[1, 2**32-1] in Counter mode (reduceMode=true)", profile)
            bad_mask = True
    elif not 0 <= m <= U32_MAX:
        # MODEL.md: Normal mode: any uint32 value, ignored
        if not m_traced:
            raise UsageError(API, "mask", m, "[0, 2**32-1]", profile)
        bad_mask = True
    patterns = tuple(int(x) for x in a.patterns)
    user = isinstance(src1Pattern, LocalTensor)
    builtin = None
    if user:
        u = src1Pattern.dtype
        # SPEC: "src1Pattern ... 用户自定义模式：数据类型为uint16_t（src0为16位）/uint32_t（src0为32位）"
        #       (GatherMask.md); MODEL.md: U in apis.GatherMask.pattern_dtypes, sizeof(U) == sizeof(T).
        allowed = tuple(a.pattern_dtypes)
        if u.name not in allowed or u.itemsize != size:
            raise UsageError(
                API,
                "src1Pattern.dtype",
                u.name,
                f"one of {', '.join(x for x in allowed if int(''.join(c for c in x if c.isdigit())) == 8 * size)}",
                profile,
            )
        pat_addr = _masks.as_int(API, "src1Pattern.addr", src1Pattern.addr, profile)
    else:
        builtin, traced = _int_value("src1Pattern", src1Pattern, profile)
        if builtin not in patterns:
            if not traced:
                raise UsageError(API, "src1Pattern", builtin, f"one of {list(patterns)}", profile)
            bad_param = True
        pat_addr = 0
    bad = (int(Fault.BAD_PARAM) if bad_param else 0) | (int(Fault.BAD_MASK) if bad_mask else 0)
    if bad:
        # MODEL.md: BAD_PARAM / BAD_MASK are recorded even when the call would be a NOP; the
        # call is suppressed
        return _st.with_fault(state, bad), int(state.rsvd_cnt)

    # -- processed elements (r, e) in program order --------------------------------------------
    config = int(a.counter_config)
    if counter and config == 2:
        # SPEC (310P, 配置方式二): mask = the total element count, repeats derived; repeatTimes is
        # range-checked but ignored (MODEL.md)
        repeats = (m + L - 1) // L

        def per_repeat(r):
            return min(L, m - r * L)

    else:
        if rep == 0:
            # SPEC: "当参数 ... repeatTime取值为0时 ... 视为NOP" (A2/A3); MODEL.md behavior.zero_repeat
            plan = _masks._zero("repeat", API, profile, static=True)
            if plan.outcome == "nop":
                return _st.copy_state(state), int(state.rsvd_cnt)
            return _st.with_fault(state, plan.fault), int(state.rsvd_cnt)
        repeats = rep
        # SPEC: Normal: "每次repeat操作256Bytes数据"; Counter 配置方式一: "每次repeat操作mask个元素"
        #       (GatherMask.md, reduceMode); MODEL.md: mask may exceed L (the mask = 70 sample).
        n_e = m if counter else L

        def per_repeat(r):
            return n_e

    _masks._guard(sum(per_repeat(r) for r in range(repeats)), API)

    def src_addr(r, e):
        # MODEL.md: src0.addr + (r*src0RepeatStride + (e//E)*src0BlockStride)*32 + (e%E)*sizeof(T)
        return src0.addr + (r * rs0 + (e // E) * bs) * bb + (e % E) * size

    def pattern_bit(r, e):
        if not user:
            return _builtin_bit(builtin, e)
        # MODEL.md: bit e of the bit stream at P_r = src1Pattern.addr + r*src1RepeatStride*32 (LSB first)
        p_r = pat_addr + r * rs1 * bb
        return (_ub_byte(state.ub, p_r + e // 8) >> (e % 8)) & 1 == 1

    kept = []  # (r, e) in program order
    kept_per_repeat = []
    src_blocks = []  # (r, block address) of the active src0 blocks
    pat_blocks = []  # (r, block address) of the active pattern blocks
    for r in range(repeats):
        k_r = 0
        seen_k, seen_q = set(), set()
        for e in range(per_repeat(r)):
            k = e // E
            if k not in seen_k:
                seen_k.add(k)
                src_blocks.append((r, src0.addr + (r * rs0 + k * bs) * bb))
            if user:
                q = e // 256
                if q not in seen_q:
                    seen_q.add(q)
                    pat_blocks.append((r, pat_addr + (r * rs1 + q) * bb))
            if pattern_bit(r, e):
                kept.append((r, e))
                k_r += 1
        kept_per_repeat.append(k_r)
    rsvd = len(kept)

    # -- faults --------------------------------------------------------------------------------
    fault = 0
    align = profile.operand_alignment_bytes
    # SPEC: "LocalTensor的起始地址需要32字节对齐" (通用地址对齐约束)
    if dst.addr % align or src0.addr % align or (user and pat_addr % align):
        fault |= Fault.MISALIGNED
    limit = min(state.ub.size, profile.ub_usable_bytes)
    n_dst_blocks = (rsvd + E - 1) // E  # written dst blocks t: t*E < rsvd
    dst_blocks = [dst.addr + bb * t for t in range(n_dst_blocks)]
    for blk in [x for _, x in src_blocks] + [x for _, x in pat_blocks] + dst_blocks:
        if blk < 0 or blk + bb > limit:
            fault |= Fault.OUT_OF_UB
            break

    # dst blocks written by repeat r: [c_r // E, (c_r + k_r - 1) // E]; before r: [0, (c_r - 1) // E]
    c = []
    acc = 0
    for k_r in kept_per_repeat:
        c.append(acc)
        acc += k_r

    def dst_index(blk):
        off = blk - dst.addr
        if off < 0 or off % bb:
            return None
        return off // bb

    def written_by(r, t):
        k_r = kept_per_repeat[r]
        return k_r > 0 and c[r] // E <= t <= (c[r] + k_r - 1) // E

    def written_before(r, t):
        return c[r] > 0 and 0 <= t <= (c[r] - 1) // E

    # SPEC: "单次迭代内：源操作数与目的操作数必须100%完全重叠，不支持部分重叠"; "多次迭代间：不支持前序迭代
    #       的目的操作数与后序迭代的源操作数重叠" (通用地址重叠约束). MODEL.md: in place
    #       (dst.addr == src0.addr) is the documented 100 % overlap.
    for r, blk in src_blocks:
        t = dst_index(blk)
        if t is None:
            continue
        if written_by(r, t) and dst.addr != src0.addr:
            fault |= Fault.PARTIAL_OVERLAP
        if written_before(r, t):
            fault |= Fault.REPEAT_DEPENDENCY
    for r, blk in pat_blocks:
        t = dst_index(blk)
        if t is None:
            continue
        if written_by(r, t):
            fault |= Fault.PARTIAL_OVERLAP
        if written_before(r, t):
            fault |= Fault.REPEAT_DEPENDENCY
    if not user:
        # SPEC: "用户自定义模式不涉及8KB临时空间" (GatherMask.md, 950): only built-in patterns use it
        for region in profile.reserved:
            if API not in region.used_by:
                continue
            lo, hi = region.offset_bytes, region.offset_bytes + region.size_bytes
            if any(x < hi and x + bb > lo for x in [x for _, x in src_blocks] + dst_blocks):
                fault |= Fault.SCRATCH_COLLISION
    if fault:
        return _st.with_fault(state, int(fault)), int(state.rsvd_cnt)

    # -- pack (every read sees UB before the call) ----------------------------------------------
    values = [_st.read_bits(state.ub, src_addr(r, e), size) for r, e in kept]
    out = _st.copy_state(state)
    for j, bits in enumerate(values):
        # SPEC: "目的操作数 ... 按照src1Pattern ... 收集的元素连续存放" (GatherMask.md); the tail after
        #       rsvdCnt is "未定义" on the page and left untouched by the model (MODEL.md)
        _st.write_bits(out.ub, dst.addr + j * size, size, bits)

    # -- registers -----------------------------------------------------------------------------
    out.rsvd_cnt = rsvd
    # SPEC: "接口内部执行结束后会设置为Normal模式" (GatherMask.md); 950: apis.GatherMask.mode_after
    if a.mode_after == "normal":
        out.mask_mode = 0
    vmask_after = a.vmask_after
    if vmask_after == "count":
        _st.set_vmask(out, m & ((1 << 64) - 1), profile)  # MODEL.md: low 64 bits = mask, rest 0
    elif vmask_after == "pattern":
        if not user and 1 <= builtin <= 6:
            v = 0
            for lane in range(min(L, profile.vector_mask_bits)):
                if _builtin_bit(builtin, lane):
                    v |= 1 << lane
            _st.set_vmask(out, v, profile)
    elif vmask_after != "unchanged":
        raise AssertionError(vmask_after)
    return out, rsvd


def GetGatherMaskRemainCount(state, *, profile):
    """The RSVD_CNT register (GetGatherMaskRemainCount.md): the number of elements the last
    GatherMask kept, where the product has the API."""
    profile = as_profile(profile)
    if not profile.api("GetGatherMaskRemainCount").supported:
        raise UnsupportedError(
            "GetGatherMaskRemainCount",
            "api",
            "GetGatherMaskRemainCount",
            "none (the product does not have this API)",
            profile,
        )
    return int(state.rsvd_cnt)


__all__ = ["GatherMask", "GetGatherMaskRemainCount"]
