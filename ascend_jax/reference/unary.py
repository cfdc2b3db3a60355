"""Abs, Relu, Exp, Ln, Sqrt, Rsqrt, Reciprocal, Neg(ISASI) (基础算术/) and Not (逻辑计算/):
``dst_i = f(src_i)``.

Prototypes: ``(dst, src, count)`` and ``(dst, src, mask[] | mask, repeatTime, repeatParams)`` with a
``UnaryRepeatParams`` (``isSetMask`` template flag); Neg(ISASI) has the count prototype only. The
950 config prototypes of Exp/Ln/Sqrt/Rsqrt/Reciprocal (``ExpConfig`` ...) are modelled with their
default (``INTRINSIC``) only. The lane loop is elementwise.py, the element semantics elem.py.
"""

from ..errors import NotModelledError
from ..profile import as_profile
from ..tensor import LocalTensor
from . import elem as _elem
from . import elementwise as _ew


def _unary(api, state, dst, src, args, profile, is_set_mask, count_only=False):
    def factory(d, p, ctrl):
        return _elem.lane_function(api, d, p, ctrl)

    return _ew.run(api, state, dst, (src,), ("src",), args, profile, is_set_mask, factory, count_only)


def Abs(state, dst, src, *args, profile, isSetMask=True):
    """``dst_i = |src_i|`` (基础算术/Abs.md); ``Abs<T, U>`` with a complex U (950's complex count
    prototype, ``apis.Abs.complex_pairs``) is documented, not modelled: NotModelledError."""
    p = as_profile(profile)
    if isinstance(dst, LocalTensor) and isinstance(src, LocalTensor) and len(args) == 1:
        pair = f"{src.dtype.name}->{dst.dtype.name}"
        if pair in p.api("Abs").complex_pairs:  # SPEC: "tensor前n个复数计算" (Abs.md, 950 only)
            raise NotModelledError(
                f"Abs<T, U>: the complex modulus {pair} is documented but not modelled yet"
            )
    return _unary("Abs", state, dst, src, args, profile, isSetMask)


def Relu(state, dst, src, *args, profile, isSetMask=True):
    """``dst_i = max(src_i, 0)`` (基础算术/Relu.md)."""
    return _unary("Relu", state, dst, src, args, profile, isSetMask)


def Exp(state, dst, src, *args, profile, isSetMask=True):
    """``dst_i = e^src_i`` (基础算术/Exp.md); results per ``apis.Exp.numerics``."""
    return _unary("Exp", state, dst, src, args, profile, isSetMask)


def Ln(state, dst, src, *args, profile, isSetMask=True):
    """``dst_i = ln(src_i)`` (基础算术/Ln.md); results per ``apis.Ln.numerics``."""
    return _unary("Ln", state, dst, src, args, profile, isSetMask)


def Sqrt(state, dst, src, *args, profile, isSetMask=True):
    """``dst_i = sqrt(src_i)`` (基础算术/Sqrt.md); results per ``apis.Sqrt.numerics``."""
    return _unary("Sqrt", state, dst, src, args, profile, isSetMask)


def Rsqrt(state, dst, src, *args, profile, isSetMask=True):
    """``dst_i = 1 / sqrt(src_i)`` (基础算术/Rsqrt.md); results per ``apis.Rsqrt.numerics``."""
    return _unary("Rsqrt", state, dst, src, args, profile, isSetMask)


def Reciprocal(state, dst, src, *args, profile, isSetMask=True):
    """``dst_i = 1 / src_i`` (基础算术/Reciprocal.md); results per ``apis.Reciprocal.numerics``."""
    return _unary("Reciprocal", state, dst, src, args, profile, isSetMask)


def Not(state, dst, src, *args, profile, isSetMask=True):
    """``dst_i = ~src_i`` bit by bit (逻辑计算/Not.md)."""
    return _unary("Not", state, dst, src, args, profile, isSetMask)


def Neg(state, dst, src, count, *, profile):
    """``dst_i = -src_i`` (基础算术/Neg(ISASI).md): the count prototype only (no isSetMask)."""
    # SPEC: "__aicore__ inline void Neg(const LocalTensor& dst, const LocalTensor& src,
    #       const uint32_t count)" -- the page's only prototype
    return _unary("Neg", state, dst, src, (count,), profile, True, count_only=True)
