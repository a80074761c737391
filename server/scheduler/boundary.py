"""The workspace boundary: which real paths the daemon may read.

Inputs and path maps named in ``perfline.toml``, convention inputs (which may be
symlinks) and client-given paths must resolve, after following symlinks, inside the
workspace root or one of the extra roots the user allowed (command line or user
settings only: never the workspace itself). ``WorkspaceBoundary`` is the
``file_access.Root`` of those folders: the engine reads through it.
``resolve_client_path`` is the one helper for paths sent by clients: length-limited,
NUL and loops refused, then resolved once (linear in the path's length).
Cost: one ``realpath`` per path.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from perfline.server.file_access import Root
from perfline.server.file_access.roots import runs_into_loop

#: The longest client-given path accepted (Linux's PATH_MAX).
MAX_PATH_LENGTH = 4096


class PathRefused(ValueError):
    """A client-given path that cannot be used; the message says why."""


class PathOutside(PathRefused):
    """A client-given path that resolves outside the workspace (and the allowed roots)."""


class WorkspaceBoundary(Root):
    """The workspace root and the extra roots allowed by the user, resolved: the
    ``file_access.Root`` every read of the engine goes through."""

    def __init__(self, root: Path, allowed_roots: Sequence[Path | str] = ()) -> None:
        super().__init__(root, allowed_roots)

    @property
    def root(self) -> str:
        """The workspace, resolved."""
        return self.real

    @property
    def roots(self) -> tuple[str, ...]:
        """The workspace and the allowed roots, resolved."""
        return self.reals

    def resolve_client_path(self, text: str) -> Path:
        """The real path of a client-given path inside the boundary (relative paths are
        taken from the workspace root), or ``PathRefused``."""
        if len(text) > MAX_PATH_LENGTH:
            raise PathRefused(f"the path is longer than {MAX_PATH_LENGTH} characters")
        if "\x00" in text:
            raise PathRefused("the path contains a NUL character")
        if not text:
            raise PathRefused("the path is empty")
        joined = os.path.join(self.root, text)
        real = os.path.realpath(joined)
        if runs_into_loop(real):
            raise PathRefused(f"the path {text!r} runs into a symbolic link loop")
        if not self.contains(real):
            raise PathOutside(f"the path {text!r} is outside the workspace")
        return Path(real)
