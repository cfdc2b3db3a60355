"""Read a launch's recorded trace and replay it through the public Kernel API.

A launch folder (written by the C++ runtime, ``include/ascendjax/rt.h``) holds ``meta.json`` (the
kernel's name and launch line, the block count, every GM buffer's size), ``gm<i>.bin`` (the GM
bytes at the launch) and ``trace.jsonl`` (one record per call, in program order, each tagged with
its block ``b``, the user's ``file`` and ``line``). ``kernel_fn`` turns the records into
``fn(k, *gm)`` for ``aj.jit_kernel`` / ``aj.run_kernel``: block ``k.GetBlockIdx()``'s records are
replayed as the Python kernel would write them -- ``aj.TPipe(k)``, ``q.AllocTensor(dtype)``,
``k.Add(dst, src0, src1, count)`` with the arguments in C++ order -- so the model's own call-form
parser, checks and errors apply. ``k.source`` names the C++ line of each call.
"""

import dataclasses
import functools
import inspect
import json
import pathlib

import numpy as np

import ascend_jax as aj


class ReplayError(aj.AscendCError, ValueError):
    """A C++ call the model cannot replay (an unmodelled API or argument); names the C++ line."""


@dataclasses.dataclass
class Launch:
    folder: pathlib.Path
    index: int
    name: str
    line: int
    blocks: int
    gm_bytes: list  # per C++ buffer id
    live: list  # per C++ buffer id
    events: list  # every record, program order
    tables: list = dataclasses.field(default_factory=list)  # per C++ buffer id: a __gm__ constant table

    @property
    def buffers(self):
        """C++ buffer ids passed to the model (the live aclrtMalloc buffers), in id order."""
        return [i for i, (n, lv) in enumerate(zip(self.gm_bytes, self.live, strict=True)) if lv and n > 0]

    def gm_inputs(self):
        """The GM bytes at the launch, one uint8 array per passed buffer."""
        return [np.fromfile(self.folder / f"launch_{self.index}_gm{i}.bin", np.uint8) for i in self.buffers]

    def block_events(self, b):
        return [(i, e) for i, e in enumerate(self.events) if e.get("b") == b and e["op"] != "block"]

    def value_reads(self):
        """Records whose value the C++ code consumed (GetValue, an API's return, an out-parameter)."""
        return [e for e in self.events if e["op"] == "GetValue" or "ret" in e or _has_out(e)]

    def read_buffers(self):
        """{C++ buffer id: dtype name} of the GM buffers the kernel reads (DataCopy sources, GetValue)."""
        out = {}
        tables = {i for i, t in enumerate(self.tables) if t}  # constants of the program, not inputs
        for e in self.events:
            if e["op"] == "call" and e["api"] in ("DataCopy", "DataCopyPad") and len(e["args"]) > 1:
                src = e["args"][1]
                if isinstance(src, dict) and src.get("t") == "G" and e["args"][0].get("t") == "L":
                    out.setdefault(src["buf"], src["dt"])
            elif e["op"] == "GetValue" and e["t"].get("t") == "G":
                out.setdefault(e["t"]["buf"], e["t"]["dt"])
        return {b: dt for b, dt in out.items() if b not in tables}

    def written_buffers(self):
        out = {}
        for e in self.events:
            if e["op"] == "call" and e["api"] in ("DataCopy", "DataCopyPad") and e["args"]:
                dst = e["args"][0]
                if isinstance(dst, dict) and dst.get("t") == "G":
                    out.setdefault(dst["buf"], dst["dt"])
            elif e["op"] == "SetValue" and e["t"].get("t") == "G":
                out.setdefault(e["t"]["buf"], e["t"]["dt"])
        return out


def _has_out(e):
    return e["op"] == "call" and any(isinstance(a, dict) and a.get("t") == "out" for a in e["args"])


def read_launch(folder, index):
    folder = pathlib.Path(folder)
    meta = json.loads((folder / f"launch_{index}_meta.json").read_text())
    text = (folder / f"launch_{index}_trace.jsonl").read_text()
    events = [json.loads(ln) for ln in text.splitlines() if ln.strip()]
    return Launch(
        folder,
        index,
        meta["name"],
        meta["line"],
        meta["blocks"],
        [g["bytes"] for g in meta["gm"]],
        [g["live"] for g in meta["gm"]],
        events,
        [bool(g.get("table")) for g in meta["gm"]],
    )


