"""The pipeline's output is in canonical form by construction, byte for byte.

The pipeline no longer re-serializes a changed result wholesale: it takes the
records the stages passed through unchanged and rechecks only the others
(``canonical_result(..., canonical_before=...)``). These tests hold it to the
models' canonical form, key order included (``json.dumps`` without
``sort_keys``), on every conformance case and on generated documents.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from perfline.core.code_lines import derive_code_lines
from perfline.core.collapse import collapse_result
from perfline.core.collapse_rules import effective_rules
from perfline.core.document import normalize_result, parse_result
from perfline.core.document_canonical import canonical_result
from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.projection import project_breakdowns
from tests.support.case_args import case_settings
from tests.support.cases import CASES
from tests.support.document_generator import generate


def _case_inputs() -> list[Path]:
    return sorted(p for p in CASES.rglob("*.json") if not p.name.endswith(".expected.json"))


def _models_form(result: Any) -> str:
    return json.dumps(parse_result(result).to_json())


def _assert_changed_results_are_canonical(document: dict[str, Any], output: dict[str, Any]) -> int:
    checked = 0
    for raw, produced in zip(document["results"], output["results"], strict=True):
        if produced is raw:
            continue  # passed through verbatim, as documented
        assert json.dumps(produced) == _models_form(produced)
        assert json.dumps(normalize_result(produced)) == json.dumps(produced)
        checked += 1
    return checked


def _postprocess_or_none(document: dict[str, Any], settings: PipelineSettings) -> Any:
    try:
        return postprocess(document, settings, source="doc.json")
    except InputError:
        return None


@pytest.mark.parametrize("defaults", [False, True])
def test_every_case_output_is_in_the_models_canonical_form(defaults: bool) -> None:
    checked = 0
    for case in _case_inputs():
        document = json.loads(case.read_text())
        output = _postprocess_or_none(document, case_settings(case.with_suffix(""), defaults))
        if output is not None:
            checked += _assert_changed_results_are_canonical(document, output)
    assert checked > 50


@pytest.mark.parametrize("seed", range(40))
def test_generated_output_is_in_the_models_canonical_form(seed: int) -> None:
    document = generate(seed)
    for defaults in (False, True):
        output = _postprocess_or_none(document, PipelineSettings(use_backend_defaults=defaults))
        assert output is not None
        _assert_changed_results_are_canonical(document, output)


@pytest.mark.parametrize("seed", range(0, 200, 7))
def test_taking_unchanged_records_gives_the_full_normalization(seed: int) -> None:
    """Each stage's output, rechecked only where it changed, equals its full
    normalization, key order included."""
    for raw in generate(seed)["results"]:
        typed = normalize_result(raw)
        rules = effective_rules(str(typed["producer"]), (), use_backend_defaults=True)
        collapsed = collapse_result(typed, rules)
        lines = derive_code_lines(collapsed)
        projected = project_breakdowns(lines)
        for stage in (collapsed, lines, projected):
            taken = canonical_result(stage, canonical_before=typed)
            assert taken is not None
            assert json.dumps(taken) == json.dumps(normalize_result(stage))
            assert json.dumps(taken) == _models_form(stage)


def test_a_canonical_result_comes_back_as_the_same_object() -> None:
    typed = normalize_result(generate(3)["results"][0])
    assert canonical_result(typed) is typed
    assert normalize_result(typed) is typed


def test_only_identical_records_are_taken_unchecked() -> None:
    """An equal but distinct, non-canonical record is still normalized."""
    typed = normalize_result(generate(5)["results"][0])
    entity = typed["entities"][0]
    reordered = {key: entity[key] for key in reversed(list(entity))}
    changed = {**typed, "entities": [reordered, *typed["entities"][1:]]}
    taken = canonical_result(changed, canonical_before=typed)
    assert taken is not None
    assert json.dumps(taken) == json.dumps(typed)
    assert taken["entities"][1] is typed["entities"][1]


@pytest.mark.parametrize("seed", range(0, 400, 3))
def test_projected_breakdowns_are_built_in_canonical_form(seed: int) -> None:
    """The pipeline takes the output breakdowns unchecked: the input's own and the
    projected ones must already be in canonical form (a full check keeps every one)."""
    for raw in generate(seed)["results"]:
        typed = normalize_result(raw)
        rules = effective_rules(str(typed["producer"]), (), use_backend_defaults=seed % 2 == 0)
        projected = project_breakdowns(derive_code_lines(collapse_result(typed, rules)))
        breakdowns = projected.get("breakdowns")
        if not breakdowns:
            continue
        checked = canonical_result(projected)
        assert checked is not None
        assert checked["breakdowns"] is breakdowns
