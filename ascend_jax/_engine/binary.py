"""The binary pipeline: two sources (tensor, scalar or LocalTensor element), an optional selMask bit
stream, and one of three outputs -- a T tensor with strides (Select), a packed bit tensor (Compare,
Compares) or the CMPMASK register (Compare to CMPMASK). Shared by every "dst = f(src0, src1)" API of
the compare/select family: mask -> addresses -> faults -> gather -> compute -> program-order merge /
bit packing -> scatter -> register side effects.

``run_binary`` is jitted with everything shape-setting static (``BinaryStatic``) and everything else
traced (the ``dyn`` dict), so one compilation serves every address, stride, mask, scalar and repeat
count of a bucket. Semantics: docs/MODEL.md, section "Compare and Select".
"""

import dataclasses

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import Fault
from . import lanes as LN
from . import mask as M
from . import memory as MEM
from . import numerics as N
from . import pipeline as PL
from . import static as S

U32 = jnp.uint32
I32 = jnp.int32
_BLOCK = 32


@dataclasses.dataclass(frozen=True)
class BinaryStatic:
    """Static (hashable) description of one call; see the module docstring.

    mask_kind: "dyn" (traced: ``dyn["kind"]``, every call form in one program), "count" (count form), "all" (mask ignored: every lane of repeats < repeatTime),
      "continuous" | "bitwise" (the mask argument) | "register" (SetVectorMask state).
    lowering: register epilogue of the count form ("counter_mode" | "repeat_loop" | "vf_loop" | "none").
    count_tail: count form only -- "computed" (lanes g < count) or "dropped" (whole repeats only).
    a_kind / b_kind: operand src0 / src1: "tensor" (strided), "scalar" (dyn["scalar"]),
      "element" (one element read from UB at dyn["elem"]), "cmpmask" (the low bits of CMPMASK),
      "none" (b only: no second operand).
    sel: "none" | "fixed" (mode 0: the first L bits, every repeat) | "stream" (modes 1/2: L bits
      per repeat, consumed contiguously); sel_addr: "dyn" (dyn["sel"]) | "cmpmask" (CMPMASK word 0)
      | "register" (mode-0 bits are CMPMASK itself).
      sel "dyn" (Select with a traced SELMODE): ``dyn["sel_mode"]`` (0/1/2) and ``dyn["nomask"]``
      (the mask-less prototype) pick, per call, what the static fields pick per program: b_kind
      "dyn" (src1 tensor in modes 0/2, ``dyn["scalar"]`` in mode 1, CMPMASK's low bits in mode 1
      without a mask), the selMask source (fixed / stream at dyn["sel"], the CMPMASK bits, the
      CMPMASK address), the scratch regions' use (``dyn["scratch_on"]``) and, with side "dyn",
      the CMPMASK / scratch side effect of the mode (none without a mask).
    cmp: "" (select) or "dyn" (compare; the CMPMODE value is traced data, dyn["cmp"]).
    out: "vec" | "bits" | "cmpmask"; ordered: "vec" dst blocks may coincide (program-order writes).
    scratch: ((first_byte, end_byte), ...) reserved UB no byte the call touches may fall in.
    side: CMPMASK side effect of Select with a selMask tensor: "none" | "sel_head" (mode 0)
      | "scalar_splat" (mode 1) | "addr_splat" (mode 2); side_slot: byte offset of the 32-byte
      scratch slot those splats are also written to (-1: none).

    ``api`` names the call for messages only and is not part of the compilation key (Compares and
    its older name CompareScalar, for example, share one program).
    """

    api: str = dataclasses.field(compare=False)
    dtype: object
    R: int
    mask_kind: str
    lowering: str
    count_tail: str
    a_kind: str
    b_kind: str
    sel: str
    sel_addr: str
    cmp: str
    out: str
    ordered: bool
    scratch: tuple
    side: str
    side_slot: int
    profile: object


# -- element functions ---------------------------------------------------------------------------

_FMT = {"half": N.HALF, "bfloat16": N.BF16, "float32": N.F32}


def _float_key(bits, fmt):
    """int32 key with the numeric order of non-NaN floats and -0 == +0 (integer arithmetic only, so
    the backend's denormals-are-zero mode cannot touch subnormals)."""
    b = bits.astype(U32)
    mag = (b & np.uint32(fmt.abs)).astype(I32)
    neg = (b & np.uint32(fmt.sign)) != 0
    return jnp.where(neg, -mag, mag)


