"""Writing files and folders under a root, never through a link.

Every write goes to a fresh file of a random name (``.NAME.<random>.tmp``) created with
``O_CREAT | O_EXCL | O_NOFOLLOW`` in the target's folder (a planted link or file of that
name is never opened: another name is drawn), is given the replaced file's permissions
(else what a new file gets under the umask, or ``mode``), and is renamed over the target
(``os.replace``, no ``fsync``: a reader sees the old file or the new one, never half).
Folders below a confined root are walked from the root's descriptor with ``O_NOFOLLOW``
and created one by one (``make_dirs``, ``parents=True``): a folder on the way that is a
symbolic link is refused, so nothing is written outside the root. The folder a person
named (a ``Root.user_given()`` path, a command's output folder) is taken as given, links
and all; what perfline adds below it is not.

**A target that is itself a symbolic link is refused** (an ``InputError`` naming it: remove
the link or name another file), checked before writing; a link that appears after the
check is replaced by the rename, never written through. Errors are ``InputError`` naming
the file. Cost: an ``openat`` per folder component, the write, a rename.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from perfline.core.errors import InputError
from perfline.server.file_access.roots import DIR_FLAGS, Root

_ROOT_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_APPEND_FLAGS = (
    os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
)


def _read_umask() -> int:
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: The process's umask, read once (``os.umask`` would change it for every thread).
UMASK = _read_umask()


class Place:
    """A target's folder (an open descriptor, walked without links) and its name there."""

    def __init__(self, folder: int, name: str, shown: str) -> None:
        self.folder = folder
        self.name = name
        self.shown = shown

    def close(self) -> None:
        if self.folder >= 0:
            os.close(self.folder)
            self.folder = -1


def folder_parts(root: Root, absolute: str, source: str) -> tuple[str, list[str]]:
    """The folder taken as given and the components below it walked without links."""
    if not root.confined:
        return absolute, []
    return root.relative_parts(absolute, source)


def open_folder(
    root: Root, path: Path | str, source: str, *, create: bool, mode: int = 0o777
) -> tuple[int, str]:
    """A descriptor of the folder ``path`` below ``root`` and its absolute path."""
    absolute = os.path.normpath(root.absolute(path))
    base, parts = folder_parts(root, absolute, source)
    return walk(base, parts, source, create=create, mode=mode), absolute


def locate(root: Root, target: Path | str, source: str, *, parents: bool, mode: int) -> Place:
    """The open folder of ``target`` and its last name (folders made when ``parents``)."""
    absolute = os.path.normpath(root.absolute(target))
    folder, name = os.path.split(absolute)
    if name in ("", ".", ".."):
        raise InputError(source, f"{absolute} names no file")
    descriptor, _ = open_folder(root, folder, source, create=parents, mode=mode)
    return Place(descriptor, name, absolute)


def walk(base: str, parts: list[str], source: str, *, create: bool, mode: int = 0o777) -> int:
    """A descriptor of ``base/parts...``: ``base`` as given (made when missing and
    ``create``), each part below it opened without following a link (made if ``create``)."""
    try:
        if create:
            os.makedirs(base, mode=mode, exist_ok=True)
        folder = os.open(base, _ROOT_FLAGS)
    except FileNotFoundError:
        raise InputError(source, f"the folder {base} does not exist") from None
    except OSError as error:
        raise InputError(source, f"cannot use the folder {base}: {error.strerror}") from None
    shown = base
    try:
        for part in parts:
            shown = os.path.join(shown, part)
            inner = _step(folder, part, shown, source, create=create, mode=mode)
            os.close(folder)
            folder = inner
    except BaseException:
        os.close(folder)
        raise
    return folder


def _step(folder: int, part: str, shown: str, source: str, *, create: bool, mode: int) -> int:
    try:
        try:
            return os.open(part, DIR_FLAGS, dir_fd=folder)
        except FileNotFoundError:
            if not create:
                raise InputError(source, f"the folder {shown} does not exist") from None
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, mode, dir_fd=folder)
            return os.open(part, DIR_FLAGS, dir_fd=folder)
    except OSError as error:
        if error.errno in (errno.ENOTDIR, errno.ELOOP):
            raise InputError(source, _not_a_folder(folder, part, shown)) from None
        raise InputError(source, f"cannot use the folder {shown}: {error.strerror}") from None


