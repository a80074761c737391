"""The fast canonical form agrees with the pydantic models wherever it answers."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

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


_odd = st.sampled_from([None, "", {}, [], 0, 1.5, True, "x", "sum", "unavailable", ["a"], {"k": 1}])
_metric = st.fixed_dictionaries(
    {"name": st.sampled_from(["m", "", 3])},
    optional={
        "unit": st.just("u"),
        "value": _odd,
        "aggregation": _odd,
        "samples": _odd,
        "qualifiers": _odd,
        "availability": _odd,
        "reason": _odd,
        "extra": _odd,
    },
)
_entity = st.fixed_dictionaries(
    {"id": st.just("e"), "kind": st.sampled_from(["chain", 1]), "name": st.just("n")},
    optional={
        "placement": _odd,
        "parent_ids": _odd,
        "child_ids": _odd,
        "attributes": _odd,
        "stack_trace": _odd,
        "scope": _odd,
    },
)
_raw_result = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["performance", "bogus"]),
        "status": st.just("ok"),
        "producer": st.sampled_from(["p", None]),
    },
    optional={
        "mode": _odd,
        "warnings": st.lists(_odd, max_size=2) | _odd,
        "metrics": st.lists(_metric, max_size=3),
        "breakdowns": st.lists(
            st.fixed_dictionaries(
                {"entity_id": st.just("e"), "metrics": st.lists(_metric, max_size=2)},
                optional={"id": _odd, "qualifiers": _odd},
            ),
            max_size=2,
        ),
        "checks": st.lists(
            st.fixed_dictionaries(
                {"id": st.just("c"), "status": st.sampled_from(["pass", "maybe"])},
                optional={"entity_id": _odd, "details": _odd},
            ),
            max_size=2,
        ),
        "entities": st.lists(_entity, max_size=3),
        "advice": st.lists(
            st.fixed_dictionaries(
                {
                    "id": st.just("a"),
                    "category": st.just("performance"),
                    "severity": st.just("info"),
                    "message": st.just("m"),
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
