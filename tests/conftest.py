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


# `make test` runs -m "not slow": set in pytest_configure (before any test module is imported)
_DEFAULT_RUN = [False]


def nightly_params(make, nargs):
    """The parameters of a test marked slow whose list is costly to build (``make()`` traces every
    profile's element functions: ~20 s of collection in each xdist worker). A run that deselects
    slow tests (`make test`) gets one placeholder instead, deselected with the rest."""
    if _DEFAULT_RUN[0]:
        return [pytest.param(*([None] * nargs), id="nightly-only", marks=pytest.mark.slow)]
    return make()


def pytest_configure(config):
    _DEFAULT_RUN[0] = (config.getoption("markexpr") or "").strip() == "not slow"
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


# Tests that run only in the nightly (`make test-nightly`), to keep `make test` under 15 minutes cold
# on the 2-core CI machine (session 16: 1,100 s of pytest after wave 3). Each is compile-heavy and has
# siblings in the default run covering the same rule (another dtype, profile, call form or mode of
# the same differential test; the other error cases of the C++ front end). fnmatch patterns on the
# node id below tests/ (``[[]`` is a literal ``[``).
NIGHTLY_ONLY = (
    # SyncAll from C++ at 8 and 48 blocks: straight-line compiles of ~300 / ~1,000 calls (the
    # default run keeps 2 blocks, and the Python kernel at 2, 8 and 48 cores)
    "test_cxx_syncall.py::test_sync_all_many_blocks_exact*",
    "test_bench_baseline.py::test_baseline_equals_model_on_the_mix",
    "test_elementwise_differential.py::test_static_equals_traced[[]binary]",
    "test_notebooks.py::test_notebook_executes_without_errors[[]03_differential_testing.ipynb]",
    "test_notebooks.py::test_notebook_executes_without_errors[[]04_product_differences.ipynb]",
    "test_data_copy.py::test_static_datacopypad_matches_reference[[]False-float32-None]",
    "test_data_copy.py::test_static_datacopypad_matches_reference[[]True-int32-False]",
    "test_data_copy.py::test_static_datacopy_matches_reference[[]ub2gm]",
    "test_gather_shift_differential.py::test_gathermask_differential_default_profile[[]counter]",
    "test_gather_shift_differential.py::test_shift_differential_other_profiles[[]ascend950]",
    "test_cxx_front_end.py::test_trace_too_long_stops_at_the_call_budget",
    "test_cxx_front_end.py::test_host_program_crashes",
    "test_cxx_front_end.py::test_host_program_never_launches",
    "test_cxx_front_end.py::test_cases_dir_reads_each_folders_files",
    "test_castcomp.py::test_differential_default[[]AddDeqRelu-int32-half]",
    "test_castcomp.py::test_reduce_registers_match_the_reference[[]ReduceSum-half-SUM]",
    "test_dequant.py::test_differential_other_products",
    "test_bad_input_kernel.py::test_property_count",
    "test_any_form.py::test_select_any_form_equals_each_static_form[[]1]",
    "test_any_form.py::test_select_any_form_equals_each_static_form[[]2]",
    "test_compare_select_differential.py::test_differential_other_profiles[[]ascend310*]",
    "test_compare_select_differential.py::test_differential_other_profiles[[]kirin9030]",
    "test_unary_scalar_differential.py::test_differential_other_profiles[[]ascend310b-*]",
    "test_unary_scalar_differential.py::test_differential_other_profiles[[]ascend310p-float32]",
    "test_unary_scalar_differential.py::test_differential_other_profiles[[]kirin9030-int32]",
    "test_unary_scalar_differential.py::test_differential_other_profiles[[]ascend910-*]",
    "test_ops.py::test_op_matches_golden[[]*-ascend310p-*]",
    "test_ops.py::test_op_matches_golden[[]*-kirin*]",
    "test_ops.py::test_op_matches_golden[[]*-ascend95*]",
    "test_ops.py::test_op_matches_golden[[]*-ascend910-*]",
    "test_ops.py::test_op_matches_golden[[]*-ascend310b-*]",
    "test_ops.py::test_compact_kernel_equals_pure_calls",
    "test_elementwise_differential.py::test_public_api_vmapped_with_traced_parameters",
    "test_hypothesis_families.py::test_gather_shift_hypothesis",
    "test_unary_scalar_differential.py::test_differential_other_profiles[[]ascend950-complex32]",
    "test_unary_scalar_differential.py::test_differential_other_profiles[[]ascend950-uint64]",
    "test_gather_shift_differential.py::test_gathermask_differential_other_profiles[[]ascend950]",
    "test_cxx_front_end.py::test_missing_input",
    "test_fuzz_data_copy.py::test_campaign_910b_no_mismatch",
    "test_fuzz_data_copy.py::test_campaign_other_profiles[[]ascend3*]",
    "test_fuzz_data_copy.py::test_campaign_other_profiles[[]ascend910*]",
    "test_fuzz_data_copy.py::test_campaign_other_profiles[[]kirin*]",
    "test_vendor_samples.py::test_vendor_golden[[]vendor_*-s[234]]",
    "test_vendor_samples.py::test_vendor_golden[[]vendor_reduce_computation-s6]",
    "test_unary_scalar_differential.py::test_differential_other_profiles[[]ascend950-*int8]",
    "test_unary_scalar_differential.py::test_differential_other_profiles[[]ascend950-half]",
    "test_unary_scalar_differential.py::test_differential_other_profiles[[]ascend950-int32]",
    "test_fuzz_data_copy.py::test_campaign_other_profiles[[]ascend950]",
    "test_unary_scalar_differential.py::test_differential_other_profiles[[]kirin9030-int16]",
    "test_unary_scalar_differential.py::test_differential_other_profiles[[]ascend950-float32]",
    # session 19 (trim): int16 runs on the default profile; the 950's own types (bfloat16, int64,
    # complex64) stay in the default run
    "test_unary_scalar_differential.py::test_differential_other_profiles[[]ascend950-int16]",
    # session 21 (CI took 1,041 s): one integer and one float type per ops/ kernel, two call forms
    # of the Select / ShiftRight kernels, the compare kernel in LT (and EQ on int32); the rest of
    # each kernel's parameters nightly
    "test_ops.py::test_op_matches_golden[[]muls_sample-ascend910b-float32]",
    "test_ops.py::test_op_matches_golden[[]muls_sample-ascend910b-int32]",
    "test_ops.py::test_op_matches_golden[[]clamp-ascend910b-float32]",
    "test_ops.py::test_op_matches_golden[[]clamp-ascend910b-int16]",
    "test_ops.py::test_op_matches_golden[[]compare_scalar_sample-ascend910b-EQ-float32]",
    "test_ops.py::test_op_matches_golden[[]compare_scalar_sample-ascend910b-NE-float32]",
    "test_ops.py::test_op_matches_golden[[]compare_scalar_sample-ascend910b-GT-float32]",
    "test_ops.py::test_op_matches_golden[[]compare_scalar_sample-ascend910b-GE-float32]",
    "test_ops.py::test_op_matches_golden[[]compare_scalar_sample-ascend910b-LE-float32]",
    "test_ops.py::test_op_matches_golden[[]select_sample-ascend910b-0-highdim-float32]",
    "test_ops.py::test_op_matches_golden[[]select_sample-ascend910b-1-*]",
    "test_ops.py::test_op_matches_golden[[]select_sample-ascend910b-2-count-float32]",
    "test_ops.py::test_op_matches_golden[[]shift_right_sample-ascend910b-int16-highdim-True]",
    "test_ops.py::test_op_matches_golden[[]shift_right_sample-ascend910b-uint*]",
    "test_ops.py::test_op_matches_golden[[]gather_mask_user-ascend910b-True-uint32]",
    "test_ops.py::test_op_matches_golden[[]gather_mask_builtin-ascend910b-False-uint16]",
    # sweeps: tests/test_sweep.py and test_jit_vmap.py; the quickstart and races notebooks run
    "test_notebooks.py::test_notebook_executes_without_errors[[]02_parameter_sweeps.ipynb]",
    # the group's plan / run: unary, binary_scalar and fill stay (binary: test_any_form's Add)
    "test_plan_run.py::test_element_wise_group_run_of_plan_equals_direct_call[[]binary]",
    # int4b: 910b and 310p both directions, 950 with half; 950's int16 / bfloat16 pairs and the
    # 910_93 twin nightly
    "test_int4b.py::test_call_level_random_cases[[]ascend950-int16-int4b]",
    "test_int4b.py::test_call_level_random_cases[[]ascend950-int4b-bfloat16]",
    "test_int4b.py::test_call_level_random_cases[[]ascend950-int4b-int16]",
    "test_int4b.py::test_call_level_random_cases[[]ascend910_93-*]",
    # batch independence: test_case_regenerated_alone_equals_case_of_the_run (a case alone in a
    # padded chunk of 16 gives the run's digest) stays; the second campaign at batch 48 nightly
    "test_fuzz.py::test_same_seed_same_results_whatever_the_batch",
    "test_fuzz_batched.py::test_batch_fields_equal_the_per_case_fields[[]ascend910b]",
    "test_fuzz_data_copy.py::test_layout_forms_fuzzed[[]ascend910_93]",
    # mixed precision: test_compound_mixed.py's differential and test_compound_small_campaign stay
    "test_fuzz_families_new.py::test_compound_mixed_precision_campaign",
    # hypothesis-driven family draws: both nightly (the differential tests draw the same cases)
    "test_hypothesis_families.py::test_compare_select_hypothesis",
    # page examples: 910b and 950 (the reference file runs every profile)
    "test_compare_select_fast.py::test_seed_compares_lt[[]ascend310*]",
    # the same C++ sample run again: test_add_tpipe_tque_own_verify_script runs it (another seed)
    # and checks it with the sample's own verify_result.py
    "test_cxx_vendor_samples.py::test_vendor_sample_from_cxx[[]vendor_add_tpipe_tque-s1]",
    # the same kernel's mutants: test_sync_ports.py's [vendor_add_tpipe_tque-s1] drops each flag,
    # barrier and queue pair of it in turn as well
    "test_sync_mutations.py::test_every_unsafe_mutant_is_reported[[]vendor_add_tpipe_tque]",
    # the quick build against XLA's default build (O3: the slow compile is the test): the soft-float
    # lanes stay, the integer Select program nightly (the quick codegen of every test program is
    # checked against the reference by the differential tests)
    "test_compile_modes.py::test_select_quick_build_gives_the_default_builds_bits",
    # the A3 twin of 910b (test_profiles.py checks the twins' bits are the same)
    "test_data_copy_layout.py::test_layout_matches_reference[[]*-ascend910_93]",
    # Shift on 310b: the default profile's differential and 310b's page examples stay (the 950's
    # Shift rules: test_gather_shift_fast.py's saturating tests)
    "test_gather_shift_differential.py::test_shift_differential_other_profiles[[]ascend310b]",
)


def _nightly_only(nodeid):
    import fnmatch

    nodeid = nodeid.split("tests/", 1)[-1]
    return any(fnmatch.fnmatchcase(nodeid, p) for p in NIGHTLY_ONLY)


def pytest_collection_modifyitems(config, items):
    def rank(item):
        nodeid = item.nodeid.split("tests/", 1)[-1]
        for k, key in enumerate(_HEAVY_FIRST):
            if nodeid == key or ("::" not in key and nodeid.startswith(key + "::")):
                return k
        return len(_HEAVY_FIRST)

    for it in items:
        if _nightly_only(it.nodeid):
            it.add_marker(pytest.mark.slow)
    order = {id(it): i for i, it in enumerate(items)}
    items.sort(key=lambda it: (rank(it), order[id(it)]))
