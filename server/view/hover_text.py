"""The hover of a source line, as Markdown (no LSP types here).

With several jobs on the line, a side-by-side table first (``runtime_columns``: same
line, every runtime). Per job result on the line: a head (``dscnn.py:42`` · the line's
figure · its share of the model), whether the figure is inclusive (a call line: it
includes the lines it calls) or why there is none, then every statistic the line holds
(avg, p50, p90, min, max, runs) in one table that names the unit once, the other
metrics, with a baseline the comparison (``delta_hover``: base, new, delta and verdict
of every statistic), the operators under the line (type, name, figure, share) most
costly first, and what ran (``server.view.run_description``). Numbers follow
``core.figure_text``; no row says "n/a". Pure; linear in the line's metrics and
operators.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfline.core import figure_text
from perfline.core.escaping import markdown_code, markdown_text
from perfline.server.line_entries import LineEntry
from perfline.server.view.delta_hover import delta_markdown
from perfline.server.view.line_deltas import LineDelta
from perfline.server.view.line_details import (
    LineMetrics,
    OperatorRow,
    call_count_text,
    calls_text,
    no_figure,
    statistics,
)
from perfline.server.view.runtime_columns import Column, runtime_table

#: Operator rows shown before "(+N more)".
MAX_OPERATORS = 12


@dataclass(frozen=True, slots=True)
class HoverFacts:
    """One job result's entry on the line and what the hover adds to it."""

    entry: LineEntry
    file: str
    operators: Sequence[OperatorRow]
    run: str
    #: The line's change against its job's baseline, when one is compared.
    delta: LineDelta | None = None


def cell(value: object) -> str:
    """``value`` as the text of one Markdown table cell (``core.escaping.markdown_text``:
    no markup, link or image from a document's text)."""
    return markdown_text(value)


def hover_markdown(facts: Sequence[HoverFacts], *, stale: bool = False) -> str:
    """The hover of one line: one section per job result landing on it."""
    parts: list[str] = []
    if stale:
        parts.append(
            "*Figures may be out of date: the source was edited since the analysis, "
            "or the analysis is failing.*\n"
        )
    side_by_side = runtime_table([Column(f.entry, f.run) for f in facts])
    if side_by_side is not None:
        parts.append(side_by_side)
    for fact in facts:
        parts.extend(_section(fact))
    return "\n".join(parts).strip() + "\n"


def _section(fact: HoverFacts) -> list[str]:
    entry = fact.entry
    head = f"**{cell(entry.facts.name)}**"
    if entry.value is not None and entry.metric is not None:
        head += f" · {figure_text.format_value(entry.value, entry.metric.unit)}"
        head += f" {entry.statistic}" if entry.statistic else ""
        share = figure_text.format_share(entry.value, entry.total)
        head += f" · {share} of the model" if share else ""
    parts = [head + "\n"]
    called = calls_text(entry, fact.file) if entry.facts.calls else ""
    missing = no_figure(entry)
    if missing is not None:
        sentence = missing.sentence + (f" It calls {called}." if called else "")
        parts.append(sentence + _operators_sum(entry, fact.operators) + "\n")
    elif called:
        parts.append(f"*Inclusive*: this line calls {called}; its figure includes theirs.\n")
    calls = entry.facts.calls_per_step
    if calls is not None:
        parts.append(
            f"*Calls*: {call_count_text(calls)} (entries of this function, every caller).\n"
        )
    parts.extend(_metric_tables(statistics(entry.metrics)))
    if fact.delta is not None:
        parts.append(delta_markdown(entry, fact.delta))
    if fact.operators:
        parts.append(_operators(entry, fact.operators))
    parts.append(_provenance(fact))
    return parts


def _operators_sum(entry: LineEntry, operators: Sequence[OperatorRow]) -> str:
    """`` The figures of its 24 operators add up to 10.8 ms.`` when each operator under a
    line without a figure has one of its own (a sum of distinct figures, none shared)."""
    ids = {str(o.get("id")) for o in entry.facts.source_operators}
    if not operators or {r.entity_id for r in operators} != ids:
        return ""
    total = sum(r.value for r in operators)
    what = f"{first.statistic} " if (first := operators[0]).statistic else ""
    return (
        f" The {what}figures of its {len(operators)} operators add up to "
        f"{figure_text.format_value(total, first.unit)}."
    )


def _metric_tables(found: LineMetrics) -> list[str]:
    parts = []
    if found.measurements:
        columns = [s for m in found.measurements for s, _ in m.values]
        columns = list(dict.fromkeys(columns))
        runs = any(m.runs is not None for m in found.measurements)
        header = ["measure", *columns, *(["runs"] if runs else [])]
        rows = [
            "| " + " | ".join(header) + " |",
            "|---|" + "---:|" * (len(header) - 1),
        ]
        for m in found.measurements:
            values = dict(m.values)
            cells = [
                figure_text.format_number(values[c], m.unit) if c in values else "" for c in columns
            ]
            if runs:
                cells.append(str(m.runs) if m.runs is not None else "")
            label = f"{m.name} ({m.unit})" if m.unit else m.name
            rows.append(f"| {cell(label)} | " + " | ".join(cells) + " |")
        parts.append("\n".join(rows) + "\n")
    if found.others:
        rows = ["| metric | value |", "|---|---:|"]
        rows += [f"| {cell(n)} | {figure_text.format_value(v, u)} |" for n, v, u in found.others]
        parts.append("\n".join(rows) + "\n")
    if found.unavailable:
        listed = "; ".join(f"{name} ({reason})" for name, reason in found.unavailable)
        parts.append(f"Not available: {cell(listed)}\n")
    return parts


def _operators(entry: LineEntry, operators: Sequence[OperatorRow]) -> str:
    first = operators[0]
    of_line = entry.value is not None and entry.value > 0
    base = entry.value if of_line else entry.total
    figure = f"{first.statistic or 'figure'} ({first.unit})" if first.unit else "figure"
    rows = [
        f"**Operators under this line**, by cost ({len(operators)}):\n",
        f"| type | operator | {figure} | {'share of line' if of_line else 'share of model'} |",
        "|---|---|---:|---:|",
    ]
    for row in operators[:MAX_OPERATORS]:
        share = figure_text.format_share(row.value, base) or ""
        value = figure_text.format_number(row.value, row.unit)
        rows.append(f"| {cell(row.type)} | {cell(row.name)} | {value} | {share} |")
    if len(operators) > MAX_OPERATORS:
        rows.append(f"\n(+{len(operators) - MAX_OPERATORS} more)")
    return "\n".join(rows[:1]) + "\n" + "\n".join(rows[1:]) + "\n"


def _provenance(fact: HoverFacts) -> str:
    entry = fact.entry
    parts = [fact.run, f"job {markdown_code(entry.facts.job)}"]
    confidence = {
        str(m["qualifiers"]["confidence"])
        for m in entry.metrics
        if isinstance(m.get("qualifiers"), dict) and "confidence" in m["qualifiers"]
    }
    if confidence:
        parts.append("confidence " + ", ".join(sorted(confidence)))
    if entry.facts.placements:
        parts.append("placement " + ", ".join(entry.facts.placements))
    if entry.facts.stacks:
        parts.append(
            f"{len(entry.facts.stacks)} call stack" + ("" if len(entry.facts.stacks) == 1 else "s")
        )
    shown = [cell(parts[0]), parts[1], *(cell(p) for p in parts[2:])]
    return "*" + " · ".join(shown) + "*\n"
