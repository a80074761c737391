"""The comparisons of a workspace's jobs with their baselines, off the request path.

One ``CompareService`` per engine, created and owned by the engine (``Engine.comparisons``)
and shared by every connection and the API. It keeps, per job, the source texts of the
job's current result, its baseline, the comparison of the current result with it under
each compare setting connections asked for, or the problem that prevents it (what one
job gets: ``job_baselines``), and installs them as values (``comparison_state``).

Inputs: the scheduler loop alone tells it what happened, with the typed events of the
engine's closed union ``scheduler.events.CompareInput`` (``take``): a baseline set or
cleared, compare settings wanted (the inbox events the service itself posts for a client:
``set_baseline``, ``clear_baseline``, a query for settings not computed yet), a result
installed, a configured baseline file changed, the jobs replanned. They are worked off
on a thread of the service's own, started when there is work and ended once idle;
nothing of it runs on the loop's thread. Queries (``comparison``, ``problems``,
``describe``) only read what is installed, under a lock, and never wait (invariant 15).
Each change bumps ``version`` and is told to the listeners (from the service's thread)
with the jobs it concerns. A comparison is computed again only when the result's
generation, the baseline's content or the settings change. Cost: see ``job_baselines``.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from typing import Final

from perfline.core.compare.deltas import CompareSettings
from perfline.server.baselines import job_baselines
from perfline.server.baselines.baseline_reader import BaselineCache
from perfline.server.baselines.comparison_state import (
    Baseline,
    BaselineProblem,
    ComparisonState,
    JobComparison,
    JobState,
)
from perfline.server.baselines.job_baselines import CapturedTexts, CompareEngine
from perfline.server.scheduler.events import (
    BaselineCleared,
    BaselineFileChanged,
    BaselineSet,
    CompareInput,
    ComparisonWanted,
    InboxEvent,
    JobsReplanned,
    ResultInstalled,
    Ticket,
)

__all__ = [
    "Baseline",
    "BaselineProblem",
    "CompareService",
    "JobComparison",
    "Ticket",
]

log = logging.getLogger(__name__)

#: Seconds the worker thread waits for more work before it ends.
IDLE_SECONDS: Final = 2.0
#: Distinct compare settings kept computed (the most recently asked for).
KEPT_SETTINGS: Final = 4

Listener = Callable[[tuple[str, ...]], None]


class CompareService:
    """See the module docstring. ``post`` hands an event to the engine's loop."""

    def __init__(self, engine: CompareEngine, post: Callable[[InboxEvent], None]) -> None:
        self._engine = weakref.ref(engine)
        self._post = post
        self._cond = threading.Condition()
        self._inputs: list[CompareInput] = []
        #: Events this service posted to the loop that have not come back yet.
        self._posted = 0
        self._busy = False
        self._closed = False
        self._thread: threading.Thread | None = None
        self._version = 0
        self._wanted: list[CompareSettings] = [CompareSettings()]
        #: Settings asked for and posted (``ComparisonWanted``), not taken in yet.
        self._asked: set[CompareSettings] = set()
        self._jobs: dict[str, JobState] = {}
        self._captured: CapturedTexts = {}
        self._documents = BaselineCache()
        self._listeners: list[Listener] = []

    # ------------------------------------------------------------------ queries

    @property
    def version(self) -> int:
        return self._version

    def comparison(
        self, job: str, generation: int, settings: CompareSettings
    ) -> JobComparison | None:
        """The comparison of ``job``'s result ``generation`` under ``settings`` if it is
        ready (never waits; settings not computed yet are asked for)."""
        with self._cond:
            ask = settings not in self._wanted and settings not in self._asked
            if ask:
                self._asked.add(settings)
                self._posted += 1
            state = self._jobs.get(job)
            found = state.comparisons.get(settings) if state is not None else None
        if ask:
            self._post(ComparisonWanted(settings))
        if found is None or found.generation != generation:
            return None
        return found

    def problems(self) -> list[BaselineProblem]:
        with self._cond:
            return [s.problem for s in self._jobs.values() if s.problem is not None]

    def describe(self, job: str) -> tuple[ComparisonState, Baseline | None, BaselineProblem | None]:
        """(state, baseline, problem) of a job (``ComparisonState``)."""
        with self._cond:
            state = self._jobs.get(job)
            busy = self._pending()
            if state is None:
                return ("computing" if busy else "no-baseline", None, None)
            label: ComparisonState = "computing" if busy and state.state != "error" else state.state
            return label, state.baseline, state.problem

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until no work is posted, pending or running (tests, scripts, the CLI)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending(), timeout)

    def _pending(self) -> bool:
        """(Under the lock.) Work posted, waiting or running."""
        return bool(self._inputs or self._posted or self._busy)

    # ----------------------------------------------------------------- commands

    def set_baseline(self, job: str) -> Ticket:
        """Keep ``job``'s current result as its baseline (``LookupError``: no result)."""
        engine = self._engine()
        good = engine.result(job) if engine is not None else None
        if good is None:
            raise LookupError(job)
        ticket = Ticket()
        self._posting(BaselineSet(job, good, ticket))
        return ticket

    def clear_baseline(self, job: str) -> Ticket:
        """Forget the baseline set from the editor (the perfline.toml one applies again)."""
        ticket = Ticket()
        self._posting(BaselineCleared(job, ticket))
        return ticket

    def _posting(self, event: BaselineSet | BaselineCleared) -> None:
        with self._cond:
            closed = self._closed
            if not closed:
                self._posted += 1
        if closed:
            event.ticket.finish(None, "the workspace is closed")
        else:
            self._post(event)

    # ------------------------------------------------------------------ inputs

    def take(self, event: CompareInput) -> None:
        """An input from the engine's loop (never blocks: the work is queued)."""
        with self._cond:
            if isinstance(event, BaselineSet | BaselineCleared | ComparisonWanted):
                self._posted = max(0, self._posted - 1)
            if self._closed:
                if isinstance(event, BaselineSet | BaselineCleared):
                    event.ticket.finish(None, "the workspace is closed")
                self._cond.notify_all()
                return
            self._inputs.append(event)
            self._kick()
            self._cond.notify_all()

    def close(self) -> None:
        """Stop taking inputs (the engine is closing); commands not run fail."""
        with self._cond:
            self._closed = True
            waiting, self._inputs = self._inputs, []
            self._posted = 0
            self._cond.notify_all()
        for event in waiting:
            if isinstance(event, BaselineSet | BaselineCleared):
                event.ticket.finish(None, "the workspace is closed")

    def _kick(self) -> None:
        """(Under the lock.) Start the worker unless it runs."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="perfline-compare", daemon=True)
            self._thread.start()

    # ------------------------------------------------------------------ worker

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._inputs:
                    if not self._cond.wait(IDLE_SECONDS) and not self._inputs:
                        self._thread = None
                        self._cond.notify_all()
                        return
                inputs, self._inputs = self._inputs, []
                self._busy = True
            changed: set[str] = set()
            try:
                changed = self._work(inputs)
            except Exception:  # the worker never dies with work left
                log.exception("comparing with the baselines")
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
            if changed:
                self._tell(tuple(sorted(changed)))

    def _work(self, inputs: list[CompareInput]) -> set[str]:
        engine = self._engine()
        if engine is None:
            for event in inputs:
                if isinstance(event, BaselineSet | BaselineCleared):
                    event.ticket.finish(None, "the workspace is closed")
            return set()
        jobs: set[str] = set()
        every_job = False
        for event in inputs:
            if isinstance(event, BaselineSet | BaselineCleared):
                job_baselines.run_command(engine, event, self._captured, self._documents.forget)
                jobs.add(event.job)
            elif isinstance(event, ComparisonWanted):
                self._want(event.settings)
                every_job = True
            elif isinstance(event, ResultInstalled):
                jobs.add(event.job)
            elif isinstance(event, BaselineFileChanged):
                jobs.update(event.jobs)
            elif isinstance(event, JobsReplanned):
                every_job = True
        if every_job:
            jobs.update(engine.job_names())
            jobs.update(self._jobs)
        with self._cond:
            wanted = tuple(self._wanted)
        changed = set()
        for job in sorted(jobs):
            with self._cond:
                before = self._jobs.get(job)
            try:
                state = job_baselines.update_job(
                    engine, job, wanted, before, self._captured, self._documents
                )
            except Exception as error:
                log.exception("comparing job %s with its baseline", job)
                state = job_baselines.failed(engine, job, error)
            if self._install(job, state):
                changed.add(job)
        return changed

    def _want(self, settings: CompareSettings) -> None:
        """Keep ``settings`` computed, dropping the oldest beyond the cap."""
        with self._cond:
            self._asked.discard(settings)
            if settings in self._wanted:
                return
            self._wanted.append(settings)
            if len(self._wanted) > KEPT_SETTINGS:
                self._wanted.pop(0)

    def _install(self, job: str, state: JobState) -> bool:
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
