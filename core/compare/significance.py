"""Significance of a change from two runs' per-run samples, and multiple-test control.

* ``mann_whitney_p(base, new)``: the two-sided p-value of the Mann–Whitney U
  (Wilcoxon rank-sum) test that the two samples come from one distribution.
  Ties get mid-ranks. When the pooled sample has at most ``EXACT_LIMIT``
  values the p-value is exact: the distribution of the base sample's rank sum
  over every way of choosing which pooled values are the base's (conditional
  on the ties present, so it stays exact with the 1 µs steps of XNNPACK or
  ONNX Runtime timings), counted by dynamic programming over doubled ranks.
  Above that, the normal approximation with the tie correction of the
  variance and a continuity correction. A rank test, because run times are
  skewed (a few slow runs) and the mean is what they shift most.
* ``adjust(p_values, method)``: Holm's step-down (controls the chance of any
  false call among the family, the default) or Benjamini–Hochberg's step-up
  (controls the expected share of false calls among the calls) adjusted
  p-values, or the p-values unchanged (``none``).

Cost: exact test O(N · n1 · N²) float operations with numpy over the rank sums
(N = pooled size: below a millisecond at 10 + 10 runs, a few at 30 + 30; the
distribution is kept per tie pattern, so samples without ties share one);
approximation O(N log N); adjustment O(m log m).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Final, Literal

import numpy

#: Pooled sample size up to which the p-value is computed exactly.
EXACT_LIMIT: Final = 60

Correction = Literal["holm", "bh", "none"]
CORRECTIONS: Final = ("holm", "bh", "none")


def midranks(values: Sequence[float]) -> tuple[list[float], list[int]]:
    """Ranks (1-based, ties share their mean rank) and the sizes of the tie groups."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    ties: list[int] = []
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        rank = (start + end) / 2 + 1
        for position in range(start, end + 1):
            ranks[order[position]] = rank
        ties.append(end - start + 1)
        start = end + 1
    return ranks, ties


def mann_whitney_p(base: Sequence[float], new: Sequence[float]) -> float:
    """Two-sided Mann–Whitney U p-value of ``base`` against ``new`` (both non-empty)."""
    n1, n2 = len(base), len(new)
    if n1 == 0 or n2 == 0:
        raise ValueError("both samples need at least one value")
    ranks, ties = midranks([*base, *new])
    if len(ties) == 1:
        return 1.0  # every value equal: no evidence of any difference
    doubled = [round(2 * rank) for rank in ranks]
    observed = sum(doubled[:n1])
    total = n1 + n2
    if total <= EXACT_LIMIT:
        return _exact_p(doubled, n1, observed)
    return _normal_p(observed / 2, n1, n2, ties)


def _exact_p(doubled: list[int], n1: int, observed: int) -> float:
    """P(|T - E[T]| >= |t - E[T]|) for T = the doubled rank sum of n1 of the pooled values."""
    total = len(doubled)
    distribution = _rank_sum_counts(tuple(sorted(doubled)), n1)
    top = len(distribution) - 1
    expected = n1 * (total + 1)  # doubled mean rank sum: 2 * n1 * (N + 1) / 2
    distance = abs(observed - expected)
    sums = numpy.arange(top + 1)
    extreme = numpy.abs(sums - expected) >= distance
    p = float(distribution[extreme].sum() / distribution.sum())
    return min(1.0, p)


@functools.lru_cache(maxsize=256)
def _rank_sum_counts(doubled: tuple[int, ...], n1: int) -> numpy.ndarray:
    """How many ways n1 of the pooled values have each doubled rank sum 0..max."""
    top = sum(doubled[-n1:])
    # counts[j, s]: ways to pick j of the values seen so far with doubled rank sum s.
    counts = numpy.zeros((n1 + 1, top + 1), dtype=numpy.float64)
    counts[0, 0] = 1.0
    for seen, rank in enumerate(doubled, start=1):
        for chosen in range(min(seen, n1), 0, -1):
            counts[chosen, rank:] += counts[chosen - 1, : top + 1 - rank]
    distribution: numpy.ndarray = counts[n1]
    distribution.flags.writeable = False
    return distribution


def _normal_p(rank_sum: float, n1: int, n2: int, ties: list[int]) -> float:
    total = n1 + n2
    u = rank_sum - n1 * (n1 + 1) / 2
    mean = n1 * n2 / 2
    tie_term = sum(t**3 - t for t in ties) / (total * (total - 1))
    variance = n1 * n2 / 12 * ((total + 1) - tie_term)
    if variance <= 0:
        return 1.0
    z = max(0.0, abs(u - mean) - 0.5) / math.sqrt(variance)
    return min(1.0, math.erfc(z / math.sqrt(2)))


def adjust(p_values: Sequence[float], method: Correction) -> list[float]:
    """Adjusted p-values in the input order (see the module docstring)."""
    count = len(p_values)
    if method == "none" or count == 0:
        return [float(p) for p in p_values]
    order = sorted(range(count), key=p_values.__getitem__)
    adjusted = [0.0] * count
    if method == "holm":
        running = 0.0
        for position, index in enumerate(order):
            running = max(running, min(1.0, (count - position) * p_values[index]))
            adjusted[index] = running
        return adjusted
    if method == "bh":
        running = 1.0
        for position in range(count - 1, -1, -1):
            index = order[position]
            running = min(running, count * p_values[index] / (position + 1))
            adjusted[index] = min(1.0, running)
        return adjusted
    raise ValueError(f"unknown correction {method!r}; expected one of {', '.join(CORRECTIONS)}")


def smallest_p(n1: int, n2: int) -> float:
    """The smallest two-sided p-value the test can give for samples of these sizes
    (no ties): a count too small to ever be significant is reported as such."""
    if n1 == 0 or n2 == 0:
        return 1.0
    return min(1.0, 2 / math.comb(n1 + n2, n1))
