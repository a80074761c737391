"""The model-wide factor is estimated on lines that do not contain each other: a profile's
nested ``def`` lines (each carrying its callees' time and some of its own, so no call line is
"explained" by its callees) would each carry one slowed leaf's change, and their ratios would
drag the median (qa T5: 4 of 6 lines ancestors of the slowed one)."""

from __future__ import annotations

from typing import Any

from perfline.core.compare.comparison import Comparison, compare_results
from perfline.core.compare.deltas import CompareSettings
from perfline.core.compare.gate import judge
from perfline.core.compare.model_wide import model_wide_changes

FILE = "m.py"
CHAIN = (1, 2, 3, 4, 5, 6)  # line 1 calls 2 calls 3 ... calls 6, the slowed one
LEAVES = (7, 8, 9, 10, 11)  # also called by line 1


def _result(slowed: float) -> dict[str, Any]:
    parent = {line: line - 1 for line in CHAIN[1:]} | {leaf: 1 for leaf in LEAVES}
    own = {line: 10.0 for line in (*CHAIN, *LEAVES)}
    own[6] = 10.0 * slowed
    entities: list[dict[str, Any]] = []
    breakdowns: list[dict[str, Any]] = []

    def below(line: int) -> list[int]:
        found = [line]
        for child, up in parent.items():
            if up == line:
                found += below(child)
        return found

    for line in (*CHAIN, *LEAVES):
        children = [f"s{child}" for child, up in parent.items() if up == line]
        entities.append(_entity(f"line/{line}", "code_line", line, [f"s{line}"]))
        entities.append(_entity(f"s{line}", "code_stack", line, [*children, f"op{line}"]))
        entities.append({"id": f"op{line}", "kind": "source_operator", "name": f"op{line}"})
        breakdowns.append({"entity_id": f"op{line}", "metrics": [_metric(own[line])]})
        total = sum(own[n] for n in below(line))
        breakdowns.append({"entity_id": f"line/{line}", "metrics": [_metric(total)]})
    return {
        "kind": "performance",
        "producer": "test",
        "mode": "predicted",
        "entities": entities,
        "breakdowns": breakdowns,
    }


def _metric(value: float) -> dict[str, Any]:
    return {"name": "total_cycles", "unit": "cycles", "value": value, "aggregation": "sum"}


def _entity(entity_id: str, kind: str, line: int, children: list[str]) -> dict[str, Any]:
    return {
        "id": entity_id,
        "kind": kind,
        "name": f"{FILE}:{line}",
        "attributes": {"file": FILE, "line": line},
        "child_ids": children,
    }


def _comparison() -> Comparison:
    result = compare_results(_result(1.0), _result(4.0), CompareSettings())
    return Comparison(
        base_source="base", new_source="new", settings=CompareSettings(), results=[result],
        warnings=[],
    )  # fmt: skip


def test_the_factor_is_estimated_on_lines_that_contain_no_judged_line() -> None:
    ((_, found),) = model_wide_changes(_comparison())
    # lines 6-11: one slowed, five unchanged; the five ancestors of line 6 are left out
    assert found.lines == 6 and found.factor == 1.0 and not found.changed


def test_the_slowed_line_is_then_told_apart_and_its_callers_still_judged() -> None:
    verdict = judge(_comparison(), 0.05)
    regressing = {line.entity.new_line for line in verdict.regressions}
    assert 6 in regressing
    judged = {line.entity.new_line for line in verdict.lines}
    assert set(CHAIN) <= judged  # call lines with their own time are judged as lines
