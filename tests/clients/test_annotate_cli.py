"""Issue 37 item 4, ``perfline annotate``: its columns are titled, jobs whose figures are
the same are said to be merged, perfline's own ``mlia-output/`` is not a job, and
``--metric`` is honoured when a daemon runs (on the bundled workspace, ``examples/kws``)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.workspace_config import WorkspaceConfig
from perfline.server.jobs.registry import default_registry
from perfline.server.workspace import plan_jobs, scan_files
from tests.clients.daemons import Daemon, running_daemon
from tests.server.helpers import KWS_FIGURE_LINES, copy_kws

pytestmark = pytest.mark.timeout(120)

PAIR = ["dscnn_portable.etrecord", "dscnn_portable.etdump"]
PATH_MAP = '[[path_map]]\nfrom = "/home/dev/kws/"\nto = "."\n'


def _annotate(*arguments: str) -> tuple[str, str]:
    result = CliRunner().invoke(cli, ["annotate", *arguments, "--no-color"])
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def _margin(stdout: str, line: int) -> str:
    for text in stdout.splitlines():
        number, _, rest = text.strip().partition(" ")
        if number == str(line):
            return rest.split("│")[0].strip()
    raise AssertionError(f"no line {line} in {stdout}")


def test_the_columns_are_titled(tmp_path: Path, runtime: Path) -> None:
    root = copy_kws(tmp_path)
    stdout, _ = _annotate(str(root / "dscnn.py"))
    head = stdout.splitlines()[0]
    assert head.split()[0] == "line"
    figure, _, source = head.partition("│")
    assert "duration_avg (ms) · % of model" in figure
    assert source.strip() == str(root / "dscnn.py")
    # the title is as wide as the margin: the bars line up
    bars = {text.index("│") for text in stdout.splitlines()}
    assert len(bars) == 1


def test_identical_jobs_are_said_to_be_merged(tmp_path: Path, runtime: Path) -> None:
    root = copy_kws(tmp_path)
    inputs = json.dumps(PAIR)
    jobs = "".join(
        f'[[jobs]]\nname = "{name}"\nbackend = "executorch"\ninputs = {inputs}\n'
        for name in ("first", "second")
    )
    (root / "perfline.toml").write_text(PATH_MAP + jobs)
    stdout, stderr = _annotate(str(root / "dscnn.py"))
    assert _margin(stdout, 26) == "9.63 ms avg · 81%"  # shown once, not twice
    notes = [line for line in stderr.splitlines() if line.startswith("note:")]
    assert notes == [
        f"note: jobs first, second have the same figure on {len(KWS_FIGURE_LINES)} line(s); "
        "each such line shows it once (--job NAME shows one job)"
    ]


def test_perfline_own_output_is_not_a_job(tmp_path: Path, runtime: Path) -> None:
    root = copy_kws(tmp_path)
    (root / "perfline.toml").write_text(PATH_MAP)  # jobs by convention
    written = CliRunner().invoke(
        cli, ["analyze", *(str(root / name) for name in PAIR), "--output-dir", str(root)]
    )
    assert written.exit_code == 0, written.output
    assert (root / "mlia-output" / "mlia-output.json").is_file()
    stdout, stderr = _annotate(str(root / "dscnn.py"), "--json")
    jobs = {entity["job"] for item in json.loads(stdout)["lines"] for entity in item["entities"]}
    assert jobs == {"dscnn_portable"}
    assert "note:" not in stderr


def test_an_mlia_run_output_is_still_discovered(tmp_path: Path) -> None:
    """Only perfline's own output is left out: MLIA's ``mlia-output/mlia-output.json`` (its
    tool is mlia) stays a job, and so does a document perfline wrote elsewhere."""
    from perfline.server.workspace import perfline_output

    document = {"schema_version": "1.2.0", "tool": {"name": "mlia", "version": "0.12.3"}}
    ours = {"schema_version": "1.2.0", "tool": {"name": "perfline", "version": "0.1.0"}}
    for folder, content in (("mlia", document), ("ours", ours), ("named", ours)):
        name = "mlia-output/mlia-output.json" if folder != "named" else "run.mlia.json"
        target = tmp_path / folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(content, indent=4))
    files = scan_files(tmp_path)
    planned = plan_jobs(
        WorkspaceConfig(),
        files,
        default_registry(),
        own_output=lambda rel: perfline_output(tmp_path, rel),
    )
    assert sorted(job.inputs[0] for job in planned) == [
        "mlia/mlia-output/mlia-output.json",
        "named/run.mlia.json",
    ]
    fifo = tmp_path / "pipe" / "mlia-output" / "mlia-output.json"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    assert not perfline_output(tmp_path, "pipe/mlia-output/mlia-output.json")  # never blocks


@pytest.fixture
def daemon(tmp_path: Path, runtime: Path) -> Iterator[Daemon]:
    with running_daemon(copy_kws(tmp_path), runtime, "--tcp", "127.0.0.1:0") as started:
        yield started


def test_metric_is_honoured_when_a_daemon_runs(daemon: Daemon) -> None:
    file = str(daemon.root / "dscnn.py")
    stdout, _ = _annotate(file)
    assert _margin(stdout, 42) == "0.029 ms avg · <1%"  # the daemon's own metric
    stdout, stderr = _annotate(file, "--metric", "execution_count")
    assert _margin(stdout, 42) == "10 executions · 3%"
    assert "execution_count" in stdout.splitlines()[0]
    assert "--metric execution_count: analysed in-process" in stderr
    # the daemon's own metric asked for: the daemon answers, no note
    stdout, stderr = _annotate(file, "--metric", "duration_avg")
    assert _margin(stdout, 42) == "0.029 ms avg · <1%" and "note:" not in stderr
