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

from tests.support.batch_runs import BIN

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


def tls_files(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key (``openssl``): the CA, the
    scheduler's, the workers' and the client's certificate at once."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


def _host(tls: tuple[Path, Path] | None) -> str:
    return "127.0.0.1" if tls is None else "tls://127.0.0.1"


def _tls_options(tls: tuple[Path, Path] | None) -> list[str]:
    if tls is None:
        return []
    cert, key = tls
    return ["--tls-ca-file", str(cert), "--tls-cert", str(cert), "--tls-key", str(key)]


@contextlib.contextmanager
def dask_cluster(
    folder: Path, workers: int = 2, tls: tuple[Path, Path] | None = None
) -> Iterator[Cluster]:
    """A scheduler and ``workers`` single-thread workers (no nanny: a killed worker stays
    dead), all on loopback (``tls``: certificate and key, over TLS only); every process is
    stopped on exit."""
    scheduler_file = folder / "scheduler.json"
    logs = (folder / "dask.log").open("ab")
    scheduler = subprocess.Popen(
        [
            str(BIN / "dask"),
            "scheduler",
            "--host",
            _host(tls),
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(scheduler_file),
            *_tls_options(tls),
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
                        _host(tls),
                        "--nthreads",
                        "1",
                        "--no-nanny",
                        "--no-dashboard",
                        *_tls_options(tls),
                    ],
                    stdout=logs,
                    stderr=logs,
                )
            )
        _wait_for_workers(address, workers, tls)
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


def _wait_for_workers(address: str, count: int, tls: tuple[Path, Path] | None) -> None:
    from distributed import Client
    from distributed.security import Security

    security = None
    if tls is not None:
        cert, key = tls
        security = Security(
            tls_ca_file=str(cert),
            tls_client_cert=str(cert),
            tls_client_key=str(key),
            require_encryption=True,
        )
    with Client(address, timeout=10, security=security) as client:
        client.wait_for_workers(count, timeout=START_SECONDS)
