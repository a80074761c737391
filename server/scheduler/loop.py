"""The scheduler loop: one thread that owns the engine's mutable state and consumes the
closed union of ``events.InboxEvent`` values in order, from its inbox (posted by the
watcher, clients and workers) and from its own timer queue (debounce, settle checks,
rechecks of vanished jobs, housekeeping). No locks guard its state: nothing else
touches it. What it decides:

* **which jobs rerun** - file events are coalesced for ``debounce`` seconds (``quick``
  once every pending path reported a finished write); the flush rescans the workspace
  unless only known files changed content, reloads the config if it changed, and a job
  reruns only if the hashes of its inputs differ from those of its last run (or of the
  run in flight: a newer request cancels that run cooperatively and reruns);
* **what is installed** - a finished run is installed only if the hashes of the bytes
  it read still match the ground state (re-hashed when events for its inputs are still
  pending); otherwise it is discarded and the job reruns;
* **errors** - a failed run keeps the last good result, marked stale; the error is
  published only if the inputs are unchanged ``settle`` seconds later;
* **garbage collection** - the collector is paused while runs are in flight
  (``core.collection``, survivors frozen at the end of the pause) and a full collection
  runs once the engine has been quiet for ``housekeeping`` seconds; what runs and
  installs drop (a raw parse, the replaced result, the stage memo's evictions) is freed
  a moment after the result is out (``scheduler.retired``), not on the way to it.

Every handler runs under a guard that logs and survives. Runs go to a thread pool;
listeners are called from the outbox thread. Each installed run's phases are logged
(``perfline.server.timing``, INFO), which ``benchmarks/daemon.py`` reads back.
Cost: O(jobs) per flush plus the hashing of changed inputs.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from perfline.core.collection import collect_frozen, pause_collection, resume_collection
from perfline.core.workspace_config import CONFIG_FILE_NAME
from perfline.server.baselines.job_baselines import baseline_jobs
from perfline.server.jobs.context import JobType
from perfline.server.line_index import build_line_index
from perfline.server.scheduler.events import (
    BaselineCleared,
    BaselineFileChanged,
    BaselineSet,
    CompareInput,
    ComparisonWanted,
    ConfigChanged,
    EngineEvent,
    FileChanged,
    Flush,
    Housekeeping,
    InboxEvent,
    JobsReplanned,
    Reanalyze,
    Release,
    Rescan,
    ResultInstalled,
    RunDone,
    SettleCheck,
    Shutdown,
)
from perfline.server.scheduler.failure_log import log_config, log_job_error
from perfline.server.scheduler.ground import GroundState
from perfline.server.scheduler.idle_gate import IdleGate
from perfline.server.scheduler.job_table import InFlight, JobRecord
from perfline.server.scheduler.memo_policy import MemoPolicy
from perfline.server.scheduler.outbox import Outbox
from perfline.server.scheduler.results import GoodResult, JobError, ResultStore
from perfline.server.scheduler.retired import RELEASE_DELAY, Retired
from perfline.server.scheduler.run_counts import BackendRuns
from perfline.server.scheduler.runner import RunRequest, execute
from perfline.server.scheduler.timer_queue import TimerQueue
from perfline.server.workspace import PlannedJob


class CompareInputs(Protocol):
    """Where the loop hands the comparison service its inputs (``CompareService.take``:
    queued for the service's own thread, never waited on)."""

    def take(self, event: CompareInput) -> None: ...


log = logging.getLogger(__name__)
#: How long the loop waits, at most, for a run's ``started`` event to be delivered before
#: it ends the collector pause (it always is by then, but the outbox is another thread).
ANNOUNCE_WAIT = 5.0
timing_log = logging.getLogger("perfline.server.timing")


@dataclass(frozen=True)
class Timing:
    """The loop's delays (seconds); ``housekeeping`` ``None`` turns it off."""

    debounce: float
    quick: float
    settle: float
    housekeeping: float | None


@dataclass(frozen=True)
class Parts:
    """What the loop works with, built by the engine."""

    ground: GroundState
    results: ResultStore
    memos: MemoPolicy
    outbox: Outbox
    gate: IdleGate
    registry: Mapping[str, JobType]
    backend_runs: BackendRuns
    metric: str | None
    comparisons: CompareInputs


class Scheduler:
    """The loop thread and the state it owns."""

    def __init__(self, parts: Parts, timing: Timing, workers: int) -> None:
        self.parts = parts
        self.ground = parts.ground
        self.results = parts.results
        self.timing = timing
        self.inbox: queue.SimpleQueue[InboxEvent] = queue.SimpleQueue()
        self.timers = TimerQueue()
        self.table: dict[str, JobRecord] = {}
        self.pending: set[str] = set()
        self.writing: set[str] = set()
        self.pending_since: float | None = None
        self.generation = 0
        #: Runs in flight: generation -> set once their ``started`` event is delivered.
        self.inflight: dict[int, threading.Event] = {}
        self.housekeeping_due: float | None = None
        #: What runs, installs and the stage memo dropped, released after results are out.
        self.retired = Retired()
        self.closed = False
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="perfline-job")
        self.thread = threading.Thread(target=self._loop, name="perfline-scheduler", daemon=True)

    # ------------------------------------------------------------- the thread

    def start(self) -> None:
        self.thread.start()

    def post(self, event: InboxEvent) -> None:
        """Hand ``event`` to the loop (any thread)."""
        self.parts.gate.posted()
        self.inbox.put(event)

    def join(self, timeout: float) -> None:
        if threading.current_thread() is not self.thread:
            self.thread.join(timeout)
        self.pool.shutdown(wait=False, cancel_futures=True)

    def _loop(self) -> None:
        gate = self.parts.gate
        while not self.closed:
            for due in self.timers.pop_due(time.monotonic()):
                self._guarded(due)
            gate.set_busy(self._busy())
            try:
                event = self.inbox.get(timeout=self._sleep())
            except queue.Empty:
                continue
            self._guarded(event)
            del event  # a RunDone holds what its run retired: nothing may outlive Release
            gate.handled(busy=self._busy())

    def _sleep(self) -> float | None:
        due = self.timers.next_due()
        return None if due is None else max(0.0, due - time.monotonic())

    def _busy(self) -> bool:
        return bool(self.inflight) or self.timers.has_work()

    def _guarded(self, event: InboxEvent) -> None:
        try:
            self._dispatch(event)
        except Exception:  # the loop must survive whatever an event runs into
            log.exception("the scheduler failed on %r", event)
        finally:
            self.ground.hashes.drop_reads()  # runs took the bytes they were scheduled for

    def _dispatch(self, event: InboxEvent) -> None:
        if isinstance(event, FileChanged):
            self._on_file_changed(event)
        elif isinstance(event, Flush):
            self._on_flush()
        elif isinstance(event, RunDone):
            self._on_run_done(event)
        elif isinstance(event, SettleCheck):
            self._on_settle_check(event)
        elif isinstance(event, ConfigChanged):
            try:
                self._refresh(None, (None, None), force_config=True)
            finally:
                if event.ready is not None:
                    event.ready.set()
        elif isinstance(event, Reanalyze):
            self._on_reanalyze(event)
        elif isinstance(event, Rescan):
            self.pending.add(".")
            self.timers.arm("flush", time.monotonic() + self.timing.debounce, Flush())
        elif isinstance(event, Housekeeping):
            self._on_housekeeping()
        elif isinstance(event, Release):
            self._on_release()
        elif isinstance(event, BaselineSet | BaselineCleared | ComparisonWanted):
            self.parts.comparisons.take(event)  # worked off on the service's thread
        elif isinstance(event, Shutdown):
            self._on_shutdown()

    def _publish(self, event: EngineEvent, delivered: threading.Event | None = None) -> None:
        self.results.bump()
        self.parts.outbox.publish(event, delivered)

    # ------------------------------------------------------------ file events

    def _on_file_changed(self, event: FileChanged) -> None:
        if not self.pending:
            self.pending_since = event.at
        self.pending |= event.paths
        if event.finished:
            self.writing -= event.paths
        else:
            self.writing |= event.paths
        delay = self.timing.debounce if self.writing else self.timing.quick
        self.timers.arm("flush", time.monotonic() + delay, Flush())

    def _on_flush(self) -> None:
        changed, self.pending, self.writing = self.pending, set(), set()
        trigger = (self.pending_since, time.monotonic())
        self.pending_since = None
        self._refresh(changed, trigger)

    def _refresh(
        self,
        changed: set[str] | None,
        trigger: tuple[float | None, float | None],
        *,
        force_config: bool = False,
    ) -> None:
        ground = self.ground
        config_changed = force_config or (changed is not None and CONFIG_FILE_NAME in changed)
        had_error = ground.config_error is not None
        if config_changed and ground.reload_config():
            error = ground.config_error
            log_config(error, had_error)
            self._publish(EngineEvent("config", error=str(error) if error else None))
        files_changed = False
        if config_changed or not ground.only_known_files(changed or set()):
            files_changed = ground.rescan()
        if files_changed or config_changed:
            ground.rebuild_resolver()
        jobs_changed = self._reconcile(ground.plan(), time.monotonic())
        if jobs_changed:
            self._publish(EngineEvent("jobs"))
        elif files_changed or config_changed:
            self._reindex_all()
        if jobs_changed or config_changed:
            self.parts.comparisons.take(JobsReplanned())
        elif changed:
            baselines = baseline_jobs(ground.config, changed)
            if baselines:
                self.parts.comparisons.take(BaselineFileChanged(baselines))
        for name in sorted(self.table):
            self._check(name, trigger)

    def _reconcile(self, planned: dict[str, PlannedJob], now: float) -> bool:
        """Bring the job table in line with ``planned``; returns whether the jobs changed.
        A job whose inputs vanished (a delete before a restore, a rename in progress) is
        kept, serving its result, for ``settle`` seconds."""
        before = {name: record.plan for name, record in self.table.items()}
        recheck = False
        for name in list(self.table):
            record = self.table[name]
            if name in planned:
                record.vanished_at = None
            elif record.vanished_at is None and self.results.good(name) is not None:
                record.vanished_at = now
                recheck = True
            elif record.vanished_at is None or now - record.vanished_at >= self.timing.settle:
                self._drop(name)
            else:
                recheck = True
        if recheck:
            self.timers.arm("rescan", now + self.timing.settle + 0.01, Rescan())
        for name, plan in planned.items():
            known = self.table.get(name)
            if known is None:
                self.table[name] = JobRecord(plan)
                self.results.set_plan(plan)
            elif known.plan != plan:
                known.plan, known.last_digests = plan, None  # new inputs or options: rerun
                self.results.set_plan(plan)
        return {name: record.plan for name, record in self.table.items()} != before

    def _drop(self, name: str) -> None:
        record = self.table.pop(name)
        if record.run is not None:
            record.run.cancel.set()
        self.timers.cancel(("settle", name))
        self.results.remove(name)
        self.parts.memos.forget(name)

    def _reindex_all(self) -> None:
        for name, good in self.results.goods():
            index = build_line_index(
                name, good.document, self.ground.resolver.resolve, self._metric()
            )
            self.results.reindex(name, index)

    def _metric(self) -> str | None:
        return self.parts.metric or self.ground.config.display.metric

    def _check(self, name: str, trigger: tuple[float | None, float | None]) -> None:
        record = self.table.get(name)
        if record is None or record.vanished_at is not None:
            return
        record.current = self.ground.digests(record.plan)
        if record.outdated(record.current):
            record.trigger = trigger
            self._schedule(name)

    # ------------------------------------------------------------------- runs

    def _schedule(self, name: str) -> None:
        record = self.table.get(name)
        if record is None or self.closed:
            return
        if record.run is not None:
            record.rerun = True
            record.run.cancel.set()
            return
        if record.current is None:
            record.current = self.ground.digests(record.plan)
        self.generation += 1
        run = InFlight(self.generation, record.plan, record.current, threading.Event())
        record.run = run
        trigger, record.trigger = record.trigger, (None, None)
        if not self.inflight:
            pause_collection()
        announced = threading.Event()
        self.inflight[run.generation] = announced
        self.results.started(name, time.monotonic())
        self._publish(EngineEvent("started", name, run.generation), announced)
        self.pool.submit(self._work, self._request(name, record, run, trigger))

    def _request(
        self,
        name: str,
        record: JobRecord,
        run: InFlight,
        trigger: tuple[float | None, float | None],
    ) -> RunRequest:
        ground = self.ground
        return RunRequest(
            job=name,
            plan=run.plan,
            generation=run.generation,
            job_type=self.parts.registry.get(run.plan.backend),
            root=ground.root,
            limits=ground.limits,
            files=ground.boundary,
            settings=ground.settings(),
            resolver=ground.resolver,
            metric=self._metric(),
            memos=self.parts.memos.for_run(name, fresh=record.force),
            fresh=record.force,
            trigger=trigger,
            cancel=run.cancel,
            backend_runs=self.parts.backend_runs,
            reads=ground.hashed_reads(run.plan, run.expected),
        )

    def _work(self, request: RunRequest) -> None:
        try:
            done = execute(request)
        except BaseException as error:  # execute catches everything; a RunDone always follows
            log.exception("run of %s failed outside the backend", request.job)
            outcome = JobError(f"internal error while running the job: {error!r}")
            done = RunDone(request.job, request.generation, (), outcome)
        self.post(done)

    def _on_run_done(self, done: RunDone) -> None:
        self._retire(done.retired)
        announced = self.inflight.pop(done.generation, None)
        if announced is not None and not self.inflight:
            # listeners see the collector paused at ``started``: end the pause only after it
            announced.wait(ANNOUNCE_WAIT)
            resume_collection(keep_frozen=True)
            self._arm_housekeeping()
        record = self.table.get(done.job)
        if record is None or record.run is None or record.run.generation != done.generation:
            return
        run, record.run = record.run, None
        self.results.finished(done.job)
        self._publish(EngineEvent("finished", done.job, done.generation))
        if record.rerun or done.outcome is None:
            record.rerun = False
            self._schedule(done.job)
        elif isinstance(done.outcome, GoodResult):
            self._install(done.job, record, run, done.outcome)
        else:
            self._failed(done, record)

    def _install(self, name: str, record: JobRecord, run: InFlight, good: GoodResult) -> None:
        if self.pending.intersection(run.plan.inputs):
            record.current = self.ground.digests(record.plan)  # writes not flushed yet
        if record.plan != run.plan or good.digests != record.current:
            log.info("job %s: discarding a run whose inputs changed since; rerunning", name)
            self._schedule(name)
            return
        record.last_digests, record.force = good.digests, False
        self.timers.cancel(("settle", name))
        self._retire(self.results.install(name, good))
        if good.timing is not None and timing_log.isEnabledFor(logging.INFO):
            timing_log.info("job=%s generation=%d %s", name, good.generation, good.timing.render())
        self._publish(EngineEvent("result", name, good.generation, stale=False))
        self.parts.comparisons.take(ResultInstalled(name))

    def _failed(self, done: RunDone, record: JobRecord) -> None:
        assert isinstance(done.outcome, JobError)
        digests = done.digests or self.ground.digests(record.plan)
        record.last_digests, record.force = digests, False
        check = SettleCheck(done.job, done.generation, digests, done.outcome)
        self.timers.arm(("settle", done.job), time.monotonic() + self.timing.settle, check)

    def _on_settle_check(self, check: SettleCheck) -> None:
        """Publish the error only if the inputs are still what failed."""
        record = self.table.get(check.job)
        if record is None or record.run is not None or record.rerun:
            return
        record.current = self.ground.digests(record.plan)
        if record.current != check.digests:
            self._schedule(check.job)
            return
        stale = self.results.fail(check.job, check.error, check.generation)
        log_job_error(check.job, check.error)
        event = EngineEvent("result", check.job, check.generation, stale, check.error.message)
        self._publish(event)

    def _on_reanalyze(self, event: Reanalyze) -> None:
        for name in event.jobs:
            record = self.table.get(name)
            if record is not None:
                record.force = True
        for name in event.jobs:
            self._schedule(name)

    # ------------------------------------------------------- housekeeping, end

    def _arm_housekeeping(self) -> None:
        """Collect garbage once the engine has been quiet for ``housekeeping`` seconds after
        a run; steady changes postpone it by at most ten such periods."""
        period = self.timing.housekeeping
        if period is None or self.closed:
            return
        now = time.monotonic()
        if self.housekeeping_due is None:
            self.housekeeping_due = now + 10 * period
        delay = max(0.0, min(period, self.housekeeping_due - now))
        self.timers.arm("housekeeping", now + delay, Housekeeping())

    def _on_housekeeping(self) -> None:
        busy = bool(self.inflight) or bool(self.pending)
        due = self.housekeeping_due is not None and time.monotonic() >= self.housekeeping_due
        if busy and not due:
            self._arm_housekeeping()  # busy again: try later
            return
        self.housekeeping_due = None
        collect_frozen()

    def _retire(self, objects: Any) -> None:
        """Park ``objects`` (and what the stage memo evicted) until ``Release``."""
        now = time.monotonic()
        self.retired.park(objects, now)
        self.retired.park(self.parts.memos.stage.take_evicted(), now)
        if len(self.retired):
            self.timers.arm("release", now + RELEASE_DELAY, Release())

    def _on_release(self) -> None:
        """Free what was parked, a step at a time, unless a run is in flight or file
        events wait for their flush (it would slow their way to a refresh) and nothing has
        waited ``RELEASE_AT_MOST`` seconds yet."""
        now = time.monotonic()
        if self.retired.due(now, busy=bool(self.inflight) or bool(self.pending)):
            if self.retired.release():  # one step; the inbox is looked at before the next
                self.timers.arm("release", now, Release())
        elif len(self.retired):
            self.timers.arm("release", now + RELEASE_DELAY, Release())

    def _on_shutdown(self) -> None:
        self.closed = True
        self.timers.clear()
        for record in self.table.values():
            if record.run is not None:
                record.run.cancel.set()
        if self.inflight:
            self.inflight.clear()
            resume_collection(keep_frozen=True)
