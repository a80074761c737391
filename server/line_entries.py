"""What the line index holds, as plain data: a code line's ``LineFacts`` (what it takes
from the entity graph, the result's labels and the path resolver) and its ``LineEntry``
(those facts and the line's figures), the ``LineDiagnostic`` of advice or a failed check,
and a job's ``JobIndex``. Built by ``server.line_index``; read by the view, the API and
the engine's queries. No cost of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from perfline.core import dominant_metric, figure_text


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
    #: How often the function of this ``def`` line was entered per step: the sum of its
    #: stacks' ``calls_per_step`` attribute (a measured result's count, not a figure;
    #: ``None`` when no stack has one).
    calls_per_step: float | None = None


@dataclass(slots=True)
class LineEntry:
    """One code_line entity of one job's result, with what the editor shows for it: the
    line's ``facts`` (the graph part, kept while the graph is) and its figures (made again
    for every result). Plain data, treated as immutable; equal when every field is."""

    facts: LineFacts
    metrics: tuple[Mapping[str, Any], ...]
    value: float | None
    statistic: str | None
    metric: dominant_metric.MetricKey | None
    total: float | None
    #: How many of the facts' ``source_operators`` carry the line's metric (on themselves
    #: or on a non-view entity right above them); counted for lines without a figure only.
    measured_operators: int = 0

    @property
    def label(self) -> str | None:
        """The line's label (``figure_text.label``; with the run count of a figure that is a
        percentile over runs, ``perfline batch``'s), ``None`` without a figure."""
        if self.value is None or self.metric is None:
            return None
        runs = dominant_metric.runs_summarised(self.metrics, self.metric)
        return figure_text.label(self.value, self.metric, self.statistic, self.total, runs)

    @property
    def share(self) -> float | None:
        """The line's value as a share of the model total, when both are known."""
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
