"""Entity collapse: remove the entities the collapse rules select, re-linking
their neighbours through them.

Decisions (the reference's semantics, spec core.md §4):

* Candidates (``collapse_match``) are taken in sorted id order, greedily. A
  candidate is accepted when, in the graph contracted through everything
  accepted so far plus the candidate, every edge is still an allowed
  (declared or schema-owned) kind pair; otherwise it is retained for good and
  a warning ``Retaining entity '<id>' because collapsing it would create an
  undeclared entity-kind relationship.`` is added to the result's
  ``warnings`` (the reference only logs it: a documented deviation).
* A result whose code lines show it was already processed
  (``code_line_processed``) is returned unchanged: its stacks were collapsed,
  or not, when it was produced.
* If nothing was accepted the result is returned unchanged (apart from those
  warnings). Otherwise every retained entity's ``parent_ids`` and
  ``child_ids`` are rewritten to its nearest retained neighbours (see
  ``collapse_contract``), collapsed entities are dropped, and breakdowns,
  checks and advice references that target them are removed.

Takes and gives normalized results (``document_shapes.ResultJson``).

Cost: the contracted adjacency of retained entities is maintained
incrementally, so accepting or rejecting a candidate only looks at the
contracted parents and children of that candidate (the edges it would
create are exactly parents x children; every other edge is unchanged and was
already allowed). Total O(E + refs + sum over candidates of |parents| *
|children|), versus the reference's full re-contraction per candidate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from perfline.core.code_line_processed import result_already_processed
from perfline.core.collapse_contract import SortedCaches, next_to_collapsed, retained_links
from perfline.core.collapse_match import select_candidates
from perfline.core.collapse_rules import CollapseRule
from perfline.core.document_shapes import (
    AdviceJson,
    BreakdownJson,
    CheckJson,
    EntityJson,
    ResultJson,
)
from perfline.core.graph import NumberedGraph, numbered_graph
from perfline.core.kinds import KindPair, allowed_kind_pairs
from perfline.core.mypyc_idioms import int_objects

RETAIN_WARNING = (
    "Retaining entity '{}' because collapsing it would create an undeclared "
    "entity-kind relationship."
)


def retain_warning(entity_id: str) -> str:
    """The warning perfline adds to a result for a candidate it had to retain."""
    return RETAIN_WARNING.format(entity_id)


class CollapsePlan:  # a value: never mutated
    """What collapsing decides from the entity graph alone: the accepted and retained
    candidates and, when something was accepted, the rewritten entity list."""

    __slots__ = ("collapsed", "entities", "retained")

    def __init__(
        self,
        collapsed: frozenset[str],
        retained: tuple[str, ...],
        entities: list[EntityJson] | None,
    ) -> None:
        self.collapsed = collapsed
        self.retained = retained
        self.entities = entities


def collapse_result(
    result: ResultJson, rules: Sequence[CollapseRule], graph: NumberedGraph | None = None
) -> ResultJson:
    """Collapse the entities selected by ``rules``; a new dict, the input untouched
    (``graph``: the ``numbered_graph`` of its entities, when the caller has it)."""
    return apply_collapse(result, plan_collapse(result, rules, graph))


def plan_collapse(
    result: ResultJson, rules: Sequence[CollapseRule], graph: NumberedGraph | None = None
) -> CollapsePlan | None:
    """The collapse decisions; reads only the result's ``entities`` and ``entity_kinds``
    (``graph``: the ``numbered_graph`` of those entities, when the caller has it).

    ``None`` when there is nothing to collapse (no rules, no candidates, or a
    result that was already processed).
    """
    entities = result.get("entities")
    if entities is None or not rules:
        return None
    candidates = select_candidates(entities, rules)
    if not candidates or result_already_processed(result):
        return None
    if graph is None:
        graph = numbered_graph(entities)
    number = graph.number
    nodes = [number[candidate] for candidate in candidates]
    collapsed, retained = accept_candidates(graph, nodes, allowed_kind_pairs(result))
    rewritten = _rewritten_entities(entities, graph, collapsed) if collapsed else None
    ids = graph.ids
    return CollapsePlan(
        frozenset([ids[node] for node in int_objects(collapsed)]),
        tuple([ids[node] for node in retained]),
        rewritten,
    )


def apply_collapse(result: ResultJson, plan: CollapsePlan | None) -> ResultJson:
    """``result`` collapsed as ``plan`` (made from its entities) says; the input untouched."""
    output = result.copy()
    if plan is None:
        return output
    if plan.retained:
        warnings = result.get("warnings")
        existing = list(warnings) if warnings is not None else []
        output["warnings"] = existing + [retain_warning(entity_id) for entity_id in plan.retained]
    if plan.entities is None:
        return output
    output["entities"] = plan.entities
    _prune_records(output, result, plan.collapsed)
    return output


def accept_candidates(
    graph: NumberedGraph, candidates: Sequence[int], allowed: frozenset[KindPair]
) -> tuple[frozenset[int], list[int]]:
    """Greedy acceptance in the given order (nodes of ``graph``): (collapsed nodes,
    retained candidates)."""
    parents: dict[int, set[int]] = {}
    children: dict[int, set[int]] = {}
    collapsed: set[int] = set()
    retained: list[int] = []
    kinds = graph.kinds
    for candidate in candidates:
        above = _contracted(parents, graph.parents, candidate)
        below = _contracted(children, graph.children, candidate)
        above_kinds = {kinds[node] for node in above}
        below_kinds = {kinds[node] for node in below}
        if any((p, c) not in allowed for p in above_kinds for c in below_kinds):
            retained.append(candidate)
            continue
        collapsed.add(candidate)
        for node in int_objects(above):
            links = _contracted(children, graph.children, node)
            links.discard(candidate)
            links.update(below)
        for node in int_objects(below):
            links = _contracted(parents, graph.parents, node)
            links.discard(candidate)
            links.update(above)
        del parents[candidate], children[candidate]
    return frozenset(collapsed), retained


def _contracted(table: dict[int, set[int]], source: list[list[int]], node: int) -> set[int]:
    """``node``'s contracted links in ``table``, started from ``source`` when first needed."""
    links = table.get(node)
    if links is None:
        links = set(source[node])
        table[node] = links
    return links


