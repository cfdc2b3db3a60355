"""排序组合（ISASI）: Sort32, MrgSort, GetMrgSortResult, MrgSort4, RpSort16, ProposalConcat,
ProposalExtract (docs/MODEL.md "Sorting and Region Proposals"; the engine is ``_engine/sort.py``).

Static misuse raises ``UsageError``; addresses, repeat counts, queue lengths and modeNumber may be
traced (one program per API, dtype and bucket: ``max_repeats`` / ``max_length`` set the bucket of a
traced repeat count / queue length).
"""

import jax.numpy as jnp
import numpy as np

from .._engine.sort import SortStatic, run_merge, run_proposal_move, run_rpsort16, run_sort32
from ..errors import UsageError
from ..profile import as_profile
from ..registry import ApiSpec, register
from ..sort_types import MAX_ELEMENT_LENGTH, VALID_BITS, MrgSort4Info, MrgSortSrcList
from . import _args as A

I32 = jnp.int32

_DOC = "memory-vector/排序组合（ISASI）/"


def _tensors(api, p, **ts):
    for name, t in ts.items():
        A.check_tensor(api, name, t, p)


def _repeat_bucket(value, max_repeats, hi):
    if A.is_static(value):
        return A.bucket(max(1, int(value))) if max_repeats is None else A.bucket(max_repeats)
    return A.bucket(max_repeats if max_repeats is not None else hi)


def _ext(**ts):
    return {k: jnp.asarray(t.nbytes, I32) for k, t in ts.items()}


def _repeat_arg(api, name, value, lo, p, max_repeats):
    hi = p.max_repeat_times
    A.static_int(api, name, value, lo, hi, p)
    return A.traced_range_bad(value, lo, hi), _repeat_bucket(value, max_repeats, hi)


# -- Sort32 --------------------------------------------------------------------------------------


def plan_sort32(state, dst, src0, src1, repeatTime, profile=None, max_repeats=None):
    api = "Sort32"
    p = as_profile(profile)
    _tensors(api, p, dst=dst, src0=src0, src1=src1)
    dt = dst.dtype
    p.require_api(api, dt)
    A.check_same_dtype(api, p, dst=dst, src0=src0)
    if src1.dtype.name != "uint32":
        raise UsageError(api, "src1.dtype", src1.dtype.name, "uint32", p)
    bad, R = _repeat_arg(api, "repeatTime", repeatTime, 0, p, max_repeats)
    dyn = {
        "dst": A.addr_of(dst),
        "src0": A.addr_of(src0),
        "src1": A.addr_of(src1),
        "repeat": jnp.asarray(repeatTime, I32),
        "bad_param": jnp.asarray(bad, bool),
        "ext": _ext(dst=dst, src0=src0, src1=src1),
    }
    return SortStatic(api=api, dtype=dt, R=R, profile=p), dyn


@register(ApiSpec("Sort32", "sort", ("Sort32(dst, src0, src1, repeatTime)",), _DOC + "Sort32.md"))
def Sort32(state, dst, src0, src1, repeatTime, profile=None, max_repeats=None):
    """Sort32 (Ascend C ``AscendC::Sort32``): repeat ``r`` sorts 32 scores (src0, half/float) with
    their uint32 indices (src1) in descending score order into 32 8-byte (score, index) records at
    ``dst + 256 r`` (score in the low bytes, index in bytes 4-7). Equal scores keep their input order;
    NaN per ``apis.Sort32.nan_order``. Returns the new CoreState.

    **Spec:** memory-vector/排序组合（ISASI）/Sort32.md. Profile keys: ``apis.Sort32``,
    ``behavior.zero_repeat``.
    """
    st, dyn = plan_sort32(state, dst, src0, src1, repeatTime, profile, max_repeats)
    return run_sort32(st, state, dyn)


# -- MrgSort / MrgSort4 ------------------------------------------------------------------------------


