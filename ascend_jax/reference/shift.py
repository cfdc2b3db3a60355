"""ShiftLeft / ShiftRight (scalar shift amount) and ShiftLeftTensor / ShiftRightTensor (per-element
shift amounts), written from 逻辑计算/Shift*.md and docs/MODEL.md "GatherMask and shifts".

Scalar forms (``*args`` after ``scalarValue``), exactly the three call forms of Adds:
* ``(count,)``                                       tensor前n个数据计算 (level 2)
* ``(mask, repeatTime, repeatParams[, roundEn])``    tensor高维切分计算 (level 0); ``roundEn`` is the
  C++ 7th argument (ShiftRight only) and may also be given as a keyword.

Tensor forms: ``ShiftLeftTensor(state, dst, src0, src1, count)``; ``ShiftLeft`` / ``ShiftRight``
dispatch there when the third argument is a LocalTensor.

Static vs run-time values. Python ints / bools are static: a value out of range raises
``UsageError``. A NumPy scalar (``np.integer`` / ``np.bool_``) stands for a *traced* value of the fast
path: a range violation records ``Fault.BAD_PARAM`` (the call is suppressed) instead of raising.

Order of work, literally: static checks -> run-time parameter checks (BAD_PARAM) -> lane plan
(masks.py, shared with Adds) -> faults (faults.py) -> read every active src lane -> compute -> write
in program order -> register side effects.
"""

import numpy as np

from ..errors import Fault, NotModelledError, UsageError
from ..profile import as_profile
from ..tensor import LocalTensor
from . import faults as _faults
from . import masks as _masks
from . import numerics as _num
from . import state as _st

# ---------------------------------------------------------------------------------------------
# The shift functions themselves (exact Python ints in, exact Python ints out)


def _shift_left(x, n, d, signed_mode):
    """``x`` (T's value, signed for signed T) shifted left by ``n >= 0``."""
    B = d.bits
    if n > B:
        # SPEC: "如果左移的位数大于src数据类型位宽，dst的全部元素被赋值为0" (ShiftLeft.md, 950)
        return 0
    bits = _num.int_to_bits(x, d)
    if d.is_signed_int and signed_mode == "keep_sign":
        # SPEC: "算术左移 ... 次高位被丢弃，最低位用0填充 ... 1010101010101010（int16_t类型）算术左移1位后，
        #       结果为1101010101010100" (ShiftLeft.md): the sign bit stays, the other B-1 bits shift.
        sign = bits & (1 << (B - 1))
        low = (bits << n) & ((1 << (B - 1)) - 1)
        return _num.bits_to_int(sign | low, d)
    # SPEC: "逻辑左移会将二进制数整体向左移动指定的位数，最高位被丢弃，最低位用0填充" (ShiftLeft.md);
    #       MODEL.md: (x << n) mod 2**B, 0 for n >= B.
    if n >= B:
        return 0
    return _num.bits_to_int((bits << n) & ((1 << B) - 1), d)


def _shift_right(x, n, d, round_en):
    """``x`` shifted right by ``n >= 0``: logical for unsigned T, arithmetic for signed T."""
    B = d.bits
    if not d.is_signed_int:
        # SPEC: "逻辑右移 ... 最低位被丢弃，最高位用0填充" (ShiftRight.md); 0 for n >= B
        # ("如果右移的位数大于src数据类型位宽，dst的全部元素被赋值为0", 950)
        if n >= B:
            return 0
        return x >> n  # x >= 0: Python's >> is the logical shift here
    # SPEC: "算术右移 ... 最低位被丢弃，最高位复制符号位" (ShiftRight.md); "源操作数元素为正数，对应的
    #       目的操作数元素被赋值为0，源操作数元素为负数 ... 被赋值为-1" (950, n > width).
    # Python's >> on a negative int is floor division by 2**n, i.e. the arithmetic shift.
    shifted = x >> min(n, B)  # n >= B: only sign copies remain (0 or -1)
    if not round_en or n == 0:
        return shifted
    # SPEC: "开启舍入功能 ... 如果src_ele二进制数中的第5位为1，则dst_ele值为对src_ele算术右移5后加1"
    #       (ShiftRight.md, roundEn; 17 >> 5 -> 1). MODEL.md: add bit n-1 of x; for n >= B the bit
    #       added is the sign bit (so the result is 0).
    bit_pos = min(n, B) - 1
    last_out = (_num.int_to_bits(x, d) >> bit_pos) & 1
    return shifted + last_out


