"""Already-processed results: code lines equal to their derivation are kept,
anything else is rejected with the reference's message (deviation D2)."""

from __future__ import annotations

from typing import Any

import pytest

from perfline.core.code_lines import derive_code_lines
from perfline.core.collapse import collapse_result
from perfline.core.collapse_rules import CollapseRule
from perfline.core.errors import StageError
from tests.support.documents import entity, stage_result


def fresh() -> dict[str, Any]:
    return stage_result(
        [
            entity("op", "source_operator"),
            entity("s1", "code_stack", child_ids=["op"], attributes={"file": "/m.py", "line": 2}),
            entity("s2", "code_stack", attributes={"file": "/m.py", "line": 2}),
            entity("s3", "code_stack", attributes={"file": "/n.py", "line": 1}),
        ]
    )


def test_processed_output_comes_back_unchanged() -> None:
    processed = derive_code_lines(fresh())
    again = derive_code_lines(processed)
    assert again == processed and again is not processed


def test_collapse_leaves_a_processed_result_alone() -> None:
    processed = derive_code_lines(fresh())
    rule = (CollapseRule("code_stack", "file", ("/n.py",)),)
    assert collapse_result(processed, rule) == processed
    collapsed = collapse_result(fresh(), rule)
    assert [e["id"] for e in collapsed["entities"]] == ["op", "s1", "s2"]


def test_collapse_still_applies_when_code_lines_are_foreign() -> None:
    tampered = tamper("name")
    rule = (CollapseRule("code_stack", "file", ("/n.py",)),)
    assert "s3" not in [e["id"] for e in collapse_result(tampered, rule)["entities"]]


def reject_message(ids: list[str]) -> str:
    return "Backend output must not define core-derived code_line entities: " + ", ".join(ids)


def test_a_foreign_code_line_is_rejected() -> None:
    original = stage_result([entity("op", "source_operator"), entity("code_line/x", "code_line")])
    with pytest.raises(StageError) as error:
        derive_code_lines(original)
    assert str(error.value) == reject_message(["code_line/x"])


def tamper(change: str) -> dict[str, Any]:
    processed = derive_code_lines(fresh())
    entities = [dict(e) for e in processed["entities"]]
    line = next(e for e in entities if e["kind"] == "code_line")
    if change == "name":
        line["name"] = "other"
    elif change == "attributes":
        line["attributes"] = {**line["attributes"], "extra": 1}
    elif change == "children":
        line["child_ids"] = line["child_ids"][:1]
        for e in entities:
            if e["id"] == line["child_ids"][0]:
                continue
            if "parent_ids" in e:
                e["parent_ids"] = [p for p in e["parent_ids"] if p != line["id"]]
    elif change == "parent":
        line["parent_ids"] = ["op"]
    elif change == "missing":
        entities.remove(line)
        for e in entities:
            if "parent_ids" in e:
                e["parent_ids"] = [p for p in e["parent_ids"] if p != line["id"]]
    elif change == "new stack":
        entities.append(entity("s4", "code_stack", attributes={"file": "/q.py", "line": 5}))
    return {**processed, "entities": entities}


@pytest.mark.parametrize(
    "change", ["name", "attributes", "children", "parent", "missing", "new stack"]
)
def test_code_lines_that_differ_from_their_derivation_are_rejected(change: str) -> None:
    original = tamper(change)
    ids = sorted(e["id"] for e in original["entities"] if e["kind"] == "code_line")
    with pytest.raises(StageError) as error:
        derive_code_lines(original)
    assert str(error.value) == reject_message(ids)