def _rewritten_entities(
    entities: Sequence[EntityJson], graph: NumberedGraph, collapsed: frozenset[int]
) -> list[EntityJson]:
    near = next_to_collapsed(graph, collapsed)
    caches: SortedCaches = ({}, {})
    # every entity is its own node (ids are unique, as validated), so its position is
    # its number; otherwise it is looked up
    aligned = len(graph.ids) == len(entities)
    number = graph.number
    output: list[EntityJson] = []
    for position in range(len(entities)):
        entity = entities[position]
        node = position if aligned else number[entity["id"]]
        if node in collapsed:
            continue
        new_parents, new_children = retained_links(graph, collapsed, near, node, caches)
        if _holds(entity, "parent_ids", new_parents) and _holds(entity, "child_ids", new_children):
            output.append(entity)  # rewriting would give an equal dict, same key order
            continue
        rewritten = entity.copy()
        _set_list(rewritten, "parent_ids", new_parents)
        _set_list(rewritten, "child_ids", new_children)
        output.append(rewritten)
    return output


_LinkKey = Literal["parent_ids", "child_ids"]


def _holds(entity: EntityJson, key: _LinkKey, values: list[str]) -> bool:
    """Whether ``_set_list(entity.copy(), key, values)`` would leave it equal."""
    if not values:
        return key not in entity
    current = entity.get(key)
    return current is not None and current == values


def _set_list(entity: EntityJson, key: _LinkKey, values: list[str]) -> None:
    if values:
        entity[key] = values
    else:
        entity.pop(key, None)


def _prune_records(output: ResultJson, result: ResultJson, collapsed: frozenset[str]) -> None:
    """Drop breakdowns/checks on collapsed entities and prune advice references."""
    breakdowns = result.get("breakdowns")
    if breakdowns is not None:
        output["breakdowns"] = [item for item in breakdowns if not _targets(item, collapsed)]
    checks = result.get("checks")
    if checks is not None:
        output["checks"] = [item for item in checks if not _targets(item, collapsed)]
    advice = result.get("advice")
    if advice is not None:
        output["advice"] = _pruned_advice(advice, collapsed)


def _targets(item: BreakdownJson | CheckJson, collapsed: frozenset[str]) -> bool:
    target = item.get("entity_id")
    return target is not None and target in collapsed


def _pruned_advice(advice: Sequence[AdviceJson], collapsed: frozenset[str]) -> list[AdviceJson]:
    kept: list[AdviceJson] = []
    for item in advice:
        affected = item.get("affected_entity_ids")
        if not affected:
            kept.append(item)
            continue
        remaining = [ref for ref in affected if ref not in collapsed]
        if len(remaining) == len(affected):
            kept.append(item)
        elif remaining:
            kept.append({**item, "affected_entity_ids": remaining})
    return kept
