"""The fast path's one lane plan: which lanes of which repeats a call activates, what it leaves in
the vector-mask registers, and which mask faults it records -- for every call form of every API
(docs/MODEL.md "Which lanes are active").

Call forms (``KIND_*``): the count form (level 2, isSetMask effective), its isSetMask=false register
form, the high-dim continuous / bitwise / register (MASK_PLACEHOLDER) forms, and "all" (a product
that ignores the mask argument: every lane of repeats < repeatTime). Normal or Counter mode is state
(traced). The kind itself may be static (a Python int: only that form's logic is built) or traced
(``kind=None``: ``dyn["kind"]`` selects, so one program serves every call form).

``dyn`` fields read: ``kind`` (traced kind), ``count`` uint32[2] (count forms), ``repeat`` int32,
``cont`` uint32[2] (continuous mask), ``words`` uint32[8] (bitwise mask).
"""

import dataclasses

import jax.numpy as jnp
import numpy as np

from . import mask as M

U32 = jnp.uint32
I32 = jnp.int32

KIND_COUNT, KIND_COUNT_REGISTER, KIND_CONTINUOUS, KIND_BITWISE, KIND_REGISTER, KIND_ALL = range(6)
KINDS = {
    "count": KIND_COUNT,
    "count_register": KIND_COUNT_REGISTER,
    "continuous": KIND_CONTINUOUS,
    "bitwise": KIND_BITWISE,
    "register": KIND_REGISTER,
    "all": KIND_ALL,
}


