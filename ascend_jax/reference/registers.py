"""Mask-register and CTRL special-register APIs of the reference model.

SetVectorMask, SetMaskCount, SetMaskNorm, ResetMask (掩码操作/*.md) and SetCtrlSpr, GetCtrlSpr,
ResetCtrlSpr, SetSaturationFlag, GetSaturationFlag (special-registers/*.md). Setters return a new
state; getters return a Python value. Template arguments of the C++ API (T, mode, startBit,
endBit) are static, so misuse of them raises.
"""

from .. import dtypes as _dt
from ..errors import NotModelledError, UnsupportedError, UsageError
from ..profile import as_profile
from . import masks as _masks
from . import state as _st

U64_MAX = (1 << 64) - 1
U32_MAX = (1 << 32) - 1
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def _require(api, profile, dtype=None):
    profile.require_api(api, dtype)


def _parse_mode(api, mode, state, profile):
    """The MaskMode template argument: "NORMAL" / "COUNTER" (or 0 / 1); None = NORMAL, the C++
    default template argument (``template <typename T, MaskMode mode = MaskMode::NORMAL>``)."""
    if mode is None:
        return 0
    if isinstance(mode, str):
        m = mode.upper()
        if m.startswith("MASKMODE."):
            m = m[len("MASKMODE.") :]
        if m in ("NORMAL", "COUNTER"):
            return 0 if m == "NORMAL" else 1
    elif isinstance(mode, int) and not isinstance(mode, bool) and mode in (0, 1):
        return mode
    raise UsageError(api, "mode", mode, '"NORMAL" or "COUNTER"', profile)


# ---------------------------------------------------------------------------------------------
# Mask register


def SetVectorMask(state, dtype, *args, profile, mode=None):
    """``SetVectorMask<T, mode>(maskHigh, maskLow)`` or ``SetVectorMask<T, mode>(len)``.

    Only the register value is written; the mode register (Normal/Counter) is set by
    SetMaskCount / SetMaskNorm, the ``mode`` template argument only says how to encode the value.
    """
    api = "SetVectorMask"
    profile = as_profile(profile)
    d = _dt.as_dtype(dtype)
    _require(api, profile, d)
    m = _parse_mode(api, mode, state, profile)
    if m == 1 and profile.counter_mode == "unsupported":
        raise UnsupportedError(
            api, "mode", "COUNTER", "NORMAL", profile, "behavior.counter_mode = unsupported"
        )
    L = profile.lanes(d)

    if len(args) == 2:
        mask_high = _masks.as_int(api, "maskHigh", args[0], profile)
        mask_low = _masks.as_int(api, "maskLow", args[1], profile)
        for name, v in (("maskHigh", mask_high), ("maskLow", mask_low)):
            if not 0 <= v <= U64_MAX:
                raise UsageError(api, name, v, "[0, 2**64-1] (uint64_t)", profile)
        if m == 1:
            # SPEC: "maskHigh ... Counter模式：需要置0，本入参不生效。maskLow ... Counter模式：整个矢量
            #       计算过程中，参与计算的元素个数" (掩码操作/SetVectorMask.md)
            if mask_high != 0:
                raise UsageError(api, "maskHigh", mask_high, "0 in Counter mode", profile)
            if mask_low > U32_MAX:
                raise UsageError(api, "maskLow", mask_low, "[0, 2**32-1] (Counter-mode count)", profile)
            value = mask_low  # MODEL.md: low 64 bits = count, the rest 0
        else:
            # SPEC: "逐比特模式：... 当操作数为16位时，maskLow、maskHigh∈[0, 2^64-1]，并且不同时为0；
            #       当操作数为32位时，maskHigh为0 ...；当操作数为64位时，maskHigh为0，maskLow∈[0, 2^32-1]"
            #       (掩码操作/SetVectorMask.md)
            value = (mask_high << 64) | mask_low
            if L < 128 and value >> L:
                # L <= 64 here: maskHigh holds no lane; else the excess bits are in maskLow
                name, v = ("maskHigh", mask_high) if mask_high else ("maskLow", mask_low)
                raise UsageError(api, name, v, f"bits 0..{L - 1} only for {d.name}", profile)
            if value == 0 and profile.zero_mask == "error":
                # "不同时为0": a rule on the two arguments together
                raise UsageError(
                    api, "maskHigh/maskLow", (0, 0), "a non-zero mask", profile, "behavior.zero_mask = error"
                )
            # (Interpretation) on a 256-bit register the two words fill bits 0..127, the rest 0.
    elif len(args) == 1:
        n = _masks.as_int(api, "len", args[0], profile)
        # SPEC: prototype "SetVectorMask(int32_t len)" (掩码操作/SetVectorMask.md); negative is
        #       a usage error (MODEL.md static mask rules).
        if not 0 <= n <= INT32_MAX:
            raise UsageError(api, "len", n, "[0, 2**31-1] (int32_t, non-negative)", profile)
        if m == 1:
            # SPEC: "len ... Counter模式：整个矢量计算过程中，参与计算的元素个数"
            value = n  # MODEL.md: low 64 bits = len, the rest 0
        else:
            # SPEC: "连续模式：表示前面连续的多少个元素参与计算" (掩码操作/SetVectorMask.md)
            # MODEL.md: the low len bits, all ones if len >= L.
            if n == 0 and profile.zero_mask == "error":
                raise UsageError(api, "len", 0, "a non-zero mask", profile, "behavior.zero_mask = error")
            value = _st.all_ones_mask(profile) if n >= L else (1 << n) - 1
    else:
        raise TypeError(f"{api}: expected (maskHigh, maskLow) or (len,), got {len(args)} arguments")

    out = _st.copy_state(state)
    _st.set_vmask(out, value, profile)
    return out