def _not_a_folder(folder: int, part: str, shown: str) -> str:
    with contextlib.suppress(OSError):
        if stat.S_ISLNK(os.stat(part, dir_fd=folder, follow_symlinks=False).st_mode):
            return f"{shown} is a symbolic link; perfline does not write through links"
    return f"{shown} is not a folder"


def _target_mode(place: Place, source: str, mode: int | None) -> int:
    """The new file's mode; refuses a target that is a link or not a regular file."""
    try:
        info = os.stat(place.name, dir_fd=place.folder, follow_symlinks=False)
    except FileNotFoundError:
        return mode if mode is not None else 0o666 & ~UMASK
    except OSError as error:
        raise InputError(source, f"cannot inspect {place.shown}: {error.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise InputError(
            source,
            f"{place.shown} is a symbolic link; perfline does not write through or over links "
            "(remove the link or name another file)",
        )
    if not stat.S_ISREG(info.st_mode):
        raise InputError(source, f"{place.shown} exists and is not a regular file")
    return mode if mode is not None else stat.S_IMODE(info.st_mode)


class ReplacingFile:
    """A new file beside its target, renamed over it by ``commit`` (``discard``: removed).

    Use it as a context manager: committed when the block ends normally, discarded when
    it raises. ``file`` is the open binary file."""

    def __init__(self, place: Place, source: str, mode: int) -> None:
        self.place = place
        self.source = source
        self.mode = mode
        self.done = False
        self.temporary, descriptor = _new_file(place, source)
        try:
            os.fchmod(descriptor, mode)
        except OSError as error:
            os.close(descriptor)
            with contextlib.suppress(OSError):
                os.unlink(self.temporary, dir_fd=place.folder)
            place.close()
            raise InputError(source, f"cannot write: {error.strerror}") from None
        self.file: IO[bytes] = os.fdopen(descriptor, "wb")

    def write(self, data: bytes | memoryview) -> None:
        self.file.write(data)

    def commit(self) -> Path:
        """Rename the written file over the target; its path."""
        try:
            self.file.close()
            os.replace(
                self.temporary,
                self.place.name,
                src_dir_fd=self.place.folder,
                dst_dir_fd=self.place.folder,
            )
        except OSError as error:
            self.discard()
            raise InputError(self.source, f"cannot write: {error.strerror or error}") from None
        self.done = True
        self.place.close()
        return Path(self.place.shown)

    def discard(self) -> None:
        """Remove the new file; the target stays as it was."""
        if self.done:
            return
        self.done = True
        with contextlib.suppress(OSError):
            self.file.close()
        with contextlib.suppress(OSError):
            os.unlink(self.temporary, dir_fd=self.place.folder)
        self.place.close()

    def __enter__(self) -> ReplacingFile:
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


def _new_file(place: Place, source: str) -> tuple[str, int]:
    for _ in range(100):
        temporary = f".{place.name[:200]}.{secrets.token_hex(6)}.tmp"
        try:
            return temporary, os.open(temporary, _NEW_FLAGS, 0o600, dir_fd=place.folder)
        except FileExistsError:
            continue
        except OSError as error:
            place.close()
            raise InputError(source, f"cannot write: {error.strerror}") from None
    place.close()
    raise InputError(source, "cannot write: no free temporary name beside it")


def replacing(
    target: Path | str,
    *,
    root: Root,
    mode: int | None = None,
    parents: bool = False,
    source: str | None = None,
) -> ReplacingFile:
    """A ``ReplacingFile`` for ``target`` under ``root`` (``parents``: make its folders;
    ``mode``: the file's permissions, else the replaced file's or the umask's)."""
    shown = source if source is not None else str(target)
    place = locate(root, target, shown, parents=parents, mode=0o777)
    try:
        new_mode = _target_mode(place, shown, mode)
    except BaseException:
        place.close()
        raise
    return ReplacingFile(place, shown, new_mode)


def write_bytes(
    target: Path | str,
    data: bytes,
    *,
    root: Root,
    mode: int | None = None,
    parents: bool = False,
    source: str | None = None,
) -> Path:
    """Write ``data`` to ``target`` (through a new file renamed over it); its path."""
    shown = source if source is not None else str(target)
    with replacing(target, root=root, mode=mode, parents=parents, source=shown) as out:
        try:
            out.write(data)
        except OSError as error:
            raise InputError(shown, f"cannot write: {error.strerror or error}") from None
    return Path(out.place.shown)


