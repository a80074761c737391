"""A generated pair of ExecuTorch runs with one known regression, through the real backend.

Both ETDumps are written from the real portable DS-CNN dump: each of 30 runs draws every
operator's duration from that operator's 10 measured durations (so the two runs differ
by the model's own noise, nothing else); in the new run the operators of one line, the
pointwise convolutions of ``dscnn.py:26`` (found from the ExecuTorch Inspector's stack
traces), are 25% slower. The comparison must find that line, and only it.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from tests.compare._data import MODEL_SOURCE, SARIF_SCHEMA, et_pair, inspector
from tests.measured.etdump_writer import Event, write_etdump

RUNS = 30
SLOWER_LINE = 26
FACTOR = 1.25


def _measured() -> tuple[list[int], dict[int, list[float]], set[int]]:
    """Instruction order, each instruction's measured ms, and the instructions of line 26."""
    data = json.loads(inspector("portable").read_text())
    (block,) = [b for b in data["event_blocks"] if b["name"] == "Execute"]
    calls = [e for e in block["events"] if e["name"] == "OPERATOR_CALL"]
    order = [e["instruction_id"] for e in calls]
    durations = {e["instruction_id"]: e["raw_ms"] for e in calls}
    slower = {
        e["instruction_id"]
        for e in calls
        if re.search(rf'kws/dscnn\.py", line {SLOWER_LINE},', " ".join(e["stack_traces"].values()))
    }
    return order, durations, slower


def _etdump(seed: int, factor: float) -> bytes:
    order, durations, slower = _measured()
    rng = random.Random(seed)
    runs: list[tuple[str, list[Event]]] = [("load", [Event("Method::init", 0, 1000, 0, -1)])]
    for _ in range(RUNS):
        events: list[Event] = []
        clock = 1000
        for instruction in order:
            drawn = rng.choice(durations[instruction])
            if instruction in slower:
                drawn *= factor
            ticks = round(drawn * 1e6)
            events.append(Event("OPERATOR_CALL", clock, clock + ticks, instruction, 0))
            clock += ticks + 500
        events.append(Event("Method::execute", 0, clock + 2000, 0, -1))
        runs.append(("forward", events))
    return write_etdump(runs)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, Path]:
    folder = tmp_path_factory.mktemp("generated")
    record, _ = et_pair("portable")
    sides = []
    for name, seed, factor in (("base", 11, 1.0), ("new", 12, FACTOR)):
        shutil.copy(record, folder / f"{name}.etrecord")
        (folder / f"{name}.etdump").write_bytes(_etdump(seed, factor))
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
    assert set(lines) == {24, 25, 26, 27, 40, 42, 44}
    verdicts = {}
    for line, entity in lines.items():
        (delta,) = [m for m in entity["metrics"] if m["name"] == "duration_avg"]
        assert delta["method"] == "samples" and delta["base_runs"] == delta["new_runs"] == RUNS
        verdicts[line] = (delta["significant"], delta["verdict"])
    assert verdicts.pop(SLOWER_LINE) == (True, "regression")
    assert all(not significant for significant, _ in verdicts.values()), verdicts
    (line_26,) = [m for m in lines[SLOWER_LINE]["metrics"] if m["name"] == "duration_avg"]
    assert line_26["ratio"] == pytest.approx(FACTOR, rel=0.15)
    # Operators: the four pointwise convolutions regress, no other operator changes.
    _, _, slower = _measured()
    operators = [e for e in result["entities"] if e["kind"] == "source_operator"]
    flagged = {
        e["new_id"]
        for e in operators
        for m in e["metrics"]
        if m["name"] == "duration_avg" and m["significant"]
    }
    assert len(flagged) == len(slower) == 4
    assert all(name.startswith("source_operator/conv2d_") for name in flagged)


def test_check_fails_on_that_line_only_and_writes_valid_sarif(
    pair: tuple[str, str, Path], tmp_path: Path
) -> None:
    base, new, workspace = pair
    sarif, junit = tmp_path / "out.sarif", tmp_path / "out.xml"
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
    assert "1 line(s) regress" in outcome.stdout and "dscnn.py:26" in outcome.stdout
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
