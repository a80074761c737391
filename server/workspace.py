"""The workspace on disk: its file list, its ``perfline.toml`` and its jobs.

I/O edge of the engine. ``scan_files`` lists workspace-relative POSIX paths,
pruning ignored folders (``.git``, virtual environments - any folder with a
``pyvenv.cfg`` -, caches, perfline's own output ``.perfline`` except its ``runs`` folder, where
``perfline profile`` writes traces) and skipping symbolic links that
loop or dangle (each reported once through ``on_bad_link``); ``load_config`` reads
(a regular file of bounded size only) and parses ``perfline.toml`` (absent ->
defaults); ``plan_jobs`` turns the config (or, when it declares no jobs, the
conventions of the job-type registry) into ``PlannedJob`` values with their
concrete input paths; perfline's own output (``mlia-output/mlia-output.json`` written by
``perfline analyze``/``report``) is never a discovered job (``perfline_output``: the first
bytes of each such file). Cost: one directory walk (``lstat`` only for symlinks).
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfline.core.backends.settings import discovery_enabled, job_defaults
from perfline.core.errors import InputError
from perfline.core.workspace_config import (
    CONFIG_FILE_NAME,
    WorkspaceConfig,
    WorkspaceConfigError,
    parse_workspace_config,
)
from perfline.server.file_access import Root, open_stream, read_text
from perfline.server.jobs.context import JobType
from perfline.server.jobs.registry import discover_jobs
from perfline.server.jobs.torch_trace_job import PROFILE_RUNS
from perfline.server.scheduler.bounded_reads import InputLimits

#: Folder names never walked nor watched.
IGNORED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "__pycache__",
        "node_modules",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".perfline",
        ".idea",
        ".vscode",
    }
)


def is_ignored(relative: str, extra_globs: Sequence[str] = ()) -> bool:
    """True if a workspace-relative path lies in an ignored folder or matches an ignore glob
    (``.perfline/runs/`` is not an ignored folder: ``PROFILE_RUNS``)."""
    parts = relative.split("/")
    if tuple(parts[:2]) == PROFILE_RUNS:
        parts = parts[2:]
    if any(part in IGNORED_DIRS or part.endswith(".egg-info") for part in parts[:-1]):
        return True
    if parts and parts[-1] in IGNORED_DIRS:
        return True
    return any(
        fnmatch.fnmatchcase(relative, glob) or fnmatch.fnmatchcase(relative + "/", glob)
        for glob in extra_globs
    )


def bad_link(path: str) -> str | None:
    """Why the symbolic link ``path`` cannot be followed (a loop, dangling), or ``None``."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return "a dangling symbolic link"
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "a symbolic link loop"
        return f"unreadable ({error.strerror})"
    except ValueError:
        return "an invalid path"
    return None


def scan_files(
    root: Path,
    extra_globs: Sequence[str] = (),
    on_bad_link: Callable[[str, str], None] | None = None,
) -> list[str]:
    """Every non-ignored file under ``root`` as sorted workspace-relative POSIX paths;
    symbolic links that cannot be followed are left out (``on_bad_link(rel, why)``)."""
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        base = Path(folder)
        rel_folder = base.relative_to(root).as_posix()
        prefix = "" if rel_folder == "." else rel_folder + "/"
        dirs[:] = sorted(d for d in dirs if _walks_into(base, prefix, d, extra_globs))
        for name in files:
            rel = prefix + name
            if is_ignored(rel, extra_globs):
                continue
            full = os.path.join(folder, name)
            why = bad_link(full) if os.path.islink(full) else None
            if why is None:
                found.append(rel)
            elif on_bad_link is not None:
                on_bad_link(rel, why)
    return sorted(found)


def _walks_into(base: Path, prefix: str, name: str, extra_globs: Sequence[str]) -> bool:
    """Whether the walk enters the folder ``prefix + name`` (of the folder ``base``):
    ignored folders are pruned, except ``.perfline`` at the root, of which only ``runs``."""
    if prefix == "" and name == PROFILE_RUNS[0]:
        return True
    if prefix == PROFILE_RUNS[0] + "/":
        return name == PROFILE_RUNS[1]
    return (
        name not in IGNORED_DIRS
        and not name.endswith(".egg-info")
        and not (base / name / "pyvenv.cfg").exists()
        and not is_ignored(prefix + name + "/x", extra_globs)
    )


@dataclass(frozen=True)
class LoadedConfig:
    """The config in force, the raw error if the file is invalid, and the text's digest."""

    config: WorkspaceConfig
    error: WorkspaceConfigError | None
    present: bool


