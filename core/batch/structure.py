"""What of a run is not a figure: the structure an aggregate document is built on.

``run_structure`` keeps, from a processed document, what every run of one model on one
runtime shares: the model and target records, each backend's id, name and version (its
configuration names the run's own input files, so it is left out), and per result its
kind, status, producer and mode, its entities and entity kinds (the graph the figures
hang on: code lines, stacks, modules, operators), and its result-level metrics that are
unavailable (they carry a reason, not a figure). ``structure_key`` is the SHA-256 of its
compact JSON: runs of one model share it, so the store keeps each structure once.

Pure; linear in the entities.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final

#: Keys of a backend record kept in a structure.
_BACKEND_KEYS: Final = ("id", "name", "version")
#: Keys of a result kept in a structure.
_RESULT_KEYS: Final = ("kind", "status", "producer", "mode", "entities", "entity_kinds")


def run_structure(document: Mapping[str, Any]) -> dict[str, Any]:
    """The structure of a processed document (see the module docstring)."""
    backends = [
        {**{key: backend[key] for key in _BACKEND_KEYS if key in backend}, "configuration": {}}
        for backend in _records(document.get("backends"))
    ]
    results = []
    for result in _records(document.get("results")):
        kept = {key: result[key] for key in _RESULT_KEYS if key in result}
        kept["unavailable_metrics"] = [
            metric for metric in _records(result.get("metrics")) if "value" not in metric
        ]
        results.append(kept)
    return {
        "model": document.get("model"),
        "target": document.get("target"),
        "backends": backends,
        "results": results,
    }


def canonical_text(structure: Mapping[str, Any]) -> str:
    """The structure as compact JSON, keys in the document's order (what is stored and
    hashed: one producer writes one model's structure the same way every run)."""
    return json.dumps(structure, separators=(",", ":"), ensure_ascii=False)


def structure_key(text: str) -> str:
    """The SHA-256 (hex) of a structure's canonical text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _records(value: object) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []
