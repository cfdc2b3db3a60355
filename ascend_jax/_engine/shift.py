"""Shift element functions (ShiftLeft / ShiftRight, scalar and tensor shift amounts) and the count
pipeline of the tensor-shift variants (one dst, two src tensors). See docs/MODEL.md
"GatherMask and shifts".

Values travel as uint32 containers holding T's bit pattern in the low ``B = 8*sizeof(T)`` bits.
Every native shift here is by an amount in [0, 31] (explicitly clipped); amounts >= B are handled
with explicit selects, never by the backend's out-of-range shift rules.
"""

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import Fault
from . import memory as MEM
from .pipeline import UnaryStatic, active_lanes

U32 = jnp.uint32
I32 = jnp.int32


def _mask(bits):
    return np.uint32((1 << bits) - 1) if bits < 32 else np.uint32(0xFFFFFFFF)


def sign_extend(x, bits):
    """uint32 holding a ``bits``-bit two's-complement pattern -> int32 value."""
    x = jnp.asarray(x, U32)
    if bits == 32:
        return lax.bitcast_convert_type(x, I32)
    sh = np.int32(32 - bits)
    return lax.shift_right_arithmetic(lax.bitcast_convert_type(x << np.uint32(32 - bits), I32), sh)


def shift_amount(n_bits, bits, signed):
    """(n, negative): the shift amount held in a ``bits``-bit pattern (uint32), read as a signed or
    unsigned integer, clipped to [0, bits + 1] (every amount > bits behaves alike), and whether it
    was negative."""
    B = bits
    n_bits = jnp.asarray(n_bits, U32) & _mask(B)
    if signed:
        v = sign_extend(n_bits, B)
        return jnp.clip(v, 0, B + 1), v < 0
    big = n_bits > np.uint32(B + 1)
    return jnp.where(big, np.int32(B + 1), n_bits.astype(I32)), jnp.zeros(n_bits.shape, bool)


def _shl(x, n):
    """x << n for n in [0, 31] (int32, clipped by the caller); uint32 in and out."""
    return x << jnp.clip(n, 0, 31).astype(U32)


def shift_left(x, n, dtype, keep_sign, overwide):
    """T-bits result of ``x << n``. ``n``: int32 in [0, B + 1] (B + 1 stands for any amount > B).

    Unsigned T, or signed T with ``keep_sign`` False: logical shift, 0 for n >= B.
    Signed T with ``keep_sign`` (SPEC: "算术左移 ... 次高位被丢弃"): the sign bit stays, bits
    B-2..0 shift left (the second-highest bit drops out): ``(x & SIGN) | ((x << n) & ~SIGN)``;
    n = B gives the sign bit alone. Amounts > B: ``overwide`` "zero" -> 0, "sign_fill" -> -1 for a
    negative signed x, else 0.
    """
    B = dtype.bits
    m = _mask(B)
    x = jnp.asarray(x, U32) & m
    n = jnp.asarray(n, I32)
    plain = jnp.where(n >= B, np.uint32(0), _shl(x, n) & m)
    if dtype.is_signed_int and keep_sign:
        sign = np.uint32(1 << (B - 1))
        r = (x & sign) | (plain & (m & ~sign))
    else:
        r = plain
    if overwide == "sign_fill" and dtype.is_signed_int:
        wide = jnp.where((x >> np.uint32(B - 1)) & 1 == 1, m, np.uint32(0))
    else:
        wide = np.uint32(0)
    return jnp.where(n > B, wide, r)


def shift_right(x, n, dtype, round_en):
    """T-bits result of ``x >> n``. ``n``: int32 in [0, B + 1]; ``round_en``: bool (array).

    Unsigned T: logical, 0 for n >= B. Signed T: arithmetic, 0 or -1 for n >= B. With
    ``round_en`` (signed T only; ignored for unsigned) and n >= 1, bit n-1 of x (the last bit
    shifted out; for n > B the sign bit) is added: round half up of x / 2**n. n = 0: x unchanged.
    """
    B = dtype.bits
    m = _mask(B)
    x = jnp.asarray(x, U32) & m
    n = jnp.asarray(n, I32)
    if not dtype.is_signed_int:
        return jnp.where(n >= B, np.uint32(0), x >> jnp.clip(n, 0, 31).astype(U32))
    xs = sign_extend(x, B)
    q = lax.shift_right_arithmetic(xs, jnp.clip(n, 0, B - 1))
    last = lax.shift_right_arithmetic(xs, jnp.clip(n - 1, 0, B - 1)) & 1
    q = q + jnp.where(jnp.asarray(round_en, bool) & (n >= 1), last, 0)
    return lax.bitcast_convert_type(q, U32) & m


def _api_choice(profile, api, key, default):
    return profile.api(api).get(key, default)


