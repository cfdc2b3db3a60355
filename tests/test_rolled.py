"""The rolled back end (ascend_jax/cxx/rolled.py): a C++ launch's repeating calls compile once, as
a loop body, and give the bits, fault words and findings of the straight line.

``tests/data/cxx/tile_loop.asc`` is our own LeakyRelu tile loop (double-buffered TQue pair, GM
offsets moving each tile, ``TAIL``: a shorter last tile, ``BLOCKS``: an SPMD launch, ``RACE``: a
V -> MTE3 race in every tile). Its host code checks every output element itself (LeakyRelu with
slope 0.125 is exact in float32), so the default run needs no straight-line twin; the A/B against
the straight line (``ASCEND_JAX_ROLLED=0``) on these kernels and on every vendor sample is slow.

The tests build C++ with g++ (or clang++); without one they fail with the front end's message.
"""

import os
import pathlib

import numpy as np
import pytest

from ascend_jax.cxx import rolled
from ascend_jax.cxx import run as R

TILE_LOOP = pathlib.Path(__file__).parent / "data" / "cxx" / "tile_loop.asc"


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_JAX_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(monkeypatch, src, defines=(), mode="1", **kw):
    """run_cxx with the rolled back end on ("1") or off ("0"); also the launches' GM bytes and
    per-core fault words (captured from the server)."""
    monkeypatch.setenv("ASCEND_JAX_ROLLED", mode)
    seen = []
    orig = R.Server._execute

    def execute(self, launch, arrays, timed):
        res, stat = orig(self, launch, arrays, timed)
        _run.launches.append((launch, launch.gm_inputs()))
        states = res.state if isinstance(res.state, tuple) else (res.state,)
        seen.append(
            (
                [np.asarray(g).tobytes() for g in res.gm],
                [np.asarray(st.fault).tobytes() for st in states],
            )
        )
        return res, stat

    _run.launches = []
    monkeypatch.setattr(R.Server, "_execute", execute)
    r = R.run_cxx(src, defines=list(defines), **kw)
    monkeypatch.setattr(R.Server, "_execute", orig)
    return r, seen


def _summary(r):
    return (
        r["returncode"],
        r["stdout"],
        [(c, f) for _, c, f in r["faults"]],
        [str(f) for _, f in r["findings"]],
        r["warnings"],
    )


def test_tile_loop_rolls_tail_and_cores(work, monkeypatch):
    """Two cores of five 256-float tiles, the last one 64 floats: the middle tiles are one loop
    body, the tail another segment, the cores one more loop; the host's own exact check passes
    and the call log (the findings' input) holds every call of the trace."""
    defs = ("TILES=5", "TILE=256", "TAIL=64", "BLOCKS=2")
    r, _ = _run(monkeypatch, TILE_LOOP, defs)
    assert r["returncode"] == 0, r["stdout"] + r["stderr"]
    assert "tile_loop: 0 of 2176 wrong" in r["stdout"]
    (s,) = r["stats"]
    assert s["rolled"] and s["blocks"] == 2
    assert r["faults"] == [] and r["findings"] == []
    _same_logs(_run.launches[0])


def _logs(launch, inputs, fast):
    """Every block's call log: the record pass (``fast``: loops' later iterations synthesised from
    their body) or a plain replay of every record on a record-only kernel."""
    import ascend_jax as aj
    from ascend_jax.cxx import trace as T

    k0 = aj.Kernel("ascend910b", block_num=launch.blocks)
    gts = [k0.gm(g) for g in inputs]
    per_block = {}
    for i, e in enumerate(launch.events):
        if e["op"] != "block":
            per_block.setdefault(e["b"], []).append((i, e))
    if fast:
        blocks = {b: rolled._Block(ev) for b, ev in per_block.items()}
        ks, _ = rolled._record_pass(launch, blocks, k0, gts)
    else:
        ks = {}
        for b, ev in per_block.items():
            ks[b] = rolled._RecordKernel("ascend910b", block_idx=b, block_num=launch.blocks)
            rolled._same_setup(ks[b], k0)
            T.Replayer(ks[b], launch, gts).run(ev)
    out = {}
    for b, k in ks.items():
        names = {}

        def ev(x, names=names):
            if isinstance(x, tuple) and x and x[0] == "que":
                return ("que", names.setdefault(x[1], len(names))) + x[2:]
            return tuple(ev(y) for y in x) if isinstance(x, tuple) else x

        out[b] = [(c.index, c.api, c.pipe, c.kind, ev(c.event), c.accesses, c.source) for c in k.log.calls]
    return out


