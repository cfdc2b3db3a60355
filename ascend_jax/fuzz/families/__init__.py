"""Family adapters of the differential engine: one per API family, each wrapping that family's
case generator (``ascend_jax.testing``), fast call, reference call, case <-> JSON, shrink
candidates and coverage labels. ``FAMILIES`` lists them; ``NOT_FUZZED`` names the registered APIs
no adapter covers, each with the reason."""

from .compare_select import CompareSelectFamily
from .data_copy import DataCopyFamily
from .gather_shift import GatherFamily, ShiftFamily
from .registers import RegisterFamily
from .unary_scalar import UnaryScalarFamily

FAMILIES = (
    UnaryScalarFamily(),
    CompareSelectFamily(),
    ShiftFamily(),
    GatherFamily(),
    RegisterFamily(),
    DataCopyFamily(),
)

# Registered APIs without an adapter (the test suite asserts this is exactly the set left over).
_EW_REASON = (
    "element-wise family (issue 15): no fuzz adapter yet; covered by tests/test_elementwise_differential.py "
    "(fast path vs reference on random cases of every call form, vmapped)"
)
NOT_FUZZED = {
    api: _EW_REASON
    for api in (
        "Add",
        "Sub",
        "Mul",
        "Div",
        "Max",
        "Min",
        "And",
        "Or",
        "Abs",
        "Relu",
        "Neg",
        "Not",
        "Exp",
        "Ln",
        "Sqrt",
        "Rsqrt",
        "Reciprocal",
        "LeakyRelu",
        "Duplicate",
        "CreateVecIndex",
        "Subs",
        "Divs",
        "Ands",
        "Ors",
        "AddsFlexible",
        "MulsFlexible",
        "MaxsFlexible",
        "MinsFlexible",
    )
}


def family_of(case_or_name):
    """The adapter of a case (by type) or of a family name."""
    for f in FAMILIES:
        if (isinstance(case_or_name, str) and f.name == case_or_name) or (
            not isinstance(case_or_name, str) and isinstance(case_or_name, f.case_type)
        ):
            return f
    raise KeyError(case_or_name)


def family_of_api(api):
    for f in FAMILIES:
        if api in f.apis:
            return f
    return None
