"""Which lanes a call activates, in each of the three call forms of MODEL.md "Which lanes are
active", plus the static checks on the mask / count / repeatTime / stride arguments and the
register side effects of the call.

The result is a ``LanePlan``: either "nop" (nothing happens), "fault" (suppressed, fault bits
recorded) or "run" with ``active[r][l]`` for every repeat ``r`` and lane ``l`` and the strides.

Static vs run time. Python-int arguments are static: misuse raises ``UsageError``. The machine
state (``vmask``, ``mask_mode``) is run-time data (in the fast path it is a traced pytree), so a
rule that only a register value can break records ``Fault.BAD_MASK`` instead of raising; this
includes the rules that only apply in Counter mode, because the mode itself is state.
"""

import dataclasses
import operator

from .. import dtypes as _dt
from ..errors import Fault, NotModelledError, UsageError
from ..params import UnaryRepeatParams
from ..tensor import MASK_PLACEHOLDER, LocalTensor
from . import state as _st

U64_MAX = (1 << 64) - 1
U32_MAX = (1 << 32) - 1
INT32_MAX = (1 << 31) - 1

# A guard, not a semantic rule: a Counter-mode count may be up to 2**32-1 elements; with
# repeat strides 0 such a call can stay inside UB, but enumerating billions of lanes one by one
# is beyond a literal oracle. Calls that would enumerate more lanes raise NotModelledError.
MAX_REFERENCE_LANES = 1 << 22

DEFAULT_STRIDES = (1, 1, 8, 8)  # dstBlkStride, srcBlkStride, dstRepStride, srcRepStride


@dataclasses.dataclass
class LanePlan:
    outcome: str  # "run" | "nop" | "fault"
    fault: int = 0
    repeats: int = 0
    lanes: int = 0  # L = repeat_bytes / sizeof(T)
    active: list = None  # active[r][l] -> bool
    strides: tuple = DEFAULT_STRIDES
    new_vmask: object = None  # int to write after the call, or None
    new_mask_mode: object = None  # int to write after the call, or None


def _nop():
    return LanePlan("nop")


def _fault(bits):
    return LanePlan("fault", fault=int(bits))


# ---------------------------------------------------------------------------------------------
# Static argument checks


def as_int(api, name, value, profile):
    """A static integer argument (Python / NumPy int; bools and traced values rejected)."""
    if isinstance(value, bool):
        raise UsageError(api, name, value, "an integer", profile)
    try:
        return operator.index(value)
    except TypeError:
        raise UsageError(
            api,
            name,
            value,
            "a Python int",
            profile,
            "the reference model takes concrete (static) integers only",
        ) from None


def check_repeat_time(api, repeat_time, profile):
    rt = as_int(api, "repeatTime", repeat_time, profile)
    # SPEC: "由于硬件限制，repeatTime不能超过255" (SIMD计算说明/高维切分.md); the bound comes from
    #       memory.max_repeat_times, the C++ type is uint8_t.
    if not 0 <= rt <= profile.max_repeat_times:
        raise UsageError(api, "repeatTime", rt, f"[0, {profile.max_repeat_times}]", profile)
    return rt


def check_repeat_params(api, params, profile):
    """The four strides, range-checked against their C++ types (uint16 block, uint8 repeat)."""
    if not isinstance(params, UnaryRepeatParams):
        raise UsageError(api, "repeatParams", params, "a UnaryRepeatParams", profile)
    out = []
    for name in ("dstBlkStride", "srcBlkStride", "dstRepStride", "srcRepStride"):
        # the struct field as the kernel author writes it: repeatParams.<field> (the prototypes'
        # parameter name, "const UnaryRepeatParams& repeatParams")
        arg = f"repeatParams.{name}"
        v = as_int(api, arg, getattr(params, name), profile)
        hi = UnaryRepeatParams._RANGES[name]
        # SPEC: UnaryRepeatParams{uint16_t dstBlkStride, srcBlkStride; uint8_t dstRepStride,
        #       srcRepStride} (structs/UnaryRepeatParams.md)
        if not 0 <= v <= hi:
            raise UsageError(api, arg, v, f"[0, {hi}]", profile)
        out.append(v)
    return tuple(out)


