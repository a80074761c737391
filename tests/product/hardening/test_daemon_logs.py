"""Logs (issue 20 item 8, issue 17 item 7's daemon part): client mistakes are one INFO line
without a traceback; a real internal failure is one ERROR line with its traceback; logs go
to a rotating file by default and never to stdout in stdio mode. On main every client
mistake was an ERROR with a full traceback (twice), and an internal failure sent the
client the daemon's traceback."""

from __future__ import annotations

import json
import logging
import logging.handlers
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from perfline.clients.rpc import RpcError
from tests.support.server_helpers import copy_kws, wait_for
from tests.support.wire_daemon import (
    _SERVE,
    Daemon,
    daemon_env,
    frame,
    request,
    running,
    start_daemon,
    stop_daemon,
)

pytestmark = pytest.mark.timeout(180)


def _mistakes(daemon: Daemon) -> None:
    with daemon.client() as client:
        for method, params in (
            ("perfline/result", {"job": "nope"}),
            ("perfline/entity", {"job": "dscnn-measured"}),
            ("perfline/lineAnnotations", {"file": "/etc/passwd"}),
            ("perfline/lineAnnotations", {"file": "a\x00b"}),
            ("perfline/nothing", None),
            ("textDocument/hover", {"textDocument": 1}),
        ):
            with pytest.raises(RpcError) as caught:
                client.request(method, params)
            assert caught.value.code != -32603
    with daemon.raw() as wire:
        wire.send(frame(b"{not json") + frame(request("perfline/status", msg_id="s")))
        wire.answer("s")


def test_client_mistakes_are_info_lines_without_a_traceback(tmp_path: Path) -> None:
    with running(copy_kws(tmp_path), tmp_path) as daemon:
        _mistakes(daemon)
        assert wait_for(lambda: "parse error" in daemon.log(), timeout=30)
        log = daemon.log()
    assert "Traceback" not in log and " ERROR " not in log and " WARNING " not in log, log
    for text in (
        "unknown job 'nope'",
        "missing parameter 'entityId'",
        "outside the workspace",
        "NUL character",
        "unknown method 'perfline/nothing'",
        "invalid params for textDocument/hover",
        "parse error",
    ):
        lines = [line for line in log.splitlines() if text in line]
        assert lines and all(" INFO " in line for line in lines), (text, log)


_FAILING = """
import sys
from perfline.server import api

def failing(engine, params=None, lines=None):
    raise RuntimeError("a bug in perfline/summary")

api.METHODS["perfline/summary"] = failing
from perfline.clients.cli import main
sys.argv = ["perfline", "serve", *sys.argv[1:]]
main()
"""


def test_an_internal_failure_is_one_error_line_with_its_traceback(tmp_path: Path) -> None:
    root = copy_kws(tmp_path)
    command = (sys.executable, "-c", _FAILING)
    daemon = start_daemon(root, tmp_path, serve=command)
    try:
        with daemon.client() as client:
            with pytest.raises(RpcError) as caught:
                client.request("perfline/summary")
            assert client.request("perfline/status")["jobs"] == 1  # alive
        assert caught.value.code == -32603 and caught.value.data is None
        assert "RuntimeError" not in caught.value.message
        assert "daemon's log" in caught.value.message
        assert wait_for(lambda: "a bug in perfline/summary" in daemon.log(), timeout=30)
        log = daemon.log()
    finally:
        stop_daemon(daemon)
    errors = [line for line in log.splitlines() if " ERROR " in line]
    assert len(errors) == 1 and "perfline/summary" in errors[0], log
    assert log.count("Traceback (most recent call last)") == 1
    assert "RuntimeError: a bug in perfline/summary" in log


def test_the_log_file_is_rotating_and_under_the_state_folder_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perfline.clients.cli import serve

    env = daemon_env(tmp_path)
    process = subprocess.Popen(
        [*_SERVE, "--socket", str(tmp_path / "d.sock"), "-w", str(copy_kws(tmp_path))],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    default = Path(env["XDG_STATE_HOME"]) / "perfline" / "serve.log"
    try:
        assert wait_for(lambda: default.exists() and "serving" in default.read_text(), 60)
    finally:
        process.terminate()
        process.wait(15)
    assert serve.LOG_BYTES > 0 and serve.LOG_BACKUPS > 0
    monkeypatch.setattr(serve, "LOG_BYTES", 4096)  # rotate soon
    root = logging.getLogger()
    saved, level = root.handlers[:], root.level
    log_file = tmp_path / "x" / "serve.log"
    try:
        serve._setup_logging(log_file, verbose=False)
        serve._setup_logging(log_file, verbose=False)  # set up again: not twice
        ours = [h for h in root.handlers if h not in saved]
        assert len(ours) == 2  # the file and stderr (warnings and errors)
        for number in range(400):
            logging.getLogger("perfline.test").info("line %d of the rotation test", number)
    finally:
        for handler in [h for h in root.handlers if h not in saved]:
            root.removeHandler(handler)
            handler.close()
        root.setLevel(level)
    names = sorted(p.name for p in log_file.parent.iterdir())
    assert names == ["serve.log"] + [f"serve.log.{n}" for n in range(1, serve.LOG_BACKUPS + 1)]
    assert all(p.stat().st_size <= 4096 for p in log_file.parent.iterdir())
    assert "line 399 of the rotation test" in log_file.read_text()
    assert os.stat(log_file.parent).st_mode & 0o077 == 0


def _frames(data: bytes) -> list[dict[str, object]]:
    """Every message of a byte stream, which must be frames and nothing else."""
    found = []
    while data:
        match = re.match(rb"Content-Length: (\d+)\r\n(?:[A-Za-z-]+: [^\r\n]*\r\n)*\r\n", data)
        assert match, data[:200]
        end = match.end() + int(match.group(1))
        found.append(json.loads(data[match.end() : end]))
        data = data[end:]
    return found


def test_stdio_carries_frames_only(tmp_path: Path) -> None:
    root = copy_kws(tmp_path)
    env = daemon_env(tmp_path)
    log_file = tmp_path / "stdio.log"
    messages = [
        request("initialize", {"capabilities": {}, "rootUri": root.as_uri()}, msg_id=1),
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        request("perfline/result", {"job": "nope"}, msg_id=2),
        request("nothing/here", msg_id=3),
    ]
    stdin = b"".join(frame(m) for m in messages) + frame(b"[1, 2") + b"Content-Length: x\r\n\r\n"
    stdin += frame(request("shutdown", msg_id=4)) + frame({"jsonrpc": "2.0", "method": "exit"})
    result = subprocess.run(
        [*_SERVE, "--stdio", "--log-file", str(log_file)],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=root,
        timeout=120,
    )
    replies = _frames(result.stdout)
    by_id = {reply.get("id"): reply for reply in replies if "method" not in reply}
    assert by_id[2]["error"]["code"] == -32001  # type: ignore[index]
    assert by_id[3]["error"]["code"] == -32601  # type: ignore[index]
    assert by_id[4]["result"] is None
    assert [r["error"]["code"] for r in replies if r.get("id") is None and "error" in r] == [  # type: ignore[index]
        -32700,
        -32600,
    ]
    assert b"INFO" not in result.stderr, result.stderr
    assert "unknown job 'nope'" in log_file.read_text()
