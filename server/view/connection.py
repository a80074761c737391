"""What one client connection sees: hints, hovers, lenses, diagnostics and API answers.

``ConnectionView`` holds a connection's state that is not protocol: its hint settings and
compare options, its open documents (each with a ``LineTracker`` so figures follow unsaved
edits) and the caches of what it was last shown. With a baseline comparison source
(``compare_surface``), hints, hovers, lenses and diagnostics add the changes against each
job's baseline (``line_deltas``, ``delta_hover``, ``block_deltas``, ``regression_rules``),
read from ready comparisons only. Every answer reads the one staleness rule
(``staleness.stale``). Answers are the plain values of ``server.view.shapes`` in the
view's convention (1-based lines, code-point columns, file-system paths); the LSP shell
converts them. Several connections share one engine, each with its own view.

Caches (the connection's, listed in ARCHITECTURE.md's inventory): a file's hint rows are
computed once per (engine version, edit version, settings, comparisons version) and then
served from the cache, a slice per request (bisect); model totals of a metric other than
the index's own once per (engine version, job, result, metric); a result's look-up
tables (``result_tables``) once per (engine version, job, result), on the first hover
that needs them; hovers and lenses are computed per request from the cached entries
(lenses also parse the source with ``ast``: linear in its length).
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from perfline.core import dominant_metric
from perfline.core.errors import InputError
from perfline.server import api
from perfline.server.line_entries import LineEntry
from perfline.server.scheduler.bounded_reads import read_source_text
from perfline.server.view import line_labels
from perfline.server.view.block_deltas import block_changes
from perfline.server.view.code_blocks import lenses_of
from perfline.server.view.compare_options import CompareOptions, read_compare_options
from perfline.server.view.compare_surface import ComparisonSupplier
from perfline.server.view.diagnostic_rules import workspace_diagnostics
from perfline.server.view.edit_tracking import LineTracker
from perfline.server.view.engine_surface import EngineSource, EngineSurface
from perfline.server.view.hint_settings import HintSettings, chosen_section, read_settings
from perfline.server.view.hover_text import HoverFacts, hover_markdown
from perfline.server.view.line_deltas import DeltaLookup
from perfline.server.view.line_details import operator_rows
from perfline.server.view.regression_rules import regressions
from perfline.server.view.result_tables import ResultTables, result_tables
from perfline.server.view.shapes import (
    LINE_END,
    Diagnostic,
    DiagnosticsUpdate,
    Hint,
    HintPage,
    HoverView,
    Lens,
    SettingsChange,
)
from perfline.server.view.staleness import STALE_MARK, stale

#: A file's entries by current 1-based line, its hint rows (sorted by line) and their lines.
_Lines = tuple[dict[int, list[LineEntry]], tuple[Hint, ...], list[int]]


class ConnectionView:
    """One connection's view of the shared engine."""

    def __init__(self, engine: EngineSource, comparisons: ComparisonSupplier | None = None) -> None:
        self._engine = engine
        self._comparisons = comparisons
        self.settings = HintSettings()
        self.compare = CompareOptions()
        self._settings_version = 0
        self._documents: dict[str, LineTracker] = {}
        self._lines: dict[str, tuple[tuple[int, int, int, int, int], _Lines]] = {}
        #: Per engine version: model totals by (job, result, metric) and result tables by
        #: (job, result), made on first use.
        self._totals: dict[tuple[str, int, dominant_metric.MetricKey], float | None] = {}
        self._tables: dict[tuple[str, int], ResultTables | None] = {}
        self._cached_version = -1
        self._published: set[str] = set()

    # ---------------------------------------------------------------- settings

    def apply_settings(self, *candidates: Any) -> SettingsChange:
        """Use the first candidate holding a ``perfline`` section (in order of authority:
        a ``workspace/configuration`` answer, then pushed settings); none: no change."""
        section = chosen_section(*candidates)
        if section is None:
            return SettingsChange(False, ())
        readout = read_settings(section)
        compare, compare_problems = read_compare_options(section)
        problems = readout.problems + compare_problems
        if readout.settings == self.settings and compare == self.compare:
            return SettingsChange(False, problems)
        self.settings = readout.settings
        self.compare = compare
        self._settings_version += 1
        return SettingsChange(True, problems)

    # --------------------------------------------------------------- documents

    def open(self, file: str, text: str) -> None:
        self._documents[file] = LineTracker(text)

    def close(self, file: str) -> None:
        self._documents.pop(file, None)

    def is_open(self, file: str) -> bool:
        return file in self._documents

    def edit(
        self, file: str, start: tuple[int, int], end: tuple[int, int], text: str, full_text: str
    ) -> None:
        """A ranged change from ``start`` to ``end`` ((1-based line, column) in the text
        before it; columns in any unit, only "at the line's start" matters) replaced by
        ``text``; ``full_text``: the document after it."""
        tracker = self._documents.get(file)
        if tracker is not None:
            tracker.apply_range((start[0] - 1, start[1]), (end[0] - 1, end[1]), text, full_text)

    def replace(self, file: str, full_text: str) -> None:
        tracker = self._documents.get(file)
        if tracker is not None:
            tracker.apply_full(full_text)

    def result_changed(self, job: str) -> None:
        """A new good result of ``job``: its files' figures are up to date again."""
        good = self._engine().result(job)
        files = set(good.index.lines) if good is not None else set()
        for file, tracker in self._documents.items():
            if file in files or _resolved(file) in files:
                tracker.reset()

    def current_line(self, file: str, analysis_line: int) -> int | None:
        """1-based current line of a 1-based analysis line (``None``: deleted since)."""
        tracker = self._documents.get(file)
        if tracker is None:
            return analysis_line
        current = tracker.current(analysis_line - 1)
        return None if current is None else current + 1

    def line_length(self, file: str, line: int) -> int | None:
        """Code points of a 1-based current line of an open document (``None``: not open)."""
        tracker = self._documents.get(file)
        if tracker is None:
            return None
        lines = tracker.text_lines
        return len(lines[line - 1].rstrip("\r")) if 0 < line <= len(lines) else 0

    # ----------------------------------------------------------------- queries

    def hints(self, file: str, first: int, last: int) -> HintPage:
        """The hints of a file (as the client has it, else as on disk); ``rows[start:stop]``
        are those on lines first..last."""
        _, rows, lines = self._file_lines(file)
        return HintPage(rows, bisect.bisect_left(lines, first), bisect.bisect_right(lines, last))

    def entries(self, file: str, line: int) -> Sequence[LineEntry]:
        """The line index's entries on a 1-based current line."""
        return self._file_lines(file)[0].get(line, ())

    def hover(self, file: str, line: int) -> HoverView | None:
        entries = self._file_lines(file)[0].get(line)
        if not entries:
            return None
        deltas = self.deltas()
        markdown = hover_markdown(
            [self._hover_facts(file, e, deltas) for e in entries], stale=self.stale(file, entries)
        )
        return HoverView(line, self._text_length(file, line), markdown)

    def lenses(self, file: str) -> tuple[Lens, ...]:
        """Code lenses of a Python file: one per function and nn.Module with figures."""
        if not file.endswith(".py"):
            return ()
        by_line = self._file_lines(file)[0]
        source = "\n".join(self._source_lines(file))
        blocks = lenses_of(source, file, by_line, self.settings, self._total_of, self.current_line)
        deltas = self.deltas()
        changes = block_changes(blocks, self._lens_entry(by_line), deltas, self.compare.settings)
        lenses = []
        for position, block in enumerate(blocks):
            inside = [e for n in range(block.line, block.end_line + 1) for e in by_line.get(n, ())]
            mark = STALE_MARK if self.stale(file, inside) else ""
            title = block.titled(changes.get(position, ""))
            lenses.append(Lens(block.line, block.end_line, title + mark))
        return tuple(lenses)

    def diagnostics(self) -> DiagnosticsUpdate:
        """Every file's diagnostics now, and the files whose earlier ones must be cleared."""
        engine = self._engine()
        found = workspace_diagnostics(engine, self.current_line, self.line_length)
        self._compare_diagnostics(found, engine.annotated_files())
        files = {file: tuple(items) for file, items in found.items()}
        cleared = tuple(sorted(self._published - set(files)))
        self._published = set(files)
        return DiagnosticsUpdate(files, cleared)

    def request(self, method: str, params: Any) -> Any:
        """A ``perfline/*`` API method, with this connection's line map (raises ``ApiError``)."""
        return api.METHODS[method](self._engine(), params, self._api_line)

    def stale(self, file: str, entries: Sequence[LineEntry]) -> bool:
        """The one staleness rule, for the figures of ``entries`` shown in ``file``."""
        tracker = self._documents.get(file)
        edited = tracker is not None and tracker.edited
        return stale(edited, entries, self._engine().job)

    def deltas(self) -> DeltaLookup:
        """The changes against the baselines, as ready now (none without a source)."""
        source = self._comparisons() if self._comparisons is not None else None
        return DeltaLookup(source, self._engine(), self.compare.settings)

    # --------------------------------------------------------------- internals

    def _hover_facts(self, file: str, entry: LineEntry, deltas: DeltaLookup) -> HoverFacts:
        delta = deltas.of(entry)
        tables = self._result_tables(entry.facts.job, entry.facts.result_index)
        if tables is None:
            return HoverFacts(entry, file, (), entry.facts.producer, delta)
        rows = operator_rows(entry, tables.breakdowns, tables.entities, tables.parents)
        return HoverFacts(entry, file, rows, tables.run, delta)

    def _lens_entry(
        self, by_line: dict[int, list[LineEntry]]
    ) -> Callable[[int], tuple[LineEntry, str] | None]:
        def at(line: int) -> tuple[LineEntry, str] | None:
            chosen = line_labels.lens_entry(by_line.get(line, ()), self.settings, self._total_of)
            return None if chosen is None else (chosen[0], chosen[1][1].name)

        return at

    def _compare_diagnostics(
        self, found: dict[str, list[Diagnostic]], files: Sequence[str]
    ) -> None:
        """Regression warnings on the annotated files, baseline problems where they are."""
        source = self._comparisons() if self._comparisons is not None else None
        if source is None:
            return
        deltas = self.deltas()
        if not any(deltas.job(name) is not None for name in self._engine().job_names()):
            files = ()  # nothing is compared: no file can warn
        for file in files:
            if not Path(file).is_absolute():
                continue
            by_line = self._file_lines(file)[0]
            found.setdefault(file, []).extend(
                regressions(
                    by_line,
                    deltas,
                    self.settings,
                    self._total_of,
                    self.compare.regression_threshold,
                    functools.partial(self._line_end, file),
                )
            )
        for problem in source.problems():
            found.setdefault(problem.file, []).append(
                Diagnostic(
                    problem.line, 0, LINE_END, problem.message, "error", "perfline", "baseline"
                )
            )

    def _line_end(self, file: str, line: int) -> int:
        found = self.line_length(file, line)
        return found if found is not None else self._text_length(file, line)

    def _source_lines(self, file: str) -> list[str]:
        """The file's lines as the client has it, else as on disk."""
        tracker = self._documents.get(file)
        return tracker.text_lines if tracker is not None else _disk_lines(file, self._engine())

    def _text_length(self, file: str, line: int) -> int:
        """Code points of a 1-based line of the file as the client has it (else on disk)."""
        lines = self._source_lines(file)
        return len(lines[line - 1].rstrip("\r")) if 0 < line <= len(lines) else 0

    def _api_line(self, path: Path, line: int) -> int | None:
        return self.current_line(str(path), line)

    def _file_lines(self, file: str) -> _Lines:
        """Entries and hint rows by current line, cached until the engine, the edits or the
        settings change."""
        engine = self._engine()
        tracker = self._documents.get(file)
        edits = tracker.version if tracker is not None else -1
        source = self._comparisons() if self._comparisons is not None else None
        compared = source.version if source is not None else -1
        key = (engine.version, edits, id(tracker), self._settings_version, compared)
        cached = self._lines.get(file)
        if cached is not None and cached[0] == key:
            return cached[1]
        found: dict[int, list[LineEntry]] = {}
        for number, entries in engine.line_entries(file).items():
            current = self.current_line(file, number)
            if current is not None:
                found.setdefault(current, []).extend(entries)
        rows = self._rows(file, found, tracker, engine, self.deltas())
        made = (found, rows, [row.line for row in rows])
        self._lines[file] = (key, made)
        return made

    def _rows(
        self,
        file: str,
        found: dict[int, list[LineEntry]],
        tracker: LineTracker | None,
        engine: EngineSurface,
        deltas: DeltaLookup,
    ) -> tuple[Hint, ...]:
        text = tracker.text_lines if tracker is not None else _disk_lines(file, engine)
        count = len(text) - 1 if text and text[-1] == "" else len(text)
        edited = tracker is not None and tracker.edited
        rows: list[Hint] = []
        for current, entries in sorted(found.items()):
            if current > count:
                continue
            label = line_labels.line_label(entries, self.settings, self._total_of, deltas)
            if not label:
                continue
            if stale(edited, entries, engine.job):
                label += STALE_MARK
            tooltip = ", ".join(sorted({f"{e.facts.name} ({e.facts.job})" for e in entries}))
            rows.append(Hint(current, len(text[current - 1].rstrip("\r")), label, tooltip))
        return tuple(rows)

    def _current(self, engine: EngineSurface) -> None:
        """Drop the totals and tables made for another engine version."""
        if self._cached_version != engine.version:
            self._totals = {}
            self._tables = {}
            self._cached_version = engine.version

    def _result_tables(self, job: str, result_index: int) -> ResultTables | None:
        """``result_tables`` of a job's result (cached per engine state)."""
        engine = self._engine()
        self._current(engine)
        key = (job, result_index)
        if key not in self._tables:
            self._tables[key] = result_tables(engine.result(job), result_index)
        return self._tables[key]

    def _total_of(self, entry: LineEntry, key: dominant_metric.MetricKey) -> float | None:
        """The model total of ``key`` in the result behind ``entry`` (cached per engine state)."""
        engine = self._engine()
        self._current(engine)
        cache_key = (entry.facts.job, entry.facts.result_index, key)
        if cache_key not in self._totals:
            self._totals[cache_key] = line_labels.result_total(engine, entry, key)
        return self._totals[cache_key]


def _disk_lines(file: str, engine: EngineSurface) -> list[str]:
    """The lines of a file as saved: a bounded read of a regular file (a FIFO or a device
    behind a client's path cannot block or exhaust the daemon); none if unreadable."""
    try:
        return read_source_text(Path(file), engine.boundary).split("\n")
    except InputError:
        return []


def _resolved(file: str) -> str:
    try:
        return str(Path(file).resolve())
    except OSError:
        return file
