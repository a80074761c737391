"""I/O edge of the ETRecord/ETDump backend: read the files, hand bytes to the pure code.

Used by the CLI and the daemon. The document's timestamp is the newest
input's modification time (so the same files give the same bytes); file
problems become ``InputError`` naming the path.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfline.core.backends.executorch.document import analyze_etdump
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.envelope import iso_timestamp
from perfline.server.ingest.named_files import read_named

ETRECORD_SUFFIXES = (".etrecord", ".bin")
ETDUMP_SUFFIXES = (".etdump", ".etdp")


def read_input(path: Path, what: str) -> tuple[InputFile, float]:
    """The file's bytes (as an ``InputFile``) and its modification time."""
    read = read_named(path, what)
    return InputFile(str(path), read.data), read.mtime


def load_etdump_document(
    etrecord: Path,
    etdump: Path,
    *,
    method: str | None = None,
    companion_model: Path | None = None,
    cli_arguments: Sequence[str] = (),
) -> dict[str, Any]:
    """The raw (not post-processed) measured document of an ETRecord/ETDump pair."""
    record_file, record_time = read_input(etrecord, "ETRecord")
    dump_file, dump_time = read_input(etdump, "ETDump")
    times = [record_time, dump_time]
    companion_file = None
    if companion_model is not None:
        companion_file, companion_time = read_input(companion_model, "companion model")
        times.append(companion_time)
    return analyze_etdump(
        record_file,
        dump_file,
        timestamp=iso_timestamp(max(times)),
        method=method,
        companion_model=companion_file,
        cli_arguments=cli_arguments,
    )
