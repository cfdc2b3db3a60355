"""``RefState``: the machine state of the reference model, as plain NumPy values.

Field for field the State table of docs/MODEL.md. Every reference API takes a state and returns a
*new* one; the input is never mutated (``copy_state`` below).

Also here: the small helpers that read the state as Python integers (the vector mask as one
256-bit int, CTRL as one 64-bit int) and read / write UB bytes. They are deliberately literal.
"""

import dataclasses

import numpy as np

from .. import checks as _checks
from .. import dtypes as _dt
from ..profile import as_profile

MASK_REG_WORDS32 = 8  # vmask storage: 8 x 32 bits = 256 bits (only vector_mask_bits are real)
CMPMASK_WORDS32 = 4  # 128 bits
CTRL_WORDS32 = 2  # 64 bits


@dataclasses.dataclass
class RefState:
    """The reference machine state (MODEL.md "State")."""

    ub: np.ndarray  # uint8[N]: Unified Buffer bytes
    vmask: np.ndarray  # uint32[8]: vector-mask register, low word first
    mask_mode: int  # 0 = Normal, 1 = Counter
    cmpmask: np.ndarray  # uint32[4]: CMPMASK register, low word first
    ctrl: np.ndarray  # uint32[2]: CTRL special register, low word first
    rsvd_cnt: int  # gather-mask remaining count register
    fault: int  # OR of errors.Fault bits recorded so far
    # checker warnings (MODEL.md "Checker warnings"; never read by a result bit)
    warn: int = 0  # OR of checks.Warn bits
    warn_at: tuple = (0, 0)  # (API code, argument code) of the first warning
    written: object = None  # uint8[N]: 1 = byte written since reset; None: not tracked
    # special registers written by SetDeqScale and the reductions (MODEL.md); 0 at reset
    deqscale: int = 0  # DEQSCALE, a 64-bit value
    reduce_sum: int = 0  # the ReduceSum result register: T's bit pattern
    reduce_maxmin: tuple = (0, 0)  # the max/min register: (T's value bits, index bits)
    # records the last MrgSort / MrgSort4 took from each queue (GetMrgSortResult)
    mrgsort_cnt: tuple = (0, 0, 0, 0)
    # the DataCopyPad padding register (SetPadValue): 8 bytes, the value's bytes repeated; None: not set
    pad_value: object = None
    # the loop-mode registers (SetLoopModePara): {DataCopyMVType value: the six LoopModeParams fields}
    loop_mode: object = None


def copy_state(state: RefState) -> RefState:
    """A deep copy: the arrays are copied, so the caller's state is never touched."""
    return RefState(
        # subok: a RecordingUB (below) stays one, so the writes to the copy are logged too
        ub=np.array(state.ub, dtype=np.uint8, copy=True, subok=True),
        vmask=np.array(state.vmask, dtype=np.uint32, copy=True),
        mask_mode=int(state.mask_mode),
        cmpmask=np.array(state.cmpmask, dtype=np.uint32, copy=True),
        ctrl=np.array(state.ctrl, dtype=np.uint32, copy=True),
        rsvd_cnt=int(state.rsvd_cnt),
        fault=int(state.fault),
        warn=int(state.warn),
        warn_at=tuple(int(x) for x in state.warn_at),
        written=None if state.written is None else np.array(state.written, dtype=np.uint8, copy=True),
        deqscale=int(state.deqscale),
        reduce_sum=int(state.reduce_sum),
        reduce_maxmin=tuple(int(x) for x in state.reduce_maxmin),
        mrgsort_cnt=tuple(int(x) for x in state.mrgsort_cnt),
        pad_value=None if state.pad_value is None else bytes(state.pad_value),
        loop_mode=None if state.loop_mode is None else dict(state.loop_mode),
    )


def with_fault(state: RefState, bits: int) -> RefState:
    """The input state with only ``fault`` ORed (a faulting call is suppressed)."""
    out = copy_state(state)
    out.fault = int(out.fault) | int(bits)
    return out


# ---------------------------------------------------------------------------------------------
# Registers as Python ints


