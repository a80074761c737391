"""Synchronous and asyncio clients of a running perfline daemon.

Requests get ids from a counter; a response with an ``error`` raises
``RpcError`` (``code``, ``message``, ``data``). Notifications such as
``perfline/resultChanged`` are queued (sync: ``Client.notifications``, read
with ``wait_notification``) or delivered to callbacks (async).

Over TCP the first request presents the daemon's token (``perfline/authenticate``):
the endpoint's own, else the one the daemon wrote into its private discovery entry for
that address (``server.discovery.token_for``). A Unix socket needs none.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfline.clients.rpc.framing import FramingError, encode, parse_headers, read_message
from perfline.server.discovery import find_daemon, token_for

#: The request that presents the token on a TCP connection (``server.lsp.admission``).
AUTHENTICATE = "perfline/authenticate"


class RpcError(Exception):
    """A JSON-RPC error response (or a lost connection, code -32099)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (JSON-RPC error {code})")
        self.code = code
        self.message = message
        self.data = data


@dataclass(frozen=True)
class Endpoint:
    """Where a daemon listens: loopback TCP (with the daemon's token, when known) or a
    Unix socket."""

    tcp: tuple[str, int] | None = None
    socket: str | None = None
    token: str | None = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        return f"tcp {self.tcp[0]}:{self.tcp[1]}" if self.tcp else f"socket {self.socket}"

    def tcp_token(self) -> str | None:
        """The token to present on TCP: this endpoint's, else the discovery entry's."""
        if self.tcp is None:
            return None
        host = "127.0.0.1" if self.tcp[0] == "localhost" else self.tcp[0]
        return self.token or token_for((host, int(self.tcp[1])))


def endpoint_for_workspace(workspace: str | Path) -> Endpoint | None:
    """The endpoint of a live daemon serving ``workspace`` (a path as text or a ``Path``;
    or an ancestor folder of it)."""
    found = find_daemon(Path(workspace))
    if found is None:
        return None
    if isinstance(found.get("tcp"), list):
        host, port = found["tcp"]
        token = found.get("token")
        return Endpoint(tcp=(str(host), int(port)), token=token if isinstance(token, str) else None)
    if isinstance(found.get("socket"), str):
        return Endpoint(socket=found["socket"])
    return None


def _open_socket(endpoint: Endpoint, timeout: float) -> socket.socket:
    if endpoint.tcp is not None:
        return socket.create_connection(endpoint.tcp, timeout=timeout)
    assert endpoint.socket is not None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(endpoint.socket)
    return sock


