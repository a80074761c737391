"""Cooperative cancellation of a long computation on the current thread.

The daemon runs analyses on worker threads and may stop wanting one (its inputs
changed again). A caller installs a flag for the duration of a computation
(``cancellable(flag)``); long loops in the core call ``checkpoint()`` at bounded
intervals, which raises ``Cancelled`` once the flag is set. Without a flag
(the CLI, tests) ``checkpoint`` does nothing. Cost: one thread-local lookup per
call, so loops call it every few thousand items, not per item.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Cancelled(Exception):
    """Raised inside a computation whose result is no longer wanted."""


class _Flags(threading.local):
    def __init__(self) -> None:
        self.flag: threading.Event | None = None


_CURRENT = _Flags()


@contextmanager
def cancellable(flag: threading.Event) -> Iterator[None]:
    """``checkpoint`` raises ``Cancelled`` inside the block once ``flag`` is set."""
    previous = _CURRENT.flag
    _CURRENT.flag = flag
    try:
        yield
    finally:
        _CURRENT.flag = previous


def checkpoint() -> None:
    """Raise ``Cancelled`` if the current thread's computation was cancelled."""
    flag = _CURRENT.flag
    if flag is not None and flag.is_set():
        raise Cancelled()
