"""Compare, Compares, CompareScalar, Compare to CMPMASK, SetCmpMask, GetCmpMask (docs/MODEL.md,
section "Compare and Select"; pages 比较与选择/Compare.md, Compares.md, Compare（结果存入寄存器）.md,
SetCmpMask(ISASI).md, GetCmpMask(ISASI).md; seed 001 for CompareScalar).

Order of work, literally: static checks -> lane plan (masks.py, or the mask-ignored / count rules
written here) -> faults (a faulting call only ORs its fault bits) -> read every active source lane
-> compare -> write the bits of every issued repeat in program order -> register side effects.

Also here: the small helpers shared with ``select.py`` (static checks of BinaryRepeatParams,
ranges, intersection tests, scratch regions, reading elements).
"""

from .. import checks as _checks
from ..errors import Fault, NotModelledError, UnsupportedError, UsageError
from ..params import BinaryRepeatParams, UnaryRepeatParams
from ..profile import as_profile
from ..tensor import MASK_PLACEHOLDER, LocalTensor
from . import masks as _masks
from . import numerics as _num
from . import state as _st

# SPEC: "enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE }" (比较与选择/Compare.md,
#       translated); MODEL.md lists the C++ values LT=0, GT=1, EQ=2, LE=3, GE=4, NE=5.
CMP_NAMES = ("LT", "GT", "EQ", "LE", "GE", "NE")


# ---------------------------------------------------------------------------------------------
# Shared static checks


def check_tensor(api, name, t, profile):
    if not isinstance(t, LocalTensor):
        raise UsageError(api, name, t, "a LocalTensor", profile)
    _masks.as_int(api, f"{name}.addr", t.addr, profile)
    return LocalTensor(t.dtype, int(t.addr), t.length, t.name)


def not_modelled(api, d):
    # MODEL.md: a complex T has no order, so no product compares it (kept as a guard)
    if d.kind == "complex":
        raise NotModelledError(f"{api}: {d.name} is not modelled by the reference")


def check_binary_params(api, params, profile):
    """The six BinaryRepeatParams strides (all uint8 in C++), range-checked."""
    if not isinstance(params, BinaryRepeatParams):
        raise UsageError(api, "repeatParams", params, "a BinaryRepeatParams", profile)
    out = []
    for name in (
        "dstBlkStride",
        "src0BlkStride",
        "src1BlkStride",
        "dstRepStride",
        "src0RepStride",
        "src1RepStride",
    ):
        arg = f"repeatParams.{name}"  # "const BinaryRepeatParams& repeatParams" in every prototype
        v = _masks.as_int(api, arg, getattr(params, name), profile)
        hi = BinaryRepeatParams._RANGES[name]
        # SPEC: BinaryRepeatParams{uint8_t dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride,
        #       src0RepStride, src1RepStride} (structs/BinaryRepeatParams.md)
        if not 0 <= v <= hi:
            raise UsageError(api, arg, v, f"[0, {hi}]", profile)
        out.append(v)
    return tuple(out)


def check_cmp_mode(api, cmp_mode, d, a, profile):
    """The static CMPMODE; returns the name of the comparison actually computed."""
    if isinstance(cmp_mode, bool) or not isinstance(cmp_mode, int):
        raise UsageError(
            api,
            "cmpMode",
            "a traced value" if not isinstance(cmp_mode, int) else cmp_mode,
            "CMPMODE::LT / GT / EQ / LE / GE / NE",
            profile,
            "cmpMode is a compile-time enum",
        )
    m = int(cmp_mode)
    if not 0 <= m < len(CMP_NAMES):
        raise UsageError(api, "cmpMode", m, "CMPMODE::LT / GT / EQ / LE / GE / NE", profile)
    name = CMP_NAMES[m]
    modes = a.modes
    if name not in modes:
        raise UnsupportedError(api, "cmpMode", f"CMPMODE::{name}", ", ".join(modes), profile)
    # SPEC: Compares on 950: "double（只支持CMPMODE::EQ）" (比较与选择/Compares.md 数据类型)
    f64_modes = a.float64_modes
    if d.name == "float64" and f64_modes is not None and name not in f64_modes:
        raise UnsupportedError(
            api,
            "cmpMode",
            f"CMPMODE::{name}",
            ", ".join(f64_modes),
            profile,
            "double supports only these here",
        )
    # SPEC: int32_t on A2/A3 "仅支持CMPMODE::EQ" (比较与选择/Compare.md 数据类型); the vendor's release
    #       build computes EQ silently (profile choice int32_other_modes = "silent_eq").
    int32_modes = a.int32_modes
    if d.name == "int32" and int32_modes is not None and name not in int32_modes:
        if a.int32_other_modes == "silent_eq":
            return "EQ"
        raise UnsupportedError(
            api,
            "cmpMode",
            f"CMPMODE::{name}",
            ", ".join(int32_modes),
            profile,
            f"int32_t supports only {' / '.join(int32_modes)} here",
        )
    return name


