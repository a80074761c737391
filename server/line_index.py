"""The line index of a job's result: (source file, line) -> code lines, stacks, operators, figures.

Built once per processed job result and replaced wholesale when the result changes;
queries are dictionary look-ups. Files are the resolved absolute workspace paths
(see ``paths.PathResolver``); code lines whose file does not resolve are kept
under their recorded path so ``perfline/lineAnnotations`` can still report them.
A line's operators and the lines it calls (a call line's figure includes theirs) come
from ``core.call_lines``, the one rule the reports and ``compare`` share.

Two parts: the *graph part* (``_Skeleton``: entities by id, edges, the code lines and
what is behind them; and each line's ``LineFacts``: where it is shown, its stacks,
operators, labels, the lines it calls) depends on the entity graph, the result's labels
and the resolver only, and a job's ``IndexMemo`` keeps it while those are unchanged (the
structure memo hands over the same entity list when the graph is written as before);
the *figures* (``line_figures``: metrics, values, the model total) are made for every
result, and each ``LineEntry`` pairs a line's facts with its figures.
Cost: the graph part is linear in the entities; the figures, see ``line_figures``; then
one small object per code line; checks and advice, linear in their affected entities.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfline.core import dominant_metric
from perfline.core import figure_text as numbers
from perfline.core.call_lines import line_calls
from perfline.core.graph import build_graph
from perfline.core.structure_memo import StructureMemo
from perfline.server.line_figures import FigureMemo, LineGraph, result_figures


@dataclass(frozen=True, slots=True)
class LineFacts:
    """What a code line's entry takes from the entity graph, the result's labels and the
    path resolver alone: kept per job while those are unchanged (made once per line then,
    however often its figures change)."""

    job: str
    result_index: int
    entity_id: str
    name: str
    recorded_file: str
    line: int
    stacks: tuple[str, ...]
    source_operators: tuple[Mapping[str, Any], ...]
    #: Non-view parents of those operators (NX chains, runtime events...): (kind, name).
    behind: tuple[tuple[str, str], ...]
    placements: tuple[str, ...]
    producer: str
    mode: str | None
    kind: str
    #: Lines this line calls, (file, line), when its stacks continue into deeper frames of
    #: the model's source (``x = self.blocks(x)``): its figure includes theirs.
    calls: tuple[tuple[str, int], ...] = ()
    #: The workspace file the line is shown in (its recorded path when unresolved).
    file: str = ""
    #: The line's place among its result's code lines (where its breakdowns are gathered).
    slot: int = -1


_UNSET: Any = object()


class LineEntry:
    """One code_line entity of one job's result, with what the editor shows for it: the
    line's ``LineFacts`` (graph part, kept while the graph is) and its figures (made again
    for every result). Treated as immutable; equal when every field is."""

    __slots__ = (
        "_label",
        "facts",
        "measured_operators",
        "metric",
        "metrics",
        "statistic",
        "total",
        "value",
    )

    def __init__(
        self,
        facts: LineFacts,
        metrics: tuple[Mapping[str, Any], ...],
        value: float | None,
        statistic: str | None,
        metric: dominant_metric.MetricKey | None,
        total: float | None,
        measured_operators: int,
    ) -> None:
        self.facts = facts
        self.metrics = metrics
        self.value = value
        self.statistic = statistic
        self.metric = metric
        self.total = total
        #: How many of ``source_operators`` carry the line's metric (on themselves or on a
        #: non-view entity right above them); counted for lines without a figure only.
        self.measured_operators = measured_operators
        self._label = _UNSET

    @property
    def job(self) -> str:
        return self.facts.job

    @property
    def result_index(self) -> int:
        return self.facts.result_index

    @property
    def entity_id(self) -> str:
        return self.facts.entity_id

    @property
    def name(self) -> str:
        return self.facts.name

    @property
    def recorded_file(self) -> str:
        return self.facts.recorded_file

    @property
    def line(self) -> int:
        return self.facts.line

    @property
    def stacks(self) -> tuple[str, ...]:
        return self.facts.stacks

    @property
    def source_operators(self) -> tuple[Mapping[str, Any], ...]:
        return self.facts.source_operators

    @property
    def behind(self) -> tuple[tuple[str, str], ...]:
        return self.facts.behind

    @property
    def placements(self) -> tuple[str, ...]:
        return self.facts.placements

    @property
    def producer(self) -> str:
        return self.facts.producer

    @property
    def mode(self) -> str | None:
        return self.facts.mode

    @property
    def kind(self) -> str:
        return self.facts.kind

    @property
    def calls(self) -> tuple[tuple[str, int], ...]:
        return self.facts.calls

    @property
    def label(self) -> str | None:
        found: str | None = self._label
        if found is _UNSET:
            found = None
            if self.value is not None and self.metric is not None:
                runs = dominant_metric.runs_summarised(self.metrics, self.metric)
                found = numbers.label(self.value, self.metric, self.statistic, self.total, runs)
            self._label = found
        return found

    @property
    def share(self) -> float | None:
        if self.value is None or not self.total:
            return None
        return self.value / self.total

    @classmethod
    def make(cls, **fields: Any) -> LineEntry:
        """An entry from every field by name (``LineFacts``' and the figures'; ``calls``,
        ``file`` and ``measured_operators`` may be left out), for callers that hold no
        index."""
        figures = {name: fields.pop(name) for name in _ENTRY_FIELDS if name in fields}
        figures.setdefault("measured_operators", 0)
        fields.setdefault("file", fields.get("recorded_file", ""))
        return cls(LineFacts(**fields), **figures)

    def replace(self, **changes: Any) -> LineEntry:
        """A copy with the given fields (of the entry or of its facts) changed."""
        own = {name: changes.pop(name) for name in list(changes) if name in _ENTRY_FIELDS}
        facts = dataclasses.replace(self.facts, **changes) if changes else self.facts
        figures = {name: getattr(self, name) for name in _ENTRY_FIELDS} | own
        return LineEntry(facts, **figures)

    def _fields(self) -> tuple[Any, ...]:
        return (
            self.facts,
            self.metrics,
            self.value,
            self.statistic,
            self.metric,
            self.total,
            self.measured_operators,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LineEntry):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # holds dicts, as the dataclass did

    def __repr__(self) -> str:
        facts = self.facts
        return (
            f"LineEntry({facts.job!r}, {facts.result_index}, {facts.entity_id!r}, "
            f"{facts.file!r}:{facts.line}, value={self.value!r}, metric={self.metric!r})"
        )


#: The fields a ``LineEntry`` holds itself (the rest are its facts').
_ENTRY_FIELDS = ("metrics", "value", "statistic", "metric", "total", "measured_operators")


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
    layouts: StructureMemo | None = None,
) -> JobIndex:
    """Index every result of ``document``; ``resolve`` maps recorded paths to workspace files
    (``memo``: the job's, to reuse the graph part while the entity graph, the result's
    labels and ``resolve`` are unchanged; a resolver answers alike while it is the same
    object, as ``paths.PathResolver`` does). The figures are made again every time
    (``layouts``: the structure memo the document was post-processed with, whose layout
    tokens spare the figures' layout checks when the breakdowns are laid out as before)."""
    lines: dict[str, dict[int, list[LineEntry]]] = {}
    diagnostics: dict[str, list[LineDiagnostic]] = {}
    tables: list[Mapping[str, Mapping[str, Any]]] = []
    results = document.get("results") or []
    for result_index, result in enumerate(results):
        if not isinstance(result, Mapping):
            tables.append({})
            continue
        kept = memo.kept(result_index) if memo is not None else _Kept()
        labels = _ResultLabels(job, result_index, result)
        layout = (
            layouts.layout_token(result_index, result.get("breakdowns"))
            if layouts is not None and memo is not None
            else None
        )
        tables.append(
            _index_result(labels, result, resolve, metric, kept, lines, diagnostics, layout)
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
    #: Its place among the result's code lines.
    slot: int
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
    #: Code line slots, non-view entities and children, as the figures need them.
    graph: LineGraph
    placed: tuple[_PlacedLine, ...]


class _ResultLabels:
    """A result's job, place and labels, as every entry of it repeats them."""

    __slots__ = ("job", "kind", "mode", "producer", "result_index")

    def __init__(self, job: str, result_index: int, result: Mapping[str, Any]) -> None:
        self.job = job
        self.result_index = result_index
        self.producer = str(result.get("producer", ""))
        mode = result.get("mode")
        self.mode: str | None = mode if isinstance(mode, str) else None
        self.kind = str(result.get("kind", ""))

    def same(self, other: _ResultLabels) -> bool:
        return (
            self.job == other.job
            and self.result_index == other.result_index
            and self.producer == other.producer
            and self.mode == other.mode
            and self.kind == other.kind
        )


class _LineLayout:
    """A result's ``LineFacts`` under one resolver, and where each code line is shown."""

    __slots__ = ("facts", "labels", "line_of", "resolve", "skeleton")

    def __init__(
        self,
        skeleton: _Skeleton,
        labels: _ResultLabels,
        resolve: Callable[[str], Path | None],
    ) -> None:
        self.skeleton = skeleton
        self.labels = labels
        self.resolve = resolve
        resolved: dict[str, str] = {}

        def file_key(recorded: str) -> str:
            key = resolved.get(recorded)
            if key is None:
                found = resolve(recorded)
                key = resolved[recorded] = str(found) if found is not None else recorded
            return key

        facts = []
        for line in skeleton.placed:
            where = file_key(line.recorded)
            calls: tuple[tuple[str, int], ...] = ()
            if line.called:  # a call line (rare): the lines it calls, as files of the workspace
                mapped = {(file_key(f), n) for f, n in line.called} - {(where, line.number)}
                calls = tuple(sorted(mapped))
            facts.append(
                LineFacts(
                    labels.job,
                    labels.result_index,
                    line.entity["id"],
                    str(line.entity.get("name", "")),
                    line.recorded,
                    line.number,
                    line.stacks,
                    line.operators,
                    line.behind,
                    line.placements,
                    labels.producer,
                    labels.mode,
                    labels.kind,
                    calls,
                    where,
                    line.slot,
                )
            )
        self.facts = tuple(facts)
        self.line_of = {f.entity_id: (f.file, f.line) for f in self.facts}

    def fits(
        self, skeleton: _Skeleton, labels: _ResultLabels, resolve: Callable[[str], Path | None]
    ) -> bool:
        return (
            self.skeleton is skeleton
            and self.labels.same(labels)
            and (self.resolve is resolve or self.resolve == resolve)
        )


class _Kept:
    """What the index keeps of one result between runs of a job."""

    __slots__ = ("entities", "figures", "layout", "skeleton")

    def __init__(self) -> None:
        self.entities: Any = None
        self.skeleton: _Skeleton | None = None
        self.layout: _LineLayout | None = None
        self.figures = FigureMemo()

    def skeleton_of(self, entities: Any) -> _Skeleton:
        if self.skeleton is None or self.entities is not entities:
            self.skeleton = _skeleton(entities)
            self.entities = entities
            self.layout = None
            self.figures = FigureMemo()
        return self.skeleton

    def layout_of(
        self, skeleton: _Skeleton, labels: _ResultLabels, resolve: Callable[[str], Path | None]
    ) -> _LineLayout:
        if self.layout is None or not self.layout.fits(skeleton, labels, resolve):
            self.layout = _LineLayout(skeleton, labels, resolve)
        return self.layout


class IndexMemo:
    """The graph part of a job's last index, per result, reused while the result's
    entity list is the very same object (see ``core.structure_memo``: a run whose
    graph did not change hands over last run's list): the skeleton, each line's
    ``LineFacts`` (while the result's labels and the resolver are the same too), and how
    the model total was found (checked again on every run: see ``_model_total``)."""

    def __init__(self) -> None:
        self._kept: dict[int, _Kept] = {}

    def kept(self, result_index: int) -> _Kept:
        found = self._kept.get(result_index)
        if found is None:
            found = self._kept[result_index] = _Kept()
        return found


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
    slots = {e["id"]: slot for slot, e in enumerate(code_lines)}
    non_view = frozenset(i for i, e in entities.items() if not _is_view(e))
    structure = line_calls(listed or [], graph, entities)
    placed: list[_PlacedLine] = []
    for slot, entity in enumerate(code_lines):
        found = structure.get(entity["id"])
        if found is None:  # no usable (file, line)
            continue
        operators = tuple(entities[o] for o in found.operators)
        behind = sorted(
            {
                (str(entities[p].get("kind")), str(entities[p].get("name", p)))
                for o in found.operators
                for p in parents.get(o, ())
                if not _is_view(entities[p])
            }
        )
        placements = tuple(
            sorted({str(o.get("placement")) for o in operators if o.get("placement")})
        )
        placed.append(
            _PlacedLine(
                entity,
                slot,
                found.file,
                found.line,
                found.stacks,
                operators,
                tuple(behind),
                placements,
                found.calls,
            )
        )
    graph_part = LineGraph(slots, non_view, children)
    return _Skeleton(entities, children, parents, code_lines, graph_part, tuple(placed))


def _is_view(entity: Mapping[str, Any]) -> bool:
    kind = entity.get("kind")
    return type(kind) is str and kind in dominant_metric.VIEW_KINDS


def _index_result(
    labels: _ResultLabels,
    result: Mapping[str, Any],
    resolve: Callable[[str], Path | None],
    configured_metric: str | None,
    kept: _Kept,
    lines: dict[str, dict[int, list[LineEntry]]],
    diagnostics: dict[str, list[LineDiagnostic]],
    breakdown_layout: object | None = None,
) -> Mapping[str, Mapping[str, Any]]:
    """Add one result's entries and diagnostics; its entities by id."""
    skeleton = kept.skeleton_of(result.get("entities"))
    layout = kept.layout_of(skeleton, labels, resolve)
    figures = result_figures(
        result, skeleton.graph, configured_metric, kept.figures, breakdown_layout
    )
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
            carries(p) for p in above if not _is_view(skeleton.entities[p])
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
