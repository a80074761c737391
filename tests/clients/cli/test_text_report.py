"""Issue 17 item 6: a readable text report.

At 80 columns piped (``COLUMNS=80``) no line is longer than 80 and no number is split or
cut; ``COLUMNS`` is honoured when piped; breakdown metrics are columns (the dominant one
first, the others in the order they come in); rows are sorted by the dominant metric; the
per-source-line table comes first; ``--limit N`` and ``--all``; ``report``, ``analyze`` and
``operators`` draw the same boxes under the same width rule; the float-sums mode is named
for a result whose figures are sums of floats. The expectations are computed here from the
documents (values, the heaviest operator under a line), not taken from the renderer.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.clients.cli.annotate import render, share_color
from perfline.core.render_text import format_value, render_text
from tests.support.cases import CASES
from tests.support.documents import nx_document
from tests.support.locations import DATA, TESTS

MEASURED = DATA / "measured" / "portable"
SNAPSHOT = Path(__file__).resolve().parent / "snapshots" / "report_kws_80.txt"
NUMBER_CELL = re.compile(r"^-?\d[\d.]*(e[+-]?\d+)?%?$|^<1%$")


@pytest.fixture(scope="module")
def kws_document(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The measured DS-CNN result (ExecuTorch portable, 10 runs), post-processed."""
    folder = tmp_path_factory.mktemp("kws")
    result = CliRunner().invoke(
        cli,
        [
            "analyze",
            str(MEASURED / "dscnn_portable.etrecord"),
            str(MEASURED / "dscnn_portable.etdump"),
            "--json",
            "--output-dir",
            str(folder),
        ],
    )
    assert result.exit_code == 0, result.stderr
    path = folder / "kws.json"
    path.write_text(result.stdout)
    return path


