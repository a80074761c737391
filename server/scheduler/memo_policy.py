"""Every memo of the engine behind one policy: the stage-output memo (shared by all
jobs, keyed by content), and per job its structure memo (graph-derived products of the
core pipeline) and its index memo (the graph part of its line index).

The policy decides what a run may reuse: a forced reanalysis gets no structure memo
(everything is derived again, and the stage memo is refreshed by the job types);
a job that disappears takes its memos with it. Memos change time, never answers
(invariant 8). Cost: O(1) per lookup.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfline.core.structure_memo import StructureMemo
from perfline.server.jobs.stage_memo import StageMemo
from perfline.server.line_index import IndexMemo


@dataclass(frozen=True)
class RunMemos:
    """What one run may reuse."""

    stage: StageMemo
    structure: StructureMemo | None
    index: IndexMemo


class MemoPolicy:
    """The stage memo and the per-job memos (touched by the scheduler loop only)."""

    def __init__(self, stage: StageMemo | None = None) -> None:
        self.stage = stage if stage is not None else StageMemo(defer_evictions=True)
        self._structure: dict[str, StructureMemo] = {}
        self._index: dict[str, IndexMemo] = {}

    def structure(self, job: str) -> StructureMemo:
        """The job's structure memo (created on first use)."""
        return self._structure.setdefault(job, StructureMemo())

    def index(self, job: str) -> IndexMemo:
        """The job's index memo (created on first use)."""
        return self._index.setdefault(job, IndexMemo())

    def for_run(self, job: str, *, fresh: bool) -> RunMemos:
        """The memos of one run of ``job`` (``fresh``: a forced reanalysis)."""
        structure = self.structure(job)
        return RunMemos(self.stage, None if fresh else structure, self.index(job))

    def forget(self, job: str) -> None:
        """Drop the memos of a job that no longer exists."""
        self._structure.pop(job, None)
        self._index.pop(job, None)