def elem_shift_left(x, s, dtype, profile, ctrl, *_):
    """run_unary element function: ``s`` = uint32[2] (shift bits as T, unused)."""
    del ctrl
    n, _ = shift_amount(s[0], dtype.bits, dtype.is_signed_int)
    keep = _api_choice(profile, "ShiftLeft", "signed_left_shift", "keep_sign") == "keep_sign"
    return shift_left(x, n, dtype, keep, "zero")


def elem_shift_right(x, s, dtype, profile, ctrl, *_):
    """run_unary element function: ``s`` = uint32[2] (shift bits as T, roundEn flag)."""
    del ctrl
    n, _ = shift_amount(s[0], dtype.bits, dtype.is_signed_int)
    return shift_right(x, n, dtype, s[1] != 0)


# -- tensor shift amounts (count form only) ------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class TensorShiftStatic:
    api: str
    op: str  # "left" | "right"
    dtype: object  # DType of dst/src0 (src1 has the same width)
    R: int  # repeat bucket
    profile: object
    keep_sign: bool


@functools.partial(jax.jit, static_argnums=0)
def run_shift_tensor(st: TensorShiftStatic, state, dyn):
    """``dst[i] = src0[i] <</>> src1[i]`` for the first ``count`` elements (contiguous operands)."""
    p = st.profile
    dt = st.dtype
    R = st.R
    E = p.block_bytes // dt.itemsize
    # the count form's active lanes, zero-count policy and level-2 register epilogue (dyn["kind"] = count)
    ust = UnaryStatic(api=st.api, dtype=dt, R=R, merge="none", profile=p, elem=None)
    act, nop, undef, bad_mask, ovf, new_vmask, new_mode = active_lanes(ust, state, dyn)
    act = act & ~nop
    blk_act = jnp.any(act.reshape(R, 8, E), axis=-1)
    any_act = jnp.any(blk_act)
    bb = p.block_bytes
    d_addr = MEM.block_addr(dyn["dst"], 1, 8, R, bb)
    s0_addr = MEM.block_addr(dyn["src0"], 1, 8, R, bb)
    s1_addr = MEM.block_addr(dyn["src1"], 1, 8, R, bb)
    limit = min(state.ub.shape[-1], p.ub_usable_bytes)
    fault = jnp.zeros((), U32)
    for a in (d_addr, s0_addr, s1_addr):
        fault |= MEM.oob_fault(a, blk_act, limit, bb)
    fault |= MEM.misaligned_fault((dyn["dst"], dyn["src0"], dyn["src1"]), any_act, p.operand_alignment_bytes)
    for s_addr in (s0_addr, s1_addr):
        fault |= MEM.partial_overlap_fault(s_addr, d_addr, blk_act)
        fault |= MEM.repeat_dependency_fault(d_addr, s_addr, blk_act, blk_act, 8, bb)
    for reg in p.reserved:
        if st.api in reg.used_by:
            lo, hi = reg.offset_bytes, reg.offset_bytes + reg.size_bytes
            hit = jnp.zeros((), bool)
            for a in (d_addr, s0_addr, s1_addr):
                hit = hit | jnp.any(blk_act & (a < hi) & (a + bb > lo))
            fault |= jnp.where(hit, U32(Fault.SCRATCH_COLLISION), U32(0))
    bits_dt = jnp.dtype(dt.bits_dtype)
    d_idx = MEM.block_index(d_addr, bb)
    x = MEM.to_lanes(MEM.gather_blocks(state.ub, MEM.block_index(s0_addr, bb)), bits_dt).astype(U32)
    amt_bits = MEM.to_lanes(MEM.gather_blocks_at(state.ub, s1_addr, bb), bits_dt).astype(U32)
    n, neg = shift_amount(amt_bits, dt.bits, True)  # U is a signed type of T's width
    # SPEC: src1 "不支持设置为负数": a negative amount in an active lane is a BAD_PARAM fault
    bad_param = dyn["bad_param"] | jnp.any(neg & act)
    fault |= jnp.where(undef, U32(Fault.UNDEFINED), U32(0))
    fault |= jnp.where(bad_mask, U32(Fault.BAD_MASK), U32(0))
    fault |= jnp.where(bad_param, U32(Fault.BAD_PARAM), U32(0))
    fault |= jnp.where(ovf & ~nop, U32(Fault.BUCKET_OVERFLOW), U32(0))
    ok = fault == 0
    if st.op == "left":
        r = shift_left(x, n, dt, st.keep_sign, "sign_fill")
    else:
        r = shift_right(x, n, dt, False)
    old = MEM.to_lanes(MEM.gather_blocks(state.ub, d_idx), bits_dt)
    merged = jnp.where(act, r.astype(bits_dt), old)
    ub = MEM.scatter_blocks(state.ub, d_idx, MEM.from_lanes(merged), blk_act & ok)
    change = ok & ~nop
    vmask = jnp.where(change, new_vmask, state.vmask)
    mode = jnp.where(change, new_mode, state.mask_mode)
    return state.replace(ub=ub, vmask=vmask, mask_mode=mode, fault=state.fault | fault)
