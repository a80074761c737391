"""``perfline check`` judges lines that only the new run has (``core/compare/new_lines.py``).

Real data (``tests/data/trust``, README there): the attention block at width 256 and the same
block with one statement added to its ``forward`` (line 42: a second MLP, about a third of the
new run), profiled by ONNX Runtime idle and beside two busy processes. Found by qa: such an
added statement passed ``check`` ("1 line(s) have a figure in only one of the runs; they are
not judged").
"""

from __future__ import annotations

import gzip
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
from perfline.core.compare.gate import judge
from perfline.core.pipeline import postprocess
from tests.support.compare_paths import SARIF_SCHEMA
from tests.support.locations import DATA

TRUST = DATA / "trust"
BIG = TRUST / "attention_big.onnx"
EXTRA = TRUST / "attention_big_extra.onnx"
BASES = [f"attention_big_{load}_{k}" for load in ("idle", "hog") for k in (1, 2, 3)]
NEWS = ["attention_big_extra_idle_1", "attention_big_extra_hog_1"]


def _document(model: Path, name: str) -> dict[str, Any]:
    raw = analyze_profiles(
        InputFile(str(model), model.read_bytes()),
        [InputFile(name, gzip.decompress((TRUST / f"{name}.json.gz").read_bytes()))],
        timestamp="2026-01-01T00:00:00Z",
    )
    return postprocess(raw)


def _side(tmp_path: Path, model: Path, name: str) -> str:
    target = tmp_path / f"{name}.json"
    target.write_bytes(gzip.decompress((TRUST / f"{name}.json.gz").read_bytes()))
    return f"{model},{target}"


def _check(tmp_path: Path, *arguments: str) -> Result:
    base = _side(tmp_path, BIG, "attention_big_idle_2")
    new = _side(tmp_path, EXTRA, "attention_big_extra_hog_1")
    return CliRunner().invoke(cli, ["check", "--baseline", base, new, *arguments])


def test_the_added_statement_fails_against_every_session_and_nothing_else_does() -> None:
    news = {name: _document(EXTRA, name) for name in NEWS}
    shares = {}
    for base_name in BASES:
        base = _document(BIG, base_name)
        for new_name, new in news.items():
            verdict = judge(compare_documents(base, new), 0.05)
            (line,) = verdict.new_line_failures
            assert line.entity.new_line == 42 and line.delta.name == "duration_avg"
            assert verdict.regressions == () and not verdict.passed
            assert len(verdict.lines) == 14 and verdict.one_sided == 0
            shares[new_name] = line.share
    # a share of run medians: the same whether the new session ran idle or loaded
    assert shares["attention_big_extra_idle_1"] == pytest.approx(0.367, abs=0.005)
    assert shares["attention_big_extra_hog_1"] == pytest.approx(0.367, abs=0.005)


def test_check_fails_and_names_the_new_line(tmp_path: Path) -> None:
    sarif, junit = tmp_path / "out.sarif", tmp_path / "out.xml"
    outcome = _check(tmp_path, "--sarif", str(sarif), "--junit", str(junit))
    assert outcome.exit_code == 1, outcome.output
    lines = outcome.stdout.splitlines()
    at = lines.index(
        "perfline check: 1 line(s) that only the new run has add more than 0.5% of the model each:"
    )
    assert lines[at + 1] == (
        "  /home/dev/attn/attention.py:42: new: duration_avg +0.74 ms "
        "(36.8% of the model's 2.013 ms)"
    )
    log = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    (finding,) = log["runs"][0]["results"]
    assert finding["ruleId"] == "perfline/new-line" and finding["level"] == "error"
    assert finding["locations"][0]["physicalLocation"]["region"]["startLine"] == 42
    assert finding["properties"]["share"] == pytest.approx(0.368, abs=0.001)
    text = junit.read_text()
    assert 'name="line 42 duration_avg (new)"' in text
    assert 'message="new line beyond 0.5% of the model"' in text


def test_new_lines_warn_reports_without_failing(tmp_path: Path) -> None:
    sarif = tmp_path / "out.sarif"
    outcome = _check(tmp_path, "--new-lines", "warn", "--sarif", str(sarif))
    assert outcome.exit_code == 0, outcome.output
    assert "(--new-lines warn: reported, not failing):" in outcome.stdout
    assert "attention.py:42: new: duration_avg" in outcome.stdout
    assert outcome.stdout.rstrip().endswith("on 14 judged line(s) and 1 new line(s)")
    (finding,) = json.loads(sarif.read_text())["runs"][0]["results"]
    assert finding["ruleId"] == "perfline/new-line" and finding["level"] == "warning"


def test_a_new_line_under_the_minimum_share_does_not_fail(tmp_path: Path) -> None:
    outcome = _check(tmp_path, "--min-share", "40%")
    assert outcome.exit_code == 0, outcome.output
    assert (
        "note: 1 line(s) that only the new run has add 40.0% of the model or less each; they "
        "do not fail the gate (--min-share)"
    ) in outcome.stderr
