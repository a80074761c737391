"""``Engine``: one workspace's analysis, as the LSP and API layers see it.

It builds the scheduler's parts (ground state, result store, memo policy, outbox, the
comparison service, loop) and offers the public surface: lifecycle (``start``,
``close``), inputs to the loop (``notify_changed``, ``reanalyze``: they post events and
return at once), queries, which read the result store only and never wait for a run or
a file, and the baseline comparisons (``comparisons``: the engine's own service, driven
by the loop's events). No LSP, no asyncio. Cost: O(1) per posted event; queries as the
result store.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from perfline.core.workspace_config import WorkspaceConfig, WorkspaceConfigError
from perfline.server.baselines.compare_service import CompareService
from perfline.server.jobs.context import JobType
from perfline.server.jobs.registry import default_registry
from perfline.server.jobs.stage_memo import StageMemo
from perfline.server.line_entries import JobIndex, LineDiagnostic, LineEntry
from perfline.server.scheduler.boundary import WorkspaceBoundary
from perfline.server.scheduler.bounded_reads import InputLimits
from perfline.server.scheduler.events import (
    ConfigChanged,
    FileChanged,
    InboxEvent,
    Listener,
    Reanalyze,
    Shutdown,
)
from perfline.server.scheduler.ground import GroundState
from perfline.server.scheduler.idle_gate import IdleGate
from perfline.server.scheduler.loop import Parts, Scheduler, Timing
from perfline.server.scheduler.memo_policy import MemoPolicy
from perfline.server.scheduler.outbox import Outbox
from perfline.server.scheduler.results import GoodResult, JobInfo, ResultStore
from perfline.server.scheduler.run_counts import BackendRuns
from perfline.server.workspace import is_ignored

log = logging.getLogger(__name__)

#: How long ``start`` waits for the first plan of the jobs (seconds).
START_WAIT = 60.0
#: The flush delay once every pending path reported a finished write (seconds): events
#: the watcher delivers together (several files of one tool, a save's rename and
#: close) still share one flush, and a finished save is not kept waiting (the delay is
#: a small part of a value-only refresh).
QUICK_FLUSH = 0.002


class Engine:
    """One workspace's analysis state; thread-safe; shared by every client.

    ``limits``: size limit per input kind (user settings); ``allowed_roots``: folders
    outside the workspace its config may point into (user settings only).
    """

    def __init__(
        self,
        root: Path,
        *,
        registry: Mapping[str, JobType] | None = None,
        debounce: float = 0.05,
        settle: float = 0.3,
        workers: int = 2,
        metric: str | None = None,
        quick: float = QUICK_FLUSH,
        housekeeping: float | None = 1.0,
        limits: InputLimits | None = None,
        allowed_roots: Sequence[Path | str] = (),
    ) -> None:
        self.root = root.resolve()
        self.registry = registry if registry is not None else default_registry()
        self.boundary = WorkspaceBoundary(self.root, allowed_roots)
        self.memos = MemoPolicy()
        self._results = ResultStore()
        self._ground = GroundState(
            self.root,
            registry=self.registry,
            limits=limits or InputLimits(),
            boundary=self.boundary,
        )
        self._gate = IdleGate()
        self._outbox = Outbox(self._gate)
        self._backend_runs = BackendRuns()
        #: The baseline comparisons, driven by the loop (``scheduler.events.CompareInput``).
        self.comparisons = CompareService(self, self._post)
        parts = Parts(
            self._ground,
            self._results,
            self.memos,
            self._outbox,
            self._gate,
            self.registry,
            self._backend_runs,
            metric,
            self.comparisons,
        )
        self._metric = metric
        timing = Timing(debounce, min(quick, debounce), settle, housekeeping)
        self._scheduler = Scheduler(parts, timing, workers)
        self._closed = False
        self._started = False

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> None:
        """Load the config, discover jobs and analyse them all (asynchronously: returns
        once the jobs are planned)."""
        if self._started:
            return
        self._started = True
        self._outbox.start()
        self._scheduler.start()
        ready = threading.Event()
        self._scheduler.post(ConfigChanged(ready))
        ready.wait(START_WAIT)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.comparisons.close()
        if self._started:
            self._scheduler.post(Shutdown())
            self._scheduler.join(5.0)
            self._outbox.stop()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with every ``EngineEvent`` (from the outbox thread)."""
        return self._outbox.subscribe(listener)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until no event, run, flush or pending error check remains (tests, CLI)."""
        return self._gate.wait(timeout)

    # ---------------------------------------------------------------- events in

    def notify_changed(self, paths: Iterable[str | Path], *, finished: bool = False) -> None:
        """File events (created, changed, deleted, moved) for absolute or relative paths.

        ``finished``: the events say the writes are over (closed after writing,
        renamed into place, deleted); once no pending path is still being written
        the batch is flushed after ``quick`` instead of ``debounce`` seconds.
        """
        ignore = self.config.ignore
        relevant: set[str] = set()
        for path in paths:
            rel = self.relative(path)
            if rel is not None and not is_ignored(rel, ignore):
                relevant.add(rel)
        if relevant and not self._closed:
            self._scheduler.post(FileChanged(frozenset(relevant), finished, time.monotonic()))

    def _post(self, event: InboxEvent) -> None:
        """Hand ``event`` to the loop (the comparison service's commands and wants)."""
        if not self._closed:
            self._scheduler.post(event)

    def reanalyze(self, job: str | None = None) -> list[str]:
        """Rerun one job (or all) regardless of hashes; returns the scheduled names."""
        names = [job] if job is not None else self._results.names()
        known = set(self._results.names())
        for name in names:
            if name not in known:
                raise KeyError(name)
        if not self._closed:
            self._scheduler.post(Reanalyze(tuple(names)))
        return names

    def relative(self, path: str | Path) -> str | None:
        """The workspace-relative POSIX path of ``path``, ``None`` outside the workspace;
        never raises (symlink loops, odd names)."""
        try:
            text = os.fspath(path)
            if not os.path.isabs(text):
                return Path(text).as_posix()
            return _under(os.path.normpath(text), str(self.root)) or _under(
                os.path.realpath(text), str(self.root)
            )
        except (OSError, ValueError, TypeError, RuntimeError):
            return None

    # ------------------------------------------------------------------ queries

    @property
    def config(self) -> WorkspaceConfig:
        return self._ground.config

    @property
    def config_error(self) -> WorkspaceConfigError | None:
        return self._ground.config_error

    @property
    def limits(self) -> InputLimits:
        """The size limits of what the engine reads (user settings)."""
        return self._ground.limits

    @property
    def version(self) -> int:
        """Bumped whenever what is served changes (results, errors, indexes, jobs)."""
        return self._results.version

    @property
    def backend_runs(self) -> dict[str, int]:
        """How many backend runs each job has started (observable incrementality)."""
        return self._backend_runs.snapshot()

    @property
    def memo(self) -> StageMemo:
        """The stage-output memo shared by every job."""
        return self.memos.stage

    def job_names(self) -> list[str]:
        return self._results.names()

    def jobs(self) -> list[JobInfo]:
        return self._results.infos()

    def job(self, name: str) -> JobInfo | None:
        return self._results.info(name)

    def result(self, name: str) -> GoodResult | None:
        return self._results.good(name)

    def indexes(self) -> list[JobIndex]:
        return [good.index for _, good in self._results.goods()]

    def line_entries(self, path: Path | str) -> dict[int, list[LineEntry]]:
        """Every job's code-line entries for one file (absolute path), by line."""
        key = str(Path(path).resolve()) if Path(path).is_absolute() else str(path)
        merged: dict[int, list[LineEntry]] = {}
        for index in self.indexes():
            for number, entries in index.lines.get(key, {}).items():
                merged.setdefault(number, []).extend(entries)
        return merged

    def line_diagnostics(self, path: Path | str) -> list[LineDiagnostic]:
        key = str(Path(path).resolve())
        found: list[LineDiagnostic] = []
        for index in self.indexes():
            found.extend(index.diagnostics.get(key, ()))
        return found

    def annotated_files(self) -> list[str]:
        files: set[str] = set()
        for index in self.indexes():
            files.update(index.lines)
            files.update(index.diagnostics)
        return sorted(files)

    def input_files(self) -> dict[str, list[str]]:
        """Workspace-relative input path -> the jobs that read it."""
        found: dict[str, list[str]] = {}
        for plan in self._results.plans():
            for rel in plan.inputs:
                found.setdefault(rel, []).append(plan.name)
        return found

    def files(self) -> Sequence[str]:
        return list(self._ground.files)

    def running_since(self, name: str) -> float | None:
        return self._results.running_since(name)

    def resolve_source(self, recorded: str) -> Path | None:
        """The workspace file a source path recorded in a result names (path maps, source
        roots, unique suffix: the resolver the line index used), or ``None``; never a file
        outside the workspace or an allowed root."""
        return self._ground.resolver.resolve(recorded)

    @property
    def display_metric(self) -> str | None:
        """The metric figures are shown by: ``--metric`` of the daemon, else ``[display]
        metric`` of ``perfline.toml``, else ``None`` (the dominant one)."""
        return self._metric or self._ground.config.display.metric

    def resolve_client_path(self, text: str) -> Path:
        """A client-given path resolved inside the workspace (or an allowed root), or
        ``boundary.PathRefused`` (length-limited, linear time)."""
        return self.boundary.resolve_client_path(text)


def _under(path: str, root: str) -> str | None:
    if path == root:
        return "."
    prefix = root.rstrip("/") + "/"
    return path[len(prefix) :] if path.startswith(prefix) else None
