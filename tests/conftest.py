import os
import pathlib

# The suite's cost is XLA compilation of many small programs (one per signature), not their run
# time: LLVM's optimisation level 0 compiles ~40 % faster (measured on the shift differential's
# programs). Codegen only -- XLA's HLO passes and float semantics (no fast math) are unchanged, and
# every differential test checks the bits against the NumPy reference. Benchmarks, the CLI and users
# keep XLA's defaults; ASCEND_JAX_TEST_XLA_OPT=default keeps them in tests too.
if os.environ.get("ASCEND_JAX_TEST_XLA_OPT", "0") != "default":
    _flags = os.environ.get("XLA_FLAGS", "")
    if "xla_backend_optimization_level" not in _flags:
        os.environ["XLA_FLAGS"] = (_flags + " --xla_backend_optimization_level=0").strip()

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


@pytest.fixture
def shared_dir():
    if not SHARED.is_dir():
        pytest.skip("../shared (spec and seed cases) is not next to the checkout")
    return SHARED


def pytest_configure(config):
    # Share compiled XLA programs between the xdist workers of one run (and later runs): the
    # suite's cost is dominated by compilation on CPU. Only the test configuration sets jax config.
    import jax

    cache = pathlib.Path(__file__).resolve().parents[1] / ".jax_cache"
    jax.config.update("jax_compilation_cache_dir", str(cache))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
