"""Lean NumPy: each ``ops/`` kernel as a user writes it in plain NumPy, one case at a time, one
vectorised expression per Ascend C API call of the kernel (the DataCopy in/out are the array
reads and the row write). The baseline ``make bench`` (``kernel_ratio_vs_lean_numpy``) and
``ascend-jax demo`` time the model against, beside the ops' literal goldens.

Every function has its op's ``golden`` signature (``inputs``, ``params``, ``profile`` and the op's
configuration) and returns ``(dst bit patterns (batch, n), count or None)``;
``tests/test_lean_numpy.py`` checks them bit for bit against the goldens on random inputs. The
profile's result rules enter as one extra expression where the kernel's API applies them (canonical
NaN, half saturation, integer saturation); a profile that flushes float subnormals is not modelled
here (``NotImplementedError``): the lean baseline is written for what ``make bench`` runs.
"""

import numpy as np

import ascend_jax as aj

_CMP = {"LT": np.less, "GT": np.greater, "EQ": np.equal, "LE": np.less_equal, "GE": np.greater_equal}
_CMP["NE"] = np.not_equal
_CANONICAL_NAN = {2: 0x7E00, 4: 0x7FC00000}  # half / float32 default quiet NaN (docs/MODEL.md)


def _np(dtype):
    return np.dtype(aj.as_dtype(dtype).np_dtype)


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[a.dtype.itemsize])


def _floats_plain(profile, dt):
    if dt.kind == "f" and profile.float_subnormals == "flush_to_zero":
        raise NotImplementedError(f"ops.lean: {profile.name} flushes float subnormals (not modelled here)")


def _saturating(profile, dt):
    """Half saturation (CTRL[48] at its reset value), as hw_profiles/README.md names it."""
    names = {np.dtype(np.float16): "half", np.dtype(np.float32): "float32"}
    if profile.float_saturation_ctrl_bit < 0 or names.get(dt) not in profile.float_saturation_dtypes:
        return False
    c = profile.ctrl_reset_value
    return ((c >> profile.float_saturation_ctrl_bit) & 1) == profile.float_saturation_when_bit_is


def _result(r, profile):
    """A float result as Adds/Muls/Maxs/Mins write it: saturated, or NaN made canonical."""
    if r.dtype.kind != "f":
        return r
    if _saturating(profile, r.dtype):
        big = np.finfo(r.dtype).max
        return np.where(np.isnan(r), r.dtype.type(0), np.clip(r, -big, big)).astype(r.dtype)
    if profile.nan_result == "canonical":
        nan = np.array(_CANONICAL_NAN[r.dtype.itemsize], _bits(r).dtype).view(r.dtype)
        return np.where(np.isnan(r), nan, r)
    return r


def _max(a, b):
    return np.where(np.isnan(a) | (a > b) | ((a == b) & ~np.signbit(a)), a, b)  # -0 < +0


def _min(a, b):
    return np.where(np.isnan(a) | (a < b) | ((a == b) & np.signbit(a)), a, b)


def select_sample(inputs, params, profile, selMode, form="count", dtype="float32", dataSize=256):
    dt = _np(dtype)
    lanes = 256 // dt.itemsize
    src0, src1, sel, out = inputs["src0"], inputs["src1"], inputs["sel"], inputs["dst"].copy()
    for c in range(src0.shape[0]):
        bit = np.unpackbits(sel[c], bitorder="little").view(bool)
        if int(selMode) == 0:  # the first 256 / sizeof(T) bits in every repeat
            bit = np.resize(bit[:lanes], dataSize)
        other = params["scalar"][c].astype(dt) if int(selMode) == 1 else src1[c]
        if form == "count":
            n = int(params["count"][c])
            o = other if np.ndim(other) == 0 else other[:n]
            out[c, :n] = np.where(bit[:n], src0[c, :n], o)
        else:
            n = int(params["repeatTimes"][c]) * lanes
            lane = np.unpackbits(params["mask"][c].astype("<u4").view(np.uint8), bitorder="little")
            on = np.resize(lane.view(bool), n)
            o = other if np.ndim(other) == 0 else other[:n]
            out[c, :n] = np.where(on, np.where(bit[:n], src0[c, :n], o), out[c, :n])
    return _bits(out), None


