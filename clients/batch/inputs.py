"""The runs of a batch, streamed: command-line inputs, then ``--from-list FILE``.

Each input is one run spec (``clients.cli.run_spec``): a document, an output folder, or
comma-joined inputs. Paths are made absolute here, so every worker reads the same files
whatever its own folder: relative paths of the command line against the current folder,
those of a list file against the list file's folder. A list file has one run per line;
blank lines and lines starting with ``#`` are skipped. The list is read line by line,
never held whole (``count_runs`` reads it once more, to know the total), and chunks are
made as the executor asks for them. Cost: linear in the list, constant memory.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path

from perfline.clients.batch.worker import ChunkTask
from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings
from perfline.server.file_access import Root, open_stream


def absolute_spec(spec: str, base: Path) -> str:
    """``spec`` with each comma-joined part made absolute against ``base``."""
    parts = [part for part in spec.split(",") if part]
    return ",".join(os.path.normpath(base / os.path.expanduser(part)) for part in parts)


def _list_lines(path: str) -> Iterator[str]:
    """The run lines of a list file, streamed (the only read of this module)."""
    stream = open_stream(path, root=Root.user_given(), kind="other", gzip=False)
    with io.TextIOWrapper(io.BufferedReader(stream), encoding="utf-8") as lines:
        read = 0
        try:
            for line in lines:
                read += 1
                text = line.strip()
                if text and not text.startswith("#"):
                    yield text
        except UnicodeDecodeError:
            raise InputError(path, f"line {read + 1}: not UTF-8 text (--from-list)") from None


def run_specs(inputs: Sequence[str], list_file: str | None) -> Iterator[str]:
    """Every run spec, absolute, in order: the command line's, then the list's."""
    here = Path.cwd()
    for spec in inputs:
        yield absolute_spec(spec, here)
    if list_file is not None:
        base = Path(list_file).resolve().parent
        for spec in _list_lines(list_file):
            yield absolute_spec(spec, base)


def count_runs(inputs: Sequence[str], list_file: str | None) -> int:
    """How many runs ``run_specs`` will give."""
    listed = sum(1 for _ in _list_lines(list_file)) if list_file is not None else 0
    return len(inputs) + listed


def chunk_tasks(
    specs: Iterator[str],
    *,
    size: int,
    store: str,
    batch_id: str,
    labels: tuple[tuple[str, str], ...],
    settings: PipelineSettings,
) -> Iterator[ChunkTask]:
    """The chunks of ``size`` runs, numbered from 0, made as they are asked for."""
    number = 0
    while True:
        chunk = tuple(islice(specs, size))
        if not chunk:
            return
        yield ChunkTask(store, batch_id, number, chunk, labels, settings)
        number += 1
