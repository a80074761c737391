"""Canonical TOSA identities for results of a TOSA model converted to VGF.

``model-converter --emit-debug-info`` copies each TOSA operator's location
text into the VGF as the debug name of its SPIR-V operation. When the user's
model is the TOSA file, a VGF operator whose debug name equals the location of
exactly one TOSA operator is renamed ``source_operator/<tosa operator id>``
(the canonical TOSA identity); operators without a unique match keep their
VGF identity (meaningful with the converted VGF in the output folder).
Renaming rewrites every reference: entity ids, parent/child lists,
breakdowns, checks and advice. Cost: linear in the result's size.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from perfline.core.backends.nx_common.associations import source_operator_id


def tosa_id_map(
    segment_index: int,
    debug_names: Mapping[int, str],
    tosa_locations: Iterable[tuple[str, str | None]],
) -> dict[str, str]:
    """VGF source-operator id -> TOSA source-operator id, for unique location matches.

    ``tosa_locations`` holds (TOSA source-operator id, location text) pairs.
    """
    owners: dict[str, list[str]] = {}
    for tosa_id, location in tosa_locations:
        if location:
            owners.setdefault(location, []).append(tosa_id)
    claimed: dict[str, list[int]] = {}
    for result_id, name in debug_names.items():
        claimed.setdefault(name, []).append(result_id)
    mapping: dict[str, str] = {}
    for name, result_ids in claimed.items():
        tosa_ids = owners.get(name, [])
        if len(result_ids) == 1 and len(tosa_ids) == 1:
            mapping[source_operator_id(segment_index, result_ids[0])] = tosa_ids[0]
    return mapping


def rename_entities(result: Mapping[str, Any], mapping: Mapping[str, str]) -> dict[str, Any]:
    """A copy of ``result`` with entity ids renamed everywhere they are referenced."""
    if not mapping:
        return dict(result)

    def rename(value: object) -> object:
        return mapping.get(value, value) if isinstance(value, str) else value

    renamed = dict(result)
    entities = []
    for entity in result.get("entities", []):
        copy = dict(entity)
        copy["id"] = rename(entity["id"])
        for key in ("parent_ids", "child_ids"):
            if isinstance(entity.get(key), list):
                copy[key] = [rename(item) for item in entity[key]]
        entities.append(copy)
    if "entities" in result:
        renamed["entities"] = entities
    if "breakdowns" in result:
        renamed["breakdowns"] = [
            {**item, "entity_id": rename(item["entity_id"])} for item in result["breakdowns"]
        ]
    if "checks" in result:
        renamed["checks"] = [
            {**item, "entity_id": rename(item.get("entity_id"))} if "entity_id" in item else item
            for item in result["checks"]
        ]
    if "advice" in result:
        renamed["advice"] = [
            {**item, "affected_entity_ids": [rename(i) for i in item["affected_entity_ids"]]}
            if isinstance(item.get("affected_entity_ids"), list)
            else item
            for item in result["advice"]
        ]
    return renamed
