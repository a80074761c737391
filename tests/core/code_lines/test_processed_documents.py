"""Issue 3 item 4: every reference output of the conformance cases, fed back
through the whole pipeline with the settings that produced it, comes back
unchanged (modulo the documented deviation D1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from perfline.core.pipeline import PipelineSettings, postprocess
from tests.support.case_args import case_settings
from tests.support.cases import CASES, canonical
from tests.support.deviations import strip_deviations


def outputs() -> list[tuple[str, Path, PipelineSettings]]:
    found = []
    for folder in ("worked", "probes", "random"):
        for expected in sorted((CASES / folder).glob("*.expected.json")):
            stem = expected.with_name(expected.name.removesuffix(".expected.json"))
            found.append((f"{folder}/{stem.name}", expected, case_settings(stem)))
    for expected in sorted((CASES / "random" / "nt-defaults").glob("*.expected.json")):
        stem = CASES / "random" / expected.name.removesuffix(".expected.json")
        found.append((f"nt-defaults/{stem.name}", expected, case_settings(stem, defaults=True)))
    # A bare-mlia output (torch frames kept) read with perfline's NX defaults on:
    # already processed, so not collapsed again.
    for expected in sorted((CASES / "random").glob("*_x.expected.json")):
        stem = expected.with_name(expected.name.removesuffix(".expected.json"))
        found.append(
            (f"defaults-on-bare/{stem.name}", expected, case_settings(stem, defaults=True))
        )
    return found


CASES_OUT = outputs()

#: Outputs without code lines that the reference itself changes when fed its own output
#: again (observed with the oracle): their projected breakdowns become authoritative and
#: allow a further sum (P02: src/a = 2 + 3; P11: M = 0.6000000000000001). Nothing marks
#: such a result as processed; see docs/deviations.md, "Already-processed documents".
REFERENCE_NOT_IDEMPOTENT = {
    "probes/P02_pg_route_unequal_values_conflict",
    "probes/P11_float_nonassociative_conflict",
}


@pytest.mark.parametrize(("label", "path", "settings"), CASES_OUT, ids=[c[0] for c in CASES_OUT])
def test_reference_output_is_served_unchanged(
    label: str, path: Path, settings: PipelineSettings, request: pytest.FixtureRequest
) -> None:
    document: Any = json.loads(path.read_text(encoding="utf-8"))
    if "results" not in document:
        pytest.skip("the reference rejected this case's input")
    if label in REFERENCE_NOT_IDEMPOTENT:
        request.applymarker(pytest.mark.xfail(strict=True, reason="re-projection adds a sum"))
    again = postprocess(document, settings, source=label)
    assert canonical(strip_deviations(again)) == canonical(document)
