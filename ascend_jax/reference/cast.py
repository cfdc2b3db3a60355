"""Cast (类型转换/Cast.md): ``dst_i = convert(src_i, roundMode)`` for the (src, dst, roundMode) triples
the product's table lists (``apis.Cast.pairs``), with the rounding and overflow rules of
precision_conversion.md.

Prototypes: ``(dst, src, roundMode, count)`` and ``(dst, src, roundMode, mask[] | mask, repeatTime,
UnaryRepeatParams)``, ``isSetMask``. Lanes: "数据类型转换的mask会按照输入和输出类型中sizeof(dtype)较大的来
筛选": L = repeat_bytes / max(sizeof(src), sizeof(dst)); lane ``l`` of each operand sits in that
operand's block ``l // E`` (E = 32 / sizeof of that operand) at its own strides.

Numerics (MODEL.md "Cast"):
* the exact source value is rounded once to dst by the round mode's bit rule (RINT: nearest even;
  FLOOR / CEIL: toward -inf / +inf; ROUND: nearest, ties away from zero; TRUNC: toward zero;
  ODD: an inexact result gets an odd last bit; NONE: RINT when the conversion loses precision);
  float -> float of one type (``float32 -> float32``) rounds to an integral value;
* overflow saturates ("溢出默认按照饱和模式处理"), unless the CAST saturation CTRL bit
  (``registers.cast_saturation_ctrl_bit``, 0 = saturating) selects the non-saturating mode: then an
  integer result wraps (two's complement of the rounded value) and a float result overflows to inf
  (CHOICE: the docs give no non-saturating rule);
* float inputs: NaN -> canonical NaN for float dst and 0 for integer dst (CHOICE), +-inf -> +-inf
  for float dst and the integer extreme for integer dst; subnormals are kept (inputs and results)
  on every profile, ``float_subnormals`` included (the bfloat16 -> half example of
  precision_conversion.md, a 950-only pair, prints a half subnormal); CTRL[48] (arithmetic float
  saturation) does not apply to conversions.
* ``int32 -> half`` (the DEQSCALE pairs): ``src × scale`` (SetDeqScale's half scale), rounded once
  by RINT, whatever ``roundMode`` (``deq_lane_function``).
"""

import enum
import math
from fractions import Fraction

from .. import dtypes as _dt
from ..errors import Fault, NotModelledError, UnsupportedError, UsageError
from ..profile import as_profile
from ..tensor import MASK_PLACEHOLDER, LocalTensor
from . import elementwise as _ew
from . import faults as _faults
from . import masks as _masks
from . import numerics as _num
from . import state as _st


class RoundMode(enum.IntEnum):
    """``AscendC::RoundMode`` (values as the C++ enum)."""

    CAST_NONE = 0
    CAST_RINT = 1
    CAST_FLOOR = 2
    CAST_CEIL = 3
    CAST_ROUND = 4
    CAST_TRUNC = 5
    CAST_ODD = 6
    CAST_HYBRID = 7


def parse_pairs(profile):
    """{(src name, dst name): (frozenset of mode names without CAST_, count_only)} of the product."""
    out = {}
    for entry in profile.api("Cast").pairs:
        head, modes = entry.split(":")
        src, dst = (x.strip() for x in head.split("->"))
        words = modes.split()
        count_only = "[count]" in words
        out[(src, dst)] = (frozenset(w for w in words if w != "[count]"), count_only)
    return out


def _mode_name(api, mode, profile):
    if isinstance(mode, str):
        name = mode.upper()
    elif hasattr(mode, "name") and not isinstance(mode, int):
        name = str(mode.name)
    else:
        try:
            name = RoundMode(int(mode)).name
        except (ValueError, TypeError):
            name = None
    if name is not None and not name.startswith("CAST_"):
        name = "CAST_" + name
    if name not in RoundMode.__members__:
        raise UsageError(api, "roundMode", mode, ", ".join(RoundMode.__members__), profile)
    return name[5:]


