"""Framework provenance carried by ExecuTorch JSON labels.

A label that parses as a JSON *object* may hold ``aten_info`` (``node_name``,
``operator_name``) and ``torch_info`` (``nn_module_stack``, ``stack_trace``).
This module turns one such label into module frames (root to leaf) and code
frames (outermost caller first), and builds the ``nn_module`` and
``code_stack`` entities for them.

Identity rules: ``nn_module/<tracer_key>`` (a synthetic ``nn_module/<root>``
is prepended when the first key is not ``<root>``); a code stack is one
*prefix* of the frame list, ``code_stack/<basename>:<line>-<12 hex>`` where the
hex digits are the SHA-256 of the prefix written as ``file:line:function``
lines. No column is available from this source.
"""

from __future__ import annotations

import hashlib
import json
import ntpath
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

ROOT_MODULE = "<root>"
_FRAME = re.compile(
    r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<function>.+?))?\s*$'
)
_UNSAFE_ID_CHARS = re.compile(r"[\s/\\]+")


@dataclass(frozen=True)
class ModuleFrame:
    """One ``nn.Module`` on the stack: tracer key, qualified name and type."""

    key: str
    name: str
    module_type: str | None


@dataclass(frozen=True)
class CodeFrame:
    """One Python stack frame (file with ``/`` separators, 1-based line)."""

    file: str
    line: int
    function: str | None


@dataclass(frozen=True)
class Provenance:
    """What one JSON label says about where an operation came from."""

    display_name: str | None
    modules: tuple[ModuleFrame, ...]
    frames: tuple[CodeFrame, ...]


def parse_label(label: str) -> Provenance | None:
    """The provenance of an ExecuTorch JSON label, or ``None`` for any other label."""
    if not label.startswith("{"):
        return None
    try:
        payload = json.loads(label)
    except ValueError:
        return None
    if not isinstance(payload, dict):
        return None
    aten = payload.get("aten_info")
    torch = payload.get("torch_info")
    aten = aten if isinstance(aten, dict) else {}
    torch = torch if isinstance(torch, dict) else {}
    name = _first_string(aten.get("operator_name"), aten.get("node_name"))
    return Provenance(
        display_name=name,
        modules=_modules(torch.get("nn_module_stack")),
        frames=_frames(torch.get("stack_trace")),
    )


def display_name(label: str) -> str:
    """The name a label gives its operation: the ATen operator or node name, else the label."""
    provenance = parse_label(label)
    if provenance is not None and provenance.display_name:
        return provenance.display_name
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
            "name": module.name or module.key,
        }
        if parent is not None:
            entity["parent_ids"] = [parent]
        if module.module_type:
            entity["attributes"] = {"module_type": module.module_type}
        entities.append(entity)
        parent = entity["id"]
    return entities


def code_stack_entities(frames: Sequence[CodeFrame]) -> list[dict[str, Any]]:
    """One ``code_stack`` entity per prefix of ``frames``, outermost first (leaf last)."""
    entities: list[dict[str, Any]] = []
    prefix: list[str] = []
    parent: str | None = None
    for frame in frames:
        prefix.append(f"{frame.file}:{frame.line}:{frame.function or ''}")
        digest = hashlib.sha256("\n".join(prefix).encode("utf-8")).hexdigest()[:12]
        label = f"{_basename(frame.file)}:{frame.line}"
        attributes: dict[str, Any] = {"file": frame.file, "line": frame.line}
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


def _modules(value: object) -> tuple[ModuleFrame, ...]:
    frames: list[ModuleFrame] = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(item, list | tuple) and item:
                name = item[0] if isinstance(item[0], str) else str(key)
                module_type = item[1] if len(item) > 1 and isinstance(item[1], str) else None
                frames.append(ModuleFrame(str(key), name, module_type))
    elif isinstance(value, list):
        for item in value:
            frame = _module_from_item(item)
            if frame is not None:
                frames.append(frame)
    return tuple(frames)


def _module_from_item(item: object) -> ModuleFrame | None:
    if isinstance(item, Mapping):
        key = _first_string(item.get("tracer_key"), item.get("key"))
        if key is None:
            return None
        name = _first_string(item.get("qualified_name"), item.get("name"), item.get("module_name"))
        module_type = _first_string(
            item.get("module_type"), item.get("type"), item.get("class_name")
        )
        return ModuleFrame(key, name or key, module_type)
    if isinstance(item, list | tuple) and item and isinstance(item[0], str):
        name = item[1] if len(item) > 1 and isinstance(item[1], str) else item[0]
        module_type = item[2] if len(item) > 2 and isinstance(item[2], str) else None
        return ModuleFrame(item[0], name, module_type)
    return None


def _frames(value: object) -> tuple[CodeFrame, ...]:
    if isinstance(value, str):
        lines: list[object] = list(value.splitlines())
    elif isinstance(value, list):
        lines = list(value)
    else:
        return ()
    frames: list[CodeFrame] = []
    for line in lines:
        if not isinstance(line, str):
            continue
        for part in line.splitlines() or [line]:
            match = _FRAME.match(part)
            if match is None:
                continue
            frames.append(
                CodeFrame(
                    file=match.group("file").replace("\\", "/"),
                    line=int(match.group("line")),
                    function=match.group("function"),
                )
            )
    return tuple(frames)


def _basename(path: str) -> str:
    candidates = [posixpath.basename(path), ntpath.basename(path)]
    return min(candidates, key=len)


def _first_string(*values: object) -> str | None:
    for value in values:
        if isinstance(value, str) and value:
            return value
    return None
