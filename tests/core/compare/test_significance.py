"""The rank test and the multiple-test corrections, against brute force and hand-worked values."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from perfline.core.compare.significance import (
    EXACT_LIMIT,
    adjust,
    mann_whitney_p,
    midranks,
    smallest_p,
)


def _u(base: list[float], new: list[float]) -> float:
    """U counted pair by pair (a tie counts a half): no ranks involved."""
    return sum((x > y) + 0.5 * (x == y) for x in base for y in new)


def _enumerated_p(base: list[float], new: list[float]) -> float:
    """Two-sided p over every way of choosing which pooled values are the baseline's."""
    pooled = [*base, *new]
    centre = len(base) * len(new) / 2
    observed = abs(_u(base, new) - centre)
    extreme = total = 0
    for chosen in itertools.combinations(range(len(pooled)), len(base)):
        picked = set(chosen)
        left = [pooled[i] for i in chosen]
        right = [pooled[i] for i in range(len(pooled)) if i not in picked]
        total += 1
        if abs(_u(left, right) - centre) >= observed - 1e-12:
            extreme += 1
    return extreme / total


@pytest.mark.parametrize("seed", range(12))
def test_exact_p_equals_the_enumerated_permutation_distribution(seed: int) -> None:
    rng = random.Random(seed)
    n1, n2 = rng.randint(1, 7), rng.randint(1, 7)
    levels = rng.choice([3, 5, 1000])  # few levels: many ties (1 us timer steps)
    base = [float(rng.randrange(levels)) for _ in range(n1)]
    new = [float(rng.randrange(levels) + rng.choice([0, 1])) for _ in range(n2)]
    assert mann_whitney_p(base, new) == pytest.approx(_enumerated_p(base, new), abs=1e-12)


def test_separated_samples_reach_the_smallest_p() -> None:
    base = [1.0, 2.0, 3.0, 4.0, 5.0]
    new = [6.0, 7.0, 8.0, 9.0, 10.0]
    assert mann_whitney_p(base, new) == pytest.approx(2 / math.comb(10, 5))
    assert smallest_p(5, 5) == pytest.approx(2 / 252)
    assert mann_whitney_p(new, base) == mann_whitney_p(base, new)


def test_all_equal_values_give_no_evidence() -> None:
    assert mann_whitney_p([3.0] * 4, [3.0] * 6) == 1.0
    assert mann_whitney_p([1.0], [2.0]) == 1.0


def test_large_samples_use_the_normal_approximation_close_to_permutations() -> None:
    rng = random.Random(7)
    base = [round(rng.gauss(10, 2), 1) for _ in range(45)]
    new = [round(rng.gauss(10.8, 2), 1) for _ in range(40)]
    assert len(base) + len(new) > EXACT_LIMIT
    pooled = base + new
    centre = len(base) * len(new) / 2
    observed = abs(_u(base, new) - centre)
    hits = 0
    draws = 4000
    for _ in range(draws):
        rng.shuffle(pooled)
        if abs(_u(pooled[: len(base)], pooled[len(base) :]) - centre) >= observed:
            hits += 1
    assert mann_whitney_p(base, new) == pytest.approx(hits / draws, abs=0.02)


def test_midranks_share_tied_ranks() -> None:
    ranks, ties = midranks([5.0, 1.0, 5.0, 3.0])
    assert ranks == [3.5, 1.0, 3.5, 2.0]
    assert sorted(ties) == [1, 1, 2]


def test_holm_and_benjamini_hochberg_by_hand() -> None:
    p = [0.01, 0.04, 0.03, 0.2, 0.001]
    # Holm: sorted 0.001*5, 0.01*4, 0.03*3, 0.04*2 (raised to the running max 0.09), 0.2*1.
    assert adjust(p, "holm") == pytest.approx([0.04, 0.09, 0.09, 0.2, 0.005])
    # BH: p_(i) * m / i, then the running minimum from the largest down.
    assert adjust(p, "bh") == pytest.approx([0.025, 0.05, 0.05, 0.2, 0.005])
    assert adjust(p, "none") == p
    assert adjust([], "holm") == []
    assert adjust([0.6, 0.7], "holm") == [1.0, 1.0]
