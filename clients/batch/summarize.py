"""``perfline batch summarize``: the store's runs -> per-figure statistics -> one document.

DuckDB (``clients.batch.database``) groups the ``figures`` view by run group (runtime,
target, model hash, result index, kind, producer, mode, and the user's ``--group-by``
keys) and by figure (entity, metric, unit, qualifiers), after the user's ``--where``, and
computes each figure's count, median, p10 and p90 (``quantile_cont``: linear
interpolation between the closest ranks), min, max and MAD (median absolute deviation).
For the document, three more scans give the per-run values of each group's first
``runs_kept`` runs by content hash (only those runs' rows are gathered into lists), each
group's structures with their run counts, and the content hashes of the runs summarised
(the document's run id). ``core.batch.aggregate`` writes the document; the
``table`` is the statistics alone (Parquet or CSV output).

Files of the store that are foreign or damaged are left out and named in ``problems``:
by name and footer before the queries, and, when a query still fails on a file's data,
by reading every file whole, then the queries run again without them.
Cost: up to four scans of the columns they read; the client holds the statistics only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import duckdb
import pyarrow

from perfline.clients.batch import store
from perfline.clients.batch.database import connect
from perfline.core.batch.aggregate import FigureStats, GroupFigures, Summary, aggregate_document
from perfline.core.batch.content import summary_run_id
from perfline.core.errors import InputError, Problem

#: The group columns every summary has, in order.
GROUP_COLUMNS: Final = ("runtime", "target", "model_hash", "result", "kind", "producer", "mode")
#: Run columns ``--group-by`` may name (besides ``label.NAME``).
GROUPABLE: Final = ("runtime", "target", "model_hash", "git_commit", "run_id", "batch_id")
_LABEL = re.compile(r"labels?\.([A-Za-z0-9_.-]+)")
_STATISTICS: Final = (
    "count(*) AS samples, median(value) AS median, quantile_cont(value, 0.1) AS p10, "
    "quantile_cont(value, 0.9) AS p90, min(value) AS minimum, max(value) AS maximum, "
    "mad(value) AS mad"
)
_FIGURE: Final = ("entity_id", "metric", "unit", "qualifiers")


@dataclass(frozen=True)
class Request:
    """What ``summarize`` is asked."""

    where: str | None = None
    group_by: tuple[str, ...] = ()
    runs_kept: int = 200


@dataclass(frozen=True)
class Outcome:
    """The aggregate document, the statistics table, and the files left out."""

    document: dict[str, Any] | None
    table: pyarrow.Table | None
    problems: tuple[tuple[str, str], ...]


def group_keys(names: Sequence[str]) -> list[tuple[str, str]]:
    """(output name, SQL expression) of each ``--group-by`` key; ``InputError`` for a key
    that is neither a run column nor ``label.NAME``."""
    keys: list[tuple[str, str]] = []
    for name in names:
        if name in GROUP_COLUMNS:
            continue  # always a group column
        if name in GROUPABLE:
            keys.append((name, name))
            continue
        label = _LABEL.fullmatch(name)
        if label is None:
            raise InputError(
                "perfline batch summarize",
                Problem(
                    "--group-by",
                    f"unknown key {name!r}: expected one of {', '.join(GROUPABLE)} "
                    "or label.NAME (a --label of batch run)",
                ),
            )
        keys.append((f"label.{label.group(1)}", f"labels['{label.group(1)}']"))
    return keys


def summarize(root: Path, request: Request, *, document: bool, arguments: Sequence[str]) -> Outcome:
    """The statistics of the store's runs (``document``: and the aggregate document)."""
    if request.where is not None and ";" in request.where:
        raise InputError(
            "perfline batch summarize", Problem("--where", "one SQL condition, without ';'")
        )
    keys = group_keys(request.group_by)
    scan = store.scan(root)
    try:
        return _summarize(root, scan, keys, request, document, arguments)
    except duckdb.Error as error:
        damaged = [
            (path, problem)
            for path in (*scan.row_files, *scan.run_files)
            if (problem := store.whole_problem(path)) is not None
        ]
        if not damaged:
            raise _query_error(error) from None
        again = store.scan(root, leave_out=[path for path, _ in damaged])
        outcome = _summarize(root, again, keys, request, document, arguments)
        return Outcome(outcome.document, outcome.table, (*outcome.problems, *damaged))


