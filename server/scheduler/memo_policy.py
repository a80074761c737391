"""The single owner of the engine's caches of analysis: the stage-output memo (shared by
all jobs, keyed by content) and, per job, the reader's cache of its document's structure
texts (``core.known_structure_reading.StructureReadCache``), the pipeline's memo of what
its stages derived from the entity graph (``core.pipeline_memo.PipelineMemo``, holding
the projection's ``ProjectionMemo`` per result) and the line index's memo of its graph
part and figure decisions (``server.index_memo.IndexMemo``).

The policy decides what a run may reuse: a forced reanalysis gets neither the read cache
nor the pipeline memo (everything is read and derived again, and the stage memo is
refreshed by the job types); a job that disappears takes its caches with it. Every one of
them changes time, never answers (invariant 8; ARCHITECTURE.md lists each with the test
that holds it). Touched by the scheduler loop (creation, removal) and by the one run in
flight of each job. Cost: O(1) per lookup.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfline.core.known_structure_reading import StructureReadCache
from perfline.core.pipeline_memo import PipelineMemo
from perfline.server.index_memo import IndexMemo
from perfline.server.jobs.stage_memo import StageMemo


@dataclass(frozen=True)
class RunMemos:
    """What one run may reuse (``None``: derive it again)."""

    stage: StageMemo
    read_cache: StructureReadCache | None
    pipeline: PipelineMemo | None
    index: IndexMemo


@dataclass
class _JobCaches:
    read_cache: StructureReadCache
    pipeline: PipelineMemo
    index: IndexMemo


class MemoPolicy:
    """The stage memo and the per-job caches (touched by the scheduler loop only)."""

    def __init__(self, stage: StageMemo | None = None) -> None:
        self.stage = stage if stage is not None else StageMemo(defer_evictions=True)
        self._jobs: dict[str, _JobCaches] = {}

    def _of(self, job: str) -> _JobCaches:
        found = self._jobs.get(job)
        if found is None:
            found = self._jobs[job] = _JobCaches(StructureReadCache(), PipelineMemo(), IndexMemo())
        return found

    def pipeline(self, job: str) -> PipelineMemo:
        """The job's pipeline memo (created on first use)."""
        return self._of(job).pipeline

    def read_cache(self, job: str) -> StructureReadCache:
        """The job's read cache (created on first use)."""
        return self._of(job).read_cache

    def index(self, job: str) -> IndexMemo:
        """The job's index memo (created on first use)."""
        return self._of(job).index

    def for_run(self, job: str, *, fresh: bool) -> RunMemos:
        """The caches one run of ``job`` may use (``fresh``: a forced reanalysis)."""
        caches = self._of(job)
        if fresh:
            return RunMemos(self.stage, None, None, caches.index)
        return RunMemos(self.stage, caches.read_cache, caches.pipeline, caches.index)

    def forget(self, job: str) -> None:
        """Drop the caches of a job that no longer exists."""
        self._jobs.pop(job, None)
