"""What every family adapter provides to the engine, and the helpers they share: case <-> JSON,
coverage labels (mask kind, repeat regime, stride regime), generic shrink candidates and the
generic deliberately-invalid mutations."""

import dataclasses
import functools
import inspect
import math

import jax
import numpy as np

from ... import dtypes as _dt
from ... import reference as _ref
from ...errors import NotModelledError, UsageError
from ...params import AnyForm

# -- case types ----------------------------------------------------------------------------------

VMASK_RESET = (0xFFFFFFFF,) * 4 + (0,) * 4  # the vector mask register's reset value (8 uint32 words)


class Fields(tuple):
    """A block of case fields, (name, type, default) triples: in the body of a ``case_dataclass``
    an annotation ``name: BLOCK`` stands for the block's fields, in its place."""


# the registers on entry (reset values by default): the vector mask, mask mode, CTRL; the seed of
# the case's UB bytes
MASK_FIELDS = Fields(
    (("vmask", tuple, VMASK_RESET), ("mask_mode", int, 0), ("ctrl", tuple, (0, 0)), ("ub_seed", int, 0))
)
# the vector mask, mask mode, CMPMASK and CTRL on entry
REG_FIELDS = Fields(
    (
        ("vmask", tuple, VMASK_RESET),
        ("mask_mode", int, 0),
        ("cmpmask", tuple, (0, 0, 0, 0)),
        ("ctrl", tuple, (0, 0)),
    )
)
UB_FIELDS = Fields((("ub_bytes", int, 8192), ("data", str, "raw")))  # UB size, data: raw | specials | small


def case_dataclass(cls):
    """``cls`` as a frozen dataclass, each annotation of a ``Fields`` block replaced, in its place,
    by the block's fields (a case's JSON lists its fields in declaration order)."""
    ann = {}
    for name, typ in inspect.get_annotations(cls).items():
        if not isinstance(typ, Fields):
            ann[name] = typ
            continue
        for field, ftyp, default in typ:
            ann[field] = ftyp
            setattr(cls, field, default)
    cls.__annotations__ = ann
    return dataclasses.dataclass(frozen=True)(cls)


# -- call text --------------------------------------------------------------------------------------


def mask_text(c):
    """The mask argument of a strided case (``form``, ``mask``) as C++ text: MASK_PLACEHOLDER (the
    register form), the bitwise words in hex or the continuous mask."""
    if c.form == "register":
        return "MASK_PLACEHOLDER"
    return [hex(w) for w in c.mask] if c.form == "bitwise" else c.mask


def mode_text(c):
    return f"  [mode={'counter' if c.mask_mode else 'normal'}]"


def form_text(c):
    """The C++ arguments after the operands of a strided case (``form`` count | count_register |
    repeat forms, ``count``, ``mask``, ``repeat``, ``strides``) and its mask mode."""
    if c.form in ("count", "count_register"):
        return f", {c.count})"
    return f", {mask_text(c)}, {c.repeat}, {c.strides}){mode_text(c)}"


# -- case <-> JSON (exact: floats as hex, so -0, NaN and subnormals survive) ----------------------


def encode(v):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return {"float": float(v).hex()}
    if isinstance(v, complex):
        return {"complex": [v.real.hex(), v.imag.hex()]}
    if isinstance(v, (tuple, list)):
        return [encode(x) for x in v]
    if hasattr(v, "item"):  # NumPy scalar
        return encode(v.item())
    raise TypeError(f"cannot encode {v!r}")


def decode(v):
    if isinstance(v, dict):
        if "float" in v:
            return float.fromhex(v["float"])
        if "complex" in v:
            return complex(float.fromhex(v["complex"][0]), float.fromhex(v["complex"][1]))
    if isinstance(v, list):
        return tuple(decode(x) for x in v)
    return v


# -- coverage labels ---------------------------------------------------------------------------


def repeat_regime(n, p):
    """ "0", "1", "max" (max_repeat_times, 255) or "mid"."""
    n = int(n)
    if n <= 0:
        return "0"
    if n == 1:
        return "1"
    if n >= p.max_repeat_times:
        return "max"
    return "mid"


