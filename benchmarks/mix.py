"""The standard benchmark mix: random, fault-free cases over Adds, Muls, Select (modes 0/1/2),
Compares, GatherMask and ShiftRight, drawn with the case generators of ``ascend_jax/fuzz/families`` (the
repeat distribution 1..255 of the scalar-arithmetic generator; the other generators' "big" share set
so that about a third of the cases need more than 16 repeats), and the batched runners of the fast
path (one jitted, vmapped program per signature and batch size, every parameter traced).

A *signature* is one static program: (family, API/dtype/mode/form, repeat bucket). Small-bucket
cases (<= 16 repeats) live in an 8 KiB UB arena, big-bucket cases (up to 255 repeats) in a 64 KiB
arena; ``ub_mode="full"`` pads every case's UB to the profile's usable size instead.
"""

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

import ascend_jax as aj
from ascend_jax import dtypes as _dt
from ascend_jax import reference as ref
from ascend_jax._engine import numerics as NUM
from ascend_jax.api.unary_scalar import run_traced
from ascend_jax.fuzz.families import compare_select as CS
from ascend_jax.fuzz.families import gather_shift as GS
from ascend_jax.fuzz.families import unary_scalar as UC
from ascend_jax.fuzz.families.base import make_ub
from ascend_jax.state import CoreState

SMALL_ARENA, BIG_ARENA = 8192, 65536
BIG_SHARE = 0.35  # share of cases needing more than 16 repeats (the unary generator's share)


@dataclasses.dataclass(frozen=True)
class Signature:
    name: str  # e.g. "Select/float32/mode1/count/R255"
    family: str  # "unary" | "cmpsel" | "shift" | "gather"
    big: bool
    weight: float  # share of the mix
    arena: int  # UB arena bytes of its cases


def _unary_R(c, p):
    return 16 if UC._reps_needed(c, p.lanes(_dt.as_dtype(c.dtype))) <= 16 else 256


# (family, label, generator args, weight within the mix)
_FAMILIES = (
    ("unary", "Adds/float32", {"api": "Adds", "dtype": "float32"}, 1.0),
    ("unary", "Muls/half", {"api": "Muls", "dtype": "half"}, 1.0),
    (
        "cmpsel",
        "Select/float32/mode0/bitwise",
        {"api": "Select", "dt": "float32", "mode": 0, "form": "bitwise"},
        2 / 3,
    ),
    (
        "cmpsel",
        "Select/float32/mode1/count",
        {"api": "Select", "dt": "float32", "mode": 1, "form": "count"},
        2 / 3,
    ),
    (
        "cmpsel",
        "Select/float32/mode2/continuous",
        {"api": "Select", "dt": "float32", "mode": 2, "form": "continuous"},
        2 / 3,
    ),
    (
        "cmpsel",
        "Compares/float32/GT/continuous",
        {"api": "Compares", "dt": "float32", "mode": 1, "form": "continuous"},
        1.0,
    ),
    ("gather", "GatherMask/float32/user", {"dt": "float32", "counter": False, "user": True}, 1.0),
    ("shift", "ShiftRight/int16/continuous", {"api": "ShiftRight", "dt": "int16", "form": "continuous"}, 1.0),
)


def _draw(family, kw, rng, p, big, arena):
    if family == "unary":
        c = UC.random_case(rng, p, api=kw["api"], dtype=kw["dtype"], ub_bytes=arena, fault_rate=0.0)
        return c if (_unary_R(c, p) == 256) == big else None
    if family == "cmpsel":
        return CS.random_case(
            rng, p, kw["api"], kw["dt"], kw["mode"], kw["form"], big=big, ub_bytes=arena, fault_rate=0.0
        )
    if family == "shift":
        return GS.random_shift_case(
            rng, p, kw["api"], kw["dt"], kw["form"], big=big, ub_bytes=arena, fault_rate=0.0
        )
    return GS.random_gather_case(
        rng, p, kw["dt"], kw["counter"], kw["user"], big=big, ub_bytes=arena, fault_rate=0.0
    )


def signatures():
    total = sum(w for *_, w in _FAMILIES)
    out = []
    for family, label, kw, w in _FAMILIES:
        for big in (False, True):
            share = (BIG_SHARE if big else 1 - BIG_SHARE) * w / total
            R = ("R256" if family == "unary" else "R255") if big else "R16"
            out.append((Signature(f"{label}/{R}", family, big, share, BIG_ARENA if big else SMALL_ARENA), kw))
    return out


def draw_cases(sig, kw, n, rng, p):
    """``n`` candidate cases of one signature (faulting ones are filtered later by the caller)."""
    out = []
    while len(out) < n:
        c = _draw(sig.family, kw, rng, p, sig.big, sig.arena)
        if c is not None:
            out.append(c)
    return out


# -- initial UB ---------------------------------------------------------------------------------


def initial_ub(sig, c):
    if sig.family == "shift":
        return GS.shift_initial_ub(c)
    if sig.family == "gather":
        return GS.gather_initial_ub(c)
    return make_ub(c)


def pad_ub(ub, size):
    if ub.size >= size:
        return ub
    out = np.zeros(size, np.uint8)
    out[: ub.size] = ub
    return out


# -- the fast path, batched ---------------------------------------------------------------------


