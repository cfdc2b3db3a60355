"""Fuzz adapter of 排序组合（ISASI）: Sort32, MrgSort, GetMrgSortResult, MrgSort4, RpSort16,
ProposalConcat, ProposalExtract (docs/MODEL.md "Sorting and Region Proposals").

A case is one call on an 8 KiB arena of random bytes (``ub_seed``) into which the case's score data
is written: Sort32's 4 x 32 scores, the merge queues' records (half of the queues sorted, half not),
RpSort16's proposal scores. Scores are drawn as bit patterns: a third specials (+-0, +-inf, NaNs of
several payloads, +-1, denormals), a third from a pool of 3 values (ties), a third random. Addresses
are random (now and then misaligned, overlapping or anywhere in the arena: faults) and the tensors
are shorter than the longest call (EXTENT warnings). A GetMrgSortResult case reads the result
register after a random MrgSort / MrgSort4 case (or on a fresh state).

Fast path: the public API (``ascend_jax.<API>``) vmapped over traced addresses, repeat counts, queue
lengths and modeNumber, with one repeat bucket and one queue-length bucket per API, so one program
per (API, dtype, validBit, ifExhaustedSuspension) serves every case. Reference:
``ascend_jax.reference.<API>`` with Python values. The merges' result register (the state field
GetMrgSortResult reads, which the engine's comparator does not know) is the returned value of a
MrgSort / MrgSort4 case, so it is compared too; a GetMrgSortResult case returns the API's four
counts.

``random_case`` is the one generator of these cases (the CLI's campaigns and tests/test_sort.py).
"""

import dataclasses
import inspect

import jax.numpy as jnp
import numpy as np

from ... import dtypes as _dt
from ...sort_types import VALID_BITS, MrgSort4Info, MrgSortSrcList
from ...tensor import LocalTensor
from . import draw as D
from .family import Family

APIS = ("Sort32", "MrgSort", "GetMrgSortResult", "MrgSort4", "RpSort16", "ProposalConcat", "ProposalExtract")
MERGES = ("MrgSort", "MrgSort4")
PROPOSALS = ("ProposalConcat", "ProposalExtract")
UBN = 8192  # the arena of a case
BUCKET = 4  # repeat bucket of Sort32 / RpSort16 / ProposalConcat / ProposalExtract (repeats 0..4)
MERGE_BUCKET = 2  # repeat bucket of the merges (repeatTimes 0..2)
MERGE_LEN = {"MrgSort": 16, "MrgSort4": 8}  # queue-length bucket (records / proposals per queue)
MERGE_FORMS = tuple((vb, s) for vb in (3, 7, 15) for s in (False, True))  # (validBit, suspension)
PROPOSAL_ELEMS = 8  # elements of a Region Proposal; the score is element 4
# operand lengths in elements (shorter than the longest call: EXTENT warnings)
SORT32_LEN = (3 * 64, 2 * 32, 2 * 32)  # dst, src0, src1 (4 repeats need 256, 128, 128)
PROPOSAL_LEN = 3 * 16 * PROPOSAL_ELEMS  # RpSort16's tensors, the proposal side of Concat / Extract
SCORE_LEN = 3 * 16  # the element side of ProposalConcat / ProposalExtract

_SPECIAL = {
    "half": [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE00, 0x3C00, 0xBC00, 0x0001, 0x8001],
    "float32": [
        0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC00000,
        0x3F800000, 0xBF800000, 0x00000001, 0x80000001,
    ],
}  # fmt: skip
_NP = {"half": np.float16, "float32": np.float32}
_UI = {"half": np.uint16, "float32": np.uint32}
_OTHER = {"half": "float32", "float32": "half"}


