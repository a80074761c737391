"""The source texts a comparison needs: what a result's lines refer to, and line maps.

* ``capture``: the texts of the workspace files a job's result annotates, read (bounded,
  inside the workspace) when the result arrives, and the workspace file each recorded
  path of its code lines resolved to. A baseline set from this result keeps them; a new
  result is compared with the baseline through them.
* ``configured_manifest``: for a ``perfline.toml`` baseline, the texts kept under
  ``.perfline/baselines/configured/<digest>/`` the first time that content is seen
  (taken from the current result's texts, paired with the baseline's recorded files by
  path suffix as ``core.compare.align`` pairs them).
* ``line_maps``: for each source file whose text changed since the baseline, the mapping
  of the baseline's lines onto the current result's (``core.compare.line_map``).

Cost: one bounded read per annotated file per result; ``map_lines`` per changed file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfline.core.compare.align import pair_files, source_files
from perfline.core.compare.line_map import LineMapping, identical, map_lines
from perfline.core.errors import InputError
from perfline.server.baselines import baseline_store
from perfline.server.scheduler.boundary import WorkspaceBoundary
from perfline.server.scheduler.bounded_reads import InputLimits, read_input
from perfline.server.view.engine_surface import ResultView


@dataclass(frozen=True)
class Captured:
    """The source texts of one result: workspace-relative path -> text, and each recorded
    path of its code lines -> the workspace-relative path it resolved to."""

    generation: int
    texts: Mapping[str, str]
    recorded: Mapping[str, str]


def capture(
    root: Path, boundary: WorkspaceBoundary, limits: InputLimits, good: ResultView
) -> Captured:
    """The texts of the files ``good`` annotates (see the module docstring)."""
    texts: dict[str, str] = {}
    recorded: dict[str, str] = {}
    for file, lines in good.index.lines.items():
        relative = _inside(root, boundary, file)
        if relative is None:
            continue
        for entries in lines.values():
            for entry in entries:
                recorded.setdefault(entry.facts.recorded_file, relative)
        try:
            data = read_input(Path(file), relative, limits, boundary).data
        except InputError:
            continue
        texts[relative] = data.decode("utf-8", errors="replace")
    return Captured(good.generation, texts, recorded)


def configured_manifest(
    root: Path,
    limits: InputLimits,
    digest: str,
    document: Mapping[str, Any],
    captured: Captured,
) -> baseline_store.Manifest:
    """The texts kept for a perfline.toml baseline of this content: read, or kept now."""
    folder = baseline_store.configured_folder(root, digest)
    manifest = baseline_store.read_manifest(root, folder, limits)
    if manifest is not None:
        return manifest
    base_files = [f for r in document.get("results", ()) for f in source_files(r)]
    paired = pair_files(base_files, captured.recorded)
    sources = {
        base: captured.recorded[new] for base, new in paired.items() if new in captured.recorded
    }
    texts = {rel: captured.texts[rel] for rel in sources.values() if rel in captured.texts}
    content = {
        "perfline_baseline": baseline_store.FORMAT,
        "job": "",
        "origin": "perfline.toml",
        "set_at": baseline_store.now_iso(),
        "digest": digest,
        "sources": sources,
    }
    baseline_store.write_baseline(root, folder, content, None, texts)
    written = baseline_store.read_manifest(root, folder, limits)
    if written is None:
        raise baseline_store.StoreError(f"{folder}: the manifest just written cannot be read back")
    return written


def line_maps(
    root: Path, limits: InputLimits, manifest: baseline_store.Manifest, captured: Captured
) -> tuple[dict[str, LineMapping], list[str]]:
    """Base recorded file -> line mapping for each file changed since the baseline, and
    those files (workspace-relative)."""
    maps: dict[str, LineMapping] = {}
    mapped: list[str] = []
    for recorded, relative in sorted(manifest.sources.items()):
        new_text = captured.texts.get(relative)
        old_text = baseline_store.read_source(root, manifest, relative, limits)
        if new_text is None or old_text is None or identical(old_text, new_text):
            continue
        maps[recorded] = map_lines(old_text, new_text)
        if relative not in mapped:
            mapped.append(relative)
    return maps, mapped


def _inside(root: Path, boundary: WorkspaceBoundary, file: str) -> str | None:
    """The workspace-relative path of an indexed file inside the workspace, else None."""
    path = Path(file)
    if not path.is_absolute() or boundary.outside(path) is not None:
        return None
    real = os.path.realpath(path)
    top = os.path.realpath(root)
    if not real.startswith(top.rstrip("/") + "/"):
        return None
    return Path(real).relative_to(top).as_posix()
