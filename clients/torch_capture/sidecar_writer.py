"""The sidecar file the capture helper writes next to a trace: statement-level stacks keyed by
the trace's ``External id`` (schema: /docs/guide.md "perfline profile", read back by
``perfline.core.backends.torch_profiler.sidecar``).

Runs inside the user's Python (standard library only). Cost: one hash of the trace file (read
in 1 MiB pieces) and one small JSON document.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from typing import Any

from .event_tree import Frame, StatementStacks

SIDECAR_SUFFIX = ".perfline.json"
SIDECAR_VERSION = 1


def sidecar_path(trace_path: str) -> str:
    """Where the sidecar of a trace file lives."""
    return trace_path + SIDECAR_SUFFIX


def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while piece := stream.read(1 << 20):
            digest.update(piece)
    return digest.hexdigest()


def sidecar_document(
    trace_path: str,
    torch_version: str,
    steps: dict[str, Any],
    found: StatementStacks | None,
    reason: str | None,
    resolved: dict[str, str],
) -> dict[str, Any]:
    """The sidecar as a JSON-ready dict: statement level when ``found``, else function level
    with ``reason``."""
    document: dict[str, Any] = {
        "perfline_torch_sidecar": SIDECAR_VERSION,
        "trace": {
            "file": os.path.basename(trace_path),
            "sha256": file_sha256(trace_path),
            "bytes": os.path.getsize(trace_path),
        },
        "level": "statement" if found is not None else "function",
    }
    if found is None:
        document["reason"] = reason or "the event tree was not read"
    document["torch"] = torch_version
    document["python"] = platform.python_version()
    document["steps"] = steps
    files: list[str] = []
    file_index: dict[str, int] = {}
    stacks: list[list[list[Any]]] = []
    for stack in found.stacks if found is not None else []:
        stacks.append([_frame_json(frame, files, file_index, resolved) for frame in stack])
    document["files"] = files
    document["stacks"] = stacks
    ops = found.ops.items() if found is not None else []
    document["ops"] = [[op, at, name] for op, (at, name) in sorted(ops)]
    return document


def _frame_json(
    frame: Frame, files: list[str], file_index: dict[str, int], resolved: dict[str, str]
) -> list[Any]:
    name, line, function, entry = frame
    path = resolved.get(name, name)
    at = file_index.get(path)
    if at is None:
        at = len(files)
        file_index[path] = at
        files.append(path)
    return [at, line, function, "entry"] if entry else [at, line, function]


def write_sidecar(trace_path: str, document: dict[str, Any]) -> str:
    """Write the sidecar next to the trace (compact JSON); returns its path."""
    path = sidecar_path(trace_path)
    with open(path, "w", encoding="utf-8") as stream:
        json.dump(document, stream, separators=(",", ":"))
        stream.write("\n")
    return path
