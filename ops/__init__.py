"""Whole kernels (Ascend C operators) written with the public ascend_jax API only.

Each op is a module with the C++ sample's kernel class ported line by line (Init / CopyIn /
Compute / CopyOut over TPipe, TQue, TBuf and DataCopy), a ``kernel(**config)`` that binds the
compile-time configuration (give it to ``aj.jit_kernel`` or ``aj.run_kernel``), ``requirements``
(the APIs, dtypes and modes it needs), ``gen_data`` (random inputs with special values) and a NumPy
``golden`` written from the doc semantics. See ops/README.md for the table. ``VENDOR_OPS``: the
vendor samples, each a ``scenario(n)`` returning a kernel with declared GM arguments (``aj.GmArg``)
that ``ascend-jax run`` executes on the vendor's .bin files.

    import ascend_jax as aj
    from ops import select_sample
    run = aj.jit_kernel(select_sample.kernel(selMode=1), profile="ascend910b")
    res = run(src0, src1, sel, dst, scalar=scalars, count=counts)   # batch leading
"""

from . import (
    clamp,
    compact_above_threshold,
    compare_scalar_sample,
    gather_mask_builtin,
    gather_mask_user,
    muls_sample,
    relu,
    select_sample,
    shift_right_sample,
    vendor_add,
    vendor_add_tpipe_tque,
    vendor_brcb,
    vendor_cast,
    vendor_compare,
    vendor_create_vec_index,
    vendor_duplicate,
    vendor_element_wise_arithmetic,
    vendor_element_wise_compound_compute,
    vendor_element_wise_logic,
    vendor_gather,
    vendor_interleave_pair,
    vendor_mrg_sort,
    vendor_reduce,
    vendor_reduce_computation,
    vendor_reduce_data_block,
    vendor_reduce_pair_elem,
    vendor_reduce_repeat,
    vendor_region_proposal_sort,
    vendor_select,
    vendor_transpose,
)

OPS = {
    "select_sample": select_sample,
    "compare_scalar_sample": compare_scalar_sample,
    "gather_mask_user": gather_mask_user,
    "gather_mask_builtin": gather_mask_builtin,
    "shift_right_sample": shift_right_sample,
    "muls_sample": muls_sample,
    "relu": relu,
    "clamp": clamp,
    "compact_above_threshold": compact_above_threshold,
}

# The vendor samples (../shared/spec/vendor-samples/<name>/), one kernel per SCENARIO_NUM with its GM
# arguments declared: `ascend-jax run vendor_select --scenario 2` (ops/README.md, "Vendor samples").
VENDOR_OPS = {
    "vendor_select": vendor_select,
    "vendor_compare": vendor_compare,
    "vendor_gather": vendor_gather,
    "vendor_element_wise_logic": vendor_element_wise_logic,
    "vendor_duplicate": vendor_duplicate,
    "vendor_element_wise_arithmetic": vendor_element_wise_arithmetic,
    "vendor_create_vec_index": vendor_create_vec_index,
    "vendor_add": vendor_add,
    "vendor_add_tpipe_tque": vendor_add_tpipe_tque,
    "vendor_reduce_pair_elem": vendor_reduce_pair_elem,
    "vendor_reduce_data_block": vendor_reduce_data_block,
    "vendor_reduce_repeat": vendor_reduce_repeat,
    "vendor_reduce_computation": vendor_reduce_computation,
    "vendor_reduce": vendor_reduce,
    "vendor_cast": vendor_cast,
    "vendor_brcb": vendor_brcb,
    "vendor_element_wise_compound_compute": vendor_element_wise_compound_compute,
    "vendor_mrg_sort": vendor_mrg_sort,
    "vendor_region_proposal_sort": vendor_region_proposal_sort,
    "vendor_transpose": vendor_transpose,
    "vendor_interleave_pair": vendor_interleave_pair,
}


def unsupported_reason(profile, requirements):
    """``None`` if ``profile`` (an ``aj.HwProfile``) has everything in ``requirements`` (a list of
    ``(api, dtype, extra)`` from an op's ``requirements()``), else a sentence naming the profile and
    the missing API / dtype / mode. Reads only named profile fields."""
    for api, dtype, extra in requirements:
        a = profile.api(api)
        if not a.supported:
            return f"{profile.name}: no {api}"
        if dtype not in a.dtypes:
            return f"{profile.name}: {api} has no {dtype} (apis.{api}.dtypes = {list(a.dtypes)})"
        if "modes" in extra and extra["modes"] not in a.modes:
            return f"{profile.name}: {api} has no mode {extra['modes']} (apis.{api}.modes = {list(a.modes)})"
        if "cmp_mode" in extra:
            m = extra["cmp_mode"]
            if m not in a.modes:
                return f"{profile.name}: {api} has no CMPMODE::{m}"
            i32 = a.int32_modes
            if dtype == "int32" and i32 is not None and m not in i32:
                return f"{profile.name}: {api} int32 supports only {'/'.join(i32)}, not CMPMODE::{m}"
        if extra.get("round_en") and not a.round_en:
            return f"{profile.name}: {api} has no roundEn (apis.{api}.round_en = false)"
        if "pattern_dtypes" in extra and extra["pattern_dtypes"] not in a.pattern_dtypes:
            return f"{profile.name}: {api} has no {extra['pattern_dtypes']} pattern tensor"
    return None
