"""The API families of the differential engine. Each module owns its family: case type, random
generator, calls (the public API vmapped over traced arguments, and the reference), batching
(``stack_dyn``), and its adapter (a ``Family``: case <-> JSON, shrink candidates, coverage labels;
the base class runs and compares). What several families share is written once: the adapter base
classes of ``family.py`` and the helpers of ``base.py`` (case types with ``case_dataclass`` and its
field blocks, labels, shrinks, operands, call text, misuse). ``FAMILIES`` lists the adapters;
``NOT_FUZZED`` names the registered APIs no adapter covers, each with the reason. ``run_all`` /
``compare`` run cases of any families through the engine's runner and comparator."""

from .bilinear import BilinearFamily  # helper bilinear (issue 16)
from .brcb import BrcbFamily
from .cast import CastFamily
from .castcomp import CastCompFamily
from .compare_select import CompareSelectFamily
from .compound import CompoundFamily
from .data_copy import DataCopyFamily
from .dequant import DequantFamily
from .elementwise import ElementwiseFamily
from .family import Family
from .gather_scatter import GatherScatterFamily
from .gather_shift import GatherFamily, ShiftFamily
from .layout import LayoutFamily
from .mull import MullFamily
from .padding import VectorPaddingFamily
from .reduce import ReduceFamily
from .registers import RegisterFamily
from .sort import SortFamily
from .unary_scalar import UnaryScalarFamily

FAMILIES = (
    UnaryScalarFamily(),
    CompareSelectFamily(),
    ShiftFamily(),
    GatherFamily(),
    RegisterFamily(),
    DataCopyFamily(),
    ElementwiseFamily(),
    ReduceFamily(),
    CompoundFamily(),
    CastFamily(),
    BilinearFamily(),
    VectorPaddingFamily(),
    GatherScatterFamily(),
    SortFamily(),
    LayoutFamily(),
    BrcbFamily(),
    MullFamily(),
    DequantFamily(),
    CastCompFamily(),
)

# Registered APIs without an adapter (the test suite asserts this is exactly the set left over).
NOT_FUZZED = {
    "SetPadValue": "a register write, drawn by the data_copy family as CopyCase.reg_bits (SetPadValue "
    "before a DataCopyPad GM -> UB; its effect is the padding bytes)",
    "NdDmaDci": "the NDDMA cache refresh: the model has no NDDMA cache, the call changes nothing "
    "(tests/test_data_copy_layout.py calls it before every NDDMA copy)",
    "SetLoopModePara": "a static register write (the loop-mode registers are part of the state's structure); "
    "tests/test_data_copy_loop_mode.py runs DataCopy / DataCopyPad under it against the reference",
    "ResetLoopModePara": "a static register reset (see SetLoopModePara)",
    **{
        a: "an advanced math API (count form only, a sequence of modelled basic operations): "
        "tests/test_adv_math.py runs random cases of it against the reference (no fuzz adapter yet)"
        for a in ("Sigmoid", "Tanh", "Log", "Log2", "Log10", "FasterGeluV2")
    },
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


compare = Family.compare


def run_all(cases, profile, batch=None, workers=None):
    """(fast results, reference results), (state, returned value or None) pairs, for cases of any
    families: each family's cases go through ``Family.run_all`` of its adapter."""
    fast, refs = [None] * len(cases), [None] * len(cases)
    groups = {}
    for i, c in enumerate(cases):
        groups.setdefault(family_of(c), []).append(i)
    for fam, idx in groups.items():
        f, r = fam.run_all([cases[i] for i in idx], profile, batch=batch, workers=workers)
        for k, i in enumerate(idx):
            fast[i], refs[i] = f[k], r[k]
    return fast, refs
