"""What an ONNX Runtime profile records of each executed node, compared with the model.

For ``run_match``: per executed node an ``Evidence`` (agrees, disagrees and why, or tells
nothing), weighted by its time per kept run. An ``exact`` node (the model's node by name and op
type, or by position when unnamed: ``mapping``) is compared with that model node on what the
profile records of every kernel call:

* **output shapes and element types** (``args.output_type_shape``), exactly, where the model's
  ``value_info`` gives the tensor's shape (a dimension the file leaves symbolic, or gives as a
  negative number, matches any size): ONNX Runtime's optimisations keep a node's outputs when
  they keep its name;
* **input shapes** (``args.input_type_shape``), by element count (the optimiser may hand a kept
  node another layout of the same values, a transposed input); shapes from ``value_info``, the
  initializers and ``Constant`` nodes' values. ORT leaves out an initializer it pre-packed
  (MatMul and Gemm weights), so a stored input the profile has no entry for is skipped;
* the **parameter size** (``args.parameter_size``, bytes of the stored inputs it lists): the
  bytes of the model's stored inputs matched above, unless an input is one ORT may have made
  a constant itself (computed from stored tensors only: constant folding).

A node whose model records none of these agrees by name and op type alone. An ``unmapped``
node (no model node or tensor of its name) disagrees; ``fused`` and ``inferred`` nodes (several
model nodes, or one found through ORT's renaming) are not judged: their kernels' shapes are
ORT's own layouts. Cost: O(model tensors + executed nodes x inputs).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from perfline.core.backends.onnxruntime.mapping import EXACT, UNMAPPED, NodeMapping
from perfline.core.backends.onnxruntime.runs import NodeRuns
from perfline.core.backends.run_match import Evidence
from perfline.core.formats.onnx import OnnxNode
from perfline.core.formats.onnx_graph import ELEMENT_BYTES, ELEMENT_NAMES, Dim, OnnxGraph

NO_MODEL_NODE = "no model node or tensor of this name"


class TensorFacts:
    """Shapes, element types and kinds of the model's tensors, by name."""

    def __init__(self, graph: OnnxGraph) -> None:
        self.shapes: dict[str, tuple[Dim, ...]] = {}
        self.types: dict[str, int] = {}
        self.stored: set[str] = set()
        for info in graph.value_info.values():
            if info.shape is not None:
                self.shapes[info.name] = info.shape
            if info.elem_type:
                self.types[info.name] = info.elem_type
        for name, tensor in graph.initializers.items():
            self.shapes[name] = tensor.dims
            self.types[name] = tensor.elem_type
            self.stored.add(name)
        self.foldable: set[str] = set()
        for node, attributes in zip(graph.model.nodes, graph.attributes, strict=False):
            constant = attributes.tensors.get("value")
            if node.op_type == "Constant" and constant is not None:
                for output in node.outputs:
                    self.shapes[output] = constant.dims
                    self.types[output] = constant.elem_type
                    self.stored.add(output)
            elif node.inputs and all(
                not name or name in self.stored or name in self.foldable for name in node.inputs
            ):
                self.foldable.update(name for name in node.outputs if name)

    def stored_bytes(self, name: str) -> float | None:
        """Bytes of a stored tensor, ``None`` when its shape or element size is unknown."""
        shape = self.shapes.get(name)
        size = ELEMENT_BYTES.get(self.types.get(name, 0))
        if shape is None or size is None or not _fixed(shape):
            return None
        return math.prod(int(d) for d in shape if type(d) is int) * size


def node_evidence(
    nodes: Sequence[NodeRuns],
    mappings: Mapping[str, NodeMapping],
    graph: OnnxGraph,
    kept_runs: int,
) -> list[Evidence]:
    """One ``Evidence`` per executed node, in the order of ``nodes``."""
    facts = TensorFacts(graph)
    runs = kept_runs or 1
    evidence: list[Evidence] = []
    for node in nodes:
        mapping = mappings[node.name]
        weight = sum(node.durations_ms) / runs
        if mapping.confidence == UNMAPPED:
            label = f"`{node.name}` ({node.op_name})"
            evidence.append(Evidence(label, weight, NO_MODEL_NODE))
        elif mapping.confidence == EXACT:
            model_node = graph.model.nodes[mapping.originals[0]]
            label = f"node {model_node.index} `{node.name}` ({node.op_name})"
            evidence.append(Evidence(label, weight, node_mismatch(node, model_node, facts)))
        else:
            evidence.append(Evidence(f"`{node.name}` ({node.op_name})", weight, judged=False))
    return evidence


