"""Adds, Muls, Maxs, Mins: ``dst_i = f(src_i, scalarValue)`` for every active lane.

Call forms (``*args``):
* ``(count,)``                                  tensor前n个数据计算 (level 2)
* ``(mask, repeatTime, repeatParams)``          tensor高维切分计算 (level 0); ``mask`` is an int
  (连续模式), a list of uint64 words (逐bit模式) or ``MASK_PLACEHOLDER`` with ``isSetMask=False``.

Order of work, literally: static checks -> lane plan (masks.py) -> faults (faults.py; a faulting
call only ORs its fault bits) -> read every active src lane -> compute -> write the active lanes in
program order (repeat, block, lane; the later write wins) -> register side effects.
"""

from .. import dtypes as _dt
from ..errors import UsageError
from ..profile import as_profile
from ..tensor import LocalTensor
from . import binary_scalar as _binary_scalar_flexible
from . import faults as _faults
from . import masks as _masks
from . import numerics as _num
from . import state as _st

_FLOAT_OPS = {"Adds": _num.f_add, "Muls": _num.f_mul, "Maxs": _num.f_max, "Mins": _num.f_min}
_INT_OPS = {"Adds": _num.i_add, "Muls": _num.i_mul, "Maxs": _num.i_max, "Mins": _num.i_min}


def _check_static(api, dst, src, args, profile, is_set_mask):
    for t, name in ((dst, "dst"), (src, "src")):
        if not isinstance(t, LocalTensor):
            raise UsageError(api, name, t, "a LocalTensor", profile)
    if not isinstance(is_set_mask, bool):
        raise UsageError(api, "isSetMask", is_set_mask, "True or False", profile)
    if len(args) == 1:
        count_form = True
    elif len(args) == 3:
        count_form = False
    else:
        raise TypeError(
            f"{api}: expected (count,) or (mask, repeatTime, repeatParams) after scalarValue, "
            f"got {len(args)} arguments"
        )
    # SPEC: "T和U支持的数据类型为：int16_t、half、int32_t、float" (A2, 基础算术/Adds.md) ... per product;
    #       some dtypes "仅支持tensor前n个数据计算接口" (950) -> ApiSupport.count_only_dtypes.
    profile.require_api(api, dst.dtype, count_form=count_form)
    # SPEC: both tensors are LocalTensor<T> of the same T (prototype "const LocalTensor<T>& dst,
    #       const LocalTensor<T>& src")
    if dst.dtype != src.dtype:
        raise UsageError(api, "src.dtype", src.dtype.name, f"{dst.dtype.name} (= dst.dtype)", profile)
    for t, name in ((dst, "dst"), (src, "src")):
        _masks.as_int(api, f"{name}.addr", t.addr, profile)  # concrete integer byte address
    return count_form


def _binary_scalar(api, state, dst, src, scalar_value, args, profile, is_set_mask):
    profile = as_profile(profile)
    count_form = _check_static(api, dst, src, args, profile, is_set_mask)
    d = dst.dtype
    dst = LocalTensor(d, int(dst.addr), dst.length)
    src = LocalTensor(d, int(src.addr), src.length)
    if d.kind == "complex":
        scalar_bits = None  # converted per component below
    else:
        scalar_bits = _num.scalar_to_bits(api, scalar_value, d, profile)

    # -- which lanes -----------------------------------------------------------------------
    if count_form:
        plan = _masks.plan_count_form(api, state, d, args[0], is_set_mask, profile)
    else:
        mask, repeat_time, repeat_params = args
        plan = _masks.plan_high_dim(api, state, d, mask, repeat_time, repeat_params, is_set_mask, profile)
    if plan.outcome == "nop":
        # SPEC: "不会执行计算操作，不会对目的操作数进行写入，该接口将被视为NOP" (基础算术/Adds.md)
        return _st.copy_state(state)
    if plan.outcome == "fault":
        return _st.with_fault(state, plan.fault)

    # -- faults (suppress the whole call) --------------------------------------------------
    fault = _faults.check_faults(api, plan, dst, src, d.itemsize, state.ub.size, profile)
    if fault:
        return _st.with_fault(state, fault)

    # -- numerics set-up -------------------------------------------------------------------
    ctrl = _st.get_ctrl(state)
    if d.kind == "complex":
        compute = _complex_compute(api, scalar_value, d, profile, ctrl)
    elif d.is_float:
        fmt = _num.float_format(d)
        saturate = _num.float_saturating(profile, d, ctrl)
        scalar_val = _num.read_float_input(scalar_bits, fmt, profile)
        op = _FLOAT_OPS[api]

        def compute(src_bits):
            a = _num.read_float_input(src_bits, fmt, profile)
            return _num.finish_float(op(a, scalar_val), fmt, profile, saturate)

    else:
        saturate = _num.int_saturating(profile, ctrl)
        scalar_val = _num.bits_to_int(scalar_bits, d)
        op = _INT_OPS[api]

        def compute(src_bits):
            a = _num.bits_to_int(src_bits, d)
            v = op(a, scalar_val)  # exact Python int
            v = _num.saturate_int(v, d) if saturate else _num.wrap_int(v, d)
            return _num.int_to_bits(v, d)

    size = d.itemsize
    bb = profile.block_bytes
    E = bb // size
    dst_blk, src_blk, dst_rep, src_rep = plan.strides

    # -- read every active src lane, compute (MODEL.md: all src lanes are read before any write)
    results = []  # (dst byte address, result bits) in program order
    src_lanes = []  # the checker's view (lane_warnings)
    for r in range(plan.repeats):
        for l in range(plan.lanes):
            if not plan.active[r][l]:
                continue  # SPEC: "mask为0时，目的操作数保持原值" (掩码/通用说明.md)
            b, e = l // E, l % E
            sa = _faults.lane_address(src.addr, r, b, e, src_blk, src_rep, size, bb)
            da = _faults.lane_address(dst.addr, r, b, e, dst_blk, dst_rep, size, bb)
            results.append((da, compute(_st.read_bits(state.ub, sa, size))))
            src_lanes.append(sa)

    # -- write in program order: a later lane writing the same address wins ----------------
    out = _st.copy_state(state)
    for da, bits in results:
        _st.write_bits(out.ub, da, size, bits)
    _st.lane_warnings(state, out, api, dst, [da for da, _ in results], [("src", src, src_lanes)], size)

    # -- register side effects of the call -------------------------------------------------
    if plan.new_vmask is not None:
        _st.set_vmask(out, plan.new_vmask, profile)
    if plan.new_mask_mode is not None:
        out.mask_mode = int(plan.new_mask_mode)
    return out


