"""The JSON codec writes exactly the bytes of ``json.dumps(document, indent=4) + "\\n"`` and
reads exactly what ``json.loads`` reads (same values, same errors).

The expectation is always the standard library's own output for the same value; the
generated documents cover floats of every magnitude (subnormals, -0.0, NaN, infinities),
integers far beyond 64 bits, non-ASCII and lone-surrogate strings, control characters,
empty containers, deep nesting and key order, and the slice size is varied so that every
way of cutting a list into pieces is exercised.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies

from perfline.build_info import core_build
from perfline.core.json_codec import (
    SPLIT_DEPTH,
    TOKEN_CHECK,
    decode_json,
    document_bytes,
    document_chunks,
    encode_compact,
    indented_text,
    msgspec_compact_or_none,
    searched_same_text,
)

# Every code point, surrogates included (lone ones are what the standard library escapes
# as \udXXX and msgspec refuses), weighted towards the troublesome ones.
CHARACTERS = strategies.one_of(
    strategies.characters(min_codepoint=0, max_codepoint=0x10FFFF),
    strategies.sampled_from(["\x00", "\x1f", "\x7f", '"', "\\", "/", "\u2028", "\ud800", "\udfff"]),
    strategies.integers(min_value=0xD800, max_value=0xDFFF).map(chr),
)
TEXT = strategies.text(CHARACTERS, max_size=12)
FLOATS = strategies.one_of(
    strategies.floats(allow_nan=True, allow_infinity=True),
    strategies.floats(min_value=-1e-300, max_value=1e-300),  # subnormals and tiny values
    strategies.sampled_from(
        [
            0.0,
            -0.0,
            5e-324,
            2.2250738585072014e-308,
            1.7976931348623157e308,
            1e16,
            1e-5,
            0.1,
            1e22,
            123456789.0,
        ]
    ),
)
INTEGERS = strategies.one_of(
    strategies.integers(),
    strategies.integers(min_value=-(10**60), max_value=10**60),
    strategies.sampled_from([2**63, -(2**63) - 1, 2**64, 0, -1]),
)
SCALARS = strategies.one_of(strategies.none(), strategies.booleans(), INTEGERS, FLOATS, TEXT)


def _objects(children: strategies.SearchStrategy[Any]) -> strategies.SearchStrategy[dict[str, Any]]:
    # Built from a list of pairs: the order is the generated one, duplicates keep the last.
    return strategies.lists(strategies.tuples(TEXT, children), max_size=6).map(dict)


JSON_VALUES = strategies.recursive(
    SCALARS,
    lambda children: strategies.one_of(strategies.lists(children, max_size=8), _objects(children)),
    max_leaves=60,
)


def _expected(value: Any) -> bytes:
    return (json.dumps(value, indent=4) + "\n").encode("ascii")


# ``json_only`` (msgspec's compact encoding where its text is the standard library's) is
# held to the same bytes on every JSON value: the strategies above only make JSON values.
ROUTES = pytest.mark.parametrize("json_only", [False, True], ids=["stdlib", "json_only"])


@ROUTES
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON_VALUES, slice_items=strategies.integers(min_value=1, max_value=5))
def test_document_bytes_are_json_dumps_indent_4(
    value: Any, slice_items: int, json_only: bool
) -> None:
    chunks = list(document_chunks(value, slice_items=slice_items, json_only=json_only))
    assert b"".join(chunks) == _expected(value)


@ROUTES
@settings(max_examples=200, deadline=None)
@given(value=JSON_VALUES)
def test_default_slices_too(value: Any, json_only: bool) -> None:
    assert document_bytes(value, json_only=json_only) == _expected(value)


# Values msgspec's route takes as they are: ASCII text without DEL, no None, finite floats
# of every magnitude (those whose notation differs must be found, the others kept).
FAST_TEXT = strategies.text(strategies.characters(min_codepoint=0, max_codepoint=0x7E), max_size=12)
FAST_FLOATS = strategies.one_of(
    strategies.floats(allow_nan=False, allow_infinity=False),
    strategies.floats(min_value=1e-4, max_value=1e16, exclude_max=True),
    strategies.floats(min_value=-1e-3, max_value=1e-3),
    strategies.builds(
        lambda m, e: float(f"{m}e{e}"), strategies.integers(1, 99999), strategies.integers(-9, 18)
    ),
    strategies.sampled_from([1e-4, 9.999999999999999e-05, 1e16, 1e-5, 1e-7, 100.00000000000001]),
)
FAST_SCALARS = strategies.one_of(strategies.booleans(), INTEGERS, FAST_FLOATS, FAST_TEXT)
FAST_VALUES = strategies.recursive(
    FAST_SCALARS,
    lambda children: strategies.one_of(
        strategies.lists(children, max_size=8),
        strategies.lists(strategies.tuples(FAST_TEXT, children), max_size=6).map(dict),
    ),
    max_leaves=40,
)


@settings(max_examples=1500, deadline=None)
@given(value=strategies.one_of(FAST_VALUES, JSON_VALUES))
def test_msgspec_text_is_taken_only_where_it_is_the_standard_librarys(value: Any) -> None:
    fast = msgspec_compact_or_none(value)
    if fast is not None:
        assert fast == json.dumps(value, separators=(",", ":")).encode("ascii")


@pytest.mark.parametrize(
    "value",
    [
        {"id": "code_line/a.py:12-3cc0fda4e915", "v": [0, -7, 2**70, 0.1, 1e-4, 123.5e10]},
        [True, False, "", {}, [], 9.999999999999998e15, -0.0, "e12", "1.0e5x"],
        [100.00000000000001, -1000.0000000000001, "10.00001"],
    ],
)
def test_msgspec_text_is_taken_for_usual_records(value: Any) -> None:
    # the fast route is not dead: records of ASCII text, integers and ordinary floats
    assert msgspec_compact_or_none(value) == json.dumps(value, separators=(",", ":")).encode()


@pytest.mark.parametrize(
    "value",
    [
        ["é"],
        ["\x7f"],
        [None],
        [float("nan")],
        [float("inf")],
        [1e-5],
        [-2.5e-5],
        [1e16],
        [2.5e-7],
        [5e-324],
        {"x": 1.5e300},
        1e22,
        ["\ud800"],
        [-1e-5, "a"],
        [{"k": [1, {"x": 1.0e-6}]}],
    ],
)
def test_msgspec_text_is_refused_where_it_differs(value: Any) -> None:
    assert msgspec_compact_or_none(value) is None
    assert document_bytes(value, json_only=True) == _expected(value)


@pytest.mark.parametrize(
    "value",
    [["0.0000"], ["null", "4e12,", "-0.00001"], {"null": "1e16]", "0.00001": ["e-05"]}],
    ids=repr,
)
def test_hazards_inside_strings_are_false_alarms_of_the_searches_only(value: Any) -> None:
    # The pure build's searches see the text whole; the compiled build's token pass knows
    # these are strings. Either way the bytes are the standard library's.
    compact = json.dumps(value, separators=(",", ":")).encode()
    assert searched_same_text(compact) is False
    if TOKEN_CHECK is not None:
        assert TOKEN_CHECK(compact) is True
        assert msgspec_compact_or_none(value) == compact
    else:
        assert msgspec_compact_or_none(value) is None
    assert document_bytes(value, json_only=True) == _expected(value)


def test_the_compiled_build_checks_tokens_in_c() -> None:
    assert (TOKEN_CHECK is not None) == (core_build() == "compiled (mypyc)")


@pytest.mark.skipif(TOKEN_CHECK is None, reason="the pure build has no token check")
@settings(max_examples=1500, deadline=None)
@given(value=strategies.one_of(FAST_VALUES, JSON_VALUES))
def test_the_token_check_refuses_no_more_than_the_searches(value: Any) -> None:
    # Where the token pass accepts, the text is the standard library's (the test above on
    # msgspec_compact_or_none); here: whatever it refuses, the searches refuse too (it
    # only drops their false alarms), and what both accept is the same text.
    import msgspec

    try:
        compact = msgspec.json.encode(value)
    except (ValueError, TypeError, RecursionError, OverflowError, msgspec.MsgspecError):
        return
    assert TOKEN_CHECK is not None
    if not TOKEN_CHECK(compact):
        assert not searched_same_text(compact)
    elif searched_same_text(compact):
        assert compact == json.dumps(value, separators=(",", ":")).encode("ascii")


@pytest.mark.skipif(TOKEN_CHECK is None, reason="the pure build has no token check")
@pytest.mark.skipif(TOKEN_CHECK is None, reason="the pure build has no token check")
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (b'"abc', False),  # unterminated: not msgspec's text
        (b'["a\\\\', False),  # ends inside a string, after an escaped backslash
        (b'["a\\\\"]', True),  # an escaped backslash, then the closing quote
        (b'["\\"1e16"]', True),  # an escaped quote does not end the string
        (b"", True),
        (b"[]", True),
        (b'"\\u00e9"', True),
        (b"[-0.0,1.5,-12]", True),
        (b"[1E5]", False),
        (b"[true,false,nul", False),
    ],
    ids=repr,
)
def test_the_token_check_on_edges_of_the_text(text: bytes, expected: bool) -> None:
    assert TOKEN_CHECK is not None and TOKEN_CHECK(text) is expected


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for level in range(depth):
        value = [value, level] if level % 2 else {"k": value, "": [], "e": {}}
    return value


@ROUTES
@pytest.mark.parametrize("depth", [1, SPLIT_DEPTH - 1, SPLIT_DEPTH, SPLIT_DEPTH + 1, 40, 150])
def test_deep_nesting(depth: int, json_only: bool) -> None:
    for leaf in ([1.5, "é", float("nan")], list(range(7)), "x"):
        value = _nested(depth, leaf)
        for slice_items in (1, 2, 256):
            chunks = document_chunks(value, slice_items=slice_items, json_only=json_only)
            assert b"".join(chunks) == _expected(value)


@ROUTES
def test_long_lists_at_every_depth_are_cut_into_slices_and_stay_identical(
    json_only: bool,
) -> None:
    rows = [{"id": f"e{i}", "v": i * 0.1, "kids": [i] * (i % 3)} for i in range(1000)]
    document = {"results": [{"entities": rows, "nested": {"deep": {"rows": rows[:300]}}}]}
    chunks = list(document_chunks(document, json_only=json_only))
    assert b"".join(chunks) == _expected(document)
    assert max(len(chunk) for chunk in chunks) < len(_expected(document)) // 3


def test_a_piece_msgspec_cannot_write_alone_falls_back_alone() -> None:
    # One slice with a tiny float among slices msgspec writes: the bytes stay the same.
    rows = [{"v": i + 0.5} for i in range(600)]
    rows[300]["v"] = 1.5e-5
    rows[10]["n"] = None
    rows[500]["t"] = "ünïcode"
    assert document_bytes({"rows": rows}, json_only=True) == _expected({"rows": rows})


def test_values_json_cannot_hold_raise_what_json_dumps_raises() -> None:
    for bad in ({"a": {1, 2}}, {"b": [object()]}, {(1, 2): 3}):
        with pytest.raises(TypeError) as ours:
            document_bytes(bad)
        with pytest.raises(TypeError) as theirs:
            json.dumps(bad, indent=4)
        assert str(ours.value) == str(theirs.value)
    circular: list[Any] = []
    circular.append(circular)
    with pytest.raises(ValueError, match="Circular reference"):
        document_bytes({"x": circular})


def test_non_string_keys_and_tuples_as_json_dumps_writes_them() -> None:
    value = {"a": {1: "x", 2.5: None, False: [], None: (1, 2)}, "t": (3, (4,))}
    assert document_bytes(value) == _expected(value)


@settings(max_examples=300, deadline=None)
@given(value=JSON_VALUES)
def test_indented_text_and_compact_are_the_standard_librarys(value: Any) -> None:
    assert indented_text(value, 2) == json.dumps(value, indent=2, ensure_ascii=False)
    # Read back as the standard library's own wire form reads back (a string with a pair of
    # lone surrogates comes back as the one character they encode), NaN and infinities as
    # null.
    expected = _wire(json.loads(json.dumps(value)))
    assert _same(json.loads(encode_compact(value).decode("utf-8")), expected)


def _wire(value: Any) -> Any:
    """The value with non-finite floats as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_wire(item) for item in value]
    if isinstance(value, dict):
        return {key: _wire(item) for key, item in value.items()}
    return value


