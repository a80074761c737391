"""Entity collapse rules (spec core.md §4), one minimal result each."""

from __future__ import annotations

import copy
import json
from typing import Any

from perfline.core.collapse import collapse_result, retain_warning
from perfline.core.collapse_rules import CollapseRule
from tests.support.documents import cycles_metric, entity, links, stage_result

TAGGED = (CollapseRule("nn_module", "tag", ("x",)),)
CHAIN_TAGGED = (CollapseRule("chain", "tag", ("x",)),)


def module(entity_id: str, collapse: bool = False, **extra: Any) -> dict[str, Any]:
    attributes = {"tag": "x"} if collapse else {}
    return entity(entity_id, "nn_module", attributes=attributes, **extra)


def test_no_rules_or_no_candidate_returns_an_equal_new_dict() -> None:
    original = stage_result([module("a", child_ids=["b"]), module("b")])
    for rules in ((), TAGGED):
        output = collapse_result(original, rules)
        assert output == original
        assert output is not original


def test_collapsed_entity_is_removed_and_its_neighbours_relinked() -> None:
    original = stage_result(
        [module("top", child_ids=["mid"]), module("mid", True, child_ids=["leaf"]), module("leaf")]
    )
    output = collapse_result(original, TAGGED)
    assert [e["id"] for e in output["entities"]] == ["top", "leaf"]
    assert links(output) == {"top": (None, ["leaf"]), "leaf": (["top"], None)}
    assert "warnings" not in output


def test_every_retained_entity_gets_both_lists_sorted_and_two_sided() -> None:
    original = stage_result(
        [
            module("r", child_ids=["q2", "q1"]),
            module("q1"),
            module("q2", parent_ids=["r"]),
            module("other", child_ids=["gone"]),
            module("gone", True),
        ]
    )
    output = collapse_result(original, TAGGED)
    assert links(output) == {
        "r": (None, ["q1", "q2"]),
        "q1": (["r"], None),
        "q2": (["r"], None),
        "other": (None, None),
    }
    assert "child_ids" not in output["entities"][3]


def test_contraction_is_breadth_first_through_collapsed_nodes_in_sorted_order() -> None:
    # Observed on the reference: r -> [q, m_a -> [d_ret, m_b -> a_ret]] gives
    # q (direct), d_ret (depth 2), a_ret (depth 3): not sorted, not depth-first.
    original = stage_result(
        [
            module("r", child_ids=["q", "m_a"]),
            module("m_a", True, child_ids=["m_b", "d_ret"]),
            module("m_b", True, child_ids=["a_ret"]),
            module("q"),
            module("d_ret"),
            module("a_ret"),
        ]
    )
    output = collapse_result(original, TAGGED)
    assert links(output)["r"] == (None, ["q", "d_ret", "a_ret"])
    assert links(output)["a_ret"] == (["r"], None)


def test_contraction_reaches_parents_through_collapsed_chains_once() -> None:
    original = stage_result(
        [
            module("p1", child_ids=["c1"]),
            module("p2", child_ids=["c1", "c2"]),
            module("c1", True, child_ids=["c2", "leaf"]),
            module("c2", True, child_ids=["leaf"]),
            module("leaf"),
        ]
    )
    output = collapse_result(original, TAGGED)
    assert links(output) == {
        "p1": (None, ["leaf"]),
        "p2": (None, ["leaf"]),
        "leaf": (["p1", "p2"], None),
    }


def test_candidate_creating_an_undeclared_edge_is_retained_with_a_warning() -> None:
    # cascade -> chain -> source: removing the chain would link cascade -> source.
    original = stage_result(
        [
            entity("k", "cascade", child_ids=["c1"]),
            entity("c1", "chain", child_ids=["a"], attributes={"tag": "x"}),
            entity("c2", "chain", attributes={"tag": "x"}),
            entity("a", "source_operator"),
        ],
        warnings=["earlier"],
        breakdowns=[{"entity_id": "c2", "metrics": [cycles_metric(1)]}],
    )
    output = collapse_result(original, CHAIN_TAGGED)
    assert [e["id"] for e in output["entities"]] == ["k", "c1", "a"]
    assert output["warnings"] == ["earlier", retain_warning("c1")]
    assert retain_warning("c1") == (
        "Retaining entity 'c1' because collapsing it would create an undeclared "
        "entity-kind relationship."
    )
    assert output["breakdowns"] == []
    assert links(output)["c1"] == (["k"], ["a"])


