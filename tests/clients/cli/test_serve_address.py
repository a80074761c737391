"""Issue 37 item 4: ``perfline serve --tcp`` on an address that is not loopback exits 2 (bad
input, as docs/cli.md says) with one line naming the address, before anything is analysed or
bound; loopback addresses are served (``server.serve.check_loopback``, the one address check).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.server_helpers import copy_kws

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("address", ["0.0.0.0:0", "192.168.1.20:8765", "[::]:0", "10.0.0.7:0"])
def test_a_non_loopback_address_exits_2(address: str, tmp_path: Path) -> None:
    root = copy_kws(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "perfline", "serve", "--tcp", address, "-w", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    host = address.rsplit(":", 1)[0].strip("[]")
    assert lines == [
        f"error: refusing to listen on {host}: the daemon binds loopback addresses only "
        "(127.0.0.1 or ::1)"
    ]
    assert done.stdout == ""
