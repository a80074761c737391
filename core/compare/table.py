"""The text report of a comparison (``perfline compare``).

A header (the two runs, how the figures are judged), then per result pair:
the result-level metrics, the model-wide change of the lines (``model_wide``:
``model-wide +25.0% [...] (all lines alike): the verdicts below are against the baseline``;
``check`` judges each line against it), then one row per code line
for the line metric (``selection``): line (``file:base→new`` when it moved),
base, new, delta (in the unit the heading names), change in %, adjusted
p-value (sampled figures) and the verdict, largest significant changes first;
at most ``limit`` rows (0: all), and a count of the others. A call line is
labelled with the lines it calls (``dscnn.py:41 (calls 24-27)``, the marker
of the text report, ``core.call_lines.calls_marker``); when those lines
account for its change, its verdict says ``inclusive`` and the count above the
table leaves it out (the change is counted on the lines it calls,
``inclusive``). Warnings are the
caller's to show (the CLI writes them to standard error). Pure: renders to a
string.

Cost: linear in the comparison's lines (plus their sort).
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Sequence
from pathlib import PurePath

from rich import box
from rich.console import Console
from rich.table import Table

from perfline.core.call_lines import calls_marker
from perfline.core.compare.comparison import Comparison, ResultComparison
from perfline.core.compare.deltas import (
    ADDED,
    IMPROVEMENT,
    NOISE,
    REGRESSION,
    REMOVED,
    SAMPLES,
    EntityDelta,
    MetricDelta,
)
from perfline.core.compare.model_wide import (
    judged_rows,
    model_wide_estimate,
    model_wide_text,
)
from perfline.core.compare.selection import line_metrics, ranked_lines
from perfline.core.figure_text import DOWN, UP
from perfline.core.text_table import ASCII_FRAME, FRAME, plain_console

_VERDICT_TEXT = {ADDED: "new run only", REMOVED: "baseline only"}
#: ▲ / ▼: the value went up / down (figure_text's marks, as the editor's hints and the HTML
#: page write them); whether that is worse is the verdict's word. ``~``: within the noise.
_MARKS = {True: UP, False: DOWN}
_ASCII_MARKS = {True: "^", False: "v"}


def change_mark(delta: MetricDelta, *, ascii_only: bool = False) -> str:
    """The mark of a judged change: the direction of the value for a regression or an
    improvement (a rate that fell is a regression marked ▼), ``~`` for noise, else none."""
    if delta.verdict == NOISE:
        return "~"
    if delta.verdict not in (REGRESSION, IMPROVEMENT) or not delta.delta:
        return ""
    return (_ASCII_MARKS if ascii_only else _MARKS)[delta.delta > 0]


def render_comparison(
    comparison: Comparison,
    *,
    metrics: Sequence[str] = (),
    limit: int = 30,
    width: int = 120,
    ascii_only: bool = False,
) -> str:
    """The comparison as plain text (no colour codes)."""
    buffer = io.StringIO()
    console = plain_console(buffer, width)
    console.print(f"Baseline: {comparison.base_source}")
    console.print(f"New:      {comparison.new_source}")
    settings = comparison.settings
    console.print(
        f"Significance: Mann-Whitney U on per-run values, {settings.correction} correction, "
        f"level {settings.level:g}; figures without per-run values compared exactly "
        f"(threshold {settings.estimate_threshold:.1%})"
    )
    style = ASCII_FRAME if ascii_only else FRAME
    for result in comparison.results:
        _result_section(console, result, metrics, limit, style, ascii_only)
    return buffer.getvalue()


def _result_section(
    console: Console,
    result: ResultComparison,
    requested: Sequence[str],
    limit: int,
    style: box.Box,
    ascii_only: bool,
) -> None:
    console.print()
    console.print(
        f"Result {result.base_index} -> {result.new_index}: {result.kind} by "
        f"{result.producer} (mode {result.mode or '-'})"
    )
    if result.model.metrics:
        table = _table("Model", style)
        for delta in result.model.metrics:
            label = f"{delta.name} ({delta.unit})" if delta.unit else delta.name
            table.add_row(label, *_cells(delta, ascii_only))
        console.print(table)
    for metric in line_metrics(result, requested):
        rows = ranked_lines(result, metric)
        if not rows:
            continue
        verdicts = Counter(delta.verdict for _, delta in rows if not delta.explained)
        inclusive = sum(1 for _, delta in rows if delta.explained)
        unit = f" ({rows[0][1].unit})" if rows[0][1].unit else ""
        console.print(
            f"Lines by {metric}{unit}: {len(rows)} line(s); {verdicts[REGRESSION]} "
            f"regression(s), {verdicts[IMPROVEMENT]} improvement(s), {verdicts[NOISE]} within "
            f"noise, {verdicts[ADDED]} with a figure in the new run only, {verdicts[REMOVED]} "
            "in the baseline only"
            + (
                f"; {inclusive} call line(s) whose change is counted on the lines they call"
                if inclusive
                else ""
            )
        )
        judged = judged_rows(result, metric)
        console.print(model_wide_text(model_wide_estimate(result, metric, judged), gate=False))
        names = _short_names([entity for entity, _ in rows])
        table = _table("Line", style)
        shown = rows if limit <= 0 else rows[:limit]
        for entity, delta in shown:
            table.add_row(_line_label(entity, names), *_cells(delta, ascii_only))
        console.print(table)
        if len(shown) < len(rows):
            console.print(f"... {len(rows) - len(shown)} more line(s) (--all shows every line)")


def _table(first: str, style: box.Box) -> Table:
    table = Table(box=style, show_edge=True, pad_edge=False)
    table.add_column(first, overflow="fold")
    for heading in ("Base", "New", "Delta", "Change", "p (adj.)", "Verdict"):
        table.add_column(heading, justify="right" if heading != "Verdict" else "left")
    return table


def _cells(delta: MetricDelta, ascii_only: bool) -> tuple[str, str, str, str, str, str]:
    relative = delta.relative
    change = f"{relative:+.1%}" if relative is not None else "-"
    p_text = (
        f"{delta.p_adjusted:.3g}"
        if delta.method == SAMPLES and delta.p_adjusted is not None
        else "-"
    )
    verdict = _VERDICT_TEXT.get(delta.verdict, delta.verdict)
    mark = change_mark(delta, ascii_only=ascii_only)
    if mark:
        verdict = f"{mark} {verdict}"
    if delta.explained:
        verdict += ", inclusive"
    return (
        _number(delta.base),
        _number(delta.new),
        _number(delta.delta, signed=True),
        change,
        p_text,
        verdict,
    )


def _number(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.4g}" if signed else f"{value:.4g}"


def _short_names(entities: Sequence[EntityDelta]) -> dict[str, str]:
    """Recorded file -> its name, or the whole path where two files share a name."""
    files = {entity.file for entity in entities if entity.file}
    names = Counter(PurePath(path).name for path in files)
    return {
        path: PurePath(path).name if names[PurePath(path).name] == 1 else path for path in files
    }


def _line_label(entity: EntityDelta, names: dict[str, str]) -> str:
    file = names.get(entity.file or "", entity.file or entity.name)
    calls = f" {calls_marker(entity.calls, entity.file or '')}" if entity.calls else ""
    if entity.status == "removed":
        return f"{file}:{entity.base_line} (removed){calls}"
    if entity.status == "added":
        return f"{file}:{entity.new_line} (added){calls}"
    if entity.base_line != entity.new_line:
        return f"{file}:{entity.base_line}->{entity.new_line}{calls}"
    return f"{file}:{entity.new_line}{calls}"
