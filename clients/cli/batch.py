"""``perfline batch``: many runs into a store, and their distributions per line (``docs/batch.md``).

* ``batch run INPUT... [--from-list FILE] --store STORE [--scheduler ADDR | --workers N |
  --in-process] [--label KEY=VALUE]...``: each input is one run (what ``compare`` takes);
  chunks of runs go to an executor (``clients.batch.executors``: a local Dask cluster by
  default), whose workers analyse them and write their rows into the store; progress on
  standard error; exit 2 when every run failed.
* ``batch summarize --store STORE [--where SQL] [--group-by KEY,...] [--out FILE]
  [--format json|parquet|csv]``: the aggregate document (``clients.batch.summarize``) or
  the statistics table.
* ``batch sql --store STORE QUERY``: a query of the store's views, as CSV or JSON.

Needs the ``batch`` extra (dask, distributed, pyarrow, duckdb); without it, one line says
how to install it.
"""

from __future__ import annotations

import decimal
import importlib.util
import re
import sys
import time
import uuid
from typing import Any

import click

from perfline.clients.cli.announce import wrote
from perfline.clients.cli.common import find_config, guarded, load_config, pipeline_settings
from perfline.core.errors import InputError, Problem

_NEEDED = ("dask", "distributed", "pyarrow", "duckdb")
_LABEL_KEY = re.compile(r"[A-Za-z0-9_.-]+")
#: Runs per task unless ``--runs-per-task``.
RUNS_PER_TASK = 25
#: Per-run values kept per figure unless ``--runs-kept``: enough for the rank test.
RUNS_KEPT = 200


def _require_extra(need_dask: bool) -> None:
    missing = [
        name
        for name in _NEEDED
        if (need_dask or name in ("pyarrow", "duckdb")) and importlib.util.find_spec(name) is None
    ]
    if missing:
        raise InputError(
            "perfline batch",
            f"needs {', '.join(missing)}: pip install 'perfline[batch]' (see docs/batch.md)",
        )


