"""The load and watcher-chaos scenario, shared by the test (correctness) and
``benchmarks/load.py`` (figures).

``clients`` threads each open a TCP connection to the daemon and send ``requests``
requests, cycling through the methods of ``MIX``, while a writer rewrites the ETDump
every ``rewrite_every`` seconds (alternating two real ETDumps of the program, each
written in place, as a profiler would). Every request's latency is recorded by method
(from sending it to its whole answer, parsing included) and every failure kept with its
message. Nothing here asserts: the caller decides.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfline.clients.rpc import Client, Endpoint

#: The requests each client sends in turn (a perfline/result carries the whole document).
MIX: tuple[tuple[str, dict[str, Any] | None], ...] = (
    ("perfline/status", None),
    ("perfline/jobs", None),
    ("perfline/lineAnnotations", {"file": "dscnn.py"}),
    ("perfline/summary", None),
    ("perfline/codeLenses", {"file": "dscnn.py"}),
    ("perfline/lineAnnotations", {"file": "dscnn.py", "metrics": True}),
    ("perfline/breakdown", {"file": "dscnn.py", "startLine": 20, "endLine": 30}),
    ("perfline/result", {"job": "dscnn-measured"}),
)


@dataclass
class LoadReport:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    rewrites: int = 0
    seconds: float = 0.0

    @property
    def requests(self) -> int:
        return sum(len(v) for v in self.latencies.values())


def run_load(
    endpoint: Endpoint,
    etdump: Path,
    contents: tuple[bytes, ...],
    *,
    clients: int = 50,
    requests: int = 200,
    rewrite_every: float = 0.2,
    timeout: float = 120.0,
    on_progress: Callable[[int], None] | None = None,
) -> LoadReport:
    """Run the scenario; ``timeout``: a client's wait for one answer before it counts
    as an error (a hang), not a latency target."""
    report = LoadReport()
    lock = threading.Lock()
    done = threading.Event()
    ready = threading.Barrier(clients + 1)

    def client(slot: int) -> None:
        mine: dict[str, list[float]] = {}
        try:
            connection = Client.connect(endpoint, timeout=timeout)
        except Exception as error:
            with lock:
                report.errors.append(f"client {slot} could not connect: {error}")
            ready.abort()
            return
        with connection:
            ready.wait()
            for number in range(requests):
                method, params = MIX[(slot + number) % len(MIX)]
                start = time.perf_counter()
                try:
                    connection.request(method, params)
                except Exception as error:
                    with lock:
                        report.errors.append(f"client {slot} {method}: {error}"[:300])
                    continue
                mine.setdefault(method, []).append(time.perf_counter() - start)
                connection.notifications.clear()
        with lock:
            for method, values in mine.items():
                report.latencies.setdefault(method, []).extend(values)

    def writer() -> None:
        while not done.wait(rewrite_every):
            content = contents[report.rewrites % len(contents)]
            with open(etdump, "wb") as handle:  # in place, as a profiler writes its dump
                handle.write(content)
            report.rewrites += 1
            if on_progress is not None:
                on_progress(report.rewrites)

    threads = [threading.Thread(target=client, args=(slot,)) for slot in range(clients)]
    for thread in threads:
        thread.start()
    with contextlib.suppress(threading.BrokenBarrierError):  # a client could not connect
        ready.wait()
    rewriting = threading.Thread(target=writer)
    started = time.perf_counter()
    rewriting.start()
    for thread in threads:
        thread.join()
    report.seconds = time.perf_counter() - started
    done.set()
    rewriting.join()
    return report
