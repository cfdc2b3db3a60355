"""Fuzz adapter of CastDequant (复合计算/CastDequant.md; docs/MODEL.md "CastDequant").

A case is one call of a product's (src, dst) pair in one call form (count, continuous, bitwise,
MASK_PLACEHOLDER), with isVecDeq and halfBlock, on random registers: DEQSCALE on entry is drawn
(int32 -> half: a half scale; int16 -> int8 / uint8: a 64-bit configuration -- scale bits, 9-bit
offset, signMode, junk in the unused bits -- or, with isVecDeq, the address of a 16-group vdeq
table written into UB). Fast path: the public ``ascend_jax.CastDequant`` vmapped over traced
addresses, count / mask / repeatTime / strides, with the repeat bucket ``RB`` static; isVecDeq and
halfBlock are Python bools (C++ template arguments), so they split the chunks, not the programs.
Reference: ``ascend_jax.reference.CastDequant`` with Python values.
"""

import dataclasses

import numpy as np

from ... import dtypes as _dt
from .. import regs as _regs
from . import draw as D
from .base import (
    MASK_FIELDS,
    bucket_kw,
    case_dataclass,
    form_codes,
    int32_columns,
    mask_columns,
    mask_label,
    mask_text,
    repeat_count_shrinks,
    repeat_regime,
    specials,
)
from .family import Family

API = "CastDequant"
FORMS = ("count", "continuous", "bitwise", "register")
UB_BYTES = 8192
RB = 4
HALF_SCALES = (0x3C00, 0x2E66, 0xBC00, 0x0001, 0x8000, 0x0000, 0x7C00, 0xFC00, 0x7E00, 0x7BFF, 0x4000, 0x1400)
F32_SCALES = (1.0, -1.0, 0.5, 0.1, 3.0, 0.0078125, 1e-30, 1e30, 0.0, -0.0, np.inf, -np.inf, np.nan, 2.0**-149)


def pairs(p):
    """The product's (src, dst) pairs (``apis.CastDequant.pairs``: "int32->half ..." entries)."""
    if not p.api(API).supported:
        return []
    return [tuple(x.strip() for x in e.split()[0].split("->")) for e in p.api(API).pairs]


@case_dataclass
class DequantCase:
    src_dtype: str
    dtype: str  # dst
    form: str
    dst: int
    src: int
    count: int = 0
    mask: object = 0  # int (continuous) or tuple of uint64 words (bitwise)
    repeat: int = 1
    params: tuple = (1, 1, 8, 8)  # UnaryRepeatParams
    vec: bool = False
    half: bool = False
    deq: int = 0  # DEQSCALE on entry (64 bits)
    table: tuple = ()  # (byte address, 16 configurations) written into UB, or ()
    registers: MASK_FIELDS
    api: str = API

    @property
    def deqscale_init(self):
        return (self.deq & 0xFFFFFFFF, (self.deq >> 32) & 0xFFFFFFFF)

    def call_repr(self):
        s, t = (_dt.as_dtype(x).cpp for x in (self.src_dtype, self.dtype))
        head = f"CastDequant<{t}, {s}, isVecDeq={self.vec}, halfBlock={self.half}>(dst@{self.dst}, src@{self.src}"
        if self.form == "count":
            tail = f", {self.count})"
        else:
            # (a dict of the three texts built the bitwise one for a continuous int mask: TypeError)
            tail = f", {mask_text(self)}, {self.repeat}, {self.params})"
        return f"{head}{tail} [DEQSCALE={self.deq:#x}, mode={self.mask_mode}]"


def f32_bits(x):
    return int(np.array([x], np.float32).view(np.uint32)[0])


def config(scale_bits, offset, sign, junk=0):
    """The 64-bit s162b8 configuration (SetDeqScale.md 表1: scale bits 0-31, offset 37-45, signMode
    46), ``junk`` in the unused bits."""
    return scale_bits | ((offset & 0x1FF) << 37) | (int(sign) << 46) | junk


