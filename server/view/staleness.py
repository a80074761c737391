"""The one rule for "these figures may be out of date", used by hints, hovers and lenses.

Figures are stale when the source was edited since the analysis (the line tracker says
so) or when any job behind them serves a stale result (its last run failed, or a newer
run is under way: the engine keeps the last good result and marks it stale). Pure;
one job look-up per distinct job.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from perfline.server.line_entries import LineEntry
from perfline.server.view.engine_surface import JobView

#: What every stale label and lens title ends with.
STALE_MARK = " (stale)"


def stale(
    edited: bool, entries: Iterable[LineEntry], job_of: Callable[[str], JobView | None]
) -> bool:
    """True if the text was edited or a job behind ``entries`` serves a stale result."""
    if edited:
        return True
    seen: set[str] = set()
    for entry in entries:
        if entry.facts.job in seen:
            continue
        seen.add(entry.facts.job)
        info = job_of(entry.facts.job)
        if info is not None and info.stale:
            return True
    return False
