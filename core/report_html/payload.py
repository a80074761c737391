"""The page data of the HTML report: a JSON-ready value built from the processed document.

``build_payload`` = the summary (model, target, backends, and per result its kind, status,
producer, mode, runs, metrics and warnings) plus one *view* per result that has entities with
figures: its dominant metric and total, the entity table, the annotated files, the chart's tree
and the operator table, and with a baseline (a ``core.compare`` comparison whose new run is this
document) the view's deltas (``comparison.comparison_view``) and the page-wide compare facts.
The page's script renders only this value; nothing else reaches the page. Every number the page
shows is text in it, made by ``core.figure_text`` (``page_texts``): the view's ``figures`` (the
scale of the labels of every figure its entities and chart nodes hold), ``labels`` (the code
lines' labels, the editor's), the operator table's and the compare view's scales, and the
summary's texts. Pure; linear in the size of the document plus the source texts (and the
comparison's entity deltas).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from perfline.core.figure_text import format_count, format_number, format_value
from perfline.core.report_html.annotated import annotated_files
from perfline.core.report_html.entity_table import EntityTable
from perfline.core.report_html.hierarchy import build_hierarchy
from perfline.core.report_html.labels import Metric, label, numeric
from perfline.core.report_html.operator_table import operator_rows
from perfline.core.report_html.page_texts import Scale, Texts, rounded
from perfline.core.report_html.result_index import ResultIndex, index_document
from perfline.core.report_html.source_text import SourceText, function_names

if TYPE_CHECKING:
    from perfline.core.compare.comparison import Comparison

PAYLOAD_VERSION = 1


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _count(value: object, unit: str = "") -> str | None:
    """An integer the summary shows (``1,024 bytes``, ``10``), ``None`` for anything else."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return format_count(value, unit)


def _result_metric(metric: Mapping[str, Any]) -> dict[str, Any]:
    value = numeric(metric)
    unit = str(metric.get("unit", ""))
    return {
        "name": str(metric.get("name", "")),
        "unit": unit,
        "value": rounded(value),
        "number": format_number(value, unit) if value is not None else None,
        "reason": _text(metric.get("reason")),
        "samples": _count(metric.get("samples"), "samples"),
    }


def _runs(result: Mapping[str, Any], samples: object) -> int | None:
    """How many runs the figures come from: recorded per-run samples, else metric samples."""
    if isinstance(samples, Mapping):
        lengths = [
            len(values)
            for per_metric in samples.values()
            if isinstance(per_metric, Mapping)
            for values in per_metric.values()
            if isinstance(values, list)
        ]
        if lengths:
            return max(lengths)
    counts = [
        m["samples"]
        for m in result.get("metrics") or ()
        if isinstance(m, Mapping) and isinstance(m.get("samples"), int)
    ]
    return max(counts) if counts else None


def summary(document: Mapping[str, Any]) -> dict[str, Any]:
    """What the document says about the model, target, backends and each result."""
    model = _mapping(document.get("model"))
    target = _mapping(document.get("target"))
    tool = _mapping(document.get("tool"))
    extensions = _mapping(_mapping(document.get("extensions")).get("perfline"))
    run_samples = extensions.get("run_samples")
    results = []
    for position, result in enumerate(document.get("results") or ()):
        if not isinstance(result, Mapping):
            continue
        samples = (
            run_samples[position]
            if isinstance(run_samples, list) and position < len(run_samples)
            else None
        )
        results.append(
            {
                "position": position,
                "kind": _text(result.get("kind")),
                "status": _text(result.get("status")),
                "producer": _text(result.get("producer")),
                "mode": _text(result.get("mode")),
                "runs": _count(_runs(result, samples)),
                "metrics": [
                    _result_metric(m) for m in result.get("metrics") or () if isinstance(m, Mapping)
                ],
                "warnings": [w for w in result.get("warnings") or () if isinstance(w, str)],
            }
        )
    components = [
        " ".join(str(c.get(k)) for k in ("type", "family") if c.get(k))
        for c in target.get("components") or ()
        if isinstance(c, Mapping)
    ]
    return {
        "model": {
            "name": _text(model.get("name")),
            "format": _text(model.get("format")),
            "hash": _text(model.get("hash")),
            "size": _count(model.get("size_bytes"), "bytes"),
        },
        "target": {
            "profile": _text(target.get("profile_name")),
            "type": _text(target.get("target_type")),
            "description": _text(target.get("description")),
            "components": components,
        },
        "backends": [
            {
                "id": _text(b.get("id")),
                "name": _text(b.get("name")),
                "version": _text(b.get("version")),
            }
            for b in document.get("backends") or ()
            if isinstance(b, Mapping)
        ],
        "tool": {"name": _text(tool.get("name")), "version": _text(tool.get("version"))},
        "timestamp": _text(document.get("timestamp")),
        "run_id": _text(document.get("run_id")),
        "results": results,
    }


