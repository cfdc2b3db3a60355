"""The imperative kernel layer: ``k = Kernel(profile=...)``; ``x = k.alloc(aj.float32, 256)``;
``k.Muls(y, x, 2.0, 256)``; ``k.read(y)``. Each call threads ``k.state`` through the pure API, so
the same kernel code runs eagerly (a notebook) or traced into one pure function (``jit_kernel``).
"""

import contextlib
import contextvars
import dataclasses
import functools
import inspect
import math
import os
import sys
import threading
from typing import Any, NamedTuple

import greenlet
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import api as _api
from . import autosync as _autosync
from . import checks as _checks
from . import dtypes as _dt
from . import hazards as _hz
from . import sync as _sync
from ._engine import numerics as _numerics
from ._engine import static as _static
from .api.data_copy import copy_footprint
from .api.layout import footprint_5hd as _footprint_5hd
from .errors import AscendFault, Fault, UsageError
from .gm import GlobalTensor, from_gm_bytes, gm_dtype_of, gm_tensor, to_gm_bytes
from .profile import as_profile
from .registry import REGISTRY
from .state import CoreState, check_ub_bytes, reset_state
from .tensor import LocalTensor

_POLICIES = ("raise", "record")
_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
# the APIs that accumulate into dst (MulAddDst: dst = src0*src1 + dst; Axpy: dst = src*s + dst;
# FusedMulAdd / MulAddRelu: dst = src0*dst + src1) and the scratch-buffer parameters
_DST_READ_APIS = frozenset(("MulAddDst", "Axpy", "FusedMulAdd", "MulAddRelu"))
_V_CONFIG_FAMILIES = frozenset(("mask", "special_register"))
_SCRATCH_ARGS = frozenset(("sharedTmpBuffer", "tmpBuffer", "workLocal", "tmpLocal"))
_CASE_AXIS = "ascend_jax_case"  # vmap axis name of jit_kernel's batch


def _is_host(v):
    return not isinstance(v, (jax.Array, jax.core.Tracer))


def _default_policy():
    v = os.environ.get("ASCEND_JAX_ON_FAULT", "raise")
    if v not in _POLICIES:
        raise ValueError(f"ASCEND_JAX_ON_FAULT={v!r}; allowed: {', '.join(_POLICIES)}")
    return v


_STATE_APIS = ("Adds", "Muls", "Maxs", "Mins")
_REG_APIS = (
    "SetVectorMask",
    "SetMaskCount",
    "SetMaskNorm",
    "ResetMask",
    "SetCtrlSpr",
    "ResetCtrlSpr",
    "SetSaturationFlag",
)
_GET_APIS = ("GetCtrlSpr", "GetSaturationFlag")


class _GmStore:
    """The GM of a launch: its buffers (uint8 each) and the (NumPy dtype, shape) each was made with."""

    def __init__(self):
        self.bufs = []
        self.meta = []


