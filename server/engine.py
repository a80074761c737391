"""The incremental analysis engine (no LSP, no asyncio: threads and plain callbacks).

Ground state: workspace paths and the content hashes of every job input
(a stat cache avoids re-hashing unchanged files). Derived state: per job the
last good processed document, its line index, and the current error.

What it decides:

* **Which jobs rerun.** File events are coalesced for ``debounce`` seconds
  (only ``quick`` seconds once every pending path reported a finished write:
  a close after writing, the destination of a rename, a deletion), then the
  workspace is rescanned (unless only known files changed content), the
  config reloaded if it changed, and a
  job reruns only if the hashes of its inputs differ from its last run (or
  its planned inputs changed). Unrelated jobs are not touched; intermediate
  stages are memoized by content hash in a shared ``Memo``.
* **Where work runs.** Runs go to a thread pool, never the caller's thread or
  event loop. One run per job at a time: a newer request while a run is in
  flight cancels it cooperatively (its result is discarded) and reruns.
* **Errors.** A failed run keeps the last good result, marked stale. The
  error is published only if the inputs are unchanged after ``settle``
  seconds, so truncated writes and temp-file-then-rename saves never produce
  an error that sticks; a later good run clears it.

* **Garbage collection.** Runs allocate many long-lived containers (parsed
  and processed documents, indexes); automatic collections during a run would
  rescan the whole heap. The cyclic collector is paused while runs are in
  flight; at the end of a pause what the runs allocated is frozen
  (``gc.freeze``), and a full collection (unfreeze, collect, freeze) runs once
  the engine has been quiet for ``housekeeping`` seconds, so automatic
  collections never walk the served results.

Listeners receive ``EngineEvent`` values from worker threads; they must hand
them over to their own loop (the LSP layer uses ``call_soon_threadsafe``).
Each run's phases are logged (logger ``perfline.server.timing``, INFO) as
monotonic timestamps, which ``benchmarks/daemon.py`` reads back.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import os
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings
from perfline.core.structure_memo import StructureMemo
from perfline.core.workspace_config import CONFIG_FILE_NAME, WorkspaceConfig, WorkspaceConfigError
from perfline.server import backends as _backends  # noqa: F401  (registers job types)
from perfline.server.index import IndexMemo, JobIndex, LineDiagnostic, LineEntry, build_index
from perfline.server.jobtypes import REGISTRY, Cancelled, JobContext, JobInput, JobType, Memo
from perfline.server.paths import PathResolver
from perfline.server.workspace import (
    PlannedJob,
    is_ignored,
    load_config,
    plan_jobs,
    python_files,
    scan_files,
)

log = logging.getLogger(__name__)
timing_log = logging.getLogger("perfline.server.timing")


@dataclass(frozen=True)
class RunTiming:
    """Monotonic timestamps (``time.monotonic``) of one run's phases; ``event`` is the
    first file event of the batch that triggered it (``None`` for other triggers)."""

    event: float | None
    flushed: float | None
    started: float
    read: float
    backend: float
    indexed: float

    def render(self) -> str:
        marks = (
            ("event", self.event),
            ("flush", self.flushed),
            ("start", self.started),
            ("read", self.read),
            ("backend", self.backend),
            ("index", self.indexed),
        )
        return " ".join(f"{name}={value:.6f}" for name, value in marks if value is not None)


@dataclass(frozen=True)
class GoodResult:
    """A job's last successful analysis."""

    document: Mapping[str, Any]
    index: JobIndex
    digests: tuple[str, ...]
    generation: int
    finished_at: float
    timing: RunTiming | None = None


@dataclass(frozen=True)
class JobError:
    """Why the latest run of a job failed; ``file``/``line`` locate it when known."""

    message: str
    file: str | None = None
    line: int | None = None


@dataclass
class _JobState:
    plan: PlannedJob
    good: GoodResult | None = None
    error: JobError | None = None
    last_digests: tuple[str, ...] | None = None
    running: bool = False
    rerun: bool = False
    force: bool = False
    cancel: threading.Event = field(default_factory=threading.Event)
    generation: int = 0
    runs: int = 0
    started_at: float | None = None
    vanished_at: float | None = None
    #: (first file event, flush) of the batch that scheduled the next run.
    trigger: tuple[float | None, float | None] = (None, None)
    #: What the job's last run derived from its entity graph (reused while it is unchanged).
    structure: StructureMemo = field(default_factory=StructureMemo)
    #: The graph part of the job's last line index (reused while the graph is unchanged).
    index_memo: IndexMemo = field(default_factory=IndexMemo)


