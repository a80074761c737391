"""Summary statistics of one observation's per-run samples (pure Python).

Mean, minimum, maximum and linearly interpolated 50th/90th percentiles, computed exactly as
numpy computes ``np.mean`` and ``np.percentile(..., method="linear")`` on a float64 array (as
the ExecuTorch Inspector does), without importing numpy (about 50 ms of a CLI run):

* the sum is numpy's pairwise summation (below 8 values one by one; up to 128 in eight
  interleaved partial sums, combined pairwise, then the rest; above that, halves cut at a
  multiple of 8), divided by the count;
* a percentile ``q`` sits at ``q / 100 * (n - 1)`` in the sorted values, between the two
  neighbours ``a``, ``b`` at fraction ``t``: ``a + (b - a) * t`` below one half,
  ``b - (b - a) * (1 - t)`` from one half on.

``tests/core/backends/runtime_common/test_runtime_statistics.py`` holds the results equal to
numpy's, bit for bit, on random samples of many sizes. Cost: O(k log k) for k samples.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

_BLOCK = 128


@dataclass(frozen=True)
class Statistics:
    """Summary of one observation's samples."""

    count: int
    avg: float
    min: float
    max: float
    p50: float
    p90: float


def _pairwise_sum(values: Sequence[float], start: int, count: int) -> float:
    if count < 8:
        total = 0.0
        for index in range(start, start + count):
            total += values[index]
        return total
    if count <= _BLOCK:
        partial = [float(v) for v in values[start : start + 8]]
        index = start + 8
        end = start + count - count % 8
        while index < end:
            for lane in range(8):
                partial[lane] += values[index + lane]
            index += 8
        total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + (
            (partial[4] + partial[5]) + (partial[6] + partial[7])
        )
        while index < start + count:
            total += values[index]
            index += 1
        return total
    half = count // 2
    half -= half % 8
    return _pairwise_sum(values, start, half) + _pairwise_sum(values, start + half, count - half)


def mean(values: Sequence[float]) -> float:
    """``np.mean`` of the values (non-empty)."""
    return _pairwise_sum(values, 0, len(values)) / len(values)


def percentile(ordered: Sequence[float], q: float) -> float:
    """``np.percentile(values, q)`` of values already sorted ascending (non-empty)."""
    position = q / 100 * (len(ordered) - 1)
    position = min(max(position, 0.0), len(ordered) - 1.0)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    fraction = position - low
    a, b = ordered[low], ordered[high]
    difference = b - a
    if fraction >= 0.5:
        return b - difference * (1 - fraction)
    return a + difference * fraction


def statistics(durations: tuple[float, ...]) -> Statistics:
    """Mean, extremes and percentiles of ``durations`` (non-empty)."""
    values = [float(value) for value in durations]
    ordered = sorted(values)
    return Statistics(
        count=len(values),
        avg=mean(values),
        min=ordered[0],
        max=ordered[-1],
        p50=percentile(ordered, 50),
        p90=percentile(ordered, 90),
    )
