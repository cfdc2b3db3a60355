"""UB allocation in the style of Ascend C's TPipe / TQue / TBuf (资源管理/Pipe和Que框架).

A ported kernel keeps its shape::

    pipe = aj.TPipe(k)
    q = aj.TQue(aj.TPosition.VECIN, 2)         # depth
    pipe.InitBuffer(q, 2, 1024)                 # num buffers, bytes each (rounded up to 32 B)
    x = q.AllocTensor(aj.float32)               # LocalTensor of 1024 / 4 elements
    q.EnQue(x); x = q.DeQue(aj.float32); q.FreeTensor(x)
    b = aj.TBuf(aj.TPosition.VECCALC); pipe.InitBuffer(b, 2048); t = b.Get(aj.float32)

Queue operations carry no data; they are the flags TPipe inserts (TPipe-TQue框架编程原理.md):
``EnQue`` sets the producer pipe's flag of the tensor's buffer, ``DeQue`` waits for it on the
consumer pipe, ``FreeTensor`` sets the consumer's reuse flag and the buffer's next ``AllocTensor``
waits for it on the producer pipe (VECIN: MTE2 -> V; VECOUT: V -> MTE3; TBuf: none). The kernel's
call log (``ascend_jax.hazards``) orders the pipes by them. They also keep the discipline and raise
``UsageError`` when it is broken: InitBuffer twice, UB overflow (the kernel's allocator: usable UB minus reserved scratch),
more than ``profile.max_buffers`` buffers, AllocTensor with no idle buffer or beyond
``profile.que_alloc_limit`` tensors per TPosition, FreeTensor twice or of a foreign tensor,
DeQue of an empty queue, and use after free (``Kernel`` checks every tensor passed to an API).
Memory comes from the same bump allocator as ``Kernel.alloc``, so both styles can be mixed.
"""

import enum

from . import dtypes as _dt
from . import sync as _sync
from ._scalar import host_int
from .errors import UsageError
from .tensor import LocalTensor


class TPosition(enum.IntEnum):
    """Logical memory positions (辅助数据结构/TPosition). Only the vector ones map to UB here."""

    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11
    LCM = 12
    SPM = 13
    SHM = 14
    TSCM = 15
    MAX = 16


QuePosition = TPosition
_UB_POSITIONS = (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)
_P = _sync.pipe_t
# SPEC: a queue's producer and consumer pipes (TPipe-TQue框架编程原理.md; the digest's table):
# VECIN GM -> UB (MTE2 -> V), VECOUT UB -> GM (V -> MTE3). VECCALC is no queue (no flags).
_QUE_PIPES = {TPosition.VECIN: (_P.PIPE_MTE2, _P.PIPE_V), TPosition.VECOUT: (_P.PIPE_V, _P.PIPE_MTE3)}

_BLK = 32


class _Buffer:
    """One UB buffer of a TQue/TBuf: address, size, and whether a tensor handed out is live."""

    def __init__(self, owner, index, addr, nbytes):
        self.owner, self.index, self.addr, self.nbytes = owner, index, addr, nbytes
        self.freed = False  # the tensor currently handed out from this buffer was freed
        self.in_use = False

    def describe(self):
        return f"buffer {self.index} of {self.owner!r} (UB+{self.addr}, {self.nbytes} bytes) was freed"


