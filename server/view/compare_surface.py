"""The baseline comparisons as the view layer and the API read them.

Structural types (``Protocol``) only, as ``engine_surface`` is for the engine: the view
depends on what the comparison service (``server.baselines.compare_service``) answers,
not on its class, and view tests can pass a stand-in. The service computes off the
request path; ``comparison`` only looks up what is ready (``None`` otherwise, and the
service is asked to compute it). No code, no cost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from perfline.core.compare.comparison import Comparison, ResultComparison
from perfline.core.compare.deltas import CompareSettings


class BaselineView(Protocol):
    """Which baseline a job is compared with."""

    @property
    def origin(self) -> str:
        """``command`` (set from the editor, kept under ``.perfline/baselines/``) or
        ``perfline.toml`` (the job's ``baseline`` key)."""
        ...

    @property
    def path(self) -> str:
        """The baseline document, workspace-relative."""
        ...

    @property
    def line(self) -> int | None:
        """The ``baseline`` line of ``perfline.toml`` (a perfline.toml baseline)."""
        ...

    @property
    def digest(self) -> str:
        """SHA-256 of the baseline document's bytes."""
        ...

    @property
    def set_at(self) -> str | None:
        """When it was set (ISO 8601, UTC), for a baseline set by the command."""
        ...

    @property
    def mapped_files(self) -> Sequence[str]:
        """Source files (workspace-relative) whose lines were mapped from the baseline's
        version of the file, because they changed since."""
        ...


class JobComparisonView(Protocol):
    """One job's result (of one generation) compared with its baseline."""

    @property
    def job(self) -> str: ...
    @property
    def generation(self) -> int: ...
    @property
    def settings(self) -> CompareSettings: ...
    @property
    def baseline(self) -> BaselineView: ...
    @property
    def comparison(self) -> Comparison: ...
    def result(self, new_index: int) -> ResultComparison | None:
        """The comparison of the new run's result ``new_index`` (``None``: not paired)."""
        ...


class BaselineProblemView(Protocol):
    """Why a job cannot be compared: an unreadable or unsuitable baseline, or a baseline of
    another model; ``file`` (absolute) and ``line`` (1-based) locate it."""

    @property
    def job(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def message(self) -> str: ...


class ComparisonSource(Protocol):
    """What the view asks of the comparisons; ``version`` changes whenever a comparison or
    a problem is installed or dropped."""

    @property
    def version(self) -> int: ...
    def comparison(
        self, job: str, generation: int, settings: CompareSettings
    ) -> JobComparisonView | None: ...
    def problems(self) -> Sequence[BaselineProblemView]: ...


#: Where the view finds the comparisons (``None``: this connection compares nothing).
ComparisonSupplier = Callable[[], ComparisonSource | None]
