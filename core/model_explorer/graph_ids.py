"""Where Model Explorer shows each canonical source operator: its graph id and node id.

Model Explorer builds the graph it shows with an adapter per format; this module states each
adapter's naming, read off the adapters' behaviour (``tests/core/model_explorer`` loads the real
packages and checks every id below names a node of the graph they build):

* PT2 (``ai-edge-model-explorer``'s built-in exported-program adapter): one graph ``graph``; a
  node's id is its FX node name, which is the canonical id's local part.
* ONNX (``model-explorer-onnx``): one graph per graph of the file, the main one named as the
  file names it (``<main>`` when the file records no name; an empty recorded name stays empty);
  a node's id is its name after the adapter's name fix:
  walking the main graph and, below each node, its subgraphs (attribute order, each subgraph a
  fresh scope), an unnamed node becomes ``node``, and a name already taken in its scope gets
  ``_1``, ``_2``, ... from one counter per base name shared by the whole walk.
* TOSA (``tosa-adapter-model-explorer``, flatbuffers only): one graph per region block, its id
  the region name; a node's id is ``<region>/op<position in its block>``. A region with several
  blocks gives graphs with the same id, so its operators are not placed.
* VGF (``vgf-adapter-model-explorer``): one graph ``Main``; a SPIR-V operation's id is
  ``<segment index>__op_<result id>``.

Pure; linear in the model's nodes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from perfline.core.errors import InputError, Problem
from perfline.core.formats import onnx, pt2, tosa
from perfline.core.formats._protobuf import fields
from perfline.core.formats.identity import source_operator_id
from perfline.core.formats.models import detect_format
from perfline.core.formats.vgf import read_segments, vgf_operator_id

PT2_GRAPH = "graph"
VGF_GRAPH = "Main"
ONNX_UNNAMED_GRAPH = "<main>"


@dataclass(frozen=True)
class NodeRef:
    """A node of the graph Model Explorer shows."""

    graph: str
    node: str


@dataclass(frozen=True)
class ExplorerGraph:
    """A model's canonical source-operator ids mapped onto Model Explorer node ids."""

    format: str
    nodes: dict[str, NodeRef]
    unplaced: dict[str, str]


def _pt2(data: bytes, source: str) -> ExplorerGraph:
    program = pt2.read_pt2(data, source)
    nodes = {source_operator_id(n.name): NodeRef(PT2_GRAPH, n.name) for n in program.nodes}
    return ExplorerGraph("pt2", nodes, {})


class _NameFix:
    """The ONNX adapter's renaming of unnamed and duplicate node names."""

    def __init__(self) -> None:
        self.counter: Counter[str] = Counter()

    def unique(self, preferred: str, used: set[str]) -> str:
        name = preferred
        while name in used:
            self.counter[preferred] += 1
            name = f"{preferred}_{self.counter[preferred]}"
        used.add(name)
        return name

    def fix(self, name: str, used: set[str]) -> str:
        if not name:
            return self.unique("node", used)
        if name in used:
            return self.unique(name, used)
        used.add(name)
        return name


def _subgraphs(model: onnx.OnnxModel) -> dict[str, list[list[onnx.OnnxNode]]]:
    """Node path -> its subgraphs' node lists, in attribute order."""
    graphs: dict[str, dict[str, list[onnx.OnnxNode]]] = {}
    for node in model.nested:
        owner, _, rest = node.path.rpartition(".node[")
        parent, _, label = owner.rpartition(".")
        del rest
        graphs.setdefault(parent, {}).setdefault(label, []).append(node)
    return {
        parent: [sorted(nodes, key=lambda n: n.index) for nodes in by_label.values()]
        for parent, by_label in graphs.items()
    }


def _graph_name_recorded(data: bytes, source: str) -> bool:
    """Whether the main graph's ``name`` field is present (an empty name is still a name)."""
    recorded = False
    for field in fields(memoryview(data), 0, source, "ModelProto"):
        if field.number == 7:
            graph = field.as_bytes(source, "ModelProto.graph")
            recorded = any(
                item.number == 2 for item in fields(graph, field.value_offset, source, "graph")
            )
    return recorded


def _onnx(data: bytes, source: str) -> ExplorerGraph:
    model = onnx.read_onnx(data, source)
    graph = model.graph_name
    if not graph and not _graph_name_recorded(data, source):
        graph = ONNX_UNNAMED_GRAPH
    subgraphs = _subgraphs(model)
    fixer = _NameFix()
    fixed: dict[int, str] = {}

    def walk(nodes: list[onnx.OnnxNode], top: bool) -> None:
        used: set[str] = set()
        for node in nodes:
            name = fixer.fix(node.name, used)
            if top:
                fixed[node.index] = name
            for subgraph in subgraphs.get(node.path, ()):
                walk(subgraph, False)

    walk(list(model.nodes), True)
    nodes = {source_operator_id(str(i)): NodeRef(graph, name) for i, name in fixed.items()}
    return ExplorerGraph("onnx", nodes, {})


def _tosa(data: bytes, source: str) -> ExplorerGraph:
    if data[4:8] != tosa.TOSA_IDENTIFIER:
        raise InputError(
            source,
            Problem(
                "byte 4",
                "expected a TOSA flatbuffer: Model Explorer's TOSA adapter "
                "reads .tosa flatbuffers, not MLIR text",
            ),
        )
    model = tosa.read_tosa_flatbuffer(data, source)
    blocks: dict[str, list[str]] = {}
    for operator in model.operators:
        names = blocks.setdefault(operator.region, [])
        if operator.block not in names:
            names.append(operator.block)
    positions: Counter[tuple[str, str]] = Counter()
    nodes: dict[str, NodeRef] = {}
    unplaced: dict[str, str] = {}
    for operator in model.operators:
        identity = source_operator_id(str(operator.id))
        place = (operator.region, operator.block)
        position = positions[place]
        positions[place] += 1
        if len(blocks[operator.region]) > 1:
            unplaced[identity] = (
                f"region {operator.region!r} has {len(blocks[operator.region])} blocks: Model "
                "Explorer shows them as graphs with one id"
            )
            continue
        nodes[identity] = NodeRef(operator.region, f"{operator.region}/op{position}")
    return ExplorerGraph("tosa", nodes, unplaced)


def _vgf(data: bytes, source: str) -> ExplorerGraph:
    nodes: dict[str, NodeRef] = {}
    for segment in read_segments(data, source):
        for result_id in segment.operation_ids:
            nodes[vgf_operator_id(segment.index, result_id)] = NodeRef(
                VGF_GRAPH, f"{segment.index}__op_{result_id}"
            )
    return ExplorerGraph("vgf", nodes, {})


def explorer_graph(data: bytes, source: str, name: str | None = None) -> ExplorerGraph:
    """The Model Explorer node of each canonical operator of the model file ``data``."""
    kind = detect_format(data, name or source)
    if kind == "pt2":
        return _pt2(data, source)
    if kind == "onnx":
        return _onnx(data, source)
    if kind == "tosa":
        return _tosa(data, source)
    return _vgf(data, source)
