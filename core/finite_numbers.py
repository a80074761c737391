"""Numbers read from documents and configuration: a finite float, or a problem that says so.

JSON and TOML both hold numbers a float cannot: integers of hundreds of digits (valid
TOML, valid JSON) and, in TOML, ``inf`` and ``nan`` (``1e400`` reads as ``inf``). Taken
as they come they end as ``OverflowError`` deep in a backend (an internal error) or as
a bare ``Infinity`` in a written document, which no JSON reader takes. Every reader of a
number from a file goes through here: ``number_problem`` says what is wrong with a value
(for readers that gather problems, such as ``perfline.toml``'s), ``read_number`` raises
the ``InputError`` naming the file and the place, and ``finite_float`` is the value when
it is one. A leaf module, pure; one ``float()`` and one ``isfinite`` per value.
"""

from __future__ import annotations

import math

from perfline.core.errors import InputError, Problem

#: How a refused number is shown: at most this many characters of it.
_SHOWN = 24


def finite_float(value: object) -> float | None:
    """``value`` as a finite float (an int or a float, not a bool), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def shown(value: object) -> str:
    """A number as a message shows it (long integers cut, with their length)."""
    if isinstance(value, int) and not isinstance(value, bool):
        digits = len(str(abs(value))) if value.bit_length() < 4096 else None
        if digits is None or digits > _SHOWN:
            return f"an integer of {digits or 'over 1,200'} digits"
        return str(value)
    return repr(value)


def number_problem(
    value: object, *, positive: bool = False, non_negative: bool = False
) -> str | None:
    """What is wrong with ``value`` as a number (``None``: nothing)."""
    wanted = "a positive" if positive else "a non-negative" if non_negative else "a"
    expected = f"expected {wanted} finite number"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{expected}, got {shown(value)}"
    number = finite_float(value)
    if number is None:
        if isinstance(value, int):
            return f"{expected}, got {shown(value)}: too large for a number (at most about 1.8e308)"
        return f"{expected}, got {shown(value)}"
    if (positive and number <= 0) or (non_negative and number < 0):
        return f"{expected}, got {shown(value)}"
    return None


def read_number(
    value: object,
    source: str | None,
    place: str,
    *,
    positive: bool = False,
    non_negative: bool = False,
) -> float:
    """``value`` as a finite float, else ``InputError(source, Problem(place, ...))``."""
    problem = number_problem(value, positive=positive, non_negative=non_negative)
    if problem is not None:
        raise InputError(source, Problem(place, problem))
    number = finite_float(value)
    assert number is not None
    return number
