"""A run's content hash: what says two runs are the same run, whatever their file names.

``content_hash`` is the SHA-256 of the sorted SHA-256 digests of the run's input files,
one per line: the same bytes give the same hash in any order and under any name, and a
changed byte gives another. ``perfline batch`` skips a run whose content hash the store
already holds. Pure; linear in the number of files.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable


def file_digest(data: bytes) -> str:
    """The SHA-256 (hex) of one file's bytes."""
    return hashlib.sha256(data).hexdigest()


def content_hash(file_digests: Iterable[str]) -> str:
    """The run's hash from its files' digests (order does not matter)."""
    return hashlib.sha256("\n".join(sorted(file_digests)).encode("ascii")).hexdigest()


def summary_run_id(sorted_hashes: Iterable[str]) -> str:
    """The run id of an aggregate of runs, from their content hashes in sorted order
    (streamed: a UUID made of the SHA-256 of the hashes, one per line)."""
    digest = hashlib.sha256()
    for content in sorted_hashes:
        digest.update(content.encode("ascii") + b"\n")
    return str(uuid.UUID(bytes=digest.digest()[:16], version=5))
