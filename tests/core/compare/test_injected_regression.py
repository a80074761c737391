"""A generated pair of ExecuTorch runs with one known regression, through the real backend.

Both ETDumps are written from the real portable DS-CNN dump: each of 30 runs draws every
operator's duration from that operator's 10 measured durations (so the two runs differ
by the model's own noise, nothing else); in the new run the operators of one line, the
pointwise convolutions of ``dscnn.py:26`` (found from the ExecuTorch Inspector's stack
traces), are 25% slower. The comparison must find that line, and only it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner, Result

from perfline.clients.cli import cli
from perfline.core.pipeline import postprocess
from perfline.server.ingest.executorch import load_etdump_document
from tests.support.compare_paths import MODEL_SOURCE, SARIF_SCHEMA, et_pair, inspector
from tests.support.injected_regression import (
    BASE_SEED,
    FACTOR,
    NEW_SEED,
    RUNS,
    SLOWER_LINE,
    draws,
    instructions_holding,
    measured,
    regression_etdump,
)

CALL_LINE = 41  # x = self.blocks(x): every block operator is below it


def _line_mean(seed: int, factor: float, line: int) -> float:
    """A line's mean ms over the runs: its instructions' drawn ticks, summed per run."""
    held = instructions_holding(line)
    runs = [sum(t for i, t in drawn.items() if i in held) / 1e6 for drawn in draws(seed, factor)]
    return sum(runs) / len(runs)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, Path]:
    folder = tmp_path_factory.mktemp("generated")
    record, _ = et_pair("portable")
    sides = []
    for name, seed, factor in (("base", BASE_SEED, 1.0), ("new", NEW_SEED, FACTOR)):
        shutil.copy(record, folder / f"{name}.etrecord")
        (folder / f"{name}.etdump").write_bytes(regression_etdump(seed, factor))
        sides.append(f"{folder / name}.etrecord,{folder / name}.etdump")
    workspace = folder / "workspace"
    (workspace / "kws").mkdir(parents=True)
    shutil.copy(MODEL_SOURCE, workspace / "kws" / "dscnn.py")
    return sides[0], sides[1], workspace


def _compare_json(pair: tuple[str, str, Path]) -> dict[str, Any]:
    base, new, workspace = pair
    outcome = CliRunner().invoke(
        cli, ["compare", base, new, "--json", "--source-root", str(workspace)]
    )
    assert outcome.exit_code == 0, outcome.output
    data: dict[str, Any] = json.loads(outcome.stdout)
    return data


def test_the_injected_line_is_found_and_the_noise_is_not(pair: tuple[str, str, Path]) -> None:
    (result,) = _compare_json(pair)["results"]
    lines = {e["new_line"]: e for e in result["entities"] if e["kind"] == "code_line"}
    assert set(lines) == {24, 25, 26, 27, 40, CALL_LINE, 42, 44}
    verdicts = {}
    for line, entity in lines.items():
        (delta,) = [m for m in entity["metrics"] if m["name"] == "duration_avg"]
        assert delta["method"] == "samples" and delta["base_runs"] == delta["new_runs"] == RUNS
        assert delta["base"] == pytest.approx(_line_mean(BASE_SEED, 1.0, line), rel=1e-9)
        assert delta["new"] == pytest.approx(_line_mean(NEW_SEED, FACTOR, line), rel=1e-9)
        verdicts[line] = (delta["significant"], delta["verdict"], "explained_by_calls" in delta)
    assert verdicts.pop(SLOWER_LINE) == (True, "regression", False)
    # The call line includes line 26: its change is as real, and the lines it calls account
    # for it (marked, counted on line 26).
    assert verdicts.pop(CALL_LINE) == (True, "regression", True)
    assert [c["line"] for c in lines[CALL_LINE]["calls"]] == [24, 25, 26, 27]
    assert all(not significant for significant, _, _ in verdicts.values()), verdicts
    (line_26,) = [m for m in lines[SLOWER_LINE]["metrics"] if m["name"] == "duration_avg"]
    assert line_26["ratio"] == pytest.approx(FACTOR, rel=0.15)
    # Operators: the four pointwise convolutions regress, no other operator changes.
    _, _, slower = measured()
    operators = [e for e in result["entities"] if e["kind"] == "source_operator"]
    flagged = {
        e["new_id"]
        for e in operators
        for m in e["metrics"]
        if m["name"] == "duration_avg" and m["significant"]
    }
    assert len(flagged) == len(slower) == 4
    assert all(name.startswith("source_operator/conv2d_") for name in flagged)


def _gated(
    base: str, new: str, workspace: Path, folder: Path, line: str
) -> tuple[Result, Path, Path]:
    """``perfline check`` at 5% with SARIF and JUnit reports in ``folder``: it fails with one
    regressing line, ``line`` (``file:number``); the outcome and the two reports' paths."""
    sarif, junit = folder / "out.sarif", folder / "out.xml"
    outcome = CliRunner().invoke(
        cli,
        [
            "check",
            "--baseline",
            base,
            new,
            "--max-regression",
            "5%",
            "--source-root",
            str(workspace),
            "--sarif",
            str(sarif),
            "--junit",
            str(junit),
        ],
    )
    assert outcome.exit_code == 1, outcome.output
    assert "1 line(s) regress" in outcome.stdout and line in outcome.stdout
    return outcome, sarif, junit


