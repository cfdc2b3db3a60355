"""The NumPy baseline: what a user would write instead of ascend_jax -- a straightforward,
vectorised-per-case NumPy model of the benchmarked APIs (Adds, Muls, Select modes 0/1/2, Compares,
GatherMask, ShiftRight) on one case's UB bytes.

Independent of ``ascend_jax/reference`` (the literal loop oracle) and of the JAX engine: it shares
only the profile data and the case generators' dataclasses (``ascend_jax/fuzz/families``). It models the
valid-call semantics of docs/MODEL.md (active lanes, strided addressing, program-order writes,
exact numerics, selMask streams, bit packing, gathering) and the register values a call reads; it
does not detect faults or produce register side effects, so the benchmark mix holds fault-free cases
only (the fast path is checked fault-free on every benchmark case). That makes the baseline cheaper
than the model it is compared with, i.e. the ratio is conservative.

Each API function takes the case's UB (``uint8[N]``, modified in place) and plain Python values;
``run_case`` adapts a generator case (``Case``, ``CmpSelCase``, ``ShiftCase``, ``GatherCase``).
"""

import math

import numpy as np

from ascend_jax import dtypes as _dt

_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


# -- active lanes ---------------------------------------------------------------------------------


def _bits_of(words32, n):
    """bool[n]: bits 0..n-1 of little-endian uint32 words."""
    w = np.asarray(words32, np.uint32)
    return np.unpackbits(w.view(np.uint8), bitorder="little")[:n].astype(bool)


def active_lanes(L, form, *, count=0, mask=None, repeat=0, vmask=(0,) * 8, mask_mode=0, is_set_mask=True):
    """bool[n_repeats, L]: the active lanes of one call (docs/MODEL.md "Which lanes are active").

    form: "count" | "continuous" | "bitwise" | "register"; ``mask`` an int or uint64 words; a zero
    count / mask / repeat gives no active lane (the "nop" policies of the benchmarked profile)."""
    vm = np.asarray(vmask, np.uint64)
    reg_count = int(vm[0]) | (int(vm[1]) << 32)
    if form == "count":
        if not is_set_mask:  # isSetMask=false: one repeat under the registers
            if mask_mode == 1:
                return _below(reg_count, L)
            return _bits_of(vmask, L)[None, :]
        return _below(count, L)
    if mask_mode == 1:  # Counter mode: the mask value is an element count
        if form == "continuous":
            n = int(mask)
        elif form == "bitwise":
            n = int(mask[0])
        else:
            n = reg_count
        return _below(n, L)
    if form == "continuous":
        lanes = np.arange(L) < min(int(mask), L)
    elif form == "bitwise":
        w = []
        for x in mask:
            w += [int(x) & 0xFFFFFFFF, int(x) >> 32]
        lanes = _bits_of(w + [0] * (8 - len(w)), L)
    else:
        lanes = _bits_of(vmask, L)
    return np.broadcast_to(lanes, (int(repeat), L))


def _below(n, L):
    reps = math.ceil(n / L)
    return (np.arange(reps * L) < n).reshape(reps, L)


# -- addressing -----------------------------------------------------------------------------------


