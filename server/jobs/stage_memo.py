"""The stage-output memo: a bounded, thread-safe LRU of intermediate results keyed by
content (input hashes + options), shared by every job of a workspace, so a model is
parsed once for many captures (the engine's memo defers the release of what it evicts:
``take_evicted``). Cost: O(1) per lookup; ``keep`` trims one stage's
entries in O(entries).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

#: How many processed documents a job type keeps memoized beyond those being served.
FINAL_STAGE_KEEP = 8
#: How many raw (not post-processed) documents a stage keeps: enough for every job of a
#: large workspace to be post-processed again (new collapse rules) without re-reading.
RAW_STAGE_KEEP = 32


class StageMemo:
    """A bounded, thread-safe LRU of stage outputs keyed by content (hashes + options).

    ``misses`` counts computations per stage name, which makes incrementality observable.
    A stage may also cap its own entries (``keep``): final documents are held by the
    engine as long as they are served, so the memo needs only a few superseded ones
    (an edit undone, the same file in two jobs), not a heap of stale versions.
    """

    def __init__(self, capacity: int = 256, *, defer_evictions: bool = False) -> None:
        self._capacity = capacity
        #: Evicted values wait for ``take_evicted`` instead of being dropped at once.
        self._defer = defer_evictions
        self._items: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._lock = threading.Lock()
        self._inflight: dict[tuple[Any, ...], threading.Event] = {}
        self.misses: dict[str, int] = {}
        self._evicted: list[Any] = []

    def get_or_compute(
        self,
        stage: str,
        key: tuple[Any, ...],
        compute: Callable[[], Any],
        *,
        refresh: bool = False,
        keep: int | None = None,
    ) -> Any:
        """The memoized value, computing it once even when asked from several threads
        (``refresh``: compute again and replace it; ``keep``: at most that many entries
        of this stage stay memoized, the least recently used go first)."""
        full = (stage, *key)
        while True:
            with self._lock:
                if refresh:
                    self._items.pop(full, None)
                    refresh = False
                if full in self._items:
                    self._items.move_to_end(full)
                    return self._items[full]
                waiting = self._inflight.get(full)
                if waiting is None:
                    self._inflight[full] = threading.Event()
                    break
            waiting.wait()
        try:
            value = compute()
        except BaseException:
            with self._lock:
                self._inflight.pop(full).set()
            raise
        with self._lock:
            self._store(stage, full, value, keep)
        return value

    def _store(self, stage: str, full: tuple[Any, ...], value: Any, keep: int | None) -> None:
        self.misses[stage] = self.misses.get(stage, 0) + 1
        self._items[full] = value
        self._items.move_to_end(full)
        while len(self._items) > self._capacity:
            self._evict(self._items.popitem(last=False)[1])
        if keep is not None:
            same = [k for k in self._items if k[0] == stage]
            for old in same[: max(len(same) - keep, 0)]:
                self._evict(self._items.pop(old))
        self._inflight.pop(full).set()

    def _evict(self, value: Any) -> None:
        if self._defer:
            self._evicted.append(value)

    def take_evicted(self) -> list[Any]:
        """The values evicted since the last call (``defer_evictions``), for the caller to
        drop when it suits it (freeing a large document is no work for a run to do on its
        way to a result)."""
        with self._lock:
            evicted, self._evicted = self._evicted, []
        return evicted
