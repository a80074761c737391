"""Transports: stdio (one editor), TCP on loopback and a private Unix socket (a shared
daemon serving several clients at once on one engine).

Every connection gets its own ``PerflineServer`` (protocol state, open documents) on one
``EngineHost``, and its bytes go through ``lsp.message_loop`` (framing, strict JSON,
size limit, an answer for every malformed frame). A shared daemon advertises itself in
the private discovery folder (``server.discovery``) so ``perfline annotate`` can find
the daemon serving a workspace; the entry is removed when the daemon stops.

Security: TCP binds loopback addresses only, and a TCP connection is admitted only once
its first message presents the random token written into the discovery entry (mode
0600 in a folder of mode 0700; ``lsp.admission``); a connection that starts with an HTTP
request line is closed at once. Until then a connection may cost little
(``lsp.preauth``): a first message of a few KiB, a deadline, a small number of such
connections (one more closes the oldest), event-loop errors logged once a second at
most. A Unix socket is created with mode 0600 (its mode keeps other users out). Stdio
needs neither. Every connection's messages are handled one at a time with the other
connections going in between, and a connection whose client does not read its answers
is not read further until it does (``message_loop``).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import secrets
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any

from perfline.core.errors import InputError
from perfline.server.discovery import DiscoveryError, advertise, withdraw
from perfline.server.file_access import Root, remove_tree, rename
from perfline.server.host import EngineHost
from perfline.server.lsp import PerflineServer, preauth
from perfline.server.lsp.admission import TokenGate, new_token
from perfline.server.lsp.connection import StreamWriter
from perfline.server.lsp.frame_reader import DEFAULT_MAX_BODY
from perfline.server.lsp.message_loop import CHUNK, FramedReplies, run_connection, stdin_chunks
from perfline.server.lsp.protocol import PerflineProtocol

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


def run_stdio(host: EngineHost, *, max_body: int = DEFAULT_MAX_BODY) -> None:
    """Serve one editor over stdin/stdout (logs must never go to stdout)."""
    server = PerflineServer(host)
    stop = threading.Event()
    server.write_to_stdout(stop)

    async def serve() -> None:
        reader = stdin_chunks(sys.stdin.buffer)
        await run_connection(reader, _protocol(server), stop, max_body=max_body, peer="stdio")

    try:
        asyncio.run(serve())
    except BrokenPipeError:
        log.info("the editor closed the connection")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]
        host.close()


# ------------------------------------------------------------ shared daemon


async def _serve_connection(
    host: EngineHost,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    *,
    token: str | None,
    max_body: int,
    waiting: preauth.Waiting | None = None,
) -> None:
    ticket = waiting.arrive(writer.transport.abort) if waiting is not None else None
    stop = threading.Event()
    made: list[PerflineServer] = []

    def make() -> PerflineProtocol:  # once admitted: a language server costs milliseconds
        server = PerflineServer(host)
        server.write_to_stream(writer)

        def closed() -> None:
            stop.set()
            writer.close()

        server.on_disconnect = closed
        server.attach(host.engine())
        made.append(server)
        return _protocol(server)

    async def read() -> bytes:
        return await reader.read(CHUNK)

    try:
        await run_connection(
            read,
            make,
            stop,
            max_body=max_body,
            gate=TokenGate(token) if token is not None else None,
            peer=_peer(writer),
            waiting=ticket,
            drain=writer.drain,
            early=FramedReplies(StreamWriter(writer).write),
        )
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        for server in made:
            server.disconnect()
        if not writer.is_closing():
            with contextlib.suppress(Exception):  # the last answer (a refusal) goes out first
                await asyncio.wait_for(writer.drain(), 5)
            writer.close()


def _protocol(server: PerflineServer) -> PerflineProtocol:
    protocol = server.protocol
    assert isinstance(protocol, PerflineProtocol)
    return protocol


def _peer(writer: asyncio.StreamWriter) -> str:
    name = writer.get_extra_info("peername")
    if isinstance(name, tuple) and len(name) >= 2:
        return f"tcp client {name[0]}:{name[1]}"
    return "socket client"


def run_shared(
    host: EngineHost,
    workspace: Path,
    *,
    tcp: tuple[str, int] | None = None,
    socket_path: Path | None = None,
    ready: threading.Event | None = None,
    max_body: int = DEFAULT_MAX_BODY,
) -> None:
    """Serve clients on loopback TCP or a Unix socket until interrupted."""
    if tcp is not None:
        check_loopback(tcp[0])
    asyncio.run(_run_shared(host, workspace, tcp, socket_path, ready, max_body))


async def _listen(
    host: EngineHost, tcp: tuple[str, int] | None, socket_path: Path | None, max_body: int
) -> tuple[asyncio.Server, dict[str, Any], str]:
    """The listening server, the discovery endpoint and how it is described."""
    token = new_token() if tcp is not None else None
    waiting = preauth.Waiting() if token is not None else None

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _serve_connection(
            host, reader, writer, token=token, max_body=max_body, waiting=waiting
        )

    if tcp is not None:
        server = await asyncio.start_server(handle, tcp[0], tcp[1])
        bound = server.sockets[0].getsockname()
        return server, {"tcp": [bound[0], bound[1]], "token": token}, f"tcp {bound[0]}:{bound[1]}"
    assert socket_path is not None
    path = socket_path.resolve()
    if path.exists():
        if path.is_socket() and not _socket_in_use(path):
            remove_tree(path, root=Root.user_given())
        else:
            raise ServeError(f"{path} exists; is another daemon serving there?")
    server = await asyncio.start_unix_server(handle, sock=_listening_socket(path))
    return server, {"socket": str(path)}, f"socket {path}"


def _listening_socket(path: Path) -> socket.socket:
    """A Unix socket of mode 0600 that appears at ``path`` only once it listens: bound under
    a temporary name beside it (umask 077), listening, then renamed over ``path``, so a client
    that waits for the file never meets a socket that refuses connections."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")  # bind: never a link
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o077)
    try:
        listener.bind(str(temporary))
        os.chmod(temporary, 0o600)
        listener.listen(100)
        rename(temporary, path, root=Root.user_given())
    except BaseException:
        listener.close()
        with contextlib.suppress(InputError):
            remove_tree(temporary, root=Root.user_given())
        raise
    finally:
        os.umask(old)
    return listener


async def _run_shared(
    host: EngineHost,
    workspace: Path,
    tcp: tuple[str, int] | None,
    socket_path: Path | None,
    ready: threading.Event | None,
    max_body: int,
) -> None:
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(preauth.loop_exception_handler)
    _raise_descriptor_limit()
    await loop.run_in_executor(None, host.engine)
    host.start_watchdog()
    try:
        server, endpoint, described = await _listen(host, tcp, socket_path, max_body)
        try:
            entry = advertise(workspace, endpoint)
        except DiscoveryError as error:
            server.close()
            raise ServeError(f"{error}; clients could not find this daemon") from None
        print(f"perfline: serving {workspace} on {described}", file=sys.stderr, flush=True)
        log.info("serving %s on %s (discovery entry %s)", workspace, described, entry)
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
            withdraw(entry)
            if socket_path is not None:
                with contextlib.suppress(InputError):
                    remove_tree(socket_path.resolve(), root=Root.user_given())
    finally:
        host.close()


def _raise_descriptor_limit() -> None:
    """Open files up to the hard limit (a shared daemon holds one per connection)."""
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or hard > soft:
            wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def _socket_in_use(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True
