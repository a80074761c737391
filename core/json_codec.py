"""JSON text of documents at C speed: the persisted form, the wire form, and reading.

The persisted form of a document (``mlia-output/mlia-output.json``, ``--json`` on stdout) is
exactly ``json.dumps(document, indent=4) + "\\n"``, the reference's bytes. The standard
library writes indented JSON in pure Python (about 1.2 s for a 60 MB document); this
module writes the same bytes from two C passes per piece: a compact encoding (ASCII, every
number and string exactly as the indented encoder writes it), and ``msgspec.json.format``
re-indents that text without touching a token (about 0.25 s for the same document).

The compact encoding is the standard library's C encoder or, for a document its caller
declares made of JSON values only (``json_only``: dicts with string keys, lists, strings,
numbers, booleans, ``None``, as decoding JSON and post-processing it make them),
``msgspec.json.encode`` (0.18 s against 1.0 s for the 20,000-chain document). For such
values msgspec writes the standard library's text except in five cases, which a scan of
its bytes finds at C speed (``msgspec_compact_or_none``): non-ASCII text (written raw, not
``\\uXXXX``), DEL (raw, not ``\\u007f``), ``null`` (as which it writes NaN and infinities),
floats of magnitude below 1e-4 (``0.00001``, not ``1e-05``) and floats written with an
exponent (``1e16``, not ``1e+16``). A piece with any of them, or one msgspec refuses (lone
surrogates, deep nesting), is encoded by the standard library instead. The compiled build
finds the five cases in one pass over the tokens (``core/json_scan.c``, 0.02 s for the
106 MB compact text of the 20,000-chain document); the pure build by byte searches over the
whole text (0.2 s), where a false alarm (``0.0000`` or ``4e12,`` inside a string) only
costs that piece the slower route. Values
msgspec accepts and the standard library refuses (sets, bytes, dates, dataclasses,
non-string keys) would be written, not refused: hence ``json_only`` is the caller's word,
never the default.

Pieces: the top levels of the document are walked here, and long
lists are cut into slices of ``slice_items`` items, each encoded and re-indented on its own
at its depth (wrapped in one-item lists, whose lines are cut off again); so the text is
never held whole beside the document, and a caller writes it piece by piece
(``document_chunks``). A piece the fast route cannot write
(``NaN`` or ``Infinity``, whose tokens msgspec does not accept, lone surrogates, values JSON
cannot hold) is written by ``json.dumps(piece, indent=4)`` itself, which gives its bytes or
raises its error.

``decode_json`` reads bytes (or text) with ``msgspec.json.decode`` (C, about 1.6x the
standard library's speed, no decoded copy of the file) and, whenever msgspec refuses
them, decodes them as UTF-8 and reads them with ``json.loads``: msgspec accepts a subset of
what ``json.loads`` accepts and gives the same values for it (``tests/clients/
test_json_codec.py``), so the result, or the error and its position, is always the standard
library's. ``read_json_input`` reads an input file: every failure is an ``InputError``
naming the file and the place (invalid JSON, bytes that are not UTF-8, nesting too deep,
an integer of too many digits), and, unless asked to keep them, ``NaN``, ``Infinity`` and
numbers too large for a float (``1e400``) are refused where they stand, so what is read
can always be written as strict JSON. ``encode_compact`` is the wire form (JSON-RPC
bodies): msgspec's encoder, compact, UTF-8, the same values (not the same bytes as
``json.dumps``).

Pure: values in, bytes or values out; no I/O.
"""

from __future__ import annotations

import importlib
import json
import math
import re
from collections.abc import Callable, Iterator
from typing import Any, Final

import msgspec

from perfline.core import text_limits
from perfline.core.errors import InputError, Problem

SLICE_ITEMS: Final = 256
"""Items of a long list encoded as one piece."""

SPLIT_DEPTH: Final = 3
"""Containers nested at most this deep are walked here, piece by piece; deeper ones are
pieces of their own unless they are lists longer than one slice."""

