"""``MrgSortSrcList`` and ``MrgSort4Info`` (排序组合（ISASI）/MrgSort.md, MrgSort4.md): the argument
structs of the merge-sort APIs, shared by the fast path and the reference (like ``params``).

Both are plain mutable structs, as in C++: a kernel may build them field by field
(``info.elementLengths[0] = 32``) or with the constructors the pages use
(``MrgSort4Info(elementLengths, ifExhaustedSuspension, validBit, repeatTimes)``,
``MrgSortSrcList(src1, src2, src3, src4)``).
"""

import dataclasses


@dataclasses.dataclass
class MrgSortSrcList:
    """The (up to) four sorted source queues; queues ``validBit`` does not select may be None."""

    src1: object = None
    src2: object = None
    src3: object = None
    src4: object = None

    def queues(self):
        return (self.src1, self.src2, self.src3, self.src4)


@dataclasses.dataclass
class MrgSort4Info:
    """elementLengths: 4 queue lengths in records (MrgSort: 8-byte (score, index) records; MrgSort4:
    Region Proposals), each in [0, 4095]; ifExhaustedSuspension: stop when a queue runs out;
    validBit: 3 / 7 / 15 (the first 2 / 3 / 4 queues take part); repeatTimes: merges of
    consecutive groups of 4 queues."""

    elementLengths: list = dataclasses.field(default_factory=lambda: [0, 0, 0, 0])
    ifExhaustedSuspension: bool = False
    validBit: int = 15
    repeatTimes: int = 1


VALID_BITS = {3: 2, 7: 3, 15: 4}  # validBit -> number of leading queues that take part
MAX_ELEMENT_LENGTH = 4095
# Proposal field numbers (ProposalConcat.md: "[x1, y1, x2, y2, score, label, reserved_0, reserved_1]")
PROPOSAL_FIELDS = ("x1", "y1", "x2", "y2", "score", "label")
PROPOSAL_SCORE = 4
PROPOSAL_ELEMENTS = 8