@dataclasses.dataclass(frozen=True)
class SortCase:
    api: str
    dtype: str  # element type (GetMrgSortResult: the preceding merge's; "-": no merge)
    form: str = "-"  # GetMrgSortResult: the merge before it, "MrgSort" | "MrgSort4" | "fresh"
    dst: int = 0
    srcs: tuple = ()  # Sort32: (src0, src1); merges: the 4 queues; the others: (src,)
    repeat: int = 1  # repeatTime / params.repeatTimes
    lengths: tuple = (0, 0, 0, 0)  # merges: params.elementLengths
    valid_bit: int = 15  # merges: params.validBit
    suspension: bool = False  # merges: params.ifExhaustedSuspension
    layout: str = "free"  # merges: "contiguous" (repeat r's queues follow repeat r-1's) | "free"
    mode: int = 0  # ProposalConcat / ProposalExtract: modeNumber
    mistype: str = ""  # a static misuse: the operand given a wrong element type
    ub_seed: int = 0
    vmask: tuple = (0xFFFFFFFF,) * 4 + (0,) * 4
    mask_mode: int = 0
    ctrl: tuple = (0, 0)

    @property
    def merge_api(self):
        return self.form if self.api == "GetMrgSortResult" else self.api

    def call_repr(self):
        api = self.merge_api
        if api == "fresh":
            return "GetMrgSortResult() [no merge before it]"
        t = _dt.as_dtype(self.dtype).cpp
        s = self.srcs
        if api == "Sort32":
            text = f"Sort32<{t}>(dst@{self.dst}, src0@{s[0]}, src1@{s[1]}, repeatTime={self.repeat})"
        elif api in MERGES:
            text = (
                f"{api}<{t}>(dst@{self.dst}, {{{', '.join(f'src{q + 1}@{a}' for q, a in enumerate(s))}}}, "
                f"{{elementLengths={list(self.lengths)}, ifExhaustedSuspension={str(self.suspension).lower()}, "
                f"validBit={self.valid_bit}, repeatTimes={self.repeat}}}) [{self.layout}]"
            )
        elif api == "RpSort16":
            text = f"RpSort16<{t}>(dst@{self.dst}, src@{s[0]}, repeatTime={self.repeat})"
        else:
            text = f"{api}<{t}>(dst@{self.dst}, src@{s[0]}, repeatTime={self.repeat}, modeNumber={self.mode})"
        if self.mistype:
            text += f" [{self.mistype} mistyped]"
        return f"GetMrgSortResult() after {text}" if self.api == "GetMrgSortResult" else text


# -- the generator ---------------------------------------------------------------------------------


def scores(rng, dt, n):
    """``n`` score bit patterns: a third specials, a third from a pool of 3 values (ties), a third
    random bit patterns."""
    bits = 16 if dt == "half" else 32
    pool = rng.integers(0, 1 << bits, 3, dtype=np.uint64)
    kind = rng.integers(0, 3, n)
    special = np.array(_SPECIAL[dt], np.uint64)[rng.integers(0, len(_SPECIAL[dt]), n)]
    tie = pool[rng.integers(0, 3, n)]
    rnd = rng.integers(0, 1 << bits, n, dtype=np.uint64)
    return np.where(kind == 0, special, np.where(kind == 1, tie, rnd)).astype(_UI[dt])


def queues(rng, dt, lengths, rec, score_off, sorted_share=0.5):
    """Random records of each queue: bytes random, the score field from ``scores``; about
    ``sorted_share`` of the queues sorted (descending by value, NaN first), the others not."""
    size = np.dtype(_NP[dt]).itemsize
    allsc = scores(rng, dt, int(sum(lengths)))
    cut = np.cumsum([0] + list(lengths))
    out = []
    for q, n in enumerate(lengths):
        recs = rng.integers(0, 256, (n, rec), dtype=np.uint8)
        sc = allsc[cut[q] : cut[q + 1]]
        if rng.random() < sorted_share:
            with np.errstate(invalid="ignore"):  # signalling NaN payloads
                v = sc.view(_NP[dt]).astype(np.float64)
            sc = sc[np.argsort(np.where(np.isnan(v), -np.inf, -v), kind="stable")]
        recs[:, score_off : score_off + size] = sc.view(np.uint8).reshape(n, size)
        out.append(recs)
    return out