def _to_signed(bits, nbits):
    if nbits == 32:
        return bits.astype(U32).astype(I32)
    sh = np.int32(32 - nbits)
    return lax.shift_right_arithmetic((bits.astype(U32) << np.uint32(32 - nbits)).astype(I32), sh)


CMP_CODES = ("LT", "GT", "EQ", "LE", "GE", "NE")  # the C++ CMPMODE values 0..5

_F64_SIGN, _F64_EXP_HI, _F64_MAN_HI = np.uint32(0x80000000), np.uint32(0x7FF00000), np.uint32(0x000FFFFF)


def _pair_keys(v, dtype, profile):
    """(high key, low word, NaN) of 64-bit lanes held as uint32 (low, high) pairs ``v[..., 2]``:
    comparing (high, low) lexicographically gives T's order (high as int32 for a signed T; for
    double an order-preserving unsigned key with -0 == +0, computed in integers)."""
    lo, hi = v[..., 0].astype(U32), v[..., 1].astype(U32)
    if not dtype.is_float:
        return (hi.astype(I32) if dtype.is_signed_int else hi), lo, None
    if profile.float_subnormals == "flush_to_zero":
        sub = ((hi & _F64_EXP_HI) == 0) & (((hi & _F64_MAN_HI) != 0) | (lo != 0))
        hi, lo = jnp.where(sub, hi & _F64_SIGN, hi), jnp.where(sub, U32(0), lo)
    mag = hi & ~_F64_SIGN
    nan = (mag > _F64_EXP_HI) | ((mag == _F64_EXP_HI) & (lo != 0))
    zero = (mag == 0) & (lo == 0)
    hi = jnp.where(zero, U32(0), hi)  # -0 reads as +0
    neg = (hi & _F64_SIGN) != 0
    return jnp.where(neg, ~hi, hi | _F64_SIGN), jnp.where(neg, ~lo, lo), nan


def _select_code(code, lt, gt, eq):
    code = jnp.asarray(code, I32)
    return jnp.select([code == i for i in range(6)], [lt, gt, eq, lt | eq, gt | eq, ~eq], False)


def compare_pairs(a, b, code, dtype, profile):
    """``compare_bits`` for 64-bit T (int64 / uint64 / double) held as uint32 (low, high) pairs."""
    b = jnp.broadcast_to(b, a.shape)
    xh, xl, nan_a = _pair_keys(a, dtype, profile)
    yh, yl, nan_b = _pair_keys(b, dtype, profile)
    eq = (xh == yh) & (xl == yl)
    lt = (xh < yh) | ((xh == yh) & (xl < yl))
    gt = (xh > yh) | ((xh == yh) & (xl > yl))
    r = _select_code(code, lt, gt, eq)
    if nan_a is not None:
        # SPEC (IEEE 754): every ordered comparison with a NaN operand is false; NE is true.
        r = jnp.where(nan_a | nan_b, jnp.asarray(code, I32) == CMP_CODES.index("NE"), r)
    return r


def compare_bits(a, b, code, dtype, profile):
    """bool: ``a MODE b`` for T bit patterns held in uint32 (b may be a broadcast scalar); ``code``
    is the (traced) CMPMODE value, an index into CMP_CODES."""
    b = jnp.broadcast_to(b, a.shape)
    if dtype.is_float:
        fmt = _FMT[dtype.name]
        a, b = a.astype(U32), b.astype(U32)
        sign, exp, man = np.uint32(fmt.sign), np.uint32(fmt.exp), np.uint32(fmt.man)
        if profile.float_subnormals == "flush_to_zero":
            # subnormal inputs read as zero of the same sign (docs/MODEL.md "Numerics")
            a = jnp.where(((a & exp) == 0) & ((a & man) != 0), a & sign, a)
            b = jnp.where(((b & exp) == 0) & ((b & man) != 0), b & sign, b)
        absm = np.uint32(fmt.abs)
        nan = ((a & absm) > exp) | ((b & absm) > exp)
        x, y = _float_key(a, fmt), _float_key(b, fmt)
    elif dtype.is_signed_int:
        nan = None
        x, y = _to_signed(a, dtype.bits), _to_signed(b, dtype.bits)
    else:
        nan = None
        width = np.uint32(0xFFFFFFFF >> (32 - dtype.bits))
        x, y = a.astype(U32) & width, b.astype(U32) & width
    r = _select_code(code, x < y, x > y, x == y)
    if nan is not None:
        # SPEC (IEEE 754): every ordered comparison with a NaN operand is false; NE is true.
        r = jnp.where(nan, jnp.asarray(code, I32) == CMP_CODES.index("NE"), r)
    return r


