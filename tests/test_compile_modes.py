"""A program built for compile time (``ascend_jax._compile``: what a fuzz campaign uses for a
signature with few cases) gives the bits of the same program built with XLA's default codegen, and
both give the reference's. The suite's own XLA flags (conftest.py) are overridden per program here,
so the default build really is XLA's default."""

import jax
import numpy as np
import pytest

from ascend_jax import _compile
from ascend_jax.fuzz import runner
from ascend_jax.fuzz.families import compare_select as C
from ascend_jax.fuzz.families import family_of
from ascend_jax.fuzz.families.unary_scalar import UnaryScalarFamily
from ascend_jax.profile import load_profile

P = load_profile("ascend910b")
# XLA's CPU defaults, spelled out: the conftest's XLA_FLAGS would otherwise apply to both builds
DEFAULT_BUILD = {"xla_backend_optimization_level": 3, "xla_cpu_use_fusion_emitters": True}


def _select_cases():
    cases = C.random_cases(P, 40, seed=11, all_forms=True, apis=("Select",), dtypes_per_api=1)
    cases = [c for c in cases if c.mode == 2 and c.form != "nomask" and not c.big]  # one signature
    return cases[:64]


def _unary_cases():
    fam = UnaryScalarFamily(buckets=(4,))
    rng = np.random.default_rng(5)
    cases = [fam.generate(rng, P, ("Muls", "float32"), 0.1) for _ in range(300)]
    return fam, cases


def _both_builds(fam, cases):
    """(default-build results, quick-build results) of one signature's cases, each one program."""
    state = runner.core_state([runner.fields_of(fam, c, P) for c in cases])
    dyn = fam.stack_dyn(cases, P)
    out = []
    for opts in (DEFAULT_BUILD, _compile.QUICK_OPTIONS):
        res = jax.jit(fam.fast_fn(cases[0], P), compiler_options=opts)(state, dyn)
        out.append(jax.tree_util.tree_map(np.asarray, res))
    return out


def _assert_same_and_right(fam, cases, full, quick):
    for a, b in zip(jax.tree_util.tree_leaves(full), jax.tree_util.tree_leaves(quick), strict=True):
        assert a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))
    st, ret = quick
    bad = 0
    for i, c in enumerate(cases):
        one = (jax.tree_util.tree_map(lambda x, i=i: x[i], st), None if ret is None else ret[i])
        bad += fam.compare(one, fam.run_reference(c, P)) is not None
    assert bad == 0


def test_select_quick_build_gives_the_default_builds_bits():
    cases = _select_cases()
    fam = family_of(cases[0])
    sig = {fam.signature(c, P) for c in cases}
    assert len(sig) == 1 and len(cases) >= 20
    full, quick = _both_builds(fam, cases)
    _assert_same_and_right(fam, cases, full, quick)


def test_soft_float_quick_build_gives_the_default_builds_bits():
    # Muls float32 over random specials and subnormals: the soft-float lanes, in a family that jits
    # its own vmapped program (the engine entry nested inside traces its plain build)
    fam, cases = _unary_cases()
    by_sig = {}
    for c in cases:
        by_sig.setdefault(fam.signature(c, P), []).append(c)
    sig, group = max(by_sig.items(), key=lambda kv: len(kv[1]))
    full, quick = _both_builds(fam, group)
    _assert_same_and_right(fam, group, full, quick)


def test_runner_builds_few_case_signatures_quick(monkeypatch):
    cases = _select_cases()[:8]
    fam = family_of(cases[0])
    modes = []
    real = _compile.quick_compile

    def spy(on=True):
        modes.append(on)
        return real(on)

    monkeypatch.setattr(runner._compile, "quick_compile", spy)
    res = fam.run_fast(cases, P)  # 8 cases of one signature: the quick build
    assert modes == [True]
    assert [fam.compare(r, fam.run_reference(c, P)) for c, r in zip(cases, res, strict=True)] == [None] * 8
    many = [("a", list(range(_compile.QUICK_MAX_CASES))), ("a", [0]), ("b", [1, 2])]
    assert runner.quick_by_signature(many) == {"a": False, "b": True}


def test_quick_compile_is_only_for_top_level_programs():
    @_compile.jit
    def inner(x):
        return x * 3

    @_compile.jit
    def outer(x):
        return inner(x) + 1

    with _compile.quick_compile():
        assert int(outer(np.int32(2))) == 7  # inner traced inside outer: its plain build, no error
        assert int(inner(np.int32(2))) == 6
    assert outer.quick._cache_size() == 1 and inner.quick._cache_size() == 1
    assert outer.full._cache_size() == 0


@pytest.mark.parametrize("n,quick", [(1, True), (_compile.QUICK_MAX_CASES, True), (10**5, False)])
def test_quick_for(n, quick):
    assert _compile.quick_for(n) is quick


def test_quick_options_are_cpu_only():
    """The quick build's codegen options name XLA:CPU: another platform builds with its defaults
    (issue 36: GPU-clean)."""
    from ascend_jax import _compile

    assert _compile.quick_options("cpu") == _compile.QUICK_OPTIONS
    for platform in ("gpu", "cuda", "rocm", "tpu"):
        assert _compile.quick_options(platform) == {}
