"""``CoreState``: everything an API call can read or write, as one immutable pytree.

Fields (see docs/MODEL.md): ``ub`` (uint8 bytes of the Unified Buffer, or of the case's arena),
``vmask`` (vector-mask register, 8 x uint32, low word first), ``mask_mode`` (0 Normal, 1 Counter),
``cmpmask`` (CMPMASK, 4 x uint32), ``ctrl`` (CTRL special register, 2 x uint32), ``rsvd_cnt``
(gather-mask remaining count), ``fault`` (OR of ``errors.Fault`` bits) and the checker fields
(``checks.py``, never read by an API's result bits): ``warn`` (OR of ``checks.Warn`` bits),
``warn_at`` (int32[2]: API and argument code of the first warning) and ``written`` (uint8 per UB
byte, 1 once written; ``None`` unless the uninitialised-read checker is on); ``mrgsort_cnt``
(int32[4], the MrgSort result register read by GetMrgSortResult; ``None`` until a merge runs). A state built without
the checker fields (``None``) records no warnings. Batched states carry a leading batch axis on
every field.

Two more special registers (docs/MODEL.md "SetDeqScale and the DEQSCALE conversions", "Reduce
result registers"): ``deqscale`` (DEQSCALE, 64 bits as 2 x uint32, low word first; SetDeqScale) and
``reduce_spr`` (uint32[3]: the ReduceSum result bits, the max/min value bits, the max/min index;
written by the reductions, read by GetReduceRepeatSumSpr / GetReduceRepeatMaxMinSpr). ``None`` (a
state built by hand without them) reads as zero: ``register_words``. ``pad_value`` (uint8[8]) is the
padding register of SetPadValue (``None``: never set; docs/MODEL.md "DataCopyPad").
"""

import dataclasses
from typing import Any

import chex
import jax
import jax.numpy as jnp
import numpy as np

from ._scalar import host_int
from .errors import UsageError
from .profile import as_profile


@jax.tree_util.register_static
@dataclasses.dataclass(frozen=True)
class LoopModeRegs:
    """The loop-mode registers of the two data paths (SetLoopModePara.md): per ``DataCopyMVType``
    value the six ``LoopModeParams`` fields, or None when reset. Static (part of the pytree's
    structure): its values are compile-time constants, as the pages' kernels set them."""

    ub_to_out: tuple = None
    out_to_ub: tuple = None

    def get(self, out_to_ub):
        return self.out_to_ub if out_to_ub else self.ub_to_out

    def set(self, out_to_ub, value):
        return dataclasses.replace(self, **{"out_to_ub" if out_to_ub else "ub_to_out": value})


# A chex dataclass: a registered pytree (leaves keyed by field name, so tree paths read
# ``.ub``/``.fault``), frozen, with ``replace(**kw)``. Not a Mapping (``mappable_dataclass=False``):
# positional construction ``CoreState(ub, vmask, ...)`` keeps working and a state is never mistaken
# for a dict of arguments.
@chex.dataclass(frozen=True, mappable_dataclass=False)
class CoreState:
    ub: jax.Array
    vmask: jax.Array
    mask_mode: jax.Array
    cmpmask: jax.Array
    ctrl: jax.Array
    rsvd_cnt: jax.Array
    fault: jax.Array
    # checker fields (docs/MODEL.md "Checker warnings"); None: not tracked
    warn: Any = None
    warn_at: Any = None
    written: Any = None
    # DEQSCALE (uint32[2]) and the reduce result registers (uint32[3]); None reads as zero
    deqscale: Any = None
    reduce_spr: Any = None
    # the records the last MrgSort / MrgSort4 took from each queue (int32[4], GetMrgSortResult);
    # None until a merge runs (reads as zeros)
    mrgsort_cnt: Any = None
    # the DataCopyPad padding register SetPadValue writes (uint8[8]: the value's bytes repeated);
    # None until SetPadValue runs (DataCopyPad with isPad = false then keeps the old UB bytes)
    pad_value: Any = None
    # the loop-mode registers SetLoopModePara writes (LoopModeRegs: static, no pytree leaves); None: off
    loop_mode: Any = None

    @property
    def ub_bytes(self) -> int:
        return self.ub.shape[-1]

    @property
    def batch_shape(self):
        return self.fault.shape

    def _repr_html_(self):
        from .display import state_html  # Jupyter only: keep the import off the hot path

        return state_html(self)