# ---------------------------------------------------------------------------------------------
# Rounding an exact value by a round mode


def _round_int(q: Fraction, mode: str) -> int:
    """An exact rational rounded to an integer by the mode's rule (on the magnitude, with sign)."""
    neg = q < 0
    a = -q if neg else q
    whole = a.numerator // a.denominator
    frac = a - whole
    if frac == 0:
        return -whole if neg else whole
    half = Fraction(1, 2)
    if mode in ("RINT", "NONE"):
        up = frac > half or (frac == half and whole % 2 == 1)
    elif mode == "ROUND":
        up = frac >= half  # SPEC: "若待舍入部分的首位为0，则不进位；否则，进位" (ties away from zero)
    elif mode == "TRUNC":
        up = False
    elif mode == "FLOOR":
        up = neg
    elif mode == "CEIL":
        up = not neg
    elif mode == "ODD":
        up = whole % 2 == 0  # SPEC: inexact -> "末位为1，则不进位；当非舍入部分的末位为0，则进位"
    else:
        raise AssertionError(mode)
    r = whole + (1 if up else 0)
    return -r if neg else r


def _round_float(v, fmt, mode, saturate):
    """Exact value ``v`` (Fraction / int) -> bits of ``fmt`` rounded by ``mode``."""
    v = Fraction(v)
    if v == 0:
        return 0
    neg = v < 0
    a = -v if neg else v
    n, d = a.numerator, a.denominator
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    q = max(e, fmt.emin) - fmt.man_bits  # exponent of the last kept bit
    scaled = a / (Fraction(2) ** q)
    sig = _round_int(-scaled if neg else scaled, mode)
    sig = -sig if neg else sig
    if sig >= (1 << (fmt.man_bits + 1)):
        sig >>= 1  # carried into the next binade: sig == 2**p exactly
        q += 1
    sbit = fmt.sign_bit if neg else 0
    if sig >= (1 << fmt.man_bits):
        biased = q + fmt.man_bits + fmt.bias
        if biased >= fmt.exp_all_ones:
            # SPEC: "当源值超出目标类型的表示范围时溢出，溢出默认按照饱和模式处理" (precision_conversion.md)
            return sbit | (fmt.max_bits if saturate else fmt.inf_bits)
        return sbit | (biased << fmt.man_bits) | (sig - (1 << fmt.man_bits))
    return sbit | sig


def _saturating(profile, ctrl):
    bit = profile.cast_saturation_ctrl_bit
    # SPEC: SetSaturationFlag<SaturationMode::CAST>: CTRL[59] 0 = saturating (SetCtrlSpr 表3)
    return bit < 0 or ((ctrl >> bit) & 1) == 0


def deq_lane_function(profile, state):
    """``f(int32 bits) -> half bits`` of the DEQSCALE pair: Cast(x × scale) with the half scale of
    DEQSCALE bits 0~15 (SetDeqScale.md 表1), the exact product rounded once by RINT (AddDeqRelu.md:
    "采用RINT舍入方式"; "Cast(src_i / 2^{17} × scale × 2^{17}) = Cast(src_i × scale)"), overflow by the
    conversion rule. CHOICE (MODEL.md): a NaN scale or 0 × inf -> canonical NaN; x × inf -> inf of the
    product's sign; a zero product -> zero of the product's sign; a subnormal scale keeps its value."""
    fmt = _num.float_format(_dt.as_dtype("half"))
    sat = _saturating(profile, _st.get_ctrl(state))
    scale = _num.decode(int(state.deqscale) & 0xFFFF, fmt)

    def f(bits):
        x = _num.bits_to_int(bits, _dt.as_dtype("int32"))
        neg = (x < 0) != (math.copysign(1.0, scale) < 0)
        if math.isnan(scale) or (math.isinf(scale) and x == 0):
            return fmt.canonical_nan_bits
        if math.isinf(scale):
            return (fmt.sign_bit if neg else 0) | fmt.inf_bits
        v = Fraction(x) * Fraction(scale)
        if v == 0:
            return fmt.sign_bit if neg else 0
        return _round_float(v, fmt, "RINT", sat)

    return f


