"""Pipes, hardware events and the pipe each call runs on (同步控制/核内同步).

An AI Core's Scalar unit issues every instruction, in program order, into the queue of the unit
that runs it; the units (pipes) run their queues asynchronously from each other. ``pipe_of`` is
the one place that decides a call's pipe; ``ascend_jax.hazards`` orders calls by pipes, flags and
barriers and knows nothing else about an API.

Names mirror Ascend C: ``HardEvent.MTE2_V`` ("V waits for MTE2"), ``pipe_t.PIPE_MTE2``.
"""

import enum

from .errors import UsageError


class pipe_t(enum.IntEnum):  # noqa: N801 -- the Ascend C name
    """``pipe_t``: the execution units of an AI Core (核内同步能力概述.md table 1)."""

    PIPE_S = 0
    PIPE_V = 1
    PIPE_M = 2
    PIPE_MTE1 = 3
    PIPE_MTE2 = 4
    PIPE_MTE3 = 5
    PIPE_FIX = 6
    PIPE_ALL = 7


# SPEC: "AIV ... only PIPE_S, PIPE_V, PIPE_MTE2 and PIPE_MTE3" (核内同步能力概述.md table 3)
VECTOR_PIPES = (pipe_t.PIPE_S, pipe_t.PIPE_V, pipe_t.PIPE_MTE2, pipe_t.PIPE_MTE3)

_SHORT = {"S": pipe_t.PIPE_S, "V": pipe_t.PIPE_V, "M": pipe_t.PIPE_M, "MTE1": pipe_t.PIPE_MTE1}
_SHORT.update({"MTE2": pipe_t.PIPE_MTE2, "MTE3": pipe_t.PIPE_MTE3, "FIX": pipe_t.PIPE_FIX})


class HardEvent(enum.IntEnum):
    """``HardEvent``: ``<SRC>_<DST>`` -- the DST pipe waits for the SRC pipe (SetFlag-WaitFlag(ISASI).md).

    The twelve vector-core pairs are legal on an AIV; the cube pairs exist in the enum and are
    rejected by ``SetFlag``/``WaitFlag`` on the vector profiles (the model has no cube pipes)."""

    MTE2_MTE1 = 0
    MTE1_MTE2 = 1
    MTE1_M = 2
    M_MTE1 = 3
    MTE2_V = 4
    V_MTE2 = 5
    MTE3_V = 6
    V_MTE3 = 7
    M_V = 8
    V_M = 9
    V_V = 10
    MTE3_MTE1 = 11
    MTE1_MTE3 = 12
    MTE1_V = 13
    MTE2_M = 14
    M_MTE2 = 15
    V_MTE1 = 16
    M_FIX = 17
    FIX_M = 18
    MTE3_MTE2 = 19
    MTE2_MTE3 = 20
    S_V = 21
    V_S = 22
    S_MTE2 = 23
    MTE2_S = 24
    S_MTE3 = 25
    MTE3_S = 26
    MTE2_FIX = 27
    FIX_MTE2 = 28
    FIX_S = 29
    M_S = 30
    FIX_MTE3 = 31

    @property
    def src(self):
        return _SHORT[self.name.split("_")[0]]

    @property
    def dst(self):
        return _SHORT[self.name.split("_")[1]]


# SPEC: the legal AIV pairs on 2201 (核内同步能力概述.md table 3); a same-pipe dependency uses
# PipeBarrier, S -> S needs nothing.
VECTOR_EVENTS = frozenset(
    HardEvent[n]
    for n in ("S_V S_MTE2 S_MTE3 V_S V_MTE2 V_MTE3 MTE2_S MTE2_V MTE2_MTE3 MTE3_S MTE3_V MTE3_MTE2".split())
)


def as_event(api, event, profile):
    """``event`` (a HardEvent, its name, or its value) as a legal vector-core HardEvent."""
    try:
        e = HardEvent[event] if isinstance(event, str) else HardEvent(event)
    except (KeyError, ValueError):
        e = None
    if e is None or e not in VECTOR_EVENTS:
        raise UsageError(
            api,
            "event",
            getattr(event, "name", event),
            "one of " + ", ".join(sorted(x.name for x in VECTOR_EVENTS)),
            profile,
            "the legal HardEvent pairs of a vector core (核内同步能力概述.md table 3)",
        )
    return e


def as_pipe(api, pipe, profile, allow_s=False):
    """``pipe`` (a pipe_t, its name, or its value) as a vector-core pipe or PIPE_ALL."""
    try:
        p = pipe_t[pipe] if isinstance(pipe, str) else pipe_t(pipe)
    except (KeyError, ValueError):
        p = None
    ok = (pipe_t.PIPE_ALL,) + tuple(x for x in VECTOR_PIPES if allow_s or x != pipe_t.PIPE_S)
    if p not in ok:
        raise UsageError(
            api,
            "pipe",
            getattr(pipe, "name", pipe),
            "one of " + ", ".join(x.name for x in ok),
            profile,
            # SPEC: "不支持PIPE_S" -- scalar order is kept by the hardware (PipeBarrier(ISASI).md)
            "PipeBarrier takes a vector-core pipe other than PIPE_S, or PIPE_ALL",
        )
    return p


# SPEC: the scalar-pipe APIs (核内同步能力概述.md table 1; 原子操作/关键特性说明.md table 1):
# register and mask operations, special-register reads, atomic configuration.
_SCALAR_FAMILIES = ("mask", "special_register")
_SCALAR_APIS = frozenset(
    (
        "GetValue",
        "SetValue",
        "SetDeqScale",
        "GetReduceRepeatSumSpr",
        "GetReduceRepeatMaxMinSpr",
        "GetMrgSortResult",
        "GetGatherMaskRemainCount",
        "SetAtomicAdd",
        "SetAtomicMax",
        "SetAtomicMin",
        "SetAtomicType",
        "DisableDmaAtomic",
        "SetAtomicNone",
    )
)


def pipe_of(api, family, dst=None, src=None):
    """The pipe a call runs on: ``api`` and its registry ``family``; for DataCopy/DataCopyPad
    the direction decides (数据搬运导览/数据通路.md: GM -> UB MTE2, UB -> GM MTE3, UB -> UB V)."""
    if family == "data_copy":
        if getattr(src, "is_global", False) and not getattr(dst, "is_global", False):
            return pipe_t.PIPE_MTE2
        if getattr(dst, "is_global", False):
            return pipe_t.PIPE_MTE3
        return pipe_t.PIPE_V
    if api in _SCALAR_APIS or family in _SCALAR_FAMILIES:
        return pipe_t.PIPE_S
    return pipe_t.PIPE_V


# the C++ names of the event IDs (EVENT_ID0 ... EVENT_ID7)
EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 = range(8)
