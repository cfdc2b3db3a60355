"""SetDeqScale (类型转换/寄存器配置说明/SetDeqScale.md), the DEQSCALE conversion int32 -> half (Cast,
AddDeqRelu), and the cast composites AddReluCast, SubReluCast, MulCast (复合计算/), literally.

* DEQSCALE is one 64-bit register (``RefState.deqscale``). SPEC (SetDeqScale.md 表1): for s322fp16
  bits 0~15 hold a half ``scale``; for CastDequant s162b8 bits 0~31 a float ``scale``, bits 37~45 a
  9-bit signed ``offset``, bit 46 ``signMode``. The other bits are written 0 (CHOICE).
* Deq(x) = Cast(x × scale) with RINT (AddDeqRelu.md: "采用RINT舍入方式"): the exact product of the int32
  and the half, rounded once to half; overflow saturates (or goes to inf in the non-saturating CAST
  mode) as every conversion. A NaN scale, or 0 × inf, gives half's canonical NaN; x × inf an inf of
  the product's sign; a zero product a zero of the product's sign (CHOICE).
* X(Cast composites): each step rounded as its stand-alone API in U (Add / Sub / Mul / Relu:
  ``elem.lane_function``), then one conversion to T with RINT (CHOICE: the pages name no round mode;
  their examples' 1.5 -> 2 agree) by Cast's lane rule.

Lanes: as Cast, "数据类型转换的mask会按照输入和输出类型中sizeof(dtype)较大的来筛选": L = 256 /
max(sizeof U, sizeof T); lane ``l`` of each operand sits in that operand's block ``l // E`` (E = 32 /
its sizeof) at its own strides. Faults: Cast's two-width rules, once per source.
"""

import numpy as np

from .. import dtypes as _dt
from ..errors import Fault, UnsupportedError, UsageError
from ..params import UnaryRepeatParams, VdeqInfo
from ..profile import as_profile
from ..tensor import LocalTensor
from . import cast as _cast
from . import compare as _cmp
from . import elem as _elem
from . import elementwise as _ew
from . import faults as _faults
from . import masks as _masks
from . import numerics as _num
from . import state as _st

HALF = _dt.as_dtype("half")
F32 = _dt.as_dtype("float32")
INT32 = _dt.as_dtype("int32")


# ---------------------------------------------------------------------------------------------
# SetDeqScale


def SetDeqScale(state, *args, profile):
    """Write DEQSCALE: ``(scale)`` -- a half in bits 0~15 -- or ``(scale, offset, signMode)`` -- a
    float in bits 0~31, offset bits 37~45, signMode bit 46 (SetDeqScale.md)."""
    api = "SetDeqScale"
    profile = as_profile(profile)
    profile.require_api(api)
    if len(args) == 1:
        value = _num.scalar_to_bits(api, args[0], HALF, profile, "scale")
    elif len(args) == 3:
        scale, offset, sign_mode = args
        value = _num.scalar_to_bits(api, scale, F32, profile, "scale")
        off = _masks.as_int(api, "offset", offset, profile)
        if not -(1 << 15) <= off < (1 << 15):
            raise UsageError(api, "offset", offset, f"an integer in [{-(1 << 15)}, {(1 << 15) - 1}]", profile)
        if not isinstance(sign_mode, bool):
            raise UsageError(api, "signMode", sign_mode, "True or False", profile)
        # SPEC: "offset ... int16_t类型，只有前9位有效"; "signMode ... 0表示无符号，1表示有符号"
        value |= (off & 0x1FF) << 37
        value |= int(sign_mode) << 46
    elif len(args) == 2:
        return _set_deq_table(state, args[0], args[1], profile)
    else:
        raise TypeError(
            f"SetDeqScale() takes (scale), (scale, offset, signMode) or (vdeq, vdeqInfo); got {len(args)} "
            "arguments"
        )
    out = _st.copy_state(state)
    out.deqscale = value
    return out


