"""What the engine serves: per job its last good result, its error, its generation and
whether a run is in flight, behind one lock so that queries from any thread see a
consistent snapshot. The scheduler loop is the only writer; nothing here reads a file
or waits for a run. Cost: O(1) per update, O(jobs) per listing query.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from perfline.server.line_entries import JobIndex
from perfline.server.workspace import PlannedJob

#: A job's state as queries report it.
JobState = Literal["pending", "running", "ok", "error"]


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


@dataclass(frozen=True)
class JobInfo:
    """A snapshot of a job for queries."""

    name: str
    backend: str
    inputs: tuple[str, ...]
    state: JobState
    stale: bool
    error: JobError | None
    generation: int
    runs: int
    config_line: int | None
    has_result: bool


@dataclass
class _Served:
    plan: PlannedJob
    good: GoodResult | None = None
    error: JobError | None = None
    generation: int = 0
    runs: int = 0
    running_since: float | None = None

    def info(self) -> JobInfo:
        state: JobState
        if self.running_since is not None:
            state = "running"
        elif self.error is not None:
            state = "error"
        elif self.good is not None:
            state = "ok"
        else:
            state = "pending"
        return JobInfo(
            name=self.plan.name,
            backend=self.plan.backend,
            inputs=self.plan.inputs,
            state=state,
            stale=self.good is not None and (self.error is not None or state == "running"),
            error=self.error,
            generation=self.generation,
            runs=self.runs,
            config_line=self.plan.config_line,
            has_result=self.good is not None,
        )


class ResultStore:
    """Per job what is served; ``version`` is bumped whenever any of it changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, _Served] = {}
        self.version = 0

    # ----------------------------------------------------------- the loop writes

    def bump(self) -> None:
        with self._lock:
            self.version += 1

    def set_plan(self, plan: PlannedJob) -> None:
        with self._lock:
            served = self._jobs.get(plan.name)
            if served is None:
                self._jobs[plan.name] = _Served(plan)
            else:
                served.plan = plan
            self.version += 1

    def remove(self, name: str) -> None:
        with self._lock:
            self._jobs.pop(name, None)
            self.version += 1

    def started(self, name: str, at: float) -> None:
        with self._lock:
            self._jobs[name].running_since = at
            self.version += 1

    def finished(self, name: str) -> None:
        with self._lock:
            served = self._jobs.get(name)
            if served is not None:
                served.running_since = None
                served.runs += 1
            self.version += 1

    def install(self, name: str, good: GoodResult) -> GoodResult | None:
        """Serve ``good``; returns the result it replaces (for the caller to release)."""
        with self._lock:
            served = self._jobs[name]
            replaced = served.good
            served.good, served.error, served.generation = good, None, good.generation
            self.version += 1
        return replaced

    def fail(self, name: str, error: JobError, generation: int) -> bool:
        """Publish ``error``; returns whether a last good result stays served (stale)."""
        with self._lock:
            served = self._jobs[name]
            served.error, served.generation = error, generation
            self.version += 1
            return served.good is not None

    def reindex(self, name: str, index: JobIndex) -> None:
        with self._lock:
            served = self._jobs[name]
            if served.good is not None:
                served.good = replace(served.good, index=index)
            self.version += 1

    # ----------------------------------------------------------------- queries

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._jobs)

    def infos(self) -> list[JobInfo]:
        with self._lock:
            return [served.info() for _, served in sorted(self._jobs.items())]

    def info(self, name: str) -> JobInfo | None:
        with self._lock:
            served = self._jobs.get(name)
            return served.info() if served is not None else None

    def good(self, name: str) -> GoodResult | None:
        with self._lock:
            served = self._jobs.get(name)
            return served.good if served is not None else None

    def goods(self) -> list[tuple[str, GoodResult]]:
        with self._lock:
            return [(n, s.good) for n, s in sorted(self._jobs.items()) if s.good is not None]

    def plans(self) -> list[PlannedJob]:
        with self._lock:
            return [served.plan for _, served in sorted(self._jobs.items())]

    def running_since(self, name: str) -> float | None:
        with self._lock:
            served = self._jobs.get(name)
            return served.running_since if served is not None else None