class Client:
    """A blocking client; use as a context manager."""

    def __init__(self, sock: socket.socket, timeout: float = 60.0) -> None:
        self._sock = sock
        self._sock.settimeout(timeout)
        self._stream = sock.makefile("rb")
        self._ids = itertools.count(1)
        self.notifications: collections.deque[dict[str, Any]] = collections.deque()

    @classmethod
    def connect(
        cls,
        endpoint: Endpoint | None = None,
        *,
        tcp: tuple[str, int] | None = None,
        socket_path: str | None = None,
        timeout: float = 60.0,
    ) -> Client:
        chosen = endpoint or Endpoint(tcp=tcp, socket=socket_path)
        if chosen.tcp is None and chosen.socket is None:
            raise ValueError("give an endpoint, tcp=(host, port) or socket_path=")
        client = cls(_open_socket(chosen, timeout), timeout)
        token = chosen.tcp_token()
        if token is not None:
            try:
                client.request(AUTHENTICATE, {"token": token})
            except BaseException:
                client.close()
                raise
        return client

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self._stream.close()
        finally:
            self._sock.close()

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._sock.sendall(encode(message))

    def request(self, method: str, params: Any = None) -> Any:
        """Send a request and wait for its response; queue notifications seen meanwhile."""
        msg_id = next(self._ids)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self._sock.sendall(encode(message))
        while True:
            reply = self._read()
            if reply.get("id") == msg_id and "method" not in reply:
                if "error" in reply:
                    error = reply["error"] or {}
                    raise RpcError(
                        int(error.get("code", -32603)),
                        str(error.get("message", "")),
                        error.get("data"),
                    )
                return reply.get("result")
            self._other(reply)

    def _read(self) -> dict[str, Any]:
        try:
            reply = read_message(self._stream)
        except (OSError, FramingError, ValueError) as error:
            raise RpcError(-32099, f"connection to the daemon failed: {error}") from None
        if reply is None:
            raise RpcError(-32099, "the daemon closed the connection")
        return reply

    def _other(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            # A server-to-client request (e.g. a refresh): scripts have nothing to refresh.
            self._sock.sendall(encode({"jsonrpc": "2.0", "id": message["id"], "result": None}))
        elif "method" in message:
            self.notifications.append(message)

    def wait_notification(self, method: str, timeout: float = 30.0) -> dict[str, Any]:
        """The next queued or incoming notification ``method`` (its params)."""
        deadline = time.monotonic() + timeout
        while True:
            for message in list(self.notifications):
                if message.get("method") == method:
                    self.notifications.remove(message)
                    params: dict[str, Any] = message.get("params") or {}
                    return params
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no {method} notification within {timeout} s")
            self._sock.settimeout(remaining)
            self._other(self._read())


class AsyncClient:
    """An asyncio client; ``on_notification`` callbacks get (method, params)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._callbacks: list[Callable[[str, Any], None]] = []
        self._task = asyncio.ensure_future(self._pump())

    @classmethod
    async def connect(
        cls,
        endpoint: Endpoint | None = None,
        *,
        tcp: tuple[str, int] | None = None,
        socket_path: str | None = None,
    ) -> AsyncClient:
        chosen = endpoint or Endpoint(tcp=tcp, socket=socket_path)
        if chosen.tcp is not None:
            reader, writer = await asyncio.open_connection(*chosen.tcp)
        elif chosen.socket is not None:
            reader, writer = await asyncio.open_unix_connection(chosen.socket)
        else:
            raise ValueError("give an endpoint, tcp=(host, port) or socket_path=")
        client = cls(reader, writer)
        token = chosen.tcp_token()
        if token is not None:
            try:
                await client.request(AUTHENTICATE, {"token": token})
            except BaseException:
                await client.close()
                raise
        return client

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def on_notification(self, callback: Callable[[str, Any], None]) -> None:
        self._callbacks.append(callback)

    async def request(self, method: str, params: Any = None) -> Any:
        msg_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self._writer.write(encode(message))
        await self._writer.drain()
        return await future

    async def _read(self) -> dict[str, Any] | None:
        headers: list[bytes] = []
        while True:
            line = await self._reader.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                if headers:
                    break
                continue
            headers.append(line.strip())

        body = await self._reader.readexactly(parse_headers(headers))
        value = json.loads(body)
        return value if isinstance(value, dict) else None

    async def _pump(self) -> None:
        error = RpcError(-32099, "the daemon closed the connection")
        try:
            while True:
                message = await self._read()
                if message is None:
                    break
                if "method" in message and "id" in message:
                    reply = {"jsonrpc": "2.0", "id": message["id"], "result": None}
                    self._writer.write(encode(reply))
                elif "method" in message:
                    for callback in list(self._callbacks):
                        callback(str(message["method"]), message.get("params"))
                else:
                    future = self._pending.pop(message.get("id"), None)  # type: ignore[arg-type]
                    if future is None or future.done():
                        continue
                    if "error" in message:
                        err = message["error"] or {}
                        future.set_exception(
                            RpcError(
                                int(err.get("code", -32603)),
                                str(err.get("message", "")),
                                err.get("data"),
                            )
                        )
                    else:
                        future.set_result(message.get("result"))
        except (OSError, asyncio.IncompleteReadError, FramingError, ValueError) as exc:
            error = RpcError(-32099, f"connection to the daemon failed: {exc}")
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(error)
            self._pending.clear()

    async def close(self) -> None:
        self._writer.close()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task
