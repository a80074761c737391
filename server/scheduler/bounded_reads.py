"""Reading a job input: the names the engine has used since before the guarded file
access, now a thin layer over ``perfline.server.file_access``.

``read_input(path, source, limits, root)`` is ``file_access.read_file`` of an input (its
kind from its name): regular files only, inside ``root`` (the workspace and the roots
the user allowed; without one, the path as given), bounded by the bytes read, on a timed
worker. ``InputLimits`` is ``file_access.Limits``, ``ReadFile`` is ``file_access.FileRead``.
Cost: that of ``file_access.read_file``.
"""

from __future__ import annotations

from pathlib import Path

from perfline.server.file_access import (
    DEFAULT_LIMITS,
    DEFAULT_READ_SECONDS,
    SOURCE_LIMITS,
    FileRead,
    Limits,
    Root,
    file_key,
    input_kind,
    read_file,
    read_text,
)

InputLimits = Limits
ReadFile = FileRead

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_READ_SECONDS",
    "SOURCE_LIMITS",
    "InputLimits",
    "ReadFile",
    "file_key",
    "input_kind",
    "read_input",
    "read_source_text",
]


def read_input(path: Path, source: str, limits: InputLimits, root: Root | None = None) -> ReadFile:
    """The bytes of the regular file ``path`` (``source``: its name in errors)."""
    return read_file(
        path,
        root=root if root is not None else Root.user_given(),
        kind=input_kind(source),
        limits=limits,
        source=source,
    )


def read_source_text(path: Path, root: Root | None = None) -> str:
    """The text of a source file to answer a request (regular files only, bounded: a FIFO
    or ``/dev/zero`` named by a client cannot block or exhaust the daemon); undecodable
    bytes replaced. ``InputError`` when it cannot be read."""
    return read_text(
        path,
        root=root if root is not None else Root.user_given(),
        kind="source",
        limits=SOURCE_LIMITS,
    )
