"""Minimal result dicts for the collapse and code-line tests."""

from __future__ import annotations

from typing import Any

NX_KINDS: list[dict[str, Any]] = [
    {"id": "segment", "child_kinds": ["cascade", "source_operator"]},
    {"id": "cascade", "parent_kinds": ["segment"], "child_kinds": ["chain"]},
    {"id": "chain", "parent_kinds": ["cascade"], "child_kinds": ["source_operator"]},
    {"id": "nn_module", "parent_kinds": ["nn_module"], "child_kinds": ["nn_module"]},
]


def entity(entity_id: str, kind: str, **extra: Any) -> dict[str, Any]:
    """One entity; ``extra`` holds parent_ids, child_ids, attributes, ..."""
    return {"id": entity_id, "kind": kind, "name": entity_id, **extra}


def result(entities: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A performance result with the NX-like kind declarations."""
    return {
        "kind": "performance",
        "status": "ok",
        "producer": "test",
        "entities": entities,
        "entity_kinds": NX_KINDS,
        **extra,
    }


def links(output: dict[str, Any]) -> dict[str, tuple[list[str] | None, list[str] | None]]:
    """id -> (parent_ids, child_ids) as stored."""
    return {e["id"]: (e.get("parent_ids"), e.get("child_ids")) for e in output["entities"]}


def metric(value: int) -> dict[str, Any]:
    return {"name": "cycles", "unit": "cycles", "value": value, "aggregation": "sum"}
