"""Which metric a source line shows, its value, and the model total it is a share of.

Decides, per result, the *dominant* metric (the configured one, else total or
operator cycles for estimates, else a p50/median latency, else any latency in
ms, else the first metric found on a code line) and the model total (a
model-level metric, else the sum over the top-most non-view entities). How the
figures are written is ``core.figure_text``. Pure functions over plain dicts;
linear in the size of a result. Used by the line index (``server.line_index``)
and the view layer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core.graph import build_graph

#: Kinds that are views of other entities (never counted towards a model total).
VIEW_KINDS = frozenset({"code_line", "code_stack", "nn_module", "model"})

_PREFERRED_NAMES = ("total_cycles", "op_cycles", "cycles", "npu_cycles", "macs")
_STAT = re.compile(r"(?:^|_)(p\d{1,2}|median|avg|mean|min|max)$")
#: Aggregations that make a figure a percentile of its samples.
_PERCENTILE = re.compile(r"p\d{1,2}|median")


@dataclass(frozen=True)
class MetricKey:
    """Metric identity used for figures: name and unit."""

    name: str
    unit: str


def numeric(metric: Mapping[str, Any]) -> float | None:
    """The metric's value if it is a finite number (booleans excluded)."""
    value = metric.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def statistic_of(metric: Mapping[str, Any]) -> str | None:
    """``p50``, ``median``, ``avg``... when the metric is a statistic of samples."""
    qualifiers = metric.get("qualifiers")
    if isinstance(qualifiers, Mapping):
        for key in ("statistic", "stat", "percentile", "aggregate"):
            value = qualifiers.get(key)
            if isinstance(value, str) and value:
                return value
    aggregation = metric.get("aggregation")
    if isinstance(aggregation, str) and _STAT.search("_" + aggregation):
        return aggregation
    match = _STAT.search(str(metric.get("name", "")))
    return match.group(1) if match else None


def choose_metric(
    lines: Iterable[Iterable[Mapping[str, Any]]], configured: str | None = None
) -> MetricKey | None:
    """The dominant metric of a result, given the metrics of each of its code lines.

    The configured metric if any line has it; else the metric present on the most
    lines, ties broken by preference: cycles, then MACs (static cost), then a p50/median
    time, then any time, then first seen. Cost: a few dictionary operations per metric
    (identities are plain tuples here; a ``MetricKey`` is made for the answer only).
    """
    coverage: dict[tuple[str, str], int] = {}
    stats: dict[tuple[str, str], str | None] = {}  # in first-seen order
    last_line: dict[tuple[str, str], int] = {}
    for number, metrics in enumerate(lines):
        for metric in metrics:
            value: Any = metric.get("value")
            kind = type(value)
            if kind is int or kind is float:
                if not math.isfinite(value):  # as ``numeric``, which an exotic value takes
                    continue
            elif numeric(metric) is None:
                continue
            name = metric.get("name", "")
            unit = metric.get("unit", "")
            key = (
                name if type(name) is str else str(name),
                unit if type(unit) is str else str(unit),
            )
            if last_line.get(key) == number:
                continue  # counted on this line already
            last_line[key] = number
            if key in stats:
                coverage[key] += 1
            else:
                stats[key] = statistic_of(metric)
                coverage[key] = 1
    if not stats:
        return None
    order = list(stats)
    if configured:
        for name, unit in order:
            if name == configured:
                return MetricKey(name, unit)

    def rank(key: tuple[str, str]) -> tuple[int, int, int]:
        name, unit = key
        if name in _PREFERRED_NAMES:
            preference = _PREFERRED_NAMES.index(name)
        elif unit in ("ms", "us", "s") and stats[key] in ("p50", "median"):
            preference = 10
        elif unit in ("ms", "us", "s") and stats[key] in ("avg", "mean", None):
            preference = 11
        elif unit in ("ms", "us", "s"):
            preference = 12
        else:
            preference = 20
        return (-coverage[key], preference, order.index(key))

    return MetricKey(*min(order, key=rank))


def value_of(
    metrics: Iterable[Mapping[str, Any]], key: MetricKey
) -> tuple[float | None, str | None]:
    """The (value, statistic) of ``key`` among ``metrics`` (summing equal-identity copies once)."""
    for metric in metrics:
        if _holds(metric, key):
            return numeric(metric), statistic_of(metric)
    return None, None


def runs_summarised(metrics: Iterable[Mapping[str, Any]], key: MetricKey) -> int | None:
    """How many runs the figure ``value_of`` reads summarises, when it is a percentile over
    runs (``perfline batch``'s aggregate: its ``aggregation`` names the percentile, ``p50``
    or ``median``, and ``samples`` counts the runs); ``None`` otherwise."""
    for metric in metrics:
        if _holds(metric, key):
            aggregation = metric.get("aggregation")
            samples = metric.get("samples")
            if (
                isinstance(aggregation, str)
                and _PERCENTILE.fullmatch(aggregation)
                and type(samples) is int
            ):
                return samples
            return None
    return None