def write_text(
    target: Path | str,
    text: str,
    *,
    root: Root,
    mode: int | None = None,
    parents: bool = False,
    source: str | None = None,
) -> Path:
    """``write_bytes`` of ``text`` in UTF-8."""
    data = text.encode("utf-8")
    return write_bytes(target, data, root=root, mode=mode, parents=parents, source=source)


def make_dirs(path: Path | str, *, root: Root, mode: int = 0o777) -> Path:
    """Make the folder ``path`` and the missing ones above it, below ``root`` (a folder on
    the way that is a symbolic link is refused); its path."""
    descriptor, absolute = open_folder(root, path, str(path), create=True, mode=mode)
    os.close(descriptor)
    return Path(absolute)


def new_folder(parent: Path | str, prefix: str, *, root: Root, mode: int = 0o700) -> Path:
    """A new, empty folder of a fresh random name ``PREFIX<random>`` in ``parent`` (made
    with its parents when missing); never an existing folder or link of that name."""
    folder, absolute = open_folder(root, parent, str(parent), create=True)
    try:
        for _ in range(100):
            name = f"{prefix}{secrets.token_hex(6)}"
            try:
                os.mkdir(name, mode, dir_fd=folder)
            except FileExistsError:
                continue
            except OSError as error:
                raise InputError(str(parent), f"cannot make a folder: {error.strerror}") from None
            return Path(absolute) / name
    finally:
        os.close(folder)
    raise InputError(str(parent), "cannot make a folder: no free name")


def rename(source_path: Path | str, target: Path | str, *, root: Root) -> None:
    """Rename ``source_path`` to ``target`` (both below ``root``, no link on the way)."""
    shown = str(target)
    old = locate(root, source_path, str(source_path), parents=False, mode=0o777)
    try:
        new = locate(root, target, shown, parents=False, mode=0o777)
        try:
            os.replace(old.name, new.name, src_dir_fd=old.folder, dst_dir_fd=new.folder)
        except OSError as error:
            raise InputError(shown, f"cannot rename: {error.strerror}") from None
        finally:
            new.close()
    finally:
        old.close()


def remove_tree(path: Path | str, *, root: Root) -> bool:
    """Remove a file or folder below ``root`` (a link is removed, never followed);
    whether there was one."""
    shown = str(path)
    try:
        place = locate(root, path, shown, parents=False, mode=0o777)
    except InputError:
        if not os.path.lexists(root.absolute(path)):
            return False
        raise
    try:
        info = os.stat(place.name, dir_fd=place.folder, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            shutil.rmtree(place.name, dir_fd=place.folder)
        else:
            os.unlink(place.name, dir_fd=place.folder)
    except FileNotFoundError:
        return False
    except OSError as error:
        raise InputError(shown, f"cannot remove: {error.strerror}") from None
    finally:
        place.close()
    return True


def open_append(path: Path | str, *, root: Root, mode: int = 0o600) -> IO[str]:
    """A text file opened for appending (a log): created with ``mode`` if missing, never
    through a link, refused unless it is a regular file."""
    shown = str(path)
    place = locate(root, path, shown, parents=True, mode=0o700)
    try:
        descriptor = os.open(place.name, _APPEND_FLAGS, mode, dir_fd=place.folder)
    except OSError as error:
        raise InputError(shown, _append_problem(error)) from None
    finally:
        place.close()
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        os.close(descriptor)
        raise InputError(shown, "not a regular file; the log is written only to one")
    os.set_blocking(descriptor, True)
    handle: Any = os.fdopen(descriptor, "a", encoding="utf-8")
    return handle  # type: ignore[no-any-return]


def _append_problem(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "is a symbolic link; perfline does not write through links"
    if error.errno == errno.ENXIO:
        return "is a named pipe (FIFO); perfline writes only regular files"
    return f"cannot open for writing: {error.strerror}"


@contextlib.contextmanager
def scratch_folder(prefix: str) -> Iterator[Path]:
    """A new private folder (mode 0700, a fresh random name in the system's temporary
    folder) for the length of the block, removed with what it holds afterwards."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
