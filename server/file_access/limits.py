"""How much a file of each kind may hold and how long one read may take.

Every read names a kind (``etdump``, ``model``, ``json``, ``source``, ``trace``, ...): a
size limit per kind stops what is not an artifact at all (``/dev/zero`` behind a link, a
file that keeps growing) and a time bound stops a read that does not end. The user
settings may raise or lower the sizes (``Limits.with_overrides``); code that reads small
files of its own (a discovery entry, a manifest) names a small kind. Pure data, no I/O.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB

#: Size limits by kind (bytes). Real artifacts are far smaller (ETDumps and estimator
#: databases of large models are tens of MB, ETRecords and models hundreds), so these only
#: stop what is not an artifact at all.
DEFAULT_LIMITS: Mapping[str, int] = {
    "etdump": 1 * GIB,
    "etrecord": 2 * GIB,
    "model": 4 * GIB,
    "estimator": 1 * GIB,
    "json": 512 * MIB,
    "config": 1 * MIB,
    "other": 1 * GIB,
    "source": 16 * MIB,
    "baseline": 256 * MIB,
    "trace": 4 * GIB,
    "state": 1 * MIB,
    # not a file kind: what a gzip-compressed file may decompress to, whatever its kind
    "expanded": 16 * GIB,
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
    (".json.gz", "trace"),
    ("perfline.toml", "config"),
)
#: How long one file may take to read (seconds).
DEFAULT_READ_SECONDS = 120.0
#: A source file read to answer a request: small, and read within a few seconds.
SOURCE_READ_SECONDS = 5.0


def input_kind(path: str) -> str:
    """The kind of a file by its name (``etdump``, ``model``, ``json``, ...)."""
    for suffix, kind in KIND_SUFFIXES:
        if path.endswith(suffix):
            return kind
    return "other"


@dataclass(frozen=True)
class Limits:
    """Size limit per kind (user settings override the defaults) and the time bound of
    one read (of one chunk, for a stream)."""

    sizes: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_LIMITS))
    seconds: float = DEFAULT_READ_SECONDS

    def size_for(self, kind: str) -> int:
        """The size limit of ``kind`` (unknown kinds: ``other``'s)."""
        found = self.sizes.get(kind)
        if found is None:
            found = DEFAULT_LIMITS.get(kind, self.sizes.get("other", DEFAULT_LIMITS["other"]))
        return found

    def for_path(self, path: str) -> int:
        """The size limit of the kind ``path``'s name says."""
        return self.size_for(input_kind(path))

    def within(self, seconds: float) -> Limits:
        """The same sizes with another time bound."""
        return replace(self, seconds=seconds)

    @classmethod
    def with_overrides(cls, overrides: Mapping[str, int]) -> Limits:
        """The defaults with the user's sizes; an unknown kind is a ``ValueError``."""
        unknown = sorted(set(overrides) - set(DEFAULT_LIMITS))
        if unknown:
            raise ValueError(
                f"unknown input kind(s) {', '.join(unknown)}; known: {', '.join(DEFAULT_LIMITS)}"
            )
        return cls({**DEFAULT_LIMITS, **overrides})


#: The limits of a source file read to answer a request (hints, lenses, the HTML report).
SOURCE_LIMITS = Limits(dict(DEFAULT_LIMITS), seconds=SOURCE_READ_SECONDS)


def what_it_is(mode: int) -> str | None:
    """What a file that is not a regular file is (``a named pipe (FIFO)``, ...);
    ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def file_key(info: os.stat_result) -> tuple[int, int, int, int, int]:
    """What identifies a file's content: (device, inode, size, mtime_ns, ctime_ns)."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
