"""Which line of the new version of a source file each line of the old version became.

``map_lines(old_text, new_text)`` matches the two versions with difflib's
``SequenceMatcher`` (no junk heuristic, so long files with many blank or
repeated lines are matched as written): lines inside matching blocks map one
to one. A line the matcher saw deleted in one place and inserted in another,
with the same text (leading and trailing white space ignored) occurring
exactly once among the deleted lines and once among the inserted ones, has
*moved* and keeps its history. Any other deleted or replaced line has no
counterpart: a rewritten line is new, and its old figures are reported as
removed. Blank lines never move.

Cost: difflib's matching, O(n·m) in the worst case and near-linear for edits of
a source file; the move detection is linear.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping


class LineMapping:
    """Old line number -> new line number (1-based), both ways."""

    __slots__ = ("_backward", "_forward", "moved")

    def __init__(self, forward: Mapping[int, int], moved: frozenset[int] = frozenset()) -> None:
        self._forward = dict(forward)
        self._backward = {new: old for old, new in self._forward.items()}
        #: old line numbers that moved (outside difflib's matching blocks).
        self.moved = moved

    def new_line(self, old: int) -> int | None:
        """Where old line ``old`` is in the new version, or ``None`` (deleted or rewritten)."""
        return self._forward.get(old)

    def old_line(self, new: int) -> int | None:
        """Which old line new line ``new`` was, or ``None`` (added or rewritten)."""
        return self._backward.get(new)

    def items(self) -> list[tuple[int, int]]:
        """Every (old, new) pair, in old order."""
        return sorted(self._forward.items())


def map_lines(old_text: str, new_text: str) -> LineMapping:
    """The line mapping between two versions of one file (see the module docstring)."""
    old = old_text.splitlines()
    new = new_text.splitlines()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    forward: dict[int, int] = {}
    deleted: list[int] = []
    inserted: list[int] = []
    for tag, old_start, old_end, new_start, new_end in matcher.get_opcodes():
        if tag == "equal":
            for offset in range(old_end - old_start):
                forward[old_start + offset + 1] = new_start + offset + 1
            continue
        deleted.extend(range(old_start, old_end))
        inserted.extend(range(new_start, new_end))
    moved = _moves(old, new, deleted, inserted)
    for old_index, new_index in moved.items():
        forward[old_index + 1] = new_index + 1
    return LineMapping(forward, frozenset(index + 1 for index in moved))


def _moves(
    old: list[str], new: list[str], deleted: list[int], inserted: list[int]
) -> dict[int, int]:
    """Deleted old index -> inserted new index for lines whose text is unique on both sides."""
    old_counts = Counter(old[index].strip() for index in deleted)
    new_counts = Counter(new[index].strip() for index in inserted)
    targets = {
        new[index].strip(): index
        for index in inserted
        if new_counts[new[index].strip()] == 1 and new[index].strip()
    }
    moves: dict[int, int] = {}
    for index in deleted:
        text = old[index].strip()
        if text and old_counts[text] == 1 and text in targets:
            moves[index] = targets[text]
    return moves


def identical(old_text: str, new_text: str) -> bool:
    """Whether the two versions have the same lines (then no mapping is needed)."""
    return old_text.splitlines() == new_text.splitlines()
