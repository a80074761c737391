"""A client's hint settings: reading them from LSP configuration and rendering labels.

The settings an editor may send (``initializationOptions``, a pushed
``workspace/didChangeConfiguration`` or an answer to a ``workspace/configuration``
pull of the ``perfline`` section), all shaped ``{"hints": {...}}``:

* ``hints.metric``: ``"auto"`` (the server's choice: ``perfline serve --metric``,
  ``[display] metric`` in ``perfline.toml``, else the result's dominant figure) or a
  metric name (``inference_time``, ``npu_cycles``...);
* ``hints.format``: a template with ``{value}``, ``{unit}``, ``{metric}``, ``{share}``;
* ``hints.minShare``: hide the hints of lines whose share of the model is below this
  percentage (0-100).

Invalid values fall back to the defaults, each with a problem message; unknown keys are
ignored. With the defaults, labels are the index's own (``1.8k cycles · 13%``). Nothing
here is a path or a program: settings never make the server run anything (the
estimator is not a setting of the daemon, which only reads estimator outputs).
Pure functions over plain values.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.server import figures
from perfline.server.index import LineEntry

AUTO = "auto"
DEFAULT_FORMAT = "{value} · {share}"
PLACEHOLDERS = ("value", "unit", "metric", "share")
SECTION = "perfline"

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True)
class HintSettings:
    """What one client asked for; ``metric`` ``None`` means the server's choice."""

    metric: str | None = None
    format: str = DEFAULT_FORMAT
    min_share: float = 0.0

    @property
    def is_default(self) -> bool:
        return self.metric is None and self.format == DEFAULT_FORMAT and self.min_share <= 0


@dataclass(frozen=True)
class SettingsReadout:
    settings: HintSettings
    problems: tuple[str, ...]


def section_of(value: Any) -> Mapping[str, Any] | None:
    """The ``perfline`` section of a settings object, whichever way a client nests it:
    ``{"settings": {"perfline": {...}}}`` (initialization options), ``{"perfline": {...}}``
    (a pushed change) or the section itself (a ``workspace/configuration`` answer)."""
    if not isinstance(value, Mapping):
        return None
    if isinstance(value.get("settings"), Mapping):
        value = value["settings"]
    section = value.get(SECTION)
    if isinstance(section, Mapping):
        return section
    if "hints" in value:
        found: Mapping[str, Any] = value
        return found
    return None


def read_settings(section: Mapping[str, Any] | None) -> SettingsReadout:
    """Validated hint settings from a ``perfline`` section (``None``: the defaults)."""
    problems: list[str] = []
    hints = section.get("hints") if section is not None else None
    if hints is None:
        return SettingsReadout(HintSettings(), ())
    if not isinstance(hints, Mapping):
        return SettingsReadout(HintSettings(), ("perfline.hints: expected an object; ignored",))
    metric: str | None = None
    raw = hints.get("metric")
    if isinstance(raw, str):
        metric = raw.strip() or None
        if metric == AUTO:
            metric = None
    elif raw is not None:
        problems.append(f"perfline.hints.metric: expected a string, found {raw!r}; using auto")
    template = DEFAULT_FORMAT
    raw = hints.get("format")
    if isinstance(raw, str) and raw.strip():
        names = _PLACEHOLDER.findall(raw)
        unknown = [n for n in names if n not in PLACEHOLDERS]
        if unknown:
            found = ", ".join("{" + n + "}" for n in unknown)
            allowed = ", ".join("{" + n + "}" for n in PLACEHOLDERS)
            problems.append(
                f"perfline.hints.format: unknown placeholder {found} (allowed: {allowed}); "
                "using the default"
            )
        elif "value" not in names:
            problems.append(f"perfline.hints.format: {raw!r} has no {{value}}; using the default")
        else:
            template = raw.strip()
    elif raw is not None:
        problems.append("perfline.hints.format: expected a non-empty string; using the default")
    min_share = 0.0
    raw = hints.get("minShare")
    if isinstance(raw, int | float) and not isinstance(raw, bool) and math.isfinite(raw):
        min_share = min(100.0, max(0.0, float(raw)))
        if min_share != raw:
            problems.append(f"perfline.hints.minShare: {raw} is outside 0-100; using {min_share:g}")
    elif raw is not None:
        problems.append(f"perfline.hints.minShare: expected a number, found {raw!r}; using 0")
    return SettingsReadout(HintSettings(metric, template, min_share), tuple(problems))