class Kernel:
    """A kernel's view of one AI Core: UB allocation and the vector APIs as methods.

    ``fault_policy``: "raise" (default for eager use; env ASCEND_JAX_ON_FAULT) raises AscendFault
    right after a faulting call; "record" only ORs the bits into ``state.fault``.
    ``check_uninit``: also warn when a call reads UB bytes never written (the state carries a
    ``written`` map; docs/MODEL.md "Checker warnings"). Warnings never change a result bit.
    """

    def __init__(
        self,
        profile=None,
        ub_bytes=None,
        state=None,
        fault_policy=None,
        arena=False,
        check_uninit=False,
        block_idx=0,
        block_num=1,
        auto_sync=False,
    ):
        self.profile = as_profile(profile)
        ub_bytes = check_ub_bytes("Kernel", ub_bytes, self.profile)  # None: the whole UB
        # this core of a launch (``GetBlockIdx``/``GetBlockNum``) and its call log (hazards.py)
        self.block_idx, self.block_num = int(block_idx), int(block_num)
        self.log = _hz.CallLog(self.block_idx)
        self.source = None  # "file:line" naming the next calls (the C++ front end sets it)
        # the compiler's auto-sync (--cce-auto-sync=on): its flags go into the log (autosync.py)
        self._autosync = _autosync.AutoSync() if auto_sync else None
        self._atomic = None  # (kind, dtype name) after SetAtomicAdd/Max/Min, None after DisableDmaAtomic
        self._defer = None  # the adversarial schedule's replay (``_run``)
        self._has_queues = False
        self._reserved = []  # flags using an event ID the profile reserves
        # arena=True (what jit_kernel does by default): the state's UB starts at one block and grows
        # (zero bytes appended) to the allocator's high-water mark, 32-byte rounded; the allocator
        # still hands out addresses of the whole UB (``ub_bytes`` or the physical UB). See
        # docs/MODEL.md "The UB arena".
        self._arena_full = None
        if arena:
            if state is not None:
                raise ValueError("Kernel(arena=True) builds its own state")
            full = self.profile.ub_physical_bytes if ub_bytes is None else int(ub_bytes)
            self._arena_full = full
            ub_bytes = min(full, self.profile.block_bytes)
        self.state = (
            reset_state(self.profile, ub_bytes, check_uninit=check_uninit) if state is None else state
        )
        if check_uninit and self.state.written is None:
            self.state = self.state.replace(written=jnp.zeros(self.state.ub.shape, jnp.uint8))
        self._saved_warn = None  # eager: the state's warning word while one call runs
        self._static_mark = 0
        self.fault_policy = fault_policy or _default_policy()
        if self.fault_policy not in _POLICIES:
            raise ValueError(f"fault_policy={self.fault_policy!r}; allowed: {', '.join(_POLICIES)}")
        self._next_addr = 0
        self._n_buffers = 0  # TPipe.InitBuffer buffers handed out (limit: profile.max_buffers)
        # GM: one store shared by every core of a launch (``share_gm``): uint8[n] buffers indexed by
        # GlobalTensor.buf and the (NumPy dtype, shape) each was created with
        self._gm_store = _GmStore()
        self._phase_end = None  # a launch's phase scheduler: SyncAll hands over to the next core
        self._counter_shadow = None  # static count set by SetVectorMask in Counter mode, if known
        self._mode_shadow = 0
        # checker warnings (never change the bits): see _extent_warnings
        self.warnings = []

    # -- memory ------------------------------------------------------------------------------
    @property
    def _gm(self):
        return self._gm_store.bufs

    @_gm.setter
    def _gm(self, bufs):
        self._gm_store.bufs = list(bufs)

    @property
    def _gm_meta(self):
        return self._gm_store.meta

    def share_gm(self, other):
        """Use ``other``'s GM (the cores of one launch share GM: a write of one is seen by all)."""
        self._gm_store = other._gm_store

    @property
    def ub_limit(self):
        n = self.state.ub.shape[-1] if self._arena_full is None else self._arena_full
        return min(n, self.profile.ub_usable_bytes)

    def _grow_arena(self, end):
        """Arena mode: make the state's UB at least ``end`` bytes (32-byte rounded, at most the whole
        UB; a traced ``end`` grows it to the whole UB). The new bytes are zero, as at reset."""
        if self._arena_full is None:
            return
        n = self.state.ub.shape[-1]
        if isinstance(end, (int, np.integer)):
            want = min(self._arena_full, -(-int(end) // self.profile.block_bytes) * self.profile.block_bytes)
        else:
            want = self._arena_full
        if want > n:
            ub = jnp.concatenate(
                [self.state.ub, jnp.zeros(self.state.ub.shape[:-1] + (want - n,), jnp.uint8)]
            )
            self.state = self.state.replace(ub=ub)
            if self.state.written is not None:
                w = self.state.written
                w = jnp.concatenate([w, jnp.zeros(w.shape[:-1] + (want - n,), jnp.uint8)], axis=-1)
                self.state = self.state.replace(written=w)

    @property
    def ub_capacity(self):
        """Bytes the allocators hand out: ``[0, ub_capacity)``, the usable UB (or the case's arena).
        SPEC (Select.md 约束说明): the 8 KB scratch is reserved "对于模式1和模式2，使用时" -- by the API
        forms that use it, not by every kernel: a ``memory.reserved`` region is checked at the calls
        of the APIs its ``used_by`` lists (``SCRATCH_COLLISION``), never taken from the allocator."""
        return self.ub_limit

    def _bump(self, nbytes, api, argument, value, unit=1):
        """Reserve ``nbytes`` at the next 32-byte aligned address (shared by alloc and TPipe)."""
        align = self.profile.operand_alignment_bytes
        addr = -(-self._next_addr // align) * align
        cap = self.ub_capacity
        if addr + nbytes > cap:
            raise UsageError(
                api,
                argument,
                value,
                f"at most {max(cap - addr, 0) // unit} more" + (" elements" if unit > 1 else " bytes"),
                self.profile,
                f"UB has {self.ub_limit} usable bytes and {addr} are allocated",
            )
        self._next_addr = addr + nbytes
        self._grow_arena(self._next_addr)
        return addr

    def alloc(self, dtype, length, name="") -> LocalTensor:
        """A LocalTensor at the next 32-byte aligned free UB address (a bump allocator)."""
        d = _dt.as_dtype(dtype)
        if isinstance(length, (bool, np.bool_)) or not isinstance(length, (int, np.integer)) or length < 1:
            raise UsageError(
                "alloc",
                "length",
                length,
                "an int >= 1 (elements)",
                self.profile,
                "a length is a static count",
            )
        nbytes = int(length) * d.itemsize
        addr = self._bump(nbytes, "alloc", "length", length, unit=d.itemsize)
        return LocalTensor(d, addr, int(length), name)

    def _host_access(self, api, t):
        """Check a host-side UB access (``write``/``read``) of ``t``'s bytes: a static address must
        lie in ``[0, ub_limit)`` with all of its bytes (else UsageError); a traced one is checked per
        case, returning (in-range flag, clamped int32 address) -- an out-of-range case records
        ``Fault.OUT_OF_UB`` and leaves UB untouched (write) or reads zeros (read)."""
        if not isinstance(t, LocalTensor):
            raise UsageError(api, "tensor", type(t).__name__, "a LocalTensor or GlobalTensor", self.profile)
        a, lim = t.addr, self.ub_limit
        if isinstance(a, (bool, np.bool_)) or not (isinstance(a, (int, np.integer)) or _is_jax(a)):
            raise UsageError(api, "tensor.addr", a, "an int UB byte address (or a traced int)", self.profile)
        if not _is_jax(a):
            if not 0 <= int(a) <= lim - t.nbytes:
                raise UsageError(
                    api,
                    "tensor.addr",
                    int(a),
                    f"[0, {max(lim - t.nbytes, 0)}] for {t.nbytes} bytes",
                    self.profile,
                    f"the access [{int(a)}, {int(a) + t.nbytes}) lies outside the usable UB [0, {lim})",
                )
            return None, jnp.asarray(int(a), jnp.int32)
        a = jnp.asarray(a)
        if not jnp.issubdtype(a.dtype, jnp.integer):
            raise UsageError(
                api, "tensor.addr", f"traced {a.dtype}", "a traced integer address", self.profile
            )
        a = a.astype(jnp.int32)
        ok = (a >= 0) & (a <= lim - t.nbytes)
        return ok, jnp.where(ok, a, 0)

    # -- GM --------------------------------------------------------------------------------
    def gm(self, array, name="") -> GlobalTensor:
        """Wrap ``array`` (NumPy or jnp, any shape) as a new GM buffer; returns its GlobalTensor."""
        gm_dtype_of(array)  # a dtype with no Ascend element type: UsageError
        raw = to_gm_bytes(array)
        self._gm.append(raw)
        shape = tuple(np.shape(array))
        npd = np.dtype(array.dtype if hasattr(array, "dtype") else np.asarray(array).dtype)
        self._gm_meta.append((npd, shape))
        return gm_tensor(npd, len(self._gm) - 1, raw.shape[-1], name)

    def gm_arrays(self):
        """The final contents of every GM buffer, in creation order, with their original dtype and shape."""
        return tuple(
            from_gm_bytes(raw, d, shape) for raw, (d, shape) in zip(self._gm, self._gm_meta, strict=True)
        )

    def _write_gm(self, g: GlobalTensor, values):
        raw = to_gm_bytes(
            jnp.asarray(values).astype(g.dtype.np_dtype)
            if _is_jax(values)
            else np.asarray(values).astype(g.dtype.np_dtype)
        )
        buf = self._gm[g.buf]
        self._gm[g.buf] = lax.dynamic_update_slice(buf, raw, (jnp.asarray(g.addr, jnp.int32),))

    def _read_gm(self, g: GlobalTensor):
        raw = lax.dynamic_slice(self._gm[g.buf], (jnp.asarray(g.addr, jnp.int32),), (g.nbytes,))
        return from_gm_bytes(raw, g.dtype.np_dtype, (g.length,))

    def write(self, t: LocalTensor, values):
        """Store ``values`` (converted to t.dtype, little endian) at t's address (UB or GM).

        A host access, not a kernel call: it waits for every call before it (PIPE_ALL)."""
        self._host_barrier("write")
        self._raw_write(t, values)

    def _raw_write(self, t, values):
        if isinstance(t, GlobalTensor):
            return self._write_gm(t, values)
        self._check_live("write", (t,))
        d = t.dtype
        if isinstance(values, jax.Array) or isinstance(values, jax.core.Tracer):
            v = jnp.asarray(values)
            if v.dtype != d.np_dtype:
                v = v.astype(d.np_dtype)
            raw = lax.bitcast_convert_type(v.reshape(-1), jnp.uint8).reshape(-1)
        else:
            arr = np.asarray(values)
            if arr.dtype != d.np_dtype:
                arr = arr.astype(d.np_dtype)
            raw = jnp.asarray(np.ascontiguousarray(arr).reshape(-1).view(np.uint8))
        if raw.shape[0] > t.nbytes:
            raise UsageError("write", "values", f"{raw.shape[0]} bytes", f"<= {t.nbytes} bytes", self.profile)
        ok, addr = self._host_access("write", t)
        self._grow_arena(t.addr + t.nbytes)
        ub = lax.dynamic_update_slice(self.state.ub, raw, (addr,))
        if ok is None:
            self.state = self.state.replace(ub=ub)
        else:
            fault = self.state.fault | jnp.where(ok, jnp.uint32(0), jnp.uint32(int(Fault.OUT_OF_UB)))
            self.state = self.state.replace(ub=jnp.where(ok, ub, self.state.ub), fault=fault)
        if self.state.written is not None:
            w = self.state.written
            new = lax.dynamic_update_slice(w, jnp.ones(raw.shape, jnp.uint8), (addr,))
            self.state = self.state.replace(written=new if ok is None else jnp.where(ok, new, w))

    def _host_barrier(self, api):
        self._flush()
        self._record(api, pipe=_sync.pipe_t.PIPE_ALL, kind="host", accesses=())

    def read(self, t: LocalTensor):
        """The tensor's elements as a NumPy array (eager) or a jnp array (traced); UB or GM.

        A host access, not a kernel call: it waits for every call before it (PIPE_ALL)."""
        self._host_barrier("read")
        return self._raw_read(t)

    def _raw_read(self, t):
        if isinstance(t, GlobalTensor):
            return self._read_gm(t)
        ok, addr = self._host_access("read", t)
        self._grow_arena(t.addr + t.nbytes)
        raw = lax.dynamic_slice(self.state.ub, (addr,), (t.nbytes,))
        if ok is not None:
            raw = jnp.where(ok, raw, jnp.uint8(0))
            fault = self.state.fault | jnp.where(ok, jnp.uint32(0), jnp.uint32(int(Fault.OUT_OF_UB)))
            self.state = self.state.replace(fault=fault)
        if isinstance(raw, jax.core.Tracer):
            if t.dtype.itemsize == 1:
                return lax.bitcast_convert_type(raw, t.dtype.np_dtype)
            return lax.bitcast_convert_type(raw.reshape(-1, t.dtype.itemsize), t.dtype.np_dtype)
        return np.asarray(raw).view(t.dtype.np_dtype).copy()

    def _element(self, api, t, index):
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise UsageError(api, "index", index, f"an int in [0, {t.length})", self.profile)
        if not 0 <= int(index) < t.length:
            raise UsageError(api, "index", int(index), f"an int in [0, {t.length})", self.profile)
        if isinstance(t, GlobalTensor):
            return GlobalTensor(t.dtype, t.buf, t.addr + int(index) * t.dtype.itemsize, 1, t.name)
        return LocalTensor(t.dtype, t.addr + int(index) * t.dtype.itemsize, 1, t.name, t.handle)

    def GetValue(self, t: LocalTensor, index):
        """``LocalTensor::GetValue(index)`` / ``GlobalTensor::GetValue(index)``: one element read
        by the scalar pipe (a traced scalar inside ``jit_kernel``)."""
        if not isinstance(t, GlobalTensor):
            self._check_live("GetValue", (t,))
        one = self._element("GetValue", t, index)
        a = self._tensor_access(one, False, scalar=True)
        c = self._record("GetValue", pipe=_sync.pipe_t.PIPE_S, accesses=(a,) if a else ())
        c.value = True
        return self._run(c, lambda: self._raw_read(one)[0], value=True)

    def SetValue(self, t: LocalTensor, index, value):
        """``LocalTensor::SetValue(index, value)`` / ``GlobalTensor::SetValue``: one element
        stored by the scalar pipe (GM: through the core's DCache)."""
        if not isinstance(t, GlobalTensor):
            self._check_live("SetValue", (t,))
        one = self._element("SetValue", t, index)
        a = self._tensor_access(one, True, scalar=True)
        c = self._record("SetValue", pipe=_sync.pipe_t.PIPE_S, accesses=(a,) if a else ())
        v = jnp.reshape(jnp.asarray(value), (1,)) if not _is_host(value) else np.reshape(value, 1)
        self._run(c, lambda: self._raw_write(one, v))

    # -- the call log (hazards.py) -------------------------------------------------------------
    def _where(self):
        """The source line that made the current call: ``self.source`` (a C++ line), else the
        first Python frame outside this package."""
        if self.source:
            return str(self.source)
        f = sys._getframe(2)
        while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
            f = f.f_back
        return "" if f is None else f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno}"

    def _tensor_access(self, t, write, start=None, end=None, **kw):
        space = "UB" if not isinstance(t, GlobalTensor) else ("GM", t.buf)
        if start is None:
            if _is_jax(t.addr):  # traced: checked per case (hazards.dynamic_races)
                a = jnp.asarray(t.addr).astype(jnp.int32)
                return _hz.Access(space, a, a + t.nbytes, write, **kw)
            if isinstance(t.addr, bool) or not isinstance(t.addr, (int, np.integer)):
                return None
            start, end = int(t.addr), int(t.addr) + t.nbytes
        return _hz.Access(space, start, end, write, **kw)

    def _footprint(self, api, args, kw):
        """The bytes a call reads and writes: every tensor operand over its length (docs/MODEL.md
        "Cores, pipes and sync": a destination parameter is written, the rest read; the APIs
        that accumulate into dst read it too; scratch buffers are written)."""
        sig = _api_signature(api)
        if sig is None:
            return ()
        try:
            bound = sig.bind_partial(None, *args, **kw)
        except TypeError:
            return ()
        if api == "TransDataTo5HD":
            return self._footprint_5hd(bound.arguments)
        has_dst = any(n.startswith("dst") for n in sig.parameters)
        out = []
        for name, val in bound.arguments.items():
            if name == "state":
                continue
            var = sig.parameters[name].kind is inspect.Parameter.VAR_POSITIONAL
            for v in val if isinstance(val, (list, tuple)) else (val,):
                if not isinstance(v, (LocalTensor, GlobalTensor)):
                    continue
                write = name.startswith("dst") or name in _SCRATCH_ARGS
                if var and not has_dst:  # Compare(dst, ...) through *args: the first tensor
                    write, has_dst = True, True
                a = self._tensor_access(v, write)
                if a is not None:
                    out.append(a)
                    if write and (api in _DST_READ_APIS or name in _SCRATCH_ARGS):
                        out.append(dataclasses.replace(a, write=False))
        return tuple(out)

    def _footprint_5hd(self, a):
        """TransDataTo5HD's blocks (``footprint_5hd``: 16 address lists x repeats); the address
        tables of the table form are read (the blocks they name are UB data: not in the log)."""
        dst, src, prm = a.get("dstList"), a.get("srcList"), a.get("nchwconvParams")
        if isinstance(dst, LocalTensor) and isinstance(src, LocalTensor):
            return tuple(x for x in (self._tensor_access(t, False) for t in (dst, src)) if x is not None)
        spans = _footprint_5hd(dst, src, prm)
        if spans is not None:
            return tuple(_hz.Access("UB", b, e, w) for b, e, w in spans)
        out = []  # a traced address or parameter: each listed tensor over its length
        for lst, write in ((dst, True), (src, False)):
            for t in lst if isinstance(lst, (list, tuple)) else ():
                if isinstance(t, LocalTensor):
                    x = self._tensor_access(t, write)
                    if x is not None:
                        out.append(x)
        return tuple(out)

    def _record(self, api, args=(), kw=None, accesses=None, pipe=None, kind="op", event=None):
        """Append the call to this core's log (pipe from ``sync.pipe_of``, the one rule)."""
        if pipe is None:
            spec = REGISTRY.get(api)
            dst = args[0] if args else None
            src = args[1] if len(args) > 1 else None
            pipe = _sync.pipe_of(api, spec.family if spec else "", dst, src)
            if spec is not None and spec.family in _V_CONFIG_FAMILIES:
                # SPEC: the mask / CTRL register writes are scalar instructions whose order with
                # the vector instructions the hardware keeps (核内同步/关键特性说明.md "硬件保证的
                # 同步"): the call log places them in V's program order
                pipe = _sync.pipe_t.PIPE_V
        if accesses is None:
            accesses = self._footprint(api, args, kw or {})
        where = self._where()
        if self._autosync is not None:
            self._autosync.before(self.log, api, pipe, kind, accesses, where)
        return self.log.add(api, pipe, kind, event, accesses, where)

    def _run(self, call, thunk, value=False):
        """Execute a logged call: now (program order), or -- replaying the adversarial schedule --
        when the schedule reaches it. A call that returns a value to the kernel runs now, after
        the calls the schedule puts before it that were issued already."""
        d = self._defer
        if d is None:
            return thunk()
        first = d["log"].calls
        value = value or (call.index < len(first) and first[call.index].value)
        if value:
            self._flush(call.index)
            return thunk()
        d["pending"][call.index] = thunk
        return None

    def _flush(self, upto=None):
        d = self._defer
        if d is None:
            return
        pos = d["pos"]
        lim = None if upto is None else pos.get(upto, upto)
        for _, i in sorted((pos.get(i, i), i) for i in d["pending"]):
            if lim is not None and pos.get(i, i) >= lim:
                break
            d["pending"].pop(i)()

    def finish(self):
        """End of the kernel: every call still waiting in the adversarial replay runs (in the
        schedule's order). A no-op in program order."""
        self._flush()

    # -- cores, pipes and sync (同步控制) -------------------------------------------------------
    def GetBlockIdx(self):
        """``GetBlockIdx()``: this core's index in the launch, in ``[0, GetBlockNum())``."""
        return self.block_idx

    def GetBlockNum(self):
        """``GetBlockNum()``: the launch's ``block_dim``."""
        return self.block_num

    def GetSubBlockIdx(self):
        """``GetSubBlockIdx()``: 0 or 1, the AIV of its AI Core on a 1:2 product (GetSubBlockIdx
        (ISASI).md); 0 on a coupled core. CHOICE: blocks 2c and 2c+1 share AI Core c."""
        return self.block_idx % 2 if self.profile.aic_aiv_ratio == 2 else 0

    def GetTaskRatio(self):
        """``GetTaskRatio()``: 1 (a vector-only kernel; GetTaskRatio.md gives 2 only in a 1:2 mix)."""
        return 1

    def _event_id(self, api, event_id):
        n = self.profile.event_ids
        if isinstance(event_id, (bool, np.bool_)) or not isinstance(event_id, (int, np.integer)):
            raise UsageError(api, "eventID", event_id, f"an int in [0, {n - 1}]", self.profile)
        if not 0 <= int(event_id) < n:
            raise UsageError(
                api,
                "eventID",
                int(event_id),
                f"[0, {n - 1}]",
                self.profile,
                "event IDs of this product (SetFlag-WaitFlag(ISASI).md)",
            )
        return int(event_id)

    def _flag(self, api, event, event_id, kind, label=None):
        e = _sync.as_event(api, event, self.profile)
        i = self._event_id(api, event_id)
        pipe = e.src if kind == "set" else e.dst
        c = self._record(label or api, pipe=pipe, kind=kind, event=(e, i), accesses=())
        if i in self.profile.reserved_event_ids:
            self._reserved.append(c)
        return c

    def SetFlag(self, event, eventID=0):
        """``SetFlag<HardEvent>(eventID)``: runs on the SRC pipe after its earlier calls and sets the
        flag (the model's data are unchanged; the call log orders the pipes)."""
        self._flag("SetFlag", event, eventID, "set")

    def WaitFlag(self, event, eventID=0):
        """``WaitFlag<HardEvent>(eventID)``: later DST-pipe calls wait for the matching SetFlag."""
        self._flag("WaitFlag", event, eventID, "wait")

    def PipeBarrier(self, pipe):
        """``PipeBarrier<pipe>()``: later calls of ``pipe`` (all pipes for PIPE_ALL) start after
        every earlier call of it has finished. PIPE_S is not allowed (PipeBarrier(ISASI).md)."""
        p = _sync.as_pipe("PipeBarrier", pipe, self.profile)
        self._record("PipeBarrier", pipe=p, kind="barrier", accesses=())

    def DataSyncBarrier(self, mode=None):
        """``DataSyncBarrier<MemDsbT>()``: earlier memory accesses finish before later ones (the model
        orders every pipe, as PIPE_ALL)."""
        self._record("DataSyncBarrier", pipe=_sync.pipe_t.PIPE_ALL, kind="barrier", accesses=())

    def SyncAll(self, gmWorkspace=None, ubWorkspace=None, usedCores=None):
        """``SyncAll()`` (hard) or ``SyncAll(gmWorkspace, ubWorkspace[, usedCores])`` (soft): every
        core waits until all reach it. Preconditions checked (SyncAll.md): the soft form's
        workspaces hold at least ``GetBlockNum() * 32`` bytes; the launch must not exceed the
        physical cores (``profile.vector_cores``), or the cores of later rounds never arrive."""
        need = self.block_num * 32
        for name, ws in (("gmWorkspace", gmWorkspace), ("ubWorkspace", ubWorkspace)):
            if ws is not None and ws.nbytes < need:
                raise UsageError(
                    "SyncAll",
                    name,
                    f"{ws.nbytes} bytes",
                    f">= GetBlockNum() * 32 = {need} bytes",
                    self.profile,
                    "SyncAll.md: one 32-byte slot per core",
                )
        if self.block_num > self.profile.vector_cores:
            raise UsageError(
                "SyncAll",
                "block_dim",
                self.block_num,
                f"<= {self.profile.vector_cores} (the product's vector cores)",
                self.profile,
                "SyncAll.md: a launch larger than the physical cores runs in rounds and SyncAll hangs",
            )
        self._record("SyncAll", pipe=_sync.pipe_t.PIPE_ALL, kind="syncall", accesses=())
        # SPEC: every core waits until all reach it (SyncAll.md): the calls this core issued
        # before it complete (the adversarial replay's pending ones too), then the launch's
        # phase scheduler runs the other cores up to their own SyncAll (``_launch``)
        self._flush()
        if self._phase_end is not None:
            self._phase_end()

    def _set_atomic(self, api, kind, dtype):
        d = _dt.as_dtype(dtype)
        allowed = self.profile.atomic_add_dtypes
        if d.name not in allowed:
            raise UsageError(
                api,
                "T",
                d.name,
                ", ".join(allowed) or "none (the product has no DMA atomics in the docs)",
                self.profile,
                "SetAtomicAdd.md 支持的数据类型",
            )
        self._record(api, pipe=_sync.pipe_t.PIPE_S, accesses=())
        self._atomic = (kind, d.name)

    def SetAtomicAdd(self, dtype):
        """``SetAtomicAdd<T>()``: later copies UB -> GM add into GM (``GM = GM + data``, not zeroed
        first; SetAtomicAdd.md)."""
        self._set_atomic("SetAtomicAdd", "add", dtype)

    def SetAtomicMax(self, dtype):
        """``SetAtomicMax<T>()``: later copies UB -> GM keep the larger value."""
        self._set_atomic("SetAtomicMax", "max", dtype)

    def SetAtomicMin(self, dtype):
        """``SetAtomicMin<T>()``: later copies UB -> GM keep the smaller value."""
        self._set_atomic("SetAtomicMin", "min", dtype)

    def SetAtomicType(self, dtype):
        """``SetAtomicType<T>()``: the dtype of the atomic operation already enabled (SetAtomicType.md)."""
        if self._atomic is None:
            _dt.as_dtype(dtype)
            self._record("SetAtomicType", pipe=_sync.pipe_t.PIPE_S, accesses=())
            return
        self._set_atomic("SetAtomicType", self._atomic[0], dtype)

    def DisableDmaAtomic(self):
        """``DisableDmaAtomic()`` (formerly ``SetAtomicNone``): copies to GM overwrite again."""
        self._record("DisableDmaAtomic", pipe=_sync.pipe_t.PIPE_S, accesses=())
        self._atomic = None

    SetAtomicNone = DisableDmaAtomic

    def _queue_sync(self, api, kind, pipe, key):
        """A flag implied by a TQue operation (pipe.py): ``key`` names the buffer and direction."""
        self._has_queues = True
        return self._record(api, pipe=pipe, kind=kind, event=(key, 0), accesses=())

    def _atomic_gm(self, run, dst):
        """An atomic copy UB -> GM: the copy's bytes combined with GM's (add/max/min in the atomic
        dtype). The written bytes are found by running the copy onto all-zero and all-one GM."""
        kind, dname = self._atomic
        old = self._gm[dst.buf]
        d = _dt.as_dtype(dname)
        zeros = jnp.zeros_like(old)
        ones = jnp.full_like(old, 0xFF)
        g0 = run(self._gm[: dst.buf] + [zeros] + self._gm[dst.buf + 1 :])
        g1 = run(self._gm[: dst.buf] + [ones] + self._gm[dst.buf + 1 :])
        data = g0[dst.buf]
        written = (g0[dst.buf] != 0) | (g1[dst.buf] != 0xFF)
        n = old.shape[-1] // d.itemsize * d.itemsize
        if n == 0:
            return old

        def typed(b):
            return lax.bitcast_convert_type(b[..., :n].reshape(b.shape[:-1] + (-1, d.itemsize)), d.np_dtype)

        a, b = typed(old), typed(data)
        if kind == "add":
            if d.name in ("half", "bfloat16"):
                # SPEC (model): the hardware's add rounds once; f32 holds the exact sum of two
                # 16-bit floats closely enough (p >= 2p+2) that one rounding to 16 bits is exact.
                r = (a.astype(jnp.float32) + b.astype(jnp.float32)).astype(d.np_dtype)
            else:
                r = a + b  # CHOICE: integer atomic add wraps (docs silent)
        elif kind == "max":
            r = jnp.maximum(a, b)
        else:
            r = jnp.minimum(a, b)
        w = written[..., :n].reshape(written.shape[:-1] + (-1, d.itemsize)).any(-1)
        r = jnp.where(w, r, a)
        rb = lax.bitcast_convert_type(r, jnp.uint8).reshape(old.shape[:-1] + (n,))
        out = jnp.concatenate([rb, old[..., n:]], axis=-1) if n < old.shape[-1] else rb
        return jnp.where(written, out, old)

    # -- calls -------------------------------------------------------------------------------
    def _check_live(self, name, args, kw=None):
        """Use after free: a LocalTensor whose TQue/TBuf buffer was freed may not reach an API."""
        for a in list(args) + list((kw or {}).values()):
            if isinstance(a, (list, tuple)):
                self._check_live(name, a)
            elif isinstance(a, LocalTensor) and a.handle is not None and a.handle.freed:
                raise UsageError(
                    name,
                    "tensor",
                    repr(a),
                    "a tensor that is allocated (AllocTensor'ed and not yet freed)",
                    self.profile,
                    f"use after free: {a.handle.describe()}",
                )

    def _copy_call(self, api, dst, src, params, run, extra=(), fkw=None):
        """A DataCopy/DataCopyPad call: logged with its footprint (``copy_footprint``, the engine's
        block rule; the layout forms' element map) and run; UB -> GM under SetAtomicAdd/Max/Min
        combines with GM."""
        dspan, sspan = copy_footprint(api, dst, src, params, extra, **(fkw or {}))
        regs = getattr(self.state, "loop_mode", None)
        loop = (
            regs.get(isinstance(src, GlobalTensor))
            if regs is not None and isinstance(src, GlobalTensor) != isinstance(dst, GlobalTensor)
            else None
        )
        if loop is not None:  # SetLoopModePara: the iterations reach (l1-1)*stride1 + (l2-1)*stride2 further
            l1, l2, s1, d1, s2, d2 = loop
            far = max(l1 - 1, 0), max(l2 - 1, 0)
            dspan = None if dspan is None else (dspan[0], dspan[1] + far[0] * d1 + far[1] * d2)
            sspan = None if sspan is None else (sspan[0], sspan[1] + far[0] * s1 + far[1] * s2)
        atomic = self._atomic if isinstance(dst, GlobalTensor) else None
        acc = []
        for t, sp, w in ((dst, dspan, True), (src, sspan, False)):
            extra = {"atomic": atomic[0], "dtype": atomic[1]} if (w and atomic) else {}
            if sp is not None:
                acc.append(self._tensor_access(t, w, sp[0], sp[1], **extra))
            elif _is_jax(t.addr):  # a traced address: the tensor's extent, checked per case
                acc.append(self._tensor_access(t, w, **extra))
        c = self._record(api, (dst, src), accesses=tuple(acc))

        def thunk():
            self._begin()
            with self._restoring():
                if atomic is None:
                    state, gm = run(self.state, self._gm)
                    self._gm = list(gm)
                else:
                    box = {}

                    def on(g):
                        box["state"], out = run(self.state, g)
                        return list(out)

                    saved = self._atomic
                    self._atomic = atomic
                    try:
                        new = self._atomic_gm(on, dst)
                    finally:
                        self._atomic = saved
                    self._gm = self._gm[: dst.buf] + [new] + self._gm[dst.buf + 1 :]
                    state = box["state"]
            self._after(api, self._mark_dst(api, state, (dst, src, params)))

        self._run(c, thunk)

    def DataCopy(self, dst, src, countOrParams, *more, **kw):
        """``DataCopy(dst, src, count | DataCopyParams)``: GM -> UB, UB -> GM or UB -> UB; the layout
        forms ``DataCopy(dst, src, Nd2NzParams | Nz2NdParamsFull | NdDmaParams)`` and
        ``DataCopy(dst, src, dstSliceInfo, srcSliceInfo, dimValue)``."""
        self._check_live("DataCopy", (dst, src))
        kw.setdefault("profile", self.profile)
        fkw = {k: kw[k] for k in ("profile", "config", "enableSmallC0") if k in kw}
        self._copy_call(
            "DataCopy",
            dst,
            src,
            countOrParams,
            lambda st, gm: _api.DataCopy(st, tuple(gm), dst, src, countOrParams, *more, **kw),
            extra=more,
            fkw=fkw,
        )

    def DataCopyPad(self, dst, src, dataCopyParams, padParams=None, **kw):
        """``DataCopyPad(dst, src, DataCopyExtParams[, DataCopyPadExtParams])``: unaligned GM <-> UB."""
        self._check_live("DataCopyPad", (dst, src))
        kw.setdefault("profile", self.profile)
        self._copy_call(
            "DataCopyPad",
            dst,
            src,
            dataCopyParams,
            lambda st, gm: _api.DataCopyPad(st, tuple(gm), dst, src, dataCopyParams, padParams, **kw),
        )

    def _begin(self):
        """Eager: run the next call on a zero warning word, so ``warn_at`` names this call's first
        warning (``_after`` records it in ``self.warnings`` and restores the word)."""
        st = self.state
        self._saved_warn = None
        self._static_mark = len(self.warnings)
        if st.warn is not None and not isinstance(st.warn, jax.core.Tracer):
            self._saved_warn = (st.warn, st.warn_at)
            self.state = st.replace(warn=jnp.zeros_like(st.warn), warn_at=jnp.zeros_like(st.warn_at))

    @contextlib.contextmanager
    def _restoring(self):
        """A call that raises (UsageError, ...) leaves the warning word as it was."""
        try:
            yield
        except BaseException:
            self._end()
            raise

    def _end(self):
        """A call that returned no state: restore the saved warning word."""
        if self._saved_warn is not None:
            self.state = self.state.replace(warn=self._saved_warn[0], warn_at=self._saved_warn[1])
        self._saved_warn = None

    def _mark_dst(self, name, state, args):
        """check_uninit: an API whose engine does not track written bytes marks its whole dst
        LocalTensor written (a DataCopy count form: its first count elements) -- never a false
        uninitialised-read warning, possibly a missed one (docs/MODEL.md)."""
        if state.written is None or name in _precise_apis() or name in _READ_ONLY_FIRST:
            return state
        dst = args[0] if args else None
        if not isinstance(dst, LocalTensor) or isinstance(dst, GlobalTensor):
            return state
        n = dst.nbytes
        if name == "DataCopy" and len(args) > 2 and isinstance(args[2], (int, np.integer)):
            n = max(0, min(n, int(args[2]) * dst.dtype.itemsize))
        if n == 0:
            return state
        w = state.written
        start = jnp.clip(jnp.asarray(dst.addr, jnp.int32), 0, max(w.shape[-1] - n, 0))
        ones = jnp.ones(w.shape[:-1] + (min(n, w.shape[-1]),), jnp.uint8)
        new = lax.dynamic_update_slice(w, ones, (0,) * (w.ndim - 1) + (start,))
        return state.replace(written=new)

    def _after(self, name, new_state):
        old_fault = self.state.fault
        if self._saved_warn is not None and new_state.warn is not None:
            ow, oa = self._saved_warn
            nw, na = np.asarray(new_state.warn), np.asarray(new_state.warn_at)
            pairs = zip(nw.reshape(-1), na.reshape(-1, 2), strict=True)
            for w, a in sorted({(int(w), (int(a[0]), int(a[1]))) for w, a in pairs}):
                if w:
                    self._record_dynamic(w, a)
            first = ow == 0
            new_state = new_state.replace(
                warn=ow | new_state.warn, warn_at=jnp.where(first[..., None], new_state.warn_at, oa)
            )
        self._saved_warn = None
        self.state = new_state
        if self.fault_policy == "raise" and not isinstance(new_state.fault, jax.core.Tracer):
            f = int(np.bitwise_or.reduce(np.ravel(np.asarray(new_state.fault))))
            o = int(np.bitwise_or.reduce(np.ravel(np.asarray(old_fault))))
            if f & ~o:
                raise AscendFault(f & ~o, name)

    def _warn(self, api, argument, detail):
        w = CheckerWarning(api, argument, detail)
        if w not in self.warnings:
            self.warnings.append(w)

    def _record_dynamic(self, w, at):
        """Eager: one call's warning word as a CheckerWarning naming the first (API, argument) pair
        (the lowest kind bit; ``checks.py``); an EXTENT the static count check already named for
        this call is not repeated."""
        api = _checks.WARN_APIS[at[0] - 1] if 0 < at[0] <= len(_checks.WARN_APIS) else "?"
        arg = _checks.WARN_ARGS[at[1] - 1] if 0 < at[1] <= len(_checks.WARN_ARGS) else "?"
        kinds = [k for k in _checks.Warn if w & k]
        first = kinds[0]
        if first == _checks.Warn.EXTENT and any(
            x.api == api and x.argument == arg for x in self.warnings[self._static_mark :]
        ):
            kinds = kinds[1:]
            if not kinds:
                return
        text = _KIND_TEXT[kinds[0]]
        if len(kinds) > 1:
            text += " (also: " + ", ".join(k.name for k in kinds[1:]) + ")"
        self._warn(api, arg, text)

    def _extent_warnings(self, name, args):
        """Checker warnings for what the hardware does without complaint but a developer wants to
        know: a count-form call (static count) whose operands extend beyond their LocalTensor (the
        NPU reads/overwrites the neighbouring bytes; the model does too). Recorded in
        ``self.warnings``; the results are unchanged."""
        # count form of the element-wise APIs: (dst, src, scalar, count) / (dst, src0, src1, count)
        if name not in _STATE_APIS + ("ShiftLeft", "ShiftRight", "ShiftLeftTensor", "ShiftRightTensor"):
            return
        if name in _STATE_APIS and len(args) > 2 and _flexible_shape(args[1], args[2]):
            return  # the 灵活标量位置 overload (AddsFlexible ...): its engine reports the extents
        if (
            len(args) != 4
            or isinstance(args[-1], (bool, np.bool_))
            or not isinstance(args[-1], (int, np.integer))
        ):
            return
        count = int(args[-1])
        names = (
            ("dst", "src", "scalarValue")
            if name in _STATE_APIS or "Tensor" not in name
            else ("dst", "src0", "src1")
        )
        for arg_name, t in zip(names, args[:3], strict=True):
            if isinstance(t, LocalTensor) and count > t.length:
                self._warn(
                    name,
                    arg_name,
                    f"count={count} elements reach beyond {t!r} ({t.length} elements): the call "
                    f"{'writes' if arg_name == 'dst' else 'reads'} {count - t.length} elements of the neighbouring UB",
                )

    def _call_state_api(self, name, *args, **kw):
        self._check_live(name, args, kw)
        c = self._record(name, args, kw)
        self._run(c, lambda: self._state_api(name, *args, **kw))

    def _state_api(self, name, *args, **kw):
        self._begin()
        self._extent_warnings(name, args)
        fn = getattr(_api, name)
        kw.setdefault("profile", self.profile)
        if (
            self._mode_shadow == 1
            and "max_repeats" not in kw
            and isinstance(self.state.vmask, jax.core.Tracer)
        ):
            if self._counter_shadow is not None:
                dt = args[0].dtype
                kw["max_repeats"] = max(1, math.ceil(self._counter_shadow / self.profile.lanes(dt)))
        with self._restoring():
            new = fn(self.state, *args, **kw)
        self._after(name, new)

    def _call_reg_api(self, name, *args, **kw):
        self._check_live(name, args, kw)
        c = self._record(name, args, kw)
        self._run(c, lambda: self._reg_api(name, *args, **kw))

    def _reg_api(self, name, *args, **kw):
        fn = getattr(_api, name)
        kw.setdefault("profile", self.profile)
        if name == "SetMaskCount":
            self._mode_shadow = 1
        elif name == "SetMaskNorm":
            self._mode_shadow = 0
        elif name == "SetVectorMask":
            vals = args[1:]
            self._counter_shadow = int(vals[-1]) if vals and isinstance(vals[-1], int) else None
        self.state = fn(self.state, *args, **kw)

    def _call_get_api(self, name, *args, **kw):
        self._check_live(name, args, kw)
        c = self._record(name, args, kw)
        c.value = True
        kw.setdefault("profile", self.profile)
        return self._run(c, lambda: getattr(_api, name)(self.state, *args, **kw), value=True)


def _method(name, kind):
    def m(self, *args, **kw):
        return getattr(self, kind)(name, *args, **kw)

    m.__name__ = name
    m.__doc__ = f"Eager/traced ``{name}``: same arguments as ``ascend_jax.{name}`` without state/profile."
    return m


def _generic(name):
    """Any other registered API: the result may be a state, (state, out-parameter) or a value."""

    def m(self, *args, **kw):
        self._check_live(name, args, kw)
        c = self._record(name, args, kw)

        def thunk():
            res = call(self, *args, **kw)
            c.value = c.value or res is not None
            return res

        return self._run(c, thunk)

    def call(self, *args, **kw):
        self._begin()
        self._extent_warnings(name, args)
        kw.setdefault("profile", self.profile)
        with self._restoring():
            res = REGISTRY[name].fn(self.state, *args, **kw)
        if isinstance(res, CoreState):
            self._after(name, self._mark_dst(name, res, args))
            return None
        if isinstance(res, tuple) and len(res) == 2 and isinstance(res[0], CoreState):
            self._after(name, self._mark_dst(name, res[0], args))
            return res[1]
        self._end()
        return res

    m.__name__ = name
    m.__doc__ = f"Eager/traced ``{name}``: same arguments as ``ascend_jax.{name}`` without state/profile."
    return m


for _n in _STATE_APIS:
    setattr(Kernel, _n, _method(_n, "_call_state_api"))
for _n in _REG_APIS:
    setattr(Kernel, _n, _method(_n, "_call_reg_api"))
for _n in _GET_APIS:
    setattr(Kernel, _n, _method(_n, "_call_get_api"))
for _n in list(REGISTRY):  # populated by the import of .api above
    if not hasattr(Kernel, _n):
        setattr(Kernel, _n, _generic(_n))


def _flexible_shape(src, scalar):
    return isinstance(scalar, LocalTensor) or not isinstance(src, LocalTensor)


def _is_jax(x):
    return isinstance(x, (jax.Array, jax.core.Tracer))


@functools.cache
def _api_signature(api):
    spec = REGISTRY.get(api)
    if spec is None or spec.fn is None:
        return None
    try:
        return inspect.signature(spec.fn)
    except (TypeError, ValueError):
        return None


_KIND_TEXT = {
    _checks.Warn.EXTENT: "EXTENT: an active lane lies outside this LocalTensor (the call reaches the neighbouring UB)",
    _checks.Warn.SIZE: "SIZE: a documented size/alignment requirement is not met (the hardware runs it)",
    _checks.Warn.UNINIT: "UNINIT: the call reads UB bytes never written since reset",
}
# APIs whose first tensor is read, not written (the check_uninit fallback marks no dst for them)
_READ_ONLY_FIRST = ("SetCmpMask", "CompareCmpMask")


@functools.cache
def _precise_apis():
    """The APIs whose engine (_engine/pipeline.py run_strided) marks written bytes lane by lane."""
    from .api import binary, binary_scalar, fill, unary, unary_scalar

    names = set(binary.API_CODES) | set(binary_scalar.API_CODES) | set(fill.API_CODES)
    names |= set(unary.API_CODES) | set(unary_scalar.API_CODES)
    names |= {"ShiftLeft", "ShiftRight", "ShiftLeftTensor", "ShiftRightTensor", "GetCmpMask"}
    return frozenset(names)


class CheckerWarning(NamedTuple):
    """A checker warning: hardware-legal, results unchanged, but probably not what the kernel
    author meant (an operand beyond its LocalTensor, ...). ``Kernel.warnings``, ``jit_kernel(...)
    .warnings`` (per GM signature, found at trace time)."""

    api: str
    argument: str
    detail: str

    def __str__(self):
        return f"{self.api}: {self.argument}: {self.detail}"


class _KernelResult(NamedTuple):
    gm: tuple
    out: Any
    state: Any


class KernelResult(_KernelResult):
    """What a kernel run returns (a pytree): ``gm`` the final contents of every positional GM array
    (same order, shape and dtype), ``out`` the kernel function's return value (or None), ``state``
    the final CoreState when asked for (``return_state=True``), else None.

    Checker warnings (attributes, not pytree fields; never change the bits): ``warn`` (uint32 per
    case: OR of ``checks.Warn`` bits), ``warn_at`` (int32 [..., 2]: API and argument code of each
    case's first warning) and ``warnings`` (``run_kernel``: the Kernel's CheckerWarning list;
    ``jit_kernel``: one ``checks.describe`` line per case, "" for a clean case)."""

    warn = None
    warn_at = None
    warnings = ()
    findings = ()  # hazards.Finding: races, sync errors, multi-core overlaps (never change the bits)
    schedule = "program"
    logs = ()  # hazards.CallLog per core, program order (what the findings were computed from)
    # traced addresses: the unordered pairs that may conflict, and per case whether one did
    case_findings = ()
    race_cases = None


def _describe_cases(warn, warn_at):
    """``checks.describe`` per case ("" for a clean case), each distinct warning described once
    (a per-case Python loop cost ~0.6 us a case, a third of a small kernel's batched time)."""
    w = np.asarray(warn).reshape(-1)
    at = np.asarray(warn_at).reshape(-1, 2)
    lines = [""] * w.size
    hit = np.flatnonzero(w)
    if hit.size:
        keys = np.stack([w[hit].astype(np.int64), at[hit, 0], at[hit, 1]], axis=1)
        uniq, inv = np.unique(keys, axis=0, return_inverse=True)
        text = [_checks.describe(k[0], k[1:]) for k in uniq]
        for i, j in zip(hit.tolist(), inv.reshape(-1).tolist(), strict=True):
            lines[i] = text[j]
    return tuple(lines)


def _gm_spec(a, batched):
    """(host?, NumPy dtype, per-case shape) of one positional GM argument."""
    host = not _is_jax(a)
    arr = np.asarray(a) if host else a
    shape = tuple(arr.shape[1:] if batched else arr.shape)
    return host, np.dtype(arr.dtype), shape


_HOST_ALIGN = 64  # JAX on CPU reads a 64-byte aligned host array in place, any other one it copies


class _Staging:
    """Host buffers, 64-byte aligned and kept between calls, that a stepped program's NumPy GM
    inputs are copied into (CPU). JAX then reads them in place, and the copy goes to pages already
    mapped by the previous call, where ``device_put`` of an unaligned array copies it into a fresh
    allocation (page faults: ~8 us per case of 16 KB against ~2 for the copy; benchmarks/README.md).
    One call at a time uses them (a lock; a concurrent call copies as before), and that call waits
    for its results before releasing them."""

    def __init__(self):
        self.lock = threading.Lock()
        self._bufs = {}

    def clear(self):
        self._bufs.clear()

    def put(self, i, hb):
        if hb.ctypes.data % _HOST_ALIGN == 0:
            return jax.device_put(hb)
        buf = self._bufs.get(i)
        if buf is None or buf.shape != hb.shape:
            raw = np.empty(hb.nbytes + _HOST_ALIGN, np.uint8)
            off = -raw.ctypes.data % _HOST_ALIGN
            buf = self._bufs[i] = raw[off : off + hb.nbytes].reshape(hb.shape)
        np.copyto(buf, hb)
        return jax.device_put(buf)


def _host_bytes(a, batched):
    """A NumPy array as uint8 bytes ([B, nbytes] when batched), so 64-bit types survive x64=False."""
    arr = np.ascontiguousarray(np.asarray(a))
    if arr.dtype == np.bool_:
        arr = arr.astype(np.uint8)
    if batched:
        return arr.reshape(arr.shape[0], -1).view(np.uint8)
    return arr.reshape(-1).view(np.uint8)


def _accepts(fn, name):
    """Whether ``fn(k, *gm, **params)`` takes the keyword ``name`` (True when unknown)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    ps = sig.parameters.values()
    if any(q.kind is inspect.Parameter.VAR_KEYWORD for q in ps):
        return True
    return any(
        q.name == name and q.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        for q in ps
    )


def _numeric(v):
    """The dtype of an array-like GM array or parameter, or None when it is not numeric data."""
    if _is_jax(v):
        return v.dtype
    if v is None or isinstance(v, (str, bytes)):
        return None
    try:
        a = np.asarray(v)
    except (TypeError, ValueError):
        return None
    if a.dtype == object or a.dtype.kind not in "biufc":
        return None
    return a.dtype


def _check_kernel_args(api, fn, p, arrays, params, batched):
    """``jit_kernel``/``run_kernel`` entry checks, in the project's words: GM arrays and kernel
    parameters are numeric arrays, every keyword is one ``fn`` takes, and (batched) every argument
    has the same leading batch axis."""
    lead = {}
    for j, a in enumerate(arrays):
        if _numeric(a) is None:
            raise UsageError(api, f"GM array {j}", type(a).__name__, "a NumPy or jax array of numbers", p)
        gm_dtype_of(a, api, f"GM array {j}", p)  # an element type Ascend has (not complex64, ...)
        if batched:
            if np.ndim(a) < 1:
                raise UsageError(api, f"GM array {j}", f"shape {np.shape(a)}", "a leading batch axis", p)
            lead[f"GM array {j}"] = np.shape(a)[0]
    for n, v in params.items():
        if not _accepts(fn, n):
            raise UsageError(api, n, "(keyword)", f"a keyword parameter of {getattr(fn, '__name__', fn)}", p)
        if _numeric(v) is None:
            raise UsageError(api, n, v if v is None else type(v).__name__, "a number or numeric array", p)
        if batched:
            if np.ndim(v) < 1:
                raise UsageError(
                    api, n, f"shape {np.shape(v)}", "a leading batch axis (one value per case)", p
                )
            lead[n] = np.shape(v)[0]
    if len(set(lead.values())) > 1:
        raise UsageError(
            api,
            "batch size",
            ", ".join(f"{k}: {b}" for k, b in lead.items()),
            "the same leading batch size for every GM array and parameter",
            p,
        )
    if 0 in lead.values():  # SPEC (model): docs/MODEL.md "Bad input at the kernel level"
        raise UsageError(api, "batch size", 0, "at least one case", p, "a batch of zero cases runs nothing")


def case_sharding(sharding, api="jit_kernel", profile=None):
    """The sharding of a batch's leading (case) axis, or None (one device). ``sharding``: None;
    ``"all"`` (every local device); an int N (the first N local devices); a sequence of devices; a
    ``jax.sharding.Mesh`` (the case axis split over all its axes); or a ``jax.sharding.Sharding``
    (used as given). Anything else is a ``UsageError`` naming ``sharding``."""
    from jax.sharding import Mesh, NamedSharding, PartitionSpec, Sharding

    if sharding is None or isinstance(sharding, Sharding):
        return sharding
    if isinstance(sharding, Mesh):
        return NamedSharding(sharding, PartitionSpec(sharding.axis_names))
    local = jax.local_devices()
    devs = None
    if isinstance(sharding, str) and sharding == "all":
        devs = local
    elif isinstance(sharding, (int, np.integer)) and not isinstance(sharding, (bool, np.bool_)):
        devs = local[: int(sharding)] if 1 <= int(sharding) <= len(local) else None
    elif (
        isinstance(sharding, (list, tuple)) and sharding and all(isinstance(d, jax.Device) for d in sharding)
    ):
        devs = list(sharding)
    if devs is None:
        raise UsageError(
            api,
            "sharding",
            sharding,
            f'None, "all", a device count 1..{len(local)}, a list of devices, a jax.sharding.Mesh or Sharding',
            as_profile(profile),
        )
    return NamedSharding(Mesh(np.array(devs), ("cases",)), PartitionSpec("cases"))


def padded_cases(n, sharding):
    """``n`` cases rounded up to a multiple of the sharding's device count (the case axis splits
    evenly; the padding cases are dropped from the results)."""
    d = 1 if sharding is None else len(sharding.device_set)
    return -(-n // d) * d


def place_cases(tree, sharding, n):
    """Every array leaf of ``tree`` with a leading axis of ``n`` cases placed split over that axis
    (other leaves unchanged); ``tree`` itself when ``sharding`` is None. Each case still runs whole
    on one device, so the bits are those of an unsharded run."""
    if sharding is None:
        return tree

    def put(x):
        if isinstance(x, (np.ndarray, jax.Array)) and x.ndim >= 1 and x.shape[0] == n:
            return jax.device_put(x, sharding)
        return x

    return jax.tree_util.tree_map(put, tree)


STEP_BYTES = 4 << 20
"""CPU: a batched kernel runs its cases in loop steps of about this many GM bytes (docs/MODEL.md
"Batches in steps")."""


def cases_per_step(step, n_cases, case_bytes, api="jit_kernel", profile=None):
    """Cases one loop step of a batched kernel runs; ``None``: the whole batch at once.

    ``step``: ``None`` (auto: on CPU, the power of two nearest below ``STEP_BYTES / case_bytes``,
    at least 8; on other platforms the whole batch), 0 (the whole batch) or a positive int."""
    if step is None:
        if jax.default_backend() != "cpu":
            return None
        step = max(8, 1 << max(0, int(STEP_BYTES // max(1, case_bytes)).bit_length() - 1))
    elif isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 0:
        raise UsageError(api, "step", step, "None (auto), 0 (whole batch) or a positive int", profile)
    step = int(step)
    return None if step == 0 or n_cases is None or n_cases <= step else step


def _in_steps(vf, step):
    """``vf`` (vmapped over a leading case axis) run over the batch ``step`` cases at a time.

    A loop whose body is the vmapped kernel at ``step`` cases: every buffer of a step (the UB
    arenas, the fault words) stays cache-sized and is reused, where the whole batch at once makes
    each of them a fresh batch-sized allocation (page faults on every call) and passes over it
    from memory. One trace of ``vf`` (a ``scan`` over the steps' start cases). The last step starts
    at ``n - step``: its first cases repeat the step before it and their outputs are dropped (each
    case's outputs depend only on that case's inputs, so either copy has the same bits)."""

    def run(*raws, **params):
        xs = (raws, params)
        n = jax.tree_util.tree_leaves(xs)[0].shape[0]
        n_steps = -(-n // step)
        starts = np.minimum(np.arange(n_steps) * step, n - step).astype(np.int32)

        def body(carry, start):
            a = jax.tree_util.tree_map(lambda x: lax.dynamic_slice_in_dim(x, start, step, 0), xs)
            return carry, vf(*a[0], **a[1])

        _, ys = lax.scan(body, None, starts)  # [n_steps, step, ...]
        tail = n_steps * step - n  # cases the last step repeats

        def whole(y):
            flat = y.reshape((n_steps * step,) + y.shape[2:])
            return flat if tail == 0 else jnp.concatenate([flat[: (n_steps - 1) * step], y[-1, tail:]])

        return jax.tree_util.tree_map(whole, ys)

    return run


def _pad_rows(x, total):
    """``x`` (leading case axis) padded to ``total`` rows with copies of case 0."""
    n = x.shape[0]
    if n == total:
        return x
    xp = np if isinstance(x, np.ndarray) else jnp
    return xp.concatenate([x, xp.repeat(x[:1], total - n, axis=0)], axis=0)


def static_params():
    """Context manager (opt-in): API calls traced inside it (under ``jax.jit``, or a first
    ``jit_kernel`` call) keep the arguments given as Python ints -- addresses, strides, repeat
    times, counts -- static: the engines run inline, their access patterns and address-only fault
    checks are decided at trace time and the data move with static slices. The bits are those of
    the traced path (tests/test_static_paths.py). Not the default: on CPU it measured slower than
    XLA's own folding of the constant indices on most kernels (benchmarks/README.md). Outside a jit
    trace the calls run op by op (correct, slow)."""
    return _static.inline_engines()


def jit_kernel(
    fn,
    profile=None,
    ub_bytes=None,
    batched=True,
    return_state=False,
    sharding=None,
    check_uninit=False,
    step=None,
    block_dim=1,
    schedule="program",
    auto_sync=False,
):
    """Trace ``fn(k, *gm, **params)`` (a kernel written against ``Kernel``) into one compiled function.

    ``block_dim``: the launch's cores (``<<<block_dim, ...>>>``): ``fn`` runs once per core with its
    own Kernel (UB, registers, queues, flags; ``k.GetBlockIdx()``), GM shared, all in the one
    program. ``schedule``: "program" (each core's calls in program order, core 0 first) or
    "adversarial" (every call as late as the happens-before allows, the cores last to first:
    a missing sync shows in the bits). The call logs are checked at trace time: the result's
    ``findings`` (and ``run.findings`` per GM signature) list every race, sync error and
    multi-core overlap (``ascend_jax.hazards``; docs/MODEL.md "Cores, pipes and sync").
    ``auto_sync``: add the syncs bisheng's ``--cce-auto-sync=on`` inserts between the scalar pipe and
    V / MTE2 / MTE3 around GetValue / SetValue (``ascend_jax.autosync``; the C++ front end's
    default). Off by default: a Python kernel is not compiled by bisheng. It changes the findings
    and the adversarial schedule, never a program-order result.

    ``run(*arrays, **params)``: every positional argument is a GM array (NumPy or jax; with
    ``batched=True`` it carries a leading batch axis) that reaches ``fn`` as a ``GlobalTensor``;
    keyword arguments are traced kernel parameters (jnp arrays, batched likewise), so sweeping them
    never recompiles. The whole batch runs in one program (vmap). Returns a ``KernelResult``:
    ``gm`` = the final GM arrays (NumPy arrays for NumPy inputs, jax arrays for jax inputs), ``out``
    = fn's return value, ``state`` = the final CoreState when ``return_state`` (fault bits are
    recorded per case, never raised inside the program).

    ``ub_bytes``: ``None`` (default) gives each case a UB *arena* sized to what the kernel
    allocates (the TPipe / ``alloc`` high-water mark, 32-byte rounded) instead of the whole UB;
    ``"full"`` gives every case the profile's whole UB; an int gives every case that many bytes.
    The arena never changes a result: addresses are handed out from the whole UB, and when some
    case of a batch touches UB beyond its arena (an ``OUT_OF_UB`` fault in the arena program) the
    batch is run again with the whole UB and that run's results are returned (docs/MODEL.md "The
    UB arena"). With ``return_state`` the state's ``ub`` is then the arena (or the whole UB).

    ``sharding`` (batched only): split the batch over several devices (``case_sharding``: ``"all"``
    local devices, a count, a Mesh or a Sharding). The batch is padded to a multiple of the device
    count with copies of case 0 (dropped from the results); every case runs whole on one device, so
    the GM bits are those of an unsharded run.
    ``check_uninit``: also warn on reads of never-written UB bytes (result ``warn`` / ``warnings``).
    ``step`` (batched, unsharded): the batch runs in a loop of ``step`` cases at a time, the same
    bits as at once; ``None`` (default) sizes the steps to the cache on CPU and runs the whole
    batch at once elsewhere, 0 always runs it at once (``cases_per_step``). A stepped program on
    CPU copies NumPy GM inputs into aligned host buffers that it keeps for the next call (as large
    as the last batch's NumPy GM inputs; JAX reads them in place; ``run.release()`` frees them).
    """
    p = as_profile(profile)
    cases_per_step(step, None, 1, "jit_kernel", p)  # a bad ``step`` raises here
    block_dim = _check_launch("jit_kernel", p, block_dim, schedule)
    auto_sync = _check_auto_sync("jit_kernel", p, auto_sync)
    findings = {}  # GM signature -> [hazards.Finding] (trace time)
    logs = {}  # GM signature -> the launch's call logs (trace time)
    case_findings = {}  # GM signature -> races possible where addresses are traced (per case)
    if sharding is not None and not batched:
        raise UsageError("jit_kernel", "sharding", sharding, "None when batched=False (no case axis)", p)
    shard = case_sharding(sharding, "jit_kernel", p)
    compiled = {}
    staging = _Staging()
    warned = {}  # GM signature -> [CheckerWarning]
    arena = ub_bytes is None
    fixed_ub = check_ub_bytes("jit_kernel", ub_bytes, p)  # None: the arena or ("full") the whole UB

    def build(specs, use_arena):
        def one(*raws, _trim=False, **params):
            gts, first = [], []

            def new_kernel(core, prev):
                k = Kernel(
                    p,
                    ub_bytes=fixed_ub,
                    fault_policy="record",
                    arena=use_arena,
                    check_uninit=check_uninit,
                    block_idx=core,
                    block_num=block_dim,
                    auto_sync=auto_sync,
                )
                if prev is not None:  # GM is shared by the cores
                    k.share_gm(prev)
                    return k
                made = []
                for raw, (host, npd, shape) in zip(raws, specs, strict=True):
                    if host:  # already bytes
                        k._gm.append(raw)
                        k._gm_meta.append((npd, shape))
                        made.append(gm_tensor(npd, len(k._gm) - 1, raw.shape[-1]))
                    else:
                        made.append(k.gm(raw))
                if not gts:
                    gts.extend(made)
                    first.extend(k._gm)
                return k

            # (``static_params`` -- engines inline, Python-int parameters static -- is not on by
            # default: measured slower than XLA's own folding of the constant indices on four of
            # the five ops it was tried on; benchmarks/README.md)
            ctx = _numerics.batch_axis(_CASE_AXIS) if batched else contextlib.nullcontext()
            with ctx:  # batch-wide decisions (the soft-float gate) reduce over the case axis
                ks, outs, k, found = _launch(fn, new_kernel, gts, params, block_dim, schedule)
            # static: found while tracing, the same for every case
            warned[specs] = list(dict.fromkeys(w for kk in ks for w in kk.warnings))
            findings[specs] = found
            logs[specs] = k.launch["logs"]
            case_findings[specs] = k.launch["case_findings"]
            race = k.launch["race"]
            # _trim: a GM array the kernel never wrote is not an output (the caller returns its input)
            gm = tuple(
                None if _trim and raw is was else raw if host else from_gm_bytes(raw, npd, shape)
                for raw, was, (host, npd, shape) in zip(k._gm, first, specs, strict=True)
            )
            fault, warn = _merge_checks(ks)
            warn = warn + (jnp.zeros((), bool) if race is None else jnp.asarray(race, bool),)
            out = outs[0] if block_dim == 1 else tuple(outs)
            state = None
            if return_state:
                state = ks[0].state if block_dim == 1 else tuple(kk.state for kk in ks)
            return KernelResult(gm, out, state), fault, warn

        # One program over the whole batch: the GM bytes of NumPy inputs are our own device copies,
        # donated, so the result GM reuses them (an unwritten one costs nothing). In steps, every
        # output is a fresh buffer: the GM arrays the kernel never writes are left out.
        donate = tuple(i for i, (host, _, _) in enumerate(specs) if host)
        vf = jax.vmap(one, axis_name=_CASE_AXIS) if batched else one
        progs = {}

        def program(n_step):
            if n_step not in progs:
                if n_step is None:
                    progs[n_step] = jax.jit(vf, donate_argnums=donate)
                else:
                    trimmed = jax.vmap(functools.partial(one, _trim=True), axis_name=_CASE_AXIS)
                    progs[n_step] = jax.jit(_in_steps(trimmed, n_step))
            return progs[n_step]

        return program

    @functools.wraps(fn)
    def run(*arrays, **params):
        _check_kernel_args("jit_kernel", fn, p, arrays, params, batched)
        specs = tuple(_gm_spec(a, batched) for a in arrays)
        if specs not in compiled:
            compiled[specs] = build(specs, arena)

        lead = list(arrays) + list(params.values())
        n_cases = np.shape(lead[0])[0] if batched and lead else None
        total = None if shard is None or n_cases is None else padded_cases(n_cases, shard)

        def args():
            if total is None:
                put = staging.put if staged else (lambda i, hb: jax.device_put(hb))
                return [
                    put(i, _host_bytes(a, batched)) if s[0] else a
                    for i, (a, s) in enumerate(zip(arrays, specs, strict=True))
                ]
            raws = [
                _pad_rows(_host_bytes(a, batched) if s[0] else a, total)
                for a, s in zip(arrays, specs, strict=True)
            ]
            return place_cases(raws, shard, total)

        kw = {n: jnp.asarray(v) for n, v in params.items()}
        if total is not None:
            kw = place_cases({k: _pad_rows(v, total) for k, v in kw.items()}, shard, total)
        case_bytes = sum(math.prod(shape) * np.dtype(npd).itemsize for _, npd, shape in specs)
        n_step = None if total is not None else cases_per_step(step, n_cases, case_bytes, "jit_kernel", p)
        # (a program over the whole batch donates its inputs: staged buffers would be consumed)
        staged = (
            n_step is not None and jax.default_backend() == "cpu" and staging.lock.acquire(blocking=False)
        )
        try:
            res, fault, warn = compiled[specs](n_step)(*args(), **kw)
            if arena and np.any(np.asarray(fault) & np.uint32(Fault.OUT_OF_UB)):
                # SPEC (model): a case touched UB past its arena (or outside the UB): the whole-UB
                # program decides, so the arena never changes a result.
                if ("full", specs) not in compiled:
                    compiled["full", specs] = build(specs, False)
                res, fault, warn = compiled["full", specs](n_step)(*args(), **kw)
            if staged:  # the staged inputs are reused by the next call: this one must be done
                jax.block_until_ready((res, fault, warn))
        finally:
            if staged:
                staging.lock.release()
        if total is not None and total != n_cases:  # drop the padding cases
            res, warn = jax.tree_util.tree_map(lambda x: x[:n_cases], (res, warn))
        gm = []
        for a, raw, (host, npd, shape) in zip(arrays, res.gm, specs, strict=True):
            if raw is None:  # never written by the kernel: its input, read-only as every result
                raw = np.asarray(a).view() if host else a
                if host:
                    raw.flags.writeable = False
                gm.append(raw)
            elif host:
                raw = np.asarray(raw)
                lead = raw.shape[:1] if batched else ()
                v = (raw != 0) if npd == np.bool_ else raw.view(npd)
                gm.append(v.reshape(lead + shape))
            else:
                gm.append(raw)
        result = KernelResult(tuple(gm), res.out, res.state)
        result.warn, result.warn_at = np.asarray(warn[0]), np.asarray(warn[1])
        result.warnings = _describe_cases(result.warn, result.warn_at)
        result.findings = tuple(findings.get(specs, ()))
        result.logs = logs.get(specs, ())
        result.case_findings = case_findings.get(specs, ())
        result.race_cases = np.asarray(warn[2]) if len(warn) > 2 else None
        result.schedule = schedule
        return result

    def release():
        """Free the host buffers kept for the next stepped call's NumPy inputs (the next call
        allocates them again)."""
        with staging.lock:
            staging.clear()

    run.release = release
    run.compiled = compiled  # one entry per GM signature (plus ("full", sig) once a batch fell back)
    run.warnings = warned  # checker warnings per GM signature (trace time; never change the bits)
    run.findings = findings  # races, sync errors, multi-core overlaps per GM signature (trace time)
    run.logs = logs  # the call logs per GM signature
    run.block_dim, run.schedule = block_dim, schedule
    run.auto_sync = auto_sync
    return run


def run_kernel(
    fn,
    *arrays,
    profile=None,
    ub_bytes=None,
    fault_policy="raise",
    return_state=False,
    check_uninit=False,
    block_dim=1,
    schedule="program",
    auto_sync=False,
    **params,
):
    """Run ``fn(k, *gm, **params)`` eagerly on one case; returns a ``KernelResult`` of NumPy arrays.

    The same kernel code as ``jit_kernel`` (positional arguments are GM arrays, keyword arguments
    reach the kernel as jnp arrays; ``block_dim`` cores, the ``schedule`` and ``auto_sync`` as there).
    ``fault_policy="raise"`` raises ``AscendFault`` at the first faulting call; ``"record"`` only
    records the bits in the state. Checker warnings: the result's ``warnings`` (the Kernels'
    CheckerWarning list), ``warn`` and ``warn_at``; races and sync errors: ``findings``.
    """
    p = as_profile(profile)
    block_dim = _check_launch("run_kernel", p, block_dim, schedule)
    auto_sync = _check_auto_sync("run_kernel", p, auto_sync)
    _check_kernel_args("run_kernel", fn, p, arrays, params, batched=False)
    gts = []

    def new_kernel(core, prev):
        k = Kernel(
            p,
            ub_bytes=ub_bytes,
            fault_policy=fault_policy,
            check_uninit=check_uninit,
            block_idx=core,
            block_num=block_dim,
            auto_sync=auto_sync,
        )
        if prev is not None:
            k.share_gm(prev)
            return k
        made = [k.gm(np.asarray(a)) for a in arrays]
        if not gts:
            gts.extend(made)
        return k

    kw = {n: jnp.asarray(v) for n, v in params.items()}
    ks, outs, last, found = _launch(fn, new_kernel, gts, kw, block_dim, schedule)
    outs = jax.tree_util.tree_map(np.asarray, outs)
    state = None
    if return_state:
        state = ks[0].state if block_dim == 1 else tuple(k.state for k in ks)
    res = KernelResult(last.gm_arrays(), outs[0] if block_dim == 1 else tuple(outs), state)
    _, (w, at) = _merge_checks(ks)
    res.warn, res.warn_at = np.asarray(w), np.asarray(at)
    res.warnings = list(dict.fromkeys(w for k in ks for w in k.warnings))
    res.findings = tuple(found)
    res.logs = last.launch["logs"]
    res.case_findings = last.launch["case_findings"]
    race = last.launch["race"]
    res.race_cases = np.asarray(False) if race is None else np.asarray(race)
    res.schedule = schedule
    return res


SCHEDULES = ("program", "adversarial")


def _check_launch(api, p, block_dim, schedule):
    if isinstance(block_dim, (bool, np.bool_)) or not isinstance(block_dim, (int, np.integer)):
        raise UsageError(api, "block_dim", block_dim, f"an int in [1, {p.max_block_dim}]", p)
    if not 1 <= int(block_dim) <= p.max_block_dim:
        raise UsageError(
            api,
            "block_dim",
            int(block_dim),
            f"[1, {p.max_block_dim}]",
            p,
            "核函数.md: numBlocks is in [1, 65535]",
        )
    seed = isinstance(schedule, (int, np.integer)) and not isinstance(schedule, (bool, np.bool_))
    if not seed and schedule not in SCHEDULES:
        raise UsageError(
            api, "schedule", schedule, " or ".join(repr(s) for s in SCHEDULES) + " or an int seed", p
        )
    return int(block_dim)


def _check_auto_sync(api, p, auto_sync):
    if not isinstance(auto_sync, (bool, np.bool_)):
        raise UsageError(
            api, "auto_sync", auto_sync, "True or False", p, "the compiler's --cce-auto-sync=on|off"
        )
    return bool(auto_sync)


def _launch(fn, new_kernel, gts, params, block_dim, schedule):
    """Run ``fn(k, *gts, **params)`` once per core of a ``block_dim`` launch, the cores sharing GM.
    Returns ``(kernels, outs, a kernel, findings)``; every kernel's ``_gm`` is the launch's GM.

    SPEC (model): the cores advance in phases cut by ``SyncAll`` (SyncAll.md: every core waits
    there until all have reached it): every call a core makes before its k-th SyncAll runs before
    any core's call after it. Within a phase the cores run one after another in the schedule's
    order: "program" core 0 first (blockIdx ascending, the order of the docs' deterministic
    accumulation, 原子操作/关键特性说明.md), "adversarial" the last core first, a seed a random
    permutation each phase. Each core is a coroutine (greenlet) that hands over at its SyncAll.

    ``schedule="adversarial"``: the launch runs twice; the first run (program order) gives the
    call logs, the second replays each core's calls in ``hazards.adversarial`` order. An int
    ``schedule`` is a seed: a random legal order of each core's calls too. The findings are those
    of the call logs, whichever schedule ran."""

    def program_order(phase):
        return list(range(block_dim))

    def one_pass(core_order, defer=None):
        ks, outs, prev = [None] * block_dim, [None] * block_dim, None
        for core in range(block_dim):  # core 0 makes the launch's GM; the others share it
            k = new_kernel(core, prev)
            if defer is not None:
                k._defer = {"pos": defer[core][0], "pending": {}, "log": defer[core][1]}
            ks[core], prev = k, k

        def body(core):
            outs[core] = fn(ks[core], *gts, **params)
            ks[core].finish()

        if block_dim == 1:
            body(0)
            return ks, outs, prev
        ctx = contextvars.copy_context()  # each core sees the launch's context (batch axis, ...)
        runs = {}
        for core in range(block_dim):
            g = greenlet.greenlet(functools.partial(body, core))
            g.gr_context = ctx.copy()
            runs[core] = g
            ks[core]._phase_end = greenlet.getcurrent().switch
        phase = 0
        while runs:
            for core in core_order(phase):
                if core in runs:
                    runs[core].switch()
                    if runs[core].dead:
                        del runs[core]
            phase += 1
        for k in ks:
            k._phase_end = None
        return ks, outs, prev

    ks, outs, last = one_pass(program_order)
    logs = tuple(k.log for k in ks)
    orders, findings = _hz.check(logs, last.profile)
    findings = list(findings) + _end_findings(ks)
    dyn = _hz.dynamic_races(logs, orders)
    race = None
    for _, overlap in dyn:
        race = overlap if race is None else race | overlap
    launch = {"logs": logs, "case_findings": tuple(f for f, _ in dyn), "race": race}
    if schedule != "program":
        seed = None if schedule == "adversarial" else int(schedule)
        defer = [
            ({i: n for n, i in enumerate(_hz.adversarial(k.log, o.before, seed))}, k.log)
            for k, o in zip(ks, orders, strict=True)
        ]
        rng = None if seed is None else np.random.default_rng(seed)

        def schedule_order(phase):  # the last core first; a seed: a random order each phase
            if rng is None:
                return list(range(block_dim - 1, -1, -1))
            return [int(c) for c in rng.permutation(block_dim)]

        ks2, outs2, last2 = one_pass(schedule_order, defer)
        last2.launch = launch
        return ks2, outs2, last2, findings
    last.launch = launch
    return ks, outs, last, findings


def _end_findings(ks):
    """Kernel-end checks of each core: reserved event IDs, buffers still held (leak), and the
    launch's: every core reaches the same number of ``SyncAll``."""
    out = _syncall_counts(ks)
    for k in ks:
        for c in k._reserved:
            out.append(
                _hz.Finding(
                    "synccheck",
                    "reserved event ID",
                    "warning",
                    (c,),
                    detail=f"event ID {c.event[1]} is reserved on {k.profile.name} (6 reserved, 7 "
                    "TPipe's own sync; SetFlag-WaitFlag(ISASI).md)",
                )
            )
        for q in getattr(k, "_queues", ()):
            held = [b for b in q._buffers if b.in_use]
            if held:
                c = k.log.calls[-1] if k.log.calls else _hz.Call(0, k.block_idx, "kernel end", None)
                out.append(
                    _hz.Finding(
                        "memcheck",
                        "leak",
                        "warning",
                        (c,),
                        detail=f"{len(held)} buffer(s) of {q!r} still allocated at kernel end "
                        "(AllocTensor without FreeTensor; npucheck ErrorLeak)",
                    )
                )
    return out


def _syncall_counts(ks):
    """SPEC: SyncAll waits for every core of the launch (SyncAll.md): a core that ends while
    another waits at a SyncAll leaves that core waiting for ever (the launch hangs). The model
    goes on (the waiting core's later calls run after every other core has ended) and reports it."""
    syncs = [[c for c in k.log.calls if c.kind == "syncall"] for k in ks]
    n = [len(s) for s in syncs]
    if len(set(n)) <= 1:
        return []
    low = min(n)
    short = [k.block_idx for k, m in zip(ks, n, strict=True) if m == low]
    return [
        _hz.Finding(
            "synccheck",
            "hang",
            "error",
            (s[low],),
            fix="the same number of SyncAll calls on every core",
            detail=f"SyncAll #{low + 1} of core {k.block_idx} waits for core(s) "
            f"{', '.join(map(str, short[:8]))}{' ...' if len(short) > 8 else ''}, which end after "
            f"{low} SyncAll: the launch locks up (SyncAll.md)",
        )
        for k, s in zip(ks, syncs, strict=True)
        if len(s) > low
    ]


def _merge_checks(ks):
    """The launch's fault and warning words: OR over the cores; ``warn_at`` of the first core
    that warned."""
    fault = ks[0].state.fault
    w, at = ks[0].state.warn, ks[0].state.warn_at
    for k in ks[1:]:
        fault = fault | k.state.fault
        if w is not None and k.state.warn is not None:
            at = jnp.where((w == 0)[..., None], k.state.warn_at, at)
            w = w | k.state.warn
    return fault, (w, at)
