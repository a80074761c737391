"""The engine's query surface, as the view layer and the JSON-RPC API read it.

Structural types (``Protocol``) only: the view and ``server.api`` depend on what an engine
answers, not on its class, so the engine can be rebuilt (scheduler, event loop, result
store) without touching them, and the view's tests can pass a plain stand-in. mypy checks
that the real ``server.engine.Engine`` satisfies ``EngineSurface`` where the LSP shell
hands it over. No code, no cost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from perfline.core.workspace_config import WorkspaceConfigError
from perfline.server.file_access import Root
from perfline.server.line_entries import JobIndex, LineDiagnostic, LineEntry


class JobErrorView(Protocol):
    """Why a job's last run failed (its input file and line when known)."""

    @property
    def message(self) -> str: ...
    @property
    def file(self) -> str | None: ...
    @property
    def line(self) -> int | None: ...


class JobView(Protocol):
    """One job's state as served (``JobInfo`` in the engine)."""

    @property
    def name(self) -> str: ...
    @property
    def backend(self) -> str: ...
    @property
    def inputs(self) -> Sequence[str]: ...
    @property
    def state(self) -> str: ...
    @property
    def stale(self) -> bool: ...
    @property
    def error(self) -> JobErrorView | None: ...
    @property
    def generation(self) -> int: ...
    @property
    def runs(self) -> int: ...
    @property
    def config_line(self) -> int | None: ...
    @property
    def has_result(self) -> bool: ...


class ResultView(Protocol):
    """A job's last good result: the processed document and its line index."""

    @property
    def document(self) -> Mapping[str, Any]: ...
    @property
    def index(self) -> JobIndex: ...
    @property
    def generation(self) -> int: ...


class EngineEventView(Protocol):
    """What the engine tells its listeners."""

    @property
    def kind(self) -> str: ...
    @property
    def job(self) -> str | None: ...
    @property
    def generation(self) -> int: ...
    @property
    def stale(self) -> bool: ...
    @property
    def error(self) -> str | None: ...


class EngineSurface(Protocol):
    """The queries the view and the API make; ``version`` changes whenever what is served
    changes (results, errors, job list)."""

    @property
    def root(self) -> Path: ...
    @property
    def boundary(self) -> Root:
        """The folders files are read from: the workspace and the allowed roots."""
        ...

    @property
    def version(self) -> int: ...
    @property
    def config_error(self) -> WorkspaceConfigError | None: ...
    def jobs(self) -> Sequence[JobView]: ...
    def job(self, name: str) -> JobView | None: ...
    def job_names(self) -> Sequence[str]: ...
    def result(self, name: str) -> ResultView | None: ...
    def line_entries(self, path: Path | str) -> Mapping[int, Sequence[LineEntry]]: ...
    def line_diagnostics(self, path: Path | str) -> Sequence[LineDiagnostic]: ...
    def annotated_files(self) -> Sequence[str]: ...
    def reanalyze(self, job: str | None = None) -> list[str]: ...
    def resolve_client_path(self, text: str) -> Path:
        """A client-given path's real path inside the workspace, else
        ``scheduler.boundary.PathRefused`` (``PathOutside`` when it lies outside)."""
        ...


#: Where the view finds the engine (the host creates it on first use).
EngineSource = Callable[[], EngineSurface]

#: A connection's line map: (file, 1-based analysis line) -> the 1-based line in its editor
#: now (``None``: deleted since the analysis). Without one, lines are as analysed.
LineMap = Callable[[Path, int], int | None]
