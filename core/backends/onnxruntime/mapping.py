"""From the nodes ONNX Runtime executed to the model's nodes, with a confidence.

With graph optimisations off, ONNX Runtime runs the model's own nodes: the profile's node name
is the ONNX node name and ``node_index`` its position. With optimisations on it fuses nodes
(Conv + Relu -> ``relu_nchwc``; MatMul + Add -> ``node_MatMul_1/MatMulAddFusion``; MatMul + Div ->
``FusedMatMul``), inserts layout and reshape nodes (``ReorderOutput``, ``gemm_input_reshape``)
and gives new nodes indices beyond the model's node list. Decisions, in this order:

1. ``exact``: the executed node has a model node's name and op type (its ``node_index`` is not
   required to agree: ONNX Runtime turns ``Constant`` nodes into initializers and renumbers the
   rest, as in the PaddleOCR profile); or, for an unnamed model node, the same index and op.
2. An *anchor* (the model node the executed node is named after) from, in turn: the same name
   (op type or index differ); the part before the first ``/`` (ORT's ``<node>/<Fusion>``
   names); the name without ORT's ``_nchwc`` / ``_token_<n>`` suffixes, as a node name or as a
   tensor name (then its producer); with ORT's saved optimised model
   (``SessionOptions.optimized_model_filepath``), a model tensor among the executed node's
   outputs (its producer).
3. The anchor grows by tensor connectivity into the originals the executed node stands for:
   when the executed op type differs from the anchor's, the nearest unclaimed upstream node of
   the executed op type (with the nodes between); for ``/`` fusions, the anchor's unclaimed
   single consumers downstream and its unclaimed siblings of the same op type reading the same
   tensor (``GatherSliceToSplitFusion``). A node claimed by rule 1 or anchoring another
   executed node by name is never absorbed (anchors found in the saved optimised model come
   last: they attribute inserted nodes, such as reshapes around a fused Gemm, to what the
   fusions left).
4. ``fused`` when the executed node stands for several model nodes (one shared timing, never
   split), ``inferred`` when for one model node by rule 2/3 evidence, ``unmapped`` otherwise.

Cost: O(executed nodes x walk depth) after O(model nodes) indexing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perfline.core.formats.onnx import OnnxModel, OnnxNode

EXACT = "exact"
FUSED = "fused"
INFERRED = "inferred"
UNMAPPED = "unmapped"
CONFIDENCES = (EXACT, FUSED, INFERRED, UNMAPPED)
_SUFFIXES = re.compile(r"(?:_nchwc|_token_\d+)+$")
_WALK_DEPTH = 3
_BY_OPTIMIZED_MODEL = "output tensor in the saved optimized model"
_ABSORB_LIMIT = 4


@dataclass(frozen=True)
class ExecutedNode:
    """What the profile says of one executed node."""

    name: str
    op_name: str
    node_index: int | None


@dataclass(frozen=True)
class NodeMapping:
    """The model nodes (indices) one executed node stands for, how sure, and why."""

    originals: tuple[int, ...]
    confidence: str
    evidence: str


class _Graph:
    def __init__(self, model: OnnxModel) -> None:
        self.nodes = model.nodes
        self.by_name = {node.name: node for node in model.nodes if node.name}
        self.producer: dict[str, int] = {}
        self.consumers: dict[str, list[int]] = {}
        for node in model.nodes:
            for tensor in node.outputs:
                if tensor:
                    self.producer[tensor] = node.index
            for tensor in node.inputs:
                if tensor:
                    self.consumers.setdefault(tensor, []).append(node.index)


def _op(node: OnnxNode) -> str:
    return node.op_type


def map_executed(
    model: OnnxModel,
    executed: Sequence[ExecutedNode],
    optimized: OnnxModel | None = None,
) -> dict[str, NodeMapping]:
    """The mapping of every executed node (by name), by the rules of the module docstring."""
    graph = _Graph(model)
    optimized_outputs: Mapping[str, tuple[str, ...]] = (
        {node.name: node.outputs for node in optimized.nodes} if optimized is not None else {}
    )
    result: dict[str, NodeMapping] = {}
    claimed: set[int] = set()
    for node in executed:
        index = _exact(graph, node)
        if index is not None:
            result[node.name] = NodeMapping((index,), EXACT, "name and op type")
            claimed.add(index)
    anchors: dict[str, tuple[int, str]] = {}
    for node in executed:
        if node.name in result:
            continue
        anchor = _anchor(graph, node, optimized_outputs)
        if anchor is None:
            result[node.name] = NodeMapping((), UNMAPPED, "no model node or tensor of this name")
        else:
            anchors[node.name] = anchor
    named = {n: a for n, a in anchors.items() if a[1] != _BY_OPTIMIZED_MODEL}
    reserved = claimed | {index for index, _ in named.values()}
    later = [node for node in executed if node.name in anchors and node.name not in named]
    for node in [*(node for node in executed if node.name in named), *later]:
        index, evidence = anchors[node.name]
        members = _grow(graph, node, index, reserved | claimed)
        claimed.update(members)
        confidence = FUSED if len(members) > 1 else INFERRED
        result[node.name] = NodeMapping(tuple(sorted(members)), confidence, evidence)
    return {node.name: result[node.name] for node in executed}


def _exact(graph: _Graph, node: ExecutedNode) -> int | None:
    found = graph.by_name.get(node.name)
    if found is not None:
        if _op(found) == node.op_name:
            return found.index
        return None
    index = node.node_index
    if index is not None and index < len(graph.nodes):
        candidate = graph.nodes[index]
        if not candidate.name and _op(candidate) == node.op_name:
            return index
    return None


def _anchor(
    graph: _Graph, node: ExecutedNode, optimized_outputs: Mapping[str, tuple[str, ...]]
) -> tuple[int, str] | None:
    found = graph.by_name.get(node.name)
    if found is not None:
        return found.index, "name (the op type differs)"
    if "/" in node.name:
        head = graph.by_name.get(node.name.split("/", 1)[0])
        if head is not None:
            return head.index, f"fusion name ({node.name.split('/', 1)[1].strip('/')})"
    derived = _SUFFIXES.sub("", node.name)
    if derived != node.name:
        named = graph.by_name.get(derived)
        if named is not None:
            return named.index, "name without ONNX Runtime's suffixes"
        if derived in graph.producer:
            return graph.producer[derived], "name of the node's output tensor"
    for tensor in optimized_outputs.get(node.name, ()):
        if tensor in graph.producer:
            return graph.producer[tensor], _BY_OPTIMIZED_MODEL
    return None


def _grow(graph: _Graph, node: ExecutedNode, anchor: int, taken: set[int]) -> set[int]:
    members = {anchor}
    anchor_node = graph.nodes[anchor]
    if node.op_name and _op(anchor_node) != node.op_name:
        members.update(_upstream_of_type(graph, anchor, node.op_name, taken))
    if "/" in node.name:
        members.update(_downstream(graph, anchor, taken | members))
        members.update(_siblings(graph, anchor, taken | members))
    return members


def _upstream_of_type(graph: _Graph, start: int, op_type: str, taken: set[int]) -> list[int]:
    """The path to the nearest unclaimed producer of ``op_type`` above ``start`` (BFS)."""
    frontier: list[tuple[int, list[int]]] = [(start, [])]
    for _ in range(_WALK_DEPTH):
        following: list[tuple[int, list[int]]] = []
        for index, path in frontier:
            for tensor in graph.nodes[index].inputs:
                producer = graph.producer.get(tensor)
                if producer is None or producer in taken or producer in path:
                    continue
                route = [*path, producer]
                if _op(graph.nodes[producer]) == op_type:
                    return route
                following.append((producer, route))
        frontier = following
    return []


def _downstream(graph: _Graph, start: int, taken: set[int]) -> list[int]:
    absorbed: list[int] = []
    current = start
    for _ in range(_ABSORB_LIMIT):
        outputs = [t for t in graph.nodes[current].outputs if t]
        if len(outputs) != 1:
            break
        consumers = graph.consumers.get(outputs[0], [])
        if len(consumers) != 1 or consumers[0] in taken or consumers[0] in absorbed:
            break
        current = consumers[0]
        absorbed.append(current)
    return absorbed


def _siblings(graph: _Graph, start: int, taken: set[int]) -> list[int]:
    anchor = graph.nodes[start]
    if not anchor.inputs:
        return []
    return [
        index
        for index in graph.consumers.get(anchor.inputs[0], [])
        if index != start and index not in taken and _op(graph.nodes[index]) == _op(anchor)
    ]
