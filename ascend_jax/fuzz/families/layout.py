"""Fuzz adapter of the data-layout APIs (数据排布转换/: Transpose, TransDataTo5HD; 数据重排（ISASI）/:
Interleave, DeInterleave; docs/MODEL.md "Data layout").

A ``LayoutCase`` is one call, fully concrete (Python ints): the API, the element type, the prototype
(``form``), the addresses, the sizes / TransDataTo5HDParams / count, the registers on entry and the
seed of the initial UB bytes (random bytes; the TransDataTo5HD table form writes its two address
tables into them).

Forms (every prototype the pages show, where the profile lists the dtype):
* Transpose: ``plain`` = ``Transpose(dst, src)``; with ``sharedTmpBuffer`` and a
  ``TransposeParamsExt``: ``b16`` (TRANSPOSE_ND2ND_B16), ``nchw`` (TRANSPOSE_NCHW2NHWC), ``nhwc``
  (TRANSPOSE_NHWC2NCHW), ``none`` (TRANSPOSE_TYPE_NONE);
* TransDataTo5HD: ``list`` (16 + 16 uint64 addresses), ``tensors`` (16 + 16 LocalTensor<T>),
  ``table`` (two LocalTensor<uint64_t> address tables in UB);
* Interleave: ``two`` (src0, src1, count); DeInterleave: ``two`` (src0, src1, count) and ``one``
  (src, srcCount).

Fast path: the public API vmapped over the traced values (``Family.fast_fn``): addresses, sizes,
the TransDataTo5HDParams fields and counts are traced, with the static bucket ``max_repeats =
BUCKET[api]`` (cases never need more, so the model-limit ``BUCKET_OVERFLOW`` never fires). At most
one program per signature (API, dtype, form, sharedTmpBuffer length, bucket): forms whose traced
values batch alike share the program of the jitted core (``run_transpose``: three programs for the
five Transpose forms; ``run_pair``: one for the three Interleave / DeInterleave prototypes).
Reference: ``ascend_jax.reference`` with static Python values.

Traced out of range: the generator draws a few values the pages forbid but only a run time check
can see when traced (hSize*wSize*sizeof(T) not 32-byte aligned, repeatTimes 300, an odd count). The
fast path records ``BAD_PARAM`` (the call suppressed); the reference, which has static values only,
raises the ``UsageError`` of the same rule. ``reference`` maps such a UsageError (argument in
``TRACED_ARGS``) to the input state with ``BAD_PARAM`` (docs/MODEL.md "Data layout": "a traced
parameter out of range records BAD_PARAM alone"); ``call_static`` (deliberately invalid static
calls) never maps.
"""

import dataclasses
import inspect

import numpy as np

from ... import dtypes as _dt
from ...errors import Fault, UnsupportedError, UsageError
from ...reference import state as _rst
from ...tensor import LocalTensor
from .. import regs as _regs
from . import draw as D
from .base import (
    REG_FIELDS,
    case_dataclass,
    random_ub,
    repeat_regime,
    smaller_ints,
)
from .family import Family

APIS = ("Transpose", "TransDataTo5HD", "Interleave", "DeInterleave")
T_FORMS = ("plain", "b16", "nchw", "nhwc", "none")
T_TYPE = {
    "b16": "TRANSPOSE_ND2ND_B16",
    "nchw": "TRANSPOSE_NCHW2NHWC",
    "nhwc": "TRANSPOSE_NHWC2NCHW",
    "none": "TRANSPOSE_TYPE_NONE",
}
HD_FORMS = ("list", "tensors", "table")
UB_BYTES = {"Transpose": 16384, "TransDataTo5HD": 16384, "Interleave": 8192, "DeInterleave": 8192}
# max_repeats (256-byte units) of the traced calls: Transpose moves at most 2*6*64 = 768 bytes,
# TransDataTo5HD runs at most 4 repeats (traced 300 is BAD_PARAM), a pair at most 512 bytes a tensor
BUCKET = {"Transpose": 4, "TransDataTo5HD": 4, "Interleave": 2, "DeInterleave": 2}
C_MAX = 6  # the largest cSize drawn
PAIR_BYTES = 512  # the largest count * sizeof(T) drawn
TRACED_ARGS = {
    "Transpose": {
        "transposeParams.nSize",
        "transposeParams.cSize",
        "transposeParams.hSize",
        "transposeParams.wSize",
        "transposeParams.hSize/transposeParams.wSize",
        "sharedTmpBuffer",  # the size formula with a traced cSize
    },
    "TransDataTo5HD": {
        "nchwconvParams.repeatTimes",
        "nchwconvParams.dstRepStride",
        "nchwconvParams.srcRepStride",
    },
    "Interleave": {"count"},
    "DeInterleave": {"count", "srcCount"},
}
MISUSES = (
    "",
    "src-dtype",  # a second tensor (list) of another element type
    "tmp-dtype",  # Transpose: sharedTmpBuffer not uint8
    "no-params",  # Transpose: sharedTmpBuffer without transposeParams
    "type-nz",  # Transpose: TRANSPOSE_NZ2ND_0213 ("当前不支持")
    "list-15",  # TransDataTo5HD: a dstList of 15 entries
    "no-T",  # TransDataTo5HD: address lists / tables without T
    "table-dtype",  # TransDataTo5HD: a dst address table that is not LocalTensor<uint64_t>
)


