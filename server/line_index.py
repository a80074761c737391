"""The line index of a job's result: (source file, line) -> code lines, stacks, operators, figures.

Built once per processed job result and replaced wholesale when the result changes;
queries are dictionary look-ups. Files are the resolved absolute workspace paths
(see ``paths.PathResolver``); code lines whose file does not resolve are kept
under their recorded path so ``perfline/lineAnnotations`` can still report them.
A line's operators and the lines it calls (a call line's figure includes theirs) come
from ``core.call_lines``, the one rule the reports and ``compare`` share.

Two parts: the *graph part* (``line_graph``: the skeleton of entities, edges and code
lines, and each line's ``LineFacts``) depends on the entity graph, the result's labels
and the resolver only, and a job's ``IndexMemo`` (``index_memo``) keeps it while those
are unchanged; the *figures* (``line_figures``: metrics, values, the model total) are made
for every result, and each ``LineEntry`` (``line_entries``, plain data) pairs a line's
facts with its figures. Cost: the graph part is linear in the entities; the figures, see
``line_figures``; then one small object per code line; checks and advice, linear in
their affected entities.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from perfline.core import dominant_metric
from perfline.core.projection import BreakdownLayout
from perfline.server.index_memo import IndexMemo, ResultMemo
from perfline.server.line_entries import EntityTable, JobIndex, LineDiagnostic, LineEntry
from perfline.server.line_figures import result_figures
from perfline.server.line_graph import ResultLabels, Skeleton, is_view


def build_line_index(
    job: str,
    document: Mapping[str, Any],
    resolve: Callable[[str], Path | None],
    metric: str | None = None,
    memo: IndexMemo | None = None,
    layouts: Sequence[BreakdownLayout | None] = (),
) -> JobIndex:
    """Index every result of ``document``; ``resolve`` maps recorded paths to workspace files
    (``memo``: the job's, to reuse the graph part while the entity graph, the result's
    labels and ``resolve`` are unchanged; a resolver answers alike while it is the same
    object, as ``paths.PathResolver`` does). The figures are made again every time
    (``layouts``: per result, the breakdown layout the pipeline returned with this very
    document, which spares the figures' layout checks when it equals the one they were
    last checked against)."""
    lines: dict[str, dict[int, list[LineEntry]]] = {}
    diagnostics: dict[str, list[LineDiagnostic]] = {}
    tables: list[Mapping[str, Mapping[str, Any]]] = []
    results = document.get("results") or []
    for result_index, result in enumerate(results):
        if not isinstance(result, Mapping):
            tables.append({})
            continue
        kept = memo.kept(result_index) if memo is not None else ResultMemo()
        labels = ResultLabels(job, result_index, result)
        layout = layouts[result_index] if memo is not None and result_index < len(layouts) else None
        tables.append(
            _index_result(labels, result, resolve, metric, kept, lines, diagnostics, layout)
        )
    return JobIndex(
        job=job,
        lines={f: {n: tuple(v) for n, v in per.items()} for f, per in lines.items()},
        diagnostics={f: tuple(v) for f, v in diagnostics.items()},
        entities=EntityTable(tuple(tables)),
    )


def _index_result(
    labels: ResultLabels,
    result: Mapping[str, Any],
    resolve: Callable[[str], Path | None],
    configured_metric: str | None,
    kept: ResultMemo,
    lines: dict[str, dict[int, list[LineEntry]]],
    diagnostics: dict[str, list[LineDiagnostic]],
    breakdown_layout: BreakdownLayout | None = None,
) -> Mapping[str, Mapping[str, Any]]:
    """Add one result's entries and diagnostics; its entities by id."""
    skeleton = kept.skeleton_of(result.get("entities"))
    layout = kept.layout_of(skeleton, labels, resolve)
    figures = result_figures(result, skeleton.graph, configured_metric, kept, breakdown_layout)
    key, total = figures.key, figures.total
    everything: dict[str, list[Mapping[str, Any]]] | None = None  # for lines without a figure
    for facts in layout.facts:
        slot = facts.slot
        value = figures.values[slot]
        measured = len(facts.source_operators)
        if value is None:
            if everything is None:
                everything = breakdowns_by_entity(result)
            measured = _measured(facts.source_operators, everything, skeleton, key)
        entry = LineEntry(
            facts, figures.metrics[slot], value, figures.statistics[slot], key, total, measured
        )
        lines.setdefault(facts.file, {}).setdefault(facts.line, []).append(entry)
    _line_diagnostics(labels.job, result, skeleton, layout.line_of, diagnostics)
    return skeleton.entities