def words_to_int(words) -> int:
    """Little-endian list of 32-bit words -> one Python int."""
    value = 0
    for i, w in enumerate(words):
        value |= int(w) << (32 * i)
    return value


def int_to_words(value: int, n_words: int) -> np.ndarray:
    out = np.zeros(n_words, dtype=np.uint32)
    for i in range(n_words):
        out[i] = (value >> (32 * i)) & 0xFFFFFFFF
    return out


def all_ones_mask(profile) -> int:
    """The ResetMask value: every real bit of the vector-mask register set."""
    # SPEC: "恢复mask的值为默认值（全1）" (掩码操作/ResetMask.md)
    return (1 << profile.vector_mask_bits) - 1


def get_vmask(state: RefState) -> int:
    return words_to_int(state.vmask)


def set_vmask(state: RefState, value: int, profile) -> None:
    """Write the vector mask in place (only on a state this module already copied)."""
    value &= (1 << profile.vector_mask_bits) - 1  # bits above vector_mask_bits do not exist
    state.vmask = int_to_words(value, MASK_REG_WORDS32)


def get_ctrl(state: RefState) -> int:
    return words_to_int(state.ctrl)


def set_ctrl(state: RefState, value: int) -> None:
    state.ctrl = int_to_words(value & ((1 << 64) - 1), CTRL_WORDS32)


def ctrl_bit(state: RefState, bit: int) -> int:
    return (get_ctrl(state) >> bit) & 1


# ---------------------------------------------------------------------------------------------
# Checker warnings (MODEL.md "Checker warnings")


def add_warning(state: RefState, bit, api: str, arg: str) -> None:
    """OR one warning into a state this module already copied; the first one names (API, arg)."""
    if state.warn == 0:
        state.warn_at = (_checks.api_code(api), _checks.arg_code(arg))
    state.warn |= int(bit)


def lane_warnings(before: RefState, out: RefState, api, dst, dst_lanes, sources, size) -> None:
    """The warnings of one element-wise call that ran, on its result ``out`` (in place):
    ``dst_lanes`` the byte address of every active dst lane, ``sources`` [(name, LocalTensor,
    [lane byte addresses])]. EXTENT: a lane not inside its tensor [addr, addr + nbytes) (dst first,
    then the sources in order); UNINIT (``written`` tracked): a source lane with a byte never
    written in ``before``; then the dst lanes are marked written."""
    for name, t, lanes in [("dst", dst, dst_lanes), *sources]:
        end = t.addr + t.length * t.dtype.itemsize
        if any(a < t.addr or a + size > end for a in lanes):
            add_warning(out, _checks.Warn.EXTENT, api, name)
    if before.written is None:
        return
    n = len(before.written)
    for name, _, lanes in sources:
        if any(not (0 <= a + i < n and before.written[a + i]) for a in lanes for i in range(size)):
            add_warning(out, _checks.Warn.UNINIT, api, name)
    for a in dst_lanes:
        for i in range(size):
            if 0 <= a + i < n:
                out.written[a + i] = 1


# ---------------------------------------------------------------------------------------------
# Reset


def reset_state(profile, ub_bytes=None, check_uninit=False) -> RefState:
    """The reset state of MODEL.md: UB zero, vmask all ones (ResetMask), Normal mode, CMPMASK 0,
    CTRL = ctrl_reset_value, rsvd_cnt 0, no faults."""
    profile = as_profile(profile)
    n = profile.ub_physical_bytes if ub_bytes is None else int(ub_bytes)
    if n < 0:
        raise ValueError(f"ub_bytes must be >= 0, got {n}")
    st = RefState(
        ub=np.zeros(n, dtype=np.uint8),
        vmask=np.zeros(MASK_REG_WORDS32, dtype=np.uint32),
        mask_mode=0,
        cmpmask=np.zeros(CMPMASK_WORDS32, dtype=np.uint32),
        ctrl=np.zeros(CTRL_WORDS32, dtype=np.uint32),
        rsvd_cnt=0,
        fault=0,
        written=np.zeros(n, dtype=np.uint8) if check_uninit else None,
    )
    set_vmask(st, all_ones_mask(profile), profile)
    set_ctrl(st, profile.ctrl_reset_value)
    return st


