"""The one comparator of the differential engine: fast-path state vs reference state, field by
field (UB bytes, vmask, mask_mode, cmpmask, ctrl, rsvd_cnt, fault bits, and the special registers
DEQSCALE and the reduce results where both states carry them) plus the API's return value
(rsvdCnt, GetCtrlSpr, ...). Floats are never compared as values: UB is compared as bytes, so -0/+0
and NaN payloads count."""

import dataclasses

import numpy as np

from ..errors import Fault, describe_faults

REGISTER_FIELDS = ("vmask", "cmpmask", "ctrl")
_BAD_VALUE = int(Fault.BAD_PARAM | Fault.BAD_MASK)


@dataclasses.dataclass
class Difference:
    fields: list  # names of the fields that differ ("ub", "vmask", ..., "fault", "ret")
    messages: list  # one human line per field
    first_bytes: list  # [(byte address, expected, got)] of the first differing UB bytes (<= 16)
    n_bytes: int = 0  # number of differing UB bytes

    def __str__(self):
        return "; ".join(self.messages)

    def to_json(self):
        return {
            "fields": self.fields,
            "messages": self.messages,
            "first_bytes": [list(map(int, b)) for b in self.first_bytes],
            "n_bytes": int(self.n_bytes),
        }


def _u32(x):
    return np.asarray(x).astype(np.uint32).ravel()


def compare(fast, ref, fast_ret=None, ref_ret=None, ret_compared=True):
    """None if ``fast`` and ``ref`` agree, else a ``Difference``. Either state may be a CoreState
    (NumPy or jax leaves) or a reference RefState; ``fast_ret``/``ref_ret`` are the returned values
    (None when the API returns only the state)."""
    fields, msgs, first = [], [], []
    ff, rf = int(np.asarray(fast.fault)), int(np.asarray(ref.fault))
    if rf & _BAD_VALUE and (ff & _BAD_VALUE) == (rf & _BAD_VALUE):
        # MODEL.md does not say which other fault bits accompany a traced out-of-range value (the
        # call is suppressed either way): the fast path may also OR the address / bucket faults it
        # computed next to BAD_PARAM / BAD_MASK. Everything else is still compared.
        ff = rf
    if ff != rf:
        fields.append("fault")
        msgs.append(f"fault fast={describe_faults(ff)} ref={describe_faults(rf)}")
    ub_f, ub_r = np.asarray(fast.ub, np.uint8), np.asarray(ref.ub, np.uint8)
    n = 0
    if ub_f.shape != ub_r.shape:
        fields.append("ub")
        msgs.append(f"UB size differs: fast {ub_f.shape} ref {ub_r.shape}")
    else:
        diff = np.nonzero(ub_f != ub_r)[0]
        n = int(diff.size)
        if n:
            i = int(diff[0])
            fields.append("ub")
            first = [(int(a), int(ub_r[a]), int(ub_f[a])) for a in diff[:16]]
            w = i & ~3
            msgs.append(
                f"{n} UB bytes differ, first at {i}: fast {ub_f[i]:#04x} ref {ub_r[i]:#04x} "
                f"(fast {ub_f[w : w + 4].tobytes().hex()} ref {ub_r[w : w + 4].tobytes().hex()})"
            )
    for f in REGISTER_FIELDS:
        a, b = _u32(getattr(fast, f)), _u32(getattr(ref, f))
        if a.shape != b.shape or np.any(a != b):
            fields.append(f)
            msgs.append(f"{f} fast {[hex(int(x)) for x in a]} ref {[hex(int(x)) for x in b]}")
    for f in ("mask_mode", "rsvd_cnt"):
        a, b = int(np.asarray(getattr(fast, f))), int(np.asarray(getattr(ref, f)))
        if a != b:
            fields.append(f)
            msgs.append(f"{f} fast {a} ref {b}")
    for f in SPECIAL_FIELDS:
        a, b = special_words(fast, f), special_words(ref, f)
        if a is not None and b is not None and a != b:
            fields.append(f)
            msgs.append(f"{f} fast {[hex(x) for x in a]} ref {[hex(x) for x in b]}")
    if ret_compared and not _same_ret(fast_ret, ref_ret):
        fields.append("ret")
        msgs.append(f"returned value fast {_show(fast_ret)} ref {_show(ref_ret)}")
    if not fields:
        return None
    return Difference(fields, msgs, first, n)


SPECIAL_FIELDS = ("deqscale", "reduce_spr")  # compared where both states carry them


