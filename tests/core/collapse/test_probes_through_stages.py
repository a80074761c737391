"""Probes P06-P10 and P14 through collapse and code-line derivation alone.

The expected documents are the reference's complete outputs; before
projection, the stages must already give their entities, checks, advice and
the authoritative breakdowns (which projection never changes, and puts first).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from perfline.core.code_lines import derive_code_lines
from perfline.core.collapse import collapse_result, retain_warning
from perfline.core.collapse_rules import CollapseRule, effective_rules
from perfline.core.errors import StageError
from tests.support.case_args import case_settings
from tests.support.cases import CASES, normalized

PROBES = CASES / "probes"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def rules_for(stem: Path, producer: str) -> tuple[CollapseRule, ...]:
    settings = case_settings(stem)
    return effective_rules(
        producer, settings.collapse_rules, use_backend_defaults=settings.use_backend_defaults
    )


def through_stages(name: str) -> tuple[list[dict[str, Any]], Any]:
    stem = next(PROBES.glob(f"{name}_*.args"), None) or next(
        p for p in PROBES.glob(f"{name}_*.json") if not p.name.endswith(".expected.json")
    )
    stem = stem.with_suffix("")
    document = load(stem.with_suffix(".json"))
    outputs = []
    for item in document["results"]:
        rules = rules_for(stem, item["producer"])
        outputs.append(derive_code_lines(collapse_result(item, rules)))
    return outputs, load(Path(f"{stem}.expected.json"))


@pytest.mark.parametrize("name", ["P06", "P07", "P08", "P09", "P14"])
def test_probe_entities_and_records_match(name: str) -> None:
    outputs, expected = through_stages(name)
    for ours, theirs in zip(outputs, expected["results"], strict=True):
        for key in ("entities", "checks", "advice"):
            assert normalized(ours.get(key, [])) == normalized(theirs.get(key, [])), key
        authoritative = ours.get("breakdowns", [])
        assert normalized(authoritative) == normalized(
            theirs.get("breakdowns", [])[: len(authoritative)]
        )


def test_p06_drops_torch_frames_and_their_breakdown() -> None:
    outputs, _ = through_stages("P06")
    ids = [e["id"] for e in outputs[0]["entities"]]
    assert "code_stack/t1" not in ids and "code_stack/t2" not in ids
    assert "code_stack/rel" in ids
    assert [b["entity_id"] for b in outputs[0]["breakdowns"]] == ["chain/segment_0/1"]


def test_p07_retains_the_unsafe_chain_with_a_warning() -> None:
    outputs, _ = through_stages("P07")
    assert outputs[0]["warnings"] == [retain_warning("chain/segment_0/1")]


def test_p10_input_code_line_is_rejected_with_the_reference_message() -> None:
    document = load(PROBES / "P10_input_code_line_rejected.json")
    expected = load(PROBES / "P10_input_code_line_rejected.expected.json")
    with pytest.raises(StageError) as error:
        derive_code_lines(collapse_result(document["results"][0], ()))
    prefix = "Unable to postprocess standardized result 0: "
    assert prefix + str(error.value) == expected["message"]


def test_p14_one_sided_links_are_left_alone() -> None:
    document = load(PROBES / "P14_one_sided_links.json")
    outputs, _ = through_stages("P14")
    assert outputs[0] == document["results"][0]
