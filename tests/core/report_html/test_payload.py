"""The page data: figures checked against what the measurement and the documents say directly."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from perfline.core.report_html.payload import build_payload
from perfline.core.report_html.source_text import SourceText, function_names
from tests.support.documents import nx_document
from tests.support.html_documents import (
    MEASURED,
    RECORDED,
    SOURCE,
    example_document,
    inspector_figures,
    nx_processed,
)


def _example_view() -> dict[str, Any]:
    sources = {RECORDED: SourceText("dscnn.py", SOURCE.read_text())}
    payload = build_payload(example_document(), sources)
    (view,) = payload["views"]
    return view


def _name(view: dict[str, Any], ref: int) -> str:
    entities = view["entities"]
    return entities["names"][ref] or entities["ids"][ref]


def test_line_figures_are_executorchs_own() -> None:
    view = _example_view()
    lines, counts, total = inspector_figures()
    (file,) = view["files"]
    assert file["display"] == "dscnn.py"
    assert file["text"] == SOURCE.read_text().splitlines()
    shown = {line[0]: line for line in file["lines"]}
    for number, value in lines.items():
        assert shown[number][2] == pytest.approx(value, rel=1e-6)
        assert shown[number][4] == pytest.approx(value / total, rel=1e-6)
    assert view["metric"]["total"] == pytest.approx(total, rel=1e-6)
    # 9.6343969 ms of 11.9393676 ms: two decimals, the statistic, 80.7% rounded.
    assert view["labels"][shown[26][3]] == "9.63 ms avg · 81%"
    operators = [_name(view, ref) for ref in shown[26][5]]
    assert len(operators) == counts[26] == shown[26][6] == 4
    assert all(name.startswith("conv2d_") for name in operators)
    # Line 41 (x = self.blocks(x)), the outer frame of every block operator: its figure is
    # the inclusive one, the Inspector's per-run sums over the events whose traces hold it.
    runs, called = _events_holding(41)
    value = sum(runs) / len(runs)
    assert shown[41][2] == pytest.approx(value, rel=1e-6) and shown[41][6] == 24
    label_41 = view["labels"][shown[41][3]]
    assert label_41 == f"{value:.1f} ms avg · {value / total:.0%}" == "10.8 ms avg · 90%"
    assert shown[41][7] == f"{min(called)}-{max(called)}" == "24-27"  # it calls the block
    assert all(shown[n][7] is None for n in shown if n != 41)


def _events_holding(line: int) -> tuple[list[float], set[int]]:
    """From the Inspector's reading: per run, the summed ``raw_ms`` of the OPERATOR_CALL events
    whose stack traces hold ``dscnn.py`` line ``line``; and the user lines deeper in them."""
    inspector = json.loads((MEASURED / "dscnn_portable.inspector.json").read_text())
    (execute,) = [b for b in inspector["event_blocks"] if b["name"] == "Execute"]
    runs: list[float] = []
    deeper: set[int] = set()
    for event in execute["events"]:
        frames = [
            int(n)
            for trace in event["stack_traces"].values()
            for n in re.findall(r'File "/home/dev/kws/dscnn\.py", line (\d+)', trace)
        ]
        if event["name"] != "OPERATOR_CALL" or line not in frames:
            continue
        runs = (
            [a + b for a, b in zip(runs, event["raw_ms"], strict=True)]
            if runs
            else list(event["raw_ms"])
        )
        deeper.update(frames[frames.index(line) + 1 :])
    return runs, deeper


def _tree(view: dict[str, Any]) -> tuple[dict[str, Any], list[list[int]]]:
    tree = view["tree"]
    kids: list[list[int]] = [[] for _ in tree["parent"]]
    for node, parent in enumerate(tree["parent"]):
        if parent >= 0:
            assert parent < node  # pre-order
            kids[parent].append(node)
    return tree, kids


def test_example_tree_sums_and_path() -> None:
    view = _example_view()
    tree, kids = _tree(view)
    _, _, total = inspector_figures()
    assert tree["size"][0] == pytest.approx(total, rel=1e-6)
    for node, children in enumerate(kids):
        if children:
            sizes = [tree["size"][c] for c in children]
            assert sizes == sorted(sizes, reverse=True)
            assert tree["size"][node] == pytest.approx(sum(sizes), rel=1e-6)
    kinds = tree["kinds"]
    # conv2d_2 sits at model > DSCNN > blocks > blocks.0 > blocks.0.pointwise > forward > line 26.
    (leaf,) = [
        n
        for n in range(len(tree["parent"]))
        if tree["entity"][n] >= 0 and _name(view, tree["entity"][n]) == "conv2d_2"
    ]
    path = []
    node = leaf
    while node >= 0:
        text = tree["label"][node] or _name(view, tree["entity"][node])
        path.append((kinds[tree["kind"][node]], text))
        node = tree["parent"][node]
    assert path[::-1][1:] == [
        ("module", "dscnn.DSCNN"),
        ("module", "blocks"),
        ("module", "blocks.0"),
        ("module", "blocks.0.pointwise"),
        ("function", "DSBlock.forward"),
        ("line", "dscnn.py:26"),
        ("operator", "conv2d_2"),
    ]


def _raw_chain_totals(chains: int) -> dict[str, int]:
    raw = nx_document(chains)["results"][0]
    return {
        b["entity_id"]: next(m["value"] for m in b["metrics"] if m["name"] == "total_cycles")
        for b in raw["breakdowns"]
        if b["entity_id"].startswith("chain/")
    }


def test_nx_tree_counts_every_chain_once() -> None:
    chains = _raw_chain_totals(400)
    (view,) = build_payload(nx_processed(400), {})["views"]
    tree, _ = _tree(view)
    assert view["metric"]["name"] == "total_cycles"
    assert tree["size"][0] == sum(chains.values())
    units = [n for n, k in enumerate(tree["kind"]) if tree["kinds"][k] == "unit"]
    assert sum(tree["size"][n] for n in units) == sum(chains.values())
    shared = [n for n in units if str(n) in tree["spans"]]
    assert shared, "width-2 chains are shared by their two operators"
    for node in shared:
        assert tree["span_counts"][str(node)] == 2
        parent = tree["parent"][node]
        assert tree["kinds"][tree["kind"][parent]] in ("line", "module")


def test_nx_table_columns_and_values() -> None:
    raw = nx_document(50)["results"][0]
    (view,) = build_payload(nx_processed(50), {})["views"]
    table = view["table"]
    names = [c["name"] for c in table["columns"]]
    assert names[0] == "total_cycles" and len(names) == 10
    operators = [e for e in raw["entities"] if e["kind"] == "source_operator"]
    assert len(table["rows"]) == len(operators)
    # An operator alone in its chain has the chain's figures; one of two has none of its own.
    chain_values = {b["entity_id"]: [m["value"] for m in b["metrics"]] for b in raw["breakdowns"]}
    by_name = {_name(view, row[0]): row for row in table["rows"]}
    checked = shared_checked = 0
    for chain in (e for e in raw["entities"] if e["kind"] == "chain"):
        children = chain["child_ids"]
        if len(children) == 1 and children[0].startswith("source_operator/"):
            row = by_name[children[0]]
            metric_order = [m["name"] for m in raw["breakdowns"][0]["metrics"]]
            values = dict(zip(metric_order, chain_values[chain["id"]], strict=True))
            assert row[5:] == [values[n] for n in names]
            checked += 1
        elif len(children) == 2 and all(c.startswith("source_operator/") for c in children):
            assert all(by_name[c][5:] == [None] * 10 for c in children)
            assert all(by_name[c][4] for c in children)  # measured in that chain
            shared_checked += 1
    assert checked > 10 and shared_checked > 3


def test_missing_sources_keep_their_lines() -> None:
    document = example_document()
    payload = build_payload(document, {})
    (file,) = payload["views"][0]["files"]
    assert file["display"] == RECORDED and file["text"] is None
    assert file["missing"] == "source not found"
    assert [line[0] for line in file["lines"]] == [24, 25, 26, 27, 40, 41, 42, 43, 44]
    told = {RECORDED: SourceText("kws/dscnn.py", None, missing="not found in the workspace")}
    (file,) = build_payload(document, told)["views"][0]["files"]
    assert (file["display"], file["missing"]) == ("kws/dscnn.py", "not found in the workspace")


def test_summary() -> None:
    summary = build_payload(example_document(), {})["summary"]
    assert summary["model"]["name"] == "dscnn_portable.etrecord"
    (result,) = summary["results"]
    assert (result["kind"], result["mode"], result["runs"]) == ("performance", "measured", "10")
    assert result["producer"] == "neural-technology-profiling-data"
    metrics = {m["name"]: m for m in result["metrics"]}
    # the number as figure_text writes it; the table's header names the unit
    assert metrics["inference_time"]["number"] == "12.0" and metrics["inference_time"]["unit"]
    assert metrics["inference_time"]["samples"] == "10 samples"
    assert metrics["total_cycles"]["value"] is None and metrics["total_cycles"]["reason"]
    assert metrics["total_cycles"]["number"] is None
    size = example_document()["model"]["size_bytes"]
    assert size > 1000 and summary["model"]["size"] == f"{size:,} bytes"
    assert result["warnings"]


def test_function_names() -> None:
    names = function_names(SOURCE.read_text())
    assert (names[24], names[26], names[40], names[16], names[3]) == (
        "DSBlock.forward",
        "DSBlock.forward",
        "DSCNN.forward",
        "DSBlock.__init__",
        None,
    )
    nested = "def outer():\n    def inner():\n        return 1\n    return inner\n"
    assert function_names(nested)[3] == "outer.<locals>.inner"
    assert function_names(nested)[4] == "outer"
    assert function_names("def broken(:\n") == [None, None, None]
