"""Probes of issue 20 that held on main, kept as regression tests where no other test
holds them: ETRecords damaged in every way keep the last good result; file operations on
the ETDump under the running daemon (written in pieces, deleted and restored, renamed
over) end in what a fresh analysis gives; TCP binds loopback only. (Damaged ETDumps,
NaN metric values and 200 rapid rewrites are in ``tests/server/test_engine_hardening.py``,
the standardized document's file operations in ``tests/server/test_watcher.py``, the
private socket file in ``tests/clients/rpc/test_client_and_cli.py``.)"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from perfline.clients.rpc import Client, LocalSession
from perfline.server.engine import Engine
from perfline.server.serve import ServeError, check_loopback
from tests.product.hardening.mutations import _zip_bomb
from tests.support.server_helpers import REPO, copy_kws, wait_for
from tests.support.wire_daemon import running

pytestmark = pytest.mark.timeout(180)

RERUN = REPO / "tests" / "data" / "docs" / "dscnn_portable_rerun.etdump"


@pytest.mark.parametrize("damage", ["empty", "truncated", "random", "zip bomb"])
def test_a_damaged_etrecord_keeps_the_last_good_result(tmp_path: Path, damage: str) -> None:
    root = copy_kws(tmp_path)
    record = root / "dscnn_portable.etrecord"
    data = record.read_bytes()
    engine = Engine(root, debounce=0.02, settle=0.1)
    engine.start()
    try:
        assert engine.wait_idle(30)
        good = engine.result("dscnn-measured")
        assert good is not None
        damaged = {
            "empty": lambda: b"",
            "truncated": lambda: data[: len(data) // 2],
            "random": lambda: random.Random(5).randbytes(len(data)),
            "zip bomb": lambda: _zip_bomb(data)[1],
        }[damage]()
        record.write_bytes(damaged)
        engine.notify_changed([record], finished=True)
        assert engine.wait_idle(60)
        info = engine.job("dscnn-measured")
        assert info is not None and info.state == "error" and info.stale
        assert info.error is not None and "dscnn_portable.etrecord" in info.error.message
        assert not info.error.message.startswith("internal error"), info.error.message
        assert engine.result("dscnn-measured") == good
    finally:
        engine.close()


def _in_pieces(path: Path, content: bytes) -> None:
    with path.open("wb") as handle:
        step = len(content) // 5 + 1
        for start in range(0, len(content), step):
            handle.write(content[start : start + step])
            handle.flush()
            time.sleep(0.05)


def _deleted_and_restored(path: Path, content: bytes) -> None:
    path.unlink()
    time.sleep(0.3)
    path.write_bytes(content)


def _renamed_over(path: Path, content: bytes) -> None:
    temporary = path.with_name(".dscnn_portable.etdump.partial")
    temporary.write_bytes(content)
    os.replace(temporary, path)


OPERATIONS: dict[str, Callable[[Path, bytes], None]] = {
    "written in pieces": _in_pieces,
    "deleted and restored": _deleted_and_restored,
    "renamed over": _renamed_over,
}


def test_file_operations_on_the_etdump_end_in_a_fresh_result(tmp_path: Path) -> None:
    root = copy_kws(tmp_path)
    etdump = root / "dscnn_portable.etdump"
    contents = [RERUN.read_bytes(), etdump.read_bytes()]
    with running(root, tmp_path) as daemon, daemon.client() as client:
        for number, (name, operation) in enumerate(OPERATIONS.items()):
            operation(etdump, contents[number % 2])
            with LocalSession(root) as local:
                fresh = local.request("perfline/result", {"job": "dscnn-measured"})["document"]
            assert wait_for(lambda fresh=fresh: _document(client) == fresh, timeout=60), name
            job = client.request("perfline/jobs")["jobs"][0]
            assert job["state"] == "ok" and not job["stale"], (name, job)


def _document(client: Client) -> Any:
    return client.request("perfline/result", {"job": "dscnn-measured"})["document"]


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.2", "10.0.0.1", "example.com"])
def test_only_loopback_addresses_are_served(host: str) -> None:
    with pytest.raises(ServeError):
        check_loopback(host)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_loopback_addresses_are_accepted(host: str) -> None:
    assert check_loopback(host) in (host, "127.0.0.1")
