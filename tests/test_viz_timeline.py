"""aj.viz.timeline: one lane per pipe per core, the racing calls in red, a flag as an arrow."""

import numpy as np
import pytest

import ascend_jax as aj
from ops import sanitizer_samples as S

pytest.importorskip("matplotlib")


def test_timeline_marks_the_race_and_draws_the_flags():
    racy = S.ms_sanitizer_add(with_mte2_v=False, block_length=64)
    x = np.arange(128, dtype=np.float32)
    res = aj.run_kernel(racy, x, x, np.zeros_like(x), block_dim=2)
    fig = aj.viz.timeline(res)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    # bottom to top: the last lane first
    assert labels[-1] == "core 0 PIPE_S" and labels[0] == "core 1 PIPE_MTE3" and len(labels) == 8
    reds = [p for p in ax.patches if p.get_facecolor()[:3] == pytest.approx((0.839, 0.153, 0.157), abs=0.01)]
    racing = {(c.core, c.index) for f in res.findings for c in f.calls}
    assert len(reds) == len(racing) == 6  # per core: two copies in and the Add
    arrows = [t for t in ax.texts if getattr(t, "arrow_patch", None) is not None]
    assert len(arrows) == 2  # V_MTE3 on each core
