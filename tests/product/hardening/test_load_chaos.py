"""The load and watcher-chaos test (issue 20 item 9): 50 concurrent TCP clients × 200
requests while the ETDump is rewritten every 200 ms: no request fails or hangs, and once
the rewrites stop the daemon serves exactly what a fresh analysis of the files gives.
Correctness only: ``benchmarks/load.py`` prints the latencies and the memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfline.clients.rpc import LocalSession
from tests.support.load_scenario import run_load
from tests.support.server_helpers import REPO, copy_kws, wait_for
from tests.support.wire_daemon import running

pytestmark = pytest.mark.timeout(600)

RERUN = REPO / "tests" / "data" / "docs" / "dscnn_portable_rerun.etdump"


@pytest.mark.slow
def test_fifty_clients_while_the_etdump_is_rewritten_every_200_ms(tmp_path: Path) -> None:
    root = copy_kws(tmp_path)
    etdump = root / "dscnn_portable.etdump"
    first, second = etdump.read_bytes(), RERUN.read_bytes()
    with running(root, tmp_path) as daemon:
        report = run_load(daemon.endpoint, etdump, (second, first), clients=50, requests=200)
        assert report.errors == [], report.errors[:5]
        assert report.requests == 50 * 200
        assert report.rewrites >= 2, "the files were not rewritten while the clients ran"
        with LocalSession(root) as local:  # a fresh analysis of what the files hold now
            fresh = local.request("perfline/result", {"job": "dscnn-measured"})["document"]
        with daemon.client() as client:

            def served() -> object:
                return client.request("perfline/result", {"job": "dscnn-measured"})

            assert wait_for(lambda: served()["document"] == fresh, timeout=60)  # type: ignore[index]
            final = client.request("perfline/jobs")["jobs"][0]
            assert final["state"] == "ok" and not final["stale"], final
            assert served()["document"] == fresh  # type: ignore[index]
