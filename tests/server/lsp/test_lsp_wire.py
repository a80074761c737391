"""The wire fast path (``server/lsp/wire.py``): what it writes is what pygls writes for the
same response, framed with a byte-exact ``Content-Length``. The pins of the private pygls
methods it overrides are ``tests/server/lsp/test_wire_pins.py``."""

from __future__ import annotations

import json
from typing import Any

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol, JsonRPCResponseMessage

from perfline.server.host import EngineHost
from perfline.server.lsp import PerflineServer
from perfline.server.lsp.protocol import PerflineProtocol
from perfline.server.lsp.wire import EncodedArray, HintEncoder
from perfline.server.view.shapes import Hint


class _Writer:
    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.frames.append(data)

    def close(self) -> None:
        return None


def _protocol() -> tuple[PerflineProtocol, _Writer]:
    server = PerflineServer(EngineHost())
    assert isinstance(server.protocol, PerflineProtocol)
    writer = _Writer()
    server.protocol.set_writer(writer, include_headers=True)
    return server.protocol, writer


def _frame(data: bytes) -> tuple[dict[str, str], bytes]:
    head, _, body = data.partition(b"\r\n\r\n")
    headers = dict(line.split(": ", 1) for line in head.decode("ascii").split("\r\n"))
    return headers, body


def test_encoded_hints_are_written_as_pygls_would_write_them() -> None:
    hints = [
        {"position": {"line": 3, "character": 9}, "label": "9.63 ms · 81% → é", "kind": 1},
        {"position": {"line": 4, "character": 0}, "label": "0.1 ms", "kind": 1},
    ]
    fast, fast_writer = _protocol()
    fast._send_data(
        JsonRPCResponseMessage(
            id=7, jsonrpc="2.0", result=EncodedArray([json.dumps(h) for h in hints])
        )
    )
    plain, plain_writer = _protocol()
    JsonRPCProtocol._send_data(plain, JsonRPCResponseMessage(id=7, jsonrpc="2.0", result=hints))
    (fast_frame,), (plain_frame,) = fast_writer.frames, plain_writer.frames
    fast_headers, fast_body = _frame(fast_frame)
    plain_headers, plain_body = _frame(plain_frame)
    assert (
        json.loads(fast_body)
        == json.loads(plain_body)
        == {
            "id": 7,
            "jsonrpc": "2.0",
            "result": hints,
        }
    )
    assert fast_headers["Content-Type"] == plain_headers["Content-Type"]
    # Content-Length counts bytes (pygls counts characters, wrong for non-ASCII text).
    assert int(fast_headers["Content-Length"]) == len(fast_body)


def test_plain_results_skip_cattrs_and_typed_ones_do_not() -> None:
    protocol, _ = _protocol()
    plain = JsonRPCResponseMessage(id=1, jsonrpc="2.0", result={"jobs": []})
    assert protocol._serialize_message(plain) == {"id": 1, "jsonrpc": "2.0", "result": {"jobs": []}}
    position = types.Position(line=1, character=2)
    assert protocol._serialize_message(position) == {"line": 1, "character": 2}


def test_hint_encoder_encodes_once_per_rows_and_version() -> None:
    class Doc:
        version = 1
        source = "a\nb\n"

    rows = (Hint(1, 1, "1 ms", "x (j)"), Hint(2, 1, "2 ms", "y (j)"))
    asked: list[int] = []

    def column(hint: Hint) -> int:
        asked.append(hint.line)
        return hint.column

    encoder = HintEncoder()
    first = encoder.encode("file:///m.py", rows, Doc(), column)
    again = encoder.encode("file:///m.py", rows, Doc(), column)
    assert first is again and asked == [1, 2]
    decoded: list[dict[str, Any]] = [json.loads(text) for text in first]
    assert [d["position"] for d in decoded] == [
        {"line": 0, "character": 1},
        {"line": 1, "character": 1},
    ]
    assert [d["label"] for d in decoded] == ["1 ms", "2 ms"]
