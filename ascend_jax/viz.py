"""Pictures for notebooks: which UB bytes one API call reads and writes, which lanes a mask enables,
and where two UB states differ. matplotlib only (the optional extra ``viz``); every plotting
function returns the ``matplotlib.figure.Figure``.

The access sets come from the literal NumPy reference (``ascend_jax.reference``), not from the
fast path: the call runs on a ``RefState`` whose UB logs every byte it reads and writes
(``reference.state.RecordingUB``). The repeat that made an access is found by running the same
call truncated to its first ``k`` repeats (``repeatTime = k``, ``count = k*L``, ...): the reference
works in program order (repeat, block, lane), so the first ``k`` repeats' accesses are a prefix of
the whole call's. A read byte is coloured by the first repeat that reads it, a written byte by the
last repeat that writes it (the value that stays). Bytes a call touches after its repeat loop
(Select's CMPMASK side effect) take the last repeat's colour. The access sets depend on the UB
contents where the model does (Select reads src0 or src1 per selMask bit): pass ``state=`` (a
CoreState, a RefState or a ``Kernel``) holding the data the call will see.

    >>> k = aj.Kernel()
    >>> x, y = k.alloc(aj.half, 1024), k.alloc(aj.half, 1024)
    >>> aj.viz.access_map("Muls", y, x, 2.0, 64, 4, aj.UnaryRepeatParams(1, 2, 8, 16), state=k)
"""

import dataclasses
import math

import numpy as np

from . import dtypes as _dt
from . import reference as _ref
from .params import BinaryRepeatParams, UnaryRepeatParams
from .profile import as_profile
from .reference import masks as _masks
from .reference import state as _rst
from .tensor import MASK_PLACEHOLDER, LocalTensor

__all__ = [
    "Accesses",
    "Call",
    "access_map",
    "accesses",
    "diff",
    "diff_ranges",
    "mask_grid",
    "mask_lanes",
    "timeline",
    "trace",
]

_U64 = (1 << 64) - 1


def _figure(**kw):
    """A new Figure not registered with pyplot (no global state; Jupyter displays it as is)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError(
            "ascend_jax.viz needs matplotlib: pip install 'ascend_jax[viz]' (or pip install matplotlib)"
        ) from None
    return Figure(**kw)


# ---------------------------------------------------------------------------------------------
# A call


@dataclasses.dataclass(frozen=True, init=False)
class Call:
    """One API call as a kernel author writes it: ``Call("Muls", dst, src, 2.0, 64, 4, params)``.

    ``args`` are the API's arguments after the state (the same as ``k.Muls(...)`` or
    ``aj.Muls(state, ...)``); ``kwargs`` its keyword arguments (``isSetMask``, ``selMode``,
    ``config``, ``roundEn``; the fast-path-only ``max_repeats`` is ignored). ``state``: the state
    before the call (CoreState, RefState or a Kernel; default: the reset state of ``ub_bytes``).
    """

    api: str
    args: tuple
    kwargs: dict
    profile: object
    state: object
    ub_bytes: object

    def __init__(self, api, *args, profile=None, state=None, ub_bytes=None, **kwargs):
        if hasattr(state, "state") and hasattr(state, "profile"):  # a Kernel
            profile = state.profile if profile is None else profile
            state = state.state
        kwargs.pop("max_repeats", None)
        for name, value in (
            ("api", str(api)),
            ("args", tuple(args)),
            ("kwargs", dict(kwargs)),
            ("profile", as_profile(profile)),
            ("state", state),
            ("ub_bytes", ub_bytes),
        ):
            object.__setattr__(self, name, value)
        if not hasattr(_ref, self.api):
            raise ValueError(f"viz: no modelled API named {self.api!r}")

    def __repr__(self):
        a = ", ".join(repr(x) for x in self.args)
        k = "".join(f", {n}={v!r}" for n, v in self.kwargs.items())
        return f"Call({self.api!r}, {a}{k}, profile={self.profile.name!r})"


def _as_call(call, args, kw):
    if isinstance(call, Call):
        if args or kw:
            raise TypeError("give either a Call or the API name and its arguments, not both")
        return call
    return Call(call, *args, **kw)


def ref_state(state, profile, ub_bytes=None):
    """A RefState copy of ``state`` (CoreState, RefState, or None for the reset state)."""
    if state is None:
        return _rst.reset_state(profile, ub_bytes)
    if isinstance(state, _rst.RefState):
        return _rst.copy_state(state)
    fault = np.asarray(state.fault)
    if fault.ndim:
        raise ValueError(f"viz: one case at a time; the state has batch shape {fault.shape}")
    return _rst.RefState(
        ub=np.array(state.ub, dtype=np.uint8),
        vmask=np.array(state.vmask, dtype=np.uint32),
        mask_mode=int(np.asarray(state.mask_mode)),
        cmpmask=np.array(state.cmpmask, dtype=np.uint32),
        ctrl=np.array(state.ctrl, dtype=np.uint32),
        rsvd_cnt=int(np.asarray(state.rsvd_cnt)),
        fault=int(fault),
    )


# ---------------------------------------------------------------------------------------------
# Recording and repeat attribution


def _run_logged(call, args, state):
    log = []
    st = _rst.recording_state(state, log)
    res = getattr(_ref, call.api)(st, *args, profile=call.profile, **call.kwargs)
    out = res[0] if isinstance(res, tuple) else res
    reads = [i for kind, i in log if kind == "r"]
    writes = [i for kind, i in log if kind == "w"]
    return reads, writes, int(out.fault) & ~int(state.fault)


def _is_params(x):
    return isinstance(x, (UnaryRepeatParams, BinaryRepeatParams)) or all(
        hasattr(x, f) for f in ("dstBlkStride", "dstRepStride")
    )


def _data_dtype(call):
    """T of the call's lanes (Compare's dst is the uint8 bit result: T is src0's)."""
    tensors = [a for a in call.args if isinstance(a, LocalTensor)]
    if call.api in ("Compare", "Compares", "CompareScalar") and len(tensors) >= 2:
        return tensors[1].dtype
    return tensors[0].dtype if tensors else None


