"""``perfline check`` on real noise: sessions of one model under different load pass, a real
2x MLP fails on its own lines, a model-wide change is named on its own line.

The profiles are ``tests/data/trust``'s (README there): the DS-CNN and the attention block at
width 256, three sessions each idle and three beside two busy processes, and the block with a
2x-wide MLP (same source lines). "A uniform 25% slowdown" is a real session with every
timestamp and duration multiplied by 1.25 (a clock 25% slower), written here.
"""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner, Result

from perfline.clients.cli import cli
from perfline.core.backends.onnxruntime.document import analyze_profiles
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.compare import compare_documents
from perfline.core.compare.deltas import REGRESSION
from perfline.core.compare.gate import judge
from perfline.core.pipeline import postprocess
from tests.support.compare_paths import SARIF_SCHEMA
from tests.support.locations import DATA

TRUST = DATA / "trust"
MODELS = {
    "dscnn": DATA / "formats" / "dscnn" / "dscnn.onnx",
    "attention_big": TRUST / "attention_big.onnx",
}
BIG = TRUST / "attention_big.onnx"
MLP2X = TRUST / "attention_big_mlp2x.onnx"
MLP_LINES = {40, 41}  # h = F.gelu(self.fc1(h)); x = x + self.fc2(h)


def _events(name: str, scale: float = 1.0) -> bytes:
    data = gzip.decompress((TRUST / f"{name}.json.gz").read_bytes())
    if scale == 1.0:
        return data
    events: list[dict[str, Any]] = json.loads(data)
    for event in events:
        for key in ("ts", "dur"):
            event[key] = event[key] * scale
    return json.dumps(events).encode()


def _side(tmp_path: Path, model: Path, name: str, scale: float = 1.0) -> str:
    target = tmp_path / (f"{name}.json" if scale == 1.0 else f"{name}_x{scale}.json")
    target.write_bytes(_events(name, scale))
    return f"{model},{target}"


def _check(*arguments: str) -> Result:
    return CliRunner().invoke(cli, ["check", "--max-regression", "5%", *arguments])


def _document(model: Path, name: str) -> dict[str, Any]:
    raw = analyze_profiles(
        InputFile(str(model), model.read_bytes()),
        [InputFile(name, _events(name))],
        timestamp="2026-01-01T00:00:00Z",
    )
    return postprocess(raw)


def test_sessions_under_different_load_pass_where_the_plain_gate_fails() -> None:
    # Every pair of separate sessions of one model (idle/loaded, idle/idle, loaded/loaded):
    # 30 pairs, 300 judged lines. Judged line by line against the baseline (the plain gate,
    # as before the model-wide factor) 97 lines of 14 pairs fail a 5% gate; judged against
    # the model-wide factor and the lines' scatter, one line of one pair does.
    gate = plain = lines = pairs = 0
    for stem, model in MODELS.items():
        names = [f"{stem}_{load}_{k}" for load in ("idle", "hog") for k in (1, 2, 3)]
        documents = {name: _document(model, name) for name in names}
        for base, new in itertools.combinations(names, 2):
            verdict = judge(compare_documents(documents[base], documents[new]), 0.05)
            pairs += 1
            lines += len(verdict.lines)
            gate += len(verdict.regressions)
            plain += sum(
                1
                for line in verdict.lines
                if line.delta.significant
                and line.delta.verdict == REGRESSION
                and (line.delta.relative or 0.0) > 0.05
            )
    assert (pairs, lines) == (30, 300)
    assert plain == 97
    assert gate <= 1


@pytest.mark.parametrize(
    ("model", "base", "new"),
    [
        (BIG, "attention_big_idle_2", "attention_big_idle_2"),
        (BIG, "attention_big_idle_3", "attention_big_hog_3"),
        (MODELS["dscnn"], "dscnn_idle_3", "dscnn_hog_3"),
    ],
)
def test_a_uniform_25_percent_slowdown_passes_and_is_named(
    model: Path, base: str, new: str, tmp_path: Path
) -> None:
    outcome = _check("--baseline", _side(tmp_path, model, base), _side(tmp_path, model, new, 1.25))
    assert outcome.exit_code == 0, outcome.output
    (wide,) = [line for line in outcome.stdout.splitlines() if "model-wide" in line]
    assert "(all lines alike, beyond the limit): not judged per line" in wide
    if base == new:  # the same session 25% slower: exactly that, every line alike
        assert wide.startswith("perfline check: model-wide +25.0% [+25.0%, +25.0%] over 14 lines")
    assert "no significant regression beyond 5.0% on " in outcome.stdout


def _regressing_lines(sarif: Path) -> set[int]:
    log = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    return {
        result["locations"][0]["physicalLocation"]["region"]["startLine"]
        for result in log["runs"][0]["results"]
        if result["ruleId"] == "perfline/line-regression"
    }