_INDENT: Final = 4
_COMPACT: Final = json.JSONEncoder(separators=(",", ":"), check_circular=False)
_ENCODE_KEY = json.encoder.encode_basestring_ascii  # the C function both encoders use
_FAST_FAILURES: Final = (ValueError, TypeError, RecursionError, OverflowError)
_SCAN_TABLE: Final = bytes(
    0x30 if 0x30 <= byte <= 0x39 else 0x7F if byte >= 0x7F else byte for byte in range(256)
)
"""``bytes.translate`` table of the scan of msgspec's text: every digit becomes ``0`` and
DEL and every non-ASCII byte ``\\x7f``, so that one search finds either and a digit before
an ``e`` is the fixed text ``0e``."""
_EXPONENT: Final = re.compile(rb"e-?0+(?:[,\]}]|\Z)")
"""In the scan, a number written with an exponent (``1e16``, ``2.5e-7``; msgspec writes no
``+`` and no leading zero in exponents), matched at the ``e`` after a digit: a number ends
at ``,``, ``]``, ``}`` or the end of the text."""
_TINY: Final = b"0.0000"
"""How msgspec begins a float of magnitude in [1e-5, 1e-4), which ``repr`` writes
``1e-05``."""
_DIGITS: Final = frozenset(b"0123456789")


def _compiled(module: str, name: str) -> Any:
    """``perfline.core.<module>.<name>``, a function of a small C module the compiled build
    makes beside the mypyc modules; ``None`` in the pure build."""
    try:
        return getattr(importlib.import_module(f"perfline.core.{module}"), name)
    except ImportError:
        return None


TOKEN_CHECK: Final[Callable[[bytes], bool] | None] = _compiled("_json_scan", "same_as_stdlib")
"""``core/json_scan.c``'s ``same_as_stdlib`` where it was built, else ``None`` (the pure
build: ``searched_same_text``)."""

SHARE_STRINGS: Final[Callable[[Any], int] | None] = _compiled("_shared_strings", "share_strings")
"""``core/shared_strings.c``'s ``share_strings`` where it was built, else ``None`` (the pure
build keeps the decoder's string objects): makes the equal string values of a value just
decoded one object each, in place."""


def _shared(value: Any) -> Any:
    """``value`` (just decoded) with each string value one object (``SHARE_STRINGS``)."""
    if SHARE_STRINGS is not None:
        SHARE_STRINGS(value)
    return value


Piece = bytes | memoryview
"""A piece of the text: bytes, or a view into the bytes of a larger encoded piece."""


def document_bytes(document: Any, *, json_only: bool = False) -> bytes:
    """``(json.dumps(document, indent=4) + "\\n").encode()``, at C speed."""
    return b"".join(document_chunks(document, json_only=json_only))


def document_chunks(
    document: Any, *, slice_items: int = SLICE_ITEMS, json_only: bool = False
) -> Iterator[Piece]:
    """The bytes of ``json.dumps(document, indent=4) + "\\n"``, in pieces (joined: equal).

    ``json_only``: the caller's word that the document holds JSON values only (dicts with
    string keys, lists or tuples, strings, ints, floats, booleans, ``None``; decoded JSON
    and what the pipeline makes of it), which lets msgspec encode it (see the module's
    docstring); a value of another type may then be written where ``json.dumps`` refuses it.
    """
    encode = _msgspec_compact if json_only else _stdlib_compact
    yield from _chunks(document, 0, max(1, slice_items), encode)
    yield b"\n"


def _stdlib_compact(value: Any) -> bytes:
    """Compact ASCII JSON, token for token what ``json.dumps(value, indent=4)`` writes."""
    return _COMPACT.encode(value).encode("ascii")


def _msgspec_compact(value: Any) -> bytes:
    """``_stdlib_compact(value)`` for a JSON value, by msgspec wherever its text is the
    same (``msgspec_compact_or_none``), else by the standard library."""
    fast = msgspec_compact_or_none(value)
    return _stdlib_compact(value) if fast is None else fast


def msgspec_compact_or_none(value: Any) -> bytes | None:
    """``msgspec.json.encode(value)`` when it is, for a JSON value (``json_only``), the
    standard library's compact ASCII text; ``None`` when it may not be (non-ASCII text,
    DEL, ``null``, a float below 1e-4 or with an exponent, or a value msgspec refuses).
    Cost: one encoding and, in the compiled build, one pass over its tokens in C
    (``core/json_scan.c``: the same five cases, found only where they are tokens, not
    inside strings; a tenth of the time of the searches); in the pure build,
    ``searched_same_text``: one translation of its bytes and four searches, in C (a Python
    step per candidate: ``e`` after a digit, ``0.0000``)."""
    try:
        compact = msgspec.json.encode(value)
    except (*_FAST_FAILURES, msgspec.MsgspecError):
        return None
    return compact if _same_text(compact) else None