def _truncate_count(value, n):
    return min(int(value), n)


def _truncated(call, k, state):
    """``(args, state)`` of the call cut to its first ``k`` repeats, or None if it has one repeat."""
    api, args, p = call.api, list(call.args), call.profile
    d = _data_dtype(call)
    if d is None or api in ("SetCmpMask", "GetCmpMask", "CompareCmpMask"):
        return None
    if api == "Compare" and not all(isinstance(a, LocalTensor) for a in args[:3]):
        return None  # Compare into CMPMASK: one repeat
    L = p.lanes(d)
    st = _rst.copy_state(state)
    counter = int(state.mask_mode) == 1
    is_set_mask = call.kwargs.get("isSetMask", True)

    def cut_register_count():
        count = _rst.get_vmask(st) & _U64
        _rst.set_vmask(st, (_rst.get_vmask(st) & ~_U64) | min(count, k * L), p)

    if api == "GatherMask":
        dst, src0, pattern, reduce_mode, mask, gmp = args
        if bool(reduce_mode) and int(p.api(api).counter_config) == 2:
            args[4] = _truncate_count(mask, k * L)  # total element count, repeats derived
        else:
            f = _gather_fields(gmp)
            f[1] = min(int(f[1]), k)
            args[5] = tuple(f)
        return args, st
    if args and _is_params(args[-1]):  # high-dim: (..., [mask,] repeatTime, params)
        args[-2] = min(int(args[-2]), k)
        if counter:
            mask = args[-3] if len(args) >= 3 else None
            if isinstance(mask, (list, tuple)):
                args[-3] = [_truncate_count(mask[0], k * L)] + list(mask[1:])
            elif isinstance(mask, (int, np.integer)) and not isinstance(mask, bool):
                args[-3] = _truncate_count(mask, k * L)
            else:  # MASK_PLACEHOLDER or a mask-less form: the count is in the register
                cut_register_count()
        return args, st
    # count form: (..., count)
    if not is_set_mask and p.level2_is_set_mask == "honoured":
        if counter:
            cut_register_count()
            return args, st
        return None  # Normal mode, registers: one repeat
    args[-1] = _truncate_count(args[-1], k * L)
    return args, st


def _gather_fields(gmp):
    names = ("src0BlockStride", "repeatTimes", "src0RepeatStride", "src1RepeatStride")
    if isinstance(gmp, dict):
        return [gmp.get(n, dflt) for n, dflt in zip(names, (1, 0, 8, 8), strict=True)]
    if isinstance(gmp, (tuple, list)):
        return list(gmp)
    return [getattr(gmp, n) for n in names]


def _lcp(a, b):
    n = min(len(a), len(b))
    if n == 0:
        return 0
    x, y = np.asarray(a[:n]), np.asarray(b[:n])
    diff = np.nonzero(x != y)[0]
    return int(diff[0]) if diff.size else n