def _complex_compute(api, scalar_value, d, profile, ctrl):
    """complex32 = Complex<half>, complex64 = Complex<float> (内置数据类型.md): real part at the
    lower address. Adds: each part separately. Muls: (a+bi)(c+di) = (ac-bd) + (ad+bc)i with each
    product rounded to the part type first, then each sum rounded once (MODEL.md CHOICE: the docs
    give no rounding rule for complex multiplication)."""
    part = _dt.half if d.name == "complex32" else _dt.float32
    fmt = _num.float_format(part)
    w = 8 * part.itemsize
    mask = (1 << w) - 1
    if not isinstance(scalar_value, (int, float, complex)):
        raise UsageError(api, "scalarValue", scalar_value, "a Python number", profile)
    c = complex(scalar_value)
    sr = _num.read_float_input(_num.round_to_bits(c.real, fmt), fmt, profile)
    si = _num.read_float_input(_num.round_to_bits(c.imag, fmt), fmt, profile)
    saturate = _num.float_saturating(profile, part, ctrl)

    def rounded(x):  # an intermediate product: rounded to the part type, nothing else
        return _num.decode(_num.round_to_bits(x, fmt), fmt)

    def compute(src_bits):
        a = _num.read_float_input(src_bits & mask, fmt, profile)
        b = _num.read_float_input(src_bits >> w, fmt, profile)
        if api == "Adds":
            re, im = _num.f_add(a, sr), _num.f_add(b, si)
        else:
            re = _num.f_add(rounded(_num.f_mul(a, sr)), -rounded(_num.f_mul(b, si)))
            im = _num.f_add(rounded(_num.f_mul(a, si)), rounded(_num.f_mul(b, sr)))
        return _num.finish_float(re, fmt, profile, saturate) | (
            _num.finish_float(im, fmt, profile, saturate) << w
        )

    return compute


def Adds(state, dst, src, scalarValue, *args, profile, isSetMask=True, config=None):
    """``dst_i = src_i + scalarValue`` (基础算术/Adds.md)."""
    if _masks.flexible_overload("AddsFlexible", as_profile(profile), src, scalarValue, config):
        return _binary_scalar_flexible.AddsFlexible(
            state, dst, src, scalarValue, *args, profile=profile, isSetMask=isSetMask, config=config
        )
    return _binary_scalar("Adds", state, dst, src, scalarValue, args, profile, isSetMask)


def Muls(state, dst, src, scalarValue, *args, profile, isSetMask=True, config=None):
    """``dst_i = src_i × scalarValue`` (基础算术/Muls.md)."""
    if _masks.flexible_overload("MulsFlexible", as_profile(profile), src, scalarValue, config):
        return _binary_scalar_flexible.MulsFlexible(
            state, dst, src, scalarValue, *args, profile=profile, isSetMask=isSetMask, config=config
        )
    return _binary_scalar("Muls", state, dst, src, scalarValue, args, profile, isSetMask)


def Maxs(state, dst, src, scalarValue, *args, profile, isSetMask=True, config=None):
    """``dst_i = max(src_i, scalarValue)`` (基础算术/Maxs.md)."""
    if _masks.flexible_overload("MaxsFlexible", as_profile(profile), src, scalarValue, config):
        return _binary_scalar_flexible.MaxsFlexible(
            state, dst, src, scalarValue, *args, profile=profile, isSetMask=isSetMask, config=config
        )
    return _binary_scalar("Maxs", state, dst, src, scalarValue, args, profile, isSetMask)


def Mins(state, dst, src, scalarValue, *args, profile, isSetMask=True, config=None):
    """``dst_i = min(src_i, scalarValue)`` (基础算术/Mins.md)."""
    if _masks.flexible_overload("MinsFlexible", as_profile(profile), src, scalarValue, config):
        return _binary_scalar_flexible.MinsFlexible(
            state, dst, src, scalarValue, *args, profile=profile, isSetMask=isSetMask, config=config
        )
    return _binary_scalar("Mins", state, dst, src, scalarValue, args, profile, isSetMask)