def _measured(
    operators: Sequence[Mapping[str, Any]],
    breakdowns: Mapping[str, Sequence[Mapping[str, Any]]],
    skeleton: Skeleton,
    key: dominant_metric.MetricKey | None,
) -> int:
    """How many ``operators`` carry ``key`` themselves or on a non-view parent."""
    if key is None:
        return 0

    def carries(entity_id: str) -> bool:
        return dominant_metric.value_of(breakdowns.get(entity_id, ()), key)[0] is not None

    count = 0
    for operator in operators:
        above = skeleton.parents.get(operator["id"], ())
        if carries(operator["id"]) or any(
            carries(p) for p in above if not is_view(skeleton.entities[p])
        ):
            count += 1
    return count


def breakdowns_by_entity(result: Mapping[str, Any]) -> dict[str, list[Mapping[str, Any]]]:
    """Every breakdown metric of a result, by entity id (in document order)."""
    breakdowns: dict[str, list[Mapping[str, Any]]] = {}
    for breakdown in result.get("breakdowns") or ():
        if type(breakdown) is dict or isinstance(breakdown, Mapping):
            entity_id = breakdown.get("entity_id")
            if type(entity_id) is str:
                found = breakdowns.get(entity_id)
                if found is None:
                    found = breakdowns[entity_id] = []
                for metric in breakdown.get("metrics") or ():
                    if type(metric) is dict or isinstance(metric, Mapping):
                        found.append(metric)
    return breakdowns


def _line_diagnostics(
    job: str,
    result: Mapping[str, Any],
    skeleton: Skeleton,
    line_of: Mapping[str, tuple[str, int]],
    diagnostics: dict[str, list[LineDiagnostic]],
) -> None:
    """Advice and failed or partial checks, on the lines above their entities."""

    def lines_above(entity_ids: Iterable[str]) -> list[tuple[str, int]]:
        # A code_line is the parent of its stacks: climbing from a source operator
        # reaches its stacks, then their lines.
        starts = (e for e in entity_ids if e in skeleton.entities)
        reached = dominant_metric.ancestors(skeleton.parents, starts)
        return sorted({line_of[e] for e in reached if e in line_of})

    for advice in result.get("advice") or ():
        if not isinstance(advice, Mapping):
            continue
        affected = [a for a in advice.get("affected_entity_ids") or () if isinstance(a, str)]
        severity = str(advice.get("severity", "info"))
        message = str(advice.get("message", ""))
        for where, number in lines_above(affected):
            diagnostics.setdefault(where, []).append(
                LineDiagnostic(job, number, severity, message, str(advice.get("id", "advice")))
            )
    for check in result.get("checks") or ():
        found = _check_problem(check)
        if found is None:
            continue
        entity_id, severity, message = found
        for where, number in lines_above([entity_id]):
            diagnostics.setdefault(where, []).append(
                LineDiagnostic(job, number, severity, message, str(check.get("id", "check")))
            )


def _check_problem(check: Any) -> tuple[str, str, str] | None:
    """(entity id, severity, message) of a failed or partial check, else None."""
    if not isinstance(check, Mapping) or check.get("status") not in ("fail", "partial"):
        return None
    entity_id = check.get("entity_id")
    if not isinstance(entity_id, str):
        return None
    status = str(check["status"])
    details = check.get("details")
    reasons = (details or {}).get("reasons") if isinstance(details, Mapping) else None
    detail = ""
    if isinstance(reasons, list) and reasons:
        texts = [str(r.get("description", "")) for r in reasons if isinstance(r, Mapping)]
        detail = ": " + "; ".join(t for t in texts if t)
    message = f"check {check.get('id', '')} {status}{detail}"
    return entity_id, "error" if status == "fail" else "warning", message
