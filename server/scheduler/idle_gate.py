"""When the engine is idle: its inbox is empty, its loop has no work pending (no run
in flight, no flush, settle check or rescan due) and every published event has been
delivered. ``wait`` blocks until then (tests, the CLI). Other threads count their
posts and deliveries here; the loop reports its own work after each event.
Cost: one condition variable.
"""

from __future__ import annotations

import threading
import time


class IdleGate:
    """Counts what is still to do, across the threads of one engine."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._unhandled = 0
        self._undelivered = 0
        self._loop_busy = True  # until the loop has looked at its first event

    def posted(self) -> None:
        with self._condition:
            self._unhandled += 1

    def handled(self, *, busy: bool) -> None:
        """One inbox event handled; ``busy``: the loop still has work pending."""
        with self._condition:
            self._unhandled -= 1
            self._loop_busy = busy
            self._condition.notify_all()

    def queued(self) -> None:
        with self._condition:
            self._undelivered += 1

    def delivered(self) -> None:
        with self._condition:
            self._undelivered -= 1
            self._condition.notify_all()

    def set_busy(self, busy: bool) -> None:
        with self._condition:
            self._loop_busy = busy
            self._condition.notify_all()

    def idle(self) -> bool:
        with self._condition:
            return self._is_idle()

    def _is_idle(self) -> bool:
        return not self._unhandled and not self._undelivered and not self._loop_busy

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._condition:
            while not self._is_idle():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._condition.wait(remaining)
        return True
