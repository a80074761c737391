"""Aligning two processed results of the same model: results, files, entities.

* Results pair up by (kind, producer, mode), the n-th of a kind in one
  document with the n-th in the other. Documents with no such pair are of
  different producers or modes: ``InputError`` naming both files.
* Files: the ``file`` attributes of the code lines and stacks. A base file
  pairs with the new file of the same recorded path, else with the only new
  file sharing its longest trailing run of path components (at least the file
  name); runs recorded in different folders still align.
* Entities are matched by key. A code line's key is (new file, new line): a
  base line goes through the file pairing and, when the caller gives one, the
  file's ``LineMapping`` (a deleted or rewritten line gets no new key and is
  reported removed). A code stack's key is its frames, innermost first, each
  mapped the same way, so a stack whose lines moved still aligns. Every other
  entity's key is its canonical id.
* Different models: results whose operator entities (kinds ending in
  ``operator``; every entity when neither has one) share no key raise
  ``InputError``.

Cost: linear in entities (a stack's frames are memoized along its parents).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from perfline.core.compare.line_map import LineMapping
from perfline.core.errors import InputError, Problem

CODE_LINE = "code_line"
CODE_STACK = "code_stack"

Key = tuple[Any, ...]


def pair_results(
    base: Sequence[Mapping[str, Any]],
    new: Sequence[Mapping[str, Any]],
    base_source: str,
    new_source: str,
) -> list[tuple[int, int]]:
    """(base index, new index) of the results that are compared."""
    seen: Counter[tuple[str, str, str]] = Counter()
    base_slots: dict[tuple[str, str, str, int], int] = {}
    for index, result in enumerate(base):
        signature = _signature(result)
        base_slots[(*signature, seen[signature])] = index
        seen[signature] += 1
    seen.clear()
    pairs: list[tuple[int, int]] = []
    for index, result in enumerate(new):
        signature = _signature(result)
        slot = (*signature, seen[signature])
        seen[signature] += 1
        if slot in base_slots:
            pairs.append((base_slots[slot], index))
    if not pairs:
        raise InputError(
            new_source,
            Problem(
                "results",
                "nothing to compare with the baseline "
                f"{base_source}: its results are {_describe(base)}, these are "
                f"{_describe(new)} (different producers or modes)",
            ),
        )
    return sorted(pairs)


def _signature(result: Mapping[str, Any]) -> tuple[str, str, str]:
    return (str(result.get("kind")), str(result.get("producer")), str(result.get("mode") or "-"))


def _describe(results: Sequence[Mapping[str, Any]]) -> str:
    if not results:
        return "none"
    return ", ".join(
        f"{kind} by {producer!r} (mode {mode})"
        for kind, producer, mode in (_signature(r) for r in results)
    )


def source_files(result: Mapping[str, Any]) -> list[str]:
    """The recorded files of a result's code lines and stacks, in first-seen order."""
    files: dict[str, None] = {}
    for entity in result.get("entities", ()):
        if entity.get("kind") in (CODE_LINE, CODE_STACK):
            recorded = (entity.get("attributes") or {}).get("file")
            if isinstance(recorded, str):
                files.setdefault(recorded, None)
    return list(files)


def pair_files(base_files: Iterable[str], new_files: Iterable[str]) -> dict[str, str]:
    """Base recorded path -> new recorded path (see the module docstring)."""
    new_list = list(dict.fromkeys(new_files))
    exact = set(new_list)
    pairs: dict[str, str] = {}
    taken: set[str] = set()
    pending: list[str] = []
    for path in dict.fromkeys(base_files):
        if path in exact:
            pairs[path] = path
            taken.add(path)
        else:
            pending.append(path)
    for path in pending:
        parts = _parts(path)
        best = 0
        chosen: list[str] = []
        for candidate in new_list:
            if candidate in taken:
                continue
            shared = _shared_suffix(parts, _parts(candidate))
            if shared > best:
                best, chosen = shared, [candidate]
            elif shared == best and shared:
                chosen.append(candidate)
        if best and len(chosen) == 1:
            pairs[path] = chosen[0]
            taken.add(chosen[0])
    return pairs


