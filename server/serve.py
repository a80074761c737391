"""Transports: stdio (one editor), TCP on loopback and a private Unix socket (a shared
daemon serving several clients at once on one engine).

Every connection gets its own ``PerflineServer`` (protocol state, open
documents) on one ``EngineHost``. A shared daemon advertises itself in a
per-user runtime folder (``$XDG_RUNTIME_DIR/perfline`` or
``/tmp/perfline-<uid>``, mode 0700) so ``perfline annotate`` can find the
daemon serving a workspace; the entry is removed when the daemon stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any

from pygls.io_ import run_async

from perfline.server.discovery import advertise
from perfline.server.host import EngineHost
from perfline.server.lsp import PerflineServer

log = logging.getLogger(__name__)


class ServeError(Exception):
    """The daemon cannot serve as asked (bad host, socket path in use...)."""


def check_loopback(host: str) -> str:
    """Accept only loopback addresses (``localhost``, ``127.0.0.0/8``, ``::1``)."""
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise ServeError(f"--tcp host {host!r} is not an IP address; use 127.0.0.1") from None
    if not address.is_loopback:
        raise ServeError(
            f"refusing to listen on {host}: the daemon binds loopback addresses only "
            "(127.0.0.1 or ::1)"
        )
    return host


def run_stdio(host: EngineHost) -> None:
    """Serve one editor over stdin/stdout (logs must never go to stdout)."""
    server = PerflineServer(host)
    try:
        server.start_io()
    finally:
        host.close()


# ------------------------------------------------------------ shared daemon


class _StreamWriter:
    """pygls writer interface over an asyncio StreamWriter."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    def write(self, data: bytes) -> None:
        if not self._writer.is_closing():
            self._writer.write(data)

    def close(self) -> None:
        self._writer.close()


async def _serve_connection(
    host: EngineHost, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    server = PerflineServer(host)
    stop = threading.Event()
    server.protocol.set_writer(_StreamWriter(writer))

    def closed() -> None:
        stop.set()
        writer.close()

    server.on_disconnect = closed
    server.attach(host.engine())
    try:
        await run_async(
            stop_event=stop,
            reader=reader,
            protocol=server.protocol,
            logger=log,
            error_handler=server.report_server_error,
        )
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        server.disconnect()
        if not writer.is_closing():
            writer.close()


def run_shared(
    host: EngineHost,
    workspace: Path,
    *,
    tcp: tuple[str, int] | None = None,
    socket_path: Path | None = None,
    ready: threading.Event | None = None,
) -> None:
    """Serve clients on loopback TCP or a Unix socket until interrupted."""
    if tcp is not None:
        check_loopback(tcp[0])
    asyncio.run(_run_shared(host, workspace, tcp, socket_path, ready))


async def _run_shared(
    host: EngineHost,
    workspace: Path,
    tcp: tuple[str, int] | None,
    socket_path: Path | None,
    ready: threading.Event | None,
) -> None:
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, host.engine)
    host.start_watchdog()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _serve_connection(host, reader, writer)

    endpoint: dict[str, Any]
    if tcp is not None:
        server = await asyncio.start_server(handle, tcp[0], tcp[1])
        bound = server.sockets[0].getsockname()
        endpoint = {"tcp": [bound[0], bound[1]]}
        print(
            f"perfline: serving {workspace} on tcp {bound[0]}:{bound[1]}",
            file=sys.stderr,
            flush=True,
        )
    else:
        assert socket_path is not None
        path = socket_path.resolve()
        if path.exists():
            if path.is_socket() and not _socket_in_use(path):
                path.unlink()
            else:
                raise ServeError(f"{path} exists; is another daemon serving there?")
        old = os.umask(0o077)
        try:
            server = await asyncio.start_unix_server(handle, str(path))
        finally:
            os.umask(old)
        os.chmod(path, 0o600)
        endpoint = {"socket": str(path)}
        print(f"perfline: serving {workspace} on socket {path}", file=sys.stderr, flush=True)
    entry = advertise(workspace, endpoint)
    if ready is not None:
        ready.set()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    try:
        async with server:
            serving = asyncio.ensure_future(server.serve_forever())
            await stop.wait()
            serving.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await serving
    finally:
        with contextlib.suppress(OSError):
            entry.unlink()
        if socket_path is not None:
            with contextlib.suppress(OSError):
                socket_path.resolve().unlink()
        host.close()


def _socket_in_use(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True
