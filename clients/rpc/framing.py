"""LSP base-protocol framing: ``Content-Length: N\\r\\n\\r\\n`` + N bytes of UTF-8 JSON."""

from __future__ import annotations

import json
from typing import Any, BinaryIO


class FramingError(Exception):
    """The peer sent something that is not a framed JSON-RPC message."""


def encode(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body


def parse_headers(lines: list[bytes]) -> int:
    length = None
    for line in lines:
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise FramingError(f"bad Content-Length header {line!r}") from None
    if length is None:
        raise FramingError("a message without a Content-Length header")
    return length


def read_message(stream: BinaryIO) -> dict[str, Any] | None:
    """The next message from a blocking stream, or ``None`` at end of stream."""
    headers: list[bytes] = []
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            if headers:
                break
            continue
        headers.append(line.strip())
    body = stream.read(parse_headers(headers))
    value = json.loads(body)
    if not isinstance(value, dict):
        raise FramingError("a JSON-RPC message must be a JSON object")
    return value
