"""Basic validation of a whole document: structure, kind declarations, the
entity graph and references (the rules of the reference's basic validation).

Every problem is collected, in a stable order (top-level checks, then per
result: kind declarations, entities, graph, edge semantics, references), as a
``Problem`` whose location is the JSON path of the offending value and whose
message says what was expected. Cost: O(size of the document): acyclicity and
the edge kinds are first decided in one linear pass over integer positions;
only a graph that fails it is built (``build_graph``) and walked in sorted
topological order, so that its problems come out in a stable order.

The input is unchecked JSON, so records are read as ``Mapping[str, object]``
and every value is checked before use; the required fields and the linking
fields come from ``document_shapes`` (the schema written once).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from perfline.core.document_shapes import (
    ENTITY_LINK_KEYS,
    KIND_LINK_KEYS,
    ModelJson,
    ResultJson,
    TargetJson,
    ToolJson,
    keys_of,
    required_keys,
)
from perfline.core.errors import Problem
from perfline.core.graph import NumberedGraph, build_graph, kahn_order, numbered_graph
from perfline.core.kinds import WELL_KNOWN_KINDS, allowed_kind_pairs
from perfline.core.pipeline_memo import PipelineMemo

#: The document's required fields (``DocumentJson``) in the order the reference
#: reports them missing (``tests/core/document/test_schema_once.py`` holds the two together).
REQUIRED_TOP_LEVEL: Final[tuple[str, ...]] = (
    "schema_version",
    "run_id",
    "timestamp",
    "tool",
    "target",
    "model",
    "context",
    "backends",
    "results",
)
_TOOL_FIELDS: Final[tuple[str, ...]] = required_keys(ToolJson)
_TARGET_FIELDS: Final[tuple[str, ...]] = required_keys(TargetJson)
_MODEL_FIELDS: Final[tuple[str, ...]] = required_keys(ModelJson)
_ENTITY_LINKS: Final[tuple[str, ...]] = ENTITY_LINK_KEYS
_KIND_LINKS: Final[tuple[str, ...]] = KIND_LINK_KEYS
#: The result's lists whose records may name one entity (``entity_id``).
_RECORD_LISTS: Final[tuple[str, ...]] = keys_of(ResultJson, "breakdowns", "checks")
_SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?$")
_SHA256 = re.compile(r"^[0-9a-fA-F]{64}$")


KnownGraphs = dict[int, tuple[list[Any], NumberedGraph]]
"""Result index -> an entity list and its ``numbered_graph``, worked out by a caller."""


def validate_document(
    document: Any,
    memo: PipelineMemo | None = None,
    stage: str = "validate",
    graphs: KnownGraphs | None = None,
    *,
    build_graphs: bool = False,
) -> list[Problem]:
    """Every basic-validation problem of ``document`` (empty when it is valid).

    With ``memo``, each result's kind declarations and entity graph are checked
    only when they are not the very lists checked last time under ``stage``.
    ``graphs``: numbered graphs the caller already has; a result whose ``entities``
    is the very list of one, and whose graph is complete, has it checked from that
    graph instead of resolving every reference again (the same problems: any doubt
    and the full checks run). ``build_graphs``: each result's graph is built so, and
    kept in ``graphs`` for the caller's stages, unless ``memo`` already vouches for it
    (the very lists were checked last time: nothing is built then).
    """
    if not isinstance(document, dict):
        return [Problem("", f"the document must be a JSON object, got {_type_name(document)}")]
    problems: list[Problem] = []
    for field in REQUIRED_TOP_LEVEL:
        if field not in document:
            problems.append(Problem(field, f"Missing required field: {field}"))
    _check_top_level(document, problems)
    results = document.get("results")
    if isinstance(results, list):
        for index, result in enumerate(results):
            if isinstance(result, dict):
                known = graphs.get(index) if graphs is not None else None
                if known is None and build_graphs and graphs is not None:
                    entities = result.get("entities")
                    if (
                        type(entities) is list
                        and entities
                        and (memo is None or not memo.knows(index, stage, _graph_key(result)))
                    ):
                        known = graphs[index] = (entities, numbered_graph(entities))
                problems.extend(validate_result(result, index, memo, stage, known))
            else:
                problems.append(
                    Problem(
                        f"results[{index}]", f"a result must be an object, got {_type_name(result)}"
                    )
                )
    return problems


def _check_top_level(document: Mapping[str, object], problems: list[Problem]) -> None:
    _check_string(
        document, "schema_version", problems, _SEMVER, "must be in semver format (e.g., '1.0.0')"
    )
    _check_string(document, "run_id", problems, _UUID, "must be a valid UUID")
    _check_string(document, "timestamp", problems, _TIMESTAMP, "must be in ISO 8601 format")

    tool = document.get("tool")
    if "tool" in document:
        if not isinstance(tool, dict):
            problems.append(Problem("tool", "Field 'tool' must be an object"))
        else:
            for field in _TOOL_FIELDS:
                _check_required_string(tool, "tool", field, problems)

    target = document.get("target")
    if "target" in document:
        if not isinstance(target, dict):
            problems.append(Problem("target", "Field 'target' must be an object"))
        else:
            for field in _TARGET_FIELDS:
                if field not in target:
                    problems.append(
                        Problem(f"target.{field}", f"Missing required field: target.{field}")
                    )
            components = target.get("components")
            if "components" in target:
                if not isinstance(components, list):
                    problems.append(
                        Problem("target.components", "Field 'target.components' must be an array")
                    )
                elif not components:
                    problems.append(
                        Problem(
                            "target.components",
                            "Field 'target.components' must have at least one item",
                        )
                    )

    model = document.get("model")
    if "model" in document:
        if not isinstance(model, dict):
            problems.append(Problem("model", "Field 'model' must be an object"))
        else:
            for field in _MODEL_FIELDS:
                _check_required_string(model, "model", field, problems)
            model_hash = model.get("hash")
            if isinstance(model_hash, str) and not _SHA256.match(model_hash):
                problems.append(
                    Problem(
                        "model.hash",
                        "Field 'model.hash' must be a valid SHA-256 hash (64 hexadecimal digits)",
                    )
                )

    backends = document.get("backends")
    if "backends" in document:
        if not isinstance(backends, list):
            problems.append(Problem("backends", "Field 'backends' must be an array"))
        elif not backends:
            problems.append(Problem("backends", "Field 'backends' must have at least one item"))

    if "results" in document and not isinstance(document.get("results"), list):
        problems.append(Problem("results", "Field 'results' must be an array"))


def _check_string(
    document: Mapping[str, object],
    field: str,
    problems: list[Problem],
    pattern: re.Pattern[str],
    expectation: str,
) -> None:
    if field not in document:
        return
    value = document[field]
    if not isinstance(value, str):
        problems.append(Problem(field, f"Field '{field}' must be a string"))
    elif not pattern.match(value):
        problems.append(Problem(field, f"Field '{field}' {expectation}, got " + repr(value)))


def _check_required_string(
    parent: Mapping[str, object], prefix: str, field: str, problems: list[Problem]
) -> None:
    path = f"{prefix}.{field}"
    if field not in parent:
        problems.append(Problem(path, f"Missing required field: {path}"))
    elif not isinstance(parent[field], str):
        problems.append(Problem(path, f"Field '{path}' must be a string"))


def validate_result(
    result: Mapping[str, object],
    index: int,
    memo: PipelineMemo | None = None,
    stage: str = "validate",
    known: tuple[list[Any], NumberedGraph] | None = None,
) -> list[Problem]:
    """Kind declarations, entity graph and references of ``results[index]``
    (``known``: an entity list and its numbered graph, see ``validate_document``)."""
    if memo is None:
        graph_problems, ids = _graph_problems(result, index, known)
    else:
        graph_problems, ids = memo.recall(
            index, stage, _graph_key(result), _graph_problems, result, index, known
        )
    problems = list(graph_problems)
    if ids is not None:
        _check_references(result, index, ids, problems)
    return problems


def _graph_key(result: Mapping[str, object]) -> tuple[object, object]:
    """What ``_graph_problems`` reads of a result: the memo's key for its answer."""
    return (result.get("entities"), result.get("entity_kinds"))


