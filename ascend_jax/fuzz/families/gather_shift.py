"""Random cases for GatherMask and the shift APIs (issue 4), run through the fast path (vmapped
batches of the public API with every address / amount / mask / count / repeat / stride / pattern
traced) and through the NumPy reference, compared on the whole UB, vmask, mask_mode, rsvd_cnt and
fault bits.

A ``ShiftCase`` / ``GatherCase`` is fully concrete (Python ints), so it can be replayed and printed
(``call_repr``). ``shift_cases`` / ``gather_cases`` draw every structural parameter per group
(shifts: API x dtype; GatherMask: dtype x reduce mode x pattern kind); ``Family.run_all`` groups the cases
by static signature, pads each batch to a fixed size (one compilation per signature) and overlaps the
fast path (a worker thread: XLA releases the GIL) with the reference (main thread).

GatherMask's signature is (lane width, reduceMode, repeat bucket) (issue 36): the element type is its
lane width's twin, and the pattern source (built-in number / user tensor) is traced (``src1Pattern``
an ``AnyPattern``), so both pattern forms of a lane width and mode share one program (8 signatures on
ascend910b, not 16). reduceMode could be traced too (the API takes a traced bool) but is not: one
program for both modes runs Normal cases at Counter mode's larger shape, 2.5-3x slower per case.
Records and labels keep each case's own ``counter`` / ``user``. The shifts trace their call form as an ``AnyForm``.

Traced values: a shift amount, a roundEn flag or a GatherMask parameter out of its documented range
is passed to the reference as a NumPy scalar, which the reference treats as a run-time value
(``BAD_PARAM`` / ``BAD_MASK`` instead of a usage error), like the fast path's traced arrays.

The families of GatherMask and of the shifts (ShiftLeft, ShiftRight and their tensor-amount
forms): case types, generators, calls and the engine's adapters (at the end).
"""

import dataclasses
import math

import numpy as np

from ... import dtypes as _dt
from ...params import AnyForm, UnaryRepeatParams
from ...profile import as_profile
from ...tensor import MASK_PLACEHOLDER, LocalTensor
from ..regs import draw as draw_registers
from ..regs import lane_bits, words8
from . import draw as D
from .base import (
    MASK_FIELDS,
    UB_FIELDS,
    Operand,
    case_dataclass,
    data_mutations,
    form_codes,
    int32_columns,
    layout_operands,
    make_ub,
    make_ubs,
    mask_columns,
    mask_words32,
    repeat_regime,
    stride_regime,
    strided_operand,
    unlisted_dtype,
)
from .base import (
    is_reference as _is_reference,
)
from .family import BIG_R, SMALL_R, TwoBucketFamily

SHIFT_APIS = ("ShiftLeft", "ShiftRight", "ShiftLeftTensor", "ShiftRightTensor")
UB_BYTES = 8192


def _addr(rng, nblocks, fp_blocks, fault_rate):
    hi = max(0, nblocks - min(fp_blocks, nblocks))
    x = int(rng.integers(0, hi + 1)) * 32
    u = rng.random()
    if u < fault_rate / 2:
        return x + int(rng.choice([2, 4, 8, 16]))  # misaligned
    if u < fault_rate:
        return int(rng.integers(nblocks - 2, nblocks + 3)) * 32  # (partly) outside the arena
    return x


# =============================================================================================
# Shifts


@case_dataclass
class ShiftCase:
    api: str
    dtype: str
    form: str  # "count" | "continuous" | "bitwise" | "register" (isSetMask=False high-dim)
    is_set_mask: bool = True  # False with form "count": the count form under the registers
    dst: int = 0
    src: int = 0
    src1: int = 0  # tensor shifts: the shift-amount tensor
    amount: int = 0  # the scalar shift amount as T's value (may be out of range: traced BAD_PARAM)
    round_en: bool = False
    count: int = 0
    mask: object = 0  # int (continuous) or tuple of uint64 words (bitwise)
    repeat: int = 1
    strides: tuple = (1, 1, 8, 8)
    registers: MASK_FIELDS
    ub: UB_FIELDS
    neg_amount: bool = False  # tensor shifts: one negative amount among the active lanes
    big: bool = False

    def key(self):
        return ("shift", self.api, self.dtype, self.form, self.is_set_mask, self.big)

    @property
    def amount_dtype(self):
        return f"int{_dt.as_dtype(self.dtype).bits}"

    def call_repr(self):
        t = f"<{self.dtype}{'' if self.is_set_mask else ', false'}>"
        if self.api.endswith("Tensor"):
            return (
                f"{self.api}{t}(dst@{self.dst}, src0@{self.src}, src1@{self.src1}:{self.amount_dtype}, "
                f"{self.count}) [ub_seed={self.ub_seed} data={self.data} neg={self.neg_amount}]"
            )
        head = f"{self.api}{t}(dst@{self.dst}, src@{self.src}, {self.amount}"
        regs = f"[mode={self.mask_mode} vmask={[hex(w) for w in self.vmask[:4]]} ub_seed={self.ub_seed} data={self.data}]"
        if self.form == "count":
            return f"{head}, {self.count}) {regs}"
        m = "MASK_PLACEHOLDER" if self.form == "register" else self.mask
        if isinstance(m, tuple):
            m = [hex(w) for w in m]
        rnd = f", roundEn={self.round_en}" if self.api == "ShiftRight" else ""
        return f"{head}, {m}, {self.repeat}, {self.strides}{rnd}) {regs}"


def shift_groups(profile):
    """[(api, dtype)] of the shift APIs the profile supports."""
    p = as_profile(profile)
    out = []
    for api in SHIFT_APIS:
        a = p.api(api)
        if a.supported:
            out.extend((api, dt) for dt in a.all_dtypes())
    return out


def shift_forms(p, api, dt):
    a = p.api(api)
    if api.endswith("Tensor") or dt in a.count_only_dtypes:
        return ["count"]
    forms = ["count", "continuous", "bitwise", "register"]
    if p.level2_is_set_mask == "honoured":
        forms.append("count_reg")
    return forms


