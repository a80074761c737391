"""One processed document -> the rows ``perfline batch`` stores: one per figure.

A row is one numeric figure of one run: the result it belongs to (index, kind, producer,
mode), the entity (id, kind, and the source ``file`` and ``line`` when known: a code line's
or code stack's own, an operator's from its code stack parent), the metric (name, unit,
``statistic``: ``avg``, ``p50``... as ``dominant_metric.statistic_of`` reads it, qualifiers
as sorted-key compact JSON, ``""`` for none) and the value. Result-level metrics are rows
without an entity. Left out: unavailable figures, booleans and non-finite values, per-run
figures (``execution`` / ``perfline.run`` qualifiers: the run's own statistics summarise
them) and a second figure of the same identity on one entity (the first is kept).

``run_identity`` says what the run is, for partitioning and grouping: its ``runtime``
(what executed: a target component's ``model`` such as ``xnnpack``, else its ``family``,
else the target type) and ``target`` (the target profile's name), both made safe as folder
names, the model's hash, the document's run id and timestamp.

The columns are plain lists (``FigureColumns``): the store's edge turns them into a table.
Pure; linear in the document's breakdowns.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from perfline.core.dominant_metric import statistic_of

#: Qualifiers that mark one execution's figure, not a figure of the run.
PER_RUN_QUALIFIERS: Final = frozenset({"execution", "perfline.run"})
#: What a runtime or target becomes when the document does not say.
UNKNOWN: Final = "unknown"
_UNSAFE = re.compile(r"[^a-z0-9._-]+")


@dataclass(frozen=True)
class RunIdentity:
    """What a run is: partition keys and the facts every row of it carries."""

    runtime: str
    target: str
    model_hash: str | None
    run_id: str | None
    timestamp: str | None


@dataclass
class FigureColumns:
    """The rows of one run, column by column (every list has one item per row)."""

    result: list[int] = field(default_factory=list)
    kind: list[str | None] = field(default_factory=list)
    producer: list[str | None] = field(default_factory=list)
    mode: list[str | None] = field(default_factory=list)
    entity_id: list[str | None] = field(default_factory=list)
    entity_kind: list[str | None] = field(default_factory=list)
    file: list[str | None] = field(default_factory=list)
    line: list[int | None] = field(default_factory=list)
    metric: list[str] = field(default_factory=list)
    unit: list[str] = field(default_factory=list)
    statistic: list[str | None] = field(default_factory=list)
    qualifiers: list[str] = field(default_factory=list)
    value: list[float] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.value)

    def as_dict(self) -> dict[str, list[Any]]:
        """Column name -> values, in the order of ``FIGURE_COLUMNS``."""
        return {name: getattr(self, name) for name in FIGURE_COLUMNS}


#: The figure columns, in order.
FIGURE_COLUMNS: Final = (
    "result",
    "kind",
    "producer",
    "mode",
    "entity_id",
    "entity_kind",
    "file",
    "line",
    "metric",
    "unit",
    "statistic",
    "qualifiers",
    "value",
)


def safe_name(text: str) -> str:
    """``text`` lowercased with every run of characters outside ``a-z0-9._-`` made one
    ``_`` (a folder name of the store's partitions); ``unknown`` when nothing is left."""
    cleaned = _UNSAFE.sub("_", text.strip().lower()).strip("_")
    return cleaned if cleaned and cleaned not in (".", "..") else UNKNOWN


def run_identity(document: Mapping[str, Any]) -> RunIdentity:
    """The runtime, target, model hash, run id and timestamp of a processed document."""
    target = document.get("target")
    target = target if isinstance(target, Mapping) else {}
    runtime = UNKNOWN
    components = target.get("components")
    first = components[0] if isinstance(components, list) and components else None
    if isinstance(first, Mapping):
        for key in ("model", "family"):
            value = first.get(key)
            if isinstance(value, str) and value.strip():
                runtime = value
                break
    if runtime == UNKNOWN and isinstance(target.get("target_type"), str):
        runtime = target["target_type"]
    profile = target.get("profile_name")
    model = document.get("model")
    model_hash = model.get("hash") if isinstance(model, Mapping) else None
    return RunIdentity(
        runtime=safe_name(runtime),
        target=safe_name(profile) if isinstance(profile, str) else UNKNOWN,
        model_hash=model_hash if isinstance(model_hash, str) else None,
        run_id=_text(document.get("run_id")),
        timestamp=_text(document.get("timestamp")),
    )


def figure_rows(document: Mapping[str, Any]) -> FigureColumns:
    """Every figure of every result of a processed document, one row each."""
    columns = FigureColumns()
    results = document.get("results")
    if not isinstance(results, list):
        return columns
    for index, result in enumerate(results):
        if isinstance(result, Mapping):
            _result_rows(index, result, columns)
    return columns


def _result_rows(index: int, result: Mapping[str, Any], columns: FigureColumns) -> None:
    head = (
        index,
        _text(result.get("kind")),
        _text(result.get("producer")),
        _text(result.get("mode")),
    )
    entities = {
        entity["id"]: entity
        for entity in _records(result.get("entities"))
        if isinstance(entity.get("id"), str)
    }
    places = _places(entities)
    _metric_rows(head, None, None, (None, None), _records(result.get("metrics")), columns)
    for breakdown in _records(result.get("breakdowns")):
        entity_id = breakdown.get("entity_id")
        if not isinstance(entity_id, str):
            continue
        entity = entities.get(entity_id)
        kind = _text(entity.get("kind")) if entity is not None else None
        place = places.get(entity_id, (None, None))
        metrics = _records(breakdown.get("metrics"))
        _metric_rows(head, entity_id, kind, place, metrics, columns)


def _metric_rows(
    head: tuple[int, str | None, str | None, str | None],
    entity_id: str | None,
    entity_kind: str | None,
    place: tuple[str | None, int | None],
    metrics: Sequence[Mapping[str, Any]],
    columns: FigureColumns,
) -> None:
    seen: set[tuple[str, str, str]] = set()
    for metric in metrics:
        value = metric.get("value")
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if not math.isfinite(value):
            continue
        name, unit = metric.get("name"), metric.get("unit")
        if not isinstance(name, str) or not isinstance(unit, str):
            continue
        qualifiers = metric.get("qualifiers")
        if isinstance(qualifiers, Mapping) and PER_RUN_QUALIFIERS & qualifiers.keys():
            continue
        text = qualifier_text(qualifiers)
        identity = (name, unit, text)
        if identity in seen:
            continue
        seen.add(identity)
        columns.result.append(head[0])
        columns.kind.append(head[1])
        columns.producer.append(head[2])
        columns.mode.append(head[3])
        columns.entity_id.append(entity_id)
        columns.entity_kind.append(entity_kind)
        columns.file.append(place[0])
        columns.line.append(place[1])
        columns.metric.append(name)
        columns.unit.append(unit)
        columns.statistic.append(statistic_of(metric))
        columns.qualifiers.append(text)
        columns.value.append(float(value))


def qualifier_text(qualifiers: object) -> str:
    """A metric's qualifiers as sorted-key compact JSON; ``""`` for none."""
    if not isinstance(qualifiers, Mapping) or not qualifiers:
        return ""
    return json.dumps(qualifiers, sort_keys=True, separators=(",", ":"))


def _places(entities: Mapping[str, Mapping[str, Any]]) -> dict[str, tuple[str | None, int | None]]:
    """entity id -> (file, line): its own location, else its code stack parents' one when
    they agree."""
    own: dict[str, tuple[str | None, int | None]] = {}
    for entity_id, entity in entities.items():
        location = _location(entity)
        if location is not None:
            own[entity_id] = location
    parents: dict[str, list[str]] = {}
    for entity_id, entity in entities.items():
        for parent in _strings(entity.get("parent_ids")):
            parents.setdefault(entity_id, []).append(parent)
        for child in _strings(entity.get("child_ids")):
            parents.setdefault(child, []).append(entity_id)
    places = dict(own)
    for entity_id in entities:
        if entity_id in own:
            continue
        found = {
            own[parent]
            for parent in parents.get(entity_id, ())
            if parent in own and entities[parent].get("kind") == "code_stack"
        }
        if len(found) == 1:
            places[entity_id] = found.pop()
    return places


def _location(entity: Mapping[str, Any]) -> tuple[str | None, int | None] | None:
    if entity.get("kind") not in ("code_line", "code_stack"):
        return None
    attributes = entity.get("attributes")
    if not isinstance(attributes, Mapping):
        return None
    file, line = attributes.get("file"), attributes.get("line")
    if not isinstance(file, str) or isinstance(line, bool) or not isinstance(line, int):
        return None
    return file, line


def _records(value: object) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
