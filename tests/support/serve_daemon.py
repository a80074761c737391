"""A real ``perfline serve`` for tests: started as a child process on a workspace, with the
runtime folder its discovery entry goes to (``XDG_RUNTIME_DIR``), ready once every job of the
workspace has a result; ``running_daemon`` stops it when the block ends."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from perfline.clients.rpc import Client, Endpoint
from tests.support.server_helpers import wait_for


class Daemon:
    def __init__(self, process: subprocess.Popen[str], endpoint: Endpoint, root: Path) -> None:
        self.process = process
        self.endpoint = endpoint
        self.root = root


def start_daemon(root: Path, runtime: Path, *args: str) -> Daemon:
    """``perfline serve ARGS -w ROOT``, once its jobs are all analysed (the caller stops it)."""
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    process = subprocess.Popen(
        [sys.executable, "-m", "perfline", "serve", *args, "-w", str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    tcp = re.search(r"on tcp ([\d.]+):(\d+)", line)
    sock = re.search(r"on socket (\S+)", line)
    assert tcp or sock, line
    endpoint = (
        Endpoint(tcp=(tcp.group(1), int(tcp.group(2)))) if tcp else Endpoint(socket=sock.group(1))
    )  # type: ignore[union-attr]
    with Client.connect(endpoint) as client:
        assert wait_for(
            lambda: all(j["state"] == "ok" for j in client.request("perfline/jobs")["jobs"]),
            timeout=60,
        )
    return Daemon(process, endpoint, root)


@contextmanager
def running_daemon(root: Path, runtime: Path, *args: str) -> Iterator[Daemon]:
    """``start_daemon``, terminated and waited for when the block ends."""
    started = start_daemon(root, runtime, *args)
    try:
        yield started
    finally:
        started.process.terminate()
        started.process.wait(10)
