"""The read loop of one connection: chunks of bytes to handled messages.

Replaces pygls' ``run_async`` (which buffered any declared body, answered no framing
error and lost its place after a short ``Content-Length``): bytes go through the
``FrameReader``, bodies through ``inbound.decode`` and ``inbound.dispatch``, and every
framing problem or refused message is answered on the connection, with id ``null``
when the id is unknown. A connection is closed at once when its first line is an HTTP
request line or a body is declared over the size limit; on TCP, until the token gate
admits it, a connection is closed at its first problem or unadmitted message.

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
from typing import Any, BinaryIO

from perfline.server.lsp import inbound
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
    protocol: PerflineProtocol,
    stop: threading.Event,
    *,
    max_body: int = DEFAULT_MAX_BODY,
    gate: TokenGate | None = None,
    peer: str = "client",
) -> None:
    """Serve one connection until it ends, ``stop`` is set, or it must be closed."""
    frames = FrameReader(max_body)
    connection = _Connection(protocol, gate, peer)
    while not stop.is_set():
        chunk = await read()
        if not chunk:
            return
        for event in frames.feed(chunk):
            if not connection.take(event):
                return
            if stop.is_set():
                return
        if frames.skipped:
            log.info("%s: skipped %d bytes that were not a frame", peer, frames.skipped)
            frames.skipped = 0


class _Connection:
    """What one connection's events lead to; ``take`` is False once it must close."""

    def __init__(self, protocol: PerflineProtocol, gate: TokenGate | None, peer: str) -> None:
        self.protocol = protocol
        self.gate = gate
        self.peer = peer

    def take(self, event: Any) -> bool:
        if isinstance(event, HttpRequest):
            log.info("%s: closed: it sent an HTTP request (%s)", self.peer, short(event.line))
            return False
        if isinstance(event, FrameProblem):
            log.info("%s: framing problem: %s", self.peer, event.message)
            self.protocol.send_error(None, event.code, event.message)
            return not event.close and self.gate is None
        message = inbound.decode(event.body)
        if isinstance(message, inbound.Refusal):
            log.info("%s: refused a message: %s", self.peer, message.message)
            self._refuse(message)
            return self.gate is None
        if self.gate is not None:
            verdict = self.gate.first(message)
            if verdict.reply is not None:
                self.protocol.write_message(verdict.reply)
            if not verdict.admitted:
                return False
            self.gate = None
            if not verdict.forward:
                return True
        if message.get("method") == AUTHENTICATE and "id" in message:
            # Admitted already (or a Unix socket, which needs no token): nothing to check.
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": {"authenticated": True}}
            self.protocol.write_message(reply)
            return True
        self._dispatch(message)
        return True

    def _dispatch(self, message: dict[str, Any]) -> None:
        try:
            refusal = inbound.dispatch(self.protocol, message)
        except Exception:
            method = message.get("method")
            log.exception("%s: handling %s failed", self.peer, short(str(method)))
            if method is not None and "id" in message:
                text = f"internal error while handling {short(str(method))}; see the daemon's log"
                self.protocol.send_error(message["id"], INTERNAL_ERROR, text)
            return
        if refusal is not None:
            self._refuse(refusal)

    def _refuse(self, refusal: inbound.Refusal) -> None:
        self.protocol.send_error(refusal.msg_id, refusal.code, refusal.message)


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
