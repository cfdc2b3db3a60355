"""The compiler's automatic sync (bisheng ``--cce-auto-sync=on``): the flags it inserts between the
scalar pipe and the vector core's other pipes, added to a core's call log as the ``SetFlag`` /
``WaitFlag`` pairs they are (docs/MODEL.md "The compiler's auto-sync").

SPEC (同步控制/核内同步/关键特性说明.md "开启cce-auto-sync编译选项自动同步"):

* ``<<<>>>`` launches, kernel-launch projects and custom-op projects are built with
  ``--cce-auto-sync=on``; with ``off`` the compiler inserts nothing.
* In a vector core the compiler inserts the multi-pipe syncs between PIPE_V and PIPE_S, PIPE_MTE2
  and PIPE_S, PIPE_MTE3 and PIPE_S, both ways (table 3). It inserts nothing between V, MTE2 and
  MTE3 (that is TPipe/TQue's or the author's job) and no MTE2/MTE3 single-pipe barrier.
* The scalar side counts only for the listed APIs: ``LocalTensor::GetValue`` / ``SetValue`` /
  ``operator()``, ``GlobalTensor::GetValue`` / ``operator()``, ``GetReduceRepeatMaxMinSpr``,
  ``GetReduceRepeatSumSpr``, ``GetMrgSortResult``. ``GlobalTensor::SetValue`` is not in the list
  (nor raw-pointer scalar access): its syncs stay the author's.
* Where: the doc's example puts ``SetFlag<V_S>; WaitFlag<V_S>`` right before a ``GetValue`` of what
  a vector call wrote, and ``SetFlag<S_V>; WaitFlag<S_V>`` right before the next vector call on it.

V -> V (the compiler's ``PipeBarrier<PIPE_V>`` on 2201) is already an ordered pipe in
``hazards.ORDERED_PIPES`` under both settings.

CHOICE (docs/MODEL.md): a sync is inserted where a dependency exists in this run -- the two calls'
bytes overlap and one writes (a traced address may overlap: a sync) -- since the last inserted sync
of that direction; the listed register reads depend on any vector call since the last V -> S sync.
The inserted flags use their own event ID (``AUTO_ID``), so they never pair with the author's.
"""

from .sync import HardEvent, pipe_t

AUTO_ID = "auto"  # the event ID of an inserted flag: never one of the author's 0..7

_OTHER = (pipe_t.PIPE_V, pipe_t.PIPE_MTE2, pipe_t.PIPE_MTE3)
_TO_S = {pipe_t.PIPE_V: HardEvent.V_S, pipe_t.PIPE_MTE2: HardEvent.MTE2_S, pipe_t.PIPE_MTE3: HardEvent.MTE3_S}
_FROM_S = {
    pipe_t.PIPE_V: HardEvent.S_V,
    pipe_t.PIPE_MTE2: HardEvent.S_MTE2,
    pipe_t.PIPE_MTE3: HardEvent.S_MTE3,
}
# SPEC: the scalar APIs the compiler syncs (关键特性说明.md 使用约束): tensor reads and writes
# (GlobalTensor: reads only), and the register reads of a reduction's / a merge sort's results
_REGISTER_READS = frozenset(("GetReduceRepeatMaxMinSpr", "GetReduceRepeatSumSpr", "GetMrgSortResult"))
NOTE = "inserted by the compiler (--cce-auto-sync=on)"


def _covered(api, accesses):
    """The accesses of a scalar call the compiler syncs (None: the call is not a listed API)."""
    if api in _REGISTER_READS:
        return ()
    if api == "GetValue":
        return accesses
    if api == "SetValue":
        return tuple(a for a in accesses if a.space == "UB")  # GlobalTensor::SetValue: not listed
    return None


def _static(a):
    return isinstance(a.start, int) and isinstance(a.end, int)


def _depends(a, b):
    """``a`` and ``b`` (Access or ``_Span``) touch the same bytes and one writes; a traced address
    may."""
    if not (a.write or b.write) or a.space != b.space:
        return False
    if not (_static(a) and _static(b)):
        return True
    return a.start < b.end and b.start < a.end


class _Span:
    """The bytes of several accesses of one kind (space, read or write), contiguous."""

    __slots__ = ("space", "start", "end", "write")

    def __init__(self, space, start, end, write):
        self.space, self.start, self.end, self.write = space, start, end, write


def _extend(spans, accesses):
    """Append ``accesses`` to ``spans``, merging one that meets the last span (a loop of
    GetValue / SetValue over a tensor keeps one span)."""
    for a in accesses:
        last = spans[-1] if spans else None
        if (
            last is not None
            and _static(a)
            and _static(last)
            and last.space == a.space
            and last.write == a.write
            and a.start <= last.end
            and last.start <= a.end
        ):
            last.start, last.end = min(last.start, a.start), max(last.end, a.end)
        elif _static(a):
            spans.append(_Span(a.space, a.start, a.end, a.write))
        else:
            spans.append(a)


class AutoSync:
    """One core's view of what the compiler has synced: per pipe, the accesses since the last
    inserted sync each way. ``before(log, api, pipe, kind, accesses, source)`` adds the flags the
    compiler puts before the call about to be logged."""

    def __init__(self):
        self.since_to_s = {p: [] for p in _OTHER}  # X calls' accesses since the last X -> S sync
        self.since_from_s = {p: [] for p in _OTHER}  # listed scalar accesses since the last S -> X
        self.v_since = False  # a vector call since the last V -> S sync (the register reads)

    def _insert(self, log, event, source):
        log.add("SetFlag", event.src, "set", (event, AUTO_ID), (), source, NOTE)
        log.add("WaitFlag", event.dst, "wait", (event, AUTO_ID), (), source, NOTE)

    def before(self, log, api, pipe, kind, accesses, source=""):
        if kind != "op":
            return
        if pipe == pipe_t.PIPE_S:
            mine = _covered(api, accesses)
            if mine is None:
                return
            for p in _OTHER:
                reg = api in _REGISTER_READS and p == pipe_t.PIPE_V and self.v_since
                if reg or any(_depends(a, b) for a in mine for b in self.since_to_s[p]):
                    self._insert(log, _TO_S[p], source)
                    self.since_to_s[p] = []
                    if p == pipe_t.PIPE_V:
                        self.v_since = False
                _extend(self.since_from_s[p], mine)
        elif pipe in self.since_to_s:
            if any(_depends(a, b) for a in accesses for b in self.since_from_s[pipe]):
                self._insert(log, _FROM_S[pipe], source)
                self.since_from_s[pipe] = []
            _extend(self.since_to_s[pipe], accesses)
            if pipe == pipe_t.PIPE_V:
                self.v_since = True
