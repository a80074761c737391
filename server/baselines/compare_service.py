"""The comparisons of a workspace's jobs with their baselines, off the request path.

One ``CompareService`` per engine (``service_for(engine)``), shared by every connection
and the API. It keeps, per job:

* the source texts of the job's current result (read when the result arrives, so the
  lines of a baseline set later refer to the text that was analysed);
* its baseline: one set from the editor (``set_baseline``, kept under
  ``.perfline/baselines/<job>/`` by ``baseline_store``) wins over the job's ``baseline``
  key in ``perfline.toml``; each read through ``baseline_reader`` (inside the workspace,
  bounded, standardized);
* the comparison of the current result with it (``core.compare.compare_documents``) under
  each of the compare settings connections asked for, with the lines of every source file
  that changed since the baseline mapped from the baseline's version of the file
  (``core.compare.line_map``), or the problem that prevents it (placed on the
  ``baseline`` line of ``perfline.toml``, else the job's line, else the stored manifest).

All of it is computed on a thread of the service's own, started when there is work and
ended once idle: it reacts to the engine's events (a new result, the job list or
``perfline.toml`` changed), to changes of the configured baseline files (the engine's
``watch_paths``) and to the set/clear commands. Queries (``comparison``, ``problems``)
only read what is installed, under a lock, and never wait; a query for settings not yet
computed schedules them. Each change bumps ``version`` and is told to the listeners
(from the service's thread) with the jobs it concerns. Memo: a comparison is recomputed
only when the result's generation, the baseline's content or the settings change.
Cost per comparison: ``compare_documents`` (linear in both results, plus the per-run
projection of sampled ones); per result: a read of each source file it annotates.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

from perfline.core.compare.comparison import Comparison, ResultComparison, compare_documents
from perfline.core.compare.deltas import CompareSettings
from perfline.core.compare.line_map import LineMapping
from perfline.core.errors import InputError
from perfline.core.workspace_config import CONFIG_FILE_NAME, JobSpec, WorkspaceConfig
from perfline.server.baselines import baseline_sources, baseline_store
from perfline.server.baselines.baseline_reader import BaselineCache, BaselineUnusable
from perfline.server.baselines.baseline_sources import Captured
from perfline.server.scheduler.boundary import WorkspaceBoundary
from perfline.server.scheduler.bounded_reads import InputLimits
from perfline.server.view.engine_surface import EngineEventView, ResultView

log = logging.getLogger(__name__)

#: Seconds the worker thread waits for more work before it ends.
IDLE_SECONDS: Final = 2.0
#: Distinct compare settings kept computed (the most recently asked for).
KEPT_SETTINGS: Final = 4
_ALL: Final = "\x00all"
#: perfline.toml changed: once the engine has reloaded it (idle), refresh every job.
_CONFIG: Final = "\x00config"
#: How long the worker waits for the engine to take a perfline.toml change in (seconds).
CONFIG_WAIT: Final = 10.0

Listener = Callable[[tuple[str, ...]], None]


@runtime_checkable
class CompareEngine(Protocol):
    """What the service needs of the engine (``server.engine.Engine`` has it)."""

    @property
    def root(self) -> Path: ...
    @property
    def config(self) -> WorkspaceConfig: ...
    @property
    def limits(self) -> InputLimits: ...
    @property
    def boundary(self) -> WorkspaceBoundary: ...
    def job_names(self) -> Sequence[str]: ...
    def result(self, name: str) -> ResultView | None: ...
    def subscribe(self, listener: Callable[[Any], None]) -> Callable[[], None]: ...
    def watch_paths(self, watcher: Callable[[frozenset[str]], None]) -> Callable[[], None]: ...
    def wait_idle(self, timeout: float = 30.0) -> bool: ...


@dataclass(frozen=True)
class Baseline:
    """Which baseline a job is compared with (``server.view.compare_surface.BaselineView``)."""

    origin: str
    path: str
    digest: str
    line: int | None = None
    set_at: str | None = None
    mapped_files: tuple[str, ...] = ()


class JobComparison:
    """One job's result of one generation compared with its baseline."""

    __slots__ = ("_by_new", "baseline", "comparison", "generation", "job", "settings")

    def __init__(
        self,
        job: str,
        generation: int,
        settings: CompareSettings,
        baseline: Baseline,
        comparison: Comparison,
    ) -> None:
        self.job = job
        self.generation = generation
        self.settings = settings
        self.baseline = baseline
        self.comparison = comparison
        self._by_new = {r.new_index: r for r in comparison.results}

    def result(self, new_index: int) -> ResultComparison | None:
        return self._by_new.get(new_index)


