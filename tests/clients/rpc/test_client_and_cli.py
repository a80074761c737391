"""The Python client (sync and asyncio) and the CLI commands, against a shared daemon
and in-process; several clients on one engine."""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.clients.rpc import AsyncClient, Client, LocalSession, RpcError
from perfline.clients.rpc.client import endpoint_for_workspace
from tests.support.serve_daemon import Daemon, running_daemon
from tests.support.server_helpers import KWS_FIGURE_LINES, copy_kws, wait_for

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def daemon(tmp_path: Path, runtime: Path) -> Iterator[Daemon]:
    with running_daemon(copy_kws(tmp_path), runtime, "--tcp", "127.0.0.1:0") as started:
        yield started


def test_sync_client_and_discovery(daemon: Daemon) -> None:
    assert endpoint_for_workspace(daemon.root) == daemon.endpoint
    assert endpoint_for_workspace(daemon.root / "sub" / "folder") == daemon.endpoint
    with Client.connect(daemon.endpoint) as client:
        status = client.request("perfline/status")
        assert status["apiVersion"] == "1.2" and status["jobs"] == 1
        annotations = client.request("perfline/lineAnnotations", {"file": "dscnn.py"})
        assert [item["line"] for item in annotations["lines"] if item["label"]] == KWS_FIGURE_LINES
        with pytest.raises(RpcError) as caught:
            client.request("perfline/result", {"job": "missing"})
        assert caught.value.code == -32001
        with pytest.raises(RpcError) as unknown:
            client.request("perfline/nothing")
        assert unknown.value.code == -32601


def test_several_clients_share_one_engine(daemon: Daemon) -> None:
    async def scenario() -> None:
        received: list[dict[str, object]] = []
        first = await AsyncClient.connect(daemon.endpoint)
        second = await AsyncClient.connect(daemon.endpoint)
        first.on_notification(lambda method, params: received.append(params))
        try:
            jobs_a = await first.request("perfline/jobs")
            jobs_b = await second.request("perfline/jobs")
            assert jobs_a == jobs_b
            runs = jobs_a["jobs"][0]["runs"]
            await second.request("perfline/reanalyze", {"job": "dscnn-measured"})
            deadline = time.monotonic() + 30
            while not any(p.get("kind") == "result" for p in received):
                assert time.monotonic() < deadline, received
                await asyncio.sleep(0.05)
            after = await first.request("perfline/jobs")
            assert after["jobs"][0]["runs"] == runs + 1  # one engine: one more run, seen by both
        finally:
            await first.close()
            await second.close()

    asyncio.run(scenario())


def test_resultchanged_after_a_file_change_reaches_scripts(daemon: Daemon) -> None:
    with Client.connect(daemon.endpoint) as client:
        client.request("perfline/status")
        etdump = daemon.root / "dscnn_portable.etdump"
        content = etdump.read_bytes()
        etdump.write_bytes(content[:1000])
        params = client.wait_notification("perfline/resultChanged", timeout=30)
        while params.get("kind") != "result":
            params = client.wait_notification("perfline/resultChanged", timeout=30)
        assert params["job"] == "dscnn-measured" and params["stale"] and params["error"]
        result = client.request("perfline/result", {"job": "dscnn-measured"})
        assert result["stale"] is True and result["document"]["results"]
        etdump.write_bytes(content)
        params = client.wait_notification("perfline/resultChanged", timeout=30)
        while params.get("kind") != "result":
            params = client.wait_notification("perfline/resultChanged", timeout=30)
        assert not params["error"] and not params["stale"]


def test_unix_socket_is_private(tmp_path: Path, runtime: Path) -> None:
    path = tmp_path / "perfline.sock"
    with running_daemon(copy_kws(tmp_path), runtime, "--socket", str(path)):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        with Client.connect(socket_path=str(path)) as client:
            assert client.request("perfline/status")["jobs"] == 1
    assert not path.exists()


def test_serve_refuses_non_loopback_hosts() -> None:
    result = CliRunner().invoke(cli, ["serve", "--tcp", "0.0.0.0:9999"])
    assert result.exit_code != 0
    assert "loopback" in result.output


