"""Reading a baseline document: inside the workspace, bounded, a standardized document.

``read_baseline(path, ...)`` refuses a path that resolves outside the workspace (and the
roots the user allowed), reads it through ``bounded_reads`` (a regular file under the
size limit of JSON inputs, never a blocking open), parses it, checks that it is a
standardized-output document (an object with ``schema_version`` and ``results``) and
post-processes it when it is not yet processed (``core.pipeline``, as ``perfline
compare`` does). Every refusal is a ``BaselineUnusable`` whose message names the file
and what was expected. ``BaselineCache`` keeps the last document per path while the
file's identity (device, inode, size, mtime, ctime) is unchanged.
Cost: one ``stat``; for new content, the read, a SHA-256, the parse and the pipeline.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfline.core.errors import InputError
from perfline.core.pipeline import is_postprocessed, postprocess
from perfline.server.scheduler.boundary import WorkspaceBoundary
from perfline.server.scheduler.bounded_reads import InputLimits, file_key, read_input


class BaselineUnusable(Exception):
    """The baseline cannot be used; ``message`` says why, naming the file."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class BaselineDocument:
    """A baseline read and processed: ``label`` is how messages name it."""

    label: str
    digest: str
    document: Mapping[str, Any]
    key: tuple[int, int, int, int, int]


def read_baseline(
    path: Path, label: str, boundary: WorkspaceBoundary, limits: InputLimits
) -> BaselineDocument:
    """The processed baseline document at ``path`` (see the module docstring)."""
    outside = boundary.outside(path)
    if outside is not None:
        raise BaselineUnusable(
            f"the baseline {label} resolves outside the workspace (to {outside}); not read"
        )
    if not os.path.lexists(path):
        raise BaselineUnusable(f"the baseline {label} does not exist")
    try:
        read = read_input(path, label, limits, boundary)
    except InputError as error:
        raise BaselineUnusable(f"the baseline {_problems(error)}") from None
    try:
        raw = json.loads(read.data)
    except (ValueError, UnicodeDecodeError) as error:
        raise BaselineUnusable(
            f"the baseline {label} is not JSON ({error}); expected a standardized-output "
            "document such as mlia-output.json"
        ) from None
    if not isinstance(raw, dict) or "schema_version" not in raw or "results" not in raw:
        raise BaselineUnusable(
            f"the baseline {label} is not a standardized-output document (expected a JSON "
            "object with schema_version and results, such as mlia-output.json)"
        )
    try:
        document = raw if is_postprocessed(raw) else postprocess(raw, source=label)
    except InputError as error:
        raise BaselineUnusable(f"the baseline {_problems(error)}") from None
    digest = hashlib.sha256(read.data).hexdigest()
    return BaselineDocument(label, digest, document, read.key)


def _problems(error: InputError) -> str:
    text = str(error)
    return text if len(text) <= 600 else text[:600] + " ..."


class BaselineCache:
    """The last baseline read per path, reused while the file is unchanged."""

    def __init__(self) -> None:
        self._kept: dict[Path, BaselineDocument] = {}

    def read(
        self, path: Path, label: str, boundary: WorkspaceBoundary, limits: InputLimits
    ) -> BaselineDocument:
        kept = self._kept.get(path)
        if kept is not None:
            try:
                if file_key(os.stat(path)) == kept.key and boundary.outside(path) is None:
                    return kept
            except OSError:
                pass
        self._kept.pop(path, None)
        found = read_baseline(path, label, boundary, limits)
        self._kept[path] = found
        return found

    def forget(self, path: Path) -> None:
        self._kept.pop(path, None)