# ---------------------------------------------------------------------------------------------
# UB access (little-endian element bit patterns)


def read_bits(ub: np.ndarray, addr: int, nbytes: int) -> int:
    """The unsigned bit pattern of ``nbytes`` bytes at ``addr`` (little-endian)."""
    value = 0
    for i in range(nbytes):
        value |= int(ub[addr + i]) << (8 * i)
    return value


def write_bits(ub: np.ndarray, addr: int, nbytes: int, bits: int) -> None:
    for i in range(nbytes):
        ub[addr + i] = (bits >> (8 * i)) & 0xFF


def ub_write(state: RefState, addr: int, dtype, values) -> RefState:
    """Test helper: a copy of ``state`` with ``values`` (an array-like of ``dtype``) stored
    contiguously at byte address ``addr``."""
    d = _dt.as_dtype(dtype)
    arr = np.ascontiguousarray(np.asarray(values, dtype=d.np_dtype))
    raw = arr.view(np.uint8).reshape(-1)
    out = copy_state(state)
    if addr < 0 or addr + raw.size > out.ub.size:
        raise IndexError(f"ub_write of {raw.size} bytes at {addr} outside UB of {out.ub.size} bytes")
    out.ub[addr : addr + raw.size] = raw
    return out


def ub_read(state: RefState, addr: int, dtype, n: int) -> np.ndarray:
    """Test helper: ``n`` elements of ``dtype`` stored contiguously at byte address ``addr``."""
    d = _dt.as_dtype(dtype)
    nbytes = n * d.itemsize
    if addr < 0 or addr + nbytes > state.ub.size:
        raise IndexError(f"ub_read of {nbytes} bytes at {addr} outside UB of {state.ub.size} bytes")
    return state.ub[addr : addr + nbytes].copy().view(d.np_dtype)


# ---------------------------------------------------------------------------------------------
# Access recording (ascend_jax.viz.accesses): a UB array that logs the bytes the model touches


class RecordingUB(np.ndarray):
    """A UB array that appends ``("r" | "w", byte index)`` to ``self.log`` for every byte the
    reference reads (``ub[i]``, or an element of ``ub.view(T).tolist()``) or writes (``ub[i] = v``),
    in the order the reference performs them.

    Values and results are those of a plain array: the reference code cannot tell the difference.
    ``copy_state`` keeps the subclass, so the new state's writes land in the same log. A typed view
    (``ub.view("<u4")``) logs the bytes of each element it reads; a slice logs every byte it covers
    and is returned as a plain array.
    """

    def __array_finalize__(self, obj):
        self.log = getattr(obj, "log", None)

    def _log(self, kind, key):
        s = self.itemsize
        if isinstance(key, (int, np.integer)):
            first = (int(key) % self.size) * s
            self.log.extend((kind, first + j) for j in range(s))
        else:
            for i in np.arange(self.size)[key].reshape(-1).tolist():
                self.log.extend((kind, i * s + j) for j in range(s))

    def __getitem__(self, key):
        if self.log is not None:
            self._log("r", key)
        out = np.ndarray.__getitem__(self, key)
        return out.view(np.ndarray) if isinstance(out, np.ndarray) else out

    def __setitem__(self, key, value):
        if self.log is not None:
            self._log("w", key)
        np.ndarray.__setitem__(self, key, value)

    def tolist(self):
        values = self.view(np.ndarray).tolist()
        if self.log is None or self.ndim != 1:
            return values
        return _RecordingList(values, self)


class _RecordingList(list):
    """``RecordingUB.tolist()``: a plain list of the element values whose reads are logged."""

    def __init__(self, values, array):
        super().__init__(values)
        self._array = array

    def __getitem__(self, key):
        self._array._log("r", key)
        return list.__getitem__(self, key)


def recording_state(state: RefState, log: list) -> RefState:
    """A copy of ``state`` whose UB logs every byte access into ``log`` (see RecordingUB)."""
    out = copy_state(state)
    ub = np.array(out.ub, dtype=np.uint8, copy=True).view(RecordingUB)
    ub.log = log
    out.ub = ub
    return out
