"""The scheduler loop's own timers: events due at a monotonic time, one per key.

Arming a key again replaces its pending event (a debounce restarts, a recheck moves);
the loop asks how long it may sleep and takes the events that are due. Only the loop
thread touches it. Cost: O(log n) per arm and per due event (a heap with lazy
deletion of replaced entries).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Hashable

from perfline.server.scheduler.events import WORK_TIMERS, InboxEvent


class TimerQueue:
    """Pending timed events by key."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Hashable]] = []
        self._pending: dict[Hashable, tuple[int, InboxEvent]] = {}
        self._counter = itertools.count()

    def arm(self, key: Hashable, due: float, event: InboxEvent) -> None:
        """``event`` at ``due`` (replacing whatever ``key`` had pending)."""
        sequence = next(self._counter)
        self._pending[key] = (sequence, event)
        heapq.heappush(self._heap, (due, sequence, key))

    def cancel(self, key: Hashable) -> None:
        self._pending.pop(key, None)

    def armed(self, key: Hashable) -> bool:
        return key in self._pending

    def next_due(self) -> float | None:
        """When the next pending event is due (``None``: nothing pending)."""
        while self._heap:
            due, sequence, key = self._heap[0]
            current = self._pending.get(key)
            if current is not None and current[0] == sequence:
                return due
            heapq.heappop(self._heap)
        return None

    def pop_due(self, now: float) -> list[InboxEvent]:
        """The events due at ``now``, in order."""
        found: list[InboxEvent] = []
        while True:
            due = self.next_due()
            if due is None or due > now:
                return found
            _, _, key = heapq.heappop(self._heap)
            found.append(self._pending.pop(key)[1])

    def has_work(self) -> bool:
        """Whether a pending event is work (a flush, a settle check, a rescan)."""
        return any(type(event) in WORK_TIMERS for _, event in self._pending.values())

    def clear(self) -> None:
        self._heap.clear()
        self._pending.clear()