def lane_function(src, dst, mode, profile, ctrl):
    """``f(src_bits) -> dst_bits`` for one lane of Cast ``src -> dst`` under ``mode``."""
    s, t = _dt.as_dtype(src), _dt.as_dtype(dst)
    sat = _saturating(profile, ctrl)
    if s.kind == "complex" or t.kind == "complex":
        raise NotModelledError(f"Cast: {s.name} -> {t.name} is not modelled by the reference")

    def read(bits):
        if s.is_float:
            # MODEL.md: conversions keep subnormals on every profile (precision_conversion.md's
            # bfloat16 -> half example prints a half subnormal, a 950-only pair)
            return _num.decode(bits, _num.float_format(s))
        return _num.bits_to_int(bits, s)

    if t.is_float:
        tf = _num.float_format(t)
        same = s.name == t.name

        def to_float(bits):
            x = read(bits)
            if isinstance(x, float) and math.isnan(x):
                return tf.canonical_nan_bits
            if isinstance(x, float) and math.isinf(x):
                return (tf.sign_bit if x < 0 else 0) | tf.inf_bits
            if same:  # SPEC: float -> float with RINT/FLOOR/...: rounding to an integral value
                r = _round_int(Fraction(x), mode)
                if r == 0:
                    return tf.sign_bit if math.copysign(1.0, x) < 0 else 0
                out = _round_float(r, tf, "RINT", sat)
            elif x == 0:
                return tf.sign_bit if isinstance(x, float) and math.copysign(1.0, x) < 0 else 0
            else:
                out = _round_float(Fraction(x), tf, mode, sat)
            return out

        return to_float
    lo, hi = _num.int_range(t)

    def to_int(bits):
        x = read(bits)
        if isinstance(x, float):
            if math.isnan(x):
                return 0  # CHOICE: NaN -> 0
            if math.isinf(x):
                return _num.int_to_bits(hi if x > 0 else lo, t)
            v = _round_int(Fraction(x), mode)
        else:
            v = x
        v = _num.saturate_int(v, t) if sat else _num.wrap_int(v, t)
        return _num.int_to_bits(v, t)

    return to_int


# ---------------------------------------------------------------------------------------------
# Lanes of a sub-byte operand (int4b_t)
#
# SPEC: "一个int4b_t只占半个字节" (Cast.md 约束说明). Element k of a block sits in byte k // 2 of it,
# the LOW nibble for an even k, the high one for an odd k (CHOICE, docs/MODEL.md "int4b_t": the vendor
# cast sample's golden packs element 2j | element 2j+1 << 4).


