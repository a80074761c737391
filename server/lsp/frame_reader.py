"""The read side of the LSP base protocol: bytes in, frames or framing problems out.

A frame is ``Content-Length: N`` (any case), optional other headers (``Content-Type``),
an empty line, then N bytes of body. ``FrameReader`` is fed the bytes of a connection as
they arrive and returns, in order, what it found: ``Frame`` (a body to decode),
``FrameProblem`` (the JSON-RPC error a sender deserves: a header line too long, a
``Content-Length`` that is not a number, a body declared over the size limit) and
``HttpRequest`` (an HTTP request line where a frame starts, as the first bytes of a
connection are when a web page makes the browser send to a loopback port; the
connection is closed without an answer).

It never loses its footing: a line that is not a header (the rest of a body whose
``Content-Length`` was too short, noise) is skipped, and a ``Content-Length`` header that
starts inside it starts the next frame, so the next valid request is answered. A body
declared longer than the limit is refused before any of it is read (the caller answers
and closes the connection; ``first_body``: a smaller limit for the first body, the one a
connection not yet admitted may send); a header line is at most ``MAX_HEADER_LINE`` bytes, so
nothing is buffered beyond one frame plus one read. Pure: no I/O; linear in the bytes
fed (each byte is looked at a bounded number of times).
"""

from __future__ import annotations

import re
from typing import Final

#: The longest header line read (longer: refused, skipped up to its end).
MAX_HEADER_LINE: Final = 8192
#: The most header lines of one frame.
MAX_HEADER_LINES: Final = 32
#: The default limit of one message body (bytes): far above any real LSP message.
DEFAULT_MAX_BODY: Final = 64 * 1024 * 1024

INVALID_REQUEST: Final = -32600

_HTTP_REQUEST_LINE: Final = re.compile(rb"^[A-Z][A-Z-]{1,15} \S+ HTTP/\d(?:\.\d)?\r?\n?$")
_CONTENT_LENGTH: Final = re.compile(rb"content-length:", re.IGNORECASE)
_HEADER_NAME: Final = re.compile(rb"[A-Za-z][A-Za-z0-9-]*[ \t]*:")
_HEADER: Final = re.compile(rb"^([A-Za-z][A-Za-z0-9-]*)[ \t]*:[ \t]*(.*?)[ \t]*$")


class Frame:
    """One message body, as sent."""

    __slots__ = ("body",)

    def __init__(self, body: bytes) -> None:
        self.body = body


class FrameProblem:
    """What was wrong with a frame: the JSON-RPC error ``code`` and ``message`` the sender
    gets (with id ``null``), and whether the connection must be closed after it."""

    __slots__ = ("close", "code", "message")

    def __init__(self, code: int, message: str, *, close: bool = False) -> None:
        self.code = code
        self.message = message
        self.close = close


class HttpRequest:
    """The connection began with an HTTP request line (shown, cut short)."""

    __slots__ = ("line",)

    def __init__(self, line: str) -> None:
        self.line = line


Event = Frame | FrameProblem | HttpRequest


