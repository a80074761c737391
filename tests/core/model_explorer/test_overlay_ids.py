"""``perfline export --model-explorer`` against the real Model Explorer packages.

Each model is loaded with its real adapter (``explorer_nodes.py`` in the Model Explorer venv:
``ai-edge-model-explorer`` for PT2, ``model-explorer-onnx``, ``tosa-adapter-model-explorer``,
``vgf-adapter-model-explorer``), and the graph ids and node ids it builds are what the overlays
are checked against: every key of every overlay must name a node of that graph. Documents:
the DS-CNN measured with ExecuTorch (PT2 operators), real ONNX Runtime profiles of the DS-CNN
and of PaddleOCR's classifier (ONNX operators; the latter's file also holds 308 unnamed nodes),
and NX estimator outputs for the DS-CNN VGF and the TOSA file it was converted from. The mapping
of every canonical operator is also checked on more models (core-ATen PT2, the legacy ONNX
export, Silero with ``If`` subgraphs, a model with unnamed, duplicated and clashing names, FP
TOSA and VGF, a multi-segment VGF): same node, same operator type, same order.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.formats.models import model_operators
from perfline.core.model_explorer.graph_ids import explorer_graph
from perfline.server.ingest import estimator
from tests.core.model_explorer._explorer import explorer_graphs, explorer_python, run_in_explorer
from tests.support.locations import DATA

pytestmark = pytest.mark.timeout(1800)

DSCNN = DATA / "formats" / "dscnn"
THIRD = DATA / "formats" / "onnx-third-party"
PPOCR = THIRD / "ch_ppocr_mobile_v2.0_cls_infer.onnx"
PROFILES = DATA / "model_explorer"
MEASURED = DATA / "measured" / "portable"
NX_VGF = DATA / "nx_estimator" / "dscnn_int_dbg.vgf"
NX_TOSA = DATA / "nx_estimator" / "dscnn_int.tosa"

MODELS = [
    DSCNN / "dscnn.pt2",
    DSCNN / "dscnn_core_aten.pt2",
    DSCNN / "dscnn.onnx",
    DSCNN / "dscnn_legacy.onnx",
    PPOCR,
    THIRD / "silero_vad_op18_ifless.onnx",
    DSCNN / "dscnn_int.tosa",
    DSCNN / "dscnn_fp.tosa",
    DSCNN / "dscnn_fp_dbg.vgf",
    DSCNN / "dscnn_int.vgf",
    NX_VGF,
    NX_TOSA,
    DATA / "nx_estimator" / "dscnn_multi_segment.vgf",
]


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Model path -> the graphs Model Explorer builds (the tricky ONNX models made there too)."""
    python = explorer_python()
    folder = tmp_path_factory.mktemp("tricky")
    empty, absent = folder / "empty_graph_name.onnx", folder / "no_graph_name.onnx"
    run_in_explorer(python, "make_tricky_onnx.py", str(empty), str(absent))
    found = explorer_graphs(python, [*MODELS, empty, absent])
    found["tricky"] = [str(empty), str(absent)]
    return found


def _nodes(graphs: dict[str, Any], model: Path | str) -> dict[str, dict[str, str | None]]:
    """Graph id -> {node id: label} of one model."""
    out: dict[str, dict[str, str | None]] = {}
    for graph in graphs[str(model)]["graphs"]:
        out.setdefault(graph["id"], {}).update({n: label for n, label in graph["nodes"]})
    return out


def _export(
    tmp_path: Path, document: dict[str, Any] | Path, model: Path, *options: str
) -> dict[str, Any]:
    if isinstance(document, dict):
        path = tmp_path / "document.json"
        path.write_text(json.dumps(document))
    else:
        path = document
    out = tmp_path / "overlay.json"
    done = CliRunner().invoke(
        cli, ["export", str(path), "--model-explorer", str(out), "--model", str(model), *options]
    )
    assert done.exit_code == 0, done.output
    overlay: dict[str, Any] = json.loads(out.read_text())
    return overlay


def _assert_keys_are_nodes(overlay: dict[str, Any], nodes: dict[str, dict[str, Any]]) -> None:
    assert overlay, "the overlay is empty"
    for graph_id, data in overlay.items():
        assert graph_id in nodes, f"{graph_id!r} is not a graph of the model: {list(nodes)}"
        missing = sorted(set(data["results"]) - set(nodes[graph_id]))
        assert not missing, f"overlay keys that name no node of {graph_id!r}: {missing[:10]}"
        assert data["gradient"][0]["stop"] == 0 and data["gradient"][-1]["stop"] == 1
        assert all(isinstance(v["value"], int | float) for v in data["results"].values())


def _analyze(args: list[str], tmp_path: Path) -> Path:
    out = tmp_path / "analysis"
    done = CliRunner().invoke(cli, ["analyze", *args, "--output-dir", str(out), "--json"])
    assert done.exit_code == 0, done.output
    path = tmp_path / "analysis.json"
    path.write_text(done.stdout)
    return path


