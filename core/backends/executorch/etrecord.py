"""Reading an ExecuTorch ETRecord without ExecuTorch or torch.

An ETRecord is a zip archive. The members used here are JSON:

* ``exported_program``: the program as exported by ``torch.export`` (its
  top-level graph's node names are the PT2 source-operator identities);
* ``edge_dialect_exported_program/<method>``: the edge-dialect graph of each
  method, whose nodes carry ``metadata.debug_handle`` (the link to runtime
  instructions), ``stack_trace``, ``nn_module_stack``
  (``key,path,type;...``) and ``from_node`` (the chain of nodes each node was
  made from, back to the exported program);
* ``debug_handle_map``: method -> instruction id -> debug handle(s);
* ``delegate_map``: method -> delegate instruction id -> ``{name,
  delegate_map}`` (delegate debug id -> debug handles, possibly empty);
* ``export_graph_id`` (optional): the Python id of the exported graph, as
  recorded in ``from_node`` entries.

Pickled members (state dicts, example inputs) are never read.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from perfline.core.errors import InputError, Problem
from perfline.core.formats.identity import (
    ModuleFrame,
    SourceFrame,
    parse_module_stack,
    parse_stack_trace,
)
from perfline.core.formats.zip_archive import UNREADABLE_ZIP
from perfline.core.json_codec import limit_problem

EXPORTED_PROGRAM = "exported_program"
EDGE_PREFIX = "edge_dialect_exported_program/"
DEBUG_HANDLE_MAP = "debug_handle_map"
DELEGATE_MAP = "delegate_map"
EXPORT_GRAPH_ID = "export_graph_id"
_SIDE_SUFFIXES = ("_state_dict", "_constants", "_example_inputs")
_MAX_ORIGINS = 10_000
#: Largest JSON member read (decompressed), against zip bombs.
MAX_MEMBER_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class GraphNode:
    """One ``call_function`` node of a serialized graph."""

    name: str
    target: str
    debug_handles: tuple[int, ...]
    frames: tuple[SourceFrame, ...]
    """Stack frames of ``metadata.stack_trace``, outermost caller first."""
    module_stack: tuple[ModuleFrame, ...]
    origins: tuple[tuple[str, int | None], ...]
    """``from_node`` entries flattened depth first: (node name, graph id)."""


@dataclass(frozen=True)
class Delegate:
    """A delegate call instruction: backend name and its per-delegate-id debug handles."""

    backend: str
    debug_ids: Mapping[str, tuple[int, ...]]


@dataclass(frozen=True)
class ETRecord:
    """The parts of an ETRecord the measured backend needs."""

    methods: tuple[str, ...]
    exported_nodes: tuple[GraphNode, ...]
    export_graph_id: int | None
    edge_graphs: Mapping[str, tuple[GraphNode, ...]]
    debug_handle_map: Mapping[str, Mapping[int, tuple[int, ...]]]
    delegate_map: Mapping[str, Mapping[int, Delegate]]


def read_etrecord(data: bytes, source: str) -> ETRecord:
    """Decode an ETRecord archive; malformed content raises ``InputError`` naming the member."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except UNREADABLE_ZIP as error:
        raise InputError(
            source, Problem("", f"not a zip archive (ETRecord expected): {error}")
        ) from None
    with archive:
        names = set(archive.namelist())
        methods = tuple(
            sorted(
                name[len(EDGE_PREFIX) :]
                for name in names
                if name.startswith(EDGE_PREFIX)
                and not name.endswith(_SIDE_SUFFIXES)
                and "/" not in name[len(EDGE_PREFIX) :]
            )
        )
        missing = [m for m in (EXPORTED_PROGRAM, DEBUG_HANDLE_MAP, DELEGATE_MAP) if m not in names]
        if not methods:
            missing.append(f"{EDGE_PREFIX}<method>")
        if missing:
            raise InputError(
                source,
                Problem(
                    "zip members",
                    "missing ETRecord member(s) "
                    + ", ".join(repr(m) for m in missing)
                    + "; present: "
                    + ", ".join(sorted(names)[:12]),
                ),
            )
        reader = _MemberReader(archive, source)
        exported = _graph_nodes(reader.json(EXPORTED_PROGRAM), source, EXPORTED_PROGRAM)
        edges = {
            method: _graph_nodes(reader.json(EDGE_PREFIX + method), source, EDGE_PREFIX + method)
            for method in methods
        }
        handle_map = _debug_handle_map(reader.json(DEBUG_HANDLE_MAP), source)
        delegate_map = _delegate_map(reader.json(DELEGATE_MAP), source)
        graph_id = _graph_id(reader.text(EXPORT_GRAPH_ID) if EXPORT_GRAPH_ID in names else None)
    return ETRecord(
        methods=methods,
        exported_nodes=exported,
        export_graph_id=graph_id,
        edge_graphs=edges,
        debug_handle_map=handle_map,
        delegate_map=delegate_map,
    )


