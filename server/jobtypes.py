"""The job-type registry: what a job's backend does with its input bytes.

A job type turns the bytes of its inputs into a *processed* standardized
document (core pipeline applied). It gets a ``JobContext`` holding the inputs
(path, bytes, content hash), the job's options, the pipeline settings, a
content-keyed ``Memo`` for intermediate stages (so a model is parsed once for
many captures) and a cancellation flag. Job types know nothing of the engine,
watchers or LSP; the engine knows job types only through ``REGISTRY``.

Convention discovery lives here too: each type says which workspace files
form a job on their own (``discover``), used when ``perfline.toml`` declares
no jobs.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from perfline.core.errors import InputError, Problem
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.structure_memo import StructureMemo


@dataclass(frozen=True)
class JobInput:
    """One input file as read for a run: workspace-relative path, bytes, SHA-256,
    absolute path and modification time."""

    path: str
    data: bytes
    digest: str
    absolute: str = ""
    mtime: float = 0.0


class Cancelled(Exception):
    """Raised inside a run whose result is no longer wanted."""


#: How many processed documents a job type keeps memoized beyond those being served.
FINAL_STAGE_KEEP = 8
#: How many raw (not post-processed) documents a stage keeps: enough for every job of a
#: large workspace to be post-processed again (new collapse rules) without re-reading.
RAW_STAGE_KEEP = 32


class Memo:
    """A bounded, thread-safe LRU of stage outputs keyed by content (hashes + options).

    ``misses`` counts computations per stage name, which makes incrementality observable.
    A stage may also cap its own entries (``keep``): final documents are held by the
    engine as long as they are served, so the memo needs only a few superseded ones
    (an edit undone, the same file in two jobs), not a heap of stale versions.
    """

    def __init__(self, capacity: int = 256) -> None:
        self._capacity = capacity
        self._items: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._lock = threading.Lock()
        self._inflight: dict[tuple[Any, ...], threading.Event] = {}
        self.misses: dict[str, int] = {}

    def get_or_compute(
        self,
        stage: str,
        key: tuple[Any, ...],
        compute: Callable[[], Any],
        *,
        refresh: bool = False,
        keep: int | None = None,
    ) -> Any:
        """The memoized value, computing it once even when asked from several threads
        (``refresh``: compute again and replace it; ``keep``: at most that many entries
        of this stage stay memoized, the least recently used go first)."""
        full = (stage, *key)
        while True:
            with self._lock:
                if refresh:
                    self._items.pop(full, None)
                    refresh = False
                if full in self._items:
                    self._items.move_to_end(full)
                    return self._items[full]
                waiting = self._inflight.get(full)
                if waiting is None:
                    self._inflight[full] = threading.Event()
                    break
            waiting.wait()
        try:
            value = compute()
        except BaseException:
            with self._lock:
                self._inflight.pop(full).set()
            raise
        with self._lock:
            self.misses[stage] = self.misses.get(stage, 0) + 1
            self._items[full] = value
            self._items.move_to_end(full)
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)
            if keep is not None:
                same = [k for k in self._items if k[0] == stage]
                for old in same[: max(len(same) - keep, 0)]:
                    del self._items[old]
            self._inflight.pop(full).set()
        return value


@dataclass(frozen=True)
class JobContext:
    """Everything a job type may use for one run."""

    inputs: tuple[JobInput, ...]
    options: Mapping[str, Any]
    settings: PipelineSettings
    memo: Memo
    cancelled: threading.Event = field(default_factory=threading.Event)
    #: A forced reanalysis: recompute every stage instead of reusing memoized outputs.
    fresh: bool = False
    #: The job's graph-derived products of its last run (see ``core.structure_memo``).
    structure: StructureMemo | None = None

    def postprocess(self, document: Mapping[str, Any], source: str | None) -> dict[str, Any]:
        """The core pipeline on ``document`` with this run's settings and structure memo
        (none for a forced reanalysis: everything is derived again)."""
        return postprocess(
            document,
            self.settings,
            source=source,
            memo=None if self.fresh else self.structure,
        )

    def check_cancelled(self) -> None:
        if self.cancelled.is_set():
            raise Cancelled()

    def settings_key(self) -> tuple[Any, ...]:
        return (self.settings.collapse_rules, self.settings.use_backend_defaults)


@dataclass(frozen=True)
class DiscoveredJob:
    """A job found by convention: its name, job type and input paths."""

    name: str
    backend: str
    inputs: tuple[str, ...]


class JobType(Protocol):
    """A backend the engine can run."""

    name: str
    description: str

    def run(self, context: JobContext) -> dict[str, Any]: ...

    def discover(self, files: Sequence[str]) -> list[DiscoveredJob]: ...


def parse_json_input(item: JobInput) -> Any:
    """JSON of an input, or ``InputError`` naming the file and the line/column."""
    try:
        text = item.data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(item.path, Problem(f"byte {error.start}", "not UTF-8 text")) from None
    if not text.strip():
        raise InputError(item.path, Problem("byte 0", "the file is empty; expected a JSON object"))
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            item.path,
            Problem(f"line {error.lineno}, column {error.colno}", f"invalid JSON: {error.msg}"),
        ) from None


def is_processed(document: Mapping[str, Any]) -> bool:
    """True if a document already went through the core pipeline (it has code lines)."""
    results = document.get("results")
    if not isinstance(results, list):
        return False
    for result in results:
        entities = result.get("entities") if isinstance(result, Mapping) else None
        if isinstance(entities, list) and any(
            isinstance(e, Mapping) and e.get("kind") == "code_line" for e in entities
        ):
            return True
    return False


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


class StandardizedOutputJob:
    """``mlia-output.json`` / ``*.mlia.json``: load, post-process, serve.

    A document that already holds derived ``code_line`` entities was persisted
    after post-processing; it is served unchanged (post-processing is not
    idempotent).
    """

    name = "standardized"
    description = "a standardized output document (mlia-output.json, *.mlia.json)"

    def run(self, context: JobContext) -> dict[str, Any]:
        if len(context.inputs) != 1:
            raise InputError(
                ", ".join(i.path for i in context.inputs) or None,
                "a standardized-output job takes exactly one input file",
            )
        item = context.inputs[0]

        def compute() -> dict[str, Any]:
            document = parse_json_input(item)
            if not isinstance(document, dict):
                raise InputError(item.path, Problem("$", "expected a JSON object at the top level"))
            if is_processed(document):
                return document
            context.check_cancelled()
            return context.postprocess(document, item.path)

        result: dict[str, Any] = context.memo.get_or_compute(
            "standardized",
            (item.digest, context.settings_key()),
            compute,
            refresh=context.fresh,
            keep=FINAL_STAGE_KEEP,
        )
        return result

    def discover(self, files: Sequence[str]) -> list[DiscoveredJob]:
        jobs = []
        for path in files:
            base = _basename(path)
            if base == "mlia-output.json" or base.endswith(".mlia.json"):
                jobs.append(DiscoveredJob(_job_name(path), self.name, (path,)))
        return jobs


def _job_name(path: str) -> str:
    base = _basename(path)
    stem = base[: -len(".mlia.json")] if base.endswith(".mlia.json") else base.split(".", 1)[0]
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    return f"{folder}/{stem}" if folder else stem


REGISTRY: dict[str, JobType] = {}


def register(job_type: JobType) -> None:
    """Add a job type (later registrations of the same name win)."""
    REGISTRY[job_type.name] = job_type


register(StandardizedOutputJob())


def discover_jobs(
    files: Sequence[str], registry: Mapping[str, JobType] | None = None
) -> list[DiscoveredJob]:
    """Jobs found by every registered convention, names made unique, sorted by name."""
    found: list[DiscoveredJob] = []
    for job_type in (registry or REGISTRY).values():
        found.extend(job_type.discover(files))
    seen: dict[str, int] = {}
    unique: list[DiscoveredJob] = []
    for job in sorted(found, key=lambda j: (j.name, j.backend, j.inputs)):
        count = seen.get(job.name, 0)
        seen[job.name] = count + 1
        name = job.name if count == 0 else f"{job.name}#{count + 1}"
        unique.append(DiscoveredJob(name, job.backend, job.inputs))
    return unique
