"""The data_copy family's layout forms (issue 33 item 2): DataCopy with Nd2NzParams (ND2NZ, GM -> UB),
Nz2NdParamsFull (NZ2ND, UB -> GM), SliceInfo[] (both paths) and NdDmaParams (NDDMA, 950). Their
parameters are static (``CopyCase.layout``, part of the signature); the addresses are the traced
values. Valid draws never overlap destinations; faults come from the addresses (misaligned UB,
past the UB or GM end) and the injected static misuse is a field out of its documented range."""

import math

from ...errors import UsageError
from ...params import Nd2NzParams, NdDmaConfig, NdDmaLoopInfo, NdDmaParams, Nz2NdParamsFull, SliceInfo

BLK = 32
LAYOUT_FORMS = ("nd2nz", "nz2nd", "slice", "nddma")
_KEYS = {"nd2nz": "nd2nz_dtypes", "nz2nd": "nz2nd_dtypes", "slice": "slice_dtypes", "nddma": "nddma_dtypes"}
_KINDS = {"nd2nz": ("gm2ub",), "nz2nd": ("ub2gm",), "slice": ("gm2ub", "ub2gm"), "nddma": ("gm2ub",)}
ND2NZ_HI = dict(Nd2NzParams._field_ranges)
NZ2ND_HI = dict(Nz2NdParamsFull._field_ranges)
ND2NZ_LO = {"srcDValue": 1, "dstNzC0Stride": 1, "dstNzNStride": 1}
NZ2ND_LO = {"nValue": 1, "dValue": 1, "srcNdMatrixStride": 1, "dstDStride": 1, "dstNdMatrixStride": 1}


def units(p):
    """[("DataCopy", kind, form, dtype)] of the layout forms on ``p``."""
    a = p.api("DataCopy")
    return [("DataCopy", k, f, dt) for f in LAYOUT_FORMS for k in _KINDS[f] for dt in getattr(a, _KEYS[f])]


def _i(rng, lo, hi):
    return int(rng.integers(lo, hi + 1))


