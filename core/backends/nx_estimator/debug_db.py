"""Reader of the estimator's debug database (``*_debug_database.dat``).

Tables (CSV in the XML-ish container, first column ``id``, at most three
columns): ``tosa_op_id`` (id, tosa_op, api_labels: operations on NX),
``shader_op_id`` (id, api_labels: operations on the Execution Engine),
``fused_op_id`` (id, tosa_op_ids), ``chain_op_id`` (id, fused_op_ids),
``cascade_op_id`` (id, op_ids), ``stripe_op_id`` (id, op_id, cascade_op_id),
``command_streams_id`` (id, stripe_op_indexs). Rows are split into as many
cells as the header has columns; commas in the last column belong to it
(legacy dumps do not quote them). List cells are ``;``-separated with blanks
dropped; ``api_labels`` is kept raw (label recovery needs the VGF's names).

Decides: every stripe maps to exactly one chain and one cascade (a second
value, in one cell or in a repeated row, is an error naming both places).
"""

from __future__ import annotations

from dataclasses import dataclass

from perfline.core.backends.nx_common.records import DebugLinks, TosaOperation
from perfline.core.backends.nx_estimator.container import (
    CsvTable,
    check_cell_count,
    decode,
    read_tables,
    unquote,
)
from perfline.core.errors import InputError, Problem

MAX_COLUMNS = 3
REQUIRED_TABLES: dict[str, tuple[str, ...]] = {
    "tosa_op_id": ("tosa_op", "api_labels"),
    "fused_op_id": ("tosa_op_ids",),
    "chain_op_id": ("fused_op_ids",),
    "stripe_op_id": ("op_id", "cascade_op_id"),
}
OPTIONAL_TABLES: dict[str, tuple[str, ...]] = {"shader_op_id": ("api_labels",)}


@dataclass(frozen=True)
class Row:
    """One table row: id, 1-based row number, file line, cells by column name."""

    row_id: str
    number: int
    line: int
    cells: dict[str, str]


@dataclass(frozen=True)
class DebugDatabase:
    """The links of one debug database and its tables' rows (for diagnostics)."""

    links: DebugLinks
    tables: dict[str, tuple[Row, ...]]


def read_debug_database(source: str, data: bytes) -> DebugDatabase:
    """Parse the debug database ``data`` read from ``source``."""
    tables: dict[str, tuple[Row, ...]] = {}
    for table in read_tables(source, decode(source, data), "debug_database"):
        if table.name in tables:
            raise InputError(
                source, Problem(f"table {table.name}", "expected each table name only once")
            )
        tables[table.name] = _rows(source, table)
    for name, columns in {**REQUIRED_TABLES, **OPTIONAL_TABLES}.items():
        if name not in tables:
            if name in REQUIRED_TABLES:
                raise InputError(source, Problem(f"table {name}", "expected this table"))
            continue
        _check_columns(source, name, tables[name], columns)
    stripe_chain = _single_values(source, tables["stripe_op_id"], "op_id", "chain")
    stripe_cascade = _single_values(source, tables["stripe_op_id"], "cascade_op_id", "cascade")
    links = DebugLinks(
        stripe_chain=stripe_chain,
        stripe_cascade=stripe_cascade,
        chain_fused=_lists(tables["chain_op_id"], "fused_op_ids"),
        fused_tosa=_lists(tables["fused_op_id"], "tosa_op_ids"),
        nx_operations={
            row.row_id: TosaOperation(row.row_id, row.cells["tosa_op"], row.cells["api_labels"])
            for row in tables["tosa_op_id"]
        },
        ee_operations={
            row.row_id: TosaOperation(row.row_id, None, row.cells["api_labels"])
            for row in tables.get("shader_op_id", ())
        },
    )
    return DebugDatabase(links, tables)


def split_list(cell: str) -> tuple[str, ...]:
    """A ``;``-separated list cell, items trimmed, blanks dropped."""
    return tuple(item.strip() for item in cell.split(";") if item.strip())


def _rows(source: str, table: CsvTable) -> tuple[Row, ...]:
    header = table.header
    if not header or header[0] != "id":
        raise InputError(
            source,
            Problem(
                f"table {table.name}, header (line {table.header_line})",
                "expected the first column to be 'id'",
            ),
        )
    if len(header) > MAX_COLUMNS:
        raise InputError(
            source,
            Problem(
                f"table {table.name}, header (line {table.header_line})",
                f"expected at most {MAX_COLUMNS} columns, found {len(header)}",
            ),
        )
    rows: list[Row] = []
    for number, row in enumerate(table.rows, start=1):
        parts = row.text.split(",", len(header) - 1)
        check_cell_count(source, table.name, number, row, header, len(parts))
        cells = [unquote(part) for part in parts[:-1]] + [_last_cell(parts[-1])]
        row_id = cells[0]
        if not row_id:
            raise InputError(
                source,
                Problem(
                    f"table {table.name}, row {number} (line {row.line}), column id",
                    "expected an id, got an empty cell",
                ),
            )
        rows.append(Row(row_id, number, row.line, dict(zip(header, cells, strict=True))))
    return tuple(rows)


def _last_cell(text: str) -> str:
    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] == '"' and stripped.count('"') == 2:
        return stripped[1:-1]
    if len(stripped) >= 2 and stripped[0] == stripped[-1] == "'" and stripped.count("'") == 2:
        return stripped[1:-1]
    return stripped


def _check_columns(source: str, name: str, rows: tuple[Row, ...], columns: tuple[str, ...]) -> None:
    if not rows:
        return
    missing = [column for column in columns if column not in rows[0].cells]
    if missing:
        raise InputError(
            source,
            Problem(f"table {name}, header", f"expected columns id, {', '.join(columns)}"),
        )


def _single_values(source: str, rows: tuple[Row, ...], column: str, what: str) -> dict[str, str]:
    mapped: dict[str, tuple[str, Row]] = {}
    for row in rows:
        values = split_list(row.cells[column])
        where = f"table stripe_op_id, row {row.number} (line {row.line}), column {column}"
        if len(values) != 1:
            found = ", ".join(values) if values else "none"
            raise InputError(
                source,
                Problem(
                    where,
                    f"stripe {row.row_id} must map to exactly one {what}, found {found}",
                ),
            )
        earlier = mapped.get(row.row_id)
        if earlier is not None and earlier[0] != values[0]:
            raise InputError(
                source,
                Problem(
                    where,
                    f"stripe {row.row_id} must map to exactly one {what}, but it maps to "
                    f"{earlier[0]} (row {earlier[1].number}) and {values[0]}",
                ),
            )
        mapped[row.row_id] = (values[0], row)
    return {stripe: value for stripe, (value, _) in mapped.items()}


def _lists(rows: tuple[Row, ...], column: str) -> dict[str, tuple[str, ...]]:
    lists: dict[str, tuple[str, ...]] = {}
    for row in rows:
        lists[row.row_id] = lists.get(row.row_id, ()) + split_list(row.cells[column])
    return lists
