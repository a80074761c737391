"""ONNX model reader and the canonical ONNX identity ``source_operator/<node-index>``.

Reads the protobuf wire format directly (``_protobuf``), only the fields needed:
``ModelProto`` (1 ir_version, 2 producer_name, 3 producer_version, 7 graph, 8 opset_import),
``GraphProto`` (1 node, 2 name), ``NodeProto`` (1 input, 2 output, 3 name, 4 op_type,
5 attribute, 7 domain, 9 metadata_props), ``AttributeProto`` (1 name, 6 g, 11 graphs) and
``StringStringEntryProto`` (1 key, 2 value). Initializers are jumped over, never decoded.

Identity (seed 001): ``source_operator/<i>`` where ``i`` is the zero-based position of the node
in the **top-level** ``graph.node`` list. Stability and limits:

* the index is stable for a given file; re-exporting or optimising a model (onnxscript, ONNX
  Runtime graph optimisations) renumbers nodes, and node names are not part of the identity
  (many producers leave nodes unnamed);
* nodes inside subgraphs (``If`` then/else branches, ``Loop``/``Scan`` bodies) have **no
  canonical id**: ``onnx_nested_nodes`` lists them with a path such as
  ``node[3].then_branch.node[5]`` for display only, and their cost belongs to the top-level
  control-flow node;
* source locations come only from the dynamo exporter's ``pkg.torch.onnx.stack_trace`` metadata
  (``File "...", line N, in f`` text); the module stack from ``pkg.torch.onnx.name_scopes`` with
  ``pkg.torch.onnx.class_hierarchy`` (the last entry, the ATen op itself, is dropped). After
  onnxscript fuses BatchNorm into Conv, the Conv carries the BatchNorm's provenance.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfline.core.errors import InputError, Problem
from perfline.core.formats._protobuf import Field, fields
from perfline.core.formats.identity import (
    ModuleFrame,
    SourceFrame,
    SourceOperator,
    parse_stack_trace,
    source_operator_id,
)
from perfline.core.python_syntax import literal

STACK_TRACE_KEY = "pkg.torch.onnx.stack_trace"
NAME_SCOPES_KEY = "pkg.torch.onnx.name_scopes"
CLASS_HIERARCHY_KEY = "pkg.torch.onnx.class_hierarchy"
MAX_GRAPH_DEPTH = 32
_MAX_LITERAL = 65536


@dataclass(frozen=True)
class OnnxNode:
    """One node of a graph: where it is, what it is, and its metadata properties."""

    path: str
    index: int
    op_type: str
    domain: str
    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    metadata: tuple[tuple[str, str], ...]
    offset: int

    def metadata_value(self, key: str) -> str | None:
        """The value of a metadata property (the last one wins, as in protobuf maps)."""
        found = None
        for name, value in self.metadata:
            if name == key:
                found = value
        return found


@dataclass(frozen=True)
class OnnxModel:
    """The parts of a ModelProto this reader decodes."""

    ir_version: int
    producer_name: str
    producer_version: str
    opsets: tuple[tuple[str, int], ...]
    graph_name: str
    nodes: tuple[OnnxNode, ...]
    nested: tuple[OnnxNode, ...]


def _strings_entry(field: Field, source: str, where: str) -> tuple[str, str]:
    key = value = ""
    payload = field.as_bytes(source, where)
    for item in fields(payload, field.value_offset, source, where):
        if item.number == 1:
            key = item.as_text(source, f"{where}.key")
        elif item.number == 2:
            value = item.as_text(source, f"{where}.value")
    return key, value


def _graph(
    payload: memoryview,
    base: int,
    source: str,
    where: str,
    depth: int,
    nested: list[OnnxNode],
) -> tuple[str, tuple[OnnxNode, ...]]:
    if depth > MAX_GRAPH_DEPTH:
        raise InputError(
            source,
            Problem(f"byte {base} ({where})", f"subgraphs nested deeper than {MAX_GRAPH_DEPTH}"),
        )
    name = ""
    nodes: list[OnnxNode] = []
    for field in fields(payload, base, source, where):
        if field.number == 2:
            name = field.as_text(source, f"{where}.name")
        elif field.number == 1:
            path = f"{where}.node[{len(nodes)}]"
            nodes.append(_node(field, len(nodes), source, path, depth, nested))
    return name, tuple(nodes)


def _node(
    field: Field, index: int, source: str, where: str, depth: int, nested: list[OnnxNode]
) -> OnnxNode:
    payload = field.as_bytes(source, where)
    inputs: list[str] = []
    outputs: list[str] = []
    metadata: list[tuple[str, str]] = []
    name = op_type = domain = ""
    subgraphs: list[tuple[str, Field]] = []
    for item in fields(payload, field.value_offset, source, where):
        if item.number == 1:
            inputs.append(item.as_text(source, f"{where}.input"))
        elif item.number == 2:
            outputs.append(item.as_text(source, f"{where}.output"))
        elif item.number == 3:
            name = item.as_text(source, f"{where}.name")
        elif item.number == 4:
            op_type = item.as_text(source, f"{where}.op_type")
        elif item.number == 7:
            domain = item.as_text(source, f"{where}.domain")
        elif item.number == 9:
            metadata.append(_strings_entry(item, source, f"{where}.metadata_props"))
        elif item.number == 5:
            subgraphs.extend(_attribute_graphs(item, source, f"{where}.attribute"))
    if not op_type:
        raise InputError(
            source,
            Problem(f"byte {field.offset} ({where})", "expected the node's op_type (field 4)"),
        )
    node = OnnxNode(
        path=where,
        index=index,
        op_type=op_type,
        domain=domain,
        name=name,
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        metadata=tuple(metadata),
        offset=field.offset,
    )
    for label, graph_field in subgraphs:
        sub_where = f"{where}.{label}"
        _, sub_nodes = _graph(
            graph_field.as_bytes(source, sub_where),
            graph_field.value_offset,
            source,
            sub_where,
            depth + 1,
            nested,
        )
        nested.extend(sub_nodes)
    return node


def _attribute_graphs(field: Field, source: str, where: str) -> list[tuple[str, Field]]:
    name = ""
    graphs: list[Field] = []
    for item in fields(field.as_bytes(source, where), field.value_offset, source, where):
        if item.number == 1:
            name = item.as_text(source, f"{where}.name")
        elif item.number in (6, 11):
            graphs.append(item)
    if len(graphs) == 1:
        return [(name or "graph", graphs[0])]
    return [(f"{name or 'graphs'}[{i}]", graph) for i, graph in enumerate(graphs)]


def read_onnx(data: bytes, source: str) -> OnnxModel:
    """Decode the top-level graph (and the nodes of nested subgraphs) of an ONNX model."""
    view = memoryview(data)
    ir_version = 0
    producer_name = producer_version = ""
    opsets: list[tuple[str, int]] = []
    graph: Field | None = None
    for field in fields(view, 0, source, "ModelProto"):
        if field.number == 1:
            ir_version = field.as_int(source, "ModelProto.ir_version")
        elif field.number == 2:
            producer_name = field.as_text(source, "ModelProto.producer_name")
        elif field.number == 3:
            producer_version = field.as_text(source, "ModelProto.producer_version")
        elif field.number == 7:
            graph = field
        elif field.number == 8:
            domain, version = "", 0
            where = "ModelProto.opset_import"
            for item in fields(field.as_bytes(source, where), field.value_offset, source, where):
                if item.number == 1:
                    domain = item.as_text(source, f"{where}.domain")
                elif item.number == 2:
                    version = item.as_int(source, f"{where}.version")
            opsets.append((domain, version))
    if graph is None or ir_version == 0:
        missing = "graph (field 7)" if graph is None else "ir_version (field 1)"
        raise InputError(
            source,
            Problem("ModelProto", f"expected an ONNX ModelProto with {missing}; not an ONNX model"),
        )
    nested: list[OnnxNode] = []
    name, nodes = _graph(
        graph.as_bytes(source, "ModelProto.graph"), graph.value_offset, source, "graph", 0, nested
    )
    return OnnxModel(
        ir_version=ir_version,
        producer_name=producer_name,
        producer_version=producer_version,
        opsets=tuple(opsets),
        graph_name=name,
        nodes=nodes,
        nested=tuple(nested),
    )


def _literal_list(text: str | None) -> list[str]:
    if not text or len(text) > _MAX_LITERAL:
        return []
    try:
        value = literal(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return []
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return list(value)
    return []


def node_modules(node: OnnxNode) -> tuple[ModuleFrame, ...]:
    """Module frames (root to leaf) from the exporter's name scopes and class hierarchy."""
    scopes = _literal_list(node.metadata_value(NAME_SCOPES_KEY))
    classes = _literal_list(node.metadata_value(CLASS_HIERARCHY_KEY))
    if not scopes or len(scopes) != len(classes):
        return ()
    return tuple(
        ModuleFrame(path, path, kind) for path, kind in zip(scopes[:-1], classes[:-1], strict=True)
    )


def node_frames(node: OnnxNode) -> tuple[SourceFrame, ...]:
    """Stack frames from ``pkg.torch.onnx.stack_trace``, outermost caller first."""
    return parse_stack_trace(node.metadata_value(STACK_TRACE_KEY))


def _operator(node: OnnxNode, identity: str) -> SourceOperator:
    return SourceOperator(
        id=identity,
        op_type=node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}",
        name=node.name,
        locations=node_frames(node),
        nn_module_stack=node_modules(node),
        label=node.metadata_value(STACK_TRACE_KEY),
    )


def onnx_operators(data: bytes, source: str) -> tuple[SourceOperator, ...]:
    """The canonical source operators: the top-level graph's nodes, ``source_operator/<index>``."""
    return model_operators(read_onnx(data, source))


def model_operators(model: OnnxModel) -> tuple[SourceOperator, ...]:
    """``onnx_operators`` of a model already read."""
    return tuple(_operator(node, source_operator_id(str(node.index))) for node in model.nodes)


def onnx_nested_nodes(data: bytes, source: str) -> tuple[OnnxNode, ...]:
    """Nodes of nested subgraphs (no canonical id; ``path`` locates them for display)."""
    return read_onnx(data, source).nested
