"""The standardized-output document model (schema 1.2.0, also reads 1.1.0).

Typed, immutable pydantic models of the whole document, and the two
conversions every other stage relies on:

* ``parse_result(raw) -> Result``: the typed parse of one result, with the
  invariants the schema's prose states (metric shapes, enums, legacy entity
  keys). Problems come back as an ``InputError`` whose locations are JSON
  paths relative to the result (``entities[3].name``).
* ``Result.to_json()`` / ``normalize_result(raw)``: the canonical
  re-serialization: keys in the schema's order, absent and empty optional
  fields omitted, unknown keys dropped. Free-form objects (attributes,
  qualifiers, details, configuration) are kept as they are.

Numbers keep their JSON type: ``5`` stays an int and ``5.0`` a float, because
figure equality downstream is textual.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any, cast

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)

from perfline.core.document_canonical import canonical_result
from perfline.core.document_shapes import (
    LEGACY_ENTITY_FIELDS,
    AdviceCategory,
    AdviceSeverity,
    CheckStatus,
    ComponentType,
    JsonObject,
    MetricAvailability,
    ResultJson,
    ResultKind,
    ResultMode,
    ResultStatus,
)
from perfline.core.errors import InputError, Problem

MetricValue = StrictBool | StrictInt | StrictFloat

_LEGACY_KEYS = frozenset(LEGACY_ENTITY_FIELDS)


def _empty_to_none(value: Any) -> Any:
    """An empty optional value is the same as an absent one (it is never serialized)."""
    if isinstance(value, (str, list, tuple, dict)) and len(value) == 0:
        return None
    return value


OptStr = Annotated[StrictStr | None, BeforeValidator(_empty_to_none)]
OptObject = Annotated[JsonObject | None, BeforeValidator(_empty_to_none)]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    def to_json(self) -> JsonObject:
        """Canonical JSON object: field order, absent and empty optional values omitted."""
        return self.model_dump(mode="json", exclude_defaults=True)


class Metric(_Frozen):
    """A figure: numeric (``value``) or unavailable (``availability`` + ``reason``)."""

    name: StrictStr
    unit: StrictStr
    value: MetricValue | None = None
    aggregation: OptStr = None
    samples: StrictInt | None = None
    qualifiers: OptObject = None
    availability: MetricAvailability | None = None
    reason: OptStr = None

    @model_validator(mode="after")
    def _one_shape(self) -> Metric:
        if self.value is not None:
            if isinstance(self.value, float) and not math.isfinite(self.value):
                raise ValueError("Metric value must be finite.")
            if self.availability is not None or self.reason is not None:
                raise ValueError("Metric cannot combine a numeric value with availability fields.")
            return self
        if self.availability is None:
            raise ValueError("Metric must include a value or availability.")
        if not self.reason:
            raise ValueError("Unavailable metrics must include a reason.")
        if self.aggregation is not None or self.samples is not None:
            raise ValueError("Unavailable metrics cannot include aggregation or samples.")
        return self

    @property
    def is_available(self) -> bool:
        """Whether the metric carries a value."""
        return self.value is not None


class Breakdown(_Frozen):
    """Metrics linked to one entity of the same result."""

    entity_id: StrictStr
    metrics: tuple[Metric, ...]
    id: OptStr = None
    qualifiers: JsonObject = Field(default_factory=dict)


class Check(_Frozen):
    """A pass/fail/partial check, optionally about one entity."""

    id: StrictStr
    status: CheckStatus
    entity_id: OptStr = None
    details: OptObject = None


class Advice(_Frozen):
    """Result-level advice, optionally naming the entities it is about."""

    id: StrictStr
    category: AdviceCategory
    severity: AdviceSeverity
    message: StrictStr
    affected_entity_ids: tuple[StrictStr, ...] = ()
    details: OptObject = None


class Entity(_Frozen):
    """One node of the result's entity graph; ids are opaque."""

    id: StrictStr
    kind: StrictStr
    name: StrictStr
    placement: OptStr = None
    parent_ids: tuple[StrictStr, ...] = ()
    child_ids: tuple[StrictStr, ...] = ()
    attributes: JsonObject = Field(default_factory=dict)
    stack_trace: OptStr = None

    @model_validator(mode="before")
    @classmethod
    def _no_legacy_fields(cls, data: Any) -> Any:
        if isinstance(data, dict) and not _LEGACY_KEYS.isdisjoint(data):
            if "locations" in data:
                raise ValueError("Entity uses unsupported field 'locations'.")
            for legacy in LEGACY_ENTITY_FIELDS[1:]:
                if legacy in data:
                    raise ValueError(f"Entity uses unsupported legacy field '{legacy}'.")
        return data


