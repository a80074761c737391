"""Estimates (no per-run values) compare exactly, with a relative threshold.

NX-shaped documents of the core benchmark: the new run is the baseline with one chain's
``total_cycles`` raised by 10%; the chain is one whose stack ends in user code and whose
cascade has no figure of its own (so nothing else records the chain's cycles).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.compare import CompareSettings, compare_documents
from perfline.core.pipeline import postprocess
from tests.support.documents import nx_document

CHAINS = 60


def _chosen(document: dict[str, Any]) -> tuple[str, int]:
    """A chain with a user-code leaf stack (blocks.py) and a cascade without figures."""
    result = document["results"][0]
    entities = {e["id"]: e for e in result["entities"]}
    figured = {b["entity_id"] for b in result["breakdowns"]}
    for entity in result["entities"]:
        if entity["kind"] != "chain" or any(p in figured for p in entity["parent_ids"]):
            continue
        number = int(entity["id"].rsplit("/", 1)[1])
        frame = entities.get(f"code_stack/blocks.py:{number}")
        if (
            frame is not None
            and all(entities[c]["kind"] == "source_operator" for c in frame.get("child_ids", []))
            and set(frame.get("child_ids", [])) == set(entity.get("child_ids", []))
        ):
            return entity["id"], number
    raise AssertionError("no suitable chain")


@pytest.fixture(scope="module")
def pair() -> tuple[dict[str, Any], dict[str, Any], int, int]:
    base = nx_document(CHAINS)
    new = copy.deepcopy(base)
    chain, number = _chosen(base)
    (breakdown,) = [b for b in new["results"][0]["breakdowns"] if b["entity_id"] == chain]
    (metric,) = [m for m in breakdown["metrics"] if m["name"] == "total_cycles"]
    added = metric["value"] // 10
    metric["value"] += added
    return postprocess(base), postprocess(new), number, added


def test_only_the_lines_over_the_changed_chain_change(
    pair: tuple[dict[str, Any], dict[str, Any], int, int],
) -> None:
    base, new, number, added = pair
    (result,) = compare_documents(base, new).results
    changed = {
        (e.file, e.new_line): m
        for e in result.lines()
        for m in e.metrics
        if m.verdict != "unchanged"
    }
    leaf = ("/home/dev/proj/blocks.py", 10 + number)
    assert leaf in changed
    for (file, line), delta in changed.items():
        assert delta.method == "exact" and delta.significant and delta.verdict == "regression"
        assert delta.name == "total_cycles" and delta.delta == added
        assert (file, line) == leaf or (file, line) == ("/home/dev/proj/model.py", 40 + number // 8)
    leaf_delta = changed[leaf]
    assert leaf_delta.relative == pytest.approx(added / leaf_delta.base)  # type: ignore[operator]
    # Everything else, including every other metric of that line, compares equal.
    unchanged = [m for e in result.lines() for m in e.metrics if m.verdict == "unchanged"]
    assert unchanged and all(m.method == "exact" and m.delta == 0 for m in unchanged)


def test_the_threshold_hides_changes_below_it(
    pair: tuple[dict[str, Any], dict[str, Any], int, int],
) -> None:
    base, new, _, _ = pair
    for threshold, expected in ((0.05, True), (0.2, False)):
        (result,) = compare_documents(
            base, new, CompareSettings(estimate_threshold=threshold)
        ).results
        for entity in result.lines():
            for delta in entity.metrics:
                relative = abs(delta.relative or 0.0)
                assert delta.significant == (relative > threshold)
        flagged = [m for e in result.lines() for m in e.metrics if m.significant]
        assert bool(flagged) == expected


def test_check_on_estimates(
    pair: tuple[dict[str, Any], dict[str, Any], int, int], tmp_path: Path
) -> None:
    base, new, number, _ = pair
    paths = []
    for name, document in (("base", base), ("new", new)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(document))
        paths.append(str(path))
    check = ["check", "--baseline", paths[0], paths[1], "--max-regression", "5%"]
    outcome = CliRunner().invoke(cli, [*check, "--min-share", "0"])
    assert outcome.exit_code == 1, outcome.output
    assert f"blocks.py:{10 + number}: total_cycles" in outcome.stdout
    # One chain of 60 raised by 10%: well under the default floor of 0.5% of the model.
    (line,) = [text for text in outcome.stdout.splitlines() if text.startswith("  ")]
    found = re.search(r"; \+([0-9.]+)% of the model\)", line)
    assert found is not None, line
    share = float(found.group(1))
    assert 0 <= share < 0.5
    floored = CliRunner().invoke(cli, check)
    assert floored.exit_code == 0, floored.output
    assert (
        "note: 1 line(s) regress beyond the limit by 0.5% of the model or less each; they do "
        "not fail the gate (--min-share)"
    ) in floored.stderr
    assert "compared exactly (no per-run values)" in outcome.stdout
    outcome = CliRunner().invoke(
        cli,
        ["check", "--baseline", paths[0], paths[1], "--max-regression", "10%", "--min-share", "0"],
    )
    assert outcome.exit_code == 0, outcome.output
