"""The clients' ``--tcp`` (``annotate``, ``query``, ``watch``, ``mcp``) and the Python client
connect to loopback addresses only, checked by the one address check ``serve`` uses
(``server.tcp_address``): a daemon elsewhere is not this user's, and requests carry absolute
paths and the token. Found by qa: ``--tcp 0.0.0.0:PORT`` connected and sent requests, and the
error read "Expecting value: line 1 column 1". Here a listener on every interface stands for
such a host: nothing may connect to it."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.clients.rpc import AsyncClient, Client
from perfline.server.tcp_address import NotLoopback, check_loopback

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP socket listening on every interface (0.0.0.0), never accepting."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("0.0.0.0", 0))
    sock.listen(8)
    sock.setblocking(False)
    try:
        yield sock
    finally:
        sock.close()


def _connected(sock: socket.socket) -> bool:
    try:
        peer, _ = sock.accept()
    except BlockingIOError:
        return False
    peer.close()
    return True


@pytest.mark.parametrize(
    "arguments",
    [
        ["annotate", "{model}"],
        ["query", "perfline/jobs"],
        ["watch", "--count", "1"],
        ["mcp"],
    ],
    ids=lambda arguments: arguments[0],
)
def test_a_client_refuses_a_non_loopback_tcp_host(
    arguments: list[str], listener: socket.socket, tmp_path: Path, runtime: Path
) -> None:
    model = tmp_path / "model.py"
    model.write_text("x = 1\n")
    port = listener.getsockname()[1]
    arguments = [argument.format(model=model) for argument in arguments]
    done = CliRunner().invoke(
        cli, [*arguments, "-w", str(tmp_path), "--tcp", f"0.0.0.0:{port}"], input=""
    )
    assert done.exit_code == 2, done.output
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "error: refusing to connect to 0.0.0.0: a perfline daemon listens on loopback "
        "addresses only (127.0.0.1 or ::1)"
    ]
    assert not _connected(listener)


def test_the_python_clients_refuse_a_non_loopback_host(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    with pytest.raises(NotLoopback, match=r"refusing to connect to 0\.0\.0\.0:"):
        Client.connect(tcp=("0.0.0.0", port))
    with pytest.raises(NotLoopback, match=r"refusing to connect to 0\.0\.0\.0:"):
        asyncio.run(AsyncClient.connect(tcp=("0.0.0.0", port)))
    assert not _connected(listener)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "10.0.0.7", "example.com"])
def test_one_check_for_listening_and_connecting(host: str) -> None:
    for action in ("listen on", "connect to"):
        with pytest.raises(NotLoopback) as raised:
            check_loopback(host, action)
        assert "\n" not in str(raised.value)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_loopback_hosts_pass(host: str) -> None:
    assert check_loopback(host, "connect to") in (host, "127.0.0.1")
