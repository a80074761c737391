"""Which workspace file each file a trace's frames name is.

torch writes a frame's file with its ``sys.path`` prefix removed (``model.py``,
``pkg/model.py``, ``torch/nn/modules/linear.py``), so a recorded name is the *end* of a path.
Given the workspace's Python files (workspace-relative POSIX paths), a name resolves, first
hit wins, to:

1. a ``[[path_map]]`` entry's target: a name starting with the entry's ``from`` is looked up
   under its ``to``;
2. the name under a source root (``source_roots``, default the workspace itself);
3. an absolute name inside the workspace;
4. for a relative name, the only workspace file whose path ends with the whole name
   (``src/pkg/model.py`` for ``pkg/model.py``): never a file that merely shares the last
   component; for an absolute name from another machine (a statement sidecar's
   ``/home/ci/ws/pkg/model.py``), the workspace file that is the longest end of it
   (``pkg/model.py``); nothing when two files tie (ambiguous names are returned for a
   warning).

Names inside ``site-packages``/``dist-packages`` or a Python installation's ``lib/pythonX.Y``,
and workspace files there, are never taken.
Unresolved names are library frames (torch, the standard library, installed packages) or
files outside the workspace. Pure: the file list is the caller's; cost: one pass over the
files per name's last component (an index by file name).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from typing import Final

from perfline.core.workspace_config import PathMap

_LIBRARY_MARKERS: Final = ("/site-packages/", "/dist-packages/")
#: An installed Python's standard library (``/usr/lib/python3.11/typing.py``).
_PYTHON_LIB: Final = re.compile(r"/lib/python\d[^/]*/")


class Resolution:
    """Recorded name -> workspace path (``None``: not in the workspace), and the names that
    several workspace files end with."""

    __slots__ = ("ambiguous", "paths")

    def __init__(self) -> None:
        self.paths: dict[str, str | None] = {}
        self.ambiguous: dict[str, list[str]] = {}


def is_library(path: str) -> bool:
    """A path inside ``site-packages``/``dist-packages`` or an installed Python's library."""
    text = "/" + path.lstrip("/")
    return any(marker in text for marker in _LIBRARY_MARKERS) or bool(_PYTHON_LIB.search(text))


def resolve_names(
    names: Iterable[str],
    files: Iterable[str],
    *,
    root: str,
    path_maps: Sequence[PathMap] = (),
    source_roots: Sequence[str] = (".",),
) -> Resolution:
    """Resolve each recorded name (see the module docstring); ``root`` is the workspace's
    absolute path (for absolute names)."""
    present = {f for f in files if not is_library(f)}
    by_name: dict[str, list[str]] = {}
    for path in present:
        by_name.setdefault(path.rpartition("/")[2], []).append(path)
    found = Resolution()
    root = root.rstrip("/")
    for name in names:
        recorded = name.replace("\\", "/")
        if is_library(recorded):
            found.paths[name] = None
            continue
        found.paths[name] = _direct(recorded, present, root, path_maps, source_roots)
        if found.paths[name] is not None:
            continue
        candidates = by_name.get(recorded.rpartition("/")[2], [])
        if recorded.startswith("/"):
            ends = [path for path in candidates if recorded.endswith("/" + path)]
            longest = max((path.count("/") for path in ends), default=-1)
            matches = sorted(path for path in ends if path.count("/") == longest)
        else:
            suffix = "/" + recorded.removeprefix("./")
            matches = sorted(path for path in candidates if ("/" + path).endswith(suffix))
        if len(matches) == 1:
            found.paths[name] = matches[0]
        elif matches:
            found.ambiguous[name] = matches
    return found


def _direct(
    recorded: str,
    present: set[str],
    root: str,
    path_maps: Sequence[PathMap],
    source_roots: Sequence[str],
) -> str | None:
    for mapping in path_maps:
        prefix = mapping.source.replace("\\", "/").rstrip("/")
        if recorded == prefix or recorded.startswith(prefix + "/"):
            candidate = _inside(posixpath.join(mapping.target, recorded[len(prefix) :].lstrip("/")))
            if candidate in present:
                return candidate
    if recorded.startswith("/"):
        if recorded.startswith(root + "/"):
            candidate = _inside(recorded[len(root) + 1 :])
            return candidate if candidate in present else None
        return None
    for source_root in source_roots:
        candidate = _inside(posixpath.join(source_root, recorded))
        if candidate in present:
            return candidate
    return None


def _inside(path: str) -> str | None:
    """``path`` normalised, or ``None`` when it leaves the workspace."""
    normal = posixpath.normpath(path)
    if normal.startswith("../") or normal == ".." or normal.startswith("/"):
        return None
    return normal
