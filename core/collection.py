"""The one mechanism that pauses Python's cyclic garbage collector (process-wide).

The post-processing stages allocate many small, long-lived containers (records,
leaf sets, figure sets, the output document) and create no reference cycles
(``tests/core/pipeline/test_no_cyclic_garbage.py`` holds that, on both builds), so
the collector finds nothing to free; its generation-2 passes over a large
result still cost a tenth or more of the run (1.35 s of 11 s measured at 5,000
chains). Both the core (``collection_paused`` around a post-processing) and the
daemon (``pause_collection`` / ``resume_collection`` around its runs, which may
overlap on several threads) use the counted pause below; reference counting
still frees everything as usual.

Allocations made while the collector is off still count towards its next
young-generation collection, so the first allocation after it is turned back
on would scan everything the pause allocated and kept (the whole output: about
a second at 20,000 chains, to find nothing). When the outermost pause ends the
survivors are therefore taken out of the young generations unscanned:

* ``keep_frozen=False`` (the core's own pause): moved to the oldest generation
  (``gc.freeze`` then ``gc.unfreeze``: two list splices, the young count is
  reset), skipped when the process keeps objects frozen for its own reasons;
* ``keep_frozen=True`` (the daemon): left in the permanent generation, so no
  automatic collection ever walks the served results; ``collect_frozen`` (the
  daemon's housekeeping, once it is quiet) unfreezes, collects and freezes.

Cost: a lock and a counter per pause; the splices are O(1).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class _Pauses:
    """How many pauses are open and whether the collector was on before the first."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.was_enabled = False


_PAUSES = _Pauses()


def pause_collection() -> None:
    """Open a pause: the collector is off until every open pause has ended."""
    with _PAUSES.lock:
        if _PAUSES.count == 0:
            _PAUSES.was_enabled = gc.isenabled()
            gc.disable()
        _PAUSES.count += 1


def resume_collection(*, keep_frozen: bool = False) -> None:
    """End a pause; the outermost one takes the survivors out of the young generations
    (see the module docstring for ``keep_frozen``) and turns the collector back on if it
    was on before."""
    with _PAUSES.lock:
        if _PAUSES.count == 0:
            return
        _PAUSES.count -= 1
        if _PAUSES.count or not _PAUSES.was_enabled:
            return
        if keep_frozen:
            gc.freeze()
        elif gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        gc.enable()


def collection_is_paused() -> bool:
    """Whether a pause is open (the daemon's housekeeping waits for the end of it)."""
    with _PAUSES.lock:
        return _PAUSES.count > 0


def collect_frozen() -> None:
    """A full collection over everything, frozen objects included, then freeze the
    survivors again (nothing happens while a pause is open)."""
    if collection_is_paused():
        return
    gc.unfreeze()
    gc.collect()
    gc.freeze()


@contextmanager
def collection_paused() -> Iterator[None]:
    """The collector off inside the block (nesting and other threads' pauses are fine)."""
    pause_collection()
    try:
        yield
    finally:
        resume_collection()