def usable_limit(state, profile):
    """OUT_OF_UB bound: [0, min(len(ub), ub_usable_bytes))."""
    return min(state.ub.size, profile.ub_usable_bytes)


def outside(lo, hi, limit):
    return lo < 0 or hi > limit


def intersects(lo, hi, lo2, hi2):
    return lo < hi2 and lo2 < hi


def scratch_regions(api, profile):
    """[(lo, hi)] of memory.reserved regions whose used_by lists ``api``."""
    return [(r.offset_bytes, r.offset_bytes + r.size_bytes) for r in profile.reserved if api in r.used_by]


def any_in_scratch(ranges, regions):
    for lo, hi in ranges:
        for slo, shi in regions:
            if intersects(lo, hi, slo, shi):
                return True
    return False


def element_reader(ub, itemsize):
    """A function: byte address -> the bit pattern (int) of the ``itemsize`` bytes there. Used only
    after the fault checks passed, so every tensor lane read is aligned and inside UB; an element
    scalar (the flexible-scalar APIs) has no alignment rule and is read at its own bytes, whatever
    its address (docs/MODEL.md, the MISALIGNED rule)."""
    if ub.size % itemsize == 0:
        words = ub.view({1: "<u1", 2: "<u2", 4: "<u4", 8: "<u8"}[itemsize]).tolist()
        return lambda addr: (
            words[addr // itemsize] if addr % itemsize == 0 else _st.read_bits(ub, addr, itemsize)
        )
    return lambda addr: _st.read_bits(ub, addr, itemsize)


def block_addr(addr, r, b, blk_stride, rep_stride, bb=32):
    # SPEC: "dataBlockStride是指单次迭代内不同DataBlock间地址步长" and "repeatStride是指相邻迭代间
    #       相同DataBlock的地址步长" (SIMD计算说明/高维切分.md), in 32-byte DataBlocks.
    return addr + (r * rep_stride + b * blk_stride) * bb


def active_block_list(active, lanes, E):
    """[(r, b)] of blocks holding at least one active lane, in program order."""
    out = []
    for r, row in enumerate(active):
        for b in range(lanes // E):
            if any(row[b * E : (b + 1) * E]):
                out.append((r, b))
    return out


# ---------------------------------------------------------------------------------------------
# Comparison of two element bit patterns


def value_reader(d, profile):
    """bits -> the Python value compared: exact float (subnormals flushed where the profile says
    so) or the integer (signed for signed T)."""
    if d.is_float:
        fmt = _num.float_format(d)
        return lambda bits: _num.read_float_input(bits, fmt, profile)
    return lambda bits: _num.bits_to_int(bits, d)


def compare_values(a, b, name):
    """``a name b``. Python floats: every comparison with NaN is false except ``!=``; -0 == +0."""
    # SPEC (MODEL.md): "-0 == +0, ±inf order as usual, every comparison with a NaN operand is
    #       false except NE, which is true"
    if name == "LT":
        return a < b
    if name == "GT":
        return a > b
    if name == "EQ":
        return a == b
    if name == "LE":
        return a <= b
    if name == "GE":
        return a >= b
    if name == "NE":
        return a != b
    raise AssertionError(name)


# ---------------------------------------------------------------------------------------------
# Lane plans of the Compare family


def count_plan(api, state, d, count, a, profile):
    """Count form of Compare/Compares/CompareScalar (registers never change)."""
    L = profile.lanes(d)
    c = _masks.check_count(api, count, d, profile)
    align = a.count_alignment_bytes
    # SPEC: "count ... 需要保证count个元素所占空间256字节对齐" (Compare.md count row; per profile)
    if align and (c * d.itemsize) % align:
        raise UsageError(
            api, "count", c, f"a multiple of {align // d.itemsize} for {d.name} ({align} bytes)", profile
        )
    if c == 0:
        return _masks._zero("count", api, profile, static=True)
    # SPEC: count_tail "dropped": "未对齐部分元素不参与计算" -> whole 256-byte repeats only
    n = c - c % L if a.count_tail == "dropped" else c
    repeats, active = _masks.counter_lanes(n, L)
    return _masks.LanePlan("run", repeats=repeats, lanes=L, active=active)


def parse_ignored_mask(api, mask, is_set_mask, profile):
    """Static type/range check of a mask that is a reserved parameter ("保留参数，设置无效")."""
    if not is_set_mask:
        if mask is not MASK_PLACEHOLDER:
            raise UsageError(api, "mask", mask, "MASK_PLACEHOLDER when isSetMask=false", profile)
        return
    if mask is MASK_PLACEHOLDER:
        raise UsageError(api, "mask", mask, "a mask value when isSetMask=true", profile)
    nw = profile.vector_mask_bits // 64
    words = list(mask) if isinstance(mask, (list, tuple)) else [mask]
    if isinstance(mask, (list, tuple)) and not 1 <= len(words) <= nw:
        raise UsageError(api, "mask", words, f"a list of 1 to {nw} uint64 words", profile)
    for i, w in enumerate(words):
        # a word of mask[] is named by its index; a continuous mask by the parameter name
        arg = f"mask[{i}]" if isinstance(mask, (list, tuple)) else "mask"
        w = _masks.as_int(api, arg, w, profile)
        if not 0 <= w <= _masks.U64_MAX:
            raise UsageError(api, arg, w, "[0, 2**64-1]", profile)


def ignored_plan(api, d, mask, repeat_time, is_set_mask, profile):
    """High-dim form where the mask is ignored: every lane of repeats r < repeatTime, whatever the
    mask registers hold; vmask / mask_mode never change."""
    L = profile.lanes(d)
    rt = _masks.check_repeat_time(api, repeat_time, profile)
    parse_ignored_mask(api, mask, is_set_mask, profile)
    if rt == 0:
        return _masks._zero("repeat", api, profile, static=True)
    return _masks.LanePlan("run", repeats=rt, lanes=L, active=[[True] * L for _ in range(rt)])


def honoured_plan(api, state, d, mask, repeat_time, is_set_mask, profile):
    """High-dim forms 2 and 3 of MODEL.md (the unary rules; strides are handled by the caller)."""
    return _masks.plan_high_dim(api, state, d, mask, repeat_time, UnaryRepeatParams(), is_set_mask, profile)


# ---------------------------------------------------------------------------------------------
# Compare / Compares / CompareScalar (result in UB)


def _flexible_kinds(api, src0, src1, config, profile):
    """Compares（灵活标量位置）: [kind of src0, kind of src1], each "tensor", "scalar" or "element"."""
    t0, t1 = isinstance(src0, LocalTensor), isinstance(src1, LocalTensor)
    if not (t0 or t1):
        # SPEC: "左操作数及右操作数中，必须有一个为矢量；当前不支持左右操作数同时为标量"
        raise UsageError(api, "src0/src1", "two scalars", "at least one LocalTensor", profile)
    if not (t0 and t1):
        return ["tensor", "scalar"] if t0 else ["scalar", "tensor"]
    # SPEC: "config ... 当标量为LocalTensor单点元素类型时生效 ... 默认值DEFAULT_BINARY_CONFIG，表示右操作数
    #       为标量" (scalarTensorIndex: 0 = src0, 1 = src1); the element is element 0 of that tensor
    idx = 1 if config is None else getattr(config, "scalarTensorIndex", config)
    if isinstance(idx, bool) or not isinstance(idx, int) or idx not in (0, 1):
        raise UsageError(api, "config.scalarTensorIndex", idx, "0 or 1", profile)
    return ["element", "tensor"] if idx == 0 else ["tensor", "element"]


def _compare_to_ub(api, state, dst, src0, src1, cmp_mode, args, profile, is_set_mask, config=None):
    profile = as_profile(profile)
    if not isinstance(is_set_mask, bool):
        raise UsageError(api, "isSetMask", is_set_mask, "True or False", profile)
    dst = check_tensor(api, "dst", dst, profile)
    if api == "ComparesFlexible":
        return _compare_flexible(api, state, dst, src0, src1, cmp_mode, args, profile, is_set_mask, config)
    src0 = check_tensor(api, "src0", src0, profile)
    scalar_form = not isinstance(src1, LocalTensor)
    if not scalar_form:
        src1 = check_tensor(api, "src1", src1, profile)
    if len(args) == 1:
        count_form = True
    elif len(args) == 3:
        count_form = False
    else:
        raise TypeError(f"{api}: expected (count,) or (mask, repeatTime, repeatParams), got {len(args)}")
    d = src0.dtype
    a = profile.require_api(api, d, count_form=count_form)
    not_modelled(api, d)
    if not scalar_form and src1.dtype != d:
        raise UsageError(api, "src1.dtype", src1.dtype.name, f"{d.name} (= src0.dtype)", profile)
    dst_dtypes = a.dst_dtypes
    if dst.dtype.name not in dst_dtypes:
        raise UnsupportedError(api, "dst.dtype", dst.dtype.name, ", ".join(dst_dtypes), profile)
    if a.dst_strides != "ignored":
        raise NotModelledError(f"{api}: dst_strides = {a.dst_strides!r}")
    name = check_cmp_mode(api, cmp_mode, d, a, profile)
    if count_form and not is_set_mask:
        raise UsageError(api, "isSetMask", False, "True", profile, "the count prototype has no isSetMask")
    if not count_form and not is_set_mask and not scalar_form:
        # SPEC: Compare "isSetMask: 保留参数" for the tensor-result prototype
        raise UsageError(api, "isSetMask", False, "True", profile, "a reserved parameter of Compare")
    if scalar_form:
        scalar_bits = _num.scalar_to_bits(api, src1, d, profile)

    L = profile.lanes(d)
    E = profile.block_bytes // d.itemsize
    W = L // 8  # result bytes per repeat
    # -- lanes ----------------------------------------------------------------------------------
    if count_form:
        plan = count_plan(api, state, d, args[0], a, profile)
        strides0 = (1, 8)
        strides1 = None if scalar_form else (1, 8)
    else:
        mask, repeat_time, params = args
        if scalar_form:
            s = _masks.check_repeat_params(api, params, profile)
            strides0, strides1 = (s[1], s[3]), None
        else:
            s = check_binary_params(api, params, profile)
            strides0, strides1 = (s[1], s[4]), (s[2], s[5])
        if a.mask_honoured:
            plan = honoured_plan(api, state, d, mask, repeat_time, is_set_mask, profile)
        else:
            plan = ignored_plan(api, d, mask, repeat_time, is_set_mask, profile)
    if plan.outcome == "nop":
        # SPEC: "... 该接口将被视为NOP" (count / repeatTime 0, A2/A3)
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)

    issued = [any(row) for row in plan.active]
    if not any(issued):
        # no active lane (e.g. a dropped tail that is the whole count): nothing happens
        out = _st.copy_state(state)
        _apply_registers(out, plan, profile)
        return out

    # -- faults ---------------------------------------------------------------------------------
    fault = 0
    align = profile.operand_alignment_bytes
    tensors = [dst, src0] + ([] if scalar_form else [src1])
    # SPEC: "Unified Buffer | 32Byte对齐" (通用说明和约束.md)
    if any(t.addr % align for t in tensors):
        fault |= Fault.MISALIGNED
    blocks = active_block_list(plan.active, L, E)
    src_blocks = []  # (r', lo, hi)
    for t, st in ((src0, strides0), (src1, strides1)):
        if st is None:
            continue
        for r, b in blocks:
            lo = block_addr(t.addr, r, b, st[0], st[1])
            src_blocks.append((r, lo, lo + 32))
    d_ranges = [(r, dst.addr + r * W, dst.addr + (r + 1) * W) for r in range(plan.repeats) if issued[r]]
    limit = usable_limit(state, profile)
    all_ranges = [(lo, hi) for _, lo, hi in src_blocks] + [(lo, hi) for _, lo, hi in d_ranges]
    if any(outside(lo, hi, limit) for lo, hi in all_ranges):
        fault |= Fault.OUT_OF_UB
    # SPEC: "单次迭代内：源操作数与目的操作数必须100%完全重叠，不支持部分重叠"; "多次迭代间：不支持前序
    #       迭代的目的操作数与后序迭代的源操作数重叠" (通用说明和约束.md). MODEL.md: a source block of
    #       repeat r' meeting D_r of an issued r: r == r' PARTIAL_OVERLAP, r < r' REPEAT_DEPENDENCY.
    for rp, lo, hi in src_blocks:
        r_lo = max(0, (lo - dst.addr) // W)
        r_hi = min(plan.repeats - 1, (hi - dst.addr - 1) // W)
        for r in range(r_lo, r_hi + 1):
            if not issued[r] or not intersects(lo, hi, dst.addr + r * W, dst.addr + (r + 1) * W):
                continue
            if r == rp:
                fault |= Fault.PARTIAL_OVERLAP
            elif r < rp:
                fault |= Fault.REPEAT_DEPENDENCY
    if any_in_scratch(all_ranges, scratch_regions(api, profile)):
        fault |= Fault.SCRATCH_COLLISION
    if fault:
        return _st.with_fault(state, fault)

    # -- compare (every read sees the state before the call) --------------------------------------
    size = d.itemsize
    read = element_reader(state.ub, size)
    value = value_reader(d, profile)
    b_val = value(scalar_bits) if scalar_form else None
    out = _st.copy_state(state)
    for r in range(plan.repeats):
        if not issued[r]:
            continue  # MODEL.md: bytes of repeats that are not issued keep their old value
        row = plan.active[r]
        bits = [0] * L
        for l in range(L):
            if not row[l]:
                continue  # MODEL.md: inactive lanes of an issued repeat give 0 bits
            blk, e = l // E, l % E
            av = value(read(block_addr(src0.addr, r, blk, *strides0) + e * size))
            if scalar_form:
                bv = b_val
            else:
                bv = value(read(block_addr(src1.addr, r, blk, *strides1) + e * size))
            bits[l] = 1 if compare_values(av, bv, name) else 0
        # SPEC: output bit i (LSB first, little-endian) <-> element i; repeat r owns bytes
        #       [dst + r*W, dst + (r+1)*W) (MODEL.md "Bit layout")
        for k in range(W):
            byte = 0
            for i in range(8):
                byte |= bits[8 * k + i] << i
            out.ub[dst.addr + r * W + k] = byte
    _apply_registers(out, plan, profile)
    return out


def _compare_flexible(api, state, dst, src0, src1, cmp_mode, args, profile, is_set_mask, config):
    """Compares（灵活标量位置） (950): ``dst bit i = op0_i cmpMode op1_i`` where one operand is the
    strided tensor and the other a number (either position) or element 0 of a LocalTensor."""
    kinds = _flexible_kinds(api, src0, src1, config, profile)
    ops = [src0, src1]
    for i, name in enumerate(("src0", "src1")):
        if kinds[i] != "scalar":
            ops[i] = check_tensor(api, name, ops[i], profile)
    vi = kinds.index("tensor")  # the strided operand
    vec = ops[vi]
    if len(args) not in (1, 3):
        raise TypeError(f"{api}: expected (count,) or (mask, repeatTime, repeatParams), got {len(args)}")
    count_form = len(args) == 1
    d = vec.dtype
    a = profile.require_api(api, d, count_form=count_form)
    not_modelled(api, d)
    other = ops[1 - vi]
    if kinds[1 - vi] == "element" and other.dtype != d:
        raise UsageError(api, ("src0", "src1")[1 - vi] + ".dtype", other.dtype.name, f"{d.name}", profile)
    if dst.dtype.name not in a.dst_dtypes:
        raise UnsupportedError(api, "dst.dtype", dst.dtype.name, ", ".join(a.dst_dtypes), profile)
    if a.dst_strides != "ignored":
        raise NotModelledError(f"{api}: dst_strides = {a.dst_strides!r}")
    name = check_cmp_mode(api, cmp_mode, d, a, profile)
    if count_form and not is_set_mask:
        raise UsageError(api, "isSetMask", False, "True", profile, "the count prototype has no isSetMask")
    scalar_bits = None
    if kinds[1 - vi] == "scalar":
        scalar_bits = _num.scalar_to_bits(api, other, d, profile, ("src0", "src1")[1 - vi])

    L = profile.lanes(d)
    E = profile.block_bytes // d.itemsize
    W = L // 8
    if count_form:
        plan = count_plan(api, state, d, args[0], a, profile)
        strides = (1, 8)
    else:
        mask, repeat_time, params = args
        s = _masks.check_repeat_params(api, params, profile)  # UnaryRepeatParams
        strides = (s[1], s[3])  # the tensor operand's block / repeat strides
        if a.mask_honoured:
            plan = honoured_plan(api, state, d, mask, repeat_time, is_set_mask, profile)
        else:
            plan = ignored_plan(api, d, mask, repeat_time, is_set_mask, profile)
    if plan.outcome == "nop":
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)
    issued = [any(row) for row in plan.active]
    if not any(issued):
        out = _st.copy_state(state)
        _apply_registers(out, plan, profile)
        return out

    # -- faults (as Compares; the element scalar adds its own bytes) ---------------------------------
    fault = 0
    size = d.itemsize
    # SPEC: "Unified Buffer | 32Byte对齐" (通用说明和约束.md) for dst and the tensor operand; an element
    #       scalar has no alignment rule (as SelectFlexible, MODEL.md)
    if dst.addr % profile.operand_alignment_bytes or vec.addr % profile.operand_alignment_bytes:
        fault |= Fault.MISALIGNED
    blocks = active_block_list(plan.active, L, E)
    src_blocks = []
    for r, b in blocks:
        lo = block_addr(vec.addr, r, b, strides[0], strides[1])
        src_blocks.append((r, lo, lo + 32))
    elem = other.addr if kinds[1 - vi] == "element" else None
    d_ranges = [(r, dst.addr + r * W, dst.addr + (r + 1) * W) for r in range(plan.repeats) if issued[r]]
    limit = usable_limit(state, profile)
    all_ranges = [(lo, hi) for _, lo, hi in src_blocks] + [(lo, hi) for _, lo, hi in d_ranges]
    if elem is not None:
        all_ranges.append((elem, elem + size))
    if any(outside(lo, hi, limit) for lo, hi in all_ranges):
        fault |= Fault.OUT_OF_UB
    for rp, lo, hi in src_blocks:
        for r, dlo, dhi in d_ranges:
            if intersects(lo, hi, dlo, dhi):
                if r == rp:
                    fault |= Fault.PARTIAL_OVERLAP
                elif r < rp:
                    fault |= Fault.REPEAT_DEPENDENCY
    if elem is not None and any(intersects(elem, elem + size, dlo, dhi) for _, dlo, dhi in d_ranges):
        # SPEC: "调用灵活标量位置接口且源操作数为LocalTensor单点元素的场景，不支持源操作数和目的操作数地址重叠"
        fault |= Fault.PARTIAL_OVERLAP
    if any_in_scratch(all_ranges, scratch_regions(api, profile)):
        fault |= Fault.SCRATCH_COLLISION
    if fault:
        return _st.with_fault(state, fault)

    # -- compare (every read sees the state before the call) ----------------------------------------
    read = element_reader(state.ub, size)
    value = value_reader(d, profile)
    s_val = value(scalar_bits) if scalar_bits is not None else value(read(elem))
    out = _st.copy_state(state)
    for r in range(plan.repeats):
        if not issued[r]:
            continue
        bits = [0] * L
        for l in range(L):
            if not plan.active[r][l]:
                continue
            v = value(read(block_addr(vec.addr, r, l // E, *strides) + (l % E) * size))
            # SPEC: "dst_i = Compares(src_i, scalar)" / "dst_i = Compares(scalar, src_i)"
            av, bv = (v, s_val) if vi == 0 else (s_val, v)
            bits[l] = 1 if compare_values(av, bv, name) else 0
        for k in range(W):
            byte = 0
            for i in range(8):
                byte |= bits[8 * k + i] << i
            out.ub[dst.addr + r * W + k] = byte
    _apply_registers(out, plan, profile)
    return out


def ComparesFlexible(state, dst, src0, src1, cmpMode, *args, profile, isSetMask=True, config=None):
    """Compares（灵活标量位置） (比较与选择/Compares（灵活标量位置）.md, 950)."""
    return _compare_to_ub(
        "ComparesFlexible", state, dst, src0, src1, cmpMode, args, profile, isSetMask, config
    )


def _apply_registers(out, plan, profile):
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)


def Compares(state, dst, src0, src1Scalar, cmpMode, *args, profile, isSetMask=True, config=None):
    """``dst bit i = src0[i] cmpMode src1Scalar`` (比较与选择/Compares.md); the 灵活标量位置 overload
    (a scalar src0, a LocalTensor element src1, a config) is ComparesFlexible."""
    if _masks.flexible_overload("ComparesFlexible", as_profile(profile), src0, src1Scalar, config):
        return ComparesFlexible(
            state, dst, src0, src1Scalar, cmpMode, *args, profile=profile, isSetMask=isSetMask, config=config
        )
    if isinstance(src1Scalar, LocalTensor):
        raise UsageError("Compares", "src1Scalar", src1Scalar, "a scalar", as_profile(profile))
    return _compare_to_ub("Compares", state, dst, src0, src1Scalar, cmpMode, args, profile, isSetMask)


def CompareScalar(state, dst, src0, src1Scalar, cmpMode, *args, profile, isSetMask=True):
    """The older name of Compares (seed 001); its own profile entry ``apis.CompareScalar``."""
    if isinstance(src1Scalar, LocalTensor):
        raise UsageError("CompareScalar", "src1Scalar", src1Scalar, "a scalar", as_profile(profile))
    return _compare_to_ub("CompareScalar", state, dst, src0, src1Scalar, cmpMode, args, profile, isSetMask)


def Compare(state, *args, profile, isSetMask=True):
    """``Compare(dst, src0, src1, cmpMode, count | mask, repeatTime, params)`` (bits into UB) or
    ``Compare(src0, src1, cmpMode, mask, params)`` (bits into CMPMASK, see CompareCmpMask)."""
    if len(args) >= 3 and all(isinstance(x, LocalTensor) for x in args[:3]):
        dst, src0, src1, cmp_mode, *rest = args
        return _compare_to_ub("Compare", state, dst, src0, src1, cmp_mode, rest, profile, isSetMask)
    if len(args) == 5:
        return CompareCmpMask(state, *args, profile=profile, isSetMask=isSetMask)
    raise TypeError(f"Compare: no prototype takes {len(args)} arguments")


# ---------------------------------------------------------------------------------------------
# Compare to CMPMASK


def CompareCmpMask(state, src0, src1, cmpMode, mask, repeatParams, *, profile, isSetMask=True):
    """Compare（结果存入寄存器）: one repeat compared into the CMPMASK register."""
    api = "CompareCmpMask"
    profile = as_profile(profile)
    if not isinstance(isSetMask, bool):
        raise UsageError(api, "isSetMask", isSetMask, "True or False", profile)
    src0 = check_tensor(api, "src0", src0, profile)
    src1 = check_tensor(api, "src1", src1, profile)
    d = src0.dtype
    a = profile.require_api(api, d)
    not_modelled(api, d)
    if src1.dtype != d:
        raise UsageError(api, "src1.dtype", src1.dtype.name, f"{d.name} (= src0.dtype)", profile)
    name = check_cmp_mode(api, cmpMode, d, a, profile)
    s = check_binary_params(api, repeatParams, profile)
    L = profile.lanes(d)
    E = profile.block_bytes // d.itemsize
    # SPEC: "CmpMask 128bit寄存器" (Compare（结果存入寄存器）.md): L result bits must fit
    if L > profile.cmpmask_bits:
        raise UnsupportedError(api, "dtype", d.name, f"types with <= {profile.cmpmask_bits} lanes", profile)
    if a.mask_honoured:
        plan = honoured_plan(api, state, d, mask, 1, isSetMask, profile)
    else:
        plan = ignored_plan(api, d, mask, 1, isSetMask, profile)
    if plan.outcome == "nop":
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)
    # MODEL.md: one repeat (R = 1); in Counter mode lanes l < count (a count above L: all lanes)
    row = plan.active[0]
    blk0, blk1 = s[1], s[2]

    fault = 0
    if any(row):
        if src0.addr % profile.operand_alignment_bytes or src1.addr % profile.operand_alignment_bytes:
            fault |= Fault.MISALIGNED
        ranges = []
        for b in range(L // E):
            if any(row[b * E : (b + 1) * E]):
                for t, bs in ((src0, blk0), (src1, blk1)):
                    lo = block_addr(t.addr, 0, b, bs, 0)
                    ranges.append((lo, lo + 32))
        limit = usable_limit(state, profile)
        if any(outside(lo, hi, limit) for lo, hi in ranges):
            fault |= Fault.OUT_OF_UB
        if any_in_scratch(ranges, scratch_regions(api, profile)):
            fault |= Fault.SCRATCH_COLLISION
    if fault:
        return _st.with_fault(state, fault)

    read = element_reader(state.ub, d.itemsize)
    value = value_reader(d, profile)
    result = 0
    for l in range(L):
        if not row[l]:
            continue  # MODEL.md: 0 for inactive lanes
        b, e = l // E, l % E
        av = value(read(block_addr(src0.addr, 0, b, blk0, 0) + e * d.itemsize))
        bv = value(read(block_addr(src1.addr, 0, b, blk1, 0) + e * d.itemsize))
        if compare_values(av, bv, name):
            result |= 1 << l
    out = _st.copy_state(state)
    # MODEL.md: bits L..127 = 0
    out.cmpmask = _st.int_to_words(result, _st.CMPMASK_WORDS32)
    _apply_registers(out, plan, profile)
    return out


# ---------------------------------------------------------------------------------------------
# SetCmpMask / GetCmpMask

CMPMASK_BYTES = 16


def _cmpmask_faults(state, addr, profile):
    fault = 0
    # MODEL.md: MISALIGNED if the address is not a multiple of 16
    if addr % CMPMASK_BYTES:
        fault |= Fault.MISALIGNED
    if outside(addr, addr + CMPMASK_BYTES, usable_limit(state, profile)):
        fault |= Fault.OUT_OF_UB
    return fault


def SetCmpMask(state, src, *, profile):
    """CMPMASK := the 16 bytes at ``src`` (little-endian words) (SetCmpMask(ISASI).md)."""
    api = "SetCmpMask"
    profile = as_profile(profile)
    src = check_tensor(api, "src", src, profile)
    profile.require_api(api, src.dtype)
    fault = _cmpmask_faults(state, src.addr, profile)
    if fault:
        return _st.with_fault(state, fault)
    out = _st.copy_state(state)
    value = _st.read_bits(state.ub, src.addr, CMPMASK_BYTES)
    out.cmpmask = _st.int_to_words(value, _st.CMPMASK_WORDS32)
    # checker: the 16 bytes read past src's bytes; a byte never written (written map)
    if src.length * src.dtype.itemsize < CMPMASK_BYTES:
        _st.add_warning(out, _checks.Warn.EXTENT, api, "src")
    w = state.written
    if w is not None and not all(w[src.addr + i] for i in range(CMPMASK_BYTES)):
        _st.add_warning(out, _checks.Warn.UNINIT, api, "src")
    return out


def GetCmpMask(state, dst, *, profile):
    """The 16 bytes at ``dst`` := CMPMASK (GetCmpMask(ISASI).md); other dst bytes untouched."""
    api = "GetCmpMask"
    profile = as_profile(profile)
    dst = check_tensor(api, "dst", dst, profile)
    profile.require_api(api, dst.dtype)
    fault = _cmpmask_faults(state, dst.addr, profile)
    if fault:
        return _st.with_fault(state, fault)
    out = _st.copy_state(state)
    _st.write_bits(out.ub, dst.addr, CMPMASK_BYTES, _st.words_to_int(state.cmpmask))
    # checker: the 16 bytes written as one lane (EXTENT, written map), then the size rule.
    # SPEC: "dst的空间大小不能少于128字节" (GetCmpMask(ISASI).md): the vendor sample compare
    #       (scenario 2) runs on hardware with a 32-byte dst, so this is a warning, not an error.
    _st.lane_warnings(state, out, api, dst, [dst.addr], [], CMPMASK_BYTES)
    if dst.length * dst.dtype.itemsize < 128:
        _st.add_warning(out, _checks.Warn.SIZE, api, "dst")
    return out
