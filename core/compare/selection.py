"""Which metric a line is judged and shown by, and the lines in order of change.

``line_metrics(result, requested)``: the requested metric names, else the
result's *primary* metric: the first of ``total_cycles``, ``op_cycles``,
``cycles``, ``duration_avg`` found on a code line, else the first time figure
of a line (a unit of time, ``ns`` to ``s``: a torch.profiler result's ``cpu_time``
before its ``allocated_bytes``), else the first figure of a line.

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

PREFERRED: Final = ("total_cycles", "op_cycles", "cycles", "duration_avg")
TIME_UNITS: Final = ("ns", "us", "µs", "ms", "s")


def line_metrics(result: ResultComparison, requested: Sequence[str] = ()) -> list[str]:
    """The metric names lines are judged by (see the module docstring)."""
    if requested:
        return list(dict.fromkeys(requested))
    names: dict[str, str] = {}
    for entity in result.lines():
        for delta in entity.metrics:
            names.setdefault(delta.name, delta.unit)
    for preferred in PREFERRED:
        if preferred in names:
            return [preferred]
    for name, unit in names.items():
        if unit in TIME_UNITS:
            return [name]
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
