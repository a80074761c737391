"""The fast canonical form agrees with the pydantic models wherever it answers."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings, strategies

from perfline.core.document import parse_result
from perfline.core.document_canonical import canonical_result
from perfline.core.errors import InputError
from tests.conftest import CASES


def _models(raw: Any) -> Any:
    try:
        return parse_result(raw).to_json()
    except InputError:
        return None


def test_every_case_result_takes_the_fast_path_with_the_same_output() -> None:
    compared = 0
    for path in sorted(CASES.rglob("*.json")):
        for result in json.loads(path.read_text()).get("results", []):
            fast = canonical_result(result)
            assert fast is not None, path
            assert json.dumps(fast) == json.dumps(_models(result)), path
            compared += 1
    assert compared > 150


_odd = strategies.sampled_from(
    [None, "", {}, [], 0, 1.5, True, "x", "sum", "unavailable", ["a"], {"k": 1}]
)
_metric = strategies.fixed_dictionaries(
    {"name": strategies.sampled_from(["m", "", 3])},
    optional={
        "unit": strategies.just("u"),
        "value": _odd,
        "aggregation": _odd,
        "samples": _odd,
        "qualifiers": _odd,
        "availability": _odd,
        "reason": _odd,
        "extra": _odd,
    },
)
_entity = strategies.fixed_dictionaries(
    {
        "id": strategies.just("e"),
        "kind": strategies.sampled_from(["chain", 1]),
        "name": strategies.just("n"),
    },
    optional={
        "placement": _odd,
        "parent_ids": _odd,
        "child_ids": _odd,
        "attributes": _odd,
        "stack_trace": _odd,
        "scope": _odd,
    },
)
_raw_result = strategies.fixed_dictionaries(
    {
        "kind": strategies.sampled_from(["performance", "bogus"]),
        "status": strategies.just("ok"),
        "producer": strategies.sampled_from(["p", None]),
    },
    optional={
        "mode": _odd,
        "warnings": strategies.lists(_odd, max_size=2) | _odd,
        "metrics": strategies.lists(_metric, max_size=3),
        "breakdowns": strategies.lists(
            strategies.fixed_dictionaries(
                {
                    "entity_id": strategies.just("e"),
                    "metrics": strategies.lists(_metric, max_size=2),
                },
                optional={"id": _odd, "qualifiers": _odd},
            ),
            max_size=2,
        ),
        "checks": strategies.lists(
            strategies.fixed_dictionaries(
                {"id": strategies.just("c"), "status": strategies.sampled_from(["pass", "maybe"])},
                optional={"entity_id": _odd, "details": _odd},
            ),
            max_size=2,
        ),
        "entities": strategies.lists(_entity, max_size=3),
        "advice": strategies.lists(
            strategies.fixed_dictionaries(
                {
                    "id": strategies.just("a"),
                    "category": strategies.just("performance"),
                    "severity": strategies.just("info"),
                    "message": strategies.just("m"),
                },
                optional={"affected_entity_ids": _odd, "details": _odd},
            ),
            max_size=2,
        ),
    },
)


@settings(max_examples=300, deadline=None)
@given(_raw_result)
def test_fast_path_never_disagrees_with_the_models(raw: dict[str, Any]) -> None:
    fast = canonical_result(raw)
    if fast is not None:
        assert json.dumps(fast) == json.dumps(_models(raw))
