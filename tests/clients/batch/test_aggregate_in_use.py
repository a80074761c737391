"""The aggregate document is read like any run: the daemon's hints (p50 and n), the HTML
report, and ``perfline check`` gating on two weeks' distributions."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from lsprotocol import types

from perfline.clients.cli import cli
from tests.support.batch_runs import DATA, PORTABLE, make_runs, perfline, processed
from tests.support.lsp_session import start

pytestmark = pytest.mark.timeout(300)
RUNS = 15


def _line_26_instructions() -> frozenset[int]:
    """The ETDump instruction ids of the operators on dscnn.py:26 (the pointwise conv)."""
    result = processed(PORTABLE)["results"][0]
    stacks = {
        e["id"]
        for e in result["entities"]
        if e["kind"] == "code_stack" and e["attributes"]["line"] == 26
    }
    return frozenset(
        e["attributes"]["instruction_id"]
        for e in result["entities"]
        if e["kind"] == "source_operator" and stacks & set(e.get("parent_ids", ()))
    )


def _week(folder: Path, seed: int, slow: float = 1.0) -> Path:
    """An aggregate of ``RUNS`` variants of the portable ETDump (line 26 slowed by ``slow``)."""
    runs = folder / f"runs-{seed}"
    make_runs().write_runs(
        runs,
        etdump=RUNS,
        seed=seed,
        slow_instructions=_line_26_instructions() if slow != 1.0 else frozenset(),
        slow_factor=slow,
    )
    store, out = folder / f"store-{seed}", folder / f"week-{seed}.json"
    for arguments in (
        [
            "batch",
            "run",
            "--in-process",
            "--store",
            str(store),
            "--from-list",
            str(runs / "runs.txt"),
        ],
        ["batch", "summarize", "--store", str(store), "--out", str(out)],
    ):
        result = CliRunner().invoke(cli, arguments, catch_exceptions=False)
        assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The model source, a path map, and three weeks: the last, a slower one, a like one."""
    root = tmp_path_factory.mktemp("ws")
    shutil.copy(DATA / "formats" / "dscnn" / "dscnn.py", root / "dscnn.py")
    (root / "perfline.toml").write_text(
        '[[path_map]]\nfrom = "/home/dev/kws/"\nto = "."\n\n'
        '[[jobs]]\nname = "nightly"\nbackend = "standardized"\ninputs = ["week-2.json"]\n',
        encoding="utf-8",
    )
    _week(root, 1)
    _week(root, 2, slow=1.3)
    _week(root, 3)
    return root


def test_check_gates_on_two_distributions(workspace: Path) -> None:
    base = str(workspace / "week-1.json")
    slower = perfline(
        "check",
        "--baseline",
        base,
        str(workspace / "week-2.json"),
        "--max-regression",
        "5%",
        "--source-root",
        str(workspace),
        "--sarif",
        str(workspace / "out.sarif"),
    )
    assert slower.returncode == 1, slower.stderr
    sarif = json.loads((workspace / "out.sarif").read_text(encoding="utf-8"))
    lines = {
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in sarif["runs"][0]["results"]
    }
    assert lines == {("dscnn.py", 26)}
    like = perfline(
        "check",
        "--baseline",
        base,
        str(workspace / "week-3.json"),
        "--max-regression",
        "5%",
        "--source-root",
        str(workspace),
    )
    assert like.returncode == 0, like.stdout + like.stderr
    compared = perfline(
        "compare",
        base,
        str(workspace / "week-2.json"),
        "--json",
        "--source-root",
        str(workspace),
    )
    data = json.loads(compared.stdout)
    (line,) = [
        e
        for e in data["results"][0]["entities"]
        if e["kind"] == "code_line" and e["new_line"] == 26
    ]
    (metric,) = [m for m in line["metrics"] if m["name"] == "duration_avg"]
    assert metric["method"] == "samples" and (metric["base_runs"], metric["new_runs"]) == (15, 15)
    assert metric["verdict"] == "regression" and 1.2 < metric["ratio"] < 1.4


def test_the_html_report_shows_the_medians(workspace: Path) -> None:
    out = workspace / "week-2.html"
    done = perfline(
        "report",
        str(workspace / "week-2.json"),
        "--html",
        str(out),
        "--output-dir",
        str(workspace / "report"),
        cwd=workspace,
    )
    assert done.returncode == 0, done.stderr
    found = re.search(
        r'<script type="application/json" id="perfline-data">(.*?)</script>',
        out.read_text(encoding="utf-8"),
    )
    assert found is not None
    view = json.loads(found.group(1))["views"][0]
    assert view["metric"]["statistic"] == "p50"
    (file,) = view["files"]
    assert file["text"] == (workspace / "dscnn.py").read_text(encoding="utf-8").splitlines()
    document = json.loads((workspace / "week-2.json").read_text(encoding="utf-8"))
    median = _line_value(document, 26)
    (row,) = [line for line in file["lines"] if line[0] == 26]
    assert row[2] == pytest.approx(median, rel=1e-6) and " p50 n=" in view["labels"][row[3]]


def _line_value(document: dict[str, Any], line: int) -> float:
    result = document["results"][0]
    (entity,) = [
        e["id"]
        for e in result["entities"]
        if e["kind"] == "code_line" and e["attributes"]["line"] == line
    ]
    (breakdown,) = [b for b in result["breakdowns"] if b["entity_id"] == entity]
    return float(breakdown["metrics"][0]["value"])


async def test_the_editor_shows_p50_and_n(workspace: Path) -> None:
    async with start(workspace, "stdio", "visual-studio-code") as session:
        (job,) = await session.wait_analysed()
        assert job.state == "ok"
        uri = session.open("dscnn.py")
        hints = {h.position.line + 1: h.label for h in await session.hints(uri)}
        document = json.loads((workspace / "week-2.json").read_text(encoding="utf-8"))
        assert set(hints) == {24, 25, 26, 27, 40, 41, 42, 44}
        assert re.fullmatch(
            rf"{_line_value(document, 26):.3g} ms p50 n={RUNS} · \d+%", str(hints[26])
        )
        hover = await session.client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(25, 8))
        )
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        assert "p50" in hover.contents.value
