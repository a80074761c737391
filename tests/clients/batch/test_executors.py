"""121 mixed runs (ETDump pairs, ONNX Runtime profiles, documents) through a real ``dask
scheduler`` with two ``dask worker`` processes, a ``LocalCluster`` and the in-process path:
the same document from all three, and per line and operator exactly the median, min, max
and count the single runs imply; a rerun adds nothing; a worker killed mid-batch loses and
doubles no run; two batches into one store at once corrupt nothing."""

from __future__ import annotations

import json
import signal
import statistics
import subprocess
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from perfline.clients.cli import cli
from tests.clients.batch.dask_processes import dask_cluster, tls_files
from tests.support.batch_runs import BIN, PORTABLE, XNNPACK, make_runs, perfline, processed

pytestmark = pytest.mark.timeout(600)

#: Runs of each kind: odd counts, so every median is one of the runs' own values.
ETDUMPS, PROFILES, DOCUMENTS = 61, 31, 29
Key = tuple[str, str, str]


def _run(*arguments: str) -> Result:
    return CliRunner().invoke(cli, list(arguments), catch_exceptions=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("runs")
    make_runs().write_runs(folder, etdump=ETDUMPS, ort=PROFILES, documents=DOCUMENTS, seed=7)
    return folder


@pytest.fixture(scope="module")
def expected(runs: Path) -> dict[str, dict[Key, list[float]]]:
    """model hash -> (entity id, metric, unit) -> each run's value, from the single runs'
    processed documents (every code line, operator and module; result metrics under "")."""
    found: dict[str, dict[Key, list[float]]] = defaultdict(lambda: defaultdict(list))
    for line in (runs / "runs.txt").read_text(encoding="utf-8").split():
        document = processed(",".join(str(runs / part) for part in line.split(",")))
        figures = found[document["model"]["hash"]]
        result = document["results"][0]
        for metric in result["metrics"]:
            if "value" in metric:
                figures[("", metric["name"], metric["unit"])].append(float(metric["value"]))
        for breakdown in result["breakdowns"]:
            for metric in breakdown["metrics"]:
                if "execution" not in metric.get("qualifiers", {}):
                    key = (breakdown["entity_id"], metric["name"], metric["unit"])
                    figures[key].append(float(metric["value"]))
    return found


def _summary(store: Path) -> str:
    result = _run("batch", "summarize", "--store", str(store))
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr
    return result.stdout


def _batch(store: Path, runs: Path, *executor: str) -> Result:
    result = _run(
        "batch",
        "run",
        "--from-list",
        str(runs / "runs.txt"),
        "--store",
        str(store),
        "--runs-per-task",
        "8",
        *executor,
    )
    assert result.exit_code == 0, result.output
    return result


def _check_against_single_runs(
    document: dict[str, Any], expected: dict[str, dict[Key, list[float]]]
) -> None:
    own = document["extensions"]["perfline"]
    groups = own["batch"]["groups"]
    assert sorted(g["runs"] for g in groups) == sorted([ETDUMPS, PROFILES, DOCUMENTS])
    assert own["batch"]["runs"] == ETDUMPS + PROFILES + DOCUMENTS
    checked = 0
    for index, result in enumerate(document["results"]):
        figures = expected[groups[index]["key"]["model_hash"]]
        kinds = {e["id"]: e["kind"] for e in result["entities"]}
        seen: set[Key] = set()
        entries = [("", m) for m in result["metrics"] if "value" in m]
        entries += [(b["entity_id"], m) for b in result["breakdowns"] for m in b["metrics"]]
        for entity, metric in entries:
            key = (entity, metric["name"], metric["unit"])
            values = figures[key]
            seen.add(key)
            assert metric["value"] == statistics.median(values), key
            assert metric["samples"] == len(values) and metric["aggregation"] == "p50"
            distributions = (
                own["distributions"][index][entity]
                if entity
                else own["result_distributions"][index]
            )
            (spread,) = [d for d in distributions if d["name"] == metric["name"]]
            assert (spread["count"], spread["min"], spread["max"]) == (
                len(values),
                min(values),
                max(values),
            )
            middle = statistics.median(values)
            assert spread["mad"] == statistics.median(abs(v - middle) for v in values)
            if entity and kinds[entity] in ("code_line", "source_operator"):
                checked += 1
        assert seen == set(figures)  # every figure of the runs, no other
    assert checked > 100


def test_three_executors_one_answer(
    runs: Path, expected: dict[str, dict[Key, list[float]]], tmp_path: Path
) -> None:
    stores = {name: tmp_path / name for name in ("in-process", "local", "scheduler")}
    in_process = _batch(stores["in-process"], runs, "--in-process")
    assert "121 runs (stored 121, skipped 0, failed 0)" in in_process.stderr
    local = _batch(stores["local"], runs, "--workers", "2")
    assert "local Dask cluster, 2 worker processes" in local.stderr
    with dask_cluster(tmp_path) as cluster:
        remote = _batch(stores["scheduler"], runs, "--scheduler", cluster.address)
        assert f"Dask scheduler {cluster.address}" in remote.stderr
        again = _batch(stores["scheduler"], runs, "--scheduler", cluster.address)
        assert "121 runs (stored 0, skipped 121, failed 0)" in again.stderr
    texts = {name: _summary(store) for name, store in stores.items()}
    assert texts["local"] == texts["in-process"] and texts["scheduler"] == texts["in-process"]
    _check_against_single_runs(json.loads(texts["scheduler"]), expected)


def _stored_runs(store: Path) -> list[dict[str, Any]]:
    result = _run(
        "batch",
        "sql",
        "--store",
        str(store),
        "--format",
        "json",
        "SELECT content_hash, count(*) AS copies FROM all_runs WHERE status = 'ok' GROUP BY 1",
    )
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def test_a_worker_killed_mid_batch_loses_and_doubles_nothing(
    runs: Path, expected: dict[str, dict[Key, list[float]]], tmp_path: Path
) -> None:
    store = tmp_path / "store"
    with dask_cluster(tmp_path) as cluster:
        batch = subprocess.Popen(
            [
                str(BIN / "perfline"),
                "batch",
                "run",
                "--from-list",
                str(runs / "runs.txt"),
                "--store",
                str(store),
                "--scheduler",
                cluster.address,
                "--runs-per-task",
                "2",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while len(list((store / "runs").glob("runs-*.parquet"))) < 4:
            assert batch.poll() is None, batch.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        victim = cluster.workers[0]
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        written = len(list((store / "runs").glob("runs-*.parquet")))
        _, errors = batch.communicate(timeout=300)
    assert batch.returncode == 0, errors
    assert written < 61  # killed mid-batch: chunks were still to come
    assert "121 runs (stored 121, skipped 0, failed 0)" in errors
    copies = _stored_runs(store)
    assert len(copies) == 121 and {row["copies"] for row in copies} == {1}
    _check_against_single_runs(json.loads(_summary(store)), expected)


def test_two_batches_into_one_store_at_once(runs: Path, tmp_path: Path) -> None:
    lines = (runs / "runs.txt").read_text(encoding="utf-8").split()
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    first.write_text("\n".join(lines[:70]), encoding="utf-8")
    second.write_text("\n".join(lines[40:]), encoding="utf-8")
    for listed in (first, second):  # the list's paths are relative to the runs' folder
        listed.replace(runs / listed.name)
    store = tmp_path / "store"
    batches = [
        subprocess.Popen(
            [
                str(BIN / "perfline"),
                "batch",
                "run",
                "--in-process",
                "--store",
                str(store),
                "--from-list",
                str(runs / name),
                "--runs-per-task",
                "4",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("first.txt", "second.txt")
    ]
    outcomes = [batch.communicate(timeout=300) for batch in batches]
    assert [batch.returncode for batch in batches] == [0, 0], outcomes
    document = json.loads(_summary(store))
    assert document["extensions"]["perfline"]["batch"]["runs"] == 121
    copies = _stored_runs(store)
    assert len(copies) == 121 and max(row["copies"] for row in copies) <= 2
    counted = _run(
        "batch",
        "sql",
        "--store",
        str(store),
        "--format",
        "json",
        "SELECT count(DISTINCT content_hash) AS runs, count(*) AS rows FROM figures",
    )
    (row,) = json.loads(counted.stdout)
    per_run = _run(
        "batch",
        "sql",
        "--store",
        str(store),
        "--format",
        "json",
        "SELECT sum(rows) AS rows FROM runs",
    )
    assert row["runs"] == 121 and row["rows"] == json.loads(per_run.stdout)[0]["rows"]


def test_a_tls_scheduler_takes_the_client_certificate(tmp_path: Path) -> None:
    cert, key = tls_files(tmp_path)
    store = tmp_path / "store"
    with dask_cluster(tmp_path, workers=1, tls=(cert, key)) as cluster:
        assert cluster.address.startswith("tls://127.0.0.1:")
        refused = perfline(
            "batch",
            "run",
            "--store",
            str(store),
            "--scheduler",
            cluster.address,
            PORTABLE,
            timeout=120,
        )
        assert refused.returncode == 2
        assert "cannot reach the Dask scheduler at tls://" in refused.stderr
        done = perfline(
            "batch",
            "run",
            "--store",
            str(store),
            "--scheduler",
            cluster.address,
            "--tls-ca-file",
            str(cert),
            "--tls-cert",
            str(cert),
            "--tls-key",
            str(key),
            PORTABLE,
            XNNPACK,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert "2 runs (stored 2, skipped 0, failed 0)" in done.stderr
    assert f"Dask scheduler {cluster.address}" in done.stderr


def test_the_local_cluster_listens_on_loopback_only() -> None:
    from perfline.clients.batch.executors import DaskExecutor

    executor = DaskExecutor.local(2)
    try:
        info = executor.client.scheduler_info()
        assert info["address"].startswith("tcp://127.0.0.1:")
        assert len(info["workers"]) == 2 == executor.workers
        for address, worker in info["workers"].items():
            assert address.startswith("tcp://127.0.0.1:") and worker["nthreads"] == 1
        # no dashboard; the scheduler's own HTTP endpoints (health, metrics) on loopback too
        scheduler = executor.cluster.scheduler
        assert executor.cluster.scheduler_spec["options"]["dashboard"] is False
        hosts = {s.getsockname()[0] for s in scheduler.http_server._sockets.values()}
        assert hosts == {"127.0.0.1"}
    finally:
        executor.close()


def test_the_local_cluster_workers_run_without_the_profiler() -> None:
    from perfline.clients.batch.executors import DaskExecutor

    executor = DaskExecutor.local(1)
    try:
        (settings,) = executor.client.run(_worker_settings).values()
        assert settings == (False, "5s", "1s")
    finally:
        executor.close()


def _worker_settings() -> tuple[Any, Any, Any]:
    import dask

    return (
        dask.config.get("distributed.worker.profile.enabled"),
        dask.config.get("distributed.admin.system-monitor.interval"),
        dask.config.get("distributed.admin.tick.interval"),
    )
