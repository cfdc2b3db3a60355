"""Select and SelectFlexible (docs/MODEL.md "Select and SelectFlexible"; pages 比较与选择/Select.md,
Select（灵活标量位置）.md, SetCmpMask(ISASI).md; seed 000).

``dst[g] = selbit(g) ? a[g] : b[g]`` for every active lane, a bit copy of T; inactive lanes keep dst.

Order of work, literally: static checks and call-form parsing -> lane plan (masks.py) -> faults (a
faulting call only ORs its fault bits) -> read selMask bits, sources and the element scalar from the
state before the call -> write the active lanes in program order (the later write wins) -> vector
mask registers -> CMPMASK side effect.
"""

import numpy as np

from ..errors import Fault, UnsupportedError, UsageError
from ..params import UnaryRepeatParams
from ..profile import as_profile
from ..tensor import MASK_PLACEHOLDER, LocalTensor
from . import compare as _c
from . import masks as _masks
from . import numerics as _num
from . import state as _st

SEL_NAMES = ("VSEL_CMPMASK_SPR", "VSEL_TENSOR_SCALAR_MODE", "VSEL_TENSOR_TENSOR_MODE")


def _check_sel_mode(api, sel_mode, a, profile):
    if isinstance(sel_mode, bool) or not isinstance(sel_mode, int):
        raise UsageError(
            api,
            "selMode",
            sel_mode,
            "SELMODE::VSEL_CMPMASK_SPR / VSEL_TENSOR_SCALAR_MODE / VSEL_TENSOR_TENSOR_MODE",
            profile,
            "selMode is a compile-time enum",
        )
    m = int(sel_mode)
    if not 0 <= m <= 2:
        raise UsageError(
            api,
            "selMode",
            m,
            "SELMODE::VSEL_CMPMASK_SPR / VSEL_TENSOR_SCALAR_MODE / VSEL_TENSOR_TENSOR_MODE",
            profile,
        )
    modes = a.modes
    # SPEC: 910 "仅支持模式0" (Select.md 功能说明); SelectFlexible "针对模式1" (950)
    if m not in modes:
        raise UnsupportedError(
            api,
            "selMode",
            f"SELMODE::{SEL_NAMES[m]}",
            ", ".join(f"SELMODE::{SEL_NAMES[x]}" for x in modes),
            profile,
        )
    return m


def _operand(api, name, x, d, profile):
    """("tensor", LocalTensor) or ("scalar", bits)."""
    if isinstance(x, LocalTensor):
        t = _c.check_tensor(api, name, x, profile)
        if t.dtype != d:
            raise UsageError(api, f"{name}.dtype", t.dtype.name, f"{d.name} (= dst.dtype)", profile)
        return ("tensor", t)
    return ("scalar", _num.scalar_to_bits(api, x, d, profile))


def _check_sel_tensor(api, sel, a, profile):
    sel = _c.check_tensor(api, "selMask", sel, profile)
    allowed = a.sel_mask_dtypes
    if sel.dtype.name not in allowed:
        raise UnsupportedError(api, "selMask.dtype", sel.dtype.name, ", ".join(allowed), profile)
    return sel


