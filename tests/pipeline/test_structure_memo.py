"""A structure memo makes no difference to the output, and is used only when the graph
is written exactly as last time."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.structure_memo import StructureMemo
from tests.differential.generator import generate as random_document


def _text(document: dict[str, Any]) -> str:
    return json.dumps(document, sort_keys=True)


def _revalued(document: dict[str, Any], seed: int) -> dict[str, Any]:
    """The same document with new integer and float values in every breakdown."""
    rng = random.Random(seed)
    changed = copy.deepcopy(document)
    for result in changed["results"]:
        for breakdown in result.get("breakdowns", []):
            for metric in breakdown["metrics"]:
                value = metric.get("value")
                if type(value) is int:
                    metric["value"] = rng.randint(0, 1000)
                elif type(value) is float:
                    metric["value"] = rng.random() * 100
    return changed


@pytest.mark.parametrize("seed", range(40))
def test_same_output_with_and_without_the_memo(seed: int) -> None:
    first = random_document(seed)
    runs = [first, _revalued(first, seed), _revalued(first, seed + 1000), random_document(seed + 1)]
    memo = StructureMemo()
    for settings in (PipelineSettings(), PipelineSettings(use_backend_defaults=False)):
        for document in runs:
            try:
                expected = _text(postprocess(document, settings))
            except InputError as error:
                with pytest.raises(InputError) as raised:
                    postprocess(document, settings, memo=memo)
                assert str(raised.value) == str(error)
                continue
            assert _text(postprocess(document, settings, memo=memo)) == expected


def test_an_unchanged_graph_is_recalled_and_a_changed_one_is_not() -> None:
    document = random_document(7)
    memo = StructureMemo()
    postprocess(document, memo=memo)
    computed = memo.computed
    assert memo.recalled == 0
    postprocess(_revalued(document, 1), memo=memo)
    assert memo.computed == computed  # validation, collapse, code lines, index: all recalled
    assert memo.recalled >= 4
    other = copy.deepcopy(document)
    other["results"][0]["entities"][0]["name"] = "renamed"
    postprocess(other, memo=memo)
    assert memo.computed > computed


def test_an_equal_but_differently_written_graph_is_not_taken_for_the_last_one() -> None:
    # 1 == 1.0 == True in Python, but they are different JSON values: each keeps its own
    document = random_document(3)
    entity = document["results"][0]["entities"][0]
    memo = StructureMemo()
    outputs = []
    for value in (1, 1.0, True):
        entity["attributes"] = {**entity.get("attributes", {}), "extra": value}
        outputs.append(postprocess(copy.deepcopy(document), memo=memo))
    written = [
        next(e for e in out["results"][0]["entities"] if e["id"] == entity["id"])["attributes"][
            "extra"
        ]
        for out in outputs
    ]
    assert [type(v) for v in written] == [int, float, bool]
    assert memo.recalled == 0


def test_a_graph_error_is_reported_again_on_the_next_run() -> None:
    document = random_document(5)
    entities = document["results"][0]["entities"]
    entities.append({**entities[0]})  # a repeated id
    memo = StructureMemo()
    for _ in range(2):
        with pytest.raises(InputError, match="must be unique"):
            postprocess(copy.deepcopy(document), memo=memo)


@pytest.mark.parametrize(
    ("first", "second", "alike"),
    [
        ([{"a": [1, 2.5, "x", None, True]}], [{"a": [1, 2.5, "x", None, True]}], True),
        ([1], [1.0], False),
        ([1], [True], False),
        ([0.0], [-0.0], False),
        ([{"a": 1, "b": 2}], [{"b": 2, "a": 1}], False),  # key order is written too
        ([[[[{"deep": [1]}]]]], [[[[{"deep": [1.0]}]]]], False),
        ([1, 2], [1, 2, 3], False),
    ],
)
def test_lists_are_interned_only_when_written_alike(
    first: list[Any], second: list[Any], alike: bool
) -> None:
    memo = StructureMemo()
    assert memo.same(0, "entities", first) is first
    assert (memo.same(0, "entities", second) is first) is alike


def test_values_marshal_cannot_write_are_never_interned() -> None:
    memo = StructureMemo()
    odd = [object()]
    assert memo.same(0, "entities", odd) is odd
    assert memo.same(0, "entities", odd) is odd
