"""The 50 random NX-shaped cases through collapse and code-line derivation,
without and with the NX default collapse rule: the entities, and the
authoritative breakdowns, must already be the reference's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfline.core.code_lines import derive_code_lines
from perfline.core.collapse import collapse_result
from perfline.core.collapse_rules import effective_rules
from tests.support.cases import CASES, canonical, normalized

RANDOM = CASES / "random"
INPUTS = sorted(p for p in RANDOM.glob("r*.json") if not p.name.endswith(".expected.json"))


@pytest.mark.parametrize("defaults", [False, True], ids=["bare", "nt-defaults"])
def test_random_cases(defaults: bool) -> None:
    assert len(INPUTS) == 50
    mismatches = []
    collapsed_any = False
    for path in INPUTS:
        stem = path.name.removesuffix(".json")
        folder = RANDOM / "nt-defaults" if defaults else RANDOM
        expected = json.loads(Path(folder / f"{stem}.expected.json").read_text(encoding="utf-8"))
        document = json.loads(path.read_text(encoding="utf-8"))
        for ours_in, theirs in zip(document["results"], expected["results"], strict=True):
            rules = effective_rules(ours_in["producer"], (), use_backend_defaults=defaults)
            collapsed = collapse_result(ours_in, rules)
            collapsed_any |= len(collapsed["entities"]) < len(ours_in["entities"])
            ours = derive_code_lines(collapsed)
            if normalized(ours["entities"]) != normalized(theirs["entities"]):
                mismatches.append(stem)
            authoritative = ours.get("breakdowns", [])
            if canonical(authoritative) != canonical(theirs["breakdowns"][: len(authoritative)]):
                mismatches.append(stem + " breakdowns")
    assert mismatches == []
    assert collapsed_any == defaults
