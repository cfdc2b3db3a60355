"""Random cases for type conversion 类型转换/ (issue 15): Cast (every (src, dst) pair and RoundMode the
product's table ``apis.Cast.pairs`` lists, every call form, the CTRL cast-saturation bit) and
Truncate(ISASI) (count form, every round mode), run through the fast path and the NumPy reference
and compared on the whole UB, the registers and the fault word.

Fast path: Cast cases are planned by ``aj.plan`` (the public API's static checks, the call form and
the round mode as traced data); the cases of one signature ((src, dst) pair, repeat bucket) run in ONE
program, ``aj.run_batched`` of the group key ``aj.group_key("cast", (src, dst), R, profile)``, with
everything traced.
Truncate takes its round mode as a template argument (static in the public API): its cases run
through the public ``ascend_jax.Truncate`` vmapped, one program per (dtype, round mode, bucket), the
count and the addresses traced. Reference: the public reference functions.

Source data: random bits, the dtype's specials (NaN, inf, -0, subnormals, integer extremes) or small
multiples of 1/4 (halves and quarters between integers: every round mode differs on them).
"""

import dataclasses
import functools
import types

import jax
import jax.numpy as jnp
import numpy as np

import ascend_jax as aj

from ... import dtypes as _dt
from ...errors import NotModelledError, UsageError
from ...params import UnaryRepeatParams
from ...tensor import LocalTensor
from . import draw as D
from .base import (
    MASK_FIELDS,
    STRIDED_FORMS,
    UB_FIELDS,
    case_dataclass,
    form_text,
    generic_shrinks,
    layout_operands,
    make_ub,
    mode_shrinks,
    profile_forms,
    reps_needed,
    smaller_ints,
    src_mutations,
    state_for,
    strided_labels,
)
from .compound import COUNT_FORMS, call_tail, draw_layout
from .family import PlannedFamily

APIS = ("Cast", "Truncate")
TRUNCATE_MODES = ("RINT", "ROUND", "FLOOR", "CEIL", "TRUNC")  # SPEC: Truncate(ISASI).md roundMode
DEFAULT_STRIDES = (1, 1, 8, 8)  # UnaryRepeatParams (dstBlk, srcBlk, dstRep, srcRep)


@functools.cache
def pairs(p):
    """{(src, dst): (sorted round modes, count_only)} of the product's table (``apis.Cast.pairs``)."""
    out = {}
    for entry in p.api("Cast").pairs:
        head, modes = entry.split(":")
        s, t = (x.strip() for x in head.split("->"))
        words = modes.split()
        out[(s, t)] = (tuple(sorted(w for w in words if w != "[count]")), "[count]" in words)
    return out


@case_dataclass
class CastCase:
    api: str  # Cast | Truncate
    src_dtype: str
    dtype: str  # dst's element type
    mode: str  # round mode without CAST_
    form: str  # count | count_register | continuous | bitwise | register
    dst: int
    srcs: tuple = ()  # (src,)
    count: int = 0
    mask: object = None
    repeat: int = 0
    strides: tuple = DEFAULT_STRIDES
    registers: MASK_FIELDS
    ub: UB_FIELDS  # data: of the source type

    def call_repr(self):
        s, t = _dt.as_dtype(self.src_dtype), _dt.as_dtype(self.dtype)
        if self.api == "Truncate":
            return f"Truncate<{t.cpp}, CAST_{self.mode}>(dst@{self.dst}, src@{self.srcs[0]}, {self.count})"
        reg = ", false" if self.form in ("count_register", "register") else ""
        head = f"Cast<{t.cpp}, {s.cpp}{reg}>(dst@{self.dst}, src@{self.srcs[0]}, CAST_{self.mode}"
        return head + form_text(self)


def wide_dtype(c):
    """The wider of the two types: it counts the lanes (Cast.md)."""
    s, t = _dt.as_dtype(c.src_dtype), _dt.as_dtype(c.dtype)
    return s if s.bits > t.bits else t


def has_nibbles(c):
    """An int4b_t operand: two lanes share a byte (Cast.md 约束说明)."""
    return _dt.as_dtype(c.src_dtype).sub_byte or _dt.as_dtype(c.dtype).sub_byte