def load_config(
    root: Path,
    previous: WorkspaceConfig | None = None,
    *,
    known_backends: Sequence[str],
    limits: InputLimits | None = None,
    files: Root | None = None,
) -> LoadedConfig:
    """Read ``perfline.toml``; an invalid file keeps ``previous`` (or the defaults) in force."""
    path = root / CONFIG_FILE_NAME
    if not os.path.lexists(path):
        return LoadedConfig(WorkspaceConfig(), None, False)
    try:
        text = read_text(
            path,
            root=files if files is not None else Root(root),
            kind="config",
            limits=limits or InputLimits(),
            source=CONFIG_FILE_NAME,
            errors="strict",
        )
    except InputError as error:
        reason = "; ".join(p.message for p in error.problems)
        problem = WorkspaceConfigError(
            CONFIG_FILE_NAME,
            [_problem(1, f"cannot read the file: {reason}")],
        )
        return LoadedConfig(previous or WorkspaceConfig(), problem, True)
    try:
        config = parse_workspace_config(
            text, source=CONFIG_FILE_NAME, known_backends=sorted(known_backends)
        )
    except WorkspaceConfigError as error:
        return LoadedConfig(previous or WorkspaceConfig(), error, True)
    return LoadedConfig(config, None, True)


def _problem(line: int, message: str) -> Any:
    from perfline.core.workspace_config import ConfigProblem

    return ConfigProblem(line, "", message)


@dataclass(frozen=True)
class PlannedJob:
    """A job with its concrete inputs (workspace-relative), ready to hash and run."""

    name: str
    backend: str
    inputs: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    config_line: int | None = None
    missing: tuple[str, ...] = ()
    #: Inputs that resolve outside the workspace (and the allowed roots): never read.
    outside: tuple[str, ...] = ()


def _expand(pattern: str, files: Sequence[str]) -> list[str]:
    pattern = pattern.replace("\\", "/").removeprefix("./")
    if any(ch in pattern for ch in "*?["):
        return [f for f in files if fnmatch.fnmatchcase(f, pattern)]
    return [pattern]


#: The folder ``perfline analyze``/``report`` write their document into, and the document.
OWN_OUTPUT = "mlia-output/mlia-output.json"
#: How the persisted document starts when perfline wrote it (``json.dumps(indent=4)``).
_WRITTEN_BY_PERFLINE = re.compile(rb'"tool":\s*\{\s*"name":\s*"perfline"')
_HEAD_BYTES = 512


def perfline_output(root: Path, relative: str) -> bool:
    """Whether ``relative`` is perfline's own output: ``mlia-output/mlia-output.json`` whose
    document names perfline as its tool (an MLIA run's ``mlia-output.json`` names mlia and
    is still discovered). Reads at most the first 512 bytes of a regular file inside
    ``root`` (``file_access``: no FIFO, no link out)."""
    if relative != OWN_OUTPUT and not relative.endswith("/" + OWN_OUTPUT):
        return False
    try:
        with open_stream(root / relative, root=Root(root), gzip=False) as stream:
            head = stream.read(_HEAD_BYTES)
    except (InputError, OSError):
        return False
    return _WRITTEN_BY_PERFLINE.search(head or b"") is not None


def plan_jobs(
    config: WorkspaceConfig,
    files: Sequence[str],
    registry: Mapping[str, JobType],
    *,
    own_output: Callable[[str], bool] | None = None,
) -> list[PlannedJob]:
    """Jobs from ``perfline.toml`` if it declares any, else from the conventions, leaving
    out a discovered job whose every input is perfline's own output (``own_output``, given
    the workspace-relative path; ``perfline_output`` bound to the root)."""
    if config.jobs:
        planned = []
        present = set(files)
        for spec in config.jobs:
            inputs: list[str] = []
            missing: list[str] = []
            for pattern in spec.inputs:
                matched = _expand(pattern, files)
                if not matched:
                    missing.append(pattern)
                for item in matched:
                    if item not in inputs:
                        inputs.append(item)
                        if item not in present:
                            missing.append(item)
            planned.append(
                PlannedJob(
                    spec.name,
                    spec.backend,
                    tuple(inputs),
                    {**job_defaults(config.backends, spec.backend), **spec.options},
                    spec.line,
                    tuple(missing),
                )
            )
        return planned
    return [
        PlannedJob(job.name, job.backend, job.inputs, job_defaults(config.backends, job.backend))
        for job in discover_jobs(files, registry)
        if discovery_enabled(config.backends, job.backend)
        and not (own_output is not None and all(map(own_output, job.inputs)))
    ]


def python_files(files: Iterable[str]) -> list[str]:
    return [f for f in files if f.endswith(".py")]
