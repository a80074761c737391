"""What a hover or a breakdown says about one line beyond its figure.

* ``no_figure``: why a line the result covers has no figure: *no sample* (nothing under it
  was measured: an operator without a kernel, a view), *partial coverage* (some of its
  operators carry figures, others none), or *conflicting figures* (all of them do, but the
  ways of adding them up for this line disagree, e.g. by float rounding, or shared chains).
* ``calls_text``: the lines a call line (``x = self.blocks(x)``) calls; its figure is
  inclusive of theirs.
* ``statistics``: every statistic the line's metrics hold (avg, p50, p90, min, max, runs),
  grouped by measurement, so a table can name the unit once; the other metrics apart.
* ``operator_rows``: the operators under the line (type, name, figure), most costly first,
  from their own breakdowns or those of the non-view entities right above them.

Pure over a line entry and its result's breakdown table; linear in the line's metrics and
operators.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from perfline.core import call_lines, dominant_metric
from perfline.server.line_entries import LineEntry

Reason = Literal["conflict", "partial", "no-sample"]

#: The short words a lens uses for each reason.
REASON_WORDS: dict[Reason, str] = {
    "conflict": "conflicting figures",
    "partial": "partial coverage",
    "no-sample": "no sample",
}

#: Statistics in the order tables show them; ``runs`` is the execution count.
STATISTIC_ORDER = ("avg", "mean", "median", "p50", "p90", "p95", "p99", "min", "max")
_RUN_COUNTS = frozenset({"execution_count", "executions", "runs"})
_STAT_SUFFIX = re.compile(r"_(?:avg|mean|median|min|max|p\d{1,2})$")


@dataclass(frozen=True, slots=True)
class MissingFigure:
    """Why a covered line has no figure: the reason and a sentence for the hover."""

    reason: Reason
    sentence: str

    @property
    def words(self) -> str:
        return REASON_WORDS[self.reason]

    @property
    def complete(self) -> bool:
        """Whether a sum that leaves this line out is still a total (nothing was measured)."""
        return self.reason == "no-sample"


def no_figure(entry: LineEntry) -> MissingFigure | None:
    """None when the line has a figure."""
    if entry.value is not None:
        return None
    count, measured = len(entry.facts.source_operators), entry.measured_operators
    if entry.metric is None or measured == 0:
        what = "operator under this line carries" if count == 1 else "operators under it carry"
        return MissingFigure(
            "no-sample",
            f"No figure: no sample. The {count} {what} no measurement (no kernel ran, "
            "or only views of other operators).",
        )
    if measured < count:
        return MissingFigure(
            "partial",
            f"No figure: partial coverage. {measured} of the {count} operators under this "
            "line carry figures; a figure for the line would leave the others out.",
        )
    return MissingFigure(
        "conflict",
        f"No figure: conflicting figures. All {count} operators under this line carry "
        "figures, but the ways of adding them up for this line disagree (float rounding of "
        "sums in different orders, or figures shared with other lines).",
    )


def calls_text(entry: LineEntry, file: str) -> str:
    """``lines 24-27`` (this file) and ``other.py:3`` (other files) of a call line (the
    ranges as ``core.call_lines`` writes them for every report)."""
    here = sum(1 for f, _ in entry.facts.calls if f == file)
    text = call_lines.calls_text(entry.facts.calls, file)
    if not here:
        return text
    return ("line " if here == 1 else "lines ") + text


@dataclass(frozen=True, slots=True)
class Statistics:
    """One measurement's statistics: ``name`` (``duration``), its unit, values by statistic
    (in ``STATISTIC_ORDER``), the run count when known."""

    name: str
    unit: str
    values: tuple[tuple[str, float], ...]
    runs: int | None = None


@dataclass(frozen=True, slots=True)
class LineMetrics:
    """A line's metrics as tables show them: measurements with statistics, other metrics
    (name, value, unit), and the metrics that are not available (name, reason)."""

    measurements: tuple[Statistics, ...]
    others: tuple[tuple[str, float, str], ...]
    unavailable: tuple[tuple[str, str], ...] = field(default=())


def call_count_text(calls_per_step: float) -> str:
    """``2 calls/step``, ``1 call/step``, ``0.67 calls/step`` (a ``def`` line's entries)."""
    number = f"{calls_per_step:.3g}"
    return f"{number} call{'' if number == '1' else 's'}/step"


def statistics(metrics: Sequence[Mapping[str, Any]]) -> LineMetrics:
    """Every statistic and metric of a line (per-run samples counted, not listed)."""
    grouped: dict[tuple[str, str], dict[str, float]] = {}
    others: list[tuple[str, float, str]] = []
    unavailable: list[tuple[str, str]] = []
    runs: int | None = None
    for metric in metrics:
        name, unit = str(metric.get("name", "")), str(metric.get("unit", ""))
        value = dominant_metric.numeric(metric)
        if value is None:
            unavailable.append((name, str(metric.get("reason") or "not available")))
            continue
        if name in _RUN_COUNTS:
            runs = int(value)
            continue
        qualifiers = metric.get("qualifiers")
        if isinstance(qualifiers, Mapping) and "execution" in qualifiers:
            continue  # one run's sample: the statistics summarise them
        statistic = dominant_metric.statistic_of(metric)
        if statistic in STATISTIC_ORDER:
            base = _STAT_SUFFIX.sub("", name) or name
            grouped.setdefault((base, unit), {}).setdefault(str(statistic), value)
        else:
            others.append((name, value, unit))
    measurements = tuple(
        Statistics(
            base,
            unit,
            tuple((s, found[s]) for s in STATISTIC_ORDER if s in found),
            runs,
        )
        for (base, unit), found in grouped.items()
    )
    return LineMetrics(measurements, tuple(others), tuple(unavailable))


@dataclass(frozen=True, slots=True)
class OperatorRow:
    """An operator (or the non-view entity carrying its figure) under a line."""

    entity_id: str
    type: str
    name: str
    value: float
    unit: str
    statistic: str | None


def operator_rows(
    entry: LineEntry,
    breakdowns: Mapping[str, Sequence[Mapping[str, Any]]],
    entities: Mapping[str, Mapping[str, Any]],
    parents: Mapping[str, Sequence[str]],
) -> list[OperatorRow]:
    """The operators under the line with their figure of the line's metric, most costly
    first; an operator without one of its own is represented by the non-view entities
    right above it that carry one (each once)."""
    key = entry.metric
    if key is None:
        return []
    rows: dict[str, OperatorRow] = {}
    for operator in entry.facts.source_operators:
        op_id = str(operator.get("id"))
        row = _row(op_id, operator, breakdowns, key)
        if row is not None:
            rows[op_id] = row
            continue
        for parent in parents.get(op_id, ()):
            above = entities.get(parent)
            if above is None or above.get("kind") in dominant_metric.VIEW_KINDS or parent in rows:
                continue
            found = _row(parent, above, breakdowns, key)
            if found is not None:
                rows[parent] = found
    return sorted(rows.values(), key=lambda r: (-r.value, r.name))


def _row(
    entity_id: str,
    entity: Mapping[str, Any],
    breakdowns: Mapping[str, Sequence[Mapping[str, Any]]],
    key: dominant_metric.MetricKey,
) -> OperatorRow | None:
    value, statistic = dominant_metric.value_of(breakdowns.get(entity_id, ()), key)
    if value is None:
        return None
    name = str(entity.get("name", entity_id))
    return OperatorRow(entity_id, operator_type(entity), name, value, key.unit, statistic)


def operator_type(entity: Mapping[str, Any]) -> str:
    """``aten.conv2d`` for ``torch.ops.aten.conv2d.default``; else a declared type or the kind."""
    attributes = entity.get("attributes")
    if isinstance(attributes, Mapping):
        types = attributes.get("operator_types")
        if isinstance(types, list) and types and isinstance(types[0], str):
            parts = types[0].split(".")
            if len(parts) >= 4 and parts[0] == "torch" and parts[1] == "ops":
                return f"{parts[2]}.{parts[3]}"
            return types[0]
        for key in ("operator_type", "op_type", "type"):
            value = attributes.get(key)
            if isinstance(value, str) and value:
                return value
    return str(entity.get("kind", ""))
