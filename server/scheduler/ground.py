"""The engine's ground state: what the workspace holds, as last looked at.

Paths (the workspace's file list), the content hash of every job input, and the
configuration (``perfline.toml`` as last loaded, its error, the path resolver built
from it) - nothing derived from an analysis. Only the scheduler loop touches it; the
config and its error are replaced whole, so other threads may read those two
attributes at any time. Path maps and inputs that resolve outside the workspace
boundary are reported as config problems and job errors, never followed.
Cost: a workspace walk per rescan, a ``stat`` per input per check.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from perfline.core.pipeline import PipelineSettings
from perfline.core.workspace_config import (
    CONFIG_FILE_NAME,
    ConfigProblem,
    PathMap,
    WorkspaceConfig,
    WorkspaceConfigError,
)
from perfline.server.jobs.context import JobType
from perfline.server.paths import PathResolver
from perfline.server.scheduler.boundary import WorkspaceBoundary
from perfline.server.scheduler.bounded_reads import InputLimits, ReadFile
from perfline.server.scheduler.content_hashes import ContentHashes
from perfline.server.workspace import (
    PlannedJob,
    load_config,
    perfline_output,
    plan_jobs,
    python_files,
    scan_files,
)

log = logging.getLogger(__name__)


class GroundState:
    """Files, content hashes and configuration of one workspace."""

    def __init__(
        self,
        root: Path,
        *,
        registry: Mapping[str, JobType],
        limits: InputLimits,
        boundary: WorkspaceBoundary,
    ) -> None:
        self.root = root
        self.registry = registry
        self.limits = limits
        self.boundary = boundary
        self.hashes = ContentHashes(root, limits, boundary)
        self.files: list[str] = []
        self.file_set: frozenset[str] = frozenset()
        self.config = WorkspaceConfig()
        self.config_error: WorkspaceConfigError | None = None
        self.resolver = PathResolver(root, (), (".",), (), boundary.contains)
        self._bad_links: dict[str, str] = {}

    # ------------------------------------------------------------ configuration

    def reload_config(self) -> bool:
        """Load ``perfline.toml``; returns whether an error was or is reported."""
        before = self.config_error
        loaded = load_config(
            self.root,
            self.config,
            known_backends=list(self.registry),
            limits=self.limits,
            files=self.boundary,
        )
        self.config = loaded.config
        self.config_error = loaded.error or self._boundary_problems(loaded.config)
        return before is not None or self.config_error is not None

    def _boundary_problems(self, config: WorkspaceConfig) -> WorkspaceConfigError | None:
        problems = []
        for mapping in config.path_maps:
            real = self.boundary.outside(self.root / mapping.target)
            if real is not None:
                problems.append(
                    ConfigProblem(
                        mapping.line,
                        "to",
                        f"the path map's target {mapping.target!r} resolves outside the "
                        f"workspace (to {real}); it is ignored unless the user settings "
                        "allow that root",
                    )
                )
        return WorkspaceConfigError(CONFIG_FILE_NAME, problems) if problems else None

    def settings(self) -> PipelineSettings:
        return PipelineSettings(
            collapse_rules=self.config.collapse_rules,
            use_backend_defaults=self.config.use_backend_defaults,
            float_sums="reference" if self.config.float_sums == "reference" else "exact",
        )

    # -------------------------------------------------------------------- files

    def rescan(self) -> bool:
        """Walk the workspace; returns whether the file list changed."""
        files = scan_files(self.root, self.config.ignore, self._report_bad_link)
        if files == self.files:
            return False
        self.files = files
        self.file_set = frozenset(files)
        self.hashes.forget_missing(self.file_set)
        self._bad_links = {rel: why for rel, why in self._bad_links.items() if rel not in files}
        return True

    def _report_bad_link(self, rel: str, why: str) -> None:
        if self._bad_links.get(rel) != why:
            self._bad_links[rel] = why
            log.warning("skipping %s: %s", rel, why)

    def only_known_files(self, changed: set[str]) -> bool:
        """True if every changed path is a file of the last scan that still is one."""
        if not changed:
            return False
        return all(rel in self.file_set and (self.root / rel).is_file() for rel in changed)

    def rebuild_resolver(self) -> None:
        self.resolver = PathResolver(
            self.root,
            self._mapped_inside(),
            self.config.source_roots,
            python_files(self.files),
            self.boundary.contains,
        )

    def _mapped_inside(self) -> Sequence[PathMap]:
        return tuple(
            m for m in self.config.path_maps if self.boundary.outside(self.root / m.target) is None
        )

    # --------------------------------------------------------------------- jobs

    def plan(self) -> dict[str, PlannedJob]:
        """The jobs of the config (or the conventions), inputs outside the boundary marked."""
        planned: dict[str, PlannedJob] = {}
        for plan in plan_jobs(self.config, self.files, self.registry, own_output=self._own_output):
            outside = tuple(
                rel for rel in plan.inputs if self.boundary.outside(self.root / rel) is not None
            )
            planned[plan.name] = replace(plan, outside=outside) if outside else plan
        return planned

    def _own_output(self, rel: str) -> bool:
        """Whether ``rel`` is perfline's own output (read only inside the boundary)."""
        return self.boundary.outside(self.root / rel) is None and perfline_output(self.root, rel)

    def digests(self, plan: PlannedJob) -> tuple[str, ...]:
        """The current content hashes of a job's inputs (never read outside the boundary)."""
        if plan.outside:
            return tuple("outside" for _ in plan.inputs)
        return self.hashes.digests(plan.inputs)

    def hashed_reads(
        self, plan: PlannedJob, digests: tuple[str, ...]
    ) -> dict[str, tuple[str, ReadFile]]:
        """(digest, bytes) of ``plan``'s inputs that this event hashed to ``digests``
        (taken: a run gets them instead of reading and hashing the files again)."""
        if plan.outside or len(digests) != len(plan.inputs):
            return {}
        reads = {}
        for rel, digest in zip(plan.inputs, digests, strict=True):
            read = self.hashes.take(rel, digest)
            if read is not None:
                reads[rel] = (digest, read)
        return reads
