"""``LocalMemAllocator``: the static-tensor style of UB allocation used by the vendor samples.

A ported kernel keeps the C++ shape::

    ubAllocator = aj.LocalMemAllocator(k)          # LocalMemAllocator<Hardware::UB> ubAllocator;
    src0Local = ubAllocator.Alloc(aj.float32, 256)  # ubAllocator.Alloc<float, 256>();

Each ``Alloc`` hands out the next free UB address, rounded up to the profile's operand alignment
(32 bytes): a bump allocator with no free. It draws on the same allocator as ``Kernel.alloc``
and ``TPipe.InitBuffer``, so a kernel may mix the styles and overflow of the usable UB (minus the
profile's reserved scratch) raises ``UsageError`` naming the request.
"""

from . import dtypes as _dt
from .tensor import LocalTensor

_HARDWARE_UB = "UB"


class LocalMemAllocator:
    """``AscendC::LocalMemAllocator<Hardware::UB>`` over kernel ``k``'s Unified Buffer."""

    def __init__(self, k, hardware=_HARDWARE_UB):
        if hardware != _HARDWARE_UB:
            raise ValueError(f"LocalMemAllocator: hardware={hardware!r}; only the UB ('UB') is modelled")
        self.k = k

    def Alloc(self, dtype, length) -> LocalTensor:
        """``Alloc<T, length>()``: a LocalTensor of ``length`` elements of ``dtype``."""
        d = _dt.as_dtype(dtype)
        return self.k.alloc(d, int(length))

    def GetCurAddr(self):
        """The next free UB byte address (before alignment)."""
        return self.k._next_addr
