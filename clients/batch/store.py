"""The batch store on disk: every file operation of ``perfline batch`` on a store is here.

Layout (``docs/batch.md``)::

    STORE/perfline-batch-store.json                  the marker: this folder is a store
    STORE/rows/runtime=R/target=T/part-B-C.parquet   figure rows of chunk C of batch B
    STORE/runs/runs-B-C.parquet                      the runs of chunk C: the index
    STORE/structures/K.json                          a run structure, by its SHA-256 K

Every file is written under a fresh hidden name in its folder and renamed over its final
name when complete (``perfline.server.file_access``: never through a link), so a reader
sees a whole file or none, and hidden files are never read. A chunk's row
parts are renamed before its runs file: a run is in the store once the runs file naming it
is (a part without its runs file is never read), and a chunk's names are fixed by its batch
and number, so a rerun of the chunk (a worker died) replaces its files instead of adding a
second copy, every part the first attempt wrote included (``chunk_partitions``: those the
rerun has no rows for are replaced by empty ones), so a task's parts hold exactly the runs
its runs file lists. Structures are named by
their content and written once.

Reading: ``committed_hashes`` (the content hashes of the runs the store holds, for
skipping), ``chunk_runs`` (a chunk's runs file, when an earlier attempt wrote it), and
``scan`` (every file of the store checked by name and Parquet schema: the good ones listed
for DuckDB, the others named with the reason they were left out). The marker, the
structures and the runs files read for skipping go through ``file_access``; the row parts
are read by Arrow (a footer here) and DuckDB (the columns a query needs) where they lie,
only once ``scan`` has checked each is a file of this store, not a link.
Cost: writes are one file each; ``scan`` reads each Parquet footer once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pyarrow
from pyarrow import parquet

from perfline.core.errors import InputError
from perfline.server.file_access import Root, make_dirs, read_bytes, replacing, write_bytes

MARKER: Final = "perfline-batch-store.json"
MARKER_CONTENT: Final = {"perfline_batch_store": 1}
ROWS: Final = "rows"
RUNS: Final = "runs"
STRUCTURES: Final = "structures"

_LABELS = pyarrow.map_(pyarrow.string(), pyarrow.string())
#: The columns of a row part (``runtime`` and ``target`` also name its folders, hive-style;
#: they are columns too, so readers never guess their type from a folder name).
ROWS_SCHEMA: Final = pyarrow.schema(
    [
        ("content_hash", pyarrow.string()),
        ("run_id", pyarrow.string()),
        ("batch_id", pyarrow.string()),
        ("chunk", pyarrow.int32()),
        ("labels", _LABELS),
        ("git_commit", pyarrow.string()),
        ("model_hash", pyarrow.string()),
        ("runtime", pyarrow.string()),
        ("target", pyarrow.string()),
        ("result", pyarrow.int32()),
        ("kind", pyarrow.string()),
        ("producer", pyarrow.string()),
        ("mode", pyarrow.string()),
        ("entity_id", pyarrow.string()),
        ("entity_kind", pyarrow.string()),
        ("file", pyarrow.string()),
        ("line", pyarrow.int64()),
        ("metric", pyarrow.string()),
        ("unit", pyarrow.string()),
        ("statistic", pyarrow.string()),
        ("qualifiers", pyarrow.string()),
        ("value", pyarrow.float64()),
    ]
)
#: The columns of a runs file: one row per run of the chunk, stored or failed.
RUNS_SCHEMA: Final = pyarrow.schema(
    [
        ("content_hash", pyarrow.string()),
        ("run_id", pyarrow.string()),
        ("input", pyarrow.string()),
        ("status", pyarrow.string()),
        ("reason", pyarrow.string()),
        ("labels", _LABELS),
        ("git_commit", pyarrow.string()),
        ("model_hash", pyarrow.string()),
        ("runtime", pyarrow.string()),
        ("target", pyarrow.string()),
        ("structure", pyarrow.string()),
        ("timestamp", pyarrow.string()),
        ("rows", pyarrow.int64()),
        ("batch_id", pyarrow.string()),
        ("chunk", pyarrow.int32()),
        ("perfline_version", pyarrow.string()),
    ]
)
_PART_NAME = re.compile(r"part-[0-9a-f]{32}-\d+\.parquet")
_RUNS_NAME = re.compile(r"runs-[0-9a-f]{32}-\d+\.parquet")
_STRUCTURE_NAME = re.compile(r"[0-9a-f]{64}\.json")
_PARTITION = re.compile(r"(runtime|target)=[a-z0-9._-]+")


def open_store(path: str, *, create: bool) -> Path:
    """The store's folder, checked: it holds the marker (``create``: or it is made, or an
    empty folder gets the marker). A folder with other contents and no marker is refused.
    The path comes back absolute (its links not resolved)."""
    root = Path(path).absolute()
    marker = root / MARKER
    if marker.is_file() and not marker.is_symlink():
        try:
            found = json.loads(read_bytes(marker, root=Root(root), kind="config"))
        except ValueError as error:
            raise InputError(str(marker), f"not a perfline batch store marker: {error}") from None
        if found != MARKER_CONTENT:
            raise InputError(str(marker), f"not a perfline batch store marker: {found!r}")
        return root
    if not create:
        raise InputError(path, f"not a perfline batch store (no {MARKER})")
    if root.exists() and (not root.is_dir() or not _only_layout(root)):
        raise InputError(
            path,
            f"not a perfline batch store (no {MARKER}) and not an empty folder: "
            "give a new or empty folder",
        )
    make_dirs(root, root=Root.user_given())
    inside = Root(root)
    for folder in (ROWS, RUNS, STRUCTURES):
        make_dirs(root / folder, root=inside)
    write_bytes(marker, json.dumps(MARKER_CONTENT).encode("utf-8"), root=inside)
    return root


def _only_layout(root: Path) -> bool:
    """Whether a folder without the marker holds nothing but what a store being made by
    another ``batch run`` at this moment would hold."""
    names = {ROWS, RUNS, STRUCTURES}
    return all(entry.name in names or _being_written(entry.name) for entry in root.iterdir())


def part_path(root: Path, runtime: str, target: str, batch_id: str, chunk: int) -> Path:
    """Where chunk ``chunk`` of batch ``batch_id`` puts its rows of one partition."""
    folder = root / ROWS / f"runtime={runtime}" / f"target={target}"
    return folder / f"part-{batch_id}-{chunk}.parquet"


def runs_path(root: Path, batch_id: str, chunk: int) -> Path:
    """The runs file of chunk ``chunk`` of batch ``batch_id``."""
    return root / RUNS / f"runs-{batch_id}-{chunk}.parquet"


def write_table(root: Path, path: Path, table: pyarrow.Table) -> None:
    """A Parquet file written under a fresh name beside ``path`` and renamed over it."""
    with replacing(path, root=Root(root), parents=True) as out:
        parquet.write_table(table, out.file, compression="zstd")


def write_structure(root: Path, key: str, text: str) -> None:
    """A run structure under its key, unless the store already has it."""
    path = root / STRUCTURES / f"{key}.json"
    if not path.exists():
        write_bytes(path, text.encode("utf-8"), root=Root(root))


def read_structure(root: Path, key: str) -> tuple[dict[str, Any] | None, str | None]:
    """(the structure, None), or (None, why it cannot be read)."""
    if not re.fullmatch(r"[0-9a-f]{64}", key):
        return None, f"structure key {key!r} is not a SHA-256"
    path = root / STRUCTURES / f"{key}.json"
    try:
        found = json.loads(read_bytes(path, root=Root(root), kind="json"))
    except InputError as error:
        return None, error.render()
    except ValueError as error:
        return None, f"not a run structure ({error})"
    if not isinstance(found, dict) or not isinstance(found.get("results"), list):
        return None, "not a run structure (no results)"
    return found, None


def _runs_table(root: Path, path: Path, columns: list[str] | None = None) -> pyarrow.Table | None:
    """A runs file, read whole through the guarded reader; ``None`` when it cannot be."""
    try:
        data = read_bytes(path, root=Root(root), kind="other")
        return parquet.read_table(pyarrow.BufferReader(data), columns=columns)
    except (InputError, OSError, pyarrow.ArrowException):
        return None


def chunk_runs(root: Path, batch_id: str, chunk: int) -> pyarrow.Table | None:
    """The runs file of a chunk, when it exists and is whole."""
    path = runs_path(root, batch_id, chunk)
    if not path.exists():
        return None
    table = _runs_table(root, path)
    return table if table is not None and table.schema.equals(RUNS_SCHEMA) else None


def committed_hashes(root: Path) -> frozenset[str]:
    """The content hashes of every run stored (status ``ok``) in a good runs file."""
    found: set[str] = set()
    files, _ = _checked(root / RUNS, _RUNS_NAME, RUNS_SCHEMA, depth=0)
    for path in files:
        table = _runs_table(root, path, ["content_hash", "status"])
        if table is None:
            continue
        for content, status in zip(
            table.column("content_hash").to_pylist(),
            table.column("status").to_pylist(),
            strict=True,
        ):
            if status == "ok" and isinstance(content, str):
                found.add(content)
    return frozenset(found)


@dataclass(frozen=True)
class Scan:
    """The store's good files, and the files left out (path, reason)."""

    root: Path
    row_files: tuple[str, ...]
    run_files: tuple[str, ...]
    problems: tuple[tuple[str, str], ...]


