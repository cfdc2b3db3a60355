"""Fuzz adapter of BilinearInterpolation(ISASI) (基础算术/; docs/MODEL.md "BilinearInterpolation").

A case is one call: the five tensor addresses, the offset words (written into the case's UB), the
mask (continuous int or two bitwise words), hRepeat, repeatMode, dstBlkStride, vROffset, vRepeat and
the registers on entry. Every case of a profile runs in ONE vmapped program (the iteration bucket
``BUCKET``; the mask form, addresses, offsets, repeats, strides and repeatMode are traced).
"""

import dataclasses

import numpy as np

from .. import regs as _regs
from . import draw as D
from .base import (
    MASK_FIELDS,
    bucket_kw,
    case_dataclass,
    int32_columns,
)
from .family import Family

API = "BilinearInterpolation"
FORMS = ("continuous", "bitwise")
BUCKET = 16  # hRepeat * vRepeat <= BUCKET
UB_BYTES = 16384
S0_LEN, S1_LEN, OFF_LEN, DST_LEN = 16, 8 * BUCKET, 8 * BUCKET, 2048
_SPECIAL = np.array([0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7D01, 0x0001, 0x83FF, 0x7BFF], np.uint16)


def tmp_len(p):
    rule = p.api(API)["tmp_buffer"]
    return {"src_sizes": S0_LEN * 32 + S1_LEN * 32, "offset_size": OFF_LEN * 4, "none": 32}[rule]


@case_dataclass
class BilinearCase:
    form: str  # continuous | bitwise
    dst: int
    src0: int
    off: int
    src1: int
    tmp: int
    offsets: tuple  # the OFF_LEN offset words written at ``off``
    mask: object  # int (continuous) or (word0, word1)
    h: int
    mode: bool
    blk: int
    vro: int
    v: int
    tmp_n: int  # sharedTmpBuffer length in bytes
    registers: MASK_FIELDS
    api: str = API
    dtype: str = "half"

    def call_repr(self):
        m = self.mask if self.form == "continuous" else f"{{{hex(self.mask[0])}, {hex(self.mask[1])}}}"
        return (
            f"BilinearInterpolation<half>(dst@{self.dst}, src0@{self.src0}, src0Offset@{self.off}, "
            f"src1@{self.src1}, {m}, hRepeat={self.h}, repeatMode={str(self.mode).lower()}, "
            f"dstBlkStride={self.blk}, vROffset={self.vro}, vRepeat={self.v}, tmp@{self.tmp}[{self.tmp_n}])"
        )


def make_ub(c):
    """Random half bits (mostly moderate normals, some specials and huge values) and the offsets."""
    rng = np.random.default_rng(c.ub_seed)
    n = UB_BYTES // 2
    bits = (rng.integers(0, 2, n) << 15) | (rng.integers(9, 21, n) << 10) | rng.integers(0, 1024, n)
    pick = rng.random(n)
    bits = np.where(pick < 0.03, _SPECIAL[rng.integers(0, _SPECIAL.size, n)], bits)
    bits = np.where(pick > 0.98, (29 << 10) | rng.integers(0, 1024, n), bits)
    ub = bits.astype(np.uint16).view(np.uint8).copy()
    raw = np.asarray(c.offsets, np.uint32).view(np.uint8)
    if 0 <= c.off and c.off + raw.size <= UB_BYTES:
        ub[c.off : c.off + raw.size] = raw
    return ub


def tensors(c, dyn=None):
    import ascend_jax as aj

    T = aj.LocalTensor
    a = dyn if dyn is not None else {k: getattr(c, k) for k in ("dst", "src0", "off", "src1", "tmp")}
    return (
        T(aj.half, a["dst"], DST_LEN),
        T(aj.half, a["src0"], S0_LEN),
        T(aj.uint32, a["off"], OFF_LEN),
        T(aj.half, a["src1"], S1_LEN),
        T(aj.uint8, a["tmp"], c.tmp_n),
    )


_TRACED = ("dst", "src0", "off", "src1", "tmp", "h", "mode", "blk", "vro", "v")


