"""Where a file may be read or written: a ``Root``, and opening a path beneath it
without following a link out of it.

A confined ``Root`` is the workspace (resolved) plus the extra roots the user allowed.
A path is resolved once (``realpath``); a location outside every root is refused. The
resolved path is then opened component by component from the root's own descriptor with
``O_NOFOLLOW`` (folders with ``O_DIRECTORY``), so a link swapped in after the resolution
is never followed: the open fails instead. Links inside the workspace that stay inside
it are read through (a convention input may be a link); for writes no link is followed at
all (``writes``). ``Root.user_given()`` is the root of a path a person typed on the command
line: it is opened as given, links followed (the person named it), and only the checks on
what is opened apply (regular file, size, time). Cost: one ``realpath`` and one ``openat``
per path component.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from pathlib import Path

from perfline.core.errors import InputError

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: A folder on the way, never through a link.
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
#: A file to read: never blocking on open (a FIFO swapped in), never a controlling tty.
READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | _CLOEXEC
_ROOT_FLAGS = os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC


class Root:
    """The folders files may be read from and written to.

    ``path``: the workspace (or the folder a command writes into); ``extra``: other roots
    the user allowed (command line or user settings, never the workspace itself)."""

    def __init__(
        self, path: Path | str, extra: Sequence[Path | str] = (), *, confined: bool = True
    ) -> None:
        self.given = os.path.abspath(path)
        self.real = os.path.realpath(path)
        self.reals = (self.real, *(os.path.realpath(e) for e in extra))
        self.confined = confined

    @classmethod
    def user_given(cls, base: Path | str = ".") -> Root:
        """The root of paths a person named on the command line (relative to ``base``)."""
        return cls(base, confined=False)

    def __repr__(self) -> str:
        kind = "" if self.confined else ", user given"
        return f"Root({self.real!r}{kind})"

    @property
    def path(self) -> Path:
        """The (resolved) root folder."""
        return Path(self.real)

    def contains(self, real: str) -> bool:
        """Whether the resolved path ``real`` lies under one of the roots."""
        return self.base_of(real) is not None

    def base_of(self, real: str) -> str | None:
        """The root (resolved) that holds the resolved path ``real``, if any."""
        if not self.confined:
            return "/"
        for base in self.reals:
            if real == base or real.startswith(base.rstrip("/") + "/"):
                return base
        return None

    def absolute(self, path: Path | str) -> str:
        """``path`` made absolute against the root (an absolute path stays)."""
        return os.path.join(self.given, os.fspath(path))

    def outside(self, path: Path | str) -> str | None:
        """``None`` if ``path`` resolves inside, else where it resolves to."""
        try:
            real = os.path.realpath(self.absolute(path))
        except (OSError, ValueError):
            return str(path)
        return None if self.contains(real) else real

    def relative_parts(self, path: Path | str, source: str) -> tuple[str, list[str]]:
        """The root holding ``path`` and the components of ``path`` below it, taken as
        written (no link resolved, ``..`` refused): the form writes use."""
        absolute = os.path.normpath(self.absolute(path))
        for base in (self.given, *self.reals):
            if absolute == base:
                return _real_of(base, self), []
            prefix = base.rstrip("/") + "/"
            if absolute.startswith(prefix):
                parts = absolute[len(prefix) :].split("/")
                return _real_of(base, self), [p for p in parts if p]
        if not self.confined:
            return "/", [p for p in absolute.split("/") if p]
        raise InputError(source, f"{absolute} is outside {self.real}; perfline writes only there")


def _real_of(base: str, root: Root) -> str:
    return root.real if base == root.given else base


def refused_outside(source: str, real: str) -> InputError:
    return InputError(
        source,
        f"the file resolves outside the workspace (to {real}); perfline reads only files "
        "inside it (or inside a root the user settings allow)",
    )


def open_file(root: Root, path: Path | str, source: str, flags: int = READ_FLAGS) -> int:
    """A descriptor of the file ``path`` opened for reading (see the module docstring);
    ``InputError`` naming ``source`` when it is missing, a dangling link, a link loop,
    outside the root, or cannot be opened."""
    absolute = root.absolute(path)
    try:
        if not root.confined:
            return os.open(absolute, flags)
        real = os.path.realpath(absolute)
        base = root.base_of(real)
        if base is None:
            raise refused_outside(source, real)
        parts = [p for p in real[len(base) :].split("/") if p]
        return open_beneath(base, parts, flags)
    except OSError as error:
        raise open_error(source, absolute, error) from None
    except ValueError:  # a NUL in the path
        raise InputError(source, "the path contains a NUL character") from None


def open_beneath(base: str, parts: Sequence[str], flags: int) -> int:
    """Open ``base/parts...`` walking from ``base``'s descriptor, never through a link
    (``OSError`` ``ELOOP``/``ENOTDIR`` when a component is one)."""
    if not parts:
        return os.open(base, flags)
    folder = open_folder(base, parts[:-1])
    try:
        return os.open(parts[-1], flags | os.O_NOFOLLOW, dir_fd=folder)
    finally:
        os.close(folder)


def open_folder(base: str, parts: Sequence[str]) -> int:
    """A descriptor of the folder ``base/parts...``, no component followed if a link."""
    folder = os.open(base, _ROOT_FLAGS)
    try:
        for part in parts:
            inner = os.open(part, DIR_FLAGS, dir_fd=folder)
            os.close(folder)
            folder = inner
    except BaseException:
        os.close(folder)
        raise
    return folder


def open_error(source: str, absolute: str, error: OSError) -> InputError:
    """The ``InputError`` of a failed open of ``absolute``."""
    if error.errno == errno.ENOENT:
        if os.path.islink(absolute):
            return InputError(source, "the input is a dangling symbolic link")
        return InputError(source, "the input file does not exist")
    if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        if runs_into_loop(absolute):
            return InputError(source, "the input is a symbolic link loop")
        return InputError(
            source,
            "the path changed while it was opened (a symbolic link or a file where a folder "
            "was); not followed",
        )
    if error.errno == errno.ENAMETOOLONG:
        return InputError(source, "the path is too long")
    return InputError(source, f"cannot open the file: {error.strerror or error}")


def runs_into_loop(path: str) -> bool:
    """Whether resolving ``path`` meets a symbolic link loop."""
    try:
        os.stat(path)
    except OSError as error:
        return error.errno == errno.ELOOP
    except ValueError:
        return False
    return False
