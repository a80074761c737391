"""The I/O edge of the torch.profiler backend, shared by the CLI and the daemon.

* ``sidecar_beside``: the statement sidecar ``perfline profile`` wrote beside a trace
  (``NAME.perfline.json``), read and checked;
* ``read_trace_file``: a trace file streamed in 1 MiB chunks through the guarded file access
  (``perfline.server.file_access.open_stream``; the core decompresses a gzip stream, bounded);
* ``is_trace_file``: whether a file's first bytes are a torch.profiler trace (routing);
* ``workspace_resolution``: the workspace's Python files listed (the one directory walk) and
  the traces' recorded file names resolved onto them (``core.backends.torch_profiler
  .resolution``, with ``path_map`` and ``source_roots`` of ``perfline.toml``).

Cost: the reads and one walk of the workspace.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from perfline.core.backends.torch_profiler.detect import HEAD_BYTES, looks_like_trace
from perfline.core.backends.torch_profiler.document import ReadTrace, read_trace, trace_files
from perfline.core.backends.torch_profiler.resolution import Resolution, resolve_names
from perfline.core.backends.torch_profiler.sidecar import Sidecar, read_sidecar, sidecar_name
from perfline.core.errors import InputError
from perfline.core.workspace_config import WorkspaceConfig
from perfline.server.file_access import Root, open_stream, read_bytes
from perfline.server.workspace import python_files, scan_files

CHUNK_BYTES = 1024 * 1024
TRACE_KIND = "trace"


def _chunks(path: Path, root: Root, shown: str) -> Iterator[bytes]:
    with open_stream(path, root=root, kind=TRACE_KIND, source=shown, gzip=False) as stream:
        while chunk := stream.read(CHUNK_BYTES):
            yield chunk


def sidecar_beside(path: Path, root: Root | None = None) -> Sidecar | None:
    """The statement sidecar ``perfline profile`` wrote beside the trace, if there is one."""
    candidate = path.with_name(sidecar_name(path.name))
    if not os.path.lexists(candidate):
        return None
    shown = str(candidate)
    data = read_bytes(candidate, root=root or Root.user_given(), kind="json", source=shown)
    return read_sidecar(data, shown)


def read_trace_file(
    path: Path, shown: str, root: Root | None = None, *, sidecar: Sidecar | None = None
) -> ReadTrace:
    """One trace file, decoded and attributed (errors name ``shown``), at statement level
    when ``sidecar`` is given."""
    return read_trace(
        _chunks(path, root or Root.user_given(), shown),
        shown,
        sidecar=sidecar,
        trace_name=path.name,
    )


def is_trace_file(path: Path, root: Root | None = None) -> bool:
    """Whether ``path`` is a regular file whose first bytes start a torch.profiler trace."""
    try:
        with open_stream(
            path, root=root or Root.user_given(), kind=TRACE_KIND, source=str(path), gzip=False
        ) as stream:
            head = stream.read(HEAD_BYTES)
    except InputError:
        return False
    return looks_like_trace(head)


def workspace_resolution(
    reads: Sequence[ReadTrace], root: Path, config: WorkspaceConfig
) -> Resolution:
    """The traces' recorded files resolved onto the Python files under ``root``."""
    files = python_files(scan_files(root, config.ignore)) if root.is_dir() else []
    return resolve_names(
        trace_files(reads),
        files,
        root=str(root.resolve()),
        path_maps=config.path_maps,
        source_roots=config.source_roots,
    )