def address(rng, lo, hi, align=32, wild=0.1):
    """A random ``align``-aligned address in [lo, hi); with probability ``0.3 wild`` a wild one
    (2-byte aligned anywhere in the arena), with ``0.3 wild`` more an aligned one anywhere."""
    roll = rng.random()
    if roll < 0.3 * wild:
        return int(rng.integers(0, UBN)) & ~1
    if roll < 0.6 * wild:
        return int(rng.integers(0, UBN // align)) * align
    return lo + int(rng.integers(0, max(1, (hi - lo) // align))) * align


def record(api, dt):
    """(record bytes, byte offset of the score in a record) of a merge."""
    size = np.dtype(_NP[dt]).itemsize
    return (8, 0) if api == "MrgSort" else (PROPOSAL_ELEMS * size, 4 * size)


def _sort32(rng, dt, wild):
    rep = int(rng.integers(0, BUCKET + 1))
    a0, a1, ad = (
        address(rng, 0, 1024, wild=wild),
        address(rng, 1024, 2048, wild=wild),
        address(rng, 2048, UBN - 1024, wild=wild),
    )
    return SortCase(api="Sort32", dtype=dt, dst=ad, srcs=(a0, a1), repeat=rep)


def _merge(rng, api, dt, vb, susp, wild):
    L, rec = MERGE_LEN[api], record(api, dt)[0]
    nq = VALID_BITS[vb]
    if (not susp) and nq == 4 and rng.random() < 0.5:
        # SPEC (MrgSort.md): "repeatTimes参数生效需要满足4个条件: src包含4个队列并且长度一致; 4个队列
        # 连续存储; ifExhaustedSuspension = false; validBit = 15"; each repeat "跳过4个队列总长度".
        # Now and then the last queue is of another length (BAD_PARAM with repeatTimes > 1).
        layout = "contiguous"
        rep = int(rng.integers(1, MERGE_BUCKET + 1))
        ln = int(rng.integers(0, L + 1))
        lengths = [ln] * 4
        if rng.random() < 0.1:
            lengths[3] = int(rng.integers(0, L + 1))
        a = address(rng, 0, 1024, wild=wild)
        srcs = [a + q * ln * rec for q in range(4)]
    else:
        layout = "free"
        lo = 1 if api == "MrgSort4" else 0  # MrgSort4: repeatTimes in [1, 255]
        rep = 1 if rng.random() < 0.9 else int(rng.integers(lo, MERGE_BUCKET + 1))
        lengths = [int(rng.integers(0, L + 1)) for _ in range(4)]
        al = 8 if api == "MrgSort" else 32
        srcs = [address(rng, 1024 * q, 1024 * q + 1024 - L * rec, align=al, wild=wild) for q in range(4)]
    d = address(rng, 4096, UBN - 4 * L * rec, wild=wild)
    return SortCase(
        api=api,
        dtype=dt,
        dst=d,
        srcs=tuple(srcs),
        repeat=rep,
        lengths=tuple(lengths),
        valid_bit=vb,
        suspension=bool(susp),
        layout=layout,
    )


def _rpsort16(rng, dt, wild):
    rec = PROPOSAL_ELEMS * np.dtype(_NP[dt]).itemsize
    rep = int(rng.integers(0, BUCKET + 1))
    s = address(rng, 0, 2048, wild=wild)
    d = s if rng.random() < 0.3 else address(rng, 4096, UBN - 4 * 16 * rec, wild=wild)  # in place: 30 %
    return SortCase(api="RpSort16", dtype=dt, dst=d, srcs=(s,), repeat=rep)


def _proposal(rng, api, dt, wild):
    rep = int(rng.integers(0, BUCKET + 1))
    mode = int(rng.integers(0, 6))
    if rng.random() < 0.2:  # overlapping operands now and then (program order)
        d, s = address(rng, 0, 4096, wild=wild), address(rng, 0, 4096, wild=wild)
    else:
        d, s = address(rng, 0, 2048, wild=wild), address(rng, 4096, UBN - 2048, wild=wild)
    return SortCase(api=api, dtype=dt, dst=d, srcs=(s,), repeat=rep, mode=mode)


def random_case(rng, p, unit, fault_rate=0.1):
    """A case of ``unit`` (see ``SortFamily.units``); ``fault_rate`` scales the share of wild
    addresses (0.1: 3 % misaligned anywhere, 3 % aligned anywhere)."""
    api, dt = unit[0], unit[1]
    if api == "Sort32":
        c = _sort32(rng, dt, fault_rate)
    elif api in MERGES:
        c = _merge(rng, api, dt, unit[2], unit[3], fault_rate)
    elif api == "RpSort16":
        c = _rpsort16(rng, dt, fault_rate)
    elif api in PROPOSALS:
        c = _proposal(rng, api, dt, fault_rate)
    elif unit[2] == "fresh":
        c = SortCase(api=api, dtype="-", form="fresh")
    else:  # GetMrgSortResult after a merge of unit (api, dtype, merge API, validBit, suspension)
        c = _merge(rng, unit[2], dt, unit[3], unit[4], fault_rate)
        c = dataclasses.replace(c, api=api, form=unit[2])
    return dataclasses.replace(c, ub_seed=int(rng.integers(0, 2**31)))


# -- the generator, many cases at once ---------------------------------------------------------------

_KINDS = ("Sort32", "merge", "RpSort16", "proposal", "fresh", "after")


def _unit_info(u):
    """(kind, dtype, merge API, validBit, suspension) of a unit (merge fields of a merge or a
    GetMrgSortResult after one, else MrgSort / 15 / False)."""
    api = u[0]
    if api in MERGES:
        return "merge", u[1], api, u[2], u[3]
    if api == "GetMrgSortResult":
        return ("fresh", "-", "MrgSort", 15, False) if u[2] == "fresh" else ("after", u[1], *u[2:5])
    return ("proposal" if api in PROPOSALS else api), u[1], "MrgSort", 15, False


def address_many(slots, lo, hi, align=32, wild=0.1):
    """``address`` for every case (four draws; ``lo``, ``hi``, ``align`` scalars or arrays)."""
    roll = slots.random()
    anywhere_odd = D.ints(slots, 0, UBN) & ~1
    anywhere = D.ints(slots, 0, UBN // np.asarray(align)) * align
    inside = lo + D.ints(slots, 0, np.maximum(1, (np.asarray(hi) - lo) // align)) * align
    return np.where(roll < 0.3 * wild, anywhere_odd, np.where(roll < 0.6 * wild, anywhere, inside))


def random_cases_many(slots, p, units, fault_rate=0.1):
    """``random_case`` for many cases at once, one a unit of ``units``, drawn from ``slots``
    (``rng.Slots``) in a fixed layout (``families.draw``): every case makes the draws of every API
    (Sort32, a merge, RpSort16, the proposals) and keeps its own."""
    n = len(units)
    uniq, ui = D.unit_index(units)
    info = [_unit_info(u) for u in uniq]
    kind = np.asarray([_KINDS.index(i[0]) for i in info], np.int64)[ui]
    dts = [i[1] for i in info]
    size = np.asarray([np.dtype(_NP[d]).itemsize if d in _NP else 2 for d in dts], np.int64)[ui]
    mrg4 = np.asarray([i[2] == "MrgSort4" for i in info], bool)[ui]
    vb = np.asarray([i[3] for i in info], np.int64)[ui]
    susp = np.asarray([i[4] for i in info], bool)[ui]
    nq = np.asarray([VALID_BITS[i[3]] for i in info], np.int64)[ui]
    wild = fault_rate
    # Sort32
    rep_s = D.ints(slots, 0, BUCKET + 1)
    s32 = [address_many(slots, lo, hi, wild=wild) for lo, hi in ((0, 1024), (1024, 2048), (2048, UBN - 1024))]
    # a merge (MrgSort, MrgSort4, GetMrgSortResult after one)
    L = np.where(mrg4, MERGE_LEN["MrgSort4"], MERGE_LEN["MrgSort"])
    rec = np.where(mrg4, PROPOSAL_ELEMS * size, 8)
    contig = ~susp & (nq == 4) & (slots.random() < 0.5)
    c_rep = D.ints(slots, 1, MERGE_BUCKET + 1)
    ln = D.ints(slots, 0, L + 1)
    l3 = np.where(slots.random() < 0.1, D.ints(slots, 0, L + 1), ln)
    ca = address_many(slots, 0, 1024, wild=wild)
    f_rep = np.where(slots.random() < 0.9, 1, D.ints(slots, np.where(mrg4, 1, 0), MERGE_BUCKET + 1))
    f_len = np.stack([D.ints(slots, 0, L + 1) for _ in range(4)], 1)
    al = np.where(mrg4, 32, 8)
    f_src = np.stack(
        [address_many(slots, 1024 * q, 1024 * q + 1024 - L * rec, align=al, wild=wild) for q in range(4)], 1
    )
    m_dst = address_many(slots, 4096, UBN - 4 * L * rec, wild=wild)
    m_rep = np.where(contig, c_rep, f_rep)
    c_len = np.stack([ln, ln, ln, l3], 1)
    m_len = np.where(contig[:, None], c_len, f_len)
    m_src = np.where(contig[:, None], ca[:, None] + np.arange(4) * (ln * rec)[:, None], f_src)
    # RpSort16
    rep_r = D.ints(slots, 0, BUCKET + 1)
    r_src = address_many(slots, 0, 2048, wild=wild)
    in_place = slots.random() < 0.3
    r_dst = np.where(
        in_place, r_src, address_many(slots, 4096, UBN - 4 * 16 * PROPOSAL_ELEMS * size, wild=wild)
    )
    # ProposalConcat / ProposalExtract
    rep_p = D.ints(slots, 0, BUCKET + 1)
    mode = D.ints(slots, 0, 6)
    overlap = slots.random() < 0.2  # overlapping operands now and then (program order)
    p_dst = np.where(overlap, address_many(slots, 0, 4096, wild=wild), 0)
    p_src = np.where(overlap, address_many(slots, 0, 4096, wild=wild), 0)
    p_dst = np.where(overlap, p_dst, address_many(slots, 0, 2048, wild=wild))
    p_src = np.where(overlap, p_src, address_many(slots, 4096, UBN - 2048, wild=wild))
    ub_seed = slots.below(2**31)

    is_merge = (kind == 1) | (kind == 5)
    dst = np.select([kind == 0, is_merge, kind == 2, kind == 3], [s32[2], m_dst, r_dst, p_dst], 0)
    repeat = np.select([kind == 0, is_merge, kind == 2, kind == 3], [rep_s, m_rep, rep_r, rep_p], 1)
    k_l, contig_l = kind.tolist(), contig.tolist()
    s32_t, m_src_t, m_len_t = D.tuples(np.stack(s32[:2], 1)), D.tuples(m_src), D.tuples(m_len)
    one_src = np.where(kind == 2, r_src, p_src).tolist()
    srcs, lengths, layout = [], [], []
    for j, k in enumerate(k_l):
        m = k in (1, 5)
        srcs.append(s32_t[j] if k == 0 else m_src_t[j] if m else (one_src[j],) if k in (2, 3) else ())
        lengths.append(m_len_t[j] if m else (0, 0, 0, 0))
        layout.append(("contiguous" if contig_l[j] else "free") if m else "free")
    info_l = [info[j] for j in ui.tolist()]
    return D.build(
        SortCase,
        n,
        dict(
            api=[u[0] for u in units],
            dtype=[i[1] for i in info_l],
            form=[i[2] if i[0] == "after" else ("fresh" if i[0] == "fresh" else "-") for i in info_l],
            dst=dst.tolist(),
            srcs=srcs,
            repeat=repeat.tolist(),
            lengths=lengths,
            valid_bit=np.where(is_merge, vb, 15).tolist(),
            suspension=(is_merge & susp).tolist(),
            layout=layout,
            mode=np.where(kind == 3, mode, 0).tolist(),
            mistype="",
            ub_seed=ub_seed.tolist(),
            vmask=SortCase.vmask,
            mask_mode=0,
            ctrl=(0, 0),
        ),
    )


def _put(ub, addr, raw):
    raw = np.ascontiguousarray(raw).view(np.uint8).reshape(-1)
    end = min(UBN, addr + raw.size)
    if 0 <= addr < end:
        ub[addr:end] = raw[: end - addr]


def make_ub(c):
    """The case's arena: random bytes (``ub_seed``) with its score data at its addresses."""
    rng = np.random.default_rng(c.ub_seed)
    ub = rng.integers(0, 256, UBN, dtype=np.uint8)
    api = c.merge_api
    if api == "Sort32":
        _put(ub, c.srcs[0], scores(rng, c.dtype, 32 * BUCKET))
    elif api in MERGES:
        rec, off = record(api, c.dtype)
        if c.layout == "contiguous":
            ln = c.lengths[0]
            for r in range(max(1, c.repeat)):
                body = np.concatenate([x.reshape(-1) for x in queues(rng, c.dtype, [ln] * 4, rec, off)])
                _put(ub, c.srcs[0] + r * body.size, body)
        else:
            for a, recs in zip(c.srcs, queues(rng, c.dtype, list(c.lengths), rec, off), strict=True):
                _put(ub, a, recs)
    elif api == "RpSort16":
        size = np.dtype(_NP[c.dtype]).itemsize
        for i, sc in enumerate(scores(rng, c.dtype, 16 * BUCKET)):
            a = c.srcs[0] + (i * PROPOSAL_ELEMS + 4) * size
            if a + size <= UBN:
                _put(ub, a, sc.reshape(1))
    return ub


# -- the calls -------------------------------------------------------------------------------------


def _buckets(fn, **kw):
    """The fast path's bucket arguments ``fn`` takes (the oracle takes none)."""
    params = inspect.signature(fn).parameters
    return {k: v for k, v in kw.items() if k in params}


def _dtype(c, operand, default):
    """``default``, or the wrong element type of a mistyped operand: uint32 -> the score type,
    half <-> float32."""
    if c.mistype != operand:
        return _dt.as_dtype(default)
    return _dt.as_dtype(c.dtype if default == "uint32" else _OTHER[default])


def _values(c, dyn):
    """(dst, srcs, repeat, lengths, mode): the case's Python values, or its traced row."""
    if dyn is None:
        return c.dst, list(c.srcs), c.repeat, list(c.lengths), c.mode
    n = len(c.srcs)
    return (
        dyn["dst"],
        [dyn["srcs"][i] for i in range(n)],
        dyn["repeat"],
        [dyn["lengths"][q] for q in range(4)],
        dyn["mode"],
    )


def _register(cnt):
    """The merge result register as int32[4] (the oracle keeps a tuple of ints)."""
    if cnt is None:
        return np.zeros(4, np.int32)
    if isinstance(cnt, tuple):
        return np.asarray(cnt, np.int32)
    return jnp.asarray(cnt, jnp.int32)


def _merge_call(mod, c, api, state, p, dst, srcs, rep, lengths):
    T = c.dtype
    L, rec = MERGE_LEN[api], record(api, T)[0]
    size = _dt.as_dtype(T).itemsize
    qs = [LocalTensor(_dtype(c, f"src{q + 1}", T), srcs[q], L * rec // size) for q in range(4)]
    d = LocalTensor(_dt.as_dtype(T), dst, 3 * L * rec // size)
    info = MrgSort4Info(list(lengths), c.suspension, c.valid_bit, rep)
    fn = getattr(mod, api)
    out = fn(
        state, d, MrgSortSrcList(*qs), info, profile=p, **_buckets(fn, max_repeats=MERGE_BUCKET, max_length=L)
    )
    return out


def call(mod, c, state, p, dyn=None):
    """``mod``'s API (``ascend_jax`` or the oracle) on case ``c``: (new state, returned value or
    None). ``dyn``: the case's traced row of ``stack_dyn`` in place of its Python values."""
    dst, srcs, rep, lengths, mode = _values(c, dyn)
    api = c.merge_api
    if c.api == "GetMrgSortResult":
        if api != "fresh":
            state = _merge_call(mod, c, api, state, p, dst, srcs, rep, lengths)
        got = mod.GetMrgSortResult(state, profile=p)
        if dyn is None and all(isinstance(x, int) for x in got):
            return state, np.asarray(got, np.int32)
        return state, jnp.stack([jnp.asarray(x, jnp.int32) for x in got])
    if api in MERGES:
        out = _merge_call(mod, c, api, state, p, dst, srcs, rep, lengths)
        return out, _register(out.mrgsort_cnt)
    T = c.dtype
    fn = getattr(mod, api)
    kw = _buckets(fn, max_repeats=BUCKET)
    if api == "Sort32":
        ld, l0, l1 = SORT32_LEN
        args = (
            LocalTensor(_dt.as_dtype(T), dst, ld),
            LocalTensor(_dtype(c, "src0", T), srcs[0], l0),
            LocalTensor(_dtype(c, "src1", "uint32"), srcs[1], l1),
            rep,
        )
    elif api == "RpSort16":
        args = (
            LocalTensor(_dt.as_dtype(T), dst, PROPOSAL_LEN),
            LocalTensor(_dtype(c, "src", T), srcs[0], PROPOSAL_LEN),
            rep,
        )
    else:
        ld, ls = (PROPOSAL_LEN, SCORE_LEN) if api == "ProposalConcat" else (SCORE_LEN, PROPOSAL_LEN)
        args = (
            LocalTensor(_dt.as_dtype(T), dst, ld),
            LocalTensor(_dtype(c, "src", T), srcs[0], ls),
            rep,
            mode,
        )
    return fn(state, *args, profile=p, **kw), None


# -- the adapter -----------------------------------------------------------------------------------


def _dtypes(p, api):
    return [str(getattr(d, "name", d)) for d in p.api(api).dtypes]


class SortFamily(Family):
    name = "sort"
    apis = APIS
    case_type = SortCase

    def api_units(self, p, api):
        if api in MERGES:
            return [(api, dt, vb, s) for dt in _dtypes(p, api) for vb, s in MERGE_FORMS]
        if api == "GetMrgSortResult":
            after = [
                (api, dt, m, vb, s)
                for m in MERGES
                if p.api(m).supported
                for dt in _dtypes(p, m)
                for vb, s in MERGE_FORMS
            ]
            return [(api, "-", "fresh")] + after
        return [(api, dt) for dt in _dtypes(p, api)]

    def generate(self, rng, p, unit, fault_rate):
        return random_case(rng, p, unit, fault_rate)

    draw_many = staticmethod(random_cases_many)

    def invalid_static(self, rng, p, case):
        rep = dataclasses.replace
        api = case.merge_api
        if api == "fresh":
            return None  # GetMrgSortResult takes no argument
        if api == "Sort32":
            opts = [
                (rep(case, repeat=256), "repeatTime"),
                (rep(case, mistype="src0"), "src0.dtype"),
                (rep(case, mistype="src1"), "src1.dtype"),
            ]
        elif api in MERGES:
            opts = [
                (rep(case, valid_bit=5), "params.validBit"),
                (rep(case, lengths=(4096,) + case.lengths[1:]), "params.elementLengths[0]"),
                (rep(case, repeat=256), "params.repeatTimes"),
                (rep(case, mistype="src1"), "src1.dtype"),
            ]
            if api == "MrgSort4":
                opts.append((rep(case, repeat=0), "params.repeatTimes"))  # MrgSort4: [1, 255]
        elif api == "RpSort16":
            opts = [(rep(case, repeat=256), "repeatTime"), (rep(case, mistype="src"), "src.dtype")]
        else:
            opts = [
                (rep(case, mode=6), "modeNumber"),
                (rep(case, mode=-1), "modeNumber"),
                (rep(case, repeat=256), "repeatTime"),
                (rep(case, mistype="src"), "src.dtype"),
            ]
        return opts[int(rng.integers(len(opts)))]

    def invalid_data(self, rng, p, case):
        rep = dataclasses.replace
        api = case.merge_api
        if api == "fresh":
            return None
        # every option runs at least once (repeat 0 is a NOP on most profiles)
        c = rep(case, repeat=max(1, case.repeat))
        r2 = max(2, case.repeat)  # two repeats: past the arena's end whatever the record size
        s = case.srcs
        if api in MERGES:
            L, rec = MERGE_LEN[api], record(api, case.dtype)[0]
            opts = [
                (rep(c, srcs=(_off(s[0], 2),) + s[1:]), "misaligned src1"),
                (rep(c, dst=_off(case.dst, 8)), "misaligned dst"),
                (rep(c, dst=UBN - 64, lengths=(L,) * 4), "dst outside UB"),  # >= L records written
                (rep(c, dst=s[0], lengths=tuple(max(1, x) for x in case.lengths)), "dst on src1"),
            ]
            if (case.valid_bit, case.suspension) == (15, False):  # static: keep the program
                # SPEC (MrgSort.md): repeatTimes > 1 needs "src包含4个队列并且长度一致" (BAD_PARAM)
                srcs = tuple(s[0] + q * 4 * rec for q in range(4))
                opts.append(
                    (
                        rep(case, repeat=2, lengths=(4, 4, 4, 2), srcs=srcs, layout="contiguous"),
                        "repeatTimes 2 with unequal queues",
                    )
                )
            return opts[int(rng.integers(len(opts)))]
        opts = [
            (rep(c, dst=_off(case.dst, 2)), "misaligned dst"),
            (rep(c, srcs=(_off(s[0], 2),) + s[1:]), "misaligned src"),
            (rep(c, dst=UBN - 32, repeat=r2), "dst outside UB"),
            (rep(c, dst=_off(case.dst, 8)), "dst 8 bytes off its 32-byte alignment"),
        ]
        if api == "Sort32":
            opts.append((rep(c, dst=s[0], repeat=r2), "dst on src0"))
        return opts[int(rng.integers(len(opts)))]

    def signature(self, case, p):
        api = case.merge_api
        if api == "fresh":
            return ("sort", "GetMrgSortResult", "fresh")
        key = (api, case.dtype, case.mistype)
        if api in MERGES:
            key += (case.valid_bit, case.suspension, MERGE_BUCKET, MERGE_LEN[api])
        else:
            key += (BUCKET,)
        return ("sort", case.api) + key

    def initial_ub(self, case):
        return make_ub(case)

    def stack_dyn(self, cases, p):
        n = max(len(cases[0].srcs), 1)
        return {
            "dst": np.asarray([c.dst for c in cases], np.int32),
            "srcs": np.asarray([list(c.srcs) + [0] * (n - len(c.srcs)) for c in cases], np.int32).reshape(
                -1, n
            ),
            "repeat": np.asarray([c.repeat for c in cases], np.int32),
            "lengths": np.asarray([list(c.lengths) for c in cases], np.int32),
            "mode": np.asarray([c.mode for c in cases], np.int32),
        }

    def call(self, mod, case, state, p, dyn=None):
        return call(mod, case, state, p, dyn)

    def labels(self, case, p):
        api = case.merge_api
        if api == "fresh":
            return ("fresh", "n/a", "n/a")
        if api in MERGES:
            kind = f"vb{case.valid_bit}" + ("/susp" if case.suspension else "")
            layout = case.layout
        elif api in PROPOSALS:
            kind, layout = f"mode{case.mode}", "overlap" if _overlaps(case) else "apart"
        elif api == "RpSort16":
            kind, layout = "n/a", "in-place" if case.dst == case.srcs[0] else "apart"
        else:
            kind, layout = "n/a", "n/a"
        reps = "0" if case.repeat == 0 else "1" if case.repeat == 1 else "2+"
        return (kind, reps, layout)

    def shrink(self, case, p):
        rep = dataclasses.replace
        api = case.merge_api
        out = []
        if case.repeat > 1:
            out.append(rep(case, repeat=1))
        if api in MERGES:
            if case.layout == "contiguous":
                if case.lengths[0] > 1:
                    h = case.lengths[0] // 2
                    rec = record(api, case.dtype)[0]
                    srcs = tuple(case.srcs[0] + q * h * rec for q in range(4))
                    out.append(rep(case, lengths=(h,) * 4, srcs=srcs))
            else:
                for q in range(4):
                    if case.lengths[q] > 1:
                        ls = list(case.lengths)
                        ls[q] //= 2
                        out.append(rep(case, lengths=tuple(ls)))
            if case.suspension:
                out.append(rep(case, suspension=False))
        if api in PROPOSALS and case.mode != 4:
            out.append(rep(case, mode=4))  # the score field
        return out


def _off(addr, k):
    """``addr`` moved to ``k`` bytes past its 32-byte block (misaligned whatever it was)."""
    return (addr & ~31) + k


def _overlaps(c):
    ld, ls = (PROPOSAL_LEN, SCORE_LEN) if c.api == "ProposalConcat" else (SCORE_LEN, PROPOSAL_LEN)
    size = _dt.as_dtype(c.dtype).itemsize
    d, s = c.dst, c.srcs[0]
    return d < s + ls * size and s < d + ld * size