def scan(root: Path, leave_out: Iterable[str] = ()) -> Scan:
    """Every row part and runs file of the store, checked by name and Parquet schema (and
    not in ``leave_out``); foreign and damaged files are named in ``problems``."""
    excluded = set(leave_out)
    rows, row_problems = _checked(root / ROWS, _PART_NAME, ROWS_SCHEMA, depth=2)
    runs, run_problems = _checked(root / RUNS, _RUNS_NAME, RUNS_SCHEMA, depth=0)
    structures = _foreign_structures(root / STRUCTURES)
    run_files = tuple(str(p) for p in runs if str(p) not in excluded)
    committed = {_chunk_of(Path(path).name) for path in run_files}
    return Scan(
        root=root,
        # a part whose runs file is not (yet) there: its task is being written, or died
        row_files=tuple(
            str(p) for p in rows if str(p) not in excluded and _chunk_of(p.name) in committed
        ),
        run_files=run_files,
        problems=(*row_problems, *run_problems, *structures),
    )


def _chunk_of(name: str) -> str:
    """``B-C`` of ``part-B-C.parquet`` or ``runs-B-C.parquet``: the task a file is of."""
    return name.split("-", 1)[1].removesuffix(".parquet")


def chunk_partitions(root: Path, batch_id: str, chunk: int) -> set[tuple[str, str]]:
    """(runtime, target) of the row parts a task already wrote (an earlier attempt's)."""
    name = f"part-{batch_id}-{chunk}.parquet"
    found: set[tuple[str, str]] = set()
    for runtime in _folders(root / ROWS):
        for target in _folders(runtime):
            if (target / name).is_file():
                found.add((runtime.name.split("=", 1)[1], target.name.split("=", 1)[1]))
    return found


