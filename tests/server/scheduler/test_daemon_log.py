"""Issue 37 item 4: the daemon's log records every job failure and every configuration
problem, one line each (``server/scheduler/failure_log.py``), read from the log file of a real
``perfline serve`` on a copy of ``examples/kws``: a truncated ETDump, then a broken
``perfline.toml``, then both repaired."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfline.clients.rpc import Client
from tests.support.serve_daemon import Daemon, running_daemon
from tests.support.server_helpers import copy_kws, wait_for

pytestmark = pytest.mark.timeout(120)

STAMP = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d")


@pytest.fixture
def daemon(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Daemon, Path]]:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    log = tmp_path / "logs" / "perfline.log"
    arguments = ("--tcp", "127.0.0.1:0", "--log-file", str(log))
    with running_daemon(copy_kws(tmp_path), runtime, *arguments) as started:
        yield started, log


def _lines(log: Path, needle: str) -> list[str]:
    text = log.read_text(encoding="utf-8") if log.exists() else ""
    return [line for line in text.splitlines() if needle in line]


def test_job_failures_and_config_problems_are_logged_once_each(
    daemon: tuple[Daemon, Path],
) -> None:
    started, log = daemon
    root = started.root
    etdump = root / "dscnn_portable.etdump"
    content = etdump.read_bytes()
    with Client.connect(started.endpoint) as client:
        etdump.write_bytes(content[:1000])
        assert wait_for(
            lambda: client.request("perfline/jobs")["jobs"][0]["error"] is not None, timeout=30
        )
        assert wait_for(lambda: _lines(log, "job dscnn-measured failed"), timeout=10)
        (failed,) = _lines(log, "job dscnn-measured failed")
        error = client.request("perfline/jobs")["jobs"][0]["error"]
        assert " ".join(error["message"].split()) in failed
        assert failed.count("dscnn_portable.etdump") == 1 and "WARNING" in failed, failed

        config = root / "perfline.toml"
        good = config.read_text()
        config.write_text(good.replace("[[jobs]]", "[[job]]"))
        assert wait_for(lambda: client.request("perfline/status")["configError"], timeout=30)
        assert wait_for(lambda: _lines(log, "perfline.toml:"), timeout=10)
        (problem,) = _lines(log, "perfline.toml:")
        line = good.splitlines().index("[[jobs]]") + 1
        assert f"perfline.toml:{line}: " in problem and "unknown table 'job'" in problem
        assert problem.endswith("(the last valid configuration stays in force)")

        config.write_text(good)
        etdump.write_bytes(content)
        assert wait_for(
            lambda: (
                client.request("perfline/status")["configError"] is None
                and client.request("perfline/jobs")["jobs"][0]["error"] is None
            ),
            timeout=30,
        )
        assert wait_for(lambda: _lines(log, "perfline.toml is valid again"), timeout=10)
    # one line per failure: no message spilled onto lines of its own
    text = log.read_text(encoding="utf-8")
    assert len(_lines(log, "job dscnn-measured failed")) == 1
    for entry in text.splitlines():
        assert STAMP.match(entry) or entry.startswith((" ", "\t", "Traceback")), entry
