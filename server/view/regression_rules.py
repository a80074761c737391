"""Which lines get a regression warning: significantly worse than the baseline, by more
than the client's threshold.

A line regresses when the figure its hint shows (the index's metric, or the one the
client's hint settings name) changed *significantly* against its job's baseline (the
corrected rank test of the runs, or beyond the estimate threshold for estimates), the
change is a regression by the metric's direction (slower, more cycles, fewer
inferences per second), and its size exceeds ``perfline.compare.regressionThreshold``
(a percentage of the baseline value). One warning per job on such a line, at the line
as the buffer has it now, saying base, new, change, threshold and how it was judged.
Noise never warns. Pure; linear in the file's entries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from perfline.core import figure_text
from perfline.core.compare.deltas import REGRESSION
from perfline.server.line_entries import LineEntry
from perfline.server.view.delta_hover import verdict_sentence
from perfline.server.view.hint_settings import HintSettings
from perfline.server.view.line_deltas import DeltaLookup, metric_delta
from perfline.server.view.line_labels import TotalOf, chosen_figure
from perfline.server.view.shapes import Diagnostic

CODE = "regression"


def regressions(
    by_line: Mapping[int, Sequence[LineEntry]],
    deltas: DeltaLookup,
    settings: HintSettings,
    total_of: TotalOf,
    threshold: float,
    line_length: Callable[[int], int],
) -> list[Diagnostic]:
    """The regression warnings of one file (``by_line``: its entries by current line)."""
    found: list[Diagnostic] = []
    for line, entries in sorted(by_line.items()):
        for entry in entries:
            message = _regression(entry, deltas, settings, total_of, threshold)
            if message is not None:
                found.append(
                    Diagnostic(
                        line=line,
                        column=0,
                        end_column=line_length(line),
                        message=message,
                        severity="warning",
                        source=f"perfline ({entry.facts.job})",
                        code=CODE,
                    )
                )
    return found


def _regression(
    entry: LineEntry,
    deltas: DeltaLookup,
    settings: HintSettings,
    total_of: TotalOf,
    threshold: float,
) -> str | None:
    figure = chosen_figure(entry, settings, total_of)
    found = deltas.of(entry) if figure is not None else None
    if figure is None or found is None:
        return None
    delta = metric_delta(found.entity, figure.metric)
    if delta is None or not delta.counted or delta.verdict != REGRESSION:
        return None
    relative = delta.relative
    if relative is None or abs(relative) <= threshold or delta.base is None or delta.new is None:
        return None
    statistic = f" {figure.statistic}" if figure.statistic else ""
    new = figure_text.format_value(delta.new, delta.unit) + statistic
    base = figure_text.format_value(delta.base, delta.unit)
    limit = f"{threshold * 100:g}%"
    return (
        f"{entry.facts.name} regressed against the baseline: {new}, was {base} "
        f"(beyond the {limit} regression threshold): " + verdict_sentence(delta, found.job.settings)
    )
