"""Fuzz adapter of Gather, Gatherb(ISASI) and Scatter(ISASI) (离散与聚合/; docs/MODEL.md "Gather,
Gatherb, Scatter").

A case is one call: the addresses of dst, src and the offset table, the offset words (written into
the case's UB before the call), the base address, the call form's arguments (count; or mask,
repeatTime and the repeat stride; Gatherb: repeatTime and GatherRepeatParams) and the registers on
entry. Offsets are data: an offset outside UB, misaligned, or beyond the product's offset range is a
per-case fault, never a clamp. Fast path: the public API vmapped over traced addresses, base,
offsets (UB data), and the call form as an ``AnyForm`` (form code, count, mask, mask words,
repeatTime, repeat stride), with the repeat bucket ``RB`` static: one program serves every case of an
(API, dtype) (a type with the count prototype only: the count form's own program). Reference: ``ascend_jax.reference`` with Python values.
"""

import dataclasses

import numpy as np

from ... import dtypes as _dt
from .. import regs as _regs
from ..rng import _GOLDEN, _mix_array
from . import draw as D
from .base import (
    MASK_FIELDS,
    Operand,
    call_values,
    case_dataclass,
    form_codes,
    int32_columns,
    mask_columns,
    mask_label,
    random_ub,
    repeat_count_shrinks,
    repeat_regime,
    strided_operand,
)
from .family import Family

APIS = ("Gather", "Gatherb", "Scatter")
FORMS = ("count", "continuous", "bitwise")
UB_BYTES = 8192
RB = 4  # the repeat bucket: counts and Counter-mode masks <= RB repeats, repeatTime <= RB
OFFSET_SPAN = 1024  # valid offsets address this many bytes above the base


@case_dataclass
class GatherScatterCase:
    api: str
    dtype: str
    form: str  # count | continuous | bitwise (Gatherb: "gatherb")
    dst: int
    src: int
    off: int  # the offset table's address
    offsets: tuple  # uint32 words written at ``off`` (byte offsets)
    base: int = 0  # srcBaseAddr / dstBaseAddr (Gatherb: unused)
    count: int = 0
    mask: object = 0  # int (continuous) or (word0, word1) uint64 words (bitwise)
    repeat: int = 1
    stride: int = 8  # dstRepStride (Gather, Gatherb) / srcRepStride (Scatter)
    blk: int = 1  # Gatherb dstBlkStride
    registers: MASK_FIELDS

    def call_repr(self):
        t = _dt.as_dtype(self.dtype).cpp
        o = f"offset@{self.off}[{len(self.offsets)}]"
        if self.api == "Gatherb":
            return (
                f"Gatherb<{t}>(dst@{self.dst}, src@{self.src}, {o}, repeatTime={self.repeat}, "
                f"{{dstBlkStride={self.blk}, dstRepStride={self.stride}}})"
            )
        head = f"{self.api}<{t}>(dst@{self.dst}, src@{self.src}, {o}, base={self.base}"
        if self.form == "count":
            return f"{head}, count={self.count})"
        m = self.mask if self.form == "continuous" else "{" + ", ".join(hex(w) for w in self.mask) + "}"
        sname = "srcRepStride" if self.api == "Scatter" else "dstRepStride"
        return f"{head}, mask={m}, repeatTime={self.repeat}, {sname}={self.stride})"


def lanes_of(p, dtype):
    """Lanes of a Gather/Scatter repeat: 128 for 8-bit types (one 16-bit lane slot each, as the
    page's offset table of 8-bit calls counts them), else the type's lanes."""
    d = _dt.as_dtype(dtype)
    return 128 if d.itemsize == 1 else p.lanes(d)


def n_offsets(api, p, dtype):
    return RB * 8 if api == "Gatherb" else RB * lanes_of(p, dtype)


