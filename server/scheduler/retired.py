"""Objects dropped on the way from a change to its refresh, released once the refresh is out.

A value-only change of a large capture replaces a whole document: the run parses a new
one (its raw form is garbage once post-processed), the stage memo evicts the oldest
processed document it kept, and installing the result replaces the last one served.
Freeing those object trees is reference counting in C that holds the interpreter lock
from start to end (a tenth of the run at 1,000 chains), and doing it inside the run or
the install puts it between the file event and ``workspace/inlayHint/refresh``. The loop
parks them here instead and releases them on its ``Release`` timer, a moment after the
result is published and only while no run is in flight (or once they have waited
``RELEASE_AT_MOST`` seconds, so that steady changes never hold more than a second's
worth). Nothing parked is ever read again: this module only holds references.

Cost: a list append per parked object; the deallocation itself, moved, not saved.
"""

from __future__ import annotations

from typing import Any

#: How long after a result is published its garbage is released (seconds): time enough
#: for the refresh to be written to the client.
RELEASE_DELAY = 0.05
#: The longest anything stays parked while runs keep the loop busy (seconds).
RELEASE_AT_MOST = 1.0


class Retired:
    """Parked references (the loop thread's own; no lock)."""

    def __init__(self) -> None:
        self._parked: list[Any] = []
        self._since: float | None = None

    def park(self, objects: Any, now: float) -> None:
        """Keep ``objects`` (one object, or a tuple/list of them) until ``release``."""
        if objects is None or (isinstance(objects, tuple | list) and not objects):
            return
        self._parked.append(objects)
        if self._since is None:
            self._since = now

    def __len__(self) -> int:
        return len(self._parked)

    def due(self, now: float, *, busy: bool) -> bool:
        """Whether to release now: nothing in flight, or parked for too long."""
        if self._since is None:
            return False
        return not busy or now - self._since >= RELEASE_AT_MOST

    def release(self) -> None:
        """Drop every parked reference (their deallocation runs here)."""
        parked, self._parked, self._since = self._parked, [], None
        parked.clear()
