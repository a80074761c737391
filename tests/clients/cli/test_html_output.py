"""``perfline report --html`` and the daemon's entry point: sources through the workspace."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.workspace_config import PathMap
from perfline.server.file_access import Root
from perfline.server.paths import PathResolver
from perfline.server.report_sources import read_sources, render_document_html
from tests.support.html_documents import RECORDED, SOURCE, example_document


def _data(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="perfline-data">(.*?)</script>', page)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "model").mkdir(parents=True)
    shutil.copy(SOURCE, folder / "model" / "dscnn.py")
    (folder / "perfline.toml").write_text('[[path_map]]\nfrom = "/home/dev/kws/"\nto = "model"\n')
    (folder / "doc.json").write_text(json.dumps(example_document()))
    return folder


def test_report_html_reads_sources_through_the_path_map(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace.parent)
    out = workspace / "report.html"
    done = CliRunner().invoke(
        cli,
        ["report", str(workspace / "doc.json"), "--html", str(out), "--output-dir", str(workspace)],
    )
    assert done.exit_code == 0, done.output
    (file,) = _data(out.read_text())["views"][0]["files"]
    assert file["display"] == "model/dscnn.py"
    assert file["recorded"] == [RECORDED]
    assert file["text"] == SOURCE.read_text().splitlines()
    assert file["location"] is None  # a report for sharing names no local path
    assert not list(workspace.glob(".*.tmp"))


def test_report_html_without_workspace_file(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(workspace / "doc.json", elsewhere / "doc.json")
    monkeypatch.chdir(elsewhere)
    done = CliRunner().invoke(
        cli, ["report", "doc.json", "--html", "r.html", "--json", "--output-dir", "."]
    )
    assert done.exit_code == 0, done.output
    json.loads(done.stdout)  # --json still prints only the document
    (file,) = _data((elsewhere / "r.html").read_text())["views"][0]["files"]
    assert file["text"] is None and file["missing"] == "not found in the workspace"


def test_report_html_bad_target(workspace: Path) -> None:
    target = workspace / "no-such-folder" / "r.html"
    done = CliRunner().invoke(
        cli,
        [
            "report",
            str(workspace / "doc.json"),
            "--html",
            str(target),
            "--output-dir",
            str(workspace),
        ],
    )
    assert done.exit_code == 2
    assert str(target) in done.stderr and "does not exist" in done.stderr


def test_sources_never_come_from_outside_the_workspace(workspace: Path) -> None:
    document = example_document()
    for entity in document["results"][0]["entities"]:
        if entity["kind"] == "code_line":
            entity["attributes"]["file"] = "/etc/passwd"
    resolver = PathResolver(workspace, (), (".",), ["model/dscnn.py"])
    sources = read_sources(document, resolver.resolve, files=Root(workspace), root=workspace)
    assert sources == {"/etc/passwd": sources["/etc/passwd"]}
    assert sources["/etc/passwd"].text is None


def test_daemon_entry_point_names_local_files(workspace: Path) -> None:
    # the recorded folder (kws) is not the workspace's (model): the path map says they are one
    mapped = (PathMap(str(PurePosixPath(RECORDED).parent), "model"),)
    resolver = PathResolver(workspace, mapped, (".",), ["model/dscnn.py"])
    page = render_document_html(
        example_document(),
        resolver.resolve,
        files=Root(workspace),
        root=workspace,
        locations=True,
        nonce="n0nce123",
    )
    (file,) = _data(page)["views"][0]["files"]
    assert file["location"] == str((workspace / "model" / "dscnn.py").resolve())
    assert "'nonce-n0nce123'" in page


def test_compare_html_writes_the_compare_view(workspace: Path, tmp_path: Path) -> None:
    from perfline.core.report_html.comparison import SIGNIFICANCES
    from tests.support.compare_pair import write_pair

    base, new = write_pair(tmp_path / "pair", runs=10)
    out = tmp_path / "compare.html"
    done = CliRunner().invoke(
        cli, ["compare", base, new, "--html", str(out), "--source-root", str(workspace)]
    )
    assert done.exit_code == 0, done.output
    assert "dscnn.py:26" in done.stdout  # the text table is still printed
    data = _data(out.read_text())
    assert data["comparison"]["baseline"] == base and data["comparison"]["current"] == new
    (view,) = data["views"]
    (file,) = view["files"]
    assert file["display"] == "model/dscnn.py" and file["text"] == SOURCE.read_text().splitlines()
    assert file["location"] is None
    (line_26,) = [line for line in file["lines"] if line[0] == 26]
    (row,) = [r for r in view["comparison"]["deltas"] if r[0] == line_26[1]]
    assert SIGNIFICANCES[row[4]] == "regressed" and row[2] > row[1]
    assert "<title>perfline compare: new.etrecord</title>" in out.read_text()


def test_compare_html_bad_target(workspace: Path, tmp_path: Path) -> None:
    from tests.support.compare_pair import write_pair

    base, new = write_pair(tmp_path / "pair", runs=3)
    target = tmp_path / "missing" / "c.html"
    done = CliRunner().invoke(
        cli, ["compare", base, new, "--html", str(target), "--source-root", str(workspace)]
    )
    assert done.exit_code == 2 and "does not exist" in done.stderr
