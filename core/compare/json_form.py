"""The JSON form of a comparison (``perfline compare --json``).

Shape (``docs/results.md`` has the field list)::

    {"perfline_compare": 1, "base": ..., "new": ..., "settings": {...},
     "warnings": [...],
     "results": [{"base_result", "new_result", "kind", "producer", "mode",
                  "overlap": {"common", "base", "new"}, "counts": {kind: {...}},
                  "model": [metric...], "model_wide": [estimate...],
                  "entities": [entity...]}]}

A model-wide estimate (``model_wide``, per metric lines are judged by): ``metric``,
``lines``, ``factor`` (the median line ratio new / base), ``low`` and ``high`` (its
order-statistic interval), ``coverage``, ``spread`` (the lines' scatter, a standard
deviation of their log ratios) and ``changed`` (the interval excludes 1); the numbers are
absent with fewer than ``model_wide.MIN_LINES`` lines.

An entity: ``kind``, ``name``, ``status``, ``base_id``, ``new_id``, and for
code lines ``file``, ``base_line``, ``new_line``, and for a call line ``calls``
(``[{"file", "line"}]``: the lines it calls; its figures include theirs);
``metrics``: ``name``, ``qualifiers`` (when identifying ones exist), ``unit``,
``base``, ``new``, ``delta``, ``ratio``, ``method``, ``verdict``,
``significant``, ``explained_by_calls`` (``true`` on a call line's metric
whose change the lines it calls account for: not judged, see
``inclusive``) and, for sampled figures, ``p_value``, ``p_adjusted``,
``base_runs``, ``new_runs``.
Absent values are omitted. ``changes_only`` keeps entities with at least one
metric whose verdict is not ``unchanged``.

Cost: linear in the comparison.
"""

from __future__ import annotations

import json
from typing import Any, Final

from perfline.core.collection import collection_paused
from perfline.core.compare.comparison import Comparison, ResultComparison
from perfline.core.compare.deltas import UNCHANGED, EntityDelta, MetricDelta
from perfline.core.compare.model_wide import judged_rows, model_wide_estimate
from perfline.core.compare.selection import line_metrics

FORMAT_VERSION: Final = 1


def comparison_json(comparison: Comparison, *, changes_only: bool = False) -> dict[str, Any]:
    """The comparison as a JSON-ready dict (the cyclic collector paused: no cycles made)."""
    with collection_paused():
        return _comparison(comparison, changes_only)


def _comparison(comparison: Comparison, changes_only: bool) -> dict[str, Any]:
    settings = comparison.settings
    return {
        "perfline_compare": FORMAT_VERSION,
        "base": comparison.base_source,
        "new": comparison.new_source,
        "settings": {
            "level": settings.level,
            "correction": settings.correction,
            "estimate_threshold": settings.estimate_threshold,
        },
        "warnings": list(comparison.warnings),
        "results": [_result(result, changes_only) for result in comparison.results],
    }


def _result(result: ResultComparison, changes_only: bool) -> dict[str, Any]:
    common, base, new = result.overlap
    entities = result.entities
    if changes_only:
        entities = [e for e in entities if any(m.verdict != UNCHANGED for m in e.metrics)]
    return {
        "base_result": result.base_index,
        "new_result": result.new_index,
        "kind": result.kind,
        "producer": result.producer,
        "mode": result.mode,
        "overlap": {"common": common, "base": base, "new": new},
        "counts": result.counts,
        "model": [metric_json(m) for m in result.model.metrics],
        "model_wide": [model_wide_json(result, metric) for metric in line_metrics(result)],
        "entities": [entity_json(e) for e in entities],
    }


def model_wide_json(result: ResultComparison, metric: str) -> dict[str, Any]:
    """The model-wide estimate of one metric (``model_wide``) as JSON."""
    found = model_wide_estimate(result, metric, judged_rows(result, metric))
    output: dict[str, Any] = {"metric": found.metric, "lines": found.lines}
    for key, value in (
        ("factor", found.factor),
        ("low", found.low),
        ("high", found.high),
        ("coverage", found.coverage),
        ("spread", found.spread),
    ):
        if value is not None:
            output[key] = value
    output["changed"] = found.changed
    return output


def entity_json(entity: EntityDelta) -> dict[str, Any]:
    """One entity delta as JSON."""
    output: dict[str, Any] = {
        "kind": entity.kind,
        "name": entity.name,
        "status": entity.status,
    }
    for key, value in (
        ("base_id", entity.base_id),
        ("new_id", entity.new_id),
        ("file", entity.file),
        ("base_line", entity.base_line),
        ("new_line", entity.new_line),
    ):
        if value is not None:
            output[key] = value
    if entity.calls:
        output["calls"] = [{"file": file, "line": line} for file, line in entity.calls]
    output["metrics"] = [metric_json(m) for m in entity.metrics]
    return output


def metric_json(delta: MetricDelta) -> dict[str, Any]:
    """One metric delta as JSON."""
    output: dict[str, Any] = {"name": delta.name}
    if delta.qualifiers:
        output["qualifiers"] = json.loads(delta.qualifiers)
    output["unit"] = delta.unit
    for key, value in (
        ("base", delta.base),
        ("new", delta.new),
        ("delta", delta.delta),
        ("ratio", delta.ratio),
    ):
        if value is not None:
            output[key] = value
    output["method"] = delta.method
    output["verdict"] = delta.verdict
    output["significant"] = delta.significant
    if delta.explained:
        output["explained_by_calls"] = True
    if delta.p_value is not None:
        output["p_value"] = delta.p_value
        output["p_adjusted"] = delta.p_adjusted
        output["base_runs"] = delta.base_runs
        output["new_runs"] = delta.new_runs
    return output
