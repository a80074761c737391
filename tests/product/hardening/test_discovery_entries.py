"""Issue 38 N12: a second daemon on the same workspace overwrote the first's discovery
entry, and once it stopped (removing that entry) clients could no longer find the first.
Now each daemon has an entry of its own; a client takes the live one started last."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfline.clients.rpc.client import endpoint_for_workspace
from tests.support.server_helpers import copy_kws
from tests.support.wire_daemon import discovery_of, start_daemon, stop_daemon

pytestmark = pytest.mark.timeout(180)


def test_two_daemons_on_one_workspace_are_both_findable(tmp_path: Path) -> None:
    root = copy_kws(tmp_path)
    first = start_daemon(root, tmp_path, wait_jobs=False)
    second = None
    try:
        second = start_daemon(root, tmp_path, wait_jobs=False)
        entries = sorted(p.name for p in (first.runtime / "perfline").iterdir())
        assert len(entries) == 2, entries
        with discovery_of(first.env):
            found = endpoint_for_workspace(root)
            assert found is not None and found.tcp == second.endpoint.tcp  # started last
            stop_daemon(second)
            found = endpoint_for_workspace(root)
            assert found is not None and found.tcp == first.endpoint.tcp, found
            with first.client() as client:
                assert client.request("perfline/status")["workspace"] == root.as_posix()
    finally:
        if second is not None:
            stop_daemon(second)
        stop_daemon(first)
