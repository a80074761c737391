"""The aggregate document: many runs' figures as one standardized document (schema 1.2.0).

``perfline batch summarize`` computes, per group of runs (one model, runtime and target,
one result of their documents, and the user's ``--group-by`` keys) and per figure (entity,
metric, unit, qualifiers), the count, median, p10, p90, min, max and MAD of the runs'
values, and the per-run values themselves (``FigureStats``). This module writes them as a
document that everything reading a run reads as a run:

* one result per group, on the entity graph of the group's structure (``core.batch.structure``:
  the one most of its runs share), ``mode: "measured"``;
* each figure's ``value`` is the **median** of the runs' values, with ``aggregation: "p50"``
  (what the value is: the 50th percentile of its samples; the schema keeps any aggregation
  verbatim and only ``sum`` is ever combined) and ``samples`` the number of runs that had
  the figure; editors and reports label it ``p50`` (``dominant_metric.statistic_of``);
* ``extensions.perfline.run_samples`` / ``result_run_samples`` (``docs/results.md``) hold
  the per-run values, so ``perfline compare`` and ``check`` judge two aggregates by the rank
  test of their runs, not by two numbers; ``distributions`` / ``result_distributions``
  (lists parallel to ``results``) hold every statistic, ``batch`` what was summarised;
* the document is marked post-processed: its figures are final (a median of lines is not
  the sum of the medians of their operators, and no stage may add them up again).

Figures of entities the chosen structure lacks are left out, with a warning on the result
that counts them. Deterministic: the same statistics give the same document. Pure; linear
in the figures and their kept per-run values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final, NamedTuple

from perfline import __version__
from perfline.core.backends.result_builder import ResultBuilder
from perfline.core.document_shapes import (
    METRIC_KEY_ORDER,
    PERFLINE_EXTENSION,
    ResultJson,
)
from perfline.core.envelope import SCHEMA_VERSION, in_document_order

#: The aggregation of every aggregate figure: its value is the median of the runs' values.
AGGREGATION: Final = "p50"
MODE: Final = "measured"


class FigureStats(NamedTuple):
    """The distribution of one figure over the runs of a group."""

    entity_id: str | None
    """``None`` for a result-level metric."""
    metric: str
    unit: str
    qualifiers: str
    """Sorted-key compact JSON of the qualifiers, ``""`` for none."""
    samples: int
    median: float
    p10: float
    p90: float
    minimum: float
    maximum: float
    mad: float
    """Median absolute deviation from the median."""
    runs: tuple[float, ...]
    """Per-run values (ordered by the runs' content hashes; at most the kept count)."""


class GroupFigures(NamedTuple):
    """One group of runs: what identifies it, its structure and its figures."""

    key: tuple[tuple[str, Any], ...]
    """(column, value) pairs that identify the group, in order."""
    result: int
    """The index of the group's result in its runs' documents."""
    structure: Mapping[str, Any]
    runs: int
    """Runs in the group."""
    structure_runs: int
    """Runs in the group whose structure is ``structure``."""
    figures: Sequence[FigureStats]


class Summary(NamedTuple):
    """What the document says about the whole summary."""

    run_id: str
    timestamp: str
    runs: int
    runs_kept: int
    """The most per-run values kept per figure."""
    notes: str
    cli_arguments: tuple[str, ...]
    where: str | None


def aggregate_document(groups: Sequence[GroupFigures], summary: Summary) -> dict[str, Any]:
    """The standardized document of ``groups`` (one result each, in order)."""
    results: list[ResultJson] = []
    run_samples: list[dict[str, Any]] = []
    result_run_samples: list[dict[str, Any]] = []
    distributions: list[dict[str, Any]] = []
    result_distributions: list[list[dict[str, Any]]] = []
    described: list[dict[str, Any]] = []
    for group in groups:
        built = _result(group)
        results.append(built.result)
        run_samples.append(built.samples)
        result_run_samples.append(built.result_samples)
        distributions.append(built.distributions)
        result_distributions.append(built.result_distributions)
        described.append(
            {
                "key": dict(group.key),
                "runs": group.runs,
                "structure_runs": group.structure_runs,
            }
        )
    first = groups[0].structure if groups else {}
    batch = {
        "runs": summary.runs,
        "runs_kept": summary.runs_kept,
        "statistic": AGGREGATION,
        "groups": described,
    }
    if summary.where is not None:
        batch["where"] = summary.where
    extension = {
        "run_samples": run_samples,
        "result_run_samples": result_run_samples,
        "distributions": distributions,
        "result_distributions": result_distributions,
        "batch": batch,
        "postprocessed": True,
    }
    return in_document_order(
        {
            "schema_version": SCHEMA_VERSION,
            "timestamp": summary.timestamp,
            "tool": {"name": "perfline", "version": __version__},
            "run_id": summary.run_id,
            "context": {"notes": summary.notes, "cli_arguments": list(summary.cli_arguments)},
            "model": first.get("model") or {"name": "unknown", "format": "unknown", "hash": ""},
            "target": first.get("target") or _NO_TARGET,
            "backends": _backends(groups),
            "results": results,
            "extensions": {PERFLINE_EXTENSION: extension},
        }
    )


_NO_TARGET: Final = {
    "profile_name": "unknown",
    "target_type": "unknown",
    "components": [],
    "configuration": {},
}


class _Built(NamedTuple):
    result: ResultJson
    samples: dict[str, Any]
    result_samples: dict[str, Any]
    distributions: dict[str, Any]
    result_distributions: list[dict[str, Any]]


def _result(group: GroupFigures) -> _Built:
    structures = group.structure.get("results")
    own: Mapping[str, Any] = {}
    if isinstance(structures, list) and 0 <= group.result < len(structures):
        own = structures[group.result]
    entities = [e for e in own.get("entities") or () if isinstance(e, Mapping)]
    order = {entity.get("id"): position for position, entity in enumerate(entities)}
    by_entity: dict[str, list[FigureStats]] = {}
    model_level: list[FigureStats] = []
    dropped = 0
    for figure in group.figures:
        if figure.entity_id is None:
            model_level.append(figure)
        elif figure.entity_id in order:
            by_entity.setdefault(figure.entity_id, []).append(figure)
        else:
            dropped += 1
    ordered = sorted(by_entity, key=order.__getitem__)
    metrics = [_metric(figure) for figure in model_level]
    named = {figure.metric for figure in model_level}
    metrics.extend(
        dict(metric)
        for metric in own.get("unavailable_metrics") or ()
        if isinstance(metric, Mapping) and metric.get("name") not in named
    )
    result = ResultBuilder(
        own.get("kind", "performance"),
        own.get("producer", "unknown"),
        status=own.get("status", "ok"),
        mode=MODE,
    )
    result.warn(*_warnings(group, dropped))
    result.add_metrics(metrics)
    for entity in ordered:
        metrics_of = [_metric(f) for f in by_entity[entity]]
        result.add_breakdown(entity, metrics_of, with_record_id=False)
    result.add_entities(dict(entity) for entity in entities)
    result.declare_kinds(dict(k) for k in own.get("entity_kinds") or () if isinstance(k, Mapping))
    return _Built(
        result.finish(omit_empty=True),
        {entity: _sample_lists(by_entity[entity]) for entity in ordered},
        _sample_lists(model_level),
        {entity: [_distribution(f) for f in by_entity[entity]] for entity in ordered},
        [_distribution(f) for f in model_level],
    )


def _warnings(group: GroupFigures, dropped: int) -> list[str]:
    warnings: list[str] = []
    others = group.runs - group.structure_runs
    if others:
        warnings.append(
            f"{others} of the {group.runs} runs summarised here have another entity graph "
            "than this result's; their figures of this graph's entities are included"
        )
    if dropped:
        warnings.append(
            f"{dropped} figure(s) of entities that are not in this result's entity graph "
            "were left out"
        )
    return warnings


def _metric(figure: FigureStats) -> dict[str, Any]:
    parts: dict[str, Any] = {
        "name": figure.metric,
        "unit": figure.unit,
        "value": figure.median,
        "aggregation": AGGREGATION,
        "samples": figure.samples,
    }
    if figure.qualifiers:
        parts["qualifiers"] = json.loads(figure.qualifiers)
    return {key: parts[key] for key in METRIC_KEY_ORDER if key in parts}


def _sample_lists(figures: Sequence[FigureStats]) -> dict[str, list[float]]:
    """metric name -> per-run values, for names that identify one figure of the entity
    (per-run values are keyed by name: ``docs/results.md``)."""
    names: dict[str, int] = {}
    for figure in figures:
        names[figure.metric] = names.get(figure.metric, 0) + 1
    return {
        figure.metric: list(figure.runs)
        for figure in figures
        if names[figure.metric] == 1 and figure.runs
    }


def _distribution(figure: FigureStats) -> dict[str, Any]:
    parts: dict[str, Any] = {"name": figure.metric, "unit": figure.unit}
    if figure.qualifiers:
        parts["qualifiers"] = json.loads(figure.qualifiers)
    parts.update(
        {
            "count": figure.samples,
            "p50": figure.median,
            "p10": figure.p10,
            "p90": figure.p90,
            "min": figure.minimum,
            "max": figure.maximum,
            "mad": figure.mad,
        }
    )
    return parts


def _backends(groups: Sequence[GroupFigures]) -> list[dict[str, Any]]:
    seen: dict[Any, dict[str, Any]] = {}
    for group in groups:
        for backend in group.structure.get("backends") or ():
            if isinstance(backend, Mapping) and backend.get("id") not in seen:
                seen[backend.get("id")] = dict(backend)
    if not seen:
        return [{"id": "unknown", "name": "unknown", "version": "unknown", "configuration": {}}]
    return list(seen.values())