def Select(state, dst, *args, selMode=None, profile, isSetMask=True, config=None):
    """Select.md, every prototype:

    * ``(selMask, src0, src1, selMode, count)``; ``(selMask, src0, src1, selMode, mask, repeatTime,
      params)`` -- src1 a scalar in mode 1, a tensor in modes 0 and 2;
    * ``(selMask, src0, repeatTime, params)`` -- mode 1 without a mask argument (lanes from the
      vector mask registers, scalar = the low sizeof(T) bytes of CMPMASK);
    * ``(src0, src1, repeatTime, params, selMode=0|2)`` -- ``Select<T, selMode>``: mode 0 uses the
      CMPMASK bits, mode 2 reads selMask at the UB address held in CMPMASK bits 0..31.
    """
    api = "Select"
    profile = as_profile(profile)
    if len(args) in (5, 7):
        sel, src0, src1, mode, *rest = args
        plain_tensor_src1 = not (
            isinstance(mode, (int, np.integer)) and not isinstance(mode, bool) and int(mode) == 1
        )
        if _masks.flexible_overload("SelectFlexible", profile, src0, src1, config, plain_tensor_src1):
            # the 灵活标量位置 overload of the same C++ name (Select（灵活标量位置）.md)
            return SelectFlexible(
                state, dst, sel, src0, src1, mode, *rest, config=config, profile=profile, isSetMask=isSetMask
            )
    if isSetMask is not True:
        # SPEC: "isSetMask: 保留参数" (Select.md)
        raise UsageError(api, "isSetMask", isSetMask, "True", profile, "a reserved parameter")
    dst = _c.check_tensor(api, "dst", dst, profile)
    d = dst.dtype
    if len(args) in (5, 7):
        sel, src0, src1, mode, *rest = args
        count_form = len(args) == 5
        a = profile.require_api(api, d, count_form=count_form)
        m = _check_sel_mode(api, mode, a, profile)
        sel = _check_sel_tensor(api, sel, a, profile)
        op_a = _operand(api, "src0", src0, d, profile)
        op_b = _operand(api, "src1", src1, d, profile)
        if op_a[0] != "tensor":
            raise UsageError(api, "src0", src0, "a LocalTensor", profile)
        if m == 1 and op_b[0] != "scalar":
            raise UsageError(api, "src1", src1, "a scalar", profile, "mode 1 takes a scalar src1")
        if m != 1 and op_b[0] != "tensor":
            raise UsageError(
                api, "src1", src1, "a LocalTensor", profile, f"mode {m} selects between two tensors"
            )
        form = "count" if count_form else "mask"
        return _run(api, state, dst, ("ub", sel.addr), op_a, op_b, m, form, rest, a, profile)
    if len(args) == 4:
        a = profile.require_api(api, d)
        # MODEL.md: "Mask-less forms need cmpmask_bits > 0 (else UnsupportedError)"
        if profile.cmpmask_bits <= 0:
            raise UnsupportedError(
                api,
                "prototype",
                "Select without a mask argument",
                "the mask / count prototypes",
                profile,
                "the product has no SetCmpMask / CMPMASK register",
            )
        if selMode is None or int(selMode) == 1:
            # Select<T, U>(dst, selMask, src0, repeatTime, params): mode 1, scalar from CMPMASK
            m = _check_sel_mode(api, 1, a, profile)
            sel, src0, repeat_time, params = args
            sel = _check_sel_tensor(api, sel, a, profile)
            op_a = _operand(api, "src0", src0, d, profile)
            if op_a[0] != "tensor":
                raise UsageError(api, "src0", src0, "a LocalTensor", profile)
            # SPEC (SetCmpMask(ISASI).md, mode 1 flow): the scalar is stored with SetCmpMask;
            #       MODEL.md: the low sizeof(T) bytes of CMPMASK word 0
            scalar = _st.words_to_int(state.cmpmask) & ((1 << (8 * d.itemsize)) - 1)
            return _run(
                api,
                state,
                dst,
                ("ub", sel.addr),
                op_a,
                ("scalar", scalar),
                m,
                "nomask",
                (repeat_time, params),
                a,
                profile,
            )
        m = _check_sel_mode(api, selMode, a, profile)
        src0, src1, repeat_time, params = args
        op_a = _operand(api, "src0", src0, d, profile)
        op_b = _operand(api, "src1", src1, d, profile)
        if op_a[0] != "tensor" or op_b[0] != "tensor":
            raise UsageError(api, "src0/src1", (src0, src1), "LocalTensors", profile)
        if m == 0:
            if profile.lanes(d) > profile.cmpmask_bits:
                raise UnsupportedError(api, "dtype", d.name, f"<= {profile.cmpmask_bits} lanes", profile)
            sel_src = ("cmpmask",)
        else:
            # MODEL.md: selMask at the UB byte address = CMPMASK bits 0..31 read as a signed int32
            w0 = int(state.cmpmask[0])
            sel_src = ("ub", w0 - (1 << 32) if w0 >= 1 << 31 else w0)
        return _run(api, state, dst, sel_src, op_a, op_b, m, "nomask", (repeat_time, params), a, profile)
    raise TypeError(f"Select: no prototype takes {len(args)} arguments after dst")


def SelectFlexible(state, dst, selMask, src0, src1, selMode, *args, config=None, profile, isSetMask=True):
    """Select（灵活标量位置）: in mode 1 either src0 or src1 is the scalar (a number, or element 0
    of the LocalTensor ``config.scalarTensorIndex`` names when both are tensors)."""
    api = "SelectFlexible"
    profile = as_profile(profile)
    if isSetMask is not True:
        raise UsageError(api, "isSetMask", isSetMask, "True", profile, "a reserved parameter")
    dst = _c.check_tensor(api, "dst", dst, profile)
    d = dst.dtype
    if len(args) not in (1, 3):
        raise TypeError(f"{api}: expected (count,) or (mask, repeatTime, repeatParams)")
    count_form = len(args) == 1
    a = profile.require_api(api, d, count_form=count_form)
    m = _check_sel_mode(api, selMode, a, profile)
    sel = _check_sel_tensor(api, selMask, a, profile)
    op_a = _operand(api, "src0", src0, d, profile)
    op_b = _operand(api, "src1", src1, d, profile)
    if m == 1:
        kinds = (op_a[0], op_b[0])
        if kinds == ("scalar", "scalar"):
            raise UsageError(api, "src0/src1", (src0, src1), "one scalar", profile, "two scalars")
        if kinds == ("tensor", "tensor"):
            if config is None:
                raise UsageError(
                    api,
                    "config",
                    None,
                    "a BinaryConfig naming the scalar tensor",
                    profile,
                    "config=None with two LocalTensors",
                )
            idx = getattr(config, "scalarTensorIndex", config)
            idx = _masks.as_int(api, "config.scalarTensorIndex", idx, profile)
            if idx not in (0, 1):
                raise UsageError(api, "config.scalarTensorIndex", idx, "0 or 1", profile)
            # MODEL.md: element 0 of the named tensor, read from UB before the call writes
            if idx == 0:
                op_a = ("element", op_a[1].addr)
            else:
                op_b = ("element", op_b[1].addr)
    elif op_a[0] != "tensor" or op_b[0] != "tensor":
        raise UsageError(api, "src0/src1", (src0, src1), "LocalTensors", profile, f"mode {m}")
    form = "count" if count_form else "mask"
    return _run(api, state, dst, ("ub", sel.addr), op_a, op_b, m, form, args, a, profile)


