"""Optimised ONNX Runtime profiles give figures on the source lines (fused and inferred timings
are additive; a line mixing exact and fused nodes sums both; a fused node spanning two lines
lands on their parent, on neither line).

Expectations come from the raw trace events and the model's own stack traces: which executed
node stands for which model nodes is written here from ONNX Runtime's naming (``relu_k_nchwc``
is ``node_relu_k`` and the Conv feeding it; ``X/MatMulAddFusion`` is ``X`` and the Add reading
its output; a node of the saved optimised model writing a model tensor stands for that
tensor's producer), and a line gets the sum of the means of the executed nodes whose model
nodes all carry that line, when every executed node touching the line does.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path
from typing import Any

import pytest

from perfline.core.backends.onnxruntime.document import analyze_profiles
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.formats.onnx import OnnxModel, read_onnx
from perfline.core.pipeline import postprocess
from tests.support.onnxruntime_data import ATTENTION_ONNX, DATA, DSCNN_ONNX, raw_runs

MIXER_ONNX = DATA / "mixer.onnx"


def _file(path: Path) -> InputFile:
    return InputFile(str(path), path.read_bytes())


def _processed(model: Path, profile: Path, optimized: Path | None = None) -> dict[str, Any]:
    options: dict[str, Any] = {} if optimized is None else {"optimized_model": _file(optimized)}
    document = analyze_profiles(
        _file(model), [_file(profile)], timestamp="2026-01-01T00:00:00Z", **options
    )
    processed: dict[str, Any] = postprocess(document)["results"][0]
    return processed


def _average(breakdown: dict[str, Any]) -> float | None:
    found = [m for m in breakdown["metrics"] if m["name"] == "duration_avg" and "value" in m]
    return float(found[0]["value"]) if found else None


def _figures(result: dict[str, Any], kind: str, key: str) -> dict[Any, float]:
    """Entity ``key`` (``line`` attribute or ``name``) -> its ``duration_avg``, for one kind."""
    entities = {e["id"]: e for e in result["entities"] if e["kind"] == kind}
    figures: dict[Any, float] = {}
    for breakdown in result["breakdowns"]:
        entity = entities.get(breakdown["entity_id"])
        value = _average(breakdown)
        if entity is not None and value is not None:
            figures[entity["attributes"]["line"] if key == "line" else entity[key]] = value
    return figures


def _lines_of(model: OnnxModel, source: str) -> list[set[int]]:
    """Per model node, the lines of ``source`` its stack trace names."""
    pattern = re.compile(re.escape(source) + r'", line (\d+),')
    return [
        {int(n) for n in pattern.findall(dict(node.metadata).get("pkg.torch.onnx.stack_trace", ""))}
        for node in model.nodes
    ]


def _originals(
    model: OnnxModel, executed: list[str], optimized: Path | None = None
) -> dict[str, set[int]]:
    """Executed node -> the model nodes it stands for, by ONNX Runtime's naming (empty: none)."""
    by_name = {node.name: node.index for node in model.nodes}
    producer = {t: node.index for node in model.nodes for t in node.outputs}
    readers: dict[str, list[int]] = {}
    for node in model.nodes:
        for tensor in node.inputs:
            readers.setdefault(tensor, []).append(node.index)
    written: dict[str, tuple[str, ...]] = {}
    if optimized is not None:
        written = {n.name: n.outputs for n in read_onnx(optimized.read_bytes(), "o").nodes}
    found: dict[str, set[int]] = {}
    for name in executed:
        relu = re.fullmatch(r"(relu(?:_\d+)?)_nchwc", name)
        if name in by_name:
            found[name] = {by_name[name]}
        elif relu is not None:
            index = by_name["node_" + relu.group(1)]
            found[name] = {index, producer[model.nodes[index].inputs[0]]}
        elif name.endswith("/MatMulAddFusion"):
            index = by_name[name.split("/")[0]]
            (add,) = readers[model.nodes[index].outputs[0]]
            found[name] = {index, add}
        else:
            found[name] = {producer[t] for t in written.get(name, ()) if t in producer}
    return found


def _expected_lines(
    lines: list[set[int]], per_node: dict[str, list[float]], originals: dict[str, set[int]]
) -> dict[int, float]:
    expected: dict[int, float] = {}
    for line in set().union(*lines):
        touching = [n for n, nodes in originals.items() if any(line in lines[i] for i in nodes)]
        if all(all(line in lines[i] for i in originals[n]) for n in touching):
            expected[line] = sum(statistics.fmean(per_node[n]) for n in touching)
    return expected