def _piped(arguments: list[str], columns: str | None, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = columns
    done = subprocess.run(
        [sys.executable, "-m", "perfline", *arguments],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("│").split("│")]


def _figures(document: dict[str, Any]) -> set[str]:
    """Every metric value of the document as the report writes numbers."""
    found = set()
    for result in document["results"]:
        for metric in result.get("metrics", []):
            if "value" in metric:
                found.add(format_value(metric["value"], metric.get("unit", "")))
        for breakdown in result.get("breakdowns", []):
            found.update(
                format_value(m["value"], m.get("unit", ""))
                for m in breakdown["metrics"]
                if "value" in m
            )
    return found


def _assert_no_number_split(text: str, document: dict[str, Any], width: int) -> None:
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    assert not re.search(r"\d(…|\.\.\.)|(…|\.\.\.)\d", text)  # nothing cut at a digit
    figures = _figures(document)
    for line in lines:
        if line.startswith("│"):
            for cell in _cells(line):
                # A cell that is a number is one of the document's, whole.
                if NUMBER_CELL.match(cell) and not cell.endswith("%"):
                    assert cell in figures, (cell, line)


def test_report_at_80_columns_piped_matches_the_snapshot(
    kws_document: Path, tmp_path: Path
) -> None:
    text = _piped(["report", str(kws_document), "--output-dir", str(tmp_path)], "80", tmp_path)
    _assert_no_number_split(text, json.loads(kws_document.read_text()), 80)
    if os.environ.get("PERFLINE_UPDATE_SNAPSHOTS"):
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(text)
    assert text == SNAPSHOT.read_text()


def test_columns_is_honoured_when_piped(kws_document: Path, tmp_path: Path) -> None:
    for columns, width in (("100", 100), ("60", 60), (None, 120)):
        text = _piped(
            ["report", str(kws_document), "--output-dir", str(tmp_path)], columns, tmp_path
        )
        assert text.splitlines()[0] == f"--- perfline report {'-' * (width - 21)}"
        assert max(len(line) for line in text.splitlines()) <= width
        _assert_no_number_split(text, json.loads(kws_document.read_text()), width)


def _table(text: str, title: str) -> tuple[list[str], list[list[str]]]:
    """The header and body rows of the table after the line starting with ``title``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    rows = []
    header: list[str] = []
    for line in lines[start + 1 :]:
        if line.startswith("└"):
            break
        if line.startswith("│"):
            if not header:
                header = _cells(line)
            else:
                rows.append(_cells(line))
    return header, rows


def _nx(tmp_path: Path, chains: int = 60, **options: Any) -> tuple[Path, dict[str, Any]]:
    document = nx_document(chains, **options)
    path = tmp_path / "nx.json"
    path.write_text(json.dumps(document))
    return path, document


def test_metrics_are_columns_in_a_fixed_order_and_rows_by_the_dominant_metric(
    tmp_path: Path,
) -> None:
    path, document = _nx(tmp_path)
    text = render_text(_processed(path, tmp_path), width=200, limit=None)
    header, rows = _table(text, "Breakdowns:")
    names = [m["name"] for m in document["results"][0]["breakdowns"][0]["metrics"]]
    units = [m["unit"] for m in document["results"][0]["breakdowns"][0]["metrics"]]
    # NX results: total_cycles is the dominant metric (it is also the first one).
    assert (
        header[2:] == [f"{n} ({u})" for n, u in zip(names, units, strict=True)][: len(header) - 2]
    )
    # Numbers are written by the one rounding rule (core.figure_text): 3.1M, 950, 12k.
    scale = {"k": 1e3, "M": 1e6, "G": 1e9}
    values = [
        float(row[2][:-1]) * scale[row[2][-1]] if row[2][-1] in scale else float(row[2])
        for row in rows
        if row[2]
    ]
    assert values == sorted(values, reverse=True) and len(values) > 50
    assert len(rows) == len(_processed(path, tmp_path)["results"][0]["breakdowns"])


def _processed(path: Path, tmp_path: Path) -> dict[str, Any]:
    result = CliRunner().invoke(
        cli, ["report", str(path), "--json", "--output-dir", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def test_limit_and_all(tmp_path: Path) -> None:
    path, _ = _nx(tmp_path)
    processed = _processed(path, tmp_path)
    breakdowns = len(processed["results"][0]["breakdowns"])
    for arguments, shown in ((["--limit", "7"], 7), ([], 20), (["--all"], breakdowns)):
        result = CliRunner().invoke(
            cli, ["report", str(path), "--output-dir", str(tmp_path), *arguments]
        )
        assert result.exit_code == 0, result.stderr
        _, rows = _table(result.stdout, "Breakdowns:")
        assert len([r for r in rows if r[0]]) == shown
        words = " ".join(result.stdout.split())
        if shown < breakdowns:
            assert f"Showing {shown} of {breakdowns} breakdowns" in words
        else:
            assert "breakdowns (--limit" not in words


def test_the_source_lines_come_first_with_figure_share_and_top_operator(
    kws_document: Path,
) -> None:
    document = json.loads(kws_document.read_text())
    text = render_text(document, width=120)
    assert text.index("Source lines:") < text.index("Metrics:") < text.index("Breakdowns:")
    header, rows = _table(text, "Source lines:")
    assert header == ["Line", "duration_avg (ms)", "Share", "Top operator", "Of line"]
    result = document["results"][0]
    figure = {
        b["entity_id"]: m["value"]
        for b in result["breakdowns"]
        for m in b["metrics"]
        if m["name"] == "duration_avg"
    }
    entities = {e["id"]: e for e in result["entities"]}
    line = max(
        (e for e in result["entities"] if e["kind"] == "code_line"),
        key=lambda e: figure.get(e["id"], -1),
    )
    where = f"dscnn.py:{line['attributes']['line']}"
    # The heaviest line is the call line 41 (x = self.blocks(x)): its stack continues into
    # the stacks of the lines it calls, and its operators are below those.
    (stack,) = line["child_ids"]
    operators, called, pending = [], set(), [stack]
    while pending:
        current = entities[pending.pop()]
        for child in (e for e in entities.values() if current["id"] in e.get("parent_ids", [])):
            if child["kind"] == "code_stack":
                called.add(child["attributes"]["line"])
                pending.append(child["id"])
            elif child["kind"] == "source_operator":
                operators.append(child)
    assert where == "dscnn.py:41" and sorted(called) == list(range(24, 28))
    top = max(operators, key=lambda e: figure.get(e["id"], -1))
    assert rows[0][0] == where
    assert rows[0][1] == format_value(figure[line["id"]])
    assert rows[0][1] == format_value(sum(figure[o["id"]] for o in operators))  # inclusive
    assert rows[0][3].startswith(top["name"])
    assert rows[0][4] == f"{figure[top['id']] / figure[line['id']]:.0%}"
    # Marked inclusive below its place: the lines it calls.
    assert rows[1] == [f"(calls {min(called)}-{max(called)})", "", "", "", ""]
    assert not any(row[0].startswith("(calls") for row in rows[2:])
    values = [float(row[1]) for row in rows if row[1] not in ("", "-")]
    assert values == sorted(values, reverse=True)  # heaviest first, by figure


def test_no_source_line_table_without_code_lines() -> None:
    document = json.loads((CASES / "worked" / "01_two_resize_chains_sum.json").read_text())
    assert "Source lines:" not in render_text(document, width=80)


def _box_lines(text: str) -> set[str]:
    return {line[0] for line in text.splitlines() if line and line[0] in "┌├└│"}


def test_report_analyze_and_operators_draw_the_same_boxes_within_the_width(
    tmp_path: Path,
) -> None:
    outputs = [
        _piped(
            [
                "analyze",
                str(MEASURED / "dscnn_portable.etrecord"),
                str(MEASURED / "dscnn_portable.etdump"),
                "--output-dir",
                str(tmp_path),
            ],
            "72",
            tmp_path,
        ),
        _piped(["report", str(_nx(tmp_path)[0]), "--output-dir", str(tmp_path)], "72", tmp_path),
        _piped(
            ["operators", str(TESTS / "data/formats/dscnn/dscnn.onnx")],
            "72",
            tmp_path,
        ),
    ]
    for text in outputs:
        assert _box_lines(text) == {"┌", "├", "└", "│"}
        assert max(len(line) for line in text.splitlines()) <= 72
        corners = [line for line in text.splitlines() if line.startswith("┌")]
        assert all(set(line[1:-1]) <= {"─", "┬"} and line.endswith("┐") for line in corners)


def test_the_float_sums_mode_is_named_for_float_sums_only(tmp_path: Path) -> None:
    floats, _ = _nx(tmp_path, 20, float_values=True)
    for arguments, mode in (([], "exact"), (["--float-sums", "reference"], "reference")):
        result = CliRunner().invoke(
            cli, ["report", str(floats), "--output-dir", str(tmp_path), *arguments]
        )
        assert result.exit_code == 0, result.stderr
        (line,) = [line for line in result.stdout.splitlines() if line.startswith("Float sums")]
        assert line.split()[:3] == ["Float", "sums", mode]
    integers = tmp_path / "integers.json"
    integers.write_text(json.dumps(nx_document(20)))
    result = CliRunner().invoke(cli, ["report", str(integers), "--output-dir", str(tmp_path)])
    assert "Float sums" not in result.stdout


def test_float_sums_from_perfline_toml(tmp_path: Path) -> None:
    floats, _ = _nx(tmp_path, 20, float_values=True)
    (tmp_path / "perfline.toml").write_text('float_sums = "reference"\n')
    result = CliRunner().invoke(cli, ["report", str(floats), "--output-dir", str(tmp_path)])
    assert any(line.startswith("Float sums    reference") for line in result.stdout.splitlines())
    result = CliRunner().invoke(
        cli, ["report", str(floats), "--output-dir", str(tmp_path), "--float-sums", "exact"]
    )
    assert any(line.startswith("Float sums    exact") for line in result.stdout.splitlines())


def test_the_settings_carry_the_float_sums_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perfline.core import pipeline

    seen: list[str] = []
    real = pipeline.postprocess

    def spy(document: Any, settings: Any, **kwargs: Any) -> Any:
        seen.append(settings.float_sums)
        return real(document, settings, **kwargs)

    monkeypatch.setattr(pipeline, "postprocess", spy)
    floats, _ = _nx(tmp_path, 10, float_values=True)
    for arguments in ([], ["--float-sums", "reference"], ["--float-sums", "exact"]):
        CliRunner().invoke(cli, ["report", str(floats), "--output-dir", str(tmp_path), *arguments])
    assert seen == ["exact", "reference", "exact"]


def test_annotate_colours_lines_by_share_on_a_terminal() -> None:
    lines = [
        {"line": 1, "label": "9.6 ms · 81%", "entities": [{"share": 0.81}]},
        {"line": 2, "label": "0.9 ms · 8%", "entities": [{"share": 0.08}]},
        {"line": 3, "label": "0.1 ms · <1%", "entities": [{"share": 0.001}]},
    ]
    coloured = render("a\nb\nc\n", lines, {}, color=True).splitlines()
    assert "\x1b[31m" in coloured[0]  # red: half of the model or more
    assert "\x1b[32m" in coloured[1]  # green: 5% to 20%
    assert "\x1b[90m" in coloured[2]  # dim: under 5%
    plain = render("a\nb\nc\n", lines, {}, color=False)
    assert "\x1b[" not in plain
    assert [share_color(s) for s in (0.5, 0.2, 0.05, 0.0, None)] == [
        "red",
        "yellow",
        "green",
        "bright_black",
        None,
    ]


def _called_lines(result: dict[str, Any]) -> dict[str, set[tuple[str, int]]]:
    """``file:line`` of each code line -> the (file, line) of the stacks below its own."""
    entities = {e["id"]: e for e in result["entities"]}
    children: dict[str, list[str]] = {}
    for e in result["entities"]:
        for parent in e.get("parent_ids", []):
            children.setdefault(parent, []).append(e["id"])
        for child in e.get("child_ids", []):
            children.setdefault(e["id"], []).append(child)
    found = {}
    for line in (e for e in result["entities"] if e["kind"] == "code_line"):
        own = (line["attributes"]["file"], line["attributes"]["line"])
        below: set[tuple[str, int]] = set()
        pending = [c for c in children.get(line["id"], []) if entities[c]["kind"] == "code_stack"]
        while pending:
            for child in children.get(pending.pop(), []):
                if entities[child]["kind"] == "code_stack":
                    below.add(
                        (
                            entities[child]["attributes"]["file"],
                            entities[child]["attributes"]["line"],
                        )
                    )
                    pending.append(child)
        found[f"{own[0].rsplit('/', 1)[-1]}:{own[1]}"] = below - {own}
    return found


def test_call_lines_of_a_large_result_are_marked_with_a_count(tmp_path: Path) -> None:
    """NX-shaped lines of model.py call many lines of blocks.py: the marker gives their count
    where the list would widen the column, and every call line has one, no other line."""
    path, _ = _nx(tmp_path)
    processed = _processed(path, tmp_path)
    text = render_text(processed, width=120, limit=None)
    _, rows = _table(text, "Source lines:")
    called = _called_lines(processed["results"][0])
    marked = {}
    for row, following in zip(rows, [*rows[1:], None], strict=True):
        if row[0] and not row[0].startswith("("):
            marked[row[0]] = following[0] if following and following[0].startswith("(") else None
    assert marked and set(marked) == set(called)
    assert {w for w, m in marked.items() if m} == {w for w, c in called.items() if c}
    for where, marker in marked.items():
        # Every list names another file: "(calls blocks.py:N)" is already wider than the room.
        n = len(called[where])
        assert marker is None or marker == f"(calls {n} line{'' if n == 1 else 's'})", marker
