"""A real Dask cluster for the tests: ``dask scheduler`` and ``dask worker`` processes on
127.0.0.1, started and stopped by the test."""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.batch._runs import BIN

START_SECONDS = 60.0


@dataclass
class Cluster:
    """The scheduler's address and the processes (scheduler first, then the workers)."""

    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)


def _wait_for(what: str, ready: object, deadline: float) -> None:
    while not callable(ready) or not ready():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not start within {START_SECONDS} s")
        time.sleep(0.1)


@contextlib.contextmanager
def dask_cluster(folder: Path, workers: int = 2) -> Iterator[Cluster]:
    """A scheduler and ``workers`` single-thread workers (no nanny: a killed worker stays
    dead), all on loopback; every process is stopped on exit."""
    scheduler_file = folder / "scheduler.json"
    logs = (folder / "dask.log").open("ab")
    scheduler = subprocess.Popen(
        [
            str(BIN / "dask"),
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(scheduler_file),
        ],
        stdout=logs,
        stderr=logs,
    )
    cluster: Cluster | None = None
    try:
        deadline = time.monotonic() + START_SECONDS
        _wait_for("the scheduler", scheduler_file.exists, deadline)
        address = json.loads(scheduler_file.read_text(encoding="utf-8"))["address"]
        cluster = Cluster(address, scheduler)
        for _ in range(workers):
            cluster.workers.append(
                subprocess.Popen(
                    [
                        str(BIN / "dask"),
                        "worker",
                        address,
                        "--host",
                        "127.0.0.1",
                        "--nthreads",
                        "1",
                        "--no-nanny",
                        "--no-dashboard",
                    ],
                    stdout=logs,
                    stderr=logs,
                )
            )
        _wait_for_workers(address, workers)
        yield cluster
    finally:
        for process in [*(cluster.workers if cluster else []), scheduler]:
            process.terminate()
        for process in [*(cluster.workers if cluster else []), scheduler]:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        logs.close()


def _wait_for_workers(address: str, count: int) -> None:
    from distributed import Client

    with Client(address, timeout=10) as client:
        client.wait_for_workers(count, timeout=START_SECONDS)
