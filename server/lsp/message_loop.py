"""The read loop of one connection: chunks of bytes to handled messages.

Replaces pygls' ``run_async`` (which buffered any declared body, answered no framing
error and lost its place after a short ``Content-Length``): bytes go through the
``FrameReader``, bodies through ``inbound.decode`` and ``inbound.dispatch``, and every
framing problem or refused message is answered on the connection, with id ``null``
when the id is unknown. A connection is closed at once when its first line is an HTTP
request line or a body is declared over the size limit; on TCP, until the token gate
admits it, a connection is closed at its first problem or unadmitted message, and it
is bounded by ``preauth`` (first message size, bytes, deadline). Between two messages the
loop lets the other connections go (``asyncio.sleep(0)``), so a pipelined backlog of one
connection holds no other client; after a chunk it waits while the answers not yet sent
pile up (``drain``), so a client that does not read is not read either.

``stdin_chunks`` reads stdin on a daemon thread through a small bounded queue, so a
client that sends faster than the daemon reads is held back (memory stays flat) and a
blocked read never keeps the process from exiting. Cost per message: one decode and
one dispatch; per chunk, ``FrameReader.feed``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any, BinaryIO, Protocol

from perfline.core.json_codec import encode_compact
from perfline.server.lsp import inbound, preauth
from perfline.server.lsp.admission import AUTHENTICATE, TokenGate
from perfline.server.lsp.frame_reader import (
    DEFAULT_MAX_BODY,
    FrameProblem,
    FrameReader,
    HttpRequest,
)
from perfline.server.lsp.protocol import INTERNAL_ERROR, PerflineProtocol, short

log = logging.getLogger(__name__)

#: Bytes asked for per read.
CHUNK = 65536
#: Chunks read ahead from stdin at most.
_STDIN_AHEAD = 16

ChunkSource = Callable[[], Awaitable[bytes]]


async def run_connection(
    read: ChunkSource,
    protocol: ProtocolSource,
    stop: threading.Event,
    *,
    max_body: int = DEFAULT_MAX_BODY,
    gate: TokenGate | None = None,
    peer: str = "client",
    waiting: preauth.Ticket | None = None,
    drain: Callable[[], Awaitable[None]] | None = None,
    early: Replies | None = None,
) -> None:
    """Serve one connection until it ends, ``stop`` is set, or it must be closed.

    ``gate``: the token check of a TCP connection (its first message then at most
    ``preauth.FIRST_MESSAGE_BYTES``, all it sends before admission ``preauth.BYTES``);
    ``waiting``: its place among the connections waiting for admission (its deadline);
    ``drain``: waits while the answers not yet sent are many (the client does not read);
    ``protocol``: the connection's protocol or what makes it, once admitted (``early``
    answers until then)."""
    first = preauth.FIRST_MESSAGE_BYTES if gate is not None else None
    frames = FrameReader(max_body, first)
    connection = _Connection(protocol, gate, peer, early)
    unadmitted_bytes = 0
    try:
        while not stop.is_set():
            chunk = await _next_chunk(read, connection, waiting)
            if not chunk:
                return
            if connection.gate is not None:
                unadmitted_bytes += len(chunk)
                if unadmitted_bytes > preauth.BYTES:
                    _problem(
                        "unadmitted-bytes",
                        "%s: closed: over %d bytes before the token",
                        peer,
                        preauth.BYTES,
                    )
                    return
            if not await _take_all(frames.feed(chunk), connection, waiting, stop):
                return
            if frames.skipped:
                log.info("%s: skipped %d bytes that were not a frame", peer, frames.skipped)
                frames.skipped = 0
            if drain is not None:
                await drain()
    finally:
        if waiting is not None:
            waiting.end()


async def _next_chunk(
    read: ChunkSource, connection: _Connection, waiting: preauth.Ticket | None
) -> bytes:
    """The next chunk; ``b""`` once a connection waiting for admission passed its time."""
    if connection.gate is None or waiting is None:
        return await read()
    try:
        return await asyncio.wait_for(read(), waiting.remaining())
    except TimeoutError:
        _problem(
            "unadmitted-timeout",
            "%s: closed: no token presented within %g s",
            connection.peer,
            preauth.SECONDS,
        )
        return b""


async def _take_all(
    events: list[Any],
    connection: _Connection,
    waiting: preauth.Ticket | None,
    stop: threading.Event,
) -> bool:
    """Handle a chunk's messages, letting the other connections go between two of them
    (a pipelined backlog holds no one); False once the connection must close."""
    for event in events:
        if not connection.take(event):
            return False
        if waiting is not None and connection.gate is None:
            waiting.end()
        if stop.is_set():
            return False
        await asyncio.sleep(0)
    return True


def _problem(kind: str, message: str, *args: Any) -> None:
    preauth.PROBLEMS.log(logging.INFO, kind, message, *args)


class Replies(Protocol):
    """What answers a connection's problems (a protocol, or ``FramedReplies``)."""

    def write_message(self, message: dict[str, Any]) -> None: ...
    def send_error(self, msg_id: Any, code: int, message: str) -> None: ...