class _MemberReader:
    def __init__(self, archive: zipfile.ZipFile, source: str) -> None:
        self._archive = archive
        self._source = source

    def text(self, member: str) -> str:
        size = self._archive.getinfo(member).file_size
        if size > MAX_MEMBER_BYTES:
            raise InputError(
                self._source,
                Problem(f"member {member!r}", f"{size} bytes uncompressed is too large to read"),
            )
        try:
            return self._archive.read(member).decode("utf-8")
        except UNREADABLE_ZIP as error:  # (ValueError includes bad UTF-8)
            raise InputError(
                self._source, Problem(f"member {member!r}", f"unreadable: {error}")
            ) from None

    def json(self, member: str) -> Any:
        text = self.text(member)
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(
                self._source,
                Problem(
                    f"member {member!r} line {error.lineno} column {error.colno}",
                    f"invalid JSON: {error.msg}",
                ),
            ) from None
        except (RecursionError, ValueError):  # nested too deeply, an integer too long
            problem = limit_problem(text)
            where = f"member {member!r} {problem.location}".strip()
            raise InputError(self._source, Problem(where, problem.message)) from None


def _fail(source: str, where: str, message: str) -> InputError:
    return InputError(source, Problem(where, message))


def _graph_nodes(document: Any, source: str, member: str) -> tuple[GraphNode, ...]:
    where = f"member {member!r} $.graph_module.graph.nodes"
    try:
        raw_nodes = document["graph_module"]["graph"]["nodes"]
    except (KeyError, TypeError):
        raise _fail(
            source, where, "expected a serialized exported program with graph nodes"
        ) from None
    if not isinstance(raw_nodes, list):
        raise _fail(source, where, "expected a list")
    nodes: list[GraphNode] = []
    for index, raw in enumerate(raw_nodes):
        at = f"{where}[{index}]"
        if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
            raise _fail(source, at, "expected an object with a string 'name'")
        metadata = raw.get("metadata")
        metadata = metadata if isinstance(metadata, Mapping) else {}
        nodes.append(
            GraphNode(
                name=raw["name"],
                target=str(raw.get("target", "")),
                debug_handles=_handles(metadata.get("debug_handle"), source, f"{at}.metadata"),
                frames=parse_stack_trace(_optional_string(metadata.get("stack_trace"))),
                module_stack=parse_module_stack(metadata.get("nn_module_stack")),
                origins=_origins(metadata.get("from_node")),
            )
        )
    return tuple(nodes)


def _handles(value: Any, source: str, where: str) -> tuple[int, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        parts = [part.strip() for part in value.strip("()[] ").split(",") if part.strip()]
        try:
            return tuple(int(part) for part in parts)
        except ValueError:
            raise _fail(
                source, f"{where}.debug_handle", f"expected integers, got {value!r}"
            ) from None
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if isinstance(value, list) and all(
        isinstance(item, int) and not isinstance(item, bool) for item in value
    ):
        return tuple(value)
    raise _fail(source, f"{where}.debug_handle", f"expected integer(s), got {value!r}")


def _optional_string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _origins(value: Any) -> tuple[tuple[str, int | None], ...]:
    """``from_node`` entries depth first (iteratively: the chains can be long)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return ()
    found: list[tuple[str, int | None]] = []
    stack: list[Any] = [value]
    while stack and len(found) < _MAX_ORIGINS:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, Mapping):
            name = item.get("name")
            graph_id = item.get("graph_id")
            if isinstance(name, str):
                found.append((name, graph_id if isinstance(graph_id, int) else None))
            stack.append(item.get("from_node"))
    return tuple(found)


def _debug_handle_map(document: Any, source: str) -> dict[str, dict[int, tuple[int, ...]]]:
    where = f"member {DEBUG_HANDLE_MAP!r}"
    if not isinstance(document, Mapping):
        raise _fail(source, where, "expected an object {method: {instruction id: handles}}")
    result: dict[str, dict[int, tuple[int, ...]]] = {}
    for method, table in document.items():
        if not isinstance(table, Mapping):
            raise _fail(source, f"{where} $.{method}", "expected an object")
        entries: dict[int, tuple[int, ...]] = {}
        for key, handles in table.items():
            instruction = _int_key(key, source, f"{where} $.{method}")
            entries[instruction] = _handles(handles, source, f"{where} $.{method}.{key}")
        result[str(method)] = entries
    return result


def _delegate_map(document: Any, source: str) -> dict[str, dict[int, Delegate]]:
    where = f"member {DELEGATE_MAP!r}"
    if not isinstance(document, Mapping):
        raise _fail(source, where, "expected an object {method: {instruction id: delegate}}")
    result: dict[str, dict[int, Delegate]] = {}
    for method, table in document.items():
        if not isinstance(table, Mapping):
            raise _fail(source, f"{where} $.{method}", "expected an object")
        delegates: dict[int, Delegate] = {}
        for key, entry in table.items():
            at = f"{where} $.{method}.{key}"
            instruction = _int_key(key, source, f"{where} $.{method}")
            if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
                raise _fail(source, at, "expected an object with a string 'name'")
            raw_ids = entry.get("delegate_map")
            debug_ids: dict[str, tuple[int, ...]] = {}
            if isinstance(raw_ids, Mapping):
                for debug_id, handles in raw_ids.items():
                    debug_ids[str(debug_id)] = _handles(
                        handles, source, f"{at}.delegate_map.{debug_id}"
                    )
            delegates[instruction] = Delegate(entry["name"], debug_ids)
        result[str(method)] = delegates
    return result


def _int_key(key: Any, source: str, where: str) -> int:
    try:
        return int(key)
    except (TypeError, ValueError):
        raise _fail(source, where, f"expected an integer instruction id, got {key!r}") from None


def _graph_id(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        return None