@dataclasses.dataclass(frozen=True)
class Accesses:
    """Per UB byte: the repeat that read it first / wrote it last (``-1``: untouched)."""

    read: np.ndarray
    write: np.ndarray
    repeats: int
    fault: int
    call: Call

    def __iter__(self):  # read, write = accesses(...)
        return iter((self.read, self.write))


def trace(call, *args, by_repeat=True, **kw) -> Accesses:
    """The full record behind ``accesses``: read/write maps, repeat count and fault bits.

    ``by_repeat=False`` runs the reference once and marks every touched byte 0 (the repeat
    attribution reruns the call cut to 1, 2, ... repeats: its cost grows with the square of the
    repeat count, about 4 s for 64 repeats of 128 half lanes).
    """
    call = _as_call(call, args, kw)
    state = ref_state(call.state, call.profile, call.ub_bytes)
    full_r, full_w, fault = _run_logged(call, call.args, state)
    n_r, n_w = [], []
    repeats = 1 if (full_r or full_w) else 0
    if (full_r or full_w) and by_repeat:
        k = 1
        while True:
            cut = _truncated(call, k, state)
            if cut is None:
                break
            tr, tw, _ = _run_logged(call, cut[0], cut[1])
            if tr == full_r and tw == full_w:
                break
            n_r.append(_lcp(tr, full_r))
            n_w.append(_lcp(tw, full_w))
            k += 1
            if k > 4 * max(call.profile.max_repeat_times, 1) + len(full_r) + len(full_w):
                raise AssertionError(f"viz: {call!r} never reached its full access sequence")
        repeats = k
    size = state.ub.size
    read = np.full(size, -1, np.int32)
    write = np.full(size, -1, np.int32)
    if full_r:
        rep = np.searchsorted(
            np.maximum.accumulate(np.asarray(n_r, np.int64)), np.arange(len(full_r)), "right"
        )
        big = np.full(size, np.iinfo(np.int32).max, np.int64)
        np.minimum.at(big, np.asarray(full_r), rep)
        touched = big != np.iinfo(np.int32).max
        read[touched] = big[touched]
    if full_w:
        rep = np.searchsorted(
            np.maximum.accumulate(np.asarray(n_w, np.int64)), np.arange(len(full_w)), "right"
        )
        np.maximum.at(write, np.asarray(full_w), rep.astype(np.int32))
    return Accesses(read, write, repeats, fault, call)


def accesses(call, *args, by_repeat=True, **kw):
    """``(read, write)``: int32 arrays over the UB bytes; the repeat that read (first) / wrote
    (last) each byte, ``-1`` where the call does not touch it. Same arguments as ``Call``."""
    a = trace(call, *args, by_repeat=by_repeat, **kw)
    return a.read, a.write


# ---------------------------------------------------------------------------------------------
# access_map


