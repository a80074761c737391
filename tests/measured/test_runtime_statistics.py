"""The shared runtime statistics equal numpy's (``np.mean``, ``np.percentile``) bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from perfline.core.backends.runtime_common.statistics import statistics

SAMPLES = st.lists(
    st.floats(min_value=0.0, max_value=1e6, allow_nan=False, allow_infinity=False),
    min_size=1,
    max_size=400,
)


@settings(max_examples=600, deadline=None)
@given(SAMPLES)
def test_statistics_equal_numpy_exactly(values: list[float]) -> None:
    ours = statistics(tuple(values))
    array = np.asarray(values, dtype=np.float64)
    assert ours.count == len(values)
    assert ours.avg == float(np.mean(array))
    assert ours.min == float(np.min(array))
    assert ours.max == float(np.max(array))
    assert ours.p50 == float(np.percentile(array, 50))
    assert ours.p90 == float(np.percentile(array, 90))


def test_sizes_around_the_summation_blocks() -> None:
    rng = np.random.default_rng(7)
    for size in (1, 7, 8, 9, 15, 16, 127, 128, 129, 255, 256, 257, 1000, 5000):
        for scale in (1e-3, 1.0, 1e4):
            values = rng.random(size) * scale
            ours = statistics(tuple(float(v) for v in values))
            assert ours.avg == float(np.mean(values)), size
            assert ours.p90 == float(np.percentile(values, 90)), size