def _field(api, name, value, profile):
    """One VdeqInfo field as a list of 16 Python values."""
    vals = list(np.asarray(value).reshape(-1)) if not isinstance(value, (list, tuple)) else list(value)
    if len(vals) != 16:
        raise UsageError(api, name, f"{len(vals)} values", "16 values", profile)
    return vals


def _set_deq_table(state, vdeq, info, profile):
    """SetDeqScale<T>(vdeq, vdeqInfo) (SetDeqScale.md): "接口会读取结构体内的参数，填充到vdeq" -- each of the
    16 groups packed as the scalar form's 64 bits --, and DEQSCALE bits 0~13 = "vdeqAddr | 被硬件视为一个
    地址，指向UB中的一块空间，该空间大小为128B" (the address in 32-byte units: vdeq is 32-byte aligned)."""
    api = "SetDeqScale"
    if not isinstance(vdeq, LocalTensor):
        raise UsageError(api, "vdeq", vdeq, "a LocalTensor", profile)
    profile.require_api(api, vdeq.dtype)  # "T ... 支持的数据类型为uint64_t"
    n = _masks.as_int(api, "vdeq.length", vdeq.length, profile)
    if n < 16:  # CastDequant.md: "SetDeqScale接口需要传入至少128B大小的UB空间"
        raise UsageError(api, "vdeq", f"{n} elements", "at least 16 (128 bytes)", profile)
    if not isinstance(info, VdeqInfo):
        raise UsageError(api, "vdeqInfo", type(info).__name__, "a VdeqInfo", profile)
    scales = _field(api, "vdeqInfo.vdeqScale", info.vdeqScale, profile)
    offsets = _field(api, "vdeqInfo.vdeqOffset", info.vdeqOffset, profile)
    signs = _field(api, "vdeqInfo.vdeqSignMode", info.vdeqSignMode, profile)
    entries = []
    for sc, off, sg in zip(scales, offsets, signs, strict=True):
        if isinstance(sc, np.uint32):
            bits = int(sc)
        else:
            bits = _num.scalar_to_bits(api, float(sc), F32, profile, "vdeqInfo.vdeqScale")
        off = _masks.as_int(api, "vdeqInfo.vdeqOffset", off, profile)
        if not -(1 << 15) <= off < (1 << 15):
            raise UsageError(
                api, "vdeqInfo.vdeqOffset", off, f"an integer in [{-(1 << 15)}, {(1 << 15) - 1}]", profile
            )
        if not isinstance(sg, (bool, np.bool_)):
            raise UsageError(api, "vdeqInfo.vdeqSignMode", sg, "True or False", profile)
        entries.append(bits | ((off & 0x1FF) << 37) | (int(bool(sg)) << 46))
    addr = _masks.as_int(api, "vdeq.addr", vdeq.addr, profile)
    fault = 0
    if addr % profile.operand_alignment_bytes:
        fault |= Fault.MISALIGNED
    if addr < 0 or addr + 128 > min(state.ub.size, profile.ub_usable_bytes):
        fault |= Fault.OUT_OF_UB
    if fault:
        return _st.with_fault(state, int(fault))
    out = _st.copy_state(state)
    for j, e in enumerate(entries):
        _st.write_bits(out.ub, addr + 8 * j, 8, e)
    out.deqscale = (addr >> 5) & 0x3FFF
    return out


# ---------------------------------------------------------------------------------------------
# The two-source conversions (AddReluCast, SubReluCast, MulCast, AddDeqRelu)


def parse_pairs(profile, api):
    """{(src name, dst name): count_only} of ``apis.<api>.pairs``."""
    out = {}
    for entry in profile.api(api).pairs:
        words = entry.split()
        src, dst = (x.strip() for x in words[0].split("->"))
        out[(src, dst)] = "[count]" in words[1:]
    return out


