"""Exact sums of metric values: the arithmetic of deviation D6 (``docs/deviations.md``).

A figure that projection adds up is, in the default ``float_sums = "exact"`` mode, the
correctly rounded value of the exact (real-number) sum of what it adds: the same
whatever order or grouping the covers are found in. Integers add as Python integers
(exact). A sum with a float in it is kept between combinations as its *partials*:
non-overlapping floats whose exact sum is the sum's exact value (Shewchuk's
expansion, the representation ``math.fsum`` works with), so adding two sums loses
nothing; its printed value is ``math.fsum`` of the partials, which rounds correctly.
An integer beyond 2**53, or an expansion that overflows along the way, is added with
``fractions.Fraction`` instead (exact, slower, never seen in real results). A zero sum
is ``0.0`` (as ``0 + -0.0`` gives in the reference's order); a total beyond the float
range is not finite, and the metric is left out as the reference leaves out an
infinite one.

Cost: per term, one pass over the running partials (one or two for real data).
"""

from __future__ import annotations

from fractions import Fraction
from math import fsum
from typing import Any, Final, Literal

FloatSums = Literal["exact", "reference"]
"""How projection adds floats: ``"exact"`` (D6, the default) or ``"reference"``, in the
order the reference's searches add them, rounding as they go (mlia 0.12.3, byte for byte)."""

EXACT_INT_LIMIT: Final = 2**53
"""Integers up to this size (in magnitude) convert to floats exactly."""

Partials = tuple[float, ...]
"""A float sum's exact value: non-overlapping floats, smallest magnitude first."""


def exact_total(terms: list[Any], partials: list[float]) -> float | None:
    """The correctly rounded sum of ``terms`` (each an int, a float, or a ``Partials``
    tuple standing for its exact sum), or ``None`` when it is not finite. ``partials``
    (empty on entry) receives the exact sum's partials."""
    for term in terms:
        if type(term) is tuple:
            for value in term:
                if not _grow(partials, value):
                    return _fraction_total(terms, partials)
        elif not (_converts_exactly(term) and _grow(partials, float(term))):
            return _fraction_total(terms, partials)
    return _rounded(partials)


def _converts_exactly(value: Any) -> bool:
    """Is ``float(value)`` exactly ``value`` (a float, or an int up to 2**53)?"""
    return type(value) is not int or -EXACT_INT_LIMIT <= value <= EXACT_INT_LIMIT


def _grow(partials: list[float], value: float) -> bool:
    """Add ``value`` to the expansion in place (each step exact: ``high + low`` is the
    sum of its two operands); False when a step overflowed."""
    count = 0
    size = len(partials)
    for position in range(size):
        other = partials[position]
        if abs(value) < abs(other):
            value, other = other, value
        high = value + other
        low = other - (high - value)
        if low != 0.0:
            partials[count] = low
            count += 1
        value = high
    if count < size:
        partials[count] = value
        while len(partials) > count + 1:
            partials.pop()
    else:
        partials.append(value)
    return _finite(value)


def _finite(value: float) -> bool:
    """``math.isfinite(value)`` in two float operations (infinity and NaN give NaN)."""
    return value - value == 0.0


def _rounded(partials: list[float]) -> float | None:
    try:
        value = fsum(partials)
    except OverflowError:
        return None
    if not _finite(value):
        return None
    return value if value != 0.0 else 0.0


def _fraction_total(terms: list[Any], partials: list[float]) -> float | None:
    """``exact_total`` by rational arithmetic (huge integers, overflowing expansions)."""
    total = Fraction(0)
    for term in terms:
        if type(term) is tuple:
            for value in term:
                total += Fraction(value)
        else:
            total += Fraction(term)
    del partials[:]
    remainder = total
    while remainder:
        try:
            high = float(remainder)  # correctly rounded
        except OverflowError:
            return None
        if not _finite(high):
            return None
        partials.insert(0, high)
        remainder -= Fraction(high)
    return _rounded(partials)
