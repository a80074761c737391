"""Covers in closed form never claim slots that do not cover the target."""

from __future__ import annotations

from perfline.core.projection.closed_covers import closed_cover
from perfline.core.projection.derivations import all_derivations, covers
from perfline.core.projection.scopes import Goal
from tests.support.projection_builders import faithful_contributor, origin_sums


def test_partial_slots_beside_a_copy_are_no_cover() -> None:
    """A and B cover two of the three required units; C covers all of them and
    holds A's and B's origins. C is a copy, and no cover of >= 2 members exists
    (A and B leave unit 12 uncovered and C overlaps both)."""
    sums = origin_sums(range(4))
    a = faithful_contributor(sums, {1}, {10})
    b = faithful_contributor(sums, {2}, {11})
    c = faithful_contributor(sums, {1, 2, 3}, {10, 11, 12})
    required = frozenset({10, 11, 12})
    found = closed_cover([a, b, c], Goal(required, frozenset(), sums))
    assert found is not None and not (found.sealed or found.unsealed)
    assert covers([a, b, c], Goal(required, frozenset(), sums), need_extra=False) == []
    recipes = all_derivations([a, b, c], Goal(required, frozenset(), sums))
    assert [record.origins for record in recipes] == [frozenset({1, 2, 3})]


def test_disjoint_slots_that_cover_the_target_are_its_cover() -> None:
    sums = origin_sums(range(4))
    a = faithful_contributor(sums, {1}, {10})
    b = faithful_contributor(sums, {2}, {11, 12})
    found = covers([a, b], Goal(frozenset({10, 11, 12}), frozenset(), sums), need_extra=False)
    assert [d.record.origins for d in found] == [frozenset({1, 2})]
    total = sums.total(frozenset({1, 2}))
    assert total is not None and found[0].record.figures.key == total.key
