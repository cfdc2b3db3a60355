"""The imperative kernel layer: ``k = Kernel(profile=...)``; ``x = k.alloc(aj.float32, 256)``;
``k.Muls(y, x, 2.0, 256)``; ``k.read(y)``. Each call threads ``k.state`` through the pure API, so
the same kernel code runs eagerly (a notebook) or traced into one pure function (``jit_kernel``).
"""

import functools
import math
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import api as _api
from . import dtypes as _dt
from .errors import AscendFault, UsageError
from .profile import as_profile
from .registry import REGISTRY
from .state import CoreState, reset_state
from .tensor import LocalTensor

_POLICIES = ("raise", "record")


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


class Kernel:
    """A kernel's view of one AI Core: UB allocation and the vector APIs as methods.

    ``fault_policy``: "raise" (default for eager use; env ASCEND_JAX_ON_FAULT) raises AscendFault
    right after a faulting call; "record" only ORs the bits into ``state.fault``.
    """

    def __init__(self, profile=None, ub_bytes=None, state=None, fault_policy=None):
        self.profile = as_profile(profile)
        self.state = reset_state(self.profile, ub_bytes) if state is None else state
        self.fault_policy = fault_policy or _default_policy()
        if self.fault_policy not in _POLICIES:
            raise ValueError(f"fault_policy={self.fault_policy!r}; allowed: {', '.join(_POLICIES)}")
        self._next_addr = 0
        self._counter_shadow = None  # static count set by SetVectorMask in Counter mode, if known
        self._mode_shadow = 0

    # -- memory ------------------------------------------------------------------------------
    @property
    def ub_limit(self):
        return min(self.state.ub.shape[-1], self.profile.ub_usable_bytes)

    def alloc(self, dtype, length, name="") -> LocalTensor:
        """A LocalTensor at the next 32-byte aligned free UB address (a bump allocator)."""
        d = _dt.as_dtype(dtype)
        align = self.profile.operand_alignment_bytes
        addr = -(-self._next_addr // align) * align
        nbytes = int(length) * d.itemsize
        if addr + nbytes > self.ub_limit:
            raise UsageError(
                "alloc",
                "length",
                length,
                f"at most {(self.ub_limit - addr) // d.itemsize} more {d.name} elements",
                self.profile,
                f"UB has {self.ub_limit} usable bytes and {addr} are allocated",
            )
        self._next_addr = addr + nbytes
        return LocalTensor(d, addr, int(length), name)

    def write(self, t: LocalTensor, values):
        """Store ``values`` (converted to t.dtype, little endian) at t's address."""
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
        ub = lax.dynamic_update_slice(self.state.ub, raw, (jnp.asarray(t.addr, jnp.int32),))
        self.state = self.state.replace(ub=ub)

    def read(self, t: LocalTensor):
        """The tensor's elements as a NumPy array (eager) or a jnp array (traced)."""
        raw = lax.dynamic_slice(self.state.ub, (jnp.asarray(t.addr, jnp.int32),), (t.nbytes,))
        if isinstance(raw, jax.core.Tracer):
            if t.dtype.itemsize == 1:
                return lax.bitcast_convert_type(raw, t.dtype.np_dtype)
            return lax.bitcast_convert_type(raw.reshape(-1, t.dtype.itemsize), t.dtype.np_dtype)
        return np.asarray(raw).view(t.dtype.np_dtype).copy()

    # -- calls -------------------------------------------------------------------------------
    def _after(self, name, new_state):
        old_fault = self.state.fault
        self.state = new_state
        if self.fault_policy == "raise" and not isinstance(new_state.fault, jax.core.Tracer):
            f = int(np.bitwise_or.reduce(np.ravel(np.asarray(new_state.fault))))
            o = int(np.bitwise_or.reduce(np.ravel(np.asarray(old_fault))))
            if f & ~o:
                raise AscendFault(f & ~o, name)

    def _call_state_api(self, name, *args, **kw):
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
        self._after(name, fn(self.state, *args, **kw))

    def _call_reg_api(self, name, *args, **kw):
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
        kw.setdefault("profile", self.profile)
        return getattr(_api, name)(self.state, *args, **kw)


def _method(name, kind):
    def m(self, *args, **kw):
        return getattr(self, kind)(name, *args, **kw)

    m.__name__ = name
    m.__doc__ = f"Eager/traced ``{name}``: same arguments as ``ascend_jax.{name}`` without state/profile."
    return m


def _generic(name):
    """Any other registered API: the result may be a state, (state, out-parameter) or a value."""

    def m(self, *args, **kw):
        kw.setdefault("profile", self.profile)
        res = REGISTRY[name].fn(self.state, *args, **kw)
        if isinstance(res, CoreState):
            self._after(name, res)
            return None
        if isinstance(res, tuple) and len(res) == 2 and isinstance(res[0], CoreState):
            self._after(name, res[0])
            return res[1]
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


def jit_kernel(fn, profile=None, ub_bytes=None, batched=True, return_state=False):
    """Trace ``fn(k, *args)`` (a kernel written against ``Kernel``) into one compiled function.

    ``run(*args)``: with ``batched=True`` every argument carries a leading batch axis and the whole
    batch runs in one program (vmap). Returns fn's return value, and the final CoreState when
    ``return_state`` (fault bits recorded per case, never raised inside the program).
    """
    p = as_profile(profile)

    def one(*args):
        k = Kernel(p, ub_bytes=ub_bytes, fault_policy="record")
        out = fn(k, *args)
        return (out, k.state) if return_state else out

    body = jax.vmap(one) if batched else one
    return functools.wraps(fn)(jax.jit(body))
