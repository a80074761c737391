"""What a line's figure or change is a share of: the model's total of the metric in the
baseline or the new run, and a line's typical figure, both robust to a preempted run.

The model's total is the editor's (``dominant_metric.model_total``: the result's own figure of
that name and unit, else the sum over the top-most non-view entities carrying it), but where
every such entity has per-run values, the sum of their medians: a run slowed by another process
adds to a mean, not to a median (and under load every run's sum holds some such delay, so not
the median of the runs' sums either). A line's typical figure is likewise the median of its
runs, else its figure: the share is of typical costs on both sides. The CI gate uses
both for its floor (a line's own change must exceed ``--min-share`` of the model) and for
lines only the new run has.

Computed once per (metric, unit, run) of a result pair and kept on the ``ResultComparison``.
Cost: linear in the result's entities and breakdowns, plus the carriers' runs, per metric.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any, Literal

from perfline.core.compare.comparison import ResultComparison
from perfline.core.compare.deltas import EntityDelta, MetricDelta
from perfline.core.compare.run_samples import EntitySamples
from perfline.core.dominant_metric import (
    VIEW_KINDS,
    MetricKey,
    carried_figures,
    entities_below,
    model_total,
    result_total,
)
from perfline.core.graph import build_graph

Side = Literal["base", "new"]


def total(result: ResultComparison, metric: str, unit: str, side: Side) -> float | None:
    """The model's positive total of ``metric`` (in ``unit``) in one run, if it has one."""
    key = (metric, unit, side)
    if key in result.totals:
        return result.totals[key]
    document = result.base_result if side == "base" else result.new_result
    runs = result.base_runs if side == "base" else result.new_runs
    found = None if document is None else _total(document, MetricKey(metric, unit), runs)
    value = found if found is not None and found > 0 else None
    result.totals[key] = value
    return value


def typical(result: ResultComparison, entity: EntityDelta, delta: MetricDelta, side: Side) -> float:
    """The line's figure in one run: the median of its per-run values, else its figure (of
    that run; in its own unit)."""
    runs = result.base_runs if side == "base" else result.new_runs
    entity_id = entity.base_id if side == "base" else entity.new_id
    values = runs.get(entity_id or "", {}).get(delta.name)
    figure = delta.base if side == "base" else delta.new
    if values:
        return statistics.median(values)
    return figure if figure is not None else 0.0


def _total(document: Mapping[str, Any], key: MetricKey, runs: EntitySamples) -> float | None:
    """The sum of the top-most carriers' run medians, else ``model_total``."""
    if not runs or result_total(document, key) is not None:
        return model_total(document, key)
    entities = {
        e["id"]: e
        for e in document.get("entities") or ()
        if isinstance(e, Mapping) and isinstance(e.get("id"), str)
    }
    carriers = [
        (b["entity_id"], b.get("metrics") or ())
        for b in document.get("breakdowns") or ()
        if isinstance(b, Mapping)
        and b.get("entity_id") in entities
        and entities[b["entity_id"]].get("kind") not in VIEW_KINDS
    ]
    carrying = carried_figures(carriers, key)
    children = build_graph(list(entities.values())).children
    below = entities_below(carrying, children)
    top = [entity_id for entity_id in carrying if entity_id not in below]
    columns = [runs.get(entity_id, {}).get(key.name) for entity_id in top]
    present = [column for column in columns if column]
    if not top or len(present) < len(columns):
        return model_total(document, key, entities=entities, children=children)
    return sum(statistics.median(column) for column in present)
