"""The line index after a value-only refresh equals a fresh index of the same result.

A job's ``IndexMemo`` keeps the graph part of its index (skeleton, each line's facts) and
what its figures were decided from (breakdown rows, the dominant-metric choice, the
model total's carriers: ``server/line_figures.py``); each run checks what it may reuse.
Every test here builds the index of each state twice, with the job's memos (the way the
daemon does, one run after the other) and without any, and compares every field of every
entry, the diagnostics and the entity table; and checks every entry's figures against
``core.dominant_metric``'s rules applied to the result's breakdowns directly (so the
route both indexes share is checked too), and the figures of the probe against values
computed here from its input.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from perfline.core import dominant_metric
from perfline.core.pipeline import PipelineSettings, postprocess, postprocess_with_layouts
from perfline.core.pipeline_memo import PipelineMemo
from perfline.core.projection import BreakdownLayout, FloatSums
from perfline.server.engine import Engine
from perfline.server.index_memo import IndexMemo
from perfline.server.line_entries import JobIndex
from perfline.server.line_index import breakdowns_by_entity, build_line_index
from tests.support.cases import CASES
from tests.support.documents import nx_document, with_values
from tests.support.server_helpers import INPUT_DOC, copy_kws, load

JOB = "job"


def _none(recorded: str) -> Path | None:
    return None


def _served(index: JobIndex) -> dict[str, Any]:
    """Everything the index serves, as plain data (every field of every entry)."""
    lines = {
        file: {
            number: [
                (
                    entry.facts,
                    json.dumps(entry.metrics, sort_keys=True),
                    entry.value,
                    entry.statistic,
                    entry.metric,
                    entry.total,
                    entry.measured_operators,
                    entry.label,
                    entry.share,
                )
                for entry in entries
            ]
            for number, entries in per.items()
        }
        for file, per in index.lines.items()
    }
    return {
        "lines": lines,
        "diagnostics": dict(index.diagnostics),
        "entities": {key: json.dumps(value) for key, value in index.entities.items()},
    }


def _same_as_fresh(
    document: dict[str, Any],
    memo: IndexMemo,
    resolve: Callable[[str], Path | None] = _none,
    metric: str | None = None,
    layouts: Sequence[BreakdownLayout | None] = (),
) -> JobIndex:
    """The memoized index of ``document``, checked against a fresh one (``layouts``: the
    breakdown layouts the pipeline returned with this very document)."""
    kept = build_line_index(JOB, document, resolve, metric, memo, layouts)
    fresh = build_line_index(JOB, copy.deepcopy(document), resolve, metric)
    assert _served(kept) == _served(fresh)
    assert kept.lines == fresh.lines  # LineEntry equality too
    _by_the_rules(kept, document, metric)
    return kept


def _by_the_rules(index: JobIndex, document: dict[str, Any], metric: str | None) -> None:
    """Every entry's figures as ``core.dominant_metric``'s rules give them, applied to the
    result's breakdowns directly (no rows, no kept choice, no kept carriers)."""
    for result_index, result in enumerate(document["results"]):
        metrics_of = breakdowns_by_entity(result)
        lines = [e for e in result["entities"] if e.get("kind") == "code_line"]
        key = dominant_metric.choose_metric((metrics_of.get(e["id"], ()) for e in lines), metric)
        total = dominant_metric.model_total(result, key) if key is not None else None
        for per in index.lines.values():
            for entries in per.values():
                for entry in entries:
                    if entry.facts.result_index != result_index:
                        continue
                    own = metrics_of.get(entry.facts.entity_id, [])
                    found = dominant_metric.value_of(own, key) if key else (None, None)
                    assert entry.metrics == tuple(own)
                    assert (entry.value, entry.statistic) == found
                    assert (entry.metric, entry.total) == (key, total)


