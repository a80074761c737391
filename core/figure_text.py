"""How figures are written: the one rounding rule of everything perfline shows.

``format_number`` / ``format_value`` (a value without / with its unit: ``1.8k cycles``,
``0.42 ms``, ``0.013 ms``), ``format_share`` (``13%``, ``<1%``), ``label`` (a line's hint
text: ``0.42 ms p50 · 21%``, with a change: ``0.42 ms p50 ▲12% · 21%``), ``combine_labels``,
``format_change`` (a change against a baseline: ``▲12%``, ``▼<1%``), ``format_relative``
(the same percentage with its sign: ``+12%``), ``format_signed_number`` /
``format_difference`` (a difference: ``+1.2``, ``-3.4k cycles``), ``format_p_value``
(``0.013``, ``7.6e-05``), ``format_count`` (an exact count: ``1,234,567 bytes``), and
``share_marker`` (``▮▮▮`` for a hot line: the marker VS Code shows in front of a hint, and
the level the CLI's ``annotate`` may colour by). The rule for times (ms, us, s): no decimals
from 100, one from 10, two from 1, two significant digits below 1; other units are compacted
with SI suffixes (1.8k, 3.4M).
The unit is written once, after the number. The hints, hovers, lenses, breakdowns, the
status-bar summary, the CLI's ``annotate`` and the HTML report's page (which gets every
number as text made here: ``core.report_html``) all write numbers through these functions,
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
    *,
    runs: int | None = None,
    change: str = "",
) -> str:
    """``1.8k cycles · 13%`` / ``0.42 ms p50 · 21%``; a figure summarising ``runs`` runs
    (``perfline batch``'s aggregate) ``10.8 ms p50 n=1,240 · 90%``; with the figure's change
    against a baseline (``format_change``) after the value and statistic:
    ``0.42 ms p50 ▲12% · 21%``."""
    text = format_value(value, key.unit)
    if statistic:
        text += f" {statistic}"
    if runs is not None:
        text += f" n={runs:,}"
    if change:
        text += f" {change}"
    share = format_share(value, total)
    return f"{text} · {share}" if share else text


def format_count(value: int, unit: str = "") -> str:
    """An exact count, its thousands grouped: ``1,234,567 bytes``, ``10``."""
    return f"{value:,} {unit}".rstrip()


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
    return mark + _percent(abs(relative) * 100.0)


def format_relative(relative: float) -> str:
    """A relative change with its sign instead of a mark: ``+12%``, ``-8%``, ``+<1%``, ``0%``
    (the percentage of ``format_change``)."""
    sign = "+" if relative > 0 else "-" if relative < 0 else ""
    return sign + _percent(abs(relative) * 100.0)


def _percent(percent: float) -> str:
    """A non-negative percentage as shares are written: ``12%``, ``<1%``, ``0%``."""
    if 0 < percent < 1:
        return "<1%"
    return f"{percent:.0f}%"


def format_signed_number(value: float, unit: str) -> str:
    """A difference without its unit: ``+1.2``, ``-3.4k``, ``0`` (``format_number`` of its
    size, after its sign)."""
    sign = "+" if value > 0 else "-" if value < 0 else ""
    return sign + format_number(abs(value), unit)


def format_difference(value: float, unit: str) -> str:
    """A difference with its unit: ``+1.2 ms``, ``-3.4k cycles``, ``0 ms``."""
    return f"{format_signed_number(value, unit)} {unit}".rstrip()


def format_p_value(value: float) -> str:
    """An (adjusted) p-value: two significant digits, ``0.013``; below 0.001 in exponent
    form, ``7.6e-05``."""
    return f"{value:.2g}" if value >= 1e-3 else f"{value:.1e}"