# -- helpers -------------------------------------------------------------------------------------


def _bytes_to_bits(blocks):
    """uint8[..., 32] -> bool[..., 256], LSB first within each byte."""
    sh = np.arange(8, dtype=np.uint8)
    bits = ((blocks[..., None] >> sh) & 1) == 1
    return bits.reshape(blocks.shape[:-1] + (blocks.shape[-1] * 8,))


def _bits_to_bytes(bits):
    """bool[..., 8k] -> uint8[..., k], LSB first."""
    b = bits.reshape(bits.shape[:-1] + (-1, 8)).astype(jnp.uint8)
    return (b << np.arange(8, dtype=np.uint8)).sum(axis=-1, dtype=jnp.uint8)


def _bytes_to_value(raw, bits_dtype):
    """uint8[sizeof(T)] -> the T bit pattern as uint32 (little endian); 8 bytes -> uint32[2]."""
    size = np.dtype(bits_dtype).itemsize
    if raw.shape[0] == 8:
        return lax.bitcast_convert_type(raw.reshape(2, 4), U32)
    if size == 1:
        return raw[0].astype(U32)
    return lax.bitcast_convert_type(raw.reshape(1, size), bits_dtype)[0].astype(U32)


def _meet(a_start, a_len, b_start, b_len):
    """bool: byte ranges [a, a+a_len) and [b, b+b_len) intersect."""
    return (a_start < b_start + b_len) & (b_start < a_start + a_len)


def _splat_words(bits, size):
    """uint32[4]: the 16-byte image of a T value (bit pattern ``bits``, ``size`` bytes) repeated."""
    b = jnp.asarray(bits, U32)
    if size == 1:
        b = b & 0xFF
        w = b | (b << 8) | (b << 16) | (b << 24)
    elif size == 2:
        b = b & 0xFFFF
        w = b | (b << 16)
    else:
        w = b
    return jnp.broadcast_to(w, (4,)).astype(U32)


