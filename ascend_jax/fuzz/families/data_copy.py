"""Random DataCopy / DataCopyPad cases for the differential engine.

A ``CopyCase`` is fully concrete (Python ints): API, direction (``kind``: gm2ub / ub2gm / ub2ub),
call form (DataCopy: ``count`` or ``params`` = DataCopyParams; DataCopyPad: ``ext`` =
DataCopyExtParams + DataCopyPadExtParams, or ``legacy`` = DataCopyParams + DataCopyPadParams),
element type, addresses, counts, strides, paddings, registers and the seeds of the initial UB and
GM bytes.

Memory image. The engine's runner knows one byte array per case (``CoreState.ub``). A copy case's
image is its UB (``ub_bytes``) followed by its one GM buffer (``gm_bytes``): image bytes
``[0, ub_bytes)`` are UB, ``[ub_bytes, ub_bytes + gm_bytes)`` are GM buffer 0. Both calls split the
image before calling the API (so the API sees a ``ub_bytes`` UB and a ``gm_bytes`` GM buffer) and
join UB and the returned GM afterwards, so the engine's comparator, digests, capsules and replay
cover the GM bytes unchanged: "UB byte ``ub_bytes + a``" of a difference is GM byte ``a``.

Fast path: one eager ``vmap`` of the public API per static signature (API, kind, form, dtype,
isPad, image sizes, slot bucket) with every address, count, blockCount/blockLen/stride, padding
and padding value traced; ``max_blocks = nb`` is the slot bucket (cases never need more slots, so
``BUCKET_OVERFLOW``, a model limit the reference does not have, never fires).

Static misuse: ``ascend_jax.reference.data_copy`` has no static layer (a value out of range always
records ``BAD_PARAM``). ``static_error`` states the static rules of docs/MODEL.md ("Checks and
faults", static) in the fast path's order; ``call_static`` on the reference raises that
``UsageError`` only when the literal reference, run on the same values, records the run-time
counterpart of the rule (``BAD_PARAM`` for a range, ``OUT_OF_GM`` for a GM span); rules without
one (types, dtype on the profile, direction, the count cap) are decided by the rule alone.

The family of DataCopy and DataCopyPad: case type, generator, calls and the engine's adapter
(at the end).
"""

import dataclasses
import types

import jax.numpy as jnp
import numpy as np

from ... import dtypes as _dt
from ...errors import Fault, UnsupportedError, UsageError
from ...gm import OUT_OF_GM, GlobalTensor
from ...params import DataCopyExtParams, DataCopyPadExtParams, DataCopyPadParams, DataCopyParams
from ...profile import as_profile
from ...tensor import LocalTensor
from ..regs import draw as draw_registers
from ..rng import CaseRng
from . import data_copy_layout as LAY
from . import draw as D
from .base import (
    REG_FIELDS,
    Operand,
    case_dataclass,
    random_ub,
    smaller_ints,
)
from .base import is_reference as _is_reference
from .family import Family

BLK = 32  # bytes in a DataBlock
UB_BYTES = 4096  # the case's UB (the profile's usable UB is larger: the case's arena bounds it)
GM_BYTES = 3000  # deliberately not a multiple of 32
NB = 64  # slot bucket: DataCopy blocks; DataCopyPad GM->UB UB blocks, UB->GM bytes / 32
# Largest traced DataCopyPad strides drawn (the documented maximum; values above 2^26 once exposed
# an int32 wrap and a 2^30 clamp in the fast path, see tests/test_fuzz_data_copy.py).
MAX_GM_STRIDE = 2**32 - 1
MAX_UB_STRIDE = 2**32 - 1

APIS = ("DataCopy", "DataCopyPad")
FORMS = {"DataCopy": ("count", "params"), "DataCopyPad": ("ext", "legacy")}
KINDS = ("gm2ub", "ub2gm", "ub2ub")
ALL_DTYPES = tuple(d.name for d in _dt.ALL)


@case_dataclass
class CopyCase:
    api: str  # "DataCopy" | "DataCopyPad"
    kind: str  # "gm2ub" | "ub2gm" | "ub2ub"
    form: str  # DataCopy "count" | "params"; DataCopyPad "ext" | "legacy"
    dtype: str
    src: int = 0  # byte address: UB address, or offset in GM buffer 0
    dst: int = 0
    count: int = 0  # count form
    params: tuple = (1, 0, 0, 0)  # blockCount, blockLen, srcStride, dstStride (the struct's units)
    is_pad: bool = False  # DataCopyPad GM -> UB
    pad: tuple = (0, 0)  # leftPadding, rightPadding (elements)
    pad_bits: int = 0  # paddingValue as T's bit pattern
    reg_bits: int = -1  # SetPadValue<T>(value) before the DataCopyPad GM -> UB: T's bit pattern; -1: none
    src_dtype: str = ""  # "" = dtype (another type: a deliberately invalid call)
    registers: REG_FIELDS
    rsvd_init: int = 0
    ub_seed: int = 0
    gm_seed: int = 0
    ub_bytes: int = UB_BYTES
    gm_bytes: int = GM_BYTES
    nb: int = NB
    layout: tuple = ()  # the layout forms' static parameters (data_copy_layout.py)

    def key(self):
        return (
            self.layout,
            self.api,
            self.kind,
            self.form,
            self.dtype,
            self.is_pad,
            self.reg_bits >= 0,
            self.ub_bytes,
            self.gm_bytes,
            self.nb,
        )

    @property
    def size(self):
        return _dt.as_dtype(self.dtype).itemsize

    def call_repr(self):
        d = _dt.as_dtype(self.dtype)
        s = _dt.as_dtype(self.src_dtype or self.dtype)

        def opnd(side, t, a):
            return f"LocalTensor<{t.cpp}>@UB+{a}" if side == "ub" else f"GlobalTensor<{t.cpp}>@GM0+{a}"

        args = f"{opnd(self.kind[-2:], d, self.dst)}, {opnd(self.kind[:2], s, self.src)}"
        if self.form in LAY.LAYOUT_FORMS:
            x = LAY.call_text(self)
        elif self.form == "count":
            x = str(self.count)
        elif self.form == "params" or (self.api == "DataCopyPad" and self.form == "legacy"):
            x = "DataCopyParams{{{}, {}, {}, {}}}".format(*self.params)
        else:
            x = "DataCopyExtParams{{{}, {}, {}, {}, 0}}".format(*self.params)
        if self.api == "DataCopyPad" and self.kind == "gm2ub":
            st = "DataCopyPadExtParams" if self.form == "ext" else "DataCopyPadParams"
            x += f", {st}{{{str(bool(self.is_pad)).lower()}, {self.pad[0]}, {self.pad[1]}, {pad_value(self)!r}}}"
        pre = f"SetPadValue<{d.cpp}>({reg_value(self)!r}); " if self.reg_bits >= 0 else ""
        return (
            f"{pre}{self.api}<{d.cpp}>({args}, {x}) [image: UB {self.ub_bytes} B, GM0 {self.gm_bytes} B at "
            f"image byte {self.ub_bytes}; ub_seed={self.ub_seed} gm_seed={self.gm_seed} nb={self.nb}]"
        )


