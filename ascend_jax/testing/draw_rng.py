"""A NumPy-Generator look-alike whose every choice is drawn by hypothesis (``data.draw``), so the
seeded case generators (``cmpsel_cases.random_case``, ``gather_shift_cases.random_*_case``) also
run as hypothesis strategies: failures shrink towards small integers, the first choices and
``random() == 0``. Bulk draws (``size`` > 16) take a hypothesis-drawn seed instead."""

import numpy as np
from hypothesis import strategies as st


class DrawRng:
    def __init__(self, data):
        self._data = data

    def random(self, size=None):
        if size is not None:
            return self._bulk().random(size)
        return self._data.draw(st.floats(0.0, 1.0, exclude_max=True, allow_nan=False))

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        if high is None:
            low, high = 0, low
        hi = int(high) if endpoint else int(high) - 1
        if size is not None:
            n = int(np.prod(size))
            if n > 16:
                return self._bulk().integers(low, hi, size=size, dtype=dtype, endpoint=True)
            vals = [self._data.draw(st.integers(int(low), hi)) for _ in range(n)]
            return np.array(vals, dtype=dtype).reshape(size)
        return self._data.draw(st.integers(int(low), hi))

    def choice(self, a, size=None, p=None, replace=True):
        seq = np.arange(a) if isinstance(a, (int, np.integer)) else np.asarray(a)
        if size is not None:
            n = int(np.prod(size))
            idx = [self._data.draw(st.integers(0, len(seq) - 1)) for _ in range(n)]
            return seq[np.array(idx)].reshape(size)
        return seq[self._data.draw(st.integers(0, len(seq) - 1))]

    def _bulk(self):
        return np.random.default_rng(self._data.draw(st.integers(0, 2**32 - 1)))