@case_dataclass
class LayoutCase:
    api: str
    dtype: str
    form: str  # see the module docstring
    addrs: tuple  # Transpose (dst, src, tmp); 5HD table form (dst table, src table), else ();
    #               pair (dst0, dst1, src0, src1) or (dst0, dst1, src)
    sizes: tuple = ()  # Transpose (nSize, cSize, hSize, wSize)
    params: tuple = ()  # TransDataTo5HD (dstHighHalf, srcHighHalf, repeatTimes, dstRepStride, srcRepStride)
    dst_list: tuple = ()  # TransDataTo5HD: the 16 dst / src DataBlock addresses
    src_list: tuple = ()
    count: int = 0  # Interleave / DeInterleave: count or srcCount
    tmp_len: int = 0  # Transpose: sharedTmpBuffer bytes
    misuse: str = ""  # a static misuse no value expresses (MISUSES); "" for every runnable case
    registers: REG_FIELDS
    ub_seed: int = 0
    ub_bytes: int = 16384

    def call_repr(self):
        d = _dt.as_dtype(self.dtype)
        tail = f"  [misuse: {self.misuse}]" if self.misuse else ""
        if self.api == "Transpose":
            dst, src, tmp = self.addrs
            head = f"Transpose<{d.cpp}>(dst@{dst}, src@{src}"
            if self.form == "plain":
                return f"{head}){tail}"
            n, c, h, w = self.sizes
            return (
                f"{head}, sharedTmpBuffer@{tmp}[{self.tmp_len}], "
                f"TransposeParamsExt{{{n}, {c}, {h}, {w}, TransposeType::{T_TYPE[self.form]}}}){tail}"
            )
        if self.api == "TransDataTo5HD":
            dh, sh, rep, ds, ss = self.params
            flags = ", ".join(str(bool(v)).lower() if v in (0, 1) else str(v) for v in (dh, sh))
            prm = f"TransDataTo5HDParams{{{flags}, {rep}, {ds}, {ss}}}"
            lists = f"dstList={list(self.dst_list)}, srcList={list(self.src_list)}"
            if self.form == "table":
                lists = f"dst@{self.addrs[0]}, src@{self.addrs[1]} (tables holding {lists})"
            elif self.form == "tensors":
                lists = f"LocalTensor<{d.cpp}> {lists}"
            return f"TransDataTo5HD<{d.cpp}>({lists}, {prm}){tail}"
        names = ("dst0", "dst1") + (("src0", "src1") if self.form == "two" else ("src",))
        ops = ", ".join(f"{n}@{a}" for n, a in zip(names, self.addrs, strict=True))
        return f"{self.api}<{d.cpp}>({ops}, {self.count}){tail}"


# -- generation -----------------------------------------------------------------------------------


def _scale(fault_rate):
    """The generator's fault probabilities are those of tests/test_layout.py at fault_rate 0.1."""
    return max(0.0, float(fault_rate)) / 0.1


