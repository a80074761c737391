"""The task a worker runs: one chunk of runs, analysed and written into the store.

``run_chunk`` is what every executor maps over the chunks (a Dask worker, or the client
itself with ``--in-process``): for each run spec of the chunk it hashes the run's files
(``core.batch.content``), skips a run the store already holds (or the chunk already had),
analyses the others with the very code of ``perfline analyze`` / ``compare``
(``clients.cli.run_spec.load_run``), turns each processed document into rows
(``core.batch.rows``) and its structure (``core.batch.structure``), and writes the chunk's
row parts and then its runs file (``clients.batch.store``). A run that fails is one runs
row with its reason; the chunk goes on. Only a ``ChunkSummary`` (counts and the failures)
goes back to the client.

A chunk's files are named by its batch and number: when an earlier attempt of the same
chunk already wrote its runs file (the worker died after writing it), the task reads the
summary back from it instead of analysing again. Per process, the store's committed
content hashes are read once per batch, and the structures already written are
remembered. Cost: one analysis per new run, plus one read of each input to hash it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow

from perfline import __version__
from perfline.clients.batch import store
from perfline.clients.cli.run_spec import load_run, run_files
from perfline.core.batch.content import content_hash, file_digest
from perfline.core.batch.rows import FigureColumns, RunIdentity, figure_rows, run_identity
from perfline.core.batch.structure import canonical_text, run_structure, structure_key
from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings
from perfline.server.file_access import Root, read_bytes

STORED = "ok"
FAILED = "failed"
#: The label whose value is a run's git commit.
COMMIT_LABELS = ("git_commit", "commit")


@dataclass(frozen=True)
class ChunkTask:
    """One chunk of a batch: what a worker needs and nothing more (it is sent to it)."""

    store: str
    batch_id: str
    chunk: int
    specs: tuple[str, ...]
    labels: tuple[tuple[str, str], ...] = ()
    settings: PipelineSettings = field(default_factory=PipelineSettings)


@dataclass(frozen=True)
class ChunkSummary:
    """What comes back from a chunk: counts, and each failed run's spec and reason."""

    chunk: int
    stored: int
    skipped: int
    failed: tuple[tuple[str, str], ...]
    rows: int
    seconds: float
    again: bool = False
    """The chunk's files were already written by an earlier attempt."""


#: Per process: (store, batch) -> the content hashes the store held when first asked.
_KNOWN: dict[tuple[str, str], frozenset[str]] = {}
#: Per process: (store, structure key) already written.
_STRUCTURES: set[tuple[str, str]] = set()


def run_chunk(task: ChunkTask) -> ChunkSummary:
    """Analyse and store one chunk (see the module docstring)."""
    started = time.perf_counter()
    root = Path(task.store)
    earlier = store.chunk_runs(root, task.batch_id, task.chunk)
    if earlier is not None:
        return _summary_of(task, earlier, time.perf_counter() - started)
    known = _known(task)
    seen: set[str] = set()
    parts: dict[tuple[str, str], _Part] = {}
    runs = _Runs()
    skipped = 0
    for spec in task.specs:
        try:
            digest = _content_hash(spec)
        except InputError as error:
            runs.failed(spec, None, error.render(), task)
            continue
        if digest in known or digest in seen:
            skipped += 1
            continue
        seen.add(digest)
        try:
            document, _ = load_run(spec, "run", task.settings, command="batch")
            identity = run_identity(document)
            columns = figure_rows(document)
            text = canonical_text(run_structure(document))
        except InputError as error:
            runs.failed(spec, digest, error.render(), task)
            continue
        except Exception as error:  # a failure of the analysis, not of the batch
            runs.failed(spec, digest, f"internal error: {type(error).__name__}: {error}", task)
            continue
        key = structure_key(text)
        if (task.store, key) not in _STRUCTURES:
            store.write_structure(root, key, text)
            _STRUCTURES.add((task.store, key))
        part = parts.setdefault((identity.runtime, identity.target), _Part())
        part.add(columns, digest, identity, task)
        runs.stored(spec, digest, identity, key, len(columns), task)
    for old in store.chunk_partitions(root, task.batch_id, task.chunk) - parts.keys():
        parts[old] = _Part()  # an earlier attempt's part: replaced, with none of its rows
    for (runtime, target), part in sorted(parts.items()):
        path = store.part_path(root, runtime, target, task.batch_id, task.chunk)
        store.write_table(root, path, part.table())
    if runs.count:
        store.write_table(root, store.runs_path(root, task.batch_id, task.chunk), runs.table())
    return ChunkSummary(
        chunk=task.chunk,
        stored=runs.count - len(runs.failures),
        skipped=skipped,
        failed=tuple(runs.failures),
        rows=sum(len(part) for part in parts.values()),
        seconds=time.perf_counter() - started,
    )


