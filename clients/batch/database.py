"""DuckDB over a batch store: the views ``summarize`` and ``batch sql`` query.

The store's good files (``store.scan``) are registered as Arrow datasets (DuckDB reads
them where they lie, column by column, with the filters pushed down), and these views are
defined over them, by constant SQL:

* ``runs``: one row per run the store holds (status ``ok``), each content hash once: when
  two batches stored the same run, the row of the first by (batch id, chunk) counts;
* ``figures``: the figure rows of exactly those runs (a row part whose runs file is
  missing, or a second copy of a run, is not seen), with the run's ``structure`` key and
  document ``timestamp``;
* ``failures``: the runs that failed (input, reason), unless the same content was stored
  by another batch;
* ``all_runs`` / ``all_rows``: every row of every good file, duplicates included.

No SQL text is ever made from the store's contents (file names, labels, values): the
files are handed over as datasets, and only the user's own ``--where`` text and the
validated names of ``--group-by`` enter a query. Once the views exist, the connection's
access to files is switched off and locked: a query can read the store and nothing else.
Cost: a scan of the columns a query reads.
"""

from __future__ import annotations

from typing import Final

import duckdb

from perfline.clients.batch.store import Scan

_VIEWS: Final = (
    "CREATE VIEW all_runs AS SELECT * FROM runs_raw",
    "CREATE VIEW all_rows AS SELECT * FROM rows_raw",
    """CREATE VIEW runs AS
    SELECT * EXCLUDE (pick) FROM (
        SELECT *, row_number() OVER (PARTITION BY content_hash ORDER BY batch_id, chunk) AS pick
        FROM runs_raw WHERE status = 'ok' AND content_hash IS NOT NULL
    ) WHERE pick = 1""",
    """CREATE VIEW figures AS
    SELECT f.*, r.structure, r.timestamp
    FROM rows_raw f JOIN runs r
    ON f.content_hash = r.content_hash AND f.batch_id = r.batch_id AND f.chunk = r.chunk""",
    """CREATE VIEW failures AS
    SELECT input, reason, content_hash, labels, batch_id, chunk FROM runs_raw
    WHERE status = 'failed'
    AND (content_hash IS NULL OR content_hash NOT IN (SELECT content_hash FROM runs))""",
)


def connect(scan: Scan) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the store's views and no file access."""
    connection = duckdb.connect(":memory:")
    connection.register("rows_raw", scan.rows)
    connection.register("runs_raw", scan.runs)
    for statement in _VIEWS:
        connection.execute(statement)
    connection.execute("SET enable_external_access = false")
    connection.execute("SET lock_configuration = true")
    return connection
