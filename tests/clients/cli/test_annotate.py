"""Issue 37 item 4, ``perfline annotate``: its columns are titled, jobs whose figures are
the same are said to be merged, perfline's own ``mlia-output/`` is not a job, and
``--metric`` is honoured when a daemon runs (on the bundled workspace, ``examples/kws``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.workspace_config import WorkspaceConfig
from perfline.server.jobs.registry import default_registry
from perfline.server.workspace import plan_jobs, scan_files
from tests.support.serve_daemon import Daemon, running_daemon
from tests.support.server_helpers import KWS_FIGURE_LINES, copy_kws

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


MODEL = """import torch


def forward(x):
    return helper(x) + 1


def helper(x):
    return torch.relu(x)
"""


def _trace(forward_us: float, helper: bool) -> bytes:
    """Two steps of ``model.py(4): forward`` (at ``sub/``), with ``helper`` inside when
    asked."""
    from tests.support.torch_build import Trace, frame, op, step

    events = []
    for number in (1, 2):
        start = number * 1000.0
        events += [
            step(number, start, 900.0),
            frame("sub/model.py(4): forward", start + 10, forward_us),
            op("aten::add", start + 12, 5.0, external=number * 10),
        ]
        if helper:
            events += [
                frame("sub/model.py(8): helper", start + 20, 100.0),
                op("aten::relu", start + 25, 80.0, external=number * 10 + 1),
            ]
    return Trace(events).data()


def _two_traces(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "model.py").write_text(MODEL)
    (tmp_path / "a.pt.trace.json").write_bytes(_trace(200.0, helper=True))
    (tmp_path / "b.pt.trace.json").write_bytes(_trace(500.0, helper=False))
    return tmp_path


def _row(stdout: str, line: int) -> str:
    for text in stdout.splitlines():
        if text.split("│")[0].split()[:1] == [str(line)]:
            return text
    raise AssertionError(f"no line {line} in {stdout}")


def test_each_job_has_a_titled_column(tmp_path: Path) -> None:
    """Found by qa: with several jobs the margin held their figures side by side and only
    the metric was titled, so which figure was which job's was not said; a job without a
    figure on a line shifted the others."""
    root = _two_traces(tmp_path)
    stdout, _ = _annotate("-w", str(root), str(root / "sub" / "model.py"))
    head, names = stdout.splitlines()[:2]
    assert "cpu_time (ms) · % of model" in head
    assert names.split() == ["a", "b", "│"]
    a_end, b_end = names.index("a") + 1, names.index("b") + 1
    forward, helper = _row(stdout, 4), _row(stdout, 8)
    # each figure ends under its job's name; b has none on line 8: a blank there
    assert forward[:a_end].endswith("0.2 ms · 100%")
    assert forward[:b_end].endswith("0.5 ms · 100%")
    assert helper[:a_end].endswith("0.1 ms · 50%")
    assert helper[a_end:b_end].strip() == ""
    bars = {text.index("│") for text in stdout.splitlines()}
    assert len(bars) == 1


def test_the_workspace_is_the_current_folder_holding_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No perfline.toml: ``perfline annotate sub/model.py`` from the project's root reads the
    root's traces (it used the file's folder, where there are none: "no figures")."""
    root = _two_traces(tmp_path)
    monkeypatch.chdir(root)
    stdout, _ = _annotate("sub/model.py")
    assert "0.2 ms · 100%" in _row(stdout, 4)


def test_a_failed_job_is_said_once(tmp_path: Path) -> None:
    """Not also as the in-process engine's log line (``job nostack failed: ...``, which
    Python's last-resort handler printed: a real process, as pytest's handlers hide it)."""
    root = _two_traces(tmp_path)
    (root / "nostack.pt.trace.json").write_text('{"traceEvents": []}')
    done = subprocess.run(
        [sys.executable, "-m", "perfline", "annotate", "-w", str(root), "sub/model.py"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    said = [line for line in done.stderr.splitlines() if "nostack" in line]
    assert len(said) == 1 and said[0].startswith("job nostack: ")


def test_a_file_named_like_a_recorded_one_gets_the_mapping_that_links_it(tmp_path: Path) -> None:
    """The ETRecord records /home/dev/kws/dscnn.py; the workspace keeps it as models/dscnn.py
    and maps nothing. perfline never links files by their name alone, so there are no
    figures: the note gives the ``[[path_map]]`` entry, which then puts them there."""
    root = copy_kws(tmp_path)
    (root / "models").mkdir()
    (root / "dscnn.py").rename(root / "models" / "dscnn.py")
    job = f'[[jobs]]\nname = "kws"\nbackend = "executorch"\ninputs = {json.dumps(PAIR)}\n'
    (root / "perfline.toml").write_text(job)
    target = str(root / "models" / "dscnn.py")
    outcome = CliRunner().invoke(cli, ["annotate", target, "--no-color"])
    assert outcome.exit_code == 0, outcome.output
    (note,) = [line for line in outcome.stderr.splitlines() if line.startswith("note:")]
    mapping = 'from = "/home/dev/kws/dscnn.py" to = "models/dscnn.py"'
    assert note.endswith(f"[[path_map]] {mapping}")
    mapped = '[[path_map]]\nfrom = "/home/dev/kws/dscnn.py"\nto = "models/dscnn.py"\n'
    (root / "perfline.toml").write_text(mapped + job)
    stdout, stderr = _annotate(target)
    assert _margin(stdout, 26) == "9.63 ms avg · 81%" and "note:" not in stderr
