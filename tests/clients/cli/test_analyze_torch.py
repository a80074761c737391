"""``perfline analyze TRACE``: figures, HTML and the output file; every kind of bad input is
one line on stderr and exit status 2."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from perfline.clients.cli import cli
from tests.support.torch_build import Trace, frame, op, step
from tests.support.torch_traces import DATA, TRACES


def _invoke(*arguments: str) -> Result:
    return CliRunner().invoke(cli, list(arguments))


def _workspace(tmp_path: Path) -> Path:
    shutil.copy(DATA / "models" / "cnn.py", tmp_path / "cnn.py")
    for name in ("cnn.pt.trace.json", "cnn.pt.trace.json.perfline.json"):
        shutil.copy(TRACES / name, tmp_path / name)
    (tmp_path / "perfline.toml").write_text("")
    return tmp_path


def test_analyze_writes_the_result_and_the_html_report(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    page = root / "report.html"
    outcome = _invoke(
        "analyze",
        str(root / "cnn.pt.trace.json"),
        "--output-dir",
        str(root / "out"),
        "--html",
        str(page),
    )
    assert outcome.exit_code == 0, outcome.output
    assert "cnn.py:19" in outcome.stdout and "cpu_time (ms)" in outcome.stdout
    document = json.loads((root / "out" / "mlia-output" / "mlia-output.json").read_text())
    result = document["results"][0]
    assert result["producer"] == "torch-profiler" and result["mode"] == "measured"
    assert document["backends"][0]["configuration"]["attribution_level"] == ["statement"]
    samples = document["extensions"]["perfline"]["run_samples"][0]
    assert all(len(v) == 3 for m in samples.values() for v in m.values())  # 3 steps
    html = page.read_text()
    assert "x = torch.flatten(x, 1)" in html and "cpu_time" in html


def _write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda t: TRACES.joinpath("cnn.pt.trace.json").read_bytes()[:-300], "truncated"),
        (
            lambda t: (
                TRACES.joinpath("cnn.pt.trace.json")
                .read_bytes()
                .replace(b'"dur": ', b'"dur": NaN, "x": ', 1)
            ),
            "NaN",
        ),
        (
            lambda t: gzip.compress(TRACES.joinpath("cnn.pt.trace.json").read_bytes())[:-3000],
            "gzip stream is truncated",
        ),
        (lambda t: b'{"schema_version": "1.2.0"}', "no 'traceEvents'"),
        (
            lambda t: Trace([step(1, 0, 10), op("aten::mm", 1, 2, external=1)]).data(),
            "with_stack=True",
        ),
        (
            lambda t: Trace(
                [step(1, 0, 10), frame("elsewhere.py(3): f", 0, 5), op("aten::mm", 1, 2)]
            ).data(),
            "another program",
        ),
    ],
)
def test_bad_traces_are_one_clear_error(tmp_path: Path, make, words: str) -> None:  # type: ignore[no-untyped-def]
    root = _workspace(tmp_path)
    path = _write(root / "bad.pt.trace.json", make(root))
    outcome = _invoke("analyze", path, "--output-dir", str(root / "out"))
    assert outcome.exit_code == 2, outcome.output
    assert words in outcome.stderr, outcome.stderr
    assert "Traceback" not in outcome.output
    assert len(outcome.stderr.strip().splitlines()) == 1


def test_a_sidecar_of_another_trace_is_refused(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    shutil.copy(
        TRACES / "train_step.pt.trace.json.perfline.json", root / "cnn.pt.trace.json.perfline.json"
    )
    outcome = _invoke("analyze", str(root / "cnn.pt.trace.json"), "--output-dir", str(root))
    assert outcome.exit_code == 2, outcome.output
    assert "written for the trace 'train_step.pt.trace.json'" in outcome.stderr


def test_a_trace_in_a_subfolder_is_analysed_from_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tensorboard_trace_handler("./log/run1")`` leaves the trace two folders below the
    source: from another folder, the trace folder's parents are tried as the workspace."""
    root = tmp_path / "ws"
    (root / "log" / "run1").mkdir(parents=True)
    (root / ".git").mkdir()  # the project's root: no folder above it is tried
    shutil.copy(DATA / "models" / "cnn.py", root / "cnn.py")
    (zipped,) = (TRACES / "cnn_tensorboard").glob("*.gz")
    shutil.copy(zipped, root / "log" / "run1" / zipped.name)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    outcome = _invoke("analyze", str(root / "log" / "run1" / zipped.name))
    assert outcome.exit_code == 0, outcome.output
    assert "cnn.py:18" in outcome.stdout  # def forward, function level
    (root / "cnn.py").unlink()
    outcome = _invoke("analyze", str(root / "log" / "run1" / zipped.name))
    assert outcome.exit_code == 2
    message = outcome.stderr
    tried = [str(elsewhere), *(str(root / p) for p in ("log/run1", "log", ""))]
    assert f"the workspace {tried[0]} (nor of the other folders tried: " in message
    assert ", ".join(t.rstrip("/") for t in tried[1:]) + ")" in message
    assert str(tmp_path) + ")" not in message  # above the .git folder: not tried
    # the examples name the program's files before the standard library's and torch's
    assert "(e.g. cnn.py: not in the workspace" in message
