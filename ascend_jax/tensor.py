"""``LocalTensor``: a typed view of UB bytes (dtype, byte address, length in elements).

The address may be a Python int or a traced JAX integer; dtype and length are static.
"""

import dataclasses
import numbers

import jax

from . import _scalar
from . import dtypes as _dt
from .errors import UsageError


@dataclasses.dataclass(frozen=True)
class LocalTensor:
    dtype: _dt.DType
    addr: object  # byte address in UB (int or traced int32)
    length: int  # elements
    name: str = ""
    # the TQue/TBuf buffer this tensor lives in (None for k.alloc / hand-made tensors); not part of
    # the pytree, so it never reaches a compiled program (see ascend_jax/pipe.py)
    handle: object = dataclasses.field(default=None, compare=False, repr=False)
    _ub_tensor = True  # class attribute, not a field: display.tensor_html's UB layout (no import back)

    def __post_init__(self):
        object.__setattr__(self, "dtype", _dt.as_dtype(self.dtype))

    def __getitem__(self, offset):
        """Ascend C ``operator[]``: the tensor starting ``offset`` elements later."""
        if isinstance(offset, slice):
            raise TypeError("LocalTensor[...] takes an element offset (as C++ operator[]), not a slice")
        # a host integer (Python, NumPy, concrete jax) is checked against the length here; only a
        # tracer stays traced; a float or a bool is a UsageError (_scalar.element_offset)
        offset, length = _scalar.element_offset("LocalTensor::operator[]", offset, self.length)
        bits = self.dtype.bits
        if bits < 8 and not (isinstance(offset, int) and offset * bits % 8 == 0):
            # a sub-byte element at an odd index has no byte address of its own
            raise UsageError(
                "LocalTensor::operator[]",
                "offset",
                offset,
                f"a Python int multiple of {8 // bits} for {self.dtype.cpp} (a whole byte)",
                "any",
            )
        return LocalTensor(self.dtype, self.addr + offset * bits // 8, length, self.name, self.handle)

    def ReinterpretCast(self, dtype):
        """The same bytes viewed as ``dtype``; the byte length must be a whole number of the new
        elements (UsageError otherwise -- a silent floor would lose the tail)."""
        d = _dt.as_dtype(dtype)
        # sizes in bits: int4b_t is half a byte (Cast.md: "一个int4b_t只占半个字节", so an int8_t
        # tensor of n elements is an int4b_t tensor of 2n)
        total = self.length * self.dtype.bits
        if total % d.bits:
            raise UsageError(
                "ReinterpretCast",
                "dtype",
                d.name,
                f"an element type whose size divides the tensor's {total} bits",
                "any",
                f"{self!r} is {total} bits, not a multiple of sizeof({d.cpp}) = {d.bits} bits",
            )
        return LocalTensor(d, self.addr, total // d.bits, self.name, self.handle)

    def GetSize(self):
        """Ascend C ``GetSize()``: the number of elements (an int4b_t view of n int8_t: 2n)."""
        return self.length

    def SetSize(self, size):
        """Ascend C ``SetSize(uint32_t size)`` (LocalTensor/SetSize.md, every product): this tensor's
        size becomes ``size`` elements, in place, as the C++ member function does ("当用户重用local
        tensor变量且使用长度发生变化的时候，需要使用此接口重新设置Size"); the address is unchanged.
        ``size``: a Python int in [0, 2^32-1] (a UsageError otherwise). Views made before keep theirs."""
        if isinstance(size, bool) or not isinstance(size, numbers.Integral) or not 0 <= size <= 2**32 - 1:
            raise UsageError("SetSize", "size", size, "a Python int in [0, 2^32-1] (uint32_t)", "any")
        object.__setattr__(self, "length", int(size))

    def GetLength(self):
        return self.dtype.nbytes_of(self.length)

    def GetPhyAddr(self):
        return self.addr

    @property
    def nbytes(self):
        return self.dtype.nbytes_of(self.length)

    def __repr__(self):
        a = self.addr if isinstance(self.addr, int) else "<traced>"
        n = f"{self.name}: " if self.name else ""
        return f"LocalTensor({n}{self.dtype.cpp}[{self.length}] @ UB+{a})"

    def _repr_html_(self):
        try:
            from .display import tensor_html
        except ImportError:
            return None
        return tensor_html(self)


jax.tree_util.register_pytree_node(
    LocalTensor,
    lambda t: ((t.addr,), (t.dtype, t.length, t.name)),
    lambda aux, ch: LocalTensor(aux[0], ch[0], aux[1], aux[2]),
)


class _MaskPlaceholder:
    """``MASK_PLACEHOLDER``: the mask argument of a high-dim call with ``isSetMask=False``."""

    def __repr__(self):
        return "MASK_PLACEHOLDER"


MASK_PLACEHOLDER = _MaskPlaceholder()