def plan_merge(api, state, dst, src, params, profile=None, max_repeats=None, max_length=None):
    p = as_profile(profile)
    A.check_tensor(api, "dst", dst, p)
    dt = dst.dtype
    p.require_api(api, dt)
    if not isinstance(src, MrgSortSrcList):
        raise UsageError(api, "src", type(src).__name__, "a MrgSortSrcList", p)
    if not isinstance(params, MrgSort4Info):
        raise UsageError(api, "params", type(params).__name__, "a MrgSort4Info", p)
    vb = params.validBit
    if isinstance(vb, bool) or not A.is_static(vb) or int(vb) not in VALID_BITS:
        raise UsageError(api, "params.validBit", vb, "3 | 7 | 15", p)
    nq = VALID_BITS[int(vb)]
    susp = params.ifExhaustedSuspension
    if not isinstance(susp, (bool, np.bool_)):
        raise UsageError(api, "params.ifExhaustedSuspension", susp, "a bool", p)
    el = list(params.elementLengths)
    if len(el) != 4:
        raise UsageError(api, "params.elementLengths", el, "4 lengths", p)
    bad = jnp.zeros((), bool)
    for q in range(4):
        A.static_int(api, f"params.elementLengths[{q}]", el[q], 0, MAX_ELEMENT_LENGTH, p)
        bad = bad | A.traced_range_bad(el[q], 0, MAX_ELEMENT_LENGTH)
    lo = 1 if api == "MrgSort4" else 0
    rbad, R = _repeat_arg(api, "params.repeatTimes", params.repeatTimes, lo, p, max_repeats)
    queues = src.queues()
    for q in range(nq):
        A.check_tensor(api, f"src{q + 1}", queues[q], p)
        A.check_same_dtype(api, p, dst=dst, **{f"src{q + 1}": queues[q]})
    if max_length is not None:
        L = A.bucket(max_length)
    elif all(A.is_static(x) for x in el[:nq]):
        L = A.bucket(max(1, max(int(x) for x in el[:nq])))
    else:
        L = A.bucket(MAX_ELEMENT_LENGTH)
    dyn = {
        "dst": A.addr_of(dst),
        "lengths": jnp.stack([jnp.asarray(x, I32) for x in el]),
        "repeat": jnp.asarray(params.repeatTimes, I32),
        "bad_param": jnp.asarray(bad | rbad, bool),
        "ext": _ext(dst=dst, **{f"src{q + 1}": queues[q] for q in range(nq)}),
    }
    for q in range(nq):
        dyn[f"src{q + 1}"] = A.addr_of(queues[q])
    st = SortStatic(api=api, dtype=dt, R=R, profile=p, L=L, nq=nq, suspension=bool(susp))
    return st, dyn


@register(
    ApiSpec(
        "MrgSort", "sort", ("MrgSort(dst, src: MrgSortSrcList, params: MrgSort4Info)",), _DOC + "MrgSort.md"
    )
)
def MrgSort(state, dst, src, params, profile=None, max_repeats=None, max_length=None):
    """MrgSort (Ascend C ``AscendC::MrgSort``): merges up to 4 sorted queues of 8-byte (score,
    index) records into one, descending by score (equal scores: the earlier record, the earlier
    queue first). ``src``: ``MrgSortSrcList``; ``params``: ``MrgSort4Info(elementLengths,
    ifExhaustedSuspension, validBit, repeatTimes)``. ``max_length``: the queue-length bucket of
    traced lengths. The records taken from each queue are kept for ``GetMrgSortResult``.

    **Spec:** memory-vector/排序组合（ISASI）/MrgSort.md. Profile keys: ``apis.MrgSort``,
    ``behavior.zero_repeat``.
    """
    st, dyn = plan_merge("MrgSort", state, dst, src, params, profile, max_repeats, max_length)
    return run_merge(st, state, dyn)


@register(
    ApiSpec(
        "MrgSort4",
        "sort",
        ("MrgSort4(dst, src: MrgSortSrcList, params: MrgSort4Info)",),
        _DOC + "MrgSort4.md",
    )
)
def MrgSort4(state, dst, src, params, profile=None, max_repeats=None, max_length=None):
    """MrgSort4 (Ascend C ``AscendC::MrgSort4``): MrgSort on Region Proposals (8 elements each,
    the score is element 4); queue lengths count proposals.

    **Spec:** memory-vector/排序组合（ISASI）/MrgSort4.md. Profile keys: ``apis.MrgSort4``.
    """
    st, dyn = plan_merge("MrgSort4", state, dst, src, params, profile, max_repeats, max_length)
    return run_merge(st, state, dyn)


@register(
    ApiSpec(
        "GetMrgSortResult",
        "sort",
        ("GetMrgSortResult(mrgSortList1, mrgSortList2, mrgSortList3, mrgSortList4)",),
        _DOC + "GetMrgSortResult.md",
    )
)
def GetMrgSortResult(state, profile=None):
    """The records the last MrgSort / MrgSort4 took from each of its 4 queues, as the tuple
    ``(mrgSortList1, mrgSortList2, mrgSortList3, mrgSortList4)`` (the C++ out-parameters): Python
    ints for a concrete unbatched state, else int32 arrays; zeros before any merge."""
    p = as_profile(profile)
    p.require_api("GetMrgSortResult")
    v = state.mrgsort_cnt
    if v is None:
        v = jnp.zeros(state.fault.shape + (4,), I32)
    if A.is_concrete_array(v) and v.ndim == 1:
        return tuple(int(x) for x in np.asarray(v))
    return tuple(v[..., q] for q in range(4))