# -- slots, spans, labels ---------------------------------------------------------------------------


def pad_row_bytes(c):
    """DataCopyPad GM -> UB: bytes of one UB row (ceil32(left + blockLen + right))."""
    bl = c.params[1]
    return -(-(c.pad[0] * c.size + bl + c.pad[1] * c.size) // BLK) * BLK


def slots(c):
    """Slots the call moves, in units of the bucket ``nb`` (see NB)."""
    bc, bl = c.params[:2]
    if c.api == "DataCopy":
        return c.count * c.size // BLK if c.form == "count" else bc * bl
    if c.kind == "gm2ub":
        return bc * pad_row_bytes(c) // BLK
    return -(-bc * bl // BLK)


def spans(c):
    """{side: (step, rows, row bytes)} of the bytes each side touches (valid parameters)."""
    bc, bl, ss, ds = c.params
    if c.api == "DataCopy":
        if c.form == "count":
            n = c.count * c.size // BLK * BLK
            return {"src": (0, 1, n), "dst": (0, 1, n)}
        return {"src": ((bl + ss) * BLK, bc, bl * BLK), "dst": ((bl + ds) * BLK, bc, bl * BLK)}
    if c.kind == "gm2ub":
        row = pad_row_bytes(c)
        return {"src": (bl + ss, bc, bl), "dst": (row + ds * BLK, bc, row)}
    row = -(-bl // BLK) * BLK
    return {"src": (row + ss * BLK, bc, bl), "dst": (bl + ds, bc, bl)}


def span_bytes(step, rows, last):
    return 0 if rows <= 0 or last <= 0 else (rows - 1) * max(step, 0) + last


def units(p, api):
    """[(api, kind, form, dtype)] of ``api`` on profile ``p``."""
    a = p.api(api)
    if not a.supported:
        return []
    kinds = ["gm2ub", "ub2gm"]
    if api == "DataCopy" and a.ub_to_ub:
        kinds.append("ub2ub")
    out = [(api, k, f, dt) for k in kinds for f in FORMS[api] for dt in a.dtypes]
    return out + (LAY.units(p) if api == "DataCopy" else [])


def _value_of_bits(bits, d):
    """The value of T with bit pattern ``bits`` as passed to both implementations: a NumPy scalar of
    T; for complex32 a Python complex (docs/MODEL.md: a complex scalar is given as a number, each
    part converted to half), its halves from the bits (real part low), a NaN part as 0.0 (a NaN
    scalar's payload and sign are not modelled)."""
    bits &= (1 << d.bits) - 1
    if d.name == "complex32":
        parts = np.array([bits & 0xFFFF, bits >> 16], np.uint16).view(np.float16).astype(float)
        return complex(*(0.0 if v != v else float(v) for v in parts))
    return np.array([bits], d.bits_dtype).view(d.np_dtype)[0]


def _traced_values(values, d):
    """A column of values for the traced path: complex32 as the bit patterns of the numbers (a
    traced complex32 scalar is its uint32 element, ascend_jax.api.data_copy._scalar_bytes)."""
    if d.name == "complex32":
        return np.array([np.array([v.real, v.imag], np.float16).view(np.uint32)[0] for v in values])
    return np.array(values)


def reg_value(c):
    """SetPadValue's value: T's value from ``reg_bits`` (T under 8 bytes; ``_value_of_bits``)."""
    return _value_of_bits(c.reg_bits, _dt.as_dtype(c.dtype))


def pad_value(c):
    """paddingValue as passed to both implementations: a NumPy scalar of T from ``pad_bits``; a
    Python int for 64-bit T (the API accepts only a static 0 there)."""
    d = _dt.as_dtype(c.dtype)
    if d.itemsize == 8:
        return int(c.pad_bits)
    return _value_of_bits(c.pad_bits, d)


# -- generation -----------------------------------------------------------------------------------


def _place(rng, limit, align, span, fault_rate):
    """An address for ``span`` bytes in ``[0, limit)``: mostly inside and aligned (sometimes at
    either end); with ``fault_rate`` misaligned, at or past the end, or negative."""
    hi = max(limit - span, 0)
    u = rng.random()
    if u < 0.1:
        a = 0
    elif u < 0.2:
        a = hi // align * align
    else:
        a = int(rng.integers(0, hi // align + 1)) * align
    u = rng.random()
    if u < fault_rate / 3 and align > 1:
        a += int(rng.integers(1, align))
    elif u < 2 * fault_rate / 3:
        a = limit - align * int(rng.integers(0, 3))
    elif u < fault_rate:
        a = -align * int(rng.integers(1, 3))
    return a


def _pick(rng, options):
    return int(options[int(rng.integers(len(options)))])


def _datacopy_params(rng, form, E, nb, fault_rate):
    if form == "count":
        blocks = _pick(rng, [1, 1, 2, 3, nb, int(rng.integers(1, nb + 1)), int(rng.integers(1, nb + 1))])
        if rng.random() < 0.03:
            blocks = 0
        count = blocks * E
        if E > 1 and rng.random() < fault_rate / 2:
            count += int(rng.integers(1, E))  # count*sizeof(T) not 32-byte aligned: traced BAD_PARAM
        return count, (1, 0, 0, 0)
    bc = _pick(rng, [1, 1, 2, 3, 4, int(rng.integers(1, 9))])
    bl = _pick(rng, [1, 2, 3, int(rng.integers(1, nb // bc + 1))])
    bl = min(bl, nb // bc)
    gaps = (
        [0, 0]
        if rng.random() < 0.4
        else [_pick(rng, [0, 1, 2, 3, 8, int(rng.integers(0, 17))]) for _ in "sd"]
    )
    if rng.random() < 0.03:
        gaps[int(rng.integers(2))] = _pick(rng, [65535, 4096, int(rng.integers(17, 65536))])
    prm = [bc, bl] + gaps
    if rng.random() < 0.04:
        prm[int(rng.integers(2))] = 0  # zero blocks: nop
    if rng.random() < fault_rate / 2:
        k = int(rng.integers(4))
        prm[k] = _pick(rng, [4096, 5000]) if k == 0 else _pick(rng, [65536, 70000, -1])
    return 0, tuple(prm)


def _pad_params(rng, p, kind, size, nb, fault_rate):
    a = p.api("DataCopyPad")
    E = BLK // size
    bc = _pick(rng, [1, 1, 2, 3, 5, int(rng.integers(1, 9))])
    elems = _pick(rng, [1, E - 1, E, E + 1, 2 * E, int(rng.integers(1, 121))]) or 1
    lp = rp = 0
    if kind == "gm2ub":
        lp = int(rng.integers(0, E + 1)) if rng.random() < 0.4 else 0
        rp = int(rng.integers(0, E + 1)) if rng.random() < 0.4 else 0
    # fit the bucket
    while True:
        bl = elems * size
        used = bc * (-(-(lp * size + bl + rp * size) // BLK)) if kind == "gm2ub" else -(-bc * bl // BLK)
        if used <= nb:
            break
        if bc > 1:
            bc -= 1
        else:
            elems = max(1, elems // 2)
    gs = 0 if rng.random() < 0.4 else _pick(rng, [1, size, 3, 32, 64, int(rng.integers(0, 65))])
    us = 0 if rng.random() < 0.5 else _pick(rng, [1, 2, 3])
    if kind == "gm2ub" and a.negative_src_stride and rng.random() < 0.25:
        gs = -int(rng.integers(0, bl + 1))  # SPEC (950): GM->UB srcStride in [-blockLen, 2^40-1]
    if rng.random() < 0.03:  # far apart: mostly past the arena
        gs = _pick(rng, [4096, 2**20, MAX_GM_STRIDE, int(rng.integers(0, MAX_GM_STRIDE + 1))])
    if rng.random() < 0.03:
        hi = min(int(a.ub_stride_max), MAX_UB_STRIDE)
        us = _pick(rng, [128, hi, int(rng.integers(0, hi + 1))])
    prm = [bc, bl, gs, us] if kind == "gm2ub" else [bc, bl, us, gs]
    if rng.random() < 0.04:
        prm[int(rng.integers(2))] = 0  # zero blocks / zero bytes: nop
    pad = [lp, rp]
    if rng.random() < fault_rate / 2:  # traced values out of range: BAD_PARAM
        opts = ["blockCount", "padding"] + (["blockLen"] if size > 1 else [])
        if kind == "gm2ub" and a.negative_src_stride and bl > 0:
            opts.append("negative")
        if a.ub_stride_max < 2**31 - 1:
            opts.append("ub_stride")
        k = opts[int(rng.integers(len(opts)))]
        if k == "blockCount":
            prm[0] = 4096
        elif k == "blockLen":
            prm[1] += 1
        elif k == "padding":
            pad[int(rng.integers(2))] = _pick(rng, [E + 1, -1])
        elif k == "negative":
            prm[2] = -prm[1] - size
        else:
            prm[3 if kind == "gm2ub" else 2] = int(a.ub_stride_max) + 1
    return tuple(prm), tuple(pad)


def random_copy_case(
    rng, p, api, kind, form, dtype, fault_rate=0.08, ub_bytes=UB_BYTES, gm_bytes=GM_BYTES, nb=NB
):
    p = as_profile(p)
    d = _dt.as_dtype(dtype)
    size = d.itemsize
    count, prm, pad, is_pad, bits, reg = 0, (1, 0, 0, 0), (0, 0), False, 0, -1
    layout = ()
    if form in LAY.LAYOUT_FORMS:
        layout = LAY.random_layout(rng, p, form, size, d.kind == "complex")
    elif api == "DataCopy":
        count, prm = _datacopy_params(rng, form, BLK // size, nb, fault_rate)
    else:
        prm, pad = _pad_params(rng, p, kind, size, nb, fault_rate)
        if kind == "gm2ub":
            is_pad = bool(rng.random() < 0.5)
            if size < 8 and rng.random() < 0.7:
                bits = int(rng.integers(0, 2 ** (8 * size), dtype=np.uint64))
            # SetPadValue first (where the product has it; T under 8 bytes, not complex: traced values)
            sp = p.api("SetPadValue")
            if (
                sp.supported
                and d.name in sp.dtypes
                and size < 8
                and d.kind != "complex"
                and rng.random() < 0.4
            ):
                reg = int(rng.integers(0, 2 ** (8 * size), dtype=np.uint64))
    regs = draw_registers(rng, p, p.lanes(d))
    c = CopyCase(
        api=api,
        kind=kind,
        form=form,
        dtype=d.name,
        count=count,
        params=prm,
        is_pad=is_pad,
        pad=pad,
        pad_bits=bits,
        reg_bits=reg,
        **regs.case_fields(),
        ub_seed=int(rng.integers(0, 2**31)),
        gm_seed=int(rng.integers(0, 2**31)),
        ub_bytes=ub_bytes,
        gm_bytes=gm_bytes,
        nb=nb,
        layout=layout,
    )
    if layout:
        sp = {side: (0, 1, n) for side, n in LAY.spans(c).items()}
    else:
        sp = spans(c) if _in_bucket_ranges(c) else {"src": (0, 1, BLK), "dst": (0, 1, BLK)}
    addr = {}
    for side in ("src", "dst"):
        on_ub = (kind[:2] if side == "src" else kind[-2:]) == "ub"
        limit = ub_bytes if on_ub else gm_bytes
        align = p.operand_alignment_bytes if on_ub else (size if api == "DataCopy" else 1)
        if not on_ub and api == "DataCopyPad" and rng.random() < 0.5:
            align = size  # element-aligned GM offsets are the common case
        addr[side] = _place(rng, limit, align, span_bytes(*sp[side]), fault_rate)
    if kind == "ub2ub" and rng.random() < 0.2:  # all reads happen before any write
        addr["dst"] = addr["src"] + BLK * _pick(rng, [0, 1, 2, -1, 8])
    return dataclasses.replace(c, src=addr["src"], dst=addr["dst"])


def _in_bucket_ranges(c):
    bc, bl = c.params[:2]
    return 0 <= bc <= 4095 and 0 <= bl <= 65535 and min(c.params[2:]) >= -bl


# -- generation, many cases at once (``Family.generate_many``) ----------------------------------------

_KIND_CODES = {k: j for j, k in enumerate(KINDS)}


def _place_many(slots, limit, align, span, fault_rate):
    """``_place`` for every case (``limit``, ``align``, ``span``: per case; seven draws)."""
    hi = np.maximum(limit - span, 0)
    u = slots.random()
    a = np.where(
        u < 0.1, 0, np.where(u < 0.2, hi // align * align, D.ints(slots, 0, hi // align + 1) * align)
    )
    u = slots.random()
    mis = D.ints(slots, 1, align)
    end = limit - align * slots.below(3)
    neg = -align * D.ints(slots, 1, 3)
    c1 = (u < fault_rate / 3) & (align > 1)
    c2 = ~c1 & (u < 2 * fault_rate / 3)
    c3 = ~c1 & ~c2 & (u < fault_rate)
    return np.where(c1, a + mis, np.where(c2, end, np.where(c3, neg, a)))


def _datacopy_params_many(slots, E, nb, fault_rate):
    """``_datacopy_params`` of both forms for every case: (count, params (n, 4)); the caller keeps
    the form's."""
    n = len(slots)
    # count form
    blocks = D.choose(slots, [1, 1, 2, 3, nb, D.ints(slots, 1, nb + 1), D.ints(slots, 1, nb + 1)])
    blocks = np.where(slots.random() < 0.03, 0, blocks)
    count = blocks * E
    extra = D.ints(slots, 1, E)
    count = np.where((E > 1) & (slots.random() < fault_rate / 2), count + extra, count)
    # params form
    bc = D.choose(slots, [1, 1, 2, 3, 4, D.ints(slots, 1, 9)])
    bl = D.choose(slots, [1, 2, 3, D.ints(slots, 1, nb // bc + 1)])
    bl = np.minimum(bl, nb // bc)
    no_gap = slots.random() < 0.4
    gaps = np.stack([D.choose(slots, [0, 1, 2, 3, 8, D.ints(slots, 0, 17)]) for _ in "sd"], 1)
    gaps = np.where(no_gap[:, None], 0, gaps)
    far = slots.random() < 0.03
    which = slots.below(2)
    big = D.choose(slots, [65535, 4096, D.ints(slots, 17, 65536)])
    for k in range(2):
        gaps[:, k] = np.where(far & (which == k), big, gaps[:, k])
    prm = np.concatenate([np.stack([bc, bl], 1), gaps], 1)
    zero = slots.random() < 0.04
    which = slots.below(2)
    for k in range(2):
        prm[:, k] = np.where(zero & (which == k), 0, prm[:, k])
    bad = slots.random() < fault_rate / 2
    k = slots.below(4)
    v0 = D.choose(slots, [4096, 5000])
    v1 = D.choose(slots, [65536, 70000, -1])
    for j in range(4):
        prm[:, j] = np.where(bad & (k == j), v0 if j == 0 else v1, prm[:, j])
    assert len(prm) == n
    return count, prm


_PAD_OPTS = ("blockCount", "padding", "blockLen", "negative", "ub_stride")


def _pad_params_many(slots, p, gm2ub, size, fault_rate):
    """``_pad_params`` for every case (``gm2ub``, ``size``: per case): (params (n, 4), pad (n, 2))."""
    n = len(slots)
    a = p.api("DataCopyPad")
    E = BLK // size
    bc = D.choose(slots, [1, 1, 2, 3, 5, D.ints(slots, 1, 9)])
    elems = D.choose(slots, [1, E - 1, E, E + 1, 2 * E, D.ints(slots, 1, 121)])
    elems = np.where(elems == 0, 1, elems)
    u_l, v_l = slots.random(), D.ints(slots, 0, E + 1)
    u_r, v_r = slots.random(), D.ints(slots, 0, E + 1)
    lp = np.where(gm2ub & (u_l < 0.4), v_l, 0)
    rp = np.where(gm2ub & (u_r < 0.4), v_r, 0)
    # fit the bucket (the scalar loop, every case at once: bc shrinks first, then elems halves)
    while True:
        bl = elems * size
        used = np.where(gm2ub, bc * (-(-(lp * size + bl + rp * size) // BLK)), -(-bc * bl // BLK))
        over = used > NB
        if not over.any():
            break
        shrink_bc = over & (bc > 1)
        bc = np.where(shrink_bc, bc - 1, bc)
        elems = np.where(over & ~shrink_bc, np.maximum(1, elems // 2), elems)
    u = slots.random()
    gs = np.where(u < 0.4, 0, D.choose(slots, [1, size, 3, 32, 64, D.ints(slots, 0, 65)]))
    u = slots.random()
    us = np.where(u < 0.5, 0, D.choose(slots, [1, 2, 3]))
    neg_ok = gm2ub & bool(a.negative_src_stride)
    u, v = slots.random(), D.ints(slots, 0, bl + 1)
    gs = np.where(neg_ok & (u < 0.25), -v, gs)  # SPEC (950): GM->UB srcStride in [-blockLen, 2^40-1]
    u = slots.random()
    far = D.choose(slots, [4096, 2**20, MAX_GM_STRIDE, D.ints(slots, 0, MAX_GM_STRIDE + 1)])
    gs = np.where(u < 0.03, far, gs)
    hi = min(int(a.ub_stride_max), MAX_UB_STRIDE)
    u = slots.random()
    far = D.choose(slots, [128, hi, D.ints(slots, 0, hi + 1)])
    us = np.where(u < 0.03, far, us)
    prm = np.stack([bc, bl, np.where(gm2ub, gs, us), np.where(gm2ub, us, gs)], 1)
    zero = slots.random() < 0.04
    which = slots.below(2)
    for k in range(2):
        prm[:, k] = np.where(zero & (which == k), 0, prm[:, k])
    pad = np.stack([lp, rp], 1)
    # traced values out of range (BAD_PARAM): one of the options the case has
    bad = slots.random() < fault_rate / 2
    has = np.stack(
        [
            np.ones(n, bool),
            np.ones(n, bool),
            size > 1,
            neg_ok & (bl > 0),
            np.full(n, a.ub_stride_max < 2**31 - 1),
        ],
        1,
    )
    order = np.argsort(~has, axis=1, kind="stable")  # each case's options first, in _PAD_OPTS order
    opt = order[np.arange(n), slots.below(has.sum(1))]
    which = slots.below(2)
    pv = D.choose(slots, [E + 1, -1])
    prm[:, 0] = np.where(bad & (opt == 0), 4096, prm[:, 0])
    for k in range(2):
        pad[:, k] = np.where(bad & (opt == 1) & (which == k), pv, pad[:, k])
    prm[:, 1] = np.where(bad & (opt == 2), prm[:, 1] + 1, prm[:, 1])
    prm[:, 2] = np.where(bad & (opt == 3), -prm[:, 1] - size, prm[:, 2])
    ubs = int(a.ub_stride_max) + 1
    prm[:, 3] = np.where(bad & (opt == 4) & gm2ub, ubs, prm[:, 3])
    prm[:, 2] = np.where(bad & (opt == 4) & ~gm2ub, ubs, prm[:, 2])
    return prm, pad


def _span_many(step, nrows, last):
    """``span_bytes`` over arrays."""
    return np.where((nrows <= 0) | (last <= 0), 0, (nrows - 1) * np.maximum(step, 0) + last)


def random_copy_cases_many(slots, p, units, fault_rate=0.08, ub_bytes=UB_BYTES, gm_bytes=GM_BYTES, nb=NB):
    """``random_copy_case`` for many cases at once, one a unit ``(api, kind, form, dtype)`` of
    ``units``, drawn from ``slots`` (``rng.Slots``) in a fixed layout (``families.draw``): the same
    distribution of counts, parameters, paddings, registers, seeds and addresses. The layout forms'
    static tuple (``data_copy_layout.random_layout``, a few cases) is drawn case by case from a
    stream seeded by one word of the case's own stream (drawn for every case)."""
    p = as_profile(p)
    n = len(units)
    uniq, ui = D.unit_index(units)
    size = D.per_unit(uniq, ui, lambda u: _dt.as_dtype(u[3]).itemsize)
    L = D.per_unit(uniq, ui, lambda u: p.lanes(_dt.as_dtype(u[3])))
    is_dc = D.per_unit(uniq, ui, lambda u: u[0] == "DataCopy", bool)
    is_count = D.per_unit(uniq, ui, lambda u: u[2] == "count", bool)
    is_lay = D.per_unit(uniq, ui, lambda u: u[2] in LAY.LAYOUT_FORMS, bool)
    kind = D.per_unit(uniq, ui, lambda u: _KIND_CODES[u[1]])
    gm2ub = kind == 0
    sp = p.api("SetPadValue")
    reg_ok = D.per_unit(
        uniq,
        ui,
        lambda u: (
            sp.supported
            and u[3] in sp.dtypes
            and _dt.as_dtype(u[3]).itemsize < 8
            and _dt.as_dtype(u[3]).kind != "complex"
        ),
        bool,
    )
    E = BLK // size
    lay_seed = slots.word()
    count, dc_prm = _datacopy_params_many(slots, E, nb, fault_rate)
    pad_prm, pad = _pad_params_many(slots, p, gm2ub, size, fault_rate)
    pad_gm2ub = ~is_dc & gm2ub
    is_pad = pad_gm2ub & (slots.random() < 0.5)
    nbits = np.minimum(8 * size, 63)  # 64-bit T draws no pattern (the value is never kept)
    u, v = slots.random(), slots.below(np.left_shift(1, nbits))
    bits = np.where(pad_gm2ub & (size < 8) & (u < 0.7), v, 0)
    u, v = slots.random(), slots.below(np.left_shift(1, nbits))
    reg = np.where(pad_gm2ub & reg_ok & (u < 0.4), v, -1)
    regs = D.draw_many(slots, p, L)
    ub_seed, gm_seed = slots.below(2**31), slots.below(2**31)
    count = np.where(is_dc & is_count, count, 0)
    prm = np.where(
        is_lay[:, None],
        [1, 0, 0, 0],
        np.where(is_dc[:, None], np.where(is_count[:, None], [1, 0, 0, 0], dc_prm), pad_prm),
    )
    pad = np.where(pad_gm2ub[:, None], pad, 0)
    # the layout forms' static tuples
    layout = [()] * n
    for j in np.flatnonzero(is_lay).tolist():
        _, _, form, dt = units[j]
        d = _dt.as_dtype(dt)
        layout[j] = LAY.random_layout(CaseRng((int(lay_seed[j]),)), p, form, d.itemsize, d.kind == "complex")
    # the spans of both sides (valid parameters; out of the bucket's ranges a block)
    bc, bl, ss, ds = prm.T
    nbytes = count * size // BLK * BLK
    row_pad = -(-(pad[:, 0] * size + bl + pad[:, 1] * size) // BLK) * BLK
    row_ub = -(-bl // BLK) * BLK

    def side(stride, pad_form):
        # DataCopy (the count form, or blocks of bl with a stride) or DataCopyPad's ``pad_form``
        copy = np.where(
            is_count[:, None],
            np.stack([0 * bc, 1 + 0 * bc, nbytes], 1),
            np.stack([(bl + stride) * BLK, bc, bl * BLK], 1),
        )
        return np.where(is_dc[:, None], copy, pad_form)

    to_ub = gm2ub[:, None]
    src_sp = side(
        ss, np.where(to_ub, np.stack([bl + ss, bc, bl], 1), np.stack([row_ub + ss * BLK, bc, bl], 1))
    )
    dst_sp = side(
        ds, np.where(to_ub, np.stack([row_pad + ds * BLK, bc, row_pad], 1), np.stack([bl + ds, bc, bl], 1))
    )
    in_ranges = (bc >= 0) & (bc <= 4095) & (bl >= 0) & (bl <= 65535) & (np.minimum(ss, ds) >= -bl)
    span = {
        "src": np.where(in_ranges, _span_many(*src_sp.T), BLK),
        "dst": np.where(in_ranges, _span_many(*dst_sp.T), BLK),
    }
    cols = dict(
        api=[u[0] for u in units],
        kind=[u[1] for u in units],
        form=[u[2] for u in units],
        dtype=[_dt.as_dtype(u[3]).name for u in units],
        src=0,
        dst=0,
        count=count.tolist(),
        params=D.tuples(prm),
        is_pad=is_pad.tolist(),
        pad=D.tuples(pad),
        pad_bits=bits.tolist(),
        reg_bits=reg.tolist(),
        src_dtype="",
        **D.mask_fields(regs.vmask, regs.mask_mode, regs.ctrl),
        cmpmask=D.tuples(regs.cmpmask),
        rsvd_init=regs.rsvd_cnt.tolist(),
        ub_seed=ub_seed.tolist(),
        gm_seed=gm_seed.tolist(),
        ub_bytes=ub_bytes,
        gm_bytes=gm_bytes,
        nb=nb,
        layout=layout,
    )
    for j in np.flatnonzero(is_lay).tolist():
        # the fields LAY.spans reads (form, layout, size)
        c = types.SimpleNamespace(form=units[j][2], layout=layout[j], size=int(size[j]))
        for side, m in LAY.spans(c).items():
            span[side][j] = span_bytes(0, 1, m)
    addr = {}
    for side, on_ub in (("src", kind != 0), ("dst", kind != 1)):  # src / dst on UB
        limit = np.where(on_ub, ub_bytes, gm_bytes)
        align = np.where(on_ub, p.operand_alignment_bytes, np.where(is_dc, size, 1))
        align = np.where(~on_ub & ~is_dc & (slots.random() < 0.5), size, align)
        addr[side] = _place_many(slots, limit, align, span[side], fault_rate)
    u = slots.random()
    near = addr["src"] + BLK * D.choose(slots, [0, 1, 2, -1, 8])
    addr["dst"] = np.where((kind == 2) & (u < 0.2), near, addr["dst"])
    cols["src"], cols["dst"] = addr["src"].tolist(), addr["dst"].tolist()
    return D.build(CopyCase, n, cols)


# -- initial memory image ------------------------------------------------------------------------


def initial_image(c):
    """UB bytes (from ``ub_seed``) followed by GM buffer 0 (from ``gm_seed``)."""
    ub = random_ub(c.ub_seed, c.ub_bytes)
    gm = np.random.default_rng([c.gm_seed, 1]).integers(0, 256, c.gm_bytes, dtype=np.uint8)
    return np.concatenate([ub, gm])


# -- calls ----------------------------------------------------------------------------------------


def _tensor(side, dtype, addr, nbytes):
    n = max(1, nbytes // dtype.itemsize)
    return LocalTensor(dtype, addr, n) if side == "ub" else GlobalTensor(dtype, 0, addr, n)


def _split(mod, st, U):
    if _is_reference(mod):
        img = np.asarray(st.ub, np.uint8)
        return dataclasses.replace(st, ub=img[:U].copy()), [img[U:].copy()]
    return st.replace(ub=st.ub[:U]), (st.ub[U:],)


def _join(mod, st, gm):
    if _is_reference(mod):
        return dataclasses.replace(st, ub=np.concatenate([np.asarray(st.ub, np.uint8), np.asarray(gm[0])]))
    return st.replace(ub=jnp.concatenate([st.ub, jnp.asarray(gm[0], jnp.uint8)]))


def call(mod, c, st, p, dyn=None):
    """Call ``c.api`` of ``mod`` (the reference, or ascend_jax with the traced values ``dyn``;
    without ``dyn`` every argument is a Python / NumPy value) on the image ``st.ub``. Returns the
    state with the joined image."""
    T = dyn or {}

    def g(name, default):
        return T[name] if name in T else default

    d = _dt.as_dtype(c.dtype)
    sd = _dt.as_dtype(c.src_dtype or c.dtype)
    st, gm = _split(mod, st, c.ub_bytes)
    span = c.nb * BLK
    src = _tensor(c.kind[:2], sd, g("src", c.src), span)
    dst = _tensor(c.kind[-2:], d, g("dst", c.dst), span)
    kw = {"profile": p}
    if not _is_reference(mod):
        kw["max_blocks"] = c.nb
    if c.form in LAY.LAYOUT_FORMS:
        x, extra, lkw = LAY.arguments(c)
        st, gm = mod.DataCopy(st, gm, dst, src, x, *extra, profile=p, **lkw)
        return _join(mod, st, gm)
    prm = tuple(g(f"p{i}", c.params[i]) for i in range(4))
    if c.api == "DataCopy":
        x = g("count", c.count) if c.form == "count" else DataCopyParams(*prm)
        st, gm = mod.DataCopy(st, gm, dst, src, x, **kw)
        return _join(mod, st, gm)
    x = DataCopyExtParams(*prm, 0) if c.form == "ext" else DataCopyParams(*prm)
    if c.kind == "gm2ub":
        if c.reg_bits >= 0:
            st = mod.SetPadValue(st, d, g("rv", reg_value(c)), profile=p)
        cls = DataCopyPadExtParams if c.form == "ext" else DataCopyPadParams
        pad = cls(bool(c.is_pad), g("lp", c.pad[0]), g("rp", c.pad[1]), g("pv", pad_value(c)))
        st, gm = mod.DataCopyPad(st, gm, dst, src, x, pad, **kw)
    else:
        st, gm = mod.DataCopyPad(st, gm, dst, src, x, **kw)
    return _join(mod, st, gm)


def stack_dyn(cases, p):
    """The traced values of a batch of one signature."""

    def col(f):
        # int32 when the values fit; uint32 for the documented [0, 2^32-1] strides above 2^31-1
        # (the fast path range-checks uint32 exactly); a column mixing negative (950 GM strides)
        # and such large values saturates at 2^31-1: still out of every range and span, so the
        # same fault as the true value
        v = np.array([f(c) for c in cases], np.int64)
        if v.min() >= -(2**31) and v.max() < 2**31:
            return v.astype(np.int32)
        if v.min() >= 0 and v.max() < 2**32:
            return v.astype(np.uint32)
        return np.clip(v, -(2**31), 2**31 - 1).astype(np.int32)

    c0 = cases[0]
    dyn = {"src": col(lambda c: c.src), "dst": col(lambda c: c.dst)}
    if c0.form in LAY.LAYOUT_FORMS:
        return dyn
    if c0.form == "count":
        dyn["count"] = col(lambda c: c.count)
    else:
        for i in range(4):
            dyn[f"p{i}"] = col(lambda c, i=i: c.params[i])
    if c0.api == "DataCopyPad" and c0.kind == "gm2ub":
        dyn["lp"] = col(lambda c: c.pad[0])
        dyn["rp"] = col(lambda c: c.pad[1])
        if c0.size < 8:
            dyn["pv"] = _traced_values([pad_value(c) for c in cases], _dt.as_dtype(c0.dtype))
        if c0.reg_bits >= 0:
            dyn["rv"] = _traced_values([reg_value(c) for c in cases], _dt.as_dtype(c0.dtype))
    return dyn


# -- static rules (docs/MODEL.md "Checks and faults", static) ------------------------------------


def static_error(c, p):
    """(UsageError, fault bit the reference records for the same values at run time, or 0 when
    the rule has no run-time counterpart) of the first static rule the call breaks, or None."""
    p = as_profile(p)
    api, d = c.api, _dt.as_dtype(c.dtype)
    size = d.itemsize
    a = p.api(api)

    def err(arg, value, allowed, bit=0, detail=""):
        return UsageError(api, arg, value, allowed, p, detail), int(bit)

    if c.form in LAY.LAYOUT_FORMS:
        e = LAY.static_error(c, p)
        if e is not None:
            return e, int(Fault.BAD_PARAM)
        for side, n in LAY.spans(c).items():  # a static GM access outside its buffer
            base = getattr(c, side)
            if (
                (c.kind[:2] if side == "src" else c.kind[-2:]) == "gm"
                and n
                and (base < 0 or base + n > c.gm_bytes)
            ):
                return err(side, f"bytes [{base}, {base + n})", f"inside [0, {c.gm_bytes})", OUT_OF_GM)
        return None
    if api == "DataCopyPad" and c.kind == "ub2ub":
        return err("dst/src", "LocalTensor, LocalTensor", "GM -> UB or UB -> GM")
    if c.src_dtype and c.src_dtype != c.dtype:
        return err("src.dtype", c.src_dtype, c.dtype)
    if d.name not in a.dtypes:
        return UnsupportedError(api, "dtype", d.name, ", ".join(a.dtypes), p), 0
    if api == "DataCopy" and c.kind == "ub2ub" and not a.ub_to_ub:
        return err("dst/src", "LocalTensor, LocalTensor", "GM <-> UB only")
    bad = int(Fault.BAD_PARAM)
    bc, bl, ss, ds = c.params
    if api == "DataCopy":
        if c.form == "count":
            # SPEC: count*sizeof(T) must be 32-byte aligned (the profile may round down instead)
            unaligned = (c.count * size) % BLK and a.count_unaligned == "error"
            if c.count < 0 or unaligned:
                return err("count", c.count, "a multiple of 32 bytes", bad)
            if c.count > p.ub_usable_bytes // size:
                return err("count", c.count, "<= ub_usable_bytes / sizeof(T)")
        else:
            # SPEC: "const DataCopyParams& repeatParams" (GM与UB高维切分数据搬运(DataCopy).md)
            for name, v, hi in (("blockCount", bc, 4095), ("blockLen", bl, 65535)) + (
                ("srcStride", ss, 65535),
                ("dstStride", ds, 65535),
            ):
                if not 0 <= v <= hi:
                    return err(f"repeatParams.{name}", v, f"[0, {hi}]", bad)
    else:
        # SPEC: "const DataCopyExtParams& dataCopyParams", "const DataCopyPadExtParams<T>& padParams"
        for name, v, hi in (("blockCount", bc, 4095), ("blockLen", bl, 2097151)):
            if not 0 <= v <= hi:
                return err(f"dataCopyParams.{name}", v, f"[0, {hi}]", bad)
        if bl % size:
            return err("dataCopyParams.blockLen", bl, f"a multiple of sizeof(T) = {size}", bad)
        gm_side = "src" if c.kind == "gm2ub" else "dst"
        neg = a.negative_src_stride and c.kind == "gm2ub"
        for name, v in (("srcStride", ss), ("dstStride", ds)):
            if name[:3] == gm_side:
                lo = -bl if neg else 0
                ok = lo <= v <= 2**32 - 1
                allowed = f"[{lo}, 2^32-1]"
            else:
                hi = a.ub_stride_max
                ok = 0 <= v <= hi
                allowed = f"[0, {hi}]"
            if not ok:
                return err(f"dataCopyParams.{name}", v, allowed, bad)
        if c.kind == "gm2ub":
            for name, v in zip(("leftPadding", "rightPadding"), c.pad, strict=True):
                if not 0 <= v <= BLK // size:
                    return err(f"padParams.{name}", v, f"[0, {BLK // size}]", bad)
            if size == 8 and c.pad_bits != 0:
                return err("padParams.paddingValue", c.pad_bits, "0 (64-bit T)")
    # a GM access outside its buffer, every value being static (dst checked before src)
    sp = spans(c)
    for side in ("dst", "src"):
        if (c.kind[:2] if side == "src" else c.kind[-2:]) != "gm":
            continue
        base = getattr(c, side)
        n = span_bytes(*sp[side])
        if n and (base < 0 or base + n > c.gm_bytes):
            return err(side, f"bytes [{base}, {base + n})", f"inside [0, {c.gm_bytes})", OUT_OF_GM)
    return None


def call_static(mod, c, st, p):
    """Every argument a Python / NumPy value. The reference side raises ``static_error``'s
    UsageError when the literal reference agrees (records the rule's run-time fault bit)."""
    if not _is_reference(mod):
        return call(mod, c, st, p)
    e = static_error(c, p)
    if e is not None and e[1] == 0:
        raise e[0]
    out = call(mod, c, st, p)
    if e is not None and int(out.fault) & e[1]:
        raise e[0]
    return out


# -- labels ----------------------------------------------------------------------------------------


def labels(c):
    """(direction/form, size regime of the slots, stride regime)."""
    if c.form in LAY.LAYOUT_FORMS:
        return LAY.labels(c)
    n = slots(c) if _in_bucket_ranges(c) else -1
    size = "bad" if n < 0 else ("0" if n == 0 else ("1" if n == 1 else ("bucket" if n >= c.nb else "mid")))
    bc, bl, ss, ds = c.params
    if c.form == "count":
        stride = "contiguous"
    elif min(ss, ds) < 0:
        stride = "negative"
    elif ss or ds:
        stride = "gap"
    else:
        stride = "contiguous"
    if c.api == "DataCopyPad" and c.kind == "gm2ub":
        stride += "/" + ("pad" if any(c.pad) else "nopad") + ("-isPad" if c.is_pad else "")
    if c.kind == "ub2ub" and abs(c.src - c.dst) < max(BLK, span_bytes(*spans(c)["src"])):
        stride += "/overlap"
    return (f"{c.kind}/{c.form}", size, stride)


def footprint(c, side):
    """(image address, bytes) of the region ``side`` may touch (GM sides offset by ub_bytes)."""
    if c.form in LAY.LAYOUT_FORMS:
        sp = {k: (0, 1, n) for k, n in LAY.spans(c).items()}
    else:
        sp = spans(c) if _in_bucket_ranges(c) else {"src": (0, 1, BLK), "dst": (0, 1, BLK)}
    on_ub = (c.kind[:2] if side == "src" else c.kind[-2:]) == "ub"
    a = getattr(c, side)
    n = max(span_bytes(*sp[side]), 1)
    return (a if on_ub else c.ub_bytes + a), n


__all__ = [
    "CopyCase",
    "random_copy_case",
    "units",
    "initial_image",
    "call",
    "call_static",
    "static_error",
    "stack_dyn",
    "labels",
    "slots",
    "spans",
]


# -- the engine's adapter ----------------------------------------------------------------------

_BLK = BLK


class DataCopyFamily(Family):
    name = "data_copy"
    apis = APIS
    case_type = CopyCase

    # -- generation
    def units(self, p, api):
        return units(p, api)

    def unit_dtype(self, unit):
        return unit[3]

    def generate(self, rng, p, unit, fault_rate):
        api, kind, form, dt = unit
        return random_copy_case(rng, p, api, kind, form, dt, fault_rate=fault_rate)

    draw_many = staticmethod(random_copy_cases_many)

    def invalid_static(self, rng, p, case):
        """One static misuse (``static_error`` names the argument both sides must name)."""
        rep = dataclasses.replace
        if case.form in LAY.LAYOUT_FORMS:
            layout, what = LAY.inject_static(rng, case)
            return rep(case, layout=layout), what
        c = _one_block_at_least(case)
        a = p.api(c.api)
        size = c.size
        bc, bl, ss, ds = c.params
        opts = []
        if c.api == "DataCopy":
            if c.form == "count":
                E = _BLK // size
                opts.append((rep(c, count=c.count // E * E + 1), "count"))
                cap = p.ub_usable_bytes // size
                opts.append((rep(c, count=(cap // E + 1) * E), "count"))
            else:
                k = int(rng.integers(4))
                names = tuple(
                    f"repeatParams.{n}" for n in ("blockCount", "blockLen", "srcStride", "dstStride")
                )
                prm = list(c.params)
                prm[k] = 4096 if k == 0 else 65536
                opts.append((rep(c, params=tuple(prm)), names[k]))
        else:
            opts.append((rep(c, params=(4096, bl, ss, ds)), "dataCopyParams.blockCount"))
            opts.append((rep(c, params=(bc, 2097152, ss, ds)), "dataCopyParams.blockLen"))
            if size > 1:
                opts.append((rep(c, params=(bc, bl + 1, ss, ds)), "dataCopyParams.blockLen"))
            if c.kind == "gm2ub":
                k = int(rng.integers(2))
                pad = list(c.pad)
                pad[k] = _BLK // size + 1
                opts.append((rep(c, pad=tuple(pad)), ("padParams.leftPadding", "padParams.rightPadding")[k]))
                if a.negative_src_stride:
                    opts.append((rep(c, params=(bc, bl, -bl - size, ds)), "dataCopyParams.srcStride"))
                if size == 8:
                    opts.append((rep(c, pad_bits=1), "padParams.paddingValue"))
            # the UB-side stride past its maximum, the GM-side one past uint32 (static: no int32 limit)
            hi = a.ub_stride_max
            if c.kind == "gm2ub":
                opts.append((rep(c, params=(bc, bl, ss, hi + 1)), "dataCopyParams.dstStride"))
                opts.append((rep(c, params=(bc, bl, 2**32, ds)), "dataCopyParams.srcStride"))
            else:
                opts.append((rep(c, params=(bc, bl, hi + 1, ds)), "dataCopyParams.srcStride"))
                opts.append((rep(c, params=(bc, bl, ss, 2**32)), "dataCopyParams.dstStride"))
            opts.append((rep(c, kind="ub2ub"), "dst/src"))
        # a GM access past the buffer (static addresses: a usage error)
        gm_sides = [s for s in ("src", "dst") if (c.kind[:2] if s == "src" else c.kind[-2:]) == "gm"]
        if gm_sides and slots(c) > 0:
            s = gm_sides[0]
            opts.append((rep(c, **{s: c.gm_bytes - size * int(rng.integers(0, 3))}), s))
        if c.api == "DataCopy" and c.kind != "ub2ub" and not a.ub_to_ub:
            opts.append((rep(c, kind="ub2ub"), "dst/src"))
        others = [d for d in a.dtypes if d != c.dtype]
        if others:
            opts.append((rep(c, src_dtype=others[int(rng.integers(len(others)))]), "src.dtype"))
        bad = [d for d in ALL_DTYPES if d not in a.dtypes]
        if bad:
            opts.append((rep(c, dtype=bad[int(rng.integers(len(bad)))]), "dtype"))
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        """One data-dependent fault: a misaligned, out-of-UB or out-of-GM address, zero blocks,
        or a traced value out of range."""
        rep = dataclasses.replace
        c = case if case.form in LAY.LAYOUT_FORMS else _one_block_at_least(case)
        ub_sides = [s for s in ("src", "dst") if (c.kind[:2] if s == "src" else c.kind[-2:]) == "ub"]
        gm_sides = [s for s in ("src", "dst") if s not in ub_sides]
        kinds = ["misaligned-ub", "out-of-ub", "zero-blocks", "bad-param"]
        if c.form in LAY.LAYOUT_FORMS:
            kinds = ["misaligned-ub", "out-of-ub", "out-of-gm"]
        if gm_sides:
            kinds.append("out-of-gm")
            if c.api == "DataCopy" and c.size > 1:
                kinds.append("misaligned-gm")
        k = kinds[int(rng.integers(len(kinds)))]
        pick = rng.integers
        if k == "misaligned-ub":
            s = ub_sides[int(pick(len(ub_sides)))]
            return rep(c, **{s: getattr(c, s) + int(rng.choice([1, 2, 4, 8, 16]))}), k
        if k == "misaligned-gm":
            return rep(c, **{gm_sides[0]: getattr(c, gm_sides[0]) + int(pick(1, c.size))}), k
        if k == "out-of-ub":
            s = ub_sides[int(pick(len(ub_sides)))]
            return rep(c, **{s: c.ub_bytes - _BLK * int(pick(0, 3))}), k
        if k == "out-of-gm":
            return rep(c, **{gm_sides[0]: c.gm_bytes - c.size * int(pick(0, 3))}), k
        if k == "zero-blocks":
            if c.form == "count":
                return rep(c, count=0), k
            prm = list(c.params)
            prm[int(pick(2))] = 0
            return rep(c, params=tuple(prm)), k
        if c.form == "count":
            E = _BLK // c.size
            return rep(c, count=c.count // E * E + 1), k
        prm = list(c.params)
        prm[0] = 4096
        return rep(c, params=tuple(prm)), k

    # -- running
    def signature(self, case, p):
        return (self.name,) + case.key()

    def initial_ub(self, case):
        return initial_image(case)

    def stack_dyn(self, cases, p):
        return stack_dyn(cases, p)

    def call(self, mod, case, state, p, dyn=None):
        return call(mod, case, state, p, dyn=dyn), None

    def call_static(self, mod, case, state, p):
        return call_static(mod, case, state, p), None

    # -- reporting
    def labels(self, case, p):
        return labels(case)

    def shrink(self, case, p):
        """Fewer blocks / rows / bytes, no gaps, no padding, registers at their reset value,
        addresses at 0."""
        rep = dataclasses.replace
        out = []
        E = _BLK // case.size
        bc, bl, ss, ds = case.params
        if case.form in LAY.LAYOUT_FORMS:
            pass  # the static layout is kept; registers and addresses shrink below
        elif case.form == "count":
            blocks = case.count // E
            out += [rep(case, count=b * E) for b in smaller_ints(blocks, lo=1)]
        else:
            out += [rep(case, params=(v, bl, ss, ds)) for v in smaller_ints(bc, lo=1)]
            if case.api == "DataCopy":
                out += [rep(case, params=(bc, v, ss, ds)) for v in smaller_ints(bl, lo=1)]
            else:
                n = bl // case.size
                out += [rep(case, params=(bc, v * case.size, ss, ds)) for v in smaller_ints(n, lo=1)]
            if ss or ds:
                out.append(rep(case, params=(bc, bl, 0, 0)))
                out += [rep(case, params=(bc, bl, 0, ds)), rep(case, params=(bc, bl, ss, 0))]
        if any(case.pad):
            out.append(rep(case, pad=(0, 0)))
        if case.is_pad:
            out.append(rep(case, is_pad=False))
        if case.pad_bits:
            out.append(rep(case, pad_bits=0))
        if case.reg_bits >= 0:
            out.append(rep(case, reg_bits=-1))
        default = CopyCase("DataCopy", "gm2ub", "count", "int8")
        if (case.vmask, case.mask_mode, case.cmpmask, case.ctrl, case.rsvd_init) != (
            default.vmask,
            0,
            default.cmpmask,
            default.ctrl,
            0,
        ):
            out.append(
                rep(
                    case,
                    vmask=default.vmask,
                    mask_mode=0,
                    cmpmask=default.cmpmask,
                    ctrl=default.ctrl,
                    rsvd_init=0,
                )
            )
        for s in ("src", "dst"):
            if getattr(case, s) != 0:
                out.append(rep(case, **{s: 0}))
        return [c for c in out if c != case]

    def operands(self, case, p):
        d = _dt.as_dtype(case.dtype)
        ops = []
        for side, role in (("src", "in"), ("dst", "inout")):
            addr, n = footprint(case, side)
            addr = max(0, addr)
            ops.append(Operand(side, addr, n, d.name, role, ("packed", addr)))
        return ops


def _one_block_at_least(c):
    """``c`` moving at least one block (a mutation must have something to fault on)."""
    if slots(c) > 0 or not _in_bucket_ranges(c):
        return c
    E = _BLK // c.size
    if c.form == "count":
        return dataclasses.replace(c, count=E)
    bc, bl, ss, ds = c.params
    return dataclasses.replace(c, params=(max(bc, 1), max(bl, 1 if c.api == "DataCopy" else c.size), ss, ds))