def SetMaskCount(state, *, profile):
    """Mask mode := Counter."""
    # SPEC: "设置Mask模式为Counter模式" (掩码操作/SetMaskCount.md)
    profile = as_profile(profile)
    _require("SetMaskCount", profile)
    if profile.counter_mode == "unsupported":
        raise UnsupportedError(
            "SetMaskCount", "api", "SetMaskCount", "none", profile, "behavior.counter_mode = unsupported"
        )
    out = _st.copy_state(state)
    out.mask_mode = 1
    return out


def SetMaskNorm(state, *, profile):
    """Mask mode := Normal."""
    # SPEC: "设置Mask模式为Normal模式。该模式为系统默认模式" (掩码操作/SetMaskNorm.md)
    profile = as_profile(profile)
    _require("SetMaskNorm", profile)
    out = _st.copy_state(state)
    out.mask_mode = 0
    return out


def ResetMask(state, *, profile):
    """Vector mask := all ones (mask mode unchanged)."""
    # SPEC: "恢复mask的值为默认值（全1），表示矢量计算中每次迭代内的所有元素都将参与运算"
    #       (掩码操作/ResetMask.md)
    profile = as_profile(profile)
    _require("ResetMask", profile)
    out = _st.copy_state(state)
    _st.set_vmask(out, _st.all_ones_mask(profile), profile)
    return out


# ---------------------------------------------------------------------------------------------
# CTRL special register


def _bit_range(api, start_bit, end_bit, profile, restrict_to_supported):
    s = _masks.as_int(api, "startBit", start_bit, profile)
    e = _masks.as_int(api, "endBit", end_bit, profile)
    # SPEC: "startBit和endBit的取值范围为[0, 63]。startBit小于等于endBit" (GetCtrlSpr(ISASI).md)
    if not 0 <= s <= 63:
        raise UsageError(api, "startBit", s, "[0, 63]", profile)
    if not 0 <= e <= 63:
        raise UsageError(api, "endBit", e, "[0, 63]", profile)
    if s > e:
        raise UsageError(api, "startBit", s, f"<= endBit ({e})", profile)
    if restrict_to_supported:
        # SPEC: "Atlas A2 ... 仅支持CTRL[48]比特位" (SetCtrlSpr(ISASI).md 约束说明); the list of
        #       supported bits is apis.SetCtrlSpr.bits (absent: every bit).
        bits = profile.api("SetCtrlSpr").bits
        if bits is not None:
            for b in range(s, e + 1):
                if b not in bits:
                    raise UnsupportedError(
                        api,
                        "bit",
                        b,
                        ", ".join(str(x) for x in bits),
                        profile,
                        f"CTRL[{e}:{s}] includes an unsupported bit",
                    )
    return s, e


def SetCtrlSpr(state, startBit, endBit, value, *, profile):
    """CTRL[endBit:startBit] := value."""
    # SPEC: "通过模板参数startBit和endBit指定目标比特位范围，将运行参数value（超出比特位范围会出现编译
    #       报错）写入CTRL寄存器对应位置" (SetCtrlSpr(ISASI).md)
    api = "SetCtrlSpr"
    profile = as_profile(profile)
    _require(api, profile)
    s, e = _bit_range(api, startBit, endBit, profile, restrict_to_supported=True)
    v = _masks.as_int(api, "value", value, profile)
    width = e - s + 1
    if not 0 <= v < (1 << width):
        raise UsageError(api, "value", v, f"[0, {(1 << width) - 1}] ({width} bit(s))", profile)
    field = ((1 << width) - 1) << s
    out = _st.copy_state(state)
    _st.set_ctrl(out, (_st.get_ctrl(out) & ~field) | (v << s))
    return out


def GetCtrlSpr(state, startBit, endBit, *, profile) -> int:
    """The value of CTRL[endBit:startBit]."""
    # SPEC: "读取CTRL寄存器（控制寄存器）特定比特位上的值" (GetCtrlSpr(ISASI).md); only the
    #       [0, 63] / startBit <= endBit constraints are stated, so any bit may be read.
    api = "GetCtrlSpr"
    profile = as_profile(profile)
    _require(api, profile)
    s, e = _bit_range(api, startBit, endBit, profile, restrict_to_supported=False)
    return (_st.get_ctrl(state) >> s) & ((1 << (e - s + 1)) - 1)