def random_config(rng, want_sign):
    """A random s162b8 configuration (mostly with the signMode T wants)."""
    r = rng.random()
    if r < 0.4:
        bits = f32_bits(rng.integers(-64, 65) / 16)
    elif r < 0.7:
        bits = f32_bits(F32_SCALES[int(rng.integers(0, len(F32_SCALES)))])
    else:
        bits = int(rng.integers(0, 2**32))
    off = int(rng.integers(-256, 256)) if rng.random() < 0.8 else int(rng.integers(-(2**15), 2**15))
    sign = want_sign if rng.random() < 0.92 else not want_sign
    junk = 0
    if rng.random() < 0.2:
        junk = (int(rng.integers(0, 32)) << 32) | (int(rng.integers(0, 2**17)) << 47)
    return config(bits, off, sign, junk)


def _wide(p, s, t):
    S, T = _dt.as_dtype(s), _dt.as_dtype(t)
    return S if (S.name == "int16" or S.itemsize > T.itemsize) else T


def random_case(rng, p, s, t, form, fault_rate=0.1):
    # its twin for many cases: ``random_cases_many`` (a rule changed here is changed there;
    # tests/test_fuzz_vectorised_draw.py compares their distributions)
    S, T = _dt.as_dtype(s), _dt.as_dtype(t)
    b8 = S.name == "int16"
    L = p.lanes(_wide(p, s, t))
    regs = _regs.draw(rng, p, L, counter_share=0.25)
    vm = list(regs.vmask)
    if regs.mask_mode == 1:
        vm = [int(rng.integers(0, RB * L + 1))] + [0] * 7

    def addr(d):
        a = int(rng.integers(0, UB_BYTES // 32)) * 32
        if rng.random() < 0.4 * fault_rate:
            a += d.itemsize * int(rng.integers(1, 32 // d.itemsize))
        if rng.random() < 0.3 * fault_rate:
            a = UB_BYTES + 32 * int(rng.integers(0, 8))
        return a

    blk = [int(rng.choice([0, 1, 1, 2, 3])) if rng.random() < 0.3 else 1 for _ in range(2)]
    if blk[0] == 0 and rng.random() < 0.7:
        blk[0] = 1
    dsize = 2 if b8 else T.itemsize
    wide = _wide(p, s, t)
    rep = [
        int(rng.integers(0, 17)) if rng.random() < 0.5 else 8 * d // wide.itemsize
        for d in (dsize, S.itemsize)
    ]
    d_addr = addr(T)
    s_addr = addr(S) if rng.random() < 1 - 0.8 * fault_rate else d_addr
    low = 1 if p.zero_mask == "error" else 0
    mask = 0
    if form == "continuous":
        mask = int(rng.integers(low, (RB * L if regs.mask_mode else L) + 1))
    elif form == "bitwise":
        n64 = max(1, min(L, p.vector_mask_bits) // 64)
        if regs.mask_mode:
            mask = (int(rng.integers(low, RB * L + 1)),) + (0,) * (n64 - 1)
        else:
            w = [int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2)) for _ in range(n64)]
            w[0] |= low
            mask = tuple(w)
    vec, half = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
    table = ()
    want = T.name == "int8"
    if not b8:
        deq = int(rng.choice(HALF_SCALES)) if rng.random() < 0.5 else int(rng.integers(0, 1 << 16))
    elif vec:
        ta = int(rng.integers(0, UB_BYTES // 32 - 4)) * 32
        if rng.random() < 0.3 * fault_rate:
            ta = UB_BYTES - 64  # the table crosses the end of UB
        table = (ta, tuple(random_config(rng, want) for _ in range(16)))
        deq = ta >> 5
    else:
        deq = random_config(rng, want)
    return DequantCase(
        src_dtype=S.name,
        dtype=T.name,
        form=form,
        dst=d_addr,
        src=s_addr,
        count=int(rng.integers(0, RB * L + 1)),
        mask=mask,
        repeat=int(rng.integers(0, RB + 1)),
        params=(*blk, *rep),
        vec=vec,
        half=half,
        deq=deq,
        table=table,
        **regs.mask_fields(vm),
        ub_seed=int(rng.integers(0, 2**31)),
    )


_F32_SCALE_BITS = np.asarray(F32_SCALES, np.float32).view(np.uint32).astype(np.uint64)


def _random_configs_many(slots, want_sign):
    """``random_config`` for every case (nine draws; uint64)."""
    r = slots.random()
    small = (D.ints(slots, -64, 65) / 16).astype(np.float32).view(np.uint32).astype(np.uint64)
    listed = _F32_SCALE_BITS[slots.below(len(F32_SCALES))]
    raw = slots.below(2**32).astype(np.uint64)
    bits = np.where(r < 0.4, small, np.where(r < 0.7, listed, raw))
    near = slots.random() < 0.8
    off = np.where(near, D.ints(slots, -256, 256), D.ints(slots, -(2**15), 2**15))
    sign = np.where(slots.random() < 0.92, want_sign, ~want_sign)
    has_junk = slots.random() < 0.2
    junk = (slots.below(32).astype(np.uint64) << np.uint64(32)) | (
        slots.below(2**17).astype(np.uint64) << np.uint64(47)
    )
    junk = np.where(has_junk, junk, np.uint64(0))
    return (
        bits
        | ((off & 0x1FF).astype(np.uint64) << np.uint64(37))
        | (sign.astype(np.uint64) << np.uint64(46))
        | junk
    )


def random_cases_many(slots, p, units, fault_rate=0.1):
    """``random_case`` for many cases at once, one a unit ``(api, dst, src, form)`` of ``units``,
    drawn from ``slots`` (``rng.Slots``) in a fixed layout (every draw of every branch made for every
    case: the registers, addresses, strides, both mask kinds, the DEQSCALE value of each kind and a
    table of 16 configurations): the same distribution as ``random_case``."""
    n = len(units)
    uniq, ui = D.unit_index(units)
    S_ = lambda u: _dt.as_dtype(u[2])  # noqa: E731
    T_ = lambda u: _dt.as_dtype(u[1])  # noqa: E731
    L = D.per_unit(uniq, ui, lambda u: p.lanes(_wide(p, u[2], u[1])))
    b8 = D.per_unit(uniq, ui, lambda u: S_(u).name == "int16", bool)
    want = D.per_unit(uniq, ui, lambda u: T_(u).name == "int8", bool)
    t_isz = D.per_unit(uniq, ui, lambda u: T_(u).itemsize)
    s_isz = D.per_unit(uniq, ui, lambda u: S_(u).itemsize)
    w_isz = D.per_unit(uniq, ui, lambda u: _wide(p, u[2], u[1]).itemsize)
    form = D.per_unit(uniq, ui, lambda u: FORMS.index(u[3]))
    regs = D.draw_many(slots, p, L, counter_share=0.25)
    counter = regs.mask_mode == 1
    vmask = np.where(counter[:, None], D.u64_to_words(D.ints(slots, 0, RB * L + 1)), regs.vmask)

    def addr(isz):
        a = slots.below(UB_BYTES // 32) * 32
        a = np.where(slots.random() < 0.4 * fault_rate, a + isz * D.ints(slots, 1, 32 // isz), a)
        return np.where(slots.random() < 0.3 * fault_rate, UB_BYTES + 32 * slots.below(8), a)

    blk = [np.where(slots.random() < 0.3, D.choose(slots, [0, 1, 1, 2, 3]), 1) for _ in range(2)]
    blk[0] = np.where((blk[0] == 0) & (slots.random() < 0.7), 1, blk[0])
    dsize = np.where(b8, 2, t_isz)
    rep = [np.where(slots.random() < 0.5, D.ints(slots, 0, 17), 8 * d // w_isz) for d in (dsize, s_isz)]
    d_addr = addr(t_isz)
    keep = slots.random() < 1 - 0.8 * fault_rate
    s_addr = np.where(keep, addr(s_isz), d_addr)
    low = 1 if p.zero_mask == "error" else 0
    cont = D.ints(slots, low, np.where(counter, RB * L, L) + 1)
    n64 = np.maximum(1, np.minimum(L, p.vector_mask_bits) // 64)
    nw = max(1, p.vector_mask_bits // 64)
    words = np.stack([slots.word() for _ in range(nw)], 1)
    words[:, 0] |= np.uint64(low)
    cnt_word = D.ints(slots, low, RB * L + 1).astype(np.uint64)
    words[:, 0] = np.where(counter, cnt_word, words[:, 0])
    words[:, 1:] = np.where(counter[:, None], np.uint64(0), words[:, 1:])
    vec, half = slots.below(2).astype(bool), slots.below(2).astype(bool)
    half_deq = np.where(
        slots.random() < 0.5,
        np.asarray(HALF_SCALES, np.int64)[slots.below(len(HALF_SCALES))],
        slots.below(1 << 16),
    )
    ta = slots.below(UB_BYTES // 32 - 4) * 32
    ta = np.where(slots.random() < 0.3 * fault_rate, UB_BYTES - 64, ta)
    # the 17 configurations a case (the scalar one, the 16 of a table) from 17 streams of its own
    confs = _random_configs_many(D.split(slots, 17), np.repeat(want, 17)).reshape(n, 17)
    use_table = b8 & vec
    deq = np.where(b8, np.where(vec, (ta >> 5).astype(np.uint64), confs[:, 16]), half_deq.astype(np.uint64))
    count = D.ints(slots, 0, RB * L + 1)
    repeat = D.ints(slots, 0, RB + 1)
    ub_seed = slots.below(2**31)
    fl, tl = form.tolist(), ta.tolist()
    word_rows = D.tuples(words)
    n64l = n64.tolist()
    masks = [
        c if f == 1 else (w[:k] if f == 2 else 0)
        for f, c, w, k in zip(fl, cont.tolist(), word_rows, n64l, strict=True)
    ]
    tables = [
        (a, t) if u else () for a, t, u in zip(tl, D.tuples(confs[:, :16]), use_table.tolist(), strict=True)
    ]
    return D.build(
        DequantCase,
        n,
        dict(
            src_dtype=[S_(u).name for u in units],
            dtype=[T_(u).name for u in units],
            form=[u[3] for u in units],
            dst=d_addr.tolist(),
            src=s_addr.tolist(),
            count=count.tolist(),
            mask=masks,
            repeat=repeat.tolist(),
            params=D.tuples(np.stack([blk[0], blk[1], rep[0], rep[1]], 1)),
            vec=vec.tolist(),
            half=half.tolist(),
            deq=deq.tolist(),
            table=tables,
            **D.mask_fields(vmask, regs.mask_mode, regs.ctrl),
            ub_seed=ub_seed.tolist(),
            api=API,
        ),
    )


def make_ub(c):
    """src-typed bit patterns (random, the type's specials, small values) and the vdeq table."""
    S = _dt.as_dtype(c.src_dtype)
    rng = np.random.default_rng(c.ub_seed)
    n = UB_BYTES // S.itemsize
    raw = rng.integers(0, 1 << S.bits, n, dtype=np.uint64)
    pool = np.array(specials(S), np.uint64)
    pick = rng.random(n)
    raw = np.where(pick < 0.25, pool[rng.integers(0, pool.size, n)], raw)
    small = rng.integers(-300, 300, n).astype(np.int64).view(np.uint64) & np.uint64((1 << S.bits) - 1)
    raw = np.where(pick > 0.7, small, raw)
    ub = raw.astype(S.bits_dtype).view(np.uint8).copy()
    if c.table:
        ta, entries = c.table
        data = np.array(entries, np.uint64).view(np.uint8)
        k = min(data.size, UB_BYTES - ta)
        ub[ta : ta + k] = data[:k]
    return ub


def call(mod, c, state, p, dyn=None):
    import ascend_jax as aj

    S, T = _dt.as_dtype(c.src_dtype), _dt.as_dtype(c.dtype)
    a = dyn if dyn is not None else dataclasses.asdict(c)
    fn = mod.CastDequant
    extra = bucket_kw(fn, RB)
    dst, src = aj.LocalTensor(T, a["dst"], 256), aj.LocalTensor(S, a["src"], 256)
    if dyn is not None and "form" in dyn:  # every call form in one program
        prm = aj.UnaryRepeatParams(*(a["params"][i] for i in range(4)))
        f = aj.AnyForm(a["form"], a["count"], a["mask"], a["words"], a["repeat"], prm)
        kw = dict(isSetMask=True, isVecDeq=c.vec, halfBlock=c.half)
        return fn(state, dst, src, f, profile=p, **kw, **extra)
    if c.form == "count":
        args = (a["count"],)
    else:
        if c.form == "register":
            mask = aj.MASK_PLACEHOLDER
        elif dyn is None and c.form == "bitwise":
            mask = list(c.mask)
        else:
            mask = a["mask"]
        prm = a["params"]
        args = (mask, a["repeat"], aj.UnaryRepeatParams(*(prm[i] for i in range(4))))
    kw = dict(isSetMask=c.form != "register", isVecDeq=c.vec, halfBlock=c.half)
    return fn(state, dst, src, *args, profile=p, **kw, **extra)


class DequantFamily(Family):
    name = "dequant"
    apis = (API,)
    case_type = DequantCase

    def units(self, p, api):
        if api != API:
            return []
        return [(API, t, s, f) for s, t in pairs(p) for f in FORMS]

    def generate(self, rng, p, unit, fault_rate):
        return random_case(rng, p, unit[2], unit[1], unit[3], fault_rate)

    draw_many = staticmethod(random_cases_many)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        if case.form == "count":
            return rep(case, count=-1), "count"
        return rep(case, repeat=256), "repeatTime"

    def invalid_data(self, rng, p, case):
        rep = dataclasses.replace
        opts = [
            (
                rep(case, dst=case.dst + 2, count=max(1, case.count), repeat=max(1, case.repeat)),
                "misaligned dst",
            ),
            (
                rep(case, src=UB_BYTES - 32, count=max(case.count, 64), repeat=max(1, case.repeat)),
                "src outside UB",
            ),
        ]
        return opts[int(rng.integers(len(opts)))]

    def signature(self, case, p):
        # the four call forms in one program (an AnyForm, the form code traced); isVecDeq /
        # halfBlock are template arguments (Python bools): their own chunks, the same program
        return ("dequant", case.src_dtype, case.dtype, "any", case.vec, case.half, RB)

    def initial_ub(self, case):
        return make_ub(case)

    def stack_dyn(self, cases, p):
        out = int32_columns(cases, "dst", "src", "count", "repeat")
        out["params"] = np.asarray([c.params for c in cases], np.int32)
        out["form"] = form_codes(cases)
        out.update(mask_columns(cases))
        return out

    def call(self, mod, case, state, p, dyn=None):
        if dyn is not None and "params" in dyn:
            dyn = dict(dyn, params=tuple(dyn["params"][i] for i in range(4)))
        return call(mod, case, state, p, dyn), None

    def labels(self, case, p):
        L = p.lanes(_wide(p, case.src_dtype, case.dtype))
        n = -(-case.count // L) if case.form == "count" else case.repeat
        return (
            mask_label(case.form, case.mask_mode, case.mask, L),
            repeat_regime(n, p),
            "vec" if case.vec else "scalar",
        )

    def shrink(self, case, p):
        return repeat_count_shrinks(case)