def _tensor_shift_left(x, n, d, signed_mode):
    B = d.bits
    if n > B and d.is_signed_int:
        # SPEC: "对于算数位移（有符号数据类型），如果src0小于0 ... 并且位移量大于数据类型位宽，则输出-1；
        #       如果src0大于0，并且位移量大于数据类型位宽，则输出0" (ShiftLeft（左移位数为Tensor）.md)
        return -1 if x < 0 else 0
    return _shift_left(x, n, d, signed_mode)


# ---------------------------------------------------------------------------------------------
# Static / run-time argument helpers


def _is_traced(v):
    return isinstance(v, np.generic)


def _check_tensors(api, tensors, profile):
    for t, name in tensors:
        if not isinstance(t, LocalTensor):
            raise UsageError(api, name, t, "a LocalTensor", profile)
        _masks.as_int(api, f"{name}.addr", t.addr, profile)


def _shift_amount(api, scalar, d, profile):
    """``(n, bad)``: the shift amount as T's (signed) value, and whether a traced value is out of
    range (BAD_PARAM). Static values out of range raise."""
    # SPEC: "scalarValue ... 数据类型需要与目的操作数中的元素数据类型保持一致" (Shift*.md): a const T&,
    #       so the value is converted to T (integers wrap) and read signed for signed T.
    traced = _is_traced(scalar)
    if isinstance(scalar, (bool, np.bool_)):
        raise UsageError(api, "scalarValue", scalar, "an integer", profile)
    if traced:
        if not isinstance(scalar, np.integer):
            raise UsageError(api, "scalarValue", scalar, "an integer", profile)
        raw = int(scalar)
    else:
        raw = _masks.as_int(api, "scalarValue", scalar, profile)
    n = _num.wrap_int(raw, d)
    B = d.bits
    rule = profile.api(api).shift_range
    if rule == "bitwidth_inclusive":
        # SPEC: "当src为uint16_t或int16_t类型时，scalarValue的取值范围为[0, 16]；当src为uint32_t或
        #       int32_t类型时，scalarValue的取值范围为[0, 32]" (Shift*.md, A2/A3/310B)
        ok = 0 <= n <= B
        if not traced and (raw < 0 or not ok):
            raise UsageError(api, "scalarValue", raw, f"[0, {B}] for {d.name}", profile)
        return n, not ok
    if rule == "saturating":
        # SPEC: "scalarValue的取值应大于等于0" (Shift*.md, 950); amounts above B saturate.
        hi = _num.int_range(d)[1]
        if not traced and not 0 <= raw <= hi:
            raise UsageError(api, "scalarValue", raw, f"[0, {hi}] for {d.name}", profile)
        return n, n < 0
    raise AssertionError(rule)


def _round_en(api, round_en, count_form, d, profile):
    """``(effective, bad)`` for the roundEn flag."""
    if api != "ShiftRight":
        return False, False
    traced = _is_traced(round_en)
    if not traced and not isinstance(round_en, bool):
        raise UsageError(api, "roundEn", round_en, "True or False", profile)
    flag = bool(round_en)
    if count_form:
        # MODEL.md: roundEn exists only on the high-dim prototypes (the count prototype has none)
        if flag or traced:
            raise UsageError(api, "roundEn", round_en, "absent for the count form", profile)
        return False, False
    if flag and not profile.api(api).round_en:
        # SPEC: "不支持开启舍入功能，仅支持传入false" (ShiftRight.md, 310B and 950)
        if not traced:
            raise UsageError(api, "roundEn", True, "false", profile, "roundEn is not supported")
        return False, True
    # SPEC: "仅当src为int16_t/int32_t类型时开启有效" (ShiftRight.md): ignored for unsigned T
    return flag and d.is_signed_int, False


# ---------------------------------------------------------------------------------------------
# Scalar shifts


