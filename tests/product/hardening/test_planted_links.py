"""Issue 38 N5 and N6: links a cloned repository (or another local user) plants where
perfline writes. On main, ``report --html``, ``export --model-explorer`` and
``check --sarif/--junit`` wrote through fixed temporary names (``.OUT.tmp``, ``OUT.tmp``)
and followed a link there (overwriting ``~/.bashrc`` for ``.report.html.tmp ->
../../.bashrc``), a planted ``mlia-output -> elsewhere`` redirected ``analyze``/``report``,
and the baseline store made its staging folder (``.tmp-<job>-<pid>``) through a planted
link, writing baseline files and the workspace's source text outside the workspace."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.pipeline import postprocess
from perfline.server.baselines import baseline_store
from tests.support.compare_paths import ONNX_MODEL, ORT_NOOPT, ORT_OPT
from tests.support.html_documents import example_document
from tests.support.locations import DATA
from tests.support.ort_runs import ort_run

DSCNN = DATA / "formats" / "dscnn"
PRECIOUS = "export PATH=/usr/bin  # the user's own file\n"


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository checked out under ``home/repo``; ``home/.bashrc`` is the victim."""
    home = tmp_path / "home"
    repo = home / "repo"
    repo.mkdir(parents=True)
    (home / ".bashrc").write_text(PRECIOUS)
    (repo / "doc.json").write_text(json.dumps(example_document()))
    monkeypatch.chdir(repo)
    return repo


def _victim(clone: Path) -> str:
    return (clone.parent / ".bashrc").read_text()


def _plant(clone: Path, *names: str) -> None:
    for name in names:
        os.symlink("../.bashrc", clone / name)


def _run(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, list(args))
    return done.exit_code, done.output


def test_report_html_never_writes_through_planted_temporary_links(clone: Path) -> None:
    _plant(clone, ".report.html.tmp", "report.html.tmp")
    code, said = _run("report", "doc.json", "--html", "report.html", "--output-dir", "out")
    assert code == 0, said
    assert _victim(clone) == PRECIOUS
    assert "<html" in (clone / "report.html").read_text()


def test_a_report_target_that_is_a_link_is_refused(clone: Path) -> None:
    _plant(clone, "report.html")
    code, said = _run("report", "doc.json", "--html", "report.html", "--output-dir", "out")
    assert code == 2 and "report.html is a symbolic link" in said, said
    assert _victim(clone) == PRECIOUS and os.path.islink(clone / "report.html")


def test_export_never_writes_through_planted_temporary_links(clone: Path) -> None:
    _plant(clone, ".overlay.json.tmp", "overlay.json.tmp")
    code, said = _run(
        "export",
        "doc.json",
        "--model-explorer",
        "overlay.json",
        "--model",
        str(DSCNN / "dscnn.pt2"),
    )
    assert code == 0, said
    assert _victim(clone) == PRECIOUS
    assert "graph" in json.loads((clone / "overlay.json").read_text())


def test_check_reports_never_write_through_planted_temporary_links(clone: Path) -> None:
    for name, profile in (("base", ORT_NOOPT), ("new", ORT_OPT)):
        (clone / f"{name}.json").write_text(json.dumps(ort_run(ONNX_MODEL, profile)))
    _plant(clone, "o.sarif.tmp", ".o.sarif.tmp", "o.xml.tmp", ".o.xml.tmp")
    code, said = _run(
        "check", "--baseline", "base.json", "new.json", "--sarif", "o.sarif", "--junit", "o.xml"
    )
    assert code == 0, said
    assert _victim(clone) == PRECIOUS
    assert json.loads((clone / "o.sarif").read_text())["version"] == "2.1.0"
    assert (clone / "o.xml").read_text().startswith("<?xml")


def test_a_planted_mlia_output_link_does_not_redirect_the_result(
    clone: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, clone / "mlia-output")
    code, said = _run("report", "doc.json")
    assert code == 2, said
    assert "mlia-output is a symbolic link" in said and "Traceback" not in said
    assert list(elsewhere.iterdir()) == []


def test_baseline_staging_never_goes_through_a_planted_link(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    outside = tmp_path / "outside"
    (root / ".perfline" / "baselines").mkdir(parents=True)
    outside.mkdir()
    folder = baseline_store.job_folder(root, "job")
    for pid in range(os.getpid() - 5, os.getpid() + 5):  # main's name and its neighbours
        os.symlink(outside, folder.parent / f".tmp-job-{pid}")
    document = postprocess(ort_run(ONNX_MODEL, ORT_NOOPT))
    manifest = {"perfline_baseline": 1, "job": "job", "sources": {"m.py": "m.py"}}
    baseline_store.write_baseline(root, folder, manifest, document, {"m.py": "SECRET = 1\n"})
    assert list(outside.iterdir()) == []
    assert (folder / "sources" / "m.py").read_text() == "SECRET = 1\n"
    assert json.loads((folder / "baseline.json").read_text())["job"] == "job"
    leftovers = [p.name for p in folder.parent.iterdir() if not p.is_symlink()]
    assert leftovers == ["job"]  # no staging or old folder left behind
