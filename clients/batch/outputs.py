"""The files ``perfline batch summarize`` and ``batch sql`` write: the aggregate document,
a Parquet or CSV table, or the same on standard output.

Each file is written under a hidden temporary name beside its target and renamed over it
when complete (a reader never sees half a file; a failed write leaves the previous one);
the target's folder must exist. Cost: one write of the output.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pyarrow
from pyarrow import csv, parquet

from perfline.core.errors import InputError
from perfline.server.file_access import Root, write_bytes

FORMATS = ("json", "parquet", "csv")


def table_bytes(table: pyarrow.Table, form: str) -> bytes:
    """A table as CSV (a header line, then one line per row) or Parquet bytes."""
    sink = io.BytesIO()
    if form == "csv":
        csv.write_csv(_flat(table), sink)
    else:
        parquet.write_table(table, sink, compression="zstd")
    return sink.getvalue()


def _flat(table: pyarrow.Table) -> pyarrow.Table:
    """The table with every column CSV cannot hold (maps, lists) as JSON text."""
    for index, field in enumerate(table.schema):
        if pyarrow.types.is_nested(field.type):
            texts = [
                None if value is None else json.dumps(_plain(value), separators=(",", ":"))
                for value in table.column(index).to_pylist()
            ]
            table = table.set_column(index, field.name, pyarrow.array(texts, pyarrow.string()))
    return table


def _plain(value: object) -> object:
    """A map read back as (key, value) pairs becomes an object."""
    if isinstance(value, list) and all(isinstance(i, tuple) and len(i) == 2 for i in value):
        return dict(value) if value else {}
    return value


def write_output(target: str | None, data: bytes) -> Path | None:
    """``data`` into ``target`` (temporary file renamed over it), or on standard output
    when ``target`` is ``None``; returns the path written."""
    if target is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return None
    path = Path(target)
    if not path.parent.is_dir():
        raise InputError(target, f"folder {path.parent} does not exist")
    return write_bytes(path, data, root=Root.user_given())
