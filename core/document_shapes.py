"""The shapes of a standardized-output document (schema 1.2.0), written once.

Each record of a *valid* document is a ``TypedDict`` here, its fields in the
schema's canonical key order, the required ones marked ``Required``; the
closed value sets are ``Literal`` aliases. Everything else that needs the
schema's field names takes them from this module:

* the canonical key orders (``key_order``: ``METRIC_KEY_ORDER``,
  ``ENTITY_KEY_ORDER``, ...) and required fields (``required_keys``) that the
  checked fast path ``document_canonical`` and ``validation`` use;
* the enum sets (``RESULT_KINDS``, ``STATUSES``, ...), from the ``Literal``
  aliases, which the pydantic models of ``document`` use as their field types;
* the metric view: ``METRIC_KEY_ORDER``, ``METRIC_REQUIRED_KEYS`` and
  ``SUM_METRIC_KEYS`` (the canonical form of a plain ``sum`` metric), from
  which ``document_canonical.metric_view`` is written;
* the types the stages exchange: a normalized result is a ``ResultJson``
  (what ``document_canonical.canonical_result`` returns), so a misspelled key
  or a wrong value type in a stage fails mypy.

The pydantic models (``document``) state the same fields with their
validators; ``tests/core/document/test_schema_once.py`` holds the models, these
shapes and the canonical forms together field by field.

A shape describes a record *after* it was checked (normalized): the values
are of the declared types. Code that reads unchecked JSON (``validation``,
``kinds``, the input side of ``document_canonical``) must not read it through
these types: in the compiled build mypyc checks every value it reads from a
``TypedDict`` against the declared type and would raise ``TypeError`` where
the reference reports a problem.

Pure Python, never compiled: mypyc builds a ``TypedDict`` class without its
required and optional key sets, and this module holds no code that runs per
record (the compiled modules copy what they use into their own ``Final``
names). For the same reason there is no ``from __future__ import
annotations`` here: Python 3.11 only recognizes ``Required`` in evaluated
annotations. Cost: built once at import, a few microseconds.
"""

from typing import Any, Final, Literal, Required, TypedDict, get_args, is_typeddict

#: A free-form JSON object (attributes, qualifiers, details, configuration).
JsonObject = dict[str, Any]

ResultKind = Literal["compatibility", "performance"]
ResultStatus = Literal["ok", "partial", "incompatible", "failed", "skipped"]
ResultMode = Literal["measured", "simulated", "predicted"]
CheckStatus = Literal["pass", "fail", "partial"]
AdviceCategory = Literal["compatibility", "performance", "optimization"]
AdviceSeverity = Literal["info", "warning", "error"]
ComponentType = Literal["cpu", "npu", "gpu", "dsp", "specification", "soc"]
MetricAvailability = Literal["unavailable"]
#: Entity kinds the schema defines (a result must not declare them).
WellKnownKind = Literal["source_operator", "model", "code_stack", "code_line"]
#: Entity keys of older schemas that the typed parse rejects ("locations" first:
#: it has its own message).
LegacyEntityField = Literal["locations", "parent_id", "scope", "subgraph_kind"]


class MetricJson(TypedDict, total=False):
    """A figure: numeric (``value``) or unavailable (``availability`` and ``reason``).

    The two shapes exclude each other (``NUMERIC_METRIC_KEYS``,
    ``UNAVAILABLE_METRIC_KEYS``); ``value`` may be a bool (JSON ``true`` is a
    number to the reference, never summed)."""

    name: Required[str]
    unit: Required[str]
    value: int | float
    aggregation: str
    samples: int
    qualifiers: JsonObject
    availability: MetricAvailability
    reason: str


class BreakdownJson(TypedDict, total=False):
    """Metrics linked to one entity of the same result."""

    entity_id: Required[str]
    metrics: Required[list[MetricJson]]
    id: str
    qualifiers: JsonObject


class CheckJson(TypedDict, total=False):
    """A pass/fail/partial check, optionally about one entity."""

    id: Required[str]
    status: Required[CheckStatus]
    entity_id: str
    details: JsonObject


