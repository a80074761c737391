"""Reader of the estimator's performance database (``*_performance_database.dat``).

One CSV table ``performance`` in the XML-ish container, one row per stripe:
``id``, ``opCycles``, ``totalCycles`` (integers), the packed column
``memoryName;readBytes;writeBytes;trafficCycles`` (groups of four) and
``sectionName;cycles`` (groups of two); a trailing ``;`` is allowed, an
incomplete group is not. Unknown columns are ignored. Rows keep file order
(stripe ids are not sorted). Every error names the file, the row (with its
line) and the column, and says what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfline.core.backends.nx_common.records import (
    MemoryTraffic,
    Number,
    SectionCycles,
    StripeRow,
)
from perfline.core.backends.nx_estimator.container import (
    CsvRow,
    check_cell_count,
    decode,
    read_single_cdata,
    split_csv_line,
)
from perfline.core.errors import InputError, Problem

MEMORY_COLUMN = "memoryName;readBytes;writeBytes;trafficCycles"
SECTION_COLUMN = "sectionName;cycles"
REQUIRED = ("id", "opCycles", "totalCycles")


@dataclass(frozen=True)
class PerformanceDatabase:
    """The stripes of one estimator run, in file order."""

    stripes: tuple[StripeRow, ...]


def read_performance_database(source: str, data: bytes) -> PerformanceDatabase:
    """Parse the performance database ``data`` read from ``source``."""
    table = read_single_cdata(source, decode(source, data), "performance_database")
    header = table.header
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise InputError(
            source,
            Problem(
                f"table {table.name}, header (line {table.header_line})",
                f"expected columns {', '.join(REQUIRED)}; missing {', '.join(missing)}",
            ),
        )
    stripes: list[StripeRow] = []
    seen: dict[str, int] = {}
    for number, row in enumerate(table.rows, start=1):
        stripe = _stripe(source, table.name, header, number, row)
        if stripe.stripe_id in seen:
            raise InputError(
                source,
                Problem(
                    _where(table.name, number, row, "id"),
                    f"stripe id {stripe.stripe_id} already appears in row {seen[stripe.stripe_id]}",
                ),
            )
        seen[stripe.stripe_id] = number
        stripes.append(stripe)
    return PerformanceDatabase(tuple(stripes))


def _stripe(
    source: str, table: str, header: tuple[str, ...], number: int, row: CsvRow
) -> StripeRow:
    cells = split_csv_line(row.text, source, f"table {table}, row {number} (line {row.line})")
    check_cell_count(source, table, number, row, header, len(cells))
    values = dict(zip(header, cells, strict=True))

    def integer(column: str) -> int:
        text = values[column]
        try:
            return int(text)
        except ValueError:
            raise InputError(
                source,
                Problem(_where(table, number, row, column), f"expected an integer, got {text!r}"),
            ) from None

    memory: tuple[MemoryTraffic, ...] = ()
    if MEMORY_COLUMN in values:
        groups = _groups(source, table, number, row, MEMORY_COLUMN, values[MEMORY_COLUMN], 4)
        memory = tuple(MemoryTraffic(g[0], *(_number_of(g, i) for i in (1, 2, 3))) for g in groups)
    sections: tuple[SectionCycles, ...] = ()
    if SECTION_COLUMN in values:
        groups = _groups(source, table, number, row, SECTION_COLUMN, values[SECTION_COLUMN], 2)
        sections = tuple(SectionCycles(g[0], _number_of(g, 1)) for g in groups)
    return StripeRow(
        stripe_id=str(integer("id")),
        op_cycles=integer("opCycles"),
        total_cycles=integer("totalCycles"),
        memory=memory,
        sections=sections,
    )


def _groups(
    source: str, table: str, number: int, row: CsvRow, column: str, cell: str, size: int
) -> list[tuple[str, tuple[Number, ...]]]:
    items = cell.split(";")
    if items and items[-1].strip() == "":
        items = items[:-1]
    items = [item.strip() for item in items]
    where = _where(table, number, row, column)
    if len(items) % size:
        raise InputError(
            source,
            Problem(
                where,
                f"expected groups of {size} ';'-separated items ({column}); "
                f"the last group has {len(items) % size}",
            ),
        )
    groups: list[tuple[str, tuple[Number, ...]]] = []
    for start in range(0, len(items), size):
        name = items[start]
        if not name:
            raise InputError(
                source, Problem(where, f"item {start + 1}: expected a name, got an empty item")
            )
        numbers: list[Number] = []
        for offset in range(1, size):
            text = items[start + offset]
            try:
                numbers.append(float(text) if "." in text else int(text))
            except ValueError:
                field = column.split(";")[offset]
                raise InputError(
                    source,
                    Problem(
                        where,
                        f"{name}: expected a number for {field}, got {text!r}",
                    ),
                ) from None
        groups.append((name, tuple(numbers)))
    return groups


def _number_of(group: tuple[str, tuple[Number, ...]], index: int) -> Number:
    return group[1][index - 1]


def _where(table: str, number: int, row: CsvRow, column: str) -> str:
    return f"table {table}, row {number} (line {row.line}), column {column}"
