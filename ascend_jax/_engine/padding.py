"""VectorPadding(ISASI) (数据填充/VectorPadding(ISASI).md): the element function on the strided core.

Each dst lane takes a value of the src DataBlock at the same block position of its repeat (the
whole src block is read, whatever the mask: "源操作数的读取与mask无关"). With the profile choice
``apis.VectorPadding.layout = "outside_block"`` (docs/MODEL.md "VectorPadding"), the dst block holds
the E values that lie just outside the src block on the ``padSide`` side, in address order:

  padMode 0 (邻近数):       left: every element = src[0];    right: every element = src[E-1]
  padMode 1 (对称填充):      left and right: dst[i] = src[E-1-i]
  padMode 2 (偏移一个数对称): left: dst[0] = 0, dst[i] = src[E-i];  right: dst[i] = src[E-2-i], dst[E-1] = 0

padMode and padSide are traced data (``dyn["pad"] = 2 * padMode + padSide``), so one program per
(dtype, repeat bucket) serves all six choices. The index table is built here from the rule above (the
reference builds the padded sequence from the page's wording instead).
"""

import jax.numpy as jnp
import numpy as np

U32 = jnp.uint32
I32 = jnp.int32

LAYOUTS = ("outside_block",)


def index_table(E):
    """int32[6, E]: the src element index each dst element of a block takes, per ``2 * padMode +
    padSide``; -1 = the zero element (padMode 2's "x处填充0")."""
    i = np.arange(E)
    left0, right0 = np.zeros(E, np.int64), np.full(E, E - 1)
    mirror = E - 1 - i
    left2 = np.where(i == 0, -1, E - i)
    right2 = np.where(i == E - 1, -1, E - 2 - i)
    return np.stack([left0, right0, mirror, mirror, left2, right2]).astype(np.int32)


def pad_elem(x, scalar, dtype, profile, ctrl, dyn):
    """Lanes ``x`` (uint32 [R, L], one src operand) -> dst lane bits (uint32 [R, L])."""
    layout = profile.api("VectorPadding").layout
    if layout not in LAYOUTS:  # the profile schema allows only the modelled choices
        raise ValueError(f"VectorPadding: layout {layout!r} not modelled")
    R, L = x.shape
    E = profile.block_bytes // dtype.itemsize
    blocks = x.reshape(R, L // E, E)
    table = jnp.asarray(index_table(E))
    idx = table[jnp.clip(jnp.asarray(dyn["pad"], I32), 0, 5)]  # [E]
    picked = jnp.take(blocks, jnp.maximum(idx, 0), axis=-1)
    out = jnp.where(idx[None, None, :] < 0, U32(0), picked)
    return out.reshape(R, L)
