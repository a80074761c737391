"""One job against its baseline, as the comparison service's thread works it out: where
the baseline comes from (one set from the editor, kept under ``.perfline/baselines/<job>/``
by ``baseline_store``, wins over the job's ``baseline`` key in ``perfline.toml``), reading
it (``baseline_reader``: inside the workspace, bounded, standardized), the source texts
of the job's result and the line maps of the files changed since the baseline
(``baseline_sources``), the comparison under each wanted compare setting
(``core.compare.compare_documents``), or the problem that prevents it, placed on the
``baseline`` line of ``perfline.toml``, else the job's line, else the stored manifest;
and the set/clear commands.

Functions of what they are given (the engine's query surface, the job's state before,
the kept source texts and baseline documents); the service installs what they return.
Cost per comparison: ``compare_documents`` (linear in both results, plus the per-run
projection of sampled ones); per result: a read of each source file it annotates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from perfline.core.compare.comparison import compare_documents
from perfline.core.compare.deltas import CompareSettings
from perfline.core.compare.line_map import LineMapping
from perfline.core.errors import InputError
from perfline.core.workspace_config import CONFIG_FILE_NAME, JobSpec, WorkspaceConfig
from perfline.server.baselines import baseline_sources, baseline_store
from perfline.server.baselines.baseline_reader import BaselineCache, BaselineUnusable
from perfline.server.baselines.baseline_sources import Captured
from perfline.server.baselines.comparison_state import (
    Baseline,
    BaselineProblem,
    JobComparison,
    JobState,
)
from perfline.server.scheduler.boundary import WorkspaceBoundary
from perfline.server.scheduler.bounded_reads import InputLimits
from perfline.server.scheduler.events import BaselineCleared, BaselineSet
from perfline.server.view.engine_surface import ResultView


class CompareEngine(Protocol):
    """What the comparisons need of the engine (``server.engine.Engine`` has it)."""

    @property
    def root(self) -> Path: ...
    @property
    def config(self) -> WorkspaceConfig: ...
    @property
    def limits(self) -> InputLimits: ...
    @property
    def boundary(self) -> WorkspaceBoundary: ...
    def job_names(self) -> Sequence[str]: ...
    def result(self, name: str) -> ResultView | None: ...


@dataclass(frozen=True)
class _Source:
    """Where a job's baseline comes from."""

    origin: str
    document: Path
    label: str
    line: int | None
    manifest: baseline_store.Manifest | None = None


#: The source texts of a job's result, read once per generation: job -> what was read.
CapturedTexts = dict[str, Captured]


def update_job(
    engine: CompareEngine,
    job: str,
    wanted: tuple[CompareSettings, ...],
    before: JobState | None,
    captured: CapturedTexts,
    documents: BaselineCache,
) -> JobState:
    """What to install for ``job`` now (``before``: what is installed; its comparisons of
    the same result generation and baseline are kept as they are)."""
    good = engine.result(job)
    texts = capture(engine, job, good, captured)
    try:
        source = _source(engine, job)
    except baseline_store.StoreError as error:
        return JobState(problem=_problem(engine, job, None, str(error)), state="error")
    if source is None:
        return JobState()
    try:
        read = documents.read(source.document, source.label, engine.boundary, engine.limits)
    except BaselineUnusable as error:
        return JobState(problem=_problem(engine, job, source, error.message), state="error")
    set_at = source.manifest.set_at if source.manifest is not None else None
    baseline = Baseline(source.origin, source.label, read.digest, source.line, set_at)
    if good is None or texts is None:
        return JobState(baseline=baseline, state="no-result")
    try:
        manifest = source.manifest or baseline_sources.configured_manifest(
            engine.root, engine.limits, read.digest, read.document, texts
        )
        maps, mapped = baseline_sources.line_maps(engine.root, engine.limits, manifest, texts)
        baseline = replace(baseline, mapped_files=tuple(mapped))
        kept = before.comparisons if before is not None else {}
        comparisons = _compare(job, good, baseline, read.document, maps, wanted, kept)
    except (InputError, baseline_store.StoreError) as error:
        message = f"the baseline {source.label} cannot be compared with this job: {error}"
        return JobState(
            baseline=baseline, problem=_problem(engine, job, source, message), state="error"
        )
    return JobState(baseline=baseline, comparisons=comparisons, state="ready")


