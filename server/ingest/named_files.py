"""Reading a file a command or a job names, through ``perfline.server.file_access``.

``read_named(path, what)`` is ``file_access.read_file`` with the messages of the commands
(``no such ETDump file``, ``is not a regular file (expected the ETDump)``) and the root
in force: the CLI reads the paths a person typed as given (``Root.user_given()``); a
daemon job wraps its backend in ``reading_under(context.files)`` so every file a backend
reads by path (the capture folder's files, the estimator's outputs) stays inside the
workspace and the roots the user allowed. The root travels in a context variable: one
per thread, so concurrent runs never see each other's. Cost: that of ``read_file``.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator
from pathlib import Path

from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.errors import InputError
from perfline.server.file_access import FileRead, Root, read_file

_ROOT: contextvars.ContextVar[Root | None] = contextvars.ContextVar("perfline_ingest_root")


@contextlib.contextmanager
def reading_under(root: Root | None) -> Iterator[None]:
    """Every ``read_named`` in the block reads under ``root`` (``None``: as given)."""
    token = _ROOT.set(root)
    try:
        yield
    finally:
        _ROOT.reset(token)


def root_in_force() -> Root:
    """The root ``read_named`` reads under now."""
    found = _ROOT.get(None)
    return found if found is not None else Root.user_given()


def read_named(path: Path, what: str, *, kind: str | None = None) -> FileRead:
    """The bytes of the file ``path`` (``what``: how messages name it, ``"ETDump"``;
    empty: a file)."""
    root = root_in_force()
    source = str(path)
    if not os.path.lexists(root.absolute(path)):
        raise InputError(source, f"no such {what} file" if what else "no such file")
    try:
        return read_file(path, root=root, kind=kind, source=source)
    except InputError:
        if os.path.isdir(root.absolute(path)):
            expected = f" (expected the {what})" if what else ""
            raise InputError(source, f"is not a regular file{expected}") from None
        raise


def read_input_file(path: Path, what: str, *, kind: str | None = None) -> tuple[InputFile, float]:
    """The file as an ``InputFile`` (its path and bytes) and its modification time."""
    read = read_named(path, what, kind=kind)
    return InputFile(str(path), read.data), read.mtime