def _summarize(
    root: Path,
    scan: store.Scan,
    keys: list[tuple[str, str]],
    request: Request,
    document: bool,
    arguments: Sequence[str],
) -> Outcome:
    connection = connect(scan)
    try:
        where = f"WHERE ({request.where})" if request.where else ""
        extra = "".join(f', {expression} AS "{name}"' for name, expression in keys)
        picked = f"(SELECT *{extra} FROM figures {where}) AS picked"
        groups = ", ".join([*GROUP_COLUMNS, *(f'"{name}"' for name, _ in keys)])
        figure = ", ".join(_FIGURE)
        statistics = connection.sql(
            f"SELECT {groups}, {figure}, {_STATISTICS}, "
            "min(entity_kind) AS entity_kind, min(file) AS file, min(line) AS line, "
            f"min(statistic) AS statistic FROM {picked} "
            f"GROUP BY {groups}, {figure} "
            f"ORDER BY {groups}, entity_id NULLS FIRST, metric, unit, qualifiers"
        ).to_arrow_table()
        if statistics is None or statistics.num_rows == 0:
            raise InputError(
                str(root),
                "no runs to summarise" + (f" (--where {request.where})" if request.where else ""),
            )
        problems = list(scan.problems)
        built = None
        if document:
            # each group's first runs by content hash: their values are the kept ones
            runs = connection.sql(
                f"WITH kept AS (SELECT content_hash, result FROM "
                f"(SELECT DISTINCT {groups}, content_hash FROM {picked}) "
                f"QUALIFY row_number() OVER (PARTITION BY {groups} ORDER BY content_hash) "
                f"<= $kept) SELECT {groups}, {figure}, list(value ORDER BY content_hash) AS runs "
                f"FROM {picked} SEMI JOIN kept ON picked.content_hash = kept.content_hash "
                f"AND picked.result = kept.result GROUP BY {groups}, {figure}",
                params={"kept": request.runs_kept},
            ).fetchall()
            structures = connection.execute(
                f"SELECT {_qualified(groups)}, r.structure, count(*) AS runs, "
                f"max(r.timestamp) AS timestamp FROM (SELECT DISTINCT {groups}, content_hash "
                f"FROM {picked}) g JOIN runs r ON g.content_hash = r.content_hash "
                "GROUP BY ALL ORDER BY ALL"
            ).fetchall()
            hashes = connection.execute(
                f"SELECT DISTINCT content_hash FROM {picked} ORDER BY content_hash"
            )
            width = len(GROUP_COLUMNS) + len(keys)
            lists = {tuple(row[: width + len(_FIGURE)]): row[-1] for row in runs}
            built = _document(
                root, statistics, lists, structures, hashes, width, request, arguments, problems
            )
        return Outcome(built, statistics, tuple(problems))
    finally:
        connection.close()


def _qualified(groups: str) -> str:
    """The group columns as columns of the subquery ``g``."""
    return ", ".join(f"g.{column.strip()}" for column in groups.split(","))


def _query_error(error: duckdb.Error) -> InputError:
    message = str(error).splitlines()[0] if str(error) else type(error).__name__
    hint = ""
    if "Referenced column" in message:
        hint = " (in SQL, text takes single quotes: runtime = 'xnnpack')"
    return InputError("perfline batch", Problem("query", f"{message}{hint}"))


