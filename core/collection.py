"""Pausing Python's cyclic garbage collector around allocation-heavy pure work.

The post-processing stages allocate many small, long-lived containers (records,
leaf sets, figure sets, the output document) and create no reference cycles
(``tests/pipeline/test_no_cyclic_garbage.py`` holds that, on both builds), so
the collector finds nothing to free; its generation-2 passes over a large
result still cost a tenth or more of the run (1.35 s of 11 s measured at 5,000
chains). ``collection_paused`` turns it off for the duration and restores the
previous state; reference counting still frees everything as usual.

Allocations made while the collector is off still count towards its next
young-generation collection, so the first allocation after it is turned back
on would scan everything the block allocated and kept (the whole output: about
a second at 20,000 chains, to find nothing). On leaving the outermost pause the
surviving objects are therefore moved to the oldest generation unscanned
(``gc.freeze`` then ``gc.unfreeze``: two list splices, and the young count is
reset), where only full collections visit them. That is skipped when the
process keeps objects frozen for its own reasons (``gc.get_freeze_count``),
since unfreezing would release them; the daemon pauses the collector itself
around its runs, so this pause is then a nested one and changes nothing.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block (nesting is fine)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            _promote_survivors()
            gc.enable()


def _promote_survivors() -> None:
    """Move every tracked object to the oldest generation without scanning it,
    unless the permanent generation is in use by someone else."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