def stride_regime(blk, rep, footprint_blocks=8):
    """ "zero" (a stride 0), "overlap" (repeats closer than their footprint), "gap" (block stride >
    1 or repeats further apart than their footprint) or "default" (contiguous)."""
    blk, rep = tuple(blk), tuple(rep)
    if any(x == 0 for x in blk + rep):
        return "zero"
    if any(r < footprint_blocks * b for b, r in zip(blk, rep, strict=False)):
        return "overlap"
    if any(b > 1 for b in blk) or any(r > footprint_blocks for r in rep):
        return "gap"
    return "default"


def popcount(v):
    return bin(int(v)).count("1")


def mask_label(form, mask_mode, mask, L, is_set_mask=True):
    """The mask kind of a call: count form, Counter mode, register, or the Normal-mode mask
    argument's shape (zero / one lane / all lanes / partial)."""
    if form == "count":
        return "count" if is_set_mask else "count-register"
    if form in ("register", "nomask"):
        return ("counter-" if mask_mode else "") + form
    if mask_mode == 1:
        return "counter"
    if form == "continuous":
        n = min(int(mask), L)
        return "cont-zero" if n == 0 else ("cont-one" if n == 1 else ("cont-all" if n >= L else "cont-part"))
    if form == "bitwise":
        words = mask if isinstance(mask, (tuple, list)) else (mask,)
        v = sum(int(w) << (64 * i) for i, w in enumerate(words)) & ((1 << L) - 1)
        k = popcount(v)
        return "bits-zero" if k == 0 else ("bits-one" if k == 1 else ("bits-all" if k == L else "bits-part"))
    return form


def call_labels(p, L, form, mask_mode, mask, reps, strides=None, is_set_mask=True):
    """(mask kind, repeat regime, stride regime) of a call spanning ``reps`` repeats: the stride
    regime of ``strides`` ((block strides, repeat strides); None: "default", the count form)."""
    return (
        mask_label(form, mask_mode, mask, L, is_set_mask),
        repeat_regime(reps, p),
        "default" if strides is None else stride_regime(*strides),
    )


def halves(strides):
    """(block strides, repeat strides) of repeat parameters laid out block strides first."""
    h = len(strides) // 2
    return strides[:h], strides[h:]


def strided_labels(case, p, L, strides=None):
    """``call_labels`` of a strided case (``form`` count | count_register | repeat forms, Counter
    mode read from ``vmask``); ``strides``: (block strides, repeat strides) of its repeat forms, by
    default ``halves(case.strides)``."""
    if case.form in ("count", "count_register"):
        strides = None
    elif strides is None:
        strides = halves(case.strides)
    form = "count" if case.form == "count_register" else case.form
    reps = reps_needed(case, L)
    return call_labels(p, L, form, case.mask_mode, case.mask, reps, strides, case.form != "count_register")


def lanes(p, dtype):
    d = _dt.as_dtype(dtype)
    return p.repeat_bytes * 8 // d.bits if d.sub_byte else p.lanes(d)


# -- shrinking -----------------------------------------------------------------------------------


