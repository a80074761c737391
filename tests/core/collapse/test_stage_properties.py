"""Properties of collapse + code-line derivation on generated NX-shaped results:
entity order does not matter, and the stages' output is recognized as processed."""

from __future__ import annotations

import random
from typing import Any

import pytest

from perfline.core.code_lines import derive_code_lines
from perfline.core.collapse import collapse_result
from perfline.core.collapse_rules import effective_rules, parse_rule
from tests.support.cases import canonical
from tests.support.document_generator import generate, settings_for


def stages(result: dict[str, Any], seed: int) -> dict[str, Any]:
    settings = settings_for(seed)
    rules = effective_rules(
        result["producer"],
        [parse_rule(text) for text in settings.collapse],
        use_backend_defaults=settings.use_backend_defaults,
    )
    return derive_code_lines(collapse_result(result, rules))


def nx_result(seed: int) -> dict[str, Any]:
    return next(r for r in generate(seed)["results"] if r.get("entities"))


def by_id(result: dict[str, Any]) -> list[str]:
    return sorted(canonical(e) for e in result["entities"])


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_entity_order_does_not_change_the_entities(seed: int) -> None:
    result = nx_result(seed)
    shuffled = dict(
        result, entities=random.Random(seed).sample(result["entities"], k=len(result["entities"]))
    )
    first, second = stages(result, seed), stages(shuffled, seed)
    assert by_id(first) == by_id(second)
    assert first.get("warnings") == second.get("warnings")
    assert canonical(first["breakdowns"]) == canonical(second["breakdowns"])


@pytest.mark.parametrize("seed", range(1, 60, 3))
def test_stage_output_is_recognized_as_processed(seed: int) -> None:
    once = stages(nx_result(seed), seed)
    twice = stages({k: v for k, v in once.items() if k != "warnings"}, seed)
    assert canonical(twice["entities"]) == canonical(once["entities"])
    assert "warnings" not in twice