def where(e):
    return f"{pathlib.Path(e.get('file') or '?').name}:{e.get('line', '?')}"


@functools.cache
def _kwonly(name):
    spec = aj.REGISTRY.get(name)
    if spec is None:
        return {}, []
    sig = inspect.signature(spec.fn)
    kw = {p.name: p.default for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY}
    pos = [p.name for p in sig.parameters.values() if p.kind != p.KEYWORD_ONLY]
    return kw, pos


class Replayer:
    """Replays one block's records on kernel ``k`` with GM tensors ``gts`` (passed-buffer order)."""

    def __init__(self, k, launch, gts, capture=None):
        self.k, self.launch = k, launch
        self.gm = {cid: g for cid, g in zip(launch.buffers, gts, strict=True)}
        self.objs = {}
        self.handles = {}  # C++ handle id -> (Python LocalTensor, the C++ address of its base)
        self.pipes = {}  # C++ TPipe id -> [UB address it starts from, the objects it gave memory]
        self.pools = {}  # C++ TBufPool id -> {"start", "end", "cur", "pipe"}
        self.capture = capture  # {"event": index, "value": ...}
        self.slots = None  # the rolled back end's GM offsets (a record's ``"slot": j``; rolled.py)

    # -- arguments ------------------------------------------------------------------------------
    def dtype(self, name, e):
        try:
            return aj.as_dtype(name)
        except TypeError as err:
            raise ReplayError(f"{where(e)}: element type {name!r} is not modelled") from err

    def tensor(self, a, e):
        if a["t"] == "L":
            if a["h"] not in self.handles:
                raise ReplayError(
                    f"{where(e)}: a LocalTensor that was never allocated (no AllocTensor/Get/Alloc made it)"
                )
            base, base_addr = self.handles[a["h"]]
            dt = self.dtype(a["dt"], e)
            return aj.LocalTensor(dt, base.addr + (a["addr"] - base_addr), a["len"], base.name, base.handle)
        if a["buf"] < 0:
            raise ReplayError(
                f"{where(e)}: a GlobalTensor used before SetGlobalBuffer gave it GM (uninitialised; "
                "msSanitizer's initcheck class)"
            )
        g = self.gm.get(a["buf"])
        if g is None:
            raise ReplayError(f"{where(e)}: a GlobalTensor on a GM buffer that was freed before the launch")
        dt = self.dtype(a["dt"], e)
        off = a["off"] if "slot" not in a else self.slots[a["slot"]]
        return aj.GlobalTensor(dt, g.buf, g.addr + off, a["len"], g.name)

    def value(self, a, e):
        if a is None:
            return None
        if isinstance(a, (int, float, bool, str)):
            return a
        t = a.get("t")
        if t in ("L", "G"):
            return self.tensor(a, e)
        if t == "s":
            v = a["v"]
            if a["ty"] in ("float", "double", "half", "bfloat16_t"):
                return float.fromhex(v)
            return v
        if t == "e":
            cls = getattr(aj, a["ty"], None)
            if cls is None or not hasattr(cls, a["v"]):
                raise ReplayError(f"{where(e)}: enum {a['ty']}::{a['v']} is not modelled")
            return getattr(cls, a["v"])
        if t == "list":
            return [self.value(x, e) for x in a["v"]]
        if t == "mask_placeholder":
            return aj.MASK_PLACEHOLDER
        if t == "p":
            return self.struct(a, e)
        if t == "out":
            return _OUT
        raise ReplayError(f"{where(e)}: an argument of C++ type {_cxx_type(a)} cannot be passed to the model")

    def struct(self, a, e):
        ty = a["ty"]
        fields = {n: self.value(v, e) for n, v in a["f"].items()}
        if ty == "DataCopyPadExtParams":
            return aj.DataCopyPadExtParams(**fields)
        cls = getattr(aj, ty, None)
        if cls is None:
            raise ReplayError(f"{where(e)}: parameter struct {ty} is not modelled")
        if ty == "MrgSortSrcList":
            return cls(**fields)
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{n: v for n, v in fields.items() if n in known})

    # -- records ------------------------------------------------------------------------------------
    def run(self, events):
        for i, e in events:
            self.k.source = where(e)
            try:
                res = self.one(e)
            except Exception as err:
                if not hasattr(err, "cxx_where"):  # the innermost C++ call that failed
                    err.cxx_where, err.cxx_call = where(e), _describe(e)
                raise
            if self.capture is not None and i == self.capture["event"]:
                self.capture["value"] = res
                return

    def one(self, e):
        op, k = e["op"], self.k
        if op == "TPipe":
            self.objs[e["id"]] = aj.TPipe(k)
            self.pipes[e["id"]] = [k._next_addr, []]
        elif op == "TQue":
            self.objs[e["id"]] = aj.TQue(aj.TPosition(e["pos"]), e["depth"])
        elif op == "TBuf":
            self.objs[e["id"]] = aj.TBuf(aj.TPosition(e["pos"]))
        elif op == "LocalMemAllocator":
            self.objs[e["id"]] = aj.LocalMemAllocator(k)
        elif op == "InitBuffer":
            pipe, obj = self.objs[e["pipe"]], self.objs[e["obj"]]
            self.pipes[e["pipe"]][1].append(obj)
            if e["num"] < 0:
                pipe.InitBuffer(obj, e["len"])
            else:
                pipe.InitBuffer(obj, e["num"], e["len"])
        elif op in ("AllocTensor", "Get", "GetWithOffset", "Alloc"):
            obj = self.objs[e["obj"]]
            dt = self.dtype(e["dt"], e)
            if op == "AllocTensor":
                t = obj.AllocTensor(dt)
            elif op == "Alloc":
                t = obj.Alloc(dt, e["len"])
            elif op == "Get":
                t = obj.Get(dt, e["len"]) if e.get("given") else obj.Get(dt)
            else:
                base = obj.Get(aj.uint8)  # the C++ and model allocators agree (checked at Get/Alloc)
                t = obj.GetWithOffset(dt, e["len"], e["addr"] - base.addr)
            if "addr" in e:
                self.handles[e["h"]] = (t, e["addr"])
                if isinstance(t.addr, int) and t.addr != e["addr"] and op != "GetWithOffset":
                    raise RuntimeError(
                        f"{where(e)}: internal: the C++ UB address {e['addr']} differs from the model's {t.addr}"
                    )
        elif op == "EnQue":
            self.objs[e["obj"]].EnQue(self.tensor(e["t"], e))
        elif op == "DeQue":
            self.objs[e["obj"]].DeQue(self.dtype(e["dt"], e))
        elif op == "FreeTensor":
            self.objs[e["obj"]].FreeTensor(self.tensor(e["t"], e))
        elif op == "TBufPool":
            self.pools[e["id"]] = None
        elif op == "InitBufPool":
            self.init_buf_pool(e)
        elif op == "PoolInitBuffer":
            self.pool_init_buffer(e)
        elif op == "PoolReset":  # CHOICE "TBufPool::Reset" (docs/MODEL.md): ends the pool's work as PIPE_ALL
            k.PipeBarrier(aj.pipe_t.PIPE_ALL)
        elif op == "StaticTensor":
            self.static_tensor(e)
        elif op == "PipeRelease":
            self.pipe_release(e)
        elif op == "GetValue":
            return k.GetValue(self.tensor(e["t"], e), e["i"])
        elif op == "SetValue":
            k.SetValue(self.tensor(e["t"], e), e["i"], self.value(e["v"], e))  # UB or GM (PIPE_S)
        elif op == "call":
            return self.call(e)
        else:
            raise ReplayError(f"{where(e)}: unknown trace record {op!r}")
        return None

    def static_tensor(self, e):
        """``LocalTensor<T>(pos, addr, tileSize)`` (LocalTensor构造函数.md, static Tensor programming):
        "起始地址需要保证32字节对齐" and "addr和tileSize（转换成所占字节数）之和不应超出对应物理内存的范围"."""
        k, dt = self.k, self.dtype(e["dt"], e)
        addr, n = e["addr"], e["len"]
        nbytes = n * dt.bits // 8
        align = k.profile.operand_alignment_bytes
        api = "LocalTensor(TPosition, addr, tileSize)"
        if addr % align:
            raise aj.UsageError(
                api, "addr", addr, f"a multiple of {align}", k.profile, "起始地址需要保证32字节对齐"
            )
        if n < 1 or addr + nbytes > k.ub_limit:
            raise aj.UsageError(
                api,
                "tileSize",
                n,
                f"1 .. {max(k.ub_limit - addr, 0) * 8 // dt.bits} elements of {dt.cpp} at UB+{addr}",
                k.profile,
                f"addr + tileSize bytes must lie in the usable UB [0, {k.ub_limit})",
            )
        k._grow_arena(addr + nbytes)
        self.handles[e["h"]] = (aj.LocalTensor(dt, addr, n), addr)

    def init_buf_pool(self, e):
        """``TPipe::InitBufPool`` / ``TBufPool::InitBufPool(pool, len[, shareBuf])`` (InitBufPool.md):
        ``len`` rounded up to 32 bytes, from the pipe's allocator or the parent pool; with shareBuf
        the pool takes its start ("共享起始地址及长度"; "输入长度需要小于等于被复用资源池长度")."""
        k = self.k
        n = -(-e["len"] // 32) * 32
        if e["share"] >= 0:
            sh = self.pools.get(e["share"])
            if sh is None:
                raise aj.UsageError(
                    "InitBufPool", "shareBuf", "a TBufPool", "an initialised TBufPool", k.profile
                )
            if n > sh["end"] - sh["start"]:
                raise aj.UsageError(
                    "InitBufPool",
                    "len",
                    e["len"],
                    f"at most {sh['end'] - sh['start']} bytes (shareBuf's length)",
                    k.profile,
                    "InitBufPool.md: 输入长度需要小于等于被复用资源池长度",
                )
            start = sh["start"]
        elif e["parent"] < 0:
            start = k._bump(n, "InitBufPool", "len", e["len"])
        else:
            start = self.pool_take(self.pools[e["parent"]], n, "InitBufPool", e)
        self.pools[e["obj"]] = {"start": start, "end": start + n, "cur": start, "pipe": e["pipe"]}

    def pool_take(self, pool, n, api, e):
        align = self.k.profile.operand_alignment_bytes
        a = -(-pool["cur"] // align) * align
        if a + n > pool["end"]:
            raise aj.UsageError(
                f"TBufPool::{api}",
                "len",
                e["len"],
                f"at most {max(pool['end'] - a, 0)} more bytes",
                self.k.profile,
                f"the pool holds UB [{pool['start']}, {pool['end']})",
            )
        pool["cur"] = a + n
        return a

    def pool_init_buffer(self, e):
        """``TBufPool::InitBuffer(que, num, len)`` / ``(buf, len)``: the pipe's InitBuffer on the pool's bytes."""
        k, pool = self.k, self.pools.get(e["pool"])
        if pool is None:
            raise ReplayError(
                f"{where(e)}: TBufPool::InitBuffer before the pool was initialised (InitBufPool)"
            )
        pipe, obj = self.objs[pool["pipe"]], self.objs[e["obj"]]
        n = -(-e["len"] // 32) * 32 * max(e["num"], 1)
        self.pool_take(dict(pool), n, "InitBuffer", e)  # fits the pool (checked before any change)
        saved, k._next_addr = k._next_addr, pool["cur"]
        try:
            if e["num"] < 0:
                pipe.InitBuffer(obj, e["len"])
            else:
                pipe.InitBuffer(obj, e["num"], e["len"])
            pool["cur"] = k._next_addr
        finally:
            k._next_addr = saved
        self.pipes[pool["pipe"]][1].append(obj)

    def pipe_release(self, e):
        """``TPipe::Destroy`` / ``DestroyWithoutPipeAll`` / ``Reset``: the pipe's buffers are released
        (a tensor of them is used after free) and its UB is handed out again from its start."""
        k = self.k
        pipe = self.objs[e["pipe"]]
        base, owned = self.pipes[e["pipe"]]
        if e["how"] == "Destroy":  # SPEC: DestroyWithoutPipeAll.md "该接口内部未设置PIPE_ALL同步"
            k.PipeBarrier(aj.pipe_t.PIPE_ALL)
        for obj in owned:
            for b in obj._buffers:
                b.freed, b.in_use = True, False
            k._n_buffers -= len(obj._buffers)
            obj._buffers, obj.pipe = [], None
        owned.clear()
        pipe._alloc_count, pipe._event_ids = {}, {}
        k._next_addr = base

    def call(self, e):
        api, k = e["api"], self.k
        args = [self.value(a, e) for a in e["args"]]
        tmpl = e["tmpl"]
        if api in _SYNC:
            return _SYNC[api](self, e, tmpl, args)
        out = [i for i, a in enumerate(args) if a is _OUT]
        for i in reversed(out):
            del args[i]
        name = api
        method = getattr(k, name, None)
        if method is None or name not in aj.REGISTRY:
            raise aj.NotModelledError(f"{where(e)}: AscendC::{api} is not modelled ({_describe(e)})")
        kw = {}
        kwonly, pos = _kwonly(name)
        types = [t for t in tmpl if "type" in t and t["type"] not in (None, "BinaryDefaultType")]
        if len(pos) > 1 and pos[1] in ("T", "dtype"):
            if not types:
                raise ReplayError(f"{where(e)}: AscendC::{api} needs its element type as a template argument")
            args.insert(0, self.dtype(types[0]["type"], e))
        for t in tmpl:
            tname = t["name"]
            val = t.get("value")
            if isinstance(val, dict) and val.get("ty") == "BinaryConfig":
                if val["f"]["scalarTensorIndex"]["v"] < 0:  # not given by the kernel
                    continue
            if "type" in t:
                if tname in kwonly and t["type"] not in (None, "BinaryDefaultType"):
                    kw[tname] = self.dtype(t["type"], e)
                continue
            v = self.value(t["value"], e)
            if isinstance(v, aj.BinaryConfig):
                tname = "config"
            if tname in kwonly and not _same(v, kwonly[tname]):
                kw[tname] = v
        return method(*args, **kw)


class _Out:
    def __repr__(self):
        return "<out>"


_OUT = _Out()


def _same(v, default):
    if default is inspect.Parameter.empty:
        return False
    try:
        return bool(v == default) and type(v) is type(default)
    except Exception:  # noqa: BLE001
        return False


def _cxx_type(a):
    ty = a.get("ty", "?")
    if "T = " in ty:  # __PRETTY_FUNCTION__ of the fallback writer: "... [with T = X; ...]"
        ty = ty.split("T = ", 1)[1].split(";")[0].split("]")[0]
    return ty


def _describe(e):
    def short(a):
        if not isinstance(a, dict):
            return repr(a)
        t = a.get("t")
        if t == "L":
            return f"LocalTensor<{a['dt']}>[{a['len']}]@UB+{a['addr']}"
        if t == "G":
            return f"GlobalTensor<{a['dt']}>[{a['len']}]@GM{a['buf']}+{a.get('off', '?')}"
        if t == "s":
            v = a["v"]
            if isinstance(v, bool):
                return "true" if v else "false"
            return f"({a['ty']}){float.fromhex(v) if isinstance(v, str) else v}"
        if t == "e":
            return f"{a['ty']}::{a['v']}"
        if t == "p":
            return f"{a['ty']}{{{', '.join(f'{n}={short(v)}' for n, v in a['f'].items())}}}"
        if t == "list":
            return "{" + ", ".join(short(x) for x in a["v"]) + "}"
        if t == "out":
            return f"<out {a.get('ty')}>"
        return f"<{_cxx_type(a)}>"

    if e["op"] != "call":
        return e["op"]
    tm = []
    for t in e["tmpl"]:
        if "type" in t:
            if t["type"] is not None:
                tm.append(t["type"])
        elif t["name"] == "isSetMask" and t["value"].get("v") is True:  # the default
            continue
        elif t["value"].get("ty") == "BinaryConfig" and t["value"]["f"]["scalarTensorIndex"]["v"] < 0:
            continue  # no config given
        else:
            tm.append(short(t["value"]))
    targs = f"<{', '.join(tm)}>" if tm else ""
    return f"AscendC::{e['api']}{targs}({', '.join(short(a) for a in e['args'])})"


# -- synchronisation: the C++ template argument names the event / pipe -----------------------------
def _sync_flag(self, e, tmpl, args):
    return getattr(self.k, e["api"])(getattr(aj.HardEvent, tmpl[0]["value"]["v"]), *args)


def _sync_barrier(self, e, tmpl, args):
    return self.k.PipeBarrier(getattr(aj.pipe_t, tmpl[0]["value"]["v"]))


def _sync_all(self, e, tmpl, args):
    return self.k.SyncAll()


def _que_sync(self, e, tmpl, args):
    src, dst = (getattr(aj.pipe_t, t["value"]["v"]) for t in tmpl[:2])
    return getattr(aj.TQueSync(self.k, src, dst), args[0])(args[1])


def _atomic(self, e, tmpl, args):
    if e["api"] == "DisableDmaAtomic":
        return self.k.DisableDmaAtomic()
    return getattr(self.k, e["api"])(self.dtype(tmpl[0]["type"], e))


def _data_sync_barrier(self, e, tmpl, args):
    return self.k.DataSyncBarrier()


def _ctrl_spr(self, e, tmpl, args):
    start, end = (t["value"]["v"] for t in tmpl[:2])
    return getattr(self.k, e["api"])(start, end, *args)


def _pad_value(self, e, tmpl, args):
    if args and args[0] not in (0, 0.0):
        raise aj.NotModelledError(f"{where(e)}: SetPadValue({args[0]}) is not modelled (only 0)")
    return None


_SYNC = {
    "SetFlag": _sync_flag,
    "WaitFlag": _sync_flag,
    "PipeBarrier": _sync_barrier,
    "SyncAll": _sync_all,
    "TQueSync": _que_sync,
    "SetPadValue": _pad_value,
    "SetAtomicAdd": _atomic,
    "SetAtomicMax": _atomic,
    "SetAtomicMin": _atomic,
    "SetAtomicType": _atomic,
    "DisableDmaAtomic": _atomic,
    "DataSyncBarrier": _data_sync_barrier,
    "SetCtrlSpr": _ctrl_spr,
    "GetCtrlSpr": _ctrl_spr,
}


class LiveReplay:
    """A launch's trace replayed while the host program records it, for the values it reads back
    (program schedule): the blocks' Kernels (GM shared) persist between reads, and each read
    replays only the records added since the previous one -- in trace order, which is the order
    the host ran the blocks in (phases cut by SyncAll), so k reads cost one replay, not k."""

    def __init__(self, folder, index, generation, profile):
        self.folder, self.index, self.generation = pathlib.Path(folder), index, generation
        self.launch = read_launch(folder, index)
        self.offset = (self.folder / f"launch_{index}_trace.jsonl").stat().st_size
        self.profile = profile
        self.players = {}
        self.gts = None
        self.pos = 0  # the next record to replay

    def _player(self, b):
        p = self.players.get(b)
        if p is None:
            k = aj.Kernel(self.profile, fault_policy="record", block_idx=b, block_num=self.launch.blocks)
            if self.gts is None:
                self.gts = [k.gm(a) for a in self.launch.gm_inputs()]
            else:
                k.share_gm(next(iter(self.players.values())).k)
            p = self.players[b] = Replayer(k, self.launch, self.gts)
        return p

    def _refresh(self):
        with open(self.folder / f"launch_{self.index}_trace.jsonl", "rb") as f:
            f.seek(self.offset)
            text = f.read()
        self.offset += len(text)
        self.launch.events.extend(json.loads(ln) for ln in text.decode().splitlines() if ln.strip())

    def value(self, event):
        """The value record ``event`` returns (replaying the records up to it)."""
        if event >= len(self.launch.events):
            self._refresh()
        capture = {"event": event}
        for i in range(self.pos, event + 1):
            e = self.launch.events[i]
            if e["op"] == "block":
                continue
            p = self._player(e["b"])
            p.capture = capture if i == event else None
            p.run([(i, e)])
        self.pos = max(self.pos, event + 1)
        if "value" not in capture:
            raise RuntimeError(
                f"{where(self.launch.events[event])}: internal: the replay did not reach the value read"
            )
        return capture["value"]


def kernel_fn(launch, capture=None, upto=None):
    """``fn(k, *gm)`` replaying ``launch`` (records up to index ``upto``, inclusive, when given) for
    ``aj.jit_kernel(fn, block_dim=launch.blocks)``: each core replays block ``k.GetBlockIdx()``."""
    events = launch.events if upto is None else launch.events[: upto + 1]
    per_block = {}
    for i, e in enumerate(events):
        if e["op"] != "block":
            per_block.setdefault(e["b"], []).append((i, e))

    def fn(k, *gm):
        Replayer(k, launch, gm, capture).run(per_block.get(int(k.GetBlockIdx()), []))

    fn.__name__ = launch.name.split("<")[0].strip() or "kernel"
    return fn