def _lane_at(addr, r, b, e, strides, d, bb):
    """(byte address, bit shift) of element ``e`` of block ``b`` of repeat ``r``."""
    if d.bits >= 8:
        return _faults.lane_address(addr, r, b, e, *strides, d.bits // 8, bb), 0
    per_byte = 8 // d.bits
    byte = _faults.lane_address(addr, r, b, e // per_byte, *strides, 1, bb)
    return byte, (e % per_byte) * d.bits


def _read_lane(ub, where, d):
    a, shift = where
    if d.bits >= 8:
        return _st.read_bits(ub, a, d.bits // 8)
    return (int(ub[a]) >> shift) & ((1 << d.bits) - 1)


def _write_lane(ub, where, d, bits):
    a, shift = where
    if d.bits >= 8:
        _st.write_bits(ub, a, d.bits // 8, bits)
        return
    m = ((1 << d.bits) - 1) << shift
    ub[a] = (int(ub[a]) & ~m & 0xFF) | ((bits << shift) & m)


def _check_pairs_static(api, args, count_form, profile):
    """int4b_t, Python values. SPEC (Cast.md 约束说明): "连续模式的mask与tensor前n个数据计算接口的count必须
    为偶数" (a continuous mask is a count in Counter mode: even too). The bitwise rule ("逐bit模式，对应同一
    字节的相邻两个比特位的数值必须一致") is checked on the active lanes (``_pairs_broken``): the words are
    lane bits or a Counter-mode count depending on the run-time mode."""
    first = args[0]
    if isinstance(first, (bool, list, tuple)) or first is MASK_PLACEHOLDER or not isinstance(first, int):
        return
    if first % 2 == 1:
        arg, what = ("count", "an even count") if count_form else ("mask", "an even continuous mask")
        raise UsageError(api, arg, first, what, profile, "int4b_t: two elements share a byte")


def _pairs_broken(plan):
    """Some byte of an int4b_t operand has one active and one inactive lane (the registers or the
    Counter-mode count broke the rule: BAD_MASK, docs/MODEL.md "int4b_t")."""
    return any(
        plan.active[r][l] != plan.active[r][l + 1]
        for r in range(plan.repeats)
        for l in range(0, plan.lanes, 2)
    )


# ---------------------------------------------------------------------------------------------
# The call


def _faults_two_widths(plan, dst, src, dbits, sbits, dst_strides, src_strides, ub_size, profile):
    bb = profile.block_bytes
    Ed, Es = 8 * bb // dbits, 8 * bb // sbits  # lanes a block (int4b_t: 64)
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
    if any(a < 0 or a + bb > limit for a in list(dblocks.values()) + list(sblocks.values())):
        fault |= Fault.OUT_OF_UB
    # PARTIAL_OVERLAP. SPEC: "对于长度较小的数据类型转换为长度较大的数据类型时，地址重叠可能会导致结果错误"
    # (约束说明). MODEL.md: within one repeat, an active src block intersecting an active dst block
    # faults unless both widths are equal and it is the same block index at the same address.
    for (r, b), a in sblocks.items():
        for (r2, b2), a2 in dblocks.items():
            if r2 == r and a < a2 + bb and a2 < a + bb and not (dbits == sbits and b == b2 and a == a2):
                fault |= Fault.PARTIAL_OVERLAP
            if r2 < r and a < a2 + bb and a2 < a + bb:
                fault |= Fault.REPEAT_DEPENDENCY
    for region in profile.reserved:
        if "Cast" in region.used_by:
            lo, hi = region.offset_bytes, region.offset_bytes + region.size_bytes
            if any(a < hi and a + bb > lo for a in list(dblocks.values()) + list(sblocks.values())):
                fault |= Fault.SCRATCH_COLLISION
    return int(fault)


def Cast(state, dst, src, roundMode, *args, profile, isSetMask=True):
    """``dst_i = convert(src_i)`` by ``roundMode`` (类型转换/Cast.md)."""
    api = "Cast"
    profile = as_profile(profile)
    for t, name in ((dst, "dst"), (src, "src")):
        if not isinstance(t, LocalTensor):
            raise UsageError(api, name, t, "a LocalTensor", profile)
    if not isinstance(isSetMask, bool):
        raise UsageError(api, "isSetMask", isSetMask, "True or False", profile)
    count_form = _ew.split_args(api, args, 1)
    profile.require_api(api)
    s, t = src.dtype, dst.dtype
    pairs = parse_pairs(profile)
    mode = _mode_name(api, roundMode, profile)
    if (s.name, t.name) not in pairs:
        listed = ", ".join(f"{a}->{b}" for a, b in pairs)
        raise UnsupportedError(api, "src.dtype/dst.dtype", f"{s.name}->{t.name}", listed, profile)
    modes, count_only = pairs[(s.name, t.name)]
    if count_only and not count_form:
        raise UnsupportedError(
            api, "src.dtype/dst.dtype", f"{s.name}->{t.name}", "the count prototype only", profile
        )
    # SPEC: int32 -> half "roundMode不生效，与SetDeqScale(half scale)接口配合使用": any round mode
    deq = "DEQSCALE" in modes
    if not deq and mode not in modes:
        allowed = ", ".join("CAST_" + m for m in sorted(modes))
        raise UsageError(api, "roundMode", "CAST_" + mode, allowed, profile, f"{s.name} -> {t.name}")
    if not (s.modelled and t.modelled):
        # the table lists the pair; the model has no rule for the 8-bit / packed 4-bit float types
        raise NotModelledError(f"Cast: {s.cpp} -> {t.cpp} is in the product's table but not modelled")
    sub_byte = min(s.bits, t.bits) < 8
    if sub_byte:
        _check_pairs_static(api, args, count_form, profile)
    for tt, name in ((dst, "dst"), (src, "src")):
        _masks.as_int(api, f"{name}.addr", tt.addr, profile)
    dst = LocalTensor(t, int(dst.addr), dst.length)
    src = LocalTensor(s, int(src.addr), src.length)
    big = s if s.bits >= t.bits else t
    if count_form:
        plan = _masks.plan_count_form(api, state, big, args[0], isSetMask, profile)
        # SPEC: "针对源操作数的连续n个数据进行计算并连续写入目的操作数" (连续计算.md): each operand is
        # contiguous, so a repeat of L lanes spans L * sizeof / 32 blocks of that operand
        L = profile.lanes(big)
        bb = profile.block_bytes
        dst_strides, src_strides = (1, L * t.bits // (8 * bb)), (1, L * s.bits // (8 * bb))
    else:
        mask, repeat_time, params = args
        plan = _masks.plan_high_dim(api, state, big, mask, repeat_time, params, isSetMask, profile)
        dblk, sblk, drep, srep = plan.strides
        dst_strides, src_strides = (dblk, drep), (sblk, srep)
    if plan.outcome == "nop":
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)
    fault = _faults_two_widths(
        plan, dst, src, t.bits, s.bits, dst_strides, src_strides, state.ub.size, profile
    )
    if sub_byte and _pairs_broken(plan):
        fault |= int(Fault.BAD_MASK)
    if fault:
        return _st.with_fault(state, fault)
    if deq:  # MODEL.md "SetDeqScale and the DEQSCALE conversions"
        f = deq_lane_function(profile, state)
    else:
        f = lane_function(s, t, mode, profile, _st.get_ctrl(state))
    bb = profile.block_bytes
    results = []
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            if plan.active[r][l]:
                Es, Ed = 8 * bb // s.bits, 8 * bb // t.bits
                sa = _lane_at(src.addr, r, l // Es, l % Es, src_strides, s, bb)
                da = _lane_at(dst.addr, r, l // Ed, l % Ed, dst_strides, t, bb)
                results.append((da, f(_read_lane(state.ub, sa, s))))
    out = _st.copy_state(state)
    for da, bits in results:
        _write_lane(out.ub, da, t, bits)
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)
    return out


def Truncate(state, dst, src, count, *, roundMode, profile):
    """Truncate(ISASI) ``<T, roundMode>(dst, src, count)``: each float rounded to an integral value
    by ``roundMode`` (RINT/ROUND/FLOOR/CEIL/TRUNC), T unchanged (类型转换/Truncate(ISASI).md). The
    element rule is Cast's same-type rule (``float32 -> float32``)."""
    api = "Truncate"
    profile = as_profile(profile)
    # SPEC: "roundMode ... CAST_RINT / CAST_ROUND / CAST_FLOOR / CAST_CEIL / CAST_TRUNC"
    mode = _mode_name(api, roundMode, profile)
    allowed = ("RINT", "ROUND", "FLOOR", "CEIL", "TRUNC")
    if mode not in allowed:
        raise UsageError(api, "roundMode", "CAST_" + mode, ", ".join("CAST_" + m for m in allowed), profile)

    def factory(d, p, ctrl):
        return lane_function(d, d, mode, p, ctrl)

    return _ew.run(api, state, dst, (src,), ("src",), (count,), profile, True, factory, count_only=True)
