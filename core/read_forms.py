"""Which breakdowns a read handed over already in canonical form, travelling with the
document it read (``core.known_structure_reading`` makes it; ``core.pipeline`` and the
daemon's standardized job read it).

A reader that decodes a result's *plain* breakdowns straight into the schema's key order
(the file's values, key order aside) notes that list here with a way to decode it as the
file writes it. The canonical pass then takes the list as it is (``is_canonical``), and a
result returned as it came in (one no stage changed, a document already post-processed)
gets the file's key order back (``as_written``, ``document_as_written``). Not a cache:
the facts of one read, dropped with it. Cost: a dictionary look-up per result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class ReadForms:
    """Per result index, the breakdowns list a read handed over in canonical form and
    what decodes them as the file writes them."""

    __slots__ = ("_forms",)

    def __init__(self) -> None:
        self._forms: dict[int, tuple[list[Any], Callable[[], Any]]] = {}

    def note(self, result_index: int, canonical: list[Any], written: Callable[[], Any]) -> None:
        """Result ``result_index``'s breakdowns were handed over as ``canonical``;
        ``written()`` decodes them as the file writes them."""
        self._forms[result_index] = (canonical, written)

    def __bool__(self) -> bool:
        return bool(self._forms)

    def is_canonical(self, result_index: int, breakdowns: Any) -> bool:
        """Whether ``breakdowns`` is the very list this read handed over in canonical form."""
        known = self._forms.get(result_index)
        return known is not None and known[0] is breakdowns

    def as_written(self, result_index: int, result: Any) -> Any:
        """``result`` with its breakdowns as the file writes them, when they are the list
        this read handed over in canonical form (else ``result`` itself)."""
        if type(result) is not dict:
            return result
        known = self._forms.get(result_index)
        if known is None or result.get("breakdowns") is not known[0]:
            return result
        restored = dict(result)
        restored["breakdowns"] = known[1]()
        return restored

    def document_as_written(self, document: Any) -> Any:
        """``document`` (as read) with every result ``as_written`` (``document`` itself when
        no result's breakdowns were handed over in canonical form)."""
        if not self._forms or type(document) is not dict:
            return document
        results = document.get("results")
        if type(results) is not list:
            return document
        restored = dict(document)
        restored["results"] = [
            self.as_written(index, result) for index, result in enumerate(results)
        ]
        return restored