def test_when_everything_is_retained_links_are_not_rewritten() -> None:
    original = stage_result(
        [
            entity("k", "cascade", child_ids=["c1"]),
            entity("c1", "chain", child_ids=["a"], attributes={"tag": "x"}),
            entity("a", "source_operator"),
        ]
    )
    output = collapse_result(original, CHAIN_TAGGED)
    assert output["entities"] == original["entities"]
    assert output["warnings"] == [retain_warning("c1")]


def greedy_result(upper: str, lower: str) -> dict[str, Any]:
    """x -> upper -> lower -> z, both middles collapsible; X->Z is not allowed,
    so only the first candidate in sorted order can go."""
    kinds = [
        {"id": "X", "child_kinds": ["M"]},
        {"id": "M", "child_kinds": ["M", "Z"]},
        {"id": "Z"},
    ]
    tagged = {"tag": "x"}
    return {
        "kind": "performance",
        "status": "ok",
        "producer": "test",
        "entities": [
            entity(lower, "M", child_ids=["z"], attributes=tagged),
            entity("x", "X", child_ids=[upper]),
            entity(upper, "M", child_ids=[lower], attributes=tagged),
            entity("z", "Z"),
        ],
        "entity_kinds": kinds,
    }


def test_acceptance_is_greedy_in_sorted_id_order() -> None:
    rule = (CollapseRule("M", "tag", ("x",)),)
    top_first = collapse_result(greedy_result("m1", "m2"), rule)
    assert [e["id"] for e in top_first["entities"]] == ["m2", "x", "z"]
    assert top_first["warnings"] == [retain_warning("m2")]
    assert links(top_first)["x"] == (None, ["m2"])
    bottom_first = collapse_result(greedy_result("m2", "m1"), rule)
    assert [e["id"] for e in bottom_first["entities"]] == ["x", "m2", "z"]
    assert bottom_first["warnings"] == [retain_warning("m2")]
    assert links(bottom_first)["m2"] == (["x"], ["z"])


def test_records_on_collapsed_entities_are_removed() -> None:
    original = stage_result(
        [module("top", child_ids=["x"]), module("x", True, child_ids=["y"]), module("y")],
        breakdowns=[
            {"entity_id": "x", "metrics": [cycles_metric(9)]},
            {"entity_id": "y", "metrics": [cycles_metric(3)]},
        ],
        checks=[
            {"id": "k1", "status": "pass", "entity_id": "x"},
            {"id": "k2", "status": "pass", "entity_id": "y"},
            {"id": "k3", "status": "fail"},
            {"id": "k4", "status": "fail", "entity_id": None},
        ],
        advice=[
            {
                "id": "0",
                "category": "performance",
                "severity": "info",
                "message": "m",
                "affected_entity_ids": ["x"],
            },
            {
                "id": "1",
                "category": "performance",
                "severity": "info",
                "message": "m",
                "affected_entity_ids": ["x", "y"],
            },
            {"id": "2", "category": "performance", "severity": "info", "message": "m"},
            {
                "id": "3",
                "category": "performance",
                "severity": "info",
                "message": "m",
                "affected_entity_ids": [],
            },
        ],
    )
    output = collapse_result(original, TAGGED)
    assert output["breakdowns"] == [{"entity_id": "y", "metrics": [cycles_metric(3)]}]
    assert [c["id"] for c in output["checks"]] == ["k2", "k3", "k4"]
    assert [a["id"] for a in output["advice"]] == ["1", "2", "3"]
    assert output["advice"][0]["affected_entity_ids"] == ["y"]


def test_collapsed_figures_are_not_pushed_to_neighbours_and_input_is_untouched() -> None:
    original = stage_result(
        [module("top", child_ids=["x"]), module("x", True, child_ids=["y"]), module("y")],
        breakdowns=[{"entity_id": "x", "metrics": [cycles_metric(9)]}],
    )
    before = copy.deepcopy(original)
    output = collapse_result(original, TAGGED)
    assert json.dumps(original) == json.dumps(before)
    assert output["breakdowns"] == []
    assert all("attributes" not in e or not e["attributes"] for e in output["entities"])