def _scalar_shift(api, state, dst, src, scalar, args, profile, is_set_mask, round_en):
    profile = as_profile(profile)
    _check_tensors(api, ((dst, "dst"), (src, "src")), profile)
    if not isinstance(is_set_mask, bool):
        raise UsageError(api, "isSetMask", is_set_mask, "True or False", profile)
    args = tuple(args)
    if len(args) == 4 and api == "ShiftRight":
        round_en = args[3]  # C++: roundEn is the 7th argument of the high-dim prototypes
        args = args[:3]
    if len(args) not in (1, 3):
        raise TypeError(
            f"{api}: expected (count,) or (mask, repeatTime, repeatParams) after scalarValue, "
            f"got {len(args)} arguments"
        )
    count_form = len(args) == 1
    profile.require_api(api, dst.dtype, count_form=count_form)
    d = dst.dtype
    if src.dtype != d:
        raise UsageError(api, "src.dtype", src.dtype.name, f"{d.name} (= dst.dtype)", profile)
    if not d.is_int:
        raise NotModelledError(f"{api}: {d.name} is not an integer type")
    dst = LocalTensor(d, int(dst.addr), dst.length)
    src = LocalTensor(d, int(src.addr), src.length)
    n, bad_n = _shift_amount(api, scalar, d, profile)
    rnd, bad_r = _round_en(api, round_en, count_form, d, profile)

    # -- which lanes (the static mask / count / repeat / stride checks happen here) ----------
    if count_form:
        plan = _masks.plan_count_form(api, state, d, args[0], is_set_mask, profile)
    else:
        mask, repeat_time, repeat_params = args
        plan = _masks.plan_high_dim(api, state, d, mask, repeat_time, repeat_params, is_set_mask, profile)
    # MODEL.md: a traced value out of range records BAD_PARAM, also for a call that would be a
    # NOP (a static value would have raised whatever the count / mask); the call's other fault
    # bits are ORed in ("fault bits ORed in").
    bad = int(Fault.BAD_PARAM) if (bad_n or bad_r) else 0
    if plan.outcome == "nop":
        # SPEC: "当参数count或repeatTime取值为0时 ... 该接口将被视为NOP" (Shift*.md, A2/A3)
        return _st.with_fault(state, bad) if bad else _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault | bad)

    fault = bad | _faults.check_faults(api, plan, dst, src, d.itemsize, state.ub.size, profile)
    if fault:
        return _st.with_fault(state, fault)

    signed_mode = profile.api("ShiftLeft").signed_left_shift

    def compute(bits):
        x = _num.bits_to_int(bits, d)
        if api == "ShiftLeft":
            v = _shift_left(x, n, d, signed_mode)
        else:
            v = _shift_right(x, n, d, rnd)
        return _num.int_to_bits(v, d)

    size = d.itemsize
    bb = profile.block_bytes
    E = bb // size
    dst_blk, src_blk, dst_rep, src_rep = plan.strides
    results = []  # (dst byte address, bits) in program order; every src read before any write
    src_lanes = []  # the checker's view (lane_warnings)
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            if not plan.active[r][l]:
                continue  # inactive lanes keep the old dst bytes
            b, e = l // E, l % E
            sa = _faults.lane_address(src.addr, r, b, e, src_blk, src_rep, size, bb)
            da = _faults.lane_address(dst.addr, r, b, e, dst_blk, dst_rep, size, bb)
            results.append((da, compute(_st.read_bits(state.ub, sa, size))))
            src_lanes.append(sa)

    out = _st.copy_state(state)
    for da, bits in results:
        _st.write_bits(out.ub, da, size, bits)  # later lanes win
    _st.lane_warnings(state, out, api, dst, [da for da, _ in results], [("src", src, src_lanes)], size)
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)
    return out


# ---------------------------------------------------------------------------------------------
# Tensor shifts


