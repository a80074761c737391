"""The plain values the view layer answers with (no LSP types).

The view's convention: lines are **1-based** source lines of the buffer as it is now
(after unsaved edits), columns are **0-based counts of code points** (Python ``str``
indices). The LSP shell converts both (0-based lines, the negotiated UTF-8/16/32 code
units). Files are absolute file-system paths as strings. Slotted (and frozen but for the
per-request ``HintPage``); no cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "information"]

#: An end column meaning "to the end of the line, whatever its length".
LINE_END = 10_000


@dataclass(frozen=True, slots=True)
class Hint:
    """An inlay hint at the end of ``line`` (``column``: that line's length)."""

    line: int
    column: int
    label: str
    tooltip: str


@dataclass(slots=True)
class HintPage:
    """The hints of one file (``rows``, sorted by line, the same tuple object while
    nothing changes, so a caller may key its own caches on it) and the slice
    ``rows[start:stop]`` that falls in the requested line range. (Not frozen: one is made
    per inlay-hint request, and a frozen dataclass's ``__init__`` costs more.)"""

    rows: tuple[Hint, ...]
    start: int
    stop: int

    def visible(self) -> tuple[Hint, ...]:
        return self.rows[self.start : self.stop]


@dataclass(frozen=True, slots=True)
class HoverView:
    """The Markdown hover of ``line``, spanning the line up to ``end_column``."""

    line: int
    end_column: int
    markdown: str


@dataclass(frozen=True, slots=True)
class Lens:
    """A code lens on a block's first line; ``end_line`` is its last (both 1-based,
    found with ``ast``), carried to the client so it never guesses block ends."""

    line: int
    end_line: int
    title: str
    command: str = "perfline.showBlock"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem on ``line`` from ``column`` to ``end_column`` (``LINE_END``: the whole
    rest of the line)."""

    line: int
    column: int
    end_column: int
    message: str
    severity: Severity
    source: str
    code: str


@dataclass(frozen=True, slots=True)
class DiagnosticsUpdate:
    """What to publish: every file with its diagnostics (possibly none, which clears what
    an earlier publication put there) and the files that had some and have none now."""

    files: Mapping[str, tuple[Diagnostic, ...]]
    cleared: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SettingsChange:
    """The outcome of applying a client's settings."""

    changed: bool
    problems: tuple[str, ...]
