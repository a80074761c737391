"""``core.dominant_metric``'s choice and model total, against the rules written plainly.

``choose_metric`` counts identities as plain tuples and ``model_total`` is made of
``result_total``, ``carried_figures`` and ``top_most_total`` (the line index calls the
parts); both must answer as the rules say, on random metric lists with every kind of
value a document may hold (numbers, booleans, text, non-finite floats, absent values).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from perfline.core import dominant_metric
from perfline.core.dominant_metric import MetricKey

PREFERRED = ("total_cycles", "op_cycles", "cycles", "npu_cycles", "macs")
TIME_UNITS = ("ms", "us", "s")


def _numeric(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value)


def _choice_by_the_rules(
    lines: Sequence[Sequence[Mapping[str, Any]]], configured: str | None
) -> MetricKey | None:
    """The configured metric if a line has it; else the one on most lines, ties broken by
    preference (cycles, MACs, a p50/median time, an avg/mean/plain time, any time, other),
    then by first appearance."""
    seen: list[tuple[str, str]] = []
    lines_with: dict[tuple[str, str], set[int]] = {}
    first: dict[tuple[str, str], Mapping[str, Any]] = {}
    for number, metrics in enumerate(lines):
        for metric in metrics:
            if not _numeric(metric.get("value")):
                continue
            key = (str(metric.get("name", "")), str(metric.get("unit", "")))
            if key not in first:
                first[key] = metric
                seen.append(key)
            lines_with.setdefault(key, set()).add(number)
    if not seen:
        return None
    if configured:
        for key in seen:
            if key[0] == configured:
                return MetricKey(*key)

    def preference(key: tuple[str, str]) -> int:
        name, unit = key
        statistic = dominant_metric.statistic_of(first[key])
        if name in PREFERRED:
            return PREFERRED.index(name)
        if unit in TIME_UNITS and statistic in ("p50", "median"):
            return 10
        if unit in TIME_UNITS and statistic in ("avg", "mean", None):
            return 11
        return 12 if unit in TIME_UNITS else 20

    best = sorted(seen, key=lambda k: (-len(lines_with[k]), preference(k), seen.index(k)))[0]
    return MetricKey(*best)


def _random_metric(rng: random.Random) -> dict[str, Any]:
    metric: dict[str, Any] = {
        "name": rng.choice(("op_cycles", "total_cycles", "duration", "macs", "x", 7)),
        "unit": rng.choice(("cycles", "ms", "us", "bytes")),
    }
    roll = rng.random()
    if roll < 0.6:
        metric["value"] = rng.choice((rng.randint(0, 9), rng.random() * 10))
    elif roll < 0.9:
        metric["value"] = rng.choice((True, "3", None, float("nan"), float("inf"), [1]))
    if rng.random() < 0.3:
        metric["aggregation"] = rng.choice(("sum", "p50", "avg", "max"))
    if rng.random() < 0.2:
        metric["qualifiers"] = {"statistic": rng.choice(("p50", "median", "min"))}
    return metric


@pytest.mark.parametrize("seed", range(300))
def test_the_choice_follows_the_rules(seed: int) -> None:
    rng = random.Random(seed)
    lines = [
        [_random_metric(rng) for _ in range(rng.randint(0, 4))] for _ in range(rng.randint(0, 6))
    ]
    for configured in (None, "duration", "nothing"):
        expected = _choice_by_the_rules(lines, configured)
        assert dominant_metric.choose_metric(lines, configured) == expected
        assert dominant_metric.choose_metric(iter(lines), configured) == expected


def _total_by_the_rules(result: Mapping[str, Any], key: MetricKey) -> float | None:
    """The result's own positive figure, else the sum over the non-view entities carrying
    the metric that no other carrier is an ancestor of."""
    for metric in result.get("metrics", []):
        same = (metric["name"], metric["unit"]) == (key.name, key.unit)
        if same and _numeric(metric["value"]) and metric["value"] > 0:
            return float(metric["value"])
    kinds = {e["id"]: e["kind"] for e in result["entities"]}
    children = {e["id"]: e.get("child_ids", []) for e in result["entities"]}
    carrying: dict[str, float] = {}
    for breakdown in result["breakdowns"]:
        entity_id = breakdown["entity_id"]
        if kinds.get(entity_id, "code_line") in dominant_metric.VIEW_KINDS:
            continue
        for metric in breakdown["metrics"]:
            if (metric["name"], metric["unit"]) == (key.name, key.unit) and _numeric(
                metric["value"]
            ):
                carrying[entity_id] = carrying.get(entity_id, 0.0) + metric["value"]
                break

    def below(entity_id: str) -> set[str]:
        found: set[str] = set()
        stack = list(children.get(entity_id, []))
        while stack:
            current = stack.pop()
            if current not in found:
                found.add(current)
                stack.extend(children.get(current, []))
        return found

    covered = set().union(*(below(e) for e in carrying)) if carrying else set()
    total = sum(value for e, value in carrying.items() if e not in covered)
    return total if total > 0 else None


@pytest.mark.parametrize("seed", range(200))
def test_the_model_total_follows_the_rules(seed: int) -> None:
    rng = random.Random(seed)
    count = rng.randint(1, 8)
    ids = [f"e{n}" for n in range(count)]
    entities = [
        {
            "id": entity_id,
            "kind": rng.choice(("chain", "segment", "source_operator", "nn_module", "code_line")),
            # edges only to later entities: acyclic
            "child_ids": [c for c in ids[n + 1 :] if rng.random() < 0.3],
        }
        for n, entity_id in enumerate(ids)
    ]
    key = MetricKey("op_cycles", "cycles")
    breakdowns = [
        {
            "entity_id": rng.choice(ids),
            "metrics": [
                {"name": rng.choice(("op_cycles", "x")), "unit": "cycles", "value": value}
                for value in (rng.choice((1, 2.5, -4, True, "5")), rng.randint(0, 3))
            ],
        }
        for _ in range(rng.randint(0, 10))
    ]
    result: dict[str, Any] = {"entities": entities, "breakdowns": breakdowns}
    if rng.random() < 0.2:
        result["metrics"] = [{"name": "op_cycles", "unit": "cycles", "value": rng.choice((0, 9))}]
    assert dominant_metric.model_total(result, key) == _total_by_the_rules(result, key)
