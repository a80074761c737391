"""The line index: (source file, line) -> code_line entities, stacks, source operators, figures.

Built once per processed job result (linear in its entities, breakdowns,
checks and advice) and replaced wholesale when the result changes; queries
are dictionary look-ups. Files are the resolved absolute workspace paths
(see ``paths.PathResolver``); code lines whose file does not resolve are kept
under their recorded path so ``perfline/lineAnnotations`` can still report them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfline.core.graph import build_graph
from perfline.server import figures


@dataclass(frozen=True)
class LineEntry:
    """One code_line entity of one job's result, with what the editor shows for it."""

    job: str
    result_index: int
    entity_id: str
    name: str
    recorded_file: str
    line: int
    metrics: tuple[Mapping[str, Any], ...]
    stacks: tuple[str, ...]
    source_operators: tuple[Mapping[str, Any], ...]
    #: Non-view parents of those operators (NX chains, runtime events...): (kind, name).
    behind: tuple[tuple[str, str], ...]
    placements: tuple[str, ...]
    producer: str
    mode: str | None
    kind: str
    value: float | None
    statistic: str | None
    metric: figures.MetricKey | None
    total: float | None

    @functools.cached_property
    def label(self) -> str | None:
        if self.value is None or self.metric is None:
            return None
        return figures.label(self.value, self.metric, self.statistic, self.total)

    @property
    def share(self) -> float | None:
        if self.value is None or not self.total:
            return None
        return self.value / self.total


@dataclass(frozen=True)
class LineDiagnostic:
    """Advice or a failed/partial check landing on a line."""

    job: str
    line: int
    severity: str  # "error" | "warning" | "info"
    message: str
    code: str


@dataclass(frozen=True)
class JobIndex:
    """The index of one job's processed document."""

    job: str
    lines: Mapping[str, Mapping[int, tuple[LineEntry, ...]]]
    diagnostics: Mapping[str, tuple[LineDiagnostic, ...]]
    entities: Mapping[tuple[int, str], Mapping[str, Any]]

    def files(self) -> Iterable[str]:
        return self.lines.keys()


def build_index(
    job: str,
    document: Mapping[str, Any],
    resolve: Callable[[str], Path | None],
    metric: str | None = None,
) -> JobIndex:
    """Index every result of ``document``; ``resolve`` maps recorded paths to workspace files."""
    lines: dict[str, dict[int, list[LineEntry]]] = {}
    diagnostics: dict[str, list[LineDiagnostic]] = {}
    entities_by_key: dict[tuple[int, str], Mapping[str, Any]] = {}
    results = document.get("results") or []
    for result_index, result in enumerate(results):
        if not isinstance(result, Mapping):
            continue
        _index_result(
            job, result_index, result, resolve, metric, lines, diagnostics, entities_by_key
        )
    return JobIndex(
        job=job,
        lines={f: {n: tuple(v) for n, v in per.items()} for f, per in lines.items()},
        diagnostics={f: tuple(v) for f, v in diagnostics.items()},
        entities=entities_by_key,
    )


def _file_key(recorded: str, resolve: Callable[[str], Path | None]) -> str:
    resolved = resolve(recorded)
    return str(resolved) if resolved is not None else recorded


