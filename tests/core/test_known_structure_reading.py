"""Reading a document piecewise with the job's read cache
(``core.known_structure_reading``) gives exactly what reading it whole gives
(``json_codec.read_json_input``): the same values of the same types, the same errors,
over real-shaped documents, odd shapes and broken texts, but for plain breakdowns, which
come in canonical key order (and get the file's back where a result is returned as it
came in); and an entity list written as last run is last run's very list, neither
decoded nor compared again."""

from __future__ import annotations

import copy
import json
import marshal
import random
from typing import Any

import pytest

from perfline.core.document_shapes import BREAKDOWN_KEY_ORDER, SUM_METRIC_KEYS
from perfline.core.errors import InputError
from perfline.core.json_codec import read_json_input
from perfline.core.known_structure_reading import StructureReadCache, read_with_known_structure
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.pipeline_memo import PipelineMemo
from tests.support.documents import (
    breakdown,
    minimal_document,
    nx_document,
    small_result,
    sum_metric,
)


def _exact(value: Any) -> bytes:
    """``value`` with its types (``1``, ``1.0`` and ``True`` apart) and key order."""
    return marshal.dumps(value, 0)


_SUM = ("name", "unit", "value", "aggregation")


def _plain_metric(metric: Any) -> bool:
    return (
        type(metric) is dict
        and sorted(metric) == sorted(_SUM)
        and type(metric["name"]) is str
        and type(metric["unit"]) is str
        and type(metric["value"]) in (int, float)
        and type(metric["aggregation"]) is str
        and metric["aggregation"] != ""
    )


def _plain_breakdown(record: Any) -> bool:
    return (
        type(record) is dict
        and {"entity_id", "metrics"} <= set(record) <= {"entity_id", "metrics", "id"}
        and type(record["entity_id"]) is str
        and type(record["metrics"]) is list
        and all(_plain_metric(metric) for metric in record["metrics"])
        and ("id" not in record or (type(record["id"]) is str and record["id"] != ""))
    )


def _as_read(whole: Any) -> Any:
    """``whole`` with each result's breakdowns in canonical key order when all are plain:
    what the piecewise reader hands over (written out here from the rule, not the code)."""
    if type(whole) is not dict or type(whole.get("results")) is not list:
        return whole
    results = []
    for result in whole["results"]:
        records = result.get("breakdowns") if type(result) is dict else None
        if type(records) is list and records and all(map(_plain_breakdown, records)):
            result = dict(result)
            result["breakdowns"] = [
                {
                    **{"entity_id": r["entity_id"]},
                    "metrics": [{key: m[key] for key in _SUM} for m in r["metrics"]],
                    **({"id": r["id"]} if "id" in r else {}),
                }
                for r in records
            ]
        results.append(result)
    return {**whole, "results": results}


def _read_both(data: bytes, cache: StructureReadCache) -> Any:
    whole = read_json_input(data, "doc.json")
    pieces, forms = read_with_known_structure(data, "doc.json", cache)
    assert _exact(pieces) == _exact(_as_read(whole))
    assert _exact(forms.document_as_written(pieces)) == _exact(whole)
    return pieces


def _value(data: bytes, cache: StructureReadCache) -> Any:
    """What the piecewise reader gives for ``data`` (its forms left aside)."""
    return read_with_known_structure(data, "doc.json", cache)[0]


def test_the_typed_fields_are_in_the_schemas_key_order() -> None:
    text = json.dumps(
        {
            "results": [
                {
                    "breakdowns": [
                        {
                            "id": "a",
                            "metrics": [
                                dict(
                                    zip(
                                        ("aggregation", "value", "unit", "name"),
                                        ("sum", 1, "u", "n"),
                                        strict=True,
                                    )
                                )
                            ],
                            "entity_id": "a",
                        }
                    ]
                }
            ]
        }
    ).encode()
    read = _value(text, StructureReadCache())
    record = read["results"][0]["breakdowns"][0]
    assert tuple(record) == BREAKDOWN_KEY_ORDER[:3]
    assert tuple(record["metrics"][0]) == SUM_METRIC_KEYS