def _content_hash(spec: str) -> str:
    """The run's content hash from its files' bytes (``InputError`` when one is missing)."""
    files = run_files(spec)
    if not files:
        raise InputError(spec, "no input files")
    return content_hash(_input_digest(path) for path in files)


def _input_digest(path: Path) -> str:
    """The SHA-256 of one input file (the only input read of this module)."""
    return file_digest(read_bytes(path, root=Root.user_given()))


def _known(task: ChunkTask) -> frozenset[str]:
    key = (task.store, task.batch_id)
    found = _KNOWN.get(key)
    if found is None:
        _KNOWN.clear()  # one batch at a time per process
        found = _KNOWN[key] = store.committed_hashes(Path(task.store))
    return found


def commit_of(labels: tuple[tuple[str, str], ...]) -> str | None:
    """The git commit a batch's labels name (``git_commit=...`` or ``commit=...``)."""
    named = dict(labels)
    return next((named[name] for name in COMMIT_LABELS if name in named), None)


class _Part:
    """The rows of one partition of a chunk, column by column."""

    def __init__(self) -> None:
        self.columns: dict[str, list[Any]] = {name: [] for name in store.ROWS_SCHEMA.names}

    def __len__(self) -> int:
        return len(self.columns["value"])

    def add(self, rows: FigureColumns, digest: str, identity: RunIdentity, task: ChunkTask) -> None:
        count = len(rows)
        constants = {
            "content_hash": digest,
            "run_id": identity.run_id,
            "batch_id": task.batch_id,
            "chunk": task.chunk,
            "labels": list(task.labels),
            "git_commit": commit_of(task.labels),
            "model_hash": identity.model_hash,
            "runtime": identity.runtime,
            "target": identity.target,
        }
        for name, value in constants.items():
            self.columns[name].extend([value] * count)
        for name, values in rows.as_dict().items():
            self.columns[name].extend(values)

    def table(self) -> pyarrow.Table:
        return pyarrow.table(self.columns, schema=store.ROWS_SCHEMA)


class _Runs:
    """The runs file of a chunk, row by row."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.failures: list[tuple[str, str]] = []

    @property
    def count(self) -> int:
        return len(self.rows)

    def stored(
        self,
        spec: str,
        digest: str,
        identity: RunIdentity,
        structure: str,
        rows: int,
        task: ChunkTask,
    ) -> None:
        self._add(task, spec, digest, STORED, None, identity, structure, rows)

    def failed(self, spec: str, digest: str | None, reason: str, task: ChunkTask) -> None:
        self.failures.append((spec, reason))
        self._add(task, spec, digest, FAILED, reason, None, None, 0)

    def _add(
        self,
        task: ChunkTask,
        spec: str,
        digest: str | None,
        status: str,
        reason: str | None,
        identity: RunIdentity | None,
        structure: str | None,
        rows: int,
    ) -> None:
        self.rows.append(
            {
                "content_hash": digest,
                "run_id": identity.run_id if identity else None,
                "input": spec,
                "status": status,
                "reason": reason,
                "labels": list(task.labels),
                "git_commit": commit_of(task.labels),
                "model_hash": identity.model_hash if identity else None,
                "runtime": identity.runtime if identity else None,
                "target": identity.target if identity else None,
                "structure": structure,
                "timestamp": identity.timestamp if identity else None,
                "rows": rows,
                "batch_id": task.batch_id,
                "chunk": task.chunk,
                "perfline_version": __version__,
            }
        )

    def table(self) -> pyarrow.Table:
        return pyarrow.Table.from_pylist(self.rows, schema=store.RUNS_SCHEMA)


def _summary_of(task: ChunkTask, runs: pyarrow.Table, seconds: float) -> ChunkSummary:
    """The summary of a chunk an earlier attempt wrote (its skipped runs are not known:
    they are counted as skipped again)."""
    status = runs.column("status").to_pylist()
    inputs = runs.column("input").to_pylist()
    reasons = runs.column("reason").to_pylist()
    rows = runs.column("rows").to_pylist()
    failed = tuple(
        (str(spec), str(reason))
        for spec, state, reason in zip(inputs, status, reasons, strict=True)
        if state == FAILED
    )
    stored = sum(1 for state in status if state == STORED)
    return ChunkSummary(
        chunk=task.chunk,
        stored=stored,
        skipped=len(task.specs) - stored - len(failed),
        failed=failed,
        rows=sum(int(count or 0) for count in rows),
        seconds=seconds,
        again=True,
    )
