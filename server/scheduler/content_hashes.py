"""Content hashes of input files, re-read only when a file may have changed.

A cached hash is trusted only while the file's identity is unchanged: device, inode,
size, modification time *and* status-change time (``ctime``, which every write,
rename-over and ``utime`` call moves and which no user can set back), so new content of
the same size with the old modification time restored (``cp -p``, ``rsync -t``, tar)
is seen. A file whose ``ctime`` is within ``RACY_SECONDS`` of when it was hashed is
hashed again next time (a write in the same clock tick would leave the identity
unchanged). Files that cannot be read hash to a marker (``missing``, ``refused``).

The bytes just hashed are kept (``take``) until the loop finishes the event it hashed them
for (``drop_reads``): a run scheduled by that event analyses those very bytes instead of
reading and hashing the file again (its digest is theirs, so what the run reports is
what it analysed). Memory: the inputs hashed by one event, for the length of the event.
Cost: one ``stat`` per input per check; a read and SHA-256 only for new content.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from perfline.core.errors import InputError
from perfline.server.file_access import Root
from perfline.server.scheduler.bounded_reads import InputLimits, ReadFile, file_key, read_input

#: A file changed this recently (seconds) before it was hashed is hashed again.
RACY_SECONDS = 2.0
MISSING = "missing"


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ContentHashes:
    """Workspace-relative path -> SHA-256 of its content (or a marker)."""

    def __init__(self, root: Path, limits: InputLimits, files: Root | None = None) -> None:
        self.root = root
        self.limits = limits
        self.files = files if files is not None else Root(root)
        self._cache: dict[str, tuple[tuple[int, int, int, int, int], int, str]] = {}
        self._reads: dict[str, tuple[str, ReadFile]] = {}

    def digest(self, rel: str) -> str:
        path = self.root / rel
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            self._cache.pop(rel, None)
            return MISSING
        key = file_key(info)
        cached = self._cache.get(rel)
        if cached is not None and cached[0] == key and not _racy(info, cached[1]):
            return cached[2]
        hashed_at = time.time_ns()
        try:
            read = read_input(path, rel, self.limits, self.files)
        except InputError as error:
            self._cache.pop(rel, None)
            return f"refused: {error.render()}"
        digest = digest_of(read.data)
        self._cache[rel] = (read.key, hashed_at, digest)
        self._reads[rel] = (digest, read)
        return digest

    def take(self, rel: str, digest: str) -> ReadFile | None:
        """The bytes hashed to ``digest`` for ``rel`` during this event, handed over once."""
        found = self._reads.get(rel)
        if found is None or found[0] != digest:
            return None
        del self._reads[rel]
        return found[1]

    def drop_reads(self) -> None:
        """Forget the bytes kept for this event (the loop calls it after every event)."""
        if self._reads:
            self._reads.clear()

    def digests(self, inputs: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(self.digest(rel) for rel in inputs)

    def forget_missing(self, present: frozenset[str]) -> None:
        """Drop the entries of files no longer in the workspace."""
        for rel in [r for r in self._cache if r not in present]:
            del self._cache[rel]


def _racy(info: os.stat_result, hashed_at: int) -> bool:
    return info.st_ctime_ns + int(RACY_SECONDS * 1e9) >= hashed_at