def test_pt2_overlay_from_executorch_measurement(graphs: dict[str, Any], tmp_path: Path) -> None:
    document = _analyze(
        [str(MEASURED / "dscnn_portable.etrecord"), str(MEASURED / "dscnn_portable.etdump")],
        tmp_path,
    )
    overlay = _export(tmp_path, document, DSCNN / "dscnn.pt2")
    nodes = _nodes(graphs, DSCNN / "dscnn.pt2")
    _assert_keys_are_nodes(overlay, nodes)
    processed = json.loads(document.read_text())["results"][0]
    figures = {
        b["entity_id"].removeprefix("source_operator/"): m["value"]
        for b in processed["breakdowns"]
        if b["entity_id"].startswith("source_operator/")
        for m in b["metrics"]
        if m["name"] == "duration_avg"
    }
    placed = {k: v["value"] for k, v in overlay["graph"]["results"].items()}
    assert placed.keys() == figures.keys()  # every operator with a figure, flatten has none
    assert all(placed[k] == pytest.approx(figures[k], rel=1e-6) for k in placed)


@pytest.mark.parametrize(
    ("profile", "model"),
    [("dscnn_noopt.ort.json.gz", DSCNN / "dscnn.onnx"), ("ppocr_cls_noopt.ort.json.gz", PPOCR)],
)
def test_onnx_overlay_from_onnxruntime_profile(
    graphs: dict[str, Any], tmp_path: Path, profile: str, model: Path
) -> None:
    # The profiles are kept gzip-compressed; ONNX Runtime writes plain JSON, as analyzed here.
    plain = tmp_path / "onnxruntime_profile.json"
    plain.write_bytes(gzip.decompress((PROFILES / profile).read_bytes()))
    document = _analyze([str(model), str(plain)], tmp_path)
    overlay = _export(tmp_path, document, model, "--metric", "duration_avg")
    nodes = _nodes(graphs, model)
    _assert_keys_are_nodes(overlay, nodes)
    # ONNX Runtime names each event after its node, and the backend each source operator
    # after the node: the overlay places each operator's figure on the node of that name.
    processed = json.loads(document.read_text())["results"][0]
    names = {e["id"]: e["name"] for e in processed["entities"]}
    expected = {
        names[b["entity_id"]]: m["value"]
        for b in processed["breakdowns"]
        if b["entity_id"].startswith("source_operator/")
        for m in b["metrics"]
        if m["name"] == "duration_avg"
    }
    assert len(expected) > 10
    (placed,) = overlay.values()
    assert {k: v["value"] for k, v in placed["results"].items()} == pytest.approx(expected)


def _nx_outputs(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    from tests.support.estimator_outputs import write_outputs

    run = tmp_path / "estimator"
    run.mkdir()
    return run, write_outputs(run)


def test_vgf_overlay_from_nx_estimate(graphs: dict[str, Any], tmp_path: Path) -> None:
    run, expected = _nx_outputs(tmp_path)
    document = _analyze([str(NX_VGF), str(run)], tmp_path)
    overlay = _export(tmp_path, document, NX_VGF)
    _assert_keys_are_nodes(overlay, _nodes(graphs, NX_VGF))
    # A chain of one operation gives it its figure; conv + rescale chains have none per operator.
    alone = {f"0__op_{chain[0]}" for chain in expected["chains"] if len(chain) == 1}
    assert set(overlay["Main"]["results"]) == alone


def test_tosa_overlay_from_nx_estimate_of_converted_model(
    graphs: dict[str, Any], tmp_path: Path
) -> None:
    run, _ = _nx_outputs(tmp_path)
    found = estimator.classify_inputs([run])
    analysis = estimator.analyze_outputs(
        NX_VGF, found.outputs, source_model=NX_TOSA, converter_used=True
    )
    overlay = _export(tmp_path, analysis.document, NX_TOSA)
    nodes = _nodes(graphs, NX_TOSA)
    _assert_keys_are_nodes(overlay, nodes)
    operators = {
        o.id: o.op_type for o in model_operators(NX_TOSA.read_bytes(), str(NX_TOSA)).operators
    }
    mapping = explorer_graph(NX_TOSA.read_bytes(), str(NX_TOSA)).nodes
    by_node = {ref.node: identity for identity, ref in mapping.items()}
    for node in overlay["main"]["results"]:
        assert nodes["main"][node] == operators[by_node[node]]


def _same_type(ours: str, label: str | None) -> bool:
    # The PT2 adapter labels ``aten.conv2d`` what the file names ``aten.conv2d.default``.
    return label is not None and (ours == label or ours.startswith(label + "."))


def test_every_canonical_operator_is_the_same_node(graphs: dict[str, Any]) -> None:
    checked = 0
    for model in [*MODELS, *graphs["tricky"]]:
        data = Path(model).read_bytes()
        mapping = explorer_graph(data, str(model))
        operators = {o.id: o.op_type for o in model_operators(data, str(model)).operators}
        nodes = _nodes(graphs, model)
        assert mapping.nodes.keys() == operators.keys(), model
        order = {(g, n): i for i, (g, n) in enumerate((g, n) for g in nodes for n in nodes[g])}
        positions = []
        for identity, ref in mapping.nodes.items():
            assert ref.node in nodes.get(ref.graph, {}), f"{model}: {identity} -> {ref} not shown"
            label = nodes[ref.graph][ref.node]
            assert _same_type(operators[identity], label), f"{model}: {identity} is {label}"
            positions.append(order[(ref.graph, ref.node)])
        assert positions == sorted(positions), f"{model}: operators out of graph order"
        assert len(set(positions)) == len(positions), f"{model}: two operators on one node"
        checked += len(positions)
    assert checked > 900
