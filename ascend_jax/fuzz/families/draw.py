"""Vectorised twins of the shared case draws (``fuzz.regs``: ``draw``, ``lane_bits``,
``random_ctrl``, ``draw_mask``; ``families.base``: ``draw_repeat_strides``, ``draw_addr``, the
special values): the same distributions, drawn for many cases at once from ``rng.Slots`` (one
stream a case) into column arrays, for the families' ``generate_many`` (issue 36: drawing a case
one at a time in Python cost ~200 us).

Every helper is a FIXED LAYOUT: it makes the same draws, in the same order, for every case,
whatever the case's unit, form or branch (a branch is an ``np.where`` over draws made for every
row), so a case drawn alone (``n`` = 1) gets the values it gets in a batch. Where a scalar helper
draws only on some branch, its twin draws for every case and keeps the value where the branch is
taken: the words a case uses differ from the scalar helper's, the distribution does not.

Per-case parameters (lanes ``L``, element sizes, ...) are int arrays over the cases. A lane bit
set is 8 uint32 words a case, low word first (the ``vmask`` layout, 256 bits)."""

import collections
import dataclasses
import itertools

import numpy as np

from ... import dtypes as _dt
from ..regs import LANE_KINDS, reset_ctrl
from .base import specials

_WORD_BITS = np.arange(8, dtype=np.int64) * 32  # the first bit of each uint32 word


def rows(n, v, dtype=np.int64):
    """``v`` (a scalar or a per-case array) as an array of ``n`` values."""
    return np.broadcast_to(np.asarray(v, dtype), (n,))


def ints(slots, low, high):
    """``rng.integers(low, high)`` per case (int64; ``low``, ``high`` scalars or arrays). A row
    whose range is empty (a value no case of that row keeps) gets ``low``."""
    low = np.asarray(low, np.int64)
    return low + slots.below(np.maximum(np.asarray(high, np.int64) - low, 1)).astype(np.int64)


def choose(slots, options, dtype=np.int64):
    """``rng.choice(options)`` per case, uniformly; an option is a scalar or a per-case array
    (one word)."""
    n = len(slots)
    table = np.empty((n, len(options)), dtype)
    for j, o in enumerate(options):
        table[:, j] = o
    return table[np.arange(n), slots.below(len(options))]


def unit_index(units):
    """(the distinct units in order of first use, each case's index into them)."""
    pos = {}
    idx = np.fromiter((pos.setdefault(u, len(pos)) for u in units), np.int64, len(units))
    return list(pos), idx


def per_unit(uniq, idx, f, dtype=np.int64):
    """``f(unit)`` for every case (computed once per distinct unit)."""
    return np.asarray([f(u) for u in uniq], dtype)[idx]


# -- lane bit sets (8 uint32 words a case) ---------------------------------------------------------


def prefix_words(k):
    """The bits [0, k) of every case (``k`` an int array) as 8 uint32 words."""
    c = np.clip(np.asarray(k, np.int64)[:, None] - _WORD_BITS, 0, 32).astype(np.uint64)
    return ((np.uint64(1) << c) - np.uint64(1)).astype(np.uint32)


