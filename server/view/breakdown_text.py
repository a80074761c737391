"""The "Show Breakdown" view, as Markdown: some lines of a source (one line, a block, a
file, or every annotated line of the model) with their figures and operators, and the
model's own metrics.

Sections: what ran; the lines (figure, share of the model, the costliest operator; call
lines marked inclusive; lines without a figure named once with the reason, never a row of
"n/a"); the operators under them, most costly first; the model-level metrics (the ones
the result says are unavailable are named with their reason in one sentence). Numbers
follow ``core.figure_text``, units are written once. Pure; linear in the lines and
their operators.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from perfline.core import dominant_metric, figure_text
from perfline.core.escaping import markdown_code
from perfline.server.line_entries import LineEntry
from perfline.server.view.hover_text import cell
from perfline.server.view.line_details import OperatorRow, no_figure, operator_rows
from perfline.server.view.result_tables import ResultTables
from perfline.server.view.run_summary import unavailable

#: Operator rows shown before "(+N more)".
MAX_OPERATORS = 40


def breakdown_markdown(
    title: str, job: str, lines: Sequence[tuple[int, LineEntry]], tables: ResultTables
) -> str:
    """``lines``: (current 1-based line, entry) of one job result, in line order."""
    parts = [f"# {cell(title)}", "", f"*{cell(tables.run)} · job {markdown_code(job)}*", ""]
    if lines:
        parts += _lines_section(lines, tables)
    else:
        parts += ["No figures on these lines.", ""]
    parts += _model_section(tables)
    return "\n".join(parts).rstrip() + "\n"


def _where(line: int, entry: LineEntry) -> str:
    return f"{Path(entry.facts.recorded_file).name}:{line}"


def _lines_section(lines: Sequence[tuple[int, LineEntry]], tables: ResultTables) -> list[str]:
    rows = ["## Lines", "", "| line | figure | share of model | costliest operator |"]
    rows.append("|---|---:|---:|---|")
    missing: list[str] = []
    operators: dict[str, tuple[str, OperatorRow]] = {}
    for line, entry in lines:
        found = operator_rows(entry, tables.breakdowns, tables.entities, tables.parents)
        for row in found:
            operators.setdefault(f"{row.type}/{row.name}", (_where(line, entry), row))
        reason = no_figure(entry)
        if reason is not None or entry.value is None or entry.metric is None:
            missing.append(f"{line} ({reason.words if reason else 'no sample'})")
            continue
        figure = figure_text.format_value(entry.value, entry.metric.unit)
        figure += f" {entry.statistic}" if entry.statistic else ""
        figure += " (inclusive)" if entry.facts.calls else ""
        share = figure_text.format_share(entry.value, entry.total) or ""
        top = f"{found[0].name} ({found[0].type})" if found else ""
        rows.append(f"| {cell(_where(line, entry))} | {figure} | {share} | {cell(top)} |")
    if len(rows) == 4:
        rows = ["## Lines", ""]
    out = [*rows, ""]
    if missing:
        out += [f"No figure on line {', '.join(missing)}.", ""]
    if operators:
        out += _operators_section(sorted(operators.values(), key=lambda x: -x[1].value), lines)
    return out


def _operators_section(
    operators: Sequence[tuple[str, OperatorRow]], lines: Sequence[tuple[int, LineEntry]]
) -> list[str]:
    first = operators[0][1]
    total = next((e.total for _, e in lines if e.total), None)
    figure = f"{first.statistic or 'figure'} ({first.unit})" if first.unit else "figure"
    rows = ["## Operators", "", f"| type | operator | line | {figure} | share of model |"]
    rows.append("|---|---|---|---:|---:|")
    for where, row in operators[:MAX_OPERATORS]:
        value = figure_text.format_number(row.value, row.unit)
        share = figure_text.format_share(row.value, total) or ""
        rows.append(f"| {cell(row.type)} | {cell(row.name)} | {where} | {value} | {share} |")
    if len(operators) > MAX_OPERATORS:
        rows += ["", f"(+{len(operators) - MAX_OPERATORS} more operators)"]
    return [*rows, ""]


def _model_section(tables: ResultTables) -> list[str]:
    metrics = [m for m in tables.result.get("metrics") or () if isinstance(m, dict)]
    numeric = [(m, v) for m in metrics if (v := dominant_metric.numeric(m)) is not None]
    out = ["## Model", ""]
    if numeric:
        out += ["| metric | value |", "|---|---:|"]
        out += [
            f"| {cell(m.get('name'))} | {figure_text.format_value(v, str(m.get('unit', '')))} |"
            for m, v in numeric
        ]
        out.append("")
    missing = unavailable(tables.result)
    if missing:
        listed = "; ".join(f"{name} ({reason.rstrip('.')})" for name, reason in missing)
        out += [f"Not available: {cell(listed)}.", ""]
    return out
