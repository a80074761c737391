"""The JSON reader's sharing of equal string values (``core/shared_strings.c``).

``read_json_input`` gives the value ``json.loads`` gives; in the compiled build each
string value of it is, in addition, one object for all its occurrences. These tests
hold the C walk to that: the same value, the same containers, equal strings one object,
keys and other types untouched, a deep nest left as it is below the walk's depth limit.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings, strategies

from perfline.build_info import core_build
from perfline.core.json_codec import SHARE_STRINGS, read_json_input

needs_c = pytest.mark.skipif(SHARE_STRINGS is None, reason="the pure build keeps the strings")

# Few distinct texts, so that equal strings recur; made at run time (not constants the
# compiler would share already).
WORDS = strategies.sampled_from(
    ["sum", "cycles", "bytes", "nn_module/top", "", "é", "x" * 40, "中", "中a", "😀", "\ud800"]
).map(lambda word: "".join(list(word)))
SCALARS = strategies.one_of(
    strategies.none(),
    strategies.booleans(),
    strategies.integers(),
    strategies.floats(allow_nan=False),
    WORDS,
)
VALUES = strategies.recursive(
    SCALARS,
    lambda children: strategies.one_of(
        strategies.lists(children, max_size=6), strategies.dictionaries(WORDS, children, max_size=5)
    ),
    max_leaves=40,
)


def _containers(value: Any) -> list[Any]:
    """Every dict and list in ``value``, in walk order (the objects themselves)."""
    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            found.append(item)
            stack.extend(item)
    return found


def _strings(value: Any) -> list[str]:
    """Every string among the dicts' values and the lists' items of ``value``."""
    return [
        item
        for container in _containers(value)
        for item in (container.values() if isinstance(container, dict) else container)
        if type(item) is str
    ]


def test_the_compiled_build_shares_strings_in_c() -> None:
    assert (SHARE_STRINGS is not None) == (core_build() == "compiled (mypyc)")


@needs_c
@settings(max_examples=800, deadline=None)
@given(value=VALUES)
def test_sharing_keeps_the_value_and_its_containers(value: Any) -> None:
    assert SHARE_STRINGS is not None
    before = copy.deepcopy(value)
    containers = [id(container) for container in _containers(value)]
    strings = _strings(value)  # the objects before (kept alive by this list)
    replaced = SHARE_STRINGS(value)
    assert value == before
    assert json.dumps(value) == json.dumps(before)  # same key order, same types
    assert [id(container) for container in _containers(value)] == containers
    shared = _strings(value)
    first: dict[str, str] = {}
    for text in shared:
        assert first.setdefault(text, text) is text  # equal strings are one object
    assert replaced == sum(old is not new for old, new in zip(strings, shared, strict=True))


@needs_c
def test_counts_what_it_replaced_and_leaves_keys_and_subclasses() -> None:
    assert SHARE_STRINGS is not None

    class Text(str):
        pass

    key_a, key_b = "".join(["k", "ey"]), "".join(["ke", "y"])
    special = Text("sum")
    value = [{key_a: "".join(["s", "um"])}, {key_b: "".join(["su", "m"])}, special]
    assert value[0]["key"] is not value[1]["key"]
    assert SHARE_STRINGS(value) == 1
    assert value[0]["key"] is value[1]["key"]
    assert next(iter(value[0])) is key_a and next(iter(value[1])) is key_b  # keys untouched
    assert value[2] is special  # a subclass is not a decoder's string: left as it is
    assert SHARE_STRINGS("a string") == 0 and SHARE_STRINGS(7) == 0


@needs_c
def test_a_nest_deeper_than_the_walk_goes_is_left_as_it_is() -> None:
    assert SHARE_STRINGS is not None

    def nest() -> list[Any]:
        deep: list[Any] = ["".join(["d", "eep"])]
        for _ in range(600):  # the walk stops at 256 levels
            deep = [deep]
        return [deep, "".join(["de", "ep"]), "".join(["dee", "p"])]

    value = nest()
    assert SHARE_STRINGS(value) == 1  # the two near the top; the deepest is not reached
    assert value == nest()
    innermost = value[0]
    while type(innermost[0]) is list:
        innermost = innermost[0]
    assert innermost[0] is not value[1]


@needs_c
def test_read_documents_hold_one_object_per_id() -> None:
    text = json.dumps(
        {
            "entities": [
                {"id": "nn_module/top", "child_ids": ["source_operator/conv"]},
                {"id": "source_operator/conv", "parent_ids": ["nn_module/top"]},
            ],
            "breakdowns": [{"entity_id": "source_operator/conv", "metrics": []}],
        }
    )
    for data in (text.encode(), text.replace("[]", "[NaN]")):  # msgspec, then json.loads
        document = read_json_input(data, "doc.json", keep_non_finite=True)
        top, conv = document["entities"]
        assert top["child_ids"][0] is conv["id"]
        assert conv["parent_ids"][0] is top["id"]
        assert document["breakdowns"][0]["entity_id"] is conv["id"]