class AdviceJson(TypedDict, total=False):
    """Result-level advice, optionally naming the entities it is about."""

    id: Required[str]
    category: Required[AdviceCategory]
    severity: Required[AdviceSeverity]
    message: Required[str]
    affected_entity_ids: list[str]
    details: JsonObject


class EntityJson(TypedDict, total=False):
    """One node of the result's entity graph; ids are opaque."""

    id: Required[str]
    kind: Required[str]
    name: Required[str]
    placement: str
    parent_ids: list[str]
    child_ids: list[str]
    attributes: JsonObject
    stack_trace: str


class EntityKindJson(TypedDict, total=False):
    """Declaration of a backend entity kind and its parent and child kinds."""

    id: Required[str]
    parent_kinds: list[str]
    child_kinds: list[str]


class ResultJson(TypedDict, total=False):
    """One analysis result, normalized: what every post-processing stage takes and gives."""

    kind: Required[ResultKind]
    status: Required[ResultStatus]
    producer: Required[str]
    warnings: list[str]
    errors: list[str]
    metrics: list[MetricJson]
    breakdowns: list[BreakdownJson]
    mode: ResultMode
    checks: list[CheckJson]
    entities: list[EntityJson]
    entity_kinds: list[EntityKindJson]
    advice: list[AdviceJson]


class ToolJson(TypedDict):
    """The tool that wrote the document."""

    name: str
    version: str


class GitInfoJson(TypedDict, total=False):
    """Source revision of the producing tool."""

    mlia_commit: str


class ContextJson(TypedDict, total=False):
    """Run context (only its presence is checked)."""

    runtime_configuration: JsonObject
    git: GitInfoJson
    notes: str
    cli_arguments: list[str]


class ModelJson(TypedDict, total=False):
    """The analysed model file."""

    name: Required[str]
    format: Required[str]
    hash: Required[str]
    size_bytes: int


class ComponentJson(TypedDict, total=False):
    """A hardware component of the target."""

    type: Required[ComponentType]
    family: Required[str]
    model: str
    variant: str
    name: str
    components: list["ComponentJson"]


class TargetJson(TypedDict, total=False):
    """The target profile (target schema 1.0.0)."""

    profile_name: Required[str]
    target_type: Required[str]
    description: str
    host_platform: str
    components: Required[list[ComponentJson]]
    configuration: Required[JsonObject]


class BackendJson(TypedDict, total=False):
    """A backend that contributed to the run."""

    id: Required[str]
    name: Required[str]
    version: Required[str]
    configuration: Required[JsonObject]
    impl: JsonObject | str


class DocumentJson(TypedDict, total=False):
    """A whole document, its keys in the order perfline writes them (``envelope``)."""

    schema_version: Required[str]
    timestamp: Required[str]
    tool: Required[ToolJson]
    run_id: Required[str]
    context: Required[ContextJson]
    model: Required[ModelJson]
    target: Required[TargetJson]
    backends: Required[list[BackendJson]]
    results: Required[list[ResultJson]]
    extensions: JsonObject


class PerflineExtensionJson(TypedDict, total=False):
    """``extensions.perfline``: what perfline records in a document.

    ``postprocessed``: the pipeline's mark (a marked document is returned as it
    is). ``run_samples``: a list parallel to ``results``; item *i* maps an entity
    id of result *i* to, per metric name, that metric's per-run values (in its
    unit, in run order, warm-up runs left out). ``result_run_samples``: the same for
    each result's own (model-level) metrics, item *i* mapping a metric name to its per-run
    values (``docs/results.md``). Other keys are kept."""

    postprocessed: bool
    run_samples: list[dict[str, dict[str, list[int | float]]]]
    result_run_samples: list[dict[str, list[int | float]]]


class CodeLocationJson(TypedDict, total=False):
    """The conventional ``attributes`` of ``code_stack`` and ``code_line`` entities:
    their source location (NX adds ``function``). Attributes are free-form, so a
    stage reads them as unchecked JSON (a ``line`` may be a string) and keeps
    only what has these types."""

    file: str
    line: int
    function: str


