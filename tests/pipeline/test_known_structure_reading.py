"""Reading a document piecewise with the job's structure memo
(``core.known_structure_reading``) gives exactly what reading it whole gives
(``json_codec.read_json_input``): the same values of the same types, the same errors,
over real-shaped documents, odd shapes and broken texts; and an entity list written as
last run is last run's very list, neither decoded nor interned again."""

from __future__ import annotations

import copy
import json
import marshal
import random
from typing import Any

import pytest

from perfline.core.errors import InputError
from perfline.core.json_codec import read_json_input
from perfline.core.known_structure_reading import read_with_known_structure
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.structure_memo import StructureMemo
from tests.documents import minimal_document, nx_document, small_result


def _exact(value: Any) -> bytes:
    """``value`` with its types (``1``, ``1.0`` and ``True`` apart) and key order."""
    return marshal.dumps(value, 0)


def _read_both(data: bytes, memo: StructureMemo) -> Any:
    whole = read_json_input(data, "doc.json")
    pieces = read_with_known_structure(data, "doc.json", memo)
    assert _exact(pieces) == _exact(whole)
    return pieces


def test_the_same_values_over_changing_documents() -> None:
    rng = random.Random(7)
    memo = StructureMemo()
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
    memo = StructureMemo()
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
    memo = StructureMemo()
    good = json.dumps(nx_document(3)).encode()
    _read_both(good, memo)
    outcomes: list[str] = []
    for read in (read_json_input, lambda d, s: read_with_known_structure(d, s, memo)):
        try:
            outcomes.append(repr(_exact(read(text, "doc.json"))))
        except InputError as error:
            outcomes.append(error.render())
    assert outcomes[0] == outcomes[1]


def test_an_entity_list_written_as_last_run_is_last_runs_list() -> None:
    memo = StructureMemo()
    document = nx_document(20)
    first = read_with_known_structure(json.dumps(document).encode(), "doc.json", memo)
    postprocess(first, PipelineSettings(), memo=memo)
    revalued = copy.deepcopy(document)
    revalued["results"][0]["breakdowns"][0]["metrics"][0]["value"] = 12345
    second = read_with_known_structure(json.dumps(revalued).encode(), "doc.json", memo)
    for field in ("entities", "entity_kinds"):
        assert second["results"][0][field] is first["results"][0][field]
    # the same values in other text (spacing): decoded, then interned as the same list
    spaced = read_with_known_structure(json.dumps(revalued, indent=2).encode(), "doc.json", memo)
    assert spaced["results"][0]["entities"] is first["results"][0]["entities"]
    # another graph: a new list
    renamed = copy.deepcopy(revalued)
    renamed["results"][0]["entities"][0]["name"] = "other"
    third = read_with_known_structure(json.dumps(renamed).encode(), "doc.json", memo)
    assert third["results"][0]["entities"] is not first["results"][0]["entities"]
    assert third["results"][0]["entities"] == renamed["results"][0]["entities"]


def test_post_processing_what_was_read_piecewise_is_post_processing_the_document() -> None:
    memo = StructureMemo()
    base = nx_document(25, seed=4)
    for factor in (1, 2, 3, 3, 5):
        document = copy.deepcopy(base)
        for record in document["results"][0]["breakdowns"]:
            for metric in record["metrics"]:
                metric["value"] *= factor
        data = json.dumps(document).encode()
        with_memo = postprocess(
            read_with_known_structure(data, "doc.json", memo), PipelineSettings(), memo=memo
        )
        assert _exact(with_memo) == _exact(postprocess(json.loads(data), PipelineSettings()))
