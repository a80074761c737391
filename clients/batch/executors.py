"""The executor seam of ``perfline batch run``: where the chunks of a batch are run.

``map_chunks(tasks)`` takes an iterator of ``ChunkTask`` and yields a ``ChunkSummary``
per chunk as it finishes, whichever way it runs:

* ``InProcess``: in this process, one chunk after the other (``--in-process``: small
  batches, debugging, no Dask at all);
* ``DaskExecutor``: on a ``distributed.Client``, either of a ``LocalCluster`` it starts
  (the default: one single-thread worker process per core, scheduler and workers on
  127.0.0.1 only, no dashboard) or of a running scheduler the user named with
  ``--scheduler`` (never an address read from a file).

The client holds no more than ``window`` chunks at a time: it submits that many, then one
more as each finishes (``distributed.as_completed``), and lets go of each result once
yielded, so its memory does not grow with the number of runs. A chunk whose task fails
on the cluster (its worker died more often than Dask retries) comes back as a summary
whose runs all failed with that reason; the batch goes on. Cost: per chunk, one task
round trip to the scheduler.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any, Protocol

from perfline.clients.batch.worker import ChunkSummary, ChunkTask, run_chunk
from perfline.core.errors import InputError, Problem

#: Seconds to wait for a scheduler given with ``--scheduler`` before giving up.
CONNECT_TIMEOUT = 5
#: Chunks in flight per worker.
CHUNKS_PER_WORKER = 4
#: Dask settings of the local cluster: no statistical profiler in the workers (it samples
#: the running task's stack every 10 ms, for a dashboard nobody sees), an event-loop tick
#: (which only measures how long the loop was blocked, for a warning) once a second instead
#: of every 20 ms in each of its processes, and slower system and memory monitors; the
#: cluster's own CPU time, idle, is then about a sixth of what Dask's defaults take.
LOCAL_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}


class Executor(Protocol):
    """Runs chunks somewhere and yields their summaries as they finish."""

    workers: int
    description: str

    def map_chunks(self, tasks: Iterator[ChunkTask]) -> Iterator[ChunkSummary]: ...

    def close(self) -> None: ...


class InProcess:
    """Every chunk in this process, in order."""

    workers = 1
    description = "in-process"

    def map_chunks(self, tasks: Iterator[ChunkTask]) -> Iterator[ChunkSummary]:
        for task in tasks:
            yield run_chunk(task)

    def close(self) -> None:
        return None


def cpu_count() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class DaskExecutor:
    """Chunks as tasks of a Dask cluster, at most ``window`` in flight."""

    def __init__(self, client: Any, cluster: Any | None, description: str) -> None:
        self.client = client
        self.cluster = cluster
        self.description = description
        self.workers = max(1, len(client.scheduler_info().get("workers", {})))

    @classmethod
    def local(cls, workers: int) -> DaskExecutor:
        """A ``LocalCluster`` of ``workers`` single-thread processes on loopback (its
        workers' statistical profiler off and its monitors less frequent: ``LOCAL_CONFIG``)."""
        import dask
        from distributed import Client, LocalCluster

        with dask.config.set(LOCAL_CONFIG):
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
        try:
            client = Client(cluster)
        except BaseException:
            cluster.close()
            raise
        return cls(client, cluster, f"local Dask cluster, {workers} worker processes")

    @classmethod
    def connect(cls, address: str, security: Any | None = None) -> DaskExecutor:
        """A client of the scheduler at ``address``; ``InputError`` when it cannot be
        reached within ``CONNECT_TIMEOUT`` seconds."""
        from distributed import Client

        if not address.startswith(("tcp://", "tls://")):
            raise InputError(
                "perfline batch run",
                Problem(
                    "--scheduler", f"expected tcp://HOST:PORT or tls://HOST:PORT, got {address!r}"
                ),
            )
        logging.getLogger("distributed").setLevel(logging.CRITICAL)
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT, security=security)
        except Exception as error:  # refused, timed out, TLS refused or not configured
            hint = ""
            if address.startswith("tls://") and security is None:
                hint = "; a tls:// scheduler needs --tls-ca-file, --tls-cert and --tls-key"
            raise InputError(
                "perfline batch run",
                Problem(
                    "--scheduler",
                    f"cannot reach the Dask scheduler at {address} within "
                    f"{CONNECT_TIMEOUT} s ({type(error).__name__}: {error}){hint}",
                ),
            ) from None
        return cls(client, None, f"Dask scheduler {address}")

    def map_chunks(self, tasks: Iterator[ChunkTask]) -> Iterator[ChunkSummary]:
        from distributed import as_completed

        window = self.workers * CHUNKS_PER_WORKER
        pending: dict[str, ChunkTask] = {}
        completed = as_completed()
        for task in tasks:
            completed.add(self._submit(task, pending))
            if len(pending) >= window:
                break
        for future in completed:
            task = pending.pop(future.key)
            yield self._summary(future, task)
            future.release()
            following = next(tasks, None)
            if following is not None:
                completed.add(self._submit(following, pending))

    def _submit(self, task: ChunkTask, pending: dict[str, ChunkTask]) -> Any:
        key = f"perfline-batch-{task.batch_id}-{task.chunk}"
        pending[key] = task
        return self.client.submit(run_chunk, task, key=key, pure=False, retries=0)

    @staticmethod
    def _summary(future: Any, task: ChunkTask) -> ChunkSummary:
        try:
            summary = future.result()
        except Exception as error:  # the task failed on the cluster: its runs fail
            reason = f"the chunk's task failed on the cluster: {type(error).__name__}: {error}"
            return ChunkSummary(
                chunk=task.chunk,
                stored=0,
                skipped=0,
                failed=tuple((spec, reason) for spec in task.specs),
                rows=0,
                seconds=0.0,
            )
        assert isinstance(summary, ChunkSummary)
        return summary

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
