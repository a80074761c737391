"""The discovery folder (issue 20 item 7, start-up): ``<tmp>/perfline-<uid>`` (or the
``$XDG_RUNTIME_DIR`` folder) created first by another user, or not a directory, or with
a loose mode, is verified before use: a hostile one is reported in one line and the next
folder is used. On main the daemon exited with a ``PermissionError`` traceback."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from perfline.clients.rpc import Client
from perfline.clients.rpc.client import endpoint_for_workspace
from perfline.server import discovery
from tests.support.server_helpers import copy_kws, wait_for
from tests.support.wire_daemon import _SERVE

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A private temporary folder and cache for this test (the real ones stay untouched)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir(mode=0o1777)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    getattr(discovery, "_reported", set()).clear()
    return {
        "tmp": tmp,
        "first": tmp / f"perfline-{os.getuid()}",
        "fallback": tmp_path / "cache" / "perfline" / "run",
    }


def _foreign(folder: Path) -> None:
    """``folder`` as another user would have made it first (root only: chown)."""
    if os.getuid() != 0:
        pytest.skip("making a folder of another user needs root")
    folder.mkdir()
    os.chmod(folder, 0o777)
    os.chown(folder, 65534, 65534)


def test_a_folder_of_another_user_is_reported_once_and_skipped(
    folders: dict[str, Path], caplog: pytest.LogCaptureFixture
) -> None:
    _foreign(folders["first"])
    with caplog.at_level(logging.WARNING, logger="perfline.server.discovery"):
        assert discovery.runtime_dir() == folders["fallback"]
        assert discovery.runtime_dir() == folders["fallback"]
    (record,) = caplog.records
    assert "belongs to another user (uid 65534)" in record.getMessage()
    assert stat.S_IMODE(folders["fallback"].stat().st_mode) == 0o700
    assert stat.S_IMODE(folders["first"].stat().st_mode) == 0o777  # not touched


@pytest.mark.parametrize("kind", ["symlink", "file"])
def test_a_folder_that_is_a_link_or_a_file_is_skipped(folders: dict[str, Path], kind: str) -> None:
    target = folders["tmp"] / "elsewhere"
    target.mkdir(mode=0o700)
    if kind == "symlink":
        os.symlink(target, folders["first"])
    else:
        folders["first"].write_text("")
    assert discovery.runtime_dir() == folders["fallback"]
    assert list(target.iterdir()) == []


def test_a_loose_folder_of_this_user_is_tightened(folders: dict[str, Path]) -> None:
    folders["first"].mkdir(mode=0o700)
    os.chmod(folders["first"], 0o755)
    assert discovery.runtime_dir() == folders["first"]
    assert stat.S_IMODE(folders["first"].stat().st_mode) == 0o700


def test_entries_that_are_not_private_files_of_this_user_are_ignored(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    folder = discovery.runtime_dir()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    entry = folder / discovery.entry_name(workspace, os.getpid())
    planted = {"pid": os.getpid(), "workspace": str(workspace), "tcp": ["127.0.0.1", 9]}
    entry.write_text(json.dumps(planted))
    os.chmod(entry, 0o644)  # anyone could have written it
    assert discovery.find_daemon(workspace) is None
    os.chmod(entry, 0o600)
    assert discovery.find_daemon(workspace) == planted
    entry.unlink()
    os.symlink(tmp_path / "elsewhere.json", entry)
    (tmp_path / "elsewhere.json").write_text(json.dumps(planted))
    assert discovery.find_daemon(workspace) is None


def test_the_daemon_starts_with_a_hostile_folder_and_clients_find_it(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    _foreign(folders["first"])
    root = copy_kws(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    env |= {"TMPDIR": str(folders["tmp"]), "XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"]}
    process = subprocess.Popen(
        [*_SERVE, "--tcp", "127.0.0.1:0", "-w", str(root), "--no-log-file"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        lines = [process.stderr.readline() for _ in range(2)]
        warning, serving = lines
        assert "not using" in warning and "belongs to another user" in warning, lines
        assert "perfline: serving" in serving, lines
        assert wait_for(lambda: endpoint_for_workspace(root) is not None, timeout=30)
        endpoint = endpoint_for_workspace(root)
        assert endpoint is not None and endpoint.token
        with Client.connect(endpoint) as client:
            assert client.request("perfline/status")["workspace"] == root.as_posix()
        assert (folders["fallback"] / discovery.entry_name(root, process.pid)).exists()
    finally:
        process.terminate()
        process.wait(15)
        assert process.stderr is not None
        rest = process.stderr.read()
        process.stderr.close()
    assert "Traceback" not in rest and "PermissionError" not in rest, rest