def _same_logs(launch_inputs):
    fast, plain = _logs(*launch_inputs, True), _logs(*launch_inputs, False)
    assert fast.keys() == plain.keys()
    for b in fast:
        assert len(fast[b]) == len(plain[b]) > 0
        assert fast[b] == plain[b], b


def test_rolled_findings_are_the_straight_lines(work, monkeypatch):
    """A race in every tile (RACE: LeakyRelu's dst to GM without the VECOUT queue): the rolled
    run reports the findings of the whole trace, the same as the straight line; a short trace
    (two tiles) stays straight."""
    r, _ = _run(monkeypatch, TILE_LOOP, ("TILES=6", "TILE=256", "RACE=1"))
    assert r["stats"][0]["rolled"]
    found = [str(f) for _, f in r["findings"]]
    assert found and all("racecheck" in f for f in found), found
    assert any("tile_loop.asc:" in f and "DataCopy (PIPE_MTE3)" in f for f in found), found
    _same_logs(_run.launches[0])
    r2, _ = _run(monkeypatch, TILE_LOOP, ("TILES=1", "TILE=256"))
    assert not r2["stats"][0]["rolled"]


def test_segments_find_the_unit_after_the_bookkeeping_settles():
    """The loop starts after the first iteration (queues' first-use flags) and at a boundary
    where the Python-side bookkeeping repeats; a trace with no repeat stays one straight run."""

    class B:
        pass

    b = B()
    b.keys = np.array([9, 8] + [1, 2, 3] * 8 + [7], np.int64)
    b.fp = [0, 1] + [5, 6, 6] * 8 + [5, 5]
    b.fp[2] = 4  # the first iteration's start differs (first use)
    segs = [s.sig() for s in rolled._segments(b)]
    assert segs == [("straight", 0, 5, 1), ("loop", 5, 3, 7), ("straight", 26, 1, 1)], segs
    b.keys = np.arange(40, dtype=np.int64)
    b.fp = [0] * 41
    assert [s.sig() for s in rolled._segments(b)] == [("straight", 0, 40, 1)]


# -- A/B against the straight line (slow) ---------------------------------------------------------
AB_KERNELS = [
    ("TILES=6", "TILE=256"),
    ("TILES=7", "TILE=512", "TAIL=40", "BLOCKS=3"),
    ("TILES=6", "TILE=256", "RACE=1", "BLOCKS=2"),
]


@pytest.mark.slow
@pytest.mark.parametrize("defs", AB_KERNELS, ids=["-".join(d) for d in AB_KERNELS])
def test_tile_loop_rolled_equals_straight(work, monkeypatch, defs):
    r1, g1 = _run(monkeypatch, TILE_LOOP, defs, "1")
    r0, g0 = _run(monkeypatch, TILE_LOOP, defs, "0")
    assert r1["stats"][0]["rolled"] and not r0["stats"][0]["rolled"]
    assert g1 == g0
    assert _summary(r1) == _summary(r0)


def _vendor_params():
    import test_vendor_samples as V

    return [pytest.param(*p, id=f"{p[0]}-s{p[1]}") for p in V.PORTED]


