"""A structure memo makes no difference to the output, and is used only when the graph
is written exactly as last time."""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction
from typing import Any

import pytest

from perfline.build_info import core_build
from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.pipeline_memo import PipelineMemo
from perfline.core.projection import FloatSums, ProjectionMemo
from tests.support.cases import CASES
from tests.support.document_generator import generate
from tests.support.documents import nx_document, with_values


def _text(document: dict[str, Any]) -> str:
    return json.dumps(document, sort_keys=True)


def _revalued(document: dict[str, Any], seed: int, *, tied: bool = False) -> dict[str, Any]:
    """The same document with new integer and float values in every breakdown; ``tied``:
    drawn from a handful, so that figure sets often become equal (a conflict turns into one
    figure, two records into one entry) or stop being equal."""
    rng = random.Random(seed)
    changed = copy.deepcopy(document)
    for result in changed["results"]:
        for breakdown in result.get("breakdowns", []):
            for metric in breakdown["metrics"]:
                value = metric.get("value")
                if type(value) is int:
                    metric["value"] = rng.choice((1, 2, 3)) if tied else rng.randint(0, 1000)
                elif type(value) is float:
                    metric["value"] = (
                        rng.choice((0.1, 0.2, 0.3, 0.5)) if tied else rng.random() * 100
                    )
    return changed


SETTINGS = [
    PipelineSettings(),
    PipelineSettings(use_backend_defaults=False),
    PipelineSettings(float_sums="reference"),
    PipelineSettings(use_backend_defaults=False, float_sums="reference"),
]
"""With and without the NX default rule, in both float modes."""


def _projection_memo(memo: PipelineMemo) -> ProjectionMemo:
    return memo.state(0, "projection", ProjectionMemo)


@pytest.mark.parametrize("seed", range(40))
def test_same_output_with_and_without_the_memo(seed: int) -> None:
    first = generate(seed)
    runs = [
        first,
        _revalued(first, seed),
        _revalued(first, seed + 1000),
        _revalued(first, seed, tied=True),
        _revalued(first, seed + 1000, tied=True),
        first,
        generate(seed + 1),
    ]
    for settings in SETTINGS:
        memo = PipelineMemo()
        for document in runs:
            try:
                expected = _text(postprocess(document, settings))
            except InputError as error:
                with pytest.raises(InputError) as raised:
                    postprocess(document, settings, memo=memo)
                assert str(raised.value) == str(error)
                continue
            assert _text(postprocess(document, settings, memo=memo)) == expected


def test_an_unchanged_graph_is_recalled_and_a_changed_one_is_not() -> None:
    document = generate(7)
    memo = PipelineMemo()
    postprocess(document, memo=memo)
    computed = memo.computed
    assert memo.recalled == 0
    postprocess(_revalued(document, 1), memo=memo)
    assert memo.computed == computed  # validation, collapse, code lines, index: all recalled
    assert memo.recalled >= 4
    other = copy.deepcopy(document)
    other["results"][0]["entities"][0]["name"] = "renamed"
    postprocess(other, memo=memo)
    assert memo.computed > computed


def test_an_equal_but_differently_written_graph_is_not_taken_for_the_last_one() -> None:
    # 1 == 1.0 == True in Python, but they are different JSON values: each keeps its own
    document = generate(3)
    entity = document["results"][0]["entities"][0]
    memo = PipelineMemo()
    outputs = []
    for value in (1, 1.0, True):
        entity["attributes"] = {**entity.get("attributes", {}), "extra": value}
        outputs.append(postprocess(copy.deepcopy(document), memo=memo))
    written = [
        next(e for e in out["results"][0]["entities"] if e["id"] == entity["id"])["attributes"][
            "extra"
        ]
        for out in outputs
    ]
    assert [type(v) for v in written] == [int, float, bool]
    assert memo.recalled == 0


def test_a_graph_error_is_reported_again_on_the_next_run() -> None:
    document = generate(5)
    entities = document["results"][0]["entities"]
    entities.append({**entities[0]})  # a repeated id
    memo = PipelineMemo()
    for _ in range(2):
        with pytest.raises(InputError, match="must be unique"):
            postprocess(copy.deepcopy(document), memo=memo)


