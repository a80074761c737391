"""The wire fast path: responses written without walking them through cattrs.

Inlay hints are encoded to JSON once per hint (``HintEncoder``, cached per file state) and
a request writes the encoded slice as it is (``EncodedArray``); the ``perfline/*``
results are plain JSON values that skip cattrs' unstructuring and are encoded by the CLI's
C-speed codec. Both override private
methods of pygls' ``JsonRPCProtocol`` (``_send_data``, ``_serialize_message``), so this
module is pinned to the pygls release it was written against (``PYGLS_VERSION``);
``tests/server/lsp/test_wire_pins.py`` fails loudly when the installed pygls differs or the
overridden methods change. Frames carry ``Content-Length`` in bytes of UTF-8.

Cost: encoding is linear in a file's hints and done once per (hint rows, document
version); a request joins the encoded slice (linear in the hints it returns).
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable
from typing import Any, Protocol

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol, JsonRPCResponseMessage

from perfline.core.json_codec import encode_compact
from perfline.server.view.shapes import Hint

#: The pygls release whose private ``_send_data`` / ``_serialize_message`` are overridden.
PYGLS_VERSION = "2.1.1"

_HINT_KIND = int(types.InlayHintKind.Type)

#: Writes still in flight (kept referenced until done).
_PENDING_WRITES: set[asyncio.Future[Any]] = set()


class EncodedArray:
    """A JSON array given as the encoded texts of its items (written out as they are)."""

    __slots__ = ("items",)

    def __init__(self, items: list[str]) -> None:
        self.items = items

    def text(self) -> str:
        return "[" + ",".join(self.items) + "]"


class Versioned(Protocol):
    """What the encoder keys its cache on: a document's version and text."""

    @property
    def version(self) -> int | None: ...
    @property
    def source(self) -> str: ...


class HintEncoder:
    """The ``InlayHint`` JSON text of every hint of a file, cached per (rows, version)."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[tuple[int, int | None, int], list[str]]] = {}

    def encode(
        self, uri: str, rows: tuple[Hint, ...], doc: Versioned, column: Callable[[Hint], int]
    ) -> list[str]:
        """One text per row, in order; ``column``: a row's column in the client's code
        units (asked only when the cache misses)."""
        key = (id(rows), doc.version, len(doc.source))
        cached = self._cache.get(uri)
        if cached is not None and cached[0] == key:
            return cached[1]
        encoded = [
            json.dumps(
                {
                    "position": {"line": row.line - 1, "character": column(row)},
                    "label": row.label,
                    "kind": _HINT_KIND,
                    "paddingLeft": True,
                    "tooltip": row.tooltip,
                }
            )
            for row in rows
        ]
        self._cache[uri] = (key, encoded)
        return encoded

    def forget(self, uri: str) -> None:
        self._cache.pop(uri, None)


class FastWire(JsonRPCProtocol):
    """The two overrides (mixed into the LSP protocol class)."""

    def _send_data(self, data: Any) -> None:
        # A response whose result was encoded ahead is written as it is, without walking it;
        # a perfline/* result (a plain dict, e.g. a whole document) is encoded by the CLI's
        # C-speed codec (``core.json_codec.encode_compact``: strict JSON, no NaN).
        result = getattr(data, "result", None)
        plain = type(data) is JsonRPCResponseMessage and type(result) is dict
        if not (isinstance(result, EncodedArray) or plain) or self.writer is None:
            super()._send_data(data)
            return
        if isinstance(result, EncodedArray):
            body = f'{{"id":{json.dumps(data.id)},"jsonrpc":"2.0","result":{result.text()}}}'
            payload = body.encode(self.CHARSET)
        else:
            payload = encode_compact({"id": data.id, "jsonrpc": "2.0", "result": result})
        if self._include_headers:
            header = (
                f"Content-Length: {len(payload)}\r\n"
                f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            )
            payload = header.encode(self.CHARSET) + payload
        self._write(payload)

    def write_message(self, message: dict[str, Any]) -> None:
        """Write one JSON-RPC object (an error the frame reader or the message checks
        answer, a reply of the admission gate) as a frame, strict JSON."""
        if self.writer is None:
            return
        payload = encode_compact(message)
        if self._include_headers:
            header = f"Content-Length: {len(payload)}\r\n\r\n"
            payload = header.encode(self.CHARSET) + payload
        self._write(payload)

    def _write(self, payload: bytes) -> None:
        """Hand one frame to the writer (callers check there is one); an asynchronous write
        is kept referenced until done."""
        if self.writer is None:
            return
        written = self.writer.write(payload)
        if inspect.isawaitable(written):
            task = asyncio.ensure_future(written)
            _PENDING_WRITES.add(task)
            task.add_done_callback(_PENDING_WRITES.discard)

    def send_error(self, msg_id: Any, code: int, message: str) -> None:
        """A JSON-RPC error response (``msg_id`` ``None`` when the request's id is unknown)."""
        self.write_message(
            {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}
        )

    def _serialize_message(self, data: Any) -> Any:
        # Plain JSON results (a dict, or a list of dicts) need no cattrs walk.
        if isinstance(data, JsonRPCResponseMessage | types.InlayHintResponse) and _plain(
            data.result
        ):
            return {"id": data.id, "jsonrpc": data.jsonrpc, "result": data.result}
        return super()._serialize_message(data)


def _plain(value: Any) -> bool:
    """A dict, or a list of dicts, as built by the shell (no attrs objects inside)."""
    if isinstance(value, dict):
        return True
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)
