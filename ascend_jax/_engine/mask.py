"""Which lanes of which repeats are active: continuous / bitwise / counter-mode / register masks.

Produces ``active: bool[R, L]`` (R = the static repeat bucket, L = lanes per repeat) plus the
new vector-mask register value a call leaves behind. See docs/MODEL.md "Which lanes are active".
"""

import jax.numpy as jnp
import numpy as np

U32 = jnp.uint32
ALL_ONES = np.uint32(0xFFFFFFFF)


def bits_of_words(words, n_lanes):
    """bool[n_lanes]: bit l of the little-endian uint32 word array ``words``."""
    lane = np.arange(n_lanes)
    w = words[..., lane // 32]
    return ((w >> (lane % 32).astype(np.uint32)) & 1) == 1


def continuous_words(n, n_lanes, reg_bits=128):
    """Register image of a continuous mask ``n`` (uint32 scalar): all ones if n >= L or n >= the
    register width, else the low n bits (the SetMask(len) lowering). uint32[8], low word first."""
    n = jnp.asarray(n, U32)
    full = (n >= n_lanes) | (n >= reg_bits)
    k = jnp.clip(n.astype(jnp.int32) - 32 * np.arange(8, dtype=np.int32), 0, 32).astype(U32)
    part = jnp.where(k >= 32, ALL_ONES, (np.uint32(1) << jnp.minimum(k, 31)) - np.uint32(1))
    return jnp.where(full, ALL_ONES, part)


def pack_bits(on):
    """bool[..., 256] -> uint32[..., 8] little endian."""
    on = on.reshape(on.shape[:-1] + (8, 32)).astype(U32)
    return (on << np.arange(32, dtype=np.uint32)).sum(axis=-1, dtype=U32)


def counter_words(count_lo, count_hi):
    z = jnp.zeros((6,), U32)
    return jnp.concatenate([jnp.stack([count_lo, count_hi]).astype(U32), z])


def lanes_below(count_lo, count_hi, R, L):
    """bool[R, L]: global lane index r*L + l < count (count as a uint32 pair)."""
    g = (np.arange(R)[:, None] * L + np.arange(L)[None, :]).astype(np.uint32)
    return (count_hi != 0) | (g < count_lo)


def repeat_below(n_rep, R, L):
    return jnp.broadcast_to((np.arange(R) < n_rep)[:, None], (R, L))
