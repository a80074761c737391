"""A stand-in for the engine's query surface (``server.engine.Engine``) over fixed answers,
for the view-layer tests: jobs, results and line entries set by the test. Costs nothing beyond
the dictionaries the test fills."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfline.core.workspace_config import WorkspaceConfigError
from perfline.server.line_entries import JobIndex, LineDiagnostic, LineEntry
from perfline.server.scheduler.boundary import WorkspaceBoundary


@dataclass(frozen=True)
class StubError:
    message: str
    file: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class StubJob:
    name: str
    backend: str = "mlia"
    inputs: tuple[str, ...] = ("run.mlia.json",)
    state: str = "ok"
    stale: bool = False
    error: StubError | None = None
    generation: int = 1
    runs: int = 1
    config_line: int | None = None
    has_result: bool = True


@dataclass(frozen=True)
class StubResult:
    document: Mapping[str, Any]
    index: JobIndex
    generation: int = 1


@dataclass
class StubEngine:
    """The query surface of ``server.engine.Engine``, over fixed answers."""

    root: Path
    results: dict[str, StubResult] = field(default_factory=dict)
    infos: dict[str, StubJob] = field(default_factory=dict)
    version: int = 0
    config_error: WorkspaceConfigError | None = None

    def jobs(self) -> Sequence[StubJob]:
        return [self.infos[name] for name in sorted(self.infos)]

    def job(self, name: str) -> StubJob | None:
        return self.infos.get(name)

    def job_names(self) -> Sequence[str]:
        return sorted(self.infos)

    def result(self, name: str) -> StubResult | None:
        return self.results.get(name)

    def line_entries(self, path: Path | str) -> Mapping[int, Sequence[LineEntry]]:
        merged: dict[int, list[LineEntry]] = {}
        for result in self.results.values():
            for number, entries in result.index.lines.get(str(path), {}).items():
                merged.setdefault(number, []).extend(entries)
        return merged

    def line_diagnostics(self, path: Path | str) -> Sequence[LineDiagnostic]:
        return [d for r in self.results.values() for d in r.index.diagnostics.get(str(path), ())]

    def annotated_files(self) -> Sequence[str]:
        return sorted({f for r in self.results.values() for f in r.index.lines})

    def reanalyze(self, job: str | None = None) -> list[str]:
        return [job] if job else sorted(self.infos)

    @property
    def boundary(self) -> WorkspaceBoundary:
        return WorkspaceBoundary(self.root)

    def resolve_client_path(self, text: str) -> Path:
        return self.boundary.resolve_client_path(text)
