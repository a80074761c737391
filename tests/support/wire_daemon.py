"""A real ``perfline serve`` process for the hardening tests, and a raw wire client.

``start_daemon`` runs the daemon as users do (``python -m perfline serve``) with its own
discovery folder and log file, and waits until every job is analysed. ``RawWire`` speaks
bytes: it sends what a test builds (malformed frames included) and reads framed
answers with a timeout, so a test fails on a hang instead of hanging.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfline.clients.rpc import Client, Endpoint
from perfline.server.discovery import token_for

#: How long a test waits for an answer before calling it a hang (never a timing check).
ANSWER_TIMEOUT = 60.0


@dataclass
class Daemon:
    process: subprocess.Popen[str]
    endpoint: Endpoint
    root: Path
    runtime: Path
    log_file: Path
    env: dict[str, str]

    def rss_kib(self) -> int:
        """The daemon's resident memory (``VmRSS`` of ``/proc/<pid>/status``), KiB."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
        assert match, status
        return int(match.group(1))

    def client(self, timeout: float = ANSWER_TIMEOUT) -> Client:
        return Client.connect(self.endpoint, timeout=timeout)

    def raw(self, *, authenticate: bool = True, timeout: float = ANSWER_TIMEOUT) -> RawWire:
        wire = RawWire(self.endpoint, timeout)
        if authenticate and self.endpoint.tcp is not None:
            token = self.endpoint.token
            assert token, "the daemon advertised no token"
            reply = wire.request("perfline/authenticate", {"token": token}, msg_id="auth")
            assert reply.get("result") == {"authenticated": True}, reply
        return wire

    def log(self) -> str:
        return self.log_file.read_text() if self.log_file.exists() else ""


_SERVE = (sys.executable, "-m", "perfline", "serve")


def daemon_env(base: Path) -> dict[str, str]:
    """An environment whose discovery folder, state folder (log file) and cache are
    under ``base``; the test process must use the same ``XDG_RUNTIME_DIR``."""
    runtime = base / "run"
    runtime.mkdir(mode=0o700, exist_ok=True)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    env["XDG_STATE_HOME"] = str(base / "state")
    env["XDG_CACHE_HOME"] = str(base / "cache")
    return env


def start_daemon(
    root: Path,
    base: Path,
    *args: str,
    transport: str = "tcp",
    wait_jobs: bool = True,
    serve: Sequence[str] = _SERVE,
) -> Daemon:
    """``perfline serve`` on ``root`` (``transport``: ``tcp`` or ``socket``; ``serve``:
    the command before the options, ``python -m perfline serve``)."""
    env = daemon_env(base)
    log_file = base / "serve.log"
    where = ["--tcp", "127.0.0.1:0"] if transport == "tcp" else ["--socket", str(base / "d.sock")]
    process = subprocess.Popen(
        [*serve, *where, "-w", str(root), "--log-file", str(log_file), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd="/",
    )
    assert process.stderr is not None
    seen = []
    for line in process.stderr:  # warnings may come first (skipped inputs...)
        seen.append(line)
        if "perfline: serving" in line or len(seen) > 50:
            break
    tcp = re.search(r"on tcp ([\d.]+):(\d+)", line)
    sock = re.search(r"on socket (\S+)", line)
    if not (tcp or sock):
        process.kill()
        raise AssertionError(f"the daemon did not start: {''.join(seen)}{process.stderr.read()}")
    if tcp:
        address = (tcp.group(1), int(tcp.group(2)))
        with discovery_of(env):
            token = token_for(address)
        endpoint = Endpoint(tcp=address, token=token)
    else:
        assert sock is not None
        endpoint = Endpoint(socket=sock.group(1))
    daemon = Daemon(process, endpoint, root, Path(env["XDG_RUNTIME_DIR"]), log_file, env)
    if wait_jobs:
        with daemon.client() as client:
            deadline = time.monotonic() + ANSWER_TIMEOUT
            while not all(
                j["state"] in ("ok", "error") for j in client.request("perfline/jobs")["jobs"]
            ):
                assert time.monotonic() < deadline, "the jobs were not analysed in time"
                time.sleep(0.05)
    return daemon


@contextmanager
def discovery_of(env: dict[str, str]) -> Iterator[None]:
    """This process looks up discovery entries where the daemon of ``env`` writes them."""
    saved = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = env["XDG_RUNTIME_DIR"]
    try:
        yield
    finally:
        if saved is None:
            del os.environ["XDG_RUNTIME_DIR"]
        else:
            os.environ["XDG_RUNTIME_DIR"] = saved


def stop_daemon(daemon: Daemon) -> None:
    if daemon.process.poll() is None:
        daemon.process.terminate()
        try:
            daemon.process.wait(15)
        except subprocess.TimeoutExpired:
            daemon.process.kill()
            daemon.process.wait()
    if daemon.process.stderr is not None:
        daemon.process.stderr.close()


@contextmanager
def running(root: Path, base: Path, *args: str, transport: str = "tcp") -> Iterator[Daemon]:
    daemon = start_daemon(root, base, *args, transport=transport)
    try:
        yield daemon
    finally:
        stop_daemon(daemon)


def frame(body: bytes | dict[str, Any]) -> bytes:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def request(method: str, params: Any = None, msg_id: Any = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


class RawWire:
    """A connection that sends raw bytes and reads framed messages."""

    def __init__(self, endpoint: Endpoint, timeout: float = ANSWER_TIMEOUT) -> None:
        if endpoint.tcp is not None:
            self.sock = socket.create_connection(endpoint.tcp, timeout=timeout)
        else:
            assert endpoint.socket is not None
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(timeout)
            self.sock.connect(endpoint.socket)
        self.buffer = b""

    def __enter__(self) -> RawWire:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read(self) -> dict[str, Any] | None:
        """The next message (``None``: the daemon closed the connection)."""
        while True:
            head, sep, rest = self.buffer.partition(b"\r\n\r\n")
            if sep:
                match = re.search(rb"Content-Length: (\d+)", head)
                assert match, head
                length = int(match.group(1))
                if len(rest) >= length:
                    self.buffer = rest[length:]
                    value: dict[str, Any] = strict_loads(rest[:length])
                    return value
            if not self._received():
                return None

    def answer(self, msg_id: Any) -> dict[str, Any]:
        """The response to ``msg_id`` (notifications and server requests skipped)."""
        while True:
            message = self.read()
            assert message is not None, f"the connection closed before answering {msg_id!r}"
            if message.get("id") == msg_id and "method" not in message:
                return message

    def request(self, method: str, params: Any = None, msg_id: Any = 1) -> dict[str, Any]:
        self.send(frame(request(method, params, msg_id)))
        return self.answer(msg_id)

    def closed(self) -> bool:
        """Whether the daemon closes the connection (after what it still sends)."""
        while self._received():
            pass
        return True

    def _received(self) -> bool:
        """Add what the daemon sends next to the buffer; ``False``: it closed the connection."""
        try:
            chunk = self.sock.recv(65536)
        except ConnectionResetError:
            return False
        self.buffer += chunk
        return bool(chunk)


def strict_loads(data: bytes | str) -> Any:
    """``json.loads`` as a strict parser: ``NaN`` and ``Infinity`` are errors."""

    def refuse(token: str) -> Any:
        raise ValueError(f"{token} is not JSON")

    return json.loads(data, parse_constant=refuse)