def test_the_real_2x_mlp_fails_on_its_own_lines_under_the_slowdown(tmp_path: Path) -> None:
    sarif = tmp_path / "out.sarif"
    outcome = _check(
        "--baseline",
        _side(tmp_path, BIG, "attention_big_idle_2"),
        _side(tmp_path, MLP2X, "attention_big_mlp2x_idle_2", 1.25),
        "--sarif",
        str(sarif),
    )
    assert outcome.exit_code == 1, outcome.output
    assert "2 line(s) regress by more than 5.0%" in outcome.stdout
    assert "against the model-wide" in outcome.stdout
    assert _regressing_lines(sarif) == MLP_LINES


def test_the_real_2x_mlp_beside_a_busy_machine_fails_on_an_mlp_line_only(tmp_path: Path) -> None:
    sarif = tmp_path / "out.sarif"
    outcome = _check(
        "--baseline",
        _side(tmp_path, BIG, "attention_big_idle_2"),
        _side(tmp_path, MLP2X, "attention_big_mlp2x_hog_1"),
        "--sarif",
        str(sarif),
    )
    assert outcome.exit_code == 1, outcome.output
    found = _regressing_lines(sarif)
    assert found and found <= MLP_LINES


def test_a_uniform_speedup_is_named_and_not_beyond_the_limit(tmp_path: Path) -> None:
    base = _side(tmp_path, BIG, "attention_big_idle_2", 1.25)
    outcome = _check("--baseline", base, _side(tmp_path, BIG, "attention_big_idle_2"))
    assert outcome.exit_code == 0, outcome.output
    (wide,) = [line for line in outcome.stdout.splitlines() if "model-wide" in line]
    assert wide.startswith("perfline check: model-wide -20.0% [-20.0%, -20.0%] over 14 lines")
    assert "(all lines alike): not judged per line" in wide
    assert "beyond the limit" not in wide


def test_model_wide_fail_makes_a_uniform_slowdown_fail_the_gate(tmp_path: Path) -> None:
    base = _side(tmp_path, BIG, "attention_big_idle_2")
    new = _side(tmp_path, BIG, "attention_big_idle_2", 1.25)
    sarif, junit = tmp_path / "out.sarif", tmp_path / "out.xml"
    reports = ["--sarif", str(sarif), "--junit", str(junit)]
    warned = _check("--baseline", base, new, *reports)
    assert warned.exit_code == 0, warned.output
    log = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    (finding,) = log["runs"][0]["results"]
    assert finding["ruleId"] == "perfline/model-wide-change" and finding["level"] == "warning"
    assert "<failure" not in junit.read_text()
    failed = _check("--baseline", base, new, "--model-wide", "fail", *reports)
    assert failed.exit_code == 1, failed.output
    assert "the whole model regresses by more than 5.0% (--model-wide fail)" in failed.stdout
    (finding,) = json.loads(sarif.read_text())["runs"][0]["results"]
    assert finding["level"] == "error"
    text = junit.read_text()
    assert 'name="model-wide duration_avg"' in text
    assert 'message="model-wide regression beyond 5.0%"' in text


def test_compare_shows_the_model_wide_change(tmp_path: Path) -> None:
    base = _side(tmp_path, BIG, "attention_big_idle_2")
    new = _side(tmp_path, BIG, "attention_big_idle_2", 1.25)
    table = CliRunner().invoke(cli, ["compare", base, new])
    assert table.exit_code == 0, table.output
    words = " ".join(table.stdout.split())
    assert "model-wide +25.0% [+25.0%, +25.0%] over 14 lines" in words
    assert "(all lines alike): the verdicts below are against the baseline" in words
    as_json = CliRunner().invoke(cli, ["compare", base, new, "--json"])
    (found,) = json.loads(as_json.stdout)["results"][0]["model_wide"]
    assert found["metric"] == "duration_avg" and found["lines"] == 14 and found["changed"]
    assert found["factor"] == pytest.approx(1.25)


def _in_microseconds(document: dict[str, Any]) -> dict[str, Any]:
    """The same run with every ms figure and per-run value written in µs."""
    copied: dict[str, Any] = json.loads(json.dumps(document))
    for result in copied["results"]:
        for breakdown in result["breakdowns"]:
            for metric in breakdown["metrics"]:
                if metric.get("unit") == "ms":
                    metric["unit"], metric["value"] = "us", metric["value"] * 1000
    for samples in copied["extensions"]["perfline"]["run_samples"]:
        for metrics in samples.values():
            for name, values in metrics.items():
                metrics[name] = [value * 1000 for value in values]
    return copied


def test_a_run_recorded_in_other_time_units_is_the_same_run() -> None:
    model = MODELS["attention_big"]
    raw = analyze_profiles(
        InputFile(str(model), model.read_bytes()),
        [InputFile("s.json", _events("attention_big_idle_2"))],
        timestamp="2026-01-01T00:00:00Z",
    )
    verdict = judge(compare_documents(postprocess(raw), postprocess(_in_microseconds(raw))), 0.05)
    (found,) = verdict.model_wide
    assert found.estimate.factor == pytest.approx(1.0)
    assert not verdict.regressions and len(verdict.lines) == 14
    assert all(line.p_adjusted == pytest.approx(1.0) for line in verdict.lines)
