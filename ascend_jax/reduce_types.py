"""``ReduceType`` and ``ReduceOrder`` (归约计算/ReduceRepeat.md, ReduceDataBlock.md, ReducePairElem.md):
the template / enum arguments of the reduction family, shared by the fast path and the reference
(like ``params``). Strings ("SUM", "ORDER_VALUE_INDEX") are accepted wherever the enums are."""

import enum

from .errors import UsageError


class ReduceType(enum.StrEnum):
    SUM = "SUM"
    MAX = "MAX"
    MIN = "MIN"


class ReduceOrder(enum.StrEnum):
    ORDER_VALUE_INDEX = "ORDER_VALUE_INDEX"
    ORDER_INDEX_VALUE = "ORDER_INDEX_VALUE"
    ORDER_ONLY_VALUE = "ORDER_ONLY_VALUE"
    ORDER_ONLY_INDEX = "ORDER_ONLY_INDEX"


def as_reduce_type(api, value, allowed, profile):
    """The reduceType as its name ("SUM" | "MAX" | "MIN"), checked against ``allowed``."""
    name = value.value if isinstance(value, ReduceType) else value
    if not isinstance(name, str) or name not in allowed:
        raise UsageError(api, "reduceType", value, " | ".join(f"ReduceType.{a}" for a in allowed), profile)
    return name


def as_reduce_order(api, value, profile):
    """The ReduceOrder as its name, checked against the product's ``apis.ReduceRepeat.orders``."""
    name = value.value if isinstance(value, ReduceOrder) else value
    allowed = profile.api(api).orders
    if not isinstance(name, str) or name not in allowed:
        # SPEC: "不同芯片支持的ReduceOrder如下" (ReduceRepeat.md 约束说明)
        raise UsageError(api, "order", value, " | ".join(f"ReduceOrder.{a}" for a in allowed), profile)
    return name


def dst_unit_bytes(reduce_type, order, itemsize):
    """Bytes ReduceRepeat writes per repeat = its dst alignment and dstRepStride unit (ReduceRepeat.md
    表3): SUM / ONLY_VALUE one element, VALUE_INDEX / INDEX_VALUE two, ONLY_INDEX a uint32."""
    if reduce_type == "SUM" or order == "ORDER_ONLY_VALUE":
        return itemsize
    if order == "ORDER_ONLY_INDEX":
        return 4
    return 2 * itemsize


def tmp_need_elems(api, first_repeats, L, E, cal_index, sum_order=None):
    """Elements of sharedTmpBuffer the page's formula requires (ReduceMax.md / ReduceSum.md 关键特性说明);
    ``first_repeats`` is firstMaxRepeat."""

    def up(a, b):
        return -(-a // b)

    if api == "ReduceSum":
        if sum_order == "sequential_repeats":
            return 0  # SPEC: "方式一：传入任意大小的sharedTmpBuffer，sharedTmpBuffer不会被使用"
        return up(first_repeats, E) * E
    out1 = first_repeats * 2
    if not cal_index:
        return up(out1, E) * E
    start2 = up(out1, E) * E
    out2 = up(out1, L) * 2
    need = start2 + up(out2, E) * E
    if out2 > 2:
        start3 = up(out2, E) * E
        out3 = up(out2, L) * 2
        need = start2 + start3 + up(out3, E) * E
    return need