def ones_words(bits):
    """uint32[8] (NumPy): the all-ones image of a ``bits``-bit vector-mask register."""
    w = np.zeros(8, np.uint32)
    w[: bits // 32] = 0xFFFFFFFF
    return w


def limit_bits(words, bits):
    """The register image ``words`` cut to the register's ``bits`` bits."""
    return words & ones_words(bits)


@dataclasses.dataclass(frozen=True)
class LanePlan:
    act: object  # bool[R, L]: active lanes (already cleared when the call is a NOP)
    nop: object  # bool: a zero count / mask / repeatTime the profile treats as a NOP
    undef: object  # bool: the same under a "fault" policy (Fault.UNDEFINED)
    bad_mask: object  # bool: Fault.BAD_MASK (Counter-mode count too large, "error" policy at run time)
    overflow: object  # bool: the call needs more repeats than the static bucket R
    vmask: object  # uint32[8]: the vector-mask register after the call (if it runs)
    mask_mode: object  # int32: the mask mode after the call (if it runs)


def _pick(pairs):
    """Select among mutually exclusive (condition, value) pairs; Python-bool conditions resolve
    statically (only the chosen value is built into the program), the last pair is the default."""
    pairs = [(c, v) for c, v in pairs if c is not False]
    for c, v in pairs:
        if c is True:
            return v
    out = pairs[-1][1]
    for c, v in reversed(pairs[:-1]):
        out = jnp.where(c, v, out)
    return out


def plan(p, dtype, R, state, dyn, kind=None, lowering=None, count_tail="computed"):
    """The lane plan of one call. ``kind``: a ``KIND_*`` int (static) or None (``dyn["kind"]``);
    ``lowering``: the count form's register epilogue (default: the profile's level2_lowering;
    "none" leaves the registers alone); ``count_tail``: "computed" (lanes g < count) or "dropped"
    (the count form computes whole repeats only)."""
    L = p.lanes(dtype)
    lowering = p.level2_lowering if lowering is None else lowering
    counter = state.mask_mode == 1
    ones = jnp.asarray(ones_words(p.vector_mask_bits))
    false = jnp.zeros((), bool)

    def is_(k):
        return dyn["kind"] == k if kind is None else kind == k

    # per form: (is_form, act, overflow, zero_count, zero_mask, zero_repeat, bad, vmask, mode)
    forms = []
    if is_(KIND_COUNT) is not False:
        # count form (level 2, isSetMask effective): the first `count` elements
        lo, hi = dyn["count"][0], dyn["count"][1]
        eff = lo - lo % np.uint32(L) if count_tail == "dropped" else lo
        vmask, mode = state.vmask, state.mask_mode
        if lowering == "counter_mode":
            vmask, mode = ones, jnp.zeros((), I32)
        elif lowering == "repeat_loop":
            tail = lo % np.uint32(L)
            vmask = jnp.where(tail == 0, ones, M.continuous_words(tail, L, p.vector_mask_bits))
        ovf = (hi != 0) | (eff > R * L)
        zc = (lo == 0) & (hi == 0)
        forms.append(
            (is_(KIND_COUNT), M.lanes_below(eff, hi, R, L), ovf, zc, false, false, false, vmask, mode)
        )
    reg_lo, reg_hi = state.vmask[0], state.vmask[1]
    if is_(KIND_COUNT_REGISTER) is not False:
        # count form with isSetMask=false: one repeat under the registers (Counter: their count)
        reg_lanes = M.bits_of_words(state.vmask, L)
        first = reg_lanes[None, :] & (np.arange(R) == 0)[:, None]
        act = jnp.where(counter, M.lanes_below(reg_lo, reg_hi, R, L), first)
        ovf = counter & ((reg_hi != 0) | (reg_lo > R * L))
        bad = counter & (reg_hi != 0)
        zc = counter & ~bad & (reg_lo == 0)
        zm = ~counter & ~jnp.any(reg_lanes)
        forms.append((is_(KIND_COUNT_REGISTER), act, ovf, zc, zm, false, bad, state.vmask, state.mask_mode))
    rep = dyn["repeat"] if "repeat" in dyn else jnp.ones((), I32)
    if is_(KIND_ALL) is not False:
        # the product ignores the mask: every lane of repeats < repeatTime, registers untouched
        act = M.repeat_below(rep, R, L)
        forms.append(
            (is_(KIND_ALL), act, rep > R, false, false, rep == 0, false, state.vmask, state.mask_mode)
        )

    # high-dim forms: the mask value (or the register) per repeat, or a count in Counter mode
    hd = []  # (is_form, lanes bool[L], count lo, count hi, register image or None, extra bad)
    if is_(KIND_CONTINUOUS) is not False:
        n = dyn["cont"]
        n_clamped = jnp.where(n[1] != 0, np.uint32(L), jnp.minimum(n[0], np.uint32(L)))
        img = M.continuous_words(jnp.where(n[1] != 0, np.uint32(0xFFFFFFFF), n[0]), L, p.vector_mask_bits)
        hd.append((is_(KIND_CONTINUOUS), np.arange(L) < n_clamped, n[0], n[1], img, false))
    if is_(KIND_BITWISE) is not False:
        w = dyn["words"]
        # Counter mode: only the low 64 bits are the count; the other words must be 0
        hd.append((is_(KIND_BITWISE), M.bits_of_words(w, L), w[0], w[1], w, jnp.any(w[2:] != 0)))
    if is_(KIND_REGISTER) is not False:
        hd.append((is_(KIND_REGISTER), M.bits_of_words(state.vmask, L), reg_lo, reg_hi, None, false))
    if hd:
        is_hd = True
        if kind is None:
            is_hd = false
            for c, *_ in hd:
                is_hd = is_hd | c
        lanes = _pick([(c, v[0]) for c, *v in hd])
        c_lo = _pick([(c, v[1]) for c, *v in hd])
        c_hi = _pick([(c, v[2]) for c, *v in hd])
        extra_bad = _pick([(c, v[4]) for c, *v in hd])
        act = jnp.where(counter, M.lanes_below(c_lo, c_hi, R, L), M.repeat_below(rep, R, L) & lanes[None, :])
        ovf = jnp.where(counter, (c_hi != 0) | (c_lo > R * L), rep > R)
        # SPEC (MODEL.md): a Counter-mode count above 2**32-1 is a bad mask
        bad = counter & ((c_hi != 0) | extra_bad)
        zc = counter & ~bad & (c_lo == 0)
        zr = ~counter & (rep == 0)
        zm = ~counter & (rep != 0) & ~jnp.any(lanes)
        vmask = state.vmask
        if p.level0_writes_mask_register:
            imgs = [(c, v[3]) for c, *v in hd if v[3] is not None]
            if imgs:
                img = jnp.where(counter, M.counter_words(c_lo, c_hi), _pick(imgs))
                # the register form (isSetMask=false) leaves the registers as they are
                lim = limit_bits(img, p.vector_mask_bits)
                vmask = _pick([(c, state.vmask if v[3] is None else lim) for c, *v in hd])
        forms.append((is_hd, act, ovf, zc, zm, zr, bad, vmask, state.mask_mode))

    act, ovf, zero_count, zero_mask, zero_rep, bad, vmask, mode = (
        _pick([(f[0], f[i]) for f in forms]) for i in range(1, 9)
    )
    # zero count / mask / repeat follow the profile's choice ("nop" | "fault" | "error"); the
    # conditions are exclusive (repeatTime is checked before the mask in Normal mode)
    nop = undef = false
    for policy, cond in ((p.zero_count, zero_count), (p.zero_mask, zero_mask), (p.zero_repeat, zero_rep)):
        if policy == "nop":
            nop = nop | cond
        elif policy == "fault":
            undef = undef | cond
        else:  # "error" seen only at run time (a traced or register value): a bad mask
            bad = bad | cond
    return LanePlan(act & ~nop, nop, undef, bad, ovf & ~bad, vmask, mode)
