"""The wire (issue 20 items 6, 7): every malformed frame gets the JSON-RPC error it
deserves, never desynchronises the connection, and a body over the size limit is
refused without being read. Each probe ran against main first: no answer at all (invalid
JSON or UTF-8, batches, scalars, an unknown method without params), the next request
lost after a short ``Content-Length``, a 10 GB body buffered."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.server_helpers import copy_kws
from tests.support.wire_daemon import Daemon, frame, request, running, strict_loads

pytestmark = pytest.mark.timeout(180)

STATUS = request("perfline/status", msg_id="next")


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    base = tmp_path_factory.mktemp("framing")
    with running(copy_kws(base), base) as started:
        yield started


def _then_status(daemon: Daemon, bad: bytes) -> tuple[dict[str, object], dict[str, object]]:
    """The answer to ``bad`` and to a valid request sent right after it, in one write."""
    with daemon.raw() as wire:
        wire.send(bad + frame(STATUS))
        first = wire.read()
        while first is not None and "method" in first:  # a notification (resultChanged)
            first = wire.read()
        assert first is not None, "the daemon closed the connection"
        second = first if first.get("id") == "next" else wire.answer("next")
        return first, second


MALFORMED = [
    ("invalid JSON", frame(b'{"jsonrpc": "2.0", "id": 1, "method": '), -32700, "parse error"),
    (
        "not UTF-8",
        frame(b'{"jsonrpc":"2.0","id":1,"method":"perfline/status","x":"\xff"}'),
        -32700,
        "not UTF-8",
    ),
    (
        "NaN token",
        frame(b'{"jsonrpc":"2.0","id":1,"method":"perfline/status","params":{"a":NaN}}'),
        -32700,
        "NaN",
    ),
    ("deep nesting", frame(b"[" * 100_000 + b"]" * 100_000), -32700, "nested deeper"),
    (
        "huge integer",
        frame(b'{"jsonrpc":"2.0","id":1,"method":"x","params":[' + b"7" * 5001 + b"]}"),
        -32700,
        "5001 digits",
    ),
    ("batch", frame(b'[{"jsonrpc":"2.0","id":1,"method":"perfline/status"}]'), -32600, "batch"),
    ("scalar", frame(b"42"), -32600, "JSON object"),
    ("string", frame(b'"perfline/status"'), -32600, "JSON object"),
    ("no jsonrpc", frame(b'{"id":1,"method":"perfline/status"}'), -32600, "jsonrpc"),
    ("method not a string", frame(b'{"jsonrpc":"2.0","id":1,"method":5}'), -32600, "method"),
    (
        "id an object",
        frame(b'{"jsonrpc":"2.0","id":{},"method":"perfline/status"}'),
        -32600,
        "'id'",
    ),
    (
        "scalar params",
        frame(b'{"jsonrpc":"2.0","id":1,"method":"perfline/status","params":3}'),
        -32602,
        "params",
    ),
    ("empty body", frame(b""), -32700, "parse error"),
    ("no Content-Length", b"Content-Type: application/json\r\n\r\n", -32600, "Content-Length"),
    ("bad Content-Length", b"Content-Length: twelve\r\n\r\n", -32600, "not a number"),
    ("long header line", b"X-Long: " + b"a" * 20_000 + b"\r\n", -32600, "longer than"),
]


@pytest.mark.parametrize(
    ("bad", "code", "text"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED]
)
def test_a_malformed_frame_gets_its_error_and_the_next_request_is_answered(
    daemon: Daemon, bad: bytes, code: int, text: str
) -> None:
    first, second = _then_status(daemon, bad)
    error = first.get("error")
    assert isinstance(error, dict), first
    assert error["code"] == code and text in str(error["message"]), error
    assert "Traceback" not in json.dumps(first)
    result = second.get("result")
    assert isinstance(result, dict) and result["apiVersion"] == "1.2", second


def test_a_too_short_content_length_does_not_lose_the_next_request(daemon: Daemon) -> None:
    body = json.dumps(request("perfline/jobs", msg_id=1)).encode()
    first, second = _then_status(daemon, b"Content-Length: 10\r\n\r\n" + body)
    assert first["error"]["code"] == -32700  # type: ignore[index]
    assert second["id"] == "next" and "result" in second


@pytest.mark.parametrize(
    "method", ["workspace/nothing", "nothing", "perfline/nothing", "$/nothing"]
)
@pytest.mark.parametrize("with_params", [False, True], ids=["no-params", "params"])
def test_unknown_methods_get_method_not_found(
    daemon: Daemon, method: str, with_params: bool
) -> None:
    with daemon.raw() as wire:
        reply = wire.request(method, {} if with_params else None, msg_id=7)
    assert reply["error"]["code"] == -32601, reply
    assert method in reply["error"]["message"]


def test_params_that_do_not_fit_the_method_are_invalid_params(daemon: Daemon) -> None:
    with daemon.raw() as wire:
        reply = wire.request("textDocument/hover", {"textDocument": 3}, msg_id=8)
    assert reply["error"]["code"] == -32602
    assert "textDocument/hover" in reply["error"]["message"]
    assert "Traceback" not in reply["error"]["message"]


def test_a_body_declared_over_the_limit_is_refused_without_being_read(daemon: Daemon) -> None:
    before = daemon.rss_kib()
    with daemon.raw() as wire:
        wire.send(b"Content-Length: 10000000000\r\n\r\n")
        sent = 0
        chunk = b"x" * (1 << 20)
        try:  # keep sending as a hostile client would, up to 300 MB, until cut off
            while sent < 300 << 20:
                wire.sock.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass
        wire.sock.settimeout(30)
        reply = wire.read()
        assert reply is None or reply["error"]["code"] == -32600
        if reply is not None:
            assert "over the limit" in reply["error"]["message"]
        assert wire.closed()
    after = daemon.rss_kib()
    assert after - before < 64 * 1024, (before, after)  # a wide margin: 64 MiB
    with daemon.client() as client:  # the daemon serves others still
        assert client.request("perfline/status")["apiVersion"] == "1.2"


def test_the_size_limit_is_configurable(tmp_path: Path) -> None:
    root = copy_kws(tmp_path)
    with running(root, tmp_path, "--max-request-bytes", "2048") as small, small.raw() as wire:
        reply = wire.request("perfline/status", msg_id=1)
        assert "result" in reply
        wire.send(frame(request("perfline/lineAnnotations", {"file": "x" * 4000})))
        refused = wire.read()
        assert refused is not None
        assert "over the limit of 2048 bytes" in refused["error"]["message"]
        assert wire.closed()


def test_an_http_request_is_closed_at_once_even_with_a_json_rpc_body(daemon: Daemon) -> None:
    with daemon.client() as client:
        runs = client.request("perfline/jobs")["jobs"][0]["runs"]
    body = json.dumps(request("perfline/reanalyze", {})).encode()
    http = (
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body) + body
    )
    for authenticate in (False, True):  # first bytes of a connection, or any frame start
        with daemon.raw(authenticate=authenticate) as wire:
            wire.send(http)
            assert wire.read() is None
    time.sleep(0.5)
    with daemon.client() as client:
        assert client.request("perfline/jobs")["jobs"][0]["runs"] == runs


def test_responses_are_strict_json(daemon: Daemon) -> None:
    """Every answer parses with a parser that refuses NaN and Infinity (``RawWire``)."""
    with daemon.raw() as wire:
        for msg_id, method in enumerate(["perfline/result", "perfline/entity", "perfline/summary"]):
            params = {"job": "dscnn-measured", "entityId": "x"}
            reply = wire.request(method, params, msg_id=msg_id)
            assert "result" in reply or "error" in reply


# ------------------------------------------------------------ the frame reader alone
# (imported in each test, so that the daemon probes above also run against main)


def _events(reader: Any, data: bytes, step: int) -> list[object]:
    events: list[object] = []
    for start in range(0, len(data), step):
        events.extend(reader.feed(data[start : start + step]))
    return events


@pytest.mark.parametrize("step", [1, 7, 1 << 20])
def test_frames_split_anywhere_come_out_whole(step: int) -> None:
    from perfline.server.lsp.frame_reader import Frame, FrameReader

    bodies = [json.dumps(request("m", {"i": i, "s": "ä" * i})).encode() for i in range(20)]
    data = b"".join(b"Content-Length: %d\r\nContent-Type: x\r\n\r\n" % len(b) + b for b in bodies)
    events = _events(FrameReader(), data, step)
    assert [e.body for e in events if isinstance(e, Frame)] == bodies
    assert len(events) == len(bodies)


def test_noise_before_a_frame_is_skipped_and_counted() -> None:
    from perfline.server.lsp.frame_reader import Frame, FrameReader

    reader = FrameReader()
    good = frame(request("m"))
    events = reader.feed(b"garbage\r\nmore}" + good)
    assert [type(e) for e in events] == [Frame]
    assert reader.skipped == len(b"garbage") + len(b"more}")


def test_a_closing_problem_stops_the_reader() -> None:
    from perfline.server.lsp.frame_reader import FrameProblem, FrameReader

    reader = FrameReader(max_body=10)
    events = reader.feed(b"Content-Length: 11\r\n\r\n" + b"x" * 11 + frame(b"{}"))
    assert len(events) == 1 and isinstance(events[0], FrameProblem) and events[0].close
    assert reader.feed(frame(b"{}")) == []


def test_an_http_request_line_is_recognised() -> None:
    from perfline.server.lsp.frame_reader import FrameReader, HttpRequest

    for line in (b"GET / HTTP/1.1\r\n", b"POST /x?y=1 HTTP/1.0\r\n", b"OPTIONS * HTTP/2\r\n"):
        (event,) = FrameReader().feed(line)
        assert isinstance(event, HttpRequest)


def test_the_strict_parser_of_these_tests_refuses_nan() -> None:
    with pytest.raises(ValueError):
        strict_loads("[NaN]")


def test_a_client_that_disconnects_mid_frame_leaves_the_daemon_serving(daemon: Daemon) -> None:
    for partial in (b"Content-Len", b"Content-Length: 100\r\n\r\n{", frame(b"{")[:-1]):
        with daemon.raw() as wire:
            wire.send(partial)
            wire.sock.shutdown(socket.SHUT_WR)
    with daemon.client() as client:
        assert client.request("perfline/status")["apiVersion"] == "1.2"
