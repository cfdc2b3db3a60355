"""Random cases for the scalar-arithmetic family (Adds/Muls/Maxs/Mins), run through the fast path
(batched, one compilation per signature) and through the NumPy reference, compared byte for byte.

A ``Case`` is fully concrete (Python ints, bytes), so it can be replayed, printed, and run through
either implementation. The fast runner groups cases by static signature and vmaps each group with
every parameter traced.

The family of Adds, Muls, Maxs, Mins: case type, generator, batched call, reference call
and the engine's adapter (``UnaryScalarFamily``, at the end).
"""

import dataclasses
import math

import numpy as np

import ascend_jax as aj

from ... import dtypes as _dt
from ...params import UnaryRepeatParams
from ...profile import as_profile
from ...tensor import MASK_PLACEHOLDER, LocalTensor
from ..regs import draw as draw_registers
from ..regs import draw_mask
from . import draw as D
from .base import (
    MASK_FIELDS,
    UB_FIELDS,
    Operand,
    call_labels,
    case_dataclass,
    data_mutations,
    draw_addr,
    draw_repeat_strides,
    footprint,
    generic_shrinks,
    halves,
    layout_operands,
    mask_text,
    mask_words32,
    mode_text,
    normal_mode_shrinks,
    scalar_shrinks,
    size_misuse,
    specials,
    unlisted_dtype,
)
from .family import PlannedFamily

UNARY_SCALAR = {"Adds": "add", "Muls": "mul", "Maxs": "max", "Mins": "min"}


@case_dataclass
class Case:
    api: str
    dtype: str
    form: str  # "count" | "continuous" | "bitwise" | "register"
    is_set_mask: bool
    dst: int
    src: int
    scalar: object
    count: int = 0
    mask: object = None  # int or tuple of uint64 words
    repeat: int = 0
    strides: tuple = (1, 1, 8, 8)
    registers: MASK_FIELDS
    ub: UB_FIELDS

    def signature(self):
        """The static part: everything else is traced data (one compilation per signature and
        repeat bucket)."""
        return (self.dtype,)

    def call_repr(self):
        p = f"UnaryRepeatParams{self.strides}"
        t = f"<{_dt.as_dtype(self.dtype).cpp}{', false' if not self.is_set_mask else ''}>"
        head = f"{self.api}{t}(dst@{self.dst}, src@{self.src}, {self.scalar!r}"
        if self.form == "count":
            return f"{head}, {self.count})"
        return f"{head}, {mask_text(self)}, {self.repeat}, {p}){mode_text(self)}"


def scalar_value(case):
    """The scalar as the Python value passed to the APIs (floats as float, ints as int)."""
    return case.scalar


def _rand_bits(rng, bits):
    """Uniform random ``bits``-bit pattern as a Python int (any width up to 64)."""
    v = int(rng.integers(0, 2**32, dtype=np.uint64))
    if bits > 32:
        v |= int(rng.integers(0, 2 ** (bits - 32), dtype=np.uint64)) << 32
    return v & ((1 << bits) - 1)


def _random_scalar(rng, d):
    """The scalar argument: a special value, a small number, or random bits of T."""
    if d.kind == "complex":
        part = _dt.half if d.name == "complex32" else _dt.float32

        def comp():
            b = (
                specials(part)[rng.integers(len(specials(part)))]
                if rng.random() < 0.4
                else _rand_bits(rng, part.bits)
            )
            v = float(np.array(b, part.bits_dtype).view(part.np_dtype))
            return 0.0 if v != v else v  # a NaN complex scalar's payload/sign is not modelled

        return complex(comp(), comp())
    sp = specials(d)
    if d.is_float:
        if rng.random() < 0.4:
            bits = sp[rng.integers(len(sp))]
            return float(np.array(bits, d.bits_dtype).view(d.np_dtype))
        if rng.random() < 0.5:
            return float(rng.integers(-8, 9)) / 2
        return float(np.array(_rand_bits(rng, d.bits), d.bits_dtype).view(d.np_dtype))
    v = sp[rng.integers(len(sp))] if rng.random() < 0.4 else _rand_bits(rng, d.bits)
    return int(np.array(v, dtype=np.uint64).astype(d.bits_dtype).view(d.np_dtype))