def random_words(slots, n_words=8):
    """``n_words`` uniformly random uint32 words a case (two a draw)."""
    w = np.stack([slots.word() for _ in range((n_words + 1) // 2)], 1)
    lo, hi = (w & np.uint64(0xFFFFFFFF)).astype(np.uint32), (w >> np.uint64(32)).astype(np.uint32)
    return np.stack([lo, hi], 2).reshape(len(w), -1)[:, :n_words]


def words_to_u64(words, n):
    """8 uint32 words a case as its first ``n`` uint64 words (low first)."""
    w = words.astype(np.uint64)
    return w[:, 0 : 2 * n : 2] | (w[:, 1 : 2 * n : 2] << np.uint64(32))


def u64_to_words(v):
    """A uint64 value a case as 8 uint32 words (the upper six zero)."""
    v = np.asarray(v, np.uint64)
    out = np.zeros((len(v), 8), np.uint32)
    out[:, 0] = (v & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    out[:, 1] = (v >> np.uint64(32)).astype(np.uint32)
    return out


def lane_bits_many(slots, L, reg_bits):
    """``regs.lane_bits`` for every case: all lanes, none, one, a prefix or random bits, masked to
    the ``L`` lanes of a repeat and the ``reg_bits``-bit register (five draws: the kind, the single
    lane, the prefix length, 256 random bits)."""
    if reg_bits > 256:
        raise ValueError(f"lane_bits_many: a {reg_bits}-bit register (256 at most)")
    n = len(slots)
    L = rows(n, L)
    kind = slots.below(len(LANE_KINDS))
    single = slots.below(L)
    prefix = slots.below(L + 1)
    rnd = random_words(slots)
    k = {name: kind[:, None] == j for j, name in enumerate(LANE_KINDS)}
    v = np.where(k["all"], prefix_words(L), np.uint32(0))
    v = np.where(k["single"], prefix_words(single + 1) ^ prefix_words(single), v)
    v = np.where(k["prefix"], prefix_words(prefix), v)
    v = np.where(k["random"], rnd, v)
    return v & prefix_words(np.minimum(L, reg_bits))


def random_ctrl_many(slots, p):
    """``regs.random_ctrl`` for every case: (n, 2) uint32 words (a draw per modelled bit)."""
    n = len(slots)
    c = np.tile(np.asarray(reset_ctrl(p), np.uint32), (n, 1))
    for bit in (p.float_saturation_ctrl_bit, p.int_saturation_ctrl_bit):
        if bit >= 0:
            flip = slots.random() < 0.5
            c[:, bit // 32] ^= np.where(flip, np.uint32(1 << (bit % 32)), np.uint32(0))
    return c


Registers = collections.namedtuple("Registers", "vmask mask_mode cmpmask ctrl rsvd_cnt")


def draw_many(slots, p, L, counter_ok=True, counter_share=0.2):
    """``regs.draw`` for every case (``L``, ``counter_ok``: per case or scalar): ``Registers`` of
    arrays, vmask (n, 8) / cmpmask (n, 4) / ctrl (n, 2) uint32 words, mask_mode and rsvd_cnt
    (n,) int64."""
    n = len(slots)
    u = slots.random()
    ok = rows(n, counter_ok, bool) & (p.counter_mode != "unsupported")
    mask_mode = (ok & (u < counter_share)).astype(np.int64)
    vm = lane_bits_many(slots, L, p.vector_mask_bits)
    cmpmask = random_words(slots, 4)
    ctrl = random_ctrl_many(slots, p)
    return Registers(vm, mask_mode, cmpmask, ctrl, slots.below(1000))


# -- repeats, strides, addresses -------------------------------------------------------------------

_REP_CHOICES = np.array([0, 1, 1, 2, 3, 4, 8, 17, 255])
_STRIDE_PICK = np.array([0, 1, 1, 2, 3, 4, 7, 8, 9, 16])


def draw_repeat_strides_many(slots, default_strides, fault_rate):
    """``base.draw_repeat_strides`` for every case: (repeat (n,), strides (n, k)) int64."""
    k = slots.below(len(_REP_CHOICES))
    edge = slots.random() < 0.8
    repeat = np.where(edge, _REP_CHOICES[k], slots.below(256))
    default = slots.random() < 0.5
    picks = np.stack([_STRIDE_PICK[slots.below(len(_STRIDE_PICK))] for _ in default_strides], 1)
    keep0 = slots.random() <= fault_rate
    picks[:, 0] = np.where((picks[:, 0] == 0) & ~keep0, 1, picks[:, 0])
    strides = np.where(default[:, None], np.asarray(default_strides, np.int64), picks)
    return repeat, strides


def footprint_many(blk, rep, reps):
    """``base.footprint`` over arrays."""
    return (np.maximum(reps, 1) - 1) * rep + 7 * blk + 1


def draw_addr_many(slots, nblocks, fp_blocks, fault_rate):
    """``base.draw_addr`` for every case (five draws)."""
    hi = np.maximum(0, nblocks - np.minimum(fp_blocks, nblocks))
    b = slots.below(hi + 1) * 32
    misaligned = slots.random() < fault_rate / 2
    off = choose(slots, [2, 4, 16])
    outside = slots.random() < fault_rate / 2
    far = ints(slots, nblocks - 2, nblocks + 4) * 32
    return np.where(misaligned, b + off, np.where(outside, far, b))


def addr_many(slots, nblocks, fp_blocks, fault_rate):
    """The address rule of ``gather_shift._addr`` and ``compare_select.random_case`` for every case:
    room for ``fp_blocks`` blocks; one uniform draw decides misaligned (``fault_rate`` / 2, by 2,
    4, 8 or 16 bytes) or a block at the arena's end or past it (``fault_rate`` / 2). Four draws."""
    top = np.maximum(0, nblocks - np.minimum(fp_blocks, nblocks))
    x = ints(slots, 0, top + 1) * 32
    u = slots.random()
    off = choose(slots, [2, 4, 8, 16])
    far = ints(slots, nblocks - 2, nblocks + 3) * 32
    return np.where(u < fault_rate / 2, x + off, np.where(u < fault_rate, far, x))


# -- special values --------------------------------------------------------------------------------


def specials_table(dtypes):
    """(table, lengths): ``base.specials`` of each type of ``dtypes`` as the rows of a uint64 table
    (padded) and their lengths."""
    sp = [specials(d) for d in dtypes]
    table = np.zeros((len(sp), max(len(s) for s in sp)), np.uint64)
    for j, s in enumerate(sp):
        table[j, : len(s)] = np.asarray(s, np.uint64)
    return table, np.asarray([len(s) for s in sp], np.int64)


def draw_special(slots, table, lengths, k):
    """A special value of each case's type (``k``: its row of ``specials_table``; one draw)."""
    return table[k, slots.below(lengths[k])]


def low_bits(w, bits):
    """The low ``bits`` (per case, 1 to 64) of uint64 words."""
    shift = (64 - np.asarray(bits, np.int64)).astype(np.uint64)
    return (w << shift) >> shift


def bits_as_values(bits, dtype_idx, dtypes):
    """The Python values (float or int) of bit patterns (uint64) of each case's type
    (``dtypes[dtype_idx]``), as a list."""
    out = np.empty(len(bits), object)
    for j, dt in enumerate(dtypes):
        sel = np.flatnonzero(dtype_idx == j)
        if len(sel):
            d = _dt.as_dtype(dt)
            v = bits[sel].astype(d.bits_dtype).view(d.np_dtype)
            out[sel] = (v.astype(np.float64) if d.is_float else v).tolist()
    return out.tolist()


# -- the cases ---------------------------------------------------------------------------------------


def tuples(a):
    """The rows of a 2-D int array as tuples of Python ints."""
    a = np.asarray(a)
    return list(zip(*(a[:, j].tolist() for j in range(a.shape[1])), strict=True))


def dtype_columns(p, units, k=1):
    """(the number of cases, each case's element-type name (an object array), its element size in
    bytes, its lanes a repeat on ``p``) of units holding the type name at index ``k``."""
    uniq, ui = unit_index(units)
    ds = [_dt.as_dtype(u[k]) for u in uniq]
    names = np.asarray([d.name for d in ds], object)[ui]
    size = np.asarray([d.itemsize for d in ds], np.int64)[ui]
    return len(units), names, size, np.asarray([p.lanes(d) for d in ds], np.int64)[ui]


def mask_fields(vmask, mask_mode, ctrl):
    """The vector-mask and CTRL fields of the cases (``build`` columns) from the arrays of
    ``draw_many``'s registers (or the generator's own vmask)."""
    return dict(vmask=tuples(vmask), mask_mode=np.asarray(mask_mode).tolist(), ctrl=tuples(ctrl))


def build(cls, n, fields):
    """``n`` instances of the frozen dataclass ``cls``: ``fields`` maps every field to a list of
    ``n`` values (a column) or one value for all. Equal to ``cls(**row)`` (no ``__post_init__``, no
    slots: the instance dict is filled directly, a third of the constructor's time)."""
    names = [f.name for f in dataclasses.fields(cls)]
    missing = set(names) ^ set(fields)
    if missing:
        raise ValueError(f"build {cls.__name__}: fields {sorted(missing)} missing or unknown")
    short = [k for k in names if isinstance(fields[k], list) and len(fields[k]) != n]
    if short:
        raise ValueError(f"build {cls.__name__}: columns {short} not of {n} rows")
    cols = [fields[k] if isinstance(fields[k], list) else itertools.repeat(fields[k], n) for k in names]
    if hasattr(cls, "__post_init__") or "__slots__" in cls.__dict__:
        return [cls(**dict(zip(names, row, strict=False))) for row in zip(*cols, strict=False)]
    new, out = object.__new__, []
    for row in zip(*cols, strict=False):
        o = new(cls)
        o.__dict__.update(zip(names, row, strict=True))
        out.append(o)
    return out


# -- vec1
# the strided call forms (``base.STRIDED_FORMS`` order): a form code is an index of STRIDED_FORM_NAMES
STRIDED_FORM_NAMES = ("count", "count_register", "continuous", "bitwise", "register")


def repeat_strides_rows(slots, defaults, fault_rate, use_default=None):
    """``draw_repeat_strides_many`` with per-case default strides (``defaults``: (n, k) int64, k
    picks drawn for every case; a case with fewer strides keeps its first ones); ``use_default``:
    the cases taking their defaults whatever the draw (``compound.draw_layout``'s count forms)."""
    n, k = defaults.shape
    kk = slots.below(len(_REP_CHOICES))
    edge = slots.random() < 0.8
    repeat = np.where(edge, _REP_CHOICES[kk], slots.below(256))
    default = slots.random() < 0.5
    if use_default is not None:
        default = default | use_default
    picks = np.stack([_STRIDE_PICK[slots.below(len(_STRIDE_PICK))] for _ in range(k)], 1)
    keep0 = slots.random() <= fault_rate
    picks[:, 0] = np.where((picks[:, 0] == 0) & ~keep0, 1, picks[:, 0])
    return repeat, np.where(default[:, None], defaults, picks)


def mask_columns_many(slots, p, L, form, regs, count_bound):
    """``regs.draw_mask`` for every case as columns (``form``: codes of ``STRIDED_FORM_NAMES``,
    ``regs``: ``draw_many``'s): (the continuous mask (n,) int64, the bitwise words (n, words)
    uint64, vmask (n, 8) uint32 words, Counter mode (n,) bool, the Counter-mode count (n,) int64).
    Three draws (the count, the continuous mask's choice and its random lane count)."""
    n = len(slots)
    L = rows(n, L)
    form = rows(n, form)
    counter = regs.mask_mode == 1
    lo = np.where((p.zero_mask == "error") & ((form == 2) | (form == 3)), 1, 0)
    count_reg = ints(slots, lo, np.asarray(count_bound, np.int64) + 1)
    cont = choose(slots, [0, 1, L // 2, L - 1, L, L + 5, ints(slots, 0, L + 1)])
    if p.zero_mask == "error":
        cont = np.maximum(cont, 1)
    cont = np.where(counter, count_reg, cont)
    nw = p.vector_mask_bits // 64
    words = words_to_u64(regs.vmask, nw)
    words[:, 0] = np.where(counter, count_reg.astype(np.uint64), words[:, 0])
    words[:, 1:] = np.where(counter[:, None], np.uint64(0), words[:, 1:])
    if p.zero_mask == "error":
        words[:, 0] = np.where(words.any(axis=1), words[:, 0], np.uint64(1))
    vmask = np.where(counter[:, None], u64_to_words(count_reg), regs.vmask)
    return cont, words, vmask, counter, count_reg


def mask_values(form, cont, words):
    """The ``mask`` argument of each case (a list): the continuous mask (an int), the bitwise words
    (a tuple) or None (the other forms)."""
    return [
        c if f == 2 else (w if f == 3 else None)
        for f, c, w in zip(np.asarray(form).tolist(), cont.tolist(), tuples(words), strict=True)
    ]


def draw_mask_many(slots, p, L, form, regs, count_bound):
    """``regs.draw_mask`` for every case: (masks -- ``mask_values`` --, vmask (n, 8) uint32 words,
    Counter mode (n,) bool, the Counter-mode count (n,) int64)."""
    form = rows(len(slots), form)
    cont, words, vmask, counter, count_reg = mask_columns_many(slots, p, L, form, regs, count_bound)
    return mask_values(form, cont, words), vmask, counter, count_reg


# -- vec2
# the strided call forms of ``compound.draw_layout`` (its ``form`` argument), as codes
LAYOUT_FORMS = STRIDED_FORM_NAMES
Layout = collections.namedtuple(
    "Layout", "form dst srcs count repeat strides cont words vmask mask_mode ctrl"
)


def draw_layout_many(slots, p, L, blocks, default_strides, form, fault_rate, ub_bytes):
    """``compound.draw_layout`` for every case (the layout of a strided call, Cast and the
    reductions): ``L`` lanes a repeat (per case), ``blocks`` a per-case array for each operand (dst
    first), ``form`` an index of ``LAYOUT_FORMS`` per case. A fixed layout of draws: the registers,
    repeat and strides, the count, the Counter-mode count, the continuous mask, then the addresses
    (dst, then a same-as-dst draw and an address for each source). Returns a ``Layout`` of arrays:
    form, dst, srcs (n, sources), count, repeat, strides (n, 2 * operands), cont (the continuous
    mask), words (the bitwise mask, uint64 words), vmask (n, 8) uint32, mask_mode, ctrl (n, 2)."""
    n = len(slots)
    k = len(blocks)
    L = rows(n, L)
    form = rows(n, form)
    nblocks = ub_bytes // 32
    count_form = form <= 1
    regs = draw_many(slots, p, L, counter_ok=form != 0)
    repeat, strides = draw_repeat_strides_many(slots, default_strides, fault_rate)
    strides = np.where(count_form[:, None], np.asarray(default_strides, np.int64), strides)
    # the count forms: a count up to 3 repeats (at most a third of the arena of 4-byte elements),
    # a tenth of them 0
    E = p.block_bytes // 4
    count = ints(slots, 0, np.minimum(3 * L, nblocks * E // 3) + 1)
    count = np.where(count_form & (slots.random() >= 0.1), count, 0)
    # ``regs.draw_mask``: the Counter-mode count, the continuous mask, the bitwise words
    cont, words, vmask, counter, count_reg = mask_columns_many(
        slots, p, L, form, regs, np.minimum(4 * L, nblocks * E // 3)
    )
    reps = np.where(count_form, -(-count // L), repeat)
    reps = np.where(counter, np.maximum(reps, -(-count_reg // L)), reps)

    def fp(i):
        return (np.maximum(reps, 1) - 1) * strides[:, k + i] + (rows(n, blocks[i]) - 1) * strides[:, i] + 1

    dst = draw_addr_many(slots, nblocks, fp(0), fault_rate)
    srcs = []
    for i in range(1, k):
        same = slots.random() < 0.15
        srcs.append(np.where(same, dst, draw_addr_many(slots, nblocks, fp(i), fault_rate)))
    return Layout(
        form=form,
        dst=dst,
        srcs=np.stack(srcs, 1) if srcs else np.zeros((n, 0), np.int64),
        count=count,
        repeat=repeat,
        strides=strides,
        cont=cont,
        words=words,
        vmask=vmask,
        mask_mode=regs.mask_mode,
        ctrl=regs.ctrl,
    )


def layout_masks(lay):
    """The ``mask`` column of a ``draw_layout_many`` layout: the continuous mask (an int), the
    bitwise words (a tuple) or None (the other forms), a list."""
    return mask_values(lay.form, lay.cont, lay.words)


def split(slots, k):
    """``k`` streams for every case, in one draw: stream ``(i, j)`` is ``CaseRng((w_i, j))`` with
    ``w_i`` the next word of case ``i``'s stream (so it depends on case ``i`` alone). A ``Slots`` of
    ``n * k`` streams, case ``i``'s at rows ``i * k`` to ``i * k + k - 1``: ``k`` values a case drawn
    by one call (a table of ``k`` entries) in place of ``k`` calls."""
    from ..rng import _GOLDEN, Slots, _mix_array  # noqa: PLC0415  (rng.case_states over many seeds)

    s = _mix_array(slots.word() + np.uint64(_GOLDEN))
    return Slots(_mix_array((s[:, None] ^ np.arange(k, dtype=np.uint64)) + np.uint64(_GOLDEN)).reshape(-1))