def _folders(folder: Path) -> list[Path]:
    try:
        return [
            entry
            for entry in folder.iterdir()
            if _PARTITION.fullmatch(entry.name) and entry.is_dir() and not entry.is_symlink()
        ]
    except OSError:
        return []


def whole_problem(path: str) -> str | None:
    """Why a file's data cannot be read in full (``None`` when it can): for a file whose
    footer is sound and whose pages are not."""
    try:
        parquet.read_table(path)
    except (OSError, pyarrow.ArrowException) as error:
        return f"damaged Parquet data ({error})"
    return None


def _checked(
    folder: Path, name: re.Pattern[str], schema: pyarrow.Schema, depth: int
) -> tuple[list[Path], list[tuple[str, str]]]:
    """The files of ``folder`` (``depth`` levels of ``key=value`` folders down) with the
    expected name and schema; every other entry with the reason it was left out."""
    good: list[Path] = []
    problems: list[tuple[str, str]] = []
    for path, level in _walk(folder, depth, problems):
        if _being_written(path.name):
            continue  # being written (or left by a run that died): never read
        if path.is_dir() or level != depth:
            problems.append((str(path), "not a file this store writes there"))
            continue
        if not name.fullmatch(path.name):
            problems.append((str(path), "not a file this store writes (unexpected name)"))
            continue
        try:
            found = parquet.read_schema(path)
        except (OSError, pyarrow.ArrowException) as error:
            problems.append((str(path), f"not a readable Parquet file ({error})"))
            continue
        if not found.equals(schema, check_metadata=False):
            problems.append((str(path), "a Parquet file with other columns than this store's"))
            continue
        good.append(path)
    return good, problems


def _walk(folder: Path, depth: int, problems: list[tuple[str, str]]) -> list[tuple[Path, int]]:
    """(entry, level) under ``folder``, descending ``depth`` levels of partition folders."""
    found: list[tuple[Path, int]] = []
    level_items = [(folder, 0)]
    while level_items:
        current, level = level_items.pop()
        try:
            entries = sorted(current.iterdir())
        except FileNotFoundError:
            continue
        except OSError as error:
            problems.append((str(current), f"cannot list: {error.strerror or error}"))
            continue
        for entry in entries:
            if entry.is_symlink():
                problems.append((str(entry), "a link (the store never follows one)"))
                continue
            if level < depth and entry.is_dir() and not entry.is_symlink():
                if _PARTITION.fullmatch(entry.name):
                    level_items.append((entry, level + 1))
                else:
                    problems.append((str(entry), "not a partition folder of this store"))
                continue
            found.append((entry, level))
    return sorted(found)


def _foreign_structures(folder: Path) -> list[tuple[str, str]]:
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    return [
        (str(entry), "not a file this store writes (unexpected name)")
        for entry in entries
        if not _being_written(entry.name) and not _STRUCTURE_NAME.fullmatch(entry.name)
    ]


def _being_written(name: str) -> bool:
    """A hidden name: the temporary file of a write in progress (``file_access``)."""
    return name.startswith(".")