def _metric_payload(
    metric: Metric | None, total: float | None, figures: Scale
) -> dict[str, Any] | None:
    if metric is None:
        return None
    return {
        "name": metric.name,
        "unit": metric.unit,
        "statistic": metric.statistic,
        "total": rounded(total),
        "total_text": format_value(total, metric.unit) if total is not None else None,
        "figures": figures.payload(),
    }


def _figure_scale(metric: Metric | None, total: float | None) -> Scale:
    """The view's figures: their label (``9.63 ms avg · 81%``) by value."""
    if metric is None:
        return Scale(str)  # a view has a metric: no figure reaches this scale
    return Scale(lambda value: label(value, metric, total))


def _view(
    index: ResultIndex,
    sources: Mapping[str, SourceText],
    model_name: str,
    comparison: Comparison | None,
) -> dict[str, Any]:
    names: dict[str, list[str | None]] = {}

    def function_of(file: str, line: int) -> str | None:
        found = names.get(file)
        if found is None:
            source = sources.get(file)
            found = function_names(source.text) if source is not None and source.text else []
            names[file] = found
        return found[line] if 0 < line < len(found) else None

    figures = _figure_scale(index.metric, index.total)
    labels = Texts()
    entities = EntityTable(index, figures)
    deltas = None
    changes: dict[str, str] = {}
    if comparison is not None:
        from perfline.core.report_html.comparison import deltas_for_result, line_changes

        deltas = deltas_for_result(comparison, index.position, index.metric)
        changes = line_changes(deltas)
    files = annotated_files(index, sources, entities, labels, changes)
    tree = build_hierarchy(index, entities, model_name, function_of, figures)
    table = operator_rows(index, sources, entities)
    compared = None
    if comparison is not None:  # after the sections: only the entities they show get deltas
        from perfline.core.report_html.comparison import comparison_view

        compared = comparison_view(deltas, entities)
    result = index.result
    return {
        "result": index.position,
        "kind": _text(result.get("kind")),
        "producer": _text(result.get("producer")),
        "metric": _metric_payload(index.metric, index.total, figures),
        "labels": labels.payload(),
        "files": files,
        "tree": tree,
        "table": table,
        "entities": entities.payload(),
        "comparison": compared,
    }


def build_payload(
    document: Mapping[str, Any],
    sources: Mapping[str, SourceText],
    *,
    metric: str | None = None,
    comparison: Comparison | None = None,
) -> dict[str, Any]:
    """The page data: summary, one view per result with figures, and the comparison with the
    baseline (``comparison``: ``document`` is its new run)."""
    info = summary(document)
    model_name = info["model"]["name"] or "model"
    views = [
        _view(index, sources, model_name, comparison)
        for index in index_document(document, metric)
        if index.values
    ]
    return {
        "version": PAYLOAD_VERSION,
        "summary": info,
        "views": views,
        "comparison": _comparison_payload(comparison),
    }


def _comparison_payload(comparison: Comparison | None) -> dict[str, Any] | None:
    if comparison is None:
        return None
    from perfline.core.report_html.comparison import comparison_payload

    return comparison_payload(comparison)