class EntityKind(_Frozen):
    """Declaration of a backend entity kind and its parent/child kinds."""

    id: StrictStr
    parent_kinds: tuple[StrictStr, ...] = ()
    child_kinds: tuple[StrictStr, ...] = ()


class Result(_Frozen):
    """One analysis result: status, metrics, entities and what links to them."""

    kind: ResultKind
    status: ResultStatus
    producer: StrictStr
    warnings: tuple[StrictStr, ...] = ()
    errors: tuple[StrictStr, ...] = ()
    metrics: tuple[Metric, ...] = ()
    breakdowns: tuple[Breakdown, ...] = ()
    mode: ResultMode | None = None
    checks: tuple[Check, ...] = ()
    entities: tuple[Entity, ...] = ()
    entity_kinds: tuple[EntityKind, ...] = ()
    advice: tuple[Advice, ...] = ()


class Tool(_Frozen):
    """The tool that wrote the document."""

    name: StrictStr
    version: StrictStr


class GitInfo(_Frozen):
    """Source revision of the producing tool."""

    mlia_commit: OptStr = None


class Context(_Frozen):
    """Run context."""

    runtime_configuration: OptObject = None
    git: GitInfo | None = None
    notes: OptStr = None
    cli_arguments: tuple[StrictStr, ...] = ()


class ModelInfo(_Frozen):
    """The analysed model file."""

    name: StrictStr
    format: StrictStr
    hash: Annotated[StrictStr, Field(pattern=r"^[0-9a-fA-F]{64}$")]
    size_bytes: Annotated[StrictInt, Field(ge=0)] | None = None


class Component(_Frozen):
    """A hardware component of the target."""

    type: ComponentType
    family: StrictStr
    model: OptStr = None
    variant: OptStr = None
    name: OptStr = None
    components: tuple[Component, ...] = ()


class Target(_Frozen):
    """The target profile (target schema 1.0.0)."""

    profile_name: StrictStr
    target_type: StrictStr
    description: OptStr = None
    host_platform: OptStr = None
    components: Annotated[tuple[Component, ...], Field(min_length=1)]
    configuration: JsonObject


class Backend(_Frozen):
    """A backend that contributed to the run."""

    id: StrictStr
    name: StrictStr
    version: StrictStr
    configuration: JsonObject
    impl: JsonObject | StrictStr | None = None


class Document(_Frozen):
    """A whole standardized-output document."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Annotated[StrictStr, Field(pattern=r"^\d+\.\d+\.\d+$")]
    timestamp: StrictStr
    tool: Tool
    run_id: StrictStr
    context: Context
    model: ModelInfo
    target: Target
    backends: Annotated[tuple[Backend, ...], Field(min_length=1)]
    results: tuple[Result, ...]
    extensions: OptObject = None


def json_path(location: tuple[int | str, ...]) -> str:
    """``('entities', 3, 'name')`` -> ``entities[3].name``."""
    text = ""
    for part in location:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text


def problems_from(error: ValidationError) -> list[Problem]:
    """Readable problems, one per pydantic error, located by JSON path."""
    problems: list[Problem] = []
    for detail in error.errors(include_url=False):
        location = tuple(part for part in detail["loc"] if not _is_union_tag(part))
        kind = detail["type"]
        if kind == "missing":
            field = location[-1] if location else "?"
            problems.append(Problem(json_path(location[:-1]), f"missing required field '{field}'"))
            continue
        message = detail["msg"]
        if kind == "value_error" and message.startswith("Value error, "):
            message = message[len("Value error, ") :]
        if kind == "literal_error":
            message = (
                f"{detail['input']!r} is not one of the allowed values: "
                + message.split("Input should be ", 1)[-1]
            )
        problems.append(Problem(json_path(location), message))
    return problems


def _is_union_tag(part: int | str) -> bool:
    return isinstance(part, str) and part in {"bool", "int", "float", "str", "function-after"}


def parse_result(raw: Any) -> Result:
    """The typed parse of one result; ``InputError`` (no source) with JSON paths."""
    if not isinstance(raw, Mapping):
        raise InputError(None, Problem("", f"expected an object, got {type(raw).__name__}"))
    try:
        return Result.model_validate(raw)
    except ValidationError as error:
        raise InputError(None, problems_from(error)) from None


def normalize_result(raw: Any) -> ResultJson:
    """The canonical JSON form of one result (see the module docstring).

    Plainly valid results take the fast path of ``document_canonical``; anything
    else goes through the models, which give the same form or the precise problem.
    """
    fast = canonical_result(raw)
    if fast is not None:
        return fast
    return cast(ResultJson, parse_result(raw).to_json())


def parse_document(raw: Any) -> Document:
    """The typed parse of a whole document (strict: unknown top-level keys rejected)."""
    try:
        return Document.model_validate(raw)
    except ValidationError as error:
        raise InputError(None, problems_from(error)) from None