def _graph_problems(
    result: Mapping[str, object],
    index: int,
    known: tuple[list[Any], NumberedGraph] | None = None,
) -> tuple[tuple[Problem, ...], dict[str, int] | None]:
    """Problems of the kind declarations and the entity graph, and the entity ids
    by position (``None`` when ``entities`` is not a list); reads nothing else."""
    problems: list[Problem] = []
    prefix = f"results[{index}]"
    declared = _check_kind_declarations(result, index, problems)
    entities = result.get("entities", [])
    if not isinstance(entities, list):
        problems.append(
            Problem(f"{prefix}.entities", f"Field '{prefix}.entities' must be an array")
        )
        return tuple(problems), None
    if known is not None and known[0] is entities and not problems:
        graph = known[1]
        if graph.complete and _sound_by_graph(graph, declared, allowed_kind_pairs(result)):
            return (), graph.number
    ids: dict[str, int] = {}
    kinds: list[str] = []  # by position; "" where there is none
    graph_ok = True
    well_known = WELL_KNOWN_KINDS
    for position, entity in enumerate(entities):
        if not isinstance(entity, dict):
            kinds.append("")
            path = f"{prefix}.entities[{position}]"
            problems.append(Problem(path, f"Field '{path}' must be an object"))
            continue
        kind = entity.get("kind")
        kinds.append(kind if type(kind) is str else "")
        if type(kind) is str and (kind in well_known or kind in declared):
            pass  # the common case, decided without building the entity's path
        elif not isinstance(kind, str):
            path = f"{prefix}.entities[{position}]"
            problems.append(Problem(f"{path}.kind", f"Field '{path}.kind' must be a string"))
        elif not kind.strip():
            path = f"{prefix}.entities[{position}]"
            problems.append(
                Problem(f"{path}.kind", f"Field '{path}.kind' must be a non-empty string")
            )
        else:
            path = f"{prefix}.entities[{position}]"
            problems.append(
                Problem(
                    f"{path}.kind",
                    f"Entity kind '{kind}' at {path}.kind is neither "
                    "well-known nor declared within this result",
                )
            )
        entity_id = entity.get("id")
        if isinstance(entity_id, str):
            if entity_id in ids:
                graph_ok = False
                path = f"{prefix}.entities[{position}]"
                problems.append(
                    Problem(
                        f"{path}.id",
                        f"Entity id '{entity_id}' must be unique within result "
                        f"{index} (first defined at {prefix}.entities"
                        f"[{ids[entity_id]}])",
                    )
                )
            else:
                ids[entity_id] = position
    links = _resolved_links(entities, index, prefix, ids, problems, graph_ok)
    if links is not None and not _plainly_sound(links, kinds, allowed_kind_pairs(result)):
        _check_graph(entities, result, index, prefix, ids, problems)
    return tuple(problems), ids


