"""Reading an input file safely: regular files only, a size limit per input kind,
checked before and while reading, and never a blocking open.

A workspace may hold anything under an input's name: a named pipe (reading it would
block until a writer comes), a device (``/dev/zero`` never ends), a socket, a folder,
a symlink to any of these. ``read_input`` looks at what the path is (``os.stat``,
following links) before opening it, opens it with ``O_NONBLOCK`` (a FIFO swapped in
after the check cannot block the open), checks the descriptor again (``fstat``) and
reads in chunks, stopping as soon as the limit is passed or the time bound is spent.
Every refusal is an ``InputError`` naming the file and what it is.
Cost: one ``stat``, one ``fstat`` and the read itself.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from perfline.core.errors import InputError

MIB = 1024 * 1024
GIB = 1024 * MIB

#: Default size limits by input kind (bytes): real artifacts are far smaller
#: (ETDumps and estimator databases of large models are tens of MB, ETRecords and
#: models hundreds), so these only stop what is not an artifact at all.
DEFAULT_LIMITS: Mapping[str, int] = {
    "etdump": 1 * GIB,
    "etrecord": 2 * GIB,
    "model": 4 * GIB,
    "estimator": 1 * GIB,
    "json": 512 * MIB,
    "config": 1 * MIB,
    "other": 1 * GIB,
}
#: Input kinds by file-name ending (the first match wins; anything else is ``other``).
KIND_SUFFIXES: tuple[tuple[str, str], ...] = (
    (".etdump", "etdump"),
    (".etdp", "etdump"),
    (".etrecord", "etrecord"),
    (".bin", "etrecord"),
    (".vgf", "model"),
    (".tosa", "model"),
    (".pte", "model"),
    (".onnx", "model"),
    (".pt2", "model"),
    (".tflite", "model"),
    (".dat", "estimator"),
    (".json", "json"),
    ("perfline.toml", "config"),
)
#: How long one file may take to read (seconds).
DEFAULT_READ_SECONDS = 120.0
_CHUNK = 4 * MIB
_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def input_kind(path: str) -> str:
    """The kind of an input by its name (``etdump``, ``model``, ``json``, ...)."""
    for suffix, kind in KIND_SUFFIXES:
        if path.endswith(suffix):
            return kind
    return "other"


@dataclass(frozen=True)
class InputLimits:
    """Size limit per input kind (user settings override the defaults) and time bound."""

    sizes: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_LIMITS))
    seconds: float = DEFAULT_READ_SECONDS

    def for_path(self, path: str) -> int:
        kind = input_kind(path)
        return self.sizes.get(kind, self.sizes.get("other", DEFAULT_LIMITS["other"]))

    @classmethod
    def with_overrides(cls, overrides: Mapping[str, int]) -> InputLimits:
        unknown = sorted(set(overrides) - set(DEFAULT_LIMITS))
        if unknown:
            raise ValueError(
                f"unknown input kind(s) {', '.join(unknown)}; known: {', '.join(DEFAULT_LIMITS)}"
            )
        return cls({**DEFAULT_LIMITS, **overrides})


@dataclass(frozen=True)
class ReadFile:
    """The bytes of a regular file and the identity of what was read: (device, inode,
    size, mtime_ns, ctime_ns) of the open descriptor, and the modification time."""

    data: bytes
    key: tuple[int, int, int, int, int]
    mtime: float


def file_key(info: os.stat_result) -> tuple[int, int, int, int, int]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _what(mode: int) -> str | None:
    """What a non-regular file is, ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _refuse(source: str, info: os.stat_result, limit: int) -> None:
    what = _what(info.st_mode)
    if what is not None:
        raise InputError(source, f"the input is {what}; perfline reads only regular files")
    if info.st_size > limit:
        raise InputError(
            source,
            f"the input holds {info.st_size} bytes, over the limit of {limit} bytes for "
            f"{input_kind(source)} inputs (raise it in the user settings if it is real)",
        )


def stat_input(path: Path, source: str) -> os.stat_result:
    """``os.stat`` of an input (following links), as an ``InputError`` when it fails."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise InputError(source, "the input is a dangling symbolic link") from None
        raise InputError(source, "the input file does not exist") from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise InputError(source, "the input is a symbolic link loop") from None
        raise InputError(source, f"cannot read the input file: {error.strerror}") from None


def read_input(path: Path, source: str, limits: InputLimits) -> ReadFile:
    """The bytes of the regular file ``path`` (``source``: its name in errors)."""
    limit = limits.for_path(source)
    _refuse(source, stat_input(path, source), limit)
    try:
        descriptor = os.open(path, _FLAGS)
    except OSError as error:
        raise InputError(source, f"cannot open the input file: {error.strerror}") from None
    try:
        info = os.fstat(descriptor)
        _refuse(source, info, limit)
        data = _read_bounded(descriptor, source, limit, limits.seconds, info.st_size)
    except OSError as error:
        raise InputError(source, f"cannot read the input file: {error.strerror}") from None
    finally:
        os.close(descriptor)
    return ReadFile(data, file_key(info), info.st_mtime)


def _read_bounded(
    descriptor: int, source: str, limit: int, seconds: float, size: int | None = None
) -> bytes:
    """Read to the end, at most ``limit`` bytes; ``size`` (the ``fstat`` size) lets a
    regular file come in one read into one buffer, as ``Path.read_bytes`` does."""
    deadline = time.monotonic() + seconds
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
        if time.monotonic() > deadline:
            raise InputError(source, f"reading the input took longer than {seconds:g} s")
        want = min(_CHUNK, limit + 1 - total)


#: Limits of a source file read to answer a request (lenses, hints): a Python source
#: larger than this is not one a person edits; read within a second or so.
SOURCE_LIMITS = InputLimits({**DEFAULT_LIMITS, "other": 16 * MIB}, seconds=5.0)


def read_source_text(path: Path) -> str:
    """The text of a source file to answer a request (regular files only, bounded like
    inputs: a FIFO or ``/dev/zero`` named by a client cannot block or exhaust the daemon);
    undecodable bytes replaced. ``InputError`` when it cannot be read."""
    return read_input(path, str(path), SOURCE_LIMITS).data.decode("utf-8", errors="replace")