def _hashes(cursor: duckdb.DuckDBPyConnection) -> Iterator[str]:
    while batch := cursor.fetchmany(10_000):
        for (content,) in batch:
            yield content


def _document(
    root: Path,
    statistics: pyarrow.Table,
    lists: dict[tuple[Any, ...], list[float]],
    structures: list[tuple[Any, ...]],
    hashes: duckdb.DuckDBPyConnection,
    width: int,
    request: Request,
    arguments: Sequence[str],
    problems: list[tuple[str, str]],
) -> dict[str, Any]:
    names = statistics.column_names[:width]
    counts: dict[tuple[Any, ...], dict[str, int]] = {}
    stamps: dict[tuple[Any, ...], str] = {}
    for row in structures:
        key, structure, runs, stamp = tuple(row[:width]), row[width], row[width + 1], row[width + 2]
        counts.setdefault(key, {})[structure] = int(runs)
        if stamp is not None and stamp > stamps.get(key, ""):
            stamps[key] = stamp
    figures = _figures(statistics, lists, width)
    read: dict[str, dict[str, Any] | None] = {}
    groups: list[GroupFigures] = []
    for key, found in counts.items():
        chosen = _structure(root, found, read, problems)
        if chosen is None:
            problems.append((str(root / store.STRUCTURES), f"no readable structure for {key}"))
            continue
        structure, structure_key = chosen
        groups.append(
            GroupFigures(
                key=tuple(zip(names, key, strict=True)),
                result=int(key[GROUP_COLUMNS.index("result")]),
                structure=structure,
                runs=sum(found.values()),
                structure_runs=found[structure_key],
                figures=figures.get(key, []),
            )
        )
    runs = sum(group.runs for group in groups)
    summary = Summary(
        run_id=summary_run_id(_hashes(hashes)),
        timestamp=max(stamps.values(), default="1970-01-01T00:00:00Z"),
        runs=runs,
        runs_kept=request.runs_kept,
        notes=f"perfline batch summarize: each figure is the median of {runs:,} runs "
        "(p10, p90, min, max, MAD and the runs' values under extensions.perfline)",
        cli_arguments=tuple(arguments),
        where=request.where,
    )
    return aggregate_document(groups, summary)


def _structure(
    root: Path,
    found: dict[str, int],
    read: dict[str, dict[str, Any] | None],
    problems: list[tuple[str, str]],
) -> tuple[dict[str, Any], str] | None:
    """The readable structure most of a group's runs share (ties: the smaller key)."""
    for key in sorted(found, key=lambda k: (-found[k], k)):
        if key not in read:
            structure, problem = store.read_structure(root, key)
            read[key] = structure
            if problem is not None:
                problems.append((str(root / store.STRUCTURES / f"{key}.json"), problem))
        structure = read[key]
        if structure is not None:
            return structure, key
    return None


def _figures(
    statistics: pyarrow.Table, lists: dict[tuple[Any, ...], list[float]], width: int
) -> dict[tuple[Any, ...], list[FigureStats]]:
    columns = statistics.to_pydict()
    names = statistics.column_names
    found: dict[tuple[Any, ...], list[FigureStats]] = {}
    for index in range(statistics.num_rows):
        key = tuple(columns[name][index] for name in names[:width])
        figure = tuple(columns[name][index] for name in _FIGURE)
        found.setdefault(key, []).append(
            FigureStats(
                entity_id=columns["entity_id"][index],
                metric=columns["metric"][index],
                unit=columns["unit"][index],
                qualifiers=columns["qualifiers"][index] or "",
                samples=int(columns["samples"][index]),
                median=float(columns["median"][index]),
                p10=float(columns["p10"][index]),
                p90=float(columns["p90"][index]),
                minimum=float(columns["minimum"][index]),
                maximum=float(columns["maximum"][index]),
                mad=float(columns["mad"][index]),
                runs=tuple(float(v) for v in lists.get((*key, *figure), ())),
            )
        )
    return found