def parse_mask(api, mask, dtype, profile):
    """Static validation of the high-dim mask argument.

    Returns ("continuous", n) or ("bitwise", value, words) with ``value`` the words as one int.
    """
    L = profile.lanes(dtype)
    if isinstance(mask, (list, tuple)):
        n_words = profile.vector_mask_bits // 64
        # SPEC (MODEL.md): "the number of words is vector_mask_bits/64 (2, or 4 on 950)". A C++
        # mask[] shorter than that is read past its end for lanes that do not exist, so the model
        # accepts as few words as the type's lanes need (1 for 32/64-bit T, 2 for 16-bit T, 4 for
        # 8-bit T on 950), padded with zeros.
        need = min(n_words, max(1, -(-L // 64)))
        if not need <= len(mask) <= n_words:
            raise UsageError(
                api,
                "mask",
                list(mask),
                (
                    f"a list of {need} uint64 words (low word first)"
                    if need == n_words
                    else f"a list of {need} to {n_words} uint64 words (low word first)"
                ),
                profile,
            )
        mask = list(mask) + [0] * (n_words - len(mask))
        words = [as_int(api, f"mask[{i}]", w, profile) for i, w in enumerate(mask)]
        for i, w in enumerate(words):
            # SPEC: "maskLow∈[0, 2^64-1]， maskHigh∈[0, 2^64-1]" (SIMD计算说明/掩码/通用说明.md)
            if not 0 <= w <= U64_MAX:
                raise UsageError(api, f"mask[{i}]", w, "[0, 2**64-1]", profile)
        value = 0
        for i, w in enumerate(words):
            value |= w << (64 * i)
        # SPEC: "当操作数为32位时 ... maskHigh = 0；当操作数为64位时 ... maskLow∈[0, 2^32-1]，
        #       maskHigh = 0" (掩码/通用说明.md). Written generally: no bit at or above L may be
        #       set (16-bit: 128 bits; 32-bit: mask[1] == 0; 64-bit: mask[0] < 2**32, mask[1] == 0;
        #       and on a 256-bit profile the words above L for 16/32/64-bit T).
        if L < profile.vector_mask_bits and value >> L:
            # the word named is the one holding the lowest bit at or above L
            low = value >> L
            i = (L + (low & -low).bit_length() - 1) // 64
            raise UsageError(
                api,
                f"mask[{i}]",
                hex(words[i]),
                f"bits 0..{L - 1} only for {_dt.as_dtype(dtype).name} ({L} lanes per repeat)",
                profile,
            )
        return ("bitwise", value, words)
    n = as_int(api, "mask", mask, profile)
    # SPEC: "若设成了负值可能产生未定义行为" (掩码/通用说明.md); MODEL.md: negative or > 2**64-1 is
    #       a usage error (the C++ parameter is uint64_t).
    if not 0 <= n <= U64_MAX:
        raise UsageError(api, "mask", n, "[0, 2**64-1]", profile)
    return ("continuous", n)


def check_count(api, count, dtype, profile):
    c = as_int(api, "count", count, profile)
    d = _dt.as_dtype(dtype)
    hi = profile.ub_usable_bytes // d.itemsize
    # SPEC: "参数count的最大取值受限于输入数据总容量 ... 由系统UB大小限制及操作数数据类型共同约束"
    #       (掩码/通用说明.md); MODEL.md: count in [0, ub_usable_bytes / sizeof(T)].
    if not 0 <= c <= hi:
        raise UsageError(api, "count", c, f"[0, {hi}] (= ub_usable_bytes / sizeof({d.name}))", profile)
    return c


# ---------------------------------------------------------------------------------------------
# Zero mask / count / repeat


def _zero(kind, api, profile, static):
    """MODEL.md: a zero mask, count 0 or repeatTime 0 follows behavior.zero_<kind>."""
    rule = getattr(profile, f"zero_{kind}")
    # SPEC: "当参数count或repeatTime取值为0时 ... 该接口将被视为NOP" (A2/A3, 基础算术/Adds.md);
    #       "mask = 0表示指令不会执行计算操作，该接口将被视为NOP" (掩码/通用说明.md)
    if rule == "nop":
        return _nop()
    if rule == "fault":
        return _fault(Fault.UNDEFINED)
    if rule == "error":
        if static:
            arg = {"repeat": "repeatTime"}.get(kind, kind)  # the C++ parameter name
            raise UsageError(api, arg, 0, f"a non-zero {kind}", profile, f"behavior.zero_{kind} = error")
        return _fault(Fault.BAD_MASK)  # a zero that only a register holds: recorded, not raised
    raise AssertionError(rule)


# ---------------------------------------------------------------------------------------------
# Lane sets


def _guard(n_lanes, what):
    if n_lanes > MAX_REFERENCE_LANES:
        raise NotModelledError(
            f"{what}: the reference would enumerate {n_lanes} lanes (limit {MAX_REFERENCE_LANES})"
        )


def normal_lanes(lane_bits, L, repeats):
    """Normal mode: the same per-repeat mask for every repeat r < repeats."""
    # SPEC: "Normal模式下，Mask用来控制单次迭代内参与计算的元素个数" (掩码/概述.md); bit l of the
    #       mask <-> lane l of each repeat ("从低位到高位按位控制", 掩码/通用说明.md)
    _guard(repeats * L, "Normal-mode call")
    row = [((lane_bits >> l) & 1) == 1 for l in range(L)]
    return [list(row) for _ in range(repeats)]


def counter_lanes(count, L):
    """Counter mode / count form: global lane g = r*L + l is active iff g < count; the number of
    repeats is derived from the count."""
    # SPEC: "Counter模式下，Mask表示整个矢量计算参与计算的元素个数" (掩码/概述.md); "repeatTime参数会被
    #       忽略，由系统内部根据元素数量自动计算" (掩码/接口内设置Mask.md)
    repeats = (count + L - 1) // L
    _guard(repeats * L, "Counter-mode call")
    active = []
    for r in range(repeats):
        row = []
        for l in range(L):
            g = r * L + l
            row.append(g < count)
        active.append(row)
    return repeats, active


def continuous_mask_register_value(n, L, profile):
    """What SetVectorMask(len) / an in-call continuous mask leaves in the register (Normal):
    MODEL.md: all ones if n >= L or n >= the register width, else the low n bits."""
    if n >= L or n >= profile.vector_mask_bits:
        return _st.all_ones_mask(profile)
    return (1 << n) - 1


def _register_count(state, api, profile):
    """Counter mode with isSetMask=false: the count is the low 64 bits of the mask register."""
    # SPEC: "Mask寄存器中的值只有低64bit有效，被当做参与计算的元素数量" (掩码/接口外设置Mask.md)
    count = _st.get_vmask(state) & U64_MAX
    if count > U32_MAX:
        # MODEL.md: Counter-mode count > 2**32-1 is an error; a register value can only be
        # seen at run time -> BAD_MASK
        return None, _fault(Fault.BAD_MASK)
    if count == 0:
        return None, _zero("count", api, profile, static=False)
    return count, None


# ---------------------------------------------------------------------------------------------
# Form 1: count (level 2)


def plan_count_form(api, state, dtype, count, is_set_mask, profile):
    L = profile.lanes(dtype)
    use_registers = (not is_set_mask) and profile.level2_is_set_mask == "honoured"
    if use_registers:
        # SPEC: "针对tensor前n个数据计算接口，接口入参中的count不生效，建议设置成1" (基础算术/Muls.md).
        # MODEL.md: the count argument is ignored; one repeat, default strides, current registers.
        # Its static range check still applies (MODEL.md states it for every count-form call).
        check_count(api, count, dtype, profile)
        if state.mask_mode == 1:
            n, early = _register_count(state, api, profile)
            if early is not None:
                return early
            repeats, active = counter_lanes(n, L)
        else:
            lane_bits = _st.get_vmask(state) & ((1 << L) - 1)
            if lane_bits == 0:
                return _zero("mask", api, profile, static=False)
            repeats, active = 1, normal_lanes(lane_bits, L, 1)
        # MODEL.md: "Registers are untouched when isSetMask=False."
        return LanePlan("run", repeats=repeats, lanes=L, active=active)

    # isSetMask=true, or a profile where the level-2 isSetMask is ignored
    # SPEC: "针对以下型号，tensor前n个数据计算API中的isSetMask参数不生效" (seed 004, Muls)
    c = check_count(api, count, dtype, profile)
    if c == 0:
        return _zero("count", api, profile, static=True)
    # SPEC: "针对源操作数的连续n个数据进行计算并连续写入目的操作数" (SIMD计算说明/连续计算.md)
    repeats, active = counter_lanes(c, L)
    plan = LanePlan("run", repeats=repeats, lanes=L, active=active, strides=DEFAULT_STRIDES)
    lowering = profile.level2_lowering
    if lowering == "counter_mode":
        # SPEC: "接口内部会先调用SetMaskCount，然后根据接口参数count调用SetVectorMask，再进行计算，
        #       计算完成后调用ResetMask、SetMaskNorm恢复系统默认Normal模式" (掩码/接口内设置Mask.md)
        plan.new_vmask = _st.all_ones_mask(profile)
        plan.new_mask_mode = 0
    elif lowering == "repeat_loop":
        # MODEL.md: full repeats, then one tail repeat under a continuous mask of count % L; the
        # register keeps that tail (all ones when there is no tail); mask_mode unchanged.
        tail = c % L
        if tail:
            plan.new_vmask = continuous_mask_register_value(tail, L, profile)
        else:
            plan.new_vmask = _st.all_ones_mask(profile)
    elif lowering == "vf_loop":
        pass  # MODEL.md: registers untouched
    else:
        raise AssertionError(lowering)
    return plan


# ---------------------------------------------------------------------------------------------
# Forms 2 and 3: high-dim (level 0)


def plan_high_dim(api, state, dtype, mask, repeat_time, repeat_params, is_set_mask, profile):
    L = profile.lanes(dtype)
    rt = check_repeat_time(api, repeat_time, profile)
    strides = check_repeat_params(api, repeat_params, profile)

    if not is_set_mask:
        # Form 3. SPEC: "本接口入参中的mask值必须设置为占位符 MASK_PLACEHOLDER" (seed 004, Muls)
        if mask is not MASK_PLACEHOLDER:
            raise UsageError(api, "mask", mask, "MASK_PLACEHOLDER when isSetMask=false", profile)
        if state.mask_mode == 1:
            n, early = _register_count(state, api, profile)
            if early is not None:
                return early
            repeats, active = counter_lanes(n, L)
        else:
            if rt == 0:
                return _zero("repeat", api, profile, static=True)
            lane_bits = _st.get_vmask(state) & ((1 << L) - 1)
            if lane_bits == 0:
                return _zero("mask", api, profile, static=False)
            repeats, active = rt, normal_lanes(lane_bits, L, rt)
        return LanePlan("run", repeats=repeats, lanes=L, active=active, strides=strides)

    # Form 2: the mask is an argument.
    if mask is MASK_PLACEHOLDER:
        raise UsageError(api, "mask", mask, "a mask value when isSetMask=true", profile)
    parsed = parse_mask(api, mask, dtype, profile)
    is_zero = parsed[1] == 0
    if is_zero and profile.zero_mask == "error":
        # static zero mask: raised whatever the (run-time) mode is
        return _zero("mask", api, profile, static=True)

    if state.mask_mode == 1:
        # Counter mode: the mask argument is the element count, repeatTime is ignored.
        # SPEC: "mask数组中仅低64bit有效，表示参与计算的元素总数 ... 该模式接口内部的repeatTimes参数
        #       无效，系统根据mask值自动计算迭代次数" (掩码/接口内设置Mask.md)
        if parsed[0] == "bitwise":
            words = parsed[2]
            if any(w != 0 for w in words[1:]):
                return _fault(Fault.BAD_MASK)  # MODEL.md: other words must be 0 (run-time mode)
            n = words[0]
        else:
            n = parsed[1]
        if n > U32_MAX:
            return _fault(Fault.BAD_MASK)  # MODEL.md: Counter-mode count > 2**32-1
        if n == 0:
            return _zero("count", api, profile, static=True)
        repeats, active = counter_lanes(n, L)
        plan = LanePlan("run", repeats=repeats, lanes=L, active=active, strides=strides)
        if profile.level0_writes_mask_register:
            plan.new_vmask = n  # MODEL.md: vmask low 64 bits = count, the rest 0
        return plan

    # Normal mode
    if rt == 0:
        return _zero("repeat", api, profile, static=True)
    if parsed[0] == "bitwise":
        # SPEC: "逐bit模式 ... 直接设置mask寄存器的值" (掩码/通用说明.md)
        lane_bits = parsed[1] & ((1 << L) - 1)
        reg_value = parsed[1]  # MODEL.md: the words as given
    else:
        n = parsed[1]
        # SPEC: "连续模式下，mask超出范围按照对应数据类型下mask最大值计算" (掩码/通用说明.md)
        n_eff = min(n, L)
        lane_bits = (1 << n_eff) - 1
        reg_value = continuous_mask_register_value(n, L, profile)
    if lane_bits == 0:
        return _zero("mask", api, profile, static=True)
    plan = LanePlan("run", repeats=rt, lanes=L, active=normal_lanes(lane_bits, L, rt), strides=strides)
    if profile.level0_writes_mask_register:
        plan.new_vmask = reg_value
    return plan


def flexible_overload(flex_api, profile, src0, src1, config=None, tensor_src1=False):
    """Whether a call of Adds / Muls / Maxs / Mins / Compares / Select is the 灵活标量位置 overload
    of the same C++ name (its operand types deduced from the arguments): a BinaryConfig given, or,
    where the product has ``flex_api``, a scalar as src0 or a LocalTensor where the plain form takes
    its scalar (``src1Local[0]``). ``tensor_src1``: the plain form takes a tensor src1 (Select modes
    0 and 2)."""
    if config is not None:
        return True
    if not profile.api(flex_api).supported:
        return False
    if not isinstance(src0, LocalTensor):
        return True
    return isinstance(src1, LocalTensor) and not tensor_src1
