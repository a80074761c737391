"""How many backend runs each job has started (observable incrementality), counted by
the workers once a run's inputs are read. Cost: a lock per count."""

from __future__ import annotations

import threading


class BackendRuns:
    """Job name -> backend runs started."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}

    def count(self, job: str) -> None:
        with self._lock:
            self._counts[job] = self._counts.get(job, 0) + 1

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)