def searched_same_text(compact: bytes) -> bool:
    """The pure build's check that msgspec's compact text of a JSON value is the standard
    library's: no DEL or non-ASCII byte, no ``null``, no number with an exponent, no
    ``0.0000`` after a non-digit, anywhere in the text (strings included: false alarms
    there only cost the slower route)."""
    scan = compact.translate(_SCAN_TABLE)
    return not (b"\x7f" in scan or b"null" in scan or _has_exponent(scan) or _has_tiny(compact))


def _has_exponent(scan: bytes) -> bool:
    """Is there a number with an exponent in the scan (``_SCAN_TABLE``)? Candidates are
    the ``e`` after a digit (in text: hexadecimal digests); each is checked as a number."""
    at = scan.find(b"0e")
    while at >= 0:
        if _EXPONENT.match(scan, at + 1) is not None:
            return True
        at = scan.find(b"0e", at + 2)
    return False


def _has_tiny(compact: bytes) -> bool:
    """Is there a ``0.0000`` not preceded by a digit (``100.00000000000001`` is fine)?
    A text without a ``.`` (an integer-valued piece) is known at once (``memchr``)."""
    if b"." not in compact:
        return False
    at = compact.find(_TINY)
    while at >= 0:
        if at == 0 or compact[at - 1] not in _DIGITS:
            return True
        at = compact.find(_TINY, at + 1)
    return False


_same_text: Final = TOKEN_CHECK or searched_same_text


Encoder = Callable[[Any], bytes]
"""A compact encoder of one piece (``_stdlib_compact`` or ``_msgspec_compact``)."""


def _chunks(value: Any, depth: int, slice_items: int, encode: Encoder) -> Iterator[Piece]:
    if type(value) is dict and value and depth < SPLIT_DEPTH and _str_keys(value):
        inner = b"\n" + b" " * (_INDENT * (depth + 1))
        separator = b"," + inner
        first = True
        for key, item in value.items():
            yield (b"{" + inner) if first else separator
            first = False
            yield _ENCODE_KEY(key).encode("ascii") + b": "
            yield from _chunks(item, depth + 1, slice_items, encode)
        yield b"\n" + b" " * (_INDENT * depth) + b"}"
    elif type(value) is list and value and (depth < SPLIT_DEPTH or len(value) > slice_items):
        if depth < SPLIT_DEPTH and len(value) <= slice_items:
            inner = b"\n" + b" " * (_INDENT * (depth + 1))
            for index, item in enumerate(value):
                yield (b"," + inner) if index else (b"[" + inner)
                yield from _chunks(item, depth + 1, slice_items, encode)
        else:
            yield b"["
            for start in range(0, len(value), slice_items):
                if start:
                    yield b","
                # The items as they read inside the list: each on its own line, one deeper.
                yield _indented(value[start : start + slice_items], depth, encode, inside=True)
        yield b"\n" + b" " * (_INDENT * depth) + b"]"
    else:
        yield _indented(value, depth, encode)


def _str_keys(mapping: dict[Any, Any]) -> bool:
    return all(type(key) is str for key in mapping)


def _indented(value: Any, depth: int, encode: Encoder, *, inside: bool = False) -> Piece:
    """``json.dumps(value, indent=4)`` as it reads ``depth`` levels deep; with ``inside``
    (a non-empty list), only what is between its brackets.

    The value is encoded wrapped in ``depth`` one-item lists, so the formatter indents it
    as deep as it stands; the wrappers' lines are then cut off (a view, no copy).
    """
    wrapped = value
    for _ in range(depth):
        wrapped = [wrapped]
    try:
        text = msgspec.json.format(encode(wrapped), indent=_INDENT)
    except (*_FAST_FAILURES, msgspec.MsgspecError):
        text = json.dumps(wrapped, indent=_INDENT).encode("ascii")
    first, last = _WRAPPERS[depth] if depth < len(_WRAPPERS) else _wrappers(depth)
    if inside:
        first, last = first + 1, last + 1 + _INDENT * depth + 1  # "[" and "\n<indent>]"
    return memoryview(text)[first : len(text) - last]


def _wrappers(depth: int) -> tuple[int, int]:
    """Lengths of the text before and after a value wrapped in ``depth`` one-item lists:
    ``"[\\n" + "    [\\n" + ... + indent`` and ``"\\n" + indent + "]" + ... + "\\n]"``."""
    before = sum(_INDENT * level + 2 for level in range(depth)) + _INDENT * depth
    after = sum(1 + _INDENT * level + 1 for level in range(depth))
    return before, after


