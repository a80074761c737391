"""Issue 38 N4 and N13: limits before the token, and fairness between connections.

On main any local user could make the daemon buffer a 64 MiB body per unadmitted
connection, hold connections for ever (1,100 silent ones locked real clients out of a
daemon at 1,024 descriptors, with a traceback in the log per refused ``accept``), and one
connection's 10,000 pipelined requests held every other client (each chunk of messages
was handled in one go)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import socket
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from perfline.server.lsp.message_loop import run_connection
from perfline.server.lsp.preauth import OncePerSecond, Waiting
from tests.support.server_helpers import copy_kws
from tests.support.wire_daemon import RawWire, frame, request, running, start_daemon, stop_daemon

pytestmark = pytest.mark.timeout(300)


def test_an_unadmitted_first_message_is_refused_before_its_body_is_read(tmp_path: Path) -> None:
    root = copy_kws(tmp_path)
    with running(root, tmp_path) as daemon:
        with RawWire(daemon.endpoint, timeout=20) as wire:
            wire.send(b"Content-Length: 60000000\r\n\r\n" + b"x" * 65536)
            reply = wire.read()
            assert reply is not None, "closed without an answer"
            assert "over the limit of 32768 bytes" in reply["error"]["message"], reply
            assert wire.closed()
        before = daemon.rss_kib()
        for _ in range(8):  # main kept each declared body in memory until it came whole
            with RawWire(daemon.endpoint, timeout=20) as wire, contextlib.suppress(OSError):
                wire.send(b"Content-Length: 60000000\r\n\r\n" + b"x" * (32 << 20))
        grown = daemon.rss_kib() - before
        assert grown < 64 * 1024, f"the daemon grew by {grown} KiB"
        with daemon.client() as client:
            assert client.request("perfline/status")["workspace"] == root.as_posix()


def test_a_connection_that_never_presents_the_token_is_closed(tmp_path: Path) -> None:
    root = copy_kws(tmp_path)
    with running(root, tmp_path) as daemon:
        assert daemon.endpoint.tcp is not None
        silent = socket.create_connection(daemon.endpoint.tcp, timeout=40)
        noisy = socket.create_connection(daemon.endpoint.tcp, timeout=40)
        try:
            noisy.sendall(b"noise that is not a frame\r\n" * 10)
            for connection in (silent, noisy):
                assert connection.recv(1) == b"", "the daemon kept the connection"
        finally:
            silent.close()
            noisy.close()


def _limited(descriptors: int) -> tuple[str, ...]:
    """``python -m perfline serve`` with at most ``descriptors`` open files."""
    if shutil.which("prlimit") is None:
        pytest.skip("needs prlimit (util-linux) to start the daemon with few descriptors")
    return ("prlimit", f"--nofile={descriptors}:{descriptors}", sys.executable, "-m")


def test_a_flood_of_silent_connections_never_locks_a_client_out(tmp_path: Path) -> None:
    root = copy_kws(tmp_path)
    daemon = start_daemon(root, tmp_path, serve=(*_limited(256), "perfline", "serve"))
    assert daemon.endpoint.tcp is not None
    flood: list[socket.socket] = []
    try:
        for _ in range(1100):
            with contextlib.suppress(OSError):
                flood.append(socket.create_connection(daemon.endpoint.tcp, timeout=2))
        with daemon.client(timeout=30) as client:
            assert client.request("perfline/status")["workspace"] == root.as_posix()
        descriptors = len(os.listdir(f"/proc/{daemon.process.pid}/fd"))
        assert descriptors < 200, f"the daemon holds {descriptors} descriptors"
    finally:
        for connection in flood:
            connection.close()
        stop_daemon(daemon)
    log = daemon.log()
    assert "Traceback" not in log, log[-3000:]
    assert len(log.splitlines()) < 200, f"{len(log.splitlines())} log lines"


class _Recorder:
    """A protocol stand-in: records the order messages are handled in, answers nothing."""

    _shutdown = False

    def __init__(self, name: str, order: list[tuple[str, Any]]) -> None:
        self.name = name
        self.order = order

    def __call__(self) -> _Recorder:  # also what makes it, for a loop that asks
        return self

    def knows(self, method: str) -> bool:
        return True

    def structure_message(self, message: dict[str, Any]) -> dict[str, Any]:
        return message

    def handle_message(self, message: dict[str, Any]) -> None:
        self.order.append((self.name, message["id"]))

    def send_error(self, msg_id: Any, code: int, message: str) -> None:
        raise AssertionError(message)

    def write_message(self, message: dict[str, Any]) -> None:
        raise AssertionError(message)


def test_a_pipelined_backlog_does_not_hold_another_connection() -> None:
    order: list[tuple[str, Any]] = []
    backlog = b"".join(frame(request("perfline/status", msg_id=n)) for n in range(1000))

    async def scenario() -> None:
        stop = threading.Event()
        ended = asyncio.Event()

        def source(*chunks: bytes) -> Any:
            pending = list(chunks)

            async def read() -> bytes:
                if pending:
                    await asyncio.sleep(0)
                    return pending.pop(0)
                await ended.wait()
                return b""

            return read

        flood = asyncio.ensure_future(
            run_connection(source(backlog), _Recorder("flood", order), stop)  # type: ignore[arg-type]
        )
        await asyncio.sleep(0)
        await asyncio.sleep(0)  # the flood's chunk is in and being handled
        other = asyncio.ensure_future(
            run_connection(
                source(frame(request("perfline/status", msg_id="x"))),
                _Recorder("other", order),  # type: ignore[arg-type]
                stop,
            )
        )
        while len(order) < 1001:
            await asyncio.sleep(0)
        ended.set()
        await asyncio.gather(flood, other)

    asyncio.run(scenario())
    position = order.index(("other", "x"))
    assert position < 20, f"the other connection waited for {position} pipelined messages"
    assert [n for name, n in order if name == "flood"] == list(range(1000))  # in order


def test_a_client_that_does_not_read_its_answers_is_not_read_further() -> None:
    reads: list[int] = []
    order: list[tuple[str, Any]] = []
    chunks = [frame(request("perfline/status", msg_id=n)) for n in range(3)]

    async def scenario() -> None:
        stop = threading.Event()
        drained = asyncio.Event()

        async def read() -> bytes:
            reads.append(len(reads))
            return chunks.pop(0) if chunks else b""

        async def drain() -> None:  # the answers not yet sent are many until it is set
            await drained.wait()

        task = asyncio.ensure_future(
            run_connection(read, _Recorder("c", order), stop, drain=drain)  # type: ignore[arg-type]
        )
        for _ in range(50):
            await asyncio.sleep(0)
        assert reads == [0] and order == [("c", 0)]  # waiting for the client to read
        drained.set()
        await task

    asyncio.run(scenario())
    assert order == [("c", 0), ("c", 1), ("c", 2)]


def test_a_kind_of_problem_is_logged_once_a_second_with_the_count_left_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [100.0]
    limited = OncePerSecond(logging.getLogger("perfline.test.preauth"), clock=lambda: now[0])
    with caplog.at_level(logging.INFO, logger="perfline.test.preauth"):
        assert limited.log(logging.INFO, "accept", "accept failed")
        for _ in range(500):
            assert not limited.log(logging.INFO, "accept", "accept failed")
        assert limited.log(logging.INFO, "other", "another kind")
        now[0] += 1.0
        assert limited.log(logging.INFO, "accept", "accept failed")
    assert [r.getMessage() for r in caplog.records] == [
        "accept failed",
        "another kind",
        "accept failed (500 more like it in the last second not logged)",
    ]


def test_one_connection_too_many_closes_the_one_that_waited_longest() -> None:
    closed: list[int] = []
    waiting = Waiting(most=2)
    first = waiting.arrive(lambda: closed.append(1))
    second = waiting.arrive(lambda: closed.append(2))
    second.end()  # admitted: no longer waiting
    waiting.arrive(lambda: closed.append(3))
    assert closed == [] and len(waiting) == 2
    waiting.arrive(lambda: closed.append(4))
    assert closed == [1] and first.done and len(waiting) == 2