def compare_scalar_sample(inputs, params, profile, mode, dtype="float32"):
    src0, src1 = inputs["src0"], inputs["src1"]
    _floats_plain(profile, src0.dtype)
    out = np.empty((src0.shape[0], src0.shape[1] // 8), np.uint8)
    for c in range(src0.shape[0]):
        with np.errstate(invalid="ignore"):
            out[c] = np.packbits(_CMP[mode](src0[c], src1[c, 0]), bitorder="little")
    return out, None


def _gather(src0, out, params, profile, reduceMode, keep_of):
    """GatherMask per case: the (repeat, element) pairs it processes, their source addresses from
    the strides, ``keep_of(c, r, e)`` the pattern bits; kept elements packed to the front."""
    E = 32 // src0.dtype.itemsize
    lanes = 8 * E
    cnt = np.zeros(src0.shape[0], np.int64)
    per_repeat = profile.api("GatherMask").counter_config == 1
    for c in range(src0.shape[0]):
        rep, mask = int(params["repeatTimes"][c]), int(params["mask"][c])
        if not reduceMode:
            r, e = np.divmod(np.arange(rep * lanes), lanes)
        elif per_repeat:  # mask elements in every repeat
            r, e = np.divmod(np.arange(rep * mask), mask)
        else:  # mask elements in total
            r, e = np.divmod(np.arange(mask), lanes)
        idx = (
            r * int(params["src0RepeatStride"][c]) * E
            + e // E * int(params["src0BlockStride"][c]) * E
            + e % E
        )
        kept = src0[c, idx[keep_of(c, r, e)]]
        out[c, : kept.size] = kept
        cnt[c] = kept.size
    return _bits(out), cnt


def gather_mask_user(inputs, params, profile, reduceMode, dtype="uint32"):
    pat = inputs["src1"].view(np.uint8)

    def keep(c, r, e):
        return (pat[c, r * int(params["src1RepeatStride"][c]) * 32 + e // 8] >> (e % 8)) & 1 == 1

    return _gather(inputs["src0"], inputs["dst"].copy(), params, profile, reduceMode, keep)


def gather_mask_builtin(inputs, params, profile, reduceMode, dtype="uint16"):
    def keep(c, r, e):
        p = int(params["src1Pattern"][c])  # 1 even, 2 odd, 3..6 one of four, 7 all
        return e % 2 == 0 if p == 1 else e % 2 == 1 if p == 2 else e % 4 == p - 3 if p < 7 else e >= 0

    return _gather(inputs["src0"], inputs["dst"].copy(), params, profile, reduceMode, keep)


def shift_right_sample(inputs, params, dtype="int16", form="count", roundEn=False):
    src, out = inputs["src"], inputs["dst"].copy()
    width = 8 * src.dtype.itemsize
    lanes = 256 // src.dtype.itemsize
    for c in range(src.shape[0]):
        s = params["scalarValue"][c]
        if form == "count":
            n = int(params["count"][c])
            out[c, :n] = src[c, :n] >> s  # numpy: 0 or -1 past the width
        else:
            n = int(params["repeatTimes"][c]) * lanes
            x = src[c, :n]
            r = x >> s
            if roundEn and src.dtype.kind == "i" and 1 <= s:
                r = np.where(s >= width, 0, r + ((x >> (s - 1)) & 1)).astype(src.dtype)
            on = np.arange(n) % lanes < int(params["mask"][c])
            out[c, :n] = np.where(on, r, out[c, :n])
    return _bits(out), None


def _int_saturating(profile):
    c = profile.ctrl_reset_value
    bit = profile.int_saturation_ctrl_bit
    return profile.int_overflow == "saturate" or (
        bit >= 0 and ((c >> bit) & 1) == profile.int_saturation_when_bit_is
    )


def muls_sample(inputs, params, profile, dtype="int16"):
    src, out = inputs["src"], inputs["dst"].copy()
    _floats_plain(profile, src.dtype)
    sat = src.dtype.kind == "i" and _int_saturating(profile)
    info = np.iinfo(src.dtype) if src.dtype.kind == "i" else None
    for c in range(src.shape[0]):
        n, s = int(params["count"][c]), params["scalarValue"][c]
        with np.errstate(all="ignore"):
            if sat:
                out[c, :n] = np.clip(src[c, :n].astype(np.int64) * int(s), info.min, info.max)
            else:
                out[c, :n] = _result(src[c, :n] * s, profile)
    return _bits(out), None


def relu(inputs, params, profile, variant):
    src = inputs["src"]
    _floats_plain(profile, src.dtype)
    out = np.empty_like(src)
    zero = src.dtype.type(0)
    for c in range(src.shape[0]):
        x = src[c]
        if variant == "select":  # CompareScalar(x > 0), then Select(x, 0.0)
            out[c] = np.where(x > 0, x, zero)
        else:  # Maxs(x, 0)
            out[c] = _result(_max(x, zero), profile)
    return _bits(out), None


def clamp(inputs, params, profile, dtype="float32"):
    src, out = inputs["src"], inputs["dst"].copy()
    _floats_plain(profile, src.dtype)
    for c in range(src.shape[0]):
        n, lo, hi = int(params["count"][c]), params["lo"][c], params["hi"][c]
        if src.dtype.kind == "f":  # Maxs then Mins, each writing its result
            out[c, :n] = _result(_min(_result(_max(src[c, :n], lo), profile), hi), profile)
        else:
            out[c, :n] = np.minimum(np.maximum(src[c, :n], lo), hi)
    return _bits(out), None


def compact_above_threshold(inputs, params, profile, dtype="float32"):
    src, out = inputs["src"], inputs["dst"].copy()
    _floats_plain(profile, src.dtype)
    cnt = np.zeros(src.shape[0], np.int64)
    for c in range(src.shape[0]):
        x = src[c, : int(params["n"][c])]
        kept = x[x > params["threshold"][c]]  # CompareScalar GT, then GatherMask of the bits
        out[c, : kept.size] = kept
        cnt[c] = kept.size
    return _bits(out), cnt


LEAN = {
    "select_sample": select_sample,
    "compare_scalar_sample": compare_scalar_sample,
    "gather_mask_user": gather_mask_user,
    "gather_mask_builtin": gather_mask_builtin,
    "shift_right_sample": shift_right_sample,
    "muls_sample": muls_sample,
    "relu": relu,
    "clamp": clamp,
    "compact_above_threshold": compact_above_threshold,
}
