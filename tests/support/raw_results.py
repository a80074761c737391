"""A hypothesis strategy for raw result objects, well formed or not: the right shape with
odd values (``None``, empty, wrong types, unknown enum names) in every optional field, for
tests that compare the fast canonical form with the pydantic models. Builds data only."""

from __future__ import annotations

from hypothesis import strategies

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
raw_result = strategies.fixed_dictionaries(
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