def test_dscnn_optimised_profile_gives_the_hot_lines_their_figures() -> None:
    profile = DATA / "dscnn_opt.json"
    _, per_node = raw_runs(profile)
    model = read_onnx(DSCNN_ONNX.read_bytes(), "m")
    lines = _lines_of(model, "dscnn.py")
    originals = _originals(model, list(per_node))
    assert all(len(originals[f"relu_{k}_nchwc"]) == 2 for k in range(1, 9))
    expected = _expected_lines(lines, per_node, originals)
    figures = _figures(_processed(DSCNN_ONNX, profile), "code_line", "line")
    # 25 and 27 (the depthwise and pointwise Conv+ReLU of each block, all fused) and the call
    # line 41 (their sum, 90% of the model) were blank before fused averages were additive.
    assert sorted(figures) == sorted(expected) == [25, 27, 40, 41, 42, 43, 44]
    for line, value in expected.items():
        assert figures[line] == pytest.approx(value, rel=1e-12), line
    assert figures[41] == pytest.approx(figures[25] + figures[27], rel=1e-12)


@pytest.mark.parametrize("optimized", [None, DATA / "mixer_opt.optimized.onnx"])
def test_a_line_mixing_exact_and_fused_nodes_gets_the_sum_of_both(optimized: Path | None) -> None:
    profile = DATA / "mixer_opt.json"
    durations, per_node = raw_runs(profile)
    model = read_onnx(MIXER_ONNX.read_bytes(), "m")
    lines = _lines_of(model, "mixer.py")
    originals = _originals(model, list(per_node), optimized)
    result = _processed(MIXER_ONNX, profile, optimized)
    figures = _figures(result, "code_line", "line")
    expected = _expected_lines(lines, per_node, originals)
    assert sorted(figures) == sorted(expected) == [13, 14, 15, 26, 27, 28, 29]
    for line, value in expected.items():
        assert figures[line] == pytest.approx(value, rel=1e-12), line
    # Line 14, ``gelu(self.up(y))``: three exact Gelu nodes and three fused MatMul+Add Gemms
    # (with the saved optimised model, also the reshapes ONNX Runtime put after each Gemm).
    on_14 = sorted(n for n, nodes in originals.items() if nodes and 14 in lines[min(nodes)])
    gelus = ["node_gelu", "node_gelu_1", "node_gelu_2"]
    gemms = [f"node_MatMul_{k}/MatMulAddFusion" for k in (1, 5, 9)]
    reshapes = [] if optimized is None else [n for n in on_14 if "gemm_output_reshape" in n]
    assert len(reshapes) == (0 if optimized is None else 3)
    assert on_14 == sorted([*gelus, *gemms, *reshapes])
    both = sum(statistics.fmean(per_node[n]) for n in [*gelus, *gemms, *reshapes])
    assert figures[14] == pytest.approx(both, rel=1e-12)
    # Nothing lost: the model's module holds every mapped node, the warning the rest.
    mapped = sum(statistics.fmean(v) for n, v in per_node.items() if originals[n])
    assert _figures(result, "nn_module", "name")["mixer.Net"] == pytest.approx(mapped, rel=1e-12)
    left = sum(sum(v) for n, v in per_node.items() if not originals[n]) / len(durations)
    total = sum(sum(v) for v in per_node.values()) / len(durations)
    warning = next(w for w in result["warnings"] if "left unattributed" in w)
    assert f"({left:.4g} of {total:.4g} ms per run on average, " in warning


def test_a_fused_node_spanning_two_lines_lands_on_their_parent_only() -> None:
    # The traces of attention.onnx: line 33 ``torch.matmul(q, k.transpose(-2, -1))``, line 34
    # ``scores / math.sqrt(...)``: ONNX Runtime runs MatMul + Div as one FusedMatMul.
    profile = DATA / "attention_opt.json"
    optimized = DATA / "attention_opt.optimized.onnx"
    _, per_node = raw_runs(profile)
    model = read_onnx(ATTENTION_ONNX.read_bytes(), "m")
    lines = _lines_of(model, "attention.py")
    names = [node.name for node in model.nodes]
    assert lines[names.index("node_matmul")] == {33} and lines[names.index("node_div")] == {34}
    unfused = _figures(
        _processed(ATTENTION_ONNX, DATA / "attention_noopt.json"), "code_line", "line"
    )
    assert {33, 34} <= set(unfused)
    result = _processed(ATTENTION_ONNX, profile, optimized)
    figures = _figures(result, "code_line", "line")
    assert 33 not in figures and 34 not in figures
    # The enclosing module (the forward that holds both lines) has it, and with it what the
    # optimiser rewrote across lines 31-34 (permute, select, k.transpose: Split / Transpose
    # nodes of ORT's own): the module's figure less every line's is exactly those nodes.
    spanning = [
        "node_matmul/MatMulScaleFusion/",
        "node_select_2/GatherSliceToSplitFusion",
        "Transpose_token_18",
        "Transpose_token_19",
        "node_transpose",
    ]
    module = _figures(result, "nn_module", "name")["attention.EncoderBlock"]
    rest = module - sum(figures.values())
    assert rest == pytest.approx(sum(statistics.fmean(per_node[n]) for n in spanning), rel=1e-9)
    assert rest > statistics.fmean(per_node["node_matmul/MatMulScaleFusion/"])
