"""A job's headline: the model-level figures a status bar shows, and what ran.

``summary(document, preferred)`` picks the best performance result (``ok`` before
``partial`` before the rest, the first with a numeric model metric), then its headline
metrics: the preferred one, then time (``inference_time`` or a metric in ms), then cycles,
one per unit, at most two (``12.0 ms · 83.5 inferences/s``); every available model metric
for the tooltip (``inference_time: 12.0 ms``: the unit once), and the run's description.
Numbers follow ``core.figure_text``. Pure; linear in the results' model metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core import dominant_metric, figure_text
from perfline.server.view.run_description import describe_run


@dataclass(frozen=True, slots=True)
class Summary:
    """The headline figures (written), every model metric as ``name: value``, what ran."""

    headline: tuple[str, ...]
    metrics: tuple[str, ...]
    run: str


def ranked_results(document: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Performance results first (ok, then partial, then others), then the rest."""
    results = [r for r in document.get("results") or () if isinstance(r, Mapping)]

    def rank(result: Mapping[str, Any]) -> int:
        status = result.get("status")
        kind = 0 if result.get("kind") == "performance" else 10
        return kind + (0 if status == "ok" else 1 if status == "partial" else 2)

    return sorted(results, key=rank)


def summary(document: Mapping[str, Any], preferred: str | None = None, count: int = 2) -> Summary:
    for result in ranked_results(document):
        metrics = [m for m in result.get("metrics") or () if isinstance(m, Mapping)]
        numeric = [(m, v) for m in metrics if (v := dominant_metric.numeric(m)) is not None]
        if not numeric:
            continue
        ordered = sorted(
            enumerate(numeric), key=lambda item: (_rank(item[1][0], preferred), item[0])
        )
        headline: list[str] = []
        units: set[str] = set()
        for _, (metric, value) in ordered:
            unit = str(metric.get("unit", ""))
            if unit not in units and len(headline) < count:
                units.add(unit)
                headline.append(figure_text.format_value(value, unit))
        listed = tuple(
            f"{m.get('name')}: {figure_text.format_value(v, str(m.get('unit', '')))}"
            for m, v in numeric
        )
        return Summary(tuple(headline), listed, describe_run(document, result))
    results = ranked_results(document)
    return Summary((), (), describe_run(document, results[0]) if results else "")


def _rank(metric: Mapping[str, Any], preferred: str | None) -> int:
    name, unit = str(metric.get("name", "")), str(metric.get("unit", ""))
    if preferred and name == preferred:
        return 0
    if name == "inference_time" or unit == "ms":
        return 1
    if "cycles" in name or unit == "cycles":
        return 2
    return 3


def unavailable(result: Mapping[str, Any]) -> Sequence[tuple[str, str]]:
    """The model metrics a result declares unavailable: (name, reason)."""
    return [
        (str(m.get("name", "")), str(m.get("reason") or "not available"))
        for m in result.get("metrics") or ()
        if isinstance(m, Mapping) and dominant_metric.numeric(m) is None
    ]
