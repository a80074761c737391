"""``perfline export``: what it writes and how it refuses (no Model Explorer needed here)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.model_explorer.graph_ids import _NameFix
from tests.support.html_documents import example_document
from tests.support.locations import DATA

DSCNN = DATA / "formats" / "dscnn"


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(example_document()))
    return path


def _export(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["export", *args])
    return done.exit_code, done.stderr


def test_writes_node_data_and_says_what_it_placed(document: Path, tmp_path: Path) -> None:
    out = tmp_path / "overlay.json"
    code, said = _export(
        str(document), "--model-explorer", str(out), "--model", str(DSCNN / "dscnn.pt2")
    )
    assert code == 0, said
    assert "29 operator figure(s) of duration_avg" in said
    assert "1 operator(s) have no figure of their own" in said  # flatten: a view, no kernel
    (graph,) = json.loads(out.read_text()).items()
    assert graph[0] == "graph"
    assert graph[1]["name"] == "duration_avg (ms)"
    assert len(graph[1]["results"]) == 29
    assert graph[1]["results"]["conv2d_2"]["value"] == pytest.approx(2.834281, rel=1e-6)


def test_refusals(document: Path, tmp_path: Path) -> None:
    out = str(tmp_path / "o.json")
    code, said = _export(str(document), "--model", str(DSCNN / "dscnn.pt2"))
    assert code == 2 and "--model-explorer" in said
    code, said = _export(str(document), "--model-explorer", out)
    assert code == 2 and "--model MODEL" in said
    code, said = _export(
        str(document), "--model-explorer", out, "--model", str(DSCNN / "dscnn.onnx")
    )
    assert code == 2 and str(document) in said and "perfline operators MODEL" in said
    code, said = _export(
        str(document),
        "--model-explorer",
        out,
        "--model",
        str(DSCNN / "dscnn.pt2"),
        "--metric",
        "no_such_metric",
    )
    assert code == 2 and "no_such_metric" in said
    mlir = tmp_path / "model.tosa.mlir"
    mlir.write_bytes(gzip.decompress((DSCNN / "dscnn_int_dbg.tosa.mlir.gz").read_bytes()))
    code, said = _export(str(document), "--model-explorer", out, "--model", str(mlir))
    assert code == 2 and "flatbuffer" in said
    code, said = _export(
        str(document),
        "--model-explorer",
        str(tmp_path / "none" / "o.json"),
        "--model",
        str(DSCNN / "dscnn.pt2"),
    )
    assert code == 2 and "does not exist" in said
    assert not Path(out).exists()


def test_onnx_name_fix_by_hand() -> None:
    fix = _NameFix()
    top: set[str] = set()
    # unnamed -> node, node_1; a duplicate -> dup_1; a literal node_1 clashes -> node_1_1.
    assert [fix.fix(n, top) for n in ["", "dup", "dup", ""]] == ["node", "dup", "dup_1", "node_1"]
    assert fix.fix("node_1", top) == "node_1_1"
    sub: set[str] = set()  # a subgraph: its own scope, the same counters
    assert [fix.fix(n, sub) for n in ["", ""]] == ["node", "node_2"]
    assert fix.fix("", top) == "node_3"
