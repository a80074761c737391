"""Resolving the file paths recorded in stack traces onto workspace files.

A trace records where the model ran (``/home/dev/kws/dscnn.py``); the editor
has the workspace's copy. Resolution order, first hit wins:

1. ``[[path_map]]`` entries: a recorded path starting with ``from`` is
   rewritten under ``to`` (relative to the workspace);
2. a relative path is looked up under each source root;
3. an absolute path inside the workspace is taken as is;
4. a unique path-suffix match against the workspace's Python files (longest
   suffix wins; ties leave the path unresolved). A match on the file name alone
   is taken only for a file at the workspace root: a workspace file in a folder
   must match the recorded path's folder too, so ``encoder/layers.py`` is never
   taken for a recorded ``.../decoder/layers.py`` (two files that share a name
   are two files; no guess).

Library frames (``site-packages``, ``dist-packages``) are never resolved, and
no candidate is taken unless it resolves (symlinks followed) inside the
workspace or a root the user allowed (``contains``); symbolic link loops resolve
to nothing. Results are cached per recorded path; ``PathResolver`` is rebuilt
when the workspace's file list or config changes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PurePosixPath

from perfline.core.workspace_config import PathMap

_LIBRARY_MARKERS = ("/site-packages/", "/dist-packages/")


class PathResolver:
    """Maps recorded paths to absolute workspace paths (or ``None``)."""

    def __init__(
        self,
        root: Path,
        path_maps: Sequence[PathMap],
        source_roots: Sequence[str],
        python_files: Iterable[str],
        contains: Callable[[str], bool] | None = None,
    ) -> None:
        self.root = root
        self._contains = contains or self._under_root
        self.path_maps = tuple(path_maps)
        self.source_roots = tuple(source_roots) or (".",)
        self._files = {f for f in python_files}
        self._by_name: dict[str, list[str]] = {}
        for rel in self._files:
            self._by_name.setdefault(rel.rsplit("/", 1)[-1], []).append(rel)
        self._cache: dict[str, Path | None] = {}

    @property
    def python_files(self) -> frozenset[str]:
        """The workspace's Python files (workspace-relative POSIX paths) it resolves onto."""
        return frozenset(self._files)

    def resolve(self, recorded: str) -> Path | None:
        if recorded in self._cache:
            return self._cache[recorded]
        result = self._resolve(recorded)
        self._cache[recorded] = result
        return result

    def _under_root(self, real: str) -> bool:
        root = str(self.root)
        return real == root or real.startswith(root.rstrip("/") + "/")

    def _inside(self, candidate: Path) -> Path | None:
        try:
            real = os.path.realpath(candidate)
            if not self._contains(real) or not os.path.isfile(real):
                return None
        except (OSError, ValueError):
            return None
        return Path(real)

    def _resolve(self, recorded: str) -> Path | None:
        path = recorded.replace("\\", "/")
        if any(marker in path for marker in _LIBRARY_MARKERS):
            return None
        for mapping in self.path_maps:
            prefix = mapping.source
            if path == prefix.rstrip("/") or path.startswith(prefix.rstrip("/") + "/"):
                rest = path[len(prefix.rstrip("/")) :].lstrip("/")
                found = self._inside(self.root / mapping.target / rest)
                if found is not None:
                    return found
        if not PurePosixPath(path).is_absolute() and not _is_windows_absolute(path):
            for source_root in self.source_roots:
                found = self._inside(self.root / source_root / path)
                if found is not None:
                    return found
        else:
            found = self._inside(Path(path)) if PurePosixPath(path).is_absolute() else None
            if found is not None:
                return found
        return self._by_suffix(path)

    def _by_suffix(self, path: str) -> Path | None:
        parts = [p for p in path.split("/") if p and not p.endswith(":")]
        if not parts:
            return None
        candidates = self._by_name.get(parts[-1], [])
        best: list[tuple[int, str]] = []
        for rel in candidates:
            rel_parts = rel.split("/")
            common = 0
            while (
                common < len(rel_parts)
                and common < len(parts)
                and rel_parts[-1 - common] == parts[-1 - common]
            ):
                common += 1
            if common < min(2, len(rel_parts)):
                continue  # the name matches, the folder does not: another file
            best.append((common, rel))
        if not best:
            return None
        best.sort(reverse=True)
        if len(best) > 1 and best[0][0] == best[1][0]:
            return None
        return self._inside(self.root / best[0][1])


def _is_windows_absolute(path: str) -> bool:
    return len(path) > 2 and path[1] == ":" and path[2] == "/"