@dataclass(frozen=True)
class Figure:
    """The figure a label shows: value, unit, metric name (with its statistic), share (0-1)."""

    value: float
    unit: str
    metric: str
    share: float | None


#: The model total of a metric for an entry's result (``None`` when unknown).
TotalOf = Callable[[LineEntry, figures.MetricKey], float | None]


def chosen_figure(entry: LineEntry, settings: HintSettings, total_of: TotalOf) -> Figure | None:
    """The entry's figure under ``settings``: its own, or the named metric's if it has it."""
    own = entry.metric is not None and entry.metric.name == settings.metric
    if settings.metric is None or own:
        if entry.value is None or entry.metric is None:
            return None
        name = entry.metric.name + (f" {entry.statistic}" if entry.statistic else "")
        return Figure(entry.value, entry.metric.unit, name, entry.share)
    for metric in entry.metrics:
        if metric.get("name") != settings.metric:
            continue
        value = figures.numeric(metric)
        if value is None:
            continue
        key = figures.MetricKey(settings.metric, str(metric.get("unit", "")))
        statistic = figures.statistic_of(metric)
        total = total_of(entry, key)
        share = value / total if total else None
        name = key.name + (f" {statistic}" if statistic else "")
        return Figure(value, key.unit, name, share)
    return None


def fill(template: str, figure: Figure) -> str:
    """The template with the figure's values; an unknown share leaves no dangling
    separator or empty brackets."""
    share = ""
    if figure.share is not None:
        share = figures.format_share(figure.share, 1.0) or ""
    values = {
        "value": figures.format_value(figure.value, figure.unit),
        "unit": figure.unit,
        "metric": figure.metric,
        "share": share,
    }
    text = _PLACEHOLDER.sub(lambda m: values.get(m.group(1), ""), template)
    text = re.sub(r"\(\s*\)|\[\s*\]", "", text)
    text = re.sub(r"(\s*[·|,;:-])+\s*$", "", text)
    text = re.sub(r"^\s*([·|,;:-]\s*)+", "", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def line_label(
    entries: Sequence[LineEntry], settings: HintSettings, total_of: TotalOf
) -> str | None:
    """A line's hint text under ``settings`` (``None``: no hint). Several jobs on one line
    are joined with two spaces; with the default settings the index's labels are kept."""
    if settings.is_default:
        labels = [e.label for e in entries if e.label]
        return figures.combine_labels(labels) if labels else None
    shares = [e.share for e in entries if e.share is not None]
    if settings.min_share > 0 and shares and max(shares) * 100 < settings.min_share:
        return None
    parts = []
    for entry in entries:
        figure = chosen_figure(entry, settings, total_of)
        if figure is not None:
            text = fill(settings.format, figure)
            if text:
                parts.append(text)
    return figures.combine_labels(parts) if parts else None


def lens_figure(
    entries: Sequence[LineEntry], settings: HintSettings, total_of: TotalOf
) -> tuple[float, figures.MetricKey, float | None] | None:
    """(value, metric, model total) a code lens sums for a line: the index's figure, or
    the named metric's when the settings name one the line has."""
    for entry in entries:
        if settings.metric is None or (
            entry.metric is not None and entry.metric.name == settings.metric
        ):
            if entry.value is not None and entry.metric is not None:
                return entry.value, entry.metric, entry.total
            continue
        for metric in entry.metrics:
            value = figures.numeric(metric) if metric.get("name") == settings.metric else None
            if value is not None:
                key = figures.MetricKey(settings.metric, str(metric.get("unit", "")))
                return value, key, total_of(entry, key)
    return None