def failed(engine: CompareEngine, job: str, error: Exception) -> JobState:
    """The state of a job whose comparison raised (a bug: logged by the caller)."""
    return JobState(
        problem=_problem(engine, job, None, f"comparison failed: {error}"), state="error"
    )


def run_command(
    engine: CompareEngine,
    command: BaselineSet | BaselineCleared,
    captured: CapturedTexts,
    forget: Callable[[Path], None],
) -> None:
    """Write or remove the job's stored baseline and finish the command's ticket
    (``forget``: drop a kept read of the document written)."""
    root = engine.root
    job, ticket = command.job, command.ticket
    folder = baseline_store.job_folder(root, job)
    try:
        if isinstance(command, BaselineCleared):
            baseline_store.remove(root, folder)
            ticket.finish(None)
            return
        good = command.result
        texts = capture(engine, job, good, captured)
        assert texts is not None  # a result has its texts
        manifest = {
            "perfline_baseline": baseline_store.FORMAT,
            "job": job,
            "origin": "command",
            "set_at": baseline_store.now_iso(),
            "generation": good.generation,
            "document": baseline_store.DOCUMENT,
            "sources": dict(texts.recorded),
        }
        baseline_store.write_baseline(root, folder, manifest, good.document, texts.texts)
        forget(folder / baseline_store.DOCUMENT)
        ticket.finish(_relative(root, folder / baseline_store.DOCUMENT))
    except baseline_store.StoreError as error:
        ticket.finish(None, str(error))


def capture(
    engine: CompareEngine, job: str, good: ResultView | None, captured: CapturedTexts
) -> Captured | None:
    """The source texts of ``good`` (read once per generation, kept in ``captured``)."""
    if good is None:
        captured.pop(job, None)
        return None
    kept = captured.get(job)
    if kept is None or kept.generation != good.generation:
        kept = captured[job] = baseline_sources.capture(
            engine.root, engine.boundary, engine.limits, good
        )
    return kept


def baseline_jobs(config: WorkspaceConfig, changed: frozenset[str] | set[str]) -> tuple[str, ...]:
    """The jobs whose configured baseline file is among ``changed`` (workspace-relative)."""
    return tuple(
        spec.name
        for spec in config.jobs
        if spec.baseline is not None and _normal(spec.baseline) in changed
    )


def _compare(
    job: str,
    good: ResultView,
    baseline: Baseline,
    document: Mapping[str, Any],
    maps: Mapping[str, LineMapping],
    wanted: tuple[CompareSettings, ...],
    before: Mapping[CompareSettings, JobComparison],
) -> dict[CompareSettings, JobComparison]:
    found: dict[CompareSettings, JobComparison] = {}
    for settings in wanted:
        kept = before.get(settings)
        if kept is not None and kept.generation == good.generation and kept.baseline == baseline:
            found[settings] = kept
            continue
        comparison = compare_documents(
            document,
            good.document,
            settings,
            line_maps=maps,
            base_source=baseline.path,
            new_source=f"job {job}",
        )
        found[settings] = JobComparison(job, good.generation, settings, baseline, comparison)
    return found


def _source(engine: CompareEngine, job: str) -> _Source | None:
    root = engine.root
    manifest = baseline_store.read_manifest(
        root, baseline_store.job_folder(root, job), engine.limits
    )
    spec = _spec(engine.config, job)
    if manifest is not None and manifest.document_path is not None:
        return _Source(
            "command",
            manifest.document_path,
            _relative(root, manifest.document_path),
            None,
            manifest,
        )
    if spec is not None and spec.baseline is not None:
        return _Source(
            "perfline.toml", root / spec.baseline, _normal(spec.baseline), spec.baseline_line
        )
    return None


def _problem(
    engine: CompareEngine, job: str, source: _Source | None, message: str
) -> BaselineProblem:
    root = engine.root
    spec = _spec(engine.config, job)
    config = str(root / CONFIG_FILE_NAME)
    if source is not None and source.origin == "perfline.toml" and source.line:
        return BaselineProblem(job, config, source.line, message)
    if spec is not None and spec.line:
        return BaselineProblem(job, config, spec.line, message)
    manifest = baseline_store.job_folder(root, job) / baseline_store.MANIFEST
    return BaselineProblem(job, str(manifest), 1, message)


def _spec(config: WorkspaceConfig, job: str) -> JobSpec | None:
    for spec in config.jobs:
        if spec.name == job:
            return spec
    return None


def _normal(path: str) -> str:
    return Path(path.replace("\\", "/")).as_posix().removeprefix("./")


def _relative(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
