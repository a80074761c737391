"""Which metric a line is judged and shown by, and the lines in order of change.

``line_metrics(result, requested)``: the requested metric names, else the
result's *primary* metric: the first of ``total_cycles``, ``op_cycles``,
``cycles``, ``duration_avg`` found on a code line, else the metric the editor
shows on the lines (``core.dominant_metric.choose_metric``: the one on most
lines, a time before bytes or counts), so a torch.profiler result is judged by
``cpu_time``, not by ``allocated_bytes`` because it sorts first.

``ranked_lines(result, metric)``: code lines with that metric, significant
changes first, then by the size of the relative change (largest first), then
by file and line. A call line's change that the lines it calls account for
(``explained``, see ``inclusive``) is not one of the significant changes: it
is ranked with the rest, by its size, so a change is ranked first once, where
it happens.

Cost: linear in the result's entities (plus the sort).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from perfline.core.compare.comparison import ResultComparison
from perfline.core.compare.deltas import EntityDelta, MetricDelta
from perfline.core.dominant_metric import choose_metric

PREFERRED: Final = ("total_cycles", "op_cycles", "cycles", "duration_avg")


def line_metrics(result: ResultComparison, requested: Sequence[str] = ()) -> list[str]:
    """The metric names lines are judged by (see the module docstring)."""
    if requested:
        return list(dict.fromkeys(requested))
    names: dict[str, None] = {}
    figures: list[list[dict[str, object]]] = []
    for entity in result.lines():
        line: list[dict[str, object]] = []
        for delta in entity.metrics:
            names.setdefault(delta.name, None)
            value = delta.new if delta.new is not None else delta.base
            if not delta.qualifiers and value is not None:
                line.append({"name": delta.name, "unit": delta.unit, "value": value})
        figures.append(line)
    for preferred in PREFERRED:
        if preferred in names:
            return [preferred]
    shown = choose_metric(figures)
    if shown is not None:
        return [shown.name]
    return [next(iter(names))] if names else []


def ranked_lines(result: ResultComparison, metric: str) -> list[tuple[EntityDelta, MetricDelta]]:
    """(line, its delta of ``metric``) for every line that has it, largest changes first."""
    rows = [
        (entity, delta)
        for entity in result.lines()
        for delta in entity.metrics
        if delta.name == metric and not delta.qualifiers
    ]
    rows.sort(key=_rank)
    return rows


def _rank(row: tuple[EntityDelta, MetricDelta]) -> tuple[int, float, str, int]:
    entity, delta = row
    relative = delta.relative
    size = abs(relative) if relative is not None else (float("inf") if delta.delta else 0.0)
    return (
        0 if delta.significant and not delta.explained else 1,
        -size,
        entity.file or "",
        entity.new_line or entity.base_line or 0,
    )
