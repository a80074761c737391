"""How figures are written: the one rounding rule of everything perfline shows.

``format_value`` (a value with its unit: ``1.8k cycles``, ``0.42 ms``), ``format_share``
(``13%``, ``<1%``), ``label`` (a line's hint text: ``0.42 ms p50 · 21%``) and
``combine_labels``. The hints, hovers, lenses, the status-bar summary and the CLI's
``annotate`` all write numbers through these functions, so one figure reads the same
everywhere. A leaf module (no imports from perfline): the line index (engine side) and
the CLI may use it as freely as the view layer. Pure; constant time per figure.
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


def format_value(value: float, unit: str) -> str:
    """``1.8k cycles``, ``0.42 ms``, ``12 bytes``."""
    if unit in TIME_UNITS:
        if value == 0:
            text = "0"
        elif abs(value) >= 100:
            text = f"{value:.0f}"
        elif abs(value) >= 10:
            text = f"{value:.1f}"
        elif abs(value) >= 0.01:
            text = f"{value:.2f}"
        else:
            text = f"{value:.2g}"
        return f"{text} {unit}"
    return f"{compact(value)} {unit}".rstrip()


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


def label(value: float, key: Unitful, statistic: str | None, total: float | None) -> str:
    """``1.8k cycles · 13%`` / ``0.42 ms p50 · 21%``."""
    text = format_value(value, key.unit)
    if statistic:
        text += f" {statistic}"
    share = format_share(value, total)
    return f"{text} · {share}" if share else text


def combine_labels(labels: Sequence[str]) -> str:
    """Labels of several jobs on one line, each once, two spaces apart."""
    return "  ".join(dict.fromkeys(labels))
