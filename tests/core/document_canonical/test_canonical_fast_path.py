"""The fast canonical form agrees with the pydantic models wherever it answers."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings

from perfline.core.document import parse_result
from perfline.core.document_canonical import canonical_result
from perfline.core.errors import InputError
from tests.support.cases import CASES
from tests.support.raw_results import raw_result


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


@settings(max_examples=300, deadline=None)
@given(raw_result)
def test_fast_path_never_disagrees_with_the_models(raw: dict[str, Any]) -> None:
    fast = canonical_result(raw)
    if fast is not None:
        assert json.dumps(fast) == json.dumps(_models(raw))
