"""The baseline input of the HTML report: where the compare work plugs in.

A ``Comparison`` says what the current document is compared with and, per entity of one of its
results, the baseline and current figure of a metric and how significant the difference is
(decided by the compare core, not here). ``render_report_html(..., comparison=...)`` accepts it
today and renders nothing for it yet: ``comparison_payload`` returns ``None``, and the page's
``applyComparison`` hook does nothing with ``null``. Filling both is the compare view's job:
the payload goes into the page data as ``comparison`` and the hook colours the lines, the chart
and the table by ``significance``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Significance = Literal["improved", "regressed", "unchanged", "inconclusive"]


@dataclass(frozen=True)
class FigureDelta:
    """One entity's figure in the baseline and now, and what the difference means."""

    entity_id: str
    metric: str
    unit: str
    baseline: float | None
    current: float | None
    significance: Significance
    note: str | None = None


@dataclass(frozen=True)
class Comparison:
    """A baseline and the deltas of one result of the current document against it."""

    baseline: str
    result: int = 0
    deltas: tuple[FigureDelta, ...] = ()


def comparison_payload(comparison: Comparison | None) -> dict[str, Any] | None:
    """The page data for a comparison: nothing yet (the compare view fills this in)."""
    del comparison
    return None
