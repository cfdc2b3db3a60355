"""Errors raised at trace time (usage) and fault bits recorded at run time (hardware faults).

Taxonomy (after Sail's): a *usage error* is static misuse the C++ compiler or the CPU-debug build
would reject, raised immediately with API, argument, value, allowed values and profile in the
message; a *fault* is data dependent (a traced address outside UB, ...), recorded per case as a
bit in ``CoreState.fault`` and, under the ``raise`` policy, turned into ``AscendFault`` on the
host after the run.
"""

import enum


class AscendCError(Exception):
    """Base class of every error ascend_jax raises on purpose."""


class ProfileError(AscendCError, ValueError):
    """A hardware profile file is malformed (unknown key, missing API, bad value)."""


class UsageError(AscendCError, ValueError):
    """Static misuse of an API, detected at trace time."""

    def __init__(self, api, argument, value, allowed, profile, detail=""):
        self.api, self.argument, self.value, self.allowed, self.profile = (
            api,
            argument,
            value,
            allowed,
            profile,
        )
        pname = getattr(profile, "name", profile)
        # no profile (a check that does not depend on the product): the message names none
        where = "" if profile is None else f" on profile '{pname}'"
        msg = f"{api}: {argument}={value!r} is not allowed{where}; allowed: {allowed}"
        if detail:
            msg += f". {detail}"
        super().__init__(msg)


class IndexUsageError(UsageError, IndexError):
    """An element offset past a tensor's end (``operator[]``): a usage error that is also the
    ``IndexError`` Python code expects from an index out of range."""


class UnsupportedError(UsageError):
    """API, dtype or mode not supported by the product the profile describes."""


class NotModelledError(AscendCError, NotImplementedError):
    """A documented variant that this version of ascend_jax does not model yet."""


class Fault(enum.IntFlag):
    """Per-case fault bits recorded in ``CoreState.fault``.

    A call that raises any fault is suppressed: it writes neither UB nor registers (model choice,
    identical in the fast path and the reference), so a recorded batch stays deterministic.
    """

    OUT_OF_UB = 1 << 0  # an active operand block lies outside the usable UB (or the case's arena)
    MISALIGNED = 1 << 1  # operand start address not aligned to the profile's operand alignment
    PARTIAL_OVERLAP = 1 << 2  # src and dst overlap inside one repeat, but not 100 %
    REPEAT_DEPENDENCY = 1 << 3  # a later repeat reads a block an earlier repeat wrote
    DST_BLK_STRIDE_ZERO = 1 << 4  # dstBlkStride == 0 is undefined behaviour
    BAD_MASK = 1 << 5  # traced mask value outside the documented range
    BAD_PARAM = 1 << 6  # traced repeat/stride/count outside its documented range
    SCRATCH_COLLISION = 1 << 7  # an operand overlaps UB scratch the API itself uses
    UNDEFINED = 1 << 8  # behaviour the product leaves undefined (profile choice "fault")
    # model limit, not hardware: a traced count/repeat needs more repeats than the static bucket
    # holds (pass a larger max_repeats); the call is suppressed
    BUCKET_OVERFLOW = 1 << 9
    OUT_OF_GM = 1 << 10  # a DataCopy GM access outside its GlobalTensor's buffer


def describe_faults(word: int) -> str:
    names = [f.name for f in Fault if int(word) & int(f)]
    return "|".join(names) if names else "none"


class AscendFault(AscendCError, RuntimeError):
    """Raised on the host, under the ``raise`` fault policy, when a case recorded faults."""

    def __init__(self, word, where=""):
        self.word = int(word)
        super().__init__(f"hardware fault{(' in ' + where) if where else ''}: {describe_faults(word)}")