def _labels(pairs: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    labels: dict[str, str] = {}
    for pair in pairs:
        key, separator, value = pair.partition("=")
        if not separator or not _LABEL_KEY.fullmatch(key):
            raise InputError(
                "perfline batch run",
                Problem("--label", f"expected KEY=VALUE (KEY of A-Z a-z 0-9 _ . -), got {pair!r}"),
            )
        labels[key] = value
    return tuple(sorted(labels.items()))


def _warn_left_out(problems: tuple[tuple[str, str], ...]) -> None:
    for path, reason in problems:
        click.echo(f"warning: {path}: left out: {reason}", err=True)


@click.group("batch")
def group() -> None:
    """Thousands of runs on Dask: a store of their figures, one distribution per line."""


@group.command("run")
@click.argument("inputs", nargs=-1, metavar="INPUT...")
@click.option("--from-list", "from_list", default=None, metavar="FILE", help="One run a line.")
@click.option("--store", required=True, metavar="STORE", help="The store folder (made if new).")
@click.option(
    "--scheduler",
    default=None,
    metavar="tcp://HOST:PORT",
    help="A running Dask scheduler (default: a local cluster on 127.0.0.1).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes of the local cluster (default: one per core).",
)
@click.option("--in-process", "in_process", is_flag=True, help="No Dask: run here, in order.")
@click.option(
    "--tls-ca-file",
    default=None,
    metavar="PEM",
    help="With --scheduler tls://...: the CA certificate(s) the scheduler's is checked with.",
)
@click.option("--tls-cert", default=None, metavar="PEM", help="This client's TLS certificate.")
@click.option("--tls-key", default=None, metavar="PEM", help="This client's TLS private key.")
@click.option("--label", "labels", multiple=True, metavar="KEY=VALUE", help="Label every run.")
@click.option(
    "--runs-per-task",
    type=click.IntRange(min=1),
    default=RUNS_PER_TASK,
    show_default=True,
    help="Runs a worker analyses per task (and writes per Parquet part).",
)
@click.option(
    "--config",
    type=click.Path(dir_okay=False),
    default=None,
    help="perfline.toml whose [filtering] collapse rules and float_sums apply.",
)
@guarded
def run_command(
    inputs: tuple[str, ...],
    from_list: str | None,
    store: str,
    scheduler: str | None,
    workers: int | None,
    in_process: bool,
    tls_ca_file: str | None,
    tls_cert: str | None,
    tls_key: str | None,
    labels: tuple[str, ...],
    runs_per_task: int,
    config: str | None,
) -> None:
    """Analyse every run and write its figures into the store.

    \b
    perfline batch run run1/ run2/mlia-output.json x.etrecord,x.etdump --store nightly
    perfline batch run --from-list runs.txt --store nightly --label commit=abc123
    perfline batch run --from-list runs.txt --store nightly --scheduler tcp://10.0.0.5:8786
    perfline batch run --from-list runs.txt --store nightly --scheduler tls://10.0.0.5:8786 \\
        --tls-ca-file ca.pem --tls-cert client.pem --tls-key client.key
    """
    chosen = [name for name, given in _executor_options(scheduler, workers, in_process) if given]
    if len(chosen) > 1:
        raise InputError(
            "perfline batch run",
            Problem(", ".join(chosen), "give one of --scheduler, --workers and --in-process"),
        )
    tls = {"tls_ca_file": tls_ca_file, "tls_client_cert": tls_cert, "tls_client_key": tls_key}
    given = {name: path for name, path in tls.items() if path is not None}
    if given and scheduler is None:
        raise InputError(
            "perfline batch run",
            Problem("--tls-ca-file, --tls-cert, --tls-key", "apply to --scheduler tls://..."),
        )
    _require_extra(not in_process)
    from perfline.clients.batch.inputs import chunk_tasks, count_runs, run_specs
    from perfline.clients.batch.progress import Progress
    from perfline.clients.batch.store import open_store

    labelled = _labels(labels)
    total = count_runs(inputs, from_list)
    if total == 0:
        raise InputError("perfline batch run", "no runs given (INPUT... or --from-list FILE)")
    root = open_store(store, create=True).resolve()
    settings = pipeline_settings((), False, load_config(find_config(config, None)))
    executor = _executor(scheduler, workers, in_process, given)
    progress = Progress(sys.stderr, total, time.monotonic, terminal=sys.stderr.isatty())
    tasks = chunk_tasks(
        run_specs(inputs, from_list),
        size=runs_per_task,
        store=str(root),
        batch_id=uuid.uuid4().hex,
        labels=labelled,
        settings=settings,
    )
    try:
        for summary in executor.map_chunks(tasks):
            progress.add(summary.stored, summary.skipped, summary.failed)
    finally:
        executor.close()
    progress.finish()
    counts = progress.counts
    if counts.stored:
        wrote(root, f"{counts.stored:,} runs added; {executor.description}")
    if counts.failed and counts.failed == counts.finished:
        sys.exit(2)


def _executor_options(
    scheduler: str | None, workers: int | None, in_process: bool
) -> list[tuple[str, bool]]:
    return [
        ("--scheduler", scheduler is not None),
        ("--workers", workers is not None),
        ("--in-process", in_process),
    ]


def _executor(
    scheduler: str | None, workers: int | None, in_process: bool, tls: dict[str, str]
) -> Any:
    from perfline.clients.batch.executors import DaskExecutor, InProcess, cpu_count

    if in_process:
        return InProcess()
    if scheduler is not None:
        security = None
        if tls:
            from distributed.security import Security

            security = Security(require_encryption=True, **tls)
        return DaskExecutor.connect(scheduler, security)
    return DaskExecutor.local(workers or cpu_count())


@group.command("summarize")
@click.option("--store", required=True, metavar="STORE", help="The store folder.")
@click.option(
    "--where",
    default=None,
    metavar="SQL",
    help="Only rows where this SQL condition holds: runtime = 'xnnpack' AND labels['week'] = '12'.",
)
@click.option(
    "--group-by",
    "group_by",
    multiple=True,
    metavar="KEY,...",
    help="One result per value of these keys (runtime, target, model_hash, git_commit, "
    "run_id, batch_id, label.NAME); repeatable or comma-joined.",
)
@click.option("--out", default=None, metavar="FILE", help="Write here (default: stdout).")
@click.option(
    "--format",
    "form",
    type=click.Choice(("json", "parquet", "csv")),
    default="json",
    show_default=True,
    help="json: the aggregate document; parquet, csv: the statistics table.",
)
@click.option(
    "--runs-kept",
    type=click.IntRange(min=1),
    default=RUNS_KEPT,
    show_default=True,
    help="Per-run values kept per figure in the document (what compare's rank test reads).",
)
@guarded
def summarize_command(
    store: str,
    where: str | None,
    group_by: tuple[str, ...],
    out: str | None,
    form: str,
    runs_kept: int,
) -> None:
    """Per line and operator: count, median, p10, p90, min, max and MAD of every metric.

    \b
    perfline batch summarize --store nightly --out THIS_WEEK.json
    perfline batch summarize --store nightly --where "runtime = 'xnnpack'" --group-by label.commit
    perfline check --baseline LAST_WEEK.json THIS_WEEK.json
    """
    _require_extra(False)
    from perfline.clients.batch.outputs import table_bytes, write_output
    from perfline.clients.batch.store import open_store
    from perfline.clients.batch.summarize import Request, summarize
    from perfline.core.json_codec import document_bytes

    if form == "parquet" and out is None:
        raise InputError("perfline batch summarize", Problem("--format parquet", "needs --out"))
    keys = tuple(key.strip() for text in group_by for key in text.split(",") if key.strip())
    root = open_store(store, create=False)
    outcome = summarize(
        root,
        Request(where=where, group_by=keys, runs_kept=runs_kept),
        document=form == "json",
        arguments=_summary_arguments(where, keys, runs_kept),
    )
    _warn_left_out(outcome.problems)
    if form == "json":
        assert outcome.document is not None
        data = document_bytes(outcome.document)
    else:
        assert outcome.table is not None
        data = table_bytes(outcome.table, form)
    written = write_output(out, data)
    if written is not None:
        wrote(written)


def _json_value(value: object) -> object:
    """What ``json`` cannot write: a DuckDB decimal (sums) as a number, the rest as text."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return str(value)


def _summary_arguments(where: str | None, keys: tuple[str, ...], runs_kept: int) -> list[str]:
    """What the document records of the command (not the store's path: the same runs give
    the same document wherever they are stored)."""
    arguments = ["batch", "summarize"]
    if where is not None:
        arguments += ["--where", where]
    if keys:
        arguments += ["--group-by", ",".join(keys)]
    return [*arguments, "--runs-kept", str(runs_kept)]


@group.command("sql")
@click.option("--store", required=True, metavar="STORE", help="The store folder.")
@click.argument("query", metavar="QUERY")
@click.option(
    "--format",
    "form",
    type=click.Choice(("csv", "json")),
    default="csv",
    show_default=True,
    help="How the answer is printed.",
)
@guarded
def sql_command(store: str, query: str, form: str) -> None:
    """Run one SQL query over the store's views: figures, runs, failures, all_rows, all_runs.

    \b
    perfline batch sql --store nightly "SELECT runtime, count(*) FROM runs GROUP BY ALL"
    """
    _require_extra(False)
    import json

    import duckdb

    from perfline.clients.batch.database import connect
    from perfline.clients.batch.outputs import table_bytes, write_output
    from perfline.clients.batch.store import open_store, scan

    files = scan(open_store(store, create=False))
    _warn_left_out(files.problems)
    connection = connect(files)
    try:
        relation = connection.sql(query)
        table = relation.to_arrow_table() if relation is not None else None
    except duckdb.Error as error:
        message = str(error).splitlines()[0]
        raise InputError("perfline batch sql", Problem("query", message)) from None
    finally:
        connection.close()
    if table is None:
        return
    if form == "json":
        text = json.dumps(table.to_pylist(), default=_json_value, separators=(",", ":")) + "\n"
        write_output(None, text.encode("utf-8"))
    else:
        write_output(None, table_bytes(table, "csv"))