class TPipe:
    """The memory manager of one kernel: hands UB to queues and TBufs from ``k``'s allocator."""

    def __init__(self, k):
        self.k = k
        self.profile = k.profile
        self._alloc_count = {}  # TPosition -> tensors currently allocated from queues there
        self._event_ids = {}  # HardEvent -> IDs reserved by AllocEventID

    def _free_ids(self, api, event):
        e = _sync.as_event(api, event, self.profile)
        taken = self._event_ids.setdefault(e, set())
        p = self.profile
        return e, [i for i in range(p.event_ids) if i not in taken and i not in p.reserved_event_ids]

    def AllocEventID(self, event):
        """``AllocEventID<evt>()``: an event ID reserved for the kernel until ReleaseEventID."""
        e, free = self._free_ids("AllocEventID", event)
        if not free:
            raise UsageError(
                "AllocEventID",
                "evt",
                e.name,
                "an event with a free ID",
                self.profile,
                f"every ID of {e.name} is reserved (ReleaseEventID one first)",
            )
        self._event_ids[e].add(free[0])
        return free[0]

    def ReleaseEventID(self, event, eventID):
        """``ReleaseEventID<evt>(id)``: give back an ID taken by AllocEventID."""
        e = _sync.as_event("ReleaseEventID", event, self.profile)
        taken = self._event_ids.setdefault(e, set())
        if eventID not in taken:
            raise UsageError(
                "ReleaseEventID",
                "id",
                eventID,
                f"an ID reserved by AllocEventID<{e.name}> ({sorted(taken) or 'none'})",
                self.profile,
            )
        taken.discard(eventID)

    def FetchEventID(self, event):
        """``FetchEventID(evt)``: a currently free ID, not reserved (two Fetches can return the same
        ID; FetchEventID.md)."""
        e, free = self._free_ids("FetchEventID", event)
        if not free:
            raise UsageError("FetchEventID", "evt", e.name, "an event with a free ID", self.profile)
        return free[0]

    def InitBuffer(self, obj, *args):
        """``InitBuffer(que, num, len)`` or ``InitBuffer(buf, len)``; ``len`` in bytes, rounded up
        to 32 bytes (InitBuffer.md: "不满足32字节对齐时...自动向上补齐"). Returns True."""
        if isinstance(obj, TQue):
            if len(args) != 2:
                raise TypeError("InitBuffer(que, num, len) takes a buffer count and a byte length")
            num, length = args
            num = self._check_int("num", num, 1, 255)
        elif isinstance(obj, TBuf):
            if len(args) != 1:
                raise TypeError("InitBuffer(buf, len) takes one byte length")
            num, length = 1, args[0]
        else:
            raise UsageError("InitBuffer", "que", type(obj).__name__, "a TQue or TBuf", self.profile)
        length = self._check_int("len", length, 1, 2**32 - 1)
        if obj._buffers:
            raise UsageError(
                "InitBuffer",
                "que",
                repr(obj),
                "a TQue/TBuf without memory",
                self.profile,
                "InitBuffer was already called for it (TPipe::Reset is needed before a second InitBuffer)",
            )
        if self.k._n_buffers + num > self.profile.max_buffers:
            raise UsageError(
                "InitBuffer",
                "num",
                num,
                f"at most {self.profile.max_buffers - self.k._n_buffers} more buffers",
                self.profile,
                f"a kernel may use at most {self.profile.max_buffers} buffers (InitBuffer.md)",
            )
        nbytes = -(-int(length) // _BLK) * _BLK
        bufs = []
        for i in range(int(num)):
            addr = self.k._bump(nbytes, "InitBuffer", "len", length)
            bufs.append(_Buffer(obj, i, addr, nbytes))
        self.k._n_buffers += int(num)
        obj._attach(self, bufs)
        if isinstance(obj, TQue):
            if not hasattr(self.k, "_queues"):
                self.k._queues = []
            self.k._queues.append(obj)
        return True

    def _check_int(self, name, v, lo, hi):
        return host_int("InitBuffer", name, v, lo, hi, self.profile)


class _Managed:
    def __init__(self, pos):
        self.pos = TPosition(pos)
        self._buffers = []
        self.pipe = None

    def _attach(self, pipe, bufs):
        self.pipe, self._buffers = pipe, bufs

    def _require_init(self, api):
        if not self._buffers:
            raise UsageError(api, "self", repr(self), "an object after TPipe.InitBuffer", None)

    def _tensor(self, buf, dtype, length=None):
        d = _dt.as_dtype(dtype)
        n = buf.nbytes // d.itemsize if length is None else int(length)
        return LocalTensor(d, buf.addr, n, "", buf)


class TQue(_Managed):
    """``TQue<pos, depth>``: a queue of UB buffers (``InitBuffer(que, num, len)``)."""

    def __init__(self, pos=TPosition.VECIN, depth=1):
        super().__init__(pos)
        self.depth = host_int("TQue", "depth", depth, 0, None)
        self._queue = []
        self._reused = set()  # buffer indices freed at least once (their next Alloc waits)

    def _sync(self, api, kind, which, index):
        """The flag a queue operation implies (VECIN/VECOUT; none elsewhere)."""
        pipes = _QUE_PIPES.get(self.pos)
        if pipes is None:
            return
        producer, consumer = pipes
        if which == "fwd":
            pipe = producer if kind == "set" else consumer
        else:
            pipe = consumer if kind == "set" else producer
        self.pipe.k._queue_sync(api, kind, pipe, ("que", id(self), index, which, self.pos.name))

    def __repr__(self):
        return f"TQue({self.pos.name}, depth={self.depth}, buffers={len(self._buffers)})"

    def AllocTensor(self, dtype):
        """A LocalTensor over the next idle buffer (its whole length in elements of ``dtype``)."""
        self._require_init("AllocTensor")
        p = self.pipe.profile
        idle = [b for b in self._buffers if not b.in_use]
        if not idle:
            raise UsageError(
                "AllocTensor",
                "que",
                repr(self),
                f"at most {len(self._buffers)} tensors allocated at once (the InitBuffer num)",
                p,
                "every buffer of the queue is in use; FreeTensor one first",
            )
        n = self.pipe._alloc_count.get(self.pos, 0)
        if n >= p.que_alloc_limit:
            raise UsageError(
                "AllocTensor",
                "que",
                repr(self),
                f"at most {p.que_alloc_limit} tensors allocated per TPosition",
                p,
                f"{n} tensors of TPosition::{self.pos.name} are allocated (AllocTensor.md)",
            )
        self.pipe._alloc_count[self.pos] = n + 1
        b = idle[0]
        # a fresh handle per allocation: tensors of an earlier, freed allocation stay invalid
        nb = _Buffer(self, b.index, b.addr, b.nbytes)
        nb.in_use = True
        self._buffers[self._buffers.index(b)] = nb
        if b.index in self._reused:  # SPEC: AllocTensor waits until the buffer's reader is done
            self._sync("AllocTensor", "wait", "reuse", b.index)
        return self._tensor(nb, dtype)

    def _own(self, api, t):
        if not isinstance(t, LocalTensor) or t.handle is None or t.handle.owner is not self:
            raise UsageError(api, "tensor", repr(t), f"a tensor allocated from {self!r}", self.pipe.profile)
        if t.handle.freed:
            raise UsageError(
                api,
                "tensor",
                repr(t),
                "a live tensor",
                self.pipe.profile,
                f"double free: {t.handle.describe()}",
            )

    def EnQue(self, tensor):
        """Put an allocated tensor in the queue; False when the queue already holds ``depth`` tensors."""
        self._require_init("EnQue")
        self._own("EnQue", tensor)
        if self.depth and len(self._queue) >= self.depth:
            return False
        _not_queued(self, tensor)
        self._queue.append(tensor)
        self._sync("EnQue", "set", "fwd", tensor.handle.index)  # SPEC: EnQue issues the Set
        return True

    def DeQue(self, dtype=None):
        """The oldest queued tensor (optionally viewed as ``dtype``); an empty queue is an error."""
        self._require_init("DeQue")
        if not self._queue:
            raise UsageError(
                "DeQue",
                "que",
                repr(self),
                "a queue holding a tensor (EnQue first)",
                self.pipe.profile,
                "empty queue",
            )
        t = self._queue.pop(0)
        if t.handle.freed:
            raise UsageError(
                "DeQue", "tensor", repr(t), "a live tensor", self.pipe.profile, t.handle.describe()
            )
        self._sync("DeQue", "wait", "fwd", t.handle.index)  # SPEC: DeQue issues the Wait
        return t if dtype is None or _dt.as_dtype(dtype) == t.dtype else t.ReinterpretCast(dtype)

    def FreeTensor(self, tensor):
        """Return the tensor's buffer to the queue; the tensor (and every view of it) becomes invalid."""
        self._require_init("FreeTensor")
        self._own("FreeTensor", tensor)
        h = tensor.handle
        h.freed, h.in_use = True, False
        self._queue = [t for t in self._queue if t.handle is not h]
        self.pipe._alloc_count[self.pos] -= 1
        self._reused.add(h.index)
        self._sync("FreeTensor", "set", "reuse", h.index)  # SPEC: FreeTensor issues the Set

    def HasTensorInQue(self):
        return bool(self._queue)

    def GetTensorCountInQue(self):
        return len(self._queue)

    def HasIdleBuffer(self):
        return any(not b.in_use for b in self._buffers)

    def VacantInQue(self):
        return not self.depth or len(self._queue) < self.depth


class TBuf(_Managed):
    """``TBuf<pos>``: one UB buffer for temporaries (``InitBuffer(buf, len)``, ``Get``)."""

    def __init__(self, pos=TPosition.VECCALC):
        super().__init__(pos)

    def __repr__(self):
        n = self._buffers[0].nbytes if self._buffers else 0
        return f"TBuf({self.pos.name}, {n} bytes)"

    def Get(self, dtype, length=None):
        """The buffer as a LocalTensor of ``dtype`` (all of it, or the first ``length`` elements)."""
        self._require_init("Get")
        b = self._buffers[0]
        d = _dt.as_dtype(dtype)
        if length is not None:
            length = host_int("Get", "len", length, 0, None, self.pipe.profile)
            if length * d.itemsize > b.nbytes:
                raise UsageError(
                    "Get",
                    "len",
                    length,
                    f"at most {b.nbytes // d.itemsize} elements of {d.name}",
                    self.pipe.profile,
                    "len*sizeof(T) may not exceed the TBuf length (Get.md)",
                )
        return self._tensor(b, d, length)

    def GetWithOffset(self, dtype, length, offset):
        """``GetWithOffset<T>(size, bufOffset)``: ``length`` elements starting ``offset`` bytes in
        (``offset`` a multiple of 32)."""
        self._require_init("GetWithOffset")
        b = self._buffers[0]
        d = _dt.as_dtype(dtype)
        length, offset = _with_offset_args(length, offset, self.pipe.profile)
        if offset % _BLK or offset < 0:
            raise UsageError("GetWithOffset", "bufOffset", offset, "a multiple of 32", self.pipe.profile)
        if offset + length * d.itemsize > b.nbytes:
            raise UsageError(
                "GetWithOffset",
                "size",
                length,
                f"at most {(b.nbytes - offset) // d.itemsize}",
                self.pipe.profile,
            )
        return LocalTensor(d, b.addr + offset, length, "", b)


def _with_offset_args(length, offset, profile):
    """``GetWithOffset``'s ``size`` and ``bufOffset`` as host integers >= 0 (``_scalar.host_int``: a
    NumPy integer is an int; a bool, a float or a traced value is a UsageError)."""
    return (
        host_int("GetWithOffset", "size", length, 0, None, profile),
        host_int("GetWithOffset", "bufOffset", offset, 0, None, profile, "a multiple of 32 (bytes) >= 0"),
    )


def _not_queued(que, tensor):
    """EnQue of a tensor whose buffer is in the queue already is a UsageError (one buffer, one slot)."""
    if any(t.handle is tensor.handle for t in que._queue):
        raise UsageError(
            "EnQue",
            "tensor",
            repr(tensor),
            "a tensor not already in the queue",
            que.pipe.profile,
            f"its buffer was EnQue'd before and not DeQue'd; {que!r} holds it",
        )


class TQueSync:
    """``TQueSync<src, dst>``: ``SetFlag(id)`` / ``WaitFlag(id)`` of the event ``src_dst``
    (同步控制/核内同步/SetFlag-WaitFlag.md), on kernel ``k``."""

    def __init__(self, k, src, dst):
        s = _sync.as_pipe("TQueSync", src, k.profile, allow_s=True)
        d = _sync.as_pipe("TQueSync", dst, k.profile, allow_s=True)
        self.k = k
        self.event = _sync.as_event("TQueSync", f"{s.name[5:]}_{d.name[5:]}", k.profile)

    def SetFlag(self, eventID):
        self.k._flag("TQueSync::SetFlag", self.event, eventID, "set")

    def WaitFlag(self, eventID):
        self.k._flag("TQueSync::WaitFlag", self.event, eventID, "wait")