def node_mismatch(node: NodeRuns, model_node: OnnxNode, facts: TensorFacts) -> str | None:
    """What the profile records of ``node`` that the model's node contradicts, or ``None``."""
    return (
        _outputs_mismatch(node, model_node, facts)
        or _inputs_mismatch(node, model_node, facts)
        or None
    )


def _outputs_mismatch(node: NodeRuns, model_node: OnnxNode, facts: TensorFacts) -> str | None:
    outputs = [name for name in model_node.outputs if name]
    if len(outputs) != len(node.output_shapes):
        return None  # optional outputs ORT does not list: nothing to pair by position
    for position, (tensor, recorded) in enumerate(zip(outputs, node.output_shapes, strict=True)):
        expected = facts.shapes.get(tensor)
        if expected is not None and recorded and not _same_shape(expected, recorded):
            return (
                f"profile records output shape {shape_text(recorded)}, the model "
                f"{shape_text(expected)}" + _which("output", position, outputs)
            )
        recorded_type = node.output_types[position] if position < len(node.output_types) else ""
        expected_type = ELEMENT_NAMES.get(facts.types.get(tensor, 0), "")
        if recorded_type and expected_type and recorded_type != expected_type:
            return (
                f"profile records output type {recorded_type}, the model {expected_type}"
                + _which("output", position, outputs)
            )
    return None


def _inputs_mismatch(node: NodeRuns, model_node: OnnxNode, facts: TensorFacts) -> str | None:
    inputs = [name for name in model_node.inputs if name]
    recorded = node.input_shapes
    taken = 0
    matched_stored: list[str] = []
    for position, tensor in enumerate(inputs):
        stored = tensor in facts.stored
        if taken == len(recorded):
            if stored:
                continue  # pre-packed: ORT lists no shape for it
            return (
                f"profile records {len(recorded)} input(s), the model {len(inputs)} "
                f"(no entry for `{tensor}`)"
            )
        expected = facts.shapes.get(tensor)
        shape = recorded[taken]
        if expected is None or not shape or _same_count(expected, shape):
            taken += 1
            if stored:
                matched_stored.append(tensor)
            continue
        if stored and len(inputs) - position > len(recorded) - taken:
            continue  # pre-packed, and the entry belongs to a later input
        return (
            f"profile records input shape {shape_text(shape)}, the model "
            f"{shape_text(expected)}" + _which("input", position, inputs)
        )
    if taken < len(recorded):
        return f"profile records {len(recorded)} input(s), the model {len(inputs)}"
    return _parameter_mismatch(node, inputs, matched_stored, facts)


def _parameter_mismatch(
    node: NodeRuns, inputs: Sequence[str], stored: Sequence[str], facts: TensorFacts
) -> str | None:
    recorded = node.parameter_size
    if recorded is None or any(name in facts.foldable for name in inputs):
        return None
    sizes = [facts.stored_bytes(name) for name in stored]
    if any(size is None for size in sizes):
        return None
    expected = int(sum(size for size in sizes if size is not None))
    if recorded == expected:
        return None
    return f"profile records parameter size {recorded:,} bytes, the model {expected:,}"


def _which(kind: str, position: int, names: Sequence[str]) -> str:
    return f" ({kind} {position} `{names[position]}`)" if len(names) > 1 else ""


def _fixed(shape: tuple[Dim, ...]) -> bool:
    return all(type(d) is int and d >= 0 for d in shape)


def _same_shape(expected: tuple[Dim, ...], recorded: tuple[int, ...]) -> bool:
    if len(expected) != len(recorded):
        return False
    return all(
        not (type(want) is int and want >= 0) or want == got
        for want, got in zip(expected, recorded, strict=True)
    )


def _same_count(expected: tuple[Dim, ...], recorded: tuple[int, ...]) -> bool:
    if not _fixed(expected):
        return True
    return math.prod(int(d) for d in expected if type(d) is int) == math.prod(recorded)


def shape_text(shape: Sequence[Dim]) -> str:
    """``[1,64,25,5]``; a symbolic dimension by its name, an unknown one as ``?``."""
    return (
        "["
        + ",".join("?" if d is None or (type(d) is int and d < 0) else str(d) for d in shape)
        + "]"
    )
