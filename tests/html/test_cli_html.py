"""``perfline report --html`` and the daemon's entry point: sources through the workspace."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.server.paths import PathResolver
from perfline.server.report_sources import read_sources, render_document_html
from tests.html._documents import RECORDED, SOURCE, example_document


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
    sources = read_sources(document, resolver.resolve, root=workspace)
    assert sources == {"/etc/passwd": sources["/etc/passwd"]}
    assert sources["/etc/passwd"].text is None


def test_daemon_entry_point_names_local_files(workspace: Path) -> None:
    resolver = PathResolver(workspace, (), (".",), ["model/dscnn.py"])
    page = render_document_html(
        example_document(), resolver.resolve, root=workspace, locations=True, nonce="n0nce123"
    )
    (file,) = _data(page)["views"][0]["files"]
    assert file["location"] == str((workspace / "model" / "dscnn.py").resolve())
    assert "'nonce-n0nce123'" in page
