"""HTML renderers for Jupyter (``_repr_html_``): tensors and machine states.

``tensor_html(t, state=None)``: a LocalTensor's dtype, address, length, byte range and 32-byte
DataBlocks, and its elements when a state (CoreState / RefState, or a raw uint8 UB) is given; any
other object with ``dtype``/``length`` attributes (GlobalTensor) gets a table of the attributes it
has, and its elements when ``state`` is an array holding them.

``state_html(state, profile=None)``: a CoreState (or RefState): UB size, non-zero byte ranges and a
hex preview; the vector mask (hex, lanes enabled or Counter-mode count), mask mode, CMPMASK, CTRL
(set bits, named from the profile fields ``float_saturation_ctrl_bit`` / ``int_saturation_ctrl_bit``),
rsvd_cnt and the decoded fault bits. A batched state is shown as a per-case table.
"""

import functools
import html

import numpy as np

from . import dtypes as _dt
from .errors import describe_faults

_STYLE = "border-collapse:collapse;font-size:12px"
_TH = "text-align:left;padding:1px 8px 1px 0;vertical-align:top"


def _esc(x):
    return html.escape(str(x))


def _table(rows, caption):
    body = "".join(f"<tr><th style='{_TH}'>{_esc(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return f"<table style='{_STYLE}'><caption style='text-align:left'><b>{_esc(caption)}</b></caption>{body}</table>"


def _code(x):
    return f"<code>{_esc(x)}</code>"


def _int_or_none(x):
    try:
        return int(x)
    except Exception:  # a tracer or anything without a concrete value
        return None


# ---------------------------------------------------------------------------------------------
# Tensors


def _ub_of(state):
    if state is None:
        return None
    ub = getattr(state, "ub", state)
    try:
        arr = np.asarray(ub)
    except Exception:  # traced
        return None
    if arr.dtype != np.uint8:
        return None
    return arr.reshape(-1, arr.shape[-1])[0] if arr.ndim > 1 else arr


def _format_values(values, max_elems):
    shown = values[:max_elems]
    with np.printoptions(threshold=max_elems + 1, linewidth=100):
        text = np.array2string(np.asarray(shown), separator=", ")
    if values.size > max_elems:
        text = text[:-1] + f", ... ({values.size - max_elems} more)]"
    return text


def tensor_html(t, state=None, max_elems=64, block_bytes=32):
    """HTML for a LocalTensor (or any object with ``dtype`` and ``length``); see module doc."""
    dtype = getattr(t, "dtype", None)
    try:
        d = _dt.as_dtype(dtype)
    except Exception:
        d = None
    dname = d.cpp if d is not None else str(dtype)
    # a LocalTensor says so itself (``_ub_tensor``): display stays below tensor.py (no import cycle)
    if not getattr(type(t), "_ub_tensor", False):
        return _generic_tensor_html(t, d, dname, state, max_elems)
    addr = _int_or_none(t.addr)
    nbytes = t.length * d.itemsize
    rows = [("dtype", _code(f"{dname} ({d.itemsize} B)")), ("length", _code(f"{t.length} elements"))]
    if addr is None:
        rows += [("address", _code("traced")), ("bytes", _code(nbytes))]
    else:
        hi = addr + nbytes
        rows += [
            ("address", _code(f"UB+{addr} (0x{addr:x})")),
            ("bytes", _code(f"[{addr}, {hi}) = {nbytes} B (0x{addr:x}..0x{max(hi - 1, addr):x})")),
        ]
        first, last = addr // block_bytes, (max(hi, addr + 1) - 1) // block_bytes
        aligned = "aligned" if addr % block_bytes == 0 else f"NOT {block_bytes}-byte aligned"
        rows.append(
            (
                f"{block_bytes}-byte blocks",
                _code(f"{last - first + 1} blocks, #{first}..#{last} ({aligned})"),
            )
        )
        ub = _ub_of(state)
        if ub is not None:
            if 0 <= addr and hi <= ub.size:
                vals = ub[addr:hi].copy().view(d.np_dtype) if d.np_dtype is not None else ub[addr:hi]
                rows.append(
                    ("values", f"<pre style='margin:0'>{_esc(_format_values(vals, max_elems))}</pre>")
                )
            else:
                rows.append(("values", _code(f"outside the state's UB of {ub.size} bytes")))
    name = getattr(t, "name", "")
    return _table(rows, f"LocalTensor{(' ' + name) if name else ''}")


def _generic_tensor_html(t, d, dname, state, max_elems):
    rows = [("dtype", _code(dname))]
    for attr in ("buf", "length", "shape", "addr", "offset", "position"):
        if hasattr(t, attr):
            v = getattr(t, attr)
            rows.append((attr, _code(v if _int_or_none(v) is not None or attr == "shape" else "traced")))
    addr, length = _int_or_none(getattr(t, "addr", None)), _int_or_none(getattr(t, "length", None))
    if d is not None and addr is not None and length is not None:
        rows.append(("bytes", _code(f"[{addr}, {addr + length * d.itemsize}) = {length * d.itemsize} B")))
    if state is not None and d is not None:
        try:
            arr = np.asarray(state)
        except Exception:
            arr = None
        if arr is not None and arr.dtype != object:
            if arr.dtype == np.uint8 and d.np_dtype is not None and d.itemsize > 1:
                arr = arr.reshape(-1)[: arr.size - arr.size % d.itemsize].view(d.np_dtype)
            rows.append(
                ("values", f"<pre style='margin:0'>{_esc(_format_values(arr.reshape(-1), max_elems))}</pre>")
            )
    name = getattr(t, "name", "")
    return _table(rows, f"{type(t).__name__}{(' ' + name) if name else ''}")


# ---------------------------------------------------------------------------------------------
# States


def _words_int(words):
    v = 0
    for i, w in enumerate(np.asarray(words).reshape(-1).tolist()):
        v |= int(w) << (32 * i)
    return v


def _hex_words(words):
    """Words high first, as the register would be written (0x....)."""
    w = np.asarray(words).reshape(-1).tolist()
    return "0x" + "_".join(f"{int(x):08x}" for x in reversed(w))


@functools.cache
def _ctrl_names_all():
    """{bit: [(name, profiles)]} over every profile: the CTRL bits the profiles name."""
    from .profile import available_profiles, load_profile

    out = {}
    for name in available_profiles():
        p = load_profile(name)
        for bit, what in _ctrl_fields(p):
            out.setdefault(bit, {}).setdefault(what, []).append(p.name)
    return {b: sorted(v.items()) for b, v in out.items()}


def _ctrl_fields(p):
    out = []
    if p.float_saturation_ctrl_bit >= 0:
        out.append(
            (
                p.float_saturation_ctrl_bit,
                f"float saturation ({'/'.join(p.float_saturation_dtypes)}) when {p.float_saturation_when_bit_is}",
            )
        )
    if p.int_saturation_ctrl_bit >= 0:
        out.append((p.int_saturation_ctrl_bit, f"integer saturation when {p.int_saturation_when_bit_is}"))
    return out


def _ctrl_html(ctrl, profile):
    value = _words_int(ctrl)
    set_bits = [i for i in range(64) if (value >> i) & 1]
    lines = [
        _code(f"0x{value:016x}")
        + (" set: " + _code(", ".join(f"[{b}]" for b in set_bits)) if set_bits else "")
    ]
    if profile is not None:
        from .profile import as_profile

        p = as_profile(profile)
        for bit, what in _ctrl_fields(p):
            lines.append(_esc(f"CTRL[{bit}] = {(value >> bit) & 1}: {what} ({p.name})"))
    else:
        try:
            named = _ctrl_names_all()
        except Exception:  # profiles unavailable: show the raw value only
            named = {}
        for bit in sorted(named):
            what = "; ".join(f"{w} on {len(ps)} profile{'s' if len(ps) > 1 else ''}" for w, ps in named[bit])
            lines.append(_esc(f"CTRL[{bit}] = {(value >> bit) & 1}: {what}"))
    return "<br>".join(lines)


def nonzero_ranges(ub, gap=32, limit=None):
    """``[(lo, hi)]``: the byte ranges holding the non-zero bytes of ``ub``; runs separated by fewer
    than ``gap`` zero bytes are merged (a half 1.0 is ``00 3c``: one range, not every other byte)."""
    nz = np.concatenate(([False], np.asarray(ub).reshape(-1) != 0, [False]))
    edges = np.nonzero(np.diff(nz.astype(np.int8)))[0]
    out = []
    for lo, hi in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        if out and lo - out[-1][1] < gap:
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out if limit is None else out[:limit]


def _hex_preview(ub, lo, n=64, per_line=16):
    start = lo - lo % per_line
    end = min(ub.size, start + n)
    lines = []
    for a in range(start, end, per_line):
        chunk = ub[a : min(a + per_line, end)]
        lines.append(f"{a:06x}: " + " ".join(f"{int(b):02x}" for b in chunk))
    return "\n".join(lines)


def _vmask_text(vmask, mode, profile):
    v = _words_int(vmask)
    if profile is not None:
        from .profile import as_profile

        v &= (1 << as_profile(profile).vector_mask_bits) - 1
    if mode == 1:
        return f"0x{v:x} (Counter mode: count = {v & ((1 << 64) - 1)} elements)"
    return f"0x{v:x} ({bin(v).count('1')} lanes enabled)"


def state_html(state, profile=None, max_ranges=8, max_cases=16):
    """HTML for a CoreState / RefState (see the module doc); batched states as a per-case table."""
    fault = np.asarray(state.fault)
    if fault.ndim:
        return _batched_state_html(state, profile, max_cases)
    ub = np.asarray(state.ub, dtype=np.uint8)
    mode = int(np.asarray(state.mask_mode))
    ranges = nonzero_ranges(ub)
    nz = int(np.count_nonzero(ub))
    if ranges:
        shown = ", ".join(f"[0x{lo:x}, 0x{hi:x})" for lo, hi in ranges[:max_ranges])
        more = f" ... ({len(ranges) - max_ranges} more)" if len(ranges) > max_ranges else ""
        ub_text = _code(f"{ub.size} B; {nz} non-zero bytes in {len(ranges)} ranges: {shown}{more}")
        ub_text += f"<pre style='margin:0'>{_esc(_hex_preview(ub, ranges[0][0]))}</pre>"
    else:
        ub_text = _code(f"{ub.size} B, all zero")
    f = int(fault)
    rows = [
        ("UB", ub_text),
        ("vector mask", _code(_vmask_text(state.vmask, mode, profile))),
        ("mask mode", _code("Counter" if mode else "Normal")),
        ("CMPMASK", _code(_hex_words(state.cmpmask))),
        ("CTRL", _ctrl_html(state.ctrl, profile)),
        ("rsvd_cnt", _code(int(np.asarray(state.rsvd_cnt)))),
        ("faults", _code(f"0x{f:x} {describe_faults(f)}") if f else _code("none")),
    ]
    return _table(rows, type(state).__name__)


def _batched_state_html(state, profile, max_cases):
    fault = np.asarray(state.fault)
    shape = fault.shape
    n = int(fault.size)
    ub = np.asarray(state.ub, dtype=np.uint8).reshape(n, -1)
    flat = {
        name: np.asarray(getattr(state, name)).reshape(
            n, *np.asarray(getattr(state, name)).shape[len(shape) :]
        )
        for name in ("vmask", "mask_mode", "cmpmask", "ctrl", "rsvd_cnt")
    }
    faults = fault.reshape(n)
    any_f = int(np.count_nonzero(faults))
    head = ["case", "faults", "mask mode", "vector mask", "CMPMASK", "CTRL", "rsvd_cnt", "non-zero UB bytes"]
    trs = ["<tr>" + "".join(f"<th style='{_TH}'>{h}</th>" for h in head) + "</tr>"]
    for i in range(min(n, max_cases)):
        idx = np.unravel_index(i, shape)
        mode = int(flat["mask_mode"][i])
        cells = [
            ",".join(str(int(x)) for x in idx),
            describe_faults(int(faults[i])),
            "Counter" if mode else "Normal",
            _vmask_text(flat["vmask"][i], mode, profile),
            _hex_words(flat["cmpmask"][i]),
            f"0x{_words_int(flat['ctrl'][i]):x}",
            int(flat["rsvd_cnt"][i]),
            int(np.count_nonzero(ub[i])),
        ]
        trs.append("<tr>" + "".join(f"<td>{_code(c)}</td>" for c in cells) + "</tr>")
    if n > max_cases:
        trs.append(f"<tr><td colspan='{len(head)}'>... {n - max_cases} more cases</td></tr>")
    cap = f"CoreState batch {shape}: {n} cases, UB {ub.shape[1]} B each, {any_f} with faults"
    return f"<table style='{_STYLE}'><caption style='text-align:left'><b>{_esc(cap)}</b></caption>{''.join(trs)}</table>"
