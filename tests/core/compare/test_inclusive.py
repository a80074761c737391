"""The rule for call lines in a comparison (``core.compare.inclusive``), case by case.

A model ``m.py`` whose line 50 calls lines 10 and 11 (operators ``a`` and ``b``); in the
new run ``a`` takes twice as long (estimates, compared exactly). Each case changes one
thing about the call line or the lines it calls and says whether the call line is judged
on its own (and so counted a second time) or its change is left to the lines it calls.
"""

from __future__ import annotations

import copy
from typing import Any

from perfline.core.compare.comparison import Comparison, compare_results
from perfline.core.compare.deltas import CompareSettings
from perfline.core.compare.gate import judge

FILE = "m.py"


def _metric(value: float) -> dict[str, Any]:
    return {"name": "total_cycles", "unit": "cycles", "value": value, "aggregation": "sum"}


def _result(
    a: float, *, own: bool = False, shared: bool = False, unfigured: tuple[int, ...] = ()
) -> dict[str, Any]:
    """Line 50 -> stack s50 -> stacks at lines 10 (op a) and 11 (op b); ``own``: an
    operator c (10 cycles) directly on line 50; ``shared``: line 60 also calls line 10
    (op d, 5 cycles); ``unfigured``: lines whose figures are left out."""
    values = {"a": a, "b": 100.0, "c": 10.0, "d": 5.0}
    stacks = {"s50": (50, ["s50>10", "s50>11", *(["c"] if own else [])])}
    stacks["s50>10"] = (10, ["a"])
    stacks["s50>11"] = (11, ["b"])
    lines = {50: ["s50"], 10: ["s50>10"], 11: ["s50>11"]}
    if shared:
        stacks["s60"] = (60, ["s60>10"])
        stacks["s60>10"] = (10, ["d"])
        lines[60] = ["s60"]
        lines[10].append("s60>10")
    below = {
        50: ["a", "b", *(["c"] if own else [])],
        10: ["a", *(["d"] if shared else [])],
        11: ["b"],
        60: ["d"],
    }
    entities: list[dict[str, Any]] = []
    for number, children in lines.items():
        entities.append(_entity(f"line/{number}", "code_line", number, children))
    for stack, (number, children) in stacks.items():
        entities.append(_entity(stack, "code_stack", number, children))
    operators = [o for o in values if o in {x for ops in below.values() for x in ops}]
    entities += [{"id": o, "kind": "source_operator", "name": o} for o in operators]
    breakdowns = [{"entity_id": o, "metrics": [_metric(values[o])]} for o in operators]
    breakdowns += [
        {"entity_id": f"line/{n}", "metrics": [_metric(sum(values[o] for o in ops))]}
        for n, ops in below.items()
        if n in lines and n not in unfigured
    ]
    return {
        "kind": "performance",
        "producer": "test",
        "mode": "predicted",
        "entities": entities,
        "breakdowns": breakdowns,
    }


def _entity(entity_id: str, kind: str, line: int, children: list[str]) -> dict[str, Any]:
    return {
        "id": entity_id,
        "kind": kind,
        "name": f"{FILE}:{line}",
        "attributes": {"file": FILE, "line": line},
        "child_ids": children,
    }


def _judged(**shape: Any) -> tuple[set[int], set[int], dict[int, bool]]:
    """(judged lines, regressing lines, line -> whether its change is explained)."""
    base, new = _result(100.0, **shape), _result(200.0, **shape)
    result = compare_results(copy.deepcopy(base), new, CompareSettings())
    comparison = Comparison(
        base_source="base", new_source="new", settings=CompareSettings(), results=[result],
        warnings=[],
    )  # fmt: skip
    verdict = judge(comparison, 0.05)
    explained = {}
    for line in result.lines():
        delta = line.metric("total_cycles")
        assert delta is not None and line.new_line is not None
        explained[line.new_line] = delta.explained
    judged = {j.entity.new_line for j in verdict.lines if j.entity.new_line is not None}
    regressing = {j.entity.new_line for j in verdict.regressions if j.entity.new_line}
    return judged, regressing, explained


def test_the_lines_it_calls_account_for_the_change() -> None:
    judged, regressing, explained = _judged()
    assert explained == {50: True, 10: False, 11: False}
    assert judged == {10, 11} and regressing == {10}


def test_an_operator_on_the_call_line_itself_makes_it_judged() -> None:
    judged, regressing, explained = _judged(own=True)
    assert explained[50] is False
    assert judged == {10, 11, 50} and regressing == {10, 50}


def test_a_called_line_shared_with_another_caller_does_not_account_for_it() -> None:
    """Line 10 also holds line 60's operator: a change diluted there could be visible on
    line 50 only, so line 50 is judged (and line 60, for the same reason)."""
    judged, regressing, explained = _judged(shared=True)
    assert explained == {50: False, 60: False, 10: False, 11: False}
    assert judged == {10, 11, 50, 60} and regressing == {10, 50}


def test_called_lines_without_figures_leave_the_call_line_judged() -> None:
    for unfigured in ((10, 11), (10,), (11,)):
        judged, regressing, explained = _judged(unfigured=unfigured)
        assert explained[50] is False, unfigured
        assert 50 in judged and 50 in regressing, unfigured


def test_a_called_line_figured_in_one_run_only_does_not_account_for_it() -> None:
    base, new = _result(100.0), _result(200.0, unfigured=(11,))
    result = compare_results(base, new, CompareSettings())
    (call,) = [line for line in result.lines() if line.new_line == 50]
    delta = call.metric("total_cycles")
    assert delta is not None and not delta.explained
    assert call.calls == ((FILE, 10), (FILE, 11))
