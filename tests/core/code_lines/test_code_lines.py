"""code_line derivation rules (spec core.md §5) on minimal results."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from perfline.core.code_line_ids import code_line_id
from perfline.core.code_lines import derive_code_lines
from perfline.core.errors import StageError
from tests.support.documents import entity, stage_result


def stack(entity_id: str, file: Any, line: Any, **extra: Any) -> dict[str, Any]:
    return entity(entity_id, "code_stack", attributes={"file": file, "line": line}, **extra)


def test_no_stacks_returns_an_equal_new_dict() -> None:
    original = stage_result([entity("a", "source_operator")])
    output = derive_code_lines(original)
    assert output == original and output is not original


def test_one_line_per_exact_location_with_sorted_children() -> None:
    original = stage_result(
        [
            stack("s/z", "/p/h.py", 7, child_ids=["op"]),
            stack("s/a", "/p/h.py", 7),
            stack("s/rel", "./h.py", 7),
            entity("op", "source_operator"),
        ]
    )
    output = derive_code_lines(original)
    line = code_line_id("/p/h.py", 7)
    relative = code_line_id("./h.py", 7)
    assert output["entities"][4:] == [
        {
            "id": relative,
            "kind": "code_line",
            "name": "h.py:7",
            "child_ids": ["s/rel"],
            "attributes": {"file": "./h.py", "line": 7},
        },
        {
            "id": line,
            "kind": "code_line",
            "name": "h.py:7",
            "child_ids": ["s/a", "s/z"],
            "attributes": {"file": "/p/h.py", "line": 7},
        },
    ]
    assert output["entities"][0]["parent_ids"] == [line]
    assert output["entities"][0]["child_ids"] == ["op"]
    assert output["entities"][3] is original["entities"][3]


@pytest.mark.parametrize("line", [0, -1, "12", True, 12.0, None])
def test_only_positive_int_lines_contribute(line: Any) -> None:
    original = stage_result([stack("s", "/p/z.py", line)])
    assert derive_code_lines(original) == original


@pytest.mark.parametrize("file", ["", None, 5])
def test_only_non_empty_string_files_contribute(file: Any) -> None:
    original = stage_result([stack("s", file, 3)])
    assert derive_code_lines(original) == original


def test_stack_parents_are_normalized_sorted_then_the_line() -> None:
    original = stage_result(
        [
            entity("caller_b", "code_stack", child_ids=["s"]),
            entity("caller_a", "code_stack"),
            stack("s", "/m.py", 2, parent_ids=["caller_a"]),
        ]
    )
    output = derive_code_lines(original)
    assert output["entities"][2]["parent_ids"] == [
        "caller_a",
        "caller_b",
        code_line_id("/m.py", 2),
    ]
    assert output["entities"][0] is original["entities"][0]


def test_lines_are_appended_in_file_then_line_order() -> None:
    original = stage_result(
        [stack("s1", "/b.py", 10), stack("s2", "/a.py", 9), stack("s3", "/b.py", 9)]
    )
    output = derive_code_lines(original)
    assert [
        e["attributes"]["file"] + str(e["attributes"]["line"]) for e in output["entities"][3:]
    ] == [
        "/a.py9",
        "/b.py9",
        "/b.py10",
    ]


def test_an_id_collision_is_an_error() -> None:
    taken = code_line_id("/m.py", 2)
    original = stage_result([stack("s", "/m.py", 2), entity(taken, "code_stack")])
    with pytest.raises(StageError) as error:
        derive_code_lines(original)
    assert str(error.value) == (
        f"Derived code_line entity id '{taken}' conflicts with an existing entity id."
    )


def test_input_is_not_mutated() -> None:
    original = stage_result([stack("s", "/m.py", 2, parent_ids=["c"]), entity("c", "code_stack")])
    before = copy.deepcopy(original)
    derive_code_lines(original)
    assert json.dumps(original) == json.dumps(before)
