"""Same line, every runtime: the figures of every job on one source line, side by side.

When several jobs annotate the same file (ExecuTorch portable, XNNPACK, ONNX Runtime,
static cost, an NX estimate...), the hover opens with one table: a column per job, a
row for what ran, the figure the hint shows and its share of that job's model, then a
row per statistic (``duration avg``, ``p50``... with the unit once; times converted to
the first job's unit) and per other metric, each cell empty where a job has no such
figure. The jobs' own sections (operators, provenance) follow it. Lines meet through
the line index (each job's recorded paths resolved onto the workspace file), so runs
recorded in different folders share a row. Pure; linear in the line's metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from perfline.core import figure_text
from perfline.core.escaping import markdown_code, markdown_text
from perfline.core.unit_scale import unit_scale
from perfline.server.line_entries import LineEntry
from perfline.server.view.line_details import statistics


class Column(NamedTuple):
    """One job on the line: its entry and what ran (``run_description``)."""

    entry: LineEntry
    run: str


def runtime_table(columns: Sequence[Column]) -> str | None:
    """The side-by-side table (Markdown), or ``None`` for fewer than two jobs."""
    jobs: dict[str, Column] = {}
    for column in columns:
        jobs.setdefault(column.entry.facts.job, column)
    if len(jobs) < 2:
        return None
    chosen = list(jobs.values())
    header = "| | " + " | ".join(markdown_code(c.entry.facts.job) for c in chosen) + " |"
    rows = [header, "|---|" + "---:|" * len(chosen)]
    rows.append("| ran | " + " | ".join(_cell(c.run) for c in chosen) + " |")
    rows.append("| figure | " + " | ".join(_figure(c.entry) for c in chosen) + " |")
    rows.append("| share of its model | " + " | ".join(_share(c.entry) for c in chosen) + " |")
    for label, cells in _metric_rows([c.entry for c in chosen]):
        rows.append(f"| {_cell(label)} | " + " | ".join(cells) + " |")
    return "**Same line, every runtime**\n\n" + "\n".join(rows) + "\n"


def _figure(entry: LineEntry) -> str:
    if entry.value is None or entry.metric is None:
        return "no figure"
    text = figure_text.format_value(entry.value, entry.metric.unit)
    return f"{text} {entry.statistic}" if entry.statistic else text


def _share(entry: LineEntry) -> str:
    if entry.value is None:
        return ""
    return figure_text.format_share(entry.value, entry.total) or ""


def _metric_rows(entries: Sequence[LineEntry]) -> list[tuple[str, list[str]]]:
    """(row label, one cell per entry): statistics first, then the other metrics."""
    units: dict[str, str] = {}
    order: list[tuple[str, str]] = []
    cells: dict[tuple[str, str], dict[int, str]] = {}
    for position, entry in enumerate(entries):
        found = statistics(entry.metrics)
        for measurement in found.measurements:
            unit = units.setdefault(measurement.name, measurement.unit)
            scale = unit_scale(measurement.unit, unit)
            shown_unit = unit if scale is not None else measurement.unit
            for statistic, value in measurement.values:
                key = (f"{measurement.name} {statistic}", shown_unit)
                number = value * scale if scale is not None else value
                _put(order, cells, key, position, figure_text.format_number(number, shown_unit))
            if measurement.runs is not None:
                _put(
                    order, cells, (f"{measurement.name} runs", ""), position, str(measurement.runs)
                )
        for name, value, unit in found.others:
            _put(order, cells, (name, unit), position, figure_text.format_number(value, unit))
    rows = []
    for key in order:
        name, unit = key
        label = f"{name} ({unit})" if unit else name
        rows.append((label, [cells[key].get(i, "") for i in range(len(entries))]))
    return rows


def _put(
    order: list[tuple[str, str]],
    cells: dict[tuple[str, str], dict[int, str]],
    key: tuple[str, str],
    position: int,
    text: str,
) -> None:
    if key not in cells:
        order.append(key)
        cells[key] = {}
    cells[key].setdefault(position, text)


def _cell(value: object) -> str:
    return markdown_text(value)


def columns_of(entries: Sequence[LineEntry], runs: Mapping[str, str]) -> list[Column]:
    """Columns for ``entries`` with what ran per job (``runs``: job -> text)."""
    return [Column(entry, runs.get(entry.facts.job, entry.facts.producer)) for entry in entries]
