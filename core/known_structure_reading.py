"""Reading a standardized document whose entity graph is probably the last run's.

A new capture of the same model rewrites a document's values and leaves its entity list
and kind declarations byte for byte as they were: half the bytes of an NX-shaped
document. ``read_with_known_structure`` reads the document in
pieces (``msgspec.Raw``: the text of each top-level field and of each result's fields,
found at C speed without building them) and, for a result's ``entities`` and
``entity_kinds``, compares the text with the one the job's ``StructureReadCache`` (the
reader's own cache, one per job) kept from the last read: equal text, and the list
decoded from it last time is taken as it is (neither decoded nor compared again: the
pipeline's ``PipelineMemo.same`` recognizes its very object); other text is decoded, and
the cache keeps it with its list.

Finding a field's text means scanning it (twice: the top-level fields, then the results'
fields); the comparison with last read's text is one ``==`` of equal-length bytes.

A result's ``breakdowns`` are read straight into their canonical form when every one is
*plain* (``entity_id``, ``metrics``, an optional non-empty ``id``, nothing else; each
metric exactly ``name``, ``unit``, a number that is not a boolean, a non-empty
``aggregation``: what the NX backends write): msgspec decodes them into typed structs
whose fields are in the schema's key order, and ``msgspec.to_builtins`` makes the dicts,
both at C speed (faster than decoding and then canonicalizing them). The read notes that
list in the ``ReadForms`` it returns with the document (``core.read_forms``): the
canonical pass takes it as it is, and a result returned as it came in gets its
breakdowns decoded again as the file writes them. Breakdowns that are not all plain are
decoded as usual.
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

from collections.abc import Callable
from typing import Annotated, Any

import msgspec

from perfline.core.json_codec import read_json_input
from perfline.core.pipeline_memo import STRUCTURE_FIELDS
from perfline.core.read_forms import ReadForms

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


class StructureReadCache:
    """What the reader keeps of one job's last read: per (result index, structure field)
    the JSON text read and the list decoded from it. Held by the caller, one per job
    (``scheduler.memo_policy``); read and written by this module only. Changes time,
    never answers: ``tests/core/test_known_structure_reading.py``."""

    __slots__ = ("_lists",)

    def __init__(self) -> None:
        self._lists: dict[tuple[int, str], tuple[bytes, list[Any]]] = {}

    def value_of(
        self, result_index: int, field: str, text: bytes, decode: Callable[[bytes], Any]
    ) -> Any:
        """The value of this result's ``field`` written as the JSON ``text``: last read's
        list when the text is last read's, else ``decode(text)`` (kept when a list)."""
        slot = (result_index, field)
        known = self._lists.get(slot)
        if known is not None and known[0] == text:
            return known[1]
        values = decode(text)
        if type(values) is list:
            self._lists[slot] = (text, values)
        else:
            self._lists.pop(slot, None)
        return values


def read_with_known_structure(
    data: bytes, source: str, cache: StructureReadCache
) -> tuple[Any, ReadForms]:
    """The JSON value of ``data`` (an input file's bytes; ``source`` names it in errors),
    each result's structure lists taken from ``cache`` when written as in the last read,
    and which results' breakdowns it holds in canonical form."""
    try:
        return _pieces(data, cache)
    except (msgspec.MsgspecError, RecursionError):
        return read_json_input(data, source), ReadForms()


def _pieces(data: bytes, cache: StructureReadCache) -> tuple[dict[str, Any], ReadForms]:
    read = _Read(cache)
    return _decoded(data, read), read.forms


class _Read:
    """One read: the cache it reads with and what it hands over in canonical form."""

    __slots__ = ("cache", "forms")

    def __init__(self, cache: StructureReadCache) -> None:
        self.cache = cache
        self.forms = ReadForms()


def _decoded(data: bytes, read: _Read) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for key, raw in _FIELDS.decode(data).items():
        document[key] = _results(raw, read) if key == "results" else _VALUE.decode(raw)
    return document


def _results(raw: msgspec.Raw, read: _Read) -> Any:
    try:  # the usual case, a list of objects: their fields found in the same scan
        return _read_results(_RESULTS.decode(raw), read)
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
        results.append(_result(index, fields, read))
    return results


def _read_results(items: list[dict[str, msgspec.Raw]], read: _Read) -> list[Any]:
    return [_result(index, fields, read) for index, fields in enumerate(items)]


def _result(index: int, fields: dict[str, msgspec.Raw], read: _Read) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, text in fields.items():
        if key in STRUCTURE_FIELDS:
            result[key] = read.cache.value_of(index, key, bytes(text), _VALUE.decode)
        elif key == "breakdowns":
            result[key] = _breakdowns(index, text, read.forms)
        else:
            result[key] = _VALUE.decode(text)
    return result


def _breakdowns(index: int, text: msgspec.Raw, forms: ReadForms) -> Any:
    """The breakdowns of result ``index``: in canonical form when all are plain (noted in
    ``forms``), else as written."""
    try:
        typed = _PLAIN_BREAKDOWNS.decode(text)
    except msgspec.ValidationError:
        return _VALUE.decode(text)
    canonical: list[Any] = msgspec.to_builtins(typed)
    if canonical:
        forms.note(index, canonical, lambda: _VALUE.decode(text))
    return canonical
