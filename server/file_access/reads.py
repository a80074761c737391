"""Reading a whole file: regular files only, inside the root, bounded, on a timed worker.

``read_file`` opens the path beneath its ``Root`` (``roots.open_file``: ``O_NONBLOCK``, so a
FIFO swapped in cannot block the open; no link followed out of the root), checks the
descriptor (``fstat``: a named pipe, device, socket or folder is refused; a size over the
kind's limit is refused before reading) and reads to the end, counting the bytes actually
read (a file that grows, or claims a size it does not have, stops at the limit + 1 byte).
All of it runs on a ``timed`` worker: past the time bound the caller gets an
``InputError`` and the read stops at its next chunk. Every refusal is an ``InputError``
naming the file and what it is. Cost: one ``realpath``, an ``openat`` per path component,
one ``fstat`` and the read itself (one read into one buffer for a regular file).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from perfline.core.errors import InputError
from perfline.server.file_access import timed
from perfline.server.file_access.limits import Limits, file_key, input_kind, what_it_is
from perfline.server.file_access.roots import Root, open_file

_CHUNK = 4 * 1024 * 1024
_DEFAULT = Limits()


@dataclass(frozen=True)
class FileRead:
    """The bytes of a regular file and what was read: the open descriptor's ``fstat``."""

    data: bytes
    info: os.stat_result

    @property
    def key(self) -> tuple[int, int, int, int, int]:
        """(device, inode, size, mtime_ns, ctime_ns) of what was read."""
        return file_key(self.info)

    @property
    def mtime(self) -> float:
        return self.info.st_mtime


def refuse_what(source: str, info: os.stat_result, limit: int, kind: str) -> None:
    """``InputError`` unless ``info`` is a regular file within ``limit`` bytes."""
    what = what_it_is(info.st_mode)
    if what is not None:
        raise InputError(source, f"the input is {what}; perfline reads only regular files")
    if info.st_size > limit:
        raise InputError(
            source,
            f"the input holds {info.st_size} bytes, over the limit of {limit} bytes for "
            f"{kind} inputs (raise it in the user settings if it is real)",
        )


def read_file(
    path: Path | str,
    *,
    root: Root,
    kind: str | None = None,
    limits: Limits = _DEFAULT,
    source: str | None = None,
) -> FileRead:
    """The bytes of the regular file ``path`` under ``root`` (``kind``: its size limit,
    from its name when not given; ``source``: its name in errors, ``path`` when not given)."""
    shown = source if source is not None else str(path)
    kind = kind if kind is not None else input_kind(str(path))
    limit = limits.size_for(kind)

    def work(abandon: timed.Abandon) -> FileRead:
        return _read(root, path, shown, kind, limit, abandon, limits.seconds)

    return timed.call(work, limits.seconds, shown)


def read_bytes(
    path: Path | str,
    *,
    root: Root,
    kind: str | None = None,
    limits: Limits = _DEFAULT,
    source: str | None = None,
) -> bytes:
    """``read_file(...).data``."""
    return read_file(path, root=root, kind=kind, limits=limits, source=source).data


def read_text(
    path: Path | str,
    *,
    root: Root,
    kind: str | None = None,
    limits: Limits = _DEFAULT,
    source: str | None = None,
    errors: str = "replace",
) -> str:
    """The file's text as UTF-8 (``errors``: ``replace`` undecodable bytes, or ``strict``:
    an ``InputError`` naming the byte offset)."""
    shown = source if source is not None else str(path)
    data = read_bytes(path, root=root, kind=kind, limits=limits, source=shown)
    try:
        return data.decode("utf-8", errors=errors)
    except UnicodeDecodeError as error:
        raise InputError(shown, f"byte {error.start}: not UTF-8 text") from None


def _read(
    root: Root,
    path: Path | str,
    source: str,
    kind: str,
    limit: int,
    abandon: timed.Abandon,
    seconds: float,
) -> FileRead:
    descriptor = open_file(root, path, source)
    try:
        info = os.fstat(descriptor)
        refuse_what(source, info, limit, kind)
        data = read_bounded(descriptor, source, limit, abandon, info.st_size)
    except OSError as error:
        raise InputError(source, f"cannot read the file: {error.strerror or error}") from None
    finally:
        os.close(descriptor)
    if abandon.is_set():
        raise InputError(source, f"reading the file took longer than {seconds:g} s")
    return FileRead(data, info)


def read_bounded(
    descriptor: int,
    source: str,
    limit: int,
    abandon: timed.Abandon | None = None,
    size: int | None = None,
) -> bytes:
    """Read to the end, at most ``limit`` bytes (counted as read); ``size`` (the ``fstat``
    size) lets a regular file come in one read into one buffer; stops when ``abandon`` is
    set."""
    first = min(limit, size) + 1 if size is not None else min(limit + 1, _CHUNK)
    chunks: list[bytes] = []
    total = 0
    want = first
    while True:
        chunk = os.read(descriptor, want)
        if not chunk:
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise InputError(
                source, f"the input grew past the limit of {limit} bytes while being read"
            )
        if abandon is not None and abandon.is_set():
            return b""
        want = min(_CHUNK, limit + 1 - total)
