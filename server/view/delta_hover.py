"""The hover's comparison with the baseline: base, new and delta of every statistic.

For one line entry with a ready comparison (``line_deltas.LineDelta``): a sentence on the
figure the hint shows (its change and verdict, and how it was judged: the rank test of
the runs with the correction and level of the client's settings, or an exact comparison
of estimates), the baseline it is compared with (and the baseline's line when the source
changed since and the line moved), then one table row per metric both runs (or either)
have: base, new, delta, change (``▲12%``), verdict. A line only in the new run says so.
A call line's change that the lines it calls account for (``explained``) is marked
inclusive in its rows (``regression, inclusive``, as ``perfline compare``'s table), and,
when significant, the sentence says it is counted on those lines (within the noise it
reads like any other line's).
Numbers follow ``core.figure_text``. Pure; linear in the line's metrics.
"""

from __future__ import annotations

from perfline.core import figure_text
from perfline.core.compare.deltas import (
    ADDED,
    EXACT,
    REMOVED,
    SAMPLES,
    CompareSettings,
    MetricDelta,
)
from perfline.core.escaping import markdown_code, markdown_text
from perfline.server.line_entries import LineEntry
from perfline.server.view.compare_surface import BaselineView
from perfline.server.view.line_deltas import LineDelta, metric_delta

_CORRECTIONS = {"holm": "Holm", "bh": "Benjamini-Hochberg", "none": "no"}


def _cell(value: object) -> str:
    return markdown_text(value)


def delta_markdown(entry: LineEntry, found: LineDelta) -> str:
    """The comparison part of a line's hover (Markdown, ending with a newline)."""
    baseline = found.job.baseline
    entity = found.entity
    parts = [f"**Against the baseline** {baseline_text(baseline)}"]
    if entity.status == "added" or all(m.verdict == ADDED for m in entity.metrics):
        parts[0] += ": this line has no figure in the baseline (new, or rewritten since)."
        return parts[0] + "\n"
    moved = entity.base_line is not None and entity.new_line is not None
    if moved and entity.base_line != entity.new_line:
        parts[0] += f" (line {entity.base_line} there)"
    shown = metric_delta(entity, entry.metric.name) if entry.metric is not None else None
    if shown is not None:
        parts[0] += ": " + verdict_sentence(shown, found.job.settings)
    rows = [
        "| metric | base | new | delta | change | verdict |",
        "|---|---:|---:|---:|---:|---|",
    ]
    rows += [_row(delta) for delta in entity.metrics]
    parts.append("\n".join(rows))
    return "\n\n".join(parts) + "\n"


def baseline_text(baseline: BaselineView) -> str:
    """```.perfline/baselines/job/mlia-output.json``` (set 2026-12-01 10:22 UTC)."""
    text = markdown_code(baseline.path)
    if baseline.origin == "perfline.toml":
        text += " (perfline.toml)"
    elif baseline.set_at:
        text += f" (set {baseline.set_at.replace('T', ' ').replace('+00:00', ' UTC')})"
    return text


def verdict_sentence(delta: MetricDelta, settings: CompareSettings) -> str:
    """``▲152%, a regression (Mann-Whitney U test of 10 + 10 runs, Holm correction:
    p = 7.6e-05 < 0.05).`` for the metric a hint shows."""
    change = figure_text.format_change(delta.relative) if delta.relative else ""
    if delta.explained and delta.significant:
        return (
            f"{change} inclusive: the lines this line calls account for the change, and it is "
            "counted there."
        ).lstrip()
    if delta.method == SAMPLES:
        how = (
            f"Mann-Whitney U test of {delta.base_runs} + {delta.new_runs} runs, "
            f"{_CORRECTIONS.get(settings.correction, settings.correction)} correction: "
            f"p = {_p(delta.p_adjusted)}"
        )
        how += f" {'<' if delta.significant else '≥'} {settings.level:g}"
        if delta.significant:
            return f"{change}, {_article(delta.verdict)} ({how})."
        spread = f"{change} " if change else ""
        return f"{spread}within the runs' spread, not a change ({how})."
    if delta.method == EXACT:
        threshold = f"{settings.estimate_threshold * 100:g}%"
        if delta.significant:
            return f"{change}, {_article(delta.verdict)} (estimates, beyond {threshold})."
        return f"unchanged (estimates, within {threshold})."
    if delta.verdict == ADDED:
        return f"{delta.name} is in the new run only."
    if delta.verdict == REMOVED:
        return f"{delta.name} is in the baseline only."
    return "not comparable (different units)."


def _article(verdict: str) -> str:
    return f"an {verdict}" if verdict[:1] in "aeiou" else f"a {verdict}"


def _p(value: float | None) -> str:
    return "unknown" if value is None else figure_text.format_p_value(value)


def _row(delta: MetricDelta) -> str:
    label = f"{delta.name} ({delta.unit})" if delta.unit else delta.name
    base = figure_text.format_number(delta.base, delta.unit) if delta.base is not None else ""
    new = figure_text.format_number(delta.new, delta.unit) if delta.new is not None else ""
    difference = delta.delta
    signed = "" if difference is None else figure_text.format_signed_number(difference, delta.unit)
    relative = delta.relative
    change = figure_text.format_change(relative) if relative else ""
    verdict = delta.verdict
    if delta.explained:
        verdict += ", inclusive"  # as perfline compare's table: counted on the called lines
    if delta.method == SAMPLES and delta.p_adjusted is not None:
        verdict += f" (p {_p(delta.p_adjusted)})"
    return f"| {_cell(label)} | {base} | {new} | {signed} | {change} | {verdict} |"