def _p02_with_lines() -> dict[str, Any]:
    """Probe P02 (two chains reach source ``a`` through their own performance groups:
    unequal figures conflict, equal ones are one copy) with a third chain over source
    ``b`` and a code stack over each source: ``model.py`` lines 3 (``a``) and 5 (``b``)."""
    document: dict[str, Any] = json.loads(
        (CASES / "probes" / "P02_pg_route_unequal_values_conflict.json").read_text()
    )
    result = document["results"][0]
    result["entities"] += [
        {"id": "chain/segment_0/3", "kind": "chain", "name": "c3"},
        {"id": "source_operator/segment_0/b", "kind": "source_operator", "name": "b"},
        {"id": "code_stack/a", "kind": "code_stack", "name": "a"},
        {"id": "code_stack/b", "kind": "code_stack", "name": "b"},
    ]
    by_id = {e["id"]: e for e in result["entities"]}
    by_id["chain/segment_0/3"]["child_ids"] = ["source_operator/segment_0/b"]
    for stack, line, source in (("a", 3, "a"), ("b", 5, "b")):
        by_id[f"code_stack/{stack}"]["attributes"] = {"file": "model.py", "line": line}
        by_id[f"code_stack/{stack}"]["child_ids"] = [f"source_operator/segment_0/{source}"]
    third = copy.deepcopy(result["breakdowns"][0])
    third["entity_id"] = "chain/segment_0/3"
    result["breakdowns"].append(third)
    return document


def _line(index: JobIndex, number: int) -> tuple[float | None, int]:
    (entry,) = index.lines["model.py"][number]
    return entry.value, entry.measured_operators


@pytest.mark.parametrize("float_sums", ["exact", "reference"])
@pytest.mark.parametrize("kind", [int, float])
def test_a_conflict_that_becomes_one_figure_and_back(float_sums: FloatSums, kind: type) -> None:
    document = _p02_with_lines()
    settings = PipelineSettings(use_backend_defaults=False, float_sums=float_sums)
    chains = ("chain/segment_0/1", "chain/segment_0/2", "chain/segment_0/3")
    steps = [(2, 3, 1), (2, 2, 1), (4, 4, 9), (2, 3, 9), (5, 7, 4), (3, 3, 3), (6, 6, 8)]
    pipeline, memo = PipelineMemo(), IndexMemo()
    for first, second, third in steps:
        values = dict(zip(chains, (kind(first), kind(second), kind(third)), strict=True))
        run = postprocess_with_layouts(with_values(document, values), settings, memo=pipeline)
        processed = run.document
        index = _same_as_fresh(processed, memo, layouts=run.layouts)
        # line 3: one copy of equal figures, nothing for a conflict (its one operator is
        # still measured: by its chains); line 5: chain 3's figure
        assert _line(index, 3) == ((float(first), 1) if first == second else (None, 1))
        assert _line(index, 5) == (float(third), 1)
        (entry,) = index.lines["model.py"][5]
        assert entry.total == float(first + second + third)  # the three chains: top-most


def _revalued(document: dict[str, Any], rng: random.Random, tied: bool) -> dict[str, Any]:
    """New values everywhere; ``tied``: from a handful, so that figure sets become equal
    (conflicts turn into one figure) and unequal again."""
    changed = copy.deepcopy(document)
    for result in changed["results"]:
        for breakdown in result.get("breakdowns", []):
            for metric in breakdown["metrics"]:
                value = metric["value"]
                new = rng.choice((1, 2, 3)) if tied else rng.randint(0, 100_000)
                metric["value"] = new * 0.1 if type(value) is float else new
    return changed


