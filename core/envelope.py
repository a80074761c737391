"""The top-level envelope of a standardized-output document.

Backends build results; this module wraps them in the schema-1.2.0 document
(`schema_version`, `timestamp`, `tool`, `run_id`, `context`, `model`,
`target`, `backends`, `results`). It is pure: the caller passes the timestamp
(the daemon and CLI use the newest input's modification time, so the same
inputs give the same bytes) and the run id is derived from the inputs'
content hashes. Keys come in the order of ``document_shapes.DocumentJson``;
the parts a backend supplies are unchecked until the post-processing
validates the document, so it is returned as plain JSON.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from perfline import __version__
from perfline.core.document_shapes import DOCUMENT_KEY_ORDER, ModelJson, ToolJson

SCHEMA_VERSION = "1.2.0"
_RUN_ID_NAMESPACE = uuid.UUID("6f0b7e2c-4f5b-4c1e-9a55-3d0f2c1d7a10")


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` as 64 lowercase hex digits (the schema's hash format)."""
    return hashlib.sha256(data).hexdigest()


def run_id_for(content_hashes: Iterable[str]) -> str:
    """A run id that depends only on the inputs' content (UUID v5 of the sorted hashes)."""
    return str(uuid.uuid5(_RUN_ID_NAMESPACE, "\n".join(sorted(content_hashes))))


def iso_timestamp(seconds_since_epoch: float) -> str:
    """An ISO-8601 UTC timestamp with second precision, e.g. ``2026-01-01T00:00:00Z``."""
    moment = datetime.fromtimestamp(int(seconds_since_epoch), tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def build_document(
    *,
    results: Sequence[Mapping[str, Any]],
    model: Mapping[str, Any],
    target: Mapping[str, Any],
    backends: Sequence[Mapping[str, Any]],
    timestamp: str,
    run_id: str,
    context: Mapping[str, Any] | None = None,
    extensions: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A complete document in the schema's key order."""
    tool: ToolJson = {"name": "perfline", "version": __version__}
    parts: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "timestamp": timestamp,
        "tool": tool,
        "run_id": run_id,
        "context": dict(context) if context is not None else {},
        "model": dict(model),
        "target": dict(target),
        "backends": [dict(backend) for backend in backends],
        "results": [dict(result) for result in results],
    }
    if extensions:
        parts["extensions"] = dict(extensions)
    return in_document_order(parts)


def in_document_order(parts: Mapping[str, Any]) -> dict[str, Any]:
    """``parts`` with its keys in the order of ``DocumentJson``; ``KeyError`` for a key
    that is not a document field."""
    unknown = [key for key in parts if key not in DOCUMENT_KEY_ORDER]
    if unknown:
        raise KeyError(f"not a document field: {unknown[0]!r}")
    return {key: parts[key] for key in DOCUMENT_KEY_ORDER if key in parts}


def model_info(name: str, model_format: str, content: bytes) -> ModelJson:
    """The ``model`` object for a model file's name, format and bytes."""
    return {
        "name": name,
        "format": model_format,
        "hash": sha256_hex(content),
        "size_bytes": len(content),
    }
