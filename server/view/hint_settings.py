"""A client's hint settings: where they come from and how they are read.

The settings an editor may send (``initializationOptions``, a pushed
``workspace/didChangeConfiguration`` or an answer to a ``workspace/configuration``
pull of the ``perfline`` section), all shaped ``{"hints": {...}}``:

* ``hints.metric``: ``"auto"`` (the server's choice: ``perfline serve --metric``,
  ``[display] metric`` in ``perfline.toml``, else the result's dominant figure) or a
  metric name (``inference_time``, ``npu_cycles``...);
* ``hints.format``: a template with ``{value}`` (the number and its unit), ``{unit}``,
  ``{metric}``, ``{statistic}`` (``avg``, ``p50``... when the figure is one), ``{share}``,
  ``{marker}`` (``▮▮▮`` on hot lines, see ``numbers.share_marker``) and ``{delta}`` (the
  significant change against the job's baseline, ``▲12%``; a format without it gets it
  after ``{statistic}``, else after ``{value}``); the default,
  ``{value} {statistic} · {share}``, gives the index's own labels (``0.42 ms p50 · 21%``);
* ``hints.minShare``: hide the hints of lines whose share of the model is below this
  percentage (0-100).

``chosen_section`` decides which of several sources wins (a pulled answer that holds
the section, else the pushed settings, else nothing changes). Invalid values fall back
to the defaults, each with a problem message; unknown keys are ignored. Nothing here is
a path or a program: settings never make the server run anything (the estimator is not
a setting of the daemon, which only reads estimator outputs). Rendering labels under
these settings is ``server.view.line_labels``. Pure functions over plain values.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

AUTO = "auto"
DEFAULT_FORMAT = "{value} {statistic} · {share}"
PLACEHOLDERS = ("value", "unit", "metric", "statistic", "share", "marker", "delta")
SECTION = "perfline"

PLACEHOLDER_PATTERN = re.compile(r"\{([^{}]*)\}")


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
    if "hints" in value or "compare" in value:
        found: Mapping[str, Any] = value
        return found
    return None


def chosen_section(*candidates: Any) -> Mapping[str, Any] | None:
    """The ``perfline`` section of the first candidate that holds one (``None``: none does,
    so nothing changes).

    Candidates come in order of authority: a ``workspace/configuration`` answer before the
    settings pushed with ``workspace/didChangeConfiguration``. An answer without the
    section (``null``, ``{}``, or only other keys: the client's store has nothing for
    perfline) gives way to the pushed settings instead of resetting them to the defaults.
    """
    for candidate in candidates:
        section = section_of(candidate)
        if section is not None:
            return section
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
        names = PLACEHOLDER_PATTERN.findall(raw)
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