# ---------------------------------------------------------------------------------------------


def _run(api, state, dst, sel_src, op_a, op_b, m, form, args, a, profile):
    d = dst.dtype
    size = d.itemsize
    L = profile.lanes(d)
    E = profile.block_bytes // size
    W = L // 8
    # -- lanes and strides ------------------------------------------------------------------------
    if form == "count":
        # SPEC: "tensor前n个数据计算" with the register epilogue of behavior.level2_lowering
        plan = _masks.plan_count_form(api, state, d, args[0], True, profile)
        dst_s, s0_s, s1_s = (1, 8), (1, 8), (1, 8)
    else:
        if form == "mask":
            mask, repeat_time, params = args
            is_set_mask = True
        else:
            (repeat_time, params), mask, is_set_mask = args, MASK_PLACEHOLDER, False
        s = _c.check_binary_params(api, params, profile)
        dst_s, s0_s, s1_s = (s[0], s[3]), (s[1], s[4]), (s[2], s[5])
        plan = _masks.plan_high_dim(
            api, state, d, mask, repeat_time, UnaryRepeatParams(), is_set_mask, profile
        )
    if plan.outcome == "nop":
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)
    issued = [any(row) for row in plan.active]
    any_active = any(issued)

    # -- faults ------------------------------------------------------------------------------------
    fault = 0
    limit = _c.usable_limit(state, profile)
    blocks = _c.active_block_list(plan.active, L, E)
    dst_blocks = [(r, b, _c.block_addr(dst.addr, r, b, *dst_s)) for r, b in blocks]
    src_tensors = []
    for op, st in ((op_a, s0_s), (op_b, s1_s)):
        if op[0] == "tensor":
            src_tensors.append((op[1], [(r, b, _c.block_addr(op[1].addr, r, b, *st)) for r, b in blocks]))
    ranges = [(x, x + 32) for _, _, x in dst_blocks]
    for _, bl in src_tensors:
        ranges += [(x, x + 32) for _, _, x in bl]
    sel_ranges = []  # (r or None, lo, hi)
    if sel_src[0] == "ub" and any_active:
        sel = sel_src[1]
        if m == 0:
            sel_ranges = [(None, sel, sel + W)]
        else:
            sel_ranges = [(r, sel + r * W, sel + (r + 1) * W) for r in range(plan.repeats) if issued[r]]
    ranges += [(lo, hi) for _, lo, hi in sel_ranges]
    elements = [op[1] for op in (op_a, op_b) if op[0] == "element"]
    if any_active:
        ranges += [(e, e + size) for e in elements]

    if any_active:
        align = profile.operand_alignment_bytes
        addrs = [dst.addr] + [t.addr for t, _ in src_tensors]
        if sel_src[0] == "ub":
            addrs.append(sel_src[1])
        # SPEC: "Unified Buffer | 32Byte对齐" (通用说明和约束.md); element scalars have no rule
        if any(x % align for x in addrs):
            fault |= Fault.MISALIGNED
        if any(_c.outside(lo, hi, limit) for lo, hi in ranges):
            fault |= Fault.OUT_OF_UB
        # SPEC: "dstBlkStride不支持设置为0" (SIMD计算说明/高维切分.md)
        if dst_s[0] == 0:
            fault |= Fault.DST_BLK_STRIDE_ZERO
    # tensor sources against dst: the unary rules (equal block addresses)
    dst_by_repeat = {}
    for r, b, x in dst_blocks:
        dst_by_repeat.setdefault(r, []).append((b, x))
    for _, bl in src_tensors:
        last_src = {}
        for r, b, x in bl:
            for b2, x2 in dst_by_repeat.get(r, []):
                if x2 == x and b2 != b:
                    fault |= Fault.PARTIAL_OVERLAP
            last_src[x] = max(r, last_src.get(x, -1))
        for r, _, x in dst_blocks:
            if last_src.get(x, -1) > r:
                fault |= Fault.REPEAT_DEPENDENCY
    # selMask against dst (MODEL.md): same repeat -> PARTIAL_OVERLAP, a later issued repeat ->
    # REPEAT_DEPENDENCY (mode 0: S, read by every repeat)
    last_issued = max((r for r in range(plan.repeats) if issued[r]), default=-1)
    for r, _, x in dst_blocks:
        for rs, lo, hi in sel_ranges:
            if not _c.intersects(x, x + 32, lo, hi):
                continue
            if rs is None:
                fault |= Fault.PARTIAL_OVERLAP
                if last_issued > r:
                    fault |= Fault.REPEAT_DEPENDENCY
            elif rs == r:
                fault |= Fault.PARTIAL_OVERLAP
            elif rs > r:
                fault |= Fault.REPEAT_DEPENDENCY
    # SelectFlexible: element scalar meeting an active dst block
    for e in elements:
        for _, _, x in dst_blocks:
            if _c.intersects(e, e + size, x, x + 32):
                fault |= Fault.PARTIAL_OVERLAP
    # scratch: only the forms in scratch_forms (default "mode1", "mode2")
    form_name = "nomask" if form == "nomask" else f"mode{m}"
    uses_scratch = form_name in a.scratch_forms
    if uses_scratch and _c.any_in_scratch(ranges, _c.scratch_regions(api, profile)):
        # SPEC: modes 1/2 "需要预留8KB的Unified Buffer空间" (Select.md 约束说明)
        fault |= Fault.SCRATCH_COLLISION
    if fault:
        return _st.with_fault(state, fault)

    # -- compute: every read sees the state before the call -----------------------------------------
    ub0 = state.ub
    read = _c.element_reader(ub0, size)

    def sel_bit(k):
        # MODEL.md: bit k = bit k % 8 of byte sel + k // 8 (uint8/16/32/64 selMask alike)
        if sel_src[0] == "cmpmask":
            return (_st.words_to_int(state.cmpmask) >> k) & 1
        return (int(ub0[sel_src[1] + k // 8]) >> (k % 8)) & 1

    def fixed(op):
        if op[0] == "scalar":
            return op[1]
        if op[0] == "element":
            return _st.read_bits(ub0, op[1], size)
        return None

    a_fixed, b_fixed = fixed(op_a), fixed(op_b)
    writes = []
    for r in range(plan.repeats):
        row = plan.active[r]
        for l in range(L):
            if not row[l]:
                continue  # SPEC: masked-off lanes keep dst ([9,10,11,12,-5,-6,-7,-8], seed 000)
            blk, e = l // E, l % E
            # SPEC: mode 0 "每次迭代都使用selMask的前 256/sizeof(T) 个bit" (seed 000, translated);
            #       modes 1/2 consume selMask contiguously, L bits per repeat
            k = l if m == 0 else r * L + l
            if sel_bit(k):
                v = (
                    a_fixed
                    if a_fixed is not None
                    else read(_c.block_addr(op_a[1].addr, r, blk, *s0_s) + e * size)
                )
            else:
                v = (
                    b_fixed
                    if b_fixed is not None
                    else read(_c.block_addr(op_b[1].addr, r, blk, *s1_s) + e * size)
                )
            writes.append((_c.block_addr(dst.addr, r, blk, *dst_s) + e * size, v))
    out = _st.copy_state(state)
    for addr, v in writes:  # program order: the later write wins
        _st.write_bits(out.ub, addr, size, v)
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)

    # -- CMPMASK side effect (apis.<api>.cmpmask_side_effect; selMask-tensor forms only) ---------------
    if a.cmpmask_side_effect and profile.cmpmask_bits > 0 and form != "nomask" and any_active:
        sel = sel_src[1]
        if m == 0:
            pattern = bytes(int(ub0[sel + i]) if 0 <= sel + i < ub0.size else 0 for i in range(16))
        elif m == 1:
            sc = a_fixed if op_a[0] != "tensor" else b_fixed
            pattern = sc.to_bytes(size, "little") * (16 // size)
        else:
            pattern = (sel & 0xFFFFFFFF).to_bytes(4, "little") * 4
        out.cmpmask = _st.int_to_words(int.from_bytes(pattern, "little"), _st.CMPMASK_WORDS32)
        if m in (1, 2) and uses_scratch:
            slots = [r.offset_bytes for r in profile.reserved if api in r.used_by]
            if slots:
                for i, byte in enumerate(pattern * 2):
                    if slots[0] + i < out.ub.size:
                        out.ub[slots[0] + i] = byte
    return out