@pytest.mark.parametrize(
    ("first", "second", "alike"),
    [
        ([{"a": [1, 2.5, "x", None, True]}], [{"a": [1, 2.5, "x", None, True]}], True),
        ([1], [1.0], False),
        ([1], [True], False),
        ([0.0], [-0.0], False),
        ([{"a": 1, "b": 2}], [{"b": 2, "a": 1}], False),  # key order is written too
        ([[[[{"deep": [1]}]]]], [[[[{"deep": [1.0]}]]]], False),
        ([1, 2], [1, 2, 3], False),
    ],
)
def test_lists_are_interned_only_when_written_alike(
    first: list[Any], second: list[Any], alike: bool
) -> None:
    memo = PipelineMemo()
    assert memo.same(0, "entities", first) is first
    assert (memo.same(0, "entities", second) is first) is alike


def test_values_marshal_cannot_write_are_never_interned() -> None:
    memo = PipelineMemo()
    odd = [object()]
    assert memo.same(0, "entities", odd) is odd
    assert memo.same(0, "entities", odd) is odd


def _probe(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((CASES / "probes" / f"{name}.json").read_text())
    return document


def _figures_of(output: dict[str, Any], entity: str) -> list[Any]:
    return [
        [metric["value"] for metric in breakdown["metrics"]]
        for breakdown in output["results"][0]["breakdowns"]
        if breakdown["entity_id"] == entity
    ]


@pytest.mark.parametrize("float_sums", ["exact", "reference"])
@pytest.mark.parametrize("kind", [int, float])
def test_a_conflict_that_becomes_one_figure_and_back(float_sums: FloatSums, kind: type) -> None:
    # probe P02: two chains reach one source through their own performance groups; unequal
    # figures conflict (the source gets nothing), equal ones are one copy (it gets it)
    document = json.loads(
        (CASES / "probes" / "P02_pg_route_unequal_values_conflict.json").read_text()
    )
    chains = ("chain/segment_0/1", "chain/segment_0/2")
    source = "source_operator/segment_0/a"
    settings = PipelineSettings(use_backend_defaults=False, float_sums=float_sums)
    steps = [(2, 3), (2, 2), (4, 4), (2, 3), (5, 7), (3, 3)]
    memo = PipelineMemo()
    for first, second in steps:
        values = {chains[0]: kind(first), chains[1]: kind(second)}
        document = with_values(document, values)
        expected = postprocess(document, settings)
        assert _figures_of(expected, source) == ([] if first != second else [[kind(first)]])
        assert _text(postprocess(document, settings, memo=memo)) == _text(expected)
    replays = _projection_memo(memo)
    # equal to equal (2, 2 -> 4, 4) and unequal to unequal (2, 3 -> 5, 7) replay the last
    # run (as rows of numbers: the result is plain); every change between a conflict and
    # one figure projects again
    rows = 0 if kind is float and float_sums == "reference" else 2  # floats: figure sets
    assert (replays.replayed, replays.rows_replayed, replays.projected) == (2, rows, 4)


@pytest.mark.parametrize("float_sums", ["exact", "reference"])
def test_a_rounding_conflict_that_comes_and_goes(float_sums: FloatSums) -> None:
    # probe P11: 0.1 + 0.2 + 0.3 conflicts with itself in the reference's arithmetic
    # (two covers, two roundings), 0.5 + 0.25 + 0.125 does not, and integral floats
    # (1.0, 2.0, 4.0: every sum exact in any order) take the closed forms there
    document = _probe("P11_float_nonassociative_conflict")
    chains = ("chain/segment_0/a", "chain/segment_0/b", "chain/segment_0/c")
    settings = PipelineSettings(use_backend_defaults=False, float_sums=float_sums)
    memo = PipelineMemo()
    steps = [
        (1.0, 2.0, 4.0),
        (0.1, 0.2, 0.3),
        (0.5, 0.25, 0.125),
        (1.0, 2.0, 4.0),
        (0.1, 0.2, 0.3),
        (0.75, 0.5, 0.25),
    ]
    for values in steps:
        document = with_values(document, dict(zip(chains, values, strict=True)))
        expected = postprocess(document, settings)
        module = _figures_of(expected, "nn_module/M")
        rounding_conflict = float_sums == "reference" and values[0] == 0.1
        exact = float(sum((Fraction(value) for value in values), Fraction(0)))
        assert module == ([] if rounding_conflict else [[exact]])
        assert _text(postprocess(document, settings, memo=memo)) == _text(expected)


@pytest.mark.parametrize("float_sums", ["exact", "reference"])
@pytest.mark.parametrize("float_values", [False, True])
def test_a_plain_nx_result_is_refreshed_as_rows(float_sums: FloatSums, float_values: bool) -> None:
    # the NX-shaped benchmark document: one unqualified breakdown per chain and cascade,
    # the same sum metrics everywhere (what value_rows replays)
    first = nx_document(50, float_values=float_values)
    rng = random.Random(3)
    scaled = copy.deepcopy(first)
    jittered = copy.deepcopy(first)
    for result, other in zip(scaled["results"], jittered["results"], strict=True):
        for breakdown, noisy in zip(result["breakdowns"], other["breakdowns"], strict=True):
            for metric, changed in zip(breakdown["metrics"], noisy["metrics"], strict=True):
                value = metric["value"]
                metric["value"] = value * 2 if float_values else value * 3
                changed["value"] = value * rng.uniform(0.5, 1.5) if float_values else value + 1
    settings = PipelineSettings(float_sums=float_sums)
    memo = PipelineMemo()
    for document in (first, scaled, jittered, first, scaled):
        expected = _text(postprocess(document, settings))
        assert _text(postprocess(document, settings, memo=memo)) == expected
    replays = _projection_memo(memo)
    if float_values and float_sums == "reference":
        assert replays.rows_replayed == 0  # added in the reference's order: figure sets
    else:
        assert replays.rows_replayed >= 2


def test_a_value_only_change_replays_the_projection() -> None:
    document = generate(11)
    memo = PipelineMemo()
    postprocess(document, memo=memo)
    postprocess(_revalued(document, 3), memo=memo)
    postprocess(_revalued(document, 4), memo=memo)
    replays = _projection_memo(memo)
    assert replays.projected == 1 and replays.replayed == 2


@pytest.mark.skipif(
    core_build() != "pure Python", reason="counts calls by replacing module functions"
)
def test_with_a_memo_a_new_graph_is_numbered_once_per_list_as_without(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The input's validation numbers its entity list, collapse and the projection's index
    # use that graph, the final list is numbered once and its graph serves the output's
    # validation (no reference resolved again): with a memo (a new graph) as without
    # one; a value-only run with the memo numbers and resolves nothing.
    from perfline.core import collapse, graph, pipeline, validation

    numbered: list[int] = []
    resolved: list[int] = []
    real_numbered, real_resolved = graph.numbered_graph, validation._resolved_links

    def counting(entities: Any) -> Any:
        numbered.append(len(entities))
        return real_numbered(entities)

    def resolving(entities: Any, *args: Any) -> Any:
        resolved.append(len(entities))
        return real_resolved(entities, *args)

    for module in (collapse, pipeline, validation):
        monkeypatch.setattr(module, "numbered_graph", counting)
    monkeypatch.setattr(validation, "_resolved_links", resolving)
    document = nx_document(60)
    plain = postprocess(copy.deepcopy(document))
    assert len(numbered) == 2 and resolved == []
    numbered.clear()
    memo = PipelineMemo()
    assert postprocess(copy.deepcopy(document), memo=memo) == plain
    assert len(numbered) == 2 and resolved == []
    numbered.clear()
    assert postprocess(_revalued(document, 3), memo=memo) == postprocess(_revalued(document, 3))
    assert len(numbered) == 2 and resolved == []  # the run without a memo only


def test_a_list_of_another_length_is_not_taken_for_the_last_one_and_equal_ones_are() -> None:
    memo = PipelineMemo()
    first = [{"id": "a"}, {"id": "b"}]
    assert memo.same(0, "entities", first) is first
    longer = [{"id": "a"}, {"id": "b"}, {"id": "c"}]
    assert memo.same(0, "entities", longer) is longer
    again = copy.deepcopy(longer)
    assert memo.same(0, "entities", again) is longer  # compared by their marshal form
    other = [{"id": "a"}, {"id": "b"}, {"id": "d"}]
    assert memo.same(0, "entities", other) is other
    assert memo.same(0, "entities", [{"id": "a"}, {"id": "b"}, {"id": "d"}]) is other
    assert memo.same(0, "entities", [{"id": "a"}, {"id": "b"}, {"id": 1.0}]) is not other