class FastProgram:
    """One jitted, vmapped program for a signature; ``traces`` counts Python traces. The input
    state is donated (its buffers are reused for the output, as a batched kernel loop would do:
    no copy of the whole UB per call), so a state must not be used after it was passed in."""

    def __init__(self, sig, c0, p):
        self.sig, self.c0, self.p = sig, c0, p
        self.traces = 0
        # a named case axis: batch-wide decisions (the float32 soft-float gate) reduce over it
        self.fn = jax.jit(jax.vmap(self._gated, axis_name="case"), donate_argnums=0)

    def _gated(self, state, dyn):
        with NUM.batch_axis("case"):
            return self._one(state, dyn)

    def _one(self, state, dyn):
        self.traces += 1
        sig, c0, p = self.sig, self.c0, self.p
        if sig.family == "unary":
            R = 256 if sig.big else 16
            return run_traced(c0.api, state, dyn, _dt.as_dtype(c0.dtype), p, R), None
        dyn = dict(dyn)
        dyn["strides"] = tuple(dyn["strides"])
        R = 255 if sig.big else 16
        if sig.family == "cmpsel":
            return CS.call(aj, c0, state, p, dyn=dyn, R=R), None
        if sig.family == "shift":
            return GS.call_shift(aj, c0, state, p, dyn=dyn, R=R), None
        return GS.call_gather(aj, c0, state, p, dyn=dyn, R=R)

    def inputs(self, cs, ubs, size=None):
        """Device inputs (state, dyn) for the cases ``cs`` with initial UBs ``ubs`` (each zero-padded
        to ``size`` bytes when given)."""
        sig, p = self.sig, self.p
        size = size or max(u.size for u in ubs)
        stacked = np.zeros((len(ubs), size), np.uint8)
        for i, u in enumerate(ubs):
            stacked[i, : u.size] = u
        st = CoreState(
            ub=jnp.asarray(stacked),
            vmask=jnp.asarray(np.array([c.vmask for c in cs], np.uint32)),
            mask_mode=jnp.asarray(np.array([c.mask_mode for c in cs], np.int32)),
            cmpmask=jnp.asarray(np.array([getattr(c, "cmpmask", (0, 0, 0, 0)) for c in cs], np.uint32)),
            ctrl=jnp.asarray(np.array([c.ctrl for c in cs], np.uint32)),
            rsvd_cnt=jnp.asarray(np.array([getattr(c, "rsvd_init", 0) for c in cs], np.int32)),
            fault=jnp.zeros((len(cs),), jnp.uint32),
        )
        dyn = {"unary": _unary_dyn, "cmpsel": _cmpsel_dyn, "shift": _shift_dyn, "gather": _gather_dyn}[
            sig.family
        ](cs, p)
        # leaves of tuples (64-bit pairs) and dicts (the checker's operand sizes) alike
        return st, jax.tree_util.tree_map(jnp.asarray, dyn)

    def __call__(self, st, dyn):
        return self.fn(st, dyn)


# -- traced parameters of a batch (the pipeline's / public APIs' dyn formats) ---------------------


def _unary_dyn(cs, p):
    return jax.tree_util.tree_map(np.asarray, UC.stack_params(cs, p))


def _cmpsel_dyn(cs, p):
    return CS.stack_dyn(cs, p)


def _shift_dyn(cs, p):
    return GS._shift_dyn(cs, p)


def _gather_dyn(cs, p):
    return GS._gather_dyn(cs, p)


# -- the oracle ---------------------------------------------------------------------------------


def run_oracle(sig, c, ub, p):
    """The literal NumPy reference on one case (returns its state, and rsvdCnt for GatherMask)."""
    st = ref.reset_state(p, ub_bytes=ub.size)
    st.ub = ub.copy()
    st.vmask = np.array(c.vmask, np.uint32)
    st.mask_mode = c.mask_mode
    st.cmpmask = np.array(getattr(c, "cmpmask", (0, 0, 0, 0)), np.uint32)
    st.ctrl = np.array(c.ctrl, np.uint32)
    st.rsvd_cnt = getattr(c, "rsvd_init", 0)
    if sig.family == "unary":
        return UC.call(ref, c, st, p), None
    if sig.family == "cmpsel":
        return CS.call(ref, c, st, p), None
    if sig.family == "shift":
        return GS.call_shift(ref, c, st, p), None
    return GS.call_gather(ref, c, st, p)


def touched_bytes(sig, c, p):
    """Bytes one case must move at least: every active operand block read once and every dst
    block read and written once (the old dst bytes of inactive lanes survive), selMask/pattern bits
    read once."""
    L_of = lambda dt: p.lanes(_dt.as_dtype(dt))  # noqa: E731
    if sig.family == "unary":
        L = L_of(c.dtype)
        reps = UC._reps_needed(c, L) if c.form == "count" or c.mask_mode else c.repeat
        return max(reps, 0) * 256 * 3
    if sig.family == "shift":
        L = L_of(c.dtype)
        if c.form == "count":
            reps = math.ceil(c.count / L)
        elif c.mask_mode == 1:
            n = c.mask if c.form == "continuous" else (c.mask[0] if c.form == "bitwise" else c.vmask[0])
            reps = math.ceil(n / L)
        else:
            reps = c.repeat
        return reps * 256 * 3
    if sig.family == "gather":
        d = _dt.as_dtype(c.dtype)
        n_e = c.mask if c.counter else p.lanes(d)
        rep = c.params[1]
        return rep * n_e * d.itemsize * 2 + rep * math.ceil(n_e / 8)  # src + dst (at most), pattern
    L = L_of(c.dtype)
    if c.form == "count":
        reps = math.ceil(c.count / L)
    elif c.mask_mode == 1:
        n = c.mask if c.form == "continuous" else c.mask[0]
        reps = math.ceil(n / L)
    else:
        reps = c.repeat
    if c.api == "Select":
        per = 256 * (4 if c.mode != 1 else 3) + L // 8
    else:
        per = 256 + L // 8
    return reps * per