@dataclass(frozen=True)
class JobInfo:
    """A snapshot of a job for queries."""

    name: str
    backend: str
    inputs: tuple[str, ...]
    state: str  # "pending" | "running" | "ok" | "error"
    stale: bool
    error: JobError | None
    generation: int
    runs: int
    config_line: int | None
    has_result: bool


@dataclass(frozen=True)
class EngineEvent:
    """``kind``: ``started`` / ``finished`` (a run), ``result`` (a job's served state
    changed), ``jobs`` (the job list changed), ``config`` (config error changed)."""

    kind: str
    job: str | None = None
    generation: int = 0
    stale: bool = False
    error: str | None = None


Listener = Callable[[EngineEvent], None]


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Engine:
    """One workspace's analysis state; thread-safe; shared by every client."""

    def __init__(
        self,
        root: Path,
        *,
        registry: Mapping[str, JobType] | None = None,
        debounce: float = 0.05,
        settle: float = 0.3,
        workers: int = 2,
        metric: str | None = None,
        quick: float = 0.005,
        housekeeping: float | None = 1.0,
    ) -> None:
        self.root = root.resolve()
        self.registry = registry if registry is not None else REGISTRY
        self.debounce = debounce
        self.quick = min(quick, debounce)
        self.settle = settle
        self.housekeeping = housekeeping
        self.metric_override = metric
        self.memo = Memo()
        self._lock = threading.RLock()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="perfline-job")
        self._listeners: list[Listener] = []
        self._jobs: dict[str, _JobState] = {}
        self._files: list[str] = []
        self._file_set: frozenset[str] = frozenset()
        self._stat_cache: dict[str, tuple[int, int, str]] = {}
        self._config = WorkspaceConfig()
        self._config_error: WorkspaceConfigError | None = None
        self._config_stamp: tuple[int, int] | None = None
        self._resolver = PathResolver(self.root, (), (".",), ())
        self._pending: set[str] = set()
        self._writing: set[str] = set()
        self._pending_since: float | None = None
        self._timer: threading.Timer | None = None
        self._housekeeper: threading.Timer | None = None
        self._idle = threading.Condition(self._lock)
        self._flushing = False
        self._confirming = 0
        self._finishing = 0
        self._closed = False
        self._generation = 0
        self._running_count = 0
        self._housekeeping_due: float | None = None
        #: Bumped whenever what is served changes (results, errors, indexes, jobs).
        self.version = 0
        #: How many backend runs each job has started (observable incrementality).
        self.backend_runs: dict[str, int] = {}

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> None:
        """Load the config, discover jobs and analyse them all (asynchronously)."""
        self._refresh(force_config=True)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self._housekeeper is not None:
                self._housekeeper.cancel()
                self._housekeeper = None
            if self._running_count:
                self._running_count = 0
                _resume_collection()
            for state in self._jobs.values():
                state.cancel.set()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def _emit(self, event: EngineEvent) -> None:
        with self._lock:
            self.version += 1
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # a listener must never break the engine
                log.exception("engine listener failed")

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until no run, flush or pending error check remains (tests, CLI)."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while not self._is_idle():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._idle.wait(min(remaining, 0.05))
        return True

    def _is_idle(self) -> bool:
        return (
            not self._pending
            and self._timer is None
            and not self._flushing
            and not self._confirming
            and not self._finishing
            and not any(s.running or s.rerun for s in self._jobs.values())
            and not any(s.last_digests is None for s in self._jobs.values())
        )

    # ------------------------------------------------------------------ events

    def notify_changed(self, paths: Iterable[str | Path], *, finished: bool = False) -> None:
        """File events (created, changed, deleted, moved) for absolute or relative paths.

        ``finished``: the events say the writes are over (closed after writing,
        renamed into place, deleted); once no pending path is still being written
        the batch is flushed after ``quick`` instead of ``debounce`` seconds.
        """
        relevant: set[str] = set()
        for path in paths:
            rel = self.relative(path)
            if rel is None or is_ignored(rel, self._config.ignore):
                continue
            relevant.add(rel)
        if not relevant:
            return
        with self._lock:
            if self._closed:
                return
            if not self._pending:
                self._pending_since = time.monotonic()
            self._pending |= relevant
            if finished:
                self._writing -= relevant
            else:
                self._writing |= relevant
            self._arm_timer(self.debounce if self._writing else self.quick)

    def _arm_timer(self, delay: float | None = None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = threading.Timer(self.debounce if delay is None else delay, self._flush)
        self._timer.daemon = True
        self._timer.start()

    def relative(self, path: str | Path) -> str | None:
        candidate = Path(path)
        if not candidate.is_absolute():
            return candidate.as_posix()
        try:
            return candidate.resolve().relative_to(self.root).as_posix()
        except ValueError:
            try:
                return candidate.relative_to(self.root).as_posix()
            except ValueError:
                return None

    def _flush(self) -> None:
        with self._lock:
            self._timer = None
            changed = self._pending
            self._pending = set()
            self._writing = set()
            trigger = (self._pending_since, time.monotonic())
            self._pending_since = None
            self._flushing = True
        try:
            self._refresh(changed=changed, trigger=trigger)
        finally:
            with self._idle:
                self._flushing = False
                self._idle.notify_all()

    def reanalyze(self, job: str | None = None) -> list[str]:
        """Rerun one job (or all) regardless of hashes; returns the scheduled names."""
        with self._lock:
            names = [job] if job is not None else sorted(self._jobs)
            for name in names:
                if name not in self._jobs:
                    raise KeyError(name)
            for name in names:
                self._jobs[name].force = True
        for name in names:
            self._schedule(name)
        return names

    # ------------------------------------------------------------ the refresh

    def _refresh(
        self,
        changed: set[str] | None = None,
        force_config: bool = False,
        trigger: tuple[float | None, float | None] = (None, None),
    ) -> None:
        config_changed = force_config or (changed is not None and CONFIG_FILE_NAME in changed)
        if config_changed:
            self._reload_config()
        if not config_changed and self._only_known_files(changed):
            files = self._files  # contents changed, not the file list: no walk
        else:
            files = scan_files(self.root, self._config.ignore)
        with self._lock:
            files_changed = files != self._files
            if files_changed:
                self._files = files
                self._file_set = frozenset(files)
            if files_changed or config_changed:
                self._resolver = PathResolver(
                    self.root,
                    self._config.path_maps,
                    self._config.source_roots,
                    python_files(files),
                )
            planned = {p.name: p for p in plan_jobs(self._config, files, self.registry)}
            before = {n: s.plan for n, s in self._jobs.items()}
            now = time.monotonic()
            recheck = False
            for name in list(self._jobs):
                if name in planned:
                    self._jobs[name].vanished_at = None
                    continue
                state = self._jobs[name]
                # A job whose inputs vanished (a delete before a restore, a rename
                # in progress) is kept, serving its result, for ``settle`` seconds.
                if state.vanished_at is None and state.good is not None:
                    state.vanished_at = now
                    recheck = True
                elif state.vanished_at is None or now - state.vanished_at >= self.settle:
                    state.cancel.set()
                    del self._jobs[name]
                else:
                    recheck = True
            if recheck:
                self._recheck_later()
            for name, plan in planned.items():
                existing = self._jobs.get(name)
                if existing is None:
                    self._jobs[name] = _JobState(plan=plan)
                elif existing.plan != plan:
                    existing.plan = plan
                    existing.last_digests = None  # new inputs or options: rerun
            names = sorted(self._jobs)
            jobs_changed = {n: s.plan for n, s in self._jobs.items()} != before
            if jobs_changed:
                self.version += 1
            if (files_changed or config_changed) and not jobs_changed:
                self._reindex_all()
        if jobs_changed:
            self._emit(EngineEvent("jobs"))
        for name in names:
            with self._lock:
                current = self._jobs.get(name)
                if current is None or current.vanished_at is not None:
                    continue
                digests = self._current_digests(current.plan)
                needs = current.last_digests is None or digests != current.last_digests
                if needs:
                    current.trigger = trigger
            if needs:
                self._schedule(name)

    def _only_known_files(self, changed: set[str] | None) -> bool:
        """True if every changed path is a file of the last scan that still is one."""
        if not changed:
            return False
        with self._lock:
            known = self._file_set
        return all(rel in known and (self.root / rel).is_file() for rel in changed)

    def _recheck_later(self) -> None:
        self._confirming += 1

        def recheck() -> None:
            with self._idle:
                self._confirming -= 1
                if not self._closed:
                    self._pending.add(".")
                    self._arm_timer()
                self._idle.notify_all()

        timer = threading.Timer(self.settle + 0.01, recheck)
        timer.daemon = True
        timer.start()

    def _reload_config(self) -> None:
        loaded = load_config(self.root, self._config)
        with self._lock:
            before = self._config_error
            self._config = loaded.config
            self._config_error = loaded.error
        if before is not None or loaded.error is not None:
            self._emit(EngineEvent("config", error=str(loaded.error) if loaded.error else None))

    def _reindex_all(self) -> None:
        self.version += 1
        for state in self._jobs.values():
            if state.good is not None:
                index = build_index(
                    state.plan.name, state.good.document, self._resolver.resolve, self._metric()
                )
                state.good = GoodResult(
                    state.good.document,
                    index,
                    state.good.digests,
                    state.good.generation,
                    state.good.finished_at,
                    state.good.timing,
                )

    def _metric(self) -> str | None:
        return self.metric_override or self._config.display.metric

    def _current_digests(self, plan: PlannedJob) -> tuple[str, ...]:
        digests = []
        for rel in plan.inputs:
            path = self.root / rel
            try:
                info = path.stat()
            except OSError:
                digests.append("missing")
                continue
            stamp = (info.st_mtime_ns, info.st_size)
            cached = self._stat_cache.get(rel)
            if cached is not None and cached[:2] == stamp:
                digests.append(cached[2])
                continue
            try:
                digest = _digest(path.read_bytes())
            except OSError:
                digests.append("missing")
                continue
            self._stat_cache[rel] = (*stamp, digest)
            digests.append(digest)
        return tuple(digests)

    # -------------------------------------------------------------------- runs

    def _schedule(self, name: str) -> None:
        with self._lock:
            state = self._jobs.get(name)
            if state is None or self._closed:
                return
            if state.running:
                state.rerun = True
                state.cancel.set()
                return
            state.running = True
            state.cancel = threading.Event()
            self._generation += 1
            generation = self._generation
            state.started_at = time.monotonic()
            cancel = state.cancel
            plan = state.plan
            fresh = state.force
            trigger, state.trigger = state.trigger, (None, None)
            memos = (state.structure, state.index_memo)
            if self._running_count == 0:
                _pause_collection()
            self._running_count += 1
        self._emit(EngineEvent("started", name, generation))
        self._pool.submit(self._run, name, plan, generation, cancel, fresh, trigger, memos)

    def _read_inputs(self, plan: PlannedJob) -> tuple[JobInput, ...]:
        items = []
        for rel in plan.inputs:
            path = self.root / rel
            try:
                data = path.read_bytes()
                mtime = path.stat().st_mtime
            except FileNotFoundError:
                raise InputError(rel, "the input file does not exist") from None
            except OSError as error:
                raise InputError(rel, f"cannot read the input file: {error}") from None
            items.append(JobInput(rel, data, _digest(data), str(path), mtime))
        return tuple(items)

    def _run(
        self,
        name: str,
        plan: PlannedJob,
        generation: int,
        cancel: threading.Event,
        fresh: bool = False,
        trigger: tuple[float | None, float | None] = (None, None),
        memos: tuple[StructureMemo, IndexMemo] | None = None,
    ) -> None:
        digests: tuple[str, ...] = ()
        outcome: GoodResult | JobError | None = None
        started = time.monotonic()
        structure, index_memo = memos if memos is not None else (None, None)
        try:
            if plan.missing and not plan.inputs:
                raise InputError(None, f"no file matches the inputs {', '.join(plan.missing)}")
            job_type = self.registry.get(plan.backend)
            if job_type is None:
                raise InputError(None, f"unknown backend {plan.backend!r}")
            inputs = self._read_inputs(plan)
            read = time.monotonic()
            digests = tuple(i.digest for i in inputs)
            with self._lock:
                self.backend_runs[name] = self.backend_runs.get(name, 0) + 1
                settings = PipelineSettings(
                    collapse_rules=self._config.collapse_rules,
                    use_backend_defaults=self._config.use_backend_defaults,
                )
                resolver = self._resolver
            context = JobContext(
                inputs, plan.options, settings, self.memo, cancel, fresh, structure
            )
            document = job_type.run(context)
            context.check_cancelled()
            backend = time.monotonic()
            index = build_index(name, document, resolver.resolve, self._metric(), index_memo)
            timing = RunTiming(*trigger, started, read, backend, time.monotonic())
            outcome = GoodResult(document, index, digests, generation, time.time(), timing)
        except Cancelled:
            outcome = None
        except InputError as error:
            outcome = _job_error(error, plan)
            if not digests:
                digests = self._current_digests(plan)
        except Exception as error:  # a backend bug must not take the daemon down
            log.error("job %s failed:\n%s", name, traceback.format_exc())
            outcome = JobError(f"internal error in backend {plan.backend!r}: {error!r}")
        self._finish(name, generation, digests, outcome)

    def _finish(
        self,
        name: str,
        generation: int,
        digests: tuple[str, ...],
        outcome: GoodResult | JobError | None,
    ) -> None:
        event: EngineEvent | None = None
        rerun = False
        confirm: JobError | None = None
        with self._idle:
            if self._running_count > 0:  # (0 after close)
                self._running_count -= 1
                if self._running_count == 0:
                    _resume_collection()
                    self._arm_housekeeping()
            state = self._jobs.get(name)
            if state is None:
                self._idle.notify_all()
                return
            state.running = False
            state.runs += 1
            superseded = state.rerun or outcome is None
            if superseded:
                state.rerun = False
                rerun = True
            elif isinstance(outcome, GoodResult):
                state.good = outcome
                state.error = None
                state.last_digests = digests
                state.force = False
                state.generation = generation
                self.version += 1
                event = EngineEvent("result", name, generation, stale=False)
            else:
                state.last_digests = digests
                state.force = False
                confirm = outcome
            self._finishing += 1  # idle only once the events below are out
        try:
            self._emit(EngineEvent("finished", name, generation))
            if rerun:
                self._schedule(name)
            if event is not None:
                assert isinstance(outcome, GoodResult)
                if outcome.timing is not None and timing_log.isEnabledFor(logging.INFO):
                    timing_log.info(
                        "job=%s generation=%d %s", name, generation, outcome.timing.render()
                    )
                self._emit(event)
            if confirm is not None:
                self._confirm_later(name, generation, digests, confirm)
        finally:
            with self._idle:
                self._finishing -= 1
                self._idle.notify_all()

    def _arm_housekeeping(self) -> None:
        """Collect garbage once the engine has been quiet for ``housekeeping`` seconds after
        a run; steady changes postpone it by at most ten such periods."""
        if self.housekeeping is None or self._closed:
            return
        now = time.monotonic()
        if self._housekeeping_due is None:
            self._housekeeping_due = now + 10 * self.housekeeping
        if self._housekeeper is not None:
            self._housekeeper.cancel()
        delay = max(0.0, min(self.housekeeping, self._housekeeping_due - now))
        timer = threading.Timer(delay, self._collect_garbage)
        timer.daemon = True
        self._housekeeper = timer
        timer.start()

    def _collect_garbage(self) -> None:
        with self._lock:
            if self._housekeeper is None or self._closed:
                return
            self._housekeeper = None
            busy = self._running_count > 0 or bool(self._pending)
            due = self._housekeeping_due is not None and time.monotonic() >= self._housekeeping_due
            if busy and not due:
                self._arm_housekeeping()  # busy again: try later
                return
            self._housekeeping_due = None
        gc.unfreeze()
        gc.collect()
        gc.freeze()

    def _confirm_later(
        self, name: str, generation: int, digests: tuple[str, ...], error: JobError
    ) -> None:
        """Publish ``error`` only if the inputs are still what failed after ``settle``."""

        def check() -> None:
            try:
                settled()
            finally:
                with self._idle:
                    self._confirming -= 1
                    self._idle.notify_all()

        def settled() -> None:
            with self._lock:
                state = self._jobs.get(name)
                if state is None or state.running or state.rerun:
                    return
                current = self._current_digests(state.plan)
                if current != digests:
                    still = False
                else:
                    still = True
                    self.version += 1
                    state.error = error
                    state.generation = generation
                    stale = state.good is not None
            if still:
                self._emit(
                    EngineEvent("result", name, generation, stale=stale, error=error.message)
                )
            else:
                self._schedule(name)

        with self._lock:
            self._confirming += 1
        timer = threading.Timer(self.settle, check)
        timer.daemon = True
        timer.start()

    # ----------------------------------------------------------------- queries

    @property
    def config(self) -> WorkspaceConfig:
        return self._config

    @property
    def config_error(self) -> WorkspaceConfigError | None:
        return self._config_error

    def job_names(self) -> list[str]:
        with self._lock:
            return sorted(self._jobs)

    def jobs(self) -> list[JobInfo]:
        with self._lock:
            return [self._info(state) for _, state in sorted(self._jobs.items())]

    def job(self, name: str) -> JobInfo | None:
        with self._lock:
            state = self._jobs.get(name)
            return self._info(state) if state is not None else None

    def _info(self, state: _JobState) -> JobInfo:
        if state.running:
            status = "running"
        elif state.error is not None:
            status = "error"
        elif state.good is not None:
            status = "ok"
        else:
            status = "pending"
        return JobInfo(
            name=state.plan.name,
            backend=state.plan.backend,
            inputs=state.plan.inputs,
            state=status,
            stale=state.good is not None and (state.error is not None or state.running),
            error=state.error,
            generation=state.generation,
            runs=state.runs,
            config_line=state.plan.config_line,
            has_result=state.good is not None,
        )

    def result(self, name: str) -> GoodResult | None:
        with self._lock:
            state = self._jobs.get(name)
            return state.good if state is not None else None

    def indexes(self) -> list[JobIndex]:
        with self._lock:
            return [s.good.index for _, s in sorted(self._jobs.items()) if s.good is not None]

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
        with self._lock:
            found: dict[str, list[str]] = {}
            for name, state in sorted(self._jobs.items()):
                for rel in state.plan.inputs:
                    found.setdefault(rel, []).append(name)
            return found

    def files(self) -> Sequence[str]:
        with self._lock:
            return list(self._files)

    def running_since(self, name: str) -> float | None:
        with self._lock:
            state = self._jobs.get(name)
            return state.started_at if state is not None and state.running else None


def _job_error(error: InputError, plan: PlannedJob) -> JobError:
    line: int | None = None
    for problem in error.problems:
        text = problem.location
        if text.startswith("line "):
            try:
                line = int(text[5:].split(",")[0].split(" ")[0])
            except ValueError:
                line = None
            break
    source = error.source if error.source in plan.inputs else None
    return JobError(error.render(), source, line)


_collection_lock = threading.Lock()
_collection_pauses = 0
_collection_was_enabled = False


def _pause_collection() -> None:
    """Pause the cyclic collector (process-wide; nested pauses of several engines count)."""
    global _collection_pauses, _collection_was_enabled
    with _collection_lock:
        if _collection_pauses == 0:
            _collection_was_enabled = gc.isenabled()
            gc.disable()
        _collection_pauses += 1


def _resume_collection() -> None:
    """End a pause. What the runs allocated is frozen first: otherwise the next allocation
    would start a young-generation collection over all of it (tens of milliseconds on a
    large result, on whichever thread allocates next - typically the one sending the
    refresh). Housekeeping unfreezes and collects everything once the engine is quiet."""
    global _collection_pauses
    with _collection_lock:
        _collection_pauses -= 1
        if _collection_pauses == 0 and _collection_was_enabled:
            gc.freeze()
            gc.enable()


def default_workers() -> int:
    return max(1, min(4, (os.cpu_count() or 2)))
