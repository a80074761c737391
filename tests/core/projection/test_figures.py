"""Arithmetic and origin figure sets (§6.1, §6.2)."""

from __future__ import annotations

from typing import Any

from perfline.core.projection.figure_arithmetic import combine
from perfline.core.projection.origin_shapes import OriginShapes, origin_figures


def _m(value: Any, **extra: Any) -> dict[str, Any]:
    return {"name": "op_cycles", "unit": "cycles", "value": value, **extra}


def _fig(*metrics: dict[str, Any], qualifiers: dict[str, Any] | None = None) -> Any:
    breakdown: dict[str, Any] = {"entity_id": "x", "metrics": list(metrics)}
    if qualifiers:
        breakdown["qualifiers"] = qualifiers
    figures = origin_figures([breakdown])
    assert figures is not None
    return figures


def _values(figures: Any) -> list[Any]:
    return [m["value"] for g in figures.groups for m in g.metrics]


def test_int_sums_stay_int_and_floats_make_floats() -> None:
    ints = combine([_fig(_m(2, aggregation="sum")), _fig(_m(3, aggregation="sum"))])
    assert ints is not None and _values(ints) == [5] and isinstance(_values(ints)[0], int)
    mixed = combine([_fig(_m(2, aggregation="sum")), _fig(_m(3.0, aggregation="sum"))])
    assert mixed is not None and _values(mixed) == [5.0] and isinstance(_values(mixed)[0], float)


def test_only_common_explicit_sum_metrics_survive() -> None:
    a = _fig(
        _m(2, aggregation="sum"), {"name": "peak", "unit": "B", "value": 4, "aggregation": "max"}
    )
    b = _fig(
        _m(3, aggregation="sum"), {"name": "peak", "unit": "B", "value": 5, "aggregation": "max"}
    )
    total = combine([a, b])
    assert total is not None
    assert [m for g in total.groups for m in g.metrics] == [
        {"name": "op_cycles", "unit": "cycles", "value": 5, "aggregation": "sum"}
    ]
    assert combine([_fig(_m(2, aggregation="max")), _fig(_m(3, aggregation="max"))]) is None


def test_samples_are_summed_only_when_all_present() -> None:
    a = _fig(_m(2, aggregation="sum", samples=3))
    b = _fig(_m(3, aggregation="sum", samples=4))
    total = combine([a, b])
    assert total is not None
    assert [m.get("samples") for g in total.groups for m in g.metrics] == [7]
    assert combine([a, _fig(_m(3, aggregation="sum"))]) is None


def test_qualifier_groups_must_be_in_every_part() -> None:
    a = _fig(_m(2, aggregation="sum"), qualifiers={"phase": "after"})
    b = _fig(_m(3, aggregation="sum"))
    assert combine([a, b]) is None


def test_conflicting_breakdowns_make_an_origin_unusable() -> None:
    assert origin_figures([{"entity_id": "x", "metrics": []}]) is None
    assert (
        origin_figures(
            [{"entity_id": "x", "metrics": [_m(2)]}, {"entity_id": "x", "metrics": [_m(3)]}]
        )
        is None
    )
    assert origin_figures([{"entity_id": "x", "metrics": [_m(2), _m(2.0)]}]) is None
    same = origin_figures(
        [{"entity_id": "x", "metrics": [_m(2)]}, {"entity_id": "x", "metrics": [_m(2)]}]
    )
    assert same is not None and _values(same) == [2]


def test_figure_keys_distinguish_int_and_float() -> None:
    assert _fig(_m(5)).key != _fig(_m(5.0)).key


def test_plain_and_sampled_sums_follow_the_same_arithmetic() -> None:
    """Sums start from integer 0 and add in part order, with or without samples
    (plain groups take a positional path): -0.0 parts give 0.0, an overflow to
    infinity drops the metric, and the key is the text of what was summed."""
    for extra in ({}, {"samples": 1}):
        zeros = combine([_fig(_m(-0.0, aggregation="sum", **extra))] * 2)
        assert zeros is not None and repr(_values(zeros)[0]) == "0.0"
        assert zeros.key.count('"value":0.0}') == 1
        single = combine([_fig(_m(-0.0, aggregation="sum", **extra))])
        assert single is not None and repr(_values(single)[0]) == "0.0"
        huge = _fig(_m(1e308, aggregation="sum", **extra), _m(1, name="b", aggregation="sum"))
        total = combine([huge, huge])
        assert total is not None and [m["name"] for m in total.groups[0].metrics] == ["b"]


def _plain(name: str, value: Any, aggregation: str = "sum", unit: str = "cycles") -> Any:
    return {"name": name, "unit": unit, "value": value, "aggregation": aggregation}


def _shape_of(figures: Any) -> tuple[Any, ...]:
    """Everything a figure set carries, comparable (metric dicts by identity; the
    metric texts are compared through the key written from them)."""
    return (
        figures.key,
        figures.exact,
        tuple(figures.by_qualifier),
        [
            (
                g.qualifier_key,
                dict(g.qualifiers),
                [id(metric) for metric in g.metrics],
                [(identity, id(metric)) for identity, metric in g.addends.items()],
                g.addend_order,
                g.addend_prefixes,
                g.plain,
            )
            for g in figures.groups
        ],
    )


def test_plain_breakdowns_reuse_their_shape_and_give_the_general_figure_set() -> None:
    # one OriginShapes across calls, as find_authority uses it: the first call
    # learns a shape, later ones read only values; a change of shape is relearned
    shapes = OriginShapes()
    lists = [
        [_plain("z", 3), _plain("a", 2.5), _plain("m", 7, "max")],
        [_plain("z", -1), _plain("a", 2**60), _plain("m", 0.1, "max")],
        [_plain("a", 1), _plain("z", 2)],  # another order: another shape
        [_plain("a", 1.0e300), _plain("z", -0.0)],
        [_plain("a", 1), _plain("z", 2, unit="B")],  # another unit
        [_plain("a", 1), _plain("z", 2, "mean")],  # another aggregation
    ]
    for metrics in lists:
        fast = shapes.plain_figures(metrics)
        general = origin_figures([{"entity_id": "x", "metrics": metrics}])
        assert fast is not None and general is not None
        assert _shape_of(fast) == _shape_of(general)


def test_breakdowns_that_are_not_plain_take_the_general_path() -> None:
    shapes = OriginShapes()
    assert shapes.plain_figures([_plain("a", 1), _plain("z", 2)]) is not None
    not_plain = [
        [_plain("a", float("nan")), _plain("z", 2)],  # not finite
        [_plain("a", True), _plain("z", 2)],  # a bool is no number here
        [{"unit": "cycles", "name": "a", "value": 1, "aggregation": "sum"}, _plain("z", 2)],
        [_plain("a", 1), _plain("a", 2)],  # one identity twice
        [_plain("a", 1), {**_plain("z", 2), "samples": 3}],
        [_plain("a", 1), _plain("z", 2, "")],
    ]
    for metrics in not_plain:
        assert shapes.plain_figures(metrics) is None