def random_offsets(rng, n, size, scatter, fault_rate):
    """n byte offsets: valid element offsets into OFFSET_SPAN bytes (distinct for a Scatter unless a
    duplicate is planted), then with probability ``fault_rate`` one misaligned, beyond UB or huge."""
    slots = OFFSET_SPAN // size
    if scatter:
        o = rng.permutation(slots)[:n] if n <= slots else rng.integers(0, slots, n)
        if rng.random() < 0.15 and n > 1:
            o[rng.integers(0, n)] = o[rng.integers(0, n)]
    else:
        o = rng.integers(0, slots, n)
    o = o.astype(np.int64) * size
    r = rng.random()
    if r < 0.6 * fault_rate:
        o[rng.integers(0, n)] += int(rng.integers(1, size)) if size > 1 else UB_BYTES
    elif r < fault_rate:
        o[rng.integers(0, n)] = int(rng.choice([UB_BYTES, 2**17, 2**31 + 4, 2**32 - size]))
    return tuple(int(x) for x in o)


def _addresses(rng, fault_rate, near, far):
    """(table, near, far) addresses: DataBlock-aligned in disjoint regions, or (``fault_rate``)
    anywhere: overlapping, outside UB, some misaligned."""
    if rng.random() < fault_rate:
        off, a, b = (int(rng.integers(-2, 256)) * 32 for _ in range(3))
        if rng.random() < 0.3:
            b += int(rng.choice([2, 4]))
        return off, a, b
    return (
        int(rng.integers(0, 16)) * 32,
        near + int(rng.integers(0, 16)) * 32,
        far + int(rng.integers(0, 8)) * 32,
    )


def random_gatherb(rng, p, dtype, fault_rate):
    d = _dt.as_dtype(dtype)
    off, src, dst = _addresses(rng, fault_rate, 1024, 4096)
    o = rng.integers(0, 64, RB * 8).astype(np.int64) * 32
    r = rng.random()
    if r < 0.6 * fault_rate:
        o[rng.integers(0, o.size)] += int(rng.choice([d.itemsize, 16]))
    elif r < fault_rate:
        o[rng.integers(0, o.size)] = int(rng.choice([UB_BYTES, 2**31, 2**32 - 32]))
    regs = _regs.draw(rng, p, lanes_of(p, dtype))
    return GatherScatterCase(
        api="Gatherb",
        dtype=d.name,
        form="gatherb",
        dst=dst,
        src=src,
        off=off,
        offsets=tuple(int(x) for x in o),
        repeat=int(rng.integers(0, RB + 1)),
        stride=int(rng.integers(0, 17)),
        blk=int(rng.choice([0, 1, 1, 2, 3])),
        **regs.mask_fields(),
        ub_seed=int(rng.integers(0, 2**31)),
    )


def random_case(rng, p, api, dtype, form, fault_rate=0.1):
    if api == "Gatherb":
        return random_gatherb(rng, p, dtype, fault_rate)
    d = _dt.as_dtype(dtype)
    size = d.itemsize
    L = lanes_of(p, dtype)
    scatter = api == "Scatter"
    regs = _regs.draw(rng, p, L, counter_share=0.1)
    lo = 1 if p.zero_mask == "error" else 0  # a static zero mask is a usage error there
    kw = {}
    if form == "count":
        hi = RB * L if rng.random() < 0.3 else L  # most calls within one repeat: a fast oracle
        kw["count"] = int(rng.integers(0, hi + 1))
    else:
        if regs.mask_mode == 1:  # Counter mode: the mask is the element count
            n = int(rng.integers(lo, (RB * L if rng.random() < 0.3 else L) + 1))
            kw["mask"] = n if form == "continuous" else (n, 0)
        elif form == "continuous":
            kw["mask"] = int(rng.integers(lo, L + 1))
        else:
            words = [int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2)) for _ in range(2)]
            if L < 128:
                words = [words[0] & ((1 << L) - 1), 0]
            kw["mask"] = tuple(words) if any(words) or not lo else (1, 0)
        kw["repeat"] = int(rng.choice([0, 1, 1, 1, 2, RB]))
        kw["stride"] = int(rng.integers(0, 17))
    off, seq, far = _addresses(rng, fault_rate, 4608, 2560)
    r = rng.random()
    base = (
        0
        if r < 0.6
        else (int(rng.integers(0, 16)) * size if r < 0.9 else int(rng.choice([1, UB_BYTES, 2**32 - 64])))
    )
    dst, src = (far, seq) if scatter else (seq, far)
    return GatherScatterCase(
        api=api,
        dtype=d.name,
        form=form,
        dst=dst,
        src=src,
        off=off,
        offsets=random_offsets(rng, RB * L, size, scatter, fault_rate),
        base=base,
        **regs.mask_fields(),
        ub_seed=int(rng.integers(0, 2**31)),
        **kw,
    )