def _two_width_faults(api, plan, dst, src, ds, ss, dst_strides, src_strides, ub_size, profile):
    """Cast's two-width fault rules (reference/cast.py) for one source, SCRATCH_COLLISION by ``api``."""
    bb = profile.block_bytes
    Ed, Es = bb // ds, bb // ss
    fault = 0
    dblocks, sblocks = {}, {}
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            if plan.active[r][l]:
                dblocks[(r, l // Ed)] = _faults.block_address(dst.addr, r, l // Ed, *dst_strides, bb)
                sblocks[(r, l // Es)] = _faults.block_address(src.addr, r, l // Es, *src_strides, bb)
    if not dblocks:
        return 0
    align = profile.operand_alignment_bytes
    if dst.addr % align or src.addr % align:
        fault |= Fault.MISALIGNED
    if dst_strides[0] == 0:
        fault |= Fault.DST_BLK_STRIDE_ZERO
    limit = min(ub_size, profile.ub_usable_bytes)
    blocks = list(dblocks.values()) + list(sblocks.values())
    if any(a < 0 or a + bb > limit for a in blocks):
        fault |= Fault.OUT_OF_UB
    # SPEC (Cast.md 约束说明): "对于长度较小的数据类型转换为长度较大的数据类型时，地址重叠可能会导致结果错误"
    for (r, b), a in sblocks.items():
        for (r2, b2), a2 in dblocks.items():
            if r2 == r and a < a2 + bb and a2 < a + bb and not (ds == ss and b == b2 and a == a2):
                fault |= Fault.PARTIAL_OVERLAP
            if r2 < r and a < a2 + bb and a2 < a + bb:
                fault |= Fault.REPEAT_DEPENDENCY
    for region in profile.reserved:
        if api in region.used_by:
            lo, hi = region.offset_bytes, region.offset_bytes + region.size_bytes
            if any(a < hi and a + bb > lo for a in blocks):
                fault |= Fault.SCRATCH_COLLISION
    return int(fault)


def _run(api, state, dst, src0, src1, args, profile, is_set_mask, pairs, make_f):
    """One call: static checks -> lane plan -> faults -> every active lane read, computed -> writes."""
    profile = as_profile(profile)
    for t, name in ((dst, "dst"), (src0, "src0"), (src1, "src1")):
        if not isinstance(t, LocalTensor):
            raise UsageError(api, name, t, "a LocalTensor", profile)
    if not isinstance(is_set_mask, bool):
        raise UsageError(api, "isSetMask", is_set_mask, "True or False", profile)
    count_form = _ew.split_args(api, args, 2)
    profile.require_api(api)
    if src1.dtype != src0.dtype:  # SPEC: LocalTensor<U>& src0, const LocalTensor<U>& src1
        raise UsageError(api, "src1.dtype", src1.dtype.name, src0.dtype.name, profile)
    s, t = src0.dtype, dst.dtype
    if (s.name, t.name) not in pairs:
        listed = ", ".join(f"{a}->{b}" for a, b in pairs)
        raise UnsupportedError(api, "src0.dtype/dst.dtype", f"{s.name}->{t.name}", listed, profile)
    if pairs[(s.name, t.name)] and not count_form:
        raise UnsupportedError(
            api, "src0.dtype/dst.dtype", f"{s.name}->{t.name}", "the count prototype only", profile
        )
    for tt, name in ((dst, "dst"), (src0, "src0"), (src1, "src1")):
        _masks.as_int(api, f"{name}.addr", tt.addr, profile)
    dst = LocalTensor(t, int(dst.addr), dst.length)
    srcs = [LocalTensor(s, int(x.addr), x.length) for x in (src0, src1)]
    big = s if s.itemsize >= t.itemsize else t
    bb = profile.block_bytes
    if count_form:
        plan = _masks.plan_count_form(api, state, big, args[0], is_set_mask, profile)
        L = profile.lanes(big)
        dst_strides = (1, L * t.itemsize // bb)
        src_strides = [(1, L * s.itemsize // bb)] * 2
    else:
        mask, repeat_time, params = args
        _masks.check_repeat_time(api, repeat_time, profile)
        dblk, s0blk, s1blk, drep, s0rep, s1rep = _cmp.check_binary_params(api, params, profile)
        plan = _masks.plan_high_dim(
            api, state, big, mask, repeat_time, UnaryRepeatParams(), is_set_mask, profile
        )
        dst_strides, src_strides = (dblk, drep), [(s0blk, s0rep), (s1blk, s1rep)]
    if plan.outcome == "nop":
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)
    fault = 0
    for x, ss in zip(srcs, src_strides, strict=True):
        fault |= _two_width_faults(
            api, plan, dst, x, t.itemsize, s.itemsize, dst_strides, ss, state.ub.size, profile
        )
    if fault:
        return _st.with_fault(state, fault)
    f = make_f(s, t, profile, state)
    Es, Ed = bb // s.itemsize, bb // t.itemsize
    results = []
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            if plan.active[r][l]:
                vals = []
                for x, (sblk, srep) in zip(srcs, src_strides, strict=True):
                    sa = _faults.lane_address(x.addr, r, l // Es, l % Es, sblk, srep, s.itemsize, bb)
                    vals.append(_st.read_bits(state.ub, sa, s.itemsize))
                da = _faults.lane_address(dst.addr, r, l // Ed, l % Ed, *dst_strides, t.itemsize, bb)
                results.append((da, f(*vals)))
    out = _st.copy_state(state)
    for da, bits in results:  # program order: a later lane wins a byte written twice
        _st.write_bits(out.ub, da, t.itemsize, bits)
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)
    return out


def _composite(steps):
    """make_f of a cast composite: ``steps`` (names of stand-alone APIs) in U, then Cast to T (RINT)."""

    def make_f(s, t, profile, state):
        ctrl = _st.get_ctrl(state)
        fns = [_elem.lane_function(n, s, profile, ctrl) for n in steps]
        conv = _cast.lane_function(s, t, "RINT", profile, ctrl)

        def f(a, b):
            v = fns[0](a, b)
            for g in fns[1:]:
                v = g(v)
            return conv(v)

        return f

    return make_f


def AddReluCast(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = Cast(Relu(src0_i + src1_i))`` (复合计算/AddReluCast.md)."""
    p = as_profile(profile)
    pairs = parse_pairs(p, "AddReluCast")
    return _run("AddReluCast", state, dst, src0, src1, args, p, isSetMask, pairs, _composite(("Add", "Relu")))


def SubReluCast(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = Cast(Relu(src0_i - src1_i))`` (复合计算/SubReluCast.md)."""
    p = as_profile(profile)
    pairs = parse_pairs(p, "SubReluCast")
    return _run("SubReluCast", state, dst, src0, src1, args, p, isSetMask, pairs, _composite(("Sub", "Relu")))


def MulCast(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = Cast(src0_i × src1_i)`` (复合计算/MulCast.md)."""
    p = as_profile(profile)
    pairs = parse_pairs(p, "MulCast")
    return _run("MulCast", state, dst, src0, src1, args, p, isSetMask, pairs, _composite(("Mul",)))


def AddDeqRelu(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = Relu(Deq(src0_i + src1_i))`` (复合计算/AddDeqRelu.md): the int32 sum as Add does it,
    Deq by DEQSCALE's half scale (RINT), then Relu in half."""

    def make_f(s, t, profile, state):
        ctrl = _st.get_ctrl(state)
        add = _elem.lane_function("Add", INT32, profile, ctrl)
        relu = _elem.lane_function("Relu", HALF, profile, ctrl)
        deq = _cast.deq_lane_function(profile, state)
        return lambda a, b: relu(deq(add(a, b)))

    # SPEC: AddDeqRelu.md 表3: src0、src1 int32_t, dst half
    pairs = {("int32", "half"): False}
    return _run("AddDeqRelu", state, dst, src0, src1, args, profile, isSetMask, pairs, make_f)


def MulsCast(state, dst, src0, src1, count, *, profile, config=None):
    """``dst_i = Cast(src0_i × scalar)`` / ``Cast(scalar × src1_i)`` (复合计算/MulsCast(ISASI).md): the
    float product rounded as Muls, then "按照CAST_ROUND模式取到half所能表示的数". The count prototype only;
    the scalar is a number, or -- both operands LocalTensors -- element 0 of the one ``config`` names
    ("config ... 当标量为LocalTensor单点元素类型时生效，用于指定单点元素操作数位置", default 1: src1), read
    from UB: inside UB, not meeting an active dst block (as the 灵活标量位置 pages)."""
    api = "MulsCast"
    profile = as_profile(profile)
    if not isinstance(dst, LocalTensor):
        raise UsageError(api, "dst", dst, "a LocalTensor", profile)
    t0, t1 = isinstance(src0, LocalTensor), isinstance(src1, LocalTensor)
    if not t0 and not t1:
        raise UsageError(api, "src0/src1", (src0, src1), "one LocalTensor operand", profile, "two scalars")
    element = t0 and t1
    if element:
        idx = 1 if config is None else getattr(config, "scalarTensorIndex", config)
        if not isinstance(idx, int) or isinstance(idx, bool) or idx not in (0, 1):
            raise UsageError(api, "config.scalarTensorIndex", idx, "0 or 1", profile)
        pos = idx
    else:
        pos = 1 if t0 else 0
    vec, scalar, s_name = (src1, src0, "src0") if pos == 0 else (src0, src1, "src1")
    profile.require_api(api, vec.dtype, count_form=True)
    if dst.dtype != HALF:  # SPEC: "dst ... 支持的数据类型为：half"
        raise UsageError(api, "dst.dtype", dst.dtype.name, "half", profile)
    if element:
        if scalar.dtype != F32:  # SPEC: "src0/src1 ... 支持的数据类型为：float"
            raise UsageError(api, f"{s_name}.dtype", scalar.dtype.name, "float32", profile)
        e_addr = _masks.as_int(api, f"{s_name}.addr", scalar.addr, profile)
        s = None
    else:
        e_addr = None
        s = _num.scalar_to_bits(api, scalar, F32, profile, s_name)
    for tt, name in ((dst, "dst"), (vec, "src1" if pos == 0 else "src0")):
        _masks.as_int(api, f"{name}.addr", tt.addr, profile)
    dst = LocalTensor(HALF, int(dst.addr), dst.length)
    vec = LocalTensor(F32, int(vec.addr), vec.length)
    plan = _masks.plan_count_form(api, state, F32, count, True, profile)
    if plan.outcome == "nop":
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)
    bb = profile.block_bytes
    L = profile.lanes(F32)  # "mask会按照输入和输出类型中sizeof(dtype)较大的来筛选": float32
    dst_strides, src_strides = (1, L * 2 // bb), (1, L * 4 // bb)
    fault = _two_width_faults(api, plan, dst, vec, 2, 4, dst_strides, src_strides, state.ub.size, profile)
    if e_addr is not None:
        if e_addr < 0 or e_addr + 4 > min(state.ub.size, profile.ub_usable_bytes):
            fault |= Fault.OUT_OF_UB
        # SPEC: "源操作数为LocalTensor单点元素的场景，不支持源操作数和目的操作数地址重叠" (灵活标量位置 pages)
        for r, b in _faults.active_blocks(plan, bb // 2):
            a = _faults.block_address(dst.addr, r, b, *dst_strides, bb)
            if e_addr < a + bb and a < e_addr + 4:
                fault |= Fault.PARTIAL_OVERLAP
                break
    if fault:
        return _st.with_fault(state, int(fault))
    if s is None:
        s = _st.read_bits(state.ub, e_addr, 4)
    ctrl = _st.get_ctrl(state)
    mul = _elem.lane_function("Mul", F32, profile, ctrl)
    conv = _cast.lane_function(F32, HALF, "ROUND", profile, ctrl)
    results = []
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            if plan.active[r][l]:
                sa = _faults.lane_address(vec.addr, r, l // 8, l % 8, *src_strides, 4, bb)
                da = _faults.lane_address(dst.addr, r, l // 16, l % 16, *dst_strides, 2, bb)
                x = _st.read_bits(state.ub, sa, 4)
                results.append((da, conv(mul(s, x) if pos == 0 else mul(x, s))))
    out = _st.copy_state(state)
    for da, bits in results:
        _st.write_bits(out.ub, da, 2, bits)
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)
    return out
