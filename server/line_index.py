"""The line index of a job's result: (source file, line) -> code lines, stacks, operators, figures.

Built once per processed job result (linear in its entities, breakdowns,
checks and advice) and replaced wholesale when the result changes; queries
are dictionary look-ups. Files are the resolved absolute workspace paths
(see ``paths.PathResolver``); code lines whose file does not resolve are kept
under their recorded path so ``perfline/lineAnnotations`` can still report them.
A line's operators and the lines it calls (a call line's figure includes theirs) come
from ``core.call_lines``, the one rule the reports and ``compare`` share.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfline.core import dominant_metric
from perfline.core import figure_text as numbers
from perfline.core.call_lines import line_calls
from perfline.core.graph import build_graph


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
    metric: dominant_metric.MetricKey | None
    total: float | None
    #: Lines this line calls, (file, line), when its stacks continue into deeper frames of
    #: the model's source (``x = self.blocks(x)``): its figure includes theirs.
    calls: tuple[tuple[str, int], ...] = ()
    #: How many of ``source_operators`` carry the line's metric (on themselves or on a
    #: non-view entity right above them); counted for lines without a figure only.
    measured_operators: int = 0

    @functools.cached_property
    def label(self) -> str | None:
        if self.value is None or self.metric is None:
            return None
        return numbers.label(self.value, self.metric, self.statistic, self.total)

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
    memo: IndexMemo | None = None,
) -> JobIndex:
    """Index every result of ``document``; ``resolve`` maps recorded paths to workspace files
    (``memo``: the job's, to reuse the graph part while the entity graph is unchanged)."""
    lines: dict[str, dict[int, list[LineEntry]]] = {}
    diagnostics: dict[str, list[LineDiagnostic]] = {}
    tables: list[Mapping[str, Mapping[str, Any]]] = []
    results = document.get("results") or []
    resolved: dict[str, str] = {}

    def file_key(recorded: str) -> str:
        key = resolved.get(recorded)
        if key is None:
            found = resolve(recorded)
            key = resolved[recorded] = str(found) if found is not None else recorded
        return key

    for result_index, result in enumerate(results):
        if not isinstance(result, Mapping):
            tables.append({})
            continue
        tables.append(
            _index_result(job, result_index, result, file_key, metric, lines, diagnostics, memo)
        )
    return JobIndex(
        job=job,
        lines={f: {n: tuple(v) for n, v in per.items()} for f, per in lines.items()},
        diagnostics={f: tuple(v) for f, v in diagnostics.items()},
        entities=EntityTable(tuple(tables)),
    )


class EntityTable(Mapping[tuple[int, str], Mapping[str, Any]]):
    """(result index, entity id) -> entity, over one id table per result (built once)."""

    def __init__(self, tables: tuple[Mapping[str, Mapping[str, Any]], ...]) -> None:
        self._tables = tables

    def __getitem__(self, key: tuple[int, str]) -> Mapping[str, Any]:
        index, entity_id = key
        if not isinstance(index, int) or not 0 <= index < len(self._tables):
            raise KeyError(key)
        return self._tables[index][entity_id]

    def __iter__(self) -> Iterator[tuple[int, str]]:
        for index, table in enumerate(self._tables):
            for entity_id in table:
                yield index, entity_id

    def __len__(self) -> int:
        return sum(len(table) for table in self._tables)


@dataclass(frozen=True, slots=True)
class _PlacedLine:
    """A code_line with a usable (file, line) and what its graph puts behind it."""

    entity: Mapping[str, Any]
    recorded: str
    number: int
    stacks: tuple[str, ...]
    operators: tuple[Mapping[str, Any], ...]
    behind: tuple[tuple[str, str], ...]
    placements: tuple[str, ...]
    #: (recorded file, line) of the frames below this line's (the lines it calls).
    called: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class _Skeleton:
    """What the index takes from a result's entity graph alone."""

    entities: dict[str, Mapping[str, Any]]
    children: Mapping[str, tuple[str, ...]]
    parents: Mapping[str, tuple[str, ...]]
    code_lines: tuple[Mapping[str, Any], ...]
    placed: tuple[_PlacedLine, ...]


class IndexMemo:
    """The graph part of a job's last index, per result, reused while the result's
    entity list is the very same object (see ``core.structure_memo``: a run whose
    graph did not change hands over last run's list)."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[Any, _Skeleton]] = {}

    def skeleton(self, result_index: int, entities: Any) -> _Skeleton:
        known = self._kept.get(result_index)
        if known is not None and known[0] is entities:
            return known[1]
        made = _skeleton(entities)
        self._kept[result_index] = (entities, made)
        return made


def _skeleton(listed: Any) -> _Skeleton:
    entities: dict[str, Mapping[str, Any]] = {}
    for e in listed or ():
        if type(e) is dict or isinstance(e, Mapping):
            entity_id = e.get("id")
            if type(entity_id) is str:
                entities[entity_id] = e
    graph = build_graph(listed or [])
    children, parents = graph.children, graph.parents
    code_lines = tuple(e for e in entities.values() if e.get("kind") == "code_line")
    structure = line_calls(listed or [], graph, entities)
    placed: list[_PlacedLine] = []
    for entity in code_lines:
        found = structure.get(entity["id"])
        if found is None:  # no usable (file, line)
            continue
        operators = tuple(entities[o] for o in found.operators)
        behind = sorted(
            {
                (str(entities[p].get("kind")), str(entities[p].get("name", p)))
                for o in found.operators
                for p in parents.get(o, ())
                if entities[p].get("kind") not in dominant_metric.VIEW_KINDS
            }
        )
        placements = tuple(
            sorted({str(o.get("placement")) for o in operators if o.get("placement")})
        )
        placed.append(
            _PlacedLine(
                entity,
                found.file,
                found.line,
                found.stacks,
                operators,
                tuple(behind),
                placements,
                found.calls,
            )
        )
    return _Skeleton(entities, children, parents, code_lines, tuple(placed))


def _index_result(
    job: str,
    result_index: int,
    result: Mapping[str, Any],
    file_key: Callable[[str], str],
    configured_metric: str | None,
    lines: dict[str, dict[int, list[LineEntry]]],
    diagnostics: dict[str, list[LineDiagnostic]],
    memo: IndexMemo | None = None,
) -> Mapping[str, Mapping[str, Any]]:
    listed = result.get("entities")
    skeleton = memo.skeleton(result_index, listed) if memo is not None else _skeleton(listed)
    breakdowns = breakdowns_by_entity(result)
    key = dominant_metric.choose_metric(
        (breakdowns.get(e["id"], ()) for e in skeleton.code_lines), configured_metric
    )
    total = None
    if key is not None:
        entities, children = skeleton.entities, skeleton.children
        total = dominant_metric.model_total(result, key, entities=entities, children=children)
    producer = str(result.get("producer", ""))
    mode = result.get("mode") if isinstance(result.get("mode"), str) else None
    kind = str(result.get("kind", ""))
    line_of: dict[str, tuple[str, int]] = {}
    for line in skeleton.placed:
        entity = line.entity
        where = file_key(line.recorded)
        line_of[entity["id"]] = (where, line.number)
        metrics = tuple(breakdowns.get(entity["id"], ()))
        value, statistic = dominant_metric.value_of(metrics, key) if key else (None, None)
        measured = len(line.operators)
        if value is None:
            measured = _measured(line.operators, breakdowns, skeleton, key)
        calls: tuple[tuple[str, int], ...] = ()
        if line.called:  # a call line (rare): the lines it calls, as files of the workspace
            mapped = {(file_key(f), n) for f, n in line.called} - {(where, line.number)}
            calls = tuple(sorted(mapped))
        entry = LineEntry(
            job=job,
            result_index=result_index,
            entity_id=entity["id"],
            name=str(entity.get("name", "")),
            recorded_file=line.recorded,
            line=line.number,
            metrics=metrics,
            stacks=line.stacks,
            source_operators=line.operators,
            behind=line.behind,
            placements=line.placements,
            producer=producer,
            mode=mode,
            kind=kind,
            value=value,
            statistic=statistic,
            metric=key,
            total=total,
            calls=calls,
            measured_operators=measured,
        )
        lines.setdefault(where, {}).setdefault(line.number, []).append(entry)
    _line_diagnostics(job, result, skeleton, line_of, diagnostics)
    return skeleton.entities


def _measured(
    operators: Sequence[Mapping[str, Any]],
    breakdowns: Mapping[str, Sequence[Mapping[str, Any]]],
    skeleton: _Skeleton,
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
            carries(p)
            for p in above
            if skeleton.entities[p].get("kind") not in dominant_metric.VIEW_KINDS
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
    skeleton: _Skeleton,
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
