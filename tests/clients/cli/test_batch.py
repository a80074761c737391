"""``perfline batch run / summarize / sql`` in-process: the store, reruns, failures, labels,
formats, and the errors (one line, exit 2)."""

from __future__ import annotations

import io
import json
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from pyarrow import csv, parquet

from perfline.clients.cli import cli
from tests.support.batch_runs import DATA, ORT, PORTABLE, RERUN, XNNPACK, perfline

pytestmark = pytest.mark.timeout(300)


def _run(*arguments: str) -> Result:
    return CliRunner().invoke(cli, list(arguments), catch_exceptions=False)


def _sql(store: Path, query: str) -> list[dict[str, Any]]:
    result = _run("batch", "sql", "--store", str(store), "--format", "json", query)
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three fixture runs and one missing file, in-process."""
    root = tmp_path_factory.mktemp("batch") / "store"
    missing = str(root.parent / "nowhere.etdump")
    spec = f"{PORTABLE.split(',')[0]},{missing}"
    result = _run(
        "batch",
        "run",
        "--in-process",
        "--store",
        str(root),
        "--label",
        "week=12",
        PORTABLE,
        XNNPACK,
        ORT,
        spec,
    )
    assert result.exit_code == 0, result.output
    assert f"failed: {spec}: {missing}: the input file does not exist" in result.stderr
    assert "4 runs (stored 3, skipped 0, failed 1)" in result.stderr
    assert f"wrote {root.resolve()}: 3 runs added; in-process" in result.stderr
    return root


def test_runs_are_stored_once_and_a_failure_is_one_row(store: Path) -> None:
    runs = _sql(store, "SELECT runtime, target, labels, rows FROM runs ORDER BY runtime")
    assert [(r["runtime"], r["target"]) for r in runs] == [
        ("executorch", "executorch"),
        ("onnxruntime", "onnxruntime"),
        ("xnnpack", "executorch"),
    ]
    assert all(r["labels"] == [["week", "12"]] for r in runs)
    failures = _sql(store, "SELECT input, reason FROM failures")
    assert len(failures) == 1 and failures[0]["reason"].endswith(
        "nowhere.etdump: the input file does not exist"
    )
    counts = _sql(store, "SELECT count(*) AS n, count(DISTINCT content_hash) AS runs FROM figures")
    assert counts[0]["runs"] == 3 and counts[0]["n"] == sum(r["rows"] for r in runs)
    partitions = sorted(p.relative_to(store).parts[:3] for p in store.rglob("part-*.parquet"))
    assert partitions == [
        ("rows", "runtime=executorch", "target=executorch"),
        ("rows", "runtime=onnxruntime", "target=onnxruntime"),
        ("rows", "runtime=xnnpack", "target=executorch"),
    ]


def test_a_rerun_adds_nothing(store: Path, tmp_path: Path) -> None:
    before = _run("batch", "summarize", "--store", str(store)).stdout
    files = sorted(p.name for p in store.rglob("*") if p.is_file())
    result = _run("batch", "run", "--in-process", "--store", str(store), PORTABLE, ORT, XNNPACK)
    assert result.exit_code == 0, result.output
    assert "3 runs (stored 0, skipped 3, failed 0)" in result.stderr
    assert "wrote" not in result.stderr
    assert sorted(p.name for p in store.rglob("*") if p.is_file()) == files
    assert _run("batch", "summarize", "--store", str(store)).stdout == before


def test_every_run_failing_exits_2(tmp_path: Path) -> None:
    result = _run(
        "batch",
        "run",
        "--in-process",
        "--store",
        str(tmp_path / "s"),
        str(tmp_path / "a.json"),
        str(tmp_path / "b.etrecord") + "," + str(tmp_path / "b.etdump"),
    )
    assert result.exit_code == 2
    assert "2 runs (stored 0, skipped 0, failed 2)" in result.stderr


def test_group_by_and_where(store: Path, tmp_path: Path) -> None:
    other = _run("batch", "run", "--in-process", "--store", str(store), "--label", "week=13", RERUN)
    assert other.exit_code == 0, other.output
    grouped = json.loads(
        _run(
            "batch",
            "summarize",
            "--store",
            str(store),
            "--group-by",
            "label.week",
            "--where",
            "runtime = 'executorch'",
        ).stdout
    )
    keys = [g["key"] for g in grouped["extensions"]["perfline"]["batch"]["groups"]]
    assert [(k["runtime"], k["label.week"]) for k in keys] == [
        ("executorch", "12"),
        ("executorch", "13"),
    ]
    assert len(grouped["results"]) == 2
    assert all(m.get("samples") == 1 for m in grouped["results"][1]["metrics"] if "value" in m)
    both = json.loads(
        _run("batch", "summarize", "--store", str(store), "--where", "runtime='executorch'").stdout
    )
    (result,) = both["results"]
    assert {m["samples"] for m in result["metrics"] if "value" in m} == {2}
    week = json.loads(
        _run("batch", "summarize", "--store", str(store), "--where", "labels['week'] = '13'").stdout
    )
    assert week["extensions"]["perfline"]["batch"]["runs"] == 1
    _run("batch", "run", "--in-process", "--store", str(store), PORTABLE)  # nothing new


def test_table_formats(store: Path, tmp_path: Path) -> None:
    where = "runtime = 'onnxruntime' AND entity_kind = 'code_line'"
    printed = _run("batch", "summarize", "--store", str(store), "--format", "csv", "--where", where)
    assert printed.exit_code == 0, printed.output
    table = csv.read_csv(io.BytesIO(printed.stdout_bytes))
    assert {
        "runtime",
        "entity_id",
        "file",
        "line",
        "metric",
        "samples",
        "median",
        "p10",
        "p90",
        "minimum",
        "maximum",
        "mad",
    } <= set(table.column_names)
    assert set(table.column("samples").to_pylist()) == {1}
    out = tmp_path / "stats.parquet"
    written = _run(
        "batch",
        "summarize",
        "--store",
        str(store),
        "--format",
        "parquet",
        "--out",
        str(out),
        "--where",
        where,
    )
    assert f"wrote {out}" in written.stderr
    assert parquet.read_table(out).num_rows == table.num_rows


def test_bad_arguments_are_one_line(store: Path, tmp_path: Path) -> None:
    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "mine.txt").write_text("keep me", encoding="utf-8")
    cases = [
        (
            ("batch", "run", "--in-process", "--store", str(foreign), PORTABLE),
            f"error: {foreign}: not a perfline batch store (no perfline-batch-store.json) "
            "and not an empty folder: give a new or empty folder",
        ),
        (
            ("batch", "summarize", "--store", str(store), "--where", 'runtime = "xnnpack"'),
            'error: perfline batch: query: Binder Error: Referenced column "xnnpack" not found '
            "in FROM clause! (in SQL, text takes single quotes: runtime = 'xnnpack')",
        ),
        (
            ("batch", "summarize", "--store", str(store), "--group-by", "colour"),
            "error: perfline batch summarize: --group-by: unknown key 'colour': expected one of "
            "runtime, target, model_hash, git_commit, run_id, batch_id or label.NAME (a --label "
            "of batch run)",
        ),
        (
            ("batch", "run", "--store", str(store), "--in-process", "--workers", "2", PORTABLE),
            "error: perfline batch run: --workers, --in-process: give one of --scheduler, "
            "--workers and --in-process",
        ),
        (
            ("batch", "run", "--store", str(store), "--tls-cert", "c.pem", PORTABLE),
            "error: perfline batch run: --tls-ca-file, --tls-cert, --tls-key: apply to "
            "--scheduler tls://...",
        ),
        (
            ("batch", "summarize", "--store", str(store), "--where", "metric = 'nothing'"),
            f"error: {store}: no runs to summarise (--where metric = 'nothing')",
        ),
    ]
    for arguments, message in cases:
        result = _run(*arguments)
        assert result.exit_code == 2, result.output
        assert result.stderr.strip() == message
    assert (foreign / "mine.txt").read_text(encoding="utf-8") == "keep me"


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = perfline(
        "batch",
        "run",
        "--store",
        str(tmp_path / "s"),
        "--scheduler",
        f"tcp://127.0.0.1:{port}",
        PORTABLE,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        f"error: perfline batch run: --scheduler: cannot reach the Dask scheduler at "
        f"tcp://127.0.0.1:{port} within 5 s"
    )


def test_torch_profiler_traces_are_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A trace with its statement sidecar, and a perfline profile run folder holding the same
    files: one run (same content), its figures on the model's lines."""
    traces = DATA / "torch_profiler" / "traces"
    shutil.copytree(DATA / "torch_profiler" / "models", tmp_path / "models")
    (tmp_path / "perfline.toml").write_text("", encoding="utf-8")
    run = tmp_path / ".perfline" / "runs" / "20261204-000000-ab"
    run.mkdir(parents=True)
    for name in ("cnn.pt.trace.json", "cnn.pt.trace.json.perfline.json"):
        shutil.copy(traces / name, tmp_path / name)
        shutil.copy(traces / name, run / name)
    monkeypatch.chdir(tmp_path)
    result = _run("batch", "run", "--in-process", "--store", "s", "cnn.pt.trace.json", str(run))
    assert result.exit_code == 0, result.output
    assert "2 runs (stored 1, skipped 1, failed 0)" in result.stderr
    (stored,) = _sql(tmp_path / "s", "SELECT runtime, target, input FROM runs")
    assert stored == {
        "runtime": "pytorch",
        "target": "torch.profiler",
        "input": str(tmp_path / "cnn.pt.trace.json"),
    }
    lines = _sql(
        tmp_path / "s",
        "SELECT DISTINCT file, line FROM figures WHERE entity_kind = 'code_line' ORDER BY line",
    )
    assert {row["file"] for row in lines} == {"models/cnn.py"} and len(lines) >= 5
    # the sidecar is part of the run: another sidecar makes another run
    sidecar = tmp_path / "cnn.pt.trace.json.perfline.json"
    sidecar.write_bytes(sidecar.read_bytes().replace(b"{", b"{ ", 1))
    again = _run("batch", "run", "--in-process", "--store", "s", "cnn.pt.trace.json")
    assert "1 runs (stored 1, skipped 0, failed 0)" in again.stderr, again.output
