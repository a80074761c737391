"""Strict reading of a capture's JSON documents (schema version 2).

Every document and nested object must have exactly its key set (missing and
extra keys are both errors), ``schema_version`` must be 2, references
``{id, path}`` must use the exact canonical spelling
(``pipeline_000003/pipeline.json``, ``session_000000/session.json``,
``dispatch_000012/dispatch.json``, relative to the owner's folder) and
artifacts ``{path, type, size}`` must be plain file names (direct children of
the owner's folder) with a positive size and an allowed type. Pure: the I/O
edge checks that the files exist with those sizes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core.errors import InputError, Problem

SCHEMA_VERSION = 2


@dataclass(frozen=True)
class Reference:
    """A child document: its id and its path relative to the owner's folder."""

    id: int
    path: str


@dataclass(frozen=True)
class Artifact:
    """A file next to its owner document."""

    path: str
    type: str
    size: int


@dataclass(frozen=True)
class Device:
    """A logical device of the capture."""

    id: int
    name: str
    vendor_id: int
    device_id: int


@dataclass(frozen=True)
class CaptureDocument:
    """``capture.json``."""

    mode: int
    layer: Mapping[str, Any]
    devices: tuple[Device, ...]
    warnings: tuple[str, ...]
    pipelines: tuple[Reference, ...]


@dataclass(frozen=True)
class PipelineDocument:
    """``pipeline.json``: its artifacts by type and its sessions."""

    id: int
    friendly_name: str
    device_id: int
    module_id: int
    artifacts: Mapping[str, Artifact]
    sessions: tuple[Reference, ...]


@dataclass(frozen=True)
class SessionDocument:
    """``session.json``."""

    id: int
    pipeline_id: int
    device_id: int
    dispatches: tuple[Reference, ...]


@dataclass(frozen=True)
class DispatchDocument:
    """``dispatch.json`` with its statistics artifact."""

    id: int
    session_id: int
    executed_index: int
    statistics: Artifact


