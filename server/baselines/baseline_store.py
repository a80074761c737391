"""The ``.perfline/baselines/`` folder of a workspace: baselines and their source texts.

perfline never reads this folder as input (``server.workspace.IGNORED_DIRS`` holds
``.perfline``: the scanner and the watchers skip it), so a stored document is never
discovered as a job. Layout::

    .perfline/baselines/<job>/baseline.json      manifest (below)
    .perfline/baselines/<job>/mlia-output.json   the processed document (set from the editor)
    .perfline/baselines/<job>/sources/<path>     the source texts its lines refer to
    .perfline/baselines/configured/<digest>/...  for a perfline.toml baseline of that content:
                                                 its manifest and source texts only

The manifest: ``{"perfline_baseline": 1, "job", "origin": "command" | "perfline.toml",
"set_at" (ISO 8601, UTC), "generation", "document" (file name, for a command
baseline), "sources": {recorded path: workspace-relative path}}``. ``<job>`` is the job
name where it is a safe file name, else a cleaned form with a hash of the name.

A baseline folder is written whole into a new folder of a fresh random name beside it
(``.tmp-<job>-<random>``, made by ``file_access.new_folder``: never a planted folder or
link of that name) and renamed into place (the old one renamed away to a fresh name too,
then removed), so a reader sees the old baseline or the new one, never a mix. Every write
goes through ``file_access`` under the workspace: a folder on the way that is a symbolic
link (``.perfline`` linked out of the workspace, a planted ``sources/...`` link) is
refused, nothing is written outside the workspace. Files are read back through
``file_access`` under the workspace too. Cost: one write (or read) per file.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from perfline.core.errors import InputError
from perfline.server.file_access import Root, new_folder, remove_tree, rename, write_text
from perfline.server.scheduler.bounded_reads import InputLimits, read_input

FOLDER: Final = Path(".perfline") / "baselines"
MANIFEST: Final = "baseline.json"
DOCUMENT: Final = "mlia-output.json"
SOURCES: Final = "sources"
CONFIGURED: Final = "configured"
FORMAT: Final = 1

_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,80}$")


class StoreError(Exception):
    """The baseline folder cannot be written or read; the message says why."""


@dataclass(frozen=True)
class Manifest:
    """A stored baseline's manifest (``folder`` absolute)."""

    folder: Path
    job: str
    origin: str
    set_at: str | None
    generation: int | None
    document: str | None
    sources: Mapping[str, str]

    @property
    def document_path(self) -> Path | None:
        return self.folder / self.document if self.document else None


def job_folder_name(job: str) -> str:
    """A file name for ``job``: the name itself when safe, else cleaned plus a hash."""
    if _SAFE.match(job) and job != CONFIGURED:
        return job
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", job).strip("._-")[:60] or "job"
    return f"{cleaned}-{hashlib.sha256(job.encode('utf-8')).hexdigest()[:10]}"


def job_folder(root: Path, job: str) -> Path:
    return root / FOLDER / job_folder_name(job)


def configured_folder(root: Path, digest: str) -> Path:
    return root / FOLDER / CONFIGURED / digest[:16]


def now_iso() -> str:
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat()


def write_baseline(
    root: Path,
    folder: Path,
    manifest: Mapping[str, Any],
    document: Mapping[str, Any] | None,
    texts: Mapping[str, str],
) -> None:
    """Write a baseline folder whole (``texts``: workspace-relative path -> source text)."""
    files = Root(root)
    staging: Path | None = None
    try:
        staging = new_folder(folder.parent, f".tmp-{folder.name[:80]}-", root=files)
        for relative, text in texts.items():
            if _relative_inside(relative):
                write_text(staging / SOURCES / relative, text, root=files, parents=True)
        if document is not None:
            encoded = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
            write_text(staging / DOCUMENT, encoded, root=files)
        text = json.dumps(dict(manifest), indent=2, ensure_ascii=False) + "\n"
        write_text(staging / MANIFEST, text, root=files)
        _swap_in(files, staging, folder)
    except InputError as error:
        if staging is not None:
            with contextlib.suppress(InputError):
                remove_tree(staging, root=files)
        raise StoreError(f"cannot write the baseline to {folder}: {error}") from None


def _swap_in(files: Root, staging: Path, folder: Path) -> None:
    """Rename ``staging`` to ``folder``, the old folder renamed away first, then removed."""
    if not os.path.lexists(folder):
        rename(staging, folder, root=files)
        return
    old = new_folder(folder.parent, f".old-{folder.name[:80]}-", root=files)
    rename(folder, old, root=files)  # over the new, empty folder
    rename(staging, folder, root=files)
    remove_tree(old, root=files)


def remove(root: Path, folder: Path) -> bool:
    """Remove a baseline folder; whether there was one (a link there is removed, never
    followed)."""
    try:
        return remove_tree(folder, root=Root(root))
    except InputError as error:
        raise StoreError(f"cannot remove {folder}: {error}") from None


def read_manifest(root: Path, folder: Path, limits: InputLimits) -> Manifest | None:
    """The manifest of a baseline folder (``None``: no such baseline)."""
    path = folder / MANIFEST
    if not os.path.lexists(path):
        return None
    data = _json(root, path, limits)
    sources = data.get("sources")
    if not isinstance(sources, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in sources.items()
    ):
        raise StoreError(f"{path}: 'sources' must map recorded paths to workspace paths")
    generation = data.get("generation")
    document = data.get("document")
    set_at = data.get("set_at")
    return Manifest(
        folder=folder,
        job=str(data.get("job", "")),
        origin=str(data.get("origin", "command")),
        set_at=set_at if isinstance(set_at, str) else None,
        generation=generation if isinstance(generation, int) else None,
        document=document if isinstance(document, str) and _plain_name(document) else None,
        sources=dict(sources),
    )


def read_source(root: Path, manifest: Manifest, relative: str, limits: InputLimits) -> str | None:
    """A stored source text (``None`` when absent or not a plain relative path)."""
    if not _relative_inside(relative):
        return None
    path = manifest.folder / SOURCES / relative
    if not path.is_file():
        return None
    try:
        read = read_input(path, str(path), limits, Root(root))
        return read.data.decode("utf-8", errors="replace")
    except InputError:
        return None


def _json(root: Path, path: Path, limits: InputLimits) -> dict[str, Any]:
    try:
        data = json.loads(read_input(path, str(path), limits, Root(root)).data)
    except InputError as error:
        raise StoreError(str(error)) from None
    except ValueError as error:
        raise StoreError(f"{path}: not JSON ({error})") from None
    if not isinstance(data, dict) or data.get("perfline_baseline") != FORMAT:
        raise StoreError(f"{path}: not a perfline baseline manifest (format {FORMAT})")
    return data


def _plain_name(name: str) -> bool:
    return "/" not in name and "\\" not in name and name not in ("", ".", "..")


def _relative_inside(relative: str) -> bool:
    parts = Path(relative).parts
    return bool(parts) and not Path(relative).is_absolute() and ".." not in parts
