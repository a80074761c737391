"""``nn_module`` and ``code_stack`` entities from ExecuTorch JSON labels.

Label parsing (``aten_info``, ``torch_info.nn_module_stack``,
``torch_info.stack_trace``) is shared with the model-format readers
(``perfline.core.formats.identity.parse_json_label``); this module decides the
entities. Identity rules: ``nn_module/<tracer_key>``, chained root to leaf, with
a synthetic ``nn_module/<root>`` prepended when the first key is not
``<root>``; a code stack is one *prefix* of the frame list (outermost caller
first), ``code_stack/<basename>:<line>-<12 hex>`` where the hex digits are the
SHA-256 of the prefix written as ``file:line:function`` lines. No column is
available from this source.
"""

from __future__ import annotations

import hashlib
import ntpath
import posixpath
import re
from collections.abc import Sequence
from typing import Any

from perfline.core.formats.identity import (
    LabelProvenance,
    ModuleFrame,
    SourceFrame,
    parse_json_label,
)

ROOT_MODULE = "<root>"
_UNSAFE_ID_CHARS = re.compile(r"[\s/\\]+")

Provenance = LabelProvenance


def parse_label(label: str) -> LabelProvenance | None:
    """The provenance of an ExecuTorch JSON label, or ``None`` for any other label."""
    try:
        return parse_json_label(label)
    except RecursionError:  # absurdly nested JSON is not a provenance label
        return None


def display_name(label: str) -> str:
    """The name a label gives its operation: the ATen operator or node name, else the label."""
    provenance = parse_label(label)
    if provenance is not None:
        return provenance.operator_name or provenance.node_name or label
    return label


class ProvenanceMemo:
    """Parsed labels, remembered: one segment's labels are parsed once per build."""

    def __init__(self) -> None:
        self._parsed: dict[str, LabelProvenance | None] = {}

    def parse(self, label: str) -> LabelProvenance | None:
        """``parse_label(label)``, computed once per label."""
        if label not in self._parsed:
            self._parsed[label] = parse_label(label)
        return self._parsed[label]

    def display_name(self, label: str) -> str:
        """``display_name(label)`` using the remembered parse."""
        provenance = self.parse(label)
        if provenance is not None:
            return provenance.operator_name or provenance.node_name or label
        return label


def module_entities(modules: Sequence[ModuleFrame]) -> list[dict[str, Any]]:
    """``nn_module`` entities root to leaf, each parenting the next (leaf last)."""
    if not modules:
        return []
    chain = list(modules)
    if chain[0].key != ROOT_MODULE:
        chain.insert(0, ModuleFrame(ROOT_MODULE, ROOT_MODULE, None))
    entities: list[dict[str, Any]] = []
    parent: str | None = None
    for module in chain:
        entity: dict[str, Any] = {
            "id": f"nn_module/{module.key}",
            "kind": "nn_module",
            "name": module.path or module.type or module.key,
        }
        if parent is not None:
            entity["parent_ids"] = [parent]
        if module.type:
            entity["attributes"] = {"module_type": module.type}
        entities.append(entity)
        parent = entity["id"]
    return entities


def code_stack_entities(frames: Sequence[SourceFrame]) -> list[dict[str, Any]]:
    """One ``code_stack`` entity per prefix of ``frames``, outermost first (leaf last)."""
    entities: list[dict[str, Any]] = []
    prefix: list[str] = []
    parent: str | None = None
    for frame in frames:
        file = frame.file.replace("\\", "/")
        prefix.append(f"{file}:{frame.line}:{frame.function or ''}")
        digest = hashlib.sha256("\n".join(prefix).encode("utf-8")).hexdigest()[:12]
        label = f"{_basename(file)}:{frame.line}"
        attributes: dict[str, Any] = {"file": file, "line": frame.line}
        if frame.function:
            attributes["function"] = frame.function
        entity: dict[str, Any] = {
            "id": f"code_stack/{_UNSAFE_ID_CHARS.sub('_', label)}-{digest}",
            "kind": "code_stack",
            "name": label,
        }
        if parent is not None:
            entity["parent_ids"] = [parent]
        entity["attributes"] = attributes
        entities.append(entity)
        parent = entity["id"]
    return entities


def _basename(path: str) -> str:
    return min(posixpath.basename(path), ntpath.basename(path), key=len)
