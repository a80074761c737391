"""The estimator's XML-ish database container: named tables holding CSV in CDATA.

The estimator's XML is not guaranteed to be well formed, so the file is read
as text: each ``<table name="...">`` holds exactly one ``<![CDATA[ ... ]]>``
block whose trimmed content is CSV with a header row. A truncated file (a
CDATA block or table that is never closed, a missing root end tag) is an
error naming the line where the unfinished part starts. Cells are trimmed and
unquoted. Cost: linear in the file size.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from perfline.core.errors import InputError, Problem

_CDATA_OPEN = "<![CDATA["
_CDATA_CLOSE = "]]>"
_TABLE_OPEN = '<table name="'


@dataclass(frozen=True)
class CsvRow:
    """One data row: its 1-based line in the file and its raw text."""

    line: int
    text: str


@dataclass(frozen=True)
class CsvTable:
    """One table: name, trimmed header cells, data rows (raw, for per-table splitting)."""

    name: str
    header: tuple[str, ...]
    header_line: int
    rows: tuple[CsvRow, ...]


def decode(source: str, data: bytes) -> str:
    """The file's text (UTF-8, BOM allowed); undecodable bytes are an error naming the offset."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            source, Problem(f"byte offset {error.start}", "expected UTF-8 text")
        ) from None


def read_tables(source: str, text: str, root: str) -> list[CsvTable]:
    """Every ``<table name="...">`` of a container whose root element is ``root``."""
    _check_root_open(source, text, root)
    tables: list[CsvTable] = []
    starts = _find_all(text, _TABLE_OPEN)
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(text)
        name_start = start + len(_TABLE_OPEN)
        name_end = text.find('">', name_start, end)
        if name_end < 0:
            raise InputError(
                source,
                Problem(f"line {_line_of(text, start)}", 'expected `">` after the table name'),
            )
        name = text[name_start:name_end]
        body_start = name_end + 2
        body = text[body_start:end]
        tables.append(_table(source, text, name, body, body_start))
        if "</table>" not in body[body.rfind(_CDATA_CLOSE) :]:
            raise InputError(
                source,
                Problem(
                    f"table {name} (line {_line_of(text, start)})",
                    "expected </table> after the CDATA block; the file looks truncated",
                ),
            )
    _check_root_close(source, text, root)
    return tables


def read_single_cdata(source: str, text: str, root: str) -> CsvTable:
    """The one CDATA table of a container (the performance database's layout)."""
    _check_root_open(source, text, root)
    opens = _find_all(text, _CDATA_OPEN)
    if len(opens) != 1:
        raise InputError(
            source,
            Problem("", f"expected exactly one <![CDATA[ ... ]]> block, found {len(opens)}"),
        )
    name_at = text.rfind(_TABLE_OPEN, 0, opens[0])
    name = "performance"
    if name_at >= 0:
        name_end = text.find('">', name_at)
        if 0 <= name_end < opens[0]:
            name = text[name_at + len(_TABLE_OPEN) : name_end]
    table = _table(source, text, name, text[opens[0] :], opens[0])
    _check_root_close(source, text, root)
    return table


def check_cell_count(
    source: str, table: str, number: int, row: CsvRow, header: tuple[str, ...], found: int
) -> None:
    """Raise ``InputError`` when row ``number`` has a different number of cells than columns."""
    if found == len(header):
        return
    message = f"expected {len(header)} cells, found {found}"
    if found < len(header):
        missing = ", ".join(repr(name) for name in header[found:])
        message += f" (missing {missing})"
    raise InputError(source, Problem(f"table {table}, row {number} (line {row.line})", message))


def split_csv_line(text: str, source: str, where: str) -> list[str]:
    """One CSV line split on commas (quotes respected), cells trimmed and unquoted.

    A line the CSV reader refuses (a stray carriage return inside an unquoted
    cell, say) is an ``InputError`` at ``where`` in ``source``.
    """
    try:
        cells = next(csv.reader(io.StringIO(text), skipinitialspace=True), [])
    except csv.Error as error:
        reason = "a line break inside an unquoted cell" if "new-line" in str(error) else str(error)
        raise InputError(source, Problem(where, f"expected a CSV row, found {reason}")) from None
    return [unquote(cell) for cell in cells]


def unquote(cell: str) -> str:
    """``cell`` trimmed and, if wrapped in matching single or double quotes, unwrapped."""
    cell = cell.strip()
    if len(cell) >= 2 and cell[0] == cell[-1] and cell[0] in "\"'":
        return cell[1:-1]
    return cell


def _table(source: str, text: str, name: str, body: str, offset: int) -> CsvTable:
    where = f"table {name}"
    open_at = body.find(_CDATA_OPEN)
    if open_at < 0:
        raise InputError(
            source,
            Problem(f"{where} (line {_line_of(text, offset)})", "expected a <![CDATA[ block"),
        )
    content_start = open_at + len(_CDATA_OPEN)
    close_at = body.find(_CDATA_CLOSE, content_start)
    if close_at < 0:
        raise InputError(
            source,
            Problem(
                f"{where} (line {_line_of(text, offset + open_at)})",
                "the CDATA block is not closed with ]]>; the file looks truncated",
            ),
        )
    if body.find(_CDATA_OPEN, content_start) >= 0:
        raise InputError(source, Problem(where, "expected exactly one CDATA block in the table"))
    first_line = _line_of(text, offset + content_start)
    lines = body[content_start:close_at].split("\n")
    header: tuple[str, ...] | None = None
    header_line = first_line
    rows: list[CsvRow] = []
    for index, raw in enumerate(lines):
        line_text = raw.strip()
        if not line_text:
            continue
        if header is None:
            header_line = first_line + index
            header = tuple(split_csv_line(line_text, source, f"{where} (line {header_line})"))
        else:
            rows.append(CsvRow(first_line + index, line_text))
    if header is None:
        raise InputError(source, Problem(where, "expected a CSV header row in the CDATA block"))
    return CsvTable(name, header, header_line, tuple(rows))


def _check_root_open(source: str, text: str, root: str) -> None:
    if f"<{root}" not in text:
        raise InputError(source, Problem("", f"expected a <{root}> document"))


def _check_root_close(source: str, text: str, root: str) -> None:
    if f"</{root}>" not in text:
        raise InputError(
            source,
            Problem(
                f"line {text.count(chr(10)) + 1}",
                f"expected the closing </{root}> tag; the file looks truncated",
            ),
        )


def _find_all(text: str, needle: str) -> list[int]:
    found: list[int] = []
    at = text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + len(needle))
    return found


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
