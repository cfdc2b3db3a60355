import os
import pathlib

# The suite's cost is XLA compilation of many small programs (one per signature), not their run
# time. Two codegen settings compile faster: LLVM's optimisation level 0 (~40 % faster, measured on
# the shift differential's programs) and XLA's CPU loop emitters in place of its newer fusion
# emitters (a further ~40 %: one Select program 0.97 -> 0.55 s; the compare/select and gather/shift
# differential files 171-177 -> 140 s wall). Codegen only -- XLA's HLO passes and float semantics (no
# fast math) are unchanged, and every differential test checks the bits against the NumPy reference.
# Benchmarks, the CLI and users keep XLA's defaults; ASCEND_JAX_TEST_XLA_OPT=default keeps them in
# tests too.
_QUICK_CODEGEN = ("--xla_backend_optimization_level=0", "--xla_cpu_use_fusion_emitters=false")
if os.environ.get("ASCEND_JAX_TEST_XLA_OPT", "0") != "default":
    _flags = os.environ.get("XLA_FLAGS", "")
    for _flag in _QUICK_CODEGEN:
        if _flag.split("=")[0] not in _flags:
            _flags = (_flags + " " + _flag).strip()
    os.environ["XLA_FLAGS"] = _flags

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

# Hypothesis profiles: "ci" (default, derandomized so CI is reproducible), "dev", "nightly" (20x).
_common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("ci", derandomize=True, print_blob=True, **_common)
settings.register_profile("dev", **_common)
settings.register_profile("nightly", **_common)
settings.load_profile(os.environ.get("ASCEND_JAX_HYPOTHESIS", "ci"))

# how many random cases each differential test runs per (API, dtype); nightly: 20x
SCALE = 20 if os.environ.get("ASCEND_JAX_HYPOTHESIS") == "nightly" else 1

SHARED = pathlib.Path(__file__).resolve().parents[2] / "shared"
# the suite's persistent XLA cache, locked (see pytest_configure); a directory of its own: JAX's LRU
# eviction needs the access-time file it writes beside every entry
CACHE_DIR = pathlib.Path(__file__).resolve().parents[1] / ".jax_cache" / "lru"
CACHE_MAX_BYTES = 8 << 30


def twins_nightly(names):
    """Profile parameters for a per-profile campaign: a profile that behaves exactly as the default
    or an earlier profile (``ascend_jax.profile.behaviour_twins``: equal ``behaviour_key``, e.g. A3
    as A2) runs under ``slow`` (nightly), since its default-run campaign would check the same model
    a second time; tests/test_profiles.py checks the twins' results are identical."""
    from ascend_jax.profile import behaviour_twins

    twins = behaviour_twins()
    return [pytest.param(n, marks=pytest.mark.slow) if n in twins else n for n in names]


def is_twin(name):
    from ascend_jax.profile import behaviour_twins

    return name in behaviour_twins()


@pytest.fixture
def shared_dir():
    if not SHARED.is_dir():
        pytest.skip("../shared (spec and seed cases) is not next to the checkout")
    return SHARED


def pytest_configure(config):
    # Share compiled XLA programs between the xdist workers of one run (and later runs): the
    # suite's cost is dominated by compilation on CPU. Only the test configuration sets jax config.
    import jax

    jax.config.update("jax_compilation_cache_dir", str(CACHE_DIR))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    # A size limit turns on JAX's file lock around every cache read and write. Without it an entry is
    # written in place, and a worker (or a notebook kernel) reading it half-written deserialises a
    # truncated executable: a segmentation fault (seen once, two threads in get_executable_and_time).
    jax.config.update("jax_compilation_cache_max_size", CACHE_MAX_BYTES)


# ASCEND_JAX_CPU_LOG=FILE: append "process CPU seconds<TAB>wall seconds<TAB>test id" per test phase
# (the worker's user + system time, XLA's threads included): a load-insensitive cost table for
# keeping `make test` within its budget (tools/cpu_table.py sums it per file).
_CPU_LOG = os.environ.get("ASCEND_JAX_CPU_LOG")
if _CPU_LOG:
    import time

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        t0, w0 = os.times(), time.monotonic()
        yield
        t1 = os.times()
        cpu = (t1.user - t0.user) + (t1.system - t0.system)
        with open(_CPU_LOG, "a") as f:
            f.write(f"{cpu:.2f}\t{time.monotonic() - w0:.2f}\t{item.nodeid}\n")


# The costliest files first (CPU seconds measured with ASCEND_JAX_CPU_LOG, tools/cpu_table.py), so that
# the two xdist workers (`--dist worksteal`) do not end on one long test while the other idles.
_HEAVY_FIRST = (
    "test_compare_select_differential.py::test_differential_other_profiles[ascend950]",
    "test_gather_shift_differential.py::test_gathermask_differential_default_profile[counter]",
    "test_compare_select_differential.py",
    "test_gather_shift_differential.py",
    "test_notebooks.py",
    "test_unary_scalar_differential.py",
    "test_fuzz_data_copy.py",
    "test_ops.py",
)


def pytest_collection_modifyitems(config, items):
    def rank(item):
        nodeid = item.nodeid.split("tests/", 1)[-1]
        for k, key in enumerate(_HEAVY_FIRST):
            if nodeid == key or ("::" not in key and nodeid.startswith(key + "::")):
                return k
        return len(_HEAVY_FIRST)

    order = {id(it): i for i, it in enumerate(items)}
    items.sort(key=lambda it: (rank(it), order[id(it)]))
