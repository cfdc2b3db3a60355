"""Tensor-scalar APIs of the element-wise family (issue 15):

* the 灵活标量位置 (flexible scalar position) APIs ``Subs``, ``Divs``, ``Ands``, ``Ors`` and the
  flexible variants of Adds/Muls/Maxs/Mins (``AddsFlexible``, ``MulsFlexible``, ``MaxsFlexible``,
  ``MinsFlexible``): ``dst_i = f(src_i, scalar)`` or ``f(scalar, src_i)``;
* ``LeakyRelu``: ``dst_i = src_i`` if ``src_i >= 0`` else ``scalarValue × src_i``.

Flexible prototypes (every page): ``(dst, src0, src1, count)`` and ``(dst, src0, src1, mask[] | mask,
repeatTime, repeatParams)`` with a ``UnaryRepeatParams``, ``isSetMask`` and ``config``
(``BinaryConfig``). Exactly one of src0/src1 is the scalar: a Python number given in that position,
or -- when both are LocalTensors -- element 0 of the tensor ``config.scalarTensorIndex`` names
(0 = left, 1 = right; default 1, DEFAULT_BINARY_CONFIG). An element scalar is read from UB before
the call writes; its bytes must lie inside UB (``OUT_OF_UB``), have no alignment rule, and may not
intersect an active dst block (``PARTIAL_OVERLAP``: "源操作数为LocalTensor单点元素的场景，不支持源操作和
目的操作数地址重叠").
"""

from ..errors import Fault, UsageError
from ..profile import as_profile
from ..tensor import LocalTensor
from . import elem as _elem
from . import elementwise as _ew
from . import faults as _faults
from . import masks as _masks
from . import numerics as _num
from . import state as _st

# the flexible APIs and the element operation each applies
FLEX_OPS = {
    "Subs": "Sub",
    "Divs": "Div",
    "Ands": "And",
    "Ors": "Or",
    "AddsFlexible": "Add",
    "MulsFlexible": "Mul",
    "MaxsFlexible": "Max",
    "MinsFlexible": "Min",
}


def _scalar_index(api, src0, src1, config, profile):
    """(position of the scalar: 0 or 1, whether it is a tensor element)."""
    t0, t1 = isinstance(src0, LocalTensor), isinstance(src1, LocalTensor)
    if not t0 and not t1:
        # SPEC: "当前不支持左右操作数同时为标量" (基础算术/Subs（灵活标量位置）.md 约束说明)
        raise UsageError(api, "src0/src1", (src0, src1), "one LocalTensor operand", profile, "two scalars")
    if t0 and t1:
        # SPEC: "BinaryConfig ... 默认值DEFAULT_BINARY_CONFIG，表示右操作数为标量" (same page)
        idx = 1 if config is None else getattr(config, "scalarTensorIndex", config)
        idx = _masks.as_int(api, "config.scalarTensorIndex", idx, profile)
        if idx not in (0, 1):
            raise UsageError(api, "config.scalarTensorIndex", idx, "0 or 1", profile)
        return idx, True
    return (1 if t0 else 0), False


def _flexible(api, state, dst, src0, src1, args, profile, is_set_mask, config):
    profile = as_profile(profile)
    if not isinstance(dst, LocalTensor):
        raise UsageError(api, "dst", dst, "a LocalTensor", profile)
    d = dst.dtype
    pos, element = _scalar_index(api, src0, src1, config, profile)
    names = ("src0", "src1")
    vec, vec_name = (src1, "src1") if pos == 0 else (src0, "src0")
    scalar = src0 if pos == 0 else src1
    scalar_name = names[pos]
    if element:
        if scalar.dtype != d:
            raise UsageError(
                api, f"{scalar_name}.dtype", scalar.dtype.name, f"{d.name} (= dst.dtype)", profile
            )
        e_addr = _masks.as_int(api, f"{scalar_name}.addr", scalar.addr, profile)
        scalar_bits = None
    else:
        # the dtype table is checked by the lane loop first; the number converts to T here
        e_addr = None
        _ew.check_static(api, dst, (vec,), (vec_name,), args, profile, is_set_mask)
        scalar_bits = _num.scalar_to_bits(api, scalar, d, profile)

    size = d.itemsize
    bb = profile.block_bytes

    def extra_faults(plan, dst_t, dst_strides):
        if e_addr is None:
            return 0
        fault = 0
        limit = min(state.ub.size, profile.ub_usable_bytes)
        if e_addr < 0 or e_addr + size > limit:
            fault |= Fault.OUT_OF_UB
        E = bb // size
        for r, b in _faults.active_blocks(plan, E):
            a = _faults.block_address(dst_t.addr, r, b, dst_strides[0], dst_strides[1], bb)
            if e_addr < a + bb and a < e_addr + size:
                fault |= Fault.PARTIAL_OVERLAP
                break
        return int(fault)

    def factory(dd, p, ctrl):
        f = _elem.lane_function(FLEX_OPS[api], dd, p, ctrl)
        s_bits = scalar_bits if e_addr is None else _st.read_bits(state.ub, e_addr, size)
        if pos == 0:
            return lambda x: f(s_bits, x)
        return lambda x: f(x, s_bits)

    return _ew.run(
        api, state, dst, (vec,), (vec_name,), args, profile, is_set_mask, factory, extra_faults=extra_faults
    )


