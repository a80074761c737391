"""A line's hint label and a lens's figure under one client's hint settings.

``line_label`` (the hint text of a source line: the index's own label with the default
settings, else the settings' metric through their format template; with a baseline, the
significant change of the figure shown, ``9.63 ms avg ▲12% · 81%``, from
``line_deltas``), ``lens_figure`` / ``lens_entry`` (what a code lens sums for a line, and
from which entry) and ``fill`` (a template with a figure's values). The model total of a
metric other than the index's own comes from the caller (``TotalOf``: ``result_total``,
cached per engine state by the connection). Pure; linear in a line's entries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from perfline.core import dominant_metric, figure_text
from perfline.server.line_entries import LineEntry
from perfline.server.view.engine_surface import EngineSurface
from perfline.server.view.hint_settings import PLACEHOLDER_PATTERN, HintSettings
from perfline.server.view.line_deltas import DeltaLookup, entry_change


@dataclass(frozen=True)
class LabelFigure:
    """The figure a label shows: value, unit, metric name, share (0-1), statistic."""

    value: float
    unit: str
    metric: str
    share: float | None
    statistic: str | None = None


#: The model total of a metric for an entry's result (``None`` when unknown).
TotalOf = Callable[[LineEntry, dominant_metric.MetricKey], float | None]


def result_total(
    engine: EngineSurface, entry: LineEntry, key: dominant_metric.MetricKey
) -> float | None:
    """The model total of ``key`` in the result behind ``entry`` (``dominant_metric.
    model_total``): the one rule of what a lens's or a hint's share is of, for the
    connection (which caches it per engine state) and the API alike."""
    good = engine.result(entry.facts.job)
    results = good.document.get("results") if good is not None else None
    if not isinstance(results, list) or entry.facts.result_index >= len(results):
        return None
    return dominant_metric.model_total(results[entry.facts.result_index], key)


def chosen_figure(
    entry: LineEntry, settings: HintSettings, total_of: TotalOf
) -> LabelFigure | None:
    """The entry's figure under ``settings``: its own, or the named metric's if it has it."""
    own = entry.metric is not None and entry.metric.name == settings.metric
    if settings.metric is None or own:
        if entry.value is None or entry.metric is None:
            return None
        own_key = entry.metric
        return LabelFigure(entry.value, own_key.unit, own_key.name, entry.share, entry.statistic)
    for metric in entry.metrics:
        if metric.get("name") != settings.metric:
            continue
        value = dominant_metric.numeric(metric)
        if value is None:
            continue
        key = dominant_metric.MetricKey(settings.metric, str(metric.get("unit", "")))
        statistic = dominant_metric.statistic_of(metric)
        total = total_of(entry, key)
        share = value / total if total else None
        return LabelFigure(value, key.unit, key.name, share, statistic)
    return None


def with_delta_slot(template: str) -> str:
    """The template with ``{delta}`` after ``{statistic}`` (else ``{value}``) unless it
    places it itself."""
    if "{delta}" in template:
        return template
    for anchor in ("{statistic}", "{value}"):
        if anchor in template:
            return template.replace(anchor, anchor + " {delta}", 1)
    return template + " {delta}"


def fill(template: str, figure: LabelFigure, delta: str = "") -> str:
    """The template with the figure's values (``delta``: its change against the baseline,
    ``▲12%`` or empty); an unknown share or delta leaves no dangling separator or empty
    brackets."""
    if delta:
        template = with_delta_slot(template)
    share = ""
    if figure.share is not None:
        share = figure_text.format_share(figure.share, 1.0) or ""
    values = {
        "value": figure_text.format_value(figure.value, figure.unit),
        "unit": figure.unit,
        "metric": figure.metric,
        "statistic": figure.statistic or "",
        "share": share,
        "marker": figure_text.share_marker(figure.share),
        "delta": delta,
    }
    text = PLACEHOLDER_PATTERN.sub(lambda m: values.get(m.group(1), ""), template)
    text = re.sub(r"\(\s*\)|\[\s*\]", "", text)
    text = re.sub(r"(\s*[·|,;:-])+\s*$", "", text)
    text = re.sub(r"^\s*([·|,;:-]\s*)+", "", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def line_label(
    entries: Sequence[LineEntry],
    settings: HintSettings,
    total_of: TotalOf,
    deltas: DeltaLookup | None = None,
) -> str | None:
    """A line's hint text under ``settings`` (``None``: no hint). Several jobs on one line
    are joined with two spaces; with the default settings the index's labels are kept
    (with the change against the baseline after the statistic, when significant)."""
    if settings.is_default:
        labels = [_default_label(e, deltas) for e in entries if e.label]
        return figure_text.combine_labels(labels) if labels else None
    shares = [e.share for e in entries if e.share is not None]
    if settings.min_share > 0 and shares and max(shares) * 100 < settings.min_share:
        return None
    parts = []
    for entry in entries:
        figure = chosen_figure(entry, settings, total_of)
        if figure is not None:
            text = fill(settings.format, figure, entry_change(deltas, entry, figure.metric))
            if text:
                parts.append(text)
    return figure_text.combine_labels(parts) if parts else None


def _default_label(entry: LineEntry, deltas: DeltaLookup | None) -> str:
    """The index's label, with ``▲12%`` after its value and statistic when significant."""
    label = entry.label or ""
    if entry.value is None or entry.metric is None:
        return label
    mark = entry_change(deltas, entry, entry.metric.name)
    if not mark:
        return label
    runs = dominant_metric.runs_summarised(entry.metrics, entry.metric)
    return figure_text.label(
        entry.value, entry.metric, entry.statistic, entry.total, runs=runs, change=mark
    )


def lens_figure(
    entries: Sequence[LineEntry], settings: HintSettings, total_of: TotalOf
) -> tuple[float, dominant_metric.MetricKey, float | None] | None:
    """(value, metric, model total) a code lens sums for a line: the index's figure, or
    the named metric's when the settings name one the line has."""
    found = lens_entry(entries, settings, total_of)
    return found[1] if found is not None else None


def lens_entry(
    entries: Sequence[LineEntry], settings: HintSettings, total_of: TotalOf
) -> tuple[LineEntry, tuple[float, dominant_metric.MetricKey, float | None]] | None:
    """The entry whose figure a code lens sums for a line, with that figure."""
    for entry in entries:
        if settings.metric is None or (
            entry.metric is not None and entry.metric.name == settings.metric
        ):
            if entry.value is not None and entry.metric is not None:
                return entry, (entry.value, entry.metric, entry.total)
            continue
        for metric in entry.metrics:
            value = (
                dominant_metric.numeric(metric) if metric.get("name") == settings.metric else None
            )
            if value is not None:
                key = dominant_metric.MetricKey(settings.metric, str(metric.get("unit", "")))
                return entry, (value, key, total_of(entry, key))
    return None