@pytest.mark.slow
@pytest.mark.parametrize("op,n,flag,dtype,part", _vendor_params())
def test_vendor_sample_rolled_equals_straight(tmp_path, monkeypatch, op, n, flag, dtype, part):
    """Every ported vendor sample's C++: the same GM bytes, faults and findings rolled or not."""
    import test_vendor_samples as V

    import ops

    monkeypatch.setenv("ASCEND_JAX_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ASCEND_JAX_XLA_CACHE", "off")
    mod = ops.VENDOR_OPS[op]
    (d,) = V.gen_cases(mod.SAMPLE, flag, n, tmp_path / "cases", seeds=(0,))
    src = V.SAMPLES / mod.SAMPLE / f"{mod.SAMPLE}.asc"
    out = {}
    for mode in ("1", "0"):
        kw = dict(profile=mod.PROFILES[n], scenario=n, input_dir=d / "input", output_dir=tmp_path / mode)
        out[mode] = _run(monkeypatch, src, (), mode, **kw)
    (r1, g1), (r0, g0) = out["1"], out["0"]
    assert g1 == g0
    assert _summary(r1) == _summary(r0)
    for name in os.listdir(tmp_path / "0"):
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "0" / name).read_bytes()


@pytest.mark.parametrize("kind", ["gm2ub", "ub2gm"])
def test_gm_traced_copy_equals_the_traced_path(kind, monkeypatch):
    """DataCopy with only the GM address traced (what a rolled loop passes) moves one dynamic
    slice of GM rows; its UB, GM and fault bits equal the all-traced block gather's, for in-range,
    misaligned, negative and past-the-end addresses, count and DataCopyParams forms."""
    import jax
    import jax.numpy as jnp

    import ascend_jax as aj
    from ascend_jax.api import data_copy as DC

    taken = []
    orig = DC._gm_traced_copy

    def spy(*args):
        r = orig(*args)
        taken.append(r is not None)
        return r

    monkeypatch.setattr(DC, "_gm_traced_copy", spy)
    p = aj.load_profile("ascend910b")
    gm_bytes, ub_bytes = 1024, 4096
    addrs = np.array([0, 64, 2, 992, 1000, -32, 4, 256, 768, 896], np.int32)
    rng = np.random.default_rng(1)
    ub0 = rng.integers(0, 256, (addrs.size, ub_bytes), dtype=np.uint8)
    gm0 = rng.integers(0, 256, (addrs.size, gm_bytes), dtype=np.uint8)

    for form in (16, (3, 1, 1, 2)):

        def run(ub, gm, a, traced_count, form=form):
            st = aj.reset_state(p, ub=ub)
            g = aj.GlobalTensor(aj.float32, 0, a, 8)
            u = aj.LocalTensor(aj.float32, 128, 8)
            dst, src = (u, g) if kind == "gm2ub" else (g, u)
            vals = [form] if isinstance(form, int) else list(form)
            if traced_count:  # the general traced path (every value traced)
                vals = [jnp.int32(v) + 0 * a for v in vals]
            arg = vals[0] if isinstance(form, int) else aj.DataCopyParams(*vals)
            st, out = aj.DataCopy(st, (gm,), dst, src, arg, profile=p, max_blocks=32)
            return st.ub, out[0], st.fault

        taken.clear()
        semi = jax.jit(jax.vmap(lambda u, g, a: run(u, g, a, False)))(ub0, gm0, addrs)
        assert taken == [True]
        taken.clear()
        full = jax.jit(jax.vmap(lambda u, g, a: run(u, g, a, True)))(ub0, gm0, addrs)
        for x, y in zip(semi, full, strict=True):
            assert np.array_equal(np.asarray(x), np.asarray(y)), form
        assert np.asarray(semi[2]).any() and not np.asarray(semi[2]).all()


def test_blocks_that_differ_in_a_scalar_are_not_one_core_program():
    """The blocks' keys come from one table: blocks whose records differ (here Adds' scalar, as
    with GetSubBlockIdx) are not taken for SPMD cores; equal ones get equal keys."""

    def events(b, scalar):
        t = {"t": "L", "dt": "float", "h": 1, "addr": 0, "len": 64}
        return [(0, {"b": b, "op": "call", "api": "Adds", "args": [t, t, scalar, 64], "tmpl": [], "line": 3})]

    shared = {}
    b0, b1, b2 = (rolled._Block(events(b, s), shared) for b, s in ((0, 1.0), (1, 101.0), (2, 1.0)))
    assert b0.keys.tolist() != b1.keys.tolist()
    assert b0.keys.tolist() == b2.keys.tolist()
