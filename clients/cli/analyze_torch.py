"""The torch.profiler branch of ``perfline analyze``.

``perfline analyze TRACE...``: one or more traces torch.profiler wrote
(``export_chrome_trace``, ``tensorboard_trace_handler``; ``.json`` or ``.json.gz``), of one
program; a statement sidecar beside a trace (``NAME.perfline.json``, what ``perfline
profile`` writes) puts its figures on statements. The frames' files are resolved onto a
workspace: the folder of the nearest ``perfline.toml`` (from the first trace's folder
upwards; its ``[[path_map]]`` and ``source_roots`` apply), else the first of these in which
a frame's file is found: the current folder, the first trace's folder, then its parents
(``MAX_PARENTS`` at most, stopping at a folder that holds ``.git``, and never the file
system's root or the home folder itself: a trace under ``traces/`` or ``log/`` is analysed
from anywhere). When none is, the error names every folder tried.
``analyze.py`` calls ``wants_torch`` to decide, then ``run_torch``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfline.clients.cli.common import find_config, load_config
from perfline.core.backends.torch_profiler.document import ReadTrace, analyze_traces
from perfline.core.backends.torch_profiler.resolution import Resolution
from perfline.core.envelope import iso_timestamp
from perfline.core.errors import InputError, Problem
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.workspace_config import WorkspaceConfig
from perfline.server.ingest.torch_trace import (
    is_trace_file,
    read_trace_file,
    sidecar_beside,
    workspace_resolution,
)


def folder_traces(folder: Path) -> list[str]:
    """The traces directly in ``folder`` (a ``perfline profile`` run folder), by name."""
    from perfline.server.jobs.torch_trace_job import is_trace_name

    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [str(folder / name) for name in names if is_trace_name(name)]


def wants_torch(inputs: Sequence[str]) -> bool:
    """Every input is a torch.profiler trace: named as torch names traces
    (``*.pt.trace.json[.gz]``: a damaged one then gets its own error), or by its first
    bytes."""
    from perfline.server.jobs.torch_trace_job import is_trace_name

    return bool(inputs) and all(is_trace_name(item) or is_trace_file(Path(item)) for item in inputs)


#: How many folders above the first trace's own are tried as the workspace, at most.
MAX_PARENTS = 3


def workspace_candidates(first: Path) -> list[Path]:
    """The folders tried as the workspace without ``perfline.toml``, in order (module
    docstring)."""
    found = [Path.cwd().resolve()]
    folder = first.resolve().parent
    stops = {Path(folder.anchor), Path.home().resolve()}
    for _ in range(MAX_PARENTS + 1):
        if folder in stops:
            break
        if folder not in found:
            found.append(folder)
        if (folder / ".git").exists():
            break
        folder = folder.parent
    return found


def _workspace(
    reads: Sequence[ReadTrace], first: Path
) -> tuple[Path, WorkspaceConfig, Resolution, list[str]]:
    """The workspace, its configuration, the frames' resolution onto it, and the other
    folders tried when none resolved a frame (for the error)."""
    config_path = find_config(None, str(first))
    if config_path is not None:
        config = load_config(config_path)
        root = config_path.parent
        return root, config, workspace_resolution(reads, root, config), []
    config = WorkspaceConfig()
    chosen: tuple[Path, Resolution] | None = None
    tried = workspace_candidates(first)
    for root in tried:
        resolution = workspace_resolution(reads, root, config)
        if chosen is None:
            chosen = (root, resolution)
        if any(path is not None for path in resolution.paths.values()):
            return root, config, resolution, []
    assert chosen is not None
    return chosen[0], config, chosen[1], [str(folder) for folder in tried[1:]]


def ambiguity_warnings(resolution: Resolution) -> list[str]:
    """One warning per recorded name that several workspace files end with."""
    return [
        f"the trace's frames name {name!r}, which several workspace files end with "
        f"({', '.join(paths)}): not guessed; those frames stay outside the workspace "
        "(map them with [[path_map]] in perfline.toml)"
        for name, paths in sorted(resolution.ambiguous.items())
    ]


def run_torch(
    inputs: Sequence[str],
    *,
    settings: PipelineSettings,
    cli_arguments: Sequence[str] = (),
) -> dict[str, Any]:
    """Read, attribute and post-process the traces."""
    if not inputs:
        raise InputError("perfline analyze", Problem("arguments", "expected a trace"))
    reads = [
        read_trace_file(Path(item), item, sidecar=sidecar_beside(Path(item))) for item in inputs
    ]
    root, _, resolution, also_tried = _workspace(reads, Path(inputs[0]))
    mtime = max(os.stat(item).st_mtime for item in inputs)
    raw = analyze_traces(
        reads,
        resolution.paths,
        timestamp=iso_timestamp(mtime),
        workspace=str(root),
        cli_arguments=cli_arguments,
        extra_warnings=ambiguity_warnings(resolution),
        also_tried=also_tried,
    )
    return postprocess(raw, settings, source="torch.profiler result")