def random_case(rng, profile, api=None, dtype=None, ub_bytes=8192, fault_rate=0.1, form=None):
    """One random, mostly valid case (``fault_rate``: share of cases with a deliberately bad
    address/stride that must be flagged as a fault). Registers come from ``fuzz.regs.draw``."""
    p = as_profile(profile)
    apis = [a for a in UNARY_SCALAR if p.api(a).supported]
    if api is None and not apis:
        raise ValueError(f"profile {p.name} supports none of {', '.join(UNARY_SCALAR)}")
    api = api or apis[rng.integers(len(apis))]
    a = p.api(api)
    dts = a.all_dtypes()
    d = _dt.as_dtype(dtype or dts[rng.integers(len(dts))])
    L = p.lanes(d)
    E = p.block_bytes // d.itemsize
    nblocks = ub_bytes // 32
    forms = ["count", "continuous", "bitwise", "register"]
    if form is None:
        form = forms[rng.choice(4, p=[0.25, 0.3, 0.3, 0.15])]
    if d.name in a.count_only_dtypes:
        form = "count"  # SPEC: "仅支持tensor前n个数据计算接口" (Adds.md): the count prototype only
    is_set_mask = form != "register"
    if form == "count" and p.level2_is_set_mask == "honoured" and rng.random() < 0.1:
        is_set_mask = False
    data = ["raw", "specials", "small"][rng.integers(3)]
    scalar = _random_scalar(rng, d)
    regs = draw_registers(rng, p, L, counter_ok=form != "count")
    mask_mode = regs.mask_mode
    repeat, strides = draw_repeat_strides(rng, (1, 1, 8, 8), fault_rate)
    # keep most cases in bounds: footprint of the larger repeat count
    if form == "count":
        count = int(rng.integers(0, min(3 * L, nblocks * E // 2) + 1))
        if rng.random() < 0.1:
            count = 0
        reps = math.ceil(count / L)
        fp = footprint(1, 8, reps)
    else:
        count = 0
        reps = repeat
        fp = max(footprint(strides[0], strides[2], reps), footprint(strides[1], strides[3], reps))
    mask, vmask_words, count_reg = draw_mask(rng, p, L, form, regs, min(4 * L, nblocks * E // 3))
    if count_reg is not None:
        reps = math.ceil(count_reg / L)
        fp = max(footprint(strides[0], strides[2], reps), footprint(strides[1], strides[3], reps))

    dst = draw_addr(rng, nblocks, fp, fault_rate)
    src = dst if rng.random() < 0.15 else draw_addr(rng, nblocks, fp, fault_rate)
    return Case(
        api=api,
        dtype=d.name,
        form=form,
        is_set_mask=is_set_mask,
        dst=dst,
        src=src,
        scalar=scalar,
        count=count,
        mask=mask,
        repeat=repeat,
        strides=strides,
        vmask=tuple(int(x) for x in vmask_words),
        mask_mode=mask_mode,
        ctrl=regs.ctrl,
        ub_seed=int(rng.integers(0, 2**31)),
        ub_bytes=ub_bytes,
        data=data,
    )


_FORMS = ("count", "continuous", "bitwise", "register")
_DATA = ("raw", "specials", "small")


def _random_scalars_many(slots, dts, k):
    """``_random_scalar`` for every case (its type ``dts[k]``): the Python values, a list. A fixed
    layout of eight draws: the complex parts take (special?, which, bits) each, a float or int
    (special?, which, small?, small value, bits)."""
    n = len(slots)
    ds = [_dt.as_dtype(x) for x in dts]
    parts = [(_dt.half if d.name == "complex32" else _dt.float32) if d.kind == "complex" else d for d in ds]
    table, lengths = D.specials_table(parts)
    bits = np.asarray([p.bits for p in parts], np.int64)[k]
    u_a, sp_a = slots.random(), D.draw_special(slots, table, lengths, k)
    u_small, small = slots.random(), D.ints(slots, -8, 9)
    w_a = D.low_bits(slots.word(), bits)
    u_c, sp_c = slots.random(), D.draw_special(slots, table, lengths, k)
    w_c = D.low_bits(slots.word(), bits)
    re = np.where(u_a < 0.4, sp_a, w_a)
    im = np.where(u_c < 0.4, sp_c, w_c)
    out = np.empty(n, object)
    for j, d in enumerate(ds):
        sel = np.flatnonzero(k == j)
        if not len(sel):
            continue
        part = parts[j]
        with np.errstate(invalid="ignore"):  # a signalling NaN widened
            to_float = re[sel].astype(part.bits_dtype).view(part.np_dtype).astype(np.float64)
        if d.kind == "complex":
            with np.errstate(invalid="ignore"):
                imag = im[sel].astype(part.bits_dtype).view(part.np_dtype).astype(np.float64)
            # a NaN complex scalar's payload/sign is not modelled
            out[sel] = [
                complex(0.0 if a != a else a, 0.0 if b != b else b)
                for a, b in zip(to_float.tolist(), imag.tolist(), strict=True)
            ]
        elif d.is_float:
            v = np.where(u_small[sel] < 0.5, small[sel] / 2, to_float)
            out[sel] = np.where(u_a[sel] < 0.4, to_float, v).tolist()
        else:
            out[sel] = re[sel].astype(d.bits_dtype).view(d.np_dtype).tolist()
    return out.tolist()


def random_cases_many(slots, p, units, fault_rate=0.1, ub_bytes=8192):
    """``random_case`` for many cases at once, one a unit ``(api, dtype)`` of ``units``, drawn
    from ``slots`` (``rng.Slots``) in a fixed layout (``families.draw``): the same distribution
    of forms, masks, registers, repeats, strides, addresses, scalars and data styles."""
    n = len(units)
    uniq, ui = D.unit_index(units)
    dts = list(dict.fromkeys(dt for _, dt in uniq))
    dk = D.per_unit(uniq, ui, lambda u: dts.index(u[1]))
    L = D.per_unit(uniq, ui, lambda u: p.lanes(_dt.as_dtype(u[1])))
    E = D.per_unit(uniq, ui, lambda u: p.block_bytes // _dt.as_dtype(u[1]).itemsize)
    count_only = D.per_unit(uniq, ui, lambda u: u[1] in p.api(u[0]).count_only_dtypes, bool)
    nblocks = ub_bytes // 32
    form = np.where(count_only, 0, slots.weighted([0.25, 0.3, 0.3, 0.15]))
    is_set_mask = form != 3
    if p.level2_is_set_mask == "honoured":
        is_set_mask &= ~((form == 0) & (slots.random() < 0.1))
    data = slots.below(3)
    scalars = _random_scalars_many(slots, dts, dk)
    regs = D.draw_many(slots, p, L, counter_ok=form != 0)
    repeat, strides = D.draw_repeat_strides_many(slots, (1, 1, 8, 8), fault_rate)
    # the count form: a count up to 3 repeats, a tenth of them 0
    count = D.ints(slots, 0, np.minimum(3 * L, nblocks * E // 2) + 1)
    count = np.where((form == 0) & (slots.random() >= 0.1), count, 0)
    # the mask argument (``regs.draw_mask``): a continuous lane count, the bitwise words (the vector
    # mask register's lanes) or, in Counter mode, a count (the mask and the register's value)
    counter = regs.mask_mode == 1
    lo = np.where((p.zero_mask == "error") & ((form == 1) | (form == 2)), 1, 0)
    count_reg = D.ints(slots, lo, np.minimum(4 * L, nblocks * E // 3) + 1)
    cont = D.choose(slots, [0, 1, L // 2, L - 1, L, L + 5, D.ints(slots, 0, L + 1)])
    if p.zero_mask == "error":
        cont = np.maximum(cont, 1)
    cont = np.where(counter, count_reg, cont)
    nw = p.vector_mask_bits // 64
    words = D.words_to_u64(regs.vmask, nw)
    words[:, 0] = np.where(counter, count_reg.astype(np.uint64), words[:, 0])
    words[:, 1:] = np.where(counter[:, None], np.uint64(0), words[:, 1:])
    if p.zero_mask == "error":
        words[:, 0] = np.where(words.any(axis=1), words[:, 0], np.uint64(1))
    vmask = np.where(counter[:, None], D.u64_to_words(count_reg), regs.vmask)
    # footprints: most cases in bounds (the larger of dst's and src's over the repeats run)
    reps = np.where(counter, -(-count_reg // L), repeat)
    fp = np.maximum(
        D.footprint_many(strides[:, 0], strides[:, 2], reps),
        D.footprint_many(strides[:, 1], strides[:, 3], reps),
    )
    fp = np.where(form == 0, D.footprint_many(1, 8, -(-count // L)), fp)
    dst = D.draw_addr_many(slots, nblocks, fp, fault_rate)
    same = slots.random() < 0.15
    src = np.where(same, dst, D.draw_addr_many(slots, nblocks, fp, fault_rate))
    ub_seed = slots.below(2**31)

    fl = form.tolist()
    return D.build(
        Case,
        n,
        dict(
            api=[u[0] for u in units],
            dtype=[dts[j] for j in dk.tolist()],
            form=[_FORMS[f] for f in fl],
            is_set_mask=is_set_mask.tolist(),
            dst=dst.tolist(),
            src=src.tolist(),
            scalar=scalars,
            count=count.tolist(),
            mask=[
                m_cont if f == 1 else (m_words if f == 2 else None)
                for f, m_cont, m_words in zip(fl, cont.tolist(), D.tuples(words), strict=True)
            ],
            repeat=repeat.tolist(),
            strides=D.tuples(strides),
            **D.mask_fields(vmask, regs.mask_mode, regs.ctrl),
            ub_seed=ub_seed.tolist(),
            ub_bytes=ub_bytes,
            data=[_DATA[k] for k in data.tolist()],
        ),
    )


# -- running ------------------------------------------------------------------------------------


def _span(case, addr, d):
    """The elements of a tensor at ``addr`` reaching to the end of the case's UB (at least 1): the
    family draws raw addresses, so no lane is ever beyond its tensor (no EXTENT checker warning)."""
    return max(1, (int(case.ub_bytes) - int(addr)) // d.itemsize)


def _args_for(case, traced_mask=False):
    d = _dt.as_dtype(case.dtype)
    dst = LocalTensor(d, case.dst, _span(case, case.dst, d))
    src = LocalTensor(d, case.src, _span(case, case.src, d))
    if case.form == "count":
        return dst, src, (case.count,)
    params = UnaryRepeatParams(*case.strides)
    if case.form == "register":
        m = MASK_PLACEHOLDER
    else:
        m = case.mask if case.form == "continuous" else list(case.mask)
    return dst, src, (m, case.repeat, params)


def call(mod, case, state, profile):
    """``case.api`` of ``mod`` (``ascend_jax.reference`` or ``ascend_jax``) with every argument a
    static Python value. Returns the new state."""
    dst, src, args = _args_for(case)
    fn = getattr(mod, case.api)
    return fn(state, dst, src, case.scalar, *args, profile=profile, isSetMask=case.is_set_mask)


def _reps_needed(case, L):
    if case.form == "count":
        return math.ceil(case.count / L)
    if case.mask_mode == 1:
        c = case.mask if case.form == "continuous" else (case.mask[0] if case.form == "bitwise" else None)
        if c is None:
            c = case.vmask[0] | (case.vmask[1] << 32)
        return math.ceil(c / L)
    return case.repeat


def coarse_bucket(n, buckets=(4, 16, 256)):
    """Few static repeat buckets: fewer compilations at the price of some padding."""
    for b in buckets:
        if n <= b:
            return b
    return aj.repeat_bucket(n)


API_CODES = aj.GROUP_APIS["unary_scalar"]  # values["op"] indexes it


def _kind(c):
    if c.form == "count":
        return aj.FORM_CODES["count" if c.is_set_mask else "count_register"]
    return aj.FORM_CODES[c.form]


def _scalar_bits(api, v, d, p):
    """The scalar's bit pattern (``aj.scalar_value_bits``: host NumPy, no device array for a host
    scalar (it was most of a batch's Python time))."""
    return aj.scalar_value_bits(api, v, d, p)


def stack_params(cs, p):
    """The traced parameters of a batch of cases of one dtype, in the pipeline's ``dyn`` format."""
    d = _dt.as_dtype(cs[0].dtype)
    nw = p.vector_mask_bits // 64
    n = len(cs)
    words = np.zeros((n, 8), np.uint32)
    cont = np.zeros((n, 2), np.uint32)
    for i, c in enumerate(cs):
        if c.form == "bitwise":
            words[i] = mask_words32(c.mask[:nw], 8)
        elif c.form == "continuous":
            cont[i] = (c.mask & 0xFFFFFFFF, c.mask >> 32)
    count_form = np.array([c.form == "count" for c in cs])
    out = {
        "kind": np.array([_kind(c) for c in cs], np.int32),
        "op": np.array([API_CODES.index(c.api) for c in cs], np.int32),
        "dst": np.array([c.dst for c in cs], np.int32),
        "src": np.array([c.src for c in cs], np.int32),
        # uint32 bits; 64-bit lanes: (low, high) pairs
        "scalar": np.array([_scalar_bits(c.api, c.scalar, d, p) for c in cs], np.uint32),
        "count": np.stack([np.array([c.count for c in cs], np.uint32), np.zeros(n, np.uint32)], 1),
        "cont": cont,
        "words": words,
        "repeat": np.where(count_form, 1, np.array([c.repeat for c in cs])).astype(np.int32),
        "strides": np.where(
            count_form[:, None], np.array([1, 1, 8, 8]), np.array([c.strides for c in cs])
        ).astype(np.int32),
        "bad_param": np.zeros(n, bool),
        "bad_mask": np.zeros(n, bool),
    }
    # the tensors' sizes in bytes, for the checker (as _args_for); host arrays: the program
    # transfers them itself (a ``jnp.asarray`` each cost ~0.5 ms of the main thread, issue 36)
    out["ext"] = {
        k: np.array([_span(c, getattr(c, k), d) * d.itemsize for c in cs], np.int32) for k in ("dst", "src")
    }
    return out


# -- the engine's adapter ----------------------------------------------------------------------


class UnaryScalarFamily(PlannedFamily):
    name = "unary_scalar"
    apis = tuple(UNARY_SCALAR)
    case_type = Case

    def api_units(self, p, api):
        return [(api, dt) for dt in p.api(api).all_dtypes()]

    def generate(self, rng, p, unit, fault_rate):
        api, dt = unit
        return random_case(rng, p, api, dt, fault_rate=fault_rate)

    draw_many = staticmethod(random_cases_many)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        L = p.lanes(_dt.as_dtype(case.dtype))
        opts = [size_misuse(case, p, case.form == "count")]
        if case.form != "count":
            opts.append(
                (rep(case, strides=case.strides[:2] + (256, case.strides[3])), "repeatParams.dstRepStride")
            )
            if case.form == "bitwise" and case.mask_mode == 0 and L <= 64:
                m = list(case.mask)
                m[1] = 1
                opts.append((rep(case, mask=tuple(m)), "mask[1]"))
        bad = unlisted_dtype(rng, p, case.api)
        if bad:
            opts.append((rep(case, dtype=bad, form="count", count=16), "T"))
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        return data_mutations(rng, p, case)

    def signature(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        return ("unary_scalar", case.dtype, coarse_bucket(_reps_needed(case, L), self.buckets))

    def stack_dyn(self, cases, p):
        return stack_params(cases, p)

    def fast_fn(self, case0, p):
        _, dtype, R = self.signature(case0, p)
        return self.batched(aj.group_key("unary_scalar", _dt.as_dtype(dtype), R, p))

    def call(self, mod, case, state, p, dyn=None):
        return call(mod, case, state, p), None

    def labels(self, case, p):
        L = p.lanes(_dt.as_dtype(case.dtype))
        s = None if case.form == "count" else halves(case.strides)
        return call_labels(
            p, L, case.form, case.mask_mode, case.mask, _reps_needed(case, L), s, case.is_set_mask
        )

    def shrink(self, case, p):
        out = generic_shrinks(case, p, (1, 1, 8, 8)) + normal_mode_shrinks(case) + scalar_shrinks(case)
        rep = dataclasses.replace
        if case.form == "register" and case.mask_mode == 0:
            nw = p.vector_mask_bits // 64
            v = sum(int(case.vmask[i]) << (32 * i) for i in range(8))
            out.append(
                rep(
                    case,
                    form="bitwise",
                    is_set_mask=True,
                    mask=tuple((v >> (64 * i)) & (2**64 - 1) for i in range(nw)),
                )
            )
        return out

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        L = p.lanes(d)
        s = (1, 1, 8, 8) if case.form == "count" else case.strides
        return layout_operands(
            [("src", case.src)], case.dst, s, _reps_needed(case, L), d.name, L * d.itemsize // 32
        )


__all__ = ["UnaryScalarFamily", "Operand"]
