"""Fast-path element functions of the composite ops (复合计算/): chains of the element-wise family's
element functions (``elem_math``), each step rounded and finished (flush, CTRL saturation,
canonical NaN) as the stand-alone API of that step -- FusedMulAdd is two roundings (docs/MODEL.md
"Composite ops"; the pages' result examples decide it).

Every function takes ``(x, y, d, s, dtype, profile, ctrl)``: the two source lanes, dst's old lanes
(``d``; read by the strided core with ``read_dst``) and the scalar bits (Axpy); the ones that do
not need an operand ignore it.
"""

import jax.numpy as jnp

from .. import dtypes as _dt
from ..errors import NotModelledError
from . import convert as CV
from . import elem_math as EM

U32 = jnp.uint32
_HALF = _dt.as_dtype("half")
_F32 = _dt.as_dtype("float32")


def add_relu(x, y, d, s, dtype, p, c):
    """``AddRelu``: Relu(x + y)."""
    return EM.relu(EM.add(x, y, dtype, p, c), dtype, p, c)


def sub_relu(x, y, d, s, dtype, p, c):
    """``SubRelu``: Relu(x - y)."""
    return EM.relu(EM.sub(x, y, dtype, p, c), dtype, p, c)


def abs_sub(x, y, d, s, dtype, p, c):
    """``AbsSub``: |x - y|."""
    return EM.abs_(EM.sub(x, y, dtype, p, c), dtype, p, c)


def fused_mul_add(x, y, d, s, dtype, p, c):
    """``FusedMulAdd``: (x * dst) + y, two roundings."""
    return EM.add(EM.mul(x, d, dtype, p, c), y, dtype, p, c)


def mul_add_relu(x, y, d, s, dtype, p, c):
    """``MulAddRelu``: Relu((x * dst) + y)."""
    return EM.relu(fused_mul_add(x, y, d, s, dtype, p, c), dtype, p, c)


def mul_add_dst(x, y, d, s, dtype, p, c):
    """``MulAddDst``: x * y + dst."""
    return EM.add(EM.mul(x, y, dtype, p, c), d, dtype, p, c)


def axpy(x, d, s, dtype, p, c):
    """``Axpy``: scalar * x + dst (the scalar already T's bits; [2] pair for 64-bit T)."""
    return EM.add(EM.mul(x, jnp.broadcast_to(jnp.asarray(s, U32), x.shape), dtype, p, c), d, dtype, p, c)


def _widen(x, src, p, c):
    """Half lanes as float32 (the Cast half -> float32 of the stand-alone API: exact)."""
    return CV.convert(x, src, _F32, CV.MODES["RINT"], p, c)


def mul_add_dst_mixed(x, y, d, s, dtype, p, c, dyn=None, src=None):
    """``MulAddDst`` with half sources and a float32 dst: each source widened to float32 (exact),
    the float32 product (exact: 11 x 11 significand bits), then the float32 sum rounded once.
    SPEC (MulAddDst.md 结果示例): the page's half x half + float example is reproduced only by the
    unrounded product (a product rounded to half first differs in all 256 lanes)."""
    src = src or _HALF
    return EM.add(EM.mul(_widen(x, src, p, c), _widen(y, src, p, c), _F32, p, c), d, _F32, p, c)


def axpy_mixed(x, d, s, dtype, p, c, dyn=None, src=None):
    """``Axpy`` with a half src and scalar and a float32 dst: both widened to float32 (exact), the
    float32 product (exact), then the float32 sum rounded once (as MulAddDst's mixed row)."""
    src = src or _HALF
    k = jnp.broadcast_to(jnp.asarray(s, U32), x.shape)
    return EM.add(EM.mul(_widen(x, src, p, c), _widen(k, src, p, c), _F32, p, c), d, _F32, p, c)


def prelu(x, y, d, s, dtype, p, c):
    """``Prelu`` (基础算术/Prelu(ISASI).md): x if x >= 0 (-0 included) else x * y rounded once --
    LeakyRelu's element function with a per-lane slope."""
    if not dtype.is_float:
        raise NotModelledError(f"Prelu: {dtype.name} has no element function")
    return EM.leaky_relu(x, y, dtype, p, c)


BINARY = {
    "AddRelu": add_relu,
    "SubRelu": sub_relu,
    "AbsSub": abs_sub,
    "FusedMulAdd": fused_mul_add,
    "MulAddRelu": mul_add_relu,
    "MulAddDst": mul_add_dst,
    "Prelu": prelu,
}
