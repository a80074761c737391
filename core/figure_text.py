"""How figures are written: the one rounding rule of everything perfline shows.

``format_number`` / ``format_value`` (a value without / with its unit: ``1.8k cycles``,
``0.42 ms``, ``0.013 ms``), ``format_share`` (``13%``, ``<1%``), ``label`` (a line's hint
text: ``0.42 ms p50 · 21%``), ``combine_labels``, ``format_change`` (a change against a
baseline: ``▲12%``, ``▼<1%``), and ``share_marker`` (``▮▮▮`` for a hot
line: the marker VS Code shows in front of a hint, and the level the CLI's ``annotate`` may
colour by). The rule for times (ms, us, s): no decimals from 100, one from 10, two from 1,
two significant digits below 1; other units are compacted with SI suffixes (1.8k, 3.4M).
The unit is written once, after the number. The hints, hovers, lenses, breakdowns, the
status-bar summary and the CLI's ``annotate`` all write numbers through these functions,
so one figure reads the same everywhere. A leaf module (no imports from perfline): the line
index (engine side) and the CLI may use it as freely as the view layer. Pure; constant time
per figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

#: Units written with two significant decimals below 10 (times), never with an SI suffix.
TIME_UNITS = frozenset({"ms", "us", "s"})


class Unitful(Protocol):
    """Anything that names a unit (a metric identity)."""

    @property
    def unit(self) -> str: ...


def format_number(value: float, unit: str) -> str:
    """The number of ``format_value`` without the unit (for tables that name it once)."""
    if unit in TIME_UNITS:
        magnitude = abs(value)
        if value == 0:
            return "0"
        if magnitude >= 100:
            return f"{value:.0f}"
        if magnitude >= 10:
            return f"{value:.1f}"
        if magnitude >= 1:
            return f"{value:.2f}"
        return f"{value:.2g}"
    return compact(value)


def format_value(value: float, unit: str) -> str:
    """``1.8k cycles``, ``0.42 ms``, ``0.013 ms``, ``12 bytes``."""
    return f"{format_number(value, unit)} {unit}".rstrip()


def compact(value: float) -> str:
    """A number in at most ~4 characters with an SI suffix: 950, 1.8k, 12k, 3.4M."""
    magnitude = abs(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if magnitude >= limit:
            scaled = value / limit
            return (f"{scaled:.1f}" if abs(scaled) < 10 else f"{scaled:.0f}") + suffix
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.3g}"


def format_share(value: float, total: float | None) -> str | None:
    """``value`` as a whole percentage of ``total`` (``<1%`` below one); None without a total."""
    if total is None or total <= 0:
        return None
    share = 100.0 * value / total
    if 0 < share < 1:
        return "<1%"
    return f"{share:.0f}%"


def label(
    value: float,
    key: Unitful,
    statistic: str | None,
    total: float | None,
    runs: int | None = None,
) -> str:
    """``1.8k cycles · 13%`` / ``0.42 ms p50 · 21%``; a figure summarising ``runs`` runs
    (``perfline batch``'s aggregate) ``10.8 ms p50 n=1,240 · 90%``."""
    text = format_value(value, key.unit)
    if statistic:
        text += f" {statistic}"
    if runs is not None:
        text += f" n={runs:,}"
    share = format_share(value, total)
    return f"{text} · {share}" if share else text


def combine_labels(labels: Sequence[str]) -> str:
    """Labels of several jobs on one line, each once, two spaces apart."""
    return "  ".join(dict.fromkeys(labels))


#: Share thresholds (fractions of the model) of the marker levels 1, 2 and 3.
MARKER_LEVELS = (0.05, 0.2, 0.5)
MARKER = "▮"


def share_level(share: float | None) -> int:
    """0 (below 5% of the model, or unknown) to 3 (half of it or more)."""
    if share is None:
        return 0
    return sum(1 for threshold in MARKER_LEVELS if share >= threshold)


def share_marker(share: float | None) -> str:
    """``▮▮▮`` from 50% of the model, ``▮▮`` from 20%, ``▮`` from 5%, else empty."""
    return MARKER * share_level(share)


#: The marks of a value that went up / down against a baseline.
UP = "▲"
DOWN = "▼"


def format_change(relative: float) -> str:
    """A relative change (0.12 = 12% more) as ``▲12%`` / ``▼8%`` / ``▲<1%``: the direction
    of the value (not whether it is better), and the percentage as shares are written."""
    mark = UP if relative > 0 else DOWN
    percent = abs(relative) * 100.0
    if 0 < percent < 1:
        return f"{mark}<1%"
    return f"{mark}{percent:.0f}%"
