"""The figures of the HTML report: which metric dominates a result, its model total, and labels.

The rules are the editor's and the CLI's, not restated here: the dominant metric comes from
``core.dominant_metric`` (the configured metric if a code line carries it; else the metric on
the most code lines, ties broken by cycles, MACs, a p50/median time, any other time, first
seen) and every number is written by ``core.figure_text``. This module adds what the report
needs beside them: a ``Metric`` that carries its statistic, and the model total from the
figures and the child adjacency the report's index already holds. Labels read
``9.63 ms avg · 81%`` / ``1.8k cycles · 13%``. Pure; linear in the size of a result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core import dominant_metric, figure_text
from perfline.core.dominant_metric import VIEW_KINDS, numeric, statistic_of
from perfline.core.figure_text import compact, format_share, format_value

__all__ = [
    "VIEW_KINDS",
    "Metric",
    "choose_metric",
    "compact",
    "format_share",
    "format_value",
    "label",
    "model_total",
    "numeric",
    "statistic_of",
    "value_in",
]


@dataclass(frozen=True)
class Metric:
    """The identity of a figure: metric name and unit, plus the statistic it is (if any)."""

    name: str
    unit: str
    statistic: str | None = None


def choose_metric(
    line_metrics: Iterable[Iterable[Mapping[str, Any]]], configured: str | None = None
) -> Metric | None:
    """The dominant metric (``dominant_metric.choose_metric``), given the metric lists of a
    result's code lines, with the statistic of its first numeric occurrence."""
    lists = [list(metrics) for metrics in line_metrics]
    key = dominant_metric.choose_metric(lists, configured)
    if key is None:
        return None
    for metrics in lists:
        value, stat = dominant_metric.value_of(metrics, key)
        if value is not None:
            return Metric(key.name, key.unit, stat)
    return Metric(key.name, key.unit)


def value_in(metrics: Iterable[Mapping[str, Any]], metric: Metric) -> float | None:
    """The value of ``metric`` in a metric list (its first numeric occurrence)."""
    return dominant_metric.value_of(metrics, dominant_metric.MetricKey(metric.name, metric.unit))[0]


def model_total(
    result: Mapping[str, Any],
    metric: Metric,
    kinds: Mapping[str, str],
    values: Mapping[str, float],
    children: Mapping[str, Sequence[str]],
) -> float | None:
    """What shares are of, by the rule of ``dominant_metric.model_total`` (the result's own
    metric, else the top-most non-view carriers), from the figures already indexed:
    ``kinds`` maps entity ids to kinds, ``values`` entity ids to their figure of ``metric``
    and ``children`` is the entity graph's child adjacency."""
    own_metrics = result.get("metrics")
    own = value_in(own_metrics if isinstance(own_metrics, list) else (), metric)
    if own is not None and own > 0:
        return own
    carriers = {e: v for e, v in values.items() if kinds.get(e) not in VIEW_KINDS}
    return dominant_metric.top_most_total(carriers, children)


def label(
    value: float,
    metric: Metric,
    total: float | None,
    change: str = "",
    metrics: Iterable[Mapping[str, Any]] = (),
) -> str:
    """The line label: value, statistic, share (``9.63 ms avg · 81%``); with its change
    against a baseline (``figure_text.format_change``) as the editor's hint writes it:
    ``9.63 ms avg ▲12% · 81%``; given the line's ``metrics``, the run count of a figure that
    is a percentile over runs, as the editor writes it (``9.23 ms p50 n=61 · 81%``)."""
    runs = dominant_metric.runs_summarised(
        metrics, dominant_metric.MetricKey(metric.name, metric.unit)
    )
    return figure_text.label(value, metric, metric.statistic, total, runs=runs, change=change)
