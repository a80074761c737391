"""The wire fast path (``server/lsp/wire.py``) against the pygls release it overrides.

``FastWire`` replaces two private methods of ``pygls.protocol.JsonRPCProtocol``. These
tests fail loudly when the installed pygls is not the pinned one or when the source of
the overridden methods changed (re-read them, adapt ``wire.py``, update the pins), and
check that what the fast path writes is what pygls writes for the same response, framed
with a byte-exact ``Content-Length``."""

from __future__ import annotations

import hashlib
import importlib.metadata
import inspect
import json
from typing import Any

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol, JsonRPCResponseMessage

from perfline.server.host import EngineHost
from perfline.server.lsp import PerflineServer
from perfline.server.lsp.protocol import PerflineProtocol
from perfline.server.lsp.wire import PYGLS_VERSION, EncodedArray, FastWire, HintEncoder
from perfline.server.view.shapes import Hint

#: sha256 (first 16 hex digits) of the pinned pygls' sources of the overridden methods.
PINNED_SOURCES = {"_send_data": "40e0a5bb70951777", "_serialize_message": "075c32e9ae36b6e8"}


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


def test_the_installed_pygls_is_the_pinned_release() -> None:
    assert importlib.metadata.version("pygls") == PYGLS_VERSION, (
        "server/lsp/wire.py overrides private pygls methods of release "
        f"{PYGLS_VERSION}; re-check them against the installed pygls"
    )


def test_the_overridden_methods_are_unchanged_in_pygls() -> None:
    for name, pinned in PINNED_SOURCES.items():
        method = getattr(JsonRPCProtocol, name)
        assert list(inspect.signature(method).parameters) == ["self", "data"], name
        digest = hashlib.sha256(inspect.getsource(method).encode()).hexdigest()[:16]
        assert digest == pinned, f"pygls changed JsonRPCProtocol.{name}: re-check wire.py"
    # The fast path is really in the protocol's method resolution, before pygls'.
    mro = PerflineProtocol.__mro__
    assert mro.index(FastWire) < mro.index(JsonRPCProtocol)
    assert PerflineProtocol._send_data is FastWire._send_data


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
