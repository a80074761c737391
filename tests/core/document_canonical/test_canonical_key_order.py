"""The canonical fast path agrees with the models whatever the key order of the
input records (it reorders a record rather than rebuilding it when it can)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings, strategies

from perfline.core.document import parse_result
from perfline.core.document_canonical import canonical_result
from perfline.core.errors import InputError
from tests.support.raw_results import raw_result


def _shuffled(value: Any, rng: random.Random) -> Any:
    """``value`` with the keys of every object in a random order (lists kept)."""
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {key: _shuffled(value[key], rng) for key in keys}
    if isinstance(value, list):
        return [_shuffled(item, rng) for item in value]
    return value


def _models(raw: Any) -> Any:
    try:
        return parse_result(raw).to_json()
    except InputError:
        return None


@settings(max_examples=400, deadline=None)
@given(raw_result, strategies.randoms(use_true_random=False))
def test_shuffled_keys_give_the_models_form(raw: dict[str, Any], rng: random.Random) -> None:
    shuffled = _shuffled(raw, rng)
    fast = canonical_result(shuffled)
    if fast is not None:
        assert json.dumps(fast) == json.dumps(_models(shuffled))


def test_a_reordered_valid_record_is_reordered_not_dropped() -> None:
    raw = {
        "status": "ok",
        "kind": "performance",
        "producer": "p",
        "breakdowns": [
            {
                "id": "b",
                "metrics": [{"value": 1, "unit": "u", "name": "m", "aggregation": "sum"}],
                "entity_id": "e",
            }
        ],
        "entities": [{"child_ids": ["f"], "name": "n", "kind": "k", "id": "e"}],
    }
    fast = canonical_result(raw)
    assert fast is not None
    assert json.dumps(fast) == json.dumps(parse_result(raw).to_json())
    assert list(fast["breakdowns"][0]) == ["entity_id", "metrics", "id"]
    assert list(fast["entities"][0]) == ["id", "kind", "name", "child_ids"]