def mask_words(c):
    """A bitwise mask as the uint32 words a traced call takes (2 per uint64, low first)."""
    w = []
    for x in c.mask:
        w += [x & 0xFFFFFFFF, x >> 32]
    return np.asarray(w, np.uint32)


def call(mod, c, state, p, dyn=None):
    """The public API (``mod``: ascend_jax or an oracle) on case ``c``; ``dyn``: the case's traced
    values (a row of ``stack_dyn``) in place of its Python ones."""
    dst, s0, off, s1, tmp = tensors(c, dyn)
    if dyn is None:
        mask = list(c.mask) if c.form == "bitwise" else c.mask
        vals = [getattr(c, k) for k in _TRACED[5:]]
    else:
        mask = dyn["mask"]
        vals = [dyn[k] for k in _TRACED[5:]]
    h, mode, blk, vro, v = vals
    fn = mod.BilinearInterpolation
    return fn(state, dst, s0, off, s1, mask, h, mode, blk, vro, v, tmp, profile=p, **bucket_kw(fn, BUCKET))


def random_case(rng, p, form, fault_rate=0.1):
    h = int(rng.integers(1, 5))
    v = int(rng.integers(1, min(4, BUCKET // h) + 1))
    src0 = 32 * int(rng.integers(0, 4))
    off = 4096 + 32 * int(rng.integers(0, 4))
    src1 = 4608 + 32 * int(rng.integers(0, 3))
    dst = 4864 + 32 * int(rng.integers(0, 8))
    tmp = 11008 + 32 * int(rng.integers(0, 4))
    offsets = tuple(int(x) for x in 32 * rng.integers(0, 120, OFF_LEN))
    blk = int(rng.choice([1, 2]))
    vro = int(rng.choice([128, 256, 384, 144]))
    if rng.random() < fault_rate:  # vertical repeats that may collide
        blk, vro = int(rng.choice([2, 4])), 128
    if form == "continuous":
        mask = int(rng.choice([1, 15, 16, 17, 64, 100, 127, 128, 200])) if rng.random() < 0.5 else 128
    else:
        dens = rng.random()
        w = (rng.random((2, 64)) < dens) @ (1 << np.arange(64, dtype=object))
        mask = (int(w[0]), int(w[1]))
        if mask == (0, 0):
            mask = (1, 0)
    r = _regs.draw(rng, p, 128)
    return BilinearCase(
        form=form,
        dst=dst,
        src0=src0,
        off=off,
        src1=src1,
        tmp=tmp,
        offsets=offsets,
        mask=mask,
        h=h,
        mode=bool(rng.random() < 0.5),
        blk=blk,
        vro=vro,
        v=v,
        tmp_n=tmp_len(p),
        ub_seed=int(rng.integers(0, 2**31)),
        **r.mask_fields(),
    )


def random_cases_many(slots, p, units, fault_rate=0.1):
    """``random_case`` for many cases at once, one a unit ``(api, "half", form)`` of ``units``,
    drawn from ``slots`` (``rng.Slots``) in a fixed layout (``families.draw``): the same
    distribution (every case draws both forms' masks and keeps its own)."""
    n = len(units)
    bitwise = np.asarray([u[2] == "bitwise" for u in units], bool)
    h = D.ints(slots, 1, 5)
    v = D.ints(slots, 1, np.minimum(4, BUCKET // h) + 1)
    src0 = 32 * D.ints(slots, 0, 4)
    off = 4096 + 32 * D.ints(slots, 0, 4)
    src1 = 4608 + 32 * D.ints(slots, 0, 3)
    dst = 4864 + 32 * D.ints(slots, 0, 8)
    tmp = 11008 + 32 * D.ints(slots, 0, 4)
    offsets = np.stack([32 * slots.below(120) for _ in range(OFF_LEN)], 1)
    blk = D.choose(slots, [1, 2])
    vro = D.choose(slots, [128, 256, 384, 144])
    collide = slots.random() < fault_rate  # vertical repeats that may collide
    blk = np.where(collide, D.choose(slots, [2, 4]), blk)
    vro = np.where(collide, 128, vro)
    cont = np.where(slots.random() < 0.5, D.choose(slots, [1, 15, 16, 17, 64, 100, 127, 128, 200]), 128)
    # the bitwise mask: each of the 128 lanes set with a density drawn per case
    dens = slots.random()
    lanes = np.stack([slots.random() < dens for _ in range(128)], 1)
    w = np.packbits(lanes, axis=1, bitorder="little").view("<u8").astype(np.uint64)
    w[:, 0] = np.where(w.any(axis=1), w[:, 0], np.uint64(1))  # (0, 0): (1, 0)
    r = D.draw_many(slots, p, 128)
    mode = slots.random() < 0.5
    ub_seed = slots.below(2**31)
    return D.build(
        BilinearCase,
        n,
        dict(
            form=[u[2] for u in units],
            dst=dst.tolist(),
            src0=src0.tolist(),
            off=off.tolist(),
            src1=src1.tolist(),
            tmp=tmp.tolist(),
            offsets=D.tuples(offsets),
            mask=[
                m_w if b else m_c
                for b, m_c, m_w in zip(bitwise.tolist(), cont.tolist(), D.tuples(w), strict=True)
            ],
            h=h.tolist(),
            mode=mode.tolist(),
            blk=blk.tolist(),
            vro=vro.tolist(),
            v=v.tolist(),
            tmp_n=tmp_len(p),
            ub_seed=ub_seed.tolist(),
            **D.mask_fields(r.vmask, r.mask_mode, r.ctrl),
            api=API,
            dtype="half",
        ),
    )


class BilinearFamily(Family):
    name = "bilinear"
    apis = (API,)
    case_type = BilinearCase

    def api_units(self, p, api):
        return [(API, "half", f) for f in FORMS]

    def generate(self, rng, p, unit, fault_rate):
        return random_case(rng, p, unit[2], fault_rate)

    draw_many = staticmethod(random_cases_many)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        opts = [
            (rep(case, h=0), "hRepeat"),
            (rep(case, v=256), "vRepeat"),
            (rep(case, vro=136), "vROffset"),
            (rep(case, mode=1), "repeatMode"),
        ]
        if p.api(API)["tmp_buffer"] != "none":
            opts.append((rep(case, tmp_n=tmp_len(p) - 1), "sharedTmpBuffer"))
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        rep = dataclasses.replace
        o = list(case.offsets)
        i = int(rng.integers(0, 8 * case.h * case.v))
        opts = [
            (rep(case, offsets=tuple(o[:i] + [o[i] + 2] + o[i + 1 :])), "misaligned offset"),
            (rep(case, offsets=tuple(o[:i] + [UB_BYTES] + o[i + 1 :])), "offset outside UB"),
            (rep(case, offsets=tuple(o[:i] + [case.src1 - case.src0] + o[i + 1 :])), "block on src1"),
            (rep(case, dst=case.dst + 16), "misaligned dst"),
            (rep(case, blk=0), "dstBlkStride 0"),
            (rep(case, dst=UB_BYTES - 64), "dst outside UB"),
        ]
        if p.api(API)["tmp_buffer"] != "none":
            opts.append((rep(case, tmp=case.dst), "sharedTmpBuffer on dst"))
        return opts[int(rng.integers(len(opts)))]

    def signature(self, case, p):
        # the call form changes the traced mask's type (int32 / uint32 words): one program per form
        return ("bilinear", case.form, case.tmp_n, BUCKET)

    def initial_ub(self, case):
        return make_ub(case)

    def stack_dyn(self, cases, p):
        out = int32_columns(cases, *_TRACED)
        out["mode"] = out["mode"] != 0
        if cases[0].form == "bitwise":
            out["mask"] = np.stack([mask_words(c) for c in cases])
        else:
            out["mask"] = np.asarray([c.mask for c in cases], np.int32)
        return out

    def call(self, mod, case, state, p, dyn=None):
        return call(mod, case, state, p, dyn), None

    def labels(self, case, p):
        n = case.h * case.v
        return (case.form, "1" if n == 1 else "mid", "zero" if case.blk == 0 else "default")

    def shrink(self, case, p):
        rep = dataclasses.replace
        out = []
        if case.h > 1:
            out.append(rep(case, h=1))
        if case.v > 1:
            out.append(rep(case, v=1))
        if case.mode:
            out.append(rep(case, mode=False))
        return out