def lane_index(addr, size, n_rep, L, blk_stride, rep_stride):
    """int64[n_rep, L]: element index (in units of ``size``) of lane l of repeat r of a strided
    operand: ``addr + (r*rep_stride + (l//E)*blk_stride)*32 + (l%E)*size``."""
    E = 32 // size
    r = np.arange(n_rep)[:, None]
    lane = np.arange(L)[None, :]
    byte = addr + (r * rep_stride + (lane // E) * blk_stride) * 32 + (lane % E) * size
    return byte // size


def write_lanes(view, idx, values, act):
    """view[idx] = values over the active lanes; a lane written twice keeps the later write in
    program order (repeat, lane)."""
    i, v = idx[act], values[act]
    if i.size and np.unique(i).size != i.size:
        # keep the last writer of every index: first occurrence in the reversed order
        _, first = np.unique(i[::-1], return_index=True)
        keep = i.size - 1 - first
        i, v = i[keep], v[keep]
    view[i] = v


# -- numerics -------------------------------------------------------------------------------------

_FLOAT = {"half": np.float16, "float32": np.float32}
_CANON = {"half": 0x7E00, "float32": 0x7FC00000}
_MAXBITS = {"half": 0x7BFF, "float32": 0x7F7FFFFF}


def scalar_arith(op, x_bits, s_bits, dtype, profile, ctrl):
    """Adds / Muls on T bit patterns (exact result rounded once; canonical NaN; float saturation
    by CTRL; integer wrap)."""
    d = _dt.as_dtype(dtype)
    bt = _BITS[d.itemsize]
    if d.is_float:
        ft = _FLOAT[d.name]
        with np.errstate(all="ignore"):
            x = x_bits.view(ft).astype(np.float64)
            s = float(np.array(s_bits, bt).view(ft))
            # half + half and half * half are exact in float64, so one rounding to half; float32 ops
            # in float32 are IEEE single-rounded
            if d.name == "float32":
                xf, sf = x_bits.view(np.float32), np.float32(s)
                r = (xf + sf) if op == "add" else (xf * sf)
            else:
                r = ((x + s) if op == "add" else (x * s)).astype(ft)
        out = r.view(bt).copy()
        nan = np.isnan(r)
        sat_bit = profile.float_saturation_ctrl_bit
        sat = (
            d.name in profile.float_saturation_dtypes
            and sat_bit >= 0
            and ((int(ctrl[sat_bit // 32]) >> (sat_bit % 32)) & 1) == profile.float_saturation_when_bit_is
        )
        if sat:
            inf = np.isinf(r)
            out[inf] = np.where(r[inf] > 0, _MAXBITS[d.name], _MAXBITS[d.name] | (1 << (d.bits - 1)))
            out[nan] = 0
        elif profile.nan_result == "canonical":
            out[nan] = _CANON[d.name]
        return out
    it = d.np_dtype
    x = x_bits.view(it)
    s = np.array(s_bits, bt).view(it)
    with np.errstate(all="ignore"):
        r = (x + s) if op == "add" else (x * s)
    return r.astype(it).view(bt)


# -- the APIs -------------------------------------------------------------------------------------


def unary(op, ub, dtype, dst, src, s_bits, act, strides, profile, ctrl):
    """Adds / Muls: dst = f(src, scalar) over the active lanes."""
    d = _dt.as_dtype(dtype)
    size, L = d.itemsize, 256 // d.itemsize
    view = ub.view(_BITS[size])
    db, sb, dr, sr = strides
    n = act.shape[0]
    si = lane_index(src, size, n, L, sb, sr)
    di = lane_index(dst, size, n, L, db, dr)
    vals = scalar_arith(op, view[si[act]], s_bits, d, profile, ctrl)
    full = np.zeros(si.shape, vals.dtype)
    full[act] = vals
    write_lanes(view, di, full, act)


def shift_right(ub, dtype, dst, src, amount, round_en, act, strides):
    """ShiftRight: logical for unsigned T, arithmetic for signed; roundEn adds bit n-1."""
    d = _dt.as_dtype(dtype)
    size, L = d.itemsize, 256 // d.itemsize
    view = ub.view(_BITS[size])
    db, sb, dr, sr = strides
    n_rep = act.shape[0]
    si = lane_index(src, size, n_rep, L, sb, sr)
    di = lane_index(dst, size, n_rep, L, db, dr)
    x = view[si[act]].view(d.np_dtype).astype(np.int64)
    n = int(amount)
    r = x >> min(n, 63)
    if round_en and d.is_signed_int and n >= 1:
        r = r + ((x >> (n - 1)) & 1)
    full = np.zeros(si.shape, _BITS[size])
    full[act] = r.astype(d.np_dtype).view(_BITS[size])
    write_lanes(view, di, full, act)


def select(ub, dtype, mode, dst, sel, src0, src1, act, strides, count_form, scalar_bits=0, scratch=None):
    """Select modes 0/1/2: dst = selbit ? src0 : (src1 tensor | scalar). ``scratch``: byte offset of
    the reserved slot modes 1/2 also write their splat to (or None)."""
    d = _dt.as_dtype(dtype)
    size, L = d.itemsize, 256 // d.itemsize
    bt = _BITS[size]
    view = ub.view(bt)
    db, s0b, s1b, dr, s0r, s1r = strides
    n_rep = act.shape[0]
    bits = np.unpackbits(ub[sel : sel + max(n_rep, 1) * L // 8], bitorder="little").astype(bool)
    if mode == 0:
        selb = np.broadcast_to(bits[:L], (n_rep, L))
    else:
        selb = bits[: n_rep * L].reshape(n_rep, L)
    pick = selb[act]
    a = view[lane_index(src0, size, n_rep, L, s0b, s0r)[act]]
    if mode == 1:
        b = bt(scalar_bits)
    else:
        b = view[lane_index(src1, size, n_rep, L, s1b, s1r)[act]]
    out = np.zeros((n_rep, L), bt)
    out[act] = np.where(pick, a, b)
    write_lanes(view, lane_index(dst, size, n_rep, L, db, dr), out, act)
    if scratch is not None and mode in (1, 2) and act.any():
        pat = (
            np.full(32 // size, scalar_bits, bt).view(np.uint8)
            if mode == 1
            else np.full(8, sel, np.uint32).view(np.uint8)
        )
        end = min(ub.size, scratch + 32)
        if end > scratch:
            ub[scratch:end] = pat[: end - scratch]


_CMP = {
    0: np.less,
    1: np.greater,
    2: np.equal,
    3: np.less_equal,
    4: np.greater_equal,
    5: np.not_equal,
}


def compares(ub, dtype, cmp, dst, src0, scalar_bits, act, strides):
    """Compares: bit g of dst = src0[g] CMP scalar; every issued repeat writes its L/8 bytes."""
    d = _dt.as_dtype(dtype)
    size, L = d.itemsize, 256 // d.itemsize
    bt = _BITS[size]
    view = ub.view(bt)
    sb, sr = strides
    n_rep = act.shape[0]
    x = view[lane_index(src0, size, n_rep, L, sb, sr)[act]]
    s = np.array(scalar_bits, bt)
    with np.errstate(all="ignore"):
        if d.is_float:
            x, s = x.view(_FLOAT[d.name]).astype(np.float64), float(s.view(_FLOAT[d.name]))
        else:
            x, s = x.view(d.np_dtype), s.view(d.np_dtype)
        res = np.zeros(act.shape, bool)
        res[act] = _CMP[cmp](x, s)
    issued = act.any(axis=1)
    packed = np.packbits(res, axis=1, bitorder="little")  # [n_rep, L/8]
    W = L // 8
    rows = np.nonzero(issued)[0]
    idx = dst + rows[:, None] * W + np.arange(W)[None, :]
    ub[idx] = packed[rows]


def gather_mask(ub, dtype, dst, src0, pattern, user, counter, mask, params):
    """GatherMask (counter configuration 1): keep the processed src0 elements whose pattern bit is 1,
    packed contiguously at dst. Returns rsvdCnt (or None for a NOP)."""
    d = _dt.as_dtype(dtype)
    size, L, E = d.itemsize, 256 // d.itemsize, 32 // d.itemsize
    bt = _BITS[size]
    view = ub.view(bt)
    bs, rep, rs0, rs1 = params
    if rep == 0:
        return None
    n_e = int(mask) if counter else L
    r = np.arange(rep)[:, None]
    e = np.arange(n_e)[None, :]
    byte = src0 + (r * rs0 + (e // E) * bs) * 32 + (e % E) * size
    vals = view[byte // size]
    if user:
        pbyte = pattern + r * rs1 * 32 + e // 8
        keep = ((ub[pbyte] >> (e % 8).astype(np.uint8)) & 1).astype(bool)
    else:
        p = int(pattern)
        if p == 1:
            k1 = e % 2 == 0
        elif p == 2:
            k1 = e % 2 == 1
        elif p in (3, 4, 5, 6):
            k1 = e % 4 == p - 3
        else:
            k1 = np.ones_like(e, bool)
        keep = np.broadcast_to(k1, (rep, n_e))
    kept = vals[keep]
    view[dst // size : dst // size + kept.size] = kept
    return int(kept.size)


# -- adapters for the generator cases ------------------------------------------------------------


def run_case(case, ub, profile):
    """Run one generator case on ``ub`` (modified in place); returns rsvdCnt for GatherMask."""
    from ascend_jax.fuzz.families.compare_select import CmpSelCase
    from ascend_jax.fuzz.families.gather_shift import GatherCase, ShiftCase
    from ascend_jax.fuzz.families.unary_scalar import Case

    p = profile
    if isinstance(case, Case):
        d = _dt.as_dtype(case.dtype)
        L = 256 // d.itemsize
        act = active_lanes(
            L,
            case.form,
            count=case.count,
            mask=case.mask,
            repeat=case.repeat,
            vmask=case.vmask,
            mask_mode=case.mask_mode,
            is_set_mask=case.is_set_mask,
        )
        strides = (1, 1, 8, 8) if case.form == "count" else case.strides
        op = {"Adds": "add", "Muls": "mul"}[case.api]
        s_bits = _scalar_bits(case.scalar, d)
        unary(op, ub, d, case.dst, case.src, s_bits, act, strides, p, case.ctrl)
        return None
    if isinstance(case, ShiftCase):
        d = _dt.as_dtype(case.dtype)
        L = 256 // d.itemsize
        act = active_lanes(
            L,
            case.form,
            count=case.count,
            mask=case.mask,
            repeat=case.repeat,
            vmask=case.vmask,
            mask_mode=case.mask_mode,
            is_set_mask=case.is_set_mask,
        )
        strides = (1, 1, 8, 8) if case.form == "count" else case.strides
        rnd = case.round_en and case.form != "count"
        shift_right(ub, d, case.dst, case.src, case.amount, rnd, act, strides)
        return None
    if isinstance(case, GatherCase):
        pat = case.pat if case.user else case.pattern
        return gather_mask(
            ub, case.dtype, case.dst, case.src0, pat, case.user, case.counter, case.mask, case.params
        )
    if isinstance(case, CmpSelCase):
        d = _dt.as_dtype(case.dtype)
        L = 256 // d.itemsize
        if case.api == "Select":
            act = active_lanes(
                L,
                case.form,
                count=case.count,
                mask=case.mask,
                repeat=case.repeat,
                vmask=case.vmask,
                mask_mode=case.mask_mode,
            )
            count_form = case.form == "count"
            strides = (1, 1, 1, 8, 8, 8) if count_form else case.strides
            scratch = None
            forms = p.api("Select").get("scratch_forms", ("mode1", "mode2"))
            if f"mode{case.mode}" in forms:
                for reg in p.reserved:
                    if "Select" in reg.used_by:
                        scratch = reg.offset_bytes
                        break
            select(
                ub,
                d,
                case.mode,
                case.dst,
                case.sel,
                case.src0,
                case.src1,
                act,
                strides,
                count_form,
                case.scalar_bits,
                scratch,
            )
            return None
        if case.api in ("Compares", "CompareScalar"):
            a = p.api(case.api)
            if case.form == "count":
                n = case.count
                if a.get("count_tail", "computed") == "dropped":
                    n -= n % L
                act = _below(n, L)
                strides = (1, 8)
            elif a.get("mask_honoured", True):
                act = active_lanes(
                    L,
                    case.form,
                    mask=case.mask,
                    repeat=case.repeat,
                    vmask=case.vmask,
                    mask_mode=case.mask_mode,
                    is_set_mask=case.form != "register",
                )
                strides = (case.strides[1], case.strides[4])
            else:  # the mask argument is ignored: every lane of repeats < repeatTime
                act = np.ones((case.repeat, L), bool)
                strides = (case.strides[1], case.strides[4])
            compares(ub, d, case.mode, case.dst, case.src0, case.scalar_bits, act, strides)
            return None
    raise TypeError(f"no baseline for {type(case).__name__} {getattr(case, 'api', '')}")


def _scalar_bits(value, d):
    if d.is_float:
        return int(np.array(value, _FLOAT[d.name]).view(_BITS[d.itemsize]))
    return int(value) & ((1 << d.bits) - 1)
