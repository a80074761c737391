"""Floods on the daemon's connections (issue 38 N4, N13), and what another client sees.

Starts ``python -m perfline serve --tcp 127.0.0.1:0`` on a copy of ``examples/kws`` and
runs, one after the other:

* **pipelined**: one admitted connection sends N ``perfline/status`` requests in one
  write (``--pipelined``, default 10,000) and reads the answers; meanwhile another
  client sends ``perfline/status`` every 10 ms. Prints how long the flood took to be
  answered and the other client's latencies (p50, p99, max) while it ran: the longest
  time one connection's backlog held another client.
* **silent**: ``--silent`` (default 1,100) connections that never present the token,
  then a real client: prints how long its ``perfline/status`` took, the daemon's
  descriptors and memory, and its log lines.

Usage: ``python benchmarks/connection_floods.py [--pipelined 10000] [--silent 1100]``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # the tests' daemon helpers; an installed perfline first

from tests.support.wire_daemon import Daemon, frame, request, running  # noqa: E402

KWS = ROOT / "examples" / "kws"


def _pipelined(daemon: Daemon, count: int) -> None:
    latencies: list[float] = []
    done = threading.Event()

    def other() -> None:
        with daemon.client() as client:
            while not done.is_set():
                started = time.perf_counter()
                client.request("perfline/status")
                latencies.append(time.perf_counter() - started)
                time.sleep(0.01)

    thread = threading.Thread(target=other)
    with daemon.raw() as flood:
        thread.start()
        time.sleep(0.2)
        started = time.perf_counter()
        payload = b"".join(frame(request("perfline/status", msg_id=n)) for n in range(count))
        flood.send(payload)
        for _ in range(count):
            assert flood.read() is not None
        took = time.perf_counter() - started
    done.set()
    thread.join()
    ordered = sorted(latencies)
    print(f"pipelined: {count} requests on one connection answered in {took:.2f} s")
    print(
        f"  another client meanwhile: {len(ordered)} requests, "
        f"p50 {statistics.median(ordered) * 1000:.1f} ms, "
        f"p99 {ordered[int(0.99 * (len(ordered) - 1))] * 1000:.1f} ms, "
        f"max {ordered[-1] * 1000:.1f} ms"
    )


def _silent(daemon: Daemon, count: int) -> None:
    assert daemon.endpoint.tcp is not None
    before = daemon.rss_kib()
    opened: list[socket.socket] = []
    started = time.perf_counter()
    for _ in range(count):
        with contextlib.suppress(OSError):
            opened.append(socket.create_connection(daemon.endpoint.tcp, timeout=2))
    took = time.perf_counter() - started
    descriptors = len(os.listdir(f"/proc/{daemon.process.pid}/fd"))
    try:
        with daemon.client(timeout=30) as client:
            asked = time.perf_counter()
            client.request("perfline/status")
            answer = f"{(time.perf_counter() - asked) * 1000:.1f} ms"
    except Exception as error:  # a benchmark reports, it does not stop
        answer = f"failed ({error})"
    for connection in opened:
        connection.close()
    print(f"silent: {len(opened)} of {count} connections opened in {took:.2f} s")
    print(f"  the daemon then held {descriptors} descriptors, grew {daemon.rss_kib() - before} KiB")
    print(f"  a real client's perfline/status: {answer}")
    print(f"  log lines: {len(daemon.log().splitlines())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipelined", type=int, default=10_000)
    parser.add_argument("--silent", type=int, default=1100)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        root = base / "kws"
        shutil.copytree(KWS, root)
        with running(root, base) as daemon:
            _pipelined(daemon, options.pipelined)
            _silent(daemon, options.silent)


if __name__ == "__main__":
    main()