def random_shift_case(rng, p, api, dt, form, big=False, ub_bytes=UB_BYTES, fault_rate=0.08):
    d = _dt.as_dtype(dt)
    a = p.api(api)
    L = p.lanes(d)
    B = d.bits
    nblocks = ub_bytes // 32
    is_set_mask = form != "count_reg"
    form = "count" if form == "count_reg" else form
    data = ["raw", "specials", "small"][int(rng.integers(3))]

    # the shift amount: edges, random in range, and a few out of range (traced -> BAD_PARAM)
    saturating = not api.endswith("Tensor") and a.shift_range == "saturating"  # Tensor APIs: no such key
    u = rng.random()
    if u < 0.3:
        amount = int(rng.choice([0, 1, B - 1, B]))
    elif u < 0.9:
        amount = int(rng.integers(0, B + 1))
    elif saturating:
        amount = int(rng.choice([B + 1, B + 7, _max_of(d), -1]))
    else:
        amount = int(rng.choice([-1, B + 1, _max_of(d)]))
    amount = _wrap(amount, d)
    round_en = False
    if api == "ShiftRight" and form != "count":
        if a.round_en:
            round_en = bool(rng.random() < 0.5)
        else:
            round_en = bool(rng.random() < 0.05)  # traced True where unsupported: BAD_PARAM

    # registers (the engine's one register randomisation)
    regs = draw_registers(rng, p, L, counter_ok=form != "count" or not is_set_mask)
    mask_mode = regs.mask_mode
    vm = sum(w << (32 * i) for i, w in enumerate(regs.vmask))
    max_reps = BIG_R if big else SMALL_R
    if big:
        repeat = int(rng.choice([255, 200, 128, 64, 17]))
    else:
        repeat = (
            int(rng.choice([0, 1, 1, 1, 2, 2, 3, 4, 8, 16]))
            if rng.random() < 0.9
            else int(rng.integers(0, 17))
        )
    count = 0
    if form == "count":
        hi = min(max_reps * L, (ub_bytes // 3) // d.itemsize)
        if big:
            count = int(rng.integers(min(L * 8, hi), hi + 1))
        else:
            count = int(rng.choice([0, 1, L - 1, L, L + 1, 2 * L, int(rng.integers(0, 4 * L + 1))]))
        count = min(count, hi)
    count_reg = None
    if mask_mode == 1:
        hi = min(max_reps * L, (ub_bytes // 3) // d.itemsize) if big else 4 * L
        count_reg = int(rng.choice([1, L - 1, L, L + 3, int(rng.integers(1, hi + 1))]))
        if rng.random() < 0.03 and p.zero_mask != "error":
            count_reg = 0
        vm = count_reg
    # strides
    if form == "count":
        strides = (1, 1, 8, 8)
    elif rng.random() < 0.5:
        strides = (1, 1, 8, 8)
    else:
        pool = [0, 1, 1, 2, 3, 8, 8, 9, 16]
        strides = tuple(int(rng.choice(pool)) for _ in range(4))
        if strides[0] == 0 and rng.random() > fault_rate:
            strides = (1,) + strides[1:]
    if big and form != "count":
        strides = strides[:2] + tuple(int(rng.choice([0, 1])) for _ in range(2))
    # mask argument
    mask = 0
    nw = p.vector_mask_bits // 64
    if form == "continuous":
        mask = int(rng.choice([0, 1, L // 2, L - 1, L, L + 5, int(rng.integers(0, L + 1))]))
        if mask_mode == 1:
            mask = count_reg
        if p.zero_mask == "error" and mask == 0:
            mask = 1
    elif form == "bitwise":
        v = lane_bits(rng, L, p.vector_mask_bits)
        if mask_mode == 1:
            v = count_reg
        if p.zero_mask == "error" and v == 0:
            v = 1
        mask = tuple((v >> (64 * i)) & (2**64 - 1) for i in range(nw))

    def fp(blk, rep):
        reps = max(1, repeat if form != "count" else math.ceil(max(count, 1) / L))
        if mask_mode == 1 and count_reg:
            reps = max(reps, math.ceil(count_reg / L))
        return (reps - 1) * rep + (L // (32 // d.itemsize) - 1) * blk + 1

    dst = _addr(rng, nblocks, fp(strides[0], strides[2]), fault_rate)
    src = _addr(rng, nblocks, fp(strides[1], strides[3]), fault_rate)
    src1 = _addr(rng, nblocks, fp(1, 8), fault_rate)
    u = rng.random()
    if u < 0.1:
        src = dst
    elif u < 0.14 and api.endswith("Tensor"):
        src1 = dst
    elif u < 0.18:
        src = dst + 32 * int(rng.choice([1, 8]))  # partial overlap / repeat dependency
    return ShiftCase(
        api=api,
        dtype=d.name,
        form=form,
        is_set_mask=is_set_mask,
        dst=dst,
        src=src,
        src1=src1,
        amount=amount,
        round_en=round_en,
        count=count,
        mask=mask,
        repeat=repeat,
        strides=strides,
        **regs.mask_fields(words8(vm)),
        ub_seed=int(rng.integers(0, 2**31)),
        ub_bytes=ub_bytes,
        data=data,
        neg_amount=bool(api.endswith("Tensor") and rng.random() < 0.04),
        big=big,
    )


def random_shift_cases_many(slots, p, units, ub_bytes=UB_BYTES, fault_rate=0.08):
    """``random_shift_case`` (with the adapter's large-repeat-bucket draw) for many cases at once,
    one a unit ``(api, dtype, form, big_ok)`` of ``units``, drawn from ``slots`` in a fixed layout
    (``families.draw``): the same distribution of amounts, roundEn, registers, repeats, counts,
    strides, masks, addresses, overlaps and data styles."""
    n = len(units)
    uniq, ui = D.unit_index(units)
    ds = [_dt.as_dtype(u[1]) for u in uniq]
    dk = D.per_unit(uniq, ui, lambda u: [d.name for d in ds].index(_dt.as_dtype(u[1]).name))
    L = D.per_unit(uniq, ui, lambda u: p.lanes(_dt.as_dtype(u[1])))
    B = D.per_unit(uniq, ui, lambda u: _dt.as_dtype(u[1]).bits)
    size = D.per_unit(uniq, ui, lambda u: _dt.as_dtype(u[1]).itemsize)
    signed = D.per_unit(uniq, ui, lambda u: _dt.as_dtype(u[1]).is_signed_int, bool)
    # the type's maximum as int64 bits (uint64's maximum wraps to -1: the same low 64 bits)
    top = D.per_unit(uniq, ui, lambda u: np.uint64(_max_of(_dt.as_dtype(u[1]))).view(np.int64))
    tensor = D.per_unit(uniq, ui, lambda u: u[0].endswith("Tensor"), bool)
    sat = D.per_unit(
        uniq, ui, lambda u: not u[0].endswith("Tensor") and p.api(u[0]).shift_range == "saturating", bool
    )
    right = D.per_unit(uniq, ui, lambda u: u[0] == "ShiftRight", bool)
    rnd_ok = D.per_unit(uniq, ui, lambda u: u[0] == "ShiftRight" and bool(p.api(u[0]).round_en), bool)
    form_names = ["count", "continuous", "bitwise", "register", "count_reg"]
    fk = D.per_unit(uniq, ui, lambda u: form_names.index(u[2]))
    big = D.per_unit(uniq, ui, lambda u: u[3], bool) & (slots.random() < 0.05)
    is_set_mask = fk != 4
    fk = np.where(fk == 4, 0, fk)
    count_form = fk == 0
    nblocks = ub_bytes // 32
    data = slots.below(3)

    # the shift amount: edges, random in range, and a few out of range (traced -> BAD_PARAM)
    u = slots.random()
    edge = D.choose(slots, [0, 1, B - 1, B])
    inr = D.ints(slots, 0, B + 1)
    out_sat = D.choose(slots, [B + 1, B + 7, top, -1])
    out_wrap = D.choose(slots, [-1, B + 1, top])
    amount = np.where(u < 0.3, edge, np.where(u < 0.9, inr, np.where(sat, out_sat, out_wrap)))
    amount = D.low_bits(amount.astype(np.uint64), B)  # _wrap: the low B bits, signed where T is
    sh = (64 - B).astype(np.uint64)
    amount_s = ((amount << sh).view(np.int64) >> sh.astype(np.int64)).tolist()
    amount = [a if sg else b for a, b, sg in zip(amount_s, amount.tolist(), signed.tolist(), strict=True)]
    u = slots.random()
    round_en = right & ~count_form & (u < np.where(rnd_ok, 0.5, 0.05))

    # registers (the engine's one register randomisation)
    regs = D.draw_many(slots, p, L, counter_ok=~count_form | ~is_set_mask)
    counter = regs.mask_mode == 1
    max_reps = np.where(big, BIG_R, SMALL_R)
    rep_big = D.choose(slots, [255, 200, 128, 64, 17])
    rep_edge = slots.random() < 0.9
    rep_pick = D.choose(slots, [0, 1, 1, 1, 2, 2, 3, 4, 8, 16])
    repeat = np.where(big, rep_big, np.where(rep_edge, rep_pick, D.ints(slots, 0, 17)))
    hi = np.minimum(max_reps * L, (ub_bytes // 3) // size)
    c_big = D.ints(slots, np.minimum(L * 8, hi), hi + 1)
    c_small = D.choose(slots, [0, 1, L - 1, L, L + 1, 2 * L, D.ints(slots, 0, 4 * L + 1)])
    count = np.where(count_form, np.minimum(np.where(big, c_big, c_small), hi), 0)
    hi_reg = np.where(big, hi, 4 * L)
    count_reg = D.choose(slots, [1, L - 1, L, L + 3, D.ints(slots, 1, hi_reg + 1)])
    if p.zero_mask != "error":
        count_reg = np.where(slots.random() < 0.03, 0, count_reg)
    count_reg = np.where(counter, count_reg, 0)
    vm = np.where(counter[:, None], D.u64_to_words(count_reg), regs.vmask)
    # strides
    default = count_form | (slots.random() < 0.5)
    pool = [0, 1, 1, 2, 3, 8, 8, 9, 16]
    picks = np.stack([D.choose(slots, pool) for _ in range(4)], 1)
    picks[:, 0] = np.where((picks[:, 0] == 0) & (slots.random() > fault_rate), 1, picks[:, 0])
    strides = np.where(default[:, None], np.asarray([1, 1, 8, 8]), picks)
    big_rs = np.stack([D.choose(slots, [0, 1]) for _ in range(2)], 1)
    strides[:, 2:] = np.where((big & ~count_form)[:, None], big_rs, strides[:, 2:])
    # the mask argument
    cont = D.choose(slots, [0, 1, L // 2, L - 1, L, L + 5, D.ints(slots, 0, L + 1)])
    cont = np.where(counter, count_reg, cont)
    bits = np.where(
        counter[:, None], D.u64_to_words(count_reg), D.lane_bits_many(slots, L, p.vector_mask_bits)
    )
    if p.zero_mask == "error":
        cont = np.maximum(cont, 1)
        bits[:, 0] = np.where(bits.any(axis=1), bits[:, 0], np.uint32(1))
    words = D.words_to_u64(bits, p.vector_mask_bits // 64)

    # addresses: room for the repeats run
    reps = np.maximum(1, np.where(count_form, -(-np.maximum(count, 1) // L), repeat))
    reps = np.where(counter & (count_reg > 0), np.maximum(reps, -(-count_reg // L)), reps)
    blocks = L // (32 // size) - 1

    def fp(blk, rep):
        return (reps - 1) * rep + blocks * blk + 1

    dst = D.addr_many(slots, nblocks, fp(strides[:, 0], strides[:, 2]), fault_rate)
    src = D.addr_many(slots, nblocks, fp(strides[:, 1], strides[:, 3]), fault_rate)
    src1 = D.addr_many(slots, nblocks, fp(1, 8), fault_rate)
    u = slots.random()
    near = dst + 32 * D.choose(slots, [1, 8])  # partial overlap / repeat dependency
    on_src1 = (u >= 0.1) & (u < 0.14) & tensor
    src1 = np.where(on_src1, dst, src1)
    src = np.where(u < 0.1, dst, np.where(~on_src1 & (u < 0.18), near, src))
    ub_seed = slots.below(2**31)
    neg = tensor & (slots.random() < 0.04)

    fl = fk.tolist()
    return D.build(
        ShiftCase,
        n,
        dict(
            api=[u[0] for u in units],
            dtype=[ds[j].name for j in dk.tolist()],
            form=[form_names[f] for f in fl],
            is_set_mask=is_set_mask.tolist(),
            dst=dst.tolist(),
            src=src.tolist(),
            src1=src1.tolist(),
            amount=amount,
            round_en=round_en.tolist(),
            count=count.tolist(),
            mask=[
                m_cont if f == 1 else (m_words if f == 2 else 0)
                for f, m_cont, m_words in zip(fl, cont.tolist(), D.tuples(words), strict=True)
            ],
            repeat=repeat.tolist(),
            strides=D.tuples(strides),
            **D.mask_fields(vm, regs.mask_mode, regs.ctrl),
            ub_seed=ub_seed.tolist(),
            ub_bytes=ub_bytes,
            data=[("raw", "specials", "small")[k] for k in data.tolist()],
            neg_amount=neg.tolist(),
            big=big.tolist(),
        ),
    )


def _max_of(d):
    return (1 << (d.bits - 1)) - 1 if d.is_signed_int else (1 << d.bits) - 1


def _wrap(v, d):
    v &= (1 << d.bits) - 1
    if d.is_signed_int and v >> (d.bits - 1):
        v -= 1 << d.bits
    return v


def shift_cases(profile, per_group, seed=0, all_forms=True, big_share=0.03, dtypes_per_api=None):
    """``per_group`` cases per (API, dtype) of the profile. ``all_forms``: every call form in every
    group; else one form per group, rotating over the groups (every form still appears on the
    profile when it has enough groups). A ``big_share`` of the first dtype of each scalar API use the
    large repeat bucket (repeatTime up to 255, long counts). ``dtypes_per_api``: that many of each
    API's dtypes, from the seed's offset (fewer compilations; None: all)."""
    p = as_profile(profile)
    rng = np.random.default_rng(seed)
    out = []
    first = {}
    groups = shift_groups(p)
    if dtypes_per_api is not None:
        keep = set()
        for api in dict.fromkeys(a for a, _ in groups):
            dts = [d for a, d in groups if a == api]
            k = seed % len(dts)
            keep |= {(api, d) for d in (dts[k:] + dts[:k])[:dtypes_per_api]}
        groups = [g for g in groups if (g[0], g[1]) in keep]
    for rot, (api, dt) in enumerate(groups):
        first.setdefault(api, dt)
        forms = shift_forms(p, api, dt)
        if not all_forms:
            forms = [forms[rot % len(forms)]]
        for i in range(per_group):
            form = forms[i % len(forms)]
            big = all_forms and dt == first[api] and form == forms[0] and rng.random() < big_share
            out.append(random_shift_case(rng, p, api, dt, form, big=big))
    return out


def shift_initial_ub(c, ub=None):
    """The case's UB: random / special / small values, and for tensor shifts the amount tensor
    (written into ``ub``, the case's ``make_ub`` bytes, when given)."""
    ub = make_ub(c) if ub is None else ub
    if c.api.endswith("Tensor") and 0 <= c.src1 and c.src1 % 32 == 0:
        d = _dt.as_dtype(c.dtype)
        rng = np.random.default_rng(c.ub_seed + 1)
        n = max(1, c.count)
        amt = rng.integers(0, d.bits + 5, n)
        edge = rng.random(n) < 0.3
        amt[edge] = rng.choice([0, d.bits - 1, d.bits, d.bits + 1], int(edge.sum()))
        if c.neg_amount:
            amt[int(rng.integers(n))] = -int(rng.integers(1, 4))
        raw = amt.astype(_dt.as_dtype(c.amount_dtype).np_dtype).view(np.uint8)
        end = min(c.ub_bytes, c.src1 + raw.size)
        if end > c.src1:
            ub[c.src1 : end] = raw[: end - c.src1]
    return ub


def call_shift(mod, c, st, p, dyn=None, R=None, static=False):
    """Call ``c.api`` of ``mod`` (the reference with NumPy-scalar "traced" amounts, or ascend_jax
    with the ``dyn`` traced values; ``static``: every argument a Python value)."""
    T = dyn or {}
    d = _dt.as_dtype(c.dtype)

    def g(name, default):
        return T[name] if name in T else default

    kw = {"profile": p}
    if R is not None:
        kw["max_repeats"] = R
    n = 4096
    dst = LocalTensor(d, g("dst", c.dst), n)
    src = LocalTensor(d, g("src", c.src), n)
    if c.api.endswith("Tensor"):
        src1 = LocalTensor(c.amount_dtype, g("src1", c.src1), n)
        return getattr(mod, c.api)(st, dst, src, src1, g("count", c.count), **kw)
    amount = int(c.amount) if static else g("amount", d.np_dtype.type(c.amount))
    if "form" in T:  # the fast path's traced call form
        f = AnyForm(
            T["form"], T["count"], T["mask"], T["words"], T["repeat"], UnaryRepeatParams(*T["strides"])
        )
        if c.api == "ShiftRight":
            kw["roundEn"] = T["round_en"]
        return getattr(mod, c.api)(
            st, dst, src, amount, f, isSetMask=c.is_set_mask or c.form != "count", **kw
        )
    if c.form == "count":
        return getattr(mod, c.api)(st, dst, src, amount, g("count", c.count), isSetMask=c.is_set_mask, **kw)
    if c.form == "continuous":
        m = g("mask", c.mask)
    elif c.form == "bitwise":
        m = g("mask", list(c.mask))
    else:
        m = MASK_PLACEHOLDER
    s = g("strides", c.strides)
    params = UnaryRepeatParams(*s)
    if c.api == "ShiftRight":
        kw["roundEn"] = bool(c.round_en) if static else g("round_en", np.bool_(c.round_en))
    return getattr(mod, c.api)(
        st, dst, src, amount, m, g("repeat", c.repeat), params, isSetMask=c.form != "register", **kw
    )


def shift_any_form(c, p):
    """Whether the fast path takes the case's call form traced (one ``AnyForm`` program for the count
    and high-dim forms): the scalar shifts, for the types their high-dim forms take."""
    return not c.api.endswith("Tensor") and c.dtype in p.api(c.api).dtypes


def _shift_dyn(cs, p):
    d = _dt.as_dtype(cs[0].dtype)
    nw32 = p.vector_mask_bits // 32
    dyn = int32_columns(cs, "dst", "src", "repeat", "count")
    dyn["strides"] = tuple(np.array([c.strides[i] for c in cs], np.int32) for i in range(4))
    if cs[0].api.endswith("Tensor"):
        dyn.update(int32_columns(cs, "src1"))
    else:
        m = (1 << d.bits) - 1
        amt = np.array([_wrap(c.amount, d) & m for c in cs], np.uint64).astype(d.bits_dtype).view(d.np_dtype)
        # 64-bit T: a traced amount is its (low, high) uint32 pair (no x64 in the fast path)
        dyn["amount"] = amt.view(np.uint32).reshape(-1, 2) if d.itemsize == 8 else amt
        if cs[0].api == "ShiftRight":
            dyn["round_en"] = np.array([c.round_en if c.form != "count" else False for c in cs], bool)
    if shift_any_form(cs[0], p):
        dyn["form"] = form_codes(cs)
        dyn.update(mask_columns(cs, nw32))
        return dyn
    if cs[0].form == "continuous":
        dyn["mask"] = np.array([c.mask for c in cs], np.uint32)
    elif cs[0].form == "bitwise":
        dyn["mask"] = np.stack([mask_words32(c.mask, nw32) for c in cs])
    return dyn


# =============================================================================================
# (the batched public-API call: Family.fast_fn over the adapters' ``call``)


# =============================================================================================
# GatherMask

PATTERN_STYLES = ("zero", "ones", "single", "random", "sparse", "dense")


@dataclasses.dataclass(frozen=True)
class GatherCase:
    dtype: str
    counter: bool  # reduceMode
    user: bool  # user pattern tensor (else a built-in pattern number)
    dst: int = 0
    src0: int = 0
    pat: int = 0  # user pattern address
    pattern: int = 1  # built-in pattern number (may be out of the list: traced BAD_PARAM)
    style: str = "random"  # user pattern bits: see PATTERN_STYLES
    mask: int = 0
    params: tuple = (1, 1, 8, 8)  # src0BlockStride, repeatTimes, src0RepeatStride, src1RepeatStride
    vmask: tuple = (0xFFFFFFFF,) * 4 + (0,) * 4
    mask_mode: int = 0
    rsvd_init: int = 0
    ctrl: tuple = (0, 0)
    ub_seed: int = 0
    ub_bytes: int = UB_BYTES
    data: str = "raw"
    big: bool = False

    def key(self):
        return ("gather", self.dtype, self.counter, self.user, self.big)

    @property
    def pattern_dtype(self):
        return f"uint{_dt.as_dtype(self.dtype).bits}"

    def call_repr(self):
        pat = f"{self.pattern_dtype}@{self.pat}[{self.style}]" if self.user else str(self.pattern)
        return (
            f"GatherMask<{self.dtype}>(dst@{self.dst}, src0@{self.src0}, {pat}, {self.counter}, "
            f"{self.mask}, GatherMaskParams{self.params}) [mode={self.mask_mode} rsvd={self.rsvd_init} "
            f"ub_seed={self.ub_seed} data={self.data}]"
        )


def gather_groups(profile):
    """[(dtype, reduceMode, user pattern)]: the unit the case counts are per."""
    p = as_profile(profile)
    a = p.api("GatherMask")
    if not a.supported:
        return []
    return [(dt, counter, user) for dt in a.dtypes for counter in (False, True) for user in (False, True)]


def _gather_R(c):
    return BIG_R if c.big else SMALL_R


def _max_mask(p, c):
    L = p.lanes(_dt.as_dtype(c.dtype))
    if int(p.api("GatherMask").counter_config) == 2:
        return _gather_R(c) * L
    return 3 * L


def random_gather_case(rng, p, dt, counter, user, big=False, ub_bytes=UB_BYTES, fault_rate=0.08):
    d = _dt.as_dtype(dt)
    a = p.api("GatherMask")
    L = p.lanes(d)
    E = 32 // d.itemsize
    nblocks = ub_bytes // 32
    config = int(a.counter_config)
    R = BIG_R if big else SMALL_R
    patterns = [int(x) for x in a.patterns]
    pattern = int(rng.choice(patterns))
    if not user and rng.random() < 0.03:
        pattern = int(rng.choice([0, 8, max(patterns) + 1]))  # traced, outside the list: BAD_PARAM
    if big:
        rep = int(rng.choice([255, 200, 64, 17]))
    else:
        rep = (
            int(rng.choice([0, 1, 1, 1, 2, 2, 3, 4, 8, 16]))
            if rng.random() < 0.9
            else int(rng.integers(0, 17))
        )
    if counter:
        mmax = R * L if config == 2 else 3 * L
        mask = int(rng.choice([1, L - 1, L, L + 6, 70, 2 * L, int(rng.integers(1, mmax + 1))]))
        mask = min(mask, mmax)
        if rng.random() < 0.02:
            mask = 0  # traced 0: BAD_MASK
    else:
        mask = int(rng.choice([0, 1, 70, L, int(rng.integers(0, 2**31))]))
    if rng.random() < 0.5:
        bs, rs0, rs1 = 1, 8, int(rng.choice([0, 1, 2, 8]))
    else:
        bs = int(rng.choice([0, 1, 1, 2, 3]))
        rs0 = int(rng.choice([0, 1, 2, 4, 8, 9, 16]))
        rs1 = int(rng.choice([0, 1, 2, 3, 8]))
    if big:
        rs0, rs1 = int(rng.choice([0, 1])), int(rng.choice([0, 1]))
        bs = int(rng.choice([0, 1]))
    if rng.random() < 0.02:
        rep = int(rng.choice([256, 1000]))  # traced out of [0, max_repeat_times]: BAD_PARAM
    # element counts / footprints
    if counter and config == 2:
        reps, n_e = math.ceil(mask / L) if mask else 0, L
        total = mask
    else:
        reps, n_e = rep, (mask if counter else L)
        total = rep * n_e
    reps_c = min(max(reps, 1), R)
    src_fp = (reps_c - 1) * rs0 + (math.ceil(max(n_e, 1) / E) - 1) * bs + 1
    pat_fp = (reps_c - 1) * rs1 + math.ceil(max(n_e, 1) / 256) + 1
    dst_fp = math.ceil(max(min(total, R * 3 * L), 1) / E)
    dst = _addr(rng, nblocks, dst_fp, fault_rate)
    src0 = _addr(rng, nblocks, src_fp, fault_rate)
    pat = _addr(rng, nblocks, pat_fp, fault_rate)
    u = rng.random()
    if u < 0.12:
        dst = src0  # in place (the page's built-in example)
    elif u < 0.16:
        dst = src0 + 32 * int(rng.choice([1, 2, 8]))
    elif u < 0.19 and user:
        pat = dst
    regs = draw_registers(rng, p, L)
    return GatherCase(
        dtype=d.name,
        counter=counter,
        user=user,
        dst=dst,
        src0=src0,
        pat=pat,
        pattern=pattern,
        style=str(rng.choice(PATTERN_STYLES)),
        mask=mask,
        params=(bs, rep, rs0, rs1),
        vmask=regs.vmask,
        mask_mode=regs.mask_mode,
        rsvd_init=regs.rsvd_cnt,
        ctrl=regs.ctrl,
        ub_seed=int(rng.integers(0, 2**31)),
        ub_bytes=ub_bytes,
        data=str(rng.choice(["raw", "specials", "small"])),
        big=big,
    )


def random_gather_cases_many(slots, p, units, ub_bytes=UB_BYTES, fault_rate=0.08):
    """``random_gather_case`` (with the adapter's large-repeat-bucket draw) for many cases at once,
    one a unit ``(dtype, counter, user, big_ok)`` of ``units``, drawn from ``slots`` in a fixed
    layout (``families.draw``): the same distribution of patterns, repeats, masks, strides,
    addresses, overlaps, registers, pattern styles and data styles."""
    n = len(units)
    uniq, ui = D.unit_index(units)
    a = p.api("GatherMask")
    config = int(a.counter_config)
    patterns = [int(x) for x in a.patterns]
    dts = [_dt.as_dtype(u[0]) for u in uniq]
    L = D.per_unit(uniq, ui, lambda u: p.lanes(_dt.as_dtype(u[0])))
    E = D.per_unit(uniq, ui, lambda u: 32 // _dt.as_dtype(u[0]).itemsize)
    counter = D.per_unit(uniq, ui, lambda u: u[1], bool)
    user = D.per_unit(uniq, ui, lambda u: u[2], bool)
    nblocks = ub_bytes // 32

    big = D.per_unit(uniq, ui, lambda u: u[3], bool) & (slots.random() < 0.04)
    R = np.where(big, BIG_R, SMALL_R)
    pattern = D.choose(slots, patterns)
    bad_pattern = ~user & (slots.random() < 0.03)  # traced, outside the list: BAD_PARAM
    pattern = np.where(bad_pattern, D.choose(slots, [0, 8, max(patterns) + 1]), pattern)
    rep_big = D.choose(slots, [255, 200, 64, 17])
    rep_edge = slots.random() < 0.9
    rep_pick = D.choose(slots, [0, 1, 1, 1, 2, 2, 3, 4, 8, 16])
    rep = np.where(big, rep_big, np.where(rep_edge, rep_pick, D.ints(slots, 0, 17)))
    # the mask: reduceMode's element count (Counter) or a Normal-mode value (ignored but traced)
    mmax = R * L if config == 2 else 3 * L
    m_counter = D.choose(slots, [1, L - 1, L, L + 6, 70, 2 * L, D.ints(slots, 1, mmax + 1)])
    m_counter = np.where(slots.random() < 0.02, 0, np.minimum(m_counter, mmax))  # traced 0: BAD_MASK
    m_normal = D.choose(slots, [0, 1, 70, L, D.ints(slots, 0, 2**31)])
    mask = np.where(counter, m_counter, m_normal)
    # strides
    default = slots.random() < 0.5
    rs1_default = D.choose(slots, [0, 1, 2, 8])
    bs = np.where(default, 1, D.choose(slots, [0, 1, 1, 2, 3]))
    rs0 = np.where(default, 8, D.choose(slots, [0, 1, 2, 4, 8, 9, 16]))
    rs1 = np.where(default, rs1_default, D.choose(slots, [0, 1, 2, 3, 8]))
    rs0 = np.where(big, D.choose(slots, [0, 1]), rs0)
    rs1 = np.where(big, D.choose(slots, [0, 1]), rs1)
    bs = np.where(big, D.choose(slots, [0, 1]), bs)
    bad_rep = slots.random() < 0.02  # traced out of [0, max_repeat_times]: BAD_PARAM
    rep = np.where(bad_rep, D.choose(slots, [256, 1000]), rep)
    # element counts / footprints
    whole = counter & (config == 2)
    reps = np.where(whole, -(-mask // L), rep)
    n_e = np.where(whole, L, np.where(counter, mask, L))
    total = np.where(whole, mask, rep * n_e)
    reps_c = np.minimum(np.maximum(reps, 1), R)
    src_fp = (reps_c - 1) * rs0 + (-(-np.maximum(n_e, 1) // E) - 1) * bs + 1
    pat_fp = (reps_c - 1) * rs1 + -(-np.maximum(n_e, 1) // 256) + 1
    dst_fp = -(-np.maximum(np.minimum(total, R * 3 * L), 1) // E)
    dst = D.addr_many(slots, nblocks, dst_fp, fault_rate)
    src0 = D.addr_many(slots, nblocks, src_fp, fault_rate)
    pat = D.addr_many(slots, nblocks, pat_fp, fault_rate)
    u = slots.random()
    near = src0 + 32 * D.choose(slots, [1, 2, 8])
    dst_old = dst
    dst = np.where(u < 0.12, src0, np.where(u < 0.16, near, dst))  # in place (the page's example)
    pat = np.where((u >= 0.16) & (u < 0.19) & user, dst_old, pat)
    regs = D.draw_many(slots, p, L)
    style = slots.below(len(PATTERN_STYLES))
    ub_seed = slots.below(2**31)
    data = slots.below(3)

    names = [d.name for d in dts]
    uil = ui.tolist()
    return D.build(
        GatherCase,
        n,
        dict(
            dtype=[names[j] for j in uil],
            counter=counter.tolist(),
            user=user.tolist(),
            dst=dst.tolist(),
            src0=src0.tolist(),
            pat=pat.tolist(),
            pattern=pattern.tolist(),
            style=[PATTERN_STYLES[k] for k in style.tolist()],
            mask=mask.tolist(),
            params=D.tuples(np.stack([bs, rep, rs0, rs1], 1)),
            vmask=D.tuples(regs.vmask),
            mask_mode=regs.mask_mode.tolist(),
            rsvd_init=regs.rsvd_cnt.tolist(),
            ctrl=D.tuples(regs.ctrl),
            ub_seed=ub_seed.tolist(),
            ub_bytes=ub_bytes,
            data=[("raw", "specials", "small")[k] for k in data.tolist()],
            big=big.tolist(),
        ),
    )


def gather_cases(profile, per_group, seed=0, all_groups=True, big_share=0.02, counter=None):
    """``per_group`` cases per (dtype, reduceMode, pattern kind). ``all_groups=False`` (other
    profiles): every dtype, with the (reduceMode, pattern kind) pair rotating over the dtypes.
    ``counter`` (True/False): the groups of that reduceMode only."""
    p = as_profile(profile)
    rng = np.random.default_rng(seed)
    out = []
    groups = [g for g in gather_groups(p) if counter is None or g[1] == counter]
    if not all_groups:
        dts = list(dict.fromkeys(g[0] for g in groups))
        groups = [(dt, bool(i % 2), bool((i // 2) % 2)) for i, dt in enumerate(dts)]
    first = groups[0] if groups else None
    for g in groups:
        dt, counter, user = g
        for _ in range(per_group):
            big = all_groups and g[0] == first[0] and rng.random() < big_share
            out.append(random_gather_case(rng, p, dt, counter, user, big=big))
    return out


def gather_initial_ub(c, ub=None):
    """Random / special / small data, and for a user pattern its bit stream in the chosen style
    (written into ``ub``, the case's ``make_ub`` bytes, when given)."""
    ub = make_ub(c) if ub is None else ub
    if not c.user or c.pat < 0:
        return ub
    rng = np.random.default_rng(c.ub_seed + 2)
    rep = max(1, min(c.params[1], _gather_R(c)))
    n = min(c.ub_bytes - c.pat, (rep - 1) * c.params[3] * 32 + 3 * 256 // 8 + 64)
    if n <= 0:
        return ub
    if c.style == "zero":
        bits = np.zeros(n, np.uint8)
    elif c.style == "ones":
        bits = np.full(n, 0xFF, np.uint8)
    elif c.style == "single":
        bits = np.zeros(n, np.uint8)
        for _ in range(max(1, rep)):
            k = int(rng.integers(0, n * 8))
            bits[k // 8] |= np.uint8(1 << (k % 8))
    elif c.style == "sparse":
        bits = np.packbits(rng.random(n * 8) < 0.1, bitorder="little")
    elif c.style == "dense":
        bits = np.packbits(rng.random(n * 8) < 0.9, bitorder="little")
    else:
        bits = rng.integers(0, 256, n, dtype=np.uint8)
    ub[c.pat : c.pat + n] = bits
    return ub


def call_gather(mod, c, st, p, dyn=None, R=None, static=False):
    """GatherMask of ``mod``: the reference (NumPy-scalar "traced" parameters) or ascend_jax (the
    ``dyn`` traced values, static buckets ``R`` / ``max_mask``; with ``dyn["counter"]`` and
    ``dyn["user"]`` reduceMode and the pattern source are traced too: one program for the four call
    forms, ``GatherFamily.signature``)."""
    T = dyn or {}
    d = _dt.as_dtype(c.dtype)

    def g(name, default):
        return T[name] if name in T else default

    n = 4096
    kw = {"profile": p}
    if R is not None:
        kw["max_repeats"] = R
        kw["max_mask"] = _max_mask(p, c)
    dst = LocalTensor(d, g("dst", c.dst), n)
    src0 = LocalTensor(d, g("src0", c.src0), n)
    if "user" in T:  # the fast path's traced call form
        tensor = LocalTensor(c.pattern_dtype, T["pat"], n)
        pattern = mod.AnyPattern(T["user"], T["pattern"], tensor)
        params = mod.GatherMaskParams(*T["strides"])
        counter = T["counter"] if "counter" in T else c.counter
        return mod.GatherMask(st, dst, src0, pattern, counter, T["mask"], params, **kw)
    if c.user:
        pattern = LocalTensor(c.pattern_dtype, g("pat", c.pat), n)
    else:
        pattern = int(c.pattern) if static else g("pattern", np.int32(c.pattern))
    s = tuple(int(x) for x in c.params) if static else g("strides", tuple(np.int32(x) for x in c.params))
    params = (s[0], s[1], s[2], s[3])
    if static:
        return mod.GatherMask(st, dst, src0, pattern, c.counter, int(c.mask), params, **kw)
    if _is_reference(mod):
        return mod.GatherMask(st, dst, src0, pattern, c.counter, np.int64(c.mask), params, **kw)
    return mod.GatherMask(
        st, dst, src0, pattern, c.counter, g("mask", c.mask), mod.GatherMaskParams(*params), **kw
    )


def _gather_dyn(cs, p):
    dyn = {
        "user": np.array([c.user for c in cs], bool),
        **int32_columns(cs, "dst", "src0", "pat", "pattern", "mask"),
    }
    dyn["strides"] = tuple(np.array([c.params[i] for c in cs], np.int32) for i in range(4))
    return dyn


# -- the engine's adapter ----------------------------------------------------------------------

_ALL_DTYPES = ("int8", "uint8", "int16", "uint16", "half", "int32", "uint32", "float32")


class _Common(TwoBucketFamily):
    run_workers = 1
    fill_ub = None  # (case, ub=None): the case's initial UB (written into ``ub`` if given)

    def initial_ub(self, case):
        return self.fill_ub(case)

    def initial_ubs(self, cases):
        ubs = make_ubs(cases)
        for r, c in enumerate(cases):
            self.fill_ub(c, ubs[r])
        return ubs

    def signature(self, case, p):
        return (self.name,) + case.key()

    def stack_dyn(self, cases, p):
        return _shift_dyn(cases, p) if self.name == "shift" else _gather_dyn(cases, p)


class ShiftFamily(_Common):
    name = "shift"
    apis = SHIFT_APIS
    case_type = ShiftCase
    fill_ub, call_case = staticmethod(shift_initial_ub), staticmethod(call_shift)
    default_strides = (1, 1, 8, 8)

    def signature(self, case, p):
        k = case.key()
        if shift_any_form(case, p):  # isSetMask is static for the count form only
            k = k[:3] + ("any", case.is_set_mask or case.form != "count") + k[5:]
        return (self.name,) + k

    def units(self, p, api):
        out = []
        first = None
        for a, dt in shift_groups(p):
            if a != api:
                continue
            first = first or dt
            forms = shift_forms(p, a, dt)
            out += [(a, dt, f, dt == first and f == forms[0]) for f in forms]
        return out

    def generate(self, rng, p, unit, fault_rate):
        api, dt, form, big_ok = unit
        big = bool(big_ok and rng.random() < 0.05)
        return random_shift_case(rng, p, api, dt, form, big=big, fault_rate=fault_rate)

    draw_many = staticmethod(random_shift_cases_many)

    @staticmethod
    def _reps(c, L):
        r = math.ceil(c.count / L) if c.form == "count" else c.repeat
        if c.mask_mode == 1 and (c.form != "count" or not c.is_set_mask):
            cnt = c.vmask[0] | (c.vmask[1] << 32)
            r = max(r, math.ceil(cnt / L))
        return r

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        opts = []
        if case.form == "count":
            opts.append((rep(case, count=p.ub_usable_bytes + 64), "count"))
        else:
            opts.append((rep(case, repeat=p.max_repeat_times + 1), "repeatTime"))
            opts.append((rep(case, strides=(1, 1, 256, 8)), "repeatParams.dstRepStride"))
        bad = None if case.api.endswith("Tensor") else unlisted_dtype(rng, p, case.api, _ALL_DTYPES)
        if bad:
            opts.append((rep(case, dtype=bad, form="count", count=16, is_set_mask=True), "T"))
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        return data_mutations(rng, p, case)

    def call_static(self, mod, case, state, p):
        return call_shift(mod, case, state, p, static=True), None

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        L = p.lanes(d)
        reps = self._reps(case, L)
        s = (1, 1, 8, 8) if case.form == "count" else case.strides
        nblk = L * d.itemsize // 32
        ops = layout_operands([("src0", case.src)], case.dst, s, reps, d.name, nblk)
        if case.api.endswith("Tensor"):  # the amount tensor, before dst
            ops.insert(-1, strided_operand("src1", case.src1, case.amount_dtype, 1, 8, nblk, reps, "in"))
        return ops


def _lane_dtype(p, dtype):
    """The first element type GatherMask takes on ``p`` with ``dtype``'s width."""
    size = _dt.as_dtype(dtype).itemsize
    return next(d for d in p.api("GatherMask").dtypes if _dt.as_dtype(d).itemsize == size)


class GatherFamily(_Common):
    name = "gather_mask"
    apis = ("GatherMask",)
    case_type = GatherCase
    fill_ub = staticmethod(gather_initial_ub)
    # never the quick build (ascend_jax._compile): measured on this campaign's GatherMask programs
    # (issue 36, benchmarks/README.md) it ran 15-20x slower a case (0.6 -> 11 ms at load 12) for
    # about the same compile time, so it loses from the first chunk on
    quick_max_cases = 0

    def api_of(self, case):
        return "GatherMask"

    def unit_dtype(self, unit):
        return unit[0]

    def units(self, p, api):
        groups = gather_groups(p)
        return [g + (g[0] == groups[0][0],) for g in groups]

    def generate(self, rng, p, unit, fault_rate):
        dt, counter, user, big_ok = unit
        big = bool(big_ok and rng.random() < 0.04)
        return random_gather_case(rng, p, dt, counter, user, big=big, fault_rate=fault_rate)

    draw_many = staticmethod(random_gather_cases_many)

    def normalize(self, case, p):
        return dataclasses.replace(case, big=case.params[1] > SMALL_R or case.big and case.counter)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        prm = list(case.params)
        prm[1] = p.max_repeat_times + 1
        opts = [(rep(case, params=tuple(prm)), "gatherMaskParams.repeatTimes")]
        if case.counter:
            opts.append((rep(case, mask=0), "mask"))
        if not case.user:
            opts.append((rep(case, pattern=0), "src1Pattern"))
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        c, k = data_mutations(rng, p, case, dst="dst", src="src0", dst_blk_stride=False)
        return c, k

    def signature(self, case, p):
        # one program per lane width (GatherMask moves bit patterns: the API itself compiles one
        # core per lane width), so every element type of a width shares the batch; the pattern
        # source is traced (``_gather_dyn``), so both pattern forms share it too. reduceMode stays
        # static: a program holding both modes runs every case at the larger mode's shape (Counter
        # mode's up to 32 blocks a repeat against Normal's 8), measured 2.5-3x slower for the Normal
        # cases; traced reduceMode stays available to callers (``GatherMask``'s reduceMode argument)
        return (self.name, "gather", _lane_dtype(p, case.dtype), case.counter, case.big)

    def call(self, mod, case, state, p, dyn=None):
        R = None if dyn is None else (BIG_R if case.big else SMALL_R)
        if dyn is not None:  # the batched fast path: the signature's element type (same bits)
            case = dataclasses.replace(case, dtype=_lane_dtype(p, case.dtype))
        return call_gather(mod, case, state, p, dyn=dyn, R=R)

    def call_static(self, mod, case, state, p):
        return call_gather(mod, case, state, p, static=True)

    def labels(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        bs, rep, rs0, rs1 = case.params
        kind = ("counter" if case.counter else "normal") + ("-user" if case.user else "-builtin")
        nblk = max(1, math.ceil((case.mask if case.counter else L) * _dt.as_dtype(case.dtype).itemsize / 32))
        return (kind, repeat_regime(rep, p), stride_regime((bs,), (rs0,), footprint_blocks=min(nblk, 8)))

    def shrink(self, case, p):
        rep = dataclasses.replace
        out = []
        bs, r, rs0, rs1 = case.params
        for v in (1, r // 2, r - 1):
            if 1 <= v < r:
                out.append(rep(case, params=(bs, v, rs0, rs1)))
        if case.counter:
            for v in (1, case.mask // 2, case.mask - 1):
                if 1 <= v < case.mask:
                    out.append(rep(case, mask=v))
        if (bs, rs0, rs1) != (1, 8, 8):
            out.append(rep(case, params=(1, r, 8, 8)))
        if case.user and case.style not in ("single", "zero"):
            out.append(rep(case, style="single"))
        if case.data != "small":
            out.append(rep(case, data="small"))
        return [self.normalize(c, p) for c in out]

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        L = p.lanes(d)
        bs, r, rs0, rs1 = case.params
        n_e = case.mask if case.counter else L
        nblk = max(1, math.ceil(n_e * d.itemsize / 32))
        ops = [strided_operand("src0", case.src0, d.name, bs, rs0, nblk, max(1, min(r, 255)), "in")]
        if case.user:
            ops.append(
                Operand("src1Pattern", case.pat, max(1, r) * max(32, rs1 * 32), case.pattern_dtype, "in")
            )
        total = max(1, r) * n_e
        ops.append(
            Operand(
                "dst",
                case.dst,
                math.ceil(total * d.itemsize / 32) * 32,
                d.name,
                "inout",
                ("packed", case.dst),
            )
        )
        return ops
