"""Objects dropped on the way from a change to its refresh, released once the refresh is out.

A value-only change of a large capture replaces a whole document: the run parses a new
one (its raw form is garbage once post-processed), the stage memo evicts the oldest
processed document it kept, and installing the result replaces the last one served.
Freeing those object trees is reference counting in C that holds the interpreter lock
from start to end (a tenth of the run at 1,000 chains, a few hundred milliseconds at
20,000), and doing it inside the run or the install puts it between the file event and
``workspace/inlayHint/refresh``. The loop parks them here instead and releases them on
its ``Release`` timer, a moment after the result is published and only while no run is
in flight (or once they have waited ``RELEASE_AT_MOST`` seconds).

Release goes in steps of about ``RELEASE_STEP`` objects, so that the loop handles its
events and the other threads get the interpreter lock between two steps: a large
container that nothing else references is taken apart into slices and its members
(records such as a document, a result or a served result are opened down to
``OPEN_DEPTH`` levels), each freed in its turn. Nothing is ever mutated: a container is
only sliced or looked into, then dropped; what something else still references is
merely dropped (a reference count, no free).

Cost: a list append per parked object; the deallocation itself, moved and sliced, plus
one slice copy per ``RELEASE_STEP`` elements of a large list.
"""

from __future__ import annotations

import sys
from typing import Any

#: How long after a result is published its garbage is released (seconds): time enough
#: for the refresh to be written to the client.
RELEASE_DELAY = 0.05
#: The longest anything stays parked while runs keep the loop busy (seconds).
RELEASE_AT_MOST = 1.0
#: Elements handled per release step (slices of large lists are this long).
RELEASE_STEP = 2048
#: How many levels of small containers (records) are opened to find large ones.
OPEN_DEPTH = 5
#: A container larger than this is cut into slices rather than opened.
_LARGE = 64


class Retired:
    """Parked references (the loop thread's own; no lock)."""

    def __init__(self) -> None:
        #: (object, depth); depth ``-1``: a slice, freed whole.
        self._parked: list[tuple[Any, int]] = []
        self._since: float | None = None

    def park(self, objects: Any, now: float) -> None:
        """Keep ``objects`` (one object, or a tuple/list of them) until released."""
        if objects is None or (isinstance(objects, tuple | list) and not objects):
            return
        self._parked.append((objects, 0))
        if self._since is None:
            self._since = now

    def __len__(self) -> int:
        return len(self._parked)

    def due(self, now: float, *, busy: bool) -> bool:
        """Whether to release now: nothing in flight, or parked for too long."""
        if self._since is None:
            return False
        return not busy or now - self._since >= RELEASE_AT_MOST

    def release(self, step: int = RELEASE_STEP) -> bool:
        """Free about ``step`` elements' worth of what is parked; returns whether anything
        is still parked (release again, after the loop has looked at its inbox)."""
        work = 0
        while self._parked and work < step:
            work += self._release_one()
        if not self._parked:
            self._since = None
        return bool(self._parked)

    def _release_one(self) -> int:
        """Take the last parked object apart, or free it; returns the work done. Every
        local dies with this frame, so a member looked at next is referenced by its
        parked entry alone when nothing else holds it."""
        item, depth = self._parked.pop()
        if depth < 0 or sys.getrefcount(item) > _OWNED:
            return max(1, len(item)) if depth < 0 else 1  # freed whole, or only dereferenced
        return self._open(item, depth)

    def _open(self, item: Any, depth: int) -> int:
        parked = self._parked
        kind = type(item)
        if kind is list or kind is tuple:
            members: Any = item
        elif kind is dict:
            members = list(item.values())
        elif hasattr(item, "__dict__") and not isinstance(item, type):
            members = list(vars(item).values())
        else:
            return 1
        size = len(members)
        if size > _LARGE:
            for start in range(0, size, RELEASE_STEP):
                parked.append((members[start : start + RELEASE_STEP], -1))
            return size
        if depth + 1 < OPEN_DEPTH:
            for member in members:
                if type(member) in _CONTAINERS or hasattr(member, "__dict__"):
                    parked.append((member, depth + 1))
        return size + 1


_CONTAINERS = frozenset({list, tuple, dict})


def _references_when_owned() -> int:
    """What ``sys.getrefcount`` reports in ``_release_one`` for an object that only its
    parked entry referenced (the same pop and unpacking, measured on this interpreter)."""
    parked: list[tuple[Any, int]] = [([0], 0)]
    item, _ = parked.pop()
    return sys.getrefcount(item)


_OWNED = _references_when_owned()
