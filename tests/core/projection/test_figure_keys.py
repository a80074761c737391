"""Figure-set keys written field by field are exactly the canonical JSON text."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given, settings, strategies

from perfline.core.document_canonical import METRIC_KEY_ORDER
from perfline.core.projection.figure_arithmetic import combine
from perfline.core.projection.figure_keys import (
    canonical_json,
    figures_key,
    metric_text,
    value_prefix,
    value_text,
)
from perfline.core.projection.figure_sets import FigureSet
from perfline.core.projection.origin_shapes import OriginShapes, origin_figures

_SCALARS = (
    strategies.none()
    | strategies.booleans()
    | strategies.integers(min_value=-(2**70), max_value=2**70)
    | strategies.floats(allow_nan=True, allow_infinity=True)
    | strategies.text(alphabet=strategies.characters(), max_size=12)
)
_VALUES = strategies.recursive(
    _SCALARS,
    lambda inner: (
        strategies.lists(inner, max_size=3)
        | strategies.dictionaries(strategies.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
_KEYS = strategies.sampled_from((*METRIC_KEY_ORDER, "kind", "zeta", "\u00e9"))
_METRICS = strategies.dictionaries(_KEYS, _VALUES, max_size=len(METRIC_KEY_ORDER) + 2)


def _reference(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@settings(max_examples=400, deadline=None)
@given(_VALUES)
@example(-0.0)
@example(float("nan"))
@example(float("-inf"))
@example(1e16)
@example(True)
@example(2**64)
@example('line\nbreak \u2028 "quoted" \x00')
def test_value_text_is_the_json_text(value: Any) -> None:
    assert value_text(value) == _reference(value) == canonical_json(value)


@settings(max_examples=400, deadline=None)
@given(_METRICS)
@example({"name": "op_cycles", "unit": "cycles", "value": 5, "aggregation": "sum"})
@example({"name": "op_cycles", "unit": "cycles", "value": 5.0, "aggregation": "sum"})
@example({"value": True, "samples": 3, "qualifiers": {"b": [1, 2.5], "a": None}})
@example({"name": "x", "extra": 1})
def test_metric_text_is_the_json_text(metric: dict[str, Any]) -> None:
    assert metric_text(metric) == _reference(metric)


_SUM_METRICS = strategies.fixed_dictionaries(
    {
        "name": strategies.text(max_size=8),
        "unit": strategies.text(max_size=8),
        "value": strategies.integers()
        | strategies.floats()
        | strategies.booleans()
        | strategies.none(),
        "aggregation": strategies.sampled_from(("sum", "mean", "max", "\u00b5")),
    }
)


@settings(max_examples=400, deadline=None)
@given(_SUM_METRICS)
@example({"name": "op", "unit": "cycles", "value": -0.0, "aggregation": "sum"})
@example({"name": "op", "unit": "cycles", "value": 1e16, "aggregation": "sum"})
@example({"name": "op", "unit": "cycles", "value": float("inf"), "aggregation": "sum"})
@example({"name": "op", "unit": "cycles", "value": True, "aggregation": "sum"})
@example({"name": 'o"p', "unit": "\u00e9\n", "value": 2**80, "aggregation": "sum"})
def test_summable_metric_text_is_the_json_text(metric: dict[str, Any]) -> None:
    assert metric_text(metric) == _reference(metric)
    prefix = value_prefix(metric)
    if prefix is not None:
        assert prefix + repr(metric["value"]) + "}" == _reference(metric)


@settings(max_examples=200, deadline=None)
@given(strategies.lists(_SUM_METRICS, max_size=6))
def test_value_prefix_memo_changes_nothing(metrics: list[dict[str, Any]]) -> None:
    memo: dict[tuple[str, str, str], str] = {}
    for metric in metrics + metrics:
        assert value_prefix(metric, memo) == value_prefix(metric)


_BREAKDOWNS = strategies.lists(
    strategies.fixed_dictionaries(
        {
            "entity_id": strategies.just("e"),
            "metrics": strategies.lists(_SUM_METRICS | _METRICS, min_size=1, max_size=4),
        },
        optional={
            "qualifiers": strategies.dictionaries(
                strategies.sampled_from("ab"), _SCALARS, max_size=2
            )
        },
    ),
    min_size=1,
    max_size=3,
)


def _payload_key(figures: FigureSet) -> str:
    return _reference(
        [
            {"qualifiers": dict(group.qualifiers), "metrics": list(group.metrics)}
            for group in figures.groups
        ]
    )


def _plain(value: Any, name: str = "op_cycles") -> dict[str, Any]:
    return {"name": name, "unit": "cycles", "value": value, "aggregation": "sum"}


@settings(max_examples=300, deadline=None)
@given(strategies.lists(_BREAKDOWNS, min_size=1, max_size=4))
@example(
    [
        [{"entity_id": "a", "metrics": [_plain(1), _plain(1)]}],
        [{"entity_id": "b", "metrics": [_plain(1), _plain(2)]}],
        [{"entity_id": "c", "metrics": [_plain(3, "z"), _plain(1)]}],
    ]
)
@example(
    [
        [{"entity_id": "a", "metrics": [_plain(1), _plain(2.5, "l1\u00e9")]}],
        [{"entity_id": "b", "metrics": [_plain(2), _plain(0.25, "l1\u00e9")]}],
        [{"entity_id": "c", "metrics": [_plain(2**60), _plain(-0.0, "l1\u00e9")]}],
    ]
)
def test_figure_set_keys_are_the_json_text_of_their_groups(
    origins: list[list[dict[str, Any]]],
) -> None:
    """Origin figure sets and their sums (texts written from the addends' prefixes)
    carry the canonical JSON text of what they hold."""
    shapes = OriginShapes()
    found = [origin_figures(breakdowns, shapes) for breakdowns in origins + origins]
    alone = [origin_figures(breakdowns) for breakdowns in origins + origins]
    assert [f and f.key for f in found] == [f and f.key for f in alone]
    usable = [figures for figures in found if figures is not None]
    for figures in usable:
        assert figures.key == _payload_key(figures)
    if usable:
        total = combine(usable)
        if total is not None:
            assert total.key == _payload_key(total)


@settings(max_examples=200, deadline=None)
@given(
    strategies.lists(
        strategies.tuples(
            strategies.dictionaries(strategies.text(max_size=4), _VALUES, max_size=2),
            strategies.lists(_METRICS, max_size=3),
        ),
        max_size=3,
    )
)
def test_figures_key_is_the_json_text_of_the_groups(
    groups: list[tuple[dict[str, Any], list[dict[str, Any]]]],
) -> None:
    payload = [{"qualifiers": qualifiers, "metrics": metrics} for qualifiers, metrics in groups]
    given_groups = [
        (canonical_json(qualifiers), [metric_text(metric) for metric in metrics])
        for qualifiers, metrics in groups
    ]
    assert figures_key(given_groups) == _reference(payload)
