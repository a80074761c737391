"""Which entities the collapse rules select.

A rule selects an entity whose ``kind`` equals the rule's kind exactly and
whose ``attributes[attribute]`` is a string matching at least one of the
rule's globs with case-sensitive, whole-string ``fnmatch`` semantics (``*``
also matches ``/``; ``**`` is just two ``*``; ``?`` and ``[seq]`` work).
Non-string attribute values never match. Reads normalized entities
(``document_shapes.EntityJson``). Cost: one pass over the entities,
each glob compiled once.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence

from perfline.core.collapse_rules import CollapseRule
from perfline.core.document_shapes import EntityJson


def _compiled(rules: Sequence[CollapseRule]) -> dict[tuple[str, str], list[re.Pattern[str]]]:
    """Glob patterns keyed by (kind, attribute)."""
    patterns: dict[tuple[str, str], list[re.Pattern[str]]] = {}
    for rule in rules:
        bucket = patterns.setdefault((rule.kind, rule.attribute), [])
        bucket.extend(re.compile(fnmatch.translate(glob)) for glob in rule.globs)
    return patterns


def entity_matches(entity: EntityJson, rules: Sequence[CollapseRule]) -> bool:
    """Whether any rule selects ``entity``."""
    return bool(select_candidates([entity], rules))


def select_candidates(entities: Sequence[EntityJson], rules: Sequence[CollapseRule]) -> list[str]:
    """Ids of the entities some rule selects, sorted (the greedy processing order)."""
    if not rules:
        return []
    patterns = _compiled(rules)
    by_kind: dict[str, list[tuple[str, list[re.Pattern[str]]]]] = {}
    for (kind, attribute), compiled in patterns.items():
        by_kind.setdefault(kind, []).append((attribute, compiled))
    selected: set[str] = set()
    for entity in entities:
        entity_kind = entity["kind"]
        if entity_kind not in by_kind:
            continue
        attributes = entity.get("attributes")
        if attributes is None:
            continue
        for attribute, compiled in by_kind[entity_kind]:
            if _matches(attributes.get(attribute), compiled):
                selected.add(entity["id"])
                break
    return sorted(selected)


def _matches(value: object, compiled: list[re.Pattern[str]]) -> bool:
    """Whether ``value`` is a string some of the ``compiled`` globs match."""
    return isinstance(value, str) and any(pattern.match(value) for pattern in compiled)