def _sound_by_graph(
    graph: NumberedGraph, declared: set[str], allowed: frozenset[tuple[str, str]]
) -> bool:
    """Would the checks below find nothing? Given a complete graph (every entity a dict
    with a unique string id, every reference resolved: its nodes are positions), when
    every kind is a non-empty, well-known or declared string and the edges are plainly
    sound (``_plainly_sound`` counts each edge once or twice alike)."""
    well_known = WELL_KNOWN_KINDS
    for kind in graph.kinds:
        if not kind or not (kind in well_known or kind in declared):
            return False
    return _plainly_sound(graph.children, graph.kinds, allowed)


def _resolved_links(
    entities: list[Any],
    index: int,
    prefix: str,
    ids: dict[str, int],
    problems: list[Problem],
    ids_unique: bool,
) -> list[list[int]] | None:
    """Children of each entity by position (an edge may appear twice, from both
    sides), or ``None`` when ids repeat or a reference does not resolve (each
    unresolved reference is reported)."""
    graph_ok = ids_unique
    children: list[list[int]] = [[] for _ in entities]
    for position, entity in enumerate(entities):
        if not isinstance(entity, dict):
            continue
        has_id = type(entity.get("id")) is str
        for field in _ENTITY_LINKS:
            references = entity.get(field)
            if not isinstance(references, list) or not references:
                continue
            try:
                others = [ids[reference] for reference in references]
            except (KeyError, TypeError):
                others, resolved = _resolve_slowly(
                    references, ids, index, prefix, position, field, problems
                )
                graph_ok = graph_ok and resolved
            if not has_id:
                continue
            if field == "child_ids":
                children[position].extend(others)
            else:
                for parent in others:
                    children[parent].append(position)
    return children if graph_ok else None


