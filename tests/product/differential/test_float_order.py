"""Rounding-only conflicts are the reference's: its recorded answers on the seeds
where the order of addition decides, and the order rule itself on small pools."""

from __future__ import annotations

import pytest

from perfline.core.projection.contributors import Contributor
from perfline.core.projection.derivations import CONFLICT, resolve
from perfline.core.projection.figure_arithmetic import OriginSums
from perfline.core.projection.float_covers import float_covers
from perfline.core.projection.origin_shapes import origin_figures
from perfline.core.projection.scopes import Goal
from tests.support.deviations import strip_deviations
from tests.support.document_generator import Settings, generate, settings_for
from tests.support.oracle_compare import canonical, run_perfline

from .recorded import (
    FLOAT_NX_CHAINS,
    FLOAT_ORDER_SEEDS,
    RECORDED_NX,
    float_nx_document,
    load_recorded,
)

SUMS = OriginSums({})
"""No usable origins: the pools below are added up from their own figures."""
RECORDED = load_recorded()
RECORDED_NX_OUTPUTS = load_recorded(RECORDED_NX)


def test_every_float_order_seed_is_recorded() -> None:
    assert sorted(RECORDED) == sorted(FLOAT_ORDER_SEEDS)
    assert all(RECORDED[seed]["settings"] == settings_for(seed).label for seed in RECORDED)


@pytest.mark.parametrize("seed", FLOAT_ORDER_SEEDS)
def test_the_reference_answer_on_a_float_order_seed(seed: int) -> None:
    ours = run_perfline(generate(seed), settings_for(seed))
    assert ours.error is None, ours.error
    expected = RECORDED[seed]["output"]
    assert canonical(strip_deviations(ours.output)) == canonical(expected)


@pytest.mark.parametrize("chains", FLOAT_NX_CHAINS)
def test_the_reference_answer_on_a_float_valued_nx_result(chains: int) -> None:
    # the widest targets have far too many covers to list; deciding them stops at the
    # second distinct figure set, as the reference does
    settings = Settings(use_backend_defaults=True)
    ours = run_perfline(float_nx_document(chains), settings)
    assert ours.error is None, ours.error
    expected = RECORDED_NX_OUTPUTS[chains]["output"]
    assert canonical(strip_deviations(ours.output)) == canonical(expected)


def _metric(value: float) -> dict[str, object]:
    return {"name": "time", "unit": "ms", "value": value, "aggregation": "sum"}


def _contributor(
    value: float, origins: set[int], covered: set[int], sealed: bool = False
) -> Contributor:
    figures = origin_figures([{"entity_id": "x", "metrics": [_metric(value)]}])
    assert figures is not None
    return Contributor(figures, frozenset(origins), sealed, True, frozenset(covered), frozenset())


def _values(pool: list[Contributor], required: set[int]) -> list[float]:
    found = float_covers(pool, Goal(frozenset(required), frozenset(), SUMS), need_extra=False)
    return sorted(record.figures.groups[0].metrics[0]["value"] for record, _ in found)


def test_a_cover_is_added_up_in_the_order_its_units_are_reached() -> None:
    a = _contributor(0.1, {10}, {0})
    b = _contributor(0.2, {11}, {1})
    c = _contributor(0.3, {12}, {2})
    assert (0.1 + 0.2) + 0.3 != (0.3 + 0.2) + 0.1
    # one member per unit: units in id order, whatever the pool's order
    assert _values([c, b, a], {0, 1, 2}) == [(0.1 + 0.2) + 0.3]
    # unit 0 has two members (a, or d), units 1 and 2 one each: 1 and 2 come first
    d = _contributor(0.1, {14}, {0, 5})
    assert (0.2 + 0.3) + 0.1 != (0.1 + 0.2) + 0.3
    assert _values([a, b, c, d], {0, 1, 2}) == [(0.2 + 0.3) + 0.1] * 2


def test_rounding_only_difference_between_two_covers_is_a_conflict() -> None:
    # probe P11's shape: the same three origins added up as (a + b) + c in one cover
    # and as a + (b + c) in another
    a = _contributor(0.1, {10}, {0})
    b = _contributor(0.2, {11}, {1})
    c = _contributor(0.3, {12}, {2})
    ab = _contributor(0.1 + 0.2, {10, 11}, {0, 1})
    bc = _contributor(0.2 + 0.3, {11, 12}, {1, 2})
    pool = [a, b, c, ab, bc]
    values = set(_values(pool, {0, 1, 2}))
    assert len(values) == 2  # 0.6000000000000001 and 0.6
    outcome = resolve(pool, Goal(frozenset({0, 1, 2}), frozenset(), SUMS))
    assert outcome is CONFLICT


def test_a_removable_member_makes_no_cover() -> None:
    a = _contributor(0.5, {10}, {0})
    ab = _contributor(0.75, {11}, {0, 1})
    b = _contributor(0.25, {12}, {1})
    goal = Goal(frozenset({0, 1}), frozenset(), SUMS)
    covers = list(float_covers([a, ab, b], goal, need_extra=False))
    # {a, b} is a cover; {a, ab} and {ab, b} are not (a or b can be left out)
    assert [sorted(record.origins) for record, _ in covers] == [[10, 12]]
