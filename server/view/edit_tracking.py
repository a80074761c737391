"""Keeping annotations on the edited text: analysis line -> current buffer line.

When a source file is edited after its analysis, figures must follow the text
they belong to. ``LineTracker`` composes the edits (ranged changes from
``textDocument/didChange``, or whole-text replacements diffed with
``difflib``) into a map from analysis-time line numbers (0-based) to the
buffer's current lines; a line whose text was deleted maps to ``None``. Any
edit marks the tracker *edited* (annotations are stale) until ``reset`` at the
next analysis. Cost per ranged edit: O(lines in the map).
"""

from __future__ import annotations

import difflib


class LineTracker:
    """Line map of one open document since the last analysis."""

    def __init__(self, text: str) -> None:
        self.text_lines = text.split("\n")
        self._map: dict[int, int | None] | None = None  # None = identity
        self.edited = False
        #: Bumped by every change of the map (a cache key for the LSP layer).
        self.version = 0

    def reset(self, text: str | None = None) -> None:
        if text is not None:
            self.text_lines = text.split("\n")
        self._map = None
        self.edited = False
        self.version += 1

    def current(self, line: int) -> int | None:
        """Where analysis line ``line`` (0-based) is now, or ``None`` if deleted."""
        if self._map is None:
            return line
        return self._map.get(line, line if line >= len(self._map) else None)

    def _ensure_map(self) -> dict[int, int | None]:
        if self._map is None:
            self._map = {i: i for i in range(len(self.text_lines))}
        return self._map

    def apply_range(
        self,
        start: tuple[int, int],
        end: tuple[int, int],
        new_text: str,
        full_text: str,
    ) -> None:
        """A change replacing ``start``..``end`` ((line, column), 0-based) with ``new_text``.

        An edit starting at column 0 carries the end line's remainder to the last inserted
        line (so inserting lines above a line moves it down); one starting inside a line
        keeps that line. Lines wholly inside the replaced range are deleted.
        """
        start_line, start_column = start
        end_line = end[0]
        added = new_text.count("\n")
        delta = added - (end_line - start_line)
        mapping = self._ensure_map()
        for origin, now in mapping.items():
            if now is None or now < start_line:
                continue
            if now > end_line:
                mapping[origin] = now + delta
            elif start_column == 0:
                mapping[origin] = start_line + added if now == end_line else None
            elif now != start_line:
                mapping[origin] = None
        self.text_lines = full_text.split("\n")
        self.edited = True
        self.version += 1

    def apply_full(self, new_text: str) -> None:
        """A whole-text replacement: map lines through a diff of old and new text."""
        new_lines = new_text.split("\n")
        if new_lines == self.text_lines:
            return
        matcher = difflib.SequenceMatcher(a=self.text_lines, b=new_lines, autojunk=False)
        moved: dict[int, int] = {}
        for block in matcher.get_matching_blocks():
            for k in range(block.size):
                moved[block.a + k] = block.b + k
        mapping = self._ensure_map()
        for origin, now in mapping.items():
            mapping[origin] = None if now is None else moved.get(now)
        self.text_lines = new_lines
        self.edited = True
        self.version += 1
