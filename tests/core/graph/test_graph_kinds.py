"""``build_graph`` kinds and the plain-dict reads the stages share."""

from __future__ import annotations

from collections import UserDict
from typing import Any

from perfline.core.graph import build_graph
from perfline.core.mypyc_idioms import field_of


def test_a_repeated_id_keeps_its_first_place_and_its_last_string_kind() -> None:
    entities: list[Any] = [
        {"id": "a", "kind": 3, "child_ids": ["b", "b"]},
        {"id": "b", "kind": "k", "parent_ids": ["a"]},
        {"id": "a", "kind": "j", "child_ids": ["a"]},
        {"id": "a", "parent_ids": "b"},
        {"id": 1, "kind": "x"},
        "junk",
    ]
    graph = build_graph(entities)
    assert graph.ids == ("a", "b")
    assert graph.kinds == {"a": "j", "b": "k"}
    assert graph.children == {"a": ("b", "a"), "b": ()}
    assert graph.parents == {"a": ("a",), "b": ("a",)}


def test_field_of_reads_any_mapping_and_nothing_else() -> None:
    assert field_of({"id": "a"}, "id") == "a"
    assert field_of(UserDict({"id": "a"}), "id") == "a"
    assert field_of(["id"], "id") is None
    assert field_of(None, "id") is None