def _index_result(
    job: str,
    result_index: int,
    result: Mapping[str, Any],
    resolve: Callable[[str], Path | None],
    configured_metric: str | None,
    lines: dict[str, dict[int, list[LineEntry]]],
    diagnostics: dict[str, list[LineDiagnostic]],
    entities_by_key: dict[tuple[int, str], Mapping[str, Any]],
) -> None:
    entities = {
        e["id"]: e
        for e in result.get("entities") or ()
        if isinstance(e, Mapping) and isinstance(e.get("id"), str)
    }
    for entity_id, entity in entities.items():
        entities_by_key[(result_index, entity_id)] = entity
    graph = build_graph(list(entities.values()))
    children, parents = graph.children, graph.parents
    breakdowns: dict[str, list[Mapping[str, Any]]] = {}
    for breakdown in result.get("breakdowns") or ():
        if isinstance(breakdown, Mapping) and isinstance(breakdown.get("entity_id"), str):
            for metric in breakdown.get("metrics") or ():
                if isinstance(metric, Mapping):
                    breakdowns.setdefault(breakdown["entity_id"], []).append(metric)
    code_lines = [e for e in entities.values() if e.get("kind") == "code_line"]
    key = figures.choose_metric(
        (breakdowns.get(e["id"], ()) for e in code_lines), configured_metric
    )
    total = figures.model_total(result, key, parents) if key is not None else None
    producer = str(result.get("producer", ""))
    mode = result.get("mode") if isinstance(result.get("mode"), str) else None
    line_of: dict[str, tuple[str, int]] = {}
    for entity in code_lines:
        attributes = entity.get("attributes") or {}
        recorded, number = attributes.get("file"), attributes.get("line")
        if not isinstance(recorded, str) or not isinstance(number, int) or number < 1:
            continue
        file_key = _file_key(recorded, resolve)
        line_of[entity["id"]] = (file_key, number)
        stacks = tuple(
            sorted(
                c for c in children.get(entity["id"], ()) if entities[c].get("kind") == "code_stack"
            )
        )
        operators = _descendants_of_kind(stacks, children, entities, "source_operator")
        behind = sorted(
            {
                (str(entities[p].get("kind")), str(entities[p].get("name", p)))
                for o in operators
                for p in parents.get(o["id"], ())
                if entities[p].get("kind") not in figures.VIEW_KINDS
            }
        )
        metrics = tuple(breakdowns.get(entity["id"], ()))
        value, statistic = figures.value_of(metrics, key) if key else (None, None)
        placements = tuple(
            sorted({str(o.get("placement")) for o in operators if o.get("placement")})
        )
        entry = LineEntry(
            job=job,
            result_index=result_index,
            entity_id=entity["id"],
            name=str(entity.get("name", "")),
            recorded_file=recorded,
            line=number,
            metrics=metrics,
            stacks=stacks,
            source_operators=tuple(operators),
            behind=tuple(behind),
            placements=placements,
            producer=producer,
            mode=mode,
            kind=str(result.get("kind", "")),
            value=value,
            statistic=statistic,
            metric=key,
            total=total,
        )
        lines.setdefault(file_key, {}).setdefault(number, []).append(entry)

    def lines_above(entity_ids: Iterable[str]) -> set[tuple[str, int]]:
        # A code_line is the parent of its stacks: climbing from a source operator
        # reaches its stacks, then their lines.
        reached = figures.ancestors(parents, (e for e in entity_ids if e in entities))
        return {line_of[e] for e in reached if e in line_of}

    for advice in result.get("advice") or ():
        if not isinstance(advice, Mapping):
            continue
        affected = [a for a in advice.get("affected_entity_ids") or () if isinstance(a, str)]
        severity = str(advice.get("severity", "info"))
        message = str(advice.get("message", ""))
        for file_key, number in sorted(lines_above(affected)):
            diagnostics.setdefault(file_key, []).append(
                LineDiagnostic(job, number, severity, message, str(advice.get("id", "advice")))
            )
    for check in result.get("checks") or ():
        if not isinstance(check, Mapping) or check.get("status") not in ("fail", "partial"):
            continue
        entity_id = check.get("entity_id")
        if not isinstance(entity_id, str):
            continue
        status = str(check["status"])
        reasons = (
            (check.get("details") or {}).get("reasons")
            if isinstance(check.get("details"), Mapping)
            else None
        )
        detail = ""
        if isinstance(reasons, list) and reasons:
            texts = [str(r.get("description", "")) for r in reasons if isinstance(r, Mapping)]
            detail = ": " + "; ".join(t for t in texts if t)
        message = f"check {check.get('id', '')} {status}{detail}"
        severity = "error" if status == "fail" else "warning"
        for file_key, number in sorted(lines_above([entity_id])):
            diagnostics.setdefault(file_key, []).append(
                LineDiagnostic(job, number, severity, message, str(check.get("id", "check")))
            )


def _descendants_of_kind(
    starts: Iterable[str],
    children: Mapping[str, Sequence[str]],
    entities: Mapping[str, Mapping[str, Any]],
    kind: str,
) -> list[Mapping[str, Any]]:
    found: dict[str, Mapping[str, Any]] = {}
    stack = list(starts)
    seen: set[str] = set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        entity = entities[current]
        if entity.get("kind") == kind:
            found[current] = entity
            continue
        if entity.get("kind") == "code_stack":
            stack.extend(children.get(current, ()))
    return [found[k] for k in sorted(found)]