#: Every record shape of a document, by the name of the pydantic model that states it.
SHAPES: Final[dict[str, type]] = {
    "Metric": MetricJson,
    "Breakdown": BreakdownJson,
    "Check": CheckJson,
    "Advice": AdviceJson,
    "Entity": EntityJson,
    "EntityKind": EntityKindJson,
    "Result": ResultJson,
    "Tool": ToolJson,
    "GitInfo": GitInfoJson,
    "Context": ContextJson,
    "ModelInfo": ModelJson,
    "Component": ComponentJson,
    "Target": TargetJson,
    "Backend": BackendJson,
    "Document": DocumentJson,
}


def key_order(shape: type) -> tuple[str, ...]:
    """The keys of ``shape`` in the schema's canonical order."""
    if not is_typeddict(shape):
        raise TypeError(f"{shape!r} is not a TypedDict")
    return tuple(shape.__annotations__)


def required_keys(shape: type) -> tuple[str, ...]:
    """The required keys of ``shape``, in canonical order."""
    required: frozenset[str] = getattr(shape, "__required_keys__")  # noqa: B009
    return tuple(key for key in key_order(shape) if key in required)


def keys_of(shape: type, *keys: str) -> tuple[str, ...]:
    """``keys``, which must all be keys of ``shape``, in its canonical order
    (a misspelled key fails at import)."""
    order = key_order(shape)
    unknown = [key for key in keys if key not in order]
    if unknown:
        raise KeyError(f"{shape.__name__} has no key {unknown[0]!r}")
    return tuple(key for key in order if key in keys)


def _values(alias: Any) -> frozenset[str]:
    return frozenset(get_args(alias))


RESULT_KEY_ORDER: Final = key_order(ResultJson)
METRIC_KEY_ORDER: Final = key_order(MetricJson)
BREAKDOWN_KEY_ORDER: Final = key_order(BreakdownJson)
CHECK_KEY_ORDER: Final = key_order(CheckJson)
ADVICE_KEY_ORDER: Final = key_order(AdviceJson)
ENTITY_KEY_ORDER: Final = key_order(EntityJson)
ENTITY_KIND_KEY_ORDER: Final = key_order(EntityKindJson)
DOCUMENT_KEY_ORDER: Final = key_order(DocumentJson)

#: Keys a metric keeps in its view even when empty (the others are left out).
METRIC_REQUIRED_KEYS: Final = required_keys(MetricJson)
#: The canonical form of a plain summable metric: by far the most common one.
SUM_METRIC_KEYS: Final = keys_of(MetricJson, "name", "unit", "value", "aggregation")
#: The keys of each of the metric's two shapes.
NUMERIC_METRIC_KEYS: Final = keys_of(
    MetricJson, "name", "unit", "value", "aggregation", "samples", "qualifiers"
)
UNAVAILABLE_METRIC_KEYS: Final = keys_of(
    MetricJson, "name", "unit", "qualifiers", "availability", "reason"
)
#: The list fields of an entity that name other entities, parents first.
ENTITY_LINK_KEYS: Final = keys_of(EntityJson, "parent_ids", "child_ids")
#: The list fields of a kind declaration that name other kinds, parents first.
KIND_LINK_KEYS: Final = keys_of(EntityKindJson, "parent_kinds", "child_kinds")

RESULT_KINDS: Final = _values(ResultKind)
STATUSES: Final = _values(ResultStatus)
MODES: Final = _values(ResultMode)
CHECK_STATUSES: Final = _values(CheckStatus)
ADVICE_CATEGORIES: Final = _values(AdviceCategory)
ADVICE_SEVERITIES: Final = _values(AdviceSeverity)
COMPONENT_TYPES: Final = _values(ComponentType)
WELL_KNOWN_KINDS: Final = _values(WellKnownKind)
UNAVAILABLE: Final[MetricAvailability] = get_args(MetricAvailability)[0]
LEGACY_ENTITY_FIELDS: Final[tuple[str, ...]] = get_args(LegacyEntityField)

#: ``extensions`` key under which perfline records its own facts.
PERFLINE_EXTENSION: Final = "perfline"
