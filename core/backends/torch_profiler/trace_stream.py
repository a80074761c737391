"""Decoding a torch.profiler trace in pieces: byte chunks in, batches of typed events out.

The trace is never held whole. The bytes before ``"traceEvents": [`` are the header (decoded
once, bounded); the event list is then cut at event boundaries (a ``},`` after which the text
decodes) into slices that msgspec decodes straight into ``TraceEvent`` structs; what follows
the list (``traceName``, kineto's ``distributedInfo``) is decoded with the last events. A cut
that falls inside a string or a nested object leaves a slice that does not decode to its end;
the previous boundary is tried then, or more bytes are awaited. A bare JSON array of events
(Chrome's other trace form) is read the same way, without a header.

Errors are ``InputError``s naming the byte offset in the (decompressed) trace: the file ends
inside the event list (truncated), malformed JSON, ``NaN``/``Infinity`` (JSON has neither), an
event whose field has the wrong type or a number out of range (its position in the list and
JSON path), an event larger than ``max_event_bytes`` (bounded memory whatever the input), a
header without ``traceEvents``. Cost: one msgspec decode of every byte plus a ``rfind`` per
chunk; memory: one chunk, one slice's events and the header.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final

import msgspec

from perfline.core.backends.torch_profiler.trace_format import TraceEvent, TraceHeader, TraceTail
from perfline.core.errors import InputError, Problem

#: Largest run of bytes without an event boundary (one event, or the header) held at once.
MAX_EVENT_BYTES: Final = 64 * 1024 * 1024
_EVENTS_KEY: Final = b'"traceEvents"'
_BOUNDARY: Final = b"},"
_FALSE_CUT_TRIES: Final = 8
_BYTE_POSITION = re.compile(r"\(byte (\d+)\)")
_NON_FINITE = re.compile(rb"-?(?:NaN|Infinity|nan|inf)")
_WHITESPACE: Final = b" \t\r\n"

_EVENTS = msgspec.json.Decoder(list[TraceEvent])
_HEADER = msgspec.json.Decoder(TraceHeader)
_TAIL = msgspec.json.Decoder(TraceTail)


class TraceStream:
    """One trace being decoded: ``batches(chunks)`` yields lists of events; ``header`` and
    ``tail`` hold the keys around the list once read; ``events_read`` counts the events."""

    def __init__(self, source: str, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self.source = source
        self.max_event_bytes = max_event_bytes
        self.header = TraceHeader()
        self.tail = TraceTail()
        self.events_read = 0
        self.bytes_read = 0

    def batches(self, chunks: Iterable[bytes]) -> Iterator[list[TraceEvent]]:
        """The events of the trace, in file order, in batches of one slice each."""
        pending = b""
        base = 0  # offset of pending[0] in the trace
        in_list = False
        bare_array = False
        for chunk in chunks:
            self.bytes_read += len(chunk)
            pending = pending + chunk if pending else bytes(chunk)
            if not in_list:
                start = self._list_start(pending, base)
                if start is None:
                    continue
                bare_array = start == -1
                skip = pending.index(b"[") + 1 if bare_array else start
                base += skip
                pending = pending[skip:]
                in_list = True
            while True:
                found = self._cut(pending, base)
                if found is None:
                    break
                batch, used = found
                if batch:
                    self.events_read += len(batch)
                    yield batch
                base += used
                pending = pending[used:]
            if len(pending) > self.max_event_bytes:
                raise InputError(
                    self.source,
                    Problem(
                        f"byte {base}",
                        f"no event boundary in {len(pending):,} bytes (an event larger than "
                        f"{self.max_event_bytes:,} bytes); not a torch.profiler trace",
                    ),
                )
        if not in_list:
            self._no_list(pending, base)
        last = self._finish(pending, base, bare_array)
        if last:
            self.events_read += len(last)
            yield last

    def _list_start(self, pending: bytes, base: int) -> int | None:
        """Where the event list's first byte is (after ``[``), ``-1`` for a bare array, or
        ``None`` while the header is incomplete; the header is decoded here."""
        first = pending.lstrip(_WHITESPACE)[:1]
        if first == b"[":
            return -1
        if first and first != b"{":
            raise InputError(
                self.source,
                Problem(
                    f"byte {base + len(pending) - len(pending.lstrip(_WHITESPACE))}",
                    "expected a JSON object with 'traceEvents' (a torch.profiler trace)",
                ),
            )
        key = pending.find(_EVENTS_KEY)
        if key < 0:
            if len(pending) > self.max_event_bytes:
                self._no_list(pending, base)
            return None
        rest = pending[key + len(_EVENTS_KEY) :]
        stripped = rest.lstrip(_WHITESPACE)
        if not stripped[:1]:
            return None
        if stripped[:1] != b":":
            return self._not_list(key, base)
        value = stripped[1:].lstrip(_WHITESPACE)
        if not value[:1]:
            return None
        if value[:1] != b"[":
            return self._not_list(key, base)
        try:
            self.header = _HEADER.decode(pending[:key] + b'"traceEvents":[]}')
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise InputError(
                self.source,
                Problem("header", f"the keys before 'traceEvents' do not decode: {error}"),
            ) from None
        return len(pending) - len(value) + 1

    def _not_list(self, key: int, base: int) -> int:
        raise InputError(
            self.source,
            Problem(f"byte {base + key}", "'traceEvents' is not a list of events"),
        )

    def _no_list(self, pending: bytes, base: int) -> None:
        if not pending.strip():
            raise InputError(
                self.source, Problem(f"byte {base}", "the file is empty; expected a trace")
            )
        raise InputError(
            self.source,
            Problem(
                f"byte {base}",
                "no 'traceEvents' list; expected a trace written by torch.profiler "
                "(export_chrome_trace or tensorboard_trace_handler)",
            ),
        )

    def _cut(self, pending: bytes, base: int) -> tuple[list[TraceEvent], int] | None:
        """The events of ``pending`` up to its last event boundary that decodes, and how many
        bytes they use (the boundary's comma included); ``None`` when none does yet."""
        end = len(pending)
        for _ in range(_FALSE_CUT_TRIES):
            boundary = pending.rfind(_BOUNDARY, 0, end)
            if boundary < 0:
                return None
            piece = b"[" + pending[: boundary + 1] + b"]"
            try:
                return _EVENTS.decode(piece), boundary + 2
            except msgspec.ValidationError as error:
                raise self._invalid_event(error) from None
            except msgspec.DecodeError as error:
                position = _position(error)
                if position is not None and position < len(piece) - 1:
                    raise self._malformed(error, piece, position, base - 1) from None
            end = boundary
        return None

    def _finish(self, pending: bytes, base: int, bare_array: bool) -> list[TraceEvent]:
        """The events after the last cut, and the keys after the list."""
        prefix = b"[" if bare_array else b'{"traceEvents":['
        piece = prefix + pending
        try:
            if bare_array:
                return _EVENTS.decode(piece)
            self.tail = _TAIL.decode(piece)
        except msgspec.ValidationError as error:
            raise self._invalid_event(error) from None
        except msgspec.DecodeError as error:
            position = _position(error)
            if position is None:
                raise InputError(
                    self.source,
                    Problem(
                        f"byte {base + len(pending)}",
                        "the trace is truncated: it ends inside the event list (expected more "
                        "events and the closing ']' and '}')",
                    ),
                ) from None
            raise self._malformed(error, piece, position, base - len(prefix)) from None
        return self.tail.events

    def _invalid_event(self, error: msgspec.ValidationError) -> InputError:
        text = str(error)
        message, _, path = text.partition(" - at `")
        path = path.rstrip("`")
        where = "an event"
        match = re.match(r"\$(?:\.traceEvents)?\[(\d+)\](.*)", path)
        if match:
            number = self.events_read + int(match.group(1))
            field = match.group(2).lstrip(".")
            where = f"event {number:,}" + (f", field {field!r}" if field else "")
        return InputError(
            self.source, Problem(f"traceEvents[{where}]" if match else where, message)
        )

    def _malformed(
        self, error: msgspec.DecodeError, piece: bytes, position: int, offset: int
    ) -> InputError:
        found = _NON_FINITE.match(piece, position)
        if found:
            message = (
                f"the number {found.group().decode()} is not JSON (a non-finite value); "
                "expected a finite number"
            )
        else:
            message = f"invalid JSON: {str(error).removeprefix('JSON is malformed: ')}"
            message = _BYTE_POSITION.sub("", message).rstrip()
        return InputError(self.source, Problem(f"byte {offset + position}", message))


def _position(error: msgspec.DecodeError) -> int | None:
    match = _BYTE_POSITION.search(str(error))
    return int(match.group(1)) if match else None
