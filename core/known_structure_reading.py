"""Reading a standardized document whose entity graph is probably the last run's.

A new capture of the same model rewrites a document's values and leaves its entity list
and kind declarations byte for byte as they were: half the bytes of an NX-shaped document
(1.1 of 2.3 MB at 1,000 chains). ``read_with_known_structure`` reads the document in
pieces (``msgspec.Raw``: the text of each top-level field and of each result's fields,
found at C speed without building them) and, for a result's ``entities`` and
``entity_kinds``, compares the text with the one the job's ``StructureMemo`` saw last
run: equal text, and the last run's list object is taken as it is (neither decoded nor
serialized again to be interned); other text is decoded and interned as before
(``StructureMemo.same``).

A result's ``breakdowns`` are read straight into their canonical form when every one is
*plain* (``entity_id``, ``metrics``, an optional non-empty ``id``, nothing else; each
metric exactly ``name``, ``unit``, a number that is not a boolean, a non-empty
``aggregation``: what the NX backends write): msgspec decodes them into typed structs
whose fields are in the schema's key order, and ``msgspec.to_builtins`` makes the dicts,
both at C speed (10 ms instead of 18 for decoding and then canonicalizing the 12,320
metrics of the 1,000-chain document). The memo notes that list
(``StructureMemo.note_read_form``): the canonical pass takes it as it is, and a result
returned as it came in gets its breakdowns decoded again as the file writes them
(``StructureMemo.as_written``). Breakdowns that are not all plain are decoded as usual.
Every other piece is decoded as usual.

The value is the one ``json_codec.read_json_input`` gives for the same bytes, but for
the key order of plain breakdowns and their metrics: each piece is decoded by the same
decoder (or, for plain breakdowns, one that gives the same values of the same types and
fails on the same numbers), and equal text decodes to equal values of equal types.
Whatever the piecewise route does not take (a document that is not an object, ``results``
that is not a list, a piece msgspec refuses: invalid JSON, NaN, numbers too large) is
read again by ``read_json_input``, which gives its value or its placed error.

Cost: two scans of the text (the top-level fields; the fields of every result, in one
scan when all of them are objects), the decoding of what changed, and one comparison of
equal-length texts per structure list.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from perfline.core.json_codec import read_json_input
from perfline.core.structure_memo import STRUCTURE_FIELDS, StructureMemo

_FIELDS = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ITEMS = msgspec.json.Decoder(list[msgspec.Raw])
_RESULTS = msgspec.json.Decoder(list[dict[str, msgspec.Raw]])
_VALUE = msgspec.json.Decoder()


class _SumMetric(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A plain ``sum``-shaped metric; the fields in ``document_shapes.SUM_METRIC_KEYS`` order."""

    name: str
    unit: str
    value: int | float  # a JSON number: msgspec refuses booleans and numbers out of range
    aggregation: Annotated[str, msgspec.Meta(min_length=1)]


class _PlainBreakdown(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A plain breakdown; the fields in ``document_shapes.BREAKDOWN_KEY_ORDER`` order."""

    entity_id: str
    metrics: list[_SumMetric]
    id: Annotated[str, msgspec.Meta(min_length=1)] | msgspec.UnsetType = msgspec.UNSET


_PLAIN_BREAKDOWNS = msgspec.json.Decoder(list[_PlainBreakdown])


def read_with_known_structure(data: bytes, source: str, memo: StructureMemo) -> Any:
    """The JSON value of ``data`` (an input file's bytes; ``source`` names it in errors),
    each result's structure lists taken from ``memo`` when written as last run."""
    try:
        return _pieces(data, memo)
    except (msgspec.MsgspecError, RecursionError):
        return read_json_input(data, source)


def _pieces(data: bytes, memo: StructureMemo) -> dict[str, Any]:
    memo.forget_read_forms()
    document: dict[str, Any] = {}
    for key, raw in _FIELDS.decode(data).items():
        document[key] = _results(raw, memo) if key == "results" else _VALUE.decode(raw)
    return document


def _results(raw: msgspec.Raw, memo: StructureMemo) -> Any:
    try:  # the usual case, a list of objects: their fields found in the same scan
        return _read_results(_RESULTS.decode(raw), memo)
    except msgspec.ValidationError:
        pass
    try:
        items = _ITEMS.decode(raw)
    except msgspec.ValidationError:  # not a list: as it is
        return _VALUE.decode(raw)
    results: list[Any] = []
    for index, item in enumerate(items):
        try:
            fields = _FIELDS.decode(item)
        except msgspec.ValidationError:  # not an object: as it is
            results.append(_VALUE.decode(item))
            continue
        results.append(_result(index, fields, memo))
    return results


def _read_results(items: list[dict[str, msgspec.Raw]], memo: StructureMemo) -> list[Any]:
    return [_result(index, fields, memo) for index, fields in enumerate(items)]


def _result(index: int, fields: dict[str, msgspec.Raw], memo: StructureMemo) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, text in fields.items():
        if key in STRUCTURE_FIELDS:
            result[key] = memo.same_text(index, key, bytes(text), _VALUE.decode)
        elif key == "breakdowns":
            result[key] = _breakdowns(index, text, memo)
        else:
            result[key] = _VALUE.decode(text)
    return result


def _breakdowns(index: int, text: msgspec.Raw, memo: StructureMemo) -> Any:
    """The breakdowns of result ``index``: in canonical form when all are plain (noted in
    ``memo``), else as written."""
    try:
        typed = _PLAIN_BREAKDOWNS.decode(text)
    except msgspec.ValidationError:
        return _VALUE.decode(text)
    canonical: list[Any] = msgspec.to_builtins(typed)
    if canonical:
        memo.note_read_form(index, canonical, lambda: _VALUE.decode(text))
    return canonical
