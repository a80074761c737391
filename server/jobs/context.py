"""What a job type is and what one run of it gets.

A job type turns the bytes of its inputs into a *processed* standardized
document (core pipeline applied). It gets a ``JobContext`` holding the inputs
(path, bytes, content hash), the job's options, the pipeline settings, a
content-keyed ``StageMemo`` for intermediate stages (so a model is parsed once for
many captures) and a cancellation flag, which the run also installs for the
core's own checkpoints (``core.cancellation``). Each type also says which
workspace files form a job on their own (``discover``), used when
``perfline.toml`` declares no jobs. Cost: nothing beyond the types' own work.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Protocol

from perfline.core.cancellation import Cancelled
from perfline.core.errors import InputError, Problem
from perfline.core.json_codec import read_json_input
from perfline.core.known_structure_reading import StructureReadCache, read_with_known_structure
from perfline.core.pipeline import PipelineSettings, Processed, postprocess_with_layouts
from perfline.core.pipeline_memo import PipelineMemo
from perfline.core.projection import BreakdownLayout
from perfline.core.read_forms import ReadForms
from perfline.server.jobs.stage_memo import StageMemo
from perfline.server.paths import PathResolver

__all__ = [
    "Cancelled",
    "DiscoveredJob",
    "JobContext",
    "JobInput",
    "JobType",
    "is_processed",
    "parse_json_input",
    "read_standardized",
]


@dataclass(frozen=True)
class JobInput:
    """One input file as read for a run: workspace-relative path, bytes, SHA-256,
    absolute path and modification time."""

    path: str
    data: bytes
    digest: str
    absolute: str = ""
    mtime: float = 0.0


@dataclass(frozen=True)
class JobContext:
    """Everything a job type may use for one run."""

    inputs: tuple[JobInput, ...]
    options: Mapping[str, Any]
    settings: PipelineSettings
    memo: StageMemo
    cancelled: threading.Event = field(default_factory=threading.Event)
    #: A forced reanalysis: recompute every stage instead of reusing memoized outputs.
    fresh: bool = False
    #: The job's pipeline memo: what its stages derived from the graph last run
    #: (``core.pipeline_memo``; ``None`` for a forced reanalysis).
    pipeline_memo: PipelineMemo | None = None
    #: The job's read cache: its document's structure texts read last time
    #: (``core.known_structure_reading``; ``None`` for a forced reanalysis).
    read_cache: StructureReadCache | None = None
    #: Objects the run is done with, freed by the engine after the result is out.
    retired: list[Any] = field(default_factory=list)
    #: The workspace's path resolution (root, path maps, source roots, Python files), for
    #: job types whose inputs name source files by partial paths (torch.profiler traces).
    resolver: PathResolver | None = None
    #: What this run's post-processings returned: each document with its layouts.
    processed: list[Processed] = field(default_factory=list)

    def postprocess(
        self,
        document: Mapping[str, Any],
        source: str | None,
        read_forms: ReadForms | None = None,
    ) -> dict[str, Any]:
        """The core pipeline on ``document`` with this run's settings and pipeline memo
        (none for a forced reanalysis: everything is derived again); the layouts it
        returns with the document are kept for the line index (``layouts_of``)."""
        processed = postprocess_with_layouts(
            document,
            self.settings,
            source=source,
            memo=None if self.fresh else self.pipeline_memo,
            read_forms=read_forms,
        )
        self.processed.append(processed)
        return processed.document

    def layouts_of(self, document: Mapping[str, Any]) -> list[BreakdownLayout | None]:
        """The layouts the pipeline returned with ``document`` in this run (none when this
        run did not post-process it: a document memoized by content, say)."""
        for processed in self.processed:
            if processed.document is document:
                return processed.layouts
        return []

    def retire(self, value: Any) -> None:
        """Hand over ``value`` (a raw parse, say) for release after the result is out:
        its deallocation is then off the change -> refresh path (``scheduler.retired``)."""
        self.retired.append(value)

    def check_cancelled(self) -> None:
        """Raise ``Cancelled`` if the run is no longer wanted (the core's own
        ``checkpoint`` calls see the same flag: the runner installs it)."""
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
    """JSON of an input, or ``InputError`` naming the file and the place: not UTF-8,
    invalid JSON, nesting too deep, an integer of too many digits, or a number JSON cannot
    hold (``NaN``, ``Infinity``, ``1e400``: what the daemon serves is strict JSON)."""
    _refuse_empty(item)
    return read_json_input(item.data, item.path)


def read_standardized(
    item: JobInput, cache: StructureReadCache | None
) -> tuple[Any, ReadForms | None]:
    """``parse_json_input`` of a standardized document whose entity lists are likely
    written as in the last read (``cache``: the job's read cache,
    ``core.known_structure_reading``), and which breakdowns the read handed over in
    canonical form (``None`` without a cache)."""
    if cache is None:
        return parse_json_input(item), None
    _refuse_empty(item)
    return read_with_known_structure(item.data, item.path, cache)


def _refuse_empty(item: JobInput) -> None:
    if not item.data.strip():
        raise InputError(item.path, Problem("byte 0", "the file is empty; expected a JSON object"))


def is_processed(document: Mapping[str, Any]) -> bool:
    """True if a document already went through the core pipeline (it has code lines).
    Cost: one pass over the entities at C speed (a Python pass when one is not an object
    with a ``kind``)."""
    results = document.get("results")
    if not isinstance(results, list):
        return False
    for result in results:
        entities = result.get("entities") if isinstance(result, Mapping) else None
        if isinstance(entities, list) and _has_code_line(entities):
            return True
    return False


_KIND = itemgetter("kind")


def _has_code_line(entities: list[Any]) -> bool:
    try:
        return "code_line" in map(_KIND, entities)
    except (KeyError, TypeError):
        return any(isinstance(e, Mapping) and e.get("kind") == "code_line" for e in entities)