def _addr(rng, ub_size, nbytes, size, k=1.0):
    """An operand address: 32-byte aligned inside the UB, a few misaligned by one element or
    reaching past the end of the UB."""
    r = rng.random()
    if r < min(0.06 * k, 0.3):
        return int(rng.integers(0, ub_size // 32)) * 32 + size  # misaligned
    if r < min(0.1 * k, 0.5):
        return ub_size - 32 * int(rng.integers(0, 4))  # reaching past the UB
    return int(rng.integers(0, max(1, (ub_size - nbytes) // 32))) * 32


def tmp_need(form, c, size):
    """sharedTmpBuffer bytes the page's formula asks for (NCHW forms; ``"formula"`` profiles)."""
    # SPEC: h0 = 32 for 8-bit T else 16, w0 = 32 / sizeof(T); NCHW2NHWC: (cSize + 2) * h0 * w0 *
    #       sizeof(T), NHWC2NCHW: (cSize * 2 + 1) * h0 * w0 * sizeof(T)
    unit = (32 if size == 1 else 16) * (32 // size) * size
    return ((c + 2) if form == "nchw" else (2 * c + 1)) * unit


def tmp_len_of(dtype):
    """The sharedTmpBuffer length every generated case passes: the formula's need at cSize C_MAX."""
    size = _dt.as_dtype(dtype).itemsize
    return 16 * (32 if size == 1 else 16) * 32


def _registers(rng, p, dtype):
    r = _regs.draw(rng, p, p.lanes(_dt.as_dtype(dtype)))
    return {"vmask": r.vmask, "mask_mode": r.mask_mode, "cmpmask": r.cmpmask, "ctrl": r.ctrl}


def transpose_case(rng, p, dtype, form, fault_rate=0.1):
    """plain / b16: one 16x16 matrix (n, c ignored); nchw / nhwc / none: n in [0, 2], c in
    [0, C_MAX], hSize*wSize*sizeof(T) 32 or 64 bytes (a few with wSize odd: not 32-byte aligned,
    traced BAD_PARAM); addresses aligned / misaligned / past the UB, src == dst now and then,
    sharedTmpBuffer now and then on src."""
    k = _scale(fault_rate)
    size = _dt.as_dtype(dtype).itemsize
    ub = UB_BYTES["Transpose"]
    if form in ("plain", "b16"):
        sizes = (int(rng.integers(0, 9)), int(rng.integers(0, 9)), 16, 16)
        nbytes = 512
    else:
        n, c, h = int(rng.integers(0, 3)), int(rng.integers(0, C_MAX + 1)), int(rng.choice([1, 2, 4]))
        w = int(rng.choice([32, 64])) // size // h
        if form != "none" and rng.random() < min(0.08 * k, 0.5):
            w = int(rng.choice([3, 5, 7]))  # hSize*wSize*sizeof(T) not 32-byte aligned
        sizes = (n, c, h, w)
        nbytes = n * c * h * w * size
    dst = _addr(rng, ub, nbytes, size, k)
    src = dst if rng.random() < min(0.08 * k, 0.5) else _addr(rng, ub, nbytes, size, k)
    need = tmp_need(form, sizes[1], size) if form in ("nchw", "nhwc") else 512
    tmp = _addr(rng, ub, need, 1, k) if rng.random() >= min(0.1 * k, 0.5) else src
    return LayoutCase(
        "Transpose",
        _dt.as_dtype(dtype).name,
        form,
        (dst, src, tmp),
        sizes=sizes,
        tmp_len=tmp_len_of(dtype) if form != "plain" else 0,
        ub_seed=int(rng.integers(0, 2**31)),
        ub_bytes=ub,
        **_registers(rng, p, dtype),
    )


def hd_case(rng, p, dtype, form, fault_rate=0.1):
    """TransDataTo5HD: the page's 16x16 matrix layout (16 contiguous DataBlocks a list), its NCHW ->
    NC1HWC0 layout (src blocks one HW plane apart, dstRepStride 16, srcRepStride 1) or any
    DataBlocks; repeatTimes 0..4 (a few 300: traced BAD_PARAM), random strides and half flags; a few
    misaligned src entries, dst entries outside UB and (table form) a misaligned table."""
    k = _scale(fault_rate)
    size = _dt.as_dtype(dtype).itemsize
    ub = UB_BYTES["TransDataTo5HD"]
    mode = rng.choice(3, p=[0.4, 0.3, 0.3])
    rep = int(rng.choice([0, 1, 1, 2, 3, 4]))
    if mode == 0:  # 16 contiguous DataBlocks each (the page's matrix transpose)
        s, dd = int(rng.integers(0, 256)) * 32, int(rng.integers(0, 256)) * 32
        src = [s + 32 * i for i in range(16)]
        dst = [dd + 32 * i for i in range(16)] if rng.random() < 0.9 else list(src)
        ds, ss = (0, 0) if rng.random() < 0.5 else (int(rng.integers(0, 20)), int(rng.integers(0, 20)))
    elif mode == 1:  # NCHW -> NC1HWC0 (the page's second configuration)
        hw = int(rng.choice([4, 8])) * 32  # bytes of one HW plane
        s, dd = int(rng.integers(0, 128)) * 32, int(rng.integers(256, 384)) * 32
        src = [s + hw * i for i in range(16)]
        dst = [dd + 32 * i for i in range(16)]
        ds, ss = 16, 1
    else:  # any DataBlocks
        src = [int(rng.integers(0, 512)) * 32 for _ in range(16)]
        dst = [int(rng.integers(0, 512)) * 32 for _ in range(16)]
        ds, ss = int(rng.integers(0, 40)), int(rng.integers(0, 40))
    if rng.random() < min(0.05 * k, 0.5):
        src[int(rng.integers(0, 16))] += size  # misaligned
    if rng.random() < min(0.05 * k, 0.5):
        dst[int(rng.integers(0, 16))] = ub + 32 * int(rng.integers(0, 4))  # outside UB
    if rng.random() < min(0.03 * k, 0.5):
        rep = 300  # SPEC: "repeatTimes∈[0,255]": traced, BAD_PARAM
    params = (int(rng.integers(0, 2)), int(rng.integers(0, 2)), rep, ds, ss)
    addrs = ()
    if form == "table":
        tabs = [int(rng.integers(384, 508)) * 32 for _ in range(2)]
        if rng.random() < min(0.05 * k, 0.5):
            tabs[0] += 8  # a misaligned address table
        addrs = tuple(tabs)
    return LayoutCase(
        "TransDataTo5HD",
        _dt.as_dtype(dtype).name,
        form,
        addrs,
        params=params,
        dst_list=tuple(dst),
        src_list=tuple(src),
        ub_seed=int(rng.integers(0, 2**31)),
        ub_bytes=ub,
        **_registers(rng, p, dtype),
    )


def pair_case(rng, p, api, dtype, form, fault_rate=0.1):
    """Interleave / DeInterleave: an even count up to PAIR_BYTES (a few odd: traced BAD_PARAM),
    random addresses, now and then a dst on a src."""
    k = _scale(fault_rate)
    size = _dt.as_dtype(dtype).itemsize
    ub = UB_BYTES[api]
    n_src = 2 if form == "two" else 1
    count = 2 * int(rng.integers(0, PAIR_BYTES // size // 2 + 1))
    if rng.random() < min(0.03 * k, 0.5):
        count += 1  # SPEC: "count必须为偶数": traced, BAD_PARAM
    addrs = [_addr(rng, ub, count * size, size, k) for _ in range(2 + n_src)]
    if rng.random() < min(0.05 * k, 0.5):
        addrs[int(rng.integers(0, 2))] = addrs[2 + int(rng.integers(0, n_src))]  # dst on a src
    return LayoutCase(
        api,
        _dt.as_dtype(dtype).name,
        form,
        tuple(addrs),
        count=count,
        ub_seed=int(rng.integers(0, 2**31)),
        ub_bytes=ub,
        **_registers(rng, p, dtype),
    )


def random_case(rng, p, unit, fault_rate=0.1):
    api, dtype, form = unit
    if api == "Transpose":
        return transpose_case(rng, p, dtype, form, fault_rate)
    if api == "TransDataTo5HD":
        return hd_case(rng, p, dtype, form, fault_rate)
    return pair_case(rng, p, api, dtype, form, fault_rate)


# -- generation, many cases at once (``Family.generate_many``) ----------------------------------------


def _addr_many(slots, ub_size, nbytes, size, k):
    """``_addr`` for every case (``ub_size``, ``nbytes``, ``size``: per case; four draws)."""
    r = slots.random()
    mis = slots.below(ub_size // 32) * 32 + size
    past = ub_size - 32 * slots.below(4)
    inside = slots.below(np.maximum(1, (ub_size - nbytes) // 32)) * 32
    return np.where(r < min(0.06 * k, 0.3), mis, np.where(r < min(0.1 * k, 0.5), past, inside))


def _transpose_many(slots, form, size, ub, k):
    """``transpose_case``'s sizes and addresses for every case (``form``: index into T_FORMS)."""
    small = form <= 1  # plain, b16: one 16x16 matrix
    n0, c0 = slots.below(9), slots.below(9)
    n, c = slots.below(3), slots.below(C_MAX + 1)
    h = D.choose(slots, [1, 2, 4])
    w = D.choose(slots, [32, 64]) // size // h
    u, odd = slots.random(), D.choose(slots, [3, 5, 7])
    w = np.where((form != 4) & (u < min(0.08 * k, 0.5)), odd, w)  # not 32-byte aligned
    sizes = np.where(
        small[:, None], np.stack([n0, c0, 16 + 0 * n0, 16 + 0 * n0], 1), np.stack([n, c, h, w], 1)
    )
    nbytes = np.where(small, 512, n * c * h * w * size)
    dst = _addr_many(slots, ub, nbytes, size, k)
    same = slots.random() < min(0.08 * k, 0.5)
    src = np.where(same, dst, _addr_many(slots, ub, nbytes, size, k))
    unit = np.where(size == 1, 32, 16) * (32 // size) * size
    need = np.where(
        form == 2, (sizes[:, 1] + 2) * unit, np.where(form == 3, (2 * sizes[:, 1] + 1) * unit, 512)
    )
    on_src = slots.random() >= min(0.1 * k, 0.5)
    tmp = np.where(on_src, _addr_many(slots, ub, need, 1, k), src)
    return sizes, np.stack([dst, src, tmp], 1)


def _hd_many(slots, form_table, size, ub, k):
    """``hd_case``'s lists, parameters and tables for every case: (params (n, 5), dst (n, 16), src
    (n, 16), tables (n, 2))."""
    nrows = len(slots)
    i16 = np.arange(16) * 32
    mode = slots.weighted([0.4, 0.3, 0.3])
    rep = D.choose(slots, [0, 1, 1, 2, 3, 4])
    # mode 0: 16 contiguous DataBlocks each (the page's matrix transpose)
    s0, d0 = slots.below(256) * 32, slots.below(256) * 32
    src0 = s0[:, None] + i16
    dst0 = np.where((slots.random() < 0.9)[:, None], d0[:, None] + i16, src0)
    zero = slots.random() < 0.5
    g0 = np.where(zero[:, None], 0, np.stack([slots.below(20), slots.below(20)], 1))
    # mode 1: NCHW -> NC1HWC0
    hw = D.choose(slots, [4, 8]) * 32
    s1, d1 = slots.below(128) * 32, (256 + slots.below(128)) * 32
    src1 = s1[:, None] + hw[:, None] * np.arange(16)
    dst1 = d1[:, None] + i16
    # mode 2: any DataBlocks
    src2 = np.stack([slots.below(512) * 32 for _ in range(16)], 1)
    dst2 = np.stack([slots.below(512) * 32 for _ in range(16)], 1)
    g2 = np.stack([slots.below(40), slots.below(40)], 1)
    m = mode[:, None]
    src = np.where(m == 0, src0, np.where(m == 1, src1, src2))
    dst = np.where(m == 0, dst0, np.where(m == 1, dst1, dst2))
    gaps = np.where(m == 0, g0, np.where(m == 1, np.asarray([16, 1]), g2))
    cols = np.arange(16)
    u, j = slots.random(), slots.below(16)
    src = np.where((u < min(0.05 * k, 0.5))[:, None] & (cols == j[:, None]), src + size[:, None], src)
    u, j, far = slots.random(), slots.below(16), ub + 32 * slots.below(4)
    dst = np.where((u < min(0.05 * k, 0.5))[:, None] & (cols == j[:, None]), far[:, None], dst)
    rep = np.where(slots.random() < min(0.03 * k, 0.5), 300, rep)  # SPEC: "repeatTimes∈[0,255]"
    params = np.stack([slots.below(2), slots.below(2), rep, gaps[:, 0], gaps[:, 1]], 1)
    tabs = np.stack([(384 + slots.below(124)) * 32 for _ in range(2)], 1)
    tabs[:, 0] += np.where(slots.random() < min(0.05 * k, 0.5), 8, 0)  # a misaligned address table
    assert len(params) == nrows and form_table.shape == (nrows,)
    return params, dst, src, tabs


def _pair_many(slots, n_src, size, ub, k):
    """``pair_case``'s count and addresses for every case: (count, addrs (n, 4))."""
    count = 2 * slots.below(PAIR_BYTES // size // 2 + 1)
    count = np.where(slots.random() < min(0.03 * k, 0.5), count + 1, count)  # SPEC: "count必须为偶数"
    addrs = np.stack([_addr_many(slots, ub, count * size, size, k) for _ in range(4)], 1)
    u, j, s = slots.random(), slots.below(2), 2 + slots.below(n_src)
    on_src = addrs[np.arange(len(addrs)), s]
    for c in range(2):
        addrs[:, c] = np.where((u < min(0.05 * k, 0.5)) & (j == c), on_src, addrs[:, c])  # dst on a src
    return count, addrs


def random_cases_many(slots, p, units, fault_rate=0.1):
    """``random_case`` for many cases at once, one a unit ``(api, dtype, form)`` of ``units``,
    drawn from ``slots`` (``rng.Slots``) in a fixed layout (``families.draw``): every case makes
    the draws of the three APIs' generators, keeping its own API's."""
    n, names, size, L = D.dtype_columns(p, units)
    uniq, ui = D.unit_index(units)
    api = D.per_unit(uniq, ui, lambda u: APIS.index(u[0]))
    ub = D.per_unit(uniq, ui, lambda u: UB_BYTES[u[0]])
    t_form = D.per_unit(uniq, ui, lambda u: T_FORMS.index(u[2]) if u[0] == "Transpose" else 0)
    table = D.per_unit(uniq, ui, lambda u: u[2] == "table", bool)
    n_src = D.per_unit(uniq, ui, lambda u: 2 if u[2] == "two" else 1)
    k = _scale(fault_rate)
    sizes, t_addrs = _transpose_many(slots, t_form, size, ub, k)
    params, dst_l, src_l, tabs = _hd_many(slots, table, size, ub, k)
    count, p_addrs = _pair_many(slots, n_src, size, ub, k)
    ub_seed = slots.below(2**31)
    regs = D.draw_many(slots, p, L)
    al, sl = api.tolist(), n_src.tolist()
    t_addrs, p_addrs, tabs = D.tuples(t_addrs), D.tuples(p_addrs), D.tuples(tabs)
    sizes, params, dst_l, src_l = D.tuples(sizes), D.tuples(params), D.tuples(dst_l), D.tuples(src_l)
    tl, cl = table.tolist(), count.tolist()
    return D.build(
        LayoutCase,
        n,
        dict(
            api=[u[0] for u in units],
            dtype=names.tolist(),
            form=[u[2] for u in units],
            addrs=[
                t_addrs[j] if a == 0 else ((tabs[j] if tl[j] else ()) if a == 1 else p_addrs[j][: 2 + sl[j]])
                for j, a in enumerate(al)
            ],
            sizes=[sizes[j] if a == 0 else () for j, a in enumerate(al)],
            params=[params[j] if a == 1 else () for j, a in enumerate(al)],
            dst_list=[dst_l[j] if a == 1 else () for j, a in enumerate(al)],
            src_list=[src_l[j] if a == 1 else () for j, a in enumerate(al)],
            count=[cl[j] if a >= 2 else 0 for j, a in enumerate(al)],
            tmp_len=[tmp_len_of(u[1]) if u[0] == "Transpose" and u[2] != "plain" else 0 for u in units],
            misuse="",
            **D.mask_fields(regs.vmask, regs.mask_mode, regs.ctrl),
            cmpmask=D.tuples(regs.cmpmask),
            ub_seed=ub_seed.tolist(),
            ub_bytes=[UB_BYTES[u[0]] for u in units],
        ),
    )


def draw_cases(p, units, n, seed, fault_rate=0.1, weights=None):
    """``n`` cases, each of a unit drawn from ``units`` (with ``weights``), from one seed."""
    rng = np.random.default_rng(seed)
    w = None if weights is None else np.asarray(weights, float) / np.sum(weights)
    out = []
    for _ in range(n):
        unit = units[int(rng.choice(len(units), p=w))]
        out.append(random_case(rng, p, unit, fault_rate))
    return out


# -- initial UB ---------------------------------------------------------------------------------


def make_ub(c):
    """Random bytes; the table form's two address tables (16 little-endian uint64 each) written at
    the table addresses where they fit."""
    ub = random_ub(c.ub_seed, c.ub_bytes)
    if c.api == "TransDataTo5HD" and c.form == "table":
        for a, lst in zip(c.addrs, (c.dst_list, c.src_list), strict=True):
            raw = np.asarray(lst, np.uint64).view(np.uint8)
            if 0 <= a and a + raw.size <= ub.size:
                ub[a : a + raw.size] = raw
    return ub


# -- calls ----------------------------------------------------------------------------------------


def _other_dtype(d):
    return "int16" if d.name != "int16" else "uint16"


def call(mod, c, state, p, dyn=None):
    """``mod``'s API (``ascend_jax`` or the reference) on case ``c`` with its Python values, or with
    ``dyn`` (one row of ``LayoutFamily.stack_dyn``: traced) in their place."""
    import ascend_jax as aj

    d = _dt.as_dtype(c.dtype)
    fn = getattr(mod, c.api)
    kw = {}
    if dyn is not None and "max_repeats" in inspect.signature(fn).parameters:
        kw["max_repeats"] = BUCKET[c.api]  # the fast path's static bucket (the reference has none)
    if c.api == "Transpose":
        return _call_transpose(aj, fn, c, d, state, p, dyn, kw)
    if c.api == "TransDataTo5HD":
        return _call_5hd(aj, fn, c, d, state, p, dyn, kw)
    a = c.addrs if dyn is None else tuple(dyn["addrs"][i] for i in range(len(c.addrs)))
    length = PAIR_BYTES // d.itemsize
    ts = [LocalTensor(d, x, length) for x in a]
    if c.misuse == "src-dtype":
        ts[1] = LocalTensor(_other_dtype(d), a[1], length)
    count = c.count if dyn is None else dyn["count"]
    return fn(state, *ts, count, profile=p, **kw)


def _call_transpose(aj, fn, c, d, state, p, dyn, kw):
    dst, src, tmp = c.addrs if dyn is None else (dyn["dst"], dyn["src"], dyn["tmp"])
    length = BUCKET["Transpose"] * 256 // d.itemsize
    sd = _other_dtype(d) if c.misuse == "src-dtype" else d
    args = [LocalTensor(d, dst, length), LocalTensor(sd, src, length)]
    if c.form != "plain":
        n, cc, h, w = c.sizes if dyn is None else (dyn["n"], dyn["c"], dyn["h"], dyn["w"])
        ttype = "TRANSPOSE_NZ2ND_0213" if c.misuse == "type-nz" else T_TYPE[c.form]
        tp = aj.TransposeParamsExt(n, cc, h, w, aj.TransposeType[ttype])
        tmp_t = LocalTensor(aj.half if c.misuse == "tmp-dtype" else aj.uint8, tmp, c.tmp_len)
        args += [tmp_t, None if c.misuse == "no-params" else tp]
    return fn(state, *args, profile=p, **kw)


def _call_5hd(aj, fn, c, d, state, p, dyn, kw):
    if dyn is None:
        dh, sh, rep, ds, ss = c.params
        # the bool fields as bools (a value outside {0, 1} stays an int: the misuse)
        dh, sh = (bool(v) if v in (0, 1) else v for v in (dh, sh))
        dl, sl = list(c.dst_list), list(c.src_list)
    else:
        dh, sh, rep, ds, ss = (dyn[x] for x in ("dh", "sh", "rep", "ds", "ss"))
        dl, sl = dyn.get("dst_list"), dyn.get("src_list")
    prm = aj.TransDataTo5HDParams(dh, sh, rep, ds, ss)
    kw = dict(kw, T=None if c.misuse == "no-T" else d)
    if c.form == "table":
        tabs = c.addrs if dyn is None else (dyn["dst_tab"], dyn["src_tab"])
        td = aj.half if c.misuse == "table-dtype" else aj.uint64
        lists = (LocalTensor(td, tabs[0], 16), LocalTensor(aj.uint64, tabs[1], 16))
    elif c.form == "tensors":
        E = 512 // d.itemsize  # 16 DataBlocks from each address
        sd = _other_dtype(d) if c.misuse == "src-dtype" else d
        lists = (
            [LocalTensor(d, dl[i], E) for i in range(16)],
            [LocalTensor(sd, sl[i], E) for i in range(16)],
        )
    else:
        lists = (dl, sl)
    if c.misuse == "list-15":
        lists = (list(lists[0])[:15], lists[1])
    return fn(state, *lists, prm, profile=p, **kw)


# -- the engine's adapter -------------------------------------------------------------------------


class LayoutFamily(Family):
    name = "layout"
    apis = APIS
    case_type = LayoutCase

    def api_units(self, p, api):
        a = p.api(api)
        if api == "Transpose":
            out = []
            enhanced = bool(a.nd2nd_dtypes or a.nchw_dtypes)
            for dt in dict.fromkeys(tuple(a.dtypes) + tuple(a.nd2nd_dtypes) + tuple(a.nchw_dtypes)):
                forms = ["plain"] if dt in a.dtypes else []
                forms += ["b16"] if dt in a.nd2nd_dtypes else []
                forms += ["nchw", "nhwc"] if dt in a.nchw_dtypes else []
                forms += ["none"] if enhanced else []
                out += [(api, dt, f) for f in forms]
            return out
        if api == "TransDataTo5HD":
            return [(api, dt, f) for dt in a.dtypes for f in HD_FORMS]
        forms = ("two",) if api == "Interleave" else ("two", "one")
        return [(api, dt, f) for dt in a.dtypes for f in forms]

    def generate(self, rng, p, unit, fault_rate):
        return random_case(rng, p, unit, fault_rate)

    draw_many = staticmethod(random_cases_many)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        d = _dt.as_dtype(case.dtype)
        opts = []
        if case.api == "Transpose":
            opts.append((rep(case, misuse="src-dtype"), "src.dtype"))
            if case.form != "plain":
                n, c, h, w = case.sizes
                opts += [
                    (rep(case, sizes=(65536, c, h, w)), "transposeParams.nSize"),  # uint16_t
                    (rep(case, misuse="tmp-dtype"), "sharedTmpBuffer.dtype"),
                    (rep(case, misuse="no-params"), "transposeParams"),
                    (rep(case, misuse="type-nz"), "transposeParams.transposeType"),
                ]
            if case.form == "b16":
                # SPEC: "hSize、wSize固定传入16"
                opts.append((rep(case, sizes=(case.sizes[0], case.sizes[1], 8, 16)), "transposeParams.hSize"))
            if case.form in ("nchw", "nhwc"):
                n, c, h, w = case.sizes
                # SPEC: "cSize∈[0, 4095]，hSize * wSize ∈[0, 4095]，hSize * wSize * sizeof(T)需要保证32B对齐"
                opts += [
                    (rep(case, sizes=(n, 4096, h, w)), "transposeParams.cSize"),
                    (rep(case, sizes=(n, c, 1, 15)), "transposeParams.hSize/transposeParams.wSize"),
                ]
                if p.api("Transpose").tmp_buffer == "formula" and (h * w * d.itemsize) % 32 == 0:
                    # SPEC: "入参sharedTmpBuffer的大小不得小于计算所需的最小阈值"
                    need = tmp_need(case.form, c, d.itemsize)
                    opts.append((rep(case, tmp_len=need - 1), "sharedTmpBuffer"))
        elif case.api == "TransDataTo5HD":
            dh, sh, r, ds, ss = case.params
            r = min(r, 255)  # one misuse at a time (a drawn traced-bad 300 would be rejected first)
            opts += [
                (rep(case, params=(dh, sh, 256, ds, ss)), "nchwconvParams.repeatTimes"),  # SPEC: [0,255]
                (rep(case, params=(dh, sh, r, 65536, ss)), "nchwconvParams.dstRepStride"),
                (rep(case, params=(dh, sh, r, ds, -1)), "nchwconvParams.srcRepStride"),
                (rep(case, params=(2, sh, r, ds, ss)), "nchwconvParams.dstHighHalf"),
            ]
            if case.form == "table":
                opts += [(rep(case, misuse="table-dtype"), "dst.dtype"), (rep(case, misuse="no-T"), "T")]
            else:
                opts.append((rep(case, misuse="list-15"), "dstList"))
            if case.form == "list":
                opts += [
                    (rep(case, dst_list=(-32,) + case.dst_list[1:]), "dstList[0]"),  # uint64_t
                    (rep(case, misuse="no-T"), "T"),
                ]
            if case.form == "tensors":
                opts.append((rep(case, misuse="src-dtype"), "srcList[0].dtype"))
        else:
            name = "srcCount" if case.form == "one" else "count"
            even = case.count - case.count % 2
            opts += [
                (rep(case, count=even + 1), name),  # SPEC: "count必须为偶数"
                (rep(case, count=-2), name),
                (rep(case, count=2 * p.ub_usable_bytes // d.itemsize), name),
                (rep(case, misuse="src-dtype"), "dst1.dtype"),
            ]
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        rep = dataclasses.replace
        d = _dt.as_dtype(case.dtype)
        size = d.itemsize
        if case.api == "Transpose":
            dst, src, tmp = case.addrs
            opts = [
                (rep(case, addrs=(dst + size, src, tmp)), "misaligned dst"),
                (rep(case, addrs=(dst, case.ub_bytes - 32 * int(rng.integers(0, 3)), tmp)), "src outside UB"),
                (rep(case, addrs=(dst, dst + 32 * int(rng.choice([1, 2, 8])), tmp)), "src on dst"),
            ]
            if case.form in ("nchw", "nhwc"):
                opts += [
                    (rep(case, addrs=(dst, src, src)), "sharedTmpBuffer on src"),
                    (rep(case, addrs=(dst, src, tmp + 16)), "misaligned sharedTmpBuffer"),
                    (rep(case, addrs=(dst, dst, tmp)), "src == dst (no reuse for NCHW)"),
                ]
            return opts[int(rng.integers(len(opts)))]
        if case.api == "TransDataTo5HD":
            dl, sl = list(case.dst_list), list(case.src_list)
            i, j = int(rng.integers(16)), int(rng.integers(15))
            j = j + (j >= i)  # j != i
            opts = [
                (
                    rep(case, src_list=tuple(sl[:i] + [sl[i] + size] + sl[i + 1 :])),
                    f"misaligned srcList[{i}]",
                ),
                (
                    rep(case, dst_list=tuple(dl[:i] + [case.ub_bytes] + dl[i + 1 :])),
                    f"dstList[{i}] outside UB",
                ),
                (rep(case, dst_list=tuple(dl[:j] + [sl[i]] + dl[j + 1 :])), f"dstList[{j}] on srcList[{i}]"),
                (
                    rep(case, dst_list=tuple(x + 512 for x in sl), params=case.params[:2] + (2, 0, 16)),
                    "repeat 0 writes the blocks repeat 1 reads",
                ),
            ]
            if case.form == "table":
                t0, t1 = case.addrs
                opts += [
                    (rep(case, addrs=(t0 + 8, t1)), "misaligned dst table"),
                    (rep(case, addrs=(t0, case.ub_bytes - 64)), "src table outside UB"),
                ]
            return opts[int(rng.integers(len(opts)))]
        a = list(case.addrs)
        k = int(rng.integers(len(a)))
        opts = [
            (rep(case, addrs=tuple(a[:k] + [a[k] + size] + a[k + 1 :])), f"misaligned operand {k}"),
            (
                rep(case, addrs=tuple(a[:k] + [case.ub_bytes - 32] + a[k + 1 :]), count=max(case.count, 64)),
                f"operand {k} outside UB",
            ),  # fmt: skip
            (rep(case, addrs=(a[0], a[2]) + tuple(a[2:])), "dst1 on src0"),
            (rep(case, addrs=(a[0], a[0]) + tuple(a[2:])), "dst1 on dst0"),
            (rep(case, count=0), "count 0 (behavior.zero_count)"),
        ]
        return opts[int(rng.integers(len(opts)))]

    def signature(self, case, p):
        # what shapes the program: the API's prototype (form), T, the sharedTmpBuffer length and the
        # bucket; addresses, sizes, parameters and counts are traced
        return ("layout", case.api, case.dtype, case.form, case.tmp_len, BUCKET[case.api])

    def initial_ub(self, case):
        return make_ub(case)

    def stack_dyn(self, cases, p):
        c0 = cases[0]

        def col(f):
            return np.asarray([f(c) for c in cases], np.int32)

        if c0.api == "Transpose":
            out = {k: col(lambda c, i=i: c.addrs[i]) for i, k in enumerate(("dst", "src", "tmp"))}
            out.update({k: col(lambda c, i=i: c.sizes[i]) for i, k in enumerate("nchw")})
            return out
        if c0.api == "TransDataTo5HD":
            out = {k: col(lambda c, i=i: c.params[i]) for i, k in enumerate(("dh", "sh", "rep", "ds", "ss"))}
            if c0.form == "table":
                out.update(dst_tab=col(lambda c: c.addrs[0]), src_tab=col(lambda c: c.addrs[1]))
            else:
                out.update(
                    dst_list=np.asarray([c.dst_list for c in cases], np.int32),
                    src_list=np.asarray([c.src_list for c in cases], np.int32),
                )
            return out
        return {"addrs": np.asarray([c.addrs for c in cases], np.int32), "count": col(lambda c: c.count)}

    def call(self, mod, case, state, p, dyn=None):
        return call(mod, case, state, p, dyn), None

    def reference(self, case, p, mod, state):
        try:
            return call(mod, case, state, p), None
        except UsageError as e:
            # a value the fast path traces, out of its range: BAD_PARAM there (module docstring)
            if isinstance(e, UnsupportedError) or e.argument not in TRACED_ARGS[case.api]:
                raise
            return _rst.with_fault(state, int(Fault.BAD_PARAM)), None

    def labels(self, case, p):
        """(prototype, size regime, operand regime)."""
        if case.api == "Transpose":
            n, c, h, w = case.sizes
            total = 256 if case.form in ("plain", "b16") else n * c * h * w
            size = "0" if total == 0 or case.form == "none" else ("1" if total <= 64 else "mid")
            dst, src, tmp = case.addrs
            ops = (
                "in-place"
                if dst == src
                else ("tmp-on-src" if tmp == src and case.form != "plain" else "apart")
            )
            return (case.form, size, ops)
        if case.api == "TransDataTo5HD":
            dh, sh, r, ds, ss = case.params
            strides = "zero" if ds == 0 and ss == 0 else ("nchw-5hd" if (ds, ss) == (16, 1) else "gap")
            return (case.form, repeat_regime(r, p) if r <= 255 else "bad", strides)
        dst_on_src = any(a in case.addrs[2:] for a in case.addrs[:2])
        return (case.form, "0" if case.count == 0 else ("odd" if case.count % 2 else "mid"),
                "dst-on-src" if dst_on_src else "apart")  # fmt: skip

    def shrink(self, case, p):
        rep = dataclasses.replace
        out = []
        if case.api == "Transpose" and case.form in ("nchw", "nhwc"):
            n, c, h, w = case.sizes
            out += [rep(case, sizes=(v, c, h, w)) for v in smaller_ints(n, lo=1)]
            out += [rep(case, sizes=(n, v, h, w)) for v in smaller_ints(c, lo=1)]
        elif case.api == "TransDataTo5HD":
            dh, sh, r, ds, ss = case.params
            if r <= 255:
                out += [rep(case, params=(dh, sh, v, ds, ss)) for v in smaller_ints(r, lo=1)]
            if ds or ss:
                out.append(rep(case, params=(dh, sh, r, 0, 0)))
            if dh or sh:
                out.append(rep(case, params=(0, 0, r, ds, ss)))
        elif case.api in ("Interleave", "DeInterleave") and case.count % 2 == 0:
            out += [
                rep(case, count=v) for v in (2, case.count // 2 - case.count // 2 % 2) if 2 <= v < case.count
            ]
        return out


__all__ = ["APIS", "LayoutCase", "LayoutFamily", "draw_cases", "random_case"]
