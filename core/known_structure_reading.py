"""Reading a standardized document whose entity graph is probably the last run's.

A new capture of the same model rewrites a document's values and leaves its entity list
and kind declarations byte for byte as they were: half the bytes of an NX-shaped document
(1.1 of 2.3 MB at 1,000 chains). ``read_with_known_structure`` reads the document in
pieces (``msgspec.Raw``: the text of each top-level field and of each result's fields,
found at C speed without building them) and, for a result's ``entities`` and
``entity_kinds``, compares the text with the one the job's ``StructureMemo`` saw last
run: equal text, and the last run's list object is taken as it is (neither decoded nor
serialized again to be interned); other text is decoded and interned as before
(``StructureMemo.same``). Every other piece is decoded as usual.

The value is the one ``json_codec.read_json_input`` gives for the same bytes: each piece
is decoded by the same decoder, and equal text decodes to equal values of equal types.
Whatever the piecewise route does not take (a document that is not an object, ``results``
that is not a list, a piece msgspec refuses: invalid JSON, NaN, numbers too large) is
read again by ``read_json_input``, which gives its value or its placed error.

Cost: two scans of the text (the top-level fields; the fields of every result, in one
scan when all of them are objects), the decoding of what changed, and one comparison of
equal-length texts per structure list.
"""

from __future__ import annotations

from typing import Any

import msgspec

from perfline.core.json_codec import read_json_input
from perfline.core.structure_memo import STRUCTURE_FIELDS, StructureMemo

_FIELDS = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ITEMS = msgspec.json.Decoder(list[msgspec.Raw])
_RESULTS = msgspec.json.Decoder(list[dict[str, msgspec.Raw]])
_VALUE = msgspec.json.Decoder()


def read_with_known_structure(data: bytes, source: str, memo: StructureMemo) -> Any:
    """The JSON value of ``data`` (an input file's bytes; ``source`` names it in errors),
    each result's structure lists taken from ``memo`` when written as last run."""
    try:
        return _pieces(data, memo)
    except (msgspec.MsgspecError, RecursionError):
        return read_json_input(data, source)


def _pieces(data: bytes, memo: StructureMemo) -> dict[str, Any]:
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
        else:
            result[key] = _VALUE.decode(text)
    return result
