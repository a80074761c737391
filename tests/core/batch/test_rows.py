"""One processed document -> rows (``core.batch.rows``) and its structure, on real runs."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from perfline.core.batch.content import content_hash, file_digest, summary_run_id
from perfline.core.batch.rows import figure_rows, run_identity, safe_name
from perfline.core.batch.structure import canonical_text, run_structure, structure_key
from tests.support.batch_runs import ORT, PORTABLE, XNNPACK, processed


@pytest.fixture(scope="module")
def portable() -> dict[str, Any]:
    return processed(PORTABLE)


def _expected_figures(document: dict[str, Any]) -> set[tuple[Any, ...]]:
    """Every numeric figure of the run, independently: (entity or None, name, unit, value)."""
    found: set[tuple[Any, ...]] = set()
    result = document["results"][0]
    for metric in result["metrics"]:
        if "value" in metric:
            found.add((None, metric["name"], metric["unit"], float(metric["value"])))
    for breakdown in result["breakdowns"]:
        for metric in breakdown["metrics"]:
            if "execution" in metric.get("qualifiers", {}) or "value" not in metric:
                continue
            found.add(
                (breakdown["entity_id"], metric["name"], metric["unit"], float(metric["value"]))
            )
    return found


def test_every_figure_of_the_run_is_one_row(portable: dict[str, Any]) -> None:
    rows = figure_rows(portable)
    got = set(zip(rows.entity_id, rows.metric, rows.unit, rows.value, strict=True))
    assert got == _expected_figures(portable)
    assert len(rows) == len(got)  # nothing twice
    assert all(math.isfinite(v) for v in rows.value)
    # the per-execution figures (qualifier "execution") are not rows: the run's own
    # statistics summarise them
    assert "duration" not in set(rows.metric)


def test_lines_and_operators_carry_their_source_line(portable: dict[str, Any]) -> None:
    rows = figure_rows(portable)
    entities = {e["id"]: e for e in portable["results"][0]["entities"]}
    for entity_id, kind, file, line, metric in zip(
        rows.entity_id, rows.entity_kind, rows.file, rows.line, rows.metric, strict=True
    ):
        if entity_id is None:
            assert kind is None and file is None and metric.startswith("inference")
            continue
        assert kind == entities[entity_id]["kind"]
        if kind == "code_line":
            attributes = entities[entity_id]["attributes"]
            assert (file, line) == (attributes["file"], attributes["line"])
    conv = [
        (file, line)
        for entity_id, file, line in zip(rows.entity_id, rows.file, rows.line, strict=True)
        if entity_id == "source_operator/conv2d"
    ]
    # the first convolution runs on dscnn.py:40 (its code stack parent)
    assert set(conv) == {("/home/dev/kws/dscnn.py", 40)}
    statistics = {
        (m, s) for m, s in zip(rows.metric, rows.statistic, strict=True) if m.startswith("dur")
    }
    assert ("duration_avg", "avg") in statistics and ("duration_p90", "p90") in statistics


def test_unavailable_and_duplicate_figures_are_left_out() -> None:
    result = {
        "kind": "performance",
        "status": "ok",
        "producer": "p",
        "metrics": [
            {"name": "cycles", "unit": "cycles", "availability": "unavailable", "reason": "none"}
        ],
        "breakdowns": [
            {
                "entity_id": "a",
                "metrics": [
                    {"name": "t", "unit": "ms", "value": 1.0},
                    {"name": "t", "unit": "ms", "value": 2.0},
                    {"name": "t", "unit": "ms", "value": 3.0, "qualifiers": {"phase": "after"}},
                    {"name": "flag", "unit": "", "value": True},
                    {"name": "t", "unit": "ms", "value": 4.0, "qualifiers": {"perfline.run": 0}},
                ],
            }
        ],
        "entities": [{"id": "a", "kind": "op", "name": "a"}],
    }
    rows = figure_rows({"results": [result]})
    assert list(zip(rows.value, rows.qualifiers, strict=True)) == [
        (1.0, ""),
        (3.0, '{"phase":"after"}'),
    ]


def test_run_identity_names_runtime_and_target() -> None:
    assert run_identity(processed(XNNPACK)).runtime == "xnnpack"
    portable = run_identity(processed(PORTABLE))
    assert (portable.runtime, portable.target) == ("executorch", "executorch")
    ort = run_identity(processed(ORT))
    assert (ort.runtime, ort.target) == ("onnxruntime", "onnxruntime")
    assert ort.model_hash is not None and len(ort.model_hash) == 64
    assert safe_name("Ethos-U85 / 256 MACs") == "ethos-u85_256_macs"
    assert safe_name("..") == "unknown" and safe_name("") == "unknown"


def test_structure_is_shared_by_runs_of_one_model(portable: dict[str, Any]) -> None:
    structure = run_structure(portable)
    assert structure["results"][0]["entities"] == portable["results"][0]["entities"]
    assert structure["backends"][0]["configuration"] == {}  # it names the run's files
    # another run of the same model (different values, other file names): same structure
    other = json.loads(json.dumps(portable))
    other["backends"][0]["configuration"]["inputs"] = {"etdump": "/elsewhere/run2.etdump"}
    other["results"][0]["breakdowns"][0]["metrics"][0]["value"] = 1.0
    key = structure_key(canonical_text(structure))
    assert structure_key(canonical_text(run_structure(other))) == key
    assert structure_key(canonical_text(run_structure(processed(XNNPACK)))) != key


def test_content_hash_ignores_order_and_names() -> None:
    a, b = file_digest(b"one"), file_digest(b"two")
    assert content_hash([a, b]) == content_hash([b, a])
    assert content_hash([a, b]) != content_hash([a, file_digest(b"tw0")])
    assert summary_run_id(["1", "2"]) == summary_run_id(iter(["1", "2"]))
    assert summary_run_id(["1", "2"]) != summary_run_id(["1", "3"])