@dataclass(frozen=True)
class BaselineProblem:
    """Why a job cannot be compared (``file`` absolute, ``line`` 1-based)."""

    job: str
    file: str
    line: int
    message: str


@dataclass(frozen=True)
class _Source:
    """Where a job's baseline comes from."""

    origin: str
    document: Path
    label: str
    line: int | None
    manifest: baseline_store.Manifest | None = None


@dataclass
class _JobState:
    baseline: Baseline | None = None
    problem: BaselineProblem | None = None
    comparisons: dict[CompareSettings, JobComparison] = field(default_factory=dict)
    state: str = "no-baseline"


class Ticket:
    """The outcome of a set/clear command, once the service has run it."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self.path: str | None = None
        self.error: str | None = None

    def finish(self, path: str | None, error: str | None = None) -> None:
        self.path, self.error = path, error
        self._done.set()

    def wait(self, timeout: float) -> bool:
        return self._done.wait(timeout)


class CompareService:
    """See the module docstring."""

    def __init__(self, engine: CompareEngine) -> None:
        self._engine = weakref.ref(engine)
        self.root = engine.root
        self._cond = threading.Condition()
        self._pending: set[str] = {_ALL}
        self._commands: list[tuple[str, str, Any, Ticket]] = []
        self._busy = False
        self._thread: threading.Thread | None = None
        self._version = 0
        self._wanted: list[CompareSettings] = [CompareSettings()]
        self._jobs: dict[str, _JobState] = {}
        self._captured: dict[str, Captured] = {}
        self._cache = BaselineCache()
        self._listeners: list[Listener] = []
        self._unsubscribe = (engine.subscribe(self._on_event), engine.watch_paths(self._on_paths))
        self._kick()

    # ------------------------------------------------------------------ queries

    @property
    def version(self) -> int:
        return self._version

    def comparison(
        self, job: str, generation: int, settings: CompareSettings
    ) -> JobComparison | None:
        """The comparison of ``job``'s result ``generation`` under ``settings`` if it is
        ready (never waits; unknown settings are scheduled)."""
        with self._cond:
            if settings not in self._wanted:
                self._want(settings)
            state = self._jobs.get(job)
            found = state.comparisons.get(settings) if state is not None else None
        if found is None or found.generation != generation:
            return None
        return found

    def problems(self) -> list[BaselineProblem]:
        with self._cond:
            return [s.problem for s in self._jobs.values() if s.problem is not None]

    def describe(self, job: str) -> tuple[str, Baseline | None, BaselineProblem | None]:
        """(state, baseline, problem) of a job: ``no-baseline``, ``no-result``, ``computing``,
        ``ready`` or ``error``."""
        with self._cond:
            state = self._jobs.get(job)
            busy = bool(self._pending) or self._busy
            if state is None:
                return ("computing" if busy else "no-baseline", None, None)
            label = "computing" if busy and state.state != "error" else state.state
            return label, state.baseline, state.problem

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until no work is pending or running (tests, scripts, the CLI)."""
        with self._cond:
            return self._cond.wait_for(
                lambda: not (self._pending or self._commands or self._busy), timeout
            )

    # ----------------------------------------------------------------- commands

    def set_baseline(self, job: str) -> Ticket:
        """Keep ``job``'s current result as its baseline (``LookupError``: no result)."""
        engine = self._engine()
        good = engine.result(job) if engine is not None else None
        if good is None:
            raise LookupError(job)
        return self._command("set", job, good)

    def clear_baseline(self, job: str) -> Ticket:
        """Forget the baseline set from the editor (the perfline.toml one applies again)."""
        return self._command("clear", job, None)

    def close(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()

    # ------------------------------------------------------------------ events

    def _on_event(self, event: EngineEventView) -> None:
        if event.kind == "result" and event.job:
            self._schedule(event.job)
        elif event.kind in ("jobs", "config"):
            self._schedule(_ALL)

    def _on_paths(self, changed: frozenset[str]) -> None:
        engine = self._engine()
        if engine is None:
            return
        if CONFIG_FILE_NAME in changed:
            self._schedule(_CONFIG)
        for spec in engine.config.jobs:
            if spec.baseline is not None and _normal(spec.baseline) in changed:
                self._schedule(spec.name)

    def _schedule(self, job: str) -> None:
        with self._cond:
            self._pending.add(job)
            self._kick()
            self._cond.notify_all()

    def _command(self, kind: str, job: str, payload: Any) -> Ticket:
        ticket = Ticket()
        with self._cond:
            self._commands.append((kind, job, payload, ticket))
            self._kick()
            self._cond.notify_all()
        return ticket

    def _want(self, settings: CompareSettings) -> None:
        """(Under the lock.) Keep ``settings`` computed, dropping the oldest beyond the cap."""
        self._wanted.append(settings)
        if len(self._wanted) > KEPT_SETTINGS:
            self._wanted.pop(0)
        self._pending.add(_ALL)
        self._kick()
        self._cond.notify_all()

    def _kick(self) -> None:
        """(Under the lock.) Start the worker unless it runs."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="perfline-compare", daemon=True)
            self._thread.start()

    # ------------------------------------------------------------------ worker

    def _run(self) -> None:
        while True:
            with self._cond:
                while not (self._pending or self._commands):
                    if not self._cond.wait(IDLE_SECONDS) and not (self._pending or self._commands):
                        self._thread = None
                        self._cond.notify_all()
                        return
                commands, self._commands = self._commands, []
                pending, self._pending = self._pending, set()
                wanted = tuple(self._wanted)
                self._busy = True
            changed: set[str] = set()
            try:
                changed = self._work(commands, pending, wanted)
            except Exception:  # the worker never dies with work left
                log.exception("comparing with the baselines")
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
            if changed:
                self._tell(tuple(sorted(changed)))

    def _work(
        self,
        commands: list[tuple[str, str, Any, Ticket]],
        pending: set[str],
        wanted: tuple[CompareSettings, ...],
    ) -> set[str]:
        engine = self._engine()
        if engine is None:
            for *_, ticket in commands:
                ticket.finish(None, "the workspace is closed")
            return set()
        for kind, job, payload, ticket in commands:
            self._run_command(engine, kind, job, payload, ticket)
            pending.add(job)
        jobs = set(pending)
        if _CONFIG in jobs:
            jobs.discard(_CONFIG)
            jobs.add(_ALL)
            engine.wait_idle(CONFIG_WAIT)  # the engine reloads perfline.toml after its debounce
        if _ALL in jobs:
            jobs.discard(_ALL)
            jobs.update(engine.job_names())
            jobs.update(self._jobs)
        changed = set()
        for job in sorted(jobs):
            try:
                state = self._update(engine, job, wanted)
            except Exception as error:
                log.exception("comparing job %s with its baseline", job)
                state = _JobState(
                    problem=self._problem(engine, job, None, f"comparison failed: {error}"),
                    state="error",
                )
            if self._install(job, state):
                changed.add(job)
        return changed

    def _install(self, job: str, state: _JobState) -> bool:
        with self._cond:
            before = self._jobs.get(job)
            same = before is not None and (
                before.baseline == state.baseline
                and before.problem == state.problem
                and before.state == state.state
                and before.comparisons.keys() == state.comparisons.keys()
                and all(before.comparisons[k] is v for k, v in state.comparisons.items())
            )
            if state.baseline is None and state.problem is None and not state.comparisons:
                if job in self._jobs:
                    del self._jobs[job]
                    self._version += 1
                    return True
                return False
            if same:
                return False
            self._jobs[job] = state
            self._version += 1
            return True

    def _tell(self, jobs: tuple[str, ...]) -> None:
        for listener in list(self._listeners):
            try:
                listener(jobs)
            except Exception:
                log.exception("compare listener %r failed", listener)

    # ---------------------------------------------------------------- one job

    def _update(
        self, engine: CompareEngine, job: str, wanted: tuple[CompareSettings, ...]
    ) -> _JobState:
        good = engine.result(job)
        captured = self._capture(engine, job, good)
        try:
            source = self._source(engine, job)
        except baseline_store.StoreError as error:
            return _JobState(problem=self._problem(engine, job, None, str(error)), state="error")
        if source is None:
            return _JobState()
        try:
            read = self._cache.read(source.document, source.label, engine.boundary, engine.limits)
        except BaselineUnusable as error:
            return _JobState(
                problem=self._problem(engine, job, source, error.message), state="error"
            )
        baseline = Baseline(source.origin, source.label, read.digest, source.line, _set_at(source))
        if good is None or captured is None:
            return _JobState(baseline=baseline, state="no-result")
        try:
            manifest = source.manifest or baseline_sources.configured_manifest(
                engine.root, engine.limits, read.digest, read.document, captured
            )
            maps, mapped = baseline_sources.line_maps(
                engine.root, engine.limits, manifest, captured
            )
            baseline = replace(baseline, mapped_files=tuple(mapped))
            comparisons = self._compare(job, good, baseline, read.document, maps, wanted)
        except (InputError, baseline_store.StoreError) as error:
            message = f"the baseline {source.label} cannot be compared with this job: {error}"
            return _JobState(
                baseline=baseline,
                problem=self._problem(engine, job, source, message),
                state="error",
            )
        return _JobState(baseline=baseline, comparisons=comparisons, state="ready")

    def _compare(
        self,
        job: str,
        good: ResultView,
        baseline: Baseline,
        document: Mapping[str, Any],
        maps: Mapping[str, LineMapping],
        wanted: tuple[CompareSettings, ...],
    ) -> dict[CompareSettings, JobComparison]:
        with self._cond:
            state = self._jobs.get(job)
            before = dict(state.comparisons) if state is not None else {}
        found: dict[CompareSettings, JobComparison] = {}
        for settings in wanted:
            kept = before.get(settings)
            if (
                kept is not None
                and kept.generation == good.generation
                and kept.baseline == baseline
            ):
                found[settings] = kept
                continue
            comparison = compare_documents(
                document,
                good.document,
                settings,
                line_maps=maps,
                base_source=baseline.path,
                new_source=f"job {job}",
            )
            found[settings] = JobComparison(job, good.generation, settings, baseline, comparison)
        return found

    def _source(self, engine: CompareEngine, job: str) -> _Source | None:
        root = engine.root
        manifest = baseline_store.read_manifest(
            root, baseline_store.job_folder(root, job), engine.limits
        )
        spec = _spec(engine.config, job)
        if manifest is not None and manifest.document_path is not None:
            return _Source(
                "command",
                manifest.document_path,
                _relative(root, manifest.document_path),
                None,
                manifest,
            )
        if spec is not None and spec.baseline is not None:
            return _Source(
                "perfline.toml", root / spec.baseline, _normal(spec.baseline), spec.baseline_line
            )
        return None

    def _problem(
        self, engine: CompareEngine, job: str, source: _Source | None, message: str
    ) -> BaselineProblem:
        root = engine.root
        spec = _spec(engine.config, job)
        config = str(root / CONFIG_FILE_NAME)
        if source is not None and source.origin == "perfline.toml" and source.line:
            return BaselineProblem(job, config, source.line, message)
        if spec is not None and spec.line:
            return BaselineProblem(job, config, spec.line, message)
        manifest = baseline_store.job_folder(root, job) / baseline_store.MANIFEST
        return BaselineProblem(job, str(manifest), 1, message)

    def _capture(self, engine: CompareEngine, job: str, good: ResultView | None) -> Captured | None:
        """The source texts of ``good`` (read once per generation)."""
        if good is None:
            self._captured.pop(job, None)
            return None
        kept = self._captured.get(job)
        if kept is None or kept.generation != good.generation:
            kept = self._captured[job] = baseline_sources.capture(
                engine.root, engine.boundary, engine.limits, good
            )
        return kept

    # ------------------------------------------------------------- commands

    def _run_command(
        self, engine: CompareEngine, kind: str, job: str, payload: Any, ticket: Ticket
    ) -> None:
        root = engine.root
        folder = baseline_store.job_folder(root, job)
        try:
            if kind == "clear":
                baseline_store.remove(root, folder)
                ticket.finish(None)
                return
            good: ResultView = payload
            captured = self._capture(engine, job, good)
            assert captured is not None
            manifest = {
                "perfline_baseline": baseline_store.FORMAT,
                "job": job,
                "origin": "command",
                "set_at": baseline_store.now_iso(),
                "generation": good.generation,
                "document": baseline_store.DOCUMENT,
                "sources": dict(captured.recorded),
            }
            baseline_store.write_baseline(root, folder, manifest, good.document, captured.texts)
            self._cache.forget(folder / baseline_store.DOCUMENT)
            ticket.finish(_relative(root, folder / baseline_store.DOCUMENT))
        except baseline_store.StoreError as error:
            ticket.finish(None, str(error))


def _spec(config: WorkspaceConfig, job: str) -> JobSpec | None:
    for spec in config.jobs:
        if spec.name == job:
            return spec
    return None


def _set_at(source: _Source) -> str | None:
    return source.manifest.set_at if source.manifest is not None else None


def _normal(path: str) -> str:
    return Path(path.replace("\\", "/")).as_posix().removeprefix("./")


def _relative(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


_services: weakref.WeakKeyDictionary[Any, CompareService] = weakref.WeakKeyDictionary()
_services_lock = threading.Lock()


def service_for(engine: object) -> CompareService | None:
    """The engine's comparison service, created on first use (``None`` for an engine that
    cannot compare, such as a test's stand-in)."""
    if not isinstance(engine, CompareEngine):
        return None
    with _services_lock:
        found = _services.get(engine)
        if found is None:
            found = _services[engine] = CompareService(engine)
        return found