@pytest.mark.parametrize("float_values", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_nx_shaped_value_changes(float_values: bool, seed: int) -> None:
    base = nx_document(60, seed=seed, float_values=float_values)
    rng = random.Random(seed)
    pipeline, memo = PipelineMemo(), IndexMemo()
    reused = 0
    last = None
    processed_before: list[dict[str, Any]] = []
    for step in range(8):
        tied = step % 3 == 2
        document = base if step == 0 else _revalued(base, rng, tied=tied)
        run = postprocess_with_layouts(document, PipelineSettings(), memo=pipeline)
        _same_as_fresh(run.document, memo, layouts=run.layouts)
        choice = memo.kept(0).choice
        reused += choice is not None and choice is last
        last = choice
        processed_before.append(run.document)
    assert reused >= 1  # the kept choice was taken (the result's metrics are plain)
    # an equal breakdown layout spared the checks on value-only steps
    assert memo.kept(0).trusted >= 2
    # an older result (a stage memo's hit: an edit undone) comes without layouts: checked
    trusted = memo.kept(0).trusted
    for older in processed_before[-3::-2]:
        _same_as_fresh(older, memo)
    assert memo.kept(0).trusted == trusted


def _layout_of(breakdowns: list[dict[str, Any]]) -> BreakdownLayout:
    """The layout of ``breakdowns`` read from the records themselves."""
    return BreakdownLayout(
        [b["entity_id"] for b in breakdowns],
        [tuple((m["name"], m["unit"], m["aggregation"]) for m in b["metrics"]) for b in breakdowns],
    )


@pytest.mark.parametrize("float_values", [False, True])
def test_the_layout_returned_with_the_output_describes_it(float_values: bool) -> None:
    """The pipeline's layout of a result's breakdowns is the layout of the very output it
    comes with, on a full run and on every value-only replay; a result the projection
    does not go by rows for (or a run without a memo) comes with none."""
    pipeline = PipelineMemo()
    base = nx_document(20, seed=3, float_values=float_values)
    rng = random.Random(3)
    layouts: list[BreakdownLayout] = []
    for step in range(4):
        document = base if step == 0 else _revalued(base, rng, tied=step == 2)
        run = postprocess_with_layouts(document, PipelineSettings(), memo=pipeline)
        (layout,) = run.layouts
        assert layout is not None  # a plain NX result: a row plan, a layout
        assert layout == _layout_of(run.document["results"][0]["breakdowns"])
        layouts.append(layout)
    assert all(layout == layouts[0] for layout in layouts)
    # compared as data: an equal copy is equal, a reordered one is not
    copied = BreakdownLayout(list(layouts[0].entity_ids), list(layouts[0].metrics))
    assert copied == layouts[0] and copied is not layouts[0]
    swapped = list(layouts[0].entity_ids)
    swapped[0], swapped[-1] = swapped[-1], swapped[0]
    assert BreakdownLayout(swapped, list(layouts[0].metrics)) != layouts[0]
    # no memo: no row plan, no layout
    assert postprocess_with_layouts(base, PipelineSettings()).layouts == [None]
    # a result that is not plain (one metric aggregated otherwise): the projection goes by
    # figure sets, no row plan, nothing said about its layout
    mixed = copy.deepcopy(base)
    mixed["results"][0]["breakdowns"][0]["metrics"][0]["aggregation"] = "max"
    processed = postprocess_with_layouts(mixed, PipelineSettings(), memo=PipelineMemo())
    assert processed.layouts == [None]


def test_the_index_trusts_an_equal_layout_and_checks_any_other() -> None:
    """The rows and choice are reused without checks only for a layout equal (as data) to
    the one they were checked against; any other layout is checked record by record."""
    pipeline, memo = PipelineMemo(), IndexMemo()
    base = nx_document(20, seed=5)
    first = postprocess_with_layouts(base, PipelineSettings(), memo=pipeline)
    _same_as_fresh(first.document, memo, layouts=first.layouts)
    (layout,) = first.layouts
    assert layout is not None
    second = postprocess_with_layouts(
        _revalued(base, random.Random(5), tied=False), PipelineSettings(), memo=pipeline
    )
    equal = BreakdownLayout(list(layout.entity_ids), list(layout.metrics))
    _same_as_fresh(second.document, memo, layouts=[equal])
    assert memo.kept(0).trusted == 1
    other = BreakdownLayout(list(layout.entity_ids), [()] * len(layout.metrics))
    third = postprocess_with_layouts(
        _revalued(base, random.Random(6), tied=False), PipelineSettings(), memo=pipeline
    )
    _same_as_fresh(third.document, memo, layouts=[other])
    assert memo.kept(0).trusted == 1  # checked, not trusted


def _kept_entities(processed: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """Copies of ``processed`` that share its entity lists (as the structure memo hands
    them over when the graph is unchanged), to be edited freely."""

    def variant() -> dict[str, Any]:
        copied = copy.deepcopy(processed)
        for mine, theirs in zip(copied["results"], processed["results"], strict=True):
            mine["entities"] = theirs["entities"]
        return copied

    return variant


def _code_line_breakdowns(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for breakdown in document["results"][0]["breakdowns"]:
        if breakdown["entity_id"].startswith("code_line/"):
            yield breakdown


def _edits() -> list[Callable[[dict[str, Any]], None]]:
    """Changes of a processed document's breakdowns that the kept rows or choice must not
    survive (each on top of new values)."""

    def first_line(document: dict[str, Any]) -> dict[str, Any]:
        return next(_code_line_breakdowns(document))

    def not_a_number(document: dict[str, Any]) -> None:
        first_line(document)["metrics"][0]["value"] = "12"

    def not_finite(document: dict[str, Any]) -> None:
        for metric in first_line(document)["metrics"]:
            metric["value"] = float("nan")

    def qualified(document: dict[str, Any]) -> None:
        for breakdown in _code_line_breakdowns(document):
            for metric in breakdown["metrics"]:
                metric["qualifiers"] = {"statistic": "p50"}

    def renamed(document: dict[str, Any]) -> None:
        for breakdown in _code_line_breakdowns(document):
            breakdown["metrics"][0]["name"] = "cycles"

    def dropped_metric(document: dict[str, Any]) -> None:
        for breakdown in _code_line_breakdowns(document):
            del breakdown["metrics"][-1]

    def twice(document: dict[str, Any]) -> None:
        breakdowns = document["results"][0]["breakdowns"]
        breakdowns.append(copy.deepcopy(first_line(document)))

    def reordered(document: dict[str, Any]) -> None:
        document["results"][0]["breakdowns"].reverse()

    def removed(document: dict[str, Any]) -> None:
        breakdowns = document["results"][0]["breakdowns"]
        breakdowns.remove(first_line(document))

    def not_a_record(document: dict[str, Any]) -> None:
        document["results"][0]["breakdowns"].insert(1, ["not", "a", "breakdown"])

    def no_segment_figures(document: dict[str, Any]) -> None:
        result = document["results"][0]
        result["breakdowns"] = [
            b for b in result["breakdowns"] if not b["entity_id"].startswith("segment/")
        ]

    def one_segment_uncounted(document: dict[str, Any]) -> None:
        for breakdown in document["results"][0]["breakdowns"]:
            if breakdown["entity_id"].startswith("segment/"):
                breakdown["metrics"] = [
                    dict(m, name=m["name"] + "_x") for m in breakdown["metrics"]
                ]
                return

    def odd_entity_id(document: dict[str, Any]) -> None:
        first_line(document)["entity_id"] = ["code_line/x"]

    def not_a_metric(document: dict[str, Any]) -> None:
        first_line(document)["metrics"].append("junk")

    def model_metric(document: dict[str, Any]) -> None:
        metric = dict(first_line(document)["metrics"][-1], value=10**6)
        document["results"][0]["metrics"] = [metric]

    return [
        not_a_number,
        not_finite,
        qualified,
        renamed,
        dropped_metric,
        twice,
        reordered,
        removed,
        not_a_record,
        odd_entity_id,
        not_a_metric,
        no_segment_figures,
        one_segment_uncounted,
        model_metric,
    ]


def test_layout_changes_of_the_breakdowns_are_seen() -> None:
    processed = postprocess(nx_document(40), PipelineSettings())
    variant = _kept_entities(processed)
    rng = random.Random(5)
    memo = IndexMemo()
    _same_as_fresh(variant(), memo)
    for edit in _edits():
        document = _revalued(variant(), rng, tied=False)
        for result, kept in zip(document["results"], processed["results"], strict=True):
            result["entities"] = kept["entities"]
        _same_as_fresh(document, memo)  # new values only: the kept route
        edit(document)
        _same_as_fresh(document, memo)  # and the change
        _same_as_fresh(variant(), memo)  # back


def test_names_equal_as_values_but_not_as_text_are_told_apart() -> None:
    # 1 == True == 1.0, but a metric named 1 is shown as "1" and one named True as "True"
    processed = postprocess(nx_document(20), PipelineSettings())
    variant = _kept_entities(processed)
    memo = IndexMemo()
    for name in (1, True, 1.0, "1"):
        document = variant()
        for breakdown in _code_line_breakdowns(document):
            for metric in breakdown["metrics"]:
                metric["name"] = name
        index = _same_as_fresh(document, memo)
        entries = [e for per in index.lines.values() for es in per.values() for e in es]
        assert {e.metric.name for e in entries if e.metric} == {str(name)}


def _sum(name: str, value: int) -> dict[str, Any]:
    return {"name": name, "unit": "cycles", "value": value, "aggregation": "sum"}


def test_the_same_metrics_in_other_lines_or_under_other_names_are_seen() -> None:
    processed = postprocess(nx_document(20), PipelineSettings())
    variant = _kept_entities(processed)
    memo = IndexMemo()

    def laid_out(first: list[int], second: list[int], name: str = "op_cycles") -> dict[str, Any]:
        # every code line one metric, but the first two: the values given, in order
        document = variant()
        lines = list(_code_line_breakdowns(document))
        for breakdown in lines:
            breakdown["metrics"] = [_sum(name, 5)]
        lines[0]["metrics"] = [_sum(name, value) for value in first]
        lines[1]["metrics"] = [_sum(name, value) for value in second]
        return document

    # the same metrics, one after the other, cut into lines differently: the second line's
    # figure is its own first one (2, then 3)
    _same_as_fresh(laid_out([1], [2, 3]), memo)
    _same_as_fresh(laid_out([1, 2], [3]), memo)
    # the same layout under another name: another metric is shown
    _same_as_fresh(laid_out([1, 2], [3], name="total_cycles"), memo)


def test_a_configured_metric_is_honoured() -> None:
    processed = postprocess(nx_document(20), PipelineSettings())
    variant = _kept_entities(processed)
    memo = IndexMemo()
    shown = []
    for metric in (None, "op_cycles", "op_cycles", None, "l1_read_bytes"):
        index = _same_as_fresh(variant(), memo, metric=metric)
        entries = [e for per in index.lines.values() for es in per.values() for e in es]
        shown.append({e.metric.name for e in entries if e.metric})
    assert shown == [
        {"total_cycles"},
        {"op_cycles"},
        {"op_cycles"},
        {"total_cycles"},
        {"l1_read_bytes"},
    ]


def test_another_metric_or_resolver_is_honoured(tmp_path: Path) -> None:
    processed = postprocess(load(INPUT_DOC), PipelineSettings())
    variant = _kept_entities(processed)
    memo = IndexMemo()
    (tmp_path / "model.py").write_text("x\n" * 50)

    def into_workspace(recorded: str) -> Path | None:
        return tmp_path / "model.py"

    first = _same_as_fresh(variant(), memo)
    _same_as_fresh(variant(), memo, metric="op_cycles")
    moved = _same_as_fresh(variant(), memo, into_workspace)
    assert set(moved.lines) == {str(tmp_path / "model.py")} != set(first.lines)
    _same_as_fresh(variant(), memo)


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The DS-CNN measurement of ``examples/kws`` as the daemon serves it (statistics of
    runtime samples: not plain metrics)."""
    root = copy_kws(tmp_path_factory.mktemp("kws"))
    engine = Engine(root, debounce=0.0, settle=0.0)
    engine.start()
    assert engine.wait_idle(120)
    good = engine.result("dscnn-measured")
    assert good is not None
    document = copy.deepcopy(dict(good.document))
    engine.close()
    return document


def test_measured_statistics_refresh_like_a_fresh_index(measured: dict[str, Any]) -> None:
    variant = _kept_entities(measured)
    rng = random.Random(11)
    memo = IndexMemo()
    for _ in range(4):
        document = variant()
        for result in document["results"]:
            for breakdown in result.get("breakdowns", []):
                for metric in breakdown["metrics"]:
                    if type(metric.get("value")) is float:
                        metric["value"] = metric["value"] * rng.choice((0.5, 1.0, 2.0))
        index = _same_as_fresh(document, memo)
        assert any(
            e.value is not None for per in index.lines.values() for es in per.values() for e in es
        )