def test_the_same_values_over_changing_documents() -> None:
    rng = random.Random(7)
    memo = StructureReadCache()
    base = nx_document(30, seed=2)
    variants: list[Any] = [base]
    for step in range(12):
        changed = copy.deepcopy(base)
        result = changed["results"][0]
        for record in result["breakdowns"]:
            for metric in record["metrics"]:
                metric["value"] = rng.choice((1, 2.5, 0, -0.0, 10**30, True))
        if step % 4 == 1:
            result["entities"][0]["name"] = "renamed é \u2603"
        if step % 4 == 2:
            result["entities"] = result["entities"][1:]
        if step % 4 == 3:
            changed["results"].append(small_result(step))
        variants.append(changed)
    for document in variants:
        text = json.dumps(
            document, indent=rng.choice((None, 1, 4)), ensure_ascii=rng.random() < 0.5
        )
        _read_both(text.encode(), memo)


@pytest.mark.parametrize(
    "text",
    [
        b"[1, 2]",
        b'"text"',
        b'{"results": 5}',
        b'{"results": [1, "a", null, {"entities": 3}, {"entities": [1, 1.0, true]}]}',
        b'{"results": [{"entities": [], "entity_kinds": {}}]}',
        b'{"a": 1, "a": 2, "results": [{"entities": [{"id": "x"}], "entities": []}]}',
        b'  {"results": [ { "entities" : [ {"id" : "x"} ] } ] }  ',
        json.dumps(minimal_document()).encode(),
    ],
)
def test_odd_shapes_read_alike(text: bytes) -> None:
    memo = StructureReadCache()
    _read_both(text, memo)
    _read_both(text, memo)  # a second time, with what the memo kept


@pytest.mark.parametrize(
    "text",
    [
        b'{"results": [{"entities": [NaN]}]}',
        b'{"results": [{"entities": [1e400]}]}',
        b'{"results": [{"entities": [1,]}]}',
        b'{"results": [{"entities": [}]}',
        b'{"results": [{"entities": ["\xff"]}]}',
        b'{"results": [{"entities": [' + b"1" * 5000 + b"]}]}",
        b'{"results": [' + b"[" * 3000 + b"]" * 3000 + b"]}",
        b'{"results": []} trailing',
    ],
)
def test_broken_texts_fail_alike(text: bytes) -> None:
    memo = StructureReadCache()
    good = json.dumps(nx_document(3)).encode()
    _read_both(good, memo)
    outcomes: list[str] = []
    for read in (read_json_input, lambda d, s: read_with_known_structure(d, s, memo)[0]):
        try:
            outcomes.append(repr(_exact(read(text, "doc.json"))))
        except InputError as error:
            outcomes.append(error.render())
    assert outcomes[0] == outcomes[1]


def test_an_entity_list_written_as_last_run_is_last_runs_list() -> None:
    cache, pipeline = StructureReadCache(), PipelineMemo()
    document = nx_document(20)
    first, forms = read_with_known_structure(json.dumps(document).encode(), "doc.json", cache)
    postprocess(first, PipelineSettings(), memo=pipeline, read_forms=forms)
    revalued = copy.deepcopy(document)
    revalued["results"][0]["breakdowns"][0]["metrics"][0]["value"] = 12345
    second = _value(json.dumps(revalued).encode(), cache)
    for field in ("entities", "entity_kinds"):
        assert second["results"][0][field] is first["results"][0][field]
        # the pipeline's memo takes it for its own without comparing it
        assert pipeline.same(0, field, second["results"][0][field]) is first["results"][0][field]
    # the same values in other text (spacing): decoded anew, then interned by the
    # pipeline's memo as the same list
    spaced = _value(json.dumps(revalued, indent=2).encode(), cache)
    assert spaced["results"][0]["entities"] is not first["results"][0]["entities"]
    assert spaced["results"][0]["entities"] == first["results"][0]["entities"]
    interned = pipeline.same(0, "entities", spaced["results"][0]["entities"])
    assert interned is first["results"][0]["entities"]
    # another graph: a new list
    renamed = copy.deepcopy(revalued)
    renamed["results"][0]["entities"][0]["name"] = "other"
    third = _value(json.dumps(renamed).encode(), cache)
    assert third["results"][0]["entities"] is not first["results"][0]["entities"]
    assert third["results"][0]["entities"] == renamed["results"][0]["entities"]


def test_post_processing_what_was_read_piecewise_is_post_processing_the_document() -> None:
    cache, pipeline = StructureReadCache(), PipelineMemo()
    base = nx_document(25, seed=4)
    for factor in (1, 2, 3, 3, 5):
        document = copy.deepcopy(base)
        for record in document["results"][0]["breakdowns"]:
            for metric in record["metrics"]:
                metric["value"] *= factor
        data = json.dumps(document).encode()
        pieces, forms = read_with_known_structure(data, "doc.json", cache)
        with_memo = postprocess(pieces, PipelineSettings(), memo=pipeline, read_forms=forms)
        assert _exact(with_memo) == _exact(postprocess(json.loads(data), PipelineSettings()))