CAPTURE_KEYS = ("schema_version", "status", "error", "capture", "devices", "warnings", "pipelines")
LAYER_KEYS = (
    "layer_name",
    "layer_version",
    "commit_identity",
    "layer_implementation_version",
    "statistics_mode",
    "dispatch_filter",
)
DEVICE_KEYS = ("id", "name", "vendor_id", "device_id", "driver_version", "api_version")
PIPELINE_KEYS = (
    "schema_version",
    "id",
    "friendly_name",
    "diagnostic_handle",
    "flags",
    "pipeline_layout_handle",
    "resource_bindings",
    "vendor_options",
    "identifier_only",
    "foreign_processing_engine",
    "device_id",
    "statistics_enabled",
    "shader",
    "artifacts",
    "sessions",
)
SHADER_KEYS = (
    "module_id",
    "spirv_available",
    "friendly_name",
    "entry_point",
    "specialization_entries",
    "specialization_data_size",
)
SESSION_KEYS = (
    "schema_version",
    "id",
    "pipeline_id",
    "device_id",
    "friendly_name",
    "diagnostic_handle",
    "flags",
    "dispatches",
)
DISPATCH_KEYS = (
    "schema_version",
    "id",
    "session_id",
    "executed_index",
    "diagnostic_command_buffer_handle",
    "artifacts",
)
REFERENCE_KEYS = ("id", "path")
ARTIFACT_KEYS = ("path", "type", "size")


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> InputError:
        return InputError(self.source, Problem(where, message))

    def object(self, value: Any, keys: Sequence[str], where: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(where, f"expected an object, got {_type(value)}")
        missing = [key for key in keys if key not in value]
        extra = sorted(str(key) for key in value if key not in keys)
        problems = []
        if missing:
            problems.append(Problem(where, "missing key(s) " + ", ".join(map(repr, missing))))
        if extra:
            problems.append(Problem(where, "unexpected key(s) " + ", ".join(map(repr, extra))))
        if problems:
            raise InputError(self.source, problems)
        return value

    def integer(self, value: Any, where: str, *, minimum: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(where, f"expected an integer >= {minimum}, got {value!r}")
        return value

    def string(self, value: Any, where: str, *, non_empty: bool = False) -> str:
        if not isinstance(value, str) or (non_empty and not value):
            wanted = "a non-empty string" if non_empty else "a string"
            raise self.fail(where, f"expected {wanted}, got {value!r}")
        return value

    def array(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, f"expected an array, got {_type(value)}")
        return value

    def schema_version(self, document: Mapping[str, Any]) -> None:
        if document["schema_version"] != SCHEMA_VERSION or isinstance(
            document["schema_version"], bool
        ):
            raise self.fail(
                "$.schema_version",
                f"expected {SCHEMA_VERSION}, got {document['schema_version']!r}",
            )

    def references(self, value: Any, where: str, spelling: str) -> tuple[Reference, ...]:
        references: list[Reference] = []
        for index, item in enumerate(self.array(value, where)):
            at = f"{where}[{index}]"
            entry = self.object(item, REFERENCE_KEYS, at)
            identifier = self.integer(entry["id"], f"{at}.id")
            path = self.string(entry["path"], f"{at}.path")
            expected = spelling.format(identifier)
            if path != expected:
                raise self.fail(
                    f"{at}.path", f"expected the canonical path {expected!r}, got {path!r}"
                )
            references.append(Reference(identifier, path))
        return tuple(references)

    def artifacts(self, value: Any, where: str, allowed: Sequence[str]) -> list[Artifact]:
        artifacts: list[Artifact] = []
        for index, item in enumerate(self.array(value, where)):
            at = f"{where}[{index}]"
            entry = self.object(item, ARTIFACT_KEYS, at)
            path = self.string(entry["path"], f"{at}.path", non_empty=True)
            if "/" in path or "\\" in path or path in (".", ".."):
                raise self.fail(
                    f"{at}.path", f"expected a file name inside the document's folder, got {path!r}"
                )
            kind = self.string(entry["type"], f"{at}.type")
            if kind not in allowed:
                raise self.fail(f"{at}.type", f"expected one of {', '.join(allowed)}, got {kind!r}")
            size = self.integer(entry["size"], f"{at}.size", minimum=1)
            artifacts.append(Artifact(path, kind, size))
        return artifacts


def _type(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def read_capture_document(document: Any, source: str) -> CaptureDocument:
    """Validate ``capture.json``."""
    reader = _Reader(source)
    root = reader.object(document, CAPTURE_KEYS, "$")
    reader.schema_version(root)
    if root["status"] != "complete":
        raise reader.fail("$.status", f"expected 'complete', got {root['status']!r}")
    if root["error"] is not None:
        raise reader.fail("$.error", f"expected null, got {root['error']!r}")
    layer = reader.object(root["capture"], LAYER_KEYS, "$.capture")
    reader.string(layer["layer_name"], "$.capture.layer_name", non_empty=True)
    reader.integer(layer["layer_implementation_version"], "$.capture.layer_implementation_version")
    mode = layer["statistics_mode"]
    if mode not in (0, 1) or isinstance(mode, bool):
        raise reader.fail("$.capture.statistics_mode", f"expected 0 or 1, got {mode!r}")
    devices: list[Device] = []
    raw_devices = reader.array(root["devices"], "$.devices")
    if not raw_devices:
        raise reader.fail("$.devices", "expected at least one device")
    for index, item in enumerate(raw_devices):
        at = f"$.devices[{index}]"
        entry = reader.object(item, DEVICE_KEYS, at)
        devices.append(
            Device(
                id=reader.integer(entry["id"], f"{at}.id"),
                name=reader.string(entry["name"], f"{at}.name", non_empty=True),
                vendor_id=reader.integer(entry["vendor_id"], f"{at}.vendor_id"),
                device_id=reader.integer(entry["device_id"], f"{at}.device_id"),
            )
        )
    warnings = tuple(
        reader.string(item, f"$.warnings[{index}]")
        for index, item in enumerate(reader.array(root["warnings"], "$.warnings"))
    )
    pipelines = reader.references(root["pipelines"], "$.pipelines", "pipeline_{:06d}/pipeline.json")
    return CaptureDocument(int(mode), dict(layer), tuple(devices), warnings, pipelines)


def read_pipeline_document(document: Any, source: str, expected_id: int) -> PipelineDocument:
    """Validate ``pipeline.json`` (its id must be the one its reference gave)."""
    reader = _Reader(source)
    root = reader.object(document, PIPELINE_KEYS, "$")
    reader.schema_version(root)
    identifier = _expect_id(reader, root["id"], expected_id, "$.id")
    if root["statistics_enabled"] is not True:
        raise reader.fail(
            "$.statistics_enabled", f"expected true, got {root['statistics_enabled']!r}"
        )
    shader = reader.object(root["shader"], SHADER_KEYS, "$.shader")
    module_id = reader.integer(shader["module_id"], "$.shader.module_id")
    if shader["spirv_available"] is not True:
        raise reader.fail("$.shader.spirv_available", "expected true (the SPIR-V module is needed)")
    for index, item in enumerate(
        reader.array(shader["specialization_entries"], "$.shader.specialization_entries")
    ):
        reader.object(
            item, ("constant_id", "offset", "size"), f"$.shader.specialization_entries[{index}]"
        )
    for index, item in enumerate(reader.array(root["resource_bindings"], "$.resource_bindings")):
        reader.object(
            item, ("descriptor_set", "binding", "array_element"), f"$.resource_bindings[{index}]"
        )
    artifacts = reader.artifacts(
        root["artifacts"], "$.artifacts", ("debug_database", "statistics_info", "shader_module")
    )
    by_type: dict[str, Artifact] = {}
    for artifact in artifacts:
        if artifact.type in by_type:
            raise reader.fail("$.artifacts", f"more than one {artifact.type!r} artifact")
        by_type[artifact.type] = artifact
    expected_names = {
        "debug_database": ("debug_database.bin",),
        "statistics_info": ("neural_statistics_info.bin", "neural_statistics_info.txt"),
        "shader_module": (f"shader_module_{module_id}.spv",),
    }
    for kind, names in expected_names.items():
        found = by_type.get(kind)
        if found is None:
            raise reader.fail("$.artifacts", f"missing the {kind!r} artifact")
        if found.path not in names:
            raise reader.fail(
                "$.artifacts",
                f"the {kind!r} artifact must be named {' or '.join(names)}, got {found.path!r}",
            )
    return PipelineDocument(
        id=identifier,
        friendly_name=reader.string(root["friendly_name"], "$.friendly_name"),
        device_id=reader.integer(root["device_id"], "$.device_id"),
        module_id=module_id,
        artifacts=by_type,
        sessions=reader.references(root["sessions"], "$.sessions", "session_{:06d}/session.json"),
    )


def read_session_document(
    document: Any, source: str, expected_id: int, pipeline: PipelineDocument
) -> SessionDocument:
    """Validate ``session.json`` against its pipeline."""
    reader = _Reader(source)
    root = reader.object(document, SESSION_KEYS, "$")
    reader.schema_version(root)
    identifier = _expect_id(reader, root["id"], expected_id, "$.id")
    _expect_id(reader, root["pipeline_id"], pipeline.id, "$.pipeline_id")
    device = reader.integer(root["device_id"], "$.device_id")
    if device != pipeline.device_id:
        raise reader.fail(
            "$.device_id",
            f"session device {device} differs from the pipeline's {pipeline.device_id}",
        )
    return SessionDocument(
        id=identifier,
        pipeline_id=pipeline.id,
        device_id=device,
        dispatches=reader.references(
            root["dispatches"], "$.dispatches", "dispatch_{:06d}/dispatch.json"
        ),
    )


def read_dispatch_document(
    document: Any, source: str, expected_id: int, session_id: int, mode: int
) -> DispatchDocument:
    """Validate ``dispatch.json``: one ``statistics_mode<mode>.bin`` artifact."""
    reader = _Reader(source)
    root = reader.object(document, DISPATCH_KEYS, "$")
    reader.schema_version(root)
    identifier = _expect_id(reader, root["id"], expected_id, "$.id")
    _expect_id(reader, root["session_id"], session_id, "$.session_id")
    artifacts = reader.artifacts(root["artifacts"], "$.artifacts", ("dispatch_statistics",))
    if len(artifacts) != 1:
        raise reader.fail(
            "$.artifacts",
            f"expected exactly one 'dispatch_statistics' artifact, got {len(artifacts)}",
        )
    expected = f"statistics_mode{mode}.bin"
    if artifacts[0].path != expected:
        raise reader.fail(
            "$.artifacts[0].path",
            f"expected {expected!r} for a mode-{mode} capture, got {artifacts[0].path!r}",
        )
    return DispatchDocument(
        id=identifier,
        session_id=session_id,
        executed_index=reader.integer(root["executed_index"], "$.executed_index"),
        statistics=artifacts[0],
    )


def _expect_id(reader: _Reader, value: Any, expected: int, where: str) -> int:
    identifier = reader.integer(value, where)
    if identifier != expected:
        raise reader.fail(where, f"expected {expected} (as referenced), got {identifier}")
    return identifier
