"""Tables of the text reports (``report``, ``analyze``, ``operators``): one box style and one
width rule.

The width rule: a table is never wider than the report; number columns keep their whole
width (a number is never wrapped, cut or split); optional columns (the less important
metrics) are left out, last first, until the rest fits; the text columns share what
remains, each at most as wide as its longest cell. Text is wrapped here, at spaces, before
rich draws the table, so rich never folds a cell; a word longer than its column, and a
cell that must stay on one line (``one_line``: ids, names), is cut at a separator (``/ :
_ -``, a space, a point or comma not inside a number) with ``…`` in place of what was left
out (``keep="end"`` keeps the end of ids, whose distinctive part is last), so what is shown
of a name or a number is never a piece of a longer one.

Pure: rows of strings in, lines of text out (through a rich ``Console`` the caller owns;
``plain_console`` makes the one every text report renders through: plain text, no colour,
emoji, highlighting or soft wrap). Cost: linear in the cells.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Literal

from rich import box
from rich.console import Console
from rich.table import Table

ELLIPSIS = "…"
ASCII_ELLIPSIS = "..."
#: Where a cut text may start or end: a separator, a point or comma not between digits.
_SEPARATORS = re.compile(r"[/:_\- ]|(?<!\d)[.,]|[.,](?!\d)")

#: Box drawing: Unicode frames, or ASCII ones for terminals that cannot show them.
FRAME = box.SQUARE
ASCII_FRAME = box.ASCII


def plain_console(file: IO[str], width: int) -> Console:
    """A console writing plain text ``width`` columns wide into ``file`` (no colour codes,
    emoji, highlighting or soft wrap, whatever the terminal is)."""
    return Console(
        file=file,
        width=width,
        color_system=None,
        force_terminal=False,
        legacy_windows=False,
        emoji=False,
        highlight=False,
        soft_wrap=False,
    )


@dataclass
class Column:
    """A column: its header, how its cells are laid out, and whether it may be left out."""

    header: str
    number: bool = False  # right-aligned, never wrapped or cut
    one_line: bool = False  # cut (never wrapped) when too long; each line of a cell alone
    keep: Literal["start", "end"] = "start"  # which end of a cut cell is kept
    optional: bool = False  # left out (last first) when the table does not fit
    min_width: int = 6  # never narrower (unless its header and cells are)
    want: int = 16  # as wide as this (or its cells) before an optional column is kept
    cells: list[str] = field(default_factory=list)
    short: list[str] = field(default_factory=list)  # (one_line) shown when a cell is too long


def fit_columns(columns: Sequence[Column], width: int) -> list[Column]:
    """The columns kept (optional ones dropped from the end until the rest can fit)."""
    kept = list(columns)
    while _needed(kept) > width and any(c.optional for c in kept):
        last = max(i for i, c in enumerate(kept) if c.optional)
        del kept[last]
    return kept


def _overhead(count: int) -> int:
    """Borders and padding of a framed table with ``count`` columns."""
    return 3 * count + 1


def _natural(column: Column) -> int:
    return max([len(column.header), *(_longest_line(cell) for cell in column.cells)])


def _longest_line(text: str) -> int:
    return max((len(line) for line in text.split("\n")), default=0)


def _needed(columns: Sequence[Column]) -> int:
    """The width the columns need: numbers whole, text columns as wide as they want."""
    return _overhead(len(columns)) + sum(
        _natural(c) if c.number else min(max(c.want, c.min_width), _natural(c)) for c in columns
    )


def widths(columns: Sequence[Column], width: int) -> list[int]:
    """Each column's width: numbers their natural width, text columns share the rest."""
    result = [_natural(c) if c.number else min(c.min_width, _natural(c)) for c in columns]
    spare = width - _overhead(len(columns)) - sum(result)
    growing = [i for i, c in enumerate(columns) if not c.number and result[i] < _natural(c)]
    while spare > 0 and growing:
        share = max(1, spare // len(growing))
        for i in list(growing):
            extra = min(share, _natural(columns[i]) - result[i], spare)
            result[i] += extra
            spare -= extra
            if result[i] >= _natural(columns[i]):
                growing.remove(i)
            if spare <= 0:
                break
    return result


def cut(text: str, width: int, *, keep: str = "start", ellipsis: str = ELLIPSIS) -> str:
    """``text`` in at most ``width`` characters: whole, or cut at a separator (kept, beside
    the ellipsis that stands for the rest), never inside a word or a number."""
    if len(text) <= width:
        return text
    room = max(0, width - len(ellipsis))
    separators = {match.start() for match in _SEPARATORS.finditer(text)}
    if keep == "end":  # the kept end starts with a separator: "…/3/1234"
        start = next(
            i for i in range(len(text) - room, len(text) + 1) if i in separators or i == len(text)
        )
        return ellipsis + text[start:]
    # the kept start ends with a separator: "chain/segment/…"
    end = next(i for i in range(room, -1, -1) if i == 0 or (i - 1) in separators)
    return text[:end] + ellipsis


def wrap(text: str, width: int, *, ellipsis: str = ELLIPSIS, indent: str = "") -> str:
    """``text`` wrapped at spaces to ``width`` (each line of it), overlong words cut;
    lines after the first of a paragraph start with ``indent``."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        wrapped = textwrap.wrap(
            paragraph,
            width,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        ) or [""]
        lines.extend(cut(line, width, ellipsis=ellipsis) for line in wrapped)
    return "\n".join(lines)


def print_table(
    console: Console,
    columns: Sequence[Column],
    *,
    width: int,
    ascii_only: bool = False,
) -> list[Column]:
    """Lay the columns out within ``width`` and print them framed; returns those shown."""
    shown = fit_columns(columns, width)
    sizes = widths(shown, width)
    ellipsis = ASCII_ELLIPSIS if ascii_only else ELLIPSIS
    table = Table(box=ASCII_FRAME if ascii_only else FRAME, pad_edge=True, expand=False)
    for column, size in zip(shown, sizes, strict=True):
        table.add_column(
            column.header
            if len(column.header) <= size
            else cut(column.header, size, ellipsis=ellipsis),
            justify="right" if column.number else "left",
            no_wrap=True,
            overflow="crop",
            width=size,
        )
    rows = max((len(c.cells) for c in shown), default=0)
    for index in range(rows):
        cells = []
        for column, size in zip(shown, sizes, strict=True):
            text = column.cells[index] if index < len(column.cells) else ""
            if column.number:
                cells.append(text)
            elif column.one_line:  # each of its lines (a cell may hold a second) cut
                if _longest_line(text) > size and index < len(column.short):
                    text = column.short[index]
                parts = text.split("\n")
                cells.append(
                    "\n".join(cut(p, size, keep=column.keep, ellipsis=ellipsis) for p in parts)
                )
            else:
                cells.append(wrap(text, size, ellipsis=ellipsis))
        table.add_row(*cells)
    console.print(table)
    return shown