def _resolve_slowly(
    references: list[Any],
    ids: dict[str, int],
    index: int,
    prefix: str,
    position: int,
    field: str,
    problems: list[Problem],
) -> tuple[list[int], bool]:
    """Positions of the string references that resolve (other items are ignored),
    and whether every string reference did; each one that did not is reported."""
    others: list[int] = []
    resolved = True
    for slot, reference in enumerate(references):
        if not isinstance(reference, str):
            continue
        other = ids.get(reference)
        if other is not None:
            others.append(other)
            continue
        resolved = False
        where = f"{prefix}.entities[{position}].{field}[{slot}]"
        problems.append(
            Problem(
                where,
                f"Entity reference '{reference}' at {where} does not resolve within result {index}",
            )
        )
    return others, resolved


def _plainly_sound(
    children: list[list[int]], kinds: list[str], allowed: frozenset[tuple[str, str]]
) -> bool:
    """Whether the graph is acyclic and every edge's kind pair is allowed, decided
    in one linear pass (Kahn's algorithm in any order, duplicate edges counted on
    both ends). ``children`` holds every edge of ``build_graph`` and possibly a
    few more, ``kinds`` the entity kinds by position, so ``True`` means the
    precise check would find nothing; on ``False`` the caller runs it for the
    problems in their stable order."""
    allowed_below: dict[str, set[str]] = {}
    for parent_kind, child_kind in allowed:
        allowed_below.setdefault(parent_kind, set()).add(child_kind)
    waiting = [0] * len(children)
    for parent, below in enumerate(children):
        if below:
            permitted = allowed_below.get(kinds[parent])
            if permitted is None:
                return False
            for child in below:
                if kinds[child] not in permitted:
                    return False
                # not +=, which mypyc compiles to a generic add here
                waiting[child] = waiting[child] + 1
    return len(kahn_order(children, waiting)) == len(children)


def _check_graph(
    entities: list[Any],
    result: Mapping[str, object],
    index: int,
    prefix: str,
    ids: Mapping[str, int],
    problems: list[Problem],
) -> None:
    """The precise graph checks: a directed cycle, else every edge whose kind pair
    is not allowed, parents in topological order and children sorted."""
    graph = build_graph(entities)
    cycle = graph.find_cycle()
    if cycle is not None:
        chain = " -> ".join(f"'{node}'" for node in cycle)
        problems.append(
            Problem(
                f"{prefix}.entities",
                f"Entity graph in result {index} contains a directed cycle: {chain}",
            )
        )
        return
    allowed = allowed_kind_pairs(result)
    for parent in graph.topological_order():
        for child in sorted(graph.children[parent]):
            pair = (graph.kinds[parent], graph.kinds[child])
            if pair not in allowed:
                problems.append(
                    Problem(
                        f"{prefix}.entities[{ids[parent]}]",
                        f"Result {index} entity relationship '{parent}' ({pair[0]}) -> "
                        f"'{child}' ({pair[1]}) is not covered by a declared or well-known "
                        "entity kind relationship",
                    )
                )