def _tensor_shift(api, state, dst, src0, src1, count, profile):
    profile = as_profile(profile)
    _check_tensors(api, ((dst, "dst"), (src0, "src0"), (src1, "src1")), profile)
    profile.require_api(api, dst.dtype, count_form=True)
    d = dst.dtype
    if src0.dtype != d:
        raise UsageError(api, "src0.dtype", src0.dtype.name, f"{d.name} (= dst.dtype)", profile)
    u = src1.dtype
    # SPEC: "U支持的数据类型为：int8_t、int16_t、int32_t、int64_t" and "数据类型的字节数需要与源src0操作数
    #       Tensor中的元素数据类型的字节数相匹配" (Shift*（位数为Tensor）.md)
    if not u.is_signed_int or u.itemsize != d.itemsize:
        raise UsageError(
            api, "src1.dtype", u.name, f"a signed integer type of {d.itemsize} bytes (int{d.bits})", profile
        )
    dst = LocalTensor(d, int(dst.addr), dst.length)
    src0 = LocalTensor(d, int(src0.addr), src0.length)
    src1 = LocalTensor(u, int(src1.addr), src1.length)

    # count form only, no isSetMask (MODEL.md)
    plan = _masks.plan_count_form(api, state, d, count, True, profile)
    if plan.outcome == "nop":
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)

    size = d.itemsize
    fault = _faults.check_faults(api, plan, dst, src0, size, state.ub.size, profile)
    fault |= _faults.check_faults(api, plan, dst, src1, size, state.ub.size, profile)
    bb = profile.block_bytes
    E = bb // size
    # SPEC: "不支持设置为负数" (Shift*（位数为Tensor）.md, src1): MODEL.md records BAD_PARAM for a
    #       negative amount in an active lane; ORed with the call's other fault bits (amounts that
    #       lie outside the arena cannot be read and are not judged).
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            a1 = _faults.lane_address(src1.addr, r, l // E, l % E, 1, 8, size, bb)
            if plan.active[r][l] and 0 <= a1 and a1 + size <= state.ub.size:
                if _num.bits_to_int(_st.read_bits(state.ub, a1, size), u) < 0:
                    fault |= Fault.BAD_PARAM
    if fault:
        return _st.with_fault(state, fault)

    signed_mode = profile.api("ShiftLeft").signed_left_shift
    results = []
    lanes0, lanes1 = [], []  # the checker's view (lane_warnings)
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            if not plan.active[r][l]:
                continue
            b, e = l // E, l % E
            a0 = _faults.lane_address(src0.addr, r, b, e, 1, 8, size, bb)
            a1 = _faults.lane_address(src1.addr, r, b, e, 1, 8, size, bb)
            da = _faults.lane_address(dst.addr, r, b, e, 1, 8, size, bb)
            lanes0.append(a0)
            lanes1.append(a1)
            x = _num.bits_to_int(_st.read_bits(state.ub, a0, size), d)
            n = _num.bits_to_int(_st.read_bits(state.ub, a1, size), u)  # >= 0 (checked above)
            if api == "ShiftLeftTensor":
                v = _tensor_shift_left(x, n, d, signed_mode)
            else:
                v = _shift_right(x, n, d, False)
            results.append((da, _num.int_to_bits(v, d)))

    out = _st.copy_state(state)
    for da, bits in results:
        _st.write_bits(out.ub, da, size, bits)
    sources = [("src0", src0, lanes0), ("src1", src1, lanes1)]
    _st.lane_warnings(state, out, api, dst, [da for da, _ in results], sources, size)
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)
    return out


# ---------------------------------------------------------------------------------------------
# Public functions


def ShiftLeft(state, dst, src, scalarValue, *args, profile, isSetMask=True):
    """``dst_i = src_i << scalarValue`` (逻辑计算/ShiftLeft.md); with a LocalTensor as the third
    argument: ``ShiftLeftTensor(state, dst, src, src1, count)``."""
    if isinstance(scalarValue, LocalTensor):
        if len(args) != 1 or not isSetMask:
            raise TypeError("ShiftLeft with a shift-amount tensor takes (dst, src0, src1, count) only")
        return ShiftLeftTensor(state, dst, src, scalarValue, args[0], profile=profile)
    return _scalar_shift("ShiftLeft", state, dst, src, scalarValue, args, profile, isSetMask, False)


def ShiftRight(state, dst, src, scalarValue, *args, profile, isSetMask=True, roundEn=False):
    """``dst_i = src_i >> scalarValue`` (逻辑计算/ShiftRight.md), optional ``roundEn``; with a
    LocalTensor as the third argument: ``ShiftRightTensor``."""
    if isinstance(scalarValue, LocalTensor):
        if len(args) != 1 or not isSetMask or roundEn is not False:
            raise TypeError("ShiftRight with a shift-amount tensor takes (dst, src0, src1, count) only")
        return ShiftRightTensor(state, dst, src, scalarValue, args[0], profile=profile)
    return _scalar_shift("ShiftRight", state, dst, src, scalarValue, args, profile, isSetMask, roundEn)


def ShiftLeftTensor(state, dst, src0, src1, count, *, profile):
    """``dst_i = src0_i << src1_i`` for the first ``count`` elements (ShiftLeft（左移位数为Tensor）.md)."""
    return _tensor_shift("ShiftLeftTensor", state, dst, src0, src1, count, profile)


def ShiftRightTensor(state, dst, src0, src1, count, *, profile):
    """``dst_i = src0_i >> src1_i`` for the first ``count`` elements (ShiftRight（右移位数为Tensor）.md)."""
    return _tensor_shift("ShiftRightTensor", state, dst, src0, src1, count, profile)


__all__ = ["ShiftLeft", "ShiftRight", "ShiftLeftTensor", "ShiftRightTensor"]
