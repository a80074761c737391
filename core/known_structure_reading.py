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

Finding a field's text still means scanning it (twice: the top-level fields, then the
results' fields), and the entity list is half the bytes. So after a read, the memo notes
where the last result's entity text lay counted from the end of the document (the text
and every byte after it, when those are at most 1 MiB: an NX document's kind
declarations and closing brackets; ``StructureMemo.note_splice_point``). The next read
checks, by two comparisons, that the document ends with the same text and tail; then it
reads the document with a fresh random string token (``"perfline-splice-<128 random
bits>"``) in the list's place and requires that very token to come back as that result's
``entities``: the bytes around it are the file's, and the token, drawn after the file was
written, can be nowhere else; so the file's list is there, and it is last run's list.
Anything else (the token elsewhere or missing, a decoding error) reads the file as
below. About 4 ms of 26 saved at 1,000 chains, 90 ms of 550 at 20,000.

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
scan when all of them are objects), without the entity list when it is where it was (then
one copy of the bytes before it, and two comparisons), the decoding of what changed, and
one comparison of equal-length texts per structure list.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Final

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


#: The longest text after a spliced structure list that is looked for and kept.
_MAX_TAIL: Final = 1 << 20
#: How many of the list's last bytes are looked for, from the end of the document.
_PROBE: Final = 64


class _Missed(Exception):
    """The spliced document did not have the marker where the list was: read the file."""


class _Splice:
    """This read's splice: the structure list of ``(index, field)`` replaced by ``marker``."""

    __slots__ = ("field", "index", "marker", "seen", "values")

    def __init__(self, index: int, field: str, marker: bytes, values: list[Any]) -> None:
        self.index = index
        self.field = field
        self.marker = marker
        self.values = values
        self.seen = False


def _pieces(data: bytes, memo: StructureMemo) -> dict[str, Any]:
    memo.forget_read_forms()
    point = memo.splice_point()
    if point is not None:
        index, field, text, tail, values = point
        start = len(data) - len(tail) - len(text)
        if start > 0 and data.endswith(tail) and data.startswith(text, start):
            # the list's text where it was, counted from the end: read the document with
            # a fresh marker in its place, and check that the marker is that list's value
            marker = b'"perfline-splice-' + secrets.token_hex(16).encode() + b'"'
            spliced = b"".join((memoryview(data)[:start], marker, tail))
            splice = _Splice(index, field, marker, values)
            try:
                document = _decoded(spliced, memo, splice)
                if splice.seen:
                    return document
            except _Missed:
                pass
            memo.forget_read_forms()
    document = _decoded(data, memo, None)
    _note_splice_point(data, document, memo)
    return document


def _decoded(data: bytes, memo: StructureMemo, splice: _Splice | None) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for key, raw in _FIELDS.decode(data).items():
        document[key] = _results(raw, memo, splice) if key == "results" else _VALUE.decode(raw)
    return document


def _note_splice_point(data: bytes, document: dict[str, Any], memo: StructureMemo) -> None:
    """Note where the last result's entity list text lies, when it is near the end of
    ``data`` (looked for in the last ``_MAX_TAIL`` bytes, then compared whole)."""
    results = document.get("results")
    count = len(results) if type(results) is list else 0
    for index in range(count - 1, -1, -1):
        text = memo.text_of(index, "entities")
        if text is None or len(text) < _PROBE:
            continue
        found = data.rfind(text[-_PROBE:], max(0, len(data) - _MAX_TAIL - _PROBE))
        end = found + _PROBE
        if found >= 0 and end >= len(text) and data.startswith(text, end - len(text)):
            memo.note_splice_point(index, "entities", data[end:])
            return
    memo.note_splice_point(0, "entities", None)


def _results(raw: msgspec.Raw, memo: StructureMemo, splice: _Splice | None) -> Any:
    try:  # the usual case, a list of objects: their fields found in the same scan
        return _read_results(_RESULTS.decode(raw), memo, splice)
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
        results.append(_result(index, fields, memo, splice))
    return results


def _read_results(
    items: list[dict[str, msgspec.Raw]], memo: StructureMemo, splice: _Splice | None
) -> list[Any]:
    return [_result(index, fields, memo, splice) for index, fields in enumerate(items)]


def _result(
    index: int, fields: dict[str, msgspec.Raw], memo: StructureMemo, splice: _Splice | None
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, text in fields.items():
        if splice is not None and index == splice.index and key == splice.field:
            if bytes(text) != splice.marker:
                raise _Missed
            splice.seen = True
            result[key] = splice.values
        elif key in STRUCTURE_FIELDS:
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