def Subs(state, dst, src0, src1, *args, profile, isSetMask=True, config=None):
    """``dst_i = src_i - scalar`` or ``scalar - src_i`` (基础算术/Subs（灵活标量位置）.md)."""
    return _flexible("Subs", state, dst, src0, src1, args, profile, isSetMask, config)


def Divs(state, dst, src0, src1, *args, profile, isSetMask=True, config=None):
    """``dst_i = src_i / scalar`` or ``scalar / src_i`` (基础算术/Divs（灵活标量位置）.md); results per
    ``apis.Div.numerics``."""
    return _flexible("Divs", state, dst, src0, src1, args, profile, isSetMask, config)


def Ands(state, dst, src0, src1, *args, profile, isSetMask=True, config=None):
    """``dst_i = src_i & scalar`` (逻辑计算/Ands.md)."""
    return _flexible("Ands", state, dst, src0, src1, args, profile, isSetMask, config)


def Ors(state, dst, src0, src1, *args, profile, isSetMask=True, config=None):
    """``dst_i = src_i | scalar`` (逻辑计算/Ors.md)."""
    return _flexible("Ors", state, dst, src0, src1, args, profile, isSetMask, config)


def AddsFlexible(state, dst, src0, src1, *args, profile, isSetMask=True, config=None):
    """Adds（灵活标量位置）: ``dst_i = src_i + scalar`` or ``scalar + src_i``."""
    return _flexible("AddsFlexible", state, dst, src0, src1, args, profile, isSetMask, config)


def MulsFlexible(state, dst, src0, src1, *args, profile, isSetMask=True, config=None):
    """Muls（灵活标量位置）: ``dst_i = src_i × scalar`` or ``scalar × src_i``."""
    return _flexible("MulsFlexible", state, dst, src0, src1, args, profile, isSetMask, config)


def MaxsFlexible(state, dst, src0, src1, *args, profile, isSetMask=True, config=None):
    """Maxs（灵活标量位置）: ``dst_i = max(src_i, scalar)``."""
    return _flexible("MaxsFlexible", state, dst, src0, src1, args, profile, isSetMask, config)


def MinsFlexible(state, dst, src0, src1, *args, profile, isSetMask=True, config=None):
    """Mins（灵活标量位置）: ``dst_i = min(src_i, scalar)``."""
    return _flexible("MinsFlexible", state, dst, src0, src1, args, profile, isSetMask, config)


# ---------------------------------------------------------------------------------------------
# LeakyRelu


def leaky_relu_lane(d, profile, ctrl, scalar_bits):
    """One lane of LeakyRelu: ``x`` if ``x >= 0`` (so -0 stays -0), else ``scalarValue × x``
    rounded once; NaN (not >= 0) goes through the product and comes out canonical."""
    fmt = _num.float_format(d)
    saturate = _num.float_saturating(profile, d, ctrl)
    alpha = _num.read_float_input(scalar_bits, fmt, profile)

    def f(x_bits):
        x = _num.read_float_input(x_bits, fmt, profile)
        # SPEC: "dst_i = src_i, src_i >= 0; scalarValue × src_i, src_i < 0" (基础算术/LeakyRelu.md)
        v = x if x >= 0 else _num.f_mul(alpha, x)
        return _num.finish_float(v, fmt, profile, saturate)

    return f


def LeakyRelu(state, dst, src, scalarValue, *args, profile, isSetMask=True):
    """``dst_i = src_i >= 0 ? src_i : scalarValue × src_i`` (基础算术/LeakyRelu.md)."""
    api = "LeakyRelu"
    profile = as_profile(profile)
    _ew.check_static(api, dst, (src,), ("src",), args, profile, isSetMask)
    d = dst.dtype
    # SPEC: "scalarValue ... 数据类型需要与目的操作数中的元素类型保持一致": converted to T first
    scalar_bits = _num.scalar_to_bits(api, scalarValue, d, profile)

    def factory(dd, p, ctrl):
        return leaky_relu_lane(dd, p, ctrl, scalar_bits)

    return _ew.run(api, state, dst, (src,), ("src",), args, profile, isSetMask, factory)