def blocks_of(p, L, d):
    """32-byte blocks a repeat of ``L`` contiguous lanes of ``d`` spans (in bits: int4b_t)."""
    return max(1, L * d.bits // (8 * p.block_bytes))


def _pairs_even(word):
    """A mask word with both lanes of every byte pair active where either was (bit 2k+1 = bit 2k)."""
    lo = (word | (word >> 1)) & 0x5555555555555555
    return lo | (lo << 1)


def nibble_safe(lay, p):
    """The layout fields of ``draw_layout`` made valid for an int4b_t pair. SPEC: "连续模式的mask与
    tensor前n个数据计算接口的count必须为偶数；对于tensor高维切分计算接口的逐bit模式，对应同一字节的相邻两个
    比特位的数值必须一致" (Cast.md 约束说明): even counts and continuous masks (a Counter-mode count
    too), bitwise words and the mask registers in byte pairs. An odd or split one is drawn by the
    ``invalid_static`` (odd count / mask: UsageError) and ``invalid_data`` (split pair: BAD_MASK) hooks."""
    out = dict(lay)
    out["count"] = lay["count"] & ~1
    lo = 2 if p.zero_mask == "error" else 0  # a mask drawn as 1 to avoid the zero-mask error stays non-zero
    if isinstance(lay["mask"], int):
        out["mask"] = max(lay["mask"] & ~1, lo if lay["mask"] else 0)
    elif isinstance(lay["mask"], tuple):
        words = [_pairs_even(w) for w in lay["mask"]]
        if lay["mask_mode"] == 1:
            words[0] = max(lay["mask"][0] & ~1, lo if lay["mask"][0] else 0)
        out["mask"] = tuple(words)
    v = list(lay["vmask"])
    if lay["mask_mode"] == 1:
        v[0] &= ~1
    else:
        v = [_pairs_even(w) & 0xFFFFFFFF for w in v]
    out["vmask"] = tuple(v)
    return out


def random_case(rng, p, api, src, dst, mode, form, ub_bytes=8192, fault_rate=0.1):
    # its twin for many cases: ``random_cases_many`` (a rule changed here is changed there;
    # tests/test_fuzz_vectorised_draw.py compares their distributions)
    S, T = _dt.as_dtype(src), _dt.as_dtype(dst)
    W = S if S.bits > T.bits else T
    L = p.lanes(W)
    blocks = tuple(blocks_of(p, L, d) for d in (T, S))
    lay = draw_layout(rng, p, L, blocks, DEFAULT_STRIDES, form, fault_rate, ub_bytes)
    if S.sub_byte or T.sub_byte:
        lay = nibble_safe(lay, p)
    if form not in COUNT_FORMS and rng.random() < 0.3:
        # each operand at its own contiguous repeat stride (blocks a repeat), as a kernel would
        lay["strides"] = (lay["strides"][0], lay["strides"][1]) + blocks
    ctrl = list(lay["ctrl"])
    bit = p.cast_saturation_ctrl_bit
    if bit >= 0 and rng.random() < 0.5:  # CTRL[59]: 0 = saturating, 1 = not (SetCtrlSpr 表3)
        ctrl[bit // 32] ^= 1 << (bit % 32)
    lay["ctrl"] = tuple(ctrl)
    return CastCase(
        api=api,
        src_dtype=S.name,
        dtype=T.name,
        mode=mode,
        ub_seed=int(rng.integers(0, 2**31)),
        ub_bytes=ub_bytes,
        data=["raw", "specials", "small"][int(rng.integers(3))],
        **lay,
    )


def _pairs_even_many(w):
    """``_pairs_even`` on a uint64 array."""
    lo = (w | (w >> np.uint64(1))) & np.uint64(0x5555555555555555)
    return lo | (lo << np.uint64(1))


def random_cases_many(slots, p, units, fault_rate=0.1, ub_bytes=8192):
    """``random_case`` for many cases at once, one a unit ``(api, src, dst, mode, form)`` of
    ``units``, drawn from ``slots`` (``rng.Slots``) in a fixed layout (``draw.draw_layout_many``,
    then the int4b_t pair rule, the contiguous repeat strides, CTRL's cast-saturation bit, the
    source data): the same distribution as ``random_case``."""
    n = len(units)
    uniq, ui = D.unit_index(units)

    def geometry(u):
        S, T = _dt.as_dtype(u[1]), _dt.as_dtype(u[2])
        L = p.lanes(S if S.bits > T.bits else T)
        return L, blocks_of(p, L, T), blocks_of(p, L, S), bool(S.sub_byte or T.sub_byte)

    geo = np.asarray([geometry(u) for u in uniq], np.int64)[ui]
    L, nd, ns, nib = geo[:, 0], geo[:, 1], geo[:, 2], geo[:, 3].astype(bool)
    form = D.per_unit(uniq, ui, lambda u: D.LAYOUT_FORMS.index(u[4]))
    lay = D.draw_layout_many(slots, p, L, (nd, ns), DEFAULT_STRIDES, form, fault_rate, ub_bytes)
    count, cont, words, vmask = lay.count, lay.cont, lay.words, lay.vmask
    # ``nibble_safe`` on the int4b_t pairs: even counts and continuous masks, bitwise words and the
    # vector mask in byte pairs (Counter mode: an even count)
    lo = 2 if p.zero_mask == "error" else 0
    counter = lay.mask_mode == 1
    count = np.where(nib, count & ~1, count)
    cont = np.where(nib, np.where(cont != 0, np.maximum(cont & ~1, lo), 0), cont)
    w0 = words[:, 0].astype(np.int64)  # a Counter-mode count (small)
    even0 = np.where(w0 != 0, np.maximum(w0 & ~1, lo), 0).astype(np.uint64)
    paired = _pairs_even_many(words)
    paired[:, 0] = np.where(counter, even0, paired[:, 0])
    words = np.where(nib[:, None], paired, words)
    v_pair = _pairs_even_many(vmask.astype(np.uint64)).astype(np.uint32)
    v_cnt = vmask.copy()
    v_cnt[:, 0] &= np.uint32(0xFFFFFFFE)
    vmask = np.where(nib[:, None], np.where(counter[:, None], v_cnt, v_pair), vmask)
    # each operand at its own contiguous repeat stride (blocks a repeat), as a kernel would
    contig = (form > 1) & (slots.random() < 0.3)
    strides = lay.strides.copy()
    strides[:, 2] = np.where(contig, nd, strides[:, 2])
    strides[:, 3] = np.where(contig, ns, strides[:, 3])
    ctrl = lay.ctrl.copy()
    bit = p.cast_saturation_ctrl_bit
    flip = slots.random() < 0.5  # CTRL[59]: 0 = saturating, 1 = not (SetCtrlSpr 表3)
    if bit >= 0:
        ctrl[:, bit // 32] ^= np.where(flip, np.uint32(1 << (bit % 32)), np.uint32(0))
    ub_seed = slots.below(2**31)
    data = slots.below(3)
    lay = lay._replace(cont=cont, words=words)
    return D.build(
        CastCase,
        n,
        dict(
            api=[u[0] for u in units],
            src_dtype=[_dt.as_dtype(u[1]).name for u in units],
            dtype=[_dt.as_dtype(u[2]).name for u in units],
            mode=[u[3] for u in units],
            form=[u[4] for u in units],
            dst=lay.dst.tolist(),
            srcs=D.tuples(lay.srcs),
            count=count.tolist(),
            mask=D.layout_masks(lay),
            repeat=lay.repeat.tolist(),
            strides=D.tuples(strides),
            **D.mask_fields(vmask, lay.mask_mode, ctrl),
            ub_seed=ub_seed.tolist(),
            ub_bytes=ub_bytes,
            data=[("raw", "specials", "small")[k] for k in data.tolist()],
        ),
    )


# -- calls ----------------------------------------------------------------------------------------


def _tensors(c, dyn=None):
    s, t = _dt.as_dtype(c.src_dtype), _dt.as_dtype(c.dtype)
    d_addr, s_addr = (c.dst, c.srcs[0]) if dyn is None else (dyn["dst"], dyn["src"])
    return LocalTensor(t, d_addr, 4096), LocalTensor(s, s_addr, 4096)


def call(mod, c, state, p, dyn=None, max_repeats=None):
    """``c.api`` of ``mod`` (the reference, or ``ascend_jax``); ``dyn``: Truncate's traced count and
    addresses (one case's row of ``stack_dyn``)."""
    dst, src = _tensors(c, dyn)
    kw = {} if max_repeats is None else {"max_repeats": max_repeats}
    if c.api == "Truncate":
        count = c.count if dyn is None else dyn["count"]
        return mod.Truncate(state, dst, src, count, roundMode="CAST_" + c.mode, profile=p, **kw)
    args, is_set = call_tail(c, UnaryRepeatParams)
    return mod.Cast(state, dst, src, "CAST_" + c.mode, *args, profile=p, isSetMask=is_set, **kw)


def plan(c, state, p, R):
    """A Cast case's ``values`` by ``aj.plan`` (the public API's static checks included)."""
    dst, src = _tensors(c)
    args, is_set = call_tail(c, UnaryRepeatParams)
    return aj.plan(
        "Cast", state, dst, src, "CAST_" + c.mode, *args, profile=p, isSetMask=is_set, max_repeats=R
    )[1]


@functools.cache
def is_modelled(api, src, dst, mode, p):
    """Whether the fast path models the conversion on ``p`` (a trial call of a plain case, count 2:
    an int4b_t pair needs an even count, Cast.md 约束说明)."""
    c = CastCase(api, src, dst, mode, "count", 0, (0,), count=2)
    try:
        if api == "Cast":
            plan(c, state_for(c, p), p, 1)
        else:
            jax.eval_shape(lambda st: call(aj, c, st, p), state_for(c, p))
    except (NotModelledError, UsageError):
        return False
    return True


def _nibble_ok(c, p):
    """The int4b_t pair rule holds for the case's count / mask / registers (shrink candidates)."""
    fields = {"count": c.count, "mask": c.mask, "mask_mode": c.mask_mode, "vmask": c.vmask}
    return nibble_safe(fields, p) == fields


# -- the engine's adapter ----------------------------------------------------------------------


class CastFamily(PlannedFamily):
    name = "cast"
    apis = APIS
    case_type = CastCase

    def api_units(self, p, api):
        table = pairs(p)
        if api == "Truncate":  # T -> T, the count prototype only
            table = {(dt, dt): (TRUNCATE_MODES, True) for dt in p.api(api).all_dtypes()}
        forms = profile_forms(p, STRIDED_FORMS)
        out = []
        for (s, t), (modes, count_only) in table.items():
            for m in modes:
                if is_modelled(api, s, t, m, p):
                    out += [(api, s, t, m, f) for f in (("count",) if count_only else forms)]
        return out

    def unit_dtype(self, unit):
        return unit[2]  # dst's type (``--dtypes`` keeps the conversions to these types)

    def generate(self, rng, p, unit, fault_rate):
        api, s, t, m, form = unit
        return random_case(rng, p, api, s, t, m, form, fault_rate=fault_rate)

    draw_many = staticmethod(random_cases_many)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        opts = []
        W = wide_dtype(case)
        nib = case.api == "Cast" and has_nibbles(case)
        if case.form in COUNT_FORMS:
            over = p.ub_usable_bytes // W.itemsize + 1
            opts.append((rep(case, count=over + (over & 1 if nib else 0)), "count"))
            if nib and case.form == "count":  # SPEC: "count必须为偶数" (int4b_t, Cast.md 约束说明)
                opts.append((rep(case, count=case.count | 1), "count"))
        else:
            opts.append((rep(case, repeat=p.max_repeat_times + 1), "repeatTime"))
            opts.append(
                (rep(case, strides=case.strides[:2] + (256, case.strides[3])), "repeatParams.dstRepStride")
            )
        ok = (
            pairs(p).get((case.src_dtype, case.dtype), ((), False))[0]
            if case.api == "Cast"
            else TRUNCATE_MODES
        )
        bad_modes = [
            m for m in ("RINT", "FLOOR", "CEIL", "ROUND", "TRUNC", "ODD", "NONE", "HYBRID") if m not in ok
        ]
        if nib and case.form == "continuous" and case.mask_mode == 0:
            # SPEC: "连续模式的mask ... 必须为偶数" (int4b_t)
            opts.append((rep(case, mask=case.mask | 1), "mask"))
        if bad_modes:
            opts.append((rep(case, mode=bad_modes[int(rng.integers(len(bad_modes)))]), "roundMode"))
        if case.api == "Cast":
            listed = pairs(p)
            bad = [
                t
                for t in ("int8", "uint8", "int16", "half", "int32", "float32")
                if (case.src_dtype, t) not in listed
            ]
            if bad:
                opts.append((rep(case, dtype=bad[int(rng.integers(len(bad)))]), "src.dtype/dst.dtype"))
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        if has_nibbles(case) and case.form == "bitwise" and case.mask_mode == 0 and rng.random() < 0.5:
            # SPEC: "逐bit模式，对应同一字节的相邻两个比特位的数值必须一致" (int4b_t): a split pair is a
            # run-time BAD_MASK (docs/MODEL.md "int4b_t"); lane 2k on, 2k + 1 off
            k = int(rng.integers(0, min(p.lanes(wide_dtype(case)), 64) // 2))
            words = list(case.mask)
            words[0] = (words[0] | (1 << (2 * k))) & ~(1 << (2 * k + 1))
            return dataclasses.replace(case, mask=tuple(words), repeat=max(case.repeat, 1)), "split-pair"
        return src_mutations(rng, p, case)

    def signature(self, case, p):
        R = self.bucket(reps_needed(case, p.lanes(wide_dtype(case))))
        if case.api == "Truncate":  # the round mode is a template argument: static
            return ("cast", "Truncate", case.dtype, case.mode, R)
        return ("cast", "Cast", case.src_dtype, case.dtype, R)

    def initial_ub(self, case):
        return make_ub(
            types.SimpleNamespace(
                ub_seed=case.ub_seed, ub_bytes=case.ub_bytes, dtype=case.src_dtype, data=case.data
            )
        )

    def stack_dyn(self, cases, p):
        if cases[0].api == "Truncate":
            return {
                "dst": np.array([c.dst for c in cases], np.int32),
                "src": np.array([c.srcs[0] for c in cases], np.int32),
                "count": np.array([c.count for c in cases], np.int32),
            }
        R = self.signature(cases[0], p)[-1]
        return self.stack_values([plan(c, state_for(c, p), p, R) for c in cases])

    def fast_fn(self, case0, p):
        R = self.signature(case0, p)[-1]
        if case0.api == "Truncate":

            def run(state, dyn):
                dyn = {k: jnp.asarray(v) for k, v in dyn.items()}
                one = lambda st, dy: call(aj, case0, st, p, dyn=dy, max_repeats=R)  # noqa: E731
                return jax.vmap(one)(state, dyn), None

            return run
        pair = (_dt.as_dtype(case0.src_dtype), _dt.as_dtype(case0.dtype))
        return self.batched(aj.group_key("cast", pair, R, p))

    def call(self, mod, case, state, p, dyn=None):
        return call(mod, case, state, p), None

    def labels(self, case, p):
        return strided_labels(case, p, p.lanes(wide_dtype(case)))

    def shrink(self, case, p):
        rep = dataclasses.replace
        if case.form in COUNT_FORMS:
            out = [rep(case, count=c) for c in smaller_ints(case.count, lo=1)]
        else:
            out = generic_shrinks(case, p, DEFAULT_STRIDES)  # its last candidate: data="small"
        if has_nibbles(case):  # candidates stay valid: even counts, masks in byte pairs
            out = [x for x in out if _nibble_ok(x, p)]
        if case.form in COUNT_FORMS and case.data != "small":
            out.append(rep(case, data="small"))
        return out + [x for x in mode_shrinks(case) if not has_nibbles(case) or _nibble_ok(x, p)]

    def operands(self, case, p):
        S, T = _dt.as_dtype(case.src_dtype), _dt.as_dtype(case.dtype)
        L = p.lanes(wide_dtype(case))
        reps = reps_needed(case, L)
        nd, ns = (blocks_of(p, L, d) for d in (T, S))
        s = (1, 1, nd, ns) if case.form in COUNT_FORMS else case.strides
        return layout_operands([("src", case.srcs[0])], case.dst, s, reps, T.name, nd, S.name, ns)


__all__ = ["APIS", "CastCase", "CastFamily", "pairs"]
