"""The store on disk: foreign and damaged files are named and left out, never a traceback;
hidden files (writes in progress) are not read; the marker guards the folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow
import pytest
from click.testing import CliRunner, Result
from pyarrow import parquet

from perfline.clients.batch.store import (
    MARKER,
    ROWS,
    RUNS,
    STRUCTURES,
    open_store,
    part_path,
    runs_path,
    scan,
)
from perfline.clients.cli import cli
from tests.support.batch_runs import ORT, PORTABLE, XNNPACK

pytestmark = pytest.mark.timeout(300)


def _run(*arguments: str) -> Result:
    return CliRunner().invoke(cli, list(arguments), catch_exceptions=False)


def _part(store: Path, runtime: str) -> Path:
    (path,) = (store / "rows" / f"runtime={runtime}").rglob("part-*.parquet")
    return path


def _groups(output: str) -> list[str]:
    document = json.loads(output)
    return [g["key"]["runtime"] for g in document["extensions"]["perfline"]["batch"]["groups"]]


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    result = _run("batch", "run", "--in-process", "--store", str(root), PORTABLE, XNNPACK, ORT)
    assert result.exit_code == 0, result.output
    return root


def test_foreign_and_damaged_files_are_named_and_left_out(store: Path) -> None:
    before = _run("batch", "summarize", "--store", str(store))
    assert _groups(before.stdout) == ["executorch", "onnxruntime", "xnnpack"]
    ort, xnnpack = _part(store, "onnxruntime"), _part(store, "xnnpack")
    data = ort.read_bytes()
    ort.write_bytes(data[: len(data) // 2])  # truncated: no footer
    raw = bytearray(xnnpack.read_bytes())
    middle = len(raw) // 3
    raw[middle : middle + 64] = bytes(64)  # a page's bytes zeroed, the footer intact
    xnnpack.write_bytes(bytes(raw))
    notes = store / "rows" / "runtime=xnnpack" / "target=executorch" / "notes.txt"
    notes.write_text("my notes", encoding="utf-8")
    other = store / "rows" / "runtime=other" / "target=t" / f"part-{'0' * 32}-0.parquet"
    other.parent.mkdir(parents=True)
    parquet.write_table(pyarrow.table({"x": [1, 2]}), other)
    (runs_file,) = (store / "runs").iterdir()
    link = store / "runs" / f"runs-{'1' * 32}-0.parquet"
    link.symlink_to(runs_file)
    (store / "rows" / "scratch").mkdir()
    hidden = store / "rows" / "runtime=xnnpack" / "target=executorch" / ".part.x.tmp"
    hidden.write_bytes(b"being written")
    after = _run("batch", "summarize", "--store", str(store))
    assert after.exit_code == 0, after.output
    assert _groups(after.stdout) == ["executorch"]
    warnings = sorted(after.stderr.strip().splitlines())
    expected = {
        ort: "not a readable Parquet file (",
        xnnpack: "damaged Parquet data (",
        notes: "not a file this store writes (unexpected name)",
        other: "a Parquet file with other columns than this store's",
        link: "a link (the store never follows one)",
        store / "rows" / "scratch": "not a partition folder of this store",
    }
    assert len(warnings) == len(expected), warnings
    for path, reason in expected.items():
        assert any(w.startswith(f"warning: {path}: left out: {reason}") for w in warnings), path
    # the same files are left out of every query, with the same warnings
    listed = _run("batch", "sql", "--store", str(store), "SELECT count(*) AS n FROM runs")
    assert listed.exit_code == 0 and listed.stdout.splitlines()[1] == "3"
    assert "left out" in listed.stderr


def test_a_missing_structure_leaves_its_group_out(store: Path) -> None:
    (structure,) = [
        p for p in (store / "structures").iterdir() if b'"onnxruntime"' in p.read_bytes()
    ]
    structure.write_text("{not json", encoding="utf-8")
    result = _run("batch", "summarize", "--store", str(store))
    assert result.exit_code == 0, result.output
    assert _groups(result.stdout) == ["executorch", "xnnpack"]
    assert f"warning: {structure}: left out: not a run structure (" in result.stderr


def test_the_marker_guards_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert open_store(str(tmp_path / "new"), create=True) == tmp_path / "new"
    assert (tmp_path / "new" / MARKER).is_file()
    # a relative path: the store's folders are made where it names
    assert open_store("relative", create=True) == tmp_path / "relative"
    assert sorted(p.name for p in (tmp_path / "relative").iterdir()) == sorted(
        [MARKER, ROWS, RUNS, STRUCTURES]
    )
    for name, text in (("bad", '{"perfline_batch_store": 99}'), ("broken", "{")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / MARKER).write_text(text, encoding="utf-8")
        result = _run("batch", "summarize", "--store", str(folder))
        assert result.exit_code == 2
        assert result.stderr.startswith(f"error: {folder / MARKER}: not a perfline")
    missing = _run("batch", "summarize", "--store", str(tmp_path / "nothing"))
    assert missing.exit_code == 2
    assert "not a perfline batch store (no perfline-batch-store.json)" in missing.stderr
    # a store being made by another batch at this moment (its folders, no marker yet)
    racing = tmp_path / "racing"
    (racing / "rows").mkdir(parents=True)
    (racing / ".perfline-batch-store.json.abc.tmp").write_bytes(b"")
    assert open_store(str(racing), create=True) == racing
    assert os.path.isfile(racing / MARKER)


def test_a_rerun_task_replaces_every_part_of_its_first_attempt(tmp_path: Path) -> None:
    from perfline.clients.batch.worker import ChunkTask, run_chunk

    root = open_store(str(tmp_path / "store"), create=True)
    task = ChunkTask(str(root), "a" * 32, 7, (PORTABLE,))
    # the first attempt wrote a part for a partition, then died before its runs file
    ghost = part_path(root, "ghost", "t", task.batch_id, task.chunk)
    first = run_chunk(task)
    (part,) = root.glob("rows/*/*/part-*.parquet")
    ghost.parent.mkdir(parents=True)
    ghost.write_bytes(part.read_bytes())
    runs_path(root, task.batch_id, task.chunk).unlink()
    hidden = scan(root)
    assert hidden.row_files == () and hidden.run_files == ()  # parts without runs: not read
    again = run_chunk(task)
    assert (first.stored, again.stored, again.again) == (1, 1, False)
    assert parquet.read_table(ghost).num_rows == 0
    assert parquet.read_table(part).num_rows == first.rows
    # and a third attempt finds the chunk written: it reads the summary back
    third = run_chunk(task)
    assert (third.stored, third.rows, third.again) == (1, first.rows, True)