def _parts(path: str) -> list[str]:
    return [part for part in path.replace("\\", "/").split("/") if part]


def _shared_suffix(left: list[str], right: list[str]) -> int:
    count = 0
    while count < min(len(left), len(right)) and left[-1 - count] == right[-1 - count]:
        count += 1
    return count


class Placement:
    """Where a code line or stack of the base result lands in the new result's terms."""

    __slots__ = ("files", "maps")

    def __init__(self, files: Mapping[str, str], maps: Mapping[str, LineMapping]) -> None:
        self.files = files
        self.maps = maps

    def line(self, recorded: str, line: int) -> tuple[str, int] | None:
        """(new file, new line) of a base (file, line), or ``None`` when it is gone."""
        target = self.files.get(recorded)
        if target is None:
            return None
        mapping = self.maps.get(recorded)
        if mapping is None:
            return (target, line)
        moved = mapping.new_line(line)
        return None if moved is None else (target, moved)


def entity_keys(
    result: Mapping[str, Any], placement: Placement | None
) -> dict[Key, Mapping[str, Any]]:
    """Key -> entity of one result; ``placement`` for the base side (None: the new side).

    Entities that get no key in the new side's terms (a deleted line) are keyed
    by ``("gone", id)``, so they are reported removed.
    """
    entities = result.get("entities", ())
    by_id = {entity["id"]: entity for entity in entities}
    frames: dict[str, tuple[tuple[str, int], ...] | None] = {}
    keys: dict[Key, Mapping[str, Any]] = {}
    for entity in entities:
        kind = entity["kind"]
        key: Key | None
        if kind == CODE_LINE:
            where = _location(entity, placement)
            key = None if where is None else (CODE_LINE, *where)
        elif kind == CODE_STACK:
            stack = _frames(entity, by_id, placement, frames)
            key = None if stack is None else (CODE_STACK, stack)
        else:
            key = ("id", entity["id"])
        if key is None or key in keys:
            key = ("gone", entity["id"])
        keys[key] = entity
    return keys


def _location(entity: Mapping[str, Any], placement: Placement | None) -> tuple[str, int] | None:
    attributes = entity.get("attributes") or {}
    recorded, line = attributes.get("file"), attributes.get("line")
    if not isinstance(recorded, str) or not isinstance(line, int):
        return None
    if placement is None:
        return (recorded, line)
    return placement.line(recorded, line)


def _frames(
    entity: Mapping[str, Any],
    by_id: Mapping[str, Mapping[str, Any]],
    placement: Placement | None,
    memo: dict[str, tuple[tuple[str, int], ...] | None],
) -> tuple[tuple[str, int], ...] | None:
    """The stack's frames, innermost first; ``None`` when one of them is gone."""
    entity_id = entity["id"]
    if entity_id in memo:
        return memo[entity_id]
    memo[entity_id] = None  # a cycle (invalid anyway) ends here
    own = _location(entity, placement)
    outer: tuple[tuple[str, int], ...] | None = ()
    for parent_id in entity.get("parent_ids", ()):
        parent = by_id.get(parent_id)
        if parent is not None and parent["kind"] == CODE_STACK:
            outer = _frames(parent, by_id, placement, memo)
            break
    stack = None if own is None or outer is None else (own, *outer)
    memo[entity_id] = stack
    return stack


def operator_overlap(
    base_keys: Mapping[Key, Mapping[str, Any]], new_keys: Mapping[Key, Mapping[str, Any]]
) -> tuple[int, int, int]:
    """(common, base total, new total) of operator entities (every entity if none)."""
    base_ops = {key for key, entity in base_keys.items() if _is_operator(entity)}
    new_ops = {key for key, entity in new_keys.items() if _is_operator(entity)}
    if not base_ops and not new_ops:
        base_ops, new_ops = set(base_keys), set(new_keys)
    return len(base_ops & new_ops), len(base_ops), len(new_ops)


def _is_operator(entity: Mapping[str, Any]) -> bool:
    return str(entity.get("kind", "")).endswith("operator")