def _window(ub, addr, nbytes):
    """(first block, uint8 window of whole blocks covering [addr, addr + nbytes) for any addr % 32,
    offset of addr in the window)."""
    a = jnp.asarray(addr, I32)
    blk0 = jnp.floor_divide(a, _BLOCK)
    nblk = -(-nbytes // _BLOCK) + 1
    win = MEM.gather_blocks(ub, blk0 + np.arange(nblk, dtype=np.int32)).reshape(-1)
    return blk0, win, a - blk0 * _BLOCK


def _read_bytes(ub, addr, nbytes):
    _, win, off = _window(ub, addr, nbytes)
    return lax.dynamic_slice(win, (off,), (nbytes,))


def _stream_vs_blocks(s0, W, rep_ok, b_addr, b_act, R, want):
    """A per-repeat byte stream (repeat r owns [s0 + r*W, s0 + (r+1)*W), for r with rep_ok[r])
    against 32-byte operand blocks b_addr[R, 8] of repeat r_b (active where b_act).

    Returns (same, stream_later, stream_earlier): some block meets the stream bytes of its own
    repeat / of a later repeat / of an earlier repeat. Only the candidates that can meet a block are
    visited (32 / W + 1 of them), so the cost is O(R), not O(R^2)."""
    r_b = np.arange(R, dtype=np.int32)[:, None]
    first = jnp.floor_divide(b_addr - s0, W)
    same = later = earlier = jnp.zeros((), bool)
    for t in range(_BLOCK // W + 1):
        r = first + t
        ok = b_act & (r >= 0) & (r < R)
        ok = ok & rep_ok[jnp.clip(r, 0, R - 1)] & _meet(s0 + r * W, W, b_addr, _BLOCK)
        same = same | jnp.any(ok & (r == r_b))
        if "later" in want:
            later = later | jnp.any(ok & (r > r_b))
        if "earlier" in want:
            earlier = earlier | jnp.any(ok & (r < r_b))
    return same, later, earlier


# -- the pipeline --------------------------------------------------------------------------------


@S.entry
def run_binary(st: BinaryStatic, state, dyn):
    p = st.profile
    dt = st.dtype
    R, L = st.R, p.lanes(dt)
    E = p.block_bytes // dt.itemsize
    W = L // 8  # bytes of result / selMask bits per repeat
    # 64-bit T (950 count forms) travel as (low, high) uint32 pairs: lanes [R, L, 2], no x64 needed
    wide = dt.itemsize == 8
    if wide and (st.b_kind == "cmpmask" or st.side != "none"):
        raise NotImplementedError("64-bit lanes exist only in the count forms (no CMPMASK operand)")
    bits_dt = jnp.dtype(np.uint32) if wide else jnp.dtype(dt.bits_dtype)
    ub = state.ub
    limit = min(ub.shape[-1], p.ub_usable_bytes)
    rr = np.arange(R, dtype=np.int32)

    kind = None if st.mask_kind == "dyn" else LN.KINDS[st.mask_kind]  # "dyn": dyn["kind"] (AnyForm)
    plan = LN.plan(p, dt, R, state, dyn, kind, st.lowering, st.count_tail)
    if st.out == "cmpmask":  # one repeat by definition: a larger Counter count means all lanes
        plan = dataclasses.replace(plan, overflow=jnp.zeros((), bool))
    act = plan.act
    act3 = act.reshape(R, 8, E)
    blk_act = jnp.any(act3, axis=-1)
    rep_act = jnp.any(act, axis=-1)
    any_act = jnp.any(rep_act)
    db, s0b, s1b, dr, s0r, s1r = (dyn["strides"][i] for i in range(6))

    fault = jnp.zeros((), U32)
    aligned = []  # start addresses that must be operand-aligned
    footprint = []  # (byte start, static length, active) of every byte range the call touches

    # ---- operands ----
    width = None if wide else np.uint32(0xFFFFFFFF >> (32 - dt.bits))
    sources = []  # strided T sources: (block byte addresses [R, 8], repeat stride)

    gated = []  # sel "dyn": (start address that must be aligned, traced use) of optional operands

    def tensor(addr, blk, rep, on=None):
        baddr = MEM.block_addr(addr, blk, rep, R)
        if on is None:
            aligned.append(addr)
            footprint.append((baddr, _BLOCK, blk_act))
            sources.append((baddr, rep))
        else:  # an operand only some traced modes read (sel "dyn")
            gated.append((addr, on))
            footprint.append((baddr, _BLOCK, blk_act & on))
            gated_sources.append((baddr, rep, on))
        return PL.read_lanes(ub, baddr, dt)

    gated_sources = []
    dynsel = st.sel == "dyn"
    if dynsel:
        smode = jnp.asarray(dyn["sel_mode"], I32)
        nomask = jnp.asarray(dyn["nomask"], bool)
        m0, m1 = smode == 0, smode == 1

    def element(addr):
        e = jnp.asarray(addr, I32)
        footprint.append((e, dt.itemsize, any_act))
        raw = _read_bytes(ub, e, dt.itemsize)
        return e, _bytes_to_value(raw, bits_dt)

    elem = None
    if st.a_kind == "tensor":
        va = tensor(dyn["src0"], s0b, s0r)
    elif st.a_kind == "element":
        elem, va = element(dyn["elem"])
    else:
        va = dyn["scalar"]
    if st.b_kind == "tensor":
        vb = tensor(dyn["src1"], s1b, s1r)
    elif st.b_kind == "element":
        elem, vb = element(dyn["elem"])
    elif st.b_kind == "cmpmask":
        vb = state.cmpmask[0] & width
    elif st.b_kind == "dyn":  # sel "dyn": src1 tensor (modes 0/2), scalar (mode 1), CMPMASK (mode 1, no mask)
        vt = tensor(dyn["src1"], s1b, s1r, on=~m1)
        vs = dyn["scalar"] if wide else jnp.where(nomask, state.cmpmask[0] & width, dyn["scalar"])
        vb = jnp.where(m1, vs, vt)
    elif st.b_kind == "scalar":
        vb = dyn["scalar"]
    else:
        vb = None

    # ---- selMask ----
    sa = None
    if dynsel:
        # every mode's selection bits, the traced mode choosing; the selMask address is dyn["sel"]
        # but CMPMASK word 0 in the mask-less mode 2, and none in the mask-less mode 0
        sa = jnp.where(nomask & (smode == 2), state.cmpmask[0].astype(I32), jnp.asarray(dyn["sel"], I32))
        fixed_on = m0 & ~nomask
        gated.append((sa, ~(m0 & nomask)))
        head = _read_bytes(ub, sa, max(W, 16))
        reg_bits = M.bits_of_words(jnp.concatenate([state.cmpmask, jnp.zeros((4,), U32)]), L)
        fixed = jnp.where(nomask, reg_bits, _bytes_to_bits(head[:W])[:L])
        stream = _bytes_to_bits(_read_bytes(ub, sa, R * W)).reshape(R, L)
        sel = jnp.where(m0, jnp.broadcast_to(fixed[None, :], (R, L)), stream)
        footprint.append((sa, W, any_act & fixed_on))
        footprint.append((sa + rr * W, W, rep_act & ~m0))
    elif st.sel in ("fixed", "stream") and st.sel_addr != "register":
        sa = jnp.asarray(dyn["sel"] if st.sel_addr == "dyn" else state.cmpmask[0].astype(I32), I32)
        aligned.append(sa)
        if st.sel == "fixed":
            head = _read_bytes(ub, sa, max(W, 16))
            bits = _bytes_to_bits(head[:W])[:L]
            sel = jnp.broadcast_to(bits[None, :], (R, L))
            footprint.append((sa, W, any_act))
        else:
            raw = _read_bytes(ub, sa, R * W)
            sel = _bytes_to_bits(raw).reshape(R, L)
            footprint.append((sa + rr * W, W, rep_act))
    elif st.sel == "fixed":  # mode 0 without a selMask tensor: the CMPMASK bits themselves
        bits = M.bits_of_words(jnp.concatenate([state.cmpmask, jnp.zeros((4,), U32)]), L)
        sel = jnp.broadcast_to(bits[None, :], (R, L))
    else:
        sel = None

    # ---- destination ----
    if st.out == "vec":
        d_addr = MEM.block_addr(dyn["dst"], db, dr, R)
        aligned.append(dyn["dst"])
        footprint.append((d_addr, _BLOCK, blk_act))
        fault |= PL.strided_dst_faults(d_addr, sources, blk_act, any_act, db)
    elif st.out == "bits":
        d0 = jnp.asarray(dyn["dst"], I32)
        aligned.append(d0)
        footprint.append((d0 + rr * W, W, rep_act))

    # ---- faults ----
    for s_addr, s_rep, on in gated_sources:
        fault |= MEM.partial_overlap_fault(s_addr, d_addr, blk_act & on)
        fault |= MEM.repeat_dependency_fault(d_addr, s_addr, blk_act & on, blk_act & on, s_rep)
    fault |= MEM.misaligned_fault(tuple(aligned), any_act, p.operand_alignment_bytes)
    for g_addr, on in gated:
        fault |= MEM.misaligned_fault((g_addr,), any_act & on, p.operand_alignment_bytes)
    use = jnp.asarray(dyn["scratch_on"], bool) if dynsel else True
    fault |= PL.footprint_faults(footprint, limit, tuple((lo, hi, use) for lo, hi in st.scratch))
    part = dep = jnp.zeros((), bool)
    if st.out == "vec":
        if dynsel:
            hit = blk_act & _meet(sa, W, d_addr, _BLOCK) & fixed_on
            later = jnp.flip(jnp.cumsum(jnp.flip(rep_act.astype(I32))), 0) > 0
            later_strict = jnp.concatenate([later[1:], jnp.zeros((1,), bool)])
            same, stream_later, _ = _stream_vs_blocks(sa, W, rep_act & ~m0, d_addr, blk_act, R, ("later",))
            part = jnp.any(hit) | same
            dep = jnp.any(hit & later_strict[:, None]) | stream_later
        elif sa is not None and st.sel == "fixed":
            hit = blk_act & _meet(sa, W, d_addr, _BLOCK)
            later = jnp.flip(jnp.cumsum(jnp.flip(rep_act.astype(I32))), 0) > 0  # any r'' >= r
            later_strict = jnp.concatenate([later[1:], jnp.zeros((1,), bool)])
            part = part | jnp.any(hit)
            dep = dep | jnp.any(hit & later_strict[:, None])
        elif sa is not None:
            same, later, _ = _stream_vs_blocks(sa, W, rep_act, d_addr, blk_act, R, ("later",))
            part, dep = part | same, dep | later
        if elem is not None:
            # SPEC: Select（灵活标量位置）: an element scalar "不支持源操作数和目的操作数地址重叠".
            part = part | jnp.any(blk_act & _meet(elem, dt.itemsize, d_addr, _BLOCK))
    elif st.out == "bits":
        for s_addr, _ in sources:
            same, _, earlier = _stream_vs_blocks(d0, W, rep_act, s_addr, blk_act, R, ("earlier",))
            part, dep = part | same, dep | earlier
        if elem is not None:
            # SPEC: Compares（灵活标量位置）: an element scalar "不支持源操作数和目的操作数地址重叠"
            part = part | jnp.any(rep_act & _meet(elem, dt.itemsize, d0 + rr * W, W))
    fault |= jnp.where(part, U32(Fault.PARTIAL_OVERLAP), U32(0))
    fault |= jnp.where(dep, U32(Fault.REPEAT_DEPENDENCY), U32(0))
    fault |= PL.closing_faults(plan, dyn["bad_mask"], dyn["bad_param"])
    ok = fault == 0
    change = ok & ~plan.nop

    # ---- compute and write (every read above saw the UB before this call) ----
    cmpmask = state.cmpmask
    if st.out == "vec":
        shape = (R, L, 2) if wide else (R, L)
        pick = sel[..., None] if wide else sel
        new = jnp.where(pick, jnp.broadcast_to(va, shape), jnp.broadcast_to(vb, shape)).astype(bits_dt)
        ub = PL.write_lanes(ub, d_addr, new, act, blk_act & ok, st.ordered, dt, fence=S.is_static(d_addr))
    else:
        if wide:
            res = compare_pairs(jnp.broadcast_to(va, (R, L, 2)), vb, dyn["cmp"], dt, p) & act
        else:
            res = compare_bits(jnp.broadcast_to(va, (R, L)), vb, dyn["cmp"], dt, p) & act
        if st.out == "bits":
            res = MEM.materialize(res)  # (else XLA recomputes the comparison for every bit it packs)
            nbytes = R * W
            blk0, win, off = _window(ub, d0, nbytes)
            old = lax.dynamic_slice(win, (off,), (nbytes,))
            issued = jnp.repeat(rep_act, W)
            new = jnp.where(issued, _bits_to_bytes(res.reshape(-1)), old)
            win = lax.dynamic_update_slice(win, new, (off,))
            nblk = win.shape[0] // _BLOCK
            touched = jnp.zeros((nblk,), bool).at[(off + np.arange(nbytes)) // _BLOCK].max(issued)
            idx = blk0 + np.arange(nblk, dtype=np.int32)
            ub = MEM.scatter_blocks(ub, idx, win.reshape(nblk, _BLOCK), touched & ok)
        else:  # CMPMASK: bits [0, L) = result (inactive lanes 0), bits [L, 128) = 0
            row = jnp.concatenate([res[0], jnp.zeros((256 - L,), bool)])
            words = M.pack_bits(row)[:4]
            cmpmask = jnp.where(change, words, cmpmask)

    # ---- CMPMASK / scratch side effects of Select with a selMask tensor ----
    if st.side == "dyn":  # sel "dyn": the side effect of the traced mode; none without a mask
        on = change & ~nomask
        words = jnp.where(
            m0,
            lax.bitcast_convert_type(head[:16].reshape(4, 4), U32),
            jnp.where(m1, _splat_words(dyn["scalar"], dt.itemsize), jnp.broadcast_to(sa.astype(U32), (4,))),
        )
        cmpmask = jnp.where(on, words, cmpmask)
        if 0 <= st.side_slot and st.side_slot + _BLOCK <= ub.shape[-1]:
            slot_bytes = lax.bitcast_convert_type(jnp.concatenate([words, words]), jnp.uint8).reshape(_BLOCK)
            cur = ub[st.side_slot : st.side_slot + _BLOCK]
            write = on & ~m0 & jnp.asarray(dyn["scratch_on"], bool)
            ub = ub.at[st.side_slot : st.side_slot + _BLOCK].set(jnp.where(write, slot_bytes, cur))
    elif st.side != "none":
        slot = None
        if st.side == "sel_head":
            words = lax.bitcast_convert_type(head[:16].reshape(4, 4), U32)
        elif st.side == "scalar_splat":
            sv = vb if st.b_kind in ("scalar", "element", "cmpmask") else va
            words = _splat_words(sv, dt.itemsize)
            slot = jnp.concatenate([words, words])
        else:  # addr_splat
            words = jnp.broadcast_to(sa.astype(U32), (4,))
            slot = jnp.concatenate([words, words])
        cmpmask = jnp.where(change, words, cmpmask)
        if slot is not None and 0 <= st.side_slot and st.side_slot + _BLOCK <= ub.shape[-1]:
            slot_bytes = lax.bitcast_convert_type(slot, jnp.uint8).reshape(_BLOCK)
            cur = ub[st.side_slot : st.side_slot + _BLOCK]
            ub = ub.at[st.side_slot : st.side_slot + _BLOCK].set(jnp.where(change, slot_bytes, cur))

    return PL.finish(state, plan, fault, ub, cmpmask=cmpmask)