def _rows_of(maps, row_bytes):
    touched = np.zeros(maps[0].size, bool)
    for m in maps:
        touched |= m >= 0
    idx = np.nonzero(touched)[0]
    return np.unique(idx // row_bytes)


def access_map(call, *args, row_bytes=256, max_rows=64, title=None, by_repeat=True, **kw):
    """Heat map of the UB bytes one call reads (top) and writes (bottom), coloured by repeat.

    Rows are ``row_bytes`` bytes of UB (default 256 = one repeat of 8 DataBlocks); only rows the
    call touches are drawn, labelled with their start address (a thick line marks skipped UB).
    Thin lines separate the 32-byte DataBlocks. Same call arguments as ``Call`` (or an
    ``Accesses`` from ``trace``); ``by_repeat=False`` skips the repeat colouring (one reference run).
    """
    acc = call if isinstance(call, Accesses) else trace(call, *args, by_repeat=by_repeat, **kw)
    p = acc.call.profile
    bb = p.block_bytes
    if row_bytes % bb:
        raise ValueError(f"row_bytes={row_bytes} must be a multiple of the {bb}-byte block")
    rows = _rows_of((acc.read, acc.write), row_bytes)
    if rows.size > max_rows:  # keep the picture readable: wider rows
        while rows.size > max_rows:
            row_bytes *= 2
            rows = _rows_of((acc.read, acc.write), row_bytes)
    fig = _figure(figsize=(min(4 + row_bytes / 32, 16), 1.6 + 0.45 * max(rows.size, 1) * 2))
    axes = fig.subplots(2, 1, sharex=True)
    n_rep = max(acc.repeats, 1)
    cmap = _repeat_cmap(n_rep)
    im = None
    for ax, data, label in ((axes[0], acc.read, "read"), (axes[1], acc.write, "written")):
        grid = np.full((max(rows.size, 1), row_bytes), -1, np.int32)
        for i, r in enumerate(rows):
            seg = data[r * row_bytes : (r + 1) * row_bytes]
            grid[i, : seg.size] = seg
        masked = np.ma.masked_less(grid, 0)
        ax.set_facecolor("#f2f2f2")
        im = ax.imshow(
            masked,
            aspect="auto",
            interpolation="nearest",
            cmap=cmap,
            vmin=-0.5,
            vmax=n_rep - 0.5,
            extent=(0, row_bytes, grid.shape[0], 0),
        )
        for x in range(bb, row_bytes, bb):
            ax.axvline(x, color="0.55", lw=0.6)
        for i in range(1, rows.size):
            gap = rows[i] - rows[i - 1] > 1
            ax.axhline(i, color="black" if gap else "0.55", lw=2.0 if gap else 0.6)
        ax.set_yticks(np.arange(rows.size) + 0.5)
        ax.set_yticklabels([f"0x{int(r) * row_bytes:05x}" for r in rows])
        n = int((data >= 0).sum())
        ax.set_ylabel(f"{label}\n({n} B)")
    axes[1].set_xticks(range(0, row_bytes + 1, bb))
    axes[1].set_xlabel(f"byte offset in the row (DataBlocks of {bb} B)")
    from .errors import describe_faults

    t = title or f"{acc.call.api} on {p.name}: UB bytes by repeat ({acc.repeats} repeats)"
    if acc.fault:
        t += f"\nfault: {describe_faults(acc.fault)} (the call is suppressed: no access)"
    fig.suptitle(t)
    if im is not None:
        cb = fig.colorbar(im, ax=list(axes), fraction=0.04, pad=0.02)
        cb.set_label("repeat")
        step = max(1, math.ceil(n_rep / 16))
        cb.set_ticks(list(range(0, n_rep, step)))
    return fig


def _repeat_cmap(n):
    import matplotlib
    from matplotlib.colors import ListedColormap

    base = matplotlib.colormaps["tab10" if n <= 10 else "viridis"]
    colors = [base(i) for i in range(n)] if n <= 10 else [base(i / max(n - 1, 1)) for i in range(n)]
    return ListedColormap(colors)


# ---------------------------------------------------------------------------------------------
# mask_grid


def mask_lanes(mask, dtype, repeat=1, profile=None, mode="normal", state=None):
    """bool[repeats, L]: the lanes a mask enables in each repeat, from the reference's lane plan.

    ``mode``: "normal" (a continuous int or a list of uint64 words, low word first), "counter"
    (the mask is the element count; repeats derived), "count" (the count form ``X(..., count)``),
    or "register" (``MASK_PLACEHOLDER``: the vector-mask registers of ``state``).
    """
    p = as_profile(profile)
    d = _dt.as_dtype(dtype)
    st = ref_state(state, p, ub_bytes=p.block_bytes)
    params = UnaryRepeatParams()
    if mode == "normal":
        st.mask_mode = 0
        plan = _masks.plan_high_dim("Adds", st, d, mask, repeat, params, True, p)
    elif mode == "counter":
        st.mask_mode = 1
        plan = _masks.plan_high_dim("Adds", st, d, mask, repeat, params, True, p)
    elif mode == "count":
        plan = _masks.plan_count_form("Adds", st, d, mask, True, p)
    elif mode == "register":
        plan = _masks.plan_high_dim("Adds", st, d, MASK_PLACEHOLDER, repeat, params, False, p)
    else:
        raise ValueError(f"mode={mode!r}; allowed: 'normal', 'counter', 'count', 'register'")
    if plan.outcome != "run":
        return np.zeros((0, p.lanes(d)), bool)
    return np.array(plan.active, dtype=bool).reshape(plan.repeats, plan.lanes)


def mask_grid(mask, dtype, repeat=1, profile=None, mode="normal", state=None, title=None):
    """Rows = repeats, columns = lanes: the lanes ``mask`` enables (see ``mask_lanes``)."""
    p = as_profile(profile)
    d = _dt.as_dtype(dtype)
    grid = mask_lanes(mask, dtype, repeat, p, mode, state)
    L = p.lanes(d)
    E = p.block_bytes // d.itemsize
    rows = max(grid.shape[0], 1)
    fig = _figure(figsize=(min(3 + L / 12, 16), 1.4 + 0.3 * rows))
    ax = fig.subplots()
    from matplotlib.colors import ListedColormap

    img = grid if grid.size else np.zeros((1, L), bool)
    ax.imshow(
        img.astype(np.int8),
        aspect="auto",
        interpolation="nearest",
        cmap=ListedColormap(["#f2f2f2", "#1f77b4"]),
        vmin=0,
        vmax=1,
        extent=(0, L, rows, 0),
    )
    for x in range(E, L, E):
        ax.axvline(x, color="0.55", lw=0.6)
    for y in range(1, rows):
        ax.axhline(y, color="white", lw=0.8)
    ax.set_xticks(range(0, L + 1, E))
    ax.set_xlabel(f"lane (blocks of {E} x {d.cpp})")
    ax.set_yticks(np.arange(rows) + 0.5)
    ax.set_yticklabels([str(r) for r in range(rows)])
    ax.set_ylabel("repeat")
    if isinstance(mask, (list, tuple)):
        shown = "[" + ", ".join(f"0x{int(w):x}" for w in mask) + "]"
    else:
        shown = repr(mask)
    ax.set_title(title or f"mask {shown} ({mode}), {d.cpp} on {p.name}: {int(grid.sum())} active lanes")
    return fig


# ---------------------------------------------------------------------------------------------
# diff


def _ub_bytes(x):
    if isinstance(x, np.ndarray) and x.dtype == np.uint8:
        return x
    ub = getattr(x, "ub", x)
    return np.asarray(ub, dtype=np.uint8)


def diff_ranges(a, b):
    """``[(lo, hi)]``: the maximal byte ranges where the UB of ``a`` and ``b`` differ."""
    ua, ub = _ub_bytes(a), _ub_bytes(b)
    if ua.shape != ub.shape:
        raise ValueError(f"diff: UB shapes differ: {ua.shape} vs {ub.shape}")
    if ua.ndim != 1:
        raise ValueError(f"diff: one case at a time; got UB shape {ua.shape}")
    ne = np.concatenate(([False], ua != ub, [False]))
    edges = np.nonzero(np.diff(ne.astype(np.int8)))[0]
    return [(int(lo), int(hi)) for lo, hi in zip(edges[::2], edges[1::2], strict=True)]


def diff(a, b, row_bytes=256, max_rows=64, max_table=10, labels=("a", "b"), title=None):
    """Where two UB states differ (CoreState, RefState or uint8 arrays): a byte map (rows of UB
    that differ) and a table of the first differing ranges with both sides' bytes."""
    ua, ub = _ub_bytes(a), _ub_bytes(b)
    ranges = diff_ranges(ua, ub)
    differs = (ua != ub).astype(np.int32) - 1  # 0 where different, -1 elsewhere
    rows = _rows_of((differs,), row_bytes)
    while rows.size > max_rows:
        row_bytes *= 2
        rows = _rows_of((differs,), row_bytes)
    n_tab = min(len(ranges), max_table)
    fig = _figure(
        figsize=(min(4 + row_bytes / 32, 16), 2.2 + 0.4 * max(rows.size, 1) + 0.3 * (n_tab + 1)),
        layout="constrained",
    )
    ax, tax = fig.subplots(2, 1, gridspec_kw={"height_ratios": [max(rows.size, 1), n_tab + 1.5]})
    grid = np.zeros((max(rows.size, 1), row_bytes), np.int8)
    for i, r in enumerate(rows):
        seg = differs[r * row_bytes : (r + 1) * row_bytes] + 1
        grid[i, : seg.size] = seg
    from matplotlib.colors import ListedColormap

    ax.imshow(
        grid,
        aspect="auto",
        interpolation="nearest",
        cmap=ListedColormap(["#f2f2f2", "#d62728"]),
        vmin=0,
        vmax=1,
        extent=(0, row_bytes, grid.shape[0], 0),
    )
    for x in range(32, row_bytes, 32):
        ax.axvline(x, color="0.55", lw=0.6)
    ax.set_yticks(np.arange(rows.size) + 0.5)
    ax.set_yticklabels([f"0x{int(r) * row_bytes:05x}" for r in rows])
    ax.set_xticks(range(0, row_bytes + 1, 32))
    ax.set_xlabel("byte offset in the row (32-byte blocks)")
    n = int((ua != ub).sum())
    ax.set_title(title or f"UB diff: {n} bytes differ in {len(ranges)} ranges")
    tax.axis("off")
    if n_tab:
        cells = []
        for lo, hi in ranges[:n_tab]:
            m = min(hi - lo, 8)
            more = " ..." if hi - lo > m else ""
            cells.append(
                [
                    f"0x{lo:05x}",
                    f"0x{hi:05x}",
                    str(hi - lo),
                    ua[lo : lo + m].tobytes().hex(" ") + more,
                    ub[lo : lo + m].tobytes().hex(" ") + more,
                ]
            )
        tab = tax.table(
            cellText=cells,
            colLabels=["from", "to (excl.)", "bytes", labels[0], labels[1]],
            loc="upper center",
            cellLoc="left",
        )
        tab.auto_set_font_size(False)
        tab.set_fontsize(8)
        tab.auto_set_column_width(list(range(5)))
    else:
        tax.text(0.5, 0.5, "identical", ha="center", va="center")
    return fig


# ---------------------------------------------------------------------------------------------
# timeline of a launch: one lane per pipe (per core), calls as boxes, flags as arrows, races red


def _levels(log, before):
    """Earliest step of each call under happens-before (a call one step after its latest
    predecessor): calls on one lane at the same step may run at the same time."""
    lv = [0] * len(log.calls)
    for i in range(len(log.calls)):
        b, m = before[i], -1
        while b:
            low = b & -b
            m = max(m, lv[low.bit_length() - 1])
            b ^= low
        lv[i] = m + 1
    return lv


def timeline(result, cores=None, title=None, max_calls=400):
    """A launch's call logs as a timeline (``result``: a ``KernelResult`` of ``run_kernel`` /
    ``jit_kernel``). One lane per pipe of each core (S, V, MTE2, MTE3); each call a box at the
    earliest step the happens-before relation allows (so unordered calls overlap); an arrow from
    each SetFlag (or queue EnQue/FreeTensor) to the WaitFlag it releases; the calls named by a
    race or sync finding drawn in red. Returns the Figure."""
    from . import hazards as _hz
    from .sync import pipe_t

    logs = list(result.logs)
    if cores is not None:
        logs = [lg for lg in logs if lg.core in set(cores)]
    bad = {(c.core, c.index) for f in result.findings for c in f.calls}
    pipes = (pipe_t.PIPE_S, pipe_t.PIPE_V, pipe_t.PIPE_MTE2, pipe_t.PIPE_MTE3)
    lanes = [(lg.core, p) for lg in logs for p in pipes]
    fig = _figure(figsize=(12, 0.5 * len(lanes) + 1.5))
    ax = fig.add_subplot(1, 1, 1)
    y_of = {lane: len(lanes) - 1 - n for n, lane in enumerate(lanes)}
    width = 0
    for lg in logs:
        o = _hz.order(lg)
        lv = _levels(lg, o.before)
        pos = {}
        for c in lg.calls[:max_calls]:
            x = lv[c.index]
            width = max(width, x + 1)
            if c.pipe == pipe_t.PIPE_ALL:  # a barrier over every pipe: a vertical line
                ax.axvline(x + 0.5, color="0.6", lw=0.8, ls=":")
                continue
            if c.pipe not in pipes:
                continue
            y = y_of[(lg.core, c.pipe)]
            red = (lg.core, c.index) in bad
            face = "#d62728" if red else "#9ecae1" if c.kind == "op" else "#fdd0a2"
            ax.add_patch(
                __import__("matplotlib.patches", fromlist=["Rectangle"]).Rectangle(
                    (x + 0.05, y - 0.35), 0.9, 0.7, facecolor=face, edgecolor="k", lw=0.5
                )
            )
            label = c.api if c.kind == "op" else c.api.replace("TQueSync::", "")
            ax.text(x + 0.5, y, label[:10], ha="center", va="center", fontsize=6)
            pos[c.index] = (x + 0.5, y)
        for s_, w in o.pairs:
            if s_ in pos and w in pos:
                ax.annotate(
                    "", xy=pos[w], xytext=pos[s_], arrowprops=dict(arrowstyle="->", color="#ff7f0e", lw=0.8)
                )
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([f"core {c} {p.name}" for c, p in reversed(lanes)], fontsize=7)
    ax.set_xlim(0, max(width, 1))
    ax.set_ylim(-0.7, len(lanes) - 0.3)
    ax.set_xlabel("step (earliest under happens-before)")
    n = len(result.findings)
    ax.set_title(title or f"{sum(len(lg.calls) for lg in logs)} calls, {n} finding(s) in red")
    return fig
