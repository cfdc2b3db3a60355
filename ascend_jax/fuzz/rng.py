"""The random source of a case (``generate.generate_cases``): the part of
``numpy.random.Generator`` the family generators use (``integers``, ``random``, ``choice``,
``permutation``), with scalar draws done in Python on a splitmix64 counter.

Why: a case is ~30-50 scalar draws; through a NumPy Generator each costs a few microseconds of
call overhead and building the Generator (its SeedSequence) another ~20 us, the largest part of
drawing a case (issue 36: drawing was ~220 us a case, a ceiling of ~4,500 cases/s for a whole
campaign before anything ran). Array draws (``size=``, ``p=``, ``permutation``) go to a NumPy
Generator seeded from this one on first use. Every draw depends on the case's seed words alone,
in the order the generator makes them. ``Slots`` draws the same streams for many cases at once
(vectorised generators)."""

import numpy as np

_M64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


class CaseRng:
    __slots__ = ("_s", "_np")

    def __init__(self, words):
        s = 0
        for w in words:
            s = _mix(((s ^ (int(w) & _M64)) + _GOLDEN) & _M64)
        self._s, self._np = s, None

    @classmethod
    def at(cls, state, pos):
        """The stream of seed state ``state`` (``case_states``) after its first ``pos`` words (a
        ``Slots`` draw continued case by case)."""
        r = cls(())
        r._s = (int(state) + int(pos) * _GOLDEN) & _M64
        return r

    def _next(self):
        self._s = (self._s + _GOLDEN) & _M64
        return _mix(self._s)

    def _generator(self):
        if self._np is None:
            self._np = np.random.default_rng(self._next())
        return self._np

    def _below(self, n):
        """A uniform int in [0, n) (n > 0; multiply-shift over as many 64-bit words as n needs)."""
        if n <= 1 << 64:
            return (self._next() * n) >> 64
        k = (n.bit_length() + 63) // 64 + 1
        v = 0
        for _ in range(k):
            v = (v << 64) | self._next()
        return (v * n) >> (64 * k)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        if size is not None:
            return self._generator().integers(low, high, size, dtype=dtype, endpoint=endpoint)
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high) + (1 if endpoint else 0)
        if high <= low:
            raise ValueError(f"integers: high <= low ({low}, {high})")
        return np.dtype(dtype).type(low + self._below(high - low))

    def random(self, size=None):
        if size is not None:
            return self._generator().random(size)
        return (self._next() >> 11) * (1.0 / (1 << 53))

    def choice(self, a, size=None, replace=True, p=None):
        if size is not None or p is not None or not replace:
            return self._generator().choice(a, size=size, replace=replace, p=p)
        if isinstance(a, (int, np.integer)):
            return np.int64(self._below(int(a)))
        n = len(a)
        if n == 0:
            raise ValueError("choice: a cannot be empty")
        k = self._below(n)
        # as NumPy: the element of ``a`` taken as an array (a NumPy scalar of its common type)
        return a[k] if isinstance(a, np.ndarray) else np.asarray(a)[k]

    def permutation(self, x):
        return self._generator().permutation(x)


# -- the same streams, many cases at once ---------------------------------------------------------
_M32 = np.uint64(0xFFFFFFFF)


def _mix_array(z):
    """``_mix`` on a uint64 array (NumPy's uint64 array arithmetic wraps modulo 2**64)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def case_states(seed, idx):
    """The seed state of ``CaseRng((seed, i))`` for every ``i`` of ``idx`` (a uint64 array)."""
    s = _mix(((0 ^ (int(seed) & _M64)) + _GOLDEN) & _M64)
    i = np.asarray(idx, np.int64).astype(np.uint64).reshape(-1)
    return _mix_array((np.uint64(s) ^ i) + np.uint64(_GOLDEN))


def _mulhi(a, b):
    """The high 64 bits of the 128-bit products of two uint64 arrays (32-bit limbs)."""
    a_lo, a_hi, b_lo, b_hi = a & _M32, a >> np.uint64(32), b & _M32, b >> np.uint64(32)
    lh, hl = a_lo * b_hi, a_hi * b_lo
    mid = ((a_lo * b_lo) >> np.uint64(32)) + (lh & _M32) + (hl & _M32)
    return a_hi * b_hi + (lh >> np.uint64(32)) + (hl >> np.uint64(32)) + (mid >> np.uint64(32))


class Slots:
    """The streams of many cases drawn side by side: every call takes the next word of each case's
    ``CaseRng`` stream (the same words, the same ``integers`` / ``random`` values as the scalar
    draws), so a vectorised generator makes every draw for every case, whatever it keeps (a fixed
    layout: draw ``k`` of every case is the same question), and one case drawn alone (``n`` = 1)
    gets the same values as in a batch. ``rng(j)``: case ``j``'s stream continued one case at a
    time after the words drawn so far."""

    __slots__ = ("states", "pos")

    def __init__(self, states, pos=0):
        self.states = np.asarray(states, np.uint64).reshape(-1)
        self.pos = int(pos)

    def __len__(self):
        return len(self.states)

    def take(self, rows):
        """The streams of the cases ``rows``, at the same position."""
        return Slots(self.states[rows], self.pos)

    def word(self):
        """The next 64-bit word of every stream."""
        self.pos += 1
        return _mix_array(self.states + np.uint64((self.pos * _GOLDEN) & _M64))

    def below(self, n):
        """A uniform int in [0, n) per case (``n``: an int or an int array, each in [1, 2**64];
        ``CaseRng.integers(n)``): int64, or uint64 where some ``n`` exceeds 2**63."""
        top = int(np.max(n))
        n = np.asarray(n, dtype=object if top >= 1 << 64 else np.uint64)
        w = self.word()
        if n.dtype == object:  # n = 2**64 somewhere: the word itself there
            full = n == 1 << 64
            nn = np.where(full, 1, n).astype(np.uint64)
            return np.where(full, w, _mulhi(w, nn)).astype(np.uint64)
        v = _mulhi(w, np.broadcast_to(n, w.shape))
        return v if top > 1 << 63 else v.astype(np.int64)

    def integers(self, low, high):
        """A uniform int in [low, high) per case (int64; ``high - low`` at most 2**63)."""
        low = np.asarray(low, np.int64)
        return low + self.below(np.asarray(high, np.int64) - low).astype(np.int64)

    def random(self):
        """A uniform float in [0, 1) per case (``CaseRng.random()``)."""
        return (self.word() >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))

    def pick(self, options):
        """An element of ``options`` (a sequence) per case, uniformly (``CaseRng.choice``)."""
        a = np.asarray(options)
        return a[self.below(len(a))]

    def weighted(self, p):
        """An index per case drawn with the probabilities ``p`` (one word: the first index whose
        cumulative probability exceeds a uniform draw)."""
        c = np.cumsum(np.asarray(p, np.float64))
        return np.minimum(np.searchsorted(c / c[-1], self.random(), side="right"), len(c) - 1)

    def rng(self, j):
        """Case ``j``'s stream after the words drawn so far, as a scalar ``CaseRng``."""
        return CaseRng.at(int(self.states[j]), self.pos)
