"""Limits on TCP connections that have not presented the token yet.

Any local user can connect to a loopback port. Before a connection is admitted
(``admission.TokenGate``) it may cost the daemon only a little: its first message is at
most ``FIRST_MESSAGE_BYTES`` (declared larger: refused before a byte of the body is
read), everything it sends before admission at most ``BYTES`` (noise included), and it
is closed ``SECONDS`` after it was accepted if it has not been admitted by then.
``Waiting`` holds at most ``MOST_WAITING`` such connections per daemon: one more closes
the one that has waited longest (a real client presents its token at once, so a flood of
silent connections never keeps it out, and never piles up descriptors). Problems of
unadmitted connections and errors of the event loop (``accept`` out of descriptors) are
logged at most once per second each (``OncePerSecond``), with the count of those left
out. Cost: a deque entry per waiting connection; one clock read per log call.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Final

log = logging.getLogger(__name__)

#: The most TCP connections waiting to present the token.
MOST_WAITING: Final = 64
#: The largest first message of an unadmitted connection (bytes of body): an editor's
#: ``initialize`` with its capabilities and the token fits.
FIRST_MESSAGE_BYTES: Final = 32 * 1024
#: The most bytes an unadmitted connection may send (headers and noise included).
BYTES: Final = 64 * 1024
#: How long a connection may take to present the token (seconds).
SECONDS: Final = 10.0


class OncePerSecond:
    """Logs a kind of message at most once a second, saying how many were left out."""

    def __init__(self, logger: logging.Logger, clock: Callable[[], float] = time.monotonic) -> None:
        self._log = logger
        self._clock = clock
        self._last: dict[str, float] = {}
        self._left_out: dict[str, int] = {}

    def log(self, level: int, kind: str, message: str, *args: Any, **options: Any) -> bool:
        """Log ``message`` unless a ``kind`` message went out less than a second ago;
        whether it was logged."""
        now = self._clock()
        last = self._last.get(kind)
        if last is not None and now - last < 1.0:
            self._left_out[kind] = self._left_out.get(kind, 0) + 1
            return False
        self._last[kind] = now
        left_out = self._left_out.pop(kind, 0)
        if left_out:
            message += f" ({left_out} more like it in the last second not logged)"
        self._log.log(level, message, *args, **options)
        return True


#: The daemon's rate-limited log of connection problems.
PROBLEMS = OncePerSecond(log)


class Ticket:
    """One waiting connection: ``close`` ends it; ``admitted``/``ended`` free its place."""

    __slots__ = ("_close", "_waiting", "accepted", "done")

    def __init__(self, waiting: Waiting, close: Callable[[], None]) -> None:
        self._waiting = waiting
        self._close = close
        self.accepted = time.monotonic()
        self.done = False

    def remaining(self) -> float:
        """Seconds left to present the token."""
        return max(0.0, SECONDS - (time.monotonic() - self.accepted))

    def end(self) -> None:
        """The connection was admitted or has ended: no longer waiting."""
        if not self.done:
            self.done = True
            self._waiting.release(self)

    def evict(self) -> None:
        self.done = True
        self._close()


class Waiting:
    """The connections of one daemon waiting to present the token (at most ``most``)."""

    def __init__(self, most: int = MOST_WAITING) -> None:
        self._most = most
        self._tickets: deque[Ticket] = deque()
        self.evicted = 0

    def __len__(self) -> int:
        return len(self._tickets)

    def arrive(self, close: Callable[[], None]) -> Ticket:
        """A new connection; the longest-waiting one is closed when the place is full."""
        while len(self._tickets) >= self._most:
            oldest = self._tickets.popleft()
            self.evicted += 1
            PROBLEMS.log(
                logging.WARNING,
                "evicted",
                "more than %d connections waiting to present the token: closed the oldest",
                self._most,
            )
            oldest.evict()
        ticket = Ticket(self, close)
        self._tickets.append(ticket)
        return ticket

    def release(self, ticket: Ticket) -> None:
        with contextlib.suppress(ValueError):
            self._tickets.remove(ticket)


def loop_exception_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The event loop's error report (an ``accept`` out of descriptors, a connection
    callback's failure), at most once a second per kind of message."""
    message = str(context.get("message", "event loop error"))
    error = context.get("exception")
    kind = f"{message}:{type(error).__name__}"
    PROBLEMS.log(
        logging.ERROR,
        kind,
        "%s: %s",
        message,
        error if error is not None else "",
    )
