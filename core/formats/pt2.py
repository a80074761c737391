"""PT2 archive reader (``torch.export.save``) and the canonical PT2 identity, without torch.

A ``.pt2`` file is a zip archive; ``<archive>/models/<name>.json`` (older archives:
``serialized_exported_program.json``) holds the exported program as JSON:
``graph_module.graph.nodes[i]`` with ``name``, ``target``, ``outputs`` and ``metadata``
(``stack_trace`` as Python traceback text, ``nn_module_stack`` as ``key,path,type;...``,
``torch_fn``, ``from_node``).

Identity (seed 001): ``source_operator/<fx node name>`` — the exact ``torch.fx.Node.name`` of a
top-level ``call_function`` node, as ``torch.export.load`` would recreate it. Decisions:

* the serialized nodes are listed in graph order; a node with several outputs is followed by one
  ``getitem`` node per named output, named after that output (that is how the loader rebuilds
  them: ``_native_batch_norm_legit_no_training`` is followed by ``getitem``,
  ``..._unused_1``, ``..._unused_2``); those ``getitem`` nodes carry their producer's stack trace
  and module stack;
* placeholders (parameters, buffers, user inputs) and the output node are not operators;
* nodes of nested graphs (higher-order operators such as ``cond``/``map``, stored as ``as_graph``
  arguments) have no canonical id and are not listed;
* names depend on the exported IR: the same convolution is ``conv2d_1`` in the default
  (pre-dispatch) IR and ``convolution_1`` after ``run_decompositions()``; only ``from_node`` links
  later names back. Names are stable for a given file and exporter version, not across IRs.

``op_type`` is the target without the ``torch.ops.`` prefix (``aten.conv2d.default``).
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from typing import Any

from perfline.core.errors import InputError, Problem
from perfline.core.formats.identity import (
    ModuleFrame,
    SourceFrame,
    SourceOperator,
    parse_module_stack,
    parse_stack_trace,
    source_operator_id,
)
from perfline.core.formats.zip_archive import UNREADABLE_ZIP
from perfline.core.json_codec import limit_problem

#: Largest model JSON read from an archive (decompressed), against zip bombs.
MAX_MODEL_JSON_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class Pt2Node:
    """One top-level FX operator node as the loader would recreate it.

    ``origin_names`` follows ``metadata.from_node`` (first parent at each step, nearest first):
    the names this node had in earlier graphs, e.g. ``("conv2d", "conv2d")`` for the core-ATen
    ``convolution``; empty when the file records none. ``producer`` names the node whose output
    a rebuilt ``getitem`` reads.
    """

    name: str
    target: str
    op_type: str
    stack_trace: str | None
    frames: tuple[SourceFrame, ...]
    nn_module_stack: tuple[ModuleFrame, ...]
    torch_fn: str | None
    json_path: str
    producer: str | None = None
    origin_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Pt2Program:
    """The exported program of one archive: where it was read and its operator nodes."""

    member: str
    torch_version: str | None
    schema_version: tuple[int, int] | None
    nodes: tuple[Pt2Node, ...]


def _problem(source: str, location: str, message: str) -> InputError:
    return InputError(source, Problem(location, message))


def _model_member(archive: zipfile.ZipFile, source: str) -> zipfile.ZipInfo:
    infos = [info for info in archive.infolist() if not info.is_dir()]
    models = [
        info
        for info in infos
        if info.filename.endswith(".json") and "/models/" in f"/{info.filename}"
    ]
    preferred = [info for info in models if info.filename.endswith("/models/model.json")]
    legacy = [info for info in infos if info.filename.endswith("serialized_exported_program.json")]
    for candidates in (preferred, models, legacy):
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > 1:
            names = ", ".join(info.filename for info in candidates)
            raise _problem(
                source, "archive", f"expected one exported program, found several: {names}"
            )
    raise _problem(
        source,
        "archive",
        "expected '<archive>/models/model.json' (a torch.export archive); no model JSON found",
    )


def _load_json(data: bytes, source: str) -> tuple[str, Any]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except UNREADABLE_ZIP as error:
        raise _problem(source, "byte 0", f"expected a .pt2 zip archive: {error}") from None
    with archive:
        info = _model_member(archive, source)
        if info.file_size > MAX_MODEL_JSON_BYTES:
            raise _problem(
                source,
                info.filename,
                f"model JSON of {info.file_size} bytes exceeds the "
                f"{MAX_MODEL_JSON_BYTES}-byte limit",
            )
        try:
            raw = archive.read(info)
        except UNREADABLE_ZIP as error:
            raise _problem(source, info.filename, f"cannot decompress: {error}") from None
    try:
        return info.filename, json.loads(raw)
    except UnicodeDecodeError as error:
        raise _problem(
            source, f"{info.filename} byte {error.start}", "expected UTF-8 JSON"
        ) from None
    except json.JSONDecodeError as error:
        raise _problem(
            source,
            f"{info.filename} line {error.lineno} column {error.colno}",
            f"expected JSON: {error.msg}",
        ) from None
    except (RecursionError, ValueError):  # nested too deeply, an integer too long
        problem = limit_problem(raw.decode("utf-8", errors="replace"))
        raise _problem(source, f"{info.filename} {problem.location}", problem.message) from None


def _expect(value: Any, kind: type, source: str, where: str, what: str) -> Any:
    if not isinstance(value, kind):
        raise _problem(source, where, f"expected {what}, found {type(value).__name__}")
    return value


def _output_names(outputs: list[Any]) -> list[str]:
    names: list[str] = []
    for output in outputs:
        if not isinstance(output, dict):
            continue
        tensor = output.get("as_tensor")
        if isinstance(tensor, dict) and isinstance(tensor.get("name"), str):
            names.append(tensor["name"])
            continue
        for key in ("as_sym_int", "as_sym_float", "as_sym_bool"):
            symbol = output.get(key)
            if isinstance(symbol, dict) and isinstance(symbol.get("as_name"), str):
                names.append(symbol["as_name"])
                break
        tensors = output.get("as_tensors")
        if isinstance(tensors, list):
            names.extend(
                t["name"] for t in tensors if isinstance(t, dict) and isinstance(t.get("name"), str)
            )
    return names


_MAX_ORIGIN_DEPTH = 64


def _origin_names(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return ()
    names: list[str] = []
    while isinstance(value, list) and value and len(names) < _MAX_ORIGIN_DEPTH:
        first = value[0]
        if not isinstance(first, dict):
            break
        name = first.get("name")
        if isinstance(name, str):
            names.append(name)
        value = first.get("from_node")
    return tuple(names)


def _op_type(target: str) -> str:
    return target.removeprefix("torch.ops.")


def read_pt2(data: bytes, source: str) -> Pt2Program:
    """Read the exported program of a ``.pt2`` archive (no torch needed)."""
    member, document = _load_json(data, source)
    root = _expect(document, dict, source, f"{member} $", "a JSON object")
    graph_module = _expect(
        root.get("graph_module"), dict, source, f"{member} $.graph_module", "an object"
    )
    graph = _expect(
        graph_module.get("graph"), dict, source, f"{member} $.graph_module.graph", "an object"
    )
    raw_nodes = _expect(
        graph.get("nodes"), list, source, f"{member} $.graph_module.graph.nodes", "a list"
    )
    nodes: list[Pt2Node] = []
    seen: dict[str, str] = {}

    def add(node: Pt2Node) -> None:
        if node.name in seen:
            raise _problem(
                source,
                f"{member} {node.json_path}",
                f"duplicate node name '{node.name}' (also at {seen[node.name]}); "
                "node names must be unique",
            )
        seen[node.name] = node.json_path
        nodes.append(node)

    for index, raw in enumerate(raw_nodes):
        path = f"$.graph_module.graph.nodes[{index}]"
        node = _expect(raw, dict, source, f"{member} {path}", "a node object")
        target = _expect(node.get("target"), str, source, f"{member} {path}.target", "a string")
        outputs = node.get("outputs", [])
        outputs = _expect(outputs, list, source, f"{member} {path}.outputs", "a list")
        output_names = _output_names(outputs)
        name = node.get("name")
        if not isinstance(name, str) or not name:
            if len(outputs) == 1 and len(output_names) == 1 and "as_tensor" in outputs[0]:
                name = output_names[0]
            else:
                raise _problem(
                    source, f"{member} {path}.name", "expected the node's name (a non-empty string)"
                )
        metadata = node.get("metadata") or {}
        metadata = _expect(metadata, dict, source, f"{member} {path}.metadata", "an object")
        trace = metadata.get("stack_trace")
        trace = trace if isinstance(trace, str) else None
        frames = parse_stack_trace(trace)
        modules = parse_module_stack(metadata.get("nn_module_stack"))
        torch_fn = metadata.get("torch_fn") if isinstance(metadata.get("torch_fn"), str) else None
        origins = _origin_names(metadata.get("from_node"))
        add(
            Pt2Node(
                name,
                target,
                _op_type(target),
                trace,
                frames,
                modules,
                torch_fn,
                path,
                origin_names=origins,
            )
        )
        multiple = len(outputs) > 1 or (len(outputs) == 1 and "as_tensors" in outputs[0])
        if multiple:
            for output_index, output_name in enumerate(output_names):
                add(
                    Pt2Node(
                        output_name,
                        "<built-in function getitem>",
                        "getitem",
                        trace,
                        frames,
                        modules,
                        torch_fn,
                        f"{path}.outputs[{output_index}]",
                        producer=name,
                        origin_names=origins,
                    )
                )
    version = root.get("schema_version")
    schema: tuple[int, int] | None = None
    if isinstance(version, dict) and all(
        isinstance(version.get(k), int) for k in ("major", "minor")
    ):
        schema = (version["major"], version["minor"])
    torch_version = root.get("torch_version")
    return Pt2Program(
        member=member,
        torch_version=torch_version if isinstance(torch_version, str) else None,
        schema_version=schema,
        nodes=tuple(nodes),
    )


def pt2_operators(data: bytes, source: str) -> tuple[SourceOperator, ...]:
    """The canonical source operators of a ``.pt2`` archive, in graph order."""
    return tuple(
        SourceOperator(
            id=source_operator_id(node.name),
            op_type=node.op_type,
            name=node.name,
            locations=node.frames,
            nn_module_stack=node.nn_module_stack,
            label=node.stack_trace,
        )
        for node in read_pt2(data, source).nodes
    )


def read_program_json(data: bytes, source: str) -> tuple[str, Any]:
    """The archive member holding the exported program and its parsed JSON (for readers that need
    more than the operators, e.g. tensor shapes in ``graph_module.graph.tensor_values``)."""
    return _load_json(data, source)
