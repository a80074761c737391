"""Covers in closed form never claim slots that do not cover the target."""

from __future__ import annotations

from perfline.core.projection.closed_covers import closed_cover
from perfline.core.projection.contributors import Contributor
from perfline.core.projection.derivations import all_derivations, covers
from perfline.core.projection.figures import OriginSums, origin_figures


def _sums(count: int) -> OriginSums:
    figures = {}
    for origin in range(count):
        metric = {"name": "op_cycles", "unit": "cycles", "value": origin + 1, "aggregation": "sum"}
        made = origin_figures([{"entity_id": str(origin), "metrics": [metric]}])
        assert made is not None
        figures[origin] = made
    return OriginSums(figures)


def _contributor(sums: OriginSums, origins: set[int], covered: set[int]) -> Contributor:
    figures = sums.total(frozenset(origins))
    assert figures is not None
    return Contributor(figures, frozenset(origins), False, True, frozenset(covered), frozenset())


def test_partial_slots_beside_a_copy_are_no_cover() -> None:
    """A and B cover two of the three required units; C covers all of them and
    holds A's and B's origins. C is a copy, and no cover of >= 2 members exists
    (A and B leave unit 12 uncovered and C overlaps both)."""
    sums = _sums(4)
    a = _contributor(sums, {1}, {10})
    b = _contributor(sums, {2}, {11})
    c = _contributor(sums, {1, 2, 3}, {10, 11, 12})
    required = frozenset({10, 11, 12})
    found = closed_cover([a, b, c], required, frozenset(), sums)
    assert found is not None and not (found.sealed or found.unsealed)
    assert covers([a, b, c], required, frozenset(), False, sums) == []
    recipes = all_derivations([a, b, c], required, frozenset(), sums)
    assert [record.origins for record in recipes] == [frozenset({1, 2, 3})]


def test_disjoint_slots_that_cover_the_target_are_its_cover() -> None:
    sums = _sums(4)
    a = _contributor(sums, {1}, {10})
    b = _contributor(sums, {2}, {11, 12})
    found = covers([a, b], frozenset({10, 11, 12}), frozenset(), False, sums)
    assert [d.record.origins for d in found] == [frozenset({1, 2})]
    total = sums.total(frozenset({1, 2}))
    assert total is not None and found[0].record.figures.key == total.key