def smaller_ints(v, lo=0):
    """Simpler values of a non-negative int, simplest first."""
    v = int(v)
    out = []
    for c in (lo, 1, v // 2, v - 1):
        if lo <= c < v and c not in out:
            out.append(c)
    return out


def bit_halves(v):
    """Simpler bit sets of ``v``: its lowest / highest set bit alone, then each half of its set
    bits."""
    v = int(v)
    bits = [i for i in range(v.bit_length()) if v >> i & 1]
    if len(bits) <= 1:
        return []
    out = [1 << bits[0], 1 << bits[-1]]
    h = len(bits) // 2
    for part in (bits[:h], bits[h:]):
        out.append(sum(1 << i for i in part))
    return list(dict.fromkeys(out))


def words_value(words):
    return sum(int(w) << (64 * i) for i, w in enumerate(words))


def value_words(v, n):
    return tuple((int(v) >> (64 * i)) & (2**64 - 1) for i in range(n))


def generic_shrinks(case, p, default_strides):
    """Candidates common to the strided families: fewer repeats, smaller counts, simpler masks,
    default strides, Normal mode, simpler data. Each is a ``dataclasses.replace`` of ``case``."""
    rep = dataclasses.replace
    f = {x.name for x in dataclasses.fields(case)}
    out = []
    if "repeat" in f:
        out += [rep(case, repeat=r) for r in smaller_ints(case.repeat, lo=1)]
    if "count" in f and getattr(case, "form", "") == "count":
        out += [rep(case, count=c) for c in smaller_ints(case.count, lo=1)]
    if "mask" in f and getattr(case, "mask_mode", 0) == 0:
        m = case.mask
        if isinstance(m, tuple):
            v = words_value(m)
            out += [rep(case, mask=value_words(b, len(m))) for b in bit_halves(v)]
        elif isinstance(m, int) and getattr(case, "form", "") == "continuous":
            L = lanes(p, case.dtype)
            out += [rep(case, mask=c) for c in smaller_ints(min(m, L), lo=1)]
            if m > L:
                out.append(rep(case, mask=L))
    if "strides" in f and tuple(case.strides) != tuple(default_strides):
        out.append(rep(case, strides=tuple(default_strides)))
        for k, d in enumerate(default_strides):
            if case.strides[k] != d:
                s = list(case.strides)
                s[k] = d
                out.append(rep(case, strides=tuple(s)))
    if "data" in f and case.data != "small":
        out.append(rep(case, data="small"))
    if "cmpmask" in f and any(case.cmpmask):
        out.append(rep(case, cmpmask=(0, 0, 0, 0)))
    return out


def scalar_shrinks(case):
    """The case with the scalar 1 (of its type) where it has a scalar other than 0 and 1."""
    s = case.scalar
    return [] if s is None or s in (0, 1) else [dataclasses.replace(case, scalar=type(s)(1))]


def repeat_count_shrinks(case):
    """One repeat, half the count: the smaller cases of a case with ``repeat`` and ``count``."""
    rep = dataclasses.replace
    out = []
    if case.repeat > 1:
        out.append(rep(case, repeat=1))
    if case.count > 1:
        out.append(rep(case, count=case.count // 2))
    return out


def reps_of_count(count, L):
    return math.ceil(int(count) / L)


def reps_needed(c, L):
    """Repeats a strided case's lanes span (``form`` count | count_register | repeat forms, Counter
    mode read from ``vmask``); its repeat bucket is the smallest one >= this."""
    if c.form == "count":
        r = math.ceil(c.count / L)
    elif c.form == "count_register":
        r = 1
    else:
        r = c.repeat
    if c.mask_mode == 1 and c.form != "count":
        r = max(r, math.ceil((c.vmask[0] | (c.vmask[1] << 32)) / L))
    return r


@functools.cache
def _plan_state(p):
    from ...state import reset_state

    return reset_state(p, ub_bytes=32)


def state_for(c, p):
    """A tiny state with the case's mask registers (the planners read the mask mode / Counter count)."""
    import jax.numpy as jnp

    st = _plan_state(p)
    return st.replace(
        vmask=jnp.asarray(np.array(c.vmask, np.uint32)),
        mask_mode=jnp.asarray(c.mask_mode, st.mask_mode.dtype),
    )


def normal_mode_shrinks(case):
    """A Counter-mode case in Normal mode (``vmask`` at its reset value), or nothing."""
    if case.mask_mode != 1:
        return []
    return [dataclasses.replace(case, mask_mode=0, vmask=VMASK_RESET)]


def mode_shrinks(case):
    """Counter -> Normal mode, a smaller register count (a strided case with ``form``, ``count``,
    ``mask_mode`` and ``vmask``)."""
    out = []
    if case.form == "count_register":
        out += [dataclasses.replace(case, count=c) for c in (0, 1) if c < case.count]
    return out + normal_mode_shrinks(case)


def plan_ok(plan, c, p):
    """Whether the fast path models ``c``'s variant: ``plan(c, state, p, 1)``, a family's trial
    plan of a plain case, raises neither ``NotModelledError`` nor ``UsageError``."""
    try:
        plan(c, state_for(c, p), p, 1)
    except (NotModelledError, UsageError):
        return False
    return True


def plain_case(case_type, api, dtype, nsrc, has_scalar, **fields):
    """A plain strided ``case_type`` (a trial plan's): api, dtype, count form, dst and ``nsrc``
    sources at 0, the type's scalar 0 if ``has_scalar``, one element (``fields``: the rest)."""
    d = _dt.as_dtype(dtype)
    scalar = (complex(0) if d.kind == "complex" else 0.0 if d.is_float else 0) if has_scalar else None
    return case_type(api, dtype, "count", 0, (0,) * nsrc, scalar, count=1, **fields)


def src_mutations(rng, p, case):
    """One data-dependent fault in a valid case whose sources are a tuple ``srcs``: dst misaligned
    or at the end of UB, a source moved next to dst (partial overlap), or dst's block stride 0
    (repeat forms only)."""
    rep = dataclasses.replace
    kinds = ["misaligned", "out-of-ub"] + (["overlap"] if case.srcs else [])
    if case.form not in ("count", "count_register"):
        kinds.append("dst-blk-stride-0")
    k = kinds[int(rng.integers(len(kinds)))]
    if k == "overlap":
        i = int(rng.integers(len(case.srcs)))
        s = list(case.srcs)
        s[i] = case.dst + 32 * int(rng.choice([1, 2, 8]))
        return rep(case, srcs=tuple(s)), k
    if k == "dst-blk-stride-0":
        s = list(case.strides)
        s[0] = 0
        return rep(case, strides=tuple(s)), k
    if k == "misaligned":
        return rep(case, dst=case.dst + max(1, p.operand_alignment_bytes // 2)), k
    return rep(case, dst=case.ub_bytes - 32 * int(rng.integers(0, 3))), k


def bucket_of(n, buckets):
    """The smallest of the static repeat ``buckets`` holding ``n`` repeats (the largest if none)."""
    for b in buckets:
        if n <= b:
            return b
    return buckets[-1]


STRIDED_FORMS = ("count", "count_register", "continuous", "bitwise", "register")


def strided_forms(p, api, dt, count_only=False):
    """The call forms of ``api`` for element type ``dt`` on ``p``: the count form alone where the
    page lists that prototype only (``count_only``) or ``p`` lists ``dt`` as count-only
    (``count_only_dtypes``: "仅支持tensor前n个数据计算接口"), else ``STRIDED_FORMS`` (``profile_forms``)."""
    if count_only or dt in p.api(api).count_only_dtypes:
        return ("count",)
    return profile_forms(p, STRIDED_FORMS)


def profile_forms(p, forms):
    """``forms`` without ``count_register`` where the profile ignores a level-2 call's isSetMask
    (``level2_is_set_mask``, hw_profiles/README.md)."""
    return tuple(f for f in forms if f != "count_register" or p.level2_is_set_mask == "honoured")


# -- export helpers ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Operand:
    """A UB region a call reads or writes, for export to .bin files."""

    name: str  # "src0", "dst", ...
    addr: int  # byte address
    nbytes: int
    dtype: str  # element type the .bin file holds
    role: str  # "in" | "out" | "inout"
    layout: tuple = ()  # ("strided", blk, rep, blocks_per_repeat, repeats) | ("bits", bytes_per_repeat)
    # | ("packed",): how a byte maps back to (repeat, block, lane)


def strided_operand(name, addr, dtype, blk, rep, nblk, reps, role):
    """The byte range a strided operand covers over ``reps`` repeats of ``nblk`` blocks."""
    reps = max(1, int(reps))
    lo, hi = None, None
    for r in range(reps):
        for b in range(nblk):
            a = addr + (r * rep + b * blk) * 32
            lo = a if lo is None else min(lo, a)
            hi = a + 32 if hi is None else max(hi, a + 32)
    return Operand(name, lo, hi - lo, dtype, role, ("strided", addr, blk, rep, nblk, reps))


SRC_NAMES = {2: ("src0", "src1"), 1: ("src",), 0: ()}  # the sources of a call, by their number


def layout_operands(srcs, dst, s, reps, dtype, nblk, src_dtype=None, src_nblk=None):
    """The operands of a strided call with repeat parameters ``s`` (block strides of dst and the
    sources, then their repeat strides): the sources ``srcs`` ((name, address) pairs) read, then dst
    (``dtype``, ``nblk`` blocks a repeat) read and written; the sources' type and blocks
    ``src_dtype`` / ``src_nblk``, by default dst's."""
    h = len(s) // 2
    sd, sn = src_dtype or dtype, src_nblk or nblk
    ops = [strided_operand(n, a, sd, s[1 + i], s[h + 1 + i], sn, reps, "in") for i, (n, a) in enumerate(srcs)]
    ops.append(strided_operand("dst", dst, dtype, s[0], s[h], nblk, reps, "inout"))
    return ops


def locate(layout, byte_addr, itemsize):
    """(repeat, block, lane) of a byte in an operand's layout (the first in program order), or
    None."""
    kind = layout[0] if layout else ""
    if kind == "strided":
        _, addr, blk, rep, nblk, reps = layout
        E = 32 // itemsize
        for r in range(reps):
            for b in range(nblk):
                a = addr + (r * rep + b * blk) * 32
                if a <= byte_addr < a + 32:
                    return (r, b, b * E + (byte_addr - a) // itemsize)
        return None
    if kind == "bits":
        _, addr, W, L = layout
        off = byte_addr - addr
        r, lane0 = divmod(off, W)
        return (r, (lane0 * 8) // 256 if L else 0, lane0 * 8)
    if kind == "packed":
        _, addr = layout
        j = (byte_addr - addr) // itemsize
        return (0, j * itemsize // 32, j)
    return None


# -- deliberately invalid cases ------------------------------------------------------------------


def size_misuse(case, p, count_form):
    """(case, argument) of a static misuse: a count of more elements than UB holds (a count form),
    else a repeatTime above ``max_repeat_times``."""
    if count_form:
        return dataclasses.replace(
            case, count=p.ub_usable_bytes // _dt.as_dtype(case.dtype).itemsize + 1
        ), "count"
    return dataclasses.replace(case, repeat=p.max_repeat_times + 1), "repeatTime"


def data_mutations(rng, p, case, dst="dst", src="src", dst_blk_stride=True):
    """One data-dependent fault injected into a valid case: (case, what). What the fault bits
    must then be is decided by both implementations (a call with no active lane faults on
    nothing), and they must agree."""
    rep = dataclasses.replace
    kinds = ["misaligned", "out-of-ub", "overlap"]
    if dst_blk_stride and hasattr(case, "strides") and getattr(case, "form", "") not in ("count", "-"):
        kinds.append("dst-blk-stride-0")
    k = kinds[int(rng.integers(len(kinds)))]
    a = getattr(case, dst)
    if k == "misaligned":
        step = max(1, p.operand_alignment_bytes // 2)
        return rep(case, **{dst: a + step}), k
    if k == "out-of-ub":
        return rep(case, **{dst: case.ub_bytes - 32 * int(rng.integers(0, 3))}), k
    if k == "overlap":
        return rep(case, **{src: a + 32 * int(rng.choice([1, 2, 8]))}), k
    s = list(case.strides)
    s[0] = 0
    return rep(case, strides=tuple(s)), k


# -- initial UB data and mask words shared by the families ---------------------------------------

_SPECIAL_F32 = [
    0x00000000,
    0x80000000,
    0x7F800000,
    0xFF800000,
    0x7FC00000,
    0xFFC00001,
    0x00000001,
    0x807FFFFF,
    0x00800000,
    0x7F7FFFFF,
    0xFF7FFFFF,
    0x3F800000,
    0xBF800000,
    0x7F800001,
]
_SPECIAL_F16 = [
    0x0000,
    0x8000,
    0x7C00,
    0xFC00,
    0x7E00,
    0xFE01,
    0x0001,
    0x83FF,
    0x0400,
    0x7BFF,
    0xFBFF,
    0x3C00,
    0xBC00,
    0x7C01,
]
_SPECIAL_BF16 = [
    0x0000,
    0x8000,
    0x7F80,
    0xFF80,
    0x7FC0,
    0xFFC1,
    0x0001,
    0x807F,
    0x0080,
    0x7F7F,
    0xFF7F,
    0x3F80,
    0xBF80,
    0x7F81,
]


_SPECIAL_F64 = [
    0x0000000000000000,  # +0
    0x8000000000000000,  # -0
    0x7FF0000000000000,  # +inf
    0xFFF0000000000000,  # -inf
    0x7FF8000000000000,  # NaN
    0x0000000000000001,  # smallest subnormal
    0x800FFFFFFFFFFFFF,  # largest negative subnormal
    0x0010000000000000,  # smallest normal
    0x7FEFFFFFFFFFFFFF,  # largest finite
    0x3FF0000000000000,  # 1.0
    0xBFF0000000000000,  # -1.0
]


def specials(dtype):
    d = _dt.as_dtype(dtype)
    if d.name == "float32":
        return _SPECIAL_F32
    if d.name == "half":
        return _SPECIAL_F16
    if d.name == "bfloat16":
        return _SPECIAL_BF16
    if d.name == "float64":
        return _SPECIAL_F64
    if d.kind == "complex":  # (real, imag) pairs of the part type's specials, real at the low bits
        part = _SPECIAL_F16 if d.name == "complex32" else _SPECIAL_F32
        w = d.bits // 2
        return [
            int(part[i % len(part)]) | (int(part[(3 * i + 1) % len(part)]) << w) for i in range(len(part))
        ]
    lo, hi = (-(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1) if d.is_signed_int else (0, (1 << d.bits) - 1)
    vals = [lo, hi, 0, 1, -1 if d.is_signed_int else 2, lo + 1, hi - 1]
    return [v & ((1 << d.bits) - 1) for v in vals]


# -- a case's initial UB bytes ------------------------------------------------------------------
# Drawn by a counter-based hash (splitmix64 over (seed, stream, word index)), not a seeded NumPy
# Generator per case: building one cost ~20 us a case and drawing through it ~20-100 us more, the
# largest share of a campaign's fast path (issue 36). Every byte still depends on the case's seed
# alone. Campaign journals record the generator (``UB_GENERATOR``); one written with the old one
# is not resumed (its cases would get other UB bytes).

UB_GENERATOR = 2
_M64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix64(x):
    """splitmix64's finaliser on uint64 arrays (products wrap)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _keys(seeds, stream):
    """The hash key of each seed's ``stream`` (uint64; products and sums wrap)."""
    x = np.asarray(seeds, np.uint64) * np.uint64(0x100000001B3) + np.uint64((stream * _GOLDEN + 1) & _M64)
    return _mix64(x)


_COUNTERS = {}


def hash_rows(seeds, n, stream=0):
    """``[len(seeds), n]`` pseudo-random uint64 words: row ``r`` of ``(seeds[r], stream)`` (word
    ``k`` depends on them and ``k`` alone)."""
    c = _COUNTERS.get(n)
    if c is None:
        c = _COUNTERS.setdefault(n, np.arange(1, n + 1, dtype=np.uint64) * np.uint64(_GOLDEN))
    return _mix64(c[None, :] + _keys(seeds, stream)[:, None])


def hash_words(seed, n, stream=0):
    """``n`` pseudo-random uint64 words of ``(seed, stream)``."""
    return hash_rows([seed], n, stream)[0]


_POOLS = {}


def _special_pool(d):
    """``specials(d)`` as an array of ``d``'s bit type (built once per type)."""
    pool = _POOLS.get(d.name)
    if pool is None:
        pool = _POOLS.setdefault(d.name, np.array(specials(d), dtype=np.uint64).astype(d.bits_dtype))
    return pool


def _sub_byte_rows(ub, seeds, d, data, nb):
    """Specials / small values of a sub-byte type (int4b_t): drawn per lane and packed two a byte
    (element 2k the low nibble); a special-style byte where neither lane was picked keeps its raw
    bits (the other lane of a picked pair is -1)."""
    n, m = 8 * nb // d.bits, (1 << d.bits) - 1
    h = hash_rows(seeds, -(-n // 2), 1 if data == "specials" else 2).view(np.uint32)[:, :n]
    if data == "specials":
        pool = np.array(specials(d), dtype=np.int64)
        pick = pool[((h & np.uint32(0xFFFF)).astype(np.int64) * len(pool)) >> 16]
        vals = np.where(h >= np.uint32(1 << 31), pick, -1)
    else:  # uniform over the type's range
        vals = (h >> np.uint32(32 - d.bits)).astype(np.int64) - (1 << (d.bits - 1))
    lanes = (vals & m).astype(np.uint8).reshape(len(seeds), -1, 2)
    packed = lanes[..., 0] | (lanes[..., 1] << d.bits)
    if data == "specials":
        keep = (vals.reshape(len(seeds), -1, 2) != -1).any(axis=2)
        return np.where(keep, packed, ub).astype(np.uint8)
    return packed.astype(np.uint8)


def make_ub(case):
    """The case's initial UB bytes (deterministic from ub_seed and the data style)."""
    return make_ubs([case])[0]


def make_ubs(cases):
    """``make_ub`` of several cases at once, as the rows of one uint8 array (cases of one UB size;
    the data style and element type may differ from row to row)."""
    nb = int(cases[0].ub_bytes)
    if any(int(c.ub_bytes) != nb for c in cases):
        raise ValueError("make_ubs: cases of one UB size only")
    seeds = np.array([c.ub_seed for c in cases], np.uint64)
    ub = hash_rows(seeds, -(-nb // 8)).view(np.uint8)[:, :nb]
    if nb % 8:
        ub = np.ascontiguousarray(ub)
    styles = {}
    for r, c in enumerate(cases):
        if c.data != "raw":
            styles.setdefault((c.data, c.dtype), []).append(r)
    for (data, dtype), rows in styles.items():
        d = _dt.as_dtype(dtype)
        rows = np.asarray(rows)
        if d.sub_byte:
            ub[rows] = _sub_byte_rows(ub[rows], seeds[rows], d, data, nb)
            continue
        n = nb // d.itemsize
        if data == "specials":
            pool = _special_pool(d)
            h = hash_rows(seeds[rows], -(-n // 2), 1).view(np.uint32)[:, :n]
            pick = pool[((h & np.uint32(0xFFFF)) * np.uint32(len(pool))) >> np.uint32(16)]
            words = ub[rows, : n * d.itemsize].view(d.bits_dtype)
            ub[rows, : n * d.itemsize] = np.where(h >= np.uint32(1 << 31), pick, words).view(np.uint8)
        elif data == "small":
            h = (hash_rows(seeds[rows], -(-n // 2), 2).view(np.uint32)[:, :n] >> np.uint32(25)).astype(
                np.int32
            )
            if d.is_float:  # 0 .. 127 -> -16 .. 15.75 in quarters
                vals = ((h - 64).astype(np.float32) / 4).astype(d.np_dtype)
            else:  # -100 .. 99
                vals = ((h * 200 >> 7) - 100).astype(d.np_dtype)
            ub[rows, : n * d.itemsize] = vals.view(np.uint8)
    return ub


# the dtypes an invalid-static case may draw T from (those a product does not list for the API)
ALL_DTYPES = ("int8", "uint8", "int16", "uint16", "half", "bfloat16", "int32", "uint32", "float32")


def unlisted_dtype(rng, p, api, dtypes=ALL_DTYPES):
    """A random type of ``dtypes`` that ``p`` does not list for ``api`` (an invalid-static case's
    T), or None."""
    bad = [x for x in dtypes if x not in p.api(api).all_dtypes()]
    return bad[int(rng.integers(len(bad)))] if bad else None


def scalar_dtype_misuse(rng, p, case, name, **fields):
    """An invalid-static variant of a strided ``case`` whose API may take a scalar: an element type
    ``p`` does not list for it (``unlisted_dtype``), in the count form of 16 elements, the scalar
    (if any) that type's 1 (``fields``: more to change), as ``(case, name)``; None where ``p``
    lists every type."""
    bad = unlisted_dtype(rng, p, case.api)
    if not bad:
        return None
    bd = _dt.as_dtype(bad)
    scalar = None if case.scalar is None else (1.0 if bd.is_float else 1)
    return dataclasses.replace(case, dtype=bd.name, form="count", count=16, scalar=scalar, **fields), name


def draw_repeat_strides(rng, default_strides, fault_rate):
    """A strided case's repeatTime (mostly edge values) and repeat parameters (half the time the
    defaults, else small picks; a dst block stride 0 only at ``fault_rate``)."""
    rep_choices = [0, 1, 1, 2, 3, 4, 8, 17, 255]
    repeat = (
        int(rep_choices[rng.integers(len(rep_choices))]) if rng.random() < 0.8 else int(rng.integers(0, 256))
    )
    if rng.random() < 0.5:
        return repeat, tuple(default_strides)
    pick = [0, 1, 1, 2, 3, 4, 7, 8, 9, 16]
    strides = tuple(int(pick[rng.integers(len(pick))]) for _ in default_strides)
    if strides[0] == 0 and rng.random() > fault_rate:
        strides = (1,) + strides[1:]
    return repeat, strides


def footprint(blk, rep, reps):
    """Blocks spanned by ``reps`` repeats of an operand with block / repeat strides ``blk`` / ``rep``."""
    return (max(reps, 1) - 1) * rep + 7 * blk + 1


def draw_addr(rng, nblocks, fp_blocks, fault_rate):
    """An operand address leaving room for ``fp_blocks`` blocks; at ``fault_rate`` misaligned or
    likely out of the arena."""
    hi = max(0, nblocks - min(fp_blocks, nblocks))
    b = int(rng.integers(0, hi + 1))
    if rng.random() < fault_rate / 2:
        return b * 32 + int(rng.choice([2, 4, 16]))  # misaligned
    if rng.random() < fault_rate / 2:
        return int(rng.integers(nblocks - 2, nblocks + 4)) * 32  # likely out of the arena
    return b * 32


def mask_words32(mask, n_words32):
    """A bitwise mask (uint64 words, low word first) as the uint32 words the fast path traces."""
    out = np.zeros(n_words32, np.uint32)
    for k, w in enumerate(mask):
        out[2 * k] = w & 0xFFFFFFFF
        out[2 * k + 1] = w >> 32
    return out


def int32_columns(cases, *names):
    """The int fields ``names`` of a signature's cases as int32 columns (``stack_dyn`` entries)."""
    return {k: np.asarray([int(getattr(c, k)) for c in cases], np.int32) for k in names}


FORM_CODES = {
    "count": AnyForm.COUNT,
    "count_register": AnyForm.COUNT,
    "continuous": AnyForm.CONTINUOUS,
    "bitwise": AnyForm.BITWISE,
}


def form_code(form):
    """``AnyForm``'s code of a call form (``FORM_CODES``; the register and mask-less forms:
    PLACEHOLDER)."""
    return FORM_CODES.get(form, AnyForm.PLACEHOLDER)


def form_codes(cases):
    """``form_code`` of a signature's cases as an int32 column (a ``stack_dyn`` entry)."""
    return np.asarray([form_code(c.form) for c in cases], np.int32)


def mask_columns(cases, n_words32=8):
    """A signature's masks as ``stack_dyn`` entries: ``mask``, the continuous form's lane count
    (0 in other forms; above 2**32 - 1, which it acts as: every lane), and ``words``, the bitwise
    form's words as ``n_words32`` uint32."""
    return {
        "mask": np.asarray(
            [min(c.mask, 2**32 - 1) if c.form == "continuous" else 0 for c in cases], np.uint32
        ),
        "words": np.stack([mask_words32(c.mask if c.form == "bitwise" else (), n_words32) for c in cases]),
    }


def stack_rows(rows):
    """The per-case values (pytrees of arrays, one structure) stacked along a new first axis."""
    return jax.tree_util.tree_map(lambda *x: np.stack([np.asarray(v) for v in x]), *rows)


def bucket_kw(fn, R):
    """``{"max_repeats": R}`` for the fast path's public API (its static repeat bucket for traced
    counts and repeats); ``{}`` for the oracle, which has no such parameter."""
    return {"max_repeats": R} if "max_repeats" in inspect.signature(fn).parameters else {}


def call_values(mod, api, case, dyn, R):
    """(``mod``'s ``api``, the case's values, ``bucket_kw``) of a call of the public API vmapped over
    traced values: the values ``dyn`` (one case's row of ``stack_dyn``) or the case's own fields."""
    fn = getattr(mod, api)
    return fn, dyn if dyn is not None else dataclasses.asdict(case), bucket_kw(fn, R)


def random_ub(seed, n):
    """``n`` random UB bytes of a case's seed (a writable array; the raw style of ``make_ub``)."""
    return hash_words(seed, -(-int(n) // 8)).view(np.uint8)[:n]


def is_reference(mod):
    """The NumPy reference, or an oracle standing in for it (``ascend_jax.fuzz.Oracle``)."""
    return mod is _ref or getattr(mod, "_is_reference", False)