def test_query_in_process_and_via_daemon(daemon: Daemon) -> None:
    runner = CliRunner()
    local = runner.invoke(
        cli, ["query", "perfline/jobs", "-w", str(daemon.root), "--tcp", "127.0.0.1:1"]
    )
    assert local.exit_code != 0  # an explicit endpoint that is down is an error
    via = runner.invoke(cli, ["query", "jobs", "-w", str(daemon.root)])
    assert via.exit_code == 0, via.output
    assert json.loads(via.output)["jobs"][0]["name"] == "dscnn-measured"
    bad = runner.invoke(cli, ["query", "perfline/result", '{"job": "x"}', "-w", str(daemon.root)])
    assert bad.exit_code == 2 and "error -32001: unknown job 'x'" in bad.stderr


def test_query_without_daemon_answers_in_process(tmp_path: Path, runtime: Path) -> None:
    root = copy_kws(tmp_path)
    result = CliRunner().invoke(cli, ["query", "perfline/status", "-w", str(root)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["jobs"] == 1


def _margin_lines(output: str) -> list[int]:
    found = []
    for line in output.splitlines():
        match = re.match(r"^\s*(\d+)\s+(\S.*?)\s+│", line)
        if match and " ms " in match.group(2):
            found.append(int(match.group(1)))
    return found


def test_annotate_in_process(tmp_path: Path, runtime: Path) -> None:
    root = copy_kws(tmp_path)
    result = CliRunner().invoke(cli, ["annotate", str(root / "dscnn.py"), "--no-color"])
    assert result.exit_code == 0, result.output
    assert _margin_lines(result.output) == KWS_FIGURE_LINES
    assert "▸ nn.Module DSBlock:" in result.output
    assert "x = self.pointwise(x)" in result.output


def test_annotate_uses_the_running_daemon(daemon: Daemon) -> None:
    with Client.connect(daemon.endpoint) as client:
        before = client.request("perfline/jobs")["jobs"][0]["runs"]
    result = CliRunner().invoke(cli, ["annotate", str(daemon.root / "dscnn.py"), "--no-color"])
    assert result.exit_code == 0, result.output
    assert _margin_lines(result.output) == KWS_FIGURE_LINES
    with Client.connect(daemon.endpoint) as client:
        assert client.request("perfline/jobs")["jobs"][0]["runs"] == before


def test_local_session_matches_the_daemon(daemon: Daemon) -> None:
    with LocalSession(daemon.root) as local, Client.connect(daemon.endpoint) as remote:
        params = {"file": "dscnn.py"}
        assert local.request("perfline/lineAnnotations", params) == remote.request(
            "perfline/lineAnnotations", params
        )
        # The daemon writes perfline/result with core.json_codec.encode_compact: the same
        # document, value for value (floats to the bit: == on the parsed values).
        job = {"job": "dscnn-measured"}
        here = local.request("perfline/result", job)["document"]
        there = remote.request("perfline/result", job)["document"]
        assert there == here and json.dumps(there) == json.dumps(here)


def test_watch_prints_changes(daemon: Daemon) -> None:
    env = {**os.environ}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "perfline",
            "watch",
            "--json",
            "--count",
            "1",
            "-w",
            str(daemon.root),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        assert "watching" in process.stderr.readline()
        with Client.connect(daemon.endpoint) as client:
            client.request("perfline/reanalyze")
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    event = json.loads(out.strip().splitlines()[0])
    assert event["job"] == "dscnn-measured" and event["kind"] == "result"


def test_annotate_via_a_daemon_says_its_configuration_is_broken(daemon: Daemon) -> None:
    config = daemon.root / "perfline.toml"
    config.write_text(config.read_text().replace("[[jobs]]", "[[job]]"))
    with Client.connect(daemon.endpoint) as client:
        assert wait_for(lambda: client.request("perfline/status")["configError"], timeout=30)
    result = CliRunner().invoke(cli, ["annotate", str(daemon.root / "dscnn.py"), "--no-color"])
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "unknown table 'job'" in warnings[0]
    assert warnings[0].endswith("(the daemon keeps its last valid one)")
