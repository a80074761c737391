"""Two profiles of the same model, run interleaved in one process: nothing changed.

``tests/data/compare/interleaved`` holds two real onnxruntime profiles of DS-CNN, two
sessions with the same options fed alternately (A B B A ...) in one process
(``make_interleaved.py``). Any difference between them is the machine's noise, so:

* a naive comparison (a line or operator is "changed" when its mean moved by more than
  5%, or when a per-line test is below 5% without correcting for the number of tests)
  flags something;
* perfline's comparison (a rank test on the per-run values, Holm over each family)
  flags nothing, at any level: lines, code stacks, modules, operators, the model.
"""

from __future__ import annotations

import statistics

from perfline.core.compare import compare_documents
from perfline.core.compare.significance import mann_whitney_p
from perfline.core.pipeline import postprocess
from tests.support.compare_paths import INTERLEAVED_A, INTERLEAVED_B, ONNX_MODEL
from tests.support.ort_runs import ort_run
from tests.support.raw_events import raw_line_runs, raw_node_runs


def _relative_change(base: list[float], new: list[float]) -> float:
    return statistics.fmean(new) / statistics.fmean(base) - 1


def test_a_naive_per_line_threshold_flags_noise() -> None:
    base, new = raw_line_runs(INTERLEAVED_A), raw_line_runs(INTERLEAVED_B)
    assert len(base[40]) == len(new[40]) == 30
    flagged = {line for line in base if abs(_relative_change(base[line], new[line])) > 0.05}
    assert flagged  # e.g. line 40 (conv1 + its ReLU) moved by +7.7% between the sessions
    nodes_a, nodes_b = raw_node_runs(INTERLEAVED_A), raw_node_runs(INTERLEAVED_B)
    moved = {
        name: _relative_change(nodes_a[name], nodes_b[name])
        for name in nodes_a
        if abs(_relative_change(nodes_a[name], nodes_b[name])) > 0.10
    }
    assert any(change > 0.10 for change in moved.values())  # a "+12%" operator, from noise


def test_a_naive_uncorrected_test_flags_noise() -> None:
    nodes_a, nodes_b = raw_node_runs(INTERLEAVED_A), raw_node_runs(INTERLEAVED_B)
    uncorrected = {name for name in nodes_a if mann_whitney_p(nodes_a[name], nodes_b[name]) < 0.05}
    assert uncorrected  # one of the 21 operators passes a 5% test by chance


def test_the_comparison_flags_nothing() -> None:
    base = postprocess(ort_run(ONNX_MODEL, INTERLEAVED_A))
    new = postprocess(ort_run(ONNX_MODEL, INTERLEAVED_B))
    comparison = compare_documents(base, new)
    (result,) = comparison.results
    judged = [m for e in [result.model, *result.entities] for m in e.metrics]
    both = [m for m in judged if m.base is not None and m.new is not None]
    # Every time (and the model's inferences per second) both runs have was judged from its
    # 30 + 30 runs, and every execution count (30 in both) is exactly equal. (The projection
    # derives line 41's figure in one run only, as the reference does with float sums that
    # round differently by order; it is reported one-sided, never as a change.)
    counts = [m for m in both if m.name == "execution_count"]
    times = [m for m in both if m.name != "execution_count"]
    assert len(times) > 100 and len(times) + len(counts) == len(both)
    assert {m.method for m in times} == {"samples"}
    assert {m.base_runs for m in times} == {m.new_runs for m in times} == {30}
    assert {(m.method, m.base, m.new) for m in counts} == {("exact", 30.0, 30.0)}
    assert {e.kind for e in result.entities} >= {
        "code_line",
        "code_stack",
        "nn_module",
        "source_operator",
    }
    assert [m for m in judged if m.significant] == []
    assert {m.verdict for m in both} <= {"noise", "unchanged"}
    lines = {e.new_line: e for e in result.lines()}
    conv1 = lines[40].metric("duration_avg")
    assert conv1 is not None and conv1.relative is not None and conv1.relative > 0.05
    assert conv1.verdict == "noise"
