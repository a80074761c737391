"""What the comparison service installs per job, as values: which ``Baseline`` a job is
compared with, each ``JobComparison`` (one result generation under one compare setting),
a ``BaselineProblem`` placed on a line, and the job's ``ComparisonState``. The view reads
them through ``server.view.compare_surface``. No cost beyond construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from perfline.core.compare.comparison import Comparison, ResultComparison
from perfline.core.compare.deltas import CompareSettings

#: Where a job's comparison stands: no baseline, a baseline but no result yet, work
#: pending, ready, or a problem that prevents it.
ComparisonState = Literal["no-baseline", "no-result", "computing", "ready", "error"]


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


@dataclass
class JobState:
    """What is installed for one job."""

    baseline: Baseline | None = None
    problem: BaselineProblem | None = None
    comparisons: dict[CompareSettings, JobComparison] = field(default_factory=dict)
    state: ComparisonState = "no-baseline"
