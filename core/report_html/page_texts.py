"""How the page data carries the text of its numbers: written here, by ``core.figure_text``.

The page's script prints no number it formats itself: every figure, share, difference and
p-value it shows is text made in Python by ``core.figure_text`` (the editor's and the CLI's
renderer), carried in the page data one of two ways, so that a text that recurs is written
once and a 20,000-chain page stays about the size of its numbers:

* ``Texts``: a list of distinct strings, each referred to by its position (a line's label,
  a chart node's share of its parent, a compare row's change);
* ``Scale``: the texts of the values of one kind the page holds (a view's figures, an
  operator table's column), as runs ``{"from": [v0, v1, ...], "text": [t0, t1, ...]}``,
  ``from`` ascending: the text of a value ``v`` the page holds is ``text[i]`` for the last
  ``i`` with ``from[i] <= v`` (the script's ``textAt``). Each value is written rounded
  (``rounded``: seven significant digits, what the page holds and looks up) and its text is
  ``figure_text``'s text of the value itself; only values added to the scale have a text.

Pure; ``Texts.ref`` and ``Scale.add`` take constant time, ``Scale.payload`` sorts the distinct
values held.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def rounded(value: float | None) -> float | int | None:
    """Seven significant digits, integers kept as integers (JSON stays short)."""
    if value is None:
        return None
    if float(value).is_integer() and abs(value) < 2**53:
        return int(value)
    return float(f"{value:.7g}")


class Texts:
    """Distinct strings, each referred to by its position (``-1``: none)."""

    def __init__(self) -> None:
        self._refs: dict[str, int] = {}

    def ref(self, text: str | None) -> int:
        """The position of ``text``, added on first use (``-1`` for ``None``)."""
        if text is None:
            return -1
        return self._refs.setdefault(text, len(self._refs))

    def payload(self) -> list[str]:
        return list(self._refs)


class Scale:
    """The texts of the values of one kind the page holds (see the module docstring)."""

    def __init__(self, text: Callable[[float], str]) -> None:
        self._text = text
        self._texts: dict[float | int, str] = {}

    def add(self, value: float | None) -> float | int | None:
        """``value`` as the page holds it (``rounded``), its text recorded."""
        key = rounded(value)
        if value is not None and key is not None and key not in self._texts:
            self._texts[key] = self._text(value)
        return key

    def payload(self) -> dict[str, list[Any]]:
        """``{"from": [...], "text": [...]}``: one run per stretch of values written alike."""
        bounds: list[float | int] = []
        texts: list[str] = []
        for key in sorted(self._texts):
            text = self._texts[key]
            if not texts or texts[-1] != text:
                bounds.append(key)
                texts.append(text)
        return {"from": bounds, "text": texts}


def text_at(scale: dict[str, list[Any]], value: float | int) -> str:
    """The text a scale's payload gives a value the page holds (the script's ``textAt``;
    for tests and hosts that read the page data)."""
    bounds = scale["from"]
    low, high = 0, len(bounds) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if bounds[middle] <= value:
            low = middle
        else:
            high = middle - 1
    text: str = scale["text"][low]
    return text
