"""A token on TCP (issue 20 item 4): ``perfline serve --tcp`` admits a connection only once
its first message presents the random token of its private discovery entry. On main any
local process of any user could read every result and trigger reanalysis."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.clients.rpc import AsyncClient, Client, Endpoint, RpcError
from tests.support.server_helpers import copy_kws
from tests.support.wire_daemon import Daemon, discovery_of, frame, request, running

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    base = tmp_path_factory.mktemp("auth")
    with running(copy_kws(base), base) as started:
        yield started


def _runs(daemon: Daemon) -> int:
    with daemon.client() as client:
        return int(client.request("perfline/jobs")["jobs"][0]["runs"])


def test_the_token_is_only_in_the_private_discovery_entry(daemon: Daemon) -> None:
    from perfline.server.discovery import entry_name

    folder = daemon.runtime / "perfline"
    entry = folder / entry_name(daemon.root, daemon.process.pid)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    token = json.loads(entry.read_text())["token"]
    assert token == daemon.endpoint.token and len(token) >= 32
    assert token not in daemon.log()
    assert [p.name for p in folder.iterdir()] == [entry.name]  # no temporary file left


@pytest.mark.parametrize(
    "first",
    [
        request("perfline/status"),
        request("perfline/reanalyze", {}),
        request("perfline/authenticate", {"token": "guess"}),
        request("perfline/authenticate", {}),
        request("initialize", {"capabilities": {}, "initializationOptions": {"token": "x"}}),
        request("initialize", {"capabilities": {}}),
        {"jsonrpc": "2.0", "method": "perfline/reanalyze", "params": {}},  # a notification
    ],
    ids=["status", "reanalyze", "wrong", "empty", "initialize-wrong", "initialize-none", "notify"],
)
def test_a_connection_without_the_token_is_refused_and_closed(
    daemon: Daemon, first: dict[str, object]
) -> None:
    runs = _runs(daemon)
    with daemon.raw(authenticate=False) as wire:
        wire.send(frame(first) + frame(request("perfline/reanalyze", {}, msg_id=2)))
        reply = wire.read()
        if "id" in first:
            assert reply is not None and reply["id"] == first["id"]
            assert reply["error"]["code"] == -32006
            assert "perfline/authenticate" in reply["error"]["message"]
        assert wire.closed()
    assert _runs(daemon) == runs


def test_the_token_admits_scripts_and_editors(daemon: Daemon) -> None:
    token = daemon.endpoint.token
    with daemon.raw(authenticate=False) as wire:
        reply = wire.request("perfline/authenticate", {"token": token}, msg_id=1)
        assert reply["result"] == {"authenticated": True}
        assert wire.request("perfline/status", msg_id=2)["result"]["jobs"] == 1
        again = wire.request("perfline/authenticate", {"token": "anything"}, msg_id=3)
        assert again["result"] == {"authenticated": True}  # admitted once is enough
    with daemon.raw(authenticate=False) as wire:
        params = {"capabilities": {}, "initializationOptions": {"token": token}}
        reply = wire.request("initialize", params, msg_id=1)
        assert "capabilities" in reply["result"]


def test_the_clients_read_the_token_from_the_discovery_entry(daemon: Daemon) -> None:
    address = daemon.endpoint.tcp
    assert address is not None
    with discovery_of(daemon.env):
        with Client.connect(tcp=address) as client:  # no token given: looked up
            assert client.request("perfline/status")["jobs"] == 1

        async def asynchronous() -> int:
            client = await AsyncClient.connect(Endpoint(tcp=address))
            try:
                return int((await client.request("perfline/status"))["jobs"])
            finally:
                await client.close()

        import asyncio

        assert asyncio.run(asynchronous()) == 1
        query = CliRunner().invoke(
            cli, ["query", "perfline/jobs", "--tcp", f"{address[0]}:{address[1]}", "--no-local"]
        )
        assert query.exit_code == 0, query.output
        assert json.loads(query.output)["jobs"][0]["state"] == "ok"
    with pytest.raises(RpcError) as refused:  # elsewhere the token is unknown: refused
        Client.connect(Endpoint(tcp=address, token="not-the-token"))
    assert refused.value.code == -32006


def test_the_cli_says_when_a_tcp_daemon_refuses_it(daemon: Daemon, tmp_path: Path) -> None:
    address = daemon.endpoint.tcp
    assert address is not None
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)}  # another discovery folder
    where = f"{address[0]}:{address[1]}"
    result = subprocess.run(
        [sys.executable, "-m", "perfline", "query", "perfline/jobs", "--tcp", where, "--no-local"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert "error -32006" in result.stderr and "Traceback" not in result.stderr


_OTHER_USER = textwrap.dedent(
    """
    # Standard library only: the other user may not be able to read the checkout.
    import json, socket, sys
    host, port, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    seen = {}
    try:
        seen["listing"] = sorted(__import__("os").listdir(folder))
    except PermissionError:
        seen["listing"] = "denied"
    request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "perfline/status"}).encode()
    with socket.create_connection((host, port), timeout=30) as raw:
        raw.sendall(b"Content-Length: %d\\r\\n\\r\\n" % len(request) + request)
        data = b""
        while b"\\r\\n\\r\\n" not in data:
            data += raw.recv(65536)
        head, _, body = data.partition(b"\\r\\n\\r\\n")
        fields = dict(line.split(b":", 1) for line in head.split(b"\\r\\n"))
        length = int(fields[b"Content-Length"])
        while len(body) < length:
            body += raw.recv(65536)
        seen["status"] = json.loads(body[:length])["error"]["code"]
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "perfline/reanalyze"}).encode()
    post = b"POST / HTTP/1.1\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(body) + body
    with socket.create_connection((host, port), timeout=30) as raw:
        raw.sendall(post)
        seen["http"] = raw.recv(65536).decode()
    print(json.dumps(seen))
    """
)


def test_another_user_cannot_read_the_token_nor_use_the_daemon(daemon: Daemon) -> None:
    setpriv = shutil.which("setpriv")
    if os.getuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv to run a client as another user (nobody)")
    address = daemon.endpoint.tcp
    assert address is not None
    runs = _runs(daemon)
    folder = daemon.runtime / "perfline"
    command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable]
    command += ["-c", _OTHER_USER, address[0], str(address[1]), str(folder)]
    env = {**daemon.env, "HOME": "/nonexistent"}
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    if (
        result.returncode != 0
        and "Permission denied" in result.stderr
        and "python" in result.stderr
    ):
        pytest.skip(f"the interpreter cannot run as nobody here: {result.stderr[-300:]}")
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen == {"listing": "denied", "status": -32006, "http": ""}
    assert _runs(daemon) == runs