def test_check_fails_on_that_line_only_and_writes_valid_sarif(
    pair: tuple[str, str, Path], tmp_path: Path
) -> None:
    base, new, workspace = pair
    outcome, sarif, junit = _gated(base, new, workspace, tmp_path, "dscnn.py:26")
    log = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    (finding,) = log["runs"][0]["results"]
    (location,) = finding["locations"]
    assert location["physicalLocation"]["artifactLocation"] == {
        "uri": "kws/dscnn.py",
        "uriBaseId": "%SRCROOT%",
    }
    assert location["physicalLocation"]["region"]["startLine"] == SLOWER_LINE
    assert "<failure" in junit.read_text()
    # A limit above the regression passes.
    outcome = CliRunner().invoke(cli, ["check", "--baseline", base, new, "--max-regression", "60%"])
    assert outcome.exit_code == 0, outcome.output


def _junit_cases(path: Path) -> list[str]:
    return re.findall(r'<testcase [^>]*name="line (\d+) duration_avg"', path.read_text())


def test_the_call_line_is_not_judged_twice(pair: tuple[str, str, Path], tmp_path: Path) -> None:
    """Every judged line is a line with a kernel of its own: the Inspector's innermost user
    frames. Line 41's change is counted on line 26; the check says so."""
    base, new, workspace = pair
    junit = tmp_path / "out.xml"
    outcome = CliRunner().invoke(
        cli,
        ["check", "--baseline", base, new, "--source-root", str(workspace), "--junit", str(junit)],
    )
    assert outcome.exit_code == 1, outcome.output
    data = json.loads(inspector("portable").read_text())
    (block,) = [b for b in data["event_blocks"] if b["name"] == "Execute"]
    innermost = {
        int(re.findall(r'kws/dscnn\.py", line (\d+),', trace)[-1])
        for e in block["events"]
        if e["name"] == "OPERATOR_CALL"
        for trace in e["stack_traces"].values()
    }
    assert sorted(int(n) for n in _junit_cases(junit)) == sorted(innermost)
    assert CALL_LINE not in innermost
    assert "1 call line(s) carry figures that include the lines they call" in outcome.stderr


def _without_figures(side: str, lines: set[int], folder: Path) -> Path:
    """One run processed, the figures of ``lines`` taken out (as if those frames were
    collapsed away or never measured)."""
    record, dump = side.split(",")
    document = postprocess(load_etdump_document(Path(record), Path(dump)))
    result = document["results"][0]
    dropped = {
        e["id"]
        for e in result["entities"]
        if e["kind"] == "code_line" and e["attributes"]["line"] in lines
    }
    assert len(dropped) == len(lines)
    result["breakdowns"] = [b for b in result["breakdowns"] if b["entity_id"] not in dropped]
    path = folder / f"{Path(record).stem}.json"
    path.write_text(json.dumps(document))
    return path


def test_a_call_line_whose_callee_lacks_figures_is_judged_like_any_line(
    pair: tuple[str, str, Path], tmp_path: Path
) -> None:
    """With only line 26's figures gone, nothing below line 41 accounts for its change: line
    41 is judged like any line (a JUnit case of its own, no inclusive note), and it is the
    regressing line (a part of its operators, line 26's, 25% slower). The model-wide factor
    is estimated on the six lines it does not contain (``factor_rows``): line 41's own ratio,
    which holds the injected change, does not widen the scatter it is judged against."""
    base, new, workspace = pair
    old, now = (str(_without_figures(side, {SLOWER_LINE}, tmp_path)) for side in (base, new))
    junit = tmp_path / "out.xml"
    outcome = CliRunner().invoke(
        cli,
        ["check", "--baseline", old, now, "--source-root", str(workspace), "--junit", str(junit)],
    )
    assert outcome.exit_code == 1, outcome.output
    assert str(CALL_LINE) in _junit_cases(junit)
    assert "call line(s) carry figures" not in outcome.stderr
    assert " over 6 lines " in outcome.stdout and "no model-wide change" in outcome.stdout
    assert "1 line(s) regress" in outcome.stdout
    assert f"dscnn.py:{CALL_LINE}: duration_avg" in outcome.stdout


@pytest.mark.parametrize("without", [{24, 25, 26, 27}])
def test_a_call_line_whose_callees_lack_figures_is_the_regressing_line(
    pair: tuple[str, str, Path], tmp_path: Path, without: set[int]
) -> None:
    """With the called lines' figures gone, nothing below line 41 accounts for its change:
    line 41 is the one regressing line (fewer than six lines left: no model-wide estimate)."""
    base, new, workspace = pair
    old, now = (str(_without_figures(side, without, tmp_path)) for side in (base, new))
    outcome, sarif, junit = _gated(old, now, workspace, tmp_path, "dscnn.py:41")
    (finding,) = json.loads(sarif.read_text())["runs"][0]["results"]
    assert finding["locations"][0]["physicalLocation"]["region"]["startLine"] == CALL_LINE
    assert str(CALL_LINE) in _junit_cases(junit)
    assert "call line(s) carry figures" not in outcome.stderr
    expected = _line_mean(NEW_SEED, FACTOR, CALL_LINE) / _line_mean(BASE_SEED, 1.0, CALL_LINE)
    assert f"({expected - 1:+.1%}; run medians " in outcome.stdout
