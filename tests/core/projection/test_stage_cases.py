"""The projection stage alone gives the expected breakdowns on every conformance case.

The stage input is rebuilt from the case (see ``case_inputs``); the whole
pipeline is covered by ``tests/product/conformance``. Cases the reference rejects are
skipped here (no projection happens). Floats are added as the reference adds
them (``float_sums="reference"``: deviation D6 undone).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from perfline.core.projection import project_breakdowns
from tests.core.projection.case_inputs import stage_inputs
from tests.support.cases import CASES, canonical


def _pairs() -> list[tuple[Path, Path]]:
    pairs: list[tuple[Path, Path]] = []
    for folder in ("worked", "probes", "random"):
        for case in sorted((CASES / folder).glob("*.json")):
            if case.name.endswith(".expected.json"):
                continue
            pairs.append((case, case.with_name(case.stem + ".expected.json")))
            if folder == "random":
                pairs.append(
                    (case, CASES / "random" / "nt-defaults" / (case.stem + ".expected.json"))
                )
    return pairs


@pytest.mark.parametrize(
    ("case", "expected_file"),
    _pairs(),
    ids=lambda p: f"{p.parent.name}/{p.stem}",
)
def test_stage_matches_reference(case: Path, expected_file: Path) -> None:
    expected = json.loads(expected_file.read_text())
    if "results" not in expected:
        pytest.skip("the reference rejects this input")
    document = json.loads(case.read_text())
    for stage, want in stage_inputs(document, expected):
        before = copy.deepcopy(stage)
        got = project_breakdowns(stage, float_sums="reference")
        assert stage == before, "the input result was modified"
        assert canonical(got.get("breakdowns", [])) == canonical(want)
        assert {k: v for k, v in got.items() if k != "breakdowns"} == {
            k: v for k, v in stage.items() if k != "breakdowns"
        }
