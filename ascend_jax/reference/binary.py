"""Add, Sub, Mul, Div, Max, Min (基础算术/) and And, Or (逻辑计算/): ``dst_i = f(src0_i, src1_i)``.

Prototypes (every page): ``(dst, src0, src1, count)`` (tensor前n个数据计算) and
``(dst, src0, src1, mask[] | mask, repeatTime, repeatParams)`` (tensor高维切分计算, mask 逐bit / 连续
mode, ``isSetMask`` template flag) with a ``BinaryRepeatParams``. The lane loop is elementwise.py,
the element semantics elem.py.
"""

from . import elem as _elem
from . import elementwise as _ew

_SRC_NAMES = ("src0", "src1")


def _binary(api, state, dst, src0, src1, args, profile, is_set_mask):
    def factory(d, p, ctrl):
        return _elem.lane_function(api, d, p, ctrl)

    return _ew.run(api, state, dst, (src0, src1), _SRC_NAMES, args, profile, is_set_mask, factory)


def Add(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = src0_i + src1_i`` (基础算术/Add.md)."""
    return _binary("Add", state, dst, src0, src1, args, profile, isSetMask)


def Sub(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = src0_i - src1_i`` (基础算术/Sub.md)."""
    return _binary("Sub", state, dst, src0, src1, args, profile, isSetMask)


def Mul(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = src0_i × src1_i`` (基础算术/Mul.md)."""
    return _binary("Mul", state, dst, src0, src1, args, profile, isSetMask)


def Div(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = src0_i / src1_i`` (基础算术/Div.md); results per ``apis.Div.numerics``."""
    return _binary("Div", state, dst, src0, src1, args, profile, isSetMask)


def Max(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = max(src0_i, src1_i)`` (基础算术/Max.md)."""
    return _binary("Max", state, dst, src0, src1, args, profile, isSetMask)


def Min(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = min(src0_i, src1_i)`` (基础算术/Min.md)."""
    return _binary("Min", state, dst, src0, src1, args, profile, isSetMask)


def And(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = src0_i & src1_i`` bit by bit (逻辑计算/And.md)."""
    return _binary("And", state, dst, src0, src1, args, profile, isSetMask)


def Or(state, dst, src0, src1, *args, profile, isSetMask=True):
    """``dst_i = src0_i | src1_i`` bit by bit (逻辑计算/Or.md)."""
    return _binary("Or", state, dst, src0, src1, args, profile, isSetMask)
