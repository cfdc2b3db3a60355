"""Ascend C repeat-parameter structs, with the C++ field names, order and defaults.

Fields may hold Python ints (static) or traced JAX integers (so a vmap sweep over strides does not
recompile). Range checks on Python ints happen in the API entry; traced values out of range record
``Fault.BAD_PARAM``.
"""

import dataclasses

import jax


def _pytree_dataclass(cls):
    cls = dataclasses.dataclass(frozen=True)(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    jax.tree_util.register_pytree_node(
        cls,
        lambda o: (tuple(getattr(o, n) for n in names), None),
        lambda _, children: cls(*children),
    )
    cls._field_ranges = {n: cls._RANGES[n] for n in names}
    return cls


@_pytree_dataclass
class UnaryRepeatParams:
    """``UnaryRepeatParams{dstBlkStride(u16)=1, srcBlkStride(u16)=1, dstRepStride(u8)=8, srcRepStride(u8)=8}``.

    Units are 32-byte DataBlocks. ``halfBlock`` and the reserved fields are not modelled.
    """

    dstBlkStride: object = 1
    srcBlkStride: object = 1
    dstRepStride: object = 8
    srcRepStride: object = 8

    _RANGES = {
        "dstBlkStride": 65535,
        "srcBlkStride": 65535,
        "dstRepStride": 255,
        "srcRepStride": 255,
    }


@_pytree_dataclass
class BinaryRepeatParams:
    """``BinaryRepeatParams{dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride, src0RepStride,
    src1RepStride}``, all uint8, defaults 1, 1, 1, 8, 8, 8 (DataBlock units)."""

    dstBlkStride: object = 1
    src0BlkStride: object = 1
    src1BlkStride: object = 1
    dstRepStride: object = 8
    src0RepStride: object = 8
    src1RepStride: object = 8

    _RANGES = {
        "dstBlkStride": 255,
        "src0BlkStride": 255,
        "src1BlkStride": 255,
        "dstRepStride": 255,
        "src0RepStride": 255,
        "src1RepStride": 255,
    }


def as_unary_params(p):
    if p is None:
        return UnaryRepeatParams()
    if isinstance(p, UnaryRepeatParams):
        return p
    if isinstance(p, (tuple, list)):
        return UnaryRepeatParams(*p)
    if isinstance(p, dict):
        return UnaryRepeatParams(**p)
    raise TypeError(f"expected UnaryRepeatParams (or a 4-tuple), got {p!r}")


def as_binary_params(p):
    if p is None:
        return BinaryRepeatParams()
    if isinstance(p, BinaryRepeatParams):
        return p
    if isinstance(p, (tuple, list)):
        return BinaryRepeatParams(*p)
    if isinstance(p, dict):
        return BinaryRepeatParams(**p)
    raise TypeError(f"expected BinaryRepeatParams (or a 6-tuple), got {p!r}")
