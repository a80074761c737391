"""The same line in every runtime: ExecuTorch portable, XNNPACK and ONNX Runtime side by side."""

from __future__ import annotations

import statistics

import pytest

from perfline.core.compare.side_by_side import side_by_side
from perfline.core.pipeline import postprocess
from perfline.server.ingest.executorch import load_etdump_document
from tests.support.compare_paths import ONNX_MODEL, ORT_NOOPT, et_pair
from tests.support.ort_runs import ort_run
from tests.support.raw_events import node_lines, raw_line_runs

FILE = "/home/dev/kws/dscnn.py"


def test_each_runtimes_figures_on_each_line() -> None:
    documents = {
        "portable": postprocess(load_etdump_document(*et_pair("portable"))),
        "xnnpack": postprocess(load_etdump_document(*et_pair("xnnpack"))),
        "onnxruntime": postprocess(ort_run(ONNX_MODEL, ORT_NOOPT)),
    }
    table = side_by_side(documents)
    assert {line for file, line in table if file == FILE} == {24, 25, 26, 27, 40, 41, 42, 43, 44}
    # Line 41 (``x = self.blocks(x)``), the call line: inclusive in both runtimes with
    # kernels on lines; it calls the lines each export kept (BatchNorm folded into the
    # convolutions in ONNX, so the block's operators carry lines 25 and 27 there).
    call = table[(FILE, 41)]
    assert set(call) == {"portable", "onnxruntime"}
    assert [n for _, n in call["portable"].calls] == [24, 25, 26, 27]
    below = set().union(*(lines for lines in node_lines().values() if 41 in lines)) - {41}
    assert [n for _, n in call["onnxruntime"].calls] == sorted(below) == [25, 27]
    assert call["onnxruntime"].runs["duration_avg"] == pytest.approx(
        raw_line_runs(ORT_NOOPT)[41], abs=1e-12
    )
    assert not table[(FILE, 44)]["portable"].calls
    # Line 44 (the classifier) has a figure in portable and ONNX Runtime, none in XNNPACK
    # (its one delegate call covers the whole graph).
    runs = table[(FILE, 44)]
    assert set(runs) == {"portable", "onnxruntime"}
    onnx = runs["onnxruntime"]
    expected = raw_line_runs(ORT_NOOPT)[44]
    assert onnx.runs["duration_avg"] == pytest.approx(expected, abs=1e-12)
    (average,) = [m for m in onnx.metrics if m["name"] == "duration_avg"]
    assert average["value"] == pytest.approx(statistics.fmean(expected), rel=1e-12)
    assert runs["portable"].producer == "neural-technology-profiling-data"
    assert len(runs["portable"].runs["duration_avg"]) == 10
    # Lines 24 and 26 (the plain convolutions) exist only in ExecuTorch: the ONNX exporter
    # folded BatchNorm into them and kept the BatchNorm's trace (lines 25 and 27).
    assert set(table[(FILE, 24)]) == {"portable"}
    assert set(table[(FILE, 43)]) == {"onnxruntime"}  # the flatten view: no kernel in ExecuTorch
