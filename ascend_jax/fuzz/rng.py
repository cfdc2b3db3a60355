"""The random source of one case (``generate.generate_case``): the part of
``numpy.random.Generator`` the family generators use (``integers``, ``random``, ``choice``,
``permutation``), with scalar draws done in Python on a splitmix64 counter.

Why: a case is ~30-50 scalar draws; through a NumPy Generator each costs a few microseconds of
call overhead and building the Generator (its SeedSequence) another ~20 us, the largest part of
drawing a case (issue 36: drawing was ~220 us a case, a ceiling of ~4,500 cases/s for a whole
campaign before anything ran). Array draws (``size=``, ``p=``, ``permutation``) go to a NumPy
Generator seeded from this one on first use. Every draw depends on the case's seed words alone,
in the order the generator makes them."""

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
