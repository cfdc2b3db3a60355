"""``GlobalTensor``: a typed view of one Global Memory (GM) buffer.

GM is modelled as a tuple of byte arrays (``uint8[n]``, one per buffer a kernel receives); a
GlobalTensor names its buffer by index (``buf``), a byte offset into it (``addr``; a Python int or
a traced int32) and a static length in elements. ``gm[i]`` is the tensor ``i`` elements later
(Ascend C ``operator[]``). The bytes themselves never live in the tensor: the pure data-movement
APIs take and return the GM tuple (``ascend_jax.api.data_copy``), the ``Kernel`` keeps it.

Spec: GlobalTensor/GlobalTensor简介.md, operator.md, ReinterpretCast.md, GetSize.md, GetPhyAddr.md.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import _scalar
from . import dtypes as _dt
from .errors import Fault, UsageError

# Fault bit for a data-dependent GM access outside its buffer. errors.Fault gains OUT_OF_GM with
# issue 5; until then the bit is shared with OUT_OF_UB (the message names both).
OUT_OF_GM = getattr(Fault, "OUT_OF_GM", Fault.OUT_OF_UB)


@dataclasses.dataclass(frozen=True)
class GlobalTensor:
    dtype: _dt.DType
    buf: int  # index of the GM buffer (position in the kernel's GM tuple)
    addr: object  # byte offset inside the buffer (int or traced int32)
    length: int  # elements (static)
    name: str = ""
    # the host array's NumPy dtype when the element type only stands in for it ("bool": a bool
    # array's GM bytes are uint8 elements), for error messages; "" otherwise
    host: str = ""
    is_global = True  # class attribute, not a field: the pipe rule's GM side (sync.pipe_of)

    def __post_init__(self):
        object.__setattr__(self, "dtype", _dt.as_dtype(self.dtype))

    def __getitem__(self, offset):
        """Ascend C ``operator[]``: the tensor starting ``offset`` elements later."""
        if isinstance(offset, slice):
            raise TypeError("GlobalTensor[...] takes an element offset (as C++ operator[]), not a slice")
        offset, length = _scalar.element_offset("GlobalTensor::operator[]", offset, self.length)
        return GlobalTensor(
            self.dtype, self.buf, self.addr + offset * self.dtype.itemsize, length, self.name, self.host
        )

    def ReinterpretCast(self, dtype):
        """The same bytes viewed as ``dtype``; the byte length must be a whole number of the new
        elements (UsageError otherwise, as ``LocalTensor.ReinterpretCast``)."""
        d = _dt.as_dtype(dtype)
        if self.nbytes % d.itemsize:
            raise UsageError(
                "ReinterpretCast",
                "dtype",
                d.name,
                f"an element type whose size divides the tensor's {self.nbytes} bytes",
                None,
                f"{self!r} is {self.nbytes} bytes, not a multiple of sizeof({d.cpp}) = {d.itemsize}",
            )
        return GlobalTensor(d, self.buf, self.addr, self.nbytes // d.itemsize, self.name)

    def GetSize(self):
        return self.length

    def GetPhyAddr(self):
        """Byte offset of the tensor inside its GM buffer (the model has no global address space)."""
        return self.addr

    @property
    def nbytes(self):
        return self.length * self.dtype.itemsize

    def __repr__(self):
        a = self.addr if isinstance(self.addr, (int, np.integer)) else "<traced>"
        n = f"{self.name}: " if self.name else ""
        return f"GlobalTensor({n}{self.dtype.cpp}[{self.length}] @ GM{self.buf}+{a})"

    def _repr_html_(self):
        try:
            from .display import tensor_html
        except ImportError:
            return None
        return tensor_html(self)


jax.tree_util.register_pytree_node(
    GlobalTensor,
    lambda t: ((t.addr,), (t.dtype, t.buf, t.length, t.name, t.host)),
    lambda aux, ch: GlobalTensor(aux[0], aux[1], ch[0], aux[2], aux[3], aux[4]),
)


def to_gm_bytes(array):
    """A typed array (NumPy or jnp, any shape) as the little-endian bytes of one GM buffer."""
    if isinstance(array, (jax.Array, jax.core.Tracer)):
        a = jnp.asarray(array)
        if a.dtype == jnp.bool_:
            a = a.astype(jnp.uint8)
        flat = a.reshape(-1)
        if flat.dtype.itemsize == 1:
            return lax.bitcast_convert_type(flat, jnp.uint8)
        return lax.bitcast_convert_type(flat, jnp.uint8).reshape(-1)
    a = np.ascontiguousarray(np.asarray(array))
    if a.dtype == np.bool_:
        a = a.astype(np.uint8)
    return jnp.asarray(a.reshape(-1).view(np.uint8))


def from_gm_bytes(raw, dtype, shape):
    """Inverse of ``to_gm_bytes``: bytes -> array of ``dtype`` (a NumPy dtype) and ``shape``."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return (raw != 0).reshape(shape)
    if isinstance(raw, jax.core.Tracer):
        if dtype.itemsize == 1:
            return lax.bitcast_convert_type(raw, dtype).reshape(shape)
        return lax.bitcast_convert_type(raw.reshape(-1, dtype.itemsize), dtype).reshape(shape)
    return np.asarray(raw).view(dtype).reshape(shape).copy()


def gm_dtype_of(array, api="gm", argument="array", profile=None):
    """The Ascend element type of a GM array (bool arrays are bytes); a NumPy dtype with no Ascend
    element type (complex, object, ...) is a UsageError naming ``argument``."""
    npd = np.dtype(array.dtype if hasattr(array, "dtype") else np.asarray(array).dtype)
    if npd == np.bool_:
        return _dt.uint8
    try:
        return _dt.as_dtype(npd)
    except TypeError:
        raise UsageError(
            api,
            f"{argument}.dtype",
            str(npd),
            "an array of bool, " + ", ".join(str(d.np_dtype) for d in _dt.ALL if d.kind != "complex"),
            profile,
            "complex elements travel as their bit patterns: a uint32 array (complex32) or a uint64 array "
            "(complex64), viewed with GlobalTensor.ReinterpretCast",
        ) from None


def gm_tensor(npd, buf, nbytes, name=""):
    """The GlobalTensor of GM buffer ``buf`` (``nbytes`` bytes) made from a host array of NumPy
    dtype ``npd`` (a bool array: uint8 elements, named "bool" in error messages)."""
    d = gm_dtype_of(np.zeros(0, npd))
    return GlobalTensor(d, buf, 0, nbytes // d.itemsize, name, "bool" if np.dtype(npd) == np.bool_ else "")