class FrameReader:
    """Splits a byte stream into frames; ``feed`` the bytes as they come."""

    def __init__(self, max_body: int = DEFAULT_MAX_BODY, first_body: int | None = None) -> None:
        self.max_body = max_body
        #: The limit of the first body only (a connection not yet admitted), if smaller.
        self.first_body = first_body
        self.frames = 0  # bodies read so far
        self.skipped = 0  # bytes of noise skipped so far (for the log)
        self._buffer = bytearray()
        self._start = 0  # where the unread bytes begin in the buffer
        self._length: int | None = None  # Content-Length of the frame being read
        self._headers = 0
        self._in_body = False
        self._skipping_line = False  # inside a header line longer than the limit
        self._closed = False

    def feed(self, data: bytes) -> list[Event]:
        """What the bytes received so far complete, in order (nothing after a closing
        problem or an HTTP request)."""
        if self._closed:
            return []
        self._buffer += data
        events: list[Event] = []
        while not self._closed:
            event = self._body() if self._in_body else self._header_line()
            if event is None:
                break
            if isinstance(event, Frame | FrameProblem | HttpRequest):
                events.append(event)
                if isinstance(event, HttpRequest) or (
                    isinstance(event, FrameProblem) and event.close
                ):
                    self._closed = True
        self._compact()
        return events

    # ----------------------------------------------------------------- internals

    def _body(self) -> Frame | None:
        assert self._length is not None
        end = self._start + self._length
        if len(self._buffer) < end:
            return None
        body = bytes(self._buffer[self._start : end])
        self.frames += 1
        self._start = end
        self._in_body, self._length, self._headers = False, None, 0
        return Frame(body)

    def _header_line(self) -> Event | bool | None:
        """The next header line's outcome: an event, ``True`` (consumed, go on) or
        ``None`` (more bytes needed)."""
        newline = self._buffer.find(b"\n", self._start, self._start + MAX_HEADER_LINE + 1)
        if newline < 0:
            return self._long_line()
        line = bytes(self._buffer[self._start : newline + 1])
        self._start = newline + 1
        if self._skipping_line:  # the end of a long line: noise, unless a header starts in it
            self._skipping_line = False
            return self._noise(line.rstrip(b"\r\n"))
        if self._length is None and not self._headers and _HTTP_REQUEST_LINE.match(line):
            return HttpRequest(line[:80].decode("latin-1").strip())
        return self._header(line.rstrip(b"\r\n"))

    def _long_line(self) -> Event | bool | None:
        """No line end within ``MAX_HEADER_LINE`` bytes: wait for more, or go on at a
        ``Content-Length`` header inside the line (the rest of a body whose length was too
        short), or drop the line (as it comes: keeping a tail a header could start in)."""
        available = len(self._buffer) - self._start
        if available <= MAX_HEADER_LINE:
            return None
        newline = self._buffer.find(b"\n", self._start)
        end = newline if newline >= 0 else len(self._buffer)
        last = None
        for match in _CONTENT_LENGTH.finditer(self._buffer, self._start + 1, end):
            last = match.start()
        self._reset_headers()
        if last is not None:
            self.skipped += last - self._start
            self._start, self._skipping_line = last, False
            return True
        report = not self._skipping_line and _HEADER_NAME.match(self._buffer, self._start)
        if newline >= 0:
            self.skipped += newline + 1 - self._start
            self._start, self._skipping_line = newline + 1, False
        else:
            keep = len(b"content-length:") - 1
            self.skipped += available - keep
            self._start, self._skipping_line = len(self._buffer) - keep, True
        if report:
            return FrameProblem(
                INVALID_REQUEST, f"a header line longer than {MAX_HEADER_LINE} bytes"
            )
        return True

    def _header(self, line: bytes) -> Event | bool:
        if not line.strip():
            if self._length is None:
                if self._headers:  # headers, but none gave the length
                    self._reset_headers()
                    return FrameProblem(
                        INVALID_REQUEST, "a message without a Content-Length header"
                    )
                return True  # blank lines between messages
            limit = self._limit()
            if self._length > limit:
                return FrameProblem(
                    INVALID_REQUEST,
                    f"the message body of {self._length} bytes is over the limit of "
                    f"{limit} bytes; the connection is closed",
                    close=True,
                )
            self._in_body = True
            return True
        match = _HEADER.match(line)
        if match is None or (self._length is None and not _is_known(match.group(1))):
            return self._noise(line)
        self._headers += 1
        if self._headers > MAX_HEADER_LINES:
            self._reset_headers()
            return FrameProblem(INVALID_REQUEST, f"more than {MAX_HEADER_LINES} header lines")
        if match.group(1).lower() == b"content-length":
            value = match.group(2)
            if not value.isdigit() or len(value) > 20:
                self._reset_headers()
                shown = value[:40].decode("latin-1")
                return FrameProblem(
                    INVALID_REQUEST, f"Content-Length {shown!r} is not a number of bytes"
                )
            self._length = int(value)
        return True

    def _limit(self) -> int:
        if self.first_body is not None and self.frames == 0:
            return min(self.first_body, self.max_body)
        return self.max_body

    def _noise(self, line: bytes) -> bool | Event:
        """A line that is not a header: skipped, up to a ``Content-Length`` inside it."""
        starts = [match.start() for match in _CONTENT_LENGTH.finditer(line)]
        self._reset_headers()
        if not starts:
            self.skipped += len(line)
            return True
        self.skipped += starts[-1]  # the last one: the frame that follows the noise
        return self._header(line[starts[-1] :])

    def _reset_headers(self) -> None:
        self._length, self._headers = None, 0

    def _compact(self) -> None:
        if self._start and (self._start >= len(self._buffer) or self._start > 65536):
            del self._buffer[: self._start]
            self._start = 0


def _is_known(name: bytes) -> bool:
    """Headers a frame may start with (others before ``Content-Length``: noise)."""
    return name.lower() in (b"content-length", b"content-type")
