"""The vocabulary of the scheduler: the closed union of events its loop consumes, and
the events it publishes to listeners.

Inbox (consumed by the loop thread, in order; posted by other threads or by the
loop's own timer queue):

* ``FileChanged`` - paths created, changed, deleted or moved (``finished``: the
  writes are over);
* ``Flush`` - the debounce of the pending paths ran out (timer);
* ``RunDone`` - a worker finished a run (a good result, an error, or cancelled);
* ``SettleCheck`` - a failed run's inputs had ``settle`` seconds to change (timer);
* ``ConfigChanged`` - reload ``perfline.toml`` and rescan (the start, or a host);
* ``Reanalyze`` - rerun jobs regardless of hashes;
* ``Rescan`` - jobs whose inputs vanished are looked at again (timer);
* ``Housekeeping`` - a full garbage collection once the engine is quiet (timer);
* ``Release`` - drop what runs and installs retired, once their result is out (timer);
* ``BaselineSet`` / ``BaselineCleared`` - keep a job's current result as its baseline, or
  forget the one kept (the editor's commands, the API), answered through a ``Ticket``;
* ``ComparisonWanted`` - a client asked for comparisons under settings not computed yet;
* ``Shutdown`` - stop.

The comparison service (``server.baselines.compare_service``, owned by the engine) is
driven by the loop alone, with the closed union ``CompareInput``: the three inbox events
above, handed over as they come, and what the loop decides itself: ``ResultInstalled``
(a job's new good result), ``BaselineFileChanged`` (a configured baseline file changed)
and ``JobsReplanned`` (the job list or ``perfline.toml`` changed: every job). The
service compares on a thread of its own; nothing it does runs on the loop's thread.

Outbox (``EngineEvent``, delivered to listeners from the outbox thread):
``kind`` in ``started`` / ``finished`` (a run), ``result`` (a job's served state
changed), ``jobs`` (the job list changed), ``config`` (the config error changed).
Cost: plain frozen values.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from perfline.core.compare.deltas import CompareSettings
from perfline.server.scheduler.results import GoodResult, JobError
from perfline.server.view.engine_surface import ResultView

#: What a listener is told.
EngineEventKind = Literal["started", "finished", "result", "jobs", "config"]


@dataclass(frozen=True)
class EngineEvent:
    """``kind``: ``started`` / ``finished`` (a run), ``result`` (a job's served state
    changed), ``jobs`` (the job list changed), ``config`` (config error changed)."""

    kind: EngineEventKind
    job: str | None = None
    generation: int = 0
    stale: bool = False
    error: str | None = None


Listener = Callable[[EngineEvent], None]


@dataclass(frozen=True)
class FileChanged:
    paths: frozenset[str]
    finished: bool
    at: float


@dataclass(frozen=True)
class Flush:
    pass


@dataclass(frozen=True)
class RunDone:
    """A run's end: ``outcome`` is ``None`` when it was cancelled; ``digests`` are the
    content hashes of the bytes it read (empty when it read nothing)."""

    job: str
    generation: int
    digests: tuple[str, ...]
    outcome: GoodResult | JobError | None
    #: What the run no longer needs (its raw parse, say), released after the result is out.
    retired: tuple[Any, ...] = ()


@dataclass(frozen=True)
class SettleCheck:
    job: str
    generation: int
    digests: tuple[str, ...]
    error: JobError


@dataclass(frozen=True)
class ConfigChanged:
    """Reload the config and rescan; ``ready`` is set once the jobs are planned."""

    ready: threading.Event | None = None


@dataclass(frozen=True)
class Reanalyze:
    jobs: tuple[str, ...]


@dataclass(frozen=True)
class Rescan:
    pass


@dataclass(frozen=True)
class Housekeeping:
    pass


@dataclass(frozen=True)
class Release:
    pass


@dataclass(frozen=True)
class Shutdown:
    pass


class Ticket:
    """The outcome of a baseline command, once the comparison service has run it:
    ``path`` (the stored baseline, workspace-relative) or ``error``."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self.path: str | None = None
        self.error: str | None = None

    def finish(self, path: str | None, error: str | None = None) -> None:
        self.path, self.error = path, error
        self._done.set()

    def wait(self, timeout: float) -> bool:
        return self._done.wait(timeout)


@dataclass(frozen=True, eq=False)
class BaselineSet:
    """Keep ``result`` (``job``'s result when the command was given) and its source texts
    as the job's baseline."""

    job: str
    result: ResultView
    ticket: Ticket


@dataclass(frozen=True, eq=False)
class BaselineCleared:
    """Forget the baseline kept for ``job`` (its ``perfline.toml`` baseline applies again)."""

    job: str
    ticket: Ticket


@dataclass(frozen=True)
class ComparisonWanted:
    """Compute every job's comparison under ``settings`` too (a client asked for them)."""

    settings: CompareSettings


@dataclass(frozen=True)
class ResultInstalled:
    """``job`` has a new good result."""

    job: str


@dataclass(frozen=True)
class BaselineFileChanged:
    """The configured baseline files of ``jobs`` changed on disk."""

    jobs: tuple[str, ...]


@dataclass(frozen=True)
class JobsReplanned:
    """The job list or ``perfline.toml`` changed: every job's baseline and comparison are
    looked at again."""


#: What the comparison service is told, by the loop only (see the module docstring).
CompareInput = (
    BaselineSet
    | BaselineCleared
    | ComparisonWanted
    | ResultInstalled
    | BaselineFileChanged
    | JobsReplanned
)


#: The closed union the loop dispatches on.
InboxEvent = (
    FileChanged
    | Flush
    | RunDone
    | SettleCheck
    | ConfigChanged
    | Reanalyze
    | Rescan
    | Housekeeping
    | Release
    | BaselineSet
    | BaselineCleared
    | ComparisonWanted
    | Shutdown
)

#: Timed events that are work: the engine is not idle while one is due.
WORK_TIMERS: frozenset[type] = frozenset({Flush, SettleCheck, Rescan})