def ResetCtrlSpr(state, startBit, endBit, *, profile):
    """CTRL[endBit:startBit] := the same bits of ctrl_reset_value."""
    # SPEC: "由模板参数[startBit, endBit]指定的比特位重置为默认值" (ResetCtrlSpr(ISASI).md); the
    #       supported bits are the SetCtrlSpr ones (its 约束说明 lists the same bits).
    api = "ResetCtrlSpr"
    profile = as_profile(profile)
    _require(api, profile)
    s, e = _bit_range(api, startBit, endBit, profile, restrict_to_supported=True)
    field = ((1 << (e - s + 1)) - 1) << s
    out = _st.copy_state(state)
    _st.set_ctrl(out, (_st.get_ctrl(out) & ~field) | (profile.ctrl_reset_value & field))
    return out


def _saturation_bit(api, mode, profile):
    # mode: "FLOAT" / "CAST", or the enum value (SaturationMode{FLOAT = 0, CAST = 1})
    if mode is None:
        m = "FLOAT"
    elif isinstance(mode, int) and not isinstance(mode, bool):
        m = {0: "FLOAT", 1: "CAST"}.get(int(mode), repr(mode))
    else:
        m = str(mode).upper()
        if m.startswith("SATURATIONMODE."):
            m = m[len("SATURATIONMODE.") :]
    if m == "CAST":
        # SPEC: "当mode配置为CAST时，开启饱和模式，溢出值会被饱和为±MAX" (SetSaturationFlag(ISASI).md);
        #       "CTRL[59] ... 1'b0：饱和模式" (SetCtrlSpr(ISASI).md). No modelled API converts, so
        #       only the bit is kept: the profile's cast_saturation_ctrl_bit, 0 = saturating.
        if profile.cast_saturation_ctrl_bit < 0:
            raise UsageError(api, "mode", "CAST", "FLOAT (no conversion-saturation control)", profile)
        return profile.cast_saturation_ctrl_bit, 0
    if m != "FLOAT":
        raise UsageError(api, "mode", mode, '"FLOAT" or "CAST"', profile)
    bit = profile.float_saturation_ctrl_bit
    if bit < 0:
        raise NotModelledError(f"{api}: profile {profile.name} has no float saturation CTRL bit")
    return bit, profile.float_saturation_when_bit_is


def SetSaturationFlag(state, *args, profile, mode=None):
    """``SetSaturationFlag<SaturationMode::FLOAT>(enableSat)``.

    Called as ``SetSaturationFlag(state, enableSat, profile=..., mode="FLOAT")`` or, with the
    template argument first as the fast path spells it, ``SetSaturationFlag(state, mode, enableSat,
    profile=...)``. Writes the float-saturation CTRL bit: ``enableSat=True`` puts it at the
    saturating value (``float_saturation_when_bit_is``), False at the other one. CAST mode writes
    the profile's ``cast_saturation_ctrl_bit`` (0 = saturating).
    """
    if len(args) == 1:
        flag = args[0]
    elif len(args) == 2 and mode is None:
        mode, flag = args
    else:
        raise TypeError("SetSaturationFlag: expected (enableSat,) or (mode, enableSat)")
    # SPEC: "当mode配置为FLOAT时，开启饱和模式，inf输出会被饱和为±MAX，NaN输出会被饱和为0；关闭饱和模式，
    #       inf/NaN保持原输出" (SetSaturationFlag(ISASI).md); "推荐使用SetSaturationFlag和
    #       GetSaturationFlag来设置和获取CTRL[48]以控制饱和模式" (SetCtrlSpr(ISASI).md, A2/A3)
    api = "SetSaturationFlag"
    profile = as_profile(profile)
    _require(api, profile)
    if not isinstance(flag, bool):
        if isinstance(flag, int) and flag in (0, 1):
            flag = bool(flag)
        else:
            raise UsageError(api, "enableSat", flag, "True or False", profile)
    bit, when = _saturation_bit(api, mode, profile)
    want = when if flag else 1 - when
    out = _st.copy_state(state)
    ctrl = _st.get_ctrl(out)
    ctrl = (ctrl & ~(1 << bit)) | (want << bit)
    _st.set_ctrl(out, ctrl)
    return out


def GetSaturationFlag(state, *args, profile, mode=None) -> bool:
    """True iff the float- (or CAST-) saturation CTRL bit is at its saturating value.

    ``GetSaturationFlag(state, profile=..., mode="FLOAT")`` or ``GetSaturationFlag(state, mode,
    profile=...)``."""
    if len(args) == 1 and mode is None:
        mode = args[0]
    elif args:
        raise TypeError("GetSaturationFlag: expected () or (mode,)")
    # SPEC: "返回true表示开启饱和模式，false表示未开启饱和模式" (GetSaturationFlag(ISASI).md)
    api = "GetSaturationFlag"
    profile = as_profile(profile)
    _require(api, profile)
    bit, when = _saturation_bit(api, mode, profile)
    return _st.ctrl_bit(state, bit) == when
