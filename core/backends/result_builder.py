"""How every backend assembles its standardized result: one typed builder.

A backend adds what it found (entities, breakdowns, result metrics, kind declarations,
checks, advice, warnings) and ``finish`` gives the ``ResultJson`` with its keys in the
schema's order (``document_shapes.RESULT_KEY_ORDER``). ``kind``, ``status``, ``producer``,
``warnings``, ``errors``, ``metrics`` and ``entities`` are always written, and ``breakdowns``
in a performance result; ``breakdowns`` (of a compatibility result), ``checks``,
``entity_kinds`` and ``advice`` once a backend has added to them (even nothing:
``declare_kinds([])`` writes an empty list), ``mode`` when given. A breakdown written by
``add_breakdown`` carries its entity id as its record ``id`` (the convention every backend
follows), unless told otherwise.

The records are the backends' own values, kept as given (no copy, no check): the
post-processing validates the document. Cost: one list append per record, one dict at the
end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from perfline.core.document_shapes import (
    RESULT_KEY_ORDER,
    ResultJson,
    ResultKind,
    ResultMode,
    ResultStatus,
)


class ResultBuilder:
    """One standardized result under construction."""

    __slots__ = ("_parts",)

    def __init__(
        self,
        kind: ResultKind,
        producer: str,
        *,
        status: ResultStatus = "ok",
        mode: ResultMode | None = None,
    ) -> None:
        self._parts: dict[str, Any] = {
            "kind": kind,
            "status": status,
            "producer": producer,
            "warnings": [],
            "errors": [],
            "metrics": [],
            "entities": [],
        }
        if kind == "performance":
            self._parts["breakdowns"] = []
        if mode is not None:
            self._parts["mode"] = mode

    def _list(self, key: str) -> list[Any]:
        found: list[Any] = self._parts.setdefault(key, [])
        return found

    def set_status(self, status: ResultStatus) -> None:
        self._parts["status"] = status

    def warn(self, *texts: str) -> None:
        """Add warnings, in order."""
        self._list("warnings").extend(texts)

    def add_metric(self, metric: Mapping[str, Any]) -> None:
        """Add a result-level (model-level) metric."""
        self._list("metrics").append(metric)

    def add_metrics(self, metrics: Iterable[Mapping[str, Any]]) -> None:
        self._list("metrics").extend(metrics)

    def add_entity(self, entity: Mapping[str, Any]) -> None:
        self._list("entities").append(entity)

    def add_entities(self, entities: Iterable[Mapping[str, Any]]) -> None:
        self._list("entities").extend(entities)

    def add_breakdown(
        self, entity_id: str, metrics: list[Any], *, with_record_id: bool = True
    ) -> None:
        """The breakdown of ``entity_id``: ``{entity_id, metrics, id}`` (``id`` left out
        when ``with_record_id`` is false)."""
        record: dict[str, Any] = {"entity_id": entity_id, "metrics": metrics}
        if with_record_id:
            record["id"] = entity_id
        self._list("breakdowns").append(record)

    def add_breakdowns(self, breakdowns: Iterable[Mapping[str, Any]]) -> None:
        """Breakdowns made elsewhere (a shared part's view), as they are."""
        self._list("breakdowns").extend(breakdowns)

    def declare_kinds(self, kinds: Iterable[Mapping[str, Any]]) -> None:
        """Entity kind declarations; one already declared (by ``id``) is not declared again."""
        declared = self._list("entity_kinds")
        known = {kind["id"] for kind in declared}
        for kind in kinds:
            if kind["id"] not in known:
                known.add(kind["id"])
                declared.append(kind)

    def add_checks(self, checks: Iterable[Mapping[str, Any]]) -> None:
        self._list("checks").extend(checks)

    def add_advice(self, advice: Iterable[Mapping[str, Any]]) -> None:
        self._list("advice").extend(advice)

    def finish(self, *, omit_empty: bool = False) -> ResultJson:
        """The result, its keys in the schema's order; with ``omit_empty`` every empty list
        is left out (``errors`` and ``warnings`` too)."""
        parts = self._parts
        result = {
            key: parts[key]
            for key in RESULT_KEY_ORDER
            if key in parts and not (omit_empty and parts[key] == [])
        }
        return cast(ResultJson, result)
