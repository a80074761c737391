"""Issue 37 item 4: ``analyze --html`` writes the HTML report, and every command that writes
a file announces each one (``wrote PATH`` on stderr): every file that appears in the output
folder is announced, and every announced file is there.

Each command runs on real inputs (the bundled DS-CNN ExecuTorch pair, the estimator's
databases) in a folder of its own; the files before and after are compared with the
announcements."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from tests.support import locations
from tests.support.nx_estimator_data import DATA
from tests.support.server_helpers import KWS

pytestmark = pytest.mark.timeout(180)

PAIR = [str(KWS / "dscnn_portable.etrecord"), str(KWS / "dscnn_portable.etdump")]
PT2 = locations.DATA / "formats" / "dscnn" / "dscnn.pt2"


def _files(folder: Path) -> set[Path]:
    return {path for path in folder.rglob("*") if path.is_file()}


def _announced(stderr: str, folder: Path) -> set[Path]:
    """The files the ``wrote PATH[: what]`` lines name (a folder: every file in it)."""
    found: set[Path] = set()
    for line in stderr.splitlines():
        if not line.startswith("wrote "):
            continue
        named = line.removeprefix("wrote ").split(": ", 1)[0]
        path = Path(named) if Path(named).is_absolute() else folder / named
        found.update(_files(path) if named.endswith("/") else {path})
    return found


def _run(folder: Path, arguments: list[str]) -> str:
    before = _files(folder)
    result = CliRunner().invoke(cli, arguments)
    assert result.exit_code == 0, result.output
    written = _files(folder) - before
    assert written, "the command wrote nothing"
    assert _announced(result.stderr, folder) == written, result.stderr
    return result.stderr


def _document(folder: Path) -> Path:
    """A processed document of the pair in ``folder/doc/``, made beforehand."""
    target = folder / "doc"
    done = CliRunner().invoke(cli, ["analyze", *PAIR, "--output-dir", str(target), "--json"])
    assert done.exit_code == 0, done.output
    return target / "mlia-output" / "mlia-output.json"


def _analyze_html(out: Path) -> list[str]:
    return ["analyze", *PAIR, "--output-dir", str(out), "--html", str(out / "page.html")]


def _analyze_estimator(out: Path) -> list[str]:
    return ["analyze", str(DATA), "--output-dir", str(out)]


def _analyze_estimator_run(out: Path) -> list[str]:
    from tests.support.estimator_outputs import stand_in_estimator
    from tests.support.nx_estimator_data import DSCNN_VGF

    estimator = stand_in_estimator(out.parent)
    return ["analyze", str(DSCNN_VGF), "--estimator", str(estimator), "--output-dir", str(out)]


def _report_html(out: Path) -> list[str]:
    doc = _document(out.parent)
    return ["report", str(doc), "--output-dir", str(out), "--html", str(out / "page.html")]


def _compare_html(out: Path) -> list[str]:
    doc = str(_document(out.parent))
    return ["compare", doc, doc, "--source-root", str(KWS), "--html", str(out / "compare.html")]


def _check_reports(out: Path) -> list[str]:
    doc = str(_document(out.parent))
    sarif, junit = str(out / "ci" / "gate.sarif"), str(out / "gate.xml")
    reports = ["--sarif", sarif, "--junit", junit]
    return ["check", "--baseline", doc, doc, "--source-root", str(KWS), *reports]


def _export(out: Path) -> list[str]:
    doc = str(_document(out.parent))
    overlay = str(out / "overlay.json")
    return ["export", doc, "--model-explorer", overlay, "--model", str(PT2)]


COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "analyze --html": _analyze_html,
    "analyze (estimator outputs)": _analyze_estimator,
    "analyze --estimator": _analyze_estimator_run,
    "report --html": _report_html,
    "compare --html": _compare_html,
    "check --sarif --junit": _check_reports,
    "export --model-explorer": _export,
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_file_written_is_announced(name: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    stderr = _run(out, COMMANDS[name](out))
    assert all(line.startswith("wrote ") for line in stderr.splitlines() if str(out) in line)


def test_analyze_html_writes_the_report_page(tmp_path: Path) -> None:
    workspace = tmp_path / "kws"
    shutil.copytree(KWS, workspace)
    page = tmp_path / "page.html"
    result = CliRunner().invoke(
        cli,
        [
            "analyze",
            str(workspace / "dscnn_portable.etrecord"),
            str(workspace / "dscnn_portable.etdump"),
            "--output-dir",
            str(tmp_path),
            "--html",
            str(page),
        ],
    )
    assert result.exit_code == 0, result.output
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>")
    # the sources were found through the workspace's path map: the hot line is on the page
    assert "x = self.pointwise(x)" in text
    data = json.loads((tmp_path / "mlia-output" / "mlia-output.json").read_text())
    assert data["tool"]["name"] == "perfline"