def special_words(state, f):
    """A special register as a tuple of uint32 words, from a CoreState (``deqscale`` 2 words,
    ``reduce_spr`` 3; None: a state built without it) or a reference RefState (``deqscale`` a 64-bit
    int; ``reduce_sum`` and ``reduce_maxmin`` (value bits, index))."""
    if hasattr(state, "reduce_sum"):  # RefState
        if f == "deqscale":
            v = int(state.deqscale)
            return (v & 0xFFFFFFFF, (v >> 32) & 0xFFFFFFFF)
        return tuple(int(x) & 0xFFFFFFFF for x in (state.reduce_sum, *state.reduce_maxmin))
    v = getattr(state, f, None)
    return None if v is None else tuple(int(x) for x in np.asarray(v).astype(np.uint32).ravel())


def _same_ret(a, b):
    if a is None or b is None:
        return a is None and b is None
    return np.array_equal(np.asarray(a).astype(np.int64), np.asarray(b).astype(np.int64))


def _show(v):
    return None if v is None else np.asarray(v).tolist()


def message(fast, ref, fast_ret=None, ref_ret=None):
    """The comparator as a string (None if equal): the form the harnesses' ``compare`` return."""
    d = compare(fast, ref, fast_ret, ref_ret)
    return None if d is None else str(d)


DIGEST_VERSION = 2  # meta.json "digest_version" (absent: 1); a resumed campaign keeps its own


def digest(state, ret=None, version=DIGEST_VERSION):
    """A short hash of a result (all state fields and the return value): equal results, equal
    digests, whatever the batch a case ran in. Version 2 (default) hashes the UB bytes as they
    are and the registers in one buffer; version 1 (campaigns journaled before it) widened every
    UB byte to an int64 first (8 times the bytes hashed: it was a third of a campaign's main
    thread)."""
    if version == 1:
        return _digest_v1(state, ret)
    import hashlib

    h = hashlib.blake2b(np.ascontiguousarray(np.asarray(state.ub), np.uint8).data, digest_size=8)
    regs = [np.asarray(getattr(state, f)).astype(np.int64).ravel() for f in _DIGEST_REGS]
    for f in SPECIAL_FIELDS:
        w = special_words(state, f)
        if w is not None and any(w):  # zero registers leave the digest of a state without them
            regs.append(np.asarray(w, np.int64))
    if ret is not None:
        regs.append(np.asarray(ret).astype(np.int64).ravel())
    h.update(np.concatenate(regs).tobytes())
    return h.hexdigest()


_DIGEST_REGS = ("vmask", "mask_mode", "cmpmask", "ctrl", "rsvd_cnt", "fault")


def digests(fields, ret=None, version=DIGEST_VERSION):
    """``digest`` of every case of a batch at once: ``fields`` maps the CoreState field names to
    arrays with a leading case axis, ``ret`` the returned values (or None). The same hex strings as
    ``digest`` on each case (tests/test_fuzz_engine.py), with the register bytes built once per batch."""
    n = len(fields["ub"])
    if version == 1:
        import types

        return [
            _digest_v1(
                types.SimpleNamespace(**{f: v[j] for f, v in fields.items()}), None if ret is None else ret[j]
            )
            for j in range(n)
        ]
    import hashlib

    ub = np.ascontiguousarray(np.asarray(fields["ub"]), np.uint8)
    regs = np.concatenate([np.asarray(fields[f]).astype(np.int64).reshape(n, -1) for f in _DIGEST_REGS], 1)
    parts = [regs]
    for f in SPECIAL_FIELDS:
        if f in fields:
            w = np.asarray(fields[f]).astype(np.uint32).reshape(n, -1).astype(np.int64)
            parts.append(np.where(w.any(axis=1, keepdims=True), w, -1))  # -1 rows: left out below
    tail = None if ret is None else np.asarray(ret).astype(np.int64).reshape(n, -1)
    out = []
    for j in range(n):
        h = hashlib.blake2b(ub[j].data, digest_size=8)
        row = [parts[0][j]] + [q[j] for q in parts[1:] if q[j, 0] != -1]
        if tail is not None:
            row.append(tail[j])
        h.update(np.concatenate(row).tobytes() if len(row) > 1 else row[0].tobytes())
        out.append(h.hexdigest())
    return out


def _digest_v1(state, ret=None):
    import hashlib

    h = hashlib.blake2b(digest_size=8)
    for f in ("ub", "vmask", "mask_mode", "cmpmask", "ctrl", "rsvd_cnt", "fault"):
        h.update(np.ascontiguousarray(np.asarray(getattr(state, f)).astype(np.int64)).tobytes())
    for f in SPECIAL_FIELDS:
        w = special_words(state, f)
        if w is not None and any(w):  # zero registers leave the digest of a state without them
            h.update(np.asarray(w, np.int64).tobytes())
    if ret is not None:
        h.update(np.asarray(ret).astype(np.int64).tobytes())
    return h.hexdigest()