# -- generation, many cases at once (``Family.generate_many``) ----------------------------------------


def _block(seeds, width):
    """``width`` uint64 words a case from a stream seeded by ``seeds`` (one word of the case's own
    stream): word ``k`` of a case is the same whatever the width (the batch's longest table)."""
    k = np.arange(1, width + 1, dtype=np.uint64) * np.uint64(_GOLDEN)
    return _mix_array(seeds[:, None] + k[None, :])


def _below_small(w, n):
    """The multiply-shift draw of ``Slots.below`` (``(w * n) >> 64``) for ``n`` under 2**32, in
    two 32-bit halves (a quarter of the cost of the full 128-bit product)."""
    n = np.asarray(n, np.uint64)
    hi, lo = w >> np.uint64(32), w & np.uint64(0xFFFFFFFF)
    return ((hi * n + ((lo * n) >> np.uint64(32))) >> np.uint64(32)).astype(np.int64)


def _offsets_many(slots, api, n_off, size, fault_rate):
    """``random_offsets`` (Gather, Scatter) and Gatherb's table for every case: the tables as
    tuples. The table's words come from two streams seeded by a word of the case's stream each
    (a Scatter's distinct offsets: the first ``n`` of a random order of the slots)."""
    rows = len(slots)
    n_slots = np.where(api == 1, 64, OFFSET_SPAN // size)
    s_uni, s_perm = slots.word(), slots.word()
    width = int(n_off.max())
    distinct = (api == 2) & (n_off <= n_slots)
    o = np.zeros((rows, width), np.int64)
    # each row's words depend on its own seeds alone: computed only where kept
    sel = np.flatnonzero(~distinct)
    if len(sel):
        o[sel] = _below_small(_block(s_uni[sel], width), n_slots[sel, None])
    # Scatter (n <= slots): the first n of a random order of the slots (sorting uniform keys)
    sel = np.flatnonzero(distinct)
    if len(sel):
        pw = int(n_slots[sel].max())
        keys = _block(s_perm[sel], pw)
        keys = np.where(np.arange(pw)[None, :] < n_slots[sel, None], keys, np.uint64(2**64 - 1))
        perm = np.argsort(keys, axis=1, kind="stable")[:, :width]
        o[sel, : perm.shape[1]] = perm
    u, i, j = slots.random(), slots.below(n_off), slots.below(n_off)
    dup = (api == 2) & (u < 0.15) & (n_off > 1)
    rr = np.arange(rows)
    o[rr, i] = np.where(dup, o[rr, j], o[rr, i])
    o = o * np.where(api == 1, 32, size)[:, None]
    # one offset misaligned, beyond UB or huge (``fault_rate``)
    r, i = slots.random(), slots.below(n_off)
    mis = np.where(
        api == 1, D.choose(slots, [size, 16]), np.where(size > 1, D.ints(slots, 1, size), UB_BYTES)
    )
    huge = np.where(
        api == 1,
        D.choose(slots, [UB_BYTES, 2**31, 2**32 - 32]),
        D.choose(slots, [UB_BYTES, 2**17, 2**31 + 4, 2**32 - size]),
    )
    o[rr, i] = np.where(r < 0.6 * fault_rate, o[rr, i] + mis, np.where(r < fault_rate, huge, o[rr, i]))
    ol = o.tolist()
    return [tuple(ol[j][:m]) for j, m in enumerate(n_off.tolist())]


def _addresses_many(slots, fault_rate, near, far):
    """``_addresses`` for every case: (table, near, far)."""
    bad = slots.random() < fault_rate
    off, a, b = (slots.integers(-2, 256) * 32 for _ in range(3))
    b = np.where(slots.random() < 0.3, b + D.choose(slots, [2, 4]), b)
    g_off, g_a, g_b = slots.below(16) * 32, near + slots.below(16) * 32, far + slots.below(8) * 32
    return np.where(bad, off, g_off), np.where(bad, a, g_a), np.where(bad, b, g_b)


def random_cases_many(slots, p, units, fault_rate=0.1):
    """``random_case`` for many cases at once, one a unit ``(api, dtype, form)`` of ``units``,
    drawn from ``slots`` (``rng.Slots``) in a fixed layout (``families.draw``): every case makes
    the draws of Gatherb's and of Gather / Scatter's generator, keeping its own API's."""
    n = len(units)
    uniq, ui = D.unit_index(units)
    api = D.per_unit(uniq, ui, lambda u: APIS.index(u[0]))
    form = D.per_unit(uniq, ui, lambda u: FORMS.index(u[2]) if u[2] in FORMS else 0)
    size = D.per_unit(uniq, ui, lambda u: _dt.as_dtype(u[1]).itemsize)
    L = D.per_unit(uniq, ui, lambda u: lanes_of(p, u[1]))
    n_off = D.per_unit(uniq, ui, lambda u: n_offsets(u[0], p, u[1]))
    gb = api == 1
    regs = D.draw_many(slots, p, L, counter_share=np.where(gb, 0.2, 0.1))
    lo = 1 if p.zero_mask == "error" else 0
    counter = regs.mask_mode == 1
    # the count form
    u, big, small = slots.random(), slots.below(RB * L + 1), slots.below(L + 1)
    count = np.where(u < 0.3, big, small)  # most calls within one repeat: a fast oracle
    # the mask forms
    u, big, small = slots.random(), D.ints(slots, lo, RB * L + 1), D.ints(slots, lo, L + 1)
    n_ctr = np.where(u < 0.3, big, small)
    cont = D.ints(slots, lo, L + 1)
    w = np.stack([slots.word(), slots.word()], 1)
    part = L < 128
    low = np.where(
        L >= 64, np.uint64(2**64 - 1), (np.uint64(1) << np.minimum(L, 63).astype(np.uint64)) - np.uint64(1)
    )
    w[:, 0] = np.where(part, w[:, 0] & low, w[:, 0])
    w[:, 1] = np.where(part, np.uint64(0), w[:, 1])
    if lo:
        none = (w[:, 0] == 0) & (w[:, 1] == 0)
        w[:, 0] = np.where(none, np.uint64(1), w[:, 0])
    w = np.where(counter[:, None], np.stack([n_ctr.astype(np.uint64), np.zeros(n, np.uint64)], 1), w)
    cont = np.where(counter, n_ctr, cont)
    repeat = D.choose(slots, [0, 1, 1, 1, 2, RB])
    stride = slots.below(17)
    # Gatherb's
    gb_repeat, gb_stride, gb_blk = slots.below(RB + 1), slots.below(17), D.choose(slots, [0, 1, 1, 2, 3])
    # addresses, base, offsets, seed
    g_off, g_src, g_dst = _addresses_many(slots, fault_rate, 1024, 4096)
    a_off, a_seq, a_far = _addresses_many(slots, fault_rate, 4608, 2560)
    r, b_small, b_far = slots.random(), slots.below(16) * size, D.choose(slots, [1, UB_BYTES, 2**32 - 64])
    base = np.where(r < 0.6, 0, np.where(r < 0.9, b_small, b_far))
    offsets = _offsets_many(slots, api, n_off, size, fault_rate)
    ub_seed = slots.below(2**31)
    scatter = api == 2
    dst = np.where(gb, g_dst, np.where(scatter, a_far, a_seq))
    src = np.where(gb, g_src, np.where(scatter, a_seq, a_far))
    off = np.where(gb, g_off, a_off)
    fl, al = form.tolist(), api.tolist()
    wl, cl = D.tuples(w), cont.tolist()
    is_count = gb | (form == 0)
    return D.build(
        GatherScatterCase,
        n,
        dict(
            api=[u[0] for u in units],
            dtype=[_dt.as_dtype(u[1]).name for u in units],
            form=[u[2] for u in units],
            dst=dst.tolist(),
            src=src.tolist(),
            off=off.tolist(),
            offsets=offsets,
            base=np.where(gb, 0, base).tolist(),
            count=np.where(~gb & (form == 0), count, 0).tolist(),
            mask=[
                0 if a == 1 or f == 0 else (cl[j] if f == 1 else wl[j])
                for j, (a, f) in enumerate(zip(al, fl, strict=True))
            ],
            repeat=np.where(gb, gb_repeat, np.where(is_count, 1, repeat)).tolist(),
            stride=np.where(gb, gb_stride, np.where(is_count, 8, stride)).tolist(),
            blk=np.where(gb, gb_blk, 1).tolist(),
            **D.mask_fields(regs.vmask, regs.mask_mode, regs.ctrl),
            ub_seed=ub_seed.tolist(),
        ),
    )


def make_ub(c):
    """Random bytes, with the offset words at the table's address (where the table fits in UB)."""
    ub = random_ub(c.ub_seed, UB_BYTES)
    raw = np.asarray(c.offsets, np.uint32).view(np.uint8)
    if 0 <= c.off and c.off + raw.size <= UB_BYTES:
        ub[c.off : c.off + raw.size] = raw
    return ub


def call(mod, c, state, p, dyn=None):
    """The public API (``mod``: ascend_jax or the oracle) on case ``c``; ``dyn``: the case's traced
    values (a row of ``stack_dyn``) in place of its Python ones."""
    import ascend_jax as aj

    d = _dt.as_dtype(c.dtype)
    n = len(c.offsets)
    fn, a, extra = call_values(mod, c.api, c, dyn, RB)
    if c.api == "Gatherb":
        dst, src = aj.LocalTensor(d, a["dst"], 128), aj.LocalTensor(d, a["src"], 128)
        table = aj.LocalTensor(aj.uint32, a["off"], n)
        return fn(state, dst, src, table, a["repeat"], (a["blk"], a["stride"]), profile=p, **extra)
    L = lanes_of(p, c.dtype)
    dst, src = aj.LocalTensor(d, a["dst"], L), aj.LocalTensor(d, a["src"], L)
    table = aj.LocalTensor(aj.uint32, a["off"], n)
    if dyn is not None and "form" in dyn:  # every call form in one program
        f = aj.AnyForm(dyn["form"], dyn["count"], dyn["mask"], dyn["words"], dyn["repeat"], dyn["stride"])
        args = (f,)
    elif c.form == "count":
        args = (a["count"],)
    else:
        mask = a["mask"]
        if dyn is None and c.form == "bitwise":
            mask = list(mask)
        args = (mask, a["repeat"], a["stride"])
    return fn(state, dst, src, table, a["base"], *args, profile=p, **extra)


class GatherScatterFamily(Family):
    name = "gather_scatter"
    apis = APIS
    case_type = GatherScatterCase

    def api_units(self, p, api):
        a = p.api(api)
        if api == "Gatherb":
            return [(api, dt, "gatherb") for dt in a.dtypes]
        out = []
        for dt in a.all_dtypes():
            forms = FORMS if dt in a.dtypes else ("count",)  # count_only_dtypes
            out += [(api, dt, f) for f in forms]
        return out

    def generate(self, rng, p, unit, fault_rate):
        return random_case(rng, p, unit[0], unit[1], unit[2], fault_rate)

    draw_many = staticmethod(random_cases_many)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        if case.api == "Gatherb":
            opts = [
                (rep(case, repeat=256), "repeatTime"),
                (rep(case, blk=256), "repeatParams.dstBlkStride"),
                (rep(case, stride=65536), "repeatParams.dstRepStride"),
            ]
        else:
            scatter = case.api == "Scatter"
            opts = [(rep(case, base=-1), "dstBaseAddr" if scatter else "srcBaseAddr")]
            if case.form == "count":
                opts.append((rep(case, count=-1), "count"))
            else:
                opts.append((rep(case, repeat=256), "repeatTime"))
                opts.append(
                    (rep(case, stride=256), "srcRepStride")
                    if scatter
                    else (rep(case, stride=65536), "dstRepStride")
                )
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        rep = dataclasses.replace
        o = list(case.offsets)
        i = int(rng.integers(0, len(o)))
        size = _dt.as_dtype(case.dtype).itemsize
        mis = 16 if case.api == "Gatherb" else max(1, size // 2)
        opts = [
            (rep(case, offsets=tuple(o[:i] + [UB_BYTES] + o[i + 1 :])), "offset outside UB"),
            (rep(case, offsets=tuple(o[:i] + [2**32 - 32] + o[i + 1 :])), "offset near 2**32"),
            (rep(case, dst=case.dst + 2), "misaligned dst"),
            (rep(case, off=UB_BYTES - 64), "offset table outside UB"),
        ]
        if size > 1 or case.api == "Gatherb":
            opts.append((rep(case, offsets=tuple(o[:i] + [o[i] + mis] + o[i + 1 :])), "misaligned offset"))
        if case.api != "Gatherb" and size > 1:
            opts.append((rep(case, base=case.base + 1), "misaligned base"))
        return opts[int(rng.integers(len(opts)))]

    def signature(self, case, p):
        # the call forms share one program (an AnyForm with the form traced), except where a type
        # has the count prototype only
        any_form = case.api != "Gatherb" and case.dtype in p.api(case.api).dtypes
        return ("gather_scatter", case.api, case.dtype, "any" if any_form else case.form, RB)

    def initial_ub(self, case):
        return make_ub(case)

    def stack_dyn(self, cases, p):
        c0 = cases[0]
        out = int32_columns(cases, "dst", "src", "off")
        if c0.api == "Gatherb":
            out.update(int32_columns(cases, "repeat", "blk", "stride"))
            return out
        out["base"] = np.asarray([c.base for c in cases], np.uint32)
        if self.signature(c0, p)[3] == "count":
            out.update(int32_columns(cases, "count"))
            return out
        out["form"] = form_codes(cases)
        out.update(int32_columns(cases, "count", "repeat", "stride"))
        out.update(mask_columns(cases))
        return out

    def call(self, mod, case, state, p, dyn=None):
        return call(mod, case, state, p, dyn), None

    def labels(self, case, p):
        if case.api == "Gatherb":
            return ("none", repeat_regime(case.repeat, p), "zero" if case.blk == 0 else "default")
        L = lanes_of(p, case.dtype)
        if case.form == "count":
            reps = -(-case.count // L)
        elif case.mask_mode == 1:
            m = case.mask if case.form == "continuous" else case.mask[0]
            reps = -(-m // L)
        else:
            reps = case.repeat
        return (
            mask_label(case.form, case.mask_mode, case.mask, L),
            repeat_regime(reps, p),
            "base0" if case.base == 0 else "base",
        )

    def shrink(self, case, p):
        out = repeat_count_shrinks(case)
        if case.base:
            out.append(dataclasses.replace(case, base=0))
        return out

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        table = Operand("offset", case.off, 4 * len(case.offsets), "uint32", "in")
        if case.api == "Gatherb":
            reps = max(1, case.repeat)
            return [
                table,
                Operand("src", case.src, 64 * 32, d.name, "in"),
                strided_operand("dst", case.dst, d.name, case.blk, case.stride, 8, reps, "inout"),
            ]
        L = lanes_of(p, case.dtype)
        n = case.count if case.form == "count" else L * max(1, case.repeat)
        near = Operand("src" if case.api == "Gather" else "dst", 0, 0, d.name, "in")
        seq_name = "dst" if case.api == "Gather" else "src"
        seq_addr = case.dst if case.api == "Gather" else case.src
        seq = Operand(
            seq_name, seq_addr, -(-n * d.itemsize // 32) * 32, d.name, "inout" if seq_name == "dst" else "in"
        )
        far_addr = (case.src if case.api == "Gather" else case.dst) + case.base
        far = dataclasses.replace(
            near, addr=far_addr, nbytes=OFFSET_SPAN, role="in" if case.api == "Gather" else "inout"
        )
        return [table, far, seq]