_WRAPPERS: Final = tuple(_wrappers(depth) for depth in range(SPLIT_DEPTH + 2))


def encode_compact(value: Any) -> bytes:
    """Compact UTF-8 JSON of a JSON value, for JSON-RPC bodies (``msgspec.json.encode``,
    about 6x the standard library's compact encoder).

    It reads back (``json.loads``) as the same value, every float to the same bits; a
    float JSON cannot hold (NaN, an infinity) is written ``null``, where ``json.dumps``
    writes ``NaN``, which JSON parsers reject. Lone surrogates are escaped as the standard
    library escapes them.
    """
    try:
        return msgspec.json.encode(value)
    except (*_FAST_FAILURES, msgspec.MsgspecError, UnicodeEncodeError):
        return json.dumps(_finite(value), separators=(",", ":")).encode("ascii")


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinities as ``None`` (what msgspec writes for them)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    return value


def indented_text(value: Any, indent: int = 2) -> str:
    """``json.dumps(value, indent=indent, ensure_ascii=False)``, at C speed."""
    try:
        compact = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        return msgspec.json.format(compact, indent=indent)
    except (*_FAST_FAILURES, msgspec.MsgspecError):
        return json.dumps(value, indent=indent, ensure_ascii=False)


def decode_json(data: bytes | str) -> Any:
    """``json.loads(data.decode("utf-8"))``: the same value, or the same error
    (``UnicodeDecodeError`` for bytes that are not UTF-8), at C speed."""
    try:
        return msgspec.json.decode(data)  # rejects what is not UTF-8, as strict decoding does
    except (msgspec.MsgspecError, RecursionError):
        return json.loads(data.decode("utf-8") if isinstance(data, bytes) else data)


class _NotFinite(ValueError):
    """A number JSON cannot hold, met by ``json.loads``'s hooks (its place is found after)."""


def _no_constant(token: str) -> Any:
    raise _NotFinite(token)


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _NotFinite(token)
    return value


def read_json_input(data: bytes | str, source: str, *, keep_non_finite: bool = False) -> Any:
    """The JSON value of an input file's contents (``source``: its name in errors).

    The same value as ``decode_json``; every failure is an ``InputError`` with the line
    and column (or byte) where it is. ``NaN``, ``Infinity`` and float literals beyond a
    double's range are refused unless ``keep_non_finite`` (the CLI keeps them, as the
    reference does, so validation reports them where they matter). In the compiled build
    equal string values are then one object each (``SHARE_STRINGS``): the same value,
    smaller, and every look-up of an id or a name finds its key by identity.
    Cost: ``decode_json``'s, plus one pass to share the strings in the compiled build
    (0.02 s for the 5,000-chain NX document, which it makes 20 MB smaller; 0.1 s and
    80 MB at 20,000 chains); a second linear scan only to place an error.
    """
    try:
        return _shared(msgspec.json.decode(data))  # refuses NaN, Infinity and 1e400 itself
    except (msgspec.MsgspecError, RecursionError):
        pass
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(source, Problem(f"byte {error.start}", "not UTF-8 text")) from None
    else:
        text = data
    try:
        if keep_non_finite:
            return _shared(json.loads(text))
        return _shared(json.loads(text, parse_constant=_no_constant, parse_float=_finite_float))
    except json.JSONDecodeError as error:
        raise InputError(
            source,
            Problem(f"line {error.lineno}, column {error.colno}", f"invalid JSON: {error.msg}"),
        ) from None
    except (RecursionError, ValueError):  # _NotFinite, or too many digits for an int
        raise _placed(text, source, keep_non_finite) from None


def _placed(text: str, source: str, keep_non_finite: bool) -> InputError:
    return InputError(source, limit_problem(text, finite=not keep_non_finite))


def limit_problem(text: str, *, finite: bool = False) -> Problem:
    """Where a JSON text that ``json.loads`` refused with ``RecursionError`` or
    ``ValueError`` (nesting too deep, an integer of too many digits; with ``finite``,
    a number JSON cannot hold) passes the limit, for readers that parse JSON themselves."""
    found = text_limits.json_problem(text, finite=finite)
    if found is None:
        return Problem("", "JSON nested too deeply or with numbers too large to read")
    offset, what = found
    line, column = text_limits.position(text, offset)
    return Problem(f"line {line}, column {column}", what)
