"""Fuzzing the LSP/JSON-RPC framing (issue 20 item 9): mutated streams of real requests
(bit flips, truncations, corrupted ``Content-Length`` values, deep nesting) never make
the frame reader or the message checks raise, get only JSON-RPC answers the protocol
defines (never -32603), and leave the daemon answering a fresh connection with flat
memory. Seeded; ``PERFLINE_FUZZ_COUNT`` scales the corpus."""

from __future__ import annotations

import json
import os
import random
import socket
from collections.abc import Iterator

import pytest

from tests.product.hardening.mutations import mutations
from tests.support.server_helpers import copy_kws
from tests.support.wire_daemon import Daemon, frame, request, running

pytestmark = pytest.mark.timeout(300)

COUNT = int(os.environ.get("PERFLINE_FUZZ_COUNT", "16"))
#: Codes a malformed or refused message may get (never -32603, an internal error).
ANSWERS = {-32700, -32600, -32601, -32602, -32001, -32002, -32003, -32004}

STREAM = b"".join(
    frame(message)
    for message in (
        request("perfline/status", msg_id=1),
        request("perfline/lineAnnotations", {"file": "dscnn.py", "metrics": True}, msg_id=2),
        request("perfline/entity", {"job": "dscnn-measured", "entityId": "x"}, msg_id=3),
        request(
            "textDocument/hover",
            {"textDocument": {"uri": "file:///x.py"}, "position": {"line": 1, "character": 0}},
            msg_id=4,
        ),
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 9}},
    )
)


def _corpus(count: int) -> list[tuple[str, bytes]]:
    found = list(mutations(STREAM, "binary", 20, count))
    rng = random.Random(21)
    for _ in range(max(2, count // 4)):  # Content-Length values corrupted in place
        damaged = STREAM.replace(
            b"Content-Length: ",
            b"Content-Length: "
            + str(rng.choice([0, 1, 9, 10**9, 10**30, -1])).encode()
            + b"0" * rng.randint(0, 2),
            rng.randint(1, 3),
        )
        found.append(("Content-Length corrupted", damaged))
    found.append(("nested", frame(b"[" * 100_000 + b"]" * 100_000) + STREAM))
    found.append(("random bytes", random.Random(22).randbytes(4096) + STREAM))
    return found


@pytest.mark.parametrize("step", [1, 13, 4096])
def test_the_frame_reader_and_the_checks_never_raise(step: int) -> None:
    from perfline.server.lsp import inbound
    from perfline.server.lsp.frame_reader import Frame, FrameProblem, FrameReader, HttpRequest

    for _, damaged in _corpus(COUNT * 4):
        reader = FrameReader(max_body=1 << 20)
        for start in range(0, len(damaged), step):
            for event in reader.feed(damaged[start : start + step]):
                assert isinstance(event, Frame | FrameProblem | HttpRequest)
                if isinstance(event, Frame):
                    decoded = inbound.decode(event.body)
                    assert isinstance(decoded, dict | inbound.Refusal)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    base = tmp_path_factory.mktemp("fuzz-framing")
    with running(copy_kws(base), base) as started:
        yield started


@pytest.mark.slow
def test_the_daemon_answers_mutated_streams_as_the_protocol_says(daemon: Daemon) -> None:
    before = daemon.rss_kib()
    for operation, damaged in _corpus(COUNT):
        with daemon.raw() as wire:
            wire.send(damaged)
            wire.sock.shutdown(socket.SHUT_WR)  # the daemon reads to the end, then closes
            while (reply := wire.read()) is not None:
                assert reply.get("jsonrpc") == "2.0", (operation, reply)
                if "error" in reply:
                    assert reply["error"]["code"] in ANSWERS, (operation, reply)
                    assert "Traceback" not in json.dumps(reply), (operation, reply)
        with daemon.client() as client:  # alive, answering a fresh connection
            assert client.request("perfline/status")["jobs"] == 1, operation
    assert daemon.rss_kib() - before < 64 * 1024
