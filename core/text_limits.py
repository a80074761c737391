"""Where a JSON or TOML text passes what its reader can hold, as line and column.

The standard library's readers fail on some valid-looking texts without saying where:
nesting deeper than the interpreter's recursion allows (``RecursionError``), integers
of more digits than Python converts (``ValueError``, 4300 by default), and numbers JSON
cannot hold once read (``NaN``, ``Infinity``, ``1e400`` read as infinity), which a
strict JSON writer refuses later. These scanners run only after a reader failed (or
refused a value) and find the first such place, so the error can name it. Each is one
pass over the text with one regular expression, linear in its length; strings and
comments are skipped as tokens, so nothing inside them counts. Pure.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Final

MAX_DEPTH: Final = 512
"""The deepest nesting perfline reads in a JSON input (real documents nest about 10 deep)."""

MAX_TOML_DEPTH: Final = 64
"""The deepest nesting of arrays and inline tables read in ``perfline.toml``."""

#: JSON tokens: strings (escapes skipped), brackets, numbers and the non-standard constants.
_JSON_TOKENS: Final = re.compile(
    r'"(?:[^"\\]|\\.)*"?|[\[\]{}]|-?(?:Infinity|NaN)|NaN|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?',
    re.DOTALL,
)

#: TOML tokens: comments, the four string forms, brackets, line ends, integers, and runs
#: of anything else that is not a space (so a token at a line's start is known as such).
_TOML_TOKENS: Final = re.compile(
    r"#[^\n]*|'''.*?(?:'''|\Z)|\"\"\"(?:[^\\]|\\.)*?(?:\"\"\"|\Z)|'[^'\n]*'?"
    r'|"(?:[^"\\\n]|\\.)*"?|[\[\]{}]|\n|[-+]?\d[\d_]*|[^\s\[\]{}#\'"\d]+',
    re.DOTALL,
)


def max_int_digits() -> int:
    """The most digits Python converts to an integer here (0: no limit)."""
    getter = getattr(sys, "get_int_max_str_digits", None)
    return int(getter()) if getter is not None else 0


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def json_problem(text: str, *, finite: bool) -> tuple[int, str] | None:
    """The offset and description of the first place of a JSON text that its reader
    cannot hold: nesting past ``MAX_DEPTH``, an integer of too many digits and, with
    ``finite``, a ``NaN`` / ``Infinity`` token or a number too large for a float. Else
    the deepest point if it is deeper than half the limit (a reader that ran out of
    stack before the limit), else ``None``."""
    digits = max_int_digits()
    depth = deepest = deepest_at = 0
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        first = token[0]
        if first == '"':
            continue
        if first in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start(), f"JSON nested deeper than {MAX_DEPTH} levels"
            if depth > deepest:
                deepest, deepest_at = depth, match.start()
        elif first in "]}":
            depth -= 1
        elif token.lstrip("-") in ("NaN", "Infinity"):
            if finite:
                return match.start(), f"{token} is not a JSON number"
        else:
            problem = _number_problem(token, digits, finite)
            if problem is not None:
                return match.start(), problem
    if deepest > MAX_DEPTH // 2:
        return deepest_at, f"JSON nested {deepest} levels deep, too deep to read"
    return None


def _number_problem(token: str, digits: int, finite: bool) -> str | None:
    integer = token.lstrip("-")
    if integer.isdigit():
        if digits and len(integer) > digits:
            return f"an integer of {len(integer)} digits (at most {digits} are read)"
        return None
    if finite and not math.isfinite(float(token)):
        return f"the number {_short(token)} is too large for a 64-bit float"
    return None


def toml_problem(text: str) -> tuple[int, str] | None:
    """The offset and description of the first place of a TOML text that ``tomllib``
    cannot read: arrays or inline tables nested past ``MAX_TOML_DEPTH``, an integer of
    too many digits; else the deepest point if it is deeper than the limit's half."""
    digits = max_int_digits()
    depth = deepest = deepest_at = 0
    line_start = True  # only whitespace since the last newline (a table header may start)
    header = False
    for match in _TOML_TOKENS.finditer(text):
        token = match.group()
        first = token[0]
        if token == "\n":
            line_start, header = True, False
            continue
        starts_line, line_start = line_start, False
        if first in "#'\"":
            continue
        if first == "[" and depth == 0 and starts_line:
            header = True  # ``[table]`` / ``[[tables]]``: a header, not nesting
            continue
        if header:
            continue
        if first in "[{":
            depth += 1
            if depth > MAX_TOML_DEPTH:
                return match.start(), f"arrays or tables nested deeper than {MAX_TOML_DEPTH} levels"
            if depth > deepest:
                deepest, deepest_at = depth, match.start()
        elif first in "]}":
            depth = max(0, depth - 1)
        else:
            count = sum(1 for c in token if c.isdigit())
            if digits and count > digits:
                return match.start(), f"an integer of {count} digits (at most {digits} are read)"
    if deepest > MAX_TOML_DEPTH // 2:
        return deepest_at, f"arrays or tables nested {deepest} levels deep, too deep to read"
    return None


def _short(token: str) -> str:
    return token if len(token) <= 24 else token[:10] + "..." + token[-10:]