def random_layout(rng, p, form, size, complex_=False):
    """A valid ``CopyCase.layout`` of ``form`` for ``sizeof(T) = size`` (small enough for the arena)."""
    if form == "nd2nz":
        small = int(p.api("DataCopy").nd2nz_small_c0 and rng.random() < 0.3)
        c0 = BLK // size
        nd, n, d = _i(rng, 1, 2), _i(rng, 1, 3), _i(rng, 1, 2 * c0)
        if small and rng.random() < 0.6:
            d = _i(rng, 1, 4)
        if rng.random() < 0.05:
            nd = 0  # nothing to move
        c0 = 4 if small and d <= 4 else c0
        groups = -(-d // c0)
        src_d = d + _i(rng, 0, 5)
        ns = _i(rng, 1, 2)
        c0s = n * ns + _i(rng, 0, 1)
        dst_nd = groups * c0s * c0 + _i(rng, 0, 1) * c0
        return (nd, n, d, n * src_d + _i(rng, 0, 9), src_d, c0s, ns, dst_nd, small)
    if form == "nz2nd":
        nd, n, d = _i(rng, 1, 2), _i(rng, 1, 4), 16 * _i(rng, 1, 2)
        sns = n + _i(rng, 0, 1)
        snd = -(-(d // 16) * sns * 16 // 256) + _i(rng, 0, 1)
        dst_d = d + _i(rng, 0, 5)
        return (nd, n, d, snd, sns, dst_d, n * dst_d + _i(rng, 0, 5))
    if form == "slice":
        e = BLK // size
        dims = _i(rng, 1, 2)
        burst = _i(rng, 1, 2)
        chunk = burst * e
        # SPEC: startIndex < endIndex: a later dimension selects at least 2 rows (burstLen 1)
        counts = [_i(rng, 1, 2) if k == 0 else _i(rng, 2, 3) for k in range(dims)]

        def side(aligned):
            q = e if aligned else 1
            out = []
            for k in range(dims):
                if k == 0:
                    start, stride = _i(rng, 0, 2) * q, _i(rng, 0, 2) * q
                    end = start + counts[0] * chunk + (counts[0] - 1) * stride - 1
                    out.append((start, end, stride, burst, -(-(end + 1 + _i(rng, 0, 2)) // e) * e))
                else:
                    start, stride = _i(rng, 0, 1), _i(rng, 0, 1)
                    end = start + counts[k] + (counts[k] - 1) * stride - 1
                    out.append((start, end, stride, 1, end + 1 + _i(rng, 0, 1)))
            return tuple(out)

        return (dims, side(True), side(True))  # the UB side aligned (both: either path)
    dims = _i(rng, 1, 3)
    n = [_i(rng, 1, 4) for _ in range(dims)]
    lp = [_i(rng, 0, 2) if rng.random() < 0.5 else 0 for _ in range(dims)]
    rp = [_i(rng, 0, 2) if rng.random() < 0.5 else 0 for _ in range(dims)]
    dst_s, acc = [], 1
    for k in range(dims):
        dst_s.append(acc)
        acc *= lp[k] + n[k] + rp[k] + (_i(rng, 0, 1) if k == 0 else 0)
    dense = [math.prod(n[:k]) for k in range(dims)]
    src_s = [int(v) for v in rng.permutation(dense)] if rng.random() < 0.3 else dense
    if rng.random() < 0.2 and dims > 1:
        src_s[int(rng.integers(dims))] = 0  # broadcast
    nearest = int(size < 8 and rng.random() < 0.4)
    value = 0 if size == 8 or complex_ else _i(rng, -3, 100)  # complex32: no scalar drawn
    return (tuple(src_s), tuple(dst_s), tuple(n), tuple(lp), tuple(rp), value, nearest)


def spans(c):
    """{side: bytes from the operand's address to one past the last byte touched} (valid layouts)."""
    L, size = c.layout, c.size
    if c.form == "nd2nz":
        nd, n, d, snd, sd, c0s, ns, dnd, small = L
        if 0 in (nd, n, d):
            return {"src": 0, "dst": 0}
        c0 = 4 if small and d <= 4 else BLK // size
        g = -(-d // c0)
        src = (nd - 1) * snd + (n - 1) * sd + d
        dst = (nd - 1) * dnd + (g - 1) * c0s * c0 + (n - 1) * ns * c0 + c0
    elif c.form == "nz2nd":
        nd, n, d, snd, sns, dd, dnd = L
        if nd == 0:
            return {"src": 0, "dst": 0}
        src = (nd - 1) * snd * 256 + (d // 16 - 1) * sns * 16 + n * 16
        dst = (nd - 1) * dnd + (n - 1) * dd + d
    elif c.form == "slice":
        dims, dst_i, src_i = L

        def last(infos):
            off, mult = 0, 1
            for s in infos:
                off += s[1] * mult
                mult *= s[4]
            return off + 1

        src, dst = last(src_i), last(dst_i)
    else:
        ss, ds, n, lp, rp, _, _ = L
        src = sum((n[k] - 1) * ss[k] for k in range(len(n))) + 1
        dst = sum((lp[k] + n[k] + rp[k] - 1) * ds[k] for k in range(len(n))) + 1
    return {"src": src * size, "dst": dst * size}


def arguments(c):
    """(params, extra positional args, keywords) of the DataCopy call."""
    L = c.layout
    if c.form == "nd2nz":
        return Nd2NzParams(*L[:8]), (), {"enableSmallC0": bool(L[8])}
    if c.form == "nz2nd":
        return Nz2NdParamsFull(*L), (), {}
    if c.form == "slice":
        dims, dst_i, src_i = L
        return [SliceInfo(*s) for s in dst_i], ([SliceInfo(*s) for s in src_i], dims), {}
    ss, ds, n, lp, rp, value, nearest = L
    prm = NdDmaParams(NdDmaLoopInfo(ss, ds, n, lp, rp), value)
    return prm, (), {"config": NdDmaConfig(bool(nearest))}


def call_text(c):
    prm, extra, kw = arguments(c)
    tail = "".join(f", {v!r}" for v in extra) + "".join(f", {k}={v!r}" for k, v in kw.items())
    return f"{prm!r}{tail}"


def inject_static(rng, c):
    """(layout, argument) with one field out of its documented range."""
    L = list(c.layout)
    if c.form == "nd2nz":
        names = list(ND2NZ_HI)
        k = int(rng.integers(len(names)))
        lo = ND2NZ_LO.get(names[k], 0)
        L[k] = ND2NZ_HI[names[k]] + 1 if lo == 0 or rng.random() < 0.5 else lo - 1
        return tuple(L), f"intriParams.{names[k]}"
    if c.form == "nz2nd":
        names = list(NZ2ND_HI)
        k = int(rng.integers(len(names)))
        L[k] = NZ2ND_HI[names[k]] + 1
        return tuple(L), f"intriParams.{names[k]}"
    if c.form == "slice":
        dims, dst_i, src_i = L
        return (9, dst_i, src_i), "dimValue"
    lp = list(L[3])
    lp[0] = 256
    L[3] = tuple(lp)
    return tuple(L), "params.loopInfo.loopLpSize[0]"


def static_error(c, p):
    """The UsageError of an out-of-range field (what ``inject_static`` plants), or None."""
    L = c.layout

    def err(arg, value, allowed):
        return UsageError("DataCopy", arg, value, allowed, p)

    if c.form in ("nd2nz", "nz2nd"):
        hi, lo = (ND2NZ_HI, ND2NZ_LO) if c.form == "nd2nz" else (NZ2ND_HI, NZ2ND_LO)
        for k, name in enumerate(hi):
            if not lo.get(name, 0) <= L[k] <= hi[name]:
                return err(f"intriParams.{name}", L[k], f"[{lo.get(name, 0)}, {hi[name]}]")
        return None
    if c.form == "slice":
        return None if 1 <= L[0] <= 8 else err("dimValue", L[0], "[1, 8]")
    for k, v in enumerate(L[3]):
        if not 0 <= v <= 255:
            return err(f"params.loopInfo.loopLpSize[{k}]", v, "[0, 255]")
    return None


def labels(c):
    L = c.layout
    if c.form == "nd2nz":
        regime = ("smallC0" if L[8] and L[2] <= 4 else "C0") + ("/pad" if L[2] % (BLK // c.size) else "")
    elif c.form == "nz2nd":
        regime = f"{L[2] // 16}-fractal"
    elif c.form == "slice":
        regime = f"{L[0]}-dim"
    else:
        pad = any(L[3]) or any(L[4])
        regime = f"{len(L[2])}-dim/" + ("nearest" if L[6] and pad else ("constant" if pad else "nopad"))
    return (f"{c.kind}/{c.form}", regime, "layout")
