"""DuckDB over a batch store: the views ``summarize`` and ``batch sql`` query.

The store's good files (``store.scan``) are given to DuckDB's Parquet reader as a list
(``read_parquet`` through the Python API: the names are not written into SQL here; it reads
them where they lie, column by column, skipping files by their column statistics), and these
views are
defined over them, by constant SQL:

* ``runs``: one row per run the store holds (status ``ok``), each content hash once: when
  two batches stored the same run, the row of the first by (batch id, chunk) counts;
* ``figures``: the figure rows of exactly those runs (the rows of a run's second copy are
  left out; parts whose runs file is missing are never given to DuckDB, ``store.scan``);
* ``failures``: the runs that failed (input, reason), unless the same content was stored
  by another batch;
* ``all_runs`` / ``all_rows``: every row of every good file, duplicates included.

No SQL text is ever made from the store's contents (file names, labels, values): the
files are handed over as a list, and only the user's own ``--where`` text and the
validated names of ``--group-by`` enter a query. Once the views exist, the connection's
access to files is switched off but for the store's folder (``allowed_directories``, set
as a parameter) and locked: a query can read the store and nothing else.
Cost: a scan of the columns a query reads.
"""

from __future__ import annotations

from typing import Final

import duckdb
import pyarrow

from perfline.clients.batch.store import ROWS_SCHEMA, RUNS_SCHEMA, Scan

_VIEWS: Final = (
    "CREATE VIEW all_runs AS SELECT * FROM runs_raw",
    "CREATE VIEW all_rows AS SELECT * FROM rows_raw",
    """CREATE VIEW runs AS
    SELECT * EXCLUDE (pick) FROM (
        SELECT *, row_number() OVER (PARTITION BY content_hash ORDER BY batch_id, chunk) AS pick
        FROM runs_raw WHERE status = 'ok' AND content_hash IS NOT NULL
    ) WHERE pick = 1""",
    """CREATE VIEW failures AS
    SELECT input, reason, content_hash, labels, batch_id, chunk FROM runs_raw
    WHERE status = 'failed'
    AND (content_hash IS NULL OR content_hash NOT IN (SELECT content_hash FROM runs))""",
)
#: ``figures`` when no run is stored twice: every row of the committed parts.
_FIGURES: Final = "CREATE VIEW figures AS SELECT * FROM rows_raw"
#: ``figures`` when some run is: without the rows of its other copies.
_FIGURES_OF_FIRST_COPIES: Final = """CREATE VIEW figures AS
    SELECT f.* FROM rows_raw f ANTI JOIN (
        SELECT content_hash, batch_id, chunk FROM runs_raw WHERE status = 'ok'
        EXCEPT SELECT content_hash, batch_id, chunk FROM runs
    ) d ON f.content_hash = d.content_hash AND f.batch_id = d.batch_id AND f.chunk = d.chunk"""
_COPIES: Final = "SELECT count(*) - count(DISTINCT content_hash) FROM runs_raw WHERE status = 'ok'"


def connect(scan: Scan) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the store's views and no other file access."""
    connection = duckdb.connect(":memory:")
    _files(connection, "rows_raw", scan.row_files, ROWS_SCHEMA)
    _files(connection, "runs_raw", scan.run_files, RUNS_SCHEMA)
    for statement in _VIEWS:
        connection.execute(statement)
    copies = connection.execute(_COPIES).fetchone()
    connection.execute(_FIGURES_OF_FIRST_COPIES if copies and copies[0] else _FIGURES)
    connection.execute("SET allowed_directories = $1", [[f"{scan.root.resolve()}/"]])
    connection.execute("SET enable_external_access = false")
    connection.execute("SET lock_configuration = true")
    return connection


def _files(
    connection: duckdb.DuckDBPyConnection, name: str, files: tuple[str, ...], schema: pyarrow.Schema
) -> None:
    """A view ``name`` of the Parquet ``files`` (an empty one of ``schema`` when none)."""
    if files:
        relation = connection.read_parquet(list(files))
    else:
        relation = connection.from_arrow(schema.empty_table())
    relation.create_view(name)
