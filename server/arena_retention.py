"""Keeping the small-object arenas a daemon frees, for its next run to reuse.

A value-only change of a capture replaces a whole document: the run allocates the new
parse and result while the old ones are served, then the old ones are released
(``scheduler.retired``). CPython unmaps every arena (1 MiB) that becomes empty and maps
fresh ones for the next run, whose pages each cost a page fault and a zero fill: about
8 ms of system time per value-only refresh at 1,000 chains, 250 ms at 20,000. The
compiled build carries a small C allocator (``server/arena_cache.c``, built with the
mypyc modules) that keeps freed arenas up to a limit and hands them out first; the pure
build has none and this module then does nothing.

The daemon turns it on at start (``perfline serve``): up to ``DEFAULT_LIMIT_MB`` (the
``PERFLINE_ARENA_CACHE_MB`` environment variable changes it; 0 turns it off). The kept
arenas count in the process's resident memory: it stays near its high-water mark
instead of shrinking between runs. Cost: nothing per object; O(1) per arena.
"""

from __future__ import annotations

import importlib
import logging
import os
from typing import Any

log = logging.getLogger(__name__)

#: The most freed arena memory kept for reuse (MiB), unless the environment says otherwise.
DEFAULT_LIMIT_MB = 512
ENVIRONMENT_VARIABLE = "PERFLINE_ARENA_CACHE_MB"


def _extension() -> Any | None:
    try:
        return importlib.import_module("perfline.server._arena_cache")
    except ImportError:
        return None


def available() -> bool:
    """Whether this build has the arena cache (the compiled build)."""
    return _extension() is not None


def retain_freed_arenas(limit_mb: int | None = None) -> int:
    """Keep up to ``limit_mb`` MiB of freed arenas for reuse (default: the environment
    variable, else ``DEFAULT_LIMIT_MB``); returns the limit in force, 0 when off (no
    extension in this build, or a limit of 0). Calling it again changes the limit."""
    if limit_mb is None:
        limit_mb = _limit_from_environment()
    extension = _extension()
    if extension is None:
        return 0
    extension.install(max(limit_mb, 0) << 20)
    return max(limit_mb, 0)


def stats() -> dict[str, int]:
    """Arenas kept now, the limit in arenas, arenas reused and newly mapped since the
    cache was installed (empty without the extension)."""
    extension = _extension()
    if extension is None:
        return {}
    found: dict[str, int] = extension.stats()
    return found


def _limit_from_environment() -> int:
    text = os.environ.get(ENVIRONMENT_VARIABLE)
    if text is None or not text.strip():
        return DEFAULT_LIMIT_MB
    try:
        return max(int(text), 0)
    except ValueError:
        log.warning(
            "%s=%r is not a whole number of MiB; keeping up to %d MiB of freed arenas",
            ENVIRONMENT_VARIABLE,
            text,
            DEFAULT_LIMIT_MB,
        )
        return DEFAULT_LIMIT_MB
