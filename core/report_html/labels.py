"""The figures of the HTML report: which metric dominates a result, its model total, and labels.

The rules are the editor's (``perfline.server.figures``; core cannot import the server, so they
are stated again here, and ``tests/html/test_labels.py`` holds both to the same answers): the
configured metric if a code line carries it; else the metric on the most code lines, ties broken
by cycles, then a p50/median time, then any other time, then first seen. A line's share is of the
result-level metric of the same name and unit, else of the sum over the top-most non-view
entities that carry the metric. Labels read ``9.63 ms avg · 81%`` / ``1.8k cycles · 13%``.
Pure; linear in the size of a result.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Kinds that are views of other entities: never counted towards a model total.
VIEW_KINDS = frozenset({"code_line", "code_stack", "nn_module", "model"})

_PREFERRED = ("total_cycles", "op_cycles", "cycles", "npu_cycles")
_TIME_UNITS = ("ms", "us", "s")
_STATISTIC = re.compile(r"(?:^|_)(p\d{1,2}|median|avg|mean|min|max)$")


@dataclass(frozen=True)
class Metric:
    """The identity of a figure: metric name and unit, plus the statistic it is (if any)."""

    name: str
    unit: str
    statistic: str | None = None


def number(metric: Mapping[str, Any]) -> float | None:
    """The metric's value when it is a finite number (booleans are not numbers here)."""
    value = metric.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def statistic(metric: Mapping[str, Any]) -> str | None:
    """``p50``, ``avg``, ... when the metric is a statistic of samples (qualifier, then name)."""
    qualifiers = metric.get("qualifiers")
    if isinstance(qualifiers, Mapping):
        for key in ("statistic", "stat", "percentile", "aggregate"):
            value = qualifiers.get(key)
            if isinstance(value, str) and value:
                return value
    aggregation = metric.get("aggregation")
    if isinstance(aggregation, str) and _STATISTIC.search("_" + aggregation):
        return aggregation
    found = _STATISTIC.search(str(metric.get("name", "")))
    return found.group(1) if found else None


def _preference(name: str, unit: str, stat: str | None) -> int:
    if name in _PREFERRED:
        return _PREFERRED.index(name)
    if unit in _TIME_UNITS:
        if stat in ("p50", "median"):
            return 10
        return 11 if stat in ("avg", "mean", None) else 12
    return 20


def choose_metric(
    line_metrics: Iterable[Iterable[Mapping[str, Any]]], configured: str | None = None
) -> Metric | None:
    """The dominant metric, given the metric lists of a result's code lines."""
    coverage: dict[tuple[str, str], int] = {}
    stats: dict[tuple[str, str], str | None] = {}
    for metrics in line_metrics:
        here: set[tuple[str, str]] = set()
        for metric in metrics:
            if number(metric) is None:
                continue
            key = (str(metric.get("name", "")), str(metric.get("unit", "")))
            if key not in stats:
                stats[key] = statistic(metric)
            here.add(key)
        for key in here:
            coverage[key] = coverage.get(key, 0) + 1
    if not stats:
        return None
    order = list(stats)
    chosen: tuple[str, str] | None = None
    if configured:
        chosen = next((key for key in order if key[0] == configured), None)
    if chosen is None:
        chosen = min(
            order,
            key=lambda k: (-coverage[k], _preference(k[0], k[1], stats[k]), order.index(k)),
        )
    return Metric(chosen[0], chosen[1], stats[chosen])


def value_in(metrics: Iterable[Mapping[str, Any]], metric: Metric) -> float | None:
    """The value of ``metric`` in a metric list (its first numeric occurrence)."""
    for item in metrics:
        if item.get("name") == metric.name and item.get("unit") == metric.unit:
            value = number(item)
            if value is not None:
                return value
    return None


def model_total(
    result: Mapping[str, Any],
    metric: Metric,
    kinds: Mapping[str, str],
    values: Mapping[str, float],
    children: Mapping[str, Sequence[str]],
) -> float | None:
    """What shares are of: the result's own metric, else the top-most non-view carriers.

    ``kinds`` maps entity ids to kinds, ``values`` entity ids to their figure of ``metric``
    and ``children`` is the entity graph's child adjacency.
    """
    own = value_in(_mappings(result.get("metrics")), metric)
    if own is not None and own > 0:
        return own
    carriers = {e: v for e, v in values.items() if kinds.get(e) not in VIEW_KINDS}
    if not carriers:
        return None
    below: set[str] = set()
    stack = [child for entity in carriers for child in children.get(entity, ())]
    while stack:
        current = stack.pop()
        if current not in below:
            below.add(current)
            stack.extend(children.get(current, ()))
    total = sum(v for e, v in carriers.items() if e not in below)
    return total if total > 0 else None


def _mappings(value: object) -> list[Mapping[str, Any]]:
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, Mapping)]


def compact(value: float) -> str:
    """At most about four characters with an SI suffix: ``950``, ``1.8k``, ``12k``, ``3.4M``."""
    magnitude = abs(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if magnitude >= limit:
            scaled = value / limit
            return (f"{scaled:.1f}" if abs(scaled) < 10 else f"{scaled:.0f}") + suffix
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.3g}"


def format_value(value: float, unit: str) -> str:
    """``0.42 ms``, ``9.63 ms``, ``1.8k cycles``, ``12 bytes``."""
    if unit not in _TIME_UNITS:
        return f"{compact(value)} {unit}".rstrip()
    magnitude = abs(value)
    if value == 0:
        text = "0"
    elif magnitude >= 100:
        text = f"{value:.0f}"
    elif magnitude >= 10:
        text = f"{value:.1f}"
    elif magnitude >= 0.01:
        text = f"{value:.2f}"
    else:
        text = f"{value:.2g}"
    return f"{text} {unit}"


def format_share(value: float, total: float | None) -> str | None:
    """``81%``, ``<1%``; ``None`` without a positive total."""
    if total is None or total <= 0:
        return None
    share = 100.0 * value / total
    if 0 < share < 1:
        return "<1%"
    return f"{share:.0f}%"


def label(value: float, metric: Metric, total: float | None) -> str:
    """The line label: value, statistic, share (``9.63 ms avg · 81%``)."""
    text = format_value(value, metric.unit)
    if metric.statistic:
        text += f" {metric.statistic}"
    share = format_share(value, total)
    return f"{text} · {share}" if share else text