def _check_kind_declarations(
    result: Mapping[str, object], index: int, problems: list[Problem]
) -> set[str]:
    prefix = f"results[{index}].entity_kinds"
    declarations = result.get("entity_kinds", [])
    if not isinstance(declarations, list):
        problems.append(Problem(prefix, f"Field '{prefix}' must be an array"))
        return set()
    declared: set[str] = set()
    for position, declaration in enumerate(declarations):
        path = f"{prefix}[{position}]"
        if not isinstance(declaration, dict):
            problems.append(Problem(path, f"Field '{path}' must be an object"))
            continue
        kind_id = declaration.get("id")
        if not isinstance(kind_id, str):
            problems.append(Problem(f"{path}.id", f"Field '{path}.id' must be a string"))
        elif not kind_id.strip():
            problems.append(Problem(f"{path}.id", f"Field '{path}.id' must be a non-empty string"))
        elif kind_id in WELL_KNOWN_KINDS:
            problems.append(
                Problem(
                    f"{path}.id",
                    f"Well-known entity kind '{kind_id}' must not be declared at {path}",
                )
            )
        elif kind_id in declared:
            problems.append(
                Problem(
                    f"{path}.id", f"Entity kind id '{kind_id}' must be unique within result {index}"
                )
            )
        else:
            declared.add(kind_id)
    known = declared | WELL_KNOWN_KINDS
    for position, declaration in enumerate(declarations):
        if not isinstance(declaration, dict):
            continue
        path = f"{prefix}[{position}]"
        for field in _KIND_LINKS:
            if field not in declaration:
                continue
            values = declaration[field]
            if not isinstance(values, list):
                problems.append(
                    Problem(f"{path}.{field}", f"Field '{path}.{field}' must be an array")
                )
                continue
            seen: set[str] = set()
            for slot, value in enumerate(values):
                where = f"{path}.{field}[{slot}]"
                if not isinstance(value, str):
                    problems.append(Problem(where, f"Field '{where}' must be a string"))
                elif not value.strip():
                    problems.append(Problem(where, f"Field '{where}' must be a non-empty string"))
                elif value in seen:
                    problems.append(
                        Problem(where, f"Entity kind id '{value}' is duplicated in {path}.{field}")
                    )
                else:
                    seen.add(value)
                    if value not in known:
                        problems.append(
                            Problem(
                                where,
                                f"Entity kind reference '{value}' at {where} does "
                                "not resolve to a well-known or declared entity "
                                "kind in this result",
                            )
                        )
    return declared


def _check_references(
    result: Mapping[str, object], index: int, ids: Mapping[str, int], problems: list[Problem]
) -> None:
    prefix = f"results[{index}]"
    for field in _RECORD_LISTS:
        items = result.get(field)
        if isinstance(items, list):
            for position, item in enumerate(items):
                if not isinstance(item, dict):
                    continue
                reference = item.get("entity_id")
                if isinstance(reference, str) and reference not in ids:
                    where = f"{prefix}.{field}[{position}].entity_id"
                    _check_reference(reference, where, index, ids, problems)
    advice = result.get("advice")
    if isinstance(advice, list):
        for position, item in enumerate(advice):
            if isinstance(item, dict):
                affected = item.get("affected_entity_ids")
                for slot, reference in enumerate(affected if isinstance(affected, list) else []):
                    where = f"{prefix}.advice[{position}].affected_entity_ids[{slot}]"
                    _check_reference(reference, where, index, ids, problems)


def _check_reference(
    reference: object, where: str, index: int, ids: Mapping[str, int], problems: list[Problem]
) -> None:
    if isinstance(reference, str) and reference not in ids:
        problems.append(
            Problem(
                where,
                f"Entity reference '{reference}' at {where} does not resolve within result {index}",
            )
        )


def _type_name(value: object) -> str:
    names = {
        dict: "object",
        list: "array",
        str: "string",
        int: "integer",
        float: "number",
        bool: "boolean",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)