class FramedReplies:
    """Replies written as frames straight to ``write``: what a connection not yet admitted
    gets, so no protocol (a language server, some milliseconds to make) is made for it."""

    def __init__(self, write: Callable[[bytes], None]) -> None:
        self._write = write

    def write_message(self, message: dict[str, Any]) -> None:
        payload = encode_compact(message)
        self._write(b"Content-Length: %d\r\n\r\n" % len(payload) + payload)

    def send_error(self, msg_id: Any, code: int, message: str) -> None:
        error = {"code": code, "message": message}
        self.write_message({"jsonrpc": "2.0", "id": msg_id, "error": error})


ProtocolSource = PerflineProtocol | Callable[[], PerflineProtocol]


class _Connection:
    """What one connection's events lead to; ``take`` is False once it must close."""

    def __init__(
        self,
        protocol: ProtocolSource,
        gate: TokenGate | None,
        peer: str,
        early: Replies | None = None,
    ) -> None:
        made = isinstance(protocol, PerflineProtocol)
        self._protocol: PerflineProtocol | None = protocol if made else None  # type: ignore[assignment]
        self._make = None if made else protocol
        self._early = early
        self.gate = gate
        self.peer = peer

    @property
    def protocol(self) -> PerflineProtocol:
        """The connection's protocol, made when first needed (once admitted)."""
        if self._protocol is None:
            assert self._make is not None and not isinstance(self._make, PerflineProtocol)
            self._protocol = self._make()
        return self._protocol

    @property
    def replies(self) -> Replies:
        if self._protocol is None and self.gate is not None and self._early is not None:
            return self._early
        return self.protocol

    def take(self, event: Any) -> bool:
        if isinstance(event, HttpRequest):
            self._log("http", "%s: closed: it sent an HTTP request (%s)", short(event.line))
            return False
        if isinstance(event, FrameProblem):
            self._log("framing", "%s: framing problem: %s", event.message)
            self.replies.send_error(None, event.code, event.message)
            return not event.close and self.gate is None
        message = inbound.decode(event.body)
        if isinstance(message, inbound.Refusal):
            self._log("refused", "%s: refused a message: %s", message.message)
            self._refuse(message)
            return self.gate is None
        if self.gate is not None:
            verdict = self.gate.first(message)
            if verdict.admitted:  # made now, as the client connects, not on its first request
                self.gate = None
                self._protocol = self.protocol
            if verdict.reply is not None:
                self.replies.write_message(verdict.reply)
            if not verdict.admitted:
                return False
            if not verdict.forward:
                return True
        if message.get("method") == AUTHENTICATE and "id" in message:
            # Admitted already (or a Unix socket, which needs no token): nothing to check.
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": {"authenticated": True}}
            self.replies.write_message(reply)
            return True
        self._dispatch(message)
        return True

    def _log(self, kind: str, message: str, detail: str) -> None:
        """A client's problem: logged as it comes once admitted; before, at most once a
        second (a flood of unadmitted connections must not flood the log)."""
        if self.gate is None:
            log.info(message, self.peer, detail)
        else:
            _problem(f"unadmitted-{kind}", message, self.peer, detail)

    def _dispatch(self, message: dict[str, Any]) -> None:
        try:
            refusal = inbound.dispatch(self.protocol, message)
        except Exception:
            method = message.get("method")
            log.exception("%s: handling %s failed", self.peer, short(str(method)))
            if method is not None and "id" in message:
                text = f"internal error while handling {short(str(method))}; see the daemon's log"
                self.replies.send_error(message["id"], INTERNAL_ERROR, text)
            return
        if refusal is not None:
            self._refuse(refusal)

    def _refuse(self, refusal: inbound.Refusal) -> None:
        self.replies.send_error(refusal.msg_id, refusal.code, refusal.message)


def stdin_chunks(stream: BinaryIO) -> ChunkSource:
    """A chunk source over a blocking binary stream, read on a daemon thread."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes] = asyncio.Queue(_STDIN_AHEAD)

    def pump() -> None:
        while True:
            try:
                chunk = stream.read1(CHUNK) if hasattr(stream, "read1") else stream.read(CHUNK)
            except (OSError, ValueError):
                chunk = b""
            try:
                asyncio.run_coroutine_threadsafe(queue.put(chunk), loop).result()
            except RuntimeError:  # the loop is gone
                return
            if not chunk:
                return

    threading.Thread(target=pump, name="perfline-stdin", daemon=True).start()
    return queue.get