def position_of(metrics: Iterable[Mapping[str, Any]], key: MetricKey) -> int:
    """Where in ``metrics`` the metric ``value_of`` reads is (-1: none)."""
    for position, metric in enumerate(metrics):
        if _holds(metric, key):
            return position
    return -1


def _holds(metric: Mapping[str, Any], key: MetricKey) -> bool:
    """Whether ``metric`` is a number of ``key``'s identity (the one ``value_of`` reads)."""
    return (
        metric.get("name") == key.name
        and metric.get("unit") == key.unit
        and numeric(metric) is not None
    )


def model_total(
    result: Mapping[str, Any],
    key: MetricKey,
    *,
    entities: Mapping[str, Mapping[str, Any]] | None = None,
    children: Mapping[str, Sequence[str]] | None = None,
) -> float | None:
    """What a line's figure is a share of.

    A model-level metric of the same name and unit if the result has one
    (``result_total``); else the sum over the top-most non-view entities carrying that
    metric (``carried_figures``, ``top_most_total``: an entity whose ancestor also
    carries it is not counted again). ``entities`` (the result's entities by id) and
    ``children`` save rebuilding them when the caller has them.
    """
    own = result_total(result, key)
    if own is not None:
        return own
    if entities is None:
        entities = {
            e["id"]: e
            for e in result.get("entities") or ()
            if isinstance(e, Mapping) and isinstance(e.get("id"), str)
        }
    carriers: list[tuple[str, Sequence[Mapping[str, Any]]]] = []
    for breakdown in result.get("breakdowns") or ():
        if type(breakdown) is not dict and not isinstance(breakdown, Mapping):
            continue
        entity_id = breakdown.get("entity_id")
        entity = entities.get(entity_id) if type(entity_id) is str else None
        if entity is None or entity.get("kind") in VIEW_KINDS:
            continue
        carriers.append((entity["id"], breakdown.get("metrics") or ()))
    if children is None:
        children = build_graph(list(entities.values())).children
    return top_most_total(carried_figures(carriers, key), children)


def result_total(result: Mapping[str, Any], key: MetricKey) -> float | None:
    """The result's own (model-level) positive figure of ``key``, if it has one."""
    for metric in result.get("metrics") or ():
        if (
            isinstance(metric, Mapping)
            and metric.get("name") == key.name
            and metric.get("unit") == key.unit
        ):
            value = numeric(metric)
            if value is not None and value > 0:
                return value
    return None


def carried_figures(
    breakdowns: Iterable[tuple[str, Iterable[Mapping[str, Any]]]], key: MetricKey
) -> dict[str, float]:
    """Entity id -> its figure of ``key``, over (entity id, metrics) of non-view breakdowns:
    each breakdown's first numeric metric of that identity, the breakdowns of one entity
    added in order (``value_of`` without the statistic: this runs over every breakdown)."""
    carrying: dict[str, float] = {}
    name, unit = key.name, key.unit
    for entity_id, metrics in breakdowns:
        for metric in metrics:
            if metric.get("name") == name and metric.get("unit") == unit:
                value = numeric(metric)
                if value is not None:
                    carrying[entity_id] = carrying.get(entity_id, 0.0) + value
                    break
    return carrying


def top_most_total(
    carrying: Mapping[str, float], children: Mapping[str, Sequence[str]]
) -> float | None:
    """The sum of ``carrying``'s figures over the entities no other carrier is above (one walk
    down from the carriers marks those below one); None when it is not positive."""
    if not carrying:
        return None
    below = entities_below(carrying, children)
    return positive_sum(value for entity_id, value in carrying.items() if entity_id not in below)


def entities_below(starts: Iterable[str], children: Mapping[str, Sequence[str]]) -> set[str]:
    """Every entity reachable downwards from ``starts`` by at least one edge."""
    below: set[str] = set()
    stack = [c for entity_id in starts for c in children.get(entity_id, ())]
    while stack:
        current = stack.pop()
        if current not in below:
            below.add(current)
            stack.extend(children.get(current, ()))
    return below


def positive_sum(values: Iterable[float]) -> float | None:
    """The sum of ``values`` (in their order), or None when it is not positive."""
    total = sum(values)
    return total if total > 0 else None


def ancestors(parents: Mapping[str, Iterable[str]], starts: Iterable[str]) -> Iterator[str]:
    """Every entity reachable upwards from ``starts`` (included), each once."""
    stack = list(starts)
    seen: set[str] = set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        yield current
        stack.extend(parents.get(current, ()))