def _unchanged_by_the_stages() -> dict[str, Any]:
    """A result every entity of which is authoritative: no stage changes it, so
    post-processing returns it as it came in (the file's key order: NX's)."""
    document = minimal_document()
    document["results"][0]["breakdowns"].append(
        breakdown("source_operator/a", [sum_metric("op_cycles", 4)])
    )
    return document


@pytest.mark.parametrize("marked", [False, True])
def test_a_result_returned_as_it_came_in_has_the_files_key_order(marked: bool) -> None:
    document = _unchanged_by_the_stages()
    if marked:  # a document perfline already post-processed: validated, returned as it is
        document = postprocess(document, PipelineSettings())
    data = json.dumps(document).encode()
    cache, pipeline = StructureReadCache(), PipelineMemo()
    for _ in range(2):  # the second run with what the caches kept
        pieces, forms = read_with_known_structure(data, "doc.json", cache)
        # handed over in canonical order (the reader's typed path was taken) ...
        assert tuple(pieces["results"][0]["breakdowns"][0]["metrics"][0]) == SUM_METRIC_KEYS
        with_memo = postprocess(pieces, PipelineSettings(), memo=pipeline, read_forms=forms)
        # ... and returned in the file's
        assert _exact(with_memo) == _exact(postprocess(json.loads(data), PipelineSettings()))
        metric = with_memo["results"][0]["breakdowns"][0]["metrics"][0]
        assert tuple(metric) == ("name", "value", "unit", "aggregation")


def test_plain_breakdowns_read_in_canonical_form_pass_through_as_they_are() -> None:
    cache, pipeline = StructureReadCache(), PipelineMemo()
    data = json.dumps(nx_document(15, seed=3)).encode()
    for _ in range(2):
        pieces, forms = read_with_known_structure(data, "doc.json", cache)
        read = pieces["results"][0]["breakdowns"]
        out = postprocess(pieces, PipelineSettings(), memo=pipeline, read_forms=forms)
        kept = {id(record) for record in out["results"][0]["breakdowns"]}
        # the canonical pass took them as they are: the output holds the very objects
        assert all(id(record) in kept for record in read)
        assert _exact(out) == _exact(postprocess(json.loads(data), PipelineSettings()))


def _crafted(base: dict[str, Any]) -> list[bytes]:
    """Texts that end with the very bytes the last one ended with (the entity list and
    what follows it) while the list is not the result's ``entities`` there: a reader
    that took the list by where it lies would be wrong on each."""
    result = base["results"][0]
    entities = json.dumps(result["entities"])
    tail = ', "entity_kinds": ' + json.dumps(result["entity_kinds"]) + "}]}"
    records = json.dumps(result["breakdowns"])
    head = '{"results": [{"kind": "performance", "breakdowns": ' + records
    return [
        (head + ', "other": ' + entities + tail).encode(),  # under another key
        (head + ', "entities": [], "x": ' + entities + tail).encode(),  # a later key
        (head + ', "entities": {"entities": ' + entities + "}" + tail).encode(),  # nested
        (head + ', "entities": "' + entities + tail).encode(),  # inside a string: broken
        (head + ', "entities": ' + entities + ', "entities": [1]' + tail).encode(),  # twice
        (head[:-1] + ', "entities": ' + entities + tail).encode(),  # broken before it
    ]


@pytest.mark.parametrize("case", range(6))
def test_a_crafted_text_around_the_known_list_reads_as_itself(case: int) -> None:
    memo = StructureReadCache()
    base = nx_document(6, seed=8)
    result = base["results"][0]
    good = {"results": [{"kind": "performance", "breakdowns": result["breakdowns"]}]}
    good["results"][0]["entities"] = result["entities"]
    good["results"][0]["entity_kinds"] = result["entity_kinds"]
    _read_both(json.dumps(good).encode(), memo)  # the list kept
    text = _crafted(base)[case]
    outcomes: list[str] = []
    for read in (
        lambda d, s: _as_read(read_json_input(d, s)),
        lambda d, s: read_with_known_structure(d, s, memo)[0],
    ):
        try:
            outcomes.append(repr(_exact(read(text, "doc.json"))))
        except InputError as error:
            outcomes.append(error.render())
    assert outcomes[0] == outcomes[1]