def _all_ones_words(bits):
    w = np.zeros(8, np.uint32)
    w[: bits // 32] = 0xFFFFFFFF
    return w


def check_ub_bytes(api, ub_bytes, profile):
    """A ``ub_bytes`` argument (``reset_state``, ``Kernel``, ``run_kernel``, ``jit_kernel``, ``sweep``):
    None or "full" (the whole UB; ``jit_kernel``: None is the arena) give None; otherwise an integer
    (``_scalar.host_int``: no bool, no float) that is a positive multiple of the profile's
    ``block_bytes`` and at most ``ub_physical_bytes``, returned as an int. Anything else is a
    UsageError naming ``ub_bytes``."""
    if ub_bytes is None or (isinstance(ub_bytes, str) and ub_bytes == "full"):
        return None
    p = as_profile(profile)
    blk, top = p.block_bytes, p.ub_physical_bytes
    allowed = f'None, "full" or a multiple of {blk} in [{blk}, {top}] (bytes of UB per case)'
    n = host_int(api, "ub_bytes", ub_bytes, blk, top, p, allowed)
    if n % blk:
        raise UsageError(api, "ub_bytes", n, allowed, p, f"{n} is not a multiple of {blk}")
    return n


def reset_state(profile=None, ub_bytes=None, ub=None, check_uninit=False) -> CoreState:
    """The state after reset: UB zero (or ``ub``), mask all ones, Normal mode, CTRL at its reset value,
    no warnings; ``check_uninit``: carry the ``written`` map (all bytes unwritten)."""
    p = as_profile(profile)
    if ub is None:
        n = check_ub_bytes("reset_state", ub_bytes, p) or p.ub_physical_bytes
        ub = jnp.zeros((n,), jnp.uint8)
    else:
        ub = jnp.asarray(ub, jnp.uint8)
    ctrl = np.array([p.ctrl_reset_value & 0xFFFFFFFF, (p.ctrl_reset_value >> 32) & 0xFFFFFFFF], np.uint32)
    return CoreState(
        ub=ub,
        vmask=jnp.asarray(_all_ones_words(p.vector_mask_bits)),
        mask_mode=jnp.zeros((), jnp.int32),
        cmpmask=jnp.zeros((4,), jnp.uint32),
        ctrl=jnp.asarray(ctrl),
        rsvd_cnt=jnp.zeros((), jnp.int32),
        fault=jnp.zeros((), jnp.uint32),
        warn=jnp.zeros((), jnp.uint32),
        warn_at=jnp.zeros((2,), jnp.int32),
        written=jnp.zeros(ub.shape, jnp.uint8) if check_uninit else None,
        deqscale=jnp.zeros((DEQSCALE_WORDS,), jnp.uint32),
        reduce_spr=jnp.zeros((REDUCE_SPR_WORDS,), jnp.uint32),
    )


DEQSCALE_WORDS = 2  # DEQSCALE: 64 bits
REDUCE_SPR_WORDS = 3  # [ReduceSum result bits, max/min value bits, max/min index]


def register_words(state: CoreState, name: str):
    """``state.deqscale`` / ``state.reduce_spr``, or zeros of the state's batch shape when the state
    was built without it (``None``)."""
    v = getattr(state, name)
    if v is not None:
        return v
    n = DEQSCALE_WORDS if name == "deqscale" else REDUCE_SPR_WORDS
    return jnp.zeros(tuple(state.fault.shape) + (n,), jnp.uint32)


def batch_states(state: CoreState, n: int) -> CoreState:
    """Broadcast one state to a batch of ``n`` identical states (leading axis)."""
    return jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (n,) + x.shape), state)


def add_warnings(state: CoreState, hits) -> CoreState:
    """OR checker warnings into ``state``: ``hits`` = [(Warn bit, API code, argument code, bool), ...]
    in priority order (``checks.py``); the codes may be traced. ``warn_at`` keeps the first warning
    ever: the first true hit of this call when the state had none. No-op without checker fields."""
    if state.warn is None or not hits:
        return state
    new = jnp.zeros(state.warn.shape, jnp.uint32)
    at = state.warn_at
    any_hit = jnp.zeros(state.warn.shape, bool)
    for bit, api, arg, cond in reversed(hits):  # the earliest hit is written last: it wins
        cond = jnp.asarray(cond, bool)
        new = new | jnp.where(cond, jnp.uint32(int(bit)), jnp.uint32(0))
        pair = jnp.stack([jnp.asarray(api, jnp.int32), jnp.asarray(arg, jnp.int32)])
        at = jnp.where(cond[..., None], pair, at)
        any_hit = any_hit | cond
    first = (state.warn == 0) & any_hit
    return state.replace(warn=state.warn | new, warn_at=jnp.where(first[..., None], at, state.warn_at))