# -- RpSort16 / ProposalConcat / ProposalExtract ------------------------------------------------------


def plan_rpsort16(state, dst, src, repeatTime, profile=None, max_repeats=None):
    api = "RpSort16"
    p = as_profile(profile)
    _tensors(api, p, dst=dst, src=src)
    dt = dst.dtype
    p.require_api(api, dt)
    A.check_same_dtype(api, p, dst=dst, src=src)
    bad, R = _repeat_arg(api, "repeatTime", repeatTime, 0, p, max_repeats)
    dyn = {
        "dst": A.addr_of(dst),
        "src": A.addr_of(src),
        "repeat": jnp.asarray(repeatTime, I32),
        "bad_param": jnp.asarray(bad, bool),
        "ext": _ext(dst=dst, src=src),
    }
    return SortStatic(api=api, dtype=dt, R=R, profile=p), dyn


@register(ApiSpec("RpSort16", "sort", ("RpSort16(dst, src, repeatTime)",), _DOC + "RpSort16.md"))
def RpSort16(state, dst, src, repeatTime, profile=None, max_repeats=None):
    """RpSort16 (Ascend C ``AscendC::RpSort16``): repeat ``r`` sorts 16 Region Proposals (8
    elements each) by score (element 4), descending, equal scores in input order; dst may be src.

    **Spec:** memory-vector/排序组合（ISASI）/RpSort16.md. Profile keys: ``apis.RpSort16``,
    ``behavior.zero_repeat``.
    """
    st, dyn = plan_rpsort16(state, dst, src, repeatTime, profile, max_repeats)
    return run_rpsort16(st, state, dyn)


def plan_proposal(api, state, dst, src, repeatTime, modeNumber, profile=None, max_repeats=None):
    p = as_profile(profile)
    _tensors(api, p, dst=dst, src=src)
    dt = dst.dtype
    p.require_api(api, dt)
    A.check_same_dtype(api, p, dst=dst, src=src)
    bad, R = _repeat_arg(api, "repeatTime", repeatTime, 0, p, max_repeats)
    A.static_int(api, "modeNumber", modeNumber, 0, 5, p)
    bad = bad | A.traced_range_bad(modeNumber, 0, 5)
    dyn = {
        "dst": A.addr_of(dst),
        "src": A.addr_of(src),
        "repeat": jnp.asarray(repeatTime, I32),
        "mode": jnp.clip(jnp.asarray(modeNumber, I32), 0, 5),
        "bad_param": jnp.asarray(bad, bool),
        "ext": _ext(dst=dst, src=src),
    }
    return SortStatic(api=api, dtype=dt, R=R, profile=p), dyn


@register(
    ApiSpec(
        "ProposalConcat",
        "sort",
        ("ProposalConcat(dst, src, repeatTime, modeNumber)",),
        _DOC + "ProposalConcat.md",
    )
)
def ProposalConcat(state, dst, src, repeatTime, modeNumber, profile=None, max_repeats=None):
    """ProposalConcat (Ascend C ``AscendC::ProposalConcat``): repeat ``r`` writes 16 consecutive
    src elements into field ``modeNumber`` (0 x1, 1 y1, 2 x2, 3 y2, 4 score, 5 label) of 16 Region
    Proposals; the other fields are unchanged.

    **Spec:** memory-vector/排序组合（ISASI）/ProposalConcat.md. Profile keys: ``apis.ProposalConcat``,
    ``behavior.zero_repeat``.
    """
    st, dyn = plan_proposal("ProposalConcat", state, dst, src, repeatTime, modeNumber, profile, max_repeats)
    return run_proposal_move(st, state, dyn)


@register(
    ApiSpec(
        "ProposalExtract",
        "sort",
        ("ProposalExtract(dst, src, repeatTime, modeNumber)",),
        _DOC + "ProposalExtract.md",
    )
)
def ProposalExtract(state, dst, src, repeatTime, modeNumber, profile=None, max_repeats=None):
    """ProposalExtract (Ascend C ``AscendC::ProposalExtract``): the reverse of ProposalConcat: field
    ``modeNumber`` of 16 Region Proposals a repeat, written as 16 consecutive dst elements.

    **Spec:** memory-vector/排序组合（ISASI）/ProposalExtract.md. Profile keys:
    ``apis.ProposalExtract``, ``behavior.zero_repeat``.
    """
    st, dyn = plan_proposal("ProposalExtract", state, dst, src, repeatTime, modeNumber, profile, max_repeats)
    return run_proposal_move(st, state, dyn)


__all__ = [
    "GetMrgSortResult",
    "MrgSort",
    "MrgSort4",
    "MrgSort4Info",
    "MrgSortSrcList",
    "ProposalConcat",
    "ProposalExtract",
    "RpSort16",
    "Sort32",
]
