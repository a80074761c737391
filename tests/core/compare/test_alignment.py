"""Aligning two runs whose source file changed: line mapping from the file's two versions.

The baseline is the DS-CNN onnxruntime run of ``dscnn.py`` as it is; the new run is the
same run recorded against an edited ``dscnn.py``: two lines inserted above the model
(everything below moves down by two), lines 42 and 43 swapped, line 44 rewritten. Its
code stacks carry the new line numbers (and new ids), as a run of the edited file would.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from tests.support.compare_paths import MODEL_SOURCE, ONNX_MODEL, ORT_NOOPT
from tests.support.ort_runs import ort_run
from tests.support.raw_events import node_lines

OLD = MODEL_SOURCE.read_text()


def _edited() -> tuple[str, dict[int, int]]:
    """The edited source and old line -> line the run records for it in the new version."""
    lines = OLD.splitlines(keepends=True)
    assert lines[43].strip() == "return self.fc(x)"
    new = [*lines[:9], "import math\n", "\n", *lines[9:41], lines[42], lines[41]]
    new += ["        return self.fc(x).relu()\n", *lines[44:]]
    moved = {old: (old + 2 if old >= 10 else old) for old in range(1, len(lines) + 1)}
    moved[42], moved[43] = 45, 44
    return "".join(new), moved


def _shifted(document: dict[str, Any], where: dict[int, int]) -> dict[str, Any]:
    """The run recorded against the edited file: stack lines moved, stack ids renamed."""
    result = document["results"][0]
    renamed: dict[str, str] = {}
    for entity in result["entities"]:
        if entity["kind"] == "code_stack" and entity["attributes"]["file"].endswith("dscnn.py"):
            line = where[entity["attributes"]["line"]]
            renamed[entity["id"]] = f"code_stack/edited/{len(renamed)}:{line}"
            entity["attributes"]["line"] = line
            entity["name"] = f"dscnn.py:{line}"
    for entity in result["entities"]:
        entity["id"] = renamed.get(entity["id"], entity["id"])
        for key in ("parent_ids", "child_ids"):
            if key in entity:
                entity[key] = [renamed.get(i, i) for i in entity[key]]
    return document


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, Path]:
    new_text, where = _edited()
    base = tmp_path / "base.json"
    base.write_text(json.dumps(ort_run(ONNX_MODEL, ORT_NOOPT)))
    new = tmp_path / "new.json"
    new.write_text(json.dumps(_shifted(ort_run(ONNX_MODEL, ORT_NOOPT), where)))
    workspace = tmp_path / "workspace"
    (workspace / "kws").mkdir(parents=True)
    (workspace / "kws" / "dscnn.py").write_text(new_text)
    old_tree = tmp_path / "old"
    (old_tree / "kws").mkdir(parents=True)
    (old_tree / "kws" / "dscnn.py").write_text(OLD)
    return {"base": base, "new": new, "workspace": workspace, "old": old_tree}


def _lines(arguments: list[str]) -> tuple[dict[tuple[Any, Any], dict[str, Any]], str]:
    outcome = CliRunner().invoke(cli, ["compare", *arguments, "--json"])
    assert outcome.exit_code == 0, outcome.output
    (result,) = json.loads(outcome.stdout)["results"]
    lines = {
        (e.get("base_line"), e.get("new_line")): e
        for e in result["entities"]
        if e["kind"] == "code_line"
    }
    return lines, outcome.stderr


# Every user line a node's stack trace names (``raw_events.node_lines``: 25, 27, 40-44),
# moved as ``_edited`` moves it; line 41 (``x = self.blocks(x)``) is the call line whose
# inclusive figure holds the block lines' (25 and 27 in this export).
EXPECTED = {
    (25, 27),
    (27, 29),
    (40, 42),
    (41, 43),
    (42, 45),
    (43, 44),
    (44, None),
    (None, 46),
}


def _assert_mapped(lines: dict[tuple[Any, Any], dict[str, Any]]) -> None:
    assert set(lines) == EXPECTED
    assert {old for old, _ in EXPECTED if old} == set().union(*node_lines().values())
    # The call line's callees in the new run's terms: the block lines moved by two.
    calls = [(c["file"].rsplit("/", 1)[-1], c["line"]) for c in lines[(41, 43)]["calls"]]
    assert calls == [("dscnn.py", 27), ("dscnn.py", 29)]
    assert all("calls" not in e for k, e in lines.items() if k != (41, 43))
    for (old, new), entity in lines.items():
        (delta,) = [m for m in entity["metrics"] if m["name"] == "duration_avg"]
        if old is None:
            assert entity["status"] == "added" and delta["verdict"] == "added"
        elif new is None:
            assert entity["status"] == "removed" and delta["verdict"] == "removed"
        else:  # same run, same figures: the moved lines kept their history
            assert entity["status"] == "common" and delta["verdict"] == "unchanged"
            assert delta["delta"] == 0


def test_lines_are_mapped_from_a_baseline_source_folder(runs: dict[str, Path]) -> None:
    lines, errors = _lines(
        [
            str(runs["base"]),
            str(runs["new"]),
            "--source-root",
            str(runs["workspace"]),
            "--base-source",
            str(runs["old"]),
        ]
    )
    _assert_mapped(lines)
    assert "lines mapped from the baseline's version" in errors


def test_lines_are_mapped_from_git(runs: dict[str, Path]) -> None:
    workspace = runs["workspace"]
    new_text = (workspace / "kws" / "dscnn.py").read_text()
    (workspace / "kws" / "dscnn.py").write_text(OLD)
    environment = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "HOME": str(workspace),
        "PATH": "/usr/bin:/bin",
    }
    for command in (["init", "-q"], ["add", "kws/dscnn.py"], ["commit", "-q", "-m", "base"]):
        subprocess.run(["git", *command], cwd=workspace, env=environment, check=True)
    (workspace / "kws" / "dscnn.py").write_text(new_text)
    arguments = [str(runs["base"]), str(runs["new"]), "--source-root", str(workspace)]
    lines, _ = _lines([*arguments, "--base-rev", "HEAD"])
    _assert_mapped(lines)
    subprocess.run(["git", "commit", "-qam", "edit"], cwd=workspace, env=environment, check=True)
    lines, _ = _lines([*arguments, "--base-rev", "HEAD~1", "--new-rev", "HEAD"])
    _assert_mapped(lines)
    outcome = CliRunner().invoke(cli, ["compare", *arguments, "--base-rev", "--output=x"])
    assert outcome.exit_code == 2 and "is not a git revision" in outcome.output


def test_without_the_baseline_source_lines_align_by_number(runs: dict[str, Path]) -> None:
    lines, _ = _lines([str(runs["base"]), str(runs["new"])])
    assert set(lines) != EXPECTED
    # Old 27 meets new 27 (old 25's operators): the number, not the code.
    (delta,) = [m for m in lines[(27, 27)]["metrics"] if m["name"] == "duration_avg"]
    assert delta["verdict"] != "unchanged"
