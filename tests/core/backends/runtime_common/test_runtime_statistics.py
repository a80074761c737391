"""The shared runtime statistics equal numpy's (``mean``, ``percentile``) bit for bit."""

from __future__ import annotations

import numpy
from hypothesis import given, settings, strategies

from perfline.core.backends.runtime_common.statistics import statistics

SAMPLES = strategies.lists(
    strategies.floats(min_value=0.0, max_value=1e6, allow_nan=False, allow_infinity=False),
    min_size=1,
    max_size=400,
)


@settings(max_examples=600, deadline=None)
@given(SAMPLES)
def test_statistics_equal_numpy_exactly(values: list[float]) -> None:
    ours = statistics(tuple(values))
    array = numpy.asarray(values, dtype=numpy.float64)
    assert ours.count == len(values)
    assert ours.avg == float(numpy.mean(array))
    assert ours.min == float(numpy.min(array))
    assert ours.max == float(numpy.max(array))
    assert ours.p50 == float(numpy.percentile(array, 50))
    assert ours.p90 == float(numpy.percentile(array, 90))


def test_sizes_around_the_summation_blocks() -> None:
    rng = numpy.random.default_rng(7)
    for size in (1, 7, 8, 9, 15, 16, 127, 128, 129, 255, 256, 257, 1000, 5000):
        for scale in (1e-3, 1.0, 1e4):
            values = rng.random(size) * scale
            ours = statistics(tuple(float(v) for v in values))
            assert ours.avg == float(numpy.mean(values)), size
            assert ours.p90 == float(numpy.percentile(values, 90)), size