def _same(left: Any, right: Any) -> bool:
    """Equal values of equal types, NaN equal to NaN, -0.0 distinct from 0.0, key order."""
    if type(left) is not type(right):
        return False
    if isinstance(left, float):
        return (math.isnan(left) and math.isnan(right)) or (
            left == right and math.copysign(1, left) == math.copysign(1, right)
        )
    if isinstance(left, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, dict):
        return list(left) == list(right) and all(_same(left[k], right[k]) for k in left)
    return bool(left == right)


@settings(max_examples=400, deadline=None)
@given(value=JSON_VALUES, indent=strategies.sampled_from([None, 4]))
def test_decode_reads_what_json_loads_reads(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    assert _same(decode_json(text), json.loads(text))
    assert _same(decode_json(text.encode("ascii")), json.loads(text))
    raw = json.dumps(value, indent=indent, ensure_ascii=False)
    if not any(0xD800 <= ord(c) <= 0xDFFF for c in raw):
        assert _same(decode_json(raw), json.loads(raw))
        assert _same(decode_json(raw.encode("utf-8")), json.loads(raw))


INVALID = [
    "",
    "[1,]",
    '{"a": ,}',
    "01",
    "1.",
    ".5",
    "+1",
    '"a\x01b"',
    "\ufeff[1]",
    "[1] x",
    "[" * 100_000 + "]" * 100_000,
    "1" * 5000,
    '{"a" 1}',
    "tru",
]


@pytest.mark.parametrize("text", INVALID, ids=range(len(INVALID)))
def test_decode_errors_are_json_loads_errors(text: str) -> None:
    with pytest.raises(Exception) as theirs:
        json.loads(text)
    with pytest.raises(Exception) as ours:
        decode_json(text)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(
    "text", ["NaN", "[Infinity, -Infinity]", "1e400", '"\\udc80"', '{"a":1,"a":2}', "-0"]
)
def test_what_only_json_loads_accepts_is_still_read(text: str) -> None:
    assert _same(decode_json(text), json.loads(text))


@pytest.mark.parametrize(
    "data",
    [b'"\xff"', b'"\xc3"', b'"\xed\xa0\x80"', b'"\xf4\x90\x80\x80"', b'"\xc0\xaf"', b"[1]\xff"],
)
def test_bytes_that_are_not_utf8_fail_as_strict_decoding_does(data: bytes) -> None:
    with pytest.raises(UnicodeDecodeError) as theirs:
        json.loads(data.decode("utf-8"))
    with pytest.raises(UnicodeDecodeError) as ours:
        decode_json(data)
    assert ours.value.start == theirs.value.start


def test_a_byte_order_mark_is_the_standard_librarys_error() -> None:
    data = "\ufeff[1]".encode()
    with pytest.raises(json.JSONDecodeError) as ours:
        decode_json(data)
    assert (
        str(ours.value) == "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"
    )


BOUNDARY_FLOATS = [
    0.0,
    -0.0,
    1e-4,
    -1e-4,
    0.00012207031249999999,
    1.2e-4,
    9007199254740992.0,
    9.5e15,
    1e16 - 2,
    1e16,
    -1e16,
    1.5e-5,
    5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    float("nan"),
    float("inf"),
    -float("inf"),
    0.1,
    100.0,
    123456789.125,
    4503599627370496.5,
]


@ROUTES
@pytest.mark.parametrize("value", BOUNDARY_FLOATS, ids=repr)
def test_floats_where_notations_change(value: float, json_only: bool) -> None:
    # Alone, in a long sliced list, as a dict key, deep, beside DEL and non-ASCII text
    # (float keys are not JSON values: not for json_only).
    keys: Any = {"f": {value: 1}} if not json_only else {}
    for document in (
        {"v": value},
        {"rows": [{"x": value, "i": i} for i in range(300)]},
        {"k": {str(value): value, "n": [[value]]}, **keys},
        [value, "\x7f", "é", value],
    ):
        for slice_items in (1, 7, 256):
            chunks = document_chunks(document, slice_items=slice_items, json_only=json_only)
            assert b"".join(chunks) == _expected(document)
