"""One run of one job, on a worker thread: read the inputs (bounded, regular files
only; an input the loop has just read and hashed to schedule the run comes with the run,
its bytes and digest, and is not read again), run the job type with the run's memos and
cancellation flag installed, build the line index, and return the outcome to the loop as
a ``RunDone`` event.

A run owns nothing shared: it gets everything it needs in its ``RunRequest`` (a
snapshot taken by the loop) and touches only the thread-safe stage memo and its own
job's memos (no other run of that job is in flight). A backend bug becomes a job
error, never a dead thread. What the job retires (its raw parse) travels back with the
``RunDone`` for the loop to release after the result is out (``scheduler.retired``).
Cost: the read, the backend and the index.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfline.core.cancellation import Cancelled, cancellable
from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings
from perfline.server.file_access import Root
from perfline.server.ingest.named_files import reading_under
from perfline.server.jobs.context import JobContext, JobInput, JobType
from perfline.server.line_index import build_line_index
from perfline.server.paths import PathResolver
from perfline.server.scheduler.bounded_reads import InputLimits, ReadFile, read_input
from perfline.server.scheduler.content_hashes import digest_of
from perfline.server.scheduler.events import RunDone
from perfline.server.scheduler.memo_policy import RunMemos
from perfline.server.scheduler.results import GoodResult, JobError, RunTiming
from perfline.server.scheduler.run_counts import BackendRuns
from perfline.server.workspace import PlannedJob

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunRequest:
    """Everything one run needs, snapshotted by the loop when it schedules the run."""

    job: str
    plan: PlannedJob
    generation: int
    job_type: JobType | None
    root: Path
    limits: InputLimits
    #: Where inputs may be read from (the workspace and the allowed roots).
    files: Root
    settings: PipelineSettings
    resolver: PathResolver
    metric: str | None
    memos: RunMemos
    fresh: bool
    trigger: tuple[float | None, float | None]
    cancel: threading.Event
    backend_runs: BackendRuns
    #: (digest, bytes) of inputs the loop has just read and hashed for this run.
    reads: Mapping[str, tuple[str, ReadFile]] = field(default_factory=dict)


def execute(request: RunRequest) -> RunDone:
    """Run ``request`` to its end; never raises."""
    started = time.monotonic()
    digests: tuple[str, ...] = ()
    retired: list[Any] = []
    try:
        with cancellable(request.cancel):
            inputs = _read_inputs(request)
            digests = tuple(item.digest for item in inputs)
            request.backend_runs.count(request.job)
            outcome: GoodResult | JobError | None = _analyse(request, inputs, started, retired)
    except Cancelled:
        outcome = None
    except InputError as error:
        outcome = job_error(error, request.plan)
    except Exception as error:  # a backend bug must not take the daemon down
        log.error("job %s failed:\n%s", request.job, traceback.format_exc())
        outcome = JobError(f"internal error in backend {request.plan.backend!r}: {error!r}")
    return RunDone(request.job, request.generation, digests, outcome, tuple(retired))


def _read_inputs(request: RunRequest) -> tuple[JobInput, ...]:
    plan = request.plan
    if plan.outside:
        raise InputError(
            None,
            f"the input(s) {', '.join(plan.outside)} resolve outside the workspace; "
            "perfline reads only files inside it (or inside a root the user settings allow)",
        )
    if plan.missing and not plan.inputs:
        raise InputError(None, f"no file matches the inputs {', '.join(plan.missing)}")
    if request.job_type is None:
        raise InputError(None, f"unknown backend {plan.backend!r}")
    items = []
    for rel in plan.inputs:
        path = request.root / rel
        hashed = request.reads.get(rel)
        if hashed is None:
            read = read_input(path, rel, request.limits, request.files)
            digest = digest_of(read.data)
        else:  # the bytes the loop hashed when it scheduled this run
            digest, read = hashed
        items.append(JobInput(rel, read.data, digest, str(path), read.mtime))
        if request.cancel.is_set():
            raise Cancelled()
    return tuple(items)


def _analyse(
    request: RunRequest, inputs: tuple[JobInput, ...], started: float, retired: list[Any]
) -> GoodResult:
    assert request.job_type is not None
    read = time.monotonic()
    memos = request.memos
    context = JobContext(
        inputs,
        request.plan.options,
        request.settings,
        memos.stage,
        request.cancel,
        request.fresh,
        pipeline_memo=memos.pipeline,
        read_cache=memos.read_cache,
        retired=retired,
        resolver=request.resolver,
    )
    with reading_under(request.files):  # a backend reading by path stays inside
        document = request.job_type.run(context)
    context.check_cancelled()
    backend = time.monotonic()
    index = build_line_index(
        request.job,
        document,
        request.resolver.resolve,
        request.metric,
        memos.index,
        context.layouts_of(document),
    )
    timing = RunTiming(*request.trigger, started, read, backend, time.monotonic())
    digests = tuple(item.digest for item in inputs)
    return GoodResult(document, index, digests, request.generation, time.time(), timing)


def job_error(error: InputError, plan: PlannedJob) -> JobError:
    """The job error for ``error``: its message, and the input file and line when known."""
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
